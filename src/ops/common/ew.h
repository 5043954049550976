/*
 * ew.h - what the elementwise ops (add, axpy, copy, scale, triad, nstream)
 * share on the host side: dtype masks, launcher declarations, binding a
 * launch's buffers to inputs and output, the CPU rungs and the pieces of
 * their descriptors that are the same for all of them. C11, also included
 * from CUDA C.
 */
#ifndef SL_EW_H
#define SL_EW_H

#include "dtype_conv.h"
#include "internal.h"
#include "op.h"

#ifdef __cplusplus
extern "C" {
#endif

/* dtype masks */
#define SL_DT(D) (1u << SL_##D)
#define SL_DT_FLOAT (SL_DT(F32) | SL_DT(F64) | SL_DT(F16) | SL_DT(BF16))
#define SL_DT_ALL (SL_DT_FLOAT | SL_DT(FP8_E4M3) | SL_DT(FP8_E5M2))

/* A launcher and its resources function (sl_variant.launch / .attrs). */
#define SL_DECLARE_LAUNCHER(NAME)          \
    sl_status NAME(const sl_args *x);      \
    sl_status NAME##_attrs(sl_dtype dt, sl_kernel_attrs *out);

/* The inputs of an elementwise launch are the op's IN and INOUT buffers in
 * descriptor order, its output the one written buffer (which may be one of
 * the inputs: axpy's y, nstream's a). Fills in[0..nin) and *out. */
void sl_ew_bind(const sl_args *x, const void **in, int nin, void **out);

/* The inputs' count for an op (IN + INOUT buffers). */
int sl_ew_nin(const sl_op_desc *op);

/* ---- the CPU rungs and the reference ------------------------------------------
 * An elementwise op writes its formula twice, as two independent pieces of
 * code: once for the reference (a plain function per element, called from
 * sl_ew_reference) and once for its CPU rungs (inline in
 * SL_CPU_EW_RUNGS, where the compiler can vectorise it). The GPU rungs are
 * a third writing (the functor in <op>.cuh). Each is checked against the
 * reference, and the reference against hand-worked values in the tests. */

/* An op's reference element function, in fp32 (f32, f16, bf16, fp8: the
 * scalars rounded to float) and in fp64 (f64). x: the NIN inputs. */
typedef struct sl_ew_ref_fn {
    float (*f32)(const float *x, const float *s);
    double (*f64)(const double *x, const double *s);
} sl_ew_ref_fn;

/* The reference over one chunk: each element's inputs widened exactly
 * (sl_dtype_load, sl_dtype_load_f64), fn applied, the result narrowed with
 * round-to-nearest-even into out_dtype (saturating for fp8). One element
 * at a time, in order. nscalars: the op's descriptor's count; a->scalar is
 * read at [0, nscalars) only (sl_ref_args), the rest of fn's s[] is 0. */
void sl_ew_reference(sl_ref_args *a, int nin, int nscalars, const sl_ew_ref_fn *fn);

/* This OpenMP thread's share [lo, hi) of n elements of es bytes, split in
 * 64-byte granules in thread order (what schedule(static) and the backend's
 * first touch use). Call inside a parallel region. */
void sl_cpu_share_elems(size_t n, size_t es, size_t *lo, size_t *hi);

/* The CPU rungs of a row op: row(a, r) for every row r of a->shape, in
 * order (parallel = false) or split across OpenMP threads by
 * schedule(static) (parallel = true). */
typedef void sl_cpu_row_fn(const sl_args *a, uint64_t r);
void sl_cpu_rows(const sl_args *a, sl_cpu_row_fn *row, bool parallel);

/* Define PREFIX##_serial and PREFIX##_omp (sl_launch_fn), the CPU rungs of
 * an elementwise op with NIN inputs: out = EF32 in fp32 and out = EF64 in
 * fp64, expressions in x[0..NIN) and s[0..) (the scalars; float in EF32).
 * f32 and f64 run typed loops the compiler vectorises (no restrict: the
 * output may alias an input exactly, and each element is read before it is
 * written by the same iteration); 16- and 8-bit types widen and narrow per
 * element through dtype_conv. */
#define SL_CPU_EW_RUNGS(PREFIX, NIN, EF32, EF64)                                                    \
    static void PREFIX##_range(const sl_args *a_, size_t lo_, size_t hi_)                             \
    {                                                                                                \
        const void *in_[SL_MAX_BUFS];                                                                \
        void *out_ = NULL;                                                                           \
        sl_ew_bind(a_, in_, NIN, &out_);                                                             \
        if (a_->dtype == SL_F64) {                                                                   \
            const double *s = a_->scalar;                                                            \
            double *o_ = out_;                                                                       \
            (void)s;                                                                                 \
            _Pragma("omp simd") for (size_t i_ = lo_; i_ < hi_; i_++)                                \
            {                                                                                        \
                double x[NIN];                                                                       \
                for (int j_ = 0; j_ < NIN; j_++)                                                     \
                    x[j_] = ((const double *)in_[j_])[i_];                                           \
                o_[i_] = (EF64);                                                                     \
            }                                                                                        \
            return;                                                                                  \
        }                                                                                            \
        float s[SL_MAX_SCALARS];                                                                     \
        for (int k_ = 0; k_ < SL_MAX_SCALARS; k_++)                                                  \
            s[k_] = (float)a_->scalar[k_];                                                           \
        (void)s;                                                                                     \
        if (a_->dtype == SL_F32 && a_->out_dtype == SL_F32) {                                        \
            float *o_ = out_;                                                                        \
            _Pragma("omp simd") for (size_t i_ = lo_; i_ < hi_; i_++)                                \
            {                                                                                        \
                float x[NIN];                                                                        \
                for (int j_ = 0; j_ < NIN; j_++)                                                     \
                    x[j_] = ((const float *)in_[j_])[i_];                                            \
                o_[i_] = (EF32);                                                                     \
            }                                                                                        \
            return;                                                                                  \
        }                                                                                            \
        for (size_t i_ = lo_; i_ < hi_; i_++) {                                                      \
            float x[NIN];                                                                            \
            for (int j_ = 0; j_ < NIN; j_++)                                                         \
                x[j_] = sl_dtype_load(a_->dtype, in_[j_], i_);                                       \
            sl_dtype_store(a_->out_dtype, out_, i_, (EF32));                                         \
        }                                                                                            \
    }                                                                                                \
    static sl_status PREFIX##_serial(const sl_args *a_)                                              \
    {                                                                                                \
        PREFIX##_range(a_, 0, a_->n);                                                                \
        return SL_OK;                                                                                \
    }                                                                                                \
    static sl_status PREFIX##_omp(const sl_args *a_)                                                 \
    {                                                                                                \
        _Pragma("omp parallel")                                                                      \
        {                                                                                            \
            size_t lo_, hi_;                                                                         \
            sl_cpu_share_elems(a_->n, sl_dtype_size(a_->dtype), &lo_, &hi_);                         \
            PREFIX##_range(a_, lo_, hi_);                                                            \
        }                                                                                            \
        return SL_OK;                                                                                \
    }

/* The CPU rows every elementwise op lists (serial and omp), given the
 * rungs SL_CPU_EW_RUNGS defined; the api row runs omp. */
#define SL_EW_CPU_RUNGS(PREFIX, API_NAME)                                                           \
    {.name = "serial", .backend = SL_BACKEND_CPU, .kind = SL_KIND_RUNG,                             \
     .technique = "one thread, in order (the CPU side of seed 002's CPU vs GPU comparison)",        \
     .source = "seed 002 (CPU vs GPU vector add)", .launch = PREFIX##_serial, .elems_per_thread = 1}, \
    {.name = "omp", .backend = SL_BACKEND_CPU, .kind = SL_KIND_RUNG,                                \
     .technique = "OpenMP parallel for simd, static schedule, first-touch pages", .source = "issue 2", \
     .launch = PREFIX##_omp, .elems_per_thread = 1},                                                \
    {.name = API_NAME, .backend = SL_BACKEND_CPU, .kind = SL_KIND_API,                              \
     .technique = "the public function on a CPU context: the omp rung", .source = "issue 10",       \
     .launch = PREFIX##_omp, .elems_per_thread = 1}

/* The copy ceilings: each OpenMP thread memcpy()s its share of the op's
 * first input into its output (ew_cpu.c); cudaMemcpyAsync device to device
 * (ew_cuda.cu). */
sl_status sl_cpu_ceiling_copy(const sl_args *x);
sl_status sl_cuda_ceiling_copy(const sl_args *x);
/* The public functions' CUDA dispatch: one table for every elementwise op
 * (ew_cuda.cu, documented there): `small` when the launch's traffic fits
 * in half the L2, `l2` when it fits in L2, `bulk` on sm_90+, `vec`
 * otherwise; NULL skips a row. sl_ew_cuda_dispatch(x, bulk, vec) is the
 * table {vec, NULL, bulk, vec}. */
typedef struct sl_ew_api_rungs {
    sl_launch_fn small, l2, bulk, vec;
} sl_ew_api_rungs;
sl_status sl_ew_cuda_dispatch_table(const sl_args *x, const sl_ew_api_rungs *r);
sl_status sl_ew_cuda_dispatch(const sl_args *x, sl_launch_fn bulk, sl_launch_fn vec);

/* Variant rows every elementwise op lists: the copy ceiling per backend. */
#define SL_EW_CEILING_CUDA                                                                                    \
    {.name = "copy", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_CEILING, .copy = true,                     \
     .technique = "cudaMemcpyAsync device to device: the copy ceiling",                                      \
     .source = "issue 2; DESIGN.md peer table", .launch = SL_CUDA_FN(sl_cuda_ceiling_copy), .elems_per_thread = 4}
#define SL_EW_CEILING_CPU                                                                                    \
    {.name = "copy", .backend = SL_BACKEND_CPU, .kind = SL_KIND_CEILING, .copy = true,                      \
     .technique = "memcpy per OpenMP thread: the copy ceiling", .source = "issue 2",                        \
     .launch = sl_cpu_ceiling_copy, .elems_per_thread = 1}

/* The CUDA rows exist in every build, so that `streamlab explain` can model
 * them from a hardware description on a machine without CUDA; a build
 * without CUDA has no kernels behind them. */
#ifdef SL_HAVE_CUDA
#define SL_CUDA_FN(f) f
#else
#define SL_CUDA_FN(f) NULL
#endif

#ifdef __cplusplus
}
#endif

#endif /* SL_EW_H */
