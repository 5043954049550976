/*
 * fuzz_profile.c - libFuzzer target for the profile reader
 * (sl_profile_parse, src/lab/profile.c) on the input as the text of a
 * profile file (exactly `size` bytes, not NUL-terminated).
 *
 * Properties, beyond "no crash, no sanitizer report, no leak":
 *   - the status is SL_OK or SL_ERR_IO, and an error message names the file;
 *   - an accepted profile has a device name, terminated strings, every
 *     measurement either -1 (not measured) or finite and >= 0, sm_count and
 *     the compute capability >= 0, and a bytes-in-flight curve of at most
 *     SL_PROFILE_MAX_BIF finite positive points;
 *   - the parse reads nothing past `size`: the same bytes followed by more
 *     text give the same status, message and profile.
 */
#include "fuzz_common.h"
#include "internal.h"
#include "profile.h"

#include <math.h>

#define PATH "fuzz.profile.json"

static void check_accepted(const sl_profile *p)
{
    FUZZ_CHECK(fuzz_terminated(p->device, sizeof p->device) && p->device[0], "device name empty or unterminated");
    FUZZ_CHECK(fuzz_terminated(p->backend, sizeof p->backend), "backend unterminated");
    FUZZ_CHECK(fuzz_terminated(p->created, sizeof p->created), "created unterminated");
    FUZZ_CHECK(p->sm_count >= 0 && p->cc_major >= 0 && p->cc_minor >= 0, "sm_count %d, cc %d.%d", p->sm_count,
               p->cc_major, p->cc_minor);
    const struct {
        const char *name;
        double v;
    } m[] = {
        {"peak_gbs", p->peak_gbs},
        {"copy_memcpy_gbs", p->copy_memcpy_gbs}, {"copy_sm_gbs", p->copy_sm_gbs},
        {"read_gbs", p->read_gbs},               {"write_gbs", p->write_gbs},
        {"add_gbs", p->add_gbs},                 {"lat_l1_ns", p->lat_l1_ns},
        {"lat_l2_ns", p->lat_l2_ns},             {"lat_dram_ns", p->lat_dram_ns},
        {"lat_l1_cycles", p->lat_l1_cycles},     {"lat_l2_cycles", p->lat_l2_cycles},
        {"lat_dram_cycles", p->lat_dram_cycles}, {"knee_bif_per_sm", p->knee_bif_per_sm},
        {"knee_latency_ns", p->knee_latency_ns}, {"knee_gbs", p->knee_gbs},
        {"launch_event_us", p->launch_event_us}, {"launch_b2b_us", p->launch_b2b_us},
        {"launch_graph_us", p->launch_graph_us}, {"l2_read_gbs", p->l2_read_gbs},
        {"wv_coalesced_gbs", p->wv_coalesced_gbs}, {"wv_stride8_gbs", p->wv_stride8_gbs},
    };
    for (size_t i = 0; i < sizeof m / sizeof m[0]; i++)
        FUZZ_CHECK(m[i].v == -1.0 || (isfinite(m[i].v) && m[i].v >= 0), "%s = %g", m[i].name, m[i].v);
    FUZZ_CHECK(p->bif_n >= 0 && p->bif_n <= SL_PROFILE_MAX_BIF, "bif_n %d", p->bif_n);
    for (int i = 0; i < p->bif_n; i++)
        FUZZ_CHECK(isfinite(p->bif_x[i]) && p->bif_x[i] > 0 && isfinite(p->bif_y[i]) && p->bif_y[i] > 0,
                   "bytes-in-flight point %d: (%g, %g)", i, p->bif_x[i], p->bif_y[i]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static sl_profile p, q; /* 2 KiB each: off the stack */
    static char message[1024];
    sl_status st = sl_profile_parse((const char *)data, size, PATH, &p);
    FUZZ_CHECK(st == SL_OK || st == SL_ERR_IO, "status %d", (int)st);
    if (st == SL_OK)
        check_accepted(&p);
    else
        FUZZ_CHECK(strstr(sl_last_error(), PATH) != NULL, "message '%s' does not name the file", sl_last_error());
    snprintf(message, sizeof message, "%s", sl_last_error());

    /* The same bytes with more text after them must change nothing. */
    char *more = fuzz_with_tail(data, size);
    sl_status st2 = sl_profile_parse(more, size, PATH, &q);
    free(more);
    FUZZ_CHECK(st2 == st, "status %d, with text after the end %d", (int)st, (int)st2);
    if (st == SL_OK)
        FUZZ_CHECK(memcmp(&p, &q, sizeof p) == 0, "text after the end changed the profile");
    else
        FUZZ_CHECK(strcmp(message, sl_last_error()) == 0, "text after the end changed the message: '%s' / '%s'",
                   message, sl_last_error());
    return 0;
}
