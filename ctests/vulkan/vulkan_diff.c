// vulkan_diff: ggml's Vulkan backend, built in and registered before the CPU, through the backend
// layer: whisper.rn's reference layer built with WSP_GGML_USE_VULKAN against this library built
// with the feature vulkan, on the same device (here Mesa's lavapipe: device memory that only the
// driver reads, a real queue, real fences). Printed for comparison, every float as its bits:
//   registry  regs, devices, props, memory, buffer types (fixtures/registry_listing.h); ctest also
//             runs the program with WSP_GGML_DISABLE_VULKAN=1 and with no visible device, where it
//             stops after the listing
//   sched     a graph split between Vulkan and the CPU with copies both ways: a weight in Vulkan
//             memory, an input in CPU memory, nodes the user assigns to the CPU, evaluated three
//             times with pipeline parallelism (input copies, events)
//   access    tensors in a Vulkan buffer: set/get, memset, async set/get and (tensor_2d) their
//             strided forms on the backend, copies Vulkan->CPU, CPU->Vulkan, Vulkan->Vulkan and an
//             async copy between the backends, buffer clear
//   events    recorded on Vulkan after an async write, waited for on Vulkan, synchronized
//   compare   graph_copy onto the CPU and compare_graph_backend(Vulkan, CPU): both sides' bits of
//             every node
#include "registry_listing.h"
#include "sched_util.h"

#include "ggml-vulkan.h"

static void note_is_vk(wsp_ggml_backend_t backend) {
    printf(" is_vk=%d", wsp_ggml_backend_is_vk(backend) ? 1 : 0);
}

// a 16x16 weight of buft, in a buffer of its own marked for weights
static wsp_ggml_backend_buffer_t weight_in(struct wsp_ggml_context ** ctx, struct wsp_ggml_tensor ** w,
                                           wsp_ggml_backend_buffer_type_t buft) {
    *ctx = du_ctx(1);
    *w = su_named(wsp_ggml_new_tensor_2d(*ctx, WSP_GGML_TYPE_F32, 16, 16), "w");
    wsp_ggml_backend_buffer_t buffer = wsp_ggml_backend_alloc_ctx_tensors_from_buft(*ctx, buft);
    wsp_ggml_backend_buffer_set_usage(buffer, WSP_GGML_BACKEND_BUFFER_USAGE_WEIGHTS);
    du_fill(*w, -0.5f, 0.00390625f);
    return buffer;
}

// y = w x on Vulkan (by its weight), c = sqr(y) + x on the CPU (assigned by the user), o = w c
// back on Vulkan, s = o scaled; built anew for every evaluation, as whisper builds its graphs (the
// scheduler rewrites the sources of the graph it splits)
static void sched_split(wsp_ggml_backend_t vk, wsp_ggml_backend_t cpu) {
    struct wsp_ggml_context * ctx_w;
    struct wsp_ggml_tensor * w;
    wsp_ggml_backend_buffer_t buf_w = weight_in(&ctx_w, &w, wsp_ggml_backend_get_default_buffer_type(vk));
    printf("sched weight buffer=%s\n", wsp_ggml_backend_buffer_name(buf_w));

    wsp_ggml_backend_t backends[2] = { vk, cpu };
    wsp_ggml_backend_sched_t sched = wsp_ggml_backend_sched_new(backends, NULL, 2, 256, true, true);
    for (int round = 0; round < 3; round++) {
        struct wsp_ggml_context * ctx = su_ctx(8);
        struct wsp_ggml_tensor * x = su_input(wsp_ggml_new_tensor_2d(ctx, WSP_GGML_TYPE_F32, 16, 8), "x");
        struct wsp_ggml_tensor * y = su_named(wsp_ggml_mul_mat(ctx, w, x), "y");
        struct wsp_ggml_tensor * c2 = su_named(wsp_ggml_sqr(ctx, y), "c_sqr");
        struct wsp_ggml_tensor * c = su_output(wsp_ggml_add(ctx, c2, x), "c");
        struct wsp_ggml_tensor * o = su_named(wsp_ggml_mul_mat(ctx, w, c), "o");
        struct wsp_ggml_tensor * s = su_output(wsp_ggml_scale(ctx, o, 0.25f), "s");
        struct wsp_ggml_cgraph * gf = su_graph(ctx);
        wsp_ggml_build_forward_expand(gf, c);
        wsp_ggml_build_forward_expand(gf, s);

        char tag[32];
        snprintf(tag, sizeof(tag), "sched round %d", round);
        wsp_ggml_backend_sched_reset(sched);
        wsp_ggml_backend_sched_set_tensor_backend(sched, c2, cpu);
        wsp_ggml_backend_sched_set_tensor_backend(sched, c, cpu);
        DU_B(tag, wsp_ggml_backend_sched_alloc_graph(sched, gf));
        du_fill(x, 0.125f * (float) round - 0.5f, 0.0078125f);
        DU_I(tag, wsp_ggml_backend_sched_graph_compute_async(sched, gf));
        wsp_ggml_backend_sched_synchronize(sched);
        su_print_all(tag, sched, gf);
        du_print_tensor("c", c);
        du_print_tensor("s", s);
        wsp_ggml_free(ctx);
    }
    wsp_ggml_backend_sched_free(sched);
    wsp_ggml_backend_buffer_free(buf_w);
    wsp_ggml_free(ctx_w);
}

