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

/* The bulk rungs' long rows (bulk, bulk_ex, bulk_exw, bulk_exw3 and
 * bulk_pipe: 05_bulk.cu, 11_bulk_ex.cu, 12_bulk_exw.cu, 13_bulk_exw3.cu,
 * 14_bulk_pipe.cu,
 * common/norm_bwd_bulk.cuh: a cluster of 2-8
 * blocks a row, each a column chunk staged in shared memory, dw (db) in
 * registers across a team's rows; bulk_ex's exchange alternating two slot
 * sets and mbarriers by row, its rstd (mean) a row ahead, w as f32 in shared
 * memory; bulk_exw's w in registers for the launch, f32 (rmsnorm) or 16-bit
 * (layernorm), whose per-thread columns must be right in every chunk;
 * bulk_exw3's three stages, w's chunk first in the third, its stage and
 * parity k % 3 and (k / 3) & 1; bulk_pipe's first pass a row ahead, its
 * four slot sets (k & 3) and its stop at each round's edge):
 * 16384, 32768 and 65536 columns (clusters of 2, 4 and 8 in 16-bit; f32 at
 * 65536 takes chunks of 2048 vectors, 4 a thread), 40008 (8 chunks, the
 * last one shorter: 5001 vectors at 16-bit, 10002 in f32; with a NaN), a
 * few rows and an odd count (37), every dtype
 * with w in x's dtype and in f32 (the weight's chunk at twice the bytes);
 * then 517 rows of 16384 with 2 teams (259 and 258 rows: two rounds of
 * partials each; bulk_ex: rows of huge values, ~2^40, whose rstd takes
 * bulk's form of dx, beside ordinary rows taking the four-operation form)
 * and 1025 rows of 4096 with 2 teams (a block a row, C = 1: the exchange's
 * own-CTA path over 513 rows; 259, 258, 513 and 512 rows a team: each
 * residue of 3, bulk_exw3's stages cycled ~86-171 times), then 2 teams of
 * 1-5 rows (the stages' ramp and the first refills). bwd checks each run
 * against the fp64 oracle and a second run for the same bits (dx and dw),
 * and t_bwd_refused the
 * refusals: a misaligned x (element 1) and a row of 16383 columns must be
 * refused. Quick mode (compute-sanitizer): f32 and bf16, no 65536. */
static void t_bulk_long1(sl_ctx *ctx, const sl_variant *v,
                         void (*bwd)(sl_ctx *, const sl_variant *, sl_dtype, sl_dtype, const ncase *, int))
{
    const int quick = getenv("SL_NORM_QUICK") != NULL || getenv("STREAMLAB_TEST_QUICK") != NULL;
    static const ncase cs[] = {
        {5, 16384, 0, 0, 0, {K_RAND}, 1},
        {37, 16384, 0, 0, 0, {K_RAND, K_ZERO}, 2}, /* an odd row count, rows of zeros */
        {2, 32768, 0, 0, 0, {K_RAND}, 1},
        {3, 65536, 0, 0, 0, {K_RAND, K_WIDE}, 2},
        {3, 40008, 0, 0, 0, {K_RAND, K_NAN}, 2}, /* an uneven last chunk */
        {5, 24576, 0, 0, 0, {K_RAND, K_WIDE}, 2}, /* regs_cl: a cluster of 6 blocks of 512 vectors (16-bit) */
        {3, 20008, 0, 0, 0, {K_RAND, K_NAN}, 2},  /* regs_cl: 5 blocks of 501 vectors, the last of 497 */
        {3, 16384, 1, 1, 0, {K_RAND}, 1}, /* misaligned: refused */
        {3, 16383, 0, 0, 0, {K_RAND}, 1}, /* not whole vectors: refused */
        {4, 16384, 0, 0, 1, {K_RAND}, 1}, /* in place (dx = dy) */
    };
    for (size_t i = 0; i < sizeof cs / sizeof cs[0]; i++) {
        if (quick && cs[i].cols > 32768)
            continue;
        for (int d = 0; d < (quick ? 2 : 3); d++)
            for (int wf = 0; wf < 2; wf++) {
                const sl_dtype dt = t_dts[d], wt = wf ? SL_F32 : dt;
                if (!(wf && dt == SL_F32))
                    bwd(ctx, v, dt, wt, &cs[i], 0);
            }
    }
    static const ncase rc = {517, 16384, 0, 0, 0, {K_RAND, K_HUGE, K_RAND}, 3};
    static const ncase r1 = {1025, 4096, 0, 0, 0, {K_RAND, K_WIDE}, 2};
    setenv("SL_NORM_BWD_TEAMS", "2", 1);
    bwd(ctx, v, SL_BF16, SL_BF16, &rc, 0);
    bwd(ctx, v, SL_F32, SL_F32, &rc, 0);
    bwd(ctx, v, SL_BF16, SL_F32, &r1, 0);
    if (!quick)
        bwd(ctx, v, SL_F16, SL_F16, &r1, 0);
    /* The stages' ramp, 2 teams of 1-5 rows: a team ending before, at and
     * after its first refills (bulk_exw3: rows 0 and 1 issued at the start,
     * row 2 once w has left the third stage, row k + 3 after row k; the
     * others: row k + 2 after row k), every dtype with w in x's dtype and in
     * f32 (bulk_exw3's layernorm with f32 w runs bulk_exw's two stages). */
    static const ncase ramp[] = {
        {3, 16384, 0, 0, 0, {K_RAND}, 1},                /* teams of 2 and 1 rows */
        {5, 16384, 0, 0, 0, {K_RAND, K_WIDE}, 2},        /* 3 and 2 */
        {9, 16384, 0, 0, 0, {K_RAND, K_ZERO, K_NAN}, 3}, /* 5 and 4 */
        {7, 4096, 0, 0, 0, {K_RAND, K_HUGE}, 2},         /* C = 1: 4 and 3 */
    };
    for (size_t i = 0; i < sizeof ramp / sizeof ramp[0]; i++)
        for (int d = 0; d < (quick ? 2 : 3); d++)
            for (int wf = 0; wf < 2; wf++) {
                const sl_dtype dt = t_dts[d], wt = wf ? SL_F32 : dt;
                if (!(wf && dt == SL_F32))
                    bwd(ctx, v, dt, wt, &ramp[i], 0);
            }
    unsetenv("SL_NORM_BWD_TEAMS");
}

