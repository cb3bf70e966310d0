/*
 * shape-infer: gives every node's outputs their data type and shape by
 * the W3C WebNN rules (the "types" field), checking option values and
 * any types the graph already states.  Also installed as nnl-infer.
 */
#define _DEFAULT_SOURCE
#include <getopt.h>
#include <stdlib.h>

#include "checked.h"
#include "graph.h"
#include "shape.h"
#include "util.h"

NNL_NORETURN static void
usage(void)
{
	fprintf(stderr, "usage: %s [-o file] [--max-tensor-bytes size] "
	    "[file]\n", getprogname_nnl());
	exit(2);
}

int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "max-tensor-bytes", required_argument, NULL,
		    CHECKED_OPTION },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *out = NULL;
	struct graph *g;
	int c;
	const char *maxbytes = NULL;

	setprogname(argv[0]);
	while ((c = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
		switch (c) {
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
	if (shape_infer(g) != 0 || graph_save(g, out) != 0) {
		graph_free(g);
		return 1;
	}
	graph_free(g);
	return close_stdout();
}
