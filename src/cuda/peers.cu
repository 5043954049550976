/*
 * peers.cu - the libraries we measure ourselves against, on the same
 * buffers in the same run:
 *   add:  CUB's DeviceTransform (CCCL), which on sm_90 stages tiles through
 *         shared memory with bulk copies and elsewhere prefetches; for
 *         f16/bf16/fp8 it gets the same fp32-compute functor our rungs use.
 *   axpy: cuBLAS, cublasSaxpy_v2_64 for f32 and cublasAxpyEx_64 (fp32
 *         compute) for f16 and bf16 (issue 6; DESIGN.md peer table).
 */
#include <cub/device/device_transform.cuh>
#include <cuda/std/tuple>

#include <cublas_v2.h>

#include "elementwise.cuh"

/* CUB calls this per element: widen, add in fp32, narrow (RNE, saturating
 * for fp8), as every rung does. */
template <int DT> struct cub_add {
    typedef typename sl_dt<DT>::raw raw;
    __device__ raw operator()(raw a, raw b) const
    {
        return sl_dt<DT>::store(sl_dt<DT>::load(a) + sl_dt<DT>::load(b));
    }
};

template <int DT> struct rung_cub {
    static sl_status launch(const sl_args *x)
    {
        typedef typename sl_dt<DT>::raw raw;
        const raw *a = (const raw *)x->a, *b = (const raw *)x->b;
        raw *c = (raw *)x->c;
        /* int64 item count: CUB picks 64-bit offsets when n >= 2^31. */
        SL_CUDA_TRY(cub::DeviceTransform::Transform(::cuda::std::make_tuple(a, b), c, (int64_t)x->n, cub_add<DT>{},
                                                    (cudaStream_t)x->stream));
        SL_CUDA_LAUNCHED();
        return SL_OK;
    }
};

extern "C" sl_status sl_cuda_peer_cub_add(const sl_args *x)
{
    if (x->n == 0)
        return SL_OK;
    switch (x->dtype) {
    case SL_F32: return rung_cub<SL_F32>::launch(x);
    case SL_F16: return rung_cub<SL_F16>::launch(x);
    case SL_BF16: return rung_cub<SL_BF16>::launch(x);
    case SL_FP8_E4M3: return rung_cub<SL_FP8_E4M3>::launch(x);
    case SL_FP8_E5M2: return rung_cub<SL_FP8_E5M2>::launch(x);
    default: return sl_fail(SL_ERR_UNSUPPORTED, "cub: dtype %d", (int)x->dtype);
    }
}

/* ---- cuBLAS ---------------------------------------------------------------
 * One handle per device, created on first use (outside any timed region:
 * the harness verifies every variant before it times it) and kept while any
 * streamlab context lives, as an application would; the last context's
 * destruction releases them (sl_cuda_peers_release). */
static cublasHandle_t handles[SL_MAX_DEVICES];

extern "C" void sl_cuda_peers_release(void)
{
    int cur = -1;
    if (cudaGetDevice(&cur) != cudaSuccess)
        cur = -1;
    for (int d = 0; d < SL_MAX_DEVICES; d++) {
        if (handles[d]) {
            /* cublasDestroy frees on the handle's device. */
            if (cudaSetDevice(d) == cudaSuccess)
                cublasDestroy(handles[d]);
            handles[d] = NULL;
        }
    }
    if (cur >= 0)
        cudaSetDevice(cur);
    (void)cudaGetLastError();
}

static const char *cublas_status_name(cublasStatus_t s)
{
    switch (s) {
    case CUBLAS_STATUS_SUCCESS: return "CUBLAS_STATUS_SUCCESS";
    case CUBLAS_STATUS_NOT_INITIALIZED: return "CUBLAS_STATUS_NOT_INITIALIZED";
    case CUBLAS_STATUS_ALLOC_FAILED: return "CUBLAS_STATUS_ALLOC_FAILED";
    case CUBLAS_STATUS_INVALID_VALUE: return "CUBLAS_STATUS_INVALID_VALUE";
    case CUBLAS_STATUS_ARCH_MISMATCH: return "CUBLAS_STATUS_ARCH_MISMATCH";
    case CUBLAS_STATUS_EXECUTION_FAILED: return "CUBLAS_STATUS_EXECUTION_FAILED";
    case CUBLAS_STATUS_NOT_SUPPORTED: return "CUBLAS_STATUS_NOT_SUPPORTED";
    default: return "cuBLAS error";
    }
}

#define SL_CUBLAS_TRY(expr)                                                                                    \
    do {                                                                                                       \
        cublasStatus_t s_ = (expr);                                                                            \
        if (s_ != CUBLAS_STATUS_SUCCESS)                                                                       \
            return sl_fail(s_ == CUBLAS_STATUS_NOT_SUPPORTED ? SL_ERR_UNSUPPORTED : SL_ERR_CUDA, "%s (%d) from %s", \
                           cublas_status_name(s_), (int)s_, #expr);                                            \
    } while (0)

static sl_status cublas_handle(cublasHandle_t *out)
{
    int dev = 0;
    SL_CUDA_TRY(cudaGetDevice(&dev));
    if (dev < 0 || dev >= SL_MAX_DEVICES)
        return sl_fail(SL_ERR_BAD_DEVICE, "cuBLAS peer: device %d out of range", dev);
    if (!handles[dev])
        SL_CUBLAS_TRY(cublasCreate(&handles[dev]));
    *out = handles[dev];
    return SL_OK;
}

extern "C" sl_status sl_cuda_peer_cublas_axpy(const sl_args *x)
{
    if (x->n == 0)
        return SL_OK;
    cublasHandle_t h = NULL;
    sl_status st = cublas_handle(&h);
    if (st != SL_OK)
        return st;
    SL_CUBLAS_TRY(cublasSetStream(h, (cudaStream_t)x->stream));
    const float alpha = x->alpha;
    const int64_t n = (int64_t)x->n;
    cublasStatus_t cs;
    switch (x->dtype) {
    case SL_F32: cs = cublasSaxpy_64(h, n, &alpha, (const float *)x->a, 1, (float *)x->c, 1); break;
    case SL_F16:
        cs = cublasAxpyEx_64(h, n, &alpha, CUDA_R_32F, x->a, CUDA_R_16F, 1, x->c, CUDA_R_16F, 1, CUDA_R_32F);
        break;
    case SL_BF16:
        cs = cublasAxpyEx_64(h, n, &alpha, CUDA_R_32F, x->a, CUDA_R_16BF, 1, x->c, CUDA_R_16BF, 1, CUDA_R_32F);
        break;
    default: cublasSetStream(h, 0); return sl_fail(SL_ERR_UNSUPPORTED, "cuBLAS axpy: no %s", sl_dtype_name(x->dtype));
    }
    /* Unbind the caller's stream: the handle outlives it (a context's stream
     * is destroyed before the last context releases the handles). */
    cublasSetStream(h, 0);
    SL_CUBLAS_TRY(cs);
    return SL_OK;
}
