/*
 * onnx_attn: the attention operators of opset 23 lowered to WebNN
 * operators: RotaryEmbedding (slices, products, a concat) and Attention
 * (matmul, softmax, masks by where and add), by the operators' text in
 * the ONNX specification.
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "onnx_imp.h"
#include "util.h"

static const char *
perm4(struct imp *m, const char *x, uint32_t a, uint32_t b, uint32_t c,
    uint32_t d)
{
	uint32_t p[4] = { a, b, c, d };
	cJSON *o;

	if (!x)
		return NULL;
	o = cJSON_CreateObject();
	cJSON_AddItemToObject(o, "permutation", ju32s(p, 4));
	return emit(m, "transpose", o, NULL, 1, x);
}

/* x[..., from:from + n] along the last of its r axes. */
static const char *
lastslice(struct imp *m, const char *x, int64_t from, int64_t n)
{
	const struct tdesc *t;
	uint32_t st[32], sz[32];
	cJSON *o;

	if (!x)
		return NULL;
	t = ty(m, x);
	for (int i = 0; i < t->rank; i++) {
		st[i] = 0;
		sz[i] = (uint32_t)t->dims[i];
	}
	st[t->rank - 1] = (uint32_t)from;
	sz[t->rank - 1] = (uint32_t)n;
	o = cJSON_CreateObject();
	cJSON_AddItemToObject(o, "starts", ju32s(st, (size_t)t->rank));
	cJSON_AddItemToObject(o, "sizes", ju32s(sz, (size_t)t->rank));
	return emit(m, "slice", o, NULL, 1, x);
}

static const char *
concat2(struct imp *m, const char *a, const char *b, int axis)
{
	const char *v[2] = { a, b };
	cJSON *o;

	if (!a || !b)
		return NULL;
	o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "axis", axis);
	return emitv(m, "concat", o, NULL, 2, v);
}

/* x of rank 3, [b, s, h * d], as [b, h, s, d]. */
static const char *
heads(struct imp *m, const char *x, int64_t h)
{
	const struct tdesc *t = ty(m, x);
	int64_t d[4] = { t->dims[0], t->dims[1], h, t->dims[2] / h };

	return perm4(m, imp_reshape(m, x, 4, d, NULL), 0, 2, 1, 3);
}

/*
 * RotaryEmbedding: X [b, h, s, d] (or [b, s, h * d] with num_heads)
 * rotated over its first rotary_embedding_dim features by the cos and
 * sin caches ([b, s, r / 2], or [positions, r / 2] gathered by
 * position_ids [b, s]); in halves, or interleaved pairs.
 */
int
onnx_rotary(struct imp *m)
{
	const char *x = in(m, 0), *cc = in(m, 1), *sc = in(m, 2);
	const char *pos = in(m, 3), *x1, *x2, *re, *im, *rot, *y;
	const struct tdesc *t = ty(m, x);
	int64_t nh = att_i(m, "num_heads", 0);
	int64_t rd = att_i(m, "rotary_embedding_dim", 0);
	int il = (int)att_i(m, "interleaved", 0);
	int64_t b, s, h, d, c4[4];
	enum dtype dt = t->dt;

	if (dt != DT_FLOAT32 && dt != DT_FLOAT16)
		return refuse(m, REFUSE_TYPE, "RotaryEmbedding on %s",
		    dtype_name(dt));
	if (t->rank == 4) {
		b = t->dims[0], h = t->dims[1], s = t->dims[2];
		d = t->dims[3];
		x = perm4(m, x, 0, 2, 1, 3);
	} else if (t->rank == 3) {
		if (nh < 1 || t->dims[2] % nh)
			return nodeerr(m, "num_heads %lld does not divide the "
			    "hidden size %lld", (long long)nh,
			    (long long)t->dims[2]);
		b = t->dims[0], s = t->dims[1], h = nh;
		d = t->dims[2] / nh;
		x = imp_reshape(m, x, 4, (int64_t[]){ b, s, h, d }, NULL);
	} else {
		return nodeerr(m, "input of rank %d; 3 or 4 expected",
		    t->rank);
	}
	if (rd == 0)
		rd = d;
	if (rd < 2 || rd > d || rd % 2)
		return nodeerr(m, "rotary_embedding_dim %lld for a head of "
		    "%lld", (long long)rd, (long long)d);
	if (pos) {
		cJSON *o = cJSON_CreateObject();

		cJSON_AddNumberToObject(o, "axis", 0);
		cc = emit(m, "gather", o, NULL, 2, cc, pos);
		o = cJSON_CreateObject();
		cJSON_AddNumberToObject(o, "axis", 0);
		sc = emit(m, "gather", o, NULL, 2, sc, pos);
	}
	if (!cc || !sc)
		return -1;
	if (ty(m, cc)->rank != 3 || ty(m, cc)->dims[0] != b ||
	    ty(m, cc)->dims[1] != s || ty(m, cc)->dims[2] != rd / 2)
		return nodeerr(m, "cos_cache gives %d dimensions, not "
		    "[%lld, %lld, %lld]", ty(m, cc)->rank, (long long)b,
		    (long long)s, (long long)rd / 2);
	/* [b, s, 1, r / 2], and [.., r / 2, 1] for interleaved pairs */
	c4[0] = b, c4[1] = s, c4[2] = 1, c4[3] = rd / 2;
	cc = imp_cast(m, cc, dt);
	sc = imp_cast(m, sc, dt);
	if (il) {
		int64_t c5[5] = { b, s, 1, rd / 2, 1 };
		int64_t p5[5] = { b, s, h, rd / 2, 2 };
		const char *xr = imp_reshape(m, lastslice(m, x, 0, rd), 5, p5,
		    NULL);

		cc = imp_reshape(m, cc, 5, c5, NULL);
		sc = imp_reshape(m, sc, 5, c5, NULL);
		x1 = lastslice(m, xr, 0, 1);
		x2 = lastslice(m, xr, 1, 1);
	} else {
		cc = imp_reshape(m, cc, 4, c4, NULL);
		sc = imp_reshape(m, sc, 4, c4, NULL);
		x1 = lastslice(m, x, 0, rd / 2);
		x2 = lastslice(m, x, rd / 2, rd / 2);
	}
	if (!x1 || !x2 || !cc || !sc)
		return -1;
	re = emit(m, "sub", NULL, NULL, 2, emit(m, "mul", NULL, NULL, 2, cc,
	    x1), emit(m, "mul", NULL, NULL, 2, sc, x2));
	im = emit(m, "add", NULL, NULL, 2, emit(m, "mul", NULL, NULL, 2, sc,
	    x1), emit(m, "mul", NULL, NULL, 2, cc, x2));
	rot = concat2(m, re, im, il ? 4 : 3);
	if (il)
		rot = imp_reshape(m, rot, 4, (int64_t[]){ b, s, h, rd }, NULL);
	y = rd < d ? concat2(m, rot, lastslice(m, x, rd, d - rd), 3) : rot;
	if (t->rank == 4)
		y = perm4(m, y, 0, 2, 1, 3);
	else
		y = y ? imp_reshape(m, y, 3, t->dims, NULL) : NULL;
	return imp_done(m, 0, y ? emit(m, "identity", NULL, outname(m, 0), 1,
	    y) : NULL);
}

