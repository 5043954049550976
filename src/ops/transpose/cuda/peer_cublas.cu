/*
 * peer_cublas.cu - transpose's cuBLAS peer: cublasSgeam / cublasDgeam,
 * C = alpha op(A) + beta op(B) with op(A) = A^T, alpha = 1, beta = 0.
 *
 * cuBLAS is column-major: our row-major rows x cols input with row stride
 * ld is, to cuBLAS, a cols x rows matrix A with lda = ld; our cols x rows
 * row-major output is an m x n = rows x cols column-major C with
 * ldc = rows. B is passed as C itself with ldb = ldc and transb = N, the
 * in-place form the cuBLAS documentation allows for geam ("C = B, ldb =
 * ldc, transb = CUBLAS_OP_N"); with beta = 0 its contents do not enter
 * the result (the harness poisons C with NaN first, so a read of B would
 * show as a mismatch). f32 and f64 only: cuBLAS has no 2-byte geam.
 * Dimensions and leading dimensions must fit an int.
 */
#include <cublas_v2.h>

#include <limits.h>

#include "cuda_check.h"
#include "transpose.h"

extern "C" sl_status sl_cuda_transpose_cublas(const sl_args *x)
{
    const uint64_t rows = x->shape.rows, cols = x->shape.cols, ld = x->shape.ld;
    if (rows == 0 || cols == 0)
        return SL_OK;
    if (rows > INT_MAX || cols > INT_MAX || ld > INT_MAX)
        return sl_fail(SL_ERR_UNSUPPORTED, "cublas geam: %llu x %llu (ld %llu) does not fit cuBLAS's int dimensions",
                       (unsigned long long)rows, (unsigned long long)cols, (unsigned long long)ld);
    void *hv = NULL;
    sl_status st = sl_cuda_cublas_handle(&hv);
    if (st != SL_OK)
        return st;
    cublasHandle_t h = (cublasHandle_t)hv;
    const int m = (int)rows, n = (int)cols, lda = (int)ld, ldc = (int)rows;
    cublasStatus_t cs = cublasSetStream(h, (cudaStream_t)x->stream);
    cublasPointerMode_t mode = CUBLAS_POINTER_MODE_HOST;
    if (cs == CUBLAS_STATUS_SUCCESS)
        cs = cublasGetPointerMode(h, &mode);
    if (cs == CUBLAS_STATUS_SUCCESS)
        cs = cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST);
    if (cs == CUBLAS_STATUS_SUCCESS) {
        if (x->dtype == SL_F64) {
            const double one = 1.0, zero = 0.0;
            double *c = (double *)x->buf[1];
            cs = cublasDgeam(h, CUBLAS_OP_T, CUBLAS_OP_N, m, n, &one, (const double *)x->buf[0], lda, &zero, c, ldc,
                             c, ldc);
        } else if (x->dtype == SL_F32) {
            const float one = 1.0f, zero = 0.0f;
            float *c = (float *)x->buf[1];
            cs = cublasSgeam(h, CUBLAS_OP_T, CUBLAS_OP_N, m, n, &one, (const float *)x->buf[0], lda, &zero, c, ldc, c,
                             ldc);
        } else {
            cs = CUBLAS_STATUS_NOT_SUPPORTED;
        }
    }
    cublasSetPointerMode(h, mode);
    cublasSetStream(h, 0);
    if (cs != CUBLAS_STATUS_SUCCESS)
        return sl_fail(cs == CUBLAS_STATUS_NOT_SUPPORTED ? SL_ERR_UNSUPPORTED : SL_ERR_CUDA, "%s (%d) from cublas geam",
                       sl_cublas_status_name(cs), (int)cs);
    return SL_OK;
}
