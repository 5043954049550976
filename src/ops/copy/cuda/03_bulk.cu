/*
 * copy rung 3 (ours): each input's 4 KiB tile staged through shared
 * memory by cp.async.bulk on one mbarrier, one tile per block (bulk.cuh),
 * stores as 16-byte st.global. Needs sm_90.
 *
 * Expectation: add's bulk rung was 1.003 x CUB at 200M on the H200, the
 * best of that ladder: the load/store units no longer track the loads.
 */
#include "copy.cuh"
#include "bulk.cuh"

template <int DT, class OP> using rung_bulk = rung_bulk_tile<256, 1, false, DT, OP>;

SL_EW_LAUNCHER(sl_cuda_copy_bulk, rung_bulk, sl_k_copy)
