// diff_registry: the backend registry. Initial state (the statically registered CPU backend), then
// wsp_ggml_backend_register(TEST) and wsp_ggml_backend_device_register() of a standalone ACCEL device
// ("EXTRA", reg NULL, partial get_props): reg_count/get/by_name and dev_count/get/by_name/by_type
// (case-insensitive names, unknown names), init_by_name, init_by_type, init_best at each stage, and
// wsp_ggml_backend_dev_get_props zeroing what a device leaves unset. Then two more devices registered on
// their own, "SIDE" whose reg is TEST and "OTHER" whose reg is the CPU's, and wsp_ggml_backend_unload(TEST):
// it removes every device whose reg is TEST (its own and SIDE) and no other. With backend API 2, an
// integrated GPU ("IGPU", reg NULL) registered last: init_best prefers it to the CPU, and get_props
// passes its device_id through (EXTRA's comes out NULL).
#include "diff_util.h"

// --- a standalone device that is not part of any reg ---
static const char * extra_name(wsp_ggml_backend_dev_t dev)        { (void) dev; return "EXTRA"; }
static const char * extra_description(wsp_ggml_backend_dev_t dev) { (void) dev; return "standalone accelerator"; }
static void extra_memory(wsp_ggml_backend_dev_t dev, size_t * f, size_t * t) { (void) dev; *f = 1000; *t = 2000; }
static enum wsp_ggml_backend_dev_type extra_type(wsp_ggml_backend_dev_t dev) { (void) dev; return WSP_GGML_BACKEND_DEVICE_TYPE_ACCEL; }
// only sets name and description: the rest must come out zeroed
static void extra_props(wsp_ggml_backend_dev_t dev, struct wsp_ggml_backend_dev_props * p) {
    p->name        = extra_name(dev);
    p->description = extra_description(dev);
}
static wsp_ggml_backend_t extra_init(wsp_ggml_backend_dev_t dev, const char * params) { (void) dev; (void) params; return NULL; }
static wsp_ggml_backend_buffer_type_t extra_buft(wsp_ggml_backend_dev_t dev) { (void) dev; return wsp_ggml_backend_cpu_buffer_type(); }
static bool extra_supports_op(wsp_ggml_backend_dev_t dev, const struct wsp_ggml_tensor * op) { (void) dev; (void) op; return false; }
static bool extra_supports_buft(wsp_ggml_backend_dev_t dev, wsp_ggml_backend_buffer_type_t b) { (void) dev; return wsp_ggml_backend_buft_is_host(b); }

static struct wsp_ggml_backend_device extra_dev = {
    .iface = {
        .get_name        = extra_name,
        .get_description = extra_description,
        .get_memory      = extra_memory,
        .get_type        = extra_type,
        .get_props       = extra_props,
        .init_backend    = extra_init,
        .get_buffer_type = extra_buft,
        .supports_op     = extra_supports_op,
        .supports_buft   = extra_supports_buft,
    },
    .reg     = NULL,
    .context = NULL,
};

// SIDE and OTHER: EXTRA's interface, named by their context
static const char * context_name(wsp_ggml_backend_dev_t dev) { return (const char *) dev->context; }
static char side_name[] = "SIDE", other_name[] = "OTHER";
static struct wsp_ggml_backend_device side_dev, other_dev;

#if WSP_GGML_BACKEND_API_VERSION >= 2
// IGPU: EXTRA's interface with its own type, name and props
static char igpu_name[] = "IGPU";
static enum wsp_ggml_backend_dev_type igpu_type(wsp_ggml_backend_dev_t dev) { (void) dev; return WSP_GGML_BACKEND_DEVICE_TYPE_IGPU; }
static void igpu_props(wsp_ggml_backend_dev_t dev, struct wsp_ggml_backend_dev_props * p) {
    p->name      = context_name(dev);
    p->type      = igpu_type(dev);
    p->device_id = "0000:00:02.0";
}
static struct wsp_ggml_backend_device igpu_dev;
#endif

static void print_backend(const char * label, wsp_ggml_backend_t be) {
    printf("%s %s\n", label, be ? wsp_ggml_backend_name(be) : "(null)");
    wsp_ggml_backend_free(be);
}

