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

/* Launchers (sl_args from registry.h; host pointers, stream ignored). */
sl_status sl_cpu_add_serial(const sl_args *x);
sl_status sl_cpu_add_omp(const sl_args *x);
sl_status sl_cpu_ceiling_copy(const sl_args *x);
sl_status sl_cpu_add_api(const sl_args *x);

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
