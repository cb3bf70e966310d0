/*
 * heap: a growable min-heap of indices; see heap.h.
 */
#include <stdlib.h>

#include "heap.h"
#include "util.h"

void
heap_push(struct heap *h, size_t x)
{
	size_t i;

	GROW(h->v, h->cap, h->n + 1);
	for (i = h->n++; i > 0 && h->v[(i - 1) / 2] > x; i = (i - 1) / 2)
		h->v[i] = h->v[(i - 1) / 2];
	h->v[i] = x;
}

size_t
heap_pop(struct heap *h)
{
	size_t top = h->v[0], x = h->v[--h->n], i = 0, c;

	while ((c = 2 * i + 1) < h->n) {
		if (c + 1 < h->n && h->v[c + 1] < h->v[c])
			c++;
		if (h->v[c] >= x)
			break;
		h->v[i] = h->v[c];
		i = c;
	}
	if (h->n)
		h->v[i] = x;
	return top;
}

void
heap_free(struct heap *h)
{
	free(h->v);
	h->v = NULL;
	h->n = h->cap = 0;
}
