/*
 * emit-c: a shape-inferred, memory-planned graph as C99 source and
 * header that a C compiler turns into an object with no dependency:
 * static arena, read-only weights, the model's API and, with -m, a
 * main() that reads raw input on stdin and writes raw output.
 */
#define _DEFAULT_SOURCE
#include <sys/stat.h>

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "checked.h"
#include "emitc.h"
#include "escape.h"
#include "graph.h"
#include "memplan.h"
#include "shape.h"
#include "threads.h"
#include "util.h"

NNL_NORETURN static void
usage(void)
{
	fprintf(stderr, "usage: nnl-emit-c [-m] [-e incbin|beside|array] "
	    "[-p prefix] [-H header] [-o file]\n"
	    "                 [--threads n] [--max-tensor-bytes size] "
	    "[file]\n");
	exit(2);
}

/*
 * The header goes beside the source -o names, unless that is standard
 * output, a name under /dev or /proc, a FIFO or a device: written in
 * place, with nothing beside it (outfile_open).
 */
static int
headerbeside(const char *out)
{
	struct stat st;

	return out && strcmp(out, "-") != 0 && strncmp(out, "/dev/", 5) &&
	    strncmp(out, "/proc/", 6) && !(stat(out, &st) == 0 &&
	    !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode));
}

/* nnl-emit-c's long options, each with its short name. */
static const struct option longopts[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "header", required_argument, NULL, 'H' },
	{ "prefix", required_argument, NULL, 'p' },
	{ "embed", required_argument, NULL, 'e' },
	{ "main", no_argument, NULL, 'm' },
	{ "threads", required_argument, NULL, 'T' },
	{ "max-tensor-bytes", required_argument, NULL,
	    CHECKED_OPTION },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

/* -e's embedding of the weights; usage() on another word. */
static enum embed
embedof(const char *arg)
{
	if (strcmp(arg, "incbin") == 0)
		return EMBED_INCBIN;
	if (strcmp(arg, "array") == 0)
		return EMBED_ARRAY;
	if (strcmp(arg, "beside") == 0)
		return EMBED_BESIDE;
	usage();
}

/* The header's path: -H's, else model.c -> model.h beside the source
 * out, or NULL when none is written. */
static char *
headerpath(const char *out, const char *hdr)
{
	size_t n;

	if (hdr)
		return xstrdup(hdr);
	if (!headerbeside(out))
		return NULL;
	n = strlen(out);
	return n > 2 && strcmp(out + n - 2, ".c") == 0 ?
	    xasprintf("%.*s.h", (int)(n - 2), out) :
	    xasprintf("%s.h", out);
}

/* The threads: the plan's unless --threads says; the workspace the
 * plan gives each kernel must be enough for them. */
static int
planthreads(struct graph *g, struct emitc_opts *o)
{
	if ((kernel_threads = threads_of_graph(g, 1)) < 0)
		return -1;
	if (o->threads > kernel_threads) {
		error("%s: the memory plan is for %d thread%s, not %d: run "
		    "nnl-plan-memory --threads %d", g->src, kernel_threads,
		    kernel_threads > 1 ? "s" : "", o->threads, o->threads);
		return -1;
	}
	if (!o->threads)
		o->threads = kernel_threads;
	return 0;
}

int
main(int argc, char *argv[])
{
	struct emitc_opts o = { NULL, NULL, EMBED_INCBIN, 0, 0 };
	const char *out = NULL, *hdr = NULL;
	char *src = NULL, *h = NULL, *hdrpath = NULL;
	struct graph *g;
	int c, rc = 1;
	const char *maxbytes = NULL;

	setprogname(argv[0]);
	while ((c = getopt_long(argc, argv, "o:H:p:e:mh", longopts,
	    NULL)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case 'H': hdr = optarg; break;
		case 'p': o.prefix = optarg; break;
		case 'm': o.main = 1; break;
		case 'T':
			if ((o.threads = threads_parse(optarg)) < 0)
				usage();
			break;
		case 'e': o.embed = embedof(optarg); break;
		case CHECKED_OPTION: maxbytes = optarg; break;
		default: usage();
		}
	}
	if (checked_setup(maxbytes) != 0)
		exit(2);
	if (argc - optind > 1)
		usage();
	if (o.embed == EMBED_BESIDE && out && strcmp(out, "-") != 0 &&
	    escape_beside_check(out) != 0)
		return 1;
	/* model.c -> model.h beside it, unless -H says otherwise */
	hdrpath = headerpath(out, hdr);
	g = graph_load(optind < argc ? argv[optind] : "-");
	if (!g) {
		free(hdrpath);
		return 1;
	}
	if (planthreads(g, &o) != 0) {
		free(hdrpath);
		graph_free(g);
		return 1;
	}
	/* the plan is JSON anyone may have edited: the generated code
	 * writes where it says, sized by the types it records */
	if (shape_recheck(g) != 0 ||
	    memplan_verify(g, memplan_scratch) != 0) {
		free(hdrpath);
		graph_free(g);
		return 1;
	}
	if (!o.prefix && !g->name)
		o.prefix = "model";
	/* the source on standard output, no -H: no header is written, so
	 * the source holds its text and compiles alone */
	o.header = hdrpath ? path_basename(hdrpath) : NULL;
	/* the source and its header, both or neither */
	outfile_group_begin();
	if (emitc(g, &o, &src, &h) == 0 &&
	    (!hdrpath || writefile_atomic(hdrpath, h, strlen(h)) == 0) &&
	    writefile_atomic(out, src, strlen(src)) == 0 &&
	    outfile_group_commit() == 0)
		rc = 0;
	else
		outfile_group_abort();
	free(src);
	free(h);
	free(hdrpath);
	graph_free(g);
	if (rc)
		return rc;
	return close_stdout();
}
