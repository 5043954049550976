/*
 * transpose rung 6 (ours, issue 26 item 3): tiles through the bulk tensor
 * copy engine (TMA). Needs sm_90.
 *
 * Change from rung 5 (vec): the SM no longer issues the global loads and
 * stores. A block takes one 16 KiB tile (f32 64 x 64, 2-byte 128 rows x 64
 * columns, f64 64 x 32); one thread loads it with TC / EPR 2-D bulk tensor
 * copies (cp.async.bulk.tensor.2d, boxes of EPR = 128 / size columns x TR
 * rows, the tensor map's 128-byte swizzle) completing on one mbarrier. The
 * block gathers each 16-byte output vector (V = 16 / size elements down one
 * column of the tile) into registers, waits at a barrier, writes the
 * vectors back into the same buffer in the layout of the output's boxes
 * (EPR output columns x TC output rows, the same swizzle), and one thread
 * stores the tile with TR / EPR bulk tensor stores after fence.proxy.async.
 *
 *  - Swizzle (the tensor map's 128B mode): in a box whose rows are 128
 *    bytes, the 16-byte chunk k of row r sits at chunk k ^ (r & 7). A
 *    warp's gather reads touch one 128-byte row of a box per instruction
 *    (f32: 32 columns of row i; f16: 32 of its 64; f64: a row per half-warp
 *    phase), so no conflicts; the 16-byte stores of a quarter-warp go to 8
 *    consecutive output rows at one chunk index, i.e. 8 distinct chunks
 *    after the XOR: no conflicts either.
 *  - Edges: the tensor maps clip. Out-of-bounds box elements load as zero
 *    (and still count in the mbarrier's transaction bytes), out-of-bounds
 *    elements of a store box are not written (at 16-byte granularity: the
 *    launcher's rule that rows x size is a multiple of 16 bytes keeps every
 *    straddling chunk out); the kernel has no edge code.
 *  - Order: tiles in bands of `band` tile rows, down the band first, as in
 *    rung 5; band 1 is row order (tma), band >= tiles_r column order
 *    (tma_col: the resident blocks write whole output rows in sequence and
 *    read 256-byte pieces of every input row).
 *
 * Bytes in flight: 16 KiB of shared memory and 128 threads a block; 8
 * 16-byte vectors a thread in registers, so registers bind: 56 of them
 * (f32, f64) give 9 blocks a SM, up to 144 KiB of tile loads in flight per
 * SM (vec: 96 KiB), issued by 1-2 instructions per block instead of 1024
 * 16-byte loads; 2-byte elements take 78 (6 blocks, 96 KiB: a bound of 8
 * blocks spilled).
 *
 * Host side: the two tensor maps (CUtensorMap, 128 bytes each, passed as
 * __grid_constant__ kernel parameters) are encoded for every call by
 * cuTensorMapEncodeTiled, reached through the runtime's driver entry point
 * so the library does not link libcuda. Refused with SL_ERR_UNSUPPORTED
 * (and the reason): a device or binary without sm_90 code; a base address
 * not 16-byte aligned; ld x size or rows x size (the input's and the
 * output's global row strides) not a multiple of 16 bytes; rows or cols
 * >= 2^31 (tensor coordinates are signed 32-bit).
 *
 * Expectation: docs/ladder.md, "TMA tiles (issue 26, item 3)": vec's pace
 * (0.91-0.93 x copy in f32), since the DRAM write pattern is vec's.
 *
 * tma_col2 (twenty-first session): tma_col with tiles twice as wide (W =
 * 2: f32 64 x 128, 2-byte 128 x 128, f64 64 x 64; 32 KiB, 256 threads, the
 * same 8 vectors a thread and the same registers). What changes is the
 * read side of the column walk: each input row is read in 512-byte pieces
 * (f32; 256 before), so the strided side opens half as many DRAM pages a
 * byte. The write side stays whole output rows in sequence (a tile column
 * of output is written by the blocks walking down it). Blocks a SM: 4 (f32,
 * registers: 56 x 256 threads), 128 KiB of tile loads in flight (144 KiB
 * at W = 1), still ~3 x the ~45 KiB the H200 needs a SM. Measured (H200,
 * bench/results/h200-transpose-col2-2026-11-29.md): level with tma_col
 * (0.938-0.946 of the copy against 0.945-0.949 at 8192^2 and 16384^2;
 * predicted 0.960-0.975 and 0.960-0.970): the read side does not pay by
 * piece length. Not
 * picked.
 */
