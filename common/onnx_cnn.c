/*
 * onnx_cnn: ONNX convolutions, pools, normalizations and matrix
 * products as WebNN operations.  1-D convolutions and pools run as 2-D
 * ones over a [N, C, L, 1] view.  Padded average pools are spelled out
 * (explicit pad, unpadded pool, a constant correction of the divisor)
 * because WebNN leaves the treatment of padding in averagePool2d to the
 * implementation.
 */
#include <stdlib.h>
#include <string.h>

#include "onnx_imp.h"

static int
isfloat(enum dtype dt)
{
	return dt == DT_FLOAT32 || dt == DT_FLOAT16;
}

static const char *
reshape(struct imp *m, const char *x, int rank, const int64_t *dims,
    const char *out)
{
	uint32_t d[32];
	cJSON *o = cJSON_CreateObject();

	for (int i = 0; i < rank; i++)
		d[i] = (uint32_t)dims[i];
	cJSON_AddItemToObject(o, "newShape", ju32s(d, (size_t)rank));
	return emit(m, "reshape", o, out, 1, x);
}

/* x [N, C, L] as [N, C, L, 1]; 4-D operands as they are. */
static const char *
to2d(struct imp *m, const char *x)
{
	const struct tdesc *t = ty(m, x);
	int64_t d[4];

	if (t->rank != 3)
		return x;
	memcpy(d, t->dims, 3 * sizeof *d);
	d[3] = 1;
	return reshape(m, x, 4, d, NULL);
}

/* The spatial attributes of a conv or pool over k (1 or 2) axes, in
 * WebNN's order: pad[4] = begin H, end H, begin W, end W. */
struct spatial {
	int64_t k[2], st[2], dl[2], pad[4], opad[2];
};

static int
ints2(struct imp *m, const char *name, int k, int64_t *v, int64_t dflt,
    int positive)
{
	const int64_t *a;
	size_t n = att_ints(m, name, &a);

	v[0] = v[1] = dflt;
	if (n == 0)
		return 0;
	if ((int)n != k)
		return nodeerr(m, "%s has %zu values for %d spatial axes",
		    name, n, k);
	for (int i = 0; i < k; i++) {
		if (a[i] < (positive ? 1 : 0) || a[i] > 1 << 24)
			return nodeerr(m, "%s: %lld", name, (long long)a[i]);
		v[i] = a[i];
	}
	return 0;
}

/* Read kernel_shape (or kshape), strides, dilations, pads and auto_pad
 * for an input of spatial size in[k]; transposed: convTranspose's
 * rules for auto_pad. */
static int
spatial(struct imp *m, int k, const int64_t *in, const int64_t *kshape,
    struct spatial *s, int transposed)
{
	const char *ap = att_s(m, "auto_pad", "NOTSET");
	const int64_t *p;
	size_t np = att_ints(m, "pads", &p);

	memset(s, 0, sizeof *s);
	s->k[1] = s->st[1] = s->dl[1] = 1;
	if (ints2(m, "kernel_shape", k, s->k, 0, 1) ||
	    ints2(m, "strides", k, s->st, 1, 1) ||
	    ints2(m, "dilations", k, s->dl, 1, 1) ||
	    ints2(m, "output_padding", k, s->opad, 0, 0))
		return -1;
	if (k == 1)
		s->k[1] = s->st[1] = s->dl[1] = 1;
	for (int i = 0; i < k; i++)
		if (kshape && !att(m, "kernel_shape"))
			s->k[i] = kshape[i];
	if (!s->k[0])
		return nodeerr(m, "no kernel_shape");
	if (strcmp(ap, "NOTSET") == 0) {
		if (np && (int)np != 2 * k)
			return nodeerr(m, "pads has %zu values for %d spatial "
			    "axes", np, k);
		for (int i = 0; i < k && np; i++) {
			if (p[i] < 0 || p[i + k] < 0)
				return REFUSED;
			s->pad[2 * i] = p[i];
			s->pad[2 * i + 1] = p[i + k];
		}
	} else if (strcmp(ap, "SAME_UPPER") == 0 ||
	    strcmp(ap, "SAME_LOWER") == 0) {
		int upper = ap[5] == 'U';

		for (int i = 0; i < k; i++) {
			int64_t ke = (s->k[i] - 1) * s->dl[i] + 1, t, o;

			if (transposed) {
				o = in[i] * s->st[i];
				t = s->st[i] * (in[i] - 1) + s->opad[i] + ke - o;
			} else {
				o = (in[i] + s->st[i] - 1) / s->st[i];
				t = (o - 1) * s->st[i] + ke - in[i];
			}
			t = t < 0 ? 0 : t;
			/* convTranspose puts the odd cell at the other end */
			s->pad[2 * i] = upper ? t / 2 : t - t / 2;
			s->pad[2 * i + 1] = t - s->pad[2 * i];
		}
	} else if (strcmp(ap, "VALID") != 0) {
		return nodeerr(m, "auto_pad \"%s\"", ap);
	}
	return 0;
}

