/*
 * sl_softmax_bwd's dispatch on a CUDA context: the register rung (03:
 * y and dy read once) wherever the row fits a cluster's registers and y,
 * dy and dx share their offset modulo 16 bytes; else the 16-byte two-pass
 * rung (02) for aligned matrices, else the scalar two-pass rung (01).
 * All three are safe in place (dx = dy or dx = y).
 */
#include "sbwd.cuh"

extern "C" sl_status sl_cuda_softmax_bwd_api(const sl_args *a)
{
    sl_status st = sbwd_check(a, "sl_softmax_bwd");
    if (st != SL_OK || a->shape.rows == 0 || a->shape.cols == 0)
        return st;
    sbwd_cfg c;
    if (sl_cuda_softmax_bwd_regs_fits(a, &c))
        return sl_cuda_softmax_bwd_regs_run(a, &c);
    return sl_cuda_softmax_bwd_vec(a);
}
