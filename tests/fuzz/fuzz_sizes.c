/*
 * fuzz_sizes.c - libFuzzer target for the count parser (src/core/sizes.c):
 * sl_parse_count and sl_parse_count_list on the input as a string.
 *
 * Properties, beyond "no crash, no sanitizer report":
 *   - an accepted count is >= 1, and sl_format_count's text of it parses
 *     back to the same value;
 *   - a rejected count leaves *out alone and gives a non-empty one-line
 *     reason;
 *   - a plain run of digits is accepted exactly when strtoull takes it
 *     without overflow and it is not 0, with strtoull's value;
 *   - the reason cut into a short buffer (0 to 47 bytes) is a prefix of the
 *     full one, terminated, and nothing is written past the buffer (its
 *     guard is poisoned); on success the buffer is not touched;
 *   - an accepted list has one value per comma-separated item, each what
 *     sl_parse_count gives for that item, at most `max` of them, and
 *     nothing is written past out[max - 1].
 */
#include "fuzz_common.h"
#include "sizes.h"

#include <ctype.h>
#include <errno.h>

#define SENTINEL 0x5eed5eed5eed5eedull

static void count(const char *s, size_t small)
{
    uint64_t v = SENTINEL;
    char full[512];
    int rc = sl_parse_count(s, &v, full, sizeof full);
    FUZZ_CHECK(rc == 0 || rc == -1, "sl_parse_count returned %d", rc);
    if (rc == 0) {
        FUZZ_CHECK(v >= 1, "accepted 0");
        char text[32], why[160];
        uint64_t back = 0;
        sl_format_count(v, text, sizeof text);
        FUZZ_CHECK(sl_parse_count(text, &back, why, sizeof why) == 0 && back == v,
                   "%llu formats as '%s', which parses to %llu (%s)", (unsigned long long)v, text,
                   (unsigned long long)back, why);
    } else {
        FUZZ_CHECK(v == SENTINEL, "rejected, yet wrote %llu", (unsigned long long)v);
        FUZZ_CHECK(full[0] && !strchr(full, '\n'), "reason '%s' empty or not one line", full);
    }

    /* The same parse into a short reason buffer. */
    fuzz_why w;
    fuzz_why_open(&w, small);
    uint64_t v2 = SENTINEL;
    int rc2 = sl_parse_count(s, &v2, w.buf, w.len);
    FUZZ_CHECK(rc2 == rc && v2 == v, "a %zu-byte reason buffer changed the result", small);
    if (rc == 0)
        FUZZ_CHECK(fuzz_why_untouched(&w), "success wrote a reason");
    else
        fuzz_why_check_cut(&w, full);
    fuzz_why_close(&w);

    /* Plain decimal: strtoull is the oracle. */
    size_t n = strlen(s);
    if (n >= 1 && n <= 30 && strspn(s, "0123456789") == n) {
        errno = 0;
        unsigned long long want = strtoull(s, NULL, 10);
        int take = errno == 0 && want >= 1;
        FUZZ_CHECK(take == (rc == 0) && (!take || v == want), "'%s': rc %d, %llu; strtoull %llu, errno %d", s, rc,
                   (unsigned long long)v, want, errno);
    }
}

static void list(const char *s, size_t small, int max)
{
    uint64_t out[9];
    for (int i = 0; i < 9; i++)
        out[i] = SENTINEL;
    char full[512];
    int n = sl_parse_count_list(s, out, max, full, sizeof full);
    FUZZ_CHECK(n == -1 || (n >= 1 && n <= max), "sl_parse_count_list returned %d (max %d)", n, max);
    for (int i = max; i < 9; i++)
        FUZZ_CHECK(out[i] == SENTINEL, "out[%d] written with max %d", i, max);
    if (n > 0) {
        /* Walk the items independently. */
        const char *p = s;
        for (int i = 0; i < n; i++) {
            size_t len = strcspn(p, ",");
            char item[64], why[160];
            uint64_t v = 0;
            FUZZ_CHECK(len > 0 && len < sizeof item, "item %d of %zu characters accepted", i, len);
            memcpy(item, p, len);
            item[len] = 0;
            FUZZ_CHECK(sl_parse_count(item, &v, why, sizeof why) == 0 && v == out[i],
                       "item %d '%s': list gave %llu, alone %llu (%s)", i, item, (unsigned long long)out[i],
                       (unsigned long long)v, why);
            p += len;
            FUZZ_CHECK((i + 1 < n) == (*p == ','), "list of %d items, but item %d ends in '%c'", n, i, *p ? *p : '0');
            if (*p)
                p++;
        }
        for (int i = n; i < 9; i++)
            FUZZ_CHECK(out[i] == SENTINEL, "out[%d] written by a list of %d", i, n);
    } else {
        FUZZ_CHECK(full[0] != 0, "rejected list without a reason");
    }

    fuzz_why w;
    fuzz_why_open(&w, small);
    uint64_t out2[9];
    int n2 = sl_parse_count_list(s, out2, max, w.buf, w.len);
    FUZZ_CHECK(n2 == n, "a %zu-byte reason buffer changed the result", small);
    if (n > 0)
        FUZZ_CHECK(fuzz_why_untouched(&w) && memcmp(out, out2, (size_t)n * sizeof out[0]) == 0,
                   "success wrote a reason or other values");
    else
        fuzz_why_check_cut(&w, full);
    fuzz_why_close(&w);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = fuzz_cstring(data, size);
    size_t small = fuzz_pick(data, size, 48);
    count(s, small);
    list(s, small, 1 + (int)fuzz_pick(data, size, 8));
    free(s);
    return 0;
}
