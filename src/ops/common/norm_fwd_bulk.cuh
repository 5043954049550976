/*
 * norm_fwd_bulk.cuh - the norms' forwards with the row staged in shared
 * memory by the bulk-copy engine (cp.async.bulk, sm_90; bulk_copy.cuh),
 * the cross-entropy / softmax-backward bulk rungs' scheme (xent/cuda/
 * 04_bulk.cu, softmax_bwd/cuda/04_bulk.cu) with the norms' arithmetic
 * (norm_fwd.cuh's MODE): one template for rmsnorm (NORM_RMS), layernorm
 * (NORM_LN) and the fused residual add + rmsnorm (NORM_ADD_RMS).
 *
 * A row of nvec 16-byte vectors is cut into C = 1, 2, 4 or 8 equal chunks
 * (sl_cuda_row_chunks, the fewest that fit) of at most NFB_MAXV / NIN
 * vectors of each input (64 KiB of x; the fused add 32 KiB of x and 32
 * KiB of res), one block of 512 threads a chunk, a row's C blocks one
 * thread block cluster. Thread 0 issues the chunk's bulk copies (16 KiB
 * each) on one mbarrier; every thread waits on it, then:
 *   NORM_RMS:     ss = sum x^2 from shared memory;
 *   NORM_ADD_RMS: h = x + res rounded into the dtype, stored to global
 *                 (16-byte st.global) and written over x's slot in shared
 *                 memory by the thread that reads it, ss = sum h^2 of the
 *                 rounded h (what the register kernel and an unfused add
 *                 then rmsnorm compute);
 *   NORM_LN:      s = sum x, mean = s / N; then q = sum (x - mean)^2 from
 *                 shared memory again (two-pass: the row is on chip, so
 *                 no cancellation of E[x^2] - mean^2 and no second DRAM
 *                 read);
 * each sum over the block (row.cuh's smx_block), then over the cluster
 * through distributed shared memory: each block's sum in its slot, a full
 * cluster barrier, then every warp reads the C slots (lane q reads rank
 * q's) and folds them by a butterfly: the same bits in every warp of
 * every block. After the row's last remote read a cluster arrive; its
 * wait comes at the kernel's end, so a block's slot outlives the other
 * blocks' reads and its stores do not wait for them. Then y = x rstd w
 * (layernorm fmaf((x - mean) rstd, w, b)) from shared memory, w (and b)
 * 16-byte __ldg from L2 (every row reads them), y 16-byte st.global.
 * Rank 0's thread 0 writes rstd (and mean) once per row.
 *
 * Sums: a thread adds at most 8 vectors of its chunk in sequence (64
 * terms of a 16-bit dtype: SL_NORM_SEQ), then the block's and the
 * cluster's fixed trees.
 *
 * In place (y = x, h = x, h = res, y = x for the fused add) is safe: a
 * block writes only its own chunk's columns, after all of them have
 * landed in shared memory.
 *
 * Limits (the host's nfb_plan): every buffer 16-byte aligned and rows a
 * whole number of vectors (norm_fwd_aligned), at most 8 chunks a row
 * (512 KiB of x; the fused add 256 KiB of x and of res), sm_90 with code
 * built for it (bulk_code_ok); else SL_ERR_UNSUPPORTED.
 *
 * The kernel is a template over the block, the vectors a thread of each
 * input (so the chunk) and two flags (nfb_cfg): bulk is the configuration
 * above; the tenth session's rungs (bulk_ex, bulk_ex512, bulk_ex128,
 * bulk_cp: nfb_ex ... nfb_cp below) replace the block and cluster sums by
 * the one-sided exchange (NFB_X1: nfb_sum_x1, no barrier in a row's path,
 * no cluster wait at the exit, the fused add's h stored in the first
 * pass) and, bulk_cp, the bulk copies by every thread's own cp.async
 * (NFB_CP); docs/ladder.md, "The norms' forwards, tenth session".
 */
#ifndef SL_NORM_FWD_BULK_CUH
#define SL_NORM_FWD_BULK_CUH

#include "bulk.cuh"
#include "bulk_copy.cuh"
#include "cluster_x1.cuh"
#include "norm_fwd.cuh"
#include "rmsnorm.h" /* sl_norm_check (every norm's header includes it) */

enum {
    NFB_BLOCK = 512, /* bulk's block */
    NFB_MAXV = 4096, /* 16-byte vectors a bulk block stages: 64 KiB, three blocks (192 KiB) an SM */
    NFB_PIECE = 1024 /* vectors a bulk copy: 16 KiB */
};

