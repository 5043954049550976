/*
 * The scalar fallback of every vectorized add rung and of sl_add, for
 * pointers that differ modulo 16 bytes (no one head shift aligns them all).
 *
 * Each block owns a tile of 256 x 4 consecutive elements; thread t loads
 * elements t, t + 256, t + 512, t + 768 of each input before the first add.
 * Every warp access is a full 128-byte line, so DRAM traffic equals the
 * vector rungs'; each thread keeps 2 x 4 x 4 = 32 bytes in flight, as a
 * float4 thread does; the price is 4x the load and store instructions.
 */
#include "../../common.cuh"

enum { SCALAR_BLOCK = 256, SCALAR_ILP = 4 };

static __global__ void __launch_bounds__(SCALAR_BLOCK)
add_scalar_ilp(const float *a, const float *b, float *c, size_t n)
{
    const size_t base = (size_t)blockIdx.x * (SCALAR_BLOCK * SCALAR_ILP) + threadIdx.x;
    if (base + (SCALAR_ILP - 1) * SCALAR_BLOCK < n) {
        float ra[SCALAR_ILP], rb[SCALAR_ILP];
#pragma unroll
        for (int k = 0; k < SCALAR_ILP; k++) {
            ra[k] = a[base + k * SCALAR_BLOCK];
            rb[k] = b[base + k * SCALAR_BLOCK];
        }
#pragma unroll
        for (int k = 0; k < SCALAR_ILP; k++)
            c[base + k * SCALAR_BLOCK] = ra[k] + rb[k];
    } else {
#pragma unroll
        for (int k = 0; k < SCALAR_ILP; k++) {
            size_t i = base + k * SCALAR_BLOCK;
            if (i < n)
                c[i] = a[i] + b[i];
        }
    }
}

extern "C" sl_status sl_cuda_add_scalar_ilp(const sl_args *x)
{
    if (x->n == 0)
        return SL_OK;
    unsigned grid = 0;
    sl_status st = sl_grid_for(x->n, SCALAR_BLOCK * SCALAR_ILP, "scalar_ilp", &grid);
    if (st != SL_OK)
        return st;
    add_scalar_ilp<<<grid, SCALAR_BLOCK, 0, (cudaStream_t)x->stream>>>(
        (const float *)x->a, (const float *)x->b, (float *)x->c, x->n);
    SL_CUDA_LAUNCHED();
    return SL_OK;
}
