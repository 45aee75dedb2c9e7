// "TEST" backend fixture for the C test programs: a non-host device whose buffers hide their memory
// behind a fake base address. See test_backend.h for the contract.
#include "test_backend.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

// graph_optimize reorders a split's nodes, which only the internal header exposes
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#include "ggml-impl.h"
#pragma GCC diagnostic pop

// Fake buffer addresses: aligned, and spaced further apart than the largest buffer
// (TEST_BACKEND_MAX_SIZE) so that the ranges of live buffers never overlap. With 64-bit pointers they
// are far away from anything the process maps; a 32-bit address space has room for fewer, closer
// slots (the addresses are never dereferenced, only translated by tb_real).
#if UINTPTR_MAX > 0xFFFFFFFFu
#define TB_FAKE_BASE   ((uintptr_t) 0x100000000000ull)
#define TB_FAKE_STRIDE ((uintptr_t) 1 << 32)
#define TB_FAKE_SLOTS  4096u
#else
#define TB_FAKE_BASE   ((uintptr_t) 0x40000000u)
#define TB_FAKE_STRIDE ((uintptr_t) 1 << 24)
#define TB_FAKE_SLOTS  128u
#endif
_Static_assert(TEST_BACKEND_MAX_SIZE <= TB_FAKE_STRIDE, "a TEST buffer must fit in its fake address slot");
// Fresh buffer memory is filled with this byte, so data that was never written is recognizable.
#define TB_FILL        0xCD

static const bool tb_default_supported[WSP_GGML_OP_COUNT] = {
    [WSP_GGML_OP_NONE]    = true, [WSP_GGML_OP_ADD]  = true, [WSP_GGML_OP_MUL]     = true,
    [WSP_GGML_OP_SUB]     = true, [WSP_GGML_OP_SCALE] = true, [WSP_GGML_OP_SQR]   = true,
    [WSP_GGML_OP_RESHAPE] = true, [WSP_GGML_OP_VIEW] = true, [WSP_GGML_OP_PERMUTE] = true,
    [WSP_GGML_OP_TRANSPOSE] = true,
};

static bool     g_supported[WSP_GGML_OP_COUNT];
static bool     g_offload[WSP_GGML_OP_COUNT];
static bool     g_accept_host_srcs;
static bool     g_async_iface;
static bool     g_fail_alloc;
static bool     g_optimize_swap;
static void  (* g_compute_hook)(struct wsp_ggml_cgraph * cgraph, void * user_data);
static void   * g_compute_hook_data;
#ifdef WSP_GGML_BACKEND_META_MAX_DEVICES // whisper.rn 0.7
static bool     g_2d_iface;
#endif
static bool     g_config_ready;
static unsigned g_next_slot;
static struct test_backend_counters g_cnt;

static void tb_fail(const char * msg) {
    fprintf(stderr, "test_backend: %s\n", msg);
    fflush(stderr);
    abort();
}

void test_backend_reset_config(void) {
    memcpy(g_supported, tb_default_supported, sizeof(g_supported));
    memset(g_offload, 0, sizeof(g_offload));
    g_accept_host_srcs = false;
    g_async_iface      = true;
    g_fail_alloc       = false;
    g_optimize_swap    = false;
    g_compute_hook     = NULL;
#ifdef WSP_GGML_BACKEND_META_MAX_DEVICES
    g_2d_iface         = false;
#endif
    g_config_ready     = true;
}

static void tb_config(void) {
    if (!g_config_ready) {
        test_backend_reset_config();
    }
}

static void tb_set_ops(bool * set, const enum wsp_ggml_op * ops, int n_ops) {
    tb_config();
    memset(set, 0, sizeof(bool) * WSP_GGML_OP_COUNT);
    for (int i = 0; i < n_ops; i++) {
        if ((int) ops[i] < 0 || ops[i] >= WSP_GGML_OP_COUNT) {
            tb_fail("op out of range");
        }
        set[ops[i]] = true;
    }
}

void test_backend_set_supported_ops(const enum wsp_ggml_op * ops, int n_ops) { tb_set_ops(g_supported, ops, n_ops); }
void test_backend_set_offload_ops(const enum wsp_ggml_op * ops, int n_ops)   { tb_set_ops(g_offload,   ops, n_ops); }
void test_backend_set_accept_host_srcs(bool accept) { tb_config(); g_accept_host_srcs = accept; }
void test_backend_set_async_iface(bool enable)      { tb_config(); g_async_iface = enable; }
void test_backend_set_fail_alloc(bool fail)         { tb_config(); g_fail_alloc = fail; }
void test_backend_set_optimize_swap(bool swap)      { tb_config(); g_optimize_swap = swap; }

