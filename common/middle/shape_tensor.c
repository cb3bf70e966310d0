/*
 * shape_tensor: the shape rules of data movement and reductions:
 * reshape, transpose, slice, split, concat, the gather and scatter
 * families, the ten reductions, argMin and argMax.  Each rule takes the
 * validation steps of its op's "method steps" in the WebNN
 * specification in their order, so the error reported is the first
 * step that fails; messages name the option or operand at fault and
 * the value found there.  No rank limit is imposed (the specification
 * has none): lists and shapes are sized from the node itself.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shape_rule.h"
#include "escape.h"

/* A valid dimension: above zero and in the range of a long. */
#define MAXDIM INT64_C(2147483647)
/* A valid tensor count: 1 to 8192 (split's outputs, concat's inputs). */
#define MAXTENSORS 8192

static const enum dtype INDEX[] = { DT_INT32, DT_UINT32, DT_INT64,
    DT_NONE };

/* "[1, 2, 3]" of n values, in one of four rotating buffers; a long list
 * is cut short with "...". */
static const char *
u32str(const uint32_t *v, int n)
{
	static char bufs[4][256];
	static int k;
	char *s = bufs[k++ & 3];
	size_t len = 1;
	int i;

	strcpy(s, "[");
	for (i = 0; i < n && len < 200; i++)
		len += (size_t)snprintf(s + len, sizeof bufs[0] - len, "%s%u",
		    i ? ", " : "", v[i]);
	snprintf(s + len, sizeof bufs[0] - len, "%s]", i < n ? ", ..." : "");
	return s;
}

/*
 * A u32 list option (or a u32 one, as one value) read whole, however
 * long: *v is malloc'd, free it; NULL after an error.  0 absent,
 * 1 present, -1 after reporting.
 */
static int
u32list(struct shapectx *c, const char *name, uint32_t **v, int *n)
{
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(c->n->options,
	    name);
	int max = cJSON_IsArray(m) ? cJSON_GetArraySize(m) : 1;
	int r;

	*v = xmalloc((size_t)(max + 1) * sizeof **v);
	r = opt_u32s(c, name, *v, max, n);
	if (r < 0) {
		free(*v);
		*v = NULL;
	}
	return r;
}

static int64_t *
dimsnew(int rank)
{
	return xmalloc(((size_t)(rank > 0 ? rank : 0) + 1) * sizeof(int64_t));
}

/* Set output k to dt and the n dims in d, then free d. */
static int
outfree(struct shapectx *c, int k, enum dtype dt, int n, int64_t *d)
{
	shape_out(c, k, dt, n, d);
	free(d);
	return 0;
}

/* Operand i by its WebNN name: input "indices". */
static const char *
role(struct shapectx *c, int i)
{
	static char bufs[2][64];
	static int k;
	char *s = bufs[k++ & 1];

	snprintf(s, sizeof bufs[0], "input \"%s\"", c->d->operands[i]);
	return s;
}

static int
axisok(struct shapectx *c, const char *name, uint32_t axis,
    const struct tdesc *t)
{
	if ((int64_t)axis >= t->rank)
		return shape_err(c, "option \"%s\": %u is out of range for "
		    "rank %d (input \"input\" %s)", name, axis, t->rank,
		    shape_str(t));
	return 0;
}

/* The "1 to N" allowed ranks: no scalar. */
static int
notscalar(struct shapectx *c, int i)
{
	if (c->in[i]->rank < 1)
		return shape_err(c, "%s: a scalar (rank 0), expected rank 1 "
		    "or more", role(c, i));
	return 0;
}

static int
samedtype(struct shapectx *c, int a, int b)
{
	if (c->in[a]->dt != c->in[b]->dt)
		return shape_err(c, "%s is %s, %s is %s", role(c, a),
		    dtype_name(c->in[a]->dt), role(c, b),
		    dtype_name(c->in[b]->dt));
	return 0;
}

static int
samerank(struct shapectx *c, int a, int b)
{
	if (c->in[a]->rank != c->in[b]->rank)
		return shape_err(c, "%s: rank %d %s, %s has rank %d %s",
		    role(c, a), c->in[a]->rank, shape_str(c->in[a]),
		    role(c, b), c->in[b]->rank, shape_str(c->in[b]));
	return 0;
}

/* An index operand: int32, uint32 or int64. */
static int
indices(struct shapectx *c, int i)
{
	return shape_want_dtype(c, role(c, i), c->in[i], INDEX);
}

