/*
 * layernorm backward rung 3 (regs) and the API: the norms' backward
 * register kernel (common/norm_bwd.cuh) in MODE NORM_LN. Per row, two team
 * sums (sum g and sum g xh) where rmsnorm has one; per thread two partial
 * accumulators (dw and db) across the rows its team owns, written as two
 * partial rows (the workspace's two halves) and finished in fp64 in order
 * (rmsnorm_bwd's dw.cu, both sums in one launch): deterministic.
 *
 * Third session: regs_pf (the next row prefetched) and regs_sm (no
 * prefetch) with both partial sets in dynamic shared memory (64 KiB a
 * block of 256 at 4 vectors of 8: above the 48 KiB static limit, so
 * opted in). Measured (H100, bf16, fraction of the copy; docs/ladder.md):
 * regs_pf 0.869 at N = 1024 (regs 0.674), regs_sm 0.894 at 4096 (regs
 * 0.805), 0.674 at 16384 and 0.627 at 65536 (regs 0.590, 0.501).
 *
 * Expectation: rmsnorm_bwd's regs measured 0.74-0.86 of the copy at N <=
 * 8192 bf16 and 0.45-0.60 with clusters (first H200 session); the second
 * reduction and the second set of accumulators (32 more registers a
 * thread at 4 vectors of 8) cost occupancy: a few percent below rmsnorm's
 * regs, ~0.7-0.8 of the copy at N <= 8192.
 */
#include "layernorm_bwd.h"
#include "norm_bwd.cuh"

static sl_status lnb_launch(const sl_args *a, const norm_bwd_cfg *c, uint32_t o)
{
    const uint64_t rows = a->shape.rows, cols = a->shape.cols, Pm = sl_norm_dw_partials(rows, cols);
    const norm_bwd_grid gr = norm_bwd_grid_of(c, rows, cols);
    if (a->workspace_bytes < sl_layernorm_bwd_ws(rows, cols) || gr.P > Pm)
        return sl_fail(SL_ERR_INVALID_ARG, "layernorm_bwd regs: workspace of %zu bytes for %llu partials of %llu",
                       a->workspace_bytes, (unsigned long long)gr.P, (unsigned long long)cols);
    norm_bwd_geo g = {a->buf[SL_LNB_X], a->buf[SL_LNB_DY], a->buf[SL_LNB_W], (const float *)a->buf[SL_LNB_MEAN],
                      (const float *)a->buf[SL_LNB_RSTD], a->buf[SL_LNB_DX], (float *)a->workspace,
                      (float *)a->workspace + Pm * cols, rows, cols, a->shape.ld ? a->shape.ld : cols, o};
    sl_status st = norm_bwd_launch(c, &gr, &g, a->stream);
    if (st != SL_OK)
        return st;
    return sl_cuda_norm_dwdb_finish(g.part, g.partb, gr.P, cols, a->buf[SL_LNB_DW], a->buf[SL_LNB_DB],
                                    norm_wdtype(a, SL_LNB_W), a->stream);
}

static bool lnb_fits(const sl_args *a, int pf, norm_bwd_cfg *c, uint32_t *o)
{
    return norm_bwd_fits<NORM_LN>(a, SL_LNB_X, SL_LNB_DY, SL_LNB_DX, SL_LNB_W, pf, c, o);
}

extern "C" sl_status sl_cuda_layernorm_bwd_rung(const sl_args *a, int pf, const char *who)
{
    sl_status st = sl_norm_check(a, SL_LNB_W, "layernorm_bwd", who);
    if (st != SL_OK || a->shape.rows == 0 || a->shape.cols == 0)
        return st;
    norm_bwd_cfg c;
    uint32_t o;
    if (norm_bwd_al(pf) && !norm_fwd_aligned(a))
        return sl_fail(SL_ERR_UNSUPPORTED,
                       "layernorm_bwd %s: a buffer off 16 bytes, or cols %llu (ld %llu) not a multiple of %zu "
                       "elements (whole 16-byte vectors): regs runs it",
                       who, (unsigned long long)a->shape.cols,
                       (unsigned long long)(a->shape.ld ? a->shape.ld : a->shape.cols), 16 / sl_dtype_size(a->dtype));
    if (!lnb_fits(a, pf, &c, &o))
        return sl_fail(SL_ERR_UNSUPPORTED,
                       "layernorm_bwd %s: x, dy and dx at different offsets modulo 16 bytes, rows at different "
                       "offsets, or a row of %llu elements beyond a cluster's registers: the block rung runs it",
                       who, (unsigned long long)a->shape.cols);
    return lnb_launch(a, &c, o);
}

extern "C" sl_status sl_cuda_layernorm_bwd_regs(const sl_args *a)
{
    return sl_cuda_layernorm_bwd_rung(a, NORM_BWD_REGS, "regs");
}

