/*
 * cuda_check.h - checking CUDA runtime calls, from C11 and CUDA C alike.
 */
#ifndef SL_CUDA_CHECK_H
#define SL_CUDA_CHECK_H

#include <cuda_runtime_api.h>

#include "internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Turn a failed CUDA call into an sl_status and record the expression,
 * file, line and CUDA error name for sl_last_error(). Sticky errors (the
 * context is lost: illegal address, launch failure, ...) become
 * SL_ERR_CUDA_FAULT, allocation failures SL_ERR_NO_MEMORY, the rest
 * SL_ERR_CUDA. */
sl_status sl_cuda_fail(cudaError_t e, const char *expr, const char *file, int line);

/* True for errors after which the CUDA context cannot be used again. */
int sl_cuda_error_is_sticky(cudaError_t e);

#define SL_CUDA_TRY(expr)                                                       \
    do {                                                                        \
        cudaError_t sl_e_ = (expr);                                             \
        if (sl_e_ != cudaSuccess)                                               \
            return sl_cuda_fail(sl_e_, #expr, __FILE__, __LINE__);              \
    } while (0)

/* After every launch: catches a bad launch configuration at once. Faults
 * inside the kernel surface at the next synchronisation. */
#define SL_CUDA_LAUNCHED() SL_CUDA_TRY(cudaGetLastError())

/* Device-side helpers, defined in device_util.cu. All enqueue on `stream`. */
sl_status sl_cuda_fill_random(sl_dtype dt, void *p, size_t n, uint64_t seed, cudaStream_t stream);
sl_status sl_cuda_launch_fault(cudaStream_t stream);
sl_status sl_cuda_current_cc(int *cc);

/* The NVIDIA libraries the peers call (libs.c): the calling thread's
 * device's cuBLAS handle (a cublasHandle_t), created on first use; a
 * cublasStatus_t's name; and the release of every handle, when the last
 * CUDA context is destroyed. */
sl_status sl_cuda_cublas_handle(void **out);
const char *sl_cublas_status_name(int status);
void sl_cuda_libs_release(void);
/* Register fn to run in sl_cuda_libs_release (once per registration: a
 * library that creates its handle again registers again). For the handles
 * an op's peer keeps per device (cuDNN), so that the last context's
 * destruction frees them too. At most 8. */
void sl_cuda_libs_at_release(void (*fn)(void));

/* The probe primitives (probes/probe_ops.c) and, in a build with CUPTI,
 * the counter interface (cupti.c), for the backend's ops table. */
extern const struct sl_probe_ops sl_cuda_probe_ops;
extern const struct sl_counter_ops sl_cupti_counter_ops;

#ifdef __cplusplus
}
#endif

#endif /* SL_CUDA_CHECK_H */
