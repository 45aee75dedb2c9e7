// diff_backend: the backend (stream) API on CPU and TEST: guid, name (incl. NULL), free (incl. NULL),
// default buffer type, alloc_buffer (incl. size 0), alignment, max size, device, synchronize,
// graph plans (CPU), graph_compute / graph_compute_async with broadcasting and strided sources and their
// results, failing computes on TEST, supports_op / supports_buft / offload_op (backend and TEST config
// switches), events (event_new on NULL/CPU/TEST devices, record/wait/synchronize/free) and graph_copy.
#include "diff_util.h"
#include "ggml-cpu.h"

struct net {
    struct wsp_ggml_context * ctx;
    wsp_ggml_backend_buffer_t buf;
    struct wsp_ggml_tensor  * a, * b, * a2, * c, * g, * h;
    struct wsp_ggml_cgraph  * gf;
};

// g = sqr(((a + b) * a) * 0.5) - a   with b [4,1] broadcast over a [4,3];  h = a + transpose(a2)
static struct net make_net(wsp_ggml_backend_t backend) {
    struct net n;
    n.ctx = du_ctx(16);
    n.a   = wsp_ggml_new_tensor_2d(n.ctx, WSP_GGML_TYPE_F32, 4, 3);
    n.b   = wsp_ggml_new_tensor_2d(n.ctx, WSP_GGML_TYPE_F32, 4, 1);
    n.a2  = wsp_ggml_new_tensor_2d(n.ctx, WSP_GGML_TYPE_F32, 3, 4);
    n.c   = wsp_ggml_add(n.ctx, n.a, n.b);
    struct wsp_ggml_tensor * d = wsp_ggml_mul(n.ctx, n.c, n.a);
    struct wsp_ggml_tensor * e = wsp_ggml_scale(n.ctx, d, 0.5f);
    struct wsp_ggml_tensor * f = wsp_ggml_sqr(n.ctx, e);
    n.g   = wsp_ggml_sub(n.ctx, f, n.a);
    n.h   = wsp_ggml_add(n.ctx, n.a, wsp_ggml_transpose(n.ctx, n.a2));
    n.gf  = wsp_ggml_new_graph(n.ctx);
    wsp_ggml_build_forward_expand(n.gf, n.g);
    wsp_ggml_build_forward_expand(n.gf, n.h);
    n.buf = wsp_ggml_backend_alloc_ctx_tensors(n.ctx, backend);
    du_fill(n.a, -1.5f, 0.25f);
    du_fill(n.b, 3.0f, -1.0f);
    du_fill(n.a2, 0.125f, 1.0f);
    return n;
}

static void free_net(struct net * n) {
    wsp_ggml_backend_buffer_free(n->buf);
    wsp_ggml_free(n->ctx);
}

static void clear_outputs(struct net * n) {
    wsp_ggml_backend_tensor_memset(n->g, 0, 0, wsp_ggml_nbytes(n->g));
    wsp_ggml_backend_tensor_memset(n->h, 0, 0, wsp_ggml_nbytes(n->h));
}

static void print_outputs(const char * tag, struct net * n) {
    char l[128];
    snprintf(l, sizeof(l), "%s g", tag); du_print_tensor(l, n->g);
    snprintf(l, sizeof(l), "%s h", tag); du_print_tensor(l, n->h);
}

