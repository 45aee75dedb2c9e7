/*
 * bad_input.c - hostile-input cases for the backend layer.
 *
 * Usage:  bad_input <case>     run one case
 *         bad_input --list     one line per case: name <TAB> outcome <TAB> substring
 *
 * Each case builds whatever valid objects it needs and then makes exactly ONE
 * bad call into the backend API (a NULL handle, an out-of-bounds or
 * overflowing offset, an unallocated tensor, an out-of-range index, a missing
 * optional interface entry, ...).
 *
 * outcome "abort": the library is expected to terminate the process and its
 *                  stderr/log output must contain the listed substring.
 * outcome "error": the function has an error channel: it must return its
 *                  error value (NULL, false, WSP_GGML_STATUS_FAILED) and log the
 *                  listed substring; the program then prints "ok" and exits 0.
 * outcome "ok":    the call must return normally (NULL-safe functions, no-op
 *                  calls); the program then prints "ok" and exits 0.
 *
 * If an "abort" case returns, the program prints "returned" and exits 1.
 * If an "ok" case returns a wrong result, it prints why and exits 1.
 * A failure while building the valid objects exits 2 ("setup failed").
 */

#include "ggml.h"
#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml-backend-impl.h"
#include "ggml-cpu.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* setup helpers: every failure here is a test-setup problem, not a result  */

static void setup_failed(const char * what) {
    fprintf(stderr, "bad_input: setup failed: %s\n", what);
    exit(2);
}

/* Each case runs in a process of its own, which exits right after the bad call: the objects the
 * setup makes are never freed, but kept here, reachable, so that LeakSanitizer (in sanitizer
 * builds) reports only memory that the library itself loses. */
static void * kept[64];
static int    n_kept;

static void * keep(void * object) {
    if (n_kept < (int) (sizeof(kept) / sizeof(kept[0]))) {
        kept[n_kept++] = object;
    }
    return object;
}

static float host_data[64];                          /* source/destination for tensor I/O */
static _Alignas(64) unsigned char raw_mem[512];      /* memory for pointer-based buffers */

static struct wsp_ggml_context * new_ctx(bool no_alloc) {
    struct wsp_ggml_init_params params = {
        /* .mem_size   = */ 1024 * 1024,
        /* .mem_buffer = */ NULL,
        /* .no_alloc   = */ no_alloc,
    };
    struct wsp_ggml_context * ctx = wsp_ggml_init(params);
    if (ctx == NULL) {
        setup_failed("wsp_ggml_init");
    }
    return keep(ctx);
}

/* an f32 tensor with metadata only: no buffer, no data */
static struct wsp_ggml_tensor * unallocated_tensor(int64_t n) {
    return wsp_ggml_new_tensor_1d(new_ctx(true), WSP_GGML_TYPE_F32, n);
}

/* two f32 tensors allocated in one CPU buffer */
static void cpu_tensors(int64_t na, struct wsp_ggml_tensor ** a, int64_t nb, struct wsp_ggml_tensor ** b) {
    struct wsp_ggml_context * ctx = new_ctx(true);
    *a = wsp_ggml_new_tensor_1d(ctx, WSP_GGML_TYPE_F32, na);
    if (b != NULL) {
        *b = wsp_ggml_new_tensor_1d(ctx, WSP_GGML_TYPE_F32, nb);
    }
    if (keep(wsp_ggml_backend_alloc_ctx_tensors_from_buft(ctx, wsp_ggml_backend_cpu_buffer_type())) == NULL) {
        setup_failed("allocating CPU tensors");
    }
}

/* one f32 tensor of 4 elements (16 bytes) in a CPU buffer */
static struct wsp_ggml_tensor * cpu_tensor(void) {
    struct wsp_ggml_tensor * t;
    cpu_tensors(4, &t, 0, NULL);
    return t;
}

static wsp_ggml_backend_buffer_t cpu_buffer(size_t size) {
    wsp_ggml_backend_buffer_t buf = wsp_ggml_backend_buft_alloc_buffer(wsp_ggml_backend_cpu_buffer_type(), size);
    if (buf == NULL) {
        setup_failed("allocating a CPU buffer");
    }
    return keep(buf);
}

static wsp_ggml_backend_t cpu_backend(void) {
    wsp_ggml_backend_t backend = wsp_ggml_backend_cpu_init();
    if (backend == NULL) {
        setup_failed("wsp_ggml_backend_cpu_init");
    }
    return keep(backend);
}

static wsp_ggml_backend_dev_t cpu_device(void) {
    wsp_ggml_backend_dev_t dev = wsp_ggml_backend_reg_dev_get(wsp_ggml_backend_cpu_reg(), 0);
    if (dev == NULL) {
        setup_failed("CPU device");
    }
    return dev;
}

/* a small graph: b = a + a */
static struct wsp_ggml_cgraph * small_graph(void) {
    struct wsp_ggml_context * ctx = new_ctx(false);
    struct wsp_ggml_tensor * a = wsp_ggml_new_tensor_1d(ctx, WSP_GGML_TYPE_F32, 4);
    struct wsp_ggml_tensor * b = wsp_ggml_add(ctx, a, a);
    struct wsp_ggml_cgraph * gf = wsp_ggml_new_graph(ctx);
    wsp_ggml_build_forward_expand(gf, b);
    return gf;
}

static wsp_ggml_backend_sched_t cpu_sched(wsp_ggml_backend_t backend) {
    wsp_ggml_backend_t backends[1] = { backend };
    wsp_ggml_backend_sched_t sched = wsp_ggml_backend_sched_new(backends, NULL, 1, 64, false, true);
    if (sched == NULL) {
        setup_failed("wsp_ggml_backend_sched_new");
    }
    return keep(sched);
}

/* ---- a backend that implements only the mandatory entries (no plans, no events) ---- */

static const char * bare_get_name(wsp_ggml_backend_t backend) {
    (void) backend;
    return "bare";
}

static void bare_free(wsp_ggml_backend_t backend) {
    (void) backend;
}

static enum wsp_ggml_status bare_graph_compute(wsp_ggml_backend_t backend, struct wsp_ggml_cgraph * cgraph) {
    (void) backend;
    (void) cgraph;
    return WSP_GGML_STATUS_SUCCESS;
}

static wsp_ggml_guid bare_guid = { 0x62, 0x61, 0x72, 0x65, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1 };

static wsp_ggml_backend_t bare_backend(void) {
    static struct wsp_ggml_backend backend;
    memset(&backend, 0, sizeof(backend));
    backend.guid                = &bare_guid;
    backend.iface.get_name      = bare_get_name;
    backend.iface.free          = bare_free;
    backend.iface.graph_compute = bare_graph_compute;
    backend.device              = cpu_device();
    backend.context             = NULL;
    return &backend;
}

/* an event object on the CPU device (which has no event support) */
static wsp_ggml_backend_event_t cpu_event(void) {
    static struct wsp_ggml_backend_event event;
    event.device  = cpu_device();
    event.context = NULL;
    return &event;
}

/* ---- a host buffer whose interface has no memset_tensor ---- */

static void * nomemset_get_base(wsp_ggml_backend_buffer_t buffer) {
    return buffer->context;
}

static void nomemset_set_tensor(wsp_ggml_backend_buffer_t buffer, struct wsp_ggml_tensor * tensor,
                                const void * data, size_t offset, size_t size) {
    (void) buffer;
    memcpy((char *) tensor->data + offset, data, size);
}

static void nomemset_get_tensor(wsp_ggml_backend_buffer_t buffer, const struct wsp_ggml_tensor * tensor,
                                void * data, size_t offset, size_t size) {
    (void) buffer;
    memcpy(data, (const char *) tensor->data + offset, size);
}

static void nomemset_clear(wsp_ggml_backend_buffer_t buffer, uint8_t value) {
    memset(buffer->context, value, buffer->size);
}

static wsp_ggml_backend_buffer_t nomemset_buffer(void) {
    struct wsp_ggml_backend_buffer_i iface;
    memset(&iface, 0, sizeof(iface));
    iface.get_base   = nomemset_get_base;
    iface.set_tensor = nomemset_set_tensor;
    iface.get_tensor = nomemset_get_tensor;
    iface.clear      = nomemset_clear;
    wsp_ggml_backend_buffer_t buf =
        wsp_ggml_backend_buffer_init(wsp_ggml_backend_cpu_buffer_type(), iface, raw_mem, sizeof(raw_mem));
    if (buf == NULL) {
        setup_failed("wsp_ggml_backend_buffer_init");
    }
    return keep(buf);
}

/* ------------------------------------------------------------------------ */
/* cases: each makes ONE bad call; the return value only matters for "ok"  */

/* NULL handles */
static int c_buft_name_null(void)             { return wsp_ggml_backend_buft_name(NULL) != NULL; }
static int c_buft_alloc_buffer_null(void)     { return wsp_ggml_backend_buft_alloc_buffer(NULL, 16) != NULL; }
static int c_buft_get_alignment_null(void)    { return wsp_ggml_backend_buft_get_alignment(NULL) != 0; }
static int c_buffer_get_size_null(void)       { return wsp_ggml_backend_buffer_get_size(NULL) != 0; }
static int c_buffer_get_base_null(void)       { return wsp_ggml_backend_buffer_get_base(NULL) != NULL; }
static int c_buffer_clear_null(void)          { wsp_ggml_backend_buffer_clear(NULL, 0); return 0; }
static int c_buffer_set_usage_null(void)      { wsp_ggml_backend_buffer_set_usage(NULL, WSP_GGML_BACKEND_BUFFER_USAGE_WEIGHTS); return 0; }
static int c_get_default_buft_null(void)      { return wsp_ggml_backend_get_default_buffer_type(NULL) != NULL; }
static int c_backend_alloc_buffer_null(void)  { return wsp_ggml_backend_alloc_buffer(NULL, 16) != NULL; }
static int c_synchronize_null(void)           { wsp_ggml_backend_synchronize(NULL); return 0; }

static int c_graph_compute_null_backend(void) {
    struct wsp_ggml_cgraph * gf = small_graph();
    return wsp_ggml_backend_graph_compute(NULL, gf) != WSP_GGML_STATUS_FAILED;
}

static int c_graph_compute_null_graph(void) {
    wsp_ggml_backend_t cpu = cpu_backend();
    return wsp_ggml_backend_graph_compute(cpu, NULL) != WSP_GGML_STATUS_FAILED;
}

static int c_dev_name_null(void)              { return wsp_ggml_backend_dev_name(NULL) != NULL; }
static int c_dev_init_null(void)              { return wsp_ggml_backend_dev_init(NULL, NULL) != NULL; }

static int c_dev_get_props_null(void) {
    wsp_ggml_backend_dev_t dev = cpu_device();
    wsp_ggml_backend_dev_get_props(dev, NULL);
    return 0;
}

static int c_reg_name_null(void)              { return wsp_ggml_backend_reg_name(NULL) != NULL; }
static int c_reg_dev_count_null(void)         { return wsp_ggml_backend_reg_dev_count(NULL) != 0; }
static int c_reg_by_name_null(void)           { return wsp_ggml_backend_reg_by_name(NULL) != NULL; }
static int c_dev_by_name_null(void)           { return wsp_ggml_backend_dev_by_name(NULL) != NULL; }

static int c_event_record_null(void) {
    wsp_ggml_backend_t cpu = cpu_backend();
    wsp_ggml_backend_event_record(NULL, cpu);
    return 0;
}

static int c_tensor_set_null(void)            { wsp_ggml_backend_tensor_set(NULL, host_data, 0, 4); return 0; }
static int c_tensor_get_null(void)            { wsp_ggml_backend_tensor_get(NULL, host_data, 0, 4); return 0; }
static int c_tensor_memset_null(void)         { wsp_ggml_backend_tensor_memset(NULL, 0, 0, 4); return 0; }

static int c_tensor_copy_null_src(void) {
    struct wsp_ggml_tensor * t = cpu_tensor();
    wsp_ggml_backend_tensor_copy(NULL, t);
    return 0;
}

static int c_tensor_alloc_null_buffer(void) {
    struct wsp_ggml_tensor * t = unallocated_tensor(4);
    return wsp_ggml_backend_tensor_alloc(NULL, t, raw_mem) != WSP_GGML_STATUS_FAILED;
}

static int c_view_init_null(void)             { return wsp_ggml_backend_view_init(NULL) != WSP_GGML_STATUS_FAILED; }
static int c_sched_new_null_backends(void)    { return wsp_ggml_backend_sched_new(NULL, NULL, 1, 64, false, true) != NULL; }

