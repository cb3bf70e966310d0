/*
 * shape_ew: shape rules of the elementwise family: binary arithmetic,
 * comparisons, logical ops, unary math, activations, prelu, softmax,
 * cast, where, quantize and dequantize, cumulativeSum, triangular,
 * expand, tile and reverse.
 */
#include <math.h>
#include <string.h>

#include "checked.h"
#include "shape_rule.h"

/* numeric types (no 4-bit) */
static const enum dtype NUM[] = { DT_FLOAT32, DT_FLOAT16, DT_INT32,
    DT_UINT32, DT_INT64, DT_UINT64, DT_INT8, DT_UINT8, DT_FLOAT64,
    DT_INT16, DT_UINT16, DT_BFLOAT16, DT_NONE };
static const enum dtype SIGNED[] = { DT_FLOAT32, DT_FLOAT16, DT_INT32,
    DT_INT64, DT_INT8, DT_FLOAT64, DT_INT16, DT_BFLOAT16, DT_NONE };
static const enum dtype U8[] = { DT_UINT8, DT_NONE };
static const enum dtype UNSIGNED[] = { DT_UINT8, DT_UINT32, DT_UINT64,
    DT_UINT16, DT_NONE };
static const enum dtype QUANT[] = { DT_INT8, DT_UINT8, DT_INT32, DT_INT4,
    DT_UINT4, DT_NONE };
static const enum dtype RELU[] = { DT_FLOAT32, DT_FLOAT16, DT_INT32,
    DT_INT64, DT_INT8, DT_FLOAT64, DT_INT16, DT_BFLOAT16, DT_NONE };

static int
same(struct shapectx *c)
{
	shape_out(c, 0, c->in[0]->dt, c->in[0]->rank, c->in[0]->dims);
	return 0;
}

static int
samedtype(struct shapectx *c, int a, int b)
{
	if (c->in[a]->dt != c->in[b]->dt)
		return shape_err(c, "input \"%s\" is %s but input \"%s\" is %s",
		    c->d->operands[a], dtype_name(c->in[a]->dt),
		    c->d->operands[b], dtype_name(c->in[b]->dt));
	return 0;
}

static int
broadcast2(struct shapectx *c, enum dtype out)
{
	int64_t dims[SHAPE_MAXRANK * 4];
	int r;

	if (samedtype(c, 0, 1) ||
	    shape_broadcast(c, c->in[0], c->in[1], &r, dims))
		return -1;
	shape_out(c, 0, out == DT_NONE ? c->in[0]->dt : out, r, dims);
	return 0;
}

int
shape_binary(struct shapectx *c)
{
	if (shape_want_dtype(c, "input \"a\"", c->in[0], NUM))
		return -1;
	return broadcast2(c, DT_NONE);
}

int
shape_compare(struct shapectx *c)
{
	if (shape_want_dtype(c, "input \"a\"", c->in[0], NUM))
		return -1;
	return broadcast2(c, DT_UINT8);
}

/* nnl's bitShift: a shifted by b bits, both of one unsigned type. */
int
shape_bit_shift(struct shapectx *c)
{
	const char *dir;

	if (shape_want_dtype(c, "input \"a\"", c->in[0], UNSIGNED) ||
	    opt_str(c, "direction", &dir) < 0)
		return -1;
	return broadcast2(c, DT_NONE);
}

int
shape_logical(struct shapectx *c)
{
	if (shape_want_dtype(c, "input \"a\"", c->in[0], U8))
		return -1;
	return broadcast2(c, DT_UINT8);
}

int
shape_logical_not(struct shapectx *c)
{
	if (shape_want_dtype(c, "input \"a\"", c->in[0], U8))
		return -1;
	return same(c);
}

int
shape_is_class(struct shapectx *c)
{
	if (shape_want_dtype(c, "input \"a\"", c->in[0], DTS_EWFLOAT))
		return -1;
	shape_out(c, 0, DT_UINT8, c->in[0]->rank, c->in[0]->dims);
	return 0;
}

int
shape_unary(struct shapectx *c)
{
	const enum dtype *allowed = DTS_EWFLOAT;

	switch (c->n->op) {
	case OP_ABS: case OP_NEG: case OP_SIGN:
		allowed = SIGNED;
		break;
	case OP_IDENTITY:
		allowed = DTS_ALL;
		break;
	default:
		break;
	}
	if (shape_want_dtype(c, "input \"input\"", c->in[0], allowed))
		return -1;
	return same(c);
}

