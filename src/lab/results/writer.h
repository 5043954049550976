/*
 * writer.h - the interface between the report (report.c) and its writers,
 * one per format: text (stdout), csv, json, md. Each writer keeps its own
 * state; the report gives every writer every row, already formatted into
 * cells (the text and Markdown tables show the same cells).
 */
#ifndef SL_WRITER_H
#define SL_WRITER_H

#include "results.h"
#include "table.h"

/* What an existing output file must contain (in its first 4 KiB) to be
 * replaced (sl_output_open): the JSON schema, the Markdown title, the CSV
 * header. Keep them in step with the writers. */
#define SL_RUN_JSON_MARK "\"streamlab.run/"
#define SL_RUN_MD_MARK "# streamlab run"
#define SL_RUN_CSV_MARK "backend,device,op,"

/* What the tables show of a row. */
typedef struct sl_row_cells {
    char device[16], n[48], mem[8], op[16], variant[24], dtype[16], kind[10], bpe[12], time[48], min[16], median[16], gbs[16], peak[12],
        copy[12], peer[12], check[8], ntrials[12], noise[12], pred[16], limiter[12], ratio[12], bratio[12], ipe[12], l2hit[16], occ[10],
        bconf[12];
} sl_row_cells;

/* One stored row: its cells, its message, and what the summary needs. */
typedef struct sl_row {
    sl_row_cells c;
    char *message;      /* failure or skip detail, or NULL */
    char *ctr_note;
    const sl_op_desc *op;
    const sl_variant *v;
    sl_dtype dtype;
    uint64_t n;
    sl_shape shape;
    sl_status status;
    double gbs_best, gbs, min_ms, max_ms, mean_ms, x_peer;
    double median_ms;   /* < 0: not timed */
    double transfer_ms; /* --include-transfer (GPU rows), or -1 */
    bool gpu;           /* ran on the CUDA backend (the CPU vs GPU comparison) */
} sl_row;

struct sl_report {
    sl_ctx *ctx;
    sl_report_meta meta;
    sl_report_opts opts;
    char started[32];
    sl_row *rows;
    int nrows, cap, failed, skipped, any_l2;
    const char *status; /* "running", then how it ended */
    const char *error;
    int interrupted;    /* rows stopped by an interrupt (not counted as failed) */
    /* The first write that failed after the start (a full disk, /dev/full):
     * warned about once, and sl_report_close's status and message. */
    sl_status write_st;
    char write_error[1024];
    /* the output files, checked and opened before any writer starts */
    sl_output json, md, csv;
    bool has_json, has_md, has_csv;
    /* the writers' states, in writer order */
    void *state[4];
};

/* The columns of the run's table (for this report's options) into cols;
 * returns how many. cells_of() gives a row's cells in the same order. */
int sl_report_columns(const sl_report *rep, sl_col *cols);
void sl_report_cells(const sl_report *rep, const sl_row_cells *c, const char **cells);

/* Header lines every human-readable format shows, in order, into lines[];
 * returns how many (at most 16). */
#define SL_REPORT_HEADER_LINES 16
int sl_report_header(const sl_report *rep, char lines[][512]);

/* The summary of a multi-op run (one line per op, dtype and size: the
 * public function's best GB/s, as BabelStream prints it) on txt and/or md. */
void sl_report_summary(const sl_report *rep, FILE *txt, FILE *md);

const char *sl_row_check_word(sl_status s);

/* CPU vs GPU (compare.h) of a run over both backends, on txt and/or md;
 * nothing otherwise. The JSON form ("cpu_vs_gpu"), or NULL. */
void sl_report_compare(const sl_report *rep, FILE *txt, FILE *md);
struct cJSON *sl_report_compare_json(const sl_report *rep);

typedef struct sl_writer {
    const char *name;
    /* Called once at the start; *state is the writer's. */
    sl_status (*open)(sl_report *rep, void **state);
    /* After every row (rep->rows[rep->nrows - 1] is the new one; r the raw result). */
    sl_status (*row)(sl_report *rep, void *state, const sl_result *r);
    /* At the end, after rep->status is set; frees the state. */
    sl_status (*close)(sl_report *rep, void *state);
} sl_writer;

extern const sl_writer sl_writer_text, sl_writer_csv, sl_writer_json, sl_writer_md;

#endif /* SL_WRITER_H */
