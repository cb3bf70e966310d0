/*
 * shape_nn: the shape rules of the convolutions, the pools, resample2d,
 * pad, the normalizations, matmul, gemm and the recurrent networks.
 * Each rule takes the validation steps of its op's "method steps" in
 * the WebNN specification in their order, so the step reported is the
 * first that fails; messages name the option or operand at fault and
 * the value found there.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checked.h"
#include "escape.h"
#include "shape_rule.h"

/* json.c reads shapes of rank 32 at most: lists hold that many. */
enum { MAXR = 32 };
/* A valid dimension is an integer above zero in the range of a long. */
#define MAXDIM INT64_C(2147483647)

static int
validdim(int64_t v)
{
	return v > 0 && v <= MAXDIM;
}

/* A computed size for messages: saturated ones are only "over" or
 * "under" the largest dimension. */
static const char *
sizestr(int64_t v)
{
	static char bufs[4][32];
	static int k;
	char *s = bufs[k++ & 3];

	if (v > MAXDIM || v < -MAXDIM)
		return v > 0 ? "over 2147483647" : "under -2147483647";
	snprintf(s, sizeof bufs[0], "%lld", (long long)v);
	return s;
}

/* A list of numbers as u32str does, in the canonical JSON form, which
 * the caller frees. */
static char *
f64str(const double *v, int n)
{
	struct buf b = { 0 };

	buf_putc(&b, '[');
	for (int i = 0; i < n; i++) {
		if (i)
			buf_puts(&b, ", ");
		json_put_number(&b, v[i]);
	}
	buf_putc(&b, ']');
	return b.s;
}

/* The "same as input" data type of the tensor limits tables. */
static int
samedt(struct shapectx *c, const char *what, const struct tdesc *t,
    const char *refwhat, const struct tdesc *ref)
{
	if (t->dt == ref->dt)
		return 0;
	return shape_err(c, "%s: data type %s is not that of %s (%s)", what,
	    dtype_name(t->dt), refwhat, dtype_name(ref->dt));
}

/* t is exactly dt[dims]: the steps checking an operand's data type
 * ("same as input") and "If its shape is not equal to ...". */
static int
exact(struct shapectx *c, const char *what, const struct tdesc *t,
    enum dtype dt, int r, const int64_t *dims)
{
	struct tdesc w = { dt, r, (int64_t *)dims };
	int ok = t->dt == dt && t->rank == r;

	for (int i = 0; ok && i < r; i++)
		ok = t->dims[i] == dims[i];
	if (ok)
		return 0;
	return shape_err(c, "%s: expected %s%s, found %s%s", what,
	    dtype_name(dt), shape_str(&w), dtype_name(t->dt), shape_str(t));
}

/* The same for an operand-valued option, when present. */
static int
optexact(struct shapectx *c, const char *name, enum dtype dt, int r,
    const int64_t *dims)
{
	const struct tdesc *t = opt_operand(c, name);
	char what[64];

	if (!t)
		return 0;
	snprintf(what, sizeof what, "option \"%s\"", name);
	return exact(c, what, t, dt, r, dims);
}

static int
want4(struct shapectx *c, const char *what, const struct tdesc *t)
{
	return shape_want_rank(c, what, t, 4);
}

static int
wantgroups(struct shapectx *c, uint32_t *g)
{
	if (opt_u32(c, "groups", g) < 0)
		return -1;
	if (*g == 0)
		return shape_err(c, "option \"groups\": 0, it must be "
		    "positive");
	return 0;
}

/* Channel, height and width positions of an input layout. */
static void
inlayout(const char *name, int *ch, int *h, int *w)
{
	int nhwc = strcmp(name, "nhwc") == 0;

	*ch = nhwc ? 3 : 1;
	*h = nhwc ? 1 : 2;
	*w = nhwc ? 2 : 3;
}

/* Where conv2d's and convTranspose2d's filter layouts keep o, i, h, w. */
struct flayout {
	const char *name;
	int o, i, h, w;
};

static const struct flayout FLAYOUTS[] = {
	{ "oihw", 0, 1, 2, 3 }, { "hwio", 3, 2, 0, 1 },
	{ "ohwi", 0, 3, 1, 2 }, { "ihwo", 3, 0, 1, 2 },
	{ "iohw", 1, 0, 2, 3 }, { "hwoi", 2, 3, 0, 1 },
	{ NULL, 0, 0, 0, 0 }
};

static const struct flayout *
flayout(const char *name)
{
	for (const struct flayout *l = FLAYOUTS; l->name; l++)
		if (strcmp(l->name, name) == 0)
			return l;
	BUG("filter layout outside the op table's enum");
}

/*
 * "Calculate conv output size": (in - ((k - 1) * dil + 1) + pb + pe) /
 * s + 1, a rational number, rounded down, or up when up is set.
 */
static int64_t
convsize(int64_t in, int64_t k, uint32_t pb, uint32_t pe, uint32_t s,
    uint32_t dil, int up)
{
	int64_t num = in + pb + pe - (shape_mulsat(k - 1, dil) + 1);
	int64_t q;

	if (num >= 0)
		q = (num + (up ? s - 1 : 0)) / s;
	else
		q = -((-num + (up ? 0 : s - 1)) / s);
	return q + 1;
}

/* The 4-D output of a convolution or pool in the input's layout. */
static void
out4(struct shapectx *c, const char *layout, int64_t n, int64_t ch,
    int64_t h, int64_t w)
{
	int64_t d[4];
	int ic, ih, iw;

	inlayout(layout, &ic, &ih, &iw);
	d[0] = n;
	d[ic] = ch;
	d[ih] = h;
	d[iw] = w;
	shape_out(c, 0, c->in[0]->dt, 4, d);
}

/* kh x kw: the filter's size (3 x 3 for Winograd's transformed one) */
static int
conv2dsize(struct shapectx *c, const char *il, int64_t oc,
    int64_t kh, int64_t kw, const uint32_t *pad, const uint32_t *st,
    const uint32_t *dl)
{
	const struct tdesc *x = c->in[0];
	int ch, hh, ww;
	int64_t oh, ow;

	inlayout(il, &ch, &hh, &ww);
	oh = convsize(x->dims[hh], kh, pad[0], pad[1], st[0], dl[0], 0);
	ow = convsize(x->dims[ww], kw, pad[2], pad[3], st[1], dl[1], 0);
	if (oh <= 0 || ow <= 0)
		return shape_err(c, "input \"filter\": the %lldx%lld filter, "
		    "dilations %s, does not fit the padded %lldx%lld input "
		    "(padding %s): output height %s, width %s",
		    (long long)kh, (long long)kw,
		    shape_u32str(dl, 2), (long long)x->dims[hh],
		    (long long)x->dims[ww], shape_u32str(pad, 4), sizestr(oh),
		    sizestr(ow));
	if (!validdim(oh) || !validdim(ow))
		return shape_err(c, "option \"padding\": %s gives an output "
		    "height %s, width %s, beyond the largest dimension",
		    shape_u32str(pad, 4),
		    sizestr(oh), sizestr(ow));
	out4(c, il, x->dims[0], oc, oh, ow);
	return 0;
}

