/*
 * Experiment (bench/experiments/): supports docs/model.md, "Issue 17: the
 * read/write mix, and a profile that belongs to one GPU" (rwmix, persist,
 * hints); docs/ladder.md, "Issue 17: every alignment, small n, L2-resident
 * sizes" (align, alignx, hostpath, f64x, vecx).
 * Run: STAGES=alignment bash bench/device.sh.
 *
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
 *   f64x    f64 axpy at (0, 0), (1, 0), (0, 1): sl, CUB, bulk tile shapes,
 *           x's extra vector by LDG, the bulk copies alone, and the
 *           realigned tile with its copy and its funnel switched on and off
 *           (timing only). A new random order each trial: a kernel that
 *           follows a writer pays for the writer's dirty L2 lines (0.2% at
 *           2^28, 0.6% at 2^26 in the first call's fixed rotation).
 *   hints   DRAM bandwidth of read/write mixes with each load cache hint.
 *   vecx    f32 axpy's v5_vec realigned: random order, and after each
 *           predecessor.
 *   ncu1    (named only) one launch each of sl, CUB, bulk128 at a few
 *           triples, for Nsight Compute.
 *   l2 also times "queued": behind a spin kernel, GPU time only.
 *
 * Usage: align_bench OUT.json [align|alignx|smalln|l2|rwmix|axpyrungs|hostpath|persist|f64x|hints|vecx|ncu1 ...]
 *        (default: all but ncu1)
 * Env: ALIGN_TRIALS (default 5; three times that for f32 and f64, which have few
 *      combinations), ALIGN_LOG2 (default "26,28"), ALIGN_DTYPES (a comma list;
 *      default: every dtype of each op).
 * Writes a JSON document; bench/experiments/align_report.py turns it into markdown.
 */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "add.cuh"
#include "axpy.cuh"
#include "bulk.cuh"
#include "tile.cuh"
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

#include "../bench_check.h"
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

/* Time kernels 0 .. nw - 1 (run(w) launches kernel w) `trials` times each,
 * in a new random order every trial after two untimed rounds: every kernel
 * follows every other, where a fixed rotation made each pay for one
 * predecessor's dirty L2 lines every time (f64x, call 1: 0.2-0.6%). */
template <class F> static void time_shuffled(int nw, int trials, unsigned seed, F run, std::vector<double> *t)
{
    std::mt19937 rng(seed);
    std::vector<int> order(nw);
    for (int w = 0; w < nw; w++)
        order[w] = w;
    for (int tr = -2; tr < trials; tr++) {
        std::shuffle(order.begin(), order.end(), rng);
        for (int w : order) {
            const double ms = time1([&] { run(w); });
            if (tr >= 0)
                t[w].push_back(ms);
        }
    }
}

/* ---- f64x: what the realigned bulk copy costs (f64 axpy, x, y = 1, 0) -------
 * The one offset pair still under 0.99 x CUB (docs/ladder.md, issue 17 "What
 * is left"). Side by side, in one loop, at (0, 0), (1, 0), (0, 1), 2^26 and
 * 2^28: sl_axpy, CUB, the bulk rung (256 x 1 vector: 4 KiB tiles), the same
 * with 8 KiB tiles (256 x 2) and with 512 threads x 1, the "ldg" variant
 * (below), and the copy alone: a kernel that only bulk-copies the x and y
 * tiles the bulk rung would copy (with and without x's extra vector) into
 * shared memory and stores nothing. */

/* The bulk rung's realigned tile with its parts switched one at a time
 * (f64x's diagnosis of (x, y) = (1, 0)). MODE:
 *   0 (bulk_ldg)  x's extra vector loaded by the tile's last thread from
 *                 global memory (one LDG.128) rather than by the bulk copy:
 *                 every bulk copy is exactly the tile. Correct results.
 *   1 (diag_copy) the bulk rung's copies (x with its extra vector), but no
 *                 realignment: each thread uses the aligned vector j.
 *   2 (diag_funnel) the copies of the aligned kernel (no extra vector),
 *                 the realignment of vectors j and j + 1 (the last thread's
 *                 j + 1 is stale shared memory).
 *   3 (diag_none) the aligned kernel on the aligned-down x.
 * Modes 1-3 compute wrong sums for a shifted x: timing only, never checked. */
