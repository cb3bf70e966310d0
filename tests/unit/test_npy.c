/*
 * test_npy: the .npy and .npz readers on files NumPy wrote
 * (tests/data/make_npy_fixtures.py; the values are the script's
 * formulas, worked out by hand), on headers written here by hand, and
 * the writer against NumPy's own bytes.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "npy.h"
#include "npz.h"
#include "util.h"

#define DATA "tests/data/npy/"
#define TMP "build/tests/"

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
	int32_t v;

	CHECK(npy_load(DATA "fortran.npy", &a) == 0);
	CHECK(a.rank == 2 && a.shape[0] == 2 && a.shape[1] == 3);
	/* arange(6).reshape(2, 3) in C order, whatever the file's order */
	for (int i = 0; i < 6; i++)
		CHECK(f32at(&a, i) == (float)i);
	npy_free(&a);
	/* arange(24).reshape(2, 3, 4): element [i][j][k] is 12i + 4j + k,
	 * its C-order index; the file holds [0][0][0], [1][0][0], ... */
	CHECK(npy_load(DATA "fortran3.npy", &a) == 0);
	CHECK(a.dt == DT_INT32 && a.rank == 3 && a.shape[2] == 4);
	for (int i = 0; i < 24; i++) {
		memcpy(&v, a.data + 4 * i, 4);
		CHECK(v == i);
	}
	npy_free(&a);
}

TEST(integer_and_half_types)
{
	struct npy a;
	int64_t v;
	uint64_t u;
	uint32_t w;

	CHECK(npy_load(DATA "i64.npy", &a) == 0);
	CHECK(a.dt == DT_INT64 && a.shape[0] == 3);
	memcpy(&v, a.data + 8, 8);
	CHECK(v == (int64_t)1 << 40);
	npy_free(&a);
	CHECK(npy_load(DATA "f16.npy", &a) == 0);
	CHECK(a.dt == DT_FLOAT16 && a.nbytes == 6);
	/* binary16: 1.0 is 0x3c00, -2.0 is 0xc000, 0.5 is 0x3800 */
	CHECK(a.data[1] == 0x3c && a.data[3] == 0xc0 && a.data[5] == 0x38);
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
	CHECK(npy_load(DATA "u32.npy", &a) == 0);
	memcpy(&w, a.data + 8, 4);
	CHECK(a.dt == DT_UINT32 && w == 4294967295u);
	npy_free(&a);
	CHECK(npy_load(DATA "u64.npy", &a) == 0);
	memcpy(&u, a.data, 8);
	CHECK(a.dt == DT_UINT64 && u == UINT64_MAX);
	npy_free(&a);
}

TEST(float64_is_nnls_extended_type)
{
	struct npy a;
	double d[3];

	/* np.arange(3, dtype=np.float64), as float64: not cast */
	CHECK(npy_load(DATA "f64.npy", &a) == 0);
	CHECK(a.dt == DT_FLOAT64 && a.nbytes == 24 && !a.from64);
	memcpy(d, a.data, 24);
	CHECK(d[0] == 0 && d[1] == 1 && d[2] == 2);
	npy_free(&a);
}

TEST(scalar_empty_and_versions_2_and_3)
{
	struct npy a;

	CHECK(npy_load(DATA "scalar.npy", &a) == 0);
	CHECK(a.rank == 0 && a.nbytes == 4 && f32at(&a, 0) == 3.25f);
	npy_free(&a);
	CHECK(npy_load(DATA "empty.npy", &a) == 0);
	CHECK(a.rank == 2 && a.shape[0] == 0 && a.shape[1] == 3);
	CHECK(a.nbytes == 0);
	npy_free(&a);
	CHECK(npy_load(DATA "v2.npy", &a) == 0);
	CHECK(a.rank == 1 && a.shape[0] == 4 && f32at(&a, 3) == 3.0f);
	npy_free(&a);
	CHECK(npy_load(DATA "v3.npy", &a) == 0);
	CHECK(a.dt == DT_INT8 && a.nbytes == 3 && a.data[2] == 2);
	npy_free(&a);
	CHECK(npy_load(DATA "pad64.npy", &a) == 0);
	CHECK(a.rank == 11 && a.shape[10] == 100000 && a.nbytes == 0);
	npy_free(&a);
}

