/*
 * matmul_bench.c - the matmul ladder on one GPU, every row verified, in one
 * run (issue 12): the CUDA rungs, the cuBLAS peers, and seed 002's CPU
 * comparison (the serial and OpenMP CPU rungs at small sizes).
 *
 *   matmul_bench [--sizes 1024,2048,4096,8192] [--shapes MxNxK,...]
 *                [--dtypes f32,bf16] [--variants a,b] [--cpu-sizes 512,1024]
 *                [--trials 20] [--budget-s 0.4] [--graph N] [--explore]
 *                [--json F] [--md F]
 *
 * --shapes: problems beside the squares of --sizes (dense, lda = K, ldb =
 * ldc = N). --graph N (issue 26): instead of one launch between events,
 * N launches captured in one CUDA graph, launch i on operand set i mod S
 * (S copies of A, B, C making 2 x the L2, at most 32), the graph replayed
 * up to --trials times, ms = median replay / N (time_graph).
 *
 * Square M = N = K, row-major, alpha = 1, beta = 0 (C poisoned with NaN
 * before every checked launch, so an entry not written fails). Inputs
 * uniform in [-1, 1) rounded to the dtype (never all zeros). Each variant:
 * launch and check, 2 warm-ups, then up to --trials launches timed one by
 * one with CUDA events (fewer for slow rows: at most --budget-s seconds),
 * the median reported; then launch and check again. Checks: every entry
 * against the fp64 reference up to 1024^3, above it 2048 sampled entries
 * plus every row sum (sl_mm_expect). The working set (3 x 8192^2 x 4 B =
 * 805 MB at 8192 f32) is far above the 60 MiB L2 from 4096 in f32 and
 * 8192 in bf16; at 1024-2048 A and B fit in L2 and the rows say so.
 * --explore also times rung 7's configurations (sl_cuda_mm_best_cfg).
 * Ratios: x cuBLAS divides by the cuBLAS row of the same dtype and math
 * (cublasSgemm for SIMT f32, cublas_tf32 for TF32, cublasGemmEx for bf16
 * and f16), measured in the same run.
 */
#include "mm.h"

#include "dtype_conv.h"
#include "op.h"
#include "rng.h"

#include <cuda_runtime_api.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_check.h"

typedef struct row {
    char name[48];
    const sl_mm_variant *v;
    sl_dtype dt;
    int64_t s, n, k; /* s = M */
    int sets;        /* --graph: operand sets the captured launches rotate over */
    double ms, tflops, pct_peak, x_peer, worst;
    int trials;
    sl_mm_roof roof;
    bool ok, fits_l2;
    char err[256];
} row;

static row rows[512];
static int nrows;

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void fill(sl_dtype dt, void *p, size_t count, uint64_t seed)
{
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < count; i++) {
        const double u = (double)(sl_rand_bits(seed, i) >> 40) * 0x1p-24 * 2.0 - 1.0;
        sl_dtype_store(dt, p, i, (float)u);
    }
}

