/*
 * transpose rung 3: the 32 x 33 padded tile (`__shared__ float sm[32][33]`,
 * seed 004, lines 740-773: "Warp accesses a row or a column: no conflict",
 * "Speedup 1.3x" on the V100). One word of padding per row shifts each row
 * by one bank, so a column of 32 words covers all 32 banks.
 *
 * Expectation: no conflicts in f32; in f64 the row pitch is 33 x 8 bytes =
 * 66 banks, so lane t of a half warp lands in bank pair 2t mod 32: none
 * either; in f16 the pitch is 66 bytes and a column spreads over 32 banks:
 * none. DRAM-bound: close to the copy ceiling, with the tile rung's
 * conflicts gone (the seed's 1.3x on Volta; the ratio on the H200 is
 * what this rung measures).
 */
#include "transpose.cuh"

TP_TILE_LAUNCHER(sl_cuda_transpose_pad33, tp_pad)
