/*
 * The CPU side of every op: the generator, each op's reference and each
 * CPU rung against an oracle written here once more (independent of both),
 * at odd sizes, element offsets and every allowed aliasing, with the bytes
 * around each output checked for stray writes; the variant tables' shape;
 * and sl_verify_launch finding a one-ulp error.
 */
#define _DEFAULT_SOURCE /* mmap: MAP_ANONYMOUS */
#include "check.h"
#include "dtype_conv.h"
#include "internal.h"
#include "rng.h"
#include "verify.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static uint32_t bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static void test_rng(void)
{
    int bad = 0, neg = 0;
    for (uint64_t i = 0; i < 100000; i++) {
        float f = sl_rand_f32(42, i);
        float m = fabsf(f);
        if (!(m >= 0x1p-8f && m < 0x1p8f) || !isnormal(f))
            bad++;
        neg += f < 0;
        double d = sl_rand_f64(42, i), md = fabs(d);
        if (!(md >= 0x1p-8 && md < 0x1p8) || !isnormal(d))
            bad++;
    }
    CHECK(bad == 0, "%d values outside [2^-8, 2^8) or not normal", bad);
    CHECK(neg > 45000 && neg < 55000, "sign not balanced: %d negative of 100000", neg);
    CHECK(bits(sl_rand_f32(1, 7)) != bits(sl_rand_f32(2, 7)), "seed ignored");
    CHECK(bits(sl_rand_f32(1, 7)) != bits(sl_rand_f32(1, 8)), "index ignored");
    /* Golden values: results files record seeds, so a changed generator
     * would silently change what a recorded seed means. A change here must
     * be deliberate (and the GPU test compares the device fill with this). */
    CHECK(sl_rand_f32_bits(0, 0) == 0x3b8b05e5u, "golden (0, 0): 0x%08x", sl_rand_f32_bits(0, 0));
    CHECK(sl_rand_f32_bits(12345, 678) == 0xbe517b37u, "golden (12345, 678): 0x%08x", sl_rand_f32_bits(12345, 678));
    /* the f64 stream: 52 random mantissa bits, the same 64 random bits */
    CHECK((sl_rand_f64_bits(0, 0) & 0xfffffffffffffull) == (sl_rand_bits(0, 0) & 0xfffffffffffffull), "f64 mantissa");
}

/* ---- the oracle: each op's formula, once more ------------------------------ */

typedef struct oracle {
    const char *op;
    float (*f32)(const float *x, float s);
    double (*f64)(const double *x, double s);
} oracle;

static float o_copy32(const float *x, float s) { (void)s; return x[0]; }
static double o_copy64(const double *x, double s) { (void)s; return x[0]; }
static float o_scale32(const float *x, float s) { return s * x[0]; }
static double o_scale64(const double *x, double s) { return s * x[0]; }
static float o_add32(const float *x, float s) { (void)s; return x[0] + x[1]; }
static double o_add64(const double *x, double s) { (void)s; return x[0] + x[1]; }
/* triad a = b + s c: inputs (b, c) */
static float o_triad32(const float *x, float s) { return fmaf(s, x[1], x[0]); }
static double o_triad64(const double *x, double s) { return fma(s, x[1], x[0]); }
/* nstream a += b + s c: inputs (a, b, c) */
static float o_nstream32(const float *x, float s) { return x[0] + fmaf(s, x[2], x[1]); }
static double o_nstream64(const double *x, double s) { return x[0] + fma(s, x[2], x[1]); }
/* axpy y = alpha x + y: inputs (x, y) */
static float o_axpy32(const float *x, float s) { return fmaf(s, x[0], x[1]); }
static double o_axpy64(const double *x, double s) { return fma(s, x[0], x[1]); }

static const oracle oracles[] = {
    {"copy", o_copy32, o_copy64},       {"scale", o_scale32, o_scale64},       {"add", o_add32, o_add64},
    {"triad", o_triad32, o_triad64},    {"nstream", o_nstream32, o_nstream64}, {"axpy", o_axpy32, o_axpy64},
    {"dot", NULL, NULL}, /* a reduction: dot_oracle below */
};

