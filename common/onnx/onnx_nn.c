/*
 * onnx_nn: ONNX convolutions, pools, normalizations and matrix
 * products as WebNN operations.  Padded pools pad explicitly and pool
 * without padding, so that the result does not depend on how an
 * implementation treats padding cells.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "checked.h"
#include "onnx_imp.h"
#include "escape.h"

static int
isfloat(enum dtype dt)
{
	return dt == DT_FLOAT32 || dt == DT_FLOAT16;
}

static void
addu32s(cJSON *o, const char *name, const int64_t *v, int n)
{
	uint32_t u[8];

	for (int i = 0; i < n; i++)
		u[i] = (uint32_t)v[i];
	cJSON_AddItemToObject(o, name, ju32s(u, (size_t)n));
}

/* The axes [from, r) as an option. */
static cJSON *
axesfrom(int from, int r, int keep)
{
	cJSON *o = cJSON_CreateObject();
	uint32_t a[32];

	for (int i = from; i < r; i++)
		a[i - from] = (uint32_t)i;
	cJSON_AddItemToObject(o, "axes", ju32s(a, (size_t)(r - from)));
	if (keep)
		cJSON_AddTrueToObject(o, "keepDimensions");
	return o;
}

/* ---- windows: the spatial attributes of convolutions and pools ---- */

/* nd spatial dimensions: two for a 1-D or 2-D operator (a 1-D one's
 * is the second, the first being 1), three for a 3-D one. */
struct win {
	int nsp, nd, same;
	int64_t in[3], k[3], s[3], d[3], pb[3], pe[3], out[3];
};

static int64_t
effk(const struct win *w, int i)
{
	return (w->k[i] - 1) * w->d[i] + 1;
}

/*
 * The window of x (rank 3, 4 or 5): kernel_shape or the kernel k, strides,
 * dilations, pads and auto_pad.  SAME pads are computed unless
 * nosame; w->same tells they were asked for.
 */
static int
window(struct imp *m, const struct tdesc *x, const int64_t *k,
    struct win *w, int nosame)
{
	int ns = x->rank - 2, nd = ns == 3 ? 3 : 2, o = nd - ns;
	int64_t pads[6] = { 0, 0, 0, 0, 0, 0 };
	const char *ap = att_s(m, "auto_pad", "NOTSET");

	memset(w, 0, sizeof *w);
	w->nsp = ns;
	w->nd = nd;
	for (int i = 0; i < nd; i++) {
		w->in[i] = i < o ? 1 : x->dims[2 + i - o];
		w->k[i] = i < o ? 1 : k ? k[i - o] : 0;
		w->s[i] = w->d[i] = 1;
	}
	if (att_list(m, "kernel_shape", ns, 1, w->k + o) ||
	    att_list(m, "strides", ns, 1, w->s + o) ||
	    att_list(m, "dilations", ns, 1, w->d + o) ||
	    att_list(m, "pads", 2 * ns, 0, pads))
		return -1;
	for (int i = 0; i < nd; i++)
		if (w->k[i] < 1)
			return nodeerr(m, "no kernel_shape");
	for (int i = 0; i < ns; i++) {
		w->pb[i + o] = pads[i];
		w->pe[i + o] = pads[ns + i];
	}
	if (strcmp(ap, "VALID") == 0) {
		memset(w->pb, 0, sizeof w->pb);
		memset(w->pe, 0, sizeof w->pe);
	} else if (strcmp(ap, "SAME_UPPER") == 0 ||
	    strcmp(ap, "SAME_LOWER") == 0) {
		w->same = ap[5] == 'U' ? 1 : 2;
		for (int i = 0; i < nd && !nosame; i++) {
			int64_t out = (w->in[i] + w->s[i] - 1) / w->s[i];
			int64_t t = (out - 1) * w->s[i] + effk(w, i) - w->in[i];

			t = t < 0 ? 0 : t;
			w->pb[i] = w->same == 1 ? t / 2 : t - t / 2;
			w->pe[i] = t - w->pb[i];
		}
	} else if (strcmp(ap, "NOTSET") != 0) {
		return nodeerr(m, "auto_pad \"%s\" is not NOTSET, SAME_UPPER, "
		    "SAME_LOWER or VALID", escape_tty_name(ap));
	}
	return 0;
}

/* The output size of a convolution or pool; 0 or an error. */
static int
winout(struct imp *m, struct win *w, int ceilmode)
{
	for (int i = 0; i < w->nd; i++) {
		int64_t n = w->in[i] + w->pb[i] + w->pe[i] - effk(w, i);

		if (n < 0)
			return nodeerr(m, "the window (%lld with dilation "
			    "%lld) is larger than the padded input (%lld)",
			    (long long)w->k[i], (long long)w->d[i],
			    (long long)(w->in[i] + w->pb[i] + w->pe[i]));
		w->out[i] = (ceilmode ? (n + w->s[i] - 1) / w->s[i] :
		    n / w->s[i]) + 1;
		/* the last window starts inside the input or its start
		 * padding */
		if (ceilmode && (w->out[i] - 1) * w->s[i] >= w->in[i] +
		    w->pb[i])
			w->out[i]--;
	}
	return 0;
}

static void
winopts(cJSON *o, const struct win *w, int pads)
{
	int64_t p[4] = { w->pb[0], w->pe[0], w->pb[1], w->pe[1] };

	if (pads)
		addu32s(o, "padding", p, 4);
	addu32s(o, "strides", w->s, 2);
	addu32s(o, "dilations", w->d, 2);
}

/* The options of nnl's 3-D ops: padding [beginD, endD, beginH, endH,
 * beginW, endW], strides and dilations. */
static void
winopts3(cJSON *o, const struct win *w)
{
	int64_t p[6];

	for (int i = 0; i < 3; i++) {
		p[2 * i] = w->pb[i];
		p[2 * i + 1] = w->pe[i];
	}
	addu32s(o, "padding", p, 6);
	addu32s(o, "strides", w->s, 3);
	addu32s(o, "dilations", w->d, 3);
}

