/*
 * kern_tensor: prepares the data-movement and reduction kernels of
 * rt/tensor/tensor.c: reshape, transpose, slice, split, concat, the gather and
 * scatter families, the reductions, argMin and argMax.
 */
#include <stdlib.h>
#include <string.h>

#include "kernel.h"
#include "opts.h"

static int64_t
esize(const struct tdesc *t)
{
	return dtype_bits(t->dt) >= 8 ? dtype_bits(t->dt) / 8 : 0;
}

static int
needbytes(struct kctx *c, const struct tdesc *t)
{
	if (!esize(t))
		return shape_err(c->sc, "%s on %s data is not supported",
		    c->d->name, dtype_name(t->dt));
	return 0;
}

int
prepare_reshape(struct kctx *c)
{
	if (needbytes(c, c->in[0]))
		return -1;
	kip(c, (int64_t)dtype_bytes(c->in[0]->dt, tdesc_numel(c->in[0])));
	kin(c, c->n->in[0]);
	return kset(c, "copy");
}

int
prepare_transpose(struct kctx *c)
{
	const struct tdesc *t = c->in[0];
	uint32_t perm[NNL_MAXRANK];
	int np = 0;

	if (needbytes(c, t) || opt_u32s(c->sc, "permutation", perm,
	    NNL_MAXRANK, &np) < 0)
		return -1;
	if (t->rank > NNL_MAXRANK)
		return shape_err(c->sc, "rank %d exceeds %d", t->rank,
		    NNL_MAXRANK);
	kip(c, esize(t));
	kshape(c, t);
	for (int i = 0; i < t->rank; i++)
		kip(c, np ? (int64_t)perm[i] : (int64_t)(t->rank - 1 - i));
	kin(c, c->n->in[0]);
	return kset(c, "transpose");
}

int
prepare_slice(struct kctx *c)
{
	const struct tdesc *t = c->in[0];
	uint32_t st[NNL_MAXRANK], sz[NNL_MAXRANK], sd[NNL_MAXRANK];
	int n1, n2, n3 = 0;

	if (needbytes(c, t) || t->rank > NNL_MAXRANK ||
	    opt_u32s(c->sc, "starts", st, NNL_MAXRANK, &n1) < 0 ||
	    opt_u32s(c->sc, "sizes", sz, NNL_MAXRANK, &n2) < 0 ||
	    opt_u32s(c->sc, "strides", sd, NNL_MAXRANK, &n3) < 0)
		return -1;
	kip(c, esize(t));
	kshape(c, t);
	for (int i = 0; i < t->rank; i++)
		kip(c, st[i]);
	for (int i = 0; i < t->rank; i++)
		kip(c, sz[i]);
	for (int i = 0; i < t->rank; i++)
		kip(c, n3 ? sd[i] : 1);
	kin(c, c->n->in[0]);
	return kset(c, "slice");
}

/* Elements before axis, after it. */
static void
around(const struct tdesc *t, int axis, int64_t *outer, int64_t *inner)
{
	*outer = *inner = 1;
	for (int i = 0; i < axis; i++)
		*outer *= t->dims[i];
	for (int i = axis + 1; i < t->rank; i++)
		*inner *= t->dims[i];
}

int
prepare_split(struct kctx *c)
{
	const struct tdesc *t = c->in[0];
	uint32_t axis = 0;
	int64_t outer, inner;

	if (needbytes(c, t) || opt_u32(c->sc, "axis", &axis) < 0)
		return -1;
	around(t, (int)axis, &outer, &inner);
	kip(c, esize(t));
	kip(c, outer);
	kip(c, t->dims[axis]);
	kip(c, inner);
	kip(c, c->n->nout);
	for (int k = 0; k < c->n->nout; k++)
		kip(c, c->out[k].dims[axis]);
	kin(c, c->n->in[0]);
	return kset(c, "split");
}

int
prepare_concat(struct kctx *c)
{
	const struct tdesc *o = &c->out[0];
	uint32_t axis = 0;
	int64_t outer, inner;

	if (needbytes(c, o) || opt_u32(c->sc, "axis", &axis) < 0)
		return -1;
	around(o, (int)axis, &outer, &inner);
	kip(c, esize(o));
	kip(c, outer);
	kip(c, o->dims[axis]);
	kip(c, inner);
	kip(c, c->n->nin);
	for (int k = 0; k < c->n->nin; k++) {
		kip(c, c->in[k]->dims[axis]);
		kin(c, c->n->in[k]);
	}
	return kset(c, "concat");
}

int
prepare_gather(struct kctx *c)
{
	const struct tdesc *t = c->in[0];
	uint32_t axis = 0;
	int64_t outer, inner;

	if (needbytes(c, t) || opt_u32(c->sc, "axis", &axis) < 0)
		return -1;
	around(t, (int)axis, &outer, &inner);
	kip(c, esize(t));
	kip(c, kdt(c->in[1]));
	kip(c, outer);
	kip(c, t->dims[axis]);
	kip(c, inner);
	kip(c, (int64_t)tdesc_numel(c->in[1]));
	kin(c, c->n->in[0]);
	kin(c, c->n->in[1]);
	return kset(c, "gather");
}

