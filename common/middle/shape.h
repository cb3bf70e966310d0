/*
 * shape: type and shape inference by the W3C WebNN rules, the driver
 * that runs each node's rule (the rules and their helpers:
 * shape_rule.h).
 */
#ifndef NNL_SHAPE_H
#define NNL_SHAPE_H

#include <stdint.h>

#include "graph.h"
#include "opts.h"

#include "shape_rule.h"

/*
 * Infer every node's output types, in dependency order, checking any
 * types the graph already gives.  Returns the number of errors.
 */
int shape_infer(struct graph *g);
/* For passes that index memory by recorded types (nnl-plan-memory,
 * nnl-emit-c): when every node has types, infer them again and refuse
 * any that differ, as shape_infer does; 0 when they agree or some node
 * is untyped (which the caller refuses in its own words). */
int shape_recheck(struct graph *g);
/* Infer one node whose inputs are typed (the name table current).
 * Types the node came with are checked against the inferred ones.
 * 0, or -1 after reporting. */
int shape_node(struct graph *g, struct node *n);

#endif
