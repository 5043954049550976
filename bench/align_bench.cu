/*
 * align_bench - issue 17's side-by-side measurements, one process, one
 * device, every ratio taken in the same run on the same pointers:
 *
 *   align   sl_add and sl_axpy (the public functions) against CUB's
 *           DeviceTransform with the same element function (ew_cub.cuh),
 *           at every offset triple (add: a, b, c) or pair (axpy: x, y)
 *           modulo 16 bytes, every dtype, n = 2^26 and 2^28. Each trial
 *           times one sl launch and one CUB launch back to back (CUDA
 *           events), order alternating; the ratio is median(CUB) /
 *           median(sl) (> 1: sl faster). After timing, add's output from
 *           sl is compared byte for byte with CUB's on the device.
 *   smalln  back-to-back per-call cost at n = 2^10 .. 2^16 (f32 add):
 *           20000 calls then one synchronisation, wall clock per call, for
 *           sl_add in each pointer-check mode, the api launcher alone
 *           (no argument checks) and CUB; and the host-only cost per call
 *           (256 calls on an idle stream, no wait), and one
 *           cudaPointerGetAttributes.
 *   l2      f32 add at 2^18 .. 2^24, warm (no flush) and cold (a 2 x L2
 *           memset before every trial): sl_add, CUB, and the rungs the
 *           dispatch table chooses among (tile4, bulk, vec4).
 *
 *   rwmix   DRAM bandwidth of simple float4 kernels reading R and writing W
 *           streams (n = 2^28 floats each): the read/write mix.
 *
 *   axpyrungs  sl_axpy f32 / f64 at 2^26, 2^28 aligned beside CUB in place
 *           and out of place and its rungs bulk, v5_vec, tile4.
 *   alignx  each side's time (sl, CUB, bulk, bulk128, the funnel rungs) at
 *           chosen offset triples, every rung's output checked against CUB's.
 *   hostpath  the host cost of each piece of sl_add's path, the GPU kept busy.
 *   persist  a float4 add over a static persistent grid, a dynamic one and
 *           a grid of blocks, with each SM's last block end (the model's
 *           static-partition factor).
 *   ncu1    (named only) one launch each of sl, CUB, bulk128 at a few
 *           triples, for Nsight Compute.
 *   l2 also times "queued": behind a spin kernel, GPU time only.
 *
 * Usage: align_bench OUT.json [align|alignx|smalln|l2|rwmix|axpyrungs|hostpath|persist|ncu1 ...]
 *        (default: all but ncu1)
 * Env: ALIGN_TRIALS (default 5; three times that for f32 and f64, which have few
 *      combinations), ALIGN_LOG2 (default "26,28"), ALIGN_DTYPES (a comma list;
 *      default: every dtype of each op).
 * Writes a JSON document; bench/align_report.py turns it into markdown.
 */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <algorithm>
#include <string>
#include <vector>

#include "add.cuh"
#include "axpy.cuh"
#include "bulk.cuh"
#include "ew_cub.cuh"
#include "internal.h"
#include "streamlab.h"

SL_EW_CUB_LAUNCHER(bench_axpy_cub, sl_k_axpy)

/* The bulk rung with the body (and so every tile of the output) starting on
 * a 128-byte line of the output (sl_ew_split's out_align), for the alignx
 * comparison against the 16-byte one (sl_cuda_add_bulk, sl_cuda_axpy_bulk). */
template <int DT, class OP> using bench_bulk128 = rung_bulk_tile<256, 1, false, DT, OP, 128>;
static sl_status add_bulk128(const sl_args *x)
{
    return sl_ew_run<bench_bulk128, sl_k_add>(x);
}
static sl_status axpy_bulk128(const sl_args *x)
{
    return sl_ew_run<bench_bulk128, sl_k_axpy>(x);
}

#define CK(x)                                                                                       \
    do {                                                                                            \
        cudaError_t e_ = (x);                                                                       \
        if (e_ != cudaSuccess) {                                                                    \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));     \
            exit(1);                                                                                \
        }                                                                                           \
    } while (0)
#define SK(x)                                                                                       \
    do {                                                                                            \
        sl_status s_ = (x);                                                                         \
        if (s_ != SL_OK) {                                                                          \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, sl_last_error());            \
            exit(1);                                                                                \
        }                                                                                           \
    } while (0)

static sl_ctx *ctx;
static cudaStream_t stream;
static cudaEvent_t ev[4];
static FILE *js;

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

/* name is one of the comma list's items */
static bool in_list(const char *list, const char *name)
{
    const size_t n = strlen(name);
    for (const char *p = list; *p;) {
        const char *e = strchr(p, ',');
        const size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == n && strncmp(p, name, n) == 0)
            return true;
        p = e ? e + 1 : p + len;
    }
    return false;
}

static double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    size_t m = v.size() / 2;
    return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

static sl_args make_args(const sl_op_desc *op, sl_dtype dt, size_t n, void *const *p)
{
    sl_args a;
    memset(&a, 0, sizeof a);
    a.op = op;
    a.shape = sl_shape_1d(n);
    a.n = n;
    a.dtype = dt;
    a.out_dtype = dt;
    a.stream = stream;
    for (int k = 0; k < op->nbufs; k++)
        a.buf[k] = p[k];
    /* sl_axpy's alpha is a float (api.h): the peers get the same value */
    for (int k = 0; k < op->nscalars; k++)
        a.scalar[k] = (double)(float)op->scalars[k].dflt;
    return a;
}

/* ms of one launch of f, event-timed */
template <class F> static double time1(F f)
{
    CK(cudaEventRecord(ev[0], stream));
    f();
    CK(cudaEventRecord(ev[1], stream));
    CK(cudaEventSynchronize(ev[1]));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, ev[0], ev[1]));
    return ms;
}

/* One thread spinning for `cycles` SM clocks: launched before the first
 * event, it keeps the stream busy while the host enqueues the event, the
 * launch under test and the second event, so the window between the events
 * holds GPU time only (nvbench's "blocking kernel" method; NVIDIA nvbench,
 * docs/benchmarks.md). */
static __global__ void spin_kernel(long long cycles)
{
    const long long t0 = clock64();
    while (clock64() - t0 < cycles) {
    }
}

/* ms of one launch of f, queued behind spin_kernel (~50 us): GPU time only */
template <class F> static double time1q(F f)
{
    spin_kernel<<<1, 1, 0, stream>>>(100000);
    CK(cudaGetLastError());
    return time1(f);
}

static __global__ void count_diff(const unsigned char *x, const unsigned char *y, size_t bytes,
                                  unsigned long long *bad)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    unsigned long long c = 0;
    for (; i < bytes; i += (size_t)gridDim.x * blockDim.x)
        c += x[i] != y[i];
    if (c)
        atomicAdd(bad, c);
}

/* ---- align ------------------------------------------------------------------ */

