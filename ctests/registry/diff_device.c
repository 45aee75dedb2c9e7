// diff_device: every wsp_ggml_backend_dev_* accessor on the CPU device and the TEST device (name,
// description, memory, type, get_props with all fields, backend_reg, init, buffer_type, host_buffer_type,
// buffer_from_host_ptr on CPU, supports_op, supports_buft, offload_op) and the reg accessors (name,
// dev_count, dev_get, get_proc_address incl. using wsp_ggml_backend_set_n_threads from the CPU reg).
// Values of the CPU device that come from the system (description, memory) are printed only as booleans.
#include "diff_util.h"
#include "ggml_names.h"
#include "ggml-cpu.h"

static void device_facts(const char * tag, wsp_ggml_backend_dev_t dev, wsp_ggml_backend_reg_t reg, bool system_values) {
    char l[128];
    snprintf(l, sizeof(l), "%s dev_name", tag); DU_S(l, wsp_ggml_backend_dev_name(dev));
    const char * desc = wsp_ggml_backend_dev_description(dev);
    if (system_values) {
        snprintf(l, sizeof(l), "%s dev_description_nonempty", tag); DU_B(l, desc != NULL && desc[0] != '\0');
    } else {
        snprintf(l, sizeof(l), "%s dev_description", tag); DU_S(l, desc);
    }
    size_t mfree = 0, mtotal = 0;
    wsp_ggml_backend_dev_memory(dev, &mfree, &mtotal);
    if (system_values) {
        snprintf(l, sizeof(l), "%s dev_memory_total_positive", tag); DU_B(l, mtotal > 0);
        snprintf(l, sizeof(l), "%s dev_memory_free_le_total", tag);  DU_B(l, mfree <= mtotal);
    } else {
        snprintf(l, sizeof(l), "%s dev_memory_free", tag);  DU_Z(l, mfree);
        snprintf(l, sizeof(l), "%s dev_memory_total", tag); DU_Z(l, mtotal);
    }
    snprintf(l, sizeof(l), "%s dev_type", tag); DU_I(l, wsp_ggml_backend_dev_type(dev));

    struct wsp_ggml_backend_dev_props p;
    memset(&p, 0xab, sizeof(p));
    wsp_ggml_backend_dev_get_props(dev, &p);
    snprintf(l, sizeof(l), "%s props_name", tag); DU_S(l, p.name);
    if (system_values) {
        snprintf(l, sizeof(l), "%s props_description_same", tag); DU_B(l, p.description && strcmp(p.description, desc) == 0);
        snprintf(l, sizeof(l), "%s props_memory_total_positive", tag); DU_B(l, p.memory_total > 0);
    } else {
        snprintf(l, sizeof(l), "%s props_description", tag);  DU_S(l, p.description);
        snprintf(l, sizeof(l), "%s props_memory_free", tag);  DU_Z(l, p.memory_free);
        snprintf(l, sizeof(l), "%s props_memory_total", tag); DU_Z(l, p.memory_total);
    }
    snprintf(l, sizeof(l), "%s props_type", tag);                 DU_I(l, p.type);
#if WSP_GGML_BACKEND_API_VERSION >= 2
    // neither device sets it: get_props must have zeroed the 0xab bytes (never dereferenced)
    snprintf(l, sizeof(l), "%s props_device_id_null", tag);       DU_B(l, p.device_id == NULL);
#endif
    snprintf(l, sizeof(l), "%s props_caps_async", tag);           DU_B(l, p.caps.async);
    snprintf(l, sizeof(l), "%s props_caps_host_buffer", tag);     DU_B(l, p.caps.host_buffer);
    snprintf(l, sizeof(l), "%s props_caps_buffer_from_host_ptr", tag); DU_B(l, p.caps.buffer_from_host_ptr);
    snprintf(l, sizeof(l), "%s props_caps_events", tag);          DU_B(l, p.caps.events);

    wsp_ggml_backend_reg_t r = wsp_ggml_backend_dev_backend_reg(dev);
    snprintf(l, sizeof(l), "%s dev_backend_reg_match", tag); DU_B(l, r == reg);
    snprintf(l, sizeof(l), "%s dev_backend_reg_name", tag);  DU_S(l, wsp_ggml_backend_reg_name(r));

    wsp_ggml_backend_t be = wsp_ggml_backend_dev_init(dev, NULL);
    snprintf(l, sizeof(l), "%s dev_init_name", tag);   DU_S(l, wsp_ggml_backend_name(be));
    snprintf(l, sizeof(l), "%s dev_init_device", tag); DU_B(l, wsp_ggml_backend_get_device(be) == dev);
    wsp_ggml_backend_free(be);
    be = wsp_ggml_backend_dev_init(dev, "some params");
    snprintf(l, sizeof(l), "%s dev_init_params_name", tag); DU_S(l, wsp_ggml_backend_name(be));
    wsp_ggml_backend_free(be);

    wsp_ggml_backend_buffer_type_t buft = wsp_ggml_backend_dev_buffer_type(dev);
    snprintf(l, sizeof(l), "%s dev_buffer_type", tag);      DU_S(l, wsp_ggml_backend_buft_name(buft));
    snprintf(l, sizeof(l), "%s dev_host_buffer_type_null", tag); DU_B(l, wsp_ggml_backend_dev_host_buffer_type(dev) == NULL);
}

