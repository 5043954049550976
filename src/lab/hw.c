/*
 * hw.c - see hw.h. The architecture table is at the top, with its sources.
 */
#define _POSIX_C_SOURCE 200809L
#include "hw.h"
#include "internal.h"
#include "jsonparse.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const struct {
    const char *name, *unit, *what;
} keys[HW_NKEYS] = {
    [HW_SM_COUNT] = {"sm_count", "SMs", "streaming multiprocessors"},
    [HW_SM_CLOCK_GHZ] = {"sm_clock_ghz", "GHz", "SM clock (the boost clock the runtime reports)"},
    [HW_MAX_THREADS_PER_SM] = {"max_threads_per_sm", "threads", "resident threads per SM"},
    [HW_L2_BYTES] = {"l2_bytes", "bytes", "L2 capacity"},
    [HW_PEAK_DRAM_GBS] = {"peak_dram_gbs", "GB/s", "theoretical DRAM bandwidth (memory clock x bus x 2)"},
    [HW_DRAM_READ_GBS] = {"dram_read_gbs", "GB/s", "achievable DRAM read bandwidth"},
    [HW_DRAM_WRITE_GBS] = {"dram_write_gbs", "GB/s", "achievable DRAM write bandwidth"},
    [HW_DRAM_LATENCY_NS] = {"dram_latency_ns", "ns", "DRAM latency of a dependent load (pointer chase)"},
    [HW_L2_LATENCY_NS] = {"l2_latency_ns", "ns", "L2 hit latency of a dependent load"},
    [HW_L2_GBS] = {"l2_gbs", "GB/s", "L2 bandwidth"},
    [HW_FP32_LANES_PER_SM] = {"fp32_lanes_per_sm", "lanes", "FP32 lanes per SM (CUDA cores / SMs)"},
    [HW_SCHEDULERS_PER_SM] = {"schedulers_per_sm", "/SM", "warp schedulers per SM"},
    [HW_LSU_LANES_PER_SM] = {"lsu_lanes_per_sm", "lanes", "load/store lanes per SM"},
    [HW_SMEM_BANKS] = {"smem_banks", "banks", "shared-memory banks per SM"},
    [HW_SMEM_BANK_BYTES] = {"smem_bank_bytes", "B/clk", "bytes per bank per clock"},
    [HW_LAUNCH_US] = {"launch_us", "us", "launch overhead of one kernel, event-timed"},
    [HW_PCIE_GBS] = {"pcie_gbs", "GB/s", "host <-> device bandwidth per direction"},
    [HW_DRAM_MIXED_WRITE_GBS] = {"dram_mixed_write_gbs", "GB/s",
                                 "DRAM write bandwidth while reads share the bus (read/write turnarounds)"},
    [HW_DEMOTED_LOADS] = {"demoted_load_factor", "x",
                          "DRAM-bound time of a read/write kernel whose loads carry an eviction hint (lu, nc, cs) "
                          "and whose stores do not, over the same kernel with plain loads"},
    [HW_STATIC_PARTITION] = {"static_partition_factor", "x",
                             "DRAM-bound time of a persistent grid-stride kernel (fixed share per SM) over a balanced grid"},
};

const char *sl_hw_key_name(sl_hw_key k)
{
    return k < HW_NKEYS ? keys[k].name : "?";
}

const char *sl_hw_key_unit(sl_hw_key k)
{
    return k < HW_NKEYS ? keys[k].unit : "?";
}

const char *sl_hw_key_what(sl_hw_key k)
{
    return k < HW_NKEYS ? keys[k].what : "?";
}

const char *sl_src_name(sl_src s)
{
    switch (s) {
    case SL_SRC_ARCH: return "arch-table";
    case SL_SRC_QUERIED: return "queried";
    case SL_SRC_PROBE: return "probe";
    case SL_SRC_USER: return "user";
    default: return "none";
    }
}

