/*
 * cmd_run_mpi.c - `mpirun -np K streamlab run ...` (issue 15; docs/scale.md).
 *
 * One rank per device. Every rank verifies and times the same sweep on its
 * own device, every timed trial starting after all ranks arrive (the
 * harness's step, sl_mpi_step); rank 0 gathers each row from every rank and
 * reports the per-rank spread, the aggregate (EP-STREAM: all ranks' bytes
 * over the slowest rank's time, per trial) and the aggregate over K x the
 * single-rank figure measured in the same job with the others idle. A
 * failing row on any rank stops every rank after that row; the files keep
 * what finished. With --op dot, the distributed dot (MPI_Allreduce of the
 * partials) follows. Everything MPI lives in src/lab/mpi/.
 *
 * This file is the rank logic: the device of each rank, the barrier-
 * synchronised trials, each rank's rows gathered to rank 0, the aggregate
 * and single-rank figures, the distributed dot. The options it shares with
 * the one-process run are read in run_common.c; rank 0's files and table
 * are written by run_mpi_files.c.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "mpi_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cli_mpi_launched(char *what, size_t len)
{
    static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "MV2_COMM_WORLD_SIZE"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *v = getenv(vars[i]);
        if (v && *v) {
            if (what)
                snprintf(what, len, "%s=%s", vars[i], v);
            return 1;
        }
    }
    return 0;
}

#ifndef SL_HAVE_MPI

int cmd_run_mpi(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    char what[128] = "";
    cli_mpi_launched(what, sizeof what);
#ifndef SL_MPI_WHY
#define SL_MPI_WHY "no MPI was found"
#endif
    fprintf(stderr,
            "streamlab run: started by an MPI launcher (%s), but this streamlab was built without MPI (%s), so MPI "
            "mode (one rank per device, per-rank and aggregate bandwidth) is unavailable. Install an MPI "
            "(Debian/Ubuntu: libopenmpi-dev openmpi-bin, or scripts/deps.sh) and configure with -DSL_MPI=ON "
            "(docs/scale.md). To run one device without MPI, start streamlab without mpirun.\n",
            what, SL_MPI_WHY);
    return EXIT_USAGE;
}

#else /* SL_HAVE_MPI */

#include "harness.h"
#include "interrupt.h"
#include "internal.h"
#include "mpi_lab.h"
#include "record.h"
#include "run_mpi_files.h"
#include "sizes.h"

#include <cjson/cJSON.h>
#include <getopt.h>
#include <signal.h>
#include <unistd.h>

#define MAX_SIZES 64
#define MAX_VARIANTS 64

static void help(FILE *f)
{
    fprintf(f,
            "usage: mpirun -np K streamlab run [options]   (or srun -n K streamlab run ...)\n"
            "\n"
            "MPI mode (docs/scale.md): one rank per device. Every rank verifies and times the same\n"
            "sweep on its own device, each timed trial starting when every rank has arrived (an\n"
            "all-reduce of the ranks' status, i.e. a barrier). Rank 0 prints, per row: each rank's\n"
            "GB/s (min / median / max across ranks), the aggregate (all ranks' bytes over the\n"
            "slowest rank's time of each trial, the median over trials: HPCC EP-STREAM's system\n"
            "figure), the single-rank figure measured in the same job with the others idle (each\n"
            "rank alone in turn, median across ranks), and aggregate / (K x single).\n"
            "With dot among the ops, the distributed dot follows: each rank's partial summed by\n"
            "MPI_Allreduce, checked against a global fp64 reference, time split local / all-reduce.\n"
            "\n"
            "options (as streamlab run, and):\n"
            "  -o, --op NAME|LIST|all   -s, --sizes LIST (elements per rank)   --dtype LIST\n"
            "  --variants LIST   -n, --trials N (at most %d)   --warmup N   --cold   --timer event|wall\n"
            "  --seed N   --scalar X   --json FILE   --md FILE   --quiet   -h, --help\n"
            "  -d, --device local|cpu|LIST  local (default): visible GPU (node-local rank mod the GPUs\n"
            "                    the rank sees; ranks on a node from MPI_Comm_split_type), or the CPU\n"
            "                    where there is no GPU; LIST: entry i for local rank i (CUDA indices\n"
            "                    and/or cpu)\n"
            "  --oversubscribe-gpu  let ranks of a node share a GPU (default: refused)\n"
            "  --solo all|first|none  the single-rank figure: every rank alone in turn (default),\n"
            "                    rank 0 alone, or not measured\n"
            "  --no-dist-dot     no distributed dot\n"
            "  --mpi-timeout SEC the longest a rank waits for the others at one step (default 600);\n"
            "                    past it the rank says so and calls MPI_Abort\n"
            "All ranks must use one backend (all GPUs, or all CPUs). CPU ranks of a node split its\n"
            "cores (OMP_NUM_THREADS overrides).\n"
            "exit codes: 0 ok, 1 a row failed on some rank (named with its host) or a fault, 2 usage\n"
            "error, 3 a rank stopped answering (MPI_Abort), 130 interrupted\n",
            SL_MPI_KEEP);
}

