/*
 * norm_bwd.cuh - the register kernel of the norms' backwards (issue 32),
 * one template for rmsnorm_bwd (MODE NORM_RMS) and layernorm_bwd
 * (NORM_LN), moved here from rmsnorm_bwd's 03_regs.cu (the RMS path
 * unchanged, operation for operation; the design and its measurements are
 * in that file's header): persistent teams, each row's x and dy held in
 * registers (read once, 16-byte vectors), the weight's gradient (and the
 * bias's) accumulated per thread across the rows its team owns, one
 * partial row per block (warp teams) or team, added in fp64 in order by
 * rmsnorm_bwd's dw.cu finish: deterministic, no atomics. Per row:
 *   NORM_RMS: D = sum w dy x, c = D / N rstd^3, dx = fmaf(-x, c, rstd (w dy)),
 *             dw += (dy rstd) x;
 *   NORM_LN:  xh = (x - mean) rstd, g = w dy, c1 = sum g / N,
 *             c2 = sum g xh / N (two team sums), dx = fmaf(-xh, c2, g - c1) rstd,
 *             dw += dy xh, db += dy.
 * Masked columns hold 0 in x, dy and w, so they add 0 to every sum (xh
 * there is -mean rstd, but g = 0 and dy = 0 multiply it).
 */
#ifndef SL_NORM_BWD_CUH
#define SL_NORM_BWD_CUH

#include "norm_fwd.cuh"
#include "rmsnorm_bwd.h" /* sl_norm_dw_partials, SL_NORM_DW_ROWS */

struct norm_bwd_geo {
    const void *x, *dy, *w;
    const float *mean, *rstd; /* mean: NORM_LN */
    void *dx;
    float *part, *partb; /* the dw (and db: NORM_LN) partials (the workspace) */
    uint64_t rows, cols, ld;
    uint32_t o; /* every row's offset in elements from its 16-byte boundary */
};

