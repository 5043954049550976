/*
 * stencil rung 5: regwin2, ours: regwin4 (04_regwin4.cu) with half the
 * outputs per thread and twice the warps. Each of a block's 128 threads
 * owns 2 consecutive columns (a float2: LDG.64 per row, STG.64 out), so a
 * block still covers 256 columns and a strip keeps regwin4's geometry
 * (one wave tall, the same 2R halo rows and columns), but the register
 * ring of L = 2R + 1 + D rows is float2 wide: 2 L registers where regwin4
 * has 4 L. The launch bounds ask for 8 blocks of 128 threads per SM: at
 * most 64 registers, 50% occupancy (32 warps) at every R <= 4, where
 * regwin4 runs 25% at R = 3, 4 (122 registers, 16 warps) and 42% at R = 1.
 *
 * Bytes in flight per SM (the change, by Little's law): regwin4 keeps
 * D = 4 rows x 16 B x 512 threads = 32 KiB at R = 4 (72 registers at R = 1:
 * 40 KiB). regwin2 keeps D rows x 8 B x 1024 threads: D = 4 at R = 3, 4,
 * 32 KiB (the same bytes, from twice the warps, which is what R = 4 lacks:
 * regwin4 issued 1.8 instructions per clock of 4), and D = 8 at R <= 2,
 * 64 KiB (what regwin4_d8 had, at 50% occupancy instead of its 30%).
 *
 * Registers, so that the float2 ring fits 64 without spills:
 * - the 2R halo columns no longer have a register ring of their own in
 *   the first 2R threads (regwin4's hring, L registers in every thread):
 *   they are copied global -> shared by cp.async (sm_80+) straight into
 *   the line of their row when the row's centre is loaded, D + R + 1 rows
 *   ahead, with zero-fill for the boundary rule; a halo thread waits on
 *   its own copy group before the row's barrier;
 * - the shared-memory line has one slot per ring slot (L lines, 11-14 KB
 *   a block), so every line address is a constant offset (no toggle);
 * - the strip's row counts are 32-bit, the rows walk by pointer increments;
 * - only the last column block checks its columns (EDGE), a block-uniform
 *   branch to a second instance of the strip code.
 * Same order of operations as every rung: the same bits.
 *
 * Needs 8-byte alignment of every row: in and out 8-byte aligned and ld
 * even. Otherwise the launcher runs regwin (scalar; same results); radii
 * above 4 run regwin4. The last column block handles a partial float2 (odd
 * cols) element by element. Below sm_80 the halo is loaded synchronously
 * before the row's barrier (correct, slower; the H200 takes the cp.async
 * path).
 */
#include "stencil.cuh"

enum { R2_BX = 128, R2_W = 2 * R2_BX };

template <int R> struct r2_cfg {
    enum {
        D = R <= 2 ? 8 : 4,
        L = 2 * R + 1 + D,
        OFF = (R + 1) / 2 * 2,   /* line index of the block's first column (8-byte aligned) */
        LINE = OFF + R2_W + OFF,
        NSIDE = (R + 1) / 2,     /* float2 chunks a thread reads from the line on each side */
        MINB = 8
    };
};

/* The halo columns travel global -> shared by cp.async (sm_80+: no
 * register holds them while they are in flight); src_bytes 0 writes the
 * zero of the boundary rule without reading global memory (PTX ISA,
 * "cp.async"). Below sm_80 the kernel loads them synchronously instead. */
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
#define R2_ASYNC_HALO 1
#else
#define R2_ASYNC_HALO 0
#endif

static __device__ __forceinline__ void r2_halo_async(float *dst, const float *src, int src_bytes)
{
#if R2_ASYNC_HALO
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"((unsigned)__cvta_generic_to_shared(dst)),
                 "l"(src), "r"(src_bytes)
                 : "memory");
    asm volatile("cp.async.commit_group;\n" ::: "memory");
#else
    (void)dst;
    (void)src;
    (void)src_bytes;
#endif
}

/* Wait until at most N of this thread's cp.async groups are pending. */
template <int N> static __device__ __forceinline__ void r2_halo_wait(void)
{
#if R2_ASYNC_HALO
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
#endif
}

/* One block's strip. EDGE: the block's 256 columns reach past cols (the
 * last column block only), so each thread checks its two columns; the
 * other blocks run without those checks. */
