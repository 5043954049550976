/*
 * transpose.h - the transpose op (out[j, i] = in[i, j], a 2-D op): its
 * dtypes, its tile sizes and its launchers. C11 and CUDA C.
 */
#ifndef SL_OP_TRANSPOSE_H
#define SL_OP_TRANSPOSE_H

#include "ew.h"

#ifdef __cplusplus
extern "C" {
#endif

/* 4-byte f32, the 2-byte f16 and bf16, the 8-byte f64: the element sizes of
 * seed 004's bank-conflict rules (a transpose moves bits, so the dtype only
 * sets the element size). */
#define SL_TRANSPOSE_DTYPES (SL_DT(F32) | SL_DT(F16) | SL_DT(BF16) | SL_DT(F64))
/* The cuBLAS peer: cublasSgeam / cublasDgeam (no 2-byte geam exists). */
#define SL_TRANSPOSE_CUBLAS_DTYPES (SL_DT(F32) | SL_DT(F64))

/* The seed's tile: 32 x 32 elements, a 32 x 8 thread block, 4 elements per
 * thread (the block walks the tile in 4 steps of 8 rows). */
#define SL_TP_TILE 32
#define SL_TP_BLOCK_ROWS 8
/* The vec rungs: 256 threads, 16-byte accesses (tiles: 05_vec.cu). */
#define SL_TP_VEC_BLOCK 256

SL_DECLARE_LAUNCHER(sl_cuda_transpose_naive)
SL_DECLARE_LAUNCHER(sl_cuda_transpose_tile32)
SL_DECLARE_LAUNCHER(sl_cuda_transpose_pad33)
SL_DECLARE_LAUNCHER(sl_cuda_transpose_swizzle)
SL_DECLARE_LAUNCHER(sl_cuda_transpose_vec)
SL_DECLARE_LAUNCHER(sl_cuda_transpose_vec_band8)
SL_DECLARE_LAUNCHER(sl_cuda_transpose_vec_band32)
SL_DECLARE_LAUNCHER(sl_cuda_transpose_vec_wide)
SL_DECLARE_LAUNCHER(sl_cuda_transpose_vec_tall)
SL_DECLARE_LAUNCHER(sl_cuda_transpose_vec_big)
/* The TMA rung (06_tma.cu): sm_90, tensor-map strides of 16 bytes. */
SL_DECLARE_LAUNCHER(sl_cuda_transpose_tma)
SL_DECLARE_LAUNCHER(sl_cuda_transpose_tma_col)
SL_DECLARE_LAUNCHER(sl_cuda_transpose_tma_col2)
sl_status sl_cuda_transpose_cublas(const sl_args *x);
sl_status sl_cuda_transpose_api(const sl_args *x);

#ifdef __cplusplus
}
#endif

#endif /* SL_OP_TRANSPOSE_H */
