/*
 * onnx_tensor: ONNX shape, data movement and reduction operators as
 * WebNN operations; shape computations fold at import time.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "checked.h"
#include "onnx_imp.h"
#include "escape.h"
#include "kernel.h"
#include "rt/rt.h"

enum {
	MAXR = 32,			/* ranks handled here */
	DIRECTMAX = 16 << 20,		/* bytes: larger fills expand */
	RANGEMAX = 1 << 26,		/* items of Range, depth of OneHot */
};

#define U32MAX INT64_C(4294967295)

/* ---- helpers ---- */

/* Input i, which must be present. */
static const char *
need(struct imp *m, int i)
{
	const char *x = in(m, i);

	if (!x)
		nodeerr(m, "input %d is missing", i);
	return x;
}

/* A constant integer input i into *v (malloc'd, n items); REFUSED when
 * it is computed, -1 when absent. */
static int
cin(struct imp *m, int i, const char *what, int64_t **v, size_t *n)
{
	*v = NULL;
	*n = 0;
	if (!in(m, i))
		return nodeerr(m, "input %d (%s) is missing", i, what);
	if (cints(m, in(m, i), v, n) != 0)
		return refuse(m, REFUSE_CONST,
		    "%s (input %d) is computed, not a constant",
		    what, i);
	return 0;
}

static int
normaxis(struct imp *m, int64_t a, int r, int64_t *out)
{
	*out = 0;
	if (a < -r || a >= r || r == 0)
		return nodeerr(m, "axis %lld is out of range for rank %d",
		    (long long)a, r);
	*out = a < 0 ? a + r : a;
	return 0;
}

/* n axes in v against rank r, into ax, distinct. */
static int
normaxes(struct imp *m, const int64_t *v, size_t n, int r, uint32_t *ax)
{
	char on[MAXR + 1] = { 0 };

	if (n > (size_t)r)
		return nodeerr(m, "%zu axes for rank %d", n, r);
	for (size_t i = 0; i < n; i++) {
		int64_t a = 0;

		if (normaxis(m, v[i], r, &a))
			return -1;
		if (on[a]++)
			return nodeerr(m, "axis %lld appears twice",
			    (long long)v[i]);
		ax[i] = (uint32_t)a;
	}
	return 0;
}

/* Most WebNN ops cannot take an empty tensor (a constant, here). */
static int
empty(struct imp *m, const char *x)
{
	if (x && tdesc_numel(ty(m, x)) == 0)
		return refuse(m, REFUSE_EMPTY, "an empty input");
	return 0;
}

static int
rankok(struct imp *m, int r)
{
	if (r < 0 || r > MAXR)
		return nodeerr(m, "rank %d is not supported (at most %d)",
		    r, MAXR);
	return 0;
}

static cJSON *
ju32of(const int64_t *v, int n)
{
	uint32_t d[MAXR + 1];

	for (int i = 0; i < n && i < MAXR; i++)
		d[i] = (uint32_t)v[i];
	return ju32s(d, (size_t)n);
}

static cJSON *
axisopt(int64_t axis)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddNumberToObject(o, "axis", (double)axis);
	return o;
}

static uint64_t
numel(const int64_t *d, int r)
{
	uint64_t n = 1;

	for (int i = 0; i < r; i++)
		n *= (uint64_t)d[i];
	return n;
}

/* An integer list attribute, copied (malloc'd). */
static int64_t *
attcopy(struct imp *m, const char *name, size_t *n)
{
	const int64_t *a;
	int64_t *v;

	*n = att_ints(m, name, &a);
	v = xcalloc(*n + 1, sizeof *v);
	if (*n)
		memcpy(v, a, *n * sizeof *v);
	return v;
}

/* x reshaped to dims (checked: same element count); constants directly. */
static const char *
transpose(struct imp *m, const char *x, const uint32_t *p, int n,
    const char *out)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddItemToObject(o, "permutation", ju32s(p, (size_t)n));
	return emit(m, "transpose", o, out, 1, x);
}

/* Item i of a buffer of dt: integers from iv, floats from fv. */
static void
store(enum dtype dt, unsigned char *p, uint64_t i, int64_t iv, double fv)
{
	switch (dt) {
	case DT_FLOAT32: { float f = (float)fv; memcpy(p + 4 * i, &f, 4);
		break; }
	case DT_FLOAT16: { uint16_t h = nnl_f32_to_f16((float)fv);
		memcpy(p + 2 * i, &h, 2); break; }
	case DT_INT32: case DT_UINT32: { int32_t x = (int32_t)iv;
		memcpy(p + 4 * i, &x, 4); break; }
	case DT_INT64: case DT_UINT64: memcpy(p + 8 * i, &iv, 8); break;
	case DT_FLOAT64: memcpy(p + 8 * i, &fv, 8); break;
	case DT_BFLOAT16: { uint16_t h = nnl_f32_to_bf16((float)fv);
		memcpy(p + 2 * i, &h, 2); break; }
	case DT_INT16: case DT_UINT16: { uint16_t h = (uint16_t)iv;
		memcpy(p + 2 * i, &h, 2); break; }
	default: p[i] = (unsigned char)iv; break;
	}
}

/* An int64 constant of n values. */
static const char *
i64s(struct imp *m, const int64_t *v, int64_t n)
{
	return mkconst(m, NULL, DT_INT64, 1, &n, v);
}

/* ---- constants and shapes ---- */

static const char *
tensorattr(struct imp *m, const Onnx__AttributeProto *a, const char *what)
{
	struct tdesc d;
	void *data;
	const char *tn, *c;

	if (onnx_dtype(a->t->data_type, &tn) == DT_NONE) {
		refuse(m, REFUSE_TYPE, "a %s constant", escape_tty_name(tn));
		return NULL;
	}
	if (onnx_tensor(m, a->t, what, &d, &data) != 0) {
		nodeerr(m, "attribute \"%s\" is not a valid tensor",
		    escape_tty_name(a->name));
		return NULL;
	}
	c = mkconst(m, outname(m, 0), d.dt, d.rank, d.dims, data);
	free(d.dims);
	free(data);
	return c;
}

int
onnx_constant(struct imp *m)
{
	const Onnx__AttributeProto *a;
	const char *c;

	if ((a = att(m, "value")) && a->t) {
		if (!(c = tensorattr(m, a, "attribute \"value\"")))
			return m->nerr ? -1 : REFUSED;
	} else if ((a = att(m, "value_float"))) {
		c = mkconst(m, outname(m, 0), DT_FLOAT32, 0, NULL, &a->f);
	} else if ((a = att(m, "value_floats"))) {
		int64_t n = (int64_t)a->n_floats;

		c = mkconst(m, outname(m, 0), DT_FLOAT32, 1, &n, a->floats);
	} else if ((a = att(m, "value_int"))) {
		c = mkconst(m, outname(m, 0), DT_INT64, 0, NULL, &a->i);
	} else if ((a = att(m, "value_ints"))) {
		int64_t n = (int64_t)a->n_ints;

		c = mkconst(m, outname(m, 0), DT_INT64, 1, &n, a->ints);
	} else if (att(m, "value_string") || att(m, "value_strings")) {
		return refuse(m, REFUSE_TYPE, "string constants");
	} else if (att(m, "sparse_value")) {
		return refuse(m, REFUSE_ATTR, "sparse constants");
	} else {
		return nodeerr(m, "no value attribute");
	}
	return imp_done(m, 0, c);
}

int
onnx_shape(struct imp *m)
{
	const char *x = need(m, 0);
	const struct tdesc *t = ty(m, x);
	int64_t r = t->rank, s = 0, e = r, d[MAXR + 1];

	if (!x)
		return -1;
	if (m->opset >= 15) {
		s = att_i(m, "start", 0);
		e = att_i(m, "end", r);
	}
	s = s < 0 ? s + r : s;
	e = e < 0 ? e + r : e;
	s = s < 0 ? 0 : s > r ? r : s;
	e = e < 0 ? 0 : e > r ? r : e;
	for (int64_t i = s; i < e; i++)
		d[i - s] = t->dims[i];
	return imp_done(m, 0, mkconst(m, outname(m, 0), DT_INT64, 1,
	    &(int64_t){ e > s ? e - s : 0 }, d));
}

int
onnx_size(struct imp *m)
{
	const char *x = need(m, 0);
	int64_t n;

	if (!x)
		return -1;
	n = (int64_t)tdesc_numel(ty(m, x));
	return imp_done(m, 0, mkconst(m, outname(m, 0), DT_INT64, 0, NULL, &n));
}

/* dims (r of them, checked) filled with the one item at val of dt. */
static const char *
fill(struct imp *m, enum dtype dt, int r, const int64_t *dims,
    const void *val, const char *out)
{
	size_t es = dtype_bytes(dt, 1);
	uint64_t n = numel(dims, r);
	const char *s, *y;
	int64_t ones[MAXR + 1];
	cJSON *o;

	if (n * es <= DIRECTMAX) {
		unsigned char *b = xmalloc(n * es + 1);

		for (uint64_t i = 0; i < n; i++)
			memcpy(b + i * es, val, es);
		y = mkconst(m, out, dt, r, dims, b);
		free(b);
		return y;
	}
	for (int i = 0; i < r; i++)
		ones[i] = 1;
	s = mkconst(m, NULL, dt, r, ones, val);
	o = cJSON_CreateObject();
	cJSON_AddItemToObject(o, "newShape", ju32of(dims, r));
	return emit(m, "expand", o, out, 1, s);
}

