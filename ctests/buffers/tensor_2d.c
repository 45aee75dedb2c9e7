// tensor_2d: what whisper.rn 0.7 adds to tensor data access and to the scheduler's bookkeeping.
//  S: tensor_set_2d / tensor_get_2d on a CPU tensor, a TEST tensor whose buffer has no 2d entries
//     (run by run) and one whose buffer has them: strided runs, one run, no run, empty runs; the
//     whole tensor after each write, what each read returns, and the 2d calls the buffer saw.
//  A: tensor_set_2d_async / tensor_get_2d_async on the CPU backend (no async interface), on TEST
//     with the async and 2d interfaces, with the async interface only, and with neither: the data,
//     the 2d calls and the TEST counters (a backend without the async interface is synchronized
//     before each run is written synchronously).
//  G: the graph uids of 0.7: a graph computed twice by a scheduler over {TEST, CPU}: the uid the
//     caller's graph is left with and the one the TEST backend's split saw (both new for each
//     evaluation), the events recorded (after every split in 0.7) and the outputs.
#include "sched_util.h"

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#include "ggml-impl.h"
#pragma GCC diagnostic pop

#define N_BYTES 64

// an I8 [64] tensor alone in a buffer of the given type, cleared to 0
struct bytes {
    struct wsp_ggml_context * ctx;
    wsp_ggml_backend_buffer_t buf;
    struct wsp_ggml_tensor  * t;
};

static struct bytes make_bytes(wsp_ggml_backend_buffer_type_t buft) {
    struct bytes b;
    b.ctx = du_ctx(2);
    b.t   = wsp_ggml_new_tensor_1d(b.ctx, WSP_GGML_TYPE_I8, N_BYTES);
    b.buf = wsp_ggml_backend_alloc_ctx_tensors_from_buft(b.ctx, buft);
    wsp_ggml_backend_buffer_clear(b.buf, 0);
    return b;
}

static void free_bytes(struct bytes * b) {
    wsp_ggml_backend_buffer_free(b->buf);
    wsp_ggml_free(b->ctx);
}

static void print_whole(const char * tag, const char * what, const struct wsp_ggml_tensor * t) {
    uint8_t all[N_BYTES];
    wsp_ggml_backend_tensor_get(t, all, 0, sizeof(all));
    char l[256];
    snprintf(l, sizeof(l), "%s %s", tag, what);
    du_print_bytes(l, all, sizeof(all));
}

// source bytes 1, 2, 3, ... so that every run's origin is visible
static void pattern(uint8_t * p, size_t n, uint8_t first) {
    for (size_t i = 0; i < n; i++) {
        p[i] = (uint8_t) (first + i);
    }
}

// one 2d write and one 2d read of each shape; `async` on `backend`, else synchronous
static void shapes(const char * tag, struct wsp_ggml_tensor * t, wsp_ggml_backend_t backend) {
    static const struct { size_t offset, size, n_copies, stride_tensor, stride_data; } cases[] = {
        { 4, 8, 3, 20, 10 },   // strided runs, gaps on both sides
        { 1, 5, 1, 40, 40 },   // one run
        { 0, 4, 0, 8, 8 },     // no run
        { 60, 0, 3, 1, 1 },    // empty runs
        { 0, 16, 4, 16, 16 },  // the whole tensor, contiguous on both sides
    };
    char l[128];
    for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
        uint8_t src[N_BYTES * 2];
        pattern(src, sizeof(src), (uint8_t) (16 * c + 1));
        if (backend != NULL) {
            wsp_ggml_backend_tensor_set_2d_async(backend, t, src, cases[c].offset, cases[c].size, cases[c].n_copies,
                                                 cases[c].stride_tensor, cases[c].stride_data);
            wsp_ggml_backend_synchronize(backend);
        } else {
            wsp_ggml_backend_tensor_set_2d(t, src, cases[c].offset, cases[c].size, cases[c].n_copies,
                                           cases[c].stride_tensor, cases[c].stride_data);
        }
        snprintf(l, sizeof(l), "case %zu after set", c);
        print_whole(tag, l, t);

        uint8_t dst[N_BYTES * 2];
        memset(dst, 0xEE, sizeof(dst));
        if (backend != NULL) {
            wsp_ggml_backend_tensor_get_2d_async(backend, t, dst, cases[c].offset, cases[c].size, cases[c].n_copies,
                                                 cases[c].stride_tensor, cases[c].stride_data);
            wsp_ggml_backend_synchronize(backend);
        } else {
            wsp_ggml_backend_tensor_get_2d(t, dst, cases[c].offset, cases[c].size, cases[c].n_copies,
                                           cases[c].stride_tensor, cases[c].stride_data);
        }
        snprintf(l, sizeof(l), "%s case %zu get", tag, c);
        du_print_bytes(l, dst, 72);
    }
    snprintf(l, sizeof(l), "%s calls", tag);
    test_backend_print_2d(stdout, l);
    du_counters(l);
}

