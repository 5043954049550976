/*
 * rmsnorm rung 3 (the best): the row held in registers and read once, as
 * raw 16-byte vectors (row.cuh's virtual vectors: any offset, x and y at
 * the same one). The team per row follows the row's length:
 *   - a warp per row, 8 rows per 256-thread block, 1-8 vectors a thread:
 *     rows up to 256 vectors (2048 bf16 / f16, 1024 f32 elements), the
 *     "several rows per block" of short rows, no shared memory;
 *   - a block of 256 threads per row, 2-8 vectors a thread: up to 2048
 *     vectors (16384 bf16);
 *   - a cluster of 2, 4 or 8 such blocks per row (sm_90+), each holding a
 *     slice, the blocks' sums exchanged once through distributed shared
 *     memory: up to 16384 vectors (131072 bf16, 65536 f32).
 * The weight is read per vector from L1 / L2 (16-byte loads where it
 * shares the row's offset). rstd is written by the team's first thread.
 *
 * Expectation: x read once (the block rung read it twice) and 16 bytes per
 * load, VPT loads in flight per thread before the first use: at 256
 * threads and 8 vectors, 32 KiB per block, and with 64 registers 4 blocks
 * per SM, 128 KiB in flight per SM, three times Little's law's ~40 KiB. So
 * at the copy ceiling at DRAM shapes (M = 32768 rows: 64 MiB at N = 1024
 * bf16, 4 GiB at 65536); the reduction between the read and the write
 * phase is hidden by the SM's other blocks. Decode shapes (M = 1..64) are
 * one DRAM round trip plus the launch: ~2 us.
 */
#include "norm.cuh"
#include "rmsnorm.h"

struct rms_geo {
    const void *x, *w;
    void *y;
    float *rstd;
    uint64_t rows, cols, ld;
    float eps;
};

template <int DT, int WT, int BLOCK, int TEAM, int CL, int VPT>
static __global__ void __launch_bounds__(BLOCK, BLOCK == 256 ? 3 : 1) rms_regs(rms_geo g)
{
    const int VE = NORM_VE(DT);
    const unsigned T = TEAM == 32 ? 32u : (unsigned)(BLOCK * CL); /* threads per team */
    __shared__ float red[BLOCK / 32];
    __shared__ float cl;
    const unsigned tl = TEAM == 32 ? (threadIdx.x & 31u) : norm_cl_rank<CL>() * BLOCK + threadIdx.x;
    const uint64_t team = TEAM == 32 ? (uint64_t)blockIdx.x * (BLOCK / 32) + (threadIdx.x >> 5) : blockIdx.x / CL;
    const uint64_t nteams = TEAM == 32 ? (uint64_t)gridDim.x * (BLOCK / 32) : gridDim.x / CL;
    const smx_geo sg = {g.x, g.y, g.rows, g.cols, g.ld};
    for (uint64_t r = team; r < g.rows; r += nteams) {
        const smx_rowv w = smx_rowv_of<DT>(sg, r);
        uint4 v[VPT];
#pragma unroll
        for (int i = 0; i < VPT; i++) {
            const uint64_t vi = tl + (uint64_t)i * T;
            v[i] = vi < w.nvv ? norm_ldraw<DT>(w.x0, w.o, w.n, vi) : make_uint4(0u, 0u, 0u, 0u);
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
    bool warp;
};

template <int DT, int WT> struct rms_regs_pick {
    /* The smallest team holding nvv vectors; false beyond a cluster of 8. */
    static bool run(uint64_t nvv, rms_cfg *c)
    {
        c->block = 256;
        c->cl = 1;
        c->warp = true;
        if (nvv <= 32)
            c->fn = (const void *)rms_regs<DT, WT, 256, 32, 1, 1>;
        else if (nvv <= 64)
            c->fn = (const void *)rms_regs<DT, WT, 256, 32, 1, 2>;
        else if (nvv <= 128)
            c->fn = (const void *)rms_regs<DT, WT, 256, 32, 1, 4>;
        else if (nvv <= 256)
            c->fn = (const void *)rms_regs<DT, WT, 256, 32, 1, 8>;
        else {
            c->warp = false;
            if (nvv <= 512)
                c->fn = (const void *)rms_regs<DT, WT, 256, 0, 1, 2>;
            else if (nvv <= 1024)
                c->fn = (const void *)rms_regs<DT, WT, 256, 0, 1, 4>;
            else if (nvv <= 2048)
                c->fn = (const void *)rms_regs<DT, WT, 256, 0, 1, 8>;
            else if (nvv <= 4096)
                c->fn = (const void *)rms_regs<DT, WT, 256, 0, 2, 8>, c->cl = 2;
            else if (nvv <= 8192)
                c->fn = (const void *)rms_regs<DT, WT, 256, 0, 4, 8>, c->cl = 4;
            else if (nvv <= SL_RMSNORM_REGS_MAX_VECS)
                c->fn = (const void *)rms_regs<DT, WT, 256, 0, 8, 8>, c->cl = 8;
            else
                return false;
        }
        return true;
    }
};

/* Whether the launch fits: x and y at one offset modulo 16 bytes, the row
 * within a cluster's registers (clusters on sm_90+ only). */
static bool rms_regs_fits(const sl_args *a, rms_cfg *c)
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
    if (!NORM_DISPATCH(a->dtype, wt, rms_regs_pick, nvv, c))
        return false;
    return c->cl == 1 || norm_clusters();
}

static sl_status rms_regs_launch(const sl_args *a, const rms_cfg *c)
{
    rms_geo g = {a->buf[SL_RMS_X], a->buf[SL_RMS_W], a->buf[SL_RMS_Y], (float *)a->buf[SL_RMS_RSTD],
                 a->shape.rows, a->shape.cols, a->shape.ld ? a->shape.ld : a->shape.cols, (float)a->scalar[0]};
    const uint64_t cap = 0x7fffffffu / c->cl * c->cl;
    uint64_t blocks = c->warp ? (g.rows + c->block / 32 - 1) / (c->block / 32) : g.rows * c->cl;
    blocks = blocks > cap ? cap : blocks;
    void *params[] = {&g};
    return norm_launch(c->fn, (unsigned)blocks, c->block, c->cl, params, a->stream);
}

/* For the API: the register rung where it fits, else the block rung. */
extern "C" sl_status sl_cuda_rmsnorm_api(const sl_args *a)
{
    sl_status st = sl_norm_check(a, SL_RMS_W, "rmsnorm", "sl_rmsnorm_fwd");
    if (st != SL_OK || a->shape.rows == 0 || a->shape.cols == 0)
        return st;
    rms_cfg c;
    if (rms_regs_fits(a, &c))
        return rms_regs_launch(a, &c);
    return sl_cuda_rmsnorm_block(a);
}

extern "C" sl_status sl_cuda_rmsnorm_regs(const sl_args *a)
{
    sl_status st = sl_norm_check(a, SL_RMS_W, "rmsnorm", "regs");
    if (st != SL_OK || a->shape.rows == 0 || a->shape.cols == 0)
        return st;
    rms_cfg c;
    if (!rms_regs_fits(a, &c))
        return sl_fail(SL_ERR_UNSUPPORTED,
                       "rmsnorm regs: x and y at different offsets modulo 16 bytes, or a row of %llu elements "
                       "beyond a cluster's registers (or no clusters before sm_90): the block rung runs it",
                       (unsigned long long)a->shape.cols);
    return rms_regs_launch(a, &c);
}
