/*
 * stencil rung 6: tma, ours (issue 26, item 4): the bulk-copied tile with
 * its halo. Needs sm_90.
 *
 * Change from the register-window rungs (regwin4, regwin2): no strips.
 * Each block computes one tile of TH x TW = 32 x 128 outputs; one thread
 * loads the tile's input with its halo, (32 + 2R) rows x 136 columns
 * (columns c0 - 4 .. c0 + 131: the R <= 4 halo columns rounded up to one
 * 16-byte chunk a side, so every row of the box is 544 bytes and its
 * centre starts 16-byte aligned in shared memory), with ONE 2-D bulk
 * tensor copy (cp.async.bulk.tensor.2d through a tensor map, no swizzle)
 * completing on one mbarrier. The map's extents are rows x cols, so
 * everything outside the grid (rows -R.. -1 and past the last, columns
 * left of 0 and from cols on, the padding columns included) loads as +0.0f
 * without being read: the op's boundary rule (stencil.h) with no edge
 * code, and the padding is never touched.
 * Compute, from shared memory: lane l of warp w owns the 4 columns
 * c0 + 4l .. c0 + 4l + 3 of the 8 rows 8w .. 8w + 7; it walks down them
 * with a register ring of 2R + 1 float4 centre chunks (the vertical
 * terms; one LDS.128 a row) and reads the row's left and right chunks
 * (LDS.128 each: columns -4 .. +7 cover W_k and E_k for k <= 4), so a
 * row costs 3 LDS.128 for 4 points, plus 2R to fill the ring per 8 rows;
 * then c_0 x and the R steps in the one order (stencil.cuh: stencil_first,
 * stencil_step), the same bits as every rung; one STG.128 a row (a warp
 * writes 512 contiguous bytes). No barrier after the mbarrier wait.
 *
 * Why one tile a block and not a persistent block with a ring of stages:
 *  - balance: the repo measured what a persistent grid with a fixed share
 *    per SM costs at DRAM sizes (hw.c [SP], docs/model.md "static
 *    partition": 1.055 on the H200); 16384 short blocks are balanced by
 *    the block scheduler instead;
 *  - bytes in flight come from the resident blocks instead of stages: a
 *    block's whole tile is one request issued at its start, and 8 blocks
 *    a SM keep up to 8 tiles (8 x 21.3 KiB at R = 4) loading or computing,
 *    with no mbarrier phase bookkeeping, no empty barriers, no refills;
 *  - the walk: blockIdx in row order of the tiles (64 tiles across at
 *    8192 columns), and the scheduler starts blocks in blockIdx order, so
 *    the ~1056 resident blocks (132 SMs x 8) cover one band of ~16 whole
 *    tile rows (~530 grid rows) that moves down the grid: reads and writes
 *    run along whole rows, next to each other in time, as a linear copy's
 *    do (the transpose's tma_col gained 5% by keeping the resident blocks'
 *    writes in neighbouring rows; docs/ladder.md, "TMA tiles (issue 26,
 *    item 3)"). regwin's ~1200 strips each read and write one 1 KiB piece
 *    of a different row at their own pace. The halo rows of a tile are
 *    rows of the tile rows above and below, loaded by blocks of the same
 *    band a few microseconds apart: L2 serves them, DRAM sees the grid
 *    once (the `moved` of the variant: L2-to-SM reads (32 + 2R) x 136 /
 *    (32 x 128) = 1.13 (R = 1) to 1.33 (R = 4) x the grid).
 *  - stores: STG.128 from registers, not a TMA store: a warp's store is
 *    already one 512-byte run of a row, and the walk, not the engine,
 *    sets the write pattern (the transpose's tma and vec wrote at the same
 *    pace); a TMA store would need an output tile in shared memory (16 KiB
 *    a block: 5 blocks a SM instead of 8) and a wait before exit.
 *
 * Bytes in flight per SM (Little's law; the H200 needs ~40-50 KiB a SM,
 * docs/probes.md): each resident block has its whole input tile in flight
 * from its start until its mbarrier completes: (32 + 2R) x 544 B = 18.1
 * KiB (R = 1) to 21.3 KiB (R = 4). Resident blocks a SM (registers bind;
 * ptxas below): 10 at R = 1, 9 at R = 2, 8 at R = 3, 4, so up to 181 /
 * 172 / 161 / 170 KiB a SM, 3.5 x the knee; with half the blocks
 * computing at any time, still ~80 KiB. Shared memory: 8-10 x (18.1-21.3
 * KiB + 1 KiB reserved) = 178-191 KiB of the 228 KiB; the launcher asks
 * for the largest carve-out.
 *
 * Instructions: a point costs 1 + 4R FP32 instructions (c_0 x, then 3
 * FADD + 1 FFMA per k: the order is fixed), and per 4 points 3-4 LDS.128
 * (at R = 1 the compiler narrows the side chunks to one LDS.32 each) and
 * one STG.128: ~20 PTX instructions a point at R = 4, ~8 at R = 1 (from
 * the PTX of the interior instance; SASS not read), where regwin2 and
 * regwin4 take ~40 at R = 4 and ~28 at R = 1 (docs/ladder.md, issue 26).
 *
 * ptxas -v (sm_90, CUDA 13.0, the library's flags): stencil_tma<1> 44
 * registers, <2> 53, <3> 63, <4> 64 (the bound of __launch_bounds__(128,
 * 8)); 0 bytes stack, 0 spill stores or loads; 18504 / 19592 / 20680 /
 * 21768 bytes of static shared memory (the box and the 8-byte mbarrier);
 * 1 barrier. Occupancy: 10 / 9 / 8 / 8 blocks of 4 warps a SM, 62 / 56 /
 * 50 / 50% of the warps.
 *
 * Refused with SL_ERR_UNSUPPORTED (and the reason): radii above 4 (the
 * 4-column halo chunk; the other rungs take them), a device or a binary
 * without sm_90 code, in or out not 16-byte aligned, ld not a multiple of
 * 4 (the map's row stride and the STG.128 rows need 16 bytes), and grids
 * past the map's signed 32-bit coordinates.
 */
