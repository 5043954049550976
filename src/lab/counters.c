/*
 * counters.c - the metric table, the derived values and the checks every
 * build shares before a profiling session reaches CUPTI (src/cuda/cupti.c).
 * See counters.h.
 */
#define _POSIX_C_SOURCE 200809L
#include "counters.h"

#include "counter_ops.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/*
 * The metrics, with Nsight Compute's names (Kernel Profiling Guide,
 * "Metrics Reference" and the section that shows each). All are
 * context-level metrics that CUPTI's range profiler collects on Turing and
 * later, sm_90 included; none is a device-level (NVLink, PCIe) metric.
 */
static const sl_counter_info table[SL_CTR_COUNT] = {
    {SL_CTR_DRAM_READ_BYTES, "dram__bytes_read.sum", "dram_rd", "byte",
     "bytes read from DRAM (device memory) by the range (Memory Workload Analysis: DRAM)"},
    {SL_CTR_DRAM_WRITE_BYTES, "dram__bytes_write.sum", "dram_wr", "byte",
     "bytes written to DRAM by the range; L2 write-backs of dirty lines"},
    {SL_CTR_L2_READ_SECTORS, "lts__t_sectors_op_read.sum", "l2_rd", "sector",
     "32-byte sectors read at the L2 slices, by every requester (SMs, copy engines)"},
    {SL_CTR_L2_WRITE_SECTORS, "lts__t_sectors_op_write.sum", "l2_wr", "sector",
     "32-byte sectors written at the L2 slices, by every requester (SMs, copy engines)"},
    {SL_CTR_L2_READ_HIT_PCT, "lts__t_sector_op_read_hit_rate.pct", "l2_rd_hit", "%",
     "share of L2 read sectors that hit in L2"},
    {SL_CTR_L2_WRITE_HIT_PCT, "lts__t_sector_op_write_hit_rate.pct", "l2_wr_hit", "%",
     "share of L2 write sectors that hit in L2 (near 100% under write-validate allocation)"},
    {SL_CTR_INST_EXECUTED, "smsp__inst_executed.sum", "warp_inst", "inst",
     "warp-level SASS instructions executed (ncu: Executed Instructions)"},
    {SL_CTR_OCCUPANCY_PCT, "sm__warps_active.avg.pct_of_peak_sustained_active", "occupancy", "%",
     "average active warps per active SM cycle over the SM's maximum (ncu: Achieved Occupancy)"},
    {SL_CTR_ELIGIBLE_WARPS, "smsp__warps_eligible.avg.per_cycle_active", "eligible", "warp/cycle",
     "warps ready to issue per scheduler per active cycle (ncu: Eligible Warps Per Scheduler)"},
    {SL_CTR_DURATION_NS, "gpu__time_duration.sum", "gpu_time", "ns",
     "GPU time of the profiled range (ncu: Duration); a range also holds the gaps around and between its launches"},
    {SL_CTR_SMEM_LD_CONFLICTS, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", "smem_ld_conf", "conflict",
     "shared-memory load wavefronts beyond each access's ideal: bank conflicts (ncu: Shared Memory table)"},
    {SL_CTR_SMEM_ST_CONFLICTS, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", "smem_st_conf", "conflict",
     "shared-memory store wavefronts beyond each access's ideal: bank conflicts"},
    {SL_CTR_SMEM_LD_INSTS, "smsp__sass_inst_executed_op_shared_ld.sum", "smem_ld_inst", "inst",
     "warp-level shared-memory load instructions executed (LDS, LDSM)"},
    {SL_CTR_SMEM_ST_INSTS, "smsp__sass_inst_executed_op_shared_st.sum", "smem_st_inst", "inst",
     "warp-level shared-memory store instructions executed (STS)"},
};

int sl_counter_count(void)
{
    return SL_CTR_COUNT;
}

const sl_counter_info *sl_counter_info_at(int i)
{
    if (i < 0 || i >= SL_CTR_COUNT)
        return NULL;
    return &table[i];
}

const sl_counter_info *sl_counter_find(const char *name)
{
    if (!name)
        return NULL;
    for (int i = 0; i < SL_CTR_COUNT; i++)
        if (strcmp(table[i].metric, name) == 0)
            return &table[i];
    for (int i = 0; i < SL_CTR_COUNT; i++)
        if (strcmp(table[i].column, name) == 0)
            return &table[i];
    return NULL;
}