/*
 * What the driver does not expose, per architecture. Sources:
 *  [V]  NVIDIA Tesla V100 GPU Architecture whitepaper (2017): SM diagram,
 *       4 processing blocks x (16 FP32, 8 LD/ST); 32 banks x 4 B.
 *  [T]  NVIDIA Turing GPU Architecture whitepaper (2018): 4 x (16 FP32,
 *       4 LD/ST).
 *  [A]  NVIDIA A100 Tensor Core GPU Architecture whitepaper (2020): 4 x
 *       (16 FP32, 8 LD/ST); L2 read bandwidth 5120 B/clk (V100: 2048 B/clk).
 *  [GA] NVIDIA Ampere GA102 GPU Architecture whitepaper (2020): 4 x (32
 *       FP32, 4 LD/ST).
 *  [AD] NVIDIA Ada GPU Architecture whitepaper (2022): 4 x (32 FP32, 4 LD/ST).
 *  [H]  NVIDIA H100 Tensor Core GPU Architecture whitepaper (2022): 4 x (32
 *       FP32, 8 LD/ST), as drawn in its SM diagram.
 *  [B]  NVIDIA Blackwell architecture technical brief (2024): SM as Hopper's
 *       for FP32 (128 per SM).
 *  [CC] Chips and Cheese pointer-chase measurements of GPU memory latency
 *       (V100, T4, A100, A10, RTX 4090, H100 articles, 2021-2023): unloaded
 *       DRAM latency of 400-600 ns, rounded here; under load it grows, which
 *       is why the probe's Little's-law knee replaces it.
 *  [PCI] PCI-SIG link rates: x16 gen3 15.8, gen4 31.5, gen5 63 GB/s per
 *       direction; we take ~80% as achievable.
 *  [D]  DESIGN.md: an empty kernel takes 4.2-4.5 us event-timed on an H200.
 *  [SP] Issue 17, bench/results/h200-model-2026-11-23b.md (align_bench
 *       persist): on an H200, a float4 add over a persistent grid that
 *       hands each SM a fixed share took 1.055 x the time of the same add
 *       over 4 KiB blocks (and of a persistent grid taking chunks from an
 *       atomic counter: 1.04), at 2^26 and 2^28 floats; its SMs finished
 *       145-192 us after the first start, the balanced grid's 185-187 us.
 *       Measured on the H200 only: the sm_90 row uses it for H100s too.
 *  [DL] Issue 17, bench/results/h200-model-2026-11-23c.md (align_bench
 *       hints): on an H200, a float4 kernel reading two streams and
 *       writing one at 4342 GB/s with plain loads ran at 4130 with
 *       ld.global.lu or ld.global.nc.L1::no_allocate loads (and 4126 with
 *       ld.global.cs) and plain stores: 1.051; read-only streams lost
 *       nothing (0.99-1.01 x), one read with one write 1.024. The
 *       ceilings probe measures it per device (profile ceilings
 *       add_plain_gbs / add_demoted_gbs); this is the fallback.
 * Estimates with no published source are marked "est." in the ref string;
 * `streamlab probe` measures the ones that matter most (DRAM latency, L2
 * bandwidth, launch overhead) on the device itself.
 */
typedef struct arch_row {
    int cc;
    const char *arch;
    double fp32, sched, lsu, banks, bank_bytes, l2_bytes_per_clk, dram_latency_ns, l2_latency_ns, launch_us, pcie_gbs;
    const char *ref_sm, *ref_l2;
} arch_row;

