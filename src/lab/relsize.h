/*
 * relsize.h - sizes relative to the machine (issue 14), beside plain counts:
 *   0.5xL2, 4xL2   a working set of that many times the device's L2 (the
 *                  CPU's last-level cache): "x" after a positive number
 *   25%mem         a working set of that share of the device's memory
 * The working set of n elements is the op's buffers at n: the sum over its
 * buffers of their element sizes (an add in f32: 12 bytes per element; a
 * reduction's one-element result counts for nothing), so
 * 4xL2 of an add on an H200 (60 MiB L2) is floor(4 x 62914560 / 12) =
 * 20971520 elements. Every device, op and dtype resolves the size for
 * itself; the table shows what it resolved to.
 */
#ifndef SL_RELSIZE_H
#define SL_RELSIZE_H

#include "harness.h"

enum { SL_SIZE_ABS = 0, SL_SIZE_L2, SL_SIZE_MEM };

typedef struct sl_size_spec {
    int kind;       /* SL_SIZE_* */
    double factor;  /* x L2, or the share of memory (25%mem: 0.25) */
    uint64_t n;     /* SL_SIZE_ABS: the count */
    char text[32];  /* as given */
} sl_size_spec;

/* Parse a comma-separated list: counts (sl_parse_count) and relative
 * sizes. Returns how many, or -1 with a reason naming the bad item. */
int sl_parse_size_specs(const char *list, sl_size_spec *out, int max, char *why, size_t why_len);

/* Any relative item in the list. */
bool sl_size_specs_relative(const sl_size_spec *s, int n);

/* The element count spec s names for op in dtype on ctx (at least 1);
 * 0 with a reason when the device does not say its L2 or memory size. */
uint64_t sl_size_resolve(const sl_size_spec *s, const sl_ctx *ctx, const sl_op_desc *op, sl_dtype dt, char *why,
                         size_t why_len);

/* Resolve every spec for cfg's op and dtype on ctx into shapes[0..n) and
 * labels[0..n) (the spec's text for a relative size, NULL for a count),
 * caller storage, and point cfg at them. SL_ERR_INVALID_ARG with the
 * reason when a size cannot be resolved. */
sl_status sl_size_apply(sl_run_config *cfg, const sl_size_spec *specs, int n, const sl_ctx *ctx, sl_shape *shapes,
                        const char **labels);

#endif /* SL_RELSIZE_H */
