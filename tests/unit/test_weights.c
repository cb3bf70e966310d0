/*
 * test_weights: writing and reading WGWT files and their manifests:
 * alignment, the canonical manifest text (its checksums are xxHash's
 * published XXH3-64 test vectors), every structural error with its
 * message, and writes that leave both files or neither.
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "util.h"
#include "weights.h"

#define DIR_ "build/tests/wt/"
#define W DIR_ "t.weights"
#define M DIR_ "t.manifest.json"

/*
 * xxHash's sanity-test input (tests/sanity_test_vectors.h upstream):
 * byte i is the top byte of PRIME32 * PRIME64^i, modulo 2^64.
 */
static unsigned char sanity[256];

static void
makesanity(void)
{
	uint64_t g = 2654435761u;

	for (size_t i = 0; i < sizeof sanity; i++) {
		sanity[i] = (unsigned char)(g >> 56);
		g *= 11400714785074694797u;
	}
}

/* Standard error of whatever runs between the two calls. */
static int saved_fd = -1;

static void
capture(void)
{
	fflush(stderr);
	saved_fd = dup(2);
	if (!freopen(DIR_ "stderr", "w", stderr))
		abort();
}

static char *
captured(void)
{
	char *s;

	fflush(stderr);
	dup2(saved_fd, 2);
	close(saved_fd);
	s = readfile(DIR_ "stderr", NULL);
	return s ? s : xstrdup("");
}

static int
exists(const char *p)
{
	return access(p, F_OK) == 0;
}

/* No temporary left over in the test directory. */
static int
notemps(void)
{
	DIR *d = opendir(DIR_);
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d)))
		n += strstr(e->d_name, ".tmp") != NULL;
	if (d)
		closedir(d);
	return n == 0;
}

static void
writepair(unsigned align)
{
	struct wwriter ww;
	int64_t s1[2] = { 2, 3 }, s2[1] = { 5 };
	float a[6] = { 1, 2, 3, 4, 5, 6 };
	unsigned char b[5] = { 1, 2, 3, 4, 5 };

	CHECK(wwriter_open(&ww, W, M, align) == 0);
	CHECK(wwriter_add(&ww, "a", DT_FLOAT32, 2, s1, a, sizeof a) == 0);
	CHECK(wwriter_add(&ww, "b", DT_UINT8, 1, s2, b, sizeof b) == 0);
	CHECK(wwriter_commit(&ww) == 0);
}

TEST(tensors_are_aligned_and_checked)
{
	struct weights w;

	writepair(0);
	CHECK(weights_open(&w, W, M) == 0);
	CHECK(w.m.n == 2);
	CHECK(w.m.t[0].offset == 64 && w.m.t[0].length == 24);
	CHECK(w.m.t[1].offset == 128 && w.m.t[1].length == 5);
	CHECK(w.size == 133);
	CHECK(memcmp(w.data, "WGWT\1\0\0\0", 8) == 0);
	for (int i = 8; i < 64; i++)
		CHECK(w.data[i] == 0);
	CHECK(weights_bytes(&w, &w.m.t[1])[4] == 5);
	CHECK(weights_verify(&w, 0) == 0);
	weights_close(&w);
	/* 1: packed right after the header; 16: 8 -> 16, 40 -> 48 */
	writepair(1);
	CHECK(weights_open(&w, W, M) == 0);
	CHECK(w.m.t[0].offset == 8 && w.m.t[1].offset == 32 && w.size == 37);
	weights_close(&w);
	writepair(16);
	CHECK(weights_open(&w, W, M) == 0);
	CHECK(w.m.t[0].offset == 16 && w.m.t[1].offset == 48);
	weights_close(&w);
	CHECK(notemps());
}

