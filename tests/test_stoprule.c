/*
 * test_stoprule.c - the noise-aware stop rule (src/lab/stoprule.h), driven
 * by synthetic timers and a synthetic clock through the same loop the
 * harness runs (sl_time_by_rule):
 *   - a noisy timer (5% Gaussian noise) stops by the rule: its noise, which
 *     this test recomputes with its own median/MAD code, is below stdrel at
 *     the stop and was not at any earlier count;
 *   - a quiet timer (1e-6 relative jitter) stops at the minimum;
 *   - --max-time, the trial cap, a fixed count, an interrupt and a failing
 *     trial each stop the loop where they should.
 */
#include "check.h"
#include "stoprule.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct synth {
    uint64_t state;
    double base_ms, rel_noise;
    double now_s, step_s; /* the synthetic clock advances step_s per trial */
    int calls, stop_after, fail_at;
} synth;

static double uniform(synth *s)
{
    s->state = s->state * 6364136223846793005ULL + 1442695040888963407ULL; /* Knuth's MMIX LCG */
    return ((double)(s->state >> 11) + 0.5) / 9007199254740992.0;
}

static sl_status trial(void *user, double *ms)
{
    synth *s = user;
    s->calls++;
    if (s->fail_at && s->calls == s->fail_at)
        return SL_ERR_CUDA;
    /* Box-Muller: one standard normal deviate */
    const double u1 = uniform(s), u2 = uniform(s);
    const double z = sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
    *ms = s->base_ms * (1.0 + s->rel_noise * z);
    s->now_s += s->step_s;
    return SL_OK;
}

static double clock_fn(void *user)
{
    return ((synth *)user)->now_s;
}

static bool stop_fn(void *user)
{
    synth *s = user;
    return s->stop_after && s->calls >= s->stop_after;
}

/* The test's own relative standard error of the median: insertion sort,
 * median, MAD, sqrt(pi/2) x 1.4826 x MAD / sqrt(n) / median. */
static double ref_rse(const double *t, int n)
{
    double *a = malloc((size_t)n * sizeof *a);
    memcpy(a, t, (size_t)n * sizeof *a);
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && a[j - 1] > a[j]; j--) {
            double x = a[j];
            a[j] = a[j - 1];
            a[j - 1] = x;
        }
    const double med = n % 2 ? a[n / 2] : (a[n / 2 - 1] + a[n / 2]) / 2;
    for (int i = 0; i < n; i++)
        a[i] = fabs(a[i] - med);
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && a[j - 1] > a[j]; j--) {
            double x = a[j];
            a[j] = a[j - 1];
            a[j - 1] = x;
        }
    const double mad = n % 2 ? a[n / 2] : (a[n / 2 - 1] + a[n / 2]) / 2;
    free(a);
    return sqrt(acos(-1.0) / 2) * 1.4826 * mad / sqrt((double)n) / med;
}