template <int MODE, int DT, class OP>
static __global__ void __launch_bounds__(256, SL_THREADS_PER_SM / 256) bulk_diag_tile(OP op, sl_ew_ptrs<DT, OP::NIN> p)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    enum { TILE = 256, NIN = OP::NIN, SPAN = TILE + 16 };
    __shared__ __align__(128) uint4 sm[NIN][SPAN];
    __shared__ __align__(8) uint64_t bar;
    uint32_t o[NIN];
#pragma unroll
    for (int q = 0; q < NIN; q++)
        o[q] = (uint32_t)(((uintptr_t)p.in16[q] >> 4) & 7u);
    sl_ew_edges<DT>(op, p);
    const size_t base = (size_t)blockIdx.x * TILE;
    if (base >= p.nvec)
        return;
    const size_t left = p.nvec - base;
    const uint32_t count = left < (size_t)TILE ? (uint32_t)left : (uint32_t)TILE;
    const uint32_t bytes = count * (uint32_t)sizeof(uint4);
    const uint32_t j = threadIdx.x;
    uint4 edge[NIN];
#pragma unroll
    for (int q = 0; q < NIN; q++)
        edge[q] = (MODE == 0 && p.sh[q] != 0 && j == count - 1) ? p.in16[q][base + count] : make_uint4(0, 0, 0, 0);
    if (j == 0) {
        uint32_t in_bytes[NIN], total = 0;
#pragma unroll
        for (int q = 0; q < NIN; q++) {
            in_bytes[q] = bytes + ((MODE == 1 && p.sh[q] != 0) ? (uint32_t)sizeof(uint4) : 0u);
            total += in_bytes[q];
        }
        mbar_init(&bar, 1);
        mbar_arrive_expect(&bar, total);
#pragma unroll
        for (int q = 0; q < NIN; q++)
            bulk_load(&sm[q][o[q]], p.in16[q] + base, in_bytes[q], &bar);
    }
    __syncthreads();
    mbar_wait(&bar, 0);
    if (j < count) {
        uint4 r[NIN];
#pragma unroll
        for (int q = 0; q < NIN; q++) {
            if ((MODE == 0 || MODE == 2) && p.sh[q]) {
                const uint4 hi = (MODE == 0 && j == count - 1) ? edge[q] : sm[q][o[q] + j + 1];
                r[q] = sl_funnel16<sizeof(typename sl_dt<DT>::raw)>(sm[q][o[q] + j], hi, p.sh[q]);
            } else {
                r[q] = sm[q][o[q] + j];
            }
        }
        p.out16[base + j] = sl_apply16<DT>(op, r);
    }
#else
    (void)op; (void)p;
    __trap();
#endif
}

template <int MODE> struct bulk_diag {
    template <int DT, class OP> struct rung {
        static sl_status launch(const sl_args *x, const OP &op)
        {
            sl_ew_ptrs<DT, OP::NIN> p;
            sl_status st;
            bool ra = false;
            if (!sl_ew_prologue<DT>(x, op, &p, &ra, &st))
                return st;
            unsigned grid = 0;
            if ((st = sl_grid_for(p.nvec > 0 ? p.nvec : 1, 256, "bulk_diag", &grid)) != SL_OK)
                return st;
            bulk_diag_tile<MODE, DT, OP><<<grid, 256, 0, (cudaStream_t)x->stream>>>(op, p);
            SL_CUDA_LAUNCHED();
            return SL_OK;
        }
    };
};
/* axpy through bulk_diag_tile<MODE> (0: bulk_ldg, 1: diag_copy, 2: diag_funnel, 3: diag_none) */
template <int MODE> static sl_status axpy_diag(const sl_args *x)
{
    return sl_ew_run<bulk_diag<MODE>::template rung, sl_k_axpy>(x);
}
template <int DT, class OP> using bench_bulk_v2 = rung_bulk_tile<256, 2, false, DT, OP>;
template <int DT, class OP> using bench_bulk_b512 = rung_bulk_tile<512, 1, false, DT, OP>;
static sl_status axpy_bulk_v2(const sl_args *x) { return sl_ew_run<bench_bulk_v2, sl_k_axpy>(x); }
static sl_status axpy_bulk_b512(const sl_args *x) { return sl_ew_run<bench_bulk_b512, sl_k_axpy>(x); }