/* x [N, C, L] as [N, C, 1, L] (4-D x as it is). */
static const char *
to4(struct imp *m, const char *x)
{
	const struct tdesc *t = ty(m, x);
	int64_t d[4];

	if (!x || t->rank != 3)
		return x;
	d[0] = t->dims[0];
	d[1] = t->dims[1];
	d[2] = 1;
	d[3] = t->dims[2];
	return imp_reshape(m, x, 4, d, NULL);
}

/* A 4-D result back to 3-D when the operator was 1-D. */
static const char *
from4(struct imp *m, const char *y, int nsp, const char *out)
{
	const struct tdesc *t = ty(m, y);
	int64_t d[3];

	if (!y)
		return NULL;
	if (nsp == 2)
		return emit(m, "identity", NULL, out, 1, y);
	d[0] = t->dims[0];
	d[1] = t->dims[1];
	d[2] = t->dims[3];
	return imp_reshape(m, y, 3, d, out);
}

/* x's rank for a convolution or pool: 3, 4 or 5 (nnl's 3-D ops,
 * beyond WebNN), else refused (6 and more) or an error. */
static int
spatialrank(struct imp *m, const struct tdesc *x)
{
	if (x->rank >= 3 && x->rank <= 5)
		return 0;
	if (x->rank >= 6)
		return refuse(m, REFUSE_RANK,
		    "%d-D %s (nnl has 1-D, 2-D and 3-D ones)", x->rank - 2,
		    escape_tty_name(m->n->op_type));
	return nodeerr(m, "input %s has rank %d; expected at least 3",
	    escape_tty_name(m->n->input[0]), x->rank);
}

static int64_t
group(struct imp *m, int64_t c)
{
	int64_t g = att_i(m, "group", 1);

	if (g < 1 || c % g)
		return nodeerr(m, "group %lld does not divide the %lld input "
		    "channels", (long long)g, (long long)c), 0;
	return g;
}

/* ---- convolutions ---- */

/* What Conv and ConvTranspose check first: the type, the ranks, the
 * kernel from W, the window attributes and the group.  0, or what the
 * handler returns. */
static int
convhead(struct imp *m, const struct tdesc *xt, const struct tdesc *ft,
    int64_t *k, struct win *w, int64_t *g, int transposed)
{
	int r;

	if (!isfloat(xt->dt))
		return refuse(m, REFUSE_TYPE,
		    "%s on %s", escape_tty_name(m->n->op_type),
		    dtype_name(xt->dt));
	if ((r = spatialrank(m, xt)) != 0)
		return r;
	if (ft->rank != xt->rank)
		return nodeerr(m, "weight W has rank %d, X %d", ft->rank,
		    xt->rank);
	for (int i = 0; i < xt->rank - 2; i++)
		if ((k[i] = ft->dims[2 + i]) > INT64_C(1) << 32)
			return nodeerr(m, "weight W has a kernel of %lld",
			    (long long)k[i]);
	if (window(m, xt, k, w, transposed) ||
	    !(*g = group(m, xt->dims[1])))
		return -1;
	return 0;
}

int
onnx_conv(struct imp *m)
{
	const char *x = in(m, 0), *f = in(m, 1), *b = in(m, 2), *y;
	const struct tdesc *xt = ty(m, x), *ft = ty(m, f);
	struct win w;
	int64_t g, k[3];
	int r;
	cJSON *o;

	if ((r = convhead(m, xt, ft, k, &w, &g, 0)) != 0)
		return r;
	for (int i = 0; i < xt->rank - 2; i++)
		if (w.k[w.nd - (xt->rank - 2) + i] != k[i])
			return nodeerr(m, "kernel_shape does not match W");
	if (ft->dims[1] != xt->dims[1] / g)
		return nodeerr(m, "W has %lld input channels per group; X %lld "
		    "in %lld groups", (long long)ft->dims[1],
		    (long long)xt->dims[1], (long long)g);
	o = cJSON_CreateObject();
	if (w.nsp == 3) {	/* nnl's conv3d, beyond WebNN */
		winopts3(o, &w);
		cJSON_AddNumberToObject(o, "groups", (double)g);
		if (b)
			cJSON_AddStringToObject(o, "bias", b);
		return imp_done(m, 0, emit(m, "conv3d", o, outname(m, 0), 2,
		    x, f));
	}
	winopts(o, &w, 1);
	cJSON_AddNumberToObject(o, "groups", (double)g);
	if (b)
		cJSON_AddStringToObject(o, "bias", b);
	y = emit(m, "conv2d", o, w.nsp == 2 ? outname(m, 0) : NULL, 2,
	    to4(m, x), to4(m, f));
	if (w.nsp == 1)
		y = from4(m, y, 1, outname(m, 0));
	return imp_done(m, 0, y);
}

/* ConvTranspose's pads, from output_shape or auto_pad when given. */
static int
convtpads(struct imp *m, struct win *w, int64_t *op)
{
	int o = w->nd - w->nsp;
	int64_t os[3] = { 0, 0, 0 };
	const int64_t *v;
	size_t n = att_ints(m, "output_shape", &v);

	if (att_list(m, "output_padding", w->nsp, 0, op + o))
		return -1;
	if (n == (size_t)w->nsp + 2)
		v += 2, n -= 2;
	if (n && n != (size_t)w->nsp)
		return nodeerr(m, "output_shape has %zu items for %d spatial "
		    "dimensions", n, w->nsp);
	for (size_t i = 0; i < n; i++) {
		if (v[i] < 1 || v[i] > CHECKED_MAXDIM)
			return nodeerr(m, "output_shape item %zu (%lld) is not "
			    "a valid dimension", i, (long long)v[i]);
		os[o + i] = v[i];
	}
	for (int i = 0; i < w->nd; i++) {
		int64_t nat, t, want = i < o ? 1 : n ? os[i] : w->same ?
		    w->in[i] * w->s[i] : 0;

		/* strides and dilations are at most 2^30, dimensions 2^32 */
		if (checked_mul_i64(w->s[i], w->in[i] - 1, &nat) != 0 ||
		    checked_add_i64(nat, op[i] + effk(w, i), &nat) != 0)
			return nodeerr(m, "the output size overflows");
		if (!want)
			continue;
		t = nat - want;
		w->pb[i] = w->same == 1 ? t / 2 : t - t / 2;
		w->pe[i] = t - w->pb[i];
		if (t < 0 && (n || w->same))
			w->pb[i] = 0, w->pe[i] = t;
		if (w->pe[i] < 0) {
			/* the output goes on past the last input's reach */
			op[i] -= w->pe[i];
			w->pe[i] = 0;
		}
	}
	for (int i = 0; i < w->nd; i++)
		if (op[i] >= w->s[i])
			return refuse(m, REFUSE_ATTR,
			    "output padding %lld is not below the "
			    "stride %lld", (long long)op[i],
			    (long long)w->s[i]);
	return 0;
}

