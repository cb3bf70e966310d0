/*
 * memsvg: the memory plan drawn as SVG by hand: rectangles and lines on
 * a grid of node steps by arena bytes.  No layout engine is needed:
 * every position follows from the plan.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "checked.h"
#include "dot.h"
#include "escape.h"
#include "markup.h"
#include "memplan.h"
#include "memsvg.h"
#include "strtab.h"

#define W	960	/* picture, pixels */
#define H	420
#define LEFT	100	/* plot area */
#define RIGHT	20
#define TOP	24
#define BOTTOM	44

static const char *const fill[] = {
	"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948",
	"#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"
};

/* Offsets and sizes of a plan are whole numbers up to 2^53, as
 * nnl-plan-memory writes them and memplan_verify reads them. */
#define PLANMAX (INT64_C(1) << 53)

/*
 * The plan number v of node nd (NULL: the graph's "memory"), named
 * key: 1 and *r, 0 when v is no number (not planned), -1 after an
 * error naming it when it is NaN, infinite, a fraction or out of
 * [0, 2^53], which no cast may meet.
 */
static int
plannum(const struct graph *g, const struct node *nd, const char *key,
    const cJSON *v, uint64_t *r)
{
	int64_t x;
	struct buf t = { 0 };

	if (!cJSON_IsNumber(v))
		return 0;
	if (checked_double_i64(v->valuedouble, 0, PLANMAX, &x) != 0) {
		if (isnan(v->valuedouble))
			buf_puts(&t, "NaN");
		else	/* as JSON writes it: 1e300, not 1.0000000000000001e+300 */
			json_put_number(&t, v->valuedouble);
		error("%s: %s%s%s\"%s\" %s is not a whole number of bytes "
		    "from 0 to 2^53", g->src ? escape_tty_name(g->src) :
		    "<stdin>", nd ? "node \"" : "", nd ?
		    escape_tty_name(nd->id) : "", nd ? "\": " : "memory: ",
		    key, t.s);
		free(t.s);
		return -1;
	}
	*r = (uint64_t)x;
	return 1;
}

struct membuf *
memsvg_buffers(struct graph *g, size_t *np)
{
	struct membuf *v = NULL;
	size_t n = 0, cap = 0;
	struct strtab byname = { 0 };

	*np = 0;
	graph_number(g);
	for (size_t i = 0; i < g->nnodes; i++) {
		struct node *nd = g->nodes[i];
		const cJSON *a = cJSON_GetObjectItemCaseSensitive(nd->extra,
		    "arena");
		const cJSON *s = cJSON_GetObjectItemCaseSensitive(nd->extra,
		    "scratch");

		uint64_t so;

		if (!cJSON_IsArray(a) || !nd->types) {
			free(v);
			return NULL;
		}
		for (int k = 0; k < nd->nout; k++) {
			uint64_t off;
			int r = plannum(g, nd, "arena", cJSON_GetArrayItem(a,
			    k), &off);

			if (r < 0)
				goto bad;
			if (r == 0 || nd->types[k].rank < 0)
				continue;
			GROW(v, cap, n + 1);
			v[n].node = v[n].first = v[n].last = i;
			v[n].out = k;
			v[n].off = off;
			v[n].bytes = memplan_bytes(&nd->types[k]);
			n++;
		}
		switch (plannum(g, nd, "scratch", s, &so)) {
		case -1:
			goto bad;
		case 1: {
			int64_t sz = memplan_scratch(g, nd);

			if (sz > 0) {
				GROW(v, cap, n + 1);
				v[n].node = v[n].first = v[n].last = i;
				v[n].out = -1;
				v[n].off = so;
				v[n].bytes = (uint64_t)sz;
				n++;
			}
		}
		}
	}
	/* last readers: later nodes' reads, graph outputs to the end; a
	 * table from each buffer's name to it keeps this linear */
	for (size_t b = 0; b < n; b++)
		if (v[b].out >= 0)
			strtab_put(&byname, g->nodes[v[b].node]->out[v[b].out],
			    (void *)(b + 1));
	for (size_t j = 0; j < g->nnodes; j++) {
		const char **reads;
		int nr = node_reads(g->nodes[j], &reads);

		for (int k = 0; k < nr; k++) {
			uintptr_t b = (uintptr_t)strtab_get(&byname, reads[k]);

			if (b && j > v[b - 1].node)
				v[b - 1].last = j;
		}
		free(reads);
	}
	for (size_t k = 0; k < g->noutputs; k++) {
		uintptr_t b = (uintptr_t)strtab_get(&byname,
		    g->outputs[k].ref ? g->outputs[k].ref :
		    g->outputs[k].name);

		if (b)
			v[b - 1].last = g->nnodes;
	}
	strtab_free(&byname);
	*np = n;
	return v;
bad:
	free(v);
	*np = SIZE_MAX;
	return NULL;
}

/* The graph's memory.KEY into *r (0 when absent): 0, or -1 after an
 * error. */
int
memsvg_memnum(const struct graph *g, const char *key, uint64_t *r)
{
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(g->extra, "memory");

	*r = 0;
	return plannum(g, NULL, key, cJSON_GetObjectItemCaseSensitive(m,
	    key), r) < 0 ? -1 : 0;
}

/* A dashed line across the plot at y, labelled inside the plot: the
 * arena above the line at the right, the lower bound below it at the
 * left, so that the two never cover each other. */
