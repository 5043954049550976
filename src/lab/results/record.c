/*
 * record.c - see record.h.
 */
#define _GNU_SOURCE
#include "record.h"

#include <cjson/cJSON.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#ifndef SL_GIT_DESCRIBE
#define SL_GIT_DESCRIBE "unknown"
#endif

const char *sl_clk_reason_name(unsigned long long bit)
{
    switch (bit) {
    case SL_CLK_GPU_IDLE: return "gpu_idle";
    case SL_CLK_APP_CLOCKS: return "applications_clocks_setting";
    case SL_CLK_SW_POWER_CAP: return "sw_power_cap";
    case SL_CLK_HW_SLOWDOWN: return "hw_slowdown";
    case SL_CLK_SYNC_BOOST: return "sync_boost";
    case SL_CLK_SW_THERMAL: return "sw_thermal_slowdown";
    case SL_CLK_HW_THERMAL: return "hw_thermal_slowdown";
    case SL_CLK_HW_POWER_BRAKE: return "hw_power_brake_slowdown";
    case SL_CLK_DISPLAY_CLOCKS: return "display_clock_setting";
    default: return NULL;
    }
}

static void add_int_or_null(cJSON *o, const char *k, long long v)
{
    if (v < 0)
        cJSON_AddNullToObject(o, k);
    else
        cJSON_AddNumberToObject(o, k, (double)v);
}

/* "model name" of /proc/cpuinfo (x86) or "Model"/"CPU part" elsewhere. */
static void host_cpu(char *buf, size_t len)
{
    snprintf(buf, len, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10) == 0 || strncmp(line, "Model", 5) == 0) {
            char *c = strchr(line, ':');
            if (c) {
                c++;
                while (*c == ' ' || *c == '\t')
                    c++;
                c[strcspn(c, "\n")] = '\0';
                snprintf(buf, len, "%s", c);
                break;
            }
        }
    }
    fclose(f);
}

static const char *bind_name(omp_proc_bind_t b)
{
    switch (b) {
    case omp_proc_bind_false: return "false";
    case omp_proc_bind_true: return "true";
    case omp_proc_bind_master: return "primary";
    case omp_proc_bind_close: return "close";
    case omp_proc_bind_spread: return "spread";
    default: return "unknown";
    }
}

static void add_env(cJSON *o, const char *name)
{
    const char *v = getenv(name);
    if (v)
        cJSON_AddStringToObject(o, name, v);
    else
        cJSON_AddNullToObject(o, name);
}

static const char *compute_mode_name(int m)
{
    switch (m) {
    case 0: return "default";
    case 1: return "exclusive_thread";
    case 2: return "prohibited";
    case 3: return "exclusive_process";
    default: return NULL;
    }
}

cJSON *sl_record_run_json(sl_ctx *const *ctxs, int nctx)
{
    cJSON *rec = cJSON_CreateObject();
    cJSON *b = cJSON_AddObjectToObject(rec, "streamlab");
    cJSON_AddStringToObject(b, "version", SL_VERSION_STRING);
    cJSON_AddStringToObject(b, "git_describe", SL_GIT_DESCRIBE);
    cJSON *h = cJSON_AddObjectToObject(rec, "host");
    char cpu[256];
    host_cpu(cpu, sizeof cpu);
    cJSON_AddStringToObject(h, "cpu", cpu);
    cJSON_AddNumberToObject(h, "logical_cpus", (double)sysconf(_SC_NPROCESSORS_ONLN));
    struct utsname u;
    if (uname(&u) == 0) {
        char os[400];
        snprintf(os, sizeof os, "%s %s %s", u.sysname, u.release, u.machine);
        cJSON_AddStringToObject(h, "os", os);
    }
    cJSON *o = cJSON_AddObjectToObject(h, "openmp");
    cJSON_AddNumberToObject(o, "max_threads", omp_get_max_threads());
    cJSON_AddStringToObject(o, "proc_bind", bind_name(omp_get_proc_bind()));
    cJSON_AddNumberToObject(o, "places", omp_get_num_places());
    add_env(o, "OMP_NUM_THREADS");
    add_env(o, "OMP_PROC_BIND");
    add_env(o, "OMP_PLACES");
    cJSON *devs = cJSON_AddArrayToObject(rec, "devices");
    for (int i = 0; i < nctx; i++) {
        sl_ctx *ctx = ctxs[i];
        cJSON *d = cJSON_CreateObject();
        cJSON_AddStringToObject(d, "name", ctx->info.name);
        cJSON_AddStringToObject(d, "backend", ctx->info.backend == SL_BACKEND_CUDA ? "cuda" : "cpu");
        if (ctx->ops->env_static) {
            sl_env_static s;
            ctx->ops->env_static(ctx, &s);
            if (s.driver_version[0])
                cJSON_AddStringToObject(d, "driver_version", s.driver_version);
            else
                cJSON_AddNullToObject(d, "driver_version");
            add_int_or_null(d, "cuda_driver_version", s.cuda_driver_version);
            add_int_or_null(d, "cuda_runtime_version", s.cuda_runtime_version);
            if (s.uuid[0])
                cJSON_AddStringToObject(d, "uuid", s.uuid);
            else
                cJSON_AddNullToObject(d, "uuid");
            if (ctx->info.ecc_enabled >= 0)
                cJSON_AddBoolToObject(d, "ecc", ctx->info.ecc_enabled > 0);
            else
                cJSON_AddNullToObject(d, "ecc");
            if (s.persistence_mode >= 0)
                cJSON_AddBoolToObject(d, "persistence_mode", s.persistence_mode == 1);
            else
                cJSON_AddNullToObject(d, "persistence_mode");
            const char *cm = compute_mode_name(s.compute_mode);
            if (cm)
                cJSON_AddStringToObject(d, "compute_mode", cm);
            else
                cJSON_AddNullToObject(d, "compute_mode");
        } else {
            cJSON_AddNumberToObject(d, "openmp_threads", ctx->info.sm_count);
        }
        cJSON_AddItemToArray(devs, d);
    }
    return rec;
}

