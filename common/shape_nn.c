/*
 * shape_nn: shape rules of convolutions, pools, resample2d, pad, the
 * normalizations, matmul, gemm and the recurrent networks.
 */
#include <math.h>
#include <string.h>

#include "shape.h"

enum { MAXR = SHAPE_MAXRANK * 4 };

static int
want4(struct shapectx *c, const char *what, const struct tdesc *t)
{
	return shape_want_rank(c, what, t, 4);
}

/* An option of exactly n u32 values, or the default when absent. */
static int
list(struct shapectx *c, const char *name, uint32_t *v, int n, uint32_t dflt,
    int positive)
{
	int got = 0;

	if (opt_u32s(c, name, v, n + 1, &got) < 0)
		return -1;
	if (!opt_present(c, name)) {
		for (int i = 0; i < n; i++)
			v[i] = dflt;
		return 0;
	}
	if (got != n)
		return shape_err(c, "option \"%s\": expected %d values, found "
		    "%d", name, n, got);
	for (int i = 0; i < n; i++)
		if (positive && !v[i])
			return shape_err(c, "option \"%s\": value %d is 0",
			    name, i);
	return 0;
}

/* floor((in - (k-1)*dil - 1 + pb + pe) / s) + 1, or -1 if not positive */
static int64_t
outsize(int64_t in, int64_t k, int64_t dil, int64_t pb, int64_t pe,
    int64_t s, int ceilr)
{
	int64_t span = in + pb + pe - (k - 1) * dil - 1;

	if (span < 0)
		return -1;
	return (ceilr ? (span + s - 1) / s : span / s) + 1;
}

/* Spatial indices of a layout: channels, height, width. */
static void
axes4(int nhwc, int *ch, int *h, int *w)
{
	*ch = nhwc ? 3 : 1;
	*h = nhwc ? 1 : 2;
	*w = nhwc ? 2 : 3;
}

int
shape_conv2d(struct shapectx *c)
{
	const struct tdesc *x = c->in[0], *f = c->in[1], *b;
	const char *il = "nchw", *fl = "oihw";
	uint32_t pad[4], st[2], dl[2], g = 1;
	int ch, hh, ww, fo, fi, fh, fw;
	int64_t d[4], oh, ow;

	if (shape_want_dtype(c, "input \"input\"", x, DTS_FLOAT) ||
	    want4(c, "input \"input\"", x) || want4(c, "input \"filter\"", f) ||
	    opt_str(c, "inputLayout", &il) < 0 ||
	    opt_str(c, "filterLayout", &fl) < 0 ||
	    list(c, "padding", pad, 4, 0, 0) || list(c, "strides", st, 2, 1, 1) ||
	    list(c, "dilations", dl, 2, 1, 1) || opt_u32(c, "groups", &g) < 0)
		return -1;
	if (f->dt != x->dt)
		return shape_err(c, "input \"filter\" is %s, input is %s",
		    dtype_name(f->dt), dtype_name(x->dt));
	axes4(!strcmp(il, "nhwc"), &ch, &hh, &ww);
	/* filter dims: o, i, h, w positions per layout */
	fo = !strcmp(fl, "oihw") || !strcmp(fl, "ohwi") ? 0 : 3;
	fi = !strcmp(fl, "oihw") ? 1 : !strcmp(fl, "ihwo") ? 0 :
	    !strcmp(fl, "hwio") ? 2 : 3;
	fh = !strcmp(fl, "oihw") ? 2 : !strcmp(fl, "hwio") ? 0 : 1;
	fw = fh + 1;
	if (!g || x->dims[ch] % g || f->dims[fo] % g)
		return shape_err(c, "option \"groups\": %u does not divide the "
		    "input channels %lld and output channels %lld", g,
		    (long long)x->dims[ch], (long long)f->dims[fo]);
	if (f->dims[fi] * g != x->dims[ch])
		return shape_err(c, "input \"filter\" has %lld input channels, "
		    "input has %lld in %u groups", (long long)f->dims[fi],
		    (long long)x->dims[ch], g);
	oh = outsize(x->dims[hh], f->dims[fh], dl[0], pad[0], pad[1], st[0], 0);
	ow = outsize(x->dims[ww], f->dims[fw], dl[1], pad[2], pad[3], st[1], 0);
	if (oh <= 0 || ow <= 0)
		return shape_err(c, "the %lldx%lld filter (dilated) does not fit "
		    "the padded %lldx%lld input", (long long)f->dims[fh],
		    (long long)f->dims[fw], (long long)x->dims[hh],
		    (long long)x->dims[ww]);
	if ((b = opt_operand(c, "bias")) && (b->rank != 1 ||
	    b->dims[0] != f->dims[fo] || b->dt != x->dt))
		return shape_err(c, "option \"bias\": expected %s[%lld], found "
		    "%s%s", dtype_name(x->dt), (long long)f->dims[fo],
		    dtype_name(b->dt), shape_str(b));
	d[0] = x->dims[0];
	d[ch] = f->dims[fo];
	d[hh] = oh;
	d[ww] = ow;
	shape_out(c, 0, x->dt, 4, d);
	return 0;
}

