/*
 * common.cuh - what every CUDA file of streamlab shares: the error-check
 * macros, occupancy helpers and grid sizing. The elementwise machinery
 * (dtypes, ops, 16-byte vectors) is in elementwise.cuh.
 */
#ifndef SL_CUDA_COMMON_CUH
#define SL_CUDA_COMMON_CUH

#include <cuda_runtime.h>
#include <stdint.h>

#include "cuda_check.h"

#define SL_MAX_DEVICES 64

/* Resident threads per SM of the architecture being compiled, for
 * __launch_bounds__(BLOCK, SL_THREADS_PER_SM / BLOCK): "fill the SM" without
 * asking sm_75 (1024) or sm_86/89/120 (1536) for more than they have (CUDA
 * C++ Programming Guide, "Compute Capabilities", table of technical
 * specifications). The host pass sees 2048; it ignores launch bounds. */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 750
#define SL_THREADS_PER_SM 1024
#elif defined(__CUDA_ARCH__) && (__CUDA_ARCH__ == 860 || __CUDA_ARCH__ == 870 || __CUDA_ARCH__ == 890 || \
                                 __CUDA_ARCH__ >= 1200)
#define SL_THREADS_PER_SM 1536
#else
#define SL_THREADS_PER_SM 2048
#endif

/* Fill out with the compiler's and the occupancy API's view of func at a
 * block size of `block` threads and `dyn_smem` bytes of dynamic shared memory. */
sl_status sl_cuda_kernel_attrs(const void *func, int block, size_t dyn_smem, sl_kernel_attrs *out);

/* A persistent grid: SMs x resident blocks per SM for func at `block`
 * threads (cudaOccupancyMaxActiveBlocksPerMultiprocessor), the grid the
 * seed's grid-stride kernels use. Cached per device in *cache, so the
 * occupancy query stays out of timed regions after the first launch. */
typedef struct sl_grid_cache { int grid[SL_MAX_DEVICES]; } sl_grid_cache;
sl_status sl_cuda_persistent_grid(sl_grid_cache *cache, const void *func, int block,
                                  size_t dyn_smem, int *grid);

/* cudaFuncSetAttribute(func, attr, value) once per device: ready holds
 * SL_MAX_DEVICES flags, the caller's (one array per kernel and setting),
 * zero at first; a device past SL_MAX_DEVICES gets the call every time.
 * For settings that stay for the context's life (the dynamic shared
 * memory limit, the preferred carve-out), kept out of timed launches. */
sl_status sl_cuda_func_attr_once(const void *func, cudaFuncAttribute attr, int value, int *ready);

/* A scalar head and tail around a 16-byte-aligned vector body
 * (elementwise.cuh, sl_ew_split):
 *   [0, head)                      scalar, brings c to a 16-byte boundary
 *   [head, tail_start)             16-byte vectors, aligned in a, b and c
 *   [tail_start, tail_start+tail)  scalar, less than one vector
 * The edges are done by the first threads of the grid, in parallel, inside
 * the main kernel. */
typedef struct sl_edges {
    size_t head;
    size_t tail_start;
    size_t tail;
} sl_edges;

/* Blocks needed to cover `items` with `per_block` each, checked against the
 * grid's x limit (2^31 - 1). */
static inline sl_status sl_grid_for(size_t items, size_t per_block, const char *who,
                                    unsigned *grid)
{
    size_t g = (items + per_block - 1) / per_block;
    if (g == 0)
        g = 1;
    if (g > 0x7fffffffu)
        return sl_fail(SL_ERR_INVALID_ARG, "%s: %zu items need %zu blocks, above the grid limit 2^31-1",
                       who, items, g);
    *grid = (unsigned)g;
    return SL_OK;
}

#endif /* SL_CUDA_COMMON_CUH */