/* The lowest finite value of a float type: a masked score. */
static double
lowest(enum dtype dt)
{
	return dt == DT_FLOAT16 ? -65504.0 : -FLT_MAX;
}

/* K or V [b, kvh, s, d] with each head repeated g times in place:
 * [b, kvh * g, s, d], query head i reading kv head i / g. */
static const char *
repeatkv(struct imp *m, const char *x, int64_t g)
{
	const struct tdesc *t;
	int64_t d5[5];
	uint32_t e[5];
	cJSON *o;

	if (!x || g == 1)
		return x;
	t = ty(m, x);
	d5[0] = t->dims[0], d5[1] = t->dims[1], d5[2] = 1;
	d5[3] = t->dims[2], d5[4] = t->dims[3];
	for (int i = 0; i < 5; i++)
		e[i] = (uint32_t)d5[i];
	e[2] = (uint32_t)g;
	o = cJSON_CreateObject();
	cJSON_AddItemToObject(o, "newShape", ju32s(e, 5));
	x = emit(m, "expand", o, NULL, 1, imp_reshape(m, x, 5, d5, NULL));
	return imp_reshape(m, x, 4, (int64_t[]){ d5[0], d5[1] * g, d5[3],
	    d5[4] }, NULL);
}

/*
 * Attention: softmax(Q K^T * scale + mask) V over 4-D [b, heads, s, d]
 * operands (3-D [b, s, heads * d] ones with q_num_heads and
 * kv_num_heads), grouped query heads sharing kv heads, past keys and
 * values before the new ones (present_key and present_value), a
 * boolean mask (false: masked) or an additive one, and is_causal.
 */
