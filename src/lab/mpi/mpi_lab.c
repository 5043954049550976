/*
 * mpi_lab.c - see mpi_lab.h.
 */
#define _POSIX_C_SOURCE 200809L
#include "mpi_lab.h"

#include "rng.h"
#include "stats.h"
#include "streamlab.h"

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef SL_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif
/* Open MPI declares MPIX_Query_cuda_support in its extensions header. */
#if defined(OPEN_MPI) && OPEN_MPI && defined(__has_include)
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif
#endif

static void mpi_text(int err, char *buf, size_t len)
{
    char s[MPI_MAX_ERROR_STRING];
    int l = 0;
    if (MPI_Error_string(err, s, &l) != MPI_SUCCESS)
        snprintf(s, sizeof s, "MPI error %d", err);
    snprintf(buf, len, "%s", s);
}

sl_status sl_mpi_init(int *argc, char ***argv, sl_mpi *m)
{
    memset(m, 0, sizeof *m);
    m->timeout_s = 600;
    int provided = 0, err;
    char why[MPI_MAX_ERROR_STRING + 64];
    if ((err = MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided)) != MPI_SUCCESS) {
        mpi_text(err, why, sizeof why);
        return sl_fail(SL_ERR_INTERNAL, "MPI_Init_thread failed: %s", why);
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &m->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &m->size);
    MPI_Comm_dup(MPI_COMM_WORLD, &m->rows);
    MPI_Comm_dup(MPI_COMM_WORLD, &m->steps);
    /* The ranks that share memory with this one: its node. */
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, m->rank, MPI_INFO_NULL, &m->node);
    MPI_Comm_rank(m->node, &m->local_rank);
    MPI_Comm_size(m->node, &m->local_size);
    int first = m->local_rank == 0;
    MPI_Allreduce(&first, &m->nnodes, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    char name[MPI_MAX_PROCESSOR_NAME];
    int len = 0;
    MPI_Get_processor_name(name, &len);
    snprintf(m->host, sizeof m->host, "%.63s", name);
    m->hosts = calloc((size_t)m->size, sizeof *m->hosts);
    if (!m->hosts)
        return sl_fail(SL_ERR_NO_MEMORY, "out of host memory for %d host names", m->size);
    MPI_Allgather(m->host, SL_MPI_HOST, MPI_CHAR, m->hosts, SL_MPI_HOST, MPI_CHAR, MPI_COMM_WORLD);
    m->doing = "starting";
    return SL_OK;
}

void sl_mpi_finalize(sl_mpi *m)
{
    if (m->node != MPI_COMM_NULL && m->node)
        MPI_Comm_free(&m->node);
    if (m->rows)
        MPI_Comm_free(&m->rows);
    if (m->steps)
        MPI_Comm_free(&m->steps);
    free(m->hosts);
    m->hosts = NULL;
    MPI_Finalize();
}

int sl_mpi_gpu_count(void)
{
#ifdef SL_HAVE_CUDA
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return n;
#else
    return 0;
#endif
}

void sl_mpi_device_key(const sl_ctx *ctx, char *buf, size_t len)
{
    snprintf(buf, len, "cpu");
#ifdef SL_HAVE_CUDA
    if (ctx->info.backend == SL_BACKEND_CUDA) {
        char bus[32] = "";
        if (cudaDeviceGetPCIBusId(bus, (int)sizeof bus, ctx->info.device) == cudaSuccess)
            snprintf(buf, len, "cuda:%s", bus);
        else
            snprintf(buf, len, "cuda:%d", ctx->info.device);
    }
#else
    (void)ctx;
#endif
}

int sl_mpi_split_cpu_threads(const sl_mpi *m)
{
    if (!getenv("OMP_NUM_THREADS")) {
        int t = omp_get_num_procs() / (m->local_size > 0 ? m->local_size : 1);
        omp_set_num_threads(t > 0 ? t : 1);
    }
    return omp_get_max_threads();
}

