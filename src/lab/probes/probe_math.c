/*
 * probe_math.c - see probe_math.h.
 */
#include "probe_math.h"

#include "rng.h"

#include <stdlib.h>
#include <string.h>

void sl_random_cycle(uint32_t *next, size_t n, uint64_t seed)
{
    for (size_t i = 0; i < n; i++)
        next[i] = (uint32_t)i;
    /* Sattolo: j drawn from [0, i) (not [0, i] as in Fisher-Yates), which
     * leaves exactly one cycle. Lemire's multiply-shift maps 32 random bits
     * onto [0, i) without a division. */
    for (size_t i = n - 1; i > 0; i--) {
        uint32_t r = (uint32_t)sl_rand_bits(seed, i);
        size_t j = (size_t)(((uint64_t)r * (uint64_t)i) >> 32);
        uint32_t t = next[i];
        next[i] = next[j];
        next[j] = t;
    }
}

uint32_t sl_chase_end(const uint32_t *next, uint32_t start, uint64_t steps)
{
    uint32_t j = start;
    for (uint64_t s = 0; s < steps; s++)
        j = next[j];
    return j;
}

int sl_is_single_cycle(const uint32_t *next, size_t n)
{
    size_t len = 0;
    uint32_t j = 0;
    do {
        if (next[j] >= n)
            return 0;
        j = next[j];
        len++;
    } while (j != 0 && len <= n);
    return len == n;
}

size_t sl_sectors_touched(size_t offset, size_t stride_bytes, size_t elem_bytes, size_t count)
{
    /* Addresses are increasing, so a new sector starts whenever an access
     * reaches past the last sector counted. */
    size_t sectors = 0, last = (size_t)-1;
    for (size_t i = 0; i < count; i++) {
        size_t first_s = (offset + i * stride_bytes) / 32, last_s = (offset + i * stride_bytes + elem_bytes - 1) / 32;
        for (size_t s = first_s; s <= last_s; s++) {
            if (s != last) {
                sectors++;
                last = s;
            }
        }
    }
    return sectors;
}

double sl_sector_efficiency(size_t stride_elems, size_t elem_bytes)
{
    size_t sectors = sl_sectors_touched(0, stride_elems * elem_bytes, elem_bytes, 32);
    return (32.0 * (double)elem_bytes) / (32.0 * (double)sectors);
}

static int cmp_double(const void *p, const void *q)
{
    double a = *(const double *)p, b = *(const double *)q;
    return (a > b) - (a < b);
}

double sl_plateau(const double *x, const double *y, int n, double lo, double hi)
{
    double *v = malloc((size_t)(n > 0 ? n : 1) * sizeof *v);
    if (!v)
        return -1.0;
    int m = 0;
    for (int i = 0; i < n; i++)
        if (x[i] >= lo && x[i] <= hi)
            v[m++] = y[i];
    double med = -1.0;
    if (m > 0) {
        qsort(v, (size_t)m, sizeof *v, cmp_double);
        med = m % 2 ? v[m / 2] : 0.5 * (v[m / 2 - 1] + v[m / 2]);
    }
    free(v);
    return med;
}

double sl_littles_latency_ns(double bytes_in_flight, double gbs)
{
    return gbs > 0 ? bytes_in_flight / gbs : -1.0; /* bytes / (1e9 B/s) = ns */
}

int sl_knee(const double *x, const double *y, int n, double target)
{
    int best = -1;
    for (int i = 0; i < n; i++)
        if (y[i] >= target && (best < 0 || x[i] < x[best] || (x[i] == x[best] && y[i] > y[best])))
            best = i;
    return best;
}

int sl_smem_wavefronts(int word_bytes, int stride)
{
    if ((word_bytes != 4 && word_bytes != 8 && word_bytes != 16) || stride < 0)
        return -1;
    const int parts = word_bytes / 4, lanes_per_phase = 32 / parts;
    int total = 0;
    for (int phase = 0; phase < parts; phase++) {
        /* distinct 4-byte words per bank in this phase (at most 32 each) */
        long words[32][32];
        int nw[32] = {0}, worst = 0;
        for (int l = phase * lanes_per_phase; l < (phase + 1) * lanes_per_phase; l++) {
            for (int c = 0; c < parts; c++) {
                const long w4 = (long)l * stride * parts + c; /* 4-byte word index */
                const int bank = (int)(w4 % 32);
                int seen = 0;
                for (int k = 0; k < nw[bank]; k++)
                    seen |= words[bank][k] == w4;
                if (!seen)
                    words[bank][nw[bank]++] = w4;
                if (nw[bank] > worst)
                    worst = nw[bank];
            }
        }
        total += worst;
    }
    return total;
}
