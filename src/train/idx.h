/*
 * idx.h - reading IDX files (the MNIST / Fashion-MNIST format), gzip or
 * plain, through zlib's gzopen.
 *
 * Format (LeCun et al., http://yann.lecun.com/exdb/mnist/, "FILE FORMATS
 * FOR THE MNIST DATABASE"): a 4-byte big-endian magic 0x00 0x00 T D, T the
 * element type (0x08 = unsigned byte, the only one the datasets use and the
 * only one accepted here) and D the number of dimensions; then D big-endian
 * uint32 sizes; then the elements, row-major, nothing after them.
 * Images: D = 3 (count x rows x cols); labels: D = 1 (count).
 */
#ifndef SL_TRAIN_IDX_H
#define SL_TRAIN_IDX_H

#include <stddef.h>
#include <stdint.h>

/* One IDX file in memory: dims[0..ndims) and count x per bytes of data. */
typedef struct idx_file {
    int ndims;
    uint32_t dims[4];
    size_t count; /* dims[0] */
    size_t per;   /* product of dims[1..ndims): elements per item */
    uint8_t *data;
} idx_file;

/* idx_read: read `path` (gzip-compressed or not: gzread passes plain
 * files through) and check it: magic 0x0000 08 D with D == want_ndims,
 * every size >= 1, total size below 2^31 bytes, exactly count x per bytes
 * of data and no trailing byte. On failure returns -1 and writes a precise
 * message ("PATH: truncated: 1000 of 47040000 image bytes", ...) into err
 * (errlen bytes); *out is left empty. 0 on success; free with idx_free. */
int idx_read(const char *path, int want_ndims, idx_file *out, char *err, size_t errlen);
void idx_free(idx_file *f);

/* A data set: images as floats in [0, 1] (byte / 255), count x dim,
 * row-major; labels as int32 in [0, classes). */
typedef struct idx_set {
    size_t count, dim;
    float *x;
    int32_t *y;
} idx_set;

/* idx_load_set: read DIR/PREFIX-images-idx3-ubyte.gz and
 * DIR/PREFIX-labels-idx1-ubyte.gz (PREFIX "train" or "t10k"; a name
 * without .gz is tried when the .gz one is missing), check that the counts
 * agree and every label is < classes, and convert. Returns 0, or -1 with
 * the message in err. */
int idx_load_set(const char *dir, const char *prefix, int classes, idx_set *out, char *err, size_t errlen);
void idx_set_free(idx_set *s);

#endif
