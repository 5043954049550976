/*
 * rmsnorm backward rung 6 (aligned): the public function's form at each row
 * length (regs_pf, regs or regs_sm: common/norm_bwd.cuh's norm_bwd_form)
 * with the same teams, blocks, clusters and shared memory, for aligned
 * launches only (every buffer on 16 bytes, cols and ld a multiple of the
 * 16-byte vector: else SL_ERR_UNSUPPORTED): each vector of x, dy, dx and
 * w whole or absent, so one 16-byte load or store without the edge masks
 * (the forward's NORM_AL_ROWS, norm_fwd.cuh: norm_ldrow_al, norm_ldw_al),
 * and the row's vector count a shift, not an offset's rounding.
 *
 * Why: the forward's aligned rungs (sixth session) took layernorm from
 * 0.37 to 0.92 of the copy at 32768 x 2048 by dropping the masks: their
 * instructions (a 64-bit column test, a branch and the masked path per
 * vector and access) take issue slots and registers that the loads need.
 * Here the masks sit on 4 accesses a vector (x, dy, w twice, dx); the
 * ptxas report (sm_90) shows what they cost in registers: regs_sm's
 * 16-byte spills at 80 registers and layernorm's 32-96.
 *
 * Expectation: the bytes in flight are the form's (VPT x 2 x 16 bytes of
 * x and dy a thread: 64 KiB a SM for regs, 96 KiB for regs_sm's 3 blocks
 * of 256 at 4 vectors), reached sooner after each team sum because the
 * loads are no longer behind the masks' instructions; a few % where the
 * form is near the copy (N <= 8192), more with clusters (16384-65536)
 * where issue slots and spills weigh. Unmeasured (docs/ladder.md,
 * seventh session).
 */
#include "norm_bwd.cuh"
#include "rmsnorm_bwd.h"

extern "C" sl_status sl_cuda_rmsnorm_bwd_aligned(const sl_args *a)
{
    return sl_cuda_rmsnorm_bwd_rung(a, NORM_BWD_ALIGNED, "aligned");
}
