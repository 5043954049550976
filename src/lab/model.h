/*
 * model.h - the analytic bottleneck model (seed 000, "What I Would Do
 * Differently", sections A-G; seed 003, sections A-I).
 *
 * For a kernel (a registry entry) at n elements on a hardware description,
 * compute the time each resource alone would need, take the largest as the
 * kernel body, add the launch overhead, and name the limiter:
 *
 *   T_kernel = T_launch + max(T_DRAM / latency efficiency, T_L2, T_compute,
 *                             T_issue, T_LSU, T_SMEM, T_PCIe, 2 x latency)
 *
 * docs/model.md gives every equation with its source, parameters and blind
 * spots.
 */
#ifndef SL_MODEL_H
#define SL_MODEL_H

#include "hw.h"
#include "op.h"

#include <stdbool.h>

typedef enum sl_bound {
    SL_B_DRAM,     /* bytes / achievable DRAM bandwidth */
    SL_B_LATENCY,  /* DRAM time / latency efficiency (Little's law) */
    SL_B_L2,
    SL_B_COMPUTE,
    SL_B_ISSUE,
    SL_B_LSU,
    SL_B_SMEM,
    SL_B_PCIE,
    SL_B_LAUNCH,
    SL_B_COUNT
} sl_bound;

typedef struct sl_model {
    double ms[SL_B_COUNT];     /* each resource alone, ms; < 0 when it does not apply */
    double latency_eff;        /* bytes in flight / bytes needed, at most 1; < 0 when unknown */
    double bif_per_sm;         /* bytes in flight per SM the kernel keeps */
    double bif_needed_per_sm;  /* bandwidth x latency / SMs */
    double resident_threads;   /* on the whole GPU */
    double bytes;              /* DRAM bytes (0 when L2-resident) */
    double l2_bytes;           /* bytes through L2 */
    bool fits_l2, l2_resident;
    double smem_ways;          /* bank-conflict ways of the conflicted shared accesses (1: none) */
    double floor_ms;           /* two dependent latencies: no kernel body is shorter */
    double body_ms, pred_ms;
    sl_bound limiter;          /* the largest term, launch included */
} sl_model;

/* Predict variant v of op at shape s with inputs of dt. The bytes are
 * sl_variant_traffic's, the flops the op's. attrs (may be NULL) gives the
 * occupancy the kernel really has; without it every SM is assumed full.
 * insts_per_elem > 0 overrides the variant's estimate (a measured value,
 * from --counters). `cold`: the caches start empty (else a working set
 * that fits in L2 is L2-resident).
 * Errors: SL_ERR_INVALID_ARG when hw lacks the SM count, clock or DRAM
 * bandwidth. */
sl_status sl_model_predict(const sl_hw *hw, const sl_op_desc *op, const sl_variant *v, const sl_kernel_attrs *attrs,
                           sl_dtype dt, const sl_shape *s, double insts_per_elem, bool cold, sl_model *out);

/* "DRAM bandwidth", "latency (bytes in flight)", ... */
const char *sl_bound_name(sl_bound b);
/* "DRAM", "latency", "L2", "compute", "issue", "LSU", "SMEM", "PCIe", "launch" */
const char *sl_bound_short(sl_bound b);

/* What would move the limiter, one suggestion per line, with numbers (the
 * seed's FP8 discussion generalised). Returns the number of lines. */
int sl_model_advice(const sl_op_desc *op, const sl_variant *v, sl_dtype dt, const sl_model *m,
                    char lines[][256], int max_lines);

#endif /* SL_MODEL_H */
