/*
 * norm_check.h - the rmsnorm tests' shared body (issue 32), run on the CPU
 * context by test_rmsnorm_cpu.c and on a CUDA context by
 * test_gpu_rmsnorm.c: every rung of the context's backend and the public
 * functions, in f32, bf16 and f16 with w in the same dtype or f32, at odd
 * shapes, misaligned pointers, in place, rows of zeros, huge values and
 * NaN, against an fp64 oracle written here (its own bf16 / f16 decoding:
 * no conversion code shared with the library's reference); the backward
 * also against central finite differences of the fp64 forward, with dw
 * checked for determinism (the same bits twice) and the public API's
 * errors. Buffers come from the including test's allocator (host memory,
 * or CUDA managed memory), with poisoned guard bytes around every output.
 */
#ifndef SL_TEST_NORM_CHECK_H
#define SL_TEST_NORM_CHECK_H

#include "check.h"
#include "dtype_conv.h"
#include "internal.h"
#include "op.h"
#include "rmsnorm_bwd.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The including test's memory: visible to the host and to the context. */
typedef struct nmem {
    void *(*alloc)(size_t bytes);
    void (*release)(void *p);
    int (*sync)(void); /* 0: the context's work is done */
} nmem;

static const nmem *nm;
enum { NGUARD = 64 };  /* poisoned bytes before and after every output */
static double worst_u; /* the largest error seen, in units of the bound's relative part (u = 2^-24) */
static long tight_fail; /* elements failing a bound 256 times tighter than the op's */
static int t_quick;     /* SL_NORM_QUICK or STREAMLAB_TEST_QUICK (compute-sanitizer): f32 and bf16, rows up to 32768 */

/* ---- our own decoding (not dtype_conv.c) ---------------------------------- */
static double t_dec(sl_dtype dt, const void *p, size_t i)
{
    if (dt == SL_F32) {
        float f;
        memcpy(&f, (const char *)p + 4 * i, 4);
        return f;
    }
    uint16_t h;
    memcpy(&h, (const char *)p + 2 * i, 2);
    if (dt == SL_BF16) {
        const uint32_t u = (uint32_t)h << 16;
        float f;
        memcpy(&f, &u, 4);
        return f;
    }
    const int e = (h >> 10) & 31, m = h & 1023, s = h >> 15;
    double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp(1024 + m, e - 25);
    return s ? -v : v;
}

/* One ulp of a 16-bit dtype at v (0 for f32: the relative bound covers it). */
static double t_ulp16(sl_dtype dt, double v)
{
    if (dt == SL_F32 || v != v)
        return 0.0;
    int e;
    frexp(fabs(v), &e); /* |v| in [2^(e-1), 2^e) */
    const int p = dt == SL_BF16 ? 8 : 11, emin = dt == SL_BF16 ? -126 : -14;
    const int ee = e - 1 < emin ? emin : e - 1;
    return ldexp(1.0, ee - p + 1);
}

/* A forward rung that stages the row in shared memory: bulk (seventh
 * session) and the one-sided exchange's configurations bulk_ex,
 * bulk_ex512, bulk_ex128 and bulk_cp (common/norm_fwd_bulk.cuh). */
static inline int t_fwd_bulk_rung(const char *name)
{
    return strncmp(name, "bulk", 4) == 0;
}

/* The longest row of x, in bytes, that forward bulk rung `name` must run
 * (8 chunks of its block x vectors a thread; nin = 2: the fused add,
 * which stages x and res): beyond it, it must refuse. */
static inline size_t t_fwd_bulk_max(const char *name, int nin)
{
    if (strcmp(name, "bulk") == 0)
        return (size_t)512 << 10 >> (nin - 1);
    if (strcmp(name, "bulk_ex512") == 0)
        return (size_t)512 << 10 >> (nin - 1);
    if (strcmp(name, "bulk_ex128") == 0)
        return (size_t)128 << 10;
    return (size_t)256 << 10; /* bulk_ex, bulk_cp */
}

/* A forward register rung (regs, regs_pf, regs_1k, lean, lean4, decode,
 * aligned) or a bulk rung: it may refuse x and y at different 16-byte
 * offsets, or a row beyond a cluster's registers (decode: beyond 1024
 * vectors; bulk: beyond 8 chunks), or (decode, aligned, bulk) any buffer
 * off 16 bytes or cols not a whole number of vectors, or (bulk) a device
 * before sm_90 (SL_ERR_UNSUPPORTED; the API then runs another rung).
 * t_bulk_cases checks that a bulk rung runs where it must and refuses the
 * rest. */
static inline int t_fwd_regs_rung(const char *name)
{
    return strncmp(name, "regs", 4) == 0 || strncmp(name, "lean", 4) == 0 || strcmp(name, "decode") == 0 ||
           strcmp(name, "aligned") == 0 || t_fwd_bulk_rung(name);
}

/* A backward register rung: regs, regs_pf, regs_sm, or aligned,
 * aligned_pf, aligned_sm, aligned_pf3, aligned_pfx and aligned_pf3x (their
 * forms for aligned launches only: every rung named aligned*). */
static inline int t_bwd_regs_rung(const char *name)
{
    return strncmp(name, "regs", 4) == 0 || strncmp(name, "aligned", 7) == 0;
}

/* A backward bulk rung: bulk (seventh session), bulk_ex (eleventh: the
 * same kernel in its EX configuration, common/norm_bwd_bulk.cuh), bulk_exw
 * (thirteenth: its EXW configuration), bulk_exw3 (fifteenth: EXW3, three
 * stages, bulk_exw's kernel where three do not fit) and bulk_pipe
 * (sixteenth: PIPE, bulk_exw3 with the first pass a row ahead), the same
 * limits; bulk_q (eighteenth: NB_Q, bulk_exw3 in blocks of 256), rows of
 * at most 8 x 512 vectors and, for layernorm, 16-bit w. */
static inline int t_bwd_bulk_rung(const char *name)
{
    return strncmp(name, "bulk", 4) == 0;
}

