/*
 * layernorm_bwd.c - the layernorm backward op (issue 32): given dy, x, w
 * and the forward's mean and rstd, with xh = (x - mean) rstd, g = w dy,
 *   dx[r, j] = rstd_r (g[r, j] - mean_k g[r, k] - xh[r, j] mean_k (g xh)[r, k]),
 *   dw[j] = sum_r dy[r, j] xh[r, j],   db[j] = sum_r dy[r, j],
 * its descriptor, fp64 reference, CPU rungs, variants and
 * sl_layernorm_bwd(). Its own op (docs/architecture.md, "Forward and
 * backward"): eight buffers, a workspace (the dw and db partials).
 */
#include "layernorm_bwd.h"

#include "dtype_conv.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

/* ---- numerics: the tolerance ------------------------------------------------
 * u = 2^-24; mean and rstd are inputs (f32, as the forward stored them):
 * the reference takes the same values, so only the backward's roundings
 * count. Per row, G1 = mean|g|, G2 = mean|g xh|.
 *   g = w dy rounds once; c1 = sum g / N along a path of at most 32 + 106
 *   additions (SL_NORM_SEQ's half and the team tree, as rmsnorm_bwd):
 *   |c1 err| <= 140 u G1; xh = (x - mean) rstd rounds twice, the terms of
 *   c2 three times, so |c2 err| <= 142 u G2; g - c1 rounds once, the fmaf
 *   once, the product by rstd once:
 *   |dx err| <= u rstd (2 |g| + 141 G1 + 144 |xh| G2) + 2 u |dx|.
 *   buf_abs[dx] = the largest of 2 u rstd (3 |g| + 142 G1 + 146 |xh| G2)
 *   (a factor 2 of margin for the ulp steps); the relative part LNB_ULPS.
 *   dw: terms dy xh (3 roundings), at most SL_NORM_DW_ROWS = 256 in order
 *   per partial, a block's warps (<= 16) in order, the partials in fp64:
 *   |err| <= 280 u sum_r |dy xh|: buf_abs[dw] = 2 x 280 u max_j sum_r |dy xh|.
 *   db: the same with exact terms: buf_abs[db] = 2 x 275 u max_j sum_r |dy|.
 * bf16 / f16 outputs add the ulp of their rounding (op.h). */
#define LNB_ULPS 16

/* ---- the reference: fp64 ------------------------------------------------------
 * Rows in parallel for dx (and the bound's largest term); dw and db as
 * per-thread fp64 sums over row blocks, added in thread order. */
