/*
 * report: the HTML page of nnc report.  Everything on the page is
 * written here or by Graphviz; every name from the model goes through
 * markup_xml, and the page refers to nothing outside itself.
 */
#include <stdlib.h>
#include <string.h>

#include "checked.h"
#include "dot.h"
#include "markup.h"
#include "memplan.h"
#include "memsvg.h"
#include "report.h"

static const struct tdesc *
typeof_name(const struct graph *g, const char *name)
{
	const struct operand *o = graph_find(g, name);
	const struct tdesc *t = o ? operand_type(o) : NULL;

	return t && t->rank >= 0 ? t : NULL;
}

/* The channel dimension of a 4-d operand in layout (default nchw). */
static int64_t
channels(const struct tdesc *t, const struct node *n)
{
	const cJSON *l = cJSON_GetObjectItemCaseSensitive(n->options,
	    "inputLayout");
	int nhwc = cJSON_IsString(l) && !strcmp(l->valuestring, "nhwc");

	return t->rank == 4 ? t->dims[nhwc ? 3 : 1] : 0;
}

uint64_t
report_macs(const struct graph *g, const struct node *n)
{
	const struct tdesc *a, *w, *y = n->types && n->nout ? &n->types[0] :
	    NULL;
	const cJSON *tr;
	int64_t c, k;

	if (!y || y->rank < 0 || n->nin < 2 || !(a = typeof_name(g, n->in[0]))
	    || !(w = typeof_name(g, n->in[1])))
		return 0;
	switch (n->op) {
	case OP_CONV2D:
		/* each output element: Cin/groups x kh x kw products, the
		 * filter's elements over the output channels */
		c = channels(y, n);
		return c > 0 ? tdesc_numel(y) * (tdesc_numel(w) / (uint64_t)c)
		    : 0;
	case OP_CONV_TRANSPOSE2D:
		/* each input element: Cout/groups x kh x kw products */
		c = channels(a, n);
		return c > 0 ? tdesc_numel(a) * (tdesc_numel(w) / (uint64_t)c)
		    : 0;
	case OP_CONV3D:		/* nnl's: [N, C, D, H, W] */
		c = y->rank == 5 ? y->dims[1] : 0;
		return c > 0 ? tdesc_numel(y) * (tdesc_numel(w) / (uint64_t)c)
		    : 0;
	case OP_CONV_TRANSPOSE3D:
		c = a->rank == 5 ? a->dims[1] : 0;
		return c > 0 ? tdesc_numel(a) * (tdesc_numel(w) / (uint64_t)c)
		    : 0;
	case OP_GEMM:
		if (a->rank != 2)
			return 0;
		tr = cJSON_GetObjectItemCaseSensitive(n->options,
		    "aTranspose");
		k = a->dims[cJSON_IsTrue(tr) ? 0 : 1];
		return tdesc_numel(y) * (uint64_t)k;
	case OP_MATMUL:
		if (a->rank < 1)
			return 0;
		k = a->dims[a->rank - 1];
		return tdesc_numel(y) * (uint64_t)k;
	default:
		return 0;
	}
}

uint64_t
report_params(const struct graph *g, const struct node *n)
{
	const char **reads;
	int nr = node_reads(n, &reads);
	uint64_t p = 0;

	for (int i = 0; i < nr; i++) {
		const struct operand *o = graph_find(g, reads[i]);

		if (o && o->kind == OPND_CONST && o->init == INIT_WEIGHTS)
			p += tdesc_numel(&o->desc);
	}
	free(reads);
	return p;
}

/* 1234567 -> "1,234,567" */
static void
commas(struct buf *b, uint64_t v)
{
	char d[32];
	int n = snprintf(d, sizeof d, "%llu", (unsigned long long)v);

	for (int i = 0; i < n; i++) {
		buf_putc(b, d[i]);
		if ((n - i - 1) % 3 == 0 && i < n - 1)
			buf_putc(b, ',');
	}
}

static const char style[] =
    "body{font-family:sans-serif;margin:1.5em;color:#222}"
    "h1{font-size:1.5em}h2{font-size:1.2em;margin-top:1.5em}"
    "table{border-collapse:collapse;font-size:.85em}"
    "th,td{border:1px solid #ccc;padding:.2em .5em;text-align:left}"
    "td.n{text-align:right;font-variant-numeric:tabular-nums}"
    "thead th{background:#eee}tfoot td{font-weight:bold}"
    ".graph svg{max-width:100%;height:auto}"
    ".summary span{margin-right:1.5em}";

/* Graphviz's SVG as an element of the page: no XML prolog, no
 * doctype, no namespace declarations (HTML knows <svg>). */
