/*
 * The stencil op on the CPU (issue 11), in CI:
 *   1. the op's reference and its CPU rungs (every CPU variant, sl_stencil2d
 *      on a CPU context) against an oracle written here once more: the
 *      grid copied into a zero-padded array (the boundary rule made
 *      explicit), the coefficients recomputed at run time from their
 *      formula, the documented order; bit for bit, at odd shapes (1 x 1,
 *      single rows and columns, grids smaller than the radius, ld > cols)
 *      and every radius 1..16; padding columns and the bytes after the
 *      output never written;
 *   2. the oracle itself against the stencil in double (within a few fp32
 *      roundings of the sum of magnitudes), so that it cannot share a
 *      wrong formula with the code it judges;
 *   3. the boundary rule and the coefficients by hand: a unit impulse gives
 *      c_k at distance k and c_0 at the centre, and nothing from outside;
 *   4. the errors: radius 0 and 17, in place, overlap, a bad shape, NULL.
 */
#include "check.h"
#include "internal.h"
#include "op.h"
#include "rng.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static float oracle_coef(int k)
{
    return k == 0 ? 0.5f : (float)(1.0 / (8.0 * (double)(k + 1) * (double)(k + 1)));
}

/* out[i * ld + j] for the whole grid, through a zero-padded copy. */
static void oracle(const float *x, float *y, size_t rows, size_t cols, size_t ld, int R)
{
    const size_t pc = cols + 2 * (size_t)R, pr = rows + 2 * (size_t)R;
    float *p = calloc(pr * pc, sizeof *p);
    for (size_t i = 0; i < rows; i++)
        memcpy(p + (i + (size_t)R) * pc + R, x + i * ld, cols * sizeof *p);
    for (size_t i = 0; i < rows; i++)
        for (size_t j = 0; j < cols; j++) {
            const float *c = p + (i + (size_t)R) * pc + (j + (size_t)R);
            float acc = oracle_coef(0) * c[0];
            for (int k = 1; k <= R; k++) {
                float t = c[-k] + c[k];
                t = t + c[-(ptrdiff_t)(k * pc)];
                t = t + c[k * pc];
                acc = fmaf(oracle_coef(k), t, acc);
            }
            y[i * ld + j] = acc;
        }
    free(p);
}

/* max over the grid of |oracle - double| / (sum of |terms|): a few fp32 ulps. */
static double oracle_vs_double(const float *x, const float *y, size_t rows, size_t cols, size_t ld, int R)
{
    double worst = 0;
    for (size_t i = 0; i < rows; i++)
        for (size_t j = 0; j < cols; j++) {
            double s = 0.5 * x[i * ld + j], mag = fabs(s);
            for (int k = 1; k <= R; k++) {
                const double ck = 1.0 / (8.0 * (k + 1.0) * (k + 1.0));
                const long long ii = (long long)i, jj = (long long)j;
                const long long nb[4][2] = {{ii, jj - k}, {ii, jj + k}, {ii - k, jj}, {ii + k, jj}};
                for (int q = 0; q < 4; q++) {
                    const long long r = nb[q][0], c = nb[q][1];
                    if (r >= 0 && c >= 0 && r < (long long)rows && c < (long long)cols) {
                        s += ck * x[(size_t)r * ld + (size_t)c];
                        mag += fabs(ck * x[(size_t)r * ld + (size_t)c]);
                    }
                }
            }
            const double e = mag > 0 ? fabs(y[i * ld + j] - s) / mag : fabs((double)y[i * ld + j]);
            if (e > worst)
                worst = e;
        }
    return worst;
}

static const float POISON = -12345.0f;

/* Compare the written grid with the oracle bit for bit, and the padding
 * and guard with the poison. Returns mismatches. */
static size_t compare(const float *got, const float *want, size_t rows, size_t cols, size_t ld, size_t guard)
{
    size_t bad = 0;
    for (size_t i = 0; i < rows; i++)
        for (size_t j = 0; j < ld; j++) {
            const size_t e = i * ld + j;
            if (i == rows - 1 && j >= cols)
                break;
            if (j < cols)
                bad += memcmp(&got[e], &want[e], 4) != 0;
            else
                bad += got[e] != POISON;
        }
    const size_t span = (rows - 1) * ld + cols;
    for (size_t g = 0; g < guard; g++)
        bad += got[span + g] != POISON;
    return bad;
}

typedef struct shape_case {
    size_t rows, cols, ld;
} shape_case;

static const shape_case shapes[] = {{1, 1, 1},   {1, 37, 37},  {29, 1, 1},   {2, 3, 3},     {5, 5, 8},
                                    {17, 33, 33}, {33, 17, 20}, {40, 70, 71}, {64, 130, 130}, {97, 45, 64}};

