/*
 * softmax rung 9 (ours): the row staged in shared memory by the bulk-copy
 * engine (cp.async.bulk, sm_90; bulk_copy.cuh), read once from DRAM and
 * written once, as the bulk rungs of softmax_bwd and xent (04_bulk.cu
 * there) do. A row is cut into C = 1, 2, 4 or 8 chunks of at most 72 KiB,
 * one block of 512 threads a chunk, the C blocks of a row one thread
 * block cluster. Thread 0 issues the chunk's loads as 16 KiB pieces, each
 * completing on its own mbarrier, so that the block starts on piece 0
 * while the others land. One sweep over shared memory carries each
 * thread's online (max, sum) (Milakov and Gimelshein 2018: the running
 * sum rescaled when a piece raises the max, at most once a piece); the
 * block folds its 512 states through warp butterflies (one exp a thread
 * to rescale), the cluster's blocks exchange their (max, sum) once
 * through distributed shared memory (lanes 0..C-1 of warp 0 read one rank
 * each and fold them the same way in every block: the same bits), and a
 * second sweep writes y = exp(x - M) (1 / S) from shared memory with
 * 16-byte st.global. In place (y == x) is safe: a block writes only its
 * own chunk, after all of it has landed.
 *
 * Change from rung 8 (regs): regs holds a row in registers (32 elements a
 * thread under a 64-register cap, 64 packed for 16-bit many-row shapes),
 * so at 2^17 columns a row is a cluster of 8 blocks of 512-1024 threads
 * and an SM holds one row segment: its load, reduce, cluster-barrier and
 * store phases run one after the other (0.72 / 0.74 of the copy at
 * 16384 x 131072 f32 / bf16); at 128 rows x 2^15 one 1024-thread block a
 * row runs load -> reduce -> store on 128 of 132 SMs (0.58 / 0.47).
 * Bytes in flight: here the data costs no registers (the kernel is capped
 * at 40, three 512-thread blocks an SM). (a) Long rows: an SM holds three
 * chunks of up to 72 KiB, each block in its own phase, and one bulk copy
 * puts 16 KiB in flight from one instruction, so the loads requested per
 * SM go from regs' 128 KiB in the load phase only (then none while it
 * reduces and stores) to up to 216 KiB whenever one of its three blocks
 * is loading; Little's law needs ~50 KiB an SM (33 GB/s an SM x ~1.5 us).
 * (b) Few rows: a row is split until rows x C exceeds the SM count (C up
 * to 8, chunks of at least 16 KiB): 128 rows of 2^15 f32 become 256
 * blocks of 64 KiB, all loads of an SM (128 KiB) in flight at once from
 * four-odd instructions, the exp sweep hidden under the later pieces'
 * arrival, two blocks (32 warps) an SM for the exp work instead of one.
 *
 * Numerics: softmax.cuh's, with the online rescale: f32 uses the accurate
 * expf everywhere (the sum's terms, the rescales, the write pass); bf16 /
 * f16 use ex2.approx.ftz (smx_exp_ftz, as regs' packed kernel), the max
 * on packed pairs (HMNMX2). Each thread adds at most 9 vectors (36 f32 or
 * 72 16-bit terms) a chunk in order, a piece's terms first; the state is
 * rescaled at most once a piece (5 a chunk), once to the warp's max and
 * once to the row's: within the op's bound (16 + ln(1/|y|) + ln n) x
 * 2^-24 (test_gpu_softmax checks it on the wide rows). Special rows as
 * the formula: a NaN makes its row NaN (its term reaches S, the factor
 * of an all -inf thread state is 0 times S, which keeps a NaN), +inf
 * gives inf - inf = NaN, a row of -inf gives M = -inf and NaN.
 *
 * Limits: x and y 16-byte aligned, rows a whole number of 16-byte vectors
 * (cols x size and ld x size multiples of 16: cols a multiple of 4 in f32,
 * of 8 in bf16 / f16), at most 8 x 72 KiB a row (2^17 + 2^14 f32 columns,
 * 2^18 + 2^15 bf16 / f16), sm_90 with sm_90 code in the binary; anything
 * else is SL_ERR_UNSUPPORTED with the reason (the other rungs take it).
 * Expectation (written before the first run; docs/ladder.md, "Softmax
 * forward, seventh session"): 0.93-0.97 of the copy kernel at 16384 x
 * 131072 f32 and bf16 and at 4096 x 32768, 0.7-0.85 at 128 x 2^15, level
 * with regs at 128 x 2^12 and the decode rows (launch and latency bound).
 */
#include "bulk.cuh"
#include "sbwd.cuh"

#include <cooperative_groups.h>