int
onnx_convtranspose(struct imp *m)
{
	const char *x = in(m, 0), *f = in(m, 1), *b = in(m, 2), *y;
	const struct tdesc *xt = ty(m, x), *ft = ty(m, f);
	struct win w;
	int64_t g, k[3], op[3] = { 0, 0, 0 };
	int r;
	cJSON *o;

	if ((r = convhead(m, xt, ft, k, &w, &g, 1)) != 0)
		return r;
	if (ft->dims[0] != xt->dims[1])
		return nodeerr(m, "W has %lld input channels, X %lld",
		    (long long)ft->dims[0], (long long)xt->dims[1]);
	if ((r = convtpads(m, &w, op)) != 0)
		return r;
	o = cJSON_CreateObject();
	if (w.nsp == 3) {	/* nnl's convTranspose3d, beyond WebNN */
		winopts3(o, &w);
		addu32s(o, "outputPadding", op, 3);
		cJSON_AddNumberToObject(o, "groups", (double)g);
		if (b)
			cJSON_AddStringToObject(o, "bias", b);
		return imp_done(m, 0, emit(m, "convTranspose3d", o,
		    outname(m, 0), 2, x, f));
	}
	winopts(o, &w, 1);
	addu32s(o, "outputPadding", op, 2);
	cJSON_AddNumberToObject(o, "groups", (double)g);
	if (b)
		cJSON_AddStringToObject(o, "bias", b);
	y = emit(m, "convTranspose2d", o, w.nsp == 2 ? outname(m, 0) : NULL,
	    2, to4(m, x), to4(m, f));
	if (w.nsp == 1)
		y = from4(m, y, 1, outname(m, 0));
	return imp_done(m, 0, y);
}

/* ---- pools ---- */

static double
lowest(enum dtype dt)
{
	switch (dt) {
	case DT_FLOAT16: return -65504;
	default: return -FLT_MAX;
	}
}

/*
 * x padded (with v) so that a pool without padding gives w's output:
 * the pads, and at the end what ceil mode's last windows reach.
 */
static const char *
padfor(struct imp *m, const char *x, const struct win *w, double v)
{
	int64_t b[4] = { 0, 0, w->pb[0], w->pb[1] }, e[4] = { 0, 0, 0, 0 };
	int any = 0;
	cJSON *o;

	for (int i = 0; i < 2; i++) {
		int64_t need = (w->out[i] - 1) * w->s[i] + effk(w, i) -
		    w->in[i] - w->pb[i];

		e[2 + i] = need > 0 ? need : 0;
		any |= b[2 + i] || e[2 + i];
	}
	if (!any)
		return x;
	o = cJSON_CreateObject();
	addu32s(o, "beginningPadding", b, 4);
	addu32s(o, "endingPadding", e, 4);
	cJSON_AddNumberToObject(o, "value", v);
	return emit(m, "pad", o, NULL, 1, x);
}

/* Keeps the first w->out items of each spatial dimension. */
static const char *
trim(struct imp *m, const char *y, const struct win *w)
{
	const struct tdesc *t = ty(m, y);
	int64_t st[4] = { 0, 0, 0, 0 }, sz[4];
	cJSON *o;

	if (!y || (t->dims[2] == w->out[0] && t->dims[3] == w->out[1]))
		return y;
	memcpy(sz, t->dims, sizeof sz);
	sz[2] = w->out[0];
	sz[3] = w->out[1];
	o = cJSON_CreateObject();
	addu32s(o, "starts", st, 4);
	addu32s(o, "sizes", sz, 4);
	return emit(m, "slice", o, NULL, 1, y);
}

/* The taps of window o of dimension i inside [lo, hi). */
static int64_t
taps(const struct win *w, int i, int64_t o, int64_t lo, int64_t hi)
{
	int64_t n = 0;

	for (int64_t j = 0; j < w->k[i]; j++) {
		int64_t p = o * w->s[i] + j * w->d[i] - w->pb[i];

		n += p >= lo && p < hi;
	}
	return n;
}

/* The average pool's window sums to averages: kh * kw / count. */
static const char *
avgfix(struct imp *m, const char *y, const struct win *w, int incl)
{
	int64_t n = w->out[0] * w->out[1], d[2] = { w->out[0], w->out[1] };
	double full = (double)(w->k[0] * w->k[1]);
	float *f;
	int same = 1;
	const char *c;

	if (!y)
		return NULL;
	f = xcalloc((size_t)n + 1, sizeof *f);
	for (int64_t a = 0; a < w->out[0]; a++)
		for (int64_t b = 0; b < w->out[1]; b++) {
			int64_t ca = incl ? taps(w, 0, a, -w->pb[0], w->in[0] +
			    w->pe[0]) : taps(w, 0, a, 0, w->in[0]);
			int64_t cb = incl ? taps(w, 1, b, -w->pb[1], w->in[1] +
			    w->pe[1]) : taps(w, 1, b, 0, w->in[1]);

			f[a * w->out[1] + b] = ca && cb ? (float)(full /
			    (double)(ca * cb)) : 0;
			same &= ca * cb == w->k[0] * w->k[1];
		}
	if (same) {
		free(f);
		return y;
	}
	c = mkconst(m, NULL, DT_FLOAT32, 2, d, f);
	free(f);
	return emit(m, "mul", NULL, NULL, 2, y, imp_cast(m, c, ty(m, y)->dt));
}