/* newShape: valid dimensions holding the input's element count. */
static int
reshape1(struct shapectx *c, const uint32_t *ns, int n)
{
	const struct tdesc *x = c->in[0];
	uint64_t count = 1, numel = tdesc_numel(x);
	int64_t *d;

	for (int i = 0; i < n; i++) {
		if (ns[i] == 0 || ns[i] > MAXDIM)
			return shape_err(c, "option \"newShape\": %s: entry %d "
			    "(%u) is not a valid dimension (1 to %lld)",
			    u32str(ns, n), i, ns[i], (long long)MAXDIM);
		count = count > UINT64_MAX / ns[i] ? UINT64_MAX :
		    count * ns[i];
	}
	if (count != numel || numel == UINT64_MAX)
		return shape_err(c, "option \"newShape\": %llu elements, the "
		    "input %s has %llu (newShape %s)",
		    (unsigned long long)count, shape_str(x),
		    (unsigned long long)numel, u32str(ns, n));
	d = dimsnew(n);
	for (int i = 0; i < n; i++)
		d[i] = ns[i];
	return outfree(c, 0, x->dt, n, d);
}

/* The current specification has no placeholder value: every entry of
 * newShape is a dimension, and 0 is not a valid one. */
int
shape_reshape(struct shapectx *c)
{
	uint32_t *ns;
	int n = 0, rc = -1;

	if (u32list(c, "newShape", &ns, &n) >= 0)
		rc = reshape1(c, ns, n);
	free(ns);
	return rc;
}

static int
transpose1(struct shapectx *c, const uint32_t *p, int n)
{
	const struct tdesc *x = c->in[0];
	char *seen;
	int64_t *d;

	if (n != x->rank)
		return shape_err(c, "option \"permutation\": %s has %d "
		    "value%s, input \"input\" %s has rank %d", u32str(p, n), n,
		    n == 1 ? "" : "s", shape_str(x), x->rank);
	for (int i = 0; i < n; i++)
		if ((int64_t)p[i] >= n)
			return shape_err(c, "option \"permutation\": not a "
			    "permutation of 0..%d (%s: %u is out of range)",
			    n - 1, u32str(p, n), p[i]);
	seen = xcalloc((size_t)n + 1, 1);
	for (int i = 0; i < n; i++)
		if (seen[p[i]]++) {
			free(seen);
			return shape_err(c, "option \"permutation\": not a "
			    "permutation of 0..%d (%s: %u appears twice)",
			    n - 1, u32str(p, n), p[i]);
		}
	free(seen);
	d = dimsnew(n);
	for (int i = 0; i < n; i++)
		d[i] = x->dims[p[i]];
	return outfree(c, 0, x->dt, n, d);
}

/*
 * The specification's steps create the output by "copying" the input,
 * which would keep the input's shape; its prose says the output is the
 * permuted tensor, as here: the output's dimension i is the input's
 * dimension permutation[i].
 */
int
shape_transpose(struct shapectx *c)
{
	const struct tdesc *x = c->in[0];
	uint32_t *p;
	int n = 0, r, rc = -1;

	r = u32list(c, "permutation", &p, &n);
	if (r == 0) {
		free(p);
		p = xmalloc(((size_t)x->rank + 1) * sizeof *p);
		for (n = 0; n < x->rank; n++)
			p[n] = (uint32_t)(x->rank - 1 - n);
	}
	if (r >= 0)
		rc = transpose1(c, p, n);
	free(p);
	return rc;
}

/* The length of a list option of slice: the input's rank. */
static int
slicelen(struct shapectx *c, const char *name, const uint32_t *v, int n)
{
	const struct tdesc *x = c->in[0];

	if (n != x->rank)
		return shape_err(c, "option \"%s\": %s has %d value%s, input "
		    "\"input\" %s has rank %d", name, u32str(v, n), n,
		    n == 1 ? "" : "s", shape_str(x), x->rank);
	return 0;
}

/* Dimension i of slice: stride s, start within the input, the slice
 * too. */
static int
slicedim(struct shapectx *c, const uint32_t *st, const uint32_t *sz,
    const uint32_t *sd, int i)
{
	const struct tdesc *x = c->in[0];
	int n = x->rank;

	if (sd && sd[i] == 0)
		return shape_err(c, "option \"strides\": %s: entry %d is 0, "
		    "it must be positive", u32str(sd, n), i);
	if (st[i] > x->dims[i])
		return shape_err(c, "option \"starts\": %s: dimension %d: "
		    "start %u exceeds %lld, its size in input \"input\" %s",
		    u32str(st, n), i, st[i], (long long)x->dims[i],
		    shape_str(x));
	if ((int64_t)st[i] + sz[i] > x->dims[i])
		return shape_err(c, "option \"sizes\": %s: dimension %d: start "
		    "%u + size %u exceeds %lld, its size in input \"input\" "
		    "%s", u32str(sz, n), i, st[i], sz[i],
		    (long long)x->dims[i], shape_str(x));
	return 0;
}

