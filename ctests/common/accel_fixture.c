// "ACCEL" host-memory accelerator fixture: see accel_fixture.h for the contract.
//
// Its compute and its supports_op go straight to the private CPU backend's interface (not
// through the backend layer's wrappers), so that the fixture runs the same code whichever
// backend layer the program is linked with, and benchmarks of the layer count only the layer.
#include "accel_fixture.h"

#include "ggml-backend-impl.h"
#include "ggml-cpu.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ACCEL_ALIGNMENT 64
// 4 GiB per buffer and 8 GiB in all where size_t holds that; on 32-bit targets, what it can hold.
#if SIZE_MAX > 0xFFFFFFFFu
#define ACCEL_MAX_SIZE  ((size_t) 1 << 32)
#define ACCEL_MEMORY    ((size_t) 8 << 30)
#else
#define ACCEL_MAX_SIZE  ((size_t) 1 << 30)
#define ACCEL_MEMORY    ((size_t) 2 << 30)
#endif
// A batch of at least this many rows is worth offloading from weights in CPU memory.
#define ACCEL_OFFLOAD_MIN_ROWS 32

static const enum wsp_ggml_op accel_default_ops[] = {
    WSP_GGML_OP_MUL_MAT, WSP_GGML_OP_ADD, WSP_GGML_OP_MUL, WSP_GGML_OP_SCALE,
    WSP_GGML_OP_SOFT_MAX, WSP_GGML_OP_CPY, WSP_GGML_OP_GET_ROWS,
};

static bool g_ops[WSP_GGML_OP_COUNT];
static bool g_ops_ready;
static struct accel_fixture_counters g_cnt;

static void accel_set_default_ops(void) {
    memset(g_ops, 0, sizeof(g_ops));
    for (size_t i = 0; i < sizeof(accel_default_ops) / sizeof(accel_default_ops[0]); i++) {
        g_ops[accel_default_ops[i]] = true;
    }
    g_ops_ready = true;
}

static void accel_ops_init(void) {
    if (!g_ops_ready) {
        accel_set_default_ops();
    }
}

static bool accel_is_view_or_none(enum wsp_ggml_op op) {
    return op == WSP_GGML_OP_NONE || op == WSP_GGML_OP_RESHAPE || op == WSP_GGML_OP_VIEW ||
           op == WSP_GGML_OP_PERMUTE || op == WSP_GGML_OP_TRANSPOSE;
}

// The op whose wsp_ggml_op_name is [name, name + len), or WSP_GGML_OP_COUNT.
static enum wsp_ggml_op accel_op_by_name(const char * name, size_t len) {
    for (int op = 0; op < WSP_GGML_OP_COUNT; op++) {
        const char * known = wsp_ggml_op_name((enum wsp_ggml_op) op);
        if (strlen(known) == len && strncmp(known, name, len) == 0) {
            return (enum wsp_ggml_op) op;
        }
    }
    return WSP_GGML_OP_COUNT;
}

bool accel_fixture_set_ops(const char * spec, char * err, size_t err_size) {
    bool ops[WSP_GGML_OP_COUNT] = { false };
    if (spec == NULL) {
        snprintf(err, err_size, "no op list");
        return false;
    }
    if (strcmp(spec, "default") == 0) {
        accel_set_default_ops();
        return true;
    }
    if (strcmp(spec, "few") == 0) {
        ops[WSP_GGML_OP_MUL_MAT] = true;
    } else if (strcmp(spec, "almost-all") == 0) {
        for (int op = 0; op < WSP_GGML_OP_COUNT; op++) {
            ops[op] = op != WSP_GGML_OP_NORM;
        }
    } else {
        int n = 0;
        for (const char * at = spec; *at != '\0';) {
            const char * end = strchr(at, ',');
            const size_t len = end ? (size_t) (end - at) : strlen(at);
            const enum wsp_ggml_op op = accel_op_by_name(at, len);
            if (op == WSP_GGML_OP_COUNT) {
                snprintf(err, err_size, "unknown op \"%.*s\" (expected few, default, almost-all or a comma-separated "
                         "list of ggml op names such as MUL_MAT,ADD)", (int) len, at);
                return false;
            }
            ops[op] = true;
            n++;
            at = end ? end + 1 : at + len;
        }
        if (n == 0) {
            snprintf(err, err_size, "empty op list");
            return false;
        }
    }
    memcpy(g_ops, ops, sizeof(g_ops));
    g_ops_ready = true;
    return true;
}

void accel_fixture_counters(struct accel_fixture_counters * out) { *out = g_cnt; }