static void bench_align(void)
{
    const int trials_narrow = getenv("ALIGN_TRIALS") ? atoi(getenv("ALIGN_TRIALS")) : 5;
    const char *l2s = getenv("ALIGN_LOG2") ? getenv("ALIGN_LOG2") : "26,28";
    std::vector<int> logs;
    for (const char *p = l2s; *p;) {
        logs.push_back(atoi(p));
        while (*p && *p != ',')
            p++;
        if (*p)
            p++;
    }
    size_t maxn = (size_t)1 << *std::max_element(logs.begin(), logs.end());
    void *mem[4];
    for (int k = 0; k < 4; k++)
        CK(cudaMalloc(&mem[k], (maxn + 64) * 8));
    unsigned long long *bad;
    CK(cudaMalloc(&bad, sizeof *bad));
    const sl_op_desc *ops[2] = {sl_op_find("add"), sl_op_find("axpy")};
    fprintf(js, "\"align\": [\n");
    int firstrow = 1;
    for (int o = 1; o >= 0; o--) { /* axpy first: it is small */
        const sl_op_desc *op = ops[o];
        const int nb = op->nbufs; /* add: a, b, c; axpy: x, y */
        for (int d = 0; d < SL_DTYPE_COUNT; d++) {
            const sl_dtype dt = (sl_dtype)d;
            if (!sl_op_supports(op, dt))
                continue;
            if (getenv("ALIGN_DTYPES") && !in_list(getenv("ALIGN_DTYPES"), sl_dtype_name(dt)))
                continue;
            const size_t es = sl_dtype_size(dt);
            const int per = (int)(16 / es);
            /* few combinations in the 4- and 8-byte dtypes: more trials each */
            const int trials = es >= 4 ? 3 * trials_narrow : trials_narrow;
            int combos = 1;
            for (int k = 0; k < nb; k++)
                combos *= per;
            for (int l : logs) {
                const size_t n = (size_t)1 << l;
                for (int k = 0; k < nb; k++)
                    SK(ctx->ops->fill_random(ctx, dt, mem[k], n + 64, 0xa11900u + k));
                CK(cudaDeviceSynchronize());
                double minr = 1e9, sumr = 0;
                int minc = 0;
                unsigned long long mism = 0;
                std::vector<double> ratios;
                double t0 = now_s();
                for (int c = 0; c < combos; c++) {
                    int off[3] = {0, 0, 0}, r = c;
                    for (int k = 0; k < nb; k++) {
                        off[k] = r % per;
                        r /= per;
                    }
                    void *p[3];
                    for (int k = 0; k < nb; k++)
                        p[k] = (char *)mem[k] + off[k] * es;
                    sl_args a = make_args(op, dt, n, p);
                    auto sl = [&] {
                        if (o == 0)
                            SK(sl_add(ctx, dt, n, p[0], p[1], p[2], stream));
                        else
                            SK(sl_axpy(ctx, dt, n, 1.3, p[0], p[1], stream));
                    };
                    auto cub = [&] {
                        if (o == 0)
                            SK(sl_cuda_add_cub(&a));
                        else
                            SK(bench_axpy_cub(&a));
                    };
                    sl();
                    cub();
                    std::vector<double> ts, tc;
                    for (int t = 0; t < trials; t++) {
                        if (t & 1) {
                            tc.push_back(time1(cub));
                            ts.push_back(time1(sl));
                        } else {
                            ts.push_back(time1(sl));
                            tc.push_back(time1(cub));
                        }
                    }
                    double ratio = median(tc) / median(ts);
                    ratios.push_back(ratio);
                    sumr += ratio;
                    if (ratio < minr) {
                        minr = ratio;
                        minc = c;
                    }
                    if (o == 0) { /* sl's c against CUB's, on the device */
                        void *q[3] = {p[0], p[1], (char *)mem[3] + off[2] * es};
                        sl_args b = make_args(op, dt, n, q);
                        SK(sl_add(ctx, dt, n, p[0], p[1], p[2], stream));
                        SK(sl_cuda_add_cub(&b));
                        CK(cudaMemsetAsync(bad, 0, sizeof *bad, stream));
                        count_diff<<<1024, 256, 0, stream>>>((const unsigned char *)p[2],
                                                             (const unsigned char *)q[2], n * es, bad);
                        unsigned long long hb = 0;
                        CK(cudaMemcpyAsync(&hb, bad, sizeof hb, cudaMemcpyDeviceToHost, stream));
                        CK(cudaStreamSynchronize(stream));
                        mism += hb;
                    }
                }
                int wo[3] = {0, 0, 0}, r = minc;
                for (int k = 0; k < nb; k++) {
                    wo[k] = r % per;
                    r /= per;
                }
                std::string each;
                if (combos <= 64) /* every combination's ratio, in combination order */
                    for (int c = 0; c < combos; c++) {
                        char b[16];
                        snprintf(b, sizeof b, "%s%.4f", c ? ", " : "", ratios[c]);
                        each += b;
                    }
                std::sort(ratios.begin(), ratios.end());
                int below = 0;
                for (double x : ratios)
                    below += x < 0.99;
                fprintf(js,
                        "%s{\"op\": \"%s\", \"dtype\": \"%s\", \"log2n\": %d, \"combos\": %d, \"trials\": %d, "
                        "\"min_ratio\": %.4f, \"min_at_elem_offsets\": [%d, %d, %d], \"p10_ratio\": %.4f, "
                        "\"median_ratio\": %.4f, \"mean_ratio\": %.4f, \"max_ratio\": %.4f, \"below_0.99\": %d, "
                        "\"mismatched_bytes_vs_cub\": %llu, \"seconds\": %.1f, \"ratios\": [%s]}\n",
                        firstrow ? "" : ",", op->name, sl_dtype_name(dt), l, combos, trials, minr, wo[0], wo[1],
                        wo[2], ratios[ratios.size() / 10], median(ratios), sumr / combos, ratios.back(), below,
                        mism, now_s() - t0, each.c_str());
                firstrow = 0;
                fflush(js);
                printf("align %-4s %-9s 2^%d: %5d combos, x CUB min %.4f at (%d,%d,%d) median %.4f, %d below 0.99, "
                       "%llu bytes differ from CUB\n",
                       op->name, sl_dtype_name(dt), l, combos, minr, wo[0], wo[1], wo[2], median(ratios), below, mism);
                fflush(stdout);
            }
        }
    }
    fprintf(js, "],\n");
    for (int k = 0; k < 4; k++)
        CK(cudaFree(mem[k]));
    CK(cudaFree(bad));
}

/* ---- smalln ------------------------------------------------------------------ */