/* starts st, sizes sz, strides sd (NULL: absent), n1, n2, n3 values. */
static int
slice1(struct shapectx *c, const uint32_t *st, int n1, const uint32_t *sz,
    int n2, const uint32_t *sd, int n3)
{
	const struct tdesc *x = c->in[0];
	int64_t *d;

	for (int i = 0; i < n2; i++)
		if (sz[i] == 0)
			return shape_err(c, "option \"sizes\": %s: entry %d is "
			    "0, it must be positive", u32str(sz, n2), i);
	if (slicelen(c, "starts", st, n1) || slicelen(c, "sizes", sz, n2) ||
	    (sd && slicelen(c, "strides", sd, n3)))
		return -1;
	for (int i = 0; i < x->rank; i++)
		if (slicedim(c, st, sz, sd, i))
			return -1;
	d = dimsnew(x->rank);
	for (int i = 0; i < x->rank; i++) {
		uint32_t s = sd ? sd[i] : 1;

		d[i] = sz[i] / s + (sz[i] % s != 0);
	}
	return outfree(c, 0, x->dt, x->rank, d);
}

int
shape_slice(struct shapectx *c)
{
	uint32_t *st = NULL, *sz = NULL, *sd = NULL;
	int n1 = 0, n2 = 0, n3 = 0, r3 = -1, rc = -1;

	if (u32list(c, "starts", &st, &n1) >= 0 &&
	    u32list(c, "sizes", &sz, &n2) >= 0 &&
	    (r3 = u32list(c, "strides", &sd, &n3)) >= 0)
		rc = slice1(c, st, n1, sz, n2, r3 ? sd : NULL, n3);
	free(st);
	free(sz);
	free(sd);
	return rc;
}

/* splits as a count k: k equal parts. */
static int
splitcount(struct shapectx *c, uint32_t axis, uint32_t k)
{
	const struct tdesc *x = c->in[0];
	int64_t *d;

	if (k == 0 || k > MAXTENSORS)
		return shape_err(c, "option \"splits\": %u is not a valid "
		    "output count (1 to %d)", k, MAXTENSORS);
	if (x->dims[axis] % k)
		return shape_err(c, "option \"splits\": %u does not divide "
		    "dimension %u (%lld) evenly (input \"input\" %s)", k,
		    axis, (long long)x->dims[axis], shape_str(x));
	if (shape_nout(c, (int)k))
		return -1;
	d = dimsnew(x->rank);
	memcpy(d, x->dims, (size_t)x->rank * sizeof *d);
	d[axis] = x->dims[axis] / k;
	for (uint32_t i = 0; i < k; i++)
		shape_out(c, (int)i, x->dt, x->rank, d);
	free(d);
	return 0;
}

/* splits as a list of sizes summing to the axis' dimension. */
static int
splitsizes(struct shapectx *c, uint32_t axis, const uint32_t *sp, int n)
{
	const struct tdesc *x = c->in[0];
	int64_t *d, sum = 0;

	if (n < 1 || n > MAXTENSORS)
		return shape_err(c, "option \"splits\": %s has %d values, "
		    "expected 1 to %d", u32str(sp, n), n, MAXTENSORS);
	for (int i = 0; i < n; i++) {
		if (sp[i] == 0)
			return shape_err(c, "option \"splits\": %s: entry %d "
			    "is 0, it must be positive", u32str(sp, n), i);
		sum += sp[i];
	}
	if (sum != x->dims[axis])
		return shape_err(c, "option \"splits\": %s sums to %lld, "
		    "dimension %u of input \"input\" %s is %lld",
		    u32str(sp, n), (long long)sum, axis, shape_str(x),
		    (long long)x->dims[axis]);
	if (shape_nout(c, n))
		return -1;
	d = dimsnew(x->rank);
	memcpy(d, x->dims, (size_t)x->rank * sizeof *d);
	for (int i = 0; i < n; i++) {
		d[axis] = sp[i];
		shape_out(c, i, x->dt, x->rank, d);
	}
	free(d);
	return 0;
}

int
shape_split(struct shapectx *c)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(c->n->options,
	    "splits");
	uint32_t axis = 0, *sp = NULL;
	int n = 0, rc = -1;

	if (opt_u32(c, "axis", &axis) < 0 || axisok(c, "axis", axis,
	    c->in[0]))
		return -1;
	if (u32list(c, "splits", &sp, &n) < 0)
		return -1;
	if (cJSON_IsNumber(v))
		rc = splitcount(c, axis, sp[0]);
	else
		rc = splitsizes(c, axis, sp, n);
	free(sp);
	return rc;
}

/* Input k of concat against input 0; *size: the sizes along the axis
 * so far, input k's added. */
