/*
 * transpose.cuh - what the CUDA rungs of transpose share: the element
 * storage types (a transpose moves bits: 2-, 4- and 8-byte words), the
 * tile grid, the three shared-memory layouts of seed 004's case study and
 * the 32 x 32 tile kernel they plug into.
 *
 * Shapes: in is rows x cols, row-major, ld elements between row starts;
 * out is cols x rows, row-major and dense (its ld is rows). Every kernel
 * works for any rows, cols >= 1: edge tiles guard each access.
 *
 * The tile grid is one-dimensional (blockIdx.x up to 2^31 - 1, where
 * gridDim.y would stop at 65535 rows of tiles): block b takes tile row
 * b / tiles_c and tile column b % tiles_c, so consecutive blocks read
 * neighbouring tiles of one row strip of the input.
 */
#ifndef SL_TRANSPOSE_CUH
#define SL_TRANSPOSE_CUH

#include "common.cuh"
#include "transpose.h"

#include <stdint.h>

/* ---- the storage type of each element size ----------------------------- */
template <int E> struct tp_word;
template <> struct tp_word<2> {
    typedef uint16_t type;
};
template <> struct tp_word<4> {
    typedef uint32_t type;
};
template <> struct tp_word<8> {
    typedef uint64_t type;
};

/* ---- one launch's geometry ---------------------------------------------- */
struct tp_geom {
    uint64_t rows, cols, ld; /* the input's shape */
    uint32_t tiles_r;        /* tiles down the input's rows */
    uint32_t tiles_c;        /* tiles across the input's columns */
    unsigned grid;           /* tiles in all: one block each */
};

/* The tile grid for tiles of th x tw elements (rows x columns of the
 * input), or an error for a shape that needs more than 2^31 - 1 tiles. */
static inline sl_status tp_geometry(const sl_args *x, unsigned th, unsigned tw, const char *who, tp_geom *g)
{
    g->rows = x->shape.rows;
    g->cols = x->shape.cols;
    g->ld = x->shape.ld;
    const uint64_t tr = (g->rows + th - 1) / th, tc = (g->cols + tw - 1) / tw;
    if (tc > 0xffffffffu || (tc && tr > 0x7fffffffu / tc))
        return sl_fail(SL_ERR_INVALID_ARG, "transpose %s: %llu x %llu needs more than 2^31 - 1 tiles of %u x %u", who,
                       (unsigned long long)g->rows, (unsigned long long)g->cols, th, tw);
    g->tiles_r = (uint32_t)tr;
    g->tiles_c = (uint32_t)tc;
    g->grid = (unsigned)(tr * tc);
    return SL_OK;
}

/* Runs the statement (a return) with T the storage type of dtype DT
 * (2, 4 or 8 bytes). */
#define TP_DISPATCH(DT, ...)                                                               \
    switch (sl_dtype_size(DT)) {                                                            \
    case 2: {                                                                               \
        typedef uint16_t T;                                                                 \
        __VA_ARGS__;                                                                           \
    }                                                                                       \
    case 4: {                                                                               \
        typedef uint32_t T;                                                                 \
        __VA_ARGS__;                                                                           \
    }                                                                                       \
    case 8: {                                                                               \
        typedef uint64_t T;                                                                 \
        __VA_ARGS__;                                                                           \
    }                                                                                       \
    default:                                                                                \
        return sl_fail(SL_ERR_UNSUPPORTED, "transpose: no kernel for %s", sl_dtype_name(DT)); \
    }

/* ---- seed 004's shared-memory layouts of a 32 x 32 tile ------------------
 * at(r, c) is where tile element (r, c) lives; WORDS the array's length.
 * Bank of a 4-byte word w: w mod 32 (seed 004, "Volta Shared Memory"). The
 * store into the tile walks a row (c = lane), the load walks a column
 * (r = lane):
 *   tp_plain   r * 32 + c: the column is one bank, 32-way for 4-byte words
 *   tp_pad     r * 33 + c: one word of padding per row, the column spreads
 *              over all 32 banks (seed 004, "32x33", lines 740-773)
 *   tp_xor     r * 32 + (c ^ r): no padding; XOR-ing the column with the row
 *              makes both a row and a column a permutation of the banks */