static void tensor_access(wsp_ggml_backend_t vk, wsp_ggml_backend_t cpu) {
    struct wsp_ggml_context * ctx = du_ctx(2);
    struct wsp_ggml_tensor * a = su_named(wsp_ggml_new_tensor_2d(ctx, WSP_GGML_TYPE_F32, 8, 4), "a");
    struct wsp_ggml_tensor * b = su_named(wsp_ggml_new_tensor_2d(ctx, WSP_GGML_TYPE_F32, 8, 4), "b");
    wsp_ggml_backend_buffer_t buf = wsp_ggml_backend_alloc_ctx_tensors(ctx, vk);
    printf("access buffer=%s size=%zu is_host=%d usage=%d\n", wsp_ggml_backend_buffer_name(buf),
           wsp_ggml_backend_buffer_get_size(buf), wsp_ggml_backend_buffer_is_host(buf) ? 1 : 0,
           (int) wsp_ggml_backend_buffer_get_usage(buf));
    struct wsp_ggml_context * ctx_h = du_ctx(1);
    struct wsp_ggml_tensor * h = su_named(wsp_ggml_new_tensor_2d(ctx_h, WSP_GGML_TYPE_F32, 8, 4), "h");
    wsp_ggml_backend_buffer_t buf_h = wsp_ggml_backend_alloc_ctx_tensors(ctx_h, cpu);

    du_fill(a, 1.0f, 0.5f);
    wsp_ggml_backend_tensor_memset(a, 0x3f, 16, 8);
    du_print_tensor("access a", a);
    float part[5];
    wsp_ggml_backend_tensor_get(a, part, 12, sizeof(part));
    du_print_f32("access a[3..8]", part, 5);

    float data[32];
    for (int i = 0; i < 32; i++) {
        data[i] = (float) (i * i) - 100.0f;
    }
    wsp_ggml_backend_tensor_set_async(vk, b, data, 0, sizeof(data));
    float back[32] = { 0 };
    wsp_ggml_backend_tensor_get_async(vk, b, back, 4, 64);
    wsp_ggml_backend_synchronize(vk);
    du_print_f32("access async b[1..17]", back, 16);
#ifdef WSP_GGML_BACKEND_TENSOR_2D
    // the first 3 floats of every row from rows of 5 floats, and back into rows of 6
    wsp_ggml_backend_tensor_set_2d_async(vk, b, data, 8, 12, 4, b->nb[1], 20);
    float rows[24] = { 0 };
    wsp_ggml_backend_tensor_get_2d_async(vk, b, rows, 4, 12, 4, b->nb[1], 24);
    wsp_ggml_backend_synchronize(vk);
    du_print_f32("access async 2d rows", rows, 24);
    wsp_ggml_backend_tensor_set_2d(a, data + 7, 0, 8, 3, b->nb[1] * 1, 16);
    wsp_ggml_backend_tensor_get_2d(a, rows, 0, 16, 2, a->nb[1] * 2, 32);
    du_print_f32("access 2d rows", rows, 16);
#endif
    du_print_tensor("access b", b);

    wsp_ggml_backend_tensor_copy(a, h);  // Vulkan -> CPU
    du_print_tensor("access copy a->h", h);
    du_fill(h, -3.0f, 0.25f);
    wsp_ggml_backend_tensor_copy(h, b);  // CPU -> Vulkan
    du_print_tensor("access copy h->b", b);
    wsp_ggml_backend_tensor_copy(b, a);  // Vulkan -> Vulkan
    du_print_tensor("access copy b->a", a);
    du_fill(a, 7.0f, -0.125f);
    wsp_ggml_backend_tensor_copy_async(vk, cpu, a, h);
    wsp_ggml_backend_synchronize(cpu);
    du_print_tensor("access copy_async a->h", h);

    wsp_ggml_backend_buffer_clear(buf, 0x40);
    du_print_tensor("access clear a", a);
    du_print_tensor("access clear b", b);

    wsp_ggml_backend_buffer_free(buf_h);
    wsp_ggml_free(ctx_h);
    wsp_ggml_backend_buffer_free(buf);
    wsp_ggml_free(ctx);
}

