/*
 * norm_bwd.cuh - the register kernel of the norms' backwards (issue 32),
 * one template for rmsnorm_bwd (MODE NORM_RMS) and layernorm_bwd
 * (NORM_LN), moved here from rmsnorm_bwd's 03_regs.cu (the RMS path
 * unchanged, operation for operation; the design and its measurements are
 * in that file's header): persistent teams, each row's x and dy held in
 * registers (read once, 16-byte vectors), the weight's gradient (and the
 * bias's) accumulated per thread across the rows its team owns, one
 * partial row per block (warp teams) or team and round of 256 rows, added
 * in fp64 in order by rmsnorm_bwd's dw.cu finish: deterministic, no
 * atomics. Three forms (PF): regs (partials in registers), regs_pf (the
 * next row prefetched, partials in shared memory), regs_sm (partials in
 * shared memory, no prefetch: 3 blocks of 256 a SM). The persistent grid
 * is what the GPU holds at once, clusters counted as clusters (third
 * session, docs/ladder.md). Per row:
 *   NORM_RMS: D = sum w dy x, c = D / N rstd^3, dx = fmaf(-x, c, rstd (w dy)),
 *             dw += (dy rstd) x;
 *   NORM_LN:  xh = (x - mean) rstd, g = w dy, c1 = sum g / N,
 *             c2 = sum g xh / N (two team sums), dx = fmaf(-xh, c2, g - c1) rstd,
 *             dw += dy xh, db += dy.
 * Masked columns hold 0 in x, dy and w, so they add 0 to every sum (xh
 * there is -mean rstd, but g = 0 and dy = 0 multiply it).
 * AL (seventh session, the aligned rungs): the forward's NORM_AL_ROWS
 * (norm_fwd.cuh) for aligned launches (norm_fwd_aligned: every buffer on
 * 16 bytes, cols and ld whole vectors): each of x's, dy's, dx's and w's
 * vectors whole or absent, one 16-byte access without the edge masks.
 * Pair teams (ninth session, the aligned_pf and aligned_sm rungs): TEAM
 * 64, two warps a row and BLOCK / 64 rows a block, for regs_pf and
 * regs_sm at 129-256 vectors (4 a thread): the row's sums through one
 * named barrier of the pair (norm_bwd_pair_sum), the partials added in
 * pair order at the flush as the warp teams' in warp order.
 */
#ifndef SL_NORM_BWD_CUH
#define SL_NORM_BWD_CUH

#include "norm_fwd.cuh"
#include "layernorm_bwd.h" /* norm_bwd_run_ln: SL_LNB_*, sl_layernorm_bwd_ws */
#include "rmsnorm_bwd.h" /* sl_norm_dw_partials, SL_NORM_DW_ROWS, SL_RMSB_* */

#include <mutex>

struct norm_bwd_geo {
    const void *x, *dy, *w;
    const float *mean, *rstd; /* mean: NORM_LN */
    void *dx;
    float *part, *partb; /* the dw (and db: NORM_LN) partials (the workspace) */
    uint64_t rows, cols, ld;
    uint32_t o; /* every row's offset in elements from its 16-byte boundary */
};

/* The kernel's three forms (template parameter PF): regs (the partial sums
 * in registers), regs_pf (the next row prefetched, the partials in shared
 * memory) and regs_sm (the partials in shared memory, no prefetch: ~64
 * registers a thread, so 4 blocks of 256 a SM hold 4 rows in flight where
 * regs holds 2). Resident blocks asked of ptxas: 768 threads a SM for
 * regs_sm (80 registers), else 2 of 256 or 4 of <= 128 (128 registers);
 * regs_sm's AL form (the aligned rungs) at <= 2 vectors a thread 1024 (64
 * registers, no spills: unasked, ptxas gave it 64-80 and 3 blocks of 256
 * where rmsnorm's masked bf16 kernel has 63 and 4; ptxas -v, sm_90). */
enum { NORM_BWD_REGS = 0, NORM_BWD_PF = 1, NORM_BWD_SM = 2 };
/* The aligned rungs' kind (norm_bwd_fits' pf, never a kernel's PF): the
 * public function's form at the row's length (norm_bwd_form) in its AL
 * kernel, for aligned launches only. */
enum { NORM_BWD_ALIGNED = 3 };
/* The aligned_pf and aligned_sm rungs' kinds (ninth session), aligned
 * launches only, as NORM_BWD_ALIGNED: pair teams (TEAM 64: two warps a
 * row, four rows a block of 256, 4 vectors a thread) at 129-256 vectors,
 * in regs_pf's form (the next row prefetched; _PF) or regs_sm's (no
 * prefetch, more blocks a SM; _SM); up to 128 vectors _PF takes regs_pf's
 * warp teams and _SM aligned's form; beyond 256 both take aligned's. */
enum { NORM_BWD_ALIGNED_PF = 4, NORM_BWD_ALIGNED_SM = 5 };
/* The aligned_pf3 rung's kind (tenth session), aligned launches only:
 * aligned_pf's forms with the launch bound at 3 blocks of 256 a SM (<= 80
 * registers, spilling 36-120 bytes a thread) where a thread holds 4
 * vectors of two rows (the warp teams at 65-128 vectors, the pair teams
 * at 129-256): 24 rows a SM in flight where aligned_pf holds 16 (warps)
 * or 8 (pairs); aligned_pf's kernels elsewhere. */
enum { NORM_BWD_ALIGNED_PF3 = 6 };
/* The aligned_pfx and aligned_pf3x rungs' kinds (tenth session): aligned_pf's
 * and aligned_pf3's kernels at 65-256 vectors with x, dy and w widened one
 * instruction an element (the kernel's FX, norm_w_widen_x). */
enum { NORM_BWD_ALIGNED_PFX = 7, NORM_BWD_ALIGNED_PF3X = 8 };
static inline bool norm_bwd_al(int pf)
{
    return pf == NORM_BWD_ALIGNED || pf == NORM_BWD_ALIGNED_PF || pf == NORM_BWD_ALIGNED_SM ||
           pf == NORM_BWD_ALIGNED_PF3 || pf == NORM_BWD_ALIGNED_PFX || pf == NORM_BWD_ALIGNED_PF3X;
}
#define NORM_BWD_MINB(BLOCK, PF, VPT, AL)                                                                             \
    ((PF) == NORM_BWD_SM ? ((AL) && (VPT) <= 2 ? 1024 : 768) / (BLOCK) : (BLOCK) <= 128 ? 4 : (BLOCK) <= 256 ? 2 : 1)

