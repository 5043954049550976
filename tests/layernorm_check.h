/*
 * layernorm_check.h - the layernorm tests' shared body (issue 32), run on
 * the CPU context by test_layernorm_cpu.c and on a CUDA context by
 * test_gpu_layernorm.c: every rung of the context's backend and the public
 * functions sl_layernorm_fwd / sl_layernorm_bwd, in f32, bf16 and f16 with
 * w and b in the same dtype or f32, at odd shapes, misaligned pointers, in
 * place, rows of zeros, huge values and NaN, against an fp64 oracle
 * written here (norm_check.h's own bf16 / f16 decoding: no conversion code
 * shared with the library's reference), each element within the bound the
 * op documents (layernorm.c, layernorm_bwd.c); the backward also against
 * central finite differences of the fp64 forward (dx, dw, db), dw and db
 * the same bits twice, and the public API's errors. A bound 256 times
 * tighter must fail somewhere (the tolerance can fail). Also the fused
 * residual add + rmsnorm (add_rmsnorm: h bit for bit, y and rstd within
 * rmsnorm's bound of the oracle's norm of the rounded h), the same cases.
 */
#ifndef SL_TEST_LAYERNORM_CHECK_H
#define SL_TEST_LAYERNORM_CHECK_H

#define SL_NORM_CHECK_SHARED_ONLY
#include "norm_check.h"

#include "add_rmsnorm.h"
#include "layernorm.h"
#include "layernorm_bwd.h"

/* ---- the fp64 oracle ---------------------------------------------------------- */
typedef struct lnstat {
    double mean, rstd, var, A; /* A: mean |x| */
} lnstat;

static lnstat ln_stat(sl_dtype dt, const void *x, size_t r, size_t n, float eps)
{
    lnstat s = {0, 0, 0, 0};
    double t = 0.0, ta = 0.0;
    for (size_t j = 0; j < n; j++) {
        const double v = t_dec(dt, x, r * n + j);
        t += v;
        ta += fabs(v);
    }
    s.mean = t / (double)n;
    s.A = ta / (double)n;
    double q = 0.0;
    for (size_t j = 0; j < n; j++) {
        const double d = t_dec(dt, x, r * n + j) - s.mean;
        q += d * d;
    }
    s.var = q / (double)n;
    s.rstd = 1.0 / sqrt(s.var + (double)eps);
    return s;
}

static const float LN_EPS = 1e-5f;

/* The forward: v (a rung of ctx's backend) or, v NULL, sl_layernorm_fwd;
 * expect: T_ANY, T_RUNS or T_REFUSES (norm_check.h). */