/* Flags of the kernel (FL): NFB_X1, the one-sided cluster exchange
 * (nfb_sum_x1: st.async into the peers' slots, one mbarrier wait, no
 * block or cluster barrier in a row's path); NFB_CP, the chunk loaded by
 * every thread's own 16-byte cp.async instead of one thread's bulk copies
 * (with NFB_X1 only). */
enum { NFB_X1 = 1, NFB_CP = 2 };

/* Blocks an SM the chunk's shared memory allows (NIN inputs of BLOCK x VPT
 * vectors, ~2 KiB of static memory and the 1 KiB an SM reserves a block,
 * out of 227 KiB): the launch bound's minimum (NORM_MINB caps it by
 * threads). */
#define NFB_MINB(BLOCK, VPT, NIN) ((232448 / ((NIN) * (BLOCK) * (VPT) * 16 + 2048)) > 0 ? (232448 / ((NIN) * (BLOCK) * (VPT) * 16 + 2048)) : 1)

/* The row's sum of v: over the block, then (C > 1) over the cluster
 * through slot cl of each block (a full cluster barrier first: every slot
 * written, and every earlier slot's reads done). The caller arrives on
 * the cluster barrier after its last call and waits before exit. */
template <int BLOCK> static __device__ __forceinline__ float nfb_sum(float v, float *red, float *cl, unsigned C)
{
    v = smx_block<BLOCK, smx_sum_op>(v, red);
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    if (C > 1) {
        cooperative_groups::cluster_group g = cooperative_groups::this_cluster();
        if (threadIdx.x == 0)
            *cl = v;
        g.sync();
        const unsigned q = threadIdx.x & 31u;
        v = smx_warp<smx_sum_op>(q < C ? *g.map_shared_rank(cl, q) : 0.0f);
    }
#else
    (void)cl, (void)C;
#endif
    return v;
}

/* The row's sum of v, one-sided (NFB_X1; cluster_x1.cuh's x1_post): every
 * warp's butterfly sum goes to slot [rank x NW + warp] of every CTA of the
 * cluster, lane q writing CTA q's by st.async, which completes that CTA's
 * mbarrier xb (armed for NW x C x 4 bytes); C = 1: lane 0 writes its own
 * CTA's slot and arrives on xb (NW arrivals). Every thread then waits on
 * its own CTA's xb and each warp folds the NW x C slots in index order
 * (lane l: l, l + 32, ...), then by the butterfly: the same bits in every
 * warp of every CTA.
 * No block or cluster barrier: a warp waits only for the partials
 * themselves. xr and xb serve one sum a launch (phase 0). first: the
 * first sum of the launch, which waits on the cluster barrier that the
 * kernel's start arrived on (every CTA's mbarriers initialised before a
 * peer stores into them). */
template <int BLOCK>
static __device__ __forceinline__ float nfb_sum_x1(float v, float *xr, uint64_t *xb, unsigned C, unsigned rank,
                                                   bool first)
{
    enum { NW = BLOCK / 32 };
    v = smx_warp<smx_sum_op>(v);
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    const unsigned lane = threadIdx.x & 31u;
    const float p[1] = {v};
    x1_post<1, NW>(p, xr, xb, C, rank, first);
    float t = 0.0f;
#pragma unroll
    for (unsigned i = 0; i < (NW * 8 + 31) / 32; i++)
        if (lane + 32 * i < NW * C)
            t += xr[lane + 32 * i];
    v = smx_warp<smx_sum_op>(t);
#else
    (void)xr, (void)xb, (void)C, (void)rank, (void)first;
#endif
    return v;
}

/* The raw w (and, NORM_LN, b) vectors of a store group: the chunk's
 * vectors j0, j0 + BLOCK, ... (G of them; zeros past cnt), predicated
 * loads in volatile asm (norm_ldw_raw), so they issue together. */
template <int DT, int WT, int MODE, int G, int BLOCK>
static __device__ __forceinline__ void nfb_ldwb(const norm_fwd_geo &g, uint32_t v0, uint32_t cnt, uint32_t j0,
                                                uint4 (*wr)[NORM_VE(DT) / NORM_VE(WT)],
                                                uint4 (*br)[NORM_VE(DT) / NORM_VE(WT)])
{
#pragma unroll
    for (int i = 0; i < G; i++) {
        const uint32_t j = j0 + (uint32_t)i * BLOCK;
        norm_ldw_raw<DT, WT>(g.w, v0 + j, j < cnt, wr[i]);
        if (MODE == NORM_LN)
            norm_ldw_raw<DT, WT>(g.b, v0 + j, j < cnt, br[i]);
    }
}

