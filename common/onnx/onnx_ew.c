/*
 * onnx_ew: elementwise ONNX operators, activations, casts and the
 * softmax family, as WebNN operations.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "onnx_imp.h"
#include "escape.h"
#include "shape.h"

static const char *
webnnof(const char *op, const char *const *map)
{
	for (; *map; map += 2)
		if (strcmp(map[0], op) == 0)
			return map[1];
	return NULL;
}

static int
isfloat(enum dtype dt)
{
	return dtype_isfloat(dt);
}

/* x as type dt (x itself when it already is). */
int
onnx_unary(struct imp *m)
{
	static const char *const map[] = {
		"Abs", "abs", "Ceil", "ceil", "Cos", "cos", "Erf", "erf",
		"Exp", "exp", "Floor", "floor", "Log", "log", "Neg", "neg",
		"Reciprocal", "reciprocal", "Round", "roundEven", "Sin", "sin",
		"Sign", "sign", "Sqrt", "sqrt", "Tan", "tan", "Relu", "relu",
		"Sigmoid", "sigmoid", "Tanh", "tanh", "Softplus", "softplus",
		"Softsign", "softsign", "Not", "logicalNot", "IsNaN", "isNaN",
		"HardSwish", "hardSwish", "Asin", "asin", "Acos", "acos",
		"Atan", "atan", NULL,
	};
	const char *op = webnnof(m->n->op_type, map), *x = in(m, 0), *y;
	enum dtype dt = ty(m, x)->dt;

	if (!isfloat(dt) && strcmp(op, "abs") && strcmp(op, "neg") &&
	    strcmp(op, "sign") && strcmp(op, "logicalNot") &&
	    strcmp(op, "relu"))
		return refuse(m, REFUSE_TYPE, "%s on %s", escape_tty_name(op),
		    dtype_name(dt));
	if (strcmp(op, "relu") == 0 && !dtype_issigned(dt))
		y = x;		/* relu of an unsigned type is itself */
	else if (!(y = emit(m, op, NULL, outname(m, 0), 1, x)))
		return -1;
	bind(m, 0, y);
	return 0;
}

/* BitShift: nnl's bitShift (beyond WebNN), on unsigned integers. */
int
onnx_bitshift(struct imp *m)
{
	const char *a = in(m, 0), *b = in(m, 1), *dir = att_s(m, "direction",
	    NULL);
	enum dtype dt = ty(m, a)->dt;
	cJSON *o;

	if (!dir || (strcmp(dir, "LEFT") && strcmp(dir, "RIGHT")))
		return refuse(m, REFUSE_ATTR, "direction %s (LEFT or RIGHT)",
		    dir ? escape_tty_name(dir) : "missing");
	if (dt != DT_UINT8 && dt != DT_UINT16 && dt != DT_UINT32 &&
	    dt != DT_UINT64)
		return refuse(m, REFUSE_TYPE, "BitShift on %s", dtype_name(dt));
	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "direction", strcmp(dir, "LEFT") == 0 ?
	    "left" : "right");
	return imp_done(m, 0, emit(m, "bitShift", o, outname(m, 0), 2, a, b));
}

int
onnx_identity(struct imp *m)
{
	bind(m, 0, in(m, 0));
	return 0;
}

/* Is the operand a constant whose every element is zero?  1 yes, 0 no,
 * -1 when it is not a constant. */
static int
allzero(struct imp *m, const char *x)
{
	double *v;
	size_t n, i;

	if (cfloats(m, x, &v, &n) != 0)
		return -1;
	for (i = 0; i < n && v[i] == 0; i++)
		;
	free(v);
	return i == n;
}

/*
 * Dropout is the identity at inference (training_mode absent or a
 * constant false) and in training with a ratio of 0 (nothing dropped);
 * its mask then keeps everything.  A real random dropout is refused.
 */
