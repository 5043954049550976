/*
 * regs.cuh - rmsnorm rungs 3 (regs) and 4 (regs_pf): the norms' register
 * kernel (common/norm_fwd.cuh, MODE NORM_RMS; shared with layernorm since
 * issue 32's second session), its fit and its launch for rmsnorm's
 * buffers.
 */
#ifndef SL_RMSNORM_REGS_CUH
#define SL_RMSNORM_REGS_CUH

#include "norm_fwd.cuh"
#include "rmsnorm.cuh"

typedef norm_fwd_cfg rms_cfg;

/* Whether the launch fits, and its configuration (pf: a NORM_FWD_* kind).
 * Defined once, in 03_regs.cu: the picker switches on pf at run time, so
 * whichever file calls it instantiates every register kernel of every kind,
 * and five rung files each doing so made five copies (41 MB of fatbinary
 * each in CI's all-architecture build). The other rung files only call it. */
bool rms_regs_fits(const sl_args *a, int pf, rms_cfg *c);

/* The norms' launch geometry for rmsnorm's buffers (the register and bulk rungs'). */
static inline norm_fwd_geo rms_fwd_geo_of(const sl_args *a)
{
    const rms_geo r = rms_geo_of(a);
    const norm_fwd_geo g = {r.x, r.w, NULL, r.y, NULL, r.rstd, r.rows, r.cols, r.ld, r.eps, NULL, NULL};
    return g;
}

static inline sl_status rms_regs_launch(const sl_args *a, const rms_cfg *c)
{
    return norm_fwd_launch(rms_fwd_geo_of(a), c, a->stream);
}

/* A register rung's launcher: pf = NORM_FWD_REGS (regs), NORM_FWD_PF (regs_pf) or NORM_FWD_1K (regs_1k). */
static inline sl_status rms_regs_rung(const sl_args *a, int pf, const char *who)
{
    sl_status st = sl_norm_check(a, SL_RMS_W, "rmsnorm", who);
    if (st != SL_OK || a->shape.rows == 0 || a->shape.cols == 0)
        return st;
    rms_cfg c;
    if (!rms_regs_fits(a, pf, &c))
        return sl_fail(SL_ERR_UNSUPPORTED,
                       "rmsnorm %s: x and y at different offsets modulo 16 bytes, or a row of %llu elements beyond a "
                       "cluster's registers (or no clusters before sm_90): the block rung runs it",
                       who, (unsigned long long)a->shape.cols);
    return rms_regs_launch(a, &c);
}

#endif /* SL_RMSNORM_REGS_CUH */
