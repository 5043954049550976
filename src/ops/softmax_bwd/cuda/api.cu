/*
 * sl_softmax_bwd's dispatch on a CUDA context:
 *   - f32 rows under 128 KiB (cols < 32768): the register rung (03: y and
 *     dy read once) wherever the row fits a cluster's registers and y, dy
 *     and dx share their offset modulo 16 bytes;
 *   - then every row the bulk_ex rung takes (05: the row staged in shared
 *     memory, read once, with the one-sided cluster exchange; sm_90,
 *     16-byte aligned rows of whole vectors, up to 8 x 64 KiB of each
 *     input, clusters of 16 past 3592 vectors a chunk);
 *   - then the register rung where bulk_ex refuses (a build without sm_90
 *     code); else the 16-byte two-pass rung (02) for aligned matrices;
 *     else the scalar two-pass rung (01).
 * Every one of these is safe in place (dx = dy or dx = y).
 *
 * Why (H200, event timing, fraction of copy_k in one process; docs/ladder.md,
 * "softmax backward"):
 *   - 16-bit: bulk_ex 1.126 / 1.120 / 1.110 at 4096 x 2^15, 16384 x 2^14,
 *     16384 x 2^17 against bulk's 1.043 / 1.113 / 1.004; the register rung
 *     holds 16 elements a thread in 16-bit (4 loads in flight) and ran
 *     0.85-0.89 (bench/results/h200-bwd-picks-2026-11-27.md).
 *   - f32: level at 16384 x 2^14 (regs 0.7478 ms, bulk_ex 0.7477); bulk_ex
 *     ahead from 128 KiB rows: 1.016x regs at 4096 x 2^15 and 1.064x at
 *     4096 x 2^16 (eighteenth session); 1.05x at 4096 x 2^17 on an H100.
 */
#include "sbwd.cuh"

extern "C" sl_status sl_cuda_softmax_bwd_api(const sl_args *a)
{
    sl_status st = sbwd_check(a, "sl_softmax_bwd");
    if (st != SL_OK || a->shape.rows == 0 || a->shape.cols == 0)
        return st;
    sbwd_cfg c;
    const bool regs = a->dtype == SL_F32 && sl_cuda_softmax_bwd_regs_fits(a, &c);
    /* f32 rows under 128 KiB: regs first (SBWD_F32_EX_FROM) */
    if (regs && a->shape.cols * 4u < SBWD_F32_EX_FROM)
        return sl_cuda_softmax_bwd_regs_run(a, &c);
    if (sl_cuda_softmax_bwd_bulk_ex_fits(a)) {
        st = sl_cuda_softmax_bwd_bulk_ex_run(a); /* refuses only without sm_90 code */
        if (st != SL_ERR_UNSUPPORTED)
            return st;
    }
    return regs ? sl_cuda_softmax_bwd_regs_run(a, &c) : sl_cuda_softmax_bwd_vec(a);
}
