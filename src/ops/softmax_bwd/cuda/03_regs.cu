/*
 * softmax backward rung 3 (ours): the row in registers, read once. A row's
 * y and dy are split over a team: one warp (rows of up to 32 x 16 = 512
 * slots; 4 rows per 128-thread block, or one
 * per 32-thread block when the rows would leave SMs idle), one block of
 * up to 256 threads, or a thread block cluster of C = 2..8 blocks of 256
 * to 1024 threads (up to 8192 threads: 2^17 element slots)
 * whose blocks add their partial sums through distributed shared memory
 * (CUDA C++ Programming Guide, "Distributed Shared Memory"; sm_90). Each
 * thread issues its EPT = 16 elements' 16-byte loads of y and of dy at
 * once (NV = 4 vectors each in f32, 2 in bf16 / f16; vector k of thread t
 * is k T + t: coalesced), keeps them packed as loaded (32 or 16
 * registers), forms its share of s = sum y dy, and after the team's sum
 * writes dx = y (dy - s) from the registers. Safe in place (dx = dy or
 * dx = y): every element of a row is read before the team's barrier, and
 * written after it.
 *
 * Change from rung 2: y and dy are read once (the useful 3 N x size per
 * row), and short rows are a warp's work (no block barrier). Rows are
 * spread over 256-thread blocks while they are long enough, so that
 * several blocks share an SM and one's loads overlap another's stores.
 * Expectation: ~0.95-1.0 of the copy's bandwidth at DRAM shapes up to
 * 2^14 columns; for 2^17 columns the cluster barrier between the load and
 * the store phases idles an SM unless another cluster's blocks are
 * resident beside it (f32: 1024-thread blocks, one per SM): below the
 * copy there, by the barrier's share of a block's time.
 */
#include "sbwd.cuh"

#include <cooperative_groups.h>

namespace cg = cooperative_groups;

enum { RB_EPT = SL_SOFTMAX_BWD_REGS_EPT };

#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ == 900 || __CUDA_ARCH__ == 1000)
#define SBWD_MAX_BLOCKS_PER_SM 32
#else
#define SBWD_MAX_BLOCKS_PER_SM 16
#endif
#define SBWD_MIN_BLOCKS(B) (1024 / (B) < SBWD_MAX_BLOCKS_PER_SM ? 1024 / (B) : SBWD_MAX_BLOCKS_PER_SM)

/* The team's sum: a warp butterfly (TPR = 32), or a block fold, then with
 * a cluster (C > 1, sm_90+) one exchange: each block's sum in its shared
 * cl_s, a cluster barrier, every block adding the C sums in rank order
 * (the same bits in each), then arriving at a second cluster barrier that
 * sbwd_leave waits on before the block exits (its shared memory must
 * outlive the others' reads). */
template <int BLOCK, int TPR>
static __device__ __forceinline__ float sbwd_team_sum(float s, unsigned C, float *red, float *cl_s)
{
    if (TPR == 32)
        return smx_warp<smx_sum_op>(s);
    s = smx_block<BLOCK, smx_sum_op>(s, red);
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    if (C > 1) {
        cg::cluster_group cl = cg::this_cluster();
        if (threadIdx.x == 0)
            *cl_s = s;
        cl.sync();
        float t = 0.0f;
        for (unsigned r = 0; r < C; r++)
            t += *cl.map_shared_rank(cl_s, r);
        asm volatile("barrier.cluster.arrive.release.aligned;\n" ::: "memory");
        return t;
    }
#else
    (void)C, (void)cl_s;
#endif
    return s;
}

template <int TPR> static __device__ __forceinline__ void sbwd_leave(unsigned C)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    if (TPR != 32 && C > 1)
        asm volatile("barrier.cluster.wait.acquire.aligned;\n" ::: "memory");
#else
    (void)C;
#endif
}

template <int BLOCK, int TPR, int DT>
static __global__ void __launch_bounds__(BLOCK, SBWD_MIN_BLOCKS(BLOCK)) sbwd_regs(sbwd_geo g, unsigned C)
{
    __shared__ float red[BLOCK / 32];
    __shared__ float cl_s;
    uint64_t row;
    uint32_t t, rank;
    if (TPR == 32) {
        row = (uint64_t)blockIdx.x * (BLOCK / 32) + (threadIdx.x >> 5);
        t = threadIdx.x & 31;
        rank = 0;
        if (row >= g.rows)
            return; /* a whole warp: warp teams have no block barrier */
    } else {
        row = blockIdx.x / C;
        rank = blockIdx.x % C;
        t = threadIdx.x;
    }
    enum { RB_NV = RB_EPT / smx_vec<DT>::VE };
    const sbwd_rowv w = sbwd_rowv_of<DT>(g, row);
    const uint32_t v0 = rank * TPR * RB_NV + t;
    uint4 a[RB_NV], b[RB_NV];
#pragma unroll
    for (int k = 0; k < RB_NV; k++) {
        const uint32_t v = v0 + k * TPR;
        a[k] = v < w.nvv ? sbwd_loadraw<DT>(w, w.y0, v) : make_uint4(0, 0, 0, 0);
        b[k] = v < w.nvv ? sbwd_loadraw<DT>(w, w.g0, v) : make_uint4(0, 0, 0, 0);
    }
    float s = 0.0f;
#pragma unroll
    for (int k = 0; k < RB_NV; k++)
        s += sbwd_dot<DT>(a[k], b[k]);
    s = sbwd_team_sum<BLOCK, TPR>(s, C, red, &cl_s);
#pragma unroll
    for (int k = 0; k < RB_NV; k++)
        if (v0 + k * TPR < w.nvv)
            sbwd_store<DT>(w, v0 + k * TPR, a[k], b[k], s);
    sbwd_leave<TPR>(C);
}

