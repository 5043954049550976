/*
 * transpose rung 1: naive. The same tile grid and 32 x 8 blocks as the tile
 * rungs, without shared memory: each thread copies 4 elements straight from
 * in to out. A warp reads 32 consecutive elements of a row of in (one
 * 128-byte line in f32: coalesced) and writes them down a column of out,
 * 32 rows apart (strided: 32 sectors touched per store instruction, each
 * 4 bytes of it used).
 *
 * Expectation: DRAM still sees whole sectors, since the block's 8 rows
 * fill each 32-byte sector of out (8 consecutive f32 of one out row) while
 * it sits in L2; the cost is the L1/L2 request count: 32 sectors per store
 * instruction instead of 4. Well below the tile rungs; how far below is
 * what this rung measures (seed 004's case study starts from this one).
 */
#include "transpose.cuh"

template <class T>
static __global__ void __launch_bounds__(SL_TP_TILE *SL_TP_BLOCK_ROWS)
    tp_naive(const T *__restrict__ in, T *__restrict__ out, tp_geom g)
{
    const uint64_t r0 = (uint64_t)(blockIdx.x / g.tiles_c) * SL_TP_TILE;
    const uint64_t c = (uint64_t)(blockIdx.x % g.tiles_c) * SL_TP_TILE + threadIdx.x;
#pragma unroll
    for (int k = 0; k < SL_TP_TILE; k += SL_TP_BLOCK_ROWS) {
        const uint64_t r = r0 + threadIdx.y + k;
        if (r < g.rows && c < g.cols)
            out[c * g.rows + r] = in[r * g.ld + c];
    }
}

template <class T> static sl_status launch_naive(const sl_args *x)
{
    tp_geom g;
    sl_status st = tp_geometry(x, SL_TP_TILE, SL_TP_TILE, "naive", &g);
    if (st != SL_OK || x->shape.rows == 0 || x->shape.cols == 0)
        return st;
    tp_naive<T><<<g.grid, dim3(SL_TP_TILE, SL_TP_BLOCK_ROWS), 0, (cudaStream_t)x->stream>>>((const T *)x->buf[0],
                                                                                          (T *)x->buf[1], g);
    SL_CUDA_LAUNCHED();
    return SL_OK;
}

extern "C" sl_status sl_cuda_transpose_naive(const sl_args *x)
{
    TP_DISPATCH(x->dtype, return launch_naive<T>(x))
}

extern "C" sl_status sl_cuda_transpose_naive_attrs(sl_dtype dt, sl_kernel_attrs *out)
{
    TP_DISPATCH(dt, return sl_cuda_kernel_attrs((const void *)tp_naive<T>, SL_TP_TILE * SL_TP_BLOCK_ROWS, 0, out))
}
