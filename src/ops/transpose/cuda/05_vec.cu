/*
 * transpose rung 5 (ours): 16-byte accesses on both global sides, an
 * XOR-swizzled tile of 64 x 64 elements (32 x 32 in f64: 8 KiB, so that 8
 * blocks of 256 threads fit an SM as in the tile rungs; a 64 x 64 f64 tile,
 * 32 KiB and 56 registers, ran at 0.76 of the copy ceiling where the 32 x 33
 * rung ran at 0.96: docs/ladder.md). A 16-byte vector holds V = 16 / size
 * elements (4 f32, 8 f16, 2 f64).
 *
 *  - Read: a warp takes 4 rows x 128 bytes of the tile (8 lanes a row, one
 *    16-byte load each: whole lines); the block's 8 warps cover 32 rows, so
 *    a thread issues (TR / 32) x (TC / 8 V) independent 16-byte loads before
 *    its first store into shared memory (4 in f32: 64 bytes in flight per
 *    thread, 96 KiB per SM at the 1536 threads its 40 registers allow, twice
 *    the ~48 KiB per SM knee of the H200's bytes-in-flight probe:
 *    docs/probes.md).
 *  - Tile: element (r, c) at r * TC + (c ^ (r & 31)). In f32 the 4 stores
 *    of a vector's elements and the 4 loads that gather an output vector
 *    down a column each hit 32 distinct banks (lane = 4 rows x 8 vectors:
 *    the row's low 2 bits and the vector's 3 bits fill the 5 bank bits
 *    through the XOR): conflict-free both ways.
 *  - Write: a warp takes 4 rows of out x 128 bytes (8 lanes a row), each
 *    lane gathering V elements down a tile column into one 16-byte store.
 *
 * 16-byte accesses need in and out 16-byte aligned, ld a multiple of V
 * (reads) and rows a multiple of V (writes); otherwise, and in the edge
 * tiles where a vector would cross the matrix's edge, the lane moves its V
 * elements one at a time (same tile, same layout).
 *
 * Block order: tiles are taken in bands of `band` tile rows, down the band
 * first: band 1 walks the tiles row by row (the blocks resident together
 * read whole rows of in and write 256-byte pieces of many rows of out);
 * band 32 makes the resident blocks cover a square of tiles, so both sides
 * move ~8 KiB runs (vec_band8, vec_band32: the order sweep).
 *
 * Expectation: a quarter of the tile rungs' load/store instructions and
 * twice their tile per block, so DRAM-bound at the copy ceiling's pace:
 * >= 0.96x the copy ceiling at 8192^2 f32 and above cublasSgeam (issue 11's
 * bar: >= 1.03x). f64 moves 8-byte elements 2 to a vector, with its
 * half-warp phases conflict-free; f16 gathers 8 two-byte elements per
 * store, 2-way conflicted on the gather (a column's lanes p and p + 4 share
 * a bank) and, as ncu showed, on the tile stores too (lanes in rows r and
 * r + 1 of one word column): more shared-memory instructions per byte,
 * still under DRAM. Measured: docs/ladder.md, "Transpose and bank
 * conflicts" (0.92 / 0.90 x copy in f32, short of the 0.96 bar).
 */
#include "transpose.cuh"

enum { VB = SL_TP_VEC_BLOCK };

template <class T, int TR, int TC> struct tp_vec_cfg {
    enum {
        V = 16 / (int)sizeof(T),  /* elements per 16-byte vector */
        W = 8 * V,                /* tile columns (read) or rows (write) a warp covers: 128 bytes */
        NR = (TR / 32) * (TC / W), /* vectors a thread reads */
        NW = (TC / 32) * (TR / W), /* vectors a thread writes */
    };
    static_assert(TR % 32 == 0 && TC % 32 == 0 && TR % W == 0 && TC % W == 0, "tile shape");
};

template <int TC> static __device__ __forceinline__ int tp_swz(int r, int c)
{
    return r * TC + (c ^ (r & 31));
}