static void basics(const char * tag, wsp_ggml_backend_t be, wsp_ggml_backend_buffer_type_t expect_buft,
                   wsp_ggml_backend_dev_t expect_dev) {
    char l[128];
    snprintf(l, sizeof(l), "%s name", tag);           DU_S(l, wsp_ggml_backend_name(be));
    snprintf(l, sizeof(l), "%s guid_nonnull", tag);   DU_B(l, wsp_ggml_backend_guid(be) != NULL);
    snprintf(l, sizeof(l), "%s guid", tag);           du_print_guid(l, wsp_ggml_backend_guid(be));
    wsp_ggml_backend_buffer_type_t buft = wsp_ggml_backend_get_default_buffer_type(be);
    snprintf(l, sizeof(l), "%s default_buft_match", tag); DU_B(l, buft == expect_buft);
    snprintf(l, sizeof(l), "%s default_buft_name", tag);  DU_S(l, wsp_ggml_backend_buft_name(buft));
    snprintf(l, sizeof(l), "%s alignment", tag);      DU_Z(l, wsp_ggml_backend_get_alignment(be));
    snprintf(l, sizeof(l), "%s max_size", tag);       DU_Z(l, wsp_ggml_backend_get_max_size(be));
    wsp_ggml_backend_dev_t dev = wsp_ggml_backend_get_device(be);
    snprintf(l, sizeof(l), "%s device_match", tag);   DU_B(l, dev == expect_dev);
    snprintf(l, sizeof(l), "%s device_name", tag);    DU_S(l, wsp_ggml_backend_dev_name(dev));

    const size_t sizes[2] = { 100, 0 };
    for (int i = 0; i < 2; i++) {
        wsp_ggml_backend_buffer_t b = wsp_ggml_backend_alloc_buffer(be, sizes[i]);
        snprintf(l, sizeof(l), "%s alloc_%zu name", tag, sizes[i]);      DU_S(l, wsp_ggml_backend_buffer_name(b));
        snprintf(l, sizeof(l), "%s alloc_%zu size", tag, sizes[i]);      DU_Z(l, wsp_ggml_backend_buffer_get_size(b));
        snprintf(l, sizeof(l), "%s alloc_%zu base_nonnull", tag, sizes[i]); DU_B(l, wsp_ggml_backend_buffer_get_base(b) != NULL);
        snprintf(l, sizeof(l), "%s alloc_%zu type_match", tag, sizes[i]);   DU_B(l, wsp_ggml_backend_buffer_get_type(b) == expect_buft);
        snprintf(l, sizeof(l), "%s alloc_%zu is_host", tag, sizes[i]);   DU_B(l, wsp_ggml_backend_buffer_is_host(b));
        wsp_ggml_backend_buffer_free(b);
    }
    wsp_ggml_backend_synchronize(be);
}

static void compute(const char * tag, wsp_ggml_backend_t be, bool plans) {
    char l[128];
    struct net n = make_net(be);
    snprintf(l, sizeof(l), "%s graph_nodes", tag); DU_I(l, wsp_ggml_graph_n_nodes(n.gf));
    snprintf(l, sizeof(l), "%s compute_status", tag); DU_I(l, wsp_ggml_backend_graph_compute(be, n.gf));
    print_outputs(tag, &n);

    clear_outputs(&n);
    snprintf(l, sizeof(l), "%s compute_async_status", tag); DU_I(l, wsp_ggml_backend_graph_compute_async(be, n.gf));
    wsp_ggml_backend_synchronize(be);
    snprintf(l, sizeof(l), "%s async", tag); print_outputs(l, &n);

    if (plans) {
        clear_outputs(&n);
        wsp_ggml_backend_graph_plan_t plan = wsp_ggml_backend_graph_plan_create(be, n.gf);
        snprintf(l, sizeof(l), "%s plan_nonnull", tag); DU_B(l, plan != NULL);
        snprintf(l, sizeof(l), "%s plan_compute_status", tag); DU_I(l, wsp_ggml_backend_graph_plan_compute(be, plan));
        snprintf(l, sizeof(l), "%s plan", tag); print_outputs(l, &n);
        du_fill(n.a, 2.0f, -0.5f);   // plans are reusable with new inputs
        snprintf(l, sizeof(l), "%s plan_compute2_status", tag); DU_I(l, wsp_ggml_backend_graph_plan_compute(be, plan));
        snprintf(l, sizeof(l), "%s plan2", tag); print_outputs(l, &n);
        wsp_ggml_backend_graph_plan_free(be, plan);
    }
    free_net(&n);
    snprintf(l, sizeof(l), "%s counters", tag); du_counters(l);
}

