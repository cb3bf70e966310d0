/*
 * eval: runs a typed graph on the host through the runtime kernels,
 * one buffer per operand.  It is the reference the C emitter is tested
 * against, the engine of constant folding, and nnl-run.
 */
#ifndef NNL_EVAL_H
#define NNL_EVAL_H

#include "constdata.h"
#include "graph.h"

struct evalbuf {
	const char *name;
	void *data;
	uint64_t nbytes;
};

/*
 * Evaluate g (typed; nodes in any order without cycles).  inputs gives
 * the bytes of every graph input, by name; constants come from the
 * graph's weights file or their inline values.  On success returns 0
 * and fills outputs[i] (malloc'd data, one per g->outputs in order);
 * errors are reported naming the node.
 */
int graph_eval(struct graph *g, const struct evalbuf *inputs, int ninputs,
    struct evalbuf *outputs);


#endif
