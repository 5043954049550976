/*
 * check.h - the whole test framework: CHECK counts and reports failures,
 * a test's main returns check_exit(). A test needing a GPU that finds none
 * returns SKIP (77), which ctest reports as skipped.
 */
#ifndef SL_TEST_CHECK_H
#define SL_TEST_CHECK_H

#include <stdio.h>

static int check_failures;
static int check_count;

#define CHECK(cond, ...)                                                        \
    do {                                                                        \
        check_count++;                                                          \
        if (!(cond)) {                                                          \
            check_failures++;                                                   \
            fprintf(stderr, "%s:%d: FAILED: %s: ", __FILE__, __LINE__, #cond);  \
            fprintf(stderr, __VA_ARGS__);                                       \
            fputc('\n', stderr);                                                \
        }                                                                       \
    } while (0)

#define SKIP 77

static inline int check_exit(const char *name)
{
    if (check_failures)
        fprintf(stderr, "%s: %d of %d checks failed\n", name, check_failures, check_count);
    else
        printf("%s: all %d checks passed\n", name, check_count);
    return check_failures ? 1 : 0;
}

#endif /* SL_TEST_CHECK_H */
