/*
 * onnx_qint: ONNX's integer products and n-gram counts as nnl's ops
 * beyond WebNN: MatMulInteger and ConvInteger as matMulInteger and
 * conv2dInteger (exact int32 sums), QLinearMatMul and QLinearConv as
 * those followed by requantizeLinear (the scales multiplied in float32,
 * as ONNX's reference does), TfIdfVectorizer as tfIdfVectorizer.
 */
#include <stdlib.h>
#include <string.h>

#include "onnx_imp.h"
#include "escape.h"
#include "shape.h"

static int
is8(enum dtype dt)
{
	return dt == DT_INT8 || dt == DT_UINT8;
}

/* Input i, an 8-bit integer tensor, or a refusal or error. */
static int
want8(struct imp *m, int i, const char *what)
{
	const char *x = in(m, i);

	if (!x)
		return nodeerr(m, "input %s is required", what);
	if (!is8(ty(m, x)->dt))
		return refuse(m, REFUSE_TYPE, "%s %s of %s",
		    escape_tty_name(m->n->op_type), what,
		    dtype_name(ty(m, x)->dt));
	return 0;
}

/* Input i, a float32 scale, or a refusal or error. */
static int
wantscale(struct imp *m, int i, const char *what)
{
	const char *s = in(m, i);

	if (!s)
		return nodeerr(m, "input %s is required", what);
	if (ty(m, s)->dt != DT_FLOAT32)
		return refuse(m, REFUSE_TYPE, "%s %s of %s",
		    escape_tty_name(m->n->op_type), what,
		    dtype_name(ty(m, s)->dt));
	return 0;
}

/* A vector of n > 1 items as rank r with them on axis ax (a scalar or
 * any other shape as it is). */
static const char *
per(struct imp *m, const char *v, int r, int ax)
{
	const struct tdesc *t = ty(m, v);
	int64_t d[4] = { 1, 1, 1, 1 };

	if (!v || t->rank != 1 || t->dims[0] == 1 || r > 4 || ax >= r)
		return v;
	d[ax] = t->dims[0];
	return imp_reshape(m, v, r, d, NULL);
}

/* Zero point zi of input xi: the input's type (0 when absent); a
 * vector of n > 1 items (per row or per channel) reshaped to rank r
 * with its items on axis ax (as it is when r is 0).  NULL after an
 * error. */
static const char *
zp(struct imp *m, int zi, int xi, int r, int ax)
{
	const char *z = in(m, zi), *x = in(m, xi);
	const struct tdesc *zt;

	if (!z)
		return mkscalar(m, ty(m, x)->dt, 0);
	zt = ty(m, z);
	if (zt->dt != ty(m, x)->dt) {
		nodeerr(m, "zero point %s is %s, its input %s",
		    escape_tty_name(z), dtype_name(zt->dt),
		    dtype_name(ty(m, x)->dt));
		return NULL;
	}
	return per(m, z, r, ax);
}

/* The int32 product of MatMulInteger or QLinearMatMul, inputs a, b
 * and their zero points az, bz: [..., M, N] (a 1-D operand as a matrix,
 * its axis dropped from the result, as MatMul does).  NULL after an
 * error. */
static const char *
matmul(struct imp *m, int ai, int bi, int azi, int bzi, const char *out)
{
	const char *a = in(m, ai), *b = in(m, bi), *az, *bz, *y;
	const struct tdesc *at = ty(m, a), *bt = ty(m, b), *yt;
	int64_t d[2] = { 1, 1 }, yd[34];
	int k = 0;

	if (at->rank < 1 || bt->rank < 1 || at->rank > 32 || bt->rank > 32) {
		nodeerr(m, "a product of ranks %d and %d", at->rank, bt->rank);
		return NULL;
	}
	/* a's zero point per row [M] is [M, 1]; b's per column [N] is as
	 * it is */
	az = zp(m, azi, ai, 2, 0);
	bz = zp(m, bzi, bi, 0, 0);
	if (!az || !bz)
		return NULL;
	if (at->rank == 1) {
		d[1] = at->dims[0];
		a = imp_reshape(m, a, 2, d, NULL);
	}
	if (bt->rank == 1) {
		d[0] = bt->dims[0];
		d[1] = 1;
		b = imp_reshape(m, b, 2, d, NULL);
	}
	if (at->rank > 1 && bt->rank > 1)
		return emit(m, "matMulInteger", NULL, out, 4, a, b, az, bz);
	y = emit(m, "matMulInteger", NULL, NULL, 4, a, b, az, bz);
	if (!y)
		return NULL;
	yt = ty(m, y);
	for (int i = 0; i < yt->rank; i++)
		if (!(at->rank == 1 && i == yt->rank - 2) &&
		    !(bt->rank == 1 && i == yt->rank - 1))
			yd[k++] = yt->dims[i];
	return imp_reshape(m, y, k, yd, out);
}

