/*
 * src/core/dtype_conv.c against CUDA's own conversions, bit for bit, on the
 * host: no GPU and no CUDA runtime call, only the __host__ __device__
 * functions of cuda_fp16.h, cuda_bf16.h and cuda_fp8.h, whose host paths
 * are software versions of what the device instructions compute.
 *
 *   widening   every f16, bf16, e4m3 and e5m2 bit pattern (NaN bits included)
 *   narrowing  every one of the 2^32 binary32 bit patterns, into all four
 *              formats (__float2half_rn, __float2bfloat16_rn,
 *              __nv_cvt_float_to_fp8 with __NV_SATFINITE), spread over the
 *              host's cores: about 25 s on 2 cores
 *
 * Every mismatch is counted; the first few per format are printed with the
 * input and both outputs. It also prints what CUDA gives for the special
 * inputs (signed zeros, infinities, NaNs), for the record.
 */
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <atomic>
#include <cfloat>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>

#include "dtype_conv.h"

static uint32_t fbits(float x)
{
    uint32_t u;
    std::memcpy(&u, &x, sizeof u);
    return u;
}

static float bitsf(uint32_t u)
{
    float x;
    std::memcpy(&x, &u, sizeof x);
    return x;
}

/* CUDA's side of each conversion, on raw bit patterns. */
static uint32_t cuda_f32_to_f16(float x) { return static_cast<__half_raw>(__float2half_rn(x)).x; }
static uint32_t cuda_f32_to_bf16(float x) { return static_cast<__nv_bfloat16_raw>(__float2bfloat16_rn(x)).x; }
static uint32_t cuda_f32_to_e4m3(float x) { return __nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E4M3); }
static uint32_t cuda_f32_to_e5m2(float x) { return __nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E5M2); }

static float cuda_f16_to_f32(uint32_t p)
{
    __half_raw r;
    r.x = static_cast<unsigned short>(p);
    return __half2float(__half(r));
}

static float cuda_bf16_to_f32(uint32_t p)
{
    __nv_bfloat16_raw r;
    r.x = static_cast<unsigned short>(p);
    return __bfloat162float(__nv_bfloat16(r));
}

static float cuda_e4m3_to_f32(uint32_t p)
{
    __nv_fp8_e4m3 v;
    v.__x = static_cast<__nv_fp8_storage_t>(p);
    return static_cast<float>(v);
}

static float cuda_e5m2_to_f32(uint32_t p)
{
    __nv_fp8_e5m2 v;
    v.__x = static_cast<__nv_fp8_storage_t>(p);
    return static_cast<float>(v);
}

/* Ours, on the same footing. */
static uint32_t sl_enc_f16(float x) { return sl_f32_to_f16(x); }
static uint32_t sl_enc_bf16(float x) { return sl_f32_to_bf16(x); }
static uint32_t sl_enc_e4m3(float x) { return sl_f32_to_fp8_e4m3(x); }
static uint32_t sl_enc_e5m2(float x) { return sl_f32_to_fp8_e5m2(x); }
static float sl_dec_f16(uint32_t p) { return sl_f16_to_f32(static_cast<uint16_t>(p)); }
static float sl_dec_bf16(uint32_t p) { return sl_bf16_to_f32(static_cast<uint16_t>(p)); }
static float sl_dec_e4m3(uint32_t p) { return sl_fp8_e4m3_to_f32(static_cast<uint8_t>(p)); }
static float sl_dec_e5m2(uint32_t p) { return sl_fp8_e5m2_to_f32(static_cast<uint8_t>(p)); }

struct format {
    const char *name;
    int bits;
    uint32_t (*cuda_enc)(float);
    uint32_t (*sl_enc)(float);
    float (*cuda_dec)(uint32_t);
    float (*sl_dec)(uint32_t);
};

static const format formats[4] = {
    {"f16", 16, cuda_f32_to_f16, sl_enc_f16, cuda_f16_to_f32, sl_dec_f16},
    {"bf16", 16, cuda_f32_to_bf16, sl_enc_bf16, cuda_bf16_to_f32, sl_dec_bf16},
    {"fp8_e4m3", 8, cuda_f32_to_e4m3, sl_enc_e4m3, cuda_e4m3_to_f32, sl_dec_e4m3},
    {"fp8_e5m2", 8, cuda_f32_to_e5m2, sl_enc_e5m2, cuda_e5m2_to_f32, sl_dec_e5m2},
};

static const int SHOW = 8; /* mismatches printed per format */

static uint64_t check_widening(const format &f)
{
    uint64_t bad = 0;
    for (uint32_t p = 0; p < (1u << f.bits); p++) {
        uint32_t want = fbits(f.cuda_dec(p)), got = fbits(f.sl_dec(p));
        if (got != want && bad++ < SHOW)
            std::fprintf(stderr, "MISMATCH %s_to_f32(0x%0*x): ours 0x%08x (%a), CUDA 0x%08x (%a)\n", f.name,
                         f.bits / 4, p, got, static_cast<double>(bitsf(got)), want,
                         static_cast<double>(bitsf(want)));
    }
    std::printf("  %s -> f32: all %u patterns, %llu mismatches\n", f.name, 1u << f.bits,
                static_cast<unsigned long long>(bad));
    return bad;
}