int
shape_conv_transpose2d(struct shapectx *c)
{
	const struct tdesc *x = c->in[0], *f = c->in[1], *b;
	const char *il = "nchw", *fl = "iohw";
	uint32_t pad[4], st[2], dl[2], op[2], os[2], g = 1;
	int ch, hh, ww, fi, fo, fh, fw, nos = 0;
	int64_t d[4], oc, sz[2];

	if (shape_want_dtype(c, "input \"input\"", x, DTS_FLOAT) ||
	    want4(c, "input \"input\"", x) || want4(c, "input \"filter\"", f) ||
	    opt_str(c, "inputLayout", &il) < 0 ||
	    opt_str(c, "filterLayout", &fl) < 0 ||
	    list(c, "padding", pad, 4, 0, 0) || list(c, "strides", st, 2, 1, 1) ||
	    list(c, "dilations", dl, 2, 1, 1) ||
	    list(c, "outputPadding", op, 2, 0, 0) ||
	    opt_u32s(c, "outputSizes", os, 3, &nos) < 0 ||
	    opt_u32(c, "groups", &g) < 0)
		return -1;
	axes4(!strcmp(il, "nhwc"), &ch, &hh, &ww);
	fi = !strcmp(fl, "iohw") ? 0 : 3;
	fo = !strcmp(fl, "iohw") ? 1 : !strcmp(fl, "hwoi") ? 2 : 0;
	fh = !strcmp(fl, "iohw") ? 2 : !strcmp(fl, "hwoi") ? 0 : 1;
	fw = fh + 1;
	if (!g || x->dims[ch] % g)
		return shape_err(c, "option \"groups\": %u does not divide the "
		    "input channels %lld", g, (long long)x->dims[ch]);
	if (f->dims[fi] != x->dims[ch])
		return shape_err(c, "input \"filter\" has %lld input channels, "
		    "input has %lld", (long long)f->dims[fi],
		    (long long)x->dims[ch]);
	for (int i = 0; i < 2; i++)
		if (op[i] >= st[i] && op[i] >= dl[i])
			return shape_err(c, "option \"outputPadding\": %u must "
			    "be below the stride or the dilation", op[i]);
	oc = f->dims[fo] * g;
	for (int i = 0; i < 2; i++) {
		int64_t in = x->dims[i ? ww : hh], k = f->dims[i ? fw : fh];

		sz[i] = (in - 1) * st[i] + (k - 1) * dl[i] + 1 -
		    pad[2 * i] - pad[2 * i + 1] + op[i];
	}
	if (nos) {
		if (nos != 2)
			return shape_err(c, "option \"outputSizes\": expected 2 "
			    "values, found %d", nos);
		for (int i = 0; i < 2; i++) {
			int64_t base = sz[i] - op[i];

			if (os[i] < base || os[i] >= base + st[i])
				return shape_err(c, "option \"outputSizes\": "
				    "%u is not reachable (from %lld to %lld)",
				    os[i], (long long)base,
				    (long long)(base + st[i] - 1));
			sz[i] = os[i];
		}
	}
	if (sz[0] <= 0 || sz[1] <= 0)
		return shape_err(c, "the padding leaves no output");
	if ((b = opt_operand(c, "bias")) && (b->rank != 1 || b->dims[0] != oc))
		return shape_err(c, "option \"bias\": expected [%lld], found %s",
		    (long long)oc, shape_str(b));
	d[0] = x->dims[0];
	d[ch] = oc;
	d[hh] = sz[0];
	d[ww] = sz[1];
	shape_out(c, 0, x->dt, 4, d);
	return 0;
}

