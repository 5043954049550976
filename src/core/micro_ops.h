/*
 * micro_ops.h - the SM-level microbenchmark kernels behind the "l1",
 * "const" and "divergence" probes of `streamlab probe` (issue 11; seed 004:
 * "Volta L1 / shared memory", "Constant memory", "Control Flow"): reached
 * through sl_probe_ops.micro (NULL where the backend has no SMs: the CPU).
 *
 * Every call waits, and checks its own work: *bad counts what failed a
 * check (a block's checksum, a sampled thread's result). `light` (the probe
 * runner's check-only mode, STREAMLAB_PROBE_CHECK_ONLY=1, for
 * compute-sanitizer) runs the same kernels on 2 blocks with a few
 * iterations: the checks hold, the rates mean nothing.
 */
#ifndef SL_MICRO_OPS_H
#define SL_MICRO_OPS_H

#include "internal.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sl_micro_ops {
    /* L1 load throughput. One block of 1024 threads per SM, the kernel
     * compiled with the largest L1 carve-out (no shared memory); block b
     * reads its own ws_bytes of global memory (a power of two, 16 KiB ..
     * 4 MiB) with ld.global.ca of word_bytes (4 or 16). One untimed pass
     * brings the block's buffer into L1; then, for j < steps =
     * bytes_per_block / (1024 x word_bytes), thread t loads word (t + 1024
     * j) mod (ws_bytes / word_bytes): every warp access is 32 consecutive
     * words. Timed by the SM clock (per block, between barriers) and by
     * events around the launch. *cycles: the mean over blocks of the timed
     * loop's clocks; *bytes: what one block loaded in the timed loop; *ms:
     * the launch; *bad: blocks whose checksum is wrong. */
    sl_status (*l1)(sl_ctx *ctx, int word_bytes, size_t ws_bytes, size_t bytes_per_block, int light, double *cycles,
                    double *bytes, double *ms, uint64_t *bad);
    /* Constant-cache throughput: one block of 1024 threads per SM; lane l of
     * every warp loads the __constant__ word ((l mod distinct) + i) mod 256
     * for i = 0 .. accesses - 1 (distinct = 1: every lane the same address,
     * a broadcast; 32: 32 addresses). *cycles: SM clocks per warp access
     * (mean over blocks). */
    sl_status (*constant)(sl_ctx *ctx, int distinct, int light, double *cycles, double *ms, uint64_t *bad);
    /* Warp divergence: every thread runs `iters` dependent FFMAs on one of
     * up to 8 code paths (distinct loops). mode 0: path = (thread / g) mod
     * 2; 1: path = lane mod g (intra-warp); 2: path = warp mod g
     * (inter-warp). SMs x 8 blocks of 256 threads (2048 per SM). *ms: the
     * minimum over `reps` event-timed launches after a warm-up; *threads
     * and *iters: the work (FFMAs = threads x iters); *bad: sampled threads
     * whose result differs from the host's fmaf chain of their path. */
    sl_status (*diverge)(sl_ctx *ctx, int mode, int g, int reps, int light, double *ms, double *threads,
                         double *iters, uint64_t *bad);
} sl_micro_ops;

#ifdef __cplusplus
}
#endif

#endif /* SL_MICRO_OPS_H */
