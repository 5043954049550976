/*
 * test_contract.c - the contract's loose ends of issue 25, on a CPU
 * context: what the doc blocks say and what the code does, side by side.
 *   sl_dot: n = 0 writes 0 (a, b NULL; result must be valid); result must
 *           not overlap a or b, result == a with n = 1 included; the P of
 *           its bound is the public variants' `partials` (4096 CUDA, 1 CPU).
 *   sl_gemm: beta == 0 decided after rounding beta to f32 (1e-50 is 0: C,
 *           full of NaN, not read), in the API and in the reference; C in
 *           A's row padding is SL_ERR_OVERLAP.
 *   The order of the error checks (streamlab.h, "Order"): ctx, dtype,
 *           shape and parameters, NULL, misaligned, overlap, in every op.
 */
#include "check.h"
#include "internal.h"
#include "mm.h"
#include "op.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static int says(const char *word)
{
    return strstr(sl_last_error(), word) != NULL;
}

static void test_dot(sl_ctx *ctx)
{
    double a[8] = {1, 2, 3, 4, 5, 6, 7, 8}, b[8] = {1, 1, 1, 1, 1, 1, 1, 1}, r = 42.0;
    CHECK(sl_dot(ctx, SL_F64, 0, NULL, NULL, &r, NULL) == SL_OK && r == 0.0, "n = 0, a = b = NULL: %s, r = %g",
          sl_last_error(), r);
    CHECK(sl_dot(ctx, SL_F64, 0, NULL, NULL, NULL, NULL) == SL_ERR_INVALID_ARG && says("NULL"),
          "n = 0 with result NULL is refused (api.h): %s", sl_last_error());
    CHECK(sl_dot(ctx, SL_F64, 1, a, b, a, NULL) == SL_ERR_OVERLAP, "result == a, n = 1: %s", sl_last_error());
    CHECK(sl_dot(ctx, SL_F64, 1, a, b, b, NULL) == SL_ERR_OVERLAP, "result == b, n = 1");
    CHECK(sl_dot(ctx, SL_F64, 4, a, b, a + 2, NULL) == SL_ERR_OVERLAP, "result inside a");
    CHECK(a[0] == 1.0 && a[2] == 3.0, "a refused call wrote nothing");
    CHECK(sl_dot(ctx, SL_F64, 4, a, a, &r, NULL) == SL_OK && r == 30.0, "a == b: the sum of squares, %g", r);
    CHECK(sl_dot(ctx, SL_F64, 8, a, b, &r, NULL) == SL_OK && r == 36.0, "1 + ... + 8 = %g", r);
    /* P in api.h: 4096 for the CUDA kernel, 1 on the CPU; the verifier's
     * tolerance takes the variants' `partials`. */
    const sl_variant *vc = sl_variant_api(&sl_op_dot, SL_BACKEND_CUDA), *vh = sl_variant_api(&sl_op_dot, SL_BACKEND_CPU);
    CHECK(vc && vc->partials == 4096, "sl_dot's CUDA P is 4096 (api.h): %u", vc ? vc->partials : 0u);
    CHECK(vh && vh->partials == 1, "sl_dot's CPU P is 1 (api.h): %u", vh ? vh->partials : 0u);
}