/* Shape values v (n): valid dimensions, at most 2^32 - 1 each. */
static int
dimsok(struct imp *m, const int64_t *v, size_t n)
{
	uint64_t k = 1;

	if (rankok(m, (int)(n > MAXR ? MAXR + 1 : n)))
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (v[i] < 0 || v[i] > U32MAX)
			return nodeerr(m, "shape entry %zu (%lld) is not a "
			    "valid dimension", i, (long long)v[i]);
		if (v[i] && (checked_mul_u64(k, (uint64_t)v[i], &k) != 0 ||
		    k > (UINT64_C(1) << 40)))
			return nodeerr(m, "the shape holds over 2^40 "
			    "elements");
	}
	return 0;
}

int
onnx_constantofshape(struct imp *m)
{
	const Onnx__AttributeProto *a = att(m, "value");
	unsigned char zero[8] = { 0 };
	const void *val = zero;
	enum dtype dt = DT_FLOAT32;
	struct tdesc d = { DT_NONE, 0, NULL };
	void *data = NULL;
	int64_t *s;
	size_t n;
	int rc;
	const char *y;

	if (a && a->t) {
		const char *tn;

		if (onnx_dtype(a->t->data_type, &tn) == DT_NONE)
			return refuse(m, REFUSE_TYPE,
			    "a value of %s", escape_tty_name(tn));
		if (onnx_tensor(m, a->t, "attribute \"value\"", &d,
		    &data) != 0 || tdesc_numel(&d) != 1) {
			free(data);
			free(d.dims);
			return nodeerr(m, "attribute \"value\" must hold one "
			    "value");
		}
		dt = d.dt;
		val = data;
	}
	if (in(m, 0) && !isconst(m, in(m, 0))) {
		/* a shape known at run time: nnl's constantOfShape, its
		 * value a double (nnl-graph(5)) */
		struct tdesc one = { dt, 0, NULL };
		int64_t code = kdt(&one), iv;
		double v;

		if (nnl_isfloat(code)) {
			v = nnl_loadf(val, 0, code);
		} else {
			iv = nnl_loadi(val, 0, code);
			v = dt == DT_UINT64 ? (double)(uint64_t)iv :
			    (double)iv;
			if (dt == DT_UINT64 ? v >= 0x1p64 ||
			    (uint64_t)v != (uint64_t)iv : v >= 0x1p63 ||
			    (int64_t)v != iv) {
				free(data);
				free(d.dims);
				return refuse(m, REFUSE_ATTR, "value %lld, "
				    "past the integers a double holds "
				    "exactly", (long long)iv);
			}
		}
		rc = onnx_constantofshape_bounded(m, dt, v);
		free(data);
		free(d.dims);
		return rc;
	}
	if ((rc = cin(m, 0, "shape", &s, &n)) != 0) {
		free(data);
		free(d.dims);
		return rc;
	}
	if (dimsok(m, s, n)) {
		free(s);
		free(data);
		free(d.dims);
		return -1;
	}
	y = fill(m, dt, (int)n, s, val, outname(m, 0));
	free(s);
	free(data);
	free(d.dims);
	return imp_done(m, 0, y);
}

int
onnx_range(struct imp *m)
{
	const char *s = need(m, 0), *l = need(m, 1), *dl = need(m, 2), *y;
	enum dtype dt = ty(m, s)->dt;
	double *fv[3] = { 0 };
	int64_t *iv[3] = { 0 }, n;
	size_t k;
	int bad = 0;
	unsigned char *b;
	double c;

	if (!s || !l || !dl)
		return -1;
	for (int i = 0; i < 3; i++) {
		size_t k2 = 0;

		if (cfloats(m, in(m, i), &fv[i], &k) != 0)
			bad |= 1;
		else if (cints(m, in(m, i), &iv[i], &k2), k != 1)
			bad |= 2;
	}
	if (bad) {
		for (int j = 0; j < 3; j++)
			free(fv[j]), free(iv[j]);
		/* computed at run time: nnl's range, at a bound */
		return bad & 1 ? onnx_range_bounded(m) :
		    nodeerr(m, "start, limit and delta must "
		    "be scalars");
	}
	if (fv[2][0] == 0) {
		for (int j = 0; j < 3; j++)
			free(fv[j]), free(iv[j]);
		return nodeerr(m, "delta is 0");
	}
	c = ceil((fv[1][0] - fv[0][0]) / fv[2][0]);
	n = c > 0 ? (c > (double)RANGEMAX ? -1 : (int64_t)c) : 0;
	if (n < 0) {
		for (int j = 0; j < 3; j++)
			free(fv[j]), free(iv[j]);
		return nodeerr(m, "the range holds over %d values",
		    RANGEMAX);
	}
	b = xmalloc((size_t)n * 8 + 8);
	for (int64_t i = 0; i < n; i++)
		store(dt, b, (uint64_t)i, iv[0][0] + i * iv[2][0],
		    fv[0][0] + (double)i * fv[2][0]);
	y = mkconst(m, outname(m, 0), dt, 1, &n, b);
	free(b);
	for (int j = 0; j < 3; j++)
		free(fv[j]), free(iv[j]);
	return imp_done(m, 0, y);
}

int
onnx_eyelike(struct imp *m)
{
	const char *x = need(m, 0), *tn, *y;
	const struct tdesc *t = ty(m, x);
	enum dtype dt = t->dt;
	int64_t k = att_i(m, "k", 0);
	unsigned char *b;
	char *why;

	if (!x)
		return -1;
	if (att(m, "dtype") && (dt = onnx_dtype((int32_t)att_i(m, "dtype",
	    1), &tn)) == DT_NONE)
		return refuse(m, REFUSE_TYPE,
		    "output type %s", escape_tty_name(tn));
	if (t->rank != 2)
		return nodeerr(m, "input of rank %d, expected 2", t->rank);
	if ((why = checked_tensor(&(struct tdesc){ dt, 2, t->dims }))) {
		nodeerr(m, "the output %s", why);
		free(why);
		return -1;
	}
	b = xcalloc(dtype_bytes(dt, tdesc_numel(t)) + 1, 1);
	/* a diagonal outside the matrix leaves it zero (and keeps i + k
	 * from overflowing) */
	for (int64_t i = 0; k > -t->dims[0] && k < t->dims[1] &&
	    i < t->dims[0]; i++)
		if (i + k >= 0 && i + k < t->dims[1])
			store(dt, b, (uint64_t)(i * t->dims[1] + i + k), 1, 1);
	y = mkconst(m, outname(m, 0), dt, 2, t->dims, b);
	free(b);
	return imp_done(m, 0, y);
}

/* ---- reshaping ---- */

int
onnx_reshape(struct imp *m)
{
	const char *x = need(m, 0);
	const struct tdesc *t = ty(m, x);
	int allowzero = m->opset >= 14 ? (int)att_i(m, "allowzero", 0) : 0;
	int64_t *s = NULL, d[MAXR + 1], known = 1;
	size_t n;
	int rc, minus = -1, over = 0;

	if (!x)
		return -1;
	if (m->opset < 5) {
		s = attcopy(m, "shape", &n);
	} else if ((rc = cin(m, 1, "shape", &s, &n)) != 0) {
		return rc;
	}
	if (n > MAXR) {
		free(s);
		return nodeerr(m, "a shape of %zu dimensions", n);
	}
	for (size_t i = 0; i < n; i++) {
		d[i] = s[i];
		if (s[i] == 0 && !allowzero)
			d[i] = (int)i < t->rank ? t->dims[i] : -2;
		if (d[i] == -1 && minus < 0)
			minus = (int)i;
		else if (d[i] < 0 || d[i] > U32MAX)
			minus = -2;
		else if (checked_mul_i64(known, d[i], &known) != 0)
			over = 1;
	}
	free(s);
	if (minus == -2)
		return nodeerr(m, "the shape holds an invalid entry");
	if (over)
		return nodeerr(m, "the shape holds more than 2^63 elements");
	if (minus >= 0) {
		if (known == 0 || tdesc_numel(t) % (uint64_t)known)
			return nodeerr(m, "-1 cannot be inferred: %llu "
			    "elements do not divide into %lld",
			    (unsigned long long)tdesc_numel(t),
			    (long long)known);
		d[minus] = (int64_t)(tdesc_numel(t) / (uint64_t)known);
	}
	if (tdesc_numel(t) != (uint64_t)known && minus < 0)
		return nodeerr(m, "the shape holds %lld elements, the input "
		    "%llu", (long long)known,
		    (unsigned long long)tdesc_numel(t));
	if (known == 0)	/* no values to compute (nnl-graph(5)) */
		return imp_done(m, 0, mkconst(m, outname(m, 0), t->dt,
		    (int)n, d, ""));
	return imp_done(m, 0, imp_reshape(m, x, (int)n, d, outname(m, 0)));
}