/*
 * A conv2d into which nnl-fuse merged the add after it (its "residual"
 * field, an operand the kernel adds to the result, before the fused
 * activation): float32, of the output's very type (no broadcasting).
 */
static int
residual(struct shapectx *c)
{
	const cJSON *r = cJSON_GetObjectItemCaseSensitive(c->n->extra,
	    "residual");
	const struct tdesc *t, *y = &c->n->types[0];
	char *a, *b;

	if (!r)
		return 0;
	t = operand_type(graph_find(c->g, r->valuestring));
	if (y->dt == DT_FLOAT32 && tdesc_same(t, y))
		return 0;
	a = tdesc_str(t);
	b = tdesc_str(y);
	shape_err(c, "field \"residual\": operand \"%s\" is %s; it must be "
	    "float32 and of the output's type, %s",
	    escape_tty_name(r->valuestring), a, b);
	free(a);
	free(b);
	return -1;
}

/*
 * A conv2d that nnl-fuse gave Winograd's transformed filter (its
 * "winograd" field, "2x2": F(2 x 2, 3 x 3)): nchw, stride and dilation
 * 1, one group, the filter [4, 4, I, O] as "hwio" says, standing for a
 * 3 x 3 one.  Returns -1 after an error.
 */
static int
winograd(struct shapectx *c, const cJSON *wg, const char *il,
    const char *fl, const uint32_t *st, const uint32_t *dl, uint32_t g)
{
	const struct tdesc *f = c->in[1];

	if (!cJSON_IsString(wg) || strcmp(wg->valuestring, "2x2"))
		return shape_err(c, "field \"winograd\": expected \"2x2\" "
		    "(nnl-fuse's F(2x2, 3x3) filter)");
	if (strcmp(il, "nchw") || strcmp(fl, "hwio") || st[0] != 1 ||
	    st[1] != 1 || dl[0] != 1 || dl[1] != 1 || g != 1 ||
	    f->dims[0] != 4 || f->dims[1] != 4)
		return shape_err(c, "field \"winograd\": needs an nchw input, "
		    "a [4, 4, I, O] \"hwio\" filter, strides and dilations "
		    "1 and one group");
	return 0;
}

/*
 * A conv2d whose filter nnl-fuse stored in panels of 32 output
 * channels (its "panels" field: the number of output channels, O):
 * nchw, one group, an "ihwo" filter [I, kh, kw, O rounded up to 32]
 * whose bytes run [O / 32][I][kh][kw][32].  *oc is O.  Returns -1 after
 * an error.
 */
static int
panels(struct shapectx *c, const cJSON *pn, const char *il, const char *fl,
    uint32_t g, int64_t *oc)
{
	const struct tdesc *f = c->in[1];

	if (!cJSON_IsNumber(pn) || checked_double_i64(pn->valuedouble, 1,
	    CHECKED_MAXDIM, oc) != 0)
		return shape_err(c, "field \"panels\": expected the number of "
		    "output channels (nnl-fuse's filter in panels of 32)");
	if (strcmp(il, "nchw") || strcmp(fl, "ihwo") || g != 1 ||
	    f->dims[3] != (*oc + 31) / 32 * 32)
		return shape_err(c, "field \"panels\": needs an nchw input, "
		    "an \"ihwo\" filter of %lld output channels rounded up "
		    "to 32 and one group", (long long)*oc);
	return 0;
}

int
shape_conv2d(struct shapectx *c)
{
	const struct tdesc *x = c->in[0], *f = c->in[1], *b;
	const char *il = "nchw", *fl = "oihw";
	const struct flayout *l;
	const cJSON *wg, *pn;
	uint32_t pad[4], st[2], dl[2], g = 1;
	int ch, hh, ww;
	int64_t ic, oc;

	if (shape_want_dtype(c, "input \"input\"", x, DTS_FLOAT) ||
	    want4(c, "input \"input\"", x) || want4(c, "input \"filter\"", f) ||
	    samedt(c, "input \"filter\"", f, "input \"input\"", x) ||
	    shape_fixed(c, "padding", pad, 4, 0, 0) < 0 ||
	    shape_fixed(c, "strides", st, 2, 1, 1) < 0 ||
	    shape_fixed(c, "dilations", dl, 2, 1, 1) < 0 || wantgroups(c, &g) ||
	    opt_str(c, "inputLayout", &il) < 0 ||
	    opt_str(c, "filterLayout", &fl) < 0)
		return -1;
	wg = cJSON_GetObjectItemCaseSensitive(c->n->extra, "winograd");
	if (wg && winograd(c, wg, il, fl, st, dl, g))
		return -1;
	inlayout(il, &ch, &hh, &ww);
	l = flayout(fl);
	ic = x->dims[ch];
	oc = f->dims[l->o];
	pn = cJSON_GetObjectItemCaseSensitive(c->n->extra, "panels");
	if (pn && wg)
		return shape_err(c, "fields \"winograd\" and \"panels\" "
		    "exclude each other");
	if (pn && panels(c, pn, il, fl, g, &oc))
		return -1;
	if (ic % g)
		return shape_err(c, "option \"groups\": %u does not divide the "
		    "%lld input channels", g, (long long)ic);
	if (ic / g != f->dims[l->i])
		return shape_err(c, "input \"filter\" has %lld input channels, "
		    "input has %lld in %u group%s", (long long)f->dims[l->i],
		    (long long)ic, g, g == 1 ? "" : "s");
	if (oc % g)
		return shape_err(c, "option \"groups\": %u does not divide the "
		    "%lld output channels of input \"filter\"", g,
		    (long long)oc);
	if ((b = opt_operand(c, "bias")) &&
	    exact(c, "option \"bias\"", b, x->dt, 1, &oc))
		return -1;
	if (conv2dsize(c, il, oc, wg ? 3 : f->dims[l->h],
	    wg ? 3 : f->dims[l->w], pad, st, dl))
		return -1;
	return residual(c);
}

/*
 * "Calculate convtranspose output size" for both spatial dimensions,
 * then outputSizes (checked against it) or outputPadding added.
 */
