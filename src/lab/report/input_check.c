/*
 * input_check.c - see input_check.h.
 */
#include "input_check.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* A value as the message shows it: the JSON text, cut short. */
static void show(const cJSON *v, char *buf, size_t len)
{
    if (!v) {
        snprintf(buf, len, "missing");
        return;
    }
    char *text = cJSON_PrintUnformatted(v);
    snprintf(buf, len, "%.40s%s", text ? text : "?", text && strlen(text) > 40 ? "..." : "");
    cJSON_free(text);
}

static bool bad(char *why, size_t len, const char *path, const char *want, const cJSON *v)
{
    char got[64];
    show(v, got, sizeof got);
    snprintf(why, len, "%s: %s, not %s", path, want, got);
    return false;
}

typedef enum { F_STRING, F_NUMBER, F_INTEGER } field_kind;

typedef struct field {
    const char *key;
    field_kind kind;
    bool required, nullable;
    double lo, hi;
    const char *unit;
} field;

/* One field of obj (at path) against its rule. */
static bool check_field(const cJSON *obj, const char *path, const field *f, char *why, size_t len)
{
    char p[160], want[128];
    snprintf(p, sizeof p, "%s.%s", path, f->key);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, f->key);
    if (!v)
        return f->required ? bad(why, len, p, f->kind == F_STRING ? "a string is required" : "a number is required", v)
                           : true;
    if (cJSON_IsNull(v) && f->nullable)
        return true;
    if (f->kind == F_STRING) {
        if (!cJSON_IsString(v) || !v->valuestring || !v->valuestring[0])
            return bad(why, len, p, "a non-empty string", v);
        return true;
    }
    snprintf(want, sizeof want, "%s from %.15g to %.15g%s%s%s%s", f->kind == F_INTEGER ? "a whole number" : "a number",
             f->lo, f->hi, f->unit ? " (" : "", f->unit ? f->unit : "", f->unit ? ")" : "", f->nullable ? " or null" : "");
    if (!cJSON_IsNumber(v))
        return bad(why, len, p, want, v);
    const double x = v->valuedouble;
    if (!isfinite(x) || x < f->lo || x > f->hi || (f->kind == F_INTEGER && x != floor(x))) {
        /* 1e999 parses to infinity: show the number as read, not the text */
        snprintf(why, len, "%s: %s, not %.6g", p, want, x);
        return false;
    }
    return true;
}

static bool check_fields(const cJSON *obj, const char *path, const field *fs, int n, char *why, size_t len)
{
    if (!cJSON_IsObject(obj))
        return bad(why, len, path, "an object", obj);
    for (int i = 0; i < n; i++)
        if (!check_field(obj, path, &fs[i], why, len))
            return false;
    return true;
}

static const field device_fields[] = {
    {"name", F_STRING, true, false, 0, 0, NULL},
    {"backend", F_STRING, true, false, 0, 0, NULL},
    {"sm_count", F_INTEGER, false, true, 0, 1e6, NULL},
    {"l2_bytes", F_NUMBER, false, true, 0, 1e15, "bytes"},
    {"peak_gbs", F_NUMBER, false, true, 0, SL_CHECK_MAX_GBS, "GB/s"},
};

static bool check_device(const cJSON *d, const char *path, char *why, size_t len)
{
    if (!check_fields(d, path, device_fields, (int)(sizeof device_fields / sizeof device_fields[0]), why, len))
        return false;
    const char *b = cJSON_GetObjectItemCaseSensitive(d, "backend")->valuestring;
    if (strcmp(b, "cuda") != 0 && strcmp(b, "cpu") != 0) {
        char p[160];
        snprintf(p, sizeof p, "%s.backend", path);
        return bad(why, len, p, "\"cuda\" or \"cpu\"", cJSON_GetObjectItemCaseSensitive(d, "backend"));
    }
    return true;
}