static cJSON *
jpair(const int64_t *v)
{
	return jints(v, 2);
}

static void
spatialopts(cJSON *o, const struct spatial *s, int window)
{
	if (window)
		cJSON_AddItemToObject(o, "windowDimensions", jpair(s->k));
	cJSON_AddItemToObject(o, "padding", jints(s->pad, 4));
	cJSON_AddItemToObject(o, "strides", jpair(s->st));
	cJSON_AddItemToObject(o, "dilations", jpair(s->dl));
}

/* Back from the [N, C, L, 1] view when the input was 1-D. */
static const char *
from2d(struct imp *m, const char *y, int rank, const char *out)
{
	const struct tdesc *t = ty(m, y);

	if (rank != 3)
		return emit(m, "identity", NULL, out, 1, y);
	return reshape(m, y, 3, t->dims, out);
}

int
cnn_conv(struct imp *m)
{
	const char *x = in(m, 0), *w = in(m, 1), *b = in(m, 2), *y;
	const struct tdesc *xt = ty(m, x), *wt = ty(m, w);
	int transposed = strcmp(m->n->op_type, "ConvTranspose") == 0;
	int r = xt->rank, k = r - 2;
	int64_t g = att_i(m, "group", 1), ks[2], sp[2];
	struct spatial s;
	cJSON *o;
	int rc;

	if (r != 3 && r != 4)
		return refuse(m, "a %d-D convolution", r - 2);
	if (!isfloat(xt->dt))
		return refuse(m, "%s on %s", m->n->op_type,
		    dtype_name(xt->dt));
	if (wt->rank != r)
		return nodeerr(m, "weight of rank %d for input of rank %d",
		    wt->rank, r);
	if (g < 1 || g > 1 << 24)
		return nodeerr(m, "group %lld", (long long)g);
	for (int i = 0; i < k; i++) {
		ks[i] = wt->dims[2 + i];
		sp[i] = xt->dims[2 + i];
	}
	if ((rc = spatial(m, k, sp, ks, &s, transposed)) != 0)
		return rc == REFUSED ? refuse(m, "negative pads") : -1;
	o = cJSON_CreateObject();
	cJSON_AddItemToObject(o, "padding", jints(s.pad, 4));
	cJSON_AddItemToObject(o, "strides", jpair(s.st));
	cJSON_AddItemToObject(o, "dilations", jpair(s.dl));
	cJSON_AddNumberToObject(o, "groups", (double)g);
	if (transposed) {
		const int64_t *os;
		size_t nos = att_ints(m, "output_shape", &os);

		cJSON_AddItemToObject(o, "outputPadding", jpair(s.opad));
		if (nos) {
			int64_t sz[2] = { 1, 1 };

			if ((int)nos != k && (int)nos != r) {
				cJSON_Delete(o);
				return nodeerr(m, "output_shape has %zu values",
				    nos);
			}
			for (int i = 0; i < k; i++)
				sz[i] = os[nos - (size_t)k + (size_t)i];
			/* the padding that gives that size */
			for (int i = 0; i < k; i++) {
				int64_t ke = (s.k[i] - 1) * s.dl[i] + 1;
				int64_t t = s.st[i] * (sp[i] - 1) + s.opad[i] +
				    ke - sz[i];

				if (t < 0) {
					/* larger than padding 0 gives: the
					 * extra cells are output padding */
					s.opad[i] = -t;
					s.pad[2 * i] = s.pad[2 * i + 1] = 0;
					continue;
				}
				if (strcmp(att_s(m, "auto_pad", "NOTSET"),
				    "SAME_UPPER") == 0) {
					s.pad[2 * i] = t - t / 2;
					s.pad[2 * i + 1] = t / 2;
				} else {
					s.pad[2 * i] = t / 2;
					s.pad[2 * i + 1] = t - t / 2;
				}
			}
			cJSON_ReplaceItemInObject(o, "padding",
			    jints(s.pad, 4));
			cJSON_ReplaceItemInObject(o, "outputPadding",
			    jpair(s.opad));
		}
	}
	if (b)
		cJSON_AddStringToObject(o, "bias", b);
	x = to2d(m, x);
	w = x ? to2d(m, w) : NULL;
	y = w ? emit(m, transposed ? "convTranspose2d" : "conv2d", o, r == 4 ?
	    outname(m, 0) : NULL, 2, x, w) : (cJSON_Delete(o), NULL);
	if (y && r == 3)
		y = from2d(m, y, 3, outname(m, 0));
	if (!y)
		return -1;
	bind(m, 0, y);
	return 0;
}