static const oracle *oracle_for(const sl_op_desc *op)
{
    for (size_t i = 0; i < sizeof oracles / sizeof oracles[0]; i++)
        if (strcmp(oracles[i].op, op->name) == 0)
            return &oracles[i];
    return NULL;
}

/* sum a b in long double (x87: a 64-bit significand) in order; the
 * products of doubles are exact only in f32, so the bound below allows for
 * the rest. */
static long double dot_oracle(sl_dtype dt, const void *a, const void *b, size_t n, long double *mag)
{
    long double s = 0, m = 0;
    for (size_t i = 0; i < n; i++) {
        long double p = (long double)sl_dtype_load_f64(dt, a, i) * (long double)sl_dtype_load_f64(dt, b, i);
        s += p;
        m += fabsl(p);
    }
    *mag = m;
    return s;
}

/* ---- one case ---------------------------------------------------------------- */

typedef struct bufset {
    unsigned char *mem[SL_MAX_BUFS]; /* len + 16 elements each */
    void *ptr[SL_MAX_BUFS];
    unsigned char *orig[SL_MAX_BUFS]; /* the inputs as filled, for the oracle */
} bufset;

/* Run variant v of op on n elements of dt with buffer k at element offset
 * off[k] (alias[k] >= 0: buffer k is buffer alias[k]); check every written
 * buffer against the oracle and the guards around it. */
static void run_case(const sl_op_desc *op, const sl_variant *v, sl_dtype dt, size_t n, const int *off,
                     const int *alias)
{
    const oracle *o = oracle_for(op);
    const size_t es = sl_dtype_size(dt), len = n + 16;
    const sl_dtype odt = sl_variant_out_dtype(v, dt);
    bufset b;
    memset(&b, 0, sizeof b);
    double s = op->nscalars ? 1.75 : 0.0; /* the op's scalar: exact in every format */
    for (int k = 0; k < op->nbufs; k++) {
        b.mem[k] = malloc(len * 8);
        b.orig[k] = malloc(len * 8);
        memset(b.mem[k], 0xff, len * 8); /* poison: an unwritten element or a stray write shows */
        if (sl_role_read(op->bufs[k].role)) {
            sl_rand_fill(dt, b.mem[k] + off[k] * es, op->bufs[k].scalar ? 1 : n, 1000 + k, 0);
        }
        memcpy(b.orig[k], b.mem[k], len * 8);
    }
    for (int k = 0; k < op->nbufs; k++)
        b.ptr[k] = alias[k] >= 0 ? b.mem[alias[k]] + off[alias[k]] * es
                                 : b.mem[k] + off[k] * sl_dtype_size(sl_op_buf_dtype(op, k, dt, odt));
    sl_args x = {.op = op, .shape = sl_shape_1d(n), .n = n, .dtype = dt, .out_dtype = odt};
    for (int k = 0; k < op->nbufs; k++)
        x.buf[k] = b.ptr[k];
    x.scalar[0] = s;
    sl_status st = v->launch(&x);
    CHECK(st == SL_OK, "%s %s %s n=%zu: %s", op->name, v->name, sl_dtype_name(dt), n, sl_last_error());
    int w = sl_op_first_written(op);
    size_t bad = 0, stray = 0;
    if (v->copy) {
        int src = sl_op_first(op, SL_ROLE_IN);
        bad += memcmp(b.ptr[w], b.orig[src] + off[src] * es, n * es) != 0;
    } else if (o && o->f32) {
        /* elementwise: the inputs as filled, through the oracle */
        const unsigned char *in[SL_MAX_BUFS];
        int nin = 0;
        for (int k = 0; k < op->nbufs; k++)
            if (sl_role_read(op->bufs[k].role))
                in[nin++] = b.orig[k] + off[k] * es;
        unsigned char want[8];
        for (size_t i = 0; i < n; i++) {
            if (dt == SL_F64) {
                double xi[SL_MAX_BUFS];
                for (int j = 0; j < nin; j++)
                    xi[j] = sl_dtype_load_f64(dt, in[j], i);
                sl_dtype_store_f64(odt, want, 0, o->f64(xi, s));
            } else {
                float xi[SL_MAX_BUFS];
                for (int j = 0; j < nin; j++)
                    xi[j] = sl_dtype_load(dt, in[j], i);
                sl_dtype_store(odt, want, 0, o->f32(xi, (float)s));
            }
            bad += memcmp((const unsigned char *)b.ptr[w] + i * sl_dtype_size(odt), want, sl_dtype_size(odt)) != 0;
        }
    } else {
        /* dot */
        long double mag;
        long double ref = dot_oracle(dt, b.orig[0] + off[0] * es, b.orig[1] + off[1] * es, n, &mag);
        double got = sl_dtype_load_f64(dt, b.ptr[w], 0);
        double allowed = sl_dtype_ulp(dt, (double)ref) + (double)n * 0x1p-52 * (double)mag;
        bad += !(fabsl((long double)got - ref) <= allowed);
        CHECK(!bad, "dot %s %s n=%zu: %a, oracle %La (allowed %g)", v->name, sl_dtype_name(dt), n, got, ref, allowed);
    }
    /* nothing written outside the outputs, and no input changed unless it is written */
    for (int k = 0; k < op->nbufs; k++) {
        if (alias[k] >= 0)
            continue;
        const size_t kes = sl_dtype_size(sl_op_buf_dtype(op, k, dt, odt)), cnt = op->bufs[k].scalar ? 1 : n;
        int written = sl_role_written(op->bufs[k].role);
        for (int j = 0; j < op->nbufs; j++)
            written |= alias[j] == k && sl_role_written(op->bufs[j].role);
        for (size_t i = 0; i < len * 8; i++) {
            const int inside = i >= off[k] * kes && i < (off[k] + cnt) * kes;
            if (!(written && inside))
                stray += b.mem[k][i] != b.orig[k][i];
        }
    }
    CHECK(bad == 0, "%s %s %s n=%zu: %zu wrong elements", op->name, v->name, sl_dtype_name(dt), n, bad);
    CHECK(stray == 0, "%s %s %s n=%zu: %zu bytes changed outside the outputs", op->name, v->name, sl_dtype_name(dt),
          n, stray);
    for (int k = 0; k < op->nbufs; k++) {
        free(b.mem[k]);
        free(b.orig[k]);
    }
}