static void bench_smalln(void)
{
    const sl_op_desc *op = sl_op_find("add");
    const int calls = 20000, host_calls = 256;
    float *a, *b, *c;
    const size_t maxn = 1 << 16;
    CK(cudaMalloc(&a, maxn * 4));
    CK(cudaMalloc(&b, maxn * 4));
    CK(cudaMalloc(&c, maxn * 4));
    SK(ctx->ops->fill_random(ctx, SL_F32, a, maxn, 1));
    SK(ctx->ops->fill_random(ctx, SL_F32, b, maxn, 2));
    CK(cudaDeviceSynchronize());
    /* one pointer query, host-only */
    double t0 = now_s();
    for (int i = 0; i < 100000; i++) {
        cudaPointerAttributes pa;
        CK(cudaPointerGetAttributes(&pa, a));
    }
    double ptr_ns = (now_s() - t0) / 100000 * 1e9;
    fprintf(js, "\"pointer_query_ns\": %.1f,\n\"smalln\": [\n", ptr_ns);
    printf("cudaPointerGetAttributes: %.1f ns per call\n", ptr_ns);
    const char *names[] = {"sl_add", "sl_add_every_call", "sl_add_nocheck", "api_launcher", "cub"};
    const sl_pointer_checks modes[] = {SL_POINTER_CHECKS_FIRST_USE, SL_POINTER_CHECKS_EVERY_CALL,
                                       SL_POINTER_CHECKS_OFF, SL_POINTER_CHECKS_FIRST_USE,
                                       SL_POINTER_CHECKS_FIRST_USE};
    int first = 1;
    for (int l = 10; l <= 16; l += 2) {
        const size_t n = (size_t)1 << l;
        void *p[3] = {a, b, c};
        sl_args args = make_args(op, SL_F32, n, p);
        for (int w = 0; w < 5; w++) {
            auto call = [&] {
                switch (w) {
                case 0:
                case 1:
                case 2: SK(sl_add(ctx, SL_F32, n, a, b, c, stream)); break;
                case 3: SK(sl_cuda_add_api(&args)); break;
                default: SK(sl_cuda_add_cub(&args)); break;
                }
            };
            SK(sl_ctx_set_pointer_checks(ctx, modes[w]));
            for (int i = 0; i < 200; i++)
                call();
            CK(cudaStreamSynchronize(stream));
            /* back to back */
            std::vector<double> reps;
            for (int r = 0; r < 5; r++) {
                double s = now_s();
                for (int i = 0; i < calls; i++)
                    call();
                CK(cudaStreamSynchronize(stream));
                reps.push_back((now_s() - s) / calls * 1e6);
            }
            /* host only: the queue is empty, nothing blocks */
            std::vector<double> hosts;
            for (int r = 0; r < 20; r++) {
                CK(cudaStreamSynchronize(stream));
                double s = now_s();
                for (int i = 0; i < host_calls; i++)
                    call();
                hosts.push_back((now_s() - s) / host_calls * 1e6);
            }
            CK(cudaStreamSynchronize(stream));
            fprintf(js, "%s{\"n_log2\": %d, \"who\": \"%s\", \"us_per_call_back_to_back\": %.4f, "
                        "\"us_host_per_call\": %.4f}\n",
                    first ? "" : ",", l, names[w], median(reps), median(hosts));
            first = 0;
            printf("smalln 2^%d %-15s back-to-back %.3f us/call, host %.3f us/call\n", l, names[w], median(reps),
                   median(hosts));
        }
    }
    SK(sl_ctx_set_pointer_checks(ctx, SL_POINTER_CHECKS_FIRST_USE));
    fprintf(js, "],\n");
    CK(cudaFree(a));
    CK(cudaFree(b));
    CK(cudaFree(c));
}

/* ---- l2 ------------------------------------------------------------------------ */

static void bench_l2(void)
{
    const sl_op_desc *op = sl_op_find("add");
    const size_t maxn = (size_t)1 << 24;
    const int trials = 60;
    float *a, *b, *c;
    void *flush;
    size_t flush_bytes = 2 * ctx->info.l2_bytes;
    CK(cudaMalloc(&a, maxn * 4));
    CK(cudaMalloc(&b, maxn * 4));
    CK(cudaMalloc(&c, maxn * 4));
    CK(cudaMalloc(&flush, flush_bytes));
    SK(ctx->ops->fill_random(ctx, SL_F32, a, maxn, 3));
    SK(ctx->ops->fill_random(ctx, SL_F32, b, maxn, 4));
    CK(cudaDeviceSynchronize());
    const char *names[] = {"sl_add", "cub", "tile4", "bulk", "vec4"};
    fprintf(js, "\"l2\": [\n");
    int first = 1;
    /* mode 0 warm, 1 cold (2 x L2 memset before each trial), 2 warm and
     * queued behind spin_kernel: the events then time the GPU alone, not the
     * host's work between the first event and the launch */
    for (int cold = 0; cold < 3; cold++)
        for (int l = 18; l <= 24; l++) {
            const size_t n = (size_t)1 << l;
            void *p[3] = {a, b, c};
            sl_args args = make_args(op, SL_F32, n, p);
            std::vector<double> t[5];
            for (int tr = -3; tr < trials; tr++)
                for (int w0 = 0; w0 < 5; w0++) {
                    int w = (w0 + tr + 5) % 5; /* rotate the order */
                    if (cold == 1)
                        CK(cudaMemsetAsync(flush, tr & 0xff, flush_bytes, stream));
                    auto f = [&] {
                        switch (w) {
                        case 0: SK(sl_add(ctx, SL_F32, n, a, b, c, stream)); break;
                        case 1: SK(sl_cuda_add_cub(&args)); break;
                        case 2: SK(sl_cuda_add_tile4(&args)); break;
                        case 3: SK(sl_cuda_add_bulk(&args)); break;
                        default: SK(sl_cuda_add_vec4(&args)); break;
                        }
                    };
                    double ms = cold == 2 ? time1q(f) : time1(f);
                    if (tr >= 0)
                        t[w].push_back(ms);
                }
            double cub = median(t[1]);
            for (int w = 0; w < 5; w++) {
                double m = median(t[w]);
                double gbs = 12.0 * n / (m * 1e-3) / 1e9;
                fprintf(js, "%s{\"cold\": %d, \"n_log2\": %d, \"who\": \"%s\", \"median_ms\": %.5f, \"gbs\": %.1f, "
                            "\"x_cub\": %.4f}\n",
                        first ? "" : ",", cold, l, names[w], m, gbs, cub / m);
                first = 0;
                printf("l2 %s 2^%d %-7s %.5f ms %7.1f GB/s x CUB %.4f\n", cold == 2 ? "queued" : cold ? "cold" : "warm", l, names[w], m, gbs,
                       cub / m);
            }
        }
    fprintf(js, "],\n");
    CK(cudaFree(a));
    CK(cudaFree(b));
    CK(cudaFree(c));
    CK(cudaFree(flush));
}

