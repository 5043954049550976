/*
 * transpose rung 4: the XOR-swizzled 32 x 32 tile, no padding: element
 * (r, c) lives at r * 32 + (c ^ r). A row (fixed r) is a permutation of
 * the 32 banks, and so is a column (fixed c: c ^ r takes all 32 values).
 * The layout the bulk tensor copies' 128-byte swizzle modes use on sm_90
 * (CUDA C++ Programming Guide, "Tensor Memory Access", swizzle modes),
 * here applied by the threads themselves.
 *
 * Expectation: the padded rung's speed without its extra 128 bytes of
 * shared memory per tile (which matter only when shared memory limits
 * occupancy: not here). One XOR per access more. Conflict-free in f32, f64
 * (half-warp lanes in bank pairs 2 (c ^ t) mod 32, distinct) and f16.
 */
#include "transpose.cuh"

TP_TILE_LAUNCHER(sl_cuda_transpose_swizzle, tp_xor)
