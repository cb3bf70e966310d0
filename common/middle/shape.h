/*
 * shape: type and shape inference by the W3C WebNN rules.  Each op's
 * rule (the last column of ops.def) is a function shape_<rule>() that
 * reads its inputs' types and its options through the helpers below,
 * checks them as the specification's "create an MLOperand" steps do,
 * and sets the types of its outputs.  Errors name the node, the option
 * and the offending value.
 */
#ifndef NNL_SHAPE_H
#define NNL_SHAPE_H

#include <stdint.h>

#include "graph.h"
#include "opts.h"

enum { SHAPE_MAXRANK = 8 };	/* WebNN implementations' limit is lower */


/* A rule: 0 on success, -1 after reporting through shape_err. */
#define OP(id, name, operands, params, options, nout, rule) \
	int shape_##rule(struct shapectx *c);
#include "ops.def"
#include "ops_nnl.def"
#undef OP


/* Set output k's type (k < n->nout; a rule with a variable count first
 * calls shape_nout). */
void shape_out(struct shapectx *c, int k, enum dtype dt, int rank,
    const int64_t *dims);
/* Require exactly n outputs (split, gru, lstm): error otherwise. */
int shape_nout(struct shapectx *c, int n);


/* Shared checks. Each reports and returns -1, or returns 0. */
/* dtype of input i (or of option operand, name for messages) is one of
 * the listed types (DT_NONE-terminated). */
int shape_want_dtype(struct shapectx *c, const char *what,
    const struct tdesc *t, const enum dtype *allowed);
int shape_want_rank(struct shapectx *c, const char *what,
    const struct tdesc *t, int rank);
/* Bidirectional broadcast of a and b into out (rank, dims); -1 after
 * reporting when incompatible. */
int shape_broadcast(struct shapectx *c, const struct tdesc *a,
    const struct tdesc *b, int *rank, int64_t *dims);
/* Can a be unidirectionally broadcast to b? */
int shape_unibroadcastable(const struct tdesc *a, const struct tdesc *b);
/* Text of a shape "[1, 2, 3]" in a static rotating buffer, for messages. */
const char *shape_str(const struct tdesc *t);

/* Dtype sets used by many ops. */
extern const enum dtype DTS_FLOAT[];	/* float32 float16 */
extern const enum dtype DTS_EWFLOAT[];
extern const enum dtype DTS_ALL[];	/* every WebNN type */
extern const enum dtype DTS_SIGNED[];	/* float32 float16 int64 int32 int8 */

/*
 * Infer every node's output types, in dependency order, checking any
 * types the graph already gives.  Returns the number of errors.
 */
int shape_infer(struct graph *g);
/* For passes that index memory by recorded types (nnl-plan-memory,
 * nnl-emit-c): when every node has types, infer them again and refuse
 * any that differ, as shape_infer does; 0 when they agree or some node
 * is untyped (which the caller refuses in its own words). */
int shape_recheck(struct graph *g);
/* Infer one node whose inputs are typed (the name table current).
 * Types the node came with are checked against the inferred ones.
 * 0, or -1 after reporting. */
int shape_node(struct graph *g, struct node *n);

#endif
