/* sl_gemm: C = alpha A B + beta C, a general matrix product, ROW-MAJOR (C
 * convention: element (i, j) of X is X[i * ldx + j]), in the BLAS argument
 * order.
 *
 * transa, transb: 'N' or 'n' (no transposition). 'T', 't', 'C' and 'c'
 *   are BLAS-valid but not implemented: SL_ERR_UNSUPPORTED; anything else
 *   is SL_ERR_INVALID_ARG.
 * Shapes and units: m, n, k >= 1 (a zero extent is SL_ERR_INVALID_ARG); A
 *   is m x k with lda >= k, B is k x n with ldb >= n, C is m x n with
 *   ldc >= n; leading dimensions in elements (a smaller one is
 *   SL_ERR_INVALID_ARG). Elements between a row's end and the next row's
 *   start are never read or written.
 * dtype: SL_F32 (fp32 fma chains on CUDA cores, like cublasSgemm), SL_BF16
 *   or SL_F16 (A, B and C in that dtype: inputs widened exactly, products
 *   exact in fp32, fp32 accumulation on tensor cores, alpha acc + beta c
 *   rounded once to nearest-even into the dtype). Other dtypes:
 *   SL_ERR_UNSUPPORTED. alpha and beta are rounded to fp32 first, and
 *   beta == 0 is tested after that rounding: a beta that rounds to 0 (such
 *   as 1e-50) is 0. beta == 0: C is not read (it may hold NaN), as in
 *   BLAS.
 * Numerics: each entry is within u_out |C_ij| + (gamma_{k+2}(u_acc) + 2
 *   u_in) (|alpha| sum_p |a_ip b_pj| + |beta c_ij|) of the exact result,
 *   u_out the unit roundoff of dtype, u_acc 2^-24 (f32 on CUDA cores and
 *   the CPU) or 2^-23 (tensor cores, whose fp32 accumulation truncates),
 *   u_in 0 (exact products), gamma_n = n u / (1 - n u) (Higham,
 *   "Accuracy and Stability of Numerical Algorithms", 2nd ed., section
 *   3.1; Fasi et al., PeerJ CS 7:e330, 2021, for tensor cores); the tests
 *   check every rung against an fp64 reference within this bound as
 *   written; `streamlab run` checks the looser 2 ulp(C_ij) + L u_acc x
 *   (the largest such magnitude over C) (op.h, SL_TOL_REDUCTION), where
 *   ulp(C_ij), for a C_ij below dtype's normal range, is the subnormal
 *   spacing, 2^-149 (f32), 2^-133 (bf16) or 2^-24 (f16): its underflow
 *   term. Not
 *   deterministic across devices or library versions (tiling changes the
 *   summation order), deterministic on one.
 * Alignment: each pointer aligned to its element size (SL_ERR_MISALIGNED);
 *   the fastest paths need 16-byte aligned bases and leading dimensions
 *   that are multiples of 16 bytes, and fall back to scalar loads otherwise.
 * Aliasing: C must not overlap A or B (SL_ERR_OVERLAP), C == A included;
 *   A and B may overlap each other. The test is on each matrix's whole
 *   extent, from its first element to its last, row padding included: a C
 *   lying inside A's (or B's) padding between rows, which is never read,
 *   is still SL_ERR_OVERLAP.
 * Memory, stream: device memory and a cudaStream_t (NULL: the default
 *   stream) on a CUDA context, returning once the kernel is enqueued; host
 *   memory on a CPU context (stream ignored; OpenMP rung, returns when
 *   done).
 * What runs: CUDA f32 the warp-tiled cp.async rung (05; the vectorised
 *   rung 04 on GPUs older than sm_80), or where its 128 x 128 blocks would
 *   number under 32 the small-shape rung (09: 16 x 32 tiles, K split over
 *   8 warps; issue 19); bf16 / f16 on a compute capability
 *   9.0 GPU (H100, H200) the wgmma + TMA rung (08, when the build has
 *   sm_90a code) if A and B have 16-byte aligned bases and lda, ldb are
 *   multiples of 8 elements (TMA's rules; C has none), in the
 *   configuration chosen by shape (issue 26: 128 x 256 tiles from one
 *   full wave of them up; below, 128 x 128 tiles and K split over 2 or 4
 *   CTAs of a cluster, partials summed in a fixed order through
 *   distributed shared memory, so results are deterministic and no
 *   workspace is used; docs/ladder.md, "sl_gemm by shape"), otherwise the
 *   ldmatrix + mma.sync rung (07; sm_80 or newer, else
 *   SL_ERR_UNSUPPORTED); CPU the OpenMP rung. Same numerics and bound on
 *   every path.
 * Source: seed 002 (tiled matmul), seed 004 (tensor cores); issue 12. */
sl_status sl_gemm(sl_ctx *ctx, sl_dtype dtype, char transa, char transb, size_t m, size_t n, size_t k, double alpha,
                  const void *A, size_t lda, const void *B, size_t ldb, double beta, void *C, size_t ldc,
                  void *stream);
