/*
 * cpu.h - the CPU side: the reference kernels (the test oracle) and the
 * OpenMP rungs the CPU backend runs.
 */
#ifndef SL_CPU_H
#define SL_CPU_H

#include <stddef.h>

#include "registry.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The reference: c[i] = a[i] + b[i], one thread, in order, IEEE fp32 with
 * round-to-nearest-even. Every other kernel is checked bit for bit against
 * this. Exact aliasing (c == a or c == b) is allowed. */
void sl_ref_add_f32(size_t n, const float *a, const float *b, float *c);

/* The reference for every op and storage type, one thread, in order:
 * element i of a and b (dtype `in`) widened exactly to fp32 by
 * sl_dtype_load, combined in fp32 (add: a + b; axpy: fmaf(alpha, a, b), one
 * rounding), and narrowed into c (dtype `out`) by sl_dtype_store: round to
 * nearest-even, saturating for fp8 (src/core/dtype_conv.h). Exact aliasing
 * of c with a or b is allowed (axpy's y). Source: issue 6, "Arithmetic is
 * done in f32, with round-to-nearest-even on the store". */
void sl_ref_ew(sl_op op, sl_dtype in, sl_dtype out, float alpha, size_t n, const void *a, const void *b, void *c);

/* Launchers (sl_args from registry.h; host pointers, stream ignored). The
 * ew launchers run the op and dtype in x. */
sl_status sl_cpu_ew_serial(const sl_args *x);
sl_status sl_cpu_ew_omp(const sl_args *x);
sl_status sl_cpu_ceiling_copy(const sl_args *x);

/* OpenMP threads the CPU backend uses. */
int sl_cpu_threads(void);

/* Inside a parallel region: this thread's share [lo, hi) of `total` bytes,
 * split in 64-byte granules in thread order (the order schedule(static)
 * uses), for first touch and copies. */
void sl_cpu_share(size_t total, size_t *lo, size_t *hi);

#ifdef __cplusplus
}
#endif

#endif /* SL_CPU_H */