static const arch_row arch_table[] = {
    {70, "Volta", 64, 4, 32, 32, 4, 2048, 450, 200, 5.0, 12.6, "V100 whitepaper [V]", "A100 whitepaper [A] (V100 row)"},
    {75, "Turing", 64, 4, 16, 32, 4, 1024, 500, 200, 5.0, 12.6, "Turing whitepaper [T]", "est. (half of V100)"},
    {80, "Ampere", 64, 4, 32, 32, 4, 5120, 480, 200, 5.0, 25.2, "A100 whitepaper [A]", "A100 whitepaper [A]"},
    {86, "Ampere", 128, 4, 16, 32, 4, 2048, 450, 150, 5.0, 25.2, "GA102 whitepaper [GA]", "est."},
    {89, "Ada", 128, 4, 16, 32, 4, 2048, 450, 150, 5.0, 25.2, "Ada whitepaper [AD]", "est."},
    {90, "Hopper", 128, 4, 32, 32, 4, 5120, 500, 200, 4.4, 50.4, "H100 whitepaper [H]", "est. (A100's 5120 B/clk)"},
    {100, "Blackwell", 128, 4, 32, 32, 4, 5120, 550, 200, 4.4, 50.4, "Blackwell brief [B]", "est."},
    {120, "Blackwell", 128, 4, 16, 32, 4, 2048, 450, 150, 5.0, 50.4, "Blackwell brief [B]", "est."},
};
#define NARCH ((int)(sizeof arch_table / sizeof arch_table[0]))

static void set(sl_hw *hw, sl_hw_key k, double v, sl_src src, const char *ref)
{
    hw->p[k].v = v;
    hw->p[k].src = src;
    snprintf(hw->p[k].ref, sizeof hw->p[k].ref, "%s", ref);
}

sl_status sl_hw_from_arch(int cc, sl_hw *hw)
{
    memset(hw, 0, sizeof *hw);
    hw->cc = cc;
    int row = -1;
    for (int i = 0; i < NARCH; i++)
        if (arch_table[i].cc <= cc)
            row = i;
    if (row < 0)
        return sl_fail(SL_ERR_UNSUPPORTED, "sm_%d is older than the arch table (sm_70 .. sm_120)", cc);
    const arch_row *r = &arch_table[row];
    set(hw, HW_FP32_LANES_PER_SM, r->fp32, SL_SRC_ARCH, r->ref_sm);
    set(hw, HW_SCHEDULERS_PER_SM, r->sched, SL_SRC_ARCH, r->ref_sm);
    set(hw, HW_LSU_LANES_PER_SM, r->lsu, SL_SRC_ARCH, r->ref_sm);
    set(hw, HW_SMEM_BANKS, r->banks, SL_SRC_ARCH, r->ref_sm);
    set(hw, HW_SMEM_BANK_BYTES, r->bank_bytes, SL_SRC_ARCH, r->ref_sm);
    set(hw, HW_DRAM_LATENCY_NS, r->dram_latency_ns, SL_SRC_ARCH, "unloaded, approx. [CC]");
    set(hw, HW_L2_LATENCY_NS, r->l2_latency_ns, SL_SRC_ARCH, "approx. [CC]");
    hw->knee_bif_per_sm = hw->knee_latency_ns = -1;
    set(hw, HW_LAUNCH_US, r->launch_us, SL_SRC_ARCH, r->cc == 90 ? "DESIGN.md [D]" : "typical, est.");
    set(hw, HW_PCIE_GBS, r->pcie_gbs, SL_SRC_ARCH, "80% of the x16 link rate [PCI]");
    if (r->cc == 90) {
        set(hw, HW_STATIC_PARTITION, 1.055, SL_SRC_ARCH, "measured on an H200 [SP]");
        set(hw, HW_DEMOTED_LOADS, 1.051, SL_SRC_ARCH, "measured on an H200 [DL]");
    }
    /* L2 bytes per clock become GB/s once the clock is known: stored as a
     * per-clock figure until sl_hw_finish. */
    set(hw, HW_L2_GBS, r->l2_bytes_per_clk, SL_SRC_ARCH, r->ref_l2);
    hw->p[HW_L2_GBS].v = -r->l2_bytes_per_clk; /* negative: bytes per clock, pending */
    if (r->cc != cc)
        return sl_fail(SL_ERR_UNSUPPORTED, "sm_%d is not in the arch table: using the sm_%d (%s) row", cc, r->cc,
                       r->arch);
    return SL_OK;
}

