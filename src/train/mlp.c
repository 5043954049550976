/*
 * mlp.c - the MLP of mlp.h: parameters in one arena (so that the fused SGD
 * update is one sl_axpy over every parameter), activations and gradients
 * per layer, the training step as a sequence of library calls and
 * train_kern.h kernels on one stream, optionally captured as a CUDA graph.
 */
#define _POSIX_C_SOURCE 200809L
#include "mlp.h"

#include "rng.h"
#include "train_kern.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct mlp {
    sl_ctx *ctx;
    const tk_ops *k;
    mlp_config cfg;
    int L, rows_max, eval_rows;
    void *stream, *cublas;
    size_t nparams;                    /* arena floats, padding included */
    size_t woff[MLP_MAX_LAYERS + 1], boff[MLP_MAX_LAYERS + 1];
    float *params, *grads;             /* arenas */
    float *act[MLP_MAX_LAYERS + 1];    /* act[0]: the batch; act[l]: rows_max x sizes[l] */
    float *dact[MLP_MAX_LAYERS + 1];   /* dZ_l */
    int pre_t;                         /* fused with sl_gemm: transposed operands kept, no transpose launches */
    float *actT[MLP_MAX_LAYERS + 1];   /* act[l]^T, sizes[l] x rows (pre_t) */
    tk_wt wt;                          /* W_l^T for l >= 2 (pre_t) */
    float lr;                          /* the rate the captured graphs hold */
    float *prob, *loss_rows, *correct_rows, *tA, *tB;
    int32_t *yb, *cursor, *perm;
    double *stats;
    float *x, *xt;
    int32_t *y, *yt;
    size_t n, nt;
    int32_t *perm_host;
    int graph_rows[2];                 /* rows of the captured graphs (0: none) */
    void *graph[2];
    int seen_rows[2];                  /* rows values already run eagerly once */
    int launches, launches_step;
    /* the breakdown: an event recorded after each launch of a captured step */
    int prof, nmark;
    void *ev[64];
    char label[64][48];
    char gemm_label[48];
    char *err;
    size_t errlen;
};

static int fail(mlp *m, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m->err, m->errlen, fmt, ap);
    va_end(ap);
    return -1;
}

/* every enqueue goes through one of these: they count launches and turn
 * failures into messages */
