/*
 * sl_softmax_bwd's dispatch on a CUDA context: for f32, the register rung
 * (03: y and dy read once) wherever the row fits a cluster's registers
 * and y, dy and dx share their offset modulo 16 bytes; then (bf16 / f16,
 * and f32 rows beyond the registers) the bulk_ex rung (05: the row staged
 * in shared memory, read once, with the one-sided cluster exchange; sm_90,
 * 16-byte aligned rows of whole vectors, up to 8 x 64 KiB of each input).
 * bulk (04) measured 1.05-1.09 of the copy at 4096 x 2^15 and 16384 x 2^17
 * bf16 on the H100 where the two-pass rung gave 1.07 and 0.66
 * (docs/ladder.md, "The bulk rungs"); bulk_ex then measured 1.08x / 1.10x
 * bulk at those two shapes on an H200 (1.126 / 1.110 of copy_k against
 * 1.043 / 1.004), level at 16384 x 2^14, and 1.05x bulk in f32 at
 * 4096 x 2^15 (bench/results/h200-bwd-picks-2026-11-27.md). f32 rows
 * over 8 x 36 KiB (73729-131072 columns) take bulk_ex's chunks of up to
 * 64 + 64 KiB (past 3592 vectors, clusters of 16 of half that: the
 * seventeenth session) before the register rung (fourteenth session;
 * docs/ladder.md), and the register rung where bulk_ex refuses
 * them (a build without sm_90 code). Else the
 * 16-byte two-pass rung (02) for aligned matrices; else the scalar
 * two-pass rung (01). Every one of these is
 * safe in place (dx = dy or dx = y). Why 16-bit takes the two-pass rung:
 * the second H200 run (docs/ladder.md, "softmax backward") measured it
 * ahead of the register rung at every bf16 shape (0.90 / 0.99 / 0.67 of
 * the copy against 0.85 / 0.89 / 0.64 at 4096 x 2^15, 16384 x 2^14,
 * 16384 x 2^17): the register rung holds 16 elements a thread (4 loads in
 * flight) in 16-bit, where 32 spilled under the 64-register cap.
 */
#include "sbwd.cuh"

extern "C" sl_status sl_cuda_softmax_bwd_api(const sl_args *a)
{
    sl_status st = sbwd_check(a, "sl_softmax_bwd");
    if (st != SL_OK || a->shape.rows == 0 || a->shape.cols == 0)
        return st;
    sbwd_cfg c;
    const bool regs = a->dtype == SL_F32 && sl_cuda_softmax_bwd_regs_fits(a, &c);
    /* f32 rows of up to 8 chunks of bulk's largest: regs first */
    if (regs && a->shape.cols * 4u <= 8u * 16u * SK_MAXV)
        return sl_cuda_softmax_bwd_regs_run(a, &c);
    if (sl_cuda_softmax_bwd_bulk_ex_fits(a)) {
        st = sl_cuda_softmax_bwd_bulk_ex_run(a); /* refuses only without sm_90 code */
        if (st != SL_ERR_UNSUPPORTED)
            return st;
    }
    return regs ? sl_cuda_softmax_bwd_regs_run(a, &c) : sl_cuda_softmax_bwd_vec(a);
}