template <int BLOCK, int TPR> static const void *rb_fn(sl_dtype dt)
{
    return dt == SL_F32    ? (const void *)sbwd_regs<BLOCK, TPR, SL_F32>
           : dt == SL_BF16 ? (const void *)sbwd_regs<BLOCK, TPR, SL_BF16>
                           : (const void *)sbwd_regs<BLOCK, TPR, SL_F16>;
}

int sl_cuda_row_sms(void)
{
    static int sms[SL_MAX_DEVICES];
    int dev = 0;
    if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= SL_MAX_DEVICES)
        return 132;
    if (!sms[dev] && cudaDeviceGetAttribute(&sms[dev], cudaDevAttrMultiProcessorCount, dev) != cudaSuccess)
        sms[dev] = 132;
    return sms[dev];
}

bool sl_cuda_row_clusters(void)
{
    static int cc[SL_MAX_DEVICES];
    int dev = 0;
    if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= SL_MAX_DEVICES)
        return false;
    if (!cc[dev] && cudaDeviceGetAttribute(&cc[dev], cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess)
        cc[dev] = 1;
    return cc[dev] >= 9;
}

sl_status sl_cuda_row_launch(const void *fn, uint64_t blocks, int block, unsigned C, void **params, void *stream)
{
    return sl_cuda_row_launch_smem(fn, blocks, block, C, 0, params, stream);
}

/* The launch configuration of `blocks` blocks in clusters of C (C > 1);
 * attr: the caller's, one entry, alive as long as cfg. */
static cudaLaunchConfig_t row_cfg(uint64_t blocks, int block, unsigned C, size_t smem, void *stream,
                                  cudaLaunchAttribute *attr)
{
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3((unsigned)blocks);
    cfg.blockDim = dim3((unsigned)block);
    cfg.dynamicSmemBytes = smem;
    cfg.stream = (cudaStream_t)stream;
    if (C > 1) {
        *attr = cudaLaunchAttribute{};
        attr->id = cudaLaunchAttributeClusterDimension;
        attr->val.clusterDim.x = C;
        attr->val.clusterDim.y = 1;
        attr->val.clusterDim.z = 1;
        cfg.attrs = attr;
        cfg.numAttrs = 1;
    }
    return cfg;
}

sl_status sl_cuda_row_launch_smem(const void *fn, uint64_t blocks, int block, unsigned C, size_t smem, void **params,
                                  void *stream)
{
    cudaLaunchAttribute attr;
    const cudaLaunchConfig_t cfg = row_cfg(blocks, block, C, smem, stream, &attr);
    SL_CUDA_TRY(cudaLaunchKernelExC(&cfg, fn, params));
    SL_CUDA_LAUNCHED();
    return SL_OK;
}

bool sl_cuda_row_cluster_ok(const void *fn, int block, unsigned C, size_t smem, int *state)
{
    int dev = 0;
    if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= SL_MAX_DEVICES)
        return false;
    int v = __atomic_load_n(&state[dev], __ATOMIC_RELAXED);
    if (v == 0) {
        cudaLaunchAttribute attr;
        const cudaLaunchConfig_t cfg = row_cfg(C, block, C, smem, NULL, &attr);
        int n = 0;
        const bool ok = (C <= 8 || cudaFuncSetAttribute(fn, cudaFuncAttributeNonPortableClusterSizeAllowed, 1) ==
                                       cudaSuccess) &&
                        cudaOccupancyMaxActiveClusters(&n, fn, &cfg) == cudaSuccess && n > 0;
        if (!ok)
            (void)cudaGetLastError(); /* a refusal is an answer, not an error to report later */
        v = ok ? 1 : 2;
        __atomic_store_n(&state[dev], v, __ATOMIC_RELAXED);
    }
    return v == 1;
}

sl_status sl_cuda_row_smem_allow(const void *fn, int bytes, int *ready)
{
    return sl_cuda_func_attr_once(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes, ready);
}

