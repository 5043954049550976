/*
 * scale.h - the scale op (b = s c): its dtypes and the CUDA
 * launchers its variant table (scale.c) lists. C11 and CUDA C.
 */
#ifndef SL_OP_SCALE_H
#define SL_OP_SCALE_H

#include "ew.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SL_SCALE_DTYPES SL_DT_FLOAT

SL_DECLARE_LAUNCHER(sl_cuda_scale_naive)
SL_DECLARE_LAUNCHER(sl_cuda_scale_vec)
SL_DECLARE_LAUNCHER(sl_cuda_scale_bulk)
sl_status sl_cuda_scale_api(const sl_args *x);
sl_status sl_cuda_scale_cub(const sl_args *x);

#ifdef __cplusplus
}
#endif

#endif /* SL_OP_SCALE_H */