struct tp_plain {
    enum { WORDS = SL_TP_TILE * SL_TP_TILE };
    static __device__ __forceinline__ int at(int r, int c) { return r * SL_TP_TILE + c; }
};
struct tp_pad {
    enum { WORDS = SL_TP_TILE * (SL_TP_TILE + 1) };
    static __device__ __forceinline__ int at(int r, int c) { return r * (SL_TP_TILE + 1) + c; }
};
struct tp_xor {
    enum { WORDS = SL_TP_TILE * SL_TP_TILE };
    static __device__ __forceinline__ int at(int r, int c) { return r * SL_TP_TILE + (c ^ r); }
};

/* The 32 x 32 tile rungs. A 32 x 8 block stages the tile in shared memory:
 * warp y reads rows y, y+8, y+16, y+24 of the tile from global memory
 * (lane = column: 32 consecutive elements, coalesced) into tile rows, waits
 * for the block, then reads columns of the tile (lane = row) and writes
 * them as rows of out (coalesced again). 4 elements per thread. */
template <class T, class L>
static __global__ void __launch_bounds__(SL_TP_TILE *SL_TP_BLOCK_ROWS)
    tp_tile(const T *__restrict__ in, T *__restrict__ out, tp_geom g)
{
    __shared__ T tile[L::WORDS];
    const uint64_t r0 = (uint64_t)(blockIdx.x / g.tiles_c) * SL_TP_TILE;
    const uint64_t c0 = (uint64_t)(blockIdx.x % g.tiles_c) * SL_TP_TILE;
    const int tx = threadIdx.x, ty = threadIdx.y;
    const uint64_t c = c0 + tx;
#pragma unroll
    for (int k = 0; k < SL_TP_TILE; k += SL_TP_BLOCK_ROWS) {
        const uint64_t r = r0 + ty + k;
        if (r < g.rows && c < g.cols)
            tile[L::at(ty + k, tx)] = in[r * g.ld + c];
    }
    __syncthreads();
    const uint64_t i = r0 + tx; /* out's column: in's row */
#pragma unroll
    for (int k = 0; k < SL_TP_TILE; k += SL_TP_BLOCK_ROWS) {
        const uint64_t j = c0 + ty + k; /* out's row: in's column */
        if (j < g.cols && i < g.rows)
            out[j * g.rows + i] = tile[L::at(tx, ty + k)];
    }
}

template <class T, class L> static sl_status tp_tile_launch(const sl_args *x, const char *who)
{
    tp_geom g;
    sl_status st = tp_geometry(x, SL_TP_TILE, SL_TP_TILE, who, &g);
    if (st != SL_OK || x->shape.rows == 0 || x->shape.cols == 0)
        return st;
    tp_tile<T, L><<<g.grid, dim3(SL_TP_TILE, SL_TP_BLOCK_ROWS), 0, (cudaStream_t)x->stream>>>(
        (const T *)x->buf[0], (T *)x->buf[1], g);
    SL_CUDA_LAUNCHED();
    return SL_OK;
}

/* A tile rung's launcher and resources function for layout L. */
#define TP_TILE_LAUNCHER(NAME, L)                                                                       \
    extern "C" sl_status NAME(const sl_args *x)                                                          \
    {                                                                                                    \
        TP_DISPATCH(x->dtype, return tp_tile_launch<T, L>(x, #NAME))                                   \
    }                                                                                                    \
    extern "C" sl_status NAME##_attrs(sl_dtype dt, sl_kernel_attrs *out)                                \
    {                                                                                                    \
        TP_DISPATCH(dt, return sl_cuda_kernel_attrs((const void *)tp_tile<T, L>, SL_TP_TILE *SL_TP_BLOCK_ROWS, 0, \
                                                    out))                                                \
    }

#endif /* SL_TRANSPOSE_CUH */
