/*
 * cmd_probe.c - `streamlab probe`: run the microbenchmarks and write the
 * device profile the bottleneck model reads.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include "internal.h"
#include "interrupt.h"
#include "counters.h"
#include "probe.h"
#include "profile.h"
#include "record.h"
#include "sizes.h"

#include <cjson/cJSON.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void help(FILE *f)
{
    fprintf(f, "usage: streamlab probe [options]\n"
               "\n"
               "Measure the memory system's real ceilings and reproduce the seeds' memory\n"
               "experiments, then write a device profile (JSON) that `streamlab explain` and the\n"
               "model columns of `streamlab run` use in place of datasheet numbers.\n"
               "\n"
               "options:\n"
               "  --only LIST     probes to run, comma-separated (default: all); an existing\n"
               "                  profile for the same device is updated, not replaced\n"
               "  --json FILE     the profile to write (default: <device-name>.profile.json)\n"
               "  --md FILE       also write the tables as Markdown\n"
               "                  FILE - is standard output (the tables then go to stderr); an\n"
               "                  existing file is replaced only if streamlab wrote it\n"
               "  -d, --device N|cpu  CUDA device index, or cpu (default: GPU 0 if present)\n"
               "  -n, --trials N  timed runs per point (default 10)\n"
               "  --quick         few, small points (tests; the numbers are not ceilings)\n"
               "  --counters      hardware counters (CUPTI) for the l2-write probe: L2 hit rates of\n"
               "                  read-only, write-only and add kernels, DRAM read : write sectors of\n"
               "                  coalesced vs stride-8 writes (seed 000); says why if unavailable\n"
               "  -h, --help      this help\n"
               "\n"
               "probes:\n");
    for (int i = 0; i < sl_probe_count(); i++)
        fprintf(f, "  %-9s %s\n", sl_probe_name(i), sl_probe_what(i));
    fprintf(f, "\nEvery probe checks its own result (checksums, mismatch counts, the chase's end\n"
               "node) and stops the run with exit 1 if a check fails.\n"
               "\n"
               "exit codes: 0 ok, 1 a probe's check failed, a CUDA fault or a write failing at the\n"
               "end, 2 usage error (bad flag, probe or device; an output that cannot be written),\n"
               "130 interrupted (SIGINT, SIGTERM: the profile keeps the probes finished and says\n"
               "\"status\": \"interrupted\")\n");
}

static int known_probe(const char *name)
{
    for (int i = 0; i < sl_probe_count(); i++)
        if (strcmp(sl_probe_name(i), name) == 0)
            return 1;
    return 0;
}

/* The profile of an interrupted probe, marked so: "status": "interrupted"
 * and the signal, beside the probes that finished. NULL if out of memory. */
static char *mark_interrupted(const char *text)
{
    cJSON *root = cJSON_Parse(text);
    if (!root)
        return NULL;
    cJSON_AddStringToObject(root, "status", "interrupted");
    cJSON_AddStringToObject(root, "interrupted_by", sl_interrupt_cause());
    char *out = cJSON_Print(root);
    cJSON_Delete(root);
    return out;
}

