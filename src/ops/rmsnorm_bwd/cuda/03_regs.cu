/*
 * rmsnorm backward rung 3 (the best): persistent teams, each row's x and dy
 * held in registers (read once, 16-byte vectors), and dw accumulated in
 * registers across the rows a team owns. A team keeps the same columns for
 * every row (every row at one offset modulo 16 bytes), so each thread's
 * VPT x VE partial sums stay in its registers; at the end a block of warp
 * teams adds its warps' sums in warp order in shared memory, and each
 * block (warp teams) or team (block / cluster teams) writes one partial
 * row; dw.cu's finish adds the partials in fp64, in order. No atomics:
 * the same bits run to run.
 *   - a warp per row, 16 rows per 512-thread block, 1-4 vectors a thread
 *     (rows up to 128 vectors: 1024 bf16, 512 f32);
 *   - a block of 256 per row, 1-4 vectors a thread (up to 1024 vectors);
 *   - a cluster of 2-8 blocks of 256 (up to 8192 vectors: 65536 bf16),
 *     or of 8 blocks of 512 (16384: 65536 f32).
 * The grid is what the SMs hold at once (the occupancy API), at least
 * rows / 256 teams (a partial covers at most SL_NORM_DW_ROWS rows) and at
 * most sl_norm_dw_partials.
 *
 * Expectation: x and dy read once, dx written once, VPT x 2 loads of 16
 * bytes in flight per thread; with ~96 registers, 2 blocks of 256 per SM:
 * 2 x 256 x 8 x 16 = 64 KiB in flight, above Little's law's ~40 KiB, so
 * near the copy at DRAM shapes; the partials add 2 x P x cols x 4 bytes
 * (1.6% at cols = 1024, less beyond), and the finish one short launch.
 *
 * Rung 4 (regs_pf, the same template with PF): the next row's x, dy and
 * rstd loaded before this row's reduction, so that a thread's next 2 x VPT
 * x 16 bytes are in flight while its team reduces and writes; the dw
 * partials move to shared memory (a thread's own slots, slot-major: no
 * bank conflicts) to leave the registers to the prefetched row. Why: regs
 * measured 0.74-0.86 of the copy at N <= 8192 bf16 and 0.45-0.60 with
 * clusters (first H200 call): the reduction and the cluster barriers
 * stall the SM's 1-2 blocks. Expectation: those stalls hidden, the
 * cluster rows near the block rows, ~0.9 of the copy.
 */
#include "rmsnorm_bwd.cuh"

