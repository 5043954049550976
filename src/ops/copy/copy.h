/*
 * copy.h - the copy op (c = a): its dtypes and the CUDA
 * launchers its variant table (copy.c) lists. C11 and CUDA C.
 */
#ifndef SL_OP_COPY_H
#define SL_OP_COPY_H

#include "ew.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SL_COPY_DTYPES SL_DT_ALL

SL_DECLARE_LAUNCHER(sl_cuda_copy_naive)
SL_DECLARE_LAUNCHER(sl_cuda_copy_vec)
SL_DECLARE_LAUNCHER(sl_cuda_copy_bulk)
SL_DECLARE_LAUNCHER(sl_cuda_copy_bulk8k)
sl_status sl_cuda_copy_api(const sl_args *x);
sl_status sl_cuda_copy_cub(const sl_args *x);

#ifdef __cplusplus
}
#endif

#endif /* SL_OP_COPY_H */
