/*
 * layernorm backward rung 14 (bulk_exw3): the bulk rung's kernel
 * (common/norm_bwd_bulk.cuh) in its NB_EXW3 configuration, launched by
 * 05_bulk.cu's sl_cuda_layernorm_bwd_bulk_rung: bulk_exw (12_bulk_exw.cu)
 * with three row stages of x and dy a block where it has two.
 *
 * Change from bulk_exw: row k of a team lands in stage k % 3 and, after
 * row k's end-of-row barrier, thread 0 refills that stage with row k + 3
 * (bulk_exw: k + 2). w's 16-bit chunk lands in the third stage's buffer,
 * each thread takes its two raw vectors into 8 registers (as bulk_exw),
 * a block barrier, and then row 2 is issued into that buffer. Dynamic
 * shared memory: 6 x 16 KiB = 96 KiB a block at 16-bit rows (bulk_exw 80),
 * still two blocks of 512 a SM (2 x (96 + 2.2 static + 1 reserved) KiB =
 * 198.4 of 228). f32 w (beside 16-bit rows, and f32 rows) is read from
 * shared memory in every row, so it cannot share a stage: there this rung
 * runs bulk_exw's two-stage kernel (norm_bwd_bulk_stages3), as for chunks
 * past 1024 vectors.
 *
 * Bytes in flight: with two stages, once row k + 1 has landed a block has
 * only row k + 2 in flight (32 KiB at 16-bit chunks of 16 KiB, 64 KiB a
 * SM), asked only when the slowest of the block's 16 warps has finished
 * row k. With three, rows k + 2 and k + 3 are in flight while the block
 * works on k + 1 (64 KiB a block, 128 KiB a SM) and a row is asked two
 * rows before its use. The end-of-row barrier stays; a late warp now
 * delays a row needed two rows on. layernorm's row takes 1.15-1.3x rmsnorm's
 * instructions (docs/ladder.md, eleventh and thirteenth sessions), so the longer lead
 * matters less here: a row already has more time to land.
 * Expectation (unmeasured, docs/ladder.md "The norms' backwards, fifteenth
 * session"): H200, bf16, of the copy kernel: 0.74-0.78 at 8192 x 16384,
 * 0.84-0.87 at 8192 x 65536, 0.72-0.76 at 4096 x 32768, 0.76-0.82 at 32768
 * x 4096 (bulk_exw 0.744-0.748 / 0.845-0.846 / 0.716-0.730 / 0.745-0.748):
 * most at 4096 columns, whose rows (16 KiB of x and dy a block, ~2.1 us)
 * have the least time to land.
 * dx, dw and db are bulk_exw's bits. Limits: as bulk; else
 * SL_ERR_UNSUPPORTED.
 */
#include "layernorm_bwd.h"

extern "C" sl_status sl_cuda_layernorm_bwd_bulk_exw3(const sl_args *a)
{
    return sl_cuda_layernorm_bwd_bulk_rung(a, 3, "bulk_exw3");
}
