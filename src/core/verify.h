/*
 * verify.h - checking a kernel's output against the CPU reference.
 */
#ifndef SL_VERIFY_H
#define SL_VERIFY_H

#include "internal.h"
#include "registry.h"

#define SL_VERIFY_SHOW 10 /* mismatches recorded for the report */

typedef struct sl_mismatch {
    uint64_t index;
    uint32_t got;   /* bit patterns, zero-extended from the element size */
    uint32_t want;
} sl_mismatch;

typedef struct sl_check {
    uint64_t mismatches;             /* all of them */
    uint64_t inexact;                /* not bit-exact but within the variant's ulp_tolerance */
    sl_dtype dtype;                  /* of the compared output */
    int shown;                       /* first min(mismatches, SL_VERIFY_SHOW), in index order */
    sl_mismatch first[SL_VERIFY_SHOW];
} sl_check;

/* Fill dst[0..n) (host memory) with element first + i of the stream named
 * by seed, in dtype dt: sl_rand_f32(seed, first + i) narrowed with
 * sl_dtype_store (round to nearest-even, saturating for fp8). This is what
 * every backend's fill_random writes. */
void sl_rand_fill(sl_dtype dt, void *dst, size_t n, uint64_t seed, uint64_t first);

/* Compare the n output elements of c (backend memory) against the CPU
 * reference for v's semantics: v->op on inputs a and b of dtype dt
 * (sl_ref_ew; axpy with this alpha, y = b), or for a ceiling a copy of a.
 * The output dtype is sl_variant_out_dtype(v, dt). The inputs are
 * regenerated on the host: a[i] = element first_a + i of seed_a (see
 * sl_rand_fill), likewise b, which is what fill_random wrote on the device.
 * Bit for bit, or within v->ulp_tolerance ulps of the output dtype for a
 * peer that declares one (out->inexact counts those). Works in chunks of
 * 4 Mi elements, so host memory stays bounded for any n.
 * Returns SL_OK when the comparison ran (out->mismatches says how it went),
 * or the status of a failed download. */
sl_status sl_verify(sl_ctx *ctx, const sl_variant *v, sl_dtype dt, float alpha, size_t n, const void *c,
                    uint64_t seed_a, uint64_t first_a, uint64_t seed_b, uint64_t first_b, sl_check *out);

/* One line per recorded mismatch into buf: "c[12] = 0x7fc00000, want 0x3f800000 (1)". */
void sl_check_format(const sl_check *chk, char *buf, size_t len);

#endif /* SL_VERIFY_H */