static int
concatone(struct shapectx *c, int k, uint32_t axis, int64_t *size)
{
	const struct tdesc *x = c->in[0], *y = c->in[k];

	if (y->dt != x->dt)
		return shape_err(c, "input %d \"%s\" is %s, input 0 \"%s\" "
		    "is %s", k, escape_tty_name(c->n->in[k]),
		    dtype_name(y->dt), escape_tty_name(c->n->in[0]),
		    dtype_name(x->dt));
	if (y->rank != x->rank)
		return shape_err(c, "input %d \"%s\": rank %d %s, input 0 "
		    "\"%s\" has rank %d %s", k, escape_tty_name(c->n->in[k]),
		    y->rank, shape_str(y), escape_tty_name(c->n->in[0]),
		    x->rank, shape_str(x));
	for (int i = 0; i < x->rank; i++) {
		if (i != (int)axis && y->dims[i] != x->dims[i])
			return shape_err(c, "input %d: dimension %d is %lld, "
			    "input 0 has %lld (\"%s\" %s, \"%s\" %s; only "
			    "axis %u may differ)", k, i, (long long)y->dims[i],
			    (long long)x->dims[i],
			    escape_tty_name(c->n->in[k]), shape_str(y),
			    escape_tty_name(c->n->in[0]), shape_str(x), axis);
		if (i == (int)axis && (*size += y->dims[i]) > MAXDIM)
			return shape_err(c, "option \"axis\": the sizes along "
			    "axis %u sum to %lld at input %d \"%s\", not a "
			    "valid dimension", axis, (long long)*size, k,
			    escape_tty_name(c->n->in[k]));
	}
	return 0;
}

int
shape_concat(struct shapectx *c)
{
	const struct tdesc *x = c->in[0];
	uint32_t axis = 0;
	int64_t *d, size;

	if (c->nin > MAXTENSORS)
		return shape_err(c, "%d inputs, at most %d are allowed",
		    c->nin, MAXTENSORS);
	if (opt_u32(c, "axis", &axis) < 0)
		return -1;
	if ((int64_t)axis >= x->rank)
		return shape_err(c, "option \"axis\": %u is out of range for "
		    "rank %d (input 0 \"%s\" %s)", axis, x->rank,
		    escape_tty_name(c->n->in[0]), shape_str(x));
	size = x->dims[axis];
	for (int k = 1; k < c->nin; k++)
		if (concatone(c, k, axis, &size))
			return -1;
	d = dimsnew(x->rank);
	memcpy(d, x->dims, (size_t)x->rank * sizeof *d);
	d[axis] = size;
	return outfree(c, 0, x->dt, x->rank, d);
}

/*
 * Indices (input 1) into dimensions first to first + n - 1 of input 0:
 * with any index at all, none of those may be empty, since no index
 * into an empty dimension is valid and the kernels read (or write) the
 * element an index selects.
 */
static int
someindex(struct shapectx *c, int first, int n)
{
	const struct tdesc *x = c->in[0], *ix = c->in[1];

	for (int i = 0; i < ix->rank; i++)
		if (ix->dims[i] == 0)
			return 0;
	for (int i = first; i < first + n; i++)
		if (x->dims[i] == 0)
			return shape_err(c, "dimension %d of input \"input\" "
			    "%s is empty: no index into it is valid", i,
			    shape_str(x));
	return 0;
}

/* output = input.shape[:axis] + indices.shape + input.shape[axis+1:] */
int
shape_gather(struct shapectx *c)
{
	const struct tdesc *x = c->in[0], *ix = c->in[1];
	uint32_t axis = 0;
	int64_t *d;
	int r = 0;

	if (indices(c, 1) || opt_u32(c, "axis", &axis) < 0 ||
	    axisok(c, "axis", axis, x) || someindex(c, (int)axis, 1))
		return -1;
	d = dimsnew(x->rank + ix->rank - 1);
	for (int i = 0; i < (int)axis; i++)
		d[r++] = x->dims[i];
	for (int i = 0; i < ix->rank; i++)
		d[r++] = ix->dims[i];
	for (int i = (int)axis + 1; i < x->rank; i++)
		d[r++] = x->dims[i];
	return outfree(c, 0, x->dt, r, d);
}

/* indices (input 1) has input's shape but for the axis' size. */
static int
likeinput(struct shapectx *c, uint32_t axis)
{
	const struct tdesc *x = c->in[0], *ix = c->in[1];

	for (int i = 0; i < x->rank; i++)
		if (i != (int)axis && ix->dims[i] != x->dims[i])
			return shape_err(c, "input \"indices\" %s: dimension "
			    "%d is %lld, input \"input\" %s has %lld (only "
			    "axis %u may differ)", shape_str(ix), i,
			    (long long)ix->dims[i], shape_str(x),
			    (long long)x->dims[i], axis);
	return 0;
}

/*
 * The specification's steps make the output a "copy" of the input,
 * input's shape; its examples (and ONNX's GatherElements, where the op
 * comes from) give the output the shape of the indices, as here.
 */