/* Pair teams (TEAM 64, regs_pf and regs_sm only): the sums of NV values
 * over the two warps of thread t's team: each warp's butterfly, then the
 * even warp's plus the odd warp's (the same bits in both warps), through
 * pr (2 x BLOCK / 32 x NV floats of shared memory, phase ph of two) and
 * the team's named barrier (1 + t / 64; 0 is __syncthreads's), an
 * immediate in each case of a switch: with the id in a register ptxas
 * reserves all 16 barriers of the block ("used 16 barriers"), which can
 * cost resident blocks; with immediates it counts 5. One
 * barrier a call: a warp writes phase ph again two calls later, after the
 * next call's barrier, which its partner passes only once its reads of
 * this call are done. */
template <int BLOCK, int NV>
static __device__ __forceinline__ void norm_bwd_pair_sum(float (&v)[NV], float *pr, unsigned ph)
{
    const unsigned w = threadIdx.x >> 5;
    float *p = pr + ph * (BLOCK / 32) * NV;
#pragma unroll
    for (int s = 0; s < NV; s++) {
        v[s] = smx_warp<smx_sum_op>(v[s]);
        if ((threadIdx.x & 31u) == 0)
            p[w * NV + s] = v[s];
    }
    switch (threadIdx.x >> 6) { /* warp-uniform; BLOCK <= 256 (norm_bwd_regs asserts it) */
    case 0:
        asm volatile("bar.sync 1, 64;" ::: "memory");
        break;
    case 1:
        asm volatile("bar.sync 2, 64;" ::: "memory");
        break;
    case 2:
        asm volatile("bar.sync 3, 64;" ::: "memory");
        break;
    default:
        asm volatile("bar.sync 4, 64;" ::: "memory");
        break;
    }
#pragma unroll
    for (int s = 0; s < NV; s++)
        v[s] = p[(w & ~1u) * NV + s] + p[(w | 1u) * NV + s];
}

/* regs_pf's and regs_sm's partial sums live in dynamic shared memory as float4 slots,
 * slot-major (slot (s, i, q) of thread t at [slot x BLOCK + t]): a warp's
 * 16-byte accesses cover 512 contiguous bytes (no bank conflicts), and one
 * LDS.128 / STS.128 pair updates four columns. */
#define NORM_BWD_SLOT(s, i, q) (((s) * VPT + (i)) * (VE / 4) + (q))

/* A thread's VPT vectors of the row at x0: norm_ldrow, or where AL (whole
 * vectors, o = 0) norm_ldrow_al without the edge masks. */
template <int DT, int VPT, int AL>
static __device__ __forceinline__ void norm_bwd_ldrow(const char *x0, uint32_t o, uint64_t n, uint64_t nvv, unsigned t,
                                                      unsigned T, uint4 *v)
{
    if (AL != NORM_AL_NONE)
        norm_ldrow_al<VPT>(x0, nvv, t, T, v);
    else
        norm_ldrow<DT, VPT>(x0, o, n, nvv, t, T, v);
}

/* Write the partial sums of a round of rows as partial row pr and zero
 * them for the next round. A block of warp teams adds its warps' sums in
 * warp order (shared memory); a block or cluster team's threads write
 * their own columns. Called by every thread of the block. */
template <int DT, int BLOCK, int TEAM, int VPT, bool SA, int NA>
static __device__ __forceinline__ void norm_bwd_flush(const norm_bwd_geo &g, float (&acc)[NA][VPT][NORM_VE(DT)],
                                                      float4 *sacc, uint64_t pr, unsigned tl, unsigned T, uint64_t nvv)
{
    const int VE = NORM_VE(DT);
    const bool SUB = TEAM == 32 || TEAM == 64; /* warp or pair teams, BLOCK / TEAM a block */
    static_assert(TEAM != 64 || SA, "pair teams keep their partials in shared memory");
    __shared__ float comb[TEAM == 32 && !SA ? 32 * VPT * VE : 1];
    const float *sf = (const float *)sacc;
#pragma unroll
    for (int s = 0; s < NA; s++) {
        float *part = (s ? g.partb : g.part) + pr * g.cols;
        if (SUB) {
            __syncthreads(); /* the slots written (SA); comb's last readers done (regs) */
            if (SA) { /* slot (i, k) of team thread l: the block's teams in team order */
                const unsigned TT = SUB ? TEAM : 1;
                for (unsigned p = threadIdx.x; p < TT * VPT * VE; p += BLOCK) {
                    const unsigned lane = p % TT, sl = p / TT, i = sl / VE, k = sl % VE;
                    float t = 0.0f;
                    for (unsigned wq = 0; wq < BLOCK / TT; wq++)
                        t += sf[((uint64_t)NORM_BWD_SLOT(s, i, k / 4) * BLOCK + wq * TT + lane) * 4 + k % 4];
                    const int64_t c = (int64_t)((i * TT + lane) * VE + k) - (int64_t)g.o;
                    if (c >= 0 && (uint64_t)c < g.cols)
                        part[c] = t;
                }
            } else { /* the block's warps own the same columns: add them in warp order */
                const unsigned lane = threadIdx.x & 31u, wid = threadIdx.x >> 5;
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
                for (unsigned sl = threadIdx.x; sl < 32u * VPT * VE; sl += BLOCK) {
                    const int64_t c = (int64_t)sl - (int64_t)g.o; /* vector sl / VE, element sl % VE */
                    if (c >= 0 && (uint64_t)c < g.cols)
                        part[c] = comb[sl];
                }
            }
        } else {
#pragma unroll
            for (int i = 0; i < VPT; i++) {
                const uint64_t vi = tl + (uint64_t)i * T;
#pragma unroll
                for (int k = 0; k < VE; k++) {
                    const int64_t c = (int64_t)(vi * VE + k) - (int64_t)g.o;
                    if (vi < nvv && c >= 0 && (uint64_t)c < g.cols)
                        part[c] = SA ? sf[((uint64_t)NORM_BWD_SLOT(s, i, k / 4) * BLOCK + threadIdx.x) * 4 + k % 4]
                                     : acc[s][i][k];
                }
            }
        }
    }
    if (SUB)
        __syncthreads(); /* every warp's slots read before they are zeroed */
#pragma unroll
    for (int s = 0; s < NA; s++)
#pragma unroll
        for (int i = 0; i < VPT; i++) {
            if (SA) {
#pragma unroll
                for (int q = 0; q < VE / 4; q++)
                    sacc[NORM_BWD_SLOT(s, i, q) * BLOCK + threadIdx.x] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
            } else {
#pragma unroll
                for (int k = 0; k < VE; k++)
                    acc[s][i][k] = 0.0f;
            }
        }
}