#include "transpose.cuh"
#include "bulk.cuh"       /* bulk_copy.cuh's mbarrier and bulk-group wrappers, bulk_code_ok */
#include "tensor_map.cuh" /* tma_load_2d, tma_store_2d, the host-side encoder */

/* The tile per element size E and width W (1: tma, tma_col; 2: tma_col2):
 * TR rows x TC columns of the input, W x 16 KiB, TB = W x 128 threads. */
template <int E, int W> struct tp_tma_tile {
    enum {
        TB = 128 * W,
        TR = E == 2 ? 128 : 64,
        TC = (E == 8 ? 32 : 64) * W,
        EPR = 128 / E, /* elements in a 128-byte box row */
        V = 16 / E,    /* elements in a 16-byte vector */
        BYTES = TR * TC * E,
        NV = TR * TC / V / TB, /* output vectors a thread gathers */
        QS = TB / TC,          /* q step between a thread's vectors */
    };
    static_assert(TR % EPR == 0 && TC % EPR == 0 && TC % 32 == 0 && NV * V * TB == TR * TC, "tile shape");
    static_assert(TB % TC == 0 && (QS * V) % 8 == 0 && EPR / V == 8, "the gather's swizzle term is per thread");
    static_assert(TR <= 256 && TC <= 256, "a box dimension is at most 256 elements");
    static_assert(BYTES <= 48 * 1024, "static shared memory");
};

/* Byte offset of element (r, c) of a tile stored as boxes of 128-byte rows:
 * box c / EPR holds columns [c0, c0 + EPR) of all `nrows` rows, 128-byte
 * swizzled (every box starts on a 1024-byte boundary: nrows is a multiple
 * of 8). */
template <int E> static __device__ __forceinline__ uint32_t tp_tma_at(int r, int c, int nrows)
{
    enum { EPR = 128 / E, V = 16 / E };
    const int b = c / EPR, cc = c % EPR;
    return (uint32_t)(b * nrows * 128 + r * 128 + ((((cc / V) ^ (r & 7))) << 4) + (cc % V) * E);
}

/* Blocks a SM the registers are bounded for: W = 1 as measured (f32 and
 * f64 56 registers, 9 blocks; 2-byte 78, 6); W = 2 the same registers a
 * thread at twice the threads. */
template <int E, int W> struct tp_tma_occ {
    enum { MIN = W == 1 ? (E == 2 ? 6 : 8) : (E == 2 ? 3 : 4) };
};

template <int E, int W>
static __global__ void __launch_bounds__(tp_tma_tile<E, W>::TB, tp_tma_occ<E, W>::MIN)
    tp_tma(const __grid_constant__ CUtensorMap tin, const __grid_constant__ CUtensorMap tout, uint32_t tiles_r,
           uint32_t tiles_c, uint32_t band)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    typedef tp_tma_tile<E, W> S;
    typedef typename tp_word<E>::type T;
    enum { TR = S::TR, TC = S::TC, EPR = S::EPR, V = S::V, TB = S::TB };
    union vec {
        uint4 u;
        T e[V];
    };
    __shared__ __align__(1024) unsigned char tile[S::BYTES];
    __shared__ __align__(8) uint64_t bar;

    /* the block's tile: bands of `band` tile rows, down each band first */
    const uint32_t per_band = band * tiles_c, bi = blockIdx.x / per_band, w = blockIdx.x - bi * per_band;
    const uint32_t first = bi * band, nb = min(band, tiles_r - first);
    const int r0 = (int)((first + w % nb) * TR), c0 = (int)((w / nb) * TC);

    if (threadIdx.x == 0) {
        mbar_init(&bar, 1);
        mbar_arrive_expect(&bar, S::BYTES);
#pragma unroll
        for (int b = 0; b < TC / EPR; b++) /* box b: columns c0 + b EPR .., rows r0 .. r0 + TR */
            tma_load_2d(tile + b * TR * 128, &tin, c0 + b * EPR, r0, &bar);
    }
    __syncthreads(); /* the barrier is initialised before anyone waits on it */
    mbar_wait(&bar, 0);

    /* gather: vector (j, q) is output row j (input column j), input rows
     * q V .. q V + V - 1. Thread t takes j = t % TC and q = t / TC + p QS
     * for p < NV (consecutive threads: consecutive j). Since QS V is a
     * multiple of 8 rows, the swizzle term of input row q V + k does not
     * depend on p: the V offsets are computed once and p adds p QS V 128
     * bytes (an immediate). */
    const int j = (int)threadIdx.x % TC, q0 = (int)threadIdx.x / TC;
    uint32_t at_k[V];
