/*
 * probe.h - `streamlab probe`: microbenchmarks of the memory system whose
 * results form a device profile (profile.h) for the bottleneck model.
 *
 * The probes themselves (what to sweep, how to check, what to report) are
 * backend-independent and live in src/lab/probes/, one file each; a
 * backend supplies the few primitive kernels below. The CPU backend
 * implements the ones that make sense on a CPU (copy, read, write, strided
 * copy, pointer chase); probes that need the rest report "needs a GPU" and
 * are skipped.
 */
#ifndef SL_PROBE_H
#define SL_PROBE_H

#include "internal.h"
#include "probe_ops.h"
#include "profile.h"

#include <stdbool.h>
#include <stdio.h>

typedef struct sl_probe_config {
    const char *only;      /* comma list of probe names, NULL for all */
    bool quick;            /* fewer and smaller points (tests, CPUs) */
    bool reprobe;          /* ceilings at one DRAM-sized working set only (run --reprobe, under 1 s) */
    int trials;            /* timed runs per point */
    bool progress;
    struct sl_counter_session *counters; /* --counters: the l2-write probe profiles its kernels; NULL: no */
} sl_probe_config;

/* Names and one-line descriptions, for --help and --only validation. */
int sl_probe_count(void);
const char *sl_probe_name(int i);
const char *sl_probe_what(int i);
const char *sl_probe_seed(int i);

/* Run the selected probes, printing a table per probe to `out` (and to
 * `md`, Markdown, if not NULL), filling *prof (fields it measures) and
 * adding raw points to `points` (a cJSON object). A probe whose check fails
 * stops the run with SL_ERR_VERIFY; a probe the backend cannot run is
 * reported and skipped. */
struct cJSON;
sl_status sl_probe_run(sl_ctx *ctx, const sl_probe_config *cfg, sl_profile *prof, struct cJSON *points, FILE *out,
                       FILE *md);

/* run --reprobe (issue 17): the ceilings probe at one DRAM-sized working
 * set (32 x L2), 5 trials, every kernel checked as in `probe`; fills
 * prof->read_gbs, write_gbs, copy_sm_gbs, copy_memcpy_gbs and add_gbs (the
 * rest of *prof untouched) and *seconds with the wall time it took. */
sl_status sl_probe_reprobe(sl_ctx *ctx, sl_profile *prof, double *seconds);

#endif /* SL_PROBE_H */
