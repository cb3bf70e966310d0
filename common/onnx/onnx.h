/*
 * onnx: ONNX models into webnn-graphs (onnx_import.c).
 */
#ifndef NNL_ONNX_H
#define NNL_ONNX_H

#include "graph.h"

struct onnx_opts {
	const char *name;	/* graph name; NULL: the model file's */
	const char *weights;	/* weights file and manifest to write */
	const char *manifest;
	const char **dims;	/* "NAME=N": symbolic dimensions pinned */
	int ndims;
	const char **consts;	/* "NAME=FILE.npy": inputs made constants */
	int nconsts;
	int origins;		/* each node's ONNX origin in "onnx" */
	int outside;		/* --allow-outside: external data may lie
				   outside the model's folder */
	uint32_t bound;		/* --bound: the most items of a Range,
				   ConstantOfShape or window of a size
				   computed at run time; 0: ONNX_BOUND */
};

/* --bound's default (nnl-onnx-import(1)). */
enum { ONNX_BOUND = 65536 };

/*
 * Import the model at path.  Constants above 64 bytes are written to
 * o->weights (with o->manifest) when there are any.  Every error is
 * reported (naming the file and the node); returns NULL after them.
 */
struct graph *onnx_import(const char *path, const struct onnx_opts *o);

#endif