#pragma unroll
    for (int k = 0; k < V; k++)
        at_k[k] = tp_tma_at<E>(q0 * V + k, j, TR);
    vec v[S::NV];
#pragma unroll
    for (int p = 0; p < S::NV; p++) {
#pragma unroll
        for (int k = 0; k < V; k++)
            v[p].e[k] = *(const T *)(tile + at_k[k] + p * S::QS * V * 128);
    }
    __syncthreads(); /* every read of the input layout is done */
    /* scatter: output element (j, q V) lives in output box q V / EPR = q / 8
     * (TC rows of 128 bytes), chunk (q & 7) ^ (j & 7) of row j */
    const uint32_t row_j = (uint32_t)j * 128;
#pragma unroll
    for (int p = 0; p < S::NV; p++) {
        const int q = q0 + p * S::QS;
        *(uint4 *)(tile + (uint32_t)(q >> 3) * TC * 128 + row_j + ((uint32_t)((q ^ j) & 7) << 4)) = v[p].u;
    }
    fence_proxy_async(); /* our shared stores, before the bulk stores read them */
    __syncthreads();
    if (threadIdx.x == 0) {
#pragma unroll
        for (int a = 0; a < TR / EPR; a++) /* box a: output columns r0 + a EPR .., rows c0 .. c0 + TC */
            tma_store_2d(&tout, r0 + a * EPR, c0, tile + a * TC * 128);
        bulk_commit();
        bulk_wait_read_all(); /* the tile must outlive the engine's reads */
    }
#else
    /* Compiled for an architecture without TMA: the launcher checks the
     * loaded code's version first, so reaching this is a bug. */
    (void)tin;
    (void)tout;
    (void)tiles_r;
    (void)tiles_c;
    (void)band;
    __trap();
#endif
}

/* ---- the host side ---------------------------------------------------- */

/* A row-major matrix of `rows` rows of `cols` elements, `stride` bytes
 * apart, read or written in boxes of box_c x box_r elements, 128B swizzle. */
static sl_status tp_encode(sl_tmap_encode_fn enc, CUtensorMap *map, int es, void *base, uint64_t rows, uint64_t cols,
                           uint64_t stride, uint32_t box_c, uint32_t box_r, const char *which)
{
    const CUtensorMapDataType dt = es == 2   ? CU_TENSOR_MAP_DATA_TYPE_UINT16
                                   : es == 4 ? CU_TENSOR_MAP_DATA_TYPE_UINT32
                                             : CU_TENSOR_MAP_DATA_TYPE_INT64;
    return tmap_encode_2d(enc, map, dt, base, rows, cols, stride, box_c, box_r, CU_TENSOR_MAP_SWIZZLE_128B,
                          "transpose tma", which);
}

