/*
 * softmax_bwd.h - the softmax backward op, dx = y (dy - rowsum(dy y)) over
 * each row of a row-major rows x cols matrix (issue 33): its dtypes and
 * its launchers. C11 and CUDA C.
 */
#ifndef SL_OP_SOFTMAX_BWD_H
#define SL_OP_SOFTMAX_BWD_H

#include "ew.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The dtypes of sl_softmax: f32, and bf16 / f16 storage computed in f32. */
#define SL_SOFTMAX_BWD_DTYPES (SL_DT(F32) | SL_DT(F16) | SL_DT(BF16))

/* The register rung (03_regs) holds a row of y and of dy in the registers
 * of a cluster of at most 8 blocks of at most 1024 threads, 16 elements
 * of each a thread (4 16-byte vectors in f32, 2 in bf16 / f16: the first
 * H200 build spilled 72 bytes a thread with 4 16-bit vectors under the
 * 64-register cap): 2^17 element slots (the row plus its misalignment).
 * Longer rows take the two-pass rung. */
#define SL_SOFTMAX_BWD_REGS_EPT 16
#define SL_SOFTMAX_BWD_MAX_THREADS (8 * 1024)

SL_DECLARE_LAUNCHER(sl_cuda_softmax_bwd_twopass)
SL_DECLARE_LAUNCHER(sl_cuda_softmax_bwd_vec)
SL_DECLARE_LAUNCHER(sl_cuda_softmax_bwd_regs)
SL_DECLARE_LAUNCHER(sl_cuda_softmax_bwd_bulk)
SL_DECLARE_LAUNCHER(sl_cuda_softmax_bwd_bulk_ex)
sl_status sl_cuda_softmax_bwd_api(const sl_args *x);

/* The copy-kernel ceiling (cuda/copy_kernel.cu): the op's first input
 * copied into its first written buffer by an SM kernel (16-byte loads and
 * stores where both share an offset modulo 16 bytes), not cudaMemcpy:
 * the same kind of traffic, through the same load/store path, as the
 * rungs. Any op may list it. */
sl_status sl_cuda_ceiling_copy_kernel(const sl_args *x);

#ifdef __cplusplus
}
#endif

#endif /* SL_OP_SOFTMAX_BWD_H */
