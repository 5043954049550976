/*
 * peer_cub.cu - dot's CUB peer: cub::DeviceReduce::TransformReduce over the
 * element indices, each mapped to the fp64 product a[i] * b[i], summed in
 * fp64 (init 0.0) and rounded into the output's dtype on CUB's final store:
 * the same numerics as our rungs, CUB's reduction (its own grid, two
 * kernels). Its temporary storage is the variant's workspace.
 */
#include <cub/device/device_reduce.cuh>
#include <thrust/iterator/counting_iterator.h>

#include "dot.h"
#include "common.cuh"

template <class T> struct product_at {
    const T *a, *b;
    __device__ double operator()(int64_t i) const { return (double)a[i] * (double)b[i]; }
};

template <class T> static cudaError_t reduce(void *tmp, size_t *bytes, const T *a, const T *b, T *r, int64_t n,
                                            cudaStream_t s)
{
    return cub::DeviceReduce::TransformReduce(tmp, *bytes, thrust::counting_iterator<int64_t>(0), r, n,
                                              ::cuda::std::plus<double>(), product_at<T>{a, b}, 0.0, s);
}

extern "C" size_t sl_cuda_dot_cub_workspace(sl_dtype dt, uint64_t n)
{
    size_t bytes = 0;
    if (dt == SL_F64)
        reduce<double>(NULL, &bytes, NULL, NULL, NULL, (int64_t)n, 0);
    else
        reduce<float>(NULL, &bytes, NULL, NULL, NULL, (int64_t)n, 0);
    return bytes ? bytes : 1;
}

extern "C" sl_status sl_cuda_dot_cub(const sl_args *x)
{
    size_t bytes = x->workspace_bytes;
    cudaError_t e;
    if (x->dtype == SL_F64)
        e = reduce<double>(x->workspace, &bytes, (const double *)x->buf[0], (const double *)x->buf[1],
                           (double *)x->buf[2], (int64_t)x->n, (cudaStream_t)x->stream);
    else if (x->dtype == SL_F32)
        e = reduce<float>(x->workspace, &bytes, (const float *)x->buf[0], (const float *)x->buf[1],
                          (float *)x->buf[2], (int64_t)x->n, (cudaStream_t)x->stream);
    else
        return sl_fail(SL_ERR_UNSUPPORTED, "cub dot: no %s", sl_dtype_name(x->dtype));
    SL_CUDA_TRY(e);
    SL_CUDA_LAUNCHED();
    return SL_OK;
}
