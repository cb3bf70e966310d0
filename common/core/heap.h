/*
 * heap: a growable min-heap of indices (size_t), the ready list of the
 * stable topological order and of the fuse pass's work queues: the
 * smallest index, that is the node listed first, comes out first.
 */
#ifndef NNL_HEAP_H
#define NNL_HEAP_H

#include <stddef.h>

struct heap {
	size_t *v, n, cap;	/* zero-initialised: empty */
};

void heap_push(struct heap *h, size_t x);
size_t heap_pop(struct heap *h);	/* h->n must be > 0 */
void heap_free(struct heap *h);

#endif