static void events(wsp_ggml_backend_t vk) {
    wsp_ggml_backend_event_t event = wsp_ggml_backend_event_new(wsp_ggml_backend_get_device(vk));
    DU_B("events new", event != NULL);
    if (event == NULL) {
        return;
    }
    struct wsp_ggml_context * ctx = du_ctx(1);
    struct wsp_ggml_tensor * t = su_named(wsp_ggml_new_tensor_1d(ctx, WSP_GGML_TYPE_F32, 64), "t");
    wsp_ggml_backend_buffer_t buf = wsp_ggml_backend_alloc_ctx_tensors(ctx, vk);
    float data[64];
    for (int i = 0; i < 64; i++) {
        data[i] = 0.5f * (float) i;
    }
    for (int round = 0; round < 2; round++) {
        data[0] = (float) round;
        wsp_ggml_backend_tensor_set_async(vk, t, data, 0, sizeof(data));
        wsp_ggml_backend_event_record(event, vk);
        wsp_ggml_backend_event_wait(vk, event);  // the CPU backend cannot wait for an event
        wsp_ggml_backend_event_synchronize(event);
        du_print_tensor("events t", t);
    }
    wsp_ggml_backend_buffer_free(buf);
    wsp_ggml_free(ctx);
    wsp_ggml_backend_event_free(event);
}

static bool compare_node(int index, struct wsp_ggml_tensor * t1, struct wsp_ggml_tensor * t2, void * user_data) {
    (void) user_data;
    printf("compare node %d %s %s\n", index, t1->name, wsp_ggml_op_name(t1->op));
    du_print_tensor("  vulkan", t1);
    du_print_tensor("  cpu   ", t2);
    return true;
}

static void compare(wsp_ggml_backend_t vk, wsp_ggml_backend_t cpu) {
    struct wsp_ggml_context * ctx = su_ctx(8);
    struct wsp_ggml_tensor * w = su_named(wsp_ggml_new_tensor_2d(ctx, WSP_GGML_TYPE_F32, 8, 8), "cw");
    struct wsp_ggml_tensor * x = su_input(wsp_ggml_new_tensor_2d(ctx, WSP_GGML_TYPE_F32, 8, 3), "cx");
    struct wsp_ggml_tensor * y = su_named(wsp_ggml_mul_mat(ctx, w, x), "cy");
    struct wsp_ggml_tensor * z = su_named(wsp_ggml_soft_max(ctx, y), "cz");
    struct wsp_ggml_tensor * o = su_output(wsp_ggml_add(ctx, wsp_ggml_gelu(ctx, z), y), "co");
    struct wsp_ggml_cgraph * gf = su_graph(ctx);
    wsp_ggml_build_forward_expand(gf, o);
    wsp_ggml_backend_buffer_t buf = wsp_ggml_backend_alloc_ctx_tensors(ctx, vk);
    du_fill(w, 0.25f, -0.015625f);
    du_fill(x, -1.0f, 0.09375f);

    struct wsp_ggml_backend_graph_copy copy = wsp_ggml_backend_graph_copy(cpu, gf);
    DU_B("graph_copy ok", copy.buffer != NULL && copy.graph != NULL);
    DU_S("graph_copy buffer", wsp_ggml_backend_buffer_name(copy.buffer));
    DU_I("graph_copy nodes", wsp_ggml_graph_n_nodes(copy.graph));
    du_print_tensor("graph_copy cx", wsp_ggml_graph_node(copy.graph, 0)->src[1]);
    wsp_ggml_backend_graph_copy_free(copy);

#ifdef WSP_GGML_BACKEND_COMPARE_TEST_NODES
    DU_B("compare", wsp_ggml_backend_compare_graph_backend(vk, cpu, gf, compare_node, NULL, NULL, 0));
#else
    DU_B("compare", wsp_ggml_backend_compare_graph_backend(vk, cpu, gf, compare_node, NULL, NULL));
#endif
    du_print_tensor("compare co", o);
    wsp_ggml_backend_buffer_free(buf);
    wsp_ggml_free(ctx);
}

int main(void) {
    rl_print_registry(note_is_vk);
    wsp_ggml_backend_dev_t gpu = wsp_ggml_backend_dev_by_type(WSP_GGML_BACKEND_DEVICE_TYPE_GPU);
    if (gpu == NULL) {
        printf("no GPU device\n");
        return 0;
    }
    wsp_ggml_backend_t vk = wsp_ggml_backend_dev_init(gpu, NULL);
    wsp_ggml_backend_t cpu = su_cpu();
    sched_split(vk, cpu);
    tensor_access(vk, cpu);
    events(vk);
    compare(vk, cpu);
    wsp_ggml_backend_free(cpu);
    wsp_ggml_backend_free(vk);
    printf("done\n");
    return 0;
}