void sl_counters_reset(sl_counters *c)
{
    if (c)
        memset(c, 0, sizeof *c);
}

/* ---- derived values ------------------------------------------------------ */

/* Counter id of c, or -1 when c is not valid or the counter is missing,
 * negative or not finite. */
static double get(const sl_counters *c, sl_counter_id id)
{
    if (!c || !c->valid || (int)id < 0 || (int)id >= SL_CTR_COUNT || !c->has[id])
        return -1.0;
    double v = c->value[id];
    if (!isfinite(v) || v < 0.0)
        return -1.0;
    return v;
}

double sl_counters_dram_bytes(const sl_counters *c)
{
    double r = get(c, SL_CTR_DRAM_READ_BYTES), w = get(c, SL_CTR_DRAM_WRITE_BYTES);
    if (r < 0.0 || w < 0.0)
        return -1.0;
    return r + w;
}

double sl_counters_bytes_ratio(const sl_counters *c, double model_bytes)
{
    double b = sl_counters_dram_bytes(c);
    if (b < 0.0 || !(model_bytes > 0.0) || !isfinite(model_bytes))
        return -1.0;
    return b / model_bytes;
}

double sl_counters_insts_per_elem(const sl_counters *c, double n, int warp_size)
{
    double w = get(c, SL_CTR_INST_EXECUTED);
    if (w < 0.0 || !(n > 0.0) || !isfinite(n) || warp_size <= 0)
        return -1.0;
    return w * (double)warp_size / n;
}

double sl_counters_warp_insts_per_elem(const sl_counters *c, double n)
{
    double w = get(c, SL_CTR_INST_EXECUTED);
    if (w < 0.0 || !(n > 0.0) || !isfinite(n))
        return -1.0;
    return w / n;
}

double sl_counters_bytes_per_inst(const sl_counters *c)
{
    double b = sl_counters_dram_bytes(c), w = get(c, SL_CTR_INST_EXECUTED);
    if (b < 0.0 || !(w > 0.0))
        return -1.0;
    return b / w;
}

double sl_counters_sector_ratio(const sl_counters *c)
{
    double r = get(c, SL_CTR_DRAM_READ_BYTES), w = get(c, SL_CTR_DRAM_WRITE_BYTES);
    if (r < 0.0 || !(w > 0.0))
        return -1.0;
    return r / w;
}

double sl_counters_smem_conflicts_per_inst(const sl_counters *c)
{
    double cl = get(c, SL_CTR_SMEM_LD_CONFLICTS), cs = get(c, SL_CTR_SMEM_ST_CONFLICTS);
    double il = get(c, SL_CTR_SMEM_LD_INSTS), is = get(c, SL_CTR_SMEM_ST_INSTS);
    if (cl < 0.0 || cs < 0.0 || il < 0.0 || is < 0.0 || !(il + is > 0.0))
        return -1.0;
    return (cl + cs) / (il + is);
}

/* ---- formatting ---------------------------------------------------------- */

/* v with a decimal SI prefix: "%.2f<sep><prefix><unit>", plain "%.0f" below
 * 1000 (counts and bytes are whole numbers there). */
static void si(char *buf, size_t len, double v, const char *sep, const char *unit)
{
    static const char *const prefix[] = {"", "k", "M", "G", "T", "P"};
    int p = 0;
    double x = v;
    while (x >= 1000.0 && p < 5) {
        x /= 1000.0;
        p++;
    }
    if (p == 0)
        snprintf(buf, len, "%.0f%s%s", x, unit[0] ? sep : "", unit);
    else
        snprintf(buf, len, "%.2f%s%s%s", x, sep, prefix[p], unit);
}

