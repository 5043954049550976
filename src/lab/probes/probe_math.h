/*
 * probe_math.h - the host-side arithmetic of the microbenchmarks, kept apart
 * from the kernels so the CPU tests can check it: random cyclic
 * permutations for the pointer chase, sector counting for strided and
 * offset accesses, plateau and knee finding.
 */
#ifndef SL_PROBE_MATH_H
#define SL_PROBE_MATH_H

#include <stddef.h>
#include <stdint.h>

/* next[0..n) becomes one random cycle through all n nodes (Sattolo's
 * algorithm: a uniformly random cyclic permutation; Sattolo, "An algorithm
 * to generate a random cyclic permutation", IPL 22, 1986). n >= 2.
 * Each node is visited once per lap, in an order no prefetcher can follow. */
void sl_random_cycle(uint32_t *next, size_t n, uint64_t seed);

/* The node reached from `start` after `steps` hops: what the device chase
 * must return. */
uint32_t sl_chase_end(const uint32_t *next, uint32_t start, uint64_t steps);

/* 1 if next is a single cycle covering all n nodes, else 0. */
int sl_is_single_cycle(const uint32_t *next, size_t n);

/* Distinct 32-byte sectors touched when `count` threads access elem_bytes
 * each at byte addresses offset + i * stride_bytes (i = 0..count-1). */
size_t sl_sectors_touched(size_t offset, size_t stride_bytes, size_t elem_bytes, size_t count);

/* Useful bytes / (sectors touched x 32) for one warp of 32 threads reading
 * elem_bytes at a stride of stride_elems elements, from an aligned base:
 * 1.0 for unit stride, 1/8 for 4-byte elements at stride >= 8 (seed 004,
 * "Access patterns"; seed 002, strided copy). */
double sl_sector_efficiency(size_t stride_elems, size_t elem_bytes);

/* Median of y over the points whose x lies in [lo, hi]; -1 if none. */
double sl_plateau(const double *x, const double *y, int n, double lo, double hi);

/* Little's law (seed 001 section 2.2, seed 004): the latency, in ns, that
 * explains `gbs` GB/s with `bytes_in_flight` bytes outstanding: L = B / BW. */
double sl_littles_latency_ns(double bytes_in_flight, double gbs);

/* The knee of a bandwidth-vs-bytes-in-flight curve: the smallest x (bytes
 * in flight per SM) whose y (GB/s) reaches `target`. Returns its index, or
 * -1 if no point reaches it. Points need not be sorted. */
int sl_knee(const double *x, const double *y, int n, double target);

/* Shared-memory wavefronts of one warp access (seed 004, "Shared Memory
 * Bank Conflicts" and "Bank Conflict Resolution", lines 598-707): lane l
 * accesses the word_bytes-byte word (4, 8 or 16) at word index l x
 * stride. 32 banks of 4 bytes; 4-byte words are served in one phase of 32
 * lanes, 8-byte in two of 16, 16-byte in four of 8; within a phase, the
 * lanes that touch different 4-byte words of one bank conflict, and the
 * phase takes as many wavefronts as the busiest bank has distinct words
 * (the same word is a broadcast: no conflict). Returns the sum over the
 * phases; -1 for a word size or stride out of range (stride >= 0). */
int sl_smem_wavefronts(int word_bytes, int stride);

#endif /* SL_PROBE_MATH_H */
