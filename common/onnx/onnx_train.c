/*
 * onnx_train: the optimizers of the ai.onnx.preview.training domain
 * (version 1): Adagrad, Adam and Momentum.  Each is one step of an
 * elementwise formula (the operator's definition in the ONNX schema),
 * lowered here into WebNN's elementwise ops.  The inputs are R (the
 * learning rate) and T (the update count, int64), then the groups: all
 * X, then all G, then each state in turn (H; V and H; V); the outputs
 * are all new X, then each new state.  Every group is updated alone,
 * which is what "several tensors viewed as one" means for an
 * elementwise formula.
 */
#include <math.h>
#include <string.h>

#include "escape.h"
#include "onnx_imp.h"

static const char *
bin(struct imp *m, const char *op, const char *a, const char *b)
{
	return a && b ? emit(m, op, NULL, NULL, 2, a, b) : NULL;
}

static const char *
sc(struct imp *m, const char *x, double v)
{
	return x ? mkscalar(m, ty(m, x)->dt, v) : NULL;
}

/* The number of groups of a node taking R, T and groups of nstate + 2
 * inputs (X, G, states), giving nstate + 1 outputs each; 0 after an
 * error. */
static int
groups(struct imp *m, int nstate)
{
	int per = nstate + 2, n = nins(m) - 2;

	if (n <= 0 || n % per || nouts(m) != n / per * (nstate + 1)) {
		nodeerr(m, "%d inputs and %d outputs; %s takes R, T and %d "
		    "inputs per tensor updated, gives %d outputs per tensor",
		    nins(m), nouts(m), escape_tty_name(m->n->op_type), per,
		    nstate + 1);
		return 0;
	}
	for (int i = 0; i < nins(m); i++)
		if (!in(m, i))
			return nodeerr(m, "input %d is required", i), 0;
	return n / per;
}

/* A float attribute, or dflt; required when dflt is NaN. */
static int
attf(struct imp *m, const char *name, double dflt, double *v)
{
	if (!att(m, name) && isnan(dflt))
		return nodeerr(m, "attribute \"%s\" is required", name);
	*v = att_f(m, name, dflt);
	return 0;
}

/* Output k bound to y when the node names it. */
static int
out(struct imp *m, int k, const char *y)
{
	if (!y)
		return -1;
	if (outname(m, k))
		bind(m, k, y);
	return 0;
}

/* R and T as x's type, and whether T > 0 (a bool operand). */
static int
rt(struct imp *m, const char *x, const char **r, const char **t,
    const char **pos)
{
	enum dtype dt = ty(m, x)->dt;

	if (ty(m, in(m, 1))->dt != DT_INT64)
		return nodeerr(m, "input T is %s; it must be int64",
		    dtype_name(ty(m, in(m, 1))->dt));
	*r = imp_cast(m, in(m, 0), dt);
	*t = imp_cast(m, in(m, 1), dt);
	*pos = bin(m, "greater", *t, sc(m, *t, 0));
	return *r && *t && *pos ? 0 : -1;
}

/* norm_coefficient * X + G */
static const char *
regularized(struct imp *m, double nc, const char *x, const char *g)
{
	return bin(m, "add", bin(m, "mul", sc(m, x, nc), x), g);
}

int
onnx_adagrad(struct imp *m)
{
	int k = groups(m, 1);
	double decay = 0, eps = 0, nc = 0;
	const char *r, *t, *pos;

	if (!k || attf(m, "decay_factor", 0, &decay) ||
	    attf(m, "epsilon", 1e-6f, &eps) ||
	    attf(m, "norm_coefficient", 0, &nc) ||
	    rt(m, in(m, 2), &r, &t, &pos))
		return -1;
	/* r = R / (1 + T * decay_factor) */
	r = bin(m, "div", r, bin(m, "add", sc(m, t, 1),
	    bin(m, "mul", t, sc(m, t, decay))));
	for (int i = 0; i < k; i++) {
		const char *x = in(m, 2 + i), *h = in(m, 2 + 2 * k + i);
		const char *g = regularized(m, nc, x, in(m, 2 + k + i));
		const char *hn = bin(m, "add", h, bin(m, "mul", g, g));
		const char *ha = bin(m, "add", hn ? emit(m, "sqrt", NULL,
		    NULL, 1, hn) : NULL, sc(m, x, eps));

		if (out(m, i, bin(m, "sub", x, bin(m, "div",
		    bin(m, "mul", r, g), ha))) || out(m, k + i, hn))
			return -1;
	}
	return 0;
}

