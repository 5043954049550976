/*
 * stoprule.h - how many timed trials a row takes.
 *
 * Fixed (the default): exactly `min_trials` trials, as before.
 * Noise-aware (--stdrel PCT, after nvbench's stdrel criterion): at least
 * `min_trials`, then more until the relative standard error of the median
 * falls below PCT %, or until `max_time_s` seconds of timing have gone by,
 * or `max_trials` are taken, whichever comes first.
 *
 * The standard error of the median of n samples is sqrt(pi/2) x sigma /
 * sqrt(n) for normally distributed samples (the median's asymptotic
 * variance, pi sigma^2 / (2 n): Kendall and Stuart, The Advanced Theory of
 * Statistics, vol. 1, section 10.10). Timings are not normal (a long right
 * tail of interrupted launches), so sigma is estimated robustly as 1.4826 x
 * the median absolute deviation (MAD), which one slow launch does not move.
 * The noise a row reports is that standard error over the median.
 */
#ifndef SL_STOPRULE_H
#define SL_STOPRULE_H

#include "streamlab.h"

#include <stdbool.h>

typedef struct sl_stop_rule {
    int min_trials;     /* >= 1: the fixed count, or the least with stdrel */
    int max_trials;     /* cap with stdrel (and the array the caller sizes) */
    double stdrel;      /* target relative standard error of the median, as a fraction (0.005 = 0.5%); 0: fixed */
    double max_time_s;  /* stop once this much time has gone by since the first trial; 0: no limit */
} sl_stop_rule;

typedef enum sl_stop_reason {
    SL_STOP_TRIALS = 0, /* the fixed count (or the minimum met a noise already low enough) */
    SL_STOP_NOISE,      /* the noise fell below stdrel */
    SL_STOP_TIME,       /* max_time_s ran out first */
    SL_STOP_CAP,        /* max_trials reached first */
    SL_STOP_INTERRUPT,  /* asked to stop */
    SL_STOP_ERROR       /* a trial failed */
} sl_stop_reason;

const char *sl_stop_reason_name(sl_stop_reason r); /* "trials", "noise", "max-time", "max-trials", ... */

/* The relative standard error of the median of t[0..n) (see above); 0 for
 * n < 2 or a zero median; -1 if out of memory. */
double sl_median_rse(const double *t, int n);

/* One trial: its time in ms into *ms. */
typedef sl_status (*sl_trial_fn)(void *user, double *ms);
/* Seconds since an arbitrary start (CLOCK_MONOTONIC in the harness). */
typedef double (*sl_clock_fn)(void *user);
/* Stop early when it returns true (an interrupt). May be NULL. */
typedef bool (*sl_stop_fn)(void *user);

/* Run trials into t[] (room for rule->max_trials, or min_trials when
 * fixed) by the rule. *n gets the trials taken, *noise the final relative
 * standard error of the median, *why the reason it stopped. Returns the
 * first failing trial's status, else SL_OK. The noise is checked after
 * every trial up to 64, then every n/16 trials. */
sl_status sl_time_by_rule(const sl_stop_rule *rule, sl_trial_fn trial, sl_clock_fn clock, sl_stop_fn stop,
                          void *user, double *t, int *n, double *noise, sl_stop_reason *why);

#endif /* SL_STOPRULE_H */