int
shape_activation(struct shapectx *c)
{
	const enum dtype *allowed = c->n->op == OP_RELU ? RELU :
	    c->n->op == OP_CLAMP ? NUM : DTS_EWFLOAT;

	if (shape_want_dtype(c, "input \"input\"", c->in[0], allowed))
		return -1;
	if (c->n->op == OP_CLAMP) {
		double lo = -INFINITY, hi = INFINITY;

		if (opt_f64(c, "minValue", &lo) < 0 ||
		    opt_f64(c, "maxValue", &hi) < 0)
			return -1;
		if (lo > hi)
			return shape_err(c, "option \"minValue\": %g is greater "
			    "than maxValue %g", lo, hi);
	}
	return same(c);
}

int
shape_prelu(struct shapectx *c)
{
	if (shape_want_dtype(c, "input \"input\"", c->in[0], SIGNED) ||
	    samedtype(c, 0, 1))
		return -1;
	if (!shape_unibroadcastable(c->in[1], c->in[0])) {
		char a[256];

		snprintf(a, sizeof a, "%s", shape_str(c->in[1]));
		return shape_err(c, "input \"slope\" %s does not broadcast to "
		    "input %s", a, shape_str(c->in[0]));
	}
	return same(c);
}

int
shape_softmax(struct shapectx *c)
{
	uint32_t axis = 0;

	if (shape_want_dtype(c, "input \"input\"", c->in[0], DTS_EWFLOAT) ||
	    opt_u32(c, "axis", &axis) < 0)
		return -1;
	if (axis >= (uint32_t)c->in[0]->rank)
		return shape_err(c, "option \"axis\": %u is out of range for "
		    "rank %d", axis, c->in[0]->rank);
	return same(c);
}

int
shape_cast(struct shapectx *c)
{
	enum dtype to = DT_NONE;

	if (opt_dtype(c, "dataType", &to) < 0)
		return -1;
	shape_out(c, 0, to, c->in[0]->rank, c->in[0]->dims);
	return 0;
}

int
shape_where(struct shapectx *c)
{
	int64_t d1[SHAPE_MAXRANK * 4], d2[SHAPE_MAXRANK * 4];
	int r1, r2;
	struct tdesc t;

	if (shape_want_dtype(c, "input \"condition\"", c->in[0], U8) ||
	    samedtype(c, 1, 2) ||
	    shape_broadcast(c, c->in[1], c->in[2], &r1, d1))
		return -1;
	t.dt = c->in[1]->dt;
	t.rank = r1;
	t.dims = d1;
	if (shape_broadcast(c, c->in[0], &t, &r2, d2))
		return -1;
	shape_out(c, 0, c->in[1]->dt, r2, d2);
	return 0;
}

/* scale and zeroPoint: the same shape, broadcastable to the input or
 * dividing it block-wise. */
static int
quantparams(struct shapectx *c)
{
	const struct tdesc *x = c->in[0], *s = c->in[1], *z = c->in[2];

	if (s->rank != z->rank)
		return shape_err(c, "input \"zeroPoint\" %s differs from input "
		    "\"scale\" %s", shape_str(z), shape_str(s));
	for (int i = 0; i < s->rank; i++)
		if (s->dims[i] != z->dims[i])
			return shape_err(c, "input \"zeroPoint\" %s differs "
			    "from input \"scale\" %s", shape_str(z),
			    shape_str(s));
	if (shape_unibroadcastable(s, x))
		return 0;
	if (s->rank == x->rank) {
		int ok = 1;

		for (int i = 0; i < s->rank; i++)
			if (!s->dims[i] || x->dims[i] % s->dims[i])
				ok = 0;
		if (ok)
			return 0;
	}
	return shape_err(c, "input \"scale\" %s neither broadcasts to nor "
	    "divides input %s into blocks", shape_str(s), shape_str(x));
}

int
shape_quantize(struct shapectx *c)
{
	if (shape_want_dtype(c, "input \"input\"", c->in[0], DTS_FLOAT) ||
	    samedtype(c, 0, 1) ||
	    shape_want_dtype(c, "input \"zeroPoint\"", c->in[2], QUANT) ||
	    quantparams(c))
		return -1;
	shape_out(c, 0, c->in[2]->dt, c->in[0]->rank, c->in[0]->dims);
	return 0;
}

