/*
 * probe_util.h - what the probes of `streamlab probe` share: the
 * environment a probe runs in; its output (free text, and a sweep: the
 * curve of raw points, the table, the row being built); timing; the
 * reference values its checks compare against; the jobs it times; and the
 * only door to the kernel registry (the memcpy ceiling and sl_add).
 *
 * One probe per file in this folder, each exporting probe_<name>; the list
 * of them (name, description, seed, needs) is in probe.c.
 */
#ifndef SL_PROBE_UTIL_H
#define SL_PROBE_UTIL_H

#include "probe.h"
#include "table.h"

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#if defined(__GNUC__)
#define PROBE_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define PROBE_PRINTF(f, a)
#endif

#define GIB ((size_t)1 << 30)
#define MIB ((size_t)1 << 20)
#define KIB ((size_t)1 << 10)

/* Everything a probe needs: the device, its primitives, the run's options,
 * where its summary numbers (prof) and raw points (points) go, and the text
 * and Markdown (or NULL) outputs. */
typedef struct env {
    sl_ctx *ctx;
    const sl_probe_ops *ops;
    const sl_probe_config *cfg;
    sl_profile *prof;
    cJSON *points;
    FILE *out, *md;
} env;

/* The probes: each measures, checks, prints its table and fills its
 * profile fields; the first failed check returns SL_ERR_VERIFY. */
sl_status probe_ceilings(env *e);
sl_status probe_latency(env *e);
sl_status probe_bif(env *e);
sl_status probe_launch(env *e);
sl_status probe_l2(env *e);
sl_status probe_offset(env *e);
sl_status probe_stride(env *e);
sl_status probe_l2_write(env *e);
sl_status probe_smem(env *e);
sl_status probe_bank(env *e);
sl_status probe_l1(env *e);
sl_status probe_const(env *e);
sl_status probe_divergence(env *e);

/* Check-only mode (STREAMLAB_PROBE_CHECK_ONLY=1 in the environment): the
 * SM-level probes (smem, bank, l1, const, divergence) run their kernels
 * light (2 blocks, a few iterations), keep every data check and skip the
 * checks on rates, which a sanitizer's slowdown would fail; nothing they
 * measure goes into the profile. For compute-sanitizer memcheck. */
bool probe_check_only(const env *e);

/* ---- output ---- */

/* One line of free text (a heading, a summary, a note) on both outputs;
 * the newline is added. On Markdown it is a paragraph of its own. */
void probe_say(env *e, const char *fmt, ...) PROBE_PRINTF(2, 3);

/* The progress line on stderr (when it is a terminal), and clearing it. */
void probe_progress(env *e, const char *fmt, ...) PROBE_PRINTF(2, 3);
void probe_progress_done(env *e);

/* A sweep: the curve a probe records its points in (the profile's raw
 * points), its table, and the row being built. Typical use:
 *
 *     probe_sweep sw;
 *     probe_sweep_open(&sw, e, "stride");
 *     probe_table(&sw, cols, 4);
 *     for each point: measure, check;
 *         probe_cell(&sw, "%zu", s); ...; probe_row(&sw);
 *         cJSON *p = probe_point(&sw); cJSON_AddNumberToObject(p, ...);
 */
enum { PROBE_MAX_COLS = 20, PROBE_CELL_BYTES = 64 }; /* ceilings: a label, 16 working sets, best, %peak */

typedef struct probe_sweep {
    env *e;
    cJSON *curve; /* NULL: the sweep keeps no points */
    sl_table table;
    char cell[PROBE_MAX_COLS][PROBE_CELL_BYTES];
    int ncells;
} probe_sweep;

/* Start a sweep whose points go to the array `curve` of e->points (created
 * if new; NULL for a table without points). */
void probe_sweep_open(probe_sweep *s, env *e, const char *curve);
/* Print a table's header; rows follow. cols must outlive the sweep. */
void probe_table(probe_sweep *s, const sl_col *cols, int ncols);
/* A new point at the end of the curve (the sweep must have one), to add
 * numbers to. */
