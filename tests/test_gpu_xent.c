/*
 * test_gpu_xent.c - every CUDA cross-entropy variant (xent: twopass,
 * regs; xent_fwd: online; and the public sl_cross_entropy_fwd_bwd /
 * sl_cross_entropy_fwd with int32 and int64 targets, reductions none /
 * mean / sum, in place and out of place) in f32, bf16 and f16 against the
 * fp64 oracle of xent_check.h under the documented bounds: V from 1 to
 * 262147 (the register rung's warp, block and cluster teams, its limits
 * of 2^17 f32 / 2^18 bf16 and the two-pass fallback beyond), 50257, many
 * short rows, logits and dx misaligned to 16 bytes at one offset and at
 * different offsets, the special rows (+-100, a 1e4 logit, equal logits,
 * NaN), targets at a 1e4 logit and at the bulk kernel's chunk edges,
 * ignored rows and all rows ignored, label smoothing, guard bytes
 * around dx; targets out of range giving NaN loss and gradient rows with
 * lse written (compute-sanitizer memcheck shows no access outside the
 * logits); the gradient against finite differences of the loss on the
 * device; the backward from a saved logsumexp (sl_cross_entropy_bwd, and
 * xent's rung `split` through the variants) on the same cases, its bad
 * targets and ignored rows; and the public API's errors. Exits 77 without
 * a GPU.
 * The bulk rungs (every xent variant named bulk*: bulk, 04_bulk.cu;
 * bulk_ex and bulk_ex512, 05_bulk_ex.cu, the one-sided cluster exchange)
 * run every case; each may refuse a shape (misaligned rows, rows over 8 x
 * 72 KiB) but must run on sm_90 where the rows are 16-byte aligned vectors
 * of at most 8 x 72 KiB (checked per launch: clusters of 1 to 8 blocks).
 * SL_XENT_QUICK=1 (for compute-sanitizer) runs f32 and smaller shapes.
 */
#include "xent_check.h"

#include "gpu_common.h"

#include <stdio.h>

static const sl_dtype dts[] = {SL_F32, SL_BF16, SL_F16};
enum { GUARD = 256 };

/* The launches of each bulk rung of xent (by variant index) that ran and
 * were checked against the oracle. */
enum { MAXV = 64 };
static size_t bulk_ran[MAXV];

typedef struct gcase {
    size_t rows, cols, xoff, doff; /* element offsets of x and dx from a 256-byte boundary */
    int tmode, inplace;
    double eps;
    const int *kinds;
    int nkinds;
} gcase;

/* A variant (v) through sl_args, int32 targets, or (v = NULL) the public
 * function with target type i64 and reduction red. Returns -1 when the
 * context is lost. */
