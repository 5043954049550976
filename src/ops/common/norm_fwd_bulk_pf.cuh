/*
 * norm_fwd_bulk_pf.cuh - the bulk forwards (norm_fwd_bulk.cuh) as a
 * persistent kernel that requests row i + 1's chunk before it reduces,
 * exchanges and stores row i: rung bulk_pf of rmsnorm (NORM_RMS),
 * layernorm (NORM_LN) and the fused residual add + rmsnorm (NORM_ADD_RMS).
 *
 * Why: bulk runs one row a cluster and exits; while a block reduces, meets
 * its cluster and stores, it has nothing in flight, and its SM's three
 * blocks x 64 KiB fall in and out of phase. On the H200 (about 1.45x the
 * H100's bytes in flight for its bandwidth, ~50-70 KiB an SM requested
 * without pause) that left bulk at 0.79-0.91 of the copy at 8192 x 65536
 * bf16 (docs/ladder.md, eighth session).
 *
 * Shape: a row of nvec 16-byte vectors cut into C = 1, 2, 4 or 8 chunks
 * (sl_cuda_row_chunks) of at most NFP_STAGEV / NIN vectors of each input
 * (32 KiB of x; the fused add 16 KiB of x and 16 KiB of res), one block of
 * 512 threads a chunk, C blocks a cluster, as bulk but with half its
 * chunk. The grid is the clusters that fit resident at once
 * (cudaOccupancyMaxActiveClusters, nfp_resident), at most the rows; the
 * cluster with index k (blockIdx.x / C) walks rows k, k + P, k + 2P, ...
 * (P clusters), every block of it the same rows, each block always the
 * same columns (rank x cv ...).
 *
 * Two stages: a block's dynamic shared memory is two chunks (2 x 32 KiB;
 * three blocks an SM still fit, 192 KiB), stage s = t & 1 for the block's
 * t-th row, each with its own mbarrier bar[s] whose phase for the t-th row
 * has parity (t >> 1) & 1 (a stage's mbarrier completes once every second
 * row). At the top of the t-th row thread 0 issues the bulk copies of row
 * t + 1 (the next row of the walk, when there is one) into stage s ^ 1,
 * then every thread waits on bar[s] and works on row t from stage s:
 * the sums, the cluster exchange, the stores, all with row t + 1's copy in
 * flight. Bytes requested an SM: 3 blocks x one 32 KiB chunk most of the
 * time (bulk: 3 x 64 KiB at the start of a row, then none until the
 * block's next launch).
 *
 * Hazards and why each is safe:
 *  1. Re-issuing into a stage (write after read, and, for the fused add,
 *     write after write: h is written over x in shared memory). Stage s ^ 1
 *     was last read (and written) by every thread during row t - 1. The
 *     end of each row is: every thread's fence.proxy.async.shared::cta
 *     (its generic-proxy reads and writes of the stage ordered before later
 *     async-proxy accesses, PTX ISA "proxy fence"), then __syncthreads; the
 *     issue at the top of row t comes after that barrier, in thread 0. So
 *     every generic access of the stage precedes the bulk copy's writes in
 *     the async proxy. The fence is one instruction a thread a row.
 *  2. The mbarrier phases: bar[s] is armed (arrive.expect_tx by thread 0,
 *     one arrival a phase) once for each row that stage holds, and the
 *     armings of a stage alternate with its waits: the arming for row t + 2
 *     comes after the barrier that ends row t, which every thread passes
 *     only after its wait for row t's phase. So no thread waits on a parity
 *     two phases old (mbarrier.try_wait.parity only tells the last two
 *     phases apart).
 *  3. The cluster exchange: a block's partial sum goes in its slot
 *     cl[t & 1][k] (k: the first or, layernorm, the second sum), then the
 *     cluster barrier (barrier.cluster.arrive.release + wait.acquire:
 *     every slot written before anyone reads), then each warp reads the C
 *     slots of the row's parity through DSMEM. A fast block writes row
 *     t + 1's slot while a slow one may still read row t's: another slot
 *     (the other parity). It writes cl[t & 1][k] again only at row t + 2,
 *     after it passed row t + 1's first cluster barrier, which the slow
 *     block reached only after its last read of row t's slots (program
 *     order; the barrier's release / acquire orders the reads before the
 *     write). One parity would not do: row t + 1's write by a fast block
 *     would follow only row t's barrier, before which the slow block's
 *     reads of row t come. At the end every block arrives and waits on the
 *     cluster barrier once more before it exits: a block's shared memory
 *     must outlive the others' reads of its last slots. Every block of a
 *     cluster walks the same rows, so all meet the same barriers.
 *  4. In place (y = x; the fused add h = x, h = res or y = x): a block
 *     writes only its own chunk's columns of row t, all of which landed in
 *     its stage before it wrote any; the copy in flight reads row t + P,
 *     another row. No other block reads those columns of row t.
 *  5. The cluster barrier's arrive.release makes a thread's earlier global
 *     stores (row t - 1's y, and h) complete before it arrives (bulk's note:
 *     MEMBAR.ALL.GPU in the SASS). bulk kept its stores after its one
 *     barrier for that reason; here row t's first barrier follows row
 *     t - 1's stores by row t's first pass over shared memory, and the
 *     bulk copy of row t + 1 stays in flight through the wait, so the cost
 *     is a stall of the block, not of the memory system. (A later step:
 *     the partials sent with st.async onto an mbarrier of each peer, no
 *     release barrier at all.)
 *
 * Tail: a static persistent grid leaves SMs finishing apart (on the H200
 * a persistent streaming grid lost ~5% to a block grid, docs/ladder.md,
 * the elementwise bulk_pipe); at 8192 rows over ~100 clusters each walks
 * ~80 rows, so the last wave is at most one row a cluster of ~80, but the
 * rows per cluster differ by one where P does not divide the rows.
 *
 * Sums as bulk: a thread adds its at most VPT vectors of the chunk in
 * order (VPT = 4, the fused add 2: up to 32 terms of a 16-bit dtype), then
 * the block's and the cluster's fixed trees (nfb_sum's). The chunks are
 * half bulk's, so C is twice bulk's at the same row: the same
 * associativity class, other bits.
 *
 * Test hook: SL_NORM_FWD_PF_CLUSTERS=n (n > 0) caps the grid at n
 * clusters, so that every cluster walks many rows and both stages wrap
 * (tests/norm_check.h's t_bulk_cases).
 *
 * Limits (nfp_plan): as bulk, with 8 chunks of 32 KiB: rows of at most
 * 256 KiB (the fused add 128 KiB of x and of res); else
 * SL_ERR_UNSUPPORTED.
 */