namespace cg = cooperative_groups;

enum {
    SB_BLOCK = 512,
    SB_WARPS = SB_BLOCK / 32,
    SB_MAXV = 4608,  /* 16-byte vectors a chunk: 72 KiB, three blocks an SM (228 KiB) */
    SB_PIECE = 1024, /* vectors a bulk copy and an mbarrier: 16 KiB, two a thread */
    SB_PIECES = (SB_MAXV + SB_PIECE - 1) / SB_PIECE,
    SB_MINV = 1024   /* the smallest chunk the few-rows split makes: one piece */
};

/* Three 512-thread blocks an SM on sm_90 (2048 threads); the other
 * architectures this file is compiled for (the kernel body is sm_90 only)
 * get no bound: sm_75 runs 1024 threads an SM and ptxas refuses 1536. */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define SB_MIN_BLOCKS 3
#else
#define SB_MIN_BLOCKS 1
#endif

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900

/* exp for the dtype: the accurate expf for f32 (the op's bound counts its
 * 2 ulp), ex2.approx.ftz for 16-bit storage (below the output's rounding;
 * softmax.cuh). */
template <int DT> static __device__ __forceinline__ float sb_exp(float d)
{
    return DT == SL_F32 ? expf(d) : smx_exp_ftz(d);
}

/* The max of a state's m and the elements of two raw vectors (16-bit: on
 * packed pairs, one HMNMX2 a word, widened once). Never NaN: fmaxf skips
 * a NaN element and m is not NaN. */
template <int DT> static __device__ __forceinline__ float sb_vmax(float m, const uint4 &a, const uint4 &b)
{
    typedef typename sl_dt<DT>::raw R;
    if constexpr (sizeof(R) == 4) {
#pragma unroll
        for (int k = 0; k < 4; k++)
            m = fmaxf(m, fmaxf(sbwd_el<DT>(a, k), sbwd_el<DT>(b, k)));
        return m;
    } else {
        const uint32_t h = smx_hmax2<DT>(smx_hmax2<DT>(smx_hmax2<DT>(a.x, a.y), smx_hmax2<DT>(a.z, a.w)),
                                         smx_hmax2<DT>(smx_hmax2<DT>(b.x, b.y), smx_hmax2<DT>(b.z, b.w)));
        return fmaxf(m, fmaxf(sl_dt<DT>::load((R)(h & 0xffffu)), sl_dt<DT>::load((R)(h >> 16))));
    }
}

/* Fold the lanes' online states (m, s) over the warp: the warp's max M by
 * a butterfly, each s rescaled to it (a state of -inf only has factor 0,
 * so 0 stays 0 and a NaN stays NaN), then a butterfly sum. Every lane
 * gets the same bits (each level adds the same two values). */
template <int DT> static __device__ __forceinline__ void sb_warp_fold(float &m, float &s)
{
    float M = m;
#pragma unroll
    for (int o = 16; o > 0; o >>= 1)
        M = fmaxf(M, __shfl_xor_sync(0xffffffffu, M, o));
    s *= m == -CUDART_INF_F ? 0.0f : sb_exp<DT>(m - M);
#pragma unroll
    for (int o = 16; o > 0; o >>= 1)
        s += __shfl_xor_sync(0xffffffffu, s, o);
    m = M;
}

#endif

template <int DT>
static __global__ void __launch_bounds__(SB_BLOCK, SB_MIN_BLOCKS)
    smx_bulk(smx_geo g, uint32_t nvec, uint32_t cv, unsigned C)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    typedef typename sl_dt<DT>::raw R;
    const int VE = smx_vec<DT>::VE;
    extern __shared__ __align__(128) uint4 xs[];
    __shared__ float wm[SB_WARPS], ws[SB_WARPS];
    __shared__ float cl[2];  /* this block's (max, sum): read by the cluster */
    __shared__ float fin[2]; /* the row's (max, 1 / sum) */
    __shared__ __align__(8) uint64_t bar[SB_PIECES];
    const uint64_t row = blockIdx.x / C;
    const uint32_t rank = blockIdx.x % C, v0 = rank * cv;
    const uint32_t cnt = v0 < nvec ? min(cv, nvec - v0) : 0u;
    const uint32_t npc = (cnt + SB_PIECE - 1) / SB_PIECE;
    const uint32_t t = threadIdx.x, lane = t & 31, warp = t >> 5;
    const char *xr = (const char *)g.x + row * g.ld * sizeof(R) + 16 * (uint64_t)v0;
    char *yr = (char *)g.y + row * g.ld * sizeof(R) + 16 * (uint64_t)v0;
    if (t == 0) {
#pragma unroll
        for (uint32_t p = 0; p < SB_PIECES; p++)
            mbar_init(&bar[p], 1);
#pragma unroll
        for (uint32_t p = 0; p < SB_PIECES; p++) {
            if (p < npc) {
                const uint32_t b = 16u * min((uint32_t)SB_PIECE, cnt - p * SB_PIECE);
                mbar_arrive_expect(&bar[p], b);
                bulk_load(xs + p * SB_PIECE, xr + 16 * (uint64_t)(p * SB_PIECE), b, &bar[p]);
            }
        }
    }
    __syncthreads(); /* the barriers are initialised before anyone waits on them */

    /* Columns past the chunk read as -inf (no term, no max). */
    const uint32_t ninf = sizeof(R) == 4 ? __float_as_uint(-CUDART_INF_F)
                                         : (uint32_t)sl_dt<DT>::store(-CUDART_INF_F) * 0x10001u;
    const uint4 pad = make_uint4(ninf, ninf, ninf, ninf);

    /* sweep 1: the thread's online (max, sum), a piece at a time as it lands */
    float m = -CUDART_INF_F, s = 0.0f;