static void
inlinesvg(struct buf *b, const char *svg)
{
	static const char *const drop[] = {
		" xmlns=\"http://www.w3.org/2000/svg\"",
		" xmlns:xlink=\"http://www.w3.org/1999/xlink\""
	};
	const char *p = strstr(svg, "<svg");

	if (!p)
		return;
	while (*p) {
		size_t i;

		for (i = 0; i < 2; i++)
			if (!strncmp(p, drop[i], strlen(drop[i])))
				break;
		if (i < 2) {
			p += strlen(drop[i]);
			continue;
		}
		buf_putc(b, *p++);
	}
}

static void
td(struct buf *b, uint64_t v)
{
	buf_puts(b, "<td class=\"n\">");
	commas(b, v);
	buf_puts(b, "</td>");
}

/* The table of nodes; the totals of parameters and multiply-adds. */
static void
layers(struct buf *b, const struct graph *g, uint64_t *params,
    uint64_t *macs)
{
	*params = *macs = 0;
	buf_puts(b, "<h2>Layers</h2>\n<table id=\"layers\">\n<thead><tr>"
	    "<th>#</th><th>node</th><th>op</th><th>output shape</th>"
	    "<th>parameters</th><th>multiply-adds</th><th>arena offset</th>"
	    "<th>bytes</th></tr></thead>\n<tbody>\n");
	for (size_t i = 0; i < g->nnodes; i++) {
		const struct node *n = g->nodes[i];
		const cJSON *act = cJSON_GetObjectItemCaseSensitive(n->extra,
		    "activation"), *aop;
		const cJSON *arena = cJSON_GetObjectItemCaseSensitive(n->extra,
		    "arena");
		uint64_t p = report_params(g, n), m = report_macs(g, n), by = 0;

		*params += p;
		*macs += m;
		buf_printf(b, "<tr><td class=\"n\">%zu</td><td>", i);
		markup_xml(b, n->id, 200);
		buf_puts(b, "</td><td>");
		markup_xml(b, n->opname, 200);
		/* nnl-fuse's residual: the add the node stands for too */
		if (cJSON_IsString(cJSON_GetObjectItemCaseSensitive(n->extra,
		    "residual")))
			buf_puts(b, " + add");
		if (cJSON_IsObject(act) && cJSON_IsString(aop =
		    cJSON_GetObjectItemCaseSensitive(act, "op"))) {
			buf_puts(b, " + ");
			markup_xml(b, aop->valuestring, 200);
		}
		buf_puts(b, "</td><td>");
		for (int k = 0; n->types && k < n->nout; k++) {
			char *s = tdesc_str(&n->types[k]);

			if (k)
				buf_puts(b, "<br>");
			markup_xml(b, s, 0);
			free(s);
			by += memplan_bytes(&n->types[k]);
		}
		buf_puts(b, "</td>");
		td(b, p);
		td(b, m);
		buf_puts(b, "<td class=\"n\">");
		/* one offset an output, each checked by memsvg() first */
		for (int k = 0; k < n->nout && k < cJSON_GetArraySize(arena);
		    k++) {
			const cJSON *v = cJSON_GetArrayItem(arena, k);
			int64_t off;

			if (k)
				buf_puts(b, "<br>");
			if (cJSON_IsNumber(v) && checked_double_i64(
			    v->valuedouble, 0, INT64_MAX, &off) == 0)
				commas(b, (uint64_t)off);
		}
		buf_puts(b, "</td>");
		td(b, by);
		buf_puts(b, "</tr>\n");
	}
	buf_puts(b, "</tbody>\n<tfoot><tr><td colspan=\"4\">total</td>");
	td(b, *params);
	td(b, *macs);
	buf_puts(b, "<td></td><td></td></tr></tfoot>\n</table>\n");
}

static int
bigger(const void *a, const void *b)
{
	const struct operand *x = *(struct operand *const *)a;
	const struct operand *y = *(struct operand *const *)b;
	uint64_t bx = dtype_bytes(x->desc.dt, tdesc_numel(&x->desc));
	uint64_t by = dtype_bytes(y->desc.dt, tdesc_numel(&y->desc));

	return bx < by ? 1 : bx > by ? -1 : strcmp(x->name, y->name);
}

