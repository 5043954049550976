/*
 * bulk (ours; add's rung 8): x and y tiles of 4 KiB staged through shared
 * memory by cp.async.bulk, completed on an mbarrier, one tile per block
 * (bulk.cuh). y is read into shared memory before any thread writes it, so
 * the in-place update is safe. Needs sm_90.
 *
 * Expectation: as add's bulk, at the DRAM roof; it is what sl_axpy runs on
 * sm_90.
 */
#include "axpy.cuh"
#include "bulk.cuh"

template <int DT, class OP> using rung_bulk = rung_bulk_tile<256, 1, false, DT, OP>;

SL_EW_LAUNCHER(sl_cuda_axpy_bulk, rung_bulk, sl_k_axpy)