// the graph_optimize record: kept apart from struct test_backend_counters, whose layout the fuzz
// target mirrors
#define TB_MAX_OPTIMIZE_CALLS 64
#define TB_OPTIMIZE_TEXT      256
static char g_optimize_log[TB_MAX_OPTIMIZE_CALLS][TB_OPTIMIZE_TEXT];
static int  g_optimize_calls;

#ifdef WSP_GGML_BACKEND_META_MAX_DEVICES
// the 2d access record and the last computed graph's uid (whisper.rn 0.7), kept apart likewise
#define TB_MAX_2D_CALLS 64
#define TB_2D_TEXT      160
static char     g_2d_log[TB_MAX_2D_CALLS][TB_2D_TEXT];
static int      g_2d_calls;
static uint64_t g_last_uid;

void test_backend_set_2d_iface(bool enable) { tb_config(); g_2d_iface = enable; }

void test_backend_print_2d(FILE * f, const char * label) {
    const int n = g_2d_calls < TB_MAX_2D_CALLS ? g_2d_calls : TB_MAX_2D_CALLS;
    for (int i = 0; i < n; i++) {
        fprintf(f, "%s 2d %d %s\n", label, i, g_2d_log[i]);
    }
}

uint64_t test_backend_last_graph_uid(void) { return g_last_uid; }

static void tb_log_2d(const char * what, size_t offset, size_t size, size_t n_copies, size_t stride_tensor,
                      size_t stride_data) {
    if (g_2d_calls < TB_MAX_2D_CALLS) {
        snprintf(g_2d_log[g_2d_calls], TB_2D_TEXT, "%s offset=%zu size=%zu n_copies=%zu stride_tensor=%zu stride_data=%zu",
                 what, offset, size, n_copies, stride_tensor, stride_data);
    }
    g_2d_calls++;
}
#endif

void test_backend_counters(struct test_backend_counters * out) { *out = g_cnt; }

void test_backend_reset_counters(void) {
    memset(&g_cnt, 0, sizeof(g_cnt));
    g_optimize_calls = 0;
#ifdef WSP_GGML_BACKEND_META_MAX_DEVICES
    g_2d_calls = 0;
#endif
}

int test_backend_graph_optimize_calls(void) { return g_optimize_calls; }

void test_backend_print_graph_optimize(FILE * f, const char * label) {
    const int n = g_optimize_calls < TB_MAX_OPTIMIZE_CALLS ? g_optimize_calls : TB_MAX_OPTIMIZE_CALLS;
    for (int i = 0; i < n; i++) {
        fprintf(f, "%s graph_optimize %d %s\n", label, i, g_optimize_log[i]);
    }
}

void test_backend_print_counters(FILE * f, const char * label) {
    const struct test_backend_counters * c = &g_cnt;
    fprintf(f, "%s backends=%d/%d buffers=%d/%d computes=%d nodes=%d sync=%d set_async=%d get_async=%d"
               " cpy_async=%d buffer_cpy=%d events=%d/%d record=%d wait=%d sync=%d\n",
            label, c->backends_init, c->backends_free, c->buffers_alloc, c->buffers_free, c->graph_computes,
            c->nodes_computed, c->synchronize, c->set_async, c->get_async, c->cpy_async, c->buffer_cpy,
            c->event_new, c->event_free, c->event_record, c->event_wait, c->event_sync);
}

static bool tb_is_view_op(enum wsp_ggml_op op) {
    return op == WSP_GGML_OP_RESHAPE || op == WSP_GGML_OP_VIEW || op == WSP_GGML_OP_PERMUTE || op == WSP_GGML_OP_TRANSPOSE;
}

static wsp_ggml_backend_buffer_t tb_tensor_buffer(const struct wsp_ggml_tensor * t) {
    return t->view_src ? t->view_src->buffer : t->buffer;
}

//
// buffer
//

struct tb_buffer {
    uint8_t * mem;   // the real bytes
    uintptr_t fake;  // what get_base reports
};

// Real address of [addr + offset, addr + offset + len) inside a TEST buffer; aborts when out of range.
static uint8_t * tb_real(wsp_ggml_backend_buffer_t buffer, const void * addr, size_t offset, size_t len) {
    const struct tb_buffer * b = (const struct tb_buffer *) buffer->context;
    uintptr_t a = (uintptr_t) addr;
    if (a < b->fake || a - b->fake > buffer->size || offset > buffer->size - (a - b->fake) ||
        len > buffer->size - (a - b->fake) - offset) {
        tb_fail("access outside of a TEST buffer");
    }
    return b->mem + (a - b->fake) + offset;
}

