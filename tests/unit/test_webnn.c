/*
 * test_webnn: the .webnn reader and printer.  Texts parsed and their
 * graphs checked field by field, hand-built graphs printed and compared
 * with the expected text literally, exact round trips, and malformed
 * inputs, each of which must be refused with the message and position
 * written down here by hand (stderr is captured to check them).
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "graph.h"

static char errbuf[8192];

/* Run f(arg) with stderr going to errbuf. */
static void *
captured(void *(*f)(void *), void *arg)
{
	FILE *tmp = tmpfile();
	int saved = dup(2);
	size_t n;
	void *r;

	fflush(stderr);
	dup2(fileno(tmp), 2);
	r = f(arg);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(tmp);
	n = fread(errbuf, 1, sizeof errbuf - 1, tmp);
	errbuf[n] = '\0';
	fclose(tmp);
	return r;
}

struct text {
	const char *s;
	size_t len;
};

static void *
doparse(void *arg)
{
	struct text *t = arg;

	return webnn_parse(t->s, t->len, "t.webnn");
}

static struct graph *
parsen(const char *s, size_t len)
{
	struct text t = { s, len };

	return captured(doparse, &t);
}

static struct graph *
parse(const char *s)
{
	return parsen(s, strlen(s));
}

static void *
doprint(void *g)
{
	return webnn_print(g);
}

static char *
print(struct graph *g)
{
	return captured(doprint, g);
}

/* A full file around a nodes block. */
static char *
wrap(const char *decls, const char *nodes)
{
	return xasprintf("webnn_graph \"t\" v1 {\n%s\n  nodes {\n%s\n  }\n"
	    "  outputs { y; }\n}\n", decls, nodes);
}

static const cJSON *
opt(const struct node *n, const char *key)
{
	return cJSON_GetObjectItemCaseSensitive(n->options, key);
}

static char *
optstr(const struct node *n, const char *key)
{
	static char s[512];
	struct buf b = { 0 };

	json_put_value(&b, opt(n, key));
	snprintf(s, sizeof s, "%s", b.s);
	free(b.s);
	return s;
}

/* ---- reading ---- */

TEST(header_name_and_version)
{
	struct graph *g = parse("webnn_graph \"net\" v1 {\n}\n");

	CHECK(g != NULL);
	if (!g)
		return;
	CHECK_STR(g->name, "net");
	CHECK(g->version == 1);
	CHECK(g->ninputs == 0 && g->nconsts == 0 && g->nnodes == 0 &&
	    g->noutputs == 0);
	CHECK_STR(g->src, "t.webnn");
	CHECK(g->textlen == strlen("webnn_graph \"net\" v1 {\n}\n"));
	CHECK(errbuf[0] == '\0');
	graph_free(g);
}

TEST(header_empty_name_is_no_name_and_v_may_stand_apart)
{
	const char *text = "webnn_graph \"\" v 1 {}";
	struct graph *g = parse(text);

	CHECK(g != NULL);
	if (!g)
		return;
	CHECK(g->name == NULL);
	CHECK(g->version == 1);
	CHECK(g->text == text);
	graph_free(g);
}

TEST(inputs_with_every_dtype_and_positions)
{
	struct graph *g = parse("webnn_graph \"t\" v1 {\n"
	    "  inputs {\n"
	    "    a: f32[1, 2048];\n"
	    "    b: f16[];\n"
	    "    c: i32[4294967295]; d: u32[0];\n"
	    "    e: i64[1,2,3]; f: u64[1]; g: i8[1]; h: u8[1];\n"
	    "    i: i4[7]; j: u4[2];\n"
	    "  }\n}\n");
	static const enum dtype want[] = { DT_FLOAT32, DT_FLOAT16, DT_INT32,
	    DT_UINT32, DT_INT64, DT_UINT64, DT_INT8, DT_UINT8, DT_INT4,
	    DT_UINT4 };

	CHECK(g != NULL);
	if (!g)
		return;
	CHECK(g->ninputs == 10);
	for (size_t i = 0; i < g->ninputs && i < 10; i++) {
		CHECK(g->inputs[i]->kind == OPND_INPUT);
		CHECK(g->inputs[i]->desc.dt == want[i]);
	}
	CHECK_STR(g->inputs[0]->name, "a");
	CHECK(g->inputs[0]->desc.rank == 2);
	CHECK(g->inputs[0]->desc.dims[0] == 1);
	CHECK(g->inputs[0]->desc.dims[1] == 2048);
	CHECK(g->inputs[0]->pos.line == 3 && g->inputs[0]->pos.col == 5);
	CHECK(g->inputs[1]->desc.rank == 0);
	CHECK(g->inputs[2]->desc.dims[0] == 4294967295);
	CHECK(g->inputs[3]->desc.dims[0] == 0);
	CHECK(g->inputs[3]->pos.line == 5 && g->inputs[3]->pos.col == 25);
	CHECK(g->inputs[4]->desc.rank == 3);
	CHECK(graph_find(g, "j") == g->inputs[9]);
	graph_free(g);
}

TEST(consts_with_each_annotation)
{
	struct graph *g = parse("webnn_graph \"t\" v1 {\n"
	    "  consts {\n"
	    "    W: f32[2, 2] @weights(\"fc.weight\");\n"
	    "    plain: f16[3];\n"
	    "    s: f32[] @scalar(-1.5e-3);\n"
	    "    big: i64[] @scalar(-9007199254740991);\n"
	    "    k: u8[3] @bytes([0, 7, 255]);\n"
	    "    none: u8[0] @bytes([]);\n"
	    "  }\n}\n");

	CHECK(g != NULL);
	if (!g)
		return;
	CHECK(g->nconsts == 6);
	CHECK(g->consts[0]->kind == OPND_CONST);
	CHECK(g->consts[0]->init == INIT_WEIGHTS);
	CHECK_STR(g->consts[0]->ref, "fc.weight");
	CHECK(g->consts[0]->pos.line == 3 && g->consts[0]->pos.col == 5);
	CHECK(g->consts[1]->init == INIT_WEIGHTS);
	CHECK_STR(g->consts[1]->ref, "plain");
	CHECK(g->consts[1]->desc.dt == DT_FLOAT16);
	CHECK(g->consts[2]->init == INIT_SCALAR);
	CHECK(g->consts[2]->value == -1.5e-3);
	CHECK(g->consts[2]->desc.rank == 0);
	CHECK(g->consts[3]->value == -9007199254740991.0);
	CHECK(g->consts[4]->init == INIT_BYTES);
	CHECK(g->consts[4]->nbytes == 3);
	CHECK(g->consts[4]->bytes[0] == 0 && g->consts[4]->bytes[1] == 7 &&
	    g->consts[4]->bytes[2] == 255);
	CHECK(g->consts[5]->init == INIT_BYTES && g->consts[5]->nbytes == 0);
	graph_free(g);
}

