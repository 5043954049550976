/*
 * input_check.h - what `streamlab report` accepts as a run results file
 * (streamlab.run/1): the fields it reads, each of the right type and in a
 * range real measurements have. The first bad field is named with its
 * JSON path ($.results[3].gbs), so a file that is not ours, or was edited
 * or truncated into nonsense, is refused (exit 2) instead of plotted.
 */
#ifndef SL_INPUT_CHECK_H
#define SL_INPUT_CHECK_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>

/* The largest plausible values: 1 PB/s (no memory is within 100x of it),
 * 2^53 elements (exact in a double, past any memory), 10^6 % of the
 * theoretical peak, and an hour per launch. Ratios to the copy and peer
 * rows need only be finite: at a few thousand elements the copy's time is
 * near the clock's resolution. */
#define SL_CHECK_MAX_GBS 1e6
#define SL_CHECK_MAX_N 9007199254740992.0
#define SL_CHECK_MAX_PCT 1e6
#define SL_CHECK_MAX_MS 3.6e6

/* true if root is a run file the report can plot; false with why filled:
 * "$.results[3].gbs: a number from 0 to 1e+06 (GB/s), not \"fast\"". */
bool sl_check_run_input(const cJSON *root, char *why, size_t len);

/* The same for a probe profile (streamlab.profile/1): its device. */
bool sl_check_profile_input(const cJSON *root, char *why, size_t len);

#endif /* SL_INPUT_CHECK_H */