TEST(xxh3_upstream_vectors)
{
	static const struct {
		size_t len;
		uint64_t h;
	} v[] = {
		{ 0, 0x2D06800538D394C2u }, { 1, 0xC44BDFF4074EECDBu },
		{ 3, 0x54247382A8D6B94Du }, { 6, 0x27B56A84CD2D7325u },
		{ 12, 0xA713DAF0DFBB77E7u }, { 24, 0xA3FE70BF9D3510EBu },
		{ 48, 0x397DA259ECBA1F11u }, { 80, 0xBCDEFBBB2C47C90Au },
		{ 128, 0xFCFF24126754D861u }, { 240, 0x81C3C2B67F568CCFu },
		{ 241, 0xC5A639ECD2030E5Eu },
	};

	for (size_t i = 0; i < sizeof v / sizeof *v; i++)
		CHECK(checksum_xxh3(sanity, v[i].len) == v[i].h);
}

static const char canonical[] =
    "{\n"
    "  \"format\": \"wg-weights-manifest\",\n"
    "  \"version\": 1,\n"
    "  \"endianness\": \"little\",\n"
    "  \"tensors\": {\n"
    "    \"x\": {\"dataType\": \"uint8\", \"shape\": [1], \"byteOffset\": 64,"
    " \"byteLength\": 1, \"layout\": \"row-major\","
    " \"checksum\": \"xxh3-64:c44bdff4074eecdb\"},\n"
    "    \"e\": {\"dataType\": \"float32\", \"shape\": [0],"
    " \"byteOffset\": 128, \"byteLength\": 0, \"layout\": \"row-major\","
    " \"checksum\": \"xxh3-64:2d06800538d394c2\"},\n"
    "    \"i8\": {\"dataType\": \"int8\", \"shape\": [2, 3],"
    " \"byteOffset\": 128, \"byteLength\": 6, \"layout\": \"row-major\","
    " \"checksum\": \"xxh3-64:27b56a84cd2d7325\"},\n"
    "    \"q\\\"uote\\\\\": {\"dataType\": \"float32\", \"shape\": [3],"
    " \"byteOffset\": 192, \"byteLength\": 12, \"layout\": \"row-major\","
    " \"checksum\": \"xxh3-64:a713daf0dfbb77e7\"}\n"
    "  }\n"
    "}\n";

static void
writesanity(void)
{
	struct wwriter ww;
	int64_t one[1] = { 1 }, zero[1] = { 0 }, s23[2] = { 2, 3 };
	int64_t three[1] = { 3 };

	CHECK(wwriter_open(&ww, W, M, 64) == 0);
	CHECK(wwriter_add(&ww, "x", DT_UINT8, 1, one, sanity, 1) == 0);
	CHECK(wwriter_add(&ww, "e", DT_FLOAT32, 1, zero, sanity, 0) == 0);
	CHECK(wwriter_add(&ww, "i8", DT_INT8, 2, s23, sanity, 6) == 0);
	CHECK(wwriter_add(&ww, "q\"uote\\", DT_FLOAT32, 1, three, sanity,
	    12) == 0);
	CHECK(wwriter_commit(&ww) == 0);
}

TEST(the_manifest_is_canonical)
{
	char *s;
	size_t len;
	struct weights w;

	writesanity();
	s = readfile(M, NULL);
	CHECK_STR(s, canonical);
	free(s);
	s = readfile(W, &len);
	CHECK(s && len == 204 && memcmp(s + 192, sanity, 12) == 0);
	free(s);
	CHECK(weights_open(&w, W, M) == 0);
	CHECK(weights_verify(&w, 0) == 0);
	weights_close(&w);
}