static int cmpd(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static int parse_list(const char *s, int64_t *out, int max)
{
    int n = 0;
    while (*s && n < max) {
        out[n++] = strtoll(s, (char **)&s, 10);
        if (*s == ',')
            s++;
        else if (*s)
            return -1;
    }
    return n;
}

static bool wanted(const char *list, const char *name)
{
    if (!list)
        return true;
    const size_t l = strlen(name);
    for (const char *p = list; (p = strstr(p, name)); p += l)
        if ((p == list || p[-1] == ',') && (p[l] == ',' || p[l] == 0))
            return true;
    return false;
}

typedef struct prob {
    sl_mm dev, host;
    int nsets;                  /* --graph: A, B, C sets (set 0 = dev's) rotated so that L2 holds none */
    void *sa[32], *sb[32], *sc[32];
    void *ha, *hb, *got;
    sl_mm_expect e;
    size_t cbytes;
} prob;

static sl_status check(prob *P, const sl_mm_variant *v, double *worst)
{
    CK(cudaMemcpy(P->got, P->dev.c, P->cbytes, cudaMemcpyDeviceToHost));
    return sl_mm_expect_check(&P->host, v->math, &P->e, P->got, worst);
}

/* launch once with C poisoned, wait, check */
static sl_status launch_checked(prob *P, const sl_mm_variant *v, sl_mm_fn fn, double *worst)
{
    CK(cudaMemset(P->dev.c, 0xFF, P->cbytes));
    sl_status st = fn(&P->dev);
    cudaError_t ce = cudaDeviceSynchronize();
    if (ce != cudaSuccess) {
        fprintf(stderr, "%s: CUDA fault %s\n", v->name, cudaGetErrorString(ce));
        exit(1);
    }
    if (st != SL_OK)
        return st;
    return check(P, v, worst);
}

/* --graph N: the kernel time as in issue 26's table: N launches captured in
 * one CUDA graph (launch i on operand set i mod nsets, so that L2 holds no
 * set from one launch to the next where a set fits in it), the graph
 * replayed up to `trials` times between events; ms = median replay / N.
 * 0 on success, else the sl_status of the launch that failed. */
static int graph_calls;
static sl_status time_graph(prob *P, sl_mm_fn fn, int trials, double budget, double *ms_out, int *n_out)
{
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    sl_mm q = P->dev;
    q.stream = s;
    sl_status st = SL_OK;
    for (int i = 0; i < P->nsets && st == SL_OK; i++) { /* warm-up: first-call set-up happens outside the capture */
        q.a = P->sa[i];
        q.b = P->sb[i];
        q.c = P->sc[i];
        st = fn(&q);
    }
    CK(cudaStreamSynchronize(s));
    cudaGraph_t g = NULL;
    CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed));
    for (int i = 0; i < graph_calls && st == SL_OK; i++) {
        q.a = P->sa[i % P->nsets];
        q.b = P->sb[i % P->nsets];
        q.c = P->sc[i % P->nsets];
        st = fn(&q);
    }
    CK(cudaStreamEndCapture(s, &g));
    if (st != SL_OK) {
        cudaGraphDestroy(g);
        cudaStreamDestroy(s);
        return st;
    }
    cudaGraphExec_t ge;
    CK(cudaGraphInstantiate(&ge, g, 0));
    CK(cudaGraphLaunch(ge, s));
    CK(cudaStreamSynchronize(s));
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    double *t = malloc(sizeof(double) * (size_t)trials);
    int n = 0;
    const double t0 = now_s();
    while (n < trials && (n < 3 || now_s() - t0 < budget)) {
        CK(cudaEventRecord(e0, s));
        CK(cudaGraphLaunch(ge, s));
        CK(cudaEventRecord(e1, s));
        CK(cudaEventSynchronize(e1));
        float ms;
        CK(cudaEventElapsedTime(&ms, e0, e1));
        t[n++] = ms / graph_calls;
    }
    qsort(t, (size_t)n, sizeof *t, cmpd);
    *ms_out = n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
    *n_out = n;
    free(t);
    CK(cudaEventDestroy(e0));
    CK(cudaEventDestroy(e1));
    CK(cudaGraphExecDestroy(ge));
    CK(cudaGraphDestroy(g));
    CK(cudaStreamDestroy(s));
    return SL_OK;
}