int
onnx_flatten(struct imp *m)
{
	const char *x = need(m, 0);
	const struct tdesc *t = ty(m, x);
	int64_t axis = att_i(m, "axis", 1), d[2] = { 1, 1 };

	if (!x)
		return -1;
	if (axis < -t->rank || axis > t->rank)
		return nodeerr(m, "axis %lld is out of range for rank %d",
		    (long long)axis, t->rank);
	if (axis < 0)
		axis += t->rank;
	for (int i = 0; i < t->rank; i++)
		if (checked_mul_i64(d[i >= axis], t->dims[i],
		    &d[i >= axis]) != 0)
			return nodeerr(m, "the input is too large to "
			    "flatten");
	return imp_done(m, 0, imp_reshape(m, x, 2, d, outname(m, 0)));
}

/* The axes of Squeeze and Unsqueeze: attribute, then input 1 (13). */
static int
axesof(struct imp *m, int64_t **v, size_t *n, int *given)
{
	*given = 1;
	if (m->opset < 13) {
		*given = att(m, "axes") != NULL;
		*v = attcopy(m, "axes", n);
		return 0;
	}
	if (!in(m, 1)) {
		*given = 0;
		*v = xcalloc(1, sizeof **v);
		*n = 0;
		return 0;
	}
	return cin(m, 1, "axes", v, n);
}

int
onnx_squeeze(struct imp *m)
{
	const char *x = need(m, 0);
	const struct tdesc *t = ty(m, x);
	int64_t *v, d[MAXR + 1];
	uint32_t ax[MAXR + 1];
	char on[MAXR + 1] = { 0 };
	size_t n;
	int given, rc, r = 0;

	if (!x || rankok(m, t->rank))
		return -1;
	if ((rc = axesof(m, &v, &n, &given)) != 0)
		return rc;
	rc = normaxes(m, v, n, t->rank, ax);
	free(v);
	if (rc)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (t->dims[ax[i]] != 1)
			return nodeerr(m, "dimension %u is %lld, not 1", ax[i],
			    (long long)t->dims[ax[i]]);
		on[ax[i]] = 1;
	}
	for (int i = 0; i < t->rank; i++)
		if (!(given ? on[i] : t->dims[i] == 1))
			d[r++] = t->dims[i];
	return imp_done(m, 0, imp_reshape(m, x, r, d, outname(m, 0)));
}

int
onnx_unsqueeze(struct imp *m)
{
	const char *x = need(m, 0);
	const struct tdesc *t = ty(m, x);
	int64_t *v, d[MAXR + 1];
	uint32_t ax[MAXR + 1];
	char on[MAXR + 1] = { 0 };
	size_t n;
	int given, rc, r, k = 0;

	if (!x)
		return -1;
	if ((rc = axesof(m, &v, &n, &given)) != 0)
		return rc;
	r = t->rank + (int)(n > MAXR ? MAXR : n);
	if (!given || n > MAXR || rankok(m, r)) {
		free(v);
		return given ? -1 : nodeerr(m, "no axes");
	}
	rc = normaxes(m, v, n, r, ax);
	free(v);
	if (rc)
		return -1;
	for (size_t i = 0; i < n; i++)
		on[ax[i]] = 1;
	for (int i = 0; i < r; i++)
		d[i] = on[i] ? 1 : t->dims[k++];
	return imp_done(m, 0, imp_reshape(m, x, r, d, outname(m, 0)));
}

int
onnx_transpose(struct imp *m)
{
	const char *x = need(m, 0);
	const struct tdesc *t = ty(m, x);
	const int64_t *p;
	size_t n = att_ints(m, "perm", &p);
	uint32_t q[MAXR + 1];
	char seen[MAXR + 1] = { 0 };

	if (!x || rankok(m, t->rank))
		return -1;
	if (!att(m, "perm")) {
		for (int i = 0; i < t->rank; i++)
			q[i] = (uint32_t)(t->rank - 1 - i);
	} else {
		if (n != (size_t)t->rank)
			return nodeerr(m, "perm has %zu values for rank %d", n,
			    t->rank);
		for (size_t i = 0; i < n; i++) {
			if (p[i] < 0 || p[i] >= t->rank || seen[p[i]]++)
				return nodeerr(m, "perm is not a "
				    "permutation");
			q[i] = (uint32_t)p[i];
		}
	}
	if (t->rank < 2 || (isconst(m, x) && tdesc_numel(t) == 0)) {
		int64_t d[MAXR + 1];

		for (int i = 0; i < t->rank; i++)
			d[i] = t->dims[q[i]];
		return imp_done(m, 0, t->rank < 2 ? x : mkconst(m, outname(m, 0),
		    t->dt, t->rank, d, ""));
	}
	return imp_done(m, 0, transpose(m, x, q, t->rank, outname(m, 0)));
}

int
onnx_concat(struct imp *m)
{
	const char *x = need(m, 0), **ins;
	const struct tdesc *t = ty(m, x);
	int64_t axis, d[MAXR + 1];
	int n = 0, k = nins(m);
	const char *y;

	if (!x || rankok(m, t->rank) || normaxis(m, att_i(m, "axis", 0),
	    t->rank, &axis))
		return -1;
	ins = xcalloc((size_t)k + 1, sizeof *ins);
	memcpy(d, t->dims, (size_t)t->rank * sizeof *d);
	d[axis] = 0;
	for (int i = 0; i < k; i++) {
		const struct tdesc *u = ty(m, in(m, i));

		if (!in(m, i))
			continue;
		if (u->rank != t->rank) {
			free(ins);
			return nodeerr(m, "input %d has rank %d, input 0 %d",
			    i, u->rank, t->rank);
		}
		d[axis] += u->dims[axis];
		if (tdesc_numel(u))
			ins[n++] = in(m, i);
	}
	if (n == 0)
		y = mkconst(m, outname(m, 0), t->dt, t->rank, d, "");
	else if (n == 1)
		y = ins[0];
	else
		y = emitv(m, "concat", axisopt(axis), outname(m, 0), n, ins);
	free(ins);
	return imp_done(m, 0, y);
}

/* Split sizes: attribute, input 1, num_outputs or equal parts. */
static int
splitsizes(struct imp *m, int64_t dim, int k, int64_t **s)
{
	size_t n;
	int rc;

	if (m->opset < 13 && att(m, "split")) {
		*s = attcopy(m, "split", &n);
	} else if (m->opset >= 13 && in(m, 1)) {
		if ((rc = cin(m, 1, "split", s, &n)) != 0)
			return rc;
	} else {
		int64_t no = m->opset >= 18 ? att_i(m, "num_outputs", k) : k;
		int64_t part;

		if (no != k || k < 1)
			return nodeerr(m, "num_outputs is %lld, the node has "
			    "%d outputs", (long long)no, k);
		part = m->opset >= 18 && att(m, "num_outputs") ?
		    (dim + k - 1) / k : dim / k;
		if (part * k != dim && !(m->opset >= 18 &&
		    att(m, "num_outputs")))
			return nodeerr(m, "dimension %lld does not split "
			    "into %d equal parts", (long long)dim, k);
		*s = xcalloc((size_t)k + 1, sizeof **s);
		for (int i = 0; i < k; i++)
			(*s)[i] = i < k - 1 ? part : dim - part * (k - 1);
		n = (size_t)k;
	}
	if (n != (size_t)k) {
		free(*s);
		return nodeerr(m, "%zu split sizes for %d outputs", n, k);
	}
	return 0;
}

int
onnx_split(struct imp *m)
{
	const char *x = need(m, 0), **names;
	const struct tdesc *t = ty(m, x);
	int k = nouts(m), rc, nz = 0;
	int64_t axis, *s, sum = 0;
	uint32_t *u;
	cJSON *o;

	if (!x || normaxis(m, att_i(m, "axis", 0), t->rank, &axis))
		return -1;
	if (k < 1 || k > 8192)
		return nodeerr(m, "%d outputs", k);
	if ((rc = splitsizes(m, t->dims[axis], k, &s)) != 0)
		return rc;
	for (int i = 0; i < k; i++) {
		if (s[i] < 0 || s[i] > U32MAX)
			sum = -1;
		if (sum >= 0)
			sum += s[i];
	}
	if (sum != t->dims[axis]) {
		free(s);
		return nodeerr(m, "the split sizes do not sum to dimension "
		    "%lld", (long long)t->dims[axis]);
	}
	/* an empty piece has no values to compute: a constant
	 * (nnl-graph(5)); the others split as usual */
	u = xcalloc((size_t)k + 1, sizeof *u);
	names = xcalloc((size_t)k + 1, sizeof *names);
	for (int i = 0; i < k; i++) {
		int64_t d[MAXR];

		if (s[i] != 0) {
			u[nz++] = (uint32_t)s[i];
			continue;
		}
		memcpy(d, t->dims, (size_t)t->rank * sizeof *d);
		d[axis] = 0;
		bind(m, i, mkconst(m, outname(m, i), t->dt, t->rank, d, ""));
	}
	for (int i = 0, j = 0; i < k; i++)
		if (s[i] != 0)
			names[j++] = outname(m, i);
	rc = 0;
	if (nz == 1) {
		for (int i = 0; i < k; i++)
			if (s[i] != 0)
				bind(m, i, x);
	} else if (nz > 1) {
		o = axisopt(axis);
		cJSON_AddItemToObject(o, "splits", ju32s(u, (size_t)nz));
		rc = emitn(m, "split", o, nz, names, 1, &x);
		for (int i = 0, j = 0; rc == 0 && i < k; i++)
			if (s[i] != 0)
				bind(m, i, names[j++]);
	}
	free(s);
	free(u);
	free(names);
	return rc;
}