/* LpPool's p: 2, or (any) a whole number from 1 to 2^30, which nnl's
 * lpPool3d computes. */
static int
lpp(struct imp *m, int64_t *p, int any)
{
	const Onnx__AttributeProto *a = att(m, "p");

	*p = 2;
	if (a && a->has_i)
		*p = a->i;
	else if (a && a->has_f)
		*p = a->f >= 1 && a->f <= 0x1p30 && a->f == (int64_t)a->f ?
		    (int64_t)a->f : 0;
	if (*p == 2 || (any && *p >= 1 && *p <= INT64_C(1) << 30))
		return 0;
	return refuse(m, REFUSE_ATTR, any ? "p other than a whole number "
	    "from 1 to 2^30" : "p other than 2 (WebNN has the L2 pool only)");
}

/*
 * A pool by nnl's 3-D ops (beyond WebNN): op on x of w (3-D, or a 1-D
 * or 2-D one, as [N, C, 1, H, W]: an Lp pool of p other than 2), with
 * the padding ignored as ONNX has it (AveragePool's count_include_pad
 * counts it), and the result in x's rank, named out (NULL: a new
 * name).
 */
static const char *
pool3(struct imp *m, const char *x, struct win *w, const char *op,
    int ceilmode, int64_t p, const char *out)
{
	const struct tdesc *xt = ty(m, x);
	int r = xt->rank;
	int64_t d[5], n = xt->dims[0], c = xt->dims[1];
	cJSON *o = cJSON_CreateObject();
	const char *y;

	if (w->nd == 2) {	/* a first dimension of 1 in front */
		for (int i = 2; i > 0; i--) {
			w->in[i] = w->in[i - 1], w->k[i] = w->k[i - 1];
			w->s[i] = w->s[i - 1], w->d[i] = w->d[i - 1];
			w->pb[i] = w->pb[i - 1], w->pe[i] = w->pe[i - 1];
			w->out[i] = w->out[i - 1];
		}
		w->in[0] = w->k[0] = w->s[0] = w->d[0] = w->out[0] = 1;
		w->pb[0] = w->pe[0] = 0;
		w->nd = 3;
		d[0] = n, d[1] = c, d[2] = 1, d[3] = w->in[1], d[4] = w->in[2];
		x = imp_reshape(m, x, 5, d, NULL);
	}
	addu32s(o, "windowDimensions", w->k, 3);
	winopts3(o, w);
	if (ceilmode)
		cJSON_AddStringToObject(o, "outputShapeRounding", "ceil");
	if (op[0] == 'a' && att_i(m, "count_include_pad", 0))
		cJSON_AddTrueToObject(o, "countIncludePad");
	if (op[0] == 'l')
		cJSON_AddNumberToObject(o, "p", (double)p);
	y = emit(m, op, o, r == 5 ? out : NULL, 1, x);
	if (r == 5)
		return y;
	d[0] = n, d[1] = c;
	for (int i = 0; i < r - 2; i++)
		d[2 + i] = w->out[3 - (r - 2) + i];
	return imp_reshape(m, y, r, d, out);
}

/*
 * MaxPool's Indices (output 1): nnl's maxPool2dIndices of x (rank 4),
 * on the unpadded input, by the window's own padding and rounding: the
 * flat index of each window's largest element (ties to the first, as
 * ONNX's reference), in storage_order's order.
 */
static int
maxindices(struct imp *m, const char *x, const struct win *w)
{
	int64_t so = att_i(m, "storage_order", 0), fl[2], ce[2];
	int up = 0;
	const char *y;
	cJSON *o;

	if (so != 0 && so != 1)
		return nodeerr(m, "storage_order %lld is not 0 or 1",
		    (long long)so);
	if (w->nsp > 2)
		return refuse(m, REFUSE_OUTPUT, "the Indices output of a "
		    "%d-D MaxPool (1-D and 2-D only)", w->nsp);
	for (int i = 0; i < 2; i++) {
		int64_t n = w->in[i] + w->pb[i] + w->pe[i] - effk(w, i);

		fl[i] = n / w->s[i] + 1;
		ce[i] = (n + w->s[i] - 1) / w->s[i] + 1;
	}
	if (w->out[0] == ce[0] && w->out[1] == ce[1])
		up = 1;
	else if (w->out[0] != fl[0] || w->out[1] != fl[1])
		return refuse(m, REFUSE_OUTPUT, "the Indices output of a "
		    "%lld x %lld pool, neither the floor nor the ceiling of "
		    "its size in both dimensions", (long long)w->out[0],
		    (long long)w->out[1]);
	o = cJSON_CreateObject();
	addu32s(o, "windowDimensions", w->k, 2);
	winopts(o, w, 1);
	if (up)
		cJSON_AddStringToObject(o, "outputShapeRounding", "ceil");
	if (so)
		cJSON_AddStringToObject(o, "storageOrder", "columnMajor");
	y = emit(m, "maxPool2dIndices", o, NULL, 1, x);
	return imp_done(m, 1, from4(m, y, w->nsp, outname(m, 1)));
}

