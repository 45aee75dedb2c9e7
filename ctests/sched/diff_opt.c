// diff_opt: training with whisper.rn's ggml-opt (which drives the scheduler: it resets it and allocates a
// different graph whenever it switches between forward, gradient and optimizer graphs), loss by loss.
//  T1: linear regression y = a*x + b, MSE loss, AdamW with constant parameters, scheduler {CPU, CPU} (the
//      same backend twice, as whisper.rn does); wsp_ggml_opt_epoch for 12 epochs (3 training batches and
//      1 validation batch of 8 each): the loss after every batch, the epoch's training/validation loss
//      and the parameters after every epoch, as hex bits and %.6f.
//  T2: the same with the scheduler {CPU}.
//  T3: a 2-4-1 MLP (mul_mat, add, relu) trained with wsp_ggml_opt_fit (physical batch 4, logical batch 8:
//      gradient accumulation, validation split 0.25, shuffling by ggml-opt's fixed-seed RNG, a learning
//      rate that depends on the epoch), silent; the parameters after training and the loss of a final
//      evaluation pass.
// Everything runs on one CPU thread, so results are deterministic.
#include "sched_util.h"
#include "ggml-opt.h"

static uint64_t dbits(double d) {
    uint64_t u;
    memcpy(&u, &d, sizeof(u));
    return u;
}

static void print_param(const char * label, const struct wsp_ggml_tensor * t) {
    du_print_tensor(label, t);
}

// a context for the model's graphs, with room for the forward, gradient and optimizer graphs ggml-opt builds
static struct wsp_ggml_context * compute_ctx(void) {
    struct wsp_ggml_init_params cp = {
        /* .mem_size   = */ wsp_ggml_tensor_overhead() * 4096 + 4 * wsp_ggml_graph_overhead_custom(WSP_GGML_DEFAULT_GRAPH_SIZE, true),
        /* .mem_buffer = */ NULL,
        /* .no_alloc   = */ true,
    };
    return wsp_ggml_init(cp);
}

// everything a training run set up, in the reverse order
static void free_training(wsp_ggml_opt_context_t opt, wsp_ggml_opt_dataset_t ds, struct wsp_ggml_context * ctx_compute,
                          wsp_ggml_backend_buffer_t buf_static, struct wsp_ggml_context * ctx_static,
                          wsp_ggml_backend_sched_t sched) {
    wsp_ggml_opt_free(opt);
    wsp_ggml_opt_dataset_free(ds);
    wsp_ggml_free(ctx_compute);
    wsp_ggml_backend_buffer_free(buf_static);
    wsp_ggml_free(ctx_static);
    wsp_ggml_backend_sched_free(sched);
}

// --- T1 / T2: linear regression through wsp_ggml_opt_epoch ---

struct lin_state {
    const char * tag;
    int epoch;
    struct wsp_ggml_tensor * a, * b;
};

static struct lin_state * g_lin;

static void lin_cb(bool train, wsp_ggml_opt_context_t opt_ctx, wsp_ggml_opt_dataset_t dataset, wsp_ggml_opt_result_t result,
                   int64_t ibatch, int64_t ibatch_max, int64_t t_start_us) {
    (void) dataset;
    (void) t_start_us;
    float loss;
    wsp_ggml_backend_tensor_get(wsp_ggml_opt_loss(opt_ctx), &loss, 0, sizeof(loss));
    double mean, unc;
    wsp_ggml_opt_result_loss(result, &mean, &unc);
    int64_t ndata;
    wsp_ggml_opt_result_ndata(result, &ndata);
    printf("%s epoch %d %s batch %lld/%lld loss %08x %.6f running_mean %016llx %.6f ndata %lld\n", g_lin->tag, g_lin->epoch,
           train ? "train" : "val", (long long) ibatch, (long long) ibatch_max, du_bits(loss), (double) loss,
           (unsigned long long) dbits(mean), mean, (long long) ndata);
}

