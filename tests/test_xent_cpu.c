/*
 * test_xent_cpu.c - cross-entropy on the CPU backend (CI): the CPU rungs
 * of xent and xent_fwd and the public sl_cross_entropy_fwd_bwd /
 * sl_cross_entropy_fwd in f32, bf16 and f16 against the fp64 oracle of
 * xent_check.h under the documented bounds: V from 1 to 50257, logits
 * over +-20 and +-100, a 1e4 logit, equal logits, a NaN logit, targets 0
 * and V - 1, ignored rows, all rows ignored, label smoothing, int32 and
 * int64 targets, reductions none / mean / sum, in place (dlogits =
 * logits) and out of place; the gradient against central finite
 * differences of the loss; a target out of range refused
 * (SL_ERR_INVALID_ARG, nothing written); the API's errors; the op's
 * reference against the oracle; and the bounds shown able to fail. The
 * backward from a saved logsumexp (sl_cross_entropy_bwd) likewise, from
 * the oracle's lse rounded to f32 (test_bwd).
 */
#include "xent_check.h"

#include "internal.h"
#include "op.h"

static const sl_dtype dts[] = {SL_F32, SL_BF16, SL_F16};

typedef struct xcase {
    size_t rows, cols;
    int tmode;
    double eps;
    sl_reduction red;
    int i64, inplace, grad;
    const int *kinds;
    int nkinds;
} xcase;

/* One public call on host memory against the oracle. */
static void run_public(sl_ctx *ctx, sl_dtype dt, const xcase *c)
{
    const size_t es = sl_dtype_size(dt), n = c->rows * c->cols;
    unsigned char *x = malloc(n * es + 1), *dx = c->inplace ? x : malloc(n * es + 1);
    int64_t *t64 = malloc(c->rows * 8 + 8);
    int32_t *t32 = malloc(c->rows * 4 + 4);
    float *loss = malloc((c->rows + 1) * 4), *lse = malloc((c->rows + 1) * 4);
    double *wl = malloc(c->rows * 8 + 8), *wloss = malloc(c->rows * 8 + 8), *sc = malloc(c->rows * 8 + 8);
    double *wg = malloc(n * 8 + 8);
    xt_fill(dt, x, t64, c->rows, c->cols, c->rows * 31u + c->cols, c->kinds, c->nkinds, c->tmode);
    size_t count = 0;
    for (size_t r = 0; r < c->rows; r++) {
        t32[r] = (int32_t)t64[r];
        count += t64[r] != XT_IGNORE;
    }
    const double g = c->red == SL_REDUCTION_MEAN ? 1.0 / (double)count : 1.0;
    xt_oracle(dt, x, t64, c->rows, c->cols, c->eps, g, wl, wloss, wg, sc);
    if (!c->inplace)
        memset(dx, 0xff, n * es);
    memset(loss, 0xff, (c->rows + 1) * 4);
    const void *tg = c->i64 ? (const void *)t64 : (const void *)t32;
    const sl_index_type tt = c->i64 ? SL_INDEX_I64 : SL_INDEX_I32;
    sl_status st = c->grad ? sl_cross_entropy_fwd_bwd(ctx, dt, c->rows, c->cols, x, tt, tg, XT_IGNORE, (float)c->eps,
                                                      c->red, loss, lse, dx, NULL)
                           : sl_cross_entropy_fwd(ctx, dt, c->rows, c->cols, x, tt, tg, XT_IGNORE, (float)c->eps,
                                                  c->red, loss, lse, NULL);
    char what[200];
    snprintf(what, sizeof what, "%s %s %zux%zu tmode %d eps %g red %d %s%s kind %d", c->grad ? "fwd_bwd" : "fwd",
             sl_dtype_name(dt), c->rows, c->cols, c->tmode, c->eps, (int)c->red, c->i64 ? "i64" : "i32",
             c->inplace ? " in place" : "", c->kinds[0]);
    CHECK(st == SL_OK, "%s: %s", what, sl_last_error());
    if (st == SL_OK) {
        CHECK(xt_cmp_rows(lse, wl, sc, c->rows, c->cols, c->eps, 1.0, what, "lse") == 0, "%s: lse", what);
        if (c->red == SL_REDUCTION_NONE) {
            CHECK(xt_cmp_rows(loss, wloss, sc, c->rows, c->cols, c->eps, 1.0, what, "loss") == 0, "%s: loss", what);
        } else {
            double sum = 0.0, allowed = 0.0;
            for (size_t r = 0; r < c->rows; r++) {
                sum += wloss[r];
                allowed += xt_allow_loss(wloss[r], sc[r], c->cols, c->eps, 1.0);
            }
            const double want = c->red == SL_REDUCTION_MEAN ? sum / (double)count : sum;
            if (c->red == SL_REDUCTION_MEAN)
                allowed /= (double)count;
            allowed += 0x1p-23 * fabs(want);
            if (isnan(want))
                CHECK(isnan(loss[0]), "%s: reduced loss %g, want NaN", what, loss[0]);
            else
                CHECK(fabs(loss[0] - want) <= allowed, "%s: reduced loss %.9g, want %.9g (allowed %.3g)", what,
                      loss[0], want, allowed);
        }
        if (c->grad)
            CHECK(xt_cmp_grad(dt, dx, wg, wl, sc, c->rows, c->cols, 1.0, what) == 0, "%s: the gradient", what);
    }
    free(x);
    if (!c->inplace)
        free(dx);
    free(t64), free(t32), free(loss), free(lse), free(wl), free(wloss), free(sc), free(wg);
}