/* A constant [1, 1, OH, OW] that corrects an unpadded average over an
 * explicitly padded input (which divides by the cells inside it) to
 * ONNX's divisor: the real cells, or all padded ones. */
static const char *
divisorfix(struct imp *m, const struct spatial *s, const int64_t *in,
    const int64_t *outsz, int includepad, enum dtype dt)
{
	int64_t n = outsz[0] * outsz[1], dims[4] = { 1, 1, outsz[0],
	    outsz[1] };
	float *f = xcalloc((size_t)n, sizeof *f);
	int trivial = 1;
	const char *c;

	for (int64_t oy = 0; oy < outsz[0]; oy++)
		for (int64_t ox = 0; ox < outsz[1]; ox++) {
			int64_t padded = 0, real = 0;

			for (int64_t a = 0; a < s->k[0]; a++) {
				int64_t py = oy * s->st[0] + a * s->dl[0];
				int64_t iy = py - s->pad[0];

				if (py >= in[0] + s->pad[0] + s->pad[1])
					continue;
				for (int64_t b = 0; b < s->k[1]; b++) {
					int64_t px = ox * s->st[1] +
					    b * s->dl[1];
					int64_t ix = px - s->pad[2];

					if (px >= in[1] + s->pad[2] + s->pad[3])
						continue;
					padded++;
					real += iy >= 0 && iy < in[0] &&
					    ix >= 0 && ix < in[1];
				}
			}
			f[oy * outsz[1] + ox] = includepad || !real ? 1 :
			    (float)padded / (float)real;
			trivial &= f[oy * outsz[1] + ox] == 1;
		}
	if (trivial) {
		free(f);
		return NULL;
	}
	c = mkconst(m, NULL, DT_FLOAT32, 4, dims, f);
	free(f);
	if (c && dt != DT_FLOAT32) {
		cJSON *o = cJSON_CreateObject();

		cJSON_AddStringToObject(o, "dataType", dtype_name(dt));
		c = emit(m, "cast", o, NULL, 1, c);
	}
	return c;
}

