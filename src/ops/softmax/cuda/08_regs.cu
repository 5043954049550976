/*
 * softmax rung 8 (ours): the row in registers, read once. A row is split
 * over a team of threads: one warp (rows of up to 1024 elements: shuffles
 * only, 4 rows per 128-thread block), one block (up to 4096), or a thread
 * block cluster of C = 2..8 blocks (up to 8 x 1024 x 32 = 2^18 elements)
 * that combine their blocks' max and sum through distributed shared memory
 * (CUDA C++ Programming Guide, "Thread Block Clusters" and "Distributed
 * Shared Memory"; sm_90). Each thread loads its EPT elements as EPT / VE
 * 16-byte vectors (coalesced: vector k of thread t is k T + t), all in
 * flight at once, keeps them in registers, and after the team's (max,
 * sum) (f32: the max, then the sum of exp(x - m); bf16 / f16: one fused
 * pass, below; a cluster's blocks then exchange their (max, sum) once and
 * merge them as the online normaliser does) writes y from the registers.
 * The row's misalignment and tail are masked edge vectors (softmax.cuh),
 * so any M, N >= 1 runs.
 *
 * Change from rung 7: x is read once (the copy's traffic, 2 N x size per
 * row), and short rows are a warp's work (no block barrier), long rows a
 * cluster's, so that M = 128 rows fill the 132 SMs with 2-8 blocks each.
 * Expectation: at the copy ceiling for DRAM-sized shapes (~4.2 TB/s);
 * for the seed shapes a read phase, two cluster barriers and a write
 * phase, each SM moving its share: 2^17 f32 x 128 rows = 128 MiB in ~32
 * us, against ~81 us for torch's one block per row.
 *
 * Second pass (bf16 / f16 at DRAM shapes, docs/ladder.md): with 32
 * elements a thread under the 64-register cap, 16-bit storage had half
 * f32's bytes in flight per SM and moved f32's elements per second;
 * smx_regs_pk holds 64 elements a thread packed (f32's 128 bytes) where
 * the rows alone fill the SMs.
 *
 * Third pass (latency-bound rows: decode 1-64 x 4096, 128 x 4096 and
 * 128 x 32768, one block a row, fewer rows than SMs; docs/ladder.md,
 * "Softmax forward, eighth session"). Such a row is a dependent chain
 * (load, max, exp and sum, sum, store) that no other block overlaps, and
 * the SASS of its kernel spent the chain on: an integer division by the
 * launch's C before the first load's address; a 32-deep FMNMX chain; a
 * five-shuffle butterfly and a block fold behind two barriers for each of
 * the two reductions (31 dependent adds at 1024 threads); __expf's six
 * instructions an element and one F2FP a 16-bit element. Now: no division
 * at C = 1; the thread's max as a tree (HMNMX2 on packed 16-bit pairs);
 * the team max as REDUX.MAX over order-preserving int keys, one barrier;
 * the sum with one barrier and a tree over the warps' values (a quad a
 * lane and a butterfly over the quads beyond 4 warps); and for bf16 / f16 one fused pass (smx_regs_h): each thread's
 * exp(x - m_t) by ex2.approx.ftz, computed while the team's max is being
 * reduced, then S = sum s_t exp(m_t - M) and y = e exp(m_t - M) / S.
 * f32 keeps the two reductions and expf (its bound has no room for the
 * fused form's second rounded exp). Expectation (H200, graph replay):
 * bf16 decode and 128 x 4096 0.25-0.5 us less, 128 x 32768 bf16 ~0.4-0.6
 * us less, f32 0.1-0.3 us less; DRAM shapes unchanged or faster.
 */
#include "softmax.cuh"

#include <cooperative_groups.h>

namespace cg = cooperative_groups;

/* BLOCK threads; TPR threads per row segment (32: a warp per row; BLOCK: a
 * block, or a block of a cluster); EPT elements per thread. The cluster
 * size C is the launch's (1 without a cluster). Registers capped at 64 so
 * that 1024 threads stay resident per SM (one-warp blocks: 128 before
 * sm_90, SMX_MIN_BLOCKS). */
/* Resident blocks per SM the min-blocks bound may ask for: 32 on sm_90 and
 * sm_100 (CUDA C++ Programming Guide, "Compute Capabilities"), 16 taken
 * for the others (sm_75 and sm_86 have 16); above the architecture's
 * limit ptxas refuses the bound. Only BLOCK = 32 reaches it. */
#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ == 900 || __CUDA_ARCH__ == 1000)
#define SMX_MAX_BLOCKS_PER_SM 32
#else
#define SMX_MAX_BLOCKS_PER_SM 16
#endif
#define SMX_MIN_BLOCKS(B) (1024 / (B) < SMX_MAX_BLOCKS_PER_SM ? 1024 / (B) : SMX_MAX_BLOCKS_PER_SM)