/* Every CPU variant of every op, in every dtype it runs. */
static void test_cpu_variants(void)
{
    const size_t sizes[] = {1, 3, 1023, 65537, (1u << 20) + 3};
    for (int i = 0; i < sl_op_count(); i++) {
        const sl_op_desc *op = sl_op_at(i);
        if (op->rank != 1)
            continue; /* a 2-D op has its own tests with their own oracle (test_transpose, test_cpu_matmul, test_softmax_cpu) */
        CHECK(oracle_for(op) != NULL, "op %s has no oracle in test_cpu.c: add its formula", op->name);
        for (int k = 0; k < op->nvariants; k++) {
            const sl_variant *v = &op->variants[k];
            if (v->backend != SL_BACKEND_CPU)
                continue;
            for (int d = 0; d < SL_DTYPE_COUNT; d++) {
                if (!sl_variant_supports(op, v, (sl_dtype)d))
                    continue;
                const int ran = check_count;
                for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
                    if (d != SL_F32 && d != SL_F64 && sizes[si] > 65537)
                        continue; /* the 16- and 8-bit paths are per element: keep the test quick */
                    for (int o = 0; o < 4; o++) {
                        int off[SL_MAX_BUFS], none[SL_MAX_BUFS];
                        for (int b = 0; b < SL_MAX_BUFS; b++) {
                            off[b] = (o * (b + 1) + b) % 7;
                            none[b] = -1;
                        }
                        run_case(op, v, (sl_dtype)d, sizes[si], off, none);
                        /* in place: an OUT buffer equal to each input in turn */
                        if (sizes[si] > 1024 || v->copy)
                            continue;
                        for (int w = 0; w < op->nbufs; w++) {
                            if (op->bufs[w].role != SL_ROLE_OUT || op->bufs[w].scalar)
                                continue;
                            for (int r = 0; r < op->nbufs; r++) {
                                if (op->bufs[r].role == SL_ROLE_OUT)
                                    continue;
                                int al[SL_MAX_BUFS];
                                memcpy(al, none, sizeof al);
                                al[w] = r;
                                run_case(op, v, (sl_dtype)d, sizes[si], off, al);
                            }
                        }
                    }
                }
                printf("  %-8s %-8s %-8s %d checks\n", op->name, v->name, sl_dtype_name((sl_dtype)d),
                       check_count - ran);
            }
        }
    }
}

