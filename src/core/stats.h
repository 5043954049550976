/*
 * stats.h - summary statistics of a set of timings.
 */
#ifndef SL_STATS_H
#define SL_STATS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sl_stats {
    size_t count;
    double mean;
    double sd;      /* sample standard deviation (n - 1); 0 when count < 2 */
    double min;
    double median;  /* middle value, or the mean of the two middle values */
    double max;
} sl_stats;

/* Summarise x[0..n). x is not modified. n == 0 gives all zeros.
 * Returns 0, or -1 if a scratch allocation failed. */
int sl_stats_compute(const double *x, size_t n, sl_stats *out);

#ifdef __cplusplus
}
#endif

#endif /* SL_STATS_H */
