/*
 * verify.h - checking a kernel's output against the op's CPU reference,
 * with the op's tolerance policy (op.h, sl_tol).
 */
#ifndef SL_VERIFY_H
#define SL_VERIFY_H

#include "internal.h"
#include "op.h"

#define SL_VERIFY_SHOW 10 /* mismatches recorded for the report */

typedef struct sl_mismatch {
    uint64_t index;
    uint64_t got;  /* bit patterns, zero-extended from the element size */
    uint64_t want;
} sl_mismatch;

typedef struct sl_check {
    uint64_t mismatches;  /* all of them */
    uint64_t inexact;     /* not bit-exact but within the tolerance */
    sl_dtype dtype;       /* of the compared output */
    const char *buf;      /* the buffer the recorded mismatches are in ("c") */
    int shown;            /* first min(mismatches, SL_VERIFY_SHOW), in index order */
    sl_mismatch first[SL_VERIFY_SHOW];
    double max_err_ratio; /* largest |got - want| / allowed over the compared elements (0: exact) */
} sl_check;

/* What one comparison allows. */
typedef struct sl_tolerance {
    sl_tol_kind kind;
    int ulps;         /* SL_TOL_ULP: ulps of the output dtype; SL_TOL_REDUCTION: ulps of the result */
    double abs_extra; /* SL_TOL_REDUCTION: L x u_acc x sum|terms|; SL_TOL_REL: 2^-126 (op.h) */
    bool log_terms;   /* SL_TOL_REL with the op's log terms: ulps + ln(1 / |want|) + log_n (op.h) */
    double log_n;     /* ln of the row length n given to sl_tolerance_for */
} sl_tolerance;

/* The tolerance for variant v of op at n elements of dt: the op's policy,
 * widened by a peer's declared ulps; for a reduction, the bound of op.h
 * with the reference's sum|terms| (`scale`), the variant's accumulator and
 * its partial sums. */
sl_tolerance sl_tolerance_for(const sl_op_desc *op, const sl_variant *v, sl_dtype dt, uint64_t n, double scale);

/* Compare n elements of `got` (backend memory, downloaded in chunks of
 * 4 Mi elements, so host memory stays bounded) with `want` (host memory),
 * both of dtype dt, under tol. Element indices in the report start at
 * index0. Results accumulate into *out (reset it with sl_check_reset);
 * `name` labels the buffer. Returns SL_OK when the comparison ran
 * (out->mismatches says how it went), or the status of a failed download. */
sl_status sl_verify_buffer(sl_ctx *ctx, const char *name, const void *got, const void *want, size_t n, sl_dtype dt,
                           const sl_tolerance *tol, sl_check *out);

void sl_check_reset(sl_check *c, sl_dtype dt);

/* Run op's reference on the chunk a describes (items [a->lo, a->hi), each
 * `unit` elements apart in the buffers): an elementwise op's chunk is split
 * across OpenMP threads, each running the same plain reference on its
 * slice; a reduction (an op with a scalar output) runs in order. */
void sl_reference_run(const sl_op_desc *op, sl_ref_args *a, uint64_t unit);

/* Check one launch of variant v of a 1-D op, without the harness: the read
 * buffers bufs[k] (backend memory, n elements; one for a scalar) hold
 * elements first[k] .. first[k] + n - 1 of the streams seeds[k] (what
 * fill_random wrote, possibly from an offset), and every written buffer is
 * compared with the op's reference recomputed chunk by chunk from those
 * streams (host memory stays bounded for any n), or, for a ceiling, with
 * the first input. For tests, probes and bench tools. */
sl_status sl_verify_launch(sl_ctx *ctx, const sl_op_desc *op, const sl_variant *v, sl_dtype dt,
                           const double *scalars, size_t n, void *const *bufs, const uint64_t *seeds,
                           const uint64_t *first, sl_check *out);

/* One line per recorded mismatch into buf:
 * "c[12] = 0x1.8p+0 (0x3fc00000), want 0x1p+0 (0x3f800000)". */
void sl_check_format(const sl_check *chk, char *buf, size_t len);

#endif /* SL_VERIFY_H */
