/*
 * sl_softmax's dispatch on a CUDA context: the register rung (08_regs:
 * x read once; a warp, a block or a cluster per row) wherever the row fits
 * a cluster's registers and x and y share their offset modulo 16 bytes;
 * otherwise the online rung (07: two passes, any length, 16-byte or
 * scalar loads). Both are safe in place (x == y): every element is read
 * before any element of its row is written (regs), or read and written by
 * the same thread (online).
 */
#include "softmax.cuh"

extern "C" sl_status sl_cuda_softmax_api(const sl_args *a)
{
    sl_status st = smx_check(a, "sl_softmax");
    if (st != SL_OK || a->shape.rows == 0 || a->shape.cols == 0)
        return st;
    regs_cfg c;
    if (sl_cuda_softmax_regs_fits(a, &c))
        return sl_cuda_softmax_regs_run(a, &c);
    return sl_cuda_softmax_online(a);
}