static void tb_buffer_free(wsp_ggml_backend_buffer_t buffer) {
    struct tb_buffer * b = (struct tb_buffer *) buffer->context;
    free(b->mem);
    free(b);
    g_cnt.buffers_free++;
}

static void * tb_buffer_get_base(wsp_ggml_backend_buffer_t buffer) {
    return (void *) ((const struct tb_buffer *) buffer->context)->fake;
}

static void tb_buffer_memset_tensor(wsp_ggml_backend_buffer_t buffer, struct wsp_ggml_tensor * tensor,
                                    uint8_t value, size_t offset, size_t size) {
    memset(tb_real(buffer, tensor->data, offset, size), value, size);
}

static void tb_buffer_set_tensor(wsp_ggml_backend_buffer_t buffer, struct wsp_ggml_tensor * tensor,
                                 const void * data, size_t offset, size_t size) {
    memcpy(tb_real(buffer, tensor->data, offset, size), data, size);
}

static void tb_buffer_get_tensor(wsp_ggml_backend_buffer_t buffer, const struct wsp_ggml_tensor * tensor,
                                 void * data, size_t offset, size_t size) {
    memcpy(data, tb_real(buffer, tensor->data, offset, size), size);
}

// only TEST -> TEST; anything else is left to the caller's fallback
static bool tb_buffer_cpy_tensor(wsp_ggml_backend_buffer_t buffer, const struct wsp_ggml_tensor * src,
                                 struct wsp_ggml_tensor * dst) {
    wsp_ggml_backend_buffer_t src_buf = tb_tensor_buffer(src);
    if (!test_backend_buffer_is_test(src_buf)) {
        return false;
    }
    size_t n = wsp_ggml_nbytes(src);
    memmove(tb_real(buffer, dst->data, 0, n), tb_real(src_buf, src->data, 0, n), n);
    g_cnt.buffer_cpy++;
    return true;
}

static void tb_buffer_clear(wsp_ggml_backend_buffer_t buffer, uint8_t value) {
    memset(((struct tb_buffer *) buffer->context)->mem, value, buffer->size);
}

#ifdef WSP_GGML_BACKEND_META_MAX_DEVICES // whisper.rn 0.7
static void tb_buffer_set_tensor_2d(wsp_ggml_backend_buffer_t buffer, struct wsp_ggml_tensor * tensor, const void * data,
                                    size_t offset, size_t size, size_t n_copies, size_t stride_tensor, size_t stride_data) {
    tb_log_2d("buffer set", offset, size, n_copies, stride_tensor, stride_data);
    for (size_t i = 0; i < n_copies; i++) {
        memcpy(tb_real(buffer, tensor->data, offset + i*stride_tensor, size), (const uint8_t *) data + i*stride_data, size);
    }
}

static void tb_buffer_get_tensor_2d(wsp_ggml_backend_buffer_t buffer, const struct wsp_ggml_tensor * tensor, void * data,
                                    size_t offset, size_t size, size_t n_copies, size_t stride_tensor, size_t stride_data) {
    tb_log_2d("buffer get", offset, size, n_copies, stride_tensor, stride_data);
    for (size_t i = 0; i < n_copies; i++) {
        memcpy((uint8_t *) data + i*stride_data, tb_real(buffer, tensor->data, offset + i*stride_tensor, size), size);
    }
}
#endif

static const struct wsp_ggml_backend_buffer_i tb_buffer_iface = {
    .free_buffer   = tb_buffer_free,
    .get_base      = tb_buffer_get_base,
    .init_tensor   = NULL,
    .memset_tensor = tb_buffer_memset_tensor,
    .set_tensor    = tb_buffer_set_tensor,
    .get_tensor    = tb_buffer_get_tensor,
    .cpy_tensor    = tb_buffer_cpy_tensor,
    .clear         = tb_buffer_clear,
    .reset         = NULL,
};

#ifdef WSP_GGML_BACKEND_META_MAX_DEVICES
// the same with the 2d entries (test_backend_set_2d_iface)
static const struct wsp_ggml_backend_buffer_i tb_buffer_iface_2d = {
    .free_buffer   = tb_buffer_free,
    .get_base      = tb_buffer_get_base,
    .init_tensor   = NULL,
    .memset_tensor = tb_buffer_memset_tensor,
    .set_tensor    = tb_buffer_set_tensor,
    .get_tensor    = tb_buffer_get_tensor,
    .set_tensor_2d = tb_buffer_set_tensor_2d,
    .get_tensor_2d = tb_buffer_get_tensor_2d,
    .cpy_tensor    = tb_buffer_cpy_tensor,
    .clear         = tb_buffer_clear,
    .reset         = NULL,
};
#endif