static void linear(const char * tag, wsp_ggml_backend_t * backends, int n_backends) {
    enum { NDATA = 32, NBATCH = 8, NEPOCH = 12 };
    char l[128];
    wsp_ggml_backend_sched_t sched = wsp_ggml_backend_sched_new(backends, NULL, n_backends, WSP_GGML_DEFAULT_GRAPH_SIZE, false, true);

    // parameters and inputs: statically allocated by the caller
    struct wsp_ggml_context * ctx_static = su_ctx(8);
    struct wsp_ggml_tensor * a = su_named(wsp_ggml_new_tensor_1d(ctx_static, WSP_GGML_TYPE_F32, 1), "a");
    struct wsp_ggml_tensor * b = su_named(wsp_ggml_new_tensor_1d(ctx_static, WSP_GGML_TYPE_F32, 1), "b");
    struct wsp_ggml_tensor * x = su_named(wsp_ggml_new_tensor_2d(ctx_static, WSP_GGML_TYPE_F32, 1, NBATCH), "x");
    wsp_ggml_set_param(a);
    wsp_ggml_set_param(b);
    wsp_ggml_backend_buffer_t buf_static = wsp_ggml_backend_alloc_ctx_tensors(ctx_static, backends[0]);
    const float a0 = 0.5f, b0 = 0.0f;
    wsp_ggml_backend_tensor_set(a, &a0, 0, sizeof(a0));
    wsp_ggml_backend_tensor_set(b, &b0, 0, sizeof(b0));

    // the model: y = x * a + b
    struct wsp_ggml_context * ctx_compute = compute_ctx();
    struct wsp_ggml_tensor * y = su_named(wsp_ggml_add(ctx_compute, wsp_ggml_mul(ctx_compute, x, a), b), "y");

    // dataset: x_i = -2 + i/8, label 3 x_i - 1 + a small deterministic wobble
    wsp_ggml_opt_dataset_t ds = wsp_ggml_opt_dataset_init(WSP_GGML_TYPE_F32, WSP_GGML_TYPE_F32, 1, 1, NDATA, 1);
    float * data = (float *) wsp_ggml_opt_dataset_data(ds)->data;
    float * labels = (float *) wsp_ggml_opt_dataset_labels(ds)->data;
    for (int i = 0; i < NDATA; i++) {
        data[i] = -2.0f + (float) i / 8.0f;
        labels[i] = 3.0f * data[i] - 1.0f + (float) ((i * 37) % 11 - 5) / 50.0f;
    }

    struct wsp_ggml_opt_optimizer_params op;
    op.adamw.alpha = 0.1f;
    op.adamw.beta1 = 0.9f;
    op.adamw.beta2 = 0.999f;
    op.adamw.eps   = 1e-8f;
    op.adamw.wd    = 0.0f;

    struct wsp_ggml_opt_params params = wsp_ggml_opt_default_params(sched, WSP_GGML_OPT_LOSS_TYPE_MEAN_SQUARED_ERROR);
    params.ctx_compute     = ctx_compute;
    params.inputs          = x;
    params.outputs         = y;
    params.get_opt_pars    = wsp_ggml_opt_get_constant_optimizer_params;
    params.get_opt_pars_ud = &op;
    wsp_ggml_opt_context_t opt = wsp_ggml_opt_init(params);
    snprintf(l, sizeof(l), "%s static_graphs", tag); DU_B(l, wsp_ggml_opt_static_graphs(opt));

    wsp_ggml_opt_result_t rt = wsp_ggml_opt_result_init();
    wsp_ggml_opt_result_t rv = wsp_ggml_opt_result_init();
    struct lin_state st = { tag, 0, a, b };
    g_lin = &st;
    for (int epoch = 1; epoch <= NEPOCH; epoch++) {
        st.epoch = epoch;
        wsp_ggml_opt_dataset_shuffle(opt, ds, 24);
        wsp_ggml_opt_result_reset(rt);
        wsp_ggml_opt_result_reset(rv);
        wsp_ggml_opt_epoch(opt, ds, rt, rv, 24, lin_cb, lin_cb);
        double lt, ut, lv;
        wsp_ggml_opt_result_loss(rt, &lt, &ut);
        wsp_ggml_opt_result_loss(rv, &lv, NULL);
        printf("%s epoch %d train_loss %016llx %.6f unc %.6f val_loss %016llx %.6f\n", tag, epoch,
               (unsigned long long) dbits(lt), lt, ut, (unsigned long long) dbits(lv), lv);
        snprintf(l, sizeof(l), "%s epoch %d a", tag, epoch); print_param(l, a);
        snprintf(l, sizeof(l), "%s epoch %d b", tag, epoch); print_param(l, b);
    }
    float af, bf;
    wsp_ggml_backend_tensor_get(a, &af, 0, sizeof(af));
    wsp_ggml_backend_tensor_get(b, &bf, 0, sizeof(bf));
    printf("%s final a %.6f b %.6f\n", tag, (double) af, (double) bf);
    printf("%s sched n_backends %d n_splits %d\n", tag, wsp_ggml_backend_sched_get_n_backends(sched),
           wsp_ggml_backend_sched_get_n_splits(sched));

    wsp_ggml_opt_result_free(rt);
    wsp_ggml_opt_result_free(rv);
    free_training(opt, ds, ctx_compute, buf_static, ctx_static, sched);
}

// --- T3: MLP through wsp_ggml_opt_fit ---

static struct wsp_ggml_opt_optimizer_params mlp_opt_pars(void * userdata) {
    const int64_t epoch = *(const int64_t *) userdata;
    struct wsp_ggml_opt_optimizer_params p = wsp_ggml_opt_get_default_optimizer_params(NULL);
    p.adamw.alpha = 0.05f / (float) epoch;
    p.adamw.wd    = 0.01f;
    return p;
}

