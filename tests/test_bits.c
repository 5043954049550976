/*
 * test_bits.c - the ops that promise a bit-for-bit move (sl_copy,
 * sl_transpose) move bytes: every NaN pattern (quiet, signalling, with
 * payloads, negative), -0, infinities and subnormals come out as they went
 * in, in every dtype the op offers (16- and 8-bit included), through the
 * public function and every rung of the backend, out of place and, for
 * copy, in place (where nothing may change). The expected result is the
 * input's bytes, compared with memcmp: no dtype conversion anywhere in the
 * test (issue 25: the CPU copy widened f16 / bf16 to float and back,
 * rewriting every NaN as 0x7fff, and its reference did the same).
 *
 * Built twice from this file: test_bits on a CPU context (CI), and, with
 * SL_TEST_GPU, test_gpu_bits on CUDA device 0 (exit 77 without one).
 */
#include "check.h"
#include "internal.h"
#include "op.h"

#ifdef SL_TEST_GPU
#include "gpu_common.h"
#endif

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef SL_TEST_GPU
#define BACKEND SL_BACKEND_CUDA
#define TEST_NAME "test_gpu_bits"
#else
#define BACKEND SL_BACKEND_CPU
#define TEST_NAME "test_bits"
#endif

#ifndef SL_TEST_GPU
static const char *case_name(const sl_variant *v)
{
    return v ? v->name : "public";
}
#endif

/* The special patterns of each dtype (little-endian integers of its size). */
static const uint64_t pat_f32[] = {0x7f800001u, 0x7fa00000u, 0xffbfffffu, 0x7fc00001u, 0xffc00000u, 0x7fffffffu,
                                   0x80000000u, 0x00000001u, 0x7f800000u, 0xff800000u};
static const uint64_t pat_f64[] = {0x7ff0000000000001ull, 0x7ff4000000000000ull, 0xfff7ffffffffffffull,
                                   0x7ff8000000000001ull, 0xfff8000000000000ull, 0x8000000000000000ull,
                                   0x0000000000000001ull, 0x7ff0000000000000ull};
static const uint64_t pat_f16[] = {0x7e00, 0x7d01, 0x7c01, 0xfc01, 0x7dff, 0xfe00, 0x7fff, 0xffff,
                                   0x8000, 0x0001, 0x7c00, 0xfc00};
static const uint64_t pat_bf16[] = {0x7fc0, 0x7f81, 0x7fa5, 0xff81, 0x7fff, 0xffc1, 0xffff,
                                    0x8000, 0x0001, 0x7f80, 0xff80};
static const uint64_t pat_e4m3[] = {0x7f, 0xff, 0x80, 0x01, 0x7e, 0xfe}; /* e4m3fn: NaN is S.1111.111 only */
static const uint64_t pat_e5m2[] = {0x7d, 0x7e, 0x7f, 0xfd, 0xfe, 0xff, 0x80, 0x01, 0x7c, 0xfc};

static void patterns(sl_dtype dt, const uint64_t **p, size_t *n)
{
#define P(a) (*p = (a), *n = sizeof(a) / sizeof((a)[0]))
    switch (dt) {
    case SL_F32: P(pat_f32); break;
    case SL_F64: P(pat_f64); break;
    case SL_F16: P(pat_f16); break;
    case SL_BF16: P(pat_bf16); break;
    case SL_FP8_E4M3: P(pat_e4m3); break;
    default: P(pat_e5m2); break;
    }
#undef P
}

static uint64_t next64(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* n elements of dt: every third a special pattern, the rest random bits
 * (any bits: more NaNs among them in the 8-bit types). */
static void fill_bits(sl_dtype dt, unsigned char *x, size_t n, uint64_t seed)
{
    const size_t es = sl_dtype_size(dt);
    const uint64_t *p;
    size_t np;
    patterns(dt, &p, &np);
    uint64_t s = seed;
    for (size_t i = 0; i < n; i++) {
        const uint64_t v = i % 3 == 0 ? p[(i / 3) % np] : next64(&s);
        memcpy(x + i * es, &v, es); /* little-endian: the low es bytes */
    }
}

/* The device side: a buffer the context can use, filled from / read to the
 * host. The CPU context uses host memory directly. */
static void *dev_alloc(size_t bytes)
{
#ifdef SL_TEST_GPU
    void *d = NULL;
    return cudaMalloc(&d, bytes ? bytes : 1) == cudaSuccess ? d : NULL;
#else
    return malloc(bytes ? bytes : 1);
#endif
}

static void dev_free(void *d)
{
#ifdef SL_TEST_GPU
    cudaFree(d);
#else
    free(d);
#endif
}

static void to_dev(void *d, const void *h, size_t bytes)
{
#ifdef SL_TEST_GPU
    cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice);
#else
    memcpy(d, h, bytes);
#endif
}

