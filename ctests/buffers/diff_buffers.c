// diff_buffers: buffer types and buffers of every kind (CPU, CPU_Mapped from a pointer, TEST, and
// custom interfaces with and without the optional callbacks): names, alignment, max/alloc sizes, host
// flag, device, zero-sized dummy buffers, base addresses (as booleans), init_tensor, clear, usage, type,
// reset, free (incl. NULL), buffer_init, multi-buffers and their usage, tensor_alloc, view_init and
// buffer_copy_tensor between all pairs of buffer kinds.
#include "diff_util.h"

static void buft_facts(const char * tag, wsp_ggml_backend_buffer_type_t buft, const struct wsp_ggml_tensor * t) {
    char l[128];
    snprintf(l, sizeof(l), "%s buft_name", tag);       DU_S(l, wsp_ggml_backend_buft_name(buft));
    snprintf(l, sizeof(l), "%s buft_alignment", tag);  DU_Z(l, wsp_ggml_backend_buft_get_alignment(buft));
    snprintf(l, sizeof(l), "%s buft_max_size", tag);   DU_Z(l, wsp_ggml_backend_buft_get_max_size(buft));
    snprintf(l, sizeof(l), "%s buft_alloc_size", tag); DU_Z(l, wsp_ggml_backend_buft_get_alloc_size(buft, t));
    snprintf(l, sizeof(l), "%s buft_is_host", tag);    DU_B(l, wsp_ggml_backend_buft_is_host(buft));
    wsp_ggml_backend_dev_t dev = wsp_ggml_backend_buft_get_device(buft);
    snprintf(l, sizeof(l), "%s buft_device", tag);     DU_S(l, dev ? wsp_ggml_backend_dev_name(dev) : "NULL");
}

static void buffer_facts(const char * tag, wsp_ggml_backend_buffer_t buf, wsp_ggml_backend_buffer_type_t buft,
                         const struct wsp_ggml_tensor * t) {
    char l[128];
    size_t align = wsp_ggml_backend_buffer_get_alignment(buf);
    void * base  = wsp_ggml_backend_buffer_get_base(buf);
    snprintf(l, sizeof(l), "%s buffer_name", tag);       DU_S(l, wsp_ggml_backend_buffer_name(buf));
    snprintf(l, sizeof(l), "%s buffer_size", tag);       DU_Z(l, wsp_ggml_backend_buffer_get_size(buf));
    snprintf(l, sizeof(l), "%s buffer_base_nonnull", tag); DU_B(l, base != NULL);
    snprintf(l, sizeof(l), "%s buffer_base_aligned", tag); DU_B(l, (uintptr_t) base % align == 0);
    snprintf(l, sizeof(l), "%s buffer_alignment", tag);  DU_Z(l, align);
    snprintf(l, sizeof(l), "%s buffer_max_size", tag);   DU_Z(l, wsp_ggml_backend_buffer_get_max_size(buf));
    snprintf(l, sizeof(l), "%s buffer_alloc_size", tag); DU_Z(l, wsp_ggml_backend_buffer_get_alloc_size(buf, t));
    snprintf(l, sizeof(l), "%s buffer_is_host", tag);    DU_B(l, wsp_ggml_backend_buffer_is_host(buf));
    snprintf(l, sizeof(l), "%s buffer_usage", tag);      DU_I(l, wsp_ggml_backend_buffer_get_usage(buf));
    snprintf(l, sizeof(l), "%s buffer_type_match", tag); DU_B(l, wsp_ggml_backend_buffer_get_type(buf) == buft);
}

// usage round trip and the optional callbacks that must be no-ops or defaults
static void buffer_usage_and_reset(const char * tag, wsp_ggml_backend_buffer_t buf) {
    char l[128];
    const enum wsp_ggml_backend_buffer_usage us[] = {
        WSP_GGML_BACKEND_BUFFER_USAGE_WEIGHTS, WSP_GGML_BACKEND_BUFFER_USAGE_COMPUTE, WSP_GGML_BACKEND_BUFFER_USAGE_ANY };
    for (int i = 0; i < 3; i++) {
        wsp_ggml_backend_buffer_set_usage(buf, us[i]);
        snprintf(l, sizeof(l), "%s usage_after_set_%d", tag, (int) us[i]); DU_I(l, wsp_ggml_backend_buffer_get_usage(buf));
    }
    wsp_ggml_backend_buffer_reset(buf);
    snprintf(l, sizeof(l), "%s reset_done", tag); DU_B(l, true);
}

