/*
 * nnl: the NNL model language (nnc's .nnl files, through release
 * 0.9.0) read and lowered to a webnn-graph: HWC activations with a
 * leading batch dimension, each layer one or a few WebNN operations,
 * weights loaded from .npy directories or .npz archives and packed
 * into the graph's weights file.
 */
#ifndef NNL_NNL_H
#define NNL_NNL_H

#include "graph.h"

/* The NNL language versions this implementation reads: 0.2 to this. */
#define NNL_LANG_VERSION "0.9"
#define NNL_LANG_MINOR 9

struct nnl_opts {
	const char *path;	/* the .nnl file: weights resolve from here */
	const char *weights;	/* where to pack the weights */
	const char *manifest;
	const char *dir;	/* or, with weights NULL, into this directory
				   as MODEL.weights and MODEL.manifest.json,
				   MODEL the model's name */
	int outside;		/* --allow-outside: weights anywhere
				   (modelpath.h) */
	int summary;		/* nnc inspect: weights declared, not read
				   (none need exist); "nnl": {"layers"} lists
				   each layer as written (summary.c) */
};

/* Read, check and lower; errors carry file:line:col.  NULL on error. */
struct graph *nnl_parse(const char *text, size_t len, const char *name,
    const struct nnl_opts *o);

/* Does the text look like NNL: after comments, the word version or
 * model? */
int nnl_detect(const char *text, size_t len);

/*
 * The graph (typed, batch 1, NCHW, as imported from ONNX) as an NNL
 * model at path with its weights as .npy files in wdir (created), when
 * every node fits an NNL layer; otherwise one error naming each node
 * that does not; with comment, each such node is written instead as
 * "// UNSUPPORTED: op(name): why", name the layer it would be, and the
 * model is written with a warning.  0 or -1.  (nnl_write.c)
 */
int nnl_write(struct graph *g, const char *path, const char *wdir,
    int comment);

#endif
