/*
 * rmsnorm rung 11 (bulk_ex, and its configurations bulk_ex512, bulk_ex128,
 * bulk_cp): rung 10 (bulk) with the one-sided cluster exchange and quack's
 * granularity (common/norm_fwd_bulk.cuh, MODE NORM_RMS, flag NFB_X1).
 *
 * Change from rung 10 (bulk): a row's sum of squares leaves each warp by
 * its butterfly and goes straight into every cluster CTA's slot by
 * st.async, whose bytes complete that CTA's mbarrier; each warp waits on
 * its own CTA's mbarrier and folds the slots. bulk's two bar.sync
 * (smx_block), full cluster barrier (arrive + wait, every block of the
 * cluster stalled until the slowest arrives) and the arrive.release
 * before the stores (a MEMBAR.ALL.GPU) are gone from the row's path; a
 * relaxed cluster arrive at the start is waited on before the first
 * remote store, after the loads. And blocks of 256 threads with 32 KiB
 * chunks (6 an SM; a cluster of 4 at 65536 bf16) instead of 512 with 64
 * KiB (3 an SM, a cluster of 2), as quack 0.6.x sizes its long rows
 * (docs/ladder.md, "The norms' forwards, tenth session").
 *
 * Bytes in flight an SM: the same 192 KiB of staging, but in six chunks
 * of 32 KiB, each in its own phase: a block in its sum or its stores
 * idles a sixth of the staging instead of a third, and no block waits for
 * a peer's barrier, only for the peer's 4-byte partial (Little's law
 * asks ~50 KiB an SM on the H200: 4.8 TB/s x ~1.3 us over 132 SMs).
 *
 * The configurations, by rung name (so that one --variants list times
 * them in one process): bulk_ex (256 threads, 8 vectors a thread: 32 KiB
 * chunks, bulk copies), bulk_ex512 (512, 8: bulk's 64 KiB chunks; the
 * exchange alone), bulk_ex128 (128, 8: 16 KiB chunks, 12 an SM),
 * bulk_cp (bulk_ex with every thread's own 16-byte cp.async instead of
 * one thread's bulk copies: no chunk-wide wait, quack's loads).
 *
 * Expectation (written before the first run; H200, bf16, of the copy
 * kernel): bulk_ex / bulk_cp 0.96-0.98 at 8192 x 32768 and 0.95-0.97 at
 * 8192 x 65536 (bulk 0.947 / 0.916); bulk_ex512 0.95-0.96 / 0.93-0.95.
 * Aligned launches only (norm_fwd_aligned), rows of at most 8 chunks
 * (bulk_ex, bulk_cp: 256 KiB; bulk_ex512 512 KiB; bulk_ex128 128 KiB),
 * sm_90; else SL_ERR_UNSUPPORTED.
 */
#include "regs.cuh"
#include "norm_fwd_bulk.cuh"

NFB_EX_RUNGS(rmsnorm, NORM_RMS, rms_fwd_geo_of, SL_RMS_W)