int cmd_probe(int argc, char **argv)
{
    enum { OPT_ONLY = 256, OPT_JSON, OPT_MD, OPT_DEVICE, OPT_TRIALS, OPT_QUICK, OPT_COUNTERS };
    static const struct option opts[] = {
        {"only", required_argument, 0, OPT_ONLY},   {"json", required_argument, 0, OPT_JSON},
        {"md", required_argument, 0, OPT_MD},       {"device", required_argument, 0, OPT_DEVICE},
        {"trials", required_argument, 0, OPT_TRIALS}, {"quick", no_argument, 0, OPT_QUICK},
        {"counters", no_argument, 0, OPT_COUNTERS},
        {"help", no_argument, 0, 'h'},              {0, 0, 0, 0}};
    const char *only = NULL, *json = NULL, *md_path = NULL;
    int device = SL_DEVICE_AUTO, trials = 10, quick = 0, counters = 0, c;
    opterr = 0;
    optind = 1;
    static const int aliases[] = {'d', OPT_DEVICE, 'n', OPT_TRIALS, 0};
    cli_once once = {.aliases = aliases};
    char once_msg[512];
    while ((c = getopt_long(argc, argv, ":hd:n:", opts, NULL)) != -1) {
        if (cli_once_twice(&once, opts, c, optarg, once_msg, sizeof once_msg))
            return cli_usage_error("probe", "%s", once_msg);
        switch (c) {
        case OPT_ONLY: only = optarg; break;
        case OPT_JSON: json = optarg; break;
        case OPT_MD: md_path = optarg; break;
        case 'd':
        case OPT_DEVICE:
            if (cli_parse_device(optarg, &device))
                return cli_usage_error("probe", "--device wants a CUDA index, 'cpu' or 'auto', not '%s'", optarg);
            break;
        case 'n':
        case OPT_TRIALS:
            if (cli_parse_int(optarg, 1, 64, &trials))
                return cli_usage_error("probe", "--trials wants an integer from 1 to 64, not '%s'", optarg);
            break;
        case OPT_QUICK: quick = 1; break;
        case OPT_COUNTERS: counters = 1; break;
        case 'h': help(stdout); return 0;
        case ':': return cli_usage_error("probe", "option '%s' needs a value", argv[optind - 1]);
        default: return cli_usage_error("probe", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return cli_usage_error("probe", "unexpected argument '%s'", argv[optind]);
    if (only) {
        char *copy = strdup(only), *save = NULL;
        for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
            if (!known_probe(tok)) {
                int rc = cli_usage_error("probe", "unknown probe '%s' (see streamlab probe --help)", tok);
                free(copy);
                return rc;
            }
        }
        free(copy);
    }

    sl_ctx *ctx = NULL;
    int rc = cli_open_ctx("probe", device, &ctx);
    if (rc)
        return rc;
    char path[512];
    if (json)
        snprintf(path, sizeof path, "%s", json);
    else
        sl_profile_default_name(ctx->info.name, path, sizeof path);

    /* Both outputs are checked before the first probe runs (exit 2). */
    const char *paths[] = {path, md_path};
    cli_data_to_stdout(paths, 2);
    sl_output jout, mout;
    if (sl_output_open(&jout, path, SL_PROFILE_SCHEMA) != SL_OK) {
        fprintf(stderr, "streamlab probe: %s\n", sl_last_error());
        sl_ctx_destroy(ctx);
        return EXIT_USAGE;
    }
    if (md_path && (sl_output_open(&mout, md_path, "# streamlab probe") != SL_OK ||
                    (sl_output_same(&jout, &mout) &&
                     sl_fail(SL_ERR_IO, "--json and --md name the same file (%s): give each its own", mout.target)))) {
        fprintf(stderr, "streamlab probe: %s\n", sl_last_error());
        sl_output_close(&jout);
        sl_ctx_destroy(ctx);
        return EXIT_USAGE;
    }

    /* Start from the existing profile of this device, so --only updates it. */
    sl_profile prof;
    cJSON *points = NULL;
    if (jout.kind == SL_OUT_REGULAR && jout.exists && sl_profile_read(path, &prof) == SL_OK &&
        strcmp(prof.device, ctx->info.name) == 0) {
        fprintf(stderr, "streamlab probe: updating %s\n", path);
        points = sl_profile_read_points(path); /* keep the curves of probes not re-run */
    } else {
        sl_profile_init(&prof);
    }
    if (!points)
        points = cJSON_CreateObject();
    snprintf(prof.device, sizeof prof.device, "%s", ctx->info.name);
    snprintf(prof.backend, sizeof prof.backend, "%s", ctx->info.backend == SL_BACKEND_CUDA ? "cuda" : "cpu");
    prof.cc_major = ctx->info.cc_major;
    prof.cc_minor = ctx->info.cc_minor;
    prof.sm_count = ctx->info.sm_count;
    prof.peak_gbs = ctx->info.peak_gbs > 0 ? ctx->info.peak_gbs : -1;
    snprintf(prof.uuid, sizeof prof.uuid, "%s", ctx->info.uuid);
    prof.sm_clock_max_mhz = ctx->info.sm_clock_khz > 0 ? ctx->info.sm_clock_khz / 1000 : -1;
    prof.mem_clock_mhz = ctx->info.mem_clock_khz > 0 ? ctx->info.mem_clock_khz / 1000 : -1;
    prof.sm_clock_now_mhz = ctx->info.nvml_sm_clock_mhz;
    prof.mem_clock_now_mhz = ctx->info.nvml_mem_clock_mhz;
    prof.ecc = ctx->info.ecc_enabled;
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(prof.created, sizeof prof.created, "%Y-%m-%dT%H:%M:%SZ", &tm);

    FILE *md = NULL;
    if (md_path && !(md = sl_output_stream(&mout))) {
        fprintf(stderr, "streamlab probe: %s\n", sl_last_error());
        sl_output_close(&jout);
        sl_output_close(&mout);
        cJSON_Delete(points);
        sl_ctx_destroy(ctx);
        return EXIT_USAGE;
    }
    if (md) {
        fprintf(md, "# streamlab probe on %s\n\n- command: `streamlab", ctx->info.name);
        for (int i = 0; i < argc; i++)
            fprintf(md, " %s", argv[i]);
        fprintf(md, "`\n- date: %s; streamlab %s\n- %d SMs, L2 %zu MiB, theoretical peak %.0f GB/s\n", prof.created,
                SL_VERSION_STRING, ctx->info.sm_count, ctx->info.l2_bytes >> 20, ctx->info.peak_gbs);
    }
    printf("streamlab %s probe on %s (%s)%s\n", SL_VERSION_STRING, ctx->info.name,
           ctx->info.backend == SL_BACKEND_CUDA ? "CUDA" : "CPU backend", quick ? ", quick" : "");

    sl_probe_config cfg = {.only = only, .quick = quick, .trials = trials, .progress = isatty(STDERR_FILENO)};
    /* Only the l2-write probe reads counters: no session (and no L2-clearing
     * buffer) unless it runs. */
    const int wants_counters = counters && (!only || sl_list_has(only, "l2-write"));
    if (counters && !wants_counters)
        fprintf(stderr, "streamlab probe: --counters applies to the l2-write probe, which --only leaves out\n");
    if (wants_counters && sl_counters_open(ctx, &cfg.counters) != SL_OK) {
        fprintf(stderr, "streamlab probe: counters unavailable, probing without them: %s\n", sl_last_error());
        cfg.counters = NULL;
    }
    sl_interrupt_install(); /* SIGINT / SIGTERM: stop between probes, keep what finished, exit 130 */
    struct timespec t0, t1;
    sl_env_sample env0 = {0}, env1 = {0}; /* the record: NVML before and after the probes */
    if (ctx->ops->env_sample)
        ctx->ops->env_sample(ctx, &env0);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    sl_status st = sl_probe_run(ctx, &cfg, &prof, points, stdout, md);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (ctx->ops->env_sample && st != SL_ERR_CUDA_FAULT)
        ctx->ops->env_sample(ctx, &env1);
    double secs = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9;
    if (st == SL_ERR_INTERRUPTED) {
        fprintf(stderr, "streamlab probe: %s; the probes finished so far are in %s\n", sl_last_error(), path);
        rc = EXIT_INTERRUPTED;
    } else if (st != SL_OK) {
        fprintf(stderr, "streamlab probe: %s: %s\n", sl_status_string(st), sl_last_error());
        rc = EXIT_RUN_FAILED;
    }
    /* What finished is kept, even after a failing probe. */
    char *text = sl_profile_text(&prof, points);
    if (text) {
        /* the reproducibility record and the command line (issue 14) */
        char cmdline[2048];
        size_t used = (size_t)snprintf(cmdline, sizeof cmdline, "streamlab");
        for (int i = 0; i < argc && used < sizeof cmdline; i++)
            used += (size_t)snprintf(cmdline + used, sizeof cmdline - used, " %s", argv[i]);
        char *with = sl_record_attach(text, ctx, cmdline, &env0, &env1);
        if (with) {
            free(text);
            text = with;
        }
        if (st == SL_ERR_INTERRUPTED && (with = mark_interrupted(text)) != NULL) {
            free(text);
            text = with;
        }
    }
    sl_status wst = text ? sl_output_replace(&jout, text) : sl_fail(SL_ERR_NO_MEMORY, "out of memory for the profile");
    free(text);
    sl_output_close(&jout);
    if (wst != SL_OK) {
        fprintf(stderr, "streamlab probe: %s\n", sl_last_error());
        rc = rc ? rc : EXIT_RUN_FAILED;
    } else {
        printf("\nprofile written to %s (%.1f s)\n", path, secs);
    }
    if (md) {
        fprintf(md, "\nprofile: `%s`; the probes took %.1f s.\n", path, secs);
        if (st == SL_ERR_INTERRUPTED)
            fprintf(md, "\n**Interrupted** by %s: the probes after the last table did not run.\n",
                    sl_interrupt_cause());
        if (fclose(md) != 0) {
            fprintf(stderr, "streamlab probe: cannot write %s\n", md_path);
            rc = rc ? rc : EXIT_RUN_FAILED;
        }
        sl_output_close(&mout);
    }
    cJSON_Delete(points);
    if (st != SL_ERR_CUDA_FAULT) {
        sl_counters_close(cfg.counters);
        sl_ctx_destroy(ctx);
    }
    return rc;
}
