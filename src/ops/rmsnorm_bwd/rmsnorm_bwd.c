/*
 * rmsnorm_bwd.c - the rmsnorm backward op (issue 32): given dy, x, w and
 * the forward's rstd,
 *   D_r = sum_j w[j] dy[r, j] x[r, j],
 *   dx[r, j] = rstd_r w[j] dy[r, j] - x[r, j] rstd_r^3 D_r / cols,
 *   dw[j] = sum_r dy[r, j] x[r, j] rstd_r,
 * its descriptor, fp64 reference, CPU rungs, variants and sl_rmsnorm_bwd().
 * Its own op (docs/architecture.md, "Forward and backward"): six buffers,
 * a workspace (the dw partials), its own bytes and tolerance.
 */
#include "rmsnorm_bwd.h"

#include "dtype_conv.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

/* ---- numerics: the tolerance ------------------------------------------------
 * dx is a difference, dw a sum of signed terms: neither is within a
 * relative bound of itself where terms cancel. The bound is relative to the
 * terms, as SL_TOL_REDUCTION's (op.h), per buffer (sl_ref_args.buf_abs):
 *   dx: the GPU forms w dy (1 rounding), D as a sum of fmaf terms whose
 *   path is at most 32 + 106 additions (SL_NORM_SEQ and the team tree of
 *   the forward), c = D / N rstd^3 (4 roundings), dx = fmaf(-x, c, rstd
 *   (w dy)) (2 more): |err| <= 4 u |rstd w dy| + (140 + 6) u |x| rstd^3
 *   sum|w dy x| / N + u |dx|. buf_abs[dx] is the largest right side over
 *   the matrix (u = 2^-24), with a factor 2 of margin for the ulp steps
 *   of the products; the relative part is RMSB_ULPS.
 *   dw: terms (dy rstd) x (2 roundings), in order along at most
 *   SL_NORM_DW_ROWS = 256 rows per partial, a block's warps (<= 16) added
 *   in order, the partials in fp64: |err| <= (256 + 16 + 3) u sum_r |t|;
 *   buf_abs[dw] = 2 x 275 u max_j sum_r |dy x rstd|.
 * bf16 / f16 outputs add the ulp of their rounding (op.h). */
#define RMSB_ULPS 16

/* ---- the reference: fp64 ------------------------------------------------------
 * Rows in parallel for dx (and the bound's largest term); dw as per-thread
 * fp64 sums over row blocks, added in thread order. */
static void reference(sl_ref_args *r)
{
    const uint64_t n = r->shape.cols, ld = r->shape.ld ? r->shape.ld : n;
    const sl_dtype dt = r->dtype, ot = r->out_dtype;
    const size_t es = sl_dtype_size(dt), oes = sl_dtype_size(ot);
    const unsigned char *w = r->in[SL_RMSB_W];
    const float *rstd = r->in[SL_RMSB_RSTD];
    const int nt = omp_get_max_threads();
    double *acc = calloc((size_t)nt * 2 * (n ? n : 1), sizeof *acc);
    double dx_abs = 0.0;
#pragma omp parallel reduction(max : dx_abs)
    {
        double *dw = acc ? acc + (size_t)omp_get_thread_num() * 2 * n : NULL, *dwa = dw ? dw + n : NULL;
#pragma omp for schedule(static)
        for (long long ii = (long long)r->lo; ii < (long long)r->hi; ii++) {
            const uint64_t i = (uint64_t)ii;
            const unsigned char *x = (const unsigned char *)r->in[SL_RMSB_X] + i * ld * es;
            const unsigned char *dy = (const unsigned char *)r->in[SL_RMSB_DY] + i * ld * es;
            unsigned char *dx = (unsigned char *)r->out[SL_RMSB_DX] + i * ld * oes;
            const double rs = rstd[i];
            double D = 0.0, Da = 0.0;
            for (uint64_t j = 0; j < n; j++) {
                const double t =
                    sl_dtype_load_f64(dt, w, j) * sl_dtype_load_f64(dt, dy, j) * sl_dtype_load_f64(dt, x, j);
                D += t;
                Da += fabs(t);
            }
            const double c = rs * rs * rs * D / (double)n, ca = fabs(rs * rs * rs) * Da / (double)n;
            for (uint64_t j = 0; j < n; j++) {
                const double xv = sl_dtype_load_f64(dt, x, j), dyv = sl_dtype_load_f64(dt, dy, j);
                const double a = rs * sl_dtype_load_f64(dt, w, j) * dyv;
                sl_dtype_store_f64(ot, dx, j, a - xv * c);
                const double bound = 4.0 * fabs(a) + 146.0 * fabs(xv) * ca;
                dx_abs = bound > dx_abs ? bound : dx_abs;
                if (dw) {
                    dw[j] += dyv * xv * rs;
                    dwa[j] += fabs(dyv * xv * rs);
                }
            }
        }
    }
    double dw_abs = 0.0;
    for (uint64_t j = 0; acc && j < n; j++) {
        double s = 0.0, sa = 0.0;
        for (int t = 0; t < nt; t++) {
            s += acc[(size_t)t * 2 * n + j];
            sa += acc[(size_t)t * 2 * n + n + j];
        }
        sl_dtype_store_f64(ot, r->out[SL_RMSB_DW], j, s);
        dw_abs = sa > dw_abs ? sa : dw_abs;
    }
    r->buf_abs[SL_RMSB_DX] = 2.0 * dx_abs * 0x1p-24;
    r->buf_abs[SL_RMSB_DW] = 2.0 * 275.0 * dw_abs * 0x1p-24;
    free(acc);
}

