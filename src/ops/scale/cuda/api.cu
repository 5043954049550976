/*
 * api.cu - what sl_scale() runs on a CUDA context: the vec rung, on every
 * architecture. With one input, the bulk rung's one 4 KiB tile per block
 * keeps 8 x 4 KiB = 32 KiB in flight per SM at full occupancy, under the
 * ~48 KiB knee of the H200's bandwidth-vs-bytes-in-flight curve
 * (docs/probes.md); vec keeps 64 KiB in flight per SM and measured
 * 1.002-1.017 x CUB where bulk measured 0.97-0.99 (docs/ladder.md, "copy
 * and scale").
 */
#include "scale.h"

extern "C" sl_status sl_cuda_scale_api(const sl_args *x)
{
    return sl_cuda_scale_vec(x);
}
