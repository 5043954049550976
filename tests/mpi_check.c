/*
 * mpi_check FILE STATUS RANKS MIN_ROWS [FAILED_RANK]
 *
 * Used by test_mpi.sh: read the JSON of `mpirun -np K streamlab run` and
 * check it against itself from the raw numbers, not the figures it prints:
 *   - schema streamlab.mpirun/1, the expected status, RANKS ranks, one
 *     device record per rank (host, device, local rank);
 *   - at least MIN_ROWS rows; each ok row has one entry per rank, and its
 *     per-rank GB/s (bytes / median time), min / median / max across ranks,
 *     the aggregate (per trial: every rank's bytes over the slowest rank's
 *     time; the median over trials) and aggregate / (K x single) are
 *     recomputed here from the per-rank bytes and trial times;
 *   - every distributed dot that ran: |result - reference| <= bound,
 *     total >= local, and the GB/s figures recomputed;
 *   - with FAILED_RANK: the failing row names that rank and its host.
 */
#include "check.h"
#include "internal.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static double num(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static const char *str(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsString(v) ? v->valuestring : "";
}

static int close_to(double a, double b, double rel)
{
    return fabs(a - b) <= rel * fabs(b) + 1e-12;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *x, int n)
{
    qsort(x, (size_t)n, sizeof *x, cmp);
    return n % 2 ? x[n / 2] : 0.5 * (x[n / 2 - 1] + x[n / 2]);
}