int
shape_pool2d(struct shapectx *c)
{
	const struct tdesc *x = c->in[0];
	const char *layout = "nchw", *round = "floor";
	uint32_t win[2], pad[4], st[2], dl[2], os[2];
	int ch, hh, ww, nos = 0;
	int64_t d[4], o[2];
	static const enum dtype MAXT[] = { DT_FLOAT32, DT_FLOAT16, DT_INT32,
	    DT_UINT32, DT_INT64, DT_UINT64, DT_INT8, DT_UINT8, DT_NONE };

	if (shape_want_dtype(c, "input \"input\"", x,
	    c->n->op == OP_MAX_POOL2D ? MAXT : DTS_FLOAT) ||
	    want4(c, "input \"input\"", x) ||
	    opt_str(c, "layout", &layout) < 0 ||
	    opt_str(c, "outputShapeRounding", &round) < 0 ||
	    list(c, "padding", pad, 4, 0, 0) || list(c, "strides", st, 2, 1, 1) ||
	    list(c, "dilations", dl, 2, 1, 1) ||
	    opt_u32s(c, "outputSizes", os, 3, &nos) < 0)
		return -1;
	axes4(!strcmp(layout, "nhwc"), &ch, &hh, &ww);
	if (list(c, "windowDimensions", win, 2, 0, 1))
		return -1;
	if (!opt_present(c, "windowDimensions")) {
		win[0] = (uint32_t)x->dims[hh];
		win[1] = (uint32_t)x->dims[ww];
	}
	if (nos)
		memset(pad, 0, sizeof pad);
	for (int i = 0; i < 2; i++) {
		int64_t in = x->dims[i ? ww : hh];

		o[i] = outsize(in, win[i], dl[i], pad[2 * i], pad[2 * i + 1],
		    st[i], !strcmp(round, "ceil"));
		if (o[i] <= 0)
			return shape_err(c, "option \"windowDimensions\": the "
			    "window %ux%u does not fit the input %s", win[0],
			    win[1], shape_str(x));
	}
	if (nos) {
		if (nos != 2)
			return shape_err(c, "option \"outputSizes\": expected 2 "
			    "values, found %d", nos);
		for (int i = 0; i < 2; i++) {
			int64_t in = x->dims[i ? ww : hh];
			int64_t fl = outsize(in, win[i], dl[i], 0, 0, st[i], 0);
			int64_t ce = outsize(in, win[i], dl[i], 0, 0, st[i], 1);

			if (os[i] != fl && os[i] != ce)
				return shape_err(c, "option \"outputSizes\": %u "
				    "is neither %lld nor %lld", os[i],
				    (long long)fl, (long long)ce);
			o[i] = os[i];
		}
	}
	d[0] = x->dims[0];
	d[ch] = x->dims[ch];
	d[hh] = o[0];
	d[ww] = o[1];
	shape_out(c, 0, x->dt, 4, d);
	return 0;
}

int
shape_resample2d(struct shapectx *c)
{
	const struct tdesc *x = c->in[0];
	uint32_t axes[2] = { 2, 3 }, sizes[3];
	double scales[3] = { 1, 1, 1 };
	int na = 0, ns = 0, nz = 0;
	int64_t d[4];

	if (shape_want_dtype(c, "input \"input\"", x, DTS_FLOAT) ||
	    want4(c, "input \"input\"", x) ||
	    opt_u32s(c, "axes", axes, 3, &na) < 0 ||
	    opt_f64s(c, "scales", scales, 3, &ns) < 0 ||
	    opt_u32s(c, "sizes", sizes, 3, &nz) < 0)
		return -1;
	if (opt_present(c, "axes") && na != 2)
		return shape_err(c, "option \"axes\": expected 2 values");
	if (axes[0] > 3 || axes[1] > 3 || axes[0] == axes[1])
		return shape_err(c, "option \"axes\": [%u, %u] are not two "
		    "distinct axes of a 4-D input", axes[0], axes[1]);
	if (opt_present(c, "scales") && ns != 2)
		return shape_err(c, "option \"scales\": expected 2 values");
	if (opt_present(c, "sizes") && nz != 2)
		return shape_err(c, "option \"sizes\": expected 2 values");
	memcpy(d, x->dims, sizeof d);
	for (int i = 0; i < 2; i++) {
		if (nz) {
			if (!sizes[i])
				return shape_err(c, "option \"sizes\": value %d "
				    "is 0", i);
			d[axes[i]] = sizes[i];
		} else {
			double v = floor((double)x->dims[axes[i]] * scales[i]);

			if (!(scales[i] > 0) || v < 1 || v > 4294967295.0)
				return shape_err(c, "option \"scales\": %g "
				    "gives no valid size", scales[i]);
			d[axes[i]] = (int64_t)v;
		}
	}
	shape_out(c, 0, x->dt, 4, d);
	return 0;
}

