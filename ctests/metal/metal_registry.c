// metal_registry: the registry of a program built as whisper.rn builds for iOS (WSP_GGML_USE_METAL,
// so Metal is registered before the CPU), printed for comparison between the reference backend
// layer and this library (fixtures/registry_listing.h; each backend's line says whether it is
// Metal); then a small graph through a scheduler over [GPU, CPU]: where each tensor is placed (a
// weight in a Metal buffer, a NORM that Metal refuses, a batch of 32 rows offloaded from a CPU
// weight), the splits and copies, and the results' bits.
// With two GPU devices (0.7: WSP_GGML_METAL_DEVICES=2), also a chain of products across both and the
// CPU, with pipeline parallelism (events, copies between the devices). Last, what the GPU saw:
// backends and buffers made and freed, graphs computed (and reordered, events recorded: Metal).
//
// The GPU is whisper.rn's Metal C++ over the stand-in (ctests/fixtures/metal_standin.h), or, built with
// METAL_TEST_ACCEL, the ACCEL fixture in its place (0.4.3, whose Metal is Objective-C only). The
// release table's WSP_GGML_BACKEND_MMAP_SUPPORT adds caps.mmap_support.
#include "registry_listing.h"

#include "ggml-cpu.h"
#include "ggml-metal.h"
#ifdef METAL_TEST_ACCEL
#include "accel_fixture.h"
#else
#include "metal_standin.h"
#endif

#ifndef METAL_TEST_ACCEL
static void note_is_metal(wsp_ggml_backend_t backend) {
    printf(" is_metal=%d", wsp_ggml_backend_is_metal(backend) ? 1 : 0);
}
#define BACKEND_NOTE note_is_metal
#else
#define BACKEND_NOTE NULL
#endif

static void print_placement(wsp_ggml_backend_sched_t sched, struct wsp_ggml_tensor * t) {
    wsp_ggml_backend_t backend = wsp_ggml_backend_sched_get_tensor_backend(sched, t);
    printf("place %s %s %s\n", t->name, wsp_ggml_op_name(t->op), backend ? wsp_ggml_backend_name(backend) : "(none)");
}

// one tensor in a buffer of its own, of buft
static wsp_ggml_backend_buffer_t weight_in(struct wsp_ggml_context ** ctx, struct wsp_ggml_tensor ** w, const char * name,
                                           wsp_ggml_backend_buffer_type_t buft, float start) {
    *ctx = du_ctx(1);
    *w = wsp_ggml_new_tensor_2d(*ctx, WSP_GGML_TYPE_F32, 16, 16);
    wsp_ggml_set_name(*w, name);
    wsp_ggml_backend_buffer_t buffer = wsp_ggml_backend_alloc_ctx_tensors_from_buft(*ctx, buft);
    wsp_ggml_backend_buffer_set_usage(buffer, WSP_GGML_BACKEND_BUFFER_USAGE_WEIGHTS);
    du_fill(*w, start, 0.0625f);
    return buffer;
}