static void ln_fwd_e(sl_ctx *ctx, const sl_variant *v, sl_dtype dt, sl_dtype wt, const ncase *c, int expect)
{
    const size_t es = sl_dtype_size(dt), n = c->rows * c->cols, R = c->rows, N = c->cols;
    nbuf X = {0}, W = {0}, B = {0}, Y = {0}, MU = {0}, RS = {0};
    double *want = NULL, *bound = NULL;
    lnstat *st_ = NULL;
    char what[200];
    snprintf(what, sizeof what, "layernorm %s %s/w %s %zux%zu x+%zu y+%zu%s kind %d", v ? v->name : "public",
             sl_dtype_name(dt), sl_dtype_name(wt), R, N, c->xo, c->yo, c->inplace ? " in place" : "", c->kinds[0]);
    if (!nb_alloc(&X, n * es, c->xo * es) || !nb_alloc(&W, N * sl_dtype_size(wt), 0) ||
        !nb_alloc(&B, N * sl_dtype_size(wt), 0) || (!c->inplace && !nb_alloc(&Y, n * es, c->yo * es)) ||
        !nb_alloc(&MU, R * 4, 0) || !nb_alloc(&RS, R * 4, 0)) {
        CHECK(0, "%s: out of memory", what);
        goto out;
    }
    t_fill(dt, X.p, R, N, N, R * 131 + N * 7 + c->xo + 1, c->kinds, c->nk);
    const int wk[1] = {K_RAND};
    t_fill(wt, W.p, 1, N, N, 99 + N, wk, 1);
    t_fill(wt, B.p, 1, N, N, 77 + N, wk, 1);
    want = malloc((n ? n : 1) * sizeof *want);
    bound = malloc((n ? n : 1) * sizeof *bound);
    st_ = malloc((R ? R : 1) * sizeof *st_);
    if (!want || !bound || !st_) {
        CHECK(0, "%s: out of host memory", what);
        goto out;
    }
    /* the bound of layernorm.c, per element: u = 2^-24, delta = 107 u A */
    double amean = 0.0, arstd = 0.0;
    for (size_t r = 0; r < R; r++) {
        st_[r] = ln_stat(dt, X.p, r, N, LN_EPS);
        const double delta = 107.0 * 0x1p-24 * st_[r].A;
        amean = fmax(amean, 2.0 * delta);
        if (st_[r].var > 0.0)
            arstd = fmax(arstd, 2.0 * st_[r].rstd * delta * delta / st_[r].var);
        for (size_t j = 0; j < N; j++) {
            const double d = t_dec(dt, X.p, r * N + j) - st_[r].mean, wj = t_dec(wt, W.p, j);
            want[r * N + j] = d * st_[r].rstd * wj + t_dec(wt, B.p, j);
            bound[r * N + j] = 2.0 * (60.0 * 0x1p-24 * fabs(d) + delta) * st_[r].rstd * fabs(wj);
        }
    }
    double aymax = 0.0; /* the op's absolute term is the largest over the matrix */
    for (size_t i = 0; i < n; i++)
        aymax = bound[i] == bound[i] ? fmax(aymax, bound[i]) : aymax;
    unsigned char *y = c->inplace ? X.p : Y.p;
    sl_status st;
    if (v) {
        sl_args a = {.op = &sl_op_layernorm, .shape = {R, N, N, 0}, .n = n, .dtype = dt, .out_dtype = dt,
                     .f32_bufs = wt == SL_F32 ? (1u << SL_LN_W) | (1u << SL_LN_B) : 0u};
        a.buf[SL_LN_X] = X.p;
        a.buf[SL_LN_W] = W.p;
        a.buf[SL_LN_B] = B.p;
        a.buf[SL_LN_Y] = y;
        a.buf[SL_LN_MEAN] = MU.p;
        a.buf[SL_LN_RSTD] = RS.p;
        a.scalar[0] = LN_EPS;
        st = v->launch(&a);
    } else {
        st = sl_layernorm_fwd(ctx, dt, wt, R, N, X.p, W.p, B.p, LN_EPS, y, (float *)MU.p, (float *)RS.p, NULL);
    }
    if (st == SL_OK && nm->sync())
        st = SL_ERR_CUDA_FAULT;
    if (expect == T_REFUSES) {
        CHECK(st == SL_ERR_UNSUPPORTED, "%s: status %d, want SL_ERR_UNSUPPORTED", what, (int)st);
        goto out;
    }
    if (st == SL_ERR_UNSUPPORTED && v && expect == T_ANY && t_fwd_regs_rung(v->name))
        goto out; /* regs refuses x and y at different offsets, or rows beyond a cluster */
    CHECK(st == SL_OK, "%s: %s", what, sl_last_error());
    if (st != SL_OK)
        goto out;
    if (c->kinds[0] == K_MEAN && dt == SL_F32 && N >= 1024) {
        /* The case has teeth: rstd from the one-pass f32 formula
         * E[x^2] - mean^2 (sums in f32, in order) falls outside the bound
         * the kernels are held to, which the two-pass variance meets. */
        float s1 = 0.0f, s2 = 0.0f;
        for (size_t j = 0; j < N; j++) {
            const float xj = (float)t_dec(dt, X.p, j);
            s1 += xj;
            s2 += xj * xj;
        }
        const float m1 = s1 / (float)N, naive = 1.0f / sqrtf(s2 / (float)N - m1 * m1 + LN_EPS);
        CHECK(!(fabs((double)naive - st_[0].rstd) <= 64.0 * 0x1p-24 * st_[0].rstd + arstd), /* NaN: outside */
              "%s: the one-pass f32 variance passes the rstd bound (%.9g against %.9g): the case has no teeth", what,
              (double)naive, st_[0].rstd);
    }
    int bad = 0;
    for (size_t r = 0; r < R && bad < 5; r++) {
        float g;
        memcpy(&g, MU.p + 4 * r, 4);
        bad += !t_close(SL_F32, g, st_[r].mean, 64, amean + 0x1p-126, what, r, (size_t)-1);
        memcpy(&g, RS.p + 4 * r, 4);
        bad += !t_close(SL_F32, g, st_[r].rstd, 64, arstd + 0x1p-126, what, r, (size_t)-2);
        for (size_t j = 0; j < N && bad < 5; j++)
            bad += !t_close(dt, t_dec(dt, y, r * N + j), want[r * N + j], 64, aymax + 0x1p-126, what, r, j);
    }
    if (!c->inplace)
        CHECK(nb_stray(&Y, c->yo * es) == 0, "%s: bytes written around y", what);
    CHECK(nb_stray(&MU, 0) == 0 && nb_stray(&RS, 0) == 0, "%s: bytes written around mean or rstd", what);
out:
    free(want);
    free(bound);
    free(st_);
    nb_free(&X);
    nb_free(&W);
    nb_free(&B);
    nb_free(&Y);
    nb_free(&MU);
    nb_free(&RS);
}


/* v rounded to nearest-even into dt, as a double (our own rounding, not
 * dtype_conv.c's): f32 by C's conversion; bf16 / f16 by their significand
 * (8 / 11 bits), f16's subnormals on a 2^-24 grid, overflow to inf. */
static double t_round(sl_dtype dt, double v)
{
    if (dt == SL_F32)
        return (double)(float)v;
    if (v != v || v == 0.0 || isinf(v))
        return v;
    const int p = dt == SL_BF16 ? 8 : 11;
    int e;
    frexp(v, &e); /* |v| in [2^(e-1), 2^e) */
    const int emin = dt == SL_BF16 ? -126 : -14, q = (e - 1 < emin ? emin : e - 1) - (p - 1);
    const double r = ldexp(nearbyint(ldexp(v, -q)), q);
    const double top = dt == SL_BF16 ? 0x1.fep127 : 65504.0;
    return fabs(r) > top ? copysign(INFINITY, v) : r;
}

/* add_rmsnorm: v (a rung) or, v NULL, sl_add_rmsnorm_fwd. inplace: 1 h = x,
 * 2 h = res and y = x. */
