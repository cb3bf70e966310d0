/*
 * shape_tensor: shape rules of data movement and reductions: reshape,
 * transpose, slice, split, concat, the gather and scatter families,
 * the reductions, argMin and argMax.
 */
#include <string.h>

#include "shape.h"

enum { MAXR = SHAPE_MAXRANK * 4 };

static const enum dtype INDEX[] = { DT_INT32, DT_UINT32, DT_INT64,
    DT_NONE };

static int
axisok(struct shapectx *c, const char *name, uint32_t axis, int rank)
{
	if ((int)axis >= rank)
		return shape_err(c, "option \"%s\": %u is out of range for rank "
		    "%d", name, axis, rank);
	return 0;
}

int
shape_reshape(struct shapectx *c)
{
	uint32_t ns[MAXR];
	int64_t d[MAXR];
	int n = 0;
	uint64_t count = 1;

	if (opt_u32s(c, "newShape", ns, MAXR, &n) < 0)
		return -1;
	for (int i = 0; i < n; i++) {
		if (!ns[i])
			return shape_err(c, "option \"newShape\": dimension %d "
			    "is 0", i);
		d[i] = ns[i];
		count *= ns[i];
	}
	if (count != tdesc_numel(c->in[0]))
		return shape_err(c, "option \"newShape\": %llu elements, the "
		    "input %s has %llu", (unsigned long long)count,
		    shape_str(c->in[0]),
		    (unsigned long long)tdesc_numel(c->in[0]));
	shape_out(c, 0, c->in[0]->dt, n, d);
	return 0;
}

int
shape_transpose(struct shapectx *c)
{
	const struct tdesc *x = c->in[0];
	uint32_t p[MAXR];
	int64_t d[MAXR];
	int n = 0, seen = 0;

	if (opt_u32s(c, "permutation", p, MAXR, &n) < 0)
		return -1;
	if (!opt_present(c, "permutation"))
		for (n = 0; n < x->rank; n++)
			p[n] = (uint32_t)(x->rank - 1 - n);
	if (n != x->rank)
		return shape_err(c, "option \"permutation\": %d values for rank "
		    "%d", n, x->rank);
	for (int i = 0; i < n; i++) {
		if ((int)p[i] >= n || (seen >> p[i] & 1))
			return shape_err(c, "option \"permutation\": not a "
			    "permutation of 0..%d (value %u)", n - 1, p[i]);
		seen |= 1 << p[i];
		d[i] = x->dims[p[i]];
	}
	shape_out(c, 0, x->dt, n, d);
	return 0;
}

int
shape_slice(struct shapectx *c)
{
	const struct tdesc *x = c->in[0];
	uint32_t st[MAXR], sz[MAXR], sd[MAXR];
	int64_t d[MAXR];
	int n1 = 0, n2 = 0, n3 = 0;

	if (opt_u32s(c, "starts", st, MAXR, &n1) < 0 ||
	    opt_u32s(c, "sizes", sz, MAXR, &n2) < 0 ||
	    opt_u32s(c, "strides", sd, MAXR, &n3) < 0)
		return -1;
	if (n1 != x->rank || n2 != x->rank)
		return shape_err(c, "options \"starts\" and \"sizes\" need %d "
		    "values each, found %d and %d", x->rank, n1, n2);
	if (opt_present(c, "strides") && n3 != x->rank)
		return shape_err(c, "option \"strides\": %d values for rank %d",
		    n3, x->rank);
	for (int i = 0; i < x->rank; i++) {
		uint32_t s = n3 ? sd[i] : 1;

		if (!sz[i])
			return shape_err(c, "option \"sizes\": dimension %d is "
			    "0", i);
		if (!s)
			return shape_err(c, "option \"strides\": dimension %d "
			    "is 0", i);
		if ((uint64_t)st[i] + sz[i] > (uint64_t)x->dims[i])
			return shape_err(c, "dimension %d: start %u + size %u "
			    "exceeds %lld", i, st[i], sz[i],
			    (long long)x->dims[i]);
		d[i] = (sz[i] + s - 1) / s;
	}
	shape_out(c, 0, x->dt, x->rank, d);
	return 0;
}

