/*
 * norm.cuh - what the CUDA rungs of the norms (rmsnorm, its backward;
 * issue 32) add to the row building blocks of row.cuh: a row's 16-byte
 * vectors kept raw in registers (loaded once, widened when used), the
 * weight's elements for a vector (16-byte loads where the weight shares
 * the row's offset, else element by element), the sum over a team of
 * threads (a warp, a block, or a cluster of blocks through distributed
 * shared memory), the per-device SM count and cluster support, and the
 * dtype dispatch over (x dtype, w dtype) pairs.
 *
 * Teams: TEAM = 32 is a warp per row (BLOCK / 32 rows per block: the
 * "several rows per block" of short rows); TEAM = 0 is a block per row, or
 * with CL > 1 a cluster of CL blocks per row (sm_90+), each block holding
 * a slice. A team's threads own the row's virtual vectors (row.cuh)
 * t, t + T, t + 2T, ... (T the team's threads), VPT of them each.
 *
 * Every reduction adds in a fixed order (butterfly, then the warps' sums
 * in warp order, then the cluster's blocks in rank order), so a result is
 * the same bits run to run, and every block of a cluster gets the same
 * bits.
 */
#ifndef SL_NORM_CUH
#define SL_NORM_CUH

#include "row.cuh"

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#include <cooperative_groups.h>
#endif

/* Storage type DT's raw element and its elements per 16-byte vector. */
#define NORM_VE(DT) (16 / (int)sizeof(typename sl_dt<DT>::raw))

/* Virtual vector v of a row (x0: the 16-byte boundary at or before the
 * row's first element, o its offset in elements, n the row's length), raw:
 * interior vectors one 16-byte load, edge vectors masked element by element
 * with 0 (raw 0 is +0 in every float format, adding nothing to a sum). */
template <int DT>
static __device__ __forceinline__ uint4 norm_ldraw(const char *x0, uint32_t o, uint64_t n, uint64_t v)
{
    typedef typename sl_dt<DT>::raw R;
    const int VE = NORM_VE(DT);
    const int64_t c0 = (int64_t)(v * VE) - (int64_t)o;
    if (c0 >= 0 && (uint64_t)c0 + VE <= n)
        return *(const uint4 *)(x0 + 16 * v);
    union {
        uint4 u;
        R r[VE];
    } b;
    const R *p = (const R *)(x0 + 16 * v);
#pragma unroll
    for (int k = 0; k < VE; k++) {
        const int64_t c = c0 + k;
        b.r[k] = c >= 0 && (uint64_t)c < n ? p[k] : (R)0;
    }
    return b.u;
}

/* Element k of a raw vector, widened to f32. */
template <int DT> static __device__ __forceinline__ float norm_el(const uint4 &u, int k)
{
    typedef typename sl_dt<DT>::raw R;
    union {
        uint4 u;
        R r[NORM_VE(DT)];
    } b;
    b.u = u;
    return sl_dt<DT>::load(b.r[k]);
}

/* Store f[0..VE) into virtual vector v of the row at y0 (masked at the
 * edges): row.cuh's smx_storev. */
template <int DT>
static __device__ __forceinline__ void norm_stv(char *y0, uint32_t o, uint64_t n, uint64_t v, const float *f)
{
    const smx_rowv w = {NULL, y0, o, n, 0};
    smx_storev<DT>(w, v, f);
}

/* A thread's VPT virtual vectors t, t + T, ... of the row at x0 (0 past
 * the row's nvv vectors). */
template <int DT, int VPT>
static __device__ __forceinline__ void norm_ldrow(const char *x0, uint32_t o, uint64_t n, uint64_t nvv, unsigned t,
                                                  unsigned T, uint4 *v)
{
#pragma unroll
    for (int i = 0; i < VPT; i++) {
        const uint64_t vi = t + (uint64_t)i * T;
        v[i] = vi < nvv ? norm_ldraw<DT>(x0, o, n, vi) : make_uint4(0u, 0u, 0u, 0u);
    }
}

/* The VE weights (storage WT) of one row vector of DT, held as VE / WVE
 * raw 16-byte vectors u, widened to f32. */
template <int DT, int WT> static __device__ __forceinline__ void norm_w_widen(const uint4 *u, float *f)
{
    typedef typename sl_dt<WT>::raw WR;
    const int VE = NORM_VE(DT), WVE = NORM_VE(WT);
#pragma unroll
    for (int h = 0; h < VE / WVE; h++) {
        union {
            uint4 u;
            WR r[WVE];
        } b;
        b.u = u[h];
#pragma unroll
        for (int k = 0; k < WVE; k++)
            f[h * WVE + k] = sl_dt<WT>::load(b.r[k]);
    }
}

/* The weight (storage WT) for the VE columns c0 .. c0 + VE - 1 of virtual
 * vector v (VE of the row's dtype DT): 16-byte loads when wvec (the weight
 * at column c0 is 16-byte aligned for every interior vector: w - o lies on
 * a boundary) and the vector is interior, else element by element (0
 * outside the row). The weight is read by every row: it stays in L1 / L2,
 * so these loads cost instructions, not DRAM bytes. */