static void
mark(struct buf *b, double y, const char *color, const char *what,
    uint64_t bytes)
{
	int arena = !strcmp(what, "arena");

	buf_printf(b, "<line class=\"%s\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" "
	    "y2=\"%.1f\" stroke=\"%s\" stroke-width=\"1.5\" "
	    "stroke-dasharray=\"6 3\"/>\n", what, LEFT, y, W - RIGHT, y,
	    color);
	buf_printf(b, "<text x=\"%d\" y=\"%.1f\" font-size=\"11\" "
	    "text-anchor=\"%s\" fill=\"%s\" paint-order=\"stroke\" "
	    "stroke=\"#fff\" stroke-width=\"3\">%s ", arena ? W - RIGHT - 4 :
	    LEFT + 4, arena ? y - 4 : y + 13, arena ? "end" : "start", color,
	    arena ? "arena" : "liveness lower bound");
	dot_bytes(b, bytes);
	buf_puts(b, "</text>\n");
}

int
memsvg(struct buf *b, struct graph *g)
{
	size_t n;
	struct membuf *v = memsvg_buffers(g, &n);
	uint64_t arena, lower, top;
	double pw = W - LEFT - RIGHT, ph = H - TOP - BOTTOM, sx, sy;
	size_t steps = g->nnodes ? g->nnodes : 1, every;

	if (n == SIZE_MAX)
		return -2;
	if (!v && g->nnodes)
		return -1;
	if (memsvg_memnum(g, "arenaBytes", &arena) != 0 ||
	    memsvg_memnum(g, "lowerBoundBytes", &lower) != 0) {
		free(v);
		return -2;
	}
	top = arena > lower ? arena : lower;
	for (size_t i = 0; i < n; i++)
		if (v[i].off + v[i].bytes > top)
			top = v[i].off + v[i].bytes;
	if (!top)
		top = 1;
	sx = pw / (double)steps;
	sy = ph / (double)top;
	buf_printf(b, "<svg class=\"memplan\" width=\"%d\" height=\"%d\" "
	    "viewBox=\"0 0 %d %d\" font-family=\"Helvetica, sans-serif\">\n"
	    "<defs><pattern id=\"hatch\" width=\"6\" height=\"6\" "
	    "patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\">"
	    "<rect width=\"6\" height=\"6\" fill=\"#ddd\"/><line x1=\"0\" "
	    "y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#666\" stroke-width=\"2\"/>"
	    "</pattern></defs>\n"
	    "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%.1f\" "
	    "fill=\"#fafafa\" stroke=\"#999\"/>\n", W, H, W, H, LEFT, TOP, pw,
	    ph);
	for (size_t i = 0; i < n; i++) {
		const struct membuf *m = &v[i];
		const struct node *nd = g->nodes[m->node];
		/* live from the middle of the writer's step to the middle
		 * of the last reader's: an input an op overwrites in place
		 * ends where its output starts */
		double x0 = LEFT + ((double)m->first + 0.5) * sx;
		double x1 = LEFT + ((double)(m->last < g->nnodes ? m->last :
		    g->nnodes) + 0.5) * sx;
		double h = (double)m->bytes * sy;
		double y = TOP + ph - (double)(m->off + m->bytes) * sy;

		if (m->last >= g->nnodes)
			x1 = LEFT + pw;
		if (x1 - x0 < sx / 2)
			x1 = x0 + sx / 2;
		if (h < 1)
			h = 1;
		buf_printf(b, "<rect class=\"%s\" x=\"%.1f\" y=\"%.1f\" "
		    "width=\"%.1f\" height=\"%.1f\" fill=\"%s\" "
		    "fill-opacity=\"0.85\" stroke=\"#333\" "
		    "stroke-width=\"0.5\"><title>", m->out < 0 ? "scratch" :
		    "buffer", x0, y, x1 - x0, h, m->out < 0 ? "url(#hatch)" :
		    fill[m->node % (sizeof fill / sizeof *fill)]);
		markup_xml(b, m->out < 0 ? nd->id : nd->out[m->out], 200);
		buf_printf(b, "%s: %llu bytes at offset %llu, node %zu to %s",
		    m->out < 0 ? " (workspace)" : "",
		    (unsigned long long)m->bytes, (unsigned long long)m->off,
		    m->first, m->last >= g->nnodes ? "the end" : "");
		if (m->last < g->nnodes)
			buf_printf(b, "%zu", m->last);
		buf_puts(b, "</title></rect>\n");
	}
	if (arena)
		mark(b, TOP + ph - (double)arena * sy, "#333", "arena", arena);
	if (lower)
		mark(b, TOP + ph - (double)lower * sy, "#c00", "lowerbound",
		    lower);
	/* the steps along the bottom, at most about 20 labels */
	every = steps / 20 + 1;
	for (size_t i = 0; i < g->nnodes; i += every)
		buf_printf(b, "<text x=\"%.1f\" y=\"%d\" font-size=\"10\" "
		    "text-anchor=\"middle\">%zu</text>\n",
		    LEFT + ((double)i + 0.5) * sx, H - BOTTOM + 14, i);
	/* bytes up the left, at quarters of the height */
	for (int q = 0; q <= 4; q++) {
		buf_printf(b, "<text x=\"%d\" y=\"%.1f\" font-size=\"10\" "
		    "text-anchor=\"end\">", LEFT - 4, TOP + ph - ph * q / 4 +
		    3);
		dot_bytes(b, top * (uint64_t)q / 4);
		buf_puts(b, "</text>\n");
	}
	buf_printf(b, "<text x=\"%.1f\" y=\"%d\" font-size=\"11\" "
	    "text-anchor=\"middle\">node (in the order they run)</text>\n"
	    "<text x=\"12\" y=\"%.1f\" font-size=\"11\" "
	    "text-anchor=\"middle\" transform=\"rotate(-90 12 %.1f)\">"
	    "arena offset</text>\n</svg>\n", LEFT + pw / 2, H - 8,
	    TOP + ph / 2, TOP + ph / 2);
	free(v);
	return 0;
}