/* NULL-safe functions */
static int c_buffer_free_null(void)           { wsp_ggml_backend_buffer_free(NULL); return 0; }

/* a buffer freed twice (undefined behaviour in C): refused with a message */
static int c_buffer_free_twice(void) {
    wsp_ggml_backend_buffer_t buf = wsp_ggml_backend_buft_alloc_buffer(wsp_ggml_backend_cpu_buffer_type(), 64);
    wsp_ggml_backend_buffer_free(buf);
    wsp_ggml_backend_buffer_free(buf);
    return 0;
}
static int c_backend_free_null(void)          { wsp_ggml_backend_free(NULL); return 0; }
static int c_event_free_null(void)            { wsp_ggml_backend_event_free(NULL); return 0; }
static int c_sched_free_null(void)            { wsp_ggml_backend_sched_free(NULL); return 0; }

static int c_backend_name_null(void) {
    const char * name = wsp_ggml_backend_name(NULL);
    printf("%s\n", name ? name : "(null pointer)");
    return name != NULL && strcmp(name, "NULL") == 0 ? 0 : 1;
}

static int c_backend_guid_null(void) {
    return wsp_ggml_backend_guid(NULL) == NULL ? 0 : 1;
}

static int c_event_new_null(void) {
    return wsp_ggml_backend_event_new(NULL) == NULL ? 0 : 1;
}

/* no-ops that must stay no-ops (before 0.7) */
static int c_tensor_set_size0_unallocated(void) {
    struct wsp_ggml_tensor * t = unallocated_tensor(4);
    wsp_ggml_backend_tensor_set(t, host_data, 0, 0);
    return 0;
}

static int c_tensor_get_size0_unallocated(void) {
    struct wsp_ggml_tensor * t = unallocated_tensor(4);
    wsp_ggml_backend_tensor_get(t, host_data, 0, 0);
    return 0;
}

static int c_buffer_zero_size_base(void) {
    wsp_ggml_backend_buffer_t buf = keep(wsp_ggml_backend_buft_alloc_buffer(wsp_ggml_backend_cpu_buffer_type(), 0));
    if (buf == NULL) {
        setup_failed("zero-size buffer");
    }
    return wsp_ggml_backend_buffer_get_base(buf) == NULL ? 0 : 1;
}

/* an allocation no machine can satisfy: NULL, not a crash */
static int c_buft_alloc_buffer_huge(void) {
    return wsp_ggml_backend_buft_alloc_buffer(wsp_ggml_backend_cpu_buffer_type(), SIZE_MAX) != NULL;
}

/* more backends than a scheduler takes (16) */
static int c_sched_new_too_many_backends(void) {
    wsp_ggml_backend_t cpu = cpu_backend();
    wsp_ggml_backend_t backends[17];
    for (int i = 0; i < 17; i++) {
        backends[i] = cpu;
    }
    return wsp_ggml_backend_sched_new(backends, NULL, 17, 64, false, true) != NULL;
}

/* a graph larger than the scheduler's graph_size: the tables grow (the reference asserts) */
static int c_sched_graph_larger_than_graph_size(void) {
    struct wsp_ggml_context * ctx = new_ctx(true);
    struct wsp_ggml_tensor * x = wsp_ggml_new_tensor_1d(ctx, WSP_GGML_TYPE_F32, 4);
    wsp_ggml_set_input(x);
    struct wsp_ggml_tensor * cur = x;
    for (int i = 0; i < 100; i++) {
        cur = wsp_ggml_scale(ctx, cur, 0.5f);
    }
    struct wsp_ggml_cgraph * gf = wsp_ggml_new_graph(ctx);
    wsp_ggml_build_forward_expand(gf, cur);
    wsp_ggml_backend_t cpu = cpu_backend();
    wsp_ggml_backend_t backends[1] = { cpu };
    wsp_ggml_backend_sched_t sched = keep(wsp_ggml_backend_sched_new(backends, NULL, 1, 16, false, true));
    if (sched == NULL || !wsp_ggml_backend_sched_alloc_graph(sched, gf)) {
        return 1;
    }
    const float ones[4] = { 1, 1, 1, 1 };
    wsp_ggml_backend_tensor_set(x, ones, 0, sizeof(ones));
    if (wsp_ggml_backend_sched_graph_compute(sched, gf) != WSP_GGML_STATUS_SUCCESS) {
        return 1;
    }
    float out[4];
    wsp_ggml_backend_tensor_get(cur, out, 0, sizeof(out));
    return out[0] != ldexpf(1.0f, -100) ? 1 : 0;
}

static int c_init_by_name_unknown(void) {
    return wsp_ggml_backend_init_by_name("no-such-backend", NULL) == NULL ? 0 : 1;
}

/* out-of-range offsets and sizes (tensor is 16 bytes) */
static int c_tensor_set_oob(void)       { wsp_ggml_backend_tensor_set(cpu_tensor(), host_data, 8, 16); return 0; }
static int c_tensor_set_overflow(void)  { wsp_ggml_backend_tensor_set(cpu_tensor(), host_data, SIZE_MAX - 3, 8); return 0; }
static int c_tensor_get_oob(void)       { wsp_ggml_backend_tensor_get(cpu_tensor(), host_data, 8, 16); return 0; }
static int c_tensor_get_overflow(void)  { wsp_ggml_backend_tensor_get(cpu_tensor(), host_data, SIZE_MAX - 3, 8); return 0; }
static int c_tensor_memset_oob(void)    { wsp_ggml_backend_tensor_memset(cpu_tensor(), 0, 8, 16); return 0; }
static int c_tensor_memset_overflow(void) { wsp_ggml_backend_tensor_memset(cpu_tensor(), 0, SIZE_MAX - 3, 8); return 0; }

static int c_tensor_set_async_oob(void) {
    struct wsp_ggml_tensor * t = cpu_tensor();
    wsp_ggml_backend_t cpu = cpu_backend();
    wsp_ggml_backend_tensor_set_async(cpu, t, host_data, 8, 16);
    return 0;
}

static int c_tensor_get_async_oob(void) {
    struct wsp_ggml_tensor * t = cpu_tensor();
    wsp_ggml_backend_t cpu = cpu_backend();
    wsp_ggml_backend_tensor_get_async(cpu, t, host_data, 8, 16);
    return 0;
}

/* tensors without a buffer or without data */
static int c_tensor_set_unallocated(void) {
    struct wsp_ggml_tensor * t = unallocated_tensor(4);
    wsp_ggml_backend_tensor_set(t, host_data, 0, 4);
    return 0;
}

static int c_tensor_get_data_no_buffer(void) {
    /* a tensor from an allocating context: data points into the context, buffer is NULL */
    struct wsp_ggml_tensor * t = wsp_ggml_new_tensor_1d(new_ctx(false), WSP_GGML_TYPE_F32, 4);
    if (t->data == NULL || t->buffer != NULL) {
        setup_failed("tensor with data but no buffer");
    }
    wsp_ggml_backend_tensor_get(t, host_data, 0, 4);
    return 0;
}

static int c_tensor_set_buffer_no_data(void) {
    struct wsp_ggml_tensor * t = unallocated_tensor(4);
    t->buffer = cpu_buffer(64);
    wsp_ggml_backend_tensor_set(t, host_data, 0, 4);
    return 0;
}

/* out-of-range indices */
static int c_reg_get_out_of_range(void)  { return wsp_ggml_backend_reg_get(wsp_ggml_backend_reg_count()) != NULL; }
static int c_dev_get_out_of_range(void)  { return wsp_ggml_backend_dev_get(wsp_ggml_backend_dev_count()) != NULL; }

static int c_sched_get_backend_high(void) {
    wsp_ggml_backend_sched_t sched = cpu_sched(cpu_backend());
    return wsp_ggml_backend_sched_get_backend(sched, 1) != NULL;
}

static int c_sched_get_backend_negative(void) {
    wsp_ggml_backend_sched_t sched = cpu_sched(cpu_backend());
    return wsp_ggml_backend_sched_get_backend(sched, -1) != NULL;
}

static int c_sched_set_tensor_backend_foreign(void) {
    wsp_ggml_backend_sched_t sched = cpu_sched(cpu_backend());
    wsp_ggml_backend_t other = cpu_backend();   /* a second CPU backend, not given to the scheduler */
    struct wsp_ggml_tensor * node = unallocated_tensor(4);
    wsp_ggml_backend_sched_set_tensor_backend(sched, node, other);
    return 0;
}

static int c_sched_get_buffer_size_foreign(void) {
    wsp_ggml_backend_sched_t sched = cpu_sched(cpu_backend());
    wsp_ggml_backend_t other = cpu_backend();
    return wsp_ggml_backend_sched_get_buffer_size(sched, other) != 0;
}

/* an eval callback that calls back into the scheduler computing the graph: the getters may
 * (ctests/sched/sched_reentry.c); a call that would change or free it is refused: its error value,
 * or an abort with a message where it returns nothing */
enum reentry { REENTER_FREE, REENTER_RESET, REENTER_SET_BACKEND, REENTER_ALLOC, REENTER_RESERVE, REENTER_COMPUTE };
struct reentry_case {
    wsp_ggml_backend_sched_t sched;
    struct wsp_ggml_cgraph * graph;
    enum reentry             call;
    bool                     wrong;   /* a refused call's result was not its error value */
};

static bool reentering_eval(struct wsp_ggml_tensor * t, bool asking, void * user_data) {
    struct reentry_case * c = (struct reentry_case *) user_data;
    if (asking) {
        return true;
    }
    switch (c->call) {
        case REENTER_FREE:        wsp_ggml_backend_sched_free(c->sched); break;
        case REENTER_RESET:       wsp_ggml_backend_sched_reset(c->sched); break;
        case REENTER_SET_BACKEND: wsp_ggml_backend_sched_set_tensor_backend(c->sched, t, wsp_ggml_backend_sched_get_backend(c->sched, 0)); break;
        case REENTER_ALLOC:       c->wrong |= wsp_ggml_backend_sched_alloc_graph(c->sched, c->graph); break;
        case REENTER_RESERVE:     c->wrong |= wsp_ggml_backend_sched_reserve(c->sched, c->graph); break;
        case REENTER_COMPUTE:     c->wrong |= wsp_ggml_backend_sched_graph_compute(c->sched, c->graph) != WSP_GGML_STATUS_FAILED; break;
    }
    return true;
}

static int reenter(enum reentry call) {
    struct reentry_case c = { cpu_sched(cpu_backend()), small_graph(), call, false };
    wsp_ggml_backend_sched_set_eval_callback(c.sched, reentering_eval, &c);
    wsp_ggml_backend_sched_graph_compute(c.sched, c.graph);
    return c.wrong;
}

static int c_sched_free_from_eval(void)        { return reenter(REENTER_FREE); }
static int c_sched_reset_from_eval(void)       { return reenter(REENTER_RESET); }
static int c_sched_set_backend_from_eval(void) { return reenter(REENTER_SET_BACKEND); }
static int c_sched_alloc_from_eval(void)       { return reenter(REENTER_ALLOC); }
static int c_sched_reserve_from_eval(void)     { return reenter(REENTER_RESERVE); }
static int c_sched_compute_from_eval(void)     { return reenter(REENTER_COMPUTE); }

#if WSP_GGML_BACKEND_API_VERSION >= 2
/* the scheduler functions of backend API 2 */
#ifdef WSP_GGML_BACKEND_SCHED_RESERVE_SIZE
static size_t sizes[2];
#endif

static int c_sched_get_buffer_type_null(void) { return wsp_ggml_backend_sched_get_buffer_type(NULL, cpu_backend()) != NULL; }

static int c_sched_get_buffer_type_foreign(void) {
    wsp_ggml_backend_sched_t sched = cpu_sched(cpu_backend());
    wsp_ggml_backend_t other = cpu_backend();
    return wsp_ggml_backend_sched_get_buffer_type(sched, other) != NULL;
}

static int c_sched_get_buffer_type_null_backend(void) {
    return wsp_ggml_backend_sched_get_buffer_type(cpu_sched(cpu_backend()), NULL) != NULL;
}

#ifdef WSP_GGML_BACKEND_SCHED_RESERVE_SIZE
static int c_sched_reserve_size_null(void)    { wsp_ggml_backend_sched_reserve_size(NULL, small_graph(), sizes); return 0; }