static void arms_fwd_e(sl_ctx *ctx, const sl_variant *v, sl_dtype dt, sl_dtype wt, const ncase *c, int expect)
{
    const size_t es = sl_dtype_size(dt), n = c->rows * c->cols, R = c->rows, N = c->cols;
    nbuf X = {0}, RE = {0}, W = {0}, H = {0}, Y = {0}, RS = {0};
    double *hw = NULL, *want = NULL, *wr = NULL;
    char what[200];
    snprintf(what, sizeof what, "add_rmsnorm %s %s/w %s %zux%zu x+%zu y+%zu%s kind %d", v ? v->name : "public",
             sl_dtype_name(dt), sl_dtype_name(wt), R, N, c->xo, c->yo,
             c->inplace == 1 ? " h=x" : c->inplace == 2 ? " h=res y=x" : "", c->kinds[0]);
    if (!nb_alloc(&X, n * es, c->xo * es) || !nb_alloc(&RE, n * es, c->xo * es) ||
        !nb_alloc(&W, N * sl_dtype_size(wt), 0) || (!c->inplace && !nb_alloc(&H, n * es, c->yo * es)) ||
        (c->inplace != 2 && !nb_alloc(&Y, n * es, c->yo * es)) || !nb_alloc(&RS, R * 4, 0)) {
        CHECK(0, "%s: out of memory", what);
        goto out;
    }
    t_fill(dt, X.p, R, N, N, R * 13 + N * 5 + c->xo + 3, c->kinds, c->nk);
    const int rk[1] = {K_RAND};
    t_fill(dt, RE.p, R, N, N, R * 19 + N + 4, rk, 1);
    t_fill(wt, W.p, 1, N, N, 99 + N, rk, 1);
    hw = malloc((n ? n : 1) * sizeof *hw);
    want = malloc((n ? n : 1) * sizeof *want);
    wr = malloc((R ? R : 1) * sizeof *wr);
    if (!hw || !want || !wr) {
        CHECK(0, "%s: out of host memory", what);
        goto out;
    }
    /* the oracle: h = x + res in fp64 (exact for the inputs' magnitudes
     * here) rounded into dt by t_round, then rmsnorm of the rounded h */
    {
        for (size_t r = 0; r < R; r++) {
            double ss = 0.0;
            for (size_t j = 0; j < N; j++) {
                hw[r * N + j] = t_round(dt, t_dec(dt, X.p, r * N + j) + t_dec(dt, RE.p, r * N + j));
                ss += hw[r * N + j] * hw[r * N + j];
            }
            wr[r] = 1.0 / sqrt(ss / (double)N + (double)T_EPS);
            for (size_t j = 0; j < N; j++)
                want[r * N + j] = hw[r * N + j] * wr[r] * t_dec(wt, W.p, j);
        }
    }
    unsigned char *hp = c->inplace == 1 ? X.p : c->inplace == 2 ? RE.p : H.p;
    unsigned char *yp = c->inplace == 2 ? X.p : Y.p;
    sl_status st;
    if (v) {
        sl_args a = {.op = &sl_op_add_rmsnorm, .shape = {R, N, N, 0}, .n = n, .dtype = dt, .out_dtype = dt,
                     .f32_bufs = wt == SL_F32 ? 1u << SL_ARMS_W : 0u};
        a.buf[SL_ARMS_X] = X.p;
        a.buf[SL_ARMS_RES] = RE.p;
        a.buf[SL_ARMS_W] = W.p;
        a.buf[SL_ARMS_H] = hp;
        a.buf[SL_ARMS_Y] = yp;
        a.buf[SL_ARMS_RSTD] = RS.p;
        a.scalar[0] = T_EPS;
        st = v->launch(&a);
    } else {
        st = sl_add_rmsnorm_fwd(ctx, dt, wt, R, N, X.p, RE.p, W.p, T_EPS, hp, yp, (float *)RS.p, NULL);
    }
    if (st == SL_OK && nm->sync())
        st = SL_ERR_CUDA_FAULT;
    if (expect == T_REFUSES) {
        CHECK(st == SL_ERR_UNSUPPORTED, "%s: status %d, want SL_ERR_UNSUPPORTED", what, (int)st);
        goto out;
    }
    if (st == SL_ERR_UNSUPPORTED && v && expect == T_ANY && t_fwd_regs_rung(v->name))
        goto out;
    CHECK(st == SL_OK, "%s: %s", what, sl_last_error());
    if (st != SL_OK)
        goto out;
    int bad = 0;
    for (size_t r = 0; r < R && bad < 5; r++) {
        float g;
        memcpy(&g, RS.p + 4 * r, 4);
        bad += !t_close(SL_F32, g, wr[r], 64, 0x1p-126, what, r, (size_t)-1);
        for (size_t j = 0; j < N && bad < 5; j++) {
            const double hg = t_dec(dt, hp, r * N + j), hx = hw[r * N + j];
            if (!(hg == hx || (hg != hg && hx != hx))) {
                CHECK(0, "%s: h[%zu, %zu] = %.9g, want %.9g exactly", what, r, j, hg, hx);
                bad++;
            }
            bad += !t_close(dt, t_dec(dt, yp, r * N + j), want[r * N + j], 64, 0x1p-126, what, r, j);
        }
    }
    if (!c->inplace)
        CHECK(nb_stray(&H, c->yo * es) == 0, "%s: bytes written around h", what);
    if (c->inplace != 2)
        CHECK(nb_stray(&Y, c->yo * es) == 0, "%s: bytes written around y", what);
    CHECK(nb_stray(&RS, 0) == 0, "%s: bytes written around rstd", what);
out:
    free(hw);
    free(want);
    free(wr);
    nb_free(&X);
    nb_free(&RE);
    nb_free(&W);
    nb_free(&H);
    nb_free(&Y);
    nb_free(&RS);
}

static void ln_fwd(sl_ctx *ctx, const sl_variant *v, sl_dtype dt, sl_dtype wt, const ncase *c)
{
    ln_fwd_e(ctx, v, dt, wt, c, T_ANY);
}

static void arms_fwd(sl_ctx *ctx, const sl_variant *v, sl_dtype dt, sl_dtype wt, const ncase *c)
{
    arms_fwd_e(ctx, v, dt, wt, c, T_ANY);
}

