/*
 * test_relsize.c - sizes relative to the machine (src/lab/relsize.h):
 * parsing, and resolution against a made-up H200-like device whose
 * answers are worked out by hand here (L2 = 62914560 B, memory 150 GB).
 */
#include "check.h"
#include "relsize.h"

#include <string.h>

int main(void)
{
    sl_size_spec s[8];
    char why[256] = "";
    int n = sl_parse_size_specs("0.5xL2,4xL2,25%mem,2^20,10M", s, 8, why, sizeof why);
    CHECK(n == 5, "%d specs (%s)", n, why);
    CHECK(s[0].kind == SL_SIZE_L2 && s[0].factor == 0.5, "0.5xL2");
    CHECK(s[2].kind == SL_SIZE_MEM && s[2].factor == 0.25, "25%%mem: factor %g", s[2].factor);
    CHECK(s[3].kind == SL_SIZE_ABS && s[3].n == 1048576 && s[4].n == 10000000, "counts");
    CHECK(sl_size_specs_relative(s, 5) && !sl_size_specs_relative(s + 3, 2), "relative or not");
    const char *bad[] = {"0xL2", "xL2", "1xL3", "150%mem", "-2%mem", "1e400xL2", "4xL2,", "", "nan%mem"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CHECK(sl_parse_size_specs(bad[i], s, 8, why, sizeof why) < 0, "'%s' accepted", bad[i]);

    sl_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    snprintf(ctx.info.name, sizeof ctx.info.name, "test GPU");
    ctx.info.l2_bytes = 62914560;
    ctx.info.mem_total = 150000000000ULL;
    const sl_op_desc *add = sl_op_find("add"), *copy = sl_op_find("copy");
    CHECK(add && copy, "ops");
    sl_parse_size_specs("4xL2,0.5xL2,25%mem,123", s, 8, why, sizeof why);
    /* add f32: a, b, c at 4 B = 12 B per element */
    CHECK(sl_size_resolve(&s[0], &ctx, add, SL_F32, why, sizeof why) == 20971520, "4xL2 add f32");
    /* add bf16: 6 B per element: floor(31457280 / 6) */
    CHECK(sl_size_resolve(&s[1], &ctx, add, SL_BF16, why, sizeof why) == 5242880, "0.5xL2 add bf16");
    /* copy f64: 16 B per element: floor(0.25 x 150e9 / 16) = 2343750000 */
    CHECK(sl_size_resolve(&s[2], &ctx, copy, SL_F64, why, sizeof why) == 2343750000ULL, "25%%mem copy f64");
    CHECK(sl_size_resolve(&s[3], &ctx, add, SL_F32, why, sizeof why) == 123, "a count stays");
    ctx.info.l2_bytes = 0;
    CHECK(sl_size_resolve(&s[0], &ctx, add, SL_F32, why, sizeof why) == 0 && strstr(why, "L2"),
          "no L2 size: %s", why);
    return check_exit("test_relsize");
}
