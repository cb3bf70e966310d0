/*
 * uses: who reads each operand of a graph: for every name, the nodes
 * that read it (one entry per read, inputs and operand-valued options)
 * and how many graph outputs name it.  A pass that rewires the graph
 * keeps it current by calling uses_drop before it changes a node's
 * reads and uses_add after, so that "how many read x" and "who reads x"
 * cost the number of readers, not the number of nodes.
 */
#ifndef NNL_USES_H
#define NNL_USES_H

#include "graph.h"
#include "strtab.h"

struct uses_ent {
	char *name;
	struct node **rd;	/* readers, once per read */
	size_t n, cap;
	size_t nout;		/* graph outputs naming it */
};

struct uses {
	struct strtab t;	/* name -> struct uses_ent */
	struct uses_ent ***reg;	/* per node (by index): what it reads */
	int *nreg;
	size_t nnodes;
};

/* Index every node and output of g; sets each node's index (nodes added
 * to g afterwards cannot be indexed). */
void uses_build(struct uses *u, struct graph *g);
void uses_add(struct uses *u, struct node *n);	/* n's reads, as now */
void uses_drop(struct uses *u, struct node *n);	/* what uses_add added */
/* The entry of name (NULL: nothing reads it, no output names it). */
struct uses_ent *uses_get(const struct uses *u, const char *name);
/* Reads of name by nodes plus graph outputs naming it. */
size_t uses_count(const struct uses *u, const char *name);
/* A graph output now names name (delta 1) or no longer does (-1). */
void uses_output(struct uses *u, const char *name, int delta);
void uses_free(struct uses *u);

#endif