static void to_host(void *h, const void *d, size_t bytes)
{
#ifdef SL_TEST_GPU
    cudaDeviceSynchronize();
    cudaMemcpy(h, d, bytes, cudaMemcpyDeviceToHost);
#else
    memcpy(h, d, bytes);
#endif
}

/* First differing element, or n. */
static size_t first_diff(const unsigned char *a, const unsigned char *b, size_t n, size_t es)
{
    for (size_t i = 0; i < n; i++)
        if (memcmp(a + i * es, b + i * es, es) != 0)
            return i;
    return n;
}

static uint64_t elem_bits(const unsigned char *p, size_t i, size_t es)
{
    uint64_t v = 0;
    memcpy(&v, p + i * es, es);
    return v;
}

/* sl_copy (v NULL) or a copy rung, on n elements: out of place, then in
 * place. */
static void copy_case(sl_ctx *ctx, const sl_variant *v, sl_dtype dt, size_t n)
{
    const size_t es = sl_dtype_size(dt), bytes = n * es;
    unsigned char *h = malloc(bytes + 1), *back = malloc(bytes + 1);
    void *da = dev_alloc(bytes), *dc = dev_alloc(bytes);
    if (!h || !back || !da || !dc) {
        CHECK(0, "out of memory");
        goto out;
    }
    fill_bits(dt, h, n, 0x1234u + n * 7u + (uint64_t)dt);
    to_dev(da, h, bytes);
    memset(back, 0x5a, bytes);
    to_dev(dc, back, bytes); /* poison */
    for (int inplace = 0; inplace < 2; inplace++) {
        void *c = inplace ? da : dc;
        sl_status st;
        if (v) {
            sl_args a = {.op = &sl_op_copy, .n = n, .dtype = dt, .out_dtype = dt};
            a.shape = sl_shape_1d(n);
            a.buf[0] = da;
            a.buf[1] = c;
            st = v->launch(&a);
        } else {
            st = sl_copy(ctx, dt, n, da, c, NULL);
        }
        if (st == SL_ERR_UNSUPPORTED && v && v->kind == SL_KIND_PEER)
            goto out; /* a peer may not take every dtype */
        CHECK(st == SL_OK, "copy %s %s n=%zu%s: %s", case_name(v), sl_dtype_name(dt), n, inplace ? " in place" : "",
              sl_last_error());
        if (st != SL_OK)
            goto out;
        to_host(back, c, bytes);
        const size_t i = first_diff(h, back, n, es);
        CHECK(i == n, "copy %s %s n=%zu%s: element %zu is %#llx, was %#llx", case_name(v), sl_dtype_name(dt), n,
              inplace ? " in place" : "", i, (unsigned long long)(i < n ? elem_bits(back, i, es) : 0),
              (unsigned long long)(i < n ? elem_bits(h, i, es) : 0));
    }
out:
    free(h);
    free(back);
    dev_free(da);
    dev_free(dc);
}

/* sl_transpose (v NULL) or a transpose rung on rows x cols (dense). The
 * expected output is built here element by element with memcpy. */
static void transpose_case(sl_ctx *ctx, const sl_variant *v, sl_dtype dt, size_t rows, size_t cols)
{
    const size_t es = sl_dtype_size(dt), n = rows * cols, bytes = n * es;
    unsigned char *h = malloc(bytes), *want = malloc(bytes), *back = malloc(bytes);
    void *din = dev_alloc(bytes), *dout = dev_alloc(bytes);
    if (!h || !want || !back || !din || !dout) {
        CHECK(0, "out of memory");
        goto out;
    }
    fill_bits(dt, h, n, 0x777u + rows * 31u + cols + (uint64_t)dt);
    for (size_t i = 0; i < rows; i++)
        for (size_t j = 0; j < cols; j++)
            memcpy(want + (j * rows + i) * es, h + (i * cols + j) * es, es);
    to_dev(din, h, bytes);
    memset(back, 0x5a, bytes);
    to_dev(dout, back, bytes);
    sl_status st;
    if (v) {
        sl_args a = {.op = &sl_op_transpose, .n = n, .dtype = dt, .out_dtype = dt};
        a.shape = sl_shape_2d(rows, cols);
        a.shape.ld = cols;
        a.buf[0] = din;
        a.buf[1] = dout;
        st = v->launch(&a);
    } else {
        st = sl_transpose(ctx, dt, rows, cols, din, dout, NULL);
    }
    if (st == SL_ERR_UNSUPPORTED && v && v->kind == SL_KIND_PEER)
        goto out; /* cuBLAS: f32 and f64 only */
    CHECK(st == SL_OK, "transpose %s %s %zux%zu: %s", case_name(v), sl_dtype_name(dt), rows, cols, sl_last_error());
    if (st != SL_OK)
        goto out;
    to_host(back, dout, bytes);
    const size_t i = first_diff(want, back, n, es);
    CHECK(i == n, "transpose %s %s %zux%zu: element %zu is %#llx, want %#llx", case_name(v), sl_dtype_name(dt), rows,
          cols, i, (unsigned long long)(i < n ? elem_bits(back, i, es) : 0),
          (unsigned long long)(i < n ? elem_bits(want, i, es) : 0));
out:
    free(h);
    free(want);
    free(back);
    dev_free(din);
    dev_free(dout);
}