static void reference(sl_ref_args *r)
{
    const uint64_t n = r->shape.cols, ld = r->shape.ld ? r->shape.ld : n;
    const sl_dtype dt = r->dtype, ot = r->out_dtype;
    const size_t es = sl_dtype_size(dt), oes = sl_dtype_size(ot);
    const unsigned char *w = r->in[SL_LNB_W];
    const float *mean = r->in[SL_LNB_MEAN], *rstd = r->in[SL_LNB_RSTD];
    const int nt = omp_get_max_threads();
    double *acc = calloc((size_t)nt * 4 * (n ? n : 1), sizeof *acc);
    double dx_abs = 0.0;
#pragma omp parallel reduction(max : dx_abs)
    {
        double *dw = acc ? acc + (size_t)omp_get_thread_num() * 4 * n : NULL;
        double *dwa = dw ? dw + n : NULL, *db = dw ? dw + 2 * n : NULL, *dba = dw ? dw + 3 * n : NULL;
#pragma omp for schedule(static)
        for (long long ii = (long long)r->lo; ii < (long long)r->hi; ii++) {
            const uint64_t i = (uint64_t)ii;
            const unsigned char *x = (const unsigned char *)r->in[SL_LNB_X] + i * ld * es;
            const unsigned char *dy = (const unsigned char *)r->in[SL_LNB_DY] + i * ld * es;
            unsigned char *dx = (unsigned char *)r->out[SL_LNB_DX] + i * ld * oes;
            const double rs = rstd[i], mu = mean[i];
            double s1 = 0.0, s2 = 0.0, a1 = 0.0, a2 = 0.0;
            for (uint64_t j = 0; j < n; j++) {
                const double g = sl_dtype_load_f64(dt, w, j) * sl_dtype_load_f64(dt, dy, j);
                const double xh = (sl_dtype_load_f64(dt, x, j) - mu) * rs;
                s1 += g;
                s2 += g * xh;
                a1 += fabs(g);
                a2 += fabs(g * xh);
            }
            const double c1 = s1 / (double)n, c2 = s2 / (double)n, G1 = a1 / (double)n, G2 = a2 / (double)n;
            for (uint64_t j = 0; j < n; j++) {
                const double dyv = sl_dtype_load_f64(dt, dy, j), g = sl_dtype_load_f64(dt, w, j) * dyv;
                const double xh = (sl_dtype_load_f64(dt, x, j) - mu) * rs;
                sl_dtype_store_f64(ot, dx, j, rs * (g - c1 - xh * c2));
                const double bound = fabs(rs) * (3.0 * fabs(g) + 142.0 * G1 + 146.0 * fabs(xh) * G2);
                dx_abs = bound > dx_abs ? bound : dx_abs;
                if (dw) {
                    dw[j] += dyv * xh;
                    dwa[j] += fabs(dyv * xh);
                    db[j] += dyv;
                    dba[j] += fabs(dyv);
                }
            }
        }
    }
    double dw_abs = 0.0, db_abs = 0.0;
    for (uint64_t j = 0; acc && j < n; j++) {
        double s[4] = {0.0, 0.0, 0.0, 0.0};
        for (int t = 0; t < nt; t++)
            for (int k = 0; k < 4; k++)
                s[k] += acc[(size_t)t * 4 * n + (size_t)k * n + j];
        sl_dtype_store_f64(ot, r->out[SL_LNB_DW], j, s[0]);
        sl_dtype_store_f64(ot, r->out[SL_LNB_DB], j, s[2]);
        dw_abs = s[1] > dw_abs ? s[1] : dw_abs;
        db_abs = s[3] > db_abs ? s[3] : db_abs;
    }
    r->buf_abs[SL_LNB_DX] = 2.0 * dx_abs * 0x1p-24;
    r->buf_abs[SL_LNB_DW] = 2.0 * 280.0 * dw_abs * 0x1p-24;
    r->buf_abs[SL_LNB_DB] = 2.0 * 275.0 * db_abs * 0x1p-24;
    free(acc);
}

/* ---- the CPU rungs -----------------------------------------------------------
 * dw and db first, over columns (each OpenMP thread its own columns, the
 * rows in order, fp64 sums: the same bits whatever the thread count), then
 * dx per row in f32 with the two row sums in fp64. dw and db before dx: in
 * place (dx = dy or x) is safe. */
static void cpu_dwdb(const sl_args *a, bool par)
{
    const uint64_t n = a->shape.cols, rows = a->shape.rows, ld = a->shape.ld ? a->shape.ld : n;
    const sl_dtype dt = a->dtype, wt = ((a->f32_bufs >> SL_LNB_W) & 1u) ? SL_F32 : dt;
    const size_t es = sl_dtype_size(dt);
    const float *mean = a->buf[SL_LNB_MEAN], *rstd = a->buf[SL_LNB_RSTD];
#pragma omp parallel for schedule(static) if (par)
    for (long long jj = 0; jj < (long long)n; jj++) {
        const uint64_t j = (uint64_t)jj;
        double s = 0.0, sb = 0.0;
        for (uint64_t r = 0; r < rows; r++) {
            const unsigned char *x = (const unsigned char *)a->buf[SL_LNB_X] + r * ld * es;
            const unsigned char *dy = (const unsigned char *)a->buf[SL_LNB_DY] + r * ld * es;
            const float dyv = sl_dtype_load(dt, dy, j);
            s += (double)dyv * ((sl_dtype_load(dt, x, j) - mean[r]) * rstd[r]);
            sb += dyv;
        }
        sl_dtype_store(wt, a->buf[SL_LNB_DW], j, (float)s);
        sl_dtype_store(wt, a->buf[SL_LNB_DB], j, (float)sb);
    }
}