/* ---- slicing ---- */

/* Slice's parameters: attributes before opset 10, inputs after. */
struct sliceargs {
	int64_t *st, *en, *ax, *sp;
	size_t n;
};

static void
sliceargs_free(struct sliceargs *a)
{
	free(a->st);
	free(a->en);
	free(a->ax);
	free(a->sp);
}

static int
sliceread(struct imp *m, int r, struct sliceargs *a)
{
	size_t n2 = 0, n3 = 0, n4 = 0;

	memset(a, 0, sizeof *a);
	if (m->opset < 10) {
		a->st = attcopy(m, "starts", &a->n);
		a->en = attcopy(m, "ends", &n2);
		if (att(m, "axes"))
			a->ax = attcopy(m, "axes", &n3);
	} else {
		/* read them all: the refusal names every one computed */
		int c = (!in(m, 1) || cints(m, in(m, 1), &a->st, &a->n)) +
		    (!in(m, 2) || cints(m, in(m, 2), &a->en, &n2)) +
		    (in(m, 3) && cints(m, in(m, 3), &a->ax, &n3)) +
		    (in(m, 4) && cints(m, in(m, 4), &a->sp, &n4));

		if (c) {
			sliceargs_free(a);
			if (!in(m, 1) || !in(m, 2))
				return nodeerr(m, "starts or ends is missing");
			return refuse(m, REFUSE_CONST,
			    "starts, ends, axes and steps must be constants");
		}
	}
	if (n2 != a->n || (a->ax && n3 != a->n) || (a->sp && n4 != a->n) ||
	    a->n > (size_t)r) {
		sliceargs_free(a);
		return nodeerr(m, "starts, ends, axes and steps differ in "
		    "length or exceed the rank %d", r);
	}
	return 0;
}

/* One axis of dimension d: first index *b, count *c, step s. */
static void
sliceaxis(int64_t d, int64_t s, int64_t st, int64_t en, int64_t *b,
    int64_t *c)
{
	if (st < 0)
		st = st < -d ? -1 : st + d;
	if (en < 0)
		en = en < -d ? -1 : en + d;
	if (s > 0) {
		st = st < 0 ? 0 : st > d ? d : st;
		en = en < 0 ? 0 : en > d ? d : en;
		*c = en > st ? (en - st + s - 1) / s : 0;
	} else {
		st = st < 0 ? -1 : st > d - 1 ? d - 1 : st;
		en = en < -1 ? -1 : en > d - 1 ? d - 1 : en;
		*c = st > en ? (st - en - s - 1) / -s : 0;
	}
	*b = st;
}

int
onnx_slice(struct imp *m)
{
	const char *x = need(m, 0), *y;
	const struct tdesc *t = ty(m, x);
	struct sliceargs a;
	int64_t b[MAXR + 1], c[MAXR + 1], s[MAXR + 1], sz[MAXR + 1];
	uint32_t ax[MAXR + 1], rv[MAXR + 1], us[MAXR + 1];
	int r = t->rank, nrv = 0, strided = 0, whole = 1, rc;
	cJSON *o;

	if (!x || rankok(m, r))
		return -1;
	if ((rc = sliceread(m, r, &a)) != 0)
		return rc;
	for (size_t i = 0; i < a.n; i++)
		ax[i] = (uint32_t)i;
	if (a.ax && normaxes(m, a.ax, a.n, r, ax)) {
		sliceargs_free(&a);
		return -1;
	}
	for (int i = 0; i < r; i++)
		b[i] = 0, c[i] = t->dims[i], s[i] = 1;
	for (size_t i = 0; i < a.n; i++) {
		int k = (int)ax[i];

		s[k] = a.sp ? a.sp[i] : 1;
		if (s[k] == 0) {
			sliceargs_free(&a);
			return nodeerr(m, "step %zu is 0", i);
		}
		/* a step beyond the dimension takes one item */
		if (s[k] > t->dims[k] || s[k] < -t->dims[k])
			s[k] = s[k] > 0 ? t->dims[k] + 1 : -t->dims[k] - 1;
		sliceaxis(t->dims[k], s[k], a.st[i], a.en[i], &b[k], &c[k]);
	}
	sliceargs_free(&a);
	for (int i = 0; i < r; i++) {
		if (s[i] < 0) {
			rv[nrv++] = (uint32_t)i;
			b[i] = t->dims[i] - 1 - b[i];
			s[i] = -s[i];
		}
		if (c[i] == 0)	/* no values to compute (nnl-graph(5)) */
			return imp_done(m, 0, mkconst(m, outname(m, 0), t->dt,
			    r, c, ""));
		s[i] = c[i] == 1 ? 1 : s[i];
		sz[i] = (c[i] - 1) * s[i] + 1;
		strided |= s[i] != 1;
		whole &= b[i] == 0 && c[i] == t->dims[i] && s[i] == 1;
	}
	y = x;
	if (nrv) {
		o = cJSON_CreateObject();
		cJSON_AddItemToObject(o, "axes", ju32s(rv, (size_t)nrv));
		y = emit(m, "reverse", o, whole ? outname(m, 0) : NULL, 1, x);
	}
	if (!y || whole)
		return imp_done(m, 0, y);
	o = cJSON_CreateObject();
	cJSON_AddItemToObject(o, "starts", ju32of(b, r));
	cJSON_AddItemToObject(o, "sizes", ju32of(sz, r));
	for (int i = 0; strided && i < r; i++)
		us[i] = (uint32_t)s[i];
	if (strided)
		cJSON_AddItemToObject(o, "strides", ju32s(us, (size_t)r));
	return imp_done(m, 0, emit(m, "slice", o, outname(m, 0), 1, y));
}

/* ---- gather and scatter ---- */

/*
 * Indices i made non-negative against the dimensions dims: one for
 * all (nd 1) or one per coordinate along the last axis (nd of them).
 * Constant indices are fixed and checked here, others by a where().
 */
static const char *
fixidx(struct imp *m, const char *i, const int64_t *dims, int nd)
{
	const struct tdesc *t = ty(m, i);
	int64_t *v, dv[MAXR + 1];
	size_t n;
	int neg = 0;
	const char *d, *c, *y;

	if (t->dt != DT_INT32 && t->dt != DT_INT64) {
		nodeerr(m, "indices of %s", dtype_name(t->dt));
		return NULL;
	}
	if (isconst(m, i) && cints(m, i, &v, &n) == 0) {
		for (size_t k = 0; k < n; k++) {
			int64_t dim = dims[nd > 1 ? k % (size_t)nd : 0];

			if (v[k] < -dim || v[k] >= dim) {
				nodeerr(m, "index %lld is out of range for "
				    "dimension %lld", (long long)v[k],
				    (long long)dim);
				free(v);
				return NULL;
			}
			if (v[k] < 0)
				v[k] += dim, neg = 1;
		}
		y = neg ? mkconst(m, NULL, DT_INT64, t->rank, t->dims, v) : i;
		free(v);
		return y;
	}
	for (int k = 0; k < nd; k++)
		dv[k] = dims[k];
	if (t->dt == DT_INT32) {
		int32_t d32[MAXR + 1];

		for (int k = 0; k < nd; k++)
			d32[k] = (int32_t)dims[k];
		d = mkconst(m, NULL, DT_INT32, nd > 1, &(int64_t){ nd }, d32);
	} else {
		d = mkconst(m, NULL, DT_INT64, nd > 1, &(int64_t){ nd }, dv);
	}
	c = emit(m, "lesser", NULL, NULL, 2, i, mkscalar(m, t->dt, 0));
	y = c ? emit(m, "add", NULL, NULL, 2, i, d) : NULL;
	return y ? emit(m, "where", NULL, NULL, 3, c, y, i) : NULL;
}

int
onnx_gather(struct imp *m)
{
	const char *x = need(m, 0), *i = need(m, 1);
	const struct tdesc *t = ty(m, x);
	int64_t axis;

	if (!x || !i || normaxis(m, att_i(m, "axis", 0), t->rank, &axis) ||
	    !(i = fixidx(m, i, &t->dims[axis], 1)))
		return -1;
	if (empty(m, in(m, 0)) || empty(m, in(m, 1)))
		return REFUSED;
	if (tdesc_numel(ty(m, i)) == 0)
		return refuse(m, REFUSE_EMPTY, "empty indices");
	return imp_done(m, 0, emit(m, "gather", axisopt(axis), outname(m, 0), 2, x,
	    i));
}

