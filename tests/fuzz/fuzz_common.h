/*
 * fuzz_common.h - what the libFuzzer harnesses of tests/fuzz share: the
 * input as a C string, a reason buffer with a poisoned guard after it, and
 * FUZZ_CHECK, which aborts (a crash to libFuzzer) when a property fails.
 */
#ifndef SL_FUZZ_COMMON_H
#define SL_FUZZ_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#include <sanitizer/asan_interface.h>
#define FUZZ_POISON(p, n) ASAN_POISON_MEMORY_REGION(p, n)
#define FUZZ_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#endif
#endif
#ifndef FUZZ_POISON
#define FUZZ_POISON(p, n) ((void)(p), (void)(n))
#define FUZZ_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

#define FUZZ_CHECK(cond, ...)                                                   \
    do {                                                                        \
        if (!(cond)) {                                                          \
            fprintf(stderr, "fuzz property failed: %s: ", #cond);               \
            fprintf(stderr, __VA_ARGS__);                                       \
            fputc('\n', stderr);                                                \
            abort();                                                            \
        }                                                                       \
    } while (0)

/* The input as a NUL-terminated string in a buffer of exactly size + 1
 * bytes (ASan catches a read past the end). An embedded NUL ends it early,
 * as it would end a command-line argument. */
static inline char *fuzz_cstring(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (!s)
        abort();
    if (size)
        memcpy(s, data, size);
    s[size] = 0;
    return s;
}

/* The parsers that take (text, size) must read nothing past size: a copy of
 * data followed by text that would change the result if read (a longer
 * number, a closed string or object). Free it. */
static inline char *fuzz_with_tail(const uint8_t *data, size_t size)
{
    static const char tail[] = "9.5e3\"}]},\"schema\":0}";
    char *more = malloc(size + sizeof tail);
    if (!more)
        abort();
    if (size)
        memcpy(more, data, size);
    memcpy(more + size, tail, sizeof tail);
    return more;
}

/* A number in [0, n) that depends on every input byte (FNV-1a), so the
 * fuzzer varies it along with the text: the length of a short reason
 * buffer, the capacity of a list. */
static inline size_t fuzz_pick(const uint8_t *data, size_t size, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < size; i++)
        h = (h ^ data[i]) * 16777619u;
    return n ? h % n : 0;
}

/* A reason buffer of `len` bytes followed by FUZZ_GUARD bytes of a known
 * pattern, poisoned under ASan: a write past `len` stops the run on the
 * spot, and fuzz_why_close checks the pattern as well. */
#define FUZZ_GUARD 16
#define FUZZ_FILL 0xA5

typedef struct fuzz_why {
    char *buf;
    size_t len;
} fuzz_why;

static inline void fuzz_why_open(fuzz_why *w, size_t len)
{
    w->len = len;
    w->buf = malloc(len + FUZZ_GUARD);
    if (!w->buf)
        abort();
    memset(w->buf, FUZZ_FILL, len + FUZZ_GUARD);
    FUZZ_POISON(w->buf + len, FUZZ_GUARD);
}

/* 1 if nothing at all was written into the buffer. */
static inline int fuzz_why_untouched(const fuzz_why *w)
{
    for (size_t i = 0; i < w->len; i++)
        if ((unsigned char)w->buf[i] != FUZZ_FILL)
            return 0;
    return 1;
}

/* A failure's reason in the short buffer must be the full reason `full`
 * cut to fit: NUL-terminated inside the buffer, and a prefix of `full`
 * (nothing when len is 0). */
static inline void fuzz_why_check_cut(const fuzz_why *w, const char *full)
{
    if (w->len == 0)
        return;
    size_t want = strlen(full) < w->len - 1 ? strlen(full) : w->len - 1;
    FUZZ_CHECK(memchr(w->buf, 0, w->len) != NULL, "reason of %zu bytes not terminated", w->len);
    FUZZ_CHECK(strlen(w->buf) == want && memcmp(w->buf, full, want) == 0,
               "reason cut to %zu bytes is '%s', the full one '%s'", w->len, w->buf, full);
}

static inline void fuzz_why_close(fuzz_why *w)
{
    FUZZ_UNPOISON(w->buf + w->len, FUZZ_GUARD);
    for (size_t i = 0; i < FUZZ_GUARD; i++)
        FUZZ_CHECK((unsigned char)w->buf[w->len + i] == FUZZ_FILL, "byte %zu past a %zu-byte reason buffer written",
                   i, w->len);
    free(w->buf);
    w->buf = NULL;
}

/* Whether the n bytes at p hold a NUL (a fixed-size string field is
 * terminated inside its array). */
static inline int fuzz_terminated(const char *p, size_t n)
{
    return memchr(p, 0, n) != NULL;
}

#endif /* SL_FUZZ_COMMON_H */