TEST(load_then_save_is_canonical)
{
	struct manifest m;
	char *s;
	/* other key order, other spacing, keys nnl does not know */
	static const char messy[] = "{\"tensors\": {\"x\": {\"checksum\": "
	    "\"xxh3-64:c44bdff4074eecdb\", \"byteLength\": 1, "
	    "\"extra\": [1], \"byteOffset\": 64, \"shape\": [1], "
	    "\"dataType\": \"uint8\"}}, \"version\": 1, "
	    "\"format\": \"wg-weights-manifest\", \"note\": 2}";
	static const char want[] = "{\n"
	    "  \"format\": \"wg-weights-manifest\",\n"
	    "  \"version\": 1,\n  \"endianness\": \"little\",\n"
	    "  \"tensors\": {\n    \"x\": {\"dataType\": \"uint8\", "
	    "\"shape\": [1], \"byteOffset\": 64, \"byteLength\": 1, "
	    "\"layout\": \"row-major\", \"checksum\": "
	    "\"xxh3-64:c44bdff4074eecdb\"}\n  }\n}\n";

	writesanity();
	CHECK(manifest_load(M, &m) == 0);
	CHECK(m.n == 4 && !strcmp(m.t[3].name, "q\"uote\\"));
	CHECK(manifest_save(&m, DIR_ "again.json") == 0);
	manifest_free(&m);
	s = readfile(DIR_ "again.json", NULL);
	CHECK_STR(s, canonical);
	free(s);
	CHECK(writefile_atomic(DIR_ "messy.json", messy, strlen(messy)) == 0);
	CHECK(manifest_load(DIR_ "messy.json", &m) == 0);
	CHECK(manifest_save(&m, DIR_ "again.json") == 0);
	manifest_free(&m);
	s = readfile(DIR_ "again.json", NULL);
	CHECK_STR(s, want);
	free(s);
}

TEST(a_flipped_byte_in_any_tensor_is_found)
{
	struct weights w;
	char *err;

	writesanity();
	CHECK(weights_open(&w, W, M) == 0);
	for (size_t i = 0; i < w.m.n; i++) {
		struct wtensor *t = &w.m.t[i];

		if (!t->length)
			continue;
		w.data[t->offset + t->length - 1] ^= 0x10;
		capture();
		CHECK(weights_verify(&w, 0) == 1);
		err = captured();
		CHECK(strstr(err, t->name) && strstr(err, "checksum mismatch"));
		free(err);
		w.data[t->offset + t->length - 1] ^= 0x10;
	}
	CHECK(weights_verify(&w, 0) == 0);
	weights_close(&w);
}

#define HEAD "{\"format\": \"wg-weights-manifest\", \"version\": 1, "
#define F32(o, l, s) "{\"dataType\": \"float32\", \"shape\": [" s "], " \
	"\"byteOffset\": " #o ", \"byteLength\": " #l "}"

