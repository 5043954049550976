/*
 * jsonparse.h - cJSON's parser with a reason when it refuses a text, for
 * every JSON file the lab reads (results, profiles, --hw descriptions).
 */
#ifndef SL_JSONPARSE_H
#define SL_JSONPARSE_H

#include <cjson/cJSON.h>
#include <stddef.h>

/* The tree of text[0, len), or NULL with why filled: "too deeply nested:
 * arrays and objects open 1000 deep at byte N, the parser's limit
 * (CJSON_NESTING_LIMIT) ..." for a document that may be valid but is too
 * deep to read, else "not valid JSON (parsing stopped at byte N of LEN)"
 * (": the text looks truncated" when N is the end). */
cJSON *sl_json_parse(const char *text, size_t len, char *why, size_t why_len);

#endif /* SL_JSONPARSE_H */
