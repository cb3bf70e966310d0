/*
 * shape_num: the shape rules of nnl's numeric ops beyond WebNN:
 * matMulInteger and conv2dInteger (8-bit operands less their zero
 * points, an int32 product), requantizeLinear (int32 back to 8 bits),
 * tfIdfVectorizer (n-gram counts of integer rows), det and dft (their
 * kernels: rt/nn/qint.c and rt/nn/linalg.c).
 */
#include <math.h>
#include <stdlib.h>

#include "escape.h"
#include "shape_rule.h"

static const enum dtype Q8[] = { DT_INT8, DT_UINT8, DT_NONE };
static const enum dtype I32[] = { DT_INT32, DT_NONE };
static const enum dtype F32[] = { DT_FLOAT32, DT_NONE };

/* Input k's zero point (input zk): of its type, broadcastable to it. */
static int
zeropoint(struct shapectx *c, int k, int zk)
{
	const struct tdesc *x = c->in[k], *z = c->in[zk];
	const char *zn = c->d->operands[zk], *xn = c->d->operands[k];

	if (z->dt != x->dt)
		return shape_err(c, "input \"%s\" is %s, input \"%s\" %s", zn,
		    dtype_name(z->dt), xn, dtype_name(x->dt));
	if (!shape_unibroadcastable(z, x))
		return shape_err(c, "input \"%s\" %s does not broadcast to "
		    "input \"%s\" %s", zn, shape_str(z), xn, shape_str(x));
	return 0;
}

/* a [..., M, K] times b [..., K, N] (batch dims broadcast): int32. */
int
shape_matmul_integer(struct shapectx *c)
{
	const struct tdesc *a = c->in[0], *b = c->in[1];
	struct tdesc ba = *a, bb = *b;
	int64_t d[SHAPE_MAXRANK];
	int r;

	if (shape_want_dtype(c, "input \"a\"", a, Q8) ||
	    shape_want_dtype(c, "input \"b\"", b, Q8) ||
	    zeropoint(c, 0, 2) || zeropoint(c, 1, 3))
		return -1;
	if (a->rank < 2 || b->rank < 2)
		return shape_err(c, "inputs %s and %s are not both matrices",
		    shape_str(a), shape_str(b));
	if (a->dims[a->rank - 1] != b->dims[b->rank - 2])
		return shape_err(c, "input \"a\" %s has %lld columns, input "
		    "\"b\" %s %lld rows", shape_str(a),
		    (long long)a->dims[a->rank - 1], shape_str(b),
		    (long long)b->dims[b->rank - 2]);
	ba.rank -= 2;
	bb.rank -= 2;
	if (shape_broadcast(c, &ba, &bb, &r, d))
		return -1;
	if (r + 2 > SHAPE_MAXRANK)
		return shape_err(c, "rank %d exceeds %d", r + 2,
		    SHAPE_MAXRANK);
	d[r] = a->dims[a->rank - 2];
	d[r + 1] = b->dims[b->rank - 1];
	shape_out(c, 0, DT_INT32, r + 2, d);
	return 0;
}

/* The window of conv2dInteger: padding (top, bottom, left, right),
 * strides and dilations, checked; 0 or -1. */
static int
window(struct shapectx *c, uint32_t *pad, uint32_t *st, uint32_t *dil)
{
	int np = 0, ns = 0, nd = 0;

	pad[0] = pad[1] = pad[2] = pad[3] = 0;
	st[0] = st[1] = dil[0] = dil[1] = 1;
	if (opt_u32s(c, "padding", pad, 4, &np) < 0 ||
	    opt_u32s(c, "strides", st, 2, &ns) < 0 ||
	    opt_u32s(c, "dilations", dil, 2, &nd) < 0)
		return -1;
	if ((np && np != 4) || (ns && ns != 2) || (nd && nd != 2))
		return shape_err(c, "padding takes 4 values, strides and "
		    "dilations 2");
	if (!st[0] || !st[1] || !dil[0] || !dil[1])
		return shape_err(c, "a stride or dilation of 0");
	return 0;
}

/* input [N, C, H, W], filter [O, C / groups, KH, KW]: int32
 * [N, O, OH, OW]. */
