// A host-memory stand-in for the Objective-C half of a package's Metal backend (whisper.rn 0.5.5 and
// 0.7.x, llama.rn 0.12.x), so that its C++ half (ggml-metal.cpp, -device.cpp, -ops.cpp, -common.cpp
// and, in whisper.rn 0.7, -tuning.cpp) builds and runs unchanged on Linux. See
// ctests/fixtures/metal_standin.h for what it promises.
//
// On Apple, ggml-metal-device.m and ggml-metal-context.m implement the functions that
// ggml-metal-device.h and ggml-metal-context.h declare, over MTLDevice, MTLBuffer and command buffers.
// Here:
//   - a device is a struct of properties (a unified-memory GPU: shared buffers, no residency sets);
//   - a buffer is page-aligned host memory, shared or "private" alike (get_base gives a real address,
//     which the private CPU backend below dereferences);
//   - a context (one per backend) owns a private CPU backend of the package and hands it every graph:
//     the results are the CPU's, bit for bit; graph_optimize runs Metal's own node reordering
//     (wsp_ggml_graph_optimize, ggml-metal-common.cpp) unless <PREFIX>GGML_METAL_GRAPH_OPTIMIZE_DISABLE is set;
//   - everything is synchronous, so events only count;
//   - supports_op is the CPU device's answer, except for the ops of standin_cpu_only_ops, so that
//     whisper's graphs split between Metal and the CPU (llama's have neither: they split where
//     llama.cpp keeps the input layer on the CPU).
// Pipelines, function constants, encoders and command buffers belong to kernel encoding
// (ggml-metal-ops.cpp), which graph_compute never reaches here: those functions abort with a message.
//
// The versions of that Objective-C API differ in what cmake/package_metal.cmake finds in
// ggml-metal-device.h, one macro each:
//   METAL_STANDIN_DEVICES         several devices (device_init(int device, ...)), events, copies
//                                 between devices, a name per device "MTL<i>" (whisper.rn 0.7,
//                                 llama.rn); without it one device (whisper.rn 0.5.5)
//   METAL_STANDIN_DEVICE_COUNT    device_init is told the device count; properties of the physical and
//                                 virtual device and the GPU family; device_id_token (whisper.rn 0.7)
//   METAL_STANDIN_RSETS_OF_DEVICE rsets_init takes the device (whisper.rn 0.7, llama.rn 0.12.9)
//   METAL_STANDIN_DEVICE_ID       the properties name the device model (whisper.rn 0.7, llama.rn 0.12.5 on)
// Environment variables and log lines carry the package's prefix (ggml_names.h).
#include "metal_standin.h"
#include "ggml_names.h"

#include "ggml-metal-device.h"
#include "ggml-metal-context.h"
#include "ggml-metal-common.h"

// (ggml-impl.h for the log macros; its static helpers are not all used here)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#include "ggml-impl.h"
#pragma GCC diagnostic pop
#include "ggml-backend-impl.h"
#include "ggml-cpu.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define STANDIN_GPU_NAME      "Metal stand-in (host memory)"
#define STANDIN_GPU_FAMILY    7      // answers supports_family(1..7), as an A14-class GPU
#define STANDIN_TG_MEMORY     32768  // threadgroup memory, bytes
#define STANDIN_OFFLOAD_BATCH 32     // op_offload_min_batch_size unless <PREFIX>GGML_OP_OFFLOAD_MIN_BATCH says otherwise
// a buffer of at most 4 GiB and 8 GiB of "GPU" memory where size_t holds that; on 32-bit targets, what it can
#if SIZE_MAX > 0xFFFFFFFFu
#define STANDIN_MAX_BUFFER ((size_t) 1 << 32)
#define STANDIN_MEMORY     ((size_t) 8 << 30)
#else
#define STANDIN_MAX_BUFFER ((size_t) 1 << 30)
#define STANDIN_MEMORY     ((size_t) 2 << 30)
#endif

// Ops the device refuses although the CPU computes them: each stays on the CPU, which splits every
// graph that has one (layer norms in both of whisper's graphs, the encoder's convolution input).
static const enum wsp_ggml_op standin_cpu_only_ops[] = { WSP_GGML_OP_NORM, WSP_GGML_OP_IM2COL };