/* t_bulk_long1 for every backward bulk rung of op (bulk, bulk_ex,
 * bulk_exw, bulk_exw3, bulk_pipe: every rung named bulk*) and regs_cl
 * (layernorm_bwd's and rmsnorm_bwd's: its clusters of 1-8 blocks at
 * 4096-32768 columns, its register ring (3 rows layernorm, 4 rmsnorm) over
 * the odd row counts, the 2-team rounds (259 / 258 and 513 / 512 rows a
 * team: every residue of 3 and of 4) and the ramp's teams of 1-5 rows
 * (fewer rows than the ring, and one past it), its refusals of the 40008-
 * and 65536-column rows, f32 rows and f32 w). */
static void t_bulk_long(sl_ctx *ctx, const sl_op_desc *op,
                        void (*bwd)(sl_ctx *, const sl_variant *, sl_dtype, sl_dtype, const ncase *, int))
{
    for (int k = 0; k < op->nvariants; k++)
        if (op->variants[k].backend == SL_BACKEND_CUDA && op->variants[k].kind == SL_KIND_RUNG &&
            op->variants[k].launch &&
            (t_bwd_bulk_rung(op->variants[k].name) || t_bwd_rcl_rung(op->variants[k].name)))
            t_bulk_long1(ctx, &op->variants[k], bwd);
}

/* The backward's rounds (common/norm_bwd.cuh): SL_NORM_BWD_TEAMS caps a
 * launch's teams so that a team owns more than 256 rows and writes a
 * partial row per 256, and some blocks write a round of zeros (rows = 256
 * x teams + 1 for the warp teams' 2 blocks of 16, 1025 for 2 block teams).
 * Warp teams (64 columns), block teams (1500), clusters (20000), and
 * aligned_pf's and the tenth session's pair teams (2049 = 256 x 8 + 1 rows: 2
 * blocks of 4 pairs; 1032 columns bf16, 520 f32, with a partial last
 * vector column of the team; 520 bf16 their warp teams of 4 vectors); every
 * register rung (aligned too: 1500 bf16 is not a whole number of vectors,
 * so it refuses that one), every bulk rung (the same refusal) and the
 * public function; then the bulk rungs' long rows (t_bulk_long). */
static void t_rounds(sl_ctx *ctx, const sl_op_desc *op,
                     void (*bwd)(sl_ctx *, const sl_variant *, sl_dtype, sl_dtype, const ncase *, int))
{
    static const ncase cs[] = {{8193, 64, 0, 0, 0, {K_RAND}, 1},
                               {1025, 1500, 0, 0, 0, {K_RAND}, 1},
                               {600, 20000, 0, 0, 0, {K_RAND}, 1},
                               {2049, 1032, 0, 0, 0, {K_RAND}, 1},
                               {2049, 520, 0, 0, 0, {K_RAND}, 1}};
    setenv("SL_NORM_BWD_TEAMS", "2", 1);
    for (size_t i = 0; i < sizeof cs / sizeof cs[0]; i++)
        for (int d = 0; d < 2; d++) {
            const sl_dtype dt = d ? SL_BF16 : SL_F32;
            for (int k = 0; k < op->nvariants; k++) {
                const sl_variant *v = &op->variants[k];
                if (v->backend == SL_BACKEND_CUDA && v->kind == SL_KIND_RUNG && v->launch &&
                    (t_bwd_regs_rung(v->name) || t_bwd_bulk_rung(v->name)))
                    bwd(ctx, v, dt, dt, &cs[i], 0);
            }
            bwd(ctx, NULL, dt, dt, &cs[i], 0);
        }
    unsetenv("SL_NORM_BWD_TEAMS");
    t_bulk_long(ctx, op, bwd);
}

#endif