int
shape_gather_elements(struct shapectx *c)
{
	const struct tdesc *x = c->in[0], *ix = c->in[1];
	uint32_t axis = 0;

	if (indices(c, 1) || notscalar(c, 0) || samerank(c, 1, 0) ||
	    opt_u32(c, "axis", &axis) < 0 || axisok(c, "axis", axis, x) ||
	    likeinput(c, axis) || someindex(c, (int)axis, 1))
		return -1;
	shape_out(c, 0, x->dt, ix->rank, ix->dims);
	return 0;
}

/* The coordinate size, indices' last dimension, at most input's rank. */
static int
coordinates(struct shapectx *c, int64_t *k)
{
	const struct tdesc *x = c->in[0], *ix = c->in[1];

	*k = ix->dims[ix->rank - 1];
	if (*k > x->rank)
		return shape_err(c, "input \"indices\" %s: the last dimension "
		    "must be at most the rank %d of input \"input\" %s, "
		    "found %lld", shape_str(ix), x->rank, shape_str(x),
		    (long long)*k);
	return 0;
}

/* indices.shape[:-1] + input.shape[k:], into a new list of *r dims. */
static int64_t *
ndshape(struct shapectx *c, int64_t k, int *r)
{
	const struct tdesc *x = c->in[0], *ix = c->in[1];
	int64_t *d = dimsnew(ix->rank - 1 + x->rank - (int)k);

	*r = 0;
	for (int i = 0; i < ix->rank - 1; i++)
		d[(*r)++] = ix->dims[i];
	for (int i = (int)k; i < x->rank; i++)
		d[(*r)++] = x->dims[i];
	return d;
}

int
shape_gather_nd(struct shapectx *c)
{
	int64_t k, *d;
	int r;

	if (indices(c, 1) || notscalar(c, 0) || notscalar(c, 1) ||
	    coordinates(c, &k) || someindex(c, 0, (int)k))
		return -1;
	d = ndshape(c, k, &r);
	return outfree(c, 0, c->in[0]->dt, r, d);
}

int
shape_scatter_elements(struct shapectx *c)
{
	const struct tdesc *x = c->in[0], *ix = c->in[1], *u = c->in[2];
	uint32_t axis = 0;

	if (indices(c, 1) || samedtype(c, 2, 0) || notscalar(c, 0) ||
	    samerank(c, 1, 0) || samerank(c, 2, 0) ||
	    opt_u32(c, "axis", &axis) < 0 || axisok(c, "axis", axis, x) ||
	    likeinput(c, axis) || someindex(c, (int)axis, 1))
		return -1;
	if (!tdesc_samedims(u, ix))
		return shape_err(c, "input \"updates\" %s does not fit: "
		    "expected the shape of input \"indices\" %s",
		    shape_str(u), shape_str(ix));
	shape_out(c, 0, x->dt, x->rank, x->dims);
	return 0;
}

int
shape_scatter_nd(struct shapectx *c)
{
	const struct tdesc *x = c->in[0], *ix = c->in[1], *u = c->in[2];
	struct tdesc want = { x->dt, 0, NULL };
	int64_t k;

	if (indices(c, 1) || samedtype(c, 2, 0) || notscalar(c, 0) ||
	    notscalar(c, 1) || coordinates(c, &k) || someindex(c, 0, (int)k))
		return -1;
	want.dims = ndshape(c, k, &want.rank);
	if (!tdesc_samedims(u, &want)) {
		char w[256];

		snprintf(w, sizeof w, "%s", shape_str(&want));
		free(want.dims);
		return shape_err(c, "input \"updates\" %s does not fit: "
		    "expected %s, indices %s without the last dimension, then "
		    "input \"input\" %s from dimension %lld", shape_str(u),
		    w, shape_str(ix), shape_str(x), (long long)k);
	}
	free(want.dims);
	shape_out(c, 0, x->dt, x->rank, x->dims);
	return 0;
}

/* nnl's scatterElementsReduce and scatterNDReduce: WebNN's rules (the
 * reduction an enum the table checks). */
int
shape_scatter_elements_reduce(struct shapectx *c)
{
	return shape_scatter_elements(c);
}

int
shape_scatter_nd_reduce(struct shapectx *c)
{
	return shape_scatter_nd(c);
}

/*
 * The shape a reduction over axes ax (n of them) leaves, checking them:
 * in range and without duplicates.  Into a new list of *r dims; NULL
 * after an error.
 */
static int64_t *
reduced(struct shapectx *c, const uint32_t *ax, int n, int keep, int *r)
{
	const struct tdesc *x = c->in[0];
	char *on = xcalloc((size_t)x->rank + 1, 1);
	int64_t *d = NULL;

	for (int i = 0; i < n; i++) {
		if ((int64_t)ax[i] >= x->rank) {
			shape_err(c, "option \"axes\": %u is out of range "
			    "for rank %d (axes %s, input \"input\" %s)",
			    ax[i], x->rank, u32str(ax, n), shape_str(x));
			goto out;
		}
		if (on[ax[i]]++) {
			shape_err(c, "option \"axes\": %u appears twice in "
			    "%s", ax[i], u32str(ax, n));
			goto out;
		}
	}
	d = dimsnew(x->rank);
	*r = 0;
	for (int i = 0; i < x->rank; i++)
		if (!on[i])
			d[(*r)++] = x->dims[i];
		else if (keep)
			d[(*r)++] = 1;
out:
	free(on);
	return d;
}