/* MaxPool, AveragePool, LpPool. */
int
onnx_pool(struct imp *m)
{
	const char *op = m->n->op_type, *x = in(m, 0), *y, *wop;
	const struct tdesc *xt = ty(m, x);
	int mx = op[0] == 'M', lp = op[0] == 'L', r;
	int ceilmode = (int)att_i(m, "ceil_mode", 0);
	struct win w;
	int64_t p;
	double pv = 0;
	cJSON *o;

	if (!isfloat(xt->dt) && !(mx && (xt->dt == DT_INT8 ||
	    xt->dt == DT_UINT8)))
		return refuse(m, REFUSE_TYPE, "%s on %s", escape_tty_name(op),
		    dtype_name(xt->dt));
	if ((r = spatialrank(m, xt)) != 0 ||
	    (lp && (r = lpp(m, &p, 1)) != 0))
		return r;
	if (window(m, xt, NULL, &w, 0))
		return -1;
	if (w.same)
		for (int i = 0; i < w.nd; i++)
			w.out[i] = (w.in[i] + w.s[i] - 1) / w.s[i];
	else if (winout(m, &w, ceilmode))
		return -1;
	if (mx && outname(m, 1) && (r = maxindices(m, to4(m, x), &w)) != 0)
		return r;
	if (mx && !isfloat(xt->dt)) {
		/* (u)int8 pools exactly as float32; nnl's kernels are float */
		x = imp_cast(m, x, DT_FLOAT32);
		pv = -FLT_MAX;
	} else if (mx) {
		pv = lowest(xt->dt);
	}
	if (w.nsp == 3 || (lp && p != 2)) {
		int cast = mx && !isfloat(xt->dt);

		y = pool3(m, x, &w, mx ? "maxPool3d" : lp ? "lpPool3d" :
		    "averagePool3d", ceilmode && !w.same, p,
		    cast ? NULL : outname(m, 0));
		if (cast) {
			o = cJSON_CreateObject();
			cJSON_AddStringToObject(o, "dataType",
			    dtype_name(xt->dt));
			y = emit(m, "cast", o, outname(m, 0), 1, y);
		}
		return imp_done(m, 0, y);
	}
	wop = mx ? "maxPool2d" : lp ? "l2Pool2d" : "averagePool2d";
	o = cJSON_CreateObject();
	addu32s(o, "windowDimensions", w.k, 2);
	winopts(o, &w, 0);
	y = emit(m, wop, o, NULL, 1, padfor(m, to4(m, x), &w, pv));
	y = trim(m, y, &w);
	if (!mx && !lp)
		y = avgfix(m, y, &w, (int)att_i(m, "count_include_pad", 0));
	if (mx && !isfloat(xt->dt))
		y = imp_cast(m, y, xt->dt);
	return imp_done(m, 0, from4(m, y, w.nsp, outname(m, 0)));
}

/* GlobalAveragePool, GlobalMaxPool, GlobalLpPool. */
int
onnx_globalpool(struct imp *m)
{
	const char *op = m->n->op_type + 6, *x = in(m, 0);
	const struct tdesc *xt = ty(m, x);
	int64_t p;
	int r;

	if (!isfloat(xt->dt) && !(op[0] == 'M' && (xt->dt == DT_INT8 ||
	    xt->dt == DT_UINT8)))
		return refuse(m, REFUSE_TYPE,
		    "%s on %s", escape_tty_name(m->n->op_type),
		    dtype_name(xt->dt));
	if (op[0] == 'L' && (r = lpp(m, &p, xt->rank >= 3 &&
	    xt->rank <= 5)) != 0)
		return r;
	if (xt->rank < 2)
		return nodeerr(m, "input has rank %d; expected at least 2",
		    xt->rank);
	if (op[0] == 'L' && p != 2) {
		/* nnl's lpPool3d over the whole of each plane */
		struct win w;
		int ns = xt->rank - 2, o;

		memset(&w, 0, sizeof w);
		w.nsp = ns;
		w.nd = ns == 3 ? 3 : 2;
		o = w.nd - ns;
		for (int i = 0; i < w.nd; i++) {
			w.in[i] = w.k[i] = i < o ? 1 : xt->dims[2 + i - o];
			w.s[i] = w.d[i] = w.out[i] = 1;
		}
		return imp_done(m, 0, pool3(m, x, &w, "lpPool3d", 0, p,
		    outname(m, 0)));
	}
	return imp_done(m, 0, emit(m, op[0] == 'M' ? "reduceMax" : op[0] == 'L' ?
	    "reduceL2" : "reduceMean", axesfrom(2, xt->rank, 1),
	    outname(m, 0), 1, x));
}

/* ---- normalizations ---- */

/*
 * BatchNormalization-14/15 with training_mode = 1, as ONNX defines it:
 * the batch's mean and (population) variance over every axis but 1
 * normalize x; outputs 1 and 2, when asked, are the running statistics
 * input_mean * momentum + batch_mean * (1 - momentum), and the same of
 * the variance.
 */
static int
bn_training(struct imp *m)
{
	const char *x = in(m, 0), *rm = in(m, 3), *rv = in(m, 4);
	const struct tdesc *xt = ty(m, x);
	enum dtype dt = xt->dt;
	double mo = att_f(m, "momentum", 0.9);
	const char *mean, *c, *var, *stat[2], *run[2] = { rm, rv };
	uint32_t ax[32];
	cJSON *o;
	int n = 0;

	if (xt->rank < 2 || xt->rank > 32)
		return nodeerr(m, "input has rank %d; expected 2 to 32",
		    xt->rank);
	for (int i = 1; i < 5; i++)
		if (!in(m, i))
			return nodeerr(m, "input %d is required", i);
		else if (ty(m, in(m, i))->dt != dt)
			return refuse(m, REFUSE_TYPE, "training_mode with "
			    "input %d of %s, not %s as X", i,
			    dtype_name(ty(m, in(m, i))->dt), dtype_name(dt));
	for (int i = 0; i < xt->rank; i++)
		if (i != 1)
			ax[n++] = (uint32_t)i;
	o = cJSON_CreateObject();
	cJSON_AddItemToObject(o, "axes", ju32s(ax, (size_t)n));
	cJSON_AddTrueToObject(o, "keepDimensions");
	mean = emit(m, "reduceMean", o, NULL, 1, x);
	c = mean ? emit(m, "sub", NULL, NULL, 2, x, mean) : NULL;
	c = c ? emit(m, "mul", NULL, NULL, 2, c, c) : NULL;
	o = cJSON_CreateObject();
	cJSON_AddItemToObject(o, "axes", ju32s(ax, (size_t)n));
	var = c ? emit(m, "reduceMean", o, NULL, 1, c) : (cJSON_Delete(o),
	    NULL);
	stat[0] = mean ? imp_reshape(m, mean, 1, &xt->dims[1], NULL) : NULL;
	stat[1] = var;
	if (!stat[0] || !stat[1])
		return -1;
	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "scale", in(m, 1));
	cJSON_AddStringToObject(o, "bias", in(m, 2));
	cJSON_AddNumberToObject(o, "axis", 1);
	cJSON_AddNumberToObject(o, "epsilon", att_f(m, "epsilon", 1e-5));
	if (imp_done(m, 0, emit(m, "batchNormalization", o, outname(m, 0), 3,
	    x, stat[0], stat[1])))
		return -1;
	for (int k = 1; k < 3 && k < nouts(m); k++) {
		const char *a, *b;

		if (!outname(m, k))
			continue;
		a = emit(m, "mul", NULL, NULL, 2, run[k - 1],
		    mkscalar(m, dt, mo));
		b = emit(m, "mul", NULL, NULL, 2, stat[k - 1],
		    mkscalar(m, dt, 1 - mo));
		if (!a || !b || imp_done(m, k, emit(m, "add", NULL,
		    outname(m, k), 2, a, b)))
			return -1;
	}
	return 0;
}