TEST(call_fills_operands_then_parameters)
{
	char *t = wrap("  inputs { x: f32[2, 9]; h: f32[1, 1, 3]; }",
	    "    y = softmax(x, 1);\n"
	    "    [a, b] = split(x, [4, 5], axis=1);\n"
	    "    [s, sc] = lstm(h, x, x, 1, 3, direction=\"both\");");
	struct graph *g = parse(t);
	struct node *n;

	CHECK(g != NULL);
	if (!g)
		goto out;
	CHECK(g->nnodes == 3);
	n = g->nodes[0];
	CHECK_STR(n->id, "y");
	CHECK_STR(n->opname, "softmax");
	CHECK(n->op == OP_SOFTMAX);
	CHECK(n->nin == 1);
	CHECK_STR(n->in[0], "x");
	CHECK_STR(optstr(n, "axis"), "1");
	CHECK(n->nout == 1 && n->multi == 0);
	CHECK_STR(n->out[0], "y");
	CHECK(n->pos.line == 4 && n->pos.col == 5);
	n = g->nodes[1];
	CHECK_STR(n->id, "a");
	CHECK(n->multi == 1 && n->nout == 2);
	CHECK_STR(n->out[0], "a");
	CHECK_STR(n->out[1], "b");
	CHECK(n->pos.line == 5 && n->pos.col == 6);
	CHECK_STR(optstr(n, "splits"), "[4, 5]");
	CHECK_STR(optstr(n, "axis"), "1");
	n = g->nodes[2];
	CHECK(n->nin == 3);
	CHECK_STR(n->options->child->string, "steps");
	CHECK_STR(optstr(n, "steps"), "1");
	CHECK_STR(optstr(n, "hiddenSize"), "3");
	CHECK_STR(optstr(n, "direction"), "\"both\"");
	graph_free(g);
out:
	free(t);
}

TEST(named_operands_fill_their_slots)
{
	char *t = wrap("  inputs { p: f32[2]; q: f32[2]; }",
	    "    y = sub(b=q, a=p);\n    z = sub(p, b=q);");
	struct graph *g = parse(t);

	CHECK(g != NULL);
	if (g) {
		CHECK(g->nodes[0]->nin == 2);
		CHECK_STR(g->nodes[0]->in[0], "p");
		CHECK_STR(g->nodes[0]->in[1], "q");
		CHECK(cJSON_GetArraySize(g->nodes[0]->options) == 0);
		CHECK_STR(g->nodes[1]->in[0], "p");
		CHECK_STR(g->nodes[1]->in[1], "q");
	}
	graph_free(g);
	free(t);
}

TEST(identifiers_as_values_become_strings)
{
	char *t = wrap("  inputs { x: f32[1, 3, 4, 4]; w: f32[2, 3, 1, 1]; }\n"
	    "  consts { b: f32[2]; }",
	    "    y = conv2d(x, w, bias=b, inputLayout=nchw, strides=[1, 1]);");
	struct graph *g = parse(t);

	CHECK(g != NULL);
	if (g) {
		struct node *n = g->nodes[0];

		CHECK(n->nin == 2);
		CHECK_STR(optstr(n, "bias"), "\"b\"");
		CHECK_STR(optstr(n, "inputLayout"), "\"nchw\"");
		CHECK_STR(optstr(n, "strides"), "[1, 1]");
	}
	graph_free(g);
	free(t);
}

TEST(variadic_operand_is_an_array)
{
	char *t = wrap("  inputs { a: f32[1]; b: f32[1]; }",
	    "    y = concat([a, b, a], 0);\n    z = concat(inputs=[b], "
	    "axis=0);");
	struct graph *g = parse(t);

	CHECK(g != NULL);
	if (g) {
		CHECK(g->nodes[0]->nin == 3);
		CHECK_STR(g->nodes[0]->in[2], "a");
		CHECK_STR(optstr(g->nodes[0], "axis"), "0");
		CHECK(g->nodes[1]->nin == 1);
		CHECK_STR(g->nodes[1]->in[0], "b");
	}
	graph_free(g);
	free(t);
}

TEST(identity_and_scalar_statements)
{
	char *t = wrap("  inputs { x: f32[1]; }",
	    "    w = x;\n    k = -2.25;\n    y = mul(w, k);");
	struct graph *g = parse(t);

	CHECK(g != NULL);
	if (g) {
		CHECK(g->nnodes == 2);
		CHECK_STR(g->nodes[0]->opname, "identity");
		CHECK(g->nodes[0]->op == OP_IDENTITY);
		CHECK_STR(g->nodes[0]->in[0], "x");
		CHECK_STR(g->nodes[0]->out[0], "w");
		CHECK(g->nconsts == 1);
		CHECK_STR(g->consts[0]->name, "k");
		CHECK(g->consts[0]->desc.dt == DT_FLOAT32);
		CHECK(g->consts[0]->desc.rank == 0);
		CHECK(g->consts[0]->init == INIT_SCALAR);
		CHECK(g->consts[0]->value == -2.25);
		CHECK(g->consts[0]->pos.line == 5);
		CHECK(g->consts[0]->pos.col == 5);
	}
	graph_free(g);
	free(t);
}

TEST(unknown_op_is_kept_for_validation)
{
	char *t = wrap("  inputs { x: f32[1]; }",
	    "    y = frobnicate(x, x, level=3, mode=fast);\n"
	    "    z = nothing();");
	struct graph *g = parse(t);

	CHECK(g != NULL);
	if (g) {
		CHECK(g->nodes[0]->op == OP_NONE);
		CHECK_STR(g->nodes[0]->opname, "frobnicate");
		CHECK(g->nodes[0]->nin == 2);
		CHECK_STR(optstr(g->nodes[0], "level"), "3");
		CHECK_STR(optstr(g->nodes[0], "mode"), "\"fast\"");
		CHECK(g->nodes[1]->nin == 0);
	}
	graph_free(g);
	free(t);
}