/* The kernel. Rounds: a team owns rows team, team + nteams, ...; its
 * thread's partial sums cover SL_NORM_DW_ROWS of them at most (the
 * tolerance's bound), so every SL_NORM_DW_ROWS rows they are flushed as
 * partial row pr0 + j x per_round (round j; per_round: the grid's blocks
 * for warp teams, its teams for block and cluster teams), nflush rounds in
 * all, and every block writes every round (zeros where it had no rows in
 * it): the finish reads nflush x per_round rows, each one written. A block
 * of warp teams walks its warps' rows in lockstep (the flush is
 * block-wide): a warp past the last row idles through the step; pair
 * teams (TEAM 64) the same, both warps of a pair alike. MB: the launch
 * bound's blocks a SM where it is not NORM_BWD_MINB's (0). FX (AL only,
 * tenth session): x, dy and w widened one instruction an element
 * (norm_elx, norm_w_widen_x), the same values. */
template <int DT, int WT, int BLOCK, int TEAM, int CL, int VPT, int PF, int MODE, int AL = NORM_AL_NONE, int MB = 0,
          int FX = 0>
static __global__ void __launch_bounds__(BLOCK, MB ? MB : NORM_BWD_MINB(BLOCK, PF, VPT, AL)) norm_bwd_regs(norm_bwd_geo g)
{
    const bool PRE = PF == NORM_BWD_PF, SA = PF != NORM_BWD_REGS; /* prefetch; partials in shared memory */
    const bool A = AL != NORM_AL_NONE; /* whole vectors (g.o = 0, cols a multiple of VE) */
    typedef typename sl_dt<DT>::raw R;
    const int VE = NORM_VE(DT);
    const int NA = MODE == NORM_LN ? 2 : 1; /* accumulators: dw (and db) */
    /* sub-block teams: a warp (TEAM 32) or a pair of warps (TEAM 64) a row,
     * BLOCK / TEAM rows a block; else the block or cluster */
    const bool SUB = TEAM == 32 || TEAM == 64;
    const unsigned TS = SUB ? (unsigned)TEAM : 1u;
    static_assert(TEAM != 64 || (SA && CL == 1 && BLOCK % 64 == 0 && BLOCK / 64 <= 4), "pair teams: regs_pf, regs_sm");
    static_assert(!FX || AL != NORM_AL_NONE, "FX: the aligned kernels");
    const unsigned T = SUB ? TS : (unsigned)(BLOCK * CL);
    __shared__ float red[BLOCK / 32];
    __shared__ float cl;
    __shared__ float pr[TEAM == 64 ? 2 * (BLOCK / 32) * NA : 1]; /* pair teams' sums: norm_bwd_pair_sum */
    unsigned ph = 0;
    extern __shared__ float4 sacc[]; /* regs_pf, regs_sm: NA x VPT x VE / 4 float4 slots a thread */
    const unsigned tl = SUB ? threadIdx.x % TS : norm_cl_rank<CL>() * BLOCK + threadIdx.x;
    const uint64_t team = SUB ? (uint64_t)blockIdx.x * (BLOCK / TS) + threadIdx.x / TS : blockIdx.x / CL;
    const uint64_t team0 = SUB ? (uint64_t)blockIdx.x * (BLOCK / TS) : team; /* the block's first */
    const uint64_t nteams = SUB ? (uint64_t)gridDim.x * (BLOCK / TS) : gridDim.x / CL;
    const uint64_t per_round = SUB ? gridDim.x : nteams, pr0 = SUB ? blockIdx.x : team;
    const uint64_t nflush = ((g.rows + nteams - 1) / nteams + SL_NORM_DW_ROWS - 1) / SL_NORM_DW_ROWS;
    const uint64_t nvv = A ? g.cols / VE : (g.o + g.cols + VE - 1) / VE;
    const bool wv = norm_wvec<WT>(g.w, g.o);
    float acc[NA][VPT][VE]; /* regs: the partials in registers */
#pragma unroll
    for (int s = 0; s < NA; s++)
#pragma unroll
        for (int i = 0; i < VPT; i++) {
            if (SA)
#pragma unroll
                for (int q = 0; q < VE / 4; q++)
                    sacc[NORM_BWD_SLOT(s, i, q) * BLOCK + threadIdx.x] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
#pragma unroll
            for (int k = 0; k < VE; k++)
                acc[s][i][k] = 0.0f;
        }
    const uint64_t back = (uint64_t)g.o * sizeof(R), rowb = g.ld * sizeof(R);
    uint4 nxv[VPT], ndv[VPT]; /* regs_pf: the next row */
    float nrs = 0.0f;
    if (PRE && team < g.rows) {
        norm_bwd_ldrow<DT, VPT, AL>((const char *)g.x + team * rowb - back, g.o, g.cols, nvv, tl, T, nxv);
        norm_bwd_ldrow<DT, VPT, AL>((const char *)g.dy + team * rowb - back, g.o, g.cols, nvv, tl, T, ndv);
        nrs = g.rstd[team];
    }
    for (uint64_t j = 0; j < nflush; j++) {
        const uint64_t k1 = (j + 1) * SL_NORM_DW_ROWS;
        for (uint64_t k = j * SL_NORM_DW_ROWS; k < k1 && team0 + k * nteams < g.rows; k++) {
            const uint64_t r = team + k * nteams;
            if (SUB && r >= g.rows)
                continue; /* this team's rows are done, its block's are not (a pair's warps alike) */
            const char *x0 = (const char *)g.x + r * rowb - back;
            const char *dy0 = (const char *)g.dy + r * rowb - back;
            char *dx0 = (char *)g.dx + r * rowb - back;
            uint4 xv[VPT], dv[VPT];
            float rs;
            if (PRE) {
#pragma unroll
                for (int i = 0; i < VPT; i++) {
                    xv[i] = nxv[i];
                    dv[i] = ndv[i];
                }
                rs = nrs;
                const uint64_t rn = r + nteams;
                if (rn < g.rows) {
                    norm_bwd_ldrow<DT, VPT, AL>((const char *)g.x + rn * rowb - back, g.o, g.cols, nvv, tl, T, nxv);
                    norm_bwd_ldrow<DT, VPT, AL>((const char *)g.dy + rn * rowb - back, g.o, g.cols, nvv, tl, T,
                                                ndv);
                    nrs = g.rstd[rn];
                }
            } else {
                norm_bwd_ldrow<DT, VPT, AL>(x0, g.o, g.cols, nvv, tl, T, xv);
                norm_bwd_ldrow<DT, VPT, AL>(dy0, g.o, g.cols, nvv, tl, T, dv);
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
                if (A)
                    norm_ldw_al<DT, WT, FX>(g.w, vi, wf);
                else
                    norm_ldw<DT, WT>(g.w, wv, g.o, g.cols, vi, wf);
#pragma unroll
                for (int e = 0; e < VE; e++) {
                    if (MODE == NORM_LN) {
                        const float gk = wf[e] * norm_elx<DT, FX != 0>(dv[i], e);
                        d1 += gk;
                        d = fmaf(gk, (norm_elx<DT, FX != 0>(xv[i], e) - mu) * rs, d);
                    } else {
                        d = fmaf(wf[e] * norm_elx<DT, FX != 0>(dv[i], e), norm_elx<DT, FX != 0>(xv[i], e), d);
                    }
                }
            }
            float c, c1 = 0.0f;
            if (TEAM == 64) { /* both sums through one barrier */
                float v[NA];
                v[0] = d;
                if (NA > 1)
                    v[NA - 1] = d1;
                norm_bwd_pair_sum<BLOCK, NA>(v, pr, ph);
                ph ^= 1u;
                d = v[0];
                d1 = v[NA - 1];
            } else {
                d = norm_team_sum<BLOCK, TEAM, CL>(d, red, &cl);
                if (MODE == NORM_LN)
                    d1 = norm_team_sum<BLOCK, TEAM, CL>(d1, red, &cl);
            }
            if (MODE == NORM_LN) {
                c1 = d1 / (float)g.cols;
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
                if (A)
                    norm_ldw_al<DT, WT, FX>(g.w, vi, wf);
                else
                    norm_ldw<DT, WT>(g.w, wv, g.o, g.cols, vi, wf);
#pragma unroll
                for (int q = 0; q < VE / 4; q++) {
                    float4 *pw = &sacc[NORM_BWD_SLOT(0, i, q) * BLOCK + threadIdx.x];
                    float4 *pb = &sacc[NORM_BWD_SLOT(NA - 1, i, q) * BLOCK + threadIdx.x];
                    float a[4] = {0.0f, 0.0f, 0.0f, 0.0f}, ab[4] = {0.0f, 0.0f, 0.0f, 0.0f};
                    if (SA) { /* four slots of dw (and db): read once, written once */
                        const float4 t = *pw;
                        a[0] = t.x, a[1] = t.y, a[2] = t.z, a[3] = t.w;
                        if (NA > 1) {
                            const float4 tb = *pb;
                            ab[0] = tb.x, ab[1] = tb.y, ab[2] = tb.z, ab[3] = tb.w;
                        }
                    }
#pragma unroll
                    for (int h = 0; h < 4; h++) { /* dw += u v, db += dy (masked columns add 0) */
                        const int e = 4 * q + h;
                        const float xk = norm_elx<DT, FX != 0>(xv[i], e), dk = norm_elx<DT, FX != 0>(dv[i], e);
                        float u, v;
                        if (MODE == NORM_LN) {
                            const float xh = (xk - mu) * rs;
                            f[e] = fmaf(-xh, c, wf[e] * dk - c1) * rs;
                            u = dk;
                            v = xh;
                        } else {
                            f[e] = fmaf(-xk, c, rs * (wf[e] * dk));
                            u = dk * rs;
                            v = xk;
                        }
                        float &sw = SA ? a[h] : acc[0][i][e];
                        sw = fmaf(u, v, sw);
                        if (NA > 1) {
                            float &sb = SA ? ab[h] : acc[NA - 1][i][e];
                            sb += dk;
                        }
                    }
                    if (SA) {
                        *pw = make_float4(a[0], a[1], a[2], a[3]);
                        if (NA > 1)
                            *pb = make_float4(ab[0], ab[1], ab[2], ab[3]);
                    }
                }
                if (A)
                    ((uint4 *)dx0)[vi] = norm_pack<DT>(f);
                else
                    norm_stv<DT>(dx0, g.o, g.cols, vi, f);
            }
        }
        /* the round's partial row (zeros where this block had no rows in it) */
        norm_bwd_flush<DT, BLOCK, TEAM, VPT, SA, NA>(g, acc, sacc, pr0 + j * per_round, tl, T, nvv);
    }
}
#undef NORM_BWD_SLOT