static void sync_2d(const char * tag, wsp_ggml_backend_buffer_type_t buft, bool with_2d) {
    test_backend_set_2d_iface(with_2d);
    struct bytes b = make_bytes(buft);
    test_backend_reset_counters();
    shapes(tag, b.t, NULL);
    free_bytes(&b);
    test_backend_reset_config();
}

static void async_2d(const char * tag, wsp_ggml_backend_t backend, wsp_ggml_backend_buffer_type_t buft) {
    struct bytes b = make_bytes(buft);
    test_backend_reset_counters();
    shapes(tag, b.t, backend);
    free_bytes(&b);
}

// --- G: graph uids ---

static void uids(void) {
    wsp_ggml_backend_t tb  = test_backend_init();
    wsp_ggml_backend_t cpu = su_cpu();
    struct su_param p = su_param_new(tb, "p", 8, 1, 0.5f, 0.125f);
    struct wsp_ggml_context * ctx = su_ctx(8);
    struct wsp_ggml_tensor * x   = su_input(wsp_ggml_new_tensor_2d(ctx, WSP_GGML_TYPE_F32, 8, 2), "x");
    struct wsp_ggml_tensor * a   = su_named(wsp_ggml_add(ctx, x, p.t), "a");
    struct wsp_ggml_tensor * m   = su_named(wsp_ggml_mul_mat(ctx, a, x), "m");  // the CPU's
    struct wsp_ggml_tensor * out = su_output(wsp_ggml_scale(ctx, m, 2.0f), "out");
    struct wsp_ggml_cgraph * gf  = su_graph(ctx);
    wsp_ggml_build_forward_expand(gf, out);

    wsp_ggml_backend_sched_t sched = su_sched_test_cpu(tb, cpu, false, false);
    DU_B("G alloc", wsp_ggml_backend_sched_alloc_graph(sched, gf));
    for (int round = 0; round < 2; round++) {
        du_fill(x, -1.0f + (float) round, 0.25f);
        test_backend_reset_counters();
        const uint64_t before = gf->uid;
        char l[64];
        snprintf(l, sizeof(l), "G round %d", round);
        su_compute_print(l, sched, gf, &out, 1);
        printf("%s graph uid %llu new=%d\n", l, (unsigned long long) gf->uid, gf->uid != before);
        printf("%s TEST split uid %llu\n", l, (unsigned long long) test_backend_last_graph_uid());
        wsp_ggml_backend_sched_reset(sched);
    }
    wsp_ggml_backend_sched_free(sched);
    wsp_ggml_free(ctx);
    su_param_free(&p);
    wsp_ggml_backend_free(cpu);
    wsp_ggml_backend_free(tb);
}

int main(void) {
    sync_2d("S cpu", wsp_ggml_backend_cpu_buffer_type(), false);
    sync_2d("S test", test_backend_buffer_type(), false);
    sync_2d("S test_2d", test_backend_buffer_type(), true);

    wsp_ggml_backend_t cpu = su_cpu();
    test_backend_set_2d_iface(true);
    wsp_ggml_backend_t t_2d = test_backend_init();
    test_backend_reset_config();
    wsp_ggml_backend_t t_async = test_backend_init();
    test_backend_set_async_iface(false);
    wsp_ggml_backend_t t_sync = test_backend_init();
    test_backend_reset_config();

    async_2d("A cpu", cpu, wsp_ggml_backend_cpu_buffer_type());
    async_2d("A test_2d", t_2d, test_backend_buffer_type());
    async_2d("A test_async", t_async, test_backend_buffer_type());
    async_2d("A test_sync", t_sync, test_backend_buffer_type());

    wsp_ggml_backend_free(t_sync);
    wsp_ggml_backend_free(t_async);
    wsp_ggml_backend_free(t_2d);
    wsp_ggml_backend_free(cpu);

    uids();
    return 0;
}