static void test_public(sl_ctx *ctx)
{
    const int k20[] = {XK_20}, wide[] = {XK_20, XK_100}, special[] = {XK_20, XK_100, XK_HUGE, XK_EQUAL, XK_NAN};
    static const size_t shapes[][2] = {{1, 1}, {3, 2}, {5, 31}, {7, 1000}, {6, 4097}, {5, 50257}};
    for (size_t d = 0; d < sizeof dts / sizeof dts[0]; d++) {
        for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
            xcase c = {shapes[i][0], shapes[i][1], 0, 0.0, SL_REDUCTION_NONE, 0, 0, 1, wide, 2};
            run_public(ctx, dts[d], &c);
            c.red = SL_REDUCTION_MEAN, c.i64 = 1, c.inplace = 1;
            run_public(ctx, dts[d], &c);
            c.red = SL_REDUCTION_SUM, c.eps = 0.1, c.grad = 0;
            run_public(ctx, dts[d], &c);
        }
        xcase s = {10, 333, 0, 0.0, SL_REDUCTION_NONE, 0, 0, 1, special, XK_KINDS};
        run_public(ctx, dts[d], &s);
        s.eps = 0.2, s.inplace = 1, s.i64 = 1;
        run_public(ctx, dts[d], &s);
        /* targets at the 1e4 logit (p near 1), 0-based chunk edges, V - 1,
         * ignored NaN rows (xt_fill's tmode 3, as test_gpu_xent) */
        xcase h = {12, 336, 3, 0.0, SL_REDUCTION_NONE, 0, 0, 1, special, XK_KINDS};
        run_public(ctx, dts[d], &h);
        h.eps = 0.1, h.inplace = 1;
        run_public(ctx, dts[d], &h);
        xcase all = {6, 100, 1, 0.0, SL_REDUCTION_MEAN, 0, 0, 1, k20, 1}; /* every row ignored */
        run_public(ctx, dts[d], &all);
        all.red = SL_REDUCTION_SUM;
        run_public(ctx, dts[d], &all);
    }
    /* every row ignored: mean is NaN (0 / 0, as torch), sum 0, gradient 0 */
    float x[8] = {1, 2, 3, 4, 5, 6, 7, 8}, dx[8], loss = 0, lse[2];
    int32_t t[2] = {XT_IGNORE, XT_IGNORE};
    CHECK(sl_cross_entropy_fwd_bwd(ctx, SL_F32, 2, 4, x, SL_INDEX_I32, t, XT_IGNORE, 0.0f, SL_REDUCTION_MEAN, &loss,
                                   lse, dx, NULL) == SL_OK && isnan(loss),
          "all ignored, mean: %g, want NaN", loss);
    int zero = 1;
    for (int i = 0; i < 8; i++)
        zero &= dx[i] == 0.0f;
    CHECK(zero, "all ignored: a zero gradient");
    CHECK(sl_cross_entropy_fwd_bwd(ctx, SL_F32, 2, 4, x, SL_INDEX_I32, t, XT_IGNORE, 0.0f, SL_REDUCTION_SUM, &loss,
                                   lse, dx, NULL) == SL_OK && loss == 0.0f,
          "all ignored, sum: %g, want 0", loss);
    /* hand-worked: logits (0, ln 3), target 1: lse = ln 4, loss = ln 4 - ln 3,
     * dx = (1/4, 3/4 - 1) */
    float h[2] = {0.0f, logf(3.0f)}, hd[2], hl, hs;
    int32_t ht = 1;
    CHECK(sl_cross_entropy_fwd_bwd(ctx, SL_F32, 1, 2, h, SL_INDEX_I32, &ht, XT_IGNORE, 0.0f, SL_REDUCTION_NONE, &hl, &hs,
                                   hd, NULL) == SL_OK,
          "%s", sl_last_error());
    CHECK(fabs(hs - log(4.0)) < 1e-6 && fabs(hl - log(4.0 / 3.0)) < 1e-6 && fabs(hd[0] - 0.25) < 1e-7 &&
              fabs(hd[1] + 0.25) < 1e-7,
          "hand-worked: lse %g loss %g dx (%g, %g)", hs, hl, hd[0], hd[1]);
}

