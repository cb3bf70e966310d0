/* test_report: multiply-adds and parameters of nodes, against counts
 * derived by hand in the comments. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "memsvg.h"
#include "report.h"
#include "shape.h"

static struct graph *
typed(const char *json)
{
	struct graph *g = graph_parse(json, strlen(json), "<test>", ".");

	if (g && shape_infer(g) != 0) {
		graph_free(g);
		return NULL;
	}
	return g;
}

#define HEAD "{\"format\": \"webnn-graph-json\", \"version\": 1, "

TEST(conv2d_depthwise_nhwc)
{
	/* 4x4x8 input, 8 groups of one channel, 3x3 valid: a 2x2x8
	 * output, each element 1*3*3 = 9 products: 32 * 9 = 288 */
	struct graph *g = typed(HEAD
	    "\"inputs\": {\"x\": {\"dataType\": \"float32\", \"shape\": "
	    "[1, 4, 4, 8]}, \"w\": {\"dataType\": \"float32\", \"shape\": "
	    "[8, 1, 3, 3]}}, \"nodes\": [{\"id\": \"y\", \"op\": \"conv2d\", "
	    "\"inputs\": [\"x\", \"w\"], \"options\": {\"groups\": 8, "
	    "\"inputLayout\": \"nhwc\"}}], \"outputs\": {\"y\": \"y\"}}");

	CHECK(g != NULL);
	if (g)
		CHECK(report_macs(g, g->nodes[0]) == 288);
	graph_free(g);
}

TEST(conv_transpose2d_nchw)
{
	/* 2 channels of 3x3 in, 4 out, 3x3 filter: each of the 18 input
	 * elements is multiplied by 4*3*3 = 36 weights: 648 */
	struct graph *g = typed(HEAD
	    "\"inputs\": {\"x\": {\"dataType\": \"float32\", \"shape\": "
	    "[1, 2, 3, 3]}, \"w\": {\"dataType\": \"float32\", \"shape\": "
	    "[2, 4, 3, 3]}}, \"nodes\": [{\"id\": \"y\", \"op\": "
	    "\"convTranspose2d\", \"inputs\": [\"x\", \"w\"], \"options\": "
	    "{}}], \"outputs\": {\"y\": \"y\"}}");

	CHECK(g != NULL);
	if (g) {
		CHECK(g->nodes[0]->types[0].dims[2] == 5);
		CHECK(report_macs(g, g->nodes[0]) == 648);
	}
	graph_free(g);
}

TEST(gemm_transposed_and_matmul_batched)
{
	/* gemm: A 3x2 transposed is 2x3, B 3x4: 2*4 outputs * 3 = 24;
	 * matmul: 5 batches of 2x3 by 3x4: 5*2*4 outputs * 3 = 120;
	 * relu: none */
	struct graph *g = typed(HEAD
	    "\"inputs\": {\"a\": {\"dataType\": \"float32\", \"shape\": "
	    "[3, 2]}, \"b\": {\"dataType\": \"float32\", \"shape\": [3, 4]}, "
	    "\"p\": {\"dataType\": \"float32\", \"shape\": [5, 2, 3]}}, "
	    "\"nodes\": [{\"id\": \"y\", \"op\": \"gemm\", \"inputs\": "
	    "[\"a\", \"b\"], \"options\": {\"aTranspose\": true}}, "
	    "{\"id\": \"z\", \"op\": \"matmul\", \"inputs\": [\"p\", \"b\"], "
	    "\"options\": {}}, {\"id\": \"r\", \"op\": \"relu\", \"inputs\": "
	    "[\"z\"], \"options\": {}}], \"outputs\": {\"y\": \"y\", "
	    "\"r\": \"r\"}}");

	CHECK(g != NULL);
	if (g) {
		CHECK(report_macs(g, g->nodes[0]) == 24);
		CHECK(report_macs(g, g->nodes[1]) == 120);
		CHECK(report_macs(g, g->nodes[2]) == 0);
		/* inputs are not parameters */
		CHECK(report_params(g, g->nodes[0]) == 0);
	}
	graph_free(g);
}

/* relu on float32 [2, 3] (24 bytes) at arena offset OFF, in an arena
 * of ARENA bytes: memsvg()'s result (-2: a number refused), the
 * picture in *svg */
static int
chart(const char *off, const char *arena, int nan, char **svg)
{
	char *json = xasprintf(HEAD "\"inputs\": {\"x\": {\"dataType\": "
	    "\"float32\", \"shape\": [2, 3]}}, \"nodes\": [{\"id\": \"y\", "
	    "\"op\": \"relu\", \"inputs\": [\"x\"], \"options\": {}, "
	    "\"arena\": [%s]}], \"outputs\": {\"y\": \"y\"}, \"memory\": "
	    "{\"arenaBytes\": %s, \"lowerBoundBytes\": 24}}", off, arena);
	struct graph *g = typed(json);
	struct buf b = { 0 };
	int rc;

	free(json);
	if (!g)
		return -100;
	if (nan)	/* JSON has no NaN: put one where a reader could */
		cJSON_SetNumberValue(cJSON_GetArrayItem(
		    cJSON_GetObjectItemCaseSensitive(g->nodes[0]->extra,
		    "arena"), 0), NAN);
	rc = memsvg(&b, g);
	*svg = b.s;
	graph_free(g);
	return rc;
}

TEST(memory_chart_refuses_offsets_no_integer_holds)
{
	/* 2^53 + 2 is the first whole double past the plan's 2^53 */
	static const char *const bad[][2] = {
		{ "1e300", "64" }, { "-1e300", "64" }, { "2.5", "64" },
		{ "-1", "64" }, { "9007199254740994", "64" },
		{ "0", "1e300" }, { "0", "-1e300" }, { "0", "1e19" },
	};
	char *svg = NULL;

	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		CHECK(chart(bad[i][0], bad[i][1], 0, &svg) == -2);
		CHECK(svg == NULL);
		free(svg);
	}
	CHECK(chart("0", "64", 1, &svg) == -2);
	free(svg);
	/* in range: the bar's tooltip gives the offset as written */
	CHECK(chart("40", "64", 0, &svg) == 0);
	CHECK(svg && strstr(svg, "24 bytes at offset 40, node 0 to the end"));
	free(svg);
	CHECK(chart("9007199254740992", "9007199254740992", 0, &svg) == 0);
	CHECK(svg && strstr(svg, "at offset 9007199254740992,"));
	free(svg);
}

int
main(void)
{
	RUN(conv2d_depthwise_nhwc);
	RUN(conv_transpose2d_nchw);
	RUN(gemm_transposed_and_matmul_batched);
	RUN(memory_chart_refuses_offsets_no_integer_holds);
	return DONE();
}
