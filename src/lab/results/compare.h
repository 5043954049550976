/*
 * compare.h - CPU vs GPU (seed 002's first experiment): for a run over the
 * CPU and a GPU (`streamlab run --devices cpu,0`), per op, dtype and size,
 * the GPU's speed-up over the serial CPU rung and over the OpenMP rung, and
 * the crossover size from which the GPU wins. Speed-ups are ratios of
 * median times measured in the same run (so of GB/s: both count the op's
 * bytes). The GPU side is its fastest verified rung or public function
 * (ceilings and peers left out), and its naive rung, the seed's "nearly
 * 200x faster" kernel, on its own.
 *
 * The inputs are plain rows, so the run's table (report.c) and the HTML
 * report (read back from JSON) compute the same thing.
 */
#ifndef SL_COMPARE_H
#define SL_COMPARE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

typedef struct sl_cmp_row {
    bool gpu;            /* CUDA backend (else CPU) */
    const char *op, *dtype, *variant;
    bool rung_or_api;    /* kind rung or api (not ceiling, not peer) storing the input dtype (not fp8out:
                            less work) */
    uint64_t n;
    double median_ms;    /* <= 0: not measured (skipped, failed) */
    double transfer_ms;  /* GPU rows with --include-transfer: the copies in and out of one call; < 0: none */
} sl_cmp_row;

typedef struct sl_cmp_line {
    char op[24], dtype[16], best[32];
    uint64_t n;
    double serial_ms, omp_ms, naive_ms, best_ms; /* < 0: none */
    double best_over_serial, best_over_omp, naive_over_serial; /* speed-ups; < 0: none */
    double transfer_ms;  /* < 0: not measured */
    double xfer_over_serial, xfer_over_omp; /* the same with the transfers added to the GPU's time; < 0: none */
} sl_cmp_line;

/* One line per (op, dtype, n) that has both a GPU and a CPU row, in the
 * order the rows first name them; returns how many (at most max). */
int sl_compare_lines(const sl_cmp_row *rows, int nrows, sl_cmp_line *out, int max);

/* The crossover of the lines of (op, dtype): the smallest n from which the
 * GPU's best (its time plus the transfers when with_transfer, at the sizes
 * where they were measured) is faster than the CPU rung `cpu` ("omp" or
 * "serial") at that size and every larger one. Writes a phrase into buf:
 * "n = 10M", "n = 1000 or below (the smallest size run)", "none up to
 * n = 200M", or "no CPU omp rows". */
void sl_compare_crossover(const sl_cmp_line *lines, int nlines, const char *op, const char *dtype, const char *cpu,
                          bool with_transfer, char *buf, size_t len);

/* The four crossovers of one (op, dtype) group: GPU kernel vs OpenMP and
 * vs one thread, then the same with the transfers counted. */
typedef struct sl_cmp_crossovers {
    char omp[96], serial[96], omp_xfer[96], serial_xfer[96];
} sl_cmp_crossovers;

/* If lines[i] is the first line of its (op, dtype) group, fill *out with
 * the group's crossovers (sl_compare_crossover) and return true; else
 * false. The text, JSON and HTML writers each show one entry per group. */
bool sl_compare_group_crossovers(const sl_cmp_line *lines, int nlines, int i, sl_cmp_crossovers *out);

/* The comparison as text under the run's table and/or as Markdown; does
 * nothing when there are no lines. */
void sl_compare_print(const sl_cmp_line *lines, int nlines, FILE *txt, FILE *md);

#endif /* SL_COMPARE_H */
