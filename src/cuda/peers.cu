/*
 * peers.cu - the library we measure ourselves against, on the same buffers
 * in the same run: CUB's DeviceTransform (CCCL), which on sm_90 stages tiles
 * through shared memory with bulk copies and elsewhere prefetches.
 */
#include <cub/device/device_transform.cuh>
#include <cuda/std/functional>
#include <cuda/std/tuple>

#include "common.cuh"

extern "C" sl_status sl_cuda_peer_cub_add(const sl_args *x)
{
    if (x->dtype != SL_F32)
        return sl_fail(SL_ERR_UNSUPPORTED, "cub: dtype %s not wired up", sl_dtype_name(x->dtype));
    if (x->n == 0)
        return SL_OK;
    const float *a = (const float *)x->a;
    const float *b = (const float *)x->b;
    float *c = (float *)x->c;
    /* int64 item count: CUB picks 64-bit offsets when n >= 2^31. */
    SL_CUDA_TRY(cub::DeviceTransform::Transform(::cuda::std::make_tuple(a, b), c, (int64_t)x->n,
                                                ::cuda::std::plus<float>{}, (cudaStream_t)x->stream));
    SL_CUDA_LAUNCHED();
    return SL_OK;
}