/* The gradient against central differences of the loss (f32, mean,
 * smoothing 0.1, logits over +-3): an independent check of the formula. */
static void test_fd(sl_ctx *ctx)
{
    enum { R = 3, V = 7 };
    float x[R * V], dx[R * V], xp[R * V], loss, lp, lm, lse[R];
    int64_t t[R] = {0, XT_IGNORE, V - 1};
    uint64_t s = 5;
    for (int i = 0; i < R * V; i++)
        x[i] = (float)(((double)(xt_next(&s) >> 11) * 0x1p-53 * 2.0 - 1.0) * 3.0);
    CHECK(sl_cross_entropy_fwd_bwd(ctx, SL_F32, R, V, x, SL_INDEX_I64, t, XT_IGNORE, 0.1f, SL_REDUCTION_MEAN, &loss, lse,
                                   dx, NULL) == SL_OK,
          "%s", sl_last_error());
    const float h = 1e-2f;
    double worst = 0.0;
    for (int i = 0; i < R * V; i++) {
        memcpy(xp, x, sizeof x);
        xp[i] = x[i] + h;
        sl_cross_entropy_fwd(ctx, SL_F32, R, V, xp, SL_INDEX_I64, t, XT_IGNORE, 0.1f, SL_REDUCTION_MEAN, &lp, lse, NULL);
        xp[i] = x[i] - h;
        sl_cross_entropy_fwd(ctx, SL_F32, R, V, xp, SL_INDEX_I64, t, XT_IGNORE, 0.1f, SL_REDUCTION_MEAN, &lm, lse, NULL);
        const double fd = ((double)lp - (double)lm) / (2.0 * (double)((x[i] + h) - (x[i] - h)) / 2.0);
        worst = fmax(worst, fabs(fd - dx[i]));
    }
    CHECK(worst < 2e-4, "finite differences: worst |fd - dx| = %.3g", worst);
}

