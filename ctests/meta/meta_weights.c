// meta_weights (run against the library only; families with the meta backend), weights on a
// meta device over two CPU devices where the reference computes wrong numbers or crashes:
// 1. three graphs, each allocated by its own ggml-alloc allocator, use views of weights of one
// buffer, split along axis 1 (graph g: weight g). Each graph is
// allocated after the previous one was computed, then all are computed again in other orders
// without a new allocation: every result must equal the CPU alone's. The reference frees the
// slices of a graph's views two computations later and reads through the stale pointers from
// then on, which by then point at the slices of another graph's views: wrong results.
// 2. a scheduler over [meta, CPU] computes w0 times an input of the graph with the weights'
// buffer not marked as weights: the result must equal the CPU alone's. The reference crashes
// (a segmentation fault): its meta buffer says it is host memory, which lets the CPU backend
// take tensors whose data address is a placeholder.
// 3. a product with a fused weight (q, k and v rows in three segments, one row of each per
// device), read directly and through a view of its q rows: both must equal the CPU alone's.
// The reference gives the product one run per device, and a direct read interleaves the
// devices' q, k and v rows.
// 4. a product with a fused weight of heads (q, k and v of 3 heads of 2 rows each, two heads of
// each on device 0 and one on device 1) reshaped into heads [2, 9, 2] and read directly, its
// CONT, its flattening [36], all heads permuted before the tokens and made contiguous (split
// along axis 2), the k heads viewed, permuted and made contiguous, and attention scores of q
// and k heads: each must equal the CPU alone's. The reference gives the reshape one
// run per device too (wrong where it is read directly). The program also sets
// WSP_GGML_META_DEBUG for this part: the split states of the segmented product and weight must
// be logged (the reference aborts there: its log shows single-segment sources only).
// 5. views of part of a split axis (elements of rows split 3 + 3 along axis 0: a device's part,
// across the devices' boundary, a block with an offset along both axes, a 1d view; rows of w0
// across its boundary multiplied by x; a whole segment of qkv, one device's row of a segment,
// two whole segments, and two whole segments multiplied by x; pairs of elements of rows split
// 4 + 4, reshaped into pairs: pair 1, and pairs 1-2 across the boundary; rows 3-4 of a view of
// w0's columns 0-3), made contiguous and read directly: each must equal the CPU alone's. The reference scales each device's part and
// offset to its share, which is right only for whole segments shared alike (rows6's elements
// 0-1 come back as 0 3 6 9 for 0 1 6 7).
// Exit status 0 if every result is right, 1 otherwise.
#define _POSIX_C_SOURCE 200809L  // setenv

#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml-cpu.h"
#include "ggml_names.h"
#include "ggml.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N_GRAPHS 3

// the weights w0, w1, w2 [8, 6]: rows 4 + 2; qkv [8, 6]: three segments of 1 + 1 rows;
// qkv_heads [8, 18]: three segments of 4 + 2 rows; every other tensor MIRRORED
static struct wsp_ggml_backend_meta_split_state split_w(const struct wsp_ggml_tensor * t, void * userdata) {
    (void) userdata;
    struct wsp_ggml_backend_meta_split_state s;
    memset(&s, 0, sizeof(s));
    s.n_segments = 1;
#ifdef WSP_GGML_BACKEND_META_NR
    s.nr[0] = 1;
#endif
    s.axis = WSP_GGML_BACKEND_SPLIT_AXIS_MIRRORED;
    if (strcmp(t->name, "qkv_heads") == 0) {
        s.axis = WSP_GGML_BACKEND_SPLIT_AXIS_1;
        s.n_segments = 3;
        for (int i = 0; i < 6; i++) {
            s.ne[i] = i % 2 == 0 ? 4 : 2;
        }
#ifdef WSP_GGML_BACKEND_META_NR
        s.nr[1] = 1;
        s.nr[2] = 1;
#endif
    } else if (strcmp(t->name, "qkv") == 0) {
        s.axis = WSP_GGML_BACKEND_SPLIT_AXIS_1;
        s.n_segments = 3;
        for (int i = 0; i < 6; i++) {
            s.ne[i] = 1;
        }
#ifdef WSP_GGML_BACKEND_META_NR
        s.nr[1] = 1;
        s.nr[2] = 1;
#endif
    } else if (strcmp(t->name, "pairs8") == 0) {
        s.axis = WSP_GGML_BACKEND_SPLIT_AXIS_0;
        s.ne[0] = 4;
        s.ne[1] = 4;
    } else if (strcmp(t->name, "rows6") == 0) {
        s.axis = WSP_GGML_BACKEND_SPLIT_AXIS_0;
        s.ne[0] = 3;
        s.ne[1] = 3;
    } else if (t->name[0] == 'w') {
        s.axis = WSP_GGML_BACKEND_SPLIT_AXIS_1;
        s.ne[0] = 4;
        s.ne[1] = 2;
    }
    return s;
}