/* ---- axpyrungs: where sl_axpy's f32 / f64 time goes at DRAM sizes ----------
 * Aligned x and y, n = 2^26 and 2^28: sl_axpy, CUB in place (y = f(x, y),
 * as sl_axpy), CUB out of place (z = f(x, y)), and the rungs bulk, v5_vec,
 * tile4 launched directly; 30 trials, the order rotating. */
template <int DT> static sl_status cub_axpy_out(const void *x, const void *y, void *z, size_t n)
{
    typedef typename sl_dt<DT>::raw raw;
    sl_k_axpy k;
    k.alpha = sl_scalar::of(1.3);
    const sl_cub_fn<DT, sl_k_axpy> fn{k};
    SL_CUDA_TRY(cub::DeviceTransform::Transform(::cuda::std::make_tuple((const raw *)x, (const raw *)y), (raw *)z,
                                                (int64_t)n, fn, stream));
    return SL_OK;
}

static void bench_axpyrungs(void)
{
    const sl_op_desc *op = sl_op_find("axpy");
    const size_t maxn = (size_t)1 << 28;
    void *x, *y, *z;
    CK(cudaMalloc(&x, maxn * 8));
    CK(cudaMalloc(&y, maxn * 8));
    CK(cudaMalloc(&z, maxn * 8));
    const char *names[] = {"sl_axpy", "cub_inplace", "cub_outofplace", "bulk", "v5_vec", "tile4"};
    fprintf(js, "\"axpyrungs\": [\n");
    int first = 1;
    for (int d = 0; d < 2; d++) {
        const sl_dtype dt = d ? SL_F64 : SL_F32;
        for (int l = 26; l <= 28; l += 2) {
            const size_t n = (size_t)1 << l;
            SK(ctx->ops->fill_random(ctx, dt, x, n, 5));
            SK(ctx->ops->fill_random(ctx, dt, y, n, 6));
            void *p[2] = {x, y};
            sl_args a = make_args(op, dt, n, p);
            std::vector<double> t[6];
            for (int tr = -2; tr < 30; tr++)
                for (int w0 = 0; w0 < 6; w0++) {
                    const int w = (w0 + tr + 6) % 6;
                    double ms = time1([&] {
                        switch (w) {
                        case 0: SK(sl_axpy(ctx, dt, n, 1.3, x, y, stream)); break;
                        case 1: SK(bench_axpy_cub(&a)); break;
                        case 2: SK(d ? cub_axpy_out<SL_F64>(x, y, z, n) : cub_axpy_out<SL_F32>(x, y, z, n)); break;
                        case 3: SK(sl_cuda_axpy_bulk(&a)); break;
                        case 4: SK(sl_cuda_axpy_v5_vec(&a)); break;
                        default: SK(sl_cuda_axpy_tile4(&a)); break;
                        }
                    });
                    if (tr >= 0)
                        t[w].push_back(ms);
                }
            const double cub = median(t[1]);
            for (int w = 0; w < 6; w++) {
                const double m = median(t[w]);
                fprintf(js, "%s{\"dtype\": \"%s\", \"n_log2\": %d, \"who\": \"%s\", \"median_ms\": %.5f, "
                            "\"gbs\": %.1f, \"x_cub_inplace\": %.4f}\n",
                        first ? "" : ",", sl_dtype_name(dt), l, names[w], m, 3.0 * n * sl_dtype_size(dt) / (m * 1e6),
                        cub / m);
                first = 0;
                printf("axpyrungs %s 2^%d %-15s %.5f ms x CUB(in place) %.4f\n", sl_dtype_name(dt), l, names[w], m,
                       cub / m);
            }
        }
    }
    fprintf(js, "],\n");
    CK(cudaFree(x));
    CK(cudaFree(y));
    CK(cudaFree(z));
}

/* ---- rwmix: DRAM bandwidth against the read/write mix ------------------------
 * R input streams read and W output streams written per 16-byte vector
 * index, one float4 per stream per thread, n = 2^28 floats per stream:
 * the measurement behind the model's read/write mix term (docs/model.md). */
template <int R, int W>
static __global__ void rw_kernel(const float4 *__restrict__ in, float4 *__restrict__ out, size_t nvec, size_t stride)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= nvec)
        return;
    float4 acc = make_float4(1.f, 2.f, 3.f, 4.f);
#pragma unroll
    for (int r = 0; r < R; r++) {
        float4 v = in[r * stride + i];
        acc.x += v.x;
        acc.y += v.y;
        acc.z += v.z;
        acc.w += v.w;
    }
    if constexpr (W == 0) {
        if (acc.x == -1.2345f) /* never, but the compiler cannot know: keeps the loads */
            out[i] = acc;
    } else {
#pragma unroll
        for (int w = 0; w < W; w++)
            out[w * stride + i] = acc;
    }
}

template <int R, int W> static void rw_one(const float4 *in, float4 *out, size_t nvec, size_t stride)
{
    rw_kernel<R, W><<<(unsigned)((nvec + 255) / 256), 256, 0, stream>>>(in, out, nvec, stride);
}

static void bench_rwmix(void)
{
    const size_t n = (size_t)1 << 28, nvec = n / 4, stride = nvec;
    float4 *in, *out;
    CK(cudaMalloc(&in, 3 * n * 4));
    CK(cudaMalloc(&out, 2 * n * 4));
    SK(ctx->ops->fill_random(ctx, SL_F32, in, 3 * n, 7));
    CK(cudaDeviceSynchronize());
    struct {
        int r, w;
        void (*f)(const float4 *, float4 *, size_t, size_t);
    } mixes[] = {{1, 0, rw_one<1, 0>}, {2, 0, rw_one<2, 0>}, {3, 1, rw_one<3, 1>}, {2, 1, rw_one<2, 1>},
                 {1, 1, rw_one<1, 1>}, {1, 2, rw_one<1, 2>}, {0, 1, rw_one<0, 1>}, {0, 2, rw_one<0, 2>}};
    fprintf(js, "\"rwmix\": [\n");
    for (size_t m = 0; m < sizeof mixes / sizeof mixes[0]; m++) {
        std::vector<double> t;
        for (int tr = -3; tr < 20; tr++) {
            double ms = time1([&] { mixes[m].f(in, out, nvec, stride); });
            CK(cudaGetLastError());
            if (tr >= 0)
                t.push_back(ms);
        }
        double med = median(t);
        double rd = mixes[m].r * (double)n * 4, wr = mixes[m].w * (double)n * 4;
        fprintf(js, "%s{\"read_streams\": %d, \"write_streams\": %d, \"read_fraction\": %.4f, \"median_ms\": %.5f, "
                    "\"gbs\": %.1f}\n",
                m ? "," : "", mixes[m].r, mixes[m].w, rd / (rd + wr), med, (rd + wr) / (med * 1e-3) / 1e9);
        printf("rwmix R%d W%d: %.5f ms, %.1f GB/s\n", mixes[m].r, mixes[m].w, med, (rd + wr) / (med * 1e-3) / 1e9);
    }
    fprintf(js, "],\n");
    CK(cudaFree(in));
    CK(cudaFree(out));
}

