/*
 * shape: the driver of type inference and the helpers every op's rule
 * uses: option access with the op table's defaults, broadcasting,
 * dtype and rank checks, and error reporting that names the node.
 * The rules themselves are in shape_ew.c, shape_nn.c and
 * shape_tensor.c.
 */
#include "shape.h"
#include "escape.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "checked.h"

const enum dtype DTS_FLOAT[] = { DT_FLOAT32, DT_FLOAT16, DT_NONE };
/* the float types of the elementwise ops and reductions, nnl's
 * float64 and bfloat16 among them (the generic path computes in
 * double) */
const enum dtype DTS_EWFLOAT[] = { DT_FLOAT32, DT_FLOAT16, DT_FLOAT64,
    DT_BFLOAT16, DT_NONE };
const enum dtype DTS_ALL[] = { DT_FLOAT32, DT_FLOAT16, DT_INT32, DT_UINT32,
    DT_INT64, DT_UINT64, DT_INT8, DT_UINT8, DT_INT4, DT_UINT4, DT_FLOAT64,
    DT_INT16, DT_UINT16, DT_BFLOAT16, DT_NONE };
const enum dtype DTS_SIGNED[] = { DT_FLOAT32, DT_FLOAT16, DT_INT64,
    DT_INT32, DT_INT8, DT_FLOAT64, DT_INT16, DT_BFLOAT16, DT_NONE };

void
shape_out(struct shapectx *c, int k, enum dtype dt, int rank,
    const int64_t *dims)
{
	if (k < 0 || k >= c->n->nout)
		BUG("shape_out: no such output");
	node_set_type(c->n, k, dt, rank, dims);
}

int
shape_nout(struct shapectx *c, int n)
{
	if (c->n->nout != n)
		return shape_err(c, "%s produces %d output%s here, the node "
		    "names %d", c->d->name, n, n == 1 ? "" : "s", c->n->nout);
	return 0;
}

int
shape_want_dtype(struct shapectx *c, const char *what, const struct tdesc *t,
    const enum dtype *allowed)
{
	struct buf b = { 0 };

	for (const enum dtype *p = allowed; *p != DT_NONE; p++)
		if (*p == t->dt)
			return 0;
	for (const enum dtype *p = allowed; *p != DT_NONE; p++)
		buf_printf(&b, "%s%s", p == allowed ? "" : ", ",
		    dtype_name(*p));
	shape_err(c, "%s: data type %s is not allowed (%s)", what,
	    dtype_name(t->dt), b.s);
	free(b.s);
	return -1;
}

int
shape_want_rank(struct shapectx *c, const char *what, const struct tdesc *t,
    int rank)
{
	if (t->rank != rank)
		return shape_err(c, "%s: expected rank %d, found rank %d %s",
		    what, rank, t->rank, shape_str(t));
	return 0;
}

int
shape_broadcast(struct shapectx *c, const struct tdesc *a,
    const struct tdesc *b, int *rank, int64_t *dims)
{
	int r = a->rank > b->rank ? a->rank : b->rank;

	for (int i = 0; i < r; i++) {
		int ia = i - (r - a->rank), ib = i - (r - b->rank);
		int64_t da = ia >= 0 ? a->dims[ia] : 1;
		int64_t db = ib >= 0 ? b->dims[ib] : 1;

		if (da != db && da != 1 && db != 1) {
			char sa[256];

			snprintf(sa, sizeof sa, "%s", shape_str(a));
			return shape_err(c, "shapes %s and %s do not broadcast "
			    "(dimension %d: %lld against %lld)", sa,
			    shape_str(b), i, (long long)da, (long long)db);
		}
		dims[i] = da == 1 ? db : da;
	}
	*rank = r;
	return 0;
}

int
shape_unibroadcastable(const struct tdesc *a, const struct tdesc *b)
{
	if (a->rank > b->rank)
		return 0;
	for (int i = 0; i < a->rank; i++) {
		int64_t da = a->dims[a->rank - 1 - i];
		int64_t db = b->dims[b->rank - 1 - i];

		if (da != db && da != 1)
			return 0;
	}
	return 1;
}

const char *
shape_str(const struct tdesc *t)
{
	static char bufs[4][256];
	static int k;
	char *s = bufs[k++ & 3];
	size_t n = 0;

	n += (size_t)snprintf(s + n, 256 - n, "[");
	for (int i = 0; i < t->rank && n < 200; i++)
		n += (size_t)snprintf(s + n, 256 - n, "%s%lld", i ? ", " : "",
		    (long long)t->dims[i]);
	snprintf(s + n, 256 - n, "]");
	return s;
}

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
