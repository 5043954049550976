/*
 * layernorm.h - the layernorm forward op (issue 32): its buffers and its
 * launchers; shared with layernorm_bwd. C11 and CUDA C. The dtypes, the
 * per-thread summation contract (SL_NORM_SEQ, SL_NORM_DW_ROWS) and the
 * launchers' checks are rmsnorm's (rmsnorm.h).
 *
 * Buffers, in the descriptor's order: x (IN, rows x cols), w, b (IN,
 * cols), y (OUT, rows x cols), mean, rstd (OUT, rows, f32). Scalar: eps.
 */
#ifndef SL_OP_LAYERNORM_H
#define SL_OP_LAYERNORM_H

#include "rmsnorm.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { SL_LN_X = 0, SL_LN_W = 1, SL_LN_B = 2, SL_LN_Y = 3, SL_LN_MEAN = 4, SL_LN_RSTD = 5 };

sl_status sl_cuda_layernorm_block(const sl_args *a);
sl_status sl_cuda_layernorm_regs(const sl_args *a);
sl_status sl_cuda_layernorm_regs_pf(const sl_args *a);
sl_status sl_cuda_layernorm_regs_1k(const sl_args *a);
sl_status sl_cuda_layernorm_lean(const sl_args *a);
sl_status sl_cuda_layernorm_lean4(const sl_args *a);
sl_status sl_cuda_layernorm_decode(const sl_args *a);
sl_status sl_cuda_layernorm_aligned(const sl_args *a);
sl_status sl_cuda_layernorm_bulk(const sl_args *a);
sl_status sl_cuda_layernorm_bulk_attrs(sl_dtype dt, sl_kernel_attrs *out);
sl_status sl_cuda_layernorm_bulk_ex(const sl_args *a);
sl_status sl_cuda_layernorm_bulk_ex_attrs(sl_dtype dt, sl_kernel_attrs *out);
sl_status sl_cuda_layernorm_bulk_ex512(const sl_args *a);
sl_status sl_cuda_layernorm_bulk_ex512_attrs(sl_dtype dt, sl_kernel_attrs *out);
sl_status sl_cuda_layernorm_bulk_ex128(const sl_args *a);
sl_status sl_cuda_layernorm_bulk_ex128_attrs(sl_dtype dt, sl_kernel_attrs *out);
sl_status sl_cuda_layernorm_bulk_cp(const sl_args *a);
sl_status sl_cuda_layernorm_bulk_cp_attrs(sl_dtype dt, sl_kernel_attrs *out);
sl_status sl_cuda_layernorm_api(const sl_args *a);

#ifdef __cplusplus
}
#endif

#endif /* SL_OP_LAYERNORM_H */