bool test_backend_buffer_is_test(wsp_ggml_backend_buffer_t buffer) {
    return buffer != NULL && buffer->iface.get_base == tb_buffer_get_base;
}

//
// buffer type
//

static const char * tb_buft_get_name(wsp_ggml_backend_buffer_type_t buft) { (void) buft; return "TEST"; }
static size_t tb_buft_get_alignment(wsp_ggml_backend_buffer_type_t buft)  { (void) buft; return TEST_BACKEND_ALIGNMENT; }
static size_t tb_buft_get_max_size(wsp_ggml_backend_buffer_type_t buft)   { (void) buft; return TEST_BACKEND_MAX_SIZE; }
static bool   tb_buft_is_host(wsp_ggml_backend_buffer_type_t buft)        { (void) buft; return false; }

static wsp_ggml_backend_buffer_t tb_buft_alloc_buffer(wsp_ggml_backend_buffer_type_t buft, size_t size) {
    tb_config();
    if (g_fail_alloc || size > TEST_BACKEND_MAX_SIZE) {
        return NULL;
    }
    struct tb_buffer * b = (struct tb_buffer *) malloc(sizeof(*b));
    b->mem = (uint8_t *) malloc(size ? size : 1);
    if (b->mem == NULL) {
        free(b);
        return NULL;
    }
    memset(b->mem, TB_FILL, size);
    b->fake = TB_FAKE_BASE + (uintptr_t) (g_next_slot++ % TB_FAKE_SLOTS) * TB_FAKE_STRIDE;
    g_cnt.buffers_alloc++;
#ifdef WSP_GGML_BACKEND_META_MAX_DEVICES
    if (g_2d_iface) {
        return wsp_ggml_backend_buffer_init(buft, tb_buffer_iface_2d, b, size);
    }
#endif
    return wsp_ggml_backend_buffer_init(buft, tb_buffer_iface, b, size);
}

static struct wsp_ggml_backend_reg    tb_reg;
static struct wsp_ggml_backend_device tb_dev;

static struct wsp_ggml_backend_buffer_type tb_buft = {
    .iface = {
        .get_name       = tb_buft_get_name,
        .alloc_buffer   = tb_buft_alloc_buffer,
        .get_alignment  = tb_buft_get_alignment,
        .get_max_size   = tb_buft_get_max_size,
        .get_alloc_size = NULL,
        .is_host        = tb_buft_is_host,
    },
    .device  = &tb_dev,
    .context = NULL,
};

//
// compute
//

// Address of a tensor's first element that this process may dereference, or NULL.
static uint8_t * tb_data(const struct wsp_ggml_tensor * t) {
    wsp_ggml_backend_buffer_t buf = tb_tensor_buffer(t);
    if (buf == NULL || t->data == NULL) {
        return NULL;
    }
    if (test_backend_buffer_is_test(buf)) {
        return tb_real(buf, t->data, 0, wsp_ggml_nbytes(t));
    }
    if (wsp_ggml_backend_buffer_is_host(buf)) {
        return (uint8_t *) t->data;
    }
    return NULL;
}

static float * tb_at(uint8_t * base, const struct wsp_ggml_tensor * t, int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
    return (float *) (base + i0*t->nb[0] + i1*t->nb[1] + i2*t->nb[2] + i3*t->nb[3]);
}

// MUL_MAT: dst[i0, i1, i2, i3] = sum_k s0[k, i0, i2', i3'] * s1[k, i1, i2, i3], s0 broadcast over dims 2/3;
// F32 with arbitrary strides, summed in k order
static bool tb_compute_mul_mat(const struct wsp_ggml_tensor * node) {
    const struct wsp_ggml_tensor * s0 = node->src[0];
    const struct wsp_ggml_tensor * s1 = node->src[1];
    if (node->type != WSP_GGML_TYPE_F32 || s0 == NULL || s1 == NULL || s0->type != WSP_GGML_TYPE_F32 ||
        s1->type != WSP_GGML_TYPE_F32 || s0->ne[0] != s1->ne[0] || node->ne[0] != s0->ne[1] ||
        node->ne[1] != s1->ne[1] || node->ne[2] != s1->ne[2] || node->ne[3] != s1->ne[3] ||
        s1->ne[2] % s0->ne[2] != 0 || s1->ne[3] % s0->ne[3] != 0) {
        return false;
    }
    uint8_t * d = tb_data(node);
    uint8_t * a = tb_data(s0);
    uint8_t * b = tb_data(s1);
    if (d == NULL || a == NULL || b == NULL) {
        return false;
    }
    const int64_t r2 = s1->ne[2] / s0->ne[2];
    const int64_t r3 = s1->ne[3] / s0->ne[3];
    for (int64_t i3 = 0; i3 < node->ne[3]; i3++)
    for (int64_t i2 = 0; i2 < node->ne[2]; i2++)
    for (int64_t i1 = 0; i1 < node->ne[1]; i1++)
    for (int64_t i0 = 0; i0 < node->ne[0]; i0++) {
        float sum = 0.0f;
        for (int64_t k = 0; k < s0->ne[0]; k++) {
            sum += *tb_at(a, s0, k, i0, i2 / r2, i3 / r3) * *tb_at(b, s1, k, i1, i2, i3);
        }
        *tb_at(d, node, i0, i1, i2, i3) = sum;
    }
    return true;
}

