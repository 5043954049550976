/*
 * results.h - the run's outputs: the aligned table on stdout, and CSV,
 * JSON and Markdown files rewritten after every row, so an interrupted or
 * failing sweep still leaves valid files holding what it finished.
 */
#ifndef SL_RESULTS_H
#define SL_RESULTS_H

#include "harness.h"
#include "hw.h"

#include <stdio.h>

typedef struct sl_report_opts {
    const char *csv_path;     /* NULL: none */
    const char *json_path;
    const char *md_path;
    bool quiet;               /* no table on stdout */
    const char *command_line; /* recorded in the files */
    const sl_hw *hw;          /* the model's hardware; NULL: no model columns */
    const char *hw_note;      /* where its measured parameters came from, for the header */
    const char *dtype_list;   /* the run's dtypes, "f32,bf16" (NULL: cfg->dtype) */
    const char *alpha_note;   /* a header line for axpy ("alpha = 1.3"), or NULL */
} sl_report_opts;

typedef struct sl_report sl_report;

/* Create the report and its files (truncating them). Fails with SL_ERR_IO
 * and a message naming the path when a file cannot be created. */
sl_status sl_report_open(sl_ctx *ctx, const sl_run_config *cfg, const sl_report_opts *opts, sl_report **out);

/* An sl_row_fn: print the row and rewrite the files. */
void sl_report_row(void *report, const sl_result *r);

/* Record how the sweep ended ("complete", "interrupted" or "failed" with
 * the error), print the notes under the table, write the files a last time
 * and free the report. Returns SL_ERR_IO if a file could not be written. */
sl_status sl_report_close(sl_report *rep, sl_status sweep, const char *error);

/* Rows whose status is neither SL_OK nor skipped (SL_ERR_UNSUPPORTED). */
int sl_report_failed_rows(const sl_report *rep);

#endif /* SL_RESULTS_H */
