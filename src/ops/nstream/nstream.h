/*
 * nstream.h - the nstream op (a = a + b + s c): its dtypes and the CUDA
 * launchers its variant table (nstream.c) lists. C11 and CUDA C.
 */
#ifndef SL_OP_NSTREAM_H
#define SL_OP_NSTREAM_H

#include "ew.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SL_NSTREAM_DTYPES SL_DT_FLOAT

SL_DECLARE_LAUNCHER(sl_cuda_nstream_naive)
SL_DECLARE_LAUNCHER(sl_cuda_nstream_vec)
SL_DECLARE_LAUNCHER(sl_cuda_nstream_bulk)
sl_status sl_cuda_nstream_api(const sl_args *x);
sl_status sl_cuda_nstream_cub(const sl_args *x);

#ifdef __cplusplus
}
#endif

#endif /* SL_OP_NSTREAM_H */
