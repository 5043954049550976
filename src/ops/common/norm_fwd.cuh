/*
 * norm_fwd.cuh - the register kernel of the norms' forwards (issue 32),
 * one template for rmsnorm (MODE NORM_RMS) and layernorm (NORM_LN): the
 * row's 16-byte vectors held raw in registers and read once, the team per
 * row (a warp, a block, a cluster of blocks: norm.cuh) picked from the
 * row's length, optionally persistent with the next row prefetched (PF).
 * Moved here from rmsnorm's regs.cuh (the RMS path unchanged, operation
 * for operation) so that layernorm runs the same machinery; each mode adds
 * only its statistics:
 *   NORM_RMS: ss = sum x^2 (fmaf, at most 64 terms a thread in order, then
 *             the team's fixed tree), rstd = rsqrtf(ss / N + eps),
 *             y = (x rstd) w;
 *   NORM_LN:  s = sum x (the same order), mean = s / N; then from the
 *             registers (no second read) q = sum (x - mean)^2 over the
 *             row's columns only, rstd = rsqrtf(q / N + eps),
 *             y = fmaf((x - mean) rstd, w, b); mean and rstd kept per row;
 *   NORM_ADD_RMS: h = x + res rounded into the dtype and stored (the next
 *             block's residual), then NORM_RMS of h (the stored, rounded
 *             values: what an unfused add then rmsnorm computes); res
 *             read into registers beside x, h packed over x's vectors.
 * The two-pass variance (from the registers) avoids the cancellation of
 * E[x^2] - mean^2 where |mean| >> std.
 */
#ifndef SL_NORM_FWD_CUH
#define SL_NORM_FWD_CUH

#include "norm.cuh"

enum { NORM_RMS = 0, NORM_LN = 1, NORM_ADD_RMS = 2 };

/* One launch: x, w (b: NORM_LN), y, the per-row statistics (mean:
 * NORM_LN), rows x cols with row stride ld, eps. */
struct norm_fwd_geo {
    const void *x, *w, *b;
    void *y;
    float *mean, *rstd;
    uint64_t rows, cols, ld;
    float eps;
    const void *res; /* NORM_ADD_RMS: the residual, and h = x + res (written) */
    void *h;
};

/* f[0..VE) rounded into a raw 16-byte vector of DT. */
template <int DT> static __device__ __forceinline__ uint4 norm_pack(const float *f)
{
    typedef typename sl_dt<DT>::raw R;
    union {
        uint4 u;
        R r[NORM_VE(DT)];
    } b;
#pragma unroll
    for (int k = 0; k < NORM_VE(DT); k++)
        b.r[k] = sl_dt<DT>::store(f[k]);
    return b.u;
}

/* Element k of a raw vector widened to f32 (norm.cuh's norm_el) where the
 * compiler cannot reuse an earlier widening (FRESH: the lean rungs, in
 * the loops after a team sum): the widened row (VPT x VE floats, 64 at 8
 * vectors of bf16) would otherwise stay live across the sums beside the
 * raw vectors, which is what spilled regs at 8 vectors (ptxas -v: 80
 * registers, 72-270 bytes of spills a thread in layernorm). One
 * instruction a element (bf16: a shift or a mask, f16: cvt), exact: the
 * same values as norm_el. */
template <int DT, bool FRESH> static __device__ __forceinline__ float norm_elx(const uint4 &u, int k)
{
    if (!FRESH || DT == SL_F32)
        return norm_el<DT>(u, k);
    const uint32_t word = k < 2 ? u.x : k < 4 ? u.y : k < 6 ? u.z : u.w;
    uint32_t r;
    if (DT == SL_BF16) {
        if (k & 1)
            asm volatile("and.b32 %0, %1, 0xffff0000;" : "=r"(r) : "r"(word));
        else
            asm volatile("shl.b32 %0, %1, 16;" : "=r"(r) : "r"(word));
        return __uint_as_float(r);
    }
    float f;
    if (k & 1)
        asm volatile("{ .reg .b16 l, h; mov.b32 {l, h}, %1; cvt.f32.f16 %0, h; }" : "=f"(f) : "r"(word));
    else
        asm volatile("{ .reg .b16 l, h; mov.b32 {l, h}, %1; cvt.f32.f16 %0, l; }" : "=f"(f) : "r"(word));
    return f;
}

/* The VE weights (storage WT) of one vector of DT from the raw u, widened
 * one instruction an element (norm_elx above: a shift or a mask
 * for bf16, a cvt for f16; f32 as it is): norm_w_widen's values. Through
 * sl_dt's load nvcc 13 widens a bf16 pair's high half in two instructions
 * (PRMT, then a shift): 12 a 16-byte vector instead of 8 (tenth session,
 * docs/ladder.md). */
template <int DT, int WT> static __device__ __forceinline__ void norm_w_widen_x(const uint4 *u, float *f)
{
    const int VE = NORM_VE(DT), WVE = NORM_VE(WT);
#pragma unroll
    for (int h = 0; h < VE / WVE; h++)
#pragma unroll
        for (int k = 0; k < WVE; k++)
            f[h * WVE + k] = norm_elx<WT, true>(u[h], k);
}