static void on_abort(void *user)
{
    mrun *R = user;
    if (!R || R->m->rank != 0)
        return;
    R->status = "failed";
    snprintf(R->failure, sizeof R->failure, "a rank stopped answering at %s (timeout %.0f s): MPI_Abort",
             R->m->doing ? R->m->doing : "?", R->m->timeout_s);
    mrun_write_files(R, true);
}

/* ---- rows ---------------------------------------------------------------------- */

static mrow *new_row(mrun *R)
{
    if (R->nrows == R->cap) {
        int cap = R->cap ? 2 * R->cap : 64;
        mrow *p = realloc(R->rows, (size_t)cap * sizeof *p);
        if (!p)
            return NULL;
        R->rows = p;
        R->cap = cap;
    }
    mrow *w = &R->rows[R->nrows++];
    memset(w, 0, sizeof *w);
    w->failed_rank = -1;
    w->solo_gbs = w->eff = -1;
    return w;
}

/* The harness's row callback in the phase where all ranks run at once. */
static void on_row_together(void *user, sl_result *r)
{
    mrun *R = user;
    sl_mpi *m = R->m;
    sl_mpi_row mine;
    sl_mpi_row_pack(r, &mine);
    sl_mpi_row *all = m->rank == 0 ? malloc((size_t)m->size * sizeof *all) : NULL;
    if (m->rank == 0 && !all) {
        fprintf(stderr, "streamlab run: out of host memory for a row of %d ranks\n", m->size);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    m->doing = "a row's exchange";
    const int failed = sl_mpi_gather_rows(m, &mine, all);
    if (failed >= 0) {
        /* Every rank stops after this row. */
        sl_harness_request_stop();
        if (R->first_failed < 0)
            R->first_failed = failed;
    }
    m->doing = "a timed row (its checks or trials)";
    if (m->rank != 0)
        return;
    mrow *w = new_row(R);
    if (!w) {
        free(all);
        return;
    }
    w->op = r->op;
    w->v = r->v;
    w->dtype = r->dtype;
    w->n = r->n;
    w->ranks = all;
    w->agg_ok = sl_mpi_aggregate(all, m->size, &w->agg);
    if (failed >= 0) {
        w->failed_rank = failed;
        char n_s[32];
        sl_format_count(r->n, n_s, sizeof n_s);
        size_t ml = strlen(all[failed].message);
        while (ml && (all[failed].message[ml - 1] == '\n' || all[failed].message[ml - 1] == ' '))
            all[failed].message[--ml] = 0;
        snprintf(w->message, sizeof w->message, "rank %d (host %s) failed %s %s %s at n=%s: %s", failed,
                 m->hosts[failed], r->op->name, r->v->name, sl_dtype_name(r->dtype), n_s, all[failed].message);
        if (!R->failure[0])
            snprintf(R->failure, sizeof R->failure, "%s", w->message);
    } else if (!w->agg_ok) {
        for (int k = 0; k < m->size; k++)
            if (all[k].message[0]) {
                snprintf(w->message, sizeof w->message, "rank %d: %s", k, all[k].message);
                break;
            }
    }
    mrun_write_files(R, false);
}

/* The solo phase: only the rank timing alone calls this. */
static void on_row_solo(void *user, sl_result *r)
{
    mrun *R = user;
    const int i = R->sweep_first + R->row_in_sweep++;
    if (i < R->nrows) {
        R->solo_local[i] = r->status == SL_OK ? r->gbs : -1;
        R->solo_status[i] = (int)r->status;
    }
}

/* ---- options -------------------------------------------------------------------- */

typedef struct mopts {
    cli_run_opts c; /* the options every mode of run takes (cli.h) */
    int oversub, solo, dist_dot; /* solo: 2 all, 1 first, 0 none */
    double timeout;
    const cli_run_mode *mode;
} mopts;

/* MPI mode's own options, beside the shared ones. */
enum { O_OVERSUB = CLI_RUN_OPT_MODE, O_SOLO, O_NODOT, O_TIMEOUT, O_CSV };
static const struct option mpi_opts[] = {
    {"csv", required_argument, 0, O_CSV},          {"oversubscribe-gpu", no_argument, 0, O_OVERSUB},
    {"solo", required_argument, 0, O_SOLO},        {"no-dist-dot", no_argument, 0, O_NODOT},
    {"mpi-timeout", required_argument, 0, O_TIMEOUT}, {0, 0, 0, 0}};

static int mpi_option(void *user, int c, const char *arg)
{
    mopts *o = user;
    switch (c) {
    case O_CSV: return cli_run_usage(o->mode, "--csv %s: MPI mode writes --json and --md", arg);
    case O_OVERSUB: o->oversub = 1; break;
    case O_NODOT: o->dist_dot = 0; break;
    case O_SOLO:
        if (strcmp(arg, "all") == 0)
            o->solo = 2;
        else if (strcmp(arg, "first") == 0)
            o->solo = 1;
        else if (strcmp(arg, "none") == 0)
            o->solo = 0;
        else
            return cli_run_usage(o->mode, "--solo wants all, first or none, not '%s'", arg);
        break;
    case O_TIMEOUT: {
        char *end;
        double t = strtod(arg, &end);
        if (!*arg || *end || !(t >= 1 && t <= 86400))
            return cli_run_usage(o->mode, "--mpi-timeout wants seconds from 1 to 86400, not '%s'", arg);
        o->timeout = t;
        break;
    }
    }
    return 0;
}

/* The device of this rank: from --device local|cpu|LIST and the node-local
 * rank. Returns 0 and *dev, or an exit code with the message printed (by
 * this rank, naming it). */
static int pick_device(const sl_mpi *m, const mopts *o, int *dev, char *note, size_t len)
{
    note[0] = 0;
    const int ngpu = sl_mpi_gpu_count();
    if (strcmp(o->c.device_arg, "local") == 0) {
        if (ngpu == 0) {
            *dev = SL_DEVICE_CPU;
            snprintf(note, len, "no GPU on this node: CPU ranks");
            return 0;
        }
        /* Local rank l takes visible GPU l mod (GPUs it sees): with every
         * GPU visible that is GPU l; where the launcher gives each rank its
         * own (Slurm's --gpus-per-task=1, CUDA_VISIBLE_DEVICES) it is that
         * one. Two ranks that still land on one GPU are refused by
         * check_layout (PCI bus ids), unless --oversubscribe-gpu. */
        *dev = m->local_rank % ngpu;
        if (m->local_rank >= ngpu && !o->oversub)
            snprintf(note, len, "more ranks on a node than GPUs each rank sees: checking that no GPU is shared");
        return 0;
    }
    if (strcmp(o->c.device_arg, "cpu") == 0) {
        *dev = SL_DEVICE_CPU;
        return 0;
    }
    /* A list: entry local_rank. */
    char list[256];
    snprintf(list, sizeof list, "%s", o->c.device_arg);
    int ids[64], n = 0;
    char *save = NULL;
    for (char *tok = strtok_r(list, ",", &save); tok && n < 64; tok = strtok_r(NULL, ",", &save)) {
        if (cli_parse_device(tok, &ids[n]) || ids[n] == SL_DEVICE_AUTO) {
            if (m->rank == 0)
                fprintf(stderr, "streamlab run: --device under MPI wants local, cpu, or a list of CUDA indices "
                                "and/or cpu (entry i for local rank i), not '%s'\n", o->c.device_arg);
            return EXIT_USAGE;
        }
        n++;
    }
    if (n == 0 || (m->local_rank >= n && !o->oversub)) {
        fprintf(stderr,
                "streamlab run: rank %d (host %s): --device %s names %d device%s, but this is local rank %d of %d "
                "(entry i serves local rank i; --oversubscribe-gpu reuses the list)\n",
                m->rank, m->host, o->c.device_arg, n, n == 1 ? "" : "s", m->local_rank, m->local_size);
        return EXIT_USAGE;
    }
    *dev = ids[m->local_rank % n];
    return 0;
}

static const char *device_desc(const sl_ctx *ctx, char *buf, size_t len)
{
    if (ctx->info.backend == SL_BACKEND_CPU)
        snprintf(buf, len, "cpu (%d OpenMP threads)", ctx->info.sm_count);
    else
        snprintf(buf, len, "GPU %d, %s", ctx->info.device, ctx->info.name);
    return buf;
}

/* Every rank's device record, gathered on rank 0. */
static cJSON *gather_devices(sl_mpi *m, const sl_ctx *ctx, const char *key, int threads)
{
    typedef struct rec {
        sl_device_info info;
        char key[64];
        int local_rank, local_size, threads;
    } rec;
    rec mine;
    memset(&mine, 0, sizeof mine);
    mine.info = ctx->info;
    snprintf(mine.key, sizeof mine.key, "%s", key);
    mine.local_rank = m->local_rank;
    mine.local_size = m->local_size;
    mine.threads = threads;
    rec *all = m->rank == 0 ? calloc((size_t)m->size, sizeof *all) : NULL;
    MPI_Request req;
    MPI_Igather(&mine, (int)sizeof mine, MPI_BYTE, all, (int)sizeof mine, MPI_BYTE, 0, m->rows, &req);
    sl_mpi_wait(m, &req);
    if (m->rank != 0)
        return NULL;
    cJSON *arr = cJSON_CreateArray();
    for (int r = 0; r < m->size; r++) {
        const sl_device_info *d = &all[r].info;
        cJSON *e = cJSON_CreateObject();
        cJSON_AddNumberToObject(e, "rank", r);
        cJSON_AddStringToObject(e, "host", m->hosts[r]);
        cJSON_AddNumberToObject(e, "local_rank", all[r].local_rank);
        cJSON_AddNumberToObject(e, "local_size", all[r].local_size);
        cJSON_AddStringToObject(e, "device_key", all[r].key);
        if (d->backend == SL_BACKEND_CPU)
            cJSON_AddNumberToObject(e, "openmp_threads", all[r].threads);
        cJSON_AddItemToObject(e, "device", sl_device_info_json(d));
        cJSON_AddItemToArray(arr, e);
    }
    free(all);
    return arr;
}

/* Refuse two ranks of a node on one GPU (unless --oversubscribe-gpu), and
 * a mix of backends. Returns 0 or EXIT_USAGE on every rank. */
static int check_layout(sl_mpi *m, const sl_ctx *ctx, const char *key, int oversub)
{
    char (*keys)[64] = calloc((size_t)m->local_size, sizeof *keys);
    char mine[64];
    snprintf(mine, sizeof mine, "%s", key);
    int bad = 0;
    if (!keys)
        bad = 1;
    else {
        MPI_Request req;
        MPI_Iallgather(mine, 64, MPI_CHAR, keys, 64, MPI_CHAR, m->node, &req);
        sl_mpi_wait(m, &req);
        for (int j = 0; j < m->local_size && !oversub; j++)
            if (j != m->local_rank && strncmp(mine, "cuda:", 5) == 0 && strcmp(keys[j], mine) == 0) {
                if (j > m->local_rank)
                    fprintf(stderr,
                            "streamlab run: ranks on host %s share the GPU at %s (local ranks %d and %d): ranks of "
                            "a node share no GPU unless --oversubscribe-gpu is given; start at most one rank per "
                            "GPU, or give --device cpu\n",
                            m->host, mine + 5, m->local_rank, j);
                bad = 1;
            }
    }
    free(keys);
    const int b = (int)ctx->info.backend;
    const int lo = sl_mpi_all_min(m, b), hi = sl_mpi_all_max(m, b);
    if (lo != hi) {
        if (m->rank == 0)
            fprintf(stderr, "streamlab run: the ranks use different backends (some CPU, some CUDA): every rank "
                            "must run the same sweep; give --device cpu, or one GPU per rank\n");
        bad = 1;
    }
    return sl_mpi_all_max(m, bad) ? EXIT_USAGE : 0;
}

/* ---- a test hook: a wrong result on one rank --------------------------------------- */

/* STREAMLAB_INJECT_CORRUPT=VARIANT (on the rank STREAMLAB_INJECT_RANK
 * names): that variant's launches run, then one element of its first
 * written buffer is overwritten with the poison pattern (a NaN), so the
 * check before timing fails as a wrong kernel would. */
static const sl_variant *g_corrupt_of;
static sl_variant g_corrupt;
static sl_ctx *g_corrupt_ctx;

static int g_stall; /* 1: hang, 2: die (STREAMLAB_INJECT_STALL) */

static sl_status corrupt_launch(const sl_args *a)
{
    if (g_stall == 2)
        raise(SIGKILL); /* a rank killed mid-run */
    while (g_stall == 1)
        pause(); /* a rank that stops answering: the others time out */
    sl_status st = g_corrupt_of->launch(a);
    if (st != SL_OK || (st = g_corrupt_ctx->ops->sync(g_corrupt_ctx)) != SL_OK)
        return st;
    const int k = sl_op_first_written(a->op);
    if (k < 0)
        return st;
    const size_t es = sl_dtype_size(sl_op_buf_dtype(a->op, k, a->dtype, a->out_dtype));
    const size_t at = a->op->bufs[k].scalar ? 0 : a->n / 2;
    if ((st = g_corrupt_ctx->ops->poison(g_corrupt_ctx, (char *)a->buf[k] + at * es, es)) != SL_OK)
        return st;
    return g_corrupt_ctx->ops->sync(g_corrupt_ctx);
}

static void corrupt_hook(sl_ctx *ctx, const sl_variant **chosen, int n)
{
    const char *name = getenv("STREAMLAB_INJECT_CORRUPT");
    /* STREAMLAB_INJECT_STALL=VARIANT:hang|kill: that variant's first launch
     * never returns, or kills the rank (SIGKILL). */
    const char *stall = getenv("STREAMLAB_INJECT_STALL");
    static char stall_name[64];
    if (stall) {
        snprintf(stall_name, sizeof stall_name, "%s", stall);
        char *colon = strchr(stall_name, ':');
        if (colon) {
            *colon = 0;
            g_stall = strcmp(colon + 1, "kill") == 0 ? 2 : 1;
        } else {
            g_stall = 1;
        }
        name = stall_name;
    }
    if (!name)
        return;
    for (int i = 0; i < n; i++)
        if (strcmp(chosen[i]->name, name) == 0 && chosen[i]->launch) {
            g_corrupt_of = chosen[i];
            g_corrupt = *chosen[i];
            g_corrupt.launch = corrupt_launch;
            g_corrupt_ctx = ctx;
            chosen[i] = &g_corrupt;
            return;
        }
}

/* ---- the run ------------------------------------------------------------------- */

typedef struct msweep {
    sl_run_config cfg;
    const sl_variant *chosen[MAX_VARIANTS];
    int first_row, nrows;
} msweep;


/* --op, --dtype: lists of known names. */
static int parse_names(const cli_run_mode *mode, const mopts *o, const sl_op_desc **ops, int *nops, sl_dtype *dts, int *ndt)
{
    char buf[256];
    char *save = NULL;
    *nops = 0;
    /* MPI mode sweeps element counts (--sizes): the 1-D ops. `all` means
     * every 1-D op; a 2-D op named alone is refused with the reason. */
    if (strcmp(o->c.op_arg, "all") == 0) {
        for (int i = 0; i < sl_op_count(); i++)
            if (sl_op_at(i)->rank == 1)
                ops[(*nops)++] = sl_op_at(i);
    } else {
        snprintf(buf, sizeof buf, "%s", o->c.op_arg);
        for (char *t = strtok_r(buf, ",", &save); t && *nops < SL_OP_COUNT; t = strtok_r(NULL, ",", &save)) {
            if (!(ops[*nops] = sl_op_find(t)))
                return cli_run_usage(mode, "--op '%s' is not implemented", t);
            if (ops[*nops]->rank != 1)
                return cli_run_usage(mode, "--op %s: MPI mode runs the 1-D ops (element counts per rank); %s is 2-D", t, t);
            (*nops)++;
        }
    }
    *ndt = 0;
    snprintf(buf, sizeof buf, "%s", o->c.dtype_arg);
    save = NULL;
    for (char *t = strtok_r(buf, ",", &save); t && *ndt < SL_DTYPE_COUNT; t = strtok_r(NULL, ",", &save)) {
        int d = sl_dtype_from_name(t);
        if (d < 0)
            return cli_run_usage(mode, "--dtype '%s' is not one of %s", t, sl_dtype_all_names());
        dts[(*ndt)++] = (sl_dtype)d;
    }
    if (*nops == 0 || *ndt == 0)
        return cli_run_usage(mode, "--op and --dtype want at least one name");
    return 0;
}

static int run(sl_mpi *m, int argc, char **argv)
{
    mopts o = {.solo = 2, .dist_dot = 1, .timeout = 600};
    const cli_run_mode mode = {.who = "run (MPI mode)", .hint_note = " (under mpirun)",
                               .unknown_note = " (MPI mode: see --help)", .trials_note = " under MPI",
                               .default_device = "local", .max_trials = SL_MPI_KEEP, .scalar_as_spelled = 0,
                               .speak = m->rank == 0, .help = help, .extra = mpi_opts, .option = mpi_option,
                               .user = &o};
    o.mode = &mode;
    int rc = cli_run_parse(&mode, argc, argv, &o.c);
    if (rc)
        return rc == CLI_RUN_HELP ? 0 : rc;
    m->timeout_s = o.timeout;
    const sl_op_desc *ops[SL_OP_COUNT];
    sl_dtype dts[SL_DTYPE_COUNT];
    int nops = 0, ndt = 0;
    if ((rc = parse_names(&mode, &o, ops, &nops, dts, &ndt)) != 0)
        return rc;
    uint64_t sizes[MAX_SIZES];
    char why[256];
    const int nsizes = sl_parse_count_list(o.c.sizes_arg, sizes, MAX_SIZES, why, sizeof why);
    if (nsizes < 0)
        return cli_run_usage(&mode, "--sizes: %s", why);
    sl_shape shapes[MAX_SIZES];
    for (int i = 0; i < nsizes; i++)
        shapes[i] = sl_shape_1d(sizes[i]);

    /* The device. */
    int dev = SL_DEVICE_CPU;
    char note[160];
    rc = pick_device(m, &o, &dev, note, sizeof note);
    if (sl_mpi_all_max(m, rc))
        return EXIT_USAGE;
    int threads = 0;
    if (dev == SL_DEVICE_CPU)
        threads = sl_mpi_split_cpu_threads(m);
    sl_ctx *ctx = NULL;
    sl_status st = sl_ctx_create(dev, &ctx);
    if (st != SL_OK)
        fprintf(stderr, "streamlab run: rank %d (host %s): cannot open device %d: %s: %s\n", m->rank, m->host, dev,
                sl_status_string(st), sl_last_error());
    if (sl_mpi_all_max(m, st != SL_OK)) {
        if (ctx)
            sl_ctx_destroy(ctx);
        return EXIT_USAGE;
    }
    char key[64];
    sl_mpi_device_key(ctx, key, sizeof key);
    if ((rc = check_layout(m, ctx, key, o.oversub)) != 0) {
        sl_ctx_destroy(ctx);
        return rc;
    }
    if (m->rank == 0 && note[0] && !o.c.quiet)
        fprintf(stderr, "streamlab run: %s\n", note);
    /* --variants: every name a variant of one of the ops on this backend. */
    if (o.c.variants_arg && strcmp(o.c.variants_arg, "all") != 0) {
        char list[512], *save = NULL;
        snprintf(list, sizeof list, "%s", o.c.variants_arg);
        for (char *t = strtok_r(list, ",", &save); t && rc == 0; t = strtok_r(NULL, ",", &save)) {
            int found = 0;
            for (int i = 0; i < nops && !found; i++)
                found = sl_variant_find(ops[i], ctx->info.backend, t) != NULL;
            if (!found)
                rc = cli_run_usage(&mode, "--variants: '%s' is no variant of these ops on the %s backend (streamlab list)", t,
                               ctx->info.backend == SL_BACKEND_CUDA ? "cuda" : "cpu");
        }
        if (rc) {
            sl_ctx_destroy(ctx);
            return rc;
        }
    }

    /* The seed: rank 0's, for everyone (recorded). */
    uint64_t seed = cli_run_seed(&o.c);
    MPI_Bcast(&seed, 1, MPI_UINT64_T, 0, m->rows);

    mrun R;
    memset(&R, 0, sizeof R);
    R.m = m;
    R.ctx = ctx;
    R.first_failed = -1;
    R.seed = seed;
    R.trials = o.c.trials;
    R.warmup = o.c.warmup;
    R.cold = o.c.cold;
    R.timer = o.c.timer;
    R.status = "running";
    R.quiet = o.c.quiet;
    mrun_now(R.started, sizeof R.started);
    {
        char prefix[64];
        snprintf(prefix, sizeof prefix, "mpirun -np %d streamlab", m->size);
        cli_run_cmdline(prefix, argc, argv, R.cmdline, sizeof R.cmdline);
        char lib[MPI_MAX_LIBRARY_VERSION_STRING];
        int len = 0;
        MPI_Get_library_version(lib, &len);
        char *nl = strchr(lib, '\n');
        if (nl)
            *nl = 0;
        snprintf(R.mpi_lib, sizeof R.mpi_lib, "%s", lib);
    }
    R.ranks_json = gather_devices(m, ctx, key, threads);
    m->on_abort = on_abort;
    m->abort_user = &R;

    /* The sweeps. */
    const cli_sweep_opts sweep_opts = cli_run_sweep_opts(&o.c, seed);
    msweep *sw = calloc((size_t)nops * (size_t)ndt, sizeof *sw);
    int nsw = 0;
    rc = sw ? 0 : EXIT_RUN_FAILED;
    for (int i = 0; i < nops && sw; i++)
        for (int d = 0; d < ndt; d++) {
            if (!sl_op_supports(ops[i], dts[d]))
                continue;
            msweep *s = &sw[nsw++];
            sl_run_config *c = &s->cfg;
            cli_sweep_config(c, ops[i], dts[d], ctx->info.backend, shapes, nsizes, &sweep_opts, s->chosen,
                             MAX_VARIANTS);
            /* Test hook: STREAMLAB_INJECT_FAULT=VARIANT on the rank named by
             * STREAMLAB_INJECT_RANK (every rank when unset). */
            const char *ir = getenv("STREAMLAB_INJECT_RANK");
            if (!ir || atoi(ir) == m->rank) {
                c->inject_fault = getenv("STREAMLAB_INJECT_FAULT");
                corrupt_hook(ctx, s->chosen, c->nvariants);
            }
            c->sync = sl_mpi_step;
            c->sync_user = m;
        }
    if (nsw == 0 && rc == 0) {
        rc = cli_run_usage(&mode, "no op offers --dtype %s", o.c.dtype_arg);
        goto out;
    }
    /* Every size must fit on every rank before the first row. */
    int fit = 0;
    for (int i = 0; i < nsw && !fit; i++)
        for (int j = 0; j < nsizes && !fit; j++)
            if (sl_harness_check_fit(ctx, &sw[i].cfg, &shapes[j]) != SL_OK) {
                fprintf(stderr, "streamlab run: rank %d (host %s): %s\n", m->rank, m->host, sl_last_error());
                fit = 1;
            }
    if (sl_mpi_all_max(m, fit)) {
        rc = EXIT_USAGE;
        goto out;
    }
    /* The files, on rank 0; every rank learns whether they opened. */
    const int bad = m->rank == 0 ? mrun_open_files(&R, o.c.json_path, o.c.md_path) : 0;
    if (sl_mpi_all_max(m, bad)) {
        rc = EXIT_USAGE;
        goto out;
    }
    if (m->rank == 0 && !o.c.quiet) {
        char d[192];
        printf("streamlab run under MPI: %d ranks on %d node%s; rank 0: %s; %s\n", m->size, m->nnodes,
               m->nnodes == 1 ? "" : "s", device_desc(ctx, d, sizeof d), R.mpi_lib);
        fflush(stdout);
    }
    mrun_write_files(&R, false);

    sl_interrupt_install();

    /* Phase 1: every rank at once. */
    int interrupted = 0;
    for (int i = 0; i < nsw && R.first_failed < 0; i++) {
        sw[i].first_row = R.nrows;
        m->doing = "a timed row (its checks or trials)";
        st = sl_harness_run(ctx, &sw[i].cfg, on_row_together, &R);
        if (st == SL_ERR_INTERRUPTED && R.first_failed < 0)
            interrupted = 1;
        if (st != SL_OK && R.first_failed < 0 && !interrupted) {
            /* A sweep-stopping error outside a row (allocation): this rank
             * cannot go on; say so and stop the job. */
            fprintf(stderr, "streamlab run: rank %d (host %s): %s\n", m->rank, m->host, sl_last_error());
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        if (sl_mpi_all_max(m, interrupted)) {
            interrupted = 1;
            break;
        }
    }
    /* rows per sweep, known on every rank (rank 0 counted them) */
    int total_rows = R.nrows;
    MPI_Bcast(&total_rows, 1, MPI_INT, 0, m->rows);
    {
        int counts[2 * 64] = {0};
        for (int i = 0; i < nsw && i < 64; i++) {
            counts[2 * i] = sw[i].first_row;
            counts[2 * i + 1] = (i + 1 < nsw ? sw[i + 1].first_row : R.nrows) - sw[i].first_row;
        }
        MPI_Bcast(counts, 2 * 64, MPI_INT, 0, m->rows);
        for (int i = 0; i < nsw && i < 64; i++) {
            sw[i].first_row = counts[2 * i];
            sw[i].nrows = counts[2 * i + 1];
        }
    }

    /* Phase 2: the single-rank figure, each rank alone in turn. */
    if (o.solo && R.first_failed < 0 && !interrupted && total_rows > 0) {
        R.solo_local = malloc((size_t)total_rows * sizeof *R.solo_local);
        R.solo_status = malloc((size_t)total_rows * sizeof *R.solo_status);
        if (!R.solo_local || !R.solo_status)
            MPI_Abort(MPI_COMM_WORLD, 1);
        for (int i = 0; i < total_rows; i++) {
            R.solo_local[i] = -1;
            R.solo_status[i] = SL_OK;
        }
        const int last = o.solo == 2 ? m->size : 1;
        for (int s = 0; s < last && !interrupted; s++) {
            if (m->rank == s) {
                for (int i = 0; i < nsw; i++) {
                    sl_run_config c = sw[i].cfg;
                    c.sync = NULL; /* alone: no steps */
                    R.sweep_first = sw[i].first_row;
                    R.row_in_sweep = 0;
                    st = sl_harness_run(ctx, &c, on_row_solo, &R);
                    if (st != SL_OK) {
                        fprintf(stderr, "streamlab run: rank %d (host %s), timed alone: %s\n", m->rank, m->host,
                                sl_last_error());
                        interrupted = st == SL_ERR_INTERRUPTED;
                        break;
                    }
                }
            }
            /* The others idle here; a solo sweep has every row to run. */
            m->doing = "the single-rank phase (another rank timing alone)";
            sl_mpi_barrier(m, total_rows > 1 ? total_rows : 1);
            interrupted = sl_mpi_all_max(m, interrupted);
        }
        double *all = m->rank == 0 ? malloc((size_t)total_rows * (size_t)m->size * sizeof *all) : NULL;
        int *sts = m->rank == 0 ? malloc((size_t)total_rows * (size_t)m->size * sizeof *sts) : NULL;
        MPI_Request req[2];
        MPI_Igather(R.solo_local, total_rows, MPI_DOUBLE, all, total_rows, MPI_DOUBLE, 0, m->rows, &req[0]);
        sl_mpi_wait(m, &req[0]);
        MPI_Igather(R.solo_status, total_rows, MPI_INT, sts, total_rows, MPI_INT, 0, m->rows, &req[1]);
        sl_mpi_wait(m, &req[1]);
        if (m->rank == 0 && all && sts) {
            for (int i = 0; i < R.nrows && i < total_rows; i++) {
                mrow *w = &R.rows[i];
                w->solo = malloc((size_t)m->size * sizeof *w->solo);
                double v[1024];
                int nv = 0;
                for (int r = 0; r < m->size; r++) {
                    const double g = all[(size_t)r * total_rows + i];
                    const int s2 = sts[(size_t)r * total_rows + i];
                    if (w->solo)
                        w->solo[r] = g;
                    if (g > 0 && nv < 1024)
                        v[nv++] = g;
                    if (s2 != SL_OK && s2 != SL_ERR_UNSUPPORTED && w->failed_rank < 0) {
                        w->failed_rank = r;
                        snprintf(w->message, sizeof w->message,
                                 "rank %d (host %s) failed %s %s timed alone: %s (see that rank's stderr)", r,
                                 m->hosts[r], w->op->name, w->v->name, sl_status_string((sl_status)s2));
                        if (!R.failure[0])
                            snprintf(R.failure, sizeof R.failure, "%s", w->message);
                        R.first_failed = r;
                    }
                }
                if (nv) {
                    for (int a = 1; a < nv; a++)
                        for (int b = a; b > 0 && v[b] < v[b - 1]; b--) {
                            double t = v[b];
                            v[b] = v[b - 1];
                            v[b - 1] = t;
                        }
                    w->solo_gbs = nv % 2 ? v[nv / 2] : 0.5 * (v[nv / 2 - 1] + v[nv / 2]);
                    if (w->agg_ok)
                        w->eff = w->agg.agg_gbs / (m->size * w->solo_gbs);
                }
            }
        }
        free(all);
        free(sts);
        R.first_failed = sl_mpi_all_max(m, R.first_failed);
        mrun_write_files(&R, false);
    }

    /* Phase 3: the distributed dot. */
    const sl_op_desc *dot = sl_op_find("dot");
    int want_dot = 0;
    for (int i = 0; i < nops; i++)
        want_dot |= ops[i] == dot;
    if (want_dot && o.dist_dot && R.first_failed < 0 && !interrupted) {
        R.dots = calloc((size_t)ndt * (size_t)nsizes, sizeof *R.dots);
        R.dot_dtypes = calloc((size_t)ndt * (size_t)nsizes, sizeof *R.dot_dtypes);
        int dot_failed = 0;
        for (int d = 0; d < ndt && R.dots && !dot_failed; d++) {
            if (dts[d] != SL_F32 && dts[d] != SL_F64)
                continue;
            for (int j = 0; j < nsizes; j++) {
                sl_mpi_dot_result *x = &R.dots[R.ndots];
                R.dot_dtypes[R.ndots++] = dts[d];
                st = sl_mpi_dist_dot(m, ctx, dts[d], sizes[j], seed, o.c.warmup, o.c.trials, x);
                if (st != SL_OK) {
                    if (!R.failure[0])
                        snprintf(R.failure, sizeof R.failure, "distributed dot %s n=%llu: %s", sl_dtype_name(dts[d]),
                                 (unsigned long long)sizes[j], x->message);
                    R.first_failed = m->rank;
                }
                mrun_write_files(&R, false);
                if ((dot_failed = sl_mpi_all_max(m, st != SL_OK)) != 0)
                    break;
            }
        }
        R.first_failed = sl_mpi_all_max(m, R.first_failed);
    }

    /* The table (rank 0). */
    if (m->rank == 0 && !o.c.quiet)
        mrun_print_table(&R, stdout);
    if (m->rank == 0)
        fflush(stdout);
    rc = 0;
    if (R.first_failed >= 0) {
        R.status = "failed";
        if (m->rank == 0)
            fprintf(stderr, "streamlab run: error: %s; every rank stopped after that row%s%s\n",
                    R.failure[0] ? R.failure : "a rank failed", o.c.json_path || o.c.md_path ? "; rows finished are in " : "",
                    o.c.json_path ? o.c.json_path : o.c.md_path ? o.c.md_path : "");
        rc = EXIT_RUN_FAILED;
    } else if (interrupted) {
        R.status = "interrupted";
        rc = EXIT_INTERRUPTED;
    } else {
        R.status = "complete";
    }
    mrun_write_files(&R, true);
out:
    m->on_abort = NULL;
    if (m->rank == 0) {
        mrun_close_files(&R);
        for (int i = 0; i < R.nrows; i++) {
            free(R.rows[i].ranks);
            free(R.rows[i].solo);
        }
        cJSON_Delete(R.ranks_json);
    }
    free(R.rows);
    free(R.solo_local);
    free(R.solo_status);
    free(R.dots);
    free(R.dot_dtypes);
    free(sw);
    sl_ctx_destroy(ctx);
    return rc;
}

int cmd_run_mpi(int argc, char **argv)
{
    sl_mpi m;
    if (sl_mpi_init(NULL, NULL, &m) != SL_OK) {
        fprintf(stderr, "streamlab run: %s\n", sl_last_error());
        return EXIT_RUN_FAILED;
    }
    int rc = run(&m, argc, argv);
    /* Every rank leaves with the worst exit code, so that mpirun's own
     * status says the job failed whichever rank it reads. */
    rc = sl_mpi_all_max(&m, rc);
    sl_mpi_finalize(&m);
    return rc;
}

#endif /* SL_HAVE_MPI */