struct wsp_ggml_metal_device {
    struct wsp_ggml_metal_device_props props;
    wsp_ggml_metal_library_t library;
    atomic_size_t allocated;  // bytes of the buffers this device owns
};

// A token: there is nothing to compile.
struct wsp_ggml_metal_library {
    wsp_ggml_metal_device_t dev;
};

struct wsp_ggml_metal_rsets {
    int unused;
};

struct wsp_ggml_metal_buffer {
    wsp_ggml_metal_device_t dev;
    void * data;
    size_t size;  // as allocated (page multiple), or as mapped
    bool shared;
    bool owned;   // false: wsp_ggml_metal_buffer_map of the caller's memory
};

#ifdef METAL_STANDIN_DEVICES
struct wsp_ggml_metal_event {
    atomic_long recorded;  // how often a context signalled it; waiting never blocks (all is synchronous)
};
#endif

struct wsp_ggml_metal {
    wsp_ggml_metal_device_t dev;
    wsp_ggml_backend_t cpu;  // computes every graph
    bool optimize;           // graph_optimize reorders nodes
    int n_cb;
#ifdef METAL_STANDIN_DEVICES
    char name[128];
    wsp_ggml_metal_event_t ev_cpy;
#endif
};

static struct metal_standin_counters g_counters;

void metal_standin_counters(struct metal_standin_counters * out) { *out = g_counters; }

// For what only Apple's Metal can do.
#define STANDIN_UNREACHABLE() \
    WSP_GGML_ABORT("metal stand-in: %s needs Apple's Metal (kernels are never encoded on this host: graphs run on the CPU backend)", __func__)

static wsp_ggml_backend_dev_t standin_cpu_device(void) {
    wsp_ggml_backend_reg_t reg = wsp_ggml_backend_cpu_reg();
    return reg->iface.get_device(reg, 0);
}

//
// function constants, pipelines, encoders: kernel encoding only
//

wsp_ggml_metal_cv_t wsp_ggml_metal_cv_init(void) { STANDIN_UNREACHABLE(); }
void wsp_ggml_metal_cv_free(wsp_ggml_metal_cv_t cv) { (void) cv; STANDIN_UNREACHABLE(); }
void wsp_ggml_metal_cv_set_int16(wsp_ggml_metal_cv_t cv, int16_t value, int32_t idx) { (void) cv; (void) value; (void) idx; STANDIN_UNREACHABLE(); }
void wsp_ggml_metal_cv_set_int32(wsp_ggml_metal_cv_t cv, int32_t value, int32_t idx) { (void) cv; (void) value; (void) idx; STANDIN_UNREACHABLE(); }
void wsp_ggml_metal_cv_set_bool(wsp_ggml_metal_cv_t cv, bool value, int32_t idx) { (void) cv; (void) value; (void) idx; STANDIN_UNREACHABLE(); }

wsp_ggml_metal_pipeline_t wsp_ggml_metal_pipeline_init(void) { STANDIN_UNREACHABLE(); }
void wsp_ggml_metal_pipeline_free(wsp_ggml_metal_pipeline_t pipeline) { (void) pipeline; STANDIN_UNREACHABLE(); }

int wsp_ggml_metal_pipeline_max_theads_per_threadgroup(struct wsp_ggml_metal_pipeline_with_params pipeline) {
    (void) pipeline;
    STANDIN_UNREACHABLE();
}

wsp_ggml_metal_encoder_t wsp_ggml_metal_encoder_init(wsp_ggml_metal_cmd_buf_t cmd_buf_raw, bool concurrent) {
    (void) cmd_buf_raw;
    (void) concurrent;
    STANDIN_UNREACHABLE();
}

void wsp_ggml_metal_encoder_free(wsp_ggml_metal_encoder_t encoder) { (void) encoder; STANDIN_UNREACHABLE(); }
void wsp_ggml_metal_encoder_debug_group_push(wsp_ggml_metal_encoder_t encoder, const char * name) { (void) encoder; (void) name; STANDIN_UNREACHABLE(); }
void wsp_ggml_metal_encoder_debug_group_pop(wsp_ggml_metal_encoder_t encoder) { (void) encoder; STANDIN_UNREACHABLE(); }