TEST(values_of_every_kind)
{
	char *t = wrap("  inputs { x: f32[1]; }",
	    "    y = foo(x, a=[[1, -2], [], [3.5e2]], s=\"q\\\"\\\\\\/\\b\\f"
	    "\\n\\r\\t\", u=\"\\u00e9\\ud83d\\ude00\u00e9\", t=true, "
	    "f=false, n=null, e=1E-5, z=-0);");
	struct graph *g = parse(t);

	CHECK(g != NULL);
	if (g) {
		struct node *n = g->nodes[0];

		CHECK_STR(optstr(n, "a"), "[[1, -2], [], [350]]");
		CHECK_STR(opt(n, "s")->valuestring, "q\"\\/\b\f\n\r\t");
		CHECK_STR(opt(n, "u")->valuestring,
		    "\xc3\xa9\xf0\x9f\x98\x80\xc3\xa9");
		CHECK(cJSON_IsTrue(opt(n, "t")));
		CHECK(cJSON_IsFalse(opt(n, "f")));
		CHECK(cJSON_IsNull(opt(n, "n")));
		CHECK(opt(n, "e")->valuedouble == 1e-5);
		CHECK(signbit(opt(n, "z")->valuedouble));
	}
	graph_free(g);
	free(t);
}

TEST(outputs_lists_and_renames)
{
	struct graph *g = parse("webnn_graph \"t\" v1 {\n"
	    "  outputs { a, b; c = d; e f }\n}");

	CHECK(g != NULL);
	if (!g)
		return;
	CHECK(g->noutputs == 5);
	CHECK_STR(g->outputs[0].name, "a");
	CHECK_STR(g->outputs[0].ref, "a");
	CHECK_STR(g->outputs[1].name, "b");
	CHECK_STR(g->outputs[2].name, "c");
	CHECK_STR(g->outputs[2].ref, "d");
	CHECK_STR(g->outputs[4].ref, "f");
	CHECK(g->outputs[2].pos.line == 2 && g->outputs[2].pos.col == 19);
	graph_free(g);
}

TEST(comments_and_blocks_in_any_order)
{
	struct graph *g = parse("# leading comment\n"
	    "webnn_graph \"t\" v1 { // after the header\n"
	    "  outputs { y; }  # first\n"
	    "  nodes { y = relu(x); }\n"
	    "  inputs { x: f32[1]; }\n"
	    "  nodes { z = relu(y); } inputs { w: f32[2]; }\n"
	    "} // trailing\n# done");

	CHECK(g != NULL);
	if (!g)
		return;
	CHECK(g->nnodes == 2 && g->ninputs == 2 && g->noutputs == 1);
	CHECK_STR(g->nodes[1]->id, "z");
	CHECK_STR(g->inputs[1]->name, "w");
	graph_free(g);
}

TEST(nesting_up_to_64_levels)
{
	char open[70], close[70], *t, *ok;
	struct graph *g;

	memset(open, '[', 64);
	memset(close, ']', 64);
	open[64] = close[64] = '\0';
	ok = xasprintf("    y = foo(x, a=%s%s);", open, close);
	t = wrap("  inputs { x: f32[1]; }", ok);
	g = parse(t);
	CHECK(g != NULL);
	graph_free(g);
	free(t);
	free(ok);
	ok = xasprintf("    y = foo(x, a=[%s%s]);", open, close);
	t = wrap("  inputs { x: f32[1]; }", ok);
	g = parse(t);
	CHECK(g == NULL);
	CHECK(strstr(errbuf, "t.webnn:4:82: error: arrays nested deeper "
	    "than 64 levels") != NULL);
	free(t);
	free(ok);
}

TEST(parse_then_validate_the_seed_example)
{
	static const char seed[] =
	    "webnn_graph \"resnet_head\" v1 {\n"
	    "  inputs {\n    x: f32[1, 2048];\n  }\n\n"
	    "  consts {\n"
	    "    W: f32[2048, 1000] @weights(\"W\");\n"
	    "    b: f32[1000]       @weights(\"b\");\n  }\n\n"
	    "  nodes {\n"
	    "    logits0 = matmul(x, W);\n"
	    "    logits  = add(logits0, b);\n"
	    "    probs   = softmax(logits, axis=1);\n  }\n\n"
	    "  outputs { probs; }\n}\n";
	struct graph *g = parse(seed);

	CHECK(g != NULL);
	if (!g)
		return;
	CHECK(graph_validate(g) == 0);
	CHECK(graph_find(g, "logits")->producer == g->nodes[1]);
	graph_free(g);
}

/* ---- printing ---- */

static const char canonical[] =
    "webnn_graph \"resnet_head\" v1 {\n"
    "  inputs {\n"
    "    x: f32[1, 2048];\n"
    "  }\n"
    "\n"
    "  consts {\n"
    "    W: f32[2048, 1000] @weights(\"W\");\n"
    "    b: f32[1000] @weights(\"b\");\n"
    "  }\n"
    "\n"
    "  nodes {\n"
    "    logits0 = matmul(x, W);\n"
    "    logits = add(logits0, b);\n"
    "    probs = softmax(logits, axis=1);\n"
    "  }\n"
    "\n"
    "  outputs { probs; }\n"
    "}\n";

TEST(print_hand_built_graph)
{
	struct graph *g = graph_new();
	int64_t d1[] = { 1, 2048 }, d2[] = { 2048, 1000 }, d3[] = { 1000 };
	struct node *n;
	char *s;

	g->name = xstrdup("resnet_head");
	graph_add_input(g, "x", DT_FLOAT32, 2, d1);
	graph_add_const(g, "W", DT_FLOAT32, 2, d2)->ref = xstrdup("W");
	graph_add_const(g, "b", DT_FLOAT32, 1, d3)->ref = xstrdup("b");
	n = graph_add_node(g, "logits0", "matmul");
	node_add_input(n, "x");
	node_add_input(n, "W");
	node_add_output(n, "logits0");
	n = graph_add_node(g, "logits", "add");
	node_add_input(n, "logits0");
	node_add_input(n, "b");
	node_add_output(n, "logits");
	n = graph_add_node(g, "probs", "softmax");
	node_add_input(n, "logits");
	node_add_output(n, "probs");
	cJSON_AddNumberToObject(n->options, "axis", 1);
	graph_add_output(g, "probs", "probs");
	s = print(g);
	CHECK_STR(s, canonical);
	CHECK(errbuf[0] == '\0');
	free(s);
	graph_free(g);
}

