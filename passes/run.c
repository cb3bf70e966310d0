/*
 * run: executes a graph on this machine with the reference kernels of
 * common/rt/ and writes each output as an .npy file.  It needs no
 * compiler, so it is how the other back ends are checked, and a quick
 * way to try a model.
 */
#define _DEFAULT_SOURCE
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "checked.h"
#include "escape.h"
#include "eval.h"
#include "graph.h"
#include "memplan.h"
#include "npy.h"
#include "shape.h"
#include "util.h"

/* One line of the listing: output name, type, file, terminal-safe (the
 * file's name holds the output's, and is not cut). */
static void
listed(const char *name, const char *type, const char *path)
{
	struct buf b = { 0 };

	escape_tty_text(&b, path, strlen(path), (size_t)-1);
	printf("%s %s %s\n", escape_tty_name(name), type, b.s);
	free(b.s);
}

NNL_NORETURN static void
usage(void)
{
	fprintf(stderr, "usage: nnl-run [-d dir] [--max-tensor-bytes size] "
	    "graph\n               [input=file.npy ...]\n");
	exit(2);
}

/* The graph in file, typed, its plan (if it has one) checked, each
 * output's name one that stays in dir; NULL after an error. */
static struct graph *
loadgraph(const char *file, const char *dir)
{
	struct graph *g = graph_load(file);

	if (!g)
		return NULL;
	if (shape_infer(g) != 0)
		goto bad;
	/* a plan it carries must be one nnl-emit-c would accept */
	if (cJSON_GetObjectItemCaseSensitive(g->extra, "memory") &&
	    memplan_verify(g, memplan_scratch) != 0)
		goto bad;
	/* each output is written to DIR/NAME.npy: NAME must stay in DIR */
	for (size_t i = 0; i < g->noutputs; i++)
		if (!path_isname(g->outputs[i].name)) {
			error("%s: output \"%s\" cannot name a file in %s (an "
			    "empty name, \".\", \"..\" or one with a '/')",
			    g->src, escape_tty_name(g->outputs[i].name), dir);
			goto bad;
		}
	return g;
bad:
	graph_free(g);
	return NULL;
}

/* The nin arguments NAME=FILE.npy into in[] (their arrays in arrs[]),
 * each an input of g given data of its type; 0, or -1 after an
 * error. */
static int
readinputs(struct graph *g, char **args, int nin, struct evalbuf *in,
    struct npy *arrs)
{
	for (int i = 0; i < nin; i++) {
		char *arg = args[i], *eq = strchr(arg, '=');
		struct operand *o;

		if (!eq)
			usage();
		*eq = '\0';
		o = graph_find(g, arg);
		if (!o || o->kind != OPND_INPUT) {
			error("\"%s\" is not an input of the graph",
			    escape_tty_name(arg));
			return -1;
		}
		if (npy_load(eq + 1, &arrs[i]) != 0)
			return -1;
		/* bfloat16 comes as its bits, uint16 (npy_save) */
		if (arrs[i].dt != o->desc.dt && !(arrs[i].dt == DT_UINT16 &&
		    o->desc.dt == DT_BFLOAT16)) {
			error("%s: %s data for input \"%s\" of type %s",
			    eq + 1, dtype_name(arrs[i].dt),
			    escape_tty_name(arg),
			    dtype_name(o->desc.dt));
			return -1;
		}
		in[i].name = arg;
		in[i].data = arrs[i].data;
		in[i].nbytes = arrs[i].nbytes;
	}
	return 0;
}

/* Every output out[i] of g as dir/NAME.npy, or none (one group of
 * files), each listed once all are there; frees their data.  0, or 1
 * after an error. */
static int
writeoutputs(struct graph *g, const char *dir, struct evalbuf *out)
{
	char **paths = xcalloc(g->noutputs + 1, sizeof *paths);
	int rc = 0;

	outfile_group_begin();
	for (size_t i = 0; i < g->noutputs && rc == 0; i++) {
		const struct tdesc *t = operand_type(graph_find(g,
		    g->outputs[i].ref));

		long c = graph_shape_output(g, i);
		int64_t *dims = xmalloc(((size_t)t->rank + 1) * sizeof *dims);
		size_t nb = out[i].nbytes;

		if (t->rank > 0)	/* a scalar's dims are NULL */
			memcpy(dims, t->dims, (size_t)t->rank * sizeof *dims);
		if (c >= 0) {
			/* data-dependent: the shape it has, at the front */
			const int64_t *k = out[c].data;

			uint64_t n = 1, max = (uint64_t)tdesc_numel(t);

			/* the bound holds at most its numel, in any shape
			 * (constantOfShape's [bound, 1, ...]) */
			for (int d = 0; d < t->rank; d++) {
				dims[d] = k[d] < 0 ? 0 : k[d];
				n = dims[d] && n > max / (uint64_t)dims[d] ?
				    max + 1 : n * (uint64_t)dims[d];
			}
			if (n > max) {
				error("output \"%s\": shape past its bound of "
				    "%llu elements", g->outputs[i].name,
				    (unsigned long long)max);
				rc = 1;
				n = 0;
			}
			nb = (size_t)dtype_bytes(t->dt, n);
		}
		paths[i] = xasprintf("%s/%s.npy", dir,
		    g->outputs[i].name);
		if (npy_save(paths[i], t->dt, t->rank, dims, out[i].data,
		    nb) != 0)
			rc = 1;
		free(dims);
	}
	if (rc == 0 && outfile_group_commit() != 0)
		rc = 1;
	outfile_group_abort();
	for (size_t i = 0; i < g->noutputs; i++) {
		if (rc == 0) {
			char *ts = tdesc_str(operand_type(graph_find(g,
			    g->outputs[i].ref)));

			listed(out[i].name, ts, paths[i]);
			free(ts);
		}
		free(paths[i]);
		free(out[i].data);
	}
	free(paths);
	return rc;
}

int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "max-tensor-bytes", required_argument, NULL,
		    CHECKED_OPTION },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *dir = ".", *maxbytes = NULL;
	struct graph *g;
	struct evalbuf *in, *out;
	struct npy *arrs;
	int c, nin, rc = 1;

	setprogname(argv[0]);
	while ((c = getopt_long(argc, argv, "d:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'd': dir = optarg; break;
		case CHECKED_OPTION: maxbytes = optarg; break;
		default: usage();
		}
	}
	if (checked_setup(maxbytes) != 0)
		exit(2);
	if (optind >= argc)
		usage();
	if (!(g = loadgraph(argv[optind], dir)))
		return 1;
	nin = argc - optind - 1;
	in = xcalloc((size_t)nin + 1, sizeof *in);
	arrs = xcalloc((size_t)nin + 1, sizeof *arrs);
	out = xcalloc(g->noutputs + 1, sizeof *out);
	/* the directory -d names, made as mkdir -p would, once the
	 * graph has run */
	if (readinputs(g, argv + optind + 1, nin, in, arrs) == 0 &&
	    graph_eval(g, in, nin, out) == 0 && path_mkdirs(dir) == 0)
		rc = writeoutputs(g, dir, out);
	for (int i = 0; i < nin; i++)
		npy_free(&arrs[i]);
	free(arrs);
	free(in);
	free(out);
	graph_free(g);
	if (rc)
		return rc;
	return close_stdout();
}
