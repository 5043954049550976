/*
 * run_mpi_files.h - what rank 0 of `streamlab run` under MPI (cmd_run_mpi.c)
 * keeps of the run, and how it shows it: the JSON (schema
 * streamlab.mpirun/1) and Markdown files, rewritten after every row, and the
 * table on stdout. The rank logic that fills it stays in cmd_run_mpi.c.
 */
#ifndef SL_RUN_MPI_FILES_H
#define SL_RUN_MPI_FILES_H

#include "cli.h"
#include "mpi_lab.h"
#include "record.h"

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdio.h>

#define JSON_MARK "\"streamlab.mpirun/"
#define MD_MARK "# streamlab mpirun"

typedef struct mrow {
    const sl_op_desc *op;
    const sl_variant *v;
    sl_dtype dtype;
    uint64_t n;
    sl_mpi_row *ranks; /* K (rank 0 only) */
    sl_mpi_agg agg;
    bool agg_ok;
    double *solo;      /* K: each rank's GB/s alone, -1 not measured */
    double solo_gbs;   /* median of the measured ones, -1 none */
    double eff;        /* agg / (K x solo_gbs), -1 unknown */
    int failed_rank;   /* -1: none */
    char message[700];
} mrow;

typedef struct mrun {
    sl_mpi *m;
    sl_ctx *ctx;
    mrow *rows;
    int nrows, cap;
    int row_in_sweep, sweep_first; /* the solo phase's position */
    bool solo_phase;
    int solo_rank;
    double *solo_local; /* this rank's solo GB/s per row (-1 not run) */
    int *solo_status;
    int first_failed;   /* -1 */
    char failure[900];
    /* files (rank 0) */
    sl_output json, md;
    bool has_json, has_md;
    const char *json_path, *md_path;
    cJSON *ranks_json;  /* every rank's device record */
    char cmdline[2048], started[32], mpi_lib[256], transport_note[256];
    uint64_t seed;
    int trials, warmup;
    bool cold;
    sl_timer timer;
    const char *status;
    sl_mpi_dot_result *dots;
    sl_dtype *dot_dtypes;
    int ndots;
    bool quiet;
} mrun;

/* The time now, ISO 8601 UTC ("2026-11-26T08:00:00Z"). */
void mrun_now(char *buf, size_t len);

/* Open --json and --md (either path may be NULL). Returns 0, or 1 with the
 * reason printed ("streamlab run: ..."). */
int mrun_open_files(mrun *R, const char *json_path, const char *md_path);

/* Rewrite the files from R (rank 0; a no-op on the others). A FIFO or
 * standard output is written once, when final. */
void mrun_write_files(mrun *R, bool final);

/* Close the files opened by mrun_open_files. */
void mrun_close_files(mrun *R);

/* The table of rows and distributed dots, as MPI mode prints it. */
void mrun_print_table(const mrun *R, FILE *f);

#endif /* SL_RUN_MPI_FILES_H */