/* the copies alone: x's and y's 4 KiB tiles (x with `extra` more bytes),
 * each landing at its global address modulo 128 as in ew_bulk_tile */
static __global__ void __launch_bounds__(256, SL_THREADS_PER_SM / 256)
copy_only(const uint4 *x, const uint4 *y, size_t nvec, uint32_t extra, unsigned *sink)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    __shared__ __align__(128) uint4 sm[2][256 + 16];
    __shared__ __align__(8) uint64_t bar;
    const size_t base = (size_t)blockIdx.x * 256;
    if (base >= nvec)
        return;
    const size_t left = nvec - base;
    const uint32_t bytes = (left < 256 ? (uint32_t)left : 256u) * 16u;
    const uint32_t ox = (uint32_t)(((uintptr_t)x >> 4) & 7u), oy = (uint32_t)(((uintptr_t)y >> 4) & 7u);
    if (threadIdx.x == 0) {
        mbar_init(&bar, 1);
        mbar_arrive_expect(&bar, 2 * bytes + extra);
        bulk_load(&sm[0][ox], x + base, bytes + extra, &bar);
        bulk_load(&sm[1][oy], y + base, bytes, &bar);
    }
    __syncthreads();
    mbar_wait(&bar, 0);
    if ((sm[0][ox + threadIdx.x].x ^ sm[1][oy + threadIdx.x].y) == 0x5a5a5a5au && threadIdx.x == 7)
        atomicAdd(sink, 1u); /* rare, data-dependent: the copies must land */
#else
    (void)x; (void)y; (void)nvec; (void)extra; (void)sink;
    __trap();
#endif
}