int
shape_dequantize(struct shapectx *c)
{
	if (shape_want_dtype(c, "input \"input\"", c->in[0], QUANT) ||
	    shape_want_dtype(c, "input \"scale\"", c->in[1], DTS_FLOAT) ||
	    samedtype(c, 0, 2) || quantparams(c))
		return -1;
	shape_out(c, 0, c->in[1]->dt, c->in[0]->rank, c->in[0]->dims);
	return 0;
}

int
shape_cumsum(struct shapectx *c)
{
	static const enum dtype ok[] = { DT_FLOAT32, DT_FLOAT16, DT_INT32,
	    DT_UINT32, DT_INT64, DT_UINT64, DT_FLOAT64, DT_INT16, DT_UINT16,
	    DT_BFLOAT16, DT_NONE };
	uint32_t axis = 0;

	if (shape_want_dtype(c, "input \"input\"", c->in[0], ok) ||
	    opt_u32(c, "axis", &axis) < 0)
		return -1;
	if (axis >= (uint32_t)c->in[0]->rank)
		return shape_err(c, "option \"axis\": %u is out of range for "
		    "rank %d", axis, c->in[0]->rank);
	return same(c);
}

int
shape_triangular(struct shapectx *c)
{
	int32_t diag = 0;

	if (shape_want_dtype(c, "input \"input\"", c->in[0], NUM) ||
	    opt_i32(c, "diagonal", &diag) < 0)
		return -1;
	if (c->in[0]->rank < 2)
		return shape_err(c, "input \"input\": rank %d is below 2",
		    c->in[0]->rank);
	return same(c);
}

int
shape_expand(struct shapectx *c)
{
	uint32_t ns[SHAPE_MAXRANK * 4];
	int64_t d[SHAPE_MAXRANK * 4];
	int n = 0;
	struct tdesc t;

	if (opt_u32s(c, "newShape", ns, SHAPE_MAXRANK * 4, &n) < 0)
		return -1;
	for (int i = 0; i < n; i++) {
		if (!ns[i])
			return shape_err(c, "option \"newShape\": dimension %d "
			    "is 0", i);
		d[i] = ns[i];
	}
	t.dt = c->in[0]->dt;
	t.rank = n;
	t.dims = d;
	if (!shape_unibroadcastable(c->in[0], &t))
		return shape_err(c, "input %s does not broadcast to newShape "
		    "%s", shape_str(c->in[0]), shape_str(&t));
	shape_out(c, 0, c->in[0]->dt, n, d);
	return 0;
}

int
shape_tile(struct shapectx *c)
{
	uint32_t rep[SHAPE_MAXRANK * 4];
	int64_t d[SHAPE_MAXRANK * 4];
	int n = 0;
	const struct tdesc *x = c->in[0];

	if (opt_u32s(c, "repetitions", rep, SHAPE_MAXRANK * 4, &n) < 0)
		return -1;
	if (n != x->rank)
		return shape_err(c, "option \"repetitions\": %d values for "
		    "rank %d", n, x->rank);
	for (int i = 0; i < n; i++) {
		if (!rep[i])
			return shape_err(c, "option \"repetitions\": value %d "
			    "is 0", i);
		/* dimensions and repetitions are below 2^32: a product
		 * to 2^64 is checked, then shape_node holds it to the
		 * tensor limit */
		if (checked_mul_i64(x->dims[i], rep[i], &d[i]) != 0)
			return shape_err(c, "option \"repetitions\": %u "
			    "times dimension %d (%lld) overflows", rep[i], i,
			    (long long)x->dims[i]);
	}
	shape_out(c, 0, x->dt, n, d);
	return 0;
}

int
shape_reverse(struct shapectx *c)
{
	uint32_t axes[SHAPE_MAXRANK * 4];
	int n = 0;
	uint64_t seen = 0;

	if (opt_u32s(c, "axes", axes, SHAPE_MAXRANK * 4, &n) < 0)
		return -1;
	for (int i = 0; i < n; i++) {
		if (axes[i] >= (uint32_t)c->in[0]->rank)
			return shape_err(c, "option \"axes\": %u is out of "
			    "range for rank %d", axes[i], c->in[0]->rank);
		if (seen >> axes[i] & 1)
			return shape_err(c, "option \"axes\": %u appears twice",
			    axes[i]);
		seen |= (uint64_t)1 << axes[i];
	}
	return same(c);
}
