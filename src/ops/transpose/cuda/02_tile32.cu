/*
 * transpose rung 2: the seed's shared-memory tile, 32 x 32 elements
 * (`__shared__ float sm[32][32]`, seed 004, "Case Study: Matrix Transpose",
 * lines 709-740). Both global sides are now coalesced rows; the price is
 * the column read of the tile: the 32 lanes read words 32 apart, all in
 * one bank.
 *
 * Expectation (seed 004's rules): a 32-way conflict on every tile load in
 * f32 (32 wavefronts for one request); 16-way in f64 (each 8-byte half
 * warp in one bank pair) and in f16 (two 2-byte words share a 4-byte
 * word, 16 distinct words per bank). The store into the tile is
 * conflict-free. Shared-memory bound in f32: 32 + 1 wavefronts (one
 * clock each) move 32 elements through the tile, so an SM passes ~1 f32
 * per clock: 132 SMs x 1.98 GHz x 8 bytes (read + written) = ~2.0 TB/s,
 * half the copy ceiling. f16 (16 wavefronts for 32 elements of 2 bytes)
 * the same; f64 (32 wavefronts for 32 x 8 bytes) twice that, near DRAM's
 * pace. DRAM traffic is the compulsory one.
 */
#include "transpose.cuh"

TP_TILE_LAUNCHER(sl_cuda_transpose_tile32, tp_plain)