static void dummy_buffer(const char * tag, wsp_ggml_backend_buffer_type_t buft, const struct wsp_ggml_tensor * t) {
    char l[128];
    wsp_ggml_backend_buffer_t buf = wsp_ggml_backend_buft_alloc_buffer(buft, 0);
    snprintf(l, sizeof(l), "%s dummy_nonnull", tag); DU_B(l, buf != NULL);
    buffer_facts(tag, buf, buft, t);
    wsp_ggml_backend_buffer_clear(buf, 0x77);   // no-op for size 0
    buffer_usage_and_reset(tag, buf);
    snprintf(l, sizeof(l), "%s dummy_is_multi", tag); DU_B(l, wsp_ggml_backend_buffer_is_multi_buffer(buf));
    wsp_ggml_backend_buffer_free(buf);
}

// tensor_alloc + view_init in a buffer, a clear, and data through the view
static void alloc_and_view(const char * tag, wsp_ggml_backend_buffer_t buf, struct wsp_ggml_context * ctx) {
    char l[128];
    struct wsp_ggml_tensor * t = wsp_ggml_new_tensor_1d(ctx, WSP_GGML_TYPE_F32, 8);
    struct wsp_ggml_tensor * v = wsp_ggml_view_1d(ctx, t, 3, 2 * sizeof(float));
    char * base = (char *) wsp_ggml_backend_buffer_get_base(buf);
    size_t align = wsp_ggml_backend_buffer_get_alignment(buf);

    wsp_ggml_backend_buffer_clear(buf, 0x5a);
    snprintf(l, sizeof(l), "%s tensor_alloc_status", tag); DU_I(l, wsp_ggml_backend_tensor_alloc(buf, t, base + align));
    snprintf(l, sizeof(l), "%s tensor_alloc_buffer", tag); DU_B(l, t->buffer == buf);
    snprintf(l, sizeof(l), "%s tensor_alloc_data", tag);   DU_B(l, t->data == base + align);
    snprintf(l, sizeof(l), "%s after_clear", tag);         du_print_tensor(l, t);

    snprintf(l, sizeof(l), "%s view_init_status", tag);    DU_I(l, wsp_ggml_backend_view_init(v));
    snprintf(l, sizeof(l), "%s view_buffer", tag);         DU_B(l, v->buffer == buf);
    snprintf(l, sizeof(l), "%s view_data", tag);           DU_B(l, v->data == base + align + 2 * sizeof(float));
    snprintf(l, sizeof(l), "%s init_tensor_status", tag);  DU_I(l, wsp_ggml_backend_buffer_init_tensor(buf, t));
    du_fill(v, 1.5f, 1.0f);
    snprintf(l, sizeof(l), "%s parent_after_view_set", tag); du_print_tensor(l, t);
    wsp_ggml_backend_buffer_clear(buf, 0);
    snprintf(l, sizeof(l), "%s view_after_clear0", tag);   du_print_tensor(l, v);
}

static void cpu_and_test_buffers(struct wsp_ggml_context * ctx, const struct wsp_ggml_tensor * t) {
    wsp_ggml_backend_buffer_type_t cpu = wsp_ggml_backend_cpu_buffer_type();
    wsp_ggml_backend_buffer_type_t tst = test_backend_buffer_type();
    DU_B("cpu_buffer_type_stable", cpu == wsp_ggml_backend_cpu_buffer_type());
    buft_facts("cpu", cpu, t);
    buft_facts("test", tst, t);
    dummy_buffer("cpu_dummy", cpu, t);
    dummy_buffer("test_dummy", tst, t);

    wsp_ggml_backend_buffer_t cb = wsp_ggml_backend_buft_alloc_buffer(cpu, 1000);
    buffer_facts("cpu_1000", cb, cpu, t);
    buffer_usage_and_reset("cpu_1000", cb);
    alloc_and_view("cpu_1000", cb, ctx);
    DU_B("cpu_1000 is_multi", wsp_ggml_backend_buffer_is_multi_buffer(cb));
    wsp_ggml_backend_buffer_free(cb);

    wsp_ggml_backend_buffer_t tb = wsp_ggml_backend_buft_alloc_buffer(tst, 256);
    buffer_facts("test_256", tb, tst, t);
    buffer_usage_and_reset("test_256", tb);
    alloc_and_view("test_256", tb, ctx);
    wsp_ggml_backend_buffer_free(tb);

    wsp_ggml_backend_buffer_free(NULL);
    DU_B("free_null_ok", true);
}

