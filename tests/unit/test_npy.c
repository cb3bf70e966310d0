/*
 * test_npy: the .npy and .npz readers on files NumPy wrote
 * (tests/data/make_npy_fixtures.py); the values are the scripts'
 * formulas, worked out by hand.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "npy.h"
#include "npz.h"
#include "util.h"

#define DATA "tests/data/npy/"

static float
f32at(const struct npy *a, int i)
{
	float f;

	memcpy(&f, a->data + 4 * i, 4);
	return f;
}

TEST(float32_matrix)
{
	struct npy a;

	CHECK(npy_load(DATA "f32.npy", &a) == 0);
	CHECK(a.dt == DT_FLOAT32 && a.rank == 2);
	CHECK(a.shape[0] == 2 && a.shape[1] == 3 && a.nbytes == 24);
	for (int i = 0; i < 6; i++)
		CHECK(f32at(&a, i) == 0.5f * (float)i);
	npy_free(&a);
}

TEST(fortran_order_is_transposed_to_c_order)
{
	struct npy a;

	CHECK(npy_load(DATA "fortran.npy", &a) == 0);
	CHECK(a.rank == 2 && a.shape[0] == 2 && a.shape[1] == 3);
	/* arange(6).reshape(2, 3) in C order, whatever the file's order */
	for (int i = 0; i < 6; i++)
		CHECK(f32at(&a, i) == (float)i);
	npy_free(&a);
}

TEST(integer_and_half_types)
{
	struct npy a;
	int64_t v;

	CHECK(npy_load(DATA "i64.npy", &a) == 0);
	CHECK(a.dt == DT_INT64 && a.shape[0] == 3);
	memcpy(&v, a.data + 8, 8);
	CHECK(v == (int64_t)1 << 40);
	npy_free(&a);
	CHECK(npy_load(DATA "f16.npy", &a) == 0);
	CHECK(a.dt == DT_FLOAT16 && a.nbytes == 6);
	/* -2.0 in binary16 is 0xc000 */
	CHECK(a.data[2] == 0x00 && a.data[3] == 0xc0);
	npy_free(&a);
	CHECK(npy_load(DATA "u8.npy", &a) == 0);
	CHECK(a.dt == DT_UINT8 && a.nbytes == 256 && a.data[255] == 255);
	npy_free(&a);
	CHECK(npy_load(DATA "i8.npy", &a) == 0);
	CHECK(a.dt == DT_INT8 && (signed char)a.data[0] == -128);
	npy_free(&a);
	CHECK(npy_load(DATA "i32.npy", &a) == 0);
	CHECK(a.dt == DT_INT32 && a.rank == 2 && a.nbytes == 16);
	npy_free(&a);
}

TEST(scalar_and_version_2)
{
	struct npy a;

	CHECK(npy_load(DATA "scalar.npy", &a) == 0);
	CHECK(a.rank == 0 && a.nbytes == 4 && f32at(&a, 0) == 3.25f);
	npy_free(&a);
	CHECK(npy_load(DATA "v2.npy", &a) == 0);
	CHECK(a.rank == 1 && a.shape[0] == 4 && f32at(&a, 3) == 3.0f);
	npy_free(&a);
}

TEST(unsupported_types_are_refused)
{
	struct npy a;
	char err[256];
	size_t len;
	char *buf = readfile(DATA "f64.npy", &len);

	CHECK(buf && npy_parse((unsigned char *)buf, len, &a, err,
	    sizeof err) != 0);
	CHECK(strstr(err, "unsupported dtype '<f8'") != NULL);
	free(buf);
	buf = readfile(DATA "bool.npy", &len);
	CHECK(buf && npy_parse((unsigned char *)buf, len, &a, err,
	    sizeof err) != 0);
	free(buf);
}

TEST(every_truncation_is_refused)
{
	size_t len;
	char *buf = readfile(DATA "f32.npy", &len), err[256];
	struct npy a;
	int bad = 0;

	for (size_t n = 0; n < len; n++)
		if (npy_parse((unsigned char *)buf, n, &a, err,
		    sizeof err) == 0) {
			bad++;
			npy_free(&a);
		}
	CHECK(bad == 0);
	free(buf);
}

TEST(write_then_read_is_exact)
{
	int64_t shape[3] = { 2, 1, 3 };
	float v[6] = { 1, -2, 3.5f, 0, 1e-30f, 7 };
	struct npy a;

	CHECK(npy_save("build/tests/rt.npy", DT_FLOAT32, 3, shape, v,
	    sizeof v) == 0);
	CHECK(npy_load("build/tests/rt.npy", &a) == 0);
	CHECK(a.rank == 3 && a.shape[1] == 1 && a.nbytes == sizeof v);
	CHECK(memcmp(a.data, v, sizeof v) == 0);
	npy_free(&a);
}

TEST(npz_stored_and_deflated)
{
	struct npz_member *m;
	size_t n;
	float f;

	CHECK(npz_load(DATA "stored.npz", &m, &n) == 0);
	CHECK(n == 2);
	CHECK_STR(m[0].name, "fc1.weight");
	CHECK(m[0].arr.rank == 2 && m[0].arr.shape[1] == 3);
	CHECK_STR(m[1].name, "fc1.bias");
	npz_free(m, n);
	CHECK(npz_load(DATA "deflated.npz", &m, &n) == 0);
	CHECK(n == 2 && m[0].arr.nbytes == 4000);
	memcpy(&f, m[0].arr.data + 4 * 999, 4);
	CHECK(f == 999.0f);
	npz_free(m, n);
}

int
main(void)
{
	setprogname("test_npy");
	RUN(float32_matrix);
	RUN(fortran_order_is_transposed_to_c_order);
	RUN(integer_and_half_types);
	RUN(scalar_and_version_2);
	RUN(unsupported_types_are_refused);
	RUN(every_truncation_is_refused);
	RUN(write_then_read_is_exact);
	RUN(npz_stored_and_deflated);
	return DONE();
}
