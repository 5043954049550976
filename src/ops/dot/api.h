/* sl_dot: *result = sum over i in [0, n) of a[i] * b[i], a reduction. Every
 * product and the sum are computed in fp64, for SL_F32 too (an f32 product
 * is exact in fp64), and the sum is rounded once to nearest-even into
 * dtype: the result is within 1 ulp of dtype of the exact dot product plus
 * L x 2^-53 x sum|a[i] b[i]|, L = ceil(n / P) + ceil(log2 P) + 1, where P
 * is the number of partial sums the public kernel forms: P = 4096 on a
 * CUDA context (at least 4096 threads each add an fp64 partial sum in
 * order, combined by a fixed tree; the bound takes the fewest) and P = 1
 * on a CPU context (the bound of one sequential sum, which also covers
 * the OpenMP threads' partials). The ulp is dtype's at the result,
 * 2^-149 (f32) or 2^-1074 (f64) for a result below the normal range: the
 * underflow term of the check (docs/architecture.md, "Tolerances"; Higham
 * 2002, section 4.2).
 * n = 0 writes 0 to *result: a and b may then be NULL, but result must be
 * a valid pointer (SL_ERR_INVALID_ARG if NULL), the one exception to the
 * contract's "n = 0 accepts NULL pointers", as the result is still written.
 *
 * Deterministic: the same inputs on the same device, launch configuration
 * and build give the same bits every time (fixed per-thread order, fixed
 * block and grid combination order; no floating-point atomics).
 *
 * dtype: SL_F32 or SL_F64.
 * Shapes and units: a and b hold n elements of `dtype`; result is one
 * element of `dtype` (device memory for a CUDA context), written when the
 * kernel completes.
 * Aliasing: a and b may overlap freely (a == b gives the sum of squares);
 * result must not overlap a or b, result == a (or b) included, for any n:
 * SL_ERR_OVERLAP (the kernel reads a and b after other blocks may have
 * written the result).
 * Workspace: the context's (a few KiB, allocated and zeroed on first use):
 * calls of sl_dot on one context on different streams must be ordered by
 * the caller.
 * Alignment, memory, stream, errors: the contract above.
 * Source: STREAM's successors' Dot (BabelStream 5.0, UoB-HPC); the
 * reference is Ogita, Rump and Oishi's Dot2 ("Accurate sum and dot
 * product", SIAM J. Sci. Comput. 26(6), 2005, Algorithm 5.3). */
sl_status sl_dot(sl_ctx *ctx, sl_dtype dtype, size_t n, const void *a, const void *b, void *result, void *stream);

