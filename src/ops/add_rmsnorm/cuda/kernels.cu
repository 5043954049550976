/*
 * add_rmsnorm's CUDA rungs: block (2, the fallback: any alignment, any
 * length) and regs (3, the norms' register kernel in MODE NORM_ADD_RMS),
 * and the API's choice.
 *
 * Expectation (regs): rmsnorm's regs with a second input stream: per
 * thread VPT x 2 loads of 16 bytes in flight before the first use (x and
 * res), h and y stored; the bytes are 2 reads + 2 writes per element
 * against rmsnorm's 1 + 1, and the reduction's latency is amortised over
 * twice the bytes, so at or above rmsnorm's fraction of the copy (0.87-
 * 0.97 at M = 32768 bf16, first H200 session).
 */
#include "arms.cuh"

enum { AB = 256 };

/* Rung 2: a block per row; h stored and its squares summed (compensated),
 * then y from h read back by the thread that wrote it. */
template <int DT, int WT> static __global__ void __launch_bounds__(AB) arms_block(norm_fwd_geo g)
{
    __shared__ float red[AB / 32];
    for (uint64_t r = blockIdx.x; r < g.rows; r += gridDim.x) {
        const void *x = smx_row<DT>(g.x, r, g.ld), *res = smx_row<DT>(g.res, r, g.ld);
        void *h = smx_row<DT>(g.h, r, g.ld), *y = smx_row<DT>(g.y, r, g.ld);
        smx_kahan ss = {0.0f, 0.0f};
        for (uint64_t j = threadIdx.x; j < g.cols; j += AB) {
            smx_st<DT>(h, j, smx_ld<DT>(x, j) + smx_ld<DT>(res, j));
            const float v = smx_ld<DT>(h, j);
            ss.add(v * v);
        }
        const float rstd = rsqrtf(smx_block<AB, smx_sum_op>(ss.s, red) / (float)g.cols + g.eps);
        for (uint64_t j = threadIdx.x; j < g.cols; j += AB)
            smx_st<DT>(y, j, smx_ld<DT>(h, j) * rstd * smx_ld<WT>(g.w, j));
        if (threadIdx.x == 0)
            g.rstd[r] = rstd;
    }
}

template <int DT, int WT> struct arms_block_run {
    static sl_status run(const sl_args *a)
    {
        arms_block<DT, WT><<<smx_row_grid(a->shape.rows), AB, 0, (cudaStream_t)a->stream>>>(arms_geo_of(a));
        SL_CUDA_LAUNCHED();
        return SL_OK;
    }
};

extern "C" sl_status sl_cuda_add_rmsnorm_block(const sl_args *a)
{
    sl_status st = sl_norm_check(a, SL_ARMS_W, "add_rmsnorm", "block");
    if (st != SL_OK || a->shape.rows == 0 || a->shape.cols == 0)
        return st;
    return NORM_DISPATCH(a->dtype, norm_wdtype(a, SL_ARMS_W), arms_block_run, a);
}

/* x, res, h and y at one offset modulo 16 bytes, and the row fits (kind:
 * NORM_FWD_REGS, NORM_FWD_LEAN or NORM_FWD_LEAN4). */
static bool arms_fits(const sl_args *a, int kind, norm_fwd_cfg *c)
{
    const uintptr_t ux = (uintptr_t)a->buf[SL_ARMS_X];
    if (((ux ^ (uintptr_t)a->buf[SL_ARMS_RES]) | (ux ^ (uintptr_t)a->buf[SL_ARMS_H])) & 15u)
        return false;
    return norm_fwd_fits<NORM_ADD_RMS>(a, SL_ARMS_X, SL_ARMS_Y, SL_ARMS_W, kind, c);
}

static sl_status arms_rung(const sl_args *a, int kind, const char *who)
{
    sl_status st = sl_norm_check(a, SL_ARMS_W, "add_rmsnorm", who);
    if (st != SL_OK || a->shape.rows == 0 || a->shape.cols == 0)
        return st;
    norm_fwd_cfg c;
    if (!arms_fits(a, kind, &c))
        return sl_fail(SL_ERR_UNSUPPORTED,
                       "add_rmsnorm %s: x, res, h and y at different offsets modulo 16 bytes, or a row of %llu "
                       "elements beyond a cluster's registers: the block rung runs it",
                       who, (unsigned long long)a->shape.cols);
    return norm_fwd_launch(arms_geo_of(a), &c, a->stream);
}

extern "C" sl_status sl_cuda_add_rmsnorm_regs(const sl_args *a)
{
    return arms_rung(a, NORM_FWD_REGS, "regs");
}

/* Rungs 4 and 5 (lean, lean4): rmsnorm's (rmsnorm/cuda/06_lean.cu,
 * 07_lean4.cu) in MODE NORM_ADD_RMS. lean's 8 vectors a thread hold x and
 * res (64 registers of row) under a cap of 2 blocks of 256 a SM; lean4
 * holds 4 of each. Expectation: at N = 4096 bf16 (0.98 of the copy with
 * regs, H100) no change beyond noise; at N = 65536 (regs: a cluster of 4,
 * 80 registers, 112 bytes spilled a thread; 0.75) lean4's cluster of 4
 * blocks of 512 without spills: ~0.9. Measured (one H100,
 * bench/results/h100-norms-fwd-2026-11-26c.md): 1.007 / 1.004 at 32768 x
 * 4096 (regs 1.007); 0.851 / 0.950 at 8192 x 65536 (regs 0.759). */
