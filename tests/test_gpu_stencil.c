/*
 * The stencil op on the GPU (issue 11): every CUDA variant of the op (the
 * l1, smem, regwin, regwin4, regwin2 and tma rungs, the api entry) and
 * sl_stencil2d() against the op's CPU reference, bit for bit, at odd shapes
 * (1 x 1, one row, one column, grids smaller than the radius, sizes that
 * are not multiples of any block or strip, ld > cols) and radii 1, 4 and 16
 * (every radius at one shape, R = 1..4 at the issue-26 shapes), each at
 * three offsets of the pointers (16-byte aligned, 4 bytes off, 8 bytes
 * off); then huge values (sums that overflow to +-inf, inf - inf) and NaN
 * inputs, where NaN outputs match as NaN (the payload of a NaN is the
 * hardware's); the padding columns and the bytes after the output must
 * keep their poison. Then the errors on a CUDA context: radius 0 and 17, in
 * place, overlap, a host pointer, NULL. Skips (exit 77) without a GPU; run
 * under compute-sanitizer memcheck by bench/stencil_h200.sh.
 *
 * The tma rung (06_tma.cu) takes only what its tensor map and its 4-column
 * halo can: where this file's own statement of its rule (tma_takes) says
 * it cannot, it must refuse with SL_ERR_UNSUPPORTED, name itself, and
 * leave the output unwritten; elsewhere it must run and match like every
 * rung, and on an sm_90 device it must take cases at every R <= 4.
 */
#include "gpu_common.h"
#include "stencil.h" /* sl_cuda_stencil_tma_launches */

#include <math.h>

static const float POISON = -12345.0f;

typedef struct shape_case {
    size_t rows, cols, ld;
} shape_case;

/* Shapes chosen against the rungs' tiles: l1 32 x 8, smem 32 x 16,
 * regwin and regwin4 256 columns x strips (one wave tall); regwin4 runs
 * its float4 path where ld is a multiple of 4 (and the pointers are
 * 16-byte aligned: every shape runs again 1 float off), with a partial
 * float4 at the right edge where cols is not. */
static const shape_case shapes[] = {{1, 1, 1},       {1, 300, 300},   {300, 1, 1},    {3, 5, 7},
                                    {17, 33, 33},     {129, 257, 257}, {130, 513, 520}, {257, 31, 31},
                                    {300, 700, 704},  {9, 7, 8},       {64, 258, 260},  {70, 1027, 1028},
                                    {2000, 259, 260}, {5, 4, 4},
                                    /* issue 26 (regwin2): odd cols with an even ld (a partial float2 at
                                     * the right edge), one row, one column with an even ld */
                                    {1000, 777, 778}, {1, 1000, 1000}, {1000, 1, 2}, {3, 9, 10},
                                    /* issue 26 item 4 (tma: 32 x 128 tiles, ld a multiple of 4 so that
                                     * it takes them): ragged last tiles in both dimensions, grids
                                     * smaller than one tile, whole tiles, cols ending inside the right
                                     * halo chunk (125..127), 1 x N and N x 1, many tiles */
                                    {33, 129, 132}, {95, 383, 384}, {31, 127, 128}, {7, 9, 12},
                                    {64, 256, 256}, {40, 126, 128}, {65, 125, 132}, {1, 517, 520},
                                    {1, 3, 4}, {300, 1, 4}, {97, 2, 8}, {1025, 1029, 1032}};
enum { FIRST_R14_SHAPE = 14 }; /* shapes from here on run R = 1..4 and 16 */

static int g_cc;                      /* the device's compute capability, 10 x major + minor */
static int g_tma_took[5], g_tma_refused; /* tma's cases taken (by radius 1..4) and refused */

/* Whether the tma rung can take a case: an sm_90 device, R <= 4, in and
 * out 16-byte aligned, and rows of whole 16-byte chunks (ld a multiple of
 * 4: the tensor map's row stride and the float4 stores). */
static bool tma_takes(int R, const float *in, const float *out, size_t ld)
{
    return g_cc >= 90 && R <= 4 && (uintptr_t)in % 16 == 0 && (uintptr_t)out % 16 == 0 && ld % 4 == 0;
}

/* One variant (NULL: sl_stencil2d) at one shape and radius; returns wrong
 * elements (or SIZE_MAX on a failed call). */