static int x_case(sl_ctx *ctx, const sl_op_desc *op, const sl_variant *v, sl_dtype dt, const gcase *c, int i64,
                  sl_reduction red, int grad)
{
    const size_t es = sl_dtype_size(dt), n = c->rows * c->cols;
    const size_t dbytes = GUARD + (c->doff + n) * es + GUARD;
    unsigned char *hx = malloc(n * es), *hd = malloc(dbytes);
    int64_t *t64 = malloc(c->rows * 8);
    int32_t *t32 = malloc(c->rows * 4);
    float *hl = malloc((c->rows + 1) * 4), *hs = malloc(c->rows * 4);
    double *wl = malloc(c->rows * 8), *wloss = malloc(c->rows * 8), *sc = malloc(c->rows * 8), *wg = malloc(n * 8);
    void *dX = NULL, *dD = NULL, *dT = NULL, *dL = NULL, *dS = NULL;
    char what[220];
    snprintf(what, sizeof what, "%s %s %s %zux%zu x+%zu dx+%zu tmode %d eps %g %s red %d%s kind %d", op->name,
             v ? v->name : "public", sl_dtype_name(dt), c->rows, c->cols, c->xoff, c->doff, c->tmode, c->eps,
             i64 ? "i64" : "i32", (int)red, c->inplace ? " in place" : "", c->kinds[0]);
    int rc = 0;
    if (!hx || !hd || !t64 || !t32 || !hl || !hs || !wl || !wloss || !sc || !wg ||
        cudaMalloc(&dX, (c->xoff + n) * es + 256) != cudaSuccess ||
        (!c->inplace && cudaMalloc(&dD, dbytes + 256) != cudaSuccess) || cudaMalloc(&dT, c->rows * 8 + 8) != cudaSuccess ||
        cudaMalloc(&dL, c->rows * 4 + 8) != cudaSuccess || cudaMalloc(&dS, c->rows * 4 + 8) != cudaSuccess) {
        CHECK(0, "%s: out of memory", what);
        goto out;
    }
    xt_fill(dt, hx, t64, c->rows, c->cols, c->rows * 131u + c->cols * 7u + c->xoff, c->kinds, c->nkinds, c->tmode);
    size_t count = 0;
    for (size_t r = 0; r < c->rows; r++) {
        t32[r] = (int32_t)t64[r];
        count += t64[r] != XT_IGNORE;
    }
    const double g = red == SL_REDUCTION_MEAN ? 1.0 / (double)count : 1.0;
    xt_oracle(dt, hx, t64, c->rows, c->cols, c->eps, g, wl, wloss, wg, sc);
    unsigned char *x = (unsigned char *)dX + c->xoff * es;
    unsigned char *dx = c->inplace ? x : (unsigned char *)dD + GUARD + c->doff * es;
    if (!c->inplace)
        cudaMemset(dD, 0xff, dbytes);
    cudaMemset(dL, 0xff, c->rows * 4 + 8);
    cudaMemcpy(x, hx, n * es, cudaMemcpyHostToDevice);
    if (i64)
        cudaMemcpy(dT, t64, c->rows * 8, cudaMemcpyHostToDevice);
    else
        cudaMemcpy(dT, t32, c->rows * 4, cudaMemcpyHostToDevice);
    sl_status st;
    if (v) {
        sl_args a = {.op = op, .shape = {.rows = c->rows, .cols = c->cols, .ld = c->cols}, .n = n, .dtype = dt,
                     .out_dtype = dt};
        a.buf[0] = x;
        a.buf[1] = dT;
        a.buf[2] = dL;
        a.buf[3] = dS;
        a.buf[4] = grad ? dx : NULL;
        a.scalar[0] = XT_IGNORE;
        a.scalar[1] = c->eps;
        st = v->launch(&a);
    } else if (grad) {
        st = sl_cross_entropy_fwd_bwd(ctx, dt, c->rows, c->cols, x, i64 ? SL_INDEX_I64 : SL_INDEX_I32, dT, XT_IGNORE,
                                      (float)c->eps, red, dL, dS, dx, NULL);
    } else {
        st = sl_cross_entropy_fwd(ctx, dt, c->rows, c->cols, x, i64 ? SL_INDEX_I64 : SL_INDEX_I32, dT, XT_IGNORE,
                                  (float)c->eps, red, dL, dS, NULL);
    }
    if (st == SL_OK)
        st = cudaDeviceSynchronize() == cudaSuccess ? SL_OK : SL_ERR_CUDA_FAULT;
    const int bulk = v && op == &sl_op_xent && strncmp(v->name, "bulk", 4) == 0;
    if (bulk && st == SL_ERR_UNSUPPORTED) {
        /* what the bulk rungs promise to take (sm_90 aside): both buffers
         * 16-byte aligned (cudaMalloc's base, dx after GUARD bytes), rows
         * whole 16-byte vectors of at most 8 x 72 KiB */
        const size_t doff = c->inplace ? c->xoff : c->doff;
        int cc = 0;
        cudaDeviceGetAttribute(&cc, cudaDevAttrComputeCapabilityMajor, 0);
        CHECK(!(cc >= 9 && (c->xoff * es) % 16 == 0 && (doff * es) % 16 == 0 && (c->cols * es) % 16 == 0 &&
                c->cols * es <= 8u * 72u * 1024u) ||
                  strstr(sl_last_error(), "sm_90 code") != NULL,
              "%s: the %s rung refused a shape it promises to take: %s", what, v->name, sl_last_error());
    }
    if (bulk && st == SL_OK)
        bulk_ran[(size_t)(v - sl_op_xent.variants) % MAXV]++;
    if (st == SL_ERR_UNSUPPORTED && v && (strcmp(v->name, "regs") == 0 || strncmp(v->name, "bulk", 4) == 0))
        goto out; /* beyond a cluster's registers or shared memory, or x and dx at different offsets */
    CHECK(st == SL_OK, "%s: %s", what, sl_last_error());
    if (st == SL_ERR_CUDA_FAULT) {
        rc = -1;
        goto out;
    }
    if (st != SL_OK)
        goto out;
    cudaMemcpy(hl, dL, (red == SL_REDUCTION_NONE ? c->rows : 1) * 4, cudaMemcpyDeviceToHost);
    cudaMemcpy(hs, dS, c->rows * 4, cudaMemcpyDeviceToHost);
    CHECK(xt_cmp_rows(hs, wl, sc, c->rows, c->cols, c->eps, 1.0, what, "lse") == 0, "%s: lse", what);
    if (red == SL_REDUCTION_NONE) {
        CHECK(xt_cmp_rows(hl, wloss, sc, c->rows, c->cols, c->eps, 1.0, what, "loss") == 0, "%s: loss", what);
    } else {
        double sum = 0.0, allowed = 0.0;
        for (size_t r = 0; r < c->rows; r++) {
            sum += wloss[r];
            allowed += xt_allow_loss(wloss[r], sc[r], c->cols, c->eps, 1.0);
        }
        const double want = red == SL_REDUCTION_MEAN ? sum / (double)count : sum;
        if (red == SL_REDUCTION_MEAN)
            allowed /= (double)count;
        allowed += 0x1p-23 * fabs(want);
        if (isnan(want))
            CHECK(isnan(hl[0]), "%s: reduced loss %g, want NaN", what, hl[0]);
        else
            CHECK(fabs(hl[0] - want) <= allowed, "%s: reduced loss %.9g, want %.9g (allowed %.3g)", what, hl[0], want,
                  allowed);
    }
    if (grad) {
        /* the unfused rung reads its own f32 lse back: the bound of
         * sl_cross_entropy_bwd (g = 1 a row through sl_args) */
        const int split = v && strcmp(v->name, "split") == 0;
        double *g1 = malloc(c->rows * 8);
        for (size_t r = 0; r < c->rows; r++)
            g1[r] = 1.0;
        if (c->inplace) {
            cudaMemcpy(hd, dx, n * es, cudaMemcpyDeviceToHost);
            CHECK((split ? xt_cmp_grad_bwd(dt, hd, hx, t64, wl, sc, g1, c->rows, c->cols, c->eps, 1.0, what)
                         : xt_cmp_grad(dt, hd, wg, wl, sc, c->rows, c->cols, 1.0, what)) == 0,
                  "%s: gradient", what);
        } else {
            cudaMemcpy(hd, dD, dbytes, cudaMemcpyDeviceToHost);
            unsigned char *got = hd + GUARD + c->doff * es;
            CHECK((split ? xt_cmp_grad_bwd(dt, got, hx, t64, wl, sc, g1, c->rows, c->cols, c->eps, 1.0, what)
                         : xt_cmp_grad(dt, got, wg, wl, sc, c->rows, c->cols, 1.0, what)) == 0,
                  "%s: gradient", what);
            size_t stray = 0;
            for (size_t b = 0; b < GUARD + c->doff * es; b++)
                stray += hd[b] != 0xff;
            for (size_t b = GUARD + (c->doff + n) * es; b < dbytes; b++)
                stray += hd[b] != 0xff;
            CHECK(stray == 0, "%s: %zu bytes written outside dx", what, stray);
        }
        free(g1);
    }
out:
    cudaFree(dX), cudaFree(dD), cudaFree(dT), cudaFree(dL), cudaFree(dS);
    free(hx), free(hd), free(t64), free(t32), free(hl), free(hs), free(wl), free(wloss), free(sc), free(wg);
    return rc;
}