int
onnx_batchnorm(struct imp *m)
{
	const char *x = in(m, 0), *s = in(m, 1), *b = in(m, 2);
	const struct tdesc *xt = ty(m, x);
	cJSON *o;

	if (!isfloat(xt->dt))
		return refuse(m, REFUSE_TYPE, "BatchNormalization on %s",
		    dtype_name(xt->dt));
	if (att_i(m, "spatial", 1) != 1)
		return refuse(m, REFUSE_ATTR, "spatial = 0");
	if (att_i(m, "training_mode", 0))
		return bn_training(m);
	for (int k = 1; k < nouts(m); k++)
		if (outname(m, k))
			return refuse(m, REFUSE_OUTPUT, "the training outputs");
	if (xt->rank < 2)
		return nodeerr(m, "input has rank %d; expected at least 2",
		    xt->rank);
	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "scale", s);
	cJSON_AddStringToObject(o, "bias", b);
	cJSON_AddNumberToObject(o, "axis", 1);
	cJSON_AddNumberToObject(o, "epsilon", att_f(m, "epsilon", 1e-5));
	return imp_done(m, 0, emit(m, "batchNormalization", o, outname(m, 0), 3,
	    x, in(m, 3), in(m, 4)));
}

int
onnx_instancenorm(struct imp *m)
{
	const char *x = in(m, 0), *y;
	const struct tdesc *xt = ty(m, x);
	int64_t d[4] = { 0, 0, 1, 1 }, *keep;
	cJSON *o;

	if (!isfloat(xt->dt))
		return refuse(m, REFUSE_TYPE, "InstanceNormalization on %s",
		    dtype_name(xt->dt));
	if (xt->rank < 3)
		return nodeerr(m, "input has rank %d; expected at least 3",
		    xt->rank);
	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "scale", in(m, 1));
	cJSON_AddStringToObject(o, "bias", in(m, 2));
	cJSON_AddNumberToObject(o, "epsilon", att_f(m, "epsilon", 1e-5));
	if (xt->rank == 4)
		return imp_done(m, 0, emit(m, "instanceNormalization", o,
		    outname(m, 0), 1, x));
	d[0] = xt->dims[0];
	d[1] = xt->dims[1];
	for (int i = 2; i < xt->rank; i++)
		d[2] *= xt->dims[i];
	keep = xcalloc((size_t)xt->rank + 1, sizeof *keep);
	if (xt->rank > 0)
		memcpy(keep, xt->dims, (size_t)xt->rank * sizeof *keep);
	y = emit(m, "instanceNormalization", o, NULL, 1,
	    imp_reshape(m, x, 4, d, NULL));
	y = imp_reshape(m, y, xt->rank, keep, outname(m, 0));
	free(keep);
	return imp_done(m, 0, y);
}

/* x's mean and 1 / sqrt(variance + eps) over the axes from a on. */
static int
moments(struct imp *m, const char *x, int a, double eps, const char **mean,
    const char **inv)
{
	int r = ty(m, x)->rank;
	enum dtype dt = ty(m, x)->dt;
	const char *c, *v;

	*mean = emit(m, "reduceMean", axesfrom(a, r, 1), NULL, 1, x);
	c = *mean ? emit(m, "sub", NULL, NULL, 2, x, *mean) : NULL;
	v = c ? emit(m, "reduceMean", axesfrom(a, r, 1), NULL, 1,
	    emit(m, "mul", NULL, NULL, 2, c, c)) : NULL;
	v = v ? emit(m, "add", NULL, NULL, 2, v, mkscalar(m, dt, eps)) : NULL;
	*inv = v ? emit(m, "reciprocal", NULL, NULL, 1,
	    emit(m, "sqrt", NULL, NULL, 1, v)) : NULL;
	return *inv ? 0 : -1;
}

/* Scale or bias as the normalized dimensions' shape when it
 * broadcasts to it; NULL when it does not. */
static const char *
normshape(struct imp *m, const char *p, const struct tdesc *xt, int a)
{
	const struct tdesc *t = ty(m, p);
	int n = xt->rank - a;

	if (t->rank > n)
		return NULL;
	for (int i = 0; i < t->rank; i++) {
		int64_t want = xt->dims[a + n - t->rank + i];

		if (t->dims[i] != want && t->dims[i] != 1)
			return NULL;
	}
	if (t->rank == n && !memcmp(t->dims, xt->dims + a,
	    (size_t)n * sizeof *t->dims))
		return p;
	{
		uint32_t d[32];
		cJSON *o = cJSON_CreateObject();

		for (int i = 0; i < n; i++)
			d[i] = (uint32_t)xt->dims[a + i];
		cJSON_AddItemToObject(o, "newShape", ju32s(d, (size_t)n));
		return emit(m, "expand", o, NULL, 1, p);
	}
}

