/*
 * opts: a node's options read by name with the op table's defaults,
 * and shape_err, the error that names the node (opts.c).
 */
#ifndef NNL_OPTS_H
#define NNL_OPTS_H

#include <stdint.h>

#include "graph.h"

struct shapectx {
	struct graph *g;
	struct node *n;
	const struct opdesc *d;
	int nin;
	const struct tdesc **in;	/* types of n->in[], all known */
	int bad;			/* an error was reported */
};

/* "node \"x\": <message>", at the node's position. Returns -1. */
int shape_err(struct shapectx *c, const char *fmt, ...) NNL_PRINTF(2, 3);

/*
 * Options and positional parameters, by name.  Absent members take the
 * op table's default (when it has one) and the getters return 0;
 * present ones return 1; a value of the wrong type is reported and -1
 * returned.  (validate.c already checked types on load, so -1 means a
 * pass built a bad node.)
 */
int opt_present(struct shapectx *c, const char *name);
int opt_u32(struct shapectx *c, const char *name, uint32_t *v);
int opt_i32(struct shapectx *c, const char *name, int32_t *v);
int opt_f64(struct shapectx *c, const char *name, double *v);
int opt_bool(struct shapectx *c, const char *name, int *v);
/* Enum or string option; *v points into the node or the table. */
int opt_str(struct shapectx *c, const char *name, const char **v);
int opt_dtype(struct shapectx *c, const char *name, enum dtype *v);
/* Sequence of u32 (or the u32 alternative of a union, as one element),
 * at most max elements: *n set to the count. */
int opt_u32s(struct shapectx *c, const char *name, uint32_t *v, int max,
    int *n);
int opt_f64s(struct shapectx *c, const char *name, double *v, int max,
    int *n);
/* The type of an operand-valued option (bias, scale, ...), or NULL
 * when absent. */
const struct tdesc *opt_operand(struct shapectx *c, const char *name);

#endif