static int
convtsizes(struct shapectx *c, int64_t *sz, const int64_t *in,
    const int64_t *k, const uint32_t *pad, const uint32_t *st,
    const uint32_t *dl, const uint32_t *op, const uint32_t *os, int hasos)
{
	for (int i = 0; i < 2; i++) {
		int64_t calc = shape_mulsat(in[i] - 1, st[i]) +
		    shape_mulsat(k[i] - 1, dl[i]) + 1 - pad[2 * i] - pad[2 * i + 1];

		if (hasos && (os[i] < calc || os[i] >= calc + st[i]))
			return shape_err(c, "option \"outputSizes\": %s: %u is "
			    "outside [%lld, %lld), the sizes the strides %s "
			    "allow", shape_u32str(os, 2), os[i], (long long)calc,
			    (long long)(calc + st[i]), shape_u32str(st, 2));
		sz[i] = hasos ? os[i] : calc + op[i];
	}
	if (validdim(sz[0]) && validdim(sz[1]))
		return 0;
	if (hasos)
		return shape_err(c, "option \"outputSizes\": %s is not a valid "
		    "output size", shape_u32str(os, 2));
	return shape_err(c, "option \"padding\": %s leaves an output "
	    "height %s, width %s", shape_u32str(pad, 4), sizestr(sz[0]),
	    sizestr(sz[1]));
}

static int
convtopts(struct shapectx *c, uint32_t *pad, uint32_t *st, uint32_t *dl,
    uint32_t *op, uint32_t *os, int *hasos)
{
	if (shape_fixed(c, "padding", pad, 4, 0, 0) < 0 ||
	    shape_fixed(c, "strides", st, 2, 1, 1) < 0 ||
	    shape_fixed(c, "dilations", dl, 2, 1, 1) < 0 ||
	    shape_fixed(c, "outputPadding", op, 2, 0, 0) < 0 ||
	    (*hasos = shape_fixed(c, "outputSizes", os, 2, 0, 0)) < 0)
		return -1;
	if (*hasos)
		return 0;
	for (int i = 0; i < 2; i++)
		if (op[i] >= st[i])
			return shape_err(c, "option \"outputPadding\": %u must "
			    "be below the stride %u of dimension %d (strides "
			    "%s)", op[i], st[i], i, shape_u32str(st, 2));
	return 0;
}

int
shape_conv_transpose2d(struct shapectx *c)
{
	const struct tdesc *x = c->in[0], *f = c->in[1], *b;
	const char *il = "nchw", *fl = "iohw";
	const struct flayout *l;
	uint32_t pad[4], st[2], dl[2], op[2], os[2], g = 1;
	int ch, hh, ww, hasos = 0;
	int64_t oc, sz[2], in[2], k[2];

	if (want4(c, "input \"input\"", x) ||
	    shape_want_dtype(c, "input \"input\"", x, DTS_FLOAT) ||
	    want4(c, "input \"filter\"", f) ||
	    samedt(c, "input \"filter\"", f, "input \"input\"", x) ||
	    convtopts(c, pad, st, dl, op, os, &hasos) || wantgroups(c, &g) ||
	    opt_str(c, "inputLayout", &il) < 0 ||
	    opt_str(c, "filterLayout", &fl) < 0)
		return -1;
	inlayout(il, &ch, &hh, &ww);
	l = flayout(fl);
	if (x->dims[ch] != f->dims[l->i])
		return shape_err(c, "input \"filter\" has %lld input channels, "
		    "input has %lld", (long long)f->dims[l->i],
		    (long long)x->dims[ch]);
	/* Not a step of the algorithm, but the definition of groups: "the
	 * number of groups that input channels ... are divided into". */
	if (x->dims[ch] % g)
		return shape_err(c, "option \"groups\": %u does not divide the "
		    "%lld input channels", g, (long long)x->dims[ch]);
	oc = shape_mulsat(f->dims[l->o], g);
	if (!validdim(oc))
		return shape_err(c, "option \"groups\": %u groups of %lld "
		    "output channels are not a valid dimension", g,
		    (long long)f->dims[l->o]);
	if ((b = opt_operand(c, "bias")) &&
	    exact(c, "option \"bias\"", b, x->dt, 1, &oc))
		return -1;
	in[0] = x->dims[hh];
	in[1] = x->dims[ww];
	k[0] = f->dims[l->h];
	k[1] = f->dims[l->w];
	if (convtsizes(c, sz, in, k, pad, st, dl, op, os, hasos))
		return -1;
	out4(c, il, x->dims[0], oc, sz[0], sz[1]);
	return 0;
}

/*
 * The pooling options up to the dilations.  As the specification has
 * it, padding is ignored (zero) when outputSizes is given, and each
 * outputSizes item must be smaller than the stride of its dimension.
 */
static int
poolopts(struct shapectx *c, uint32_t *win, const int64_t *hw,
    uint32_t *pad, uint32_t *st, uint32_t *dl, uint32_t *os, int *hasos)
{
	int r = shape_fixed(c, "windowDimensions", win, 2, 0, 1);

	if (r < 0)
		return -1;
	for (int i = 0; r == 0 && i < 2; i++)
		win[i] = (uint32_t)hw[i];
	if (win[0] == 0 || win[1] == 0)
		return shape_err(c, "option \"windowDimensions\": the default, "
		    "the input's %s, holds a 0", shape_u32str(win, 2));
	*hasos = opt_present(c, "outputSizes");
	memset(pad, 0, 4 * sizeof *pad);
	if ((!*hasos && shape_fixed(c, "padding", pad, 4, 0, 0) < 0) ||
	    shape_fixed(c, "strides", st, 2, 1, 1) < 0 ||
	    (*hasos && shape_fixed(c, "outputSizes", os, 2, 0, 0) < 0))
		return -1;
	for (int i = 0; *hasos && i < 2; i++)
		if (os[i] >= st[i])
			return shape_err(c, "option \"outputSizes\": %s: %u is "
			    "not smaller than the stride %u (strides %s)",
			    shape_u32str(os, 2), os[i], st[i], shape_u32str(st, 2));
	return shape_fixed(c, "dilations", dl, 2, 1, 1) < 0 ? -1 : 0;
}

/* The output height and width: outputSizes if they are both the floor
 * or both the ceiling of the calculated sizes, else the rounding. */
