/*
 * add.h - the add op (c = a + b, seed 000): its dtypes and the CUDA
 * launchers its variant table (add.c) lists. C11 and CUDA C.
 */
#ifndef SL_OP_ADD_H
#define SL_OP_ADD_H

#include "ew.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Every storage dtype, fp8 included (seed 000's FP8 experiment). */
#define SL_ADD_DTYPES SL_DT_ALL

SL_DECLARE_LAUNCHER(sl_cuda_add_naive)
SL_DECLARE_LAUNCHER(sl_cuda_add_grid_stride)
SL_DECLARE_LAUNCHER(sl_cuda_add_vec4)
SL_DECLARE_LAUNCHER(sl_cuda_add_grid_vec4)
SL_DECLARE_LAUNCHER(sl_cuda_add_ilp2)
SL_DECLARE_LAUNCHER(sl_cuda_add_ilp4)
SL_DECLARE_LAUNCHER(sl_cuda_add_tile4)
SL_DECLARE_LAUNCHER(sl_cuda_add_bulk)
SL_DECLARE_LAUNCHER(sl_cuda_add_tile1)
SL_DECLARE_LAUNCHER(sl_cuda_add_tile1_cs)
SL_DECLARE_LAUNCHER(sl_cuda_add_tile1_lu)
SL_DECLARE_LAUNCHER(sl_cuda_add_tile1_nc)
SL_DECLARE_LAUNCHER(sl_cuda_add_tile1_ef)
SL_DECLARE_LAUNCHER(sl_cuda_add_fp8out)
sl_status sl_cuda_add_api(const sl_args *x);
sl_status sl_cuda_add_cub(const sl_args *x);

#ifdef __cplusplus
}
#endif

#endif /* SL_OP_ADD_H */
