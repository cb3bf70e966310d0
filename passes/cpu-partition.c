/*
 * cpu-partition: which nodes a WebNN context runs and which run as
 * JavaScript on the CPU, by a support profile; the WebNN partitions
 * between them.
 */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "checked.h"
#include "graph.h"
#include "partition.h"
#include "shape.h"
#include "util.h"

NNL_NORETURN static void
usage(void)
{
	fprintf(stderr, "usage: nnl-cpu-partition -p profile.json [-v] "
	    "[-o file]\n"
	    "                         [--max-tensor-bytes size] [file]\n");
	exit(2);
}

int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "profile", required_argument, NULL, 'p' },
		{ "output", required_argument, NULL, 'o' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "max-tensor-bytes", required_argument, NULL,
		    CHECKED_OPTION },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct partition_opts o = { 0 };
	const char *out = NULL, *prof = NULL;
	struct graph *g;
	cJSON *p;
	char *text;
	size_t len;
	int c, rc;
	const char *maxbytes = NULL;

	setprogname(argv[0]);
	while ((c = getopt_long(argc, argv, "p:o:vh", longopts,
	    NULL)) != -1) {
		switch (c) {
		case 'p': prof = optarg; break;
		case 'o': out = optarg; break;
		case 'v': o.verbose = 1; break;
		case CHECKED_OPTION: maxbytes = optarg; break;
		default: usage();
		}
	}
	if (checked_setup(maxbytes) != 0)
		exit(2);
	if (argc - optind > 1 || !prof)
		usage();
	if (!(text = readfile(prof, &len))) {
		error("%s: %s", prof, strerror(errno));
		return 1;
	}
	p = cJSON_ParseWithLength(text, len);
	free(text);
	if (!cJSON_IsObject(p)) {
		error("%s: not a support profile (a JSON object in the shape "
		    "of opSupportLimits())", prof);
		cJSON_Delete(p);
		return 1;
	}
	o.profile = p;
	o.profile_name = path_basename(prof);
	g = graph_load(optind < argc ? argv[optind] : "-");
	rc = g && shape_infer(g) == 0 && graph_partition(g, &o) == 0 &&
	    graph_save(g, out) == 0 ? 0 : 1;
	graph_free(g);
	cJSON_Delete(p);
	return rc ? 1 : close_stdout();
}
