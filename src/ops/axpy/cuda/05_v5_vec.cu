/*
 * v5 (seed 001, 2.6 "saxpy_v5"): one 16-byte vector per input per thread.
 * Seed 001 wrote it for float4 and 16-byte-aligned arrays; here it is the
 * vec kernel of every elementwise ladder (ew_rungs.cuh): any dtype (8 bf16
 * per vector), a scalar head that aligns the body, the tail in parallel,
 * and, when x and y differ modulo 16 bytes, aligned loads of x realigned
 * by funnel shifts (issue 17; the haxpy exercise's arbitrary alignment).
 *
 * Expectation: a quarter of v1's memory instructions per element; seed 001
 * measured 79% of DRAM peak on a B200 (ncu), the best of its ladder.
 */
#include "axpy.cuh"
#include "ew_rungs.cuh"

SL_EW_LAUNCHER(sl_cuda_axpy_v5_vec, rung_vec, sl_k_axpy)