static void from_ptr_buffer(struct wsp_ggml_context * ctx, const struct wsp_ggml_tensor * t) {
    uint8_t * mem = (uint8_t *) aligned_alloc(64, 256);
    memset(mem, 0, 256);
    wsp_ggml_backend_buffer_t b = wsp_ggml_backend_cpu_buffer_from_ptr(mem, 256);
    wsp_ggml_backend_buffer_type_t bt = wsp_ggml_backend_buffer_get_type(b);
    buft_facts("mapped", bt, t);
    buffer_facts("mapped", b, bt, t);
    DU_B("mapped base_is_ptr", wsp_ggml_backend_buffer_get_base(b) == mem);
    DU_B("mapped type_is_cpu", bt == wsp_ggml_backend_cpu_buffer_type());
    wsp_ggml_backend_buffer_clear(b, 0x22);
    DU_B("mapped clear_reaches_ptr", mem[0] == 0x22 && mem[255] == 0x22);
    buffer_usage_and_reset("mapped", b);
    alloc_and_view("mapped", b, ctx);
    wsp_ggml_backend_buffer_free(b);   // must not free mem
    DU_B("mapped ptr_still_owned", mem[0] == 0);
    free(mem);
}

static void custom_buffers(struct wsp_ggml_context * ctx, const struct wsp_ggml_tensor * t) {
    struct du_custom full, bare;
    wsp_ggml_backend_buffer_type_t fb = du_custom_init(&full, "CUSTOM_FULL", true, true, 4096);
    wsp_ggml_backend_buffer_type_t bb = du_custom_init(&bare, "CUSTOM_BARE", false, false, 0);
    buft_facts("custom_full", fb, t);
    buft_facts("custom_bare", bb, t);
    dummy_buffer("custom_full_dummy", fb, t);
    DU_I("custom_full allocs_after_dummy", full.n_alloc);

    wsp_ggml_backend_buffer_t b = wsp_ggml_backend_buft_alloc_buffer(fb, 512);
    buffer_facts("custom_full_512", b, fb, t);
    buffer_usage_and_reset("custom_full_512", b);
    DU_I("custom_full resets", full.n_reset);

    struct wsp_ggml_tensor * good = wsp_ggml_new_tensor_1d(ctx, WSP_GGML_TYPE_F32, 4);
    struct wsp_ggml_tensor * bad  = wsp_ggml_new_tensor_1d(ctx, WSP_GGML_TYPE_F32, 4);
    wsp_ggml_set_name(bad, "bad");
    char * base = (char *) wsp_ggml_backend_buffer_get_base(b);
    DU_I("custom_full alloc_good_status", wsp_ggml_backend_tensor_alloc(b, good, base));
    DU_I("custom_full alloc_bad_status", wsp_ggml_backend_tensor_alloc(b, bad, base + 64));
    DU_I("custom_full init_bad_status", wsp_ggml_backend_buffer_init_tensor(b, bad));
    DU_I("custom_full inits", full.n_init);
    alloc_and_view("custom_full_512", b, ctx);
    DU_I("custom_full inits_after_view", full.n_init);
    wsp_ggml_backend_buffer_free(b);
    DU_I("custom_full frees", full.n_free);

    // buffer_init directly, with a buffer type that lacks every optional callback
    size_t size = 128;
    wsp_ggml_backend_buffer_t d = wsp_ggml_backend_buffer_init(bb, du_custom_buffer_iface(), aligned_alloc(32, size), size);
    buffer_facts("custom_bare_init", d, bb, t);
    buffer_usage_and_reset("custom_bare_init", d);
    DU_I("custom_bare resets", bare.n_reset);
    wsp_ggml_backend_buffer_free(d);
    DU_I("custom_bare frees", bare.n_free);
}