int
shape_pad(struct shapectx *c)
{
	const struct tdesc *x = c->in[0];
	uint32_t b[MAXR], e[MAXR];
	int nb = 0, ne = 0;
	const char *mode = "constant";
	int64_t d[MAXR];

	if (opt_u32s(c, "beginningPadding", b, MAXR, &nb) < 0 ||
	    opt_u32s(c, "endingPadding", e, MAXR, &ne) < 0 ||
	    opt_str(c, "mode", &mode) < 0)
		return -1;
	if (nb != x->rank || ne != x->rank)
		return shape_err(c, "options \"beginningPadding\" and "
		    "\"endingPadding\" need %d values each, found %d and %d",
		    x->rank, nb, ne);
	for (int i = 0; i < x->rank; i++) {
		if (!strcmp(mode, "reflection") &&
		    (b[i] >= x->dims[i] || e[i] >= x->dims[i]))
			return shape_err(c, "mode \"reflection\": padding of "
			    "dimension %d must be below its size %lld", i,
			    (long long)x->dims[i]);
		d[i] = x->dims[i] + b[i] + e[i];
	}
	shape_out(c, 0, x->dt, x->rank, d);
	return 0;
}

/* A rank-1 operand option of n elements and the input's type. */
static int
vec(struct shapectx *c, const char *name, int64_t n, int which)
{
	const struct tdesc *t = which < 0 ? opt_operand(c, name) :
	    c->in[which];

	if (!t)
		return 0;
	if (t->rank != 1 || t->dims[0] != n || t->dt != c->in[0]->dt)
		return shape_err(c, "%s \"%s\": expected %s[%lld], found %s%s",
		    which < 0 ? "option" : "input", name,
		    dtype_name(c->in[0]->dt), (long long)n,
		    dtype_name(t->dt), shape_str(t));
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
	if ((int)axis >= x->rank)
		return shape_err(c, "option \"axis\": %u is out of range for "
		    "rank %d", axis, x->rank);
	n = x->dims[axis];
	if (vec(c, "mean", n, 1) || vec(c, "variance", n, 2) ||
	    vec(c, "scale", n, -1) || vec(c, "bias", n, -1))
		return -1;
	shape_out(c, 0, x->dt, x->rank, x->dims);
	return 0;
}

int
shape_instance_norm(struct shapectx *c)
{
	const struct tdesc *x = c->in[0];
	const char *layout = "nchw";

	if (shape_want_dtype(c, "input \"input\"", x, DTS_FLOAT) ||
	    want4(c, "input \"input\"", x) ||
	    opt_str(c, "layout", &layout) < 0)
		return -1;
	if (vec(c, "scale", x->dims[strcmp(layout, "nhwc") ? 1 : 3], -1) ||
	    vec(c, "bias", x->dims[strcmp(layout, "nhwc") ? 1 : 3], -1))
		return -1;
	shape_out(c, 0, x->dt, 4, x->dims);
	return 0;
}

int
shape_layer_norm(struct shapectx *c)
{
	const struct tdesc *x = c->in[0], *s;
	uint32_t axes[MAXR];
	int n = 0, seen = 0;
	const char *names[2] = { "scale", "bias" };

	if (shape_want_dtype(c, "input \"input\"", x, DTS_FLOAT) ||
	    opt_u32s(c, "axes", axes, MAXR, &n) < 0)
		return -1;
	if (!opt_present(c, "axes"))
		for (n = 0; n + 1 < x->rank; n++)
			axes[n] = (uint32_t)(n + 1);
	for (int i = 0; i < n; i++) {
		if ((int)axes[i] >= x->rank || (seen >> axes[i] & 1))
			return shape_err(c, "option \"axes\": %u is out of range "
			    "or repeated", axes[i]);
		seen |= 1 << axes[i];
	}
	for (int k = 0; k < 2; k++) {
		if (!(s = opt_operand(c, names[k])))
			continue;
		if (s->rank != n || s->dt != x->dt)
			return shape_err(c, "option \"%s\": expected rank %d, "
			    "found %s", names[k], n, shape_str(s));
		for (int i = 0; i < n; i++)
			if (s->dims[i] != x->dims[axes[i]])
				return shape_err(c, "option \"%s\" %s does not "
				    "match the input at axes", names[k],
				    shape_str(s));
	}
	shape_out(c, 0, x->dt, x->rank, x->dims);
	return 0;
}

