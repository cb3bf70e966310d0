/* order: stable topological order and dead-node removal (nnl-reorder). */
#ifndef NNL_ORDER_H
#define NNL_ORDER_H

#include "graph.h"

/*
 * Reorder g's nodes so each follows the producers of its inputs, keeping
 * the given order where it is already runnable; drop nodes and consts
 * no output depends on (reported with warn() when verbose).  A cycle is
 * reported naming its nodes along the data flow; returns 0 or -1.
 */
int graph_reorder(struct graph *g, int verbose);

#endif
