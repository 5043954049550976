/* The size parser and formatter (src/core/sizes.c). */
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

    char b[32];
    sl_format_bytes(60.0 * 1024 * 1024, b, sizeof b);
    CHECK(strcmp(b, "60.0 MiB") == 0, "bytes: '%s'", b);
    sl_format_bytes(512, b, sizeof b);
    CHECK(strcmp(b, "512 B") == 0, "bytes: '%s'", b);
    return check_exit("test_sizes");
}
