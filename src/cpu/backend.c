/*
 * backend.c - the CPU backend: OpenMP threads over host memory.
 *
 * Memory comes from aligned_alloc without being touched; the first write
 * (poison or fill) runs under the same schedule(static) split as the
 * kernels, so on a NUMA machine each page lands on the node of the thread
 * that will use it ("first touch").
 */
#define _GNU_SOURCE
#include "cpu.h"
#include "internal.h"
#include "probe_ops.h"
#include "rng.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef struct cpu_state {
    double t0;
    char *flush_buf;
    size_t flush_bytes;
    void *workspace;
    size_t workspace_bytes;
} cpu_state;

int sl_cpu_threads(void)
{
    return omp_get_max_threads();
}

void sl_cpu_share(size_t total, size_t *lo, size_t *hi)
{
    size_t t = (size_t)omp_get_thread_num(), nt = (size_t)omp_get_num_threads();
    /* 64-byte granules, so no two threads write one cache line. */
    size_t granules = (total + 63) / 64;
    size_t g_lo = granules * t / nt, g_hi = granules * (t + 1) / nt;
    *lo = g_lo * 64 < total ? g_lo * 64 : total;
    *hi = g_hi * 64 < total ? g_hi * 64 : total;
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

static void read_cpu_name(char *out, size_t len)
{
    snprintf(out, len, "CPU");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10) == 0) {
            char *colon = strchr(line, ':');
            if (colon) {
                colon++;
                while (*colon == ' ' || *colon == '\t')
                    colon++;
                colon[strcspn(colon, "\n")] = 0;
                snprintf(out, len, "%s", colon);
            }
            break;
        }
    }
    fclose(f);
}

/* MemAvailable from /proc/meminfo: what new allocations can take without
 * swapping. Falls back to free physical pages. */
static size_t host_mem_available(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    if (f) {
        char line[256];
        unsigned long long kb;
        while (fgets(line, sizeof line, f)) {
            if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1) {
                fclose(f);
                return (size_t)kb * 1024u;
            }
        }
        fclose(f);
    }
    long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? (size_t)pages * (size_t)page : 0;
}

static size_t host_mem_total(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? (size_t)pages * (size_t)page : 0;
}

static void cpu_refresh_info(sl_ctx *ctx)
{
    ctx->info.mem_free = host_mem_available();
    ctx->info.mem_total = host_mem_total();
}

sl_status sl_cpu_ctx_init(sl_ctx *ctx)
{
    cpu_state *s = calloc(1, sizeof *s);
    if (!s)
        return sl_fail(SL_ERR_NO_MEMORY, "out of host memory for the CPU context");
    ctx->state = s;
    ctx->ops = &sl_cpu_ops;
    ctx->stream = NULL;
    sl_device_info *d = &ctx->info;
    d->backend = SL_BACKEND_CPU;
    d->device = SL_DEVICE_CPU;
    read_cpu_name(d->name, sizeof d->name);
    d->sm_count = sl_cpu_threads();
    long llc = sysconf(_SC_LEVEL3_CACHE_SIZE);
    if (llc <= 0)
        llc = sysconf(_SC_LEVEL2_CACHE_SIZE);
    d->l2_bytes = llc > 0 ? (size_t)llc : 0;
    d->peak_gbs = 0.0; /* unknown: the CPU reports against its measured copy ceiling */
    d->nvml_sm_clock_mhz = d->nvml_mem_clock_mhz = d->nvml_power_mw = -1;
    d->ecc_enabled = -1;
    cpu_refresh_info(ctx);
    return SL_OK;
}

static sl_status cpu_alloc(sl_ctx *ctx, size_t bytes, void **out)
{
    (void)ctx;
    size_t rounded = (bytes + 63) / 64 * 64;
    *out = aligned_alloc(64, rounded ? rounded : 64);
    if (!*out)
        return sl_fail(SL_ERR_NO_MEMORY, "aligned_alloc of %zu bytes failed: out of host memory", bytes);
    return SL_OK;
}

static void cpu_free(sl_ctx *ctx, void *p)
{
    (void)ctx;
    free(p);
}

static sl_status cpu_fill_random(sl_ctx *ctx, sl_dtype dt, void *p, size_t n, uint64_t seed)
{
    (void)ctx;
    if (sl_dtype_size(dt) == 0)
        return sl_fail(SL_ERR_INVALID_ARG, "fill_random: dtype %d is not an sl_dtype", (int)dt);
    sl_rand_fill(dt, p, n, seed, 0);
    return SL_OK;
}