int
cnn_pool(struct imp *m)
{
	int maxp = strcmp(m->n->op_type, "MaxPool") == 0;
	int lp = strcmp(m->n->op_type, "LpPool") == 0;
	const char *x = in(m, 0), *y, *op = maxp ? "maxPool2d" : lp ?
	    "l2Pool2d" : "averagePool2d";
	const struct tdesc *xt = ty(m, x);
	int r = xt->rank, k = r - 2, ceil = (int)att_i(m, "ceil_mode", 0);
	int incl = (int)att_i(m, "count_include_pad", 0), rc;
	int64_t sp[2] = { 1, 1 };
	struct spatial s;
	cJSON *o;

	if (r != 3 && r != 4)
		return refuse(m, "a %d-D pool", r - 2);
	if (maxp && outname(m, 1))
		return refuse(m, "the Indices output");
	if (lp && att_i(m, "p", 2) != 2)
		return refuse(m, "p = %lld (WebNN has the L2 pool only)",
		    (long long)att_i(m, "p", 2));
	if (!isfloat(xt->dt) && !maxp)
		return refuse(m, "%s on %s", m->n->op_type,
		    dtype_name(xt->dt));
	if (maxp && xt->dt != DT_FLOAT32 && xt->dt != DT_FLOAT16)
		return refuse(m, "MaxPool on %s", dtype_name(xt->dt));
	if (maxp && att_i(m, "storage_order", 0))
		return refuse(m, "storage_order 1");
	for (int i = 0; i < k; i++)
		sp[i] = xt->dims[2 + i];
	if ((rc = spatial(m, k, sp, NULL, &s, 0)) != 0)
		return rc == REFUSED ? refuse(m, "negative pads") : -1;
	x = to2d(m, x);
	if (!x)
		return -1;
	if (!maxp && !lp && (s.pad[0] || s.pad[1] || s.pad[2] || s.pad[3] ||
	    ceil)) {
		/* pad explicitly, pool, correct the divisor */
		int64_t b4[4] = { 0, 0, s.pad[0], s.pad[2] };
		int64_t e4[4] = { 0, 0, s.pad[1], s.pad[3] };
		int64_t outsz[2];
		const char *f;

		if (s.pad[0] || s.pad[1] || s.pad[2] || s.pad[3]) {
			o = cJSON_CreateObject();
			cJSON_AddItemToObject(o, "beginningPadding",
			    jints(b4, 4));
			cJSON_AddItemToObject(o, "endingPadding", jints(e4, 4));
			x = emit(m, "pad", o, NULL, 1, x);
		}
		o = cJSON_CreateObject();
		cJSON_AddItemToObject(o, "windowDimensions", jpair(s.k));
		cJSON_AddItemToObject(o, "strides", jpair(s.st));
		cJSON_AddItemToObject(o, "dilations", jpair(s.dl));
		if (ceil)
			cJSON_AddStringToObject(o, "outputShapeRounding",
			    "ceil");
		y = x ? emit(m, op, o, NULL, 1, x) : (cJSON_Delete(o), NULL);
		if (!y)
			return -1;
		outsz[0] = ty(m, y)->dims[2];
		outsz[1] = ty(m, y)->dims[3];
		f = divisorfix(m, &s, sp, outsz, incl, xt->dt);
		if (f)
			y = emit(m, "mul", NULL, NULL, 2, y, f);
	} else {
		o = cJSON_CreateObject();
		spatialopts(o, &s, 1);
		if (ceil)
			cJSON_AddStringToObject(o, "outputShapeRounding",
			    "ceil");
		y = emit(m, op, o, NULL, 1, x);
	}
	y = y ? from2d(m, y, r, outname(m, 0)) : NULL;
	if (!y)
		return -1;
	bind(m, 0, y);
	return 0;
}

/* GlobalAveragePool, GlobalMaxPool, GlobalLpPool: reductions over every
 * axis after the channels, kept. */
int
cnn_globalpool(struct imp *m)
{
	const char *op = m->n->op_type, *x = in(m, 0), *y, *red;
	const struct tdesc *xt = ty(m, x);
	uint32_t axes[32];
	cJSON *o;

	if (xt->rank < 3)
		return nodeerr(m, "input of rank %d", xt->rank);
	if (!isfloat(xt->dt))
		return refuse(m, "%s on %s", op, dtype_name(xt->dt));
	if (strcmp(op, "GlobalLpPool") == 0 && att_i(m, "p", 2) != 2)
		return refuse(m, "p = %lld", (long long)att_i(m, "p", 2));
	red = strcmp(op, "GlobalAveragePool") == 0 ? "reduceMean" :
	    strcmp(op, "GlobalMaxPool") == 0 ? "reduceMax" : "reduceL2";
	for (int i = 2; i < xt->rank; i++)
		axes[i - 2] = (uint32_t)i;
	o = cJSON_CreateObject();
	cJSON_AddItemToObject(o, "axes", ju32s(axes, (size_t)xt->rank - 2));
	cJSON_AddTrueToObject(o, "keepDimensions");
	if (!(y = emit(m, red, o, outname(m, 0), 1, x)))
		return -1;
	bind(m, 0, y);
	return 0;
}

