/*
 * sl_softmax's dispatch on a CUDA context: the register rung (08_regs:
 * x read once; a warp, a block or a cluster per row) wherever the row fits
 * a cluster's registers and x and y share their offset modulo 16 bytes;
 * otherwise the online rung (07: two passes, any length, 16-byte or
 * scalar loads). Both are safe in place (x == y): every element is read
 * before any element of its row is written (regs), or read and written by
 * the same thread (online). But first, 16-bit rows of 128 KiB and more,
 * and f32 rows over 128 KiB, take rung 10's bulk_ex (the row in shared
 * memory with the one-sided cluster exchange, sm_90, aligned rows; it
 * refuses the rest; sl_cuda_row_bulk_ex_pick, common/row.cuh). Rung 9's
 * bulk, which these rows took before, had measured on an H100, of copy_k's
 * bandwidth, 0.939 / 0.809 at 128 x 131072 f32 / bf16 against regs' 0.868
 * / 0.545, 1.029 at 16384 x 131072 f32 against 0.973, and at 32768 columns
 * regs ahead at 128 rows (0.799 / 0.740 against 0.750 / 0.658;
 * bench/results/h100-softmax-bulk-2026-11-26p.md). bulk_ex on an H200, bf16, 1.19x /
 * 1.17x bulk's speed at 128 / 16384 x 131072
 * (bench/results/h200-ab-rowex-2026-11-27c.md), and at 65536 columns 1.15x
 * / 1.16x / 1.13x the regs pick's at 128 / 4096 / 16384 rows
 * (bench/results/h200-rowpick-2026-11-27.md); f32 1.13-1.18x bulk's speed
 * at 65536 columns, 1.04x / 1.15x at 128 / 4096 x 131072
 * (h200-rowpick-f32-2026-11-27.md).
 */
#include "softmax.cuh"

extern "C" sl_status sl_cuda_softmax_api(const sl_args *a)
{
    sl_status st = smx_check(a, "sl_softmax");
    if (st != SL_OK || a->shape.rows == 0 || a->shape.cols == 0)
        return st;
    if (sl_cuda_row_bulk_ex_pick(a->dtype, a->shape.cols)) {
        st = sl_cuda_softmax_bulk_ex(a);
        if (st != SL_ERR_UNSUPPORTED)
            return st;
    }
    regs_cfg c;
    if (sl_cuda_softmax_regs_fits(a, &c))
        return sl_cuda_softmax_regs_run(a, &c);
    return sl_cuda_softmax_online(a);
}
