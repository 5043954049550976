/*
 * profile.c - see profile.h. The field table below is the one place that
 * names the JSON keys: reader and writer both walk it.
 */
#define _POSIX_C_SOURCE 200809L
#include "profile.h"

#include "internal.h"
#include "jsonparse.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct field {
    const char *section;
    const char *key;
    size_t offset;
} field;

#define F(sec, key, member) {sec, key, offsetof(sl_profile, member)}
static const field fields[] = {
    F("ceilings", "copy_memcpy_gbs", copy_memcpy_gbs), F("ceilings", "copy_sm_gbs", copy_sm_gbs),
    F("ceilings", "read_gbs", read_gbs),               F("ceilings", "write_gbs", write_gbs),
    F("ceilings", "add_gbs", add_gbs),                 F("ceilings", "add_plain_gbs", add_plain_gbs),
    F("ceilings", "add_demoted_gbs", add_demoted_gbs), F("latency", "l1_ns", lat_l1_ns),
    F("latency", "l2_ns", lat_l2_ns),                  F("latency", "dram_ns", lat_dram_ns),
    F("latency", "l1_cycles", lat_l1_cycles),          F("latency", "l2_cycles", lat_l2_cycles),
    F("latency", "dram_cycles", lat_dram_cycles),      F("littles_law", "knee_bif_per_sm", knee_bif_per_sm),
    F("littles_law", "knee_latency_ns", knee_latency_ns), F("littles_law", "knee_gbs", knee_gbs),
    F("launch", "event_us", launch_event_us),          F("launch", "back_to_back_us", launch_b2b_us),
    F("launch", "graph_us", launch_graph_us),          F("l2", "read_gbs", l2_read_gbs),
    F("write_validate", "coalesced_gbs", wv_coalesced_gbs),
    F("write_validate", "stride8_gbs", wv_stride8_gbs),
    F("smem", "bytes_per_clk_per_sm", smem_bytes_per_clk_sm), F("smem", "gbs", smem_gbs),
    F("smem", "conflict32_ratio", smem_conflict32_ratio), F("smem", "sweep_max_rel_err", smem_sweep_max_err),
    F("l1", "bytes_per_clk_per_sm", l1_bytes_per_clk_sm), F("l1", "gbs", l1_gbs),
    F("constant", "broadcast_cycles", const_broadcast_cycles),
    F("constant", "divergent32_ratio", const_divergent32_ratio),
    F("divergence", "intra2_ratio", div_intra2_ratio), F("divergence", "inter2_ratio", div_inter2_ratio),
    F("divergence", "intra8_ratio", div_intra8_ratio), F("divergence", "inter8_ratio", div_inter8_ratio),
};
#undef F
#define NFIELDS (sizeof fields / sizeof fields[0])

static double *member(sl_profile *p, const field *f)
{
    return (double *)((char *)p + f->offset);
}

void sl_profile_init(sl_profile *p)
{
    memset(p, 0, sizeof *p);
    for (size_t i = 0; i < NFIELDS; i++)
        *member(p, &fields[i]) = -1.0;
    p->peak_gbs = -1.0;
    p->sm_clock_max_mhz = p->mem_clock_mhz = p->sm_clock_now_mhz = p->mem_clock_now_mhz = p->ecc = -1;
}

void sl_profile_default_name(const char *device, char *buf, size_t len)
{
    size_t j = 0;
    for (size_t i = 0; device[i] && j + 1 < len; i++) {
        char ch = device[i];
        buf[j++] = (ch == ' ' || ch == '/' || ch == '\\' || ch == ':') ? '-' : ch;
    }
    buf[j] = 0;
    strncat(buf, ".profile.json", len - j - 1);
}

static void copy_string(const cJSON *o, const char *key, char *dst, size_t len)
{
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(o, key);
    if (cJSON_IsString(s))
        snprintf(dst, len, "%s", s->valuestring);
}

sl_status sl_profile_read(const char *path, sl_profile *out)
{
    sl_profile_init(out);
    size_t len = 0;
    char *text = sl_read_file(path, &len);
    if (!text)
        return sl_fail(SL_ERR_IO, "profile %s: cannot read: %s", path, sl_read_error(errno));
    sl_status st = sl_profile_parse(text, len, path, out);
    free(text);
    return st;
}

