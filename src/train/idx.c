/*
 * idx.c - the IDX reader (idx.h): zlib's gzread, every header field and the
 * data length checked, a precise message for each way a file can be wrong.
 */
#define _POSIX_C_SOURCE 200809L
#include "idx.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

/* Read exactly n bytes; returns the number read (< n at end of file), or
 * -1 on a zlib error (message in err). */
static long long read_full(gzFile g, void *buf, size_t n, const char *path, char *err, size_t errlen)
{
    size_t got = 0;
    while (got < n) {
        size_t want = n - got > (1u << 30) ? (1u << 30) : n - got;
        int r = gzread(g, (char *)buf + got, (unsigned)want);
        if (r < 0) {
            int zerr;
            const char *m = gzerror(g, &zerr);
            fail(err, errlen, "%s: cannot decompress: %s", path, zerr == Z_ERRNO ? strerror(errno) : m);
            return -1;
        }
        if (r == 0)
            break;
        got += (size_t)r;
    }
    return (long long)got;
}

int idx_read(const char *path, int want_ndims, idx_file *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    struct stat sb;
    if (stat(path, &sb) != 0)
        return fail(err, errlen, "%s: %s", path, strerror(errno));
    if (!S_ISREG(sb.st_mode))
        return fail(err, errlen, "%s: not a regular file", path);
    gzFile g = gzopen(path, "rb");
    if (!g)
        return fail(err, errlen, "%s: cannot open: %s", path, errno ? strerror(errno) : "out of memory");
    unsigned char hdr[4 + 4 * 4];
    int rc = -1;
    long long r = read_full(g, hdr, 4, path, err, errlen);
    if (r < 0)
        goto done;
    if (r < 4) {
        fail(err, errlen, "%s: truncated: %lld of 4 header bytes (not an IDX file?)", path, r);
        goto done;
    }
    if (hdr[0] != 0 || hdr[1] != 0) {
        fail(err, errlen, "%s: bad magic number 0x%02x%02x%02x%02x: not an IDX file (the first two bytes must be 0)",
             path, hdr[0], hdr[1], hdr[2], hdr[3]);
        goto done;
    }
    if (hdr[2] != 0x08) {
        fail(err, errlen, "%s: element type 0x%02x: only unsigned bytes (0x08) are supported", path, hdr[2]);
        goto done;
    }
    if (hdr[3] != want_ndims) {
        fail(err, errlen, "%s: %d dimensions, expected %d (%s file)", path, hdr[3], want_ndims,
             want_ndims == 3 ? "an image" : want_ndims == 1 ? "a label" : "this");
        goto done;
    }
    r = read_full(g, hdr + 4, 4u * (unsigned)want_ndims, path, err, errlen);
    if (r < 0)
        goto done;
    if (r < 4 * want_ndims) {
        fail(err, errlen, "%s: truncated: %lld of %d dimension bytes", path, r, 4 * want_ndims);
        goto done;
    }
    out->ndims = want_ndims;
    unsigned long long total = 1;
    for (int d = 0; d < want_ndims; d++) {
        const unsigned char *p = hdr + 4 + 4 * d;
        out->dims[d] = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
        if (out->dims[d] == 0) {
            fail(err, errlen, "%s: dimension %d is 0", path, d);
            goto done;
        }
        total *= out->dims[d];
        if (total >= (1ull << 31)) {
            fail(err, errlen, "%s: %s of 2^31 bytes or more: not a data set this tool reads", path,
                 "a data section");
            goto done;
        }
    }
    out->count = out->dims[0];
    out->per = (size_t)(total / out->dims[0]);
    out->data = malloc((size_t)total);
    if (!out->data) {
        fail(err, errlen, "%s: out of memory for %llu bytes", path, total);
        goto done;
    }
    r = read_full(g, out->data, (size_t)total, path, err, errlen);
    if (r < 0)
        goto done;
    if ((unsigned long long)r < total) {
        fail(err, errlen, "%s: truncated: %lld of %llu data bytes (%u items x %zu)", path, r, total, out->dims[0],
             out->per);
        goto done;
    }
    unsigned char extra;
    r = read_full(g, &extra, 1, path, err, errlen);
    if (r < 0)
        goto done;
    if (r > 0) {
        fail(err, errlen, "%s: trailing bytes after the %llu data bytes the header declares", path, total);
        goto done;
    }
    rc = 0;
done:
    gzclose(g);
    if (rc != 0)
        idx_free(out);
    return rc;
}

void idx_free(idx_file *f)
{
    free(f->data);
    memset(f, 0, sizeof *f);
}

/* DIR/NAME.gz, or DIR/NAME where only that exists. */
static void find_file(const char *dir, const char *name, char *path, size_t n)
{
    struct stat sb;
    snprintf(path, n, "%s/%s.gz", dir, name);
    if (stat(path, &sb) == 0)
        return;
    char plain[4096];
    snprintf(plain, sizeof plain, "%s/%s", dir, name);
    if (stat(plain, &sb) == 0)
        snprintf(path, n, "%s", plain);
}

int idx_load_set(const char *dir, const char *prefix, int classes, idx_set *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    char ipath[4096], lpath[4096], name[256];
    snprintf(name, sizeof name, "%s-images-idx3-ubyte", prefix);
    find_file(dir, name, ipath, sizeof ipath);
    snprintf(name, sizeof name, "%s-labels-idx1-ubyte", prefix);
    find_file(dir, name, lpath, sizeof lpath);
    idx_file im, lb;
    if (idx_read(ipath, 3, &im, err, errlen) != 0)
        return -1;
    if (idx_read(lpath, 1, &lb, err, errlen) != 0) {
        idx_free(&im);
        return -1;
    }
    int rc = -1;
    if (im.count != lb.count) {
        fail(err, errlen, "%s has %zu images but %s has %zu labels", ipath, im.count, lpath, lb.count);
        goto done;
    }
    for (size_t i = 0; i < lb.count; i++)
        if (lb.data[i] >= classes) {
            fail(err, errlen, "%s: label %u of item %zu is not below %d classes", lpath, lb.data[i], i, classes);
            goto done;
        }
    out->count = im.count;
    out->dim = im.per;
    out->x = malloc(im.count * im.per * sizeof(float));
    out->y = malloc(lb.count * sizeof(int32_t));
    if (!out->x || !out->y) {
        fail(err, errlen, "out of memory for %zu x %zu images", im.count, im.per);
        idx_set_free(out);
        goto done;
    }
    for (size_t i = 0; i < im.count * im.per; i++)
        out->x[i] = (float)im.data[i] / 255.0f;
    for (size_t i = 0; i < lb.count; i++)
        out->y[i] = lb.data[i];
    rc = 0;
done:
    idx_free(&im);
    idx_free(&lb);
    return rc;
}

void idx_set_free(idx_set *s)
{
    free(s->x);
    free(s->y);
    memset(s, 0, sizeof *s);
}