/* BLOCK threads, VPT vectors a thread of each input (a chunk of BLOCK x
 * VPT vectors of x, and as many of res for the fused add), flags FL.
 * bulk: BLOCK 512, VPT 8 (the fused add 4), FL 0. */
template <int DT, int WT, int MODE, int BLOCK, int VPT, int FL>
static __global__ void __launch_bounds__(BLOCK, NORM_MINB(BLOCK, NFB_MINB(BLOCK, VPT, MODE == NORM_ADD_RMS ? 2 : 1)))
    norm_fwd_bulk(norm_fwd_geo g, uint32_t nvec, uint32_t cv, unsigned C)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    typedef typename sl_dt<DT>::raw R;
    enum {
        VE = NORM_VE(DT),
        NIN = MODE == NORM_ADD_RMS ? 2 : 1,
        NW = BLOCK / 32,
        X1 = (FL & NFB_X1) != 0,
        CP = (FL & NFB_CP) != 0,
        NS = MODE == NORM_LN ? 2 : 1,     /* the row's sums */
        WH = NORM_VE(DT) / NORM_VE(WT),   /* 16-byte vectors of w a vector of x */
        GB = 16 / (4 * WH * (MODE == NORM_LN ? 2 : 1)), /* vectors whose w (and b) fit 16 registers */
        G = GB < 1 ? 1 : GB > VPT ? VPT : GB
    };
    static_assert(!CP || X1, "the per-thread loads come with the one-sided exchange");
    extern __shared__ __align__(128) uint4 xs[]; /* x in [0, cv); the fused add: res in [cv, 2 cv), h over x */
    __shared__ float red[X1 ? 1 : NW];
    __shared__ float cl[2]; /* !X1: this block's partial of the row's first and second sums, read by the cluster */
    __shared__ float xr[X1 ? NS : 1][X1 ? NW * 8 : 1]; /* X1: the cluster's warp partials, a set a sum */
    __shared__ __align__(8) uint64_t bar, xb[NS];
    const uint64_t row = blockIdx.x / C;
    const uint32_t rank = blockIdx.x % C, v0 = rank * cv;
    const uint32_t cnt = v0 < nvec ? min(cv, nvec - v0) : 0u;
    const uint64_t off = row * g.ld * sizeof(R) + 16 * (uint64_t)v0; /* the chunk's first byte in every matrix */
    if (CP) {
        /* this thread's own vectors, the ones it alone reads and stores */
#pragma unroll
        for (int i = 0; i < VPT; i++) {
            const uint32_t j = threadIdx.x + (uint32_t)i * BLOCK;
            if (j < cnt) {
                cp_async16(xs + j, (const char *)g.x + off + 16 * (uint64_t)j);
                if (NIN == 2)
                    cp_async16(xs + cv + j, (const char *)g.res + off + 16 * (uint64_t)j);
            }
        }
    }
    if (threadIdx.x == 0) {
        if (!CP) {
            mbar_init(&bar, 1);
            mbar_arrive_expect(&bar, (uint32_t)NIN * cnt * 16u);
            for (uint32_t p = 0; p < cnt; p += NFB_PIECE) {
                const uint32_t b = 16u * min((uint32_t)NFB_PIECE, cnt - p);
                bulk_load(xs + p, (const char *)g.x + off + 16 * (uint64_t)p, b, &bar);
                if (NIN == 2)
                    bulk_load(xs + cv + p, (const char *)g.res + off + 16 * (uint64_t)p, b, &bar);
            }
        }
        if (X1)
            for (int k = 0; k < NS; k++)
                x1_arm(&xb[k], NW, C, 4);
    }
    if (!CP || C == 1)
        __syncthreads(); /* the barriers are initialised before anyone waits on them */
    if (X1 && C > 1)
        cluster_arrive_relaxed(); /* waited on before the first remote store (nfb_sum_x1) */
    if (CP)
        cp_async_wait_all(); /* this thread's vectors have landed */
    else
        mbar_wait(&bar, 0);

    /* the first sum: x^2, h^2 (after h = x + res) or x; VPT x VE <= 64
     * terms in order. Vectors past the chunk read as 0 (adding nothing):
     * no branch between the LDS, so the VPT loads issue together. */
    const uint4 z = make_uint4(0u, 0u, 0u, 0u);
    float s = 0.0f;
