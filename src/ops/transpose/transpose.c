/*
 * transpose.c - the transpose op, out = in^T (seed 004's shared-memory case
 * study): its descriptor, its reference, its CPU rungs, its variant table
 * and the public sl_transpose().
 *
 * Layout: in (buffer 0) is rows x cols, row-major with row stride ld; out
 * (buffer 1) is cols x rows, row-major and dense (row stride rows).
 */
#include "transpose.h"

#include <omp.h>
#include <string.h>

/* ---- the reference -------------------------------------------------------
 * One element at a time, byte copies in row order of the input; written
 * independently of every rung (no tiling, no typed loads). The harness
 * hands it the whole matrix (ref_whole): lo = 0, hi = rows. */
static void reference(sl_ref_args *a)
{
    const size_t es = sl_dtype_size(a->dtype);
    const uint64_t rows = a->shape.rows, cols = a->shape.cols, ld = a->shape.ld;
    const unsigned char *in = a->in[0];
    unsigned char *out = a->out[1];
    for (uint64_t i = a->lo; i < a->hi; i++)
        for (uint64_t j = 0; j < cols; j++)
            memcpy(out + (size_t)(j * rows + i) * es, in + (size_t)((i - a->lo) * ld + j) * es, es);
}

/* ---- the CPU rungs ---------------------------------------------------------
 * Typed copies by element size. serial: the naive loop nest (reads along
 * rows, writes down columns). omp: 32 x 32 cache blocks, each OpenMP
 * thread taking whole block rows of out (block columns of in), so no two
 * threads write one cache line. */
#define TP_CPU_LOOPS(T)                                                                                      \
    static void serial_##T(const T *in, T *out, uint64_t rows, uint64_t cols, uint64_t ld)                   \
    {                                                                                                        \
        for (uint64_t i = 0; i < rows; i++)                                                                  \
            for (uint64_t j = 0; j < cols; j++)                                                              \
                out[j * rows + i] = in[i * ld + j];                                                          \
    }                                                                                                        \
    static void blocked_##T(const T *in, T *out, uint64_t rows, uint64_t cols, uint64_t ld)                  \
    {                                                                                                        \
        const int64_t nbj = (int64_t)((cols + 31) / 32);                                                     \
        _Pragma("omp parallel for schedule(static)") for (int64_t bj = 0; bj < nbj; bj++)                    \
        {                                                                                                    \
            const uint64_t j0 = (uint64_t)bj * 32, j1 = j0 + 32 < cols ? j0 + 32 : cols;                     \
            for (uint64_t i0 = 0; i0 < rows; i0 += 32) {                                                     \
                const uint64_t i1 = i0 + 32 < rows ? i0 + 32 : rows;                                         \
                for (uint64_t j = j0; j < j1; j++)                                                           \
                    for (uint64_t i = i0; i < i1; i++)                                                       \
                        out[j * rows + i] = in[i * ld + j];                                                  \
            }                                                                                                \
        }                                                                                                    \
    }

TP_CPU_LOOPS(uint16_t)
TP_CPU_LOOPS(uint32_t)
TP_CPU_LOOPS(uint64_t)

static sl_status cpu_run(const sl_args *x, bool blocked)
{
    const uint64_t r = x->shape.rows, c = x->shape.cols, ld = x->shape.ld;
    switch (sl_dtype_size(x->dtype)) {
    case 2:
        (blocked ? blocked_uint16_t : serial_uint16_t)(x->buf[0], x->buf[1], r, c, ld);
        return SL_OK;
    case 4:
        (blocked ? blocked_uint32_t : serial_uint32_t)(x->buf[0], x->buf[1], r, c, ld);
        return SL_OK;
    case 8:
        (blocked ? blocked_uint64_t : serial_uint64_t)(x->buf[0], x->buf[1], r, c, ld);
        return SL_OK;
    default:
        return sl_fail(SL_ERR_UNSUPPORTED, "transpose: no CPU rung for %s", sl_dtype_name(x->dtype));
    }
}

static sl_status cpu_serial(const sl_args *x)
{
    return cpu_run(x, false);
}