/* ---- alignx: each side's time at chosen offset triples ----------------------
 * The `align` sweep records ratios only. Here, at the triples where f32 and
 * f64 fell below 0.99 x CUB and at controls, each side is timed on its own
 * (median ms of 21 trials, the order rotating): sl_add / sl_axpy, CUB, the
 * bulk rung (tiles from the output's 16-byte boundary, what the table runs),
 * bulk128 (tiles on the output's 128-byte lines), and the two-LDG funnel
 * rungs vec (add vec4, axpy v5_vec) and tile4. After timing, every add
 * rung's c is compared byte for byte with CUB's; axpy's rungs run once more
 * on copies of y and are compared with CUB's result. */
struct offs_cfg {
    const char *op;
    sl_dtype dt;
    int off[3];
};

static void bench_alignx(void)
{
    static const offs_cfg cfgs[] = {
        {"add", SL_F32, {0, 0, 0}}, {"add", SL_F32, {1, 1, 1}}, {"add", SL_F32, {2, 2, 2}},
        {"add", SL_F32, {3, 3, 3}}, {"add", SL_F32, {0, 2, 2}}, {"add", SL_F32, {0, 0, 2}},
        {"add", SL_F32, {1, 3, 3}}, {"add", SL_F32, {0, 1, 1}}, {"add", SL_F32, {0, 0, 1}},
        {"add", SL_F32, {3, 0, 0}}, {"add", SL_F32, {1, 2, 3}}, {"add", SL_F32, {0, 3, 2}},
        {"add", SL_F64, {0, 0, 0}}, {"add", SL_F64, {1, 1, 1}}, {"add", SL_F64, {0, 1, 1}},
        {"add", SL_F64, {0, 0, 1}}, {"add", SL_F64, {1, 0, 0}},
        {"axpy", SL_F32, {0, 0}},   {"axpy", SL_F32, {0, 1}},   {"axpy", SL_F32, {1, 1}},
        {"axpy", SL_F32, {3, 3}},   {"axpy", SL_F32, {1, 0}},   {"axpy", SL_F32, {2, 2}},
        {"axpy", SL_F32, {0, 2}},   {"axpy", SL_F64, {0, 0}},   {"axpy", SL_F64, {1, 1}},
        {"axpy", SL_F64, {0, 1}},   {"axpy", SL_F64, {1, 0}},
    };
    const int trials = 21, nwho = 6;
    const char *add_names[] = {"sl", "cub", "bulk", "bulk128", "vec4", "tile4"};
    const char *axpy_names[] = {"sl", "cub", "bulk", "bulk128", "v5_vec", "tile4"};
    const size_t maxn = (size_t)1 << 28;
    void *mem[5];
    for (int k = 0; k < 5; k++)
        CK(cudaMalloc(&mem[k], (maxn + 64) * 8));
    unsigned long long *bad;
    CK(cudaMalloc(&bad, sizeof *bad));
    fprintf(js, "\"alignx\": [\n");
    int first = 1;
    for (int l = 26; l <= 28; l += 2) {
        const size_t n = (size_t)1 << l;
        for (const offs_cfg &g : cfgs) {
            const sl_op_desc *op = sl_op_find(g.op);
            const bool add = !strcmp(g.op, "add");
            const size_t es = sl_dtype_size(g.dt);
            for (int k = 0; k < 3; k++)
                SK(ctx->ops->fill_random(ctx, g.dt, mem[k], n + 64, 0xa1190u + k));
            CK(cudaDeviceSynchronize());
            void *p[3];
            for (int k = 0; k < op->nbufs; k++)
                p[k] = (char *)mem[k] + g.off[k] * es;
            sl_args a = make_args(op, g.dt, n, p);
            auto run = [&](int w, sl_args *x) {
                switch (w) {
                case 0:
                    if (add)
                        SK(sl_add(ctx, g.dt, n, x->buf[0], x->buf[1], x->buf[2], stream));
                    else
                        SK(sl_axpy(ctx, g.dt, n, 1.3, x->buf[0], x->buf[1], stream));
                    break;
                case 1: SK(add ? sl_cuda_add_cub(x) : bench_axpy_cub(x)); break;
                case 2: SK(add ? sl_cuda_add_bulk(x) : sl_cuda_axpy_bulk(x)); break;
                case 3: SK(add ? add_bulk128(x) : axpy_bulk128(x)); break;
                case 4: SK(add ? sl_cuda_add_vec4(x) : sl_cuda_axpy_v5_vec(x)); break;
                default: SK(add ? sl_cuda_add_tile4(x) : sl_cuda_axpy_tile4(x)); break;
                }
            };
            std::vector<double> t[6];
            for (int tr = -2; tr < trials; tr++)
                for (int w0 = 0; w0 < nwho; w0++) {
                    const int w = (w0 + tr + nwho) % nwho;
                    double ms = time1([&] { run(w, &a); });
                    if (tr >= 0)
                        t[w].push_back(ms);
                }
            /* correctness of every rung against CUB, byte for byte */
            unsigned long long mism[6] = {0, 0, 0, 0, 0, 0};
            for (int w = 0; w < nwho; w++) {
                if (w == 1)
                    continue;
                void *q[3], *r[3];
                for (int k = 0; k < 3; k++)
                    q[k] = r[k] = p[k];
                if (add) {
                    q[2] = (char *)mem[3] + g.off[2] * es; /* CUB's c */
                } else {                                  /* y in place: two copies of the same y */
                    q[1] = (char *)mem[3] + g.off[1] * es;
                    r[1] = (char *)mem[4] + g.off[1] * es;
                    CK(cudaMemcpyAsync(q[1], p[1], n * es, cudaMemcpyDeviceToDevice, stream));
                    CK(cudaMemcpyAsync(r[1], p[1], n * es, cudaMemcpyDeviceToDevice, stream));
                }
                sl_args xq = make_args(op, g.dt, n, q), xr = make_args(op, g.dt, n, r);
                run(w, &xr);
                run(1, &xq);
                const int o = add ? 2 : 1;
                CK(cudaMemsetAsync(bad, 0, sizeof *bad, stream));
                count_diff<<<1024, 256, 0, stream>>>((const unsigned char *)r[o], (const unsigned char *)q[o], n * es,
                                                     bad);
                CK(cudaMemcpyAsync(&mism[w], bad, sizeof *bad, cudaMemcpyDeviceToHost, stream));
                CK(cudaStreamSynchronize(stream));
            }
            const double cub = median(t[1]);
            const double bytes = 3.0 * (double)n * es; /* add: a, b read, c written; axpy: x, y read, y written */
            for (int w = 0; w < nwho; w++) {
                const double m = median(t[w]);
                fprintf(js, "%s{\"op\": \"%s\", \"dtype\": \"%s\", \"n_log2\": %d, \"elem_offsets\": [%d, %d, %d], "
                            "\"who\": \"%s\", \"median_ms\": %.5f, \"gbs\": %.1f, \"x_cub\": %.4f, "
                            "\"mismatched_bytes_vs_cub\": %llu}\n",
                        first ? "" : ",", g.op, sl_dtype_name(g.dt), l, g.off[0], g.off[1], add ? g.off[2] : -1,
                        add ? add_names[w] : axpy_names[w], m, bytes / (m * 1e6), cub / m, mism[w]);
                first = 0;
            }
            printf("alignx %-4s %s 2^%d (%d,%d,%d):", g.op, sl_dtype_name(g.dt), l, g.off[0], g.off[1],
                   add ? g.off[2] : -1);
            for (int w = 0; w < nwho; w++)
                printf(" %s %.4f ms (x%.4f%s)", add ? add_names[w] : axpy_names[w], median(t[w]), cub / median(t[w]),
                       mism[w] ? " MISMATCH" : "");
            printf("\n");
            fflush(stdout);
            fflush(js);
        }
    }
    fprintf(js, "],\n");
    for (int k = 0; k < 5; k++)
        CK(cudaFree(mem[k]));
    CK(cudaFree(bad));
}