#ifndef SL_NORM_FWD_BULK_PF_CUH
#define SL_NORM_FWD_BULK_PF_CUH

#include "norm_fwd_bulk.cuh"

#include <stdlib.h>

enum {
    NFP_STAGEV = 2048 /* 16-byte vectors a stage: 32 KiB, two stages x three blocks (192 KiB) an SM */
};

/* The kernel: grid = P clusters of C blocks (nfp_run); see the header. */
template <int DT, int WT, int MODE>
static __global__ void __launch_bounds__(NFB_BLOCK, NORM_MINB(NFB_BLOCK, 3))
    norm_fwd_bulk_pf(norm_fwd_geo g, uint32_t nvec, uint32_t cv, unsigned C)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    typedef typename sl_dt<DT>::raw R;
    enum {
        VE = NORM_VE(DT),
        NIN = MODE == NORM_ADD_RMS ? 2 : 1,
        VPT = NFP_STAGEV / NIN / NFB_BLOCK, /* a thread's vectors at most: 4 (the fused add 2) */
        WH = NORM_VE(DT) / NORM_VE(WT),
        /* w (and b) registers of a store group: 16 as bulk, layernorm 8 (16 spilled 40-48 bytes under the
           40-register cap of three blocks an SM: the walk's state costs registers bulk has free) */
        GB = (MODE == NORM_LN ? 8 : 16) / (4 * WH * (MODE == NORM_LN ? 2 : 1)),
        G = GB < 1 ? 1 : GB > VPT ? VPT : GB
    };
    extern __shared__ __align__(128) uint4 xs[]; /* stage s at xs + s sv: x, then (fused add) res */
    __shared__ float red[NFB_BLOCK / 32];
    __shared__ float cl[2][2]; /* [row parity][first, second sum]: read by the cluster */
    __shared__ __align__(8) uint64_t bar[2];
    const uint64_t P = gridDim.x / C, k0 = blockIdx.x / C;
    const uint32_t rank = blockIdx.x % C, v0 = rank * cv;
    const uint32_t cnt = v0 < nvec ? min(cv, nvec - v0) : 0u;
    const uint64_t rowb = g.ld * sizeof(R), coff = 16 * (uint64_t)v0;
    /* a stage's x and res each start on 128 bytes (cv rounded up to 8 vectors): with the chunks' global
     * starts on 128 bytes (rows a multiple of 1024 bytes, as every measured shape), the copies' shared
     * and global addresses agree modulo 128 (bulk.cuh: copies that differ modulo 32 ran 2-7% slower) */
    const uint32_t cvr = (cv + 7u) & ~7u, sv = (uint32_t)NIN * cvr; /* vectors a stage */
    /* thread 0: row r's chunk (x, res) into stage s on bar[s] */
    auto issue = [&](uint64_t r, uint32_t s) {
        uint4 *d = xs + (size_t)s * sv;
        const uint64_t off = r * rowb + coff;
        mbar_arrive_expect(&bar[s], (uint32_t)NIN * cnt * 16u);
        for (uint32_t p = 0; p < cnt; p += NFB_PIECE) {
            const uint32_t b = 16u * min((uint32_t)NFB_PIECE, cnt - p);
            bulk_load(d + p, (const char *)g.x + off + 16 * (uint64_t)p, b, &bar[s]);
            if (NIN == 2)
                bulk_load(d + cvr + p, (const char *)g.res + off + 16 * (uint64_t)p, b, &bar[s]);
        }
    };
    if (threadIdx.x == 0) {
        mbar_init(&bar[0], 1);
        mbar_init(&bar[1], 1);
        if (cnt > 0)
            issue(k0, 0); /* k0 < rows: the grid is at most the rows' clusters */
    }
    __syncthreads(); /* the barriers are initialised before anyone waits on them */

    const uint4 z = make_uint4(0u, 0u, 0u, 0u);
    uint32_t t = 0;
    for (uint64_t row = k0; row < g.rows; row += P, t++) {
        const uint32_t s = t & 1u, par = (t >> 1) & 1u;
        if (threadIdx.x == 0 && cnt > 0 && row + P < g.rows)
            issue(row + P, s ^ 1u); /* hazard 1: stage s ^ 1's readers passed the last row's barrier */
        uint4 *xr = xs + (size_t)s * sv;
        if (cnt > 0)
            mbar_wait(&bar[s], par);
        float s1 = 0.0f;
#pragma unroll
        for (int i = 0; i < VPT; i++) {
            const uint32_t j = threadIdx.x + (uint32_t)i * NFB_BLOCK;
            uint4 u = j < cnt ? xr[j] : z;
            if (MODE == NORM_ADD_RMS) {
                const uint4 r = j < cnt ? xr[cvr + j] : z;
                float f[VE];
#pragma unroll
                for (int k = 0; k < VE; k++)
                    f[k] = norm_el<DT>(u, k) + norm_el<DT>(r, k);
                u = norm_pack<DT>(f);
                if (j < cnt)
                    xr[j] = u; /* only this thread reads slot j again this row */
            }
#pragma unroll
            for (int k = 0; k < VE; k++) {
                const float e = norm_el<DT>(u, k);
                s1 = MODE == NORM_LN ? s1 + e : fmaf(e, e, s1);
            }
        }
        uint4 wr[G][WH], br[MODE == NORM_LN ? G : 1][WH];
        if (MODE != NORM_LN)
            nfb_ldwb<DT, WT, MODE, G>(g, v0, cnt, threadIdx.x, wr, br);
        s1 = nfb_sum(s1, red, &cl[t & 1u][0], C);
        float mu = 0.0f, rstd;
        if (MODE == NORM_LN) {
            mu = s1 / (float)g.cols;
            float q = 0.0f;
#pragma unroll
            for (int i = 0; i < VPT; i++) {
                const uint32_t j = threadIdx.x + (uint32_t)i * NFB_BLOCK;
                const uint4 u = j < cnt ? xr[j] : z;
#pragma unroll
                for (int k = 0; k < VE; k++) {
                    const float d = norm_el<DT>(u, k) - mu;
                    q = j < cnt ? fmaf(d, d, q) : q;
                }
            }
            nfb_ldwb<DT, WT, MODE, G>(g, v0, cnt, threadIdx.x, wr, br);
            q = nfb_sum(q, red, &cl[t & 1u][1], C);
            rstd = rsqrtf(q / (float)g.cols + g.eps);
        } else {
            rstd = rsqrtf(s1 / (float)g.cols + g.eps);
        }
        if (rank == 0 && threadIdx.x == 0) {
            g.rstd[row] = rstd;
            if (MODE == NORM_LN)
                g.mean[row] = mu;
        }
        const uint64_t off = row * rowb + coff;
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
                const uint4 u = xr[j];
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
        fence_proxy_async(); /* hazard 1: this thread's accesses of stage s before the engine's next write */
        __syncthreads();
    }
    if (C > 1) { /* hazard 3: every block's slots outlive the cluster's last reads */
        asm volatile("barrier.cluster.arrive.release.aligned;\n" ::: "memory");
        asm volatile("barrier.cluster.wait.acquire.aligned;\n" ::: "memory");
    }