static sl_status cpu_blocked(const sl_args *x)
{
    return cpu_run(x, true);
}

/* ---- traffic and buffers ---------------------------------------------------
 * Compulsory: every element read once and written once (the copy
 * ceiling moves the same 2 x rows x cols x size bytes). */
static sl_traffic traffic(const sl_shape *s, sl_dtype in, sl_dtype out)
{
    const double n = (double)s->rows * (double)s->cols;
    sl_traffic t = {n * (double)sl_dtype_size(in), n * (double)sl_dtype_size(out), 1, 1};
    return t;
}

/* in spans (rows - 1) x ld + cols elements; out is cols x rows, dense. */
static uint64_t buf_elems(const sl_shape *s, int k)
{
    return k == 0 ? sl_shape_span(s) : s->rows * s->cols;
}

/* ---- the rungs -------------------------------------------------------------- */

static const sl_variant variants[] = {
    SL_EW_CEILING_CUDA,
    {.name = "cublas", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_PEER,
     .technique = "cuBLAS cublasSgeam / cublasDgeam, C = 1 A^T + 0 B", .source = "issue 11; DESIGN.md peers",
     .launch = SL_CUDA_FN(sl_cuda_transpose_cublas), .dtypes = SL_TRANSPOSE_CUBLAS_DTYPES, .loads_in_flight = 1,
     .access_bytes = 4, .elems_per_thread = 4, .smem_bytes_per_elem = 8, .insts_per_elem = 8},
    {.name = "naive", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "32x8 blocks, 4 elements per thread: coalesced reads, strided writes",
     .source = "seed 004, \"Case Study: Matrix Transpose\" (its starting point)",
     .launch = SL_CUDA_FN(sl_cuda_transpose_naive), .attrs = SL_CUDA_FN(sl_cuda_transpose_naive_attrs),
     .loads_in_flight = 4, .access_bytes = 4, .elems_per_thread = 4, .insts_per_elem = 6},
    {.name = "tile32", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "32x32 shared-memory tile, both sides coalesced; 32-way bank conflict on the column read",
     .source = "seed 004, lines 709-740 (sm[32][32])", .launch = SL_CUDA_FN(sl_cuda_transpose_tile32),
     .attrs = SL_CUDA_FN(sl_cuda_transpose_tile32_attrs), .loads_in_flight = 4, .access_bytes = 4,
     .elems_per_thread = 4, .smem_bytes_per_elem = 8, .smem_conflict_ways = 32,
     .smem_conflict_bytes_per_elem = 4, .insts_per_elem = 7},
    {.name = "pad33", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "32x33 padded tile: a column spreads over the 32 banks", .source = "seed 004, lines 740-773 (sm[32][33], 1.3x)",
     .launch = SL_CUDA_FN(sl_cuda_transpose_pad33), .attrs = SL_CUDA_FN(sl_cuda_transpose_pad33_attrs),
     .loads_in_flight = 4, .access_bytes = 4, .elems_per_thread = 4, .smem_bytes_per_elem = 8, .smem_conflict_ways = 1,
     .insts_per_elem = 7},
    {.name = "swizzle", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "32x32 tile, column XOR row (no padding): rows and columns conflict-free",
     .source = "ours; the XOR swizzle of sm_90's tensor-map layouts", .launch = SL_CUDA_FN(sl_cuda_transpose_swizzle),
     .attrs = SL_CUDA_FN(sl_cuda_transpose_swizzle_attrs), .loads_in_flight = 4, .access_bytes = 4,
     .elems_per_thread = 4, .smem_bytes_per_elem = 8, .smem_conflict_ways = 1, .insts_per_elem = 8},
    {.name = "vec", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "64x64 tiles (32x32 in f64), 16-byte loads and stores, XOR-swizzled tile, row-order blocks",
     .source = "ours (issue 11 rung 5)", .launch = SL_CUDA_FN(sl_cuda_transpose_vec),
     .attrs = SL_CUDA_FN(sl_cuda_transpose_vec_attrs), .loads_in_flight = 4, .access_bytes = 16,
     .elems_per_thread = 16, .smem_bytes_per_elem = 8, .smem_conflict_ways = 1, .insts_per_elem = 3},
    {.name = "vec_band8", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "vec, tiles taken in bands of 8 tile rows (down the band first)",
     .source = "ours (issue 11 rung 5: the block-order sweep)", .launch = SL_CUDA_FN(sl_cuda_transpose_vec_band8),
     .attrs = SL_CUDA_FN(sl_cuda_transpose_vec_band8_attrs), .loads_in_flight = 4, .access_bytes = 16,
     .elems_per_thread = 16, .smem_bytes_per_elem = 8, .smem_conflict_ways = 1, .insts_per_elem = 3},
    {.name = "vec_band32", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "vec, tiles taken in bands of 32 tile rows: resident blocks cover a square",
     .source = "ours (issue 11 rung 5: the block-order sweep)", .launch = SL_CUDA_FN(sl_cuda_transpose_vec_band32),
     .attrs = SL_CUDA_FN(sl_cuda_transpose_vec_band32_attrs), .loads_in_flight = 4, .access_bytes = 16,
     .elems_per_thread = 16, .smem_bytes_per_elem = 8, .smem_conflict_ways = 1, .insts_per_elem = 3},
    {.name = "vec_wide", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "vec with 32x128 tiles (64x128 for 2-byte): 512-byte row reads, 128-byte row writes",
     .source = "ours (issue 11 rung 5: the tile-shape sweep)", .launch = SL_CUDA_FN(sl_cuda_transpose_vec_wide),
     .attrs = SL_CUDA_FN(sl_cuda_transpose_vec_wide_attrs), .loads_in_flight = 4, .access_bytes = 16,
     .elems_per_thread = 16, .smem_bytes_per_elem = 8, .smem_conflict_ways = 1, .insts_per_elem = 3},
    {.name = "vec_tall", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "vec with 128x32 tiles (128x64 for 2-byte): 128-byte row reads, 512-byte row writes",
     .source = "ours (issue 11 rung 5: the tile-shape sweep)", .launch = SL_CUDA_FN(sl_cuda_transpose_vec_tall),
     .attrs = SL_CUDA_FN(sl_cuda_transpose_vec_tall_attrs), .loads_in_flight = 4, .access_bytes = 16,
     .elems_per_thread = 16, .smem_bytes_per_elem = 8, .smem_conflict_ways = 1, .insts_per_elem = 3},
    {.name = "vec_big", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "vec with 128x64 tiles (128x128 for 2-byte, 32x32 for 8-byte): 8 16-byte loads in flight a thread, "
                  "512-byte row writes",
     .source = "ours (issue 11, third pass: more elements per thread)", .launch = SL_CUDA_FN(sl_cuda_transpose_vec_big),
     .attrs = SL_CUDA_FN(sl_cuda_transpose_vec_big_attrs), .loads_in_flight = 8, .access_bytes = 16,
     .elems_per_thread = 32, .smem_bytes_per_elem = 8, .smem_conflict_ways = 1, .insts_per_elem = 3},
    {.name = "tma", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "16 KiB tiles by 2-D TMA tensor copies (128-byte swizzle) both ways, gathered through shared memory "
                  "with 16-byte stores; row-order tiles; sm_90, ld x size and rows x size multiples of 16 bytes",
     .source = "ours (issue 26 item 3)", .launch = SL_CUDA_FN(sl_cuda_transpose_tma),
     .attrs = SL_CUDA_FN(sl_cuda_transpose_tma_attrs), .loads_in_flight = 1, .access_bytes = 16,
     .elems_per_thread = 32, .smem_bytes_per_elem = 8, .smem_conflict_ways = 1, .async_reads = true,
     .insts_per_elem = 2},
    {.name = "tma_col", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "tma with the tiles taken down whole tile columns: output rows written in sequence, input read in "
                  "256-byte pieces of every row",
     .source = "ours (issue 26 item 3: the traversal-order question)", .launch = SL_CUDA_FN(sl_cuda_transpose_tma_col),
     .attrs = SL_CUDA_FN(sl_cuda_transpose_tma_col_attrs), .loads_in_flight = 1, .access_bytes = 16,
     .elems_per_thread = 32, .smem_bytes_per_elem = 8, .smem_conflict_ways = 1, .async_reads = true,
     .insts_per_elem = 2},
    {.name = "tma_col2", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "tma_col with tiles twice as wide (f32 64 x 128, 32 KiB, 256 threads): input rows read in 512-byte "
                  "pieces",
     .source = "ours (issue 26 item 3: the strided read side in longer pieces)",
     .launch = SL_CUDA_FN(sl_cuda_transpose_tma_col2), .attrs = SL_CUDA_FN(sl_cuda_transpose_tma_col2_attrs),
     .loads_in_flight = 1, .access_bytes = 16, .elems_per_thread = 32, .smem_bytes_per_elem = 8,
     .smem_conflict_ways = 1, .async_reads = true, .insts_per_elem = 2},
    {.name = "sl_transpose", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_API,
     .technique = "public sl_transpose(): tma_col for 4-byte elements at 2^26 and more on sm_90, else vec for 2- and "
                  "4-byte elements where 16-byte accesses fit, else pad33",
     .source = "issues 11, 26",
     .launch = SL_CUDA_FN(sl_cuda_transpose_api), .loads_in_flight = 4, .access_bytes = 16, .elems_per_thread = 16,
     .smem_bytes_per_elem = 8, .smem_conflict_ways = 1, .insts_per_elem = 3},
    SL_EW_CEILING_CPU,
    {.name = "serial", .backend = SL_BACKEND_CPU, .kind = SL_KIND_RUNG,
     .technique = "one thread, row by row: sequential reads, strided writes", .source = "seed 004 (the naive loop)",
     .launch = cpu_serial, .elems_per_thread = 1},
    {.name = "omp", .backend = SL_BACKEND_CPU, .kind = SL_KIND_RUNG,
     .technique = "OpenMP over 32-column blocks, 32x32 cache blocks", .source = "issue 11",
     .launch = cpu_blocked, .elems_per_thread = 1},
    {.name = "sl_transpose", .backend = SL_BACKEND_CPU, .kind = SL_KIND_API,
     .technique = "the public function on a CPU context: the omp rung", .source = "issue 11",
     .launch = cpu_blocked, .elems_per_thread = 1},
};