int
cnn_batchnorm(struct imp *m)
{
	const char *x = in(m, 0), *y;
	const struct tdesc *xt = ty(m, x);
	cJSON *o;

	if (att_i(m, "training_mode", 0) || nouts(m) > 1)
		return refuse(m, "training mode (running statistics as "
		    "outputs)");
	if (!isfloat(xt->dt) || xt->rank < 2)
		return refuse(m, "BatchNormalization on %s of rank %d",
		    dtype_name(xt->dt), xt->rank);
	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "scale", in(m, 1));
	cJSON_AddStringToObject(o, "bias", in(m, 2));
	cJSON_AddNumberToObject(o, "axis", 1);
	cJSON_AddNumberToObject(o, "epsilon", att_f(m, "epsilon", 1e-5));
	if (!(y = emit(m, "batchNormalization", o, outname(m, 0), 3, x,
	    in(m, 3), in(m, 4))))
		return -1;
	bind(m, 0, y);
	return 0;
}

int
cnn_instancenorm(struct imp *m)
{
	const char *x = in(m, 0), *y;
	const struct tdesc *xt = ty(m, x);
	int r = xt->rank;
	cJSON *o;

	if (r != 3 && r != 4)
		return refuse(m, "InstanceNormalization of rank %d", r);
	if (!isfloat(xt->dt))
		return refuse(m, "InstanceNormalization on %s",
		    dtype_name(xt->dt));
	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "scale", in(m, 1));
	cJSON_AddStringToObject(o, "bias", in(m, 2));
	cJSON_AddNumberToObject(o, "epsilon", att_f(m, "epsilon", 1e-5));
	x = to2d(m, x);
	y = x ? emit(m, "instanceNormalization", o, r == 4 ? outname(m, 0) :
	    NULL, 1, x) : (cJSON_Delete(o), NULL);
	y = y ? from2d(m, y, r, outname(m, 0)) : NULL;
	if (!y)
		return -1;
	bind(m, 0, y);
	return 0;
}

int
cnn_layernorm(struct imp *m)
{
	const char *x = in(m, 0), *y;
	const struct tdesc *xt = ty(m, x);
	int64_t axis = att_i(m, "axis", -1);
	double eps = att_f(m, "epsilon", 1e-5);
	uint32_t axes[32];
	size_t na = 0;
	cJSON *o;

	if (!isfloat(xt->dt))
		return refuse(m, "LayerNormalization on %s",
		    dtype_name(xt->dt));
	if (axis < -xt->rank || axis >= xt->rank)
		return nodeerr(m, "axis %lld for rank %d", (long long)axis,
		    xt->rank);
	if (axis < 0)
		axis += xt->rank;
	for (int64_t i = axis; i < xt->rank; i++)
		axes[na++] = (uint32_t)i;
	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "scale", in(m, 1));
	if (in(m, 2))
		cJSON_AddStringToObject(o, "bias", in(m, 2));
	cJSON_AddItemToObject(o, "axes", ju32s(axes, na));
	cJSON_AddNumberToObject(o, "epsilon", eps);
	if (!(y = emit(m, "layerNormalization", o, outname(m, 0), 1, x)))
		return -1;
	bind(m, 0, y);
	if (outname(m, 1) || outname(m, 2)) {
		/* Mean and InvStdDev, over the same axes, kept */
		const char *mu, *d, *v;

		o = cJSON_CreateObject();
		cJSON_AddItemToObject(o, "axes", ju32s(axes, na));
		cJSON_AddTrueToObject(o, "keepDimensions");
		mu = emit(m, "reduceMean", cJSON_Duplicate(o, 1),
		    outname(m, 1), 1, x);
		d = mu ? emit(m, "sub", NULL, NULL, 2, x, mu) : NULL;
		v = d ? emit(m, "reduceMean", o, NULL, 1, emit(m, "mul",
		    NULL, NULL, 2, d, d)) : (cJSON_Delete(o), NULL);
		v = v ? emit(m, "add", NULL, NULL, 2, v, mkscalar(m, xt->dt,
		    eps)) : NULL;
		v = v ? emit(m, "reciprocal", NULL, outname(m, 2), 1,
		    emit(m, "sqrt", NULL, NULL, 1, v)) : NULL;
		if (!v)
			return -1;
		bind(m, 1, mu);
		bind(m, 2, v);
	}
	return 0;
}

