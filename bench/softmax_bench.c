/*
 * softmax_bench.c - the softmax ladder timed the two ways issue 18's bars
 * need, beside the copy ceiling and cuDNN, in one process:
 *
 *   event   one launch between two CUDA events, median of --trials (what
 *           `streamlab run` measures); --cold flushes L2 before each
 *           (a 256 MiB cudaMemsetAsync outside the events);
 *   graph   --graph-calls launches captured in one CUDA graph, the graph
 *           replayed --graph-reps times between events: the median per
 *           launch, i.e. the kernel time with back-to-back launch gaps
 *           (what torch's graph replay in bench/peers.py softmax gives).
 *
 * Every variant is checked against an fp64 oracle (tests/softmax_check.h,
 * the op's bound: (16 + ln(1 / |y|) + ln cols) x 2^-24 relative + 2^-126,
 * plus 1 ulp for 16-bit dtypes; cuDNN gets its declared 64 in place of
 * the 16) before and after its timing, on --check-rows rows
 * spread over the matrix (first and last included), with y poisoned
 * (0xff) before each checked launch. Inputs: uniform in [-8, 8), drawn on
 * the host per element from a hash of (seed, index), never zeros.
 *
 *   softmax_bench --shapes 128x2^10,128x2^17 --dtypes f32,bf16 [--cold]
 *                 [--variants copy,regs,sl_softmax] --json out.json
 *
 * Bytes: rows x cols x size read + the same written (the op's useful
 * traffic); GB/s = bytes / time. Exit 1 if any check fails.
 */
#include "softmax_check.h"

#include "internal.h"
#include "op.h"

#include <cuda_runtime_api.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXS 32

static const char *parse_shape(const char *s, uint64_t *r, uint64_t *c)
{
    char *e;
    unsigned long long a = strtoull(s, &e, 10);
    if (*e == '^') {
        unsigned long long p = strtoull(e + 1, &e, 10), x = 1;
        while (p--)
            x *= a;
        a = x;
    }
    *r = a;
    if (*e != 'x')
        return NULL;
    s = e + 1;
    a = strtoull(s, &e, 10);
    if (*e == '^') {
        unsigned long long p = strtoull(e + 1, &e, 10), x = 1;
        while (p--)
            x *= a;
        a = x;
    }
    *c = a;
    return e;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_d);
    return n ? (n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2])) : 0.0;
}

static uint64_t mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

