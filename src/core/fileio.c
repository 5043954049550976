/*
 * fileio.c - replacing a file atomically, so that a reader (or a crash)
 * sees either the old content or the new, never half of it.
 */
#define _POSIX_C_SOURCE 200809L
#include "internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

sl_status sl_write_atomic(const char *path, const char *text)
{
    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s.tmp", path) >= (int)sizeof tmp)
        return sl_fail(SL_ERR_IO, "path too long: %s", path);
    FILE *f = fopen(tmp, "w");
    if (!f)
        return sl_fail(SL_ERR_IO, "cannot write %s: %s", tmp, strerror(errno));
    size_t n = strlen(text);
    int ok = fputs(text, f) >= 0 && (n == 0 || text[n - 1] == '\n' || fputc('\n', f) != EOF);
    ok = (fclose(f) == 0) && ok;
    if (!ok || rename(tmp, path) != 0) {
        sl_status st = sl_fail(SL_ERR_IO, "cannot write %s: %s", path, strerror(errno));
        remove(tmp);
        return st;
    }
    return SL_OK;
}

char *sl_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = NULL;
    if (fseek(f, 0, SEEK_END) == 0) {
        long n = ftell(f);
        if (n >= 0 && fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)n + 1)) != NULL) {
            if (fread(buf, 1, (size_t)n, f) != (size_t)n) {
                free(buf);
                buf = NULL;
            } else {
                buf[n] = 0;
                *len = (size_t)n;
            }
        }
    }
    fclose(f);
    return buf;
}