/* ---- the CPU rungs -----------------------------------------------------------
 * dw first, over columns (each OpenMP thread its own columns, the rows in
 * order, fp64 sums: the same bits whatever the thread count), then dx per
 * row in f32 with D in fp64. dw before dx: in place (dx = dy or x) is safe. */
static void cpu_dw(const sl_args *a, bool par)
{
    const uint64_t n = a->shape.cols, rows = a->shape.rows, ld = a->shape.ld ? a->shape.ld : n;
    const sl_dtype dt = a->dtype, wt = ((a->f32_bufs >> SL_RMSB_W) & 1u) ? SL_F32 : dt;
    const size_t es = sl_dtype_size(dt);
    const float *rstd = a->buf[SL_RMSB_RSTD];
#pragma omp parallel for schedule(static) if (par)
    for (long long jj = 0; jj < (long long)n; jj++) {
        const uint64_t j = (uint64_t)jj;
        double s = 0.0;
        for (uint64_t r = 0; r < rows; r++) {
            const unsigned char *x = (const unsigned char *)a->buf[SL_RMSB_X] + r * ld * es;
            const unsigned char *dy = (const unsigned char *)a->buf[SL_RMSB_DY] + r * ld * es;
            s += (double)(sl_dtype_load(dt, dy, j) * rstd[r]) * sl_dtype_load(dt, x, j);
        }
        sl_dtype_store(wt, a->buf[SL_RMSB_DW], j, (float)s);
    }
}

static void cpu_dx_row(const sl_args *a, uint64_t r)
{
    const uint64_t n = a->shape.cols, ld = a->shape.ld ? a->shape.ld : n;
    const sl_dtype dt = a->dtype, wt = ((a->f32_bufs >> SL_RMSB_W) & 1u) ? SL_F32 : dt;
    const size_t es = sl_dtype_size(dt);
    const unsigned char *x = (const unsigned char *)a->buf[SL_RMSB_X] + r * ld * es;
    const unsigned char *dy = (const unsigned char *)a->buf[SL_RMSB_DY] + r * ld * es;
    unsigned char *dx = (unsigned char *)a->buf[SL_RMSB_DX] + r * ld * es;
    const void *w = a->buf[SL_RMSB_W];
    const float rs = ((const float *)a->buf[SL_RMSB_RSTD])[r];
    double D = 0.0;
    for (uint64_t j = 0; j < n; j++)
        D += (double)(sl_dtype_load(wt, w, j) * sl_dtype_load(dt, dy, j)) * sl_dtype_load(dt, x, j);
    const float c = (float)(D / (double)n) * rs * rs * rs;
    for (uint64_t j = 0; j < n; j++) {
        const float xv = sl_dtype_load(dt, x, j), wdy = sl_dtype_load(wt, w, j) * sl_dtype_load(dt, dy, j);
        sl_dtype_store(dt, dx, j, fmaf(-xv, c, rs * wdy));
    }
}

static sl_status cpu_serial(const sl_args *a)
{
    cpu_dw(a, false);
    sl_cpu_rows(a, cpu_dx_row, false);
    return SL_OK;
}

