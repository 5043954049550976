/*
 * transpose_check.h - what the transpose tests share: the shapes, random
 * input bytes and the oracle. The oracle is a third writing of the op,
 * independent of the reference and the rungs: it walks the output and,
 * for each element (j, i), compares its bytes with the input's (i, j); it
 * also checks the guard bytes after the output were not written.
 */
#ifndef SL_TEST_TRANSPOSE_CHECK_H
#define SL_TEST_TRANSPOSE_CHECK_H

#include "check.h"
#include "streamlab.h"

#include <stdint.h>
#include <string.h>

/* rows, cols, extra row stride (ld = cols + pad) */
typedef struct tp_case {
    size_t rows, cols, pad;
} tp_case;

/* Odd shapes (1 x 1, a single row or column, 33 x 17, 1000 x 3), tile
 * multiples and off-by-one around them, and padded row strides. */
static const tp_case tp_cases[] = {
    {1, 1, 0},     {1, 7, 0},    {7, 1, 0},    {33, 17, 0},  {17, 33, 0},  {1000, 3, 0},   {3, 1000, 0},
    {32, 32, 0},   {31, 33, 0},  {64, 64, 0},  {65, 63, 0},  {129, 65, 0}, {128, 256, 0},  {100, 36, 0},
    {33, 17, 5},   {64, 64, 4},  {70, 40, 1},  {256, 8, 8},  {2, 2, 0},    {1, 4096, 0},   {4096, 1, 0},
};
#define TP_NCASES ((int)(sizeof tp_cases / sizeof tp_cases[0]))

static const sl_dtype tp_dtypes[] = {SL_F32, SL_F16, SL_BF16, SL_F64};
#define TP_NDTYPES 4

#define TP_GUARD 256 /* bytes after the output that must stay 0xff */

/* Bytes of a pseudo-random stream (splitmix64), never all equal: a rung
 * that copies the wrong element is caught. */
static inline void tp_fill(unsigned char *p, size_t bytes, uint64_t seed)
{
    uint64_t s = seed;
    for (size_t i = 0; i < bytes; i++) {
        s += 0x9e3779b97f4a7c15ull;
        uint64_t z = s;
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        p[i] = (unsigned char)(z ^ (z >> 31));
    }
}

/* Mismatched elements of out (cols x rows) against in (rows x cols, row
 * stride ld), plus guard bytes written; prints the first few. */
static inline size_t tp_mismatches(const unsigned char *in, const unsigned char *out, size_t rows, size_t cols,
                                   size_t ld, size_t es, const char *what)
{
    size_t bad = 0;
    for (size_t j = 0; j < cols; j++)
        for (size_t i = 0; i < rows; i++)
            if (memcmp(out + (j * rows + i) * es, in + (i * ld + j) * es, es) != 0) {
                if (bad++ < 3)
                    fprintf(stderr, "  %s: out[%zu, %zu] differs from in[%zu, %zu]\n", what, j, i, i, j);
            }
    const unsigned char *g = out + rows * cols * es;
    for (size_t b = 0; b < TP_GUARD; b++)
        if (g[b] != 0xffu) {
            if (bad++ < 3)
                fprintf(stderr, "  %s: guard byte %zu after out written\n", what, b);
        }
    return bad;
}

#endif /* SL_TEST_TRANSPOSE_CHECK_H */
