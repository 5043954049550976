/*
 * norm_rounds.h - the backward norms' rounds test, shared by
 * test_gpu_rmsnorm.c and test_gpu_layernorm.c (after their check header,
 * which defines ncase; they define _POSIX_C_SOURCE for setenv, which the
 * CPU tests sharing those check headers do not).
 */
#ifndef SL_TEST_NORM_ROUNDS_H
#define SL_TEST_NORM_ROUNDS_H

#include <stdlib.h>
#include <string.h>

/* The backward's rounds (common/norm_bwd.cuh): SL_NORM_BWD_TEAMS caps a
 * launch's teams so that a team owns more than 256 rows and writes a
 * partial row per 256, and some blocks write a round of zeros (rows = 256
 * x teams + 1 for the warp teams' 2 blocks of 16, 1025 for 2 block teams).
 * Warp teams (64 columns), block teams (1500), clusters (20000); every
 * register rung (aligned too: 1500 bf16 is not a whole number of vectors,
 * so it refuses that one) and the public function. */
static void t_rounds(sl_ctx *ctx, const sl_op_desc *op,
                     void (*bwd)(sl_ctx *, const sl_variant *, sl_dtype, sl_dtype, const ncase *, int))
{
    static const ncase cs[] = {{8193, 64, 0, 0, 0, {K_RAND}, 1},
                               {1025, 1500, 0, 0, 0, {K_RAND}, 1},
                               {600, 20000, 0, 0, 0, {K_RAND}, 1}};
    setenv("SL_NORM_BWD_TEAMS", "2", 1);
    for (size_t i = 0; i < sizeof cs / sizeof cs[0]; i++)
        for (int d = 0; d < 2; d++) {
            const sl_dtype dt = d ? SL_BF16 : SL_F32;
            for (int k = 0; k < op->nvariants; k++) {
                const sl_variant *v = &op->variants[k];
                if (v->backend == SL_BACKEND_CUDA && v->kind == SL_KIND_RUNG && v->launch &&
                    t_bwd_regs_rung(v->name))
                    bwd(ctx, v, dt, dt, &cs[i], 0);
            }
            bwd(ctx, NULL, dt, dt, &cs[i], 0);
        }
    unsetenv("SL_NORM_BWD_TEAMS");
}

#endif
