/*
 * stencil rung 3: regwin, ours: a register sliding window along the rows
 * (the 2.5-D blocking of Micikevicius, "3D Finite Difference Computation
 * on GPUs using CUDA", GPGPU-2 2009, and of Nguyen et al., SC'10, brought
 * down to 2-D: one axis streamed through registers, the other through
 * shared memory).
 *
 * A block of 128 threads owns a strip of h rows by RW_W = 256 columns. The
 * strips are as tall as one wave of resident blocks allows: with gx column
 * blocks and B blocks resident on the device, gy = max(1, B / gx) strips
 * of h = ceil(rows / gy) rows (at 8192^2 and R = 4: 33 strips of 249 rows,
 * 1056 blocks, one wave), so that the 2R halo rows each strip re-reads are
 * as few as the device's parallelism allows (the lab knob SL_STENCIL_STRIP,
 * 8..4096, forces h, for bench/stencil_h200.sh). Each thread owns RW_V = 2
 * columns, j0 + tx and j0 + tx + 128
 * (coalesced loads), and walks the strip top to bottom. It keeps the
 * column's 2R + 1 + D rows around the current one in a register ring (the
 * vertical neighbours N_k, S_k and D rows loaded ahead, for bytes in
 * flight), so every input is loaded from global memory once per strip.
 * The horizontal neighbours come from a one-row shared-memory line (double
 * buffered: one barrier per row) that the threads fill from their rings'
 * centre values; the 2R halo columns of the line come from rings of their
 * own in the first 2R threads. The row loop is unrolled by the ring's
 * length L = 2R + 1 + D, so every ring index is a compile-time constant
 * (registers, no moves, no local memory).
 *
 * Expectation (docs/ladder.md, "Stencil"): global loads per output
 * (1 + 2R / h) (1 + 2R / 256): 1.06x at R = 4 and h = 249 (the halo
 * columns hit L2: the neighbouring block reads them at the same time),
 * 2R shared-memory loads per output instead of 4R + 1, no misaligned
 * global loads. DRAM-bound at R <= 4 (target >= 0.9x the copy ceiling);
 * issue-bound near 5R + 2R/2 + 10 instructions per output at large R.
 */
#include "stencil.cuh"

#include <stdlib.h>

enum { RW_BX = 128, RW_V = 2, RW_W = RW_BX * RW_V };

template <int R> struct rw_cfg {
    enum { D = R <= 8 ? 4 : 2, L = 2 * R + 1 + D, LINE = RW_W + 2 * R };
    /* Resident blocks asked of the register allocator: the ring is
     * 3 L registers; left alone, ptxas hoists the loads of later steps of
     * the unrolled loop and takes 165 registers at R = 4. */
    enum { MINB = R <= 4 ? 8 : (R <= 8 ? 4 : 2) };
};

template <int R>
static __global__ void __launch_bounds__(RW_BX, rw_cfg<R>::MINB) stencil_regwin(const float *__restrict__ in, float *__restrict__ out,
                                                               stencil_dims d, long long h)
{
    enum { D = rw_cfg<R>::D, L = rw_cfg<R>::L, LINE = rw_cfg<R>::LINE };
    __shared__ float line[2][LINE];
    const int tx = threadIdx.x;
    const long long j0 = (long long)blockIdx.x * RW_W;
    const long long i0 = (long long)blockIdx.y * h;
    const long long iend = min(i0 + (long long)h, d.rows);
    /* Columns: RW_V of our own, and one halo column for tx < 2R (left halo
     * j0 - R + tx for tx < R, right halo j0 + RW_W + tx - R otherwise). */
    long long col[RW_V + 1];
#pragma unroll
    for (int v = 0; v < RW_V; v++)
        col[v] = j0 + tx + v * RW_BX;
    const bool halo = tx < 2 * R;
    col[RW_V] = tx < R ? j0 - R + tx : j0 + RW_W + tx - R;
    bool colok[RW_V + 1];
#pragma unroll
    for (int v = 0; v <= RW_V; v++)
        colok[v] = col[v] >= 0 && col[v] < d.cols && (v < RW_V || halo);
    /* line positions of our values */
    const int hpos = tx < R ? tx : RW_W + tx;

    /* The ring: ring[v][s] holds row (i0 - R + s) + n L for the current lap n. */
    float ring[RW_V + 1][L];
#pragma unroll
    for (int s = 0; s < L; s++) {
        const long long r = i0 - R + s;
        const bool rok = r >= 0 && r < d.rows && r < iend + R;
#pragma unroll
        for (int v = 0; v <= RW_V; v++)
            ring[v][s] = rok && colok[v] ? in[r * d.ld + col[v]] : 0.0f;
    }

    int buf = 0;
    for (long long base = i0; base < iend; base += L) {
#pragma unroll
        for (int p = 0; p < L; p++) {
            const long long i = base + p;
            if (i >= iend)
                break; /* uniform across the block */
            /* slot of row i + q: (p + R + q) mod L */
            float *ln = line[buf];
#pragma unroll
            for (int v = 0; v < RW_V; v++)
                ln[R + tx + v * RW_BX] = ring[v][(p + R) % L];
            if (halo)
                ln[hpos] = ring[RW_V][(p + R) % L];
            __syncthreads();
#pragma unroll
            for (int v = 0; v < RW_V; v++) {
                const int c = R + tx + v * RW_BX;
                float acc = stencil_first(ring[v][(p + R) % L]);
#pragma unroll
                for (int k = 1; k <= R; k++)
                    acc = stencil_step(acc, k, ln[c - k], ln[c + k], ring[v][(p + R - k) % L],
                                       ring[v][(p + R + k) % L]);
                if (col[v] < d.cols)
                    out[i * d.ld + col[v]] = acc;
            }
            /* Row i - R is done with: its slot takes row i + R + D + 1. */
            const long long r = i + R + D + 1;
            const bool rok = r < d.rows && r < iend + R;
#pragma unroll
            for (int v = 0; v <= RW_V; v++)
                ring[v][p % L] = rok && colok[v] ? in[r * d.ld + col[v]] : 0.0f;
            buf ^= 1;
        }
    }
}

