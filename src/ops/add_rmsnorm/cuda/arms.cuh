/*
 * arms.cuh - the fused residual add + rmsnorm's launch geometry for the
 * norms' kernels (common/norm_fwd.cuh, MODE NORM_ADD_RMS): x, res, w, h,
 * y and rstd from add_rmsnorm's buffers, for every rung (kernels.cu,
 * 08_bulk.cu, 09_bulk_ex.cu).
 */
#ifndef SL_ADD_RMSNORM_ARMS_CUH
#define SL_ADD_RMSNORM_ARMS_CUH

#include "add_rmsnorm.h"
#include "norm_fwd.cuh"

static inline norm_fwd_geo arms_geo_of(const sl_args *a)
{
    const norm_fwd_geo g = {a->buf[SL_ARMS_X], a->buf[SL_ARMS_W], NULL, a->buf[SL_ARMS_Y], NULL,
                            (float *)a->buf[SL_ARMS_RSTD], a->shape.rows, a->shape.cols,
                            a->shape.ld ? a->shape.ld : a->shape.cols, (float)a->scalar[0], a->buf[SL_ARMS_RES],
                            a->buf[SL_ARMS_H]};
    return g;
}

#endif /* SL_ADD_RMSNORM_ARMS_CUH */