static void check_row(const cJSON *row, int ranks)
{
    const char *variant = str(row, "variant");
    const cJSON *per = cJSON_GetObjectItemCaseSensitive(row, "per_rank");
    CHECK(cJSON_GetArraySize(per) == ranks, "%s: %d per-rank entries, want %d", variant, cJSON_GetArraySize(per),
          ranks);
    if (cJSON_GetArraySize(per) != ranks)
        return;
    double g[64], bytes = 0, t_med[1024];
    int trials = 1 << 30;
    for (int r = 0; r < ranks && r < 64; r++) {
        const cJSON *e = cJSON_GetArrayItem(per, r);
        CHECK(num(e, "rank") == r && str(e, "host")[0], "%s: per_rank[%d] names rank and host", variant, r);
        CHECK(strcmp(str(e, "status"), "ok") == 0, "%s: rank %d status %s", variant, r, str(e, "status"));
        const double b = num(e, "bytes"), med = num(e, "median_ms");
        CHECK(b > 0 && med > 0, "%s: rank %d bytes %g, median %g ms", variant, r, b, med);
        g[r] = b / (med * 1e6);
        CHECK(close_to(num(e, "gbs"), g[r], 1e-9), "%s: rank %d gbs %g, bytes / median = %g", variant, r,
              num(e, "gbs"), g[r]);
        const cJSON *t = cJSON_GetObjectItemCaseSensitive(e, "times_ms");
        int n = cJSON_GetArraySize(t);
        CHECK(n == (int)num(e, "trials") && n > 0, "%s: rank %d has %d times for %g trials", variant, r, n,
              num(e, "trials"));
        trials = n < trials ? n : trials;
        double tt[1024];
        for (int i = 0; i < n && i < 1024; i++)
            tt[i] = cJSON_GetArrayItem(t, i)->valuedouble;
        CHECK(close_to(median(tt, n < 1024 ? n : 1024), med, 1e-9), "%s: rank %d median_ms is not its times' median",
              variant, r);
        bytes += b;
        CHECK(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e, "check_before_ok")) &&
                  cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e, "check_after_ok")),
              "%s: rank %d checks", variant, r);
    }
    double sorted[64];
    memcpy(sorted, g, sizeof sorted);
    const double med = median(sorted, ranks);
    const cJSON *pg = cJSON_GetObjectItemCaseSensitive(row, "per_rank_gbs");
    CHECK(close_to(num(pg, "min"), sorted[0], 1e-9) && close_to(num(pg, "max"), sorted[ranks - 1], 1e-9) &&
              close_to(num(pg, "median"), med, 1e-9),
          "%s: per-rank min/median/max %g/%g/%g, recomputed %g/%g/%g", variant, num(pg, "min"), num(pg, "median"),
          num(pg, "max"), sorted[0], med, sorted[ranks - 1]);
    /* the aggregate, trial by trial */
    double agg[1024];
    for (int i = 0; i < trials && i < 1024; i++) {
        double worst = 0;
        for (int r = 0; r < ranks; r++) {
            const cJSON *t = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(per, r), "times_ms");
            double v = cJSON_GetArrayItem(t, i)->valuedouble;
            worst = v > worst ? v : worst;
        }
        t_med[i] = worst;
        agg[i] = bytes / (worst * 1e6);
    }
    const double a = median(agg, trials);
    CHECK(close_to(num(row, "aggregate_gbs"), a, 1e-9), "%s: aggregate %g, recomputed %g", variant,
          num(row, "aggregate_gbs"), a);
    CHECK(close_to(num(row, "aggregate_time_ms"), median(t_med, trials), 1e-9), "%s: aggregate time", variant);
    /* The aggregate can exceed no rank's share by more than K: it is at
     * most the sum of each rank's bytes over the slowest time. */
    CHECK(a <= ranks * sorted[ranks - 1] * 1.01 + 1e-9,
          "%s: aggregate %g above K x the fastest rank %g", variant, a, sorted[ranks - 1]);
    const double single = num(row, "single_rank_gbs"), eff = num(row, "aggregate_over_k_single");
    if (!isnan(single)) {
        CHECK(single > 0 && close_to(eff, a / (ranks * single), 1e-9), "%s: aggregate / (K x single) %g, recomputed %g",
              variant, eff, a / (ranks * single));
        double s[64];
        int ns = 0;
        for (int r = 0; r < ranks; r++) {
            double v = num(cJSON_GetArrayItem(per, r), "single_rank_gbs");
            if (!isnan(v))
                s[ns++] = v;
        }
        CHECK(ns > 0 && close_to(single, median(s, ns), 1e-9), "%s: single-rank figure is not the ranks' median",
              variant);
    }
}

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: mpi_check FILE STATUS RANKS MIN_ROWS [FAILED_RANK]\n");
        return 2;
    }
    size_t len = 0;
    char *text = sl_read_file(argv[1], &len);
    CHECK(text != NULL, "cannot read %s", argv[1]);
    if (!text)
        return check_exit("mpi_check");
    cJSON *root = cJSON_Parse(text);
    CHECK(root != NULL, "%s is not valid JSON", argv[1]);
    if (!root)
        return check_exit("mpi_check");
    const int ranks = atoi(argv[3]), min_rows = atoi(argv[4]), failed = argc > 5 ? atoi(argv[5]) : -1;
    CHECK(strcmp(str(root, "schema"), "streamlab.mpirun/1") == 0, "schema '%s'", str(root, "schema"));
    CHECK(strcmp(str(root, "status"), argv[2]) == 0, "status '%s', want '%s' (error: %s)", str(root, "status"), argv[2],
          str(root, "error"));
    CHECK(num(root, "ranks") == ranks, "ranks %g, want %d", num(root, "ranks"), ranks);
    const cJSON *devs = cJSON_GetObjectItemCaseSensitive(root, "rank_devices");
    CHECK(cJSON_GetArraySize(devs) == ranks, "%d device records, want %d", cJSON_GetArraySize(devs), ranks);
    for (int r = 0; r < cJSON_GetArraySize(devs); r++) {
        const cJSON *d = cJSON_GetArrayItem(devs, r);
        const cJSON *dev = cJSON_GetObjectItemCaseSensitive(d, "device");
        CHECK(num(d, "rank") == r && str(d, "host")[0] && num(d, "local_rank") >= 0 && str(dev, "name")[0] &&
                  str(dev, "backend")[0],
              "device record %d incomplete", r);
    }
    const cJSON *rows = cJSON_GetObjectItemCaseSensitive(root, "rows");
    const int n = cJSON_GetArraySize(rows);
    CHECK(n >= min_rows, "%d rows, want at least %d", n, min_rows);
    int ok_rows = 0, saw_failed = 0;
    const cJSON *row;
    cJSON_ArrayForEach(row, rows)
    {
        const char *st = str(row, "status");
        if (strcmp(st, "ok") == 0) {
            check_row(row, ranks);
            ok_rows++;
        } else if (strcmp(st, "failed") == 0) {
            saw_failed = 1;
            CHECK(failed >= 0, "row %s failed: %s", str(row, "variant"), str(row, "message"));
            if (failed >= 0) {
                char want[64];
                snprintf(want, sizeof want, "rank %d (host ", failed);
                CHECK(num(row, "failed_rank") == failed && strstr(str(row, "message"), want) &&
                          str(row, "failed_host")[0],
                      "the failed row names rank %g (%s), want rank %d: %s", num(row, "failed_rank"),
                      str(row, "failed_host"), failed, str(row, "message"));
            }
        }
    }
    CHECK(failed < 0 || saw_failed || strstr(str(root, "error"), "distributed dot"), "no failed row");
    CHECK(ok_rows > 0 || failed >= 0, "no ok row");
    const cJSON *dots = cJSON_GetObjectItemCaseSensitive(root, "distributed_dot");
    const cJSON *d;
    cJSON_ArrayForEach(d, dots)
    {
        if (strcmp(str(d, "status"), "ok") != 0)
            continue;
        const double err = fabs(num(d, "result") - num(d, "reference"));
        CHECK(close_to(num(d, "abs_error"), err, 1e-6) || err <= num(d, "abs_error"), "dot: abs_error");
        CHECK(err <= num(d, "bound") && num(d, "bound") > 0, "dot: |%.17g - %.17g| = %g > bound %g", num(d, "result"),
              num(d, "reference"), err, num(d, "bound"));
        /* the bound must be a real constraint: far below the sum of |a b| */
        CHECK(num(d, "bound") < 1e-3 * num(d, "sum_abs_products"), "dot: bound %g is not tight (sum|ab| %g)",
              num(d, "bound"), num(d, "sum_abs_products"));
        CHECK(num(d, "total_ms") >= num(d, "local_ms") && num(d, "allreduce_ms") > 0, "dot: time split");
        CHECK(close_to(num(d, "aggregate_gbs_local"), ranks * num(d, "bytes_per_rank") / (num(d, "local_ms") * 1e6), 1e-9),
              "dot: aggregate_gbs_local");
        CHECK(strlen(str(d, "transport")) > 0, "dot: transport");
    }
    cJSON_Delete(root);
    free(text);
    return check_exit("mpi_check");
}