/* Derived values once the clock and the peak are known. */
static void finish(sl_hw *hw)
{
    sl_param *l2 = &hw->p[HW_L2_GBS];
    if (l2->v < 0) {
        double clk = hw->p[HW_SM_CLOCK_GHZ].v;
        l2->v = clk > 0 ? -l2->v * clk : 0;
        char ref[sizeof l2->ref];
        snprintf(ref, sizeof ref, "B/clk x SM clock; %.70s", l2->ref);
        memcpy(l2->ref, ref, sizeof ref);
        if (clk <= 0)
            l2->src = SL_SRC_NONE;
    }
    /* Without a probe, achievable bandwidth is the theoretical peak (the
     * seed's T_DRAM). */
    for (int k = HW_DRAM_READ_GBS; k <= HW_DRAM_WRITE_GBS; k++) {
        if (hw->p[k].src == SL_SRC_NONE && hw->p[HW_PEAK_DRAM_GBS].v > 0) {
            hw->p[k].v = hw->p[HW_PEAK_DRAM_GBS].v;
            hw->p[k].src = hw->p[HW_PEAK_DRAM_GBS].src;
            snprintf(hw->p[k].ref, sizeof hw->p[k].ref, "= theoretical peak (no probe)");
        }
    }
}

sl_status sl_hw_from_ctx(const sl_ctx *ctx, sl_hw *hw)
{
    const sl_device_info *d = &ctx->info;
    if (d->backend != SL_BACKEND_CUDA)
        return sl_fail(SL_ERR_UNSUPPORTED, "the model needs a GPU description: use a CUDA device or --hw FILE");
    int cc = d->cc_major * 10 + d->cc_minor;
    sl_status st = sl_hw_from_arch(cc, hw);
    if (st != SL_OK && st != SL_ERR_UNSUPPORTED)
        return st;
    snprintf(hw->name, sizeof hw->name, "%s", d->name);
    snprintf(hw->uuid, sizeof hw->uuid, "%s", d->uuid);
    hw->sm_clock_max_mhz = d->sm_clock_khz / 1000;
    hw->mem_clock_mhz = d->mem_clock_khz / 1000;
    hw->ecc = d->ecc_enabled;
    set(hw, HW_SM_COUNT, d->sm_count, SL_SRC_QUERIED, "cudaDeviceProp.multiProcessorCount");
    set(hw, HW_SM_CLOCK_GHZ, d->sm_clock_khz / 1e6, SL_SRC_QUERIED, "cudaDevAttrClockRate");
    set(hw, HW_MAX_THREADS_PER_SM, d->max_threads_per_sm, SL_SRC_QUERIED,
        "cudaDeviceProp.maxThreadsPerMultiProcessor");
    set(hw, HW_L2_BYTES, (double)d->l2_bytes, SL_SRC_QUERIED, "cudaDeviceProp.l2CacheSize");
    set(hw, HW_PEAK_DRAM_GBS, d->peak_gbs, SL_SRC_QUERIED, "cudaDevAttrMemoryClockRate x GlobalMemoryBusWidth x 2");
    finish(hw);
    return SL_OK;
}