/* Targets out of range on the device: NaN loss and gradient for those
 * rows, lse written, the others exact to the bound; never a fault. */
static void test_bad_targets(sl_ctx *ctx)
{
    enum { R = 6, V = 1000 };
    float hx[R * V], hd[R * V], hl[R], hs[R];
    int64_t t[R] = {3, V, -5, XT_IGNORE, (int64_t)1 << 40, V - 1};
    uint64_t s = 3;
    for (int i = 0; i < R * V; i++)
        hx[i] = (float)(((double)(xt_next(&s) >> 11) * 0x1p-53 * 2.0 - 1.0) * 20.0);
    void *dx, *dt, *dl, *ds;
    cudaMalloc(&dx, sizeof hx), cudaMalloc(&dt, sizeof t), cudaMalloc(&dl, sizeof hl), cudaMalloc(&ds, sizeof hs);
    for (int inplace = 0; inplace < 2; inplace++) {
        void *g = dx;
        void *dg = NULL;
        if (!inplace) {
            cudaMalloc(&dg, sizeof hd);
            g = dg;
        }
        cudaMemcpy(dx, hx, sizeof hx, cudaMemcpyHostToDevice);
        cudaMemcpy(dt, t, sizeof t, cudaMemcpyHostToDevice);
        sl_status st = sl_cross_entropy_fwd_bwd(ctx, SL_F32, R, V, dx, SL_INDEX_I64, dt, XT_IGNORE, 0.0f,
                                                SL_REDUCTION_NONE, dl, ds, g, NULL);
        CHECK(st == SL_OK && cudaDeviceSynchronize() == cudaSuccess, "bad targets: %s", sl_last_error());
        cudaMemcpy(hd, g, sizeof hd, cudaMemcpyDeviceToHost);
        cudaMemcpy(hl, dl, sizeof hl, cudaMemcpyDeviceToHost);
        cudaMemcpy(hs, ds, sizeof hs, cudaMemcpyDeviceToHost);
        for (int r = 0; r < R; r++) {
            const int bad = r == 1 || r == 2 || r == 4;
            int nan = 0;
            for (int j = 0; j < V; j++)
                nan += isnan(hd[r * V + j]);
            CHECK(bad ? isnan(hl[r]) && nan == V : !isnan(hl[r]) && nan == 0,
                  "row %d (target %lld): loss %g, %d NaN gradient elements", r, (long long)t[r], hl[r], nan);
            CHECK(isfinite(hs[r]), "row %d: lse written (%g)", r, hs[r]);
        }
        float mean = 0.0f;
        CHECK(sl_cross_entropy_fwd(ctx, SL_F32, R, V, dx, SL_INDEX_I64, dt, XT_IGNORE, 0.0f, SL_REDUCTION_MEAN, dl, ds,
                                   NULL) == SL_OK,
              "%s", sl_last_error());
        cudaMemcpy(&mean, dl, 4, cudaMemcpyDeviceToHost);
        CHECK(isnan(mean), "a bad target makes the mean NaN (%g)", mean);
        cudaFree(dg);
    }
    cudaFree(dx), cudaFree(dt), cudaFree(dl), cudaFree(ds);
}

