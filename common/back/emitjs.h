/*
 * emitjs: a typed graph as an ES module of W3C WebNN graph-building
 * code (emitjs.c).
 */
#ifndef NNL_EMITJS_H
#define NNL_EMITJS_H

#include "graph.h"

/* emitjs's flags */
enum {
	EMITJS_POLYFILL = 1,	/* --polyfill: CPU nodes while building */
	EMITJS_ATLOAD = 2	/* --weights-at-load */
};

/*
 * The module's text (malloc'd): inputs and outputs with their
 * descriptors, loadModelGraph(operand_input, weights_buffer, builder),
 * buildGraph(context, weights), run(context, graph, inputs),
 * loadWeights(), checkWeights() and createContext().  Constants in the
 * weights file are read at the offsets of the graph's manifest, or with
 * EMITJS_ATLOAD at those of a manifest the module is given when it
 * loads.  Returns 0, or -1 after reporting.
 */
int emitjs(struct graph *g, int flags, char **out);
/* --polyfill: OPERANDS and InstallCpuOps(builder) (emitjs_poly.c). */
void emitjs_polyfill(struct buf *b);
/* --weights-at-load: weightsNeeded, WeightsFile, checkWeights(),
 * verifyWeights() and loadWeights() (emitjs_load.c). */
void emitjs_load(struct buf *b, struct graph *g);

#endif
