/*
 * probe_ops.h - the primitive kernels a backend offers the microbenchmarks
 * of `streamlab probe` (src/lab/probes) and the counter session's L2
 * clearing: reached through the context's ops table (sl_backend_ops.probe),
 * so neither the lab nor the core names a backend.
 */
#ifndef SL_PROBE_OPS_H
#define SL_PROBE_OPS_H

#include "internal.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Words of backend memory a read's `sum` accumulator takes. */
#define SL_PROBE_SUM_WORDS (1 + 4096)

/* Primitives. Pointers are backend memory; each call enqueues on the
 * context's stream (the CPU runs it at once) unless it says it waits. */
typedef struct sl_probe_ops {
    /* Add the wrapping 32-bit sum of src[0..words) to the accumulator sum
     * (backend memory of SL_PROBE_SUM_WORDS words, zeroed by read_collect).
     * Enqueues the read alone, so that it can be timed alone.
     * vec: words per load (1, 2, 4); ilp: independent loads per thread
     * (1, 2, 4, 8); every thread reads ilp x vec words once per pass.
     * warps_per_sm: 0 lets occupancy be what it is (the ceiling), W > 0
     * holds W warps resident per SM (a persistent grid of that many warps
     * walking contiguous tiles); *warps_used (may be NULL) gets what was
     * granted.
     * `passes` repeats the traversal (for cache-resident working sets);
     * cg loads past L1 (ld.global.cg), so a re-read measures L2, not L1. */
    sl_status (*read)(sl_ctx *ctx, const void *src, size_t words, int vec, int ilp, int warps_per_sm, int passes,
                      int cg, uint32_t *sum, int *warps_used);
    /* The accumulated sum since the last collect; resets it. Waits. */
    sl_status (*read_collect)(sl_ctx *ctx, uint32_t *sum, uint32_t *total);
    /* dst[i * stride] = value + i for i < count (stride 1: vectorized). */
    sl_status (*write)(sl_ctx *ctx, void *dst, size_t count, size_t stride, uint32_t value);
    /* dst[0..words) = src[0..words), an SM copy kernel (16-byte accesses). */
    sl_status (*copy)(sl_ctx *ctx, void *dst, const void *src, size_t words);
    /* c[i] = a[i] + b[i] over f32 words (16-byte accesses, one per input
     * per thread; 16-byte-aligned buffers, words a multiple of 4). demote:
     * the loads carry an eviction-priority hint (CUDA: ld.global.lu), the
     * stores none. NULL: the backend has no such hint (the CPU). */
    sl_status (*add)(sl_ctx *ctx, void *c, const void *a, const void *b, size_t words, int demote);
    /* dst[i] = src[offset + i * stride] for i < count, 4 bytes per thread. */
    sl_status (*copy_strided)(sl_ctx *ctx, void *dst, const void *src, size_t count, size_t stride, size_t offset);
    /* Count i < count with dst[i * dst_stride] != src[src_offset + i * src_stride]
     * (or != value + i when src is NULL: what write wrote). Waits. */
    sl_status (*mismatches)(sl_ctx *ctx, const void *dst, size_t dst_stride, const void *src, size_t src_stride,
                            size_t src_offset, size_t count, uint32_t value, uint64_t *bad);
    /* Chase `steps` hops from `start` through next (node i's successor at
     * word i * node_words); returns the end node, the SM cycles (or -1) and
     * the elapsed ms. Waits. */
    sl_status (*chase)(sl_ctx *ctx, const void *next, uint32_t start, uint64_t steps, uint32_t node_words,
                       uint32_t *end, double *cycles, double *ms);
    /* Launch overhead of an empty kernel in us: mode 0 event-timed one at a
     * time (median of count), 1 back to back, 2 CUDA graph replay. Waits. */
    sl_status (*launch)(sl_ctx *ctx, int mode, int count, double *us);
    /* Shared-memory throughput (NULL: the backend has no shared memory).
     * One block of 32 warps per SM; every lane accesses the word of
     * word_bytes (4, 8, 16) at word index lane x stride (1..32), loads or
     * (store) stores, the same number of times in every warp. *cycles: SM
     * cycles per warp access, the mean over the blocks; *ms: the launch,
     * event-timed; *bytes: bytes the lanes accessed in all; *bad: blocks
     * whose check failed (a load checksum, a stored word read back). Waits. */
    sl_status (*smem)(sl_ctx *ctx, int word_bytes, int stride, int store, int light, double *cycles, double *ms,
                      double *bytes, uint64_t *bad);
    /* The L1, constant-cache and divergence kernels (micro_ops.h; NULL:
     * the backend has no SMs). smem's `light` as theirs: 2 blocks, a few
     * accesses, checks only (compute-sanitizer). */
    const struct sl_micro_ops *micro;
} sl_probe_ops;


#ifdef __cplusplus
}
#endif

#endif /* SL_PROBE_OPS_H */
