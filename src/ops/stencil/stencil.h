/*
 * stencil.h - the 2-D star stencil op (seed 004, "2D Stencil Experiment"):
 * its dtypes, its radius limits, its coefficients, the summation order
 * every implementation follows, and the CUDA launchers. C11 and CUDA C.
 *
 * out[i][j] = c_0 x[i][j] + sum_{k=1..R} c_k (x[i][j-k] + x[i][j+k] + x[i-k][j] + x[i+k][j])
 *
 * on a rows x cols f32 grid, row-major with leading dimension ld (the same
 * for in and out). The radius R (1..16) is the shape's third extent k
 * (`--shape 8192x8192x4` is radius 4; k = 0, a plain RxC, means the default
 * radius 4): so that the traffic, the flops and the model see it.
 *
 * Summation order (the one order, so that every rung and the CPU
 * reference give the same bits): acc = c_0 * x[i][j] (one fp32 rounding);
 * then for k = 1, 2, ..., R in that order:
 *     t   = ((W_k + E_k) + N_k) + S_k         three fp32 additions, left to right
 *     acc = fmaf(c_k, t, acc)                  one fused multiply-add
 * with W_k = x[i][j-k], E_k = x[i][j+k], N_k = x[i-k][j], S_k = x[i+k][j].
 * This is the seed's loop (res = coef[0] in[c]; res += coef[i] (in[c-i] +
 * in[c+i] + in[c-i n1] + in[c+i n1])) with its multiply-add fused.
 *
 * Boundary rule: a neighbour outside the grid (row < 0 or >= rows, column
 * < 0 or >= cols) reads as +0.0f and is added like any other term; every
 * output point, the edges included, is written (a zero Dirichlet halo).
 * Padding columns between cols and ld are never read nor written.
 */
#ifndef SL_OP_STENCIL_H
#define SL_OP_STENCIL_H

#include "ew.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SL_STENCIL_DTYPES SL_DT(F32)
#define SL_STENCIL_MIN_RADIUS 1
#define SL_STENCIL_MAX_RADIUS 16
#define SL_STENCIL_DEFAULT_RADIUS 4

/* The coefficients c_0..c_16, the same for every radius (a radius-R
 * stencil uses c_0..c_R): c_0 = 1/2, c_k = 1 / (8 (k + 1)^2) for k >= 1,
 * each the double value converted once to float at compile time (GCC and
 * nvcc round to nearest; C11 6.3.1.5 leaves the direction to the
 * implementation, and a difference would fail the bit-exact GPU tests), so
 * the host table and the device's __constant__ table hold the same bits. Non-powers of two on purpose: c_k t rounds, so a kernel that
 * sums in another order than the reference shows. 4 (c_1 + ... + c_16) is
 * below 0.3, so |out| < 0.8 max|x|: no overflow from finite input. */
#define SL_STENCIL_COEF(k) ((k) == 0 ? 0.5f : (float)(1.0 / (8.0 * ((k) + 1.0) * ((k) + 1.0))))
#define SL_STENCIL_COEF_LIST                                                                                          \
    SL_STENCIL_COEF(0), SL_STENCIL_COEF(1), SL_STENCIL_COEF(2), SL_STENCIL_COEF(3), SL_STENCIL_COEF(4),               \
        SL_STENCIL_COEF(5), SL_STENCIL_COEF(6), SL_STENCIL_COEF(7), SL_STENCIL_COEF(8), SL_STENCIL_COEF(9),           \
        SL_STENCIL_COEF(10), SL_STENCIL_COEF(11), SL_STENCIL_COEF(12), SL_STENCIL_COEF(13), SL_STENCIL_COEF(14),      \
        SL_STENCIL_COEF(15), SL_STENCIL_COEF(16)

/* The radius of a shape: k, or the default for k = 0; 0 when k is
 * outside [SL_STENCIL_MIN_RADIUS, SL_STENCIL_MAX_RADIUS]. */
static inline int sl_stencil_radius(const sl_shape *s)
{
    if (s->k == 0)
        return SL_STENCIL_DEFAULT_RADIUS;
    return s->k <= SL_STENCIL_MAX_RADIUS ? (int)s->k : 0;
}

/* Checks every launcher makes (sl_stencil_check in stencil.c): f32, a
 * valid radius, rows, cols >= 1, ld >= cols, and in != out. */
sl_status sl_stencil_check(const sl_args *x, const char *who, int *radius);

SL_DECLARE_LAUNCHER(sl_cuda_stencil_l1)
SL_DECLARE_LAUNCHER(sl_cuda_stencil_smem)
SL_DECLARE_LAUNCHER(sl_cuda_stencil_regwin)
SL_DECLARE_LAUNCHER(sl_cuda_stencil_regwin4)
SL_DECLARE_LAUNCHER(sl_cuda_stencil_regwin4_d8)
SL_DECLARE_LAUNCHER(sl_cuda_stencil_regwin2)
SL_DECLARE_LAUNCHER(sl_cuda_stencil_tma)
/* kernels the tma rung launched in this process (CUDA builds only); the
 * tests use it to see which rung sl_stencil2d ran */
unsigned long long sl_cuda_stencil_tma_launches(void);
sl_status sl_cuda_stencil_api(const sl_args *x);

#ifdef __cplusplus
}
#endif

#endif /* SL_OP_STENCIL_H */