int
shape_split(struct shapectx *c)
{
	const struct tdesc *x = c->in[0];
	uint32_t sp[256], axis = 0;
	int n = 0;
	int64_t d[MAXR], sum = 0;
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(c->n->options,
	    "splits");

	if (opt_u32(c, "axis", &axis) < 0 || axisok(c, "axis", axis,
	    x->rank) || opt_u32s(c, "splits", sp, 256, &n) < 0)
		return -1;
	memcpy(d, x->dims, (size_t)x->rank * sizeof *d);
	if (cJSON_IsNumber(v)) {
		uint32_t k = sp[0];

		if (!k || x->dims[axis] % k)
			return shape_err(c, "option \"splits\": %u does not "
			    "divide dimension %u (%lld) evenly", k, axis,
			    (long long)x->dims[axis]);
		if (shape_nout(c, (int)k))
			return -1;
		d[axis] = x->dims[axis] / k;
		for (uint32_t i = 0; i < k; i++)
			shape_out(c, (int)i, x->dt, x->rank, d);
		return 0;
	}
	for (int i = 0; i < n; i++) {
		if (!sp[i])
			return shape_err(c, "option \"splits\": value %d is 0",
			    i);
		sum += sp[i];
	}
	if (sum != x->dims[axis])
		return shape_err(c, "option \"splits\": the sizes sum to %lld, "
		    "dimension %u is %lld", (long long)sum, axis,
		    (long long)x->dims[axis]);
	if (shape_nout(c, n))
		return -1;
	for (int i = 0; i < n; i++) {
		d[axis] = sp[i];
		shape_out(c, i, x->dt, x->rank, d);
	}
	return 0;
}

int
shape_concat(struct shapectx *c)
{
	const struct tdesc *x = c->in[0];
	uint32_t axis = 0;
	int64_t d[MAXR];

	if (opt_u32(c, "axis", &axis) < 0 || axisok(c, "axis", axis,
	    x->rank))
		return -1;
	memcpy(d, x->dims, (size_t)x->rank * sizeof *d);
	for (int k = 1; k < c->nin; k++) {
		const struct tdesc *y = c->in[k];

		if (y->dt != x->dt || y->rank != x->rank)
			return shape_err(c, "input %d is %s, input 0 is %s", k,
			    dtype_name(y->dt), dtype_name(x->dt));
		for (int i = 0; i < x->rank; i++)
			if (i != (int)axis && y->dims[i] != x->dims[i])
				return shape_err(c, "input %d: dimension %d is "
				    "%lld, input 0 has %lld", k, i,
				    (long long)y->dims[i],
				    (long long)x->dims[i]);
		d[axis] += y->dims[axis];
	}
	shape_out(c, 0, x->dt, x->rank, d);
	return 0;
}

int
shape_gather(struct shapectx *c)
{
	const struct tdesc *x = c->in[0], *ix = c->in[1];
	uint32_t axis = 0;
	int64_t d[MAXR];
	int r = 0;

	if (shape_want_dtype(c, "input \"indices\"", ix, INDEX) ||
	    opt_u32(c, "axis", &axis) < 0 ||
	    axisok(c, "axis", axis, x->rank))
		return -1;
	for (int i = 0; i < (int)axis; i++)
		d[r++] = x->dims[i];
	for (int i = 0; i < ix->rank; i++)
		d[r++] = ix->dims[i];
	for (int i = (int)axis + 1; i < x->rank; i++)
		d[r++] = x->dims[i];
	shape_out(c, 0, x->dt, r, d);
	return 0;
}

int
shape_gather_elements(struct shapectx *c)
{
	const struct tdesc *x = c->in[0], *ix = c->in[1];
	uint32_t axis = 0;

	if (shape_want_dtype(c, "input \"indices\"", ix, INDEX) ||
	    opt_u32(c, "axis", &axis) < 0 ||
	    axisok(c, "axis", axis, x->rank))
		return -1;
	if (ix->rank != x->rank)
		return shape_err(c, "input \"indices\": rank %d, input has %d",
		    ix->rank, x->rank);
	for (int i = 0; i < x->rank; i++)
		if (i != (int)axis && ix->dims[i] != x->dims[i])
			return shape_err(c, "input \"indices\": dimension %d "
			    "is %lld, input has %lld", i,
			    (long long)ix->dims[i], (long long)x->dims[i]);
	shape_out(c, 0, x->dt, ix->rank, ix->dims);
	return 0;
}

/* gatherND: indices [..., k] pick slices of input's last rank-k dims. */
int
shape_gather_nd(struct shapectx *c)
{
	const struct tdesc *x = c->in[0], *ix = c->in[1];
	int64_t d[MAXR], k;
	int r = 0;

	if (shape_want_dtype(c, "input \"indices\"", ix, INDEX))
		return -1;
	if (ix->rank < 1 || (k = ix->dims[ix->rank - 1]) > x->rank)
		return shape_err(c, "input \"indices\": the last dimension must "
		    "be at most the input's rank %d", x->rank);
	for (int i = 0; i < ix->rank - 1; i++)
		d[r++] = ix->dims[i];
	for (int i = (int)k; i < x->rank; i++)
		d[r++] = x->dims[i];
	shape_out(c, 0, x->dt, r, d);
	return 0;
}

