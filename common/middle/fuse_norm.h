/*
 * fuse_norm: the layer normalization exporters spell out in
 * elementwise ops, found for nnl-fuse (fuse_norm.c).
 */
#ifndef NNL_FUSE_NORM_H
#define NNL_FUSE_NORM_H

#include <stdint.h>

#include "graph.h"
#include "uses.h"

/* The most nodes of one such pattern. */
enum { FUSENORM_MAX = 11 };

struct fusenorm {
	const char *x;		/* the normalized operand */
	int64_t axes;		/* mask of its normalized axes */
	double eps;
	/* operands multiplied, then added, after; NULL: none.  Each is
	 * x's rank or less, x's dims on the axes and 1 elsewhere (not
	 * necessarily the shape layerNormalization wants: reshape) */
	const char *scale, *bias;
	struct node *nodes[FUSENORM_MAX];	/* in graph order: the last
						 * one's output is the result */
	int nn;
};

/*
 * Whether node y ends (before its scale and bias) a layer
 * normalization of the exporters' pattern, its intermediates read by
 * nothing else (u: the graph's readers); then *f is the match.  A scale
 * or bias that is not of layerNormalization's shape and not a constant
 * is left out of it (with the bias after a scale left out).
 */
int fusenorm_match(struct graph *g, const struct uses *u, struct node *y,
    struct fusenorm *f);

#endif