#pragma unroll
    for (int i = 0; i < VPT; i++) {
        const uint32_t j = threadIdx.x + (uint32_t)i * BLOCK;
        uint4 u = j < cnt ? xs[j] : z;
        if (MODE == NORM_ADD_RMS) {
            const uint4 r = j < cnt ? xs[cv + j] : z;
            float f[VE];
#pragma unroll
            for (int k = 0; k < VE; k++)
                f[k] = norm_el<DT>(u, k) + norm_el<DT>(r, k);
            u = norm_pack<DT>(f);
            if (j < cnt) {
                xs[j] = u; /* only this thread reads slot j again */
                if (X1) /* no release barrier ahead to wait for it: h leaves now */
                    *(uint4 *)((char *)g.h + off + 16 * (uint64_t)j) = u;
            }
        }
#pragma unroll
        for (int k = 0; k < VE; k++) {
            const float e = norm_el<DT>(u, k);
            s = MODE == NORM_LN ? s + e : fmaf(e, e, s);
        }
    }
    /* w (and b) of the first group of the store loop, loaded before the
     * row's last sum: their L2 round trip overlaps the block and cluster
     * reductions (the registers of x are free again here) */
    uint4 wr[G][WH], br[MODE == NORM_LN ? G : 1][WH];
    if (MODE != NORM_LN)
        nfb_ldwb<DT, WT, MODE, G, BLOCK>(g, v0, cnt, threadIdx.x, wr, br);
    s = X1 ? nfb_sum_x1<BLOCK>(s, xr[0], &xb[0], C, rank, true) : nfb_sum<BLOCK>(s, red, &cl[0], C);
    float mu = 0.0f, rstd;
    if (MODE == NORM_LN) {
        mu = s / (float)g.cols;
        float q = 0.0f;
#pragma unroll
        for (int i = 0; i < VPT; i++) {
            const uint32_t j = threadIdx.x + (uint32_t)i * BLOCK;
            const uint4 u = j < cnt ? xs[j] : z;
#pragma unroll
            for (int k = 0; k < VE; k++) {
                const float d = norm_el<DT>(u, k) - mu;
                q = j < cnt ? fmaf(d, d, q) : q;
            }
        }
        nfb_ldwb<DT, WT, MODE, G, BLOCK>(g, v0, cnt, threadIdx.x, wr, br);
        q = X1 ? nfb_sum_x1<BLOCK>(q, xr[NS - 1], &xb[NS - 1], C, rank, false) : nfb_sum<BLOCK>(q, red, &cl[1], C);
        rstd = rsqrtf(q / (float)g.cols + g.eps);
    } else {
        rstd = rsqrtf(s / (float)g.cols + g.eps);
    }
    if (!X1 && C > 1) /* done reading the others' slots; waited on before exit */
        asm volatile("barrier.cluster.arrive.release.aligned;\n" ::: "memory");
    if (rank == 0 && threadIdx.x == 0) {
        g.rstd[row] = rstd;
        if (MODE == NORM_LN)
            g.mean[row] = mu;
    }
    /* y (and, !X1, the fused add's h), G vectors at a time: the group's w
     * (and b) loads issued together (nfb_ldwb), so a thread waits for one
     * L2 round trip a group, not one a vector; G from a budget of 16
     * registers of w and b. Without X1 the h stores come here, not in the
     * first pass: before the cluster barrier its arrive.release
     * (MEMBAR.ALL.GPU in the SASS) would wait for them to complete. */
    char *y0 = (char *)g.y + off;
#pragma unroll
    for (int i0 = 0; i0 < VPT; i0 += G) {
        if (i0 > 0)
            nfb_ldwb<DT, WT, MODE, G, BLOCK>(g, v0, cnt, threadIdx.x + (uint32_t)i0 * BLOCK, wr, br);
#pragma unroll
        for (int i = 0; i < G; i++) {
            const uint32_t j = threadIdx.x + (uint32_t)(i0 + i) * BLOCK;
            if (j >= cnt)
                break;
            const uint4 u = xs[j];
            float wl[VE], f[VE];
            norm_w_widen<DT, WT>(wr[i], wl);
            if (MODE == NORM_LN) {
                float bl[VE];
                norm_w_widen<DT, WT>(br[MODE == NORM_LN ? i : 0], bl);
#pragma unroll
                for (int k = 0; k < VE; k++)
                    f[k] = fmaf((norm_el<DT>(u, k) - mu) * rstd, wl[k], bl[k]);
            } else {
#pragma unroll
                for (int k = 0; k < VE; k++)
                    f[k] = norm_el<DT>(u, k) * rstd * wl[k];
            }
            *(uint4 *)(y0 + 16 * (uint64_t)j) = norm_pack<DT>(f);
            if (MODE == NORM_ADD_RMS && !X1)
                *(uint4 *)((char *)g.h + off + 16 * (uint64_t)j) = u;
        }
    }
    if (!X1 && C > 1)
        asm volatile("barrier.cluster.wait.acquire.aligned;\n" ::: "memory");