/* Each op's reference against the oracle on one chunk, and hand-worked
 * values that pin the rounding. */
/* The scalar array a reference gets holds the op's nscalars values and no
 * more (sl_ref_args): here they end where a PROT_NONE page begins, so a
 * reference reading past them faults, with or without a sanitizer. */
static double *guarded_scalars(void **map, size_t *maplen, int nscalars)
{
    const size_t page = (size_t)sysconf(_SC_PAGESIZE);
    *maplen = 2 * page;
    unsigned char *m = mmap(NULL, *maplen, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return NULL;
    if (mprotect(m + page, page, PROT_NONE) != 0) {
        munmap(m, *maplen);
        return NULL;
    }
    *map = m;
    return (double *)(m + page) - nscalars;
}

static void test_references(void)
{
    for (int i = 0; i < sl_op_count(); i++) {
        const sl_op_desc *op = sl_op_at(i);
        const oracle *o = oracle_for(op);
        for (int d = 0; d < SL_DTYPE_COUNT; d++) {
            if (!o || !sl_op_supports(op, (sl_dtype)d))
                continue;
            const sl_dtype dt = (sl_dtype)d;
            const size_t n = 4099, es = sl_dtype_size(dt);
            unsigned char *in[SL_MAX_BUFS] = {0}, *out[SL_MAX_BUFS] = {0};
            for (int k = 0; k < op->nbufs; k++) {
                in[k] = malloc(n * 8);
                out[k] = malloc(n * 8);
                sl_rand_fill(dt, in[k], n, 77 + k, 0);
            }
            void *map = NULL;
            size_t maplen = 0;
            double *sp = guarded_scalars(&map, &maplen, op->nscalars);
            CHECK(sp != NULL, "mmap of a guarded scalar page failed");
            if (!sp)
                return;
            for (int k = 0; k < op->nscalars; k++)
                sp[k] = k == 0 ? -0.4 : 0.0;
            const double s[SL_MAX_SCALARS] = {op->nscalars ? sp[0] : 0.0, 0};
            sl_ref_args a = {.shape = sl_shape_1d(n), .lo = 0, .hi = n, .dtype = dt, .out_dtype = dt, .scalar = sp,
                             .last = true};
            for (int k = 0; k < op->nbufs; k++) {
                a.in[k] = sl_role_read(op->bufs[k].role) ? in[k] : NULL;
                a.out[k] = sl_role_written(op->bufs[k].role) ? out[k] : NULL;
            }
            op->reference(&a);
            const int w = sl_op_first_written(op);
            size_t bad = 0;
            if (o->f32) {
                const unsigned char *x[SL_MAX_BUFS];
                int nin = 0;
                for (int k = 0; k < op->nbufs; k++)
                    if (a.in[k])
                        x[nin++] = in[k];
                for (size_t e = 0; e < n; e++) {
                    unsigned char want[8];
                    if (dt == SL_F64) {
                        double xi[SL_MAX_BUFS];
                        for (int j = 0; j < nin; j++)
                            xi[j] = sl_dtype_load_f64(dt, x[j], e);
                        sl_dtype_store_f64(dt, want, 0, o->f64(xi, s[0]));
                    } else {
                        float xi[SL_MAX_BUFS];
                        for (int j = 0; j < nin; j++)
                            xi[j] = sl_dtype_load(dt, x[j], e);
                        sl_dtype_store(dt, want, 0, o->f32(xi, (float)s[0]));
                    }
                    bad += memcmp(out[w] + e * es, want, es) != 0;
                }
            } else {
                long double mag, ref = dot_oracle(dt, in[0], in[1], n, &mag);
                double got = sl_dtype_load_f64(dt, out[w], 0);
                /* Dot2 is within about 2 ulps of the fp64 rounding of the exact sum */
                bad += !(fabsl((long double)got - ref) <= 2 * sl_dtype_ulp(dt, (double)ref) + 0x1p-62 * mag);
                CHECK(a.scale > 0 && fabs(a.scale - (double)mag) <= 1e-12 * (double)mag, "dot scale %g vs %Lg",
                      a.scale, mag);
            }
            CHECK(bad == 0, "%s reference %s: %zu elements differ from the oracle", op->name, sl_dtype_name(dt), bad);
            munmap(map, maplen);
            for (int k = 0; k < op->nbufs; k++) {
                free(in[k]);
                free(out[k]);
            }
        }
    }
    /* pinned values: ties to even in f32 and the fused multiply-add */
    {
        float a[4] = {1.5f, 1.0f, 1.0f + 0x1p-23f, 0x1.fffffep127f}, b[4] = {2.25f, 0x1p-24f, 0x1p-24f, 0x1p104f}, c[4];
        sl_ref_args r = {.shape = sl_shape_1d(4), .lo = 0, .hi = 4, .dtype = SL_F32, .out_dtype = SL_F32,
                         .in = {a, b}, .out = {NULL, NULL, c}, .last = true};
        sl_op_add.reference(&r);
        CHECK(c[0] == 3.75f && c[1] == 1.0f && c[2] == 1.0f + 0x1p-22f && isinf(c[3]), "add ties: %a %a %a %a", c[0],
              c[1], c[2], c[3]);
        /* triad: fma(s, c, b) rounds once: s = 1 + 2^-12, c = 1 + 2^-12, b = -1 - 2^-11 gives 2^-24 exactly,
         * where s * c rounded first would give 0 */
        float tb[1] = {-1.0f - 0x1p-11f}, tc[1] = {1.0f + 0x1p-12f}, ta[1] = {0};
        const double ts[1] = {1.0 + 0x1p-12};
        sl_ref_args t = {.shape = sl_shape_1d(1), .lo = 0, .hi = 1, .dtype = SL_F32, .out_dtype = SL_F32,
                         .scalar = ts, .in = {tb, tc}, .out = {NULL, NULL, ta}, .last = true};
        sl_op_triad.reference(&t);
        CHECK(ta[0] == 0x1p-24f, "triad fused: %a, want 0x1p-24", ta[0]);
        /* dot of 1..4 with itself is 30, exactly; n = 0 gives 0 */
        double da[4] = {1, 2, 3, 4}, dr[1] = {-1};
        sl_ref_args dd = {.shape = sl_shape_1d(4), .lo = 0, .hi = 4, .dtype = SL_F64, .out_dtype = SL_F64,
                          .in = {da, da}, .out = {NULL, NULL, dr}, .last = true};
        sl_op_dot.reference(&dd);
        CHECK(dr[0] == 30.0 && dd.scale == 30.0, "dot 1..4: %g (scale %g)", dr[0], dd.scale);
        sl_ref_args d0 = {.shape = sl_shape_1d(0), .lo = 0, .hi = 0, .dtype = SL_F64, .out_dtype = SL_F64,
                          .in = {da, da}, .out = {NULL, NULL, dr}, .last = true};
        sl_op_dot.reference(&d0);
        CHECK(dr[0] == 0.0, "dot of nothing: %g", dr[0]);
    }
}

/* What every op's table must hold (issue 10): a CPU serial and omp rung and
 * api entry, a CUDA api entry and a peer; names unique per backend; a
 * variant's dtypes within its op's. */
static void test_tables(void)
{
    CHECK(sl_op_count() == SL_OP_COUNT, "table and enum agree");
    for (int i = 0; i < sl_op_count(); i++) {
        const sl_op_desc *op = sl_op_at(i);
        CHECK(op->id == (sl_op)i, "%s has id %d at %d", op->name, (int)op->id, i);
        CHECK(sl_op_find(op->name) == op, "find %s", op->name);
        CHECK(sl_variant_api(op, SL_BACKEND_CPU) && sl_variant_api(op, SL_BACKEND_CUDA), "%s: api entries", op->name);
        CHECK(sl_variant_find(op, SL_BACKEND_CPU, "serial") && sl_variant_find(op, SL_BACKEND_CPU, "omp"),
              "%s: CPU rungs", op->name);
        int peers = 0;
        for (int k = 0; k < op->nvariants; k++) {
            const sl_variant *v = &op->variants[k];
            peers += v->backend == SL_BACKEND_CUDA && v->kind == SL_KIND_PEER;
            CHECK(sl_variant_find(op, v->backend, v->name) == v, "%s: %s is not unique", op->name, v->name);
            CHECK((v->dtypes & ~op->dtypes) == 0, "%s %s: dtypes outside the op's", op->name, v->name);
            CHECK(v->technique && v->source, "%s %s: technique and source", op->name, v->name);
        }
        /* No library offers the 2-D star stencil (issue 11 names only the
         * copy ceiling for it). The peers of the norms (issue 32),
         * softmax_bwd and the cross-entropy ops (issue 33) are Python
         * libraries (torch, Liger-Kernel, quack), timed beside streamlab's
         * Python functions in one process (bench/row_peers.py), not from C. */
        CHECK(peers >= 1 || strcmp(op->name, "stencil") == 0 || strncmp(op->name, "rmsnorm", 7) == 0 ||
                  strncmp(op->name, "layernorm", 9) == 0 || strcmp(op->name, "add_rmsnorm") == 0 ||
                  strcmp(op->name, "softmax_bwd") == 0 || strncmp(op->name, "xent", 4) == 0,
              "%s: a peer", op->name);
        sl_shape one = sl_shape_1d(1000);
        sl_traffic t = sl_op_traffic(op, &one, SL_F32, SL_F32);
        CHECK(t.rd_bytes > 0 && t.rd_streams >= 1, "%s: reads", op->name);
    }
    /* byte counts: BabelStream's weights (copy 2, mul 2, add 3, triad 3,
     * dot 2, nstream 4 arrays) and axpy's 3 */
    const struct {
        const char *op;
        double arrays;
    } w[] = {{"copy", 2}, {"scale", 2}, {"add", 3}, {"triad", 3}, {"dot", 2}, {"nstream", 4}, {"axpy", 3}};
    for (size_t i = 0; i < sizeof w / sizeof w[0]; i++) {
        const sl_op_desc *op = sl_op_find(w[i].op);
        CHECK(op != NULL, "op %s", w[i].op);
        if (!op)
            continue;
        sl_shape s = sl_shape_1d(1u << 20);
        sl_traffic t = sl_op_traffic(op, &s, SL_F64, SL_F64);
        double arrays = (t.rd_bytes + t.wr_bytes) / (8.0 * (1u << 20));
        CHECK(fabs(arrays - w[i].arrays) < 1e-5, "%s moves %.6f arrays, want %g", w[i].op, arrays, w[i].arrays);
    }
    /* fp8out: 9 bytes per f32 element */
    const sl_variant *f8 = sl_variant_find(&sl_op_add, SL_BACKEND_CUDA, "fp8out");
    CHECK(f8 && sl_variant_bytes_per_elem(&sl_op_add, f8, SL_F32) == 9.0, "fp8out moves 9 B/element");
}

/* sl_verify_launch on the CPU backend: a correct buffer passes, a wrong
 * element is found and reported with its index. */
static void test_verify(void)
{
    sl_ctx *ctx;
    CHECK(sl_ctx_create(SL_DEVICE_CPU, &ctx) == SL_OK, "cpu ctx: %s", sl_last_error());
    const sl_variant *omp = sl_variant_find(&sl_op_add, SL_BACKEND_CPU, "omp");
    size_t n = 100003;
    float *a = malloc(n * 4), *b = malloc(n * 4), *c = malloc(n * 4);
    ctx->ops->fill_random(ctx, SL_F32, a, n, 5);
    ctx->ops->fill_random(ctx, SL_F32, b, n, 6);
    ctx->ops->poison(ctx, c, n * 4);
    void *const bufs[] = {a, b, c};
    uint64_t seeds[] = {5, 6, 0}, first[] = {0, 0, 0};
    sl_check chk;
    CHECK(sl_verify_launch(ctx, &sl_op_add, omp, SL_F32, NULL, n, bufs, seeds, first, &chk) == SL_OK, "verify ran");
    CHECK(chk.mismatches == n, "a poisoned output must fail everywhere: %llu", (unsigned long long)chk.mismatches);
    sl_args x = {.op = &sl_op_add, .shape = sl_shape_1d(n), .n = n, .buf = {a, b, c}, .dtype = SL_F32,
                 .out_dtype = SL_F32};
    omp->launch(&x);
    sl_verify_launch(ctx, &sl_op_add, omp, SL_F32, NULL, n, bufs, seeds, first, &chk);
    CHECK(chk.mismatches == 0, "correct output: %llu mismatches", (unsigned long long)chk.mismatches);
    c[77777] = nextafterf(c[77777], INFINITY); /* one ulp off */
    sl_verify_launch(ctx, &sl_op_add, omp, SL_F32, NULL, n, bufs, seeds, first, &chk);
    CHECK(chk.mismatches == 1 && chk.shown == 1 && chk.first[0].index == 77777, "one ulp at 77777: %llu",
          (unsigned long long)chk.mismatches);
    seeds[1] = 7;
    sl_verify_launch(ctx, &sl_op_add, omp, SL_F32, NULL, n, bufs, seeds, first, &chk);
    CHECK(chk.mismatches > n / 2, "wrong seed for b must fail");
    /* a reduction: the tolerance admits rounding but not a dropped term */
    const sl_variant *dot = sl_variant_find(&sl_op_dot, SL_BACKEND_CPU, "omp");
    double r = 0;
    void *const dbufs[] = {a, b, &r};
    uint64_t dseeds[] = {5, 6, 0};
    sl_args dx = {.op = &sl_op_dot, .shape = sl_shape_1d(n), .n = n, .buf = {a, b, &r}, .dtype = SL_F32,
                  .out_dtype = SL_F32};
    float rf = 0;
    dx.buf[2] = &rf;
    void *const dfbufs[] = {a, b, &rf};
    (void)dbufs;
    ctx->ops->fill_random(ctx, SL_F32, a, n, 5);
    ctx->ops->fill_random(ctx, SL_F32, b, n, 6);
    dot->launch(&dx);
    CHECK(sl_verify_launch(ctx, &sl_op_dot, dot, SL_F32, NULL, n, dfbufs, dseeds, first, &chk) == SL_OK &&
              chk.mismatches == 0,
          "dot omp verifies: %llu", (unsigned long long)chk.mismatches);
    size_t big = 0; /* the largest term: dropping it must show above the bound */
    for (size_t i = 1; i < n; i++)
        if (fabsf(a[i] * b[i]) > fabsf(a[big] * b[big]))
            big = i;
    rf = (float)((double)rf - (double)a[big] * (double)b[big]);
    sl_verify_launch(ctx, &sl_op_dot, dot, SL_F32, NULL, n, dfbufs, dseeds, first, &chk);
    CHECK(chk.mismatches == 1, "dot without one term must fail");
    free(a);
    free(b);
    free(c);
    sl_ctx_destroy(ctx);
}

int main(void)
{
    test_rng();
    test_tables();
    test_references();
    test_cpu_variants();
    test_verify();
    return check_exit("test_cpu");
}
