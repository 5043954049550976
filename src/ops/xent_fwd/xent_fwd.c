/*
 * xent_fwd.c - the forward-only cross-entropy op (issue 33): per row the
 * loss and the logsumexp of xent (src/ops/xent/xent.c, where the
 * reference, the CPU computation and sl_cross_entropy_fwd live), the
 * logits only read. Its descriptor: the same buffers as xent less the
 * gradient; its copy ceiling copies the logits into a workspace of their
 * size (no output of that size exists).
 */
#include "xent.h"

static void reference(sl_ref_args *r)
{
    sl_xent_reference(r, 0);
}

static sl_status cpu_serial(const sl_args *a)
{
    const sl_xent_args x = sl_xent_from(a, 0);
    return sl_cpu_xent_run(&x, 0);
}

static sl_status cpu_omp(const sl_args *a)
{
    const sl_xent_args x = sl_xent_from(a, 0);
    return sl_cpu_xent_run(&x, 1);
}

/* The logits and the targets read once; loss and lse written. */
static sl_traffic traffic(const sl_shape *s, sl_dtype in, sl_dtype out)
{
    (void)out;
    const double r = (double)s->rows;
    sl_traffic t = {r * (double)s->cols * (double)sl_dtype_size(in) + 4.0 * r, 8.0 * r, 2, 2};
    return t;
}

static size_t ceiling_ws(sl_dtype dt, uint64_t n)
{
    return (size_t)n * sl_dtype_size(dt);
}

static const sl_variant variants[] = {
    {.name = "copy_k", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_CEILING, .copy = true,
     .technique = "copy kernel: the logits into a workspace of their size, 16-byte accesses (the ceiling)",
     .source = "issue 33", .launch = SL_CUDA_FN(sl_cuda_ceiling_copy_kernel), .workspace = ceiling_ws,
     .loads_in_flight = 4, .access_bytes = 16, .elems_per_thread = 16, .insts_per_elem = 1},
    {.name = "online", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "block per row: online logsumexp (max, sum, sum x) in one read of 16-byte vectors, 4 in flight",
     .source = "issue 33; Milakov and Gimelshein 2018", .launch = SL_CUDA_FN(sl_cuda_xent_fwd_online),
     .attrs = SL_CUDA_FN(sl_cuda_xent_twopass_attrs), .loads_in_flight = 4, .access_bytes = 16,
     .elems_per_thread = 16, .insts_per_elem = 8},
    {.name = "sl_cross_entropy_fwd", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_API,
     .technique = "the public function's kernel: online", .source = "issue 33",
     .launch = SL_CUDA_FN(sl_cuda_xent_fwd_api), .loads_in_flight = 4, .access_bytes = 16, .elems_per_thread = 16,
     .insts_per_elem = 8},
    {.name = "copy", .backend = SL_BACKEND_CPU, .kind = SL_KIND_CEILING, .copy = true,
     .technique = "memcpy of the logits into a workspace of their size, a part per OpenMP thread: the copy ceiling",
     .source = "issue 33", .launch = sl_cpu_xent_ceiling, .workspace = ceiling_ws, .elems_per_thread = 1},
    {.name = "serial", .backend = SL_BACKEND_CPU, .kind = SL_KIND_RUNG,
     .technique = "one thread, row by row: f32 elements, fp64 row sums", .source = "issue 33", .launch = cpu_serial,
     .elems_per_thread = 1},
    {.name = "omp", .backend = SL_BACKEND_CPU, .kind = SL_KIND_RUNG,
     .technique = "OpenMP: rows over the threads, each as serial", .source = "issue 33", .launch = cpu_omp,
     .elems_per_thread = 1},
    {.name = "sl_cross_entropy_fwd", .backend = SL_BACKEND_CPU, .kind = SL_KIND_API,
     .technique = "the public function on a CPU context: the omp rung", .source = "issue 33", .launch = cpu_omp,
     .elems_per_thread = 1},
};

const sl_op_desc sl_op_xent_fwd = {
    .id = SL_OP_XENT_FWD,
    .name = "xent_fwd",
    .formula = "lse = logsumexp_j x; loss = lse - (1-eps) x[t] - eps mean_j x (0 where t = ignore_index)",
    .source = "issue 33: cross-entropy forward (read-only)",
    .numerics = "as xent: f32, max subtracted, exp by ex2.approx (CUDA), f32 sums, lse = m + log s; loss and lse "
                "f32 within xent's bounds (sl_xent_tol_buf)",
    .rank = 2,
    .nbufs = 4,
    .bufs = {{"x", SL_ROLE_IN, false, SL_BUF_DATA},
             {"t", SL_ROLE_IN, false, SL_BUF_INDEX},
             {"loss", SL_ROLE_OUT, false, SL_BUF_F32},
             {"lse", SL_ROLE_OUT, false, SL_BUF_F32}},
    .nscalars = 2,
    .scalars = {{"ignore_index", -100.0}, {"smoothing", 0.0}},
    .dtypes = SL_XENT_DTYPES,
    .flops_per_elem = 4,
    .traffic = traffic,
    .tol = {SL_TOL_REL, 16},
    .reference = reference,
    .variants = variants,
    .nvariants = (int)(sizeof variants / sizeof variants[0]),
    .default_shapes = "128x32000,128x50257,64x131072",
    .buf_elems = sl_xent_buf_elems,
    .ref_whole = true,
    .fill_index = sl_xent_fill_index,
    .tol_buf = sl_xent_tol_buf,
};