/* Parse path; the reason must contain want. */
static int
refused(const char *path, const char *want)
{
	struct npy a;
	char err[512];
	size_t len;
	char *buf = readfile(path, &len);
	int ok;

	if (!buf)
		return 0;
	ok = npy_parse((unsigned char *)buf, len, &a, err, sizeof err) != 0 &&
	    strstr(err, want) != NULL;
	if (!ok)
		fprintf(stderr, "%s: got \"%s\", want \"%s\"\n", path, err,
		    want);
	free(buf);
	return ok;
}

TEST(numpy_types_nnl_does_not_carry_are_refused)
{
	CHECK(refused(DATA "c64.npy", "unsupported dtype '<c8'"));
	CHECK(refused(DATA "bool.npy", "unsupported dtype '|b1'"));
	CHECK(refused(DATA "bigendian.npy", "big-endian data ('>f4')"));
	CHECK(refused(DATA "object.npy", "object arrays are not supported"));
	CHECK(refused(DATA "structured.npy", "structured arrays"));
}

/* A version 1.0 image of header h and n data bytes. */
static int
parse_hdr(const char *h, size_t n, char *err, size_t errlen)
{
	size_t hl = strlen(h), len = 10 + hl + n;
	unsigned char *buf = calloc(1, len);
	struct npy a;
	int rc;

	memcpy(buf, "\x93NUMPY\x01\x00", 8);
	buf[8] = (unsigned char)(hl & 0xff);
	buf[9] = (unsigned char)(hl >> 8);
	memcpy(buf + 10, h, hl);
	err[0] = '\0';
	rc = npy_parse(buf, len, &a, err, errlen);
	if (rc == 0)
		npy_free(&a);
	free(buf);
	return rc;
}

#define D "{'descr': '<f4', 'fortran_order': False, "

TEST(hand_written_headers)
{
	static const struct {
		const char *hdr;
		size_t n;
		const char *want;	/* NULL: accepted */
	} c[] = {
		{ D "'shape': (2,), }\n", 8, NULL },
		{ D "'shape': (2,)}", 8, NULL },
		{ "{\"descr\": \"<f4\", \"shape\": (2, 1), "
		    "\"fortran_order\": True}  \n", 8, NULL },
		{ "{'descr': '|u1', 'fortran_order': False, 'shape': ()}",
		    1, NULL },
		{ "{'descr': '>u1', 'fortran_order': False, 'shape': (3,)}",
		    3, NULL },
		{ D "'shape': (2L, 3L)}", 24, NULL },
		{ D "'shape': (2,), }", 7, "truncated data: float32[2] "
		    "needs 8 bytes, the file has 7" },
		{ D "'shape': (2,), }", 9, "trailing bytes" },
		{ D "}", 0, "lacks 'shape'" },
		{ "{}", 0, "lacks 'descr'" },
		{ D "'shape': (2,), 'shape': (2,)}", 8, "'shape' appears "
		    "twice" },
		{ D "'shape': (2,), 'foo': 1}", 8, "unknown key 'foo'" },
		{ D "'shape': (2)}", 8, "(n) is not a tuple" },
		{ D "'shape': [2]}", 8, "'shape' is not a tuple" },
		{ D "'shape': (-2,)}", 8, "non-negative integers" },
		{ D "'shape': (02,)}", 8, "leading zero" },
		{ D "'shape': (2,,)}", 8, "non-negative integers" },
		{ D "'shape': (2 3)}", 8, "expected ',' or ')'" },
		{ D "'shape': (99999999999999999999,)}", 0,
		    "dimension too large" },
		{ D "'shape': (4294967296, 4294967296, 2)}", 0,
		    "too large" },
		{ D "'shape': (1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,"
		    "1,1,1,1,1,1,1,1,1,1)}", 4, "more than 32 dimensions" },
		{ D "'shape': (2,)} x", 8, "unexpected text after the dict" },
		{ D "'shape': (2,)", 8, "expected ',' or '}'" },
		{ "{'descr': '<f4', 'fortran_order': Truex, 'shape': (2,)}",
		    8, "must be True or False" },
		{ "{'descr': '<f4', 'fortran_order': 0, 'shape': (2,)}",
		    8, "must be True or False" },
		{ "{'descr': '<f\\x34', 'fortran_order': False, "
		    "'shape': (2,)}", 8, "unsupported character" },
		{ "{'descr' '<f4'}", 0, "expected ':' after 'descr'" },
		{ "{'descr': '<f4", 0, "unterminated string" },
		{ "{'descr': '<<f4', 'fortran_order': False, 'shape': ()}",
		    4, "unsupported dtype '<<f4'" },
		{ "{'descr': 4, 'fortran_order': False, 'shape': ()}",
		    4, "expected a string" },
		{ "{'descr': '<c8', 'fortran_order': False, 'shape': ()}",
		    8, "unsupported dtype '<c8'" },
		{ "{'descr': '>i8', 'fortran_order': False, 'shape': ()}",
		    8, "big-endian" },
		{ "['descr', '<f4']", 4, "header is not a dict" },
		{ "", 0, "header is not a dict" },
	};
	char err[512];

	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		int rc = parse_hdr(c[i].hdr, c[i].n, err, sizeof err);

		if (c[i].want ? rc == 0 || !strstr(err, c[i].want) : rc != 0) {
			fprintf(stderr, "case %zu: %s\n  got: %s\n", i,
			    c[i].hdr, rc ? err : "accepted");
			CHECK(!"header case");
		}
	}
}

