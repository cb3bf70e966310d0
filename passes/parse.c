/*
 * parse: reads a graph as .webnn text or webnn-graph JSON (detected from
 * the first byte) and writes canonical JSON, or .webnn text with
 * --to webnn.  Every load validates the graph's structure, so parse is
 * also the format's checker.
 */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "graph.h"
#include "nnl.h"
#include "util.h"

NNL_NORETURN static void
usage(void)
{
	fprintf(stderr, "usage: nnl-parse [-o file] [-t json|webnn] "
	    "[-w weights -m manifest] [file]\n");
	exit(2);
}

static int
exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* model.webnn -> model.weights and model.manifest.json beside it. */
static void
sidecars(const char *path, char **w, char **m)
{
	const char *base = path_basename(path), *dot = strrchr(base, '.');
	size_t stem = dot && dot != base ? (size_t)(dot - path) :
	    strlen(path);

	*w = xasprintf("%.*s.weights", (int)stem, path);
	*m = xasprintf("%.*s.manifest.json", (int)stem, path);
	if (!exists(*w) || !exists(*m)) {
		free(*w);
		free(*m);
		*w = *m = NULL;
	}
}

static int
isnnl(const char *path)
{
	size_t n = strlen(path);

	return n > 4 && strcmp(path + n - 4, ".nnl") == 0;
}

/*
 * An NNL model, its weights packed to -w/-m, or by default to
 * MODEL.weights and MODEL.manifest.json beside -o (or in the working
 * directory when writing to standard output).
 */
static struct graph *
loadnnl(const char *in, const char *out, const char *w, const char *m)
{
	size_t len;
	char *text = readfile(in, &len), *dir, *wd = NULL, *md = NULL;
	struct nnl_opts o;
	struct graph *g;

	if (!text) {
		error("%s: %s", in, strerror(errno));
		return NULL;
	}
	if (!w) {
		const char *b = path_basename(in);

		dir = out && strcmp(out, "-") ? path_dirname(out) :
		    xstrdup(".");
		wd = xasprintf("%s/%.*s.weights", dir, (int)(strlen(b) - 4), b);
		md = xasprintf("%s/%.*s.manifest.json", dir,
		    (int)(strlen(b) - 4), b);
		free(dir);
	}
	o.path = in;
	o.weights = w ? w : wd;
	o.manifest = m ? m : md;
	g = nnl_parse(text, len, in, &o);
	if (g) {
		graph_index(g);
		if (graph_validate(g) != 0) {
			graph_free(g);
			g = NULL;
		}
	}
	if (g) {
		g->owntext = text;
		g->ownsrc = xstrdup(in);
		g->src = g->ownsrc;
	} else {
		free(text);
	}
	free(wd);
	free(md);
	return g;
}

int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "to", required_argument, NULL, 't' },
		{ "weights", required_argument, NULL, 'w' },
		{ "manifest", required_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *out = NULL, *to = "json", *wfile = NULL, *mfile = NULL;
	const char *in = "-";
	struct graph *g;
	int c, rc;

	setprogname(argv[0]);
	while ((c = getopt_long(argc, argv, "o:t:w:m:h", longopts,
	    NULL)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case 't': to = optarg; break;
		case 'w': wfile = optarg; break;
		case 'm': mfile = optarg; break;
		default: usage();
		}
	}
	if (argc - optind > 1 || (strcmp(to, "json") != 0 &&
	    strcmp(to, "webnn") != 0) || (!wfile != !mfile))
		usage();
	if (optind < argc)
		in = argv[optind];
	if (isnnl(in)) {
		g = loadnnl(in, out, wfile, mfile);
		wfile = mfile = NULL;	/* they named the packed output */
	} else {
		g = graph_load(in);
	}
	if (!g)
		return 1;
	if (!wfile && !g->weights_file && strcmp(in, "-") != 0) {
		char *w, *m;

		sidecars(in, &w, &m);
		g->weights_file = w;
		g->manifest_file = m;
	} else if (wfile) {
		free(g->weights_file);
		free(g->manifest_file);
		g->weights_file = xstrdup(wfile);
		g->manifest_file = xstrdup(mfile);
	}
	if (g->weights_file && graph_validate(g) != 0) {
		graph_free(g);
		return 1;
	}
	if (strcmp(to, "webnn") == 0) {
		char *text = webnn_print(g);

		rc = text ? writefile_atomic(out, text, strlen(text)) : -1;
		free(text);
	} else {
		rc = graph_save(g, out);
	}
	graph_free(g);
	if (rc != 0)
		return 1;
	return close_stdout();
}