struct norm_bwd_cfg {
    const void *fn;
    unsigned block, cl;
    bool warp; /* sub-block teams: warps, or pairs of warps where tt = 64 */
    unsigned tt; /* a sub-block team's threads: 64 (pair teams), else 0 (warp teams: 32) */
    size_t smem; /* regs_pf: the partials' dynamic shared memory, bytes */
};

/* The form the public functions take at a row of nvv vectors of dtype dt
 * (the rung measured best; H100, bf16, docs/ladder.md, third session):
 * regs_pf for 16-bit rows of <= 128 vectors at >= 1024 rows (rmsnorm also
 * 1025-2048: clusters of 2; layernorm's two accumulators leave regs_sm
 * ahead there), regs for 129-256 and 513-1024, regs_sm for 257-512 and
 * beyond 1024. The aligned rungs take the same form in its AL kernel. */
template <int MODE> static inline int norm_bwd_form(sl_dtype dt, uint64_t rows, uint64_t nvv)
{
    const bool pf =
        dt != SL_F32 && rows >= 1024 && (nvv <= 128 || (MODE == NORM_RMS && nvv > 1024 && nvv <= 2048));
    return pf ? NORM_BWD_PF : nvv > 256 && !(nvv > 512 && nvv <= 1024) ? NORM_BWD_SM : NORM_BWD_REGS;
}