struct weights {
    struct wsp_ggml_context * ctx;
    struct wsp_ggml_tensor * w[N_GRAPHS], * x, * qkv, * qkv_heads, * rows6, * pairs8;
    wsp_ggml_backend_buffer_t buffer;
};

static struct weights make_weights(wsp_ggml_backend_buffer_type_t buft) {
    struct wsp_ggml_init_params params = { (N_GRAPHS + 5) * wsp_ggml_tensor_overhead(), NULL, true };
    struct weights k;
    k.ctx = wsp_ggml_init(params);
    for (int g = 0; g < N_GRAPHS; g++) {
        k.w[g] = wsp_ggml_new_tensor_2d(k.ctx, WSP_GGML_TYPE_F32, 8, 6);
        wsp_ggml_format_name(k.w[g], "w%d", g);
    }
    k.x = wsp_ggml_new_tensor_2d(k.ctx, WSP_GGML_TYPE_F32, 8, 2);
    wsp_ggml_set_name(k.x, "x");
    k.qkv = wsp_ggml_new_tensor_2d(k.ctx, WSP_GGML_TYPE_F32, 8, 6);
    wsp_ggml_set_name(k.qkv, "qkv");
    k.qkv_heads = wsp_ggml_new_tensor_2d(k.ctx, WSP_GGML_TYPE_F32, 8, 18);
    wsp_ggml_set_name(k.qkv_heads, "qkv_heads");
    k.rows6 = wsp_ggml_new_tensor_2d(k.ctx, WSP_GGML_TYPE_F32, 6, 4);
    wsp_ggml_set_name(k.rows6, "rows6");
    k.pairs8 = wsp_ggml_new_tensor_2d(k.ctx, WSP_GGML_TYPE_F32, 8, 4);
    wsp_ggml_set_name(k.pairs8, "pairs8");
    k.buffer = wsp_ggml_backend_alloc_ctx_tensors_from_buft(k.ctx, buft);
    float v[144];
    for (int g = 0; g < N_GRAPHS; g++) {
        for (int i = 0; i < 48; i++) {
            v[i] = 0.25f * (float) ((i * (7 + g)) % 11) - 1.0f - (float) g;
        }
        wsp_ggml_backend_tensor_set(k.w[g], v, 0, 48 * sizeof(float));
    }
    for (int i = 0; i < 48; i++) {
        v[i] = 0.125f * (float) ((i * 3) % 13) - 0.75f;
    }
    wsp_ggml_backend_tensor_set(k.qkv, v, 0, 48 * sizeof(float));
    for (int i = 0; i < 144; i++) {
        v[i] = 0.0625f * (float) ((i * 5) % 17) - 0.5f;
    }
    wsp_ggml_backend_tensor_set(k.qkv_heads, v, 0, 144 * sizeof(float));
    for (int i = 0; i < 16; i++) {
        v[i] = 0.5f * (float) ((i * 5) % 7) - 1.5f;
    }
    wsp_ggml_backend_tensor_set(k.x, v, 0, 16 * sizeof(float));
    for (int i = 0; i < 32; i++) {
        v[i] = (float) i;
    }
    wsp_ggml_backend_tensor_set(k.rows6, v, 0, 24 * sizeof(float));
    wsp_ggml_backend_tensor_set(k.pairs8, v, 0, 32 * sizeof(float));
    return k;
}