static sl_status cpu_omp(const sl_args *a)
{
    cpu_dw(a, true);
    sl_cpu_rows(a, cpu_dx_row, true);
    return SL_OK;
}

/* ---- buffers, bytes, workspace ---------------------------------------------------
 * The roles rule counts the compulsory traffic: x, dy (and w, rstd) read,
 * dx (and dw) written. The dw partials' round trip is the rungs' own
 * (moved): 2 x P x cols x 4 bytes. */
static uint64_t buf_elems(const sl_shape *s, int k)
{
    return k == SL_RMSB_W || k == SL_RMSB_DW ? s->cols : k == SL_RMSB_RSTD ? s->rows : sl_shape_span(s);
}

uint64_t sl_norm_dw_partials(uint64_t rows, uint64_t cols)
{
    if (rows == 0 || cols == 0)
        return 0;
    /* least: one partial row a SL_NORM_DW_ROWS rows; room: 16 MiB of them.
     * Their sum, not their larger: p teams flushing every SL_NORM_DW_ROWS of
     * their rows form p ceil(ceil(rows / p) / SL_NORM_DW_ROWS) <= least + p
     * rows, so any p up to room fits. With the larger alone, where
     * least = room (32768 x 32768, 65536 x 16384) only the p that divide it
     * fitted, and norm_bwd_grid_of cut the teams to a power of two
     * (docs/ladder.md, "a cliff at 2^30 elements"). */
    const uint64_t least = (rows + SL_NORM_DW_ROWS - 1) / SL_NORM_DW_ROWS, room = ((uint64_t)1 << 22) / cols;
    const uint64_t p = least + room;
    return p < rows ? p : rows;
}

size_t sl_norm_dw_workspace(uint64_t rows, uint64_t cols)
{
    return (size_t)(sl_norm_dw_partials(rows, cols) * cols * sizeof(float));
}

static size_t workspace(sl_dtype dt, const sl_shape *s)
{
    (void)dt;
    return sl_norm_dw_workspace(s->rows, s->cols);
}

static sl_traffic useful(const sl_shape *s, sl_dtype dt)
{
    const double es = (double)sl_dtype_size(dt), m = (double)s->rows * (double)s->cols * es;
    sl_traffic t = {2.0 * m + (double)s->cols * es + 4.0 * (double)s->rows, m + (double)s->cols * es, 4, 2};
    return t;
}

/* The column pass re-reads x and dy; its partials are ceil(rows / 256). */
static sl_traffic moved_cols(const sl_shape *s, sl_dtype dt)
{
    sl_traffic t = useful(s, dt);
    const double p = (double)((s->rows + SL_NORM_DW_ROWS - 1) / SL_NORM_DW_ROWS) * (double)s->cols * 4.0;
    t.rd_bytes += 2.0 * (double)s->rows * (double)s->cols * (double)sl_dtype_size(dt) + p;
    t.wr_bytes += p;
    return t;
}

/* regs: about two partial rows per SM (132 on the H200). */
static sl_traffic moved_regs(const sl_shape *s, sl_dtype dt)
{
    sl_traffic t = useful(s, dt);
    const double p = 264.0 * (double)s->cols * 4.0;
    t.rd_bytes += p;
    t.wr_bytes += p;
    return t;
}