/* The constants: count and bytes by data type, the largest ten. */
static void
weights(struct buf *b, const struct graph *g)
{
	uint64_t total = 0, count[DT_COUNT] = { 0 }, bytes[DT_COUNT] = { 0 };
	struct operand **v = xmalloc((g->nconsts + 1) * sizeof *v);

	for (size_t i = 0; i < g->nconsts; i++) {
		const struct operand *c = g->consts[i];
		uint64_t n = dtype_bytes(c->desc.dt, tdesc_numel(&c->desc));

		v[i] = g->consts[i];
		total += n;
		if ((int)c->desc.dt >= 0 && c->desc.dt < DT_COUNT) {
			count[c->desc.dt]++;
			bytes[c->desc.dt] += n;
		}
	}
	buf_printf(b, "<h2>Weights</h2>\n<p>%zu constants, ", g->nconsts);
	commas(b, total);
	buf_puts(b, " bytes (");
	dot_bytes(b, total);
	buf_puts(b, ").</p>\n<table id=\"weights-by-type\">\n<thead><tr><th>"
	    "data type</th><th>constants</th><th>bytes</th></tr></thead>\n"
	    "<tbody>\n");
	for (int t = 0; t < DT_COUNT; t++)
		if (count[t]) {
			buf_printf(b, "<tr><td>%s</td>", dtype_name(
			    (enum dtype)t));
			td(b, count[t]);
			td(b, bytes[t]);
			buf_puts(b, "</tr>\n");
		}
	buf_puts(b, "</tbody></table>\n<h3>Largest constants</h3>\n"
	    "<table id=\"weights-largest\">\n<thead><tr><th>constant</th>"
	    "<th>type</th><th>bytes</th></tr></thead>\n<tbody>\n");
	qsort(v, g->nconsts, sizeof *v, bigger);
	for (size_t i = 0; i < g->nconsts && i < 10; i++) {
		char *s = tdesc_str(&v[i]->desc);

		buf_puts(b, "<tr><td>");
		markup_xml(b, v[i]->name, 200);
		buf_puts(b, "</td><td>");
		markup_xml(b, s, 0);
		buf_puts(b, "</td>");
		td(b, dtype_bytes(v[i]->desc.dt, tdesc_numel(&v[i]->desc)));
		buf_puts(b, "</tr>\n");
		free(s);
	}
	buf_puts(b, "</tbody></table>\n");
	free(v);
}

/* The graph's memory.KEY, checked by memsvg() first. */
static uint64_t
memnum(const struct graph *g, const char *key)
{
	uint64_t v;

	return memsvg_memnum(g, key, &v) == 0 ? v : 0;
}

int
report_write(struct graph *g, const char *title, const char *path)
{
	struct dot_opts o = { 0, 1 };
	struct buf d = { 0 }, t = { 0 }, b = { 0 }, mem = { 0 };
	uint64_t params, macs;
	char *svg;
	int rc = 0;

	if (!cJSON_GetObjectItemCaseSensitive(g->extra, "memory") ||
	    (rc = memsvg(&mem, g)) != 0) {
		if (rc == -2) {		/* a number reported */
			free(mem.s);
			return -1;
		}
		error("%s: the graph has no memory plan (run "
		    "nnl-plan-memory first)", g->src);
		free(mem.s);
		return -1;
	}
	dot_graph(&d, g, &o);
	svg = dot_render(d.s);
	free(d.s);
	if (!svg) {
		free(mem.s);
		return -1;
	}
	layers(&t, g, &params, &macs);
	buf_puts(&b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
	    "<meta charset=\"utf-8\">\n<title>");
	markup_xml(&b, title, 200);
	buf_printf(&b, " - nnl report</title>\n<style>%s</style>\n</head>\n"
	    "<body>\n<h1>", style);
	markup_xml(&b, title, 200);
	if (g->name) {
		buf_puts(&b, " <small>(");
		markup_xml(&b, g->name, 200);
		buf_puts(&b, ")</small>");
	}
	buf_printf(&b, "</h1>\n<p class=\"summary\"><span>%zu nodes</span>"
	    "<span>", g->nnodes);
	commas(&b, params);
	buf_puts(&b, " parameters</span><span>");
	commas(&b, macs);
	buf_puts(&b, " multiply-adds</span><span>arena ");
	commas(&b, memnum(g, "arenaBytes"));
	buf_puts(&b, " bytes (lower bound ");
	commas(&b, memnum(g, "lowerBoundBytes"));
	buf_puts(&b, ")</span></p>\n<h2>Graph</h2>\n<div class=\"graph\">\n");
	inlinesvg(&b, svg);
	buf_printf(&b, "</div>\n%s<h2>Memory plan</h2>\n<p>Each buffer is "
	    "a bar from the node that writes it to its last reader, at its "
	    "offset in the arena; hatched bars are kernels' workspace.  The "
	    "red line is the liveness lower bound: the most bytes live at "
	    "one step.</p>\n<div class=\"memory\">\n%s</div>\n", t.s, mem.s);
	weights(&b, g);
	buf_puts(&b, "<p><small>Written by nnc report.</small></p>\n"
	    "</body>\n</html>\n");
	rc = writefile_atomic(path, b.s, b.n);
	free(svg);
	free(t.s);
	free(mem.s);
	free(b.s);
	return rc;
}