int
onnx_adam(struct imp *m)
{
	int k = groups(m, 2);
	double a = 0, b = 0, eps = 0, nc = 0, ncp = 0;
	const char *r, *t, *pos, *radj;

	if (!k || attf(m, "alpha", 0.9f, &a) || attf(m, "beta", 0.999f, &b) ||
	    attf(m, "epsilon", 1e-6f, &eps) ||
	    attf(m, "norm_coefficient", 0, &nc) ||
	    attf(m, "norm_coefficient_post", 0, &ncp) ||
	    rt(m, in(m, 2), &r, &t, &pos))
		return -1;
	/* T > 0 ? R * sqrt(1 - beta^T) / (1 - alpha^T) : R */
	radj = bin(m, "div", bin(m, "mul", r, emit(m, "sqrt", NULL, NULL, 1,
	    bin(m, "sub", sc(m, t, 1), bin(m, "pow", sc(m, t, b), t)))),
	    bin(m, "sub", sc(m, t, 1), bin(m, "pow", sc(m, t, a), t)));
	radj = radj ? emit(m, "where", NULL, NULL, 3, pos, radj, r) : NULL;
	for (int i = 0; i < k; i++) {
		const char *x = in(m, 2 + i), *v = in(m, 2 + 2 * k + i);
		const char *h = in(m, 2 + 3 * k + i);
		const char *g = regularized(m, nc, x, in(m, 2 + k + i));
		const char *vn = bin(m, "add", bin(m, "mul", sc(m, x, a), v),
		    bin(m, "mul", sc(m, x, 1 - a), g));
		const char *hn = bin(m, "add", bin(m, "mul", sc(m, x, b), h),
		    bin(m, "mul", bin(m, "mul", sc(m, x, 1 - b), g), g));
		const char *hs = bin(m, "add", hn ? emit(m, "sqrt", NULL,
		    NULL, 1, hn) : NULL, sc(m, x, eps));
		const char *xn = bin(m, "sub", x, bin(m, "div",
		    bin(m, "mul", radj, vn), hs));

		if (out(m, i, bin(m, "mul", sc(m, x, 1 - ncp), xn)) ||
		    out(m, k + i, vn) || out(m, 2 * k + i, hn))
			return -1;
	}
	return 0;
}

int
onnx_momentum(struct imp *m)
{
	int k = groups(m, 1), nesterov;
	double a = 0, b = 0, nc = 0;
	const char *r, *t, *pos, *badj, *mode = att_s(m, "mode", NULL);

	if (!k || attf(m, "alpha", NAN, &a) ||
	    attf(m, "beta", NAN, &b) ||
	    attf(m, "norm_coefficient", NAN, &nc))
		return -1;
	if (!mode)
		return nodeerr(m, "attribute \"mode\" is required");
	if (strcmp(mode, "standard") && strcmp(mode, "nesterov"))
		return refuse(m, REFUSE_ATTR, "mode \"%s\" (only \"standard\" "
		    "and \"nesterov\" are defined)", escape_tty_name(mode));
	nesterov = strcmp(mode, "nesterov") == 0;
	if (rt(m, in(m, 2), &r, &t, &pos))
		return -1;
	/* T > 0 ? beta : 1 */
	badj = emit(m, "where", NULL, NULL, 3, pos, sc(m, t, b),
	    sc(m, t, 1));
	for (int i = 0; i < k; i++) {
		const char *x = in(m, 2 + i), *v = in(m, 2 + 2 * k + i);
		const char *g = regularized(m, nc, x, in(m, 2 + k + i));
		const char *vn = bin(m, "add", bin(m, "mul", sc(m, x, a), v),
		    bin(m, "mul", badj, g));
		const char *d = nesterov ? bin(m, "add", g,
		    bin(m, "mul", sc(m, x, a), vn)) : vn;

		if (out(m, i, bin(m, "sub", x, bin(m, "mul", r, d))) ||
		    out(m, k + i, vn))
			return -1;
	}
	return 0;
}