TEST(print_every_construct)
{
	struct graph *g = graph_new();
	int64_t d[] = { 2, 9 };
	struct operand *c;
	struct node *n;
	cJSON *a;
	char *s;

	graph_add_input(g, "x", DT_FLOAT32, 2, d);
	c = graph_add_const(g, "s", DT_FLOAT16, 0, NULL);
	c->init = INIT_SCALAR;
	c->value = 1e-5;
	c = graph_add_const(g, "k", DT_UINT4, 1, d + 1);
	c->init = INIT_BYTES;
	c->nbytes = 2;
	c->bytes = xmalloc(2);
	c->bytes[0] = 18;
	c->bytes[1] = 255;
	n = graph_add_node(g, "a", "split");
	n->multi = 1;
	node_add_input(n, "x");
	node_add_output(n, "a");
	node_add_output(n, "b");
	a = cJSON_CreateArray();
	cJSON_AddItemToArray(a, cJSON_CreateNumber(4));
	cJSON_AddItemToArray(a, cJSON_CreateNumber(5));
	cJSON_AddItemToObject(n->options, "splits", a);
	cJSON_AddNumberToObject(n->options, "axis", 1);
	n = graph_add_node(g, "y", "concat");
	node_add_input(n, "b");
	node_add_input(n, "a");
	node_add_output(n, "y");
	cJSON_AddNumberToObject(n->options, "axis", 1);
	n = graph_add_node(g, "z", "batchNormalization");
	node_add_input(n, "y");
	node_add_input(n, "s");
	node_add_input(n, "s");
	node_add_output(n, "z");
	cJSON_AddStringToObject(n->options, "bias", "s");
	cJSON_AddNumberToObject(n->options, "epsilon", 0.001);
	cJSON_AddStringToObject(n->options, "label", "t\"ab\\\n");
	cJSON_AddTrueToObject(n->options, "x1");
	cJSON_AddNullToObject(n->options, "x2");
	n = graph_add_node(g, "q", "custom");
	node_add_output(n, "q");
	graph_add_output(g, "out", "z");
	graph_add_output(g, "q", "q");
	s = print(g);
	CHECK_STR(s,
	    "webnn_graph \"\" v1 {\n"
	    "  inputs {\n"
	    "    x: f32[2, 9];\n"
	    "  }\n"
	    "\n"
	    "  consts {\n"
	    "    s: f16[] @scalar(1e-5);\n"
	    "    k: u4[9] @bytes([18, 255]);\n"
	    "  }\n"
	    "\n"
	    "  nodes {\n"
	    "    [a, b] = split(x, splits=[4, 5], axis=1);\n"
	    "    y = concat([b, a], axis=1);\n"
	    "    z = batchNormalization(y, s, s, bias=s, epsilon=0.001, "
	    "label=\"t\\\"ab\\\\\\n\", x1=true, x2=null);\n"
	    "    q = custom();\n"
	    "  }\n"
	    "\n"
	    "  outputs { out = z; q; }\n"
	    "}\n");
	free(s);
	graph_free(g);
}

TEST(print_empty_graph)
{
	struct graph *g = graph_new();
	char *s = print(g);

	CHECK_STR(s, "webnn_graph \"\" v1 {\n  nodes {}\n\n  outputs {}\n}\n");
	graph_free(g);
	g = parse(s);
	CHECK(g != NULL);
	graph_free(g);
	free(s);
}

static int
roundtrips(const char *text)
{
	struct graph *g = parse(text);
	char *s = g ? print(g) : NULL;
	int ok = s && strcmp(s, text) == 0;

	if (!ok)
		fprintf(stderr, "round trip:\n%s\ngave:\n%s\n%s", text,
		    s ? s : "(null)", errbuf);
	free(s);
	graph_free(g);
	return ok;
}

TEST(canonical_text_round_trips_exactly)
{
	CHECK(roundtrips(canonical));
	CHECK(roundtrips("webnn_graph \"a \\\"b\\\"\\t\\u0001\xc3\xa9\" v1 {\n"
	    "  inputs {\n"
	    "    x: f32[2, 9];\n"
	    "    h: i4[];\n"
	    "  }\n"
	    "\n"
	    "  consts {\n"
	    "    big: i64[] @scalar(-9007199254740991);\n"
	    "    e: f32[] @scalar(1.5e-7);\n"
	    "    m: u8[0] @bytes([]);\n"
	    "  }\n"
	    "\n"
	    "  nodes {\n"
	    "    [a, b, c] = split(x, splits=[2, 3, 4], axis=1);\n"
	    "    [d] = split(a, splits=1);\n"
	    "    y = concat([c, b, a], axis=1);\n"
	    "    i = identity(y);\n"
	    "    r = reshape(i, newShape=[9, 2], label=\"\\u001f/\", "
	    "n=[[1, [2]], []], f=-0, g=0.1, h=1e20);\n"
	    "    u = unknownOp(r, x, _1=\"e\");\n"
	    "  }\n"
	    "\n"
	    "  outputs { out = u; a; d; }\n"
	    "}\n"));
}

static const char canonjson[] =
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
    "{\"kind\": \"inlineBytes\", \"bytes\": [0, 255]}},\n"
    "    \"w\": {\"dataType\": \"float32\", \"shape\": [4, 4], \"init\": "
    "{\"kind\": \"weights\", \"ref\": \"layer.0/w\"}}\n"
    "  },\n"
    "  \"nodes\": [\n"
    "    {\"id\": \"m\", \"op\": \"gemm\", \"inputs\": [\"x\", \"w\"], "
    "\"options\": {\"c\": \"s\", \"alpha\": 0.25, \"bTranspose\": true}},\n"
    "    {\"id\": \"a\", \"op\": \"split\", \"inputs\": [\"m\"], "
    "\"options\": {\"splits\": 2, \"axis\": 1}, \"outputs\": [\"a\", \"b\"]}"
    ",\n"
    "    {\"id\": \"c\", \"op\": \"relu\", \"inputs\": [\"b\"], "
    "\"options\": {\"label\": \"\xc3\xa9\\n\"}}\n"
    "  ],\n"
    "  \"outputs\": {\n"
    "    \"first\": \"a\",\n"
    "    \"c\": \"c\"\n"
    "  }\n"
    "}\n";

