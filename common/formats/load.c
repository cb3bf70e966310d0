/*
 * load: a graph file in, whichever form (JSON or the .webnn text),
 * checked (graph_validate) and with the weights beside it attached.
 * It sits above the JSON and .webnn readers, which only read, and the
 * checks, which only check, so that neither reaches the other.
 */
#define _POSIX_C_SOURCE 200809L
#include "graph.h"
#include "pipeline.h"
#include "sidecar.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static struct graph *
parse(const char *text, size_t len, const char *name, const char *dir,
    int rule)
{
	const char *p = text;
	struct graph *g;

	if (pipeline_no_input(text, len, name))
		return NULL;
	while (p < text + len && strchr(" \t\r\n", *p) && *p)
		p++;
	if (p == text + len) {
		struct srcloc l = { name, 0, 0, NULL, 0 };

		error_at(&l, "empty input");
		return NULL;
	}
	if (*p == '{' || *p == '[')
		g = json_read_model(text, len, name, dir, rule);
	else {
		g = webnn_parse(text, len, name);
		if (g)
			graph_index(g);
	}
	if (!g)
		return NULL;
	if (graph_validate(g) != 0) {
		graph_free(g);
		return NULL;
	}
	return g;
}

struct graph *
graph_parse(const char *text, size_t len, const char *name, const char *dir)
{
	return parse(text, len, name, dir, 0);
}

struct graph *
graph_parse_model(const char *text, size_t len, const char *name,
    const char *dir, int allow)
{
	return parse(text, len, name, dir, !allow);
}

static struct graph *
load(const char *path, int rule)
{
	size_t len;
	char *text = readfile(path, &len), *dir;
	const char *name = displayname(path);
	struct graph *g;

	if (!text) {
		error("%s: %s", name, strerror(errno));
		return NULL;
	}
	dir = (!path || strcmp(path, "-") == 0) ? xstrdup(".") :
	    path_dirname(path);
	g = parse(text, len, name, dir, rule);
	free(dir);
	if (!g) {
		free(text);
		return NULL;
	}
	if (g->text == text)
		g->owntext = text;
	else
		free(text);
	if (g->text && !g->owntext)
		g->text = NULL;
	g->ownsrc = xstrdup(name);
	g->src = g->ownsrc;
	/* a graph that names no weights: those beside it, as nnl-parse */
	if (path && strcmp(path, "-") != 0 && sidecar_attach(g, path) != 0) {
		graph_free(g);
		return NULL;
	}
	return g;
}

struct graph *
graph_load(const char *path)
{
	return load(path, 0);
}

struct graph *
graph_load_model(const char *path, int allow)
{
	return load(path, !allow);
}