static int
poolsizes(struct shapectx *c, int64_t *o, const int64_t *hw,
    const uint32_t *win, const uint32_t *pad, const uint32_t *st,
    const uint32_t *dl, const uint32_t *os, int hasos, int up)
{
	int64_t fl[2], ce[2];

	for (int i = 0; i < 2; i++) {
		fl[i] = convsize(hw[i], win[i], pad[2 * i], pad[2 * i + 1],
		    st[i], dl[i], 0);
		ce[i] = convsize(hw[i], win[i], pad[2 * i], pad[2 * i + 1],
		    st[i], dl[i], 1);
		o[i] = hasos ? os[i] : up ? ce[i] : fl[i];
	}
	if (hasos && !(os[0] == fl[0] && os[1] == fl[1]) &&
	    !(os[0] == ce[0] && os[1] == ce[1]))
		return shape_err(c, "option \"outputSizes\": %s is neither the "
		    "floor [%lld, %lld] nor the ceiling [%lld, %lld] of the "
		    "output size", shape_u32str(os, 2), (long long)fl[0],
		    (long long)fl[1], (long long)ce[0], (long long)ce[1]);
	if (o[0] <= 0 || o[1] <= 0)
		return shape_err(c, "option \"windowDimensions\": the window "
		    "%s, dilations %s, does not fit the %lldx%lld input with "
		    "padding %s: output height %s, width %s", shape_u32str(win, 2),
		    shape_u32str(dl, 2), (long long)hw[0], (long long)hw[1],
		    shape_u32str(pad, 4), sizestr(o[0]), sizestr(o[1]));
	if (!validdim(o[0]) || !validdim(o[1]))
		return shape_err(c, "option \"padding\": %s gives an output "
		    "height %s, width %s, beyond the largest dimension",
		    shape_u32str(pad, 4),
		    sizestr(o[0]), sizestr(o[1]));
	return 0;
}

int
shape_pool2d(struct shapectx *c)
{
	const struct tdesc *x = c->in[0];
	const char *layout = "nchw", *round = "floor";
	uint32_t win[2], pad[4], st[2], dl[2], os[2];
	int ch, hh, ww, hasos = 0;
	int64_t hw[2], o[2];

	if (shape_want_dtype(c, "input \"input\"", x,
	    c->n->op == OP_MAX_POOL2D ? DTS_ALL : DTS_FLOAT) ||
	    want4(c, "input \"input\"", x) ||
	    opt_str(c, "layout", &layout) < 0 ||
	    opt_str(c, "outputShapeRounding", &round) < 0)
		return -1;
	inlayout(layout, &ch, &hh, &ww);
	hw[0] = x->dims[hh];
	hw[1] = x->dims[ww];
	if (poolopts(c, win, hw, pad, st, dl, os, &hasos) ||
	    poolsizes(c, o, hw, win, pad, st, dl, os, hasos,
	    strcmp(round, "ceil") == 0))
		return -1;
	out4(c, layout, x->dims[0], x->dims[ch], o[0], o[1]);
	return 0;
}

/*
 * floor(n * s), exactly, for a positive float s (scales is a
 * sequence<float>): s = m * 2^e with m below 2^24, so n * m fits.
 */
static int64_t
floormul(int64_t n, float s)
{
	int e;
	int64_t m = (int64_t)ldexpf(frexpf(s, &e), 24), p = n * m;

	e -= 24;
	if (e < 0)
		return -e >= 63 ? 0 : p >> -e;
	if (p == 0)
		return 0;
	return e > 31 || p > MAXDIM >> e ? MAXDIM + 1 : p << e;
}

/* scales, as floats, and sizes: the steps before the axes. */
static int
resampleopts(struct shapectx *c, float *sc, uint32_t *sz, int *hassz)
{
	double v[MAXR] = { 1, 1 };
	uint32_t t[MAXR];
	int n = 0, r = opt_f64s(c, "scales", v, MAXR, &n);

	if (r < 0)
		return -1;
	if (r == 0)
		n = 2;
	for (int i = 0; i < n && n == 2; i++)
		if (!(fabs(v[i]) <= FLT_MAX) ||	/* NaN too */
		    !((sc[i] = (float)v[i]) > 0))
			n = -1;
	if (n != 2) {
		char *vs = f64str(v, n < 0 ? 2 : n);

		shape_err(c, "option \"scales\": %s: expected 2 positive "
		    "values (float32)", vs);
		free(vs);
		return -1;
	}
	if ((r = opt_u32s(c, "sizes", t, MAXR, &n)) < 0)
		return -1;
	*hassz = r;
	if (r && (n != 2 || !t[0] || !t[1]))
		return shape_err(c, "option \"sizes\": %s: expected 2 positive "
		    "values", shape_u32str(t, n));
	if (r)
		memcpy(sz, t, 2 * sizeof *sz);
	return 0;
}

/* axes, default [2, 3].  The steps refuse duplicates and axes out of
 * range; the member's definition ("a list of length 2") the length. */
static int
resampleaxes(struct shapectx *c, uint32_t *axes, int rank)
{
	uint32_t t[MAXR];
	int n = 0, r = opt_u32s(c, "axes", t, MAXR, &n);

	if (r <= 0)
		return r;
	if (n != 2 || t[0] == t[1] || t[0] >= (uint32_t)rank ||
	    t[1] >= (uint32_t)rank)
		return shape_err(c, "option \"axes\": %s are not two distinct "
		    "axes of a %d-D input", shape_u32str(t, n), rank);
	axes[0] = t[0];
	axes[1] = t[1];
	return 0;
}

int
shape_resample2d(struct shapectx *c)
{
	static const enum dtype RDT[] = { DT_FLOAT32, DT_FLOAT16, DT_UINT8,
	    DT_INT8, DT_NONE };
	const struct tdesc *x = c->in[0];
	uint32_t axes[2] = { 2, 3 }, sz[2];
	float sc[2];
	int hassz = 0;
	int64_t d[4];

	if (shape_want_dtype(c, "input \"input\"", x, RDT) ||
	    want4(c, "input \"input\"", x) ||
	    resampleopts(c, sc, sz, &hassz) || resampleaxes(c, axes, 4))
		return -1;
	memcpy(d, x->dims, sizeof d);
	for (int i = 0; i < 2; i++) {
		d[axes[i]] = hassz ? sz[i] : floormul(x->dims[axes[i]], sc[i]);
		if (!validdim(d[axes[i]]) && hassz)
			return shape_err(c, "option \"sizes\": %u is not a "
			    "valid dimension", sz[i]);
		if (!validdim(d[axes[i]]))
			return shape_err(c, "option \"scales\": %.9g gives "
			    "dimension %u (%lld) the size %s", sc[i],
			    axes[i], (long long)x->dims[axes[i]],
			    sizestr(d[axes[i]]));
	}
	/* an output element needs input elements to interpolate */
	for (int i = 0; i < 2; i++)
		if (x->dims[axes[i]] == 0 && d[0] && d[1] && d[2] && d[3])
			return shape_err(c, "dimension %u of input \"input\" "
			    "%s is empty: nothing to resample from", axes[i],
			    shape_str(x));
	shape_out(c, 0, x->dt, 4, d);
	return 0;
}