bool sl_cuda_row_chunks(uint64_t nv, uint64_t maxv, uint64_t rows, unsigned *C, uint32_t *cv)
{
    unsigned c = 1;
    while (c < 8 && (nv + c - 1) / c > maxv)
        c *= 2;
    const uint64_t per = (nv + c - 1) / c;
    if (per > maxv || rows * c > 0x7fffffffu)
        return false;
    *C = c;
    *cv = (uint32_t)per;
    return true;
}

/* The team for rows of `need` element slots a row (the row's vectors,
 * misalignment included): a warp up to 32 x EPT, else threads = the
 * power of two >= need / EPT (at least 64), one block up to 256, else a
 * cluster of C = threads / 256 blocks of 256 (C <= 8), then blocks of 512
 * and 1024. false: longer than 8192 threads x EPT slots. */
static bool rb_choose(sl_dtype dt, uint64_t rows, uint64_t need, sbwd_cfg *c)
{
    c->c = 1;
    if (need <= 32 * RB_EPT) {
        const bool few = rows < 4 * (uint64_t)sl_cuda_row_sms();
        c->tpr = 32;
        c->block = few ? 32 : 128;
        c->fn = few ? rb_fn<32, 32>(dt) : rb_fn<128, 32>(dt);
        return true;
    }
    uint64_t threads = 64;
    while (threads * RB_EPT < need)
        threads *= 2;
    if (threads > SL_SOFTMAX_BWD_MAX_THREADS)
        return false;
    uint64_t block = threads <= 256 ? threads : threads / 8 > 256 ? threads / 8 : 256;
    c->c = (unsigned)(threads / block);
    c->block = c->tpr = (int)block;
    switch (block) {
    case 64: c->fn = rb_fn<64, 64>(dt); break;
    case 128: c->fn = rb_fn<128, 128>(dt); break;
    case 256: c->fn = rb_fn<256, 256>(dt); break;
    case 512: c->fn = rb_fn<512, 512>(dt); break;
    case 1024: c->fn = rb_fn<1024, 1024>(dt); break;
    default: return false;
    }
    return true;
}

bool sl_cuda_softmax_bwd_regs_fits(const sl_args *a, sbwd_cfg *c)
{
    if (!sbwd_aligned(a))
        return false;
    const size_t es = sl_dtype_size(a->dtype), ve = 16 / es;
    const uint64_t ld = a->shape.ld ? a->shape.ld : a->shape.cols;
    /* every row at one offset: that offset; else the worst, ve - 1 */
    const uint64_t o = (ld * es) % 16 == 0 ? ((uintptr_t)a->buf[0] & 15u) / es : ve - 1;
    const uint64_t need = (a->shape.cols + o + ve - 1) / ve * ve;
    if (!rb_choose(a->dtype, a->shape.rows, need, c))
        return false;
    if (c->c > 1 && !sl_cuda_row_clusters())
        return false;
    const uint64_t blocks =
        c->tpr == 32 ? (a->shape.rows + c->block / 32 - 1) / (c->block / 32) : a->shape.rows * c->c;
    return blocks <= 0x7fffffffu;
}

sl_status sl_cuda_softmax_bwd_regs_run(const sl_args *a, const sbwd_cfg *c)
{
    sbwd_geo g = sbwd_geo_of(a);
    unsigned cl = c->c;
    void *params[] = {&g, &cl};
    const uint64_t blocks =
        c->tpr == 32 ? (a->shape.rows + c->block / 32 - 1) / (c->block / 32) : a->shape.rows * c->c;
    return sl_cuda_row_launch(c->fn, blocks, c->block, c->c, params, a->stream);
}

extern "C" sl_status sl_cuda_softmax_bwd_regs(const sl_args *a)
{
    sl_status st = sbwd_check(a, "regs");
    if (st != SL_OK || a->shape.rows == 0 || a->shape.cols == 0)
        return st;
    sbwd_cfg c;
    if (!sl_cuda_softmax_bwd_regs_fits(a, &c))
        return sl_fail(SL_ERR_UNSUPPORTED,
                       "regs holds a row in a cluster's registers: %llu columns (y, dy, dx %s modulo 16 bytes) do "
                       "not fit; at most %llu",
                       (unsigned long long)a->shape.cols, sbwd_aligned(a) ? "aligned" : "at different offsets",
                       (unsigned long long)(SL_SOFTMAX_BWD_MAX_THREADS * RB_EPT -
                                            (16 / sl_dtype_size(a->dtype) - 1)));
    return sl_cuda_softmax_bwd_regs_run(a, &c);
}

/* The resources of the 256-thread block configuration. */
extern "C" sl_status sl_cuda_softmax_bwd_regs_attrs(sl_dtype dt, sl_kernel_attrs *out)
{
    return sl_cuda_kernel_attrs(rb_fn<256, 256>(dt), 256, 0, out);
}
