/*
 * memsvg: the memory plan of nnl-plan-memory as an SVG picture
 * (memsvg.c), for the report page.  Across: the nodes in their order;
 * up: the arena's bytes.  Each buffer is a bar from the node that writes
 * it to its last reader (a graph output's to the end), at its offset
 * and as tall as its bytes; a kernel's workspace is a hatched bar at its
 * node.  Dashed lines mark the arena's size and the liveness lower bound
 * (the most bytes live at one step).  Names appear in tooltips only,
 * escaped (markup.h).
 */
#ifndef NNL_MEMSVG_H
#define NNL_MEMSVG_H

#include "graph.h"

/* A buffer of the plan: an output of a node, or its workspace. */
struct membuf {
	size_t node, first, last;	/* writer; steps it is live */
	int out;			/* output index, -1: workspace */
	uint64_t off, bytes;
};

/*
 * The buffers of planned graph g (nodes in their order, typed, with
 * "arena" from nnl-plan-memory), malloc'd, *n of them; NULL and *n 0
 * when g has no plan; NULL and *n SIZE_MAX after an error naming an
 * offset that is not a whole number from 0 to 2^53.
 */
struct membuf *memsvg_buffers(struct graph *g, size_t *n);

/* The graph's "memory" number KEY ("arenaBytes") into *r, 0 when
 * absent: 0, or -1 after such an error. */
int memsvg_memnum(const struct graph *g, const char *key, uint64_t *r);

/* The picture, appended to b: an <svg> element for an HTML page.
 * Returns -1 (nothing written) when g has no plan, -2 after such an
 * error. */
int memsvg(struct buf *b, struct graph *g);

#endif