template <int DT, int WT, int BLOCK, int TEAM, int CL, int VPT, bool PF, int MODE>
static __global__ void __launch_bounds__(BLOCK, BLOCK <= 256 ? 2 : 1) norm_bwd_regs(norm_bwd_geo g)
{
    typedef typename sl_dt<DT>::raw R;
    const int VE = NORM_VE(DT);
    const int NA = MODE == NORM_LN ? 2 : 1; /* accumulators: dw (and db) */
    const unsigned T = TEAM == 32 ? 32u : (unsigned)(BLOCK * CL);
    __shared__ float red[BLOCK / 32];
    __shared__ float cl;
    const unsigned tl = TEAM == 32 ? (threadIdx.x & 31u) : norm_cl_rank<CL>() * BLOCK + threadIdx.x;
    const uint64_t team = TEAM == 32 ? (uint64_t)blockIdx.x * (BLOCK / 32) + (threadIdx.x >> 5) : blockIdx.x / CL;
    const uint64_t nteams = TEAM == 32 ? (uint64_t)gridDim.x * (BLOCK / 32) : gridDim.x / CL;
    const uint64_t nvv = (g.o + g.cols + VE - 1) / VE;
    const bool wv = norm_wvec<WT>(g.w, g.o);
    float acc[NA][VPT][VE]; /* regs: the partials in registers */
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
#pragma unroll
                for (int s = 0; s < NA; s++)
                    acc[s][i][k] = 0.0f;
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
        const float mu = MODE == NORM_LN ? g.mean[r] : 0.0f;
        float d = 0.0f, d1 = 0.0f; /* VPT x VE <= 32 terms in order */
#pragma unroll
        for (int i = 0; i < VPT; i++) {
            const uint64_t vi = tl + (uint64_t)i * T;
            if (vi >= nvv)
                break;
            float wf[VE];
            norm_ldw<DT, WT>(g.w, wv, g.o, g.cols, vi, wf);
#pragma unroll
            for (int k = 0; k < VE; k++) {
                if (MODE == NORM_LN) {
                    const float gk = wf[k] * norm_el<DT>(dv[i], k);
                    d1 += gk;
                    d = fmaf(gk, (norm_el<DT>(xv[i], k) - mu) * rs, d);
                } else {
                    d = fmaf(wf[k] * norm_el<DT>(dv[i], k), norm_el<DT>(xv[i], k), d);
                }
            }
        }
        d = norm_team_sum<BLOCK, TEAM, CL>(d, red, &cl);
        float c, c1 = 0.0f;
        if (MODE == NORM_LN) {
            c1 = norm_team_sum<BLOCK, TEAM, CL>(d1, red, &cl) / (float)g.cols;
            c = d / (float)g.cols;
        } else {
            c = d / (float)g.cols * rs * rs * rs;
        }
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
                if (MODE == NORM_LN) {
                    const float xh = (xk - mu) * rs;
                    f[k] = fmaf(-xh, c, wf[k] * dk - c1) * rs;
                    acc[0][i][k] = fmaf(dk, xh, acc[0][i][k]);
                    acc[NA - 1][i][k] += dk;
                } else {
                    f[k] = fmaf(-xk, c, rs * (wf[k] * dk));
                    if (PF) { /* masked columns add 0 */
                        float *a = &sacc[(i * VE + k) * BLOCK + threadIdx.x];
                        *a = fmaf(dk * rs, xk, *a);
                    } else {
                        acc[0][i][k] = fmaf(dk * rs, xk, acc[0][i][k]);
                    }
                }
            }
            norm_stv<DT>(dx0, g.o, g.cols, vi, f);
        }
    }
    if (PF) { /* NORM_RMS only (norm_bwd_pick) */
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
    if (!PF) /* (a bare loop here is unreachable in the PF instances: nvcc warns) */
#pragma unroll
    for (int s = 0; s < NA; s++) {
        float *const pbase = s ? g.partb : g.part;
        if (TEAM == 32) {
            /* the block's warps own the same columns: add them in warp order */
            __shared__ float comb[32 * VPT * VE];
            const unsigned lane = threadIdx.x & 31u, wid = threadIdx.x >> 5;
            if (s)
                __syncthreads(); /* comb's readers of the previous accumulator are done */
            for (unsigned wq = 0; wq < BLOCK / 32; wq++) {
                if (wid == wq)
#pragma unroll
                    for (int i = 0; i < VPT; i++)
#pragma unroll
                        for (int k = 0; k < VE; k++) {
                            const unsigned sl = (i * 32 + lane) * VE + k;
                            comb[sl] = wq == 0 ? acc[s][i][k] : comb[sl] + acc[s][i][k];
                        }
                __syncthreads();
            }
            float *part = pbase + (uint64_t)blockIdx.x * g.cols;
            for (unsigned sl = threadIdx.x; sl < 32u * VPT * VE; sl += BLOCK) {
                const int64_t c = (int64_t)(sl / VE) * VE + (int64_t)(sl % VE) - (int64_t)g.o; /* vector sl / VE */
                if (c >= 0 && (uint64_t)c < g.cols)
                    part[c] = comb[sl];
            }
        } else {
            float *part = pbase + team * g.cols;
#pragma unroll
            for (int i = 0; i < VPT; i++) {
                const uint64_t vi = tl + (uint64_t)i * T;
#pragma unroll
                for (int k = 0; k < VE; k++) {
                    const int64_t c = (int64_t)(vi * VE + k) - (int64_t)g.o;
                    if (vi < nvv && c >= 0 && (uint64_t)c < g.cols)
                        part[c] = acc[s][i][k];
                }
            }
        }
    }
}

struct norm_bwd_cfg {
    const void *fn;
    unsigned block, cl;
    bool warp;
};

#define NORM_BK(B, T, C, V, P) (const void *)norm_bwd_regs<DT, WT, B, T, C, V, P, MODE>

template <int MODE> struct norm_bwd_pick_m {
    template <int DT, int WT> struct at {
        static bool run(uint64_t nvv, bool pf, norm_bwd_cfg *c)
        {
            c->block = 512;
            c->cl = 1;
            c->warp = true;
            if (pf) { /* regs_pf (NORM_RMS): 256-thread warp blocks, else 4 vectors a thread */
                if (MODE != NORM_RMS)
                    return false;
                c->block = 256;
                if (nvv <= 32)
                    c->fn = NORM_BK(256, 32, 1, 1, true);
                else if (nvv <= 64)
                    c->fn = NORM_BK(256, 32, 1, 2, true);
                else if (nvv <= 128)
                    c->fn = NORM_BK(256, 32, 1, 4, true);
                else {
                    c->warp = false;
                    if (nvv <= 256)
                        c->fn = NORM_BK(64, 0, 1, 4, true), c->block = 64;
                    else if (nvv <= 512)
                        c->fn = NORM_BK(128, 0, 1, 4, true), c->block = 128;
                    else if (nvv <= 1024)
                        c->fn = NORM_BK(256, 0, 1, 4, true);
                    else if (nvv <= 2048)
                        c->fn = NORM_BK(256, 0, 2, 4, true), c->cl = 2;
                    else if (nvv <= 4096)
                        c->fn = NORM_BK(256, 0, 4, 4, true), c->cl = 4;
                    else if (nvv <= 8192)
                        c->fn = NORM_BK(256, 0, 8, 4, true), c->cl = 8;
                    else
                        return false;
                }
                return true;
            }
            if (nvv <= 32)
                c->fn = NORM_BK(512, 32, 1, 1, false);
            else if (nvv <= 64)
                c->fn = NORM_BK(512, 32, 1, 2, false);
            else if (nvv <= 128)
                c->fn = NORM_BK(512, 32, 1, 4, false);
            else {
                c->warp = false;
                c->block = 256;
                if (nvv <= 256)
                    c->fn = NORM_BK(256, 0, 1, 1, false);
                else if (nvv <= 512)
                    c->fn = NORM_BK(256, 0, 1, 2, false);
                else if (nvv <= 1024)
                    c->fn = NORM_BK(256, 0, 1, 4, false);
                else if (nvv <= 2048)
                    c->fn = NORM_BK(256, 0, 2, 4, false), c->cl = 2;
                else if (nvv <= 4096)
                    c->fn = NORM_BK(256, 0, 4, 4, false), c->cl = 4;
                else if (nvv <= 8192)
                    c->fn = NORM_BK(256, 0, 8, 4, false), c->cl = 8;
                else if (nvv <= 16384)
                    c->fn = NORM_BK(512, 0, 8, 4, false), c->cl = 8, c->block = 512;
                else
                    return false;
            }
            return true;
        }
    };
};
#undef NORM_BK

