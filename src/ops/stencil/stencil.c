/*
 * stencil.c - the 2-D star stencil op (seed 004, "2D Stencil Experiment"):
 * its descriptor, its CPU reference, its CPU rung, its traffic (useful and
 * per rung), its variant table and the public sl_stencil2d().
 * The operation, the summation order and the boundary rule: stencil.h.
 */
#include "stencil.h"

#include "internal.h"

#include <math.h>
#include <omp.h>
#include <stdio.h>

/* The host's coefficient table: the same compile-time values as the
 * device's __constant__ one (stencil.h). */
static const float coef[SL_STENCIL_MAX_RADIUS + 1] = {SL_STENCIL_COEF_LIST};

sl_status sl_stencil_check(const sl_args *x, const char *who, int *radius)
{
    const sl_shape *s = &x->shape;
    *radius = sl_stencil_radius(s);
    if (x->dtype != SL_F32 || x->out_dtype != SL_F32)
        return sl_fail(SL_ERR_UNSUPPORTED, "%s: only f32 is supported (got %s)", who, sl_dtype_name(x->dtype));
    if (*radius == 0)
        return sl_fail(SL_ERR_INVALID_ARG, "%s: radius %llu is outside %d..%d", who, (unsigned long long)s->k,
                       SL_STENCIL_MIN_RADIUS, SL_STENCIL_MAX_RADIUS);
    if (s->rows == 0 || s->cols == 0 || s->ld < s->cols || s->rows > (uint64_t)INT64_MAX / (s->ld ? s->ld : 1))
        return sl_fail(SL_ERR_INVALID_ARG, "%s: bad shape %llu x %llu (ld %llu)", who, (unsigned long long)s->rows,
                       (unsigned long long)s->cols, (unsigned long long)s->ld);
    if (x->buf[0] == x->buf[1])
        return sl_fail(SL_ERR_INVALID_ARG, "%s: in place (out == in) is not supported", who);
    return SL_OK;
}

/* ---- the reference ---------------------------------------------------------
 * Every point through one guarded accessor, in the documented order
 * (stencil.h). Called once for the whole grid (ref_whole): lo = 0, hi =
 * rows, in[0] and out[1] at row 0, both with the shape's ld. */
static float ref_at(const float *x, const sl_shape *s, int64_t r, int64_t c)
{
    if (r < 0 || c < 0 || (uint64_t)r >= s->rows || (uint64_t)c >= s->cols)
        return 0.0f;
    return x[(uint64_t)r * s->ld + (uint64_t)c];
}

static void reference(sl_ref_args *a)
{
    const sl_shape *s = &a->shape;
    const int R = sl_stencil_radius(s);
    const float *x = a->in[0];
    float *y = a->out[1];
    if (R == 0)
        return; /* the launchers refuse it; nothing to compare */
#pragma omp parallel for schedule(static)
    for (int64_t i = (int64_t)a->lo; i < (int64_t)a->hi; i++)
        for (int64_t j = 0; j < (int64_t)s->cols; j++) {
            float acc = coef[0] * ref_at(x, s, i, j);
            for (int k = 1; k <= R; k++) {
                const float t = ((ref_at(x, s, i, j - k) + ref_at(x, s, i, j + k)) + ref_at(x, s, i - k, j)) +
                                ref_at(x, s, i + k, j);
                acc = fmaf(coef[k], t, acc);
            }
            y[(uint64_t)i * s->ld + (uint64_t)j] = acc;
        }
}

/* ---- the CPU rungs ---------------------------------------------------------
 * serial, and omp (OpenMP over rows). A row at least R from the top and bottom runs its
 * interior columns [R, cols - R) through row pointers, with no guard (the
 * compiler vectorises the j loop); every other point goes through a
 * guarded load. Same order and rounding as the reference. */
static inline float cpu_guarded(const float *x, int64_t rows, int64_t cols, int64_t ld, int64_t r, int64_t c)
{
    return (r >= 0 && r < rows && c >= 0 && c < cols) ? x[r * ld + c] : 0.0f;
}

static void cpu_point_guarded(const float *x, float *y, int64_t rows, int64_t cols, int64_t ld, int R, int64_t i,
                              int64_t j)
{
    float acc = coef[0] * x[i * ld + j];
    for (int k = 1; k <= R; k++)
        acc = fmaf(coef[k],
                   ((cpu_guarded(x, rows, cols, ld, i, j - k) + cpu_guarded(x, rows, cols, ld, i, j + k)) +
                    cpu_guarded(x, rows, cols, ld, i - k, j)) +
                       cpu_guarded(x, rows, cols, ld, i + k, j),
                   acc);
    y[i * ld + j] = acc;
}