sl_status sl_profile_parse(const char *text, size_t len, const char *path, sl_profile *out)
{
    sl_profile_init(out);
    char why[256];
    cJSON *root = sl_json_parse(text, len, why, sizeof why);
    if (!root)
        return sl_fail(SL_ERR_IO, "profile %s: %s", path, why);
    if (!cJSON_IsObject(root)) {
        cJSON_Delete(root);
        return sl_fail(SL_ERR_IO, "profile %s: not a JSON object", path);
    }
    sl_status st = SL_OK;
    const cJSON *schema = cJSON_GetObjectItemCaseSensitive(root, "schema");
    if (!cJSON_IsString(schema) || strcmp(schema->valuestring, SL_PROFILE_SCHEMA) != 0) {
        st = sl_fail(SL_ERR_IO, "profile %s: schema is %s%s%s, expected \"%s\"", path,
                     cJSON_IsString(schema) ? "\"" : "", cJSON_IsString(schema) ? schema->valuestring : "missing",
                     cJSON_IsString(schema) ? "\"" : "", SL_PROFILE_SCHEMA);
        goto done;
    }
    const cJSON *dev = cJSON_GetObjectItemCaseSensitive(root, "device");
    if (!cJSON_IsObject(dev)) {
        st = sl_fail(SL_ERR_IO, "profile %s: no \"device\" object", path);
        goto done;
    }
    copy_string(dev, "name", out->device, sizeof out->device);
    copy_string(dev, "backend", out->backend, sizeof out->backend);
    copy_string(dev, "uuid", out->uuid, sizeof out->uuid);
    {
        /* optional whole numbers (issue 17); out of range: not recorded */
        const struct { const char *key; int *dst; } ints[] = {
            {"sm_clock_max_mhz", &out->sm_clock_max_mhz}, {"mem_clock_mhz", &out->mem_clock_mhz},
            {"sm_clock_now_mhz", &out->sm_clock_now_mhz}, {"mem_clock_now_mhz", &out->mem_clock_now_mhz},
            {"ecc", &out->ecc}};
        for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++) {
            const cJSON *x = cJSON_GetObjectItemCaseSensitive(dev, ints[i].key);
            if (cJSON_IsNumber(x) && x->valuedouble >= 0 && x->valuedouble <= 1e6 &&
                (double)x->valueint == x->valuedouble)
                *ints[i].dst = x->valueint;
        }
    }
    copy_string(root, "created", out->created, sizeof out->created);
    if (!out->device[0]) {
        st = sl_fail(SL_ERR_IO, "profile %s: device.name is missing", path);
        goto done;
    }
    const cJSON *v;
    if (cJSON_IsNumber(v = cJSON_GetObjectItemCaseSensitive(dev, "sm_count"))) {
        /* A whole number that fits an int (cJSON's valueint saturates, so it
         * equals valuedouble exactly then). A negative count passed, and
         * -1e10 became INT_MIN (found by tests/fuzz/fuzz_profile). */
        if (v->valuedouble < 0 || (double)v->valueint != v->valuedouble) {
            st = sl_fail(SL_ERR_IO, "profile %s: device.sm_count must be a whole number >= 0", path);
            goto done;
        }
        out->sm_count = v->valueint;
    }
    if (cJSON_IsNumber(v = cJSON_GetObjectItemCaseSensitive(dev, "peak_gbs"))) {
        /* A bandwidth like the measurements below: -2.1e13 passed unchecked
         * (found by tests/fuzz/fuzz_profile), and so did 1e999 (= inf). */
        if (!isfinite(v->valuedouble) || v->valuedouble < 0) {
            st = sl_fail(SL_ERR_IO, "profile %s: device.peak_gbs must be a non-negative number", path);
            goto done;
        }
        out->peak_gbs = v->valuedouble;
    }
    if (cJSON_IsString(v = cJSON_GetObjectItemCaseSensitive(dev, "compute_capability"))) {
        /* "MAJOR.MINOR", 1 to 3 digits each. sscanf's %d gave "0.-10" a
         * negative minor (found by tests/fuzz/fuzz_profile), and took
         * spaces, trailing text and out-of-range digit runs. */
        const char *cc = v->valuestring;
        size_t nmaj = strspn(cc, "0123456789");
        size_t nmin = cc[nmaj] == '.' ? strspn(cc + nmaj + 1, "0123456789") : 0;
        if (nmaj < 1 || nmaj > 3 || nmin < 1 || nmin > 3 || cc[nmaj + 1 + nmin]) {
            st = sl_fail(SL_ERR_IO, "profile %s: device.compute_capability must be \"MAJOR.MINOR\", as in \"9.0\"",
                         path);
            goto done;
        }
        out->cc_major = atoi(cc);
        out->cc_minor = atoi(cc + nmaj + 1);
    }
    for (size_t i = 0; i < NFIELDS; i++) {
        const cJSON *sec = cJSON_GetObjectItemCaseSensitive(root, fields[i].section);
        if (!sec)
            continue;
        if (!cJSON_IsObject(sec)) {
            st = sl_fail(SL_ERR_IO, "profile %s: \"%s\" is not an object", path, fields[i].section);
            goto done;
        }
        const cJSON *x = cJSON_GetObjectItemCaseSensitive(sec, fields[i].key);
        if (!x || cJSON_IsNull(x))
            continue; /* not measured */
        if (!cJSON_IsNumber(x) || !isfinite(x->valuedouble) || x->valuedouble < 0) {
            st = sl_fail(SL_ERR_IO, "profile %s: %s.%s must be a non-negative number", path, fields[i].section,
                         fields[i].key);
            goto done;
        }
        *member(out, &fields[i]) = x->valuedouble;
    }
    /* The bytes-in-flight curve, for the model's latency term. */
    const cJSON *pts = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(root, "points"),
                                                        "bytes_in_flight");
    const cJSON *pt;
    cJSON_ArrayForEach(pt, pts)
    {
        const cJSON *x = cJSON_GetObjectItemCaseSensitive(pt, "bytes_in_flight_per_sm");
        const cJSON *y = cJSON_GetObjectItemCaseSensitive(pt, "gbs");
        /* isfinite: 1e999 parses as inf, which passed "> 0" (found by
         * tests/fuzz/fuzz_profile) */
        if (!cJSON_IsNumber(x) || !cJSON_IsNumber(y) || !isfinite(x->valuedouble) || !isfinite(y->valuedouble) ||
            x->valuedouble <= 0 || y->valuedouble <= 0) {
            st = sl_fail(SL_ERR_IO,
                         "profile %s: points.bytes_in_flight needs finite positive bytes_in_flight_per_sm and gbs",
                         path);
            goto done;
        }
        if (out->bif_n < SL_PROFILE_MAX_BIF) {
            out->bif_x[out->bif_n] = x->valuedouble;
            out->bif_y[out->bif_n] = y->valuedouble;
            out->bif_n++;
        }
    }