#include "stencil.cuh"
#include "bulk.cuh"       /* bulk_code_ok, the mbarrier wrappers (bulk_copy.cuh) */
#include "tensor_map.cuh" /* tma_load_2d, tmap_encoder, tmap_encode_2d */

#include <atomic>

enum {
    TM_TH = 32,                 /* output rows of a tile */
    TM_TW = 128,                /* output columns of a tile: 32 lanes x 4 */
    TM_HP = 4,                  /* halo columns loaded a side: one 16-byte chunk (R <= 4) */
    TM_BW = TM_TW + 2 * TM_HP,  /* box width, columns (544 bytes) */
    TM_NW = 4,                  /* warps a block */
    TM_BX = 32 * TM_NW,         /* threads a block */
    TM_RPW = TM_TH / TM_NW,     /* rows a warp walks */
    TM_MAXR = TM_HP
};

template <int R> struct tm_cfg {
    enum {
        BH = TM_TH + 2 * R,         /* box height, rows */
        BYTES = BH * TM_BW * 4,     /* the box: the mbarrier's transaction bytes */
        L = 2 * R + 1               /* ring of centre chunks */
    };
    static_assert(R >= 1 && R <= TM_MAXR, "the halo chunk covers R <= 4");
    static_assert(BH <= 256 && TM_BW <= 256, "a box dimension is at most 256 elements");
    static_assert((TM_BW * 4) % 16 == 0 && TM_HP % 4 == 0, "16-byte box rows, 16-byte aligned centre chunks");
    static_assert(TM_TH % TM_NW == 0 && TM_TW == 4 * 32, "a warp: 32 lanes x 4 columns x TM_RPW rows");
};

/* component q of a float4 (a template only so that a compilation for an
 * architecture without TMA, where nothing calls it, does not warn) */
template <class F4> static __device__ __forceinline__ float tm_get(const F4 &v, int q)
{
    return q == 0 ? v.x : q == 1 ? v.y : q == 2 ? v.z : v.w;
}

/* One tile's outputs from the box in shared memory: box row s holds grid
 * row r0 - R + s, box column p grid column c0 - TM_HP + p. EDGE: the tile
 * reaches past the last row or column (block-uniform), so each row and
 * each thread's columns are checked before the store. */
