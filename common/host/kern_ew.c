/*
 * kern_ew: prepares the elementwise kernels of rt/elementwise/ew.c for the binary,
 * comparison, logical, unary and activation ops, prelu, softmax, cast,
 * where, quantize and dequantize, cumulativeSum, triangular, expand,
 * tile and reverse.
 */
#include <math.h>
#include <string.h>

#include "kernel.h"
#include "opts.h"

/* Op codes of rt/elementwise/ew.c, in its enum's order. */
static const enum op binops[] = { OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_MAX,
    OP_MIN, OP_POW, OP_EQUAL, OP_NOT_EQUAL, OP_GREATER,
    OP_GREATER_OR_EQUAL, OP_LESSER, OP_LESSER_OR_EQUAL, OP_LOGICAL_AND,
    OP_LOGICAL_OR, OP_LOGICAL_XOR, OP_BIT_SHIFT };
static const enum op unops[] = { OP_ABS, OP_CEIL, OP_COS, OP_ERF, OP_EXP,
    OP_FLOOR, OP_IDENTITY, OP_LOG, OP_NEG, OP_RECIPROCAL, OP_ROUND_EVEN,
    OP_SIN, OP_SIGN, OP_SQRT, OP_TAN, OP_ELU, OP_GELU, OP_HARD_SIGMOID,
    OP_HARD_SWISH, OP_LEAKY_RELU, OP_LINEAR, OP_RELU, OP_SIGMOID,
    OP_SOFTPLUS, OP_SOFTSIGN, OP_TANH, OP_CLAMP, OP_LOGICAL_NOT,
    OP_IS_NAN, OP_IS_INFINITE, OP_ASIN, OP_ACOS, OP_ATAN };

static int
code(const enum op *tab, size_t n, enum op op)
{
	for (size_t i = 0; i < n; i++)
		if (tab[i] == op)
			return (int)i;
	BUG("op missing from a code table");
}

static int
bytesize(struct kctx *c, const struct tdesc *t)
{
	if (dtype_bits(t->dt) < 8)
		return shape_err(c->sc, "%s on %s data is not supported",
		    c->d->name, dtype_name(t->dt));
	return dtype_bits(t->dt) / 8;
}

static int
rankok(struct kctx *c, const struct tdesc *t)
{
	if (t->rank > NNL_MAXRANK)
		return shape_err(c->sc, "rank %d exceeds the C back end's %d",
		    t->rank, NNL_MAXRANK);
	return 0;
}

static int
binary(struct kctx *c)
{
	const struct tdesc *o = &c->out[0];
	int op = code(binops, sizeof binops / sizeof *binops, c->n->op);

	if (rankok(c, o) || bytesize(c, c->in[0]) < 0)
		return -1;
	if (c->n->op == OP_BIT_SHIFT) {
		const char *dir = "left";

		if (opt_str(c->sc, "direction", &dir) < 0)
			return -1;
		op += strcmp(dir, "right") == 0;	/* shl, then shr */
	}
	kip(c, op);
	kip(c, kdt(c->in[0]));
	kip(c, kdt(o));
	kshape(c, o);
	kbstrides(c, c->in[0], o->rank, o->dims);
	kbstrides(c, c->in[1], o->rank, o->dims);
	kin(c, c->n->in[0]);
	kin(c, c->n->in[1]);
	return kset(c, "binary");
}

int prepare_binary(struct kctx *c) { return binary(c); }
int prepare_compare(struct kctx *c) { return binary(c); }
int prepare_logical(struct kctx *c) { return binary(c); }
int prepare_bit_shift(struct kctx *c) { return binary(c); }

static int
unary(struct kctx *c, double a, double b)
{
	if (bytesize(c, c->in[0]) < 0)
		return -1;
	kip(c, code(unops, sizeof unops / sizeof *unops, c->n->op));
	kip(c, kdt(c->in[0]));
	kip(c, kdt(&c->out[0]));
	kip(c, (int64_t)tdesc_numel(c->in[0]));
	kfp(c, a);
	kfp(c, b);
	kin(c, c->n->in[0]);
	return kset(c, "unary");
}

