/*
 * harness.h - verify, warm up, time and summarise every selected variant at
 * every size, on one context.
 */
#ifndef SL_HARNESS_H
#define SL_HARNESS_H

#include "counters.h"
#include "internal.h"
#include "registry.h"
#include "stats.h"
#include "verify.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct sl_run_config {
    sl_op op;
    sl_dtype dtype;
    float alpha;                     /* axpy's scalar */
    const uint64_t *sizes;           /* element counts, run in this order */
    int nsizes;
    const sl_variant *const *variants; /* of the context's backend and this op; ceilings and peers first */
    int nvariants;
    int warmup;                      /* untimed launches before the trials */
    int trials;                      /* timed launches */
    bool cold;                       /* flush the cache before every trial */
    bool progress;                   /* a status line on stderr */
    uint64_t seed;                   /* inputs of variant k at size j derive from (seed, j, k) */
    const char *inject_fault;        /* test hook: variant name whose launch is replaced by a fault */
    bool quiet_unsupported;          /* variants without a kernel for dtype get no row (else a "skip" row) */
    uint64_t offset;                 /* every array starts this many elements past its allocation */
    sl_counter_session *counters;    /* --counters: one profiled launch per row after the trials; NULL: none */
} sl_run_config;

/* One row: a variant at a size. */
typedef struct sl_result {
    const sl_variant *v;
    sl_dtype dtype;           /* storage type of the inputs (the output's is sl_variant_out_dtype) */
    uint64_t n;
    double bytes;             /* moved per launch: bytes_per_elem x n */
    bool fits_l2;             /* working set <= L2 (or LLC): the row measures cache, not DRAM */
    sl_status status;         /* SL_OK; SL_ERR_VERIFY; SL_ERR_UNSUPPORTED = skipped; others = failed */
    char message[768];        /* why it failed or was skipped, with the first mismatches */
    int trials;
    double times_ms[1024];    /* the first min(trials, 1024) trial times */
    sl_stats st;              /* over all trials */
    double gbs;               /* bytes / median time, 1e9 B/s */
    double gbs_sd;            /* sample sd of per-trial GB/s */
    double pct_peak;          /* % of the theoretical peak, -1 when unknown */
    double pct_copy;          /* % of the copy ceiling at this n, -1 when not measured */
    double x_peer;            /* GB/s over the peer's (CUB) at this n, -1 when not measured */
    uint64_t seed_a, seed_b;
    sl_check before, after;   /* the two verifications */
    bool has_attrs;
    sl_kernel_attrs attrs;
    sl_counters ctr;          /* hardware counters of one extra launch (ctr.valid false: none) */
    char ctr_note[160];       /* why a collection failed, when it did */
} sl_result;

typedef void (*sl_row_fn)(void *user, const sl_result *r);

/* Run the sweep, calling row() after each finished row (for streaming
 * output and incremental files). Returns SL_OK when every row ran (rows may
 * still have failed verification: see their status), SL_ERR_INTERRUPTED
 * after sl_harness_request_stop(), or the error that stopped the sweep (a
 * sticky CUDA fault, an allocation failure); sl_last_error() names the
 * variant and size. */
sl_status sl_harness_run(sl_ctx *ctx, const sl_run_config *cfg, sl_row_fn row, void *user);

/* Ask a running sweep to stop after the current launch. Async-signal-safe. */
void sl_harness_request_stop(void);

/* Bytes the harness allocates on the device for size n (the op's arrays:
 * three for add, two for axpy; and, if cold, the flush buffer). */
size_t sl_harness_bytes_needed(const sl_ctx *ctx, const sl_run_config *cfg, uint64_t n);

/* SL_OK if size n fits in the memory the backend has free, else
 * SL_ERR_NO_MEMORY with a message giving what is needed, what is free and
 * the largest n that fits. */
sl_status sl_harness_check_fit(sl_ctx *ctx, const sl_run_config *cfg, uint64_t n);

#endif /* SL_HARNESS_H */
