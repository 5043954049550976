/*
 * counter_ops.h - how the lab's counter sessions (src/lab/counters.h) reach
 * a backend's profiler: through the context's ops table
 * (sl_backend_ops.counters), by metric name. The backend knows nothing of
 * the lab's metric table; it profiles the names it is given and returns
 * one value per name. The CUDA backend implements it with CUPTI's range
 * profiler (src/cuda/cupti.c) when the build has CUPTI.
 */
#ifndef SL_COUNTER_OPS_H
#define SL_COUNTER_OPS_H

#include "internal.h"

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The work to profile, enqueued once per replay pass (it must repeat the
 * same work each time). */
typedef sl_status (*sl_counter_work_fn)(void *user);

typedef struct sl_counter_ops {
    /* Open a session for metrics[0..nmetrics) (Nsight Compute names, the
     * strings must outlive the session) on the context's device. A metric
     * the chip does not know is left out: its has[] stays false. Errors:
     * SL_ERR_UNSUPPORTED with the reason (no permission, a GPU or
     * configuration the profiler cannot handle, another profiler active,
     * no metric known), SL_ERR_CUDA, SL_ERR_NO_MEMORY. */
    sl_status (*open)(sl_ctx *ctx, const char *const *metrics, int nmetrics, void **session);
    /* Clear L2 before every replay pass (true, the default) or not. */
    void (*set_flush)(void *session, bool flush);
    /* Profile fn in one range, replayed until every metric is read; then
     * values[i] and has[i] for metrics[i], *passes the passes it took.
     * Nothing is reported from a failed collection (every has[] false). */
    sl_status (*collect)(void *session, sl_counter_work_fn fn, void *user, double *values, bool *has, int *passes);
    void (*close)(void *session);
} sl_counter_ops;

#ifdef __cplusplus
}
#endif

#endif /* SL_COUNTER_OPS_H */