static void multi_buffers(struct wsp_ggml_context * ctx, const struct wsp_ggml_tensor * t) {
    wsp_ggml_backend_buffer_type_t cpu = wsp_ggml_backend_cpu_buffer_type();
    wsp_ggml_backend_buffer_t parts[3] = {
        wsp_ggml_backend_buft_alloc_buffer(cpu, 64),
        wsp_ggml_backend_buft_alloc_buffer(cpu, 128),
        wsp_ggml_backend_buft_alloc_buffer(cpu, 96),
    };
    struct wsp_ggml_tensor * x = wsp_ggml_new_tensor_1d(ctx, WSP_GGML_TYPE_F32, 4);
    wsp_ggml_backend_tensor_alloc(parts[1], x, wsp_ggml_backend_buffer_get_base(parts[1]));
    wsp_ggml_backend_buffer_set_usage(parts[2], WSP_GGML_BACKEND_BUFFER_USAGE_COMPUTE);

    wsp_ggml_backend_buffer_t m = wsp_ggml_backend_multi_buffer_alloc_buffer(parts, 3);
    DU_B("multi is_multi", wsp_ggml_backend_buffer_is_multi_buffer(m));
    DU_B("multi part_is_multi", wsp_ggml_backend_buffer_is_multi_buffer(parts[0]));
    DU_S("multi name", wsp_ggml_backend_buffer_name(m));
    DU_Z("multi size", wsp_ggml_backend_buffer_get_size(m));
    DU_B("multi type_is_cpu", wsp_ggml_backend_buffer_get_type(m) == cpu);
    DU_B("multi is_host", wsp_ggml_backend_buffer_is_host(m));
    DU_Z("multi alignment", wsp_ggml_backend_buffer_get_alignment(m));
    DU_Z("multi alloc_size", wsp_ggml_backend_buffer_get_alloc_size(m, t));
    DU_I("multi usage_initial", wsp_ggml_backend_buffer_get_usage(m));
    DU_I("multi part2_usage_initial", wsp_ggml_backend_buffer_get_usage(parts[2]));

    wsp_ggml_backend_buffer_set_usage(m, WSP_GGML_BACKEND_BUFFER_USAGE_WEIGHTS);
    DU_I("multi usage_after_set", wsp_ggml_backend_buffer_get_usage(m));
    for (int i = 0; i < 3; i++) {
        printf("multi part%d_usage_after_set %d\n", i, (int) wsp_ggml_backend_buffer_get_usage(parts[i]));
    }
    wsp_ggml_backend_multi_buffer_set_usage(m, WSP_GGML_BACKEND_BUFFER_USAGE_COMPUTE);
    DU_I("multi usage_after_multi_set", wsp_ggml_backend_buffer_get_usage(m));
    for (int i = 0; i < 3; i++) {
        printf("multi part%d_usage_after_multi_set %d\n", i, (int) wsp_ggml_backend_buffer_get_usage(parts[i]));
    }
    wsp_ggml_backend_buffer_clear(m, 0x3c);
    du_print_tensor("multi part1_after_clear", x);
    wsp_ggml_backend_buffer_reset(m);
    wsp_ggml_backend_buffer_free(m);   // frees the parts too
    DU_B("multi freed", true);

    // multi-buffer of TEST buffers; a single part
    wsp_ggml_backend_buffer_t tp[1] = { wsp_ggml_backend_buft_alloc_buffer(test_backend_buffer_type(), 192) };
    wsp_ggml_backend_buffer_t tm = wsp_ggml_backend_multi_buffer_alloc_buffer(tp, 1);
    DU_S("multi_test name", wsp_ggml_backend_buffer_name(tm));
    DU_Z("multi_test size", wsp_ggml_backend_buffer_get_size(tm));
    DU_B("multi_test is_host", wsp_ggml_backend_buffer_is_host(tm));
    DU_B("multi_test is_multi", wsp_ggml_backend_buffer_is_multi_buffer(tm));
    wsp_ggml_backend_buffer_set_usage(tm, WSP_GGML_BACKEND_BUFFER_USAGE_WEIGHTS);
    DU_I("multi_test part_usage", wsp_ggml_backend_buffer_get_usage(tp[0]));
    wsp_ggml_backend_buffer_free(tm);
}

