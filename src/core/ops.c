/*
 * ops.c - the op table (from ops.def) and what every consumer asks of a
 * descriptor: lookups, dtypes, buffer roles and the one byte count.
 */
#include "op.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const sl_op_desc *const table[] = {
#define SL_OP(ID, name) &sl_op_##name,
#include "../ops/ops.def"
#undef SL_OP
};

int sl_op_count(void)
{
    return (int)(sizeof table / sizeof table[0]);
}

const sl_op_desc *sl_op_at(int i)
{
    return i >= 0 && i < sl_op_count() ? table[i] : NULL;
}

const sl_op_desc *sl_op_find(const char *name)
{
    for (int i = 0; name && i < sl_op_count(); i++)
        if (strcmp(table[i]->name, name) == 0)
            return table[i];
    return NULL;
}

void sl_op_names(char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = 0;
    for (int i = 0; i < sl_op_count() && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? ", " : "", table[i]->name);
}

bool sl_op_supports(const sl_op_desc *op, sl_dtype dt)
{
    return (unsigned)dt < SL_DTYPE_COUNT && (op->dtypes >> dt) & 1u;
}

void sl_op_dtype_list(const sl_op_desc *op, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = 0;
    for (int d = 0; d < SL_DTYPE_COUNT && used < len; d++)
        if (sl_op_supports(op, (sl_dtype)d))
            used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? ", " : "", sl_dtype_name((sl_dtype)d));
}

bool sl_variant_supports(const sl_op_desc *op, const sl_variant *v, sl_dtype dt)
{
    unsigned mask = v->dtypes ? v->dtypes : op->dtypes;
    return sl_op_supports(op, dt) && (mask >> dt) & 1u;
}

const sl_variant *sl_variant_find(const sl_op_desc *op, sl_backend b, const char *name)
{
    for (int i = 0; name && i < op->nvariants; i++)
        if (op->variants[i].backend == b && strcmp(op->variants[i].name, name) == 0)
            return &op->variants[i];
    return NULL;
}

const sl_variant *sl_variant_api(const sl_op_desc *op, sl_backend b)
{
    for (int i = 0; i < op->nvariants; i++)
        if (op->variants[i].backend == b && op->variants[i].kind == SL_KIND_API)
            return &op->variants[i];
    return NULL;
}

const char *sl_kind_name(sl_kind k)
{
    switch (k) {
    case SL_KIND_CEILING: return "ceiling";
    case SL_KIND_PEER: return "peer";
    case SL_KIND_RUNG: return "rung";
    case SL_KIND_API: return "api";
    }
    return "?";
}

int sl_op_first(const sl_op_desc *op, sl_role role)
{
    for (int k = 0; k < op->nbufs; k++)
        if (op->bufs[k].role == role)
            return k;
    return -1;
}

int sl_op_first_written(const sl_op_desc *op)
{
    for (int k = 0; k < op->nbufs; k++)
        if (sl_role_written(op->bufs[k].role))
            return k;
    return -1;
}

bool sl_op_shape_ok(const sl_op_desc *op, const sl_shape *s, char *why, size_t len)
{
    if (s->k && !op->third_side) {
        snprintf(why, len, "%s takes two sides, ROWSxCOLS or ROWSxCOLS:LD, not a third (%llu)", op->name,
                 (unsigned long long)s->k);
        return false;
    }
    return op->shape_ok ? op->shape_ok(s, why, len) : true;
}

int sl_ceiling_dst(const sl_op_desc *op, const sl_shape *s)
{
    int src = sl_op_first(op, SL_ROLE_IN);
    if (src < 0)
        src = 0;
    /* the copy moves rows x cols elements, at most the input's span */
    const uint64_t span = sl_op_buf_elems(op, src, s), elems = sl_shape_elems(s);
    const uint64_t n = elems < span ? elems : span;
    for (int k = 0; k < op->nbufs; k++)
        if (sl_role_written(op->bufs[k].role) && op->bufs[k].kind == SL_BUF_DATA && sl_op_buf_elems(op, k, s) >= n)
            return k;
    return -1;
}

