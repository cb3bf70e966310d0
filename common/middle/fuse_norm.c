/*
 * fuse_norm: finds the layer normalization that exporters spell out
 * in elementwise ops, for nnl-fuse to make one layerNormalization node
 * of it (fuse.c).  PyTorch at opset 13 writes, and nnl-onnx-import's
 * LayerNormalization (opset 17) makes,
 *
 *	m = reduceMean(x, A, keep)	d = sub(x, m)
 *	v = reduceMean(pow(d, 2) or mul(d, d), A, keep)
 *	s = sqrt(add(v, eps))
 *	y = div(d, s) or mul(d', reciprocal(s)), d' d or sub(x, m) again
 *
 * then mul by a scale and add a bias, each optional (ConvNeXt's
 * channels-first LayerNorm: A = [1], scale [C, 1, 1]).  Only where it
 * is exactly that function: both means over the same axes with their
 * dimensions kept, eps and the exponent constants, every intermediate
 * read only inside the pattern, float32 throughout, and a scale and
 * bias that broadcast to x only along the axes.
 */
#include <stdlib.h>
#include <string.h>

#include "constdata.h"
#include "fuse_norm.h"

static struct node *
made(struct graph *g, const char *name, enum op op)
{
	struct operand *o = name ? graph_find(g, name) : NULL;

	return o && o->kind == OPND_NODE && o->producer->op == op &&
	    !o->producer->multi && o->producer->types ? o->producer : NULL;
}

/* The value of a one-element float32 constant, or -1 if name is not
 * one (no value the pattern wants is negative). */
static double
scalar(struct graph *g, const char *name)
{
	struct operand *o = graph_find(g, name);
	uint64_t nb;
	float *p, v;

	if (!o || o->kind != OPND_CONST || o->desc.dt != DT_FLOAT32 ||
	    tdesc_numel(&o->desc) != 1)
		return -1;
	if (o->init == INIT_WEIGHTS && !g->weights_file)
		return -1;
	if (!(p = const_bytes(g, o, &nb)))
		return -1;
	v = *p;
	free(p);
	return v >= 0 ? v : -1;
}

/* Readers of name are exactly n (graph outputs count). */
static int
only(const struct uses *u, const char *name, size_t n)
{
	return uses_count(u, name) == n;
}

/* The axes of a reduceMean that keeps its dimensions, as a mask of x's
 * axes (0: not such a node). */
static int64_t
meanaxes(struct node *n, int rank)
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(n->options, "axes");
	const cJSON *k = cJSON_GetObjectItemCaseSensitive(n->options,
	    "keepDimensions");
	const cJSON *it;
	int64_t m = 0;

	if (!cJSON_IsTrue(k) || !cJSON_IsArray(a))
		return 0;
	cJSON_ArrayForEach(it, a) {
		if (!cJSON_IsNumber(it) || it->valuedouble < 0 ||
		    it->valuedouble >= rank || it->valuedouble !=
		    (int)it->valuedouble || m >> (int)it->valuedouble & 1)
			return 0;
		m |= (int64_t)1 << (int)it->valuedouble;
	}
	return m;
}

/* The other operand of binary node n than name, or NULL. */
static const char *
other(const struct node *n, const char *name)
{
	if (n->nin != 2)
		return NULL;
	return !strcmp(n->in[0], name) ? n->in[1] :
	    !strcmp(n->in[1], name) ? n->in[0] : NULL;
}

/* Whether operand p broadcasts to x along the axes of mask only: its
 * dims right-aligned to x's are x's on those axes and 1 elsewhere. */
static int
alongaxes(struct graph *g, const char *p, const struct tdesc *x,
    int64_t mask)
{
	const struct tdesc *t = operand_type(graph_find(g, p));

	if (!t || t->dt != DT_FLOAT32 || t->rank > x->rank)
		return 0;
	for (int i = 0; i < t->rank; i++) {
		int d = x->rank - t->rank + i;

		if (t->dims[i] != (mask >> d & 1 ? x->dims[d] : 1))
			return 0;
	}
	return 1;
}

/* The normalization proper, ending at node y; 0 where it is not. */
static int
core(struct graph *g, const struct uses *u, struct node *y,
    struct fusenorm *f)
{
	struct node *sq, *rc = NULL, *d, *dd = NULL, *m, *q, *v, *ve;
	const char *num, *x;
	const struct tdesc *xt;
	int qreads;

