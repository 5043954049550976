/*
 * sizes.c - see sizes.h. Exact integer arithmetic throughout: "2.5e6" is
 * 25 x 10^5, never a double that might round.
 */
#include "sizes.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int mul_ok(uint64_t a, uint64_t b, uint64_t *out)
{
    if (a != 0 && b > UINT64_MAX / a)
        return 0;
    *out = a * b;
    return 1;
}

static int fail(char *why, size_t len, const char *msg)
{
    if (why && len)
        snprintf(why, len, "%s", msg);
    return -1;
}

/* Parse a run of decimal digits into *v. Returns 0 if the value would
 * pass 2^64 - 1. */
static int digits(const char **p, uint64_t *v, int *count)
{
    *v = 0;
    *count = 0;
    while (isdigit((unsigned char)**p)) {
        uint64_t d = (uint64_t)(**p - '0');
        if (*v > (UINT64_MAX - d) / 10)
            return 0;
        *v = *v * 10 + d;
        (*p)++;
        (*count)++;
    }
    return 1;
}

static int parse_power(const char *s, const char *caret, uint64_t *out, char *why, size_t len)
{
    const char *p = s;
    uint64_t base, expo;
    int nb, ne;
    if (!digits(&p, &base, &nb))
        return fail(why, len, "too large: above 2^64 - 1");
    if (nb == 0 || p != caret)
        return fail(why, len, "the base of a power must be a plain integer, as in 2^28");
    p = caret + 1;
    if (!digits(&p, &expo, &ne) || ne == 0 || *p)
        return fail(why, len, "the exponent of a power must be a plain integer, as in 2^28");
    uint64_t v = 1;
    for (uint64_t i = 0; i < expo; i++) {
        if (!mul_ok(v, base, &v))
            return fail(why, len, "too large: above 2^64 - 1");
        if (v == 0 || v == 1)
            break; /* 0^k and 1^k: no need to loop k times */
    }
    *out = v;
    return 0;
}

int sl_parse_count(const char *s, uint64_t *out, char *why, size_t len)
{
    if (!s || !*s)
        return fail(why, len, "empty size");
    const char *caret = strchr(s, '^');
    uint64_t v;
    if (caret) {
        if (parse_power(s, caret, &v, why, len) != 0)
            return -1;
    } else {
        const char *p = s;
        uint64_t ip, fp = 0;
        int ni, nf = 0;
        if (!digits(&p, &ip, &ni))
            return fail(why, len, "too large: above 2^64 - 1");
        if (*p == '.') {
            p++;
            if (!digits(&p, &fp, &nf) || nf > 19)
                return fail(why, len, "too many digits after the decimal point");
        }
        if (ni + nf == 0)
            return fail(why, len, "not a number (expected forms: 100000, 10M, 64Ki, 2^28, 1e6)");
        /* mantissa = all digits as one integer, scaled by 10^-nf */
        uint64_t mant = ip, pow10 = 1;
        for (int i = 0; i < nf; i++)
            pow10 *= 10;
        if (!mul_ok(mant, pow10, &mant) || mant > UINT64_MAX - fp)
            return fail(why, len, "too large: above 2^64 - 1");
        mant += fp;
        int scale = -nf;
        if (*p == 'e' || *p == 'E') {
            p++;
            int neg = 0;
            if (*p == '+' || *p == '-')
                neg = *p++ == '-';
            uint64_t e;
            int ne;
            if (!digits(&p, &e, &ne) || ne == 0 || e > 40)
                return fail(why, len, "bad exponent after 'e' (expected e.g. 1e6)");
            scale += neg ? -(int)e : (int)e;
        }
        uint64_t bin = 1;
        if (*p) {
            char u = (char)toupper((unsigned char)*p);
            int k = u == 'K' ? 1 : u == 'M' ? 2 : u == 'G' ? 3 : u == 'T' ? 4 : 0;
            if (!k)
                return fail(why, len, "unknown suffix (use K, M, G, T for 10^3.., Ki, Mi, Gi, Ti for 2^10..)");
            p++;
            if (*p == 'i' || *p == 'I') {
                bin = (uint64_t)1 << (10 * k);
                p++;
            } else {
                scale += 3 * k;
            }
            if (*p)
                return fail(why, len, "unexpected characters after the suffix");
        }
        if (!mul_ok(mant, bin, &v))
            return fail(why, len, "too large: above 2^64 - 1");
        for (; scale > 0; scale--)
            if (!mul_ok(v, 10, &v))
                return fail(why, len, "too large: above 2^64 - 1");
        for (; scale < 0; scale++) {
            if (v % 10)
                return fail(why, len, "not a whole number of elements");
            v /= 10;
        }
    }
    if (v < 1)
        return fail(why, len, "a size must be at least 1 element");
    *out = v;
    return 0;
}