static void cpu_dx_row(const sl_args *a, uint64_t r)
{
    const uint64_t n = a->shape.cols, ld = a->shape.ld ? a->shape.ld : n;
    const sl_dtype dt = a->dtype, wt = ((a->f32_bufs >> SL_LNB_W) & 1u) ? SL_F32 : dt;
    const size_t es = sl_dtype_size(dt);
    const unsigned char *x = (const unsigned char *)a->buf[SL_LNB_X] + r * ld * es;
    const unsigned char *dy = (const unsigned char *)a->buf[SL_LNB_DY] + r * ld * es;
    unsigned char *dx = (unsigned char *)a->buf[SL_LNB_DX] + r * ld * es;
    const void *w = a->buf[SL_LNB_W];
    const float rs = ((const float *)a->buf[SL_LNB_RSTD])[r], mu = ((const float *)a->buf[SL_LNB_MEAN])[r];
    double s1 = 0.0, s2 = 0.0;
    for (uint64_t j = 0; j < n; j++) {
        const float g = sl_dtype_load(wt, w, j) * sl_dtype_load(dt, dy, j);
        s1 += g;
        s2 += (double)g * ((sl_dtype_load(dt, x, j) - mu) * rs);
    }
    const float c1 = (float)(s1 / (double)n), c2 = (float)(s2 / (double)n);
    for (uint64_t j = 0; j < n; j++) {
        const float g = sl_dtype_load(wt, w, j) * sl_dtype_load(dt, dy, j);
        const float xh = (sl_dtype_load(dt, x, j) - mu) * rs;
        sl_dtype_store(dt, dx, j, fmaf(-xh, c2, g - c1) * rs);
    }
}

static sl_status cpu_serial(const sl_args *a)
{
    cpu_dwdb(a, false);
    sl_cpu_rows(a, cpu_dx_row, false);
    return SL_OK;
}

static sl_status cpu_omp(const sl_args *a)
{
    cpu_dwdb(a, true);
    sl_cpu_rows(a, cpu_dx_row, true);
    return SL_OK;
}

/* ---- buffers, bytes, workspace ---------------------------------------------------
 * The roles rule counts the compulsory traffic: x, dy (and w, mean, rstd)
 * read, dx (and dw, db) written. The partials' round trip is the rungs' own
 * (moved). */
static uint64_t buf_elems(const sl_shape *s, int k)
{
    return k == SL_LNB_W || k == SL_LNB_DW || k == SL_LNB_DB  ? s->cols
           : k == SL_LNB_MEAN || k == SL_LNB_RSTD ? s->rows
                                                  : sl_shape_span(s);
}

size_t sl_layernorm_bwd_ws(uint64_t rows, uint64_t cols)
{
    return 2 * sl_norm_dw_workspace(rows, cols);
}

static size_t workspace(sl_dtype dt, const sl_shape *s)
{
    (void)dt;
    return sl_layernorm_bwd_ws(s->rows, s->cols);
}

static sl_traffic useful(const sl_shape *s, sl_dtype dt)
{
    const double es = (double)sl_dtype_size(dt), m = (double)s->rows * (double)s->cols * es;
    sl_traffic t = {2.0 * m + (double)s->cols * es + 8.0 * (double)s->rows, m + 2.0 * (double)s->cols * es, 5, 3};
    return t;
}

/* The column pass re-reads x and dy; its partials are 2 ceil(rows / 256). */
static sl_traffic moved_cols(const sl_shape *s, sl_dtype dt)
{
    sl_traffic t = useful(s, dt);
    const double p = 2.0 * (double)((s->rows + SL_NORM_DW_ROWS - 1) / SL_NORM_DW_ROWS) * (double)s->cols * 4.0;
    t.rd_bytes += 2.0 * (double)s->rows * (double)s->cols * (double)sl_dtype_size(dt) + p;
    t.wr_bytes += p;
    return t;
}

/* regs: about two partial rows per SM (132 on the H200), twice. */
static sl_traffic moved_regs(const sl_shape *s, sl_dtype dt)
{
    sl_traffic t = useful(s, dt);
    const double p = 2.0 * 264.0 * (double)s->cols * 4.0;
    t.rd_bytes += p;
    t.wr_bytes += p;
    return t;
}