int
shape_matmul(struct shapectx *c)
{
	const struct tdesc *a = c->in[0], *b = c->in[1];
	int64_t d[MAXR], bd[MAXR];
	int r, br;
	struct tdesc ba, bb;

	if (shape_want_dtype(c, "input \"a\"", a, DTS_FLOAT))
		return -1;
	if (b->dt != a->dt)
		return shape_err(c, "input \"b\" is %s, input \"a\" is %s",
		    dtype_name(b->dt), dtype_name(a->dt));
	if (a->rank < 2 || b->rank < 2)
		return shape_err(c, "inputs \"a\" %s and \"b\" %s need rank 2 "
		    "or more", shape_str(a), shape_str(b));
	if (a->dims[a->rank - 1] != b->dims[b->rank - 2])
		return shape_err(c, "input \"a\" %s has %lld columns, input "
		    "\"b\" %s has %lld rows", shape_str(a),
		    (long long)a->dims[a->rank - 1], shape_str(b),
		    (long long)b->dims[b->rank - 2]);
	ba.rank = a->rank - 2;
	ba.dims = a->dims;
	ba.dt = a->dt;
	bb.rank = b->rank - 2;
	bb.dims = b->dims;
	bb.dt = b->dt;
	if (shape_broadcast(c, &ba, &bb, &br, bd))
		return -1;
	memcpy(d, bd, (size_t)br * sizeof *d);
	r = br;
	d[r++] = a->dims[a->rank - 2];
	d[r++] = b->dims[b->rank - 1];
	shape_out(c, 0, a->dt, r, d);
	return 0;
}

int
shape_gemm(struct shapectx *c)
{
	const struct tdesc *a = c->in[0], *b = c->in[1], *cc;
	int ta = 0, tb = 0;
	int64_t d[2], k1, k2;
	struct tdesc o;

	if (shape_want_dtype(c, "input \"a\"", a, DTS_FLOAT) ||
	    shape_want_rank(c, "input \"a\"", a, 2) ||
	    shape_want_rank(c, "input \"b\"", b, 2) ||
	    opt_bool(c, "aTranspose", &ta) < 0 ||
	    opt_bool(c, "bTranspose", &tb) < 0)
		return -1;
	if (b->dt != a->dt)
		return shape_err(c, "input \"b\" is %s, input \"a\" is %s",
		    dtype_name(b->dt), dtype_name(a->dt));
	d[0] = a->dims[ta ? 1 : 0];
	k1 = a->dims[ta ? 0 : 1];
	k2 = b->dims[tb ? 1 : 0];
	d[1] = b->dims[tb ? 0 : 1];
	if (k1 != k2)
		return shape_err(c, "inner dimensions differ: %lld (a) and %lld "
		    "(b)", (long long)k1, (long long)k2);
	o.dt = a->dt;
	o.rank = 2;
	o.dims = d;
	if ((cc = opt_operand(c, "c")) && (!shape_unibroadcastable(cc, &o) ||
	    cc->dt != a->dt))
		return shape_err(c, "option \"c\" %s does not broadcast to the "
		    "output [%lld, %lld]", shape_str(cc), (long long)d[0],
		    (long long)d[1]);
	shape_out(c, 0, a->dt, 2, d);
	return 0;
}

/* Recurrent networks. */
static int
ndirections(struct shapectx *c)
{
	const char *dir = "forward";

	if (opt_str(c, "direction", &dir) < 0)
		return -1;
	return !strcmp(dir, "both") ? 2 : 1;
}

static int
wantshape(struct shapectx *c, const char *what, const struct tdesc *t,
    int r, const int64_t *dims)
{
	struct tdesc w = { c->in[0]->dt, r, (int64_t *)dims };

	if (!t)
		return 0;
	if (t->rank != r || t->dt != c->in[0]->dt)
		goto bad;
	for (int i = 0; i < r; i++)
		if (t->dims[i] != dims[i])
			goto bad;
	return 0;
bad:
	{
		char s[256];

		snprintf(s, sizeof s, "%s", shape_str(&w));
		return shape_err(c, "%s: expected %s%s, found %s%s", what,
		    dtype_name(c->in[0]->dt), s, dtype_name(t->dt),
		    shape_str(t));
	}
}