int
onnx_gatherelements(struct imp *m)
{
	const char *x = need(m, 0), *i = need(m, 1);
	const struct tdesc *t = ty(m, x);
	int64_t axis;

	if (!x || !i || normaxis(m, att_i(m, "axis", 0), t->rank, &axis) ||
	    !(i = fixidx(m, i, &t->dims[axis], 1)))
		return -1;
	if (empty(m, in(m, 0)) || empty(m, in(m, 1)))
		return REFUSED;
	return imp_done(m, 0, emit(m, "gatherElements", axisopt(axis),
	    outname(m, 0), 2, x, i));
}

/*
 * GatherND's batch_dims b: the indices [B..., k] become [B..., b + k],
 * each item prefixed with its batch coordinates.
 */
static const char *
batchidx(struct imp *m, const char *i, int b)
{
	const struct tdesc *t = ty(m, i);
	int64_t d[MAXR + 1], nb = 1, *v;
	uint64_t n;
	const char *c, *ins[2];
	cJSON *o;

	for (int k = 0; k < t->rank - 1; k++)
		d[k] = t->dims[k];
	d[t->rank - 1] = b;
	n = numel(d, t->rank - 1);
	for (int k = b; k < t->rank - 1; k++)
		nb *= t->dims[k];
	v = xcalloc(n * (uint64_t)b + 1, sizeof *v);
	for (uint64_t e = 0; e < n; e++) {
		uint64_t q = e / (uint64_t)nb;

		for (int k = b - 1; k >= 0; k--) {
			v[e * (uint64_t)b + (uint64_t)k] =
			    (int64_t)(q % (uint64_t)t->dims[k]);
			q /= (uint64_t)t->dims[k];
		}
	}
	c = mkconst(m, NULL, DT_INT64, t->rank, d, v);
	free(v);
	if (t->dt != DT_INT64) {
		o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "dataType", dtype_name(t->dt));
		c = emit(m, "cast", o, NULL, 1, c);
	}
	ins[0] = c;
	ins[1] = i;
	return c ? emitv(m, "concat", axisopt(t->rank - 1), NULL, 2, ins) :
	    NULL;
}

int
onnx_gathernd(struct imp *m)
{
	const char *x = need(m, 0), *i = need(m, 1);
	const struct tdesc *t = ty(m, x), *it = ty(m, i);
	int64_t b = att_i(m, "batch_dims", 0), k;

	if (!x || !i)
		return -1;
	if (empty(m, in(m, 0)) || empty(m, in(m, 1)))
		return REFUSED;
	if (it->rank < 1 || t->rank < 1 || b < 0 || b >= it->rank ||
	    b >= t->rank)
		return nodeerr(m, "indices of rank %d, data of rank %d and "
		    "batch_dims %lld do not fit", it->rank, t->rank,
		    (long long)b);
	k = it->dims[it->rank - 1];
	if (k < 1 || k + b > t->rank)
		return nodeerr(m, "coordinates of %lld items for data of "
		    "rank %d", (long long)k, t->rank);
	for (int j = 0; j < b; j++)
		if (it->dims[j] != t->dims[j])
			return nodeerr(m, "batch dimension %d differs", j);
	if (!(i = fixidx(m, i, t->dims + b, (int)k)))
		return -1;
	if (b && !(i = batchidx(m, i, (int)b)))
		return -1;
	return imp_done(m, 0, emit(m, "gatherND", NULL, outname(m, 0), 2, x, i));
}

/* ScatterElements' and ScatterND's reduction: none keeps WebNN's op;
 * add, mul, max and min make *op nnl's, its options into *o. */
static int
reduction(struct imp *m, const char **op, cJSON **o)
{
	const char *r = att_s(m, "reduction", "none");

	*o = NULL;
	if (strcmp(r, "none") == 0)
		return 0;
	if (strcmp(r, "add") && strcmp(r, "mul") && strcmp(r, "max") &&
	    strcmp(r, "min"))
		return refuse(m, REFUSE_ATTR,
		    "reduction \"%s\"", escape_tty_name(r));
	*op = **op == 'E' ? "scatterElementsReduce" : "scatterNDReduce";
	*o = cJSON_CreateObject();
	cJSON_AddStringToObject(*o, "reduction", r);
	return 0;
}

int
onnx_scatterelements(struct imp *m)
{
	const char *x = need(m, 0), *i = need(m, 1), *u = need(m, 2);
	const struct tdesc *t = ty(m, x);
	const char *op = "Elements";
	int64_t axis;
	int rc;
	cJSON *o;

	if (!x || !i || !u)
		return -1;
	if (empty(m, in(m, 0)) || empty(m, in(m, 1)))
		return REFUSED;
	if ((rc = reduction(m, &op, &o)) != 0)
		return rc;
	if (normaxis(m, att_i(m, "axis", 0), t->rank, &axis) ||
	    !(i = fixidx(m, i, &t->dims[axis], 1))) {
		cJSON_Delete(o);
		return -1;
	}
	if (!o)
		return imp_done(m, 0, emit(m, "scatterElements",
		    axisopt(axis), outname(m, 0), 3, x, i, u));
	if (axis)
		cJSON_AddNumberToObject(o, "axis", (double)axis);
	return imp_done(m, 0, emit(m, op, o, outname(m, 0), 3, x, i, u));
}

int
onnx_scatternd(struct imp *m)
{
	const char *x = need(m, 0), *i = need(m, 1), *u = need(m, 2);
	const struct tdesc *t = ty(m, x), *it = ty(m, i);
	const char *op = "scatterND";
	int64_t k;
	int rc;
	cJSON *o;

	if (!x || !i || !u)
		return -1;
	if (empty(m, in(m, 0)) || empty(m, in(m, 1)))
		return REFUSED;
	if ((rc = reduction(m, &op, &o)) != 0)
		return rc;
	if (it->rank < 1 || (k = it->dims[it->rank - 1]) < 1 ||
	    k > t->rank) {
		cJSON_Delete(o);
		return nodeerr(m, "indices %s do not fit data of rank %d",
		    it->rank ? "of that last dimension" : "of rank 0",
		    t->rank);
	}
	if (!(i = fixidx(m, i, t->dims, (int)k))) {
		cJSON_Delete(o);
		return -1;
	}
	return imp_done(m, 0, emit(m, op, o, outname(m, 0), 3, x, i, u));
}

/* ---- expand, tile, pad ---- */

int
onnx_expand(struct imp *m)
{
	const char *x = need(m, 0);
	const struct tdesc *t = ty(m, x);
	int64_t *s, d[MAXR + 1];
	size_t n;
	int r, rc, same;
	cJSON *o;

	if (!x || rankok(m, t->rank))
		return -1;
	if ((rc = cin(m, 1, "shape", &s, &n)) != 0)
		return rc;
	if (n > MAXR) {
		free(s);
		return nodeerr(m, "a shape of %zu dimensions", n);
	}
	r = t->rank > (int)n ? t->rank : (int)n;
	same = r == t->rank;
	for (int i = 0; i < r; i++) {
		int64_t a = i - (r - t->rank) >= 0 ? t->dims[i - (r -
		    t->rank)] : 1;
		int64_t b = i - (r - (int)n) >= 0 ? s[i - (r - (int)n)] : 1;

		if (a != b && a != 1 && b != 1) {
			free(s);
			return nodeerr(m, "dimension %lld does not broadcast "
			    "to %lld", (long long)a, (long long)b);
		}
		d[i] = a == 1 ? b : a;
		same &= d[i] == a;
	}
	free(s);
	if (dimsok(m, d, (size_t)r))
		return -1;
	if (numel(d, r) == 0)	/* no values to compute (nnl-graph(5)) */
		return imp_done(m, 0, mkconst(m, outname(m, 0), t->dt, r, d,
		    ""));
	if (same)
		return imp_done(m, 0, x);
	o = cJSON_CreateObject();
	cJSON_AddItemToObject(o, "newShape", ju32of(d, r));
	return imp_done(m, 0, emit(m, "expand", o, outname(m, 0), 1, x));
}

