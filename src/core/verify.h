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
    uint32_t got;   /* bit patterns */
    uint32_t want;
} sl_mismatch;

typedef struct sl_check {
    uint64_t mismatches;             /* all of them */
    int shown;                       /* first min(mismatches, SL_VERIFY_SHOW), in index order */
    sl_mismatch first[SL_VERIFY_SHOW];
} sl_check;

/* Compare the n elements of c (backend memory) bit for bit against the CPU
 * reference for v's semantics (an add ladder entry: a + b via
 * sl_ref_add_f32; a ceiling: a copy of a). The inputs are regenerated on
 * the host: a[i] = sl_rand_f32(seed_a, first_a + i), likewise b, which is
 * what fill_random wrote on the device. Works in chunks of 4 Mi elements,
 * so host memory stays at 64 MiB for any n.
 * Returns SL_OK when the comparison ran (out->mismatches says how it went),
 * or the status of a failed download. */
sl_status sl_verify(sl_ctx *ctx, const sl_variant *v, sl_dtype dt, size_t n, const void *c,
                    uint64_t seed_a, uint64_t first_a, uint64_t seed_b, uint64_t first_b, sl_check *out);

/* One line per recorded mismatch into buf: "c[12] = 0x7fc00000, want 0x3f800000 (1)". */
void sl_check_format(const sl_check *chk, char *buf, size_t len);

#endif /* SL_VERIFY_H */