#define LNB_SRC "issue 32"
static const sl_variant variants[] = {
    {.name = "copy", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_CEILING, .copy = true,
     .technique = "copy kernel of x into dx (16-byte vectors, copy's vec rung): the copy ceiling",
     .source = "issue 32; DESIGN.md (the ceiling is a kernel, not cudaMemcpy)", .launch = SL_CUDA_FN(sl_cuda_norm_copy),
     .loads_in_flight = 1, .access_bytes = 16, .elems_per_thread = 4, .insts_per_elem = 2},
    {.name = "block", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "dw, db: a column pass (a thread per column, 256 rows a partial, fp64 finish); dx: a block per "
                  "row, coalesced scalar loads, two passes",
     .source = LNB_SRC, .launch = SL_CUDA_FN(sl_cuda_layernorm_bwd_block), .workspace_shape = workspace,
     .moved = moved_cols, .loads_in_flight = 1, .access_bytes = 4, .elems_per_thread = 1, .insts_per_elem = 18},
    {.name = "regs", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "the norms' backward register kernel (common/norm_bwd.cuh): persistent teams, x and dy in "
                  "registers read once, dw and db partials in registers, one partial row each per block, fp64 finish",
     .source = LNB_SRC, .launch = SL_CUDA_FN(sl_cuda_layernorm_bwd_regs), .workspace_shape = workspace,
     .moved = moved_regs, .static_partition = true, .loads_in_flight = 8, .access_bytes = 16, .elems_per_thread = 32,
     .insts_per_elem = 9},
    {.name = "regs_pf", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "regs with the next row's x and dy loaded before this row's two reductions, dw and db partials in "
                  "shared memory (float4 slots), 4 vectors a thread (blocks of 64-256, clusters of 2-8)",
     .source = LNB_SRC, .launch = SL_CUDA_FN(sl_cuda_layernorm_bwd_regs_pf), .workspace_shape = workspace,
     .moved = moved_regs, .static_partition = true, .loads_in_flight = 8, .access_bytes = 16, .elems_per_thread = 32,
     .smem_bytes_per_elem = 16, .insts_per_elem = 10},
    {.name = "regs_sm", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "regs with the dw and db partials in shared memory (float4 slots), no prefetch: ~64 registers, "
                  "3-4 blocks of 256 a SM (block and cluster teams; warp teams as regs)",
     .source = LNB_SRC, .launch = SL_CUDA_FN(sl_cuda_layernorm_bwd_regs_sm), .workspace_shape = workspace,
     .moved = moved_regs, .static_partition = true, .loads_in_flight = 8, .access_bytes = 16, .elems_per_thread = 32,
     .smem_bytes_per_elem = 16, .insts_per_elem = 9},
    {.name = "aligned", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "the public function's form at each row length (regs_pf, regs or regs_sm) for aligned launches: "
                  "whole 16-byte vectors of x, dy, dx and w without the edge masks (issue 32, seventh session)",
     .source = LNB_SRC, .launch = SL_CUDA_FN(sl_cuda_layernorm_bwd_aligned), .workspace_shape = workspace,
     .moved = moved_regs, .static_partition = true, .loads_in_flight = 8, .access_bytes = 16, .elems_per_thread = 32,
     .smem_bytes_per_elem = 16, .insts_per_elem = 6},
    {.name = "aligned_pf", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "aligned with regs_pf at every row of <= 256 vectors: the next row's x and dy in flight during "
                  "this row's sums, partials in shared memory; pair teams (two warps a row, 4 rows a block of 256, "
                  "4 vectors a thread) at 129-256 vectors; aligned launches (issue 32, ninth session)",
     .source = LNB_SRC, .launch = SL_CUDA_FN(sl_cuda_layernorm_bwd_aligned_pf), .workspace_shape = workspace,
     .moved = moved_regs, .static_partition = true, .loads_in_flight = 8, .access_bytes = 16, .elems_per_thread = 32,
     .smem_bytes_per_elem = 16, .insts_per_elem = 6},
    {.name = "aligned_sm", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "aligned with pair teams at 129-256 vectors in regs_sm's form: two warps a row, 4 rows a block of "
                  "256, 4 vectors a thread, no prefetch, partials in shared memory, 3-4 blocks a SM; aligned's form "
                  "elsewhere; aligned launches (issue 32, ninth session)",
     .source = LNB_SRC, .launch = SL_CUDA_FN(sl_cuda_layernorm_bwd_aligned_sm), .workspace_shape = workspace,
     .moved = moved_regs, .static_partition = true, .loads_in_flight = 8, .access_bytes = 16, .elems_per_thread = 32,
     .smem_bytes_per_elem = 16, .insts_per_elem = 6},
    {.name = "aligned_pf3", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "aligned_pf with the launch bound at 3 blocks of 256 a SM (<= 80 registers, some "
                  "spills) where a thread holds 4 vectors of two rows: warp teams at 65-128 vectors, pair teams "
                  "at 129-256; 96 KiB of the next rows in flight a SM; aligned launches (issue 32, tenth "
                  "session)",
     .source = LNB_SRC, .launch = SL_CUDA_FN(sl_cuda_layernorm_bwd_aligned_pf3), .workspace_shape = workspace,
     .moved = moved_regs, .static_partition = true, .loads_in_flight = 8, .access_bytes = 16, .elems_per_thread = 32,
     .smem_bytes_per_elem = 16, .insts_per_elem = 6},
    {.name = "aligned_pfx", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "aligned_pf with x, dy and w widened to f32 in one instruction an element (a shift or a mask for "
                  "bf16, not two for a pair's high half): warp teams at 65-128 vectors, pair teams at 129-256; the "
                  "same values; aligned launches (issue 32, tenth session)",
     .source = LNB_SRC, .launch = SL_CUDA_FN(sl_cuda_layernorm_bwd_aligned_pfx), .workspace_shape = workspace,
     .moved = moved_regs, .static_partition = true, .loads_in_flight = 8, .access_bytes = 16, .elems_per_thread = 32,
     .smem_bytes_per_elem = 16, .insts_per_elem = 6},
    {.name = "aligned_pf3x", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "aligned_pf3 (3 blocks of 256 a SM) with aligned_pfx's one-instruction widening of x, dy and w: "
                  "warp teams at 65-128 vectors, pair teams at 129-256; aligned launches (issue 32, tenth session)",
     .source = LNB_SRC, .launch = SL_CUDA_FN(sl_cuda_layernorm_bwd_aligned_pf3x), .workspace_shape = workspace,
     .moved = moved_regs, .static_partition = true, .loads_in_flight = 8, .access_bytes = 16, .elems_per_thread = 32,
     .smem_bytes_per_elem = 16, .insts_per_elem = 6},
    {.name = "bulk", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "the row in shared memory: x and dy chunks staged by cp.async.bulk two rows ahead (2 stages), "
                  "clusters of 1-8 blocks of 512 a row, persistent, both sums through DSMEM (st.async), dx from "
                  "shared memory, dw and db in registers per column chunk (aligned launches, sm_90; issue 32, "
                  "seventh session)",
     .source = LNB_SRC, .launch = SL_CUDA_FN(sl_cuda_layernorm_bwd_bulk), .workspace_shape = workspace,
     .moved = moved_regs, .static_partition = true, .loads_in_flight = 8, .access_bytes = 16,
     .elems_per_thread = 16, .smem_bytes_per_elem = 16, .insts_per_elem = 6},
    {.name = "bulk_ex", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "bulk with fewer instructions and waits a row: both sums one-sided (every warp st.async into every "
                  "cluster CTA's slots, one mbarrier wait, no block barrier between the passes), rstd and mean "
                  "copied to shared memory (cp.async) a row ahead, w widened to f32 once in shared memory, dx in four "
                  "operations an element (aligned launches, sm_90; issue 32, eleventh session)",
     .source = LNB_SRC, .launch = SL_CUDA_FN(sl_cuda_layernorm_bwd_bulk_ex), .workspace_shape = workspace,
     .moved = moved_regs, .static_partition = true, .loads_in_flight = 8, .access_bytes = 16,
     .elems_per_thread = 16, .smem_bytes_per_elem = 16, .insts_per_elem = 5.3f},
    {.name = "bulk_exw", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "bulk_ex with 16-bit w in registers for the launch (8 a thread, widened at use in both passes), "
                  "not f32 in shared memory: only x and dy read from shared memory in the rows (f32 w: raw from shared "
                  "memory, as bulk); the one-sided sums, rstd and mean a row ahead and the four-operation dx kept "
                  "(aligned launches, sm_90; issue 32, thirteenth session)",
     .source = LNB_SRC, .launch = SL_CUDA_FN(sl_cuda_layernorm_bwd_bulk_exw), .workspace_shape = workspace,
     .moved = moved_regs, .static_partition = true, .loads_in_flight = 8, .access_bytes = 16,
     .elems_per_thread = 16, .smem_bytes_per_elem = 16, .insts_per_elem = 5.4f},
    {.name = "bulk_exw3", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "bulk_exw with three row stages of x and dy a block (a stage refilled three rows ahead, two rows in "
                  "flight while the block works on a third), 16-bit w's chunk landing in the third stage before it "
                  "goes to registers; bulk_exw's two stages for f32 w and f32 rows past 32768 columns (aligned "
                  "launches, sm_90; issue 32, fifteenth session)",
     .source = LNB_SRC, .launch = SL_CUDA_FN(sl_cuda_layernorm_bwd_bulk_exw3), .workspace_shape = workspace,
     .moved = moved_regs, .static_partition = true, .loads_in_flight = 8, .access_bytes = 16,
     .elems_per_thread = 16, .smem_bytes_per_elem = 16, .insts_per_elem = 5.4f},
    {.name = "bulk_pipe", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "bulk_exw3 with row k + 1's first pass (dw terms, its sums sent to the cluster) before row k's wait "
                  "for the cluster's sums: the exchange's wait one first pass later, four slot sets (aligned "
                  "launches, sm_90; issue 32, sixteenth session)",
     .source = LNB_SRC, .launch = SL_CUDA_FN(sl_cuda_layernorm_bwd_bulk_pipe), .workspace_shape = workspace,
     .moved = moved_regs, .static_partition = true, .loads_in_flight = 8, .access_bytes = 16,
     .elems_per_thread = 16, .smem_bytes_per_elem = 16, .insts_per_elem = 5.4f},
    {.name = "bulk_q", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "bulk_exw3 in blocks of 256 threads, four an SM, chunks of up to 512 vectors of x and dy (a row "
                  "in up to 8 CTAs of a cluster): twice the blocks an SM, each in its own phase of a row (aligned "
                  "launches, sm_90, 16-bit rows up to 32768 columns; issue 32, eighteenth session)",
     .source = LNB_SRC, .launch = SL_CUDA_FN(sl_cuda_layernorm_bwd_bulk_q), .workspace_shape = workspace,
     .moved = moved_regs, .static_partition = true, .loads_in_flight = 8, .access_bytes = 16,
     .elems_per_thread = 16, .smem_bytes_per_elem = 16, .insts_per_elem = 5.4f},
    {.name = "regs_cl", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "the row in registers between its two passes, no shared-memory staging: a cluster of 1-8 blocks "
                  "of 256 a row (two 16-byte vectors of x and dy a thread), persistent clusters walking rows with "
                  "the next two rows' loads in flight in a register ring, both sums one-sided through DSMEM, w "
                  "widened once, dw and db in registers (aligned launches, sm_90, bf16 / f16 rows up to 32768 "
                  "columns with w in their dtype; issue 32, twenty-first session; measured slower than bulk_q, h200-norm-bwd-rcl-2026-11-29)",
     .source = LNB_SRC, .launch = SL_CUDA_FN(sl_cuda_layernorm_bwd_regs_cl), .workspace_shape = workspace,
     .moved = moved_regs, .static_partition = true, .loads_in_flight = 8, .access_bytes = 16,
     .elems_per_thread = 16, .insts_per_elem = 5.0f},
    {.name = "sl_layernorm_bwd", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_API,
     .technique = "public sl_layernorm_bwd(): aligned rows of 32 KiB and more (sm_90) bulk (f32), bulk_exw "
                  "(16-bit rows of 128 KiB and more), bulk_q (16-bit rows over 32 KiB to 64 KiB with 16-bit w), "
                  "bulk_exw3 (other shorter 16-bit rows with 16-bit w) or bulk_ex (f32 w); 16-bit aligned rows of 129-256 vectors at >= 1024 rows aligned_pfx (pair teams); else by row "
                  "length in 16-byte vectors, "
                  "regs_pf (16-bit, >= 1024 rows: <= 128), regs (129-256, 513-1024) or regs_sm (257-512, > 1024), in "
                  "aligned's form for aligned launches, where x, dy, dx share one offset for every row and the row "
                  "fits; else block",
     .source = LNB_SRC, .launch = SL_CUDA_FN(sl_cuda_layernorm_bwd_api), .workspace_shape = workspace,
     .moved = moved_regs, .static_partition = true, .loads_in_flight = 8, .access_bytes = 16, .elems_per_thread = 32,
     .insts_per_elem = 9},
    SL_EW_CEILING_CPU,
    {.name = "serial", .backend = SL_BACKEND_CPU, .kind = SL_KIND_RUNG,
     .technique = "one thread: dw and db by columns (fp64 sums), then dx row by row", .source = LNB_SRC,
     .launch = cpu_serial, .elems_per_thread = 1},
    {.name = "omp", .backend = SL_BACKEND_CPU, .kind = SL_KIND_RUNG,
     .technique = "OpenMP: dw and db's columns, then dx's rows, over the threads", .source = LNB_SRC,
     .launch = cpu_omp, .elems_per_thread = 1},
    {.name = "sl_layernorm_bwd", .backend = SL_BACKEND_CPU, .kind = SL_KIND_API,
     .technique = "the public function on a CPU context: the omp rung", .source = LNB_SRC, .launch = cpu_omp,
     .elems_per_thread = 1},
};