static int
rnn(struct shapectx *c, int gates, int cell)
{
	const struct tdesc *x = c->in[0];
	uint32_t steps = 1, h = 0;
	int seq = 0, nd = cell ? 1 : ndirections(c);
	int64_t B, I, d3[3], d4[4];

	if (shape_want_dtype(c, "input \"input\"", x, DTS_FLOAT) ||
	    nd < 0 || opt_u32(c, "hiddenSize", &h) < 0 ||
	    (!cell && opt_u32(c, "steps", &steps) < 0) ||
	    (!cell && opt_bool(c, "returnSequence", &seq) < 0) ||
	    shape_want_rank(c, "input \"input\"", x, cell ? 2 : 3))
		return -1;
	if (!h || !steps)
		return shape_err(c, "%s must be positive",
		    h ? "steps" : "hiddenSize");
	if (!cell && x->dims[0] != steps)
		return shape_err(c, "input has %lld steps, option \"steps\" "
		    "says %u", (long long)x->dims[0], steps);
	B = x->dims[cell ? 0 : 1];
	I = x->dims[cell ? 1 : 2];
	if (cell) {
		int64_t w[2] = { gates * (int64_t)h, I };
		int64_t r[2] = { gates * (int64_t)h, h };
		int64_t bb[1] = { gates * (int64_t)h };
		int64_t hs[2] = { B, h };
		int64_t p[1] = { 3 * (int64_t)h };

		if (wantshape(c, "input \"weight\"", c->in[1], 2, w) ||
		    wantshape(c, "input \"recurrentWeight\"", c->in[2], 2, r) ||
		    wantshape(c, "input \"hiddenState\"", c->in[3], 2, hs) ||
		    (gates == 4 && wantshape(c, "input \"cellState\"",
		    c->in[4], 2, hs)) ||
		    wantshape(c, "option \"bias\"", opt_operand(c, "bias"), 1,
		    bb) || wantshape(c, "option \"recurrentBias\"",
		    opt_operand(c, "recurrentBias"), 1, bb) ||
		    (gates == 4 && wantshape(c, "option \"peepholeWeight\"",
		    opt_operand(c, "peepholeWeight"), 1, p)))
			return -1;
		if (shape_nout(c, gates == 4 ? 2 : 1))
			return -1;
		for (int k = 0; k < (gates == 4 ? 2 : 1); k++)
			shape_out(c, k, x->dt, 2, hs);
		return 0;
	}
	{
		int64_t w[3] = { nd, gates * (int64_t)h, I };
		int64_t r[3] = { nd, gates * (int64_t)h, h };
		int64_t bb[2] = { nd, gates * (int64_t)h };
		int64_t p[2] = { nd, 3 * (int64_t)h };

		d3[0] = nd;
		d3[1] = B;
		d3[2] = h;
		if (wantshape(c, "input \"weight\"", c->in[1], 3, w) ||
		    wantshape(c, "input \"recurrentWeight\"", c->in[2], 3, r) ||
		    wantshape(c, "option \"bias\"", opt_operand(c, "bias"), 2,
		    bb) || wantshape(c, "option \"recurrentBias\"",
		    opt_operand(c, "recurrentBias"), 2, bb) ||
		    wantshape(c, "option \"initialHiddenState\"",
		    opt_operand(c, "initialHiddenState"), 3, d3) ||
		    (gates == 4 && (wantshape(c, "option \"peepholeWeight\"",
		    opt_operand(c, "peepholeWeight"), 2, p) ||
		    wantshape(c, "option \"initialCellState\"",
		    opt_operand(c, "initialCellState"), 3, d3))))
			return -1;
	}
	if (shape_nout(c, (gates == 4 ? 2 : 1) + seq))
		return -1;
	shape_out(c, 0, x->dt, 3, d3);
	if (gates == 4)
		shape_out(c, 1, x->dt, 3, d3);
	if (seq) {
		d4[0] = steps;
		d4[1] = nd;
		d4[2] = B;
		d4[3] = h;
		shape_out(c, gates == 4 ? 2 : 1, x->dt, 4, d4);
	}
	return 0;
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