int
onnx_dropout(struct imp *m)
{
	const char *x = in(m, 0), *ratio = in(m, 1), *train = in(m, 2);
	int zero = ratio ? allzero(m, ratio) : 0, off;

	if (m->opset < 12)	/* ratio was an attribute until opset 12 */
		zero = att_f(m, "ratio", 0.5) == 0;
	off = train ? allzero(m, train) : 1;
	if (m->opset < 7)	/* is_test, default 0, said training */
		off = att_i(m, "is_test", 0) != 0;
	if (off == 0 && zero != 1)
		return refuse(m, REFUSE_ATTR, "training_mode is true and "
		    "the ratio is %s", zero ? "not constant" : "not 0");
	if (off < 0 && zero != 1)
		return refuse(m, REFUSE_CONST, "training_mode must be "
		    "constant (or the ratio a constant 0)");
	if (nouts(m) > 1 && outname(m, 1)) {
		/* the mask of an identity dropout keeps everything */
		const struct tdesc *t = ty(m, x);
		uint64_t n = tdesc_numel(t);
		unsigned char *ones = xmalloc(n + 1);
		const char *mask;

		memset(ones, 1, n + 1);
		mask = mkconst(m, outname(m, 1), DT_UINT8, t->rank, t->dims,
		    ones);
		free(ones);
		bind(m, 1, mask);
	}
	bind(m, 0, x);
	return 0;
}

int
onnx_binary(struct imp *m)
{
	static const char *const map[] = {
		"Add", "add", "Sub", "sub", "Mul", "mul", "Div", "div",
		"Pow", "pow", "Equal", "equal", "Greater", "greater",
		"GreaterOrEqual", "greaterOrEqual", "Less", "lesser",
		"LessOrEqual", "lesserOrEqual", "And", "logicalAnd",
		"Or", "logicalOr", "Xor", "logicalXor", "PRelu", "prelu",
		NULL,
	};
	const char *op = webnnof(m->n->op_type, map);
	const char *a = in(m, 0), *b = in(m, 1), *y;
	enum dtype dt = ty(m, a)->dt;

	if (strcmp(op, "pow") == 0 && a && b && !isfloat(dt) &&
	    isfloat(ty(m, b)->dt)) {
		/* an integer to a float power: in float, as ONNX computes
		 * it, truncated back (float32, which WebNN has, rounds
		 * results past 2^24 that float64 would not) */
		cJSON *o = cJSON_CreateObject();

		cJSON_AddStringToObject(o, "dataType", dtype_name(dt));
		y = emit(m, "pow", NULL, NULL, 2, imp_cast(m, a, DT_FLOAT32),
		    imp_cast(m, b, DT_FLOAT32));
		if (!y)
			cJSON_Delete(o);
		return imp_done(m, 0, y ? emit(m, "cast", o, outname(m, 0), 1,
		    y) : NULL);
	}
	if (strcmp(op, "pow") == 0)	/* integers: exact, wrapping */
		b = imp_cast(m, b, dt);
	/* integer div truncates toward zero in WebNN, as in ONNX */
	if (strcmp(op, "prelu") == 0 && !isfloat(dt))
		return refuse(m, REFUSE_TYPE, "prelu on %s", dtype_name(dt));
	if (!b || !(y = emit(m, op, NULL, outname(m, 0), 2, a, b)))
		return -1;
	bind(m, 0, y);
	return 0;
}

int
onnx_variadic(struct imp *m)
{
	const char *op = strcmp(m->n->op_type, "Max") == 0 ? "max" :
	    strcmp(m->n->op_type, "Min") == 0 ? "min" : "add";
	const char *acc = in(m, 0);
	int n = nins(m);

	for (int i = 1; i < n && acc; i++)
		acc = emit(m, op, NULL, i == n - 1 &&
		    strcmp(m->n->op_type, "Mean") ? outname(m, 0) : NULL, 2,
		    acc, in(m, i));
	if (acc && strcmp(m->n->op_type, "Mean") == 0) {
		if (!isfloat(ty(m, acc)->dt))
			return refuse(m, REFUSE_TYPE, "mean of integers");
		acc = emit(m, "div", NULL, outname(m, 0), 2, acc,
		    mkscalar(m, ty(m, acc)->dt, n));
	}
	if (!acc)
		return -1;
	if (n == 1 && !(acc = emit(m, "identity", NULL, outname(m, 0), 1,
	    acc)))
		return -1;
	bind(m, 0, acc);
	return 0;
}

int
onnx_where(struct imp *m)
{
	const char *y = emit(m, "where", NULL, outname(m, 0), 3, in(m, 0),
	    in(m, 1), in(m, 2));

	return imp_done(m, 0, y);
}

static cJSON *
alpha(const char *name, double v)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddNumberToObject(o, name, v);
	return o;
}

/* Gelu's tanh approximation: x / 2 * (1 + tanh(sqrt(2 / pi) *
 * (x + 0.044715 x^3))). */
