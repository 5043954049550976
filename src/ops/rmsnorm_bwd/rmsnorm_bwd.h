/*
 * rmsnorm_bwd.h - the rmsnorm backward op (issue 32): its buffers, its
 * workspace (the dw partials) and its launchers. C11 and CUDA C.
 *
 * Buffers, in the descriptor's order: x, dy (IN, rows x cols), w (IN,
 * cols), rstd (IN, rows, f32: the forward's), dx (OUT, rows x cols), dw
 * (OUT, cols, w's dtype).
 */
#ifndef SL_OP_RMSNORM_BWD_H
#define SL_OP_RMSNORM_BWD_H

#include "rmsnorm.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { SL_RMSB_X = 0, SL_RMSB_DY = 1, SL_RMSB_W = 2, SL_RMSB_RSTD = 3, SL_RMSB_DX = 4, SL_RMSB_DW = 5 };

/* The dw partials: P rows of cols f32 sums, P = min(rows, ceil(rows /
 * SL_NORM_DW_ROWS) + 2^22 / cols): every partial covers at most
 * SL_NORM_DW_ROWS rows, and the 2^22 / cols more (16 MiB) leave any team
 * count up to 2^22 / cols room for its last, partly filled flush. A rung
 * forms at most this many. */
uint64_t sl_norm_dw_partials(uint64_t rows, uint64_t cols);
size_t sl_norm_dw_workspace(uint64_t rows, uint64_t cols);

/* A norm backward's public workspace rules: NULL with a size, or a buffer
 * below need bytes, is SL_ERR_INVALID_ARG (fn: the public function, whose
 * size query is fn_workspace). */
sl_status sl_norm_ws_check(const char *fn, const void *workspace, size_t workspace_bytes, size_t need);

sl_status sl_cuda_rmsnorm_bwd_naive(const sl_args *a);
sl_status sl_cuda_rmsnorm_bwd_block(const sl_args *a);
sl_status sl_cuda_rmsnorm_bwd_regs(const sl_args *a);
sl_status sl_cuda_rmsnorm_bwd_regs_pf(const sl_args *a);
sl_status sl_cuda_rmsnorm_bwd_regs_sm(const sl_args *a);
sl_status sl_cuda_rmsnorm_bwd_aligned(const sl_args *a);
sl_status sl_cuda_rmsnorm_bwd_aligned_pf(const sl_args *a);
sl_status sl_cuda_rmsnorm_bwd_aligned_sm(const sl_args *a);
sl_status sl_cuda_rmsnorm_bwd_aligned_pf3(const sl_args *a);
sl_status sl_cuda_rmsnorm_bwd_aligned_pfx(const sl_args *a);
sl_status sl_cuda_rmsnorm_bwd_aligned_pf3x(const sl_args *a);
/* The row in shared memory (05_bulk.cu): aligned launches, rows of at
 * most 65536 columns, sm_90; else SL_ERR_UNSUPPORTED. */
sl_status sl_cuda_rmsnorm_bwd_bulk(const sl_args *a);
/* bulk_ex (11_bulk_ex.cu): the bulk kernel's EX configuration, the same
 * limits. */
sl_status sl_cuda_rmsnorm_bwd_bulk_ex(const sl_args *a);
/* bulk_exw (12_bulk_exw.cu): the bulk kernel's EXW configuration (bulk_ex
 * with w widened to f32 in registers, not in shared memory), the same
 * limits. */
sl_status sl_cuda_rmsnorm_bwd_bulk_exw(const sl_args *a);
/* bulk_exw3 (13_bulk_exw3.cu): the bulk kernel's EXW3 configuration
 * (bulk_exw with three row stages, w's chunk landing in the third before
 * it goes to registers; bulk_exw's kernel where w must stay in shared
 * memory or the chunk is past 1024 vectors), the same limits. */
sl_status sl_cuda_rmsnorm_bwd_bulk_exw3(const sl_args *a);
/* bulk_pipe (14_bulk_pipe.cu): the bulk kernel's PIPE configuration
 * (bulk_exw3 with row k + 1's first pass, its sums sent, before row k's
 * wait for the cluster's sums; bulk_exw's kernel where bulk_exw3 runs it),
 * the same limits. */
sl_status sl_cuda_rmsnorm_bwd_bulk_pipe(const sl_args *a);
/* bulk_q (15_bulk_q.cu): the bulk kernel's NB_Q configuration (bulk_exw3
 * in blocks of 256, four an SM, chunks of up to 512 vectors: 16-bit rows
 * up to 32768 columns, f32 up to 16384), the same other limits. */
sl_status sl_cuda_rmsnorm_bwd_bulk_q(const sl_args *a);
/* regs_cl (16_regs_cl.cu): the row in registers between its two passes
 * (no shared-memory staging), split over a cluster of 1-8 blocks of 256
 * (two vectors a thread), persistent clusters walking rows with three rows'
 * loads in flight, the row sum through DSMEM (cluster_x1.cuh), dw in
 * registers (layernorm_bwd's regs_cl, common/norm_bwd_rcl.cuh): aligned
 * bf16 / f16 rows of at most 32768 columns with w in the rows' dtype,
 * sm_90; else SL_ERR_UNSUPPORTED. */
sl_status sl_cuda_rmsnorm_bwd_regs_cl(const sl_args *a);
/* bulk (ex = 0), bulk_ex (1), bulk_exw (2), bulk_exw3 (3), bulk_pipe (4) or
 * bulk_q (5: common/norm_bwd_bulk.cuh's NB_BULK ... NB_PIPE, NB_Q),
 * who naming the rung in messages: defined once, in 05_bulk.cu. */
sl_status sl_cuda_rmsnorm_bwd_bulk_rung(const sl_args *a, int ex, const char *who);
sl_status sl_cuda_rmsnorm_bwd_api(const sl_args *a);
/* A register rung of kind pf (common/norm_bwd.cuh's NORM_BWD_*), named who
 * in its errors. Defined once, in 03_regs.cu: its picker switches on pf at
 * run time, so a caller instantiates every register kernel (rmsnorm/cuda/
 * regs.cuh says why that is kept to one file); the other rung files call it. */
sl_status sl_cuda_rmsnorm_bwd_rung(const sl_args *a, int pf, const char *who);

/* dw's column pass (the naive and block rungs): part[c][j] = sum over rows
 * [256 c, 256 c + 256) of dy x rstd, P = ceil(rows / 256) partials; then
 * the finish. */
sl_status sl_cuda_rmsnorm_dw_cols(const sl_args *a);
/* dw[j] = sum_p part[p][j] (fp64, in p order), rounded into wt. */
sl_status sl_cuda_norm_dw_finish(const float *part, uint64_t P, uint64_t cols, void *dw, sl_dtype wt, void *stream);
/* Both of layernorm's in one launch: dw from part, db from partb. */
sl_status sl_cuda_norm_dwdb_finish(const float *part, const float *partb, uint64_t P, uint64_t cols, void *dw,
                                   void *db, sl_dtype wt, void *stream);

#ifdef __cplusplus
}
#endif

#endif /* SL_OP_RMSNORM_BWD_H */
