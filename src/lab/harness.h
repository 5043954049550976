/*
 * harness.h - verify, warm up, time and summarise the selected variants of
 * one op at every shape, on one context. Everything it knows about the op
 * comes from the op's descriptor (op.h): which buffers to allocate and
 * fill, what to poison, the reference, the tolerance and the bytes moved.
 */
#ifndef SL_HARNESS_H
#define SL_HARNESS_H

#include "counters.h"
#include "internal.h"
#include "model.h"
#include "op.h"
#include "stats.h"
#include "stoprule.h"
#include "verify.h"

#include <stdbool.h>
#include <stdint.h>

typedef enum sl_timer {
    SL_TIMER_EVENT = 0, /* the backend's timer around the launch alone (CUDA events) */
    SL_TIMER_WALL       /* a host clock around launch + synchronisation, as BabelStream and STREAM time */
} sl_timer;

/* A step shared by the processes of a run over several processes (MPI:
 * src/lab/mpi/mpi_lab.c); the harness names no transport. Each process
 * passes its own code and gets back the least code of all of them: the
 * harness calls it once after the check before timing (OK, SKIP: no kernel,
 * FAIL), right before each timed trial (after the --cold flush) and once
 * after the last trial, the same number of times on every process as long
 * as they all answer OK, so every trial starts when the slowest process
 * arrives (a barrier that also carries each one's status). */
enum { SL_SYNC_FAIL = 0, SL_SYNC_SKIP = 1, SL_SYNC_OK = 2 };
typedef int (*sl_sync_fn)(void *user, int mine);

typedef struct sl_run_config {
    const sl_op_desc *op;
    sl_dtype dtype;
    double scalar[SL_MAX_SCALARS];    /* the op's scalars */
    const sl_shape *shapes;           /* run in this order */
    const char *const *size_labels;   /* NULL, or per shape the relative size it came from ("4xL2"; relsize.h) */
    int nshapes;
    const sl_variant *const *variants; /* of the op and the context's backend; ceilings and peers first */
    int nvariants;
    int warmup;                       /* untimed launches before the trials */
    int trials;                       /* timed launches (the least, with stdrel) */
    double stdrel;                    /* > 0: time until the median's relative standard error is below this
                                         fraction (stoprule.h), up to max_time_s and max_trials */
    double max_time_s;                /* per row; 0: no limit */
    int max_trials;                   /* cap with stdrel */
    bool include_transfer;            /* GPU rows: also time the inputs in and outputs out (transfer.h) */
    bool cold;                        /* flush the cache before every trial */
    sl_timer timer;
    bool progress;                    /* a status line on stderr */
    uint64_t seed;                    /* buffer k at shape j is filled from stream (seed, j, k) */
    const char *inject_fault;         /* test hook: variant name whose launch is replaced by a fault */
    bool quiet_unsupported;           /* variants without a kernel for dtype get no row (else a "skip" row) */
    uint64_t offset;                  /* every buffer starts this many elements past its allocation */
    sl_counter_session *counters;     /* --counters: one profiled launch per row after the trials; NULL: none */
    int step0, steps;                 /* progress: rows done before this sweep, and in the whole run */
    sl_sync_fn sync;                  /* several processes: see sl_sync_fn; NULL: one process */
    void *sync_user;
} sl_run_config;

/* One row: a variant at a shape. */
typedef struct sl_result {
    const sl_ctx *ctx;        /* the context (device) it ran on */
    const sl_op_desc *op;
    const sl_variant *v;
    sl_dtype dtype;           /* storage type of the inputs (the output's is sl_variant_out_dtype) */
    sl_shape shape;
    uint64_t n;               /* elements: rows x cols */
    const char *size_label;   /* the relative size n resolved from ("0.5xL2"), or NULL */
    sl_traffic traffic;       /* sl_variant_traffic: what GB/s and the model count */
    double bytes;             /* rd + wr bytes per launch */
    bool fits_l2;             /* working set <= L2 (or LLC): the row measures cache, not DRAM */
    sl_status status;         /* SL_OK; SL_ERR_VERIFY; SL_ERR_UNSUPPORTED = skipped; others = failed */
    char message[768];        /* why it failed or was skipped, with the first mismatches */
    int trials;
    double noise;             /* relative standard error of the median time (stoprule.h) */
    double transfer_ms;       /* host <-> device copies of one call (--include-transfer), or -1 */
    sl_stop_reason stop;      /* why the trials stopped */
    double times_ms[1024];    /* the first min(trials, 1024) trial times */
    sl_stats st;              /* over all trials */
    double gbs;               /* bytes / median time, 1e9 B/s */
    double gbs_best;          /* bytes / min time (STREAM's and BabelStream's figure) */
    double gbs_sd;            /* sample sd of per-trial GB/s */
    double pct_peak;          /* % of the theoretical peak, -1 when unknown */
    double pct_copy;          /* % of the copy ceiling at this shape, -1 when not measured */
    double x_peer;            /* GB/s over the peer's at this shape, -1 when not measured */
    uint64_t seeds[SL_MAX_BUFS];
    sl_check before, after;   /* the two verifications */
    bool has_attrs;
    sl_kernel_attrs attrs;
    sl_counters ctr;          /* hardware counters of one extra launch (ctr.valid false: none) */
    char ctr_note[160];       /* why a collection failed, when it did */
    sl_env_sample env0, env1; /* the backend's record (NVML) at the row's start and after its trials */
    bool has_model;           /* the model's prediction, filled in beside the harness (sl_predict_row) */
    sl_model model;
} sl_result;

typedef void (*sl_row_fn)(void *user, sl_result *r);

/* Run the sweep, calling row() after each finished row (for streaming
 * output and incremental files). Returns SL_OK when every row ran (rows may
 * still have failed verification: see their status), SL_ERR_INTERRUPTED
 * after sl_harness_request_stop(), or the error that stopped the sweep (a
 * sticky CUDA fault, an allocation failure); sl_last_error() names the
 * variant and shape. */
sl_status sl_harness_run(sl_ctx *ctx, const sl_run_config *cfg, sl_row_fn row, void *user);

/* Ask a running sweep to stop after the current launch. Async-signal-safe. */
void sl_harness_request_stop(void); /* = sl_interrupt_request() (interrupt.h) */

/* SL_OK if the shape fits in the memory the backend has free (the op's
 * buffers, the flush buffer with --cold, the workspace) and in host memory
 * (the reference's expected outputs), else SL_ERR_NO_MEMORY with a message
 * giving what is needed, what is free and the largest 1-D n that fits. */
sl_status sl_harness_check_fit(sl_ctx *ctx, const sl_run_config *cfg, const sl_shape *s);

#endif /* SL_HARNESS_H */
