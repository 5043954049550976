/*
 * rmsnorm backward rung 14 (bulk_exw3): the bulk rung's kernel
 * (common/norm_bwd_bulk.cuh) in its NB_EXW3 configuration, launched by
 * 05_bulk.cu's sl_cuda_rmsnorm_bwd_bulk_rung: bulk_exw (12_bulk_exw.cu)
 * with three row stages of x and dy a block where it has two.
 *
 * Change from bulk_exw: row k of a team lands in stage k % 3 and, after
 * row k's end-of-row barrier, thread 0 refills that stage with row k + 3
 * (bulk_exw: k + 2). w's chunk has no region of its own: it lands in the
 * third stage's buffer, each thread widens its 16 values into registers
 * (as bulk_exw), a block barrier, and then row 2 is issued into that
 * buffer. Dynamic shared memory: 6 x 16 KiB = 96 KiB a block at 16-bit
 * rows (bulk_exw 80: 4 x 16 of x and dy, 16 of w), still two blocks of 512
 * a SM (2 x (96 + 2.2 static + 1 reserved) KiB = 198.4 of 228). Where the
 * chunk is past 1024 vectors (f32 rows over 32768 columns, 4 vectors a
 * thread; three stages of 64 KiB would leave one block a SM) this rung
 * runs bulk_exw's two-stage kernel (norm_bwd_bulk_stages3).
 *
 * Bytes in flight: with two stages, once row k + 1 has landed a block has
 * only row k + 2 in flight (32 KiB of x and dy at 16 KiB chunks, 64 KiB a
 * SM; 16 KiB a block at 4096 columns, C = 1), and that row is asked only
 * when the slowest of the block's 16 warps has finished row k: it has one
 * row's time to arrive (H200, bf16, from bulk_exw's times: ~3.9 us a row
 * at 8192 x 16384, ~3.4 at 8192 x 65536, ~1.8 at 32768 x 4096), less the
 * slowest warp's lag, against ~1.5-2.5 us for a row's bulk copies to land
 * under load. With three, rows k + 2 and k + 3 are in flight while the
 * block works on k + 1 (64 KiB a block, 128 KiB a SM at 16-bit chunks of
 * 16 KiB) and a row is asked two rows before its use. The end-of-row
 * barrier stays (it orders a stage's reads before its refill), but a late
 * warp now delays a row that is needed two rows on.
 * Expectation (unmeasured, docs/ladder.md "The norms' backwards, fifteenth
 * session"): H200, bf16, of the copy kernel: 0.81-0.85 at 8192 x 16384,
 * 0.90-0.93 at 8192 x 65536, 0.82-0.87 at 4096 x 32768, 0.89-0.95 at 32768
 * x 4096 (bulk_exw 0.814-0.817 / 0.905-0.913 / 0.822-0.842 / 0.874-0.890):
 * most where a row's time is shortest against the copies' latency.
 * dx and dw are bulk_exw's bits. Limits: as bulk; else SL_ERR_UNSUPPORTED.
 */
#include "rmsnorm_bwd.h"

extern "C" sl_status sl_cuda_rmsnorm_bwd_bulk_exw3(const sl_args *a)
{
    return sl_cuda_rmsnorm_bwd_bulk_rung(a, 3, "bulk_exw3");
}