static void run_variant(prob *P, const sl_mm_variant *v, sl_mm_fn fn, const char *name, int trials, double budget)
{
    row *r = &rows[nrows++];
    memset(r, 0, sizeof *r);
    snprintf(r->name, sizeof r->name, "%s", name);
    r->v = v;
    r->dt = P->dev.dtype;
    r->s = P->dev.m;
    r->n = P->dev.n;
    r->k = P->dev.k;
    r->sets = graph_calls ? P->nsets : 1;
    r->roof = sl_mm_roofline(v, &sl_mm_hw_h200, P->dev.m, P->dev.n, P->dev.k, P->dev.dtype, false);
    r->fits_l2 = (double)sl_dtype_size(P->dev.dtype) * (double)(P->dev.m * P->dev.k + P->dev.k * P->dev.n +
                                                                  P->dev.m * P->dev.n) <= 60.0 * 1024 * 1024;
    double w1 = 0, w2 = 0;
    sl_status st = launch_checked(P, v, fn, &w1);
    if (st != SL_OK) {
        snprintf(r->err, sizeof r->err, "%s", sl_last_error());
        fprintf(stderr, "%-12s %s %lld: FAILED %s\n", name, sl_dtype_name(r->dt), (long long)r->s, r->err);
        return;
    }
    if (graph_calls) {
        double gms = 0;
        int gn = 0;
        st = time_graph(P, fn, trials, budget, &gms, &gn);
        if (st != SL_OK) {
            snprintf(r->err, sizeof r->err, "in the graph: %s", sl_last_error());
            fprintf(stderr, "%-12s %s %lld: FAILED %s\n", name, sl_dtype_name(r->dt), (long long)r->s, r->err);
            return;
        }
        r->ms = gms;
        r->trials = gn;
    } else {
        cudaEvent_t e0, e1;
        CK(cudaEventCreate(&e0));
        CK(cudaEventCreate(&e1));
        for (int w = 0; w < 2; w++)
            fn(&P->dev);
        double *t = malloc(sizeof(double) * (size_t)trials);
        int n = 0;
        const double t0 = now_s();
        while (n < trials && (n < 3 || now_s() - t0 < budget)) {
            CK(cudaEventRecord(e0, 0));
            fn(&P->dev);
            CK(cudaEventRecord(e1, 0));
            CK(cudaEventSynchronize(e1));
            float ms;
            CK(cudaEventElapsedTime(&ms, e0, e1));
            t[n++] = ms;
        }
        CK(cudaGetLastError());
        qsort(t, (size_t)n, sizeof *t, cmpd);
        r->ms = n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
        r->trials = n;
        free(t);
        CK(cudaEventDestroy(e0));
        CK(cudaEventDestroy(e1));
    }
    st = launch_checked(P, v, fn, &w2);
    if (st != SL_OK) {
        snprintf(r->err, sizeof r->err, "after timing: %s", sl_last_error());
        fprintf(stderr, "%-12s %s %lld: FAILED %s\n", name, sl_dtype_name(r->dt), (long long)r->s, r->err);
        return;
    }
    r->ok = true;
    r->worst = w1 > w2 ? w1 : w2;
    r->tflops = r->roof.flops / (r->ms * 1e-3) / 1e12;
    r->pct_peak = 100.0 * r->tflops / r->roof.peak_tflops;
    printf("%-14s %-4s %5lldx%lldx%lld  %10.4f ms  %8.2f TFLOP/s  %5.1f%% of peak  bound %7.1f (%s)  worst %.3f  n=%d\n", name,
           sl_dtype_name(r->dt), (long long)r->s, (long long)r->n, (long long)r->k, r->ms, r->tflops, r->pct_peak,
           r->roof.bound_tflops, r->roof.limiter, r->worst, r->trials);
    fflush(stdout);
}

/* CPU rungs: wall clock, host buffers, one or more runs */
static void run_cpu(const sl_mm_variant *v, sl_dtype dt, int64_t s, int reps)
{
    row *r = &rows[nrows++];
    memset(r, 0, sizeof *r);
    snprintf(r->name, sizeof r->name, "cpu_%s", v->name);
    r->v = v;
    r->dt = dt;
    r->s = s;
    r->roof.flops = 2.0 * (double)s * (double)s * (double)s;
    const size_t es = sl_dtype_size(dt), cnt = (size_t)(s * s);
    void *a = malloc(cnt * es), *b = malloc(cnt * es), *c = malloc(cnt * es);
    fill(dt, a, cnt, 101);
    fill(dt, b, cnt, 202);
    sl_mm p = {.m = s, .n = s, .k = s, .lda = s, .ldb = s, .ldc = s, .alpha = 1, .beta = 0, .a = a, .b = b, .c = c,
               .dtype = dt};
    double best = 1e30;
    for (int i = 0; i < reps; i++) {
        memset(c, 0xFF, cnt * es);
        const double t0 = now_s();
        v->launch(&p);
        const double t1 = now_s();
        if (t1 - t0 < best)
            best = t1 - t0;
    }
    double w = 0;
    sl_status st = sl_mm_check(&p, v->math, NULL, c, s <= 1024, 1024, &w);
    r->ok = st == SL_OK;
    if (!r->ok)
        snprintf(r->err, sizeof r->err, "%s", sl_last_error());
    r->worst = w;
    r->ms = best * 1e3;
    r->trials = reps;
    r->tflops = r->roof.flops / best / 1e12;
    printf("%-12s %-4s %5lld  %10.3f ms  %8.4f TFLOP/s  (%d threads)  %s\n", r->name, sl_dtype_name(dt), (long long)s,
           r->ms, r->tflops, omp_get_max_threads(), r->ok ? "verified" : r->err);
    fflush(stdout);
    free(a);
    free(b);
    free(c);
}

