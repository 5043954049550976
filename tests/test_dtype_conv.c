/*
 * The host conversions of src/core/dtype_conv.c, on the CPU and without
 * CUDA: each format's decoding against ldexp of its fields, every bit
 * pattern through a round trip, hand-picked boundary cases with the bit
 * patterns they must give, and a dense sweep of floats (every binade near
 * each format's range, all 12 leading mantissa bits, the low bits that make
 * exact ties and their neighbours) against an independent reference that
 * rounds to the nearest entry of a table of every representable value. The
 * sweeps also check monotonicity and sign symmetry.
 * tests/test_dtype_conv_cuda.cu compares the same functions with CUDA's.
 */
#include "check.h"
#include "dtype_conv.h"
#include "rng.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static uint32_t fbits(float x)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

static float bitsf(uint32_t u)
{
    float x;
    memcpy(&x, &u, sizeof x);
    return x;
}

static uint32_t enc_f16(float x) { return sl_f32_to_f16(x); }
static uint32_t enc_bf16(float x) { return sl_f32_to_bf16(x); }
static uint32_t enc_e4m3(float x) { return sl_f32_to_fp8_e4m3(x); }
static uint32_t enc_e5m2(float x) { return sl_f32_to_fp8_e5m2(x); }
static float dec_f16(uint32_t p) { return sl_f16_to_f32((uint16_t)p); }
static float dec_bf16(uint32_t p) { return sl_bf16_to_f32((uint16_t)p); }
static float dec_e4m3(uint32_t p) { return sl_fp8_e4m3_to_f32((uint8_t)p); }
static float dec_e5m2(uint32_t p) { return sl_fp8_e5m2_to_f32((uint8_t)p); }

typedef struct fmt {
    const char *name;
    sl_dtype dt;
    int bits, mbits, bias;
    int ieee_top;        /* the all-ones exponent holds Inf and NaN (all but e4m3) */
    uint32_t max_finite; /* magnitude pattern of the largest finite value */
    uint32_t nan_out;    /* what every NaN narrows to */
    int saturates;       /* overflow gives max_finite (fp8), else Inf */
    uint32_t (*enc)(float);
    float (*dec)(uint32_t);
    double *tab;         /* tab[k]: value of magnitude pattern k, k = 0 .. max_finite + 1 */
} fmt;

static fmt fmts[] = {
    {"f16", SL_F16, 16, 10, 15, 1, 0x7bff, 0x7fff, 0, enc_f16, dec_f16, NULL},
    {"bf16", SL_BF16, 16, 7, 127, 1, 0x7f7f, 0x7fff, 0, enc_bf16, dec_bf16, NULL},
    {"e4m3", SL_FP8_E4M3, 8, 3, 7, 0, 0x7e, 0x7f, 1, enc_e4m3, dec_e4m3, NULL},
    {"e5m2", SL_FP8_E5M2, 8, 2, 15, 1, 0x7b, 0x7f, 1, enc_e5m2, dec_e5m2, NULL},
};
#define NFMT (sizeof fmts / sizeof fmts[0])

static uint32_t sign_bit(const fmt *f) { return 1u << (f->bits - 1); }
static uint32_t abs_mask(const fmt *f) { return sign_bit(f) - 1u; }
static uint32_t inf_pat(const fmt *f) { return f->max_finite + 1u; } /* f16, bf16, e5m2 */
static int emin(const fmt *f) { return 1 - f->bias; }
static int emax(const fmt *f) { return (int)(f->max_finite >> f->mbits) - f->bias; }

static int is_nan_pat(const fmt *f, uint32_t p)
{
    uint32_t m = p & abs_mask(f);
    return f->ieee_top ? m > inf_pat(f) : m == abs_mask(f);
}

/* The value of magnitude pattern m from the format's definition, ignoring
 * what the top exponent means: (1.M) x 2^(E - bias), or 0.M x 2^(1 - bias). */
static double field_value(const fmt *f, uint32_t m)
{
    uint32_t E = m >> f->mbits, M = m & ((1u << f->mbits) - 1u);
    if (E == 0)
        return ldexp((double)M, 1 - f->bias - f->mbits);
    return ldexp((double)(M + (1u << f->mbits)), (int)E - f->bias - f->mbits);
}