int
onnx_matmulinteger(struct imp *m)
{
	int r;

	if ((r = want8(m, 0, "A")) || (r = want8(m, 1, "B")))
		return r;
	return imp_done(m, 0, matmul(m, 0, 1, 2, 3, outname(m, 0)));
}

/* y, int32, scaled by sa * sb / sy (float32) and requantized to zero
 * point zy (uint8 0 when absent); sa, sy and zy, where vectors, on axis
 * axa of rank r (a QLinearMatMul's rows), sb on axb (its columns, a
 * QLinearConv's output channels). */
static const char *
requant(struct imp *m, const char *y, const char *sa, const char *sb,
    const char *sy, const char *zy, int r, int axa, int axb)
{
	const char *s;

	if (!y)
		return NULL;
	s = emit(m, "div", NULL, NULL, 2, emit(m, "mul", NULL, NULL, 2,
	    per(m, sa, r, axa), per(m, sb, r, axb)), per(m, sy, r, axa));
	return s ? emit(m, "requantizeLinear", NULL, outname(m, 0), 3, y, s,
	    zy ? per(m, zy, r, axa) : mkscalar(m, DT_UINT8, 0)) : NULL;
}

/* Inputs named in list (indexes, -1 ends) are absent or of one item,
 * as QLinearConv and ConvInteger want their x and y scales and zero
 * points; 0, or -1 after an error naming the first that is not. */
static int
scalars(struct imp *m, const int *list)
{
	for (; *list >= 0; list++) {
		const char *v = in(m, *list);

		if (v && tdesc_numel(ty(m, v)) != 1)
			return nodeerr(m, "input %s %s is not one value",
			    escape_tty_name(m->n->input[*list]),
			    shape_str(ty(m, v)));
	}
	return 0;
}

int
onnx_qlinearmatmul(struct imp *m)
{
	const char *zy = in(m, 7);
	int r, rank;

	if ((r = want8(m, 0, "a")) || (r = want8(m, 3, "b")) ||
	    (r = wantscale(m, 1, "a_scale")) ||
	    (r = wantscale(m, 4, "b_scale")) ||
	    (r = wantscale(m, 6, "y_scale")))
		return r;
	if (zy && !is8(ty(m, zy)->dt))
		return refuse(m, REFUSE_TYPE, "QLinearMatMul to %s",
		    dtype_name(ty(m, zy)->dt));
	/* a per-row scale [M] on the rows of a matrix product [M, N] */
	rank = ty(m, in(m, 0))->rank > 1 ? 2 : 1;
	return imp_done(m, 0, requant(m, matmul(m, 0, 3, 2, 5, NULL),
	    in(m, 1), in(m, 4), in(m, 6), zy, rank, 0, rank - 1));
}

/* ---- convolutions ---- */

/* The conv2dInteger of ConvInteger or QLinearConv, inputs x, w and
 * their zero points xz, wz (w's per output channel [M]): int32
 * [N, M, OH, OW].  NULL after an error (*rc -1) or a refusal (*rc
 * REFUSED). */
