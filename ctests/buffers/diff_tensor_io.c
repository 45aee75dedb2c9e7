// diff_tensor_io: tensor data access on CPU and TEST (non-host) tensors: tensor_set/get/memset with
// offsets, through views and with size 0; tensor_set_async/get_async on the CPU backend (no async
// interface), on TEST with its async interface and on TEST without it; tensor_copy between host, TEST and
// a non-host custom buffer without cpy_tensor (slow path), incl. src == dst; tensor_copy_async between
// every pair of CPU/TEST backends, with the TEST call counters (synchronize, cpy_async, buffer_cpy).
#include "diff_util.h"
#include "ggml-cpu.h"

// one F32 [6] tensor and a 3-element view at element 2, allocated in a buffer of the given type
struct pair {
    struct wsp_ggml_context * ctx;
    wsp_ggml_backend_buffer_t buf;
    struct wsp_ggml_tensor  * t, * v;
};

static struct pair make_pair(wsp_ggml_backend_buffer_type_t buft) {
    struct pair p;
    p.ctx = du_ctx(4);
    p.t   = wsp_ggml_new_tensor_1d(p.ctx, WSP_GGML_TYPE_F32, 6);
    p.v   = wsp_ggml_view_1d(p.ctx, p.t, 3, 2 * sizeof(float));
    p.buf = wsp_ggml_backend_alloc_ctx_tensors_from_buft(p.ctx, buft);
    return p;
}

static void free_pair(struct pair * p) {
    wsp_ggml_backend_buffer_free(p->buf);
    wsp_ggml_free(p->ctx);
}

static void sync_io(const char * tag, wsp_ggml_backend_buffer_type_t buft) {
    char l[128];
    struct pair p = make_pair(buft);
    snprintf(l, sizeof(l), "%s alloc_ok", tag); DU_B(l, p.buf != NULL && p.t->buffer == p.buf && p.v->buffer == p.buf);

    du_fill(p.t, 1.0f, 1.0f);
    snprintf(l, sizeof(l), "%s set_all", tag); du_print_tensor(l, p.t);

    const float part[2] = { -1.0f, -2.0f };
    wsp_ggml_backend_tensor_set(p.t, part, 3 * sizeof(float), sizeof(part));
    snprintf(l, sizeof(l), "%s set_offset", tag); du_print_tensor(l, p.t);

    float got[3] = { 0 };
    wsp_ggml_backend_tensor_get(p.t, got, 1 * sizeof(float), 3 * sizeof(float));
    snprintf(l, sizeof(l), "%s get_offset", tag); du_print_f32(l, got, 3);

    wsp_ggml_backend_tensor_memset(p.t, 0x40, 4 * sizeof(float) + 2, 6);
    snprintf(l, sizeof(l), "%s memset_offset", tag); du_print_tensor(l, p.t);

    // through the view: offsets are relative to the view's data
    const float vv[2] = { 100.0f, 200.0f };
    wsp_ggml_backend_tensor_set(p.v, vv, sizeof(float), sizeof(vv));
    snprintf(l, sizeof(l), "%s view_set", tag); du_print_tensor(l, p.t);
    snprintf(l, sizeof(l), "%s view_get", tag); du_print_tensor(l, p.v);
    wsp_ggml_backend_tensor_memset(p.v, 0, 0, wsp_ggml_nbytes(p.v));
    snprintf(l, sizeof(l), "%s view_memset", tag); du_print_tensor(l, p.t);

    // size 0 is a no-op everywhere, also for the last byte position
    wsp_ggml_backend_tensor_set(p.t, part, wsp_ggml_nbytes(p.t), 0);
    wsp_ggml_backend_tensor_get(p.t, got, wsp_ggml_nbytes(p.t), 0);
    wsp_ggml_backend_tensor_memset(p.t, 0xff, 0, 0);
    snprintf(l, sizeof(l), "%s after_size0", tag); du_print_tensor(l, p.t);
    free_pair(&p);
}

static void async_io(const char * tag, wsp_ggml_backend_t backend) {
    char l[128];
    test_backend_reset_counters();
    struct pair p = make_pair(wsp_ggml_backend_get_default_buffer_type(backend));
    const float vals[6] = { 0.5f, 1.5f, 2.5f, 3.5f, 4.5f, 5.5f };
    wsp_ggml_backend_tensor_set_async(backend, p.t, vals, 0, sizeof(vals));
    wsp_ggml_backend_tensor_set_async(backend, p.v, vals, sizeof(float), sizeof(float));
    wsp_ggml_backend_synchronize(backend);
    snprintf(l, sizeof(l), "%s set_async", tag); du_print_tensor(l, p.t);

    float got[4] = { 0 };
    wsp_ggml_backend_tensor_get_async(backend, p.t, got, 2 * sizeof(float), 4 * sizeof(float));
    wsp_ggml_backend_synchronize(backend);
    snprintf(l, sizeof(l), "%s get_async", tag); du_print_f32(l, got, 4);
    wsp_ggml_backend_tensor_get_async(backend, p.v, got, 0, 3 * sizeof(float));
    wsp_ggml_backend_synchronize(backend);
    snprintf(l, sizeof(l), "%s get_async_view", tag); du_print_f32(l, got, 3);
    snprintf(l, sizeof(l), "%s counters", tag); du_counters(l);
    free_pair(&p);
}