TEST(bad_manifests_are_refused_with_reasons)
{
	static const struct {
		const char *json, *want;	/* want NULL: opens */
	} c[] = {
		{ HEAD "\"tensors\": {\"a\": " F32(64, 120, "30") "}}",
		    W ": tensor \"a\": byteOffset 64 + byteLength 120 overruns "
		    "the file (133 bytes)" },
		{ HEAD "\"tensors\": {\"a\": " F32(9007199254740992, 0, "0")
		    "}}", "9007199254740992 + byteLength 0 overruns" },
		{ HEAD "\"tensors\": {\"a\": " F32(64, 24, "6") ", \"b\": "
		    "{\"dataType\": \"uint8\", \"shape\": [5], \"byteOffset\": "
		    "80, \"byteLength\": 5}}}", W ": tensors \"a\" (bytes 64 "
		    "to 88) and \"b\" (bytes 80 to 85) overlap" },
		/* a zero-length tensor between them hides nothing */
		{ HEAD "\"tensors\": {\"a\": " F32(64, 24, "6") ", \"z\": "
		    F32(70, 0, "0") ", \"b\": " F32(72, 4, "1") "}}",
		    "tensors \"a\" (bytes 64 to 88) and \"b\"" },
		{ HEAD "\"tensors\": {\"a\": " F32(64, 24, "5") "}}",
		    M ": tensor \"a\": byteLength 24 disagrees with float32[5] "
		    "(20 bytes)" },
		{ HEAD "\"tensors\": {\"b\": " F32(4, 4, "1") "}}",
		    "tensor \"b\": byteOffset 4 lies in the 8-byte header" },
		{ HEAD "\"tensors\": {\"a\": " F32(64, 24, "6") ", \"a\": "
		    F32(64, 24, "6") "}}", "tensor \"a\" appears twice" },
		{ HEAD "\"tensors\": {\"\": " F32(64, 4, "1") "}}",
		    "empty name" },
		{ HEAD "\"tensors\": {\"a\": " F32(64, 24, "6, -1") "}}",
		    "dimension 1 is not an integer" },
		{ HEAD "\"tensors\": {\"a\": " F32(64.5, 24, "6") "}}",
		    "byteOffset and byteLength must be integers" },
		{ HEAD "\"tensors\": {\"a\": " F32(-64, 24, "6") "}}",
		    "byteOffset and byteLength must be integers" },
		{ HEAD "\"tensors\": {\"a\": {\"dataType\": \"complex64\", "
		    "\"shape\": [], \"byteOffset\": 64, \"byteLength\": 8}}}",
		    "\"dataType\": unknown data type" },
		{ HEAD "\"tensors\": {\"a\": {\"dataType\": \"uint8\", "
		    "\"shape\": [], \"byteOffset\": 64, \"byteLength\": 1, "
		    "\"checksum\": \"xxh3-64:C44BDFF4074EECDB\"}}}",
		    "16 lowercase hex digits" },
		{ HEAD "\"tensors\": {\"a\": {\"dataType\": \"uint8\", "
		    "\"shape\": [], \"byteOffset\": 64, \"byteLength\": 1, "
		    "\"checksum\": \"xxh3-64:-44bdff4074eecdb\"}}}",
		    "16 lowercase hex digits" },
		{ HEAD "\"tensors\": {\"a\": {\"dataType\": \"uint8\", "
		    "\"shape\": [], \"byteOffset\": 64, \"byteLength\": 1, "
		    "\"layout\": \"column-major\"}}}", "only \"row-major\"" },
		{ HEAD "\"endianness\": \"big\", \"tensors\": {}}",
		    "only \"little\"" },
		{ "{\"format\": \"wg-weights-manifest\", \"version\": 2, "
		    "\"tensors\": {}}", "\"version\": expected 1" },
		{ "{\"format\": \"other\", \"version\": 1, \"tensors\": {}}",
		    "expected \"wg-weights-manifest\"" },
		{ HEAD "\"tensors\": []}", "\"tensors\": expected an object" },
		{ HEAD "\"tensors\": {}", "invalid JSON: expected ',' or '}', "
		    "found the end of input" },
		/* a tensor's name is a name: no NUL, UTF-8 only */
		{ HEAD "\"tensors\": {\"a\\u0000b\": " F32(64, 24, "6") "}}",
		    "'\\u0000' is not allowed in a string" },
		{ HEAD "\"tensors\": {\"a\xff\": " F32(64, 24, "6") "}}",
		    "invalid UTF-8 in string (byte 0xff)" },
		{ "[1]", M ": not a JSON object" },
		/* without checksums, a sound manifest opens */
		{ HEAD "\"tensors\": {\"b\": {\"dataType\": \"uint8\", "
		    "\"shape\": [5], \"byteOffset\": 128, \"byteLength\": 5}, "
		    "\"e\": " F32(133, 0, "0") "}}", NULL },
	};
	struct weights w;

	writepair(64);
	for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
		char *err;
		int rc;

		CHECK(writefile_atomic(M, c[i].json, strlen(c[i].json)) == 0);
		capture();
		rc = weights_open(&w, W, M);
		err = captured();
		if (rc == 0)
			weights_close(&w);
		if (c[i].want ? rc == 0 || !strstr(err, c[i].want) : rc != 0) {
			fprintf(stderr, "case %zu: %s\n  got: %s", i,
			    c[i].json, rc ? err : "opened\n");
			CHECK(!"manifest case");
		}
		free(err);
	}
}