TEST(json_to_webnn_to_json_is_identical)
{
	struct graph *g = graph_from_json(canonjson, strlen(canonjson),
	    "t.json", ".");
	char *w = g ? print(g) : NULL, *j;
	struct graph *h;

	CHECK(w != NULL);
	if (!w) {
		graph_free(g);
		return;
	}
	h = parse(w);
	CHECK(h != NULL);
	j = h ? graph_to_json(h, NULL) : NULL;
	CHECK_STR(j, canonjson);
	CHECK(strstr(w, "m = gemm(x, w, c=s, alpha=0.25, bTranspose=true);") !=
	    NULL);
	free(j);
	free(w);
	graph_free(h);
	graph_free(g);
}

TEST(print_refuses_names_it_cannot_write)
{
	struct graph *g = graph_new();
	struct node *n;
	char *s;

	graph_add_input(g, "conv-1", DT_FLOAT32, 0, NULL);
	s = print(g);
	CHECK(s == NULL);
	CHECK(strstr(errbuf, "error: operand \"conv-1\" is not a valid .webnn "
	    "identifier") != NULL);
	graph_free(g);

	/* webnn-graph's names ('/', '.', '$') are written; "//" would
	 * read as a comment, '$' only starts a name, '.' never does */
	g = graph_new();
	graph_add_input(g, "/a.1/b", DT_FLOAT32, 0, NULL);
	graph_add_input(g, "$c", DT_FLOAT32, 0, NULL);
	s = print(g);
	CHECK(s != NULL && strstr(s, "    /a.1/b: f32[];\n    $c: f32[];\n"));
	free(s);
	graph_free(g);
	for (int i = 0; i < 3; i++) {
		static const char *const bad[] = { "//a", "a$", ".a" };

		g = graph_new();
		graph_add_input(g, bad[i], DT_FLOAT32, 0, NULL);
		CHECK(print(g) == NULL);
		graph_free(g);
	}

	g = graph_new();
	n = graph_add_node(g, "y", "relu");
	node_add_input(n, "true");
	node_add_output(n, "y");
	s = print(g);
	CHECK(s == NULL);
	CHECK(strstr(errbuf, "operand \"true\" is not a valid") != NULL);
	graph_free(g);

	g = graph_new();
	n = graph_add_node(g, "y", "com:ms:Foo");
	node_add_output(n, "y");
	s = print(g);
	CHECK(s == NULL);
	CHECK(strstr(errbuf, "node \"y\": op \"com:ms:Foo\" is not a valid "
	    ".webnn identifier") != NULL);
	graph_free(g);

	g = graph_new();
	graph_add_output(g, "y-out", "y");
	CHECK(print(g) == NULL);
	CHECK(strstr(errbuf, "operand \"y-out\"") != NULL);
	graph_free(g);
}

TEST(print_refuses_options_it_cannot_write)
{
	struct graph *g = graph_new();
	struct node *n = graph_add_node(g, "y", "relu");

	node_add_input(n, "x");
	node_add_output(n, "y");
	cJSON_AddItemToObject(n->options, "o", cJSON_CreateObject());
	CHECK(print(g) == NULL);
	CHECK(strstr(errbuf, "node \"y\": option \"o\": an object cannot be "
	    "written in .webnn") != NULL);
	cJSON_DeleteItemFromObject(n->options, "o");
	cJSON_AddNumberToObject(n->options, "x-y", 1);
	CHECK(print(g) == NULL);
	CHECK(strstr(errbuf, "option \"x-y\" is not a valid") != NULL);
	cJSON_DeleteItemFromObject(n->options, "x-y");
	cJSON_AddStringToObject(n->options, "input", "x");
	CHECK(print(g) == NULL);
	CHECK(strstr(errbuf, "option \"input\" has the name of an operand of "
	    "relu") != NULL);
	cJSON_DeleteItemFromObject(n->options, "input");
	node_add_input(n, "x");
	CHECK(print(g) == NULL);
	CHECK(strstr(errbuf, "node \"y\": relu takes 1 operand, the node has "
	    "2") != NULL);
	graph_free(g);
}

TEST(print_warns_about_what_it_drops)
{
	static const char js[] = "{\"format\": \"webnn-graph-json\", "
	    "\"version\": 1, \"x-top\": 1, \"inputs\": {\"x\": {\"dataType\": "
	    "\"float32\", \"shape\": [1], \"x-in\": 2}}, \"nodes\": [{\"id\": "
	    "\"n1\", \"op\": \"split\", \"inputs\": [\"x\"], \"options\": "
	    "{\"splits\": 1}, \"outputs\": [\"y\"], \"x-node\": 3}], "
	    "\"outputs\": {\"y\": \"y\"}}";
	struct graph *g = graph_from_json(js, strlen(js), "t.json", ".");
	char *s = g ? print(g) : NULL;

	CHECK_STR(s, "webnn_graph \"\" v1 {\n  inputs {\n    x: f32[1];\n"
	    "  }\n\n  nodes {\n    [y] = split(x, splits=1);\n  }\n\n"
	    "  outputs { y; }\n}\n");
	CHECK(strstr(errbuf, "warning: dropping top-level field \"x-top\"") !=
	    NULL);
	CHECK(strstr(errbuf, "warning: input \"x\": dropping field \"x-in\"") !=
	    NULL);
	CHECK(strstr(errbuf, "warning: node \"n1\": dropping its id") != NULL);
	CHECK(strstr(errbuf, "warning: node \"n1\": dropping field \"x-node\"")
	    != NULL);
	free(s);
	graph_free(g);
}

/* ---- malformed input ---- */

struct bad {
	const char *text;	/* NULL: the body below, inside a graph */
	const char *body;
	const char *want;	/* in stderr */
};