int prepare_logical_not(struct kctx *c) { return unary(c, 0, 0); }
int prepare_is_class(struct kctx *c) { return unary(c, 0, 0); }
int prepare_unary(struct kctx *c) { return unary(c, 0, 0); }

int
prepare_activation(struct kctx *c)
{
	double a = 0, b = 0;

	switch (c->n->op) {
	case OP_ELU:
		a = 1;
		if (opt_f64(c->sc, "alpha", &a) < 0)
			return -1;
		break;
	case OP_LEAKY_RELU:
		a = 0.01;
		if (opt_f64(c->sc, "alpha", &a) < 0)
			return -1;
		break;
	case OP_HARD_SIGMOID:
		a = 0.2;
		b = 0.5;
		if (opt_f64(c->sc, "alpha", &a) < 0 ||
		    opt_f64(c->sc, "beta", &b) < 0)
			return -1;
		break;
	case OP_LINEAR:
		a = 1;
		b = 0;
		if (opt_f64(c->sc, "alpha", &a) < 0 ||
		    opt_f64(c->sc, "beta", &b) < 0)
			return -1;
		break;
	case OP_CLAMP:
		a = -INFINITY;
		b = INFINITY;
		if (opt_f64(c->sc, "minValue", &a) < 0 ||
		    opt_f64(c->sc, "maxValue", &b) < 0)
			return -1;
		break;
	default:
		break;
	}
	return unary(c, a, b);
}

int
prepare_prelu(struct kctx *c)
{
	const struct tdesc *x = c->in[0];

	if (rankok(c, x) || bytesize(c, x) < 0)
		return -1;
	kip(c, kdt(x));
	kshape(c, x);
	kbstrides(c, c->in[1], x->rank, x->dims);
	kin(c, c->n->in[0]);
	kin(c, c->n->in[1]);
	return kset(c, "prelu");
}

/* Elements before axis, the axis, after it. */
static void
split3(struct kctx *c, const struct tdesc *t, uint32_t axis)
{
	int64_t outer = 1, inner = 1;

	for (int i = 0; i < (int)axis; i++)
		outer *= t->dims[i];
	for (int i = (int)axis + 1; i < t->rank; i++)
		inner *= t->dims[i];
	kip(c, outer);
	kip(c, t->dims[axis]);
	kip(c, inner);
}

int
prepare_softmax(struct kctx *c)
{
	uint32_t axis = 0;

	if (opt_u32(c->sc, "axis", &axis) < 0)
		return -1;
	kip(c, kdt(c->in[0]));
	split3(c, c->in[0], axis);
	kin(c, c->n->in[0]);
	return kset(c, "softmax");
}

int
prepare_cast(struct kctx *c)
{
	if (bytesize(c, c->in[0]) < 0 || bytesize(c, &c->out[0]) < 0)
		return -1;
	kip(c, kdt(c->in[0]));
	kip(c, kdt(&c->out[0]));
	kip(c, (int64_t)tdesc_numel(c->in[0]));
	kin(c, c->n->in[0]);
	return kset(c, "cast");
}

int
prepare_where(struct kctx *c)
{
	const struct tdesc *o = &c->out[0];
	int es = bytesize(c, o);

	if (es < 0 || rankok(c, o))
		return -1;
	kip(c, es);
	kshape(c, o);
	for (int k = 0; k < 3; k++)
		kbstrides(c, c->in[k], o->rank, o->dims);
	for (int k = 0; k < 3; k++)
		kin(c, c->n->in[k]);
	return kset(c, "where");
}