/* Reflection reads mirror images inside the input: each padding must
 * be below its dimension. */
static int
reflectable(struct shapectx *c, const char *name, const uint32_t *p, int i)
{
	const struct tdesc *x = c->in[0];

	if (p[i] < x->dims[i])
		return 0;
	return shape_err(c, "mode \"reflection\": padding of dimension %d "
	    "must be below its size %lld: option \"%s\" has %u", i,
	    (long long)x->dims[i], name, p[i]);
}

int
shape_pad(struct shapectx *c)
{
	const struct tdesc *x = c->in[0];
	uint32_t b[MAXR], e[MAXR];
	int nb = 0, ne = 0, refl;
	const char *mode = "constant";
	int64_t d[MAXR];

	if (opt_u32s(c, "beginningPadding", b, MAXR, &nb) < 0 ||
	    opt_u32s(c, "endingPadding", e, MAXR, &ne) < 0 ||
	    opt_str(c, "mode", &mode) < 0)
		return -1;
	if (nb != x->rank || ne != x->rank)
		return shape_err(c, "options \"beginningPadding\" %s and "
		    "\"endingPadding\" %s need %d values each, the rank of "
		    "the input", shape_u32str(b, nb), shape_u32str(e, ne), x->rank);
	refl = strcmp(mode, "reflection") == 0;
	for (int i = 0; i < x->rank; i++) {
		if (refl && (reflectable(c, "beginningPadding", b, i) ||
		    reflectable(c, "endingPadding", e, i)))
			return -1;
		/* no edge to repeat, as NumPy says too */
		if (!strcmp(mode, "edge") && x->dims[i] == 0 && (b[i] || e[i]))
			return shape_err(c, "mode \"edge\": dimension %d of "
			    "the input is empty, so it has no edge to pad "
			    "with", i);
		d[i] = x->dims[i] + b[i] + e[i];
		if (!validdim(d[i]))
			return shape_err(c, "options \"beginningPadding\" and "
			    "\"endingPadding\": dimension %d, %u + %lld + %u = "
			    "%lld, is not a valid dimension", i, b[i],
			    (long long)x->dims[i], e[i], (long long)d[i]);
	}
	shape_out(c, 0, x->dt, x->rank, d);
	return 0;
}

int
shape_batch_norm(struct shapectx *c)
{
	const struct tdesc *x = c->in[0];
	uint32_t axis = 1;
	int64_t n;

	if (shape_want_dtype(c, "input \"input\"", x, DTS_FLOAT) ||
	    opt_u32(c, "axis", &axis) < 0)
		return -1;
	if (axis >= (uint32_t)x->rank)
		return shape_err(c, "option \"axis\": %u is out of range for "
		    "rank %d", axis, x->rank);
	n = x->dims[axis];
	if (exact(c, "input \"mean\"", c->in[1], x->dt, 1, &n) ||
	    exact(c, "input \"variance\"", c->in[2], x->dt, 1, &n) ||
	    optexact(c, "scale", x->dt, 1, &n) ||
	    optexact(c, "bias", x->dt, 1, &n))
		return -1;
	shape_out(c, 0, x->dt, x->rank, x->dims);
	return 0;
}

int
shape_instance_norm(struct shapectx *c)
{
	const struct tdesc *x = c->in[0];
	const char *layout = "nchw";
	int64_t n;

	if (shape_want_dtype(c, "input \"input\"", x, DTS_FLOAT) ||
	    want4(c, "input \"input\"", x) ||
	    opt_str(c, "layout", &layout) < 0)
		return -1;
	n = x->dims[strcmp(layout, "nchw") == 0 ? 1 : 3];
	if (optexact(c, "scale", x->dt, 1, &n) ||
	    optexact(c, "bias", x->dt, 1, &n))
		return -1;
	shape_out(c, 0, x->dt, 4, x->dims);
	return 0;
}

/* axes: by default 1 to rank - 1; else distinct and below the rank. */
static int
lnaxes(struct shapectx *c, uint32_t *axes, int *n)
{
	int rank = c->in[0]->rank, r = opt_u32s(c, "axes", axes, MAXR, n);

	if (r < 0)
		return -1;
	if (r == 0) {
		for (*n = 0; *n + 1 < rank; (*n)++)
			axes[*n] = (uint32_t)(*n + 1);
		return 0;
	}
	for (int i = 0; i < *n; i++) {
		if (axes[i] >= (uint32_t)rank)
			return shape_err(c, "option \"axes\": %u is out of "
			    "range for rank %d", axes[i], rank);
		for (int j = 0; j < i; j++)
			if (axes[j] == axes[i])
				return shape_err(c, "option \"axes\": %u "
				    "appears twice in %s", axes[i],
				    shape_u32str(axes, *n));
	}
	return 0;
}

/* scale or bias: the input's data type, rank the number of axes and
 * the input's size at each axis. */
static int
lnoperand(struct shapectx *c, const char *name, const uint32_t *axes,
    int n)
{
	const struct tdesc *x = c->in[0], *t = opt_operand(c, name);
	char what[32];

	if (!t)
		return 0;
	snprintf(what, sizeof what, "option \"%s\"", name);
	if (samedt(c, what, t, "input \"input\"", x))
		return -1;
	if (t->rank != n)
		return shape_err(c, "%s: expected rank %d, found %s", what, n,
		    shape_str(t));
	for (int i = 0; i < n; i++)
		if (t->dims[i] != x->dims[axes[i]])
			return shape_err(c, "%s: %s, dimension %d is %lld, the "
			    "input's axis %u is %lld", what, shape_str(t), i,
			    (long long)t->dims[i], axes[i],
			    (long long)x->dims[axes[i]]);
	return 0;
}

int
shape_layer_norm(struct shapectx *c)
{
	const struct tdesc *x = c->in[0];
	uint32_t axes[MAXR];
	int n = 0;

	if (shape_want_dtype(c, "input \"input\"", x, DTS_FLOAT) ||
	    lnaxes(c, axes, &n) || lnoperand(c, "scale", axes, n) ||
	    lnoperand(c, "bias", axes, n))
		return -1;
	shape_out(c, 0, x->dt, x->rank, x->dims);
	return 0;
}

/*
 * A matmul into which nnl-fuse merged the add of a bias after it (its
 * "bias" field, an operand the C kernel adds to each row of the
 * result): float32 [N], of a float32 product of N columns.
 */
