/*
 * fuse: graph simplifications that keep the function and make the
 * generated code smaller and faster (the fuse pass).
 */
#ifndef NNL_FUSE_H
#define NNL_FUSE_H

#include "graph.h"

struct fuse_opts {
	int verbose;		/* report every change with warn-less notes */
	int noop, fold, bn, bias, act;	/* which rewrites to do */
	int ihwo;		/* constant conv2d filters to ihwo */
	int winograd;		/* 3 x 3 ones to Winograd's F(2x2, 3x3) */
	int panels;		/* flipped ones in panels of 32 outputs */
	int residual;		/* adds into the conv2d before them */
	int norm;		/* spelled-out layer norms to one node */
	int gelu;		/* gelu's erf pattern into one gelu */
	int trans;		/* transposes into the matmul they feed */
};

/*
 * Rewrite g (typed): drop identity and no-op nodes, fold nodes whose
 * inputs are all constants, fold batchNormalization into the conv2d,
 * gemm or 2-D matmul before it, merge bias adds into conv2d, gemm and
 * matmul (the node's "bias" field where it has more than 2 dims), read
 * the input of a transpose in the matmul it feeds (o->trans, the
 * node's "transposeA" or "transposeB" field), and fuse relu, clamp,
 * sigmoid, hardSwish, leakyRelu, tanh, gelu, hardSigmoid and swish
 * (mul(x, sigmoid(x))) into the conv2d, convTranspose2d, gemm or matmul
 * that produces their input (the node's "activation" field); with
 * o->gelu, first rewrite the five nodes of gelu's erf form into one
 * gelu node; with o->ihwo, store the constant
 * oihw filters of nchw conv2d nodes that are not depthwise as ihwo,
 * the order the C kernels read in place; with o->winograd, before
 * that, the constant 3 x 3 filters of large enough nchw conv2d nodes at
 * stride 1 as Winograd's F(2x2, 3x3) transform (the node's "winograd"
 * field; rt/f32-winograd/wino.c); with o->panels, after that, the constant filters
 * of conv2d nodes whose product the C kernels compute transposed, in
 * panels of 32 output channels (the node's "panels" field); with
 * o->residual, before the activations, the add of a conv2d's result
 * and an operand of its type into the conv2d (the node's "residual"
 * field, added in the kernel's epilogue); with o->norm, after the
 * folding, a layer normalization spelled out in reduceMean, sub, pow
 * or mul, add, sqrt and div or reciprocal and mul (then a scale and a
 * bias) as one layerNormalization node (fuse_norm.h).  New
 * tensors are inline
 * constants;
 * the pass moves large ones into a new weights file.  Returns the
 * number of rewrites, or -1 after an error.
 */
int graph_fuse(struct graph *g, const struct fuse_opts *o);

#endif