static void test_errors(sl_ctx *ctx)
{
    float x[16] = {0}, dx[16], loss[4], lse[4];
    int32_t t[4] = {0, 1, 4, 2}; /* row 2's target 4 is out of [0, 4) */
    for (int i = 0; i < 4; i++)
        loss[i] = lse[i] = -7.0f;
    CHECK(sl_cross_entropy_fwd_bwd(ctx, SL_F32, 4, 4, x, SL_INDEX_I32, t, XT_IGNORE, 0.0f, SL_REDUCTION_NONE, loss, lse,
                                   dx, NULL) == SL_ERR_INVALID_ARG,
          "a target out of range: %s", sl_last_error());
    CHECK(loss[0] == -7.0f && lse[0] == -7.0f, "nothing written before the refusal");
    t[2] = -3;
    CHECK(sl_cross_entropy_fwd(ctx, SL_F32, 4, 4, x, SL_INDEX_I32, t, XT_IGNORE, 0.0f, SL_REDUCTION_NONE, loss, lse,
                               NULL) == SL_ERR_INVALID_ARG,
          "a negative target other than ignore_index");
    t[2] = 2;
    CHECK(sl_cross_entropy_fwd_bwd(NULL, SL_F32, 4, 4, x, SL_INDEX_I32, t, -100, 0.0f, SL_REDUCTION_NONE, loss, lse, dx,
                                   NULL) == SL_ERR_INVALID_ARG,
          "NULL ctx");
    CHECK(sl_cross_entropy_fwd_bwd(ctx, SL_F64, 4, 4, x, SL_INDEX_I32, t, -100, 0.0f, SL_REDUCTION_NONE, loss, lse, dx,
                                   NULL) == SL_ERR_UNSUPPORTED,
          "f64");
    CHECK(sl_cross_entropy_fwd_bwd(ctx, SL_F32, 4, 4, x, (sl_index_type)3, t, -100, 0.0f, SL_REDUCTION_NONE, loss, lse,
                                   dx, NULL) == SL_ERR_INVALID_ARG,
          "bad target type");
    CHECK(sl_cross_entropy_fwd_bwd(ctx, SL_F32, 4, 4, x, SL_INDEX_I32, t, -100, 0.0f, (sl_reduction)9, loss, lse, dx,
                                   NULL) == SL_ERR_INVALID_ARG,
          "bad reduction");
    CHECK(sl_cross_entropy_fwd_bwd(ctx, SL_F32, 4, 4, x, SL_INDEX_I32, t, -100, 1.5f, SL_REDUCTION_NONE, loss, lse, dx,
                                   NULL) == SL_ERR_INVALID_ARG,
          "smoothing 1.5");
    CHECK(sl_cross_entropy_fwd_bwd(ctx, SL_F32, 4, 4, x, SL_INDEX_I32, t, -100, NAN, SL_REDUCTION_NONE, loss, lse, dx,
                                   NULL) == SL_ERR_INVALID_ARG,
          "smoothing NaN");
    CHECK(sl_cross_entropy_fwd_bwd(ctx, SL_F32, 4, 4, NULL, SL_INDEX_I32, t, -100, 0.0f, SL_REDUCTION_NONE, loss, lse,
                                   dx, NULL) == SL_ERR_INVALID_ARG,
          "NULL logits");
    CHECK(sl_cross_entropy_fwd_bwd(ctx, SL_F32, 4, 4, x, SL_INDEX_I32, NULL, -100, 0.0f, SL_REDUCTION_NONE, loss, lse,
                                   dx, NULL) == SL_ERR_INVALID_ARG,
          "NULL targets");
    CHECK(sl_cross_entropy_fwd_bwd(ctx, SL_F32, 4, 4, x, SL_INDEX_I32, t, -100, 0.0f, SL_REDUCTION_NONE, loss, lse,
                                   x + 1, NULL) == SL_ERR_OVERLAP,
          "dlogits overlapping logits without being equal");
    CHECK(sl_cross_entropy_fwd_bwd(ctx, SL_F32, 4, 4, x, SL_INDEX_I32, t, -100, 0.0f, SL_REDUCTION_NONE, loss, loss,
                                   dx, NULL) == SL_ERR_OVERLAP,
          "lse = loss");
    CHECK(sl_cross_entropy_fwd_bwd(ctx, SL_F32, 4, 4, x, SL_INDEX_I32, t, -100, 0.0f, SL_REDUCTION_NONE, x, lse, dx,
                                   NULL) == SL_ERR_OVERLAP,
          "loss over the logits");
    CHECK(sl_cross_entropy_fwd_bwd(ctx, SL_F32, 4, 4, (const char *)x + 2, SL_INDEX_I32, t, -100, 0.0f,
                                   SL_REDUCTION_NONE, loss, lse, dx, NULL) == SL_ERR_MISALIGNED,
          "misaligned logits");
    CHECK(sl_cross_entropy_fwd_bwd(ctx, SL_F32, 4, 0, x, SL_INDEX_I32, t, -100, 0.0f, SL_REDUCTION_NONE, loss, lse, dx,
                                   NULL) == SL_ERR_INVALID_ARG,
          "0 classes");
    CHECK(sl_cross_entropy_fwd_bwd(ctx, SL_F32, 0, 4, NULL, SL_INDEX_I32, NULL, -100, 0.0f, SL_REDUCTION_NONE, NULL,
                                   NULL, NULL, NULL) == SL_OK,
          "0 rows, none: a no-op: %s", sl_last_error());
    loss[0] = 1.0f;
    CHECK(sl_cross_entropy_fwd_bwd(ctx, SL_F32, 0, 4, NULL, SL_INDEX_I32, NULL, -100, 0.0f, SL_REDUCTION_MEAN, loss,
                                   NULL, NULL, NULL) == SL_OK && isnan(loss[0]),
          "0 rows, mean: NaN (%s)", sl_last_error());
}

/* The op's reference (the harness's) against the oracle (within one
 * rounding: slack 0), and the bounds able to fail: every loss moved by
 * twice its bound fails, and a gradient whose exp is computed from an
 * lse off by 2^-14 fails the gradient bound. */