/* ---- ncu1: one launch of each side at a few triples, for Nsight Compute ----
 * Run under `ncu -k regex:'ew_bulk|transform'`: the profiled launches come
 * in the order printed ("ncu1 launch K: ..."). */
static void bench_ncu1(void)
{
    static const offs_cfg f32_cfgs[] = {
        {"add", SL_F32, {0, 0, 0}}, {"add", SL_F32, {1, 1, 1}}, {"add", SL_F32, {0, 2, 2}},
        {"add", SL_F32, {0, 0, 2}}, {"add", SL_F32, {0, 0, 1}}, {"axpy", SL_F32, {0, 0}},
        {"axpy", SL_F32, {1, 1}},   {"axpy", SL_F32, {1, 0}},
    };
    /* ALIGN_NCU=f64axpy: f64 axpy's four (x, y) offset pairs at 2^28, where
     * (1, 0) stays under 0.99 x CUB while (0, 1) with the same shift of x
     * does not */
    static const offs_cfg f64_cfgs[] = {
        {"axpy", SL_F64, {0, 0}}, {"axpy", SL_F64, {1, 0}}, {"axpy", SL_F64, {0, 1}}, {"axpy", SL_F64, {1, 1}},
    };
    const bool f64set = getenv("ALIGN_NCU") && !strcmp(getenv("ALIGN_NCU"), "f64axpy");
    const offs_cfg *cfg0 = f64set ? f64_cfgs : f32_cfgs;
    const size_t ncfg = f64set ? sizeof f64_cfgs / sizeof *f64_cfgs : sizeof f32_cfgs / sizeof *f32_cfgs;
    const size_t n = (size_t)1 << (f64set ? 28 : 26);
    void *mem[3];
    for (int k = 0; k < 3; k++) {
        CK(cudaMalloc(&mem[k], (n + 64) * 8));
        SK(ctx->ops->fill_random(ctx, f64set ? SL_F64 : SL_F32, mem[k], n + 64, 0xa1190u + k));
    }
    CK(cudaDeviceSynchronize());
    int launch = 0;
    fprintf(js, "\"ncu1\": [\n");
    for (size_t c = 0; c < ncfg; c++) {
        const offs_cfg &g = cfg0[c];
        const sl_op_desc *op = sl_op_find(g.op);
        const bool add = !strcmp(g.op, "add");
        void *p[3];
        for (int k = 0; k < op->nbufs; k++)
            p[k] = (char *)mem[k] + g.off[k] * sl_dtype_size(g.dt);
        sl_args a = make_args(op, g.dt, n, p);
        const char *who[] = {"sl", "cub", "bulk128"};
        for (int w = 0; w < 3; w++) {
            if (w == 0)
                SK(add ? sl_add(ctx, g.dt, n, p[0], p[1], p[2], stream) : sl_axpy(ctx, g.dt, n, 1.3, p[0], p[1], stream));
            else if (w == 1)
                SK(add ? sl_cuda_add_cub(&a) : bench_axpy_cub(&a));
            else
                SK(add ? add_bulk128(&a) : axpy_bulk128(&a));
            CK(cudaStreamSynchronize(stream));
            printf("ncu1 launch %d: %s %s 2^%d (%d,%d,%d) %s\n", launch, g.op, sl_dtype_name(g.dt), f64set ? 28 : 26,
                   g.off[0], g.off[1], add ? g.off[2] : -1, who[w]);
            fprintf(js, "%s{\"launch\": %d, \"op\": \"%s\", \"dtype\": \"%s\", \"elem_offsets\": [%d, %d, %d], \"who\": \"%s\"}\n",
                    launch ? "," : "", launch, g.op, sl_dtype_name(g.dt), g.off[0], g.off[1], add ? g.off[2] : -1, who[w]);
            launch++;
        }
    }
    fprintf(js, "],\n");
    for (int k = 0; k < 3; k++)
        CK(cudaFree(mem[k]));
}

/* ---- hostpath: what one public call costs on the host, piece by piece ------
 * 512 calls enqueued while spin_kernel (~20 ms) keeps the GPU busy, so no
 * call waits for the device: the host's time per call, median of 9. The
 * differences between rows are the pieces: api - vec4 = the dispatch table;
 * sl_add (checks off) - api = argument checks, bind, variant lookup;
 * sl_add (first use) - (checks off) = the pointer memo. Rows without a
 * launch time the runtime calls alone. */