/* norm_w_widen, or (FX) norm_w_widen_x: the same values. */
template <int DT, int WT, int FX> static __device__ __forceinline__ void norm_w_widen_fx(const uint4 *u, float *f)
{
    if (FX)
        norm_w_widen_x<DT, WT>(u, f);
    else
        norm_w_widen<DT, WT>(u, f);
}

/* AL: the weight's (storage WT) VE columns of whole vector v of an
 * aligned row (norm_fwd_aligned): VE / WVE 16-byte loads, no masks; FX:
 * widened one instruction an element (norm_w_widen_x, the same values). */
template <int DT, int WT, int FX = 0>
static __device__ __forceinline__ void norm_ldw_al(const void *w, uint64_t v, float *f)
{
    typedef typename sl_dt<WT>::raw WR;
    const int VE = NORM_VE(DT), WVE = NORM_VE(WT);
    uint4 u[VE / WVE];
#pragma unroll
    for (int h = 0; h < VE / WVE; h++)
        u[h] = __ldg((const uint4 *)((const WR *)w + v * VE) + h);
    norm_w_widen_fx<DT, WT, FX>(u, f);
}

/* AL: a thread's VPT whole vectors t, t + T, ... of an aligned row at x0
 * (0 past the row's nvv vectors): norm_ldrow without the edge masks. */
template <int VPT>
static __device__ __forceinline__ void norm_ldrow_al(const char *x0, uint64_t nvv, unsigned t, unsigned T, uint4 *v)
{
#pragma unroll
    for (int i = 0; i < VPT; i++) {
        const uint64_t vi = t + (uint64_t)i * T;
        v[i] = vi < nvv ? ((const uint4 *)x0)[vi] : make_uint4(0u, 0u, 0u, 0u);
    }
}

/* NORM_AL_EARLY_W: the weight's raw 16-byte vectors for whole vector v
 * (zeros where !in), widened to f32 later (norm_w_widen). A predicated load
 * in volatile asm, not a branch or a plain __ldg: it stays where the
 * source puts it, beside x's loads. With a branch nvcc 13 put layernorm's
 * w and b loads after the first sum, and with a select the fused add's
 * after h = x + res; both wait for x, so w's DRAM round trip came after
 * x's instead of beside it (SASS of the bf16 kernels). */
template <int DT, int WT>
static __device__ __forceinline__ void norm_ldw_raw(const void *w, uint64_t v, bool in, uint4 *u)
{
    typedef typename sl_dt<WT>::raw WR;
    const int VE = NORM_VE(DT), WVE = NORM_VE(WT);
#pragma unroll
    for (int h = 0; h < VE / WVE; h++) {
        const uint4 *p = (const uint4 *)((const WR *)w + v * VE) + h;
        uint4 r = make_uint4(0u, 0u, 0u, 0u);
        asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.u32 p, %5, 0;\n\t"
                     "@p ld.global.nc.v4.u32 {%0, %1, %2, %3}, [%4];\n\t}"
                     : "+r"(r.x), "+r"(r.y), "+r"(r.z), "+r"(r.w)
                     : "l"(p), "r"((unsigned)in));
        u[h] = r;
    }
}

/* Columns of virtual vector vi present in the row: all VE (interior) or
 * the mask's count; m[k] whether column k is in the row. */
template <int DT>
static __device__ __forceinline__ bool norm_interior(uint32_t o, uint64_t n, uint64_t nvv, uint64_t vi)
{
    const int64_t c0 = (int64_t)(vi * NORM_VE(DT)) - (int64_t)o;
    return vi < nvv && c0 >= 0 && (uint64_t)c0 + NORM_VE(DT) <= n;
}

template <int DT>
static __device__ __forceinline__ bool norm_incol(uint32_t o, uint64_t n, uint64_t nvv, uint64_t vi, int k)
{
    const int64_t c = (int64_t)(vi * NORM_VE(DT) + k) - (int64_t)o;
    return vi < nvv && c >= 0 && (uint64_t)c < n;
}

/* LEAN team sums (the lean rungs): reduction j of a launch (j counts a
 * team's reductions, row after row) uses slot j & 1 of red (2 x BLOCK / 32
 * floats) and of cl (2 floats), and no barrier follows the reads. Reduction
 * j + 2 writes slot j & 1 only after the barrier of reduction j + 1, which
 * no thread passes before every thread has read slot j: so one block barrier
 * a reduction (smx_block has two). With a cluster, one full cluster barrier
 * a reduction (the block's sum in its slot, barrier.cluster arrive.release +
 * wait.acquire, the ranks' slots read in rank order), then after the row's
 * last reads an arrive only (owed = true), whose wait comes before the next
 * arrive or at the kernel's end: a block's shared memory outlives the other
 * blocks' reads, and its stores do not wait for them (the softmax's regs
 * rung does the same). Sums in the same order as norm_team_sum: the same
 * bits. */