#define K(call)                                                                                                        \
    do {                                                                                                               \
        m->launches++;                                                                                                 \
        if ((call) != 0)                                                                                               \
            return fail(m, "%s", tk_last_error());                                                                     \
        if (m->prof && mark(m, #call) != 0)                                                                            \
            return -1;                                                                                                 \
    } while (0)
#define SL(call)                                                                                                       \
    do {                                                                                                               \
        m->launches++;                                                                                                 \
        sl_status st_ = (call);                                                                                        \
        if (st_ != SL_OK)                                                                                              \
            return fail(m, "%s: %s: %s", #call, sl_status_string(st_), sl_last_error());                               \
        if (m->prof && mark(m, #call) != 0)                                                                            \
            return -1;                                                                                                 \
    } while (0)

/* record the next breakdown event, labelled with the call's name (and the
 * GEMM's shape) */
static int mark(mlp *m, const char *call)
{
    if (m->nmark >= 64)
        return 0;
    const char *p = strstr(call, "->k->");
    p = p ? p + 5 : call;
    size_t n = strcspn(p, "(");
    char name[48];
    snprintf(name, sizeof name, "%.*s", (int)(n < 40 ? n : 40), p);
    if (strcmp(name, "sl_gemm") == 0 || strcmp(name, "tk_cublas_gemm") == 0)
        snprintf(name, sizeof name, "%s", m->gemm_label);
    snprintf(m->label[m->nmark], sizeof m->label[0], "%s", name);
    if (m->k->event_record(m->ev[m->nmark], m->stream) != 0)
        return fail(m, "%s", tk_last_error());
    m->nmark++;
    return 0;
}

/* row-major C (M x N) = op(A) op(B); op(A) M x K, op(B) K x N; A stored K x M
 * when ta, B stored N x K when tb. AT, BT (may be NULL): op(A), op(B)
 * already transposed (dense M x K, K x N), used instead of a transpose. */
static int gemm(mlp *m, int ta, int tb, int M, int N, int K_, const float *A, const float *AT, const float *B,
                const float *BT, float *C)
{
    snprintf(m->gemm_label, sizeof m->gemm_label, "gemm %dx%dx%d%s%s", M, N, K_, ta && !AT ? " A^T" : "",
             tb && !BT ? " B^T" : "");
    if (ta && AT) {
        A = AT;
        ta = 0;
    }
    if (tb && BT) {
        B = BT;
        tb = 0;
    }
#ifdef SL_HAVE_CUDA
    if (m->cublas) {
        K(tk_cublas_gemm(m->cublas, m->stream, ta, tb, M, N, K_, A, ta ? M : K_, B, tb ? K_ : N, C, N));
        return 0;
    }
#endif
    if (ta) {
        SL(sl_transpose(m->ctx, SL_F32, (size_t)K_, (size_t)M, A, m->tA, m->stream));
        A = m->tA;
    }
    if (tb) {
        SL(sl_transpose(m->ctx, SL_F32, (size_t)N, (size_t)K_, B, m->tB, m->stream));
        B = m->tB;
    }
    SL(sl_gemm(m->ctx, SL_F32, 'N', 'N', (size_t)M, (size_t)N, (size_t)K_, 1.0, A, (size_t)K_, B, (size_t)N, 0.0, C,
               (size_t)N, m->stream));
    return 0;
}

static int forward(mlp *m, int rows)
{
    const int *sz = m->cfg.sizes;
    for (int l = 1; l <= m->L; l++) {
        if (gemm(m, 0, 0, rows, sz[l], sz[l - 1], m->act[l - 1], NULL, m->params + m->woff[l], NULL, m->act[l]) != 0)
            return -1;
        const int relu = l < m->L;
        const float *b = m->params + m->boff[l];
        if (m->cfg.fused) {
            K(m->k->bias_act(m->act[l], b, rows, sz[l], relu, m->pre_t && l < m->L ? m->actT[l] : NULL, m->stream));
        } else {
            K(m->k->bias_add(m->act[l], b, rows, sz[l], m->stream));
            if (relu)
                K(m->k->relu(m->act[l], (size_t)rows * sz[l], m->stream));
        }
    }
    return 0;
}

/* the loss statistics (and the gradient dZ_L when grad) of the logits */
static int loss(mlp *m, int rows, int grad, int32_t *cursor)
{
    const int C = m->cfg.sizes[m->L];
    if (m->cfg.fused) {
        K(m->k->softmax_ce(m->act[m->L], m->yb, rows, C, grad ? m->dact[m->L] : NULL, m->stats, m->stream));
        if (cursor)
            K(m->k->advance(cursor, rows, m->stream));
        return 0;
    }
    SL(sl_softmax(m->ctx, SL_F32, (size_t)rows, (size_t)C, m->act[m->L], m->prob, m->stream));
    K(m->k->ce_loss(m->prob, m->yb, rows, C, m->loss_rows, m->correct_rows, m->stream));
    K(m->k->row_stats(m->loss_rows, m->correct_rows, rows, m->stats, cursor, m->stream));
    if (grad)
        K(m->k->ce_backward(m->prob, m->yb, rows, C, m->dact[m->L], m->stream));
    return 0;
}

static int backward(mlp *m, int rows)
{
    const int *sz = m->cfg.sizes;
    K(m->k->bias_grad(m->dact[m->L], rows, sz[m->L], m->grads + m->boff[m->L], m->stream));
    for (int l = m->L; l >= 1; l--) {
        /* dW_l = A_{l-1}^T dZ_l: sizes[l-1] x sizes[l], over the batch */
        if (gemm(m, 1, 0, sz[l - 1], sz[l], rows, m->act[l - 1], m->pre_t ? m->actT[l - 1] : NULL, m->dact[l], NULL,
                 m->grads + m->woff[l]) != 0)
            return -1;
        if (l == 1)
            break;
        /* dA_{l-1} = dZ_l W_l^T, then the ReLU mask and db_{l-1} */
        if (gemm(m, 0, 1, rows, sz[l - 1], sz[l], m->dact[l], NULL, m->params + m->woff[l],
                 m->pre_t ? m->wt.wt + m->wt.wtoff[l - 2] : NULL, m->dact[l - 1]) != 0)
            return -1;
        float *db = m->grads + m->boff[l - 1];
        if (m->cfg.fused) {
            K(m->k->relu_bias_grad(m->dact[l - 1], m->act[l - 1], rows, sz[l - 1], db, m->stream));
        } else {
            K(m->k->relu_backward(m->dact[l - 1], m->act[l - 1], (size_t)rows * sz[l - 1], m->stream));
            K(m->k->bias_grad(m->dact[l - 1], rows, sz[l - 1], db, m->stream));
        }
    }
    return 0;
}

static int update(mlp *m)
{
    const float a = -m->lr;
    if (m->cfg.fused) { /* one launch over the arena (its padding has zero gradients) and the W^T copies */
        K(m->k->sgd(m->params, m->grads, m->nparams, m->lr, m->wt, m->stream));
        return 0;
    }
    for (int l = 1; l <= m->L; l++) {
        const int *sz = m->cfg.sizes;
        SL(sl_axpy(m->ctx, SL_F32, (size_t)sz[l - 1] * sz[l], a, m->grads + m->woff[l], m->params + m->woff[l],
                   m->stream));
        SL(sl_axpy(m->ctx, SL_F32, (size_t)sz[l], a, m->grads + m->boff[l], m->params + m->boff[l], m->stream));
    }
    return 0;
}

/* one training step on the batch at the device cursor */
static int step(mlp *m, int rows)
{
    if (m->prof) { /* the start mark */
        m->nmark = 0;
        if (m->k->event_record(m->ev[m->nmark++], m->stream) != 0)
            return fail(m, "%s", tk_last_error());
        snprintf(m->label[0], sizeof m->label[0], "start");
    }
    K(m->k->gather(m->x, m->y, m->perm, m->cursor, 0, rows, m->cfg.sizes[0], m->act[0], m->pre_t ? m->actT[0] : NULL,
                   m->yb, m->stream));
    if (forward(m, rows) || loss(m, rows, 1, m->cursor) || backward(m, rows) || update(m))
        return -1;
    return 0;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static size_t round4(size_t v) { return (v + 3) & ~(size_t)3; }

/* the W^T copies from a host arena */
static int upload_wt(mlp *m, const float *arena)
{
    if (!m->wt.n)
        return 0;
    const tk_wt *w = &m->wt;
    const size_t n = w->wtoff[w->n - 1] + (size_t)w->in[w->n - 1] * w->out[w->n - 1];
    float *t = malloc(n * 4);
    if (!t)
        return -1;
    for (int l = 0; l < w->n; l++)
        for (int i = 0; i < w->in[l]; i++)
            for (int j = 0; j < w->out[l]; j++)
                t[w->wtoff[l] + (size_t)j * w->in[l] + i] = arena[w->woff[l] + (size_t)i * w->out[l] + j];
    int rc = m->k->upload(w->wt, t, n * 4, m->stream);
    free(t);
    return rc;
}

int mlp_create(sl_ctx *ctx, const mlp_config *cfg, int eval_rows, mlp **out, char *err, size_t errlen)
{
    *out = NULL;
    mlp *m = calloc(1, sizeof *m);
    if (!m) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    m->err = err;
    m->errlen = errlen;
    m->ctx = ctx;
    m->cfg = *cfg;
    m->L = cfg->nlayers;
    m->eval_rows = eval_rows;
    m->rows_max = cfg->batch > eval_rows ? cfg->batch : eval_rows;
    m->lr = cfg->lr;
    m->pre_t = cfg->fused && !cfg->cublas;
    sl_device_info info;
    sl_ctx_info(ctx, &info);
    const int cuda = info.backend == SL_BACKEND_CUDA;
#ifdef SL_HAVE_CUDA
    m->k = cuda ? tk_cuda_ops() : tk_cpu_ops();
#else
    m->k = tk_cpu_ops();
#endif
    if ((cfg->graph || cfg->cublas) && !cuda) {
        free(m);
        snprintf(err, errlen, "%s needs the CUDA backend", cfg->graph ? "--graph" : "--gemm cublas");
        return -1;
    }
    if (cuda) {
        /* every pointer is one of ours, from cudaMalloc: skip the per-call
         * cudaPointerGetAttributes (include/streamlab.h) */
        sl_ctx_set_pointer_checks(ctx, SL_POINTER_CHECKS_OFF);
        m->stream = m->k->stream_create();
        if (!m->stream)
            goto oom;
#ifdef SL_HAVE_CUDA
        if (cfg->cublas && tk_cublas_create(&m->cublas) != 0) {
            fail(m, "%s", tk_last_error());
            mlp_destroy(m);
            return -1;
        }
#endif
    }
    const int *sz = cfg->sizes;
    size_t off = 0, ta = 0, tb = 0;
    for (int l = 1; l <= m->L; l++) {
        m->woff[l] = off;
        off = round4(off + (size_t)sz[l - 1] * sz[l]);
        m->boff[l] = off;
        off = round4(off + (size_t)sz[l]);
        if ((size_t)sz[l - 1] * m->rows_max > ta)
            ta = (size_t)sz[l - 1] * m->rows_max;
        if ((size_t)sz[l - 1] * sz[l] > tb)
            tb = (size_t)sz[l - 1] * sz[l];
    }
    m->nparams = off;
    const size_t R = (size_t)m->rows_max, C = (size_t)sz[m->L];
    if (!(m->params = m->k->alloc(off * 4)) || !(m->grads = m->k->alloc(off * 4)) ||
        !(m->prob = m->k->alloc(R * C * 4)) || !(m->loss_rows = m->k->alloc(R * 4)) ||
        !(m->correct_rows = m->k->alloc(R * 4)) || !(m->tA = m->k->alloc(ta * 4)) || !(m->tB = m->k->alloc(tb * 4)) ||
        !(m->yb = m->k->alloc(R * 4)) || !(m->cursor = m->k->alloc(16)) || !(m->stats = m->k->alloc(16)))
        goto oom;
    for (int l = 0; l <= m->L; l++) {
        if (!(m->act[l] = m->k->alloc(R * sz[l] * 4)))
            goto oom;
        if (l > 0 && !(m->dact[l] = m->k->alloc(R * sz[l] * 4)))
            goto oom;
        if (m->pre_t && l < m->L && !(m->actT[l] = m->k->alloc(R * sz[l] * 4)))
            goto oom;
    }
    if (m->pre_t && m->L > 1) {
        size_t wo = 0;
        m->wt.n = m->L - 1;
        for (int l = 2; l <= m->L; l++) {
            m->wt.woff[l - 2] = m->woff[l];
            m->wt.wtoff[l - 2] = wo;
            m->wt.in[l - 2] = sz[l - 1];
            m->wt.out[l - 2] = sz[l];
            wo = round4(wo + (size_t)sz[l - 1] * sz[l]);
        }
        if (!(m->wt.wt = m->k->alloc(wo * 4)))
            goto oom;
    }
    /* He initialisation on the host: W ~ N(0, 2 / fan_in) by Box-Muller
     * from a counter-based stream of the seed; biases 0 */
    float *h = calloc(off, sizeof(float));
    if (!h)
        goto oom;
    uint64_t ctr = 0;
    for (int l = 1; l <= m->L; l++) {
        const double sd = sqrt(2.0 / sz[l - 1]);
        const size_t nw = (size_t)sz[l - 1] * sz[l];
        for (size_t i = 0; i < nw; i += 2) {
            double u1 = ((double)(sl_mix64(cfg->seed * 0x9e3779b97f4a7c15ull + ctr++) >> 11) + 0.5) * 0x1p-53;
            double u2 = ((double)(sl_mix64(cfg->seed * 0x9e3779b97f4a7c15ull + ctr++) >> 11) + 0.5) * 0x1p-53;
            double r = sqrt(-2.0 * log(u1));
            h[m->woff[l] + i] = (float)(sd * r * cos(2 * 3.14159265358979323846 * u2));
            if (i + 1 < nw)
                h[m->woff[l] + i + 1] = (float)(sd * r * sin(2 * 3.14159265358979323846 * u2));
        }
    }
    int rc = m->k->upload(m->params, h, off * 4, m->stream);
    if (rc == 0)
        rc = upload_wt(m, h);
    free(h);
    if (rc != 0) {
        fail(m, "%s", tk_last_error());
        mlp_destroy(m);
        return -1;
    }
    *out = m;
    return 0;
oom:
    fail(m, "cannot allocate the model on the %s backend: %s", m->k->name, tk_last_error());
    mlp_destroy(m);
    return -1;
}

void mlp_destroy(mlp *m)
{
    if (!m)
        return;
    const tk_ops *k = m->k;
    for (int g = 0; g < 2; g++)
        if (m->graph[g])
            k->graph_destroy(m->graph[g]);
    void *bufs[] = {m->params, m->grads, m->prob, m->loss_rows, m->correct_rows, m->tA, m->tB, m->yb, m->cursor,
                    m->stats, m->x, m->xt, m->y, m->yt, m->perm, m->wt.wt};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        if (bufs[i])
            k->free(bufs[i]);
    for (int l = 0; l <= m->L; l++) {
        if (m->act[l])
            k->free(m->act[l]);
        if (m->dact[l])
            k->free(m->dact[l]);
        if (m->actT[l])
            k->free(m->actT[l]);
    }
#ifdef SL_HAVE_CUDA
    if (m->cublas)
        tk_cublas_destroy(m->cublas);
#endif
    if (m->stream)
        k->stream_destroy(m->stream);
    free(m->perm_host);
    free(m);
}

int mlp_set_data(mlp *m, const float *x, const int32_t *y, size_t n, const float *xt, const int32_t *yt, size_t nt,
                 char *err, size_t errlen)
{
    m->err = err;
    m->errlen = errlen;
    const size_t d = (size_t)m->cfg.sizes[0];
    if (!(m->x = m->k->alloc(n * d * 4)) || !(m->y = m->k->alloc(n * 4)) || !(m->perm = m->k->alloc(n * 4)) ||
        !(m->xt = m->k->alloc(nt * d * 4)) || !(m->yt = m->k->alloc(nt * 4)) ||
        !(m->perm_host = malloc(n * sizeof(int32_t))))
        return fail(m, "cannot hold the data set (%zu + %zu samples) on the %s backend: %s", n, nt, m->k->name,
                    tk_last_error());
    if (m->k->upload(m->x, x, n * d * 4, m->stream) || m->k->upload(m->y, y, n * 4, m->stream) ||
        m->k->upload(m->xt, xt, nt * d * 4, m->stream) || m->k->upload(m->yt, yt, nt * 4, m->stream))
        return fail(m, "%s", tk_last_error());
    m->n = n;
    m->nt = nt;
    return 0;
}

int mlp_train_epoch(mlp *m, int epoch, double *loss_out, double *acc, double *seconds, mlp_progress cb, void *arg,
                    char *err, size_t errlen)
{
    m->err = err;
    m->errlen = errlen;
    /* Fisher-Yates from the seed and the epoch: the same order on every backend */
    for (size_t i = 0; i < m->n; i++)
        m->perm_host[i] = (int32_t)i;
    const uint64_t key = sl_mix64(m->cfg.seed ^ 0x5bd1e995ull) + (uint64_t)epoch * 0x9e3779b97f4a7c15ull;
    for (size_t i = m->n - 1; i > 0; i--) {
        size_t j = (size_t)(sl_mix64(key + i) % (i + 1));
        int32_t t = m->perm_host[i];
        m->perm_host[i] = m->perm_host[j];
        m->perm_host[j] = t;
    }
    const double t0 = now();
    if (m->k->upload(m->perm, m->perm_host, m->n * 4, m->stream) || m->k->zero(m->stats, 16, m->stream) ||
        m->k->zero(m->cursor, 4, m->stream))
        return fail(m, "%s", tk_last_error());
    const int B = m->cfg.batch;
    const size_t full = m->n / (size_t)B, steps = (m->n + (size_t)B - 1) / (size_t)B;
    for (size_t s = 0; s < steps; s++) {
        const int rows = s < full ? B : (int)(m->n - full * (size_t)B);
        const int g = rows == B ? 0 : 1;
        const int before = m->launches;
        if (!m->cfg.graph || !m->seen_rows[g]) {
            /* eager (and, with --graph, the first step of each batch size:
             * lazy initialisation outside the capture) */
            if (step(m, rows) != 0)
                return -1;
            m->seen_rows[g] = 1;
            if (g == 0)
                m->launches_step = m->launches - before;
        } else {
            if (!m->graph[g]) {
                if (m->k->graph_begin(m->stream) != 0)
                    return fail(m, "%s", tk_last_error());
                int rc = step(m, rows);
                void *exec = NULL;
                if (m->k->graph_end(m->stream, &exec) != 0 || rc != 0)
                    return rc != 0 ? -1 : fail(m, "%s", tk_last_error());
                m->graph[g] = exec;
                m->graph_rows[g] = rows;
            }
            if (m->k->graph_launch(m->graph[g], m->stream) != 0)
                return fail(m, "%s", tk_last_error());
        }
        if (cb && (s % 16 == 15 || s + 1 == steps) && !cb(arg, s + 1, steps)) {
            if (m->k->sync(m->stream) != 0)
                return fail(m, "%s", tk_last_error());
            return 1;
        }
    }
    double st[2];
    if (m->k->sync(m->stream) != 0 || m->k->download(st, m->stats, 16, m->stream) != 0)
        return fail(m, "%s", tk_last_error());
    *seconds = now() - t0;
    *loss_out = st[0] / (double)m->n;
    *acc = st[1] / (double)m->n;
    return 0;
}

int mlp_evaluate(mlp *m, double *loss_out, double *acc, char *err, size_t errlen)
{
    m->err = err;
    m->errlen = errlen;
    if (m->k->zero(m->stats, 16, m->stream) != 0)
        return fail(m, "%s", tk_last_error());
    for (size_t off = 0; off < m->nt; off += (size_t)m->eval_rows) {
        const int rows = (int)(m->nt - off < (size_t)m->eval_rows ? m->nt - off : (size_t)m->eval_rows);
        K(m->k->gather(m->xt, m->yt, NULL, NULL, (int)off, rows, m->cfg.sizes[0], m->act[0], NULL, m->yb, m->stream));
        if (forward(m, rows) != 0 || loss(m, rows, 0, NULL) != 0)
            return -1;
    }
    double st[2];
    if (m->k->sync(m->stream) != 0 || m->k->download(st, m->stats, 16, m->stream) != 0)
        return fail(m, "%s", tk_last_error());
    *loss_out = st[0] / (double)m->nt;
    *acc = st[1] / (double)m->nt;
    return 0;
}

size_t mlp_param_count(const mlp *m)
{
    size_t c = 0;
    for (int l = 1; l <= m->L; l++)
        c += (size_t)m->cfg.sizes[l - 1] * m->cfg.sizes[l] + (size_t)m->cfg.sizes[l];
    return c;
}

/* arena <-> packed host order W_1, b_1, W_2, b_2, ... */
static void pack(const mlp *m, const float *arena, float *out)
{
    size_t o = 0;
    for (int l = 1; l <= m->L; l++) {
        const size_t nw = (size_t)m->cfg.sizes[l - 1] * m->cfg.sizes[l], nb = (size_t)m->cfg.sizes[l];
        memcpy(out + o, arena + m->woff[l], nw * 4);
        memcpy(out + o + nw, arena + m->boff[l], nb * 4);
        o += nw + nb;
    }
}

static int get_arena(mlp *m, const float *dev, float *out)
{
    float *h = malloc(m->nparams * 4);
    if (!h)
        return -1;
    int rc = m->k->download(h, dev, m->nparams * 4, m->stream);
    if (rc == 0)
        pack(m, h, out);
    free(h);
    return rc;
}

int mlp_get_params(mlp *m, float *out) { return get_arena(m, m->params, out); }

int mlp_set_params(mlp *m, const float *in)
{
    float *h = calloc(m->nparams, 4);
    if (!h)
        return -1;
    size_t o = 0;
    for (int l = 1; l <= m->L; l++) {
        const size_t nw = (size_t)m->cfg.sizes[l - 1] * m->cfg.sizes[l], nb = (size_t)m->cfg.sizes[l];
        memcpy(h + m->woff[l], in + o, nw * 4);
        memcpy(h + m->boff[l], in + o + nw, nb * 4);
        o += nw + nb;
    }
    int rc = m->k->upload(m->params, h, m->nparams * 4, m->stream);
    if (rc == 0)
        rc = upload_wt(m, h);
    free(h);
    return rc;
}

int mlp_gradients(mlp *m, const float *x, const int32_t *y, int rows, float *grads, double *loss_out, char *err,
                  size_t errlen)
{
    m->err = err;
    m->errlen = errlen;
    if (rows < 1 || rows > m->rows_max)
        return fail(m, "mlp_gradients: %d rows, the model holds 1..%d", rows, m->rows_max);
    const int d = m->cfg.sizes[0];
    if (m->k->upload(m->act[0], x, (size_t)rows * d * 4, m->stream) ||
        m->k->upload(m->yb, y, (size_t)rows * 4, m->stream) || m->k->zero(m->stats, 16, m->stream))
        return fail(m, "%s", tk_last_error());
    if (m->pre_t) {
        float *t = malloc((size_t)rows * d * 4);
        if (!t)
            return fail(m, "out of memory");
        for (int i = 0; i < rows; i++)
            for (int j = 0; j < d; j++)
                t[(size_t)j * rows + i] = x[(size_t)i * d + j];
        int rc = m->k->upload(m->actT[0], t, (size_t)rows * d * 4, m->stream);
        free(t);
        if (rc != 0)
            return fail(m, "%s", tk_last_error());
    }
    if (forward(m, rows) || loss(m, rows, 1, NULL) || backward(m, rows))
        return -1;
    double st[2];
    if (m->k->sync(m->stream) || m->k->download(st, m->stats, 16, m->stream) || get_arena(m, m->grads, grads))
        return fail(m, "%s", tk_last_error());
    *loss_out = st[0] / rows;
    return 0;
}

int mlp_launches_per_step(const mlp *m) { return m->launches_step; }

int mlp_breakdown(mlp *m, int reps, mlp_phase *out, int max, double *graph_us, char *err, size_t errlen)
{
    m->err = err;
    m->errlen = errlen;
    if (!m->k->event_create)
        return fail(m, "the breakdown needs the CUDA backend");
    int rc = -1;
    void *g = NULL, *plain = NULL, *e0 = NULL, *e1 = NULL;
    for (int i = 0; i < 64; i++)
        if (!(m->ev[i] = m->k->event_create()))
            goto out;
    if (!(e0 = m->k->event_create()) || !(e1 = m->k->event_create()))
        goto out;
    /* the step with an event after each launch, and without, captured */
    m->prof = 1;
    if (m->k->graph_begin(m->stream) != 0)
        goto out;
    int st = step(m, m->cfg.batch);
    if (m->k->graph_end(m->stream, &g) != 0 || st != 0)
        goto out;
    m->prof = 0;
    if (m->k->graph_begin(m->stream) != 0)
        goto out;
    st = step(m, m->cfg.batch);
    if (m->k->graph_end(m->stream, &plain) != 0 || st != 0)
        goto out;
    const int nm = m->nmark;
    double sum[64] = {0}, total = 0;
    for (int r = 0; r < reps; r++) {
        if (m->k->zero(m->cursor, 4, m->stream) || m->k->graph_launch(g, m->stream) || m->k->sync(m->stream))
            goto out;
        for (int i = 1; i < nm; i++)
            sum[i] += m->k->event_us(m->ev[i - 1], m->ev[i]);
        if (m->k->zero(m->cursor, 4, m->stream) || m->k->event_record(e0, m->stream) ||
            m->k->graph_launch(plain, m->stream) || m->k->event_record(e1, m->stream) || m->k->sync(m->stream))
            goto out;
        total += m->k->event_us(e0, e1);
    }
    int n = 0;
    for (int i = 1; i < nm && n < max; i++, n++) {
        snprintf(out[n].name, sizeof out[n].name, "%s", m->label[i]);
        out[n].us = sum[i] / reps;
    }
    *graph_us = total / reps;
    rc = n;
out:
    if (rc < 0 && !m->err[0])
        fail(m, "%s", tk_last_error());
    m->prof = 0;
    if (g)
        m->k->graph_destroy(g);
    if (plain)
        m->k->graph_destroy(plain);
    for (int i = 0; i < 64; i++)
        if (m->ev[i]) {
            m->k->event_destroy(m->ev[i]);
            m->ev[i] = NULL;
        }
    if (e0)
        m->k->event_destroy(e0);
    if (e1)
        m->k->event_destroy(e1);
    return rc;
}

void mlp_set_lr(mlp *m, float lr)
{
    if (lr == m->lr)
        return;
    m->lr = lr;
    /* the captured steps hold the old rate as a kernel argument: capture again */
    for (int g = 0; g < 2; g++) {
        if (m->graph[g])
            m->k->graph_destroy(m->graph[g]);
        m->graph[g] = NULL;
        m->graph_rows[g] = 0;
    }
}
