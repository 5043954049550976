/*
 * peer_cublas.cu - axpy's peer: cuBLAS, cublasSaxpy_64 (f32),
 * cublasDaxpy_64 (f64) and cublasAxpyEx_64 with fp32 compute (f16, bf16),
 * on the handle the backend keeps per device (src/cuda/libs.c).
 */
#include <cublas_v2.h>

#include "axpy.h"
#include "cuda_check.h"

#define SL_CUBLAS_TRY(expr)                                                                                    \
    do {                                                                                                       \
        cublasStatus_t s_ = (expr);                                                                            \
        if (s_ != CUBLAS_STATUS_SUCCESS)                                                                       \
            return sl_fail(s_ == CUBLAS_STATUS_NOT_SUPPORTED ? SL_ERR_UNSUPPORTED : SL_ERR_CUDA, "%s (%d) from %s", \
                           sl_cublas_status_name(s_), (int)s_, #expr);                                         \
    } while (0)

extern "C" sl_status sl_cuda_axpy_cublas(const sl_args *x)
{
    if (x->n == 0)
        return SL_OK;
    void *hv = NULL;
    sl_status st = sl_cuda_cublas_handle(&hv);
    if (st != SL_OK)
        return st;
    cublasHandle_t h = (cublasHandle_t)hv;
    SL_CUBLAS_TRY(cublasSetStream(h, (cudaStream_t)x->stream));
    const float alpha = (float)x->scalar[0];
    const double alpha_d = x->scalar[0];
    const int64_t n = (int64_t)x->n;
    const void *xp = x->buf[0];
    void *yp = x->buf[1];
    cublasStatus_t cs;
    switch (x->dtype) {
    case SL_F32: cs = cublasSaxpy_64(h, n, &alpha, (const float *)xp, 1, (float *)yp, 1); break;
    case SL_F64: cs = cublasDaxpy_64(h, n, &alpha_d, (const double *)xp, 1, (double *)yp, 1); break;
    case SL_F16: cs = cublasAxpyEx_64(h, n, &alpha, CUDA_R_32F, xp, CUDA_R_16F, 1, yp, CUDA_R_16F, 1, CUDA_R_32F); break;
    case SL_BF16:
        cs = cublasAxpyEx_64(h, n, &alpha, CUDA_R_32F, xp, CUDA_R_16BF, 1, yp, CUDA_R_16BF, 1, CUDA_R_32F);
        break;
    default: cublasSetStream(h, 0); return sl_fail(SL_ERR_UNSUPPORTED, "cuBLAS axpy: no %s", sl_dtype_name(x->dtype));
    }
    /* Unbind the caller's stream: the handle outlives it (a context's stream
     * is destroyed before the last context releases the handles). */
    cublasSetStream(h, 0);
    SL_CUBLAS_TRY(cs);
    return SL_OK;
}
