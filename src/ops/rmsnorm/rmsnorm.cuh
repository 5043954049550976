/*
 * rmsnorm.cuh - what the forward's CUDA rungs share: the launch's
 * geometry (CUDA C only; rmsnorm.h is the op's C header).
 */
#ifndef SL_OP_RMSNORM_CUH
#define SL_OP_RMSNORM_CUH

#include "norm.cuh"
#include "rmsnorm.h"

struct rms_geo {
    const void *x, *w;
    void *y;
    float *rstd;
    uint64_t rows, cols, ld;
    float eps;
};

static inline rms_geo rms_geo_of(const sl_args *a)
{
    rms_geo g = {a->buf[SL_RMS_X], a->buf[SL_RMS_W], a->buf[SL_RMS_Y], (float *)a->buf[SL_RMS_RSTD],
                 a->shape.rows, a->shape.cols, a->shape.ld ? a->shape.ld : a->shape.cols, (float)a->scalar[0]};
    return g;
}

#endif /* SL_OP_RMSNORM_CUH */
