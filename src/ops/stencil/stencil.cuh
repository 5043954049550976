/*
 * stencil.cuh - what the CUDA stencil rungs share: the coefficients in
 * __constant__ memory, the guarded load that implements the boundary rule,
 * the one accumulation step (stencil.h: the summation order), and the
 * dispatch from the run-time radius to a kernel compiled for it.
 *
 * Every rung is a template on the radius R, as the seed's RADIUS is a
 * compile-time constant: the k loops unroll, and the coefficients are
 * constant-bank operands of the FFMAs (seed 004, "Constant Memory": every
 * lane of a warp reads the same c_k, the broadcast case, 4 B/clk/SM).
 */
#ifndef SL_OP_STENCIL_CUH
#define SL_OP_STENCIL_CUH

#include "common.cuh"
#include "stencil.h"

/* Per translation unit (no relocatable device code): each rung's file has
 * its own copy, initialised at load time, never written. */
static __constant__ float stencil_coef[SL_STENCIL_MAX_RADIUS + 1] = {SL_STENCIL_COEF_LIST};

/* x[r][c] under the boundary rule: +0.0f outside the grid. */
static __device__ __forceinline__ float stencil_at(const float *__restrict__ in, long long r, long long c,
                                                  long long rows, long long cols, long long ld)
{
    return (r >= 0 && r < rows && c >= 0 && c < cols) ? in[r * ld + c] : 0.0f;
}

/* One term of the sum, in the documented order: acc + c_k (((W + E) + N) + S). */
static __device__ __forceinline__ float stencil_step(float acc, int k, float w, float e, float n, float s)
{
    return __fmaf_rn(stencil_coef[k], ((w + e) + n) + s, acc);
}

/* The first term: c_0 x (one rounding; never contracted into the next FFMA,
 * whose addend it is). */
static __device__ __forceinline__ float stencil_first(float x)
{
    return __fmul_rn(stencil_coef[0], x);
}

/* The launch geometry every rung gets: rows, cols and ld as signed 64-bit
 * (the kernels index with them), and the radius. */
struct stencil_dims {
    long long rows, cols, ld;
};

static inline stencil_dims stencil_dims_of(const sl_args *x)
{
    stencil_dims d;
    d.rows = (long long)x->shape.rows;
    d.cols = (long long)x->shape.cols;
    d.ld = (long long)x->shape.ld;
    return d;
}

/* Call F::template run<R>(args...) for the run-time radius r in 1..16. */
#define SL_STENCIL_DISPATCH(r, CALL)                                                                                   \
    switch (r) {                                                                                                       \
    case 1: return CALL(1);                                                                                            \
    case 2: return CALL(2);                                                                                            \
    case 3: return CALL(3);                                                                                            \
    case 4: return CALL(4);                                                                                            \
    case 5: return CALL(5);                                                                                            \
    case 6: return CALL(6);                                                                                            \
    case 7: return CALL(7);                                                                                            \
    case 8: return CALL(8);                                                                                            \
    case 9: return CALL(9);                                                                                            \
    case 10: return CALL(10);                                                                                          \
    case 11: return CALL(11);                                                                                          \
    case 12: return CALL(12);                                                                                          \
    case 13: return CALL(13);                                                                                          \
    case 14: return CALL(14);                                                                                          \
    case 15: return CALL(15);                                                                                          \
    case 16: return CALL(16);                                                                                          \
    default: return sl_fail(SL_ERR_INTERNAL, "stencil: radius %d reached the dispatch", r);                         \
    }

/* The preferred L1 / shared-memory split (percent of the unified memory
 * given to shared memory, cudaFuncAttributePreferredSharedMemoryCarveout)
 * for the carve-out sweep: the environment variable SL_STENCIL_CARVEOUT
 * (0..100), read once; -1 (unset or invalid) leaves the driver's choice.
 * A lab knob for bench/stencil_h200.sh, not part of the op's contract. */
extern "C" int sl_stencil_carveout(void);

/* Apply the carve-out (if set) to a kernel before its launch. */
static inline sl_status stencil_apply_carveout(const void *func)
{
    const int c = sl_stencil_carveout();
    if (c >= 0)
        SL_CUDA_TRY(cudaFuncSetAttribute(func, cudaFuncAttributePreferredSharedMemoryCarveout, c));
    return SL_OK;
}

/* Rows per strip forced by the environment variable SL_STENCIL_STRIP
 * (8..4096), read once; 0 (unset or invalid): automatic. A lab knob for
 * bench/stencil_h200.sh, as the carve-out. */
extern "C" int sl_stencil_strip(void);

/* The launch grid of the register-window rungs (regwin, regwin4, regwin2):
 * gx column blocks `width` columns wide by gy strips of h rows. h is
 * SL_STENCIL_STRIP where set, else as tall as one wave of resident blocks
 * allows, so that the 2R halo rows each strip re-reads are as few as the
 * device's parallelism allows: with B blocks of `kernel` resident at
 * `block` threads (the occupancy query cached per device in *cache),
 * strips = max(1, B / gx) and h = max(8, ceil(rows / strips)). */
struct stencil_strips {
    long long h;
    unsigned long long gx, gy;
};

static inline sl_status stencil_strips_of(const stencil_dims &d, int width, sl_grid_cache *cache, const void *kernel,
                                          int block, stencil_strips *s)
{
    const unsigned long long gx = ((unsigned long long)d.cols + width - 1) / width;
    long long h = sl_stencil_strip();
    if (h == 0) {
        int resident = 0;
        sl_status sg = sl_cuda_persistent_grid(cache, kernel, block, 0, &resident);
        if (sg != SL_OK)
            return sg;
        const unsigned long long strips = (unsigned long long)resident > gx ? (unsigned long long)resident / gx : 1;
        h = (long long)(((unsigned long long)d.rows + strips - 1) / strips);
        if (h < 8)
            h = 8;
    }
    s->h = h;
    s->gx = gx;
    s->gy = ((unsigned long long)d.rows + (unsigned long long)h - 1) / (unsigned long long)h;
    return SL_OK;
}

/* SL_ERR_INVALID_ARG (from `who`) where the strips' grid is above CUDA's
 * limits (gy <= 65535, gx <= 2^31 - 1). */
static inline sl_status stencil_strips_fit(const stencil_dims &d, const stencil_strips *s, const char *who)
{
    if (s->gy > 65535u || s->gx > 0x7fffffffu)
        return sl_fail(SL_ERR_INVALID_ARG, "%s: %lld x %lld needs a %llu x %llu grid, above CUDA's limits", who, d.rows,
                       d.cols, s->gx, s->gy);
    return SL_OK;
}

#endif /* SL_OP_STENCIL_CUH */
