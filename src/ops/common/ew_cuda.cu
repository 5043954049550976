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

/* The public functions' dispatch, for every dtype: the bulk-copy rung on
 * sm_90+, the 16-byte vector rung before (bulk copies need Hopper; vec was
 * the best LDG rung on the H200, within 1% of bulk), and the vector rung
 * too when the binary carries no sm_90 code (bulk declines with
 * SL_ERR_UNSUPPORTED). Both fall back to the scalar kernel when the arrays
 * differ modulo 16 bytes. The choice follows docs/ladder.md ("sl_add
 * dispatch", "sl_axpy dispatch"). */
extern "C" sl_status sl_ew_cuda_dispatch(const sl_args *x, sl_launch_fn bulk, sl_launch_fn vec)
{
    int cc;
    sl_status st = sl_cuda_current_cc(&cc);
    if (st != SL_OK)
        return st;
    if (cc >= 90) {
        st = bulk(x);
        if (st != SL_ERR_UNSUPPORTED)
            return st;
    }
    return vec(x);
}