// ADD/SUB/MUL/DIV (src1 broadcast to src0 by repetition), SCALE, SQR; F32 with arbitrary strides
static bool tb_compute_node(const struct wsp_ggml_tensor * node) {
    const struct wsp_ggml_tensor * s0 = node->src[0];
    const struct wsp_ggml_tensor * s1 = node->src[1];
    const enum wsp_ggml_op op = node->op;

    if (op == WSP_GGML_OP_MUL_MAT) {
        return tb_compute_mul_mat(node);
    }
    const bool binary = op == WSP_GGML_OP_ADD || op == WSP_GGML_OP_SUB || op == WSP_GGML_OP_MUL || op == WSP_GGML_OP_DIV;

    if (!binary && op != WSP_GGML_OP_SCALE && op != WSP_GGML_OP_SQR) {
        return false;
    }
    if (node->type != WSP_GGML_TYPE_F32 || s0 == NULL || s0->type != WSP_GGML_TYPE_F32 || !wsp_ggml_are_same_shape(s0, node)) {
        return false;
    }
    if (binary && (s1 == NULL || s1->type != WSP_GGML_TYPE_F32 || !wsp_ggml_can_repeat(s1, s0))) {
        return false;
    }
    uint8_t * d = tb_data(node);
    uint8_t * a = tb_data(s0);
    uint8_t * b = binary ? tb_data(s1) : NULL;
    if (d == NULL || a == NULL || (binary && b == NULL)) {
        return false;
    }
    float scale;
    memcpy(&scale, node->op_params, sizeof(scale));

    for (int64_t i3 = 0; i3 < node->ne[3]; i3++)
    for (int64_t i2 = 0; i2 < node->ne[2]; i2++)
    for (int64_t i1 = 0; i1 < node->ne[1]; i1++)
    for (int64_t i0 = 0; i0 < node->ne[0]; i0++) {
        const float x = *tb_at(a, s0, i0, i1, i2, i3);
        const float y = binary ? *tb_at(b, s1, i0 % s1->ne[0], i1 % s1->ne[1], i2 % s1->ne[2], i3 % s1->ne[3]) : 0.0f;
        float r;
        switch (op) {
            case WSP_GGML_OP_ADD:   r = x + y;     break;
            case WSP_GGML_OP_SUB:   r = x - y;     break;
            case WSP_GGML_OP_MUL:   r = x * y;     break;
            case WSP_GGML_OP_DIV:   r = x / y;     break;
            case WSP_GGML_OP_SCALE: r = x * scale; break;
            default:                r = x * x;     break; // SQR
        }
        *tb_at(d, node, i0, i1, i2, i3) = r;
    }
    return true;
}

//
// backend
//

static wsp_ggml_guid tb_guid = { 0x7e, 0x57, 0xba, 0xc0, 0x11, 0xd0, 0x4e, 0x5a, 0x9f, 0x0c, 0x3b, 0x21, 0x64, 0xe8, 0x5d, 0xa7 };

static const char * tb_backend_get_name(wsp_ggml_backend_t backend) { (void) backend; return "TEST"; }

static void tb_backend_free(wsp_ggml_backend_t backend) {
    free(backend);
    g_cnt.backends_free++;
}

// host pointer of a tensor for the backend's own (synchronous) data access
static uint8_t * tb_access(const struct wsp_ggml_tensor * t, size_t offset, size_t size) {
    wsp_ggml_backend_buffer_t buf = tb_tensor_buffer(t);
    if (test_backend_buffer_is_test(buf)) {
        return tb_real(buf, t->data, offset, size);
    }
    if (buf != NULL && wsp_ggml_backend_buffer_is_host(buf)) {
        return (uint8_t *) t->data + offset;
    }
    tb_fail("TEST backend cannot access this tensor");
    return NULL;
}