static int c_sched_reserve_size_null_graph(void) {
    wsp_ggml_backend_sched_reserve_size(cpu_sched(cpu_backend()), NULL, sizes);
    return 0;
}

static int c_sched_reserve_size_null_sizes(void) {
    wsp_ggml_backend_sched_reserve_size(cpu_sched(cpu_backend()), small_graph(), NULL);
    return 0;
}
#endif

static int c_sched_split_graph_null(void)     { wsp_ggml_backend_sched_split_graph(NULL, small_graph()); return 0; }

static int c_sched_split_graph_null_graph(void) {
    wsp_ggml_backend_sched_split_graph(cpu_sched(cpu_backend()), NULL);
    return 0;
}
#endif

#ifdef WSP_GGML_BACKEND_META_MAX_DEVICES
/* whisper.rn 0.7's 2d tensor access (a CPU tensor holds 16 bytes) */
static int c_tensor_set_2d_null(void) { wsp_ggml_backend_tensor_set_2d(NULL, host_data, 0, 4, 2, 8, 4); return 0; }
static int c_tensor_get_2d_null(void) { wsp_ggml_backend_tensor_get_2d(NULL, host_data, 0, 4, 2, 8, 4); return 0; }

static int c_tensor_set_2d_async_null(void) {
    wsp_ggml_backend_tensor_set_2d_async(NULL, cpu_tensor(), host_data, 0, 4, 2, 8, 4);
    return 0;
}

static int c_tensor_get_2d_async_null_tensor(void) {
    wsp_ggml_backend_tensor_get_2d_async(cpu_backend(), NULL, host_data, 0, 4, 2, 8, 4);
    return 0;
}

static int c_tensor_set_2d_oob(void) { wsp_ggml_backend_tensor_set_2d(cpu_tensor(), host_data, 0, 8, 3, 8, 8); return 0; }
static int c_tensor_get_2d_oob(void) { wsp_ggml_backend_tensor_get_2d(cpu_tensor(), host_data, 4, 4, 2, 12, 4); return 0; }

/* a stride whose runs' end does not fit in an address */
static int c_tensor_set_2d_stride_overflow(void) {
    wsp_ggml_backend_tensor_set_2d(cpu_tensor(), host_data, 0, 4, 3, SIZE_MAX / 2, 4);
    return 0;
}

static int c_tensor_set_2d_async_oob(void) {
    wsp_ggml_backend_tensor_set_2d_async(cpu_backend(), cpu_tensor(), host_data, 0, 8, 3, 8, 8);
    return 0;
}

static int c_tensor_get_2d_async_oob(void) {
    wsp_ggml_backend_tensor_get_2d_async(cpu_backend(), cpu_tensor(), host_data, 12, 8, 2, 0, 8);
    return 0;
}

static int c_tensor_set_2d_unallocated(void) {
    wsp_ggml_backend_tensor_set_2d(unallocated_tensor(4), host_data, 0, 4, 2, 8, 4);
    return 0;
}

static int c_tensor_get_2d_async_unallocated(void) {
    wsp_ggml_backend_tensor_get_2d_async(cpu_backend(), unallocated_tensor(4), host_data, 0, 4, 2, 8, 4);
    return 0;
}
#endif

/* tensor_alloc / view_init misuse */
static int c_tensor_alloc_past_end(void) {
    wsp_ggml_backend_buffer_t buf = cpu_buffer(64);
    struct wsp_ggml_tensor * t = unallocated_tensor(4);     /* 16 bytes at base+56 ends at base+72 */
    char * base = wsp_ggml_backend_buffer_get_base(buf);
    return wsp_ggml_backend_tensor_alloc(buf, t, base + 56) != WSP_GGML_STATUS_FAILED;
}

static int c_tensor_alloc_before_base(void) {
    wsp_ggml_backend_buffer_t buf = cpu_buffer(64);
    struct wsp_ggml_tensor * t = unallocated_tensor(4);
    uintptr_t base = (uintptr_t) wsp_ggml_backend_buffer_get_base(buf);
    return wsp_ggml_backend_tensor_alloc(buf, t, (void *) (base - 32)) != WSP_GGML_STATUS_FAILED;
}

static int c_tensor_alloc_twice(void) {
    struct wsp_ggml_tensor * t = cpu_tensor();
    return wsp_ggml_backend_tensor_alloc(t->buffer, t, t->data) != WSP_GGML_STATUS_FAILED;
}

static int c_view_init_not_a_view(void) {
    return wsp_ggml_backend_view_init(unallocated_tensor(4)) != WSP_GGML_STATUS_FAILED;
}

static int c_cpu_buffer_from_ptr_misaligned(void) {
    return wsp_ggml_backend_cpu_buffer_from_ptr(raw_mem + 1, 128) != NULL;
}

/* missing optional interface entries */
static int c_graph_plan_create_missing(void) {
    wsp_ggml_backend_t bare = bare_backend();
    struct wsp_ggml_cgraph * gf = small_graph();
    return wsp_ggml_backend_graph_plan_create(bare, gf) != NULL;
}

static int c_graph_plan_free_missing(void) {
    wsp_ggml_backend_graph_plan_free(bare_backend(), (wsp_ggml_backend_graph_plan_t) raw_mem);
    return 0;
}

static int c_graph_plan_compute_missing(void) {
    return wsp_ggml_backend_graph_plan_compute(bare_backend(), (wsp_ggml_backend_graph_plan_t) raw_mem) != WSP_GGML_STATUS_FAILED;
}

static int c_event_record_missing(void) {
    wsp_ggml_backend_event_t ev = cpu_event();
    wsp_ggml_backend_t cpu = cpu_backend();
    wsp_ggml_backend_event_record(ev, cpu);
    return 0;
}

static int c_event_wait_missing(void) {
    wsp_ggml_backend_event_t ev = cpu_event();
    wsp_ggml_backend_t cpu = cpu_backend();
    wsp_ggml_backend_event_wait(cpu, ev);
    return 0;
}

static int c_event_synchronize_missing(void) {
    wsp_ggml_backend_event_synchronize(cpu_event());
    return 0;
}

static int c_tensor_memset_missing(void) {
    struct wsp_ggml_tensor * t = unallocated_tensor(4);
    t->buffer = nomemset_buffer();
    t->data   = raw_mem;
    wsp_ggml_backend_tensor_memset(t, 0, 0, 4);
    return 0;
}

/* ---- every export with an error channel: its error value (checked) for each kind of bad input ---- */

/* a graph whose tensors have no data */
static struct wsp_ggml_cgraph * unallocated_graph(void) {
    struct wsp_ggml_context * ctx = new_ctx(true);
    struct wsp_ggml_tensor * a = wsp_ggml_new_tensor_1d(ctx, WSP_GGML_TYPE_F32, 4);
    struct wsp_ggml_cgraph * gf = wsp_ggml_new_graph(ctx);
    wsp_ggml_build_forward_expand(gf, wsp_ggml_add(ctx, a, a));
    return gf;
}

static int graph_copy_made(struct wsp_ggml_backend_graph_copy copy) {
    return copy.buffer != NULL || copy.ctx_allocated != NULL || copy.ctx_unallocated != NULL || copy.graph != NULL;
}

static bool compare_pair(int i, struct wsp_ggml_tensor * t1, struct wsp_ggml_tensor * t2, void * user_data) {
    (void) i;
    (void) t1;
    (void) t2;
    (void) user_data;
    return true;
}

/* compare_graph_backend in every family's form, comparing every node */
static bool compare_all(wsp_ggml_backend_t b1, wsp_ggml_backend_t b2, struct wsp_ggml_cgraph * g, wsp_ggml_backend_eval_callback cb) {
#ifdef WSP_GGML_BACKEND_COMPARE_TEST_NODES
    return wsp_ggml_backend_compare_graph_backend(b1, b2, g, cb, NULL, NULL, 0);
#else
    return wsp_ggml_backend_compare_graph_backend(b1, b2, g, cb, NULL, NULL);
#endif
}

/* backends */
static int c_get_alignment_null(void)               { return wsp_ggml_backend_get_alignment(NULL) != 0; }
static int c_get_max_size_null(void)                { return wsp_ggml_backend_get_max_size(NULL) != 0; }
static int c_graph_plan_create_null(void)           { return wsp_ggml_backend_graph_plan_create(NULL, small_graph()) != NULL; }
static int c_graph_plan_create_null_graph(void)     { return wsp_ggml_backend_graph_plan_create(cpu_backend(), NULL) != NULL; }
static int c_graph_plan_compute_null(void) {
    return wsp_ggml_backend_graph_plan_compute(NULL, (wsp_ggml_backend_graph_plan_t) raw_mem) != WSP_GGML_STATUS_FAILED;
}
static int c_graph_compute_async_null_backend(void) { return wsp_ggml_backend_graph_compute_async(NULL, small_graph()) != WSP_GGML_STATUS_FAILED; }
static int c_graph_compute_async_null_graph(void)   { return wsp_ggml_backend_graph_compute_async(cpu_backend(), NULL) != WSP_GGML_STATUS_FAILED; }
static int c_supports_op_null(void)                 { return wsp_ggml_backend_supports_op(NULL, cpu_tensor()); }
static int c_supports_op_null_op(void)              { return wsp_ggml_backend_supports_op(cpu_backend(), NULL); }
static int c_supports_buft_null(void)               { return wsp_ggml_backend_supports_buft(NULL, wsp_ggml_backend_cpu_buffer_type()); }
static int c_supports_buft_null_buft(void)          { return wsp_ggml_backend_supports_buft(cpu_backend(), NULL); }
static int c_offload_op_null(void)                  { return wsp_ggml_backend_offload_op(NULL, cpu_tensor()); }
static int c_offload_op_null_op(void)               { return wsp_ggml_backend_offload_op(cpu_backend(), NULL); }
static int c_get_device_null(void)                  { return wsp_ggml_backend_get_device(NULL) != NULL; }

/* buffers and buffer types */
static int c_buffer_name_null(void)                 { return wsp_ggml_backend_buffer_name(NULL) != NULL; }
static int c_buffer_init_tensor_null(void)          { return wsp_ggml_backend_buffer_init_tensor(NULL, cpu_tensor()) != WSP_GGML_STATUS_FAILED; }
static int c_buffer_init_tensor_null_tensor(void)   { return wsp_ggml_backend_buffer_init_tensor(cpu_buffer(64), NULL) != WSP_GGML_STATUS_FAILED; }
static int c_buffer_get_alignment_null(void)        { return wsp_ggml_backend_buffer_get_alignment(NULL) != 0; }
static int c_buffer_get_max_size_null(void)         { return wsp_ggml_backend_buffer_get_max_size(NULL) != 0; }
static int c_buffer_get_alloc_size_null(void)       { return wsp_ggml_backend_buffer_get_alloc_size(NULL, cpu_tensor()) != 0; }
static int c_buffer_get_alloc_size_null_tensor(void) { return wsp_ggml_backend_buffer_get_alloc_size(cpu_buffer(64), NULL) != 0; }
static int c_buffer_is_host_null(void)              { return wsp_ggml_backend_buffer_is_host(NULL); }
static int c_buffer_get_usage_null(void)            { return wsp_ggml_backend_buffer_get_usage(NULL) != WSP_GGML_BACKEND_BUFFER_USAGE_ANY; }
static int c_buffer_get_type_null(void)             { return wsp_ggml_backend_buffer_get_type(NULL) != NULL; }
static int c_buffer_copy_tensor_null_src(void)      { return wsp_ggml_backend_buffer_copy_tensor(NULL, cpu_tensor()); }
static int c_buffer_copy_tensor_null_dst(void)      { return wsp_ggml_backend_buffer_copy_tensor(cpu_tensor(), NULL); }
static int c_multi_buffer_alloc_null(void)          { return wsp_ggml_backend_multi_buffer_alloc_buffer(NULL, 2) != NULL; }
static int c_multi_buffer_alloc_null_element(void) {
    wsp_ggml_backend_buffer_t parts[2] = { cpu_buffer(64), NULL };
    return wsp_ggml_backend_multi_buffer_alloc_buffer(parts, 2) != NULL;
}
static int c_buffer_is_multi_buffer_null(void)      { return wsp_ggml_backend_buffer_is_multi_buffer(NULL); }
static int c_cpu_buffer_from_ptr_null(void)         { return wsp_ggml_backend_cpu_buffer_from_ptr(NULL, 128) != NULL; }
static int c_buft_get_max_size_null(void)           { return wsp_ggml_backend_buft_get_max_size(NULL) != 0; }
static int c_buft_get_alloc_size_null(void)         { return wsp_ggml_backend_buft_get_alloc_size(NULL, cpu_tensor()) != 0; }
static int c_buft_get_alloc_size_null_tensor(void)  { return wsp_ggml_backend_buft_get_alloc_size(wsp_ggml_backend_cpu_buffer_type(), NULL) != 0; }
static int c_buft_is_host_null(void)                { return wsp_ggml_backend_buft_is_host(NULL); }
static int c_buft_get_device_null(void)             { return wsp_ggml_backend_buft_get_device(NULL) != NULL; }