/* The factor y = exp(x - ref) x scale of a team (a warp or a block, TPR
 * threads) whose max is m and whose sum of exp(x - ref) is s (ref: m, or 0
 * for a team of -inf only). With a cluster (C > 1 blocks per row, sm_90+;
 * the host launches C > 1 only there): one exchange, each block's (max,
 * sum) through distributed shared memory (cl_m, cl_s: the block's
 * __shared__ slots), merged in rank order by every block (the same bits in
 * each), then scale = exp(m_b - M) / S; the block then arrives at the
 * cluster barrier, and smx_team_leave waits on it before the block exits
 * (a block's shared memory must outlive the others' reads). */
template <int TPR, bool FAST = false>
static __device__ __forceinline__ float smx_team_scale(float m, float s, unsigned C, float *cl_m, float *cl_s)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    if (TPR != 32 && C > 1) {
        cg::cluster_group cl = cg::this_cluster();
        if (threadIdx.x == 0) {
            *cl_m = m;
            *cl_s = s;
        }
        cl.sync();
        smx_ms row = {-CUDART_INF_F, 0.0f, 0.0f};
        for (unsigned r = 0; r < C; r++) {
            const smx_ms b = {*cl.map_shared_rank(cl_m, r), *cl.map_shared_rank(cl_s, r), 0.0f};
            row = smx_ms_merge(row, b);
        }
        /* done reading the others' cl_m / cl_s: arrive now */
        asm volatile("barrier.cluster.arrive.release.aligned;\n" ::: "memory");
        return row.m == -CUDART_INF_F ? CUDART_NAN_F : m == -CUDART_INF_F ? 0.0f : expf(m - row.m) / row.s;
    }
#else
    (void)C, (void)cl_m, (void)cl_s;
#endif
    /* a row of -inf only: NaN, as the formula (-inf - -inf) gives. FAST
     * (16-bit storage): MUFU.RCP's 1 ulp instead of the IEEE division's
     * sequence and slow-path branch; s >= 1 (the maximum's own term) */
    return m == -CUDART_INF_F ? CUDART_NAN_F : FAST ? __fdividef(1.0f, s) : 1.0f / s;
}

template <int TPR> static __device__ __forceinline__ void smx_team_leave(unsigned C)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    if (TPR != 32 && C > 1)
        asm volatile("barrier.cluster.wait.acquire.aligned;\n" ::: "memory");
#else
    (void)C;
#endif
}

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define SMX_CL_SHARED __shared__ float cl_m, cl_s
#define SMX_CL_M (&cl_m)
#define SMX_CL_S (&cl_s)
#else
#define SMX_CL_SHARED
#define SMX_CL_M ((float *)0)
#define SMX_CL_S ((float *)0)
#endif

/* A row in 32-bit indices (rows of at most SL_SOFTMAX_REGS_MAX_COLS
 * elements): fewer registers and instructions than smx_rowv's 64-bit
 * ones, which the 64 packed elements need (ptxas: 20-24 bytes of spills
 * in bf16 with 64-bit indices). Same grid of 16-byte virtual vectors. */
struct smx_rowp {
    const char *x0;
    char *y0;
    int32_t o, n;
    uint32_t nvv;
};

template <int DT> static __device__ __forceinline__ smx_rowp smx_rowp_of(const smx_geo &g, uint64_t r)
{
    const smx_rowv w = smx_rowv_of<DT>(g, r);
    const smx_rowp p = {w.x0, w.y0, (int32_t)w.o, (int32_t)w.n, (uint32_t)w.nvv};
    return p;
}

/* Virtual vector v of the row as raw storage; columns outside the row hold
 * -inf. */
template <int DT> static __device__ __forceinline__ uint4 smx_loadraw(const smx_rowp &w, uint32_t v)
{
    typedef typename sl_dt<DT>::raw R;
    const int VE = smx_vec<DT>::VE;
    const int32_t c0 = (int32_t)(v * VE) - w.o;
    union {
        uint4 u;
        R r[VE];
    } b;
    if (c0 >= 0 && c0 + VE <= w.n) {
        b.u = *(const uint4 *)(w.x0 + 16 * (uint64_t)v);
    } else {
        const R *p = (const R *)(w.x0 + 16 * (uint64_t)v);
        const R ninf = sl_dt<DT>::store(-CUDART_INF_F);
#pragma unroll
        for (int k = 0; k < VE; k++) {
            const int32_t c = c0 + k;
            b.r[k] = c >= 0 && c < w.n ? p[k] : ninf;
        }
    }
    return b.u;
}

