/*
 * test_gpu_softmax_bwd.c - every CUDA softmax-backward variant (twopass,
 * vec, regs, bulk, bulk_ex, and sl_softmax_bwd) in f32, bf16 and f16 against the fp64
 * oracle of sbwd_check.h under the documented bound: odd shapes from 1x1
 * to rows of 2^18 + 3 columns (the register rung's warp, block and
 * cluster teams, its limit of 2^17 and the API's two-pass fallback
 * beyond), 50257 columns, many short rows (warp teams, 4 a block), padded
 * rows, the three matrices misaligned to 16 bytes at one offset and at
 * different offsets (the scalar path), in place (dx = dy and dx = y),
 * the special rows, guard bytes around dx that must stay poisoned, and
 * the public API's errors on a CUDA context. The bulk rungs (every variant
 * named bulk*: bulk, 04_bulk.cu; bulk_ex, 05_bulk_ex.cu) run every case,
 * must refuse exactly what their plan promises not to take (SL_ERR_UNSUPPORTED
 * with a message naming the rung: misaligned buffers, rows not whole 16-byte
 * vectors, rows over 8 x 36 KiB for bulk and 8 x 64 KiB for bulk_ex) and
 * must have run and refused at least once each; their own cases give
 * bulk_ex clusters of C = 1, 2, 4 and 8 (and rung 4 its own), full and
 * partial pieces, the few-rows split, each rung's limit and one vector
 * past it, in place. Exits 77 without a GPU.
 * SL_SOFTMAX_QUICK=1 (for compute-sanitizer) runs f32 only.
 */
#include "sbwd_check.h"

#include "gpu_common.h"

#include <stdio.h>

static const sl_dtype dts[] = {SL_F32, SL_BF16, SL_F16};
enum { GUARD = 256 };

/* The compute capability's major number of device 0 (the tests' device). */
static int cc_major;

typedef struct gcase {
    size_t rows, cols, ld;
    size_t yoff, goff, doff; /* element offsets from a 256-byte boundary */
    int inplace;             /* 0, 1: dx = dy, 2: dx = y */
    const int *kinds;
    int nkinds;
} gcase;

/* What the bulk rungs promise to take (sbwd_bulk.cuh's plan): sm_90, y,
 * dy and dx 16-byte aligned (cudaMalloc's 256-byte bases, dx after GUARD
 * bytes), cols and ld multiples of 16 bytes, rows of at most 8 x 36 KiB of
 * each input (bulk) or 8 x 64 KiB (bulk_ex). */
static int bulk_takes(const sl_variant *v, sl_dtype dt, const gcase *c)
{
    const size_t es = sl_dtype_size(dt), kib = strcmp(v->name, "bulk_ex") == 0 ? 64u : 36u;
    const size_t doff = c->inplace == 1 ? c->goff : c->inplace == 2 ? c->yoff : c->doff;
    return cc_major >= 9 && (c->yoff * es) % 16 == 0 && (c->goff * es) % 16 == 0 && (doff * es) % 16 == 0 &&
           (c->ld * es) % 16 == 0 && (c->cols * es) % 16 == 0 && c->cols * es <= 8u * kib * 1024u;
}

enum { MAXV = 64 };
static size_t bulk_ran[MAXV], bulk_refused[MAXV]; /* by variant index */

/* A bulk rung: bulk, bulk_ex. */
static int is_bulk(const sl_variant *v)
{
    return v && strncmp(v->name, "bulk", 4) == 0;
}

