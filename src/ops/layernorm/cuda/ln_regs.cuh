/*
 * ln_regs.cuh - layernorm's register rungs (regs, regs_pf, regs_1k: 03_regs.cu;
 * lean, lean4: 04_lean.cu, 05_lean4.cu): the norms' register kernel
 * (common/norm_fwd.cuh, MODE NORM_LN), its fit and its launch for
 * layernorm's buffers; ln_geo_of for every rung.
 */
#ifndef SL_LAYERNORM_LN_REGS_CUH
#define SL_LAYERNORM_LN_REGS_CUH

#include "layernorm.h"
#include "norm_fwd.cuh"

/* The norms' launch geometry for layernorm's buffers (every layernorm rung's). */
static inline norm_fwd_geo ln_geo_of(const sl_args *a)
{
    const norm_fwd_geo g = {a->buf[SL_LN_X], a->buf[SL_LN_W], a->buf[SL_LN_B], a->buf[SL_LN_Y],
                            (float *)a->buf[SL_LN_MEAN], (float *)a->buf[SL_LN_RSTD], a->shape.rows, a->shape.cols,
                            a->shape.ld ? a->shape.ld : a->shape.cols, (float)a->scalar[0], NULL, NULL};
    return g;
}

static inline sl_status ln_regs_launch(const sl_args *a, const norm_fwd_cfg *c)
{
    return norm_fwd_launch(ln_geo_of(a), c, a->stream);
}

/* Whether the launch fits, and its configuration (pf: a NORM_FWD_* kind).
 * Defined once, in 03_regs.cu, as rmsnorm's (rmsnorm/cuda/regs.cuh says
 * why): the lean rung files only call it. */
bool ln_fits(const sl_args *a, int pf, norm_fwd_cfg *c);

static inline sl_status ln_rung(const sl_args *a, int pf, const char *who)
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

#endif /* SL_LAYERNORM_LN_REGS_CUH */
