/*
 * profile.h - a device profile: what `streamlab probe` measured on one GPU
 * (or CPU), stored as JSON (schema "streamlab.profile/1") and read back by
 * the bottleneck model, whose parameters it overrides (source "probe").
 */
#ifndef SL_PROFILE_H
#define SL_PROFILE_H

#include "streamlab.h"

#define SL_PROFILE_SCHEMA "streamlab.profile/1"
#define SL_PROFILE_MAX_BIF 128

/* Every measurement is < 0 when it was not measured. */
typedef struct sl_profile {
    char device[128];      /* device name as the driver reports it */
    char backend[8];       /* "cuda" or "cpu" */
    char created[32];      /* ISO 8601 UTC */
    int cc_major, cc_minor;
    int sm_count;
    double peak_gbs;       /* theoretical, for reference */
    /* which GPU and in what state (issue 17): a profile belongs to one
     * machine. "" / -1 when not recorded (profiles before issue 17). */
    char uuid[48];         /* "GPU-..." (sl_device_info.uuid) */
    int sm_clock_max_mhz, mem_clock_mhz; /* cudaDevAttrClockRate, cudaDevAttrMemoryClockRate */
    int sm_clock_now_mhz, mem_clock_now_mhz; /* NVML at the time of the probe */
    int ecc;               /* 1, 0 */
    /* ceilings: best sustained GB/s (bytes read + written) over working sets 4 x L2 .. 4 GiB */
    double copy_memcpy_gbs, copy_sm_gbs, read_gbs, write_gbs, add_gbs;
    /* one plain float4 add kernel, and the same with its loads demoted
     * (ld.global.lu) and its stores plain (issue 17; -1: not measured) */
    double add_plain_gbs, add_demoted_gbs;
    /* pointer-chase latency plateaus */
    double lat_l1_ns, lat_l2_ns, lat_dram_ns;
    double lat_l1_cycles, lat_l2_cycles, lat_dram_cycles;
    /* Little's law: bytes in flight per SM for 90% of the copy ceiling, and
     * the latency it implies (bytes in flight on the chip / bandwidth there) */
    double knee_bif_per_sm, knee_latency_ns, knee_gbs;
    /* launch overhead, microseconds */
    double launch_event_us, launch_b2b_us, launch_graph_us;
    /* L2 read bandwidth, working set well inside L2 */
    double l2_read_gbs;
    /* write-validate: useful-byte bandwidth of coalesced and stride-8 writes */
    double wv_coalesced_gbs, wv_stride8_gbs;
    /* shared memory (probe "smem"): best bytes per SM clock per SM (16-byte
     * words, stride 1), the chip's GB/s at that rate, and the bank-conflict
     * sweep's cost of a 32-way conflict (4-byte words, stride 32) over a
     * conflict-free access, and the largest relative gap between measured
     * cycles and seed 004's predicted wavefronts over the sweep */
    double smem_bytes_per_clk_sm, smem_gbs, smem_conflict32_ratio, smem_sweep_max_err;
    /* probes "l1", "const", "divergence" (issue 11; seed 004): L1 load
     * bytes per SM clock per SM (a working set that fits L1) and the chip's
     * GB/s there; the constant cache's SM clocks per warp access with one
     * address (broadcast) and the cost of 32 distinct addresses over it;
     * time over the uniform case of 2 code paths split inside warps (intra)
     * and between warps (inter), and of 8 paths */
    double l1_bytes_per_clk_sm, l1_gbs, const_broadcast_cycles, const_divergent32_ratio;
    double div_intra2_ratio, div_inter2_ratio, div_intra8_ratio, div_inter8_ratio;
    /* the bandwidth-vs-bytes-in-flight curve (points.bytes_in_flight):
     * bytes in flight per SM, GB/s */
    int bif_n;
    double bif_x[SL_PROFILE_MAX_BIF], bif_y[SL_PROFILE_MAX_BIF];
} sl_profile;

/* All measurements set to -1, strings empty. */
void sl_profile_init(sl_profile *p);

/* Read and validate a profile. Errors (SL_ERR_IO with a message naming the
 * file): unreadable file, not JSON (with the byte offset where parsing
 * stopped, which catches truncation), wrong or missing schema, a known
 * field that is not a number, a negative or non-finite bandwidth/latency. */
sl_status sl_profile_read(const char *path, sl_profile *out);

/* The same from len bytes of text (not NUL-terminated); path only names
 * the source in messages. The fuzz target tests/fuzz/fuzz_profile.c. */
sl_status sl_profile_parse(const char *text, size_t len, const char *path, sl_profile *out);

/* The raw "points" object of a profile file, as a new cJSON object the
 * caller deletes; NULL when the file has none or cannot be read. */
struct cJSON *sl_profile_read_points(const char *path);

/* The profile as JSON text (malloc'd; NULL when out of memory). */
struct cJSON;
char *sl_profile_text(const sl_profile *p, const struct cJSON *points);

/* Write p, plus `points` (a cJSON object of raw curves, may be NULL; it is
 * not consumed), atomically (temporary file, then rename); an existing
 * file is replaced only if it is a profile (sl_output_open). */
sl_status sl_profile_write(const char *path, const sl_profile *p, const struct cJSON *points);

/* "NVIDIA H200" -> "NVIDIA-H200.profile.json" (spaces and slashes to '-'). */
void sl_profile_default_name(const char *device, char *buf, size_t len);

#endif /* SL_PROFILE_H */
