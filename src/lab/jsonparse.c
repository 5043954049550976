/*
 * jsonparse.c - see jsonparse.h.
 */
#include "jsonparse.h"

#include <stdio.h>

/* The first byte of text[0, stop] where arrays and objects (outside
 * strings) are open CJSON_NESTING_LIMIT deep, or -1. cJSON refuses the
 * bracket that reaches its limit, so a parse that stopped there stopped
 * on depth, not on a syntax error. */
static long too_deep_at(const char *text, size_t stop)
{
    long depth = 0;
    int in_string = 0;
    for (size_t i = 0; i <= stop; i++) {
        const char ch = text[i];
        if (in_string) {
            if (ch == '\\')
                i++;
            else if (ch == '"')
                in_string = 0;
        } else if (ch == '"') {
            in_string = 1;
        } else if (ch == '[' || ch == '{') {
            if (++depth >= CJSON_NESTING_LIMIT)
                return (long)i;
        } else if (ch == ']' || ch == '}') {
            depth--;
        }
    }
    return -1;
}

cJSON *sl_json_parse(const char *text, size_t len, char *why, size_t why_len)
{
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(text, len, &end, 0);
    if (root)
        return root;
    const size_t at = end && end >= text ? (size_t)(end - text) : 0;
    const long deep = len ? too_deep_at(text, at < len ? at : len - 1) : -1;
    if (deep >= 0)
        snprintf(why, why_len,
                 "too deeply nested: arrays and objects open %d deep at byte %ld, the parser's limit "
                 "(CJSON_NESTING_LIMIT); streamlab's files nest fewer than 10",
                 CJSON_NESTING_LIMIT, deep);
    else
        snprintf(why, why_len, "not valid JSON (parsing stopped at byte %zu of %zu%s)", at, len,
                 at >= len ? ": the text looks truncated" : "");
    return NULL;
}
