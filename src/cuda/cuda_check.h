/*
 * cuda_check.h - checking CUDA runtime calls, from C11 and CUDA C alike.
 */
#ifndef SL_CUDA_CHECK_H
#define SL_CUDA_CHECK_H

#include <cuda_runtime_api.h>

#include "internal.h"
#include "registry.h"

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

/* Launchers of the registry (see registry.c), each with an _attrs
 * function giving its kernel's resources per dtype (SL_EW_LAUNCHER in
 * elementwise.cuh). */
#define SL_DECLARE_LAUNCHER(NAME)          \
    sl_status NAME(const sl_args *x);      \
    sl_status NAME##_attrs(sl_dtype dt, sl_kernel_attrs *out);
SL_DECLARE_LAUNCHER(sl_cuda_add_naive)
SL_DECLARE_LAUNCHER(sl_cuda_add_grid_stride)
SL_DECLARE_LAUNCHER(sl_cuda_add_vec4)
SL_DECLARE_LAUNCHER(sl_cuda_add_grid_vec4)
SL_DECLARE_LAUNCHER(sl_cuda_add_ilp2)
SL_DECLARE_LAUNCHER(sl_cuda_add_ilp4)
SL_DECLARE_LAUNCHER(sl_cuda_add_tile4)
SL_DECLARE_LAUNCHER(sl_cuda_add_bulk)
SL_DECLARE_LAUNCHER(sl_cuda_add_tile1)
SL_DECLARE_LAUNCHER(sl_cuda_add_tile1_cs)
SL_DECLARE_LAUNCHER(sl_cuda_add_tile1_lu)
SL_DECLARE_LAUNCHER(sl_cuda_add_tile1_nc)
SL_DECLARE_LAUNCHER(sl_cuda_add_tile1_ef)
SL_DECLARE_LAUNCHER(sl_cuda_add_fp8out)
SL_DECLARE_LAUNCHER(sl_cuda_axpy_v1_naive)
SL_DECLARE_LAUNCHER(sl_cuda_axpy_v2_coarse)
SL_DECLARE_LAUNCHER(sl_cuda_axpy_v3a_hoist)
SL_DECLARE_LAUNCHER(sl_cuda_axpy_v3b_restrict)
SL_DECLARE_LAUNCHER(sl_cuda_axpy_v4_persistent)
SL_DECLARE_LAUNCHER(sl_cuda_axpy_v5_vec)
SL_DECLARE_LAUNCHER(sl_cuda_axpy_tile4)
SL_DECLARE_LAUNCHER(sl_cuda_axpy_bulk)
#undef SL_DECLARE_LAUNCHER

/* The public entry points' dispatch (backend.c), the peers (peers.cu) and
 * the copy ceiling. */
sl_status sl_cuda_add_api(const sl_args *x);
sl_status sl_cuda_axpy_api(const sl_args *x);
sl_status sl_cuda_peer_cub_add(const sl_args *x);
sl_status sl_cuda_peer_cublas_axpy(const sl_args *x);
sl_status sl_cuda_ceiling_copy(const sl_args *x);
/* Destroy the peers' library handles (cuBLAS); the next peer launch makes
 * new ones. Called when the last CUDA context is destroyed. */
void sl_cuda_peers_release(void);

#ifdef __cplusplus
}
#endif

#endif /* SL_CUDA_CHECK_H */
