/*
 * rmsnorm rung 4: regs made persistent (the grid is what the SMs hold at
 * once; a team walks rows r, r + teams, ...) with the next row's vectors
 * loaded before this row is reduced and written, and at least 4 vectors a
 * thread (blocks of 128-512; clusters of 2-4 blocks of 512 beyond 4096
 * vectors).
 *
 * Why: regs is below the copy where a team's row is its whole life (block
 * and cluster teams: 0.88 at N = 4096 bf16, 0.81 and 0.75 with clusters of
 * 2 and 4, first H200 call): between its loads and its stores a block
 * waits on the reduction (a block barrier, two cluster barriers), and with
 * 2-4 blocks per SM too little is in flight meanwhile. Here a thread's
 * next VPT x 16 bytes are in flight during the reduction.
 *
 * Expectation: the reduction hidden behind the next row's loads: 512
 * threads x 8 x 16 B = 64 KiB in flight per SM continuously (1.6x Little's
 * law's ~40 KiB): at the copy for the block and cluster teams, and no
 * change for the warp teams (their reduction is 5 shuffles).
 */
#include "regs.cuh"

extern "C" sl_status sl_cuda_rmsnorm_regs_pf(const sl_args *a)
{
    return rms_regs_rung(a, NORM_FWD_PF, "regs_pf");
}