static void test_gemm(sl_ctx *ctx)
{
    /* 2 x 3 times 3 x 2; C starts as NaN. */
    float A[6] = {1, 2, 3, 4, 5, 6}, B[6] = {1, 0, 0, 1, 1, 1}, C[4], C0[4];
    for (int i = 0; i < 4; i++)
        C[i] = C0[i] = NAN;
    CHECK(sl_gemm(ctx, SL_F32, 'N', 'N', 2, 2, 3, 1.0, A, 3, B, 2, 0.0, C0, 2, NULL) == SL_OK, "%s", sl_last_error());
    CHECK(sl_gemm(ctx, SL_F32, 'N', 'N', 2, 2, 3, 1.0, A, 3, B, 2, 1e-50, C, 2, NULL) == SL_OK, "%s", sl_last_error());
    CHECK(memcmp(C, C0, sizeof C) == 0 && C[0] == 4.0f, "beta = 1e-50 rounds to 0: C not read (got %g %g %g %g)",
          C[0], C[1], C[2], C[3]);
    /* the reference agrees: beta tested after rounding */
    for (int i = 0; i < 4; i++)
        C[i] = NAN;
    sl_mm p = {.m = 2, .n = 2, .k = 3, .lda = 3, .ldb = 2, .ldc = 2, .alpha = 1.0, .beta = 1e-50, .a = A, .b = B,
               .c = C, .dtype = SL_F32};
    double ref = NAN, mag = NAN;
    sl_mm_reference_at(&p, C, 0, 0, &ref, &mag);
    CHECK(ref == 4.0 && isfinite(mag), "the reference with beta = 1e-50 over a NaN C: %g (mag %g)", ref, mag);
    p.beta = 1e-30; /* does not round to 0 in f32: C is read */
    sl_mm_reference_at(&p, C, 0, 0, &ref, &mag);
    CHECK(isnan(ref), "beta = 1e-30 is not 0 in f32: C (NaN) is read, %g", ref);
    /* C inside A's row padding: refused */
    float Ap[4 * 8];
    for (int i = 0; i < 32; i++)
        Ap[i] = (float)i;
    CHECK(sl_gemm(ctx, SL_F32, 'N', 'N', 4, 2, 3, 1.0, Ap, 8, B, 2, 0.0, Ap + 4, 2, NULL) == SL_ERR_OVERLAP,
          "C in A's padding (api.h): %s", sl_last_error());
    CHECK(Ap[4] == 4.0f && Ap[5] == 5.0f, "the refused call wrote nothing");
}