template <int DT, int WT, int BLOCK, int TEAM, int CL, int VPT, bool PF>
static __global__ void __launch_bounds__(BLOCK, BLOCK <= 256 ? 2 : 1) rmsb_regs(rmsb_geo g)
{
    typedef typename sl_dt<DT>::raw R;
    const int VE = NORM_VE(DT);
    const unsigned T = TEAM == 32 ? 32u : (unsigned)(BLOCK * CL);
    __shared__ float red[BLOCK / 32];
    __shared__ float cl;
    const unsigned tl = TEAM == 32 ? (threadIdx.x & 31u) : norm_cl_rank<CL>() * BLOCK + threadIdx.x;
    const uint64_t team = TEAM == 32 ? (uint64_t)blockIdx.x * (BLOCK / 32) + (threadIdx.x >> 5) : blockIdx.x / CL;
    const uint64_t nteams = TEAM == 32 ? (uint64_t)gridDim.x * (BLOCK / 32) : gridDim.x / CL;
    const uint64_t nvv = (g.o + g.cols + VE - 1) / VE;
    const bool wv = norm_wvec<WT>(g.w, g.o);
    float acc[VPT][VE]; /* regs: dw partials in registers */
    /* regs_pf: in shared memory instead (slot-major: a warp's 32 lanes hit
     * 32 banks), to leave the registers to the prefetched row */
    __shared__ float sacc[PF ? VPT * VE * BLOCK : 1];
#pragma unroll
    for (int i = 0; i < VPT; i++)
#pragma unroll
        for (int k = 0; k < VE; k++) {
            if (PF)
                sacc[(i * VE + k) * BLOCK + threadIdx.x] = 0.0f;
            else
                acc[i][k] = 0.0f;
        }
    const uint64_t back = (uint64_t)g.o * sizeof(R), rowb = g.ld * sizeof(R);
    uint4 nxv[VPT], ndv[VPT]; /* regs_pf: the next row */
    float nrs = 0.0f;
    if (PF && team < g.rows) {
        norm_ldrow<DT, VPT>((const char *)g.x + team * rowb - back, g.o, g.cols, nvv, tl, T, nxv);
        norm_ldrow<DT, VPT>((const char *)g.dy + team * rowb - back, g.o, g.cols, nvv, tl, T, ndv);
        nrs = g.rstd[team];
    }
    for (uint64_t r = team; r < g.rows; r += nteams) {
        const char *x0 = (const char *)g.x + r * rowb - back;
        const char *dy0 = (const char *)g.dy + r * rowb - back;
        char *dx0 = (char *)g.dx + r * rowb - back;
        uint4 xv[VPT], dv[VPT];
        float rs;
        if (PF) {
#pragma unroll
            for (int i = 0; i < VPT; i++) {
                xv[i] = nxv[i];
                dv[i] = ndv[i];
            }
            rs = nrs;
            const uint64_t rn = r + nteams;
            if (rn < g.rows) {
                norm_ldrow<DT, VPT>((const char *)g.x + rn * rowb - back, g.o, g.cols, nvv, tl, T, nxv);
                norm_ldrow<DT, VPT>((const char *)g.dy + rn * rowb - back, g.o, g.cols, nvv, tl, T, ndv);
                nrs = g.rstd[rn];
            }
        } else {
            norm_ldrow<DT, VPT>(x0, g.o, g.cols, nvv, tl, T, xv);
            norm_ldrow<DT, VPT>(dy0, g.o, g.cols, nvv, tl, T, dv);
            rs = g.rstd[r];
        }
        float d = 0.0f; /* VPT x VE <= 32 terms in order */
#pragma unroll
        for (int i = 0; i < VPT; i++) {
            const uint64_t vi = tl + (uint64_t)i * T;
            if (vi >= nvv)
                break;
            float wf[VE];
            norm_ldw<DT, WT>(g.w, wv, g.o, g.cols, vi, wf);
#pragma unroll
            for (int k = 0; k < VE; k++)
                d = fmaf(wf[k] * norm_el<DT>(dv[i], k), norm_el<DT>(xv[i], k), d);
        }
        d = norm_team_sum<BLOCK, TEAM, CL>(d, red, &cl);
        const float c = d / (float)g.cols * rs * rs * rs;
#pragma unroll
        for (int i = 0; i < VPT; i++) {
            const uint64_t vi = tl + (uint64_t)i * T;
            if (vi >= nvv)
                break;
            float wf[VE], f[VE];
            norm_ldw<DT, WT>(g.w, wv, g.o, g.cols, vi, wf);
#pragma unroll
            for (int k = 0; k < VE; k++) {
                const float xk = norm_el<DT>(xv[i], k), dk = norm_el<DT>(dv[i], k);
                f[k] = fmaf(-xk, c, rs * (wf[k] * dk));
                if (PF) { /* masked columns add 0 */
                    float *a = &sacc[(i * VE + k) * BLOCK + threadIdx.x];
                    *a = fmaf(dk * rs, xk, *a);
                } else {
                    acc[i][k] = fmaf(dk * rs, xk, acc[i][k]);
                }
            }
            norm_stv<DT>(dx0, g.o, g.cols, vi, f);
        }
    }
    if (PF) {
        __syncthreads();
        if (TEAM == 32) { /* slot (i, k) of lane l: the block's warps in warp order */
            float *part = g.part + (uint64_t)blockIdx.x * g.cols;
            for (unsigned p = threadIdx.x; p < 32u * VPT * VE; p += BLOCK) {
                const unsigned lane = p % 32u, sl = p / 32u, i = sl / VE, k = sl % VE;
                float t = 0.0f;
                for (unsigned wq = 0; wq < BLOCK / 32; wq++)
                    t += sacc[sl * BLOCK + wq * 32 + lane];
                const int64_t c = (int64_t)((i * 32 + lane) * VE + k) - (int64_t)g.o;
                if (c >= 0 && (uint64_t)c < g.cols)
                    part[c] = t;
            }
        } else {
            float *part = g.part + team * g.cols;
#pragma unroll
            for (int i = 0; i < VPT; i++) {
                const uint64_t vi = tl + (uint64_t)i * T;
#pragma unroll
                for (int k = 0; k < VE; k++) {
                    const int64_t c = (int64_t)(vi * VE + k) - (int64_t)g.o;
                    if (vi < nvv && c >= 0 && (uint64_t)c < g.cols)
                        part[c] = sacc[(i * VE + k) * BLOCK + threadIdx.x];
                }
            }
        }
        return;
    }
    if (TEAM == 32) {
        /* the block's warps own the same columns: add them in warp order */
        __shared__ float comb[32 * VPT * VE];
        const unsigned lane = threadIdx.x & 31u, wid = threadIdx.x >> 5;
        for (unsigned wq = 0; wq < BLOCK / 32; wq++) {
            if (wid == wq)
#pragma unroll
                for (int i = 0; i < VPT; i++)
#pragma unroll
                    for (int k = 0; k < VE; k++) {
                        const unsigned s = (i * 32 + lane) * VE + k;
                        comb[s] = wq == 0 ? acc[i][k] : comb[s] + acc[i][k];
                    }
            __syncthreads();
        }
        float *part = g.part + (uint64_t)blockIdx.x * g.cols;
        for (unsigned s = threadIdx.x; s < 32u * VPT * VE; s += BLOCK) {
            const int64_t c = (int64_t)(s / VE) * VE + (int64_t)(s % VE) - (int64_t)g.o; /* vector s / VE */
            if (c >= 0 && (uint64_t)c < g.cols)
                part[c] = comb[s];
        }
    } else {
        float *part = g.part + team * g.cols;
#pragma unroll
        for (int i = 0; i < VPT; i++) {
            const uint64_t vi = tl + (uint64_t)i * T;
#pragma unroll
            for (int k = 0; k < VE; k++) {
                const int64_t c = (int64_t)(vi * VE + k) - (int64_t)g.o;
                if (vi < nvv && c >= 0 && (uint64_t)c < g.cols)
                    part[c] = acc[i][k];
            }
        }
    }
}