int sl_parse_count_list(const char *s, uint64_t *out, int max, char *why, size_t len)
{
    if (!s || !*s)
        return fail(why, len, "empty size list");
    int count = 0;
    const char *p = s;
    for (;;) {
        const char *comma = strchr(p, ',');
        size_t item_len = comma ? (size_t)(comma - p) : strlen(p);
        char item[64], reason[160];
        if (item_len == 0 || item_len >= sizeof item) {
            if (why && len)
                snprintf(why, len, "bad size '%.*s': %s", (int)(item_len < 40 ? item_len : 40), p,
                         item_len ? "too long" : "empty item in the list");
            return -1;
        }
        memcpy(item, p, item_len);
        item[item_len] = 0;
        if (count == max) {
            if (why && len)
                snprintf(why, len, "too many sizes (at most %d)", max);
            return -1;
        }
        if (sl_parse_count(item, &out[count], reason, sizeof reason) != 0) {
            if (why && len)
                snprintf(why, len, "bad size '%s': %s", item, reason);
            return -1;
        }
        count++;
        if (!comma)
            break;
        p = comma + 1;
    }
    return count;
}

/* ---- shapes ---------------------------------------------------------------- */

/* One side of a shape: the n characters at p, as a count. `what` names the
 * side in the reason ("rows: ..."); NULL for a 1-D shape's only side. A
 * side is copied to be NUL-terminated: on the stack when short, as every
 * real count is, else on the heap, so any text sl_parse_count takes alone
 * is taken as a side too (leading zeros included). */
static int shape_side(const char *p, size_t n, const char *what, uint64_t *v, char *why, size_t len)
{
    char local[64], reason[160];
    const char *sep = what ? ": " : "";
    what = what ? what : "";
    if (n == 0) {
        if (why && len)
            snprintf(why, len, "%s%smissing (expected N, ROWSxCOLS or ROWSxCOLS:LD)", what, sep);
        return -1;
    }
    char *item = n < sizeof local ? local : malloc(n + 1);
    if (!item)
        return fail(why, len, "out of memory");
    memcpy(item, p, n);
    item[n] = 0;
    int rc = sl_parse_count(item, v, reason, sizeof reason);
    if (item != local)
        free(item);
    if (rc != 0 && why && len)
        snprintf(why, len, "%s%s%s", what, sep, reason);
    return rc;
}

/* sl_parse_shape on the n characters at s (no NUL among them), so that a
 * list item needs no copy. */
static int parse_shape_span(const char *s, size_t n, sl_shape *out, char *why, size_t len)
{
    if (n == 0)
        return fail(why, len, "empty shape");
    const char *end = s + n, *x = NULL, *x2 = NULL, *colon = NULL;
    for (const char *p = s; p < end; p++) {
        if (*p == 'x' || *p == 'X') {
            if (x2)
                return fail(why, len, "more than two 'x' (expected ROWSxCOLS, ROWSxCOLS:LD or MxNxK)");
            if (x)
                x2 = p;
            else
                x = p;
        } else if (*p == ':') {
            if (colon)
                return fail(why, len, "more than one ':' (expected ROWSxCOLS:LD)");
            colon = p;
        }
    }
    if (!x) {
        if (colon)
            return fail(why, len, "a leading dimension needs two sides: ROWSxCOLS:LD");
        uint64_t count;
        if (shape_side(s, n, NULL, &count, why, len) != 0)
            return -1;
        *out = sl_shape_1d(count);
        return 0;
    }
    if (colon && colon < x)
        return fail(why, len, "':' before 'x' (expected ROWSxCOLS:LD)");
    if (colon && x2)
        return fail(why, len, "MxNxK takes no leading dimension (':')");
    const char *cols_end = colon ? colon : x2 ? x2 : end;
    sl_shape sh = {0, 0, 0, 0};
    if (shape_side(s, (size_t)(x - s), "rows", &sh.rows, why, len) != 0 ||
        shape_side(x + 1, (size_t)(cols_end - (x + 1)), "cols", &sh.cols, why, len) != 0)
        return -1;
    if (x2 && shape_side(x2 + 1, (size_t)(end - (x2 + 1)), "k", &sh.k, why, len) != 0)
        return -1;
    sh.ld = sh.cols;
    if (colon && shape_side(colon + 1, (size_t)(end - (colon + 1)), "ld", &sh.ld, why, len) != 0)
        return -1;
    if (sh.ld < sh.cols)
        return fail(why, len, "ld must be at least cols (each row starts ld elements after the last)");
    /* Both products must fit: the element count sizes the work and the span
     * sizes the allocation. Without ":LD" the span is rows x cols. */
    uint64_t elems, span;
    if (!mul_ok(sh.rows, sh.cols, &elems))
        return fail(why, len, "too large: rows x cols above 2^64 - 1");
    if (!mul_ok(sh.rows - 1, sh.ld, &span) || span > UINT64_MAX - sh.cols)
        return fail(why, len, "too large: the span (rows - 1) x ld + cols above 2^64 - 1");
    uint64_t ak, bk;
    if (sh.k && (!mul_ok(sh.rows, sh.k, &ak) || !mul_ok(sh.k, sh.cols, &bk)))
        return fail(why, len, "too large: rows x k or k x cols above 2^64 - 1");
    *out = sh;
    return 0;
}

