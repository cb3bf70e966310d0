/*
 * onnx-import: an ONNX model (.onnx) into the canonical graph and its
 * weights file, for every back end to take from there.
 */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "checked.h"
#include "dimsfile.h"
#include "graph.h"
#include "modelpath.h"
#include "onnx.h"
#include "packgraph.h"
#include "progress.h"
#include "sidecar.h"
#include "util.h"

NNL_NORETURN static void
usage(void)
{
	fprintf(stderr, "usage: nnl-onnx-import [-o file] [-w weights "
	    "-m manifest | --inline-weights] [-n name]\n"
	    "       [-d NAME=N ...] [--dims file.json] [-c NAME=FILE.npy ...] "
	    "[-a]\n"
	    "       [--bound n] [--max-tensor-bytes size] [--allow-outside] "
	    "model.onnx\n");
	exit(2);
}

enum { INLINE_OPTION = MODELPATH_OPTION + 1, BOUND_OPTION };

/* path without its extension, then ext */
static char *
stemwith(const char *path, const char *ext)
{
	const char *base = path_basename(path), *dot = strrchr(base, '.');
	size_t stem = dot && dot != base ? (size_t)(dot - path) :
	    strlen(path);

	return xasprintf("%.*s%s", (int)stem, path, ext);
}

/* nnl-onnx-import's long options, each with its short name. */
static const struct option longopts[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "weights", required_argument, NULL, 'w' },
	{ "manifest", required_argument, NULL, 'm' },
	{ "name", required_argument, NULL, 'n' },
	{ "origins", no_argument, NULL, 'a' },
	{ "dim", required_argument, NULL, 'd' },
	{ "dims", required_argument, NULL, 'D' },
	{ "const", required_argument, NULL, 'c' },
	{ "max-tensor-bytes", required_argument, NULL,
	    CHECKED_OPTION },
	{ MODELPATH_NAME, no_argument, NULL, MODELPATH_OPTION },
	{ "inline-weights", no_argument, NULL, INLINE_OPTION },
	{ "bound", required_argument, NULL, BOUND_OPTION },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

/* The options that are not the importer's (struct onnx_opts). */
struct args {
	const char *out;	/* -o */
	const char *maxbytes;	/* --max-tensor-bytes */
	const char *dimsfile;	/* --dims */
	int inl;		/* --inline-weights */
};

/* --bound's n: 1 to 2^32 - 1; exits 2 with a message otherwise. */
static uint32_t
bound(const char *s)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (*s < '0' || *s > '9' || *end || errno || v < 1 ||
	    v > UINT32_MAX) {
		fprintf(stderr, "nnl-onnx-import: --bound wants a count "
		    "from 1 to %lu, not \"%s\"\n", (unsigned long)UINT32_MAX,
		    s);
		exit(2);
	}
	return (uint32_t)v;
}

/* The options into o and a; usage() exits 2 on a wrong one, a --dim or
 * --const of the wrong form exits 2 with a message. */
static void
parse_options(int argc, char *argv[], struct onnx_opts *o, struct args *a)
{
	int c;

	while ((c = getopt_long(argc, argv, "o:w:m:n:d:c:ah", longopts,
	    NULL)) != -1) {
		switch (c) {
		case 'o': a->out = optarg; break;
		case 'w': o->weights = optarg; break;
		case 'm': o->manifest = optarg; break;
		case 'n': o->name = optarg; break;
		case 'a': o->origins = 1; break;
		case 'd':
			if (!dimsfile_arg(optarg)) {
				fprintf(stderr, "nnl-onnx-import: --dim wants "
				    "NAME=N with N positive, not \"%s\"\n",
				    optarg);
				exit(2);
			}
			o->dims[o->ndims++] = optarg;
			break;
		case 'c':
			if (!strchr(optarg, '=') || optarg[0] == '=' ||
			    !strchr(optarg, '=')[1]) {
				fprintf(stderr, "nnl-onnx-import: --const wants "
				    "NAME=FILE.npy, not \"%s\"\n", optarg);
				exit(2);
			}
			o->consts[o->nconsts++] = optarg;
			break;
		case 'D': a->dimsfile = optarg; break;
		case INLINE_OPTION: a->inl = 1; break;
		case BOUND_OPTION:
			o->bound = bound(optarg);
			break;
		case CHECKED_OPTION: a->maxbytes = optarg; break;
		case MODELPATH_OPTION: o->outside = 1; break;
		default: usage();
		}
	}
}

