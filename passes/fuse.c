/*
 * fuse: folds batchNormalization into the conv2d or gemm before it,
 * merges bias adds, fuses activations into the op that feeds them,
 * drops no-ops and folds constant subgraphs.  New tensors go into a new
 * weights file (with the tensors the graph still uses from the old
 * one, which is left untouched).
 */
#define _DEFAULT_SOURCE
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "checked.h"
#include "eval.h"
#include "fuse.h"
#include "graph.h"
#include "util.h"
#include "weights.h"

enum { INLINE_MAX = 64 };	/* bytes: smaller new tensors stay inline */

NNL_NORETURN static void
usage(void)
{
	fprintf(stderr, "usage: nnl-fuse [-v] [-d rewrite] [-e rewrite] "
	    "[-w weights -m manifest]\n"
	    "                [-o file] [--max-tensor-bytes size] [file]\n");
	exit(2);
}

static char *
stemof(const char *path, const char *suffix)
{
	const char *b = path_basename(path);
	size_t n = strlen(b), m = strlen(suffix);

	if (n > m && strcmp(b + n - m, suffix) == 0)
		n -= m;
	return xstrndup(b, n);
}

/* Move every weights tensor still used, and large new tensors, into a
 * new weights file. */
static int
rewrite_weights(struct graph *g, const char *wpath, const char *mpath)
{
	struct wwriter ww;
	int need = 0;
	unsigned align = WEIGHTS_ALIGN;

	for (size_t i = 0; i < g->nconsts; i++)
		if (g->consts[i]->init == INIT_BYTES &&
		    g->consts[i]->nbytes > INLINE_MAX)
			need = 1;
	if (!need)
		return 0;
	{
		/* an NNL model's config align, checked by nnl-parse */
		const cJSON *a = cJSON_GetObjectItemCaseSensitive(
		    cJSON_GetObjectItemCaseSensitive(
		    cJSON_GetObjectItemCaseSensitive(g->extra, "nnl"),
		    "config"), "align");

		if (cJSON_IsNumber(a) && a->valuedouble > WEIGHTS_ALIGN &&
		    a->valuedouble <= 65536)
			align = (unsigned)a->valuedouble;
	}
	if (wwriter_open(&ww, wpath, mpath, align) != 0)
		return -1;
	for (size_t i = 0; i < g->nconsts; i++) {
		struct operand *c = g->consts[i];
		uint64_t nb;
		void *p;
		const char *ref;

		if (c->init == INIT_SCALAR || (c->init == INIT_BYTES &&
		    c->nbytes <= INLINE_MAX))
			continue;
		if (!(p = const_bytes(g, c, &nb))) {
			wwriter_abort(&ww);
			return -1;
		}
		ref = c->init == INIT_WEIGHTS ? c->ref : c->name;
		if (!manifest_find(&ww.m, ref) && wwriter_add(&ww, ref,
		    c->desc.dt, c->desc.rank, c->desc.dims, p, nb) != 0) {
			free(p);
			wwriter_abort(&ww);
			return -1;
		}
		free(p);
		if (c->init == INIT_BYTES) {
			free(c->bytes);
			c->bytes = NULL;
			c->nbytes = 0;
			c->init = INIT_WEIGHTS;
			c->ref = xstrdup(c->name);
		}
	}
	if (wwriter_commit(&ww) != 0)
		return -1;
	const_forget(g);
	free(g->weights_file);
	free(g->manifest_file);
	g->weights_file = xstrdup(wpath);
	g->manifest_file = xstrdup(mpath);
	return 0;
}

int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "weights", required_argument, NULL, 'w' },
		{ "manifest", required_argument, NULL, 'm' },
		{ "disable", required_argument, NULL, 'd' },
		{ "enable", required_argument, NULL, 'e' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "max-tensor-bytes", required_argument, NULL,
		    CHECKED_OPTION },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct fuse_opts o = { 0, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1 };
	const char *out = NULL, *wfile = NULL, *mfile = NULL;
	char *w = NULL, *m = NULL;
	struct graph *g;
	int c, rc = 1;
	const char *maxbytes = NULL;

	setprogname(argv[0]);
	while ((c = getopt_long(argc, argv, "o:w:m:d:e:vh", longopts,
	    NULL)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case 'w': wfile = optarg; break;
		case 'm': mfile = optarg; break;
		case 'v': o.verbose = 1; break;
		case 'd':
			if (!strcmp(optarg, "noop")) o.noop = 0;
			else if (!strcmp(optarg, "fold")) o.fold = 0;
			else if (!strcmp(optarg, "bn")) o.bn = 0;
			else if (!strcmp(optarg, "bias")) o.bias = 0;
			else if (!strcmp(optarg, "act")) o.act = 0;
			else if (!strcmp(optarg, "norm")) o.norm = 0;
			else if (!strcmp(optarg, "gelu")) o.gelu = 0;
			else if (!strcmp(optarg, "trans")) o.trans = 0;
			else usage();
			break;
		case 'e':
			if (!strcmp(optarg, "ihwo")) o.ihwo = 1;
			else if (!strcmp(optarg, "winograd")) o.winograd = 1;
			else if (!strcmp(optarg, "panels")) o.panels = 1;
			else if (!strcmp(optarg, "residual")) o.residual = 1;
			else usage();
			break;
		case CHECKED_OPTION: maxbytes = optarg; break;
		default: usage();
		}
	}
	if (checked_setup(maxbytes) != 0)
		exit(2);
	if (argc - optind > 1 || !wfile != !mfile)
		usage();
	g = graph_load(optind < argc ? argv[optind] : "-");
	if (!g)
		return 1;
	if (wfile) {
		w = xstrdup(wfile);
		m = xstrdup(mfile);
	} else {
		/* beside -o, or named after the old weights file */
		char *old = g->weights_file ? stemof(g->weights_file,
		    ".weights") : NULL;
		char *s = out && strcmp(out, "-") ? stemof(out, ".json") :
		    old ? xasprintf("%s.fused", old) : xstrdup("fused");
		char *dir = out && strcmp(out, "-") ? path_dirname(out) :
		    xstrdup(".");
		char *base = path_join(dir, s);

		w = xasprintf("%s.weights", base);
		m = xasprintf("%s.manifest.json", base);
		free(old);
		free(s);
		free(dir);
		free(base);
	}
	if (graph_fuse(g, &o) >= 0 && rewrite_weights(g, w, m) == 0 &&
	    graph_save(g, out) == 0)
		rc = 0;
	free(w);
	free(m);
	graph_free(g);
	return rc ? rc : close_stdout();
}