static const char *
conv(struct imp *m, int xi, int wi, int xzi, int wzi, const char *out,
    int *rc)
{
	const char *x = in(m, xi), *w = in(m, wi);
	const struct tdesc *xt = ty(m, x), *wt = ty(m, w);
	const char *ap = att_s(m, "auto_pad", "NOTSET"), *xz, *wz;
	int64_t k[2], s[2] = { 1, 1 }, d[2] = { 1, 1 }, p[4] = { 0, 0, 0, 0 };
	int64_t g = att_i(m, "group", 1);
	uint32_t pad[4], st[2], dil[2];
	cJSON *o;

	*rc = -1;
	if (xt->rank != 4 || wt->rank != 4) {
		if (xt->rank >= 3)
			*rc = refuse(m, REFUSE_RANK, "%d-D %s (nnl's "
			    "conv2dInteger is 2-D)", xt->rank - 2,
			    escape_tty_name(m->n->op_type));
		else
			nodeerr(m, "input x has rank %d", xt->rank);
		return NULL;
	}
	k[0] = wt->dims[2];
	k[1] = wt->dims[3];
	if (att_list(m, "kernel_shape", 2, 1, k) ||
	    att_list(m, "strides", 2, 1, s) ||
	    att_list(m, "dilations", 2, 1, d) || att_list(m, "pads", 4, 0, p))
		return NULL;
	if (k[0] != wt->dims[2] || k[1] != wt->dims[3]) {
		nodeerr(m, "kernel_shape does not match w");
		return NULL;
	}
	if (strcmp(ap, "VALID") == 0) {
		memset(p, 0, sizeof p);
	} else if (strcmp(ap, "SAME_UPPER") == 0 ||
	    strcmp(ap, "SAME_LOWER") == 0) {
		for (int i = 0; i < 2; i++) {
			int64_t n = (xt->dims[2 + i] + s[i] - 1) / s[i];
			int64_t t = (n - 1) * s[i] + (k[i] - 1) * d[i] + 1 -
			    xt->dims[2 + i];

			t = t < 0 ? 0 : t;
			p[i] = ap[5] == 'U' ? t / 2 : t - t / 2;
			p[2 + i] = t - p[i];
		}
	} else if (strcmp(ap, "NOTSET") != 0) {
		nodeerr(m, "auto_pad \"%s\" is not NOTSET, SAME_UPPER, "
		    "SAME_LOWER or VALID", escape_tty_name(ap));
		return NULL;
	}
	if (g < 1 || g > UINT32_MAX) {
		nodeerr(m, "group %lld", (long long)g);
		return NULL;
	}
	/* ONNX's pads are begins then ends; nnl's top, bottom, left,
	 * right */
	for (int i = 0; i < 2; i++) {
		pad[2 * i] = (uint32_t)p[i];
		pad[2 * i + 1] = (uint32_t)p[2 + i];
		st[i] = (uint32_t)s[i];
		dil[i] = (uint32_t)d[i];
	}
	o = cJSON_CreateObject();
	cJSON_AddItemToObject(o, "padding", ju32s(pad, 4));
	cJSON_AddItemToObject(o, "strides", ju32s(st, 2));
	cJSON_AddItemToObject(o, "dilations", ju32s(dil, 2));
	cJSON_AddNumberToObject(o, "groups", (double)g);
	xz = zp(m, xzi, xi, 4, 0);
	wz = zp(m, wzi, wi, 4, 0);
	if (!xz || !wz) {
		cJSON_Delete(o);
		return NULL;
	}
	return emit(m, "conv2dInteger", o, out, 4, x, w, xz, wz);
}

int
onnx_convinteger(struct imp *m)
{
	static const int one[] = { 2, -1 };
	const char *y;
	int r;

	if ((r = want8(m, 0, "x")) || (r = want8(m, 1, "w")))
		return r;
	if (scalars(m, one))
		return -1;
	y = conv(m, 0, 1, 2, 3, outname(m, 0), &r);
	return y ? imp_done(m, 0, y) : r;
}

int
onnx_qlinearconv(struct imp *m)
{
	static const int one[] = { 1, 2, 6, 7, -1 };
	const char *zy = in(m, 7), *b = in(m, 8), *y;
	int r;

	if ((r = want8(m, 0, "x")) || (r = want8(m, 3, "w")) ||
	    (r = wantscale(m, 1, "x_scale")) ||
	    (r = wantscale(m, 4, "w_scale")) ||
	    (r = wantscale(m, 6, "y_scale")))
		return r;
	if (zy && !is8(ty(m, zy)->dt))
		return refuse(m, REFUSE_TYPE, "QLinearConv to %s",
		    dtype_name(ty(m, zy)->dt));
	if (scalars(m, one))
		return -1;
	if (b && ty(m, b)->dt != DT_INT32)
		return nodeerr(m, "bias B is %s, not int32",
		    dtype_name(ty(m, b)->dt));
	y = conv(m, 0, 3, 2, 5, NULL, &r);
	if (!y)
		return r;
	/* the int32 bias on each output channel, in the int32 sum */
	if (b)
		y = emit(m, "add", NULL, NULL, 2, y, per(m, b, 4, 1));
	return imp_done(m, 0, requant(m, y, in(m, 1), in(m, 4), in(m, 6), zy,
	    4, 1, 1));
}