// wsp_ggml_backend_buffer_copy_tensor between all pairs of CPU / TEST / custom (no cpy_tensor) buffers
static void copy_tensor_pairs(void) {
    struct du_custom cc;
    wsp_ggml_backend_buffer_type_t kinds[3] = {
        wsp_ggml_backend_cpu_buffer_type(), test_backend_buffer_type(), du_custom_init(&cc, "CUSTOM", true, false, 0) };
    const char * names[3] = { "cpu", "test", "custom" };
    struct wsp_ggml_context * ctx = du_ctx(16);
    wsp_ggml_backend_buffer_t bufs[3];
    struct wsp_ggml_tensor * src[3], * dst[3];
    for (int k = 0; k < 3; k++) {
        bufs[k] = wsp_ggml_backend_buft_alloc_buffer(kinds[k], 256);
        char * base = (char *) wsp_ggml_backend_buffer_get_base(bufs[k]);
        src[k] = wsp_ggml_new_tensor_2d(ctx, WSP_GGML_TYPE_F32, 3, 2);
        dst[k] = wsp_ggml_new_tensor_2d(ctx, WSP_GGML_TYPE_F32, 3, 2);
        wsp_ggml_backend_tensor_alloc(bufs[k], src[k], base);
        wsp_ggml_backend_tensor_alloc(bufs[k], dst[k], base + 128);
        du_fill(src[k], 10.0f * (float) (k + 1), 0.25f);
    }
    for (int s = 0; s < 3; s++) {
        for (int d = 0; d < 3; d++) {
            char l[128];
            wsp_ggml_backend_tensor_memset(dst[d], 0, 0, wsp_ggml_nbytes(dst[d]));
            bool ok = wsp_ggml_backend_buffer_copy_tensor(src[s], dst[d]);
            snprintf(l, sizeof(l), "copy_tensor %s->%s", names[s], names[d]); DU_B(l, ok);
            snprintf(l, sizeof(l), "copy_tensor %s->%s dst", names[s], names[d]); du_print_tensor(l, dst[d]);
        }
    }
    // destination is a view: the copy goes through the view source's buffer
    struct wsp_ggml_tensor * v = wsp_ggml_view_1d(ctx, dst[1], 3, 3 * sizeof(float));
    wsp_ggml_backend_view_init(v);
    struct wsp_ggml_tensor * s3 = wsp_ggml_view_1d(ctx, src[1], 3, 0);
    wsp_ggml_backend_view_init(s3);
    wsp_ggml_backend_tensor_memset(dst[1], 0, 0, wsp_ggml_nbytes(dst[1]));
    DU_B("copy_tensor test_view->test_view", wsp_ggml_backend_buffer_copy_tensor(s3, v));
    du_print_tensor("copy_tensor test_view dst", dst[1]);
    du_counters("copy_tensor counters");
    for (int k = 0; k < 3; k++) {
        wsp_ggml_backend_buffer_free(bufs[k]);
    }
    wsp_ggml_free(ctx);
}

int main(void) {
    struct wsp_ggml_context * ctx = du_ctx(64);
    struct wsp_ggml_tensor * t = wsp_ggml_new_tensor_2d(ctx, WSP_GGML_TYPE_F32, 5, 3);   // 60 bytes

    cpu_and_test_buffers(ctx, t);
    from_ptr_buffer(ctx, t);
    custom_buffers(ctx, t);
    multi_buffers(ctx, t);
    copy_tensor_pairs();
    du_counters("final counters");

    wsp_ggml_free(ctx);
    printf("done\n");
    return 0;
}