void sl_hw_apply_profile(sl_hw *hw, const sl_profile *prof, const char *path)
{
    char ref[96];
    snprintf(ref, sizeof ref, "%.95s", path);
    /* Reads and writes from the read-only and write-only ceilings. */
    if (prof->read_gbs > 0 && hw->p[HW_DRAM_READ_GBS].src != SL_SRC_USER)
        set(hw, HW_DRAM_READ_GBS, prof->read_gbs, SL_SRC_PROBE, ref);
    if (prof->write_gbs > 0 && hw->p[HW_DRAM_WRITE_GBS].src != SL_SRC_USER)
        set(hw, HW_DRAM_WRITE_GBS, prof->write_gbs, SL_SRC_PROBE, ref);
    /* Writes mixed with reads (docs/model.md, "Read/write mix"): the copy
     * kernel's ceiling is half reads, half writes; with the reads at the
     * read ceiling, the time left over is what its writes cost:
     * 0.5 / copy = 0.5 / read + 0.5 / mixed_write. */
    if (prof->copy_sm_gbs > 0 && prof->read_gbs > 0 && hw->p[HW_DRAM_MIXED_WRITE_GBS].src != SL_SRC_USER) {
        const double left = 1.0 / prof->copy_sm_gbs - 0.5 / prof->read_gbs;
        if (left > 0) {
            char why[96];
            snprintf(why, sizeof why, "%.50s: 0.5/(1/copy_sm - 0.5/read)", ref);
            set(hw, HW_DRAM_MIXED_WRITE_GBS, 0.5 / left, SL_SRC_PROBE, why);
        }
    }
    /* Demoted loads (docs/model.md, "Demoted loads"): the ceilings probe's
     * plain add kernel over the same kernel with ld.global.lu loads. */
    if (prof->add_plain_gbs > 0 && prof->add_demoted_gbs > 0 && hw->p[HW_DEMOTED_LOADS].src != SL_SRC_USER) {
        char why[96];
        snprintf(why, sizeof why, "%.60s: add_plain / add_demoted", ref);
        set(hw, HW_DEMOTED_LOADS, prof->add_plain_gbs / prof->add_demoted_gbs, SL_SRC_PROBE, why);
    }
    if (prof->lat_dram_ns > 0 && hw->p[HW_DRAM_LATENCY_NS].src != SL_SRC_USER)
        set(hw, HW_DRAM_LATENCY_NS, prof->lat_dram_ns, SL_SRC_PROBE, ref);
    if (prof->lat_l2_ns > 0 && hw->p[HW_L2_LATENCY_NS].src != SL_SRC_USER)
        set(hw, HW_L2_LATENCY_NS, prof->lat_l2_ns, SL_SRC_PROBE, ref);
    /* Little's law from the measured curve (see model.c). */
    if (prof->bif_n > 0) {
        hw->bif_n = prof->bif_n;
        memcpy(hw->bif_x, prof->bif_x, sizeof hw->bif_x);
        memcpy(hw->bif_y, prof->bif_y, sizeof hw->bif_y);
        snprintf(hw->bif_ref, sizeof hw->bif_ref, "%s", ref);
    }
    /* only measured values: a partial profile (run --reprobe) keeps the rest */
    if (prof->knee_bif_per_sm > 0)
        hw->knee_bif_per_sm = prof->knee_bif_per_sm;
    if (prof->knee_latency_ns > 0)
        hw->knee_latency_ns = prof->knee_latency_ns;
    if (prof->l2_read_gbs > 0 && hw->p[HW_L2_GBS].src != SL_SRC_USER)
        set(hw, HW_L2_GBS, prof->l2_read_gbs, SL_SRC_PROBE, ref);
    if (prof->launch_event_us > 0 && hw->p[HW_LAUNCH_US].src != SL_SRC_USER)
        set(hw, HW_LAUNCH_US, prof->launch_event_us, SL_SRC_PROBE, ref);
    /* Shared memory (probe "smem"): the measured bytes per clock per SM,
     * spread over the banks, so T_SMEM (model.c) reads it. */
    if (prof->smem_bytes_per_clk_sm > 0 && hw->p[HW_SMEM_BANKS].v > 0 && hw->p[HW_SMEM_BANK_BYTES].src != SL_SRC_USER) {
        char why[96];
        snprintf(why, sizeof why, "%.60s: smem B/clk/SM / banks", ref);
        set(hw, HW_SMEM_BANK_BYTES, prof->smem_bytes_per_clk_sm / hw->p[HW_SMEM_BANKS].v, SL_SRC_PROBE, why);
    }
}

