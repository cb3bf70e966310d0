/*
 * order: puts a graph's nodes in a stable runnable order and drops what
 * reaches no output (the reorder pass).  A cycle is an error that names
 * the nodes on it, in order.
 */
#include "order.h"
#include "escape.h"

#include <stdlib.h>
#include <string.h>

/* Find one cycle among the nodes not placed (placed[i] == 0) by walking
 * producer links until a node repeats; report it. */
static void
reportcycle(struct graph *g, const char *placed)
{
	size_t nn = g->nnodes, i, start = 0;
	size_t *seen = xcalloc(nn + 1, sizeof *seen);	/* step + 1 */
	size_t *path = xmalloc((nn + 1) * sizeof *path), len = 0;
	struct buf b = { 0 };

	for (i = 0; i < nn && placed[i]; i++)
		;
	/* From an unplaced node, some input comes from an unplaced node
	 * (else it would have been placed); follow those. */
	while (!seen[i]) {
		const char **reads;
		int nr = node_reads(g->nodes[i], &reads);
		size_t next = i;

		seen[i] = ++len;
		path[len - 1] = i;
		for (int k = 0; k < nr; k++) {
			struct operand *o = graph_find(g, reads[k]);

			if (o && o->kind == OPND_NODE &&
			    !placed[o->producer->index]) {
				next = o->producer->index;
				break;
			}
		}
		free(reads);
		i = next;
	}
	start = seen[i] - 1;
	/* The path runs against the data flow; print it along the flow. */
	for (size_t k = len; k-- > start;)
		buf_printf(&b, "\"%s\" -> ", g->nodes[path[k]]->id);
	buf_printf(&b, "\"%s\"", g->nodes[path[len - 1]]->id);
	error_at(&(struct srcloc){ g->src, 0, 0, NULL, 0 },
	    "cycle: %s", b.s);
	free(b.s);
	free(seen);
	free(path);
}

/* Mark the nodes and consts the outputs depend on. */
static void
marklive(struct graph *g, char *livenode, char *liveconst)
{
	size_t nn = g->nnodes, top = 0;
	size_t *stack = xmalloc((nn + 1) * sizeof *stack);

	/* each const's flag, found from the operand in O(1) */
	for (size_t c = 0; c < g->nconsts; c++)
		g->consts[c]->aux = &liveconst[c];
	for (size_t i = 0; i < g->noutputs; i++) {
		struct operand *o = graph_find(g, g->outputs[i].ref);

		if (o && o->kind == OPND_NODE && !livenode[o->producer->index]) {
			livenode[o->producer->index] = 1;
			stack[top++] = o->producer->index;
		}
	}
	while (top) {
		struct node *n = g->nodes[stack[--top]];
		const char **reads;
		int nr = node_reads(n, &reads);

		for (int k = 0; k < nr; k++) {
			struct operand *o = graph_find(g, reads[k]);

			if (!o)
				continue;
			if (o->kind == OPND_CONST && o->aux) {
				*(char *)o->aux = 1;
			} else if (o->kind == OPND_NODE &&
			    !livenode[o->producer->index]) {
				livenode[o->producer->index] = 1;
				stack[top++] = o->producer->index;
			}
		}
		free(reads);
	}
	for (size_t c = 0; c < g->nconsts; c++)
		g->consts[c]->aux = NULL;
	free(stack);
}

int
graph_reorder(struct graph *g, int verbose)
{
	size_t nn = g->nnodes, placed, k = 0;
	size_t *order = xmalloc((nn + 1) * sizeof *order);
	char *isplaced = xcalloc(nn + 1, 1);
	char *livenode = xcalloc(nn + 1, 1);
	char *liveconst = xcalloc(g->nconsts + 1, 1);
	struct node **nodes;
	size_t j = 0;

	placed = graph_toposort(g, order);
	if (placed < nn) {
		for (size_t i = 0; i < placed; i++)
			isplaced[order[i]] = 1;
		reportcycle(g, isplaced);
		free(order);
		free(isplaced);
		free(livenode);
		free(liveconst);
		return -1;
	}
	marklive(g, livenode, liveconst);
	graph_unindex(g);
	nodes = xmalloc((nn + 1) * sizeof *nodes);
	for (k = 0; k < nn; k++) {
		struct node *n = g->nodes[order[k]];

		if (livenode[order[k]]) {
			nodes[j++] = n;
		} else {
			if (verbose)
				warn("dropping node \"%s\" (%s): no output "
				    "depends on it", escape_tty_name(n->id),
				    escape_tty_name(n->opname));
			graph_drop_node(g, n);
		}
	}
	memcpy(g->nodes, nodes, j * sizeof *nodes);
	g->nnodes = j;
	for (k = j = 0; k < g->nconsts; k++) {
		if (liveconst[k]) {
			g->consts[j++] = g->consts[k];
		} else {
			if (verbose)
				warn("dropping unused constant \"%s\"",
				    escape_tty_name(g->consts[k]->name));
			graph_drop_const(g, g->consts[k]);
		}
	}
	g->nconsts = j;
	graph_index(g);
	free(nodes);
	free(order);
	free(isplaced);
	free(livenode);
	free(liveconst);
	return 0;
}
