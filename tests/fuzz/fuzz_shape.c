/*
 * fuzz_shape.c - libFuzzer target for the shape parser (src/core/sizes.c):
 * sl_parse_shape and sl_parse_shape_list on the input as a string.
 *
 * Properties, beyond "no crash, no sanitizer report":
 *   - an accepted shape has rows, cols, ld >= 1 and ld >= cols, and neither
 *     rows x cols nor the span (rows - 1) x ld + cols overflows 64 bits;
 *   - without 'x' it is 1-D ({1, n, n}, the value sl_parse_count gives for
 *     the same text, which must accept or refuse it alike); without ':',
 *     ld = cols;
 *   - the shape written back as "ROWSxCOLS:LD" (each side through
 *     sl_format_count) parses to the same shape;
 *   - a rejected shape leaves *out alone with a non-empty one-line reason;
 *     the reason cut into a short buffer is a prefix of the full one, and
 *     nothing is written past the buffer;
 *   - an accepted list holds, item by item, what sl_parse_shape gives.
 */
#include "fuzz_common.h"
#include "sizes.h"

#define S 0x5eed5eed5eed5eedull

static int same(const sl_shape *a, const sl_shape *b)
{
    return a->rows == b->rows && a->cols == b->cols && a->ld == b->ld && a->k == b->k;
}

static void check_accepted(const char *s, const sl_shape *sh)
{
    uint64_t elems, span;
    FUZZ_CHECK(sh->rows >= 1 && sh->cols >= 1 && sh->ld >= sh->cols, "'%s' gave %llux%llu:%llu", s,
               (unsigned long long)sh->rows, (unsigned long long)sh->cols, (unsigned long long)sh->ld);
    FUZZ_CHECK(!__builtin_mul_overflow(sh->rows, sh->cols, &elems), "'%s': rows x cols overflows", s);
    FUZZ_CHECK(!__builtin_mul_overflow(sh->rows - 1, sh->ld, &span) && !__builtin_add_overflow(span, sh->cols, &span),
               "'%s': the span overflows", s);
    if (!strpbrk(s, "xX"))
        FUZZ_CHECK(sh->rows == 1 && sh->ld == sh->cols, "'%s': no 'x' but not 1-D", s);
    if (!strchr(s, ':'))
        FUZZ_CHECK(sh->ld == sh->cols, "'%s': no ':' but ld %llu != cols", s, (unsigned long long)sh->ld);

    char r[32], c[32], l[32], text[100], why[160];
    sl_format_count(sh->rows, r, sizeof r);
    sl_format_count(sh->cols, c, sizeof c);
    sl_format_count(sh->k ? sh->k : sh->ld, l, sizeof l);
    snprintf(text, sizeof text, sh->k ? "%sx%sx%s" : "%sx%s:%s", r, c, l);
    sl_shape back = {S, S, S, S};
    FUZZ_CHECK(sl_parse_shape(text, &back, why, sizeof why) == 0 && same(&back, sh),
               "'%s' written back as '%s' does not parse to the same shape (%s)", s, text, why);
}

static void shape(const char *s, size_t small)
{
    sl_shape sh = {S, S, S, S}, untouched = {S, S, S, S};
    char full[512];
    int rc = sl_parse_shape(s, &sh, full, sizeof full);
    FUZZ_CHECK(rc == 0 || rc == -1, "sl_parse_shape returned %d", rc);
    if (rc == 0)
        check_accepted(s, &sh);
    else
        FUZZ_CHECK(same(&sh, &untouched) && full[0] && !strchr(full, '\n'),
                   "rejected: output written, or reason '%s' empty or not one line", full);

    /* Text with no 'x' and no ':' is a count: the two parsers agree. */
    if (!strpbrk(s, "xX:")) {
        uint64_t v = 0;
        char why[512];
        int crc = sl_parse_count(s, &v, why, sizeof why);
        FUZZ_CHECK(crc == rc && (rc != 0 || v == sh.cols), "'%s': shape rc %d, count rc %d", s, rc, crc);
    }

    fuzz_why w;
    fuzz_why_open(&w, small);
    sl_shape sh2 = {S, S, S, S};
    int rc2 = sl_parse_shape(s, &sh2, w.buf, w.len);
    FUZZ_CHECK(rc2 == rc && same(&sh2, &sh), "a %zu-byte reason buffer changed the result", small);
    if (rc == 0)
        FUZZ_CHECK(fuzz_why_untouched(&w), "success wrote a reason");
    else
        fuzz_why_check_cut(&w, full);
    fuzz_why_close(&w);
}

static void list(const char *s, size_t small, int max)
{
    sl_shape out[9];
    for (int i = 0; i < 9; i++)
        out[i] = (sl_shape){S, S, S, S};
    const sl_shape untouched = {S, S, S, S};
    char full[512];
    int n = sl_parse_shape_list(s, out, max, full, sizeof full);
    FUZZ_CHECK(n == -1 || (n >= 1 && n <= max), "sl_parse_shape_list returned %d (max %d)", n, max);
    for (int i = n > 0 ? n : max; i < 9; i++)
        FUZZ_CHECK(same(&out[i], &untouched), "out[%d] written (max %d, %d parsed)", i, max, n);
    if (n > 0) {
        const char *p = s;
        for (int i = 0; i < n; i++) {
            size_t len = strcspn(p, ",");
            char *item = malloc(len + 1), why[512];
            if (!item)
                abort();
            memcpy(item, p, len);
            item[len] = 0;
            sl_shape one = {S, S, S, S};
            FUZZ_CHECK(sl_parse_shape(item, &one, why, sizeof why) == 0 && same(&one, &out[i]),
                       "item %d '%s' alone: %s", i, item, why);
            free(item);
            p += len;
            FUZZ_CHECK((i + 1 < n) == (*p == ','), "list of %d shapes, but item %d is followed by %d", n, i, *p);
            if (*p)
                p++;
        }
    } else {
        FUZZ_CHECK(full[0] != 0, "rejected list without a reason");
    }

    fuzz_why w;
    fuzz_why_open(&w, small);
    sl_shape out2[9];
    int n2 = sl_parse_shape_list(s, out2, max, w.buf, w.len);
    FUZZ_CHECK(n2 == n, "a %zu-byte reason buffer changed the result", small);
    if (n > 0)
        FUZZ_CHECK(fuzz_why_untouched(&w), "success wrote a reason");
    else
        fuzz_why_check_cut(&w, full);
    fuzz_why_close(&w);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = fuzz_cstring(data, size);
    size_t small = fuzz_pick(data, size, 48);
    shape(s, small);
    list(s, small, 1 + (int)fuzz_pick(data, size, 8));
    free(s);
    return 0;
}