/* The reference narrowing: nearest entry of f->tab, ties to the even
 * pattern. tab runs one past max_finite (Inf's slot for f16, bf16 and e5m2,
 * 480 for e4m3) so that values rounding past the top land there; that slot
 * is Inf, or the saturated maximum for fp8. */
static uint32_t ref_round(const fmt *f, float x)
{
    uint32_t u = fbits(x);
    uint32_t sign = (u >> 31) ? sign_bit(f) : 0u;
    if (isnan(x))
        return f->nan_out;
    uint32_t top = f->max_finite + 1u, k;
    double a = fabs((double)x);
    if (isinf(x) || a >= f->tab[top]) {
        k = top;
    } else {
        uint32_t lo = 0, hi = top; /* tab[lo] <= a < tab[hi] */
        while (hi - lo > 1) {
            uint32_t mid = lo + (hi - lo) / 2;
            if (f->tab[mid] <= a)
                lo = mid;
            else
                hi = mid;
        }
        double twice = 2.0 * a, sum = f->tab[lo] + f->tab[hi]; /* both exact */
        if (twice < sum)
            k = lo;
        else if (twice > sum)
            k = hi;
        else
            k = (lo & 1u) ? hi : lo;
    }
    if (k == top && f->saturates)
        k = f->max_finite;
    return sign | k;
}

/* ---- decoding and round trips over every pattern ----------------------- */

static void check_patterns(const fmt *f)
{
    uint32_t n = 1u << f->bits, bad = 0;
    for (uint32_t p = 0; p < n; p++) {
        float y = f->dec(p);
        uint32_t m = p & abs_mask(f);
        int neg = (p & sign_bit(f)) != 0;
        if (is_nan_pat(f, p)) {
            /* NaN widens to 0x7FFFFFFF, except bf16 which keeps its bits. */
            uint32_t want = f->dt == SL_BF16 ? p << 16 : 0x7fffffffu;
            if (!isnan(y) || fbits(y) != want || f->enc(y) != f->nan_out) {
                if (bad++ < 5)
                    fprintf(stderr, "%s NaN 0x%x: widens to 0x%08x, back to 0x%x\n", f->name, p, fbits(y),
                            f->enc(y));
            }
            continue;
        }
        double want;
        if (f->ieee_top && m == inf_pat(f))
            want = neg ? -HUGE_VAL : HUGE_VAL;
        else
            want = neg ? -field_value(f, m) : field_value(f, m);
        int ok = (double)y == want && (signbit(y) != 0) == neg; /* -0 keeps its sign */
        uint32_t back = f->enc(y);
        uint32_t want_back = (f->saturates && f->ieee_top && m == inf_pat(f)) ? (p & sign_bit(f)) | f->max_finite : p;
        if (!ok || back != want_back) {
            if (bad++ < 5)
                fprintf(stderr, "%s 0x%x: widens to %a (want %a), back to 0x%x (want 0x%x)\n", f->name, p, (double)y,
                        want, back, want_back);
        }
    }
    CHECK(bad == 0, "%s: %u of %u patterns fail the decode or round trip", f->name, bad, n);
}

/* ---- boundary cases with their expected patterns ----------------------- */

typedef struct narrow_case {
    float x;
    uint32_t want;
} narrow_case;

static void check_cases(const char *name, uint32_t (*enc)(float), const narrow_case *c, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint32_t got = enc(c[i].x);
        CHECK(got == c[i].want, "%s(%a = 0x%08x) = 0x%x, want 0x%x", name, (double)c[i].x, fbits(c[i].x), got,
              c[i].want);
    }
}

#define NCASES(a) (sizeof(a) / sizeof(a)[0])