static const char *
geltanh(struct imp *m, const char *x, enum dtype dt, const char *out)
{
	const char *c = emit(m, "mul", NULL, NULL, 2, x,
	    emit(m, "mul", NULL, NULL, 2, x, x));
	const char *t;

	c = c ? emit(m, "mul", NULL, NULL, 2, c, mkscalar(m, dt, 0.044715)) :
	    NULL;
	c = c ? emit(m, "add", NULL, NULL, 2, x, c) : NULL;
	c = c ? emit(m, "mul", NULL, NULL, 2, c,
	    mkscalar(m, dt, 0.79788456080286535588)) : NULL;
	t = c ? emit(m, "tanh", NULL, NULL, 1, c) : NULL;
	t = t ? emit(m, "add", NULL, NULL, 2, t, mkscalar(m, dt, 1)) : NULL;
	t = t ? emit(m, "mul", NULL, NULL, 2, t, mkscalar(m, dt, 0.5)) : NULL;
	return t ? emit(m, "mul", NULL, out, 2, x, t) : NULL;
}

int
onnx_activation(struct imp *m)
{
	const char *op = m->n->op_type, *x = in(m, 0), *y = NULL, *out =
	    outname(m, 0);
	enum dtype dt = ty(m, x)->dt;

	if (!isfloat(dt))
		return refuse(m, REFUSE_TYPE, "%s on %s", escape_tty_name(op),
		    dtype_name(dt));
	if (strcmp(op, "LeakyRelu") == 0) {
		y = emit(m, "leakyRelu", alpha("alpha", att_f(m, "alpha",
		    0.01)), out, 1, x);
	} else if (strcmp(op, "Elu") == 0) {
		y = emit(m, "elu", alpha("alpha", att_f(m, "alpha", 1)), out,
		    1, x);
	} else if (strcmp(op, "HardSigmoid") == 0) {
		cJSON *o = alpha("alpha", att_f(m, "alpha", 0.2));

		cJSON_AddNumberToObject(o, "beta", att_f(m, "beta", 0.5));
		y = emit(m, "hardSigmoid", o, out, 1, x);
	} else if (strcmp(op, "Selu") == 0) {
		/* gamma * elu(x, alpha) */
		double a = att_f(m, "alpha", 1.67326319217681884765625);
		double g = att_f(m, "gamma", 1.05070102214813232421875);

		y = emit(m, "elu", alpha("alpha", a), NULL, 1, x);
		y = y ? emit(m, "mul", NULL, out, 2, y, mkscalar(m, dt, g)) :
		    NULL;
	} else if (strcmp(op, "Celu") == 0) {
		/* alpha * elu(x / alpha, 1) */
		double a = att_f(m, "alpha", 1);

		y = emit(m, "div", NULL, NULL, 2, x, mkscalar(m, dt, a));
		y = y ? emit(m, "elu", NULL, NULL, 1, y) : NULL;
		y = y ? emit(m, "mul", NULL, out, 2, y, mkscalar(m, dt, a)) :
		    NULL;
	} else if (strcmp(op, "ThresholdedRelu") == 0) {
		const char *c = emit(m, "greater", NULL, NULL, 2, x,
		    mkscalar(m, dt, att_f(m, "alpha", 1)));

		y = c ? emit(m, "where", NULL, out, 3, c, x,
		    mkscalar(m, dt, 0)) : NULL;
	} else if (strcmp(op, "Shrink") == 0) {
		/* x < -l: x + b;  x > l: x - b;  else 0 */
		double l = att_f(m, "lambd", 0.5), b = att_f(m, "bias", 0);
		const char *lo = emit(m, "lesser", NULL, NULL, 2, x,
		    mkscalar(m, dt, -l));
		const char *hi = emit(m, "greater", NULL, NULL, 2, x,
		    mkscalar(m, dt, l));
		const char *xp = emit(m, "add", NULL, NULL, 2, x,
		    mkscalar(m, dt, b));
		const char *xm = emit(m, "sub", NULL, NULL, 2, x,
		    mkscalar(m, dt, b));
		const char *t = hi && xm ? emit(m, "where", NULL, NULL, 3, hi,
		    xm, mkscalar(m, dt, 0)) : NULL;

		y = lo && xp && t ? emit(m, "where", NULL, out, 3, lo, xp, t) :
		    NULL;
	} else if (strcmp(op, "Gelu") == 0) {
		const char *ap = att_s(m, "approximate", "none");

		if (strcmp(ap, "tanh") == 0)
			y = geltanh(m, x, dt, out);
		else if (strcmp(ap, "none") == 0)
			y = emit(m, "gelu", NULL, out, 1, x);
		else
			return nodeerr(m, "approximate \"%s\"",
			    escape_tty_name(ap));
	}
	return imp_done(m, 0, y);
}