template <int E, int W> static sl_status launch_tma(const sl_args *x, uint32_t band_req, const char *who)
{
    typedef tp_tma_tile<E, W> S;
    static int code_cache[SL_MAX_DEVICES], carveout_set[SL_MAX_DEVICES];
    const uint64_t rows = x->shape.rows, cols = x->shape.cols, ld = x->shape.ld;
    if (rows == 0 || cols == 0)
        return SL_OK;
    int cc = 0;
    sl_status st = sl_cuda_current_cc(&cc);
    if (st != SL_OK)
        return st;
    if (cc < 90)
        return sl_fail(SL_ERR_UNSUPPORTED, "transpose %s: needs sm_90 or newer (TMA tensor copies); this device is sm_%d",
                       who, cc);
    if ((st = bulk_code_ok((const void *)tp_tma<E, W>, code_cache)) != SL_OK)
        return st;
    if ((uintptr_t)x->buf[0] % 16 || (uintptr_t)x->buf[1] % 16)
        return sl_fail(SL_ERR_UNSUPPORTED, "transpose %s: a tensor map needs 16-byte-aligned in and out (%p, %p)", who,
                       x->buf[0], x->buf[1]);
    if ((ld * E) % 16 || (rows * E) % 16)
        return sl_fail(SL_ERR_UNSUPPORTED,
                       "transpose %s: a tensor map's row stride must be a multiple of 16 bytes (in: ld %llu x %d, "
                       "out: rows %llu x %d)",
                       who, (unsigned long long)ld, E, (unsigned long long)rows, E);
    if (rows > 0x7fffffffull || cols > 0x7fffffffull || ld * E >= (1ull << 40))
        return sl_fail(SL_ERR_UNSUPPORTED, "transpose %s: %llu x %llu (ld %llu) exceeds the tensor map's coordinates",
                       who, (unsigned long long)rows, (unsigned long long)cols, (unsigned long long)ld);
    tp_geom g = tp_geom();
    if ((st = tp_geometry(x, S::TR, S::TC, who, &g)) != SL_OK)
        return st;
    sl_tmap_encode_fn enc = NULL;
    if ((st = tmap_encoder(&enc, "transpose tma")) != SL_OK)
        return st;
    CUtensorMap tin, tout;
    if ((st = tp_encode(enc, &tin, E, x->buf[0], rows, cols, ld * E, S::EPR, S::TR, "input")) != SL_OK ||
        (st = tp_encode(enc, &tout, E, x->buf[1], cols, rows, rows * E, S::EPR, S::TC, "output")) != SL_OK)
        return st;
    /* 9 blocks a SM (registers bind first) need ~153 KB of shared memory:
     * ask for the largest carve-out rather than rely on the default (once
     * per device: the setting stays with the kernel) */
    if ((st = sl_cuda_func_attr_once((const void *)tp_tma<E, W>, cudaFuncAttributePreferredSharedMemoryCarveout,
                                     cudaSharedmemCarveoutMaxShared, carveout_set)) != SL_OK)
        return st;
    const uint32_t band = band_req < g.tiles_r ? band_req : g.tiles_r;
    tp_tma<E, W><<<g.grid, S::TB, 0, (cudaStream_t)x->stream>>>(tin, tout, g.tiles_r, g.tiles_c, band);
    SL_CUDA_LAUNCHED();
    return SL_OK;
}

#define TP_TMA_SIZES(DT, CALL)                                                                  \
    switch (sl_dtype_size(DT)) {                                                                 \
    case 2: return CALL(2);                                                                      \
    case 4: return CALL(4);                                                                      \
    case 8: return CALL(8);                                                                      \
    default: return sl_fail(SL_ERR_UNSUPPORTED, "transpose tma: no kernel for %s", sl_dtype_name(DT)); \
    }

#define TP_TMA_ATTRS(E) sl_cuda_kernel_attrs((const void *)tp_tma<E, 1>, tp_tma_tile<E, 1>::TB, 0, out)
#define TP_TMA_ATTRS2(E) sl_cuda_kernel_attrs((const void *)tp_tma<E, 2>, tp_tma_tile<E, 2>::TB, 0, out)
#define TP_TMA_CALL_ROW(E) launch_tma<E, 1>(x, 1, "tma")
#define TP_TMA_CALL_COL(E) launch_tma<E, 1>(x, 0xffffffffu, "tma_col")
#define TP_TMA_CALL_COL2(E) launch_tma<E, 2>(x, 0xffffffffu, "tma_col2")

extern "C" sl_status sl_cuda_transpose_tma(const sl_args *x)
{
    TP_TMA_SIZES(x->dtype, TP_TMA_CALL_ROW)
}
extern "C" sl_status sl_cuda_transpose_tma_attrs(sl_dtype dt, sl_kernel_attrs *out)
{
    TP_TMA_SIZES(dt, TP_TMA_ATTRS)
}
extern "C" sl_status sl_cuda_transpose_tma_col(const sl_args *x)
{
    TP_TMA_SIZES(x->dtype, TP_TMA_CALL_COL)
}
extern "C" sl_status sl_cuda_transpose_tma_col_attrs(sl_dtype dt, sl_kernel_attrs *out)
{
    TP_TMA_SIZES(dt, TP_TMA_ATTRS)
}
extern "C" sl_status sl_cuda_transpose_tma_col2(const sl_args *x)
{
    TP_TMA_SIZES(x->dtype, TP_TMA_CALL_COL2)
}
extern "C" sl_status sl_cuda_transpose_tma_col2_attrs(sl_dtype dt, sl_kernel_attrs *out)
{
    TP_TMA_SIZES(dt, TP_TMA_ATTRS2)
}