TEST(prefixes_versions_and_magic)
{
	struct npy a;
	char err[256];
	unsigned char b[16] = "\x93NUMPY\x04\x00";

	CHECK(npy_parse(b, 16, &a, err, sizeof err) != 0);
	CHECK(strstr(err, "unsupported .npy format version 4.0") != NULL);
	memcpy(b, "\x93NUMPY\x01\x01", 8);
	CHECK(npy_parse(b, 16, &a, err, sizeof err) != 0);
	CHECK(strstr(err, "version 1.1") != NULL);
	memcpy(b, "\x93NUMPY\x01\x00\xff\x00", 10);
	CHECK(npy_parse(b, 16, &a, err, sizeof err) != 0);
	CHECK(strstr(err, "truncated header (255 bytes announced, 6") != NULL);
	memcpy(b, "\x93NUMPY\x02\x00\xff\xff\xff\xff", 12);
	CHECK(npy_parse(b, 16, &a, err, sizeof err) != 0);
	CHECK(strstr(err, "truncated header") != NULL);
	memcpy(b, "PK\x03\x04", 4);
	CHECK(npy_parse(b, 16, &a, err, sizeof err) != 0);
	CHECK(strstr(err, "bad magic") != NULL);
	CHECK(npy_parse(b, 0, &a, err, sizeof err) != 0);
}

static const char *const fixtures[] = {
	"f32.npy", "f16.npy", "i64.npy", "u8.npy", "i8.npy", "i32.npy",
	"u32.npy", "u64.npy", "scalar.npy", "empty.npy", "v2.npy", "v3.npy",
	"pad64.npy", "fortran.npy", "fortran3.npy",
};

TEST(every_truncation_is_refused)
{
	char err[512];
	struct npy a;
	int bad = 0;

	for (size_t f = 0; f < sizeof fixtures / sizeof *fixtures; f++) {
		size_t len;
		char *p = xasprintf(DATA "%s", fixtures[f]);
		char *buf = readfile(p, &len);

		CHECK(buf != NULL);
		for (size_t n = 0; buf && n < len; n++)
			if (npy_parse((unsigned char *)buf, n, &a, err,
			    sizeof err) == 0) {
				bad++;
				npy_free(&a);
			}
		free(buf);
		free(p);
	}
	CHECK(bad == 0);
}

/*
 * Every single-byte change to every header byte either parses into an
 * array whose size matches its shape or is refused: never a crash (run
 * under valgrind by hand: see tests/cli/pack-weights.bats).
 */
TEST(mutated_headers_never_crash)
{
	static const unsigned char vals[] = { 0, ' ', '(', ')', ',', '\'',
	    '1', '9', 'L', '{', '}', ':', '\\', 0x80, 0xff };
	char err[512];
	struct npy a;
	int bad = 0;

	for (size_t f = 0; f < sizeof fixtures / sizeof *fixtures; f++) {
		size_t len;
		char *p = xasprintf(DATA "%s", fixtures[f]);
		unsigned char *buf = (unsigned char *)readfile(p, &len);
		size_t hend = len < 128 ? len : 128;

		for (size_t i = 0; buf && i < hend; i++) {
			unsigned char keep = buf[i];

			for (size_t v = 0; v < sizeof vals; v++) {
				buf[i] = vals[v];
				err[0] = '\0';
				if (npy_parse(buf, len, &a, err,
				    sizeof err) == 0) {
					uint64_t n = 1;

					for (int d = 0; d < a.rank; d++)
						n *= (uint64_t)a.shape[d];
					bad += a.nbytes != dtype_bytes(a.dt,
					    n) || !a.data;
					npy_free(&a);
				} else {
					bad += err[0] == '\0';
				}
			}
			buf[i] = keep;
		}
		free(buf);
		free(p);
	}
	CHECK(bad == 0);
}