/* L = sum_r,k g[r, k] y[r, k] through the fp64 forward, rows of xr (R x N). */
static double ln_loss(const double *xr, const double *wv, const double *bv, const double *g, size_t R, size_t N)
{
    double L = 0.0;
    for (size_t r = 0; r < R; r++) {
        const double *x = xr + r * N;
        double m = 0.0, q = 0.0;
        for (size_t k = 0; k < N; k++)
            m += x[k];
        m /= (double)N;
        for (size_t k = 0; k < N; k++)
            q += (x[k] - m) * (x[k] - m);
        const double rs = 1.0 / sqrt(q / (double)N + (double)LN_EPS);
        for (size_t k = 0; k < N; k++)
            L += g[r * N + k] * ((x[k] - m) * rs * wv[k] + bv[k]);
    }
    return L;
}

/* The backward, with mean and rstd from the fp64 forward rounded to f32
 * (as the forward stores them). dx, dw, db within the bounds of
 * layernorm_bwd.c per element; the same bits on a second run. */
static void ln_bwd(sl_ctx *ctx, const sl_variant *v, sl_dtype dt, sl_dtype wt, const ncase *c, int fd)
{
    const size_t es = sl_dtype_size(dt), ws = sl_dtype_size(wt), n = c->rows * c->cols, R = c->rows, N = c->cols;
    nbuf X = {0}, DY = {0}, W = {0}, MU = {0}, RS = {0}, DX = {0}, DW = {0}, DB = {0}, WK = {0};
    double *want = NULL, *bound = NULL, *dww = NULL, *dwa = NULL, *dbw = NULL, *dba = NULL;
    unsigned char *first = NULL;
    char what[200];
    snprintf(what, sizeof what, "layernorm_bwd %s %s/w %s %zux%zu x+%zu dx+%zu%s kind %d", v ? v->name : "public",
             sl_dtype_name(dt), sl_dtype_name(wt), R, N, c->xo, c->yo,
             c->inplace == 1 ? " dx=dy" : c->inplace == 2 ? " dx=x" : "", c->kinds[0]);
    const size_t wsb = sl_layernorm_bwd_workspace(R, N);
    if (!nb_alloc(&X, n * es, c->xo * es) || !nb_alloc(&DY, n * es, c->xo * es) || !nb_alloc(&W, N * ws, 0) ||
        !nb_alloc(&MU, R * 4, 0) || !nb_alloc(&RS, R * 4, 0) || (!c->inplace && !nb_alloc(&DX, n * es, c->yo * es)) ||
        !nb_alloc(&DW, N * ws, 0) || !nb_alloc(&DB, N * ws, 0) || !nb_alloc(&WK, wsb ? wsb : 16, 0)) {
        CHECK(0, "%s: out of memory", what);
        goto out;
    }
    t_fill(dt, X.p, R, N, N, R * 31 + N * 3 + c->xo + 2, c->kinds, c->nk);
    const int rk[1] = {K_RAND};
    t_fill(dt, DY.p, R, N, N, R * 17 + N + 6, rk, 1);
    t_fill(wt, W.p, 1, N, N, 7 + N, rk, 1);
    for (size_t r = 0; r < R; r++) {
        const lnstat s = ln_stat(dt, X.p, r, N, LN_EPS);
        const float m = (float)s.mean, rs = (float)s.rstd;
        memcpy(MU.p + 4 * r, &m, 4);
        memcpy(RS.p + 4 * r, &rs, 4);
    }
    want = malloc((n ? n : 1) * sizeof *want);
    bound = malloc((n ? n : 1) * sizeof *bound);
    dww = calloc(N ? N : 1, sizeof *dww);
    dwa = calloc(N ? N : 1, sizeof *dwa);
    dbw = calloc(N ? N : 1, sizeof *dbw);
    dba = calloc(N ? N : 1, sizeof *dba);
    if (!want || !bound || !dww || !dwa || !dbw || !dba) {
        CHECK(0, "%s: out of host memory", what);
        goto out;
    }
    double dxmax = 0.0;
    for (size_t r = 0; r < R; r++) {
        float mf, rf;
        memcpy(&mf, MU.p + 4 * r, 4);
        memcpy(&rf, RS.p + 4 * r, 4);
        const double mu = mf, rs = rf;
        double s1 = 0.0, s2 = 0.0, a1 = 0.0, a2 = 0.0;
        for (size_t j = 0; j < N; j++) {
            const double g = t_dec(wt, W.p, j) * t_dec(dt, DY.p, r * N + j);
            const double xh = (t_dec(dt, X.p, r * N + j) - mu) * rs;
            s1 += g;
            s2 += g * xh;
            a1 += fabs(g);
            a2 += fabs(g * xh);
        }
        const double c1 = s1 / (double)N, c2 = s2 / (double)N, G1 = a1 / (double)N, G2 = a2 / (double)N;
        for (size_t j = 0; j < N; j++) {
            const double dy = t_dec(dt, DY.p, r * N + j), g = t_dec(wt, W.p, j) * dy;
            const double xh = (t_dec(dt, X.p, r * N + j) - mu) * rs;
            want[r * N + j] = rs * (g - c1 - xh * c2);
            const double b = 2.0 * 0x1p-24 * fabs(rs) * (3.0 * fabs(g) + 142.0 * G1 + 146.0 * fabs(xh) * G2);
            if (b == b)
                dxmax = fmax(dxmax, b);
            dww[j] += dy * xh;
            dwa[j] += fabs(dy * xh);
            dbw[j] += dy;
            dba[j] += fabs(dy);
        }
    }
    unsigned char *dx = c->inplace == 1 ? DY.p : c->inplace == 2 ? X.p : DX.p;
    first = malloc((n ? n : 1) * es + 2 * (N ? N : 1) * ws);
    for (int run = 0; run < 2; run++) {
        if (run == 1) { /* the same inputs again: dx, dw and db must come out the same bits */
            if (c->inplace)
                break;
            memcpy(first, dx, n * es);
            memcpy(first + n * es, DW.p, N * ws);
            memcpy(first + n * es + N * ws, DB.p, N * ws);
        }
        sl_status st;
        if (v) {
            sl_args a = {.op = &sl_op_layernorm_bwd, .shape = {R, N, N, 0}, .n = n, .dtype = dt, .out_dtype = dt,
                         .f32_bufs = wt == SL_F32 ? (1u << SL_LNB_W) | (1u << SL_LNB_DW) | (1u << SL_LNB_DB) : 0u};
            a.buf[SL_LNB_X] = X.p;
            a.buf[SL_LNB_DY] = DY.p;
            a.buf[SL_LNB_W] = W.p;
            a.buf[SL_LNB_MEAN] = MU.p;
            a.buf[SL_LNB_RSTD] = RS.p;
            a.buf[SL_LNB_DX] = dx;
            a.buf[SL_LNB_DW] = DW.p;
            a.buf[SL_LNB_DB] = DB.p;
            a.workspace = WK.p;
            a.workspace_bytes = wsb;
            st = v->launch(&a);
        } else { /* the caller's workspace on the first run, the context's on the second */
            st = sl_layernorm_bwd(ctx, dt, wt, R, N, X.p, DY.p, W.p, (const float *)MU.p, (const float *)RS.p, dx,
                                  DW.p, DB.p, run ? NULL : WK.p, run ? 0 : wsb, NULL);
        }
        if (st == SL_OK && nm->sync())
            st = SL_ERR_CUDA_FAULT;
        const void *bufs[] = {X.p, DY.p, W.p, MU.p, RS.p, dx, DW.p, DB.p};
        if (t_bwd_refused(ctx, v, st, dt, N, t_bwd_aligned(dt, N, bufs, 8), wt == SL_F32, wt == SL_F32, what))
            goto out;
        CHECK(st == SL_OK, "%s: %s", what, sl_last_error());
        if (st != SL_OK)
            goto out;
    }
    if (!c->inplace)
        CHECK(memcmp(first, dx, n * es) == 0 && memcmp(first + n * es, DW.p, N * ws) == 0 &&
                  memcmp(first + n * es + N * ws, DB.p, N * ws) == 0,
              "%s: a second run gave other bits (dx, dw or db)", what);
    int bad = 0;
    for (size_t i = 0; i < n && bad < 5; i++)
        bad += !t_close(dt, t_dec(dt, dx, i), want[i], 16, dxmax + 0x1p-126, what, i / (N ? N : 1), i % (N ? N : 1));
    double dwmax = 0.0, dbmax = 0.0;
    for (size_t j = 0; j < N; j++) {
        dwmax = dwa[j] == dwa[j] ? fmax(dwmax, dwa[j]) : dwmax;
        dbmax = dba[j] == dba[j] ? fmax(dbmax, dba[j]) : dbmax;
    }
    for (size_t j = 0; j < N && bad < 5; j++) {
        bad += !t_close(wt, t_dec(wt, DW.p, j), dww[j], 16, 560.0 * 0x1p-24 * dwmax + 0x1p-126, what, (size_t)-1, j);
        bad += !t_close(wt, t_dec(wt, DB.p, j), dbw[j], 16, 550.0 * 0x1p-24 * dbmax + 0x1p-126, what, (size_t)-2, j);
    }
    if (!c->inplace)
        CHECK(nb_stray(&DX, c->yo * es) == 0, "%s: bytes written around dx", what);
    CHECK(nb_stray(&DW, 0) == 0 && nb_stray(&DB, 0) == 0, "%s: bytes written around dw or db", what);
    /* central finite differences of L = sum g y through the fp64 forward
     * (f32 runs): dL/dx, dL/dw and dL/db against dx, dw and db */
    if (fd && dt == SL_F32 && wt == SL_F32) {
        double *xr = malloc((n ? n : 1) * sizeof *xr), *wv = malloc(N * sizeof *wv), *bv = calloc(N, sizeof *bv);
        double *g = malloc((n ? n : 1) * sizeof *g);
        if (!xr || !wv || !bv || !g) {
            CHECK(0, "%s: out of host memory", what);
        } else {
            for (size_t i = 0; i < n; i++) {
                xr[i] = t_dec(dt, X.p, i);
                g[i] = t_dec(dt, DY.p, i);
            }
            for (size_t j = 0; j < N; j++)
                wv[j] = t_dec(wt, W.p, j);
            double ex = 0.0, sx = 0.0, ew = 0.0, sw = 0.0, eb = 0.0, sb = 0.0;
            for (size_t i = 0; i < n; i++) {
                const double h = 1e-6 * fmax(fabs(xr[i]), 1.0), x0 = xr[i];
                xr[i] = x0 + h;
                const double lp = ln_loss(xr, wv, bv, g, R, N);
                xr[i] = x0 - h;
                const double lm = ln_loss(xr, wv, bv, g, R, N);
                xr[i] = x0;
                const double f = (lp - lm) / (2.0 * h);
                ex = fmax(ex, fabs(f - t_dec(dt, dx, i)));
                sx = fmax(sx, fabs(f));
            }
            for (size_t j = 0; j < N; j++) { /* linear in w and b: exact differences but for rounding */
                const double h = 1e-3 * fmax(fabs(wv[j]), 1.0), w0 = wv[j], b0 = bv[j];
                wv[j] = w0 + h;
                double lp = ln_loss(xr, wv, bv, g, R, N);
                wv[j] = w0 - h;
                double lm = ln_loss(xr, wv, bv, g, R, N);
                wv[j] = w0;
                double f = (lp - lm) / (2.0 * h);
                ew = fmax(ew, fabs(f - t_dec(wt, DW.p, j)));
                sw = fmax(sw, fabs(f));
                bv[j] = b0 + 1e-3;
                lp = ln_loss(xr, wv, bv, g, R, N);
                bv[j] = b0 - 1e-3;
                lm = ln_loss(xr, wv, bv, g, R, N);
                bv[j] = b0;
                f = (lp - lm) / 2e-3;
                eb = fmax(eb, fabs(f - t_dec(wt, DB.p, j)));
                sb = fmax(sb, fabs(f));
            }
            CHECK(ex <= 1e-5 * sx + 1e-30, "%s: dx vs finite differences: error %.3g of max %.3g", what, ex, sx);
            CHECK(ew <= 1e-5 * sw + 1e-30, "%s: dw vs finite differences: error %.3g of max %.3g", what, ew, sw);
            CHECK(eb <= 1e-5 * sb + 1e-30, "%s: db vs finite differences: error %.3g of max %.3g", what, eb, sb);
        }
        free(xr);
        free(wv);
        free(bv);
        free(g);
    }
out:
    free(want);
    free(bound);
    free(dww);
    free(dwa);
    free(dbw);
    free(dba);
    free(first);
    nb_free(&X);
    nb_free(&DY);
    nb_free(&W);
    nb_free(&MU);
    nb_free(&RS);
    nb_free(&DX);
    nb_free(&DW);
    nb_free(&DB);
    nb_free(&WK);
}