/* The dimensions file's overrides (*fdims, *nfdims) after --dim's in
 * o, which take precedence; exits 1 when it cannot be read. */
static void
filedims(struct onnx_opts *o, const char *dimsfile, char ***fdims,
    int *nfdims)
{
	if (dimsfile_read(dimsfile, fdims, nfdims) != 0)
		exit(1);
	o->dims = xrealloc(o->dims, (size_t)(o->ndims + *nfdims + 1) *
	    sizeof *o->dims);
	for (int i = 0; i < *nfdims; i++)
		o->dims[o->ndims++] = (*fdims)[i];
}

/* A private folder under $TMPDIR for --inline-weights; NULL after an
 * error. */
static char *
inlinedir(void)
{
	const char *td = getenv("TMPDIR");
	char *tmp = xasprintf("%s/nnl-onnx-import.XXXXXX", td && *td ?
	    td : "/tmp");

	if (!mkdtemp(tmp)) {
		error("%s: %s", tmp, strerror(errno));
		free(tmp);
		return NULL;
	}
	return tmp;
}

int
main(int argc, char *argv[])
{
	struct onnx_opts o = { 0 };
	struct args a = { 0 };
	char *wdflt = NULL, *mdflt = NULL;
	struct graph *g;
	int rc = 1;
	char **fdims = NULL;
	int nfdims = 0;
	char *tmp = NULL, *side = NULL;

	setprogname(argv[0]);
	o.dims = xcalloc((size_t)argc + 1, sizeof *o.dims);
	o.consts = xcalloc((size_t)argc + 1, sizeof *o.consts);
	parse_options(argc, argv, &o, &a);
	if (checked_setup(a.maxbytes) != 0)
		exit(2);
	if (argc - optind != 1 || !o.weights != !o.manifest ||
	    (a.inl && o.weights))
		usage();
	/* and model.dims.json beside model.onnx pins its dimensions,
	 * after --dim's and in place of --dims */
	if (!a.dimsfile)
		a.dimsfile = side = sidecar_dims(argv[optind]);
	/* the file's overrides after --dim's, which take precedence */
	if (a.dimsfile)
		filedims(&o, a.dimsfile, &fdims, &nfdims);
	if (a.inl) {
		/* --inline-weights: the weights to a private folder, read
		 * back into the graph, removed */
		if (!(tmp = inlinedir()))
			goto out;
		o.weights = wdflt = xasprintf("%s/w.weights", tmp);
		o.manifest = mdflt = xasprintf("%s/w.manifest.json", tmp);
	} else if (!o.weights) {
		const char *base = a.out && strcmp(a.out, "-") ? a.out :
		    path_basename(argv[optind]);

		o.weights = wdflt = stemwith(base, ".weights");
		o.manifest = mdflt = stemwith(base, ".manifest.json");
	}
	/* the graph, its weights and manifest: all three, or none */
	outfile_group_begin();
	g = onnx_import(argv[optind], &o);
	if (!g && a.inl)
		outfile_group_abort();	/* its temporaries, then tmp */
	if (g && a.inl && (outfile_group_commit() != 0 ||
	    packgraph_inline(g) != 0)) {
		graph_free(g);
		g = NULL;
	}
	if (a.inl)
		outfile_group_begin();
	if (g)
		progress_start("writing the graph", 0);
	if (g && webnn_save_as(g, a.out) == 0 && outfile_group_commit() == 0)
		rc = close_stdout();
	graph_free(g);
out:
	if (tmp) {
		unlink(o.weights);
		unlink(o.manifest);
		rmdir(tmp);
		free(tmp);
	}
	free(side);
	free(wdflt);
	free(mdflt);
	free(o.dims);
	for (int i = 0; i < nfdims; i++)
		free(fdims[i]);
	free(fdims);
	free(o.consts);
	return rc;
}