template <class T, int TR, int TC>
static __global__ void __launch_bounds__(VB)
    tp_vec(const T *__restrict__ in, T *__restrict__ out, tp_geom g, uint32_t band, bool vin, bool vout)
{
    typedef tp_vec_cfg<T, TR, TC> C;
    enum { V = C::V, W = C::W, CPR = TC / W, CPW = TR / W };
    union vec {
        uint4 u;
        T e[V];
    };
    __shared__ T tile[TR * TC];
    /* the block's tile: bands of `band` tile rows, down each band first */
    const uint32_t per_band = band * g.tiles_c, bi = blockIdx.x / per_band, w = blockIdx.x - bi * per_band;
    const uint32_t first = bi * band, nb = min(band, g.tiles_r - first);
    const uint64_t r0 = (uint64_t)(first + w % nb) * TR, c0 = (uint64_t)(w / nb) * TC;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int sub = lane >> 3, q = lane & 7; /* 4 rows x 8 vectors per warp */

    /* read: all the thread's vectors in flight before the first use */
    vec v[C::NR];
#pragma unroll
    for (int p = 0; p < C::NR; p++) {
        const int tr = (p / CPR) * 32 + warp * 4 + sub, tc = (p % CPR) * W + q * V;
        const uint64_t r = r0 + tr, c = c0 + tc;
        if (vin && r < g.rows && c + V <= g.cols) {
            v[p].u = __ldg((const uint4 *)(in + r * g.ld + c));
        } else {
#pragma unroll
            for (int k = 0; k < V; k++)
                v[p].e[k] = (r < g.rows && c + k < g.cols) ? in[r * g.ld + c + k] : T(0);
        }
    }
#pragma unroll
    for (int p = 0; p < C::NR; p++) {
        const int tr = (p / CPR) * 32 + warp * 4 + sub, tc = (p % CPR) * W + q * V;
#pragma unroll
        for (int k = 0; k < V; k++)
            tile[tp_swz<TC>(tr, tc + k)] = v[p].e[k];
    }
    __syncthreads();

    /* write: out row j = tile column, V tile rows gathered per vector */
#pragma unroll
    for (int p = 0; p < C::NW; p++) {
        const int tj = (p / CPW) * 32 + warp * 4 + sub, ti = (p % CPW) * W + q * V;
        vec o;
#pragma unroll
        for (int k = 0; k < V; k++)
            o.e[k] = tile[tp_swz<TC>(ti + k, tj)];
        const uint64_t j = c0 + tj, i = r0 + ti;
        if (j >= g.cols)
            continue;
        if (vout && i + V <= g.rows) {
            *(uint4 *)(out + j * g.rows + i) = o.u;
        } else {
#pragma unroll
            for (int k = 0; k < V; k++)
                if (i + k < g.rows)
                    out[j * g.rows + i + k] = o.e[k];
        }
    }
}

/* The tile per element size: 64 x 64, 32 x 32 for 8-byte elements. The
 * tile-shape sweep: wide tiles (32 rows x 128 columns: 512-byte reads of
 * each row, 128-byte pieces of 128 output rows) and tall ones (128 x 32:
 * the other way round); 64 x 128 and 128 x 64 for 2-byte elements, whose
 * warp covers 64 columns. */
template <class T> struct tp_vec_tile {
    enum { R = sizeof(T) == 8 ? 32 : 64, C = R };
};
template <class T> struct tp_vec_wide {
    enum { R = sizeof(T) == 2 ? 64 : 32, C = 128 };
};
template <class T> struct tp_vec_tall {
    enum { R = 128, C = sizeof(T) == 2 ? 64 : 32 };
};
/* The big tile (issue 11, third pass): 128 x 64 (128 x 128 for 2-byte
 * elements: 32 KiB either way; 32 x 32 for 8-byte), so that a thread keeps
 * 8 16-byte loads in flight (128 bytes, twice vec's) and the writes go out
 * in 512-byte pieces of each output row (vec: 256), reads in 256-byte ones. */
template <class T> struct tp_vec_big {
    enum { R = sizeof(T) == 8 ? 32 : 128, C = sizeof(T) == 2 ? 128 : (sizeof(T) == 4 ? 64 : 32) };
};

/* Whether the 16-byte path is open: 16-byte-aligned pointers, ld (reads)
 * and rows (writes) multiples of the vector's V elements. */
