/*
 * onnx_bounded: values whose size is known only at run time (NonZero,
 * NonMaxSuppression, Unique, and Range, ConstantOfShape, the windows
 * and MelWeightMatrix of a computed size), held at a bound with their
 * actual shape in an operand beside them (nnl-graph(5)).  Which nodes
 * may read one: an elementwise op, whose result has the same count and
 * so the same shape operand, with every other input of one element;
 * any other node is refused, since it would compute on the bound, not
 * on the value.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "onnx_imp.h"
#include "escape.h"
#include "shape.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* ONNX's elementwise ops: one output, each item from the items at the
 * same place in the inputs (or from an input of one item). */
static const char *const ELEMENTWISE[] = {
	"Abs", "Acos", "Acosh", "Asin", "Asinh", "Atan", "Atanh", "Ceil",
	"Cos", "Cosh", "Erf", "Exp", "Floor", "Identity", "IsInf", "IsNaN",
	"Log", "Neg", "Not", "Reciprocal", "Relu", "Round", "Sigmoid",
	"Sign", "Sin", "Sinh", "Softplus", "Softsign", "Sqrt", "Tan", "Tanh",
	"Cast", "CastLike", "Elu", "LeakyRelu", "HardSigmoid", "Selu", "Celu",
	"ThresholdedRelu", "Gelu", "Mish", "HardSwish", "Clip",
	"Add", "Sub", "Mul", "Div", "Pow", "Mod", "Max", "Min", "Sum",
	"Mean", "And", "Or", "Xor", "Equal", "Greater", "Less",
	"GreaterOrEqual", "LessOrEqual", "BitShift", "BitwiseAnd",
	"BitwiseOr", "BitwiseXor", "BitwiseNot", "Where", NULL
};

static int
elementwise(const char *op)
{
	for (int i = 0; ELEMENTWISE[i]; i++)
		if (strcmp(op, ELEMENTWISE[i]) == 0)
			return 1;
	return 0;
}

/* The shape operand of the value operand o, NULL when o's size is
 * known at import time. */
static const char *
shapeof(struct imp *m, const char *o)
{
	const cJSON *c = o ? cJSON_GetObjectItemCaseSensitive(m->bounded, o) :
	    NULL;

	return c ? c->valuestring : NULL;
}

int
onnx_bounded_reads(struct imp *m, const char **shape, const char **value)
{
	const char *first = NULL;

	*shape = *value = NULL;
	for (size_t k = 0; k < m->n->n_input; k++) {
		const char *o = *m->n->input[k] ? imp_lookup(m,
		    m->n->input[k]) : NULL;

		if (shapeof(m, o) && !first)
			first = m->n->input[k];
		if (shapeof(m, o) && !*value) {
			*shape = shapeof(m, o);
			*value = o;
		}
	}
	if (!first)
		return 0;
	if (!elementwise(m->n->op_type))
		return refuse(m, REFUSE_DYNAMIC, "input \"%s\" has a size "
		    "known only at run time, which only elementwise ops and "
		    "graph outputs may read", escape_tty_name(first));
	for (size_t k = 0; k < m->n->n_input; k++) {
		const char *o = *m->n->input[k] ? imp_lookup(m,
		    m->n->input[k]) : NULL;
		const char *s = shapeof(m, o);

		if (!o)
			continue;
		if (s && (strcmp(s, *shape) ||
		    !tdesc_samedims(ty(m, o), ty(m, *value))))
			return refuse(m, REFUSE_DYNAMIC, "inputs \"%s\" and "
			    "\"%s\" have sizes known only at run time, not "
			    "known to be equal", escape_tty_name(first),
			    escape_tty_name(m->n->input[k]));
		if (!s && (tdesc_numel(ty(m, o)) != 1 ||
		    ty(m, o)->rank > ty(m, *value)->rank))
			return refuse(m, REFUSE_DYNAMIC, "input \"%s\" has a "
			    "size known only at run time, and input \"%s\" "
			    "%s is not one item it broadcasts to it",
			    escape_tty_name(first),
			    escape_tty_name(m->n->input[k]),
			    shape_str(ty(m, o)));
	}
	return 0;
}

int
onnx_bounded_mark(struct imp *m, const char *shape, const char *value)
{
	for (size_t k = 0; k < m->n->n_output; k++) {
		const char *o = *m->n->output[k] ? imp_lookup(m,
		    m->n->output[k]) : NULL;

		if (!o || shapeof(m, o))
			continue;
		if (!tdesc_samedims(ty(m, o), ty(m, value)))
			return refuse(m, REFUSE_DYNAMIC, "output \"%s\" %s is "
			    "not the shape of the value of run-time size it "
			    "reads", escape_tty_name(m->n->output[k]),
			    shape_str(ty(m, o)));
		cJSON_AddStringToObject(m->bounded, o, shape);
	}
	return 0;
}