template <int BLOCK, int TEAM, int CL>
static __device__ __forceinline__ float norm_lean_sum(float v, float *red2, float *cl2, unsigned &j, bool &owed)
{
    if (TEAM == 32)
        return smx_warp<smx_sum_op>(v);
    float *red = red2 + (j & 1u) * (BLOCK / 32);
    v = smx_warp<smx_sum_op>(v);
    if ((threadIdx.x & 31) == 0)
        red[threadIdx.x >> 5] = v;
    __syncthreads();
    v = red[0];
#pragma unroll
    for (int w = 1; w < BLOCK / 32; w++)
        v += red[w];
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    if (CL > 1) {
        float *cl = cl2 + (j & 1u);
        if (threadIdx.x == 0)
            *cl = v;
        __syncwarp(); /* .aligned below: the warp together again after thread 0's store */
        if (owed)
            asm volatile("barrier.cluster.wait.acquire.aligned;\n" ::: "memory");
        asm volatile("barrier.cluster.arrive.release.aligned;\n" ::: "memory");
        asm volatile("barrier.cluster.wait.acquire.aligned;\n" ::: "memory");
        cooperative_groups::cluster_group g = cooperative_groups::this_cluster();
        v = 0.0f;
#pragma unroll
        for (int r = 0; r < CL; r++)
            v += *g.map_shared_rank(cl, r);
        owed = false;
    }
#else
    (void)cl2, (void)owed;
#endif
    j++;
    return v;
}

/* After a row's last cluster reads (LEAN): arrive; the wait is owed. */
template <int TEAM, int CL> static __device__ __forceinline__ void norm_lean_arrive(bool &owed)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    if (TEAM != 32 && CL > 1) {
        asm volatile("barrier.cluster.arrive.release.aligned;\n" ::: "memory");
        owed = true;
    }
#else
    (void)owed;
#endif
}

template <int TEAM, int CL> static __device__ __forceinline__ void norm_lean_leave(bool owed)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    if (TEAM != 32 && CL > 1 && owed) {
        __syncwarp(); /* .aligned: the warp's threads together, after the store loop's branches */
        asm volatile("barrier.cluster.wait.acquire.aligned;\n" ::: "memory");
    }
#else
    (void)owed;
#endif
}

/* Resident threads per SM of the architecture being compiled (CUDA C++
 * Programming Guide, "Compute Capabilities"): 1024 on sm_75, 2048 on
 * sm_80, sm_90 and sm_100, 1536 on the others built here (sm_86, sm_89,
 * sm_120). ptxas refuses (a warning, an error under -Werror) a launch
 * bound asking for more blocks than that, so MINB is capped per
 * architecture; the host picks the tuned value on sm_90. */
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ == 800 || __CUDA_ARCH__ == 900 || __CUDA_ARCH__ == 1000
#define NORM_SM_THREADS 2048
#elif __CUDA_ARCH__ == 750
#define NORM_SM_THREADS 1024
#else
#define NORM_SM_THREADS 1536
#endif
#define NORM_MINB(BLOCK, MINB) ((MINB) * (BLOCK) <= NORM_SM_THREADS ? (MINB) : NORM_SM_THREADS / (BLOCK))

/* MINB: the launch bound's minimum blocks per SM (65536 / (BLOCK MINB)
 * registers a thread at most; capped by NORM_MINB). LEAN: the lean team
 * sums above (else norm_team_sum: two block barriers and two cluster
 * barriers a sum). AL (the aligned and decode rungs), NORM_AL_ROWS or
 * NORM_AL_EARLY_W: every row and weight 16-byte aligned with a whole
 * number of vectors (the host checks: norm_fwd_aligned), so each vector is
 * whole or absent and the loads and stores are single 16-byte accesses
 * without the edge masks (a third of the instructions before the first
 * load); NORM_AL_EARLY_W (decode) also loads w (and b) into registers
 * beside x, before the sums, not in the store loop: where the rows are
 * few, w is not in L2 and its load after the sums would be a second DRAM
 * round trip on the row's critical path. */
enum { NORM_AL_NONE = 0, NORM_AL_ROWS = 1, NORM_AL_EARLY_W = 2 };
template <int DT, int WT, int BLOCK, int TEAM, int CL, int VPT, bool PF, int MODE, int MINB, bool LEAN,
          int AL = NORM_AL_NONE>