/* The input types each reduction allows; NULL: any. */
static const enum dtype *
reducetypes(enum op op)
{
	static const enum dtype NUM[] = { DT_FLOAT32, DT_FLOAT16, DT_INT32,
	    DT_UINT32, DT_INT64, DT_UINT64, DT_FLOAT64, DT_INT16, DT_UINT16,
	    DT_BFLOAT16, DT_NONE };

	switch (op) {
	case OP_REDUCE_L2:
	case OP_REDUCE_LOG_SUM:
	case OP_REDUCE_LOG_SUM_EXP:
	case OP_REDUCE_MEAN:
		return DTS_EWFLOAT;
	case OP_REDUCE_MAX:
	case OP_REDUCE_MIN:
		return NULL;
	case OP_REDUCE_L1:
	case OP_REDUCE_PRODUCT:
	case OP_REDUCE_SUM:
	case OP_REDUCE_SUM_SQUARE:
		return NUM;
	default:
		BUG("shape_reduce: not a reduction");
	}
}

int
shape_reduce(struct shapectx *c)
{
	const struct tdesc *x = c->in[0];
	const enum dtype *ok = reducetypes(c->n->op);
	uint32_t *ax;
	int n = 0, keep = 0, r, nd = 0;
	int64_t *d = NULL;

	if (ok && shape_want_dtype(c, "input \"input\"", x, ok))
		return -1;
	if ((r = u32list(c, "axes", &ax, &n)) < 0 ||
	    opt_bool(c, "keepDimensions", &keep) < 0) {
		free(ax);
		return -1;
	}
	if (r == 0) {
		free(ax);
		ax = xmalloc(((size_t)x->rank + 1) * sizeof *ax);
		for (n = 0; n < x->rank; n++)
			ax[n] = (uint32_t)n;
	}
	d = reduced(c, ax, n, keep, &nd);
	free(ax);
	if (!d)
		return -1;
	return outfree(c, 0, x->dt, nd, d);
}

int
shape_arg_minmax(struct shapectx *c)
{
	static const enum dtype OUT[] = { DT_INT32, DT_INT64, DT_NONE };
	const struct tdesc *x = c->in[0];
	struct tdesc t = { DT_INT32, 0, NULL };
	uint32_t axis = 0;
	int keep = 0, nd = 0;
	int64_t max, *d;

	if (opt_u32(c, "axis", &axis) < 0 || axisok(c, "axis", axis, x) ||
	    opt_bool(c, "keepDimensions", &keep) < 0 ||
	    opt_dtype(c, "outputDataType", &t.dt) < 0 ||
	    shape_want_dtype(c, "option \"outputDataType\"", &t, OUT))
		return -1;
	if (x->dims[axis] == 0)	/* no element to choose, as in NumPy */
		return shape_err(c, "option \"axis\": dimension %u of input "
		    "\"input\" %s is empty: no element to choose", axis,
		    shape_str(x));
	max = t.dt == DT_INT32 ? INT32_MAX : INT64_MAX;
	if (x->dims[axis] > max)
		return shape_err(c, "option \"outputDataType\": %s cannot "
		    "index dimension %u (%lld) of input \"input\" %s",
		    dtype_name(t.dt), axis, (long long)x->dims[axis],
		    shape_str(x));
	if (!(d = reduced(c, &axis, 1, keep, &nd)))
		return -1;
	return outfree(c, 0, t.dt, nd, d);
}

/* nnl's topK: the k largest (or smallest) items along axis, sorted,
 * and their indices; k at most the axis's size. */
int
shape_top_k(struct shapectx *c)
{
	static const enum dtype OUT[] = { DT_INT32, DT_INT64, DT_NONE };
	static const enum dtype NUM[] = { DT_FLOAT32, DT_FLOAT16, DT_INT32,
	    DT_UINT32, DT_INT64, DT_UINT64, DT_INT8, DT_UINT8, DT_NONE };
	const struct tdesc *x = c->in[0];
	struct tdesc t = { DT_INT64, 0, NULL };
	uint32_t axis = 0, k = 0;
	int largest = 1;
	int64_t *d;

	if (shape_nout(c, 2) || opt_u32(c, "k", &k) < 0 ||
	    opt_u32(c, "axis", &axis) < 0 || axisok(c, "axis", axis, x) ||
	    opt_bool(c, "largest", &largest) < 0 ||
	    opt_dtype(c, "outputDataType", &t.dt) < 0 ||
	    shape_want_dtype(c, "option \"outputDataType\"", &t, OUT) ||
	    shape_want_dtype(c, "input \"input\"", x, NUM))
		return -1;
	if (k > x->dims[axis])
		return shape_err(c, "option \"k\": %u exceeds dimension %u "
		    "(%lld) of input \"input\" %s", k, axis,
		    (long long)x->dims[axis], shape_str(x));
	if (t.dt == DT_INT32 && x->dims[axis] > INT32_MAX)
		return shape_err(c, "option \"outputDataType\": int32 cannot "
		    "index dimension %u (%lld) of input \"input\" %s", axis,
		    (long long)x->dims[axis], shape_str(x));
	d = dimsnew(x->rank);
	for (int i = 0; i < x->rank; i++)
		d[i] = i == (int)axis ? k : x->dims[i];
	shape_out(c, 0, x->dt, x->rank, d);
	return outfree(c, 1, t.dt, x->rank, d);
}