const sl_op_desc sl_op_layernorm_bwd = {
    .id = SL_OP_LAYERNORM_BWD,
    .name = "layernorm_bwd",
    .formula = "xh = (x - mean) rstd, g = w dy: dx = rstd (g - mean_k g - xh mean_k g xh), dw = sum_r dy xh, "
               "db = sum_r dy",
    .source = "issue 32 (the gradient of layernorm)",
    .numerics = "f32 (16-bit storage widened); dw and db from per-block partials added in fp64, in order "
                "(deterministic); within 16 x 2^-24 relative plus a bound relative to the terms (layernorm_bwd.c)",
    .rank = 2,
    .nbufs = 8,
    .bufs = {{"x", SL_ROLE_IN, false, false},
             {"dy", SL_ROLE_IN, false, false},
             {"w", SL_ROLE_IN, false, false},
             {"mean", SL_ROLE_IN, false, SL_BUF_F32},
             {"rstd", SL_ROLE_IN, false, SL_BUF_F32, -12}, /* [2^-20, 2^-4): 1 / std(x) (op.h) */
             {"dx", SL_ROLE_OUT, false, false},
             {"dw", SL_ROLE_OUT, false, false},
             {"db", SL_ROLE_OUT, false, false}},
    .dtypes = SL_RMSNORM_DTYPES,
    .flops_per_elem = 12,
    .fma = false,
    .traffic = NULL,
    .tol = {SL_TOL_REL, LNB_ULPS},
    .reference = reference,
    .variants = variants,
    .nvariants = (int)(sizeof variants / sizeof variants[0]),
    .default_shapes = "4096x1024,4096x4096,1024x16384,256x65536,64x4096",
    .buf_elems = buf_elems,
    .ref_whole = true,
};