int sl_parse_shape(const char *s, sl_shape *out, char *why, size_t len)
{
    return parse_shape_span(s ? s : "", s ? strlen(s) : 0, out, why, len);
}

int sl_parse_shape_list(const char *s, sl_shape *out, int max, char *why, size_t len)
{
    if (!s || !*s)
        return fail(why, len, "empty shape list");
    int count = 0;
    for (const char *p = s;; p++) {
        size_t item = strcspn(p, ",");
        char reason[160];
        int shown = (int)(item < 40 ? item : 40);
        if (item == 0) {
            if (why && len)
                snprintf(why, len, "bad shape '': empty item in the list");
            return -1;
        }
        if (count == max) {
            if (why && len)
                snprintf(why, len, "too many shapes (at most %d)", max);
            return -1;
        }
        if (parse_shape_span(p, item, &out[count], reason, sizeof reason) != 0) {
            if (why && len)
                snprintf(why, len, "bad shape '%.*s': %s", shown, p, reason);
            return -1;
        }
        count++;
        p += item;
        if (!*p)
            break;
    }
    return count;
}

int sl_list_has(const char *list, const char *name)
{
    size_t len = strlen(name);
    for (const char *p = list; *p;) {
        size_t item = strcspn(p, ",");
        if (item == len && strncmp(p, name, len) == 0)
            return 1;
        p += item;
        if (*p == ',')
            p++;
    }
    return 0;
}

void sl_format_count(uint64_t n, char *buf, size_t len)
{
    static const struct { uint64_t unit; const char *suffix; } dec[] = {
        {1000000000000ull, "T"}, {1000000000ull, "G"}, {1000000ull, "M"}, {1000ull, "K"}};
    for (size_t i = 0; i < sizeof dec / sizeof dec[0]; i++) {
        if (n >= dec[i].unit && n % dec[i].unit == 0) {
            snprintf(buf, len, "%llu%s", (unsigned long long)(n / dec[i].unit), dec[i].suffix);
            return;
        }
    }
    if (n >= 1024 && (n & (n - 1)) == 0) {
        int k = 0;
        while ((1ull << k) != n)
            k++;
        snprintf(buf, len, "2^%d", k);
        return;
    }
    snprintf(buf, len, "%llu", (unsigned long long)n);
}

void sl_format_shape(const sl_shape *s, char *buf, size_t len)
{
    char r[32], c[32], x[32];
    if (!len)
        return;
    sl_format_count(s->cols, c, sizeof c);
    if (s->rows == 1 && s->k == 0 && s->ld == s->cols) {
        snprintf(buf, len, "%s", c);
        return;
    }
    sl_format_count(s->rows, r, sizeof r);
    if (s->k) {
        sl_format_count(s->k, x, sizeof x);
        snprintf(buf, len, "%sx%sx%s", r, c, x);
    } else if (s->ld != s->cols) {
        sl_format_count(s->ld, x, sizeof x);
        snprintf(buf, len, "%sx%s:%s", r, c, x);
    } else {
        snprintf(buf, len, "%sx%s", r, c);
    }
}

void sl_format_bytes(double bytes, char *buf, size_t len)
{
    static const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    while (bytes >= 1024.0 && u < 4) {
        bytes /= 1024.0;
        u++;
    }
    if (u == 0)
        snprintf(buf, len, "%.0f %s", bytes, units[u]);
    else
        snprintf(buf, len, "%.*f %s", bytes < 10 ? 2 : bytes < 100 ? 1 : 0, bytes, units[u]);
}