TEST(bad_weights_files_are_refused)
{
	static const struct {
		const char *bytes;
		size_t len;
		const char *want;
	} c[] = {
		{ "WGWT\2\0\0\0", 8, "unsupported weights file version 2" },
		{ "WGWX\1\0\0\0", 8, "no WGWT magic" },
		{ "WGWT\1\0", 6, "no WGWT magic" },
	};
	static const char man[] = HEAD "\"tensors\": {}}";
	struct weights w;

	CHECK(writefile_atomic(M, man, strlen(man)) == 0);
	for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
		char *err;
		int rc;

		CHECK(writefile_atomic(W, c[i].bytes, c[i].len) == 0);
		capture();
		rc = weights_open(&w, W, M);
		err = captured();
		CHECK(rc != 0 && strstr(err, c[i].want) != NULL);
		free(err);
	}
	unlink(W);
	capture();
	CHECK(weights_open(&w, W, M) != 0);
	free(captured());
}

TEST(a_failed_write_leaves_neither_file)
{
	struct wwriter ww;
	int64_t s[1] = { 4 };
	float v[4] = { 0 };
	char *err;

	unlink(W);
	unlink(M);
	capture();
	/* the manifest's directory does not exist: fails at commit */
	CHECK(wwriter_open(&ww, W, DIR_ "nodir/m.json", 64) == 0);
	CHECK(wwriter_add(&ww, "v", DT_FLOAT32, 1, s, v, 16) == 0);
	CHECK(wwriter_commit(&ww) != 0);
	wwriter_abort(&ww);	/* a second clean-up is harmless */
	CHECK(!exists(W));
	/* the manifest's rename fails after the weights' succeeded */
	mkdir(DIR_ "isdir", 0777);
	CHECK(wwriter_open(&ww, W, DIR_ "isdir", 64) == 0);
	CHECK(wwriter_add(&ww, "v", DT_FLOAT32, 1, s, v, 16) == 0);
	CHECK(wwriter_commit(&ww) != 0);
	CHECK(!exists(W));
	/* refused tensors, then an abort */
	CHECK(wwriter_open(&ww, W, M, 64) == 0);
	CHECK(wwriter_add(&ww, "v", DT_FLOAT32, 1, s, v, 16) == 0);
	CHECK(wwriter_add(&ww, "v", DT_FLOAT32, 1, s, v, 16) != 0);
	CHECK(wwriter_add(&ww, "", DT_FLOAT32, 1, s, v, 16) != 0);
	CHECK(wwriter_add(&ww, "w", DT_FLOAT32, 1, s, v, 12) != 0);
	s[0] = -4;
	CHECK(wwriter_add(&ww, "w", DT_FLOAT32, 1, s, v, 16) != 0);
	wwriter_abort(&ww);
	CHECK(!exists(W) && !exists(M));
	/* bad alignment; one path for both files */
	CHECK(wwriter_open(&ww, W, M, 48) != 0);
	CHECK(wwriter_open(&ww, W, W, 64) != 0);
	err = captured();
	CHECK(strstr(err, "duplicate tensor name \"v\"") != NULL);
	CHECK(strstr(err, "alignment 48 is not a power of two") != NULL);
	free(err);
	CHECK(!exists(W) && !exists(M) && notemps());
}

int
main(void)
{
	setprogname("test_weights");
	makesanity();
	mkdir(DIR_, 0777);
	RUN(tensors_are_aligned_and_checked);
	RUN(xxh3_upstream_vectors);
	RUN(the_manifest_is_canonical);
	RUN(load_then_save_is_canonical);
	RUN(a_flipped_byte_in_any_tensor_is_found);
	RUN(bad_manifests_are_refused_with_reasons);
	RUN(bad_weights_files_are_refused);
	RUN(a_failed_write_leaves_neither_file);
	return DONE();
}
