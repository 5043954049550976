/*
 * add_dot.c - a program that uses the installed streamlab library: it adds
 * two vectors with sl_add and takes their dot product with sl_dot on the
 * CPU context, checks both against plain loops, and exits non-zero on a
 * mismatch or an error. Build it against an install (README, "Install and
 * link"): `make` here (pkg-config) or CMake (find_package(streamlab)).
 *
 * The CPU context runs on any build, with or without a GPU; on a CUDA
 * context the same calls take device pointers and a stream.
 */
#include <streamlab.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* An odd length, so that no vector width divides it: the library's head
 * and tail paths run too. */
#define N 100003

static int fail(const char *what, sl_status s)
{
    fprintf(stderr, "add_dot: %s: %s: %s\n", what, sl_status_string(s), sl_last_error());
    return 1;
}

int main(void)
{
    printf("add_dot: streamlab %s (header %d.%d.%d)\n", SL_VERSION_STRING, SL_VERSION_MAJOR, SL_VERSION_MINOR,
           SL_VERSION_PATCH);
    float *a = malloc(N * sizeof *a), *b = malloc(N * sizeof *b), *c = malloc(N * sizeof *c);
    if (!a || !b || !c) {
        fprintf(stderr, "add_dot: out of memory\n");
        return 1;
    }
    /* Nonzero values whose sums and products are exact in float and double:
     * the loops below must agree with the library bit for bit. */
    for (size_t i = 0; i < N; i++) {
        a[i] = (float)(i % 97 + 1) * 0.25f;
        b[i] = (float)(i % 89 + 1) * 0.5f;
        c[i] = -1.0f; /* poison: an element sl_add does not write fails the check */
    }

    sl_ctx *ctx = NULL;
    sl_status s = sl_ctx_create(SL_DEVICE_CPU, &ctx);
    if (s != SL_OK)
        return fail("sl_ctx_create", s);

    int bad = 0;
    s = sl_add(ctx, SL_F32, N, a, b, c, NULL); /* c = a + b */
    if (s != SL_OK) {
        bad = fail("sl_add", s);
    } else {
        size_t wrong = 0;
        for (size_t i = 0; i < N; i++) {
            if (c[i] != a[i] + b[i]) {
                if (wrong < 10)
                    fprintf(stderr, "add_dot: sl_add: c[%zu] = %.9g, expected %.9g\n", i, c[i], a[i] + b[i]);
                wrong++;
            }
        }
        if (wrong) {
            fprintf(stderr, "add_dot: sl_add: %zu of %d elements wrong\n", wrong, N);
            bad = 1;
        }
    }

    float r = 0.0f;
    s = sl_dot(ctx, SL_F32, N, a, b, &r, NULL); /* r = sum a b */
    if (s != SL_OK) {
        bad = fail("sl_dot", s);
    } else {
        double want = 0.0; /* every product and partial sum is exact in double */
        for (size_t i = 0; i < N; i++)
            want += (double)a[i] * (double)b[i];
        if (r != (float)want) {
            fprintf(stderr, "add_dot: sl_dot = %.9g, expected %.9g\n", r, (float)want);
            bad = 1;
        }
        printf("add_dot: sl_dot over %d elements = %.9g\n", N, r);
    }

    /* An error is a status, with a message: c overlapping a by one element. */
    s = sl_add(ctx, SL_F32, 8, a, b, a + 1, NULL);
    if (s != SL_ERR_OVERLAP) {
        fprintf(stderr, "add_dot: an overlapping output gave '%s', expected '%s'\n", sl_status_string(s),
                sl_status_string(SL_ERR_OVERLAP));
        bad = 1;
    }

    sl_ctx_destroy(ctx);
    free(a);
    free(b);
    free(c);
    if (!bad)
        printf("add_dot: sl_add and sl_dot match the plain loops\n");
    return bad;
}