extern "C" sl_status sl_cuda_add_rmsnorm_lean(const sl_args *a)
{
    return arms_rung(a, NORM_FWD_LEAN, "lean");
}

extern "C" sl_status sl_cuda_add_rmsnorm_lean4(const sl_args *a)
{
    return arms_rung(a, NORM_FWD_LEAN4, "lean4");
}

/* Rung 6 (decode): rmsnorm's (rmsnorm/cuda/08_decode.cu) in MODE
 * NORM_ADD_RMS: aligned rows only, whole 16-byte vectors of x, res, h and
 * y without edge masks, w loaded into registers beside x and res before
 * the team sum. Expectation: lean's 4.49 us at 64 x 4096 (L2 flushed,
 * graph replay: h100-row-peers-final-2026-11-26c.md) less one DRAM round
 * trip and the mask code's issue time. */
extern "C" sl_status sl_cuda_add_rmsnorm_decode(const sl_args *a)
{
    return arms_rung(a, NORM_FWD_DECODE, "decode");
}

/* Rung 7 (aligned): rmsnorm's (rmsnorm/cuda/09_aligned.cu) in MODE
 * NORM_ADD_RMS: lean4's blocks up to 4096 vectors, lean's clusters beyond,
 * aligned rows only, whole 16-byte vectors of x, res, h and y. */
extern "C" sl_status sl_cuda_add_rmsnorm_aligned(const sl_args *a)
{
    return arms_rung(a, NORM_FWD_ALIGNED, "aligned");
}

/* For the API: the warp teams (up to 256 vectors) regs, but aligned bf16
 * / f16 rows of up to 128 vectors (N <= 1024) with w in the rows' dtype
 * aligned, whose warp team of 4 vectors holds x and res in 63 registers
 * under a bound of 4 blocks of 256 an SM (regs: 76, 3 blocks): 32 rows,
 * 128 KiB of x and res in flight an SM instead of 24 rows, 96 KiB (eighth
 * session; unmeasured); lean up to 4096
 * vectors (x and res: 2-8 vectors of each a thread); longer rows lean4 (a
 * cluster of blocks of 512, 4 vectors of each, no spills); else block.
 * But first, for aligned rows of more than 256 vectors: decode (w beside x
 * and res) where the rows are fewer than the SMs; beyond 4096 vectors bulk
 * (08_bulk.cu, x and res in shared memory: on an H200 0.868 / 0.866 of the
 * copy at 8192 x 65536 and 4096 x 131072 against aligned's 0.814 / 0.786;
 * for bf16 / f16 bulk_ex since the tenth session, 09_bulk_ex.cu: 0.972
 * against bulk's 0.881 at 8192 x 65536, h200-ab-norms-2026-11-27b.md);
 * 1025-4096 vectors, and beyond where bulk refuses, aligned (0.980 / 0.993
 * at 8192 x 16384 / 32768 against lean's 0.961 / 0.939,
 * h200-norms-bulk-2026-11-26o.md; at 8192 x 65536 0.820 against lean4's
 * 0.796, h200-norms-aligned-2026-11-26h.md; at 32768 x 4096 it ties lean's
 * 0.986). Aligned rows of 129-256 vectors aligned too: its block of 128
 * there, not the warp team of 8 vectors that every other rung runs (0.75-
 * 0.80 of the copy at 32768 x 1536 / 2048 bf16 on an H200; norm_fwd.cuh's
 * aligned()). */
extern "C" sl_status sl_cuda_add_rmsnorm_api(const sl_args *a)
{
    sl_status st = sl_norm_check(a, SL_ARMS_W, "add_rmsnorm", "sl_add_rmsnorm_fwd");
    if (st != SL_OK || a->shape.rows == 0 || a->shape.cols == 0)
        return st;
    norm_fwd_cfg c;
    const uint64_t nvv = norm_fwd_nvv(a, SL_ARMS_X);
    if (nvv > 256 && a->shape.rows < (uint64_t)norm_sms() && arms_fits(a, NORM_FWD_DECODE, &c))
        return norm_fwd_launch(arms_geo_of(a), &c, a->stream);
    if (nvv > 4096 && norm_fwd_aligned(a)) { /* bulk_ex for 16-bit rows, else bulk; each refuses rows beyond 8 chunks
                                                 and builds without sm_90 */
        st = norm_fwd_bulk_pick(a, sl_cuda_add_rmsnorm_bulk_ex, sl_cuda_add_rmsnorm_bulk);
        if (st != SL_ERR_UNSUPPORTED)
            return st;
    }
    const bool w16 = a->dtype != SL_F32 && norm_wdtype(a, SL_ARMS_W) == a->dtype; /* norm_fwd.cuh's AW16 */
    if (((nvv <= 128 && w16) || (nvv > 128 && nvv <= 256) || nvv > 1024) && arms_fits(a, NORM_FWD_ALIGNED, &c))
        return norm_fwd_launch(arms_geo_of(a), &c, a->stream);
    if (arms_fits(a, nvv <= 256 ? NORM_FWD_REGS : nvv <= 4096 ? NORM_FWD_LEAN : NORM_FWD_LEAN4, &c))
        return norm_fwd_launch(arms_geo_of(a), &c, a->stream);
    return sl_cuda_add_rmsnorm_block(a);
}
