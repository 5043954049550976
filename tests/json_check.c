/*
 * json_check FILE STATUS MIN_ROWS [MAX_ROWS]
 *
 * Used by test_cli.sh: parse a results file with cJSON and check that it is
 * a complete, valid streamlab.run/1 document with the expected status and
 * row count, and that every verified row has a positive bandwidth.
 */
#include "check.h"
#include "internal.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: json_check FILE STATUS MIN_ROWS [MAX_ROWS]\n");
        return 2;
    }
    size_t len = 0;
    char *text = sl_read_file(argv[1], &len);
    CHECK(text != NULL, "cannot read %s", argv[1]);
    if (!text)
        return check_exit("json_check");
    cJSON *root = cJSON_Parse(text);
    CHECK(root != NULL, "%s is not valid JSON near: %.40s", argv[1], cJSON_GetErrorPtr());
    if (!root)
        return check_exit("json_check");
    const cJSON *schema = cJSON_GetObjectItemCaseSensitive(root, "schema");
    CHECK(cJSON_IsString(schema) && strcmp(schema->valuestring, "streamlab.run/1") == 0, "schema");
    const cJSON *status = cJSON_GetObjectItemCaseSensitive(root, "status");
    CHECK(cJSON_IsString(status) && strcmp(status->valuestring, argv[2]) == 0, "status '%s', want '%s'",
          cJSON_IsString(status) ? status->valuestring : "?", argv[2]);
    const cJSON *rows = cJSON_GetObjectItemCaseSensitive(root, "results");
    int n = cJSON_GetArraySize(rows);
    int lo = atoi(argv[3]), hi = argc > 4 ? atoi(argv[4]) : 1 << 30;
    CHECK(cJSON_IsArray(rows) && n >= lo && n <= hi, "%d rows, want %d..%d", n, lo, hi);
    const cJSON *row;
    cJSON_ArrayForEach(row, rows)
    {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(row, "variant");
        const cJSON *st = cJSON_GetObjectItemCaseSensitive(row, "status");
        CHECK(cJSON_IsString(v) && cJSON_IsString(st), "row lacks variant or status");
        if (cJSON_IsString(st) && strcmp(st->valuestring, "ok") == 0) {
            const cJSON *g = cJSON_GetObjectItemCaseSensitive(row, "gbs");
            const cJSON *ver = cJSON_GetObjectItemCaseSensitive(row, "verified");
            CHECK(cJSON_IsNumber(g) && g->valuedouble > 0, "ok row %s without a bandwidth", v->valuestring);
            CHECK(cJSON_IsTrue(ver), "ok row %s not verified", v->valuestring);
        }
    }
    if (argc > 5) { /* optional: a variant whose row must have this status */
        int found = 0;
        cJSON_ArrayForEach(row, rows)
        {
            const cJSON *v = cJSON_GetObjectItemCaseSensitive(row, "variant");
            const cJSON *st = cJSON_GetObjectItemCaseSensitive(row, "status");
            char want[64];
            snprintf(want, sizeof want, "%s=%s", v->valuestring, st->valuestring);
            found |= strcmp(want, argv[5]) == 0;
        }
        CHECK(found, "no row %s", argv[5]);
    }
    cJSON_Delete(root);
    free(text);
    return check_exit("json_check");
}