/* rung 7's other configurations, for --explore */
static sl_status best_cfg1(const sl_mm *p) { return sl_cuda_mm_best_cfg(p, 1); }
static sl_status best_cfg2(const sl_mm *p) { return sl_cuda_mm_best_cfg(p, 2); }
static sl_status best_cfg3(const sl_mm *p) { return sl_cuda_mm_best_cfg(p, 3); }
static sl_status wt_cfg1(const sl_mm *p) { return sl_cuda_mm_warptile_cfg(p, 1); }
static sl_status wt_cfg2(const sl_mm *p) { return sl_cuda_mm_warptile_cfg(p, 2); }
static sl_status wt_cfg3(const sl_mm *p) { return sl_cuda_mm_warptile_cfg(p, 3); }

static const row *find_row(const char *name, sl_dtype dt, int64_t s, int64_t n, int64_t k)
{
    for (int i = 0; i < nrows; i++)
        if (!strcmp(rows[i].name, name) && rows[i].dt == dt && rows[i].s == s && rows[i].n == n && rows[i].k == k &&
            rows[i].ok)
            return &rows[i];
    return NULL;
}

static const char *peer_of(const row *r)
{
    if (!r->v)
        return NULL;
    if (r->v->math == SL_MM_TF32)
        return "cublas_tf32";
    return "cublas";
}

