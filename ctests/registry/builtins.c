// builtins: the backends compiled into the program, registered at start-up. Every backend the
// release's registry knows is built in: whisper.rn's real CPU backend and, for the others, a
// stand-in reg of ours per backend (its reg function, one device named after it). The program
// prints the registry as the first call finds it: the order of the regs (the release's, CPU
// last), their devices, and which device init_best picks. ctest runs it twice, the second time
// with WSP_GGML_DISABLE_VULKAN set (0.7 leaves Vulkan out then; older releases ignore it).
// With WSP_REAL_RPC, the program links ggml's real RPC backend instead of RPC's stand-in.
#include <stdio.h>

#include "ggml-backend.h"
#include "ggml-backend-impl.h"
#include "ggml_names.h"

// X(reg function stem, reg and device name)
#define STAND_INS(X) \
    X(cuda, "CUDA") X(metal, "Metal") X(sycl, "SYCL") X(vk, "Vulkan") X(webgpu, "WebGPU") X(zdnn, "zDNN") \
    X(virtgpu, "VirtGPU") X(opencl, "OpenCL") X(zendnn, "ZenDNN") X(hexagon, "Hexagon") X(cann, "CANN") \
    X(blas, "BLAS") X(kompute, "Kompute") X(openvino, "OpenVINO") X(et, "ET")

static const char * device_name(wsp_ggml_backend_dev_t dev) { return (const char *) dev->context; }
static const char * device_description(wsp_ggml_backend_dev_t dev) { (void) dev; return "built-in stand-in"; }
static enum wsp_ggml_backend_dev_type device_type(wsp_ggml_backend_dev_t dev) { (void) dev; return WSP_GGML_BACKEND_DEVICE_TYPE_GPU; }
static wsp_ggml_backend_t device_init(wsp_ggml_backend_dev_t dev, const char * params) { (void) dev; (void) params; return NULL; }

static const char * reg_name(wsp_ggml_backend_reg_t reg) { return (const char *) reg->context; }
static size_t reg_device_count(wsp_ggml_backend_reg_t reg) { (void) reg; return 1; }

#define DEFINE_STAND_IN(stem, name) \
    static struct wsp_ggml_backend_device stem##_device; \
    static wsp_ggml_backend_dev_t stem##_get_device(wsp_ggml_backend_reg_t reg, size_t index) { \
        (void) reg; return index == 0 ? &stem##_device : NULL; \
    } \
    static struct wsp_ggml_backend_reg stem##_reg = { \
        .api_version = WSP_GGML_BACKEND_API_VERSION, \
        .iface = { .get_name = reg_name, .get_device_count = reg_device_count, .get_device = stem##_get_device }, \
        .context = (void *) name, \
    }; \
    static struct wsp_ggml_backend_device stem##_device = { \
        .iface = { .get_name = device_name, .get_description = device_description, .get_type = device_type, \
                   .init_backend = device_init }, \
        .reg = &stem##_reg, \
        .context = (void *) name, \
    }; \
    wsp_ggml_backend_reg_t GGML_IDENT(ggml_backend_##stem##_reg)(void); \
    wsp_ggml_backend_reg_t GGML_IDENT(ggml_backend_##stem##_reg)(void) { return &stem##_reg; }
STAND_INS(DEFINE_STAND_IN)
#ifndef WSP_REAL_RPC
DEFINE_STAND_IN(rpc, "RPC")
#endif

int main(void) {
    for (size_t i = 0; i < wsp_ggml_backend_reg_count(); i++) {
        wsp_ggml_backend_reg_t reg = wsp_ggml_backend_reg_get(i);
        printf("reg %zu %s devices=%zu\n", i, wsp_ggml_backend_reg_name(reg), wsp_ggml_backend_reg_dev_count(reg));
    }
    for (size_t i = 0; i < wsp_ggml_backend_dev_count(); i++) {
        wsp_ggml_backend_dev_t dev = wsp_ggml_backend_dev_get(i);
        printf("device %zu %s type=%d reg=%s\n", i, wsp_ggml_backend_dev_name(dev), (int) wsp_ggml_backend_dev_type(dev),
               wsp_ggml_backend_reg_name(wsp_ggml_backend_dev_backend_reg(dev)));
    }
    // the stand-ins make no backend: init_best comes back empty-handed from the first GPU
    wsp_ggml_backend_t best = wsp_ggml_backend_init_best();
    printf("init_best %s\n", best ? wsp_ggml_backend_name(best) : "(null)");
    wsp_ggml_backend_free(best);
    return 0;
}