#define NORM_BK(B, T, C, V, P) (const void *)norm_bwd_regs<DT, WT, B, T, C, V, P, MODE>
#define NORM_BKA(B, T, C, V, P) (const void *)norm_bwd_regs<DT, WT, B, T, C, V, P, MODE, NORM_AL_ROWS>
#define NORM_BKP(T, V) (const void *)norm_bwd_regs<DT, WT, 256, T, 1, V, NORM_BWD_PF, MODE, NORM_AL_ROWS>
#define NORM_BKS(MB) (const void *)norm_bwd_regs<DT, WT, 256, 64, 1, 4, NORM_BWD_SM, MODE, NORM_AL_ROWS, MB>
#define NORM_BKP3(T) (const void *)norm_bwd_regs<DT, WT, 256, T, 1, 4, NORM_BWD_PF, MODE, NORM_AL_ROWS, 3>
/* FX changes nothing for f32 rows: NORM_BKPX is then NORM_BKP's or NORM_BKP3's kernel */
#define NORM_BKPX(T, MB)                                                                                              \
    (const void *)norm_bwd_regs<DT, WT, 256, T, 1, 4, NORM_BWD_PF, MODE, NORM_AL_ROWS, MB, DT != SL_F32>

template <int MODE> struct norm_bwd_pick_m {
    template <int DT, int WT> struct at {
        /* pf: a kernel form (NORM_BWD_REGS, _PF, _SM), NORM_BWD_ALIGNED or
         * NORM_BWD_ALIGNED_PF, _SM, _PF3, _PFX or _PF3X. */
        static bool run(uint64_t nvv, uint64_t rows, int pf, norm_bwd_cfg *c)
        {
            if (pf == NORM_BWD_ALIGNED_PF || pf == NORM_BWD_ALIGNED_SM || pf == NORM_BWD_ALIGNED_PF3 ||
                pf == NORM_BWD_ALIGNED_PFX || pf == NORM_BWD_ALIGNED_PF3X)
                return aligned_pair(nvv, rows, pf, c);
            if (pf == NORM_BWD_ALIGNED)
                return aligned(nvv, rows, c);
            c->block = 512;
            c->cl = 1;
            c->warp = true;
            c->tt = 0;
            c->smem = 0;
            if (pf == NORM_BWD_PF) { /* regs_pf: 256-thread warp blocks, else 4 vectors a thread */
                c->block = 256;
                if (nvv <= 32)
                    c->fn = NORM_BK(256, 32, 1, 1, NORM_BWD_PF);
                else if (nvv <= 64)
                    c->fn = NORM_BK(256, 32, 1, 2, NORM_BWD_PF);
                else if (nvv <= 128)
                    c->fn = NORM_BK(256, 32, 1, 4, NORM_BWD_PF);
                else {
                    c->warp = false;
                    if (nvv <= 256)
                        c->fn = NORM_BK(64, 0, 1, 4, NORM_BWD_PF), c->block = 64;
                    else if (nvv <= 512)
                        c->fn = NORM_BK(128, 0, 1, 4, NORM_BWD_PF), c->block = 128;
                    else if (nvv <= 1024)
                        c->fn = NORM_BK(256, 0, 1, 4, NORM_BWD_PF);
                    else if (nvv <= 2048)
                        c->fn = NORM_BK(256, 0, 2, 4, NORM_BWD_PF), c->cl = 2;
                    else if (nvv <= 4096)
                        c->fn = NORM_BK(256, 0, 4, 4, NORM_BWD_PF), c->cl = 4;
                    else if (nvv <= 8192)
                        c->fn = NORM_BK(256, 0, 8, 4, NORM_BWD_PF), c->cl = 8;
                    else
                        return false;
                }
                const size_t na = MODE == NORM_LN ? 2 : 1, vpt = nvv <= 32 ? 1 : nvv <= 64 ? 2 : 4;
                c->smem = na * vpt * (16 / sizeof(typename sl_dt<DT>::raw)) * c->block * sizeof(float);
                return true;
            }
            const bool sm = pf == NORM_BWD_SM; /* regs_sm: regs's table, warp teams (<= 128 vectors) as regs */
            if (nvv <= 32)
                c->fn = NORM_BK(512, 32, 1, 1, NORM_BWD_REGS);
            else if (nvv <= 64)
                c->fn = NORM_BK(512, 32, 1, 2, NORM_BWD_REGS);
            else if (nvv <= 128)
                c->fn = NORM_BK(512, 32, 1, 4, NORM_BWD_REGS);
            else {
                c->warp = false;
                c->block = 256;
                if (nvv <= 256)
                    c->fn = sm ? NORM_BK(256, 0, 1, 1, NORM_BWD_SM) : NORM_BK(256, 0, 1, 1, NORM_BWD_REGS);
                else if (nvv <= 512)
                    c->fn = sm ? NORM_BK(256, 0, 1, 2, NORM_BWD_SM) : NORM_BK(256, 0, 1, 2, NORM_BWD_REGS);
                else if (nvv <= 1024)
                    c->fn = sm ? NORM_BK(256, 0, 1, 4, NORM_BWD_SM) : NORM_BK(256, 0, 1, 4, NORM_BWD_REGS);
                else if (nvv <= 2048)
                    c->fn = sm ? NORM_BK(256, 0, 2, 4, NORM_BWD_SM) : NORM_BK(256, 0, 2, 4, NORM_BWD_REGS), c->cl = 2;
                else if (nvv <= 4096)
                    c->fn = sm ? NORM_BK(256, 0, 4, 4, NORM_BWD_SM) : NORM_BK(256, 0, 4, 4, NORM_BWD_REGS), c->cl = 4;
                else if (nvv <= 8192)
                    c->fn = sm ? NORM_BK(256, 0, 8, 4, NORM_BWD_SM) : NORM_BK(256, 0, 8, 4, NORM_BWD_REGS), c->cl = 8;
                else if (nvv <= 16384)
                    c->fn = sm ? NORM_BK(512, 0, 8, 4, NORM_BWD_SM) : NORM_BK(512, 0, 8, 4, NORM_BWD_REGS), c->cl = 8,
                    c->block = 512;
                else
                    return false;
                const size_t na = MODE == NORM_LN ? 2 : 1, vpt = nvv <= 256 ? 1 : nvv <= 512 ? 2 : 4;
                if (sm) /* regs_sm: the block and cluster teams */
                    c->smem = na * vpt * (16 / sizeof(typename sl_dt<DT>::raw)) * c->block * sizeof(float);
            }
            return true;
        }

        /* aligned: the public function's form (norm_bwd_form) with its
         * block, cluster, team and shared memory (run's table), in the AL
         * kernel of the same shape. Only the forms the public function
         * takes are instantiated (14 kernels a dtype pair, not run's 23).
         * The caller checks the alignment (norm_fwd_aligned). */
        static bool aligned(uint64_t nvv, uint64_t rows, norm_bwd_cfg *c)
        {
            /* 16-bit rows of 129-256 vectors (1032-2048 columns) at 1024 rows
             * and more: the pair teams with the next row prefetched
             * (aligned_pf; H200, bf16, 32768 x 2048: rmsnorm_bwd 0.865 and
             * layernorm_bwd 0.877 of the copy kernel against this form's 0.807
             * and 0.653; bench/results/h200-norms-2026-11-27.md), with the
             * one-instruction widening since the tenth session (aligned_pfx:
             * 0.850 / 0.888 against aligned_pf's 0.828 / 0.868 in one process;
             * bench/results/h200-ab-norms-2026-11-27b.md) */
            if (DT != SL_F32 && nvv > 128 && nvv <= 256 && rows >= 1024)
                return aligned_pair(nvv, rows, NORM_BWD_ALIGNED_PFX, c);
            const int f = norm_bwd_form<MODE>((sl_dtype)DT, rows, nvv);
            if (!run(nvv, rows, f, c))
                return false;
            const bool p = f == NORM_BWD_PF;
            if (nvv <= 32)
                c->fn = p ? NORM_BKA(256, 32, 1, 1, NORM_BWD_PF) : NORM_BKA(512, 32, 1, 1, NORM_BWD_REGS);
            else if (nvv <= 64)
                c->fn = p ? NORM_BKA(256, 32, 1, 2, NORM_BWD_PF) : NORM_BKA(512, 32, 1, 2, NORM_BWD_REGS);
            else if (nvv <= 128)
                c->fn = p ? NORM_BKA(256, 32, 1, 4, NORM_BWD_PF) : NORM_BKA(512, 32, 1, 4, NORM_BWD_REGS);
            else if (nvv <= 256)
                c->fn = NORM_BKA(256, 0, 1, 1, NORM_BWD_REGS);
            else if (nvv <= 512)
                c->fn = NORM_BKA(256, 0, 1, 2, NORM_BWD_SM);
            else if (nvv <= 1024)
                c->fn = NORM_BKA(256, 0, 1, 4, NORM_BWD_REGS);
            else if (nvv <= 2048)
                c->fn = p ? NORM_BKA(256, 0, 2, 4, NORM_BWD_PF) : NORM_BKA(256, 0, 2, 4, NORM_BWD_SM);
            else if (nvv <= 4096)
                c->fn = NORM_BKA(256, 0, 4, 4, NORM_BWD_SM);
            else if (nvv <= 8192)
                c->fn = NORM_BKA(256, 0, 8, 4, NORM_BWD_SM);
            else
                c->fn = NORM_BKA(512, 0, 8, 4, NORM_BWD_SM); /* run refused beyond 16384 */
            return true;
        }

        /* aligned_pf (ninth session; kind NORM_BWD_ALIGNED_PF): the AL regs_pf at every row of <= 256
         * vectors whatever the dtype and row count: warp teams of 1, 2 or 4
         * vectors a thread (regs_pf's kernels) up to 128 vectors, pair
         * teams of 4 vectors a thread (64 threads a row, 4 rows a block of
         * 256, bound 2: 128 registers) at 129-256; beyond, aligned's form.
         * x and dy in flight a SM: 2 blocks x 256 threads x 4 vectors x 2
         * x 16 bytes = 64 KiB between every row's loads (the next row's
         * prefetch), where aligned's regs at 129-256 (block teams, 1 vector
         * a thread, 3-4 blocks of 256) has 24-32 KiB and only until the
         * team sum. One partial row a block and round, the teams in team
         * order (norm_bwd_flush): 2 a SM, where block teams write 3-4.
         * aligned_sm (NORM_BWD_ALIGNED_SM): the pair teams at 129-256 vectors in
         * regs_sm's form, no prefetch, bound 4 blocks of 256 for rmsnorm
         * with w in the rows' dtype (<= 64 registers; 32 KiB of dw
         * partials a block; f32 w with 16-bit rows spills 4 bytes at 64)
         * and 3 for the rest and layernorm (<= 80; layernorm's 64 KiB of
         * dw and db partials a block allow 3 at 16-bit rows): 128 / 96 KiB
         * of x and dy in flight a SM while the rows load, none between a
         * team's sums and its next row but what the other teams have;
         * aligned's form elsewhere. aligned_pf3 (NORM_BWD_ALIGNED_PF3,
         * tenth session): aligned_pf's kernels with the launch bound at 3
         * blocks of 256 (<= 80 registers; ptxas spills 36-120 bytes a
         * thread, L1 hits) where they hold 4 vectors a thread: the warp
         * teams at 65-128 vectors and the pair teams at 129-256, so 768
         * threads a SM x 4 vectors x 2 x 16 bytes = 96 KiB of the next rows
         * in flight (aligned_pf: 64 KiB); the dw (db) partials' shared
         * memory grows with the blocks (3 x 32 / 64 KiB a SM at 16-bit
         * rows). aligned_pfx and aligned_pf3x (NORM_BWD_ALIGNED_PFX,
         * _PF3X): aligned_pf's and aligned_pf3's kernels at 65-256 vectors
         * with FX, x, dy and w widened one instruction an element (bf16:
         * 24 instructions fewer a vector and a warp over the two passes). */
        static bool aligned_pair(uint64_t nvv, uint64_t rows, int kind, norm_bwd_cfg *c)
        {
            const bool sm = kind == NORM_BWD_ALIGNED_SM, fx = kind == NORM_BWD_ALIGNED_PFX || kind == NORM_BWD_ALIGNED_PF3X;
            const bool p3 = kind == NORM_BWD_ALIGNED_PF3 || kind == NORM_BWD_ALIGNED_PF3X;
            if (nvv > 256 || (sm && nvv <= 128))
                return aligned(nvv, rows, c);
            c->block = 256;
            c->cl = 1;
            c->warp = true;
            c->tt = 0;
            size_t vpt = 4;
            if (nvv <= 32)
                c->fn = NORM_BKP(32, 1), vpt = 1;
            else if (nvv <= 64)
                c->fn = NORM_BKP(32, 2), vpt = 2;
            else if (nvv <= 128)
                c->fn = fx ? (p3 ? NORM_BKPX(32, 3) : NORM_BKPX(32, 0)) : p3 ? NORM_BKP3(32) : NORM_BKP(32, 4);
            else if (sm)
                c->fn = NORM_BKS(MODE == NORM_RMS && DT == WT ? 4 : 3), c->tt = 64;
            else
                c->fn = fx ? (p3 ? NORM_BKPX(64, 3) : NORM_BKPX(64, 0)) : p3 ? NORM_BKP3(64) : NORM_BKP(64, 4),
                c->tt = 64;
            const size_t na = MODE == NORM_LN ? 2 : 1;
            c->smem = na * vpt * (16 / sizeof(typename sl_dt<DT>::raw)) * c->block * sizeof(float);
            return true;
        }
    };
};
#undef NORM_BK
#undef NORM_BKA
#undef NORM_BKP
#undef NORM_BKS
#undef NORM_BKP3
#undef NORM_BKPX

