/*
 * fuzz_hw.c - libFuzzer target for the hardware-description reader
 * (sl_hw_parse, src/lab/hw.c) on the input as the text of a --hw file
 * (exactly `size` bytes, not NUL-terminated).
 *
 * Properties, beyond "no crash, no sanitizer report, no leak":
 *   - the status is SL_OK or SL_ERR_IO, and an error message names the file;
 *   - an accepted description has a terminated name, a compute capability
 *     >= 0, sm_count, sm_clock_ghz and peak_dram_gbs > 0, and every
 *     parameter either unset (source "none", value 0) or finite and > 0
 *     with a known source and a terminated reference; no bytes-in-flight
 *     curve (only a probe profile brings one);
 *   - the parse reads nothing past `size`: the same bytes followed by more
 *     text give the same status, message and description.
 */
#include "fuzz_common.h"
#include "hw.h"

#include <math.h>

#define PATH "fuzz.hw.json"

static void check_accepted(const sl_hw *hw)
{
    FUZZ_CHECK(fuzz_terminated(hw->name, sizeof hw->name), "name unterminated");
    FUZZ_CHECK(hw->cc >= 0, "cc %d", hw->cc);
    for (int k = 0; k < HW_NKEYS; k++) {
        const sl_param *p = &hw->p[k];
        const char *name = sl_hw_key_name((sl_hw_key)k);
        FUZZ_CHECK(p->src >= SL_SRC_NONE && p->src <= SL_SRC_USER, "%s: source %d", name, (int)p->src);
        FUZZ_CHECK(fuzz_terminated(p->ref, sizeof p->ref), "%s: reference unterminated", name);
        if (p->src == SL_SRC_NONE)
            FUZZ_CHECK(p->v == 0, "%s: unset but %g", name, p->v);
        else
            FUZZ_CHECK(isfinite(p->v) && p->v > 0, "%s = %g (%s)", name, p->v, sl_src_name(p->src));
    }
    FUZZ_CHECK(hw->p[HW_SM_COUNT].v > 0 && hw->p[HW_SM_CLOCK_GHZ].v > 0 && hw->p[HW_PEAK_DRAM_GBS].v > 0,
               "a required parameter is missing");
    FUZZ_CHECK(hw->bif_n == 0, "a --hw file brought a bytes-in-flight curve (%d points)", hw->bif_n);
}

/* Field by field: bytes after a string's NUL may differ (sl_hw keeps
 * strings formatted in stack buffers). */
static int same(const sl_hw *x, const sl_hw *y)
{
    if (strcmp(x->name, y->name) != 0 || x->cc != y->cc || x->bif_n != y->bif_n)
        return 0;
    for (int k = 0; k < HW_NKEYS; k++)
        if (memcmp(&x->p[k].v, &y->p[k].v, sizeof x->p[k].v) != 0 || x->p[k].src != y->p[k].src ||
            strcmp(x->p[k].ref, y->p[k].ref) != 0)
            return 0;
    return memcmp(&x->knee_bif_per_sm, &y->knee_bif_per_sm, sizeof(double)) == 0 &&
           memcmp(&x->knee_latency_ns, &y->knee_latency_ns, sizeof(double)) == 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static sl_hw a, b; /* 6 KiB each: off the stack */
    static char message[1024];
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    sl_status st = sl_hw_parse((const char *)data, size, PATH, &a);
    FUZZ_CHECK(st == SL_OK || st == SL_ERR_IO, "status %d", (int)st);
    if (st == SL_OK)
        check_accepted(&a);
    else
        FUZZ_CHECK(strstr(sl_last_error(), PATH) != NULL, "message '%s' does not name the file", sl_last_error());
    snprintf(message, sizeof message, "%s", sl_last_error());

    /* The same bytes with more text after them must change nothing. */
    char *more = fuzz_with_tail(data, size);
    sl_status st2 = sl_hw_parse(more, size, PATH, &b);
    free(more);
    FUZZ_CHECK(st2 == st, "status %d, with text after the end %d", (int)st, (int)st2);
    if (st == SL_OK)
        FUZZ_CHECK(same(&a, &b), "text after the end changed the description");
    else
        FUZZ_CHECK(strcmp(message, sl_last_error()) == 0, "text after the end changed the message: '%s' / '%s'",
                   message, sl_last_error());
    return 0;
}