/* ---- n-grams ---- */

/* TfIdfVectorizer of integers (pool_int64s); strings are refused. */
int
onnx_tfidf(struct imp *m)
{
	const char *x = in(m, 0), *mode = att_s(m, "mode", "");
	const int64_t *cnt, *ix, *pool;
	const float *w;
	size_t nc = att_ints(m, "ngram_counts", &cnt);
	size_t ni = att_ints(m, "ngram_indexes", &ix);
	size_t np = att_ints(m, "pool_int64s", &pool);
	size_t nw = att_floats(m, "weights", &w);
	int64_t lo = att_i(m, "min_gram_length", 0);
	int64_t hi = att_i(m, "max_gram_length", 0);
	int64_t sk = att_i(m, "max_skip_count", 0);
	double *v;
	cJSON *o;

	if (att(m, "pool_strings"))
		return refuse(m, REFUSE_TYPE, "pool_strings (strings)");
	if (ty(m, x)->dt != DT_INT32 && ty(m, x)->dt != DT_INT64)
		return refuse(m, REFUSE_TYPE, "TfIdfVectorizer of %s",
		    dtype_name(ty(m, x)->dt));
	if (strcmp(mode, "TF") && strcmp(mode, "IDF") && strcmp(mode, "TFIDF"))
		return nodeerr(m, "mode \"%s\" is not TF, IDF or TFIDF",
		    escape_tty_name(mode));
	if (lo < 1 || hi < lo || hi > UINT32_MAX || sk < 0 ||
	    sk > UINT32_MAX)
		return nodeerr(m, "gram lengths %lld to %lld, max_skip_count "
		    "%lld", (long long)lo, (long long)hi, (long long)sk);
	for (size_t i = 0; i < np; i++)
		if (pool[i] > (INT64_C(1) << 53) || pool[i] < -(INT64_C(1) <<
		    53))
			return refuse(m, REFUSE_ATTR, "pool_int64s item %lld "
			    "(beyond 2^53)", (long long)pool[i]);
	for (size_t i = 0; i < nc + ni; i++)
		if ((i < nc ? cnt[i] : ix[i - nc]) < 0 ||
		    (i < nc ? cnt[i] : ix[i - nc]) > UINT32_MAX)
			return nodeerr(m, "ngram_counts or ngram_indexes out "
			    "of range");
	/* weights follow the output indexes (as ONNX Runtime reads them)
	 * or the pool's n-grams (as the specification words it): the
	 * same only when each n-gram is its own index */
	for (size_t i = 0; nw && i < ni; i++)
		if (ix[i] != (int64_t)i)
			return refuse(m, REFUSE_ATTR, "weights with "
			    "ngram_indexes not 0, 1, 2, ...");
	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "mode", strcmp(mode, "TF") == 0 ? "tf" :
	    strcmp(mode, "IDF") == 0 ? "idf" : "tfIdf");
	cJSON_AddNumberToObject(o, "minGramLength", (double)lo);
	cJSON_AddNumberToObject(o, "maxGramLength", (double)hi);
	cJSON_AddNumberToObject(o, "maxSkipCount", (double)sk);
	cJSON_AddItemToObject(o, "ngramCounts", jints(cnt, nc));
	cJSON_AddItemToObject(o, "ngramIndexes", jints(ix, ni));
	cJSON_AddItemToObject(o, "pool", jints(pool, np));
	if (nw) {
		v = xcalloc(nw, sizeof *v);
		for (size_t i = 0; i < nw; i++)
			v[i] = w[i];
		cJSON_AddItemToObject(o, "weights", jfloats(v, nw));
		free(v);
	}
	return imp_done(m, 0, emit(m, "tfIdfVectorizer", o, outname(m, 0), 1,
	    x));
}