struct rmsb_cfg {
    const void *fn;
    unsigned block, cl;
    bool warp;
};

#define RMSB_K(B, T, C, V, P) (const void *)rmsb_regs<DT, WT, B, T, C, V, P>

template <int DT, int WT> struct rmsb_pick {
    static bool run(uint64_t nvv, bool pf, rmsb_cfg *c)
    {
        c->block = 512;
        c->cl = 1;
        c->warp = true;
        if (pf) { /* regs_pf: 256-thread warp blocks, else 4 vectors a thread */
            c->block = 256;
            if (nvv <= 32)
                c->fn = RMSB_K(256, 32, 1, 1, true);
            else if (nvv <= 64)
                c->fn = RMSB_K(256, 32, 1, 2, true);
            else if (nvv <= 128)
                c->fn = RMSB_K(256, 32, 1, 4, true);
            else {
                c->warp = false;
                if (nvv <= 256)
                    c->fn = RMSB_K(64, 0, 1, 4, true), c->block = 64;
                else if (nvv <= 512)
                    c->fn = RMSB_K(128, 0, 1, 4, true), c->block = 128;
                else if (nvv <= 1024)
                    c->fn = RMSB_K(256, 0, 1, 4, true);
                else if (nvv <= 2048)
                    c->fn = RMSB_K(256, 0, 2, 4, true), c->cl = 2;
                else if (nvv <= 4096)
                    c->fn = RMSB_K(256, 0, 4, 4, true), c->cl = 4;
                else if (nvv <= 8192)
                    c->fn = RMSB_K(256, 0, 8, 4, true), c->cl = 8;
                else
                    return false;
            }
            return true;
        }
        if (nvv <= 32)
            c->fn = RMSB_K(512, 32, 1, 1, false);
        else if (nvv <= 64)
            c->fn = RMSB_K(512, 32, 1, 2, false);
        else if (nvv <= 128)
            c->fn = RMSB_K(512, 32, 1, 4, false);
        else {
            c->warp = false;
            c->block = 256;
            if (nvv <= 256)
                c->fn = RMSB_K(256, 0, 1, 1, false);
            else if (nvv <= 512)
                c->fn = RMSB_K(256, 0, 1, 2, false);
            else if (nvv <= 1024)
                c->fn = RMSB_K(256, 0, 1, 4, false);
            else if (nvv <= 2048)
                c->fn = RMSB_K(256, 0, 2, 4, false), c->cl = 2;
            else if (nvv <= 4096)
                c->fn = RMSB_K(256, 0, 4, 4, false), c->cl = 4;
            else if (nvv <= 8192)
                c->fn = RMSB_K(256, 0, 8, 4, false), c->cl = 8;
            else if (nvv <= 16384)
                c->fn = RMSB_K(512, 0, 8, 4, false), c->cl = 8, c->block = 512;
            else
                return false;
        }
        return true;
    }
};
#undef RMSB_K

/* Whether the launch fits: x, dy and dx at one offset modulo 16 bytes,
 * every row at that offset (ld a multiple of 16 bytes, or one row), the
 * row within a team's registers (clusters on sm_90+ only). */