/* Whether the launch fits: x, dy and dx (buffers ix, idy, idx) at one
 * offset modulo 16 bytes, every row at that offset (ld a multiple of 16
 * bytes, or one row), the row within a team's registers (clusters on
 * sm_90+ only); NORM_BWD_ALIGNED, _PF, _SM, _PF3, _PFX and _PF3X: an aligned launch
 * (norm_fwd_aligned). */
template <int MODE>
static bool norm_bwd_fits(const sl_args *a, int ix, int idy, int idx, int iw, int pf, norm_bwd_cfg *c, uint32_t *o)
{
    const uintptr_t ux = (uintptr_t)a->buf[ix], ud = (uintptr_t)a->buf[idy], uo = (uintptr_t)a->buf[idx];
    const size_t es = sl_dtype_size(a->dtype), ve = 16 / es;
    const uint64_t ld = a->shape.ld ? a->shape.ld : a->shape.cols;
    if (((ux ^ ud) | (ux ^ uo)) & 15u || ((ld * es) % 16 != 0 && a->shape.rows > 1) ||
        (norm_bwd_al(pf) && !norm_fwd_aligned(a)))
        return false;
    *o = (uint32_t)((ux & 15u) / es);
    const uint64_t nvv = (*o + a->shape.cols + ve - 1) / ve;
    const sl_dtype wt = norm_wdtype(a, iw);
    const uint64_t r = a->shape.rows;
#define NORM_BWD_AT(DT, WT) norm_bwd_pick_m<MODE>::template at<DT, WT>
    bool ok;
    if (a->dtype == SL_F32)
        ok = NORM_BWD_AT(SL_F32, SL_F32)::run(nvv, r, pf, c);
    else if (a->dtype == SL_BF16)
        ok = wt == SL_F32 ? NORM_BWD_AT(SL_BF16, SL_F32)::run(nvv, r, pf, c)
                          : NORM_BWD_AT(SL_BF16, SL_BF16)::run(nvv, r, pf, c);
    else
        ok = wt == SL_F32 ? NORM_BWD_AT(SL_F16, SL_F32)::run(nvv, r, pf, c)
                          : NORM_BWD_AT(SL_F16, SL_F16)::run(nvv, r, pf, c);
#undef NORM_BWD_AT
    return ok && (c->cl == 1 || norm_clusters());
}