/* A constant bound's (first) value into *v; absent ones leave it. */
static void
firstval(struct imp *m, const char *c, double *v)
{
	double *a;
	size_t n;

	if (c && cfloats(m, c, &a, &n) == 0) {
		if (n)
			*v = a[0];
		free(a);
	}
}

int
onnx_clip(struct imp *m)
{
	const char *x = in(m, 0), *lo = NULL, *hi = NULL, *y = x;
	double vlo = -INFINITY, vhi = INFINITY;
	enum dtype dt = ty(m, x)->dt;
	cJSON *o;

	if (m->opset < 11) {
		vlo = att_f(m, "min", -INFINITY);
		vhi = att_f(m, "max", INFINITY);
	} else {
		lo = in(m, 1);
		hi = in(m, 2);
	}
	/* bounds computed at run time, or integers clamp's double bounds
	 * may not hold exactly: max and min */
	if (dt == DT_UINT8 || dt == DT_INT8 || dt == DT_UINT32 ||
	    dt == DT_UINT64 || dt == DT_INT16 || dt == DT_UINT16 || (lo && !isconst(m, lo)) ||
	    (hi && !isconst(m, hi))) {
		if (lo)
			y = emit(m, "max", NULL, NULL, 2, y, lo);
		if (y && hi)
			y = emit(m, "min", NULL, NULL, 2, y, hi);
		return imp_done(m, 0, y ? emit(m, "identity", NULL,
		    outname(m, 0), 1, y) : NULL);
	}
	firstval(m, lo, &vlo);
	firstval(m, hi, &vhi);
	o = cJSON_CreateObject();
	if (isfinite(vlo) || !isfloat(dt))
		cJSON_AddNumberToObject(o, "minValue", isfinite(vlo) ? vlo :
		    -1e300);
	if (isfinite(vhi) || !isfloat(dt))
		cJSON_AddNumberToObject(o, "maxValue", isfinite(vhi) ? vhi :
		    1e300);
	if (!(y = emit(m, "clamp", o, outname(m, 0), 1, x)))
		return -1;
	bind(m, 0, y);
	return 0;
}

int
onnx_cast(struct imp *m)
{
	const char *x = in(m, 0), *tn, *y;
	enum dtype to;
	cJSON *o;

	if (strcmp(m->n->op_type, "CastLike") == 0) {
		to = ty(m, in(m, 1))->dt;
	} else {
		int64_t t = att_i(m, "to", 0);

		if ((to = onnx_dtype((int32_t)t, &tn)) == DT_NONE)
			return refuse(m, REFUSE_TYPE,
			    "cast to %s", escape_tty_name(tn));
		if (t == 9) {	/* BOOL: any non-zero is true */
			y = emit(m, "notEqual", NULL, outname(m, 0), 2, x,
			    mkscalar(m, ty(m, x)->dt, 0));
			if (!y)
				return -1;
			bind(m, 0, y);
			return 0;
		}
	}
	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "dataType", dtype_name(to));
	if (!(y = emit(m, "cast", o, outname(m, 0), 1, x)))
		return -1;
	bind(m, 0, y);
	return 0;
}

int
onnx_isinf(struct imp *m)
{
	const char *x = in(m, 0), *y;
	int pos = (int)att_i(m, "detect_positive", 1);
	int neg = (int)att_i(m, "detect_negative", 1);
	enum dtype dt = ty(m, x)->dt;

	if (!isfloat(dt))
		return refuse(m, REFUSE_TYPE, "IsInf on %s", dtype_name(dt));
	if (pos && neg)
		y = emit(m, "isInfinite", NULL, outname(m, 0), 1, x);
	else if (pos || neg)
		y = emit(m, "equal", NULL, outname(m, 0), 2, x, mkscalar(m, dt,
		    pos ? INFINITY : -INFINITY));
	else
		y = emit(m, "notEqual", NULL, outname(m, 0), 2, x, x),
		y = y ? emit(m, "logicalAnd", NULL, NULL, 2, y,
		    emit(m, "equal", NULL, NULL, 2, x, x)) : NULL;
	return imp_done(m, 0, y);
}