void wsp_ggml_metal_encoder_set_pipeline(wsp_ggml_metal_encoder_t encoder, struct wsp_ggml_metal_pipeline_with_params pipeline) {
    (void) encoder;
    (void) pipeline;
    STANDIN_UNREACHABLE();
}

void wsp_ggml_metal_encoder_set_bytes(wsp_ggml_metal_encoder_t encoder, void * data, size_t size, int idx) {
    (void) encoder; (void) data; (void) size; (void) idx;
    STANDIN_UNREACHABLE();
}

void wsp_ggml_metal_encoder_set_buffer(wsp_ggml_metal_encoder_t encoder, struct wsp_ggml_metal_buffer_id buffer, int idx) {
    (void) encoder; (void) buffer; (void) idx;
    STANDIN_UNREACHABLE();
}

void wsp_ggml_metal_encoder_set_threadgroup_memory_size(wsp_ggml_metal_encoder_t encoder, size_t size, int idx) {
    (void) encoder; (void) size; (void) idx;
    STANDIN_UNREACHABLE();
}

void wsp_ggml_metal_encoder_dispatch_threadgroups(wsp_ggml_metal_encoder_t encoder, int tg0, int tg1, int tg2, int tptg0, int tptg1, int tptg2) {
    (void) encoder; (void) tg0; (void) tg1; (void) tg2; (void) tptg0; (void) tptg1; (void) tptg2;
    STANDIN_UNREACHABLE();
}

void wsp_ggml_metal_encoder_memory_barrier(wsp_ggml_metal_encoder_t encoder) { (void) encoder; STANDIN_UNREACHABLE(); }
void wsp_ggml_metal_encoder_end_encoding(wsp_ggml_metal_encoder_t encoder) { (void) encoder; STANDIN_UNREACHABLE(); }

//
// library: a token per device
//

wsp_ggml_metal_library_t wsp_ggml_metal_library_init(wsp_ggml_metal_device_t dev) {
    wsp_ggml_metal_library_t lib = (wsp_ggml_metal_library_t) calloc(1, sizeof(*lib));
    if (lib != NULL) {
        lib->dev = dev;
    }
    return lib;
}

wsp_ggml_metal_library_t wsp_ggml_metal_library_init_from_source(wsp_ggml_metal_device_t dev, const char * source, bool verbose) {
    (void) dev; (void) source; (void) verbose;
    STANDIN_UNREACHABLE();
}

void wsp_ggml_metal_library_free(wsp_ggml_metal_library_t lib) { free(lib); }

struct wsp_ggml_metal_pipeline_with_params wsp_ggml_metal_library_get_pipeline(wsp_ggml_metal_library_t lib, const char * name) {
    (void) lib;
    (void) name;
    STANDIN_UNREACHABLE();
}

struct wsp_ggml_metal_pipeline_with_params wsp_ggml_metal_library_compile_pipeline(wsp_ggml_metal_library_t lib, const char * base,
                                                                                   const char * name, wsp_ggml_metal_cv_t cv) {
    (void) lib; (void) base; (void) name; (void) cv;
    STANDIN_UNREACHABLE();
}

#ifdef METAL_STANDIN_DEVICES
wsp_ggml_metal_device_t wsp_ggml_metal_library_get_device(wsp_ggml_metal_library_t lib) { return lib->dev; }
#endif

//
// residency sets: not used (props.use_residency_sets is false)
//

