/*
 * parse: reads a graph as .webnn text or webnn-graph JSON (detected from
 * the first byte) and writes canonical JSON, or .webnn text with
 * --to webnn.  Every load validates the graph's structure, so parse is
 * also the format's checker.
 */
#define _DEFAULT_SOURCE
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "graph.h"
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
	g = graph_load(in);
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
