/*
 * rmsnorm.h - the rmsnorm forward op (issue 32): its dtypes, its
 * tolerance's terms and its launchers; shared with rmsnorm_bwd. C11 and
 * CUDA C.
 *
 * Buffers, in the descriptor's order: x (IN, rows x cols), w (IN, cols),
 * y (OUT, rows x cols), rstd (OUT, rows, f32). Scalar: eps.
 */
#ifndef SL_OP_RMSNORM_H
#define SL_OP_RMSNORM_H

#include "ew.h"

#ifdef __cplusplus
extern "C" {
#endif

/* x, y (and dy, dx) in f32, bf16 or f16, computed in f32; w in the same
 * dtype or f32 (the public functions' w_dtype). */
#define SL_RMSNORM_DTYPES (SL_DT(F32) | SL_DT(F16) | SL_DT(BF16))

/* Buffer indices (the descriptor's order). */
enum { SL_RMS_X = 0, SL_RMS_W = 1, SL_RMS_Y = 2, SL_RMS_RSTD = 3 };

/* The contract every rung keeps, on which the tolerances rest (rmsnorm.c):
 * a thread adds at most SL_NORM_SEQ terms in sequence in f32 before a
 * tree (or compensates its sum: Kahan), and a dw partial covers at most
 * SL_NORM_DW_ROWS rows. */
#define SL_NORM_SEQ 64
#define SL_NORM_DW_ROWS 256

/* The register rung holds a row in a cluster of at most 8 blocks of 256
 * threads, 8 vectors of 16 bytes each: rows up to 8 x 256 x 8 x (16 /
 * element size) elements, less the row's offset in its 16-byte vector.
 * Longer rows, and x and y at different offsets modulo 16 bytes, go to
 * the block rung. */
#define SL_RMSNORM_REGS_MAX_VECS ((uint64_t)8 * 256 * 8)

sl_status sl_cuda_rmsnorm_naive(const sl_args *a);
sl_status sl_cuda_rmsnorm_block(const sl_args *a);
sl_status sl_cuda_rmsnorm_regs(const sl_args *a);
sl_status sl_cuda_rmsnorm_regs_pf(const sl_args *a);
sl_status sl_cuda_rmsnorm_regs_1k(const sl_args *a);
sl_status sl_cuda_rmsnorm_lean(const sl_args *a);
sl_status sl_cuda_rmsnorm_lean4(const sl_args *a);
sl_status sl_cuda_rmsnorm_decode(const sl_args *a);
sl_status sl_cuda_rmsnorm_aligned(const sl_args *a);
sl_status sl_cuda_rmsnorm_bulk(const sl_args *a);
sl_status sl_cuda_rmsnorm_bulk_attrs(sl_dtype dt, sl_kernel_attrs *out);
sl_status sl_cuda_rmsnorm_bulk_ex(const sl_args *a);
sl_status sl_cuda_rmsnorm_bulk_ex_attrs(sl_dtype dt, sl_kernel_attrs *out);
sl_status sl_cuda_rmsnorm_bulk_ex512(const sl_args *a);
sl_status sl_cuda_rmsnorm_bulk_ex512_attrs(sl_dtype dt, sl_kernel_attrs *out);
sl_status sl_cuda_rmsnorm_bulk_ex128(const sl_args *a);
sl_status sl_cuda_rmsnorm_bulk_ex128_attrs(sl_dtype dt, sl_kernel_attrs *out);
sl_status sl_cuda_rmsnorm_bulk_cp(const sl_args *a);
sl_status sl_cuda_rmsnorm_bulk_cp_attrs(sl_dtype dt, sl_kernel_attrs *out);
sl_status sl_cuda_rmsnorm_api(const sl_args *a);
/* The copy ceiling of the norms: a 16-byte-vector copy KERNEL (copy's vec
 * rung) of the first input into the first written buffer, rows x cols
 * elements (never cudaMemcpy, which runs at ~2.7 TB/s on the H200). */
sl_status sl_cuda_norm_copy(const sl_args *a);

/* Checks every launcher makes: a dtype of the op, w's dtype the rows' or
 * f32, ld >= cols. who: the launcher, for messages. */
sl_status sl_norm_check(const sl_args *a, int wbuf, const char *op, const char *who);

#ifdef __cplusplus
}
#endif

#endif /* SL_OP_RMSNORM_H */
