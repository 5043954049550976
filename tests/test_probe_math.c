/* The probes' host arithmetic (src/lab/probes/probe_math.c). */
#include "check.h"
#include "probe_math.h"

#include <stdlib.h>
#include <string.h>

static void test_cycles(void)
{
    const size_t sizes[] = {2, 3, 7, 100, 4096, 65537};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        size_t n = sizes[k];
        uint32_t *next = malloc(n * sizeof *next);
        sl_random_cycle(next, n, 1234 + n);
        CHECK(sl_is_single_cycle(next, n), "n=%zu: not one cycle through every node", n);
        int fixed = 0;
        for (size_t i = 0; i < n; i++)
            fixed += next[i] == i;
        CHECK(fixed == 0, "n=%zu: %d nodes point to themselves", n, fixed);
        /* a full lap returns to the start */
        CHECK(sl_chase_end(next, 0, n) == 0, "n=%zu: a lap of n hops does not return to 0", n);
        CHECK(sl_chase_end(next, 5 % n, 1) == next[5 % n], "one hop");
        free(next);
    }
    /* different seeds, different orders; and not the trivial successor */
    uint32_t a[1000], b[1000];
    sl_random_cycle(a, 1000, 1);
    sl_random_cycle(b, 1000, 2);
    CHECK(memcmp(a, b, sizeof a) != 0, "seed ignored");
    int successor = 0;
    for (int i = 0; i < 1000; i++)
        successor += a[i] == (uint32_t)((i + 1) % 1000);
    CHECK(successor < 20, "looks like a sequential walk (%d successor links)", successor);
    /* a broken permutation is caught */
    uint32_t two_cycles[4] = {1, 0, 3, 2};
    CHECK(!sl_is_single_cycle(two_cycles, 4), "two 2-cycles accepted as one cycle");
    uint32_t out_of_range[3] = {1, 7, 0};
    CHECK(!sl_is_single_cycle(out_of_range, 3), "an index out of range accepted");
}

static void test_sectors(void)
{
    /* 32 threads x 4 bytes, aligned: 128 bytes = 4 sectors */
    CHECK(sl_sectors_touched(0, 4, 4, 32) == 4, "unit stride: %zu", sl_sectors_touched(0, 4, 4, 32));
    /* shifted by one float: 5 sectors (seed 002's misaligned copy) */
    CHECK(sl_sectors_touched(4, 4, 4, 32) == 5, "offset 1: %zu", sl_sectors_touched(4, 4, 4, 32));
    /* shifted by 8 floats = one sector: still 4 */
    CHECK(sl_sectors_touched(32, 4, 4, 32) == 4, "offset 8: %zu", sl_sectors_touched(32, 4, 4, 32));
    CHECK(sl_sectors_touched(0, 8, 4, 32) == 8, "stride 2: %zu", sl_sectors_touched(0, 8, 4, 32));
    CHECK(sl_sectors_touched(0, 32, 4, 32) == 32, "stride 8: %zu", sl_sectors_touched(0, 32, 4, 32));
    CHECK(sl_sectors_touched(0, 512, 4, 32) == 32, "stride 128: %zu", sl_sectors_touched(0, 512, 4, 32));
    /* float4 per thread: 512 bytes = 16 sectors */
    CHECK(sl_sectors_touched(0, 16, 16, 32) == 16, "float4: %zu", sl_sectors_touched(0, 16, 16, 32));
    /* an element straddling a sector boundary counts both */
    CHECK(sl_sectors_touched(30, 0, 4, 1) == 2, "straddle: %zu", sl_sectors_touched(30, 0, 4, 1));
    CHECK(sl_sector_efficiency(1, 4) == 1.0, "eff stride 1");
    CHECK(sl_sector_efficiency(2, 4) == 0.5, "eff stride 2");
    CHECK(sl_sector_efficiency(4, 4) == 0.25, "eff stride 4");
    CHECK(sl_sector_efficiency(8, 4) == 0.125, "eff stride 8");
    CHECK(sl_sector_efficiency(128, 4) == 0.125, "eff stride 128");
    CHECK(sl_sector_efficiency(2, 16) == 0.5, "eff float4 stride 2");
}

static void test_curves(void)
{
    double x[] = {16e3, 32e3, 1e6, 2e6, 4e6, 1e9, 2e9};
    double y[] = {30, 32, 200, 210, 220, 600, 620};
    CHECK(sl_plateau(x, y, 7, 0, 32e3) == 31, "L1 plateau: %g", sl_plateau(x, y, 7, 0, 32e3));
    CHECK(sl_plateau(x, y, 7, 1e6, 4e6) == 210, "L2 plateau");
    CHECK(sl_plateau(x, y, 7, 1e9, 1e30) == 610, "DRAM plateau");
    CHECK(sl_plateau(x, y, 7, 5e6, 6e6) == -1, "empty range");
    /* 4 MB in flight at 4000 GB/s: 1000 ns */
    CHECK(sl_littles_latency_ns(4e6, 4000) == 1000.0, "Little's law");
    CHECK(sl_littles_latency_ns(4e6, 0) < 0, "no bandwidth");
    double bif[] = {8e3, 2e3, 64e3, 16e3, 32e3, 16e3};
    double bw[] = {2000, 600, 4300, 3500, 4200, 3950};
    CHECK(sl_knee(bif, bw, 6, 3900) == 5, "knee: %d", sl_knee(bif, bw, 6, 3900));
    CHECK(sl_knee(bif, bw, 6, 5000) == -1, "unreachable target");
}

/* seed 004's bank-conflict rules, against the closed forms gcd(s, 32),
 * 2 gcd(s, 16), 4 gcd(s, 8) (bench/experiments/bank_conflicts.cu measured them all on
 * the H200) and the slides' examples */
static int gcd_(int a, int b)
{
    while (b) {
        int t = a % b;
        a = b;
        b = t;
    }
    return a;
}

static void test_banks(void)
{
    for (int s = 1; s <= 32; s++) {
        CHECK(sl_smem_wavefronts(4, s) == gcd_(s, 32), "4 B stride %d: %d", s, sl_smem_wavefronts(4, s));
        CHECK(sl_smem_wavefronts(8, s) == 2 * gcd_(s, 16), "8 B stride %d: %d", s, sl_smem_wavefronts(8, s));
        CHECK(sl_smem_wavefronts(16, s) == 4 * gcd_(s, 8), "16 B stride %d: %d", s, sl_smem_wavefronts(16, s));
    }
    CHECK(sl_smem_wavefronts(4, 0) == 1, "one word for the whole warp is a broadcast");
    CHECK(sl_smem_wavefronts(4, 33) == 1 && sl_smem_wavefronts(4, 32) == 32, "a 32x33 column is conflict-free");
    CHECK(sl_smem_wavefronts(2, 1) == -1 && sl_smem_wavefronts(4, -1) == -1, "bad arguments");
}

int main(void)
{
    test_cycles();
    test_sectors();
    test_curves();
    test_banks();
    return check_exit("test_probe_math");
}