/* The teams a launch holds at once: the occupancy API's blocks per SM x
 * SMs / CL, or for clusters its active clusters: a cluster's blocks share
 * one GPC, so SMs x blocks per SM / CL overcounts, and a persistent grid
 * of that many clusters ran a second wave (issue 32: 33 clusters of 8 at
 * 8192 x 65536 where the H100 holds 30; docs/ladder.md). Kernels whose
 * dynamic shared memory passes their default limit (48 KiB less their
 * static shared memory: bulk_ex's 48 KiB chunk at 4096 bf16 columns plus
 * its 2 KiB of slots failed to launch until a longer row had opted the
 * kernel in) are opted in first. Cached per device,
 * kernel and cluster size (as norm_sms), so that a call (and a graph
 * capture) costs no query after the first: the register kernels have one
 * cluster size each, the bulk kernel (norm_bwd_bulk.cuh) takes 1-8 at run
 * time and the shared memory of its chunk (c->smem); the opt-in only
 * raises a kernel's limit, so a smaller chunk asked later leaves a larger
 * one's launch valid. */
static inline uint64_t norm_bwd_resident(const norm_bwd_cfg *c)
{
    enum { NC = 64 };
    static const void *fns[SL_MAX_DEVICES][NC];
    static unsigned cls[SL_MAX_DEVICES][NC];
    static size_t smems[SL_MAX_DEVICES][NC];
    static uint64_t res[SL_MAX_DEVICES][NC];
    static std::mutex mu;
    int dev = 0;
    if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= SL_MAX_DEVICES)
        dev = -1;
    if (dev >= 0) {
        std::lock_guard<std::mutex> lk(mu);
        for (int i = 0; i < NC && fns[dev][i]; i++)
            if (fns[dev][i] == c->fn && cls[dev][i] == c->cl && smems[dev][i] == c->smem)
                return res[dev][i];
    }
    if (c->smem > 0) { /* the default limit is 48 KiB less the kernel's static shared memory */
        cudaFuncAttributes fa;
        const bool known = cudaFuncGetAttributes(&fa, c->fn) == cudaSuccess;
        if (!known)
            (void)cudaGetLastError();
        if ((!known || (size_t)fa.maxDynamicSharedSizeBytes < c->smem) &&
            cudaFuncSetAttribute(c->fn, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)c->smem) != cudaSuccess)
            (void)cudaGetLastError(); /* the launch reports it */
    }
    int nb = 0;
    uint64_t r = 0;
    if (c->cl > 1) {
        cudaLaunchConfig_t cfg = {};
        cfg.gridDim = dim3(c->cl);
        cfg.blockDim = dim3(c->block);
        cfg.dynamicSmemBytes = c->smem;
        cudaLaunchAttribute attr[1] = {};
        attr[0].id = cudaLaunchAttributeClusterDimension;
        attr[0].val.clusterDim.x = c->cl;
        attr[0].val.clusterDim.y = 1;
        attr[0].val.clusterDim.z = 1;
        cfg.attrs = attr;
        cfg.numAttrs = 1;
        if (cudaOccupancyMaxActiveClusters(&nb, c->fn, &cfg) == cudaSuccess && nb > 0)
            r = (uint64_t)nb;
        else
            (void)cudaGetLastError();
    }
    if (!r) {
        nb = 0;
        if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb, c->fn, (int)c->block, c->smem) != cudaSuccess)
            (void)cudaGetLastError();
        r = (uint64_t)(nb > 0 ? nb : 1) * (uint64_t)norm_sms() / c->cl;
        r = r ? r : 1;
    }
    if (dev >= 0) {
        std::lock_guard<std::mutex> lk(mu);
        for (int i = 0; i < NC; i++)
            if (!fns[dev][i] || (fns[dev][i] == c->fn && cls[dev][i] == c->cl && smems[dev][i] == c->smem)) {
                res[dev][i] = r;
                cls[dev][i] = c->cl;
                smems[dev][i] = c->smem;
                fns[dev][i] = c->fn;
                break;
            }
    }
    return r;
}