void sl_hw_profile_warning(sl_hw *hw, const sl_profile *prof, const char *path)
{
    hw->profile_warning[0] = 0;
    if (!hw->uuid[0])
        return; /* an arch row or a --hw file: no GPU to compare with */
    if (!prof->uuid[0]) {
        snprintf(hw->profile_warning, sizeof hw->profile_warning,
                 "profile %.200s records no GPU UUID (made before issue 17): it may come from another %s, whose "
                 "rates differ by up to ~10%% (docs/model.md); `streamlab probe` remakes it here",
                 path, hw->name);
    } else if (strcmp(prof->uuid, hw->uuid) != 0) {
        snprintf(hw->profile_warning, sizeof hw->profile_warning,
                 "profile %.120s was measured on %s, this GPU is %s: rates differ by up to ~10%% between two %s "
                 "(docs/model.md); `streamlab probe` remakes it here, `run --reprobe` refreshes its DRAM rates",
                 path, prof->uuid, hw->uuid, hw->name);
    } else if ((prof->sm_clock_max_mhz > 0 && hw->sm_clock_max_mhz > 0 && prof->sm_clock_max_mhz != hw->sm_clock_max_mhz) ||
               (prof->mem_clock_mhz > 0 && hw->mem_clock_mhz > 0 && prof->mem_clock_mhz != hw->mem_clock_mhz) ||
               (prof->ecc >= 0 && hw->ecc >= 0 && prof->ecc != hw->ecc)) {
        snprintf(hw->profile_warning, sizeof hw->profile_warning,
                 "profile %.200s was measured on this GPU at SM %d / memory %d MHz, ECC %d; now %d / %d MHz, ECC %d",
                 path, prof->sm_clock_max_mhz, prof->mem_clock_mhz, prof->ecc, hw->sm_clock_max_mhz,
                 hw->mem_clock_mhz, hw->ecc);
    }
}

sl_status sl_hw_load_profile(sl_hw *hw, const char *explicit_path, int force, int *found, char *used_path,
                             size_t len)
{
    *found = 0;
    char cand[2][512];
    int ncand = 0;
    if (explicit_path) {
        snprintf(cand[ncand++], sizeof cand[0], "%s", explicit_path);
    } else {
        char name[256];
        sl_profile_default_name(hw->name, name, sizeof name);
        snprintf(cand[ncand++], sizeof cand[0], "%s", name);
        snprintf(cand[ncand++], sizeof cand[0], "profiles/%s", name);
    }
    for (int i = 0; i < ncand; i++) {
        if (!explicit_path && access(cand[i], R_OK) != 0)
            continue;
        sl_profile prof;
        sl_status st = sl_profile_read(cand[i], &prof);
        if (st != SL_OK)
            return st;
        const int other = strcmp(prof.device, hw->name) != 0;
        if (other && !explicit_path)
            continue;
        if (other && !force)
            return sl_fail(SL_ERR_IO, "profile %s was measured on %s, not %s (--profile-force uses it anyway)",
                           cand[i], prof.device, hw->name);
        sl_hw_apply_profile(hw, &prof, cand[i]);
        *found = 1;
        sl_hw_profile_warning(hw, &prof, cand[i]);
        if (used_path)
            snprintf(used_path, len, "%s%s%s%s", cand[i], other ? " (forced: measured on " : "",
                     other ? prof.device : "", other ? ")" : "");
        return SL_OK;
    }
    return SL_OK;
}

sl_status sl_hw_read_file(const char *path, sl_hw *hw)
{
    size_t len = 0;
    char *text = sl_read_file(path, &len);
    if (!text)
        return sl_fail(SL_ERR_IO, "--hw %s: cannot read: %s", path, sl_read_error(errno));
    sl_status st = sl_hw_parse(text, len, path, hw);
    free(text);
    return st;
}

