/*
 * probe_ops.c - the CPU backend's probe primitives (probe_ops.h), OpenMP over
 * host memory. There is no launch overhead or occupancy to probe on a CPU:
 * those primitives are NULL and their probes are skipped.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, CLOCK_MONOTONIC under -std=c11 */
#include "cpu.h"
#include "probe_ops.h"

#include <omp.h>
#include <string.h>
#include <time.h>

static sl_status read_(sl_ctx *ctx, const void *src, size_t words, int vec, int ilp, int warps_per_sm, int passes,
                       int cg, uint32_t *sum, int *warps_used)
{
    (void)ctx;
    (void)cg;
    (void)vec;
    (void)ilp;
    (void)warps_per_sm;
    const uint32_t *w = src;
    uint32_t acc = 0;
    for (int p = 0; p < passes; p++) {
#pragma omp parallel for reduction(+ : acc) schedule(static)
        for (size_t i = 0; i < words; i++)
            acc += w[i];
    }
    *sum += acc;
    if (warps_used)
        *warps_used = 0;
    return SL_OK;
}

static sl_status read_collect_(sl_ctx *ctx, uint32_t *sum, uint32_t *total)
{
    (void)ctx;
    *total = *sum;
    *sum = 0;
    return SL_OK;
}

static sl_status write_(sl_ctx *ctx, void *dst, size_t count, size_t stride, uint32_t value)
{
    (void)ctx;
    uint32_t *w = dst;
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < count; i++)
        w[i * stride] = value + (uint32_t)i;
    return SL_OK;
}

static sl_status copy_(sl_ctx *ctx, void *dst, const void *src, size_t words)
{
    (void)ctx;
    const uint32_t *restrict s = src;
    uint32_t *restrict d = dst;
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < words; i++)
        d[i] = s[i];
    return SL_OK;
}

static sl_status copy_strided_(sl_ctx *ctx, void *dst, const void *src, size_t count, size_t stride, size_t offset)
{
    (void)ctx;
    const uint32_t *s = src;
    uint32_t *d = dst;
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < count; i++)
        d[i] = s[offset + i * stride];
    return SL_OK;
}

static sl_status mismatches_(sl_ctx *ctx, const void *dst, size_t dst_stride, const void *src, size_t src_stride,
                             size_t src_offset, size_t count, uint32_t value, uint64_t *bad)
{
    (void)ctx;
    const uint32_t *d = dst, *s = src;
    uint64_t n = 0;
#pragma omp parallel for reduction(+ : n) schedule(static)
    for (size_t i = 0; i < count; i++)
        n += d[i * dst_stride] != (s ? s[src_offset + i * src_stride] : value + (uint32_t)i);
    *bad = n;
    return SL_OK;
}

static sl_status chase_(sl_ctx *ctx, const void *next, uint32_t start, uint64_t steps, uint32_t node_words,
                        uint32_t *end, double *cycles, double *ms)
{
    (void)ctx;
    const volatile uint32_t *w = next; /* every hop a real load */
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    uint32_t j = start;
    for (uint64_t s = 0; s < steps; s++)
        j = w[(size_t)j * node_words];
    clock_gettime(CLOCK_MONOTONIC, &t1);
    *end = j;
    *cycles = -1.0;
    *ms = (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) * 1e-6;
    return SL_OK;
}

const sl_probe_ops sl_cpu_probe_ops = {
    .read = read_,
    .read_collect = read_collect_,
    .write = write_,
    .copy = copy_,
    .copy_strided = copy_strided_,
    .mismatches = mismatches_,
    .chase = chase_,
    .launch = NULL,
    .smem = NULL,
};