static void run_graph(void) {
    wsp_ggml_backend_dev_t gpu_dev = wsp_ggml_backend_dev_by_type(WSP_GGML_BACKEND_DEVICE_TYPE_GPU);
    if (gpu_dev == NULL) {
        printf("graph: no GPU device\n");
        return;
    }
    wsp_ggml_backend_t backends[2] = {
        wsp_ggml_backend_dev_init(gpu_dev, NULL),
        wsp_ggml_backend_init_by_type(WSP_GGML_BACKEND_DEVICE_TYPE_CPU, NULL),
    };
    wsp_ggml_backend_cpu_set_n_threads(backends[1], 1);

    struct wsp_ggml_context *ctx_wg, *ctx_wc;
    struct wsp_ggml_tensor *w_gpu, *w_cpu;
    wsp_ggml_backend_buffer_t buf_wg = weight_in(&ctx_wg, &w_gpu, "w_gpu", wsp_ggml_backend_dev_buffer_type(gpu_dev), -0.5f);
    wsp_ggml_backend_buffer_t buf_wc = weight_in(&ctx_wc, &w_cpu, "w_cpu", wsp_ggml_backend_cpu_buffer_type(), -0.25f);
    printf("weights w_gpu=%s w_cpu=%s\n", wsp_ggml_backend_buffer_name(buf_wg), wsp_ggml_backend_buffer_name(buf_wc));

    struct wsp_ggml_context * ctx = du_ctx(16);
    struct wsp_ggml_tensor * x = wsp_ggml_new_tensor_2d(ctx, WSP_GGML_TYPE_F32, 16, 4);
    struct wsp_ggml_tensor * xb = wsp_ggml_new_tensor_2d(ctx, WSP_GGML_TYPE_F32, 16, 32);
    wsp_ggml_set_name(x, "x");
    wsp_ggml_set_name(xb, "xb");
    wsp_ggml_set_input(x);
    wsp_ggml_set_input(xb);
    struct wsp_ggml_tensor * y = wsp_ggml_mul_mat(ctx, w_gpu, x);                 // by its weight: the GPU
    struct wsp_ggml_tensor * n = wsp_ggml_norm(ctx, y, 1e-5f);                     // refused by the GPU
    struct wsp_ggml_tensor * s = wsp_ggml_soft_max(ctx, n);
    struct wsp_ggml_tensor * o1 = wsp_ggml_add(ctx, s, y);
    struct wsp_ggml_tensor * yb = wsp_ggml_mul_mat(ctx, w_cpu, xb);               // 32 rows: offloaded
    struct wsp_ggml_tensor * o2 = wsp_ggml_scale(ctx, wsp_ggml_gelu(ctx, yb), 0.5f);
    wsp_ggml_set_name(y, "y");
    wsp_ggml_set_name(n, "n");
    wsp_ggml_set_name(s, "s");
    wsp_ggml_set_name(o1, "o1");
    wsp_ggml_set_name(yb, "yb");
    wsp_ggml_set_name(o2, "o2");
    wsp_ggml_set_output(o1);
    wsp_ggml_set_output(o2);
    struct wsp_ggml_cgraph * graph = wsp_ggml_new_graph(ctx);
    wsp_ggml_build_forward_expand(graph, o1);
    wsp_ggml_build_forward_expand(graph, o2);

    wsp_ggml_backend_sched_t sched = wsp_ggml_backend_sched_new(backends, NULL, 2, 256, false, true);
    DU_B("sched_alloc_graph", wsp_ggml_backend_sched_alloc_graph(sched, graph));
    du_fill(x, 0.25f, -0.03125f);
    du_fill(xb, -1.0f, 0.0078125f);
    DU_I("sched_graph_compute", wsp_ggml_backend_sched_graph_compute(sched, graph));
    DU_I("n_splits", wsp_ggml_backend_sched_get_n_splits(sched));
    DU_I("n_copies", wsp_ggml_backend_sched_get_n_copies(sched));
    struct wsp_ggml_tensor * placed[] = { w_gpu, w_cpu, x, xb };
    for (size_t i = 0; i < sizeof(placed) / sizeof(placed[0]); i++) {
        print_placement(sched, placed[i]);
    }
    for (int i = 0; i < wsp_ggml_graph_n_nodes(graph); i++) {
        print_placement(sched, wsp_ggml_graph_node(graph, i));
    }
    du_print_tensor("o1", o1);
    du_print_tensor("o2", o2);

    wsp_ggml_backend_sched_free(sched);
    wsp_ggml_free(ctx);
    wsp_ggml_backend_buffer_free(buf_wg);
    wsp_ggml_backend_buffer_free(buf_wc);
    wsp_ggml_free(ctx_wg);
    wsp_ggml_free(ctx_wc);
    wsp_ggml_backend_free(backends[0]);
    wsp_ggml_backend_free(backends[1]);
}

