/*
 * cmd_list.c - `streamlab list`: the registry, as the seed's "Kernels
 * Implemented" table, with what the compiler and occupancy API report.
 */
#include "cli.h"

#include "../core/internal.h"
#include "../core/registry.h"

#include <stdio.h>
#include <string.h>

static void help(FILE *f)
{
    fprintf(f, "usage: streamlab list [--device N|cpu]\n"
               "\n"
               "Print every kernel variant in the registry: backend, name, kind, technique,\n"
               "bytes moved per f32 element, loads in flight per thread, seed reference, and for\n"
               "CUDA kernels the registers per thread, local memory (spills) and resident blocks\n"
               "per SM (cudaFuncGetAttributes and the occupancy API; needs a GPU).\n"
               "The 'api' row is what sl_add() calls.\n");
}

int cmd_list(int argc, char **argv)
{
    int device = SL_DEVICE_AUTO;
    int rc = cli_device_only("list", argc, argv, help, &device);
    if (rc >= 0)
        return rc;
    sl_ctx *ctx = NULL;
    rc = cli_open_ctx("list", device, &ctx);
    if (rc)
        return rc;
    int on_gpu = ctx->info.backend == SL_BACKEND_CUDA;

    printf("%-5s %-12s %-8s %-66s %4s %9s %5s %6s %8s  %s\n", "back", "name", "kind", "technique", "B/el",
           "in flight", "regs", "local", "blk/SM", "source");
    for (size_t i = 0; i < sl_registry_count(); i++) {
        const sl_variant *v = sl_registry_at(i);
        char regs[16] = "-", local[16] = "-", occ[16] = "-", flight[24] = "-";
        sl_kernel_attrs a;
        if (v->attrs && on_gpu && v->attrs(&a) == SL_OK) {
            snprintf(regs, sizeof regs, "%d", a.regs);
            snprintf(local, sizeof local, "%d", a.local_bytes);
            snprintf(occ, sizeof occ, "%dx%d", a.blocks_per_sm, a.block);
        }
        if (v->loads_in_flight && v->access_bytes)
            snprintf(flight, sizeof flight, "%dx%dB", v->loads_in_flight * v->reads, v->access_bytes);
        printf("%-5s %-12s %-8s %-66s %4zu %9s %5s %6s %8s  %s\n", v->backend == SL_BACKEND_CUDA ? "cuda" : "cpu",
               v->name, sl_kind_name(v->kind), v->technique, sl_variant_bytes_per_elem(v, SL_F32), flight, regs,
               local, occ, v->seed);
    }
    if (!on_gpu)
        printf("\nregisters, local memory and blocks per SM need a GPU: none is in use here.\n");
    printf("\n'in flight' = independent loads per thread (all inputs) x bytes per load, before the first add.\n");
    sl_ctx_destroy(ctx);
    return 0;
}
