/*
 * regs.cuh - the register kernel of rmsnorm rungs 3 (regs) and 4 (regs_pf):
 * one template (dtype, weight dtype, block, team, cluster, vectors a
 * thread, prefetch), its configurations and its launch.
 */
#ifndef SL_RMSNORM_REGS_CUH
#define SL_RMSNORM_REGS_CUH

#include "rmsnorm.cuh"

template <int DT, int WT, int BLOCK, int TEAM, int CL, int VPT, bool PF>
static __global__ void __launch_bounds__(BLOCK, PF ? 1 : BLOCK == 256 ? 3 : 1) rms_regs(rms_geo g)
{
    const int VE = NORM_VE(DT);
    const unsigned T = TEAM == 32 ? 32u : (unsigned)(BLOCK * CL); /* threads per team */
    __shared__ float red[BLOCK / 32];
    __shared__ float cl;
    const unsigned tl = TEAM == 32 ? (threadIdx.x & 31u) : norm_cl_rank<CL>() * BLOCK + threadIdx.x;
    const uint64_t team = TEAM == 32 ? (uint64_t)blockIdx.x * (BLOCK / 32) + (threadIdx.x >> 5) : blockIdx.x / CL;
    const uint64_t nteams = TEAM == 32 ? (uint64_t)gridDim.x * (BLOCK / 32) : gridDim.x / CL;
    const smx_geo sg = {g.x, g.y, g.rows, g.cols, g.ld};
    uint4 nx[VPT]; /* PF: the next row's vectors, loaded while this row is reduced */
    if (PF && team < g.rows) {
        const smx_rowv w = smx_rowv_of<DT>(sg, team);
        norm_ldrow<DT, VPT>(w.x0, w.o, w.n, w.nvv, tl, T, nx);
    }
    for (uint64_t r = team; r < g.rows; r += nteams) {
        const smx_rowv w = smx_rowv_of<DT>(sg, r);
        uint4 v[VPT];
        if (PF) {
#pragma unroll
            for (int i = 0; i < VPT; i++)
                v[i] = nx[i];
            const uint64_t rn = r + nteams;
            if (rn < g.rows) {
                const smx_rowv wn = smx_rowv_of<DT>(sg, rn);
                norm_ldrow<DT, VPT>(wn.x0, wn.o, wn.n, wn.nvv, tl, T, nx);
            }
        } else {
            norm_ldrow<DT, VPT>(w.x0, w.o, w.n, w.nvv, tl, T, v);
        }
        float ss = 0.0f; /* VPT x VE <= 64 terms in order (SL_NORM_SEQ) */
#pragma unroll
        for (int i = 0; i < VPT; i++)
#pragma unroll
            for (int k = 0; k < VE; k++) {
                const float e = norm_el<DT>(v[i], k);
                ss = fmaf(e, e, ss);
            }
        ss = norm_team_sum<BLOCK, TEAM, CL>(ss, red, &cl);
        const float rstd = rsqrtf(ss / (float)g.cols + g.eps);
        if (tl == 0)
            g.rstd[r] = rstd;
        const bool wv = norm_wvec<WT>(g.w, w.o);
#pragma unroll
        for (int i = 0; i < VPT; i++) {
            const uint64_t vi = tl + (uint64_t)i * T;
            if (vi >= w.nvv)
                break;
            float wf[VE], f[VE];
            norm_ldw<DT, WT>(g.w, wv, w.o, w.n, vi, wf);
#pragma unroll
            for (int k = 0; k < VE; k++)
                f[k] = norm_el<DT>(v[i], k) * rstd * wf[k];
            norm_stv<DT>(w.y0, w.o, w.n, vi, f);
        }
    }
}

/* A configuration: the kernel, its block, its cluster, and its team. */
struct rms_cfg {
    const void *fn;
    unsigned block, cl;
    bool warp, pf;
};