#define RMSB_SRC "issue 32"
static const sl_variant variants[] = {
    {.name = "copy", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_CEILING, .copy = true,
     .technique = "copy kernel of x into dx (16-byte vectors, copy's vec rung): the copy ceiling",
     .source = "issue 32; DESIGN.md (the ceiling is a kernel, not cudaMemcpy)", .launch = SL_CUDA_FN(sl_cuda_norm_copy),
     .loads_in_flight = 1, .access_bytes = 16, .elems_per_thread = 4, .insts_per_elem = 2},
    {.name = "naive", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "dw: a thread per column, 256 rows a partial, fp64 finish; dx: a thread per row, two passes",
     .source = RMSB_SRC, .launch = SL_CUDA_FN(sl_cuda_rmsnorm_bwd_naive), .workspace_shape = workspace,
     .moved = moved_cols, .loads_in_flight = 1, .access_bytes = 4, .elems_per_thread = 1, .insts_per_elem = 16},
    {.name = "block", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "dw: the column pass; dx: a block per row, coalesced scalar loads, shuffle + smem reduction",
     .source = RMSB_SRC, .launch = SL_CUDA_FN(sl_cuda_rmsnorm_bwd_block), .workspace_shape = workspace,
     .moved = moved_cols, .loads_in_flight = 1, .access_bytes = 4, .elems_per_thread = 1, .insts_per_elem = 14},
    {.name = "regs", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "persistent teams (warp / block / cluster per row), x and dy in registers read once, dw partials "
                  "in registers, one partial row per block, fp64 finish",
     .source = RMSB_SRC, .launch = SL_CUDA_FN(sl_cuda_rmsnorm_bwd_regs), .workspace_shape = workspace,
     .moved = moved_regs, .static_partition = true, .loads_in_flight = 8, .access_bytes = 16, .elems_per_thread = 32,
     .insts_per_elem = 6},
    {.name = "regs_pf", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "regs with the next row's x and dy loaded before this row's reduction, dw partials in shared "
                  "memory, 4 vectors a thread (blocks of 64-256, clusters of 2-8)",
     .source = RMSB_SRC, .launch = SL_CUDA_FN(sl_cuda_rmsnorm_bwd_regs_pf), .workspace_shape = workspace,
     .moved = moved_regs, .static_partition = true, .loads_in_flight = 8, .access_bytes = 16, .elems_per_thread = 32,
     .smem_bytes_per_elem = 8, .insts_per_elem = 7},
    {.name = "regs_sm", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "regs with the dw partials in shared memory (float4 slots), no prefetch: ~64 registers, 4 blocks "
                  "of 256 a SM, twice regs's rows in flight (block and cluster teams; warp teams as regs)",
     .source = RMSB_SRC, .launch = SL_CUDA_FN(sl_cuda_rmsnorm_bwd_regs_sm), .workspace_shape = workspace,
     .moved = moved_regs, .static_partition = true, .loads_in_flight = 8, .access_bytes = 16, .elems_per_thread = 32,
     .smem_bytes_per_elem = 8, .insts_per_elem = 6},
    {.name = "aligned", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "the public function's form at each row length (regs_pf, regs or regs_sm) for aligned launches: "
                  "whole 16-byte vectors of x, dy, dx and w without the edge masks (issue 32, seventh session)",
     .source = RMSB_SRC, .launch = SL_CUDA_FN(sl_cuda_rmsnorm_bwd_aligned), .workspace_shape = workspace,
     .moved = moved_regs, .static_partition = true, .loads_in_flight = 8, .access_bytes = 16, .elems_per_thread = 32,
     .smem_bytes_per_elem = 8, .insts_per_elem = 4},
    {.name = "aligned_pf", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "aligned with regs_pf at every row of <= 256 vectors: the next row's x and dy in flight during "
                  "this row's sums, partials in shared memory; pair teams (two warps a row, 4 rows a block of 256, "
                  "4 vectors a thread) at 129-256 vectors; aligned launches (issue 32, ninth session)",
     .source = RMSB_SRC, .launch = SL_CUDA_FN(sl_cuda_rmsnorm_bwd_aligned_pf), .workspace_shape = workspace,
     .moved = moved_regs, .static_partition = true, .loads_in_flight = 8, .access_bytes = 16, .elems_per_thread = 32,
     .smem_bytes_per_elem = 8, .insts_per_elem = 4},
    {.name = "aligned_sm", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "aligned with pair teams at 129-256 vectors in regs_sm's form: two warps a row, 4 rows a block of "
                  "256, 4 vectors a thread, no prefetch, partials in shared memory, 3-4 blocks a SM; aligned's form "
                  "elsewhere; aligned launches (issue 32, ninth session)",
     .source = RMSB_SRC, .launch = SL_CUDA_FN(sl_cuda_rmsnorm_bwd_aligned_sm), .workspace_shape = workspace,
     .moved = moved_regs, .static_partition = true, .loads_in_flight = 8, .access_bytes = 16, .elems_per_thread = 32,
     .smem_bytes_per_elem = 8, .insts_per_elem = 4},
    {.name = "aligned_pf3", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "aligned_pf with the launch bound at 3 blocks of 256 a SM (<= 80 registers, some "
                  "spills) where a thread holds 4 vectors of two rows: warp teams at 65-128 vectors, pair teams "
                  "at 129-256; 96 KiB of the next rows in flight a SM; aligned launches (issue 32, tenth "
                  "session)",
     .source = RMSB_SRC, .launch = SL_CUDA_FN(sl_cuda_rmsnorm_bwd_aligned_pf3), .workspace_shape = workspace,
     .moved = moved_regs, .static_partition = true, .loads_in_flight = 8, .access_bytes = 16, .elems_per_thread = 32,
     .smem_bytes_per_elem = 8, .insts_per_elem = 4},
    {.name = "aligned_pfx", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "aligned_pf with x, dy and w widened to f32 in one instruction an element (a shift or a mask for "
                  "bf16, not two for a pair's high half): warp teams at 65-128 vectors, pair teams at 129-256; the "
                  "same values; aligned launches (issue 32, tenth session)",
     .source = RMSB_SRC, .launch = SL_CUDA_FN(sl_cuda_rmsnorm_bwd_aligned_pfx), .workspace_shape = workspace,
     .moved = moved_regs, .static_partition = true, .loads_in_flight = 8, .access_bytes = 16, .elems_per_thread = 32,
     .smem_bytes_per_elem = 8, .insts_per_elem = 4},
    {.name = "aligned_pf3x", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "aligned_pf3 (3 blocks of 256 a SM) with aligned_pfx's one-instruction widening of x, dy and w: "
                  "warp teams at 65-128 vectors, pair teams at 129-256; aligned launches (issue 32, tenth session)",
     .source = RMSB_SRC, .launch = SL_CUDA_FN(sl_cuda_rmsnorm_bwd_aligned_pf3x), .workspace_shape = workspace,
     .moved = moved_regs, .static_partition = true, .loads_in_flight = 8, .access_bytes = 16, .elems_per_thread = 32,
     .smem_bytes_per_elem = 8, .insts_per_elem = 4},
    {.name = "bulk", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "the row in shared memory: x and dy chunks staged by cp.async.bulk two rows ahead (2 stages), "
                  "clusters of 1-8 blocks of 512 a row, persistent, sums through DSMEM, dx from shared memory, dw in "
                  "registers per column chunk (aligned launches, sm_90; issue 32, seventh session)",
     .source = RMSB_SRC, .launch = SL_CUDA_FN(sl_cuda_rmsnorm_bwd_bulk), .workspace_shape = workspace,
     .moved = moved_regs, .static_partition = true, .loads_in_flight = 8, .access_bytes = 16,
     .elems_per_thread = 16, .smem_bytes_per_elem = 16, .insts_per_elem = 4},
    {.name = "bulk_ex", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "bulk with fewer instructions and waits a row: the sum one-sided (every warp st.async into every "
                  "cluster CTA's slots, one mbarrier wait, no block barrier between the passes), rstd copied to "
                  "shared memory (cp.async) a row ahead, w widened to f32 once in shared memory (aligned launches, "
                  "sm_90; issue 32, eleventh session)",
     .source = RMSB_SRC, .launch = SL_CUDA_FN(sl_cuda_rmsnorm_bwd_bulk_ex), .workspace_shape = workspace,
     .moved = moved_regs, .static_partition = true, .loads_in_flight = 8, .access_bytes = 16,
     .elems_per_thread = 16, .smem_bytes_per_elem = 16, .insts_per_elem = 3.5f},
    {.name = "bulk_exw", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "bulk_ex with w widened to f32 once into registers (16 a thread, its columns the same every row), "
                  "not in shared memory: only x and dy read from shared memory in the rows; the one-sided sum and "
                  "rstd a row ahead kept (aligned launches, sm_90; issue 32, thirteenth session)",
     .source = RMSB_SRC, .launch = SL_CUDA_FN(sl_cuda_rmsnorm_bwd_bulk_exw), .workspace_shape = workspace,
     .moved = moved_regs, .static_partition = true, .loads_in_flight = 8, .access_bytes = 16,
     .elems_per_thread = 16, .smem_bytes_per_elem = 16, .insts_per_elem = 3.4f},
    {.name = "bulk_exw3", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "bulk_exw with three row stages of x and dy a block (a stage refilled three rows ahead, two rows in "
                  "flight while the block works on a third), w's chunk landing in the third stage before it goes to "
                  "registers; bulk_exw's two stages for f32 rows past 32768 columns (aligned launches, sm_90; issue "
                  "32, fifteenth session)",
     .source = RMSB_SRC, .launch = SL_CUDA_FN(sl_cuda_rmsnorm_bwd_bulk_exw3), .workspace_shape = workspace,
     .moved = moved_regs, .static_partition = true, .loads_in_flight = 8, .access_bytes = 16,
     .elems_per_thread = 16, .smem_bytes_per_elem = 16, .insts_per_elem = 3.4f},
    {.name = "bulk_pipe", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "bulk_exw3 with row k + 1's first pass (dw terms, its sums sent to the cluster) before row k's wait "
                  "for the cluster's sums: the exchange's wait one first pass later, four slot sets (aligned "
                  "launches, sm_90; issue 32, sixteenth session)",
     .source = RMSB_SRC, .launch = SL_CUDA_FN(sl_cuda_rmsnorm_bwd_bulk_pipe), .workspace_shape = workspace,
     .moved = moved_regs, .static_partition = true, .loads_in_flight = 8, .access_bytes = 16,
     .elems_per_thread = 16, .smem_bytes_per_elem = 16, .insts_per_elem = 3.4f},
    {.name = "bulk_q", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "bulk_exw3 in blocks of 256 threads, four an SM, chunks of up to 512 vectors of x and dy (a row "
                  "in up to 8 CTAs of a cluster): twice the blocks an SM, each in its own phase of a row (aligned "
                  "launches, sm_90, 16-bit rows up to 32768 columns; issue 32, eighteenth session)",
     .source = RMSB_SRC, .launch = SL_CUDA_FN(sl_cuda_rmsnorm_bwd_bulk_q), .workspace_shape = workspace,
     .moved = moved_regs, .static_partition = true, .loads_in_flight = 8, .access_bytes = 16,
     .elems_per_thread = 16, .smem_bytes_per_elem = 16, .insts_per_elem = 3.4f},
    {.name = "regs_cl", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "the row in registers between its two passes, no shared-memory staging: a cluster of 1-8 blocks "
                  "of 256 a row (two 16-byte vectors of x and dy a thread), persistent clusters walking rows with "
                  "the next three rows' loads in flight in a register ring, the sum one-sided through DSMEM, w "
                  "widened once, dw in registers (layernorm_bwd's regs_cl, common/norm_bwd_rcl.cuh; aligned "
                  "launches, sm_90, bf16 / f16 rows up to 32768 columns with w in their dtype; issue 32, "
                  "twenty-first session; measured, not picked: h200-norm-bwd-rcl-2026-11-29)",
     .source = RMSB_SRC, .launch = SL_CUDA_FN(sl_cuda_rmsnorm_bwd_regs_cl), .workspace_shape = workspace,
     .moved = moved_regs, .static_partition = true, .loads_in_flight = 8, .access_bytes = 16,
     .elems_per_thread = 16, .insts_per_elem = 3.0f},
    {.name = "sl_rmsnorm_bwd", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_API,
     .technique = "public sl_rmsnorm_bwd(): 16-bit aligned rows of 2048 columns at >= 16384 rows, and of 16385-32768 "
                  "columns, w in their dtype, bulk_q; aligned rows of 32 KiB and more bulk (sm_90); 16-bit aligned rows of "
                  "129-256 vectors at >= 1024 rows aligned_pfx (pair teams); else by row length in 16-byte vectors, "
                  "regs_pf (16-bit, >= 1024 rows: <= 128, 1025-2048), regs (129-256, 513-1024) or regs_sm (257-512, "
                  "> 1024), in aligned's form for aligned launches, where x, dy, dx share one offset for every row "
                  "and the row fits; else block",
     .source = RMSB_SRC, .launch = SL_CUDA_FN(sl_cuda_rmsnorm_bwd_api), .workspace_shape = workspace,
     .moved = moved_regs, .static_partition = true, .loads_in_flight = 8, .access_bytes = 16, .elems_per_thread = 32,
     .insts_per_elem = 6},
    SL_EW_CEILING_CPU,
    {.name = "serial", .backend = SL_BACKEND_CPU, .kind = SL_KIND_RUNG,
     .technique = "one thread: dw by columns (fp64 sums), then dx row by row", .source = RMSB_SRC,
     .launch = cpu_serial, .elems_per_thread = 1},
    {.name = "omp", .backend = SL_BACKEND_CPU, .kind = SL_KIND_RUNG,
     .technique = "OpenMP: dw's columns, then dx's rows, over the threads", .source = RMSB_SRC, .launch = cpu_omp,
     .elems_per_thread = 1},
    {.name = "sl_rmsnorm_bwd", .backend = SL_BACKEND_CPU, .kind = SL_KIND_API,
     .technique = "the public function on a CPU context: the omp rung", .source = RMSB_SRC, .launch = cpu_omp,
     .elems_per_thread = 1},
};