static void op_facts(wsp_ggml_backend_dev_t cpu, wsp_ggml_backend_dev_t tst) {
    struct wsp_ggml_context * ctx = du_ctx(16);
    struct wsp_ggml_tensor * x = wsp_ggml_new_tensor_2d(ctx, WSP_GGML_TYPE_F32, 8, 2);
    struct wsp_ggml_tensor * y = wsp_ggml_new_tensor_2d(ctx, WSP_GGML_TYPE_F32, 8, 2);
    struct wsp_ggml_tensor * s = wsp_ggml_add(ctx, x, y);
    struct wsp_ggml_tensor * m = wsp_ggml_mul_mat(ctx, x, y);
    struct wsp_ggml_tensor * p = wsp_ggml_permute(ctx, x, 1, 0, 2, 3);
    struct wsp_ggml_tensor * c = wsp_ggml_scale(ctx, y, 2.0f);
    // x lives in a TEST buffer, y stays unallocated
    wsp_ggml_backend_buffer_t tb = wsp_ggml_backend_buft_alloc_buffer(test_backend_buffer_type(), 256);
    wsp_ggml_backend_tensor_alloc(tb, x, wsp_ggml_backend_buffer_get_base(tb));

    const struct wsp_ggml_tensor * ops[] = { x, y, s, m, p, c };
    const char * names[] = { "leaf_test_buffer", "leaf_unalloc", "add_test_src", "mul_mat_test_src", "permute_test_src", "scale_unalloc" };
    for (int i = 0; i < 6; i++) {
        printf("dev_supports_op %s cpu=%d test=%d\n", names[i], wsp_ggml_backend_dev_supports_op(cpu, ops[i]),
               wsp_ggml_backend_dev_supports_op(tst, ops[i]));
    }
    const enum wsp_ggml_op off[] = { WSP_GGML_OP_SCALE };
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < 6; i++) {
            printf("dev_offload_op pass%d %s cpu=%d test=%d\n", pass, names[i], wsp_ggml_backend_dev_offload_op(cpu, ops[i]),
                   wsp_ggml_backend_dev_offload_op(tst, ops[i]));
        }
        test_backend_set_offload_ops(off, 1);
    }
    test_backend_reset_config();

    wsp_ggml_backend_buffer_type_t bufts[3] = {
        wsp_ggml_backend_dev_buffer_type(cpu), wsp_ggml_backend_dev_buffer_type(tst), wsp_ggml_backend_cpu_buffer_type() };
    for (int i = 0; i < 3; i++) {
        printf("dev_supports_buft %d %s cpu=%d test=%d\n", i, wsp_ggml_backend_buft_name(bufts[i]),
               wsp_ggml_backend_dev_supports_buft(cpu, bufts[i]), wsp_ggml_backend_dev_supports_buft(tst, bufts[i]));
    }
    wsp_ggml_backend_buffer_free(tb);
    wsp_ggml_free(ctx);
}

static void host_ptr_buffer(wsp_ggml_backend_dev_t cpu) {
    float * mem = (float *) aligned_alloc(64, 256);
    memset(mem, 0, 256);
    wsp_ggml_backend_buffer_t b = wsp_ggml_backend_dev_buffer_from_host_ptr(cpu, mem, 256, 64);
    DU_S("host_ptr name", wsp_ggml_backend_buffer_name(b));
    DU_Z("host_ptr size", wsp_ggml_backend_buffer_get_size(b));
    DU_B("host_ptr base_is_ptr", wsp_ggml_backend_buffer_get_base(b) == mem);
    DU_B("host_ptr is_host", wsp_ggml_backend_buffer_is_host(b));
    DU_B("host_ptr supported_by_cpu", wsp_ggml_backend_dev_supports_buft(cpu, wsp_ggml_backend_buffer_get_type(b)));
    struct wsp_ggml_context * ctx = du_ctx(2);
    struct wsp_ggml_tensor * t = wsp_ggml_new_tensor_1d(ctx, WSP_GGML_TYPE_F32, 4);
    wsp_ggml_backend_tensor_alloc(b, t, (char *) mem + 32);
    du_fill(t, 7.0f, 1.0f);
    du_print_f32("host_ptr written_through", mem + 8, 4);
    wsp_ggml_backend_buffer_free(b);
    wsp_ggml_free(ctx);
    free(mem);
}