static void check_boundaries(void)
{
    const float inf = HUGE_VALF, qnan = bitsf(0x7fc00000u), nqnan = bitsf(0xffc00000u);
    const float snan = bitsf(0x7f800001u), nsnan = bitsf(0xff800001u);
    const float up = 1.0f + 0x1p-23f; /* x * up: the next float above x, for x a power of two or so */

    const narrow_case f16c[] = {
        {0.0f, 0x0000}, {-0.0f, 0x8000}, {1.0f, 0x3c00}, {-2.0f, 0xc000},
        {1.0f + 0x1p-11f, 0x3c00},                 /* tie, 0x3C00 even */
        {1.0f + 0x1p-11f + 0x1p-23f, 0x3c01},      /* just above the tie */
        {1.0f + 3 * 0x1p-11f, 0x3c02},             /* tie, 0x3C01 odd: up */
        {2.0f - 0x1p-11f, 0x4000},                 /* tie above 0x3BFF (odd): into the next binade */
        {65504.0f, 0x7bff}, {65520.0f - 0x1p-8f, 0x7bff},
        {65520.0f, 0x7c00}, {-65520.0f, 0xfc00},   /* tie with 2^16 (even): overflow to Inf */
        {FLT_MAX, 0x7c00}, {inf, 0x7c00}, {-inf, 0xfc00},
        {qnan, 0x7fff}, {nqnan, 0x7fff}, {snan, 0x7fff}, {nsnan, 0x7fff},
        {0x1p-24f, 0x0001},                        /* smallest subnormal */
        {0x1p-25f, 0x0000}, {-0x1p-25f, 0x8000},   /* half of it: tie to even zero, sign kept */
        {0x1p-25f * up, 0x0001}, {3 * 0x1p-25f, 0x0002},
        {0x1p-14f - 0x1p-25f, 0x0400},             /* tie above 0x03FF: up to the smallest normal */
        {0x1p-14f, 0x0400}, {FLT_MIN, 0x0000},
    };
    check_cases("f32_to_f16", enc_f16, f16c, NCASES(f16c));

    const narrow_case bf16c[] = {
        {0.0f, 0x0000}, {-0.0f, 0x8000}, {1.0f, 0x3f80}, {-1.0f, 0xbf80},
        {1.0f + 0x1p-8f, 0x3f80},                  /* tie, even */
        {1.0f + 0x1p-8f + 0x1p-23f, 0x3f81},
        {1.0f + 3 * 0x1p-8f, 0x3f82},              /* tie, odd: up */
        {2.0f - 0x1p-8f, 0x4000},                  /* into the next binade */
        {bitsf(0x7f7f7fffu), 0x7f7f},
        {bitsf(0x7f7f8000u), 0x7f80},              /* tie above the max (odd): Inf */
        {FLT_MAX, 0x7f80}, {-FLT_MAX, 0xff80}, {inf, 0x7f80}, {-inf, 0xff80},
        {qnan, 0x7fff}, {nqnan, 0x7fff},
        {snan, 0x7fff}, {nsnan, 0x7fff},           /* a naive rounding add would make these Inf */
        {bitsf(0x7fffffffu), 0x7fff},              /* a naive add would carry out of the sign */
        {bitsf(0x00008000u), 0x0000},              /* binary32 subnormals: tie to even zero */
        {bitsf(0x00008001u), 0x0001}, {bitsf(0x00018000u), 0x0002}, {bitsf(0x80000001u), 0x8000},
        {bitsf(0x007fffffu), 0x0080},              /* largest binary32 subnormal: up to FLT_MIN */
        {FLT_MIN, 0x0080},
    };
    check_cases("f32_to_bf16", enc_bf16, bf16c, NCASES(bf16c));

    const narrow_case e4m3c[] = {
        {0.0f, 0x00}, {-0.0f, 0x80}, {1.0f, 0x38}, {-1.0f, 0xb8},
        {1.0625f, 0x38},                           /* tie between 1 (0x38) and 1.125: even */
        {1.1875f, 0x3a},                           /* tie between 1.125 (odd) and 1.25 */
        {15.5f, 0x58},                             /* tie above 15 (0x57): into 16's binade */
        {448.0f, 0x7e}, {449.0f, 0x7e}, {464.0f - 0x1p-15f, 0x7e},
        {464.0f, 0x7e},                            /* tie between 448 (even) and 480: 448 */
        {464.0f + 0x1p-15f, 0x7e}, {480.0f, 0x7e}, {1e9f, 0x7e}, {FLT_MAX, 0x7e},
        {-464.0f, 0xfe}, {-500.0f, 0xfe},
        {inf, 0x7e}, {-inf, 0xfe},                 /* SATFINITE: no Inf in e4m3 anyway */
        {qnan, 0x7f}, {nqnan, 0x7f}, {snan, 0x7f}, {nsnan, 0x7f}, /* sign dropped */
        {0x1p-9f, 0x01},                           /* smallest subnormal */
        {0x1p-10f, 0x00}, {-0x1p-10f, 0x80},       /* half of it: tie to even zero */
        {0x1p-10f * up, 0x01}, {3 * 0x1p-10f, 0x02},
        {7 * 0x1p-9f, 0x07}, {7.5f * 0x1p-9f, 0x08}, /* tie above 0x07: the smallest normal */
        {0x1p-6f, 0x08}, {FLT_MIN, 0x00}, {-FLT_MIN, 0x80},
    };
    check_cases("f32_to_fp8_e4m3", enc_e4m3, e4m3c, NCASES(e4m3c));

    const narrow_case e5m2c[] = {
        {0.0f, 0x00}, {-0.0f, 0x80}, {1.0f, 0x3c}, {-1.0f, 0xbc},
        {1.125f, 0x3c},                            /* tie between 1 and 1.25 (odd): even */
        {1.375f, 0x3e},                            /* tie between 1.25 (odd) and 1.5 */
        {1.875f, 0x40},                            /* tie above 1.75 (odd): into 2's binade */
        {57344.0f, 0x7b}, {61440.0f - 0x1p-8f, 0x7b},
        {61440.0f, 0x7b},                          /* tie with 2^16 (even): would be Inf, saturates */
        {65536.0f, 0x7b}, {1e30f, 0x7b}, {FLT_MAX, 0x7b}, {-61440.0f, 0xfb},
        {inf, 0x7b}, {-inf, 0xfb},                 /* SATFINITE: Inf in, max finite out */
        {qnan, 0x7f}, {nqnan, 0x7f}, {snan, 0x7f}, {nsnan, 0x7f},
        {0x1p-16f, 0x01}, {0x1p-17f, 0x00}, {-0x1p-17f, 0x80},
        {0x1p-17f * up, 0x01}, {3 * 0x1p-17f, 0x02},
        {3.5f * 0x1p-16f, 0x04},                   /* tie above 0x03: the smallest normal */
        {0x1p-14f, 0x04}, {FLT_MIN, 0x00},
    };
    check_cases("f32_to_fp8_e5m2", enc_e5m2, e5m2c, NCASES(e5m2c));

    /* Widening, a few by value (every pattern is checked in check_patterns). */
    CHECK(sl_f16_to_f32(0x0001) == 0x1p-24f, "f16 0x0001");
    CHECK(sl_f16_to_f32(0x03ff) == 1023 * 0x1p-24f, "f16 0x03FF");
    CHECK(sl_f16_to_f32(0x7bff) == 65504.0f, "f16 max");
    CHECK(sl_f16_to_f32(0xfc00) == -inf, "f16 -Inf");
    CHECK(fbits(sl_f16_to_f32(0x8000)) == 0x80000000u, "f16 -0");
    CHECK(fbits(sl_f16_to_f32(0xfe00)) == 0x7fffffffu, "f16 -NaN widens to 0x%08x", fbits(sl_f16_to_f32(0xfe00)));
    CHECK(fbits(sl_bf16_to_f32(0xffc1)) == 0xffc10000u, "bf16 NaN keeps its bits");
    CHECK(sl_bf16_to_f32(0x0001) == 0x1p-133f, "bf16 smallest subnormal");
    CHECK(sl_fp8_e4m3_to_f32(0x7e) == 448.0f && sl_fp8_e4m3_to_f32(0xfe) == -448.0f, "e4m3 max");
    CHECK(sl_fp8_e4m3_to_f32(0x01) == 0x1p-9f && sl_fp8_e4m3_to_f32(0x07) == 7 * 0x1p-9f, "e4m3 subnormals");
    CHECK(sl_fp8_e4m3_to_f32(0x78) == 256.0f, "e4m3 exponent 15 is a normal binade");
    CHECK(fbits(sl_fp8_e4m3_to_f32(0xff)) == 0x7fffffffu, "e4m3 0xFF");
    CHECK(fbits(sl_fp8_e4m3_to_f32(0x80)) == 0x80000000u, "e4m3 -0");
    CHECK(sl_fp8_e5m2_to_f32(0x7b) == 57344.0f && sl_fp8_e5m2_to_f32(0x7c) == inf, "e5m2 max, Inf");
    CHECK(sl_fp8_e5m2_to_f32(0xfc) == -inf && sl_fp8_e5m2_to_f32(0x01) == 0x1p-16f, "e5m2 -Inf, subnormal");
    CHECK(fbits(sl_fp8_e5m2_to_f32(0xfd)) == 0x7fffffffu, "e5m2 -NaN");
}