static void failing_computes(wsp_ggml_backend_t tb) {
    // an op the TEST backend cannot compute
    struct wsp_ggml_context * ctx = du_ctx(8);
    struct wsp_ggml_tensor * x = wsp_ggml_new_tensor_2d(ctx, WSP_GGML_TYPE_F32, 4, 4);
    struct wsp_ggml_tensor * y = wsp_ggml_mul_mat(ctx, x, x);
    struct wsp_ggml_cgraph * gf = wsp_ggml_new_graph(ctx);
    wsp_ggml_build_forward_expand(gf, y);
    wsp_ggml_backend_buffer_t buf = wsp_ggml_backend_alloc_ctx_tensors(ctx, tb);
    du_fill(x, 1.0f, 1.0f);
    DU_I("test mul_mat_compute_status", wsp_ggml_backend_graph_compute(tb, gf));
    wsp_ggml_backend_buffer_free(buf);
    wsp_ggml_free(ctx);

    // an op it could compute but was configured not to support
    const enum wsp_ggml_op ops[] = { WSP_GGML_OP_NONE, WSP_GGML_OP_ADD, WSP_GGML_OP_MUL, WSP_GGML_OP_SUB, WSP_GGML_OP_SCALE };
    test_backend_set_supported_ops(ops, 5);
    struct net n = make_net(tb);
    DU_I("test without_sqr_compute_status", wsp_ggml_backend_graph_compute(tb, n.gf));
    free_net(&n);
    test_backend_reset_config();
    du_counters("test failing counters");
}

static void capabilities(wsp_ggml_backend_t cpu, wsp_ggml_backend_t tb) {
    struct net nc = make_net(cpu);
    struct net nt = make_net(tb);
    struct wsp_ggml_context * ctx = du_ctx(16);   // unallocated tensors: the backend decides
    struct wsp_ggml_tensor * x   = wsp_ggml_new_tensor_2d(ctx, WSP_GGML_TYPE_F32, 4, 4);
    struct wsp_ggml_tensor * x16 = wsp_ggml_new_tensor_2d(ctx, WSP_GGML_TYPE_F16, 4, 4);
    struct {
        const char * name;
        const struct wsp_ggml_tensor * op;
    } cases[] = {
        { "add_cpu_srcs",   nc.c },
        { "add_test_srcs",  nt.c },
        { "sub_test_srcs",  nt.g },
        { "unalloc_leaf",   x },
        { "unalloc_add",    wsp_ggml_add(ctx, x, x) },
        { "unalloc_sqr",    wsp_ggml_sqr(ctx, x) },
        { "unalloc_div",    wsp_ggml_div(ctx, x, x) },
        { "unalloc_mul_mat", wsp_ggml_mul_mat(ctx, x, x) },
        { "unalloc_transpose", wsp_ggml_transpose(ctx, x) },
        { "unalloc_add_f16", wsp_ggml_add(ctx, x16, x16) },
        { "unalloc_leaf_f16", x16 },
    };
    const int n_cases = (int) (sizeof(cases) / sizeof(cases[0]));
    for (int pass = 0; pass < 2; pass++) {
        const char * cfg = pass == 0 ? "default" : "host_srcs+offload_mul_mat";
        if (pass == 1) {
            const enum wsp_ggml_op off[] = { WSP_GGML_OP_MUL_MAT, WSP_GGML_OP_ADD };
            test_backend_set_offload_ops(off, 2);
            test_backend_set_accept_host_srcs(true);
        }
        for (int i = 0; i < n_cases; i++) {
            printf("%s supports_op %s cpu=%d test=%d\n", cfg, cases[i].name,
                   wsp_ggml_backend_supports_op(cpu, cases[i].op), wsp_ggml_backend_supports_op(tb, cases[i].op));
            printf("%s offload_op %s cpu=%d test=%d\n", cfg, cases[i].name,
                   wsp_ggml_backend_offload_op(cpu, cases[i].op), wsp_ggml_backend_offload_op(tb, cases[i].op));
        }
    }
    test_backend_reset_config();

    uint8_t * mem = (uint8_t *) aligned_alloc(64, 64);
    wsp_ggml_backend_buffer_t mapped = wsp_ggml_backend_cpu_buffer_from_ptr(mem, 64);
    struct du_custom cu;
    wsp_ggml_backend_buffer_type_t bufts[4] = {
        wsp_ggml_backend_cpu_buffer_type(), test_backend_buffer_type(), wsp_ggml_backend_buffer_get_type(mapped),
        du_custom_init(&cu, "CUSTOM", false, false, 0) };
    for (int i = 0; i < 4; i++) {
        printf("supports_buft %s cpu=%d test=%d\n", wsp_ggml_backend_buft_name(bufts[i]),
               wsp_ggml_backend_supports_buft(cpu, bufts[i]), wsp_ggml_backend_supports_buft(tb, bufts[i]));
    }
    wsp_ggml_backend_buffer_free(mapped);
    free(mem);
    wsp_ggml_free(ctx);
    free_net(&nt);
    free_net(&nc);
}