/* A scatter's reduction: 0 none (WebNN's), 1 add, 2 mul, 3 max, 4 min
 * (nnl's scatterElementsReduce and scatterNDReduce). */
static int
reduction(struct kctx *c, int64_t *red)
{
	static const char *const names[] = { "add", "mul", "max", "min" };
	const char *r = NULL;

	*red = 0;
	if (!op_get(c->n->op)->nnl)
		return 0;
	if (opt_str(c->sc, "reduction", &r) < 0 || !r)
		return -1;
	for (int i = 0; i < 4; i++)
		if (strcmp(r, names[i]) == 0)
			*red = i + 1;
	return 0;
}

/* es, index type, rank, input dims, index dims, axis; for scatters
 * the reduction and the element type */
static int
elements(struct kctx *c, const char *kernel, int nin)
{
	const struct tdesc *t = c->in[0], *x = c->in[1];
	uint32_t axis = 0;
	int64_t red;

	if (needbytes(c, t) || opt_u32(c->sc, "axis", &axis) < 0 ||
	    reduction(c, &red))
		return -1;
	kip(c, esize(t));
	kip(c, kdt(x));
	kshape(c, t);
	for (int i = 0; i < x->rank; i++)
		kip(c, x->dims[i]);
	kip(c, axis);
	kip(c, red);
	kip(c, kdt(t));
	for (int i = 0; i < nin; i++)
		kin(c, c->n->in[i]);
	return kset(c, kernel);
}

int
prepare_gather_elements(struct kctx *c)
{
	return elements(c, "gather_elements", 2);
}

int
prepare_scatter_elements(struct kctx *c)
{
	return elements(c, "scatter_elements", 3);
}

/* es, index type, rank, input dims, k, tuples; for scatters the
 * reduction and the element type */
static int
nd(struct kctx *c, const char *kernel, int nin)
{
	const struct tdesc *t = c->in[0], *x = c->in[1];
	int64_t k = x->rank ? x->dims[x->rank - 1] : 0, red;

	if (needbytes(c, t) || reduction(c, &red))
		return -1;
	kip(c, esize(t));
	kip(c, kdt(x));
	kshape(c, t);
	kip(c, k);
	kip(c, k ? (int64_t)tdesc_numel(x) / k : 0);
	kip(c, red);
	kip(c, kdt(t));
	for (int i = 0; i < nin; i++)
		kin(c, c->n->in[i]);
	return kset(c, kernel);
}

int
prepare_gather_nd(struct kctx *c)
{
	return nd(c, "gather_nd", 2);
}

int
prepare_scatter_nd(struct kctx *c)
{
	return nd(c, "scatter_nd", 3);
}

/* nnl's scatterElementsReduce and scatterNDReduce: WebNN's kernels,
 * told the reduction. */
int
prepare_scatter_elements_reduce(struct kctx *c)
{
	return elements(c, "scatter_elements", 3);
}

int
prepare_scatter_nd_reduce(struct kctx *c)
{
	return nd(c, "scatter_nd", 3);
}

int
prepare_reduce(struct kctx *c)
{
	static const enum op ops[] = { OP_REDUCE_L1, OP_REDUCE_L2,
	    OP_REDUCE_LOG_SUM, OP_REDUCE_LOG_SUM_EXP, OP_REDUCE_MAX,
	    OP_REDUCE_MEAN, OP_REDUCE_MIN, OP_REDUCE_PRODUCT, OP_REDUCE_SUM,
	    OP_REDUCE_SUM_SQUARE };
	const struct tdesc *t = c->in[0];
	uint32_t axes[NNL_MAXRANK];
	int na = 0, op = 0, isf = dtype_isfloat(t->dt);
	int64_t mask = 0;

	while (ops[op] != c->n->op)
		op++;
	if (needbytes(c, t) || t->rank > NNL_MAXRANK ||
	    opt_u32s(c->sc, "axes", axes, NNL_MAXRANK, &na) < 0)
		return -1;
	if (!opt_present(c->sc, "axes"))
		mask = ((int64_t)1 << t->rank) - 1;
	for (int i = 0; i < na; i++)
		mask |= (int64_t)1 << axes[i];
	kip(c, op);
	kip(c, kdt(t));
	kshape(c, t);
	kip(c, mask);
	kin(c, c->n->in[0]);
	c->k->scratch = 8 * (tdesc_numel(&c->out[0]) + 1) *
	    (op == 3 ? 2 : 1);
	if (!isf && (op == 1 || op == 2 || op == 3 || op == 5))
		return shape_err(c->sc, "%s of %s data is not supported",
		    c->d->name, dtype_name(t->dt));
	return kset(c, isf ? "reduce" : "reduce_int");
}

