/*
 * stoprule.c - see stoprule.h.
 */
#include "stoprule.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SL_PI 3.14159265358979323846

const char *sl_stop_reason_name(sl_stop_reason r)
{
    switch (r) {
    case SL_STOP_TRIALS: return "trials";
    case SL_STOP_NOISE: return "noise";
    case SL_STOP_TIME: return "max-time";
    case SL_STOP_CAP: return "max-trials";
    case SL_STOP_INTERRUPT: return "interrupted";
    default: return "error";
    }
}

static int cmp_double(const void *p, const void *q)
{
    double a = *(const double *)p, b = *(const double *)q;
    return (a > b) - (a < b);
}

static double median_sorted(const double *s, int n)
{
    return n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
}

double sl_median_rse(const double *t, int n)
{
    if (n < 2)
        return 0.0;
    double *s = malloc((size_t)n * sizeof *s);
    if (!s)
        return -1.0;
    memcpy(s, t, (size_t)n * sizeof *s);
    qsort(s, (size_t)n, sizeof *s, cmp_double);
    const double med = median_sorted(s, n);
    for (int i = 0; i < n; i++)
        s[i] = fabs(s[i] - med);
    qsort(s, (size_t)n, sizeof *s, cmp_double);
    const double mad = median_sorted(s, n);
    free(s);
    if (med <= 0)
        return 0.0;
    const double sigma = 1.4826 * mad;                        /* MAD -> sigma for normal samples */
    const double se = sqrt(SL_PI / 2.0) * sigma / sqrt((double)n); /* Kendall & Stuart 10.10 */
    return se / med;
}

sl_status sl_time_by_rule(const sl_stop_rule *rule, sl_trial_fn trial, sl_clock_fn clock, sl_stop_fn stop,
                          void *user, double *t, int *n, double *noise, sl_stop_reason *why)
{
    const bool adaptive = rule->stdrel > 0;
    const int cap = adaptive ? (rule->max_trials > rule->min_trials ? rule->max_trials : rule->min_trials)
                             : rule->min_trials;
    const double t0 = clock(user);
    int done = 0, next_check = rule->min_trials;
    sl_status st = SL_OK;
    *why = SL_STOP_TRIALS;
    *noise = 0.0;
    for (;;) {
        if (stop && stop(user)) {
            *why = SL_STOP_INTERRUPT;
            break;
        }
        if ((st = trial(user, &t[done])) != SL_OK) {
            *why = SL_STOP_ERROR;
            break;
        }
        done++;
        const double elapsed = clock(user) - t0;
        if (!adaptive) {
            if (done >= cap)
                break; /* SL_STOP_TRIALS */
            if (rule->max_time_s > 0 && elapsed >= rule->max_time_s) {
                *why = SL_STOP_TIME;
                break;
            }
            continue;
        }
        if (done >= next_check) {
            const double rse = sl_median_rse(t, done);
            if (rse >= 0 && rse < rule->stdrel) {
                *why = done == rule->min_trials ? SL_STOP_TRIALS : SL_STOP_NOISE;
                break;
            }
            next_check = done < 64 ? done + 1 : done + done / 16;
        }
        if (done >= cap) {
            *why = SL_STOP_CAP;
            break;
        }
        if (rule->max_time_s > 0 && elapsed >= rule->max_time_s && done >= rule->min_trials) {
            *why = SL_STOP_TIME;
            break;
        }
    }
    *n = done;
    if (done > 1) {
        const double rse = sl_median_rse(t, done);
        *noise = rse > 0 ? rse : 0.0;
    }
    return st;
}