/* nnl's nonZero: the indices of input's nonzero items, int64 [rank,
 * count], held at its bound [rank, numel] (packed at the front, -1
 * after), and that shape, int64 [2]. */
int
shape_non_zero(struct shapectx *c)
{
	const struct tdesc *x = c->in[0];
	int64_t d[2];

	if (shape_nout(c, 2))
		return -1;
	if (x->rank < 1)
		return shape_err(c, "input \"input\" is a scalar: nonZero "
		    "takes rank 1 or more");
	if (tdesc_numel(x) < 1)
		return shape_err(c, "input \"input\" %s is empty",
		    shape_str(x));
	d[0] = x->rank;
	d[1] = tdesc_numel(x);
	shape_out(c, 0, DT_INT64, 2, d);
	d[0] = 2;
	shape_out(c, 1, DT_INT64, 1, d);
	return 0;
}

/*
 * nnl's unique: the distinct slices of input along axis (of the
 * flattened input without one), of data-dependent shape.  Outputs:
 * the slices (input's type and shape, n along the axis, the bound),
 * the index of each one's first occurrence, int64 [n], the index of
 * each input slice among them, int64 [n] (not bounded), their counts,
 * int64 [n]; then the actual shapes of outputs 0, 1 and 3.
 */
int
shape_unique(struct shapectx *c)
{
	const struct tdesc *x = c->in[0];
	uint32_t axis = 0;
	int sorted = 1, has, r;
	int64_t d[SHAPE_MAXRANK], n;

	if (shape_nout(c, 7) || (has = opt_u32(c, "axis", &axis)) < 0 ||
	    opt_bool(c, "sorted", &sorted) < 0)
		return -1;
	if (has && axisok(c, "axis", axis, x))
		return -1;
	if (tdesc_numel(x) < 1)
		return shape_err(c, "input \"input\" %s is empty",
		    shape_str(x));
	if (x->rank > SHAPE_MAXRANK)
		return shape_err(c, "rank %d exceeds %d", x->rank,
		    SHAPE_MAXRANK);
	r = has ? x->rank : 1;
	for (int i = 0; i < r; i++)
		d[i] = has ? x->dims[i] : (int64_t)tdesc_numel(x);
	n = d[has ? axis : 0];
	shape_out(c, 0, x->dt, r, d);
	shape_out(c, 1, DT_INT64, 1, &n);
	shape_out(c, 2, DT_INT64, 1, &n);
	shape_out(c, 3, DT_INT64, 1, &n);
	d[0] = r;
	shape_out(c, 4, DT_INT64, 1, d);
	d[0] = 1;
	shape_out(c, 5, DT_INT64, 1, d);
	shape_out(c, 6, DT_INT64, 1, d);
	return 0;
}

/* The numeric types range and constantOfShape make: all but the 4-bit
 * ones. */
static const enum dtype FILLTYPES[] = { DT_FLOAT32, DT_FLOAT16, DT_INT32,
    DT_UINT32, DT_INT64, DT_UINT64, DT_INT8, DT_UINT8, DT_FLOAT64,
    DT_INT16, DT_UINT16, DT_BFLOAT16, DT_NONE };

/* The option "bound", the most elements a value of run-time size may
 * hold: at least 1. */
static int
bound(struct shapectx *c, uint32_t *b)
{
	if (opt_u32(c, "bound", b) < 0)
		return -1;
	if (*b < 1)
		return shape_err(c, "option \"bound\" is 0: it must be 1 or "
		    "more");
	return 0;
}

/* nnl's range: start, start + delta, ... up to limit (not reached),
 * max(ceil((limit - start) / delta), 0) items of start's type, from
 * scalars known only at run time: held at its bound [bound], and that
 * shape, int64 [1] (-1 when the count is past the bound). */
