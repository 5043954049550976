/*
 * rmsnorm backward rung 3 (the best): persistent teams, each row's x and dy
 * held in registers (read once, 16-byte vectors), and dw accumulated in
 * registers across the rows a team owns. A team keeps the same columns for
 * every row (every row at one offset modulo 16 bytes), so each thread's
 * VPT x VE partial sums stay in its registers; at the end a block of warp
 * teams adds its warps' sums in warp order in shared memory, and each
 * block (warp teams) or team (block / cluster teams) writes one partial
 * row; dw.cu's finish adds the partials in fp64, in order. No atomics:
 * the same bits run to run.
 *   - a warp per row, 16 rows per 512-thread block, 1-4 vectors a thread
 *     (rows up to 128 vectors: 1024 bf16, 512 f32);
 *   - a block of 256 per row, 1-4 vectors a thread (up to 1024 vectors);
 *   - a cluster of 2-8 blocks of 256 (up to 8192 vectors: 65536 bf16),
 *     or of 8 blocks of 512 (16384: 65536 f32).
 * The grid is what the SMs hold at once (the occupancy API), at least
 * rows / 256 teams (a partial covers at most SL_NORM_DW_ROWS rows) and at
 * most sl_norm_dw_partials.
 *
 * Expectation: x and dy read once, dx written once, VPT x 2 loads of 16
 * bytes in flight per thread; with ~96 registers, 2 blocks of 256 per SM:
 * 2 x 256 x 8 x 16 = 64 KiB in flight, above Little's law's ~40 KiB, so
 * near the copy at DRAM shapes; the partials add 2 x P x cols x 4 bytes
 * (1.6% at cols = 1024, less beyond), and the finish one short launch.
 *
 * Rung 4 (regs_pf, the same template with PF): the next row's x, dy and
 * rstd loaded before this row's reduction, so that a thread's next 2 x VPT
 * x 16 bytes are in flight while its team reduces and writes; the dw
 * partials move to shared memory (a thread's own slots, slot-major: no
 * bank conflicts) to leave the registers to the prefetched row. Why: regs
 * measured 0.74-0.86 of the copy at N <= 8192 bf16 and 0.45-0.60 with
 * clusters (first H200 call): the reduction and the cluster barriers
 * stall the SM's 1-2 blocks. Expectation: those stalls hidden, the
 * cluster rows near the block rows, ~0.9 of the copy.
 *
 * Third session (docs/ladder.md): the grid counted 33 resident clusters of
 * 8 where the H100 holds 30 (a second wave: 0.45 of the copy at 8192 x
 * 65536); with cudaOccupancyMaxActiveClusters and a partial row per 256
 * rows a team, regs reached 0.667 there. Rung 5 (regs_sm): the partials in
 * shared memory without the prefetch, 80 registers, 3 blocks of 256 a SM
 * (1.5x regs's rows in flight at 4 vectors a thread): 0.744 at 65536, 0.94
 * at 4096 (as regs); regs_pf stays best at 1024 (0.862) and 16384 (0.815).
 */
#include "norm_bwd.cuh"
#include "rmsnorm_bwd.cuh"

/* The kernel, its configurations and its partial count: common/norm_bwd.cuh
 * (MODE NORM_RMS; shared with layernorm_bwd since issue 32's second
 * session, the RMS path unchanged). */
typedef norm_bwd_cfg rmsb_cfg;

static bool rmsb_fits(const sl_args *a, int pf, rmsb_cfg *c, uint32_t *o)
{
    return norm_bwd_fits<NORM_RMS>(a, SL_RMSB_X, SL_RMSB_DY, SL_RMSB_DX, SL_RMSB_W, pf, c, o);
}

static sl_status rmsb_launch(const sl_args *a, const rmsb_cfg *c, uint32_t o)
{
    const rmsb_geo r = rmsb_geo_of(a, o);
    norm_bwd_geo g = {r.x, r.dy, r.w, NULL, r.rstd, r.dx, r.part, NULL, r.rows, r.cols, r.ld, o};
    const norm_bwd_grid gr = norm_bwd_grid_of(c, g.rows, g.cols);
    if (a->workspace_bytes < gr.P * g.cols * sizeof(float))
        return sl_fail(SL_ERR_INVALID_ARG, "rmsnorm_bwd regs: workspace of %zu bytes for %llu dw partials of %llu",
                       a->workspace_bytes, (unsigned long long)gr.P, (unsigned long long)g.cols);
    sl_status st = norm_bwd_launch(c, &gr, &g, a->stream);
    if (st != SL_OK)
        return st;
    return sl_cuda_norm_dw_finish(g.part, gr.P, g.cols, a->buf[SL_RMSB_DW], norm_wdtype(a, SL_RMSB_W), a->stream);
}