/* LRN over the channels: x / (bias + alpha / size * sum x^2)^beta, the
 * sum over a window of size channels, through an average pool. */
int
cnn_lrn(struct imp *m)
{
	const char *x = in(m, 0), *y, *sq;
	const struct tdesc *xt = ty(m, x);
	int64_t size = att_i(m, "size", 0), d4[4], b[4] = { 0 }, e[4] = { 0 };
	double alpha = att_f(m, "alpha", 1e-4), beta = att_f(m, "beta", 0.75);
	double bias = att_f(m, "bias", 1);
	int64_t win[2];
	cJSON *o;

	if (!isfloat(xt->dt) || xt->rank < 3 || xt->rank > 31)
		return refuse(m, "LRN on %s of rank %d", dtype_name(xt->dt),
		    xt->rank);
	if (size < 1 || size > 1 << 20)
		return nodeerr(m, "size %lld", (long long)size);
	/* [N, 1, C, rest] so the channels are the pool's height */
	d4[0] = xt->dims[0];
	d4[1] = 1;
	d4[2] = xt->dims[1];
	d4[3] = 1;
	for (int i = 2; i < xt->rank; i++)
		d4[3] *= xt->dims[i];
	sq = emit(m, "mul", NULL, NULL, 2, x, x);
	sq = sq ? reshape(m, sq, 4, d4, NULL) : NULL;
	b[2] = (size - 1) / 2;
	e[2] = size - 1 - b[2];
	o = cJSON_CreateObject();
	cJSON_AddItemToObject(o, "beginningPadding", jints(b, 4));
	cJSON_AddItemToObject(o, "endingPadding", jints(e, 4));
	sq = sq ? emit(m, "pad", o, NULL, 1, sq) : (cJSON_Delete(o), NULL);
	win[0] = size;
	win[1] = 1;
	o = cJSON_CreateObject();
	cJSON_AddItemToObject(o, "windowDimensions", jpair(win));
	sq = sq ? emit(m, "averagePool2d", o, NULL, 1, sq) :
	    (cJSON_Delete(o), NULL);
	sq = sq ? reshape(m, sq, xt->rank, xt->dims, NULL) : NULL;
	/* average = sum / size, so alpha multiplies it as it is */
	sq = sq ? emit(m, "mul", NULL, NULL, 2, sq, mkscalar(m, xt->dt,
	    alpha)) : NULL;
	sq = sq ? emit(m, "add", NULL, NULL, 2, sq, mkscalar(m, xt->dt,
	    bias)) : NULL;
	sq = sq ? emit(m, "pow", NULL, NULL, 2, sq, mkscalar(m, xt->dt,
	    beta)) : NULL;
	y = sq ? emit(m, "div", NULL, outname(m, 0), 2, x, sq) : NULL;
	if (!y)
		return -1;
	bind(m, 0, y);
	return 0;
}

int
cnn_gemm(struct imp *m)
{
	const char *a = in(m, 0), *b = in(m, 1), *c = in(m, 2), *y;
	enum dtype dt = ty(m, a)->dt;
	cJSON *o;

	if (!isfloat(dt))
		return refuse(m, "Gemm on %s", dtype_name(dt));
	if (ty(m, a)->rank != 2 || ty(m, b)->rank != 2)
		return nodeerr(m, "operands of rank %d and %d",
		    ty(m, a)->rank, ty(m, b)->rank);
	o = cJSON_CreateObject();
	if (c)
		cJSON_AddStringToObject(o, "c", c);
	cJSON_AddNumberToObject(o, "alpha", att_f(m, "alpha", 1));
	cJSON_AddNumberToObject(o, "beta", att_f(m, "beta", 1));
	if (att_i(m, "transA", 0))
		cJSON_AddTrueToObject(o, "aTranspose");
	if (att_i(m, "transB", 0))
		cJSON_AddTrueToObject(o, "bTranspose");
	if (!(y = emit(m, "gemm", o, outname(m, 0), 2, a, b)))
		return -1;
	bind(m, 0, y);
	return 0;
}