static void bench_hostpath(void)
{
    const sl_op_desc *op = sl_op_find("add");
    const size_t n = (size_t)1 << 20;
    float *a, *b, *c;
    CK(cudaMalloc(&a, n * 4));
    CK(cudaMalloc(&b, n * 4));
    CK(cudaMalloc(&c, n * 4));
    SK(ctx->ops->fill_random(ctx, SL_F32, a, n, 1));
    SK(ctx->ops->fill_random(ctx, SL_F32, b, n, 2));
    CK(cudaDeviceSynchronize());
    void *p[3] = {a, b, c};
    sl_args args = make_args(op, SL_F32, n, p);
    const char *names[] = {"cudaGetDevice",     "cudaGetLastError",   "cudaPointerGetAttributes", "sl_op_traffic",
                           "empty_kernel",      "vec4_direct",        "api_dispatch",             "sl_add_checks_off",
                           "sl_add_first_use",  "sl_add_every_call",  "cub"};
    const int nw = (int)(sizeof names / sizeof names[0]), calls = 512;
    fprintf(js, "\"hostpath\": [\n");
    for (int w = 0; w < nw; w++) {
        const bool launches = w >= 4;
        if (w == 7)
            SK(sl_ctx_set_pointer_checks(ctx, SL_POINTER_CHECKS_OFF));
        if (w == 8)
            SK(sl_ctx_set_pointer_checks(ctx, SL_POINTER_CHECKS_FIRST_USE));
        if (w == 9)
            SK(sl_ctx_set_pointer_checks(ctx, SL_POINTER_CHECKS_EVERY_CALL));
        if (w == 10)
            SK(sl_ctx_set_pointer_checks(ctx, SL_POINTER_CHECKS_FIRST_USE));
        volatile double sink = 0;
        auto call = [&] {
            switch (w) {
            case 0: {
                int d;
                CK(cudaGetDevice(&d));
                sink = sink + d;
                break;
            }
            case 1: CK(cudaGetLastError()); break;
            case 2: {
                cudaPointerAttributes pa;
                CK(cudaPointerGetAttributes(&pa, a));
                break;
            }
            case 3: sink = sink + sl_op_traffic(op, &args.shape, SL_F32, SL_F32).rd_bytes; break;
            case 4:
                spin_kernel<<<1, 1, 0, stream>>>(0);
                CK(cudaGetLastError());
                break;
            case 5: SK(sl_cuda_add_vec4(&args)); break;
            case 6: SK(sl_cuda_add_api(&args)); break;
            case 7:
            case 8:
            case 9: SK(sl_add(ctx, SL_F32, n, a, b, c, stream)); break;
            default: SK(sl_cuda_add_cub(&args)); break;
            }
        };
        for (int i = 0; i < 64; i++)
            call();
        CK(cudaStreamSynchronize(stream));
        std::vector<double> reps;
        for (int r = 0; r < 9; r++) {
            if (launches)
                spin_kernel<<<1, 1, 0, stream>>>(40000000); /* ~20 ms at 1.98 GHz */
            const double s = now_s();
            for (int i = 0; i < calls; i++)
                call();
            reps.push_back((now_s() - s) / calls * 1e9);
            CK(cudaStreamSynchronize(stream));
        }
        fprintf(js, "%s{\"who\": \"%s\", \"ns_per_call\": %.1f, \"min_ns\": %.1f}\n", w ? "," : "", names[w],
                median(reps), *std::min_element(reps.begin(), reps.end()));
        printf("hostpath %-26s %8.1f ns per call (min %.1f)\n", names[w], median(reps),
               *std::min_element(reps.begin(), reps.end()));
    }
    fprintf(js, "],\n");
    CK(cudaFree(a));
    CK(cudaFree(b));
    CK(cudaFree(c));
}

/* ---- persist: the persistent grid's tail ------------------------------------
 * The grid-stride rungs (grid_vec4, ilp2, ilp4) move the same DRAM bytes in
 * the same DRAM active cycles as vec4 (ncu, call 1), yet take 3-5% longer:
 * DRAM idles more. Hypothesis: a persistent grid hands every SM the same
 * share up front (static partition), so SMs that stream slower finish last
 * and the kernel ends with a tail in which DRAM is underfed; a grid of
 * many short blocks is balanced by the block scheduler. Three float4 add
 * kernels at n floats, each block recording its SM, start and end
 * (%globaltimer, ns):
 *   static   grid-stride over SMs x resident blocks (as grid_vec4)
 *   dynamic  the same persistent grid taking 4-vector-per-thread chunks from
 *            an atomic counter (balanced at run time)
 *   blocks   one float4 per thread, n / 4 / 256 blocks (as vec4)
 * Reported: the event-timed median of 15 (order rotating), and, from one
 * more instrumented launch, each SM's last end after the first start: mean,
 * min and max over the SMs, and the tail (max - mean) / max. */
struct blk_rec {
    unsigned long long t0, t1;
    unsigned sm, pad;
};

static __device__ __forceinline__ unsigned long long gtimer(void)
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

static __device__ __forceinline__ void blk_record(blk_rec *rec, unsigned long long t0)
{
    __syncthreads();
    if (rec && threadIdx.x == 0) {
        unsigned sm;
        asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
        rec[blockIdx.x].t0 = t0;
        rec[blockIdx.x].t1 = gtimer();
        rec[blockIdx.x].sm = sm;
    }
}

static __device__ __forceinline__ float4 add4(float4 x, float4 y)
{
    return make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
}

static __global__ void __launch_bounds__(256) persist_static(const float4 *__restrict__ a, const float4 *__restrict__ b,
                                                             float4 *__restrict__ c, size_t nvec, blk_rec *rec)
{
    const unsigned long long t0 = gtimer();
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < nvec; i += (size_t)gridDim.x * blockDim.x)
        c[i] = add4(a[i], b[i]);
    blk_record(rec, t0);
}

static __global__ void __launch_bounds__(256) persist_dynamic(const float4 *__restrict__ a,
                                                              const float4 *__restrict__ b, float4 *__restrict__ c,
                                                              size_t nvec, unsigned long long *ctr, blk_rec *rec)
{
    const unsigned long long t0 = gtimer();
    __shared__ unsigned long long chunk;
    const size_t per = 4 * (size_t)blockDim.x;
    for (;;) {
        if (threadIdx.x == 0)
            chunk = atomicAdd(ctr, 1ull);
        __syncthreads();
        const size_t base = (size_t)chunk * per;
        __syncthreads(); /* everyone has read chunk before thread 0 takes the next */
        if (base >= nvec)
            break;
        float4 x[4], y[4];
#pragma unroll
        for (int k = 0; k < 4; k++) {
            const size_t i = base + k * blockDim.x + threadIdx.x;
            if (i < nvec) {
                x[k] = a[i];
                y[k] = b[i];
            }
        }
#pragma unroll
        for (int k = 0; k < 4; k++) {
            const size_t i = base + k * blockDim.x + threadIdx.x;
            if (i < nvec)
                c[i] = add4(x[k], y[k]);
        }
    }
    blk_record(rec, t0);
}

static __global__ void __launch_bounds__(256) persist_blocks(const float4 *__restrict__ a, const float4 *__restrict__ b,
                                                             float4 *__restrict__ c, size_t nvec, blk_rec *rec)
{
    const unsigned long long t0 = gtimer();
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < nvec)
        c[i] = add4(a[i], b[i]);
    blk_record(rec, t0);
}