/* streamlab.h, "Order": several faults at once, the first reported. */
static void test_order(sl_ctx *ctx)
{
    float buf[64];
    for (int i = 0; i < 64; i++)
        buf[i] = (float)i;
    const char *mis = (const char *)buf + 2;
    /* (1) ctx before everything */
    CHECK(sl_stencil2d(NULL, 4, 4, 4, 99, NULL, NULL, NULL) == SL_ERR_INVALID_ARG && says("ctx"),
          "stencil: ctx before the radius: %s", sl_last_error());
    CHECK(sl_copy(NULL, (sl_dtype)99, 4, NULL, NULL, NULL) == SL_ERR_INVALID_ARG && says("ctx"), "copy: ctx first");
    CHECK(sl_gemm(NULL, (sl_dtype)99, 'X', 'N', 0, 0, 0, 1.0, NULL, 0, NULL, 0, 0.0, NULL, 0, NULL) ==
                  SL_ERR_INVALID_ARG &&
              says("ctx"),
          "gemm: ctx first: %s", sl_last_error());
    /* (2) dtype before the shape and the parameters */
    CHECK(sl_gemm(ctx, SL_F64, 'T', 'N', 0, 2, 2, 1.0, NULL, 2, NULL, 2, 0.0, NULL, 2, NULL) == SL_ERR_UNSUPPORTED &&
              says("dtype"),
          "gemm: dtype before trans: %s", sl_last_error());
    CHECK(sl_gemm(ctx, (sl_dtype)99, 'X', 'N', 2, 2, 2, 1.0, buf, 2, buf, 2, 0.0, buf + 32, 2, NULL) ==
                  SL_ERR_INVALID_ARG &&
              says("dtype"),
          "gemm: a bad dtype before a bad trans: %s", sl_last_error());
    CHECK(sl_softmax(ctx, SL_F64, (size_t)1 << 40, (size_t)1 << 40, buf, buf + 16, NULL) == SL_ERR_UNSUPPORTED,
          "softmax: dtype before the shape: %s", sl_last_error());
    CHECK(sl_transpose(ctx, SL_FP8_E4M3, 2, 2, NULL, NULL, NULL) == SL_ERR_UNSUPPORTED, "transpose: dtype before NULL");
    /* (3) shape and parameters before the pointers */
    CHECK(sl_stencil2d(ctx, 4, 4, 4, 99, NULL, NULL, NULL) == SL_ERR_INVALID_ARG && says("radius"),
          "stencil: radius before NULL pointers: %s", sl_last_error());
    CHECK(sl_gemm(ctx, SL_F32, 'T', 'N', 2, 2, 2, 1.0, NULL, 2, NULL, 2, 0.0, NULL, 2, NULL) == SL_ERR_UNSUPPORTED &&
              says("trans"),
          "gemm: trans before NULL: %s", sl_last_error());
    CHECK(sl_gemm(ctx, SL_F32, 'N', 'N', 2, 2, 2, 1.0, NULL, 1, NULL, 2, 0.0, NULL, 2, NULL) == SL_ERR_INVALID_ARG &&
              says("lda"),
          "gemm: lda before NULL: %s", sl_last_error());
    CHECK(sl_softmax(ctx, SL_F32, (size_t)1 << 40, (size_t)1 << 40, NULL, NULL, NULL) == SL_ERR_INVALID_ARG &&
              says("overflow"),
          "softmax: the size before NULL: %s", sl_last_error());
    /* (4) NULL before (5) misaligned, whatever the argument order */
    CHECK(sl_add(ctx, SL_F32, 4, mis, NULL, buf + 32, NULL) == SL_ERR_INVALID_ARG && says("NULL"),
          "add: b NULL before a misaligned: %s", sl_last_error());
    CHECK(sl_gemm(ctx, SL_F32, 'N', 'N', 2, 2, 2, 1.0, mis, 2, NULL, 2, 0.0, buf + 32, 2, NULL) ==
                  SL_ERR_INVALID_ARG,
          "gemm: B NULL before A misaligned: %s", sl_last_error());
    CHECK(sl_stencil2d(ctx, 4, 4, 4, 1, (const float *)mis, NULL, NULL) == SL_ERR_INVALID_ARG,
          "stencil: out NULL before in misaligned: %s", sl_last_error());
    /* (5) misaligned before (6) overlap */
    CHECK(sl_copy(ctx, SL_F32, 8, buf, (char *)buf + 6, NULL) == SL_ERR_MISALIGNED,
          "copy: a misaligned c that also overlaps a: %s", sl_last_error());
    CHECK(sl_dot(ctx, SL_F32, 4, buf, buf, (char *)buf + 2, NULL) == SL_ERR_MISALIGNED,
          "dot: a misaligned result inside a: %s", sl_last_error());
    /* (6) overlap */
    CHECK(sl_triad(ctx, SL_F32, 8, 2.0, buf, buf + 16, buf + 4, NULL) == SL_ERR_OVERLAP, "triad: overlap");
    CHECK(sl_transpose(ctx, SL_F32, 2, 2, buf, buf, NULL) == SL_ERR_OVERLAP, "transpose: in place refused");
    /* n = 0 returns after the shape: NULL pointers accepted */
    CHECK(sl_scale(ctx, SL_F32, 0, 2.0, NULL, NULL, NULL) == SL_OK, "scale: n = 0 with NULL");
    CHECK(sl_scale(ctx, (sl_dtype)99, 0, 2.0, NULL, NULL, NULL) == SL_ERR_INVALID_ARG, "n = 0 still checks the dtype");
}

int main(void)
{
    sl_ctx *ctx = NULL;
    if (sl_ctx_create(SL_DEVICE_CPU, &ctx) != SL_OK) {
        fprintf(stderr, "test_contract: cannot open the CPU context: %s\n", sl_last_error());
        return 1;
    }
    test_dot(ctx);
    test_gemm(ctx);
    test_order(ctx);
    sl_ctx_destroy(ctx);
    return check_exit("test_contract");
}
