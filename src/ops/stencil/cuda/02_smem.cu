/*
 * stencil rung 2: smem, the seed's shared-memory version (seed 004, "With
 * Shared Memory": load the block's input and its halos into shared memory,
 * __syncthreads(), compute from shared memory). One thread per output
 * point, 32 x 16 threads per block; the tile is (16 + 2R) x (32 + 2R)
 * floats of which the star needs the centre and the four R-wide halo
 * strips (the corners are never loaded nor read). A block whose tile lies
 * inside the grid loads it unguarded (as l1's interior threads do); the
 * others apply the boundary rule load by load. The compute loop has no
 * guard either way. (The first H200 run guarded every load: 116
 * instructions per point at R = 4 against l1's 106.)
 *
 * Bank conflicts: a warp reads 32 consecutive floats of one tile row
 * (horizontal and vertical neighbours alike): one wavefront, no conflict,
 * whatever the row pitch 32 + 2R.
 *
 * Expectation (docs/ladder.md, "Stencil"): the same 4R + 1 reads per
 * output as l1, now shared-memory loads (one wavefront each, aligned or
 * not), plus the tile fill: (16 x 32 + 2R (16 + 32)) global loads per 512
 * outputs, 1.75x at R = 4 and 4x at R = 16 (L2 traffic), and one barrier.
 * Slower than l1 at small R (the fill and the barrier are overhead the
 * L1 does not have), faster at large R (no misaligned double wavefronts).
 */
#include "stencil.cuh"

enum { SM_BX = 32, SM_BY = 16 };

template <int R>
static __global__ void __launch_bounds__(SM_BX *SM_BY)
    stencil_smem(const float *__restrict__ in, float *__restrict__ out, stencil_dims d)
{
    __shared__ float tile[SM_BY + 2 * R][SM_BX + 2 * R];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const long long j = (long long)blockIdx.x * SM_BX + tx;
    const long long i = (long long)blockIdx.y * SM_BY + ty;
    const long long bi = (long long)blockIdx.y * SM_BY, bj = (long long)blockIdx.x * SM_BX;
    if (bi >= R && bi + SM_BY + R <= d.rows && bj >= R && bj + SM_BX + R <= d.cols) {
        /* the whole tile inside the grid (block-uniform): no guards */
        const float *c = in + i * d.ld + j;
        tile[ty + R][tx + R] = c[0];
        if (ty < R) {
            tile[ty][tx + R] = c[-R * d.ld];
            tile[ty + SM_BY + R][tx + R] = c[SM_BY * d.ld];
        }
        if (tx < R) {
            tile[ty + R][tx] = c[-R];
            tile[ty + R][tx + SM_BX + R] = c[SM_BX];
        }
    } else {
        tile[ty + R][tx + R] = stencil_at(in, i, j, d.rows, d.cols, d.ld);
        if (ty < R) { /* R <= 16 = SM_BY: the rows above and below */
            tile[ty][tx + R] = stencil_at(in, i - R, j, d.rows, d.cols, d.ld);
            tile[ty + SM_BY + R][tx + R] = stencil_at(in, i + SM_BY, j, d.rows, d.cols, d.ld);
        }
        if (tx < R) { /* R <= 32 = SM_BX: the columns left and right */
            tile[ty + R][tx] = stencil_at(in, i, j - R, d.rows, d.cols, d.ld);
            tile[ty + R][tx + SM_BX + R] = stencil_at(in, i, j + SM_BX, d.rows, d.cols, d.ld);
        }
    }
    __syncthreads();
    if (i >= d.rows || j >= d.cols)
        return;
    float acc = stencil_first(tile[ty + R][tx + R]);
#pragma unroll
    for (int k = 1; k <= R; k++)
        acc = stencil_step(acc, k, tile[ty + R][tx + R - k], tile[ty + R][tx + R + k], tile[ty + R - k][tx + R],
                           tile[ty + R + k][tx + R]);
    out[i * d.ld + j] = acc;
}

template <int R> static sl_status launch_smem(const sl_args *x)
{
    const stencil_dims d = stencil_dims_of(x);
    const unsigned long long gy = ((unsigned long long)d.rows + SM_BY - 1) / SM_BY;
    const unsigned long long gx = ((unsigned long long)d.cols + SM_BX - 1) / SM_BX;
    if (gy > 65535u || gx > 0x7fffffffu)
        return sl_fail(SL_ERR_INVALID_ARG, "stencil smem: %lld x %lld needs a %llu x %llu grid, above CUDA's limits",
                       d.rows, d.cols, gx, gy);
    sl_status st = stencil_apply_carveout((const void *)stencil_smem<R>);
    if (st != SL_OK)
        return st;
    stencil_smem<R><<<dim3((unsigned)gx, (unsigned)gy), dim3(SM_BX, SM_BY), 0, (cudaStream_t)x->stream>>>(
        (const float *)x->buf[0], (float *)x->buf[1], d);
    SL_CUDA_LAUNCHED();
    return SL_OK;
}

#define SMEM_CALL(R) launch_smem<R>(x)

extern "C" sl_status sl_cuda_stencil_smem(const sl_args *x)
{
    int r = 0;
    sl_status st = sl_stencil_check(x, "stencil smem", &r);
    if (st != SL_OK)
        return st;
    SL_STENCIL_DISPATCH(r, SMEM_CALL)
}

extern "C" sl_status sl_cuda_stencil_smem_attrs(sl_dtype dt, sl_kernel_attrs *out)
{
    (void)dt;
    return sl_cuda_kernel_attrs((const void *)stencil_smem<SL_STENCIL_DEFAULT_RADIUS>, SM_BX * SM_BY, 0, out);
}