static void test_reference(sl_ctx *ctx)
{
    (void)ctx;
    const size_t rows = 10, cols = 777;
    const int kinds[] = {XK_20, XK_100, XK_HUGE, XK_EQUAL};
    for (size_t d = 0; d < sizeof dts / sizeof dts[0]; d++) {
        const sl_dtype dt = dts[d];
        const size_t es = sl_dtype_size(dt);
        unsigned char *x = malloc(rows * cols * es), *dx = malloc(rows * cols * es);
        int64_t t64[10];
        int32_t t32[10];
        float loss[10], lse[10];
        double wl[10], wloss[10], sc[10], *wg = malloc(rows * cols * 8);
        xt_fill(dt, x, t64, rows, cols, 99, kinds, 4, 0);
        for (size_t r = 0; r < rows; r++)
            t32[r] = (int32_t)t64[r];
        xt_oracle(dt, x, t64, rows, cols, 0.05, 1.0, wl, wloss, wg, sc);
        double scal[2] = {XT_IGNORE, 0.05};
        sl_ref_args a;
        memset(&a, 0, sizeof a);
        a.shape = (sl_shape){.rows = rows, .cols = cols, .ld = cols};
        a.hi = rows;
        a.last = true;
        a.dtype = a.out_dtype = dt;
        a.scalar = scal;
        a.in[0] = x;
        a.in[1] = t32;
        a.out[2] = loss;
        a.out[3] = lse;
        a.out[4] = dx;
        sl_op_xent.reference(&a);
        CHECK(xt_cmp_rows(lse, wl, sc, rows, cols, 0.05, 0.0, "reference", "lse") == 0, "%s: reference lse",
              sl_dtype_name(dt));
        CHECK(xt_cmp_rows(loss, wloss, sc, rows, cols, 0.05, 0.0, "reference", "loss") == 0, "%s: reference loss",
              sl_dtype_name(dt));
        CHECK(xt_cmp_grad(dt, dx, wg, wl, sc, rows, cols, 0.0, "reference") == 0, "%s: reference gradient",
              sl_dtype_name(dt));
        double smax = 1.0;
        for (size_t r = 0; r < rows; r++)
            smax = fmax(smax, sc[r]);
        CHECK(fabs(a.scale - smax) <= 1e-9 * smax, "%s: reference scale %g, want %g", sl_dtype_name(dt), a.scale, smax);
        if (dt == SL_F32) {
            /* a gradient from an lse off by 2^-14 (exp relative 2^-14 =
             * 1024 x 2^-24, above (16 + L + 4 S) 2^-24 for S < 245: the
             * rows of logits within +-100) must fail */
            double *wl2 = malloc(rows * 8);
            for (size_t r = 0; r < rows; r++)
                wl2[r] = wl[r] + 0x1p-14;
            float *bad = malloc(rows * cols * 4);
            for (size_t r = 0; r < rows; r++)
                for (size_t j = 0; j < cols; j++)
                    bad[r * cols + j] =
                        t64[r] == XT_IGNORE
                            ? 0.0f
                            : (float)(exp(sl_dtype_load_f64(dt, x, r * cols + j) - wl2[r]) -
                                      ((int64_t)j == t64[r] ? 0.95 : 0.0) - 0.05 / (double)cols);
            CHECK(xt_cmp_grad(dt, bad, wg, wl, sc, 2, cols, 1.0, "lse off by 2^-14 (expected to fail)") > 0,
                  "a gradient from an lse off by 2^-14 passes the bound");
            float lbad[10];
            for (size_t r = 0; r < rows; r++)
                lbad[r] = (float)(wloss[r] + 2.0 * xt_allow_loss(wloss[r], sc[r], cols, 0.05, 1.0));
            CHECK(xt_cmp_rows(lbad, wloss, sc, rows, cols, 0.05, 1.0, "loss off by twice the bound (expected to fail)",
                              "loss") == rows,
                  "a loss off by twice its bound passes");
            free(wl2);
            free(bad);
        }
        free(x), free(dx), free(wg);
    }
}