int
shape_range(struct shapectx *c)
{
	static const char *const NAMES[] = { "start", "limit", "delta" };
	/* ONNX's types of Range, and float16 and int8: signed, so that
	 * limit - start has a sign */
	static const enum dtype SIGNED[] = { DT_FLOAT32, DT_FLOAT16,
	    DT_FLOAT64, DT_INT8, DT_INT16, DT_INT32, DT_INT64, DT_NONE };
	uint32_t b;
	int64_t d;

	if (shape_nout(c, 2) || bound(c, &b) ||
	    shape_want_dtype(c, "input \"start\"", c->in[0], SIGNED))
		return -1;
	for (int i = 0; i < 3; i++) {
		if (tdesc_numel(c->in[i]) != 1)
			return shape_err(c, "input \"%s\" %s is not a scalar",
			    NAMES[i], shape_str(c->in[i]));
		if (c->in[i]->dt != c->in[0]->dt)
			return shape_err(c, "input \"%s\" is %s, input "
			    "\"start\" %s", NAMES[i],
			    dtype_name(c->in[i]->dt),
			    dtype_name(c->in[0]->dt));
	}
	d = b;
	shape_out(c, 0, c->in[0]->dt, 1, &d);
	d = 1;
	shape_out(c, 1, DT_INT64, 1, &d);
	return 0;
}

/* nnl's constantOfShape: a tensor of the shape input "shape" (int64
 * [rank], known only at run time) holding value: held at its bound
 * [bound, 1, ...] of that rank, and that shape, int64 [rank] (-1 in
 * every entry when its size is past the bound or a dimension is
 * negative). */
int
shape_constant_of_shape(struct shapectx *c)
{
	static const enum dtype I64[] = { DT_INT64, DT_NONE };
	const struct tdesc *s = c->in[0];
	struct tdesc t = { DT_FLOAT32, 0, NULL };
	uint32_t b;
	double v = 0;
	int64_t *d, r;

	if (shape_nout(c, 2) || bound(c, &b) ||
	    shape_want_dtype(c, "input \"shape\"", s, I64) ||
	    shape_want_rank(c, "input \"shape\"", s, 1) ||
	    opt_f64(c, "value", &v) < 0 ||
	    opt_dtype(c, "dataType", &t.dt) < 0 ||
	    shape_want_dtype(c, "option \"dataType\"", &t, FILLTYPES))
		return -1;
	r = s->dims[0];
	if (r < 1)
		return shape_err(c, "input \"shape\" %s is empty: the "
		    "result's rank must be 1 or more", shape_str(s));
	d = dimsnew((int)r);
	for (int64_t i = 0; i < r; i++)
		d[i] = i ? 1 : b;
	shape_out(c, 0, t.dt, (int)r, d);
	d[0] = r;
	return outfree(c, 1, DT_INT64, 1, d);
}

/*
 * nnl's melWeightMatrix: the [dftLength / 2 + 1, numMelBins] matrix of
 * mel triangles (ONNX's MelWeightMatrix) from scalars known only at
 * run time, numMelBins, dftLength and sampleRate of one integer type
 * (int32 or int64), the lower and upper edges in hertz of one float
 * type: held at its bound [bound, 1] of option dataType (a float
 * type), and that shape, int64 [2] (-1 in both when past the bound or
 * invalid).
 */
int
shape_mel_weight_matrix(struct shapectx *c)
{
	static const char *const NAMES[] = { "numMelBins", "dftLength",
	    "sampleRate", "lowerEdgeHertz", "upperEdgeHertz" };
	static const enum dtype INTS[] = { DT_INT32, DT_INT64, DT_NONE };
	struct tdesc t = { DT_FLOAT32, 0, NULL };
	uint32_t b;
	int64_t d[2];

	if (shape_nout(c, 2) || bound(c, &b) ||
	    opt_dtype(c, "dataType", &t.dt) < 0 ||
	    shape_want_dtype(c, "option \"dataType\"", &t, DTS_EWFLOAT) ||
	    shape_want_dtype(c, "input \"numMelBins\"", c->in[0], INTS) ||
	    shape_want_dtype(c, "input \"lowerEdgeHertz\"", c->in[3],
	    DTS_EWFLOAT))
		return -1;
	for (int i = 0; i < 5; i++) {
		const struct tdesc *s = c->in[i < 3 ? 0 : 3];

		if (tdesc_numel(c->in[i]) != 1)
			return shape_err(c, "input \"%s\" %s is not a scalar",
			    NAMES[i], shape_str(c->in[i]));
		if (c->in[i]->dt != s->dt)
			return shape_err(c, "input \"%s\" is %s, input \"%s\" "
			    "%s", NAMES[i], dtype_name(c->in[i]->dt),
			    NAMES[i < 3 ? 0 : 3], dtype_name(s->dt));
	}
	d[0] = b;
	d[1] = 1;
	shape_out(c, 0, t.dt, 2, d);
	d[0] = 2;
	shape_out(c, 1, DT_INT64, 1, d);
	return 0;
}