void sl_mpi_wait(sl_mpi *m, MPI_Request *req)
{
    const double t0 = MPI_Wtime();
    int done = 0;
    for (;;) {
        MPI_Test(req, &done, MPI_STATUS_IGNORE);
        if (done)
            return;
        const double t = MPI_Wtime() - t0;
        if (t > m->timeout_s) {
            fprintf(stderr,
                    "streamlab run: rank %d (host %s): the other ranks did not answer for %.0f s at %s: a rank "
                    "died, hangs or failed outside a row; aborting the job with MPI_Abort (--mpi-timeout SEC "
                    "sets the limit)\n",
                    m->rank, m->host, t, m->doing ? m->doing : "a collective");
            fflush(stderr);
            if (m->on_abort)
                m->on_abort(m->abort_user);
            MPI_Abort(MPI_COMM_WORLD, 3);
        }
        if (t > 1e-2) {
            /* Past 10 ms the wait is long (a check, a reference, another
             * rank timing alone): leave the core to the rank's own work (CPU
             * ranks share the node's cores). Shorter waits spin, so a trial
             * starts as soon as the last rank arrives. */
            struct timespec ts = {0, 20000};
            nanosleep(&ts, NULL);
        }
    }
}

int sl_mpi_all_min(sl_mpi *m, int v)
{
    int out = v;
    MPI_Request req;
    MPI_Iallreduce(&v, &out, 1, MPI_INT, MPI_MIN, m->rows, &req);
    sl_mpi_wait(m, &req);
    return out;
}

int sl_mpi_all_max(sl_mpi *m, int v)
{
    int out = v;
    MPI_Request req;
    MPI_Iallreduce(&v, &out, 1, MPI_INT, MPI_MAX, m->rows, &req);
    sl_mpi_wait(m, &req);
    return out;
}

void sl_mpi_barrier(sl_mpi *m, double factor)
{
    const double keep = m->timeout_s;
    m->timeout_s = keep * (factor > 1 ? factor : 1);
    MPI_Request req;
    MPI_Ibarrier(m->rows, &req);
    sl_mpi_wait(m, &req);
    m->timeout_s = keep;
}

int sl_mpi_step(void *user, int mine)
{
    sl_mpi *m = user;
    int out = mine;
    MPI_Request req;
    MPI_Iallreduce(&mine, &out, 1, MPI_INT, MPI_MIN, m->steps, &req);
    sl_mpi_wait(m, &req);
    return out;
}

/* ---- rows ----------------------------------------------------------------------- */

void sl_mpi_row_pack(const sl_result *r, sl_mpi_row *o)
{
    memset(o, 0, sizeof *o);
    o->status = (int)r->status;
    o->trials = r->trials;
    o->kept = r->trials < SL_MPI_KEEP ? r->trials : SL_MPI_KEEP;
    o->check_before_ok = r->before.mismatches == 0;
    o->check_after_ok = r->after.mismatches == 0;
    o->bytes = r->bytes;
    o->gbs = r->gbs;
    o->gbs_best = r->gbs_best;
    o->min_ms = r->st.min;
    o->median_ms = r->st.median;
    o->max_ms = r->st.max;
    memcpy(o->times_ms, r->times_ms, (size_t)o->kept * sizeof o->times_ms[0]);
    snprintf(o->variant, sizeof o->variant, "%s", r->v->name);
    snprintf(o->message, sizeof o->message, "%.511s", r->message);
}

