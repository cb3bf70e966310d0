/*
 * emit-js: a graph as JavaScript that builds it with the W3C WebNN API,
 * for browsers to run with no framework and no load-time graph work.
 */
#define _DEFAULT_SOURCE
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "checked.h"
#include "emitjs.h"
#include "emitjs_wasm.h"
#include "graph.h"
#include "shape.h"
#include "sidecar.h"
#include "util.h"

NNL_NORETURN static void
usage(void)
{
	fprintf(stderr, "usage: nnl-emit-js [-o file.js] [--polyfill] [--strict]\n"
	    "                  [--wasm module.wasm] [--weights-at-load]\n"
	    "                  [--max-tensor-bytes size] [file]\n");
	exit(2);
}

int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "max-tensor-bytes", required_argument, NULL,
		    CHECKED_OPTION },
		{ "wasm", required_argument, NULL, 'W' },
		{ "strict", no_argument, NULL, 'S' },
		{ "polyfill", no_argument, NULL, 'P' },
		{ "weights-at-load", no_argument, NULL, 'L' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *out = NULL, *wasm = NULL;
	struct graph *g;
	char *js = NULL;
	int c, rc, strict = 0, flags = 0;
	const char *in;
	const char *maxbytes = NULL;

	setprogname(argv[0]);
	while ((c = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case 'W': wasm = optarg; break;
		case CHECKED_OPTION: maxbytes = optarg; break;
		case 'S': strict = 1; break;
		case 'P': flags |= EMITJS_POLYFILL; break;
		case 'L': flags |= EMITJS_ATLOAD; break;
		default: usage();
		}
	}
	if (checked_setup(maxbytes) != 0)
		exit(2);
	if (argc - optind > 1 || (wasm && !*wasm))
		usage();
	if (wasm && (flags & EMITJS_ATLOAD)) {
		/* its fallback would run other weights than WebNN's */
		error("--wasm and --weights-at-load: the WebAssembly build has "
		    "its weights compiled in, not chosen when the module loads");
		usage();
	}
	in = optind < argc ? argv[optind] : "-";
	/* an op it does not know is emitted as the builder call it names */
	graph_passthrough = !strict;
	g = graph_load(in);
	/* .webnn text names no weights: those beside it, as nnl-parse */
	if (!g || sidecar_attach(g, in) != 0) {
		graph_free(g);
		return 1;
	}
	/* the types say what each input and output is */
	rc = shape_infer(g) == 0 && emitjs(g, flags, &js) == 0 ? 0 : -1;
	if (rc == 0 && wasm) {
		struct buf b = { js, strlen(js), strlen(js) + 1 };

		emitjs_wasm(&b, g, wasm);
		js = b.s;
	}
	if (rc == 0)
		rc = writefile_atomic(out, js, strlen(js));
	free(js);
	graph_free(g);
	if (rc != 0)
		return 1;
	return close_stdout();
}