/* Element j of a raw vector, widened exactly to f32. */
template <int DT> static __device__ __forceinline__ float smx_unpack(const uint4 &u, int j)
{
    typedef typename sl_dt<DT>::raw R;
    const uint32_t word = j < 2 ? u.x : j < 4 ? u.y : j < 6 ? u.z : u.w;
    return sl_dt<DT>::load((R)(j & 1 ? word >> 16 : word & 0xffffu));
}

/* Store y[0..VE) into virtual vector v of the row, skipping columns
 * outside it. */
template <int DT> static __device__ __forceinline__ void smx_storep(const smx_rowp &w, uint32_t v, const float *y)
{
    typedef typename sl_dt<DT>::raw R;
    const int VE = smx_vec<DT>::VE;
    static_assert(VE == 8, "smx_storep: 16-bit storage only");
    const int32_t c0 = (int32_t)(v * VE) - w.o;
    union {
        uint4 u;
        R r[VE];
    } b;
    /* two elements a conversion (F2FP packs a pair; one a pair with RZ
     * and a PRMT to join them, as element-wise stores compiled, is twice
     * the instructions); the same round-to-nearest-even bits */
    b.u.x = sl_dt<DT>::store2(y[0], y[1]);
    b.u.y = sl_dt<DT>::store2(y[2], y[3]);
    b.u.z = sl_dt<DT>::store2(y[4], y[5]);
    b.u.w = sl_dt<DT>::store2(y[6], y[7]);
    if (c0 >= 0 && c0 + VE <= w.n) {
        *(uint4 *)(w.y0 + 16 * (uint64_t)v) = b.u;
    } else {
        R *p = (R *)(w.y0 + 16 * (uint64_t)v);
#pragma unroll
        for (int k = 0; k < VE; k++) {
            const int32_t c = c0 + k;
            if (c >= 0 && c < w.n)
                p[k] = b.r[k];
        }
    }
}

/* ---- the team's reductions, one block barrier each -------------------------
 * smx_block (row.cuh) costs a row two barriers a reduction (the second one
 * only so that its slots can be reused), a five-shuffle butterfly for the
 * max, and a fold of the BLOCK / 32 warp values in one dependent chain
 * (31 adds at 1024 threads). Here: the max as an integer maximum of
 * order-preserving keys, one REDUX.MAX a warp (sm_80 on) instead of five
 * shuffles; the max and the sum each in their own shared slots, so one
 * barrier each; the warp values folded as a tree (up to 4 warps: every
 * thread reads all of them) or, with more warps, across the lanes (the
 * max: a second REDUX, each lane reading one warp's key; the sum: each
 * lane a quad of warps, then a butterfly over the quads). Every thread of
 * the team ends with the same bits (fmaxf and the butterfly's adds are
 * commutative). */

/* An int key with the order of the floats: a NaN of positive sign above
 * +inf, of negative sign below -inf. The max then differs from fmaxf only
 * where the row holds a NaN, and such a row comes out NaN either way (its
 * NaN's exp makes the sum NaN); +0 and -0 give the same x - m. */
static __device__ __forceinline__ int smx_fkey(float f)
{
    const int b = __float_as_int(f);
    return b ^ ((b >> 31) & 0x7fffffff);
}

static __device__ __forceinline__ float smx_funkey(int k)
{
    return __int_as_float(k ^ ((k >> 31) & 0x7fffffff));
}

/* The largest key of the warp, in every lane (all 32 lanes active). */
static __device__ __forceinline__ int smx_warp_kmax(int k)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    return __reduce_max_sync(0xffffffffu, k);
#else
#pragma unroll
    for (int o = 16; o > 0; o >>= 1)
        k = max(k, __shfl_xor_sync(0xffffffffu, k, o));
    return k;
#endif
}

/* K values of a copy of v folded as a pairwise tree with Op (row.cuh's
 * smx_max_op / smx_sum_op, or smx_kmax_op on keys): depth log2 K instead
 * of a chain of K - 1 dependent instructions; v itself is left as it was. */
template <int K, class Op, class T> static __device__ __forceinline__ T smx_tree(const T *v)
{
    T t[K];
#pragma unroll
    for (int i = 0; i < K; i++)
        t[i] = v[i];
#pragma unroll
    for (int h = 1; h < K; h *= 2)
#pragma unroll
        for (int i = 0; i + h < K; i += 2 * h)
            t[i] = Op::apply(t[i], t[i + h]);
    return t[0];
}

/* The larger of two order-preserving keys (smx_fkey), for smx_tree. */
struct smx_kmax_op {
    static __device__ __forceinline__ int apply(int a, int b) { return max(a, b); }
};

/* The block's largest key from each warp's (kw, the warp's own): one
 * barrier. red: BLOCK / 32 ints of shared memory, written once. */
