/*
 * add_rmsnorm.h - the fused residual add + rmsnorm forward op (issue 32):
 * its buffers and its launchers. C11 and CUDA C. The dtypes, the
 * per-thread summation contract and the launchers' checks are rmsnorm's
 * (rmsnorm.h).
 *
 * Buffers, in the descriptor's order: x, res (IN, rows x cols), w (IN,
 * cols), h, y (OUT, rows x cols), rstd (OUT, rows, f32). Scalar: eps.
 */
#ifndef SL_OP_ADD_RMSNORM_H
#define SL_OP_ADD_RMSNORM_H

#include "rmsnorm.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { SL_ARMS_X = 0, SL_ARMS_RES = 1, SL_ARMS_W = 2, SL_ARMS_H = 3, SL_ARMS_Y = 4, SL_ARMS_RSTD = 5 };

sl_status sl_cuda_add_rmsnorm_block(const sl_args *a);
sl_status sl_cuda_add_rmsnorm_regs(const sl_args *a);
sl_status sl_cuda_add_rmsnorm_lean(const sl_args *a);
sl_status sl_cuda_add_rmsnorm_lean4(const sl_args *a);
sl_status sl_cuda_add_rmsnorm_decode(const sl_args *a);
sl_status sl_cuda_add_rmsnorm_aligned(const sl_args *a);
sl_status sl_cuda_add_rmsnorm_bulk(const sl_args *a);
sl_status sl_cuda_add_rmsnorm_bulk_attrs(sl_dtype dt, sl_kernel_attrs *out);
sl_status sl_cuda_add_rmsnorm_bulk_ex(const sl_args *a);
sl_status sl_cuda_add_rmsnorm_bulk_ex_attrs(sl_dtype dt, sl_kernel_attrs *out);
sl_status sl_cuda_add_rmsnorm_bulk_ex512(const sl_args *a);
sl_status sl_cuda_add_rmsnorm_bulk_ex512_attrs(sl_dtype dt, sl_kernel_attrs *out);
sl_status sl_cuda_add_rmsnorm_bulk_ex128(const sl_args *a);
sl_status sl_cuda_add_rmsnorm_bulk_ex128_attrs(sl_dtype dt, sl_kernel_attrs *out);
sl_status sl_cuda_add_rmsnorm_bulk_cp(const sl_args *a);
sl_status sl_cuda_add_rmsnorm_bulk_cp_attrs(sl_dtype dt, sl_kernel_attrs *out);
sl_status sl_cuda_add_rmsnorm_api(const sl_args *a);

#ifdef __cplusplus
}
#endif

#endif /* SL_OP_ADD_RMSNORM_H */