static __global__ void __launch_bounds__(BLOCK, NORM_MINB(BLOCK, MINB)) norm_fwd_regs(norm_fwd_geo g)
{
    const int VE = NORM_VE(DT);
    const bool DEC = AL != NORM_AL_NONE, EW = AL == NORM_AL_EARLY_W; /* whole vectors; w with x */
    const unsigned T = TEAM == 32 ? 32u : (unsigned)(BLOCK * CL); /* threads per team */
    __shared__ float red[LEAN ? 2 * (BLOCK / 32) : BLOCK / 32];
    __shared__ float cl[LEAN ? 2 : 1];
    unsigned nred = 0; /* LEAN: the team's reductions so far */
    bool owed = false; /* LEAN: a cluster arrive without its wait */
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
        /* EW: w (and b) raw, loaded first (so beside x) and widened in the
         * store loop (norm_ldw_raw says why it is asm). */
        uint4 wr[EW ? VPT : 1][NORM_VE(DT) / NORM_VE(WT)], br[EW && MODE == NORM_LN ? VPT : 1][NORM_VE(DT) / NORM_VE(WT)];
        if (EW) {
#pragma unroll
            for (int i = 0; i < VPT; i++) {
                const uint64_t vi = tl + (uint64_t)i * T;
                norm_ldw_raw<DT, WT>(g.w, vi, vi < w.nvv, wr[i]);
                if (MODE == NORM_LN)
                    norm_ldw_raw<DT, WT>(g.b, vi, vi < w.nvv, br[EW && MODE == NORM_LN ? i : 0]);
            }
        }
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
        } else if (DEC) {
            norm_ldrow_al<VPT>(w.x0, w.nvv, tl, T, v);
        } else {
            norm_ldrow<DT, VPT>(w.x0, w.o, w.n, w.nvv, tl, T, v);
        }
        if (MODE == NORM_ADD_RMS) { /* h = x + res, rounded, stored, and kept in v */
            const uint64_t mis = (uint64_t)w.o * sizeof(typename sl_dt<DT>::raw);
            const char *r0 = (const char *)smx_row<DT>(g.res, r, g.ld) - mis;
            char *h0 = (char *)smx_row<DT>(g.h, r, g.ld) - mis;
            uint4 rv[VPT];
            if (DEC)
                norm_ldrow_al<VPT>(r0, w.nvv, tl, T, rv);
            else
                norm_ldrow<DT, VPT>(r0, w.o, w.n, w.nvv, tl, T, rv);
            /* EW: h waits for w's first vector (an empty asm that reads it),
             * or ptxas issues w's loads only after h = x + res, which waits
             * for x (SASS, bf16): a second DRAM round trip. w is in flight
             * beside x and res, so the wait costs nothing more. */
            if (EW)
                asm volatile("" : "+r"(rv[0].x) : "r"(wr[0][0].x));
#pragma unroll
            for (int i = 0; i < VPT; i++) {
                float f[VE];
#pragma unroll
                for (int k = 0; k < VE; k++)
                    f[k] = norm_el<DT>(v[i], k) + norm_el<DT>(rv[i], k);
                v[i] = norm_pack<DT>(f);
                const uint64_t vi = tl + (uint64_t)i * T;
                if (DEC && vi < w.nvv) {
                    ((uint4 *)h0)[vi] = v[i];
                } else if (vi < w.nvv) {
#pragma unroll
                    for (int k = 0; k < VE; k++)
                        f[k] = norm_el<DT>(v[i], k);
                    norm_stv<DT>(h0, w.o, w.n, vi, f);
                }
            }
        }
        float mu = 0.0f, rstd;
        if (MODE == NORM_LN) {
            float s = 0.0f; /* VPT x VE <= 64 terms in order (SL_NORM_SEQ); masked columns hold 0 */
#pragma unroll
            for (int i = 0; i < VPT; i++)
#pragma unroll
                for (int k = 0; k < VE; k++)
                    s += norm_el<DT>(v[i], k);
            mu = (LEAN ? norm_lean_sum<BLOCK, TEAM, CL>(s, red, cl, nred, owed)
                       : norm_team_sum<BLOCK, TEAM, CL>(s, red, cl)) /
                 (float)g.cols;
            float q = 0.0f;
#pragma unroll
            for (int i = 0; i < VPT; i++) {
                const uint64_t vi = tl + (uint64_t)i * T;
                const bool full = DEC ? vi < w.nvv : norm_interior<DT>(w.o, w.n, w.nvv, vi);
#pragma unroll
                for (int k = 0; k < VE; k++) {
                    const float d = norm_elx<DT, LEAN>(v[i], k) - mu;
                    if (full || (!DEC && norm_incol<DT>(w.o, w.n, w.nvv, vi, k)))
                        q = fmaf(d, d, q);
                }
            }
            q = LEAN ? norm_lean_sum<BLOCK, TEAM, CL>(q, red, cl, nred, owed) : norm_team_sum<BLOCK, TEAM, CL>(q, red, cl);
            rstd = rsqrtf(q / (float)g.cols + g.eps);
            if (tl == 0)
                g.mean[r] = mu;
        } else {
            float ss = 0.0f; /* VPT x VE <= 64 terms in order (SL_NORM_SEQ) */
#pragma unroll
            for (int i = 0; i < VPT; i++)
#pragma unroll
                for (int k = 0; k < VE; k++) {
                    const float e = norm_el<DT>(v[i], k);
                    ss = fmaf(e, e, ss);
                }
            ss = LEAN ? norm_lean_sum<BLOCK, TEAM, CL>(ss, red, cl, nred, owed)
                      : norm_team_sum<BLOCK, TEAM, CL>(ss, red, cl);
            rstd = rsqrtf(ss / (float)g.cols + g.eps);
        }
        if (LEAN)
            norm_lean_arrive<TEAM, CL>(owed);
        if (tl == 0)
            g.rstd[r] = rstd;
        const bool wv = norm_wvec<WT>(g.w, w.o);
        const bool bv = MODE == NORM_LN && norm_wvec<WT>(g.b, w.o);