static cJSON *sample_json(const sl_env_sample *s)
{
    cJSON *o = cJSON_CreateObject();
    add_int_or_null(o, "sm_clock_mhz", s->sm_mhz);
    add_int_or_null(o, "mem_clock_mhz", s->mem_mhz);
    add_int_or_null(o, "power_mw", s->power_mw);
    add_int_or_null(o, "temperature_c", s->temp_c);
    if (s->has_reasons) {
        cJSON *a = cJSON_AddArrayToObject(o, "clock_event_reasons");
        for (int k = 0; k < 64; k++) {
            unsigned long long bit = 1ULL << k;
            if (s->reasons & bit) {
                const char *n = sl_clk_reason_name(bit);
                char other[32];
                snprintf(other, sizeof other, "0x%llx", bit);
                cJSON_AddItemToArray(a, cJSON_CreateString(n ? n : other));
            }
        }
    } else {
        cJSON_AddNullToObject(o, "clock_event_reasons");
    }
    return o;
}

static bool violated(const sl_result *r, unsigned long long *pw, unsigned long long *th)
{
    *pw = *th = 0;
    if (!r->env0.has_violation || !r->env1.has_violation)
        return false;
    *pw = r->env1.power_violation_ns >= r->env0.power_violation_ns
              ? r->env1.power_violation_ns - r->env0.power_violation_ns
              : 0;
    *th = r->env1.thermal_violation_ns >= r->env0.thermal_violation_ns
              ? r->env1.thermal_violation_ns - r->env0.thermal_violation_ns
              : 0;
    return true;
}

bool sl_record_row_throttled(const sl_result *r)
{
    if (!r->env0.valid)
        return false;
    unsigned long long pw, th;
    const bool v = violated(r, &pw, &th);
    return ((r->env0.reasons | r->env1.reasons) & SL_CLK_THROTTLING) != 0 || (v && (pw > 0 || th > 0));
}

cJSON *sl_record_row_json(const sl_result *r)
{
    if (!r->env0.valid)
        return NULL;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddItemToObject(o, "start", sample_json(&r->env0));
    cJSON_AddItemToObject(o, "end", sample_json(&r->env1));
    unsigned long long pw, th;
    if (violated(r, &pw, &th)) {
        cJSON_AddNumberToObject(o, "power_violation_ns", (double)pw);
        cJSON_AddNumberToObject(o, "thermal_violation_ns", (double)th);
    } else {
        cJSON_AddNullToObject(o, "power_violation_ns");
        cJSON_AddNullToObject(o, "thermal_violation_ns");
    }
    cJSON_AddBoolToObject(o, "throttled", sl_record_row_throttled(r));
    return o;
}

char *sl_record_attach(const char *text, sl_ctx *ctx, const char *command, const sl_env_sample *env0,
                       const sl_env_sample *env1)
{
    cJSON *root = cJSON_Parse(text);
    if (!root)
        return NULL;
    cJSON_DeleteItemFromObjectCaseSensitive(root, "command");
    cJSON_DeleteItemFromObjectCaseSensitive(root, "record");
    cJSON_DeleteItemFromObjectCaseSensitive(root, "nvml");
    cJSON_AddStringToObject(root, "command", command);
    cJSON_AddItemToObject(root, "record", sl_record_run_json(&ctx, 1));
    if (env0->valid) {
        sl_result r; /* only the samples are read */
        memset(&r, 0, sizeof r);
        r.env0 = *env0;
        r.env1 = *env1;
        cJSON_AddItemToObject(root, "nvml", sl_record_row_json(&r));
    }
    char *out = cJSON_Print(root);
    cJSON_Delete(root);
    return out;
}

struct cJSON *sl_device_info_json(const sl_device_info *d)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "backend", d->backend == SL_BACKEND_CUDA ? "cuda" : "cpu");
    cJSON_AddNumberToObject(o, "index", d->device);
    cJSON_AddStringToObject(o, "name", d->name);
    char cc[16];
    snprintf(cc, sizeof cc, "%d.%d", d->cc_major, d->cc_minor);
    cJSON_AddStringToObject(o, "compute_capability", cc);
    cJSON_AddNumberToObject(o, "sm_count", d->sm_count);
    cJSON_AddNumberToObject(o, "l2_bytes", (double)d->l2_bytes);
    cJSON_AddNumberToObject(o, "mem_total_bytes", (double)d->mem_total);
    cJSON_AddNumberToObject(o, "mem_clock_khz", d->mem_clock_khz);
    cJSON_AddNumberToObject(o, "bus_width_bits", d->bus_width_bits);
    cJSON_AddNumberToObject(o, "sm_clock_max_khz", d->sm_clock_khz);
    if (d->peak_gbs > 0)
        cJSON_AddNumberToObject(o, "peak_gbs", d->peak_gbs);
    else
        cJSON_AddNullToObject(o, "peak_gbs");
    cJSON_AddNumberToObject(o, "ecc_enabled", d->ecc_enabled);
    cJSON *nv = cJSON_AddObjectToObject(o, "nvml_at_start");
    cJSON_AddNumberToObject(nv, "sm_clock_mhz", d->nvml_sm_clock_mhz);
    cJSON_AddNumberToObject(nv, "mem_clock_mhz", d->nvml_mem_clock_mhz);
    cJSON_AddNumberToObject(nv, "power_mw", d->nvml_power_mw);
    return o;
}
