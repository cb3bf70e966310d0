/*
 * parse: reads a graph as .webnn text or webnn-graph JSON (detected from
 * the first byte), or an NNL model (a .nnl file, or text that starts
 * with version or model), and writes canonical JSON, or .webnn text
 * with --to webnn.  Every load validates the graph's structure, so
 * parse is also the format's checker.
 */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "checked.h"
#include "escape.h"
#include "graph.h"
#include "modelpath.h"
#include "shape.h"
#include "sidecar.h"
#include "nnl.h"
#include "util.h"

NNL_NORETURN static void
usage(void)
{
	fprintf(stderr, "usage: nnl-parse [-o file] [-t json|webnn|nnl] "
	    "[[-w weights] -m manifest]\n"
	    "                 [-d dir] [-u error|comment] [--strict] "
	    "[--max-tensor-bytes size]\n"
	    "                 [--allow-outside] [file]\n");
	exit(2);
}

static int
isnnl(const char *path)
{
	size_t n = strlen(path);

	return n > 4 && strcmp(path + n - 4, ".nnl") == 0;
}

/*
 * An NNL model (its text read already), its weights packed to -w/-m,
 * or by default to MODEL.weights and MODEL.manifest.json, MODEL the
 * model's name, beside -o (or in the working directory when writing
 * to standard output).
 */
static struct graph *
loadnnl(char *text, size_t len, const char *in, const char *out,
    const char *w, const char *m, int outside)
{
	const char *name = displayname(in);
	char *dir = out && strcmp(out, "-") ? path_dirname(out) : xstrdup(".");
	struct nnl_opts o;
	struct graph *g;

	memset(&o, 0, sizeof o);
	o.path = strcmp(in, "-") ? in : NULL;	/* stdin: weights from . */
	o.weights = w;
	o.manifest = m;
	o.dir = dir;
	o.outside = outside;
	g = nnl_parse(text, len, name, &o);
	free(dir);
	if (g) {
		graph_index(g);
		if (graph_validate(g) != 0) {
			graph_free(g);
			g = NULL;
		}
	}
	if (!g) {
		free(text);
		return NULL;
	}
	g->owntext = text;
	g->ownsrc = xstrdup(name);
	g->src = g->ownsrc;
	return g;
}

/*
 * JSON or .webnn text, as graph_load reads it, from text read already
 * (standard input cannot be read twice).  A file given by name is a
 * model the user names: the files it names follow the rule of
 * modelpath.h.  A graph on standard input comes from the pipe the user
 * composed, whose passes write the paths themselves (absolute ones on
 * a pipe): it is read as it is.
 */
static struct graph *
loadgraph(char *text, size_t len, const char *in, int outside)
{
	const char *name = displayname(in);
	int file = strcmp(in, "-") != 0;
	char *dir = file ? path_dirname(in) : xstrdup(".");
	struct graph *g = file ? graph_parse_model(text, len, name, dir,
	    outside) : graph_parse(text, len, name, dir);

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
	return g;
}

/*
 * The weights file w or manifest m found beside model file in by its
 * name: under the rule of modelpath.h, neither may be a symbolic link
 * leading out of the model's folder.  0, or -1 after the error.
 */
static int
besidein(const char *in, const char *w, const char *m, int outside)
{
	const char *f[] = { w, m }, *why;
	char *dir = path_dirname(in), *p;
	struct srcloc l = { displayname(in), 0, 0, NULL, 0 };
	int rc = 0;

	for (int i = 0; i < 2 && !outside && rc == 0; i++) {
		if ((p = modelpath(dir, path_basename(f[i]), 0, &why)) ||
		    errno != 0) {
			free(p);
			continue;
		}
		error_at(&l, "%s %s beside it %s",
		    i ? "manifest" : "weights file",
		    escape_tty_name(path_basename(f[i])), why);
		rc = -1;
	}
	free(dir);
	return rc;
}

/* nnl-parse's long options, each with its short name. */
static const struct option longopts[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "to", required_argument, NULL, 't' },
	{ "weights", required_argument, NULL, 'w' },
	{ "manifest", required_argument, NULL, 'm' },
	{ "weights-dir", required_argument, NULL, 'd' },
	{ "unsupported", required_argument, NULL, 'u' },
	{ "max-tensor-bytes", required_argument, NULL,
	    CHECKED_OPTION },
	{ "strict", no_argument, NULL, 'S' },
	{ MODELPATH_NAME, no_argument, NULL, MODELPATH_OPTION },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

/*
 * The weights of graph g, read from in: with -m alone the graph is
 * checked against that manifest (webnn-graph's validate
 * --weights-manifest) and keeps its own; with neither, the sidecar
 * files beside in; with -w and -m, those.  0, or -1 after an error.
 */
