/*
 * test_harness2d.c - the harness's 2-D path (src/lab/harness.c), on the CPU
 * backend, with two small ops defined here and nowhere else:
 *   rowflip  y[r, j] = x[r, cols - 1 - j]   (rows independent: the reference
 *                                            gets row chunks)
 *   flipud   y[r, j] = x[rows - 1 - r, j]   (ref_whole: an output row needs
 *                                            another input row)
 * Each has a right CPU variant and a wrong one. The right one must verify
 * at packed and padded (ld > cols) shapes, the wrong one must fail, and so
 * must a variant that writes into the padding between rows. Also checks
 * sl_op_call_shape's extents, ld and no_inplace rules.
 */
#include "check.h"
#include "harness.h"
#include "internal.h"
#include "streamlab.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- f32 only: the ops move 4-byte words ---- */

static void rowflip_ref(sl_ref_args *a)
{
    const sl_shape *s = &a->shape;
    for (uint64_t r = a->lo; r < a->hi; r++) {
        const float *x = (const float *)a->in[0] + (r - a->lo) * s->ld;
        float *y = (float *)a->out[1] + (r - a->lo) * s->ld;
        for (uint64_t j = 0; j < s->cols; j++)
            y[j] = x[s->cols - 1 - j];
    }
}

static void flipud_ref(sl_ref_args *a)
{
    const sl_shape *s = &a->shape;
    for (uint64_t r = 0; r < s->rows; r++) {
        const float *x = (const float *)a->in[0] + (s->rows - 1 - r) * s->ld;
        float *y = (float *)a->out[1] + r * s->ld;
        memcpy(y, x, s->cols * sizeof(float));
    }
}

/* The launchers: written differently from the references (index
 * arithmetic from the other end), and broken on purpose where named. */
static sl_status rowflip_ok(const sl_args *a)
{
    const sl_shape *s = &a->shape;
    const float *x = a->buf[0];
    float *y = a->buf[1];
    for (uint64_t r = 0; r < s->rows; r++)
        for (uint64_t j = s->cols; j-- > 0;)
            y[r * s->ld + (s->cols - 1 - j)] = x[r * s->ld + j];
    return SL_OK;
}

static sl_status rowflip_last_col_wrong(const sl_args *a)
{
    rowflip_ok(a);
    const sl_shape *s = &a->shape;
    float *y = a->buf[1];
    y[(s->rows - 1) * s->ld + s->cols - 1] += 1.0f; /* one element, the very last */
    return SL_OK;
}

static sl_status rowflip_writes_padding(const sl_args *a)
{
    rowflip_ok(a);
    const sl_shape *s = &a->shape;
    float *y = a->buf[1];
    if (s->rows > 1 && s->ld > s->cols)
        y[s->cols] = 0.0f; /* the first gap element after row 0 */
    return SL_OK;
}

static sl_status flipud_ok(const sl_args *a)
{
    const sl_shape *s = &a->shape;
    const float *x = a->buf[0];
    float *y = a->buf[1];
    for (uint64_t r = s->rows; r-- > 0;)
        for (uint64_t j = 0; j < s->cols; j++)
            y[(s->rows - 1 - r) * s->ld + j] = x[r * s->ld + j];
    return SL_OK;
}

static sl_status flipud_rows_unflipped(const sl_args *a)
{
    const sl_shape *s = &a->shape;
    const float *x = a->buf[0];
    float *y = a->buf[1];
    for (uint64_t r = 0; r < s->rows; r++)
        memcpy(y + r * s->ld, x + r * s->ld, s->cols * sizeof(float));
    return SL_OK;
}

#define F32_ONLY (1u << SL_F32)

static const sl_variant rowflip_variants[] = {
    {.name = "ok", .backend = SL_BACKEND_CPU, .kind = SL_KIND_RUNG, .technique = "test", .source = "test",
     .launch = rowflip_ok},
    {.name = "last_col_wrong", .backend = SL_BACKEND_CPU, .kind = SL_KIND_RUNG, .technique = "test",
     .source = "test", .launch = rowflip_last_col_wrong},
    {.name = "writes_padding", .backend = SL_BACKEND_CPU, .kind = SL_KIND_RUNG, .technique = "test",
     .source = "test", .launch = rowflip_writes_padding},
    {.name = "api", .backend = SL_BACKEND_CPU, .kind = SL_KIND_API, .technique = "test", .source = "test",
     .launch = rowflip_ok},
};

static const sl_variant flipud_variants[] = {
    {.name = "ok", .backend = SL_BACKEND_CPU, .kind = SL_KIND_RUNG, .technique = "test", .source = "test",
     .launch = flipud_ok},
    {.name = "rows_unflipped", .backend = SL_BACKEND_CPU, .kind = SL_KIND_RUNG, .technique = "test",
     .source = "test", .launch = flipud_rows_unflipped},
    {.name = "api", .backend = SL_BACKEND_CPU, .kind = SL_KIND_API, .technique = "test", .source = "test",
     .launch = flipud_ok},
};

static const sl_op_desc op_rowflip = {
    .name = "rowflip", .formula = "y[r, j] = x[r, cols - 1 - j]", .source = "test", .numerics = "a copy",
    .rank = 2, .nbufs = 2, .bufs = {{"x", SL_ROLE_IN, false}, {"y", SL_ROLE_OUT, false}},
    .dtypes = F32_ONLY, .tol = {SL_TOL_EXACT, 0}, .reference = rowflip_ref, .variants = rowflip_variants,
    .nvariants = 4, .default_shapes = "3x5",
};

