/*
 * emit-dot: a Graphviz DOT picture of the graph on the pipe, at any
 * stage: the operands' types on the edges once nnl-shape-infer has run,
 * fused activations once nnl-fuse has, partitions once
 * nnl-cpu-partition has.  dot -Tsvg draws it.
 */
#define _DEFAULT_SOURCE
#include <getopt.h>
#include <stdlib.h>

#include "checked.h"
#include "dot.h"
#include "graph.h"
#include "util.h"

NNL_NORETURN static void
usage(void)
{
	fprintf(stderr, "usage: nnl-emit-dot [-cl] [-o file] "
	    "[--max-tensor-bytes size] [file]\n");
	exit(2);
}

int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "inline-consts", no_argument, NULL, 'c' },
		{ "left-right", no_argument, NULL, 'l' },
		{ "max-tensor-bytes", required_argument, NULL,
		    CHECKED_OPTION },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct dot_opts o = { 0, 0 };
	const char *out = NULL, *maxbytes = NULL;
	struct buf b = { 0 };
	struct graph *g;
	int c, rc;

	setprogname(argv[0]);
	while ((c = getopt_long(argc, argv, "clo:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'c': o.inline_consts = 1; break;
		case 'l': o.lr = 1; break;
		case 'o': out = optarg; break;
		case CHECKED_OPTION: maxbytes = optarg; break;
		default: usage();
		}
	}
	if (checked_setup(maxbytes) != 0)
		exit(2);
	if (argc - optind > 1)
		usage();
	g = graph_load(optind < argc ? argv[optind] : "-");
	if (!g)
		return 1;
	dot_graph(&b, g, &o);
	rc = writefile_atomic(out, b.s, b.n);
	free(b.s);
	graph_free(g);
	return rc != 0 ? 1 : close_stdout();
}