/* devices and regs */
static int c_dev_description_null(void)             { return wsp_ggml_backend_dev_description(NULL) != NULL; }
static int c_dev_type_null(void)                    { return wsp_ggml_backend_dev_type(NULL) != WSP_GGML_BACKEND_DEVICE_TYPE_CPU; }
static int c_dev_backend_reg_null(void)             { return wsp_ggml_backend_dev_backend_reg(NULL) != NULL; }
static int c_dev_buffer_type_null(void)             { return wsp_ggml_backend_dev_buffer_type(NULL) != NULL; }
static int c_dev_host_buffer_type_null(void)        { return wsp_ggml_backend_dev_host_buffer_type(NULL) != NULL; }
static int c_dev_buffer_from_host_ptr_null(void) {
    return wsp_ggml_backend_dev_buffer_from_host_ptr(NULL, raw_mem, sizeof(raw_mem), sizeof(raw_mem)) != NULL;
}
static int c_dev_supports_op_null(void)             { return wsp_ggml_backend_dev_supports_op(NULL, cpu_tensor()); }
static int c_dev_supports_op_null_op(void)          { return wsp_ggml_backend_dev_supports_op(cpu_device(), NULL); }
static int c_dev_supports_buft_null(void)           { return wsp_ggml_backend_dev_supports_buft(NULL, wsp_ggml_backend_cpu_buffer_type()); }
static int c_dev_supports_buft_null_buft(void)      { return wsp_ggml_backend_dev_supports_buft(cpu_device(), NULL); }
static int c_dev_offload_op_null(void)              { return wsp_ggml_backend_dev_offload_op(NULL, cpu_tensor()); }
static int c_dev_offload_op_null_op(void)           { return wsp_ggml_backend_dev_offload_op(cpu_device(), NULL); }
static int c_reg_dev_get_null(void)                 { return wsp_ggml_backend_reg_dev_get(NULL, 0) != NULL; }
static int c_reg_dev_get_out_of_range(void)         { return wsp_ggml_backend_reg_dev_get(wsp_ggml_backend_cpu_reg(), 1) != NULL; }
static int c_reg_get_proc_address_null(void)        { return wsp_ggml_backend_reg_get_proc_address(NULL, "x") != NULL; }
static int c_dev_by_type_unknown(void)              { return wsp_ggml_backend_dev_by_type((enum wsp_ggml_backend_dev_type) 99) != NULL; }
static int c_init_by_name_null(void)                { return wsp_ggml_backend_init_by_name(NULL, NULL) != NULL; }
static int c_init_by_type_unknown(void)             { return wsp_ggml_backend_init_by_type((enum wsp_ggml_backend_dev_type) 99, NULL) != NULL; }
static int c_load_null(void)                        { return wsp_ggml_backend_load(NULL) != NULL; }
static int c_load_missing(void)                     { return wsp_ggml_backend_load("/nonexistent/libno-such-backend.so") != NULL; }

/* placing tensors, graph copy and compare */
static int c_tensor_alloc_null_tensor(void)         { return wsp_ggml_backend_tensor_alloc(cpu_buffer(64), NULL, raw_mem) != WSP_GGML_STATUS_FAILED; }
static int c_graph_copy_null(void)                  { return graph_copy_made(wsp_ggml_backend_graph_copy(NULL, small_graph())); }
static int c_graph_copy_null_graph(void)            { return graph_copy_made(wsp_ggml_backend_graph_copy(cpu_backend(), NULL)); }
static int c_graph_copy_unallocated(void)           { return graph_copy_made(wsp_ggml_backend_graph_copy(cpu_backend(), unallocated_graph())); }
static int c_compare_null_backend(void)             { return compare_all(NULL, cpu_backend(), small_graph(), compare_pair); }
static int c_compare_null_graph(void)               { return compare_all(cpu_backend(), cpu_backend(), NULL, compare_pair); }
static int c_compare_null_callback(void)            { return compare_all(cpu_backend(), cpu_backend(), small_graph(), NULL); }

/* the scheduler */
static int c_sched_new_null_element(void) {
    wsp_ggml_backend_t backends[2] = { NULL, cpu_backend() };
    return wsp_ggml_backend_sched_new(backends, NULL, 2, 64, false, true) != NULL;
}
static int c_sched_reserve_null(void)               { return wsp_ggml_backend_sched_reserve(NULL, small_graph()); }
static int c_sched_reserve_null_graph(void)         { return wsp_ggml_backend_sched_reserve(cpu_sched(cpu_backend()), NULL); }
static int c_sched_get_n_backends_null(void)        { return wsp_ggml_backend_sched_get_n_backends(NULL) != 0; }
static int c_sched_get_backend_null(void)           { return wsp_ggml_backend_sched_get_backend(NULL, 0) != NULL; }
static int c_sched_get_n_splits_null(void)          { return wsp_ggml_backend_sched_get_n_splits(NULL) != 0; }
static int c_sched_get_n_copies_null(void)          { return wsp_ggml_backend_sched_get_n_copies(NULL) != 0; }
static int c_sched_get_buffer_size_null(void)       { return wsp_ggml_backend_sched_get_buffer_size(NULL, cpu_backend()) != 0; }
static int c_sched_get_buffer_size_null_backend(void) { return wsp_ggml_backend_sched_get_buffer_size(cpu_sched(cpu_backend()), NULL) != 0; }
static int c_sched_get_tensor_backend_null(void)    { return wsp_ggml_backend_sched_get_tensor_backend(NULL, cpu_tensor()) != NULL; }
static int c_sched_alloc_graph_null(void)           { return wsp_ggml_backend_sched_alloc_graph(NULL, small_graph()); }
static int c_sched_alloc_graph_null_graph(void)     { return wsp_ggml_backend_sched_alloc_graph(cpu_sched(cpu_backend()), NULL); }
static int c_sched_graph_compute_null(void)         { return wsp_ggml_backend_sched_graph_compute(NULL, small_graph()) != WSP_GGML_STATUS_FAILED; }
static int c_sched_graph_compute_null_graph(void) {
    return wsp_ggml_backend_sched_graph_compute(cpu_sched(cpu_backend()), NULL) != WSP_GGML_STATUS_FAILED;
}
static int c_sched_graph_compute_async_null(void)   { return wsp_ggml_backend_sched_graph_compute_async(NULL, small_graph()) != WSP_GGML_STATUS_FAILED; }
static int c_sched_graph_compute_async_null_graph(void) {
    return wsp_ggml_backend_sched_graph_compute_async(cpu_sched(cpu_backend()), NULL) != WSP_GGML_STATUS_FAILED;
}

/* layout mismatch */
static int c_tensor_copy_layouts(void) {
    struct wsp_ggml_tensor * a;
    struct wsp_ggml_tensor * b;
    cpu_tensors(4, &a, 8, &b);
    wsp_ggml_backend_tensor_copy(a, b);
    return 0;
}

#ifdef WSP_GGML_BACKEND_META_MAX_DEVICES
/* the meta backend of whisper.rn 0.7 */
static int c_meta_split_axis_name_invalid(void) {
    return wsp_ggml_backend_meta_split_axis_name((enum wsp_ggml_backend_meta_split_axis) 42) != NULL;
}
static int c_meta_is_meta_null(void)        { return wsp_ggml_backend_is_meta(NULL); }
static int c_meta_buffer_is_meta_null(void) { return wsp_ggml_backend_buffer_is_meta(NULL); }
static int c_meta_buft_is_meta_null(void)   { return wsp_ggml_backend_buft_is_meta(NULL); }
static int c_meta_is_meta_cpu(void) {
    return wsp_ggml_backend_is_meta(cpu_backend()) || wsp_ggml_backend_buft_is_meta(wsp_ggml_backend_dev_buffer_type(cpu_device()));
}
static int c_meta_device_null_devs(void)    { return wsp_ggml_backend_meta_device(NULL, 2, NULL, NULL) != NULL; }
static int c_meta_device_too_many(void) {
    wsp_ggml_backend_dev_t devs[17];
    for (int i = 0; i < 17; i++) {
        devs[i] = cpu_device();
    }
    return wsp_ggml_backend_meta_device(devs, 17, NULL, NULL) != NULL;
}
static int c_meta_device_null_element(void) {
    wsp_ggml_backend_dev_t devs[2] = { cpu_device(), NULL };
    return wsp_ggml_backend_meta_device(devs, 2, NULL, NULL) != NULL;
}
static wsp_ggml_backend_t meta_backend(void) {
    wsp_ggml_backend_dev_t devs[2] = { cpu_device(), cpu_device() };
    wsp_ggml_backend_t mb = wsp_ggml_backend_dev_init(wsp_ggml_backend_meta_device(devs, 2, NULL, NULL), NULL);
    if (mb == NULL) {
        setup_failed("meta backend");
    }
    return keep(mb);
}
static int c_meta_n_backends_null(void)     { return wsp_ggml_backend_meta_n_backends(NULL) != 0; }
static int c_meta_n_backends_not_meta(void) { return wsp_ggml_backend_meta_n_backends(cpu_backend()) != 0; }
static int c_meta_simple_backend_null(void) { return wsp_ggml_backend_meta_simple_backend(NULL, 0) != NULL; }
static int c_meta_simple_backend_out_of_range(void) { return wsp_ggml_backend_meta_simple_backend(meta_backend(), 2) != NULL; }
static int c_meta_alloc_ctx_null_ctx(void) {
    wsp_ggml_backend_dev_t devs[1] = { cpu_device() };
    wsp_ggml_backend_buffer_type_t buft = wsp_ggml_backend_dev_buffer_type(wsp_ggml_backend_meta_device(devs, 1, NULL, NULL));
    return wsp_ggml_backend_meta_alloc_ctx_tensors_from_buft(NULL, buft) != NULL;
}
static struct wsp_ggml_context * one_tensor_ctx(void) {
    struct wsp_ggml_init_params params = { 4 * wsp_ggml_tensor_overhead(), NULL, true };
    struct wsp_ggml_context * ctx = wsp_ggml_init(params);
    wsp_ggml_new_tensor_1d(ctx, WSP_GGML_TYPE_F32, 4);
    return keep(ctx);
}
static int c_meta_alloc_ctx_null_buft(void) { return wsp_ggml_backend_meta_alloc_ctx_tensors_from_buft(one_tensor_ctx(), NULL) != NULL; }
static int c_meta_alloc_ctx_not_meta(void) {
    return wsp_ggml_backend_meta_alloc_ctx_tensors_from_buft(one_tensor_ctx(), wsp_ggml_backend_dev_buffer_type(cpu_device())) != NULL;
}
/* A refused allocation leaves the context's tensors unallocated. */
static int refused_ctx_alloc(struct wsp_ggml_context * ctx, wsp_ggml_backend_buffer_type_t buft) {
    return wsp_ggml_backend_alloc_ctx_tensors_from_buft(ctx, buft) != NULL || wsp_ggml_get_first_tensor(ctx)->buffer != NULL ||
           wsp_ggml_get_first_tensor(ctx)->data != NULL;
}
static int c_meta_alloc_ctx_no_callback(void) {
    wsp_ggml_backend_dev_t devs[1] = { cpu_device() };
    return refused_ctx_alloc(one_tensor_ctx(), wsp_ggml_backend_dev_buffer_type(wsp_ggml_backend_meta_device(devs, 1, NULL, NULL)));
}
/* A softmax over a weight whose rows are split along axis 0 (columns 2 + 2 of 4) on a meta
 * device over two CPU devices: each device would normalise its half alone (the reference's rows
 * then sum to 2). */
