/*
 * shape_rule: what each op's shape rule uses.  A rule (the last column
 * of ops.def and ops_nnl.def) is a function shape_<rule>() in
 * shape_ew.c, shape_nn.c, shape_nd.c, shape_num.c or shape_tensor.c that
 * reads its inputs' types and its options through the helpers below,
 * checks them as the specification's "create an MLOperand" steps do,
 * and sets the types of its outputs.  Errors name the node, the option
 * and the offending value.  The driver (shape.c) calls the rules; the
 * rules never call the driver.
 */
#ifndef NNL_SHAPE_RULE_H
#define NNL_SHAPE_RULE_H

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

/* Lists of u32 options hold this many values at most (json.c reads
 * shapes of rank 32 at most). */
enum { SHAPE_MAXLIST = 32 };
/*
 * A sequence option that must hold n values ("If its size is not n,
 * then throw"): v gets them, or dflt in every place when the option is
 * absent; nonzero refuses a 0 (strides, dilations, windowDimensions).
 * 1 when present, 0 when absent, -1 after reporting.
 */
int shape_fixed(struct shapectx *c, const char *name, uint32_t *v, int n,
    uint32_t dflt, int nonzero);
/* "[1, 2]" of n values, in one of four rotating buffers, for messages. */
const char *shape_u32str(const uint32_t *v, int n);
/* a * b, saturating far above any valid dimension. */
int64_t shape_mulsat(int64_t a, int64_t b);

#endif