#pragma unroll 1
    for (uint32_t p = 0; p < npc; p++) {
        mbar_wait(&bar[p], 0);
        const uint32_t j = p * SB_PIECE + t;
        const uint4 a = j < cnt ? xs[j] : pad, b = j + SB_BLOCK < cnt ? xs[j + SB_BLOCK] : pad;
        const float mv = sb_vmax<DT>(m, a, b);
        if (mv > m) { /* m = -inf: factor 0 (a NaN sum stays NaN) */
            s *= sb_exp<DT>(m - mv);
            m = mv;
        }
        const float ref = m == -CUDART_INF_F ? 0.0f : m; /* softmax.cuh, smx_ms: no -inf - -inf */
        float ta = 0.0f, tb = 0.0f;
#pragma unroll
        for (int k = 0; k < VE; k++) {
            ta += sb_exp<DT>(sbwd_el<DT>(a, k) - ref);
            tb += sb_exp<DT>(sbwd_el<DT>(b, k) - ref);
        }
        s += ta + tb;
    }

    /* the block's state: each warp's, then warp 0 folds the 16 */
    sb_warp_fold<DT>(m, s);
    if (lane == 0) {
        wm[warp] = m;
        ws[warp] = s;
    }
    __syncthreads();
    if (warp == 0) {
        float bm = lane < SB_WARPS ? wm[lane] : -CUDART_INF_F, bs = lane < SB_WARPS ? ws[lane] : 0.0f;
        sb_warp_fold<DT>(bm, bs);
        if (lane == 0) {
            if (C > 1) {
                cl[0] = bm;
                cl[1] = bs;
            } else {
                fin[0] = bm;
                fin[1] = 1.0f / bs;
            }
        }
    }
    if (C > 1) {
        /* the row's state: lane q of warp 0 reads rank q's, one round trip */
        cg::cluster_group clg = cg::this_cluster();
        clg.sync();
        if (warp == 0) {
            float rm = -CUDART_INF_F, rs = 0.0f;
            if (lane < C) {
                const float *o = clg.map_shared_rank(cl, lane);
                rm = o[0];
                rs = o[1];
            }
            sb_warp_fold<DT>(rm, rs);
            if (lane == 0) {
                fin[0] = rm;
                fin[1] = 1.0f / rs;
            }
        }
        __syncthreads();
        /* done reading the others' slots; waited on before exit */
        asm volatile("barrier.cluster.arrive.release.aligned;\n" ::: "memory");
    } else {
        __syncthreads();
    }
    const float M = fin[0], inv = fin[1];

    /* sweep 2: y = exp(x - M) (1 / S), 16-byte stores. M = -inf only for a
     * row of -inf (and NaN): -inf - -inf = NaN, as the formula. */
#pragma unroll 1
    for (uint32_t p = 0; p < npc; p++) {
#pragma unroll
        for (uint32_t h = 0; h < 2; h++) {
            const uint32_t j = p * SB_PIECE + h * SB_BLOCK + t;
            if (j < cnt) {
                const uint4 u = xs[j];
                float f[VE];
#pragma unroll
                for (int k = 0; k < VE; k++)
                    f[k] = sb_exp<DT>(sbwd_el<DT>(u, k) - M) * inv;
                *(uint4 *)(yr + 16 * (uint64_t)j) = sbwd_pack<DT>(f);
            }
        }
    }
    if (C > 1)
        asm volatile("barrier.cluster.wait.acquire.aligned;\n" ::: "memory");