sl_status sl_hw_parse(const char *text, size_t len, const char *path, sl_hw *hw)
{
    char why[256];
    cJSON *root = sl_json_parse(text, len, why, sizeof why);
    sl_status st = SL_OK;
    if (!root)
        return sl_fail(SL_ERR_IO, "--hw %s: %s", path, why);
    const cJSON *schema = cJSON_GetObjectItemCaseSensitive(root, "schema");
    const cJSON *cc = cJSON_GetObjectItemCaseSensitive(root, "cc");
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(root, "name");
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(root, "params");
    /* "cc" is "MAJOR.MINOR": 1 to 3 digits, a dot, one digit (the arch
     * table's key is major x 10 + minor). sscanf's %d took signs and
     * trailing text, and "8888888888807.1" overflowed major x 10 (found by
     * tests/fuzz/fuzz_hw). */
    const char *ccs = cJSON_IsString(cc) ? cc->valuestring : "";
    size_t nmaj = strspn(ccs, "0123456789");
    int cc_ok = nmaj >= 1 && nmaj <= 3 && ccs[nmaj] == '.' && ccs[nmaj + 1] >= '0' && ccs[nmaj + 1] <= '9' &&
                ccs[nmaj + 2] == 0;
    int major = cc_ok ? atoi(ccs) : 0, minor = cc_ok ? ccs[nmaj + 1] - '0' : 0;
    if (!cJSON_IsString(schema) || strcmp(schema->valuestring, "streamlab.hw/1") != 0) {
        st = sl_fail(SL_ERR_IO, "--hw %s: schema must be \"streamlab.hw/1\"", path);
    } else if (!cc_ok) {
        st = sl_fail(SL_ERR_IO, "--hw %s: \"cc\" must be a compute capability string such as \"8.9\"", path);
    } else if (!cJSON_IsObject(params)) {
        st = sl_fail(SL_ERR_IO, "--hw %s: \"params\" must be an object of parameter: number", path);
    }
    if (st != SL_OK)
        goto done;
    st = sl_hw_from_arch(major * 10 + minor, hw);
    if (st != SL_OK && st != SL_ERR_UNSUPPORTED)
        goto done;
    st = SL_OK;
    snprintf(hw->name, sizeof hw->name, "%s", cJSON_IsString(name) ? name->valuestring : path);
    const cJSON *item;
    cJSON_ArrayForEach(item, params)
    {
        int k = 0;
        while (k < HW_NKEYS && strcmp(keys[k].name, item->string) != 0)
            k++;
        if (k == HW_NKEYS) {
            char known[1024] = "";
            size_t used = 0;
            for (int j = 0; j < HW_NKEYS; j++)
                used += (size_t)snprintf(known + used, sizeof known - used, "%s%s", j ? ", " : "", keys[j].name);
            st = sl_fail(SL_ERR_IO, "--hw %s: unknown parameter \"%s\" (known: %s)", path, item->string, known);
            goto done;
        }
        if (!cJSON_IsNumber(item) || !isfinite(item->valuedouble) || item->valuedouble <= 0) {
            st = sl_fail(SL_ERR_IO, "--hw %s: \"%s\" must be a positive number", path, item->string);
            goto done;
        }
        set(hw, (sl_hw_key)k, item->valuedouble, SL_SRC_USER, path);
    }
    finish(hw);
    /* Each value is finite, but a derived one need not be: "sm_clock_ghz":
     * 1e308 made l2_gbs (bytes per clock x clock) infinite (found by
     * tests/fuzz/fuzz_hw). */
    for (int k = 0; k < HW_NKEYS; k++) {
        if (!isfinite(hw->p[k].v)) {
            st = sl_fail(SL_ERR_IO, "--hw %s: %s comes out infinite from the values given (one is far too large)",
                         path, keys[k].name);
            goto done;
        }
    }
    if (hw->p[HW_SM_COUNT].v <= 0 || hw->p[HW_SM_CLOCK_GHZ].v <= 0 || hw->p[HW_PEAK_DRAM_GBS].v <= 0)
        st = sl_fail(SL_ERR_IO, "--hw %s: sm_count, sm_clock_ghz and peak_dram_gbs are required", path);
    if (st == SL_OK && hw->p[HW_MAX_THREADS_PER_SM].v <= 0)
        set(hw, HW_MAX_THREADS_PER_SM, 2048, SL_SRC_ARCH, "default 2048 (give max_threads_per_sm)");
done:
    cJSON_Delete(root);
    return st;
}
