/* Summary statistics (src/core/stats.c) against hand-computed values. */
#include "check.h"
#include "stats.h"

#include <math.h>

#define NEAR(x, y) (fabs((x) - (y)) <= 1e-12 * (1.0 + fabs(y)))

int main(void)
{
    sl_stats s;
    double odd[] = {5.0, 1.0, 3.0, 2.0, 4.0};
    CHECK(sl_stats_compute(odd, 5, &s) == 0, "compute failed");
    CHECK(s.count == 5, "count %zu", s.count);
    CHECK(NEAR(s.mean, 3.0), "mean %g", s.mean);
    CHECK(NEAR(s.sd, sqrt(2.5)), "sd %g (sample sd of 1..5 is sqrt(2.5))", s.sd);
    CHECK(s.min == 1.0 && s.max == 5.0, "min %g max %g", s.min, s.max);
    CHECK(s.median == 3.0, "median %g", s.median);
    CHECK(odd[0] == 5.0 && odd[1] == 1.0, "input was reordered");

    double even[] = {10.0, 2.0, 4.0, 8.0};
    sl_stats_compute(even, 4, &s);
    CHECK(NEAR(s.median, 6.0), "even median %g", s.median);
    CHECK(NEAR(s.mean, 6.0), "even mean %g", s.mean);
    CHECK(NEAR(s.sd, sqrt(40.0 / 3.0)), "even sd %g", s.sd);

    double one[] = {0.25};
    sl_stats_compute(one, 1, &s);
    CHECK(s.sd == 0.0 && s.median == 0.25 && s.mean == 0.25, "single value");

    sl_stats_compute(NULL, 0, &s);
    CHECK(s.count == 0 && s.mean == 0.0, "empty");

    /* Large offset, tiny spread: the two-pass variance keeps it. */
    double tight[] = {1e9 + 1, 1e9 + 2, 1e9 + 3};
    sl_stats_compute(tight, 3, &s);
    CHECK(NEAR(s.sd, 1.0), "sd with offset %g", s.sd);
    return check_exit("test_stats");
}