template <int R> static sl_status launch_regwin(const sl_args *x)
{
    const stencil_dims d = stencil_dims_of(x);
    static sl_grid_cache cache;
    stencil_strips s;
    sl_status st = stencil_strips_of(d, RW_W, &cache, (const void *)stencil_regwin<R>, RW_BX, &s);
    if (st == SL_OK)
        st = stencil_strips_fit(d, &s, "stencil regwin");
    if (st == SL_OK)
        st = stencil_apply_carveout((const void *)stencil_regwin<R>);
    if (st != SL_OK)
        return st;
    stencil_regwin<R><<<dim3((unsigned)s.gx, (unsigned)s.gy), RW_BX, 0, (cudaStream_t)x->stream>>>(
        (const float *)x->buf[0], (float *)x->buf[1], d, s.h);
    SL_CUDA_LAUNCHED();
    return SL_OK;
}

#define RW_CALL(R) launch_regwin<R>(x)

extern "C" sl_status sl_cuda_stencil_regwin(const sl_args *x)
{
    int r = 0;
    sl_status st = sl_stencil_check(x, "stencil regwin", &r);
    if (st != SL_OK)
        return st;
    SL_STENCIL_DISPATCH(r, RW_CALL)
}

extern "C" sl_status sl_cuda_stencil_regwin_attrs(sl_dtype dt, sl_kernel_attrs *out)
{
    (void)dt;
    return sl_cuda_kernel_attrs((const void *)stencil_regwin<SL_STENCIL_DEFAULT_RADIUS>, RW_BX, 0, out);
}

/* sl_stencil2d() on a CUDA context, by radius (H200, 8192^2 f32, fraction
 * of the copy; bench/results/h200-stencil-2026-11-27.md): R = 3 and 4
 * regwin2 (0.909 / 0.895 against regwin4's 0.860 / 0.859), R = 2
 * regwin4_d8 (0.892 against 0.853), R = 1 and above 4 regwin4 (R = 1:
 * 0.857-0.863 for all three). Each falls back as its rung does: regwin2
 * to regwin for rows not 8-byte aligned, regwin4 and regwin4_d8 to regwin
 * for rows not 16-byte aligned (docs/ladder.md). Twentieth session: R = 1
 * at 2^26 points and more takes tma (06_tma.cu; 0.905-0.916 of the copy
 * against regwin4's 0.843-0.849, two rounds,
 * bench/results/h200-stencil-tma-2026-11-28.md), which refuses below
 * sm_90, for pointers not 16-byte aligned and ld not a multiple of 4:
 * then regwin4 as before. At R = 2-4 tma measured within 1.5% of the
 * picks (behind at R = 4), so they stay; smaller grids are unmeasured. */
extern "C" sl_status sl_cuda_stencil_api(const sl_args *x)
{
    const int r = sl_stencil_radius(&x->shape);
    if (r == 1 && x->shape.rows * x->shape.cols >= (1ull << 26)) {
        const sl_status st = sl_cuda_stencil_tma(x);
        if (st != SL_ERR_UNSUPPORTED)
            return st;
    }
    if (r == 3 || r == 4)
        return sl_cuda_stencil_regwin2(x);
    if (r == 2)
        return sl_cuda_stencil_regwin4_d8(x);
    return sl_cuda_stencil_regwin4(x);
}

/* The environment variable `name` as a whole decimal number in lo..hi, or
 * `none` (unset or anything else). */
static int stencil_env(const char *name, long lo, long hi, int none)
{
    const char *e = getenv(name);
    char *end = NULL;
    const long v = e ? strtol(e, &end, 10) : none;
    return e && end != e && *end == '\0' && v >= lo && v <= hi ? (int)v : none;
}

extern "C" int sl_stencil_strip(void)
{
    static int cached = -1;
    if (cached < 0)
        cached = stencil_env("SL_STENCIL_STRIP", 8, 4096, 0);
    return cached;
}

extern "C" int sl_stencil_carveout(void)
{
    static int cached = -2;
    if (cached == -2)
        cached = stencil_env("SL_STENCIL_CARVEOUT", 0, 100, -1);
    return cached;
}