int
shape_conv2d_integer(struct shapectx *c)
{
	const struct tdesc *x = c->in[0], *w = c->in[1];
	uint32_t pad[4], st[2], dil[2], g = 1;
	int64_t d[4];

	if (shape_want_dtype(c, "input \"input\"", x, Q8) ||
	    shape_want_dtype(c, "input \"filter\"", w, Q8) ||
	    zeropoint(c, 0, 2) || zeropoint(c, 1, 3) ||
	    window(c, pad, st, dil) || opt_u32(c, "groups", &g) < 0)
		return -1;
	if (x->rank != 4 || w->rank != 4)
		return shape_err(c, "input %s and filter %s are not 4-D",
		    shape_str(x), shape_str(w));
	if (w->dims[2] < 1 || w->dims[3] < 1)
		return shape_err(c, "filter %s has an empty window",
		    shape_str(w));
	if (!g || x->dims[1] % g || w->dims[0] % g ||
	    w->dims[1] * g != x->dims[1])
		return shape_err(c, "filter %s does not fit input %s in %u "
		    "groups", shape_str(w), shape_str(x), g);
	d[0] = x->dims[0];
	d[1] = w->dims[0];
	for (int i = 0; i < 2; i++) {
		int64_t k = (w->dims[2 + i] - 1) * dil[i] + 1;
		int64_t n = x->dims[2 + i] + pad[2 * i] + pad[2 * i + 1] - k;

		if (n < 0)
			return shape_err(c, "the filter %s is larger than the "
			    "padded input %s", shape_str(w), shape_str(x));
		d[2 + i] = n / st[i] + 1;
	}
	shape_out(c, 0, DT_INT32, 4, d);
	return 0;
}

/* input int32, scale float32 and zeroPoint int8 or uint8, each
 * broadcastable to the input: of the zero point's type. */
int
shape_requantize(struct shapectx *c)
{
	const struct tdesc *x = c->in[0], *s = c->in[1], *z = c->in[2];

	if (shape_want_dtype(c, "input \"input\"", x, I32) ||
	    shape_want_dtype(c, "input \"scale\"", s, F32) ||
	    shape_want_dtype(c, "input \"zeroPoint\"", z, Q8))
		return -1;
	if (!shape_unibroadcastable(s, x) || !shape_unibroadcastable(z, x))
		return shape_err(c, "input \"scale\" %s or \"zeroPoint\" %s "
		    "does not broadcast to input %s", shape_str(s),
		    shape_str(z), shape_str(x));
	shape_out(c, 0, z->dt, x->rank, x->dims);
	return 0;
}

/* The number of items of option name (an array), or 0. */
static int
count(struct shapectx *c, const char *name)
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(c->n->options,
	    name);

	return cJSON_IsArray(a) ? cJSON_GetArraySize(a) : 0;
}

/*
 * tfIdfVectorizer: input [C] or [B, C] of int32 or int64; pool holds
 * the n-grams of each length n = 1, 2, ... from ngramCounts[n - 1] on,
 * ngramIndexes an output index each, weights one per output.  float32
 * [max index + 1] (or [B, that]).  Every option is read and checked
 * here; *out the output count.
 */
