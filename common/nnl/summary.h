/*
 * summary: nnc inspect's table of a model as written -- every layer of
 * an .nnl model (Input, BatchNorm, ReLU and Dropout included) or every
 * node of a graph, before fusion, with its output shape and parameter
 * count, then the weight and workspace memory.
 */
#ifndef NNL_SUMMARY_H
#define NNL_SUMMARY_H

#include <stdio.h>

#include "graph.h"

/* The .nnl model at path lowered with its weights declared but not
 * read (none need exist).  NULL after errors naming file:line:col. */
struct graph *summary_nnl(const char *path);

/* Type g's nodes and lay out its activations as the compiled model
 * would without fusion ("memory": {"arenaBytes"}).  0, or -1 after an
 * error naming the node. */
int summary_plan(struct graph *g);

/* The table, as the NNL documentation shows it: one row per layer
 * (for an NNL model, from its "nnl": {"layers"}) or per node.  0, or
 * -1 (nothing printed) after an error naming a number of the "nnl"
 * key or of "memory" that is not a whole number in range. */
int summary_print(FILE *f, const struct graph *g);

#endif