/* The CPU rungs of both descriptors on the lab's kind of inputs. */
static void test_rungs(sl_ctx *ctx)
{
    (void)ctx;
    const int kinds[] = {XK_20, XK_100};
    const sl_op_desc *ops[] = {&sl_op_xent, &sl_op_xent_fwd};
    for (int o = 0; o < 2; o++)
        for (int k = 0; k < ops[o]->nvariants; k++) {
            const sl_variant *v = &ops[o]->variants[k];
            if (v->backend != SL_BACKEND_CPU || v->copy)
                continue;
            for (size_t d = 0; d < sizeof dts / sizeof dts[0]; d++) {
                const sl_dtype dt = dts[d];
                const size_t rows = 9, cols = 1001, es = sl_dtype_size(dt);
                unsigned char *x = malloc(rows * cols * es), *dx = malloc(rows * cols * es);
                int64_t t64[9];
                int32_t t32[9];
                float loss[9], lse[9];
                double wl[9], wloss[9], sc[9], *wg = malloc(rows * cols * 8);
                xt_fill(dt, x, t64, rows, cols, 7 + k, kinds, 2, 0);
                for (size_t r = 0; r < rows; r++)
                    t32[r] = (int32_t)t64[r];
                xt_oracle(dt, x, t64, rows, cols, 0.0, 1.0, wl, wloss, wg, sc);
                sl_args a = {.op = ops[o], .shape = {.rows = rows, .cols = cols, .ld = cols}, .n = rows * cols,
                             .dtype = dt, .out_dtype = dt};
                a.buf[0] = x;
                a.buf[1] = t32;
                a.buf[2] = loss;
                a.buf[3] = lse;
                a.buf[4] = o == 0 ? dx : NULL;
                a.scalar[0] = XT_IGNORE;
                char what[96];
                snprintf(what, sizeof what, "%s %s %s", ops[o]->name, v->name, sl_dtype_name(dt));
                CHECK(v->launch(&a) == SL_OK, "%s: %s", what, sl_last_error());
                CHECK(xt_cmp_rows(loss, wloss, sc, rows, cols, 0.0, 1.0, what, "loss") == 0, "%s loss", what);
                CHECK(xt_cmp_rows(lse, wl, sc, rows, cols, 0.0, 1.0, what, "lse") == 0, "%s lse", what);
                if (o == 0)
                    CHECK(xt_cmp_grad(dt, dx, wg, wl, sc, rows, cols, 1.0, what) == 0, "%s gradient", what);
                free(x), free(dx), free(wg);
            }
        }
}

/* sl_cross_entropy_bwd on host memory: the lse handed in is the oracle's
 * fp64 logsumexp rounded to f32 (not this library's forward), dloss per
 * row of both signs (NONE) or one value (MEAN, SUM); the gradient against
 * the exact one under the documented bound. */
static void run_bwd(sl_ctx *ctx, sl_dtype dt, const xcase *c)
{
    const size_t es = sl_dtype_size(dt), n = c->rows * c->cols;
    unsigned char *x = malloc(n * es + 1), *x0 = malloc(n * es + 1), *dx = c->inplace ? x : malloc(n * es + 1);
    int64_t *t64 = malloc(c->rows * 8 + 8);
    int32_t *t32 = malloc(c->rows * 4 + 4);
    float *lse = malloc((c->rows + 1) * 4), *dl = malloc((c->rows + 1) * 4);
    double *wl = malloc(c->rows * 8 + 8), *wloss = malloc(c->rows * 8 + 8), *sc = malloc(c->rows * 8 + 8),
           *g = malloc(c->rows * 8 + 8);
    xt_fill(dt, x, t64, c->rows, c->cols, c->rows * 37u + c->cols, c->kinds, c->nkinds, c->tmode);
    memcpy(x0, x, n * es);
    for (size_t r = 0; r < c->rows; r++) {
        t32[r] = (int32_t)t64[r];
        dl[r] = c->red == SL_REDUCTION_NONE ? (float)((double)(r % 3) * 0.75 - 0.45) : 1.5f;
    }
    xt_oracle(dt, x, t64, c->rows, c->cols, c->eps, 1.0, wl, wloss, NULL, sc);
    for (size_t r = 0; r < c->rows; r++)
        lse[r] = (float)wl[r];
    xt_bwd_scales(t64, c->rows, c->red, dl, g);
    if (!c->inplace)
        memset(dx, 0xff, n * es);
    const void *tg = c->i64 ? (const void *)t64 : (const void *)t32;
    sl_status st = sl_cross_entropy_bwd(ctx, dt, c->rows, c->cols, x, c->i64 ? SL_INDEX_I64 : SL_INDEX_I32, tg,
                                        XT_IGNORE, (float)c->eps, c->red, dl, lse, dx, NULL);
    char what[200];
    snprintf(what, sizeof what, "bwd %s %zux%zu tmode %d eps %g red %d %s%s kind %d", sl_dtype_name(dt), c->rows,
             c->cols, c->tmode, c->eps, (int)c->red, c->i64 ? "i64" : "i32", c->inplace ? " in place" : "",
             c->kinds[0]);
    CHECK(st == SL_OK, "%s: %s", what, sl_last_error());
    if (st == SL_OK)
        CHECK(xt_cmp_grad_bwd(dt, dx, x0, t64, wl, sc, g, c->rows, c->cols, c->eps, 1.0, what) == 0,
              "%s: the gradient", what);
    free(x), free(x0);
    if (!c->inplace)
        free(dx);
    free(t64), free(t32), free(lse), free(dl), free(wl), free(wloss), free(sc), free(g);
}