int
onnx_attention(struct imp *m)
{
	const char *q = in(m, 0), *k = in(m, 1), *v = in(m, 2);
	const char *mask = in(m, 3), *pk = in(m, 4), *pv = in(m, 5);
	const struct tdesc *qt = ty(m, q), *kt = ty(m, k), *vt = ty(m, v);
	int three = qt->rank == 3;
	int64_t qh = att_i(m, "q_num_heads", 0), kvh = att_i(m,
	    "kv_num_heads", 0), b, sq, skv, dh, dv;
	int64_t causal = att_i(m, "is_causal", 0);
	int64_t sp = att_i(m, "softmax_precision", 0);
	enum dtype dt = qt->dt, cdt;
	const char *s, *y;
	cJSON *o;

	if (dt != DT_FLOAT32 && dt != DT_FLOAT16)
		return refuse(m, REFUSE_TYPE, "Attention on %s",
		    dtype_name(dt));
	if (att_f(m, "softcap", 0) != 0)
		return refuse(m, REFUSE_ATTR, "softcap");
	if (att_i(m, "qk_matmul_output_mode", 0) != 0)
		return refuse(m, REFUSE_ATTR, "qk_matmul_output_mode %lld",
		    (long long)att_i(m, "qk_matmul_output_mode", 0));
	if (sp != 0 && sp != 1 && sp != 10)
		return refuse(m, REFUSE_ATTR, "softmax_precision %lld",
		    (long long)sp);
	cdt = sp == 1 ? DT_FLOAT32 : sp == 10 ? DT_FLOAT16 : dt;
	if (qt->rank != kt->rank || qt->rank != vt->rank ||
	    (qt->rank != 3 && qt->rank != 4))
		return nodeerr(m, "Q, K and V of ranks %d, %d and %d; all 3 "
		    "or all 4 expected", qt->rank, kt->rank, vt->rank);
	if (three) {
		if (qh < 1 || kvh < 1 || qt->dims[2] % qh ||
		    kt->dims[2] % kvh || vt->dims[2] % kvh)
			return nodeerr(m, "q_num_heads %lld and kv_num_heads "
			    "%lld do not divide the hidden sizes",
			    (long long)qh, (long long)kvh);
		q = heads(m, q, qh);
		k = heads(m, k, kvh);
		v = heads(m, v, kvh);
		if (!q || !k || !v)
			return -1;
		qt = ty(m, q), kt = ty(m, k), vt = ty(m, v);
	}
	b = qt->dims[0], qh = qt->dims[1], sq = qt->dims[2];
	dh = qt->dims[3], kvh = kt->dims[1], dv = vt->dims[3];
	if (kt->dims[0] != b || vt->dims[0] != b || vt->dims[1] != kvh ||
	    kt->dims[3] != dh || vt->dims[2] != kt->dims[2] || kvh < 1 ||
	    qh % kvh)
		return nodeerr(m, "Q [%lld, %lld, %lld, %lld], K and V do "
		    "not agree", (long long)b, (long long)qh, (long long)sq,
		    (long long)dh);
	if (pk && pv) {
		k = concat2(m, pk, k, 2);
		v = concat2(m, pv, v, 2);
		if (!k || !v)
			return -1;
	} else if (pk || pv) {
		return nodeerr(m, "past_key and past_value come together");
	}
	skv = ty(m, k)->dims[2];
	if (outname(m, 1) && imp_done(m, 1, emit(m, "identity", NULL,
	    outname(m, 1), 1, k)))
		return -1;
	if (outname(m, 2) && imp_done(m, 2, emit(m, "identity", NULL,
	    outname(m, 2), 1, v)))
		return -1;
	if (causal && sq != skv)
		return refuse(m, REFUSE_ATTR, "is_causal with %lld queries "
		    "over %lld keys", (long long)sq, (long long)skv);
	k = repeatkv(m, k, qh / kvh);
	v = repeatkv(m, v, qh / kvh);
	s = emit(m, "matmul", NULL, NULL, 2, q, perm4(m, k, 0, 1, 3, 2));
	s = s ? emit(m, "mul", NULL, NULL, 2, s, mkscalar(m, dt,
	    att_f(m, "scale", 1 / sqrt((double)dh)))) : NULL;
	s = imp_cast(m, s, cdt);
	if (s && mask) {
		const struct tdesc *mt = ty(m, mask);

		if (mt->rank < 1 || mt->dims[mt->rank - 1] != skv)
			return refuse(m, REFUSE_ATTR, "a mask of %lld keys, "
			    "not %lld", mt->rank ? (long long)
			    mt->dims[mt->rank - 1] : 0LL, (long long)skv);
		if (mt->dt == DT_UINT8)	/* ONNX bool */
			s = emit(m, "where", NULL, NULL, 3, mask, s,
			    mkscalar(m, cdt, lowest(cdt)));
		else
			s = emit(m, "add", NULL, NULL, 2, s,
			    imp_cast(m, mask, cdt));
	}
	if (s && causal) {
		/* key j > query i is masked */
		int64_t dm[2] = { sq, skv };
		uint8_t *keep = xmalloc((size_t)(sq * skv));
		const char *c;

		for (int64_t i = 0; i < sq; i++)
			for (int64_t j = 0; j < skv; j++)
				keep[i * skv + j] = j <= i;
		c = mkconst(m, "causal", DT_UINT8, 2, dm, keep);
		free(keep);
		s = emit(m, "where", NULL, NULL, 3, c, s,
		    mkscalar(m, cdt, lowest(cdt)));
	}
	o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "axis", 3);
	s = s ? emit(m, "softmax", o, NULL, 1, s) : (cJSON_Delete(o), NULL);
	s = imp_cast(m, s, dt);
	y = s ? emit(m, "matmul", NULL, NULL, 2, s, v) : NULL;
	if (y && three)
		y = imp_reshape(m, perm4(m, y, 0, 2, 1, 3), 3,
		    (int64_t[]){ b, sq, qh * dv }, NULL);
	return imp_done(m, 0, y ? emit(m, "identity", NULL, outname(m, 0), 1,
	    y) : NULL);
}
