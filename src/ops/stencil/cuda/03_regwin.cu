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

/* Rows per strip forced by SL_STENCIL_STRIP (8..4096), or 0: automatic. */
static int rw_strip_forced(void)
{
    static int cached = -1;
    if (cached < 0) {
        const char *e = getenv("SL_STENCIL_STRIP");
        char *end = NULL;
        const long v = e ? strtol(e, &end, 10) : 0;
        cached = e && end != e && *end == '\0' && v >= 8 && v <= 4096 ? (int)v : 0;
    }
    return cached;
}

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
    const unsigned long long gx = ((unsigned long long)d.cols + RW_W - 1) / RW_W;
    long long h = rw_strip_forced();
    if (h == 0) {
        static sl_grid_cache cache;
        int resident = 0;
        sl_status sg = sl_cuda_persistent_grid(&cache, (const void *)stencil_regwin<R>, RW_BX, 0, &resident);
        if (sg != SL_OK)
            return sg;
        const unsigned long long strips = (unsigned long long)resident > gx ? (unsigned long long)resident / gx : 1;
        h = (long long)(((unsigned long long)d.rows + strips - 1) / strips);
        if (h < 8)
            h = 8;
    }
    const unsigned long long gy = ((unsigned long long)d.rows + (unsigned long long)h - 1) / (unsigned long long)h;
    if (gy > 65535u || gx > 0x7fffffffu)
        return sl_fail(SL_ERR_INVALID_ARG,
                       "stencil regwin: %lld x %lld needs a %llu x %llu grid, above CUDA's limits", d.rows, d.cols,
                       gx, gy);
    sl_status st = stencil_apply_carveout((const void *)stencil_regwin<R>);
    if (st != SL_OK)
        return st;
    stencil_regwin<R><<<dim3((unsigned)gx, (unsigned)gy), RW_BX, 0, (cudaStream_t)x->stream>>>(
        (const float *)x->buf[0], (float *)x->buf[1], d, h);
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
 * for rows not 16-byte aligned (docs/ladder.md). */
extern "C" sl_status sl_cuda_stencil_api(const sl_args *x)
{
    const int r = sl_stencil_radius(&x->shape);
    if (r == 3 || r == 4)
        return sl_cuda_stencil_regwin2(x);
    if (r == 2)
        return sl_cuda_stencil_regwin4_d8(x);
    return sl_cuda_stencil_regwin4(x);
}

extern "C" int sl_stencil_carveout(void)
{
    static int cached = -2;
    if (cached == -2) {
        const char *e = getenv("SL_STENCIL_CARVEOUT");
        char *end = NULL;
        const long v = e ? strtol(e, &end, 10) : -1;
        cached = e && end != e && *end == '\0' && v >= 0 && v <= 100 ? (int)v : -1;
    }
    return cached;
}
