/*
 * The transpose op on the CPU (CI): every CPU rung of sl_op_transpose and
 * its reference against the oracle (transpose_check.h) at odd shapes, in
 * every dtype, with padded row strides; the public sl_transpose on a CPU
 * context, and its argument errors (in place, overlap, NULL, dtype,
 * alignment) with their statuses and messages.
 */
#include "op.h"
#include "transpose_check.h"

#include <stdlib.h>

static void run_cpu_case(const sl_variant *v, sl_dtype dt, const tp_case *c)
{
    const size_t es = sl_dtype_size(dt), ld = c->cols + c->pad;
    const size_t in_elems = (c->rows - 1) * ld + c->cols, out_elems = c->rows * c->cols;
    unsigned char *in = malloc(in_elems * es), *out = malloc(out_elems * es + TP_GUARD);
    tp_fill(in, in_elems * es, 0x77 + c->rows * 31 + c->cols);
    memset(out, 0xff, out_elems * es + TP_GUARD);
    sl_status st;
    char what[160];
    snprintf(what, sizeof what, "%s %s %zux%zu ld %zu", v ? v->name : "reference", sl_dtype_name(dt), c->rows,
             c->cols, ld);
    if (v) {
        sl_args x = {.op = &sl_op_transpose, .n = out_elems, .dtype = dt, .out_dtype = dt};
        x.shape.rows = c->rows;
        x.shape.cols = c->cols;
        x.shape.ld = ld;
        x.buf[0] = in;
        x.buf[1] = out;
        st = v->launch(&x);
    } else {
        /* the reference, as the harness calls it for a ref_whole op */
        sl_ref_args a = {.lo = 0, .hi = c->rows, .dtype = dt, .out_dtype = dt};
        a.shape.rows = c->rows;
        a.shape.cols = c->cols;
        a.shape.ld = ld;
        a.in[0] = in;
        a.out[1] = out;
        sl_op_transpose.reference(&a);
        st = SL_OK;
    }
    CHECK(st == SL_OK, "%s: %s", what, sl_last_error());
    if (st == SL_OK)
        CHECK(tp_mismatches(in, out, c->rows, c->cols, ld, es, what) == 0, "%s: wrong output", what);
    free(in);
    free(out);
}