static const sl_op_desc op_flipud = {
    .name = "flipud", .formula = "y[r, j] = x[rows - 1 - r, j]", .source = "test", .numerics = "a copy",
    .rank = 2, .nbufs = 2, .bufs = {{"x", SL_ROLE_IN, false}, {"y", SL_ROLE_OUT, false}},
    .dtypes = F32_ONLY, .tol = {SL_TOL_EXACT, 0}, .reference = flipud_ref, .variants = flipud_variants,
    .nvariants = 3, .ref_whole = true, .no_inplace = true,
};

typedef struct seen {
    int rows;
    int ok[8];      /* per variant index: rows that verified */
    int failed[8];  /* rows that failed verification */
    const sl_op_desc *op;
} seen;

static void on_row(void *user, sl_result *r)
{
    seen *s = user;
    int i = (int)(r->v - s->op->variants);
    s->rows++;
    if (i >= 0 && i < 8) {
        if (r->status == SL_OK)
            s->ok[i]++;
        else if (r->status == SL_ERR_VERIFY)
            s->failed[i]++;
    }
}

static void sweep(sl_ctx *ctx, const sl_op_desc *op, const sl_shape *shapes, int nshapes, seen *out)
{
    const sl_variant *vs[8];
    for (int i = 0; i < op->nvariants; i++)
        vs[i] = &op->variants[i];
    sl_run_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.op = op;
    cfg.dtype = SL_F32;
    cfg.shapes = shapes;
    cfg.nshapes = nshapes;
    cfg.variants = vs;
    cfg.nvariants = op->nvariants;
    cfg.warmup = 0;
    cfg.trials = 1;
    cfg.seed = 0x2d2d2d2dull;
    memset(out, 0, sizeof *out);
    out->op = op;
    sl_status st = sl_harness_run(ctx, &cfg, on_row, out);
    CHECK(st == SL_OK, "%s sweep: %s", op->name, sl_last_error());
}

int main(void)
{
    sl_ctx *ctx = NULL;
    CHECK(sl_ctx_create(SL_DEVICE_CPU, &ctx) == SL_OK, "cpu ctx: %s", sl_last_error());
    if (!ctx)
        return check_exit("test_harness2d");

    /* packed, padded, one row, one column, and more rows than a chunk of
     * the reference holds at once (1 Mi elements: 3000 x 400) */
    const sl_shape shapes[] = {{3, 5, 5, 0}, {7, 3, 8, 0}, {1, 9, 9, 0}, {6, 1, 1, 0}, {3000, 400, 403, 0}};
    const int ns = (int)(sizeof shapes / sizeof shapes[0]);
    seen s;

    sweep(ctx, &op_rowflip, shapes, ns, &s);
    CHECK(s.ok[0] == ns && s.failed[0] == 0, "rowflip ok: %d of %d verified", s.ok[0], ns);
    CHECK(s.failed[1] == ns, "rowflip with one wrong element: failed %d of %d", s.failed[1], ns);
    /* only the padded shapes with more than one row have a gap to write */
    CHECK(s.failed[2] == 2 && s.ok[2] == ns - 2, "rowflip writing the padding: failed %d (want 2), ok %d",
          s.failed[2], s.ok[2]);
    CHECK(s.ok[3] == ns, "rowflip api: %d of %d", s.ok[3], ns);

    sweep(ctx, &op_flipud, shapes, ns, &s);
    CHECK(s.ok[0] == ns && s.failed[0] == 0, "flipud ok (ref_whole): %d of %d verified", s.ok[0], ns);
    /* a single row is its own flip: only the 1 x 9 shape passes unflipped */
    CHECK(s.failed[1] == ns - 1 && s.ok[1] == 1, "flipud unflipped: failed %d (want %d)", s.failed[1], ns - 1);

    /* sl_op_call_shape: extents by ld, ld < cols, no_inplace */
    float *x = calloc(7 * 8, sizeof(float)), *y = calloc(7 * 8, sizeof(float));
    const sl_shape pad = {7, 3, 8, 0}, bad_ld = {7, 3, 2, 0};
    void *p[2] = {x, y};
    CHECK(sl_op_call_shape(ctx, &op_flipud, SL_F32, &pad, p, NULL, NULL) == SL_OK, "call_shape: %s",
          sl_last_error());
    CHECK(sl_op_call_shape(ctx, &op_flipud, SL_F32, &bad_ld, p, NULL, NULL) == SL_ERR_INVALID_ARG &&
              strstr(sl_last_error(), "ld = 2 is less than cols = 3"),
          "ld < cols: %s", sl_last_error());
    void *same[2] = {x, x};
    CHECK(sl_op_call_shape(ctx, &op_flipud, SL_F32, &pad, same, NULL, NULL) == SL_ERR_OVERLAP &&
              strstr(sl_last_error(), "in place is not supported"),
          "no_inplace: %s", sl_last_error());
    CHECK(sl_op_call_shape(ctx, &op_rowflip, SL_F32, &pad, same, NULL, NULL) == SL_OK, "rowflip in place: %s",
          sl_last_error());
    /* x spans (7 - 1) x 8 + 3 = 51 elements: y at element 50 overlaps it, at 51 not */
    float *big = calloc(51 + 51, sizeof(float));
    void *near[2] = {big, big + 50}, *after[2] = {big, big + 51};
    CHECK(sl_op_call_shape(ctx, &op_flipud, SL_F32, &pad, near, NULL, NULL) == SL_ERR_OVERLAP,
          "overlap by one element of the span");
    CHECK(sl_op_call_shape(ctx, &op_flipud, SL_F32, &pad, after, NULL, NULL) == SL_OK, "adjacent spans: %s",
          sl_last_error());
    CHECK(sl_op_call_shape(ctx, &op_flipud, SL_F32, NULL, p, NULL, NULL) == SL_ERR_INVALID_ARG, "NULL shape");
    free(big);
    free(x);
    free(y);
    sl_ctx_destroy(ctx);
    return check_exit("test_harness2d");
}