template <int BLOCK> static __device__ __forceinline__ int smx_block_kmax(int kw, int *red)
{
    const int NW = BLOCK / 32;
    if (NW == 1)
        return kw;
    if ((threadIdx.x & 31) == 0)
        red[threadIdx.x >> 5] = kw;
    __syncthreads();
    int v[NW];
    if (NW > 4) {
        v[0] = smx_warp_kmax(red[threadIdx.x & (NW - 1)]);
    } else {
#pragma unroll
        for (int w = 0; w < NW; w++)
            v[w] = red[w];
        v[0] = smx_tree<NW, smx_kmax_op>(v);
    }
    return v[0];
}

/* The block's sum: warp butterflies, then one barrier. red: BLOCK / 32
 * floats of shared memory, 16-byte aligned, written once. */
template <int BLOCK> static __device__ __forceinline__ float smx_block_sum1(float s, float *red)
{
    const int NW = BLOCK / 32;
    s = smx_warp<smx_sum_op>(s);
    if (NW == 1)
        return s;
    if ((threadIdx.x & 31) == 0)
        red[threadIdx.x >> 5] = s;
    __syncthreads();
    float v[NW];
    if (NW > 4) {
        /* lane l adds the 4 values of quad l mod NW / 4 (one LDS.128), then
         * a butterfly over the NW / 4 quads: 1-3 shuffle levels, not 3-5 */
        const float4 q = ((const float4 *)red)[threadIdx.x & (NW > 4 ? NW / 4 - 1 : 0)];
        v[0] = (q.x + q.y) + (q.z + q.w);
#pragma unroll
        for (int o = NW / 8; o > 0; o >>= 1)
            v[0] += __shfl_xor_sync(0xffffffffu, v[0], o);
    } else {
#pragma unroll
        for (int w = 0; w < NW; w++)
            v[w] = red[w];
        v[0] = smx_tree<NW, smx_sum_op>(v);
    }
    return v[0];
}

/* The row, team and rank of this thread (smx_regs and smx_regs_h); false:
 * a warp past the last row (warp mode). C = 1 skips the division by the
 * launch's C, which stood before the first load's address (~20 dependent
 * instructions, I2F / MUFU.RCP / F2I among them). */
template <int BLOCK, int TPR>
static __device__ __forceinline__ bool smx_regs_where(const smx_geo &g, unsigned C, uint64_t *row, unsigned *t,
                                                      unsigned *rank)
{
    if (TPR == 32) {
        *row = (uint64_t)blockIdx.x * (BLOCK / 32) + (threadIdx.x >> 5);
        *t = threadIdx.x & 31;
        *rank = 0;
        return *row < g.rows; /* a whole warp; warp mode has no block barrier */
    }
    if (C == 1) {
        *row = blockIdx.x;
        *rank = 0;
    } else {
        *row = blockIdx.x / C;
        *rank = blockIdx.x % C;
    }
    *t = threadIdx.x;
    return true;
}

/* f32: two team reductions, the max and then the sum of exp(x - max), as
 * the op's numerics say (the f32 bound leaves no room for a second
 * rounded exp per element, which the fused form below needs). */
template <int BLOCK, int TPR, int EPT>
static __global__ void __launch_bounds__(BLOCK, SMX_MIN_BLOCKS(BLOCK)) smx_regs(smx_geo g, unsigned C)
{
    const int DT = SL_F32, VE = smx_vec<DT>::VE, NV = EPT / VE;
    __shared__ int redm[BLOCK / 32];
    __shared__ __align__(16) float reds[BLOCK / 32];
    SMX_CL_SHARED;
    uint64_t row;
    unsigned t, rank;
    if (!smx_regs_where<BLOCK, TPR>(g, C, &row, &t, &rank))
        return;
    const smx_rowv w = smx_rowv_of<DT>(g, row);
    const uint64_t v0 = (uint64_t)rank * TPR * NV + t;
    float f[NV][VE];
#pragma unroll
    for (int k = 0; k < NV; k++) {
        if (v0 + (uint64_t)k * TPR < w.nvv) {
            smx_loadv<DT>(w, v0 + (uint64_t)k * TPR, f[k]);
        } else {
#pragma unroll
            for (int j = 0; j < VE; j++)
                f[k][j] = -CUDART_INF_F;
        }
    }
    /* the thread's max as VE chains of NV (a tree over all EPT would keep
     * EPT / 2 more values live beside the row: ptxas spilled) */
    float mv[VE];
#pragma unroll
    for (int j = 0; j < VE; j++)
        mv[j] = f[0][j];
#pragma unroll
    for (int k = 1; k < NV; k++)
#pragma unroll
        for (int j = 0; j < VE; j++)
            mv[j] = fmaxf(mv[j], f[k][j]);
    const int kw = smx_warp_kmax(smx_fkey(smx_tree<VE, smx_max_op>(mv)));
    /* m: the team's max (the row's without a cluster). ref = 0 stands in
     * for a team of -inf only (softmax.cuh, smx_ms), so that no
     * exp(-inf - -inf) appears before the merge. */
    const float m = smx_funkey(TPR == 32 ? kw : smx_block_kmax<BLOCK>(kw, redm));
    const float ref = m == -CUDART_INF_F ? 0.0f : m;
    /* the sum in order, as before: its chain of adds hides under expf's
     * ~8 instructions a term */
    float s = 0.0f;
#pragma unroll
    for (int k = 0; k < NV; k++)
#pragma unroll
        for (int j = 0; j < VE; j++) {
            f[k][j] = expf(f[k][j] - ref); /* a masked -inf gives 0 */
            s += f[k][j];
        }
    s = TPR == 32 ? smx_warp<smx_sum_op>(s) : smx_block_sum1<BLOCK>(s, reds);
    const float scale = smx_team_scale<TPR>(m, s, C, SMX_CL_M, SMX_CL_S);
#pragma unroll
    for (int k = 0; k < NV; k++) {
        if (v0 + (uint64_t)k * TPR < w.nvv) {
#pragma unroll
            for (int j = 0; j < VE; j++)
                f[k][j] *= scale;
            smx_storev<DT>(w, v0 + (uint64_t)k * TPR, f[k]);
        }
    }
    smx_team_leave<TPR>(C);
}