static int
matmulbias(struct shapectx *c, enum dtype dt, int64_t n)
{
	const cJSON *bn = cJSON_GetObjectItemCaseSensitive(c->n->extra,
	    "bias");
	const struct tdesc *t;
	char *s;

	if (!bn)
		return 0;
	t = operand_type(graph_find(c->g, bn->valuestring));
	if (dt == DT_FLOAT32 && t->dt == DT_FLOAT32 && t->rank == 1 &&
	    t->dims[0] == n)
		return 0;
	s = tdesc_str(t);
	shape_err(c, "field \"bias\": operand \"%s\" is %s; it must be "
	    "float32[%lld], of a float32 product", escape_tty_name(
	    bn->valuestring), s, (long long)n);
	free(s);
	return -1;
}

/*
 * Operand t of a matmul as the matmul reads it: with nnl-fuse's field
 * f ("transposeA" or "transposeB"), the permutation p of a transpose
 * folded into it (p[d]: the axis of t that is the view's d), whose last
 * axis of t must stay one of the matrix axes.  The view's dims in d.
 */
static int
shape_matmul_view(struct shapectx *c, const char *f, const struct tdesc *t,
    struct tdesc *v, int64_t *d, int *p)
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(c->n->extra, f);
	const cJSON *it;
	int k = 0, seen[MAXR] = { 0 }, r = t->rank;

	*v = *t;
	for (int i = 0; i < r && i < MAXR; i++)
		p[i] = i;
	if (!a)
		return 0;
	if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) != r || r < 2 ||
	    r > MAXR)
		return shape_err(c, "field \"%s\": expected a permutation of "
		    "the %d axes of %s", f, r, shape_str(t));
	cJSON_ArrayForEach(it, a) {
		if (!cJSON_IsNumber(it) || it->valuedouble < 0 ||
		    it->valuedouble >= r || it->valuedouble !=
		    (int)it->valuedouble || seen[(int)it->valuedouble]++)
			return shape_err(c, "field \"%s\": expected a "
			    "permutation of the %d axes of %s", f, r,
			    shape_str(t));
		p[k] = (int)it->valuedouble;
		d[k] = t->dims[p[k]];
		k++;
	}
	if (p[r - 1] != r - 1 && p[r - 2] != r - 1)
		return shape_err(c, "field \"%s\": the last axis of %s must "
		    "stay one of the matrix axes", f, shape_str(t));
	v->dims = d;
	return 0;
}

/* matmul's types: WebNN's, and nnl's float64 (rt/nn/linalg.c) */
static const enum dtype MMDT[] = { DT_FLOAT32, DT_FLOAT16, DT_FLOAT64,
    DT_NONE };

int
shape_matmul(struct shapectx *c)
{
	struct tdesc av, bv;
	const struct tdesc *a = &av, *b = &bv;
	int64_t d[MAXR + 2], ad[MAXR], bd[MAXR];
	int r, ap[MAXR], bp[MAXR];

	if (shape_matmul_view(c, "transposeA", c->in[0], &av, ad, ap) ||
	    shape_matmul_view(c, "transposeB", c->in[1], &bv, bd, bp))
		return -1;
	if (shape_want_dtype(c, "input \"a\"", a, MMDT) ||
	    samedt(c, "input \"b\"", b, "input \"a\"", a))
		return -1;
	if (a->rank < 2 || b->rank < 2)
		return shape_err(c, "input \"%s\" %s: rank %d is below 2",
		    a->rank < 2 ? "a" : "b", shape_str(a->rank < 2 ? a : b),
		    a->rank < 2 ? a->rank : b->rank);
	if (a->dims[a->rank - 1] != b->dims[b->rank - 2])
		return shape_err(c, "input \"a\" %s has %lld columns, input "
		    "\"b\" %s has %lld rows", shape_str(a),
		    (long long)a->dims[a->rank - 1], shape_str(b),
		    (long long)b->dims[b->rank - 2]);
	r = (a->rank > b->rank ? a->rank : b->rank) - 2;
	for (int i = 0; i < r; i++) {
		int ia = i - (r - (a->rank - 2)), ib = i - (r - (b->rank - 2));
		int64_t da = ia >= 0 ? a->dims[ia] : 1;
		int64_t db = ib >= 0 ? b->dims[ib] : 1;

		if (da != db && da != 1 && db != 1)
			return shape_err(c, "inputs \"a\" %s and \"b\" %s: "
			    "batch dimensions %lld and %lld do not broadcast",
			    shape_str(a), shape_str(b), (long long)da,
			    (long long)db);
		d[i] = da == 1 ? db : da;
	}
	d[r] = a->dims[a->rank - 2];
	d[r + 1] = b->dims[b->rank - 1];
	shape_out(c, 0, a->dt, r + 2, d);
	return matmulbias(c, a->dt, d[r + 1]);
}

int
shape_gemm(struct shapectx *c)
{
	const struct tdesc *a = c->in[0], *b = c->in[1], *cc;
	int ta = 0, tb = 0;
	int64_t d[2];
	struct tdesc o = { a->dt, 2, d };

	if (shape_want_dtype(c, "input \"a\"", a, DTS_FLOAT) ||
	    samedt(c, "input \"b\"", b, "input \"a\"", a) ||
	    shape_want_rank(c, "input \"a\"", a, 2) ||
	    shape_want_rank(c, "input \"b\"", b, 2) ||
	    opt_bool(c, "aTranspose", &ta) < 0 ||
	    opt_bool(c, "bTranspose", &tb) < 0)
		return -1;
	if (a->dims[!ta] != b->dims[tb])
		return shape_err(c, "input \"a\" %s%s has %lld columns, input "
		    "\"b\" %s%s has %lld rows", shape_str(a),
		    ta ? " transposed" : "", (long long)a->dims[!ta],
		    shape_str(b), tb ? " transposed" : "",
		    (long long)b->dims[tb]);
	d[0] = a->dims[ta];
	d[1] = b->dims[!tb];
	if ((cc = opt_operand(c, "c")) && !shape_unibroadcastable(cc, &o))
		return shape_err(c, "option \"c\" %s does not broadcast to the "
		    "output %s", shape_str(cc), shape_str(&o));
	if (cc && samedt(c, "option \"c\"", cc, "input \"a\"", a))
		return -1;
	shape_out(c, 0, a->dt, 2, d);
	return 0;
}

/*
 * The recurrent networks.  gates: 3 (GRU) or 4 (LSTM); cell: the one
 * step forms, whose shapes lack the leading numDirections and whose
 * states are inputs rather than options.
 */
struct rnn {
	int gates, cell;
	uint32_t steps, h;
	int64_t nd, batch, insize;
};

