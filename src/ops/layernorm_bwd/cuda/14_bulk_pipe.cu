/*
 * layernorm backward rung 15 (bulk_pipe): the bulk rung's kernel
 * (common/norm_bwd_bulk.cuh) in its NB_PIPE configuration, launched by
 * 05_bulk.cu's sl_cuda_layernorm_bwd_bulk_rung: bulk_exw3 (13_bulk_exw3.cu)
 * with each row's wait for the cluster's sums one first pass later.
 *
 * Change from bulk_exw3: the loop runs row k + 1's first pass (its dw
 * terms, its sums sent into every CTA's slots by st.async) before row k's
 * wait for the cluster's sums, its fold and its second pass. So a warp
 * reaches row k's wait a whole first pass after the cluster's warps sent
 * row k's sums, where bulk_exw3's warps wait for the slowest of the
 * cluster's 16 C warps right after their own send. The three stages hold
 * row k (its second pass), row k + 1 (first pass done, its second pass
 * next) and row k + 2 in flight; a stage is refilled with row k + 3 after
 * row k's end-of-row barrier, as bulk_exw3. The exchange needs four slot
 * sets and mbarriers (k & 3), not two: a peer may send row k + 4's sums
 * once every warp of the cluster has sent row k + 2's, which each does
 * after folding row k's (cluster_x1.cuh). Within a round of 256 rows only:
 * a round's first row has its first pass after the previous round's dw
 * partial is written, so the partials, dx, dw and db are bulk_exw's bits.
 *
 * What it takes away: the exchange's wait (the slowest warp's lag, the
 * st.async's remote round trip, ~0.5-1 us under load) out of the row's
 * dependent chain, where 2 blocks a SM, 16 warps each, all waiting at the
 * same point of a row leave the schedulers idle (ncu, twelfth session:
 * issue on 0.59-0.67 of cycles, 57-68% of DRAM's peak at 8192 x 16384).
 * Registers: row k's rstd (and mean) are carried over row k + 1's first
 * pass (two more). Expectation (unmeasured; docs/ladder.md "The norms'
 * backwards, sixteenth session"): H200 or H100, bf16, 1.03-1.08x bulk_exw3
 * at 8192 x 16384 and 4096 x 32768 (C = 2 and 4), 1.00-1.04x at 8192 x
 * 65536 (rows of 8 CTAs, 3.4 us a row: the wait a smaller share) and at
 * 32768 x 4096 (C = 1: no remote round trip, only the warps' lag).
 * Measured (H200, bench/results/h200-norm-bwd-pipe-2026-11-28.md, two
 * rounds, bf16): 0.98-1.02x bulk_exw3 at 16384-65536 columns and
 * 0.94-0.97x at 4096: refuted; no public function takes it.
 * dx, dw and db are bulk_exw's bits. Limits: as bulk; else SL_ERR_UNSUPPORTED.
 */
#include "layernorm_bwd.h"

extern "C" sl_status sl_cuda_layernorm_bwd_bulk_pipe(const sl_args *a)
{
    return sl_cuda_layernorm_bwd_bulk_rung(a, 4, "bulk_pipe");
}