#ifdef METAL_STANDIN_RSETS_OF_DEVICE
wsp_ggml_metal_rsets_t wsp_ggml_metal_rsets_init(wsp_ggml_metal_device_t dev) {
    (void) dev;
#else
wsp_ggml_metal_rsets_t wsp_ggml_metal_rsets_init(void) {
#endif
    return (wsp_ggml_metal_rsets_t) calloc(1, sizeof(struct wsp_ggml_metal_rsets));
}

void wsp_ggml_metal_rsets_free(wsp_ggml_metal_rsets_t rsets) { free(rsets); }

void wsp_ggml_metal_device_rsets_add(wsp_ggml_metal_device_t dev, wsp_ggml_metal_rset_t rset) { (void) dev; (void) rset; }
void wsp_ggml_metal_device_rsets_rm(wsp_ggml_metal_device_t dev, wsp_ggml_metal_rset_t rset) { (void) dev; (void) rset; }
void wsp_ggml_metal_device_rsets_keep_alive(wsp_ggml_metal_device_t dev) { (void) dev; }

//
// device
//

static bool standin_env(const char * name) { return getenv(name) != NULL; }

#if defined(METAL_STANDIN_DEVICE_COUNT)
wsp_ggml_metal_device_t wsp_ggml_metal_device_init(int device, int n_devices) {
#elif defined(METAL_STANDIN_DEVICES)
wsp_ggml_metal_device_t wsp_ggml_metal_device_init(int device) {
#else
wsp_ggml_metal_device_t wsp_ggml_metal_device_init(void) {
#endif
    wsp_ggml_metal_device_t dev = (wsp_ggml_metal_device_t) calloc(1, sizeof(*dev));
    WSP_GGML_ASSERT(dev != NULL);
    struct wsp_ggml_metal_device_props * p = &dev->props;
#ifdef METAL_STANDIN_DEVICES
    // one physical device; <PREFIX>GGML_METAL_DEVICES asks for virtual ones on top of it
    p->device = device;
    snprintf(p->name, sizeof(p->name), "MTL%d", device);
#ifdef METAL_STANDIN_DEVICE_COUNT
    p->device_phys = 0;
    p->device_virt = device;
    p->gpu_family  = STANDIN_GPU_FAMILY;
    if (n_devices > 1) {
        snprintf(p->desc, sizeof(p->desc), "%s, virtual device %d of %d", STANDIN_GPU_NAME, device, n_devices);
    } else {
        snprintf(p->desc, sizeof(p->desc), "%s", STANDIN_GPU_NAME);
    }
#else
    snprintf(p->desc, sizeof(p->desc), "%s", STANDIN_GPU_NAME);
#endif
#else
    snprintf(p->name, sizeof(p->name), "%s", STANDIN_GPU_NAME);
#endif
#ifdef METAL_STANDIN_DEVICE_ID
    p->device_id = WSP_GGML_METAL_DEVICE_GENERIC;
#endif
    p->max_buffer_size            = STANDIN_MAX_BUFFER;
    p->max_working_set_size       = STANDIN_MEMORY;
    p->max_theadgroup_memory_size = STANDIN_TG_MEMORY;
    p->has_simdgroup_reduction    = true;
    p->has_simdgroup_mm           = true;
    p->has_unified_memory         = true;
    p->has_bfloat                 = false;
    p->has_tensor                 = false;
    p->use_residency_sets         = false;
    // the same switches as on Apple; a "private" buffer is host memory all the same
    p->use_shared_buffers = !standin_env(GGML_ENV("GGML_METAL_SHARED_BUFFERS_DISABLE")) ||
                            standin_env(GGML_ENV("GGML_METAL_SHARED_BUFFERS_ENABLE"));
    p->supports_gpu_family_apple7 = true;
    const char * min_batch = getenv(GGML_ENV("GGML_OP_OFFLOAD_MIN_BATCH"));
    p->op_offload_min_batch_size = min_batch ? atoi(min_batch) : STANDIN_OFFLOAD_BATCH;

    dev->library = wsp_ggml_metal_library_init(dev);
#ifdef METAL_STANDIN_DEVICES
    WSP_GGML_LOG_INFO("%s: %s (%s): graphs computed by the package's CPU backend\n", __func__, p->name, p->desc);
#else
    WSP_GGML_LOG_INFO("%s: %s: graphs computed by the package's CPU backend\n", __func__, p->name);
#endif
    return dev;
}

void wsp_ggml_metal_device_free(wsp_ggml_metal_device_t dev) {
    if (dev == NULL) {
        return;
    }
    wsp_ggml_metal_library_free(dev->library);
    free(dev);
}

void * wsp_ggml_metal_device_get_obj(wsp_ggml_metal_device_t dev) { (void) dev; STANDIN_UNREACHABLE(); }
void * wsp_ggml_metal_device_get_queue(wsp_ggml_metal_device_t dev) { (void) dev; STANDIN_UNREACHABLE(); }

wsp_ggml_metal_library_t wsp_ggml_metal_device_get_library(wsp_ggml_metal_device_t dev) { return dev->library; }

void wsp_ggml_metal_device_get_memory(wsp_ggml_metal_device_t dev, size_t * free_mem, size_t * total) {
    const size_t used = atomic_load(&dev->allocated);
    *total    = dev->props.max_working_set_size;
    *free_mem = used < *total ? *total - used : 0;
}

bool wsp_ggml_metal_device_supports_op(wsp_ggml_metal_device_t dev, const struct wsp_ggml_tensor * op) {
    (void) dev;
    g_counters.supports_op++;
    for (size_t i = 0; i < sizeof(standin_cpu_only_ops) / sizeof(standin_cpu_only_ops[0]); i++) {
        if (op->op == standin_cpu_only_ops[i]) {
            return false;
        }
    }
    wsp_ggml_backend_dev_t cpu = standin_cpu_device();
    return cpu->iface.supports_op(cpu, op);
}

const struct wsp_ggml_metal_device_props * wsp_ggml_metal_device_get_props(wsp_ggml_metal_device_t dev) { return &dev->props; }

#ifdef METAL_STANDIN_DEVICE_COUNT
const char * wsp_ggml_metal_device_id_token(enum wsp_ggml_metal_device_id id) {
    return id == WSP_GGML_METAL_DEVICE_GENERIC ? "GENERIC" : "UNKNOWN";
}
#endif

#ifdef METAL_STANDIN_DEVICES
//
// events: every operation is finished when its call returns
//

wsp_ggml_metal_event_t wsp_ggml_metal_device_event_init(wsp_ggml_metal_device_t dev) {
    (void) dev;
    wsp_ggml_metal_event_t ev = (wsp_ggml_metal_event_t) calloc(1, sizeof(*ev));
    WSP_GGML_ASSERT(ev != NULL);
    return ev;
}

void wsp_ggml_metal_device_event_free(wsp_ggml_metal_device_t dev, wsp_ggml_metal_event_t ev) {
    (void) dev;
    free(ev);
}

void wsp_ggml_metal_device_event_synchronize(wsp_ggml_metal_device_t dev, wsp_ggml_metal_event_t ev) {
    (void) dev;
    (void) ev;
}

void wsp_ggml_metal_event_encode_signal(wsp_ggml_metal_event_t ev, wsp_ggml_metal_cmd_buf_t cmd_buf) {
    (void) ev;
    (void) cmd_buf;
    STANDIN_UNREACHABLE();
}

void wsp_ggml_metal_event_encode_wait(wsp_ggml_metal_event_t ev, wsp_ggml_metal_cmd_buf_t cmd_buf) {
    (void) ev;
    (void) cmd_buf;
    STANDIN_UNREACHABLE();
}
#endif

//
// buffers: host memory
//

static wsp_ggml_metal_buffer_t standin_buffer_new(wsp_ggml_metal_device_t dev, void * data, size_t size, bool shared, bool owned) {
    wsp_ggml_metal_buffer_t buf = (wsp_ggml_metal_buffer_t) calloc(1, sizeof(*buf));
    if (buf == NULL) {
        return NULL;
    }
    buf->dev    = dev;
    buf->data   = data;
    buf->size   = size;
    buf->shared = shared;
    buf->owned  = owned;
    return buf;
}

wsp_ggml_metal_buffer_t wsp_ggml_metal_buffer_init(wsp_ggml_metal_device_t dev, size_t size, bool shared) {
    const size_t page = (size_t) sysconf(_SC_PAGESIZE);
    const size_t rounded = size % page ? size + page - size % page : size;
    if (rounded > dev->props.max_buffer_size) {
        WSP_GGML_LOG_ERROR("%s: %zu bytes exceed the largest buffer of %zu bytes\n", __func__, size, dev->props.max_buffer_size);
        return NULL;
    }
    void * data = NULL;
    if (posix_memalign(&data, page, rounded ? rounded : page) != 0) {
        WSP_GGML_LOG_ERROR("%s: cannot allocate %zu bytes\n", __func__, rounded);
        return NULL;
    }
    wsp_ggml_metal_buffer_t buf = standin_buffer_new(dev, data, rounded, shared && dev->props.use_shared_buffers, true);
    if (buf == NULL) {
        free(data);
        return NULL;
    }
    atomic_fetch_add(&dev->allocated, rounded);
    g_counters.buffers_alloc++;
    return buf;
}

wsp_ggml_metal_buffer_t wsp_ggml_metal_buffer_map(wsp_ggml_metal_device_t dev, void * ptr, size_t size, size_t max_tensor_size) {
    (void) max_tensor_size;  // one view covers it all: host memory has no largest buffer to work around
    return standin_buffer_new(dev, ptr, size, true, false);
}

void wsp_ggml_metal_buffer_free(wsp_ggml_metal_buffer_t buf) {
    if (buf == NULL) {
        return;
    }
    if (buf->owned) {
        atomic_fetch_sub(&buf->dev->allocated, buf->size);
        free(buf->data);
        g_counters.buffers_free++;
    }
    free(buf);
}

void * wsp_ggml_metal_buffer_get_base(wsp_ggml_metal_buffer_t buf) { return buf->data; }
bool   wsp_ggml_metal_buffer_is_shared(wsp_ggml_metal_buffer_t buf) { return buf->shared; }

// Tensor data access, for buffers and (synchronous) backends alike: tensor->data is host memory.
static void standin_write(struct wsp_ggml_tensor * tensor, const void * data, size_t offset, size_t size) {
    memcpy((uint8_t *) tensor->data + offset, data, size);
}

static void standin_read(const struct wsp_ggml_tensor * tensor, void * data, size_t offset, size_t size) {
    memcpy(data, (const uint8_t *) tensor->data + offset, size);
}

void wsp_ggml_metal_buffer_memset_tensor(wsp_ggml_metal_buffer_t buf, struct wsp_ggml_tensor * tensor, uint8_t value, size_t offset, size_t size) {
    (void) buf;
    memset((uint8_t *) tensor->data + offset, value, size);
}

void wsp_ggml_metal_buffer_set_tensor(wsp_ggml_metal_buffer_t buf, struct wsp_ggml_tensor * tensor, const void * data, size_t offset, size_t size) { (void) buf; standin_write(tensor, data, offset, size); }

void wsp_ggml_metal_buffer_get_tensor(wsp_ggml_metal_buffer_t buf, const struct wsp_ggml_tensor * tensor, void * data, size_t offset, size_t size) { (void) buf; standin_read(tensor, data, offset, size); }

#ifdef METAL_STANDIN_DEVICES
// src is in another Metal buffer (ggml-metal.cpp checks): both are host memory
bool wsp_ggml_metal_buffer_cpy_tensor(wsp_ggml_metal_buffer_t buf, const struct wsp_ggml_tensor * src, struct wsp_ggml_tensor * dst) {
    (void) buf;
    memcpy(dst->data, src->data, wsp_ggml_nbytes(src));
    return true;
}
#endif

void wsp_ggml_metal_buffer_clear(wsp_ggml_metal_buffer_t buf, uint8_t value) { memset(buf->data, value, buf->size); }

// The buffer itself stands for the MTLBuffer, with the tensor's offset in it.
struct wsp_ggml_metal_buffer_id wsp_ggml_metal_buffer_get_id(wsp_ggml_metal_buffer_t buf, const struct wsp_ggml_tensor * t) {
    struct wsp_ggml_metal_buffer_id id = { NULL, 0 };
    const uintptr_t base = (uintptr_t) buf->data, at = (uintptr_t) t->data;
    if (at >= base && at + wsp_ggml_nbytes(t) <= base + buf->size) {
        id.metal = buf;
        id.offs  = at - base;
    } else {
        WSP_GGML_LOG_ERROR("%s: tensor '%s' is not in this buffer\n", __func__, t->name);
    }
    return id;
}

//
// backend context: graphs go to a private CPU backend
//

wsp_ggml_metal_t wsp_ggml_metal_init(wsp_ggml_metal_device_t dev) {
    wsp_ggml_metal_t ctx = (wsp_ggml_metal_t) calloc(1, sizeof(*ctx));
    if (ctx == NULL) {
        return NULL;
    }
    ctx->cpu = wsp_ggml_backend_cpu_init();
    if (ctx->cpu == NULL) {
        free(ctx);
        return NULL;
    }
    // one thread: the graphs are small next to the cost of more threads on a shared test machine
    wsp_ggml_backend_cpu_set_n_threads(ctx->cpu, 1);
    ctx->dev      = dev;
    ctx->optimize = getenv(GGML_ENV("GGML_METAL_GRAPH_OPTIMIZE_DISABLE")) == NULL;
#ifdef METAL_STANDIN_DEVICES
    snprintf(ctx->name, sizeof(ctx->name), "%s", dev->props.name);
    ctx->ev_cpy = wsp_ggml_metal_device_event_init(dev);
#endif
    g_counters.contexts_init++;
    return ctx;
}

void wsp_ggml_metal_free(wsp_ggml_metal_t ctx) {
    if (ctx == NULL) {
        return;
    }
#ifdef METAL_STANDIN_DEVICES
    wsp_ggml_metal_device_event_free(ctx->dev, ctx->ev_cpy);
#endif
    wsp_ggml_backend_free(ctx->cpu);
    free(ctx);
    g_counters.contexts_free++;
}

void wsp_ggml_metal_synchronize(wsp_ggml_metal_t ctx) { (void) ctx; }

void wsp_ggml_metal_set_tensor_async(wsp_ggml_metal_t ctx, struct wsp_ggml_tensor * tensor, const void * data, size_t offset, size_t size) { (void) ctx; standin_write(tensor, data, offset, size); }

void wsp_ggml_metal_get_tensor_async(wsp_ggml_metal_t ctx, const struct wsp_ggml_tensor * tensor, void * data, size_t offset, size_t size) { (void) ctx; standin_read(tensor, data, offset, size); }

enum wsp_ggml_status wsp_ggml_metal_graph_compute(wsp_ggml_metal_t ctx, struct wsp_ggml_cgraph * gf) {
    g_counters.graph_computes++;
    g_counters.nodes_computed += wsp_ggml_graph_n_nodes(gf);
    return ctx->cpu->iface.graph_compute(ctx->cpu, gf);
}

void wsp_ggml_metal_graph_optimize(wsp_ggml_metal_t ctx, struct wsp_ggml_cgraph * gf) {
    if (ctx->optimize) {
        wsp_ggml_graph_optimize(gf);
        g_counters.graph_optimizes++;
    }
}

void wsp_ggml_metal_set_n_cb(wsp_ggml_metal_t ctx, int n_cb) { ctx->n_cb = n_cb; }

void wsp_ggml_metal_set_abort_callback(wsp_ggml_metal_t ctx, wsp_ggml_abort_callback abort_callback, void * user_data) {
    wsp_ggml_backend_cpu_set_abort_callback(ctx->cpu, abort_callback, user_data);
}

bool wsp_ggml_metal_supports_family(wsp_ggml_metal_t ctx, int family) {
    (void) ctx;
    return family >= 1 && family <= STANDIN_GPU_FAMILY;
}

void wsp_ggml_metal_capture_next_compute(wsp_ggml_metal_t ctx) { (void) ctx; }  // no GPU trace to capture

#ifdef METAL_STANDIN_DEVICES
const char * wsp_ggml_metal_get_name(wsp_ggml_metal_t ctx) { return ctx->name; }

// between two Metal backends' buffers: host memory on both sides
bool wsp_ggml_metal_cpy_tensor_async(wsp_ggml_metal_t ctx_src, wsp_ggml_metal_t ctx_dst, const struct wsp_ggml_tensor * src, struct wsp_ggml_tensor * dst) {
    (void) ctx_src;
    (void) ctx_dst;
    memcpy(dst->data, src->data, wsp_ggml_nbytes(src));
    return true;
}

void wsp_ggml_metal_event_record(wsp_ggml_metal_t ctx, wsp_ggml_metal_event_t ev) {
    (void) ctx;
    atomic_fetch_add(&ev->recorded, 1);
    g_counters.events_recorded++;
}

void wsp_ggml_metal_event_wait(wsp_ggml_metal_t ctx, wsp_ggml_metal_event_t ev) {
    (void) ctx;
    (void) ev;
}

wsp_ggml_metal_event_t wsp_ggml_metal_get_ev_cpy(wsp_ggml_metal_t ctx) { return ctx->ev_cpy; }
#endif