static void test_against_oracle(sl_ctx *cpu)
{
    const size_t guard = 9;
    for (size_t sc = 0; sc < sizeof shapes / sizeof shapes[0]; sc++) {
        const shape_case *s = &shapes[sc];
        const size_t span = (s->rows - 1) * s->ld + s->cols, len = span + guard;
        float *x = malloc(len * 4), *want = malloc(len * 4), *got = malloc(len * 4);
        for (size_t e = 0; e < len; e++)
            x[e] = (e % s->ld) < s->cols && e < span ? sl_rand_f32(7 + sc, e) : NAN; /* padding: NaN, never read */
        for (int R = 1; R <= 16; R++) {
            for (size_t e = 0; e < len; e++)
                want[e] = POISON;
            oracle(x, want, s->rows, s->cols, s->ld, R);
            const double dev = oracle_vs_double(x, want, s->rows, s->cols, s->ld, R);
            CHECK(dev <= 4 * (R + 1) * 0x1p-24, "oracle vs double %zux%zu R=%d: %g", s->rows, s->cols, R, dev);
            const sl_shape shape = {.rows = s->rows, .cols = s->cols, .ld = s->ld, .k = (uint64_t)R};

            /* the reference, over the whole grid (ref_whole) */
            for (size_t e = 0; e < len; e++)
                got[e] = POISON;
            sl_ref_args ra = {.shape = shape, .lo = 0, .hi = s->rows, .dtype = SL_F32, .out_dtype = SL_F32};
            ra.in[0] = x;
            ra.out[1] = got;
            sl_op_stencil.reference(&ra);
            size_t bad = compare(got, want, s->rows, s->cols, s->ld, guard);
            CHECK(bad == 0, "reference %zux%zu ld %zu R=%d: %zu elements wrong", s->rows, s->cols, s->ld, R, bad);

            /* every CPU variant */
            for (int v = 0; v < sl_op_stencil.nvariants; v++) {
                const sl_variant *var = &sl_op_stencil.variants[v];
                if (var->backend != SL_BACKEND_CPU || !var->launch || var->kind == SL_KIND_CEILING)
                    continue;
                for (size_t e = 0; e < len; e++)
                    got[e] = POISON;
                sl_args a = {.op = &sl_op_stencil, .shape = shape, .n = s->rows * s->cols, .buf = {x, got},
                             .dtype = SL_F32, .out_dtype = SL_F32};
                CHECK(var->launch(&a) == SL_OK, "%s: %s", var->name, sl_last_error());
                bad = compare(got, want, s->rows, s->cols, s->ld, guard);
                CHECK(bad == 0, "%s %zux%zu ld %zu R=%d: %zu elements wrong", var->name, s->rows, s->cols, s->ld, R,
                      bad);
            }

            /* the public function */
            for (size_t e = 0; e < len; e++)
                got[e] = POISON;
            CHECK(sl_stencil2d(cpu, s->rows, s->cols, s->ld, R, x, got, NULL) == SL_OK, "sl_stencil2d: %s",
                  sl_last_error());
            bad = compare(got, want, s->rows, s->cols, s->ld, guard);
            CHECK(bad == 0, "sl_stencil2d %zux%zu ld %zu R=%d: %zu elements wrong", s->rows, s->cols, s->ld, R, bad);
        }
        free(x);
        free(want);
        free(got);
    }
}

/* A unit impulse at (i0, j0) on a 40 x 41 grid: out = c_0 at the centre,
 * c_k (exactly: c_k x 1 + 0) at distance k along the axes up to R, 0 else;
 * near an edge, the terms that fall outside are simply absent. */
static void test_impulse(sl_ctx *cpu)
{
    const size_t rows = 40, cols = 41;
    float *x = calloc(rows * cols, 4), *y = malloc(rows * cols * 4);
    const size_t pos[][2] = {{20, 20}, {0, 0}, {39, 40}, {3, 38}};
    for (int R = 1; R <= 16; R += 5)
        for (size_t p = 0; p < 4; p++) {
            const long long i0 = (long long)pos[p][0], j0 = (long long)pos[p][1];
            memset(x, 0, rows * cols * 4);
            x[i0 * (long long)cols + j0] = 1.0f;
            CHECK(sl_stencil2d(cpu, rows, cols, cols, R, x, y, NULL) == SL_OK, "impulse: %s", sl_last_error());
            size_t bad = 0;
            for (long long i = 0; i < (long long)rows; i++)
                for (long long j = 0; j < (long long)cols; j++) {
                    const long long di = llabs(i - i0), dj = llabs(j - j0);
                    float want = 0.0f;
                    if (di == 0 && dj == 0)
                        want = 0.5f;
                    else if ((di == 0 && dj <= R) || (dj == 0 && di <= R))
                        want = (float)(1.0 / (8.0 * (double)(di + dj + 1) * (double)(di + dj + 1)));
                    bad += y[i * (long long)cols + j] != want;
                }
            CHECK(bad == 0, "impulse at (%lld, %lld) R=%d: %zu points wrong", i0, j0, R, bad);
        }
    /* A constant field of ones: interior points get c_0 + 4 sum c_k; a
     * corner only 2 of the 4 arms. */
    for (size_t e = 0; e < rows * cols; e++)
        x[e] = 1.0f;
    CHECK(sl_stencil2d(cpu, rows, cols, cols, 2, x, y, NULL) == SL_OK, "ones: %s", sl_last_error());
    const float c1 = (float)(1.0 / 32.0), c2 = (float)(1.0 / 72.0);
    const float inner = fmaf(c2, 4.0f, fmaf(c1, 4.0f, 0.5f)), corner = fmaf(c2, 2.0f, fmaf(c1, 2.0f, 0.5f));
    CHECK(y[20 * cols + 20] == inner, "ones interior: %a, want %a", y[20 * cols + 20], inner);
    CHECK(y[0] == corner, "ones corner: %a, want %a", y[0], corner);
    free(x);
    free(y);
}