/* bf16 / f16: one fused (max, sum) pass. Each thread takes its own max m_t
 * (on packed pairs, HMNMX2), and at once e_j = exp(x_j - m_t) and s_t =
 * sum e_j, while the team's max M is reduced (REDUX, one barrier) beside
 * those exponentials instead of before them; then s_t exp(m_t - M) is
 * summed over the team (one barrier), and y_j = e_j exp(m_t - M) / S.
 * exp is ex2.approx.ftz (smx_exp_ftz): e_j and the factor each carry
 * ~2^-22 relative plus the rounding of their arguments (|x_j - M| 2^-23
 * together), ~1e-5 at most, under the 16-bit output's 2^-9 / 2^-11
 * rounding and within the one ulp of the dtype that SL_TOL_REL allows;
 * a flushed e_j or factor (below 2^-126) means y_j < 2^-126 (m_t <= M),
 * inside the bound's absolute 2^-126. Special rows: a NaN makes its
 * thread's s_t, so S, so the row NaN; a +inf gives exp(inf - inf) = NaN in
 * its thread's s_t; a row of -inf only has M = -inf and the team scale's
 * NaN (smx_team_scale); a thread of -inf only (or of padding) has s_t = 0
 * and factor exp(-inf - M) = 0. */
template <int BLOCK, int TPR, int EPT, int DT>
static __global__ void __launch_bounds__(BLOCK, SMX_MIN_BLOCKS(BLOCK)) smx_regs_h(smx_geo g, unsigned C)
{
    typedef typename sl_dt<DT>::raw R;
    const int VE = smx_vec<DT>::VE, NV = EPT / VE;
    __shared__ int redm[BLOCK / 32];
    __shared__ __align__(16) float reds[BLOCK / 32];
    SMX_CL_SHARED;
    uint64_t row;
    unsigned t, rank;
    if (!smx_regs_where<BLOCK, TPR>(g, C, &row, &t, &rank))
        return;
    const smx_rowp p = smx_rowp_of<DT>(g, row);
    const uint32_t v0 = rank * TPR * NV + t;
    /* every raw vector loaded before any is widened (seventh session: a
     * widening right after its load made the warp wait for that load
     * before it reached the next one's branch) */
    const uint32_t n2 = (uint32_t)sl_dt<DT>::store(-CUDART_INF_F) * 0x10001u; /* two -inf */
    uint4 raw[NV];
#pragma unroll
    for (int k = 0; k < NV; k++)
        raw[k] = v0 + k * TPR < p.nvv ? smx_loadraw<DT>(p, v0 + k * TPR) : make_uint4(n2, n2, n2, n2);
    /* the thread's max on packed pairs, as a tree */
    uint32_t h[4 * NV];
#pragma unroll
    for (int k = 0; k < NV; k++)
        h[4 * k] = raw[k].x, h[4 * k + 1] = raw[k].y, h[4 * k + 2] = raw[k].z, h[4 * k + 3] = raw[k].w;
#pragma unroll
    for (int d = 1; d < 4 * NV; d *= 2)
#pragma unroll
        for (int i = 0; i + d < 4 * NV; i += 2 * d)
            h[i] = smx_hmax2<DT>(h[i], h[i + d]);
    const float mt = fmaxf(sl_dt<DT>::load((R)(h[0] & 0xffffu)), sl_dt<DT>::load((R)(h[0] >> 16)));
    const int kw = smx_warp_kmax(smx_fkey(mt)); /* independent of the exps below */
    const float rt = mt == -CUDART_INF_F ? 0.0f : mt;
    float e[NV][VE];
#pragma unroll
    for (int k = 0; k < NV; k++)
#pragma unroll
        for (int j = 0; j < VE; j++)
            e[k][j] = smx_exp_ftz(smx_unpack<DT>(raw[k], j) - rt); /* a masked -inf gives 0 */
    const float st = smx_tree<EPT, smx_sum_op>(&e[0][0]);
    /* m: the team's max (the row's without a cluster); ref = 0 for a team
     * of -inf only, as in smx_regs */
    const float m = smx_funkey(TPR == 32 ? kw : smx_block_kmax<BLOCK>(kw, redm));
    const float ref = m == -CUDART_INF_F ? 0.0f : m;
    const float ft = smx_exp_ftz(mt - ref); /* exp(m_t - M); 0 for a thread of -inf only */
    float s = st * ft;
    s = TPR == 32 ? smx_warp<smx_sum_op>(s) : smx_block_sum1<BLOCK>(s, reds);
    const float scale = ft * smx_team_scale<TPR, true>(m, s, C, SMX_CL_M, SMX_CL_S);
#pragma unroll
    for (int k = 0; k < NV; k++) {
        if (v0 + k * TPR < p.nvv) {
#pragma unroll
            for (int j = 0; j < VE; j++)
                e[k][j] *= scale;
            smx_storep<DT>(p, v0 + k * TPR, e[k]);
        }
    }
    smx_team_leave<TPR>(C);
}