static struct wsp_ggml_backend_meta_split_state split_columns(const struct wsp_ggml_tensor * t, void * userdata) {
    (void) t;
    (void) userdata;
    struct wsp_ggml_backend_meta_split_state s;
    memset(&s, 0, sizeof(s));
    s.axis = WSP_GGML_BACKEND_SPLIT_AXIS_0;
    s.ne[0] = 2;
    s.ne[1] = 2;
    s.n_segments = 1;
#ifdef WSP_GGML_BACKEND_META_NR
    s.nr[0] = 1;
#endif
    return s;
}
static int c_meta_softmax_across_split(void) {
    wsp_ggml_backend_dev_t devs[2] = { cpu_device(), cpu_device() };
    wsp_ggml_backend_dev_t meta = wsp_ggml_backend_meta_device(devs, 2, split_columns, NULL);
    wsp_ggml_backend_buffer_type_t buft = wsp_ggml_backend_dev_buffer_type(meta);
    struct wsp_ggml_context * wctx = one_tensor_ctx();
    struct wsp_ggml_tensor * w = wsp_ggml_get_first_tensor(wctx);
    keep(wsp_ggml_backend_alloc_ctx_tensors_from_buft(wctx, buft));
    const float v[4] = { 1.0f, 2.0f, 3.0f, 4.0f };
    wsp_ggml_backend_tensor_set(w, v, 0, sizeof(v));
    struct wsp_ggml_init_params params = { 4 * wsp_ggml_tensor_overhead() + wsp_ggml_graph_overhead(), NULL, true };
    struct wsp_ggml_context * gctx = keep(wsp_ggml_init(params));
    struct wsp_ggml_cgraph * gf = wsp_ggml_new_graph(gctx);
    wsp_ggml_build_forward_expand(gf, wsp_ggml_soft_max(gctx, w));
    wsp_ggml_gallocr_t galloc = keep(wsp_ggml_gallocr_new(buft));
    if (!wsp_ggml_gallocr_alloc_graph(galloc, gf)) {
        setup_failed("softmax graph");
    }
    wsp_ggml_backend_t mb = keep(wsp_ggml_backend_dev_init(meta, NULL));
    return wsp_ggml_backend_graph_compute(mb, gf) != WSP_GGML_STATUS_FAILED;
}
/* A fused weight [4, 6] (q, k and v in three segments, one row of each per device) times a
 * MIRRORED input, reshaped into heads of two rows: each device holds half of every head, which
 * no split state of the heads describes (the reference asserts on the ratio). */
static struct wsp_ggml_backend_meta_split_state split_fused_rows(const struct wsp_ggml_tensor * t, void * userdata) {
    (void) userdata;
    struct wsp_ggml_backend_meta_split_state s;
    memset(&s, 0, sizeof(s));
    s.axis = WSP_GGML_BACKEND_SPLIT_AXIS_MIRRORED;
    s.n_segments = 1;
#ifdef WSP_GGML_BACKEND_META_NR
    s.nr[0] = 1;
#endif
    if (strcmp(t->name, "qkv") == 0) {
        s.axis = WSP_GGML_BACKEND_SPLIT_AXIS_1;
        s.n_segments = 3;
        for (int i = 0; i < 6; i++) {
            s.ne[i] = 1;
        }
#ifdef WSP_GGML_BACKEND_META_NR
        s.nr[1] = 1;
        s.nr[2] = 1;
#endif
    }
    return s;
}
/* Computes the node `make` builds from the fused weight qkv [4, 6] and x [4, 1], on a meta
 * device over two CPU devices: the meta backend's status. */
static enum wsp_ggml_status compute_fused(struct wsp_ggml_tensor * (*make)(struct wsp_ggml_context *, struct wsp_ggml_tensor *,
                                                           struct wsp_ggml_tensor *)) {
    wsp_ggml_backend_dev_t devs[2] = { cpu_device(), cpu_device() };
    wsp_ggml_backend_dev_t meta = wsp_ggml_backend_meta_device(devs, 2, split_fused_rows, NULL);
    wsp_ggml_backend_buffer_type_t buft = wsp_ggml_backend_dev_buffer_type(meta);
    struct wsp_ggml_init_params wparams = { 2 * wsp_ggml_tensor_overhead(), NULL, true };
    struct wsp_ggml_context * wctx = keep(wsp_ggml_init(wparams));
    struct wsp_ggml_tensor * qkv = wsp_ggml_new_tensor_2d(wctx, WSP_GGML_TYPE_F32, 4, 6);
    wsp_ggml_set_name(qkv, "qkv");
    struct wsp_ggml_tensor * x = wsp_ggml_new_tensor_2d(wctx, WSP_GGML_TYPE_F32, 4, 1);
    wsp_ggml_set_name(x, "x");
    keep(wsp_ggml_backend_alloc_ctx_tensors_from_buft(wctx, buft));
    struct wsp_ggml_init_params params = { 4 * wsp_ggml_tensor_overhead() + wsp_ggml_graph_overhead(), NULL, true };
    struct wsp_ggml_context * gctx = keep(wsp_ggml_init(params));
    struct wsp_ggml_cgraph * gf = wsp_ggml_new_graph(gctx);
    wsp_ggml_build_forward_expand(gf, make(gctx, qkv, x));
    wsp_ggml_gallocr_t galloc = keep(wsp_ggml_gallocr_new(buft));
    if (!wsp_ggml_gallocr_alloc_graph(galloc, gf)) {
        setup_failed("fused weight graph");
    }
    wsp_ggml_backend_t mb = keep(wsp_ggml_backend_dev_init(meta, NULL));
    return wsp_ggml_backend_graph_compute(mb, gf);
}
static struct wsp_ggml_tensor * fused_heads(struct wsp_ggml_context * ctx, struct wsp_ggml_tensor * qkv,
                                            struct wsp_ggml_tensor * x) {
    struct wsp_ggml_tensor * heads = wsp_ggml_reshape_3d(ctx, wsp_ggml_mul_mat(ctx, qkv, x), 2, 3, 1);
    return wsp_ggml_scale(ctx, heads, 2.0f);
}
static int c_meta_reshape_cuts_segments(void) {
    return compute_fused(fused_heads) != WSP_GGML_STATUS_FAILED;
}
/* Rows 1-2 of the fused weight (device 1's row of q, device 0's of k), made contiguous: no
 * split state describes them (the reference aborts on contiguous views of part of the fused
 * weight, "shape mismatch for VIEW"; on other partial views it scales each device's part and
 * offset to its share). */
static struct wsp_ggml_tensor * rows_1_2(struct wsp_ggml_context * ctx, struct wsp_ggml_tensor * qkv,
                                         struct wsp_ggml_tensor * x) {
    (void) x;
    return wsp_ggml_cont(ctx, wsp_ggml_view_2d(ctx, qkv, 4, 2, qkv->nb[1], qkv->nb[1]));
}
static int c_meta_view_across_segments(void) {
    return compute_fused(rows_1_2) != WSP_GGML_STATUS_FAILED;
}
/* A meta buffer whose part on a simple device cannot be allocated: no meta buffer. */
static int c_meta_buft_alloc_buffer_huge(void) {
    wsp_ggml_backend_dev_t devs[2] = { cpu_device(), cpu_device() };
    wsp_ggml_backend_buffer_type_t buft = wsp_ggml_backend_dev_buffer_type(wsp_ggml_backend_meta_device(devs, 2, NULL, NULL));
    return wsp_ggml_backend_buft_alloc_buffer(buft, SIZE_MAX) != NULL;
}
/* A context whose MIRRORED tensor (three quarters of the address space) no simple device has
 * room for: no meta buffer, and the tensor left unallocated. */
static int c_meta_alloc_ctx_part_fails(void) {
    wsp_ggml_backend_dev_t devs[2] = { cpu_device(), cpu_device() };
    wsp_ggml_backend_buffer_type_t buft = wsp_ggml_backend_dev_buffer_type(wsp_ggml_backend_meta_device(devs, 2, split_fused_rows, NULL));
    struct wsp_ggml_init_params params = { wsp_ggml_tensor_overhead(), NULL, true };
    struct wsp_ggml_context * ctx = keep(wsp_ggml_init(params));
    wsp_ggml_new_tensor_1d(ctx, WSP_GGML_TYPE_F32, (int64_t) (SIZE_MAX / 16 * 3));
    return refused_ctx_alloc(ctx, buft);
}
#endif

/* ------------------------------------------------------------------------ */

struct bad_case {
    const char * name;
    const char * outcome;   /* "abort"; "error": an error value is returned (checked by the case) with a message; or "ok" */
    const char * function;  /* the export the bad call goes to */
    const char * expect;    /* substring of the library's stderr/log output */
    int (*run)(void);
};

#define FN(fn) #fn
#define NULLMSG(fn, param) #fn ": " #param " is NULL"

#ifdef WSP_GGML_BACKEND_OP_ALLOC_SIZE_MAY_EXPAND
/* plain ggml 0.3.36: an op number past ggml.h's may not expand (the reference's switch says no) */
static int c_op_alloc_size_may_expand_unknown(void) {
    return wsp_ggml_op_alloc_size_may_expand((enum wsp_ggml_op) 100000);
}
#endif
#ifdef WSP_GGML_BACKEND_META_SET_USAGE
static int c_meta_buffer_set_usage_not_meta(void) {
    wsp_ggml_backend_meta_buffer_set_usage(cpu_buffer(64), WSP_GGML_BACKEND_BUFFER_USAGE_WEIGHTS);
    return 0;
}
#endif