extern "C" sl_status sl_cuda_rmsnorm_bwd_api(const sl_args *a)
{
    sl_status st = sl_norm_check(a, SL_RMSB_W, "rmsnorm_bwd", "sl_rmsnorm_bwd");
    if (st != SL_OK || a->shape.rows == 0 || a->shape.cols == 0)
        return st;
    rmsb_cfg c;
    uint32_t o;
    /* The rung measured best at each row length (norm_bwd_form: regs_pf for
     * 16-bit rows of <= 128 vectors and of 1025-2048 at >= 1024 rows, regs
     * for 129-256 and 513-1024, regs_sm beyond), and for aligned launches
     * (every buffer on 16 bytes, whole vectors) the same form without the
     * edge masks (04_aligned.cu; on an H200 the best rung at every row
     * length measured, h200-norms-bwd-aligned-2026-11-26n.md). Aligned rows
     * of 32 KiB and more first take the bulk rung (05_bulk.cu: x and dy in
     * shared memory; it refuses rows beyond 65536 columns and builds without
     * sm_90): docs/ladder.md, "The norms' backwards, seventh session". */
    /* bulk_q (15_bulk_q.cu), for 16-bit aligned rows with w in the rows'
     * dtype (f32 w was not measured), at two row lengths:
     * - 256 vectors (2048 columns) at >= 16384 rows (eighteenth session;
     *   H200, event timing, one process: 1.034x / 1.055-1.061x / 1.037x
     *   this function's pick before it at 16384 / 32768 / 65536 rows bf16,
     *   1.071x f16 at 32768; 0.97x at 4096 rows, and behind it at 1544 and
     *   1800 columns, so not there);
     * - over 32 KiB up to 64 KiB (16385-32768 columns), as sl_layernorm_bwd
     *   takes there (twenty-second session; H200, event timing, one process
     *   a run: 0.790-0.803 of the copy against bulk's 0.544-0.556 at 32768 x
     *   32768 in four runs, 0.907-0.909 / 0.890-0.891 against 0.901-0.902 /
     *   0.886-0.887 at 24576 / 16384 x 32768, level at 4096 x 32768, 0.834
     *   against 0.833-0.848; bench/results/h200-norm-bwd-m32k-2026-11-29.md). */
    const size_t es = sl_dtype_size(a->dtype), ve = 16 / es;
    const uint64_t row_bytes = a->shape.cols * es;
    if (es == 2 && norm_wdtype(a, SL_RMSB_W) == a->dtype && norm_fwd_aligned(a) &&
        ((a->shape.cols == 256 * ve && a->shape.rows >= 16384) ||
         (row_bytes > (32u << 10) && row_bytes <= (64u << 10)))) {
        st = sl_cuda_rmsnorm_bwd_bulk_q(a);
        if (st != SL_ERR_UNSUPPORTED)
            return st;
    }
    if (row_bytes >= (32u << 10) && norm_fwd_aligned(a)) {
        st = sl_cuda_rmsnorm_bwd_bulk(a);
        if (st != SL_ERR_UNSUPPORTED)
            return st;
    }
    if (rmsb_fits(a, NORM_BWD_ALIGNED, &c, &o))
        return rmsb_launch(a, &c, o);
    const uint64_t nvv = (((uintptr_t)a->buf[SL_RMSB_X] & 15u) / es + a->shape.cols + ve - 1) / ve; /* as rmsb_fits */
    const int form = norm_bwd_form<NORM_RMS>(a->dtype, a->shape.rows, nvv);
    if (rmsb_fits(a, form, &c, &o) || (form != NORM_BWD_REGS && rmsb_fits(a, NORM_BWD_REGS, &c, &o)))
        return rmsb_launch(a, &c, o);
    return sl_cuda_rmsnorm_bwd_block(a);
}

extern "C" sl_status sl_cuda_rmsnorm_bwd_rung(const sl_args *a, int pf, const char *who)
{
    sl_status st = sl_norm_check(a, SL_RMSB_W, "rmsnorm_bwd", who);
    if (st != SL_OK || a->shape.rows == 0 || a->shape.cols == 0)
        return st;
    rmsb_cfg c;
    uint32_t o;
    if (norm_bwd_al(pf) && !norm_fwd_aligned(a))
        return sl_fail(SL_ERR_UNSUPPORTED,
                       "rmsnorm_bwd %s: a buffer off 16 bytes, or cols %llu (ld %llu) not a multiple of %zu elements "
                       "(whole 16-byte vectors): regs runs it",
                       who, (unsigned long long)a->shape.cols,
                       (unsigned long long)(a->shape.ld ? a->shape.ld : a->shape.cols), 16 / sl_dtype_size(a->dtype));
    if (!rmsb_fits(a, pf, &c, &o))
        return sl_fail(SL_ERR_UNSUPPORTED,
                       "rmsnorm_bwd %s: x, dy and dx at different offsets modulo 16 bytes, rows at different "
                       "offsets, or a row of %llu elements beyond a cluster's registers: the block rung runs it",
                       who, (unsigned long long)a->shape.cols);
    return rmsb_launch(a, &c, o);
}

extern "C" sl_status sl_cuda_rmsnorm_bwd_regs(const sl_args *a)
{
    return sl_cuda_rmsnorm_bwd_rung(a, NORM_BWD_REGS, "regs");
}

extern "C" sl_status sl_cuda_rmsnorm_bwd_regs_pf(const sl_args *a)
{
    return sl_cuda_rmsnorm_bwd_rung(a, NORM_BWD_PF, "regs_pf");
}

extern "C" sl_status sl_cuda_rmsnorm_bwd_regs_sm(const sl_args *a)
{
    return sl_cuda_rmsnorm_bwd_rung(a, NORM_BWD_SM, "regs_sm");
}
