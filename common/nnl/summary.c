/*
 * summary: nnc inspect's table of a model as written.  An .nnl model is
 * lowered with its weights declared but not read, so the table needs
 * no weights; the front end lists each layer it lowered, with the
 * elements of every tensor the layer reads (biases, BatchNorm's four
 * vectors).  A graph (.webnn, .json, an imported .onnx) shows one row
 * per node.  The workspace is the activation arena of the graph before
 * fusion, laid out as nnl-plan-memory would.
 */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "summary.h"
#include "checked.h"
#include "escape.h"
#include "kernel.h"
#include "memplan.h"
#include "nnl.h"
#include "nnl_ast.h"
#include "shape.h"
#include "util.h"

struct graph *
summary_nnl(const char *path)
{
	size_t len;
	char *text = readfile(path, &len);
	struct nnl_opts o;
	struct graph *g;

	if (!text) {
		error("%s: %s", path, strerror(errno));
		return NULL;
	}
	memset(&o, 0, sizeof o);
	o.path = path;
	o.summary = 1;
	g = nnl_parse(text, len, path, &o);
	if (!g) {
		free(text);
		return NULL;
	}
	g->owntext = text;
	graph_index(g);
	return g;
}

static const cJSON *
nnlkey(const struct graph *g, const char *key)
{
	return cJSON_GetObjectItemCaseSensitive(
	    cJSON_GetObjectItemCaseSensitive(g->extra, "nnl"), key);
}

static const cJSON *
config(const struct graph *g, const char *key)
{
	return cJSON_GetObjectItemCaseSensitive(nnlkey(g, "config"), key);
}

static int64_t
scratch(struct graph *g, struct node *n)
{
	struct kcall k;
	int64_t s;

	if (kernel_prepare(g, n, &k) != 0)
		return -1;
	s = (int64_t)k.scratch;
	kcall_free(&k);
	return s;
}

int
summary_plan(struct graph *g)
{
	struct memplan_opts o = { 64, 1, 0, scratch };
	struct memplan_stats st;
	const cJSON *a = config(g, "align");

	if (cJSON_IsNumber(a) && a->valuedouble >= 1 &&
	    a->valuedouble <= 4096 && a->valuedouble == (unsigned)a->valuedouble &&
	    !((unsigned)a->valuedouble & ((unsigned)a->valuedouble - 1)))
		o.align = (unsigned)a->valuedouble;
	if (shape_infer(g) != 0)
		return -1;
	return memplan(g, &o, &st);
}

/* 1234567 -> "1,234,567" */
static void
commas(uint64_t v, char *out, size_t len)
{
	char d[32];
	int n = snprintf(d, sizeof d, "%llu", (unsigned long long)v);
	size_t k = 0;

	for (int i = 0; i < n && k + 2 < len; i++) {
		out[k++] = d[i];
		if ((n - i - 1) % 3 == 0 && i < n - 1)
			out[k++] = ',';
	}
	out[k] = '\0';
}

static void
human(uint64_t b, char *buf, size_t len)
{
	if (b >= 1024 * 1024)
		snprintf(buf, len, "%.2f MB", (double)b / (1024 * 1024));
	else
		snprintf(buf, len, "%.1f KB", (double)b / 1024);
}

static void
row(FILE *f, const char *layer, const char *type, const char *shape,
    uint64_t params)
{
	char pc[48];

	commas(params, pc, sizeof pc);
	/* names from the model, terminal-safe; escape_tty_name keeps one
	 * result at a time */
	fprintf(f, "%-15s ", escape_tty_name(layer));
	fprintf(f, "%-11s %-16s %9s\n", escape_tty_name(type), shape, pc);
}

/* The parameters a node reads: float constants the model carries
 * (weights or inline bytes), not the scalars a lowering introduces. */
static uint64_t
nodeparams(const struct graph *g, const struct node *n)
{
	const char **reads;
	int nr = node_reads(n, &reads);
	uint64_t p = 0;

	for (int i = 0; i < nr; i++) {
		struct operand *o = graph_find(g, reads[i]);

		if (o && o->kind == OPND_CONST && o->init != INIT_SCALAR)
			p += tdesc_numel(&o->desc);
	}
	free(reads);
	return p;
}