#define CK(x)                                                                                     \
    do {                                                                                          \
        cudaError_t e_ = (x);                                                                     \
        if (e_ != cudaSuccess) {                                                                  \
            fprintf(stderr, "softmax_bench: %s: %s (line %d)\n", #x, cudaGetErrorString(e_), __LINE__); \
            exit(1);                                                                              \
        }                                                                                         \
    } while (0)

typedef struct ctxs {
    sl_ctx *ctx;
    cudaStream_t s;
    cudaEvent_t e0, e1;
    void *flush;
    size_t flush_bytes;
} ctxs;

static sl_status launch(ctxs *c, const sl_variant *v, sl_dtype dt, uint64_t rows, uint64_t cols, void *x, void *y)
{
    if (v->kind == SL_KIND_API)
        return sl_softmax(c->ctx, dt, rows, cols, x, y, c->s);
    sl_args a = {.op = &sl_op_softmax, .shape = {.rows = rows, .cols = cols, .ld = cols}, .n = rows * cols,
                 .dtype = dt, .out_dtype = dt, .stream = c->s};
    a.buf[0] = x;
    a.buf[1] = y;
    return v->launch(&a);
}

/* Check rows of y (device) against the oracle on the sampled rows. */
static size_t check(sl_dtype dt, const unsigned char *hx, const void *dy, uint64_t rows, uint64_t cols, int nrows,
                    int peer, const char *what)
{
    const size_t es = sl_dtype_size(dt);
    unsigned char *hy = malloc(cols * es);
    double *want = malloc(cols * sizeof *want);
    size_t bad = 0;
    for (int k = 0; k < nrows; k++) {
        const uint64_t r = nrows == 1 ? 0 : (uint64_t)k * (rows - 1) / (uint64_t)(nrows - 1);
        if (k > 0 && r == (nrows == 1 ? 0 : (uint64_t)(k - 1) * (rows - 1) / (uint64_t)(nrows - 1)))
            continue;
        CK(cudaMemcpy(hy, (const char *)dy + r * cols * es, cols * es, cudaMemcpyDeviceToHost));
        smx_t_oracle(dt, hx + r * cols * es, 1, cols, cols, want);
        if (peer) { /* cuDNN: 64 x 2^-24 relative (its variant's ulps) */
            for (uint64_t j = 0; j < cols; j++) {
                unsigned char wb[8];
                sl_dtype_store_f64(dt, wb, 0, want[j]);
                const double w = sl_dtype_load_f64(dt, wb, 0), g = sl_dtype_load_f64(dt, hy, j);
                const double al = 64 * 0x1p-24 * fabs(w) + 0x1p-126 + (es < 4 ? sl_dtype_ulp(dt, w) : 0.0);
                if (!(fabs(g - w) <= al) && !(isnan(g) && isnan(w)) && bad++ < 3)
                    fprintf(stderr, "%s: row %llu col %llu: %a, want %a\n", what, (unsigned long long)r,
                            (unsigned long long)j, g, w);
            }
        } else {
            bad += smx_t_compare(dt, hy, want, 1, cols, cols, what);
        }
    }
    free(hy);
    free(want);
    return bad;
}

int main(int argc, char **argv)
{
    const char *shapes = "128x2^10,128x2^11,128x2^12,128x2^13,128x2^14,128x2^15,128x2^16,128x2^17";
    const char *dtypes = "f32,bf16", *variants = NULL, *json = NULL;
    int trials = 30, cold = 0, graph_calls = 100, graph_reps = 10, check_rows = 16, graph = 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--shapes") && i + 1 < argc)
            shapes = argv[++i];
        else if (!strcmp(argv[i], "--dtypes") && i + 1 < argc)
            dtypes = argv[++i];
        else if (!strcmp(argv[i], "--variants") && i + 1 < argc)
            variants = argv[++i];
        else if (!strcmp(argv[i], "--json") && i + 1 < argc)
            json = argv[++i];
        else if (!strcmp(argv[i], "--trials") && i + 1 < argc)
            trials = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--graph-calls") && i + 1 < argc)
            graph_calls = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--graph-reps") && i + 1 < argc)
            graph_reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--check-rows") && i + 1 < argc)
            check_rows = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--cold"))
            cold = 1;
        else if (!strcmp(argv[i], "--no-graph"))
            graph = 0;
        else {
            fprintf(stderr, "usage: softmax_bench [--shapes RxC,...] [--dtypes f32,bf16,f16] [--variants a,b] [--cold]\n"
                            "       [--trials N] [--graph-calls K] [--graph-reps R] [--no-graph] [--check-rows N]"
                            " [--json FILE]\n");
            return 2;
        }
    }
    if (trials < 1 || trials > 10000 || graph_calls < 1 || graph_reps < 1 || check_rows < 1) {
        fprintf(stderr, "softmax_bench: counts must be positive\n");
        return 2;
    }
    ctxs c;
    memset(&c, 0, sizeof c);
    if (sl_ctx_create(0, &c.ctx) != SL_OK) {
        fprintf(stderr, "softmax_bench: no CUDA device: %s\n", sl_last_error());
        return 77;
    }
    CK(cudaStreamCreateWithFlags(&c.s, cudaStreamNonBlocking));
    CK(cudaEventCreate(&c.e0));
    CK(cudaEventCreate(&c.e1));
    c.flush_bytes = (size_t)256 << 20;
    CK(cudaMalloc(&c.flush, c.flush_bytes));
    FILE *jf = json ? fopen(json, "w") : NULL;
    if (json && !jf) {
        fprintf(stderr, "softmax_bench: cannot write %s\n", json);
        return 2;
    }
    if (jf) {
        struct cudaDeviceProp p;
        CK(cudaGetDeviceProperties(&p, 0));
        fprintf(jf, "{\"schema\": \"streamlab.softmax_bench/1\", \"device\": \"%s\", \"sms\": %d, \"trials\": %d, "
                    "\"graph_calls\": %d, \"graph_reps\": %d, \"cold\": %s, \"rows\": [\n",
                p.name, p.multiProcessorCount, trials, graph_calls, graph_reps, cold ? "true" : "false");
    }
    int first = 1, failures = 0;
    printf("%-12s %-5s %-11s %-8s %10s %9s %10s %9s  %s\n", "shape", "dtype", "variant", "kind", "event us", "GB/s",
           "graph us", "GB/s", "check");
    char dl[64];
    snprintf(dl, sizeof dl, "%s", dtypes);
    for (char *dsave = NULL, *dn = strtok_r(dl, ",", &dsave); dn; dn = strtok_r(NULL, ",", &dsave)) {
        const int dti = sl_dtype_from_name(dn);
        if (dti < 0 || !sl_op_supports(&sl_op_softmax, (sl_dtype)dti)) {
            fprintf(stderr, "softmax_bench: dtype %s is not offered\n", dn);
            return 2;
        }
        const sl_dtype dt = (sl_dtype)dti;
        const size_t es = sl_dtype_size(dt);
        for (const char *sp = shapes; sp && *sp;) {
            uint64_t rows, cols;
            const char *e = parse_shape(sp, &rows, &cols);
            if (!e || rows == 0 || cols == 0) {
                fprintf(stderr, "softmax_bench: bad shape in '%s'\n", sp);
                return 2;
            }
            sp = *e == ',' ? e + 1 : NULL;
            const size_t n = rows * cols, bytes = n * es;
            unsigned char *hx = malloc(bytes);
            void *dx = NULL, *dy = NULL;
            if (!hx) {
                fprintf(stderr, "softmax_bench: out of host memory\n");
                return 1;
            }
            const uint64_t seed = mix(rows * 1000003u + cols);
#pragma omp parallel for schedule(static)
            for (long long i = 0; i < (long long)n; i++)
                sl_dtype_store_f64(dt, hx, (size_t)i, ((double)(mix(seed + (uint64_t)i) >> 11) * 0x1p-53 - 0.5) * 16.0);
            CK(cudaMalloc(&dx, bytes));
            CK(cudaMalloc(&dy, bytes));
            CK(cudaMemcpy(dx, hx, bytes, cudaMemcpyHostToDevice));
            const double traffic = 2.0 * (double)bytes;
            for (int k = 0; k < sl_op_softmax.nvariants; k++) {
                const sl_variant *v = &sl_op_softmax.variants[k];
                if (v->backend != SL_BACKEND_CUDA || !v->launch)
                    continue;
                if (variants) {
                    char pat[80];
                    snprintf(pat, sizeof pat, ",%s,", v->name);
                    char all[512];
                    snprintf(all, sizeof all, ",%s,", variants);
                    if (!strstr(all, pat))
                        continue;
                }
                char what[128];
                snprintf(what, sizeof what, "%llux%llu %s %s", (unsigned long long)rows, (unsigned long long)cols, dn,
                         v->name);
                /* check before */
                CK(cudaMemset(dy, 0xff, bytes));
                sl_status st = launch(&c, v, dt, rows, cols, dx, dy);
                if (st == SL_OK)
                    st = cudaStreamSynchronize(c.s) == cudaSuccess ? SL_OK : SL_ERR_CUDA;
                if (st != SL_OK) {
                    printf("%-12s %-5s %-11s %-8s skipped: %s\n", what, dn, v->name, sl_kind_name(v->kind),
                           sl_last_error());
                    if (jf) {
                        fprintf(jf, "%s{\"rows\": %llu, \"cols\": %llu, \"dtype\": \"%s\", \"variant\": \"%s\", "
                                    "\"kind\": \"%s\", \"skipped\": true}",
                                first ? "" : ",\n", (unsigned long long)rows, (unsigned long long)cols, dn, v->name,
                                sl_kind_name(v->kind));
                        first = 0;
                    }
                    if (st != SL_ERR_UNSUPPORTED)
                        failures++;
                    continue;
                }
                size_t bad = v->copy ? 0 : check(dt, hx, dy, rows, cols, check_rows, v->kind == SL_KIND_PEER, what);
                /* event timing */
                double *t = malloc((size_t)trials * sizeof *t);
                for (int w = 0; w < 3; w++)
                    launch(&c, v, dt, rows, cols, dx, dy);
                for (int i = 0; i < trials; i++) {
                    if (cold)
                        CK(cudaMemsetAsync(c.flush, i & 0xff, c.flush_bytes, c.s));
                    CK(cudaEventRecord(c.e0, c.s));
                    launch(&c, v, dt, rows, cols, dx, dy);
                    CK(cudaEventRecord(c.e1, c.s));
                    CK(cudaEventSynchronize(c.e1));
                    float ms;
                    CK(cudaEventElapsedTime(&ms, c.e0, c.e1));
                    t[i] = ms * 1e3;
                }
                const double ev = median(t, trials), ev_min = t[0];
                free(t);
                /* graph timing */
                double gr = 0.0;
                if (graph) {
                    cudaGraph_t g;
                    cudaGraphExec_t ge;
                    CK(cudaStreamBeginCapture(c.s, cudaStreamCaptureModeThreadLocal));
                    for (int i = 0; i < graph_calls; i++)
                        launch(&c, v, dt, rows, cols, dx, dy);
                    CK(cudaStreamEndCapture(c.s, &g));
                    CK(cudaGraphInstantiate(&ge, g, 0));
                    CK(cudaGraphLaunch(ge, c.s));
                    CK(cudaStreamSynchronize(c.s));
                    double *gt = malloc((size_t)graph_reps * sizeof *gt);
                    for (int i = 0; i < graph_reps; i++) {
                        CK(cudaEventRecord(c.e0, c.s));
                        CK(cudaGraphLaunch(ge, c.s));
                        CK(cudaEventRecord(c.e1, c.s));
                        CK(cudaEventSynchronize(c.e1));
                        float ms;
                        CK(cudaEventElapsedTime(&ms, c.e0, c.e1));
                        gt[i] = ms * 1e3 / graph_calls;
                    }
                    gr = median(gt, graph_reps);
                    free(gt);
                    CK(cudaGraphExecDestroy(ge));
                    CK(cudaGraphDestroy(g));
                }
                /* check after */
                CK(cudaMemset(dy, 0xff, bytes));
                st = launch(&c, v, dt, rows, cols, dx, dy);
                CK(cudaStreamSynchronize(c.s));
                if (!v->copy)
                    bad += check(dt, hx, dy, rows, cols, check_rows, v->kind == SL_KIND_PEER, what);
                failures += bad != 0 || st != SL_OK;
                printf("%-12s %-5s %-11s %-8s %10.2f %9.0f %10.2f %9.0f  %s\n", what, dn, v->name,
                       sl_kind_name(v->kind), ev, traffic / (ev * 1e3), gr, gr > 0 ? traffic / (gr * 1e3) : 0.0,
                       bad ? "FAILED" : "ok");
                fflush(stdout);
                if (jf) {
                    fprintf(jf, "%s{\"rows\": %llu, \"cols\": %llu, \"dtype\": \"%s\", \"variant\": \"%s\", "
                                "\"kind\": \"%s\", \"bytes\": %.0f, \"event_us\": %.4f, \"event_min_us\": %.4f, "
                                "\"graph_us\": %.4f, \"verified\": %s, \"cold\": %s}",
                            first ? "" : ",\n", (unsigned long long)rows, (unsigned long long)cols, dn, v->name,
                            sl_kind_name(v->kind), traffic, ev, ev_min, gr, bad ? "false" : "true",
                            cold ? "true" : "false");
                    first = 0;
                }
            }
            CK(cudaFree(dx));
            CK(cudaFree(dy));
            free(hx);
        }
    }
    if (jf) {
        fprintf(jf, "\n], \"failures\": %d}\n", failures);
        fclose(jf);
    }
    sl_ctx_destroy(c.ctx);
    if (failures)
        fprintf(stderr, "softmax_bench: %d variant(s) failed a check or a launch\n", failures);
    return failures ? 1 : 0;
}