#define H "webnn_graph \"t\" v1 {\n"
#define NULTEXT H "  nodes {\n    y = relu(x\0);\n  }\n}\n"
static const struct bad bads[] = {
	{ "", 0, "t.webnn:1:1: error: expected 'webnn_graph' at the start of "
	    "the file, found end of input" },
	{ "  \n", 0, "t.webnn:2:1: error: expected 'webnn_graph'" },
	{ "webnn_grap \"g\" v1 {}", 0, "t.webnn:1:1: error: expected "
	    "'webnn_graph' at the start of the file, found 'webnn_grap'" },
	{ "webnn_graph v1 {}", 0, "t.webnn:1:13: error: expected the graph "
	    "name (a string) after 'webnn_graph', found 'v1'" },
	{ "webnn_graph \"g\" {}", 0, "t.webnn:1:17: error: expected the "
	    "version (v1 or v2) after the graph name, found '{'" },
	{ "webnn_graph \"g\" v3 {}", 0, "t.webnn:1:17: error: unsupported "
	    "version v3 (nnl reads v1 and v2)" },
	{ "webnn_graph \"g\" version1 {}", 0, "1:17: error: expected the "
	    "version" },
	{ "webnn_graph \"g\" v1\n  inputs {}\n}", 0, "t.webnn:2:3: error: "
	    "expected '{' after the version, found 'inputs'" },
	{ "webnn_graph \"g v1 {\n}", 0, "t.webnn:1:13: error: unterminated "
	    "string" },
	{ "webnn_graph \"g", 0, "t.webnn:1:13: error: unterminated string" },
	{ "webnn_graph \"a\\qb\" v1 {}", 0, "t.webnn:1:15: error: invalid "
	    "escape '\\q' in string" },
	{ "webnn_graph \"a\\", 0, "t.webnn:1:15: error: invalid escape in "
	    "string" },
	{ "webnn_graph \"\\u12g4\" v1 {}", 0, "t.webnn:1:14: error: '\\u' "
	    "needs four hex digits" },
	{ "webnn_graph \"\\u00", 0, "1:14: error: '\\u' needs four hex" },
	{ "webnn_graph \"\\ud800x\" v1 {}", 0, "t.webnn:1:14: error: unpaired "
	    "surrogate" },
	{ "webnn_graph \"\\udc00\" v1 {}", 0, "t.webnn:1:14: error: unpaired "
	    "surrogate" },
	{ "webnn_graph \"\\u0000\" v1 {}", 0, "t.webnn:1:14: error: '\\u0000' "
	    "is not allowed in a string" },
	{ "webnn_graph \"a\x01\" v1 {}", 0, "t.webnn:1:15: error: control "
	    "character 0x01 in string" },
	{ "webnn_graph \"\xc3(\" v1 {}", 0, "t.webnn:1:14: error: invalid "
	    "UTF-8 in string (byte 0xc3)" },
	{ "webnn_graph \"\xed\xa0\x80\" v1 {}", 0, "1:14: error: invalid "
	    "UTF-8" },
	{ "webnn_graph \"g\" v1 {\n  layers {\n  }\n}", 0, "t.webnn:2:3: "
	    "error: unknown block 'layers' (expected inputs, consts, nodes or "
	    "outputs)" },
	{ "webnn_graph \"g\" v1 {\n  inputs {\n    x: f32[2];\n  }\n", 0,
	    "t.webnn:5:1: error: expected a block (inputs, consts, nodes, "
	    "outputs) or '}', found end of input" },
	{ "webnn_graph \"g\" v1 {\n}\nextra\n", 0, "t.webnn:3:1: error: "
	    "unexpected 'extra' after the end of the graph" },
	{ "webnn_graph \"g\" v1 {\n} }", 0, "t.webnn:2:3: error: unexpected "
	    "'}' after the end of the graph" },
	{ "webnn_graph \"g\" v1 { ! }", 0, "t.webnn:1:22: error: unexpected "
	    "character '!'" },
	{ "webnn_graph \"g\" v1 { / }", 0, "t.webnn:1:22: error: unknown "
	    "block '/'" },
	{ "webnn_graph \"g\" v1 { \xff }", 0, "t.webnn:1:22: error: "
	    "unexpected character 0xff" },
	{ "webnn_graph \"g\" v1 { @ }", 0, "t.webnn:1:22: error: expected an "
	    "annotation name after '@'" },
	{ 0, "  inputs {\n    x: f32[1, 2]\n  }", "t.webnn:4:3: error: "
	    "expected ';' after input declaration, found '}'" },
	{ 0, "  inputs { x f32[1]; }", "t.webnn:2:14: error: expected ':' "
	    "after the input name, found 'f32'" },
	{ 0, "  inputs { 3: f32[1]; }", "t.webnn:2:12: error: expected an "
	    "input name or '}', found '3'" },
	{ 0, "  inputs { null: f32[1]; }", "t.webnn:2:12: error: expected an "
	    "input name or '}', found 'null'" },
	{ 0, "  inputs {\n    x: f31[1, 2];\n  }", "t.webnn:3:8: error: "
	    "unknown data type 'f31' (expected one of f32, f16, i32, u32, i64, "
	    "u64, i8, u8, i4, u4, f64, i16, u16, bf16)" },
	{ 0, "  inputs { x: \"f32\"[1]; }", "t.webnn:2:15: error: expected a "
	    "data type, found a string" },
	{ 0, "  inputs { x: f32 1; }", "t.webnn:2:19: error: expected '[' "
	    "after the data type, found '1'" },
	{ 0, "  inputs { x: f32[-1, 2]; }", "t.webnn:2:19: error: expected a "
	    "dimension (an integer from 0 to 4294967295), found '-1'" },
	{ 0, "  inputs { x: f32[1.5]; }", "t.webnn:2:19: error: expected a "
	    "dimension" },
	{ 0, "  inputs { x: f32[4294967296]; }", "t.webnn:2:19: error: "
	    "dimension 4294967296 exceeds 4294967295" },
	{ 0, "  inputs { x: f32[99999999999999999999999999999]; }",
	    "2:19: error: dimension 999999999999999999999999... exceeds" },
	{ 0, "  inputs { x: f32[1,]; }", "t.webnn:2:21: error: expected a "
	    "dimension" },
	{ 0, "  inputs { x: f32[1 2]; }", "t.webnn:2:21: error: expected ',' "
	    "or ']' in the shape, found '2'" },
	{ 0, "  inputs { x: f32[1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,"
	    "1,1,1,1,1,1,1,1,1,1,1]; }", "t.webnn:2:83: error: a shape has at "
	    "most 32 dimensions" },
	{ 0, "  consts {\n    W: f32[3] @weight(\"W\");\n  }",
	    "t.webnn:3:15: error: unknown annotation '@weight' (expected "
	    "@weights, @scalar or @bytes)" },
	{ 0, "  consts {\n    W: f32[3] @weights(\"W\") @scalar(1);\n  }",
	    "t.webnn:3:29: error: a constant takes one annotation, this is a "
	    "second" },
	{ 0, "  consts {\n    W: f32[] @scalar(\"a\");\n  }", "t.webnn:3:22: "
	    "error: expected a number, found a string" },
	{ 0, "  consts { W: f32[] @weights(\"\"); }", "t.webnn:2:30: error: "
	    "expected the weights key (a non-empty string), found a string" },
	{ 0, "  consts { W: f32[] @weights(W); }", "2:30: error: expected the "
	    "weights key" },
	{ 0, "  consts { W: u8[2] @bytes([1, 256]); }", "t.webnn:2:32: error: "
	    "expected a byte value (an integer from 0 to 255), found '256'" },
	{ 0, "  consts { W: u8[2] @bytes([1, -1]); }", "2:32: error: expected "
	    "a byte value" },
	{ 0, "  consts { W: u8[2] @bytes(1, 2); }", "t.webnn:2:28: error: "
	    "expected '[' after '@bytes(', found '1'" },
	{ 0, "  consts { W: f32[] @scalar(1; }", "t.webnn:2:30: error: "
	    "expected ')' after the annotation's argument, found ';'" },
	{ 0, "  consts { W: f32[] @scalar(1) }", "t.webnn:2:32: error: "
	    "expected ';' after constant declaration, found '}'" },
	{ 0, "  nodes {\n    y relu(x);\n  }", "t.webnn:3:7: error: expected "
	    "'=' after 'y', found 'relu'" },
	{ 0, "  nodes {\n    y = relu(x)\n    z = relu(y);\n  }",
	    "t.webnn:4:5: error: expected ';' after the statement, found 'z'" },
	{ 0, "  nodes {\n    y = relu(x;\n  }", "t.webnn:3:15: error: "
	    "expected ',' or ')' after an argument, found ';'" },
	{ 0, "  nodes {\n    [a, b = split(x, 2);\n  }", "t.webnn:3:11: "
	    "error: expected ']' or ',' in the output list, found '='" },
	{ 0, "  nodes { [] = split(x, 2); }", "t.webnn:2:12: error: expected "
	    "an output name, found ']'" },
	{ 0, "  nodes { [a, b] = x; }", "t.webnn:2:20: error: only a call can "
	    "have several outputs" },
	{ 0, "  nodes { [a, b] = 1; }", "t.webnn:2:20: error: expected a call, "
	    "found '1'" },
	{ 0, "  nodes {\n    y = softmax(x, axis=1e);\n  }", "t.webnn:3:25: "
	    "error: malformed number '1e'" },
	{ 0, "  nodes {\n    y = softmax(x, axis=1e999);\n  }",
	    "t.webnn:3:25: error: number '1e999' is out of range" },
	{ 0, "  nodes { y = foo(x, a=1.); }", "t.webnn:2:24: error: malformed "
	    "number '1.'" },
	{ 0, "  nodes { y = foo(x, a=12ab); }", "t.webnn:2:24: error: "
	    "malformed number '12ab'" },
	{ 0, "  nodes { y = foo(x, a=1.5.2); }", "malformed number '1.5.2'" },
	{ 0, "  nodes { y = foo(x, a=- 1); }", "t.webnn:2:24: error: expected "
	    "a digit after '-'" },
	{ 0, "  nodes { y = foo(x, a=+1); }", "t.webnn:2:24: error: unexpected "
	    "character '+'" },
	{ 0, "  nodes {\n    y = ;\n  }", "t.webnn:3:9: error: "
	    "expected a call, an operand name or a literal after '=', found "
	    "';'" },
	{ 0, "  nodes { y = @x; }", "t.webnn:2:15: error: expected a call, "
	    "an operand name or a literal after '=', found '@x'" },
	{ 0, "  nodes {\n    y = frobnicate(x, 3);\n  }", "t.webnn:3:23: "
	    "error: unknown op \"frobnicate\": positional argument 2 needs a "
	    "name (name=value)" },
	{ 0, "  nodes {\n    y = add(x);\n  }", "t.webnn:3:9: error: add "
	    "needs its operand \"b\"" },
	{ 0, "  nodes { y = add(b=x); }", "t.webnn:2:15: error: add needs its "
	    "operand \"a\"" },
	{ 0, "  nodes {\n    y = relu(x, x);\n  }", "t.webnn:3:17: error: too "
	    "many positional arguments to relu (it takes 1)" },
	{ 0, "  nodes { y = add(x, a=x); }", "t.webnn:2:22: error: operand "
	    "\"a\" of add is given twice" },
	{ 0, "  nodes { y = softmax(x, 1, axis=1); }", "t.webnn:2:29: error: "
	    "argument \"axis\" is given twice" },
	{ 0, "  nodes { y = foo(a=1, a=2); }", "t.webnn:2:24: error: argument "
	    "\"a\" is given twice" },
	{ 0, "  nodes { y = softmax(axis=1, x); }", "t.webnn:2:31: error: a "
	    "positional argument cannot follow a named one" },
	{ 0, "  nodes { y = relu(x,); }", "t.webnn:2:22: error: expected an "
	    "argument after ',', found ')'" },
	{ 0, "  nodes { y = relu(1); }", "t.webnn:2:20: error: expected an "
	    "operand name for \"input\" of relu, found '1'" },
	{ 0, "  nodes { y = add(x, b=[x]); }", "t.webnn:2:24: error: expected "
	    "an operand name for \"b\" of add, found '['" },
	{ 0, "  nodes { y = concat(x, 0); }", "t.webnn:2:22: error: expected "
	    "'[' and the operand names for \"inputs\" of concat, found 'x'" },
	{ 0, "  nodes { y = concat([x 1], 0); }", "t.webnn:2:25: error: "
	    "expected ',' or ']' in the operand list, found '1'" },
	{ 0, "  nodes { y = foo(x, a=[1, 2); }", "t.webnn:2:29: error: "
	    "expected ',' or ']' in the array, found ')'" },
	{ 0, "  nodes { y = foo(x, a=[1,]); }", "t.webnn:2:27: error: expected "
	    "a value, found ']'" },
	{ 0, "  nodes { y = foo(x, a=); }", "t.webnn:2:24: error: expected a "
	    "value, found ')'" },
	{ 0, "  nodes { y = foo(x, a=@weights); }", "t.webnn:2:24: error: "
	    "expected a value, found '@weights'" },
	{ 0, "  nodes {\n    y = relu(x) %;\n  }", "t.webnn:3:17: error: "
	    "unexpected character '%'" },
	{ 0, "  nodes {\n    y = relu(x) $;\n  }", "t.webnn:3:17: error: "
	    "expected ';' after the statement, found '$'" },
	{ 0, "  nodes { y = relu(x) ", "t.webnn:3:1: error: expected ';' "
	    "after the statement, found '}'" },
	{ 0, "  outputs { y = ; }", "t.webnn:2:17: error: expected an operand "
	    "name after '=', found ';'" },
	{ 0, "  outputs { y, }", "t.webnn:2:16: error: expected an output "
	    "name after ',', found '}'" },
	{ 0, "  outputs { \"y\" }", "t.webnn:2:13: error: expected an output "
	    "name or '}', found a string" },
	{ 0, "  inputs }", "t.webnn:2:10: error: expected '{' after 'inputs', "
	    "found '}'" },
};