//
// buffer: plain host memory
//

static void accel_buffer_free(wsp_ggml_backend_buffer_t buffer) {
    free(buffer->context);
    g_cnt.buffers_free++;
}

static void * accel_buffer_get_base(wsp_ggml_backend_buffer_t buffer) { return buffer->context; }

static void accel_buffer_memset_tensor(wsp_ggml_backend_buffer_t buffer, struct wsp_ggml_tensor * tensor, uint8_t value,
                                       size_t offset, size_t size) {
    (void) buffer;
    memset((uint8_t *) tensor->data + offset, value, size);
}

static void accel_buffer_set_tensor(wsp_ggml_backend_buffer_t buffer, struct wsp_ggml_tensor * tensor, const void * data,
                                    size_t offset, size_t size) {
    (void) buffer;
    memcpy((uint8_t *) tensor->data + offset, data, size);
}

static void accel_buffer_get_tensor(wsp_ggml_backend_buffer_t buffer, const struct wsp_ggml_tensor * tensor, void * data,
                                    size_t offset, size_t size) {
    (void) buffer;
    memcpy(data, (const uint8_t *) tensor->data + offset, size);
}

// from any host buffer (the CPU's or another ACCEL one)
static bool accel_buffer_cpy_tensor(wsp_ggml_backend_buffer_t buffer, const struct wsp_ggml_tensor * src,
                                    struct wsp_ggml_tensor * dst) {
    (void) buffer;
    const struct wsp_ggml_tensor * owner = src->view_src ? src->view_src : src;
    if (owner->buffer == NULL || !wsp_ggml_backend_buffer_is_host(owner->buffer)) {
        return false;
    }
    memcpy(dst->data, src->data, wsp_ggml_nbytes(src));
    return true;
}

static void accel_buffer_clear(wsp_ggml_backend_buffer_t buffer, uint8_t value) {
    memset(buffer->context, value, buffer->size);
}

static const struct wsp_ggml_backend_buffer_i accel_buffer_iface = {
    .free_buffer   = accel_buffer_free,
    .get_base      = accel_buffer_get_base,
    .init_tensor   = NULL,
    .memset_tensor = accel_buffer_memset_tensor,
    .set_tensor    = accel_buffer_set_tensor,
    .get_tensor    = accel_buffer_get_tensor,
    .cpy_tensor    = accel_buffer_cpy_tensor,
    .clear         = accel_buffer_clear,
    .reset         = NULL,
};

//
// buffer type
//

static struct wsp_ggml_backend_reg    accel_reg;
static struct wsp_ggml_backend_device accel_dev;

static const char * accel_buft_get_name(wsp_ggml_backend_buffer_type_t buft) { (void) buft; return "ACCEL"; }
static size_t accel_buft_get_alignment(wsp_ggml_backend_buffer_type_t buft)  { (void) buft; return ACCEL_ALIGNMENT; }
static size_t accel_buft_get_max_size(wsp_ggml_backend_buffer_type_t buft)   { (void) buft; return ACCEL_MAX_SIZE; }
static bool   accel_buft_is_host(wsp_ggml_backend_buffer_type_t buft)        { (void) buft; return true; }

static wsp_ggml_backend_buffer_t accel_buft_alloc_buffer(wsp_ggml_backend_buffer_type_t buft, size_t size) {
    if (size > ACCEL_MAX_SIZE) {
        return NULL;
    }
    // aligned_alloc wants a multiple of the alignment, and a zero-sized buffer still gets a base
    const size_t rounded = (size + ACCEL_ALIGNMENT - 1) / ACCEL_ALIGNMENT * ACCEL_ALIGNMENT;
    void * mem = aligned_alloc(ACCEL_ALIGNMENT, rounded ? rounded : ACCEL_ALIGNMENT);
    if (mem == NULL) {
        return NULL;
    }
    g_cnt.buffers_alloc++;
    return wsp_ggml_backend_buffer_init(buft, accel_buffer_iface, mem, size);
}

static struct wsp_ggml_backend_buffer_type accel_buft = {
    .iface = {
        .get_name       = accel_buft_get_name,
        .alloc_buffer   = accel_buft_alloc_buffer,
        .get_alignment  = accel_buft_get_alignment,
        .get_max_size   = accel_buft_get_max_size,
        .get_alloc_size = NULL,
        .is_host        = accel_buft_is_host,
    },
    .device  = &accel_dev,
    .context = NULL,
};

//
// backend: each split goes to a private CPU backend
//

