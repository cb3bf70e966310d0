/*
 * sidecar: the weights files beside a .webnn graph (sidecar.c).
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

#endif