static void
badcase(const struct bad *b, size_t i)
{
	char *text = b->text ? xstrdup(b->text) : xasprintf(H "%s\n}\n",
	    b->body);
	struct graph *g = parsen(text, strlen(text));
	if (g != NULL || !strstr(errbuf, b->want) ||
	    strstr(strstr(errbuf, "error:") + 1, "error:")) {
		fprintf(stderr, "malformed case %zu: %s\n  want: %s\n  got: %s",
		    i, g ? "accepted" : "refused", b->want, errbuf);
		check_failed = 1;
	}
	graph_free(g);
	free(text);
}

TEST(malformed_inputs_are_refused_with_position_and_message)
{
	size_t n = sizeof bads / sizeof bads[0];

	CHECK(n >= 40);
	for (size_t i = 0; i < n; i++)
		badcase(&bads[i], i);
}

TEST(nul_byte_is_refused)
{
	static const char text[] = NULTEXT;
	char *t = xmalloc(sizeof text - 1);
	struct graph *g;

	memcpy(t, text, sizeof text - 1);
	g = parsen(t, sizeof text - 1);
	CHECK(g == NULL);
	CHECK(strstr(errbuf, "t.webnn:3:15: error: unexpected character "
	    "0x00") != NULL);
	free(t);
}

TEST(only_the_first_error_is_reported)
{
	struct graph *g = parse(H "  inputs { x: f31[1]; y: q[]; }\n"
	    "  nodes { $ }\n}\n");

	CHECK(g == NULL);
	CHECK(strstr(errbuf, "t.webnn:2:15: error: unknown data type 'f31'"));
	CHECK(strstr(strstr(errbuf, "error:") + 1, "error:") == NULL);
}

