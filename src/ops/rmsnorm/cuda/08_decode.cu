/*
 * rmsnorm rung 8 (decode): lean's teams for rows of up to 1024 vectors (a
 * warp per row up to 256, then a block of 256 per row, 2 or 4 vectors a
 * thread), for aligned rows only (every buffer on 16 bytes, cols a
 * multiple of the vector: else SL_ERR_UNSUPPORTED), with two changes
 * (common/norm_fwd.cuh, DEC):
 *   - each vector whole or absent: one 16-byte load or store, no edge
 *     masks (the mask code put ~300 instructions before lean's last load);
 *   - w loaded into registers beside x, before the team sum, instead of
 *     in the store loop.
 *
 * Why: at decode shapes (M = 1-64 rows of N = 4096) every row is in flight
 * at once and the kernel's time is its critical path: x's DRAM load, the
 * team sum, then w's load, then the store. w is 8 KiB read by every row;
 * with many rows it stays in L2 and its late load costs an L2 hit, but at
 * a few rows after another kernel (L2 cold, as in a model where each
 * layer's GEMM weights sweep L2) it is a second DRAM round trip. Loading
 * it with x overlaps the two. And with one block per row the instructions
 * issued before the last load and between the sum and the stores are on
 * the critical path too (a first H100 run with w loaded early but the
 * masks kept: 1 row 5.09 -> 4.64 us event-timed, 64 rows unchanged).
 *
 * Floor: the bytes are nothing (64 x 4096 bf16: 512 KiB each way, 0.16 us
 * at 3.3 TB/s); the time is a launch, one DRAM round trip (~0.6-0.8 us on
 * an H100 / H200 with L2 cold), a block barrier and the stores' drain.
 * Expectation: lean's 3.79 us at 64 x 4096 (L2 flushed, graph replay:
 * h100-row-peers-final-2026-11-26c.md) less one DRAM round trip, ~3.0 us;
 * torch.compile and Liger 2.7-3.0 us there. The API's pick where the rows
 * are fewer than the SMs.
 */
#include "regs.cuh"

extern "C" sl_status sl_cuda_rmsnorm_decode(const sl_args *a)
{
    return rms_regs_rung(a, NORM_FWD_DECODE, "decode");
}