static wsp_ggml_guid accel_guid = { 0xac, 0xce, 0x1f, 0x1c, 0x70, 0x2e, 0x4b, 0x31, 0x8d, 0x55, 0x06, 0x9a, 0xe2, 0x47, 0xb3, 0x10 };

static const char * accel_backend_get_name(wsp_ggml_backend_t backend) { (void) backend; return "ACCEL"; }

static void accel_backend_free(wsp_ggml_backend_t backend) {
    wsp_ggml_backend_free((wsp_ggml_backend_t) backend->context);
    free(backend);
    g_cnt.backends_free++;
}

static enum wsp_ggml_status accel_backend_graph_compute(wsp_ggml_backend_t backend, struct wsp_ggml_cgraph * cgraph) {
    wsp_ggml_backend_t cpu = (wsp_ggml_backend_t) backend->context;
    g_cnt.graph_computes++;
    g_cnt.nodes_computed += wsp_ggml_graph_n_nodes(cgraph);
    return cpu->iface.graph_compute(cpu, cgraph);
}

static bool accel_backend_is_accel(wsp_ggml_backend_t backend) {
    return backend != NULL && backend->iface.get_name == accel_backend_get_name;
}

// What whisper.cpp finds through the reg's get_proc_address("wsp_ggml_backend_set_n_threads").
static void accel_backend_set_n_threads(wsp_ggml_backend_t backend, int n_threads) {
    if (accel_backend_is_accel(backend)) {
        wsp_ggml_backend_cpu_set_n_threads((wsp_ggml_backend_t) backend->context, n_threads);
    }
}

//
// device
//

static const char * accel_dev_get_name(wsp_ggml_backend_dev_t dev)        { (void) dev; return "ACCEL"; }
static const char * accel_dev_get_description(wsp_ggml_backend_dev_t dev) { (void) dev; return "host-memory accelerator fixture"; }
static enum wsp_ggml_backend_dev_type accel_dev_get_type(wsp_ggml_backend_dev_t dev) { (void) dev; return WSP_GGML_BACKEND_DEVICE_TYPE_GPU; }
static wsp_ggml_backend_buffer_type_t accel_dev_get_buffer_type(wsp_ggml_backend_dev_t dev) { (void) dev; return &accel_buft; }

static void accel_dev_get_memory(wsp_ggml_backend_dev_t dev, size_t * free_mem, size_t * total) {
    (void) dev;
    *free_mem = ACCEL_MEMORY;
    *total    = ACCEL_MEMORY;
}

static void accel_dev_get_props(wsp_ggml_backend_dev_t dev, struct wsp_ggml_backend_dev_props * props) {
    props->name        = accel_dev_get_name(dev);
    props->description = accel_dev_get_description(dev);
    accel_dev_get_memory(dev, &props->memory_free, &props->memory_total);
    props->type        = accel_dev_get_type(dev);
#if WSP_GGML_BACKEND_API_VERSION >= 2
    props->device_id   = NULL;  // not a PCI device
#endif
    props->caps.async                = false;
    props->caps.host_buffer          = false;
    props->caps.buffer_from_host_ptr = false;
    props->caps.events               = false;
}

static wsp_ggml_backend_t accel_dev_init_backend(wsp_ggml_backend_dev_t dev, const char * params) {
    (void) params;
    wsp_ggml_backend_t cpu = wsp_ggml_backend_cpu_init();
    if (cpu == NULL) {
        return NULL;
    }
    wsp_ggml_backend_t backend = (wsp_ggml_backend_t) calloc(1, sizeof(*backend));
    if (backend == NULL) {
        wsp_ggml_backend_free(cpu);
        return NULL;
    }
    backend->guid                = &accel_guid;
    backend->iface.get_name      = accel_backend_get_name;
    backend->iface.free          = accel_backend_free;
    backend->iface.graph_compute = accel_backend_graph_compute;
    backend->device              = dev;
    backend->context             = cpu;
    g_cnt.backends_init++;
    return backend;
}

static bool accel_type_ok(enum wsp_ggml_type type) {
    return type == WSP_GGML_TYPE_F32 || type == WSP_GGML_TYPE_F16 || type == WSP_GGML_TYPE_I32;
}

static bool accel_weight_type_ok(enum wsp_ggml_type type) {
    return accel_type_ok(type) || type == WSP_GGML_TYPE_Q4_0 || type == WSP_GGML_TYPE_Q4_1 || type == WSP_GGML_TYPE_Q5_0 ||
           type == WSP_GGML_TYPE_Q5_1 || type == WSP_GGML_TYPE_Q8_0;
}