/* Integer Mod from WebNN's truncating div: the C remainder, moved
 * into the divisor's sign unless fmod. */
static const char *
intmod(struct imp *m, const char *a, const char *b, int fmod,
    const char *out)
{
	enum dtype dt = ty(m, a)->dt;
	const char *q = emit(m, "div", NULL, NULL, 2, a, b), *r, *z, *c;

	r = q ? emit(m, "sub", NULL, fmod || !dtype_issigned(dt) ? out :
	    NULL, 2, a, emit(m, "mul", NULL, NULL, 2, q, b)) : NULL;
	if (!r || fmod || !dtype_issigned(dt))
		return r;
	z = mkscalar(m, dt, 0);
	/* r != 0 and (r < 0) != (b < 0): r + b */
	c = emit(m, "logicalAnd", NULL, NULL, 2,
	    emit(m, "notEqual", NULL, NULL, 2, r, z),
	    emit(m, "notEqual", NULL, NULL, 2,
	    emit(m, "lesser", NULL, NULL, 2, r, z),
	    emit(m, "lesser", NULL, NULL, 2, b, z)));
	return c ? emit(m, "where", NULL, out, 3, c,
	    emit(m, "add", NULL, NULL, 2, r, b), r) : NULL;
}

int
onnx_mod(struct imp *m)
{
	const char *a = in(m, 0), *b = in(m, 1), *q, *y;
	enum dtype dt = ty(m, a)->dt;
	int fmod = (int)att_i(m, "fmod", 0);

	if (!isfloat(dt)) {
		if (!(y = intmod(m, a, b, fmod, outname(m, 0))))
			return -1;
		bind(m, 0, y);
		return 0;
	}
	/* fmod: a - trunc(a / b) * b; else a - floor(a / b) * b */
	q = emit(m, "div", NULL, NULL, 2, a, b);
	if (q && fmod) {
		const char *f = emit(m, "floor", NULL, NULL, 1,
		    emit(m, "abs", NULL, NULL, 1, q));

		q = f ? emit(m, "mul", NULL, NULL, 2, f, emit(m, "sign", NULL,
		    NULL, 1, q)) : NULL;
	} else if (q) {
		q = emit(m, "floor", NULL, NULL, 1, q);
	}
	q = q ? emit(m, "mul", NULL, NULL, 2, q, b) : NULL;
	y = q ? emit(m, "sub", NULL, outname(m, 0), 2, a, q) : NULL;
	return imp_done(m, 0, y);
}

/* Softmax, LogSoftmax, Hardmax over one axis of r dimensions. */
static const char *
softmax1(struct imp *m, const char *x, int axis, const char *out)
{
	const char *op = m->n->op_type;
	const struct tdesc *t = ty(m, x);
	enum dtype dt = t->dt;
	cJSON *o = cJSON_CreateObject();

	if (strcmp(op, "Softmax") == 0) {
		cJSON_AddNumberToObject(o, "axis", axis);
		return emit(m, "softmax", o, out, 1, x);
	}
	if (strcmp(op, "LogSoftmax") == 0) {
		uint32_t ax = (uint32_t)axis;
		const char *l;

		cJSON_AddItemToObject(o, "axes", ju32s(&ax, 1));
		cJSON_AddTrueToObject(o, "keepDimensions");
		l = emit(m, "reduceLogSumExp", o, NULL, 1, x);
		return l ? emit(m, "sub", NULL, out, 2, x, l) : NULL;
	} else {
		/* Hardmax: 1 at the first largest item, 0 elsewhere */
		int64_t n = t->dims[axis], *dims = xcalloc((size_t)t->rank + 1,
		    sizeof *dims);
		int64_t *iota = xcalloc((size_t)n + 1, sizeof *iota);
		const char *am, *idx, *eq;

		for (int i = 0; i < t->rank; i++)
			dims[i] = i == axis ? n : 1;
		for (int64_t i = 0; i < n; i++)
			iota[i] = i;
		cJSON_AddNumberToObject(o, "axis", axis);
		cJSON_AddTrueToObject(o, "keepDimensions");
		cJSON_AddStringToObject(o, "outputDataType", "int64");
		am = emit(m, "argMax", o, NULL, 1, x);
		idx = mkconst(m, NULL, DT_INT64, t->rank, dims, iota);
		free(dims);
		free(iota);
		eq = am ? emit(m, "equal", NULL, NULL, 2, am, idx) : NULL;
		o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "dataType", dtype_name(dt));
		return eq ? emit(m, "cast", o, out, 1, eq) : NULL;
	}
}

