/*
 * rmsnorm rung 3 (the best): the row held in registers and read once, as
 * raw 16-byte vectors (row.cuh's virtual vectors: any offset, x and y at
 * the same one). The team per row follows the row's length:
 *   - a warp per row, 8 rows per 256-thread block, 1-8 vectors a thread:
 *     rows up to 256 vectors (2048 bf16 / f16, 1024 f32 elements), the
 *     "several rows per block" of short rows, no shared memory;
 *   - a block of 256 threads per row, 2-8 vectors a thread: up to 2048
 *     vectors (16384 bf16);
 *   - a cluster of 2, 4 or 8 such blocks per row (sm_90+), each holding a
 *     slice, the blocks' sums exchanged once through distributed shared
 *     memory: up to 16384 vectors (131072 bf16, 65536 f32).
 * The weight is read per vector from L1 / L2 (16-byte loads where it
 * shares the row's offset). rstd is written by the team's first thread.
 *
 * Expectation: x read once (the block rung read it twice) and 16 bytes per
 * load, VPT loads in flight per thread before the first use: at 256
 * threads and 8 vectors, 32 KiB per block, and with 64 registers 4 blocks
 * per SM, 128 KiB in flight per SM, three times Little's law's ~40 KiB. So
 * at the copy ceiling at DRAM shapes (M = 32768 rows: 64 MiB at N = 1024
 * bf16, 4 GiB at 65536); the reduction between the read and the write
 * phase is hidden by the SM's other blocks. Decode shapes (M = 1..64) are
 * one DRAM round trip plus the launch: ~2 us.
 */
#include "regs.cuh"

/* regs.cuh says why this is the only definition. */
bool rms_regs_fits(const sl_args *a, int pf, rms_cfg *c)
{
    return norm_fwd_fits<NORM_RMS>(a, SL_RMS_X, SL_RMS_Y, SL_RMS_W, pf, c);
}

/* For the API: aligned rows (every buffer on 16 bytes, whole vectors)
 * of more than 2048 vectors (bf16 N > 16384) bulk (10_bulk.cu, the row in
 * shared memory: on an H200 0.950 / 0.916 / 0.897 of the copy at 8192 x
 * 32768 / 65536 and 4096 x 131072 against regs_pf's 0.893 and aligned's
 * 0.840 / 0.820; h200-norms-bulk-2026-11-26o.md), for bf16 / f16 bulk_ex
 * since the tenth session (11_bulk_ex.cu, the one-sided cluster exchange:
 * 0.955 / 0.957 against bulk's 0.948 / 0.917 at 8192 x 32768 / 65536,
 * h200-ab-norms-2026-11-27b.md; bulk for rows beyond its 8 chunks); of 257-512 vectors decode at any row count, and of 513-1024 where the
 * rows are fewer than the SMs (08_decode.cu; measured at 512: on an H200
 * 0.988 of the copy at 32768 x 4096 against lean's 0.948 and aligned's
 * 0.967; 2.30-3.08 us at 1-64 rows, h200-norms-aligned-2026-11-26h.md),
 * other aligned rows aligned (09_aligned.cu, the teams without the masks:
 * 0.938 / 0.943 / 0.984 / 0.830 of the copy at 32768 x 1024 / 2048 /
 * 16384 and 8192 x 65536 against the earlier picks' 0.897 / 0.912 / 0.969
 * / 0.810), except at 2049-4096 vectors (N = 32768 bf16), unmeasured,
 * where regs_pf stays (h200-norms-aligned2-2026-11-26j.md). Otherwise, as before: rows of 2049-4096 vectors (bf16 / f16 N = 32768) at 1024
 * rows and more take regs_pf's block of 512 (second H200 call, bf16: 0.904
 * of the copy against regs' cluster of 2 at 0.806; elsewhere regs_pf was
 * slower: docs/ladder.md); the warp teams (up to 256 vectors) regs; longer
 * rows lean (06_lean.cu: the same teams, fewer barriers, more blocks a
 * SM); else the block rung. */
extern "C" sl_status sl_cuda_rmsnorm_api(const sl_args *a)
{
    sl_status st = sl_norm_check(a, SL_RMS_W, "rmsnorm", "sl_rmsnorm_fwd");
    if (st != SL_OK || a->shape.rows == 0 || a->shape.cols == 0)
        return st;
    rms_cfg c;
    const uint64_t nvv = norm_fwd_nvv(a, SL_RMS_X); /* as rms_regs_fits */
    if (nvv > 256 && (nvv <= 512 || a->shape.rows < (uint64_t)norm_sms()) && rms_regs_fits(a, NORM_FWD_DECODE, &c))
        return rms_regs_launch(a, &c);
    if (nvv > 2048 && norm_fwd_aligned(a)) { /* bulk_ex for 16-bit rows, else bulk; each refuses rows beyond 8 chunks
                                                 and builds without sm_90 */
        st = norm_fwd_bulk_pick(a, sl_cuda_rmsnorm_bulk_ex, sl_cuda_rmsnorm_bulk);
        if (st != SL_ERR_UNSUPPORTED)
            return st;
    }
    if ((nvv <= 2048 || nvv > 4096) && rms_regs_fits(a, NORM_FWD_ALIGNED, &c))
        return rms_regs_launch(a, &c);
    if (nvv > 2048 && nvv <= 4096 && a->shape.rows >= 1024 && rms_regs_fits(a, NORM_FWD_PF, &c))
        return rms_regs_launch(a, &c);
    if (rms_regs_fits(a, nvv > 256 ? NORM_FWD_LEAN : NORM_FWD_REGS, &c))
        return rms_regs_launch(a, &c);
    return sl_cuda_rmsnorm_block(a);
}

extern "C" sl_status sl_cuda_rmsnorm_regs(const sl_args *a)
{
    return rms_regs_rung(a, NORM_FWD_REGS, "regs");
}