/* regs_cl of layernorm_bwd and rmsnorm_bwd (their 16_regs_cl.cu,
 * common/norm_bwd_rcl.cuh; twenty-first session): the row in registers
 * across a cluster of 1-8 blocks of 512 vectors; it must run every aligned
 * bf16 / f16 launch with w in the rows' dtype and rows of at most 32768
 * columns on sm_90, and refuse every other launch (f32 rows, f32 w,
 * misaligned, longer rows, before sm_90). */
static inline int t_bwd_rcl_rung(const char *name)
{
    return strcmp(name, "regs_cl") == 0;
}

/* Whether a backward launch is aligned (the aligned rungs' condition,
 * common/norm_fwd.cuh's norm_fwd_aligned): its n buffers on 16 bytes and
 * cols a whole number of 16-byte vectors (ld = cols in these tests). */
static inline int t_bwd_aligned(sl_dtype dt, size_t cols, const void *const *bufs, int n)
{
    for (int i = 0; i < n; i++)
        if ((uintptr_t)bufs[i] & 15u)
            return 0;
    return cols % (16 / sl_dtype_size(dt)) == 0;
}

/* After backward rung v (NULL: the public function) returned st on a
 * launch (al: t_bwd_aligned): 1 where the rung refused and may (the caller
 * stops), 0 where the caller goes on and checks st and the results. regs,
 * regs_pf and regs_sm may refuse x, dy and dx at different offsets or a
 * row beyond a cluster's registers (the API then runs another rung).
 * the aligned* rungs must refuse exactly the unaligned launches, and the rows needing
 * a cluster (beyond 1024 vectors: common/norm_bwd.cuh) on a device without
 * clusters (before sm_90): an unaligned launch it ran is a failure (its
 * 16-byte accesses would fault or miss the row's edges). bulk (05_bulk.cu),
 * bulk_ex (11_bulk_ex.cu), bulk_exw (12_bulk_exw.cu), bulk_exw3
 * (13_bulk_exw3.cu) and bulk_pipe (14_bulk_pipe.cu) must refuse exactly the unaligned launches, every
 * launch before sm_90 (cp.async.bulk) and rows past 65536 columns (8
 * chunks); bulk_q (15_bulk_q.cu) the same and rows past 8 x 512 vectors
 * (64 KiB), and, f32w (layernorm with f32 w: its three stages need w in
 * registers), every launch; regs_cl (t_bwd_rcl_rung, both ops) the
 * unaligned launches, those before sm_90, f32 rows, w32 (w in f32, either
 * op) and rows past 32768 columns, and no other. */
static inline int t_bwd_refused(const sl_ctx *ctx, const sl_variant *v, sl_status st, sl_dtype dt, size_t cols,
                                int al, int f32w, int w32, const char *what)
{
    if (!v || (!t_bwd_regs_rung(v->name) && !t_bwd_bulk_rung(v->name)))
        return 0;
    const int bulk = t_bwd_bulk_rung(v->name), rcl = t_bwd_rcl_rung(v->name);
    if (strncmp(v->name, "aligned", 7) != 0 && !bulk && !rcl)
        return st == SL_ERR_UNSUPPORTED;
    const int q = bulk && strcmp(v->name, "bulk_q") == 0;
    const int must = rcl    ? !al || ctx->info.cc_major < 9 || dt == SL_F32 || w32 || cols > 32768
                     : bulk ? !al || ctx->info.cc_major < 9 || cols > 65536 ||
                                  (q && (f32w || cols * sl_dtype_size(dt) > 8u * 512u * 16u))
                            : !al || (ctx->info.cc_major < 9 && cols / (16 / sl_dtype_size(dt)) > 1024);
    if (st == SL_ERR_UNSUPPORTED) {
        CHECK(must, "%s: the %s rung refused an aligned launch: %s", what, v->name, sl_last_error());
        return 1;
    }
    CHECK(!must, "%s: the %s rung ran a launch it must refuse (status %d)", what, v->name, (int)st);
    return must;
}

/* What a case expects of a rung's status: T_ANY, SL_OK or
 * SL_ERR_UNSUPPORTED as t_fwd_regs_rung allows; T_RUNS, SL_OK;
 * T_REFUSES, SL_ERR_UNSUPPORTED (then nothing else is checked). */
enum { T_ANY = 0, T_RUNS = 1, T_REFUSES = 2 };

/* Set by a GPU test's main: the device runs the bulk rungs (sm_90 on). */
static int t_sm90;

/* ---- inputs ------------------------------------------------------------------- */
enum { K_RAND = 0, K_ZERO, K_HUGE, K_NAN, K_WIDE, K_MEAN };

