/*
 * test_checked: overflow-checked arithmetic at the edges of uint64 and
 * int64 (both the compiler-builtin code and the portable code, built
 * again below under other names), size parsing, and the tensor limit
 * on shapes whose byte counts sit at 2^31, 2^32, 2^63 and 2^64.  The
 * expected values are hand-derived: 2^k and the factorisations named.
 */
#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "checked.h"

/* The portable fallback, as a second copy under other names. */
#define checked_add_u64 fb_add_u64
#define checked_mul_u64 fb_mul_u64
#define checked_add_i64 fb_add_i64
#define checked_sub_i64 fb_sub_i64
#define checked_mul_i64 fb_mul_i64
#define NNL_NO_BUILTINS
#define CHECKED_ARITH_ONLY
#include "../../common/core/checked.c"
#undef checked_add_u64
#undef checked_mul_u64
#undef checked_add_i64
#undef checked_sub_i64
#undef checked_mul_i64

typedef int u64op(uint64_t, uint64_t, uint64_t *);
typedef int i64op(int64_t, int64_t, int64_t *);

/* op(a, b) is r, or (ok 0) overflows, in both implementations. */
static int
u64is(u64op *f, u64op *g, uint64_t a, uint64_t b, int ok, uint64_t r)
{
	uint64_t x = 0, y = 0;
	int fa = f(a, b, &x), ga = g(a, b, &y);

	return ok ? fa == 0 && ga == 0 && x == r && y == r :
	    fa == -1 && ga == -1;
}

static int
i64is(i64op *f, i64op *g, int64_t a, int64_t b, int ok, int64_t r)
{
	int64_t x = 0, y = 0;
	int fa = f(a, b, &x), ga = g(a, b, &y);

	return ok ? fa == 0 && ga == 0 && x == r && y == r :
	    fa == -1 && ga == -1;
}

TEST(unsigned_add_and_mul_at_2_64)
{
	CHECK(u64is(checked_add_u64, fb_add_u64, UINT64_MAX - 1, 1, 1,
	    UINT64_MAX));
	CHECK(u64is(checked_add_u64, fb_add_u64, UINT64_MAX, 1, 0, 0));
	CHECK(u64is(checked_add_u64, fb_add_u64, UINT64_C(1) << 63,
	    UINT64_C(1) << 63, 0, 0));
	/* 2^32 * 2^32 = 2^64 wraps; (2^32 - 1) * (2^32 + 1) = 2^64 - 1 */
	CHECK(u64is(checked_mul_u64, fb_mul_u64, UINT64_C(1) << 32,
	    UINT64_C(1) << 32, 0, 0));
	CHECK(u64is(checked_mul_u64, fb_mul_u64, 4294967295u,
	    UINT64_C(4294967297), 1, UINT64_MAX));
	/* 16 * 536903681 * 536838145 * 4 = 2^64 + 64 */
	CHECK(u64is(checked_mul_u64, fb_mul_u64, UINT64_C(16) * 536903681 *
	    4, 536838145, 0, 0));
	CHECK(u64is(checked_mul_u64, fb_mul_u64, 0, UINT64_MAX, 1, 0));
	CHECK(u64is(checked_mul_u64, fb_mul_u64, UINT64_MAX, 1, 1,
	    UINT64_MAX));
}