/* Rows [r0, r1) of the output. */
static void cpu_rows(const sl_args *a, int R, int64_t r0, int64_t r1)
{
    const float *x = a->buf[0];
    float *y = a->buf[1];
    const int64_t rows = (int64_t)a->shape.rows, cols = (int64_t)a->shape.cols, ld = (int64_t)a->shape.ld;
    for (int64_t i = r0; i < r1; i++) {
        const bool inner_row = i >= R && i + R < rows;
        const int64_t jlo = inner_row ? (R < cols ? R : cols) : cols;
        const int64_t jhi = inner_row && cols - R > jlo ? cols - R : jlo;
        for (int64_t j = 0; j < jlo; j++)
            cpu_point_guarded(x, y, rows, cols, ld, R, i, j);
        const float *xc = x + i * ld;
        float *yc = y + i * ld;
        for (int64_t j = jlo; j < jhi; j++) {
            float acc = coef[0] * xc[j];
            for (int k = 1; k <= R; k++)
                acc = fmaf(coef[k], ((xc[j - k] + xc[j + k]) + xc[j - k * ld]) + xc[j + k * ld], acc);
            yc[j] = acc;
        }
        for (int64_t j = jhi; j < cols; j++)
            cpu_point_guarded(x, y, rows, cols, ld, R, i, j);
    }
}

static sl_status cpu_stencil_serial(const sl_args *a)
{
    int R = 0;
    sl_status st = sl_stencil_check(a, "stencil serial", &R);
    if (st != SL_OK)
        return st;
    cpu_rows(a, R, 0, (int64_t)a->shape.rows);
    return SL_OK;
}

/* Static shares of rows per OpenMP thread. */
static sl_status cpu_stencil_omp(const sl_args *a)
{
    int R = 0;
    sl_status st = sl_stencil_check(a, "stencil omp", &R);
    if (st != SL_OK)
        return st;
    const int64_t rows = (int64_t)a->shape.rows;
#pragma omp parallel
    {
        const int64_t t = omp_get_thread_num(), nt = omp_get_num_threads();
        cpu_rows(a, R, rows * t / nt, rows * (t + 1) / nt);
    }
    return SL_OK;
}

/* ---- traffic ----------------------------------------------------------------
 * Useful (compulsory) traffic: the grid read once and written once, rows x
 * cols x 4 bytes each way (padding columns are not touched). */
static sl_traffic traffic(const sl_shape *s, sl_dtype in, sl_dtype out)
{
    (void)in;
    (void)out;
    const double b = (double)s->rows * (double)s->cols * 4.0;
    sl_traffic t = {b, b, 1, 1};
    return t;
}

/* 1 multiply, then per k three additions and one FMA: 1 + 5R flops. */
static double flops(const sl_shape *s)
{
    return (double)s->rows * (double)s->cols * (1.0 + 5.0 * sl_stencil_radius(s));
}

/* What each rung moves through DRAM, as modelled (docs/ladder.md,
 * "Stencil"). l1 and smem: the halo rows a block re-reads were read by the
 * block row above a few microseconds before (about four block rows are
 * resident at once) and hit in L2, so DRAM sees the compulsory bytes; the
 * extra L2-to-SM traffic of their tiles, (1 + 2R (1/BY + 1/BX)) times the
 * grid, is not DRAM traffic. regwin: a strip's 2R halo rows were read by
 * the neighbouring strips at the other end of their walk, long before or
 * after (the grid is one wave), and come from DRAM again: reads x (1 + 2R
 * (strips - 1) / rows). The strip height is chosen at launch from the
 * device's resident blocks (03_regwin.cu); this estimate takes 256 rows,
 * the height on the H200 at 8192 columns (249). Its halo columns are read
 * by the neighbouring block at the same time (L2). */
static sl_traffic moved_regwin(const sl_shape *s, sl_dtype dt)
{
    sl_traffic t = traffic(s, dt, dt);
    const double strip = 256.0, R = sl_stencil_radius(s);
    const double rows = (double)s->rows, strips = ceil(rows / strip);
    t.rd_bytes *= (rows + (strips - 1.0) * 2.0 * R) / rows;
    return t;
}

/* tma (cuda/06_tma.cu): each 32 x 128 tile loads a (32 + 2R) x 136 box
 * (its halo rows and one 16-byte chunk of halo columns a side) from L2;
 * the halo rows and columns were read from DRAM by the neighbouring tiles,
 * started a few microseconds before or after in the same band of tile
 * rows, so DRAM sees the compulsory bytes (moved_in_l2) and L2 serves
 * reads x (32 + 2R) x 136 / (32 x 128) (edges aside). */
static sl_traffic moved_tma(const sl_shape *s, sl_dtype dt)
{
    sl_traffic t = traffic(s, dt, dt);
    const double R = sl_stencil_radius(s);
    t.rd_bytes *= (32.0 + 2.0 * R) * 136.0 / (32.0 * 128.0);
    return t;
}

