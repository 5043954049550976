/*
 * stencil rung 1: l1, the seed's global-memory version (seed 004, "2D
 * Stencil Experiment", the kernel without shared memory). One thread per
 * output point, 32 x 8 threads per block; each thread reads its 4R + 1
 * inputs straight from global memory, and the block's overlapping reads
 * (each input is read by up to 4R + 1 threads) hit in L1 and L2. A thread
 * whose whole star lies inside the grid takes the unguarded path (the
 * seed's loop); the others apply the boundary rule load by load.
 *
 * Expectation (docs/ladder.md, "Stencil"): DRAM moves the grid about once
 * (L2 holds the rows the neighbouring blocks re-read), but every output
 * costs 4R + 1 load instructions, half of them misaligned by k elements
 * (two 128-byte lines per warp): an L1 wavefront limit of about (4R + 1)
 * x 1.5 wavefronts per 32 outputs. At R <= 4 that is under the DRAM
 * floor; at R = 16 it is several times over it.
 */
#include "stencil.cuh"

enum { L1_BX = 32, L1_BY = 8 };

template <int R>
static __global__ void __launch_bounds__(L1_BX *L1_BY)
    stencil_l1(const float *__restrict__ in, float *__restrict__ out, stencil_dims d)
{
    const long long j = (long long)blockIdx.x * L1_BX + threadIdx.x;
    const long long i = (long long)blockIdx.y * L1_BY + threadIdx.y;
    if (i >= d.rows || j >= d.cols)
        return;
    const float *c = in + i * d.ld + j;
    float acc;
    if (i >= R && i + R < d.rows && j >= R && j + R < d.cols) {
        acc = stencil_first(c[0]);
#pragma unroll
        for (int k = 1; k <= R; k++)
            acc = stencil_step(acc, k, c[-k], c[k], c[-k * d.ld], c[k * d.ld]);
    } else {
        acc = stencil_first(c[0]);
#pragma unroll
        for (int k = 1; k <= R; k++)
            acc = stencil_step(acc, k, stencil_at(in, i, j - k, d.rows, d.cols, d.ld),
                               stencil_at(in, i, j + k, d.rows, d.cols, d.ld),
                               stencil_at(in, i - k, j, d.rows, d.cols, d.ld),
                               stencil_at(in, i + k, j, d.rows, d.cols, d.ld));
    }
    out[i * d.ld + j] = acc;
}

template <int R> static sl_status launch_l1(const sl_args *x)
{
    const stencil_dims d = stencil_dims_of(x);
    const dim3 block(L1_BX, L1_BY);
    const unsigned long long gy = ((unsigned long long)d.rows + L1_BY - 1) / L1_BY;
    const unsigned long long gx = ((unsigned long long)d.cols + L1_BX - 1) / L1_BX;
    if (gy > 65535u || gx > 0x7fffffffu)
        return sl_fail(SL_ERR_INVALID_ARG, "stencil l1: %lld x %lld needs a %llu x %llu grid, above CUDA's limits",
                       d.rows, d.cols, gx, gy);
    sl_status st = stencil_apply_carveout((const void *)stencil_l1<R>);
    if (st != SL_OK)
        return st;
    stencil_l1<R><<<dim3((unsigned)gx, (unsigned)gy), block, 0, (cudaStream_t)x->stream>>>(
        (const float *)x->buf[0], (float *)x->buf[1], d);
    SL_CUDA_LAUNCHED();
    return SL_OK;
}

#define L1_CALL(R) launch_l1<R>(x)

extern "C" sl_status sl_cuda_stencil_l1(const sl_args *x)
{
    int r = 0;
    sl_status st = sl_stencil_check(x, "stencil l1", &r);
    if (st != SL_OK)
        return st;
    SL_STENCIL_DISPATCH(r, L1_CALL)
}

extern "C" sl_status sl_cuda_stencil_l1_attrs(sl_dtype dt, sl_kernel_attrs *out)
{
    (void)dt;
    return sl_cuda_kernel_attrs((const void *)stencil_l1<SL_STENCIL_DEFAULT_RADIUS>, L1_BX * L1_BY, 0, out);
}