static void tb_backend_set_tensor_async(wsp_ggml_backend_t backend, struct wsp_ggml_tensor * tensor,
                                        const void * data, size_t offset, size_t size) {
    (void) backend;
    memcpy(tb_access(tensor, offset, size), data, size);
    g_cnt.set_async++;
}

static void tb_backend_get_tensor_async(wsp_ggml_backend_t backend, const struct wsp_ggml_tensor * tensor,
                                        void * data, size_t offset, size_t size) {
    (void) backend;
    memcpy(data, tb_access(tensor, offset, size), size);
    g_cnt.get_async++;
}

#ifdef WSP_GGML_BACKEND_META_MAX_DEVICES
static void tb_backend_set_tensor_2d_async(wsp_ggml_backend_t backend, struct wsp_ggml_tensor * tensor, const void * data,
                                           size_t offset, size_t size, size_t n_copies, size_t stride_tensor, size_t stride_data) {
    (void) backend;
    tb_log_2d("backend set_async", offset, size, n_copies, stride_tensor, stride_data);
    for (size_t i = 0; i < n_copies; i++) {
        memcpy(tb_access(tensor, offset + i*stride_tensor, size), (const uint8_t *) data + i*stride_data, size);
    }
}

static void tb_backend_get_tensor_2d_async(wsp_ggml_backend_t backend, const struct wsp_ggml_tensor * tensor, void * data,
                                           size_t offset, size_t size, size_t n_copies, size_t stride_tensor, size_t stride_data) {
    (void) backend;
    tb_log_2d("backend get_async", offset, size, n_copies, stride_tensor, stride_data);
    for (size_t i = 0; i < n_copies; i++) {
        memcpy((uint8_t *) data + i*stride_data, tb_access(tensor, offset + i*stride_tensor, size), size);
    }
}
#endif

// like real devices: only between two TEST backends and two TEST buffers
static bool tb_backend_cpy_tensor_async(wsp_ggml_backend_t backend_src, wsp_ggml_backend_t backend_dst,
                                        const struct wsp_ggml_tensor * src, struct wsp_ggml_tensor * dst) {
    if (!test_backend_is_test(backend_src) || !test_backend_is_test(backend_dst) ||
        !test_backend_buffer_is_test(tb_tensor_buffer(src)) || !test_backend_buffer_is_test(tb_tensor_buffer(dst))) {
        return false;
    }
    size_t n = wsp_ggml_nbytes(src);
    memmove(tb_access(dst, 0, n), tb_access(src, 0, n), n);
    g_cnt.cpy_async++;
    return true;
}

static void tb_backend_synchronize(wsp_ggml_backend_t backend) {
    (void) backend;
    g_cnt.synchronize++;
}

static bool tb_dev_supports_op(wsp_ggml_backend_dev_t dev, const struct wsp_ggml_tensor * op);

void test_backend_set_compute_hook(void (*hook)(struct wsp_ggml_cgraph * cgraph, void * user_data), void * user_data) {
    g_compute_hook      = hook;
    g_compute_hook_data = user_data;
}

static enum wsp_ggml_status tb_backend_graph_compute(wsp_ggml_backend_t backend, struct wsp_ggml_cgraph * cgraph) {
    g_cnt.graph_computes++;
    if (g_compute_hook != NULL) {
        g_compute_hook(cgraph, g_compute_hook_data);
    }
#ifdef WSP_GGML_BACKEND_META_MAX_DEVICES
    g_last_uid = cgraph->uid;
#endif
    for (int i = 0; i < wsp_ggml_graph_n_nodes(cgraph); i++) {
        const struct wsp_ggml_tensor * node = wsp_ggml_graph_node(cgraph, i);
        if (node->op == WSP_GGML_OP_NONE || tb_is_view_op(node->op)) {
            continue;
        }
        if (!tb_dev_supports_op(backend->device, node) || !tb_compute_node(node)) {
            return WSP_GGML_STATUS_FAILED;
        }
        g_cnt.nodes_computed++;
    }
    return WSP_GGML_STATUS_SUCCESS;
}

static void tb_backend_event_record(wsp_ggml_backend_t backend, wsp_ggml_backend_event_t event) {
    (void) backend; (void) event;
    g_cnt.event_record++;
}

static void tb_backend_event_wait(wsp_ggml_backend_t backend, wsp_ggml_backend_event_t event) {
    (void) backend; (void) event;
    g_cnt.event_wait++;
}

#if WSP_GGML_BACKEND_API_VERSION >= 2
static bool tb_reads(const struct wsp_ggml_tensor * node, const struct wsp_ggml_tensor * t) {
    for (int i = 0; i < WSP_GGML_MAX_SRC; i++) {
        if (node->src[i] != NULL && (node->src[i] == t || node->src[i]->view_src == t)) {
            return true;
        }
    }
    return node->view_src == t;
}

