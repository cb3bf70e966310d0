/*
 * constdata: the bytes of a constant operand (constdata.c), below the
 * host kernels, the middle passes and the back ends that all read them.
 */
#ifndef NNL_CONSTDATA_H
#define NNL_CONSTDATA_H

#include <stdint.h>

#include "graph.h"

/*
 * The bytes of a constant (malloc'd), or NULL after reporting.  The
 * graph's weights file is opened at the first call and kept open with
 * the graph while it names the same files.
 */
void *const_bytes(struct graph *g, struct operand *c, uint64_t *nbytes);
/* Close the weights const_bytes keeps (after rewriting the file). */
void const_forget(struct graph *g);

#endif