static const char *
inname(struct shapectx *c, int i)
{
	static char bufs[2][64];
	static int k;
	char *s = bufs[k++ & 1];

	snprintf(s, sizeof bufs[0], "input \"%s\"", c->d->operands[i]);
	return s;
}

/* Data types, then ranks, of the operand arguments. */
static int
rnninputs(struct shapectx *c, const struct rnn *r)
{
	const struct tdesc *x = c->in[0];

	if (shape_want_dtype(c, "input \"input\"", x, DTS_FLOAT))
		return -1;
	for (int i = 1; i < c->nin; i++)
		if (samedt(c, inname(c, i), c->in[i], "input \"input\"", x))
			return -1;
	for (int i = 0; i < c->nin; i++)
		if (shape_want_rank(c, inname(c, i), c->in[i],
		    r->cell ? 2 : 3))
			return -1;
	return 0;
}

/* "activations": a list of the length the op takes, when given. */
static int
rnnacts(struct shapectx *c, int want)
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(c->n->options,
	    "activations");
	struct buf b = { 0 };

	if (!a || cJSON_IsNull(a) || cJSON_GetArraySize(a) == want)
		return 0;
	json_put_value(&b, a);
	shape_err(c, "option \"activations\": %s: expected %d functions",
	    b.s, want);
	free(b.s);
	return -1;
}

/*
 * The weights, the biases, the peephole weight and the states, in the
 * order of the steps.  The sequence forms' shapes lead with
 * numDirections, d[0] below, which the cells skip.
 */
static int
rnnshapes(struct shapectx *c, const struct rnn *r)
{
	enum dtype dt = c->in[0]->dt;
	int p = r->cell, n3 = 3 - p, n2 = 2 - p;
	int64_t g = r->gates * (int64_t)r->h;
	int64_t w[3] = { r->nd, g, r->insize }, rw[3] = { r->nd, g, r->h };
	int64_t b[2] = { r->nd, g }, pw[2] = { r->nd, 3 * (int64_t)r->h };
	int64_t st[3] = { r->nd, r->batch, r->h };

	if (exact(c, "input \"weight\"", c->in[1], dt, n3, w + p) ||
	    exact(c, "input \"recurrentWeight\"", c->in[2], dt, n3, rw + p) ||
	    (p && exact(c, "input \"hiddenState\"", c->in[3], dt, 2, st + 1)) ||
	    (p && r->gates == 4 &&
	    exact(c, "input \"cellState\"", c->in[4], dt, 2, st + 1)))
		return -1;
	if (!validdim(2 * g))
		return shape_err(c, "option \"hiddenSize\": %u: %lld, the "
		    "size of both biases together, is not a valid dimension",
		    r->h, (long long)(2 * g));
	if (optexact(c, "bias", dt, n2, b + p) ||
	    optexact(c, "recurrentBias", dt, n2, b + p) ||
	    (r->gates == 4 && optexact(c, "peepholeWeight", dt, n2, pw + p)))
		return -1;
	if (p)
		return 0;
	if (optexact(c, "initialHiddenState", dt, 3, st) ||
	    (r->gates == 4 && optexact(c, "initialCellState", dt, 3, st)))
		return -1;
	return 0;
}

/* The output types: the last hidden state (and cell state), then with
 * returnSequence every step's hidden state. */
static int
rnnout(struct shapectx *c, const struct rnn *r, int seq)
{
	enum dtype dt = c->in[0]->dt;
	int nst = r->gates == 4 ? 2 : 1;
	int64_t d[4] = { r->steps, r->nd, r->batch, r->h };

	if (!r->cell && c->n->nout != nst + seq)
		return shape_err(c, "option \"returnSequence\": %s: %s gives "
		    "%d outputs, the node names %d", seq ? "true" : "false",
		    c->d->name, nst + seq, c->n->nout);
	if (shape_nout(c, nst + seq))
		return -1;
	for (int k = 0; k < nst; k++)
		shape_out(c, k, dt, r->cell ? 2 : 3, d + (r->cell ? 2 : 1));
	if (seq)
		shape_out(c, nst, dt, 4, d);
	return 0;
}

static int
rnn(struct shapectx *c, int gates, int cell)
{
	const struct tdesc *x = c->in[0];
	struct rnn r = { gates, cell, 1, 0, 1, 0, 0 };
	const char *dir = "forward";
	int seq = 0;

	if (!cell && opt_str(c, "direction", &dir) < 0)
		return -1;
	r.nd = strcmp(dir, "both") == 0 ? 2 : 1;
	if (rnninputs(c, &r) || opt_u32(c, "hiddenSize", &r.h) < 0 ||
	    (!cell && (opt_u32(c, "steps", &r.steps) < 0 ||
	    opt_bool(c, "returnSequence", &seq) < 0)))
		return -1;
	if (!cell && r.steps == 0)
		return shape_err(c, "option \"steps\": 0, it must be positive");
	if (!cell && x->dims[0] != r.steps)
		return shape_err(c, "input has %lld steps, option \"steps\" "
		    "says %u", (long long)x->dims[0], r.steps);
	r.batch = x->dims[cell ? 0 : 1];
	r.insize = x->dims[cell ? 1 : 2];
	if (rnnshapes(c, &r) || rnnacts(c, gates == 4 ? 3 : 2))
		return -1;
	return rnnout(c, &r, seq);
}

int
shape_gru(struct shapectx *c)
{
	return rnn(c, 3, 0);
}

int
shape_gru_cell(struct shapectx *c)
{
	return rnn(c, 3, 1);
}

int
shape_lstm(struct shapectx *c)
{
	return rnn(c, 4, 0);
}

int
shape_lstm_cell(struct shapectx *c)
{
	return rnn(c, 4, 1);
}

/*
 * nnl's nonMaxSuppression: boxes [B, N, 4], scores [B, C, N], both
 * float32 (or both float16).  Its selection's size depends on the
 * values: output 0 is [bound, 3] int64 with bound B C min(max, N), the
 * rows past the count -1; output 1 its actual shape, int64 [2].
 */