// wsp_ggml_backend_tensor_copy between buffer kinds (layouts equal: F32 [6])
static void copies(void) {
    struct du_custom slow;
    wsp_ggml_backend_buffer_type_t kinds[3] = {
        wsp_ggml_backend_cpu_buffer_type(), test_backend_buffer_type(), du_custom_init(&slow, "SLOW", false, false, 0) };
    const char * names[3] = { "cpu", "test", "slow" };
    struct pair src[3], dst[3];
    for (int k = 0; k < 3; k++) {
        src[k] = make_pair(kinds[k]);
        dst[k] = make_pair(kinds[k]);
        du_fill(src[k].t, (float) (k + 1), -0.125f);
    }
    test_backend_reset_counters();
    for (int s = 0; s < 3; s++) {
        for (int d = 0; d < 3; d++) {
            char l[128];
            wsp_ggml_backend_tensor_memset(dst[d].t, 0, 0, wsp_ggml_nbytes(dst[d].t));
            wsp_ggml_backend_tensor_copy(src[s].t, dst[d].t);
            snprintf(l, sizeof(l), "tensor_copy %s->%s", names[s], names[d]); du_print_tensor(l, dst[d].t);
            snprintf(l, sizeof(l), "tensor_copy %s->%s counters", names[s], names[d]); du_counters(l);
        }
    }
    // views with equal layouts, and copying a tensor onto itself
    wsp_ggml_backend_tensor_copy(src[0].v, dst[1].v);
    du_print_tensor("tensor_copy cpu_view->test_view", dst[1].t);
    wsp_ggml_backend_tensor_copy(src[1].v, dst[0].v);
    du_print_tensor("tensor_copy test_view->cpu_view", dst[0].t);
    wsp_ggml_backend_tensor_copy(src[1].t, src[1].t);
    du_print_tensor("tensor_copy test_self", src[1].t);
    du_counters("tensor_copy views counters");
    for (int k = 0; k < 3; k++) {
        free_pair(&src[k]);
        free_pair(&dst[k]);
    }
}

static void copies_async(wsp_ggml_backend_t cpu, wsp_ggml_backend_t t1, wsp_ggml_backend_t t2) {
    wsp_ggml_backend_t backends[3] = { cpu, t1, t2 };
    const char * names[3] = { "cpu", "test1", "test2" };
    struct pair p[3];
    for (int k = 0; k < 3; k++) {
        p[k] = make_pair(wsp_ggml_backend_get_default_buffer_type(backends[k]));
    }
    for (int s = 0; s < 3; s++) {
        for (int d = 0; d < 3; d++) {
            if (s == d) {
                continue;
            }
            char l[128];
            du_fill(p[s].t, (float) (10 * s + d), 0.5f);
            wsp_ggml_backend_tensor_memset(p[d].t, 0, 0, wsp_ggml_nbytes(p[d].t));
            test_backend_reset_counters();
            wsp_ggml_backend_tensor_copy_async(backends[s], backends[d], p[s].t, p[d].t);
            wsp_ggml_backend_synchronize(backends[d]);
            snprintf(l, sizeof(l), "copy_async %s->%s", names[s], names[d]); du_print_tensor(l, p[d].t);
            snprintf(l, sizeof(l), "copy_async %s->%s counters", names[s], names[d]); du_counters(l);
        }
    }
    test_backend_reset_counters();
    wsp_ggml_backend_tensor_copy_async(t1, t1, p[1].t, p[1].t);
    du_counters("copy_async self counters");
    wsp_ggml_backend_tensor_copy_async(t1, t2, p[1].v, p[2].v);
    du_print_tensor("copy_async test1_view->test2_view", p[2].t);
    du_counters("copy_async views counters");
    for (int k = 0; k < 3; k++) {
        free_pair(&p[k]);
    }
}

int main(void) {
    wsp_ggml_backend_t cpu = wsp_ggml_backend_cpu_init();
    wsp_ggml_backend_t t1  = test_backend_init();
    wsp_ggml_backend_t t2  = test_backend_init();
    test_backend_set_async_iface(false);
    wsp_ggml_backend_t tn  = test_backend_init();   // TEST without set/get/cpy_tensor_async
    test_backend_reset_config();

    sync_io("cpu", wsp_ggml_backend_cpu_buffer_type());
    sync_io("test", test_backend_buffer_type());

    async_io("async_cpu", cpu);
    async_io("async_test", t1);
    async_io("async_test_noiface", tn);

    copies();
    copies_async(cpu, t1, t2);

    test_backend_reset_counters();
    copies_async(cpu, tn, t2);

    wsp_ggml_backend_free(tn);
    wsp_ggml_backend_free(t2);
    wsp_ggml_backend_free(t1);
    wsp_ggml_backend_free(cpu);
    du_counters("final counters");
    printf("done\n");
    return 0;
}
