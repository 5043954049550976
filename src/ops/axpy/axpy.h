/*
 * axpy.h - the axpy op (y = alpha x + y in place, seed 001): its dtypes and
 * the CUDA launchers its variant table (axpy.c) lists. C11 and CUDA C.
 */
#ifndef SL_OP_AXPY_H
#define SL_OP_AXPY_H

#include "ew.h"

#ifdef __cplusplus
extern "C" {
#endif

/* f32 (the seed's SAXPY), bf16 and f16 (the haxpy exercise), f64 (DAXPY). */
#define SL_AXPY_DTYPES SL_DT_FLOAT

SL_DECLARE_LAUNCHER(sl_cuda_axpy_v1_naive)
SL_DECLARE_LAUNCHER(sl_cuda_axpy_v2_coarse)
SL_DECLARE_LAUNCHER(sl_cuda_axpy_v3a_hoist)
SL_DECLARE_LAUNCHER(sl_cuda_axpy_v3b_restrict)
SL_DECLARE_LAUNCHER(sl_cuda_axpy_v4_persistent)
SL_DECLARE_LAUNCHER(sl_cuda_axpy_v5_vec)
SL_DECLARE_LAUNCHER(sl_cuda_axpy_tile4)
SL_DECLARE_LAUNCHER(sl_cuda_axpy_bulk)
sl_status sl_cuda_axpy_api(const sl_args *x);
sl_status sl_cuda_axpy_cublas(const sl_args *x);

#ifdef __cplusplus
}
#endif

#endif /* SL_OP_AXPY_H */