const sl_op_desc sl_op_transpose = {
    .id = SL_OP_TRANSPOSE,
    .name = "transpose",
    .formula = "out[j, i] = in[i, j]",
    .source = "seed 004 (Volta optimisation slides), \"Case Study: Matrix Transpose\"",
    .numerics = "a bit-for-bit move (no arithmetic)",
    .rank = 2,
    .nbufs = 2,
    .bufs = {{"in", SL_ROLE_IN, false}, {"out", SL_ROLE_OUT, false}},
    .dtypes = SL_TRANSPOSE_DTYPES,
    .flops_per_elem = 0,
    .traffic = traffic,
    .buf_elems = buf_elems,
    .ref_whole = true,
    .no_inplace = true,
    /* 64 MiB a buffer in f32: past the H200's 60 MB L2, and quick enough on
     * the CPU for `run --op all` in CI; the benchmark passes
     * --shape 8192x8192,16384x16384 (bench/transpose_h200.sh). */
    .default_shapes = "4096x4096",
    .tol = {SL_TOL_EXACT, 0},
    .reference = reference,
    .variants = variants,
    .nvariants = (int)(sizeof variants / sizeof variants[0]),
};

sl_status sl_transpose(sl_ctx *ctx, sl_dtype dtype, size_t rows, size_t cols, const void *in, void *out, void *stream)
{
    const sl_shape s = {.rows = rows, .cols = cols, .ld = cols, .k = 0};
    void *const ptrs[] = {(void *)in, out};
    return sl_op_call_shape(ctx, &sl_op_transpose, dtype, &s, ptrs, NULL, stream);
}