#define RMS_K(B, T, C, V, P) (const void *)rms_regs<DT, WT, B, T, C, V, P>
template <int DT, int WT> struct rms_regs_pick {
    /* regs: the smallest team holding nvv vectors; false beyond a cluster
     * of 8. regs_pf (pf): persistent, the next row prefetched, and at
     * least 4 vectors a thread (blocks of 128-512, clusters of 512). */
    static bool run(uint64_t nvv, bool pf, rms_cfg *c)
    {
        c->block = 256;
        c->cl = 1;
        c->warp = true;
        c->pf = pf;
        if (nvv <= 32)
            c->fn = pf ? RMS_K(256, 32, 1, 1, true) : RMS_K(256, 32, 1, 1, false);
        else if (nvv <= 64)
            c->fn = pf ? RMS_K(256, 32, 1, 2, true) : RMS_K(256, 32, 1, 2, false);
        else if (nvv <= 128)
            c->fn = pf ? RMS_K(256, 32, 1, 4, true) : RMS_K(256, 32, 1, 4, false);
        else if (nvv <= 256)
            c->fn = pf ? RMS_K(256, 32, 1, 8, true) : RMS_K(256, 32, 1, 8, false);
        else if (pf) {
            c->warp = false;
            if (nvv <= 512)
                c->fn = RMS_K(128, 0, 1, 4, true), c->block = 128;
            else if (nvv <= 1024)
                c->fn = RMS_K(256, 0, 1, 4, true);
            else if (nvv <= 2048)
                c->fn = RMS_K(256, 0, 1, 8, true);
            else if (nvv <= 4096)
                c->fn = RMS_K(512, 0, 1, 8, true), c->block = 512;
            else if (nvv <= 8192)
                c->fn = RMS_K(512, 0, 2, 8, true), c->block = 512, c->cl = 2;
            else if (nvv <= SL_RMSNORM_REGS_MAX_VECS)
                c->fn = RMS_K(512, 0, 4, 8, true), c->block = 512, c->cl = 4;
            else
                return false;
        } else {
            c->warp = false;
            if (nvv <= 512)
                c->fn = RMS_K(256, 0, 1, 2, false);
            else if (nvv <= 1024)
                c->fn = RMS_K(256, 0, 1, 4, false);
            else if (nvv <= 2048)
                c->fn = RMS_K(256, 0, 1, 8, false);
            else if (nvv <= 4096)
                c->fn = RMS_K(256, 0, 2, 8, false), c->cl = 2;
            else if (nvv <= 8192)
                c->fn = RMS_K(256, 0, 4, 8, false), c->cl = 4;
            else if (nvv <= SL_RMSNORM_REGS_MAX_VECS)
                c->fn = RMS_K(256, 0, 8, 8, false), c->cl = 8;
            else
                return false;
        }
        return true;
    }
};
#undef RMS_K

/* Whether the launch fits: x and y at one offset modulo 16 bytes, the row
 * within a cluster's registers (clusters on sm_90+ only). */
static bool rms_regs_fits(const sl_args *a, bool pf, rms_cfg *c)
{
    const uintptr_t ux = (uintptr_t)a->buf[SL_RMS_X], uy = (uintptr_t)a->buf[SL_RMS_Y];
    if ((ux ^ uy) & 15u)
        return false;
    const size_t es = sl_dtype_size(a->dtype), ve = 16 / es;
    const uint64_t ld = a->shape.ld ? a->shape.ld : a->shape.cols;
    /* every row at one offset: that offset; else the worst, ve - 1 */
    const uint64_t o = (ld * es) % 16 == 0 ? (ux & 15u) / es : ve - 1;
    const uint64_t nvv = (o + a->shape.cols + ve - 1) / ve;
    const sl_dtype wt = norm_wdtype(a, SL_RMS_W);
    if (!NORM_DISPATCH(a->dtype, wt, rms_regs_pick, nvv, pf, c))
        return false;
    return c->cl == 1 || norm_clusters();
}

static sl_status rms_regs_launch(const sl_args *a, const rms_cfg *c)
{
    rms_geo g = rms_geo_of(a);
    const uint64_t cap = 0x7fffffffu / c->cl * c->cl;
    uint64_t blocks = c->warp ? (g.rows + c->block / 32 - 1) / (c->block / 32) : g.rows * c->cl;
    if (c->pf) { /* persistent: what the SMs hold at once */
        int nb = 0;
        SL_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb, c->fn, (int)c->block, 0));
        const uint64_t resident = (uint64_t)(nb > 0 ? nb : 1) * (uint64_t)norm_sms() / c->cl * c->cl;
        blocks = blocks < resident ? blocks : resident;
    }
    blocks = blocks > cap ? cap : blocks;
    void *params[] = {&g};
    return norm_launch(c->fn, (unsigned)blocks, c->block, c->cl, params, a->stream);
}

/* A register rung's launcher: regs (pf false) or regs_pf. */
static inline sl_status rms_regs_rung(const sl_args *a, bool pf, const char *who)
{
    sl_status st = sl_norm_check(a, SL_RMS_W, "rmsnorm", who);
    if (st != SL_OK || a->shape.rows == 0 || a->shape.cols == 0)
        return st;
    rms_cfg c;
    if (!rms_regs_fits(a, pf, &c))
        return sl_fail(SL_ERR_UNSUPPORTED,
                       "rmsnorm %s: x and y at different offsets modulo 16 bytes, or a row of %llu elements beyond a "
                       "cluster's registers (or no clusters before sm_90): the block rung runs it",
                       who, (unsigned long long)a->shape.cols);
    return rms_regs_launch(a, &c);
}

#endif /* SL_RMSNORM_REGS_CUH */
