/*
 * xent.h - cross-entropy over large vocabularies (issue 33): the fused
 * forward + backward op `xent` (this folder) and the forward-only op
 * `xent_fwd` (src/ops/xent_fwd/) share this header, their reference and
 * their kernels (cuda/). C11 and CUDA C.
 */
#ifndef SL_OP_XENT_H
#define SL_OP_XENT_H

#include "ew.h"

#ifdef __cplusplus
extern "C" {
#endif

/* f32, and bf16 / f16 logits computed in f32. */
#define SL_XENT_DTYPES (SL_DT(F32) | SL_DT(F16) | SL_DT(BF16))

/* The register rung (cuda/02_regs.cu) holds a row in the registers of a
 * cluster of at most 8 blocks of 1024 threads, 32 elements a thread for
 * bf16 / f16 (2^18 element slots: the row plus its misalignment), 16 for
 * f32 (2^17). */
#define SL_XENT_REGS_EPT 32
#define SL_XENT_MAX_THREADS (8 * 1024)

/* One cross-entropy launch, whatever its caller (a descriptor's launcher
 * or the public functions). Row r of the logits x (and of dx) starts at
 * r ld elements. Targets: int32 (tgt64 = 0) or int64. loss and lse: one
 * f32 per row. dx: NULL for the forward only; may equal x. gscale: NULL
 * (gradient scale 1) or one device / host f32 the gradient is multiplied
 * by (mean: 1 / the rows not ignored). bad: NULL, or one int32 set to 1
 * (never cleared) when a target is out of range. */
typedef struct sl_xent_args {
    sl_dtype dtype;
    int tgt64;
    uint64_t rows, cols, ld;
    const void *x;
    const void *tgt;
    float *loss, *lse;
    void *dx;
    long long ignore;
    float smoothing;
    const float *gscale;
    void *stream;
    /* The backward from a saved logsumexp (sl_cross_entropy_bwd): lse is
     * then read, not written, loss unused, and dy the incoming gradient:
     * dy[r] (dy_per_row) or dy[0] for every row, times *gscale when set;
     * NULL: 1. */
    const float *dy;
    int dy_per_row;
} sl_xent_args;

/* The descriptor's scalars, in order. */
enum { SL_XENT_S_IGNORE = 0, SL_XENT_S_SMOOTHING = 1 };

/* sl_args (the descriptors' buffer order x, t, loss, lse[, dx]) to
 * sl_xent_args: int32 targets, no gradient scale. */
sl_xent_args sl_xent_from(const sl_args *a, int grad);

/* Checks every launcher makes: a dtype of the op, ld >= cols, smoothing
 * in [0, 1]. */
sl_status sl_xent_check(const sl_xent_args *x, const char *who);

/* The reference of both ops (xent.c): fp64, whole rows. */
void sl_xent_reference(sl_ref_args *r, int grad);
/* The descriptors' helpers (xent.c). */
uint64_t sl_xent_buf_elems(const sl_shape *s, int k);
void sl_xent_fill_index(int k, int32_t *dst, uint64_t n, uint64_t first, uint64_t seed, const sl_shape *s,
                        const double *scalars);
void sl_xent_tol_buf(int k, const sl_shape *s, const double *scalars, double scale, double *ulps, double *abs_extra);
/* The CPU computation of both ops and the public functions: rows over
 * OpenMP threads (omp != 0) or in order. SL_ERR_INVALID_ARG for a target
 * out of range, before anything is written. */
sl_status sl_cpu_xent_run(const sl_xent_args *x, int omp);
/* The CPU backward from a saved logsumexp (x->lse read, x->dy):
 * SL_ERR_INVALID_ARG for a target out of range, before anything is
 * written. */
sl_status sl_cpu_xent_bwd_run(const sl_xent_args *x, int omp);
/* The CPU copy ceiling of both ops (into dx, or the workspace). */
sl_status sl_cpu_xent_ceiling(const sl_args *a);

/* CUDA (cuda/): the two-pass rung (online logsumexp, then the gradient
 * pass; forward only when dx is NULL: the read-only rung), the register
 * rung (fused, x read once), the count of rows not ignored into
 * *gscale = 1 / count (mean), and the sum of the per-row losses
 * (times *gscale for mean) into one f32. */
sl_status sl_cuda_xent_twopass_run(const sl_xent_args *x);
bool sl_cuda_xent_regs_fits(const sl_xent_args *x);
/* Whether the public function runs the register rung (else two-pass). */
bool sl_cuda_xent_fused_pick_regs(const sl_xent_args *x);
sl_status sl_cuda_xent_regs_run(const sl_xent_args *x);
/* The bulk rung (cuda/04_bulk.cu): the row staged in shared memory by
 * bulk copies, a cluster of up to 8 blocks a row; fits: 16-byte aligned
 * logits, dx and rows, at most 8 x 72 KiB a row, sm_90. */
bool sl_cuda_xent_bulk_fits(const sl_xent_args *x);
sl_status sl_cuda_xent_bulk_run(const sl_xent_args *x);
/* Rung 5's bulk_ex configuration (cuda/05_bulk_ex.cu): bulk with the
 * one-sided cluster exchange, 256-thread blocks, 32 KiB chunks; fits as
 * bulk does. */
bool sl_cuda_xent_bulk_ex_fits(const sl_xent_args *x);
sl_status sl_cuda_xent_bulk_ex_run(const sl_xent_args *x);
/* The public fused choice: regs, else the unfused pair (16-bit) or
 * twopass (f32) (cuda/03_bwd.cu). */
sl_status sl_cuda_xent_fused_run(const sl_xent_args *x);
sl_status sl_cuda_xent_count(const sl_xent_args *x, float *gscale);
/* The backward from a saved logsumexp (cuda/03_bwd.cu): x->lse read,
 * x->dx written (may equal x->x), x->dy and x->gscale the row scale. */
sl_status sl_cuda_xent_bwd_run(const sl_xent_args *x);
sl_status sl_cuda_xent_sum(const float *rows_loss, uint64_t rows, const float *gscale, int mean, float *loss,
                           void *stream);

/* The descriptors' launchers (sl_args). */
sl_status sl_cuda_xent_twopass(const sl_args *a);
sl_status sl_cuda_xent_regs(const sl_args *a);
sl_status sl_cuda_xent_api(const sl_args *a);
sl_status sl_cuda_xent_fwd_online(const sl_args *a);
sl_status sl_cuda_xent_split(const sl_args *a);
sl_status sl_cuda_xent_bwd_attrs(sl_dtype dt, sl_kernel_attrs *out);
sl_status sl_cuda_xent_fwd_api(const sl_args *a);
sl_status sl_cuda_xent_twopass_attrs(sl_dtype dt, sl_kernel_attrs *out);
sl_status sl_cuda_xent_regs_attrs(sl_dtype dt, sl_kernel_attrs *out);
sl_status sl_cuda_xent_bulk(const sl_args *a);
sl_status sl_cuda_xent_bulk_attrs(sl_dtype dt, sl_kernel_attrs *out);
sl_status sl_cuda_xent_bulk_ex(const sl_args *a);
sl_status sl_cuda_xent_bulk_ex_attrs(sl_dtype dt, sl_kernel_attrs *out);
sl_status sl_cuda_xent_bulk_ex512(const sl_args *a);
sl_status sl_cuda_xent_bulk_ex512_attrs(sl_dtype dt, sl_kernel_attrs *out);
/* The copy-kernel ceiling (src/ops/softmax_bwd/cuda/copy_kernel.cu). */
sl_status sl_cuda_ceiling_copy_kernel(const sl_args *x);

#ifdef __cplusplus
}
#endif

#endif /* SL_OP_XENT_H */