cJSON *probe_point(probe_sweep *s);
/* The next cell of the row being built (cut at PROBE_CELL_BYTES - 1). */
void probe_cell(probe_sweep *s, const char *fmt, ...) PROBE_PRINTF(2, 3);
/* The next cell: v with `decimals` digits and a suffix, or "-" when v < 0
 * (not measured). */
void probe_num(probe_sweep *s, double v, int decimals, const char *suffix);
/* Print the row; cells not given print "-". Starts the next row. */
void probe_row(probe_sweep *s);

/* ---- timing and checks ---- */

typedef sl_status (*probe_job_fn)(env *e, void *arg);

/* Median ms of `trials` (at most 64) runs of fn after `warmup` untimed ones. */
sl_status probe_time_job(env *e, probe_job_fn fn, void *arg, int warmup, int trials, double *median_ms);

double probe_gbs(double bytes, double ms);

/* Wrapping 32-bit sum of the first `words` words a fill_random(seed) wrote:
 * what a read kernel must return. */
uint32_t probe_expected_sum(uint64_t seed, size_t words);

/* The device's L2 size, or 32 MiB where the backend does not know it. */
size_t probe_l2_or_default(const env *e);

/* Largest working set a probe may use: 4 GiB, less if memory is short. */
size_t probe_max_working_set(const env *e, double fraction);

/* SL_ERR_VERIFY naming `what` if bad != 0. */
sl_status probe_check_zero(uint64_t bad, const char *what);

/* ops->mismatches (probe.h), then probe_check_zero. Waits. */
sl_status probe_check_mismatches(env *e, const char *what, const void *dst, size_t dst_stride, const void *src,
                                 size_t src_stride, size_t src_offset, size_t count, uint32_t value);

/* ---- jobs: one launch each, for probe_time_job ---- */

typedef struct rw_job {
    void *dst;
    const void *src;
    size_t words, stride, offset;
    int vec, ilp, warps, passes, cg;
    uint32_t *sum;
    int warps_used;
    const void *b; /* add's second input */
    int demote;    /* probe_job_add_hinted: loads with an eviction hint */
    bool have;     /* memcpy, add: false where the backend has no such kernel */
} rw_job;

sl_status probe_job_read(env *e, void *arg);         /* ops->read, warps_used filled in */
sl_status probe_job_write(env *e, void *arg);        /* ops->write of 0x3f800000 + i */
sl_status probe_job_copy(env *e, void *arg);         /* ops->copy */
sl_status probe_job_copy_strided(env *e, void *arg); /* ops->copy_strided */
sl_status probe_job_memcpy(env *e, void *arg);       /* probe_memcpy_ceiling */
sl_status probe_job_add(env *e, void *arg);          /* probe_add_launch: dst = src + b */
sl_status probe_job_add_hinted(env *e, void *arg);   /* ops->add: dst = src + b, loads demoted or not */

/* Time a read with probe_time_job, then check the accumulated checksum:
 * every run (warm-ups too) added `one` to it. */
sl_status probe_timed_read(env *e, rw_job *j, int warmup, int trials, uint32_t one, const char *what, double *ms);

/* ---- the kernel registry: nothing else in the probes names it ---- */

/* One launch of the backend's copy ceiling (cudaMemcpy, memcpy) over
 * `words` f32 words. *have = false, and nothing runs, where it has none. */
sl_status probe_memcpy_ceiling(env *e, void *dst, const void *src, size_t words, bool *have);

/* One launch of the public add entry (what sl_add runs): c = a + b over
 * `words` f32 elements. *have = false, and nothing runs, where the backend
 * has none. */
sl_status probe_add_launch(env *e, const void *a, const void *b, void *c, size_t words, bool *have);

/* *bad = the elements of c[0..words) that differ from the CPU reference of
 * a + b, a and b being what fill_random(seed_a) and fill_random(seed_b)
 * wrote. Waits. */
sl_status probe_add_check(env *e, const void *c, size_t words, uint64_t seed_a, uint64_t seed_b, uint64_t *bad);

#endif /* SL_PROBE_UTIL_H */