template <int R, bool EDGE>
static __device__ __forceinline__ void tm_tile(const float *__restrict__ box, float *__restrict__ out,
                                               const stencil_dims &d, int r0, int c0)
{
    enum { L = tm_cfg<R>::L };
    const int lane = (int)threadIdx.x & 31, rw = ((int)threadIdx.x >> 5) * TM_RPW;
    /* b: our centre chunk in box row rw (grid row r0 + rw - R) */
    const float *b = box + rw * TM_BW + TM_HP + 4 * lane;
    const long long c = (long long)c0 + 4 * lane;
    float *o = out + ((long long)r0 + rw) * d.ld + c;
    const bool cfull = !EDGE || c + 3 < d.cols;
    float4 ring[L];
#pragma unroll
    for (int t = 0; t < 2 * R; t++)
        ring[t] = *(const float4 *)(b + t * TM_BW);
#pragma unroll
    for (int i = 0; i < TM_RPW; i++) {
        /* output row rw + i is box row rw + i + R; the ring gets box row
         * rw + i + 2R into the slot of box row rw + i - 1, done with */
        ring[(i + 2 * R) % L] = *(const float4 *)(b + (i + 2 * R) * TM_BW);
        const float *m = b + (i + R) * TM_BW;
        const float4 lf = *(const float4 *)(m - 4), ct = ring[(i + R) % L], rt = *(const float4 *)(m + 4);
        /* win[4 + e] = column 4 lane + e of the row, e = -4 .. 7 */
        const float win[12] = {lf.x, lf.y, lf.z, lf.w, ct.x, ct.y, ct.z, ct.w, rt.x, rt.y, rt.z, rt.w};
        float res[4];
#pragma unroll
        for (int q = 0; q < 4; q++) {
            float acc = stencil_first(win[4 + q]);
#pragma unroll
            for (int k = 1; k <= R; k++)
                acc = stencil_step(acc, k, win[4 + q - k], win[4 + q + k], tm_get(ring[(i + R - k) % L], q),
                                   tm_get(ring[(i + R + k) % L], q));
            res[q] = acc;
        }
        if (!EDGE) {
            *(float4 *)o = make_float4(res[0], res[1], res[2], res[3]);
        } else if ((long long)r0 + rw + i < d.rows) {
            if (cfull) {
                *(float4 *)o = make_float4(res[0], res[1], res[2], res[3]);
            } else {
#pragma unroll
                for (int q = 0; q < 3; q++)
                    if (c + q < d.cols)
                        o[q] = res[q];
            }
        }
        o += d.ld;
    }
}

template <int R>
static __global__ void __launch_bounds__(TM_BX, 8)
    stencil_tma(const __grid_constant__ CUtensorMap tin, float *__restrict__ out, stencil_dims d, uint32_t tiles_c)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    typedef tm_cfg<R> C;
    __shared__ __align__(128) float box[C::BH * TM_BW];
    __shared__ __align__(8) uint64_t bar;
    /* tiles in row order: blocks started together cover neighbouring
     * tiles of the same tile rows */
    const uint32_t tr = blockIdx.x / tiles_c, tc = blockIdx.x - tr * tiles_c;
    const int r0 = (int)(tr * TM_TH), c0 = (int)(tc * TM_TW);
    if (threadIdx.x == 0) {
        mbar_init(&bar, 1);
        mbar_arrive_expect(&bar, C::BYTES);
        tma_load_2d(box, &tin, c0 - TM_HP, r0 - R, &bar);
    }
    __syncthreads(); /* the barrier is initialised before anyone waits on it */
    mbar_wait(&bar, 0);
    if ((long long)c0 + TM_TW <= d.cols && (long long)r0 + TM_TH <= d.rows) /* uniform across the block */
        tm_tile<R, false>(box, out, d, r0, c0);
    else
        tm_tile<R, true>(box, out, d, r0, c0);
#else
    /* Compiled for an architecture without TMA: the launcher checks the
     * loaded code's version first, so reaching this is a bug. */
    (void)tin;
    (void)out;
    (void)d;
    (void)tiles_c;
    __trap();
#endif
}

/* ---- the host side ---------------------------------------------------- */

/* kernels this rung launched in this process: test_gpu_stencil tells the
 * public function's tma pick from its regwin4 fallback by it */
static std::atomic<unsigned long long> g_tma_launches{0};

