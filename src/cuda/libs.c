/*
 * libs.c - handles of the NVIDIA libraries the peers call (cuBLAS), one per
 * device, created on first use (outside any timed region: the harness
 * verifies every variant before it times it) and kept while any streamlab
 * context lives, as an application would; the last context's destruction
 * releases them (sl_cuda_libs_release).
 */
#include "cuda_check.h"

#include <cublas_v2.h>

#define MAX_DEVICES 64

static cublasHandle_t handles[MAX_DEVICES];

/* Other libraries' handles (the ops' peers: cuDNN) are released through
 * the functions their owners register when they create one. */
#define MAX_RELEASE 8
static void (*release_fns[MAX_RELEASE])(void);
static int nrelease;

void sl_cuda_libs_at_release(void (*fn)(void))
{
    for (int i = 0; i < nrelease; i++)
        if (release_fns[i] == fn)
            return;
    if (nrelease < MAX_RELEASE)
        release_fns[nrelease++] = fn;
}

void sl_cuda_libs_release(void)
{
    int cur = -1;
    if (cudaGetDevice(&cur) != cudaSuccess)
        cur = -1;
    for (int i = 0; i < nrelease; i++)
        release_fns[i]();
    nrelease = 0;
    for (int d = 0; d < MAX_DEVICES; d++) {
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

const char *sl_cublas_status_name(int s)
{
    switch ((cublasStatus_t)s) {
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

sl_status sl_cuda_cublas_handle(void **out)
{
    int dev = 0;
    SL_CUDA_TRY(cudaGetDevice(&dev));
    if (dev < 0 || dev >= MAX_DEVICES)
        return sl_fail(SL_ERR_BAD_DEVICE, "cuBLAS: device %d out of range", dev);
    if (!handles[dev]) {
        cublasStatus_t s = cublasCreate(&handles[dev]);
        if (s != CUBLAS_STATUS_SUCCESS)
            return sl_fail(SL_ERR_CUDA, "%s (%d) from cublasCreate", sl_cublas_status_name(s), (int)s);
    }
    *out = handles[dev];
    return SL_OK;
}