#pragma unroll
        for (int i = 0; i < VPT; i++) {
            const uint64_t vi = tl + (uint64_t)i * T;
            if (vi >= w.nvv)
                break;
            float wl[VE], f[VE];
            const float *wf = wl;
            if (EW)
                norm_w_widen<DT, WT>(wr[EW ? i : 0], wl);
            else if (DEC)
                norm_ldw_al<DT, WT>(g.w, vi, wl);
            else
                norm_ldw<DT, WT>(g.w, wv, w.o, w.n, vi, wl);
            if (MODE == NORM_LN) {
                float bl[VE];
                const float *bf = bl;
                if (EW)
                    norm_w_widen<DT, WT>(br[EW && MODE == NORM_LN ? i : 0], bl);
                else if (DEC)
                    norm_ldw_al<DT, WT>(g.b, vi, bl);
                else
                    norm_ldw<DT, WT>(g.b, bv, w.o, w.n, vi, bl);
#pragma unroll
                for (int k = 0; k < VE; k++)
                    f[k] = fmaf((norm_elx<DT, LEAN>(v[i], k) - mu) * rstd, wf[k], bf[k]);
            } else {
#pragma unroll
                for (int k = 0; k < VE; k++)
                    f[k] = norm_elx<DT, LEAN>(v[i], k) * rstd * wf[k];
            }
            if (DEC)
                ((uint4 *)w.y0)[vi] = norm_pack<DT>(f);
            else
                norm_stv<DT>(w.y0, w.o, w.n, vi, f);
        }
    }
    if (LEAN)
        norm_lean_leave<TEAM, CL>(owed);
}

/* The register rungs' kinds: regs, regs_pf (persistent, the next row
 * prefetched), regs_1k (rows of 257-8192 vectors in one block of 1024
 * threads, no cluster; shorter rows as regs), lean (regs' teams with the
 * lean team sums and a register cap for occupancy), lean4 (the lean sums
 * with 4 vectors a thread beyond the warp teams: blocks of 128-1024,
 * clusters of 512), decode (lean's teams, NORM_AL_EARLY_W: aligned rows
 * of up to 1024 vectors, w and b loaded beside x), aligned (lean4's blocks
 * up to 4096 vectors, lean's clusters beyond, NORM_AL_ROWS: aligned rows,
 * w where lean loads it). */
enum {
    NORM_FWD_REGS = 0,
    NORM_FWD_PF = 1,
    NORM_FWD_1K = 2,
    NORM_FWD_LEAN = 3,
    NORM_FWD_LEAN4 = 4,
    NORM_FWD_DECODE = 5,
    NORM_FWD_ALIGNED = 6
};

/* A configuration: the kernel, its block, its cluster, and its team. */
struct norm_fwd_cfg {
    const void *fn;
    unsigned block, cl;
    bool warp, pf;
};

/* The register rungs hold a row in a cluster of at most 8 blocks of 256
 * threads, 8 vectors of 16 bytes each (rmsnorm.h's SL_RMSNORM_REGS_MAX_VECS). */
#define NORM_FWD_MAX_VECS ((uint64_t)8 * 256 * 8)