int
onnx_tile(struct imp *m)
{
	const char *x = need(m, 0);
	const struct tdesc *t = ty(m, x);
	int64_t *s;
	size_t n;
	int rc, zero = 0;
	cJSON *o;

	if (!x)
		return -1;
	if ((rc = cin(m, 1, "repeats", &s, &n)) != 0)
		return rc;
	if (n != (size_t)t->rank || rankok(m, t->rank)) {
		free(s);
		return m->nerr ? -1 : nodeerr(m, "%zu repeats for rank %d",
		    n, t->rank);
	}
	for (size_t i = 0; i < n; i++) {
		if (s[i] < 0 || s[i] > U32MAX || (uint64_t)s[i] *
		    (uint64_t)t->dims[i] > U32MAX) {
			free(s);
			return nodeerr(m, "repeat %zu is invalid", i);
		}
		zero |= s[i] * t->dims[i] == 0;
	}
	if (zero) {
		int64_t d[MAXR + 1];

		/* no values to compute (nnl-graph(5)) */
		for (size_t i = 0; i < n; i++)
			d[i] = s[i] * t->dims[i];
		free(s);
		return imp_done(m, 0, mkconst(m, outname(m, 0), t->dt,
		    (int)n, d, ""));
	}
	o = cJSON_CreateObject();
	cJSON_AddItemToObject(o, "repetitions", ju32of(s, (int)n));
	free(s);
	return imp_done(m, 0, emit(m, "tile", o, outname(m, 0), 1, x));
}

/* Pad's pads, constant value and axes, by opset. */
static int
padargs(struct imp *m, int64_t **p, size_t *np, double *val, int64_t **ax,
    size_t *nax)
{
	int c;

	*ax = NULL;
	*nax = 0;
	if (m->opset < 11) {
		*p = attcopy(m, att(m, "pads") ? "pads" : "paddings", np);
		*val = att_f(m, "value", 0);
		return 0;
	}
	if (!in(m, 1))
		return nodeerr(m, "pads is missing");
	/* both read before refusing: the refusal names each computed */
	c = cints(m, in(m, 1), p, np) != 0;
	c += in(m, 3) && cints(m, in(m, 3), ax, nax) != 0;
	if (c) {
		free(*p);
		free(*ax);
		*ax = NULL;
		return refuse(m, REFUSE_CONST,
		    "pads and axes must be constants");
	}
	if (in(m, 2) && isconst(m, in(m, 2))) {
		double *v;
		size_t n;

		cfloats(m, in(m, 2), &v, &n);
		*val = n ? v[0] : 0;
		free(v);
	} else if (in(m, 2)) {
		*val = NAN;	/* computed: onnx_pad masks it in */
	}
	return 0;
}

/* Negative paddings b, e cut x first. */
static const char *
padcrop(struct imp *m, const char *x, int64_t *b, int64_t *e)
{
	const struct tdesc *t = ty(m, x);
	int64_t st[MAXR + 1], sz[MAXR + 1];
	int cut = 0;
	cJSON *o;

	for (int i = 0; i < t->rank; i++) {
		st[i] = b[i] < 0 ? -b[i] : 0;
		sz[i] = t->dims[i] - st[i] - (e[i] < 0 ? -e[i] : 0);
		cut |= b[i] < 0 || e[i] < 0;
		b[i] = b[i] < 0 ? 0 : b[i];
		e[i] = e[i] < 0 ? 0 : e[i];
		if (sz[i] < 1) {
			refuse(m, REFUSE_EMPTY, "an empty result");
			return NULL;
		}
	}
	if (!cut)
		return x;
	o = cJSON_CreateObject();
	cJSON_AddItemToObject(o, "starts", ju32of(st, t->rank));
	cJSON_AddItemToObject(o, "sizes", ju32of(sz, t->rank));
	return emit(m, "slice", o, NULL, 1, x);
}

static const char *
padop(struct imp *m, const char *x, const int64_t *b, const int64_t *e,
    double val, const char *out)
{
	int r = ty(m, x)->rank;
	cJSON *o = cJSON_CreateObject();

	cJSON_AddItemToObject(o, "beginningPadding", ju32of(b, r));
	cJSON_AddItemToObject(o, "endingPadding", ju32of(e, r));
	cJSON_AddNumberToObject(o, "value", val);
	return emit(m, "pad", o, out, 1, x);
}

/* Constant padding with a computed value v: where(mask, v, pad(x)),
 * the mask a padded constant. */
static const char *
padwith(struct imp *m, const char *x, const int64_t *b, const int64_t *e,
    const char *v)
{
	const struct tdesc *t = ty(m, x);
	const char *z, *mask, *px;
	unsigned char *zero;
	cJSON *o;

	if (tdesc_numel(ty(m, v)) != 1) {
		nodeerr(m, "constant_value holds %llu values",
		    (unsigned long long)tdesc_numel(ty(m, v)));
		return NULL;
	}
	if (ty(m, v)->dt != t->dt) {
		o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "dataType", dtype_name(t->dt));
		v = emit(m, "cast", o, NULL, 1, v);
	}
	v = v ? imp_reshape(m, v, 0, NULL, NULL) : NULL;
	zero = xcalloc(tdesc_numel(t) + 1, 1);
	z = mkconst(m, NULL, DT_UINT8, t->rank, t->dims, zero);
	free(zero);
	mask = padop(m, z, b, e, 1, NULL);
	px = mask && v ? padop(m, x, b, e, 0, NULL) : NULL;
	return px ? emit(m, "where", NULL, outname(m, 0), 3, mask, v, px) :
	    NULL;
}

int
onnx_pad(struct imp *m)
{
	const char *x = need(m, 0), *mode = att_s(m, "mode", "constant");
	const char *wmode = strcmp(mode, "constant") == 0 ? "constant" :
	    strcmp(mode, "edge") == 0 ? "edge" : strcmp(mode, "reflect") == 0 ?
	    "reflection" : NULL;
	const struct tdesc *t = ty(m, x);
	int64_t *p, *axv, b[MAXR + 1] = { 0 }, e[MAXR + 1] = { 0 };
	uint32_t ax[MAXR + 1];
	size_t np, nax;
	double val = 0;
	int rc, any = 0;
	cJSON *o;

	if (!x || rankok(m, t->rank))
		return -1;
	if (empty(m, in(m, 0)))
		return REFUSED;
	if (!wmode)
		return refuse(m, REFUSE_ATTR,
		    "mode \"%s\"", escape_tty_name(mode));
	if ((rc = padargs(m, &p, &np, &val, &axv, &nax)) != 0)
		return rc;
	if (!axv) {
		nax = (size_t)t->rank;
		for (int i = 0; i < t->rank; i++)
			ax[i] = (uint32_t)i;
	}
	if (np != 2 * nax || (axv && normaxes(m, axv, nax, t->rank, ax))) {
		free(p);
		free(axv);
		return m->nerr ? -1 : nodeerr(m, "%zu pads for %zu axes", np,
		    nax);
	}
	for (size_t i = 0; i < nax; i++) {
		b[ax[i]] = p[i];
		e[ax[i]] = p[i + nax];
	}
	free(p);
	free(axv);
	for (int i = 0; i < t->rank; i++) {
		if (b[i] > U32MAX || e[i] > U32MAX || b[i] < -U32MAX ||
		    e[i] < -U32MAX)
			return nodeerr(m, "padding of axis %d is too large",
			    i);
		any |= b[i] > 0 || e[i] > 0;
	}
	if (!(x = padcrop(m, x, b, e)))
		return m->nerr ? -1 : REFUSED;
	if (!any)
		return imp_done(m, 0, emit(m, "identity", NULL, outname(m, 0), 1, x));
	if (isnan(val) && strcmp(wmode, "constant") == 0)
		return imp_done(m, 0, padwith(m, x, b, e, in(m, 2)));
	if (!isfinite(val) && strcmp(wmode, "constant") == 0)
		return refuse(m, REFUSE_ATTR, "constant_value %g", val);
	o = cJSON_CreateObject();
	cJSON_AddItemToObject(o, "beginningPadding", ju32of(b, t->rank));
	cJSON_AddItemToObject(o, "endingPadding", ju32of(e, t->rank));
	cJSON_AddStringToObject(o, "mode", wmode);
	if (strcmp(wmode, "constant") == 0)
		cJSON_AddNumberToObject(o, "value", val);
	return imp_done(m, 0, emit(m, "pad", o, outname(m, 0), 1, x));
}

/* ---- triangular, arg and reductions ---- */

int
onnx_trilu(struct imp *m)
{
	const char *x = need(m, 0);
	int64_t k = 0, *v;
	size_t n;
	int rc;
	cJSON *o;

	if (!x)
		return -1;
	if (in(m, 1)) {
		if ((rc = cin(m, 1, "k", &v, &n)) != 0)
			return rc;
		k = n ? v[0] : 0;
		free(v);
		if (n != 1)
			return nodeerr(m, "k holds %zu values", n);
	}
	if (ty(m, x)->rank < 2)
		return nodeerr(m, "input of rank %d", ty(m, x)->rank);
	if (tdesc_numel(ty(m, x)) == 0)
		return imp_done(m, 0, x);
	k = k > INT32_MAX ? INT32_MAX : k < -INT32_MAX ? -INT32_MAX : k;
	o = cJSON_CreateObject();
	cJSON_AddBoolToObject(o, "upper", att_i(m, "upper", 1) != 0);
	cJSON_AddNumberToObject(o, "diagonal", (double)k);
	return imp_done(m, 0, emit(m, "triangular", o, outname(m, 0), 1, x));
}

