/*
 * emitc: a planned graph as C99 source and header.  The source holds
 * the runtime kernels the graph needs, its parameters as static const
 * data, the weights (through the assembler's .incbin, or as an array),
 * one static arena, and the model's API; no heap, no I/O but an
 * optional stdio main().
 */
#ifndef NNL_EMITC_H
#define NNL_EMITC_H

#include "graph.h"

/* incbin: the weights file by its absolute path; beside: the file
 * SOURCE.weights beside the generated source, found through __FILE__;
 * array: a C array in the source */
enum embed { EMBED_INCBIN, EMBED_ARRAY, EMBED_BESIDE };

/*
 * The most weights bytes EMBED_ARRAY writes (64 MiB): each byte costs
 * about 4 bytes of C source, and C compilers take time and memory that
 * grow with an initializer's size (GCC, a minute and gigabytes by a few
 * hundred MiB); past it, -e incbin or beside.
 */
#define EMITC_ARRAY_MAX	(64ULL << 20)

struct emitc_opts {
	const char *prefix;	/* C prefix of every symbol; NULL: model */
	const char *header;	/* name the source includes; NULL: none,
				 * the header's text is in the source */
	enum embed embed;
	int main;		/* a main() reading stdin, writing stdout */
	int threads;		/* >1: kernels split over this many threads */
};

/* The C identifier for a model name ("my-net" -> "my_net"), malloc'd. */
char *emitc_ident(const char *name);

/*
 * Generate the source and the header (both malloc'd).  Errors name
 * the node at fault; returns 0 or -1.
 */
int emitc(struct graph *g, const struct emitc_opts *o, char **source,
    char **header);

#endif
