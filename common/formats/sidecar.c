/*
 * sidecar: the files beside a model: a graph's weights (model.webnn ->
 * model.weights and model.manifest.json), found the same way by every
 * program that reads a graph from a file: graph_load attaches them, and
 * nnl-parse, which reads its input itself, calls sidecar_find; and an
 * ONNX model's model.dims.json, for nnl-onnx-import.  This is the one
 * place that decides where the files beside a model may lie.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sidecar.h"
#include "util.h"

static int
exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* path's directory and stem (model.webnn -> model), then ext */
static char *
beside(const char *path, const char *ext)
{
	const char *base = path_basename(path), *dot = strrchr(base, '.');
	size_t stem = dot && dot != base ? (size_t)(dot - path) :
	    strlen(path);

	return xasprintf("%.*s%s", (int)stem, path, ext);
}

void
sidecar_find(const char *path, char **w, char **m)
{
	*w = beside(path, ".weights");
	*m = beside(path, ".manifest.json");
	if (!exists(*w) || !exists(*m)) {
		free(*w);
		free(*m);
		*w = *m = NULL;
	}
}

int
sidecar_attach(struct graph *g, const char *path)
{
	char *w, *m;

	if (g->weights_file || !path || strcmp(path, "-") == 0)
		return 0;
	sidecar_find(path, &w, &m);
	if (!w)
		return 0;
	g->weights_file = w;
	g->manifest_file = m;
	return graph_validate(g) != 0 ? -1 : 0;
}

/* webnn-graph's convert-onnx documents the sidecar model.dims.json */
char *
sidecar_dims(const char *path)
{
	char *d = beside(path, ".dims.json");

	if (!exists(d)) {
		free(d);
		return NULL;
	}
	return d;
}