static void test_errors(sl_ctx *cpu)
{
    float *a = calloc(64, 4), *b = calloc(64, 4);
    CHECK(sl_stencil2d(cpu, 8, 8, 8, 0, a, b, NULL) == SL_ERR_INVALID_ARG, "radius 0");
    CHECK(strstr(sl_last_error(), "radius") != NULL, "radius message: %s", sl_last_error());
    CHECK(sl_stencil2d(cpu, 8, 8, 8, 17, a, b, NULL) == SL_ERR_INVALID_ARG, "radius 17");
    CHECK(sl_stencil2d(cpu, 8, 8, 8, -3, a, b, NULL) == SL_ERR_INVALID_ARG, "radius -3");
    CHECK(sl_stencil2d(cpu, 8, 8, 8, 4, a, a, NULL) == SL_ERR_OVERLAP, "in place");
    CHECK(strstr(sl_last_error(), "in place") != NULL, "in-place message: %s", sl_last_error());
    sl_status st = sl_stencil2d(cpu, 4, 8, 8, 4, a, a + 8, NULL);
    CHECK(st == SL_ERR_OVERLAP, "overlap: %s", sl_status_string(st));
    CHECK(sl_stencil2d(cpu, 8, 8, 7, 4, a, b, NULL) == SL_ERR_INVALID_ARG, "ld < cols");
    CHECK(sl_stencil2d(cpu, 0, 8, 8, 4, a, b, NULL) == SL_ERR_INVALID_ARG, "0 rows");
    CHECK(sl_stencil2d(cpu, 8, 0, 8, 4, a, b, NULL) == SL_ERR_INVALID_ARG, "0 cols");
    CHECK(sl_stencil2d(cpu, 8, 8, 8, 4, NULL, b, NULL) == SL_ERR_INVALID_ARG, "NULL in");
    CHECK(sl_stencil2d(cpu, 8, 8, 8, 4, a, NULL, NULL) == SL_ERR_INVALID_ARG, "NULL out");
    CHECK(sl_stencil2d(NULL, 8, 8, 8, 4, a, b, NULL) == SL_ERR_INVALID_ARG, "NULL ctx");
    /* a launcher asked for a radius through the shape's k */
    const sl_variant *omp = sl_variant_find(&sl_op_stencil, SL_BACKEND_CPU, "omp");
    CHECK(omp != NULL, "omp rung");
    if (omp) {
        sl_args x = {.op = &sl_op_stencil, .shape = {.rows = 8, .cols = 8, .ld = 8, .k = 17}, .n = 64, .buf = {a, b},
                     .dtype = SL_F32, .out_dtype = SL_F32};
        CHECK(omp->launch(&x) == SL_ERR_INVALID_ARG, "omp radius 17");
        x.shape.k = 0; /* the default radius */
        CHECK(omp->launch(&x) == SL_OK, "omp default radius: %s", sl_last_error());
        x.dtype = x.out_dtype = SL_F64;
        x.shape.k = 4;
        CHECK(omp->launch(&x) == SL_ERR_UNSUPPORTED, "omp f64");
    }
    free(a);
    free(b);
}

int main(void)
{
    sl_ctx *cpu = NULL;
    CHECK(sl_ctx_create(SL_DEVICE_CPU, &cpu) == SL_OK, "cpu context: %s", sl_last_error());
    if (!cpu)
        return check_exit("test_stencil");
    CHECK(sl_op_find("stencil") == &sl_op_stencil && sl_op_stencil.rank == 2 && sl_op_stencil.ref_whole &&
              sl_op_stencil.no_inplace,
          "descriptor");
    test_against_oracle(cpu);
    test_impulse(cpu);
    test_errors(cpu);
    sl_ctx_destroy(cpu);
    return check_exit("test_stencil");
}