struct graph {
    struct wsp_ggml_context * ctx;
    struct wsp_ggml_cgraph * gf;
    struct wsp_ggml_tensor * out;
    wsp_ggml_gallocr_t galloc;
};

// graph g: out = (view of all of w<g>) x, [6, 2]
static struct graph build(const struct weights * k, int g) {
    struct wsp_ggml_init_params params = { 8 * wsp_ggml_tensor_overhead() + wsp_ggml_graph_overhead(), NULL, true };
    struct graph gr;
    gr.ctx = wsp_ggml_init(params);
    struct wsp_ggml_tensor * wv = wsp_ggml_view_2d(gr.ctx, k->w[g], 8, 6, k->w[g]->nb[1], 0);
    wsp_ggml_format_name(wv, "w%d view", g);
    gr.out = wsp_ggml_mul_mat(gr.ctx, wv, k->x);
    wsp_ggml_set_name(gr.out, "out");
    wsp_ggml_set_output(gr.out);
    gr.gf = wsp_ggml_new_graph(gr.ctx);
    wsp_ggml_build_forward_expand(gr.gf, gr.out);
    gr.galloc = NULL;
    return gr;
}

// qkv x [6, 2] read directly (out) and its q rows [2, 2] read through cont(view) (q)
static void fused_product(const struct weights * k, wsp_ggml_backend_t backend, wsp_ggml_backend_buffer_type_t buft,
                          float out[12], float q[4]) {
    struct wsp_ggml_init_params params = { 8 * wsp_ggml_tensor_overhead() + wsp_ggml_graph_overhead(), NULL, true };
    struct wsp_ggml_context * ctx = wsp_ggml_init(params);
    struct wsp_ggml_tensor * product = wsp_ggml_mul_mat(ctx, k->qkv, k->x);
    wsp_ggml_set_output(product);
    struct wsp_ggml_tensor * q_rows = wsp_ggml_cont(ctx, wsp_ggml_view_2d(ctx, product, 2, 2, product->nb[1], 0));
    wsp_ggml_set_output(q_rows);
    struct wsp_ggml_cgraph * gf = wsp_ggml_new_graph(ctx);
    wsp_ggml_build_forward_expand(gf, product);
    wsp_ggml_build_forward_expand(gf, q_rows);
    wsp_ggml_gallocr_t galloc = wsp_ggml_gallocr_new(buft);
    wsp_ggml_gallocr_alloc_graph(galloc, gf);
    wsp_ggml_backend_graph_compute(backend, gf);
    wsp_ggml_backend_tensor_get(product, out, 0, 12 * sizeof(float));
    wsp_ggml_backend_tensor_get(q_rows, q, 0, 4 * sizeof(float));
    wsp_ggml_gallocr_free(galloc);
    wsp_ggml_free(ctx);
}

// the outputs of part 4, read directly
struct heads_out {
    float product[36], heads[36], heads_cont[36], heads_perm[36], flat[36], k_heads[12], scores[12];
};