/* Every case for one runner (v NULL: the public functions); big: the long
 * rows (clusters; slow on the CPU's serial rung). */
static void ln_all(sl_ctx *ctx, const sl_variant *vf, const sl_variant *vb, const sl_variant *va, int run_f, int run_b,
                   int run_a, int big)
{
    static const ncase cs[] = {
        {1, 1, 0, 0, 0, {K_RAND}, 1},
        {3, 7, 0, 0, 0, {K_RAND}, 1},
        {1023, 3, 0, 0, 0, {K_RAND, K_WIDE}, 2},
        {5, 1023, 0, 0, 0, {K_RAND, K_ZERO, K_NAN, K_HUGE}, 4},
        {7, 4096, 0, 0, 0, {K_RAND}, 1},
        {9, 260, 1, 1, 0, {K_RAND, K_WIDE}, 2},   /* misaligned, one offset */
        {9, 260, 1, 3, 0, {K_RAND}, 1},           /* x and y at different offsets */
        {6, 1000, 0, 0, 1, {K_RAND, K_ZERO}, 2},  /* in place (y = x; dx = dy) */
        {6, 1000, 0, 0, 2, {K_RAND}, 1},          /* in place (dx = x) */
        {300, 64, 0, 0, 0, {K_RAND}, 1},
        {40, 2048, 0, 0, 0, {K_RAND, K_NAN}, 2},
        {33, 8200, 3, 3, 0, {K_RAND, K_HUGE}, 2}, /* a block per row, misaligned */
        {3, 30001, 0, 0, 0, {K_RAND}, 1},         /* cluster of 2 (bf16) */
        {2, 65536, 0, 0, 0, {K_RAND, K_ZERO}, 2}, /* cluster of 4-8 */
        {2, 65531, 5, 5, 0, {K_RAND}, 1},
        {600, 1024, 0, 0, 0, {K_RAND}, 1},        /* dw / db partials over many rows */
    };
    for (size_t i = 0; i < sizeof cs / sizeof cs[0]; i++) {
        if ((!big && cs[i].cols > 10000) || (t_quick && cs[i].cols > 32768))
            continue;
        for (int d = 0; d < (t_quick ? 2 : 3); d++)
            for (int wf = 0; wf < 2; wf++) {
                const sl_dtype dt = t_dts[d], wt = wf ? SL_F32 : dt;
                if (wf && dt == SL_F32)
                    continue;
                if (run_f && cs[i].inplace != 2)
                    ln_fwd(ctx, vf, dt, wt, &cs[i]);
                if (run_b)
                    ln_bwd(ctx, vb, dt, wt, &cs[i], 0);
                if (run_a)
                    arms_fwd(ctx, va, dt, wt, &cs[i]);
            }
    }
    /* the forward's cancellation case: a large mean, a small spread (the
     * two-pass variance; a warp, a block and a cluster per row) */
    static const ncase mc[] = {
        {5, 2048, 0, 0, 0, {K_MEAN, K_RAND}, 2},
        {9, 4096, 1, 1, 0, {K_MEAN}, 1},
        {2, 65536, 0, 0, 0, {K_MEAN}, 1},
        {6, 4096, 0, 0, 0, {K_MEAN}, 1},  /* aligned: a block of 128 a row (bf16 / f16) */
        {3, 16384, 0, 0, 0, {K_MEAN}, 1}, /* aligned: a block of 512 (f32: 1024) */
    };
    for (size_t i = 0; run_f && i < sizeof mc / sizeof mc[0]; i++) {
        if ((!big && mc[i].cols > 10000) || (t_quick && mc[i].cols > 32768))
            continue;
        for (int d = 0; d < (t_quick ? 2 : 3); d++)
            ln_fwd(ctx, vf, t_dts[d], t_dts[d], &mc[i]);
    }
    /* the forwards' aligned launches at the team shapes whose launch
     * bounds the eighth session raised (common/norm_fwd.cuh, at<>'s enum):
     * 16-bit rows a warp of 2 vectors, blocks of 256 and 512 (f32: a warp
     * of 4, blocks of 512 and 1024), w and b in the rows' dtype and in f32;
     * and the fused add's block of 128 at 129-256 vectors (193 at 1544
     * bf16 / f16: two vectors for some threads, one for the rest) */
    static const ncase ac[] = {
        {4, 512, 0, 0, 0, {K_RAND, K_HUGE}, 2},
        {5, 1544, 0, 0, 0, {K_RAND, K_NAN}, 2},
        {3, 8192, 0, 0, 0, {K_RAND, K_NAN}, 2},
        {3, 16384, 0, 0, 0, {K_RAND, K_HUGE}, 2},
    };
    for (size_t i = 0; (run_f || run_a) && i < sizeof ac / sizeof ac[0]; i++) {
        if (!big && ac[i].cols > 10000)
            continue;
        for (int d = 0; d < (t_quick ? 2 : 3); d++)
            for (int wf = 0; wf < 2; wf++) {
                const sl_dtype dt = t_dts[d], wt = wf ? SL_F32 : dt;
                if (wf && dt == SL_F32)
                    continue;
                if (run_f)
                    ln_fwd(ctx, vf, dt, wt, &ac[i]);
                if (run_a)
                    arms_fwd(ctx, va, dt, wt, &ac[i]);
            }
    }
    /* the backward's short rows (t_bwd_short); w and b in the rows' dtype and in f32 */
    size_t nbc = 0;
    const ncase *bc = t_bwd_short(&nbc);
    for (size_t i = 0; run_b && i < nbc; i++)
        for (int d = 0; d < (t_quick ? 2 : 3); d++)
            for (int wf = 0; wf < 2; wf++)
                if (!wf || t_dts[d] != SL_F32)
                    ln_bwd(ctx, vb, t_dts[d], wf ? SL_F32 : t_dts[d], &bc[i], 0);
    static const ncase fc[] = {{3, 5, 0, 0, 0, {K_RAND}, 1}, {4, 33, 0, 0, 0, {K_RAND}, 1},
                               {2, 300, 1, 1, 0, {K_RAND}, 1}};
    for (size_t i = 0; run_b && i < sizeof fc / sizeof fc[0]; i++)
        ln_bwd(ctx, vb, SL_F32, SL_F32, &fc[i], 1);
}