#define NORM_FK(B, T, C, V, P) (const void *)norm_fwd_regs<DT, WT, B, T, C, V, P, MODE, (P) ? 1 : (B) == 256 ? 3 : 1, false>
#define NORM_FL(B, C, V, M) (const void *)norm_fwd_regs<DT, WT, B, 0, C, V, false, MODE, M, true>
#define NORM_FD(B, T, V) (const void *)norm_fwd_regs<DT, WT, B, T, 1, V, false, MODE, 1, true, NORM_AL_EARLY_W>
#define NORM_FA(B, C, V, M) (const void *)norm_fwd_regs<DT, WT, B, 0, C, V, false, MODE, M, true, NORM_AL_ROWS>
#define NORM_FAW(V, M) (const void *)norm_fwd_regs<DT, WT, 256, 32, 1, V, false, MODE, M, true, NORM_AL_ROWS>
template <int MODE> struct norm_fwd_pick_m {
    template <int DT, int WT> struct at {
        /* aligned()'s launch bounds (blocks of its size an SM): the most
         * that ptxas -v (sm_90, nvcc 13.0) compiles without spills, so
         * that more rows are in flight an SM (issue 32, eighth session).
         * AFULL: 2048 threads an SM (32 registers) for the block teams and
         * the warp teams of 1-2 vectors: rmsnorm in every dtype pair,
         * layernorm with 16-bit rows and weights in the rows' dtype (AW16;
         * f32 rows or f32 weights spill 16-60 bytes there). Warp teams of 4
         * vectors: rmsnorm 6 blocks of 256 (40 registers), layernorm 5 (48)
         * and the fused add 4 (63) with AW16, else 3; of 8 (layernorm's
         * only since the tenth session: aligned() says why) 4 with AW16,
         * else 3. Before: 3 blocks of 256 for every warp team, and 1024
         * threads an SM for the block teams. */
        enum {
            AW16 = DT != SL_F32 && WT == DT,
            AFULL = MODE == NORM_RMS || (MODE == NORM_LN && AW16),
            AW2 = AFULL ? 8 : 3,
            AW4 = MODE == NORM_RMS ? 6 : !AW16 ? 3 : MODE == NORM_LN ? 5 : 4,
            AW8 = AW16 ? 4 : 3 /* layernorm's warp team of 8 vectors (64 registers with AW16) */
        };

        /* regs: the smallest team holding nvv vectors; false beyond a
         * cluster of 8. regs_pf (pf): persistent, the next row prefetched,
         * and at least 4 vectors a thread (blocks of 128-512, clusters of
         * 512). */
        static bool run(uint64_t nvv, int kind, norm_fwd_cfg *c)
        {
            const bool pf = kind == NORM_FWD_PF;
            if (kind == NORM_FWD_DECODE)
                return decode(nvv, c);
            if (kind == NORM_FWD_ALIGNED)
                return aligned(nvv, c);
            if ((kind == NORM_FWD_LEAN || kind == NORM_FWD_LEAN4) && nvv > 256)
                return lean(nvv, kind == NORM_FWD_LEAN4, c);
            if (kind == NORM_FWD_1K && nvv > 256) { /* one block of 1024 per row, no cluster */
                c->block = 1024;
                c->cl = 1;
                c->warp = false;
                c->pf = false;
                if (nvv <= 2048)
                    c->fn = NORM_FK(1024, 0, 1, 2, false);
                else if (nvv <= 4096)
                    c->fn = NORM_FK(1024, 0, 1, 4, false);
                else if (nvv <= 8192)
                    c->fn = NORM_FK(1024, 0, 1, 8, false);
                else
                    return false;
                return true;
            }
            c->block = 256;
            c->cl = 1;
            c->warp = true;
            c->pf = pf;
            if (pf && MODE == NORM_ADD_RMS) /* not offered: x and res both prefetched would double the registers */
                return false;
            if (nvv <= 32)
                c->fn = pf ? NORM_FK(256, 32, 1, 1, true) : NORM_FK(256, 32, 1, 1, false);
            else if (nvv <= 64)
                c->fn = pf ? NORM_FK(256, 32, 1, 2, true) : NORM_FK(256, 32, 1, 2, false);
            else if (nvv <= 128)
                c->fn = pf ? NORM_FK(256, 32, 1, 4, true) : NORM_FK(256, 32, 1, 4, false);
            else if (nvv <= 256)
                c->fn = pf ? NORM_FK(256, 32, 1, 8, true) : NORM_FK(256, 32, 1, 8, false);
            else if (pf) {
                c->warp = false;
                if (nvv <= 512)
                    c->fn = NORM_FK(128, 0, 1, 4, true), c->block = 128;
                else if (nvv <= 1024)
                    c->fn = NORM_FK(256, 0, 1, 4, true);
                else if (nvv <= 2048)
                    c->fn = NORM_FK(256, 0, 1, 8, true);
                else if (nvv <= 4096)
                    c->fn = NORM_FK(512, 0, 1, 8, true), c->block = 512;
                else if (nvv <= 8192)
                    c->fn = NORM_FK(512, 0, 2, 8, true), c->block = 512, c->cl = 2;
                else if (nvv <= NORM_FWD_MAX_VECS)
                    c->fn = NORM_FK(512, 0, 4, 8, true), c->block = 512, c->cl = 4;
                else
                    return false;
            } else {
                c->warp = false;
                if (nvv <= 512)
                    c->fn = NORM_FK(256, 0, 1, 2, false);
                else if (nvv <= 1024)
                    c->fn = NORM_FK(256, 0, 1, 4, false);
                else if (nvv <= 2048)
                    c->fn = NORM_FK(256, 0, 1, 8, false);
                else if (nvv <= 4096)
                    c->fn = NORM_FK(256, 0, 2, 8, false), c->cl = 2;
                else if (nvv <= 8192)
                    c->fn = NORM_FK(256, 0, 4, 8, false), c->cl = 4;
                else if (nvv <= NORM_FWD_MAX_VECS)
                    c->fn = NORM_FK(256, 0, 8, 8, false), c->cl = 8;
                else
                    return false;
            }
            return true;
        }

        /* decode: lean's teams up to 1024 vectors (a warp per row up to
         * 256, 8 rows a block; then a block of 256 per row, 2 or 4 vectors
         * a thread), NORM_AL_EARLY_W (aligned, w and b loaded with x);
         * false beyond.
         * The caller checks the alignment (norm_fwd_aligned). */
        static bool decode(uint64_t nvv, norm_fwd_cfg *c)
        {
            c->block = 256;
            c->cl = 1;
            c->warp = nvv <= 256;
            c->pf = false;
            if (nvv <= 32)
                c->fn = NORM_FD(256, 32, 1);
            else if (nvv <= 64)
                c->fn = NORM_FD(256, 32, 2);
            else if (nvv <= 128)
                c->fn = NORM_FD(256, 32, 4);
            else if (nvv <= 256)
                c->fn = NORM_FD(256, 32, 8);
            else if (nvv <= 512)
                c->fn = NORM_FD(256, 0, 2);
            else if (nvv <= 1024)
                c->fn = NORM_FD(256, 0, 4);
            else
                return false;
            return true;
        }

        /* aligned (NORM_AL_ROWS): regs' warp teams up to 128 vectors (8 rows
         * a block of 256), a block of 128 up to 512, lean4's blocks up to
         * 4096, lean's clusters of 256 beyond; the launch bounds of the enum
         * above (AW2 .. AFULL), the clusters' as lean's. Rows of 129-256
         * vectors ran the warp team of 8 vectors until the tenth session;
         * rmsnorm and the fused add take the block of 128 there since (2
         * vectors a thread, 8-16 blocks an SM): the fused add's team of 8
         * held 16 vectors a thread (x and res) in 80 registers, 3 blocks
         * an SM (Nsight Compute: 33% achieved occupancy, no eligible warp
         * 55% of the cycles). H200, bf16, fraction of the copy, team of 8
         * -> block of 128 (bench/results/h200-ab-norms-2026-11-27b.md): the
         * fused add 0.791 -> 1.039 at 32768 x 1536, 0.785 -> 1.042 at 2048;
         * rmsnorm 0.942 -> 0.978 and 0.912 -> 0.984; layernorm 0.943 ->
         * 0.762 and 0.928 -> 0.852, so layernorm keeps its team of 8 (two
         * reductions a row: two block barriers instead of shuffles). The
         * caller checks the alignment (norm_fwd_aligned). */
        static bool aligned(uint64_t nvv, norm_fwd_cfg *c)
        {
            const int M8 = MODE == NORM_RMS ? 4 : MODE == NORM_LN ? 3 : 2;
            c->cl = 1;
            c->warp = false;
            c->pf = false;
            c->block = 128;
            if (nvv <= (MODE == NORM_LN ? 256u : 128u)) {
                c->block = 256;
                c->warp = true;
                c->fn = nvv <= 32    ? NORM_FAW(1, AW2)
                        : nvv <= 64  ? NORM_FAW(2, AW2)
                        : nvv <= 128 ? NORM_FAW(4, AW4)
                                     : NORM_FAW(8, AW8);
            } else if (nvv <= 512)
                c->fn = NORM_FA(128, 1, 4, AFULL ? 16 : 8);
            else if (nvv <= 1024)
                c->fn = NORM_FA(256, 1, 4, AFULL ? 8 : 4), c->block = 256;
            else if (nvv <= 2048)
                c->fn = NORM_FA(512, 1, 4, AFULL ? 4 : 2), c->block = 512;
            else if (nvv <= 4096)
                c->fn = NORM_FA(1024, 1, 4, AFULL ? 2 : 1), c->block = 1024;
            else if (nvv <= 8192)
                c->fn = NORM_FA(256, 4, 8, M8), c->block = 256, c->cl = 4;
            else if (nvv <= NORM_FWD_MAX_VECS)
                c->fn = NORM_FA(256, 8, 8, M8), c->block = 256, c->cl = 8;
            else
                return false;
            return true;
        }

        /* lean (v4 false): regs' block and cluster teams (256 threads,
         * 2-8 vectors a thread; a block of 512 at 2049-4096 vectors), the
         * register cap set for occupancy where ptxas -v shows no spills
         * (sm_90, nvcc 13.0, bf16): at 2 vectors 6 blocks of 256 a SM (5
         * for layernorm), at 4 vectors 4, at 8 vectors 4 (layernorm 3, the
         * fused add 2: it holds x and res). lean4 (v4 true): 4 vectors a
         * thread, a block of 128-1024 threads (up to 4096 vectors), then
         * clusters of 4 or 8 blocks of 512; 1024 threads a SM (64
         * registers). */
        static bool lean(uint64_t nvv, bool v4, norm_fwd_cfg *c)
        {
            const int M2 = MODE == NORM_LN ? 5 : 6;
            const int M8 = MODE == NORM_RMS ? 4 : MODE == NORM_LN ? 3 : 2;
            c->cl = 1;
            c->warp = false;
            c->pf = false;
            if (v4) {
                c->block = 128;
                if (nvv <= 512)
                    c->fn = NORM_FL(128, 1, 4, 8);
                else if (nvv <= 1024)
                    c->fn = NORM_FL(256, 1, 4, 4), c->block = 256;
                else if (nvv <= 2048)
                    c->fn = NORM_FL(512, 1, 4, 2), c->block = 512;
                else if (nvv <= 4096)
                    c->fn = NORM_FL(1024, 1, 4, 1), c->block = 1024;
                else if (nvv <= 8192)
                    c->fn = NORM_FL(512, 4, 4, 2), c->block = 512, c->cl = 4;
                else if (nvv <= 8 * 512 * 4)
                    c->fn = NORM_FL(512, 8, 4, 2), c->block = 512, c->cl = 8;
                else
                    return false;
                return true;
            }
            c->block = 256;
            if (nvv <= 512)
                c->fn = NORM_FL(256, 1, 2, M2);
            else if (nvv <= 1024)
                c->fn = NORM_FL(256, 1, 4, 4);
            else if (nvv <= 2048)
                c->fn = NORM_FL(256, 1, 8, M8);
            else if (nvv <= 4096)
                c->fn = NORM_FL(512, 1, 8, M8 == 4 ? 2 : 1), c->block = 512;
            else if (nvv <= 8192)
                c->fn = NORM_FL(256, 4, 8, M8), c->cl = 4;
            else if (nvv <= NORM_FWD_MAX_VECS)
                c->fn = NORM_FL(256, 8, 8, M8), c->cl = 8;
            else
                return false;
            return true;
        }
    };
};
#undef NORM_FK
#undef NORM_FL
#undef NORM_FD
#undef NORM_FA
#undef NORM_FAW