static const field row_fields[] = {
    {"op", F_STRING, true, false, 0, 0, NULL},
    {"dtype", F_STRING, true, false, 0, 0, NULL},
    {"variant", F_STRING, true, false, 0, 0, NULL},
    {"status", F_STRING, false, false, 0, 0, NULL},
    {"n", F_INTEGER, true, false, 0, SL_CHECK_MAX_N, "elements"},
    {"device", F_INTEGER, false, false, 0, 1023, "an index into $.devices"},
    {"bytes", F_NUMBER, false, true, 0, 1e18, "bytes"},
    {"trials", F_INTEGER, false, true, 0, 1e9, NULL},
    {"gbs", F_NUMBER, false, true, 0, SL_CHECK_MAX_GBS, "GB/s"},
    {"gbs_best", F_NUMBER, false, true, 0, SL_CHECK_MAX_GBS, "GB/s"},
    {"pct_peak", F_NUMBER, false, true, 0, SL_CHECK_MAX_PCT, "%"},
    /* tiny sizes time the copy near the clock's resolution: any finite ratio */
    {"pct_copy", F_NUMBER, false, true, 0, DBL_MAX, "%"},
    {"x_peer", F_NUMBER, false, true, 0, DBL_MAX, NULL},
    {"transfer_ms", F_NUMBER, false, true, 0, SL_CHECK_MAX_MS, "ms"},
};

static const field time_fields[] = {
    {"mean", F_NUMBER, false, true, 0, SL_CHECK_MAX_MS, "ms"},
    {"min", F_NUMBER, false, true, 0, SL_CHECK_MAX_MS, "ms"},
    {"median", F_NUMBER, false, true, 0, SL_CHECK_MAX_MS, "ms"},
    {"max", F_NUMBER, false, true, 0, SL_CHECK_MAX_MS, "ms"},
};

bool sl_check_run_input(const cJSON *root, char *why, size_t len)
{
    const cJSON *dev = cJSON_GetObjectItemCaseSensitive(root, "device");
    const cJSON *devs = cJSON_GetObjectItemCaseSensitive(root, "devices");
    int ndev = 1;
    if (devs) {
        if (!cJSON_IsArray(devs) || cJSON_GetArraySize(devs) < 1)
            return bad(why, len, "$.devices", "a non-empty array of devices", devs);
        ndev = cJSON_GetArraySize(devs);
        for (int i = 0; i < ndev; i++) {
            char p[64];
            snprintf(p, sizeof p, "$.devices[%d]", i);
            if (!check_device(cJSON_GetArrayItem(devs, i), p, why, len))
                return false;
        }
    } else if (!dev) {
        return bad(why, len, "$.device", "the device the rows ran on (an object) is required", dev);
    }
    if (dev && !check_device(dev, "$.device", why, len))
        return false;
    const cJSON *rows = cJSON_GetObjectItemCaseSensitive(root, "results");
    if (!cJSON_IsArray(rows))
        return bad(why, len, "$.results", "an array of rows", rows);
    if (cJSON_GetArraySize(rows) < 1)
        return bad(why, len, "$.results", "at least one row", rows);
    int i = 0;
    const cJSON *row;
    cJSON_ArrayForEach(row, rows)
    {
        char p[64];
        snprintf(p, sizeof p, "$.results[%d]", i);
        if (!check_fields(row, p, row_fields, (int)(sizeof row_fields / sizeof row_fields[0]), why, len))
            return false;
        const cJSON *d = cJSON_GetObjectItemCaseSensitive(row, "device");
        if (d && d->valuedouble >= ndev) {
            char q[96];
            snprintf(q, sizeof q, "%s.device", p);
            char want[64];
            snprintf(want, sizeof want, "an index below %d (the devices listed)", ndev);
            return bad(why, len, q, want, d);
        }
        const cJSON *t = cJSON_GetObjectItemCaseSensitive(row, "time_ms");
        if (t && !cJSON_IsNull(t)) {
            char q[96];
            snprintf(q, sizeof q, "%s.time_ms", p);
            if (!check_fields(t, q, time_fields, (int)(sizeof time_fields / sizeof time_fields[0]), why, len))
                return false;
        }
        i++;
    }
    return true;
}

bool sl_check_profile_input(const cJSON *root, char *why, size_t len)
{
    return check_device(cJSON_GetObjectItemCaseSensitive(root, "device"), "$.device", why, len);
}