/* A launch's grid: per_round teams (blocks of warp teams, or block /
 * cluster teams), each writing one partial row per round of 256 of its
 * rows (norm_bwd_regs), nflush rounds: P = per_round x nflush partial
 * rows, at most sl_norm_dw_partials. per_round is what the SMs hold at
 * once (a persistent grid with no second wave), fewer where P would pass
 * that bound, or where the environment's SL_NORM_BWD_TEAMS (a positive
 * integer: the tests' hook, so that a team owns more than 256 rows at
 * small shapes) asks for fewer. */
struct norm_bwd_grid {
    uint64_t per_round, P, blocks;
};

static inline norm_bwd_grid norm_bwd_grid_of(const norm_bwd_cfg *c, uint64_t rows, uint64_t cols)
{
    /* rows a block (warp or pair teams) or team takes a step */
    const uint64_t rpb = c->warp ? c->block / (c->tt ? c->tt : 32) : 1;
    const uint64_t need = (rows + rpb - 1) / rpb, most = sl_norm_dw_partials(rows, cols);
    uint64_t p = norm_bwd_resident(c);
    p = p < need ? p : need;
    const char *cap = getenv("SL_NORM_BWD_TEAMS");
    if (cap && atoi(cap) > 0 && (uint64_t)atoi(cap) < p)
        p = (uint64_t)atoi(cap);
    p = p ? p : 1;
    for (;; p--) { /* a team's rows: ceil(rows / (p rpb)), in rounds of 256 */
        const uint64_t nflush = ((rows + p * rpb - 1) / (p * rpb) + SL_NORM_DW_ROWS - 1) / SL_NORM_DW_ROWS;
        if (p * nflush <= most || p == 1) {
            const norm_bwd_grid o = {p, p * nflush, p * c->cl};
            return o;
        }
    }
}

/* Launch a configuration on grid gr (norm_bwd_resident opted the kernel in
 * to dynamic shared memory above 48 KiB). */
static inline sl_status norm_bwd_launch(const norm_bwd_cfg *c, const norm_bwd_grid *gr, norm_bwd_geo *g, void *stream)
{
    if (gr->blocks > 0x7fffffffu)
        return sl_fail(SL_ERR_UNSUPPORTED, "norm backward: a grid of %llu blocks", (unsigned long long)gr->blocks);
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3((unsigned)gr->blocks);
    cfg.blockDim = dim3(c->block);
    cfg.dynamicSmemBytes = c->smem;
    cfg.stream = (cudaStream_t)stream;
    cudaLaunchAttribute attr[1] = {};
    if (c->cl > 1) {
        attr[0].id = cudaLaunchAttributeClusterDimension;
        attr[0].val.clusterDim.x = c->cl;
        attr[0].val.clusterDim.y = 1;
        attr[0].val.clusterDim.z = 1;
        cfg.attrs = attr;
        cfg.numAttrs = 1;
    }
    void *params[] = {g};
    SL_CUDA_TRY(cudaLaunchKernelExC(&cfg, c->fn, params));
    SL_CUDA_LAUNCHED();
    return SL_OK;
}

/* A planned rmsnorm_bwd launch, the part every rung shares after its plan
 * c: the grid, the workspace's check (the dw partials), the kernel and the
 * fp64 finish of dw (deterministic). */
static inline sl_status norm_bwd_run_rms(const sl_args *a, const norm_bwd_cfg *c, const char *who)
{
    const uint64_t rows = a->shape.rows, cols = a->shape.cols;
    norm_bwd_geo g = {a->buf[SL_RMSB_X], a->buf[SL_RMSB_DY], a->buf[SL_RMSB_W], NULL,
                      (const float *)a->buf[SL_RMSB_RSTD], a->buf[SL_RMSB_DX], (float *)a->workspace, NULL,
                      rows, cols, a->shape.ld ? a->shape.ld : cols, 0};
    const norm_bwd_grid gr = norm_bwd_grid_of(c, rows, cols);
    if (a->workspace_bytes < gr.P * cols * sizeof(float))
        return sl_fail(SL_ERR_INVALID_ARG, "rmsnorm_bwd %s: workspace of %zu bytes for %llu dw partials of %llu", who,
                       a->workspace_bytes, (unsigned long long)gr.P, (unsigned long long)cols);
    const sl_status st = norm_bwd_launch(c, &gr, &g, a->stream);
    return st != SL_OK ? st
                       : sl_cuda_norm_dw_finish(g.part, gr.P, cols, a->buf[SL_RMSB_DW], norm_wdtype(a, SL_RMSB_W),
                                                a->stream);
}

/* The same for layernorm_bwd: dw and db partials, and their finish. */
static inline sl_status norm_bwd_run_ln(const sl_args *a, const norm_bwd_cfg *c, const char *who)
{
    const uint64_t rows = a->shape.rows, cols = a->shape.cols, Pm = sl_norm_dw_partials(rows, cols);
    const norm_bwd_grid gr = norm_bwd_grid_of(c, rows, cols);
    if (a->workspace_bytes < sl_layernorm_bwd_ws(rows, cols) || gr.P > Pm)
        return sl_fail(SL_ERR_INVALID_ARG, "layernorm_bwd %s: workspace of %zu bytes for %llu partials of %llu", who,
                       a->workspace_bytes, (unsigned long long)gr.P, (unsigned long long)cols);
    norm_bwd_geo g = {a->buf[SL_LNB_X], a->buf[SL_LNB_DY], a->buf[SL_LNB_W], (const float *)a->buf[SL_LNB_MEAN],
                      (const float *)a->buf[SL_LNB_RSTD], a->buf[SL_LNB_DX], (float *)a->workspace,
                      (float *)a->workspace + Pm * cols, rows, cols, a->shape.ld ? a->shape.ld : cols, 0};
    const sl_status st = norm_bwd_launch(c, &gr, &g, a->stream);
    return st != SL_OK ? st
                       : sl_cuda_norm_dwdb_finish(g.part, g.partb, gr.P, cols, a->buf[SL_LNB_DW], a->buf[SL_LNB_DB],
                                                  norm_wdtype(a, SL_LNB_W), a->stream);
}

#endif /* SL_NORM_BWD_CUH */