static void test_bwd(sl_ctx *ctx)
{
    const int wide[] = {XK_20, XK_100}, special[] = {XK_20, XK_100, XK_HUGE, XK_EQUAL, XK_NAN}, k20[] = {XK_20};
    static const size_t shapes[][2] = {{1, 1}, {3, 2}, {5, 31}, {7, 1000}, {6, 4097}, {5, 50257}};
    for (size_t d = 0; d < sizeof dts / sizeof dts[0]; d++) {
        for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
            xcase c = {shapes[i][0], shapes[i][1], 0, 0.0, SL_REDUCTION_NONE, 0, 0, 1, wide, 2};
            run_bwd(ctx, dts[d], &c);
            c.red = SL_REDUCTION_MEAN, c.i64 = 1, c.inplace = 1, c.eps = 0.1;
            run_bwd(ctx, dts[d], &c);
            c.red = SL_REDUCTION_SUM, c.inplace = 0;
            run_bwd(ctx, dts[d], &c);
        }
        xcase s = {10, 333, 0, 0.0, SL_REDUCTION_NONE, 0, 0, 1, special, XK_KINDS};
        run_bwd(ctx, dts[d], &s);
        s.eps = 0.2, s.inplace = 1, s.red = SL_REDUCTION_MEAN;
        run_bwd(ctx, dts[d], &s);
        xcase all = {6, 100, 1, 0.0, SL_REDUCTION_MEAN, 0, 0, 1, k20, 1}; /* every row ignored: zeros */
        run_bwd(ctx, dts[d], &all);
    }
    /* hand-worked: logits (0, ln 3), target 1, lse ln 4, dloss 2: dx = 2 (1/4, 3/4 - 1) */
    float h[2] = {0.0f, logf(3.0f)}, hd[2], hs = logf(4.0f), two = 2.0f;
    int32_t ht = 1;
    CHECK(sl_cross_entropy_bwd(ctx, SL_F32, 1, 2, h, SL_INDEX_I32, &ht, XT_IGNORE, 0.0f, SL_REDUCTION_SUM, &two, &hs, hd,
                               NULL) == SL_OK,
          "%s", sl_last_error());
    CHECK(fabs(hd[0] - 0.5) < 1e-6 && fabs(hd[1] + 0.5) < 1e-6, "hand-worked backward: (%g, %g)", hd[0], hd[1]);
    /* the same gradient as the fused call, from the forward's own lse (mean, smoothing, dloss 1) */
    {
        enum { R = 6, V = 513 };
        float x[R * V], dxf[R * V], dxb[R * V], loss, lse[R], one = 1.0f;
        int64_t t[R];
        xt_fill(SL_F32, x, t, R, V, 5, wide, 2, 0);
        CHECK(sl_cross_entropy_fwd_bwd(ctx, SL_F32, R, V, x, SL_INDEX_I64, t, XT_IGNORE, 0.1f, SL_REDUCTION_MEAN, &loss,
                                       lse, dxf, NULL) == SL_OK &&
                  sl_cross_entropy_bwd(ctx, SL_F32, R, V, x, SL_INDEX_I64, t, XT_IGNORE, 0.1f, SL_REDUCTION_MEAN, &one,
                                       lse, dxb, NULL) == SL_OK,
              "%s", sl_last_error());
        double worst = 0.0;
        for (int i = 0; i < R * V; i++)
            worst = fmax(worst, fabs((double)dxf[i] - (double)dxb[i]));
        CHECK(worst < 1e-6, "fused and split gradients differ by %g", worst);
    }
    /* the bound can fail: an lse off by 2^-14 (exp relative 1024 x 2^-24) */
    {
        enum { R = 4, V = 777 };
        float x[R * V], dx[R * V], lse[R], d1[R] = {1.0f, 1.0f, 1.0f, 1.0f};
        int64_t t[R];
        double wl[R], wloss[R], sc[R], g[R];
        xt_fill(SL_F32, x, t, R, V, 11, wide, 2, 2);
        xt_oracle(SL_F32, x, t, R, V, 0.0, 1.0, wl, wloss, NULL, sc);
        for (int r = 0; r < R; r++)
            lse[r] = (float)(wl[r] + 0x1p-14);
        xt_bwd_scales(t, R, SL_REDUCTION_NONE, d1, g);
        CHECK(sl_cross_entropy_bwd(ctx, SL_F32, R, V, x, SL_INDEX_I64, t, XT_IGNORE, 0.0f, SL_REDUCTION_NONE, d1, lse,
                                   dx, NULL) == SL_OK,
              "%s", sl_last_error());
        CHECK(xt_cmp_grad_bwd(SL_F32, dx, x, t, wl, sc, g, R, V, 0.0, 1.0, "lse off by 2^-14 (expected to fail)") > 0,
              "a backward from an lse off by 2^-14 passes the bound");
    }
    /* errors: a target out of range writes nothing; NULL lse; overlaps */
    float x[8] = {1, 2, 3, 4, 5, 6, 7, 8}, dx[8], lse[2] = {9, 9}, dl[2] = {1, 1};
    int32_t t[2] = {0, 4};
    memset(dx, 0x7f, sizeof dx);
    CHECK(sl_cross_entropy_bwd(ctx, SL_F32, 2, 4, x, SL_INDEX_I32, t, XT_IGNORE, 0.0f, SL_REDUCTION_NONE, dl, lse, dx,
                               NULL) == SL_ERR_INVALID_ARG,
          "bwd: target 4 of 4 classes");
    int untouched = 1;
    for (int i = 0; i < 8; i++)
        untouched &= dx[i] == dx[0] && dx[0] != 0.0f;
    CHECK(untouched, "bwd: a refused call wrote dlogits");
    t[1] = 3;
    CHECK(sl_cross_entropy_bwd(ctx, SL_F32, 2, 4, x, SL_INDEX_I32, t, XT_IGNORE, 0.0f, SL_REDUCTION_NONE, dl, NULL, dx,
                               NULL) == SL_ERR_INVALID_ARG,
          "bwd: NULL lse");
    CHECK(sl_cross_entropy_bwd(ctx, SL_F32, 2, 4, x, SL_INDEX_I32, t, XT_IGNORE, 0.0f, SL_REDUCTION_SUM, NULL, lse, dx,
                               NULL) == SL_ERR_INVALID_ARG,
          "bwd: NULL dloss");
    CHECK(sl_cross_entropy_bwd(ctx, SL_F32, 2, 4, x, SL_INDEX_I32, t, XT_IGNORE, 0.0f, SL_REDUCTION_NONE, dl, lse,
                               x + 1, NULL) == SL_ERR_OVERLAP,
          "bwd: dlogits overlapping the logits");
    CHECK(sl_cross_entropy_bwd(ctx, SL_F32, 1, 2, x, SL_INDEX_I32, t, XT_IGNORE, 0.0f, SL_REDUCTION_NONE, dl, dx, dx,
                               NULL) == SL_ERR_OVERLAP,
          "bwd: dlogits overlapping lse");
    CHECK(sl_cross_entropy_bwd(ctx, SL_F32, 2, 4, x, SL_INDEX_I32, t, XT_IGNORE, 0.0f, (sl_reduction)7, dl, lse, dx,
                               NULL) == SL_ERR_INVALID_ARG,
          "bwd: reduction 7");
    CHECK(sl_cross_entropy_bwd(ctx, SL_F32, 2, 4, x, SL_INDEX_I32, t, XT_IGNORE, 0.0f, SL_REDUCTION_NONE, dl, lse, x,
                               NULL) == SL_OK,
          "bwd: in place: %s", sl_last_error());
    CHECK(sl_cross_entropy_bwd(ctx, SL_F32, 0, 4, NULL, SL_INDEX_I32, NULL, XT_IGNORE, 0.0f, SL_REDUCTION_MEAN, NULL,
                               NULL, NULL, NULL) == SL_OK,
          "bwd: no rows: %s", sl_last_error());
}

int main(void)
{
    sl_ctx *ctx = NULL;
    if (sl_ctx_create(SL_DEVICE_CPU, &ctx) != SL_OK) {
        fprintf(stderr, "test_xent_cpu: cannot open the CPU context: %s\n", sl_last_error());
        return 1;
    }
    test_public(ctx);
    test_fd(ctx);
    test_errors(ctx);
    test_reference(ctx);
    test_rungs(ctx);
    test_bwd(ctx);
    sl_ctx_destroy(ctx);
    return check_exit("test_xent_cpu");
}