/* Central differences of the device's mean loss against its gradient. */
static void test_fd(sl_ctx *ctx)
{
    enum { R = 3, V = 7 };
    float x[R * V], xp[R * V], dxh[R * V], lp, lm;
    int32_t t[R] = {0, XT_IGNORE, V - 1};
    uint64_t s = 9;
    for (int i = 0; i < R * V; i++)
        x[i] = (float)(((double)(xt_next(&s) >> 11) * 0x1p-53 * 2.0 - 1.0) * 3.0);
    void *dX, *dG, *dT, *dL, *dS;
    cudaMalloc(&dX, sizeof x), cudaMalloc(&dG, sizeof x), cudaMalloc(&dT, sizeof t), cudaMalloc(&dL, 64),
        cudaMalloc(&dS, 64);
    cudaMemcpy(dX, x, sizeof x, cudaMemcpyHostToDevice);
    cudaMemcpy(dT, t, sizeof t, cudaMemcpyHostToDevice);
    CHECK(sl_cross_entropy_fwd_bwd(ctx, SL_F32, R, V, dX, SL_INDEX_I32, dT, XT_IGNORE, 0.1f, SL_REDUCTION_MEAN, dL, dS,
                                   dG, NULL) == SL_OK,
          "%s", sl_last_error());
    cudaMemcpy(dxh, dG, sizeof x, cudaMemcpyDeviceToHost);
    const float h = 1e-2f;
    double worst = 0.0;
    for (int i = 0; i < R * V; i++) {
        memcpy(xp, x, sizeof x);
        xp[i] = x[i] + h;
        cudaMemcpy(dX, xp, sizeof x, cudaMemcpyHostToDevice);
        sl_cross_entropy_fwd(ctx, SL_F32, R, V, dX, SL_INDEX_I32, dT, XT_IGNORE, 0.1f, SL_REDUCTION_MEAN, dL, dS, NULL);
        cudaMemcpy(&lp, dL, 4, cudaMemcpyDeviceToHost);
        xp[i] = x[i] - h;
        cudaMemcpy(dX, xp, sizeof x, cudaMemcpyHostToDevice);
        sl_cross_entropy_fwd(ctx, SL_F32, R, V, dX, SL_INDEX_I32, dT, XT_IGNORE, 0.1f, SL_REDUCTION_MEAN, dL, dS, NULL);
        cudaMemcpy(&lm, dL, 4, cudaMemcpyDeviceToHost);
        const double fd = ((double)lp - (double)lm) / (double)((x[i] + h) - (x[i] - h));
        worst = fmax(worst, fabs(fd - dxh[i]));
    }
    CHECK(worst < 2e-4, "device finite differences: worst |fd - dx| = %.3g", worst);
    cudaFree(dX), cudaFree(dG), cudaFree(dT), cudaFree(dL), cudaFree(dS);
}