/* The vectors of a row for the launch (every row at one offset: that
 * offset; else the worst, ve - 1), x at buffer ix. */
static inline uint64_t norm_fwd_nvv(const sl_args *a, int ix)
{
    const size_t es = sl_dtype_size(a->dtype), ve = 16 / es;
    const uint64_t ld = a->shape.ld ? a->shape.ld : a->shape.cols;
    const uint64_t o = (ld * es) % 16 == 0 ? ((uintptr_t)a->buf[ix] & 15u) / es : ve - 1;
    return (o + a->shape.cols + ve - 1) / ve;
}

/* The aligned kernels' condition (AL): every buffer of the launch (rows, weights, statistics)
 * 16-byte aligned, each row a whole number of 16-byte vectors (cols and
 * ld multiples of 16 / the dtype's size). What torch's allocator gives a
 * contiguous hidden size that is a multiple of 8 (bf16 / f16) or 4 (f32). */
static inline bool norm_fwd_aligned(const sl_args *a)
{
    const size_t ve = 16 / sl_dtype_size(a->dtype);
    const uint64_t ld = a->shape.ld ? a->shape.ld : a->shape.cols;
    if (a->shape.cols % ve != 0 || ld % ve != 0)
        return false;
    for (int i = 0; i < SL_MAX_BUFS; i++)
        if (((uintptr_t)a->buf[i] & 15u) != 0)
            return false;
    return true;
}