#else
    /* the launcher runs this rung only where sm_90 code was loaded (bulk_code_ok) */
    (void)g, (void)nvec, (void)cv, (void)C;
    __trap();
#endif
}

/* ---- host side -------------------------------------------------------------- */

/* A configuration of the kernel: BLOCK threads, VPT vectors a thread of
 * each input, flags FL (NFB_X1, NFB_CP). bulk is nfb_cfg<512, 8 / NIN, 0>. */
template <int BLOCK, int VPT, int FL> struct nfb_cfg {
    enum { block = BLOCK, vpt = VPT, fl = FL };
};
template <int MODE> using nfb_bulk = nfb_cfg<NFB_BLOCK, NFB_MAXV / NFB_BLOCK / (MODE == NORM_ADD_RMS ? 2 : 1), 0>;

/* The kernel for (x dtype, w dtype), and its index among the five pairs. */
template <int MODE, class K> static const void *nfb_fn(sl_dtype dt, sl_dtype wt)
{
    enum { B = K::block, V = K::vpt, F = K::fl };
    if (dt == SL_F32)
        return (const void *)norm_fwd_bulk<SL_F32, SL_F32, MODE, B, V, F>;
    if (dt == SL_BF16)
        return wt == SL_F32 ? (const void *)norm_fwd_bulk<SL_BF16, SL_F32, MODE, B, V, F>
                            : (const void *)norm_fwd_bulk<SL_BF16, SL_BF16, MODE, B, V, F>;
    return wt == SL_F32 ? (const void *)norm_fwd_bulk<SL_F16, SL_F32, MODE, B, V, F>
                        : (const void *)norm_fwd_bulk<SL_F16, SL_F16, MODE, B, V, F>;
}

static inline int nfb_pair(sl_dtype dt, sl_dtype wt)
{
    return dt == SL_F32 ? 0 : (dt == SL_BF16 ? 1 : 3) + (wt == SL_F32 ? 1 : 0);
}

/* The chunking of a's rows: false where the rung does not apply (no
 * sm_90, a buffer off 16 bytes or rows not whole vectors, more than 8
 * chunks of K::block x K::vpt vectors). */
template <class K> static bool nfb_plan(const sl_args *a, unsigned *C, uint32_t *nvec, uint32_t *cv)
{
    if (!norm_clusters() || !norm_fwd_aligned(a))
        return false;
    const uint64_t nv = a->shape.cols * sl_dtype_size(a->dtype) / 16;
    if (!sl_cuda_row_chunks(nv, (uint64_t)K::block * K::vpt, a->shape.rows, C, cv))
        return false;
    *nvec = (uint32_t)nv;
    return true;
}

/* Once per device and pair: the kernel's sm_90 code is loaded, and it may
 * use its chunk's dynamic shared memory (above the default 48 KiB). */
template <int MODE, class K> static sl_status nfb_prepare(sl_dtype dt, sl_dtype wt)
{
    static int code[5][SL_MAX_DEVICES], ready[5][SL_MAX_DEVICES];
    const void *fn = nfb_fn<MODE, K>(dt, wt);
    const int k = nfb_pair(dt, wt), nin = MODE == NORM_ADD_RMS ? 2 : 1;
    sl_status st = bulk_code_ok(fn, code[k]);
    return st != SL_OK ? st : sl_cuda_row_smem_allow(fn, nin * K::block * K::vpt * 16, ready[k]);
}

/* The rung: a checked by the caller (sl_norm_check), rows and cols > 0;
 * w at buffer iw; op and who for the message. */
