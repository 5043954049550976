/*
 * cpu.h - the CPU backend's own helpers (OpenMP threads over host memory).
 * The ops' CPU rungs live in their op folders (src/ops/common/ew_cpu.c).
 */
#ifndef SL_CPU_H
#define SL_CPU_H

#include <stddef.h>

#include "internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* OpenMP threads the CPU backend uses. */
int sl_cpu_threads(void);

/* Inside a parallel region: this thread's share [lo, hi) of `total` bytes,
 * split in 64-byte granules in thread order (the order schedule(static)
 * uses), for first touch and copies. */
void sl_cpu_share(size_t total, size_t *lo, size_t *hi);

/* The probe primitives (probe_ops.c), for the ops table. */
extern const struct sl_probe_ops sl_cpu_probe_ops;

#ifdef __cplusplus
}
#endif

#endif /* SL_CPU_H */
