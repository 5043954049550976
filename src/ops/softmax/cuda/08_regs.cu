/*
 * softmax rung 8 (ours): the row in registers, read once. A row is split
 * over a team of threads: one warp (rows of up to 1024 elements: shuffles
 * only, 4 rows per 128-thread block), one block (up to 4096), or a thread
 * block cluster of C = 2..8 blocks (up to 8 x 1024 x 32 = 2^18 elements)
 * that combine their blocks' max and sum through distributed shared memory
 * (CUDA C++ Programming Guide, "Thread Block Clusters" and "Distributed
 * Shared Memory"; sm_90). Each thread loads its EPT elements as EPT / VE
 * 16-byte vectors (coalesced: vector k of thread t is k T + t), all in
 * flight at once, keeps them in registers, and after the two reductions
 * (max, then sum of exp(x - m), each a warp butterfly and a block fold;
 * a cluster's blocks then exchange their (max, sum) once and merge them as
 * the online normaliser does) writes y from the registers. The row's misalignment and
 * tail are masked edge vectors (softmax.cuh), so any M, N >= 1 runs.
 *
 * Change from rung 7: x is read once (the copy's traffic, 2 N x size per
 * row), and short rows are a warp's work (no block barrier), long rows a
 * cluster's, so that M = 128 rows fill the 132 SMs with 2-8 blocks each.
 * Expectation: at the copy ceiling for DRAM-sized shapes (~4.2 TB/s);
 * for the seed shapes a read phase, two cluster barriers and a write
 * phase, each SM moving its share: 2^17 f32 x 128 rows = 128 MiB in ~32
 * us, against ~81 us for torch's one block per row.
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

template <int BLOCK, int TPR, int EPT, int DT>
static __global__ void __launch_bounds__(BLOCK, SMX_MIN_BLOCKS(BLOCK)) smx_regs(smx_geo g, unsigned C)
{
    const int VE = smx_vec<DT>::VE, NV = EPT / VE;
    __shared__ float red[BLOCK / 32];
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    __shared__ float cl_m, cl_s;
#endif
    uint64_t row;
    unsigned t, rank;
    if (TPR == 32) {
        row = (uint64_t)blockIdx.x * (BLOCK / 32) + (threadIdx.x >> 5);
        t = threadIdx.x & 31;
        rank = 0;
        if (row >= g.rows)
            return; /* a whole warp; warp mode has no block barrier */
    } else {
        row = blockIdx.x / C;
        rank = blockIdx.x % C;
        t = threadIdx.x;
    }
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
    float m = -CUDART_INF_F;
#pragma unroll
    for (int k = 0; k < NV; k++)
#pragma unroll
        for (int j = 0; j < VE; j++)
            m = fmaxf(m, f[k][j]);
    if (TPR == 32)
        m = smx_warp<smx_max_op>(m);
    else
        m = smx_block<BLOCK, smx_max_op>(m, red);
    /* m: the team's max (the row's without a cluster). ref = 0 stands in
     * for a team of -inf only (softmax.cuh, smx_ms), so that no
     * exp(-inf - -inf) appears before the merge. */
    const float ref = m == -CUDART_INF_F ? 0.0f : m;
    float s = 0.0f;
#pragma unroll
    for (int k = 0; k < NV; k++)
#pragma unroll
        for (int j = 0; j < VE; j++) {
            f[k][j] = smx_exp<DT>(f[k][j] - ref); /* a masked -inf gives 0 */
            s += f[k][j];
        }
    if (TPR == 32)
        s = smx_warp<smx_sum_op>(s);
    else
        s = smx_block<BLOCK, smx_sum_op>(s, red);
    float scale;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900 /* clusters: sm_90+; the host launches C > 1 only there */
    if (TPR != 32 && C > 1) {
        /* One exchange: each block's (max, sum) through distributed shared
         * memory, merged in rank order by every block (the same bits in
         * each), then y = e exp(m_b - M) / S. */
        cg::cluster_group cl = cg::this_cluster();
        if (threadIdx.x == 0) {
            cl_m = m;
            cl_s = s;
        }
        cl.sync();
        smx_ms row = {-CUDART_INF_F, 0.0f, 0.0f};
        for (unsigned r = 0; r < C; r++) {
            const smx_ms b = {*cl.map_shared_rank(&cl_m, r), *cl.map_shared_rank(&cl_s, r), 0.0f};
            row = smx_ms_merge(row, b);
        }
        /* done reading the others' cl_m / cl_s: arrive now, wait before
         * leaving (a block's shared memory must outlive the reads) */
        asm volatile("barrier.cluster.arrive.release.aligned;\n" ::: "memory");
        scale = row.m == -CUDART_INF_F ? CUDART_NAN_F : m == -CUDART_INF_F ? 0.0f : expf(m - row.m) / row.s;
    } else
#endif
    {
        /* a row of -inf only: NaN, as the formula (-inf - -inf) gives */
        scale = m == -CUDART_INF_F ? CUDART_NAN_F : 1.0f / s;
    }
#pragma unroll
    for (int k = 0; k < NV; k++) {
        if (v0 + (uint64_t)k * TPR < w.nvv) {
#pragma unroll
            for (int j = 0; j < VE; j++)
                f[k][j] *= scale;
            smx_storev<DT>(w, v0 + (uint64_t)k * TPR, f[k]);
        }
    }
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    if (TPR != 32 && C > 1)
        asm volatile("barrier.cluster.wait.acquire.aligned;\n" ::: "memory");
#endif
}

template <int BLOCK, int TPR, int EPT> struct regs_pick {
    template <int DT> static const void *fn() { return (const void *)smx_regs<BLOCK, TPR, EPT, DT>; }
};

template <int BLOCK, int TPR, int EPT> static const void *regs_fn(sl_dtype dt)
{
    return dt == SL_F32    ? regs_pick<BLOCK, TPR, EPT>::template fn<SL_F32>()
           : dt == SL_BF16 ? regs_pick<BLOCK, TPR, EPT>::template fn<SL_BF16>()
                           : regs_pick<BLOCK, TPR, EPT>::template fn<SL_F16>();
}

/* The team for a row of `need` element slots (cols plus the largest
 * misalignment): a warp up to 1024 (one or four per block), a block of
 * 128 threads up to 2048;
 * then 32 elements a thread. spread = false (rung regs): one block per row
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
    uint64_t threads = 128; /* per row, EPT = 32 */
    while (threads * 32 < need)
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
    c->ept = 32;
    c->c = cl;
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