TEST(signed_add_sub_mul_at_2_63)
{
	CHECK(i64is(checked_add_i64, fb_add_i64, INT64_MAX, 1, 0, 0));
	CHECK(i64is(checked_add_i64, fb_add_i64, INT64_MAX - 1, 1, 1,
	    INT64_MAX));
	CHECK(i64is(checked_add_i64, fb_add_i64, INT64_MIN, -1, 0, 0));
	CHECK(i64is(checked_add_i64, fb_add_i64, INT64_MIN, INT64_MAX, 1,
	    -1));
	CHECK(i64is(checked_sub_i64, fb_sub_i64, 4, INT64_MIN, 0, 0));
	CHECK(i64is(checked_sub_i64, fb_sub_i64, -1, INT64_MIN, 1,
	    INT64_MAX));
	CHECK(i64is(checked_sub_i64, fb_sub_i64, INT64_MIN, 1, 0, 0));
	/* 2^31 * 2^32 = 2^63: one past INT64_MAX; -2^31 * 2^32 fits */
	CHECK(i64is(checked_mul_i64, fb_mul_i64, INT64_C(1) << 31,
	    INT64_C(1) << 32, 0, 0));
	CHECK(i64is(checked_mul_i64, fb_mul_i64, -(INT64_C(1) << 31),
	    INT64_C(1) << 32, 1, INT64_MIN));
	CHECK(i64is(checked_mul_i64, fb_mul_i64, -1, INT64_MIN, 0, 0));
	CHECK(i64is(checked_mul_i64, fb_mul_i64, INT64_MIN, -1, 0, 0));
	CHECK(i64is(checked_mul_i64, fb_mul_i64, -1, INT64_MAX, 1,
	    -INT64_MAX));
	CHECK(i64is(checked_mul_i64, fb_mul_i64, -3, -(INT64_MAX / 3), 1,
	    INT64_MAX - INT64_MAX % 3));
	CHECK(i64is(checked_mul_i64, fb_mul_i64, -3, INT64_MAX / 3 + 1, 0,
	    0));
	/* (2^32 - 1)^2 = 2^64 - 2^33 + 1: above INT64_MAX */
	CHECK(i64is(checked_mul_i64, fb_mul_i64, 4294967295, 4294967295, 0,
	    0));
	CHECK(i64is(checked_mul_i64, fb_mul_i64, 0, INT64_MIN, 1, 0));
}

TEST(sizes_parse_with_binary_suffixes)
{
	uint64_t v = 0;

	CHECK(checked_parse_size("4096", &v) == 0 && v == 4096);
	CHECK(checked_parse_size("2K", &v) == 0 && v == 2048);
	CHECK(checked_parse_size("3m", &v) == 0 && v == 3145728);
	CHECK(checked_parse_size("1GB", &v) == 0 && v == 1073741824);
	CHECK(checked_parse_size("1T", &v) == 0 &&
	    v == UINT64_C(1099511627776));
	CHECK(checked_parse_size("4611686018427387904", &v) == 0 &&
	    v == UINT64_C(1) << 62);
	CHECK(checked_parse_size("4194304T", &v) == 0 &&
	    v == UINT64_C(1) << 62);
	CHECK(checked_parse_size("4611686018427387905", &v) == -1);
	CHECK(checked_parse_size("4194305T", &v) == -1);
	CHECK(checked_parse_size("18446744073709551616", &v) == -1);
	CHECK(checked_parse_size("99999999999999999999999", &v) == -1);
	CHECK(checked_parse_size("0", &v) == -1);
	CHECK(checked_parse_size("", &v) == -1);
	CHECK(checked_parse_size("-1", &v) == -1);
	CHECK(checked_parse_size("1.5G", &v) == -1);
	CHECK(checked_parse_size("1GG", &v) == -1);
	CHECK(checked_parse_size(" 1", &v) == -1);
}

/* The reason for u8[dims], or NULL. */
static char *
why(int rank, const int64_t *dims, enum dtype dt)
{
	return checked_tensor(&(struct tdesc){ dt, rank, (int64_t *)dims });
}