size_t sl_layernorm_bwd_workspace(size_t rows, size_t cols)
{
    return sl_layernorm_bwd_ws(rows, cols);
}

sl_status sl_layernorm_bwd(sl_ctx *ctx, sl_dtype dtype, sl_dtype w_dtype, size_t rows, size_t cols, const void *x,
                           const void *dy, const void *w, const float *mean, const float *rstd, void *dx, void *dw,
                           void *db, void *workspace_, size_t workspace_bytes, void *stream)
{
    if (w_dtype != dtype && w_dtype != SL_F32)
        return sl_fail(SL_ERR_UNSUPPORTED, "sl_layernorm_bwd: w_dtype %s: the weight is in x's dtype (%s) or f32",
                       sl_dtype_name(w_dtype), sl_dtype_name(dtype));
    if (cols && ((dw && (dw == w || dw == db)) || (db && db == w)))
        return sl_fail(SL_ERR_OVERLAP, "sl_layernorm_bwd: dw = %p, db = %p, w = %p: dw and db need their own buffers",
                       dw, db, w);
    sl_status st = sl_norm_ws_check("sl_layernorm_bwd", workspace_, workspace_bytes, sl_layernorm_bwd_ws(rows, cols));
    if (st != SL_OK)
        return st;
    const sl_shape s = sl_shape_2d(rows, cols);
    void *const ptrs[] = {(void *)x, (void *)dy, (void *)w, (void *)mean, (void *)rstd, dx, dw, db};
    const unsigned f = w_dtype == SL_F32 && dtype != SL_F32
                           ? (1u << SL_LNB_W) | (1u << SL_LNB_DW) | (1u << SL_LNB_DB)
                           : 0u;
    const sl_call_opts o = {.f32_bufs = f, .workspace = workspace_, .workspace_bytes = workspace_bytes};
    return sl_op_call_opts(ctx, &sl_op_layernorm_bwd, dtype, &s, ptrs, NULL, &o, stream);
}