// qkv_heads x [18, 2] reshaped into heads [2, 9, 2], and what is made of it
static void heads_product(const struct weights * k, wsp_ggml_backend_t backend, wsp_ggml_backend_buffer_type_t buft,
                          struct heads_out * o) {
    struct wsp_ggml_init_params params = { 16 * wsp_ggml_tensor_overhead() + wsp_ggml_graph_overhead(), NULL, true };
    struct wsp_ggml_context * ctx = wsp_ggml_init(params);
    struct wsp_ggml_tensor * product = wsp_ggml_mul_mat(ctx, k->qkv_heads, k->x);
    wsp_ggml_set_name(product, "heads_product");
    struct wsp_ggml_tensor * heads = wsp_ggml_reshape_3d(ctx, product, 2, 9, 2);
    wsp_ggml_set_name(heads, "heads");
    struct wsp_ggml_tensor * heads_cont = wsp_ggml_cont(ctx, heads);
    // all heads permuted before the tokens: [2, tokens, 9], split along axis 2
    struct wsp_ggml_tensor * heads_perm = wsp_ggml_cont(ctx, wsp_ggml_permute(ctx, heads, 0, 2, 1, 3));
    struct wsp_ggml_tensor * flat = wsp_ggml_reshape_1d(ctx, product, 36);
    // q heads 0-2, k heads 3-5 of each token, as attention takes them: [2, tokens, heads]
    struct wsp_ggml_tensor * q = wsp_ggml_view_3d(ctx, heads, 2, 3, 2, heads->nb[1], heads->nb[2], 0);
    struct wsp_ggml_tensor * kh = wsp_ggml_view_3d(ctx, heads, 2, 3, 2, heads->nb[1], heads->nb[2], 3 * heads->nb[1]);
    struct wsp_ggml_tensor * q_perm = wsp_ggml_permute(ctx, q, 0, 2, 1, 3);
    struct wsp_ggml_tensor * k_perm = wsp_ggml_permute(ctx, kh, 0, 2, 1, 3);
    struct wsp_ggml_tensor * k_heads = wsp_ggml_cont(ctx, k_perm);
    struct wsp_ggml_tensor * scores = wsp_ggml_soft_max(ctx, wsp_ggml_mul_mat(ctx, k_perm, q_perm));
    struct wsp_ggml_tensor * outs[] = { product, heads, heads_cont, heads_perm, flat, k_heads, scores };
    struct wsp_ggml_cgraph * gf = wsp_ggml_new_graph(ctx);
    for (size_t i = 0; i < sizeof(outs) / sizeof(outs[0]); i++) {
        wsp_ggml_set_output(outs[i]);
        wsp_ggml_build_forward_expand(gf, outs[i]);
    }
    wsp_ggml_gallocr_t galloc = wsp_ggml_gallocr_new(buft);
    wsp_ggml_gallocr_alloc_graph(galloc, gf);
    wsp_ggml_backend_graph_compute(backend, gf);
    wsp_ggml_backend_tensor_get(product, o->product, 0, sizeof(o->product));
    wsp_ggml_backend_tensor_get(heads, o->heads, 0, sizeof(o->heads));
    wsp_ggml_backend_tensor_get(heads_cont, o->heads_cont, 0, sizeof(o->heads_cont));
    wsp_ggml_backend_tensor_get(heads_perm, o->heads_perm, 0, sizeof(o->heads_perm));
    wsp_ggml_backend_tensor_get(flat, o->flat, 0, sizeof(o->flat));
    wsp_ggml_backend_tensor_get(k_heads, o->k_heads, 0, sizeof(o->k_heads));
    wsp_ggml_backend_tensor_get(scores, o->scores, 0, sizeof(o->scores));
    wsp_ggml_gallocr_free(galloc);
    wsp_ggml_free(ctx);
}

// part 5: views of part of a split axis, made contiguous (or multiplied), in float offsets
#define N_PARTIAL 13
static const char * const partial_names[N_PARTIAL] = {
    "rows6 elements 0-1 of each row (device 0's part)",
    "rows6 elements 2-3 (across the devices' boundary)",
    "rows6 elements 4-5 (device 1's part)",
    "rows6 elements 1-3 of rows 2-3",
    "rows6 1d view of elements 1-4",
    "w0 rows 3-4 (across the boundary) x",
    "qkv rows 2-3 (a whole segment)",
    "qkv row 1 (device 1's part of a segment)",
    "qkv rows 0-3 (two whole segments)",
    "qkv rows 2-5 (two whole segments) x",
    "pairs8 in pairs, pair 1 (device 0's part)",
    "pairs8 in pairs, pairs 1-2 (across the boundary)",
    "w0 columns 0-3, then their rows 3-4 (across the boundary)",
};
static const int partial_sizes[N_PARTIAL] = { 8, 8, 8, 6, 4, 4, 16, 8, 32, 8, 8, 16, 8 };