template <int R, bool EDGE>
static __device__ __forceinline__ void r2_strip(const float *__restrict__ in, float *__restrict__ out,
                                                const stencil_dims &d, long long h,
                                                float (*__restrict__ line)[r2_cfg<R>::LINE])
{
    typedef r2_cfg<R> C;
    enum { D = C::D, L = C::L, OFF = C::OFF, NSIDE = C::NSIDE };
    const int tx = threadIdx.x;
    const long long j0 = (long long)blockIdx.x * R2_W;
    const long long i0 = (long long)blockIdx.y * h;
    /* Rows of the strip, and rows loadable from i0 - R on, as 32-bit counts
     * (the launcher keeps h + 2R + L below 2^31). */
    const int n = (int)(min(i0 + h, d.rows) - i0);
    const int nload = (int)(min(i0 + n + R, d.rows) - (i0 - R));
    const int nskip = i0 < R ? (int)(R - i0) : 0; /* ring slots above row 0 */
    const long long j = j0 + 2 * tx;
    /* both columns in the grid, or only column j */
    const bool full = !EDGE || j + 1 < d.cols, part = EDGE && j + 1 == d.cols;
    /* halo column of the first 2R threads: left j0 - R + tx, right j0 + W + tx - R */
    const bool halo = tx < 2 * R;
    const long long hc = tx < R ? j0 - R + tx : j0 + R2_W + tx - R;
    const bool hok = halo && hc >= 0 && hc < d.cols;
    const int hpos = tx < R ? OFF - R + tx : OFF + R2_W + tx - R;

    /* p: our columns at ring row t (row i0 - R + t); the halo column is at
     * a fixed offset from it; o: our output columns of the current row. */
    const float *p = in + (i0 - R) * d.ld + j;
    const int hoff = hok ? (int)(hc - j) : 0; /* within -(R + 256) .. 256 + R */
    float *o = out + i0 * d.ld + j;
    float2 ring[L];
#pragma unroll
    for (int t = 0; t < L; t++) {
        const bool rok = t >= nskip && t < nload;
        float2 v = make_float2(0.0f, 0.0f);
        if (rok && full)
            v = *(const float2 *)p;
        if (rok && part)
            v.x = p[0];
        ring[t] = v;
        /* rows above i0 are never the current row: their halos are not
         * needed, and a copy here would race (cp.async copies of one thread
         * complete in no set order) with the one step t issues into line[t] */
        if (halo && t >= R)
            r2_halo_async(&line[t][hpos], rok && hok ? p + hoff : in, rok && hok ? 4 : 0);
        p += d.ld;
    }
    /* p now at ring row L (row i0 + R + D + 1): the first row the loop loads */

    for (int base = 0; base < n; base += L) {
#pragma unroll
        for (int q = 0; q < L; q++) {
            if (base + q >= n)
                break; /* uniform across the block */
            float *ln = line[(q + R) % L];
            const float2 ctr = ring[(q + R) % L];
            *(float2 *)&ln[OFF + 2 * tx] = ctr;
            if (halo) {
#if R2_ASYNC_HALO
                /* this row's halo group is the (R + D + 1)-th newest */
                r2_halo_wait<R + D>();
#else
                const int t = base + q + R; /* the current row's ring row */
                ln[hpos] = t >= nskip && t < nload && hok ? p[hoff - (long long)(L - R) * d.ld] : 0.0f;
#endif
            }
            __syncthreads();
            /* win[2 NSIDE + e] = line[OFF + 2 tx + e], e = -2 NSIDE .. 2 NSIDE + 1 */
            float win[4 * NSIDE + 2];
#pragma unroll
            for (int c = 0; c < NSIDE; c++) {
                const float2 a = *(const float2 *)&ln[OFF + 2 * tx - 2 * NSIDE + 2 * c];
                const float2 b = *(const float2 *)&ln[OFF + 2 * tx + 2 + 2 * c];
                win[2 * c] = a.x;
                win[2 * c + 1] = a.y;
                win[2 * NSIDE + 2 + 2 * c] = b.x;
                win[2 * NSIDE + 2 + 2 * c + 1] = b.y;
            }
            win[2 * NSIDE] = ctr.x;
            win[2 * NSIDE + 1] = ctr.y;
            float acc0 = stencil_first(ctr.x), acc1 = stencil_first(ctr.y);
#pragma unroll
            for (int k = 1; k <= R; k++) {
                const float2 nn = ring[(q + R - k) % L], ss = ring[(q + R + k) % L];
                acc0 = stencil_step(acc0, k, win[2 * NSIDE - k], win[2 * NSIDE + k], nn.x, ss.x);
                acc1 = stencil_step(acc1, k, win[2 * NSIDE + 1 - k], win[2 * NSIDE + 1 + k], nn.y, ss.y);
            }
            if (full)
                *(float2 *)o = make_float2(acc0, acc1);
            if (part)
                o[0] = acc0;
            o += d.ld;
            /* Row i - R is done with: its slot takes ring row base + q + L
             * (row i + R + D + 1, never above row 0). */
            const bool rok = base + q + L < nload;
            float2 v = make_float2(0.0f, 0.0f);
            if (rok && full)
                v = *(const float2 *)p;
            if (rok && part)
                v.x = p[0];
            ring[q % L] = v;
            /* line[q % L] was last read at step q - R, before this step's
             * barrier: free for the new row's halo */
            if (halo)
                r2_halo_async(&line[q % L][hpos], rok && hok ? p + hoff : in, rok && hok ? 4 : 0);
            p += d.ld;
        }
    }
    /* no copy may land in this block's shared memory after it exits */
    if (halo)
        r2_halo_wait<0>();
}