static int sb_case(sl_ctx *ctx, const sl_variant *v, sl_dtype dt, const gcase *c)
{
    const size_t es = sl_dtype_size(dt), span = (c->rows - 1) * c->ld + c->cols;
    const size_t dbytes = GUARD + (c->doff + span) * es + GUARD;
    unsigned char *hy = malloc(span * es), *hg = malloc(span * es), *hd = malloc(dbytes > span * es ? dbytes : span * es);
    double *want = malloc(c->rows * c->cols * sizeof *want), *mag = malloc(c->rows * sizeof *mag);
    void *dY = NULL, *dG = NULL, *dD = NULL;
    char what[200];
    snprintf(what, sizeof what, "%s %s %zux%zu ld %zu y+%zu dy+%zu dx+%zu%s kind %d", case_name(v), sl_dtype_name(dt),
             c->rows, c->cols, c->ld, c->yoff, c->goff, c->doff,
             c->inplace == 1 ? " dx=dy" : c->inplace == 2 ? " dx=y" : "", c->kinds[0]);
    int rc = 0;
    if (!hy || !hg || !hd || !want || !mag || cudaMalloc(&dY, (c->yoff + span) * es + 256) != cudaSuccess ||
        cudaMalloc(&dG, (c->goff + span) * es + 256) != cudaSuccess ||
        (!c->inplace && cudaMalloc(&dD, dbytes + 256) != cudaSuccess)) {
        CHECK(0, "%s: out of memory", what);
        goto out;
    }
    memset(hy, 0, span * es);
    memset(hg, 0, span * es);
    sb_fill(dt, hy, hg, c->rows, c->cols, c->ld, c->rows * 131u + c->cols * 7u + c->yoff, c->kinds, c->nkinds);
    sb_oracle(dt, hy, hg, c->rows, c->cols, c->ld, want, mag);
    unsigned char *y = (unsigned char *)dY + c->yoff * es, *g = (unsigned char *)dG + c->goff * es;
    unsigned char *dx = c->inplace == 1 ? g : c->inplace == 2 ? y : (unsigned char *)dD + GUARD + c->doff * es;
    if (!c->inplace)
        cudaMemset(dD, 0xff, dbytes);
    cudaMemcpy(y, hy, span * es, cudaMemcpyHostToDevice);
    cudaMemcpy(g, hg, span * es, cudaMemcpyHostToDevice);
    sl_status st;
    if (v) {
        sl_args a = {.op = &sl_op_softmax_bwd, .shape = {.rows = c->rows, .cols = c->cols, .ld = c->ld},
                     .n = c->rows * c->cols, .dtype = dt, .out_dtype = dt};
        a.buf[0] = y;
        a.buf[1] = g;
        a.buf[2] = dx;
        st = v->launch(&a);
    } else {
        st = sl_softmax_bwd(ctx, dt, c->rows, c->cols, y, g, dx, NULL);
    }
    if (st == SL_OK)
        st = cudaDeviceSynchronize() == cudaSuccess ? SL_OK : SL_ERR_CUDA_FAULT;
    if (is_bulk(v)) {
        const size_t vi = (size_t)(v - sl_op_softmax_bwd.variants);
        if (!bulk_takes(v, dt, c)) {
            CHECK(st == SL_ERR_UNSUPPORTED && strstr(sl_last_error(), v->name) != NULL,
                  "%s: the %s rung must refuse this shape (SL_ERR_UNSUPPORTED, naming it), got %s: %s", what,
                  v->name, sl_status_string(st), st == SL_OK ? "" : sl_last_error());
            if (st == SL_ERR_CUDA_FAULT)
                rc = -1;
            bulk_refused[vi]++;
            goto out;
        }
        if (st == SL_ERR_UNSUPPORTED && strstr(sl_last_error(), "no sm_90 code") != NULL) {
            printf("  %s: skipped: %s\n", what, sl_last_error());
            goto out;
        }
        bulk_ran[vi] += st == SL_OK;
    }
    if (st == SL_ERR_UNSUPPORTED && v && strcmp(v->name, "regs") == 0)
        goto out; /* beyond a cluster's registers, or the three at different offsets */
    CHECK(st == SL_OK, "%s: %s", what, sl_last_error());
    if (st == SL_ERR_CUDA_FAULT) {
        rc = -1;
        goto out;
    }
    if (st == SL_OK) {
        if (c->inplace) {
            cudaMemcpy(hd, dx, span * es, cudaMemcpyDeviceToHost);
            CHECK(sb_compare(dt, hd, hy, want, mag, c->rows, c->cols, c->ld, 1.0, what) == 0,
                  "%s differs from the oracle", what);
        } else {
            cudaMemcpy(hd, dD, dbytes, cudaMemcpyDeviceToHost);
            const unsigned char *h = hd + GUARD + c->doff * es;
            CHECK(sb_compare(dt, h, hy, want, mag, c->rows, c->cols, c->ld, 1.0, what) == 0,
                  "%s differs from the oracle", what);
            size_t stray = 0;
            for (size_t b = 0; b < GUARD + c->doff * es; b++)
                stray += hd[b] != 0xff;
            for (size_t b = GUARD + (c->doff + span) * es; b < dbytes; b++)
                stray += hd[b] != 0xff;
            for (size_t r = 0; r + 1 < c->rows; r++)
                for (size_t b = (r * c->ld + c->cols) * es; b < (r + 1) * c->ld * es; b++)
                    stray += h[b] != 0xff;
            CHECK(stray == 0, "%s: %zu bytes written outside dx's rows", what, stray);
        }
    }
out:
    cudaFree(dY);
    cudaFree(dG);
    cudaFree(dD);
    free(hy);
    free(hg);
    free(hd);
    free(want);
    free(mag);
    return rc;
}