void sl_counters_format(const sl_counters *c, sl_counter_id id, char *buf, size_t len)
{
    if (!buf || len == 0)
        return;
    double v = get(c, id);
    if (v < 0.0) {
        snprintf(buf, len, "-");
        return;
    }
    switch (id) {
    case SL_CTR_DRAM_READ_BYTES:
    case SL_CTR_DRAM_WRITE_BYTES:
        si(buf, len, v, " ", "B");
        break;
    case SL_CTR_L2_READ_SECTORS:
    case SL_CTR_L2_WRITE_SECTORS:
    case SL_CTR_INST_EXECUTED:
    case SL_CTR_SMEM_LD_CONFLICTS:
    case SL_CTR_SMEM_ST_CONFLICTS:
    case SL_CTR_SMEM_LD_INSTS:
    case SL_CTR_SMEM_ST_INSTS:
        si(buf, len, v, "", "");
        break;
    case SL_CTR_L2_READ_HIT_PCT:
    case SL_CTR_L2_WRITE_HIT_PCT:
    case SL_CTR_OCCUPANCY_PCT:
        snprintf(buf, len, "%.1f%%", v);
        break;
    case SL_CTR_ELIGIBLE_WARPS:
        snprintf(buf, len, "%.2f", v);
        break;
    case SL_CTR_DURATION_NS:
        if (v >= 1e6)
            snprintf(buf, len, "%.3f ms", v / 1e6);
        else if (v >= 1e3)
            snprintf(buf, len, "%.1f us", v / 1e3);
        else
            snprintf(buf, len, "%.0f ns", v);
        break;
    default:
        snprintf(buf, len, "%g", v);
        break;
    }
}

/* ---- the session: the backend's profiler, through the context ---------- */

struct sl_counter_session {
    const sl_counter_ops *ops;
    void *impl;
    const char *metrics[SL_CTR_COUNT];
};

sl_status sl_counters_open(sl_ctx *ctx, sl_counter_session **out)
{
    if (out)
        *out = NULL;
    if (!ctx || !out)
        return sl_fail(SL_ERR_INVALID_ARG, "sl_counters_open: NULL %s", !ctx ? "context" : "out");
    const char *hook = getenv("STREAMLAB_COUNTERS_UNAVAILABLE");
    if (hook)
        return sl_fail(SL_ERR_UNSUPPORTED,
                       "hardware counters are switched off by STREAMLAB_COUNTERS_UNAVAILABLE=%s (a test hook)",
                       hook);
    if (ctx->info.backend != SL_BACKEND_CUDA)
        return sl_fail(SL_ERR_UNSUPPORTED,
                       "counters need a CUDA context: this run uses the CPU backend, which has no CUPTI counters");
    if (!ctx->ops->counters)
        return sl_fail(SL_ERR_UNSUPPORTED,
                       "this streamlab was built without CUPTI (not found at configure time, or SL_ENABLE_CUPTI=OFF), "
                       "so it cannot read hardware counters");
    sl_counter_session *s = calloc(1, sizeof *s);
    if (!s)
        return sl_fail(SL_ERR_NO_MEMORY, "out of host memory for a counter session");
    s->ops = ctx->ops->counters;
    for (int i = 0; i < SL_CTR_COUNT; i++)
        s->metrics[i] = table[i].metric;
    sl_status st = s->ops->open(ctx, s->metrics, SL_CTR_COUNT, &s->impl);
    if (st != SL_OK) {
        free(s);
        return st;
    }
    *out = s;
    return SL_OK;
}

void sl_counters_set_flush(sl_counter_session *s, bool flush)
{
    if (s)
        s->ops->set_flush(s->impl, flush);
}

static double now_ms(void)
{
    struct timespec ts;
    if (timespec_get(&ts, TIME_UTC) != TIME_UTC)
        return 0.0;
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

sl_status sl_counters_collect(sl_counter_session *s, sl_counters_launch_fn fn, void *user, sl_counters *out)
{
    sl_counters_reset(out);
    if (!s || !fn || !out)
        return sl_fail(SL_ERR_INVALID_ARG, "sl_counters_collect: NULL %s", !s ? "session" : !fn ? "fn" : "out");
    double t0 = now_ms();
    sl_status st = s->ops->collect(s->impl, fn, user, out->value, out->has, &out->passes);
    out->valid = st == SL_OK;
    out->collect_ms = now_ms() - t0;
    return st;
}

void sl_counters_close(sl_counter_session *s)
{
    if (s) {
        s->ops->close(s->impl);
        free(s);
    }
}