static const struct bad_case cases[] = {
    /* NULL handles */
    { "buft_name_null", "error", FN(wsp_ggml_backend_buft_name), NULLMSG(wsp_ggml_backend_buft_name, buft), c_buft_name_null },
    { "buft_alloc_buffer_null", "error", FN(wsp_ggml_backend_buft_alloc_buffer), NULLMSG(wsp_ggml_backend_buft_alloc_buffer, buft), c_buft_alloc_buffer_null },
    { "buft_get_alignment_null", "error", FN(wsp_ggml_backend_buft_get_alignment), NULLMSG(wsp_ggml_backend_buft_get_alignment, buft), c_buft_get_alignment_null },
    { "buffer_get_size_null", "error", FN(wsp_ggml_backend_buffer_get_size), NULLMSG(wsp_ggml_backend_buffer_get_size, buffer), c_buffer_get_size_null },
    { "buffer_get_base_null", "error", FN(wsp_ggml_backend_buffer_get_base), NULLMSG(wsp_ggml_backend_buffer_get_base, buffer), c_buffer_get_base_null },
    { "buffer_clear_null", "abort", FN(wsp_ggml_backend_buffer_clear), NULLMSG(wsp_ggml_backend_buffer_clear, buffer), c_buffer_clear_null },
    { "buffer_set_usage_null", "abort", FN(wsp_ggml_backend_buffer_set_usage), NULLMSG(wsp_ggml_backend_buffer_set_usage, buffer), c_buffer_set_usage_null },
    { "get_default_buft_null", "error", FN(wsp_ggml_backend_get_default_buffer_type), NULLMSG(wsp_ggml_backend_get_default_buffer_type, backend), c_get_default_buft_null },
    { "backend_alloc_buffer_null", "error", FN(wsp_ggml_backend_alloc_buffer), NULLMSG(wsp_ggml_backend_alloc_buffer, backend), c_backend_alloc_buffer_null },
    { "synchronize_null", "abort", FN(wsp_ggml_backend_synchronize), NULLMSG(wsp_ggml_backend_synchronize, backend), c_synchronize_null },
    { "graph_compute_null_backend", "error", FN(wsp_ggml_backend_graph_compute), NULLMSG(wsp_ggml_backend_graph_compute, backend), c_graph_compute_null_backend },
    { "graph_compute_null_graph", "error", FN(wsp_ggml_backend_graph_compute), NULLMSG(wsp_ggml_backend_graph_compute, cgraph), c_graph_compute_null_graph },
    { "dev_name_null", "error", FN(wsp_ggml_backend_dev_name), NULLMSG(wsp_ggml_backend_dev_name, device), c_dev_name_null },
    { "dev_init_null", "error", FN(wsp_ggml_backend_dev_init), NULLMSG(wsp_ggml_backend_dev_init, device), c_dev_init_null },
    { "dev_get_props_null_props", "abort", FN(wsp_ggml_backend_dev_get_props), NULLMSG(wsp_ggml_backend_dev_get_props, props), c_dev_get_props_null },
    { "reg_name_null", "error", FN(wsp_ggml_backend_reg_name), NULLMSG(wsp_ggml_backend_reg_name, reg), c_reg_name_null },
    { "reg_dev_count_null", "error", FN(wsp_ggml_backend_reg_dev_count), NULLMSG(wsp_ggml_backend_reg_dev_count, reg), c_reg_dev_count_null },
    { "reg_by_name_null", "error", FN(wsp_ggml_backend_reg_by_name), NULLMSG(wsp_ggml_backend_reg_by_name, name), c_reg_by_name_null },
    { "dev_by_name_null", "error", FN(wsp_ggml_backend_dev_by_name), NULLMSG(wsp_ggml_backend_dev_by_name, name), c_dev_by_name_null },
    { "event_record_null_event", "abort", FN(wsp_ggml_backend_event_record), NULLMSG(wsp_ggml_backend_event_record, event), c_event_record_null },
    { "tensor_set_null", "abort", FN(wsp_ggml_backend_tensor_set), NULLMSG(wsp_ggml_backend_tensor_set, tensor), c_tensor_set_null },
    { "tensor_get_null", "abort", FN(wsp_ggml_backend_tensor_get), NULLMSG(wsp_ggml_backend_tensor_get, tensor), c_tensor_get_null },
    { "tensor_memset_null", "abort", FN(wsp_ggml_backend_tensor_memset), NULLMSG(wsp_ggml_backend_tensor_memset, tensor), c_tensor_memset_null },
    { "tensor_copy_null_src", "abort", FN(wsp_ggml_backend_tensor_copy), NULLMSG(wsp_ggml_backend_tensor_copy, src), c_tensor_copy_null_src },
    { "tensor_alloc_null_buffer", "error", FN(wsp_ggml_backend_tensor_alloc), NULLMSG(wsp_ggml_backend_tensor_alloc, buffer), c_tensor_alloc_null_buffer },
    { "view_init_null", "error", FN(wsp_ggml_backend_view_init), NULLMSG(wsp_ggml_backend_view_init, tensor), c_view_init_null },
    { "sched_new_null_backends", "error", FN(wsp_ggml_backend_sched_new), NULLMSG(wsp_ggml_backend_sched_new, backends), c_sched_new_null_backends },

    /* NULL-safe functions and no-ops */
    { "buffer_free_null", "ok", FN(wsp_ggml_backend_buffer_free), "", c_buffer_free_null },
    { "backend_free_null", "ok", FN(wsp_ggml_backend_free), "", c_backend_free_null },
    { "event_free_null", "ok", FN(wsp_ggml_backend_event_free), "", c_event_free_null },
    { "sched_free_null", "ok", FN(wsp_ggml_backend_sched_free), "", c_sched_free_null },
    { "backend_name_null", "ok", FN(wsp_ggml_backend_name), "", c_backend_name_null },
    { "backend_guid_null", "ok", FN(wsp_ggml_backend_guid), "", c_backend_guid_null },
    { "event_new_null", "ok", FN(wsp_ggml_backend_event_new), "", c_event_new_null },
#ifndef WSP_GGML_BACKEND_META_MAX_DEVICES
    { "tensor_set_size0_unalloc", "ok", FN(wsp_ggml_backend_tensor_set), "", c_tensor_set_size0_unallocated },
    { "tensor_get_size0_unalloc", "ok", FN(wsp_ggml_backend_tensor_get), "", c_tensor_get_size0_unallocated },
#else
    /* 0.7 checks the buffer before an empty access returns */
    { "tensor_set_size0_unalloc", "abort", FN(wsp_ggml_backend_tensor_set), "wsp_ggml_backend_tensor_set: tensor buffer not set", c_tensor_set_size0_unallocated },
    { "tensor_get_size0_unalloc", "abort", FN(wsp_ggml_backend_tensor_get), "wsp_ggml_backend_tensor_get: tensor buffer not set", c_tensor_get_size0_unallocated },
#endif
    { "buffer_zero_size_base", "ok", FN(wsp_ggml_backend_buft_alloc_buffer), "", c_buffer_zero_size_base },
    { "buft_alloc_buffer_huge", "error", FN(wsp_ggml_backend_buft_alloc_buffer), "failed to allocate buffer of size", c_buft_alloc_buffer_huge },
    { "sched_new_too_many_backends", "error", FN(wsp_ggml_backend_sched_new), "n_backends is 17", c_sched_new_too_many_backends },
    { "sched_graph_larger_than_graph_size", "ok", FN(wsp_ggml_backend_sched_alloc_graph), "", c_sched_graph_larger_than_graph_size },
    { "init_by_name_unknown", "ok", FN(wsp_ggml_backend_init_by_name), "", c_init_by_name_unknown },

    /* bounds */
    { "tensor_set_oob", "abort", FN(wsp_ggml_backend_tensor_set), "tensor write out of bounds", c_tensor_set_oob },
    { "tensor_set_overflow", "abort", FN(wsp_ggml_backend_tensor_set), "tensor write out of bounds", c_tensor_set_overflow },
    { "tensor_get_oob", "abort", FN(wsp_ggml_backend_tensor_get), "tensor read out of bounds", c_tensor_get_oob },
    { "tensor_get_overflow", "abort", FN(wsp_ggml_backend_tensor_get), "tensor read out of bounds", c_tensor_get_overflow },
    { "tensor_memset_oob", "abort", FN(wsp_ggml_backend_tensor_memset), "tensor write out of bounds", c_tensor_memset_oob },
    { "tensor_memset_overflow", "abort", FN(wsp_ggml_backend_tensor_memset), "tensor write out of bounds", c_tensor_memset_overflow },
    { "tensor_set_async_oob", "abort", FN(wsp_ggml_backend_tensor_set_async), "tensor write out of bounds", c_tensor_set_async_oob },
    { "tensor_get_async_oob", "abort", FN(wsp_ggml_backend_tensor_get_async), "tensor read out of bounds", c_tensor_get_async_oob },

    /* unallocated tensors */
    { "tensor_set_unallocated", "abort", FN(wsp_ggml_backend_tensor_set), "tensor buffer not set", c_tensor_set_unallocated },
    { "tensor_get_data_no_buffer", "abort", FN(wsp_ggml_backend_tensor_get), "tensor buffer not set", c_tensor_get_data_no_buffer },
    { "tensor_set_buffer_no_data", "abort", FN(wsp_ggml_backend_tensor_set), "tensor not allocated", c_tensor_set_buffer_no_data },

    /* indices */
    { "reg_get_out_of_range", "error", FN(wsp_ggml_backend_reg_get), "out of range", c_reg_get_out_of_range },
    { "dev_get_out_of_range", "error", FN(wsp_ggml_backend_dev_get), "out of range", c_dev_get_out_of_range },
    { "sched_get_backend_high", "error", FN(wsp_ggml_backend_sched_get_backend), "out of range", c_sched_get_backend_high },
    { "sched_get_backend_negative", "error", FN(wsp_ggml_backend_sched_get_backend), "out of range", c_sched_get_backend_negative },
    { "sched_set_tensor_backend_foreign", "abort", FN(wsp_ggml_backend_sched_set_tensor_backend), "not in the scheduler", c_sched_set_tensor_backend_foreign },
    { "sched_get_buffer_size_foreign", "error", FN(wsp_ggml_backend_sched_get_buffer_size), "not in the scheduler", c_sched_get_buffer_size_foreign },
    { "sched_free_from_eval", "abort", FN(wsp_ggml_backend_sched_free), "wsp_ggml_backend_sched_free: called back from inside this scheduler's own work", c_sched_free_from_eval },
    { "sched_reset_from_eval", "abort", FN(wsp_ggml_backend_sched_reset), "wsp_ggml_backend_sched_reset: called back from inside this scheduler's own work", c_sched_reset_from_eval },
    { "sched_set_backend_from_eval", "abort", FN(wsp_ggml_backend_sched_set_tensor_backend), "wsp_ggml_backend_sched_set_tensor_backend: called back from inside this scheduler's own work", c_sched_set_backend_from_eval },
    { "sched_alloc_from_eval", "error", FN(wsp_ggml_backend_sched_alloc_graph), "wsp_ggml_backend_sched_alloc_graph: called back from inside this scheduler's own work", c_sched_alloc_from_eval },
    { "sched_reserve_from_eval", "error", FN(wsp_ggml_backend_sched_reserve), "wsp_ggml_backend_sched_reserve: called back from inside this scheduler's own work", c_sched_reserve_from_eval },
    { "sched_compute_from_eval", "error", FN(wsp_ggml_backend_sched_graph_compute), "wsp_ggml_backend_sched_graph_compute: called back from inside this scheduler's own work", c_sched_compute_from_eval },

#if WSP_GGML_BACKEND_API_VERSION >= 2
    /* backend API 2: each message names the function called, not one it calls */
    { "sched_get_buffer_type_null", "error", FN(wsp_ggml_backend_sched_get_buffer_type), NULLMSG(wsp_ggml_backend_sched_get_buffer_type, sched), c_sched_get_buffer_type_null },
    { "sched_get_buffer_type_foreign", "error", FN(wsp_ggml_backend_sched_get_buffer_type), "wsp_ggml_backend_sched_get_buffer_type: backend CPU is not in the scheduler", c_sched_get_buffer_type_foreign },
    { "sched_get_buffer_type_null_backend", "error", FN(wsp_ggml_backend_sched_get_buffer_type), "wsp_ggml_backend_sched_get_buffer_type: backend NULL is not in the scheduler", c_sched_get_buffer_type_null_backend },
#ifdef WSP_GGML_BACKEND_SCHED_RESERVE_SIZE
    { "sched_reserve_size_null", "abort", FN(wsp_ggml_backend_sched_reserve_size), NULLMSG(wsp_ggml_backend_sched_reserve_size, sched), c_sched_reserve_size_null },
    { "sched_reserve_size_null_graph", "abort", FN(wsp_ggml_backend_sched_reserve_size), NULLMSG(wsp_ggml_backend_sched_reserve_size, measure_graph), c_sched_reserve_size_null_graph },
    { "sched_reserve_size_null_sizes", "abort", FN(wsp_ggml_backend_sched_reserve_size), NULLMSG(wsp_ggml_backend_sched_reserve_size, sizes), c_sched_reserve_size_null_sizes },
#endif
    { "sched_split_graph_null", "abort", FN(wsp_ggml_backend_sched_split_graph), NULLMSG(wsp_ggml_backend_sched_split_graph, sched), c_sched_split_graph_null },
    { "sched_split_graph_null_graph", "abort", FN(wsp_ggml_backend_sched_split_graph), NULLMSG(wsp_ggml_backend_sched_split_graph, graph), c_sched_split_graph_null_graph },
#endif
#ifdef WSP_GGML_BACKEND_META_MAX_DEVICES
    /* whisper.rn 0.7: 2d tensor access */
    { "tensor_set_2d_null", "abort", FN(wsp_ggml_backend_tensor_set_2d), NULLMSG(wsp_ggml_backend_tensor_set_2d, tensor), c_tensor_set_2d_null },
    { "tensor_get_2d_null", "abort", FN(wsp_ggml_backend_tensor_get_2d), NULLMSG(wsp_ggml_backend_tensor_get_2d, tensor), c_tensor_get_2d_null },
    { "tensor_set_2d_async_null", "abort", FN(wsp_ggml_backend_tensor_set_2d_async), NULLMSG(wsp_ggml_backend_tensor_set_2d_async, backend), c_tensor_set_2d_async_null },
    { "tensor_get_2d_async_null_tensor", "abort", FN(wsp_ggml_backend_tensor_get_2d_async), NULLMSG(wsp_ggml_backend_tensor_get_2d_async, tensor), c_tensor_get_2d_async_null_tensor },
    { "tensor_set_2d_oob", "abort", FN(wsp_ggml_backend_tensor_set_2d), "tensor write out of bounds", c_tensor_set_2d_oob },
    { "tensor_get_2d_oob", "abort", FN(wsp_ggml_backend_tensor_get_2d), "tensor read out of bounds", c_tensor_get_2d_oob },
    { "tensor_set_2d_stride_overflow", "abort", FN(wsp_ggml_backend_tensor_set_2d), "tensor write out of bounds", c_tensor_set_2d_stride_overflow },
    { "tensor_set_2d_async_oob", "abort", FN(wsp_ggml_backend_tensor_set_2d_async), "tensor write out of bounds", c_tensor_set_2d_async_oob },
    { "tensor_get_2d_async_oob", "abort", FN(wsp_ggml_backend_tensor_get_2d_async), "tensor read out of bounds", c_tensor_get_2d_async_oob },
    { "tensor_set_2d_unallocated", "abort", FN(wsp_ggml_backend_tensor_set_2d), "tensor buffer not set", c_tensor_set_2d_unallocated },
    { "tensor_get_2d_async_unallocated", "abort", FN(wsp_ggml_backend_tensor_get_2d_async), "tensor not allocated", c_tensor_get_2d_async_unallocated },
#endif

#ifdef WSP_GGML_BACKEND_META_MAX_DEVICES
    /* the meta backend (0.7) */
    { "meta_split_axis_name_invalid", "error", FN(wsp_ggml_backend_meta_split_axis_name), "wsp_ggml_backend_meta_split_axis_name: 42 is not a split axis", c_meta_split_axis_name_invalid },
    { "meta_is_meta_null", "ok", FN(wsp_ggml_backend_is_meta), "", c_meta_is_meta_null },
    { "meta_buffer_is_meta_null", "ok", FN(wsp_ggml_backend_buffer_is_meta), "", c_meta_buffer_is_meta_null },
    { "meta_buft_is_meta_null", "ok", FN(wsp_ggml_backend_buft_is_meta), "", c_meta_buft_is_meta_null },
    { "meta_is_meta_cpu", "ok", FN(wsp_ggml_backend_is_meta), "", c_meta_is_meta_cpu },
    { "meta_device_null_devs", "error", FN(wsp_ggml_backend_meta_device), NULLMSG(wsp_ggml_backend_meta_device, devs), c_meta_device_null_devs },
    { "meta_device_too_many", "error", FN(wsp_ggml_backend_meta_device), "wsp_ggml_backend_meta_device: 17 devices, at most 16", c_meta_device_too_many },
    { "meta_device_null_element", "error", FN(wsp_ggml_backend_meta_device), "wsp_ggml_backend_meta_device: devs[1] is NULL", c_meta_device_null_element },
    { "meta_n_backends_null", "error", FN(wsp_ggml_backend_meta_n_backends), NULLMSG(wsp_ggml_backend_meta_n_backends, meta_backend), c_meta_n_backends_null },
    { "meta_n_backends_not_meta", "error", FN(wsp_ggml_backend_meta_n_backends), "wsp_ggml_backend_meta_n_backends: backend is not a meta backend", c_meta_n_backends_not_meta },
    { "meta_simple_backend_null", "error", FN(wsp_ggml_backend_meta_simple_backend), NULLMSG(wsp_ggml_backend_meta_simple_backend, meta_backend), c_meta_simple_backend_null },
    { "meta_simple_backend_out_of_range", "error", FN(wsp_ggml_backend_meta_simple_backend), "index 2 out of range", c_meta_simple_backend_out_of_range },
    { "meta_alloc_ctx_null_ctx", "error", FN(wsp_ggml_backend_meta_alloc_ctx_tensors_from_buft), NULLMSG(wsp_ggml_backend_meta_alloc_ctx_tensors_from_buft, ctx), c_meta_alloc_ctx_null_ctx },
    { "meta_alloc_ctx_null_buft", "error", FN(wsp_ggml_backend_meta_alloc_ctx_tensors_from_buft), NULLMSG(wsp_ggml_backend_meta_alloc_ctx_tensors_from_buft, buft), c_meta_alloc_ctx_null_buft },
    { "meta_alloc_ctx_not_meta", "error", FN(wsp_ggml_backend_meta_alloc_ctx_tensors_from_buft), "buffer type is not a meta buffer type", c_meta_alloc_ctx_not_meta },
    { "meta_alloc_ctx_no_callback", "error", FN(wsp_ggml_backend_meta_alloc_ctx_tensors_from_buft), "has no get_split_state callback", c_meta_alloc_ctx_no_callback },
    { "meta_softmax_across_split", "error", FN(wsp_ggml_backend_graph_compute), "a softmax over rows split along axis 0", c_meta_softmax_across_split },
    { "meta_reshape_cuts_segments", "error", FN(wsp_ggml_backend_graph_compute), "a reshape that cuts through a device's part of a segmented split", c_meta_reshape_cuts_segments },
    { "meta_view_across_segments", "error", FN(wsp_ggml_backend_graph_compute), "takes parts of several segments", c_meta_view_across_segments },
    { "meta_buft_alloc_buffer_huge", "error", FN(wsp_ggml_backend_buft_alloc_buffer), "a simple buffer allocation failed", c_meta_buft_alloc_buffer_huge },
    { "meta_alloc_ctx_part_fails", "error", FN(wsp_ggml_backend_alloc_ctx_tensors_from_buft), "allocating device 0's part of the context failed", c_meta_alloc_ctx_part_fails },
#endif
#ifdef WSP_GGML_BACKEND_META_SET_USAGE
    { "meta_buffer_set_usage_not_meta", "abort", FN(wsp_ggml_backend_meta_buffer_set_usage), "buffer is not a meta buffer", c_meta_buffer_set_usage_not_meta },
#endif
#ifdef WSP_GGML_BACKEND_OP_ALLOC_SIZE_MAY_EXPAND
    { "op_alloc_size_may_expand_unknown", "ok", FN(wsp_ggml_op_alloc_size_may_expand), "", c_op_alloc_size_may_expand_unknown },
#endif

    /* every export with an error channel */
    { "get_alignment_null", "error", FN(wsp_ggml_backend_get_alignment), NULLMSG(wsp_ggml_backend_get_alignment, backend), c_get_alignment_null },
    { "get_max_size_null", "error", FN(wsp_ggml_backend_get_max_size), NULLMSG(wsp_ggml_backend_get_max_size, backend), c_get_max_size_null },
    { "graph_plan_create_null", "error", FN(wsp_ggml_backend_graph_plan_create), NULLMSG(wsp_ggml_backend_graph_plan_create, backend), c_graph_plan_create_null },
    { "graph_plan_create_null_graph", "error", FN(wsp_ggml_backend_graph_plan_create), NULLMSG(wsp_ggml_backend_graph_plan_create, cgraph), c_graph_plan_create_null_graph },
    { "graph_plan_compute_null", "error", FN(wsp_ggml_backend_graph_plan_compute), NULLMSG(wsp_ggml_backend_graph_plan_compute, backend), c_graph_plan_compute_null },
    { "graph_compute_async_null_backend", "error", FN(wsp_ggml_backend_graph_compute_async), NULLMSG(wsp_ggml_backend_graph_compute_async, backend), c_graph_compute_async_null_backend },
    { "graph_compute_async_null_graph", "error", FN(wsp_ggml_backend_graph_compute_async), NULLMSG(wsp_ggml_backend_graph_compute_async, cgraph), c_graph_compute_async_null_graph },
    { "supports_op_null", "error", FN(wsp_ggml_backend_supports_op), NULLMSG(wsp_ggml_backend_supports_op, backend), c_supports_op_null },
    { "supports_op_null_op", "error", FN(wsp_ggml_backend_supports_op), NULLMSG(wsp_ggml_backend_supports_op, op), c_supports_op_null_op },
    { "supports_buft_null", "error", FN(wsp_ggml_backend_supports_buft), NULLMSG(wsp_ggml_backend_supports_buft, backend), c_supports_buft_null },
    { "supports_buft_null_buft", "error", FN(wsp_ggml_backend_supports_buft), NULLMSG(wsp_ggml_backend_supports_buft, buft), c_supports_buft_null_buft },
    { "offload_op_null", "error", FN(wsp_ggml_backend_offload_op), NULLMSG(wsp_ggml_backend_offload_op, backend), c_offload_op_null },
    { "offload_op_null_op", "error", FN(wsp_ggml_backend_offload_op), NULLMSG(wsp_ggml_backend_offload_op, op), c_offload_op_null_op },
    { "get_device_null", "error", FN(wsp_ggml_backend_get_device), NULLMSG(wsp_ggml_backend_get_device, backend), c_get_device_null },
    { "buffer_name_null", "error", FN(wsp_ggml_backend_buffer_name), NULLMSG(wsp_ggml_backend_buffer_name, buffer), c_buffer_name_null },
    { "buffer_init_tensor_null", "error", FN(wsp_ggml_backend_buffer_init_tensor), NULLMSG(wsp_ggml_backend_buffer_init_tensor, buffer), c_buffer_init_tensor_null },
    { "buffer_init_tensor_null_tensor", "error", FN(wsp_ggml_backend_buffer_init_tensor), NULLMSG(wsp_ggml_backend_buffer_init_tensor, tensor), c_buffer_init_tensor_null_tensor },
    { "buffer_get_alignment_null", "error", FN(wsp_ggml_backend_buffer_get_alignment), NULLMSG(wsp_ggml_backend_buffer_get_alignment, buffer), c_buffer_get_alignment_null },
    { "buffer_get_max_size_null", "error", FN(wsp_ggml_backend_buffer_get_max_size), NULLMSG(wsp_ggml_backend_buffer_get_max_size, buffer), c_buffer_get_max_size_null },
    { "buffer_get_alloc_size_null", "error", FN(wsp_ggml_backend_buffer_get_alloc_size), NULLMSG(wsp_ggml_backend_buffer_get_alloc_size, buffer), c_buffer_get_alloc_size_null },
    { "buffer_get_alloc_size_null_tensor", "error", FN(wsp_ggml_backend_buffer_get_alloc_size), NULLMSG(wsp_ggml_backend_buffer_get_alloc_size, tensor), c_buffer_get_alloc_size_null_tensor },
    { "buffer_is_host_null", "error", FN(wsp_ggml_backend_buffer_is_host), NULLMSG(wsp_ggml_backend_buffer_is_host, buffer), c_buffer_is_host_null },
    { "buffer_get_usage_null", "error", FN(wsp_ggml_backend_buffer_get_usage), NULLMSG(wsp_ggml_backend_buffer_get_usage, buffer), c_buffer_get_usage_null },
    { "buffer_get_type_null", "error", FN(wsp_ggml_backend_buffer_get_type), NULLMSG(wsp_ggml_backend_buffer_get_type, buffer), c_buffer_get_type_null },
    { "buffer_copy_tensor_null_src", "error", FN(wsp_ggml_backend_buffer_copy_tensor), NULLMSG(wsp_ggml_backend_buffer_copy_tensor, src), c_buffer_copy_tensor_null_src },
    { "buffer_copy_tensor_null_dst", "error", FN(wsp_ggml_backend_buffer_copy_tensor), NULLMSG(wsp_ggml_backend_buffer_copy_tensor, dst), c_buffer_copy_tensor_null_dst },
    { "multi_buffer_alloc_null", "error", FN(wsp_ggml_backend_multi_buffer_alloc_buffer), "wsp_ggml_backend_multi_buffer_alloc_buffer: no buffers given", c_multi_buffer_alloc_null },
    { "multi_buffer_alloc_null_element", "error", FN(wsp_ggml_backend_multi_buffer_alloc_buffer), "wsp_ggml_backend_multi_buffer_alloc_buffer: buffers[1] is NULL", c_multi_buffer_alloc_null_element },
    { "buffer_is_multi_buffer_null", "error", FN(wsp_ggml_backend_buffer_is_multi_buffer), NULLMSG(wsp_ggml_backend_buffer_is_multi_buffer, buffer), c_buffer_is_multi_buffer_null },
    { "cpu_buffer_from_ptr_null", "error", FN(wsp_ggml_backend_cpu_buffer_from_ptr), NULLMSG(wsp_ggml_backend_cpu_buffer_from_ptr, ptr), c_cpu_buffer_from_ptr_null },
    { "buft_get_max_size_null", "error", FN(wsp_ggml_backend_buft_get_max_size), NULLMSG(wsp_ggml_backend_buft_get_max_size, buft), c_buft_get_max_size_null },
    { "buft_get_alloc_size_null", "error", FN(wsp_ggml_backend_buft_get_alloc_size), NULLMSG(wsp_ggml_backend_buft_get_alloc_size, buft), c_buft_get_alloc_size_null },
    { "buft_get_alloc_size_null_tensor", "error", FN(wsp_ggml_backend_buft_get_alloc_size), NULLMSG(wsp_ggml_backend_buft_get_alloc_size, tensor), c_buft_get_alloc_size_null_tensor },
    { "buft_is_host_null", "error", FN(wsp_ggml_backend_buft_is_host), NULLMSG(wsp_ggml_backend_buft_is_host, buft), c_buft_is_host_null },
    { "buft_get_device_null", "error", FN(wsp_ggml_backend_buft_get_device), NULLMSG(wsp_ggml_backend_buft_get_device, buft), c_buft_get_device_null },
    { "dev_description_null", "error", FN(wsp_ggml_backend_dev_description), NULLMSG(wsp_ggml_backend_dev_description, device), c_dev_description_null },
    { "dev_type_null", "error", FN(wsp_ggml_backend_dev_type), NULLMSG(wsp_ggml_backend_dev_type, device), c_dev_type_null },
    { "dev_backend_reg_null", "error", FN(wsp_ggml_backend_dev_backend_reg), NULLMSG(wsp_ggml_backend_dev_backend_reg, device), c_dev_backend_reg_null },
    { "dev_buffer_type_null", "error", FN(wsp_ggml_backend_dev_buffer_type), NULLMSG(wsp_ggml_backend_dev_buffer_type, device), c_dev_buffer_type_null },
    { "dev_host_buffer_type_null", "error", FN(wsp_ggml_backend_dev_host_buffer_type), NULLMSG(wsp_ggml_backend_dev_host_buffer_type, device), c_dev_host_buffer_type_null },
    { "dev_buffer_from_host_ptr_null", "error", FN(wsp_ggml_backend_dev_buffer_from_host_ptr), NULLMSG(wsp_ggml_backend_dev_buffer_from_host_ptr, device), c_dev_buffer_from_host_ptr_null },
    { "dev_supports_op_null", "error", FN(wsp_ggml_backend_dev_supports_op), NULLMSG(wsp_ggml_backend_dev_supports_op, device), c_dev_supports_op_null },
    { "dev_supports_op_null_op", "error", FN(wsp_ggml_backend_dev_supports_op), NULLMSG(wsp_ggml_backend_dev_supports_op, op), c_dev_supports_op_null_op },
    { "dev_supports_buft_null", "error", FN(wsp_ggml_backend_dev_supports_buft), NULLMSG(wsp_ggml_backend_dev_supports_buft, device), c_dev_supports_buft_null },
    { "dev_supports_buft_null_buft", "error", FN(wsp_ggml_backend_dev_supports_buft), NULLMSG(wsp_ggml_backend_dev_supports_buft, buft), c_dev_supports_buft_null_buft },
    { "dev_offload_op_null", "error", FN(wsp_ggml_backend_dev_offload_op), NULLMSG(wsp_ggml_backend_dev_offload_op, device), c_dev_offload_op_null },
    { "dev_offload_op_null_op", "error", FN(wsp_ggml_backend_dev_offload_op), NULLMSG(wsp_ggml_backend_dev_offload_op, op), c_dev_offload_op_null_op },
    { "reg_dev_get_null", "error", FN(wsp_ggml_backend_reg_dev_get), NULLMSG(wsp_ggml_backend_reg_dev_get, reg), c_reg_dev_get_null },
    { "reg_dev_get_out_of_range", "error", FN(wsp_ggml_backend_reg_dev_get), "wsp_ggml_backend_reg_dev_get: index 1 out of range (1 devices)", c_reg_dev_get_out_of_range },
    { "reg_get_proc_address_null", "error", FN(wsp_ggml_backend_reg_get_proc_address), NULLMSG(wsp_ggml_backend_reg_get_proc_address, reg), c_reg_get_proc_address_null },
    { "dev_by_type_unknown", "ok", FN(wsp_ggml_backend_dev_by_type), "", c_dev_by_type_unknown },
    { "init_by_name_null", "error", FN(wsp_ggml_backend_init_by_name), NULLMSG(wsp_ggml_backend_init_by_name, name), c_init_by_name_null },
    { "init_by_type_unknown", "ok", FN(wsp_ggml_backend_init_by_type), "", c_init_by_type_unknown },
    { "load_null", "error", FN(wsp_ggml_backend_load), NULLMSG(wsp_ggml_backend_load, path), c_load_null },
    { "load_missing", "error", FN(wsp_ggml_backend_load), "cannot be loaded", c_load_missing },
    { "tensor_alloc_null_tensor", "error", FN(wsp_ggml_backend_tensor_alloc), NULLMSG(wsp_ggml_backend_tensor_alloc, tensor), c_tensor_alloc_null_tensor },
    { "graph_copy_null", "error", FN(wsp_ggml_backend_graph_copy), NULLMSG(wsp_ggml_backend_graph_copy, backend), c_graph_copy_null },
    { "graph_copy_null_graph", "error", FN(wsp_ggml_backend_graph_copy), NULLMSG(wsp_ggml_backend_graph_copy, graph), c_graph_copy_null_graph },
    { "graph_copy_unallocated", "error", FN(wsp_ggml_backend_graph_copy), "wsp_ggml_backend_graph_copy: graph must be allocated", c_graph_copy_unallocated },
    { "compare_null_backend", "error", FN(wsp_ggml_backend_compare_graph_backend), NULLMSG(wsp_ggml_backend_compare_graph_backend, backend1), c_compare_null_backend },
    { "compare_null_graph", "error", FN(wsp_ggml_backend_compare_graph_backend), NULLMSG(wsp_ggml_backend_compare_graph_backend, graph), c_compare_null_graph },
    { "compare_null_callback", "error", FN(wsp_ggml_backend_compare_graph_backend), NULLMSG(wsp_ggml_backend_compare_graph_backend, callback), c_compare_null_callback },
    { "sched_new_null_element", "error", FN(wsp_ggml_backend_sched_new), "wsp_ggml_backend_sched_new: backends[0] is NULL", c_sched_new_null_element },
    { "sched_reserve_null", "error", FN(wsp_ggml_backend_sched_reserve), NULLMSG(wsp_ggml_backend_sched_reserve, sched), c_sched_reserve_null },
    { "sched_reserve_null_graph", "error", FN(wsp_ggml_backend_sched_reserve), NULLMSG(wsp_ggml_backend_sched_reserve, measure_graph), c_sched_reserve_null_graph },
    { "sched_get_n_backends_null", "error", FN(wsp_ggml_backend_sched_get_n_backends), NULLMSG(wsp_ggml_backend_sched_get_n_backends, sched), c_sched_get_n_backends_null },
    { "sched_get_backend_null", "error", FN(wsp_ggml_backend_sched_get_backend), NULLMSG(wsp_ggml_backend_sched_get_backend, sched), c_sched_get_backend_null },
    { "sched_get_n_splits_null", "error", FN(wsp_ggml_backend_sched_get_n_splits), NULLMSG(wsp_ggml_backend_sched_get_n_splits, sched), c_sched_get_n_splits_null },
    { "sched_get_n_copies_null", "error", FN(wsp_ggml_backend_sched_get_n_copies), NULLMSG(wsp_ggml_backend_sched_get_n_copies, sched), c_sched_get_n_copies_null },
    { "sched_get_buffer_size_null", "error", FN(wsp_ggml_backend_sched_get_buffer_size), NULLMSG(wsp_ggml_backend_sched_get_buffer_size, sched), c_sched_get_buffer_size_null },
    { "sched_get_buffer_size_null_backend", "error", FN(wsp_ggml_backend_sched_get_buffer_size), "wsp_ggml_backend_sched_get_buffer_size: backend NULL is not in the scheduler", c_sched_get_buffer_size_null_backend },
    { "sched_get_tensor_backend_null", "error", FN(wsp_ggml_backend_sched_get_tensor_backend), NULLMSG(wsp_ggml_backend_sched_get_tensor_backend, sched), c_sched_get_tensor_backend_null },
    { "sched_alloc_graph_null", "error", FN(wsp_ggml_backend_sched_alloc_graph), NULLMSG(wsp_ggml_backend_sched_alloc_graph, sched), c_sched_alloc_graph_null },
    { "sched_alloc_graph_null_graph", "error", FN(wsp_ggml_backend_sched_alloc_graph), NULLMSG(wsp_ggml_backend_sched_alloc_graph, graph), c_sched_alloc_graph_null_graph },
    { "sched_graph_compute_null", "error", FN(wsp_ggml_backend_sched_graph_compute), NULLMSG(wsp_ggml_backend_sched_graph_compute, sched), c_sched_graph_compute_null },
    { "sched_graph_compute_null_graph", "error", FN(wsp_ggml_backend_sched_graph_compute), NULLMSG(wsp_ggml_backend_sched_graph_compute, graph), c_sched_graph_compute_null_graph },
    { "sched_graph_compute_async_null", "error", FN(wsp_ggml_backend_sched_graph_compute_async), NULLMSG(wsp_ggml_backend_sched_graph_compute_async, sched), c_sched_graph_compute_async_null },
    { "sched_graph_compute_async_null_graph", "error", FN(wsp_ggml_backend_sched_graph_compute_async), NULLMSG(wsp_ggml_backend_sched_graph_compute_async, graph), c_sched_graph_compute_async_null_graph },

    /* allocation misuse */
    { "tensor_alloc_past_end", "error", FN(wsp_ggml_backend_tensor_alloc), "outside the buffer", c_tensor_alloc_past_end },
    { "tensor_alloc_before_base", "error", FN(wsp_ggml_backend_tensor_alloc), "outside the buffer", c_tensor_alloc_before_base },
    { "tensor_alloc_twice", "error", FN(wsp_ggml_backend_tensor_alloc), "already allocated", c_tensor_alloc_twice },
    { "view_init_not_a_view", "error", FN(wsp_ggml_backend_view_init), "not a view", c_view_init_not_a_view },
    { "cpu_buffer_from_ptr_misaligned", "error", FN(wsp_ggml_backend_cpu_buffer_from_ptr), "buffer pointer must be aligned", c_cpu_buffer_from_ptr_misaligned },

    /* missing optional interface entries */
    { "graph_plan_create_missing", "error", FN(wsp_ggml_backend_graph_plan_create), "graph_plan_create not implemented", c_graph_plan_create_missing },
    { "graph_plan_free_missing", "abort", FN(wsp_ggml_backend_graph_plan_free), "graph_plan_free not implemented", c_graph_plan_free_missing },
    { "graph_plan_compute_missing", "error", FN(wsp_ggml_backend_graph_plan_compute), "graph_plan_compute not implemented", c_graph_plan_compute_missing },
    { "event_record_missing", "abort", FN(wsp_ggml_backend_event_record), "event_record not implemented", c_event_record_missing },
    { "event_wait_missing", "abort", FN(wsp_ggml_backend_event_wait), "event_wait not implemented", c_event_wait_missing },
    { "event_synchronize_missing", "abort", FN(wsp_ggml_backend_event_synchronize), "event_synchronize not implemented", c_event_synchronize_missing },
    { "tensor_memset_missing", "abort", FN(wsp_ggml_backend_tensor_memset), "memset_tensor not implemented", c_tensor_memset_missing },

    /* layouts */
    { "buffer_free_twice", "abort", FN(wsp_ggml_backend_buffer_free), "was already freed", c_buffer_free_twice },
    { "tensor_copy_different_layouts", "abort", FN(wsp_ggml_backend_tensor_copy), "different layouts", c_tensor_copy_layouts },
};

