/* A counting assertion for the unit tests: CHECK(condition, printf-style message) records a
 * failure with its file and line and carries on, so one run reports every broken promise. */
#ifndef APSP_TESTS_CHECK_H
#define APSP_TESTS_CHECK_H

#include <stdio.h>

static int checks, failures;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        checks++;                                                                                  \
        if (!(cond)) {                                                                             \
            failures++;                                                                            \
            fprintf(stderr, "%s:%d: ", __FILE__, __LINE__);                                        \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
        }                                                                                          \
    } while (0)

#endif