/* ---- 16-bit storage at many rows: 64 elements a thread, kept packed ----------
 * The f32 kernel above holds EPT = 32 elements a thread widened to f32,
 * capped at 64 registers; in bf16 / f16 that is 64 bytes a thread in
 * flight, half of f32's, and the first H200 run moved bf16 at f32's
 * elements per second. This one keeps 64 elements a thread as loaded, two
 * to a 32-bit register (SMX_PK_NV 16-byte vectors, 32 registers), so that
 * a thread has f32's 128 bytes in flight; it widens them for the max and
 * for the sum, and computes exp again in the store phase instead of
 * keeping 64 f32 exponentials (the same smx_exp_ftz of the same argument:
 * the same bits as the sum used). A block (BLOCK threads) or a cluster of C
 * blocks per row, as TPR = BLOCK above. */
#define SMX_PK_EPT 64

template <int BLOCK, int DT>
static __global__ void __launch_bounds__(BLOCK, SMX_MIN_BLOCKS(BLOCK)) smx_regs_pk(smx_geo g, unsigned C)
{
    const int VE = smx_vec<DT>::VE, NV = SMX_PK_EPT / VE;
    __shared__ float red[BLOCK / 32];
    SMX_CL_SHARED;
    const uint64_t row = blockIdx.x / C;
    const unsigned rank = blockIdx.x % C;
    const smx_rowp w = smx_rowp_of<DT>(g, row);
    const uint32_t v0 = rank * BLOCK * NV + threadIdx.x;
    const uint32_t n2 = (uint32_t)sl_dt<DT>::store(-CUDART_INF_F) * 0x10001u; /* two -inf */
    uint4 p[NV];
#pragma unroll
    for (int k = 0; k < NV; k++)
        p[k] = v0 + k * BLOCK < w.nvv ? smx_loadraw<DT>(w, v0 + k * BLOCK) : make_uint4(n2, n2, n2, n2);
    uint32_t h = n2; /* the max, on packed pairs */
#pragma unroll
    for (int k = 0; k < NV; k++)
        h = smx_hmax2<DT>(h, smx_hmax2<DT>(smx_hmax2<DT>(p[k].x, p[k].y), smx_hmax2<DT>(p[k].z, p[k].w)));
    typedef typename sl_dt<DT>::raw R;
    float m = fmaxf(sl_dt<DT>::load((R)(h & 0xffffu)), sl_dt<DT>::load((R)(h >> 16)));
    m = smx_block<BLOCK, smx_max_op>(m, red);
    const float ref = m == -CUDART_INF_F ? 0.0f : m; /* as in smx_regs */
    float s = 0.0f;
#pragma unroll
    for (int k = 0; k < NV; k++) {
        float sk = 0.0f; /* VE terms, then NV partial sums */
#pragma unroll
        for (int j = 0; j < VE; j++)
            sk += smx_exp_ftz(smx_unpack<DT>(p[k], j) - ref);
        s += sk;
    }
    s = smx_block<BLOCK, smx_sum_op>(s, red);
    const float scale = smx_team_scale<BLOCK>(m, s, C, SMX_CL_M, SMX_CL_S);
#pragma unroll
    for (int k = 0; k < NV; k++) {
        if (v0 + k * BLOCK < w.nvv) {
            float y[VE];
#pragma unroll
            for (int j = 0; j < VE; j++)
                y[j] = smx_exp_ftz(smx_unpack<DT>(p[k], j) - ref) * scale;
            smx_storep<DT>(w, v0 + k * BLOCK, y);
        }
    }
    smx_team_leave<BLOCK>(C);
}