	if (y->op == OP_DIV && y->nin == 2) {
		num = y->in[0];
		sq = made(g, y->in[1], OP_SQRT);
	} else if (y->op == OP_MUL && y->nin == 2) {
		int k = made(g, y->in[0], OP_RECIPROCAL) ? 0 : 1;

		if (!(rc = made(g, y->in[k], OP_RECIPROCAL)) ||
		    !only(u, rc->out[0], 1))
			return 0;
		num = y->in[1 - k];
		sq = made(g, rc->in[0], OP_SQRT);
	} else {
		return 0;
	}
	if (!sq || !only(u, sq->out[0], 1) ||
	    !(ve = made(g, sq->in[0], OP_ADD)) || ve->nin != 2 ||
	    !only(u, ve->out[0], 1))
		return 0;
	/* add(v, eps) or add(eps, v) */
	v = made(g, ve->in[0], OP_REDUCE_MEAN);
	if (!v || !only(u, v->out[0], 1) || (f->eps = scalar(g,
	    ve->in[1])) < 0) {
		v = made(g, ve->in[1], OP_REDUCE_MEAN);
		if (!v || !only(u, v->out[0], 1) ||
		    (f->eps = scalar(g, ve->in[0])) < 0)
			return 0;
	}
	if ((q = made(g, v->in[0], OP_POW))) {
		if (q->nin != 2 || scalar(g, q->in[1]) != 2)
			return 0;
		qreads = 1;
	} else if ((q = made(g, v->in[0], OP_MUL)) && q->nin == 2 &&
	    !strcmp(q->in[0], q->in[1])) {
		qreads = 2;
	} else {
		return 0;
	}
	if (!only(u, q->out[0], 1) || !(d = made(g, q->in[0], OP_SUB)) ||
	    d->nin != 2 ||
	    !(m = made(g, d->in[1], OP_REDUCE_MEAN)) ||
	    strcmp(m->in[0], d->in[0]))
		return 0;
	x = d->in[0];
	xt = operand_type(graph_find(g, x));
	if (!xt || xt->dt != DT_FLOAT32 ||
	    !(f->axes = meanaxes(m, xt->rank)) ||
	    meanaxes(v, xt->rank) != f->axes ||
	    !tdesc_same(&d->types[0], xt) || !tdesc_same(&y->types[0], xt))
		return 0;
	/* the numerator: d itself, or sub(x, m) once more */
	if (strcmp(num, d->out[0])) {
		if (!(dd = made(g, num, OP_SUB)) || !only(u, num, 1) ||
		    strcmp(dd->in[0], x) || strcmp(dd->in[1], m->out[0]) ||
		    !only(u, d->out[0], (size_t)qreads) ||
		    !only(u, m->out[0], 2))
			return 0;
	} else if (!only(u, d->out[0], (size_t)qreads + 1) ||
	    !only(u, m->out[0], 1)) {
		return 0;
	}
	f->x = x;
	f->nn = 0;
	f->nodes[f->nn++] = m;
	f->nodes[f->nn++] = d;
	f->nodes[f->nn++] = q;
	f->nodes[f->nn++] = v;
	f->nodes[f->nn++] = ve;
	f->nodes[f->nn++] = sq;
	if (rc)
		f->nodes[f->nn++] = rc;
	if (dd)
		f->nodes[f->nn++] = dd;
	f->nodes[f->nn++] = y;
	return 1;
}

/* Whether p is a constant or has exactly the dims of x's axes. */
static int
usable(struct graph *g, const char *p, const struct tdesc *x, int64_t axes)
{
	struct operand *o = graph_find(g, p);
	const struct tdesc *t = operand_type(o);
	int k = 0;

	if (o->kind == OPND_CONST)	/* its bytes at hand, to reshape */
		return o->init != INIT_WEIGHTS || g->weights_file;
	for (int i = 0; i < x->rank; i++)
		if (axes >> i & 1 && (k >= t->rank || t->dims[k++] !=
		    x->dims[i]))
			return 0;
	return k == t->rank;
}

/* The single reader of name if it is a binary op of kind op over an
 * operand that broadcasts to x along the axes (usable), the result
 * x's type. */
static struct node *
affine(struct graph *g, const struct uses *u, const char *name,
    enum op op, const struct tdesc *xt, int64_t axes, const char **p)
{
	struct uses_ent *e = uses_get(u, name);
	struct node *n;

	if (!e || e->n != 1 || e->nout || (n = e->rd[0])->op != op ||
	    n->multi || !n->types || !(*p = other(n, name)) ||
	    !strcmp(n->in[0], n->in[1]) || !tdesc_same(&n->types[0], xt) ||
	    !alongaxes(g, *p, xt, axes) || !usable(g, *p, xt, axes))
		return NULL;
	return n;
}

int
fusenorm_match(struct graph *g, const struct uses *u, struct node *y,
    struct fusenorm *f)
{
	const struct tdesc *xt;
	struct node *n;
	const char *cur;

	f->scale = f->bias = NULL;
	if (!y->types || y->multi || !core(g, u, y, f))
		return 0;
	xt = operand_type(graph_find(g, f->x));
	cur = y->out[0];
	if ((n = affine(g, u, cur, OP_MUL, xt, f->axes, &f->scale))) {
		f->nodes[f->nn++] = n;
		cur = n->out[0];
	}
	if ((n = affine(g, u, cur, OP_ADD, xt, f->axes, &f->bias)))
		f->nodes[f->nn++] = n;
	return 1;
}