static void bench_f64x(void)
{
    static const int pairs[][2] = {{0, 0}, {1, 0}, {0, 1}};
    const sl_op_desc *op = sl_op_find("axpy");
    const size_t maxn = (size_t)1 << 28;
    enum { NW = 12 };
    const char *names[NW] = {"sl",         "cub",         "bulk",         "bulk_v2",           "bulk_b512",
                             "bulk_ldg",   "copy_exact",  "copy_plus16",  "copy_exact_aligned", "diag_copy",
                             "diag_funnel", "diag_none"};
    void *mem[4];
    for (int k = 0; k < 4; k++)
        CK(cudaMalloc(&mem[k], (maxn + 64) * 8));
    unsigned *sink;
    unsigned long long *bad;
    CK(cudaMalloc(&sink, sizeof *sink));
    CK(cudaMalloc(&bad, sizeof *bad));
    fprintf(js, "\"f64x\": [\n");
    int first = 1;
    for (int l = 26; l <= 28; l += 2) {
        const size_t n = (size_t)1 << l;
        for (const auto &pr : pairs) {
            for (int k = 0; k < 2; k++)
                SK(ctx->ops->fill_random(ctx, SL_F64, mem[k], n + 64, 0xf64u + k));
            CK(cudaDeviceSynchronize());
            void *p[2] = {(char *)mem[0] + pr[0] * 8, (char *)mem[1] + pr[1] * 8};
            sl_args a = make_args(op, SL_F64, n, p);
            /* the copies: the tiles of this pair's realigned split at the
             * default 32-byte ra_align (x from its aligned-down address; the
             * bulk rung's tiles before it asked for 128), and the aligned
             * control */
            sl_ew_ptrs<SL_F64, 2> sp;
            bool ra = false;
            sl_status pst;
            if (!sl_ew_prologue<SL_F64>(&a, sl_k_axpy::from(&a), &sp, &ra, &pst))
                SK(pst);
            auto run = [&](int w, sl_args *x) {
                switch (w) {
                case 0: SK(sl_axpy(ctx, SL_F64, n, 1.3, x->buf[0], x->buf[1], stream)); break;
                case 1: SK(bench_axpy_cub(x)); break;
                case 2: SK(sl_cuda_axpy_bulk(x)); break;
                case 3: SK(axpy_bulk_v2(x)); break;
                case 4: SK(axpy_bulk_b512(x)); break;
                case 5: SK(axpy_diag<0>(x)); break;
                case 9: SK(axpy_diag<1>(x)); break;
                case 10: SK(axpy_diag<2>(x)); break;
                case 11: SK(axpy_diag<3>(x)); break;
                default: {
                    const uint4 *cx = w == 8 ? (const uint4 *)mem[0] : sp.in16[0];
                    const uint4 *cy = w == 8 ? (const uint4 *)mem[1] : sp.in16[1];
                    copy_only<<<(unsigned)((sp.nvec + 255) / 256), 256, 0, stream>>>(cx, cy, sp.nvec, w == 7 ? 16u : 0u,
                                                                                    sink);
                    CK(cudaGetLastError());
                }
                }
            };
            std::vector<double> t[NW];
            time_shuffled(NW, 25, 0xf64u + l, [&](int w) { run(w, &a); }, t);
            /* each axpy kernel against CUB on fresh copies of y, byte for byte */
            unsigned long long mism[NW] = {0};
            for (int w = 0; w < 6; w++) {
                if (w == 1)
                    continue;
                void *q[2] = {p[0], (char *)mem[2] + pr[1] * 8}, *r[2] = {p[0], (char *)mem[3] + pr[1] * 8};
                CK(cudaMemcpyAsync(q[1], p[1], n * 8, cudaMemcpyDeviceToDevice, stream));
                CK(cudaMemcpyAsync(r[1], p[1], n * 8, cudaMemcpyDeviceToDevice, stream));
                sl_args xq = make_args(op, SL_F64, n, q), xr = make_args(op, SL_F64, n, r);
                run(w, &xr);
                run(1, &xq);
                CK(cudaMemsetAsync(bad, 0, sizeof *bad, stream));
                count_diff<<<1024, 256, 0, stream>>>((const unsigned char *)r[1], (const unsigned char *)q[1], n * 8, bad);
                CK(cudaMemcpyAsync(&mism[w], bad, sizeof *bad, cudaMemcpyDeviceToHost, stream));
                CK(cudaStreamSynchronize(stream));
            }
            const double cub = median(t[1]);
            printf("f64x 2^%d (%d,%d):", l, pr[0], pr[1]);
            for (int w = 0; w < NW; w++) {
                const double m = median(t[w]);
                fprintf(js, "%s{\"n_log2\": %d, \"elem_offsets\": [%d, %d], \"who\": \"%s\", \"median_ms\": %.5f, "
                            "\"x_cub\": %.4f, \"mismatched_bytes_vs_cub\": %llu}\n",
                        first ? "" : ",", l, pr[0], pr[1], names[w], m, cub / m, mism[w]);
                first = 0;
                printf(" %s %.4f ms (x%.4f%s)", names[w], m, cub / m, mism[w] ? " MISMATCH" : "");
            }
            printf("\n");
            fflush(stdout);
            fflush(js);
        }
    }
    fprintf(js, "],\n");
    for (int k = 0; k < 4; k++)
        CK(cudaFree(mem[k]));
    CK(cudaFree(sink));
    CK(cudaFree(bad));
}