static void partial_views(const struct weights * k, wsp_ggml_backend_t backend, wsp_ggml_backend_buffer_type_t buft,
                          float out[N_PARTIAL][32]) {
    struct wsp_ggml_init_params params = { 32 * wsp_ggml_tensor_overhead() + wsp_ggml_graph_overhead(), NULL, true };
    struct wsp_ggml_context * ctx = wsp_ggml_init(params);
    struct wsp_ggml_tensor * r = k->rows6;
    struct wsp_ggml_tensor * pairs = wsp_ggml_reshape_3d(ctx, k->pairs8, 2, 4, 4);
    struct wsp_ggml_tensor * columns = wsp_ggml_view_2d(ctx, k->w[0], 4, 6, k->w[0]->nb[1], 0);
    const size_t f = sizeof(float);
    struct wsp_ggml_tensor * outs[N_PARTIAL] = {
        wsp_ggml_cont(ctx, wsp_ggml_view_2d(ctx, r, 2, 4, r->nb[1], 0)),
        wsp_ggml_cont(ctx, wsp_ggml_view_2d(ctx, r, 2, 4, r->nb[1], 2 * f)),
        wsp_ggml_cont(ctx, wsp_ggml_view_2d(ctx, r, 2, 4, r->nb[1], 4 * f)),
        wsp_ggml_cont(ctx, wsp_ggml_view_2d(ctx, r, 3, 2, r->nb[1], 2 * r->nb[1] + 1 * f)),
        wsp_ggml_cont(ctx, wsp_ggml_view_1d(ctx, r, 4, 1 * f)),
        wsp_ggml_mul_mat(ctx, wsp_ggml_view_2d(ctx, k->w[0], 8, 2, k->w[0]->nb[1], 3 * k->w[0]->nb[1]), k->x),
        wsp_ggml_cont(ctx, wsp_ggml_view_2d(ctx, k->qkv, 8, 2, k->qkv->nb[1], 2 * k->qkv->nb[1])),
        wsp_ggml_cont(ctx, wsp_ggml_view_2d(ctx, k->qkv, 8, 1, k->qkv->nb[1], 1 * k->qkv->nb[1])),
        wsp_ggml_cont(ctx, wsp_ggml_view_2d(ctx, k->qkv, 8, 4, k->qkv->nb[1], 0)),
        wsp_ggml_mul_mat(ctx, wsp_ggml_view_2d(ctx, k->qkv, 8, 4, k->qkv->nb[1], 2 * k->qkv->nb[1]), k->x),
        wsp_ggml_cont(ctx, wsp_ggml_view_3d(ctx, pairs, 2, 1, 4, pairs->nb[1], pairs->nb[2], pairs->nb[1])),
        wsp_ggml_cont(ctx, wsp_ggml_view_3d(ctx, pairs, 2, 2, 4, pairs->nb[1], pairs->nb[2], pairs->nb[1])),
        wsp_ggml_cont(ctx, wsp_ggml_view_2d(ctx, columns, 4, 2, columns->nb[1], 3 * columns->nb[1])),
    };
    struct wsp_ggml_cgraph * gf = wsp_ggml_new_graph(ctx);
    for (int i = 0; i < N_PARTIAL; i++) {
        wsp_ggml_set_output(outs[i]);
        wsp_ggml_build_forward_expand(gf, outs[i]);
    }
    wsp_ggml_gallocr_t galloc = wsp_ggml_gallocr_new(buft);
    wsp_ggml_gallocr_alloc_graph(galloc, gf);
    wsp_ggml_backend_graph_compute(backend, gf);
    for (int i = 0; i < N_PARTIAL; i++) {
        wsp_ggml_backend_tensor_get(outs[i], out[i], 0, (size_t) partial_sizes[i] * f);
    }
    wsp_ggml_gallocr_free(galloc);
    wsp_ggml_free(ctx);
}

// WSP_GGML_META_DEBUG's lines: how many, and whether one shows the fused weight's three segments
static int debug_lines, debug_segments;

static void log_debug(enum wsp_ggml_log_level level, const char * text, void * user_data) {
    (void) level;
    (void) user_data;
    if (strstr(text, "SPLIT_STATE") != NULL) {
        debug_lines++;
        // qkv_heads as a source: three segments of 4 + 2 rows, each once
        if (strstr(text, "qkv_heads[NONE, 1, {4x1, 2x1; 4x1, 2x1; 4x1, 2x1}]") != NULL ||
            strstr(text, "qkv_heads[NONE, 1, {4, 2; 4, 2; 4, 2}]") != NULL) {
            debug_segments++;
        }
    } else {
        fputs(text, stderr);
    }
}