static void bench_persist(void)
{
    const size_t maxn = (size_t)1 << 28;
    float4 *a, *b, *c;
    unsigned long long *ctr;
    CK(cudaMalloc(&a, maxn * 4));
    CK(cudaMalloc(&b, maxn * 4));
    CK(cudaMalloc(&c, maxn * 4));
    CK(cudaMalloc(&ctr, sizeof *ctr));
    SK(ctx->ops->fill_random(ctx, SL_F32, a, maxn, 11));
    SK(ctx->ops->fill_random(ctx, SL_F32, b, maxn, 12));
    int per_sm_s = 0, per_sm_d = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm_s, persist_static, 256, 0));
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm_d, persist_dynamic, 256, 0));
    const int sms = ctx->info.sm_count;
    std::vector<float> host(1 << 20), ref(1 << 20);
    fprintf(js, "\"persist\": [\n");
    int first = 1;
    for (int l = 26; l <= 28; l += 2) {
        const size_t n = (size_t)1 << l, nvec = n / 4;
        const unsigned gs = (unsigned)(sms * per_sm_s), gd = (unsigned)(sms * per_sm_d),
                       gb = (unsigned)((nvec + 255) / 256);
        blk_rec *rec;
        CK(cudaMalloc(&rec, (size_t)gb * sizeof(blk_rec)));
        auto launch = [&](int w, blk_rec *r) {
            switch (w) {
            case 0: persist_static<<<gs, 256, 0, stream>>>(a, b, c, nvec, r); break;
            case 1:
                CK(cudaMemsetAsync(ctr, 0, sizeof *ctr, stream));
                persist_dynamic<<<gd, 256, 0, stream>>>(a, b, c, nvec, ctr, r);
                break;
            default: persist_blocks<<<gb, 256, 0, stream>>>(a, b, c, nvec, r); break;
            }
            CK(cudaGetLastError());
        };
        const char *names[] = {"static", "dynamic", "blocks"};
        const unsigned grids[] = {gs, gd, gb};
        std::vector<double> t[3];
        for (int tr = -2; tr < 15; tr++)
            for (int w0 = 0; w0 < 3; w0++) {
                const int w = (w0 + tr + 3) % 3;
                /* the dynamic kernel's counter reset goes before the first event */
                if (w == 1)
                    CK(cudaMemsetAsync(ctr, 0, sizeof *ctr, stream));
                double ms = time1([&] {
                    if (w == 1)
                        persist_dynamic<<<gd, 256, 0, stream>>>(a, b, c, nvec, ctr, nullptr);
                    else
                        launch(w, nullptr);
                });
                if (tr >= 0)
                    t[w].push_back(ms);
            }
        for (int w = 0; w < 3; w++) {
            /* one instrumented launch; then check c against a host sum of the first 2^20 elements */
            CK(cudaMemsetAsync(c, 0, n * 4, stream));
            launch(w, rec);
            std::vector<blk_rec> h(grids[w]);
            CK(cudaMemcpyAsync(h.data(), rec, grids[w] * sizeof(blk_rec), cudaMemcpyDeviceToHost, stream));
            CK(cudaMemcpyAsync(host.data(), c, host.size() * 4, cudaMemcpyDeviceToHost, stream));
            CK(cudaMemcpyAsync(ref.data(), a, ref.size() * 4, cudaMemcpyDeviceToHost, stream));
            std::vector<float> bb(ref.size());
            CK(cudaMemcpyAsync(bb.data(), b, bb.size() * 4, cudaMemcpyDeviceToHost, stream));
            CK(cudaStreamSynchronize(stream));
            size_t bad = 0;
            for (size_t i = 0; i < ref.size(); i++)
                bad += host[i] != ref[i] + bb[i];
            unsigned long long tmin = ~0ull;
            for (auto &r : h)
                tmin = std::min(tmin, r.t0);
            std::vector<double> last(1024, -1.0);
            for (auto &r : h)
                if (r.sm < last.size())
                    last[r.sm] = std::max(last[r.sm], (double)(r.t1 - tmin) * 1e-3);
            std::vector<double> ends;
            for (double e : last)
                if (e >= 0)
                    ends.push_back(e);
            double mean = 0;
            for (double e : ends)
                mean += e;
            mean /= ends.size();
            const double mx = *std::max_element(ends.begin(), ends.end()),
                         mn = *std::min_element(ends.begin(), ends.end());
            const double med = median(t[w]);
            fprintf(js, "%s{\"n_log2\": %d, \"kernel\": \"%s\", \"grid\": %u, \"median_ms\": %.5f, \"gbs\": %.1f, "
                        "\"sms_seen\": %zu, \"sm_end_us_mean\": %.2f, \"sm_end_us_min\": %.2f, \"sm_end_us_max\": %.2f, "
                        "\"tail_frac\": %.4f, \"mismatches_first_2e20\": %zu}\n",
                    first ? "" : ",", l, names[w], grids[w], med, 12.0 * n / (med * 1e6), ends.size(), mean, mn, mx,
                    (mx - mean) / mx, bad);
            first = 0;
            printf("persist 2^%d %-7s grid %7u: %.4f ms %.1f GB/s; SM last end (us after first start) mean %.1f min %.1f "
                   "max %.1f, tail (max-mean)/max %.4f; %zu SMs; %zu mismatches\n",
                   l, names[w], grids[w], med, 12.0 * n / (med * 1e6), mean, mn, mx, (mx - mean) / mx, ends.size(),
                   bad);
        }
        CK(cudaFree(rec));
    }
    fprintf(js, "],\n");
    CK(cudaFree(a));
    CK(cudaFree(b));
    CK(cudaFree(c));
    CK(cudaFree(ctr));
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: align_bench OUT.json [align|alignx|smalln|l2|rwmix|axpyrungs|hostpath|persist|ncu1 ...]\n");
        return 2;
    }
    if (sl_ctx_create(0, &ctx) != SL_OK) {
        fprintf(stderr, "align_bench: no CUDA device: %s\n", sl_last_error());
        return 77;
    }
    CK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    for (int i = 0; i < 4; i++)
        CK(cudaEventCreate(&ev[i]));
    js = fopen(argv[1], "w");
    if (!js) {
        perror(argv[1]);
        return 2;
    }
    fprintf(js, "{\"schema\": \"streamlab.align_bench/1\", \"device\": \"%s\", \"sm_count\": %d, \"l2_bytes\": %zu,\n",
            ctx->info.name, ctx->info.sm_count, ctx->info.l2_bytes);
    bool all = argc == 2;
    for (int i = 2; i < argc || all; i++) {
        const char *w = all ? NULL : argv[i];
        if (all || !strcmp(w, "smalln"))
            bench_smalln();
        if (all || !strcmp(w, "l2"))
            bench_l2();
        if (all || !strcmp(w, "rwmix"))
            bench_rwmix();
        if (all || !strcmp(w, "axpyrungs"))
            bench_axpyrungs();
        if (all || !strcmp(w, "align"))
            bench_align();
        if (all || !strcmp(w, "alignx"))
            bench_alignx();
        if (all || !strcmp(w, "persist"))
            bench_persist();
        if (all || !strcmp(w, "hostpath"))
            bench_hostpath();
        if (!all && !strcmp(w, "ncu1")) /* for Nsight Compute only */
            bench_ncu1();
        if (all)
            break;
    }
    fprintf(js, "\"end\": true}\n");
    fclose(js);
    sl_ctx_destroy(ctx);
    return 0;
}