/* Shapes' dimensions and counts of parameters and bytes, as the NNL
 * front end writes them: whole numbers up to 2^53. */
#define NUMMAX (INT64_C(1) << 53)

/* Number v, checked by numbers(): never a cast out of range. */
static int64_t
whole(const cJSON *v)
{
	int64_t x;

	return checked_double_i64(v->valuedouble, 0, NUMMAX, &x) == 0 ? x :
	    0;
}

/* Whether v is such a number; else an error naming it. */
static int
isnum(const struct graph *g, const cJSON *v, const char *what,
    const char *name)
{
	int64_t x;

	if (cJSON_IsNumber(v) && checked_double_i64(v->valuedouble, 0,
	    NUMMAX, &x) == 0)
		return 1;
	error("%s: %s \"%s\": expected a whole number from 0 to 2^53", g->src ? escape_tty_name(g->src) : "<stdin>", what,
	    escape_tty_name(name));
	return 0;
}

/*
 * The numbers summary_print() shows, before it prints anything: the
 * layers' shapes and parameters and the expected weights' shapes of
 * the "nnl" key (which a .json graph may hold as written by anyone),
 * and memory.arenaBytes.  0, or -1 after an error.
 */
static int
numbers(const struct graph *g)
{
	const cJSON *l, *x, *id;
	const cJSON *mem = cJSON_GetObjectItemCaseSensitive(g->extra,
	    "memory");
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(mem, "arenaBytes");

	cJSON_ArrayForEach(l, nnlkey(g, "layers")) {
		id = cJSON_GetObjectItemCaseSensitive(l, "id");
		if (!cJSON_IsString(id) || !cJSON_IsString(
		    cJSON_GetObjectItemCaseSensitive(l, "type"))) {
			error("%s: \"nnl\": a layer without a string \"id\" "
			    "and \"type\"", g->src ? escape_tty_name(g->src) :
			    "<stdin>");
			return -1;
		}
		cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(l,
		    "shape"))
			if (!isnum(g, x, "\"nnl\": the shape of layer", id->valuestring))
				return -1;
		if (!isnum(g, cJSON_GetObjectItemCaseSensitive(l, "params"),
		    "\"nnl\": the params of layer", id->valuestring))
			return -1;
	}
	cJSON_ArrayForEach(l, nnlkey(g, "weights")) {
		id = cJSON_GetObjectItemCaseSensitive(l, "key");
		if (!cJSON_IsString(id)) {
			error("%s: \"nnl\": a weight without a string \"key\"",
			    g->src ? escape_tty_name(g->src) : "<stdin>");
			return -1;
		}
		cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(l,
		    "shape"))
			if (!isnum(g, x, "\"nnl\": the shape of weight", id->valuestring))
				return -1;
	}
	if (cJSON_IsNumber(a) && !isnum(g, a, "\"memory\":", "arenaBytes"))
		return -1;
	return 0;
}

/* Rows of an NNL model's layers; returns the parameters. */
static uint64_t
layerrows(FILE *f, const cJSON *layers)
{
	const cJSON *l;
	uint64_t total = 0;

	cJSON_ArrayForEach(l, layers) {
		const cJSON *id = cJSON_GetObjectItemCaseSensitive(l, "id");
		const cJSON *ty = cJSON_GetObjectItemCaseSensitive(l, "type");
		const cJSON *sh = cJSON_GetObjectItemCaseSensitive(l, "shape");
		const cJSON *pa = cJSON_GetObjectItemCaseSensitive(l, "params");
		int64_t d[8];
		int r = 0;
		const cJSON *x;
		char *s;

		cJSON_ArrayForEach(x, sh)
			if (r < 8)
				d[r++] = whole(x);
		s = nnl_shapestr(d, r);
		row(f, id->valuestring, ty->valuestring, s,
		    (uint64_t)whole(pa));
		total += (uint64_t)whole(pa);
		free(s);
	}
	return total;
}

