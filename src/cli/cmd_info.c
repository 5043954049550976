/*
 * cmd_info.c - `streamlab info`: the device and its theoretical peak.
 */
#include "cli.h"

#include "internal.h"
#include "sizes.h"

#include <stdio.h>
#include <string.h>

static void help(FILE *f)
{
    fprintf(f, "usage: streamlab info [-d|--device N|cpu]\n"
               "\n"
               "Print the device streamlab would run on: name, SMs, caches, memory, clocks,\n"
               "and the theoretical DRAM bandwidth = memory clock x bus width x 2 (DDR).\n"
               "\n"
               "options:\n"
               "  -d, --device N|cpu  CUDA device index, cpu or auto (default: GPU 0 if present)\n"
               "  -h, --help          this help\n"
               "\n"
               "exit codes: 0 ok, 1 the device could not be opened, 2 usage error (bad flag or device)\n");
}

int cmd_info(int argc, char **argv)
{
    int device = SL_DEVICE_AUTO;
    int rc = cli_device_only("info", argc, argv, help, &device);
    if (rc >= 0)
        return rc;
    sl_ctx *ctx = NULL;
    rc = cli_open_ctx("info", device, &ctx);
    if (rc)
        return rc;
    sl_device_info d;
    sl_ctx_info(ctx, &d);
    char l2[32], tot[32], fr[32];
    sl_format_bytes((double)d.l2_bytes, l2, sizeof l2);
    sl_format_bytes((double)d.mem_total, tot, sizeof tot);
    sl_format_bytes((double)d.mem_free, fr, sizeof fr);
    printf("streamlab %s\n", SL_VERSION_STRING);
    if (d.backend == SL_BACKEND_CUDA) {
        printf("device            %d: %s\n", d.device, d.name);
        printf("compute cap.      sm_%d%d\n", d.cc_major, d.cc_minor);
        printf("SMs               %d (max %d threads, %d blocks, %d registers, %zu KiB shared memory per SM)\n",
               d.sm_count, d.max_threads_per_sm, d.max_blocks_per_sm, d.regs_per_sm, d.smem_per_sm / 1024);
        printf("L2                %s\n", l2);
        printf("memory            %s total, %s free; ECC %s\n", tot, fr,
               d.ecc_enabled > 0 ? "on" : d.ecc_enabled == 0 ? "off" : "unknown");
        printf("memory clock      %.0f MHz (cudaDevAttrMemoryClockRate), bus %d bits\n", d.mem_clock_khz / 1e3,
               d.bus_width_bits);
        printf("SM clock          %.0f MHz max (cudaDevAttrClockRate)\n", d.sm_clock_khz / 1e3);
        if (d.nvml_sm_clock_mhz >= 0)
            printf("NVML now          SM %d MHz, memory %d MHz, %.1f W\n", d.nvml_sm_clock_mhz, d.nvml_mem_clock_mhz,
                   d.nvml_power_mw / 1000.0);
        else
            printf("NVML now          unavailable (libnvidia-ml.so.1 not loadable)\n");
        printf("theoretical peak  %.1f GB/s = %.0f MHz x %d bits / 8 x 2 (DDR)\n", d.peak_gbs, d.mem_clock_khz / 1e3,
               d.bus_width_bits);
    } else {
        printf("device            CPU: %s\n", d.name);
        printf("threads           %d (OpenMP)\n", d.sm_count);
        printf("last-level cache  %s\n", l2);
        printf("memory            %s total, %s available\n", tot, fr);
        printf("theoretical peak  unknown: `streamlab run` reports against the copy ceiling it measures\n");
    }
    sl_ctx_destroy(ctx);
    return 0;
}
