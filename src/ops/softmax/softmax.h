/*
 * softmax.h - the softmax op (row softmax of a row-major rows x cols
 * matrix, seed 002): its dtypes and its launchers. C11 and CUDA C.
 */
#ifndef SL_OP_SOFTMAX_H
#define SL_OP_SOFTMAX_H

#include "ew.h"

#ifdef __cplusplus
extern "C" {
#endif

/* f32, and bf16 / f16 storage computed in f32. */
#define SL_SOFTMAX_DTYPES (SL_DT(F32) | SL_DT(F16) | SL_DT(BF16))

/* The naive rung rescans its row once per output element (2 N^2 loads per
 * row): it refuses shapes with rows x cols^2 above 2^32 (about 2^33 loads,
 * tens of milliseconds a launch), where it would take seconds. */
#define SL_SOFTMAX_NAIVE_MAX_WORK ((uint64_t)1 << 32)

/* The register rung (08_regs) holds a row in the registers of a cluster of
 * at most 8 blocks of at most 1024 threads, 32 elements each: rows up to
 * this many elements (less the row's misalignment, < 8 elements). Longer
 * rows go to the online rung. */
#define SL_SOFTMAX_REGS_MAX_COLS ((uint64_t)8 * 1024 * 32)

SL_DECLARE_LAUNCHER(sl_cuda_softmax_naive)
SL_DECLARE_LAUNCHER(sl_cuda_softmax_smem)
SL_DECLARE_LAUNCHER(sl_cuda_softmax_coalesced)
SL_DECLARE_LAUNCHER(sl_cuda_softmax_shuffle)
SL_DECLARE_LAUNCHER(sl_cuda_softmax_vec)
SL_DECLARE_LAUNCHER(sl_cuda_softmax_unroll)
SL_DECLARE_LAUNCHER(sl_cuda_softmax_online)
SL_DECLARE_LAUNCHER(sl_cuda_softmax_regs)
SL_DECLARE_LAUNCHER(sl_cuda_softmax_regs_cl)
SL_DECLARE_LAUNCHER(sl_cuda_softmax_bulk)
SL_DECLARE_LAUNCHER(sl_cuda_softmax_bulk_ex)
SL_DECLARE_LAUNCHER(sl_cuda_softmax_bulk_ex512)
sl_status sl_cuda_softmax_api(const sl_args *x);
/* The copy-kernel ceiling (softmax_bwd/cuda/copy_kernel.cu): x copied into
 * y by 16-byte loads and stores, the bar issue 33 quotes the row ops
 * against (cudaMemcpy, the `copy` ceiling, runs ~2.7 TB/s at DRAM sizes). */
sl_status sl_cuda_ceiling_copy_kernel(const sl_args *x);
sl_status sl_cuda_softmax_cudnn(const sl_args *x);

#ifdef __cplusplus
}
#endif

#endif /* SL_OP_SOFTMAX_H */
