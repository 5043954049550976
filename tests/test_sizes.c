/* The size and shape parsers and the formatter (src/core/sizes.c). The
 * expected values are worked out by hand in the comments, not by the code
 * under test. */
#include "check.h"
#include "sizes.h"

#include <string.h>

static void ok(const char *s, uint64_t want)
{
    uint64_t v = 0;
    char why[160] = "";
    int rc = sl_parse_count(s, &v, why, sizeof why);
    CHECK(rc == 0 && v == want, "'%s' -> rc %d, %llu (want %llu) %s", s, rc, (unsigned long long)v,
          (unsigned long long)want, why);
}

static void bad(const char *s, const char *reason_part)
{
    uint64_t v = 12345;
    char why[160] = "";
    int rc = sl_parse_count(s, &v, why, sizeof why);
    CHECK(rc == -1, "'%s' was accepted as %llu", s, (unsigned long long)v);
    CHECK(strstr(why, reason_part) != NULL, "'%s': reason '%s' lacks '%s'", s, why, reason_part);
}

static void shape_ok(const char *s, uint64_t rows, uint64_t cols, uint64_t ld)
{
    sl_shape sh = {0, 0, 0, 7};
    char why[160] = "";
    int rc = sl_parse_shape(s, &sh, why, sizeof why);
    CHECK(rc == 0 && sh.rows == rows && sh.cols == cols && sh.ld == ld && sh.k == 0,
          "shape '%s' -> rc %d, %llux%llu:%llu (want %llux%llu:%llu) %s", s, rc, (unsigned long long)sh.rows,
          (unsigned long long)sh.cols, (unsigned long long)sh.ld, (unsigned long long)rows,
          (unsigned long long)cols, (unsigned long long)ld, why);
}

static void shape_bad(const char *s, const char *reason_part)
{
    sl_shape sh = {7, 7, 7, 7};
    char why[160] = "";
    int rc = sl_parse_shape(s, &sh, why, sizeof why);
    CHECK(rc == -1, "shape '%s' was accepted as %llux%llu:%llu", s, (unsigned long long)sh.rows,
          (unsigned long long)sh.cols, (unsigned long long)sh.ld);
    CHECK(sh.rows == 7 && sh.cols == 7 && sh.ld == 7, "shape '%s': output written on failure", s);
    CHECK(strstr(why, reason_part) != NULL, "shape '%s': reason '%s' lacks '%s'", s, why, reason_part);
    CHECK(strchr(why, '\n') == NULL, "shape '%s': reason is not one line", s);
}