int
shape_nms(struct shapectx *c)
{
	const struct tdesc *b = c->in[0], *s = c->in[1];
	uint32_t max = 0;
	int cpb = 0;
	double iou = 0, st = 0;
	int64_t d[2], bound;

	if (shape_nout(c, 2) ||
	    opt_u32(c, "maxOutputBoxesPerClass", &max) < 0 ||
	    opt_f64(c, "iouThreshold", &iou) < 0 ||
	    opt_f64(c, "scoreThreshold", &st) < 0 ||
	    opt_bool(c, "centerPointBox", &cpb) < 0 ||
	    shape_want_dtype(c, "input \"boxes\"", b, DTS_FLOAT))
		return -1;
	if (b->rank != 3 || b->dims[2] != 4)
		return shape_err(c, "input \"boxes\" %s is not [batches, "
		    "boxes, 4]", shape_str(b));
	if (s->dt != b->dt)
		return shape_err(c, "input \"scores\" is %s, \"boxes\" %s",
		    dtype_name(s->dt), dtype_name(b->dt));
	if (s->rank != 3 || s->dims[0] != b->dims[0] ||
	    s->dims[2] != b->dims[1])
		return shape_err(c, "input \"scores\" %s is not [%lld, "
		    "classes, %lld] for boxes %s", shape_str(s),
		    (long long)b->dims[0], (long long)b->dims[1],
		    shape_str(b));
	if (checked_mul_i64(b->dims[0], s->dims[1], &bound) ||
	    checked_mul_i64(bound, max < b->dims[1] ? (int64_t)max :
	    b->dims[1], &bound) || bound > INT32_MAX)
		return shape_err(c, "the selection's bound (batches x "
		    "classes x boxes) is too large");
	d[0] = bound;
	d[1] = 3;
	shape_out(c, 0, DT_INT64, 2, d);
	d[0] = 2;
	shape_out(c, 1, DT_INT64, 1, d);
	return 0;
}

/* nnl's gridSample: input [N, C, H, W] sampled at grid [N, Ho, Wo, 2]
 * (x, y in [-1, 1]), both float32 or both float16: [N, C, Ho, Wo]. */
int
shape_grid_sample(struct shapectx *c)
{
	const struct tdesc *x = c->in[0], *g = c->in[1];
	const char *mode, *pad;
	int ac = 0;
	int64_t d[4];

	if (opt_str(c, "mode", &mode) < 0 ||
	    opt_str(c, "paddingMode", &pad) < 0 ||
	    opt_bool(c, "alignCorners", &ac) < 0 ||
	    shape_want_dtype(c, "input \"input\"", x, DTS_FLOAT))
		return -1;
	if (x->rank != 4)
		return shape_err(c, "input \"input\" %s is not [N, C, H, W]",
		    shape_str(x));
	if (g->dt != x->dt)
		return shape_err(c, "input \"grid\" is %s, \"input\" %s",
		    dtype_name(g->dt), dtype_name(x->dt));
	if (g->rank != 4 || g->dims[0] != x->dims[0] || g->dims[3] != 2)
		return shape_err(c, "input \"grid\" %s is not [%lld, Ho, Wo, "
		    "2]", shape_str(g), (long long)x->dims[0]);
	d[0] = x->dims[0];
	d[1] = x->dims[1];
	d[2] = g->dims[1];
	d[3] = g->dims[2];
	shape_out(c, 0, x->dt, 4, d);
	return 0;
}

/* nnl's roiAlign: input [N, C, H, W], rois [R, 4] (x1, y1, x2, y2) of
 * its type, batchIndices [R] (int32 or int64): [R, C, oh, ow]. */
int
shape_roi_align(struct shapectx *c)
{
	static const enum dtype IDX[] = { DT_INT32, DT_INT64, DT_NONE };
	const struct tdesc *x = c->in[0], *r = c->in[1], *bi = c->in[2];
	uint32_t oh = 1, ow = 1, sr = 0;
	double scale = 1;
	const char *mode, *ctm;
	int64_t d[4];

	if (opt_u32(c, "outputHeight", &oh) < 0 ||
	    opt_u32(c, "outputWidth", &ow) < 0 ||
	    opt_u32(c, "samplingRatio", &sr) < 0 ||
	    opt_f64(c, "spatialScale", &scale) < 0 ||
	    opt_str(c, "mode", &mode) < 0 ||
	    opt_str(c, "coordinateTransformationMode", &ctm) < 0 ||
	    shape_want_dtype(c, "input \"input\"", x, DTS_FLOAT) ||
	    shape_want_dtype(c, "input \"batchIndices\"", bi, IDX))
		return -1;
	if (x->rank != 4)
		return shape_err(c, "input \"input\" %s is not [N, C, H, W]",
		    shape_str(x));
	if (r->dt != x->dt || r->rank != 2 || r->dims[1] != 4)
		return shape_err(c, "input \"rois\" %s %s is not [R, 4] %s",
		    dtype_name(r->dt), shape_str(r), dtype_name(x->dt));
	if (bi->rank != 1 || bi->dims[0] != r->dims[0])
		return shape_err(c, "input \"batchIndices\" %s is not [%lld]",
		    shape_str(bi), (long long)r->dims[0]);
	if (oh == 0 || ow == 0)
		return shape_err(c, "an empty output (%u x %u)", oh, ow);
	d[0] = r->dims[0];
	d[1] = x->dims[1];
	d[2] = oh;
	d[3] = ow;
	shape_out(c, 0, x->dt, 4, d);
	return 0;
}

/* nnl's maxPool2dIndices: input [N, C, H, W] (nchw), maxPool2d's window
 * options and rules: int64 [N, C, oh, ow].  Every window must hold an
 * input element, or it has no index to give. */
int
shape_max_pool2d_indices(struct shapectx *c)
{
	const struct tdesc *x = c->in[0];
	const char *so, *round = "floor";
	uint32_t win[2], pad[4], st[2], dl[2], os[2];
	int hasos = 0;
	int64_t hw[2], o[2], d[4];

	if (shape_want_dtype(c, "input \"input\"", x, DTS_ALL) ||
	    want4(c, "input \"input\"", x) ||
	    opt_str(c, "storageOrder", &so) < 0 ||
	    opt_str(c, "outputShapeRounding", &round) < 0)
		return -1;
	hw[0] = x->dims[2];
	hw[1] = x->dims[3];
	if (poolopts(c, win, hw, pad, st, dl, os, &hasos) ||
	    poolsizes(c, o, hw, win, pad, st, dl, os, hasos,
	    strcmp(round, "ceil") == 0))
		return -1;
	for (int i = 0; i < 2; i++)
		for (int64_t p = 0; p < o[i]; p++) {
			int64_t j = 0, s = p * st[i] - pad[2 * i];

			while (j < win[i] && (s + j * dl[i] < 0 ||
			    s + j * dl[i] >= hw[i]))
				j++;
			if (j == win[i])
				return shape_err(c, "window %lld of dimension "
				    "%d holds only padding", (long long)p,
				    2 + i);
		}
	d[0] = x->dims[0];
	d[1] = x->dims[1];
	d[2] = o[0];
	d[3] = o[1];
	shape_out(c, 0, DT_INT64, 4, d);
	return 0;
}