int
onnx_argminmax(struct imp *m)
{
	const char *x = need(m, 0), *y;
	const char *op = strcmp(m->n->op_type, "ArgMax") == 0 ? "argMax" :
	    "argMin";
	const struct tdesc *t = ty(m, x);
	int last = m->opset >= 12 && att_i(m, "select_last_index", 0);
	int64_t axis;
	uint32_t a;
	cJSON *o;

	if (!x || normaxis(m, att_i(m, "axis", 0), t->rank, &axis))
		return -1;
	if (empty(m, in(m, 0)))
		return REFUSED;
	a = (uint32_t)axis;
	if (last) {
		o = cJSON_CreateObject();
		cJSON_AddItemToObject(o, "axes", ju32s(&a, 1));
		if (!(x = emit(m, "reverse", o, NULL, 1, x)))
			return -1;
	}
	o = axisopt(axis);
	cJSON_AddBoolToObject(o, "keepDimensions", att_i(m, "keepdims",
	    1) != 0);
	cJSON_AddStringToObject(o, "outputDataType", "int64");
	y = emit(m, op, o, last ? NULL : outname(m, 0), 1, x);
	if (y && last)
		y = emit(m, "sub", NULL, outname(m, 0), 2, mkscalar(m,
		    DT_INT64, (double)(t->dims[axis] - 1)), y);
	return imp_done(m, 0, y);
}

static const char *const reductions[] = {
	"ReduceSum", "reduceSum", "ReduceMean", "reduceMean",
	"ReduceMax", "reduceMax", "ReduceMin", "reduceMin",
	"ReduceProd", "reduceProduct", "ReduceL1", "reduceL1",
	"ReduceL2", "reduceL2", "ReduceLogSum", "reduceLogSum",
	"ReduceLogSumExp", "reduceLogSumExp",
	"ReduceSumSquare", "reduceSumSquare", NULL,
};

/* The types a reduction takes: 'f' float, 'n' numeric but 8-bit,
 * 'a' any. */
static int
reducetype(const char *op, enum dtype dt)
{
	int f = dtype_isfloat(dt);

	if (strcmp(op, "reduceMax") == 0 || strcmp(op, "reduceMin") == 0)
		return 1;
	if (strcmp(op, "reduceMean") == 0 || strcmp(op, "reduceL2") == 0 ||
	    strncmp(op, "reduceLog", 9) == 0)
		return f;
	return dt != DT_INT8 && dt != DT_UINT8;
}

int
onnx_reduce(struct imp *m)
{
	const char *x = need(m, 0), *op = NULL;
	const struct tdesc *t = ty(m, x);
	int asinput = m->opset >= 18 || (m->opset >= 13 &&
	    strcmp(m->n->op_type, "ReduceSum") == 0);
	int64_t *v = NULL;
	size_t n = 0;
	uint32_t ax[MAXR + 1];
	int rc;
	cJSON *o;

	for (const char *const *p = reductions; *p; p += 2)
		if (strcmp(p[0], m->n->op_type) == 0)
			op = p[1];
	if (!x || !op || rankok(m, t->rank))
		return -1;
	if (!reducetype(op, t->dt))
		return refuse(m, REFUSE_TYPE, "%s on %s", escape_tty_name(op),
		    dtype_name(t->dt));
	if (!asinput)
		v = attcopy(m, "axes", &n);
	else if (in(m, 1) && (rc = cin(m, 1, "axes", &v, &n)) != 0)
		return rc;
	if (n == 0 && asinput && att_i(m, "noop_with_empty_axes", 0)) {
		free(v);
		return imp_done(m, 0, x);
	}
	if (n == 0)
		for (int i = 0; i < t->rank; i++)
			ax[n++] = (uint32_t)i;
	else if (normaxes(m, v, n, t->rank, ax)) {
		free(v);
		return -1;
	}
	free(v);
	/* a sum of none is 0, a product 1 (nnl-graph(5)); a maximum,
	 * a minimum or a mean of none has no value */
	if (tdesc_numel(t) == 0 && (strcmp(op, "reduceMax") == 0 ||
	    strcmp(op, "reduceMin") == 0 || strcmp(op, "reduceMean") == 0))
		return refuse(m, REFUSE_EMPTY, "%s of an empty tensor has no "
		    "value", escape_tty_name(op));
	o = cJSON_CreateObject();
	cJSON_AddItemToObject(o, "axes", ju32s(ax, n));
	cJSON_AddBoolToObject(o, "keepDimensions", att_i(m, "keepdims",
	    1) != 0);
	return imp_done(m, 0, emit(m, op, o, outname(m, 0), 1, x));
}

/* ---- depth and space ---- */

int
onnx_depthtospace(struct imp *m)
{
	static const uint32_t dcr[] = { 0, 3, 4, 1, 5, 2 };
	static const uint32_t crd[] = { 0, 1, 4, 2, 5, 3 };
	static const uint32_t s2d[] = { 0, 3, 5, 1, 2, 4 };
	const char *x = need(m, 0), *y;
	const struct tdesc *t = ty(m, x);
	int64_t b = att_i(m, "blocksize", 0), d6[6], d4[4], n, c, h, w;
	int tod = strcmp(m->n->op_type, "DepthToSpace") == 0;
	int isdcr = strcmp(att_s(m, "mode", "DCR"), "DCR") == 0;

	if (!x)
		return -1;
	if (empty(m, in(m, 0)))
		return REFUSED;
	if (t->rank != 4 || b < 1 || b > 65536)
		return nodeerr(m, "input of rank %d, blocksize %lld", t->rank,
		    (long long)b);
	n = t->dims[0], c = t->dims[1], h = t->dims[2], w = t->dims[3];
	if (tod && strcmp(att_s(m, "mode", "DCR"), "CRD") && !isdcr)
		return nodeerr(m, "mode \"%s\"",
		    escape_tty_name(att_s(m, "mode", "")));
	if (tod ? c % (b * b) : h % b || w % b)
		return nodeerr(m, "blocksize %lld does not divide the input",
		    (long long)b);
	if (!tod) {
		int64_t s[6] = { n, c, h / b, b, w / b, b };

		memcpy(d6, s, sizeof s);
		d4[0] = n, d4[1] = c * b * b, d4[2] = h / b, d4[3] = w / b;
	} else if (isdcr) {
		int64_t s[6] = { n, b, b, c / (b * b), h, w };

		memcpy(d6, s, sizeof s);
	} else {
		int64_t s[6] = { n, c / (b * b), b, b, h, w };

		memcpy(d6, s, sizeof s);
	}
	if (tod)
		d4[0] = n, d4[1] = c / (b * b), d4[2] = h * b, d4[3] = w * b;
	y = imp_reshape(m, x, 6, d6, NULL);
	y = y ? transpose(m, y, !tod ? s2d : isdcr ? dcr : crd, 6, NULL) :
	    NULL;
	return imp_done(m, 0, y ? imp_reshape(m, y, 4, d4, outname(m, 0)) : NULL);
}

int
onnx_cumsum(struct imp *m)
{
	const char *x = need(m, 0);
	const struct tdesc *t = ty(m, x);
	int64_t *v, axis;
	size_t n;
	int rc;
	cJSON *o;

	if (!x)
		return -1;
	if (empty(m, in(m, 0)))
		return REFUSED;
	if (t->dt == DT_INT8 || t->dt == DT_UINT8)
		return refuse(m, REFUSE_TYPE,
		    "cumulativeSum on %s", dtype_name(t->dt));
	if ((rc = cin(m, 1, "axis", &v, &n)) != 0)
		return rc;
	if (n != 1) {
		free(v);
		return nodeerr(m, "axis holds %zu values", n);
	}
	rc = normaxis(m, v[0], t->rank, &axis);
	free(v);
	if (rc)
		return -1;
	o = axisopt(axis);
	cJSON_AddBoolToObject(o, "exclusive", att_i(m, "exclusive", 0) != 0);
	cJSON_AddBoolToObject(o, "reversed", att_i(m, "reverse", 0) != 0);
	return imp_done(m, 0, emit(m, "cumulativeSum", o, outname(m, 0), 1, x));
}

/* ---- one-hot and data-dependent shapes ---- */

/* The one item of values (a 2-item list) at position k. */
static const char *
pick(struct imp *m, const char *values, int k)
{
	return emit(m, "gather", NULL, NULL, 2, values, mkscalar(m,
	    DT_INT64, k));
}