#define N_CASES (sizeof(cases) / sizeof(cases[0]))

static void usage(const char * argv0) {
    fprintf(stderr, "usage: %s <case> | --list\n", argv0);
}

int main(int argc, char ** argv) {
    if (argc != 2) {
        usage(argv[0]);
        return 2;
    }

    if (strcmp(argv[1], "--list") == 0) {
        for (size_t i = 0; i < N_CASES; i++) {
            printf("%s\t%s\t%s\t%s\n", cases[i].name, cases[i].outcome, cases[i].expect, cases[i].function);
        }
        return 0;
    }

    for (size_t i = 0; i < N_CASES; i++) {
        if (strcmp(argv[1], cases[i].name) != 0) {
            continue;
        }
        fflush(stdout);
        int wrong = cases[i].run();
        if (strcmp(cases[i].outcome, "abort") == 0) {
            printf("returned\n");
            fprintf(stderr, "bad_input: case %s returned, expected the library to abort\n", cases[i].name);
            return 1;
        }
        if (wrong) {
            fprintf(stderr, "bad_input: case %s returned a wrong result\n", cases[i].name);
            return 1;
        }
        printf("ok\n");
        return 0;
    }

    fprintf(stderr, "bad_input: unknown case '%s'\n", argv[1]);
    usage(argv[0]);
    return 2;
}
