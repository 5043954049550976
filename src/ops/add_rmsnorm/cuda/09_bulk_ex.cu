/*
 * add_rmsnorm rung 9 (bulk_ex, and its configurations bulk_ex512,
 * bulk_ex128, bulk_cp): rmsnorm's rung 11 (rmsnorm/cuda/11_bulk_ex.cu)
 * in MODE NORM_ADD_RMS (common/norm_fwd_bulk.cuh, flag NFB_X1): x and res
 * staged in shared memory, h = x + res rounded into the dtype, written
 * over x in shared memory and stored at once (16-byte stores in the first
 * pass: with no release barrier ahead, nothing waits for them), the sum
 * of h^2 exchanged one-sided (every warp's partial st.async into every
 * cluster CTA's slots, one mbarrier wait), then y = h rstd w from shared
 * memory.
 *
 * Change from rung 8 (bulk, 08_bulk.cu): bulk's two bar.sync, full
 * cluster barrier and arrive.release before the stores gone from the
 * row's path, h leaving in the first pass instead of after the barrier;
 * bulk_ex stages 32 KiB of x and 32 KiB of res in blocks of 256 (quack's
 * sizes for this op: a cluster of 4 at 65536 bf16, three blocks an SM)
 * where bulk stages 32 + 32 KiB in blocks of 512 (bulk_ex512 keeps that).
 *
 * Expectation (written before the first run; H200, bf16, of the copy
 * kernel's bandwidth): bulk_ex / bulk_cp 0.93-0.96 at 8192 x 32768,
 * 0.92-0.95 at 8192 x 65536 (bulk 0.898 / 0.869). Aligned launches only,
 * rows of x of at most 8 chunks (bulk_ex, bulk_cp, bulk_ex512: 256 KiB;
 * bulk_ex128 128 KiB), sm_90; else SL_ERR_UNSUPPORTED.
 */
#include "arms.cuh"
#include "norm_fwd_bulk.cuh"

NFB_EX_RUNGS(add_rmsnorm, NORM_ADD_RMS, arms_geo_of, SL_ARMS_W)