done:
    cJSON_Delete(root);
    return st;
}

cJSON *sl_profile_read_points(const char *path)
{
    size_t len = 0;
    char *text = sl_read_file(path, &len);
    if (!text)
        return NULL;
    cJSON *root = cJSON_ParseWithLength(text, len);
    free(text);
    cJSON *pts = root ? cJSON_DetachItemFromObjectCaseSensitive(root, "points") : NULL;
    cJSON_Delete(root);
    if (pts && !cJSON_IsObject(pts)) {
        cJSON_Delete(pts);
        pts = NULL;
    }
    return pts;
}

char *sl_profile_text(const sl_profile *p, const struct cJSON *points)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "schema", SL_PROFILE_SCHEMA);
    cJSON_AddStringToObject(root, "streamlab_version", SL_VERSION_STRING);
    cJSON_AddStringToObject(root, "created", p->created);
    cJSON *dev = cJSON_AddObjectToObject(root, "device");
    cJSON_AddStringToObject(dev, "name", p->device);
    cJSON_AddStringToObject(dev, "backend", p->backend);
    char cc[16];
    snprintf(cc, sizeof cc, "%d.%d", p->cc_major, p->cc_minor);
    cJSON_AddStringToObject(dev, "compute_capability", cc);
    cJSON_AddNumberToObject(dev, "sm_count", p->sm_count);
    if (p->peak_gbs > 0)
        cJSON_AddNumberToObject(dev, "peak_gbs", p->peak_gbs);
    if (p->uuid[0])
        cJSON_AddStringToObject(dev, "uuid", p->uuid);
    const struct { const char *key; int v; } ints[] = {
        {"sm_clock_max_mhz", p->sm_clock_max_mhz}, {"mem_clock_mhz", p->mem_clock_mhz},
        {"sm_clock_now_mhz", p->sm_clock_now_mhz}, {"mem_clock_now_mhz", p->mem_clock_now_mhz}, {"ecc", p->ecc}};
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++)
        if (ints[i].v >= 0)
            cJSON_AddNumberToObject(dev, ints[i].key, ints[i].v);
    for (size_t i = 0; i < NFIELDS; i++) {
        cJSON *sec = cJSON_GetObjectItemCaseSensitive(root, fields[i].section);
        if (!sec)
            sec = cJSON_AddObjectToObject(root, fields[i].section);
        double x = *member((sl_profile *)p, &fields[i]);
        if (x >= 0)
            cJSON_AddNumberToObject(sec, fields[i].key, x);
        else
            cJSON_AddNullToObject(sec, fields[i].key);
    }
    if (points)
        cJSON_AddItemToObject(root, "points", cJSON_Duplicate(points, 1));
    char *text = cJSON_Print(root);
    cJSON_Delete(root);
    return text;
}

sl_status sl_profile_write(const char *path, const sl_profile *p, const struct cJSON *points)
{
    char *text = sl_profile_text(p, points);
    if (!text)
        return sl_fail(SL_ERR_NO_MEMORY, "out of memory serialising the profile");
    sl_status st = sl_write_atomic(path, text, SL_PROFILE_SCHEMA);
    free(text);
    return st;
}