// w0 on the first GPU, w1 on the second: y0 = w0 x, y1 = w1 y0 (copied across), n = norm(y1) on the
// CPU, o = w0 n back on the first; evaluated twice with pipeline parallelism.
static void run_two_gpus(void) {
    wsp_ggml_backend_dev_t gpus[2];
    int n_gpus = 0;
    for (size_t i = 0; i < wsp_ggml_backend_dev_count() && n_gpus < 2; i++) {
        wsp_ggml_backend_dev_t dev = wsp_ggml_backend_dev_get(i);
        if (wsp_ggml_backend_dev_type(dev) == WSP_GGML_BACKEND_DEVICE_TYPE_GPU) {
            gpus[n_gpus++] = dev;
        }
    }
    if (n_gpus < 2) {
        return;
    }
    wsp_ggml_backend_t backends[3] = {
        wsp_ggml_backend_dev_init(gpus[0], NULL),
        wsp_ggml_backend_dev_init(gpus[1], NULL),
        wsp_ggml_backend_init_by_type(WSP_GGML_BACKEND_DEVICE_TYPE_CPU, NULL),
    };
    wsp_ggml_backend_cpu_set_n_threads(backends[2], 1);
    struct wsp_ggml_context *ctx_w0, *ctx_w1;
    struct wsp_ggml_tensor *w0, *w1;
    wsp_ggml_backend_buffer_t buf_w0 = weight_in(&ctx_w0, &w0, "w0", wsp_ggml_backend_dev_buffer_type(gpus[0]), 0.125f);
    wsp_ggml_backend_buffer_t buf_w1 = weight_in(&ctx_w1, &w1, "w1", wsp_ggml_backend_dev_buffer_type(gpus[1]), -0.375f);
    printf("two_gpus weights w0=%s w1=%s\n", wsp_ggml_backend_buffer_name(buf_w0), wsp_ggml_backend_buffer_name(buf_w1));

    struct wsp_ggml_context * ctx = du_ctx(8);
    struct wsp_ggml_tensor * x = wsp_ggml_new_tensor_2d(ctx, WSP_GGML_TYPE_F32, 16, 8);
    wsp_ggml_set_name(x, "x2");
    wsp_ggml_set_input(x);
    struct wsp_ggml_tensor * y0 = wsp_ggml_mul_mat(ctx, w0, x);
    struct wsp_ggml_tensor * y1 = wsp_ggml_mul_mat(ctx, w1, y0);
    struct wsp_ggml_tensor * n = wsp_ggml_norm(ctx, y1, 1e-5f);
    struct wsp_ggml_tensor * o = wsp_ggml_mul_mat(ctx, w0, n);
    wsp_ggml_set_name(y0, "y0");
    wsp_ggml_set_name(y1, "y1");
    wsp_ggml_set_name(n, "n2");
    wsp_ggml_set_name(o, "o3");
    wsp_ggml_set_output(o);
    struct wsp_ggml_cgraph * graph = wsp_ggml_new_graph(ctx);
    wsp_ggml_build_forward_expand(graph, o);

    wsp_ggml_backend_sched_t sched = wsp_ggml_backend_sched_new(backends, NULL, 3, 64, true, true);
    for (int round = 0; round < 2; round++) {
        wsp_ggml_backend_sched_reset(sched);
        printf("two_gpus round %d\n", round);
        DU_B("two_gpus sched_alloc_graph", wsp_ggml_backend_sched_alloc_graph(sched, graph));
        du_fill(x, 0.5f - (float) round, -0.0625f);
        DU_I("two_gpus sched_graph_compute", wsp_ggml_backend_sched_graph_compute(sched, graph));
        wsp_ggml_backend_sched_synchronize(sched);
        DU_I("two_gpus n_splits", wsp_ggml_backend_sched_get_n_splits(sched));
        DU_I("two_gpus n_copies", wsp_ggml_backend_sched_get_n_copies(sched));
        for (int i = 0; i < wsp_ggml_graph_n_nodes(graph); i++) {
            print_placement(sched, wsp_ggml_graph_node(graph, i));
        }
        du_print_tensor("o3", o);
    }

    wsp_ggml_backend_sched_free(sched);
    wsp_ggml_free(ctx);
    wsp_ggml_backend_buffer_free(buf_w0);
    wsp_ggml_backend_buffer_free(buf_w1);
    wsp_ggml_free(ctx_w0);
    wsp_ggml_free(ctx_w1);
    for (int i = 0; i < 3; i++) {
        wsp_ggml_backend_free(backends[i]);
    }
}

// (how often supports_op was asked is the layer's business, not printed)
static void print_gpu_counters(void) {
#ifdef METAL_TEST_ACCEL
    struct accel_fixture_counters c;
    accel_fixture_counters(&c);
    printf("accel backends=%ld/%ld buffers=%ld/%ld computes=%ld nodes=%ld\n", c.backends_init, c.backends_free,
           c.buffers_alloc, c.buffers_free, c.graph_computes, c.nodes_computed);
#else
    struct metal_standin_counters c;
    metal_standin_counters(&c);
    printf("metal contexts=%ld/%ld buffers=%ld/%ld computes=%ld nodes=%ld optimized=%ld events_recorded=%ld\n",
           c.contexts_init, c.contexts_free, c.buffers_alloc, c.buffers_free, c.graph_computes, c.nodes_computed,
           c.graph_optimizes, c.events_recorded);
#endif
}

int main(void) {
    rl_print_registry(BACKEND_NOTE);
    run_graph();
    run_two_gpus();
    print_gpu_counters();
    printf("done\n");
    return 0;
}