int
shape_tfidf(struct shapectx *c)
{
	static const enum dtype IN[] = { DT_INT32, DT_INT64, DT_NONE };
	const struct tdesc *x = c->in[0];
	int G = count(c, "ngramCounts"), I = count(c, "ngramIndexes");
	int P = count(c, "pool"), nw = count(c, "weights"), n, rc = -1;
	uint32_t *cnt = calloc((size_t)G + 1, sizeof *cnt);
	uint32_t *ix = calloc((size_t)I + 1, sizeof *ix);
	uint32_t lo = 1, hi = 1;
	int64_t total = 0, d[2];

	if (!cnt || !ix)
		goto out;
	if (shape_want_dtype(c, "input \"input\"", x, IN) ||
	    opt_u32(c, "minGramLength", &lo) < 0 ||
	    opt_u32(c, "maxGramLength", &hi) < 0 ||
	    opt_u32s(c, "ngramCounts", cnt, G, &n) < 0 ||
	    opt_u32s(c, "ngramIndexes", ix, I, &n) < 0)
		goto out;
	if (x->rank != 1 && x->rank != 2) {
		shape_err(c, "input %s is not [C] or [B, C]", shape_str(x));
		goto out;
	}
	if (lo < 1 || lo > hi) {
		shape_err(c, "gram lengths %u to %u", lo, hi);
		goto out;
	}
	for (int g = 0; g < G; g++) {
		int64_t end = g + 1 < G ? (int64_t)cnt[g + 1] : P;

		if (cnt[g] > end || (end - cnt[g]) % (g + 1)) {
			shape_err(c, "ngramCounts: level %d holds %lld pool "
			    "items, not whole %d-grams", g + 1,
			    (long long)(end - (int64_t)cnt[g]), g + 1);
			goto out;
		}
		total += (end - cnt[g]) / (g + 1);
	}
	if (G == 0 || cnt[0] != 0 || total != I || I == 0) {
		shape_err(c, "%d ngramIndexes for %lld n-grams in the pool",
		    I, (long long)total);
		goto out;
	}
	for (const cJSON *it = P ? cJSON_GetObjectItemCaseSensitive(
	    c->n->options, "pool")->child : NULL; it; it = it->next)
		if (!cJSON_IsNumber(it) || it->valuedouble !=
		    floor(it->valuedouble) || fabs(it->valuedouble) >
		    9007199254740992.0) {
			shape_err(c, "pool: an item that is not an integer "
			    "of at most 2^53");
			goto out;
		}
	d[0] = 0;
	for (int i = 0; i < I; i++)
		d[0] = ix[i] + (int64_t)1 > d[0] ? ix[i] + (int64_t)1 : d[0];
	if (nw && nw < d[0]) {
		shape_err(c, "%d weights for %lld outputs", nw,
		    (long long)d[0]);
		goto out;
	}
	if (x->rank == 2) {
		d[1] = d[0];
		d[0] = x->dims[0];
	}
	shape_out(c, 0, DT_FLOAT32, x->rank, d);
	rc = 0;
out:
	free(cnt);
	free(ix);
	return rc;
}

/* nnl's det: input [..., M, M] of a float type: [...], a determinant
 * each. */
int
shape_det(struct shapectx *c)
{
	const struct tdesc *x = c->in[0];

	if (shape_want_dtype(c, "input \"input\"", x, DTS_EWFLOAT))
		return -1;
	if (x->rank < 2 || x->dims[x->rank - 1] != x->dims[x->rank - 2])
		return shape_err(c, "input \"input\" %s is not [..., M, M]",
		    shape_str(x));
	shape_out(c, 0, x->dt, x->rank - 2, x->dims);
	return 0;
}

/*
 * nnl's dft: input [..., 1] (real) or [..., 2] (complex, real and
 * imaginary parts) of a float type, transformed along axis (not the
 * last) over dftLength points (default the axis' size; the signal cut
 * or zero-padded to it): [..., 2], the axis dftLength long, or
 * dftLength / 2 + 1 onesided (a real forward transform only).
 */
int
shape_dft(struct shapectx *c)
{
	const struct tdesc *x = c->in[0];
	uint32_t axis = 0, n = 0;
	int inv = 0, one = 0, hasn;
	int64_t *d;

	if (opt_u32(c, "axis", &axis) < 0 || opt_bool(c, "inverse", &inv) < 0 ||
	    opt_bool(c, "onesided", &one) < 0 ||
	    (hasn = opt_u32(c, "dftLength", &n)) < 0 ||
	    shape_want_dtype(c, "input \"input\"", x, DTS_EWFLOAT))
		return -1;
	if (x->rank < 2 || (x->dims[x->rank - 1] != 1 &&
	    x->dims[x->rank - 1] != 2))
		return shape_err(c, "input \"input\" %s is not [..., 1] (real) "
		    "nor [..., 2] (complex)", shape_str(x));
	if ((int64_t)axis >= x->rank - 1)
		return shape_err(c, "option \"axis\": %u is not an axis of the "
		    "signal (input \"input\" %s)", axis, shape_str(x));
	if (hasn && n == 0)
		return shape_err(c, "option \"dftLength\": 0 points");
	if (!hasn)
		n = (uint32_t)x->dims[axis];
	if (n == 0)
		return shape_err(c, "input \"input\" %s: an empty signal",
		    shape_str(x));
	if (one && (inv || x->dims[x->rank - 1] == 2))
		return shape_err(c, "option \"onesided\": only of a real "
		    "forward transform");
	d = xmalloc((size_t)x->rank * sizeof *d);
	for (int i = 0; i < x->rank; i++)
		d[i] = x->dims[i];
	d[axis] = one ? n / 2 + 1 : n;
	d[x->rank - 1] = 2;
	shape_out(c, 0, x->dt, x->rank, d);
	free(d);
	return 0;
}