int main(int argc, char **argv)
{
    int64_t sizes[16], cpu_sizes[16];
    int nsizes = parse_list("1024,2048,4096,8192", sizes, 16), ncpu = parse_list("512,1024", cpu_sizes, 16);
    const char *dtypes = "f32,bf16", *variants = NULL, *json = NULL, *md = NULL, *shapes = NULL;
    int trials = 20;
    double budget = 0.4;
    bool explore = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--explore")) {
            explore = true;
            continue;
        }
        if (!val) {
            fprintf(stderr, "matmul_bench: %s needs a value\n", a);
            return 2;
        }
        i++;
        if (!strcmp(a, "--sizes"))
            nsizes = parse_list(val, sizes, 16);
        else if (!strcmp(a, "--shapes"))
            shapes = val;
        else if (!strcmp(a, "--graph"))
            graph_calls = atoi(val);
        else if (!strcmp(a, "--cpu-sizes"))
            ncpu = parse_list(val, cpu_sizes, 16);
        else if (!strcmp(a, "--dtypes"))
            dtypes = val;
        else if (!strcmp(a, "--variants"))
            variants = val;
        else if (!strcmp(a, "--trials"))
            trials = atoi(val);
        else if (!strcmp(a, "--budget-s"))
            budget = atof(val);
        else if (!strcmp(a, "--json"))
            json = val;
        else if (!strcmp(a, "--md"))
            md = val;
        else {
            fprintf(stderr, "matmul_bench: unknown option %s\n", a);
            return 2;
        }
    }
    /* the problems: M = N = K for each of --sizes, then each MxNxK of --shapes */
    int64_t prob_m[48], prob_n[48], prob_k[48];
    int nprob = 0;
    for (int i = 0; i < nsizes && nprob < 48; i++, nprob++)
        prob_m[nprob] = prob_n[nprob] = prob_k[nprob] = sizes[i];
    for (const char *q = shapes; q && *q && nprob < 48; nprob++) {
        char *e;
        prob_m[nprob] = strtoll(q, &e, 10);
        if (*e != 'x')
            break;
        prob_n[nprob] = strtoll(e + 1, &e, 10);
        if (*e != 'x')
            break;
        prob_k[nprob] = strtoll(e + 1, &e, 10);
        if (*e && *e != ',')
            break;
        q = *e ? e + 1 : e;
        if (!*q)
            shapes = NULL; /* parsed to the end */
    }
    if (nsizes < 0 || ncpu < 0 || trials < 1 || graph_calls < 0 || (shapes && *shapes && nprob < 48)) {
        fprintf(stderr, "matmul_bench: bad --sizes, --shapes (MxNxK,...), --cpu-sizes, --graph or --trials\n");
        return 2;
    }
    for (int i = 0; i < nprob; i++)
        if (prob_m[i] < 1 || prob_n[i] < 1 || prob_k[i] < 1) {
            fprintf(stderr, "matmul_bench: every extent must be >= 1\n");
            return 2;
        }
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        fprintf(stderr, "matmul_bench: no CUDA device\n");
        return 77;
    }
    struct cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    printf("device: %s, %d SMs, L2 %d MiB\n", prop.name, prop.multiProcessorCount, prop.l2CacheSize >> 20);

    static const sl_dtype all[] = {SL_F32, SL_BF16, SL_F16};
    for (int d = 0; d < 3; d++) {
        const sl_dtype dt = all[d];
        if (!wanted(dtypes, sl_dtype_name(dt)))
            continue;
        for (int si = 0; si < nprob; si++) {
            const int64_t s = prob_m[si], sn = prob_n[si], sk = prob_k[si];
            const size_t es = sl_dtype_size(dt), cnt_a = (size_t)(s * sk), cnt_b = (size_t)(sk * sn),
                         cnt = (size_t)(s * sn);
            prob P;
            memset(&P, 0, sizeof P);
            sl_mm base = {.m = s, .n = sn, .k = sk, .lda = sk, .ldb = sn, .ldc = sn, .alpha = 1.0, .beta = 0.0,
                          .dtype = dt};
            P.dev = P.host = base;
            P.cbytes = cnt * es;
            P.ha = malloc(cnt_a * es);
            P.hb = malloc(cnt_b * es);
            P.got = malloc(cnt * es);
            fill(dt, P.ha, cnt_a, 1000 + (uint64_t)s + 7 * (uint64_t)sk);
            fill(dt, P.hb, cnt_b, 2000 + (uint64_t)sn + 7 * (uint64_t)sk);
            void *da, *db, *dc;
            CK(cudaMalloc(&da, cnt_a * es));
            CK(cudaMalloc(&db, cnt_b * es));
            CK(cudaMalloc(&dc, cnt * es));
            CK(cudaMemcpy(da, P.ha, cnt_a * es, cudaMemcpyHostToDevice));
            CK(cudaMemcpy(db, P.hb, cnt_b * es, cudaMemcpyHostToDevice));
            P.dev.a = da;
            P.dev.b = db;
            P.dev.c = dc;
            /* --graph: enough copies of A, B and C that the rotation's working set is 2 x the L2 (at most 32) */
            P.nsets = 1;
            P.sa[0] = da;
            P.sb[0] = db;
            P.sc[0] = dc;
            if (graph_calls) {
                const double set_bytes = (double)((cnt_a + cnt_b + cnt) * es);
                int want = (int)ceil(2.0 * (double)prop.l2CacheSize / set_bytes);
                want = want < 1 ? 1 : want > 32 ? 32 : want;
                for (; P.nsets < want; P.nsets++) {
                    CK(cudaMalloc(&P.sa[P.nsets], cnt_a * es));
                    CK(cudaMalloc(&P.sb[P.nsets], cnt_b * es));
                    CK(cudaMalloc(&P.sc[P.nsets], cnt * es));
                    CK(cudaMemcpy(P.sa[P.nsets], da, cnt_a * es, cudaMemcpyDeviceToDevice));
                    CK(cudaMemcpy(P.sb[P.nsets], db, cnt_b * es, cudaMemcpyDeviceToDevice));
                }
            }
            P.host.a = P.ha;
            P.host.b = P.hb;
            P.host.c = NULL;
            const double t0 = now_s();
            if (sl_mm_expect_make(&P.host, (double)s * (double)sn * (double)sk <= 1024.0 * 1024 * 1024, 2048, &P.e) !=
                SL_OK) {
                fprintf(stderr, "reference: %s\n", sl_last_error());
                return 1;
            }
            printf("== %s %lldx%lldx%lld (reference %.2f s, %d operand set%s)\n", sl_dtype_name(dt), (long long)s,
                   (long long)sn, (long long)sk, now_s() - t0, P.nsets, P.nsets > 1 ? "s" : "");
            for (int vi = 0; vi < sl_mm_nvariants; vi++) {
                const sl_mm_variant *v = &sl_mm_variants[vi];
                if (v->backend != SL_BACKEND_CUDA || !v->launch || !(v->dtypes & (1u << dt)) ||
                    !wanted(variants, v->name))
                    continue;
                run_variant(&P, v, v->launch, v->name, trials, budget);
            }
            if (explore && dt == SL_F32) {
                const sl_mm_variant *wt = sl_mm_variant_find("warptile");
                for (int cfg = 1; cfg < 4; cfg++) {
                    char nm[32];
                    snprintf(nm, sizeof nm, "warptile_cfg%d", cfg);
                    run_variant(&P, wt, cfg == 1 ? wt_cfg1 : cfg == 2 ? wt_cfg2 : wt_cfg3, nm, trials, budget);
                }
            }
            if (explore && dt != SL_F32) {
                const sl_mm_variant *best = sl_mm_variant_find("best");
                for (int cfg = 1; cfg < 4; cfg++) {
                    char nm[32];
                    snprintf(nm, sizeof nm, "best_cfg%d", cfg);
                    /* the configuration through a wrapper: sl_mm_fn takes only the problem */
                    sl_mm_fn fn = cfg == 1 ? best_cfg1 : cfg == 2 ? best_cfg2 : best_cfg3;
                    run_variant(&P, best, fn, nm, trials, budget);
                }
            }
            sl_mm_expect_free(&P.e);
            for (int i = 0; i < P.nsets; i++) { /* set 0 is da, db, dc */
                CK(cudaFree(P.sa[i]));
                CK(cudaFree(P.sb[i]));
                CK(cudaFree(P.sc[i]));
            }
            free(P.ha);
            free(P.hb);
            free(P.got);
        }
        /* seed 002's CPU comparison */
        if (dt == SL_F32)
            for (int ci = 0; ci < ncpu; ci++)
                for (int vi = 0; vi < sl_mm_nvariants; vi++) {
                    const sl_mm_variant *v = &sl_mm_variants[vi];
                    if (v->backend == SL_BACKEND_CPU && wanted(variants ? variants : "serial,omp", v->name))
                        run_cpu(v, dt, cpu_sizes[ci], !strcmp(v->name, "serial") ? 1 : 3);
                }
    }
    /* ratios to the peer of the same dtype and math, same run */
    for (int i = 0; i < nrows; i++) {
        row *r = &rows[i];
        const char *pn = peer_of(r);
        const row *p = r->ok && pn && r->v->backend == SL_BACKEND_CUDA ? find_row(pn, r->dt, r->s, r->n, r->k) : NULL;
        r->x_peer = p ? p->ms / r->ms : 0.0;
    }

    FILE *fj = json ? fopen(json, "w") : NULL, *fm = md ? fopen(md, "w") : NULL;
    if ((json && !fj) || (md && !fm)) {
        fprintf(stderr, "matmul_bench: cannot write %s\n", json && !fj ? json : md);
        return 2;
    }
    if (fj) {
        fprintf(fj, "{\n  \"schema\": \"streamlab.matmul-bench/1\",\n  \"device\": \"%s\",\n  \"sms\": %d,\n", prop.name,
                prop.multiProcessorCount);
        fprintf(fj, "  \"timing\": \"%s\",\n  \"graph_calls\": %d,\n",
                graph_calls ? "CUDA graph of graph_calls launches rotating over operand sets, median replay / calls"
                            : "one launch between CUDA events, median",
                graph_calls);
        fprintf(fj, "  \"hw_model\": {\"fp32_tflops\": %.1f, \"tf32_tflops\": %.1f, \"tensor16_tflops\": %.1f, "
                    "\"dram_gbs\": %.0f, \"l2_gbs\": %.0f, \"smem_gbs\": %.0f, \"source\": \"%s\"},\n",
                sl_mm_hw_h200.fp32_tflops, sl_mm_hw_h200.tf32_tflops, sl_mm_hw_h200.tensor16_tflops,
                sl_mm_hw_h200.dram_gbs, sl_mm_hw_h200.l2_gbs, sl_mm_hw_h200.smem_gbs, sl_mm_hw_h200.source);
        fprintf(fj, "  \"rows\": [\n");
        for (int i = 0; i < nrows; i++) {
            const row *r = &rows[i];
            fprintf(fj,
                    "    {\"name\": \"%s\", \"backend\": \"%s\", \"dtype\": \"%s\", \"m\": %lld, \"n\": %lld, \"k\": "
                    "%lld, \"verified\": %s, \"error\": \"%s\", \"ms\": %.6f, \"trials\": %d, \"tflops\": %.4f, "
                    "\"pct_peak\": %.2f, \"x_cublas\": %.4f, \"worst_of_bound\": %.4f, \"fits_l2\": %s, "
                    "\"model\": {\"peak_tflops\": %.1f, \"ai_dram\": %.2f, \"ai_l2\": %.2f, \"ai_smem\": %.2f, "
                    "\"bound_tflops\": %.2f, \"limiter\": \"%s\"}}%s\n",
                    r->name, r->v && r->v->backend == SL_BACKEND_CPU ? "cpu" : "cuda", sl_dtype_name(r->dt),
                    (long long)r->s, (long long)r->n, (long long)r->k, r->ok ? "true" : "false", r->err, r->ms,
                    r->trials, r->tflops, r->pct_peak, r->x_peer, r->worst, r->fits_l2 ? "true" : "false",
                    r->roof.peak_tflops, r->roof.ai_dram, r->roof.ai_l2, r->roof.ai_smem, r->roof.bound_tflops,
                    r->roof.limiter ? r->roof.limiter : "", i + 1 < nrows ? "," : "");
        }
        fprintf(fj, "  ]\n}\n");
        fclose(fj);
    }
    if (fm) {
        fprintf(fm, "| variant | dtype | MxNxK | ms | TFLOP/s | %% of peak | x cuBLAS | roofline bound TFLOP/s | "
                    "limiter (model) | worst err / bound | verified |\n|---|---|--:|--:|--:|--:|--:|--:|---|--:|---|\n");
        for (int i = 0; i < nrows; i++) {
            const row *r = &rows[i];
            const bool cpu = r->v && r->v->backend == SL_BACKEND_CPU;
            char pct[16] = "", xp[16] = "", bound[16] = "";
            if (!cpu) {
                snprintf(pct, sizeof pct, "%.1f", r->pct_peak);
                snprintf(bound, sizeof bound, "%.1f", r->roof.bound_tflops);
            }
            if (r->x_peer > 0)
                snprintf(xp, sizeof xp, "%.3f", r->x_peer);
            fprintf(fm, "| %s | %s | %lldx%lldx%lld | %.4f | %.3f | %s | %s | %s | %s | %.3f | %s |\n", r->name,
                    sl_dtype_name(r->dt), (long long)r->s, (long long)r->n, (long long)r->k, r->ms, r->tflops, pct, xp, bound,
                    cpu ? "CPU" : r->roof.limiter, r->worst, r->ok ? "yes" : r->err);
        }
        fclose(fm);
    }
    int bad = 0;
    for (int i = 0; i < nrows; i++)
        bad += !rows[i].ok;
    printf("%d rows, %d failed\n", nrows, bad);
    return bad ? 1 : 0;
}