#else
    (void)g, (void)nvec, (void)cv, (void)C;
    __trap();
#endif
}

/* ---- host side -------------------------------------------------------------- */

template <int MODE> static const void *nfp_fn(sl_dtype dt, sl_dtype wt)
{
    if (dt == SL_F32)
        return (const void *)norm_fwd_bulk_pf<SL_F32, SL_F32, MODE>;
    if (dt == SL_BF16)
        return wt == SL_F32 ? (const void *)norm_fwd_bulk_pf<SL_BF16, SL_F32, MODE>
                            : (const void *)norm_fwd_bulk_pf<SL_BF16, SL_BF16, MODE>;
    return wt == SL_F32 ? (const void *)norm_fwd_bulk_pf<SL_F16, SL_F32, MODE>
                        : (const void *)norm_fwd_bulk_pf<SL_F16, SL_F16, MODE>;
}

/* The chunking: as nfb_plan with stages of NFP_STAGEV vectors. */
template <int MODE> static bool nfp_plan(const sl_args *a, unsigned *C, uint32_t *nvec, uint32_t *cv)
{
    if (!norm_clusters() || !norm_fwd_aligned(a))
        return false;
    const uint64_t nv = a->shape.cols * sl_dtype_size(a->dtype) / 16;
    if (!sl_cuda_row_chunks(nv, NFP_STAGEV / (MODE == NORM_ADD_RMS ? 2 : 1), a->shape.rows, C, cv))
        return false;
    *nvec = (uint32_t)nv;
    return true;
}

