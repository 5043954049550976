/*
 * test_train_idx.c - the IDX reader (src/train/idx.c) on crafted small
 * files, gzip and plain: a good set loads with the right values, and each
 * malformed file (bad magic, element type, dimension count, zero size,
 * truncated header or data, trailing bytes, counts that disagree, a label
 * out of range, a missing file) is refused with its own precise message.
 * Usage: test_train_idx SCRATCH_DIR
 */
#define _POSIX_C_SOURCE 200809L
#include "check.h"
#include "idx.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

static const char *dir;

/* write bytes to DIR/sub/name, gzip-compressed when gz */
static void put(const char *sub, const char *name, const unsigned char *b, size_t n, int gz)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, sub);
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/%s/%s%s", dir, sub, name, gz ? ".gz" : "");
    if (gz) {
        gzFile g = gzopen(path, "wb");
        if (!g || (n && gzwrite(g, b, (unsigned)n) != (int)n) || gzclose(g) != Z_OK) {
            fprintf(stderr, "cannot write %s\n", path);
            exit(1);
        }
    } else {
        FILE *f = fopen(path, "wb");
        if (!f || fwrite(b, 1, n, f) != n || fclose(f) != 0) {
            fprintf(stderr, "cannot write %s\n", path);
            exit(1);
        }
    }
}

static size_t header(unsigned char *b, int type, int nd, const uint32_t *dims)
{
    b[0] = 0;
    b[1] = 0;
    b[2] = (unsigned char)type;
    b[3] = (unsigned char)nd;
    for (int d = 0; d < nd; d++) {
        b[4 + 4 * d] = (unsigned char)(dims[d] >> 24);
        b[5 + 4 * d] = (unsigned char)(dims[d] >> 16);
        b[6 + 4 * d] = (unsigned char)(dims[d] >> 8);
        b[7 + 4 * d] = (unsigned char)dims[d];
    }
    return 4 + 4 * (size_t)nd;
}

/* a good set in DIR/sub: 3 images of 2 x 2, labels 0 2 1 */
static void good_set(const char *sub, int gz, size_t cut_images, int extra_byte, uint32_t nlabels, int bad_label)
{
    unsigned char b[256];
    uint32_t di[3] = {3, 2, 2};
    size_t h = header(b, 8, 3, di);
    for (int i = 0; i < 12; i++)
        b[h + i] = (unsigned char)(i * 20);
    size_t n = h + 12 - cut_images;
    if (extra_byte)
        b[n++] = 7;
    put(sub, "train-images-idx3-ubyte", b, n, gz);
    uint32_t dl[1] = {nlabels};
    h = header(b, 8, 1, dl);
    for (uint32_t i = 0; i < nlabels; i++)
        b[h + i] = (unsigned char)((i * 2) % 3);
    if (bad_label)
        b[h + 1] = 10;
    put(sub, "train-labels-idx1-ubyte", b, h + nlabels, gz);
}

/* load DIR/sub and check the message contains want (NULL: must succeed) */
static void expect(const char *sub, const char *want)
{
    char path[1024], err[512] = "";
    snprintf(path, sizeof path, "%s/%s", dir, sub);
    idx_set s;
    int rc = idx_load_set(path, "train", 10, &s, err, sizeof err);
    if (!want) {
        CHECK(rc == 0, "%s: %s", sub, err);
        if (rc == 0) {
            CHECK(s.count == 3 && s.dim == 4, "%s: %zu x %zu", sub, s.count, s.dim);
            CHECK(s.x[0] == 0.0f && s.x[5] == 100.0f / 255.0f && s.x[11] == 220.0f / 255.0f, "%s: pixel values", sub);
            CHECK(s.y[0] == 0 && s.y[1] == 2 && s.y[2] == 1, "%s: labels %d %d %d", sub, s.y[0], s.y[1], s.y[2]);
            idx_set_free(&s);
        }
        return;
    }
    CHECK(rc == -1, "%s: accepted, expected an error with '%s'", sub, want);
    CHECK(strstr(err, want) != NULL, "%s: message '%s' lacks '%s'", sub, err, want);
    printf("%-12s -> %s\n", sub, err);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_train_idx SCRATCH_DIR\n");
        return 2;
    }
    dir = argv[1];
    mkdir(dir, 0755);
    good_set("good_gz", 1, 0, 0, 3, 0);
    expect("good_gz", NULL);
    good_set("good_plain", 0, 0, 0, 3, 0);
    expect("good_plain", NULL);
    good_set("trunc", 1, 5, 0, 3, 0);
    expect("trunc", "truncated: 7 of 12 data bytes");
    good_set("trailing", 1, 0, 1, 3, 0);
    expect("trailing", "trailing bytes");
    good_set("counts", 1, 0, 0, 4, 0);
    expect("counts", "has 3 images but");
    good_set("label", 1, 0, 0, 3, 1);
    expect("label", "label 10 of item 1 is not below 10 classes");
    expect("missing", "No such file or directory");

    unsigned char b[64];
    uint32_t d3[3] = {3, 2, 2}, d0[3] = {3, 0, 2};
    good_set("magic", 1, 0, 0, 3, 0);
    size_t h = header(b, 8, 3, d3);
    b[0] = 0x1f;
    put("magic", "train-images-idx3-ubyte", b, h + 12, 1);
    expect("magic", "bad magic number 0x1f000803");
    good_set("type", 1, 0, 0, 3, 0);
    h = header(b, 0x0d, 3, d3);
    put("type", "train-images-idx3-ubyte", b, h + 12, 1);
    expect("type", "element type 0x0d");
    good_set("ndims", 1, 0, 0, 3, 0);
    h = header(b, 8, 1, d3);
    put("ndims", "train-images-idx3-ubyte", b, h + 3, 1);
    expect("ndims", "1 dimensions, expected 3 (an image file)");
    good_set("zero", 1, 0, 0, 3, 0);
    h = header(b, 8, 3, d0);
    put("zero", "train-images-idx3-ubyte", b, h, 1);
    expect("zero", "dimension 1 is 0");
    good_set("hdr", 1, 0, 0, 3, 0);
    h = header(b, 8, 3, d3);
    put("hdr", "train-images-idx3-ubyte", b, 9, 1);
    expect("hdr", "truncated: 5 of 12 dimension bytes");
    good_set("empty", 1, 0, 0, 3, 0);
    put("empty", "train-images-idx3-ubyte", b, 2, 1);
    expect("empty", "truncated: 2 of 4 header bytes");
    /* a corrupt gzip stream: a valid gzip header then garbage */
    good_set("corrupt", 1, 0, 0, 3, 0);
    unsigned char bad[32] = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
    put("corrupt", "train-images-idx3-ubyte", bad, sizeof bad, 0);
    char path[1024];
    snprintf(path, sizeof path, "%s/corrupt/train-images-idx3-ubyte.gz", dir);
    remove(path);
    expect("corrupt", "cannot decompress");
    return check_exit("test_train_idx");
}
