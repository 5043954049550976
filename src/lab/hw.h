/*
 * hw.h - the hardware description the bottleneck model runs on.
 *
 * Every parameter carries where its value came from:
 *   queried     the CUDA runtime said so (cudaGetDeviceProperties, attributes)
 *   arch-table  the per-architecture table in hw.c (a whitepaper or a
 *               microbenchmark paper, cited there), for what the driver hides
 *   probe       a profile written by `streamlab probe` on this device
 *   user        a --hw FILE describing a GPU we may not have
 * Precedence: user > probe > queried > arch-table.
 */
#ifndef SL_HW_H
#define SL_HW_H

#include "internal.h"
#include "profile.h"

typedef enum sl_src { SL_SRC_NONE = 0, SL_SRC_ARCH, SL_SRC_QUERIED, SL_SRC_PROBE, SL_SRC_USER } sl_src;

typedef struct sl_param {
    double v;        /* the value, in the unit the table gives; 0 with SL_SRC_NONE */
    sl_src src;
    char ref[96];    /* citation (arch-table), file (probe, user) or API (queried) */
} sl_param;

/* The parameters, in the order hw.c's table lists them. */
typedef enum sl_hw_key {
    HW_SM_COUNT,            /* SMs */
    HW_SM_CLOCK_GHZ,        /* SM clock, GHz */
    HW_MAX_THREADS_PER_SM,  /* resident threads per SM */
    HW_L2_BYTES,            /* L2 capacity, bytes */
    HW_PEAK_DRAM_GBS,       /* theoretical DRAM bandwidth: memory clock x bus width x 2, GB/s */
    HW_DRAM_READ_GBS,       /* achievable read bandwidth, GB/s */
    HW_DRAM_WRITE_GBS,      /* achievable write bandwidth, GB/s */
    HW_DRAM_LATENCY_NS,     /* DRAM latency of one dependent load (pointer chase), ns */
    HW_L2_LATENCY_NS,       /* L2 hit latency of one dependent load, ns */
    HW_L2_GBS,              /* L2 bandwidth, GB/s */
    HW_FP32_LANES_PER_SM,   /* FP32 lanes ("CUDA cores") per SM */
    HW_SCHEDULERS_PER_SM,   /* warp schedulers per SM, one warp instruction each per clock */
    HW_LSU_LANES_PER_SM,    /* load/store lanes per SM (32 = one warp instruction per clock) */
    HW_SMEM_BANKS,          /* shared-memory banks per SM */
    HW_SMEM_BANK_BYTES,     /* bytes per bank per clock */
    HW_LAUNCH_US,           /* kernel launch overhead as events see it, us */
    HW_PCIE_GBS,            /* host <-> device bandwidth per direction, GB/s */
    HW_DRAM_MIXED_WRITE_GBS, /* write bandwidth while reads share the bus (turnarounds), GB/s; 0: as write */
    HW_DEMOTED_LOADS,       /* DRAM time of a read/write kernel with demoted loads / with plain ones; 0: none */
    HW_STATIC_PARTITION,    /* time of a statically partitioned persistent grid / a balanced one, DRAM-bound; 0: none */
    HW_NKEYS
} sl_hw_key;

typedef struct sl_hw {
    char name[128];
    int cc;                 /* compute capability x 10 (90), 0 if unknown */
    sl_param p[HW_NKEYS];
    /* Measured bandwidth vs bytes in flight per SM (probe "bif"); when
     * present the model's latency term reads it instead of one latency. */
    int bif_n;
    double bif_x[SL_PROFILE_MAX_BIF], bif_y[SL_PROFILE_MAX_BIF];
    double knee_bif_per_sm, knee_latency_ns; /* for reports; < 0 if unknown */
    char bif_ref[96];
    /* This GPU (sl_hw_from_ctx; "" from an arch row or a --hw file) and
     * what sl_hw_load_profile found worth a warning about the profile it
     * applied (another GPU, other clocks or ECC; "" when none). */
    char uuid[48];
    int sm_clock_max_mhz, mem_clock_mhz, ecc;
    char profile_warning[800];
} sl_hw;

/* Fill hw->profile_warning when prof (read from path) was measured on
 * another GPU than hw's (UUID), records none, or on this one at other
 * clocks or ECC; empty it otherwise (issue 17). sl_hw_load_profile calls
 * it; `run` and `explain` print the warning. */
void sl_hw_profile_warning(sl_hw *hw, const sl_profile *prof, const char *path);

/* Key name ("sm_count"), unit ("GHz") and one-line meaning. */
const char *sl_hw_key_name(sl_hw_key k);
const char *sl_hw_key_unit(sl_hw_key k);
const char *sl_hw_key_what(sl_hw_key k);
const char *sl_src_name(sl_src s);

/* Fill the arch-table values for compute capability cc (75 = sm_75).
 * Returns SL_ERR_UNSUPPORTED for an architecture the table lacks (the
 * nearest older row is used, and the message says which). */
sl_status sl_hw_from_arch(int cc, sl_hw *hw);

/* The arch table, then what the context queried (CUDA contexts only). */
sl_status sl_hw_from_ctx(const sl_ctx *ctx, sl_hw *hw);

/* Override with a probe profile's measurements (source "probe"). Fields
 * the profile did not measure keep their value. `path` goes into ref. */
void sl_hw_apply_profile(sl_hw *hw, const sl_profile *prof, const char *path);

/* Read a hardware description (schema "streamlab.hw/1"): its "cc" picks the
 * arch-table row, its "params" override it (source "user"). Errors
 * (SL_ERR_IO): unreadable, not JSON, wrong schema, an unknown parameter
 * name (typos must not pass silently), a value that is not a positive
 * number. */
sl_status sl_hw_read_file(const char *path, sl_hw *hw);

/* The same from len bytes of text (not NUL-terminated); path only names
 * the source in messages. The fuzz target tests/fuzz/fuzz_hw.c. */
sl_status sl_hw_parse(const char *text, size_t len, const char *path, sl_hw *hw);

/* Load the profile for hw's device: explicit_path if given, else
 * ./<name>.profile.json, else profiles/<name>.profile.json. Applies it and
 * returns SL_OK; SL_ERR_IO with the reason if an explicit file cannot be
 * read, is malformed, or belongs to another device (unless force: then it
 * is applied anyway and used_path says so); SL_OK with *found = 0 if no
 * default file exists (a default file for another device is skipped). */
sl_status sl_hw_load_profile(sl_hw *hw, const char *explicit_path, int force, int *found, char *used_path,
                             size_t len);

#endif /* SL_HW_H */