TEST(the_limit_at_2_31_2_32_2_63_2_64)
{
	static const int64_t b31m1[] = { 2147483647 };
	static const int64_t b31[] = { 2147483648 };
	static const int64_t b32p1[] = { 641, 6700417 };
	static const int64_t b63m1[] = { 49, 73, 127, 337, 92737, 649657 };
	static const int64_t b64m1[] = { 3, 5, 17, 257, 641, 65537,
	    6700417 };
	static const int64_t b64[] = { 65536, 65536, 65536, 65536 };
	static const int64_t empty[] = { 0, 4294967295, 4294967295 };
	static const int64_t big[] = { 4294967296 };
	static const int64_t neg[] = { -1 };
	char *s;

	checked_set_limit(CHECKED_DEFAULT_LIMIT);
	CHECK(why(1, b31m1, DT_UINT8) == NULL);
	CHECK_STR(s = why(1, b31, DT_UINT8), "uint8[2147483648] is "
	    "2147483648 bytes, above the limit of 2147483647 bytes "
	    "(--max-tensor-bytes, NNL_MAX_TENSOR_BYTES)");
	free(s);
	/* int4: two per byte, 2^32 - 2 elements in 2^31 - 1 bytes */
	CHECK(why(2, (const int64_t[]){ 2, 2147483647 }, DT_INT4) == NULL);
	CHECK((s = why(2, (const int64_t[]){ 2, 2147483648 }, DT_UINT4)));
	free(s);
	CHECK((s = why(2, b32p1, DT_UINT8)) &&
	    strstr(s, "is 4294967297 bytes"));
	free(s);
	CHECK((s = why(6, b63m1, DT_UINT8)) &&
	    strstr(s, "is 9223372036854775807 bytes"));
	free(s);
	CHECK((s = why(7, b64m1, DT_UINT8)) &&
	    strstr(s, "is 18446744073709551615 bytes"));
	free(s);
	/* 2^63 - 1 float16 elements: 2^64 - 2 bytes; 2^64 - 1 of them
	 * overflow */
	CHECK((s = why(6, b63m1, DT_FLOAT16)) &&
	    strstr(s, "is 18446744073709551614 bytes"));
	free(s);
	CHECK((s = why(7, b64m1, DT_FLOAT16)) &&
	    strstr(s, "is more than 2^64 bytes"));
	free(s);
	CHECK((s = why(4, b64, DT_UINT8)) &&
	    strstr(s, "is more than 2^64 bytes"));
	free(s);
	/* empty, but its strides would wrap; 4e11 bytes of strides do
	 * not */
	CHECK((s = why(3, empty, DT_UINT8)) && strstr(s, "is empty, but its "
	    "nonzero dimensions make 18446744065119617025 bytes, more than "
	    "2^62"));
	free(s);
	CHECK((s = why(4, b64, DT_UINT8)) && (free(s), 1));
	CHECK(why(4, (const int64_t[]){ 0, 10, 100000, 100000 },
	    DT_FLOAT32) == NULL);
	CHECK((s = why(5, (const int64_t[]){ 0, 65536, 65536, 65536, 65536 },
	    DT_FLOAT32)) && strstr(s, "is empty, but its nonzero dimensions "
	    "make more than 2^64 bytes"));
	free(s);
	CHECK((s = why(1, big, DT_UINT8)) && strstr(s, "dimension 0 "
	    "(4294967296) is not from 0 to 4294967295"));
	free(s);
	CHECK((s = why(1, neg, DT_UINT8)) && strstr(s, "dimension 0 (-1)"));
	free(s);
	/* raised to 2^62: 2^63 - 1 still over, 2^32 + 1 under */
	checked_set_limit(CHECKED_MAX_LIMIT);
	CHECK(why(2, b32p1, DT_UINT8) == NULL);
	CHECK((s = why(6, b63m1, DT_UINT8)) && strstr(s, "above the limit of "
	    "4611686018427387904 bytes"));
	free(s);
	checked_set_limit(CHECKED_DEFAULT_LIMIT);
}

