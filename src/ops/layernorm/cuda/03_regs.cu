/*
 * layernorm rungs 3 (regs) and 4 (regs_pf), and the API: the norms'
 * register kernel (common/norm_fwd.cuh) in MODE NORM_LN. The row is read
 * once into registers; the team reduces twice (the sum, then the squared
 * deviations from the registers), one more warp butterfly / block barrier
 * / pair of cluster barriers than rmsnorm, and the bias is read with the
 * weight (L1 / L2).
 *
 * Expectation: rmsnorm's regs and regs_pf measured 0.87-0.97 of the copy
 * at M = 32768 bf16 (first H200 session); the second reduction adds
 * latency per row that the SM's other teams (regs) or the prefetched row
 * (regs_pf) hide where rmsnorm's was hidden: within a few percent of
 * rmsnorm's fraction of the copy, the bytes being the same but for the
 * mean (4 bytes a row).
 */
#include "ln_regs.cuh"

/* ln_regs.cuh says why this is the only definition. */
bool ln_fits(const sl_args *a, int pf, norm_fwd_cfg *c)
{
    return norm_fwd_fits<NORM_LN>(a, SL_LN_X, SL_LN_Y, SL_LN_W, pf, c);
}

extern "C" sl_status sl_cuda_layernorm_regs(const sl_args *a)
{
    return ln_rung(a, NORM_FWD_REGS, "regs");
}

extern "C" sl_status sl_cuda_layernorm_regs_pf(const sl_args *a)
{
    return ln_rung(a, NORM_FWD_PF, "regs_pf");
}

/* For the API (H100, bf16, docs/ladder.md, third session): the warp teams
 * (up to 256 vectors) regs; rows of 257-4096 vectors lean4 (05_lean4.cu:
 * 0.91 of the copy at 32768 x 4096 against lean's 0.82 and regs' 0.75)
 * where the rows fill the SMs (at least 4 a SM), else lean (64 x 4096:
 * lean 0.64, lean4 0.49); longer rows lean (8192 x 65536: 0.60 against
 * lean4's clusters of 512 at 0.51); else the block rung. But first, for
 * aligned rows (every buffer on 16 bytes, whole vectors): decode
 * (06_decode.cu, w and b beside x) for rows of more than 256 vectors
 * fewer than the SMs; beyond 2048 vectors bulk (08_bulk.cu, the row in
 * shared memory: 0.886 / 0.791 / 0.746 of the copy at 8192 x 32768 /
 * 65536 and 4096 x 131072 against aligned's 0.762 / 0.676 / 0.670;
 * h200-norms-bulk-2026-11-26o.md), and, for bf16 / f16 since the eighth
 * session's launch bounds, beyond 4096 vectors only (8192 x 32768 bf16:
 * aligned 0.951 of the copy against bulk's 0.882, 65536: 0.672 against
 * 0.786; h200-norms-2026-11-27.md), and there bulk_ex since the tenth
 * session (09_bulk_ex.cu, the one-sided cluster exchange: 0.890 against
 * bulk's 0.795 at 8192 x 65536 bf16, h200-ab-norms-2026-11-27b.md); else aligned (07_aligned.cu; on an H200, of the
 * copy: 0.914 / 0.922 / 0.952 / 0.912 / 0.670 at 32768 x 1024 / 2048 /
 * 4096 / 16384 and 8192 x 65536 against the earlier picks' 0.705 / 0.371
 * / 0.688 / 0.629 / 0.444; h200-norms-aligned-2026-11-26h.md, -j.md). */
extern "C" sl_status sl_cuda_layernorm_api(const sl_args *a)
{
    sl_status st = sl_norm_check(a, SL_LN_W, "layernorm", "sl_layernorm_fwd");
    if (st != SL_OK || a->shape.rows == 0 || a->shape.cols == 0)
        return st;
    norm_fwd_cfg c;
    const uint64_t nvv = norm_fwd_nvv(a, SL_LN_X);
    if (nvv > 256 && a->shape.rows < (uint64_t)norm_sms() && ln_fits(a, NORM_FWD_DECODE, &c))
        return ln_regs_launch(a, &c);
    /* beyond 64 KiB rows of 16-bit dtypes bulk_ex (09_bulk_ex.cu, then bulk for rows beyond its 8 chunks), beyond
     * 2048 vectors of f32 bulk (unmeasured since the launch bounds); each refuses rows beyond 8 chunks and builds
     * without sm_90 */
    if (nvv > (a->dtype == SL_F32 ? 2048u : 4096u) && norm_fwd_aligned(a)) {
        st = norm_fwd_bulk_pick(a, sl_cuda_layernorm_bulk_ex, sl_cuda_layernorm_bulk);
        if (st != SL_ERR_UNSUPPORTED)
            return st;
    }
    if (ln_fits(a, NORM_FWD_ALIGNED, &c))
        return ln_regs_launch(a, &c);
    const int kind = nvv <= 256                                                 ? NORM_FWD_REGS
                     : nvv <= 4096 && a->shape.rows >= 4 * (uint64_t)norm_sms() ? NORM_FWD_LEAN4
                                                                               : NORM_FWD_LEAN;
    if (ln_fits(a, kind, &c))
        return ln_regs_launch(a, &c);
    return sl_cuda_layernorm_block(a);
}

/* rung 5 (regs_1k): one block of 1024 per row up to 8192 vectors, no
 * cluster; the experiment of rmsnorm's 05_regs1k.cu, with its expectation. */
extern "C" sl_status sl_cuda_layernorm_regs_1k(const sl_args *a)
{
    return ln_rung(a, NORM_FWD_1K, "regs_1k");
}