static int same_values(const char * what, const float * got, const float * expected, int n) {
    float worst = 0.0f;
    for (int i = 0; i < n; i++) {
        worst = fmaxf(worst, fabsf(got[i] - expected[i]));
    }
    printf("%s max_diff %g %s\n", what, (double) worst, worst <= 1e-5f ? "ok" : "WRONG");
    return worst <= 1e-5f ? 0 : 1;
}

// the result of graph g, computed with status st, against the CPU alone's
static int check(enum wsp_ggml_status st, const struct graph * gr, int g, const float expected[N_GRAPHS][12]) {
    float got[12];
    wsp_ggml_backend_tensor_get(gr->out, got, 0, sizeof(got));
    char what[32];
    snprintf(what, sizeof(what), "graph %c status %d", 'A' + g, (int) st);
    return same_values(what, got, expected[g], 12) | (st != WSP_GGML_STATUS_SUCCESS);
}

int main(void) {
    wsp_ggml_backend_dev_t cpu_dev = wsp_ggml_backend_dev_by_type(WSP_GGML_BACKEND_DEVICE_TYPE_CPU);
    wsp_ggml_backend_t cpu = wsp_ggml_backend_dev_init(cpu_dev, NULL);
    wsp_ggml_backend_dev_t devs[2] = { cpu_dev, cpu_dev };
    wsp_ggml_backend_dev_t meta = wsp_ggml_backend_meta_device(devs, 2, split_w, NULL);
    wsp_ggml_backend_t mb = wsp_ggml_backend_dev_init(meta, NULL);
    wsp_ggml_backend_buffer_type_t meta_buft = wsp_ggml_backend_dev_buffer_type(meta);

    // the CPU alone's results
    float expected[N_GRAPHS][12];
    struct weights cpu_k = make_weights(wsp_ggml_backend_dev_buffer_type(cpu_dev));
    for (int g = 0; g < N_GRAPHS; g++) {
        struct graph gr = build(&cpu_k, g);
        gr.galloc = wsp_ggml_gallocr_new(wsp_ggml_backend_dev_buffer_type(cpu_dev));
        wsp_ggml_gallocr_alloc_graph(gr.galloc, gr.gf);
        wsp_ggml_backend_graph_compute(cpu, gr.gf);
        wsp_ggml_backend_tensor_get(gr.out, expected[g], 0, sizeof(expected[g]));
        wsp_ggml_gallocr_free(gr.galloc);
        wsp_ggml_free(gr.ctx);
    }

    struct weights k = make_weights(meta_buft);
    struct graph graphs[N_GRAPHS];
    int failures = 0;
    for (int g = 0; g < N_GRAPHS; g++) {
        graphs[g] = build(&k, g);
        graphs[g].galloc = wsp_ggml_gallocr_new(meta_buft);
        if (!wsp_ggml_gallocr_alloc_graph(graphs[g].galloc, graphs[g].gf)) {
            printf("graph %c: alloc_graph failed\n", 'A' + g);
            return 1;
        }
        failures += check(wsp_ggml_backend_graph_compute(mb, graphs[g].gf), &graphs[g], g, expected);
    }
    const int order[] = { 0, 2, 1, 0, 1, 2, 2, 0 };
    for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
        const int g = order[i];
        failures += check(wsp_ggml_backend_graph_compute(mb, graphs[g].gf), &graphs[g], g, expected);
    }

    // w0 times an input of the graph, which the scheduler places on the CPU
    wsp_ggml_backend_t backends[2] = { mb, cpu };
    wsp_ggml_backend_sched_t sched = wsp_ggml_backend_sched_new(backends, NULL, 2, 64, false, true);
    struct wsp_ggml_init_params params = { 4 * wsp_ggml_tensor_overhead() + wsp_ggml_graph_overhead(), NULL, true };
    struct graph on_sched;
    on_sched.ctx = wsp_ggml_init(params);
    struct wsp_ggml_tensor * input = wsp_ggml_new_tensor_2d(on_sched.ctx, WSP_GGML_TYPE_F32, 8, 2);
    wsp_ggml_set_input(input);
    on_sched.out = wsp_ggml_mul_mat(on_sched.ctx, k.w[0], input);
    wsp_ggml_set_output(on_sched.out);
    on_sched.gf = wsp_ggml_new_graph(on_sched.ctx);
    wsp_ggml_build_forward_expand(on_sched.gf, on_sched.out);
    if (!wsp_ggml_backend_sched_alloc_graph(sched, on_sched.gf)) {
        printf("scheduler: alloc_graph failed\n");
        return 1;
    }
    float x[16];
    wsp_ggml_backend_tensor_get(k.x, x, 0, sizeof(x));
    wsp_ggml_backend_tensor_set(input, x, 0, sizeof(x));
    printf("scheduler: product on %s\n",
           wsp_ggml_backend_name(wsp_ggml_backend_sched_get_tensor_backend(sched, on_sched.out)));
    failures += check(wsp_ggml_backend_sched_graph_compute(sched, on_sched.gf), &on_sched, 0, expected);
    wsp_ggml_backend_sched_free(sched);
    wsp_ggml_free(on_sched.ctx);

    float cpu_out[12], cpu_q[4], meta_out[12], meta_q[4];
    fused_product(&cpu_k, cpu, wsp_ggml_backend_dev_buffer_type(cpu_dev), cpu_out, cpu_q);
    fused_product(&k, mb, meta_buft, meta_out, meta_q);
    failures += same_values("fused product read directly", meta_out, cpu_out, 12);
    failures += same_values("fused product's q rows", meta_q, cpu_q, 4);

    float cpu_partial[N_PARTIAL][32], meta_partial[N_PARTIAL][32];
    partial_views(&cpu_k, cpu, wsp_ggml_backend_dev_buffer_type(cpu_dev), cpu_partial);
    partial_views(&k, mb, meta_buft, meta_partial);
    for (int i = 0; i < N_PARTIAL; i++) {
        char what[96];
        snprintf(what, sizeof(what), "partial view: %s", partial_names[i]);
        failures += same_values(what, meta_partial[i], cpu_partial[i], partial_sizes[i]);
    }

    struct heads_out cpu_heads, meta_heads;
    heads_product(&cpu_k, cpu, wsp_ggml_backend_dev_buffer_type(cpu_dev), &cpu_heads);
    setenv(GGML_ENV("GGML_META_DEBUG"), "1", 1);
    wsp_ggml_log_set(log_debug, NULL);
    heads_product(&k, mb, meta_buft, &meta_heads);
    wsp_ggml_log_set(NULL, NULL);
    unsetenv(GGML_ENV("GGML_META_DEBUG"));
    failures += same_values("heads: product read directly", meta_heads.product, cpu_heads.product, 36);
    failures += same_values("heads: reshaped into heads, read directly", meta_heads.heads, cpu_heads.heads, 36);
    failures += same_values("heads: cont of the heads", meta_heads.heads_cont, cpu_heads.heads_cont, 36);
    failures += same_values("heads: heads permuted before the tokens, cont", meta_heads.heads_perm, cpu_heads.heads_perm,
                            36);
    failures += same_values("heads: flattened", meta_heads.flat, cpu_heads.flat, 36);
    failures += same_values("heads: k heads permuted, cont", meta_heads.k_heads, cpu_heads.k_heads, 12);
    failures += same_values("heads: softmax of k by q", meta_heads.scores, cpu_heads.scores, 12);
    printf("heads: WSP_GGML_META_DEBUG logged %d split states, %d with the fused weight's segments %s\n", debug_lines,
           debug_segments, debug_lines > 0 && debug_segments > 0 ? "ok" : "WRONG");
    failures += debug_lines > 0 && debug_segments > 0 ? 0 : 1;

    for (int g = 0; g < N_GRAPHS; g++) {
        wsp_ggml_gallocr_free(graphs[g].galloc);
        wsp_ggml_free(graphs[g].ctx);
    }
    wsp_ggml_backend_buffer_free(k.buffer);
    wsp_ggml_free(k.ctx);
    wsp_ggml_backend_buffer_free(cpu_k.buffer);
    wsp_ggml_free(cpu_k.ctx);
    wsp_ggml_backend_free(mb);
    wsp_ggml_backend_free(cpu);
    printf("%s (%d wrong)\n", failures ? "FAIL" : "PASS", failures);
    return failures ? 1 : 0;
}
