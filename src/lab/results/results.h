/*
 * results.h - a run's outputs: the aligned table on stdout, and CSV, JSON
 * and Markdown files rewritten (JSON, Markdown) or appended and flushed
 * (CSV) after every row, so an interrupted or failing sweep still leaves
 * valid files holding what it finished. One writer per format behind one
 * interface (writer.h); this is the lifecycle they share. The model's
 * prediction arrives with the row (sl_result.model), computed beside the
 * harness, not here.
 */
#ifndef SL_RESULTS_H
#define SL_RESULTS_H

#include "harness.h"

#include <stdio.h>

/* What the files record about the run as a whole. */
typedef struct sl_report_meta {
    sl_ctx *const *ctxs;      /* every device the run uses, in --devices order (rows name theirs) */
    int nctx;
    const char *command_line; /* recorded in the files */
    const char *ops;          /* the op list as run: "add", or "copy,scale,add,..." */
    const char *dtypes;       /* "f32,bf16" */
    const uint64_t *sizes;    /* element counts of the 1-D ops (NULL: none ran); 0 for a relative size
                                 (resolved per device, op and dtype) */
    const char *sizes_given;  /* --sizes as given when it has relative sizes, else NULL */
    int nsizes;
    const char *shapes;       /* the 2-D ops' shape lists as given ("op: list; ..."), or NULL */
    int warmup, trials;
    double stdrel;            /* --stdrel as a fraction; 0: fixed trials */
    double max_time_s;        /* per row; 0: none */
    bool cold;
    sl_timer timer;
    uint64_t seed;
    uint64_t offset;
    const char *scalars;      /* "alpha = 1.3 (axpy); s = 0.4 (scale, triad, nstream)", or NULL */
    bool model;               /* rows carry the model's prediction: model columns */
    const char *hw_note;      /* where the model's measured parameters came from */
    bool counters;            /* rows carry hardware counters: counter columns */
    bool multi_op;            /* several ops: an op column, and a summary at the end */
} sl_report_meta;

typedef struct sl_report_opts {
    const char *csv_path;  /* NULL: none */
    const char *json_path;
    const char *md_path;
    bool quiet;            /* no table on stdout */
} sl_report_opts;

typedef struct sl_report sl_report;

/* Create the report and its files. Every output is checked first
 * (sl_output_open: never a directory, a dangling link or a FIFO nobody
 * reads; a device or FIFO written in place; "-" standard output; no two
 * options naming one file): SL_ERR_IO with the reason otherwise. */
sl_status sl_report_open(const sl_report_meta *meta, const sl_report_opts *opts, sl_report **out);

/* An sl_row_fn: print the row and update the files. */
void sl_report_row(void *report, sl_result *r);

/* Record how the sweep ended ("complete", "interrupted" or "failed" with
 * the error), print the notes under the table (and the one-line-per-op
 * summary of a multi-op run), write the files a last time and free the
 * report. Returns SL_ERR_IO if a file could not be written. */
sl_status sl_report_close(sl_report *rep, sl_status sweep, const char *error);

/* Rows whose status is neither SL_OK nor skipped (SL_ERR_UNSUPPORTED). */
int sl_report_failed_rows(const sl_report *rep);

#endif /* SL_RESULTS_H */