/* Rows of a graph's inputs and nodes; returns the parameters. */
static uint64_t
noderows(FILE *f, const struct graph *g)
{
	uint64_t total = 0;

	for (size_t i = 0; i < g->ninputs; i++) {
		char *s = nnl_shapestr(g->inputs[i]->desc.dims,
		    g->inputs[i]->desc.rank);

		row(f, g->inputs[i]->name, "Input", s, 0);
		free(s);
	}
	for (size_t i = 0; i < g->nnodes; i++) {
		const struct node *n = g->nodes[i];
		uint64_t p = nodeparams(g, n);
		char *s = n->nout > 0 ? nnl_shapestr(n->types[0].dims,
		    n->types[0].rank) : xstrdup("[]");

		row(f, n->id, n->opname, s, p);
		total += p;
		free(s);
	}
	return total;
}

int
summary_print(FILE *f, const struct graph *g)
{
	static const char rule[] = "──────────────────────────────────────"
	    "────────────────";
	const cJSON *layers = nnlkey(g, "layers"), *v, *c;
	const cJSON *mem = cJSON_GetObjectItemCaseSensitive(g->extra,
	    "memory");
	uint64_t total, weights = 0, arena = 0;
	char tp[48], b1[32], b2[32], b3[32];
	int isnnl = nnlkey(g, "version") != NULL;

	if (numbers(g) != 0)
		return -1;
	v = nnlkey(g, "version");
	fprintf(f, "Model: %s ", g->name ? escape_tty_name(g->name) :
	    "(unnamed)");
	fprintf(f, "(%s%s)\n", isnnl ? "version " : "webnn-graph v1",
	    cJSON_IsString(v) ? escape_tty_name(v->valuestring) : "");
	c = config(g, "precision");
	fprintf(f, "Precision: %s | ", cJSON_IsString(c) ?
	    escape_tty_name(c->valuestring) : g->ninputs ?
	    dtype_name(g->inputs[0]->desc.dt) : "float32");
	c = config(g, "target");
	fprintf(f, "Target: %s | Batch: %lld\n", cJSON_IsString(c) ?
	    escape_tty_name(c->valuestring) : "generic",
	    g->ninputs && g->inputs[0]->desc.rank > 0 ?
	    (long long)g->inputs[0]->desc.dims[0] : 1LL);
	fprintf(f, "\n%-15s %-11s %-16s %9s\n%s\n", "Layer", "Type",
	    "Output Shape", "Params", rule);
	total = layers ? layerrows(f, layers) : noderows(f, g);
	for (size_t i = 0; i < g->nconsts; i++)
		if (g->consts[i]->init != INIT_SCALAR)
			weights += dtype_bytes(g->consts[i]->desc.dt,
			    tdesc_numel(&g->consts[i]->desc));
	c = cJSON_GetObjectItemCaseSensitive(mem, "arenaBytes");
	if (cJSON_IsNumber(c))
		arena = (uint64_t)whole(c);
	commas(total, tp, sizeof tp);
	human(weights, b1, sizeof b1);
	human(arena, b2, sizeof b2);
	human(weights + arena, b3, sizeof b3);
	fprintf(f, "%s\nTotal params:    %s\nWeight memory:   %s\n"
	    "Workspace:       %s (static buffer)\nTotal memory:    %s\n", rule,
	    tp, b1, b2, b3);
	/* what E003's hint sends the user here for */
	layers = nnlkey(g, "weights");
	if (cJSON_GetArraySize(layers) > 0)
		fprintf(f, "\nExpected weights (%s):\n",
		    cJSON_IsString(c = config(g, "weights")) ?
		    escape_tty_name(c->valuestring) : "no 'weights' in config");
	cJSON_ArrayForEach(v, layers) {
		const cJSON *k = cJSON_GetObjectItemCaseSensitive(v, "key");
		const cJSON *x;
		int64_t d[8];
		int r = 0;
		char *s;

		cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(v,
		    "shape"))
			if (r < 8)
				d[r++] = whole(x);
		s = nnl_shapestr(d, r);
		fprintf(f, "  %-30s ", escape_tty_name(k->valuestring));
		fprintf(f, "%s", s);
		x = cJSON_GetObjectItemCaseSensitive(v, "alias");
		if (cJSON_IsString(x))	/* another name it goes by */
			fprintf(f, " (or %s)", escape_tty_name(x->valuestring));
		fputc('\n', f);
		free(s);
	}
	return 0;
}