static void dump(const char * stage) {
    char l[160];
    size_t n_regs = wsp_ggml_backend_reg_count(), n_devs = wsp_ggml_backend_dev_count();
    snprintf(l, sizeof(l), "%s reg_count", stage); DU_Z(l, n_regs);
    for (size_t i = 0; i < n_regs; i++) {
        wsp_ggml_backend_reg_t r = wsp_ggml_backend_reg_get(i);
        printf("%s reg_get %zu %s devs=%zu\n", stage, i, wsp_ggml_backend_reg_name(r), wsp_ggml_backend_reg_dev_count(r));
    }
    snprintf(l, sizeof(l), "%s dev_count", stage); DU_Z(l, n_devs);
    for (size_t i = 0; i < n_devs; i++) {
        wsp_ggml_backend_dev_t d = wsp_ggml_backend_dev_get(i);
        wsp_ggml_backend_reg_t r = wsp_ggml_backend_dev_backend_reg(d);
        printf("%s dev_get %zu %s type=%d reg=%s\n", stage, i, wsp_ggml_backend_dev_name(d), (int) wsp_ggml_backend_dev_type(d),
               r ? wsp_ggml_backend_reg_name(r) : "(null)");
    }
    const char * names[] = { "CPU", "cpu", "Cpu", "TEST", "Test", "tEsT", "EXTRA", "extra", "", "CPU0", "CP", "nope" };
    for (int i = 0; i < (int) (sizeof(names) / sizeof(names[0])); i++) {
        wsp_ggml_backend_reg_t r = wsp_ggml_backend_reg_by_name(names[i]);
        wsp_ggml_backend_dev_t d = wsp_ggml_backend_dev_by_name(names[i]);
        printf("%s by_name '%s' reg=%s dev=%s\n", stage, names[i], r ? wsp_ggml_backend_reg_name(r) : "(null)",
               d ? wsp_ggml_backend_dev_name(d) : "(null)");
    }
    const enum wsp_ggml_backend_dev_type types[] = {
        WSP_GGML_BACKEND_DEVICE_TYPE_CPU, WSP_GGML_BACKEND_DEVICE_TYPE_GPU,
#if WSP_GGML_BACKEND_API_VERSION >= 2
        WSP_GGML_BACKEND_DEVICE_TYPE_IGPU,
#endif
        WSP_GGML_BACKEND_DEVICE_TYPE_ACCEL };
    for (int i = 0; i < (int) (sizeof(types) / sizeof(types[0])); i++) {
        wsp_ggml_backend_dev_t d = wsp_ggml_backend_dev_by_type(types[i]);
        printf("%s dev_by_type %d %s\n", stage, (int) types[i], d ? wsp_ggml_backend_dev_name(d) : "(null)");
        snprintf(l, sizeof(l), "%s init_by_type %d", stage, (int) types[i]);
        print_backend(l, wsp_ggml_backend_init_by_type(types[i], NULL));
    }
    const char * init_names[] = { "CPU", "test", "extra", "nope" };
    for (int i = 0; i < 4; i++) {
        snprintf(l, sizeof(l), "%s init_by_name '%s'", stage, init_names[i]);
        print_backend(l, wsp_ggml_backend_init_by_name(init_names[i], i == 0 ? "n_threads=1" : NULL));
    }
    snprintf(l, sizeof(l), "%s init_best", stage);
    print_backend(l, wsp_ggml_backend_init_best());
}

int main(void) {
    dump("initial");

    wsp_ggml_backend_register(test_backend_reg());
    DU_B("registered reg_get1_is_test", wsp_ggml_backend_reg_count() == 2 && wsp_ggml_backend_reg_get(1) == test_backend_reg());
    dump("with_test");

    wsp_ggml_backend_device_register(&extra_dev);
    dump("with_extra");

    wsp_ggml_backend_dev_t d = wsp_ggml_backend_dev_by_name("extra");
    DU_B("extra is_registered_pointer", d == &extra_dev);
    struct wsp_ggml_backend_dev_props p;
    memset(&p, 0x5a, sizeof(p));
    wsp_ggml_backend_dev_get_props(d, &p);
    DU_S("extra props_name", p.name);
    DU_S("extra props_description", p.description);
    DU_Z("extra props_memory_free", p.memory_free);
    DU_Z("extra props_memory_total", p.memory_total);
    DU_I("extra props_type", p.type);
#if WSP_GGML_BACKEND_API_VERSION >= 2
    DU_B("extra props_device_id_null", p.device_id == NULL);  // never dereferenced: it may be the 0x5a bytes
#endif
    printf("extra props_caps %d %d %d %d\n", p.caps.async, p.caps.host_buffer, p.caps.buffer_from_host_ptr, p.caps.events);
    size_t f = 0, t = 0;
    wsp_ggml_backend_dev_memory(d, &f, &t);
    printf("extra dev_memory %zu %zu\n", f, t);
    DU_S("extra dev_description", wsp_ggml_backend_dev_description(d));
    DU_B("extra dev_backend_reg_null", wsp_ggml_backend_dev_backend_reg(d) == NULL);
    DU_B("extra dev_host_buffer_type_null", wsp_ggml_backend_dev_host_buffer_type(d) == NULL);
    struct wsp_ggml_context * ctx = du_ctx(2);
    struct wsp_ggml_tensor * x = wsp_ggml_new_tensor_1d(ctx, WSP_GGML_TYPE_F32, 4);
    DU_B("extra dev_offload_op_default", wsp_ggml_backend_dev_offload_op(d, wsp_ggml_sqr(ctx, x)));
    DU_B("extra dev_supports_op", wsp_ggml_backend_dev_supports_op(d, x));
    DU_B("extra dev_supports_buft_cpu", wsp_ggml_backend_dev_supports_buft(d, wsp_ggml_backend_cpu_buffer_type()));
    wsp_ggml_free(ctx);
    DU_B("extra dev_event_new_null", wsp_ggml_backend_event_new(d) == NULL);

    side_dev = other_dev = extra_dev;
    side_dev.iface.get_name = other_dev.iface.get_name = context_name;
    side_dev.context  = side_name;
    side_dev.reg      = test_backend_reg();
    other_dev.context = other_name;
    other_dev.reg     = wsp_ggml_backend_reg_by_name("CPU");
    wsp_ggml_backend_device_register(&side_dev);
    wsp_ggml_backend_device_register(&other_dev);
    dump("with_side");
    wsp_ggml_backend_unload(test_backend_reg());
    dump("after_unload");

#if WSP_GGML_BACKEND_API_VERSION >= 2
    igpu_dev = extra_dev;
    igpu_dev.iface.get_name  = context_name;
    igpu_dev.iface.get_type  = igpu_type;
    igpu_dev.iface.get_props = igpu_props;
    igpu_dev.context         = igpu_name;
    wsp_ggml_backend_device_register(&igpu_dev);
    dump("with_igpu");
    memset(&p, 0x5a, sizeof(p));
    wsp_ggml_backend_dev_get_props(&igpu_dev, &p);
    DU_S("igpu props_name", p.name);
    DU_S("igpu props_description", p.description);
    DU_I("igpu props_type", p.type);
    DU_S("igpu props_device_id", p.device_id);
#endif

    du_counters("final counters");
    printf("done\n");
    return 0;
}