template <int DT, int WT>
static __device__ __forceinline__ void norm_ldw(const void *w, bool wvec, uint32_t o, uint64_t n, uint64_t v, float *f)
{
    typedef typename sl_dt<WT>::raw WR;
    const int VE = NORM_VE(DT), WVE = NORM_VE(WT);
    const int64_t c0 = (int64_t)(v * VE) - (int64_t)o;
    const WR *p = (const WR *)w;
    if (wvec && c0 >= 0 && (uint64_t)c0 + VE <= n) {
        /* each load widened as it lands (not through norm_w_widen, whose
         * order changes ptxas's schedule of 29 existing kernels) */
#pragma unroll
        for (int h = 0; h < VE / WVE; h++) {
            union {
                uint4 u;
                WR r[WVE];
            } b;
            b.u = __ldg((const uint4 *)(p + c0) + h);
#pragma unroll
            for (int k = 0; k < WVE; k++)
                f[h * WVE + k] = sl_dt<WT>::load(b.r[k]);
        }
        return;
    }
#pragma unroll
    for (int k = 0; k < VE; k++) {
        const int64_t c = c0 + k;
        f[k] = c >= 0 && (uint64_t)c < n ? sl_dt<WT>::load(p[c]) : 0.0f;
    }
}

/* Whether the weight can take 16-byte loads for a row at offset o. */
template <int WT> static __device__ __forceinline__ bool norm_wvec(const void *w, uint32_t o)
{
    return (((uintptr_t)w - (uintptr_t)o * sizeof(typename sl_dt<WT>::raw)) & 15u) == 0;
}

/* The sum of v over a team. TEAM = 32: the warp (every lane gets it).
 * TEAM = 0: the block (red: BLOCK / 32 floats of shared memory), then with
 * CL > 1 the cluster's blocks (cl: one float of shared memory per block),
 * in rank order; two cluster barriers, so that no block reuses or frees
 * its slot while another reads it. */
template <int BLOCK, int TEAM, int CL>
static __device__ __forceinline__ float norm_team_sum(float v, float *red, float *cl)
{
    if (TEAM == 32)
        return smx_warp<smx_sum_op>(v);
    v = smx_block<BLOCK, smx_sum_op>(v, red); /* row.cuh: warps in order; red free again on return */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    if (CL > 1) {
        cooperative_groups::cluster_group g = cooperative_groups::this_cluster();
        if (threadIdx.x == 0)
            *cl = v;
        g.sync();
        v = 0.0f;
#pragma unroll
        for (int r = 0; r < CL; r++)
            v += *g.map_shared_rank(cl, r);
        g.sync();
    }
#else
    (void)cl;
#endif
    return v;
}

/* The team's rank in the cluster (0 without one). */
template <int CL> static __device__ __forceinline__ unsigned norm_cl_rank()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    if (CL > 1)
        return cooperative_groups::this_cluster().block_rank();
#endif
    return 0;
}

/* ---- host side -------------------------------------------------------------- */

/* The current device's SMs and whether it runs clusters (sm_90+), cached
 * per device. */
static inline int norm_sms(void)
{
    static int sms[SL_MAX_DEVICES];
    int dev = 0;
    if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= SL_MAX_DEVICES)
        return 132;
    if (!sms[dev] && cudaDeviceGetAttribute(&sms[dev], cudaDevAttrMultiProcessorCount, dev) != cudaSuccess)
        sms[dev] = 132;
    return sms[dev];
}

static inline bool norm_clusters(void)
{
    static int cc[SL_MAX_DEVICES];
    int dev = 0;
    if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= SL_MAX_DEVICES)
        return false;
    if (!cc[dev] && cudaDeviceGetAttribute(&cc[dev], cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess)
        cc[dev] = 1;
    return cc[dev] >= 9;
}

/* Launch fn on grid x block with a cluster of cl blocks (1: none). */
static inline sl_status norm_launch(const void *fn, unsigned grid, unsigned block, unsigned cl, void **params,
                                    void *stream)
{
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(grid);
    cfg.blockDim = dim3(block);
    cfg.stream = (cudaStream_t)stream;
    cudaLaunchAttribute attr[1] = {};
    if (cl > 1) {
        attr[0].id = cudaLaunchAttributeClusterDimension;
        attr[0].val.clusterDim.x = cl;
        attr[0].val.clusterDim.y = 1;
        attr[0].val.clusterDim.z = 1;
        cfg.attrs = attr;
        cfg.numAttrs = 1;
    }
    SL_CUDA_TRY(cudaLaunchKernelExC(&cfg, fn, params));
    SL_CUDA_LAUNCHED();
    return SL_OK;
}

/* The weight's dtype for a launch: f32 where the public function said so
 * (sl_args.f32_bufs, bit wbuf), else the rows'. */
static inline sl_dtype norm_wdtype(const sl_args *a, int wbuf)
{
    return ((a->f32_bufs >> wbuf) & 1u) ? SL_F32 : a->dtype;
}

/* Run FN<DT, WT>::run(args...) for the launch's (x dtype, w dtype). */
#define NORM_DISPATCH(dt, wt, FN, ...)                                                                         \
    ((dt) == SL_F32                      ? FN<SL_F32, SL_F32>::run(__VA_ARGS__)                                \
     : (dt) == SL_BF16 && (wt) == SL_F32 ? FN<SL_BF16, SL_F32>::run(__VA_ARGS__)                               \
     : (dt) == SL_BF16                   ? FN<SL_BF16, SL_BF16>::run(__VA_ARGS__)                              \
     : (wt) == SL_F32                    ? FN<SL_F16, SL_F32>::run(__VA_ARGS__)                                \
                                         : FN<SL_F16, SL_F16>::run(__VA_ARGS__))

#endif /* SL_NORM_CUH */