/* Whether the launch fits (x at buffer ix, y at iy, w at iw): x and y at
 * one offset modulo 16 bytes, the row within a cluster's registers
 * (clusters on sm_90+ only). */
template <int MODE> static bool norm_fwd_fits(const sl_args *a, int ix, int iy, int iw, int pf, norm_fwd_cfg *c)
{
    const uintptr_t ux = (uintptr_t)a->buf[ix], uy = (uintptr_t)a->buf[iy];
    if (((ux ^ uy) & 15u) || ((pf == NORM_FWD_DECODE || pf == NORM_FWD_ALIGNED) && !norm_fwd_aligned(a)))
        return false;
    const uint64_t nvv = norm_fwd_nvv(a, ix);
    const sl_dtype wt = norm_wdtype(a, iw);
#define NORM_FWD_AT(DT, WT) norm_fwd_pick_m<MODE>::template at<DT, WT>
    bool ok;
    if (a->dtype == SL_F32)
        ok = NORM_FWD_AT(SL_F32, SL_F32)::run(nvv, pf, c);
    else if (a->dtype == SL_BF16)
        ok = wt == SL_F32 ? NORM_FWD_AT(SL_BF16, SL_F32)::run(nvv, pf, c) : NORM_FWD_AT(SL_BF16, SL_BF16)::run(nvv, pf, c);
    else
        ok = wt == SL_F32 ? NORM_FWD_AT(SL_F16, SL_F32)::run(nvv, pf, c) : NORM_FWD_AT(SL_F16, SL_F16)::run(nvv, pf, c);
#undef NORM_FWD_AT
    return ok && (c->cl == 1 || norm_clusters());
}

/* The public forwards' row in shared memory: ex (bulk_ex, for 16-bit rows)
 * and, where it refuses (f32, a row beyond its chunks, no sm_90 code),
 * bulk; SL_ERR_UNSUPPORTED where both refuse. */
static inline sl_status norm_fwd_bulk_pick(const sl_args *a, sl_status (*ex)(const sl_args *),
                                           sl_status (*bulk)(const sl_args *))
{
    const sl_status st = a->dtype != SL_F32 ? ex(a) : SL_ERR_UNSUPPORTED;
    return st == SL_ERR_UNSUPPORTED ? bulk(a) : st;
}

static inline sl_status norm_fwd_launch(norm_fwd_geo g, const norm_fwd_cfg *c, void *stream)
{
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
    return norm_launch(c->fn, (unsigned)blocks, c->block, c->cl, params, stream);
}

#endif /* SL_NORM_FWD_CUH */