extern "C" sl_status sl_cuda_layernorm_bwd_regs_pf(const sl_args *a)
{
    return sl_cuda_layernorm_bwd_rung(a, NORM_BWD_PF, "regs_pf");
}

extern "C" sl_status sl_cuda_layernorm_bwd_regs_sm(const sl_args *a)
{
    return sl_cuda_layernorm_bwd_rung(a, NORM_BWD_SM, "regs_sm");
}

extern "C" sl_status sl_cuda_layernorm_bwd_api(const sl_args *a)
{
    sl_status st = sl_norm_check(a, SL_LNB_W, "layernorm_bwd", "sl_layernorm_bwd");
    if (st != SL_OK || a->shape.rows == 0 || a->shape.cols == 0)
        return st;
    norm_bwd_cfg c;
    uint32_t o;
    /* The rung measured best at each row length (norm_bwd_form: regs_pf for
     * 16-bit rows of <= 128 vectors at >= 1024 rows, regs for 129-256 and
     * 513-1024, regs_sm for 257-512 and beyond 1024, where layernorm's two
     * accumulators leave regs 2 blocks a SM), and for aligned launches the
     * same form without the edge masks (04_aligned.cu; on an H200 the best
     * rung at every row length measured but 2048 columns,
     * h200-norms-bwd-aligned-2026-11-26n.md). Aligned rows of 32 KiB and
     * more first take the bulk rung (05_bulk.cu: x and dy in shared memory;
     * it refuses rows beyond 65536 columns and builds without sm_90):
     * docs/ladder.md, "The norms' backwards, seventh session"; 16-bit ones
     * its bulk_ex form (11_bulk_ex.cu: 1.03-1.05x bulk at 8192 x 16384,
     * 4096 x 32768 and 8192 x 65536 bf16 on an H200,
     * bench/results/h200-norm-bwd-ex-2026-11-27.md; f32 not measured), and
     * 16-bit rows of 128 KiB and more its bulk_exw form (12_bulk_exw.cu: w
     * in registers; 1.04x bulk_ex at 8192 x 65536 bf16 in two runs on an
     * H200, and 0.94x at 8192 x 16384, so not below 128 KiB;
     * bench/results/h200-bwd-picks-2026-11-27.md). Below 128 KiB, with w
     * in the rows' dtype, the three-stage form (13_bulk_exw3.cu: 1.02-1.03x
     * bulk_ex at 8192 x 16384 and 4096 x 32768 bf16 on an H100,
     * bench/results/h100-norm-bwd-exw3-2026-11-28.md and -pick-); with f32 w
     * it would run bulk_exw's two stages, which are not ahead of bulk_ex
     * there. Over 32 KiB to 64 KiB (16385-32768 16-bit columns), with w in
     * the rows' dtype, bulk_q (15_bulk_q.cu: bulk_exw3 in blocks of 256,
     * four an SM; eighteenth session, H200, event timing, one process:
     * 1.018-1.063x bulk_exw3 at 4096 x 32768, 8192 x 24576 and 8192 x
     * 32768, bf16 and f16; at exactly 32 KiB 0.986x / 0.998x / 1.034x in
     * bf16 and 1.070x / 1.067x in f16, so not there for bf16). */
    const uint64_t row_bytes = a->shape.cols * sl_dtype_size(a->dtype);
    if (row_bytes >= (32u << 10) && norm_fwd_aligned(a)) {
        const bool w16 = norm_wdtype(a, SL_LNB_W) == a->dtype;
        st = a->dtype == SL_F32                             ? sl_cuda_layernorm_bwd_bulk(a)
             : row_bytes >= (128u << 10)                    ? sl_cuda_layernorm_bwd_bulk_exw(a)
             : w16 && row_bytes > (32u << 10) && row_bytes <= (64u << 10) ? sl_cuda_layernorm_bwd_bulk_q(a)
             : w16                                          ? sl_cuda_layernorm_bwd_bulk_exw3(a)
                                                            : sl_cuda_layernorm_bwd_bulk_ex(a);
        if (st != SL_ERR_UNSUPPORTED)
            return st;
    }
    if (lnb_fits(a, NORM_BWD_ALIGNED, &c, &o))
        return lnb_launch(a, &c, o);
    const size_t es = sl_dtype_size(a->dtype), ve = 16 / es;
    const uint64_t nvv = (((uintptr_t)a->buf[SL_LNB_X] & 15u) / es + a->shape.cols + ve - 1) / ve;
    const int form = norm_bwd_form<NORM_LN>(a->dtype, a->shape.rows, nvv);
    if (lnb_fits(a, form, &c, &o) || (form != NORM_BWD_REGS && lnb_fits(a, NORM_BWD_REGS, &c, &o)))
        return lnb_launch(a, &c, o);
    return sl_cuda_layernorm_bwd_block(a);
}