static inline void tp_vec_paths(const sl_args *x, bool *vin, bool *vout)
{
    const uint64_t V = 16 / sl_dtype_size(x->dtype);
    *vin = ((uintptr_t)x->buf[0] % 16 == 0) && x->shape.ld % V == 0;
    *vout = ((uintptr_t)x->buf[1] % 16 == 0) && x->shape.rows % V == 0;
}

template <class T, class S> static sl_status launch_vec(const sl_args *x, uint32_t band, const char *who)
{
    tp_geom g;
    sl_status st = tp_geometry(x, S::R, S::C, who, &g);
    if (st != SL_OK || x->shape.rows == 0 || x->shape.cols == 0)
        return st;
    bool vin, vout;
    tp_vec_paths(x, &vin, &vout);
    tp_vec<T, S::R, S::C><<<g.grid, VB, 0, (cudaStream_t)x->stream>>>((const T *)x->buf[0], (T *)x->buf[1], g,
                                                                      band < g.tiles_r ? band : g.tiles_r, vin, vout);
    SL_CUDA_LAUNCHED();
    return SL_OK;
}

#define TP_VEC_LAUNCHER(NAME, SHAPE, BAND)                                                                \
    extern "C" sl_status NAME(const sl_args *x)                                                           \
    {                                                                                                     \
        TP_DISPATCH(x->dtype, return launch_vec<T, SHAPE<T> >(x, BAND, #NAME))                            \
    }                                                                                                     \
    extern "C" sl_status NAME##_attrs(sl_dtype dt, sl_kernel_attrs *out)                                 \
    {                                                                                                     \
        TP_DISPATCH(dt, return sl_cuda_kernel_attrs((const void *)tp_vec<T, SHAPE<T>::R, SHAPE<T>::C>, VB, 0, out)) \
    }

TP_VEC_LAUNCHER(sl_cuda_transpose_vec, tp_vec_tile, 1)
TP_VEC_LAUNCHER(sl_cuda_transpose_vec_band8, tp_vec_tile, 8)
TP_VEC_LAUNCHER(sl_cuda_transpose_vec_band32, tp_vec_tile, 32)
TP_VEC_LAUNCHER(sl_cuda_transpose_vec_wide, tp_vec_wide, 1)
TP_VEC_LAUNCHER(sl_cuda_transpose_vec_tall, tp_vec_tall, 1)
TP_VEC_LAUNCHER(sl_cuda_transpose_vec_big, tp_vec_big, 1)

/* sl_transpose's kernel on a CUDA context, from the H200 ladder
 * (docs/ladder.md, "transpose"): 8-byte elements the 32 x 33 rung (0.97-1.0
 * x cublasDgeam, where vec's 32 x 32 f64 tiles reached 0.91); 2- and
 * 4-byte elements the vec rung where 16-byte accesses fit both sides (the
 * block order made no difference: vec_band8 and vec_band32 within 0.5%),
 * the 32 x 33 rung otherwise (vec's one-element fallback is slower than the
 * 32 x 32 tiles: 0.49 x cuBLAS against 0.68 at 8191 x 8193 f32). */
extern "C" sl_status sl_cuda_transpose_api(const sl_args *x)
{
    bool vin, vout;
    tp_vec_paths(x, &vin, &vout);
    /* f32 at 2^26 elements and more: tma_col (06_tma.cu) on sm_90, which
     * refuses elsewhere (H200, of the cudaMemcpy copy: 0.949 / 0.953 at
     * 8192^2 / 16384^2 against vec's 0.909 / 0.900, 1.043 / 1.017 x
     * cuBLAS geam; bench/results/h200-transpose-2026-11-27.md); smaller
     * and other dtypes unmeasured with it: vec or pad33 as before */
    if (sl_dtype_size(x->dtype) == 4 && vin && vout && x->shape.rows * x->shape.cols >= (1ull << 26)) {
        const sl_status st = sl_cuda_transpose_tma_col(x);
        if (st != SL_ERR_UNSUPPORTED)
            return st;
    }
    if (sl_dtype_size(x->dtype) == 8 || !vin || !vout)
        return sl_cuda_transpose_pad33(x);
    return sl_cuda_transpose_vec(x);
}
