/*
 * onnx_loss: NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss, and
 * the window functions, from WebNN operations and constants.
 */
#include <math.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif
#include <stdlib.h>
#include <string.h>

#include "onnx_imp.h"
#include "escape.h"

static cJSON *
axes1(const char *name, uint32_t axis)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddItemToObject(o, name, ju32s(&axis, 1));
	return o;
}

/* Everything summed, as a scalar. */
static const char *
sumall(struct imp *m, const char *x, const char *out)
{
	return emit(m, "reduceSum", NULL, out, 1, x);
}

/*
 * The loss of log-probabilities lp [N, C, d...] at labels [N, d...]:
 * -lp[n, label, d...] * weight[label], 0 where label == ignore_index,
 * reduced as the reduction attribute says.
 */
static const char *
nll(struct imp *m, const char *lp, const char *labels, const char *w,
    const char *out)
{
	const struct tdesc *t = ty(m, lp), *lt = ty(m, labels);
	const char *red = att_s(m, "reduction", "mean");
	const Onnx__AttributeProto *ig = att(m, "ignore_index");
	enum dtype dt = t->dt;
	int64_t d1[33];
	const char *safe = labels, *mask = NULL, *picked, *we, *loss;
	cJSON *o;

	if (t->rank < 2 || lt->rank != t->rank - 1 || t->rank > 31) {
		nodeerr(m, "input of rank %d and target of rank %d", t->rank,
		    lt->rank);
		return NULL;
	}
	if (strcmp(red, "none") && strcmp(red, "sum") && strcmp(red, "mean")) {
		nodeerr(m, "reduction \"%s\"", escape_tty_name(red));
		return NULL;
	}
	if (ig && ig->has_i) {
		const char *iv = mkscalar(m, lt->dt, (double)ig->i);

		mask = emit(m, "notEqual", NULL, NULL, 2, labels, iv);
		safe = mask ? emit(m, "where", NULL, NULL, 3, mask, labels,
		    mkscalar(m, lt->dt, 0)) : NULL;
		if (!safe)
			return NULL;
	}
	/* lp[n, label[n, d], d] through gatherElements on axis 1 */
	d1[0] = lt->dims[0];
	d1[1] = 1;
	for (int i = 1; i < lt->rank; i++)
		d1[i + 1] = lt->dims[i];
	picked = imp_reshape(m, safe, t->rank, d1, NULL);
	o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "axis", 1);
	picked = picked ? emit(m, "gatherElements", o, NULL, 2, lp, picked) :
	    NULL;
	picked = picked ? imp_reshape(m, picked, lt->rank, lt->dims, NULL) : NULL;
	if (!picked)
		return NULL;
	/* the weight of each item: weight[label], 0 when ignored */
	we = w ? emit(m, "gather", NULL, NULL, 2, w, safe) : NULL;
	if (mask) {
		const char *mf = imp_cast(m, mask, dt);

		we = we && mf ? emit(m, "mul", NULL, NULL, 2, we, mf) : mf;
	}
	loss = emit(m, "neg", NULL, NULL, 1, picked);
	if (we && loss)
		loss = emit(m, "mul", NULL, NULL, 2, loss, we);
	if (!loss)
		return NULL;
	if (strcmp(red, "none") == 0)
		return emit(m, "identity", NULL, out, 1, loss);
	if (strcmp(red, "sum") == 0)
		return sumall(m, loss, out);
	if (!we)	/* the mean over every item */
		return emit(m, "reduceMean", NULL, out, 1, loss);
	{
		const char *s = sumall(m, loss, NULL), *n = sumall(m, we, NULL);

		return s && n ? emit(m, "div", NULL, out, 2, s, n) : NULL;
	}
}

static int
floaty(struct imp *m, const char *x)
{
	enum dtype dt = ty(m, x)->dt;

	if (dt == DT_FLOAT32 || dt == DT_FLOAT16)
		return 0;
	return refuse(m, REFUSE_TYPE,
	    "%s on %s", escape_tty_name(m->n->op_type),
	    dtype_name(dt));
}

int
onnx_nll(struct imp *m)
{
	const char *y;

	if (floaty(m, in(m, 0)))
		return REFUSED;
	if (!(y = nll(m, in(m, 0), in(m, 1), in(m, 2), outname(m, 0))))
		return -1;
	bind(m, 0, y);
	return 0;
}

int
onnx_sce(struct imp *m)
{
	const char *x = in(m, 0), *lp, *l, *y;

	if (floaty(m, x))
		return REFUSED;
	/* log_softmax over the classes, axis 1 */
	{
		cJSON *o = axes1("axes", 1);

		cJSON_AddTrueToObject(o, "keepDimensions");
		l = emit(m, "reduceLogSumExp", o, NULL, 1, x);
	}
	lp = l ? emit(m, "sub", NULL, outname(m, 1), 2, x, l) : NULL;
	if (!lp || !(y = nll(m, lp, in(m, 1), in(m, 2), outname(m, 0))))
		return -1;
	bind(m, 0, y);
	bind(m, 1, lp);
	return 0;
}

/* BlackmanWindow, HannWindow, HammingWindow: constants of size N. */
int
onnx_window(struct imp *m)
{
	const char *op = m->n->op_type;
	int64_t *sz;
	size_t n;
	const char *tn;
	enum dtype dt = onnx_dtype((int32_t)att_i(m, "output_datatype", 1),
	    &tn);
	int periodic = (int)att_i(m, "periodic", 1);
	double *v;
	int64_t len;
	const char *c;

	if (in(m, 0) && !isconst(m, in(m, 0))) {
		/* computed at run time: nnl's range, at a bound, and
		 * elementwise ops on it */
		if (dt == DT_NONE)
			return refuse(m, REFUSE_TYPE,
			    "output_datatype %s", escape_tty_name(tn));
		return onnx_window_bounded(m, dt, periodic);
	}
	if (cints(m, in(m, 0), &sz, &n) != 0 || n != 1) {
		free(sz);
		return refuse(m, REFUSE_CONST,
		    "a window size that is not a constant");
	}
	len = sz[0];
	free(sz);
	if (len < 1 || len > (1 << 24))
		return nodeerr(m, "window size %lld", (long long)len);
	if (dt == DT_NONE)
		return refuse(m, REFUSE_TYPE,
		    "output_datatype %s", escape_tty_name(tn));
	v = xcalloc((size_t)len, sizeof *v);
	for (int64_t k = 0; k < len; k++) {
		double d = periodic ? (double)len : (double)(len - 1);
		double x = d > 0 ? 2 * M_PI * (double)k / d : 0;

		if (strcmp(op, "HannWindow") == 0)
			v[k] = 0.5 - 0.5 * cos(x);
		else if (strcmp(op, "HammingWindow") == 0)
			v[k] = 25.0 / 46 - 21.0 / 46 * cos(x);
		else
			v[k] = 0.42 - 0.5 * cos(x) + 0.08 * cos(2 * x);
	}
	{
		const char *f;
		float *fv = xcalloc((size_t)len, sizeof *fv);

		for (int64_t k = 0; k < len; k++)
			fv[k] = (float)v[k];
		f = mkconst(m, outname(m, 0), DT_FLOAT32, 1, &len, fv);
		free(fv);
		c = dt == DT_FLOAT32 ? f : imp_cast(m, f, dt);
	}
	free(v);
	if (!c)
		return -1;
	bind(m, 0, c);
	return 0;
}
