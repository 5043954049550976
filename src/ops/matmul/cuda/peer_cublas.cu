/*
 * peer_cublas.cu - matmul's cuBLAS peers: cublasSgemm (f32, SIMT fp32),
 * cublasGemmEx with CUBLAS_COMPUTE_32F_FAST_TF32 (f32 inputs on TF32
 * tensor cores) and cublasGemmEx with bf16 / f16 A, B, C and
 * CUBLAS_COMPUTE_32F (fp32 accumulation). cuBLAS is column-major; a
 * row-major C = A B is the column-major C^T = B^T A^T, so the call passes
 * B first with n and m swapped and the same leading dimensions.
 */
#include <cublas_v2.h>

#include "cuda_check.h"
#include "mm.h"

static sl_status gemm(const sl_mm *p, bool tf32)
{
    const unsigned offered = tf32 ? 1u << SL_F32 : (1u << SL_F32) | (1u << SL_BF16) | (1u << SL_F16);
    if (!(offered & (1u << p->dtype)))
        return sl_fail(SL_ERR_UNSUPPORTED, "matmul %s: dtype %s not offered", tf32 ? "cublas_tf32" : "cublas",
                       sl_dtype_name(p->dtype));
    void *hv = NULL;
    sl_status st = sl_cuda_cublas_handle(&hv);
    if (st != SL_OK)
        return st;
    if (p->m > INT32_MAX || p->n > INT32_MAX || p->k > INT32_MAX || p->lda > INT32_MAX || p->ldb > INT32_MAX ||
        p->ldc > INT32_MAX)
        return sl_fail(SL_ERR_UNSUPPORTED, "matmul cublas: extents above 2^31-1");
    cublasHandle_t h = (cublasHandle_t)hv;
    const float al = (float)p->alpha, be = (float)p->beta;
    const int m = (int)p->m, n = (int)p->n, k = (int)p->k;
    cublasStatus_t cs = cublasSetStream(h, (cudaStream_t)p->stream);
    cublasPointerMode_t mode = CUBLAS_POINTER_MODE_HOST;
    if (cs == CUBLAS_STATUS_SUCCESS)
        cs = cublasGetPointerMode(h, &mode);
    if (cs == CUBLAS_STATUS_SUCCESS)
        cs = cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST);
    if (cs == CUBLAS_STATUS_SUCCESS) {
        if (p->dtype == SL_F32 && !tf32) {
            cs = cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &al, (const float *)p->b, (int)p->ldb,
                             (const float *)p->a, (int)p->lda, &be, (float *)p->c, (int)p->ldc);
        } else {
            cudaDataType_t t = p->dtype == SL_F32 ? CUDA_R_32F : p->dtype == SL_BF16 ? CUDA_R_16BF : CUDA_R_16F;
            cublasComputeType_t ct = tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
            cs = cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &al, p->b, t, (int)p->ldb, p->a, t,
                                  (int)p->lda, &be, p->c, t, (int)p->ldc, ct, CUBLAS_GEMM_DEFAULT);
        }
    }
    cublasSetPointerMode(h, mode);
    cublasSetStream(h, 0);
    if (cs != CUBLAS_STATUS_SUCCESS)
        return sl_fail(cs == CUBLAS_STATUS_NOT_SUPPORTED ? SL_ERR_UNSUPPORTED : SL_ERR_CUDA, "%s (%d) from cublas gemm",
                       sl_cublas_status_name(cs), (int)cs);
    return SL_OK;
}

extern "C" sl_status sl_cuda_mm_cublas(const sl_mm *p)
{
    return gemm(p, false);
}

extern "C" sl_status sl_cuda_mm_cublas_tf32(const sl_mm *p)
{
    return gemm(p, true);
}