/* The public functions' errors. */
static void ln_errors(sl_ctx *ctx)
{
    nbuf X = {0}, W = {0}, RS = {0}, DW = {0}, WK = {0};
    if (!nb_alloc(&X, 64 * 4, 0) || !nb_alloc(&W, 16 * 4, 0) || !nb_alloc(&RS, 16 * 4, 0) ||
        !nb_alloc(&DW, 16 * 4, 0) || !nb_alloc(&WK, 16, 0)) {
        CHECK(0, "errors: out of memory");
        goto out;
    }
    float *mu = (float *)RS.p, *rs = (float *)RS.p + 8;
    unsigned char *b = W.p + 32;
    sl_status st = sl_layernorm_fwd(ctx, SL_BF16, SL_F16, 8, 8, X.p, W.p, b, 1e-5, X.p, mu, rs, NULL);
    CHECK(st == SL_ERR_UNSUPPORTED, "ln fwd: w_dtype f16 with bf16 rows: %d", (int)st);
    st = sl_layernorm_fwd(ctx, SL_F32, SL_F32, 8, 8, X.p, W.p, b, -1.0, X.p, mu, rs, NULL);
    CHECK(st == SL_ERR_INVALID_ARG, "ln fwd: eps < 0: %d", (int)st);
    st = sl_layernorm_fwd(ctx, SL_F32, SL_F32, 8, 8, X.p, W.p, NULL, 1e-5, X.p, mu, rs, NULL);
    CHECK(st == SL_ERR_INVALID_ARG, "ln fwd: b NULL: %d", (int)st);
    st = sl_layernorm_fwd(ctx, SL_F32, SL_F32, 4, 8, X.p, W.p, b, 1e-5, X.p + 4, mu, rs, NULL);
    CHECK(st == SL_ERR_OVERLAP, "ln fwd: y overlapping x off by one: %d", (int)st);
    st = sl_layernorm_fwd(ctx, SL_F32, SL_F32, 8, 8, X.p, W.p, b, 1e-5, X.p, mu, mu, NULL);
    CHECK(st == SL_ERR_OVERLAP, "ln fwd: mean = rstd: %d", (int)st);
    st = sl_layernorm_fwd(ctx, SL_F32, SL_F32, 0, 8, NULL, NULL, NULL, 1e-5, NULL, NULL, NULL, NULL);
    CHECK(st == SL_OK, "ln fwd: rows = 0 is a no-op: %s", sl_last_error());
    float *dw = (float *)DW.p, *db = (float *)DW.p + 8;
    st = sl_layernorm_bwd(ctx, SL_F32, SL_F32, 2, 8, X.p, X.p + 64, W.p, mu, rs, X.p + 128, W.p, db, NULL, 0, NULL);
    CHECK(st == SL_ERR_OVERLAP, "ln bwd: dw = w: %d", (int)st);
    st = sl_layernorm_bwd(ctx, SL_F32, SL_F32, 2, 8, X.p, X.p + 64, W.p, mu, rs, X.p + 128, dw, dw, NULL, 0, NULL);
    CHECK(st == SL_ERR_OVERLAP, "ln bwd: db = dw: %d", (int)st);
    st = sl_layernorm_bwd(ctx, SL_F32, SL_F32, 2, 8, X.p, X.p + 64, W.p, mu, rs, X.p + 128, dw, db, WK.p, 4, NULL);
    CHECK(st == SL_ERR_INVALID_ARG, "ln bwd: a 4-byte workspace: %d", (int)st);
    st = sl_layernorm_bwd(ctx, SL_F32, SL_F32, 2, 8, X.p, X.p + 64, W.p, mu, rs, X.p + 128, dw, db, NULL, 64, NULL);
    CHECK(st == SL_ERR_INVALID_ARG, "ln bwd: NULL workspace with a size: %d", (int)st);
    st = sl_layernorm_bwd(ctx, SL_BF16, SL_F16, 2, 8, X.p, X.p + 64, W.p, mu, rs, X.p + 128, dw, db, NULL, 0, NULL);
    CHECK(st == SL_ERR_UNSUPPORTED, "ln bwd: w f16 with bf16 rows: %d", (int)st);
    st = sl_add_rmsnorm_fwd(ctx, SL_F32, SL_F32, 2, 8, X.p, X.p + 64, W.p, 1e-6, X.p + 128, X.p + 128, rs, NULL);
    CHECK(st == SL_ERR_OVERLAP, "add_rmsnorm: h = y: %d", (int)st);
    st = sl_add_rmsnorm_fwd(ctx, SL_BF16, SL_F16, 2, 8, X.p, X.p + 64, W.p, 1e-6, X.p + 128, X.p + 160, rs, NULL);
    CHECK(st == SL_ERR_UNSUPPORTED, "add_rmsnorm: w f16 with bf16 rows: %d", (int)st);
    st = sl_add_rmsnorm_fwd(ctx, SL_F32, SL_F32, 2, 8, X.p, X.p + 64, W.p, 0.0, X.p + 128, X.p + 192, rs, NULL);
    CHECK(st == SL_ERR_INVALID_ARG, "add_rmsnorm: eps = 0: %d", (int)st);
    st = sl_add_rmsnorm_fwd(ctx, SL_F32, SL_F32, 2, 8, X.p, X.p + 68, W.p, 1e-6, X.p + 128, X.p + 192, rs, NULL);
    CHECK(st == SL_ERR_OVERLAP, "add_rmsnorm: h overlapping res off by one: %d", (int)st);
    CHECK(sl_layernorm_bwd_workspace(32768, 65536) == (size_t)2 * (128 + 64) * 65536 * 4,
          "ln workspace 32768x65536: %zu", sl_layernorm_bwd_workspace(32768, 65536));
    CHECK(sl_layernorm_bwd_workspace(3, 1000) == (size_t)2 * 3 * 1000 * 4, "ln workspace 3x1000: %zu",
          sl_layernorm_bwd_workspace(3, 1000));
out:
    nb_free(&X);
    nb_free(&W);
    nb_free(&RS);
    nb_free(&DW);
    nb_free(&WK);
}

