/*
 * record.h - the reproducibility record of a results file (issue 14): the
 * host (CPU model, OS, OpenMP threads and binding), streamlab's version and
 * git describe, each device's driver and CUDA versions, UUID, ECC,
 * persistence and compute modes, and per row NVML's clocks, power and
 * temperature at the row's start and end with the clock-event (throttle)
 * reasons seen, a throttled row flagged. The command line and the seed of
 * the random inputs are in the file already ("command", "config.seed").
 */
#ifndef SL_RECORD_H
#define SL_RECORD_H

#include "harness.h"

#include <stdbool.h>

struct cJSON;

/* The run's record: host, build, and every device's fixed facts. */
struct cJSON *sl_record_run_json(sl_ctx *const *ctxs, int nctx);

/* A row's NVML record ("nvml"), or NULL when the row has no samples (CPU
 * rows, no NVML). */
struct cJSON *sl_record_row_json(const sl_result *r);

/* The row saw clocks held down: a power or thermal reason (SL_CLK_THROTTLING)
 * at its start or end, or NVML's power or thermal violation time grew
 * between them. */
bool sl_record_row_throttled(const sl_result *r);

/* A probe profile's text with the record added: "command", "record" (as
 * a run's) and, from env0/env1 (the backend's samples before and after the
 * probes; valid false: none), "nvml" {start, end, throttled}. A new malloc'd
 * text, or NULL when text is not JSON or memory runs out. */
char *sl_record_attach(const char *text, sl_ctx *ctx, const char *command, const sl_env_sample *env0,
                       const sl_env_sample *env1);

/* One device's fixed facts and NVML sample at context creation, as every
 * results file writes them ("device", "devices[]", MPI's per-rank record). */
struct cJSON *sl_device_info_json(const sl_device_info *d);

/* NVML's name of one reason bit ("sw_power_cap"), or NULL. */
const char *sl_clk_reason_name(unsigned long long bit);

#endif /* SL_RECORD_H */