static int
weightsof(struct graph *g, const char *in, const char *wfile,
    const char *mfile, int nnl, int outside)
{
	if (!nnl && !wfile && mfile) {
		/* -m alone: the graph checked against a manifest, no
		 * weights (webnn-graph's validate --weights-manifest) */
		char *ow = g->weights_file, *om = g->manifest_file;
		int bad;

		g->weights_file = NULL;
		g->manifest_file = (char *)mfile;
		bad = graph_validate(g) != 0;
		g->weights_file = ow;	/* the graph's own, if any */
		g->manifest_file = om;
		if (bad)
			return -1;
	} else if (!nnl && !wfile && !g->weights_file &&
	    strcmp(in, "-") != 0) {
		char *w, *m;

		sidecar_find(in, &w, &m);
		if (w && besidein(in, w, m, outside) != 0) {
			free(w);
			free(m);
			return -1;
		}
		g->weights_file = w;
		g->manifest_file = m;
	} else if (wfile) {
		free(g->weights_file);
		free(g->manifest_file);
		g->weights_file = xstrdup(wfile);
		g->manifest_file = xstrdup(mfile);
	}
	return 0;
}

/* Graph g as to says (json, webnn, or nnl with its weights in wdir,
 * else out's folder's weights/) into out: 0, or -1. */
static int
writeas(struct graph *g, const char *to, const char *out, const char *wdir,
    int comment)
{
	int rc;

	if (strcmp(to, "nnl") == 0) {
		char *d = wdir ? xstrdup(wdir) : NULL;

		if (!d) {
			char *od = path_dirname(out);

			d = xasprintf("%s/weights", od);
			free(od);
		}
		rc = shape_infer(g) == 0 ? nnl_write(g, out, d, comment) :
		    -1;
		free(d);
	} else if (strcmp(to, "webnn") == 0) {
		char *t = webnn_print(g);

		rc = t ? writefile_atomic(out, t, strlen(t)) : -1;
		free(t);
	} else {
		rc = graph_save(g, out);
	}
	return rc;
}

int
main(int argc, char *argv[])
{
	const char *out = NULL, *to = "json", *wfile = NULL, *mfile = NULL;
	const char *in = "-", *wdir = NULL, *unsup = "error";
	struct graph *g;
	char *text;
	size_t len;
	int c, rc, nnl, strict = 0, outside = 0;
	const char *maxbytes = NULL;

	setprogname(argv[0]);
	while ((c = getopt_long(argc, argv, "o:t:w:m:d:u:h", longopts,
	    NULL)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case 't': to = optarg; break;
		case 'w': wfile = optarg; break;
		case 'm': mfile = optarg; break;
		case 'd': wdir = optarg; break;
		case 'u': unsup = optarg; break;
		case CHECKED_OPTION: maxbytes = optarg; break;
		case 'S': strict = 1; break;
		case MODELPATH_OPTION: outside = 1; break;
		default: usage();
		}
	}
	if (checked_setup(maxbytes) != 0)
		exit(2);
	if (argc - optind > 1 || (strcmp(to, "json") != 0 &&
	    strcmp(to, "webnn") != 0 && strcmp(to, "nnl") != 0) ||
	    (wfile && !mfile) || (wdir && strcmp(to, "nnl") != 0) ||
	    (strcmp(unsup, "error") && strcmp(unsup, "comment")))
		usage();
	if (strcmp(to, "nnl") == 0 && (!out || strcmp(out, "-") == 0)) {
		fprintf(stderr, "nnl-parse: -t nnl writes a file and its "
		    "weights: give -o model.nnl\n");
		exit(2);
	}
	if (optind < argc)
		in = argv[optind];
	/* unknown ops and options are kept, except for NNL output, which
	 * must know every op */
	graph_passthrough = !strict && strcmp(to, "nnl") != 0;
	/* the packed weights, their manifest and the output are renamed
	 * into place together at the end, or none of them */
	outfile_group_begin();
	if (!(text = readfile(in, &len))) {
		error("%s: %s", displayname(in), strerror(errno));
		return 1;
	}
	if ((nnl = isnnl(in) || nnl_detect(text, len)) && !wfile && mfile) {
		error("an NNL model packs its weights: give -w with -m");
		usage();
	}
	if (nnl) {
		g = loadnnl(text, len, in, out, wfile, mfile, outside);
		wfile = mfile = NULL;	/* they named the packed output */
	} else {
		g = loadgraph(text, len, in, outside);
	}
	if (!g)
		return 1;
	if (weightsof(g, in, wfile, mfile, nnl, outside) != 0) {
		graph_free(g);
		return 1;
	}
	if (g->weights_file && graph_validate(g) != 0) {
		graph_free(g);
		return 1;
	}
	rc = writeas(g, to, out, wdir, !strcmp(unsup, "comment"));
	graph_free(g);
	if (rc != 0 || outfile_group_commit() != 0)
		return 1;
	return close_stdout();
}