/* ---- the dense sweep against the reference ----------------------------- */

typedef struct sweep {
    uint64_t count, bad, nonmono, asym;
    float prev_x, prev_y;
} sweep;

static void sweep_one(const fmt *f, sweep *s, float x)
{
    uint32_t got = f->enc(x), want = ref_round(f, x);
    s->count++;
    if (got != want && s->bad++ < 5)
        fprintf(stderr, "%s(%a = 0x%08x) = 0x%x, reference 0x%x\n", f->name, (double)x, fbits(x), got, want);
    /* Inputs come in increasing order from +0: the result must not decrease. */
    float y = f->dec(got);
    if (s->count > 1 && x > s->prev_x && y < s->prev_y && s->nonmono++ < 5)
        fprintf(stderr, "%s not monotone: %a -> %a but %a -> %a\n", f->name, (double)s->prev_x, (double)s->prev_y,
                (double)x, (double)y);
    s->prev_x = x;
    s->prev_y = y;
    /* -x gives the same pattern with the sign set. */
    uint32_t gneg = f->enc(-x);
    if (gneg != (got | sign_bit(f)) && s->asym++ < 5)
        fprintf(stderr, "%s(-%a) = 0x%x but (%a) = 0x%x\n", f->name, (double)x, gneg, (double)x, got);
}