static int
quant(struct kctx *c, int dir)
{
	const struct tdesc *x = c->in[0], *s = c->in[1], *z = c->in[2];
	int64_t st = 1, ss[NNL_MAXRANK];

	if (rankok(c, x) || bytesize(c, x) < 0 || bytesize(c, z) < 0 ||
	    bytesize(c, &c->out[0]) < 0)
		return -1;
	kip(c, dir);
	kip(c, kdt(x));
	kip(c, kdt(z));
	kip(c, kdt(&c->out[0]));
	kshape(c, x);
	/* scale dims aligned right; a missing or 1 dim is one block */
	for (int i = 0; i < x->rank; i++) {
		int j = i - (x->rank - s->rank);
		int64_t sd = j >= 0 ? s->dims[j] : 1;

		kip(c, sd ? x->dims[i] / sd : 1);
	}
	for (int i = x->rank - 1; i >= 0; i--) {
		int j = i - (x->rank - s->rank);
		int64_t sd = j >= 0 ? s->dims[j] : 1;

		ss[i] = st;
		st *= sd;
	}
	for (int i = 0; i < x->rank; i++)
		kip(c, ss[i]);
	for (int k = 0; k < 3; k++)
		kin(c, c->n->in[k]);
	return kset(c, "quant");
}

int prepare_quantize(struct kctx *c) { return quant(c, 0); }
int prepare_dequantize(struct kctx *c) { return quant(c, 1); }

int
prepare_cumsum(struct kctx *c)
{
	uint32_t axis = 0;
	int excl = 0, rev = 0;

	if (opt_u32(c->sc, "axis", &axis) < 0 ||
	    opt_bool(c->sc, "exclusive", &excl) < 0 ||
	    opt_bool(c->sc, "reversed", &rev) < 0)
		return -1;
	kip(c, kdt(c->in[0]));
	split3(c, c->in[0], axis);
	kip(c, excl);
	kip(c, rev);
	kin(c, c->n->in[0]);
	return kset(c, "cumsum");
}

int
prepare_triangular(struct kctx *c)
{
	const struct tdesc *x = c->in[0];
	int upper = 1, es = bytesize(c, x);
	int32_t diag = 0;
	int64_t outer = 1;

	if (es < 0 || opt_bool(c->sc, "upper", &upper) < 0 ||
	    opt_i32(c->sc, "diagonal", &diag) < 0)
		return -1;
	for (int i = 0; i < x->rank - 2; i++)
		outer *= x->dims[i];
	kip(c, es);
	kip(c, outer);
	kip(c, x->dims[x->rank - 2]);
	kip(c, x->dims[x->rank - 1]);
	kip(c, upper);
	kip(c, diag);
	kin(c, c->n->in[0]);
	return kset(c, "triangular");
}

int
prepare_expand(struct kctx *c)
{
	const struct tdesc *o = &c->out[0];
	int es = bytesize(c, o);

	if (es < 0 || rankok(c, o))
		return -1;
	kip(c, es);
	kshape(c, o);
	kbstrides(c, c->in[0], o->rank, o->dims);
	kin(c, c->n->in[0]);
	return kset(c, "expand");
}

int
prepare_tile(struct kctx *c)
{
	const struct tdesc *x = c->in[0];
	int es = bytesize(c, x);

	if (es < 0 || rankok(c, x))
		return -1;
	kip(c, es);
	kshape(c, x);
	for (int i = 0; i < x->rank; i++)
		kip(c, c->out[0].dims[i]);
	kin(c, c->n->in[0]);
	return kset(c, "tile");
}

int
prepare_reverse(struct kctx *c)
{
	const struct tdesc *x = c->in[0];
	uint32_t axes[NNL_MAXRANK];
	int n = 0, es = bytesize(c, x);
	int64_t mask = 0;

	if (es < 0 || rankok(c, x) ||
	    opt_u32s(c->sc, "axes", axes, NNL_MAXRANK, &n) < 0)
		return -1;
	if (!opt_present(c->sc, "axes"))
		mask = ((int64_t)1 << x->rank) - 1;
	for (int i = 0; i < n; i++)
		mask |= (int64_t)1 << axes[i];
	kip(c, es);
	kshape(c, x);
	kip(c, mask);
	kin(c, c->n->in[0]);
	return kset(c, "reverse");
}
