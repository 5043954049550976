/*
 * cli.h - what the subcommands share. Exit codes: 0 success, 1 a run that
 * failed (a wrong result, a CUDA fault, a write failing mid-run), 2 a usage
 * error (bad flag, size, variant or device; a size that does not fit; an
 * output file that cannot be created at the start), 130 interrupted.
 */
#ifndef SL_CLI_H
#define SL_CLI_H

#include "harness.h"
#include "op.h"
#include "streamlab.h"

#include <stdio.h>

enum { EXIT_RUN_FAILED = 1, EXIT_USAGE = 2, EXIT_INTERRUPTED = 130 };

int cmd_run(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_probe(int argc, char **argv);
int cmd_explain(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_train(int argc, char **argv);

/* Print "streamlab <cmd>: <message>" and a hint to stderr; return 2. */
int cli_usage_error(const char *cmd, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Parse --device: "cpu", "auto" or a CUDA index >= 0. Returns 0 or -1. */
int cli_parse_device(const char *s, int *device);

/* Open a context; with SL_DEVICE_AUTO and no usable GPU, say so in one
 * line on stderr. On failure prints the reason and returns the exit code
 * (2 for a bad or missing device), else 0. */
int cli_open_ctx(const char *cmd, int device, sl_ctx **ctx);

/* Parse the options of a command that takes only --device and --help
 * (list, info). Returns -1 to go on, or the exit code (0 after --help). */
int cli_device_only(const char *cmd, int argc, char **argv, void (*help)(FILE *), int *device);

/* When an output file is "-": standard output carries that data alone, so
 * the human-readable text printed to stdout goes to standard error from
 * here on. Call before opening the outputs; no-op unless any path is "-". */
void cli_data_to_stdout(const char *const *paths, int npaths);

/* A device list naming the CPU and GPUs where there is no GPU: the GPUs
 * are dropped with a message (the CPU runs alone). Returns the new count. */
int cli_drop_missing_gpus(const char *cmd, int *ids, int n);

/* Parse a non-negative int option value within [lo, hi]. */
int cli_parse_int(const char *s, int lo, int hi, int *out);

/* The variants of op on backend that `run` runs, into out[0..max): every
 * one, or the names in list (ceilings and peers always: every ratio needs
 * them), ceilings first, then peers, then the rest in table order. Returns
 * the count. */
int cli_select_variants(const sl_op_desc *op, sl_backend backend, const char *list, const sl_variant **out, int max);

/* The options of `streamlab run` that every sweep shares, in one process
 * (cmd_run.c) and under MPI (cmd_run_mpi.c). */
typedef struct cli_sweep_opts {
    int have_scalar;      /* --scalar / --alpha given: scalar for every op's scalars, else each one's default */
    double scalar;
    const char *variants; /* --variants; NULL or "all": every variant, and no "skip" rows */
    int warmup, trials, cold;
    sl_timer timer;
    uint64_t seed;
} cli_sweep_opts;

/* Fills the config of one sweep (harness.h) of op in dtype on backend over
 * shapes[0..nshapes): its scalars, variants (cli_select_variants, into
 * chosen[0..max)), warm-up, trials, cache, timer, seed and whether a variant
 * without a kernel for dtype is left out quietly. The caller sets the rest
 * (its mode's progress, sync, transfer, stopping rule). */
void cli_sweep_config(sl_run_config *c, const sl_op_desc *op, sl_dtype dtype, sl_backend backend,
                      const sl_shape *shapes, int nshapes, const cli_sweep_opts *o, const sl_variant **chosen,
                      int max);

#endif /* SL_CLI_H */
