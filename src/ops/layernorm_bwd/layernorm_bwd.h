/*
 * layernorm_bwd.h - the layernorm backward op (issue 32): its buffers, its
 * workspace (the dw and db partials) and its launchers. C11 and CUDA C.
 *
 * Buffers, in the descriptor's order: x, dy (IN, rows x cols), w (IN,
 * cols), mean, rstd (IN, rows, f32: the forward's), dx (OUT, rows x cols),
 * dw, db (OUT, cols, w's dtype).
 */
#ifndef SL_OP_LAYERNORM_BWD_H
#define SL_OP_LAYERNORM_BWD_H

#include "rmsnorm_bwd.h"

#ifdef __cplusplus
extern "C" {
#endif

enum {
    SL_LNB_X = 0,
    SL_LNB_DY = 1,
    SL_LNB_W = 2,
    SL_LNB_MEAN = 3,
    SL_LNB_RSTD = 4,
    SL_LNB_DX = 5,
    SL_LNB_DW = 6,
    SL_LNB_DB = 7
};

/* The workspace: the dw partials (sl_norm_dw_partials(rows, cols) rows of
 * cols f32), then as many db partials. */
size_t sl_layernorm_bwd_ws(uint64_t rows, uint64_t cols);

sl_status sl_cuda_layernorm_bwd_block(const sl_args *a);
sl_status sl_cuda_layernorm_bwd_regs(const sl_args *a);
sl_status sl_cuda_layernorm_bwd_regs_pf(const sl_args *a);
sl_status sl_cuda_layernorm_bwd_regs_sm(const sl_args *a);
sl_status sl_cuda_layernorm_bwd_aligned(const sl_args *a);
sl_status sl_cuda_layernorm_bwd_aligned_pf(const sl_args *a);
sl_status sl_cuda_layernorm_bwd_aligned_sm(const sl_args *a);
sl_status sl_cuda_layernorm_bwd_aligned_pf3(const sl_args *a);
sl_status sl_cuda_layernorm_bwd_aligned_pfx(const sl_args *a);
sl_status sl_cuda_layernorm_bwd_aligned_pf3x(const sl_args *a);
/* The row in shared memory (05_bulk.cu): aligned launches, rows of at
 * most 65536 columns, sm_90; else SL_ERR_UNSUPPORTED. */
sl_status sl_cuda_layernorm_bwd_bulk(const sl_args *a);
/* bulk_ex (11_bulk_ex.cu): the bulk kernel's EX configuration, the same
 * limits. */
sl_status sl_cuda_layernorm_bwd_bulk_ex(const sl_args *a);
/* bulk_exw (12_bulk_exw.cu): the bulk kernel's EXW configuration (bulk_ex
 * with 16-bit w held raw in registers, f32 w read from shared memory as
 * bulk), the same limits. */
sl_status sl_cuda_layernorm_bwd_bulk_exw(const sl_args *a);
/* bulk_exw3 (13_bulk_exw3.cu): the bulk kernel's EXW3 configuration
 * (bulk_exw with three row stages, w's chunk landing in the third before
 * it goes to registers; bulk_exw's kernel where w must stay in shared
 * memory or the chunk is past 1024 vectors), the same limits. */
sl_status sl_cuda_layernorm_bwd_bulk_exw3(const sl_args *a);
/* bulk_pipe (14_bulk_pipe.cu): the bulk kernel's PIPE configuration
 * (bulk_exw3 with row k + 1's first pass, its sums sent, before row k's
 * wait for the cluster's sums; bulk_exw's kernel where bulk_exw3 runs it),
 * the same limits. */
sl_status sl_cuda_layernorm_bwd_bulk_pipe(const sl_args *a);
/* bulk_q (15_bulk_q.cu): the bulk kernel's NB_Q configuration (bulk_exw3
 * in blocks of 256, four an SM, chunks of up to 512 vectors: 16-bit rows
 * up to 32768 columns with 16-bit w; f32 w, and so f32 rows, refused), the
 * same other limits. */
sl_status sl_cuda_layernorm_bwd_bulk_q(const sl_args *a);
/* regs_cl (16_regs_cl.cu): the row in registers between its two passes
 * (no shared-memory staging), split over a cluster of 1-8 blocks of 256
 * (two vectors a thread), persistent clusters walking rows with two rows'
 * loads in flight, the row sums through DSMEM (cluster_x1.cuh), dw and db
 * in registers: aligned bf16 / f16 rows of at most 32768 columns with w in
 * the rows' dtype, sm_90; else SL_ERR_UNSUPPORTED. */
sl_status sl_cuda_layernorm_bwd_regs_cl(const sl_args *a);
/* bulk (ex = 0), bulk_ex (1), bulk_exw (2), bulk_exw3 (3), bulk_pipe (4) or
 * bulk_q (5: common/norm_bwd_bulk.cuh's NB_BULK ... NB_PIPE, NB_Q),
 * who naming the rung in messages: defined once, in 05_bulk.cu. */
sl_status sl_cuda_layernorm_bwd_bulk_rung(const sl_args *a, int ex, const char *who);
sl_status sl_cuda_layernorm_bwd_api(const sl_args *a);
/* A register rung of kind pf (common/norm_bwd.cuh's NORM_BWD_*): defined
 * once, in 03_regs.cu, as rmsnorm_bwd's sl_cuda_rmsnorm_bwd_rung. */
sl_status sl_cuda_layernorm_bwd_rung(const sl_args *a, int pf, const char *who);

#ifdef __cplusplus
}
#endif

#endif /* SL_OP_LAYERNORM_BWD_H */