static void sweep_format(const fmt *f)
{
    /* Low 11 mantissa bits: 0 (exact ties when the kept bits end in 1 0...0),
     * and just above or below a tie or a boundary. */
    static const uint32_t low[] = {0x000, 0x001, 0x002, 0x3ff, 0x400, 0x401, 0x7fd, 0x7fe, 0x7ff};
    sweep s;
    memset(&s, 0, sizeof s);
    /* Binary32 exponent fields from well below the smallest subnormal to a
     * few binades past the largest finite value. */
    int lo = emin(f) - f->mbits - 3 + 127, hi = emax(f) + 3 + 127;
    if (lo < 0)
        lo = 0;
    if (hi > 254)
        hi = 254;
    for (uint32_t e = (uint32_t)lo; e <= (uint32_t)hi; e++)
        for (uint32_t t = 0; t < 4096; t++)
            for (size_t k = 0; k < sizeof low / sizeof low[0]; k++)
                sweep_one(f, &s, bitsf((e << 23) | (t << 11) | low[k]));
    sweep_one(f, &s, HUGE_VALF);
    uint64_t dense = s.count;

    /* The whole positive range, a prime stride apart, in order. */
    s.count = 0; /* restarts the monotone order */
    for (uint32_t u = 0; u < 0x7f800000u; u += 997)
        sweep_one(f, &s, bitsf(u));
    uint64_t strided = s.count;

    /* Random bit patterns, NaNs included (no monotone order here). */
    uint64_t rnd = 1u << 20, nanbad = 0;
    for (uint64_t i = 0; i < rnd; i++) {
        float x = bitsf((uint32_t)sl_rand_bits(0xd7e5u + (uint64_t)f->dt, i));
        uint32_t got = f->enc(x), want = ref_round(f, x);
        if (got != want && nanbad++ < 5)
            fprintf(stderr, "%s(0x%08x) = 0x%x, reference 0x%x\n", f->name, fbits(x), got, want);
    }
    CHECK(s.bad == 0 && nanbad == 0, "%s: %llu swept and %llu random floats round differently from the reference",
          f->name, (unsigned long long)s.bad, (unsigned long long)nanbad);
    CHECK(s.nonmono == 0, "%s: %llu monotonicity failures", f->name, (unsigned long long)s.nonmono);
    CHECK(s.asym == 0, "%s: %llu sign asymmetries", f->name, (unsigned long long)s.asym);
    printf("  %s: %llu dense + %llu strided + %llu random floats match the reference\n", f->name,
           (unsigned long long)dense, (unsigned long long)strided, (unsigned long long)rnd);
}

