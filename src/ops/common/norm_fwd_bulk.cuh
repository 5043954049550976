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
 */
#ifndef SL_NORM_FWD_BULK_CUH
#define SL_NORM_FWD_BULK_CUH

#include "bulk.cuh"
#include "bulk_copy.cuh"
#include "norm_fwd.cuh"

enum {
    NFB_BLOCK = 512,
    NFB_MAXV = 4096, /* 16-byte vectors a block stages: 64 KiB, three blocks (192 KiB) an SM */
    NFB_PIECE = 1024 /* vectors a bulk copy: 16 KiB */
};

/* The row's sum of v: over the block, then (C > 1) over the cluster
 * through slot cl of each block (a full cluster barrier first: every slot
 * written, and every earlier slot's reads done). The caller arrives on
 * the cluster barrier after its last call and waits before exit. */
static __device__ __forceinline__ float nfb_sum(float v, float *red, float *cl, unsigned C)
{
    v = smx_block<NFB_BLOCK, smx_sum_op>(v, red);
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

/* The raw w (and, NORM_LN, b) vectors of a store group: the chunk's
 * vectors j0, j0 + NFB_BLOCK, ... (G of them; zeros past cnt), predicated
 * loads in volatile asm (norm_ldw_raw), so they issue together. */
template <int DT, int WT, int MODE, int G>
static __device__ __forceinline__ void nfb_ldwb(const norm_fwd_geo &g, uint32_t v0, uint32_t cnt, uint32_t j0,
                                                uint4 (*wr)[NORM_VE(DT) / NORM_VE(WT)],
                                                uint4 (*br)[NORM_VE(DT) / NORM_VE(WT)])
{
#pragma unroll
    for (int i = 0; i < G; i++) {
        const uint32_t j = j0 + (uint32_t)i * NFB_BLOCK;
        norm_ldw_raw<DT, WT>(g.w, v0 + j, j < cnt, wr[i]);
        if (MODE == NORM_LN)
            norm_ldw_raw<DT, WT>(g.b, v0 + j, j < cnt, br[i]);
    }
}

template <int DT, int WT, int MODE>
static __global__ void __launch_bounds__(NFB_BLOCK, NORM_MINB(NFB_BLOCK, 3))
    norm_fwd_bulk(norm_fwd_geo g, uint32_t nvec, uint32_t cv, unsigned C)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    typedef typename sl_dt<DT>::raw R;
    enum {
        VE = NORM_VE(DT),
        NIN = MODE == NORM_ADD_RMS ? 2 : 1,
        VPT = NFB_MAXV / NIN / NFB_BLOCK, /* a thread's vectors at most: 8 (the fused add 4) */
        WH = NORM_VE(DT) / NORM_VE(WT),   /* 16-byte vectors of w a vector of x */
        GB = 16 / (4 * WH * (MODE == NORM_LN ? 2 : 1)), /* vectors whose w (and b) fit 16 registers */
        G = GB < 1 ? 1 : GB > VPT ? VPT : GB
    };
    extern __shared__ __align__(128) uint4 xs[]; /* x in [0, cv); the fused add: res in [cv, 2 cv), h over x */
    __shared__ float red[NFB_BLOCK / 32];
    __shared__ float cl[2]; /* this block's partial of the row's first and second sums: read by the cluster */
    __shared__ __align__(8) uint64_t bar;
    const uint64_t row = blockIdx.x / C;
    const uint32_t rank = blockIdx.x % C, v0 = rank * cv;
    const uint32_t cnt = v0 < nvec ? min(cv, nvec - v0) : 0u;
    const uint64_t off = row * g.ld * sizeof(R) + 16 * (uint64_t)v0; /* the chunk's first byte in every matrix */
    if (threadIdx.x == 0) {
        mbar_init(&bar, 1);
        mbar_arrive_expect(&bar, (uint32_t)NIN * cnt * 16u);
        for (uint32_t p = 0; p < cnt; p += NFB_PIECE) {
            const uint32_t b = 16u * min((uint32_t)NFB_PIECE, cnt - p);
            bulk_load(xs + p, (const char *)g.x + off + 16 * (uint64_t)p, b, &bar);
            if (NIN == 2)
                bulk_load(xs + cv + p, (const char *)g.res + off + 16 * (uint64_t)p, b, &bar);
        }
    }
    __syncthreads(); /* the barrier is initialised before anyone waits on it */
    mbar_wait(&bar, 0);

    /* the first sum: x^2, h^2 (after h = x + res) or x; VPT x VE <= 64
     * terms in order. Vectors past the chunk read as 0 (adding nothing):
     * no branch between the LDS, so the VPT loads issue together. */
    const uint4 z = make_uint4(0u, 0u, 0u, 0u);
    float s = 0.0f;
#pragma unroll
    for (int i = 0; i < VPT; i++) {
        const uint32_t j = threadIdx.x + (uint32_t)i * NFB_BLOCK;
        uint4 u = j < cnt ? xs[j] : z;
        if (MODE == NORM_ADD_RMS) {
            const uint4 r = j < cnt ? xs[cv + j] : z;
            float f[VE];
#pragma unroll
            for (int k = 0; k < VE; k++)
                f[k] = norm_el<DT>(u, k) + norm_el<DT>(r, k);
            u = norm_pack<DT>(f);
            if (j < cnt)
                xs[j] = u; /* only this thread reads slot j again */
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
        nfb_ldwb<DT, WT, MODE, G>(g, v0, cnt, threadIdx.x, wr, br);
    s = nfb_sum(s, red, &cl[0], C);
    float mu = 0.0f, rstd;
    if (MODE == NORM_LN) {
        mu = s / (float)g.cols;
        float q = 0.0f;
#pragma unroll
        for (int i = 0; i < VPT; i++) {
            const uint32_t j = threadIdx.x + (uint32_t)i * NFB_BLOCK;
            const uint4 u = j < cnt ? xs[j] : z;
#pragma unroll
            for (int k = 0; k < VE; k++) {
                const float d = norm_el<DT>(u, k) - mu;
                q = j < cnt ? fmaf(d, d, q) : q;
            }
        }
        nfb_ldwb<DT, WT, MODE, G>(g, v0, cnt, threadIdx.x, wr, br);
        q = nfb_sum(q, red, &cl[1], C);
        rstd = rsqrtf(q / (float)g.cols + g.eps);
    } else {
        rstd = rsqrtf(s / (float)g.cols + g.eps);
    }
    if (C > 1) /* done reading the others' slots; waited on before exit */
        asm volatile("barrier.cluster.arrive.release.aligned;\n" ::: "memory");
    if (rank == 0 && threadIdx.x == 0) {
        g.rstd[row] = rstd;
        if (MODE == NORM_LN)
            g.mean[row] = mu;
    }
    /* y (and the fused add's h), G vectors at a time: the group's w (and
     * b) loads issued together (nfb_ldwb), so a thread waits for one L2
     * round trip a group, not one a vector; G from a budget of 16
     * registers of w and b. The h stores come here, not in the first
     * pass: before the cluster barrier its arrive.release (MEMBAR.ALL.GPU
     * in the SASS) would wait for them to complete. */
    char *y0 = (char *)g.y + off;
#pragma unroll
    for (int i0 = 0; i0 < VPT; i0 += G) {
        if (i0 > 0)
            nfb_ldwb<DT, WT, MODE, G>(g, v0, cnt, threadIdx.x + (uint32_t)i0 * NFB_BLOCK, wr, br);
#pragma unroll
        for (int i = 0; i < G; i++) {
            const uint32_t j = threadIdx.x + (uint32_t)(i0 + i) * NFB_BLOCK;
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
            if (MODE == NORM_ADD_RMS)
                *(uint4 *)((char *)g.h + off + 16 * (uint64_t)j) = u;
        }
    }
    if (C > 1)
        asm volatile("barrier.cluster.wait.acquire.aligned;\n" ::: "memory");
#else
    /* the launcher runs this rung only where sm_90 code was loaded (bulk_code_ok) */
    (void)g, (void)nvec, (void)cv, (void)C;
    __trap();
#endif
}

/* ---- host side -------------------------------------------------------------- */

/* The kernel for (x dtype, w dtype), and its index among the five pairs. */
template <int MODE> static const void *nfb_fn(sl_dtype dt, sl_dtype wt)
{
    if (dt == SL_F32)
        return (const void *)norm_fwd_bulk<SL_F32, SL_F32, MODE>;
    if (dt == SL_BF16)
        return wt == SL_F32 ? (const void *)norm_fwd_bulk<SL_BF16, SL_F32, MODE>
                            : (const void *)norm_fwd_bulk<SL_BF16, SL_BF16, MODE>;
    return wt == SL_F32 ? (const void *)norm_fwd_bulk<SL_F16, SL_F32, MODE>
                        : (const void *)norm_fwd_bulk<SL_F16, SL_F16, MODE>;
}

static inline int nfb_pair(sl_dtype dt, sl_dtype wt)
{
    return dt == SL_F32 ? 0 : (dt == SL_BF16 ? 1 : 3) + (wt == SL_F32 ? 1 : 0);
}

/* The chunking of a's rows: false where the rung does not apply (no
 * sm_90, a buffer off 16 bytes or rows not whole vectors, more than 8
 * chunks). */
template <int MODE> static bool nfb_plan(const sl_args *a, unsigned *C, uint32_t *nvec, uint32_t *cv)
{
    if (!norm_clusters() || !norm_fwd_aligned(a))
        return false;
    const uint64_t nv = a->shape.cols * sl_dtype_size(a->dtype) / 16;
    if (!sl_cuda_row_chunks(nv, NFB_MAXV / (MODE == NORM_ADD_RMS ? 2 : 1), a->shape.rows, C, cv))
        return false;
    *nvec = (uint32_t)nv;
    return true;
}

/* Once per device and pair: the kernel's sm_90 code is loaded, and it may
 * use NFB_MAXV x 16 bytes of dynamic shared memory (above the default 48
 * KiB). */
template <int MODE> static sl_status nfb_prepare(sl_dtype dt, sl_dtype wt)
{
    static int code[5][SL_MAX_DEVICES], ready[5][SL_MAX_DEVICES];
    const void *fn = nfb_fn<MODE>(dt, wt);
    const int k = nfb_pair(dt, wt);
    sl_status st = bulk_code_ok(fn, code[k]);
    return st != SL_OK ? st : sl_cuda_row_smem_allow(fn, NFB_MAXV * 16, ready[k]);
}

/* The rung: a checked by the caller (sl_norm_check), rows and cols > 0;
 * w at buffer iw; op and who for the message. */
template <int MODE> static sl_status nfb_run(const sl_args *a, norm_fwd_geo g, int iw, const char *op, const char *who)
{
    unsigned C;
    uint32_t nvec, cv;
    const int nin = MODE == NORM_ADD_RMS ? 2 : 1;
    if (!nfb_plan<MODE>(a, &C, &nvec, &cv))
        return sl_fail(SL_ERR_UNSUPPORTED,
                       "%s %s stages a row in shared memory by bulk copies (sm_90): it needs every buffer 16-byte "
                       "aligned, cols and ld multiples of %zu elements and a row of at most %u bytes%s (%llu columns "
                       "of %zu bytes); the aligned or block rung runs the others",
                       op, who, 16 / sl_dtype_size(a->dtype), 8u * NFB_MAXV / nin * 16u,
                       nin == 2 ? " of x and of res" : "", (unsigned long long)a->shape.cols,
                       sl_dtype_size(a->dtype));
    const sl_dtype dt = a->dtype, wt = norm_wdtype(a, iw);
    sl_status st = nfb_prepare<MODE>(dt, wt);
    if (st != SL_OK)
        return st;
    void *params[] = {&g, &nvec, &cv, &C};
    return sl_cuda_row_launch_smem(nfb_fn<MODE>(dt, wt), a->shape.rows * C, NFB_BLOCK, C,
                                   (size_t)cv * 16 * nin, params, a->stream);
}

/* For the model: the kernel's registers, spills and occupancy (w in the
 * rows' dtype). */
template <int MODE> static sl_status nfb_attrs(sl_dtype dt, sl_kernel_attrs *out)
{
    sl_status st = nfb_prepare<MODE>(dt, dt);
    return st != SL_OK ? st : sl_cuda_kernel_attrs(nfb_fn<MODE>(dt, dt), NFB_BLOCK, (size_t)NFB_MAXV * 16, out);
}

#endif /* SL_NORM_FWD_BULK_CUH */
