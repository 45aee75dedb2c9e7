// loading: dynamic backend loading and the registry's thread safety, against a build of the
// library WITHOUT the statically registered CPU backend. whisper.rn's CPU backend is built as a
// loadable module (libggml-cpu-<variant>.so, see ctests/CMakeLists.txt),
// next to deliberately broken modules (modules/bad_module.c).
//
//   loading <scenario> <modules-dir> <work-dir> [ops-per-thread]
//
// <modules-dir> holds libggml-cpu-high.so (score 30), libggml-cpu-low.so (score 10) and
// bad-{noinit,score0,initnull,api2}.so (api2: a reg of the other backend API version); <work-dir>
// is an empty directory the scenario may fill.
// Every log line is captured through wsp_ggml_log_set and printed as "log <level>: <text>", so
// that the drivers can check the messages too. A scenario checks itself and ends with
// "PASS <scenario>" (exit 0), "SKIP <scenario>: <why>" (exit 0) or "FAIL ..." (exit 1).
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ggml.h"
#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml-backend-impl.h"
#include "ggml_names.h"

static const char * g_scenario = "?";
static char         g_modules[PATH_MAX];
static char         g_work[PATH_MAX];

// ---------------------------------------------------------------------------------------------
// checks and log capture
// ---------------------------------------------------------------------------------------------

static void fail(int line, const char * cond, const char * fmt, ...) {
    char    why[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof(why), fmt, ap);
    va_end(ap);
    fflush(stdout);
    printf("FAIL %s (loading.c:%d): %s [%s]\n", g_scenario, line, why, cond);
    fprintf(stderr, "FAIL %s (loading.c:%d): %s [%s]\n", g_scenario, line, why, cond);
    fflush(stdout);
    fflush(stderr);
    // _exit: other threads may still be running, atexit handlers must not race them
    _exit(1);
}

