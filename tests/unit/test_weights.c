/*
 * test_weights: writing and reading WGWT files: alignment, checksums
 * (XXH3-64 of known bytes), every structural error.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "util.h"
#include "weights.h"

#define W "build/tests/t.weights"
#define M "build/tests/t.manifest.json"

static void
writepair(void)
{
	struct wwriter ww;
	int64_t s1[2] = { 2, 3 }, s2[1] = { 5 };
	float a[6] = { 1, 2, 3, 4, 5, 6 };
	unsigned char b[5] = { 1, 2, 3, 4, 5 };

	CHECK(wwriter_open(&ww, W, M, 64) == 0);
	CHECK(wwriter_add(&ww, "a", DT_FLOAT32, 2, s1, a, sizeof a) == 0);
	CHECK(wwriter_add(&ww, "b", DT_UINT8, 1, s2, b, sizeof b) == 0);
	CHECK(wwriter_add(&ww, "a", DT_UINT8, 1, s2, b, sizeof b) != 0);
	CHECK(wwriter_commit(&ww) == 0);
}

TEST(tensors_are_aligned_and_checked)
{
	struct weights w;

	writepair();
	CHECK(weights_open(&w, W, M) == 0);
	CHECK(w.m.n == 2);
	CHECK(w.m.t[0].offset == 64 && w.m.t[0].length == 24);
	CHECK(w.m.t[1].offset == 128 && w.m.t[1].length == 5);
	CHECK(w.size == 133);
	CHECK(memcmp(w.data, "WGWT\1\0\0\0", 8) == 0);
	CHECK(weights_bytes(&w, &w.m.t[1])[4] == 5);
	CHECK(weights_verify(&w, 0) == 0);
	weights_close(&w);
}

TEST(xxh3_of_known_input)
{
	/* XXH3_64bits("", 0) is 0x2d06800538d394c2 (xxHash's own tests) */
	CHECK(checksum_xxh3("", 0) == 0x2d06800538d394c2ull);
}

TEST(a_flipped_byte_is_found)
{
	struct weights w;

	writepair();
	CHECK(weights_open(&w, W, M) == 0);
	w.data[64 + 5] ^= 0x10;
	CHECK(weights_verify(&w, 0) == 1);
	weights_close(&w);
}

static int
openwith(const char *manifest)
{
	struct weights w;
	int rc;

	writefile_atomic(M, manifest, strlen(manifest));
	rc = weights_open(&w, W, M);
	if (rc == 0)
		weights_close(&w);
	return rc;
}

TEST(bad_manifests_are_refused)
{
	writepair();
	/* overruns the 133-byte file */
	CHECK(openwith("{\"format\": \"wg-weights-manifest\", \"version\": 1,"
	    " \"tensors\": {\"a\": {\"dataType\": \"float32\", \"shape\": [30],"
	    " \"byteOffset\": 64, \"byteLength\": 120}}}") != 0);
	/* overlaps */
	CHECK(openwith("{\"format\": \"wg-weights-manifest\", \"version\": 1,"
	    " \"tensors\": {\"a\": {\"dataType\": \"float32\", \"shape\": [6],"
	    " \"byteOffset\": 64, \"byteLength\": 24}, \"b\": {\"dataType\":"
	    " \"uint8\", \"shape\": [5], \"byteOffset\": 80, \"byteLength\": 5}}}")
	    != 0);
	/* length disagrees with the type */
	CHECK(openwith("{\"format\": \"wg-weights-manifest\", \"version\": 1,"
	    " \"tensors\": {\"a\": {\"dataType\": \"float32\", \"shape\": [5],"
	    " \"byteOffset\": 64, \"byteLength\": 24}}}") != 0);
	/* in the header */
	CHECK(openwith("{\"format\": \"wg-weights-manifest\", \"version\": 1,"
	    " \"tensors\": {\"b\": {\"dataType\": \"uint8\", \"shape\": [5],"
	    " \"byteOffset\": 4, \"byteLength\": 5}}}") != 0);
	/* not a manifest */
	CHECK(openwith("{\"format\": \"other\", \"version\": 1,"
	    " \"tensors\": {}}") != 0);
	/* a valid one with no checksums opens */
	CHECK(openwith("{\"format\": \"wg-weights-manifest\", \"version\": 1,"
	    " \"tensors\": {\"b\": {\"dataType\": \"uint8\", \"shape\": [5],"
	    " \"byteOffset\": 128, \"byteLength\": 5}}}") == 0);
}

int
main(void)
{
	setprogname("test_weights");
	RUN(tensors_are_aligned_and_checked);
	RUN(xxh3_of_known_input);
	RUN(a_flipped_byte_is_found);
	RUN(bad_manifests_are_refused);
	return DONE();
}
