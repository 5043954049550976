/*
 * test_compare.c - the CPU vs GPU comparison (src/lab/results/compare.h)
 * on made-up rows whose answers are worked out by hand here: speed-ups as
 * CPU time / GPU time, the GPU's best rung (ceilings and peers left out),
 * and the crossover, including a GPU that loses at small sizes, one that
 * always wins, one that never does, and a size whose win is not kept.
 */
#include "check.h"
#include "compare.h"

#include <math.h>
#include <string.h>

#define CPU(v, n, ms) {false, "add", "f32", v, true, n, ms, -1}
#define GPU(v, n, ms) {true, "add", "f32", v, true, n, ms, -1}
#define GPUX(v, n, ms, x) {true, "add", "f32", v, true, n, ms, x}
#define REF(v, n, ms) {true, "add", "f32", v, false, n, ms, -1}

static bool near(double a, double b)
{
    return fabs(a - b) <= 1e-12 * fabs(b);
}

int main(void)
{
    sl_cmp_line l[16];
    char buf[96];
    /* The GPU (launch-bound at 10 us) loses to OpenMP at 1000, wins from 1e5. */
    const sl_cmp_row rows[] = {
        REF("copy", 1000, 0.001),   GPU("naive", 1000, 0.012),   GPU("vec4", 1000, 0.010),
        CPU("serial", 1000, 0.004), CPU("omp", 1000, 0.008),     REF("copy", 100000, 0.001),
        GPU("naive", 100000, 0.02), GPU("vec4", 100000, 0.011),  CPU("serial", 100000, 0.4),
        CPU("omp", 100000, 0.05),   GPU("naive", 10000000, 0.5), GPU("vec4", 10000000, 0.3),
        CPU("serial", 10000000, 40), CPU("omp", 10000000, 6),
    };
    int n = sl_compare_lines(rows, (int)(sizeof rows / sizeof rows[0]), l, 16);
    CHECK(n == 3, "%d lines", n);
    CHECK(l[0].n == 1000 && l[1].n == 100000 && l[2].n == 10000000, "sizes in order");
    CHECK(!strcmp(l[0].best, "vec4") && near(l[0].best_ms, 0.010), "best at 1000: %s %g (the copy's 0.001 is a "
                                                                   "ceiling, not a rung)", l[0].best, l[0].best_ms);
    CHECK(near(l[2].best_over_serial, 40 / 0.3) && near(l[2].best_over_omp, 6 / 0.3) &&
              near(l[2].naive_over_serial, 40 / 0.5),
          "ratios at 1e7: %g %g %g", l[2].best_over_serial, l[2].best_over_omp, l[2].naive_over_serial);
    CHECK(near(l[0].best_over_omp, 0.8), "GPU/omp at 1000 = %g (the CPU wins)", l[0].best_over_omp);
    sl_compare_crossover(l, n, "add", "f32", "omp", false, buf, sizeof buf);
    CHECK(!strcmp(buf, "n = 100K"), "omp crossover: %s", buf);
    sl_compare_crossover(l, n, "add", "f32", "serial", false, buf, sizeof buf);
    CHECK(!strcmp(buf, "n = 100K"), "serial crossover: %s", buf);
    sl_compare_crossover(l, n, "dot", "f32", "omp", false, buf, sizeof buf);
    CHECK(!strcmp(buf, "no CPU omp rows"), "no rows: %s", buf);

    /* Always wins; never wins; wins at the middle size only (the crossover
     * must be where the GPU keeps winning, not the first win). */
    const sl_cmp_row always[] = {GPU("v", 10, 0.001), CPU("omp", 10, 0.01), GPU("v", 20, 0.001), CPU("omp", 20, 0.02)};
    n = sl_compare_lines(always, 4, l, 16);
    sl_compare_crossover(l, n, "add", "f32", "omp", false, buf, sizeof buf);
    CHECK(!strcmp(buf, "n = 10 or below (the smallest size run)"), "always: %s", buf);
    const sl_cmp_row never[] = {GPU("v", 10, 1), CPU("omp", 10, 0.01), GPU("v", 20, 1), CPU("omp", 20, 0.02)};
    n = sl_compare_lines(never, 4, l, 16);
    sl_compare_crossover(l, n, "add", "f32", "omp", false, buf, sizeof buf);
    CHECK(!strcmp(buf, "none up to n = 20"), "never: %s", buf);
    const sl_cmp_row dip[] = {GPU("v", 10, 1),  CPU("omp", 10, 0.5), GPU("v", 20, 1),  CPU("omp", 20, 2),
                              GPU("v", 30, 1),  CPU("omp", 30, 0.9), GPU("v", 40, 1),  CPU("omp", 40, 3)};
    n = sl_compare_lines(dip, 8, l, 16);
    sl_compare_crossover(l, n, "add", "f32", "omp", false, buf, sizeof buf);
    CHECK(!strcmp(buf, "n = 40"), "a win that is not kept: %s", buf);

    /* A group with no GPU row (or no CPU row) gets no line; unmeasured rows count as absent. */
    const sl_cmp_row lone[] = {CPU("omp", 10, 0.5), GPU("v", 20, 1), GPU("v", 30, -1), CPU("omp", 30, 1)};
    n = sl_compare_lines(lone, 4, l, 16);
    CHECK(n == 0, "%d lines from rows with no pair", n);
    /* --include-transfer: 0.1 ms of copies per call at every size; the GPU
     * (0.01 ms) beats OpenMP (0.05 ms) on kernel time from the start but,
     * with the copies, only from 1e6, where OpenMP takes 0.5 ms. */
    const sl_cmp_row x[] = {GPUX("v", 1000, 0.01, 0.1),   CPU("omp", 1000, 0.05),   CPU("serial", 1000, 0.2),
                            GPUX("v", 1000000, 0.02, 0.2), CPU("omp", 1000000, 0.5), CPU("serial", 1000000, 2.0)};
    n = sl_compare_lines(x, 6, l, 16);
    CHECK(n == 2 && near(l[0].transfer_ms, 0.1) && near(l[0].xfer_over_omp, 0.05 / 0.11) &&
              near(l[1].xfer_over_serial, 2.0 / 0.22),
          "with transfers: %d lines, %g %g %g", n, l[0].transfer_ms, l[0].xfer_over_omp, l[1].xfer_over_serial);
    sl_compare_crossover(l, n, "add", "f32", "omp", false, buf, sizeof buf);
    CHECK(!strcmp(buf, "n = 1K or below (the smallest size run)"), "kernel-time crossover: %s", buf);
    sl_compare_crossover(l, n, "add", "f32", "omp", true, buf, sizeof buf);
    CHECK(!strcmp(buf, "n = 1M"), "crossover with transfers: %s", buf);
    return check_exit("test_compare");
}