template <int BLOCK> static const void *regs_pk_fn(sl_dtype dt)
{
    return dt == SL_BF16 ? (const void *)smx_regs_pk<BLOCK, SL_BF16> : (const void *)smx_regs_pk<BLOCK, SL_F16>;
}

/* f32: smx_regs (two reductions); bf16 / f16: smx_regs_h (one fused pass) */
template <int BLOCK, int TPR, int EPT> static const void *regs_fn(sl_dtype dt)
{
    return dt == SL_F32    ? (const void *)smx_regs<BLOCK, TPR, EPT>
           : dt == SL_BF16 ? (const void *)smx_regs_h<BLOCK, TPR, EPT, SL_BF16>
                           : (const void *)smx_regs_h<BLOCK, TPR, EPT, SL_F16>;
}

/* The team for a row of `need` element slots (cols plus the largest
 * misalignment): a warp up to 1024 (one or four per block), a block of
 * 128 threads up to 2048;
 * then 32 elements a thread (64 packed for bf16 / f16 when rows >= 4 x
 * SMs and spread = false: smx_regs_pk). spread = false (rung regs): one block per row
 * up to 1024 threads (2^15 slots), no cluster barrier; beyond, clusters.
 * spread = true (rung regs_cl): clusters of 256-thread blocks (512 beyond
 * 8 x 256 x 32), halving the blocks while rows x C leaves SMs idle.
 * false: the row is too long for registers. */
static bool regs_choose(sl_dtype dt, uint64_t rows, uint64_t need, int sms, bool spread, regs_cfg *c)
{
    c->c = 1;
    /* a warp per row; one warp per block while the rows would leave SMs
     * idle at four rows a block (M = 128 on 132 SMs: 128 blocks, not 32) */
    const bool few = rows < 4 * (uint64_t)sms;
    if (need <= 1024) {
        c->block = few ? 32 : 128, c->tpr = 32, c->ept = need <= 256 ? 8 : need <= 512 ? 16 : 32;
        if (c->ept == 8)
            c->fn = few ? regs_fn<32, 32, 8>(dt) : regs_fn<128, 32, 8>(dt);
        else if (c->ept == 16)
            c->fn = few ? regs_fn<32, 32, 16>(dt) : regs_fn<128, 32, 16>(dt);
        else
            c->fn = few ? regs_fn<32, 32, 32>(dt) : regs_fn<128, 32, 32>(dt);
        return true;
    }
    if (need <= 2048) {
        c->fn = regs_fn<128, 128, 16>(dt), c->block = 128, c->tpr = 128, c->ept = 16;
        return true;
    }
    if (need > SL_SOFTMAX_REGS_MAX_COLS)
        return false;
    /* EPT = 32; 64 packed for 16-bit storage when the rows alone fill
     * the SMs (smx_regs_pk: f32's 128 bytes a thread in flight) */
    const bool pk = dt != SL_F32 && !spread && !few;
    const uint64_t ept = pk ? SMX_PK_EPT : 32;
    uint64_t threads = 128; /* per row */
    while (threads * ept < need)
        threads *= 2;
    unsigned cl;
    uint64_t block;
    if (!spread && threads <= 1024) {
        cl = 1;
        block = threads;
    } else {
        cl = threads > 256 ? (unsigned)(threads / 256) : 1u;
        if (cl > 8)
            cl = 8;
        block = threads / cl;
        while (spread && rows * cl < (uint64_t)sms && block >= 256 && cl < 8) {
            cl *= 2;
            block /= 2;
        }
    }
    c->tpr = c->block = (int)block;
    c->ept = (int)ept;
    c->c = cl;
    if (pk) {
        switch (block) {
        case 128: c->fn = regs_pk_fn<128>(dt); break;
        case 256: c->fn = regs_pk_fn<256>(dt); break;
        case 512: c->fn = regs_pk_fn<512>(dt); break;
        case 1024: c->fn = regs_pk_fn<1024>(dt); break;
        default: return false;
        }
        return true;
    }
    switch (block) {
    case 128: c->fn = regs_fn<128, 128, 32>(dt); break;
    case 256: c->fn = regs_fn<256, 256, 32>(dt); break;
    case 512: c->fn = regs_fn<512, 512, 32>(dt); break;
    case 1024: c->fn = regs_fn<1024, 1024, 32>(dt); break;
    default: return false;
    }
    return true;
}

/* Whether the current device runs thread block clusters (compute
 * capability 9.0 and later); cached per device. */