/* The attributes LayerNormalization and RMSNormalization share: the
 * first normalized axis, into *axis (made non-negative), and the type
 * the statistics are computed in (stash_type: float32, or the input's
 * float16), into *cdt.  Refuses a non-float input and a double stash. */
static int
normatts(struct imp *m, const char *op, const struct tdesc *xt, int *axis,
    enum dtype *cdt)
{
	int r = xt->rank;
	int64_t a = att_i(m, "axis", -1);
	int64_t st = att_i(m, "stash_type", 1);

	if (!isfloat(xt->dt))
		return refuse(m, REFUSE_TYPE, "%s on %s", op,
		    dtype_name(xt->dt));
	if (st != 1 && st != 10 && st != 11)
		return refuse(m, REFUSE_ATTR, "stash_type %lld", (long long)st);
	if (st == 11)
		return refuse(m, REFUSE_TYPE, "stash_type double");
	if (a < -r || a >= r)
		return nodeerr(m, "axis %lld is out of range for rank %d",
		    (long long)a, r);
	*axis = (int)(a < 0 ? a + r : a);
	*cdt = st == 1 ? DT_FLOAT32 : xt->dt;
	return 0;
}

int
onnx_layernorm(struct imp *m)
{
	const char *x = in(m, 0), *s = in(m, 1), *b = in(m, 2), *y;
	const struct tdesc *xt = ty(m, x);
	int a;
	double eps = att_f(m, "epsilon", 1e-5);
	enum dtype dt = xt->dt, cdt;
	const char *mean, *inv;

	if (normatts(m, "LayerNormalization", xt, &a, &cdt))
		return -1;
	if (!(s = normshape(m, s, xt, (int)a)) ||
	    (b && !(b = normshape(m, b, xt, (int)a))))
		return nodeerr(m, "Scale or B does not broadcast to the "
		    "normalized dimensions");
	x = imp_cast(m, x, cdt);
	if (moments(m, x, (int)a, eps, &mean, &inv))
		return -1;
	y = emit(m, "mul", NULL, NULL, 2, emit(m, "sub", NULL, NULL, 2, x,
	    mean), inv);
	if (cdt != dt)
		y = imp_cast(m, y, dt);
	y = y ? emit(m, "mul", NULL, b ? NULL : outname(m, 0), 2, y,
	    imp_cast(m, s, dt)) : NULL;
	if (y && b)
		y = emit(m, "add", NULL, outname(m, 0), 2, y, imp_cast(m, b, dt));
	if (imp_done(m, 0, y))
		return -1;
	if (outname(m, 1) && imp_done(m, 1, emit(m, "identity", NULL,
	    outname(m, 1), 1, mean)))
		return -1;
	if (outname(m, 2) && imp_done(m, 2, emit(m, "identity", NULL,
	    outname(m, 2), 1, inv)))
		return -1;
	return 0;
}

/* RMSNormalization (opset 23): x / sqrt(mean(x^2 over the axes from
 * axis on) + epsilon) * scale, computed in float32 unless stash_type
 * says the input's type. */
int
onnx_rmsnorm(struct imp *m)
{
	const char *x = in(m, 0), *s = in(m, 1), *y, *v;
	const struct tdesc *xt = ty(m, x);
	int r = xt->rank;
	int a;
	double eps = att_f(m, "epsilon", 1e-5);
	enum dtype dt = xt->dt, cdt;

	if (normatts(m, "RMSNormalization", xt, &a, &cdt))
		return -1;
	if (!(s = normshape(m, s, xt, (int)a)))
		return nodeerr(m, "scale does not broadcast to the "
		    "normalized dimensions");
	x = imp_cast(m, x, cdt);
	v = emit(m, "reduceMean", axesfrom((int)a, r, 1), NULL, 1,
	    emit(m, "mul", NULL, NULL, 2, x, x));
	v = v ? emit(m, "add", NULL, NULL, 2, v, mkscalar(m, cdt, eps)) : NULL;
	y = v ? emit(m, "div", NULL, NULL, 2, x,
	    emit(m, "sqrt", NULL, NULL, 1, v)) : NULL;
	if (y && cdt != dt)
		y = imp_cast(m, y, dt);
	y = y ? emit(m, "mul", NULL, outname(m, 0), 2, y, imp_cast(m, s, dt)) :
	    NULL;
	return imp_done(m, 0, y);
}

/*
 * LRN: x / (bias + alpha / size * sum of x^2 over size channels)^beta,
 * the sum an average pool over the channels padded with zeros.
 */
int
onnx_lrn(struct imp *m)
{
	const char *x = in(m, 0), *q, *y;
	const struct tdesc *xt = ty(m, x);
	int64_t size = att_i(m, "size", 0), d[4] = { 0, 1, 0, 1 };
	int64_t b[4] = { 0, 0, 0, 0 }, e[4] = { 0, 0, 0, 0 }, win[2], *keep;
	double alpha = att_f(m, "alpha", 1e-4), beta = att_f(m, "beta", 0.75);
	double bias = att_f(m, "bias", 1);
	enum dtype dt = xt->dt;
	cJSON *o;

	if (!isfloat(dt))
		return refuse(m, REFUSE_TYPE, "LRN on %s", dtype_name(dt));
	if (size < 1 || size > 1 << 20)
		return nodeerr(m, "size %lld is not positive", (long long)size);
	if (xt->rank < 3)
		return nodeerr(m, "input has rank %d; expected at least 3",
		    xt->rank);
	d[0] = xt->dims[0];
	d[2] = xt->dims[1];
	for (int i = 2; i < xt->rank; i++)
		d[3] *= xt->dims[i];
	q = emit(m, "mul", NULL, NULL, 2, x, x);
	q = imp_reshape(m, q, 4, d, NULL);
	b[2] = (size - 1) / 2;
	e[2] = size - 1 - b[2];
	o = cJSON_CreateObject();
	addu32s(o, "beginningPadding", b, 4);
	addu32s(o, "endingPadding", e, 4);
	q = q ? emit(m, "pad", o, NULL, 1, q) : (cJSON_Delete(o), NULL);
	win[0] = size;
	win[1] = 1;
	o = cJSON_CreateObject();
	addu32s(o, "windowDimensions", win, 2);
	q = q ? emit(m, "averagePool2d", o, NULL, 1, q) :
	    (cJSON_Delete(o), NULL);
	keep = xcalloc((size_t)xt->rank + 1, sizeof *keep);
	if (xt->rank > 0)
		memcpy(keep, xt->dims, (size_t)xt->rank * sizeof *keep);
	q = imp_reshape(m, q, xt->rank, keep, NULL);
	free(keep);
	q = q ? emit(m, "mul", NULL, NULL, 2, q, mkscalar(m, dt, alpha)) :
	    NULL;
	q = q ? emit(m, "add", NULL, NULL, 2, q, mkscalar(m, dt, bias)) : NULL;
	q = q ? emit(m, "pow", NULL, NULL, 2, q, mkscalar(m, dt, beta)) : NULL;
	y = q ? emit(m, "div", NULL, outname(m, 0), 2, x, q) : NULL;
	return imp_done(m, 0, y);
}

