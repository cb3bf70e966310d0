/*
 * packgraph: nnl-pack-weights' subcommands on graphs (packgraph.c).
 */
#ifndef NNL_PACKGRAPH_H
#define NNL_PACKGRAPH_H

/* "extract" or "inline", with argv from optind: the exit status. */
int packgraph_main(const char *cmd, int argc, char *argv[]);

#endif