#define CHECK(cond, ...)                               \
    do {                                               \
        if (!(cond)) {                                 \
            fail(__LINE__, #cond, __VA_ARGS__);        \
        }                                              \
    } while (0)

static void skip(const char * fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    printf("SKIP %s: ", g_scenario);
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    fflush(stdout);
    exit(0);
}

#define MAX_LOG_LINES 1024

static pthread_mutex_t g_log_mutex = PTHREAD_MUTEX_INITIALIZER;
static char *          g_log[MAX_LOG_LINES];
static enum wsp_ggml_log_level g_log_level[MAX_LOG_LINES];
static int             g_n_log;
static long            g_log_count[WSP_GGML_LOG_LEVEL_CONT + 1];
static bool            g_log_quiet;  // threads: count lines, print only warnings and errors

static const char * level_name(enum wsp_ggml_log_level level) {
    switch (level) {
        case WSP_GGML_LOG_LEVEL_DEBUG: return "debug";
        case WSP_GGML_LOG_LEVEL_INFO:  return "info";
        case WSP_GGML_LOG_LEVEL_WARN:  return "warn";
        case WSP_GGML_LOG_LEVEL_ERROR: return "error";
        case WSP_GGML_LOG_LEVEL_CONT:  return "cont";
        default:                       return "none";
    }
}

static void on_log(enum wsp_ggml_log_level level, const char * text, void * user_data) {
    (void) user_data;
    pthread_mutex_lock(&g_log_mutex);
    if ((int) level >= 0 && level <= WSP_GGML_LOG_LEVEL_CONT) {
        g_log_count[level]++;
    }
    if (!g_log_quiet || level >= WSP_GGML_LOG_LEVEL_WARN) {
        size_t n = strlen(text);
        printf("log %s: %s%s", level_name(level), text, n > 0 && text[n - 1] == '\n' ? "" : "\n");
        if (!g_log_quiet && g_n_log < MAX_LOG_LINES) {
            g_log_level[g_n_log] = level;
            g_log[g_n_log++]     = strdup(text);
        }
    }
    pthread_mutex_unlock(&g_log_mutex);
}

static void free_log(void) {
    for (int i = 0; i < g_n_log; i++) {
        free(g_log[i]);
    }
    g_n_log = 0;
}

// How many captured lines at `level` contain all of `a`, `b` (may be NULL) and `c` (may be NULL).
static int count_log(enum wsp_ggml_log_level level, const char * a, const char * b, const char * c) {
    int n = 0;
    for (int i = 0; i < g_n_log; i++) {
        n += g_log_level[i] == level && strstr(g_log[i], a) && (!b || strstr(g_log[i], b)) && (!c || strstr(g_log[i], c));
    }
    return n;
}

// Some line was logged at `level` (DEBUG, INFO, WARN, ERROR) with all of a, b and c in it.
#define EXPECT_LOG(level, a, b, c)                                                                  \
    CHECK(count_log(WSP_GGML_LOG_LEVEL_##level, a, b, c) > 0, "no " #level " line contains \"%s\" + \"%s\" + \"%s\"", a, \
          (b) ? (b) : "", (c) ? (c) : "")
// Exactly one such line: a condition reported once, not once per backend name or module.
#define EXPECT_LOG_ONCE(level, a, b, c)                                                               \
    CHECK(count_log(WSP_GGML_LOG_LEVEL_##level, a, b, c) == 1, "%d " #level " lines contain \"%s\" + \"%s\" + \"%s\"", \
          count_log(WSP_GGML_LOG_LEVEL_##level, a, b, c), a, (b) ? (b) : "", (c) ? (c) : "")

// ---------------------------------------------------------------------------------------------
// paths
// ---------------------------------------------------------------------------------------------

// dir + "/" + name in one of a few rotating buffers (main thread only). Formatted on the stack
// first: dir or name may be an earlier result, in another of the buffers.
static const char * path_in(const char * dir, const char * name) {
    static char buffers[16][PATH_MAX];
    static int  next;
    char        path[PATH_MAX];
    int         n = snprintf(path, PATH_MAX, "%s/%s", dir, name);
    CHECK(n > 0 && n < PATH_MAX, "path too long: %s/%s", dir, name);
    char * out = buffers[next++ % 16];
    memcpy(out, path, (size_t) n + 1);
    return out;
}

static const char * module(const char * name) {
    return path_in(g_modules, name);
}

static void make_dir(const char * path) {
    CHECK(mkdir(path, 0755) == 0, "mkdir %s: %s", path, strerror(errno));
}

// Puts `target` into `dir` under `name` (a symlink: the loader must follow it).
static const char * place(const char * dir, const char * name, const char * target) {
    const char * link = path_in(dir, name);
    CHECK(symlink(target, link) == 0, "symlink %s -> %s: %s", link, target, strerror(errno));
    return link;
}

// Whether the dynamic loader still has the library mapped (RTLD_NOLOAD never loads it).
static bool is_loaded(const char * path) {
    void * handle = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
    if (handle) {
        dlclose(handle);
        return true;
    }
    return false;
}

// ---------------------------------------------------------------------------------------------
// static test backends: one reg with one ACCEL device each, code and data in this program
// ---------------------------------------------------------------------------------------------

struct static_backend {
    char                           name[16];
    struct wsp_ggml_backend_reg    reg;
    struct wsp_ggml_backend_device dev;
};

#define N_THREADS 8
// [0] "BASE", registered before the threads start and never removed; [1 + i] thread i's own
static struct static_backend g_static[1 + N_THREADS];

// threads: BASE, first in every enumeration, yields the processor when asked for its name. A
// lookup by name or type asks the devices in order, so this opens a window between the
// lookup's snapshot of the registry and its call into the CPU device, in which another thread
// can unload the CPU module: a registry that let the module be closed then would crash here.
static bool g_slow_base;

static void maybe_yield(const struct static_backend * sb) {
    if (g_slow_base && sb == &g_static[0]) {
        sched_yield();
    }
}

static const char * sb_reg_name(wsp_ggml_backend_reg_t reg) {
    maybe_yield(reg->context);
    return ((struct static_backend *) reg->context)->name;
}

static size_t sb_reg_device_count(wsp_ggml_backend_reg_t reg) {
    (void) reg;
    return 1;
}

static wsp_ggml_backend_dev_t sb_reg_device(wsp_ggml_backend_reg_t reg, size_t index) {
    CHECK(index == 0, "device index %zu of a one-device reg", index);
    return &((struct static_backend *) reg->context)->dev;
}

static const char * sb_dev_name(wsp_ggml_backend_dev_t dev) {
    maybe_yield(dev->context);
    return ((struct static_backend *) dev->context)->name;
}

static const char * sb_dev_description(wsp_ggml_backend_dev_t dev) {
    (void) dev;
    return "static test device";
}

static void sb_dev_memory(wsp_ggml_backend_dev_t dev, size_t * free_mem, size_t * total) {
    (void) dev;
    *free_mem = 0;
    *total    = 0;
}

static enum wsp_ggml_backend_dev_type sb_dev_type(wsp_ggml_backend_dev_t dev) {
    maybe_yield(dev->context);
    return WSP_GGML_BACKEND_DEVICE_TYPE_ACCEL;
}

static void static_backends_init(void) {
    for (int i = 0; i < 1 + N_THREADS; i++) {
        struct static_backend * sb = &g_static[i];
        if (i == 0) {
            snprintf(sb->name, sizeof(sb->name), "BASE");
        } else {
            snprintf(sb->name, sizeof(sb->name), "STATIC%d", i - 1);
        }
        sb->reg = (struct wsp_ggml_backend_reg) {
            .api_version = WSP_GGML_BACKEND_API_VERSION,
            .iface       = { .get_name = sb_reg_name, .get_device_count = sb_reg_device_count, .get_device = sb_reg_device },
            .context     = sb,
        };
        sb->dev = (struct wsp_ggml_backend_device) {
            .iface   = { .get_name = sb_dev_name, .get_description = sb_dev_description, .get_memory = sb_dev_memory,
                         .get_type = sb_dev_type },
            .reg     = &sb->reg,
            .context = sb,
        };
    }
}

// ---------------------------------------------------------------------------------------------
// the CPU module at work
// ---------------------------------------------------------------------------------------------

static void expect_empty(const char * when) {
    CHECK(wsp_ggml_backend_reg_count() == 0 && wsp_ggml_backend_dev_count() == 0,
          "%s: %zu regs and %zu devices registered, expected none", when, wsp_ggml_backend_reg_count(),
          wsp_ggml_backend_dev_count());
    CHECK(wsp_ggml_backend_dev_by_type(WSP_GGML_BACKEND_DEVICE_TYPE_CPU) == NULL, "%s: a CPU device is registered", when);
}

// The loaded CPU device: the only device, of type CPU, named "CPU", of a reg named "CPU".
static wsp_ggml_backend_dev_t expect_cpu(const char * when) {
    wsp_ggml_backend_dev_t dev = wsp_ggml_backend_dev_by_type(WSP_GGML_BACKEND_DEVICE_TYPE_CPU);
    CHECK(dev != NULL, "%s: no CPU device", when);
    CHECK(wsp_ggml_backend_reg_count() == 1 && wsp_ggml_backend_dev_count() == 1, "%s: %zu regs, %zu devices, expected 1 and 1",
          when, wsp_ggml_backend_reg_count(), wsp_ggml_backend_dev_count());
    CHECK(wsp_ggml_backend_dev_get(0) == dev && wsp_ggml_backend_dev_by_name("CPU") == dev, "%s: CPU device not enumerated", when);
    wsp_ggml_backend_reg_t reg = wsp_ggml_backend_dev_backend_reg(dev);
    CHECK(reg != NULL && wsp_ggml_backend_reg_get(0) == reg && wsp_ggml_backend_reg_by_name("cpu") == reg,
          "%s: CPU reg not enumerated", when);
    printf("%s: device %s (%s), reg %s\n", when, wsp_ggml_backend_dev_name(dev), wsp_ggml_backend_dev_description(dev),
           wsp_ggml_backend_reg_name(reg));
    return dev;
}

// Computes out = 0.5 * (a x b^T) (mul_mat then scale) on the device and checks every value.
static void compute_on(wsp_ggml_backend_dev_t dev) {
    wsp_ggml_backend_t backend = wsp_ggml_backend_dev_init(dev, NULL);
    CHECK(backend != NULL, "wsp_ggml_backend_dev_init failed");

    struct wsp_ggml_init_params params = {
        .mem_size   = wsp_ggml_tensor_overhead() * 8 + wsp_ggml_graph_overhead(),
        .mem_buffer = NULL,
        .no_alloc   = true,
    };
    struct wsp_ggml_context * ctx = wsp_ggml_init(params);
    CHECK(ctx != NULL, "wsp_ggml_init failed");
    enum { K = 4, M = 3, N = 2 };
    struct wsp_ggml_tensor * a   = wsp_ggml_new_tensor_2d(ctx, WSP_GGML_TYPE_F32, K, M);
    struct wsp_ggml_tensor * b   = wsp_ggml_new_tensor_2d(ctx, WSP_GGML_TYPE_F32, K, N);
    struct wsp_ggml_tensor * out = wsp_ggml_scale(ctx, wsp_ggml_mul_mat(ctx, a, b), 0.5f);
    wsp_ggml_backend_buffer_t buffer = wsp_ggml_backend_alloc_ctx_tensors(ctx, backend);
    CHECK(buffer != NULL, "allocating the tensors failed");

    float va[M][K], vb[N][K], got[N][M];
    for (int i = 0; i < M; i++) {
        for (int k = 0; k < K; k++) {
            va[i][k] = (float) (i + 1) + 0.25f * (float) k;
        }
    }
    for (int j = 0; j < N; j++) {
        for (int k = 0; k < K; k++) {
            vb[j][k] = (float) (k - j) * 0.5f;
        }
    }
    wsp_ggml_backend_tensor_set(a, va, 0, sizeof(va));
    wsp_ggml_backend_tensor_set(b, vb, 0, sizeof(vb));

    struct wsp_ggml_cgraph * graph = wsp_ggml_new_graph(ctx);
    wsp_ggml_build_forward_expand(graph, out);
    enum wsp_ggml_status status = wsp_ggml_backend_graph_compute(backend, graph);
    CHECK(status == WSP_GGML_STATUS_SUCCESS, "graph_compute returned %d", (int) status);
    CHECK(out->ne[0] == M && out->ne[1] == N, "result shape %lld x %lld", (long long) out->ne[0], (long long) out->ne[1]);
    wsp_ggml_backend_tensor_get(out, got, 0, sizeof(got));
    for (int j = 0; j < N; j++) {
        for (int i = 0; i < M; i++) {
            float want = 0.0f;
            for (int k = 0; k < K; k++) {
                want += va[i][k] * vb[j][k];
            }
            want *= 0.5f;
            CHECK(fabsf(got[j][i] - want) <= 1e-4f * (1.0f + fabsf(want)), "out[%d][%d] = %g, expected %g", j, i,
                  (double) got[j][i], (double) want);
        }
    }
    printf("compute: mul_mat + scale on %s, %d values correct\n", wsp_ggml_backend_name(backend), M * N);

    wsp_ggml_backend_buffer_free(buffer);
    wsp_ggml_free(ctx);
    wsp_ggml_backend_free(backend);
}

// Unloads the reg of `dev` and checks that its devices left the enumeration and that the module
// at `path` is no longer mapped.
static void unload_and_check(wsp_ggml_backend_dev_t dev, const char * path) {
    wsp_ggml_backend_reg_t reg = wsp_ggml_backend_dev_backend_reg(dev);
    wsp_ggml_backend_unload(reg);
    expect_empty("after unload");
    CHECK(wsp_ggml_backend_reg_by_name("CPU") == NULL && wsp_ggml_backend_dev_by_name("CPU") == NULL, "CPU still found by name");
    CHECK(!is_loaded(path), "%s is still mapped after wsp_ggml_backend_unload", path);
    printf("unloaded: no devices, %s closed\n", path);
}

// One unload of a module loaded more times than unloaded so far: its reg and device stay registered, the
// module stays mapped, and its device still computes.
static void unload_one_of_several(wsp_ggml_backend_dev_t dev, const char * path, const char * when) {
    wsp_ggml_backend_unload(wsp_ggml_backend_dev_backend_reg(dev));
    CHECK(expect_cpu(when) == dev, "%s: another CPU device is registered", when);
    CHECK(is_loaded(path), "%s: %s is no longer mapped", when, path);
    compute_on(dev);
}

// After a rejected module or path: the registry still registers, loads and unloads.
static void expect_registry_usable(bool with_module) {
    wsp_ggml_backend_register(&g_static[0].reg);
    CHECK(wsp_ggml_backend_reg_count() == 1 && wsp_ggml_backend_dev_by_name("BASE") == &g_static[0].dev,
          "registering a static reg failed");
    if (with_module) {
        const char *           path = module("libggml-cpu-high.so");
        wsp_ggml_backend_reg_t reg  = wsp_ggml_backend_load(path);
        CHECK(reg != NULL, "loading %s failed", path);
        CHECK(wsp_ggml_backend_reg_count() == 2 && wsp_ggml_backend_dev_count() == 2, "%zu regs, %zu devices after a load",
              wsp_ggml_backend_reg_count(), wsp_ggml_backend_dev_count());
        wsp_ggml_backend_unload(reg);
        CHECK(!is_loaded(path), "%s still mapped", path);
    }
    wsp_ggml_backend_unload(&g_static[0].reg);
    expect_empty("after the usability check");
    printf("registry usable%s\n", with_module ? ": registered, loaded and unloaded" : ": registered and unregistered");
}

// ---------------------------------------------------------------------------------------------
// scenarios: loading the CPU module
// ---------------------------------------------------------------------------------------------

// load_all_from_path(dir) finds the CPU module, computes with it, and unload closes it; the same
// through load_all() with the module in the current directory.
static void scenario_load_all(void) {
    expect_empty("at start");
    const char * dir = path_in(g_work, "cpu");
    make_dir(dir);
    const char * path = place(dir, "libggml-cpu-high.so", module("libggml-cpu-high.so"));

    wsp_ggml_backend_load_all_from_path(dir);
    EXPECT_LOG(INFO, GGML_SYMBOL("ggml_backend_load: loaded CPU backend from "), path, NULL);
    CHECK(is_loaded(path), "%s not mapped after loading", path);
    wsp_ggml_backend_dev_t dev = expect_cpu("load_all_from_path");
    compute_on(dev);
    unload_and_check(dev, path);

    // default search paths: the executable's directory, then the current one
    CHECK(chdir(dir) == 0, "chdir %s: %s", dir, strerror(errno));
    wsp_ggml_backend_load_all();
    dev = expect_cpu("load_all from the current directory");
    compute_on(dev);
    unload_and_check(dev, path);
    CHECK(g_log_count[WSP_GGML_LOG_LEVEL_ERROR] == 0, "%ld error lines", g_log_count[WSP_GGML_LOG_LEVEL_ERROR]);
}

// WSP_GGML_BACKEND_PATH names a module outside the search path.
static void scenario_env_path(void) {
    expect_empty("at start");
    const char * empty = path_in(g_work, "empty");
    make_dir(empty);
    const char * path = module("libggml-cpu-high.so");
    CHECK(setenv(GGML_ENV("GGML_BACKEND_PATH"), path, 1) == 0, "setenv failed");

    wsp_ggml_backend_load_all_from_path(empty);
    EXPECT_LOG(INFO, GGML_SYMBOL("ggml_backend_load: loaded CPU backend from "), path, NULL);
    wsp_ggml_backend_dev_t dev = expect_cpu("WSP_GGML_BACKEND_PATH");
    compute_on(dev);
    unload_and_check(dev, path);
    CHECK(g_log_count[WSP_GGML_LOG_LEVEL_ERROR] == 0, "%ld error lines", g_log_count[WSP_GGML_LOG_LEVEL_ERROR]);
}

// wsp_ggml_backend_load(path) directly; NULL is refused with a message.
static void scenario_load_path(void) {
    expect_empty("at start");
    const char *           path = module("libggml-cpu-high.so");
    wsp_ggml_backend_reg_t reg  = wsp_ggml_backend_load(path);
    CHECK(reg != NULL, "wsp_ggml_backend_load(%s) returned NULL", path);
    EXPECT_LOG(INFO, GGML_SYMBOL("ggml_backend_load: loaded CPU backend from "), path, NULL);
    wsp_ggml_backend_dev_t dev = expect_cpu("wsp_ggml_backend_load");
    CHECK(wsp_ggml_backend_dev_backend_reg(dev) == reg, "the device belongs to another reg");
    compute_on(dev);
    unload_and_check(dev, path);

    CHECK(wsp_ggml_backend_load(NULL) == NULL, "wsp_ggml_backend_load(NULL) returned a reg");
    EXPECT_LOG(ERROR, GGML_SYMBOL("ggml_backend_load: path is NULL"), NULL, NULL);
    expect_empty("after load(NULL)");
}

// Loads the module at `path` twice: both loads give the same reg, registered once.
static wsp_ggml_backend_reg_t load_two_times(const char * path) {
    wsp_ggml_backend_reg_t first  = wsp_ggml_backend_load(path);
    wsp_ggml_backend_reg_t second = wsp_ggml_backend_load(path);
    CHECK(first != NULL && second == first, "second load gave %p, first %p", (void *) second, (void *) first);
    EXPECT_LOG(INFO, "is already loaded", path, NULL);
    CHECK(wsp_ggml_backend_reg_count() == 1 && wsp_ggml_backend_dev_count() == 1, "%zu regs, %zu devices after loading twice",
          wsp_ggml_backend_reg_count(), wsp_ggml_backend_dev_count());
    return first;
}

// Loading one module four times (twice by its path, through a symlink, through load_all) gives the
// same reg and one registration, which stays until the fourth unload; that one removes it and closes
// the module.
static void scenario_load_twice(void) {
    expect_empty("at start");
    const char *           path  = module("libggml-cpu-high.so");
    wsp_ggml_backend_reg_t first = load_two_times(path);

    const char * dir   = path_in(g_work, "alias");
    make_dir(dir);
    const char * alias = place(dir, "libggml-cpu-alias.so", path);
    CHECK(wsp_ggml_backend_load(alias) == first, "loading through a symlink gave another reg");
    wsp_ggml_backend_load_all_from_path(dir);
    wsp_ggml_backend_dev_t dev = expect_cpu("loaded three more times");
    printf("loaded 4 times: one reg, one device\n");

    unload_one_of_several(dev, path, "after 1 of 4 unloads");
    unload_one_of_several(dev, path, "after 2 of 4 unloads");
    unload_one_of_several(dev, path, "after 3 of 4 unloads");
    printf("3 of 4 unloads: still registered and mapped\n");
    unload_and_check(dev, path);
    wsp_ggml_backend_unload(first);  // already gone: ignored
    expect_empty("after a second unload");
    CHECK(g_log_count[WSP_GGML_LOG_LEVEL_ERROR] == 0, "%ld error lines", g_log_count[WSP_GGML_LOG_LEVEL_ERROR]);
}

// A module loaded by two independent parts of a program stays loaded until both have unloaded it: after
// the first unload its reg and device are still registered, it still computes and is still mapped; the
// second unload removes them and closes it. (The reference registers it twice, and its first unload
// removes both registrations.)
static void scenario_load_count(void) {
    expect_empty("at start");
    const char * path = module("libggml-cpu-high.so");
    load_two_times(path);
    wsp_ggml_backend_dev_t dev = expect_cpu("loaded twice");

    unload_one_of_several(dev, path, "after 1 of 2 unloads");
    printf("1 of 2 unloads: still registered and mapped\n");
    unload_and_check(dev, path);
    CHECK(g_log_count[WSP_GGML_LOG_LEVEL_ERROR] == 0, "%ld error lines", g_log_count[WSP_GGML_LOG_LEVEL_ERROR]);
}

// Two variants in one directory: the higher score wins.
static void scenario_best_variant(void) {
    expect_empty("at start");
    const char * dir  = path_in(g_work, "variants");
    make_dir(dir);
    const char * low  = place(dir, "libggml-cpu-low.so", module("libggml-cpu-low.so"));
    const char * high = place(dir, "libggml-cpu-high.so", module("libggml-cpu-high.so"));

    wsp_ggml_backend_load_all_from_path(dir);
    EXPECT_LOG(DEBUG, GGML_SYMBOL("ggml_backend_load_best: "), high, "score: 30");
    EXPECT_LOG(DEBUG, GGML_SYMBOL("ggml_backend_load_best: "), low, "score: 10");
    EXPECT_LOG(INFO, GGML_SYMBOL("ggml_backend_load: loaded CPU backend from "), high, NULL);
    CHECK(is_loaded(high) && !is_loaded(low), "expected only the high variant mapped (high %d, low %d)", is_loaded(high),
          is_loaded(low));
    printf("loaded variant: high (score 30) over low (score 10)\n");
    wsp_ggml_backend_dev_t dev = expect_cpu("best variant");
    compute_on(dev);
    unload_and_check(dev, high);
    CHECK(g_log_count[WSP_GGML_LOG_LEVEL_ERROR] == 0, "%ld error lines", g_log_count[WSP_GGML_LOG_LEVEL_ERROR]);
}

// Why bad-api2.so is refused: its reg is of the other API version (bad_module.c).
static const char * api_mismatch(void) {
    static char cause[96];
    snprintf(cause, sizeof(cause), "has an incompatible API version (backend: %d, current: %d)",
             WSP_GGML_BACKEND_API_VERSION == 1 ? 2 : 1, WSP_GGML_BACKEND_API_VERSION);
    return cause;
}

// Better-scored variants that fail (init returns NULL, the other API version, no init) beside a good
// lower-scored one, and one that is unsupported (score 0): the good one is loaded. (The
// reference loads nothing here.)
static void scenario_fallback(void) {
    expect_empty("at start");
    const char * dir    = path_in(g_work, "fallback");
    make_dir(dir);
    const char * broken = place(dir, "libggml-cpu-broken.so", module("bad-initnull.so"));
    const char * future = place(dir, "libggml-cpu-future.so", module("bad-api2.so"));
    const char * noinit = place(dir, "libggml-cpu-noinit.so", module("bad-noinit.so"));
    const char * zero   = place(dir, "libggml-cpu-zero.so", module("bad-score0.so"));
    const char * low    = place(dir, "libggml-cpu-low.so", module("libggml-cpu-low.so"));

    wsp_ggml_backend_load_all_from_path(dir);
    EXPECT_LOG(ERROR, broken, "failed to initialize: " GGML_SYMBOL("ggml_backend_init returned NULL"), NULL);
    EXPECT_LOG(ERROR, future, api_mismatch(), NULL);
    EXPECT_LOG(ERROR, noinit, "does not export " GGML_SYMBOL("ggml_backend_init"), NULL);
    EXPECT_LOG(INFO, zero, "is not supported on this system (" GGML_SYMBOL("ggml_backend_score returned 0)"), NULL);
    EXPECT_LOG(INFO, GGML_SYMBOL("ggml_backend_load: loaded CPU backend from "), low, NULL);
    CHECK(is_loaded(low), "%s not mapped", low);
    CHECK(!is_loaded(broken) && !is_loaded(future) && !is_loaded(noinit) && !is_loaded(zero),
          "a rejected module stayed mapped");
    printf("loaded: low (score 10) after broken (100), future (90) and noinit (50) failed; zero (0) skipped\n");
    wsp_ggml_backend_dev_t dev = expect_cpu("fallback");
    compute_on(dev);
    unload_and_check(dev, low);
}

// ---------------------------------------------------------------------------------------------
// scenarios: bad modules and paths, each skipped with a message naming the file and the cause
// ---------------------------------------------------------------------------------------------

// wsp_ggml_backend_load(path) refuses a bad module, says why, and does not keep it mapped.
static void expect_rejected(const char * path, const char * cause) {
    CHECK(wsp_ggml_backend_load(path) == NULL, "%s was accepted", path);
    EXPECT_LOG(ERROR, GGML_SYMBOL("ggml_backend_load: "), path, cause);
    CHECK(!is_loaded(path), "%s stayed mapped after being rejected", path);
    expect_empty("after a rejected module");
}

static void scenario_junk(void) {
    const char * dir  = path_in(g_work, "junk");
    make_dir(dir);
    const char * path = path_in(dir, "libggml-cpu-junk.so");
    FILE *       f    = fopen(path, "w");
    CHECK(f != NULL, "create %s: %s", path, strerror(errno));
    fputs("This is not a shared object, only a text file whose name looks like a backend module.\n", f);
    fclose(f);

    wsp_ggml_backend_load_all_from_path(dir);
    EXPECT_LOG(ERROR, GGML_SYMBOL("ggml_backend_load_best: "), path, "cannot be loaded: ");
    EXPECT_LOG(ERROR, path, "cannot be loaded: ", "invalid ELF header");
    expect_empty("after load_all over a junk file");
    expect_rejected(path, "invalid ELF header");
    expect_registry_usable(true);
}

static void scenario_no_init(void) {
    expect_rejected(module("bad-noinit.so"), "does not export " GGML_SYMBOL("ggml_backend_init"));
    expect_registry_usable(true);
}

static void scenario_score_zero(void) {
    expect_rejected(module("bad-score0.so"), "is not supported on this system (" GGML_SYMBOL("ggml_backend_score returned 0)"));
    expect_registry_usable(true);
}

static void scenario_init_null(void) {
    expect_rejected(module("bad-initnull.so"), "failed to initialize: " GGML_SYMBOL("ggml_backend_init returned NULL"));
    expect_registry_usable(true);
}

static void scenario_api_version(void) {
    expect_rejected(module("bad-api2.so"), api_mismatch());
    expect_registry_usable(true);
}

static void scenario_missing_dir(void) {
    const char * dir = path_in(g_work, "does-not-exist");
    wsp_ggml_backend_load_all_from_path(dir);
    EXPECT_LOG_ONCE(WARN, "search path ", dir, "does not exist");
    expect_empty("after a missing search path");
    expect_rejected(path_in(dir, "libggml-cpu-x.so"), "No such file or directory");
    expect_registry_usable(true);
}

static void scenario_dangling_symlink(void) {
    const char * target = path_in(g_work, "gone");
    const char * link   = path_in(g_work, "dangling");
    CHECK(symlink(target, link) == 0, "symlink: %s", strerror(errno));
    wsp_ggml_backend_load_all_from_path(link);
    EXPECT_LOG(WARN, "search path ", link, "is a dangling symlink");
    EXPECT_LOG(WARN, "search path ", link, target);
    expect_empty("after a dangling search path");
    expect_registry_usable(true);
}

// A directory that cannot be read. root (CAP_DAC_OVERRIDE) reads it anyway, so as root the
// scenario drops to uid/gid 65534 first; where that is impossible, it is skipped.
static void scenario_unreadable_dir(void) {
    const char * dir = path_in(g_work, "locked");
    make_dir(dir);
    place(dir, "libggml-cpu-high.so", module("libggml-cpu-high.so"));
    CHECK(chmod(dir, 0) == 0, "chmod 000 %s: %s", dir, strerror(errno));
    bool dropped = false;
    if (geteuid() == 0) {
        if (setgroups(0, NULL) != 0 || setgid(65534) != 0 || setuid(65534) != 0) {
            skip("running as root and cannot drop to uid 65534 (%s): chmod 000 does not stop root reading %s", strerror(errno),
                 dir);
        }
        dropped = true;
        printf("running as root: dropped to uid/gid 65534\n");
    }
    DIR * probe = opendir(dir);
    if (probe) {
        closedir(probe);
        skip("chmod 000 does not stop this process reading %s (it has CAP_DAC_OVERRIDE)", dir);
    }

    wsp_ggml_backend_load_all_from_path(dir);
    EXPECT_LOG_ONCE(ERROR, "cannot read search path ", dir, "Permission denied");
    expect_empty("after an unreadable search path");
    // the unprivileged user may be unable to reach the modules: then check with a static reg only
    const char * good = module("libggml-cpu-high.so");
    expect_registry_usable(access(good, R_OK) == 0);
    if (!dropped) {
        chmod(dir, 0755);  // let the driver clean up
    }
}

// ---------------------------------------------------------------------------------------------
// scenario: threads
// ---------------------------------------------------------------------------------------------

enum op { OP_REGISTER, OP_UNREGISTER, OP_LOAD, OP_UNLOAD, OP_LOAD_ALL, OP_ENUMERATE, OP_LOOKUP, N_OPS };
static const char * const OP_NAMES[N_OPS] = { "register", "unregister", "load", "unload", "load_all", "enumerate", "lookup" };

struct worker {
    pthread_t          thread;
    int                index;
    long               ops;
    unsigned long long seed;
    long               done[N_OPS];
    bool               registered;  // whether its own static reg is registered (only this thread changes that)
};

static const char * g_cpu_path;  // a CPU module, loaded by path
static const char * g_cpu_dir;   // a directory with two CPU variants, for load_all_from_path

static unsigned next_random(unsigned long long * s) {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return (unsigned) (*s >> 11);
}

static enum op pick(unsigned r) {
    static const unsigned upto[N_OPS] = { 12, 22, 34, 44, 46, 73, 100 };  // cumulative percentages
    for (int op = 0; op < N_OPS; op++) {
        if (r % 100 < upto[op]) {
            return (enum op) op;
        }
    }
    return OP_LOOKUP;
}

// Mixed registry operations. Pointers to the CPU module's objects are only compared, never
// followed: another thread may unload the module at any moment. The static regs live in this
// program, and BASE stays registered first, so their positions and names can be checked.
static void * worker_main(void * arg) {
    struct worker *         w    = arg;
    struct static_backend * own  = &g_static[1 + w->index];
    struct static_backend * base = &g_static[0];
    for (long i = 0; i < w->ops; i++) {
        enum op op = pick(next_random(&w->seed));
        switch (op) {
            case OP_REGISTER:
                wsp_ggml_backend_register(&own->reg);
                w->registered = true;
                break;
            case OP_UNREGISTER:
                wsp_ggml_backend_unload(&own->reg);
                w->registered = false;
                break;
            case OP_LOAD:
                CHECK(wsp_ggml_backend_load(g_cpu_path) != NULL, "thread %d: loading %s failed", w->index, g_cpu_path);
                break;
            case OP_UNLOAD: {
                wsp_ggml_backend_reg_t cpu = wsp_ggml_backend_reg_by_name("CPU");
                if (cpu) {
                    wsp_ggml_backend_unload(cpu);
                }
                break;
            }
            case OP_LOAD_ALL:
                wsp_ggml_backend_load_all_from_path(g_cpu_dir);
                break;
            case OP_ENUMERATE: {
                size_t n_regs = wsp_ggml_backend_reg_count();
                size_t n_devs = wsp_ggml_backend_dev_count();
                CHECK(n_regs >= 1 && n_devs >= 1, "thread %d: %zu regs, %zu devices", w->index, n_regs, n_devs);
                CHECK(wsp_ggml_backend_reg_get(0) == &base->reg, "thread %d: reg 0 is not BASE", w->index);
                CHECK(wsp_ggml_backend_dev_get(0) == &base->dev, "thread %d: device 0 is not BASE", w->index);
                CHECK(strcmp(wsp_ggml_backend_dev_name(wsp_ggml_backend_dev_get(0)), "BASE") == 0, "thread %d: bad name",
                      w->index);
                break;
            }
            case OP_LOOKUP: {
                CHECK(wsp_ggml_backend_dev_by_name("base") == &base->dev, "thread %d: dev_by_name(base)", w->index);
                CHECK(wsp_ggml_backend_reg_by_name("Base") == &base->reg, "thread %d: reg_by_name(Base)", w->index);
                wsp_ggml_backend_dev_t mine = wsp_ggml_backend_dev_by_name(own->name);
                CHECK(mine == (w->registered ? &own->dev : NULL), "thread %d: dev_by_name(%s) = %p while %s", w->index,
                      own->name, (void *) mine, w->registered ? "registered" : "unregistered");
                CHECK(wsp_ggml_backend_dev_by_type(WSP_GGML_BACKEND_DEVICE_TYPE_ACCEL) == &base->dev,
                      "thread %d: the first ACCEL device is not BASE", w->index);
                (void) wsp_ggml_backend_dev_by_type(WSP_GGML_BACKEND_DEVICE_TYPE_CPU);
                (void) wsp_ggml_backend_dev_by_name("cpu");
                (void) wsp_ggml_backend_reg_by_name("cpu");
                break;
            }
            default:
                break;
        }
        w->done[op]++;
    }
    return NULL;
}

static void scenario_threads(long ops_per_thread) {
    expect_empty("at start");
    g_cpu_path = module("libggml-cpu-high.so");
    g_cpu_dir  = path_in(g_work, "cpu");
    make_dir(g_cpu_dir);
    place(g_cpu_dir, "libggml-cpu-high.so", module("libggml-cpu-high.so"));
    place(g_cpu_dir, "libggml-cpu-low.so", module("libggml-cpu-low.so"));
    const char * low_path = module("libggml-cpu-low.so");

    wsp_ggml_backend_register(&g_static[0].reg);
    g_log_quiet = true;
    g_slow_base = true;
    struct worker workers[N_THREADS];
    memset(workers, 0, sizeof(workers));
    for (int i = 0; i < N_THREADS; i++) {
        workers[i].index = i;
        workers[i].ops   = ops_per_thread;
        workers[i].seed  = 0x9E3779B97F4A7C15ull * (unsigned long long) (i + 1);
        CHECK(pthread_create(&workers[i].thread, NULL, worker_main, &workers[i]) == 0, "pthread_create failed");
    }
    long   totals[N_OPS] = { 0 };
    size_t registered    = 1;
    for (int i = 0; i < N_THREADS; i++) {
        CHECK(pthread_join(workers[i].thread, NULL) == 0, "pthread_join failed");
        for (int op = 0; op < N_OPS; op++) {
            totals[op] += workers[i].done[op];
        }
        registered += workers[i].registered;
    }
    g_log_quiet = false;
    g_slow_base = false;

    // what is left: BASE, the static regs still registered, and at most one CPU reg, loaded as many
    // more times than unloaded as the threads left it: unloaded until it is gone
    wsp_ggml_backend_reg_t cpu = wsp_ggml_backend_reg_by_name("CPU");
    size_t                 n   = wsp_ggml_backend_reg_count();
    CHECK(n == registered + (cpu != NULL) && wsp_ggml_backend_dev_count() == n, "%zu regs and %zu devices left, expected %zu",
          n, wsp_ggml_backend_dev_count(), registered + (cpu != NULL));
    for (long loads = totals[OP_LOAD] + totals[OP_LOAD_ALL]; cpu != NULL && loads > 0; loads--) {
        wsp_ggml_backend_unload(cpu);
        cpu = wsp_ggml_backend_reg_by_name("CPU");
    }
    CHECK(cpu == NULL, "the CPU reg is still registered after as many unloads as loads");
    CHECK(!is_loaded(g_cpu_path) && !is_loaded(low_path), "a CPU module is still mapped after the last unload");
    for (int i = 0; i < 1 + N_THREADS; i++) {
        wsp_ggml_backend_unload(&g_static[i].reg);
    }
    expect_empty("at the end");

    long total = 0;
    printf("threads: %d x %ld operations:", N_THREADS, ops_per_thread);
    for (int op = 0; op < N_OPS; op++) {
        printf(" %s=%ld", OP_NAMES[op], totals[op]);
        total += totals[op];
    }
    printf("\nthreads: %ld operations, log lines: %ld debug, %ld info, %ld warn, %ld error\n", total,
           g_log_count[WSP_GGML_LOG_LEVEL_DEBUG], g_log_count[WSP_GGML_LOG_LEVEL_INFO], g_log_count[WSP_GGML_LOG_LEVEL_WARN],
           g_log_count[WSP_GGML_LOG_LEVEL_ERROR]);
    CHECK(g_log_count[WSP_GGML_LOG_LEVEL_ERROR] == 0 && g_log_count[WSP_GGML_LOG_LEVEL_WARN] == 0, "unexpected warnings or errors");
}

// ---------------------------------------------------------------------------------------------

struct scenario {
    const char * name;
    void (*run)(void);
};

static const struct scenario SCENARIOS[] = {
    { "load_all", scenario_load_all },
    { "env_path", scenario_env_path },
    { "load_path", scenario_load_path },
    { "load_twice", scenario_load_twice },
    { "load_count", scenario_load_count },
    { "best_variant", scenario_best_variant },
    { "fallback", scenario_fallback },
    { "junk", scenario_junk },
    { "no_init", scenario_no_init },
    { "score_zero", scenario_score_zero },
    { "init_null", scenario_init_null },
    { "api_version", scenario_api_version },
    { "missing_dir", scenario_missing_dir },
    { "dangling_symlink", scenario_dangling_symlink },
    { "unreadable_dir", scenario_unreadable_dir },
};

int main(int argc, char ** argv) {
    if (argc == 2 && strcmp(argv[1], "--list") == 0) {
        for (size_t i = 0; i < sizeof(SCENARIOS) / sizeof(SCENARIOS[0]); i++) {
            printf("%s\n", SCENARIOS[i].name);
        }
        printf("threads\n");
        return 0;
    }
    if (argc < 4 || argc > 5) {
        fprintf(stderr, "usage: %s <scenario> <modules-dir> <work-dir> [ops-per-thread] | --list\n", argv[0]);
        return 2;
    }
    g_scenario = argv[1];
    CHECK(realpath(argv[2], g_modules) != NULL, "modules dir %s: %s", argv[2], strerror(errno));
    CHECK(realpath(argv[3], g_work) != NULL, "work dir %s: %s", argv[3], strerror(errno));
    // unbuffered order of our lines and the log's, also when stdout is a pipe
    setvbuf(stdout, NULL, _IOLBF, 0);
    wsp_ggml_log_set(on_log, NULL);
    static_backends_init();

    bool found = false;
    if (strcmp(g_scenario, "threads") == 0) {
        long ops = argc == 5 ? strtol(argv[4], NULL, 10) : 2000;
        CHECK(ops > 0, "bad operation count %s", argv[4]);
        scenario_threads(ops);
        found = true;
    }
    for (size_t i = 0; !found && i < sizeof(SCENARIOS) / sizeof(SCENARIOS[0]); i++) {
        if (strcmp(g_scenario, SCENARIOS[i].name) == 0) {
            SCENARIOS[i].run();
            found = true;
        }
    }
    CHECK(found, "unknown scenario (see --list)");
    free_log();
    printf("PASS %s\n", g_scenario);
    return 0;
}