/* (x - mean) / (sqrt(mean(x^2) - mean^2) + 1e-9), as ONNX defines it. */
int
onnx_mvn(struct imp *m)
{
	const char *x = in(m, 0), *mean, *sq, *y;
	const struct tdesc *xt = ty(m, x);
	const int64_t *v, dflt[3] = { 0, 2, 3 };
	size_t n = att_ints(m, "axes", &v);
	uint32_t ax[32];
	enum dtype dt = xt->dt;
	cJSON *o;

	if (!isfloat(dt))
		return refuse(m, REFUSE_TYPE, "MeanVarianceNormalization on %s",
		    dtype_name(dt));
	if (!att(m, "axes"))
		v = dflt, n = 3;
	if (n > (size_t)xt->rank)
		return nodeerr(m, "%zu axes for rank %d", n, xt->rank);
	for (size_t i = 0; i < n; i++) {
		int64_t a = v[i] < 0 ? v[i] + xt->rank : v[i];

		if (a < 0 || a >= xt->rank)
			return nodeerr(m, "axis %lld is out of range for rank "
			    "%d", (long long)v[i], xt->rank);
		ax[i] = (uint32_t)a;
	}
	o = cJSON_CreateObject();
	cJSON_AddItemToObject(o, "axes", ju32s(ax, n));
	cJSON_AddTrueToObject(o, "keepDimensions");
	mean = emit(m, "reduceMean", cJSON_Duplicate(o, 1), NULL, 1, x);
	sq = emit(m, "reduceMean", o, NULL, 1, emit(m, "mul", NULL, NULL, 2,
	    x, x));
	if (!mean || !sq)
		return -1;
	sq = emit(m, "sub", NULL, NULL, 2, sq, emit(m, "mul", NULL, NULL, 2,
	    mean, mean));
	sq = sq ? emit(m, "add", NULL, NULL, 2, emit(m, "sqrt", NULL, NULL, 1,
	    sq), mkscalar(m, dt, 1e-9)) : NULL;
	y = sq ? emit(m, "div", NULL, outname(m, 0), 2, emit(m, "sub", NULL,
	    NULL, 2, x, mean), sq) : NULL;
	return imp_done(m, 0, y);
}

/* ---- matrix products ---- */

int
onnx_gemm(struct imp *m)
{
	const char *a = in(m, 0), *b = in(m, 1), *c = in(m, 2);
	const struct tdesc *at = ty(m, a);
	cJSON *o;

	if (!isfloat(at->dt))
		return refuse(m, REFUSE_TYPE, "Gemm on %s", dtype_name(at->dt));
	if (at->rank != 2 || ty(m, b)->rank != 2)
		return nodeerr(m, "A and B must be 2-D");
	o = cJSON_CreateObject();
	if (c)
		cJSON_AddStringToObject(o, "c", c);
	cJSON_AddNumberToObject(o, "alpha", att_f(m, "alpha", 1));
	cJSON_AddNumberToObject(o, "beta", att_f(m, "beta", 1));
	if (att_i(m, "transA", 0))
		cJSON_AddTrueToObject(o, "aTranspose");
	if (att_i(m, "transB", 0))
		cJSON_AddTrueToObject(o, "bTranspose");
	return imp_done(m, 0, emit(m, "gemm", o, outname(m, 0), 2, a, b));
}

/* A 1-D operand as a matrix: [1, K] (a) or [K, 1] (b). */
static const char *
matrix(struct imp *m, const char *x, int isb)
{
	const struct tdesc *t = ty(m, x);
	int64_t d[2] = { 1, 1 };

	if (t->rank != 1)
		return x;
	d[!isb] = t->dims[0];
	return imp_reshape(m, x, 2, d, NULL);
}

int
onnx_matmul(struct imp *m)
{
	const char *a = in(m, 0), *b = in(m, 1), *y;
	const struct tdesc *at = ty(m, a), *bt = ty(m, b), *yt;
	int ra = at->rank, rb = bt->rank, k = 0;
	int64_t d[34];

	if (!isfloat(at->dt))
		return refuse(m, REFUSE_TYPE,
		    "MatMul on %s", dtype_name(at->dt));
	if (ra < 1 || rb < 1)
		return nodeerr(m, "MatMul of a scalar");
	if (ra > 1 && rb > 1)
		return imp_done(m, 0, emit(m, "matmul", NULL, outname(m, 0), 2, a,
		    b));
	y = emit(m, "matmul", NULL, NULL, 2, matrix(m, a, 0), matrix(m, b, 1));
	if (!y)
		return -1;
	yt = ty(m, y);
	for (int i = 0; i < yt->rank; i++)
		if (!(ra == 1 && i == yt->rank - 2) &&
		    !(rb == 1 && i == yt->rank - 1))
			d[k++] = yt->dims[i];
	return imp_done(m, 0, imp_reshape(m, y, k, d, outname(m, 0)));
}
