/*
 * rmsnorm_bwd.cuh - what the backward's CUDA rungs share: the launch's
 * geometry (CUDA C only; rmsnorm_bwd.h is the op's C header).
 */
#ifndef SL_OP_RMSNORM_BWD_CUH
#define SL_OP_RMSNORM_BWD_CUH

#include "norm.cuh"
#include "rmsnorm_bwd.h"

struct rmsb_geo {
    const void *x, *dy, *w;
    const float *rstd;
    void *dx;
    float *part; /* the dw partials (the workspace) */
    uint64_t rows, cols, ld;
    uint32_t o;  /* regs: every row's offset in elements from its 16-byte boundary */
};

static inline rmsb_geo rmsb_geo_of(const sl_args *a, uint32_t o)
{
    rmsb_geo g = {a->buf[SL_RMSB_X], a->buf[SL_RMSB_DY], a->buf[SL_RMSB_W], (const float *)a->buf[SL_RMSB_RSTD],
                  a->buf[SL_RMSB_DX], (float *)a->workspace, a->shape.rows, a->shape.cols,
                  a->shape.ld ? a->shape.ld : a->shape.cols, o};
    return g;
}

#endif /* SL_OP_RMSNORM_BWD_CUH */
