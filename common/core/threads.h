/*
 * threads: how many threads generated code splits its heavy kernels
 * over (nnc --threads, the NNL config key "threads", the memory plan's
 * "threads").  The kernels' workspace grows with it: each part of an
 * SGEMM packs into its own space (common/rt/par/par.c).
 */
#ifndef NNL_THREADS_H
#define NNL_THREADS_H

#include "graph.h"

/* At most this many threads. */
enum { THREADS_MAX = 64 };

/* The count the kernels' workspace is sized for; 1 by default. */
extern int kernel_threads;

/* "4" -> 4; -1 unless an integer from 1 to THREADS_MAX. */
int threads_parse(const char *s);

/*
 * The count a graph asks for: its memory plan's "threads", else its
 * NNL config's "threads", else 1; -1 (with an error naming the graph)
 * for a value that is not an integer from 1 to THREADS_MAX.
 */
int threads_of_graph(const struct graph *g, int plan);

#endif
