/*
 * api.cu - what sl_nstream() runs on a CUDA context. In f64 the naive rung:
 * one 8-byte element per input per thread keeps 3 x 8 B x 2048 threads =
 * 48 KiB in flight per SM, at the knee of the H200's bandwidth-vs-bytes-in-
 * flight curve, and in two runs it was the fastest nstream kernel at 2^28
 * (1.002 and 1.001 x CUB; bulk 1.001 and 0.999; docs/ladder.md, "nstream").
 * Otherwise the elementwise dispatch: bulk on sm_90+, vec before.
 */
#include "nstream.h"

extern "C" sl_status sl_cuda_nstream_api(const sl_args *x)
{
    if (x->dtype == SL_F64)
        return sl_cuda_nstream_naive(x);
    return sl_ew_cuda_dispatch(x, sl_cuda_nstream_bulk, sl_cuda_nstream_vec);
}
