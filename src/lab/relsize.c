/*
 * relsize.c - see relsize.h.
 */
#include "relsize.h"

#include "sizes.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "0.5xL2" / "25%mem" into spec; 1 if it is one, 0 if not relative, -1 bad. */
static int parse_relative(const char *item, sl_size_spec *spec, char *why, size_t len)
{
    size_t n = strlen(item);
    int kind;
    size_t tail;
    if (n > 3 && (item[n - 3] == 'x' || item[n - 3] == 'X') && (item[n - 2] == 'L' || item[n - 2] == 'l') &&
        item[n - 1] == '2') {
        kind = SL_SIZE_L2;
        tail = 3;
    } else if (n > 4 && item[n - 4] == '%' && strncmp(item + n - 3, "mem", 3) == 0) {
        kind = SL_SIZE_MEM;
        tail = 4;
    } else {
        return 0;
    }
    char num[32];
    if (n - tail >= sizeof num) {
        snprintf(why, len, "the number is too long");
        return -1;
    }
    memcpy(num, item, n - tail);
    num[n - tail] = '\0';
    char *end;
    double f = strtod(num, &end);
    if (!num[0] || *end || !(f > 0) || !isfinite(f)) {
        snprintf(why, len, "'%s' before %s is not a positive number", num, kind == SL_SIZE_L2 ? "xL2" : "%mem");
        return -1;
    }
    if (kind == SL_SIZE_MEM && f > 100) {
        snprintf(why, len, "more than 100%% of memory");
        return -1;
    }
    if (kind == SL_SIZE_L2 && f > 1e6) {
        snprintf(why, len, "more than 1e6 x L2");
        return -1;
    }
    spec->kind = kind;
    spec->factor = kind == SL_SIZE_MEM ? f / 100 : f;
    spec->n = 0;
    return 1;
}

int sl_parse_size_specs(const char *list, sl_size_spec *out, int max, char *why, size_t len)
{
    if (!list || !*list) {
        snprintf(why, len, "empty size list");
        return -1;
    }
    int count = 0;
    const char *p = list;
    for (;;) {
        const char *comma = strchr(p, ',');
        size_t il = comma ? (size_t)(comma - p) : strlen(p);
        char item[32], reason[160];
        if (il == 0 || il >= sizeof item) {
            snprintf(why, len, "bad size '%.*s': %s", (int)(il < 40 ? il : 40), p,
                     il ? "too long" : "empty item in the list");
            return -1;
        }
        if (count == max) {
            snprintf(why, len, "too many sizes (at most %d)", max);
            return -1;
        }
        memcpy(item, p, il);
        item[il] = '\0';
        sl_size_spec *s = &out[count];
        memset(s, 0, sizeof *s);
        snprintf(s->text, sizeof s->text, "%s", item);
        int rel = parse_relative(item, s, reason, sizeof reason);
        if (rel < 0) {
            snprintf(why, len, "bad size '%s': %s", item, reason);
            return -1;
        }
        if (rel == 0) {
            if (sl_parse_count(item, &s->n, reason, sizeof reason) != 0) {
                snprintf(why, len, "bad size '%s': %s (or a relative size: 0.5xL2, 25%%mem)", item, reason);
                return -1;
            }
            s->kind = SL_SIZE_ABS;
        }
        count++;
        if (!comma)
            break;
        p = comma + 1;
    }
    return count;
}

bool sl_size_specs_relative(const sl_size_spec *s, int n)
{
    for (int i = 0; i < n; i++)
        if (s[i].kind != SL_SIZE_ABS)
            return true;
    return false;
}

uint64_t sl_size_resolve(const sl_size_spec *s, const sl_ctx *ctx, const sl_op_desc *op, sl_dtype dt, char *why,
                         size_t len)
{
    if (s->kind == SL_SIZE_ABS)
        return s->n;
    const double total = s->kind == SL_SIZE_L2 ? (double)ctx->info.l2_bytes : (double)ctx->info.mem_total;
    if (total <= 0) {
        snprintf(why, len, "%s: %s does not report its %s size", s->text, ctx->info.name,
                 s->kind == SL_SIZE_L2 ? "L2 (or last-level cache)" : "memory");
        return 0;
    }
    /* bytes per element of the working set: every buffer at n elements */
    /* (a reduction's result buffer does not grow with n: measured at 2^20) */
    const sl_shape probe = sl_shape_1d((uint64_t)1 << 20);
    double bpe = 0;
    for (int k = 0; k < op->nbufs; k++)
        bpe += (double)sl_op_buf_elems(op, k, &probe) * (double)sl_dtype_size(sl_op_buf_dtype(op, k, dt, dt));
    bpe /= (double)((uint64_t)1 << 20);
    if (bpe <= 0) {
        snprintf(why, len, "%s: op %s has no buffers", s->text, op->name);
        return 0;
    }
    const double n = floor(s->factor * total / bpe);
    return n < 1 ? 1 : n > 1.8e19 ? UINT64_MAX : (uint64_t)n;
}

sl_status sl_size_apply(sl_run_config *cfg, const sl_size_spec *specs, int n, const sl_ctx *ctx, sl_shape *shapes,
                        const char **labels)
{
    char why[256];
    for (int i = 0; i < n; i++) {
        uint64_t e = sl_size_resolve(&specs[i], ctx, cfg->op, cfg->dtype, why, sizeof why);
        if (e == 0)
            return sl_fail(SL_ERR_INVALID_ARG, "%s", why);
        shapes[i] = sl_shape_1d(e);
        labels[i] = specs[i].kind == SL_SIZE_ABS ? NULL : specs[i].text;
    }
    cfg->shapes = shapes;
    cfg->size_labels = labels;
    cfg->nshapes = n;
    return SL_OK;
}