static bool regs_clusters(void)
{
    static int cc[SL_MAX_DEVICES];
    int dev = 0;
    if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= SL_MAX_DEVICES)
        return false;
    if (!cc[dev] && cudaDeviceGetAttribute(&cc[dev], cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess)
        cc[dev] = 1;
    return cc[dev] >= 9;
}

static int regs_sms(void)
{
    static int sms[SL_MAX_DEVICES];
    int dev = 0;
    if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= SL_MAX_DEVICES)
        return 132;
    if (!sms[dev] && cudaDeviceGetAttribute(&sms[dev], cudaDevAttrMultiProcessorCount, dev) != cudaSuccess)
        sms[dev] = 132;
    return sms[dev];
}

static bool regs_fits(const sl_args *a, bool spread, regs_cfg *c)
{
    const uintptr_t ux = (uintptr_t)a->buf[0], uy = (uintptr_t)a->buf[1];
    if ((ux ^ uy) & 15u)
        return false;
    const size_t es = sl_dtype_size(a->dtype), ve = 16 / es;
    const uint64_t ld = a->shape.ld ? a->shape.ld : a->shape.cols;
    /* every row at one offset: that offset; else the worst, ve - 1 */
    const uint64_t o = (ld * es) % 16 == 0 ? (ux & 15u) / es : ve - 1;
    if (!regs_choose(a->dtype, a->shape.rows, a->shape.cols + o, regs_sms(), spread, c))
        return false;
    if (c->c > 1 && !regs_clusters())
        return false; /* before sm_90: rows beyond one block's registers go to the online rung */
    const uint64_t blocks = c->tpr == 32 ? (a->shape.rows + c->block / 32 - 1) / (c->block / 32) : a->shape.rows * c->c;
    return blocks <= 0x7fffffffu;
}

bool sl_cuda_softmax_regs_fits(const sl_args *a, regs_cfg *c)
{
    return regs_fits(a, false, c);
}

static sl_status regs_launch(const sl_args *a, const regs_cfg *c)
{
    smx_geo g = smx_geo_of(a);
    unsigned cl = c->c;
    void *params[] = {&g, &cl};
    const uint64_t blocks = c->tpr == 32 ? (a->shape.rows + c->block / 32 - 1) / (c->block / 32) : a->shape.rows * c->c;
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3((unsigned)blocks);
    cfg.blockDim = dim3((unsigned)c->block);
    cfg.stream = (cudaStream_t)a->stream;
    cudaLaunchAttribute attr[1] = {};
    if (c->c > 1) {
        attr[0].id = cudaLaunchAttributeClusterDimension;
        attr[0].val.clusterDim.x = c->c;
        attr[0].val.clusterDim.y = 1;
        attr[0].val.clusterDim.z = 1;
        cfg.attrs = attr;
        cfg.numAttrs = 1;
    }
    SL_CUDA_TRY(cudaLaunchKernelExC(&cfg, c->fn, params));
    SL_CUDA_LAUNCHED();
    return SL_OK;
}

sl_status sl_cuda_softmax_regs_run(const sl_args *a, const regs_cfg *c)
{
    return regs_launch(a, c);
}

static sl_status regs_run(const sl_args *a, bool spread, const char *who)
{
    sl_status st = smx_check(a, who);
    if (st != SL_OK || a->shape.rows == 0 || a->shape.cols == 0)
        return st;
    regs_cfg c;
    if (!regs_fits(a, spread, &c))
        return sl_fail(SL_ERR_UNSUPPORTED,
                       "%s holds a row in a cluster's registers: %llu columns (x and y %s modulo 16 bytes) do "
                       "not fit; at most %llu",
                       who, (unsigned long long)a->shape.cols,
                       (((uintptr_t)a->buf[0] ^ (uintptr_t)a->buf[1]) & 15u) ? "at different offsets" : "aligned",
                       (unsigned long long)SL_SOFTMAX_REGS_MAX_COLS - 7);
    return regs_launch(a, &c);
}

extern "C" sl_status sl_cuda_softmax_regs(const sl_args *a)
{
    return regs_run(a, false, "regs");
}

extern "C" sl_status sl_cuda_softmax_regs_cl(const sl_args *a)
{
    return regs_run(a, true, "regs_cl");
}

extern "C" sl_status sl_cuda_softmax_regs_cl_attrs(sl_dtype dt, sl_kernel_attrs *out)
{
    return sl_cuda_kernel_attrs(regs_fn<256, 256, 32>(dt), 256, 0, out);
}

/* The resources of the configuration an f32 row of 2^15 columns uses
 * (256-thread blocks, 32 elements a thread). */
extern "C" sl_status sl_cuda_softmax_regs_attrs(sl_dtype dt, sl_kernel_attrs *out)
{
    return sl_cuda_kernel_attrs(regs_fn<256, 256, 32>(dt), 256, 0, out);
}