template <int R>
static __global__ void __launch_bounds__(R2_BX, r2_cfg<R>::MINB)
    stencil_regwin2(const float *__restrict__ in, float *__restrict__ out, stencil_dims d, long long h)
{
    /* One line per ring slot: the row in ring slot t has its line in
     * line[t], at a constant offset (no buffer toggle); the halo columns of
     * a row are copied into its line by cp.async when the row's centre is
     * loaded into the ring, D + R + 1 rows ahead (one group per row in the
     * halo threads), and its centre values are stored there when it
     * becomes the current row. One barrier per row. */
    __shared__ __align__(16) float line[r2_cfg<R>::L][r2_cfg<R>::LINE];
    if ((long long)(blockIdx.x + 1) * R2_W > d.cols) /* uniform across the block */
        r2_strip<R, true>(in, out, d, h, line);
    else
        r2_strip<R, false>(in, out, d, h, line);
}

template <int R> static sl_status launch_regwin2(const sl_args *x)
{
    const stencil_dims d = stencil_dims_of(x);
    static sl_grid_cache cache;
    stencil_strips s;
    sl_status st = stencil_strips_of(d, R2_W, &cache, (const void *)stencil_regwin2<R>, R2_BX, &s);
    if (st != SL_OK)
        return st;
    if (s.h > 0x7fff0000LL) /* the kernel counts a strip's rows in 32 bits */
        return sl_cuda_stencil_regwin4(x);
    if ((st = stencil_strips_fit(d, &s, "stencil regwin2")) == SL_OK)
        st = stencil_apply_carveout((const void *)stencil_regwin2<R>);
    if (st != SL_OK)
        return st;
    stencil_regwin2<R><<<dim3((unsigned)s.gx, (unsigned)s.gy), R2_BX, 0, (cudaStream_t)x->stream>>>(
        (const float *)x->buf[0], (float *)x->buf[1], d, s.h);
    SL_CUDA_LAUNCHED();
    return SL_OK;
}

/* Whether every row of in and out starts 8-byte aligned. */
static bool r2_aligned(const sl_args *x)
{
    return ((uintptr_t)x->buf[0] % 8) == 0 && ((uintptr_t)x->buf[1] % 8) == 0 && x->shape.ld % 2 == 0;
}

extern "C" sl_status sl_cuda_stencil_regwin2(const sl_args *x)
{
    int r = 0;
    sl_status st = sl_stencil_check(x, "stencil regwin2", &r);
    if (st != SL_OK)
        return st;
    if (r > 4)
        return sl_cuda_stencil_regwin4(x);
    if (!r2_aligned(x))
        return sl_cuda_stencil_regwin(x);
    switch (r) {
    case 1: return launch_regwin2<1>(x);
    case 2: return launch_regwin2<2>(x);
    case 3: return launch_regwin2<3>(x);
    default: return launch_regwin2<4>(x);
    }
}

extern "C" sl_status sl_cuda_stencil_regwin2_attrs(sl_dtype dt, sl_kernel_attrs *out)
{
    (void)dt;
    return sl_cuda_kernel_attrs((const void *)stencil_regwin2<SL_STENCIL_DEFAULT_RADIUS>, R2_BX, 0, out);
}