/* Once per device and pair: sm_90 code loaded, and two stages of dynamic
 * shared memory allowed (64 KiB, above the default 48 KiB). */
template <int MODE> static sl_status nfp_prepare(sl_dtype dt, sl_dtype wt)
{
    static int code[5][SL_MAX_DEVICES], ready[5][SL_MAX_DEVICES];
    const void *fn = nfp_fn<MODE>(dt, wt);
    const int k = nfb_pair(dt, wt);
    sl_status st = bulk_code_ok(fn, code[k]);
    return st != SL_OK ? st : sl_cuda_row_smem_allow(fn, 2 * NFP_STAGEV * 16, ready[k]);
}

/* The clusters of C blocks of fn resident at once: cudaOccupancyMaxActiveClusters
 * (a cluster's blocks share a GPC, so SMs x blocks an SM / C overcounts:
 * norm_bwd_resident's note), or for C = 1 (or a failed query) blocks an SM
 * x SMs / C. Asked with the largest stages (2 x NFP_STAGEV vectors), so one
 * count a device, pair and C (index 0-3 for 1, 2, 4, 8), cached: a launch
 * with a smaller chunk fits at least as many, so the grid never runs a
 * second wave. */
template <int MODE> static uint64_t nfp_resident(const void *fn, int pair, unsigned C)
{
    static int cache[5][4][SL_MAX_DEVICES];
    const int ci = C == 1 ? 0 : C == 2 ? 1 : C == 4 ? 2 : 3;
    int dev = 0;
    if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= SL_MAX_DEVICES)
        dev = -1;
    if (dev >= 0) {
        const int v = __atomic_load_n(&cache[pair][ci][dev], __ATOMIC_RELAXED);
        if (v > 0)
            return (uint64_t)v;
    }
    const size_t smem = 2 * NFP_STAGEV * 16;
    int nb = 0;
    if (C > 1) {
        cudaLaunchConfig_t cfg = {};
        cfg.gridDim = dim3(C);
        cfg.blockDim = dim3(NFB_BLOCK);
        cfg.dynamicSmemBytes = smem;
        cudaLaunchAttribute attr[1] = {};
        attr[0].id = cudaLaunchAttributeClusterDimension;
        attr[0].val.clusterDim.x = C;
        attr[0].val.clusterDim.y = 1;
        attr[0].val.clusterDim.z = 1;
        cfg.attrs = attr;
        cfg.numAttrs = 1;
        if (cudaOccupancyMaxActiveClusters(&nb, fn, &cfg) != cudaSuccess || nb <= 0) {
            (void)cudaGetLastError();
            nb = 0;
        }
    }
    if (nb <= 0) {
        int per = 0;
        if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, fn, NFB_BLOCK, smem) != cudaSuccess)
            (void)cudaGetLastError();
        nb = (per > 0 ? per : 1) * norm_sms() / (int)C;
        nb = nb > 0 ? nb : 1;
    }
    if (dev >= 0)
        __atomic_store_n(&cache[pair][ci][dev], nb, __ATOMIC_RELAXED);
    return (uint64_t)nb;
}

