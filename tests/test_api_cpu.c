/*
 * The public API on the CPU backend: sl_add with odd n, element offsets,
 * in place, and every argument error with its status; sl_axpy and the
 * STREAM set (sl_copy, sl_scale, sl_triad, sl_nstream, sl_dot) on
 * hand-worked values, their dtypes and aliasing rules, dot's determinism.
 * (test_cpu checks every CPU rung of every op at odd sizes and offsets.)
 */
#include "check.h"
#include "rng.h"
#include "streamlab.h"

#include <stdlib.h>
#include <string.h>

static void expect_add(sl_ctx *ctx, size_t n, int oa, int ob, int oc, int alias)
{
    size_t len = n + 8;
    float *A = malloc(len * 4), *B = malloc(len * 4), *C = malloc(len * 4), *W = malloc(len * 4 + 4);
    for (size_t i = 0; i < len; i++) {
        A[i] = sl_rand_f32(21, i);
        B[i] = sl_rand_f32(22, i);
        C[i] = -0.0f;
    }
    float *a = A + oa, *b = B + ob, *c = alias == 1 ? a : alias == 2 ? b : C + oc;
    for (size_t i = 0; i < n; i++)
        W[i] = a[i] + b[i];
    sl_status st = sl_add(ctx, SL_F32, n, a, b, c, NULL);
    CHECK(st == SL_OK, "sl_add n=%zu: %s", n, sl_last_error());
    CHECK(memcmp(c, W, n * 4) == 0, "sl_add n=%zu offsets %d,%d,%d alias %d: wrong result", n, oa, ob, oc, alias);
    free(A);
    free(B);
    free(C);
    free(W);
}

