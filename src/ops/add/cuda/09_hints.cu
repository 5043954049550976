/*
 * Cache-hint rungs (issue 6, item 5): the block tile at K = 1 (one 16-byte
 * vector per input per thread, vec4's shape as a tile; tile.cuh) with each
 * cache operator, beside the same kernel with none, in one run.
 *
 * Source: seed 000, "Cache hints" (streaming / last-use / no-allocate loads
 * were "within 1-2%" of the default on the RTX 4060); PTX ISA, "Cache
 * Operators" and "createpolicy".
 *
 * Expectation (before the H200 run): a streaming kernel touches each line
 * once, so the hints only change which lines L2 evicts first, and L2 is
 * not where the time goes (the working set is 20x the L2). Within +-2% of
 * tile1 for .cs, .lu and evict-first; no_allocate goes through the
 * read-only path, which cost 6-11% for `.nc` loads in the rung-7 search
 * (docs/ladder.md), so expect it at the low end.
 */
#include "add.cuh"
#include "tile.cuh"

template <int DT, class OP> using rung_tile1 = rung_tile<256, 1, HINT_DEFAULT, DT, OP>;
template <int DT, class OP> using rung_tile1_cs = rung_tile<256, 1, HINT_STREAMING, DT, OP>;
template <int DT, class OP> using rung_tile1_lu = rung_tile<256, 1, HINT_LAST_USE, DT, OP>;
template <int DT, class OP> using rung_tile1_nc = rung_tile<256, 1, HINT_NO_ALLOCATE, DT, OP>;
template <int DT, class OP> using rung_tile1_ef = rung_tile<256, 1, HINT_EVICT_FIRST, DT, OP>;

SL_EW_LAUNCHER(sl_cuda_add_tile1, rung_tile1, sl_k_add)
SL_EW_LAUNCHER(sl_cuda_add_tile1_cs, rung_tile1_cs, sl_k_add)
SL_EW_LAUNCHER(sl_cuda_add_tile1_lu, rung_tile1_lu, sl_k_add)
SL_EW_LAUNCHER(sl_cuda_add_tile1_nc, rung_tile1_nc, sl_k_add)
SL_EW_LAUNCHER(sl_cuda_add_tile1_ef, rung_tile1_ef, sl_k_add)