static size_t stencil_case(sl_ctx *ctx, const sl_variant *v, const shape_case *s, int R, const float *hx, float *dx,
                       float *dy, float *hy, const float *want, size_t len, size_t guard)
{
    const size_t span = (s->rows - 1) * s->ld + s->cols;
    for (size_t e = 0; e < len; e++)
        hy[e] = POISON;
    /* cudaMemcpy from pageable memory may return before its DMA lands, and
     * the context's stream does not wait for the legacy stream: wait here,
     * or a kernel can read the previous case's input (seen on the H200 at
     * 2000 x 259, rows past ~1500, before this sync was added). */
    if (cudaMemcpy(dy, hy, len * 4, cudaMemcpyHostToDevice) != cudaSuccess ||
        cudaMemcpy(dx, hx, len * 4, cudaMemcpyHostToDevice) != cudaSuccess || cudaDeviceSynchronize() != cudaSuccess)
        return SIZE_MAX;
    sl_status st;
    if (v) {
        sl_args a = {.op = &sl_op_stencil, .shape = {.rows = s->rows, .cols = s->cols, .ld = s->ld, .k = (uint64_t)R},
                     .n = s->rows * s->cols, .buf = {dx, dy}, .dtype = SL_F32, .out_dtype = SL_F32,
                     .stream = ctx->stream};
        st = v->launch(&a);
    } else {
        st = sl_stencil2d(ctx, s->rows, s->cols, s->ld, R, dx, dy, ctx->stream);
    }
    if (v && strcmp(v->name, "tma") == 0 && !tma_takes(R, dx, dy, s->ld)) {
        /* refused, with a reason that names the rung, and nothing written */
        g_tma_refused++;
        CHECK(st == SL_ERR_UNSUPPORTED, "tma %zux%zu ld %zu R=%d: must refuse (status %d)", s->rows, s->cols, s->ld, R,
              (int)st);
        CHECK(strstr(sl_last_error(), "tma") != NULL, "tma: the refusal names the rung: %s", sl_last_error());
        if (ctx->ops->sync(ctx) != SL_OK || cudaMemcpy(hy, dy, len * 4, cudaMemcpyDeviceToHost) != cudaSuccess)
            return SIZE_MAX;
        size_t touched = 0;
        for (size_t e = 0; e < len; e++)
            touched += hy[e] != POISON;
        return touched;
    }
    if (v && strcmp(v->name, "tma") == 0 && st == SL_OK && R >= 1 && R <= 4)
        g_tma_took[R]++;
    if (st == SL_OK)
        st = ctx->ops->sync(ctx);
    CHECK(st == SL_OK, "%s %zux%zu R=%d: %s: %s", case_name(v), s->rows, s->cols, R, sl_status_string(st),
          sl_last_error());
    if (st != SL_OK || cudaMemcpy(hy, dy, len * 4, cudaMemcpyDeviceToHost) != cudaSuccess)
        return SIZE_MAX;
    size_t bad = 0, first = SIZE_MAX;
    for (size_t e = 0; e < len; e++) {
        const bool data = e < span && (e % s->ld) < s->cols;
        const bool ok = data ? memcmp(&hy[e], &want[e], 4) == 0 || (isnan(hy[e]) && isnan(want[e]))
                             : hy[e] == POISON;
        if (!ok && first == SIZE_MAX)
            first = e;
        bad += !ok;
    }
    if (bad)
        fprintf(stderr, "  %s %zux%zu ld %zu R=%d: first wrong at %zu (row %zu col %zu): %a, want %a\n",
                case_name(v), s->rows, s->cols, s->ld, R, first, first / s->ld, first % s->ld, hy[first],
                first < span ? want[first] : POISON);
    (void)guard;
    return bad;
}

/* An input element of a grid (never called for the padding). */
typedef float (*stencil_fill)(const shape_case *s, size_t e, uint64_t seed);

static float fill_random(const shape_case *s, size_t e, uint64_t seed)
{
    (void)s;
    return sl_rand_f32(seed, e);
}

/* Huge values and NaN (issue 26): inputs near FLT_MAX of both signs, so
 * that ((W + E) + N) + S overflows to +-inf and meets the other sign (NaN),
 * infinities, NaNs, denormals and zeros of both signs: one element in 7
 * special, in runs along rows and columns, the others random times 1e38. */
static float fill_special(const shape_case *s, size_t e, uint64_t seed)
{
    static const float special[] = {3.0e38f, -3.0e38f, 3.4028235e38f, INFINITY, -INFINITY, NAN, 1.0e-40f, -0.0f, 0.0f};
    const size_t nspecial = sizeof special / sizeof special[0];
    return (e % 7 == 3 || (e / s->ld) % 13 == 5) ? special[(e / 7) % nspecial] : sl_rand_f32(seed, e) * 1.0e38f;
}

/* One grid: its input from fill (NaN in the padding: never read), then at
 * each of the nr radii the CPU reference, and every CUDA variant and
 * sl_stencil2d() at three offsets of the pointers (16-byte aligned, 4
 * bytes off, 8 bytes off) against it. what: a prefix for the messages. */