/* MatMul with NumPy's rules: a 1-D operand gains an axis of 1 for the
 * product and loses it after. */
int
cnn_matmul(struct imp *m)
{
	const char *a = in(m, 0), *b = in(m, 1), *y;
	const struct tdesc *at = ty(m, a), *bt = ty(m, b);
	int a1 = at->rank == 1, b1 = bt->rank == 1;

	if (!isfloat(at->dt))
		return refuse(m, "MatMul on %s", dtype_name(at->dt));
	if (at->rank < 1 || bt->rank < 1)
		return nodeerr(m, "a scalar operand");
	if (a1) {
		int64_t d[2] = { 1, at->dims[0] };
		a = reshape(m, a, 2, d, NULL);
	}
	if (b1) {
		int64_t d[2] = { bt->dims[0], 1 };
		b = reshape(m, b, 2, d, NULL);
	}
	y = a && b ? emit(m, "matmul", NULL, a1 || b1 ? NULL : outname(m, 0),
	    2, a, b) : NULL;
	if (y && (a1 || b1)) {
		const struct tdesc *t = ty(m, y);
		int64_t d[32];
		int r = 0;

		for (int i = 0; i < t->rank; i++) {
			if ((a1 && i == t->rank - 2) || (b1 && i == t->rank - 1))
				continue;
			d[r++] = t->dims[i];
		}
		y = reshape(m, y, r, d, outname(m, 0));
	}
	if (!y)
		return -1;
	bind(m, 0, y);
	return 0;
}

/* MeanVarianceNormalization: (x - mean) / sqrt(var + 1e-9) over axes. */
int
cnn_mvn(struct imp *m)
{
	const char *x = in(m, 0), *mu, *d, *v, *y;
	const struct tdesc *xt = ty(m, x);
	const int64_t *a;
	size_t na = att_ints(m, "axes", &a);
	static const int64_t dflt[] = { 0, 2, 3 };
	uint32_t axes[32];
	cJSON *o;

	if (!isfloat(xt->dt))
		return refuse(m, "MeanVarianceNormalization on %s",
		    dtype_name(xt->dt));
	if (!att(m, "axes")) {
		a = dflt;
		na = 3;
	}
	if (na > 32)
		return nodeerr(m, "%zu axes", na);
	for (size_t i = 0; i < na; i++) {
		int64_t ax = a[i] < 0 ? a[i] + xt->rank : a[i];

		if (ax < 0 || ax >= xt->rank)
			return nodeerr(m, "axis %lld for rank %d",
			    (long long)a[i], xt->rank);
		axes[i] = (uint32_t)ax;
	}
	o = cJSON_CreateObject();
	cJSON_AddItemToObject(o, "axes", ju32s(axes, na));
	cJSON_AddTrueToObject(o, "keepDimensions");
	mu = emit(m, "reduceMean", cJSON_Duplicate(o, 1), NULL, 1, x);
	d = mu ? emit(m, "sub", NULL, NULL, 2, x, mu) : NULL;
	v = d ? emit(m, "reduceMean", o, NULL, 1, emit(m, "mul", NULL, NULL,
	    2, d, d)) : (cJSON_Delete(o), NULL);
	v = v ? emit(m, "sqrt", NULL, NULL, 1, emit(m, "add", NULL, NULL, 2,
	    v, mkscalar(m, xt->dt, 1e-9))) : NULL;
	y = v ? emit(m, "div", NULL, outname(m, 0), 2, d, v) : NULL;
	if (!y)
		return -1;
	bind(m, 0, y);
	return 0;
}