static uint64_t t_rng(uint64_t *s)
{
    *s += 0x9e3779b97f4a7c15ull;
    uint64_t z = *s;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* A value as activations have them: sign random, magnitude 2^[-6, 4.3)
 * (up to ~20); K_WIDE spans 2^[-12, 8); K_HUGE rows ~2^40 (f32, bf16) or
 * ~2^13 (f16); K_MEAN rows a large mean and a small spread (layernorm's
 * cancellation case, |mean| / std ~ 1800 in f32, ~220 in f16, ~28 in
 * bf16, whose 8-bit significand keeps no finer spread): 2^12 (f32), 2^9
 * (f16) or 2^6 (bf16) plus a uniform value in [-4, 4). */
static double t_val(uint64_t *s, int kind, sl_dtype dt)
{
    const uint64_t r = t_rng(s);
    const double u = (double)(r >> 11) * 0x1p-53, sg = (r & 1) ? -1.0 : 1.0;
    if (kind == K_ZERO)
        return 0.0;
    if (kind == K_HUGE)
        return sg * ldexp(1.0 + u, dt == SL_F16 ? 13 : 40);
    if (kind == K_WIDE)
        return sg * exp2(-12.0 + 20.0 * u);
    if (kind == K_MEAN)
        return ldexp(1.0, dt == SL_F32 ? 12 : dt == SL_F16 ? 9 : 6) + 8.0 * u - 4.0;
    return sg * exp2(-6.0 + 10.3 * u);
}

/* rows x cols into dt at p (row stride ld); row r of kind kinds[r % nk];
 * K_NAN rows: random values and one NaN. */
static void t_fill(sl_dtype dt, void *p, size_t rows, size_t cols, size_t ld, uint64_t seed, const int *kinds,
                   int nk)
{
    uint64_t s = seed * 0x2545f4914f6cdd1dull + 1;
    for (size_t r = 0; r < rows; r++) {
        const int k = kinds[r % (size_t)nk];
        for (size_t j = 0; j < cols; j++)
            sl_dtype_store_f64(dt, p, r * ld + j, t_val(&s, k == K_NAN ? K_RAND : k, dt));
        if (k == K_NAN && cols)
            sl_dtype_store_f64(dt, p, r * ld + (size_t)(t_rng(&s) % cols), NAN);
    }
}

#ifndef SL_NORM_CHECK_SHARED_ONLY
/* ---- the fp64 oracle ---------------------------------------------------------- */
static double t_rstd(sl_dtype dt, const void *x, size_t r, size_t cols, size_t ld, float eps)
{
    double ss = 0.0;
    for (size_t j = 0; j < cols; j++) {
        const double v = t_dec(dt, x, r * ld + j);
        ss += v * v;
    }
    return 1.0 / sqrt(ss / (double)cols + (double)eps);
}

#endif

/* |got - want| <= rel u |want| + abs + ulp16(want); two NaNs match. Counts
 * the failures of a bound 256 times tighter in tight_fail. */
static int t_close(sl_dtype dt, double got, double want, double rel, double abs_, const char *what, size_t r,
                   size_t j)
{
    if (got != got && want != want)
        return 1;
    /* a result beyond the dtype's range rounds to an infinity of its sign */
    const double top = dt == SL_F16 ? 65520.0 : dt == SL_BF16 ? 0x1.ffp127 : 0x1.ffffffp127;
    if (fabs(want) >= top && got == (want > 0 ? INFINITY : -INFINITY))
        return 1;
    const double allowed = rel * 0x1p-24 * fabs(want) + abs_ + t_ulp16(dt, want);
    const double err = fabs(got - want);
    if (!(err <= allowed)) {
        CHECK(0, "%s: [%zu, %zu] = %.9g, want %.9g (error %.3g, allowed %.3g)", what, r, j, got, want, err, allowed);
        return 0;
    }
    const double tight = allowed / 256.0;
    tight_fail += err > tight;
    if (want != 0.0 && dt == SL_F32) {
        const double eu = err / (0x1p-24 * fabs(want) + abs_ / rel + 1e-300);
        worst_u = eu > worst_u ? eu : worst_u;
    }
    return 1;
}

/* ---- running a rung or the public function -------------------------------------- */
typedef struct nbuf {
    unsigned char *base; /* NGUARD poison, then the data, then NGUARD poison */
    unsigned char *p;
    size_t bytes;
} nbuf;

static int nb_alloc(nbuf *b, size_t bytes, size_t off_bytes)
{
    b->bytes = bytes;
    b->base = nm->alloc(NGUARD + off_bytes + bytes + NGUARD + 16);
    if (!b->base)
        return 0;
    /* a 256-byte-aligned allocation: p sits off_bytes past a boundary */
    b->p = b->base + NGUARD + off_bytes;
    memset(b->base, 0xff, NGUARD + off_bytes + bytes + NGUARD + 16);
    return 1;
}

static size_t nb_stray(const nbuf *b, size_t off_bytes)
{
    size_t n = 0;
    for (size_t i = 0; i < NGUARD + off_bytes; i++)
        n += b->base[i] != 0xffu;
    for (size_t i = 0; i < NGUARD; i++)
        n += b->p[b->bytes + i] != 0xffu;
    return n;
}

static void nb_free(nbuf *b)
{
    if (b->base)
        nm->release(b->base);
    b->base = b->p = NULL;
}

typedef struct ncase {
    size_t rows, cols;
    size_t xo, yo; /* element offsets of x and of y / dx from a 256-byte boundary */
    int inplace;   /* forward: y = x; backward: 1 dx = dy, 2 dx = x */
    int kinds[4], nk;
} ncase;

/* The backwards' short rows (ninth session: the pair teams of aligned_pf,
 * aligned_sm, aligned_pf3, aligned_pfx and aligned_pf3x at 129-256
 * vectors, warp teams up to 128; the tenth session's bound-3 and
 * one-instruction-widening warp teams at 65-128), for rmsnorm's and layernorm's
 * checks: 2048 and 1032 columns (bf16 / f16 256 and 129 vectors), 1024,
 * 1000 and 520 (f32 256, 250 and 130), odd row counts, huge values, NaN,
 * rows of zeros, in place, and a misaligned launch the aligned rungs must
 * refuse. */
static inline const ncase *t_bwd_short(size_t *n)
{
    static const ncase bc[] = {
        {37, 2048, 0, 0, 0, {K_RAND, K_HUGE}, 2},
        {261, 1024, 0, 0, 0, {K_RAND, K_NAN}, 2},
        {5, 1032, 0, 0, 0, {K_RAND, K_ZERO}, 2},
        {9, 520, 0, 0, 0, {K_RAND, K_WIDE}, 2},
        {13, 1000, 0, 0, 0, {K_RAND}, 1},
        {6, 2048, 0, 0, 1, {K_RAND}, 1}, /* in place (dx = dy) */
        {7, 2048, 1, 1, 0, {K_RAND}, 1}, /* misaligned: the aligned rungs refuse */
    };
    *n = sizeof bc / sizeof bc[0];
    return bc;
}

static const float T_EPS = 1e-6f;
static const sl_dtype t_dts[] = {SL_F32, SL_BF16, SL_F16};

/* The bulk rungs' long aligned rows (one block a row at 16384 bf16 for
 * bulk, then clusters of 2-8 chunks; bulk_ex: 1, 2, 4 and 8 chunks at
 * 16384, 32768, 65536, 131072 bf16; an uneven last chunk at 40008 and
 * chunks shorter than a block's vectors at 24576), which they must run on
 * sm_90 (max: the longest row of x they take, in bytes), and the
 * misaligned or ragged rows they must refuse; rows of zeros, of ~2^40,
 * with a NaN, wide ranges, odd row counts, and both in-place forms (y =
 * x; the fused add's h = x, or h = res with y = x). Runs fwd(ctx, v, dt,
 * wt, c, expect) over the three dtypes and w in the rows' dtype or f32. */
typedef void (*t_fwd_fn)(sl_ctx *, const sl_variant *, sl_dtype, sl_dtype, const ncase *, int);
static void t_bulk_cases(sl_ctx *ctx, const sl_variant *v, t_fwd_fn fwd, size_t max)
{
    static const ncase lc[] = {
        {3, 16384, 0, 0, 0, {K_RAND, K_ZERO}, 2},
        {7, 65536, 0, 0, 0, {K_RAND, K_WIDE}, 2},
        {5, 131072, 0, 0, 0, {K_RAND}, 1},
        {3, 40008, 0, 0, 0, {K_RAND, K_NAN}, 2},
        {4, 16384, 0, 0, 1, {K_RAND}, 1}, /* in place */
        {5, 32768, 0, 0, 0, {K_RAND, K_HUGE}, 2},
        {9, 24576, 0, 0, 0, {K_ZERO, K_RAND, K_NAN}, 3},
        {3, 65536, 0, 0, 2, {K_RAND, K_HUGE}, 2}, /* in place (the fused add: h = res, y = x) */
    };
    static const ncase bad[] = {
        {3, 16384, 1, 1, 0, {K_RAND}, 1}, /* x and y one element off 16 bytes */
        {3, 16385, 0, 0, 0, {K_RAND}, 1}, /* rows not whole vectors */
    };
    for (int d = 0; d < (t_quick ? 2 : 3); d++)
        for (int wf = 0; wf < 2; wf++) {
            const sl_dtype dt = t_dts[d], wt = wf ? SL_F32 : dt;
            if (wf && dt == SL_F32)
                continue;
            for (size_t i = 0; i < sizeof lc / sizeof lc[0]; i++) {
                if (t_quick && lc[i].cols > 32768)
                    continue;
                fwd(ctx, v, dt, wt, &lc[i], !t_sm90 ? T_ANY : lc[i].cols * sl_dtype_size(dt) <= max ? T_RUNS : T_REFUSES);
            }
            for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
                fwd(ctx, v, dt, wt, &bad[i], T_REFUSES);
        }
}

#ifndef SL_NORM_CHECK_SHARED_ONLY /* layernorm_check.h takes the helpers above only */

/* The forward: v (a rung of ctx's backend) or, v NULL, sl_rmsnorm_fwd;
 * expect: T_ANY, T_RUNS or T_REFUSES. */
static void t_fwd_e(sl_ctx *ctx, const sl_variant *v, sl_dtype dt, sl_dtype wt, const ncase *c, int expect)
{
    const size_t es = sl_dtype_size(dt), n = c->rows * c->cols;
    nbuf X = {0}, W = {0}, Y = {0}, RS = {0};
    char what[200];
    snprintf(what, sizeof what, "rmsnorm %s %s/w %s %zux%zu x+%zu y+%zu%s kind %d", v ? v->name : "public",
             sl_dtype_name(dt), sl_dtype_name(wt), c->rows, c->cols, c->xo, c->yo, c->inplace ? " in place" : "",
             c->kinds[0]);
    if (!nb_alloc(&X, n * es, c->xo * es) || !nb_alloc(&W, c->cols * sl_dtype_size(wt), 0) ||
        (!c->inplace && !nb_alloc(&Y, n * es, c->yo * es)) || !nb_alloc(&RS, c->rows * 4, 0)) {
        CHECK(0, "%s: out of memory", what);
        goto out;
    }
    t_fill(dt, X.p, c->rows, c->cols, c->cols, c->rows * 131 + c->cols * 7 + c->xo, c->kinds, c->nk);
    const int wk[1] = {K_RAND};
    t_fill(wt, W.p, 1, c->cols, c->cols, 99 + c->cols, wk, 1);
    double *want = malloc((n ? n : 1) * sizeof *want), *wr = malloc((c->rows ? c->rows : 1) * sizeof *wr);
    for (size_t r = 0; want && wr && r < c->rows; r++) {
        wr[r] = t_rstd(dt, X.p, r, c->cols, c->cols, T_EPS);
        for (size_t j = 0; j < c->cols; j++)
            want[r * c->cols + j] = t_dec(dt, X.p, r * c->cols + j) * wr[r] * t_dec(wt, W.p, j);
    }
    unsigned char *y = c->inplace ? X.p : Y.p;
    sl_status st;
    if (v) {
        sl_args a = {.op = &sl_op_rmsnorm, .shape = {c->rows, c->cols, c->cols, 0}, .n = n, .dtype = dt,
                     .out_dtype = dt, .f32_bufs = wt == SL_F32 ? 1u << SL_RMS_W : 0u};
        a.buf[SL_RMS_X] = X.p;
        a.buf[SL_RMS_W] = W.p;
        a.buf[SL_RMS_Y] = y;
        a.buf[SL_RMS_RSTD] = RS.p;
        a.scalar[0] = T_EPS;
        st = v->launch(&a);
    } else {
        st = sl_rmsnorm_fwd(ctx, dt, wt, c->rows, c->cols, X.p, W.p, T_EPS, y, (float *)RS.p, NULL);
    }
    if (st == SL_OK && nm->sync())
        st = SL_ERR_CUDA_FAULT;
    if (expect == T_REFUSES) {
        CHECK(st == SL_ERR_UNSUPPORTED, "%s: status %d, want SL_ERR_UNSUPPORTED", what, (int)st);
        goto out_w;
    }
    if (st == SL_ERR_UNSUPPORTED && v && expect == T_ANY && t_fwd_regs_rung(v->name))
        goto out_w; /* regs refuses x and y at different offsets, or rows beyond a cluster */
    CHECK(st == SL_OK, "%s: %s", what, sl_last_error());
    if (st != SL_OK || !want || !wr)
        goto out_w;
    int bad = 0;
    for (size_t r = 0; r < c->rows && bad < 5; r++) {
        float g;
        memcpy(&g, RS.p + 4 * r, 4);
        bad += !t_close(SL_F32, g, wr[r], 64, 0x1p-126, what, r, (size_t)-1);
        for (size_t j = 0; j < c->cols && bad < 5; j++)
            bad += !t_close(dt, t_dec(dt, y, r * c->cols + j), want[r * c->cols + j], 64, 0x1p-126, what, r, j);
    }
    if (!c->inplace)
        CHECK(nb_stray(&Y, c->yo * es) == 0, "%s: bytes written around y", what);
    CHECK(nb_stray(&RS, 0) == 0, "%s: bytes written around rstd", what);
out_w:
    free(want);
    free(wr);
out:
    nb_free(&X);
    nb_free(&W);
    nb_free(&Y);
    nb_free(&RS);
}

static void t_fwd(sl_ctx *ctx, const sl_variant *v, sl_dtype dt, sl_dtype wt, const ncase *c)
{
    t_fwd_e(ctx, v, dt, wt, c, T_ANY);
}

/* The backward, with rstd from the fp64 forward rounded to f32 (as the
 * forward stores it). dx and dw within the bounds of rmsnorm_bwd.c, per
 * element; the same bits on a second run (dw and dx). */
static void t_bwd(sl_ctx *ctx, const sl_variant *v, sl_dtype dt, sl_dtype wt, const ncase *c, int fd)
{
    const size_t es = sl_dtype_size(dt), ws = sl_dtype_size(wt), n = c->rows * c->cols, R = c->rows, N = c->cols;
    nbuf X = {0}, DY = {0}, W = {0}, RS = {0}, DX = {0}, DW = {0}, WK = {0};
    double *want = NULL, *bound = NULL, *dwa = NULL, *dww = NULL;
    unsigned char *first = NULL;
    char what[200];
    snprintf(what, sizeof what, "rmsnorm_bwd %s %s/w %s %zux%zu x+%zu dx+%zu%s kind %d", v ? v->name : "public",
             sl_dtype_name(dt), sl_dtype_name(wt), R, N, c->xo, c->yo,
             c->inplace == 1 ? " dx=dy" : c->inplace == 2 ? " dx=x" : "", c->kinds[0]);
    const size_t wsb = sl_rmsnorm_bwd_workspace(R, N);
    if (!nb_alloc(&X, n * es, c->xo * es) || !nb_alloc(&DY, n * es, c->xo * es) || !nb_alloc(&W, N * ws, 0) ||
        !nb_alloc(&RS, R * 4, 0) || (!c->inplace && !nb_alloc(&DX, n * es, c->yo * es)) ||
        !nb_alloc(&DW, N * ws, 0) || !nb_alloc(&WK, wsb ? wsb : 16, 0)) {
        CHECK(0, "%s: out of memory", what);
        goto out;
    }
    t_fill(dt, X.p, R, N, N, R * 31 + N * 3 + c->xo, c->kinds, c->nk);
    const int rk[1] = {K_RAND};
    t_fill(dt, DY.p, R, N, N, R * 17 + N + 5, rk, 1);
    t_fill(wt, W.p, 1, N, N, 7 + N, rk, 1);
    for (size_t r = 0; r < R; r++) {
        const float rs = (float)t_rstd(dt, X.p, r, N, N, T_EPS);
        memcpy(RS.p + 4 * r, &rs, 4);
    }
    want = malloc((n ? n : 1) * sizeof *want);
    bound = malloc((n ? n : 1) * sizeof *bound);
    dww = calloc(N ? N : 1, sizeof *dww);
    dwa = calloc(N ? N : 1, sizeof *dwa);
    if (!want || !bound || !dww || !dwa) {
        CHECK(0, "%s: out of host memory", what);
        goto out;
    }
    for (size_t r = 0; r < R; r++) {
        float rsf;
        memcpy(&rsf, RS.p + 4 * r, 4);
        const double rs = rsf;
        double D = 0.0, Da = 0.0;
        for (size_t j = 0; j < N; j++) {
            const double t = t_dec(wt, W.p, j) * t_dec(dt, DY.p, r * N + j) * t_dec(dt, X.p, r * N + j);
            D += t;
            Da += fabs(t);
        }
        for (size_t j = 0; j < N; j++) {
            const double xv = t_dec(dt, X.p, r * N + j), dy = t_dec(dt, DY.p, r * N + j);
            const double a = rs * t_dec(wt, W.p, j) * dy;
            want[r * N + j] = a - xv * rs * rs * rs * D / (double)N;
            bound[r * N + j] = 2.0 * (4.0 * fabs(a) + 146.0 * fabs(xv) * fabs(rs * rs * rs) * Da / (double)N) * 0x1p-24;
            dww[j] += dy * xv * rs;
            dwa[j] += fabs(dy * xv * rs);
        }
    }
    unsigned char *dx = c->inplace == 1 ? DY.p : c->inplace == 2 ? X.p : DX.p;
    first = malloc((n ? n : 1) * es + (N ? N : 1) * ws);
    for (int run = 0; run < 2; run++) {
        if (run == 1) { /* the same inputs again: dx and dw must come out the same bits */
            if (c->inplace)
                break;
            memcpy(first, dx, n * es);
            memcpy(first + n * es, DW.p, N * ws);
        }
        sl_status st;
        if (v) {
            sl_args a = {.op = &sl_op_rmsnorm_bwd, .shape = {R, N, N, 0}, .n = n, .dtype = dt, .out_dtype = dt,
                         .f32_bufs = wt == SL_F32 ? (1u << SL_RMSB_W) | (1u << SL_RMSB_DW) : 0u};
            a.buf[SL_RMSB_X] = X.p;
            a.buf[SL_RMSB_DY] = DY.p;
            a.buf[SL_RMSB_W] = W.p;
            a.buf[SL_RMSB_RSTD] = RS.p;
            a.buf[SL_RMSB_DX] = dx;
            a.buf[SL_RMSB_DW] = DW.p;
            a.workspace = WK.p;
            a.workspace_bytes = wsb;
            st = v->launch(&a);
        } else {
            /* the caller's workspace on the first run, the context's on the second */
            st = sl_rmsnorm_bwd(ctx, dt, wt, R, N, X.p, DY.p, W.p, (const float *)RS.p, dx, DW.p,
                                run ? NULL : WK.p, run ? 0 : wsb, NULL);
        }
        if (st == SL_OK && nm->sync())
            st = SL_ERR_CUDA_FAULT;
        const void *bufs[] = {X.p, DY.p, W.p, RS.p, dx, DW.p};
        if (t_bwd_refused(ctx, v, st, dt, N, t_bwd_aligned(dt, N, bufs, 6), 0, wt == SL_F32, what))
            goto out;
        CHECK(st == SL_OK, "%s: %s", what, sl_last_error());
        if (st != SL_OK)
            goto out;
    }
    if (!c->inplace)
        CHECK(memcmp(first, dx, n * es) == 0 && memcmp(first + n * es, DW.p, N * ws) == 0,
              "%s: a second run gave other bits (dx or dw)", what);
    int bad = 0;
    for (size_t i = 0; i < n && bad < 5; i++)
        bad += !t_close(dt, t_dec(dt, dx, i), want[i], 16, bound[i] + 0x1p-126, what, i / (N ? N : 1),
                        i % (N ? N : 1));
    for (size_t j = 0; j < N && bad < 5; j++)
        bad += !t_close(wt, t_dec(wt, DW.p, j), dww[j], 16, 550.0 * 0x1p-24 * dwa[j] + 0x1p-126, what, (size_t)-1,
                        j);
    if (!c->inplace)
        CHECK(nb_stray(&DX, c->yo * es) == 0, "%s: bytes written around dx", what);
    CHECK(nb_stray(&DW, 0) == 0, "%s: bytes written around dw", what);
    /* central finite differences of L = sum g y (g = dy) through the fp64
     * forward: dL/dx and dL/dw against the rung's dx and dw (f32 runs) */
    if (fd && dt == SL_F32 && wt == SL_F32) {
        double *xr = malloc(N * sizeof *xr), *wv = malloc(N * sizeof *wv);
        for (size_t j = 0; j < N; j++)
            wv[j] = t_dec(wt, W.p, j);
        double dwfd_err = 0.0, dxfd_err = 0.0, dxs = 0.0, dws = 0.0;
        for (size_t r = 0; r < R && xr; r++) {
            for (size_t j = 0; j < N; j++)
                xr[j] = t_dec(dt, X.p, r * N + j);
            for (size_t j = 0; j < N; j++) {
                double l[2];
                const double h = 1e-6 * (fabs(xr[j]) > 1.0 ? fabs(xr[j]) : 1.0), x0 = xr[j];
                for (int s = 0; s < 2; s++) {
                    xr[j] = x0 + (s ? -h : h);
                    double ss = 0.0, L = 0.0;
                    for (size_t k = 0; k < N; k++)
                        ss += xr[k] * xr[k];
                    const double rs = 1.0 / sqrt(ss / (double)N + (double)T_EPS);
                    for (size_t k = 0; k < N; k++)
                        L += t_dec(dt, DY.p, r * N + k) * xr[k] * rs * wv[k];
                    l[s] = L;
                }
                xr[j] = x0;
                const double fdv = (l[0] - l[1]) / (2.0 * h), got = t_dec(dt, dx, r * N + j);
                dxfd_err = fmax(dxfd_err, fabs(fdv - got));
                dxs = fmax(dxs, fabs(fdv));
            }
        }
        for (size_t j = 0; j < N; j++) { /* dL/dw_j = sum_r g x rstd: linear in w, exact differences */
            double l[2];
            const double h = 1e-3 * (fabs(wv[j]) > 1.0 ? fabs(wv[j]) : 1.0), w0 = wv[j];
            for (int s = 0; s < 2; s++) {
                wv[j] = w0 + (s ? -h : h);
                double L = 0.0;
                for (size_t r = 0; r < R; r++)
                    for (size_t k = 0; k < N; k++)
                        L += t_dec(dt, DY.p, r * N + k) * t_dec(dt, X.p, r * N + k) *
                             t_rstd(dt, X.p, r, N, N, T_EPS) * wv[k];
                l[s] = L;
            }
            wv[j] = w0;
            const double fdv = (l[0] - l[1]) / (2.0 * h);
            dwfd_err = fmax(dwfd_err, fabs(fdv - t_dec(wt, DW.p, j)));
            dws = fmax(dws, fabs(fdv));
        }
        CHECK(dxfd_err <= 1e-5 * dxs + 1e-30, "%s: dx vs finite differences: error %.3g of max %.3g", what, dxfd_err,
              dxs);
        CHECK(dwfd_err <= 1e-5 * dws + 1e-30, "%s: dw vs finite differences: error %.3g of max %.3g", what, dwfd_err,
              dws);
        free(xr);
        free(wv);
    }
out:
    free(want);
    free(bound);
    free(dww);
    free(dwa);
    free(first);
    nb_free(&X);
    nb_free(&DY);
    nb_free(&W);
    nb_free(&RS);
    nb_free(&DX);
    nb_free(&DW);
    nb_free(&WK);
}

/* ---- the cases ---------------------------------------------------------------- */

/* Every case for one runner (v NULL: the public functions). big: include
 * the long rows (the clusters; slow on the CPU's serial rung). */
static void t_all(sl_ctx *ctx, const sl_variant *vf, const sl_variant *vb, int run_f, int run_b, int big)
{
    static const ncase cs[] = {
        {1, 1, 0, 0, 0, {K_RAND}, 1},
        {3, 7, 0, 0, 0, {K_RAND}, 1},
        {1023, 3, 0, 0, 0, {K_RAND, K_WIDE}, 2},
        {5, 1023, 0, 0, 0, {K_RAND, K_ZERO, K_NAN, K_HUGE}, 4},
        {7, 4096, 0, 0, 0, {K_RAND}, 1},
        {9, 260, 1, 1, 0, {K_RAND, K_WIDE}, 2},    /* misaligned, one offset */
        {9, 260, 1, 3, 0, {K_RAND}, 1},            /* x and y at different offsets */
        {6, 1000, 0, 0, 1, {K_RAND, K_ZERO}, 2},   /* in place (y = x; dx = dy) */
        {6, 1000, 0, 0, 2, {K_RAND}, 1},           /* in place (dx = x) */
        {300, 64, 0, 0, 0, {K_RAND}, 1},
        {40, 2048, 0, 0, 0, {K_RAND, K_NAN}, 2},
        {5, 1544, 0, 0, 0, {K_RAND, K_HUGE}, 2},   /* aligned's block of 128 at 193 vectors (bf16 / f16) */
        {33, 8200, 3, 3, 0, {K_RAND, K_HUGE}, 2},  /* a block per row, misaligned */
        {3, 30001, 0, 0, 0, {K_RAND}, 1},          /* cluster of 2 (bf16) */
        {2, 65536, 0, 0, 0, {K_RAND, K_ZERO}, 2},  /* cluster of 4-8 */
        {2, 65531, 5, 5, 0, {K_RAND}, 1},
        {600, 1024, 0, 0, 0, {K_RAND}, 1},         /* dw partials over many rows */
    };
    for (size_t i = 0; i < sizeof cs / sizeof cs[0]; i++) {
        if ((!big && cs[i].cols > 10000) || (t_quick && cs[i].cols > 32768))
            continue;
        for (int d = 0; d < (t_quick ? 2 : 3); d++)
            for (int wf = 0; wf < 2; wf++) {
                const sl_dtype dt = t_dts[d], wt = wf ? SL_F32 : dt;
                if (wf && dt == SL_F32)
                    continue;
                if (run_f && cs[i].inplace != 2)
                    t_fwd(ctx, vf, dt, wt, &cs[i]);
                if (run_b)
                    t_bwd(ctx, vb, dt, wt, &cs[i], 0);
            }
    }
    /* the forward's aligned launches at the team shapes whose launch
     * bounds the eighth session raised (common/norm_fwd.cuh, at<>'s enum):
     * 16-bit rows a warp of 2 vectors, blocks of 256 and 512 (f32: a warp
     * of 4, blocks of 512 and 1024), w in the rows' dtype and in f32 */
    static const ncase ac[] = {
        {4, 512, 0, 0, 0, {K_RAND, K_HUGE}, 2},
        {3, 8192, 0, 0, 0, {K_RAND, K_NAN}, 2},
        {3, 16384, 0, 0, 0, {K_RAND, K_HUGE}, 2},
    };
    for (size_t i = 0; run_f && i < sizeof ac / sizeof ac[0]; i++) {
        if (!big && ac[i].cols > 10000)
            continue;
        for (int d = 0; d < (t_quick ? 2 : 3); d++)
            for (int wf = 0; wf < 2; wf++)
                if (!wf || t_dts[d] != SL_F32)
                    t_fwd(ctx, vf, t_dts[d], wf ? SL_F32 : t_dts[d], &ac[i]);
    }
    /* the backward's short rows (t_bwd_short); w in the rows' dtype and in f32 */
    size_t nbc = 0;
    const ncase *bc = t_bwd_short(&nbc);
    for (size_t i = 0; run_b && i < nbc; i++)
        for (int d = 0; d < (t_quick ? 2 : 3); d++)
            for (int wf = 0; wf < 2; wf++)
                if (!wf || t_dts[d] != SL_F32)
                    t_bwd(ctx, vb, t_dts[d], wf ? SL_F32 : t_dts[d], &bc[i], 0);
    /* finite differences, f32, small shapes */
    static const ncase fc[] = {{3, 5, 0, 0, 0, {K_RAND}, 1}, {4, 33, 0, 0, 0, {K_RAND}, 1},
                               {2, 300, 1, 1, 0, {K_RAND}, 1}};
    for (size_t i = 0; run_b && i < sizeof fc / sizeof fc[0]; i++)
        t_bwd(ctx, vb, SL_F32, SL_F32, &fc[i], 1);
}

/* The public functions' errors. */
static void t_errors(sl_ctx *ctx)
{
    nbuf X = {0}, W = {0}, RS = {0}, DW = {0}, WK = {0};
    if (!nb_alloc(&X, 64 * 4, 0) || !nb_alloc(&W, 8 * 4, 0) || !nb_alloc(&RS, 8 * 4, 0) || !nb_alloc(&DW, 8 * 4, 0) ||
        !nb_alloc(&WK, 16, 0)) {
        CHECK(0, "errors: out of memory");
        goto out;
    }
    sl_status st = sl_rmsnorm_fwd(ctx, SL_BF16, SL_F16, 8, 8, X.p, W.p, 1e-6, X.p, (float *)RS.p, NULL);
    CHECK(st == SL_ERR_UNSUPPORTED, "fwd: w_dtype f16 with bf16 rows: %d", (int)st);
    st = sl_rmsnorm_fwd(ctx, SL_F32, SL_F32, 8, 8, X.p, W.p, 0.0, X.p, (float *)RS.p, NULL);
    CHECK(st == SL_ERR_INVALID_ARG, "fwd: eps = 0: %d", (int)st);
    st = sl_rmsnorm_fwd(ctx, SL_F64, SL_F64, 4, 8, X.p, W.p, 1e-6, X.p, (float *)RS.p, NULL);
    CHECK(st == SL_ERR_UNSUPPORTED, "fwd: f64: %d", (int)st);
    st = sl_rmsnorm_fwd(ctx, SL_F32, SL_F32, 8, 8, NULL, W.p, 1e-6, X.p, (float *)RS.p, NULL);
    CHECK(st == SL_ERR_INVALID_ARG, "fwd: x NULL: %d", (int)st);
    st = sl_rmsnorm_fwd(ctx, SL_F32, SL_F32, 4, 8, X.p, W.p, 1e-6, X.p + 4, (float *)RS.p, NULL);
    CHECK(st == SL_ERR_OVERLAP, "fwd: y overlapping x off by one: %d", (int)st);
    st = sl_rmsnorm_fwd(ctx, SL_F32, SL_F32, 4, 8, X.p, W.p, 1e-6, X.p + 2, (float *)RS.p, NULL);
    CHECK(st == SL_ERR_MISALIGNED || st == SL_ERR_OVERLAP, "fwd: y misaligned: %d", (int)st);
    st = sl_rmsnorm_fwd(ctx, SL_F32, SL_F32, 0, 8, NULL, NULL, 1e-6, NULL, NULL, NULL);
    CHECK(st == SL_OK, "fwd: rows = 0 is a no-op: %s", sl_last_error());
    st = sl_rmsnorm_bwd(ctx, SL_F32, SL_F32, 2, 8, X.p, X.p + 64, W.p, (const float *)RS.p, X.p + 128, W.p, NULL, 0,
                        NULL);
    CHECK(st == SL_ERR_OVERLAP, "bwd: dw = w: %d", (int)st);
    st = sl_rmsnorm_bwd(ctx, SL_F32, SL_F32, 2, 8, X.p, X.p + 64, W.p, (const float *)RS.p, X.p + 128, DW.p, WK.p, 4,
                        NULL);
    CHECK(st == SL_ERR_INVALID_ARG, "bwd: a 4-byte workspace: %d", (int)st);
    st = sl_rmsnorm_bwd(ctx, SL_F32, SL_F32, 2, 8, X.p, X.p + 64, W.p, (const float *)RS.p, X.p + 128, DW.p, NULL, 64,
                        NULL);
    CHECK(st == SL_ERR_INVALID_ARG, "bwd: NULL workspace with a size: %d", (int)st);
    st = sl_rmsnorm_bwd(ctx, SL_BF16, SL_F16, 2, 8, X.p, X.p + 64, W.p, (const float *)RS.p, X.p + 128, DW.p, NULL, 0,
                        NULL);
    CHECK(st == SL_ERR_UNSUPPORTED, "bwd: w f16 with bf16 rows: %d", (int)st);
    CHECK(sl_rmsnorm_bwd_workspace(32768, 65536) == (size_t)(128 + 64) * 65536 * 4, "workspace 32768x65536: %zu",
          sl_rmsnorm_bwd_workspace(32768, 65536));
    CHECK(sl_rmsnorm_bwd_workspace(3, 1000) == (size_t)3 * 1000 * 4, "workspace 3x1000: %zu",
          sl_rmsnorm_bwd_workspace(3, 1000));
    /* The partials must hold any team count p up to 2^22 / cols (16 MiB of
     * them): p teams flushing every SL_NORM_DW_ROWS of their ceil(rows / p)
     * rows form p ceil(ceil(rows / p) / SL_NORM_DW_ROWS) partial rows. With the larger of
     * ceil(rows / 256) and 2^22 / cols alone, 32768 x 32768 held only the p
     * dividing 128, and the GPU grid fell from 62 teams to 32 (the cliff at
     * 2^30 elements, docs/ladder.md). */
    {
        static const uint64_t R[] = {1, 255, 256, 257, 4096, 24576, 32768, 32769, 65536, 100003};
        static const uint64_t C[] = {1000, 1024, 4096, 16384, 32768, 65536, 131072};
        for (size_t i = 0; i < sizeof R / sizeof R[0]; i++)
            for (size_t j = 0; j < sizeof C / sizeof C[0]; j++) {
                const uint64_t rows = R[i], cols = C[j], P = sl_norm_dw_partials(rows, cols);
                uint64_t top = ((uint64_t)1 << 22) / cols;
                top = top < rows ? top : rows;
                top = top < 2048 ? top : 2048;
                for (uint64_t p = 1; p <= top; p++) {
                    const uint64_t per = (rows + p - 1) / p;
                    const uint64_t need = p * ((per + SL_NORM_DW_ROWS - 1) / SL_NORM_DW_ROWS);
                    if (need > P) {
                        CHECK(0, "dw partials %llu x %llu: %llu teams need %llu rows, %llu given",
                              (unsigned long long)rows, (unsigned long long)cols, (unsigned long long)p,
                              (unsigned long long)need, (unsigned long long)P);
                        break;
                    }
                }
            }
    }
out:
    nb_free(&X);
    nb_free(&W);
    nb_free(&RS);
    nb_free(&DW);
    nb_free(&WK);
}

/* Every rung of the context's backend (ceilings left out), then the public
 * functions, then the errors; the tolerance shown to fail when tightened. */
static int t_main(sl_ctx *ctx, sl_backend be, int big, const char *name)
{
    t_quick = getenv("SL_NORM_QUICK") != NULL || getenv("STREAMLAB_TEST_QUICK") != NULL; /* bench/h200.sh's memcheck */
    for (int i = 0; i < sl_op_rmsnorm.nvariants; i++) {
        const sl_variant *v = &sl_op_rmsnorm.variants[i];
        if (v->backend == be && v->kind == SL_KIND_RUNG && v->launch)
            t_all(ctx, v, NULL, 1, 0, big || strcmp(v->name, "serial") != 0);
        if (v->backend == be && v->kind == SL_KIND_RUNG && v->launch && t_fwd_bulk_rung(v->name))
            t_bulk_cases(ctx, v, t_fwd_e, t_fwd_bulk_max(v->name, 1));
    }
    for (int i = 0; i < sl_op_rmsnorm_bwd.nvariants; i++) {
        const sl_variant *v = &sl_op_rmsnorm_bwd.variants[i];
        if (v->backend == be && v->kind == SL_KIND_RUNG && v->launch)
            t_all(ctx, NULL, v, 0, 1, big || strcmp(v->name, "serial") != 0);
    }
    t_all(ctx, NULL, NULL, 1, 1, 1);
    /* sl_rmsnorm_bwd's bulk_q pick (03_regs.cu): 16-bit aligned rows of
     * exactly 2048 columns, 16384 rows or more, w in the rows' dtype; the
     * same rows with f32 w take the pair teams */
    static const ncase qc = {16384, 2048, 0, 0, 0, {K_RAND, K_WIDE, K_ZERO, K_HUGE}, 4};
    for (int d = 1; be == SL_BACKEND_CUDA && !t_quick && d < 3; d++) {
        t_bwd(ctx, NULL, t_dts[d], t_dts[d], &qc, 0);
        t_bwd(ctx, NULL, t_dts[d], SL_F32, &qc, 0);
    }
    t_errors(ctx);
    printf("%s: largest f32 error %.2f u (u = 2^-24 x |want|, or the bound's absolute part over its relative "
           "factor); %ld elements fail a bound 256 times tighter\n",
           name, worst_u, tight_fail);
    CHECK(tight_fail > 0, "no element fails a tolerance 256 times tighter: the check would be vacuous");
    return check_exit(name);
}

#endif /* SL_NORM_CHECK_SHARED_ONLY */

#endif /* SL_TEST_NORM_CHECK_H */