static sl_status cpu_poison(sl_ctx *ctx, void *p, size_t bytes)
{
    (void)ctx;
    unsigned char *b = p;
#pragma omp parallel
    {
        size_t lo, hi;
        sl_cpu_share(bytes, &lo, &hi);
        memset(b + lo, 0xff, hi - lo);
    }
    return SL_OK;
}

static sl_status cpu_download(sl_ctx *ctx, void *host, const void *src, size_t bytes)
{
    (void)ctx;
    if (host != src)
        memcpy(host, src, bytes);
    return SL_OK;
}

static sl_status cpu_upload(sl_ctx *ctx, void *dst, const void *host, size_t bytes)
{
    (void)ctx;
    if (dst != host)
        memcpy(dst, host, bytes);
    return SL_OK;
}

static sl_status cpu_flush_cache(sl_ctx *ctx)
{
    cpu_state *s = ctx->state;
    if (!s->flush_buf) {
        size_t bytes = 2 * (ctx->info.l2_bytes ? ctx->info.l2_bytes : (32u << 20));
        s->flush_buf = malloc(bytes);
        if (!s->flush_buf)
            return sl_fail(SL_ERR_NO_MEMORY, "out of host memory for the cache-flush buffer");
        s->flush_bytes = bytes;
    }
    memset(s->flush_buf, 0x5a, s->flush_bytes);
    return SL_OK;
}

static sl_status cpu_timer_start(sl_ctx *ctx)
{
    ((cpu_state *)ctx->state)->t0 = now_ms();
    return SL_OK;
}

static sl_status cpu_timer_stop(sl_ctx *ctx, double *ms)
{
    *ms = now_ms() - ((cpu_state *)ctx->state)->t0;
    return SL_OK;
}

static sl_status cpu_sync(sl_ctx *ctx)
{
    (void)ctx;
    return SL_OK;
}

static size_t cpu_mem_available(sl_ctx *ctx)
{
    (void)ctx;
    return host_mem_available();
}

static sl_status cpu_check_pointer(const sl_ctx *ctx, const void *p)
{
    (void)ctx;
    (void)p;
    return SL_OK;
}

static sl_status cpu_inject_fault(sl_ctx *ctx)
{
    (void)ctx;
    return sl_fail(SL_ERR_INTERNAL, "fault injected by STREAMLAB_INJECT_FAULT (CPU backend)");
}

static sl_status cpu_bind(const sl_ctx *ctx, int *token)
{
    (void)ctx;
    *token = -1;
    return SL_OK;
}

static void cpu_unbind(int token)
{
    (void)token;
}

static sl_status cpu_workspace(sl_ctx *ctx, size_t bytes, void **out)
{
    cpu_state *s = ctx->state;
    *out = NULL;
    if (bytes == 0)
        return SL_OK;
    if (bytes > s->workspace_bytes) {
        void *p = calloc(1, bytes);
        if (!p)
            return sl_fail(SL_ERR_NO_MEMORY, "out of host memory for a %zu-byte workspace", bytes);
        free(s->workspace);
        s->workspace = p;
        s->workspace_bytes = bytes;
    }
    *out = s->workspace;
    return SL_OK;
}

static sl_status cpu_zero(sl_ctx *ctx, void *p, size_t bytes)
{
    (void)ctx;
    memset(p, 0, bytes);
    return SL_OK;
}

static void cpu_fini(sl_ctx *ctx)
{
    cpu_state *s = ctx->state;
    if (s) {
        free(s->flush_buf);
        free(s->workspace);
        free(s);
    }
    ctx->state = NULL;
}

const sl_backend_ops sl_cpu_ops = {
    .name = "cpu",
    .alloc = cpu_alloc,
    .free = cpu_free,
    .fill_random = cpu_fill_random,
    .poison = cpu_poison,
    .download = cpu_download,
    .upload = cpu_upload,
    .flush_cache = cpu_flush_cache,
    .timer_start = cpu_timer_start,
    .timer_stop = cpu_timer_stop,
    .sync = cpu_sync,
    .mem_available = cpu_mem_available,
    .check_pointer = cpu_check_pointer,
    .inject_fault = cpu_inject_fault,
    .refresh_info = cpu_refresh_info,
    .bind = cpu_bind,
    .unbind = cpu_unbind,
    .workspace = cpu_workspace,
    .zero = cpu_zero,
    .fini = cpu_fini,
    .probe = &sl_cpu_probe_ops,
    .counters = NULL,
};
