/*
 * stencil rung 4: regwin4, ours: regwin (03_regwin.cu) with 16-byte
 * accesses. Each of a block's 64 threads owns 4 consecutive columns (a
 * float4: one LDG.128 per row for 4 points, one STG.128 out), so the ring
 * of 2R + 1 + D rows is float4 wide; the one-row shared-memory line is
 * written with one STS.128 per thread and the horizontal neighbours of its
 * 4 points, columns c - R .. c + 3 + R, are read as 2 ceil(R/4) + 1
 * aligned float4 chunks (LDS.128) instead of 2R scalar LDS per point.
 * Same strips (one wave tall), same halo columns (scalar rings in the
 * first 2R threads), same order of operations: the same bits.
 *
 * Why: the profile of regwin at R = 4 (bench/results/h200-stencil-*):
 * 54 instructions per point, 47% occupancy at 64 registers, and 72% of
 * the copy ceiling with DRAM moving 1.03x the grid. Fewer, wider
 * instructions: a float4 row costs what a float cost, and 4x the bytes
 * per load in flight per thread.
 *
 * Needs 16-byte alignment of every row: in and out 16-byte aligned and ld
 * a multiple of 4. Otherwise the launcher runs regwin (same results). The
 * last column block handles a partial float4 element by element.
 */
#include "stencil.cuh"

enum { R4_BX = 64, R4_W = 4 * R4_BX };

/* AH > 0 forces the rows kept ahead (regwin4_d8: 8 at R <= 4, issue 11's
 * third pass: 16 B x 64 threads x 8 rows x 8 blocks = 64 KiB in flight per
 * SM, past the H200's ~48 KiB knee, where D = 4 keeps ~32 KiB). */
template <int R, int AH = 0> struct r4_cfg {
    enum {
        D = AH > 0 ? AH : (R <= 8 ? 4 : 2),
        L = 2 * R + 1 + D,
        OFF = (R + 3) / 4 * 4,    /* line index of the block's first column (16-byte aligned) */
        LINE = OFF + R4_W + OFF,
        NCH = 2 * ((R + 3) / 4) + 1, /* float4 chunks a thread reads from the line */
        MINB = AH > 0 ? 8 : (R <= 2 ? 12 : (R <= 4 ? 8 : (R <= 8 ? 6 : 2)))
    };
};

/* Row r, columns j .. j + 3, under the boundary rule. */
static __device__ __forceinline__ float4 r4_load(const float *__restrict__ in, long long r, long long j,
                                                 const stencil_dims &d)
{
    if (r < 0 || r >= d.rows)
        return make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    const float *p = in + r * d.ld + j;
    if (j + 3 < d.cols)
        return *(const float4 *)p;
    float4 v;
    v.x = j < d.cols ? p[0] : 0.0f;
    v.y = j + 1 < d.cols ? p[1] : 0.0f;
    v.z = j + 2 < d.cols ? p[2] : 0.0f;
    v.w = 0.0f;
    return v;
}

static __device__ __forceinline__ float r4_get(const float4 &v, int q)
{
    return q == 0 ? v.x : q == 1 ? v.y : q == 2 ? v.z : v.w;
}