int main(void)
{
    sl_ctx *ctx = NULL;
#ifdef SL_TEST_GPU
    ctx = gpu_open_or_skip(TEST_NAME);
    if (!ctx)
        return SKIP;
#else
    if (sl_ctx_create(SL_DEVICE_CPU, &ctx) != SL_OK) {
        fprintf(stderr, TEST_NAME ": cannot open the CPU context: %s\n", sl_last_error());
        return 1;
    }
#endif
    /* Issue 25's example, by hand: f16 {0x7e00, 0x7d01} copied, then in place. */
    {
        uint16_t a[2] = {0x7e00, 0x7d01}, o[2] = {0, 0};
        void *da = dev_alloc(4), *dc = dev_alloc(4);
        to_dev(da, a, 4);
        CHECK(sl_copy(ctx, SL_F16, 2, da, dc, NULL) == SL_OK, "%s", sl_last_error());
        to_host(o, dc, 4);
        CHECK(o[0] == 0x7e00 && o[1] == 0x7d01, "f16 {0x7e00, 0x7d01} copied as {%#x, %#x}", o[0], o[1]);
        CHECK(sl_copy(ctx, SL_F16, 2, da, da, NULL) == SL_OK, "%s", sl_last_error());
        to_host(o, da, 4);
        CHECK(o[0] == 0x7e00 && o[1] == 0x7d01, "f16 {0x7e00, 0x7d01} in place became {%#x, %#x}", o[0], o[1]);
        dev_free(da);
        dev_free(dc);
    }
    static const size_t ns[] = {1, 2, 3, 31, 1023, 4099, 65537};
    static const size_t shapes[][2] = {{1, 1}, {3, 5}, {33, 17}, {64, 96}, {127, 259}};
    for (int d = 0; d < SL_DTYPE_COUNT; d++) {
        const sl_dtype dt = (sl_dtype)d;
        if ((sl_op_copy.dtypes >> d) & 1u) {
            for (int k = -1; k < sl_op_copy.nvariants; k++) {
                const sl_variant *v = k < 0 ? NULL : &sl_op_copy.variants[k];
                if (v && (v->backend != BACKEND || v->copy || !v->launch || v->workspace))
                    continue; /* the ceiling (cudaMemcpy / memcpy) and rungs needing a workspace aside */
                for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++)
                    copy_case(ctx, v, dt, ns[i]);
            }
        } else {
            /* an offered dtype list that leaves one out must say so */
            unsigned char b[16] = {0};
            CHECK(sl_copy(ctx, dt, 2, b, b + 8, NULL) != SL_OK, "copy refuses %s", sl_dtype_name(dt));
        }
        if ((sl_op_transpose.dtypes >> d) & 1u) {
            for (int k = -1; k < sl_op_transpose.nvariants; k++) {
                const sl_variant *v = k < 0 ? NULL : &sl_op_transpose.variants[k];
                /* the cuBLAS peer (cublas<t>geam: 1 x A^T + 0 x B) is
                 * arithmetic and quiets signalling NaNs (first H200 run):
                 * its bits are its own, not the op's promise */
                if (v && (v->backend != BACKEND || v->copy || !v->launch || v->workspace || v->kind == SL_KIND_PEER))
                    continue;
                for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
                    transpose_case(ctx, v, dt, shapes[i][0], shapes[i][1]);
            }
        }
    }
    sl_ctx_destroy(ctx);
    return check_exit(TEST_NAME);
}
