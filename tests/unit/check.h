/*
 * check: the unit-test harness.  Each test file defines TEST(name)
 * functions and lists them in main() with RUN(name); CHECK records a
 * failure with file:line and goes on.  The runner prints one TAP-like
 * line per test and exits non-zero on any failure.
 */
#ifndef NNL_CHECK_H
#define NNL_CHECK_H

#include <stdio.h>
#include <string.h>

static int check_failed, check_total, check_fails;

#define CHECK(cond) do { \
	if (!(cond)) { \
		fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, \
		    __LINE__, #cond); \
		check_failed = 1; \
	} \
} while (0)

#define CHECK_STR(a, b) do { \
	const char *a_ = (a), *b_ = (b); \
	if (!a_ || !b_ || strcmp(a_, b_) != 0) { \
		fprintf(stderr, "%s:%d: CHECK_STR failed:\n  got:  %s\n" \
		    "  want: %s\n", __FILE__, __LINE__, a_ ? a_ : "(null)", \
		    b_ ? b_ : "(null)"); \
		check_failed = 1; \
	} \
} while (0)

#define TEST(name) static void test_##name(void)
#define RUN(name) do { \
	check_failed = 0; \
	test_##name(); \
	check_total++; \
	if (check_failed) \
		check_fails++; \
	printf("%s %d - %s\n", check_failed ? "not ok" : "ok", check_total, \
	    #name); \
} while (0)
#define DONE() (printf("1..%d\n", check_total), check_fails != 0)

#endif