/* ---- vecx: axpy's v5_vec realigned, and what runs before it ---------------
 * alignx timed v5_vec realigned at 0.87 x CUB (f32 and f64 axpy, (x, y) =
 * (0, 1), (1, 0)) in a fixed rotation where bulk128 always ran just before
 * it; Nsight Compute (one launch, caches flushed) timed it as fast as the
 * aligned kernel. Here, f32 axpy at (0, 0), (0, 1), (1, 0), 2^26 and 2^28:
 * (a) sl, CUB, v5_vec, tile4, bulk128 in a new random order each trial;
 * (b) v5_vec timed right after one untimed launch of each predecessor
 * (v5_vec itself, CUB, bulk128, tile4, sl), 15 trials each. */
static void bench_vecx(void)
{
    static const int pairs[][2] = {{0, 0}, {0, 1}, {1, 0}};
    const sl_op_desc *op = sl_op_find("axpy");
    const size_t maxn = (size_t)1 << 28;
    enum { NW = 5 };
    const char *names[NW] = {"sl", "cub", "v5_vec", "tile4", "bulk128"};
    void *mem[2];
    for (int k = 0; k < 2; k++)
        CK(cudaMalloc(&mem[k], (maxn + 64) * 4));
    fprintf(js, "\"vecx\": [\n");
    int first = 1;
    for (int l = 26; l <= 28; l += 2) {
        const size_t n = (size_t)1 << l;
        for (const auto &pr : pairs) {
            for (int k = 0; k < 2; k++)
                SK(ctx->ops->fill_random(ctx, SL_F32, mem[k], n + 64, 0x5e0u + k));
            CK(cudaDeviceSynchronize());
            void *p[2] = {(char *)mem[0] + pr[0] * 4, (char *)mem[1] + pr[1] * 4};
            sl_args a = make_args(op, SL_F32, n, p);
            auto run = [&](int w) {
                switch (w) {
                case 0: SK(sl_axpy(ctx, SL_F32, n, 1.3, p[0], p[1], stream)); break;
                case 1: SK(bench_axpy_cub(&a)); break;
                case 2: SK(sl_cuda_axpy_v5_vec(&a)); break;
                case 3: SK(sl_cuda_axpy_tile4(&a)); break;
                default: SK(axpy_bulk128(&a)); break;
                }
            };
            std::vector<double> t[NW], after[NW];
            time_shuffled(NW, 25, 0x5e0u + l, run, t);
            for (int tr = 0; tr < 15; tr++)
                for (int pre = 0; pre < NW; pre++) {
                    run(pre); /* untimed: only its footprint in L2 and DRAM remains */
                    after[pre].push_back(time1([&] { run(2); }));
                }
            const double cub = median(t[1]);
            printf("vecx 2^%d (%d,%d): random order:", l, pr[0], pr[1]);
            for (int w = 0; w < NW; w++)
                printf(" %s x%.4f", names[w], cub / median(t[w]));
            printf("; v5_vec after:");
            for (int w = 0; w < NW; w++) {
                printf(" %s x%.4f", names[w], cub / median(after[w]));
                fprintf(js, "%s{\"n_log2\": %d, \"elem_offsets\": [%d, %d], \"who\": \"%s\", \"median_ms\": %.5f, "
                            "\"x_cub\": %.4f, \"v5_vec_after_it_ms\": %.5f, \"v5_vec_after_it_x_cub\": %.4f}\n",
                        first ? "" : ",", l, pr[0], pr[1], names[w], median(t[w]), cub / median(t[w]),
                        median(after[w]), cub / median(after[w]));
                first = 0;
            }
            printf("\n");
            fflush(stdout);
            fflush(js);
        }
    }
    fprintf(js, "],\n");
    for (int k = 0; k < 2; k++)
        CK(cudaFree(mem[k]));
}

