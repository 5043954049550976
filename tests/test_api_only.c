/*
 * A consumer of the public API alone: includes streamlab.h and nothing
 * else of streamlab, links only the library (not the lab), and runs every
 * public op once on a CPU context against values worked by hand. It proves
 * the library stands without the harness, the model or the result writers.
 */
#include "streamlab.h"

#include <stdio.h>
#include <string.h>

static int failures;

#define EXPECT(cond, what)                                                       \
    do {                                                                         \
        if (!(cond)) {                                                           \
            fprintf(stderr, "test_api_only: FAILED: %s (%s)\n", what, sl_last_error()); \
            failures++;                                                          \
        }                                                                        \
    } while (0)

int main(void)
{
    sl_ctx *ctx = NULL;
    EXPECT(sl_ctx_create(SL_DEVICE_CPU, &ctx) == SL_OK, "create a CPU context");
    if (!ctx)
        return 1;
    double a[3] = {1, 2, 3}, b[3] = {4, 5, 6}, c[3], r = 0;
    EXPECT(sl_copy(ctx, SL_F64, 3, a, c, NULL) == SL_OK && c[2] == 3, "copy");
    EXPECT(sl_scale(ctx, SL_F64, 3, 2.0, a, c, NULL) == SL_OK && c[2] == 6, "scale");
    EXPECT(sl_add(ctx, SL_F64, 3, a, b, c, NULL) == SL_OK && c[0] == 5 && c[2] == 9, "add");
    EXPECT(sl_triad(ctx, SL_F64, 3, 0.5, a, b, c, NULL) == SL_OK && c[1] == 4.5, "triad");
    EXPECT(sl_nstream(ctx, SL_F64, 3, 1.0, c, a, b, NULL) == SL_OK && c[1] == 4.5 + 2 + 5, "nstream");
    EXPECT(sl_axpy(ctx, SL_F64, 3, 2.0f, a, b, NULL) == SL_OK && b[2] == 12, "axpy");
    EXPECT(sl_dot(ctx, SL_F64, 3, a, a, &r, NULL) == SL_OK && r == 14, "dot");
    {
        float m[6] = {1, 2, 3, 4, 5, 6}, t[6] = {0}; /* 2 x 3 -> 3 x 2 */
        EXPECT(sl_transpose(ctx, SL_F32, 2, 3, m, t, NULL) == SL_OK && t[1] == 4 && t[4] == 3, "transpose");
        EXPECT(sl_transpose(ctx, SL_F32, 2, 3, m, m, NULL) == SL_ERR_OVERLAP, "transpose in place refused");
    }
    {
        /* softmax backward: y = (1/4, 3/4), dy = (1, 3): s = 5/2, dx = (-3/8, 3/8) */
        float y[2] = {0.25f, 0.75f}, g[2] = {1.0f, 3.0f}, d[2];
        EXPECT(sl_softmax_bwd(ctx, SL_F32, 1, 2, y, g, d, NULL) == SL_OK && d[0] == -0.375f && d[1] == 0.375f,
               "softmax_bwd");
        /* cross-entropy over logits (0, 0), target 1: lse = loss = ln 2,
         * gradient (1/2, -1/2); the forward gives the same loss */
        float x[2] = {0.0f, 0.0f}, dx[2], loss = 0.0f, lse = 0.0f, loss2 = 0.0f;
        int32_t t = 1;
        EXPECT(sl_cross_entropy_fwd_bwd(ctx, SL_F32, 1, 2, x, SL_INDEX_I32, &t, -100, 0.0f, SL_REDUCTION_MEAN, &loss,
                                        &lse, dx, NULL) == SL_OK &&
                   loss > 0.6931f && loss < 0.6932f && dx[0] == 0.5f && dx[1] == -0.5f,
               "cross_entropy_fwd_bwd");
        EXPECT(sl_cross_entropy_fwd(ctx, SL_F32, 1, 2, x, SL_INDEX_I32, &t, -100, 0.0f, SL_REDUCTION_NONE, &loss2, &lse,
                                    NULL) == SL_OK &&
                   loss2 == loss,
               "cross_entropy_fwd");
        /* the backward from that lse, dloss 2 (sum): 2 (1/2, -1/2) */
        float two = 2.0f, db[2];
        EXPECT(sl_cross_entropy_bwd(ctx, SL_F32, 1, 2, x, SL_INDEX_I32, &t, -100, 0.0f, SL_REDUCTION_SUM, &two, &lse,
                                    db, NULL) == SL_OK &&
                   db[0] > 0.999999f && db[0] < 1.000001f && db[1] < -0.999999f && db[1] > -1.000001f,
               "cross_entropy_bwd");
    }
    EXPECT(sl_add(ctx, SL_F64, 3, a, b, a + 1, NULL) == SL_ERR_OVERLAP, "overlap refused");
    EXPECT(strcmp(sl_status_string(SL_ERR_OVERLAP), "output overlaps an input") == 0, "status names");
    sl_ctx_destroy(ctx);
    if (!failures)
        printf("test_api_only: all public ops ran on the CPU with streamlab.h alone\n");
    return failures ? 1 : 0;
}