/* The CLI's check (exit 2): the radius, the shape's k, in 1..16. */
static bool shape_ok(const sl_shape *s, char *why, size_t len)
{
    if (sl_stencil_radius(s) != 0)
        return true;
    snprintf(why, len, "radius %llu (the shape's third extent, RxCxRADIUS) is outside %d..%d",
             (unsigned long long)s->k, SL_STENCIL_MIN_RADIUS, SL_STENCIL_MAX_RADIUS);
    return false;
}

/* ---- the rungs ------------------------------------------------------------ */

static const sl_variant variants[] = {
    SL_EW_CEILING_CUDA,
    {.name = "l1", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "one thread per point, 4R + 1 global loads each, reuse through L1 (32 x 8 blocks)",
     .source = "seed 004, 2D Stencil Experiment (without shared memory)", .launch = SL_CUDA_FN(sl_cuda_stencil_l1),
     .attrs = SL_CUDA_FN(sl_cuda_stencil_l1_attrs), .loads_in_flight = 1, .access_bytes = 4, .elems_per_thread = 1,
     .insts_per_elem = 40},
    {.name = "smem", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "shared-memory tile with R-wide halos (32 x 16 points), one barrier, 4R + 1 shared loads per point",
     .source = "seed 004, 2D Stencil Experiment (with shared memory)", .launch = SL_CUDA_FN(sl_cuda_stencil_smem),
     .attrs = SL_CUDA_FN(sl_cuda_stencil_smem_attrs), .loads_in_flight = 1, .access_bytes = 4,
     .elems_per_thread = 1, .smem_bytes_per_elem = 8 + 4 * 4 * 2, .insts_per_elem = 40},
    {.name = "regwin", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "register sliding window down one-wave-tall strips (2.5-D blocking), shared-memory row line for "
                  "the horizontal terms, D rows loaded ahead",
     .source = "ours; Micikevicius 2009 (2.5-D blocking), seed 004 (Little's law)",
     .launch = SL_CUDA_FN(sl_cuda_stencil_regwin), .attrs = SL_CUDA_FN(sl_cuda_stencil_regwin_attrs),
     .moved = moved_regwin, .loads_in_flight = 5, .access_bytes = 4, .elems_per_thread = 2,
     .smem_bytes_per_elem = 4 + 4 * 2 * 4, .insts_per_elem = 30},
    {.name = "regwin4", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "regwin with 16-byte rows: float4 register ring, LDG.128 / STS.128 / LDS.128 / STG.128 "
                  "(regwin where rows are not 16-byte aligned)",
     .source = "ours; Micikevicius 2009 (2.5-D blocking), seed 000 (vectorized access)",
     .launch = SL_CUDA_FN(sl_cuda_stencil_regwin4), .attrs = SL_CUDA_FN(sl_cuda_stencil_regwin4_attrs),
     .moved = moved_regwin, .loads_in_flight = 5, .access_bytes = 16, .elems_per_thread = 4,
     .smem_bytes_per_elem = 4 + 4 * 3, .insts_per_elem = 12},
    {.name = "regwin4_d8", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "regwin4 with 8 rows loaded ahead at R <= 4 (64 KiB in flight per SM; regwin4 above R = 4)",
     .source = "ours (issue 11, third pass); seed 004 (Little's law)",
     .launch = SL_CUDA_FN(sl_cuda_stencil_regwin4_d8), .attrs = SL_CUDA_FN(sl_cuda_stencil_regwin4_d8_attrs),
     .moved = moved_regwin, .loads_in_flight = 9, .access_bytes = 16, .elems_per_thread = 4,
     .smem_bytes_per_elem = 4 + 4 * 3, .insts_per_elem = 12},
    {.name = "regwin2", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "regwin4 at twice the warps: float2 register ring, 128-thread blocks, <= 64 registers (50% "
                  "occupancy), 4 rows ahead (8 at R <= 2), halo columns by cp.async into one line per ring slot "
                  "(regwin for rows not 8-byte aligned, regwin4 above R = 4)",
     .source = "ours (issue 26); Micikevicius 2009 (2.5-D blocking), seed 004 (Little's law)",
     .launch = SL_CUDA_FN(sl_cuda_stencil_regwin2), .attrs = SL_CUDA_FN(sl_cuda_stencil_regwin2_attrs),
     .moved = moved_regwin, .loads_in_flight = 5, .access_bytes = 8, .elems_per_thread = 2,
     .smem_bytes_per_elem = 4 + 4 * 2, .insts_per_elem = 18},
    {.name = "tma", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "one 32 x 128 tile a block, its (32 + 2R) x 136 input box (halos included) by one 2-D bulk tensor "
                  "copy (TMA; out-of-bounds zero fill is the boundary rule), a register window down 8 rows a warp "
                  "from shared memory, float4 stores, tiles in row order (sm_90, 16-byte rows, R <= 4)",
     .source = "ours (issue 26, item 4); seed 004 (Little's law)",
     .launch = SL_CUDA_FN(sl_cuda_stencil_tma), .attrs = SL_CUDA_FN(sl_cuda_stencil_tma_attrs),
     .moved = moved_tma, .moved_in_l2 = true, .async_reads = true, .loads_in_flight = 10, .access_bytes = 16,
     .elems_per_thread = 4, .smem_bytes_per_elem = 5 + 16, .insts_per_elem = 20},
    {.name = "sl_stencil2d", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_API,
     .technique = "public sl_stencil2d(): by radius, regwin2 at R = 3, 4, regwin4_d8 at R = 2, tma at R = 1 from 2^26 "
                  "points on sm_90, else regwin4 (each regwin for rows it cannot vectorize)",
     .source = "issues 11, 26",
     .launch = SL_CUDA_FN(sl_cuda_stencil_api), .moved = moved_regwin, .loads_in_flight = 5, .access_bytes = 16,
     .elems_per_thread = 4, .smem_bytes_per_elem = 4 + 4 * 3, .insts_per_elem = 12},
    SL_EW_CEILING_CPU,
    {.name = "serial", .backend = SL_BACKEND_CPU, .kind = SL_KIND_RUNG,
     .technique = "one thread, row by row, unguarded interior (vectorised), guarded edges", .source = "issue 11",
     .launch = cpu_stencil_serial, .elems_per_thread = 1},
    {.name = "omp", .backend = SL_BACKEND_CPU, .kind = SL_KIND_RUNG,
     .technique = "OpenMP over rows, unguarded interior (vectorised), guarded edges", .source = "issue 11",
     .launch = cpu_stencil_omp, .elems_per_thread = 1},
    {.name = "sl_stencil2d", .backend = SL_BACKEND_CPU, .kind = SL_KIND_API,
     .technique = "the public function on a CPU context: the omp rung", .source = "issue 11",
     .launch = cpu_stencil_omp, .elems_per_thread = 1},
};