/* The bytes npy_write gives for a. */
static unsigned char *
written(const struct npy *a, size_t *len)
{
	FILE *fp = tmpfile();
	unsigned char *b;
	long n;

	if (!fp || npy_write(fp, a->dt, a->rank, a->shape, a->data,
	    a->nbytes) != 0)
		return NULL;
	n = ftell(fp);
	rewind(fp);
	b = xmalloc((size_t)n + 1);
	*len = fread(b, 1, (size_t)n, fp);
	fclose(fp);
	return b;
}

TEST(writing_gives_numpys_bytes)
{
	/* C-order files NumPy wrote as version 1.0 (v2, v3 and the Fortran
	 * ones excepted): reading then writing each gives it back */
	static const char *const same[] = { "f32.npy", "f16.npy", "i64.npy",
	    "u8.npy", "i8.npy", "i32.npy", "u32.npy", "u64.npy",
	    "scalar.npy", "empty.npy", "pad64.npy" };

	for (size_t f = 0; f < sizeof same / sizeof *same; f++) {
		char *p = xasprintf(DATA "%s", same[f]);
		size_t len, wlen = 0;
		char *want = readfile(p, &len);
		struct npy a;
		unsigned char *got = NULL;

		if (want && npy_load(p, &a) == 0) {
			got = written(&a, &wlen);
			npy_free(&a);
		}
		if (!got || wlen != len || memcmp(got, want, len) != 0) {
			fprintf(stderr, "%s: written bytes differ\n", same[f]);
			CHECK(!"byte-exact");
		}
		free(got);
		free(want);
		free(p);
	}
}

TEST(a_huge_header_is_written_as_version_2)
{
	/* 30000 dimensions of 1: "1, " each, a header of 90 kB */
	enum { RANK = 30000 };
	int64_t *shape = xmalloc(RANK * sizeof *shape);
	unsigned char *b;
	size_t len = 0, hlen;
	FILE *fp = tmpfile();

	for (int i = 0; i < RANK; i++)
		shape[i] = 1;
	CHECK(fp && npy_write(fp, DT_UINT8, RANK, shape, "x", 1) == 0);
	free(shape);
	if (!fp)
		return;
	len = (size_t)ftell(fp);
	rewind(fp);
	b = xmalloc(len);
	CHECK(fread(b, 1, len, fp) == len);
	fclose(fp);
	hlen = le32(b + 8);
	CHECK(b[6] == 2 && b[7] == 0 && hlen > 65535);
	CHECK((12 + hlen) % 64 == 0 && b[12 + hlen - 1] == '\n');
	CHECK(len == 12 + hlen + 1 && b[len - 1] == 'x');
	free(b);
}

TEST(writing_refuses_what_npy_cannot_hold)
{
	int64_t shape[1] = { 3 };
	unsigned char d[2] = { 0x21, 0x03 };
	FILE *fp = tmpfile();

	errno = 0;
	CHECK(fp && npy_write(fp, DT_INT4, 1, shape, d, 2) != 0);
	CHECK(errno == EINVAL);
	CHECK(npy_write(fp, DT_UINT8, 1, shape, d, 2) != 0);
	fclose(fp);
	unlink(TMP "int4.npy");
	CHECK(npy_save(TMP "int4.npy", DT_INT4, 1, shape, d, 2) != 0);
	CHECK(access(TMP "int4.npy", F_OK) != 0);
}

TEST(write_then_read_is_exact)
{
	int64_t shape[3] = { 2, 1, 3 };
	float v[6] = { 1, -2, 3.5f, 0, 1e-30f, 7 };
	struct npy a;

	CHECK(npy_save(TMP "rt.npy", DT_FLOAT32, 3, shape, v,
	    sizeof v) == 0);
	CHECK(npy_load(TMP "rt.npy", &a) == 0);
	CHECK(a.rank == 3 && a.shape[1] == 1 && a.nbytes == sizeof v);
	CHECK(memcmp(a.data, v, sizeof v) == 0);
	npy_free(&a);
}

