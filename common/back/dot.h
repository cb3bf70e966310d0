/*
 * dot: a graph as a Graphviz DOT picture (dot.c), for nnl-emit-dot and
 * the report page.  One box per node (its op, id, options other than
 * operands, and the activation nnl-fuse folded into it), one ellipse
 * per graph input, one note per constant (type and size), one
 * double octagon per graph output; every edge is an operand, labelled
 * with its type when it is known.  Nodes nnl-cpu-partition placed are
 * drawn in one cluster per partition.  Names are escaped (markup.h).
 * The SVG classes "op", "input", "const" and "output" tell the kinds
 * apart.
 */
#ifndef NNL_DOT_H
#define NNL_DOT_H

#include "graph.h"

struct dot_opts {
	int lr;			/* left to right, not top to bottom */
	int inline_consts;	/* constants listed in their readers' boxes */
};

/* Names in labels keep this many bytes, then "...". */
#define DOT_NAME_MAX 60
/* An option's value keeps this many bytes of its JSON, then "...". */
#define DOT_VALUE_MAX 40

/* The DOT text of g, appended to b. */
void dot_graph(struct buf *b, const struct graph *g,
    const struct dot_opts *o);

/* "12 B", "3.0 KiB", "7.81 MiB": a byte count for people. */
void dot_bytes(struct buf *b, uint64_t n);

/*
 * Graphviz's layout grows faster than the graph: dot -Tsvg is killed
 * after NNL_DOT_TIMEOUT seconds and may write at most NNL_DOT_MAX_BYTES
 * of SVG, these by default.
 */
#define DOT_TIMEOUT	60
#define DOT_MAX_BYTES	(64ULL << 20)

/*
 * The SVG Graphviz's dot -Tsvg draws of DOT text (malloc'd), or NULL
 * after an error (dot missing, failing, or over a bound above) was
 * reported.  The text goes through a temporary directory under $TMPDIR.
 */
char *dot_render(const char *text);

#endif