TEST(errors_show_the_line_and_a_caret)
{
	struct graph *g = parse(H "  inputs {\n    x: f31[1, 2];\n  }\n}\n");

	CHECK(g == NULL);
	CHECK(strstr(errbuf, "\n        x: f31[1, 2];\n           ^\n") !=
	    NULL);
}

/* Every prefix and many one-byte changes of a rich text, each in a
 * buffer of its exact length (valgrind sees any read past it). */
static const char rich[] =
    "# c\nwebnn_graph \"r\\u00e9\\ud83d\\ude00\" v1 { // x\n"
    "  inputs { x: f32[2, 9]; }\n"
    "  consts { s: f32[] @scalar(-1.5e-3); k: u8[2] @bytes([1, 2]);\n"
    "    w: f32[9] @weights(\"w\\n\"); }\n"
    "  nodes { [a, b] = split(x, [4, 5], axis=1); c = a; d = 2;\n"
    "    y = concat([a, b], 1); z = foo(y, q=[[1], [true, null]], r=s);\n"
    "    t = add(b=y, a=y); }\n"
    "  outputs { z, out = t; }\n}\n";

TEST(no_prefix_or_mutation_crashes)
{
	size_t len = sizeof rich - 1;
	static const char subst[] = "\0\"\\[]{}(),;:=@#/-.e9xv\n\xc3\x80";
	int accepted = 0;

	for (size_t n = 0; n <= len; n++) {
		char *t = xmalloc(n ? n : 1);
		struct graph *g;

		memcpy(t, rich, n);
		g = parsen(t, n);
		accepted += g != NULL;
		graph_free(g);
		free(t);
	}
	CHECK(accepted >= 1);	/* the whole text, maybe a comment more */
	for (size_t i = 0; i < len; i++)
		for (size_t k = 0; k < sizeof subst - 1; k++) {
			char *t = xmalloc(len);
			struct graph *g;

			memcpy(t, rich, len);
			t[i] = subst[k];
			g = parsen(t, len);
			graph_free(g);
			free(t);
		}
}

int
main(void)
{
	setprogname("test_webnn");
	RUN(header_name_and_version);
	RUN(header_empty_name_is_no_name_and_v_may_stand_apart);
	RUN(inputs_with_every_dtype_and_positions);
	RUN(consts_with_each_annotation);
	RUN(call_fills_operands_then_parameters);
	RUN(named_operands_fill_their_slots);
	RUN(identifiers_as_values_become_strings);
	RUN(variadic_operand_is_an_array);
	RUN(identity_and_scalar_statements);
	RUN(unknown_op_is_kept_for_validation);
	RUN(values_of_every_kind);
	RUN(outputs_lists_and_renames);
	RUN(comments_and_blocks_in_any_order);
	RUN(nesting_up_to_64_levels);
	RUN(parse_then_validate_the_seed_example);
	RUN(print_hand_built_graph);
	RUN(print_every_construct);
	RUN(print_empty_graph);
	RUN(canonical_text_round_trips_exactly);
	RUN(json_to_webnn_to_json_is_identical);
	RUN(print_refuses_names_it_cannot_write);
	RUN(print_refuses_options_it_cannot_write);
	RUN(print_warns_about_what_it_drops);
	RUN(malformed_inputs_are_refused_with_position_and_message);
	RUN(nul_byte_is_refused);
	RUN(only_the_first_error_is_reported);
	RUN(errors_show_the_line_and_a_caret);
	RUN(no_prefix_or_mutation_crashes);
	return DONE();
}
