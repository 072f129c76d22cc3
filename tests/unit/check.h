/* Minimal assertion helpers for the unit tests: each test program runs its cases, prints
 * "ok <case>" or "FAIL <case>: <why> (file:line)", and exits non-zero if any case failed.
 * tests/run.sh counts the programs that pass and fail. */
#ifndef TESTS_CHECK_H
#define TESTS_CHECK_H

#include <stdio.h>
#include <stdlib.h>

static int check_failures;
static int check_case_failed;

#define CHECK(cond)                                                                          \
    do {                                                                                     \
        if (!(cond)) {                                                                       \
            printf("  check failed: %s (%s:%d)\n", #cond, __FILE__, __LINE__);               \
            check_case_failed = 1;                                                           \
        }                                                                                    \
    } while (0)

#define CHECK_EQ_U(a, b)                                                                     \
    do {                                                                                     \
        unsigned long long check_a_ = (unsigned long long)(a);                               \
        unsigned long long check_b_ = (unsigned long long)(b);                               \
        if (check_a_ != check_b_) {                                                          \
            printf("  check failed: %s == %s (%llu != %llu) (%s:%d)\n", #a, #b, check_a_,    \
                   check_b_, __FILE__, __LINE__);                                            \
            check_case_failed = 1;                                                           \
        }                                                                                    \
    } while (0)

/* Runs one case: a void function taking no arguments. */
#define RUN_CASE(fn)                                                                         \
    do {                                                                                     \
        check_case_failed = 0;                                                               \
        fn();                                                                                \
        printf("%s %s\n", check_case_failed ? "FAIL" : "ok", #fn);                           \
        check_failures += check_case_failed;                                                 \
    } while (0)

#define CHECK_EXIT() return check_failures ? 1 : 0

#endif