int
onnx_softmax(struct imp *m)
{
	const char *x = in(m, 0), *y;
	const struct tdesc *t = ty(m, x);
	int r = t->rank;
	int64_t axis = att_i(m, "axis", m->opset >= 13 ? -1 : 1);

	if (!isfloat(t->dt))
		return refuse(m, REFUSE_TYPE,
		    "%s on %s", escape_tty_name(m->n->op_type),
		    dtype_name(t->dt));
	if (axis < -r || axis >= (r ? r : 1))
		return nodeerr(m, "axis %lld is out of range for rank %d",
		    (long long)axis, r);
	if (axis < 0)
		axis += r;
	if (m->opset >= 13 || r <= 1) {
		y = softmax1(m, x, (int)axis, outname(m, 0));
	} else {
		/* before opset 13: over everything from axis on */
		int64_t d2[2] = { 1, 1 };
		uint32_t s[2];
		cJSON *o = cJSON_CreateObject();
		const char *f;

		for (int i = 0; i < r; i++)
			d2[i >= axis] *= t->dims[i];
		s[0] = (uint32_t)d2[0];
		s[1] = (uint32_t)d2[1];
		cJSON_AddItemToObject(o, "newShape", ju32s(s, 2));
		f = emit(m, "reshape", o, NULL, 1, x);
		f = f ? softmax1(m, f, 1, NULL) : NULL;
		if (f) {
			uint32_t *d = xcalloc((size_t)r + 1, sizeof *d);

			for (int i = 0; i < r; i++)
				d[i] = (uint32_t)t->dims[i];
			o = cJSON_CreateObject();
			cJSON_AddItemToObject(o, "newShape", ju32s(d,
			    (size_t)r));
			free(d);
			f = emit(m, "reshape", o, outname(m, 0), 1, f);
		}
		y = f;
	}
	return imp_done(m, 0, y);
}

/* Sinh, Cosh, Asinh, Acosh, Atanh through exp, log and sqrt. */
int
onnx_hyperbolic(struct imp *m)
{
	const char *op = m->n->op_type, *x = in(m, 0), *y, *out =
	    outname(m, 0);
	enum dtype dt = ty(m, x)->dt;
	const char *half = mkscalar(m, dt, 0.5), *one = mkscalar(m, dt, 1);

	if (!isfloat(dt))
		return refuse(m, REFUSE_TYPE, "%s on %s", escape_tty_name(op),
		    dtype_name(dt));
	if (strcmp(op, "Sinh") == 0 || strcmp(op, "Cosh") == 0) {
		/* (exp(x) -+ exp(-x)) / 2 */
		const char *a = emit(m, "exp", NULL, NULL, 1, x);
		const char *b = emit(m, "exp", NULL, NULL, 1,
		    emit(m, "neg", NULL, NULL, 1, x));

		y = a && b ? emit(m, op[0] == 'S' ? "sub" : "add", NULL, NULL,
		    2, a, b) : NULL;
		y = y ? emit(m, "mul", NULL, out, 2, y, half) : NULL;
	} else if (strcmp(op, "Atanh") == 0) {
		/* log((1 + x) / (1 - x)) / 2 */
		const char *a = emit(m, "add", NULL, NULL, 2, one, x);
		const char *b = emit(m, "sub", NULL, NULL, 2, one, x);

		y = a && b ? emit(m, "log", NULL, NULL, 1,
		    emit(m, "div", NULL, NULL, 2, a, b)) : NULL;
		y = y ? emit(m, "mul", NULL, out, 2, y, half) : NULL;
	} else {
		/* log(x + sqrt(x * x +- 1)) */
		const char *sq = emit(m, "mul", NULL, NULL, 2, x, x);

		sq = sq ? emit(m, strcmp(op, "Asinh") == 0 ? "add" : "sub",
		    NULL, NULL, 2, sq, one) : NULL;
		sq = sq ? emit(m, "sqrt", NULL, NULL, 1, sq) : NULL;
		y = sq ? emit(m, "log", NULL, out, 1,
		    emit(m, "add", NULL, NULL, 2, x, sq)) : NULL;
	}
	return imp_done(m, 0, y);
}

