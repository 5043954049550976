/*
 * common.cuh - what every CUDA file of streamlab shares: the error-check
 * macros, occupancy helpers, and the head/body/tail split used by the
 * vectorized rungs.
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

/* A scalar head and tail around a 16-byte-aligned vector body:
 *   [0, head)                 scalar
 *   [head, head + 4 * nvec)   float4 body, aligned in a, b and c
 *   [tail_start, n)           scalar, fewer than 4 elements
 * The edges are at most 3 + 3 elements and are done by the first threads
 * of the grid, in parallel, inside the main kernel (the seed did its tail
 * serially on thread 0). */
typedef struct sl_edges {
    size_t head;
    size_t tail_start;
    size_t tail;
} sl_edges;

/* Split [0, n) of f32 arrays a, b, c into head, float4 body and tail.
 * Returns false when the three pointers differ modulo 16 bytes: then no
 * single shift aligns all three and the caller must take a scalar path. */
static inline bool sl_split_f32x4(const void *a, const void *b, const void *c, size_t n,
                                  sl_edges *e, size_t *nvec)
{
    uintptr_t ua = (uintptr_t)a, ub = (uintptr_t)b, uc = (uintptr_t)c;
    if (((ua ^ uc) & 15u) || ((ub ^ uc) & 15u))
        return false;
    size_t head = ((16u - (uc & 15u)) & 15u) / sizeof(float);
    if (head > n)
        head = n;
    *nvec = (n - head) / 4;
    e->head = head;
    e->tail_start = head + 4 * *nvec;
    e->tail = n - e->tail_start;
    return true;
}

/* The start of every vectorized add launcher: nothing to do for n = 0, and
 * the scalar ILP kernel when the pointers cannot share one 16-byte
 * alignment. Returns 1 when the caller should launch its vector kernel on
 * (e, nvec), 0 when *st holds the launcher's answer. */
static inline int sl_add_vec_prologue(const sl_args *x, sl_edges *e, size_t *nvec, sl_status *st)
{
    *st = SL_OK;
    if (x->n == 0)
        return 0;
    if (!sl_split_f32x4(x->a, x->b, x->c, x->n, e, nvec)) {
        *st = sl_cuda_add_scalar_ilp(x);
        return 0;
    }
    return 1;
}

/* Threads 0 .. head+tail-1 of the grid each do one edge element. */
static __device__ __forceinline__ void sl_add_edges_f32(const float *a, const float *b, float *c,
                                                        sl_edges e)
{
    size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t < e.head) {
        c[t] = a[t] + b[t];
    } else if (t - e.head < e.tail) {
        size_t i = e.tail_start + (t - e.head);
        c[i] = a[i] + b[i];
    }
}

static __device__ __forceinline__ float4 sl_add4(float4 x, float4 y)
{
    return make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
}

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