static void tb_backend_graph_optimize(wsp_ggml_backend_t backend, struct wsp_ggml_cgraph * cgraph) {
    (void) backend;
    const int n_nodes = wsp_ggml_graph_n_nodes(cgraph);
    if (g_optimize_calls < TB_MAX_OPTIMIZE_CALLS) {
        char * text = g_optimize_log[g_optimize_calls];
        int len = snprintf(text, TB_OPTIMIZE_TEXT, "n_nodes=%d nodes=", n_nodes);
        for (int i = 0; i < n_nodes && len < TB_OPTIMIZE_TEXT; i++) {
            len += snprintf(text + len, (size_t) (TB_OPTIMIZE_TEXT - len), "%s%s", i ? "," : "",
                            wsp_ggml_get_name(wsp_ggml_graph_node(cgraph, i)));
        }
    }
    g_optimize_calls++;
    if (g_optimize_swap && n_nodes >= 2) {
        struct wsp_ggml_tensor * a = wsp_ggml_graph_node(cgraph, 0);
        struct wsp_ggml_tensor * b = wsp_ggml_graph_node(cgraph, 1);
        if (!tb_reads(a, b) && !tb_reads(b, a)) {
            cgraph->nodes[0] = b;
            cgraph->nodes[1] = a;
        }
    }
}
#endif

bool test_backend_is_test(wsp_ggml_backend_t backend) {
    return backend != NULL && backend->iface.get_name == tb_backend_get_name;
}

//
// device
//

static const char * tb_dev_get_name(wsp_ggml_backend_dev_t dev)        { (void) dev; return "TEST"; }
static const char * tb_dev_get_description(wsp_ggml_backend_dev_t dev) { (void) dev; return "non-host test device"; }
static enum wsp_ggml_backend_dev_type tb_dev_get_type(wsp_ggml_backend_dev_t dev) { (void) dev; return WSP_GGML_BACKEND_DEVICE_TYPE_GPU; }
static wsp_ggml_backend_buffer_type_t tb_dev_get_buffer_type(wsp_ggml_backend_dev_t dev) { (void) dev; return &tb_buft; }

static void tb_dev_get_memory(wsp_ggml_backend_dev_t dev, size_t * free_mem, size_t * total) {
    (void) dev;
    *free_mem = TEST_BACKEND_MEMORY;
    *total    = TEST_BACKEND_MEMORY;
}

static void tb_dev_get_props(wsp_ggml_backend_dev_t dev, struct wsp_ggml_backend_dev_props * props) {
    props->name        = tb_dev_get_name(dev);
    props->description = tb_dev_get_description(dev);
    tb_dev_get_memory(dev, &props->memory_free, &props->memory_total);
    props->type        = tb_dev_get_type(dev);
#if WSP_GGML_BACKEND_API_VERSION >= 2
    props->device_id   = NULL;  // not a PCI device
#endif
    props->caps.async                = false;
    props->caps.host_buffer          = false;
    props->caps.buffer_from_host_ptr = false;
    props->caps.events               = true;
}

static wsp_ggml_backend_t tb_dev_init_backend(wsp_ggml_backend_dev_t dev, const char * params) {
    (void) params;
    tb_config();
    wsp_ggml_backend_t backend = (wsp_ggml_backend_t) malloc(sizeof(*backend));
    memset(backend, 0, sizeof(*backend));
    backend->guid                  = &tb_guid;
    backend->iface.get_name        = tb_backend_get_name;
    backend->iface.free            = tb_backend_free;
    if (g_async_iface) {
        backend->iface.set_tensor_async = tb_backend_set_tensor_async;
        backend->iface.get_tensor_async = tb_backend_get_tensor_async;
        backend->iface.cpy_tensor_async = tb_backend_cpy_tensor_async;
#ifdef WSP_GGML_BACKEND_META_MAX_DEVICES
        if (g_2d_iface) {
            backend->iface.set_tensor_2d_async = tb_backend_set_tensor_2d_async;
            backend->iface.get_tensor_2d_async = tb_backend_get_tensor_2d_async;
        }
#endif
    }
    backend->iface.synchronize     = tb_backend_synchronize;
    backend->iface.graph_compute   = tb_backend_graph_compute;
    backend->iface.event_record    = tb_backend_event_record;
    backend->iface.event_wait      = tb_backend_event_wait;
#if WSP_GGML_BACKEND_API_VERSION >= 2
    backend->iface.graph_optimize  = tb_backend_graph_optimize;
#endif
    backend->device                = dev;
    backend->context               = NULL;
    g_cnt.backends_init++;
    return backend;
}

