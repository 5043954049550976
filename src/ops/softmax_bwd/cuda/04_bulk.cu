/*
 * softmax backward rung 4 (ours): the row's y and dy staged in shared
 * memory by the bulk-copy engine (cp.async.bulk, sm_90; bulk_copy.cuh),
 * read once from DRAM. A row is cut into C = 1, 2, 4 or 8 equal chunks of
 * at most 36 KiB of y and 36 KiB of dy (the fewest that fit), one block of
 * 512 threads a chunk, the C blocks of a row one thread block cluster.
 * Thread 0 issues the chunk's loads (16 KiB a copy) on one mbarrier; the
 * block forms its share of s = sum y dy from shared memory, the cluster's
 * blocks exchange their sums once through distributed shared memory
 * (thread 0 adds the C sums in rank order: the same bits in every block),
 * and a second pass writes dx = y (dy - s) with 16-byte st.global. Safe in
 * place (dx = dy or dx = y): a block writes only its own chunk, after all
 * of it has landed.
 *
 * Change from rung 3 (regs): regs held 16 elements of y and of dy a thread
 * in registers, so that at 2^17 columns a row took 8 blocks of 1024
 * threads, one block an SM, and an SM's load, barrier and store phases
 * ran one after the other (bf16 0.64-0.67 of the copy, docs/ladder.md).
 * Here the data costs no registers: an SM holds three blocks (3 x 72 KiB,
 * 3 x 512 threads), each in its own phase.
 * Limits: y, dy and dx 16-byte aligned, rows a whole number of 16-byte
 * vectors (cols x size and ld x size multiples of 16), at most 8 x 36 KiB
 * of each input a row (2^17 + 2^14 bf16 columns, 2^16 + 2^13 f32), sm_90;
 * else SL_ERR_UNSUPPORTED.
 * Expectation (written before the first run): the op's bytes (3 N x size
 * a row) at about the copy's bandwidth: ~0.95-1.0 of the copy kernel at
 * 16384 x 2^17 and 4096 x 2^15 bf16.
 */
#include "bulk_copy.cuh"
#include "sbwd_bulk.cuh"

#include <cooperative_groups.h>

namespace cg = cooperative_groups;

enum {
    SK_BLOCK = 512, /* chunks of up to SK_MAXV vectors of each input (sbwd.cuh): 2 x 36 KiB */
    SK_PIECE = 1024 /* vectors a bulk copy: 16 KiB */
};

/* Three 512-thread blocks an SM on sm_90 (2048 threads); the other
 * architectures this file is compiled for (the kernel body is sm_90 only)
 * get no bound: sm_75 runs 1024 threads an SM and ptxas refuses 1536. */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define BULK_MIN_BLOCKS 3
#else
#define BULK_MIN_BLOCKS 1
#endif

template <int DT>
static __global__ void __launch_bounds__(SK_BLOCK, BULK_MIN_BLOCKS) sbwd_bulk(sbwd_geo g, uint32_t nvec, uint32_t cv, unsigned C)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    typedef typename sl_dt<DT>::raw R;
    const int VE = smx_vec<DT>::VE;
    extern __shared__ __align__(128) uint4 sm[]; /* y in [0, cv), dy in [cv, 2 cv) */
    __shared__ float red[32];
    __shared__ float cl, fin;
    __shared__ __align__(8) uint64_t bar;
    const uint64_t row = blockIdx.x / C;
    const uint32_t rank = blockIdx.x % C, v0 = rank * cv;
    const uint32_t cnt = v0 < nvec ? min(cv, nvec - v0) : 0u;
    const uint64_t off = row * g.ld * sizeof(R) + 16 * (uint64_t)v0;
    if (threadIdx.x == 0) {
        mbar_init(&bar, 1);
        mbar_arrive_expect(&bar, 2u * cnt * 16u);
        for (uint32_t p = 0; p < cnt; p += SK_PIECE) {
            const uint32_t b = 16u * min((uint32_t)SK_PIECE, cnt - p);
            bulk_load(sm + p, (const char *)g.y + off + 16 * (uint64_t)p, b, &bar);
            bulk_load(sm + cv + p, (const char *)g.g + off + 16 * (uint64_t)p, b, &bar);
        }
    }
    __syncthreads(); /* the barrier is initialised before anyone waits on it */
    mbar_wait(&bar, 0);
    float s = 0.0f;
