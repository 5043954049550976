/*
 * dot.h - the dot op (r = sum a b, a reduction): its dtypes, its launchers
 * and the workspace layout the CUDA rungs share. C11 and CUDA C.
 */
#ifndef SL_OP_DOT_H
#define SL_OP_DOT_H

#include "ew.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SL_DOT_DTYPES (SL_DT(F32) | SL_DT(F64))

/* The workspace of the CUDA rungs: a 256-byte header (the ticket counter
 * the last block takes, zeroed on the stream before each launch) and one
 * fp64 partial sum per block, at most SL_DOT_MAX_BLOCKS blocks. */
#define SL_DOT_MAX_BLOCKS 8192
#define SL_DOT_WORKSPACE (256 + 8 * SL_DOT_MAX_BLOCKS)

SL_DECLARE_LAUNCHER(sl_cuda_dot_naive)
SL_DECLARE_LAUNCHER(sl_cuda_dot_vec)
SL_DECLARE_LAUNCHER(sl_cuda_dot_vec4)
sl_status sl_cuda_dot_api(const sl_args *x);
sl_status sl_cuda_dot_cub(const sl_args *x);
size_t sl_cuda_dot_cub_workspace(sl_dtype dt, uint64_t n);
sl_status sl_cuda_dot_cublas(const sl_args *x);

#ifdef __cplusplus
}
#endif

#endif /* SL_OP_DOT_H */