/* Whether the launch fits: x, dy and dx (buffers ix, idy, idx) at one
 * offset modulo 16 bytes, every row at that offset (ld a multiple of 16
 * bytes, or one row), the row within a team's registers (clusters on
 * sm_90+ only). */
template <int MODE>
static bool norm_bwd_fits(const sl_args *a, int ix, int idy, int idx, int iw, bool pf, norm_bwd_cfg *c, uint32_t *o)
{
    const uintptr_t ux = (uintptr_t)a->buf[ix], ud = (uintptr_t)a->buf[idy], uo = (uintptr_t)a->buf[idx];
    const size_t es = sl_dtype_size(a->dtype), ve = 16 / es;
    const uint64_t ld = a->shape.ld ? a->shape.ld : a->shape.cols;
    if (((ux ^ ud) | (ux ^ uo)) & 15u || ((ld * es) % 16 != 0 && a->shape.rows > 1))
        return false;
    *o = (uint32_t)((ux & 15u) / es);
    const uint64_t nvv = (*o + a->shape.cols + ve - 1) / ve;
    const sl_dtype wt = norm_wdtype(a, iw);
#define NORM_BWD_AT(DT, WT) norm_bwd_pick_m<MODE>::template at<DT, WT>
    bool ok;
    if (a->dtype == SL_F32)
        ok = NORM_BWD_AT(SL_F32, SL_F32)::run(nvv, pf, c);
    else if (a->dtype == SL_BF16)
        ok = wt == SL_F32 ? NORM_BWD_AT(SL_BF16, SL_F32)::run(nvv, pf, c) : NORM_BWD_AT(SL_BF16, SL_BF16)::run(nvv, pf, c);
    else
        ok = wt == SL_F32 ? NORM_BWD_AT(SL_F16, SL_F32)::run(nvv, pf, c) : NORM_BWD_AT(SL_F16, SL_F16)::run(nvv, pf, c);
#undef NORM_BWD_AT
    return ok && (c->cl == 1 || norm_clusters());
}

/* The partial rows a launch forms: blocks (warp teams) or teams (block /
 * cluster teams), what the SMs hold at once, at least rows / 256 teams'
 * worth, at most sl_norm_dw_partials. 0 and an error on failure. */
static inline uint64_t norm_bwd_partials(const norm_bwd_cfg *c, uint64_t rows, uint64_t cols)
{
    const uint64_t rpb = c->warp ? c->block / 32 : 1; /* teams a block (warp) or per team */
    int nb = 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb, c->fn, (int)c->block, 0) != cudaSuccess)
        nb = 1;
    const uint64_t resident = (uint64_t)(nb > 0 ? nb : 1) * (uint64_t)norm_sms() / c->cl;
    const uint64_t need = (rows + rpb - 1) / rpb; /* one row per team */
    const uint64_t least = (rows + rpb * SL_NORM_DW_ROWS - 1) / (rpb * SL_NORM_DW_ROWS);
    uint64_t P = need < resident ? need : resident;
    P = P < least ? least : P;
    const uint64_t most = sl_norm_dw_partials(rows, cols);
    if (P > most)
        P = most;
    return P ? P : 1;
}

#endif /* SL_NORM_BWD_CUH */
