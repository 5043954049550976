/*
 * layernorm rungs 3 (regs) and 4 (regs_pf), and the API: the norms'
 * register kernel (common/norm_fwd.cuh) in MODE NORM_LN. The row is read
 * once into registers; the team reduces twice (the sum, then the squared
 * deviations from the registers), one more warp butterfly / block barrier
 * / pair of cluster barriers than rmsnorm, and the bias is read with the
 * weight (L1 / L2).
 *
 * Expectation: rmsnorm's regs and regs_pf measured 0.87-0.97 of the copy
 * at M = 32768 bf16 (first H200 session); the second reduction adds
 * latency per row that the SM's other teams (regs) or the prefetched row
 * (regs_pf) hide where rmsnorm's was hidden: within a few percent of
 * rmsnorm's fraction of the copy, the bytes being the same but for the
 * mean (4 bytes a row).
 */
#include "layernorm.h"
#include "norm_fwd.cuh"

static sl_status ln_regs_launch(const sl_args *a, const norm_fwd_cfg *c)
{
    const norm_fwd_geo g = {a->buf[SL_LN_X], a->buf[SL_LN_W], a->buf[SL_LN_B], a->buf[SL_LN_Y],
                            (float *)a->buf[SL_LN_MEAN], (float *)a->buf[SL_LN_RSTD], a->shape.rows, a->shape.cols,
                            a->shape.ld ? a->shape.ld : a->shape.cols, (float)a->scalar[0], NULL, NULL};
    return norm_fwd_launch(g, c, a->stream);
}

static bool ln_fits(const sl_args *a, int pf, norm_fwd_cfg *c)
{
    return norm_fwd_fits<NORM_LN>(a, SL_LN_X, SL_LN_Y, SL_LN_W, pf, c);
}

static sl_status ln_rung(const sl_args *a, int pf, const char *who)
{
    sl_status st = sl_norm_check(a, SL_LN_W, "layernorm", who);
    if (st != SL_OK || a->shape.rows == 0 || a->shape.cols == 0)
        return st;
    norm_fwd_cfg c;
    if (!ln_fits(a, pf, &c))
        return sl_fail(SL_ERR_UNSUPPORTED,
                       "layernorm %s: x and y at different offsets modulo 16 bytes, or a row of %llu elements beyond "
                       "a cluster's registers (or no clusters before sm_90): the block rung runs it",
                       who, (unsigned long long)a->shape.cols);
    return ln_regs_launch(a, &c);
}

extern "C" sl_status sl_cuda_layernorm_regs(const sl_args *a)
{
    return ln_rung(a, NORM_FWD_REGS, "regs");
}

extern "C" sl_status sl_cuda_layernorm_regs_pf(const sl_args *a)
{
    return ln_rung(a, NORM_FWD_PF, "regs_pf");
}

/* For the API: rmsnorm's choice (03_regs.cu there), not yet measured for
 * layernorm on its own: regs_pf for rows of 2049-4096 vectors at 1024
 * rows and more, regs where it fits, else the block rung. */
extern "C" sl_status sl_cuda_layernorm_api(const sl_args *a)
{
    sl_status st = sl_norm_check(a, SL_LN_W, "layernorm", "sl_layernorm_fwd");
    if (st != SL_OK || a->shape.rows == 0 || a->shape.cols == 0)
        return st;
    norm_fwd_cfg c;
    const uint64_t nvv = norm_fwd_nvv(a, SL_LN_X);
    if (nvv > 2048 && nvv <= 4096 && a->shape.rows >= 1024 && ln_fits(a, NORM_FWD_PF, &c))
        return ln_regs_launch(a, &c);
    if (ln_fits(a, NORM_FWD_REGS, &c))
        return ln_regs_launch(a, &c);
    return sl_cuda_layernorm_block(a);
}

/* rung 5 (regs_1k): one block of 1024 per row up to 8192 vectors, no
 * cluster; the experiment of rmsnorm's 05_regs1k.cu, with its expectation. */
extern "C" sl_status sl_cuda_layernorm_regs_1k(const sl_args *a)
{
    return ln_rung(a, NORM_FWD_1K, "regs_1k");
}