/* ---- by sl_dtype ------------------------------------------------------- */

static void check_dtype_api(void)
{
    const float xs[] = {1.0f, -0.0f, 0.1f, 3.0e5f, -7.25f, 0x1p-20f};
    for (int dt = 0; dt < SL_DTYPE_COUNT; dt++) {
        unsigned char buf[6 * 8 + 8];
        memset(buf, 0xa5, sizeof buf);
        size_t es = sl_dtype_size((sl_dtype)dt);
        for (size_t i = 0; i < 6; i++)
            sl_dtype_store((sl_dtype)dt, buf, i, xs[i]);
        for (size_t i = 0; i < 6; i++) {
            float y = sl_dtype_load((sl_dtype)dt, buf, i), want = xs[i];
            uint64_t p = 0, want_p = 0;
            memcpy(&p, buf + i * es, es); /* little-endian hosts: the low bytes */
            switch (dt) {
            case SL_F64: {
                double d = (double)xs[i]; /* widening is exact: the load gives xs[i] back */
                memcpy(&want_p, &d, 8);
                break;
            }
            case SL_F16: want_p = sl_f32_to_f16(xs[i]); want = sl_f16_to_f32((uint16_t)want_p); break;
            case SL_BF16: want_p = sl_f32_to_bf16(xs[i]); want = sl_bf16_to_f32((uint16_t)want_p); break;
            case SL_FP8_E4M3: want_p = sl_f32_to_fp8_e4m3(xs[i]); want = sl_fp8_e4m3_to_f32((uint8_t)want_p); break;
            case SL_FP8_E5M2: want_p = sl_f32_to_fp8_e5m2(xs[i]); want = sl_fp8_e5m2_to_f32((uint8_t)want_p); break;
            default: want_p = fbits(xs[i]); break;
            }
            CHECK(p == want_p, "%s element %zu: stored 0x%llx, want 0x%llx", sl_dtype_name((sl_dtype)dt), i,
                  (unsigned long long)p, (unsigned long long)want_p);
            CHECK(fbits(y) == fbits(want), "%s element %zu: loaded %a, want %a", sl_dtype_name((sl_dtype)dt), i,
                  (double)y, (double)want);
        }
        CHECK(buf[6 * es] == 0xa5, "%s store wrote past its element", sl_dtype_name((sl_dtype)dt));
    }
    CHECK(isnan(sl_dtype_load(SL_DTYPE_COUNT, xs, 0)), "invalid dtype loads NaN");

    CHECK(sl_dtype_ulp(SL_F32, 1.0f) == 0x1p-23, "f32 ulp(1)");
    CHECK(sl_dtype_ulp(SL_F64, 1.0) == 0x1p-52 && sl_dtype_ulp(SL_F64, -3.0) == 0x1p-51, "f64 ulp(1), ulp(-3)");
    CHECK(sl_dtype_ulp(SL_F64, 0.0) == 0x1p-1074 && sl_dtype_ulp(SL_F64, 0x1p-1030) == 0x1p-1074, "f64 ulp subnormal");
    CHECK(sl_dtype_ulp(SL_F32, 0x1p-140) == 0x1p-149, "f32 ulp of an f32 subnormal given as a double");
    {
        double d[2] = {0}, back;
        sl_dtype_store_f64(SL_F64, d, 1, 0.1);
        back = sl_dtype_load_f64(SL_F64, d, 1);
        CHECK(back == 0.1 && d[0] == 0.0, "f64 store/load round trip");
        CHECK(sl_dtype_load_f64(SL_BF16, (uint16_t[]){0x3fc0}, 0) == 1.5, "bf16 widens to f64 exactly");
    }
    CHECK(sl_dtype_ulp(SL_F32, 0.0f) == 0x1p-149, "f32 ulp(0)");
    CHECK(sl_dtype_ulp(SL_F16, 1.0f) == 0x1p-10 && sl_dtype_ulp(SL_F16, -1.5f) == 0x1p-10, "f16 ulp(1)");
    CHECK(sl_dtype_ulp(SL_F16, 0.0f) == 0x1p-24 && sl_dtype_ulp(SL_F16, 1e-7f) == 0x1p-24, "f16 ulp subnormal");
    CHECK(sl_dtype_ulp(SL_F16, 65504.0f) == 32.0 && sl_dtype_ulp(SL_F16, 1e9f) == 32.0, "f16 ulp top");
    CHECK(sl_dtype_ulp(SL_F16, HUGE_VALF) == 32.0, "f16 ulp Inf");
    CHECK(sl_dtype_ulp(SL_BF16, 1.0f) == 0x1p-7 && sl_dtype_ulp(SL_BF16, 0.0f) == 0x1p-133, "bf16 ulp");
    CHECK(sl_dtype_ulp(SL_FP8_E4M3, 1.0f) == 0.125 && sl_dtype_ulp(SL_FP8_E4M3, 448.0f) == 32.0, "e4m3 ulp");
    CHECK(sl_dtype_ulp(SL_FP8_E4M3, 0.0f) == 0x1p-9 && sl_dtype_ulp(SL_FP8_E4M3, 1e6f) == 32.0, "e4m3 ulp ends");
    CHECK(sl_dtype_ulp(SL_FP8_E5M2, 1.0f) == 0.25 && sl_dtype_ulp(SL_FP8_E5M2, 57344.0f) == 8192.0, "e5m2 ulp");
    CHECK(sl_dtype_ulp(SL_FP8_E5M2, 0x1p-15f) == 0x1p-16, "e5m2 ulp subnormal");
    CHECK(isnan(sl_dtype_ulp(SL_F16, bitsf(0x7fc00000u))), "ulp(NaN)");
    CHECK(isnan(sl_dtype_ulp(SL_DTYPE_COUNT, 1.0f)), "ulp of an invalid dtype");
    /* The defining property: a correctly rounded store is within half an ulp. */
    for (size_t k = 0; k < NFMT; k++)
        for (int i = 1; i < 2000; i++) {
            float x = (float)(i * 0.37 - 300.0);
            double err = fabs((double)x - (double)fmts[k].dec(fmts[k].enc(x)));
            if (fabs(x) < 448.0f || fmts[k].dt != SL_FP8_E4M3)
                CHECK(err <= 0.5 * sl_dtype_ulp(fmts[k].dt, x), "%s: |%a - store| = %g > ulp/2", fmts[k].name,
                      (double)x, err);
        }
}

int main(void)
{
    for (size_t k = 0; k < NFMT; k++) {
        fmt *f = &fmts[k];
        uint32_t top = f->max_finite + 1u;
        f->tab = malloc((top + 1u) * sizeof *f->tab);
        if (!f->tab) {
            fprintf(stderr, "out of memory\n");
            return 1;
        }
        for (uint32_t m = 0; m <= top; m++)
            f->tab[m] = field_value(f, m);
    }
    check_boundaries();
    for (size_t k = 0; k < NFMT; k++)
        check_patterns(&fmts[k]);
    for (size_t k = 0; k < NFMT; k++)
        sweep_format(&fmts[k]);
    check_dtype_api();
    for (size_t k = 0; k < NFMT; k++)
        free(fmts[k].tab);
    return check_exit("test_dtype_conv");
}
