/*
 * triad.h - the triad op (a = b + s c): its dtypes and the CUDA
 * launchers its variant table (triad.c) lists. C11 and CUDA C.
 */
#ifndef SL_OP_TRIAD_H
#define SL_OP_TRIAD_H

#include "ew.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SL_TRIAD_DTYPES SL_DT_FLOAT

SL_DECLARE_LAUNCHER(sl_cuda_triad_naive)
SL_DECLARE_LAUNCHER(sl_cuda_triad_vec)
SL_DECLARE_LAUNCHER(sl_cuda_triad_bulk)
sl_status sl_cuda_triad_api(const sl_args *x);
sl_status sl_cuda_triad_cub(const sl_args *x);

#ifdef __cplusplus
}
#endif

#endif /* SL_OP_TRIAD_H */