const sl_op_desc sl_op_rmsnorm_bwd = {
    .id = SL_OP_RMSNORM_BWD,
    .name = "rmsnorm_bwd",
    .formula = "dx[r,j] = rstd[r] w[j] dy[r,j] - x[r,j] rstd[r]^3 (sum_k w dy x)[r] / N, dw[j] = sum_r dy x rstd",
    .source = "issue 32 (the gradient of rmsnorm)",
    .numerics = "f32 (16-bit storage widened); dw from per-block partials added in fp64, in order (deterministic); "
                "within 16 x 2^-24 relative plus a bound relative to the terms (rmsnorm_bwd.c)",
    .rank = 2,
    .nbufs = 6,
    .bufs = {{"x", SL_ROLE_IN, false, false},
             {"dy", SL_ROLE_IN, false, false},
             {"w", SL_ROLE_IN, false, false},
             {"rstd", SL_ROLE_IN, false, SL_BUF_F32, -12}, /* [2^-20, 2^-4): 1 / rms(x) (op.h) */
             {"dx", SL_ROLE_OUT, false, false},
             {"dw", SL_ROLE_OUT, false, false}},
    .dtypes = SL_RMSNORM_DTYPES,
    .flops_per_elem = 8,
    .fma = false,
    .traffic = NULL,
    .tol = {SL_TOL_REL, RMSB_ULPS},
    .reference = reference,
    .variants = variants,
    .nvariants = (int)(sizeof variants / sizeof variants[0]),
    .default_shapes = "4096x1024,4096x4096,1024x16384,256x65536,64x4096",
    .buf_elems = buf_elems,
    .ref_whole = true,
};