uint64_t sl_op_buf_elems(const sl_op_desc *op, int k, const sl_shape *s)
{
    if (op->bufs[k].scalar)
        return 1;
    return op->buf_elems ? op->buf_elems(s, k) : sl_shape_span(s);
}

sl_dtype sl_op_buf_dtype(const sl_op_desc *op, int k, sl_dtype in, sl_dtype out)
{
    if (op->bufs[k].kind != SL_BUF_DATA)
        return SL_F32; /* f32, or 4-byte indices (op.h, sl_buf_kind) */
    return op->bufs[k].role == SL_ROLE_OUT ? out : in;
}

size_t sl_variant_workspace(const sl_variant *v, sl_dtype dt, const sl_shape *s)
{
    if (v->workspace_shape)
        return v->workspace_shape(dt, s);
    return v->workspace ? v->workspace(dt, sl_shape_elems(s)) : 0;
}

sl_dtype sl_variant_out_dtype(const sl_variant *v, sl_dtype dt)
{
    return v->fixed_out ? v->out_dtype : dt;
}

/* The roles rule: every IN and INOUT buffer read once, every OUT and INOUT
 * buffer written once, over the shape's elements (padding between rows is
 * not touched), a scalar buffer being one element. */
sl_traffic sl_op_traffic(const sl_op_desc *op, const sl_shape *s, sl_dtype in, sl_dtype out)
{
    if (op->traffic)
        return op->traffic(s, in, out);
    sl_traffic t = {0, 0, 0, 0};
    const double elems = (double)sl_shape_elems(s);
    for (int k = 0; k < op->nbufs; k++) {
        const sl_buf_desc *b = &op->bufs[k];
        const double n = b->scalar ? 1.0 : op->buf_elems ? (double)op->buf_elems(s, k) : elems;
        if (sl_role_read(b->role)) {
            t.rd_bytes += n * (double)sl_dtype_size(sl_op_buf_dtype(op, k, in, in));
            t.rd_streams += !b->scalar;
        }
        if (sl_role_written(b->role)) {
            t.wr_bytes += n * (double)sl_dtype_size(sl_op_buf_dtype(op, k, in, out));
            t.wr_streams += !b->scalar;
        }
    }
    return t;
}

sl_traffic sl_variant_traffic(const sl_op_desc *op, const sl_variant *v, const sl_shape *s, sl_dtype dt)
{
    if (v->copy) {
        /* the copy ceiling: the first input's bytes, once in and once out */
        const double bytes = (double)sl_shape_elems(s) * (double)sl_dtype_size(dt);
        sl_traffic t = {bytes, bytes, 1, 1};
        return t;
    }
    return sl_op_traffic(op, s, dt, sl_variant_out_dtype(v, dt));
}

sl_traffic sl_variant_moved(const sl_op_desc *op, const sl_variant *v, const sl_shape *s, sl_dtype dt)
{
    return v->moved && !v->copy ? v->moved(s, dt) : sl_variant_traffic(op, v, s, dt);
}

double sl_op_flops(const sl_op_desc *op, const sl_shape *s)
{
    return op->flops ? op->flops(s) : op->flops_per_elem * (double)sl_shape_elems(s);
}

double sl_variant_flops(const sl_op_desc *op, const sl_variant *v, const sl_shape *s)
{
    return v->copy ? 0.0 : sl_op_flops(op, s);
}

double sl_variant_bytes_per_elem(const sl_op_desc *op, const sl_variant *v, sl_dtype dt)
{
    sl_shape one = sl_shape_1d(1u << 20);
    sl_traffic t = sl_variant_traffic(op, v, &one, dt);
    return (t.rd_bytes + t.wr_bytes) / (double)(1u << 20);
}