static bool tb_dev_supports_op(wsp_ggml_backend_dev_t dev, const struct wsp_ggml_tensor * op) {
    (void) dev;
    tb_config();
    if ((int) op->op < 0 || op->op >= WSP_GGML_OP_COUNT || !g_supported[op->op] || op->type != WSP_GGML_TYPE_F32) {
        return false;
    }
    if (op->op != WSP_GGML_OP_NONE && !tb_is_view_op(op->op) && !wsp_ggml_is_contiguous(op)) {
        return false;
    }
    for (int i = 0; i < WSP_GGML_MAX_SRC; i++) {
        const struct wsp_ggml_tensor * s = op->src[i];
        if (s == NULL) {
            continue;
        }
        if (s->type != WSP_GGML_TYPE_F32) {
            return false;
        }
        wsp_ggml_backend_buffer_t buf = tb_tensor_buffer(s);
        if (buf != NULL && !test_backend_buffer_is_test(buf) &&
            !(g_accept_host_srcs && wsp_ggml_backend_buffer_is_host(buf))) {
            return false;
        }
    }
    return true;
}

static bool tb_dev_supports_buft(wsp_ggml_backend_dev_t dev, wsp_ggml_backend_buffer_type_t buft) {
    (void) dev;
    return buft == &tb_buft;
}

static bool tb_dev_offload_op(wsp_ggml_backend_dev_t dev, const struct wsp_ggml_tensor * op) {
    (void) dev;
    tb_config();
    return (int) op->op >= 0 && op->op < WSP_GGML_OP_COUNT && g_offload[op->op];
}

static wsp_ggml_backend_event_t tb_dev_event_new(wsp_ggml_backend_dev_t dev) {
    wsp_ggml_backend_event_t event = (wsp_ggml_backend_event_t) malloc(sizeof(*event));
    event->device  = dev;
    event->context = NULL;
    g_cnt.event_new++;
    return event;
}

static void tb_dev_event_free(wsp_ggml_backend_dev_t dev, wsp_ggml_backend_event_t event) {
    (void) dev;
    free(event);
    g_cnt.event_free++;
}

static void tb_dev_event_synchronize(wsp_ggml_backend_dev_t dev, wsp_ggml_backend_event_t event) {
    (void) dev; (void) event;
    g_cnt.event_sync++;
}

static struct wsp_ggml_backend_device tb_dev = {
    .iface = {
        .get_name             = tb_dev_get_name,
        .get_description      = tb_dev_get_description,
        .get_memory           = tb_dev_get_memory,
        .get_type             = tb_dev_get_type,
        .get_props            = tb_dev_get_props,
        .init_backend         = tb_dev_init_backend,
        .get_buffer_type      = tb_dev_get_buffer_type,
        .get_host_buffer_type = NULL,
        .buffer_from_host_ptr = NULL,
        .supports_op          = tb_dev_supports_op,
        .supports_buft        = tb_dev_supports_buft,
        .offload_op           = tb_dev_offload_op,
        .event_new            = tb_dev_event_new,
        .event_free           = tb_dev_event_free,
        .event_synchronize    = tb_dev_event_synchronize,
    },
    .reg     = &tb_reg,
    .context = NULL,
};

//
// reg
//

static const char * tb_reg_get_name(wsp_ggml_backend_reg_t reg)      { (void) reg; return "TEST"; }
static size_t       tb_reg_get_device_count(wsp_ggml_backend_reg_t reg) { (void) reg; return 1; }

static wsp_ggml_backend_dev_t tb_reg_get_device(wsp_ggml_backend_reg_t reg, size_t index) {
    (void) reg;
    return index == 0 ? &tb_dev : NULL;
}

static struct wsp_ggml_backend_reg tb_reg = {
    .api_version = WSP_GGML_BACKEND_API_VERSION,
    .iface = {
        .get_name         = tb_reg_get_name,
        .get_device_count = tb_reg_get_device_count,
        .get_device       = tb_reg_get_device,
        .get_proc_address = NULL,
    },
    .context = NULL,
};

wsp_ggml_backend_reg_t         test_backend_reg(void)         { return &tb_reg; }
wsp_ggml_backend_dev_t         test_backend_dev(void)         { return &tb_dev; }
wsp_ggml_backend_buffer_type_t test_backend_buffer_type(void) { return &tb_buft; }
wsp_ggml_backend_t             test_backend_init(void)        { return wsp_ggml_backend_dev_init(&tb_dev, NULL); }

void test_backend_register(void) {
    static bool registered;
    if (!registered) {
        registered = true;
        wsp_ggml_backend_register(&tb_reg);
    }
}