template <int R, int AH>
static __global__ void __launch_bounds__(R4_BX, r4_cfg<R, AH>::MINB)
    stencil_regwin4(const float *__restrict__ in, float *__restrict__ out, stencil_dims d, long long h)
{
    typedef r4_cfg<R, AH> C;
    enum { D = C::D, L = C::L, OFF = C::OFF, LINE = C::LINE, NCH = C::NCH, B = 4 * ((R + 3) / 4) };
    __shared__ __align__(16) float line[2][LINE];
    const int tx = threadIdx.x;
    const long long j0 = (long long)blockIdx.x * R4_W;
    const long long i0 = (long long)blockIdx.y * h;
    const long long iend = min(i0 + h, d.rows);
    const long long j = j0 + 4 * tx;
    /* halo column of the first 2R threads: left j0 - R + tx, right j0 + W + tx - R */
    const bool halo = tx < 2 * R;
    const long long hc = tx < R ? j0 - R + tx : j0 + R4_W + tx - R;
    const bool hok = halo && hc >= 0 && hc < d.cols;
    const int hpos = tx < R ? OFF - R + tx : OFF + R4_W + tx - R;

    float4 ring[L];
    float hring[L];
#pragma unroll
    for (int s = 0; s < L; s++) {
        const long long r = i0 - R + s;
        const bool rok = r < iend + R;
        ring[s] = rok ? r4_load(in, r, j, d) : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        hring[s] = rok && hok && r >= 0 && r < d.rows ? in[r * d.ld + hc] : 0.0f;
    }

    int buf = 0;
    for (long long base = i0; base < iend; base += L) {
#pragma unroll
        for (int p = 0; p < L; p++) {
            const long long i = base + p;
            if (i >= iend)
                break; /* uniform across the block */
            float *ln = line[buf];
            *(float4 *)&ln[OFF + 4 * tx] = ring[(p + R) % L];
            if (halo)
                ln[hpos] = hring[(p + R) % L];
            __syncthreads();
            /* line[OFF + 4 tx - B .. OFF + 4 tx + 3 + B] as NCH aligned chunks */
            float win[4 * NCH];
#pragma unroll
            for (int c = 0; c < NCH; c++) {
                const float4 v = *(const float4 *)&ln[OFF + 4 * tx - B + 4 * c];
                win[4 * c] = v.x;
                win[4 * c + 1] = v.y;
                win[4 * c + 2] = v.z;
                win[4 * c + 3] = v.w;
            }
            float res[4];
#pragma unroll
            for (int q = 0; q < 4; q++) {
                float acc = stencil_first(r4_get(ring[(p + R) % L], q));
#pragma unroll
                for (int k = 1; k <= R; k++)
                    acc = stencil_step(acc, k, win[B + q - k], win[B + q + k], r4_get(ring[(p + R - k) % L], q),
                                       r4_get(ring[(p + R + k) % L], q));
                res[q] = acc;
            }
            if (j + 3 < d.cols) {
                *(float4 *)(out + i * d.ld + j) = make_float4(res[0], res[1], res[2], res[3]);
            } else {
#pragma unroll
                for (int q = 0; q < 3; q++)
                    if (j + q < d.cols)
                        out[i * d.ld + j + q] = res[q];
            }
            /* Row i - R is done with: its slot takes row i + R + D + 1. */
            const long long r = i + R + D + 1;
            const bool rok = r < iend + R;
            ring[p % L] = rok ? r4_load(in, r, j, d) : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
            hring[p % L] = rok && hok && r < d.rows ? in[r * d.ld + hc] : 0.0f;
            buf ^= 1;
        }
    }
}

template <int R, int AH = 0> static sl_status launch_regwin4(const sl_args *x)
{
    const stencil_dims d = stencil_dims_of(x);
    static sl_grid_cache cache;
    stencil_strips s;
    sl_status st = stencil_strips_of(d, R4_W, &cache, (const void *)stencil_regwin4<R, AH>, R4_BX, &s);
    if (st == SL_OK)
        st = stencil_strips_fit(d, &s, "stencil regwin4");
    if (st == SL_OK)
        st = stencil_apply_carveout((const void *)stencil_regwin4<R, AH>);
    if (st != SL_OK)
        return st;
    stencil_regwin4<R, AH><<<dim3((unsigned)s.gx, (unsigned)s.gy), R4_BX, 0, (cudaStream_t)x->stream>>>(
        (const float *)x->buf[0], (float *)x->buf[1], d, s.h);
    SL_CUDA_LAUNCHED();
    return SL_OK;
}

#define R4_CALL(R) launch_regwin4<R>(x)

/* Whether every row of in and out starts 16-byte aligned. */
static bool r4_aligned(const sl_args *x)
{
    return ((uintptr_t)x->buf[0] % 16) == 0 && ((uintptr_t)x->buf[1] % 16) == 0 && x->shape.ld % 4 == 0;
}

extern "C" sl_status sl_cuda_stencil_regwin4(const sl_args *x)
{
    int r = 0;
    sl_status st = sl_stencil_check(x, "stencil regwin4", &r);
    if (st != SL_OK)
        return st;
    if (!r4_aligned(x))
        return sl_cuda_stencil_regwin(x);
    SL_STENCIL_DISPATCH(r, R4_CALL)
}

extern "C" sl_status sl_cuda_stencil_regwin4_attrs(sl_dtype dt, sl_kernel_attrs *out)
{
    (void)dt;
    return sl_cuda_kernel_attrs((const void *)stencil_regwin4<SL_STENCIL_DEFAULT_RADIUS, 0>, R4_BX, 0, out);
}

/* regwin4_d8: 8 rows ahead at R <= 4 (the bytes-in-flight try of issue
 * 11's third pass); larger radii run regwin4 as it is. */
extern "C" sl_status sl_cuda_stencil_regwin4_d8(const sl_args *x)
{
    int r = 0;
    sl_status st = sl_stencil_check(x, "stencil regwin4_d8", &r);
    if (st != SL_OK)
        return st;
    if (!r4_aligned(x) || r > 4)
        return sl_cuda_stencil_regwin4(x);
    switch (r) {
    case 1: return launch_regwin4<1, 8>(x);
    case 2: return launch_regwin4<2, 8>(x);
    case 3: return launch_regwin4<3, 8>(x);
    default: return launch_regwin4<4, 8>(x);
    }
}

extern "C" sl_status sl_cuda_stencil_regwin4_d8_attrs(sl_dtype dt, sl_kernel_attrs *out)
{
    (void)dt;
    return sl_cuda_kernel_attrs((const void *)stencil_regwin4<SL_STENCIL_DEFAULT_RADIUS, 8>, R4_BX, 0, out);
}