sl_status sl_norm_ws_check(const char *fn, const void *workspace, size_t workspace_bytes, size_t need)
{
    if (!workspace && workspace_bytes)
        return sl_fail(SL_ERR_INVALID_ARG, "%s: workspace is NULL with %zu bytes", fn, workspace_bytes);
    if (workspace && workspace_bytes < need)
        return sl_fail(SL_ERR_INVALID_ARG, "%s: a workspace of %zu bytes; %zu needed (%s_workspace)", fn,
                       workspace_bytes, need, fn);
    return SL_OK;
}

size_t sl_rmsnorm_bwd_workspace(size_t rows, size_t cols)
{
    return sl_norm_dw_workspace(rows, cols);
}

sl_status sl_rmsnorm_bwd(sl_ctx *ctx, sl_dtype dtype, sl_dtype w_dtype, size_t rows, size_t cols, const void *x,
                         const void *dy, const void *w, const float *rstd, void *dx, void *dw, void *workspace,
                         size_t workspace_bytes, void *stream)
{
    if (w_dtype != dtype && w_dtype != SL_F32)
        return sl_fail(SL_ERR_UNSUPPORTED, "sl_rmsnorm_bwd: w_dtype %s: the weight is in x's dtype (%s) or f32",
                       sl_dtype_name(w_dtype), sl_dtype_name(dtype));
    if (dw && dw == w && cols)
        return sl_fail(SL_ERR_OVERLAP, "sl_rmsnorm_bwd: dw = w = %p: dw needs its own buffer", dw);
    sl_status st = sl_norm_ws_check("sl_rmsnorm_bwd", workspace, workspace_bytes, sl_norm_dw_workspace(rows, cols));
    if (st != SL_OK)
        return st;
    const sl_shape s = sl_shape_2d(rows, cols);
    void *const ptrs[] = {(void *)x, (void *)dy, (void *)w, (void *)rstd, dx, dw};
    const unsigned f = w_dtype == SL_F32 && dtype != SL_F32 ? (1u << SL_RMSB_W) | (1u << SL_RMSB_DW) : 0u;
    const sl_call_opts o = {.f32_bufs = f, .workspace = workspace, .workspace_bytes = workspace_bytes};
    return sl_op_call_opts(ctx, &sl_op_rmsnorm_bwd, dtype, &s, ptrs, NULL, &o, stream);
}
