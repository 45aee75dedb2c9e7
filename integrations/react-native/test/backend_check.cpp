// Stands in for the package's JNI source (whisper.rn's android/src/main/jni.cpp, llama.rn's
// android/src/main/RNLlamaJSI.cpp; they need the JNI and React Native headers) when the
// integration test builds the package's Android CMakeLists for GNU/Linux: the library it builds
// exports one function that runs a small graph through the backend layer it was linked with
// (the scheduler over the CPU backend, as whisper.cpp and llama.cpp use it). Written with
// whisper.rn's names; llama.rn's build force-includes the prefix map (scripts/release/prefix-map.sh).
#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml.h"

extern "C" __attribute__((visibility("default"))) int backend_check(const float * a_in, const float * b_in,
                                                                            float * out, int n) {
    wsp_ggml_backend_t cpu = wsp_ggml_backend_init_by_type(WSP_GGML_BACKEND_DEVICE_TYPE_CPU, nullptr);
    if (cpu == nullptr) {
        return 1;
    }
    wsp_ggml_init_params params = { 8 * wsp_ggml_tensor_overhead() + wsp_ggml_graph_overhead(), nullptr, true };
    wsp_ggml_context * ctx = wsp_ggml_init(params);
    wsp_ggml_tensor * a = wsp_ggml_new_tensor_1d(ctx, WSP_GGML_TYPE_F32, n);
    wsp_ggml_tensor * b = wsp_ggml_new_tensor_1d(ctx, WSP_GGML_TYPE_F32, n);
    wsp_ggml_set_input(a);
    wsp_ggml_set_input(b);
    wsp_ggml_tensor * result = wsp_ggml_mul(ctx, wsp_ggml_add(ctx, a, b), b);
    wsp_ggml_set_output(result);
    wsp_ggml_cgraph * graph = wsp_ggml_new_graph(ctx);
    wsp_ggml_build_forward_expand(graph, result);

    wsp_ggml_backend_sched_t sched = wsp_ggml_backend_sched_new(&cpu, nullptr, 1, WSP_GGML_DEFAULT_GRAPH_SIZE, false, true);
    int status = 2;
    if (wsp_ggml_backend_sched_alloc_graph(sched, graph)) {
        wsp_ggml_backend_tensor_set(a, a_in, 0, n * sizeof(float));
        wsp_ggml_backend_tensor_set(b, b_in, 0, n * sizeof(float));
        if (wsp_ggml_backend_sched_graph_compute(sched, graph) == WSP_GGML_STATUS_SUCCESS) {
            wsp_ggml_backend_tensor_get(result, out, 0, n * sizeof(float));
            status = 0;
        }
    }
    wsp_ggml_backend_sched_free(sched);
    wsp_ggml_free(ctx);
    wsp_ggml_backend_free(cpu);
    return status;
}