static void reg_facts(const char * tag, wsp_ggml_backend_reg_t reg, wsp_ggml_backend_dev_t dev) {
    char l[128];
    snprintf(l, sizeof(l), "%s reg_name", tag);      DU_S(l, wsp_ggml_backend_reg_name(reg));
    snprintf(l, sizeof(l), "%s reg_dev_count", tag); DU_Z(l, wsp_ggml_backend_reg_dev_count(reg));
    snprintf(l, sizeof(l), "%s reg_dev_get0", tag);  DU_B(l, wsp_ggml_backend_reg_dev_get(reg, 0) == dev);
    const char * names[] = { GGML_SYMBOL("ggml_backend_set_n_threads"), GGML_SYMBOL("ggml_backend_dev_get_extra_bufts"),
                             GGML_SYMBOL("ggml_backend_get_features"), GGML_SYMBOL("ggml_backend_set_abort_callback"),
                             "no_such_function", "" };
    for (int i = 0; i < 6; i++) {
        printf("%s get_proc_address '%s' %d\n", tag, names[i], wsp_ggml_backend_reg_get_proc_address(reg, names[i]) != NULL);
    }
}

// a CPU backend set to 1 thread through the function from get_proc_address still computes
static void n_threads(wsp_ggml_backend_reg_t cpu_reg) {
    wsp_ggml_backend_set_n_threads_t fn =
        (wsp_ggml_backend_set_n_threads_t) wsp_ggml_backend_reg_get_proc_address(cpu_reg, GGML_SYMBOL("ggml_backend_set_n_threads"));
    wsp_ggml_backend_t be = wsp_ggml_backend_dev_init(wsp_ggml_backend_reg_dev_get(cpu_reg, 0), NULL);
    fn(be, 1);
    struct wsp_ggml_context * ctx = du_ctx(4);
    struct wsp_ggml_tensor * x = wsp_ggml_new_tensor_1d(ctx, WSP_GGML_TYPE_F32, 5);
    struct wsp_ggml_tensor * y = wsp_ggml_sqr(ctx, x);
    struct wsp_ggml_cgraph * gf = wsp_ggml_new_graph(ctx);
    wsp_ggml_build_forward_expand(gf, y);
    wsp_ggml_backend_buffer_t buf = wsp_ggml_backend_alloc_ctx_tensors(ctx, be);
    du_fill(x, -2.0f, 1.0f);
    DU_I("n_threads1 compute_status", wsp_ggml_backend_graph_compute(be, gf));
    du_print_tensor("n_threads1 sqr", y);
    wsp_ggml_backend_buffer_free(buf);
    wsp_ggml_free(ctx);
    wsp_ggml_backend_free(be);
}

int main(void) {
    wsp_ggml_backend_reg_t cpu_reg = wsp_ggml_backend_cpu_reg();
    wsp_ggml_backend_dev_t cpu = wsp_ggml_backend_reg_dev_get(cpu_reg, 0);
    wsp_ggml_backend_reg_t tst_reg = test_backend_reg();
    wsp_ggml_backend_dev_t tst = wsp_ggml_backend_reg_dev_get(tst_reg, 0);

    device_facts("cpu", cpu, cpu_reg, true);
    device_facts("test", tst, tst_reg, false);
    DU_B("cpu dev_buffer_type_is_cpu_buffer_type", wsp_ggml_backend_dev_buffer_type(cpu) == wsp_ggml_backend_cpu_buffer_type());
    DU_B("test dev_buffer_type_is_test", wsp_ggml_backend_dev_buffer_type(tst) == test_backend_buffer_type());
    op_facts(cpu, tst);
    host_ptr_buffer(cpu);
    reg_facts("cpu", cpu_reg, cpu);
    reg_facts("test", tst_reg, tst);
    n_threads(cpu_reg);
    du_counters("final counters");
    printf("done\n");
    return 0;
}