static void shapes(void)
{
    /* 1-D: {1, n, n} */
    shape_ok("2^28", 1, 268435456, 268435456);
    shape_ok("10M", 1, 10000000, 10000000);
    shape_ok("64Ki", 1, 65536, 65536);
    shape_ok("1", 1, 1, 1);
    shape_ok("1048579", 1, 1048579, 1048579);
    /* 2-D packed: ld = cols */
    shape_ok("8192x8192", 8192, 8192, 8192);
    shape_ok("4Kix4Ki", 4096, 4096, 4096);
    shape_ok("2^13x2^13", 8192, 8192, 8192);
    shape_ok("3X5", 3, 5, 5);
    shape_ok("1x1", 1, 1, 1);
    shape_ok("1e3x2.5K", 1000, 2500, 2500);
    shape_ok("4096x2^15", 4096, 32768, 32768);
    /* padded rows */
    shape_ok("4096x1000:1024", 4096, 1000, 1024);
    shape_ok("1023x7:7", 1023, 7, 7);
    shape_ok("4Kix4Ki:4160", 4096, 4096, 4160);
    /* fuzz_shape: a side of 64+ characters that sl_parse_count takes alone
     * (leading zeros) was refused as "too long" */
    shape_ok("00000000000000000000000000000000000000000000000000000000000000004K", 1, 4000, 4000);
    shape_ok("3x000000000000000000000000000000000000000000000000000000000000000000007:0000000000000000000000000000000000000000000000000000000000000000000008",
             3, 7, 8);
    /* the 64-bit edges: 1 x (2^64 - 1) spans 0 x ld + cols = 2^64 - 1 */
    shape_ok("1x18446744073709551615", 1, 18446744073709551615ull, 18446744073709551615ull);
    shape_ok("18446744073709551615x1", 18446744073709551615ull, 1, 1);
    /* 2^32 x 2^31 with ld 2^32: (2^32 - 1) x 2^32 + 2^31 = 2^64 - 2^31 fits */
    shape_ok("2^32x2^31:2^32", 4294967296ull, 2147483648ull, 4294967296ull);
    /* 2 x 1 with ld 2^63: span 2^63 + 1 */
    shape_ok("2x1:2^63", 2, 1, 9223372036854775808ull);
    {
        /* MxNxK: matmul's three extents, ld = N */
        sl_shape sh;
        char why[160] = "";
        CHECK(sl_parse_shape("33x17x65", &sh, why, sizeof why) == 0 && sh.rows == 33 && sh.cols == 17 &&
                  sh.ld == 17 && sh.k == 65,
              "MxNxK: %s", why);
        CHECK(sl_parse_shape("4Kix2^10", &sh, why, sizeof why) == 0 && sh.k == 0, "2-D shape has k = 0");
        char text[64];
        sl_format_shape(&sh, text, sizeof text);
        CHECK(strcmp(text, "2^12x2^10") == 0, "sl_format_shape 2-D: '%s'", text);
        sl_shape m = {33, 17, 17, 65};
        sl_format_shape(&m, text, sizeof text);
        CHECK(strcmp(text, "33x17x65") == 0, "sl_format_shape MxNxK: '%s'", text);
        sl_shape p = {8, 7, 9, 0};
        sl_format_shape(&p, text, sizeof text);
        CHECK(strcmp(text, "8x7:9") == 0, "sl_format_shape with ld: '%s'", text);
        sl_shape one = sl_shape_1d(1000003);
        sl_format_shape(&one, text, sizeof text);
        CHECK(strcmp(text, "1000003") == 0, "sl_format_shape 1-D: '%s'", text);
    }

    shape_bad("", "empty shape");
    shape_bad(NULL, "empty shape");
    shape_bad("x8", "rows: missing");
    shape_bad("8x", "cols: missing");
    shape_bad("10Mx", "cols: missing");
    shape_bad("8x8:", "ld: missing");
    shape_bad("x", "rows: missing");
    shape_bad("8x8x8x8", "more than two 'x'");
    shape_bad("8x8x8:9", "takes no leading dimension");
    shape_bad("8x8:9x8", "takes no leading dimension");
    shape_bad("8x8x", "k: missing");
    shape_bad("8x8x0", "k: a size must be at least 1");
    shape_bad("2^40x1x2^40", "rows x k or k x cols");
    shape_bad("8x8:9:10", "more than one ':'");
    shape_bad("8:9", "needs two sides");
    shape_bad(":9", "needs two sides");
    shape_bad("8:9x4", "':' before 'x'");
    shape_bad("0x8", "rows: a size must be at least 1");
    shape_bad("8x0", "cols: a size must be at least 1");
    shape_bad("8x8:0", "ld: a size must be at least 1");
    shape_bad("0", "at least 1");
    shape_bad("8x8:4", "ld must be at least cols");
    shape_bad("1e3x1e3:1e2", "ld must be at least cols");
    shape_bad("8x8junk", "cols: unknown suffix");
    shape_bad("8x8 ", "cols: unknown suffix");
    shape_bad("8 x8", "rows: unknown suffix");
    shape_bad("8x1.5", "cols: not a whole number");
    shape_bad("-1x8", "rows: not a number");
    shape_bad("8x2^64", "cols: too large");
    shape_bad("1111111111111111111111111111111111111111111111111111111111111111111111x1", "rows: too large");
    /* 2^32 x 2^32 = 2^64: one past the top */
    shape_bad("2^32x2^32", "rows x cols above 2^64 - 1");
    shape_bad("2x2^63:2^63", "rows x cols above 2^64 - 1");
    /* (2^32 - 1) x 2^33 = 2^65 - 2^33: the product overflows */
    shape_bad("2^32x2^31:2^33", "span");
    /* 3 x 1 with ld 2^63: 2 x 2^63 = 2^64 */
    shape_bad("3x1:2^63", "span");
    /* 2 x (2^63 - 1) with ld 2^64 - 1: rows x cols = 2^64 - 2 fits, the
     * span (2^64 - 1) + (2^63 - 1) does not: the addition overflows */
    shape_bad("2x9223372036854775807:18446744073709551615", "span");

    sl_shape list[4];
    char why[160];
    int n = sl_parse_shape_list("1024x1024,4Kix4Ki:4160,2^20", list, 4, why, sizeof why);
    CHECK(n == 3, "shape list: %d %s", n, why);
    if (n == 3) {
        CHECK(list[0].rows == 1024 && list[0].cols == 1024 && list[0].ld == 1024, "shape list [0]");
        CHECK(list[1].rows == 4096 && list[1].cols == 4096 && list[1].ld == 4160, "shape list [1]");
        CHECK(list[2].rows == 1 && list[2].cols == 1048576 && list[2].ld == 1048576, "shape list [2]");
    }
    n = sl_parse_shape_list("8x8", list, 4, why, sizeof why);
    CHECK(n == 1 && list[0].rows == 8 && list[0].ld == 8, "one-item shape list: %d", n);
    n = sl_parse_shape_list("8x8,,1", list, 4, why, sizeof why);
    CHECK(n == -1 && strstr(why, "empty item"), "shape list empty item: %d '%s'", n, why);
    n = sl_parse_shape_list("8x8,", list, 4, why, sizeof why);
    CHECK(n == -1 && strstr(why, "empty item"), "shape list trailing comma: %d '%s'", n, why);
    n = sl_parse_shape_list(",8x8", list, 4, why, sizeof why);
    CHECK(n == -1 && strstr(why, "empty item"), "shape list leading comma: %d '%s'", n, why);
    n = sl_parse_shape_list("", list, 4, why, sizeof why);
    CHECK(n == -1 && strstr(why, "empty shape list"), "empty shape list: %d '%s'", n, why);
    n = sl_parse_shape_list("8x8,8x", list, 4, why, sizeof why);
    CHECK(n == -1 && strcmp(why, "bad shape '8x': cols: missing (expected N, ROWSxCOLS or ROWSxCOLS:LD)") == 0,
          "shape list names the item: '%s'", why);
    n = sl_parse_shape_list("1,2,3", list, 2, why, sizeof why);
    CHECK(n == -1 && strstr(why, "too many shapes (at most 2)"), "shape list too many: '%s'", why);

    /* A short why is cut, terminated, and nothing past it is written. */
    char small[12];
    memset(small, '#', sizeof small);
    CHECK(sl_parse_shape("8x8x8x8", &list[0], small, 8) == -1, "short why: rejected");
    CHECK(strcmp(small, "more th") == 0 && small[8] == '#' && small[11] == '#', "short why: '%.8s'", small);
    memset(small, '#', sizeof small);
    CHECK(sl_parse_shape_list("1,zz", list, 4, small, 8) == -1, "short why, list: rejected");
    CHECK(strcmp(small, "bad sha") == 0 && small[8] == '#', "short why, list: '%.8s'", small);
    CHECK(sl_parse_shape("x", &list[0], NULL, 0) == -1, "why NULL");
    CHECK(sl_parse_shape_list("x", list, 4, NULL, 0) == -1, "why NULL, list");
}