int
shape_scatter_elements(struct shapectx *c)
{
	const struct tdesc *x = c->in[0], *ix = c->in[1], *u = c->in[2];
	uint32_t axis = 0;

	if (shape_want_dtype(c, "input \"indices\"", ix, INDEX) ||
	    opt_u32(c, "axis", &axis) < 0 ||
	    axisok(c, "axis", axis, x->rank))
		return -1;
	if (u->dt != x->dt)
		return shape_err(c, "input \"updates\" is %s, input is %s",
		    dtype_name(u->dt), dtype_name(x->dt));
	if (ix->rank != x->rank || u->rank != x->rank)
		return shape_err(c, "inputs \"indices\" and \"updates\" need "
		    "the input's rank %d", x->rank);
	for (int i = 0; i < x->rank; i++)
		if (ix->dims[i] != u->dims[i] || (i != (int)axis &&
		    ix->dims[i] != x->dims[i]))
			return shape_err(c, "input \"indices\" %s and "
			    "\"updates\" do not fit the input %s",
			    shape_str(ix), shape_str(x));
	shape_out(c, 0, x->dt, x->rank, x->dims);
	return 0;
}

int
shape_scatter_nd(struct shapectx *c)
{
	const struct tdesc *x = c->in[0], *ix = c->in[1], *u = c->in[2];
	int64_t k;

	if (shape_want_dtype(c, "input \"indices\"", ix, INDEX))
		return -1;
	if (u->dt != x->dt)
		return shape_err(c, "input \"updates\" is %s, input is %s",
		    dtype_name(u->dt), dtype_name(x->dt));
	if (ix->rank < 1 || (k = ix->dims[ix->rank - 1]) > x->rank)
		return shape_err(c, "input \"indices\": the last dimension must "
		    "be at most the input's rank %d", x->rank);
	/* updates: indices.shape[:-1] + input.shape[k:] */
	if (u->rank != ix->rank - 1 + x->rank - k)
		return shape_err(c, "input \"updates\" %s: expected rank %lld",
		    shape_str(u), (long long)(ix->rank - 1 + x->rank - k));
	for (int i = 0; i < ix->rank - 1; i++)
		if (u->dims[i] != ix->dims[i])
			return shape_err(c, "input \"updates\" %s does not fit "
			    "indices %s", shape_str(u), shape_str(ix));
	for (int i = (int)k; i < x->rank; i++)
		if (u->dims[ix->rank - 1 + i - k] != x->dims[i])
			return shape_err(c, "input \"updates\" %s does not fit "
			    "input %s", shape_str(u), shape_str(x));
	shape_out(c, 0, x->dt, x->rank, x->dims);
	return 0;
}

int
shape_reduce(struct shapectx *c)
{
	static const enum dtype FL[] = { DT_FLOAT32, DT_FLOAT16, DT_NONE };
	static const enum dtype NUMS[] = { DT_FLOAT32, DT_FLOAT16, DT_INT32,
	    DT_UINT32, DT_INT64, DT_UINT64, DT_INT8, DT_UINT8, DT_NONE };
	const struct tdesc *x = c->in[0];
	uint32_t axes[MAXR];
	int n = 0, keep = 0, seen = 0, r = 0;
	int64_t d[MAXR];
	enum op op = c->n->op;
	const enum dtype *ok = op == OP_REDUCE_L2 || op == OP_REDUCE_LOG_SUM ||
	    op == OP_REDUCE_LOG_SUM_EXP || op == OP_REDUCE_MEAN ? FL : NUMS;

	if (shape_want_dtype(c, "input \"input\"", x, ok) ||
	    opt_u32s(c, "axes", axes, MAXR, &n) < 0 ||
	    opt_bool(c, "keepDimensions", &keep) < 0)
		return -1;
	if (!opt_present(c, "axes"))
		for (n = 0; n < x->rank; n++)
			axes[n] = (uint32_t)n;
	for (int i = 0; i < n; i++) {
		if (axisok(c, "axes", axes[i], x->rank))
			return -1;
		if (seen >> axes[i] & 1)
			return shape_err(c, "option \"axes\": %u appears twice",
			    axes[i]);
		seen |= 1 << axes[i];
	}
	for (int i = 0; i < x->rank; i++)
		if (!(seen >> i & 1))
			d[r++] = x->dims[i];
		else if (keep)
			d[r++] = 1;
	shape_out(c, 0, x->dt, r, d);
	return 0;
}

int
shape_arg_minmax(struct shapectx *c)
{
	static const enum dtype OUT[] = { DT_INT32, DT_INT64, DT_NONE };
	const struct tdesc *x = c->in[0];
	uint32_t axis = 0;
	int keep = 0, r = 0;
	enum dtype odt = DT_INT32;
	int64_t d[MAXR];
	struct tdesc t = { DT_INT32, 0, NULL };

	if (opt_u32(c, "axis", &axis) < 0 || axisok(c, "axis", axis,
	    x->rank) || opt_bool(c, "keepDimensions", &keep) < 0 ||
	    opt_dtype(c, "outputDataType", &odt) < 0)
		return -1;
	t.dt = odt;
	if (shape_want_dtype(c, "option \"outputDataType\"", &t, OUT))
		return -1;
	for (int i = 0; i < x->rank; i++)
		if (i != (int)axis)
			d[r++] = x->dims[i];
		else if (keep)
			d[r++] = 1;
	shape_out(c, 0, odt, r, d);
	return 0;
}