/* One thread's share of the 2^32 floats, all four narrowings per float. */
struct slice {
    uint64_t lo, hi;
    uint64_t bad[4];
    uint32_t shown_x[4][SHOW], shown_got[4][SHOW], shown_want[4][SHOW];
};

static void note(slice *s, int k, uint32_t u, uint32_t got, uint32_t want)
{
    uint64_t n = s->bad[k]++;
    if (n < static_cast<uint64_t>(SHOW)) {
        s->shown_x[k][n] = u;
        s->shown_got[k][n] = got;
        s->shown_want[k][n] = want;
    }
}

/* Direct calls, not through formats[]: CUDA's conversions are inline and the
 * compiler may vectorise them, which halves the run time. */
static void narrow_slice(slice *s)
{
    for (int k = 0; k < 4; k++)
        s->bad[k] = 0;
    for (uint64_t i = s->lo; i < s->hi; i++) {
        uint32_t u = static_cast<uint32_t>(i);
        float x = bitsf(u);
        uint32_t got, want;
        if ((got = sl_f32_to_f16(x)) != (want = cuda_f32_to_f16(x)))
            note(s, 0, u, got, want);
        if ((got = sl_f32_to_bf16(x)) != (want = cuda_f32_to_bf16(x)))
            note(s, 1, u, got, want);
        if ((got = sl_f32_to_fp8_e4m3(x)) != (want = cuda_f32_to_e4m3(x)))
            note(s, 2, u, got, want);
        if ((got = sl_f32_to_fp8_e5m2(x)) != (want = cuda_f32_to_e5m2(x)))
            note(s, 3, u, got, want);
    }
}

static uint64_t check_narrowing(void)
{
    unsigned nt = std::thread::hardware_concurrency();
    if (nt == 0)
        nt = 1;
    if (nt > 64)
        nt = 64;
    std::vector<slice> slices(nt);
    std::vector<std::thread> threads;
    auto t0 = std::chrono::steady_clock::now();
    for (unsigned t = 0; t < nt; t++) {
        slices[t].lo = (1ull << 32) * t / nt;
        slices[t].hi = (1ull << 32) * (t + 1) / nt;
        threads.emplace_back(narrow_slice, &slices[t]);
    }
    for (auto &th : threads)
        th.join();
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    uint64_t total = 0;
    for (int k = 0; k < 4; k++) {
        const format &f = formats[k];
        uint64_t bad = 0;
        int shown = 0;
        for (unsigned t = 0; t < nt; t++) {
            const slice &s = slices[t];
            for (uint64_t i = 0; i < s.bad[k] && i < static_cast<uint64_t>(SHOW) && shown < SHOW; i++, shown++)
                std::fprintf(stderr, "MISMATCH f32_to_%s(0x%08x = %a): ours 0x%0*x, CUDA 0x%0*x\n", f.name,
                             s.shown_x[k][i], static_cast<double>(bitsf(s.shown_x[k][i])), f.bits / 4,
                             s.shown_got[k][i], f.bits / 4, s.shown_want[k][i]);
            bad += s.bad[k];
        }
        std::printf("  f32 -> %s: all 2^32 floats, %llu mismatches\n", f.name, static_cast<unsigned long long>(bad));
        total += bad;
    }
    std::printf("  (narrowing: %.1f s on %u threads)\n", secs, nt);
    return total;
}

/* What CUDA does at the edges, printed for the record (the exhaustive runs
 * above already hold ours to it). */
static void show_specials(void)
{
    const float specials[] = {0.0f, -0.0f, HUGE_VALF, -HUGE_VALF, bitsf(0x7fc00000u), bitsf(0xffc00000u),
                              bitsf(0x7f800001u), FLT_MAX, -FLT_MAX, bitsf(0x00000001u)};
    const char *names[] = {"+0", "-0", "+Inf", "-Inf", "+qNaN", "-qNaN", "+sNaN", "FLT_MAX", "-FLT_MAX", "denorm"};
    for (int k = 0; k < 4; k++) {
        std::printf("  CUDA f32 -> %-8s", formats[k].name);
        for (size_t i = 0; i < sizeof specials / sizeof specials[0]; i++)
            std::printf(" %s:0x%0*x", names[i], formats[k].bits / 4, formats[k].cuda_enc(specials[i]));
        std::printf("\n");
    }
}

int main(void)
{
    uint64_t bad = 0;
    show_specials();
    for (const format &f : formats)
        bad += check_widening(f);
    bad += check_narrowing();
    if (bad) {
        std::fprintf(stderr, "test_dtype_conv_cuda: %llu mismatches with CUDA's conversions\n",
                     static_cast<unsigned long long>(bad));
        return 1;
    }
    std::printf("test_dtype_conv_cuda: all widenings and all 2^32 narrowings match CUDA, bit for bit\n");
    return 0;
}
