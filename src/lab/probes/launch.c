/*
 * launch.c - the launch probe: the fixed cost of an empty kernel, timed
 * alone between events, back to back, and replayed from a CUDA graph. It
 * is the floor under every small kernel's time.
 */
#include "probe_util.h"

#include "stats.h"

sl_status probe_launch(env *e)
{
    double us[3] = {0};
    static const char *what[3] = {"event-timed, one launch", "back to back, per launch", "CUDA graph, per kernel"};
    static const int counts[3] = {200, 1000, 100};
    static const sl_col cols[] = {{"mode", 28, 'l'}, {"us", 8, 'r'}};
    probe_sweep sw;
    probe_sweep_open(&sw, e, "launch");
    probe_table(&sw, cols, 2);
    for (int m = 0; m < 3; m++) {
        double v[5];
        int reps = m == 0 ? 1 : 5;
        for (int r = 0; r < reps; r++) {
            sl_status st = e->ops->launch(e->ctx, m, e->cfg->quick ? counts[m] / 10 : counts[m], &v[r]);
            if (st != SL_OK)
                return st;
        }
        sl_stats s;
        sl_stats_compute(v, (size_t)reps, &s);
        us[m] = s.median;
        probe_cell(&sw, "%s", what[m]);
        probe_cell(&sw, "%.2f", us[m]);
        probe_row(&sw);
        cJSON *p = probe_point(&sw);
        cJSON_AddStringToObject(p, "mode", what[m]);
        cJSON_AddNumberToObject(p, "us", us[m]);
    }
    e->prof->launch_event_us = us[0];
    e->prof->launch_b2b_us = us[1];
    e->prof->launch_graph_us = us[2];
    return SL_OK;
}