TEST(npz_stored_deflated_and_mixed)
{
	struct npz_member *m;
	size_t n;
	float f;
	int64_t v;

	CHECK(npz_load(DATA "stored.npz", &m, &n) == 0);
	CHECK(n == 2);
	CHECK_STR(m[0].name, "fc1.weight");
	CHECK(m[0].arr.rank == 2 && m[0].arr.shape[1] == 3);
	CHECK(f32at(&m[0].arr, 5) == 1.0f);
	CHECK_STR(m[1].name, "fc1.bias");
	CHECK(f32at(&m[1].arr, 2) == 3.0f);
	npz_free(m, n);
	CHECK(npz_load(DATA "deflated.npz", &m, &n) == 0);
	CHECK(n == 2 && m[0].arr.nbytes == 4000);
	memcpy(&f, m[0].arr.data + 4 * 999, 4);
	CHECK(f == 999.0f);
	npz_free(m, n);
	CHECK(npz_load(DATA "mixed.npz", &m, &n) == 0);
	CHECK(n == 2);
	CHECK_STR(m[0].name, "mixed.w");
	CHECK(m[0].arr.rank == 2 && f32at(&m[0].arr, 63) == 63.0f);
	CHECK_STR(m[1].name, "mixed.b");
	memcpy(&v, m[1].arr.data, 8);
	CHECK(m[1].arr.dt == DT_INT64 && v == -4);
	npz_free(m, n);
}

/* Write a changed copy of a fixture and try to load it. */
static int
npz_variant(const char *fixture, const char *from, const char *to,
    long flip, size_t cut)
{
	size_t len;
	char *buf = readfile(fixture, &len), *p;
	struct npz_member *m;
	size_t n;
	int rc;

	if (!buf)
		return 0;
	/* rename a member: every occurrence, same length */
	for (p = buf; from && (p = memchr(p, from[0], len - (size_t)(p -
	    buf))) != NULL; p++)
		if ((size_t)(buf + len - p) >= strlen(from) &&
		    !memcmp(p, from, strlen(from)))
			memcpy(p, to, strlen(to));
	if (flip >= 0)
		buf[flip] ^= 0x01;
	if (writefile_atomic(TMP "v.npz", buf, cut ? cut : len) != 0)
		rc = 0;
	else
		rc = npz_load(TMP "v.npz", &m, &n);
	if (rc == 0)
		npz_free(m, n);
	free(buf);
	return rc;
}

TEST(corrupt_archives_are_refused)
{
	struct npz_member *m;
	size_t n;
	long data;
	size_t len;
	char *buf = readfile(DATA "stored.npz", &len), *at;

	/* a flipped byte in a stored member's array data: CRC error */
	for (at = buf; at && at + 6 <= buf + len; at++)
		if (memcmp(at, "\x93NUMPY", 6) == 0)
			break;
	CHECK(at && at + 6 <= buf + len);
	/* past the first member's 128-byte .npy header */
	data = at ? (long)(at - buf) + 128 + 4 : -1;
	CHECK(npz_variant(DATA "stored.npz", NULL, NULL, data, 0) != 0);
	free(buf);
	/* in a deflated stream */
	CHECK(npz_variant(DATA "deflated.npz", NULL, NULL, 100, 0) != 0);
	/* cut short, at many lengths */
	for (size_t cut = 1; cut < 558; cut += 37)
		CHECK(npz_variant(DATA "stored.npz", NULL, NULL, -1, cut) != 0);
	/* a member that is not .npy; two members of the same name */
	CHECK(npz_variant(DATA "stored.npz", "fc1.bias.npy", "fc1.bias.txt",
	    -1, 0) != 0);
	CHECK(npz_variant(DATA "mixed.npz", "b.npy", "w.npy", -1, 0) != 0);
	/* sound zip, bad .npy inside; not a zip at all; missing */
	CHECK(npz_load(DATA "badmember.npz", &m, &n) != 0);
	CHECK(npz_load(DATA "f32.npy", &m, &n) != 0);
	CHECK(npz_load(DATA "no-such.npz", &m, &n) != 0);
	CHECK(m == NULL && n == 0);
}

int
main(void)
{
	setprogname("test_npy");
	RUN(float32_matrix);
	RUN(fortran_order_is_transposed_to_c_order);
	RUN(integer_and_half_types);
	RUN(float64_is_nnls_extended_type);
	RUN(scalar_empty_and_versions_2_and_3);
	RUN(numpy_types_nnl_does_not_carry_are_refused);
	RUN(hand_written_headers);
	RUN(prefixes_versions_and_magic);
	RUN(every_truncation_is_refused);
	RUN(mutated_headers_never_crash);
	RUN(writing_gives_numpys_bytes);
	RUN(a_huge_header_is_written_as_version_2);
	RUN(writing_refuses_what_npy_cannot_hold);
	RUN(write_then_read_is_exact);
	RUN(npz_stored_deflated_and_mixed);
	RUN(corrupt_archives_are_refused);
	return DONE();
}