static void events(wsp_ggml_backend_t cpu, wsp_ggml_backend_t tb) {
    test_backend_reset_counters();
    DU_B("event_new null_device", wsp_ggml_backend_event_new(NULL) == NULL);
    DU_B("event_new cpu_device", wsp_ggml_backend_event_new(wsp_ggml_backend_get_device(cpu)) == NULL);
    wsp_ggml_backend_event_free(NULL);
    wsp_ggml_backend_event_t ev = wsp_ggml_backend_event_new(wsp_ggml_backend_get_device(tb));
    DU_B("event_new test_device", ev != NULL);
    wsp_ggml_backend_event_record(ev, tb);
    wsp_ggml_backend_event_record(ev, tb);
    wsp_ggml_backend_event_wait(tb, ev);
    wsp_ggml_backend_event_synchronize(ev);
    du_counters("events before_free");
    wsp_ggml_backend_event_free(ev);
    du_counters("events after_free");
}

static void graph_copy(wsp_ggml_backend_t cpu, wsp_ggml_backend_t tb) {
    struct net n = make_net(cpu);
    wsp_ggml_backend_graph_compute(cpu, n.gf);
    struct wsp_ggml_backend_graph_copy cp = wsp_ggml_backend_graph_copy(tb, n.gf);
    DU_B("graph_copy ok", cp.buffer != NULL && cp.graph != NULL);
    DU_S("graph_copy buffer_name", wsp_ggml_backend_buffer_name(cp.buffer));
    DU_I("graph_copy nodes", wsp_ggml_graph_n_nodes(cp.graph));
    int n_nodes = wsp_ggml_graph_n_nodes(cp.graph);
    for (int i = 0; i < n_nodes; i++) {
        char l[64];
        snprintf(l, sizeof(l), "graph_copy node%d_copied", i);
        du_print_tensor(l, wsp_ggml_graph_node(cp.graph, i));
    }
    wsp_ggml_backend_graph_copy_free(cp);
    free_net(&n);
    du_counters("graph_copy counters");
}

int main(void) {
    wsp_ggml_backend_t cpu = wsp_ggml_backend_cpu_init();
    wsp_ggml_backend_t tb  = test_backend_init();

    DU_B("guid null_backend", wsp_ggml_backend_guid(NULL) == NULL);
    DU_S("name null_backend", wsp_ggml_backend_name(NULL));
    wsp_ggml_backend_free(NULL);
    DU_B("guid cpu_vs_test_match", wsp_ggml_guid_matches(wsp_ggml_backend_guid(cpu), wsp_ggml_backend_guid(tb)));

    basics("cpu", cpu, wsp_ggml_backend_cpu_buffer_type(), wsp_ggml_backend_reg_dev_get(wsp_ggml_backend_cpu_reg(), 0));
    basics("test", tb, test_backend_buffer_type(), test_backend_dev());

    compute("cpu", cpu, true);
    compute("test", tb, false);
    failing_computes(tb);
    capabilities(cpu, tb);
    events(cpu, tb);
    graph_copy(cpu, tb);

    wsp_ggml_backend_free(tb);
    wsp_ggml_backend_free(cpu);
    du_counters("final counters");
    printf("done\n");
    return 0;
}