static void fmt(uint64_t n, const char *want)
{
    char buf[32];
    sl_format_count(n, buf, sizeof buf);
    CHECK(strcmp(buf, want) == 0, "format %llu -> '%s', want '%s'", (unsigned long long)n, buf, want);
}

int main(void)
{
    ok("1", 1);
    ok("1023", 1023);
    ok("10M", 10000000);
    ok("100m", 100000000);
    ok("200M", 200000000);
    ok("2G", 2000000000);
    ok("5K", 5000);
    ok("64Ki", 65536);
    ok("1Mi", 1048576);
    ok("2gi", 2147483648ull);
    ok("2^28", 268435456);
    ok("2^0", 1);
    ok("3^4", 81);
    ok("1e6", 1000000);
    ok("2.5e6", 2500000);
    ok("1.5M", 1500000);
    ok("1.5Ki", 1536);
    ok("1e0", 1);
    ok("2^63", 9223372036854775808ull);
    ok("18446744073709551615", 18446744073709551615ull);

    bad("", "empty");
    bad("abc", "not a number");
    bad("10X", "unknown suffix");
    bad("10Mx", "unexpected characters");
    bad("0", "at least 1");
    bad("2^64", "too large");
    bad("18446744073709551616", "too large");
    bad("1.5", "whole number");
    bad("1e-3", "whole number");
    bad("2^", "exponent");
    bad("^3", "base");
    bad("2^1.5", "exponent");
    bad("-5", "not a number");
    bad("1e", "exponent");
    bad("99999999999999999999999", "too large");
    bad("1.00000000000000000001", "decimal point");

    uint64_t list[8];
    char why[160];
    int n = sl_parse_count_list("10M,2^20,1e3", list, 8, why, sizeof why);
    CHECK(n == 3 && list[0] == 10000000 && list[1] == 1048576 && list[2] == 1000, "list parse: %d", n);
    n = sl_parse_count_list("10M,,5", list, 8, why, sizeof why);
    CHECK(n == -1 && strstr(why, "empty item"), "empty item: %d '%s'", n, why);
    n = sl_parse_count_list("10M,zz", list, 8, why, sizeof why);
    CHECK(n == -1 && strstr(why, "'zz'"), "bad item named: '%s'", why);
    n = sl_parse_count_list("1,2,3", list, 2, why, sizeof why);
    CHECK(n == -1 && strstr(why, "too many"), "too many: '%s'", why);

    fmt(10000000, "10M");
    fmt(200000000, "200M");
    fmt(1u << 28, "2^28");
    fmt(1048579, "1048579");
    fmt(1, "1");
    fmt(1000, "1K");
    fmt(3000000000ull, "3G");

    shapes();

    char b[32];
    sl_format_bytes(60.0 * 1024 * 1024, b, sizeof b);
    CHECK(strcmp(b, "60.0 MiB") == 0, "bytes: '%s'", b);
    sl_format_bytes(512, b, sizeof b);
    CHECK(strcmp(b, "512 B") == 0, "bytes: '%s'", b);
    return check_exit("test_sizes");
}