#pragma unroll 4
    for (uint32_t j = threadIdx.x; j < cnt; j += SK_BLOCK)
        s += sbwd_dot<DT>(sm[j], sm[cv + j]);
    s = smx_block<SK_BLOCK, smx_sum_op>(s, red);
    if (C > 1) {
        cg::cluster_group clg = cg::this_cluster();
        if (threadIdx.x == 0)
            cl = s;
        clg.sync();
        if (threadIdx.x == 0) {
            float t = 0.0f;
            for (unsigned q = 0; q < C; q++)
                t += *clg.map_shared_rank(&cl, q);
            fin = t;
        }
        __syncthreads();
        /* done reading the others' sums; waited on before exit */
        asm volatile("barrier.cluster.arrive.release.aligned;\n" ::: "memory");
        s = fin;
    }
    char *dr = (char *)g.d + off;
#pragma unroll 4
    for (uint32_t j = threadIdx.x; j < cnt; j += SK_BLOCK) {
        const uint4 y = sm[j], d = sm[cv + j];
        float f[VE];
#pragma unroll
        for (int k = 0; k < VE; k++)
            f[k] = sbwd_el<DT>(y, k) * (sbwd_el<DT>(d, k) - s);
        *(uint4 *)(dr + 16 * (uint64_t)j) = sbwd_pack<DT>(f);
    }
    if (C > 1)
        asm volatile("barrier.cluster.wait.acquire.aligned;\n" ::: "memory");
#else
    /* the launcher runs this rung only on sm_90 and later */
    (void)g, (void)nvec, (void)cv, (void)C;
    __trap();
#endif
}

static const void *sk_fn(sl_dtype dt)
{
    return dt == SL_F32    ? (const void *)sbwd_bulk<SL_F32>
           : dt == SL_BF16 ? (const void *)sbwd_bulk<SL_BF16>
                           : (const void *)sbwd_bulk<SL_F16>;
}

/* The chunking of a's rows (sbwd_bulk.cuh): the fewest chunks of at most
 * SK_MAXV vectors; false where the rung does not apply. */
static bool sk_plan(const sl_args *a, unsigned *C, uint32_t *nvec, uint32_t *cv)
{
    return sbwd_bulk_plan(a, SK_MAXV, SK_MAXV, false, 0, C, nvec, cv);
}

/* Once per device and dtype: allow 2 x SK_MAXV x 16 bytes of dynamic
 * shared memory (above the default 48 KiB). */
static sl_status sk_prepare(sl_dtype dt)
{
    static int ready[3][SL_MAX_DEVICES];
    return sbwd_bulk_prepare(sk_fn(dt), dt, SK_MAXV, ready);
}

/* The sm_90 code for this dtype was loaded (sbwd_bulk_code). */
static sl_status sk_code(sl_dtype dt)
{
    static int cache[3][SL_MAX_DEVICES];
    return sbwd_bulk_code(sk_fn(dt), dt, cache);
}

/* a checked by the caller (sbwd_check), rows and cols > 0. */
static sl_status sk_run(const sl_args *a)
{
    unsigned C;
    uint32_t nvec, cv;
    if (!sk_plan(a, &C, &nvec, &cv))
        return sbwd_bulk_refuse(a, "bulk", SK_MAXV);
    sl_status st = sk_code(a->dtype);
    if (st != SL_OK || (st = sk_prepare(a->dtype)) != SL_OK)
        return st;
    sbwd_geo g = sbwd_geo_of(a);
    void *params[] = {&g, &nvec, &cv, &C};
    return sl_cuda_row_launch_smem(sk_fn(a->dtype), a->shape.rows * C, SK_BLOCK, C, (size_t)cv * 32, params,
                                   a->stream);
}

extern "C" sl_status sl_cuda_softmax_bwd_bulk(const sl_args *a)
{
    sl_status st = sbwd_check(a, "bulk");
    if (st != SL_OK || a->shape.rows == 0 || a->shape.cols == 0)
        return st;
    return sk_run(a);
}

extern "C" sl_status sl_cuda_softmax_bwd_bulk_attrs(sl_dtype dt, sl_kernel_attrs *out)
{
    sl_status st = sk_prepare(dt);
    return st != SL_OK ? st : sl_cuda_kernel_attrs(sk_fn(dt), SK_BLOCK, (size_t)2 * SK_MAXV * 16, out);
}