// the CPU device, asked directly (see the top of the file)
static wsp_ggml_backend_dev_t accel_cpu_dev(void) {
    static wsp_ggml_backend_dev_t dev;
    if (dev == NULL) {
        wsp_ggml_backend_reg_t reg = wsp_ggml_backend_cpu_reg();
        dev = reg->iface.get_device(reg, 0);
    }
    return dev;
}

static bool accel_dev_supports_op(wsp_ggml_backend_dev_t dev, const struct wsp_ggml_tensor * op) {
    (void) dev;
    accel_ops_init();
    g_cnt.supports_op++;
    if ((int) op->op < 0 || op->op >= WSP_GGML_OP_COUNT) {
        return false;
    }
    if (accel_is_view_or_none(op->op)) {
        return true;
    }
    if (!g_ops[op->op] || !accel_type_ok(op->type)) {
        return false;
    }
    const bool has_weight = op->op == WSP_GGML_OP_MUL_MAT || op->op == WSP_GGML_OP_GET_ROWS;
    for (int i = 0; i < WSP_GGML_MAX_SRC; i++) {
        const struct wsp_ggml_tensor * src = op->src[i];
        if (src != NULL && !(i == 0 && has_weight ? accel_weight_type_ok(src->type) : accel_type_ok(src->type))) {
            return false;
        }
    }
    if (op->op == WSP_GGML_OP_CPY && op->src[0]->nb[0] != wsp_ggml_type_size(op->src[0]->type)) {
        return false;
    }
    wsp_ggml_backend_dev_t cpu = accel_cpu_dev();
    return cpu->iface.supports_op(cpu, op);
}

static bool accel_dev_supports_buft(wsp_ggml_backend_dev_t dev, wsp_ggml_backend_buffer_type_t buft) {
    (void) dev;
    return buft == &accel_buft;
}

static bool accel_dev_offload_op(wsp_ggml_backend_dev_t dev, const struct wsp_ggml_tensor * op) {
    (void) dev;
    g_cnt.offload_op++;
    return (op->op == WSP_GGML_OP_MUL_MAT || op->op == WSP_GGML_OP_GET_ROWS) && op->ne[1] >= ACCEL_OFFLOAD_MIN_ROWS;
}

static struct wsp_ggml_backend_device accel_dev = {
    .iface = {
        .get_name             = accel_dev_get_name,
        .get_description      = accel_dev_get_description,
        .get_memory           = accel_dev_get_memory,
        .get_type             = accel_dev_get_type,
        .get_props            = accel_dev_get_props,
        .init_backend         = accel_dev_init_backend,
        .get_buffer_type      = accel_dev_get_buffer_type,
        .get_host_buffer_type = NULL,
        .buffer_from_host_ptr = NULL,
        .supports_op          = accel_dev_supports_op,
        .supports_buft        = accel_dev_supports_buft,
        .offload_op           = accel_dev_offload_op,
        .event_new            = NULL,
        .event_free           = NULL,
        .event_synchronize    = NULL,
    },
    .reg     = &accel_reg,
    .context = NULL,
};

//
// reg
//

static const char * accel_reg_get_name(wsp_ggml_backend_reg_t reg)         { (void) reg; return "ACCEL"; }
static size_t       accel_reg_get_device_count(wsp_ggml_backend_reg_t reg) { (void) reg; return 1; }

static wsp_ggml_backend_dev_t accel_reg_get_device(wsp_ggml_backend_reg_t reg, size_t index) {
    (void) reg;
    return index == 0 ? &accel_dev : NULL;
}

static void * accel_reg_get_proc_address(wsp_ggml_backend_reg_t reg, const char * name) {
    (void) reg;
    return strcmp(name, "wsp_ggml_backend_set_n_threads") == 0 ? (void *) accel_backend_set_n_threads : NULL;
}

static struct wsp_ggml_backend_reg accel_reg = {
    .api_version = WSP_GGML_BACKEND_API_VERSION,
    .iface = {
        .get_name         = accel_reg_get_name,
        .get_device_count = accel_reg_get_device_count,
        .get_device       = accel_reg_get_device,
        .get_proc_address = accel_reg_get_proc_address,
    },
    .context = NULL,
};

wsp_ggml_backend_reg_t         accel_fixture_reg(void)         { return &accel_reg; }
wsp_ggml_backend_dev_t         accel_fixture_dev(void)         { return &accel_dev; }
wsp_ggml_backend_buffer_type_t accel_fixture_buffer_type(void) { return &accel_buft; }