static void check_public(void)
{
    sl_ctx *ctx = NULL;
    CHECK(sl_ctx_create(SL_DEVICE_CPU, &ctx) == SL_OK, "create cpu: %s", sl_last_error());
    if (!ctx)
        return;
    /* hand-worked: [[1 2 3] [4 5 6]]^T = [[1 4] [2 5] [3 6]] */
    float a[6] = {1, 2, 3, 4, 5, 6}, t[6] = {0};
    CHECK(sl_transpose(ctx, SL_F32, 2, 3, a, t, NULL) == SL_OK, "sl_transpose 2x3: %s", sl_last_error());
    CHECK(t[0] == 1 && t[1] == 4 && t[2] == 2 && t[3] == 5 && t[4] == 3 && t[5] == 6,
          "2x3 gave %g %g %g %g %g %g", t[0], t[1], t[2], t[3], t[4], t[5]);
    double d[4] = {1.5, -2.0, 3.25, 4.0}, dt[4] = {0};
    CHECK(sl_transpose(ctx, SL_F64, 2, 2, d, dt, NULL) == SL_OK, "f64 2x2: %s", sl_last_error());
    CHECK(dt[0] == 1.5 && dt[1] == 3.25 && dt[2] == -2.0 && dt[3] == 4.0, "f64 2x2 wrong");
    uint16_t h[3] = {0x3c00, 0x4000, 0x7e01}, ht[3] = {0};
    CHECK(sl_transpose(ctx, SL_F16, 1, 3, h, ht, NULL) == SL_OK && memcmp(h, ht, 6) == 0,
          "f16 1x3 (a row becomes a column, NaN payload kept)");

    /* every shape and dtype through the public function */
    for (int k = 0; k < TP_NDTYPES; k++)
        for (int i = 0; i < TP_NCASES; i++) {
            const tp_case *c = &tp_cases[i];
            if (c->pad)
                continue; /* the public function takes dense matrices */
            const size_t es = sl_dtype_size(tp_dtypes[k]), n = c->rows * c->cols;
            unsigned char *in = malloc(n * es), *out = malloc(n * es + TP_GUARD);
            tp_fill(in, n * es, 91 + (uint64_t)i);
            memset(out, 0xff, n * es + TP_GUARD);
            CHECK(sl_transpose(ctx, tp_dtypes[k], c->rows, c->cols, in, out, NULL) == SL_OK, "public %zux%zu: %s",
                  c->rows, c->cols, sl_last_error());
            CHECK(tp_mismatches(in, out, c->rows, c->cols, c->cols, es, "public") == 0, "public %s %zux%zu",
                  sl_dtype_name(tp_dtypes[k]), c->rows, c->cols);
            free(in);
            free(out);
        }

    /* errors */
    float buf[64] = {0};
    CHECK(sl_transpose(ctx, SL_F32, 4, 4, buf, buf, NULL) == SL_ERR_OVERLAP, "in place (square) is refused");
    CHECK(strstr(sl_last_error(), "place") != NULL, "the message says in place is not supported: %s",
          sl_last_error());
    CHECK(sl_transpose(ctx, SL_F32, 1, 8, buf, buf, NULL) == SL_ERR_OVERLAP, "in place (a row) is refused");
    CHECK(sl_transpose(ctx, SL_F32, 4, 4, buf, buf + 8, NULL) == SL_ERR_OVERLAP, "partial overlap is refused");
    CHECK(sl_transpose(ctx, SL_F32, 4, 4, buf, buf + 16, NULL) == SL_OK, "adjacent buffers are fine: %s",
          sl_last_error());
    CHECK(sl_transpose(ctx, SL_F32, 4, 4, NULL, buf, NULL) == SL_ERR_INVALID_ARG, "NULL in");
    CHECK(sl_transpose(ctx, SL_F32, 4, 4, buf, NULL, NULL) == SL_ERR_INVALID_ARG, "NULL out");
    CHECK(sl_transpose(NULL, SL_F32, 4, 4, buf, buf + 16, NULL) == SL_ERR_INVALID_ARG, "NULL ctx");
    CHECK(sl_transpose(ctx, SL_FP8_E4M3, 4, 4, buf, buf + 16, NULL) == SL_ERR_UNSUPPORTED, "fp8 is not offered");
    CHECK(sl_transpose(ctx, (sl_dtype)99, 4, 4, buf, buf + 16, NULL) == SL_ERR_INVALID_ARG, "bad dtype");
    CHECK(sl_transpose(ctx, SL_F32, 2, 2, (char *)buf + 1, buf + 16, NULL) == SL_ERR_MISALIGNED, "misaligned in");
    CHECK(sl_transpose(ctx, SL_F32, 0, 5, NULL, NULL, NULL) == SL_OK, "0 rows is a no-op with NULL: %s",
          sl_last_error());
    CHECK(sl_transpose(ctx, SL_F32, 5, 0, NULL, NULL, NULL) == SL_OK, "0 cols is a no-op with NULL");
    CHECK(sl_transpose(ctx, SL_F32, SIZE_MAX / 2, 4, buf, buf + 16, NULL) == SL_ERR_INVALID_ARG,
          "rows x cols x size overflows");
    sl_ctx_destroy(ctx);
}

int main(void)
{
    const sl_op_desc *op = sl_op_find("transpose");
    CHECK(op == &sl_op_transpose, "transpose is registered");
    CHECK(op->rank == 2 && op->ref_whole && op->no_inplace, "a 2-D op whose reference takes the whole matrix");
    int rungs = 0;
    for (int k = 0; k < TP_NDTYPES; k++)
        for (int i = 0; i < TP_NCASES; i++) {
            run_cpu_case(NULL, tp_dtypes[k], &tp_cases[i]);
            for (int v = 0; v < op->nvariants; v++) {
                const sl_variant *var = &op->variants[v];
                if (var->backend != SL_BACKEND_CPU || var->kind == SL_KIND_CEILING)
                    continue;
                run_cpu_case(var, tp_dtypes[k], &tp_cases[i]);
                rungs += k == 0 && i == 0;
            }
        }
    CHECK(rungs == 3, "serial, omp and sl_transpose ran on the CPU (%d)", rungs);
    check_public();
    return check_exit("test_transpose");
}
