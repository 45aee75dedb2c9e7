// wide_split (run against the library only): splits that need many inputs. 40 input tensors (graph inputs,
// on the CPU) are summed pairwise into a tree whose adds are all pinned to TEST, so one TEST split needs 40
// CPU inputs. The library has no limit on the inputs of a split; the reference has a fixed limit of 10
// and aborts (GGML_ASSERT n_inputs < WSP_GGML_SCHED_MAX_SPLIT_INPUTS, or n_graph_inputs < ... in parallel
// mode) in cases 2 and 3; in case 1 it happens to fall back to more splits.
//   case 1: balanced tree, parallel = false
//   case 2: balanced tree, parallel = true (40 graph inputs, each with 4 copies)
//   case 3: the first add reads a TEST-resident tensor and x0, then pairs (x1, x2), (x3, x4), ...: the
//           split's input count goes 1, 3, 5, ... (the reference aborts at the sixth add)
// Every result must equal a CPU-only computation of the same tree, bit for bit, over two evaluations.
// Usage: wide_split [case]   (default: all). Exit status 0 if all results are right.
#include "sched_util.h"

#define N_IN 40

struct tree {
    struct wsp_ggml_context * ctx;
    struct wsp_ggml_cgraph  * gf;
    struct wsp_ggml_tensor  * x[N_IN];
    struct wsp_ggml_tensor  * adds[2 * N_IN];
    int n_adds;
    struct wsp_ggml_tensor  * out;
};

static struct wsp_ggml_tensor * sum_range(struct tree * t, int lo, int hi) {
    if (hi - lo == 1) {
        return t->x[lo];
    }
    int mid = (lo + hi) / 2;
    struct wsp_ggml_tensor * a = sum_range(t, lo, mid);
    struct wsp_ggml_tensor * b = sum_range(t, mid, hi);
    struct wsp_ggml_tensor * s = wsp_ggml_add(t->ctx, a, b);
    wsp_ggml_format_name(s, "s_%d_%d", lo, hi);
    t->adds[t->n_adds++] = s;
    return s;
}

// kind 1/2: balanced tree over x0..x39; kind 3: level 0 = (p + x0), (x1 + x2), ..., (x37 + x38), x39 alone,
// built level by level so that the level-0 adds come first in the graph
static struct tree make_tree(int kind, struct wsp_ggml_tensor * p) {
    struct tree t;
    memset(&t, 0, sizeof(t));
    t.ctx = su_ctx(4 * N_IN + 8);
    for (int i = 0; i < N_IN; i++) {
        t.x[i] = wsp_ggml_new_tensor_2d(t.ctx, WSP_GGML_TYPE_F32, 4, 2);
        wsp_ggml_format_name(t.x[i], "x%d", i);
        wsp_ggml_set_input(t.x[i]);
    }
    t.gf = su_graph(t.ctx);
    if (kind != 3) {
        t.out = sum_range(&t, 0, N_IN);
    } else {
        struct wsp_ggml_tensor * level[N_IN];
        int n = 0;
        level[n] = wsp_ggml_add(t.ctx, p, t.x[0]);
        t.adds[t.n_adds++] = level[n++];
        for (int i = 1; i + 1 < N_IN; i += 2) {
            level[n] = wsp_ggml_add(t.ctx, t.x[i], t.x[i + 1]);
            t.adds[t.n_adds++] = level[n++];
        }
        level[n++] = t.x[N_IN - 1];
        for (int i = 0; i < n; i++) {
            wsp_ggml_build_forward_expand(t.gf, level[i]);
        }
        while (n > 1) {
            int m = 0;
            for (int i = 0; i + 1 < n; i += 2) {
                level[m] = wsp_ggml_add(t.ctx, level[i], level[i + 1]);
                t.adds[t.n_adds++] = level[m++];
            }
            if (n % 2) {
                level[m++] = level[n - 1];
            }
            n = m;
        }
        t.out = level[0];
        for (int i = 0; i < t.n_adds; i++) {
            wsp_ggml_format_name(t.adds[i], "a%d", i);
        }
    }
    su_output(t.out, "out");
    wsp_ggml_build_forward_expand(t.gf, t.out);
    return t;
}

static void set_inputs(struct tree * t, int round) {
    for (int i = 0; i < N_IN; i++) {
        du_fill(t->x[i], (float) i * 0.5f - 3.0f + (float) round, 0.0625f * (float) (i % 5 + 1));
    }
}

static float * run(int kind, wsp_ggml_backend_t * backends, int n_backends, bool parallel, bool pin,
                   struct wsp_ggml_tensor * p, int round, int * n_splits) {
    wsp_ggml_backend_sched_t sched = wsp_ggml_backend_sched_new(backends, NULL, n_backends, 512, parallel, true);
    struct tree t = make_tree(kind, p);
    if (pin) {
        for (int i = 0; i < t.n_adds; i++) {
            wsp_ggml_backend_sched_set_tensor_backend(sched, t.adds[i], backends[0]);
        }
    }
    float * v = NULL;
    if (wsp_ggml_backend_sched_alloc_graph(sched, t.gf)) {
        *n_splits = wsp_ggml_backend_sched_get_n_splits(sched);
        for (int r = 0; r <= round; r++) {
            set_inputs(&t, r);
            if (wsp_ggml_backend_sched_graph_compute(sched, t.gf) != WSP_GGML_STATUS_SUCCESS) {
                break;
            }
            if (r == round) {
                v = su_get(t.out);
            }
        }
    }
    wsp_ggml_free(t.ctx);
    wsp_ggml_backend_sched_free(sched);
    return v;
}

int main(int argc, char ** argv) {
    const int only = argc > 1 ? atoi(argv[1]) : 0;
    // the TEST-resident tensor of case 3, and its CPU twin for the reference computation
    struct su_fixture f = su_fixture_new(4, 2, 0.75f, -0.25f);
    wsp_ggml_backend_t two[2] = { f.tb, f.cpu };
    wsp_ggml_backend_t one[1] = { f.cpu };
    int failures = 0;
    for (int kind = 1; kind <= 3; kind++) {
        if (only && only != kind) {
            continue;
        }
        const bool parallel = kind == 2;
        for (int round = 0; round < 2; round++) {
            int splits = -1, ref_splits = -1;
            test_backend_reset_counters();
            float * got = run(kind, two, 2, parallel, true, f.p.t, round, &splits);
            struct test_backend_counters c;
            test_backend_counters(&c);
            float * ref = run(kind, one, 1, false, false, f.p_cpu.t, round, &ref_splits);
            const bool ok = got != NULL && ref != NULL && memcmp(got, ref, 8 * sizeof(float)) == 0;
            printf("case %d round %d n_splits %d test_computes %d test_nodes %d %s\n", kind, round, splits,
                   c.graph_computes, c.nodes_computed, ok ? "ok" : "WRONG");
            if (!ok) {
                failures++;
            }
            free(got);
            free(ref);
        }
    }

    su_fixture_free(&f);
    printf("%s (%d wrong)\n", failures ? "FAIL" : "PASS", failures);
    return failures ? 1 : 0;
}
