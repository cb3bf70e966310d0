/*
 * reorder: lists every node after the producers of its inputs (stable:
 * a runnable order is kept as it is) and drops nodes and constants that
 * no output depends on, as OnnxConverter's ReorderModel does for code.
 */
#define _DEFAULT_SOURCE
#include <getopt.h>
#include <stdlib.h>

#include "checked.h"
#include "graph.h"
#include "order.h"
#include "util.h"

NNL_NORETURN static void
usage(void)
{
	fprintf(stderr, "usage: nnl-reorder [-v] [-o file] [--strict] "
	    "[--max-tensor-bytes size] [file]\n");
	exit(2);
}

int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "max-tensor-bytes", required_argument, NULL,
		    CHECKED_OPTION },
		{ "strict", no_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *out = NULL;
	struct graph *g;
	int c, verbose = 0, strict = 0;
	const char *maxbytes = NULL;

	setprogname(argv[0]);
	while ((c = getopt_long(argc, argv, "o:vh", longopts, NULL)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case 'v': verbose = 1; break;
		case 'S': strict = 1; break;
		case CHECKED_OPTION: maxbytes = optarg; break;
		default: usage();
		}
	}
	if (checked_setup(maxbytes) != 0)
		exit(2);
	if (argc - optind > 1)
		usage();
	graph_passthrough = !strict;	/* order needs no op's meaning */
	g = graph_load(optind < argc ? argv[optind] : "-");
	if (!g)
		return 1;
	if (graph_reorder(g, verbose) != 0 || graph_save(g, out) != 0) {
		graph_free(g);
		return 1;
	}
	graph_free(g);
	return close_stdout();
}
