/*
 * sidecar: the files beside a model (sidecar.c): a graph's weights and
 * manifest, an ONNX model's .dims.json.
 */
#ifndef NNL_SIDECAR_H
#define NNL_SIDECAR_H

#include "graph.h"

/* path's stem + ".weights" and ".manifest.json" (malloc'd) when both
 * are regular files, else both NULL. */
void sidecar_find(const char *path, char **w, char **m);
/* A graph loaded from path that names no weights: attach the files
 * beside it, if any, and check its constants against them.  0, or -1
 * after reporting. */
int sidecar_attach(struct graph *g, const char *path);
/* An ONNX model's dimension overrides beside it: path's stem +
 * ".dims.json" (malloc'd) when it is a regular file, else NULL. */
char *sidecar_dims(const char *path);

#endif