#else
    /* the launcher runs this rung only where the loaded code is sm_90 or later */
    (void)g, (void)nvec, (void)cv, (void)C;
    __trap();
#endif
}

static const void *sb_fn(sl_dtype dt)
{
    return SMX_KERNEL_FOR(dt, smx_bulk);
}

/* The chunking of a's rows, false where the rung does not apply: the
 * fewest C chunks of at most SB_MAXV vectors (sl_cuda_row_chunks), then,
 * while the rows leave SMs without a block (rows x C <= SMs) and the
 * chunks stay at least SB_MINV vectors, twice as many; chunks rounded up
 * to 8 vectors (128 bytes) so that every block's copy starts on a line
 * of the row. */
static bool sb_plan(const sl_args *a, unsigned *C, uint32_t *nvec, uint32_t *cv)
{
    if (!sl_cuda_row_clusters())
        return false;
    const uint64_t es = sl_dtype_size(a->dtype), ld = a->shape.ld ? a->shape.ld : a->shape.cols;
    if ((((uintptr_t)a->buf[0] | (uintptr_t)a->buf[1]) & 15u) || (ld * es) % 16 || (a->shape.cols * es) % 16)
        return false;
    const uint64_t nv = a->shape.cols * es / 16, rows = a->shape.rows;
    unsigned c;
    uint32_t per;
    if (!sl_cuda_row_chunks(nv, SB_MAXV, rows, &c, &per))
        return false;
    const uint64_t sms = (uint64_t)sl_cuda_row_sms();
    while (c < 8 && rows * c <= sms && (nv + 2 * c - 1) / (2 * c) >= SB_MINV)
        c *= 2;
    const uint64_t chunk = ((nv + c - 1) / c + 7) / 8 * 8; /* <= SB_MAXV, a multiple of 8 */
    *C = c;
    *nvec = (uint32_t)nv;
    *cv = (uint32_t)chunk;
    return true;
}

/* Once per device and dtype: allow SB_MAXV x 16 bytes of dynamic shared
 * memory (above the default 48 KiB). */
static sl_status sb_prepare(sl_dtype dt)
{
    static int ready[3][SL_MAX_DEVICES];
    return sl_cuda_row_smem_allow(sb_fn(dt), SB_MAXV * 16, ready[dt == SL_F32 ? 0 : dt == SL_BF16 ? 1 : 2]);
}

extern "C" sl_status sl_cuda_softmax_bulk(const sl_args *a)
{
    sl_status st = smx_check(a, "bulk");
    if (st != SL_OK || a->shape.rows == 0 || a->shape.cols == 0)
        return st;
    int cc = 0;
    if ((st = sl_cuda_current_cc(&cc)) != SL_OK)
        return st;
    if (cc < 90)
        return sl_fail(SL_ERR_UNSUPPORTED, "softmax bulk: needs sm_90 or newer (cp.async.bulk, clusters); this "
                                           "device is sm_%d", cc);
    static int code_cache[SL_MAX_DEVICES];
    if ((st = bulk_code_ok(sb_fn(a->dtype), code_cache)) != SL_OK)
        return st;
    unsigned C;
    uint32_t nvec, cv;
    if (!sb_plan(a, &C, &nvec, &cv)) {
        const size_t es = sl_dtype_size(a->dtype);
        const uint64_t ld = a->shape.ld ? a->shape.ld : a->shape.cols;
        return sl_fail(SL_ERR_UNSUPPORTED,
                       "softmax bulk stages a row in shared memory by bulk copies: it needs x and y 16-byte aligned "
                       "(here at +%u and +%u bytes), cols and ld multiples of 16 bytes and rows of at most %u bytes "
                       "(here %llu and %llu columns of %zu bytes)",
                       (unsigned)((uintptr_t)a->buf[0] & 15u), (unsigned)((uintptr_t)a->buf[1] & 15u),
                       8u * SB_MAXV * 16u, (unsigned long long)a->shape.cols, (unsigned long long)ld, es);
    }
    if ((st = sb_prepare(a->dtype)) != SL_OK)
        return st;
    smx_geo g = smx_geo_of(a);
    void *params[] = {&g, &nvec, &cv, &C};
    return sl_cuda_row_launch_smem(sb_fn(a->dtype), a->shape.rows * C, SB_BLOCK, C, (size_t)cv * 16, params,
                                   a->stream);
}

extern "C" sl_status sl_cuda_softmax_bulk_attrs(sl_dtype dt, sl_kernel_attrs *out)
{
    sl_status st = sb_prepare(dt);
    return st != SL_OK ? st : sl_cuda_kernel_attrs(sb_fn(dt), SB_BLOCK, (size_t)SB_MAXV * 16, out);
}