static void stencil_grid(sl_ctx *ctx, const char *what, const shape_case *s, const int *radii, int nr,
                         stencil_fill fill, uint64_t seed)
{
    const size_t guard = 33, span = (s->rows - 1) * s->ld + s->cols, len = span + guard;
    float *hx = malloc(len * 4), *hy = malloc(len * 4), *want = malloc(len * 4);
    float *dx = NULL, *dy = NULL;
    CHECK(hx && hy && want && cudaMalloc((void **)&dx, (len + 2) * 4) == cudaSuccess &&
              cudaMalloc((void **)&dy, (len + 2) * 4) == cudaSuccess,
          "memory");
    for (size_t e = 0; e < len; e++)
        hx[e] = e < span && (e % s->ld) < s->cols ? fill(s, e, seed) : NAN;
    for (int ri = 0; ri < nr; ri++) {
        const int R = radii[ri];
        for (size_t e = 0; e < len; e++)
            want[e] = POISON;
        sl_ref_args ra = {.shape = {.rows = s->rows, .cols = s->cols, .ld = s->ld, .k = (uint64_t)R},
                          .lo = 0, .hi = s->rows, .dtype = SL_F32, .out_dtype = SL_F32};
        ra.in[0] = hx;
        ra.out[1] = want;
        sl_op_stencil.reference(&ra);
        for (int v = -1; v < sl_op_stencil.nvariants; v++) {
            const sl_variant *var = v < 0 ? NULL : &sl_op_stencil.variants[v];
            if (var && (var->backend != SL_BACKEND_CUDA || !var->launch || var->kind == SL_KIND_CEILING))
                continue;
            for (int off = 0; off < 3; off++) {
                const size_t bad = stencil_case(ctx, var, s, R, hx, dx + off, dy + off, hy, want, len, guard);
                CHECK(bad == 0, "%s%s %zux%zu ld %zu R=%d offset %d: %zu elements wrong", what, case_name(var),
                      s->rows, s->cols, s->ld, R, off, bad);
            }
        }
    }
    cudaFree(dx);
    cudaFree(dy);
    free(hx);
    free(hy);
    free(want);
}

/* Every shape at radii 1, 4 and 16; 129 x 257 at every radius; the
 * issue-26 shapes at 1..4 and 16. */
