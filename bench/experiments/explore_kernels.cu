/*
 * Experiment (bench/experiments/): supports docs/ladder.md, "Rung 7: tile4
 * (ours)" and "Rung 8: bulk (ours)" (the instances explore_add times).
 * Run: STAGES=explore bash bench/device.sh.
 *
 * explore_kernels.cu - the instances bench/experiments/explore_add.c times: the tile
 * and bulk templates (src/ops/common/tile.cuh and bulk.cuh) with add's
 * element function, at configurations that are not rungs of the ladder.
 * Built only into explore_add.
 */
#include "add.cuh"
#include "bulk.cuh"
#include "tile.cuh"

typedef sl_status (*explore_fn)(const sl_args *);

template <int BLOCK, int K, int HINT> static sl_status launch_tile(const sl_args *x)
{
    return rung_tile<BLOCK, K, HINT, SL_F32, sl_k_add>::launch(x, sl_k_add());
}

template <int BLOCK, int V, bool BULK_STORE> static sl_status launch_bulk_tile(const sl_args *x)
{
    return rung_bulk_tile<BLOCK, V, BULK_STORE, SL_F32, sl_k_add>::launch(x, sl_k_add());
}

template <int BLOCK, int V, int STAGES> static sl_status launch_bulk_pipe(const sl_args *x)
{
    return rung_bulk_pipe<BLOCK, V, STAGES, SL_F32, sl_k_add>::launch(x, sl_k_add());
}


static const struct {
    const char *name;
    explore_fn fn;
} configs[] = {
    {"t256x1", launch_tile<256, 1, HINT_DEFAULT>},
    {"t256x1.cs", launch_tile<256, 1, HINT_STREAMING>},
    {"t128x1", launch_tile<128, 1, HINT_DEFAULT>},
    {"t512x1", launch_tile<512, 1, HINT_DEFAULT>},
    {"t1024x1", launch_tile<1024, 1, HINT_DEFAULT>},
    {"t256x2", launch_tile<256, 2, HINT_DEFAULT>},
    {"t256x2.cs", launch_tile<256, 2, HINT_STREAMING>},
    {"t256x4", launch_tile<256, 4, HINT_DEFAULT>},
    {"b256x1", launch_bulk_tile<256, 1, false>},
    {"b128x2", launch_bulk_tile<128, 2, false>},
    {"b256x2", launch_bulk_tile<256, 2, false>},
    {"b256x4", launch_bulk_tile<256, 4, false>},
    {"b256x1.st", launch_bulk_tile<256, 1, true>},
    {"b256x2.st", launch_bulk_tile<256, 2, true>},
    {"p256x2s4", launch_bulk_pipe<256, 2, 4>},
    {"p256x4s3", launch_bulk_pipe<256, 4, 3>},
    {"p128x4s4", launch_bulk_pipe<128, 4, 4>},
    {"p512x2s4", launch_bulk_pipe<512, 2, 4>},
    {"p256x1s8", launch_bulk_pipe<256, 1, 8>},
};

extern "C" int explore_count(void)
{
    return (int)(sizeof configs / sizeof configs[0]);
}

extern "C" const char *explore_name(int i)
{
    return configs[i].name;
}

extern "C" sl_status explore_launch(int i, const sl_args *x)
{
    return configs[i].fn(x);
}