static void mlp(wsp_ggml_backend_t cpu) {
    enum { NDATA = 64, NB = 4, NIN = 2, NHID = 4 };
    wsp_ggml_backend_t backends[2] = { cpu, cpu };
    wsp_ggml_backend_sched_t sched = wsp_ggml_backend_sched_new(backends, NULL, 2, WSP_GGML_DEFAULT_GRAPH_SIZE, false, true);

    struct wsp_ggml_context * ctx_static = su_ctx(8);
    struct wsp_ggml_tensor * w1 = su_named(wsp_ggml_new_tensor_2d(ctx_static, WSP_GGML_TYPE_F32, NIN, NHID), "w1");
    struct wsp_ggml_tensor * b1 = su_named(wsp_ggml_new_tensor_1d(ctx_static, WSP_GGML_TYPE_F32, NHID), "b1");
    struct wsp_ggml_tensor * w2 = su_named(wsp_ggml_new_tensor_2d(ctx_static, WSP_GGML_TYPE_F32, NHID, 1), "w2");
    struct wsp_ggml_tensor * b2 = su_named(wsp_ggml_new_tensor_1d(ctx_static, WSP_GGML_TYPE_F32, 1), "b2");
    struct wsp_ggml_tensor * x  = su_named(wsp_ggml_new_tensor_2d(ctx_static, WSP_GGML_TYPE_F32, NIN, NB), "x");
    wsp_ggml_set_param(w1);
    wsp_ggml_set_param(b1);
    wsp_ggml_set_param(w2);
    wsp_ggml_set_param(b2);
    wsp_ggml_backend_buffer_t buf_static = wsp_ggml_backend_alloc_ctx_tensors(ctx_static, cpu);
    du_fill(w1, -0.4f, 0.13f);
    du_fill(b1, 0.1f, -0.05f);
    du_fill(w2, 0.3f, -0.2f);
    du_fill(b2, 0.0f, 0.0f);

    struct wsp_ggml_context * ctx_compute = compute_ctx();
    struct wsp_ggml_tensor * h = wsp_ggml_relu(ctx_compute, wsp_ggml_add(ctx_compute, wsp_ggml_mul_mat(ctx_compute, w1, x), b1));
    struct wsp_ggml_tensor * y = su_named(wsp_ggml_add(ctx_compute, wsp_ggml_mul_mat(ctx_compute, w2, h), b2), "y");

    // target: y = relu(x0 + x1) - 0.5 x0
    wsp_ggml_opt_dataset_t ds = wsp_ggml_opt_dataset_init(WSP_GGML_TYPE_F32, WSP_GGML_TYPE_F32, NIN, 1, NDATA, 1);
    float * data = (float *) wsp_ggml_opt_dataset_data(ds)->data;
    float * labels = (float *) wsp_ggml_opt_dataset_labels(ds)->data;
    for (int i = 0; i < NDATA; i++) {
        const float x0 = (float) (i % 8) / 4.0f - 1.0f;
        const float x1 = (float) (i / 8) / 4.0f - 1.0f;
        data[2*i + 0] = x0;
        data[2*i + 1] = x1;
        labels[i] = (x0 + x1 > 0.0f ? x0 + x1 : 0.0f) - 0.5f * x0;
    }

    // whisper.rn 0.5's ggml-opt (with backend API 2) also takes the optimizer: AdamW, 0.4's only one
    wsp_ggml_opt_fit(sched, ctx_compute, x, y, ds, WSP_GGML_OPT_LOSS_TYPE_MEAN_SQUARED_ERROR,
#if WSP_GGML_BACKEND_API_VERSION >= 2
                     WSP_GGML_OPT_OPTIMIZER_TYPE_ADAMW,
#endif
                     mlp_opt_pars, /*nepoch =*/ 8, /*nbatch_logical =*/ 8, /*val_split =*/ 0.25f, /*silent =*/ true);
    print_param("T3 w1", w1);
    print_param("T3 b1", b1);
    print_param("T3 w2", w2);
    print_param("T3 b2", b2);

    // a forward-only evaluation pass of the trained model over the whole dataset
    struct wsp_ggml_opt_params params = wsp_ggml_opt_default_params(sched, WSP_GGML_OPT_LOSS_TYPE_MEAN_SQUARED_ERROR);
    params.ctx_compute = ctx_compute;
    params.inputs      = x;
    params.outputs     = y;
    params.build_type  = WSP_GGML_OPT_BUILD_TYPE_FORWARD;
    wsp_ggml_opt_context_t opt = wsp_ggml_opt_init(params);
    wsp_ggml_opt_result_t res = wsp_ggml_opt_result_init();
    wsp_ggml_opt_epoch(opt, ds, NULL, res, 0, NULL, NULL);
    double loss, unc;
    wsp_ggml_opt_result_loss(res, &loss, &unc);
    int64_t nd;
    wsp_ggml_opt_result_ndata(res, &nd);
    printf("T3 eval loss %016llx %.6f unc %.6f ndata %lld\n", (unsigned long long) dbits(loss), loss, unc, (long long) nd);

    wsp_ggml_opt_result_free(res);
    free_training(opt, ds, ctx_compute, buf_static, ctx_static, sched);
}

int main(void) {
    wsp_ggml_backend_t cpu = su_cpu();
    wsp_ggml_backend_t two[2] = { cpu, cpu };
    linear("T1", two, 2);
    wsp_ggml_backend_t one[1] = { cpu };
    linear("T2", one, 1);
    mlp(cpu);
    wsp_ggml_backend_free(cpu);
    printf("done\n");
    return 0;
}
