/*
 * packgraph: a graph's constants moved between inline bytes and a
 * weights file, both ways, as webnn-graph's extract-weights and
 * inline-weights do: "extract" writes every constant held as bytes (and
 * those already in a weights file) to one new weights file and its
 * manifest, each a @weights("NAME") constant; "inline" writes every
 * constant as @bytes([...]) and drops the weights file.  The graph, in
 * .webnn text when the output file ends in .webnn and JSON otherwise,
 * and the weights pair are written all together or not at all.
 */
#define _DEFAULT_SOURCE
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "checked.h"
#include "escape.h"
#include "constdata.h"
#include "graph.h"
#include "packgraph.h"
#include "sidecar.h"
#include "util.h"
#include "weights.h"

/* path's stem + ext */
static char *
stemwith(const char *path, const char *ext)
{
	const char *base = path_basename(path), *dot = strrchr(base, '.');
	size_t stem = dot && dot != base ? (size_t)(dot - path) :
	    strlen(path);

	return xasprintf("%.*s%s", (int)stem, path, ext);
}

static int
extract(struct graph *g, const char *out, const char *w, const char *m)
{
	struct wwriter ww;
	void **data = xcalloc(g->nconsts + 1, sizeof *data);
	uint64_t *len = xcalloc(g->nconsts + 1, sizeof *len);
	int rc = -1, n = 0;

	/* every constant's bytes first: the old weights may be replaced */
	for (size_t i = 0; i < g->nconsts; i++) {
		struct operand *c = g->consts[i];

		if (c->init == INIT_SCALAR)
			continue;	/* @scalar stays what it is */
		if (!(data[i] = const_bytes(g, c, &len[i])))
			goto out;
		n++;
	}
	const_forget(g);
	if (wwriter_open(&ww, w, m, WEIGHTS_ALIGN) != 0)
		goto out;
	for (size_t i = 0; i < g->nconsts; i++) {
		struct operand *c = g->consts[i];

		if (!data[i])
			continue;
		if (wwriter_add(&ww, c->name, c->desc.dt, c->desc.rank,
		    c->desc.dims, data[i], len[i]) != 0) {
			wwriter_abort(&ww);
			goto out;
		}
		free(c->bytes);
		c->bytes = NULL;
		c->nbytes = 0;
		free(c->ref);
		c->ref = xstrdup(c->name);
		c->init = INIT_WEIGHTS;
	}
	free(g->weights_file);
	free(g->manifest_file);
	g->weights_file = xstrdup(w);
	g->manifest_file = xstrdup(m);
	if (wwriter_commit(&ww) != 0 || webnn_save_as(g, out) != 0)
		goto out;
	if (!n)
		warn("%s: the graph has no constant to extract", g->src);
	rc = 0;
out:
	for (size_t i = 0; i < g->nconsts; i++)
		free(data[i]);
	free(data);
	free(len);
	return rc;
}

int
packgraph_inline(struct graph *g)
{
	for (size_t i = 0; i < g->nconsts; i++) {
		struct operand *c = g->consts[i];
		uint64_t nb;
		unsigned char *b;

		if (c->init != INIT_WEIGHTS)
			continue;
		if (!g->weights_file) {
			error("%s: const \"%s\" is in a weights file, and the "
			    "graph names none (none is beside it)", g->src,
			    escape_tty_name(c->name));
			return -1;
		}
		if (!(b = const_bytes(g, c, &nb)))
			return -1;
		c->bytes = b;
		c->nbytes = (size_t)nb;
		c->init = INIT_BYTES;
		free(c->ref);
		c->ref = NULL;
	}
	const_forget(g);
	free(g->weights_file);
	free(g->manifest_file);
	g->weights_file = g->manifest_file = NULL;
	return 0;
}

static int
inlined(struct graph *g, const char *out)
{
	return packgraph_inline(g) == 0 ? webnn_save_as(g, out) : -1;
}

int
packgraph_main(const char *cmd, int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "max-tensor-bytes", required_argument, NULL,
		    CHECKED_OPTION },
		{ NULL, 0, NULL, 0 }
	};
	const char *out = NULL, *w = NULL, *m = NULL, *maxbytes = NULL;
	int ext = strcmp(cmd, "extract") == 0, c, rc = 1;
	char *wd = NULL, *md = NULL;
	struct graph *g;

	while ((c = getopt_long(argc, argv, ext ? "o:w:m:" : "o:",
	    longopts, NULL)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case 'w': w = optarg; break;
		case 'm': m = optarg; break;
		case CHECKED_OPTION: maxbytes = optarg; break;
		default: return -2;
		}
	}
	if (checked_setup(maxbytes) != 0)
		exit(2);
	if (argc - optind != 1 || (!w != !m))
		return -2;
	if (ext && !w && (!out || !strcmp(out, "-"))) {
		error("extract: name the weights file (-w and -m), or the "
		    "graph's output (-o) to put them beside it");
		return -2;
	}
	if (ext && !w) {
		w = wd = stemwith(out, ".weights");
		m = md = stemwith(out, ".manifest.json");
	}
	outfile_group_begin();
	if ((g = graph_load(argv[optind])) &&
	    sidecar_attach(g, argv[optind]) == 0 &&
	    (ext ? extract(g, out, w, m) : inlined(g, out)) == 0 &&
	    outfile_group_commit() == 0)
		rc = 0;
	else
		outfile_group_abort();
	graph_free(g);
	free(wd);
	free(md);
	return rc;
}
