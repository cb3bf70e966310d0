/*
 * shape: the driver of type inference: each node's rule in dependency
 * order, the types a graph gives checked against the inferred ones.
 * The rules and their helpers: shape_rule.h.
 */
#include "shape.h"
#include "escape.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "checked.h"

typedef int rulefn(struct shapectx *);

static rulefn *const rules[] = {
#define OP(id, name, operands, params, options, nout, rule) shape_##rule,
#include "ops.def"
#include "ops_nnl.def"
#undef OP
};

/*
 * Empty tensors (nnl-graph(5)): a node whose outputs hold no elements
 * computes nothing and may read anything; one that computes values
 * from an empty operand must be an op with a value for none: a sum (0),
 * a product (1), their kin, or a concat (the empty piece adds
 * nothing).  Others (reduceMax, reduceMean, a matmul over an empty
 * axis, ...) are refused, naming the node.
 */
static int
emptyin(struct shapectx *c)
{
	const struct node *n = c->n;
	int someout = 0;

	for (int k = 0; k < n->nout; k++)
		someout |= tdesc_numel(&n->types[k]) != 0;
	if (!someout)
		return 0;
	switch (n->op) {
	case OP_CONCAT: case OP_REDUCE_L1: case OP_REDUCE_L2:
	case OP_REDUCE_LOG_SUM: case OP_REDUCE_LOG_SUM_EXP:
	case OP_REDUCE_PRODUCT: case OP_REDUCE_SUM: case OP_REDUCE_SUM_SQUARE:
		return 0;
	default:
		break;
	}
	for (int i = 0; i < n->nin; i++)
		if (*n->in[i] && c->in[i] && tdesc_numel(c->in[i]) == 0)
			return shape_err(c, "input \"%s\" is empty: %s has no "
			    "value to give for no elements",
			    escape_tty_name(n->in[i]), c->d->name);
	return 0;
}

int
shape_node(struct graph *g, struct node *n)
{
	struct shapectx c = { g, n, op_get(n->op), n->nin, NULL, 0 };
	struct tdesc *given = n->types;
	const char **reads;
	int nr, rc = 0;

	if (!c.d)
		BUG("unknown op after validation");
	c.in = xcalloc((size_t)n->nin + 1, sizeof *c.in);
	for (int i = 0; i < n->nin; i++)
		c.in[i] = operand_type(graph_find(g, n->in[i]));
	nr = node_reads(n, &reads);
	for (int i = 0; i < nr; i++) {
		const struct tdesc *t = operand_type(graph_find(g, reads[i]));

		if (t->rank < 0 || t->dt == DT_NONE) {
			free(reads);
			free(c.in);
			BUG("input not typed in dependency order");
		}
	}
	free(reads);
	n->types = NULL;
	if (rules[n->op](&c) != 0 || c.bad) {
		rc = -1;
	} else {
		for (int k = 0; k < n->nout; k++)
			if (!n->types || n->types[k].rank < 0)
				BUG("rule left an output untyped");
		for (int k = 0; k < n->nout; k++) {
			char *why = checked_tensor(&n->types[k]);

			if (why) {
				shape_err(&c, "output \"%s\": %s", n->out[k],
				    why);
				free(why);
				rc = -1;
			}
		}
		if (rc == 0 && emptyin(&c) != 0)
			rc = -1;
		for (int k = 0; given && k < n->nout; k++)
			if (!tdesc_same(&given[k], &n->types[k])) {
				char *a = tdesc_str(&given[k]);
				char *b = tdesc_str(&n->types[k]);

				shape_err(&c, "output \"%s\": the graph says "
				    "%s, the %s rule gives %s",
				    escape_tty_name(n->out[k]), a, c.d->name,
				    b);
				free(a);
				free(b);
				rc = -1;
			}
	}
	if (given) {
		for (int k = 0; k < n->nout; k++)
			free(given[k].dims);
		free(given);
	}
	free(c.in);
	return rc;
}

int
shape_recheck(struct graph *g)
{
	for (size_t i = 0; i < g->nnodes; i++)
		if (!g->nodes[i]->types)
			return 0;
	return shape_infer(g);
}

/* Nodes in dependency order; a node whose input failed is skipped
 * (its error is already out); nodes in a cycle are named. */
int
shape_infer(struct graph *g)
{
	size_t nn = g->nnodes, placed;
	size_t *order = xmalloc((nn + 1) * sizeof *order);
	char *failed = xcalloc(nn + 1, 1);
	int nerr = 0;

	placed = graph_toposort(g, order);
	for (size_t k = 0; k < placed; k++) {
		struct node *n = g->nodes[order[k]];
		const char **reads;
		int nr = node_reads(n, &reads), skip = 0;

		for (int i = 0; i < nr; i++) {
			struct operand *o = graph_find(g, reads[i]);

			if (o->kind == OPND_NODE && failed[o->producer->index])
				skip = 1;
		}
		free(reads);
		if (!skip && !op_get(n->op)) {
			/* an op kept by pass-through (or a literal): what it
			 * makes has no type; without pass-through, an error */
			failed[order[k]] = 1;
			if (!graph_passthrough) {
				struct srcloc l = graph_loc(g, n->pos);

				error_at(&l, "node \"%s\": %s \"%s\" has no WebNN "
				    "semantics to infer types from",
				    escape_tty_name(n->id),
				    strcmp(n->opname, LITERAL_OP) ? "op" :
				    "a literal, op", escape_tty_name(n->opname));
				nerr++;
			}
			continue;
		}
		if (skip || shape_node(g, n) != 0) {
			failed[order[k]] = 1;
			nerr += !skip;
		}
	}
	if (placed < nn) {
		struct buf b = { 0 };
		char *in = xcalloc(nn + 1, 1);
		int k = 0;

		for (size_t i = 0; i < placed; i++)
			in[order[i]] = 1;
		for (size_t i = 0; i < nn; i++)
			if (!in[i] && k++ < 10)
				buf_printf(&b, "%s\"%s\"", k > 1 ? ", " : "",
				    escape_tty_name(g->nodes[i]->id));
		error_at(&(struct srcloc){ g->src, 0, 0, NULL, 0 },
		    "cycle: nodes %s%s are in or depend on a cycle", b.s,
		    k > 10 ? ", ..." : "");
		free(b.s);
		free(in);
		nerr++;
	}
	free(order);
	free(failed);
	return nerr;
}