int main(void)
{
    enum { CAP = 100000 };
    double *t = malloc(CAP * sizeof *t);
    int n;
    double noise;
    sl_stop_reason why;

    /* Noisy: 5% noise, target 1%: about (1.2533 x 0.05 / 0.01)^2 = 39 trials. */
    for (uint64_t seed = 1; seed <= 5; seed++) {
        synth s = {.state = seed, .base_ms = 1.0, .rel_noise = 0.05, .step_s = 1e-3};
        sl_stop_rule r = {.min_trials = 10, .max_trials = CAP, .stdrel = 0.01, .max_time_s = 60};
        sl_status st = sl_time_by_rule(&r, trial, clock_fn, stop_fn, &s, t, &n, &noise, &why);
        CHECK(st == SL_OK, "status %d", (int)st);
        CHECK(why == SL_STOP_NOISE, "seed %llu: stopped by %s", (unsigned long long)seed, sl_stop_reason_name(why));
        CHECK(n > 10 && n < 200, "seed %llu: %d trials", (unsigned long long)seed, n);
        CHECK(s.calls == n, "%d calls for %d trials", s.calls, n);
        const double ref = ref_rse(t, n);
        CHECK(fabs(ref - noise) <= 1e-12 * ref + 1e-15, "noise %.6g, the test's own %.6g", noise, ref);
        CHECK(ref < 0.01, "stopped at %d trials with noise %.4f%%", n, 100 * ref);
        /* below 64 trials the rule looks after every trial: no earlier count met it */
        for (int k = 10; k < n && n <= 64; k++)
            CHECK(ref_rse(t, k) >= 0.01, "at %d trials the noise was already %.4f%%", k, 100 * ref_rse(t, k));
        printf("noisy timer, seed %llu: %d trials, noise %.3f%% (stdrel 1%%)\n", (unsigned long long)seed, n,
               100 * noise);
    }

    /* Quiet: stops at the minimum. */
    {
        synth s = {.state = 7, .base_ms = 0.5, .rel_noise = 1e-6, .step_s = 1e-3};
        sl_stop_rule r = {.min_trials = 10, .max_trials = CAP, .stdrel = 0.005, .max_time_s = 60};
        sl_time_by_rule(&r, trial, clock_fn, stop_fn, &s, t, &n, &noise, &why);
        CHECK(n == 10 && why == SL_STOP_TRIALS, "quiet timer: %d trials, stopped by %s", n, sl_stop_reason_name(why));
        CHECK(noise < 1e-5, "quiet timer noise %.3g", noise);
    }

    /* --max-time: an unreachable target, 0.1 s a trial, 1 s allowed. */
    {
        synth s = {.state = 9, .base_ms = 1.0, .rel_noise = 0.05, .step_s = 0.1};
        sl_stop_rule r = {.min_trials = 3, .max_trials = CAP, .stdrel = 1e-6, .max_time_s = 1.0};
        sl_time_by_rule(&r, trial, clock_fn, stop_fn, &s, t, &n, &noise, &why);
        CHECK(why == SL_STOP_TIME && n >= 10 && n <= 11, "max-time: %d trials, stopped by %s", n,
              sl_stop_reason_name(why));
        CHECK(noise > 1e-6, "max-time: noise %.3g should still be above the target", noise);
    }

    /* The cap. */
    {
        synth s = {.state = 11, .base_ms = 1.0, .rel_noise = 0.05};
        sl_stop_rule r = {.min_trials = 5, .max_trials = 20, .stdrel = 1e-6};
        sl_time_by_rule(&r, trial, clock_fn, stop_fn, &s, t, &n, &noise, &why);
        CHECK(n == 20 && why == SL_STOP_CAP, "cap: %d trials, stopped by %s", n, sl_stop_reason_name(why));
    }

    /* Fixed count (no --stdrel): exactly min_trials, however noisy. */
    {
        synth s = {.state = 13, .base_ms = 1.0, .rel_noise = 0.5};
        sl_stop_rule r = {.min_trials = 7, .max_trials = CAP};
        sl_time_by_rule(&r, trial, clock_fn, stop_fn, &s, t, &n, &noise, &why);
        CHECK(n == 7 && s.calls == 7 && why == SL_STOP_TRIALS, "fixed: %d trials (%d calls), stopped by %s", n,
              s.calls, sl_stop_reason_name(why));
        CHECK(noise > 0, "fixed: the noise is still reported (%.3g)", noise);
    }

    /* Interrupt and failure. */
    {
        synth s = {.state = 15, .base_ms = 1.0, .rel_noise = 0.05, .stop_after = 5};
        sl_stop_rule r = {.min_trials = 10, .max_trials = CAP, .stdrel = 0.01};
        sl_time_by_rule(&r, trial, clock_fn, stop_fn, &s, t, &n, &noise, &why);
        CHECK(n == 5 && why == SL_STOP_INTERRUPT, "interrupt: %d trials, %s", n, sl_stop_reason_name(why));
        synth f = {.state = 17, .base_ms = 1.0, .rel_noise = 0.05, .fail_at = 3};
        sl_status st = sl_time_by_rule(&r, trial, clock_fn, stop_fn, &f, t, &n, &noise, &why);
        CHECK(st == SL_ERR_CUDA && n == 2 && why == SL_STOP_ERROR, "failure: status %d, %d trials, %s", (int)st, n,
              sl_stop_reason_name(why));
    }
    free(t);
    return check_exit("test_stoprule");
}