TEST(sizes_of_types_or_overflow)
{
	static const int64_t b64[] = { 65536, 65536, 65536, 65536 };
	static const int64_t b62[] = { 65536, 65536, 65536, 16384 };
	uint64_t n, b;

	CHECK(checked_size(&(struct tdesc){ DT_FLOAT32, 4, (int64_t *)b62 },
	    &n, &b) == -1);	/* 2^62 elements, 2^64 bytes */
	CHECK(checked_size(&(struct tdesc){ DT_UINT8, 4, (int64_t *)b62 },
	    &n, &b) == 0 && n == UINT64_C(1) << 62 && b == n);
	CHECK(checked_size(&(struct tdesc){ DT_UINT4, 4, (int64_t *)b62 },
	    &n, &b) == 0 && b == UINT64_C(1) << 61);
	CHECK(checked_size(&(struct tdesc){ DT_UINT8, 4, (int64_t *)b64 },
	    &n, &b) == -1);
	CHECK(checked_size(&(struct tdesc){ DT_INT4, 1,
	    (int64_t[]){ 3 } }, &n, &b) == 0 && n == 3 && b == 2);
	CHECK(checked_size(&(struct tdesc){ DT_INT64, 0, NULL }, &n, &b) ==
	    0 && n == 1 && b == 8);
	/* dtype_bytes saturates instead of wrapping */
	CHECK(dtype_bytes(DT_FLOAT32, UINT64_MAX) == UINT64_MAX);
	CHECK(dtype_bytes(DT_FLOAT32, UINT64_C(1) << 62) == UINT64_MAX);
	CHECK(dtype_bytes(DT_FLOAT32, (UINT64_C(1) << 62) - 1) ==
	    UINT64_MAX - 3);
	CHECK(dtype_bytes(DT_INT4, UINT64_MAX) == UINT64_C(1) << 63);
}

/* 2^63 = 9223372036854775808 is the first double past INT64_MAX; the
 * double below it is 2^63 - 1024 (53-bit mantissa: steps of 2^10). */
TEST(doubles_to_integers_in_range_or_refused)
{
	int64_t r = 5;

	CHECK(checked_double_i64(0.0, 0, 10, &r) == 0 && r == 0);
	CHECK(checked_double_i64(-0.0, 0, 10, &r) == 0 && r == 0);
	CHECK(checked_double_i64(10.0, 0, 10, &r) == 0 && r == 10);
	CHECK(checked_double_i64(11.0, 0, 10, &r) == -1);
	CHECK(checked_double_i64(-1.0, 0, 10, &r) == -1);
	CHECK(checked_double_i64(2.5, 0, 10, &r) == -1);
	CHECK(checked_double_i64(NAN, INT64_MIN, INT64_MAX, &r) == -1);
	CHECK(checked_double_i64(INFINITY, INT64_MIN, INT64_MAX, &r) == -1);
	CHECK(checked_double_i64(-INFINITY, INT64_MIN, INT64_MAX, &r) == -1);
	CHECK(checked_double_i64(1e300, INT64_MIN, INT64_MAX, &r) == -1);
	CHECK(checked_double_i64(-1e300, INT64_MIN, INT64_MAX, &r) == -1);
	CHECK(checked_double_i64(9223372036854775808.0, INT64_MIN, INT64_MAX,
	    &r) == -1);
	CHECK(checked_double_i64(9223372036854774784.0, INT64_MIN, INT64_MAX,
	    &r) == 0 && r == INT64_C(9223372036854774784));
	CHECK(checked_double_i64(-9223372036854775808.0, INT64_MIN,
	    INT64_MAX, &r) == 0 && r == INT64_MIN);
	CHECK(checked_clamp_i64(NAN, -3, 7) == -3);
	CHECK(checked_clamp_i64(1e300, -3, 7) == 7);
	CHECK(checked_clamp_i64(-1e300, -3, 7) == -3);
	CHECK(checked_clamp_i64(INFINITY, -3, 7) == 7);
	CHECK(checked_clamp_i64(4.9, -3, 7) == 4);
	CHECK(checked_clamp_i64(9223372036854775808.0, 0, INT64_MAX) ==
	    INT64_MAX);
}

int
main(void)
{
	RUN(unsigned_add_and_mul_at_2_64);
	RUN(signed_add_sub_mul_at_2_63);
	RUN(sizes_parse_with_binary_suffixes);
	RUN(the_limit_at_2_31_2_32_2_63_2_64);
	RUN(sizes_of_types_or_overflow);
	RUN(doubles_to_integers_in_range_or_refused);
	return DONE();
}
