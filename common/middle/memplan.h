/*
 * memplan: liveness analysis and arena layout of every intermediate
 * operand (the plan-memory pass).  The plan is recorded in the graph:
 * each node gets "arena": [byte offset of each output] and, when its
 * kernel needs workspace, "scratch": its byte offset; the graph gets
 * "memory": {"align", "arenaBytes", "lowerBoundBytes", "weightsBytes"}.
 */
#ifndef NNL_MEMPLAN_H
#define NNL_MEMPLAN_H

#include <stdint.h>

#include "graph.h"

struct memplan_opts {
	unsigned align;		/* bytes, a power of two */
	int inplace;		/* let elementwise ops overwrite an input */
	int verbose;
	/* workspace bytes node n's kernel needs (NULL: none needs any);
	 * -1 after an error */
	int64_t (*scratch)(struct graph *g, struct node *n);
};

struct memplan_stats {
	uint64_t arena;		/* bytes the layout needs */
	uint64_t lower;		/* most bytes live at any one step */
	uint64_t weights;	/* bytes of constants */
	int inplace;		/* outputs placed over an input */
};

/*
 * Plan g (nodes in a runnable order, every output typed).  Errors are
 * reported naming the node; returns 0 or -1.
 */
/* The ops whose output the planner may place over an input: in place
 * (elementwise, same size, the input dead after), or sharing the input's
 * bytes (reshape, identity).  The planner and the check share them. */
int memplan_inplace_op(enum op op);
/* Whether node n may write its output over its input j (memplan.c). */
int memplan_inplace_node(const struct graph *g, const struct node *n,
    int j);
int memplan_alias_op(enum op op);
/* Whether n is a concat whose output is its inputs' bytes one after the
 * other (every dimension before the axis 1), whose inputs the planner
 * may place where they go in it. */
int memplan_concat_flat(const struct node *n);
/* Whether slice n's output is a run of its input's bytes (every
 * dimension before the first it cuts 1, every one after it whole,
 * strides 1), which the planner may alias: its offset there in *delta
 * bytes. */
int memplan_slice_view(const struct graph *g, const struct node *n,
    uint64_t *delta);

int memplan(struct graph *g, const struct memplan_opts *o,
    struct memplan_stats *st);

/*
 * Check the plan g carries (memplan_verify.c) against g itself: every
 * offset an aligned integer, every operand (its size from its type)
 * and workspace (its size from scratch(), which may be NULL) inside
 * arenaBytes, no two buffers live at one step sharing a byte but for
 * the sharing memplan() does.  Returns 0, or -1 after an error naming
 * the node and operand, and the operand it collides with.
 */
int memplan_verify(struct graph *g, int64_t (*scratch)(struct graph *g,
    struct node *n));

/* The workspace node n's runtime kernel needs, for memplan_verify;
 * -1 after an error. */
int64_t memplan_scratch(struct graph *g, struct node *n);

/* Byte size of a typed operand. */
uint64_t memplan_bytes(const struct tdesc *t);

#endif