int sl_mpi_gather_rows(sl_mpi *m, const sl_mpi_row *mine, sl_mpi_row *all)
{
    MPI_Request req;
    MPI_Igather(mine, (int)sizeof *mine, MPI_BYTE, all, (int)sizeof *mine, MPI_BYTE, 0, m->rows, &req);
    sl_mpi_wait(m, &req);
    /* The lowest rank whose row failed by itself; failing that, the lowest
     * one stopped because another did (SL_ERR_INTERRUPTED). */
    const bool bad = mine->status != SL_OK && mine->status != SL_ERR_UNSUPPORTED;
    const int code = !bad ? 2 * m->size : mine->status == SL_ERR_INTERRUPTED ? m->size + m->rank : m->rank;
    const int first = sl_mpi_all_min(m, code);
    return first < m->size ? first : first < 2 * m->size ? first - m->size : -1;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median_of(double *x, int n)
{
    qsort(x, (size_t)n, sizeof *x, cmp_double);
    return n % 2 ? x[n / 2] : 0.5 * (x[n / 2 - 1] + x[n / 2]);
}

bool sl_mpi_aggregate(const sl_mpi_row *rows, int k, sl_mpi_agg *a)
{
    memset(a, 0, sizeof *a);
    a->slowest_rank = -1;
    int trials = SL_MPI_KEEP;
    double total_bytes = 0;
    for (int r = 0; r < k; r++) {
        if (rows[r].status != SL_OK || rows[r].kept == 0)
            return false;
        trials = rows[r].kept < trials ? rows[r].kept : trials;
        total_bytes += rows[r].bytes;
    }
    double *g = calloc((size_t)(k > trials ? k : trials), sizeof *g);
    double *t = calloc((size_t)trials, sizeof *t);
    int *slowest = calloc((size_t)k, sizeof *slowest);
    if (!g || !t || !slowest) {
        free(g);
        free(t);
        free(slowest);
        return false;
    }
    a->ranks = k;
    a->trials = trials;
    for (int r = 0; r < k; r++)
        g[r] = rows[r].gbs;
    a->min_gbs = a->max_gbs = g[0];
    for (int r = 1; r < k; r++) {
        a->min_gbs = g[r] < a->min_gbs ? g[r] : a->min_gbs;
        a->max_gbs = g[r] > a->max_gbs ? g[r] : a->max_gbs;
    }
    a->med_gbs = median_of(g, k);
    a->spread = a->med_gbs > 0 ? (a->max_gbs - a->min_gbs) / a->med_gbs : 0;
    /* Per trial: the slowest rank's time bounds the system's. */
    for (int i = 0; i < trials; i++) {
        int w = 0;
        for (int r = 1; r < k; r++)
            if (rows[r].times_ms[i] > rows[w].times_ms[i])
                w = r;
        t[i] = rows[w].times_ms[i];
        slowest[w]++;
        g[i] = t[i] > 0 ? total_bytes / (t[i] * 1e6) : 0;
    }
    a->agg_best = 0;
    for (int i = 0; i < trials; i++)
        a->agg_best = g[i] > a->agg_best ? g[i] : a->agg_best;
    a->agg_gbs = median_of(g, trials);
    a->agg_time_ms = median_of(t, trials);
    for (int r = 0; r < k; r++)
        if (a->slowest_rank < 0 || slowest[r] > slowest[a->slowest_rank])
            a->slowest_rank = r;
    free(g);
    free(t);
    free(slowest);
    return true;
}

/* ---- the distributed dot ------------------------------------------------------- */

const char *sl_mpi_transport_name(sl_mpi_transport t)
{
    switch (t) {
    case SL_MPI_CUDA_AWARE: return "CUDA-aware MPI (device pointer to MPI_Allreduce)";
    case SL_MPI_STAGED: return "staged through pinned host memory (cudaMemcpy to cudaMallocHost, then MPI_Allreduce)";
    default: return "host memory (CPU ranks)";
    }
}

sl_mpi_transport sl_mpi_cuda_transport(char *why, size_t len)
{
    const char *force = getenv("STREAMLAB_MPI_STAGED");
    if (force && strcmp(force, "1") == 0) {
        snprintf(why, len, "STREAMLAB_MPI_STAGED=1");
        return SL_MPI_STAGED;
    }
#if defined(OMPI_HAVE_MPI_EXT_CUDA) || defined(MPIX_CUDA_AWARE_SUPPORT)
    /* The run-time answer decides (Open MPI 5 loads its CUDA support at run
     * time; the compile-time MPIX_CUDA_AWARE_SUPPORT only says how the
     * headers were configured). */
#ifdef MPIX_CUDA_AWARE_SUPPORT
    const int built = MPIX_CUDA_AWARE_SUPPORT;
#else
    const int built = -1;
#endif
    if (MPIX_Query_cuda_support() == 1) {
        snprintf(why, len, "MPIX_Query_cuda_support() = 1 (MPIX_CUDA_AWARE_SUPPORT = %d)", built);
        return SL_MPI_CUDA_AWARE;
    }
    snprintf(why, len, "MPIX_Query_cuda_support() = 0 (MPIX_CUDA_AWARE_SUPPORT = %d)", built);
    return SL_MPI_STAGED;
#else
    snprintf(why, len, "this MPI has no MPIX_Query_cuda_support (no CUDA-aware extension)");
    return SL_MPI_STAGED;
#endif
}

static uint64_t dot_seed(uint64_t seed, int rank, int which)
{
    return sl_mix64(seed ^ sl_mix64(((uint64_t)(unsigned)rank << 8) | (uint64_t)which | 0xD07000000000ull));
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Neumaier's compensated sum of exact product pieces: fl(a b) and its
 * rounding error fma(a, b, -fl(a b)), so the sum carries ~2x fp64. */
typedef struct comp_sum {
    double s, c, abs;
} comp_sum;

static void comp_add(comp_sum *k, double x)
{
    double t = k->s + x;
    k->c += fabs(k->s) >= fabs(x) ? (k->s - t) + x : (x - t) + k->s;
    k->s = t;
}

#define REF_CHUNK ((uint64_t)1 << 18)

/* The global reference on rank 0: every rank's elements regenerated from
 * their streams, chunk by chunk across OpenMP threads; chunk sums are
 * combined in chunk order, so the result does not depend on the thread
 * count. */
static sl_status dot_reference(int ranks, sl_dtype dt, uint64_t n, uint64_t seed, double *ref, double *sum_abs,
                               double *sum_abs_partials)
{
    const uint64_t chunks_per_rank = (n + REF_CHUNK - 1) / REF_CHUNK;
    const uint64_t nchunks = chunks_per_rank * (uint64_t)ranks;
    comp_sum *part = calloc(nchunks ? nchunks : 1, sizeof *part);
    if (!part)
        return sl_fail(SL_ERR_NO_MEMORY, "out of host memory for the distributed dot's reference");
    int bad = 0;
#pragma omp parallel
    {
        double *a = malloc(REF_CHUNK * sizeof *a), *b = malloc(REF_CHUNK * sizeof *b);
        float *af = malloc(REF_CHUNK * sizeof *af), *bf = malloc(REF_CHUNK * sizeof *bf);
        if (!a || !b || !af || !bf) {
#pragma omp atomic write
            bad = 1;
        }
#pragma omp for schedule(static)
        for (long long c = 0; c < (long long)nchunks; c++) {
            if (bad)
                continue;
            const int r = (int)((uint64_t)c / chunks_per_rank);
            const uint64_t first = ((uint64_t)c % chunks_per_rank) * REF_CHUNK;
            const uint64_t cnt = n - first < REF_CHUNK ? n - first : REF_CHUNK;
            if (dt == SL_F32) {
                sl_rand_fill(dt, af, cnt, dot_seed(seed, r, 0), first);
                sl_rand_fill(dt, bf, cnt, dot_seed(seed, r, 1), first);
                for (uint64_t i = 0; i < cnt; i++) {
                    a[i] = af[i];
                    b[i] = bf[i];
                }
            } else {
                sl_rand_fill(dt, a, cnt, dot_seed(seed, r, 0), first);
                sl_rand_fill(dt, b, cnt, dot_seed(seed, r, 1), first);
            }
            comp_sum k = {0, 0, 0};
            for (uint64_t i = 0; i < cnt; i++) {
                const double p = a[i] * b[i];
                comp_add(&k, p);
                comp_add(&k, fma(a[i], b[i], -p));
                k.abs += fabs(p);
            }
            part[c] = k;
        }
        free(a);
        free(b);
        free(af);
        free(bf);
    }
    if (bad) {
        free(part);
        return sl_fail(SL_ERR_NO_MEMORY, "out of host memory for the distributed dot's reference chunks");
    }
    comp_sum all = {0, 0, 0};
    double p_abs = 0;
    for (int r = 0; r < ranks; r++) {
        comp_sum one = {0, 0, 0};
        for (uint64_t c = (uint64_t)r * chunks_per_rank; c < (uint64_t)(r + 1) * chunks_per_rank; c++) {
            comp_add(&one, part[c].s);
            comp_add(&one, part[c].c);
            comp_add(&all, part[c].s);
            comp_add(&all, part[c].c);
            all.abs += part[c].abs;
        }
        p_abs += fabs(one.s + one.c);
    }
    *ref = all.s + all.c;
    *sum_abs = all.abs;
    *sum_abs_partials = p_abs;
    free(part);
    return SL_OK;
}

typedef struct dot_bufs {
    sl_ctx *ctx;
    sl_dtype dt;
    size_t es;
    uint64_t n;
    void *a, *b, *res; /* the context's memory */
    void *host;        /* the partial in host memory: pinned (staged), or res itself on the CPU */
    bool pinned;
    sl_mpi_transport tr;
    MPI_Datatype type;
    bool drop;         /* test hook: send 0 instead of the partial in the checks */
} dot_bufs;

/* One distributed dot: the local partial, then the all-reduce. Times in
 * seconds; *global is the sum as every rank holds it. */
static sl_status dot_once(sl_mpi *m, dot_bufs *d, double *t_local, double *t_reduce, double *global, bool check)
{
    const double t0 = now_s();
    sl_status st = sl_dot(d->ctx, d->dt, (size_t)d->n, d->a, d->b, d->res, d->ctx->stream);
    if (st == SL_OK)
        st = d->ctx->ops->sync(d->ctx);
    const double t1 = now_s();
    /* Every rank must reach the all-reduce, a failed one too: agree first
     * (outside the timed part). */
    const int first = sl_mpi_all_min(m, st == SL_OK ? m->size : m->rank);
    if (first < m->size)
        return st != SL_OK ? sl_fail(st, "rank %d (host %s): the local dot failed: %s", m->rank, m->host,
                                     sl_last_error())
                           : sl_fail(SL_ERR_INTERRUPTED, "rank %d (host %s)'s local dot failed", first,
                                     m->hosts[first]);
    const double t2 = now_s();
    MPI_Request req;
    void *buf = d->tr == SL_MPI_CUDA_AWARE ? d->res : d->host;
    if (d->tr == SL_MPI_STAGED && (st = d->ctx->ops->download(d->ctx, d->host, d->res, d->es)) != SL_OK)
        return st;
    if (check && d->drop) {
        const unsigned char zero[8] = {0};
        if (d->tr == SL_MPI_CUDA_AWARE)
            d->ctx->ops->upload(d->ctx, d->res, zero, d->es);
        else
            memset(d->host, 0, d->es);
    }
    MPI_Iallreduce(MPI_IN_PLACE, buf, 1, d->type, MPI_SUM, m->rows, &req);
    sl_mpi_wait(m, &req);
    const double t3 = now_s();
    *t_local = t1 - t0;
    *t_reduce = t3 - t2;
    double v;
    if (d->tr == SL_MPI_CUDA_AWARE) {
        unsigned char tmp[8];
        if ((st = d->ctx->ops->download(d->ctx, tmp, d->res, d->es)) != SL_OK)
            return st;
        v = d->dt == SL_F32 ? (double)*(float *)(void *)tmp : *(double *)(void *)tmp;
    } else {
        v = d->dt == SL_F32 ? (double)*(float *)d->host : *(double *)d->host;
    }
    *global = v;
    return SL_OK;
}

static void dot_free(dot_bufs *d)
{
    if (d->a)
        d->ctx->ops->free(d->ctx, d->a);
    if (d->b)
        d->ctx->ops->free(d->ctx, d->b);
    if (d->res)
        d->ctx->ops->free(d->ctx, d->res);
#ifdef SL_HAVE_CUDA
    if (d->pinned && d->host)
        cudaFreeHost(d->host);
#endif
}

static sl_status dot_alloc(sl_mpi *m, dot_bufs *d, uint64_t seed)
{
    sl_ctx *ctx = d->ctx;
    sl_status st;
    if ((st = ctx->ops->alloc(ctx, (size_t)d->n * d->es, &d->a)) != SL_OK ||
        (st = ctx->ops->alloc(ctx, (size_t)d->n * d->es, &d->b)) != SL_OK ||
        (st = ctx->ops->alloc(ctx, 16, &d->res)) != SL_OK)
        return st;
    if ((st = ctx->ops->fill_random(ctx, d->dt, d->a, (size_t)d->n, dot_seed(seed, m->rank, 0))) != SL_OK ||
        (st = ctx->ops->fill_random(ctx, d->dt, d->b, (size_t)d->n, dot_seed(seed, m->rank, 1))) != SL_OK ||
        (st = ctx->ops->sync(ctx)) != SL_OK)
        return st;
    if (ctx->info.backend == SL_BACKEND_CPU) {
        d->host = d->res;
        return SL_OK;
    }
#ifdef SL_HAVE_CUDA
    if (d->tr == SL_MPI_STAGED) {
        int token;
        if ((st = ctx->ops->bind(ctx, &token)) != SL_OK)
            return st;
        cudaError_t e = cudaMallocHost(&d->host, 16);
        ctx->ops->unbind(token);
        if (e != cudaSuccess)
            return sl_fail(SL_ERR_CUDA, "cudaMallocHost(16) for the staged all-reduce: %s", cudaGetErrorString(e));
        d->pinned = true;
    }
#endif
    return SL_OK;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

sl_status sl_mpi_dist_dot(sl_mpi *m, sl_ctx *ctx, sl_dtype dt, uint64_t n, uint64_t seed, int warmup, int trials,
                          sl_mpi_dot_result *out)
{
    memset(out, 0, sizeof *out);
    out->n_per_rank = n;
    out->ranks = m->size;
    if (dt != SL_F32 && dt != SL_F64)
        return sl_fail(SL_ERR_UNSUPPORTED, "the distributed dot runs in f32 or f64, not %s", sl_dtype_name(dt));
    dot_bufs d;
    memset(&d, 0, sizeof d);
    d.ctx = ctx;
    d.dt = dt;
    d.es = sl_dtype_size(dt);
    d.n = n;
    d.type = dt == SL_F32 ? MPI_FLOAT : MPI_DOUBLE;
    snprintf(out->transport_why, sizeof out->transport_why, "CPU ranks: the partial is in host memory");
    d.tr = ctx->info.backend == SL_BACKEND_CPU ? SL_MPI_HOST_MEM
                                               : sl_mpi_cuda_transport(out->transport_why, sizeof out->transport_why);
    out->transport = d.tr;
    out->bytes_per_rank = 2.0 * (double)n * (double)d.es;
    m->doing = "the distributed dot's set-up";
    sl_status st = dot_alloc(m, &d, seed);
    if (sl_mpi_all_min(m, st == SL_OK) == 0) {
        snprintf(out->message, sizeof out->message, "%s", st != SL_OK ? sl_last_error() : "another rank's set-up failed");
        dot_free(&d);
        return st != SL_OK ? st : sl_fail(SL_ERR_INTERRUPTED, "%s", out->message);
    }
    /* The reference, on rank 0 (the others wait: a long wait for a large
     * K x n is allowed for). */
    m->doing = "the distributed dot's reference (rank 0)";
    double ref = 0, sabs = 0, pabs = 0;
    sl_status rst = m->rank == 0 ? dot_reference(m->size, dt, n, seed, &ref, &sabs, &pabs) : SL_OK;
    double pair[3] = {ref, sabs, pabs};
    MPI_Request req;
    MPI_Ibcast(pair, 3, MPI_DOUBLE, 0, m->rows, &req);
    {
        const double keep = m->timeout_s;
        m->timeout_s = keep * 4;
        sl_mpi_wait(m, &req);
        m->timeout_s = keep;
    }
    if (sl_mpi_all_min(m, rst == SL_OK) == 0) {
        snprintf(out->message, sizeof out->message, "the reference failed on rank 0: %s",
                 m->rank == 0 ? sl_last_error() : "see rank 0");
        dot_free(&d);
        return sl_fail(SL_ERR_NO_MEMORY, "%s", out->message);
    }
    out->ref = pair[0];
    out->sum_abs = pair[1];
    out->sum_abs_partials = pair[2];
    /* Each partial: 1 ulp of dtype (<= 2u |p_r|) plus L 2^-53 S_r; the
     * all-reduce's K - 1 additions in dtype: <= (K - 1) u sum|p_r| to first
     * order. L <= n. The 2x covers the partials' own errors inside the
     * second term and the double's rounding of the reference. */
    const double u = dt == SL_F32 ? ldexp(1.0, -24) : ldexp(1.0, -53);
    out->tol = 2.0 * ((m->size + 1) * u * out->sum_abs_partials + ((double)n + 2) * ldexp(1.0, -53) * out->sum_abs);
    /* Test hook: STREAMLAB_INJECT_DOT_RANK=r drops rank r's partial (it
     * sends 0) in the checks, as a lost or wrong contribution would. */
    const char *drop = getenv("STREAMLAB_INJECT_DOT_RANK");
    d.drop = drop && atoi(drop) == m->rank;

    double tl, tr, got = 0;
    m->doing = "the distributed dot (check before timing)";
    if ((st = dot_once(m, &d, &tl, &tr, &got, true)) != SL_OK)
        goto fail;
    out->got = got;
    out->err = fabs(got - out->ref);
    if (!(out->err <= out->tol)) {
        snprintf(out->message, sizeof out->message,
                 "before timing: the global dot is %.17g, the reference %.17g: error %.3g > bound %.3g", got, out->ref,
                 out->err, out->tol);
        dot_free(&d);
        return sl_fail(SL_ERR_VERIFY, "%s", out->message);
    }
    m->doing = "the distributed dot (warm-up)";
    for (int i = 0; i < warmup; i++)
        if ((st = dot_once(m, &d, &tl, &tr, &got, false)) != SL_OK)
            goto fail;
    double *loc = malloc((size_t)trials * 3 * sizeof *loc);
    if (!loc) {
        st = sl_fail(SL_ERR_NO_MEMORY, "out of host memory for %d trial times", trials);
        goto fail;
    }
    double *red = loc + trials, *tot = red + trials;
    m->doing = "the distributed dot (timed trials)";
    for (int i = 0; i < trials; i++) {
        sl_mpi_step(m, SL_SYNC_OK);
        if ((st = dot_once(m, &d, &tl, &tr, &got, false)) != SL_OK) {
            free(loc);
            goto fail;
        }
        /* The slowest rank's times count (MAX across ranks). */
        double mine[3] = {tl, tr, tl + tr}, worst[3];
        MPI_Iallreduce(mine, worst, 3, MPI_DOUBLE, MPI_MAX, m->rows, &req);
        sl_mpi_wait(m, &req);
        loc[i] = worst[0] * 1e3;
        red[i] = worst[1] * 1e3;
        tot[i] = worst[2] * 1e3;
    }
    out->trials = trials;
    double *s = malloc((size_t)trials * sizeof *s);
    if (s) {
        double *set[3] = {loc, red, tot}, *med[3] = {&out->local_ms, &out->allreduce_ms, &out->total_ms};
        for (int k = 0; k < 3; k++) {
            memcpy(s, set[k], (size_t)trials * sizeof *s);
            qsort(s, (size_t)trials, sizeof *s, cmp_d);
            *med[k] = trials % 2 ? s[trials / 2] : 0.5 * (s[trials / 2 - 1] + s[trials / 2]);
            if (k == 0)
                out->local_ms_min = s[0];
            if (k == 2)
                out->total_ms_min = s[0];
        }
        free(s);
    }
    free(loc);
    /* After timing: the same data, the same bound (the partial's sum order
     * is fixed, so this catches a kernel that changed its answer). */
    m->doing = "the distributed dot (check after timing)";
    if ((st = dot_once(m, &d, &tl, &tr, &got, true)) != SL_OK)
        goto fail;
    out->err = fabs(got - out->ref) > out->err ? fabs(got - out->ref) : out->err;
    out->got = got;
    out->ok = out->err <= out->tol;
    if (!out->ok)
        snprintf(out->message, sizeof out->message,
                 "after timing: the global dot is %.17g, the reference %.17g: error %.3g > bound %.3g", got, out->ref,
                 out->err, out->tol);
    dot_free(&d);
    return out->ok ? SL_OK : sl_fail(SL_ERR_VERIFY, "%s", out->message);
fail:
    snprintf(out->message, sizeof out->message, "%s", sl_last_error());
    dot_free(&d);
    return st;
}