/* ---- hints: DRAM bandwidth of the load cache hints against the mix ----------
 * rw_kernel's mixes with the loads of tile1 (default), tile1_nc
 * (ld.global.nc.L1::no_allocate), tile1_lu (ld.global.lu) and tile1_cs
 * (ld.global.cs), all four timed in one loop: whether the 4-7% that
 * tile1_lu and tile1_nc lose to tile1 (docs/model.md, "Cache-hint loads")
 * is a property of the hinted loads' DRAM rate that a probe can measure. */
template <int R, int W, int HINT>
static __global__ void hint_kernel(const uint4 *__restrict__ in, uint4 *__restrict__ out, size_t nvec, size_t stride)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= nvec)
        return;
    uint4 acc = make_uint4(1, 2, 3, 4);
#pragma unroll
    for (int r = 0; r < R; r++) {
        uint4 v = tile_load<HINT>(in + r * stride + i, 0);
        acc.x += v.x;
        acc.y ^= v.y;
        acc.z += v.z;
        acc.w ^= v.w;
    }
    if constexpr (W == 0) {
        if (acc.x == 0x9e3779b9u && acc.y == 0x7f4a7c15u)
            out[i] = acc;
    } else {
#pragma unroll
        for (int w = 0; w < W; w++)
            out[w * stride + i] = acc;
    }
}

template <int R, int W, int HINT> static void hint_one(const uint4 *in, uint4 *out, size_t nvec, size_t stride)
{
    hint_kernel<R, W, HINT><<<(unsigned)((nvec + 255) / 256), 256, 0, stream>>>(in, out, nvec, stride);
}