static bool rmsb_fits(const sl_args *a, bool pf, rmsb_cfg *c, uint32_t *o)
{
    const uintptr_t ux = (uintptr_t)a->buf[SL_RMSB_X], ud = (uintptr_t)a->buf[SL_RMSB_DY],
                    uo = (uintptr_t)a->buf[SL_RMSB_DX];
    const size_t es = sl_dtype_size(a->dtype), ve = 16 / es;
    const uint64_t ld = a->shape.ld ? a->shape.ld : a->shape.cols;
    if (((ux ^ ud) | (ux ^ uo)) & 15u || ((ld * es) % 16 != 0 && a->shape.rows > 1))
        return false;
    *o = (uint32_t)((ux & 15u) / es);
    const uint64_t nvv = (*o + a->shape.cols + ve - 1) / ve;
    if (!NORM_DISPATCH(a->dtype, norm_wdtype(a, SL_RMSB_W), rmsb_pick, nvv, pf, c))
        return false;
    return c->cl == 1 || norm_clusters();
}

static sl_status rmsb_launch(const sl_args *a, const rmsb_cfg *c, uint32_t o)
{
    rmsb_geo g = rmsb_geo_of(a, o);
    const uint64_t rows = g.rows, rpb = c->warp ? c->block / 32 : 1; /* teams a block (warp) or per team */
    int nb = 0;
    SL_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb, c->fn, (int)c->block, 0));
    /* partial rows: blocks (warp teams) or teams (block / cluster teams) */
    uint64_t resident = (uint64_t)(nb > 0 ? nb : 1) * (uint64_t)norm_sms() / c->cl;
    uint64_t need = (rows + rpb - 1) / rpb;                     /* one row per team */
    uint64_t least = (rows + rpb * SL_NORM_DW_ROWS - 1) / (rpb * SL_NORM_DW_ROWS);
    uint64_t P = need < resident ? need : resident;
    P = P < least ? least : P;
    const uint64_t most = sl_norm_dw_partials(rows, g.cols);
    if (P > most)
        P = most;
    if (P == 0)
        P = 1;
    if (a->workspace_bytes < P * g.cols * sizeof(float) || P * c->cl > 0x7fffffffu)
        return sl_fail(SL_ERR_INVALID_ARG, "rmsnorm_bwd regs: workspace of %zu bytes for %llu dw partials of %llu",
                       a->workspace_bytes, (unsigned long long)P, (unsigned long long)g.cols);
    void *params[] = {&g};
    sl_status st = norm_launch(c->fn, (unsigned)(P * c->cl), c->block, c->cl, params, a->stream);
    if (st != SL_OK)
        return st;
    return sl_cuda_norm_dw_finish(g.part, P, g.cols, a->buf[SL_RMSB_DW], norm_wdtype(a, SL_RMSB_W), a->stream);
}

extern "C" sl_status sl_cuda_rmsnorm_bwd_api(const sl_args *a)
{
    sl_status st = sl_norm_check(a, SL_RMSB_W, "rmsnorm_bwd", "sl_rmsnorm_bwd");
    if (st != SL_OK || a->shape.rows == 0 || a->shape.cols == 0)
        return st;
    rmsb_cfg c;
    uint32_t o;
    /* regs_pf for bf16 / f16 at 1024 rows and more, except rows of 129-256
     * vectors (N = 2048); regs for f32, there, and for few rows (decode:
     * 9.9 against 12.0 us at 1 x 4096) (second H200 call: docs/ladder.md) */
    const size_t es = sl_dtype_size(a->dtype), ve = 16 / es;
    const uint64_t nvv = (((uintptr_t)a->buf[SL_RMSB_X] & 15u) / es + a->shape.cols + ve - 1) / ve; /* as rmsb_fits */
    if (a->dtype != SL_F32 && a->shape.rows >= 1024 && !(nvv > 128 && nvv <= 256) && rmsb_fits(a, true, &c, &o))
        return rmsb_launch(a, &c, o);
    if (rmsb_fits(a, false, &c, &o))
        return rmsb_launch(a, &c, o);
    return sl_cuda_rmsnorm_bwd_block(a);
}

static sl_status rmsb_rung(const sl_args *a, bool pf, const char *who)
{
    sl_status st = sl_norm_check(a, SL_RMSB_W, "rmsnorm_bwd", who);
    if (st != SL_OK || a->shape.rows == 0 || a->shape.cols == 0)
        return st;
    rmsb_cfg c;
    uint32_t o;
    if (!rmsb_fits(a, pf, &c, &o))
        return sl_fail(SL_ERR_UNSUPPORTED,
                       "rmsnorm_bwd %s: x, dy and dx at different offsets modulo 16 bytes, rows at different "
                       "offsets, or a row of %llu elements beyond a cluster's registers: the block rung runs it",
                       who, (unsigned long long)a->shape.cols);
    return rmsb_launch(a, &c, o);
}

extern "C" sl_status sl_cuda_rmsnorm_bwd_regs(const sl_args *a)
{
    return rmsb_rung(a, false, "regs");
}

extern "C" sl_status sl_cuda_rmsnorm_bwd_regs_pf(const sl_args *a)
{
    return rmsb_rung(a, true, "regs_pf");
}
