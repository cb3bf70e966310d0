/*
 * packgraph: nnl-pack-weights' subcommands on graphs (packgraph.c).
 */
#ifndef NNL_PACKGRAPH_H
#define NNL_PACKGRAPH_H

struct graph;

/* "extract" or "inline", with argv from optind: the exit status. */
int packgraph_main(const char *cmd, int argc, char *argv[]);
/* Every constant of kind "weights" read from the graph's weights file
 * into the graph (inlineBytes), which then names none.  0, or -1
 * after reporting. */
int packgraph_inline(struct graph *g);

#endif
