/*
 * sizes.h - parsing element counts and shapes as people write them.
 */
#ifndef SL_SIZES_H
#define SL_SIZES_H

#include "op.h"

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

/* Parse one shape (sl_shape in op.h: rows, cols, ld, all in elements).
 * Accepted forms, no spaces; every side is a count as sl_parse_count
 * accepts it (so at least 1):
 *   N              1-D: {1, N, N}                   "2^28", "10M", "64Ki"
 *   ROWSxCOLS      2-D, rows packed: {R, C, C}      "8192x8192", "4Kix4Ki", "2^13x2^13"
 *   ROWSxCOLS:LD   2-D, rows LD elements apart (LD >= COLS): {R, C, LD}
 *                                                   "4096x1000:1024"
 *   MxNxK          2-D with a third extent (matmul): {M, N, N, K}
 *                                                   "4096x4096x4096"
 * The separator is 'x' or 'X' (no count contains either).
 * Errors (returns -1, *out untouched, a one-line reason without the input
 * in why): empty input; a side that is empty ("x8", "8x", "8x8:") or not a
 * count (the reason names the side: "rows: ..."); more than two 'x' or one
 * ':'; ':' without 'x' or with two; LD < COLS; ROWS x COLS, or the span (ROWS - 1) x LD +
 * COLS that a buffer of the shape covers, or M x K or K x N, above 2^64 - 1. The reason is
 * cut to why_len - 1 characters and NUL-terminated; why may be NULL.
 * Returns 0 and stores the shape on success (why untouched). */
int sl_parse_shape(const char *s, sl_shape *out, char *why, size_t why_len);

/* Parse a comma-separated list of shapes ("1024x1024,4Kix4Ki:4160,2^20")
 * into out[0..max). Returns the number parsed, or -1 with a reason naming
 * the bad item (its first 40 characters): an empty item, too many items,
 * or any error of sl_parse_shape. */
int sl_parse_shape_list(const char *s, sl_shape *out, int max, char *why, size_t why_len);

/* 1 if `name` is one of the items of the comma-separated `list`. */
int sl_list_has(const char *list, const char *name);

/* Format n the way the seed writes sizes: "10M", "2^28", "1000003". */
void sl_format_count(uint64_t n, char *buf, size_t len);

/* Format a shape as --shape writes it, each side through sl_format_count:
 * "2^28" (1-D), "128x1Ki" (2-D), "4096x1000:1024" (padded rows),
 * "33x17x65" (MxNxK). */
void sl_format_shape(const sl_shape *s, char *buf, size_t len);

/* Format bytes with a binary unit: "1.5 GiB", "60 MiB", "512 B". */
void sl_format_bytes(double bytes, char *buf, size_t len);

#endif /* SL_SIZES_H */
