/*
 * rng.h - the counter-based generator that fills benchmark inputs.
 *
 * Element i of a buffer filled with seed s is a pure function of (s, i), so
 * the device fills its own buffers (no multi-gigabyte upload per variant)
 * and the verifier regenerates any chunk of the inputs on the host to feed
 * the CPU reference. The same source compiles as C11 and as CUDA C, and
 * tests/test_rng checks that both agree bit for bit.
 *
 * Values are never zero, never subnormal and never Inf/NaN: sign random,
 * magnitude in [2^-8, 2^8) with a random 23-bit mantissa (52-bit for the
 * f64 stream). Sums of two such values round in every way the format's
 * addition can, which is what a bit-exact check needs to exercise.
 */
#ifndef SL_RNG_H
#define SL_RNG_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "streamlab.h"

#ifdef __CUDACC__
#define SL_HOSTDEV static inline __host__ __device__
#else
#define SL_HOSTDEV static inline
#endif

/* splitmix64's output function (Steele, Lea and Flood, "Fast splittable
 * pseudorandom number generators", OOPSLA 2014): a bijective 64-bit mixer. */
SL_HOSTDEV uint64_t sl_mix64(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    x ^= x >> 31;
    return x;
}

/* Raw 64 random bits for element i of the stream named by seed. */
SL_HOSTDEV uint64_t sl_rand_bits(uint64_t seed, uint64_t i)
{
    return sl_mix64(seed * 0x9e3779b97f4a7c15ull + i + 1u);
}

/* The fp32 bit pattern of element i: sign | exponent 119..134 | mantissa. */
SL_HOSTDEV uint32_t sl_rand_f32_bits(uint64_t seed, uint64_t i)
{
    uint64_t r = sl_rand_bits(seed, i);
    uint32_t mant = (uint32_t)(r & 0x7fffffu);
    uint32_t expo = 119u + (uint32_t)((r >> 23) & 15u);   /* 2^-8 .. 2^7 */
    uint32_t sign = (uint32_t)((r >> 27) & 1u) << 31;
    return sign | (expo << 23) | mant;
}

SL_HOSTDEV float sl_rand_f32(uint64_t seed, uint64_t i)
{
    uint32_t u = sl_rand_f32_bits(seed, i);
#ifdef __CUDA_ARCH__
    return __uint_as_float(u);
#else
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
#endif
}

/* The fp64 bit pattern of element i: sign | exponent 1015..1030 | a
 * random 52-bit mantissa (the same magnitudes as the fp32 stream). */
SL_HOSTDEV uint64_t sl_rand_f64_bits(uint64_t seed, uint64_t i)
{
    uint64_t r = sl_rand_bits(seed, i);
    uint64_t mant = r & 0xfffffffffffffull;
    uint64_t expo = 1015u + ((r >> 52) & 15u); /* 2^-8 .. 2^7 */
    uint64_t sign = ((r >> 56) & 1u) << 63;
    return sign | (expo << 52) | mant;
}

SL_HOSTDEV double sl_rand_f64(uint64_t seed, uint64_t i)
{
    uint64_t u = sl_rand_f64_bits(seed, i);
#ifdef __CUDA_ARCH__
    return __longlong_as_double((long long)u);
#else
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
#endif
}

#ifdef __cplusplus
extern "C" {
#endif

/* Fill dst[0..n) (host memory) with elements first .. first + n - 1 of the
 * stream named by seed, in dtype dt: sl_rand_f32 narrowed with
 * sl_dtype_store (round to nearest-even, saturating for fp8), or
 * sl_rand_f64 for f64. This is what every backend's fill_random writes.
 * OpenMP-parallel. (rng.c) */
void sl_rand_fill(sl_dtype dt, void *dst, size_t n, uint64_t seed, uint64_t first);

#ifdef __cplusplus
}
#endif

#endif /* SL_RNG_H */