static void test_shapes(sl_ctx *ctx)
{
    static const int radii_all[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
    static const int radii_few[] = {1, 4, 16}, radii_r14[] = {1, 2, 3, 4, 16};
    for (size_t sc = 0; sc < sizeof shapes / sizeof shapes[0]; sc++) {
        const bool all_radii = sc == 5; /* 129 x 257: every radius */
        const bool r14 = sc >= FIRST_R14_SHAPE;
        const int *radii = all_radii ? radii_all : r14 ? radii_r14 : radii_few;
        const int nr = all_radii ? 16 : r14 ? 5 : 3;
        stencil_grid(ctx, "", &shapes[sc], radii, nr, fill_random, 31 + sc);
    }
}

/* The special values over a grid with an odd cols and an even ld, and
 * again with ld a multiple of 4 (the tma rung takes it: its boundary zeros
 * come from the tensor map's fill, and NaN and inf travel through the bulk
 * copy), at R = 1..4 and 16. */
static void test_values(sl_ctx *ctx)
{
    static const shape_case s = {300, 517, 518}, s4 = {300, 517, 520};
    static const int radii[] = {1, 2, 3, 4, 16};
    stencil_grid(ctx, "values: ", &s, radii, 5, fill_special, 977);
    stencil_grid(ctx, "values: ", &s4, radii, 5, fill_special, 978);
}

static void test_errors(sl_ctx *ctx)
{
    float *d = NULL, host[64] = {0};
    CHECK(cudaMalloc((void **)&d, 256 * 4) == cudaSuccess, "alloc");
    float *a = d, *b = d + 128;
    CHECK(sl_stencil2d(ctx, 8, 8, 8, 0, a, b, NULL) == SL_ERR_INVALID_ARG, "radius 0");
    CHECK(sl_stencil2d(ctx, 8, 8, 8, 17, a, b, NULL) == SL_ERR_INVALID_ARG, "radius 17");
    CHECK(sl_stencil2d(ctx, 8, 8, 8, 4, a, a, NULL) == SL_ERR_OVERLAP, "in place");
    sl_status st = sl_stencil2d(ctx, 8, 8, 8, 4, a, a + 4, NULL);
    CHECK(st == SL_ERR_OVERLAP, "overlap: %s", sl_status_string(st));
    CHECK(sl_stencil2d(ctx, 8, 8, 8, 4, host, b, NULL) == SL_ERR_BAD_POINTER, "host input");
    CHECK(sl_stencil2d(ctx, 8, 8, 8, 4, a, NULL, NULL) == SL_ERR_INVALID_ARG, "NULL out");
    CHECK(sl_stencil2d(ctx, 8, 8, 4, 4, a, b, NULL) == SL_ERR_INVALID_ARG, "ld < cols");
    /* every CUDA rung refuses a bad radius and in place itself */
    for (int v = 0; v < sl_op_stencil.nvariants; v++) {
        const sl_variant *var = &sl_op_stencil.variants[v];
        if (var->backend != SL_BACKEND_CUDA || !var->launch || var->kind == SL_KIND_CEILING)
            continue;
        sl_args x = {.op = &sl_op_stencil, .shape = {.rows = 8, .cols = 8, .ld = 8, .k = 17}, .n = 64, .buf = {a, b},
                     .dtype = SL_F32, .out_dtype = SL_F32, .stream = ctx->stream};
        CHECK(var->launch(&x) == SL_ERR_INVALID_ARG, "%s radius 17", var->name);
        x.shape.k = 4;
        x.buf[1] = a;
        CHECK(var->launch(&x) == SL_ERR_INVALID_ARG, "%s in place", var->name);
    }
    CHECK(ctx->ops->sync(ctx) == SL_OK, "context still usable: %s", sl_last_error());
    cudaFree(d);
}

/* sl_stencil2d's R = 1 pick (the tma rung at 2^26 points and more on
 * sm_90, regwin4 where tma refuses): 8200 x 8192 (a partial last tile
 * row), 16-byte aligned (tma) and 4 bytes off (the fallback), bit for bit
 * against the reference. */
static void test_api_big(sl_ctx *ctx)
{
    static const shape_case s = {8200, 8192, 8192};
    const size_t guard = 33, span = (s.rows - 1) * s.ld + s.cols, len = span + guard;
    float *hx = malloc(len * 4), *hy = malloc(len * 4), *want = malloc(len * 4);
    float *dx = NULL, *dy = NULL;
    CHECK(hx && hy && want && cudaMalloc((void **)&dx, (len + 2) * 4) == cudaSuccess &&
              cudaMalloc((void **)&dy, (len + 2) * 4) == cudaSuccess,
          "memory");
    for (size_t e = 0; e < len; e++) {
        hx[e] = e < span ? sl_rand_f32(4242, e) : NAN;
        want[e] = POISON;
    }
    sl_ref_args ra = {.shape = {.rows = s.rows, .cols = s.cols, .ld = s.ld, .k = 1}, .lo = 0, .hi = s.rows,
                      .dtype = SL_F32, .out_dtype = SL_F32};
    ra.in[0] = hx;
    ra.out[1] = want;
    sl_op_stencil.reference(&ra);
    for (int off = 0; off < 2; off++) {
        const unsigned long long tma0 = sl_cuda_stencil_tma_launches();
        const size_t bad = stencil_case(ctx, NULL, &s, 1, hx, dx + off, dy + off, hy, want, len, guard);
        CHECK(bad == 0, "sl_stencil2d %zux%zu R=1 offset %d: %zu elements wrong", s.rows, s.cols, off, bad);
        /* the pick (03_regwin.cu): tma at R = 1 from 2^26 points where it takes the case, regwin4 where it
         * refuses (4 bytes off) */
        const unsigned long long took = sl_cuda_stencil_tma_launches() - tma0,
                                 want_tma = tma_takes(1, dx + off, dy + off, s.ld);
        CHECK(took == want_tma, "sl_stencil2d %zux%zu R=1 offset %d on sm_%d: the tma rung ran %llu times, expected %llu",
              s.rows, s.cols, off, g_cc, took, want_tma);
    }
    cudaFree(dx);
    cudaFree(dy);
    free(hx);
    free(hy);
    free(want);
}

int main(void)
{
    sl_ctx *ctx = gpu_open_or_skip("test_gpu_stencil");
    if (!ctx)
        return SKIP;
    g_cc = 10 * ctx->info.cc_major + ctx->info.cc_minor;
    test_shapes(ctx);
    test_values(ctx);
    test_api_big(ctx);
    test_errors(ctx);
    printf("test_gpu_stencil: tma took %d / %d / %d / %d cases at R = 1 / 2 / 3 / 4, refused %d (sm_%d)\n",
           g_tma_took[1], g_tma_took[2], g_tma_took[3], g_tma_took[4], g_tma_refused, g_cc);
    if (g_cc >= 90)
        for (int R = 1; R <= 4; R++)
            CHECK(g_tma_took[R] > 0, "tma took no case at R = %d on sm_%d", R, g_cc);
    sl_ctx_destroy(ctx);
    return check_exit("test_gpu_stencil");
}
