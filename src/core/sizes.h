/*
 * sizes.h - parsing element counts as people write them.
 */
#ifndef SL_SIZES_H
#define SL_SIZES_H

#include <stddef.h>
#include <stdint.h>

/* Parse one count. Accepted forms (no spaces, value >= 1):
 *   123          plain decimal
 *   10K 10M 2G   decimal suffixes: 1e3, 1e6, 1e9 (the seed's 10M = 10,000,000)
 *   64Ki 1Mi 2Gi binary suffixes: 2^10, 2^20, 2^30
 *   2^28         a power (base and exponent plain integers)
 *   1e6 2.5e6    scientific or decimal notation, if the value is a whole number
 *   1.5M         a decimal fraction times a suffix, if the result is whole
 * Suffixes are case-insensitive. Returns 0 and stores the value, or -1 and
 * writes a one-line reason (without the input itself) to why. */
int sl_parse_count(const char *s, uint64_t *out, char *why, size_t why_len);

/* Parse a comma-separated list of counts into out[0..max). Returns the
 * number parsed, or -1 with a reason naming the bad item. */
int sl_parse_count_list(const char *s, uint64_t *out, int max, char *why, size_t why_len);

/* 1 if `name` is one of the items of the comma-separated `list`. */
int sl_list_has(const char *list, const char *name);

/* Format n the way the seed writes sizes: "10M", "2^28", "1000003". */
void sl_format_count(uint64_t n, char *buf, size_t len);

/* Format bytes with a binary unit: "1.5 GiB", "60 MiB", "512 B". */
void sl_format_bytes(double bytes, char *buf, size_t len);

#endif /* SL_SIZES_H */