/* An op of run-time size: nout outputs, the last its shape. */
static int
emitbounded(struct imp *m, const char *op, cJSON *o, const char **names,
    int nin, const char *const *ins)
{
	cJSON_AddNumberToObject(o, "bound", (double)m->bound);
	names[1] = NULL;
	if (emitn(m, op, o, 2, names, nin, ins) != 0)
		return -1;
	cJSON_AddStringToObject(m->bounded, names[0], names[1]);
	return 0;
}

int
onnx_range_bounded(struct imp *m)
{
	const char *ins[3], *names[2] = { outname(m, 0), NULL };

	for (int i = 0; i < 3; i++) {
		if (!(ins[i] = in(m, i)))
			return nodeerr(m, "start, limit and delta are "
			    "required");
		if (tdesc_numel(ty(m, ins[i])) != 1)
			return nodeerr(m, "input %d %s is not a scalar", i,
			    shape_str(ty(m, ins[i])));
	}
	if (emitbounded(m, "range", cJSON_CreateObject(), names, 3, ins))
		return -1;
	bind(m, 0, names[0]);
	return 0;
}

int
onnx_constantofshape_bounded(struct imp *m, enum dtype dt, double v)
{
	const char *s = in(m, 0), *names[2] = { outname(m, 0), NULL };
	const struct tdesc *t = ty(m, s);
	cJSON *o;

	if (t->dt != DT_INT64 || t->rank != 1)
		return nodeerr(m, "input %s %s is not int64 of rank 1",
		    escape_tty_name(m->n->input[0]), shape_str(t));
	if (t->dims[0] < 1)
		return refuse(m, REFUSE_EMPTY, "a shape of no entries");
	o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "value", v);
	cJSON_AddStringToObject(o, "dataType", dtype_name(dt));
	if (emitbounded(m, "constantOfShape", o, names, 1, &s))
		return -1;
	bind(m, 0, names[0]);
	return 0;
}

int
onnx_melweightmatrix_bounded(struct imp *m, enum dtype dt)
{
	const char *ins[5], *names[2] = { outname(m, 0), NULL };
	cJSON *o;

	for (int i = 0; i < 5; i++)
		if (tdesc_numel(ty(m, ins[i] = in(m, i))) != 1)
			return nodeerr(m, "input %d %s is not a scalar", i,
			    shape_str(ty(m, ins[i])));
	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "dataType", dtype_name(dt));
	if (emitbounded(m, "melWeightMatrix", o, names, 5, ins))
		return -1;
	bind(m, 0, names[0]);
	return 0;
}

/* a * x, b - x, ... of the window's terms, NULL after an error */
static const char *
op2(struct imp *m, const char *op, const char *a, const char *b)
{
	return a && b ? emit(m, op, NULL, NULL, 2, a, b) : NULL;
}

int
onnx_window_bounded(struct imp *m, enum dtype dt, int periodic)
{
	const char *op = m->n->op_type, *x = in(m, 0), *names[2];
	const char *n, *den, *ins[3], *ang, *y, *c1;
	const char *f = NULL;
	double a0, a1, a2 = 0;

	if (tdesc_numel(ty(m, x)) != 1)
		return nodeerr(m, "size %s is not a scalar",
		    shape_str(ty(m, x)));
	if (strcmp(op, "HannWindow") == 0)
		a0 = 0.5, a1 = 0.5;
	else if (strcmp(op, "HammingWindow") == 0)
		a0 = 25.0 / 46, a1 = 21.0 / 46;
	else
		a0 = 0.42, a1 = 0.5, a2 = 0.08;
	/* k * 2 pi / N for k in [0, size), N the size when periodic, the
	 * size - 1 else, at least 1 (one item: 0) */
	if (!(n = imp_cast(m, x, DT_FLOAT32)))
		return -1;
	if (ty(m, n)->rank)
		n = imp_reshape(m, n, 0, NULL, NULL);
	ins[0] = mkscalar(m, DT_FLOAT32, 0);
	ins[1] = n;
	ins[2] = mkscalar(m, DT_FLOAT32, 1);
	names[0] = NULL;
	if (!n || emitbounded(m, "range", cJSON_CreateObject(), names, 3,
	    ins))
		return -1;
	den = periodic ? n : op2(m, "sub", n, ins[2]);
	den = op2(m, "max", den, ins[2]);
	ang = op2(m, "mul", names[0], op2(m, "div", mkscalar(m, DT_FLOAT32,
	    2 * M_PI), den));
	c1 = op2(m, "mul", mkscalar(m, DT_FLOAT32, a1), ang ? emit(m, "cos",
	    NULL, NULL, 1, ang) : NULL);
	y = op2(m, "sub", mkscalar(m, DT_FLOAT32, a0), c1);
	if (a2 != 0 && y)
		y = op2(m, "add", y, op2(m, "mul", mkscalar(m, DT_FLOAT32, a2),
		    emit(m, "cos", NULL, NULL, 1, op2(m, "mul", ang,
		    mkscalar(m, DT_FLOAT32, 2)))));
	if (y)
		f = dt == DT_FLOAT32 ? y : imp_cast(m, y, dt);
	if (!f)
		return -1;
	cJSON_AddStringToObject(m->bounded, f, names[1]);
	bind(m, 0, f);
	return 0;
}