/* A per-axis scale or zero point [C] as [1, .., C, .., 1] for x. */
static const char *
peraxis(struct imp *m, const char *p, const struct tdesc *x, int64_t axis)
{
	const struct tdesc *t = ty(m, p);
	int64_t d[32];

	if (t->rank != 1 || x->rank <= 1 || x->rank > 32)
		return p;
	for (int i = 0; i < x->rank; i++)
		d[i] = i == axis ? t->dims[0] : 1;
	return imp_reshape(m, p, x->rank, d, NULL);
}

/* QuantizeLinear, DequantizeLinear: per tensor or along axis. */
int
onnx_quant(struct imp *m)
{
	int q = strcmp(m->n->op_type, "QuantizeLinear") == 0;
	const char *x = in(m, 0), *s = in(m, 1), *z = in(m, 2), *y;
	const struct tdesc *xt = ty(m, x), *st = ty(m, s);
	int64_t axis = att_i(m, "axis", 1);
	enum dtype zdt = z ? ty(m, z)->dt : q ? DT_UINT8 : xt->dt;

	if (st->dt != DT_FLOAT32 && st->dt != DT_FLOAT16)
		return refuse(m, REFUSE_TYPE,
		    "a scale of %s", dtype_name(st->dt));
	if (zdt != DT_INT8 && zdt != DT_UINT8 && (q || zdt != DT_INT32))
		return refuse(m, REFUSE_TYPE, "%s %s", q ? "quantizing to" :
		    "dequantizing from", dtype_name(zdt));
	if (axis < 0)
		axis += xt->rank;
	if (st->rank > 1 || (st->rank == 1 && (axis < 0 || axis >= xt->rank ||
	    st->dims[0] != xt->dims[axis])))
		return nodeerr(m, "scale %s does not fit axis %lld of the "
		    "input", shape_str(st), (long long)axis);
	if (!z) {
		void *zero = xcalloc(tdesc_numel(st) * 4 + 4, 1);

		z = mkconst(m, NULL, zdt, st->rank, st->dims, zero);
		free(zero);
	}
	s = peraxis(m, s, xt, axis);
	z = s ? peraxis(m, z, xt, axis) : NULL;
	y = z ? emit(m, q ? "quantizeLinear" : "dequantizeLinear", NULL,
	    outname(m, 0), 3, x, s, z) : NULL;
	return imp_done(m, 0, y);
}

/* DynamicQuantizeLinear: uint8 with the scale and zero point of x's
 * range widened to hold 0, as ONNX defines them. */
int
onnx_dynquant(struct imp *m)
{
	const char *x = in(m, 0), *mx, *mn, *s, *z, *zf, *y;
	cJSON *o;

	if (ty(m, x)->dt != DT_FLOAT32)
		return refuse(m, REFUSE_TYPE, "DynamicQuantizeLinear of %s",
		    dtype_name(ty(m, x)->dt));
	mx = emit(m, "max", NULL, NULL, 2, emit(m, "reduceMax", NULL, NULL,
	    1, x), mkscalar(m, DT_FLOAT32, 0));
	mn = emit(m, "min", NULL, NULL, 2, emit(m, "reduceMin", NULL, NULL,
	    1, x), mkscalar(m, DT_FLOAT32, 0));
	s = mx && mn ? emit(m, "div", NULL, outname(m, 1), 2,
	    emit(m, "sub", NULL, NULL, 2, mx, mn),
	    mkscalar(m, DT_FLOAT32, 255)) : NULL;
	/* zero point: clamp(roundEven(-min / scale), 0, 255) */
	zf = s ? emit(m, "roundEven", NULL, NULL, 1, emit(m, "div", NULL,
	    NULL, 2, emit(m, "neg", NULL, NULL, 1, mn), s)) : NULL;
	o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "minValue", 0);
	cJSON_AddNumberToObject(o, "maxValue", 255);
	zf = zf ? emit(m, "clamp", o, NULL, 1, zf) : (cJSON_Delete(o), NULL);
	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "dataType", "uint8");
	z = zf ? emit(m, "cast", o, outname(m, 2), 1, zf) :
	    (cJSON_Delete(o), NULL);
	y = z ? emit(m, "quantizeLinear", NULL, outname(m, 0), 3, x, s, z) :
	    NULL;
	if (!y)
		return -1;
	bind(m, 0, y);
	bind(m, 1, s);
	bind(m, 2, z);
	return 0;
}