static void bench_hints(void)
{
    const size_t n = (size_t)1 << 28, nvec = n / 4, stride = nvec;
    uint4 *in, *out;
    CK(cudaMalloc(&in, 2 * n * 4));
    CK(cudaMalloc(&out, 1 * n * 4));
    SK(ctx->ops->fill_random(ctx, SL_F32, in, 2 * n, 11));
    CK(cudaDeviceSynchronize());
    typedef void (*fn)(const uint4 *, uint4 *, size_t, size_t);
    struct {
        int r, w;
        fn f[4];
    } mixes[] = {
        {1, 0, {hint_one<1, 0, HINT_DEFAULT>, hint_one<1, 0, HINT_NO_ALLOCATE>, hint_one<1, 0, HINT_LAST_USE>, hint_one<1, 0, HINT_STREAMING>}},
        {2, 0, {hint_one<2, 0, HINT_DEFAULT>, hint_one<2, 0, HINT_NO_ALLOCATE>, hint_one<2, 0, HINT_LAST_USE>, hint_one<2, 0, HINT_STREAMING>}},
        {1, 1, {hint_one<1, 1, HINT_DEFAULT>, hint_one<1, 1, HINT_NO_ALLOCATE>, hint_one<1, 1, HINT_LAST_USE>, hint_one<1, 1, HINT_STREAMING>}},
        {2, 1, {hint_one<2, 1, HINT_DEFAULT>, hint_one<2, 1, HINT_NO_ALLOCATE>, hint_one<2, 1, HINT_LAST_USE>, hint_one<2, 1, HINT_STREAMING>}},
    };
    const char *hn[4] = {"default", "nc_no_allocate", "lu", "cs"};
    fprintf(js, "\"hints\": [\n");
    int first = 1;
    for (auto &m : mixes) {
        std::vector<double> t[4];
        for (int tr = -3; tr < 21; tr++)
            for (int h0 = 0; h0 < 4; h0++) {
                const int h = (h0 + tr + 4) % 4;
                double ms = time1([&] { m.f[h](in, out, nvec, stride); });
                CK(cudaGetLastError());
                if (tr >= 0)
                    t[h].push_back(ms);
            }
        const double bytes = (double)(m.r + m.w) * n * 4, d = median(t[0]);
        printf("hints R%d W%d:", m.r, m.w);
        for (int h = 0; h < 4; h++) {
            const double med = median(t[h]);
            fprintf(js, "%s{\"read_streams\": %d, \"write_streams\": %d, \"hint\": \"%s\", \"median_ms\": %.5f, "
                        "\"gbs\": %.1f, \"x_default\": %.4f}\n",
                    first ? "" : ",", m.r, m.w, hn[h], med, bytes / (med * 1e6), d / med);
            first = 0;
            printf(" %s %.1f GB/s (x%.4f)", hn[h], bytes / (med * 1e6), d / med);
        }
        printf("\n");
        fflush(stdout);
    }
    fprintf(js, "],\n");
    CK(cudaFree(in));
    CK(cudaFree(out));
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
    /* ALIGN_NCU=vec: the one-vector rungs (add vec4, axpy v5_vec) and
     * tile4, aligned and realigned, f32 at 2^26: v5_vec realigned runs
     * 0.87 x CUB where add's vec4 realigned runs 0.99 */
    static const offs_cfg vec_cfgs[] = {
        {"add", SL_F32, {0, 0, 0}}, {"add", SL_F32, {1, 0, 0}}, {"axpy", SL_F32, {0, 0}},
        {"axpy", SL_F32, {0, 1}},   {"axpy", SL_F32, {1, 0}},
    };
    const char *mode = getenv("ALIGN_NCU") ? getenv("ALIGN_NCU") : "";
    const bool f64set = !strcmp(mode, "f64axpy"), vecset = !strcmp(mode, "vec");
    const offs_cfg *cfg0 = f64set ? f64_cfgs : vecset ? vec_cfgs : f32_cfgs;
    const size_t ncfg = f64set   ? sizeof f64_cfgs / sizeof *f64_cfgs
                        : vecset ? sizeof vec_cfgs / sizeof *vec_cfgs
                                 : sizeof f32_cfgs / sizeof *f32_cfgs;
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
        const char *who[] = {"sl", "cub", "bulk128"}, *vwho[] = {"vec", "tile4"};
        for (int w = 0; w < (vecset ? 2 : 3); w++) {
            if (vecset && w == 0)
                SK(add ? sl_cuda_add_vec4(&a) : sl_cuda_axpy_v5_vec(&a));
            else if (vecset)
                SK(add ? sl_cuda_add_tile4(&a) : sl_cuda_axpy_tile4(&a));
            else if (w == 0)
                SK(add ? sl_add(ctx, g.dt, n, p[0], p[1], p[2], stream) : sl_axpy(ctx, g.dt, n, 1.3, p[0], p[1], stream));
            else if (w == 1)
                SK(add ? sl_cuda_add_cub(&a) : bench_axpy_cub(&a));
            else
                SK(add ? add_bulk128(&a) : axpy_bulk128(&a));
            CK(cudaStreamSynchronize(stream));
            printf("ncu1 launch %d: %s %s 2^%d (%d,%d,%d) %s\n", launch, g.op, sl_dtype_name(g.dt), f64set ? 28 : 26,
                   g.off[0], g.off[1], add ? g.off[2] : -1, vecset ? vwho[w] : who[w]);
            fprintf(js, "%s{\"launch\": %d, \"op\": \"%s\", \"dtype\": \"%s\", \"elem_offsets\": [%d, %d, %d], \"who\": \"%s\"}\n",
                    launch ? "," : "", launch, g.op, sl_dtype_name(g.dt), g.off[0], g.off[1], add ? g.off[2] : -1,
                    vecset ? vwho[w] : who[w]);
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
        fprintf(stderr, "usage: align_bench OUT.json [align|alignx|smalln|l2|rwmix|axpyrungs|hostpath|persist|f64x|hints|vecx|ncu1 ...]\n");
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
        if (all || !strcmp(w, "f64x"))
            bench_f64x();
        if (all || !strcmp(w, "hints"))
            bench_hints();
        if (all || !strcmp(w, "vecx"))
            bench_vecx();
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
