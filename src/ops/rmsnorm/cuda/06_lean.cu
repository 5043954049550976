/*
 * rmsnorm rung 6 (lean): regs' teams (a warp per row up to 256 vectors, a
 * block of 256, a block of 512 at 2049-4096 vectors, clusters of 4 and 8
 * blocks of 256 beyond) with two changes (common/norm_fwd.cuh, LEAN):
 *   - one block barrier a team sum, not two (alternating shared-memory
 *     slots), and with a cluster one full cluster barrier a row plus an
 *     arrive whose wait is deferred to the block's exit, so that the
 *     stores do not wait for the slowest block of the cluster to read;
 *   - the register cap set for occupancy: 6 blocks of 256 per SM at 2
 *     vectors a thread (40 registers; regs: 53, 4 blocks), 4 at 4 and 8
 *     vectors (64; regs: 77 at 8 vectors in a cluster, 3 blocks).
 *
 * Why: regs is one row per team; between its loads and its stores a team
 * waits on its reduction, and only the SM's other teams keep bytes in
 * flight meanwhile. At N = 4096 bf16 (512 vectors) regs holds 4 blocks x
 * 8 KiB = 32 KiB in flight per SM at best, under Little's law's ~40 KiB
 * for an H100 / H200 SM at ~1 us; at N = 65536 (cluster of 4) 3 blocks
 * and two cluster barriers before the first store.
 *
 * Floors (bf16, the compulsory bytes over the copy's bandwidth): 32768 x
 * 4096, 512 MiB, ~0.17 ms on an H100 (~3.2 TB/s); 8192 x 65536, 2 GiB,
 * ~0.70 ms. Expectation: N = 4096 from 0.96 to 0.98-1.0 of the copy (six
 * blocks: 48 KiB in flight), N = 65536 from 0.88 to ~0.95 (four blocks,
 * the store phase freed from the second cluster barrier), if the 64-
 * register cap does not spill (ptxas -v).
 *
 * Measured (one H100, bench/results/h100-norms-fwd-2026-11-26c.md, beside
 * the copy in one process): 0.990 at 32768 x 4096 (regs 0.960), 0.931 at
 * 8192 x 65536 (regs 0.884; 61 registers, no spills), 0.80 at 64 x 4096
 * (unchanged). The API's pick beyond the warp teams.
 */
#include "regs.cuh"

extern "C" sl_status sl_cuda_rmsnorm_lean(const sl_args *a)
{
    return rms_regs_rung(a, NORM_FWD_LEAN, "lean");
}