int
onnx_onehot(struct imp *m)
{
	const char *i = need(m, 0), *v = need(m, 2), *c, *on, *off;
	const struct tdesc *it = ty(m, i);
	enum dtype idt = it->dt == DT_INT32 ? DT_INT32 : DT_INT64;
	int64_t axis, dep, d[MAXR + 1], *iota;
	double *dv;
	size_t n;
	int r = it->rank + 1, k = 0;
	cJSON *o;

	if (!i || !v || rankok(m, r) || normaxis(m, att_i(m, "axis", -1), r,
	    &axis))
		return -1;
	if (empty(m, in(m, 0)))
		return REFUSED;
	if (!in(m, 1))
		return nodeerr(m, "depth is missing");
	if (cfloats(m, in(m, 1), &dv, &n) != 0)
		return refuse(m, REFUSE_CONST, "depth is computed");
	dep = n == 1 && dv[0] >= 1 && dv[0] <= RANGEMAX ? (int64_t)dv[0] : -1;
	free(dv);
	if (dep < 1 || tdesc_numel(ty(m, v)) != 2)
		return nodeerr(m, "depth must be one positive value, values "
		    "two");
	if (it->dt != idt) {
		o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "dataType", dtype_name(idt));
		i = emit(m, "cast", o, NULL, 1, i);
	}
	c = i ? emit(m, "lesser", NULL, NULL, 2, i, mkscalar(m, idt, 0)) :
	    NULL;
	i = c ? emit(m, "where", NULL, NULL, 3, c, emit(m, "add", NULL, NULL,
	    2, i, mkscalar(m, idt, (double)dep)), i) : NULL;
	for (int j = 0; j < r; j++)
		d[j] = j == axis ? 1 : it->dims[k++];
	i = i ? imp_reshape(m, i, r, d, NULL) : NULL;
	for (int j = 0; j < r; j++)
		d[j] = j == axis ? dep : 1;
	iota = xcalloc((size_t)dep, 8);
	for (int64_t j = 0; j < dep; j++)
		store(idt, (unsigned char *)iota, (uint64_t)j, j, 0);
	c = i ? emit(m, "equal", NULL, NULL, 2, i, mkconst(m, NULL, idt, r, d,
	    iota)) : NULL;
	free(iota);
	off = pick(m, v, 0);
	on = pick(m, v, 1);
	return imp_done(m, 0, c && on && off ? emit(m, "where", NULL, outname(m, 0),
	    3, c, on, off) : NULL);
}

int
onnx_nonzero(struct imp *m)
{
	const char *x = need(m, 0), *y;
	const struct tdesc *t = ty(m, x);
	double *v;
	size_t n, nz = 0;
	int64_t *out, d[2];

	if (!x)
		return -1;
	if (!isconst(m, x))
		return onnx_nonzero_bounded(m);
	if (cfloats(m, x, &v, &n) != 0)
		return refuse(m, REFUSE_DYNAMIC,
		    "a computed input (the output's shape "
		    "depends on its values)");
	if (t->rank < 1 || rankok(m, t->rank)) {
		free(v);
		return m->nerr ? -1 : refuse(m, REFUSE_RANK, "a scalar input");
	}
	for (size_t j = 0; j < n; j++)
		nz += v[j] != 0;
	out = xcalloc((size_t)t->rank * nz + 1, sizeof *out);
	for (size_t j = 0, c = 0; j < n; j++) {
		uint64_t q = j;

		if (v[j] == 0)
			continue;
		for (int k = t->rank - 1; k >= 0; k--) {
			out[(size_t)k * nz + c] = (int64_t)(q %
			    (uint64_t)t->dims[k]);
			q /= (uint64_t)t->dims[k];
		}
		c++;
	}
	d[0] = t->rank;
	d[1] = (int64_t)nz;
	y = mkconst(m, outname(m, 0), DT_INT64, 2, d, out);
	free(out);
	free(v);
	return imp_done(m, 0, y);
}

int
onnx_compress(struct imp *m)
{
	const char *x = need(m, 0), *y;
	const struct tdesc *t = ty(m, x);
	int64_t axis = 0, dim, *idx;
	double *v;
	size_t n, cnt = 0;

	if (!x || rankok(m, t->rank))
		return -1;
	if (empty(m, in(m, 0)))
		return REFUSED;
	if (!in(m, 1))
		return nodeerr(m, "condition is missing");
	if (cfloats(m, in(m, 1), &v, &n) != 0)
		return refuse(m, REFUSE_DYNAMIC,
		    "a computed condition (the output's shape "
		    "depends on its values)");
	if (att(m, "axis") && normaxis(m, att_i(m, "axis", 0), t->rank,
	    &axis)) {
		free(v);
		return -1;
	}
	dim = att(m, "axis") ? t->dims[axis] : (int64_t)tdesc_numel(t);
	idx = xcalloc(n + 1, sizeof *idx);
	for (size_t j = 0; j < n; j++)
		if (v[j] != 0 && (int64_t)j < dim)
			idx[cnt++] = (int64_t)j;
		else if (v[j] != 0)
			cnt = SIZE_MAX / 2;
	free(v);
	if (cnt == SIZE_MAX / 2 || cnt == 0) {
		free(idx);
		return cnt ? nodeerr(m, "condition is longer than the "
		    "dimension") : refuse(m, REFUSE_EMPTY, "an empty result");
	}
	if (!att(m, "axis"))
		x = imp_reshape(m, x, 1, &dim, NULL);
	y = x ? emit(m, "gather", axisopt(axis), outname(m, 0), 2, x,
	    i64s(m, idx, (int64_t)cnt)) : NULL;
	free(idx);
	return imp_done(m, 0, y);
}

/*
 * ReverseSequence with constant lengths: rows (time, batch) of the
 * input seen as [T * B, rest] gathered in the reversed order.
 */
int
onnx_reversesequence(struct imp *m)
{
	const char *x = need(m, 0), *y;
	const struct tdesc *t = ty(m, x);
	int64_t ta = att_i(m, "time_axis", 0), ba = att_i(m, "batch_axis", 1);
	int64_t *len, *idx, d2[2], nt, nb;
	size_t n;
	int rc;

	if (!x)
		return -1;
	if (t->rank < 2 || !((ta == 0 && ba == 1) || (ta == 1 && ba == 0)))
		return nodeerr(m, "time_axis %lld and batch_axis %lld for rank "
		    "%d", (long long)ta, (long long)ba, t->rank);
	if ((rc = cin(m, 1, "sequence_lens", &len, &n)) != 0)
		return rc;
	if (tdesc_numel(t) == 0) {
		free(len);
		return refuse(m, REFUSE_EMPTY, "an empty input");
	}
	nt = t->dims[ta];
	nb = t->dims[ba];
	if ((int64_t)n != nb) {
		free(len);
		return nodeerr(m, "%zu sequence lengths for a batch of %lld",
		    n, (long long)nb);
	}
	idx = xcalloc((size_t)(nt * nb) + 1, sizeof *idx);
	for (int64_t b = 0; b < nb; b++)
		for (int64_t i = 0; i < nt; i++) {
			int64_t l = len[b] < 0 ? 0 : len[b] > nt ? nt : len[b];
			int64_t s = i < l ? l - 1 - i : i;

			idx[ta == 0 ? i * nb + b : b * nt + i] = ta == 0 ?
			    s * nb + b : b * nt + s;
		}
	free(len);
	d2[0] = nt * nb;
	d2[1] = (int64_t)(tdesc_numel(t) / (uint64_t)d2[0]);
	y = imp_reshape(m, x, 2, d2, NULL);
	y = y ? emit(m, "gather", axisopt(0), NULL, 2, y, i64s(m, idx,
	    d2[0])) : NULL;
	free(idx);
	return imp_done(m, 0, y ? imp_reshape(m, y, t->rank, t->dims, outname(m, 0)) :
	    NULL);
}

/* TopK: nnl's topK (beyond WebNN), k known at import time (the
 * attribute of opset 1, the input K since opset 10).  sorted=0 lets
 * the items come in any order: nnl's come sorted. */
int
onnx_topk(struct imp *m)
{
	const char *x = need(m, 0), *names[2];
	const char *ins[1];
	int64_t axis, k, *kv = NULL;
	size_t nk = 0;
	const struct tdesc *t;
	cJSON *o;

	if (!x)
		return -1;
	t = ty(m, x);
	if (normaxis(m, att_i(m, "axis", -1), t->rank, &axis))
		return -1;
	if (m->opset < 10)
		k = att_i(m, "k", -1);
	else {
		if (!need(m, 1))
			return -1;
		if (cints(m, in(m, 1), &kv, &nk) != 0)
			return refuse(m, REFUSE_CONST, "K computed at run time");
		k = nk == 1 ? kv[0] : -1;
		free(kv);
		if (nk != 1)
			return nodeerr(m, "K holds %zu values, not one", nk);
	}
	if (k < 0 || k > t->dims[axis])
		return nodeerr(m, "k %lld is outside [0, %lld] (dimension "
		    "%lld of the input)", (long long)k,
		    (long long)t->dims[axis], (long long)axis);
	if (k == 0 || empty(m, x))
		return refuse(m, REFUSE_EMPTY, "an empty output (k 0)");
	o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "k", (double)k);
	cJSON_AddNumberToObject(o, "axis", (double)axis);
	cJSON_AddBoolToObject(o, "largest", att_i(m, "largest", 1) != 0);
	cJSON_AddStringToObject(o, "outputDataType", "int64");
	ins[0] = x;
	names[0] = outname(m, 0);
	names[1] = outname(m, 1);
	if (emitn(m, "topK", o, 2, names, 1, ins) < 0)
		return -1;
	bind(m, 0, names[0]);
	bind(m, 1, names[1]);
	return 0;
}
