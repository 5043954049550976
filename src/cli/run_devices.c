/*
 * run_devices.c - `streamlab run --devices cpu,0` where there is no GPU:
 * the CPU vs GPU comparison degrades to the CPU alone, with a message,
 * instead of failing (issue 14). A GPU index asked for alone, or beside
 * other GPUs only, still fails as before.
 */
#include "cli.h"

#include "internal.h"

#include <stdbool.h>
#include <stdio.h>

int cli_drop_missing_gpus(const char *cmd, int *ids, int n)
{
    bool cpu = false;
    for (int i = 0; i < n; i++)
        cpu |= ids[i] == SL_DEVICE_CPU;
    if (!cpu)
        return n;
    int k = 0;
    for (int i = 0; i < n; i++) {
        if (ids[i] >= 0) {
            sl_ctx *ctx = NULL;
            sl_status st = sl_ctx_create(ids[i], &ctx);
            if (st == SL_ERR_NO_DEVICE) {
                fprintf(stderr,
                        "streamlab %s: no GPU for device %d (%s): running on the CPU alone, without the CPU vs GPU "
                        "comparison\n",
                        cmd, ids[i], sl_last_error());
                continue;
            }
            if (st == SL_OK)
                sl_ctx_destroy(ctx);
        }
        ids[k++] = ids[i];
    }
    return k;
}
