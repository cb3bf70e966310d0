/* test_json: the canonical printer and reader, against hand-written text. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "graph.h"

static char *
num(double v)
{
	static char s[64];
	struct buf b = { 0 };

	json_put_number(&b, v);
	strcpy(s, b.s);
	free(b.s);
	return s;
}

TEST(numbers_in_shortest_round_trip_form)
{
	CHECK_STR(num(0), "0");
	CHECK_STR(num(-0.0), "-0");
	CHECK_STR(num(1), "1");
	CHECK_STR(num(2048), "2048");
	CHECK_STR(num(-3), "-3");
	CHECK_STR(num(0.1), "0.1");
	CHECK_STR(num(1e-5), "1e-5");
	CHECK_STR(num(0.001), "0.001");
	CHECK_STR(num(1.5), "1.5");
	CHECK_STR(num(0.485), "0.485");
	CHECK_STR(num(1.0 / 3), "0.3333333333333333");
	CHECK_STR(num(1e20), "1e20");
	CHECK_STR(num(1.25e-7), "1.25e-7");
	CHECK_STR(num(4294967295.0), "4294967295");
	CHECK_STR(num(9007199254740993.0), "9007199254740992");
}

TEST(strings_escaped)
{
	struct buf b = { 0 };

	json_put_string(&b, "a\"b\\c\n\x01");
	CHECK_STR(b.s, "\"a\\\"b\\\\c\\n\\u0001\"");
	free(b.s);
}

static const char canon[] =
    "{\n"
    "  \"format\": \"webnn-graph-json\",\n"
    "  \"version\": 1,\n"
    "  \"name\": \"t\",\n"
    "  \"inputs\": {\n"
    "    \"x\": {\"dataType\": \"float32\", \"shape\": [1, 4]}\n"
    "  },\n"
    "  \"consts\": {\n"
    "    \"s\": {\"dataType\": \"float32\", \"shape\": [], \"init\": "
    "{\"kind\": \"scalar\", \"value\": 0.5}},\n"
    "    \"k\": {\"dataType\": \"uint8\", \"shape\": [2], \"init\": "
    "{\"kind\": \"inlineBytes\", \"bytes\": [0, 255]}, \"note\": \"kept\"}\n"
    "  },\n"
    "  \"nodes\": [\n"
    "    {\"id\": \"m\", \"op\": \"mul\", \"inputs\": [\"x\", \"s\"], "
    "\"options\": {}},\n"
    "    {\"id\": \"a\", \"op\": \"split\", \"inputs\": [\"m\"], "
    "\"options\": {\"splits\": 2, \"axis\": 1}, \"outputs\": [\"a\", \"b\"], "
    "\"x-pass\": {\"cost\": [1, 2]}}\n"
    "  ],\n"
    "  \"outputs\": {\n"
    "    \"first\": \"a\",\n"
    "    \"b\": \"b\"\n"
    "  },\n"
    "  \"zz-extension\": true\n"
    "}\n";

TEST(canonical_text_reads_back_byte_for_byte)
{
	struct graph *g = graph_parse(canon, strlen(canon), "t.json", ".");
	char *s;

	CHECK(g != NULL);
	if (!g)
		return;
	CHECK(g->ninputs == 1 && g->nconsts == 2 && g->nnodes == 2);
	CHECK(g->nodes[1]->nout == 2 && g->nodes[1]->multi);
	CHECK(g->consts[0]->init == INIT_SCALAR && g->consts[0]->value == 0.5);
	CHECK(g->consts[1]->nbytes == 2 && g->consts[1]->bytes[1] == 255);
	CHECK(graph_find(g, "b") && graph_find(g, "b")->outidx == 1);
	s = graph_to_json(g, NULL);
	CHECK_STR(s, canon);
	free(s);
	graph_free(g);
}

TEST(layout_and_key_order_are_normalised)
{
	static const char in[] =
	    "{\"outputs\":{\"y\":\"y\"},\"nodes\":[{\"options\":{},"
	    "\"inputs\":[\"x\"],\"op\":\"relu\",\"id\":\"y\"}],"
	    "\"inputs\":{\"x\":{\"shape\":[3],\"dataType\":\"float16\"}},"
	    "\"version\":1.0,\"format\":\"webnn-graph-json\"}";
	static const char want[] =
	    "{\n"
	    "  \"format\": \"webnn-graph-json\",\n"
	    "  \"version\": 1,\n"
	    "  \"inputs\": {\n"
	    "    \"x\": {\"dataType\": \"float16\", \"shape\": [3]}\n"
	    "  },\n"
	    "  \"consts\": {},\n"
	    "  \"nodes\": [\n"
	    "    {\"id\": \"y\", \"op\": \"relu\", \"inputs\": [\"x\"], "
	    "\"options\": {}}\n"
	    "  ],\n"
	    "  \"outputs\": {\n"
	    "    \"y\": \"y\"\n"
	    "  }\n"
	    "}\n";
	struct graph *g = graph_parse(in, strlen(in), "t.json", ".");
	char *s;

	CHECK(g != NULL);
	if (!g)
		return;
	s = graph_to_json(g, NULL);
	CHECK_STR(s, want);
	free(s);
	graph_free(g);
}

TEST(weights_paths_resolve_against_the_file_directory)
{
	static const char in[] =
	    "{\"format\":\"webnn-graph-json\",\"version\":1,"
	    "\"weights\":{\"file\":\"m.weights\",\"manifest\":\"m.json\"},"
	    "\"inputs\":{},\"nodes\":[],\"outputs\":{}}";
	struct graph *g = graph_from_json(in, strlen(in), "d/g.json", "d");

	CHECK(g != NULL);
	if (!g)
		return;
	CHECK_STR(g->weights_file, "d/m.weights");
	CHECK_STR(g->manifest_file, "d/m.json");
	graph_free(g);
}

int
main(void)
{
	RUN(numbers_in_shortest_round_trip_form);
	RUN(strings_escaped);
	RUN(canonical_text_reads_back_byte_for_byte);
	RUN(layout_and_key_order_are_normalised);
	RUN(weights_paths_resolve_against_the_file_directory);
	return DONE();
}
