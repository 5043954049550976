/*
 * rmsnorm backward rung 16 (bulk_q): the bulk rung's kernel
 * (common/norm_bwd_bulk.cuh) in its NB_Q configuration, launched by
 * 05_bulk.cu's sl_cuda_rmsnorm_bwd_bulk_rung: bulk_exw3 (13_bulk_exw3.cu)
 * in blocks of 256 threads, four an SM, where bulk_exw3 runs blocks of 512,
 * two an SM.
 *
 * Change from bulk_exw3: a block holds 256 threads and chunks of up to 512
 * vectors of x and of dy (8 KiB each; bulk_exw3: 1024, 16 KiB), still two
 * vectors a thread, three row stages and w's chunk in registers, so the
 * registers a thread (64) and the shared memory an SM (4 x 48 KiB of
 * stages against 2 x 96) are bulk_exw3's. A row takes twice the CTAs (16-
 * bit: C = 1 at 4096 columns, 4 at 16384, 8 at 32768; rows past 8 x 512
 * vectors are refused), and an SM holds four blocks, each at its own point
 * of its own row, where bulk_exw3's two hold 16 warps each in step through
 * a row's end-of-row barrier and the exchange's wait.
 *
 * Why: five changes to bulk_exw3's row body left 16384-32768 columns at
 * 0.82-0.87 of the copy (rmsnorm_bwd) and 0.72-0.79 (layernorm_bwd) on the
 * H200 (docs/ladder.md, "The norms' backwards, sixteenth session"), while
 * softmax_bwd's bulk_ex, the same bytes (two rows read, one written) in
 * blocks of 256, six an SM, runs 1.11-1.12 of the copy. What the norms keep
 * and the softmax does not is two wide blocks an SM moving in step.
 * Prediction (written before the device run): 1.03-1.10x bulk_exw3 at
 * 8192 x 16384 and 4096 x 32768; 0.98-1.05x at 32768 x 4096 (C = 1 in both);
 * at 32768 x 2048 (one vector a thread, half of each block's registers idle)
 * near the public function's 0.85 of the copy.
 * dx and dw: the same per-row arithmetic as bulk_exw3; the row sums add
 * the same terms over a different tree (8 warps x C CTAs for 16 x C/2), so
 * they may differ from bulk_exw3's in the last bits, within the op's
 * bound. Limits: as bulk, and rows of at most 8 x 512 vectors;
 * else SL_ERR_UNSUPPORTED.
 */
#include "rmsnorm_bwd.h"

extern "C" sl_status sl_cuda_rmsnorm_bwd_bulk_q(const sl_args *a)
{
    return sl_cuda_rmsnorm_bwd_bulk_rung(a, 5, "bulk_q");
}