const sl_op_desc sl_op_stencil = {
    .id = SL_OP_STENCIL,
    .name = "stencil",
    .api = "sl_stencil2d",
    .formula = "out = c0 x + sum_k c_k (W_k + E_k + N_k + S_k), radius R = shape's k (default 4)",
    .source = "seed 004: 2D Stencil Experiment (L1 vs shared memory)",
    .numerics = "fp32: c0 x, then per k = 1..R fmaf(c_k, ((W + E) + N) + S, acc); zero outside the grid; bit exact",
    .rank = 2,
    .nbufs = 2,
    .bufs = {{"in", SL_ROLE_IN, false}, {"out", SL_ROLE_OUT, false}},
    .dtypes = SL_STENCIL_DTYPES,
    .flops_per_elem = 1 + 5 * SL_STENCIL_DEFAULT_RADIUS,
    .flops = flops,
    .shape_ok = shape_ok,
    .third_side = "the radius (RxCxRADIUS)",
    .fma = true,
    .traffic = traffic,
    .tol = {SL_TOL_EXACT, 0},
    .reference = reference,
    .ref_whole = true,
    .no_inplace = true,
    .default_shapes = "8192x8192x4",
    .variants = variants,
    .nvariants = (int)(sizeof variants / sizeof variants[0]),
};

sl_status sl_stencil2d(sl_ctx *ctx, size_t rows, size_t cols, size_t ld, int radius, const float *in, float *out,
                       void *stream)
{
    /* the contract's order (streamlab.h, "Errors"): ctx, then the shape and
     * the radius, then the pointers (sl_op_call_shape) */
    if (!ctx)
        return sl_fail(SL_ERR_INVALID_ARG, "sl_stencil2d: ctx is NULL");
    if (radius < SL_STENCIL_MIN_RADIUS || radius > SL_STENCIL_MAX_RADIUS)
        return sl_fail(SL_ERR_INVALID_ARG, "sl_stencil2d: radius %d is outside %d..%d", radius, SL_STENCIL_MIN_RADIUS,
                       SL_STENCIL_MAX_RADIUS);
    if (rows == 0 || cols == 0 || ld < cols)
        return sl_fail(SL_ERR_INVALID_ARG, "sl_stencil2d: bad shape %zu x %zu (ld %zu): rows, cols >= 1, ld >= cols",
                       rows, cols, ld);
    const sl_shape s = {.rows = rows, .cols = cols, .ld = ld, .k = (uint64_t)radius};
    void *const ptrs[] = {(void *)in, out};
    return sl_op_call_shape(ctx, &sl_op_stencil, SL_F32, &s, ptrs, NULL, stream);
}