template <int MODE> static sl_status nfp_run(const sl_args *a, norm_fwd_geo g, int iw, const char *op)
{
    unsigned C;
    uint32_t nvec, cv;
    const int nin = MODE == NORM_ADD_RMS ? 2 : 1;
    if (!nfp_plan<MODE>(a, &C, &nvec, &cv))
        return sl_fail(SL_ERR_UNSUPPORTED,
                       "%s bulk_pf stages a row in shared memory by bulk copies, two rows a block in turn (sm_90): "
                       "it needs every buffer 16-byte aligned, cols and ld multiples of %zu elements and a row of at "
                       "most %u bytes%s (%llu columns of %zu bytes); the aligned or block rung runs the others",
                       op, 16 / sl_dtype_size(a->dtype), 8u * NFP_STAGEV / nin * 16u,
                       nin == 2 ? " of x and of res" : "", (unsigned long long)a->shape.cols,
                       sl_dtype_size(a->dtype));
    const sl_dtype dt = a->dtype, wt = norm_wdtype(a, iw);
    sl_status st = nfp_prepare<MODE>(dt, wt);
    if (st != SL_OK)
        return st;
    const void *fn = nfp_fn<MODE>(dt, wt);
    uint64_t P = nfp_resident<MODE>(fn, nfb_pair(dt, wt), C);
    const char *cap = getenv("SL_NORM_FWD_PF_CLUSTERS"); /* the tests' hook: many rows a cluster */
    if (cap && atoi(cap) > 0 && (uint64_t)atoi(cap) < P)
        P = (uint64_t)atoi(cap);
    if (P > a->shape.rows)
        P = a->shape.rows;
    void *params[] = {&g, &nvec, &cv, &C};
    const size_t stage = (size_t)((cv + 7u) & ~7u) * 16 * nin; /* the kernel's sv x 16 bytes */
    return sl_cuda_row_launch_smem(fn, P * C, NFB_BLOCK, C, 2 * stage, params, a->stream);
}

template <int MODE> static sl_status nfp_attrs(sl_dtype dt, sl_kernel_attrs *out)
{
    sl_status st = nfp_prepare<MODE>(dt, dt);
    return st != SL_OK ? st
                       : sl_cuda_kernel_attrs(nfp_fn<MODE>(dt, dt), NFB_BLOCK, (size_t)2 * NFP_STAGEV * 16, out);
}

#endif /* SL_NORM_FWD_BULK_PF_CUH */
