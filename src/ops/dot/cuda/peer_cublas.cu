/*
 * peer_cublas.cu - dot's cuBLAS peer: cublasSdot_64 / cublasDdot_64 with the
 * result in device memory (CUBLAS_POINTER_MODE_DEVICE), so the call does not
 * wait for the kernel, like every other variant.
 */
#include <cublas_v2.h>

#include "cuda_check.h"
#include "dot.h"

extern "C" sl_status sl_cuda_dot_cublas(const sl_args *x)
{
    void *hv = NULL;
    sl_status st = sl_cuda_cublas_handle(&hv);
    if (st != SL_OK)
        return st;
    cublasHandle_t h = (cublasHandle_t)hv;
    cublasStatus_t cs = cublasSetStream(h, (cudaStream_t)x->stream);
    cublasPointerMode_t mode = CUBLAS_POINTER_MODE_HOST;
    if (cs == CUBLAS_STATUS_SUCCESS)
        cs = cublasGetPointerMode(h, &mode);
    if (cs == CUBLAS_STATUS_SUCCESS)
        cs = cublasSetPointerMode(h, CUBLAS_POINTER_MODE_DEVICE);
    if (cs == CUBLAS_STATUS_SUCCESS) {
        if (x->dtype == SL_F64)
            cs = cublasDdot_64(h, (int64_t)x->n, (const double *)x->buf[0], 1, (const double *)x->buf[1], 1,
                               (double *)x->buf[2]);
        else if (x->dtype == SL_F32)
            cs = cublasSdot_64(h, (int64_t)x->n, (const float *)x->buf[0], 1, (const float *)x->buf[1], 1,
                               (float *)x->buf[2]);
        else
            cs = CUBLAS_STATUS_NOT_SUPPORTED;
    }
    /* leave the shared handle as the next caller expects it */
    cublasSetPointerMode(h, mode);
    cublasSetStream(h, 0);
    if (cs != CUBLAS_STATUS_SUCCESS)
        return sl_fail(cs == CUBLAS_STATUS_NOT_SUPPORTED ? SL_ERR_UNSUPPORTED : SL_ERR_CUDA, "%s (%d) from cublas dot",
                       sl_cublas_status_name(cs), (int)cs);
    return SL_OK;
}