template <int MODE, class K = nfb_bulk<MODE>>
static sl_status nfb_run(const sl_args *a, norm_fwd_geo g, int iw, const char *op, const char *who)
{
    unsigned C;
    uint32_t nvec, cv;
    const int nin = MODE == NORM_ADD_RMS ? 2 : 1;
    if (!nfb_plan<K>(a, &C, &nvec, &cv))
        return sl_fail(SL_ERR_UNSUPPORTED,
                       "%s %s stages a row in shared memory (sm_90): it needs every buffer 16-byte aligned, cols and "
                       "ld multiples of %zu elements and a row of at most %u bytes%s (%llu columns of %zu bytes); the "
                       "aligned or block rung runs the others",
                       op, who, 16 / sl_dtype_size(a->dtype), 8u * K::block * K::vpt * 16u,
                       nin == 2 ? " of x and of res" : "", (unsigned long long)a->shape.cols,
                       sl_dtype_size(a->dtype));
    const sl_dtype dt = a->dtype, wt = norm_wdtype(a, iw);
    sl_status st = nfb_prepare<MODE, K>(dt, wt);
    if (st != SL_OK)
        return st;
    void *params[] = {&g, &nvec, &cv, &C};
    return sl_cuda_row_launch_smem(nfb_fn<MODE, K>(dt, wt), a->shape.rows * C, K::block, C, (size_t)cv * 16 * nin,
                                   params, a->stream);
}

/* A rung's launcher: the norms' checks (sl_norm_check, w at buffer iw),
 * nothing to do for an empty launch, then nfb_run on the op's geometry. */
template <int MODE, class K = nfb_bulk<MODE>>
static sl_status nfb_rung(const sl_args *a, norm_fwd_geo (*geo)(const sl_args *), int iw, const char *op,
                          const char *who)
{
    sl_status st = sl_norm_check(a, iw, op, who);
    if (st != SL_OK || a->shape.rows == 0 || a->shape.cols == 0)
        return st;
    return nfb_run<MODE, K>(a, geo(a), iw, op, who);
}

/* For the model: the kernel's registers, spills and occupancy (w in the
 * rows' dtype). */
template <int MODE, class K = nfb_bulk<MODE>> static sl_status nfb_attrs(sl_dtype dt, sl_kernel_attrs *out)
{
    const int nin = MODE == NORM_ADD_RMS ? 2 : 1;
    sl_status st = nfb_prepare<MODE, K>(dt, dt);
    return st != SL_OK ? st
                       : sl_cuda_kernel_attrs(nfb_fn<MODE, K>(dt, dt), K::block, (size_t)nin * K::block * K::vpt * 16,
                                              out);
}

/* The one-sided rungs (bulk_ex, bulk_ex512, bulk_ex128, bulk_cp: the
 * norms' forwards' tenth session, docs/ladder.md): the configuration by
 * rung name, the same for the three modes but the fused add's vectors a
 * thread of x and of res. */
template <int MODE> using nfb_ex = nfb_cfg<256, 8, NFB_X1>;
template <int MODE> using nfb_ex512 = nfb_cfg<512, MODE == NORM_ADD_RMS ? 4 : 8, NFB_X1>;
template <int MODE> using nfb_ex128 = nfb_cfg<128, 8, NFB_X1>;
template <int MODE> using nfb_cp = nfb_cfg<256, 8, NFB_X1 | NFB_CP>;

/* The extern "C" launcher sl_cuda_<OP>_<NAME> (nfb_rung of configuration
 * CFG: the op's checks, its geometry GEO, w at buffer IW) and its attrs:
 * bulk (nfb_bulk) and, NFB_EX_RUNGS, the four configurations nfb_ex ...
 * nfb_cp of an op. */
#define NFB_RUNG(OP, MODE, GEO, IW, NAME, CFG)                                                                       \
    extern "C" sl_status sl_cuda_##OP##_##NAME(const sl_args *a)                                                  \
    {                                                                                                            \
        return nfb_rung<MODE, CFG<MODE>>(a, GEO, IW, #OP, #NAME);                                                \
    }                                                                                                            \
    extern "C" sl_status sl_cuda_##OP##_##NAME##_attrs(sl_dtype dt, sl_kernel_attrs *out)                         \
    {                                                                                                            \
        return nfb_attrs<MODE, CFG<MODE>>(dt, out);                                                              \
    }
#define NFB_EX_RUNGS(OP, MODE, GEO, IW)                                                                              \
    NFB_RUNG(OP, MODE, GEO, IW, bulk_ex, nfb_ex)                                                                     \
    NFB_RUNG(OP, MODE, GEO, IW, bulk_ex512, nfb_ex512)                                                               \
    NFB_RUNG(OP, MODE, GEO, IW, bulk_ex128, nfb_ex128)                                                               \
    NFB_RUNG(OP, MODE, GEO, IW, bulk_cp, nfb_cp)

#endif /* SL_NORM_FWD_BULK_CUH */