int main(void)
{
    sl_ctx *ctx = gpu_open_or_skip("test_gpu_softmax_bwd");
    if (!ctx)
        return SKIP;
    const int soft[] = {SB_SOFT20, SB_SOFT60};
    const int special[] = {SB_SOFT20, SB_SOFT60, SB_NAN, SB_ONEHOT, SB_CONSTDY, SB_ANYY};
    const gcase cases[] = {
        {1, 1, 1, 0, 0, 0, 0, soft, 2},
        {1, 3, 3, 0, 0, 0, 0, soft, 2},
        {3, 1, 1, 0, 0, 0, 0, soft, 2},
        {5, 31, 31, 0, 0, 0, 0, soft, 2},
        {9, 257, 257, 1, 1, 1, 0, soft, 2},         /* misaligned, one offset */
        {6, 1000, 1003, 0, 0, 0, 0, soft, 2},       /* padded rows */
        {7, 1025, 1025, 3, 1, 2, 0, soft, 2},       /* different offsets: scalar path */
        {5, 4097, 4100, 2, 2, 2, 0, soft, 2},
        {3, 8193, 8193, 0, 0, 0, 0, soft, 2},       /* a cluster */
        {4, 50257, 50257, 0, 0, 0, 0, special, SB_KINDS},
        {3, 65539, 65539, 1, 1, 1, 0, soft, 2},
        {2, 131072, 131072, 0, 0, 0, 0, soft, 2},   /* regs' limit (16 elements x 8192 threads); bulk_ex's f32 limit (C = 16 of 2048) */
        {2, 131076, 131076, 0, 0, 0, 0, soft, 2},   /* one f32 vector past bulk_ex's limit: refused */
        {2, 131075, 131075, 0, 0, 0, 0, soft, 2},   /* beyond: the API's two passes */
        {1, 262144, 262144, 0, 0, 0, 0, soft, 2},   /* bulk_ex's 16-bit limit, 8 x 64 KiB (C = 16 of 2048) */
        {1, 262152, 262152, 0, 0, 0, 2, soft, 2},   /* one 16-bit vector past it: refused; dx = y */
        {1, 262147, 262147, 0, 0, 0, 0, soft, 2},
        {12, 37, 37, 0, 0, 0, 0, special, SB_KINDS},
        {12, 3000, 3000, 0, 0, 0, 0, special, SB_KINDS},
        {6, 1000, 1000, 0, 0, 0, 1, special, SB_KINDS}, /* dx = dy */
        {6, 20001, 20001, 1, 1, 1, 2, special, SB_KINDS}, /* dx = y */
        {3, 70001, 70001, 0, 0, 0, 1, soft, 2},
        {1000, 77, 77, 0, 0, 0, 0, soft, 2},        /* many short rows: a warp each, 4 a block */
        {600, 300, 300, 1, 1, 1, 0, special, SB_KINDS},
        {560, 5003, 5003, 0, 0, 0, 0, soft, 2},     /* many rows, a cluster of 2 x 256 (bf16: 1 x 256) */
        {4, 8192, 8200, 0, 0, 0, 0, soft, 2},       /* bulk: padded rows of whole vectors */
        {3, 40008, 40008, 0, 0, 0, 1, special, SB_KINDS}, /* bulk: chunks of 1251 and 1248 vectors (16-bit), dx = dy */
        {300, 32768, 32768, 0, 0, 0, 2, special, SB_KINDS}, /* bulk: many rows, a cluster of 2 (16-bit), dx = y */
        /* bulk_ex (chunks of <= 1024 vectors of each input, pieces of 256;
         * rows x C > 132 SMs: no few-rows split unless said) and bulk: */
        {200, 1024, 1024, 0, 0, 0, 0, special, SB_KINDS}, /* C = 1, one partial piece (128 / 256 vectors) */
        {200, 4096, 4096, 0, 0, 0, 2, soft, 2},           /* C = 1: 2 pieces (16-bit), the whole 1024 (f32); dx = y */
        {140, 12296, 12296, 0, 0, 0, 1, special, SB_KINDS}, /* C = 2 / 4 (f32) of 776, the last 761 / 746; dx = dy */
        {40, 32776, 32776, 0, 0, 0, 0, special, SB_KINDS}, /* C = 8 of 520 (16-bit); f32 past 8 x 1024: 4 of 2056 */
        {20, 65536, 65536, 0, 0, 0, 2, special, SB_KINDS},  /* C = 8 of 1024 (16-bit), of 2048 (f32); dx = y */
        {3, 16384, 16384, 0, 0, 0, 1, special, SB_KINDS},   /* few rows (16-bit): C = 2 doubled to 4 of 512; dx = dy */
        {2, 147456, 147456, 0, 0, 0, 0, soft, 2},         /* 16-bit: 8 x 36 KiB, bulk's limit; f32: bulk refuses */
        {2, 147464, 147464, 0, 0, 0, 0, soft, 2},         /* one vector past it: bulk refuses, bulk_ex C = 8 of 2312 */
        {3, 100000, 100000, 0, 0, 0, 1, special, SB_KINDS}, /* f32: bulk refuses, bulk_ex C = 8 of 3128; dx = dy */
        /* bulk_ex past two blocks an SM (eight chunks of > 3592 vectors):
         * a cluster of 16 where the device schedules one */
        {3, 120004, 120004, 0, 0, 0, 1, special, SB_KINDS}, /* f32: C = 16 of 1880, the last 1801; dx = dy */
        {2, 240008, 240008, 0, 0, 0, 2, soft, 2},           /* 16-bit: C = 16 of 1880; f32: refused; dx = y */
        {4, 4096, 4096, 0, 0, 4, 0, soft, 2},             /* dx at +8 bytes (16-bit: refused), +16 (f32: taken) */
        {4, 4096, 4096, 0, 8, 0, 0, soft, 2},             /* dy at +16 / +32 bytes: taken */
        {4, 4096, 4096, 0, 1, 0, 0, soft, 2},             /* dy misaligned: refused (the others' scalar path) */
    };
    if (cudaDeviceGetAttribute(&cc_major, cudaDevAttrComputeCapabilityMajor, 0) != cudaSuccess)
        cc_major = 0;
    int lost = 0;
    const char *q = getenv("SL_SOFTMAX_QUICK");
    const int quick = q && *q && *q != '0';
    for (size_t d = 0; d < sizeof dts / sizeof dts[0] && !lost; d++) {
        if (quick && d > 0)
            break;
        for (int k = -1; k < sl_op_softmax_bwd.nvariants && !lost; k++) {
            const sl_variant *v = k < 0 ? NULL : &sl_op_softmax_bwd.variants[k];
            if (v && (v->backend != SL_BACKEND_CUDA || v->copy || !v->launch || v->kind == SL_KIND_API))
                continue;
            for (size_t i = 0; i < sizeof cases / sizeof cases[0] && !lost; i++) {
                const gcase *c = &cases[i];
                if (!v && c->ld != c->cols)
                    continue; /* sl_softmax_bwd takes dense rows */
                lost = sb_case(ctx, v, dts[d], c) != 0;
            }
        }
    }
    for (int k = 0; k < sl_op_softmax_bwd.nvariants && k < MAXV && !lost; k++) {
        const sl_variant *v = &sl_op_softmax_bwd.variants[k];
        if (v->backend != SL_BACKEND_CUDA || !v->launch || !is_bulk(v))
            continue;
        printf("%s: %zu launches checked against the oracle, %zu refused as promised\n", v->name, bulk_ran[k],
               bulk_refused[k]);
        CHECK(cc_major < 9 || bulk_ran[k] > 0, "the %s rung never ran on an sm_%d0 device", v->name, cc_major);
        CHECK(bulk_refused[k] > 0, "the %s rung's refusals were not exercised", v->name);
    }
    if (!lost) {
        float host[16] = {0};
        void *d = NULL;
        cudaMalloc(&d, 4096);
        char *b = d;
        CHECK(sl_softmax_bwd(ctx, SL_F32, 2, 4, host, b + 1024, b + 2048, NULL) == SL_ERR_BAD_POINTER, "host y");
        CHECK(sl_softmax_bwd(ctx, SL_F32, 2, 4, b, b + 1024, b + 4, NULL) == SL_ERR_OVERLAP, "overlap");
        CHECK(sl_softmax_bwd(ctx, SL_F64, 2, 4, b, b + 1024, b + 2048, NULL) == SL_ERR_UNSUPPORTED, "f64");
        CHECK(sl_softmax_bwd(ctx, SL_F32, 2, 4, b + 2, b + 1024, b + 2048, NULL) == SL_ERR_MISALIGNED, "misaligned");
        cudaFree(d);
    }
    sl_ctx_destroy(ctx);
    return check_exit("test_gpu_softmax_bwd");
}
