/*
 * layernorm rung 11 (bulk_ex, and its configurations bulk_ex512,
 * bulk_ex128, bulk_cp): rmsnorm's rung 11 (rmsnorm/cuda/11_bulk_ex.cu) in
 * MODE NORM_LN (common/norm_fwd_bulk.cuh, flag NFB_X1): the row staged
 * in shared memory, the mean and then sum (x - mean)^2 from shared memory
 * (two-pass, as bulk), each of the two sums exchanged one-sided: every
 * warp's partial st.async into every cluster CTA's slots, one mbarrier
 * wait, a slot set and an mbarrier a sum.
 *
 * Change from rung 10 (bulk, 08_bulk.cu): bulk pays two sums a row, each
 * two bar.sync and a full cluster barrier, then an arrive.release
 * (MEMBAR.ALL.GPU) before its stores: layernorm was the furthest of the
 * three forwards from the copy at long rows (0.786 at 8192 x 65536 bf16
 * on an H200). Here a warp waits for the partials only; blocks of 256
 * with 32 KiB chunks, six an SM (bulk_ex).
 *
 * Expectation (written before the first run; H200, bf16, of the copy
 * kernel): bulk_ex / bulk_cp 0.93-0.96 at 8192 x 32768, 0.90-0.94 at
 * 8192 x 65536 (bulk 0.882 / 0.786). Aligned launches only, rows of at
 * most 8 chunks (bulk_ex, bulk_cp: 256 KiB; bulk_ex512 512 KiB;
 * bulk_ex128 128 KiB), sm_90; else SL_ERR_UNSUPPORTED.
 */
#include "ln_regs.cuh"
#include "norm_fwd_bulk.cuh"

NFB_EX_RUNGS(layernorm, NORM_LN, ln_geo_of, SL_LN_W)