int
prepare_arg_minmax(struct kctx *c)
{
	const struct tdesc *t = c->in[0];
	uint32_t axis = 0;
	int64_t outer, inner;

	if (needbytes(c, t) || opt_u32(c->sc, "axis", &axis) < 0)
		return -1;
	around(t, (int)axis, &outer, &inner);
	kip(c, kdt(t));
	kip(c, kdt(&c->out[0]));
	kip(c, outer);
	kip(c, t->dims[axis]);
	kip(c, inner);
	kip(c, c->n->op == OP_ARG_MAX);
	kin(c, c->n->in[0]);
	return kset(c, "argminmax");
}

/* nnl's topK: a merge sort of each row's indices (stable, so equal
 * values keep the lower index first), in a workspace of two index
 * arrays the length of the axis. */
int
prepare_top_k(struct kctx *c)
{
	const struct tdesc *t = c->in[0];
	uint32_t axis = 0, k = 0;
	int largest = 1;
	int64_t outer, inner;

	if (needbytes(c, t) || opt_u32(c->sc, "axis", &axis) < 0 ||
	    opt_u32(c->sc, "k", &k) < 0 ||
	    opt_bool(c->sc, "largest", &largest) < 0)
		return -1;
	around(t, (int)axis, &outer, &inner);
	kip(c, kdt(t));
	kip(c, kdt(&c->out[1]));
	kip(c, esize(t));
	kip(c, outer);
	kip(c, t->dims[axis]);
	kip(c, inner);
	kip(c, k);
	kip(c, largest != 0);
	kin(c, c->n->in[0]);
	c->k->scratch = 2 * 8 * (uint64_t)(t->dims[axis] + 1);
	return kset(c, "topk");
}

/* nnl's nonZero. */
int
prepare_non_zero(struct kctx *c)
{
	const struct tdesc *t = c->in[0];

	if (needbytes(c, t))
		return -1;
	if (t->rank > NNL_MAXRANK)
		return shape_err(c->sc, "rank %d exceeds %d", t->rank,
		    NNL_MAXRANK);
	kip(c, kdt(t));
	kshape(c, t);
	kin(c, c->n->in[0]);
	return kset(c, "non_zero");
}

/* nnl's unique: slices along the axis (items, without one). */
int
prepare_unique(struct kctx *c)
{
	const struct tdesc *t = c->in[0];
	uint32_t axis = 0;
	int sorted = 1, has;
	int64_t outer = 1, inner = 1, n = tdesc_numel(t);

	if (needbytes(c, t) || (has = opt_u32(c->sc, "axis", &axis)) < 0 ||
	    opt_bool(c->sc, "sorted", &sorted) < 0)
		return -1;
	if (has) {
		around(t, (int)axis, &outer, &inner);
		n = t->dims[axis];
	}
	kip(c, kdt(t));
	kip(c, esize(t));
	kip(c, outer);
	kip(c, n);
	kip(c, inner);
	kip(c, sorted != 0);
	kip(c, has ? (int64_t)axis : 0);
	kshape(c, &c->out[0]);
	kin(c, c->n->in[0]);
	c->k->scratch = 4 * 8 * (uint64_t)(n + 1);
	return kset(c, "unique");
}

/* nnl's range: its size checked against the bound at run time
 * (kcall.bounded). */
int
prepare_range(struct kctx *c)
{
	kip(c, kdt(c->in[0]));
	kip(c, c->out[0].dims[0]);
	for (int i = 0; i < 3; i++)
		kin(c, c->n->in[i]);
	c->k->bounded = 1;
	return kset(c, "range");
}

/* nnl's constantOfShape: the value in the output's type (fp), its
 * size checked against the bound at run time (kcall.bounded). */
int
prepare_constant_of_shape(struct kctx *c)
{
	const struct tdesc *t = &c->out[0];
	double v = 0;

	if (opt_f64(c->sc, "value", &v) < 0)
		return -1;
	if (t->rank > NNL_MAXRANK)
		return shape_err(c->sc, "rank %d exceeds %d", t->rank,
		    NNL_MAXRANK);
	kip(c, kdt(t));
	kip(c, t->rank);
	kip(c, t->dims[0]);
	kfp(c, v);
	kin(c, c->n->in[0]);
	c->k->bounded = 1;
	return kset(c, "constant_of_shape");
}

/* nnl's melWeightMatrix: the output's type, the bound, the integer and
 * float inputs' types; its size checked against the bound at run time
 * (kcall.bounded). */
int
prepare_mel_weight_matrix(struct kctx *c)
{
	kip(c, kdt(&c->out[0]));
	kip(c, c->out[0].dims[0]);
	kip(c, kdt(c->in[0]));
	kip(c, kdt(c->in[3]));
	for (int i = 0; i < 5; i++)
		kin(c, c->n->in[i]);
	c->k->bounded = 1;
	return kset(c, "mel_weight_matrix");
}