/* Every rung of the context's backend (ceilings left out), the public
 * functions, the errors; the tolerance shown to fail when tightened. */
static int ln_main(sl_ctx *ctx, sl_backend be, int big, const char *name)
{
    t_quick = getenv("SL_NORM_QUICK") != NULL || getenv("STREAMLAB_TEST_QUICK") != NULL;
    for (int i = 0; i < sl_op_layernorm.nvariants; i++) {
        const sl_variant *v = &sl_op_layernorm.variants[i];
        if (v->backend == be && v->kind == SL_KIND_RUNG && v->launch)
            ln_all(ctx, v, NULL, NULL, 1, 0, 0, big || strcmp(v->name, "serial") != 0);
        if (v->backend == be && v->kind == SL_KIND_RUNG && v->launch && t_fwd_bulk_rung(v->name))
            t_bulk_cases(ctx, v, ln_fwd_e, t_fwd_bulk_max(v->name, 1));
    }
    for (int i = 0; i < sl_op_layernorm_bwd.nvariants; i++) {
        const sl_variant *v = &sl_op_layernorm_bwd.variants[i];
        if (v->backend == be && v->kind == SL_KIND_RUNG && v->launch)
            ln_all(ctx, NULL, v, NULL, 0, 1, 0, big || strcmp(v->name, "serial") != 0);
    }
    for (int i = 0; i < sl_op_add_rmsnorm.nvariants; i++) {
        const sl_variant *v = &sl_op_add_rmsnorm.variants[i];
        if (v->backend == be && v->kind == SL_KIND_RUNG && v->launch)
            ln_all(ctx, NULL, NULL, v, 0, 0, 1, big || strcmp(v->name, "serial") != 0);
        if (v->backend == be && v->kind == SL_KIND_RUNG && v->launch && t_fwd_bulk_rung(v->name))
            t_bulk_cases(ctx, v, arms_fwd_e, t_fwd_bulk_max(v->name, 2)); /* of x, and as much of res */
    }
    ln_all(ctx, NULL, NULL, NULL, 1, 1, 1, 1);
    ln_errors(ctx);
    printf("%s: largest f32 error %.2f u (u = 2^-24 x |want|, or the bound's absolute part over its relative "
           "factor); %ld elements fail a bound 256 times tighter\n",
           name, worst_u, tight_fail);
    CHECK(tight_fail > 0, "no element fails a tolerance 256 times tighter: the check would be vacuous");
    return check_exit(name);
}

#endif /* SL_TEST_LAYERNORM_CHECK_H */
