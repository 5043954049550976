/*
 * ew_cuda.cu - the CUDA pieces every elementwise op shares: the copy
 * ceiling, and the public functions' dispatch.
 */
#include "elementwise.cuh"

/* The copy ceiling: cudaMemcpyAsync device to device of the op's first
 * input (its first IN buffer: nstream's b, not its in-place a) into its
 * output, n elements: n x size bytes in and n x size out. */
extern "C" sl_status sl_cuda_ceiling_copy(const sl_args *x)
{
    if (x->n == 0)
        return SL_OK;
    const void *in[SL_MAX_BUFS];
    void *out = NULL;
    sl_ew_bind(x, in, 1, &out);
    const int first_in = sl_op_first(x->op, SL_ROLE_IN);
    const void *src = first_in >= 0 ? x->buf[first_in] : in[0];
    if (src == out)
        return SL_OK;
    SL_CUDA_TRY(cudaMemcpyAsync(out, src, x->n * sl_dtype_size(x->dtype), cudaMemcpyDeviceToDevice,
                                (cudaStream_t)x->stream));
    return SL_OK;
}

/* The L2's size of the current device, cached per device (the dispatch
 * runs on every public call: no driver query after the first). */
static sl_status current_l2_bytes(size_t *out)
{
    static long long cached[SL_MAX_DEVICES];
    int dev;
    SL_CUDA_TRY(cudaGetDevice(&dev));
    long long v = dev >= 0 && dev < SL_MAX_DEVICES ? __atomic_load_n(&cached[dev], __ATOMIC_RELAXED) : 0;
    if (v == 0) {
        int l2 = 0;
        SL_CUDA_TRY(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
        v = l2 > 0 ? l2 : -1;
        if (dev >= 0 && dev < SL_MAX_DEVICES)
            __atomic_store_n(&cached[dev], v, __ATOMIC_RELAXED);
    }
    *out = v > 0 ? (size_t)v : 0;
    return SL_OK;
}

/* ---- the public functions' dispatch: THE table -------------------------------
 *
 * One table for every elementwise op and dtype (issue 17). Rows are tried
 * in order; the first whose condition holds and whose rung the op has
 * runs. W = the launch's traffic (sl_op_traffic: bytes read + written),
 * L2 = the device's L2 size (cudaDevAttrL2CacheSize, cached per device).
 *
 * | row | condition                  | rung                                | measured on the H200 (docs/ladder.md, "issue 17") |
 * |-----|----------------------------|-------------------------------------|---------------------------------------------------|
 * | 1   | W <= L2 / 2, op has small  | small: one 16-byte LDG per input    | f32 add 2^18..2^21 warm 1.09-1.19 x CUB (direct   |
 * |     |                            | per thread (vec): shortest launch,  | launch), cold 1.01-1.04; also n <= 2^16: no smem, |
 * |     |                            | no shared memory, no mbarrier       | no bulk-copy round trip                           |
 * | 2   | W <= L2, op has l2         | l2: block tile, 4 x 16-byte LDG     | f32 add 2^22 warm: 1.035 x CUB (vec 0.997,        |
 * |     |                            | per input per thread (tile4)        | bulk 1.005)                                       |
 * | 3   | sm_90+, sm_90 code, op has | bulk: cp.async.bulk tiles through   | DRAM sizes: 0.99-1.00 x CUB (CUB takes the same   |
 * |     | bulk                       | shared memory                       | route, "ublkcp")                                  |
 * | 4   | always                     | vec                                 | before Hopper; ops whose bulk rung loses (copy,   |
 * |     |                            |                                     | scale: one input stream)                          |
 *
 * Alignment is not a row: every rung above takes any element-aligned
 * pointers at full speed. When an input differs from the output modulo 16
 * bytes the stores stay 16-byte aligned on the output and the input is
 * realigned from aligned 16-byte loads (sl_ew_split, sl_funnel16): from
 * shared memory in bulk, from two LDG.128 in small, l2 and vec. */
extern "C" sl_status sl_ew_cuda_dispatch_table(const sl_args *x, const sl_ew_api_rungs *r)
{
    if ((r->small || r->l2) && x->n > 0) {
        size_t l2 = 0;
        sl_status st = current_l2_bytes(&l2);
        if (st != SL_OK)
            return st;
        const sl_traffic t = sl_op_traffic(x->op, &x->shape, x->dtype, x->out_dtype);
        const double w = t.rd_bytes + t.wr_bytes;
        if (r->small && w <= 0.5 * (double)l2)
            return r->small(x);
        if (r->l2 && w <= (double)l2)
            return r->l2(x);
    }
    if (r->bulk) {
        int cc;
        sl_status st = sl_cuda_current_cc(&cc);
        if (st != SL_OK)
            return st;
        if (cc >= 90) {
            st = r->bulk(x);
            if (st != SL_ERR_UNSUPPORTED) /* a binary without sm_90 code declines: row 4 */
                return st;
        }
    }
    return r->vec(x);
}

extern "C" sl_status sl_ew_cuda_dispatch(const sl_args *x, sl_launch_fn bulk, sl_launch_fn vec)
{
    const sl_ew_api_rungs r = {vec, NULL, bulk, vec};
    return sl_ew_cuda_dispatch_table(x, &r);
}