template <int R> static sl_status launch_tma(const sl_args *x)
{
    typedef tm_cfg<R> C;
    static int code_cache[SL_MAX_DEVICES], carveout_set[SL_MAX_DEVICES];
    const void *fn = (const void *)stencil_tma<R>;
    const stencil_dims d = stencil_dims_of(x);
    sl_status st = bulk_code_ok(fn, code_cache);
    if (st != SL_OK)
        return st;
    const uint64_t tiles_r = ((uint64_t)d.rows + TM_TH - 1) / TM_TH, tiles_c = ((uint64_t)d.cols + TM_TW - 1) / TM_TW;
    if (tiles_r * tiles_c > 0x7fffffffull)
        return sl_fail(SL_ERR_UNSUPPORTED, "stencil tma: %lld x %lld needs %llu tiles, above the grid limit 2^31 - 1",
                       d.rows, d.cols, (unsigned long long)(tiles_r * tiles_c));
    sl_tmap_encode_fn enc = NULL;
    CUtensorMap tin;
    if ((st = tmap_encoder(&enc, "stencil tma")) != SL_OK ||
        (st = tmap_encode_2d(enc, &tin, CU_TENSOR_MAP_DATA_TYPE_UINT32, x->buf[0], (uint64_t)d.rows,
                             (uint64_t)d.cols, (uint64_t)d.ld * 4, TM_BW, C::BH, CU_TENSOR_MAP_SWIZZLE_NONE,
                             "stencil tma", "input")) != SL_OK)
        return st;
    /* 8 blocks of 18.5-21.3 KiB a SM: ask for the largest carve-out (once
     * per device), then the lab's knob where it is set */
    if ((st = sl_cuda_func_attr_once(fn, cudaFuncAttributePreferredSharedMemoryCarveout,
                                     cudaSharedmemCarveoutMaxShared, carveout_set)) != SL_OK ||
        (st = stencil_apply_carveout(fn)) != SL_OK)
        return st;
    stencil_tma<R><<<(unsigned)(tiles_r * tiles_c), TM_BX, 0, (cudaStream_t)x->stream>>>(
        tin, (float *)x->buf[1], d, (uint32_t)tiles_c);
    SL_CUDA_LAUNCHED();
    g_tma_launches.fetch_add(1, std::memory_order_relaxed);
    return SL_OK;
}

extern "C" unsigned long long sl_cuda_stencil_tma_launches(void)
{
    return g_tma_launches.load(std::memory_order_relaxed);
}

extern "C" sl_status sl_cuda_stencil_tma(const sl_args *x)
{
    int r = 0;
    sl_status st = sl_stencil_check(x, "stencil tma", &r);
    if (st != SL_OK)
        return st;
    if (r > TM_MAXR)
        return sl_fail(SL_ERR_UNSUPPORTED, "stencil tma: radius %d is above %d (the halo is one 16-byte chunk a side)",
                       r, TM_MAXR);
    int cc = 0;
    if ((st = sl_cuda_current_cc(&cc)) != SL_OK)
        return st;
    if (cc < 90)
        return sl_fail(SL_ERR_UNSUPPORTED,
                       "stencil tma: needs sm_90 or newer (TMA tensor copies); this device is sm_%d", cc);
    if ((uintptr_t)x->buf[0] % 16 || (uintptr_t)x->buf[1] % 16)
        return sl_fail(SL_ERR_UNSUPPORTED, "stencil tma: needs 16-byte-aligned in and out (%p, %p)", x->buf[0],
                       x->buf[1]);
    const uint64_t rows = x->shape.rows, cols = x->shape.cols, ld = x->shape.ld;
    if (ld % 4)
        return sl_fail(SL_ERR_UNSUPPORTED,
                       "stencil tma: the row stride (ld %llu x 4 bytes) must be a multiple of 16 bytes",
                       (unsigned long long)ld);
    /* box coordinates are signed 32-bit: the last tile's rows and columns,
     * with their halos, must stay below 2^31; the map's stride below 2^40 */
    if (rows > 0x7fffffffull - 2 * TM_TH || cols > 0x7fffffffull - 2 * TM_TW || ld * 4 >= (1ull << 40))
        return sl_fail(SL_ERR_UNSUPPORTED, "stencil tma: %llu x %llu (ld %llu) exceeds the tensor map's coordinates",
                       (unsigned long long)rows, (unsigned long long)cols, (unsigned long long)ld);
    switch (r) {
    case 1: return launch_tma<1>(x);
    case 2: return launch_tma<2>(x);
    case 3: return launch_tma<3>(x);
    default: return launch_tma<4>(x);
    }
}

extern "C" sl_status sl_cuda_stencil_tma_attrs(sl_dtype dt, sl_kernel_attrs *out)
{
    (void)dt;
    return sl_cuda_kernel_attrs((const void *)stencil_tma<SL_STENCIL_DEFAULT_RADIUS>, TM_BX, 0, out);
}