int main(void)
{
    sl_ctx *ctx = NULL;
    CHECK(sl_ctx_create(SL_DEVICE_CPU, &ctx) == SL_OK && ctx, "create cpu: %s", sl_last_error());
    sl_device_info info;
    CHECK(sl_ctx_info(ctx, &info) == SL_OK && info.backend == SL_BACKEND_CPU, "info");
    CHECK(info.peak_gbs == 0.0, "the CPU's peak is unknown, not invented");

    const size_t sizes[] = {1, 3, 7, 1023, 65537, (1u << 20) + 3};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (int o = 0; o < 8; o++) {
            expect_add(ctx, sizes[s], o, (o + 3) % 8, (o + 6) % 8, 0);
            expect_add(ctx, sizes[s], o, 7 - o, 0, 1);
            expect_add(ctx, sizes[s], o, 7 - o, 0, 2);
        }

    float buf[64];
    for (int i = 0; i < 64; i++)
        buf[i] = (float)i + 1.0f;
    /* n = 0 is a no-op that accepts NULL. */
    CHECK(sl_add(ctx, SL_F32, 0, NULL, NULL, NULL, NULL) == SL_OK, "n=0 with NULL");
    CHECK(sl_add(NULL, SL_F32, 4, buf, buf, buf, NULL) == SL_ERR_INVALID_ARG, "NULL ctx");
    CHECK(sl_add(ctx, SL_F32, 4, NULL, buf, buf + 8, NULL) == SL_ERR_INVALID_ARG, "NULL a");
    CHECK(strstr(sl_last_error(), "NULL") != NULL, "message names NULL: %s", sl_last_error());
    CHECK(sl_add(ctx, SL_F32, 4, buf, buf + 8, NULL, NULL) == SL_ERR_INVALID_ARG, "NULL c");
    CHECK(sl_add(ctx, (sl_dtype)99, 4, buf, buf, buf, NULL) == SL_ERR_INVALID_ARG, "bad dtype");
    /* bf16 on the CPU: 1.5 + 2.25 = 3.75 and 1 + 2^-8 = 1 (ties to even in bf16's 8 bits). */
    {
        uint16_t ha[2] = {0x3fc0, 0x3f80}, hb[2] = {0x4010, 0x3b80}, hc[2] = {0, 0};
        CHECK(sl_add(ctx, SL_BF16, 2, ha, hb, hc, NULL) == SL_OK, "bf16 add: %s", sl_last_error());
        CHECK(hc[0] == 0x4070 && hc[1] == 0x3f80, "bf16 add gave 0x%04x 0x%04x, want 0x4070 0x3f80", hc[0], hc[1]);
        /* fp8 e4m3 saturates: 256 + 256 = 448 (0x7e), not NaN. */
        uint8_t fa[1] = {0x78}, fb[1] = {0x78}, fc[1] = {0};
        CHECK(sl_add(ctx, SL_FP8_E4M3, 1, fa, fb, fc, NULL) == SL_OK, "e4m3 add");
        CHECK(fc[0] == 0x7e, "e4m3 256 + 256 gave 0x%02x, want 0x7e (448, saturated)", fc[0]);
    }
    /* sl_axpy: y = alpha x + y with one fmaf; fp8 is not offered. */
    {
        float x[3] = {1.0f, -2.0f, 0.5f}, y[3] = {2.0f, 1.0f, 0.25f};
        CHECK(sl_axpy(ctx, SL_F32, 3, 3.5f, x, y, NULL) == SL_OK, "axpy f32: %s", sl_last_error());
        CHECK(y[0] == 5.5f && y[1] == -6.0f && y[2] == 2.0f, "axpy f32 gave %g %g %g", y[0], y[1], y[2]);
        uint16_t bx[1] = {0x3f80}, by[1] = {0x4000}; /* 1, 2 */
        CHECK(sl_axpy(ctx, SL_BF16, 1, 3.5f, bx, by, NULL) == SL_OK, "axpy bf16");
        CHECK(by[0] == 0x40b0, "axpy bf16 3.5 * 1 + 2 gave 0x%04x, want 0x40b0 (5.5)", by[0]);
        CHECK(sl_axpy(ctx, SL_FP8_E4M3, 1, 1.0f, x, y, NULL) == SL_ERR_UNSUPPORTED, "axpy fp8");
        CHECK(strstr(sl_last_error(), "fp8e4m3") != NULL, "message names the dtype: %s", sl_last_error());
        CHECK(sl_axpy(ctx, SL_F32, 2, 1.0f, x, x + 1, NULL) == SL_ERR_OVERLAP, "y overlaps x");
        CHECK(strstr(sl_last_error(), "y = ") != NULL, "message names y: %s", sl_last_error());
        CHECK(sl_axpy(ctx, SL_F32, 2, 1.0f, NULL, y, NULL) == SL_ERR_INVALID_ARG, "NULL x");
        CHECK(sl_axpy(ctx, SL_F32, 0, 1.0f, NULL, NULL, NULL) == SL_OK, "n = 0");
    }
    /* The STREAM set: one small case each against hand-worked values. */
    {
        float a[4] = {1, 2, 3, 4}, b[4] = {0.5f, -1, 2, 8}, c[4] = {0};
        CHECK(sl_copy(ctx, SL_F32, 4, a, c, NULL) == SL_OK && memcmp(a, c, sizeof a) == 0, "copy: %s",
              sl_last_error());
        CHECK(sl_scale(ctx, SL_F32, 4, 0.5, a, c, NULL) == SL_OK && c[0] == 0.5f && c[3] == 2.0f, "scale");
        CHECK(sl_triad(ctx, SL_F32, 4, 2.0, a, b, c, NULL) == SL_OK && c[0] == 2.0f && c[1] == 0.0f && c[3] == 20.0f,
              "triad a = b + s c gave %g %g %g %g", c[0], c[1], c[2], c[3]);
        float na[4] = {1, 1, 1, 1};
        CHECK(sl_nstream(ctx, SL_F32, 4, 2.0, na, a, b, NULL) == SL_OK && na[0] == 3.0f && na[1] == 1.0f &&
                  na[3] == 21.0f,
              "nstream a += b + s c gave %g %g %g %g", na[0], na[1], na[2], na[3]);
        double d64[4] = {1, 2, 3, 4}, r64 = -1;
        CHECK(sl_dot(ctx, SL_F64, 4, d64, d64, &r64, NULL) == SL_OK && r64 == 30.0, "dot f64 1..4: %g", r64);
        float r32 = -1;
        CHECK(sl_dot(ctx, SL_F32, 4, a, b, &r32, NULL) == SL_OK && r32 == 0.5f - 2 + 6 + 32, "dot f32: %g", r32);
        CHECK(sl_dot(ctx, SL_F32, 0, NULL, NULL, &r32, NULL) == SL_OK && r32 == 0.0f, "dot of nothing: %g", r32);
        CHECK(sl_dot(ctx, SL_F32, 0, NULL, NULL, NULL, NULL) == SL_ERR_INVALID_ARG, "dot needs a result at n = 0");
        CHECK(sl_dot(ctx, SL_F16, 4, a, b, &r32, NULL) == SL_ERR_UNSUPPORTED, "dot f16");
        CHECK(strstr(sl_last_error(), "f32, f64") != NULL, "message lists the dtypes: %s", sl_last_error());
        CHECK(sl_dot(ctx, SL_F32, 4, a, b, a + 2, NULL) == SL_ERR_OVERLAP, "result inside a");
        CHECK(sl_triad(ctx, SL_F32, 4, 2.0, a, b, b, NULL) == SL_OK, "triad a == c allowed");
        CHECK(sl_triad(ctx, SL_F32, 3, 2.0, a, b, b + 1, NULL) == SL_ERR_OVERLAP, "triad a overlaps c");
        CHECK(sl_scale(ctx, SL_FP8_E4M3, 4, 1.0, a, c, NULL) == SL_ERR_UNSUPPORTED, "scale fp8");
        /* dot is deterministic: the same bits every call */
        size_t n = (1u << 20) + 3;
        float *x = malloc(n * 4), *y = malloc(n * 4);
        for (size_t i = 0; i < n; i++) {
            x[i] = sl_rand_f32(31, i);
            y[i] = sl_rand_f32(32, i);
        }
        float first = 0, again = 0;
        CHECK(sl_dot(ctx, SL_F32, n, x, y, &first, NULL) == SL_OK, "dot 2^20+3");
        int same = 1;
        for (int k = 0; k < 20; k++) {
            sl_dot(ctx, SL_F32, n, x, y, &again, NULL);
            same &= memcmp(&first, &again, sizeof first) == 0;
        }
        CHECK(same, "sl_dot differs between calls");
        free(x);
        free(y);
    }
    char *bytes = (char *)buf;
    CHECK(sl_add(ctx, SL_F32, 4, bytes + 1, buf + 8, buf + 16, NULL) == SL_ERR_MISALIGNED, "a misaligned");
    CHECK(sl_add(ctx, SL_F32, 4, buf, buf + 8, bytes + 66, NULL) == SL_ERR_MISALIGNED, "c misaligned");
    CHECK(strstr(sl_last_error(), "c = ") != NULL, "message names c: %s", sl_last_error());
    /* Partial overlap is rejected; exact aliasing and a/b overlap are fine. */
    CHECK(sl_add(ctx, SL_F32, 8, buf, buf + 16, buf + 1, NULL) == SL_ERR_OVERLAP, "c overlaps a by 7");
    CHECK(sl_add(ctx, SL_F32, 8, buf + 16, buf, buf + 7, NULL) == SL_ERR_OVERLAP, "c overlaps b by 1");
    CHECK(sl_add(ctx, SL_F32, 8, buf, buf + 2, buf + 32, NULL) == SL_OK, "a and b may overlap");
    CHECK(sl_add(ctx, SL_F32, 8, buf, buf + 8, buf + 8, NULL) == SL_OK, "c == b");
    CHECK(sl_add(ctx, SL_F32, (size_t)-1 / 2, buf, buf, buf, NULL) == SL_ERR_INVALID_ARG, "n * 4 overflows");
    {
        /* A norm backward's workspace (the caller's scratch) overlapping one of its buffers would
         * let the partials overwrite an input or an output: refused like any other overlap. */
        static float x[32], dy[32], dx[32], w[8], dw[8], db[8], r[4], mu[4], ws[2048];
        const size_t need = sl_rmsnorm_bwd_workspace(4, 8), need_ln = sl_layernorm_bwd_workspace(4, 8);
        CHECK(need <= sizeof ws && need_ln <= sizeof ws, "workspace sizes %zu %zu", need, need_ln);
        for (int i = 0; i < 32; i++)
            x[i] = dy[i] = 0.25f * (float)(i % 7) - 0.5f;
        for (int i = 0; i < 8; i++)
            w[i] = 1.0f;
        for (int i = 0; i < 4; i++)
            r[i] = 1.0f, mu[i] = 0.0f;
        CHECK(sl_rmsnorm_bwd(ctx, SL_F32, SL_F32, 4, 8, x, dy, w, r, dx, dw, ws, sizeof ws, NULL) == SL_OK,
              "rmsnorm_bwd with its own workspace: %s", sl_last_error());
        float big[2048 + 64];
        CHECK(sl_rmsnorm_bwd(ctx, SL_F32, SL_F32, 4, 8, x, dy, w, r, big, dw, big + 16, 2048 * 4, NULL) ==
                  SL_ERR_OVERLAP, "rmsnorm_bwd: workspace overlapping dx");
        CHECK(strstr(sl_last_error(), "workspace") != NULL && strstr(sl_last_error(), "dx") != NULL,
              "message names the workspace and dx: %s", sl_last_error());
        CHECK(sl_rmsnorm_bwd(ctx, SL_F32, SL_F32, 4, 8, big, dy, w, r, dx, dw, big, 2048 * 4, NULL) ==
                  SL_ERR_OVERLAP, "rmsnorm_bwd: workspace = x");
        CHECK(sl_layernorm_bwd(ctx, SL_F32, SL_F32, 4, 8, x, dy, w, mu, r, dx, dw, db, db, sizeof ws, NULL) ==
                  SL_ERR_OVERLAP, "layernorm_bwd: workspace = db");
        CHECK(strstr(sl_last_error(), "workspace") != NULL, "message names the workspace: %s", sl_last_error());
        CHECK(sl_layernorm_bwd(ctx, SL_F32, SL_F32, 4, 8, x, dy, w, mu, r, dx, dw, db, ws, sizeof ws, NULL) ==
                  SL_OK, "layernorm_bwd with its own workspace: %s", sl_last_error());
        /* The messages name the public function called, not the op's folder. */
        CHECK(sl_rmsnorm_fwd(ctx, SL_F32, SL_F32, 4, 8, NULL, w, 1e-6, dx, r, NULL) == SL_ERR_INVALID_ARG &&
                  strncmp(sl_last_error(), "sl_rmsnorm_fwd: ", 16) == 0, "names sl_rmsnorm_fwd: %s", sl_last_error());
        CHECK(sl_layernorm_fwd(ctx, SL_F32, SL_F32, 4, 8, NULL, w, db, 1e-5, dx, mu, r, NULL) == SL_ERR_INVALID_ARG &&
                  strncmp(sl_last_error(), "sl_layernorm_fwd: ", 18) == 0, "names sl_layernorm_fwd: %s",
              sl_last_error());
        CHECK(sl_add_rmsnorm_fwd(ctx, SL_F32, SL_F32, 4, 8, NULL, dy, w, 1e-6, dx, big, r, NULL) ==
                      SL_ERR_INVALID_ARG && strncmp(sl_last_error(), "sl_add_rmsnorm_fwd: ", 20) == 0,
              "names sl_add_rmsnorm_fwd: %s", sl_last_error());
        CHECK(sl_stencil2d(ctx, 4, 8, 8, 1, NULL, dx, NULL) == SL_ERR_INVALID_ARG &&
                  strncmp(sl_last_error(), "sl_stencil2d: ", 14) == 0, "names sl_stencil2d: %s", sl_last_error());
    }

    for (int s = SL_OK; s <= SL_ERR_INTERNAL; s++)
        CHECK(strcmp(sl_status_string((sl_status)s), "unknown status") != 0, "status %d has a name", s);
    CHECK(strcmp(sl_status_string((sl_status)1234), "unknown status") == 0, "unknown status");
    CHECK(sl_dtype_size(SL_BF16) == 2 && sl_dtype_size(SL_FP8_E4M3) == 1 && sl_dtype_size(SL_F64) == 8, "dtype sizes");
    CHECK(strcmp(sl_dtype_name(SL_F64), "f64") == 0, "f64 name");

    sl_ctx *bad = (sl_ctx *)&buf;
    CHECK(sl_ctx_create(-7, &bad) == SL_ERR_BAD_DEVICE && bad == NULL, "device -7");
    CHECK(sl_ctx_create(0, NULL) == SL_ERR_INVALID_ARG, "NULL out");
    sl_ctx_destroy(NULL);
    sl_ctx_destroy(ctx);
    return check_exit("test_api_cpu");
}