/* sl_cross_entropy_bwd on the device: the lse handed in is the oracle's
 * fp64 logsumexp rounded to f32, dloss per row of both signs (NONE) or
 * one value (MEAN, SUM); in place or out of place with guard bytes.
 * Returns -1 when the context is lost. */
static int x_bwd(sl_ctx *ctx, sl_dtype dt, const gcase *c, int i64, sl_reduction red)
{
    const size_t es = sl_dtype_size(dt), n = c->rows * c->cols;
    const size_t dbytes = GUARD + (c->doff + n) * es + GUARD;
    unsigned char *hx = malloc(n * es), *hd = malloc(dbytes);
    int64_t *t64 = malloc(c->rows * 8);
    int32_t *t32 = malloc(c->rows * 4);
    float *hs = malloc(c->rows * 4), *hdl = malloc(c->rows * 4);
    double *wl = malloc(c->rows * 8), *wloss = malloc(c->rows * 8), *sc = malloc(c->rows * 8),
           *g = malloc(c->rows * 8);
    void *dX = NULL, *dD = NULL, *dT = NULL, *dS = NULL, *dY = NULL;
    char what[220];
    snprintf(what, sizeof what, "sl_cross_entropy_bwd %s %zux%zu x+%zu dx+%zu tmode %d eps %g %s red %d%s kind %d",
             sl_dtype_name(dt), c->rows, c->cols, c->xoff, c->doff, c->tmode, c->eps, i64 ? "i64" : "i32", (int)red,
             c->inplace ? " in place" : "", c->kinds[0]);
    int rc = 0;
    if (!hx || !hd || !t64 || !t32 || !hs || !hdl || !wl || !wloss || !sc || !g ||
        cudaMalloc(&dX, (c->xoff + n) * es + 256) != cudaSuccess ||
        (!c->inplace && cudaMalloc(&dD, dbytes + 256) != cudaSuccess) ||
        cudaMalloc(&dT, c->rows * 8 + 8) != cudaSuccess || cudaMalloc(&dS, c->rows * 4 + 8) != cudaSuccess ||
        cudaMalloc(&dY, c->rows * 4 + 8) != cudaSuccess) {
        CHECK(0, "%s: out of memory", what);
        goto out;
    }
    xt_fill(dt, hx, t64, c->rows, c->cols, c->rows * 131u + c->cols * 7u + c->xoff, c->kinds, c->nkinds, c->tmode);
    for (size_t r = 0; r < c->rows; r++) {
        t32[r] = (int32_t)t64[r];
        hdl[r] = red == SL_REDUCTION_NONE ? (float)((double)(r % 3) * 0.75 - 0.45) : 1.5f;
    }
    xt_oracle(dt, hx, t64, c->rows, c->cols, c->eps, 1.0, wl, wloss, NULL, sc);
    for (size_t r = 0; r < c->rows; r++)
        hs[r] = (float)wl[r];
    xt_bwd_scales(t64, c->rows, red, hdl, g);
    unsigned char *x = (unsigned char *)dX + c->xoff * es;
    unsigned char *dx = c->inplace ? x : (unsigned char *)dD + GUARD + c->doff * es;
    if (!c->inplace)
        cudaMemset(dD, 0xff, dbytes);
    cudaMemcpy(x, hx, n * es, cudaMemcpyHostToDevice);
    cudaMemcpy(dS, hs, c->rows * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(dY, hdl, c->rows * 4, cudaMemcpyHostToDevice);
    if (i64)
        cudaMemcpy(dT, t64, c->rows * 8, cudaMemcpyHostToDevice);
    else
        cudaMemcpy(dT, t32, c->rows * 4, cudaMemcpyHostToDevice);
    sl_status st = sl_cross_entropy_bwd(ctx, dt, c->rows, c->cols, x, i64 ? SL_INDEX_I64 : SL_INDEX_I32, dT,
                                        XT_IGNORE, (float)c->eps, red, dY, dS, dx, NULL);
    if (st == SL_OK)
        st = cudaDeviceSynchronize() == cudaSuccess ? SL_OK : SL_ERR_CUDA_FAULT;
    CHECK(st == SL_OK, "%s: %s", what, sl_last_error());
    if (st == SL_ERR_CUDA_FAULT) {
        rc = -1;
        goto out;
    }
    if (st != SL_OK)
        goto out;
    if (c->inplace) {
        cudaMemcpy(hd, dx, n * es, cudaMemcpyDeviceToHost);
        CHECK(xt_cmp_grad_bwd(dt, hd, hx, t64, wl, sc, g, c->rows, c->cols, c->eps, 1.0, what) == 0, "%s: gradient",
              what);
    } else {
        cudaMemcpy(hd, dD, dbytes, cudaMemcpyDeviceToHost);
        CHECK(xt_cmp_grad_bwd(dt, hd + GUARD + c->doff * es, hx, t64, wl, sc, g, c->rows, c->cols, c->eps, 1.0,
                              what) == 0,
              "%s: gradient", what);
        size_t stray = 0;
        for (size_t b = 0; b < GUARD + c->doff * es; b++)
            stray += hd[b] != 0xff;
        for (size_t b = GUARD + (c->doff + n) * es; b < dbytes; b++)
            stray += hd[b] != 0xff;
        CHECK(stray == 0, "%s: %zu bytes written outside dx", what, stray);
    }
out:
    cudaFree(dX), cudaFree(dD), cudaFree(dT), cudaFree(dS), cudaFree(dY);
    free(hx), free(hd), free(t64), free(t32), free(hs), free(hdl), free(wl), free(wloss), free(sc), free(g);
    return rc;
}

/* Targets out of range in the backward: NaN gradient rows, the others
 * exact to the bound; never a fault (memcheck). */
static void test_bwd_bad_targets(sl_ctx *ctx)
{
    enum { R = 5, V = 999 };
    float hx[R * V], hd[R * V], hs[R], one = 1.0f;
    int64_t t[R] = {3, V, -5, XT_IGNORE, V - 1};
    uint64_t s = 5;
    for (int i = 0; i < R * V; i++)
        hx[i] = (float)(((double)(xt_next(&s) >> 11) * 0x1p-53 * 2.0 - 1.0) * 20.0);
    for (int r = 0; r < R; r++)
        hs[r] = 8.0f;
    void *dx, *dt, *ds, *dy;
    cudaMalloc(&dx, sizeof hx), cudaMalloc(&dt, sizeof t), cudaMalloc(&ds, sizeof hs), cudaMalloc(&dy, 4);
    cudaMemcpy(dx, hx, sizeof hx, cudaMemcpyHostToDevice);
    cudaMemcpy(dt, t, sizeof t, cudaMemcpyHostToDevice);
    cudaMemcpy(ds, hs, sizeof hs, cudaMemcpyHostToDevice);
    cudaMemcpy(dy, &one, 4, cudaMemcpyHostToDevice);
    sl_status st = sl_cross_entropy_bwd(ctx, SL_F32, R, V, dx, SL_INDEX_I64, dt, XT_IGNORE, 0.0f, SL_REDUCTION_SUM, dy,
                                        ds, dx, NULL);
    CHECK(st == SL_OK && cudaDeviceSynchronize() == cudaSuccess, "bwd bad targets: %s", sl_last_error());
    cudaMemcpy(hd, dx, sizeof hd, cudaMemcpyDeviceToHost);
    for (int r = 0; r < R; r++) {
        const int bad = r == 1 || r == 2;
        int nan = 0, zero = 0;
        for (int j = 0; j < V; j++) {
            nan += isnan(hd[r * V + j]);
            zero += hd[r * V + j] == 0.0f;
        }
        CHECK(bad ? nan == V : nan == 0, "bwd row %d (target %lld): %d NaN gradient elements", r, (long long)t[r], nan);
        if (r == 3)
            CHECK(zero == V, "bwd ignored row: %d zeros of %d", zero, (int)V);
    }
    cudaFree(dx), cudaFree(dt), cudaFree(ds), cudaFree(dy);
}

int main(void)
{
    sl_ctx *ctx = gpu_open_or_skip("test_gpu_xent");
    if (!ctx)
        return SKIP;
    const int k20[] = {XK_20, XK_100};
    const int special[] = {XK_20, XK_100, XK_HUGE, XK_EQUAL, XK_NAN};
    const gcase cases[] = {
        {1, 1, 0, 0, 0, 0, 0.0, k20, 2},
        {3, 2, 0, 0, 0, 0, 0.0, k20, 2},
        {5, 31, 1, 1, 0, 0, 0.1, k20, 2},          /* misaligned, one offset */
        {7, 1000, 0, 0, 0, 0, 0.0, special, XK_KINDS},
        {6, 1025, 3, 1, 0, 0, 0.0, k20, 2},        /* different offsets */
        {5, 4097, 2, 2, 0, 1, 0.2, special, XK_KINDS}, /* in place */
        {5, 50257, 0, 0, 0, 0, 0.0, special, XK_KINDS},
        {3, 50257, 0, 0, 0, 1, 0.1, k20, 2},
        {2, 131072, 0, 0, 0, 0, 0.0, k20, 2},      /* f32 regs' limit */
        {2, 131075, 0, 0, 0, 0, 0.0, k20, 2},
        {1, 262144, 0, 0, 0, 1, 0.0, k20, 2},      /* 16-bit regs' limit */
        {1, 262147, 0, 0, 0, 0, 0.0, k20, 2},
        {6, 300, 0, 0, 1, 0, 0.0, k20, 2},         /* every row ignored */
        {600, 300, 0, 0, 0, 0, 0.0, special, XK_KINDS}, /* many rows: warps */
        {560, 5003, 0, 0, 0, 0, 0.0, k20, 2},      /* many rows: a cluster of 256s */
        {5, 24000, 0, 0, 0, 1, 0.1, special, XK_KINDS}, /* bulk: one chunk (16-bit), two (f32), in place */
        {300, 32000, 0, 0, 0, 0, 0.0, special, XK_KINDS}, /* bulk: many rows, three blocks an SM */
        {3, 40008, 0, 0, 0, 1, 0.1, k20, 2},       /* bulk: chunks of 2501 and 2500 vectors (16-bit) */
        {4, 65536, 0, 0, 0, 0, 0.2, k20, 2},       /* bulk: a cluster of 2 (16-bit), 4 (f32) */
        {2, 131072, 0, 0, 0, 1, 0.0, special, XK_KINDS}, /* bulk: a cluster of 4 (16-bit), 8 (f32), in place */
        /* bulk: targets at the 1e4 logit (p near 1), at the chunks' edges,
         * 0 / V - 1 and ignored NaN rows (tmode 3: the kernel stores the
         * target's element apart); clusters of 2 (16-bit) and 4 (f32) */
        {12, 65536, 0, 0, 3, 0, 0.0, special, XK_KINDS},
        {12, 65536, 0, 0, 3, 1, 0.1, special, XK_KINDS}, /* in place, smoothing */
        /* bulk: 2501- and 2500-vector chunks (16-bit): threads with 5 and 4
         * vectors (the fifth after the four-a-step loop), V - 1 in it */
        {12, 40008, 0, 0, 3, 1, 0.1, special, XK_KINDS},
        {4, 65536, 0, 0, 3, 1, 0.0, special, XK_KINDS}, /* the same, small enough for SL_XENT_QUICK */
        /* bulk_ex (32 KiB chunks of 256 threads): 1501- and 1500-vector
         * chunks (16-bit, a cluster of 2; f32 4): threads with 6 and 5
         * vectors, targets at 0, V - 1, the hot logit, ignored rows */
        {12, 24008, 0, 0, 3, 1, 0.1, special, XK_KINDS},
        {12, 24008, 0, 0, 3, 0, 0.0, special, XK_KINDS},
    };
    const char *q = getenv("SL_XENT_QUICK");
    const int quick = q && *q && *q != '0';
    int lost = 0;
    const sl_op_desc *ops[] = {&sl_op_xent, &sl_op_xent_fwd};
    for (size_t d = 0; d < sizeof dts / sizeof dts[0] && !lost; d++) {
        if (quick && d > 0)
            break;
        for (size_t i = 0; i < sizeof cases / sizeof cases[0] && !lost; i++) {
            const gcase *c = &cases[i];
            if (quick && c->rows * c->cols > 300000)
                continue;
            for (int o = 0; o < 2 && !lost; o++)
                for (int k = 0; k < ops[o]->nvariants && !lost; k++) {
                    const sl_variant *v = &ops[o]->variants[k];
                    if (v->backend != SL_BACKEND_CUDA || v->copy || !v->launch || c->tmode == 1)
                        continue;
                    lost = x_case(ctx, ops[o], v, dts[d], c, 0, SL_REDUCTION_NONE, o == 0) != 0;
                }
            if (!lost)
                lost = x_case(ctx, &sl_op_xent, NULL, dts[d], c, 1, SL_REDUCTION_MEAN, 1) != 0;
            if (!lost)
                lost = x_case(ctx, &sl_op_xent, NULL, dts[d], c, 0, SL_REDUCTION_SUM, 1) != 0;
            if (!lost)
                lost = x_case(ctx, &sl_op_xent, NULL, dts[d], c, 1, SL_REDUCTION_NONE, 0) != 0;
            if (!lost)
                lost = x_bwd(ctx, dts[d], c, (int)(i & 1), SL_REDUCTION_NONE) != 0;
            if (!lost)
                lost = x_bwd(ctx, dts[d], c, (int)(~i & 1), i % 3 == 0 ? SL_REDUCTION_SUM : SL_REDUCTION_MEAN) != 0;
        }
    }
    /* Each bulk rung ran (on sm_90) on the cases it takes (checked launch
     * by launch above). */
    if (!lost) {
        int cc = 0;
        cudaDeviceGetAttribute(&cc, cudaDevAttrComputeCapabilityMajor, 0);
        for (int k = 0; k < sl_op_xent.nvariants && k < MAXV; k++) {
            const sl_variant *v = &sl_op_xent.variants[k];
            if (v->backend != SL_BACKEND_CUDA || !v->launch || strncmp(v->name, "bulk", 4) != 0)
                continue;
            printf("xent %s: %zu launches checked against the oracle\n", v->name, bulk_ran[k]);
            CHECK(cc < 9 || bulk_ran[k] > 0, "the %s rung never ran on an sm_%d0 device", v->name, cc);
        }
    }
    if (!lost) {
        test_bad_targets(ctx);
        test_bwd_bad_targets(ctx);
        test_fd(ctx);
        float host[16] = {0};
        void *d = NULL;
        cudaMalloc(&d, 8192);
        char *b = d;
        CHECK(sl_cross_entropy_fwd_bwd(ctx, SL_F32, 2, 4, host, SL_INDEX_I32, b + 1024, -100, 0.0f, SL_REDUCTION_NONE,
                                       (float *)(b + 2048), (float *)(b + 3072), b + 4096, NULL) == SL_ERR_BAD_POINTER,
              "host logits on a CUDA context");
        CHECK(sl_cross_entropy_fwd_bwd(ctx, SL_F32, 2, 4, b, SL_INDEX_I32, b + 1024, -100, 0.0f, SL_REDUCTION_NONE,
                                       (float *)(b + 2048), (float *)(b + 3072), b + 4, NULL) == SL_ERR_OVERLAP,
              "overlap");
        cudaFree(d);
    }
    sl_ctx_destroy(ctx);
    return check_exit("test_gpu_xent");
}
