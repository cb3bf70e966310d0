/*
 * shape_nd: the shape rules of nnl's 3-D convolutions and pools
 * (ops_nnl.def: conv3d, convTranspose3d, averagePool3d, lpPool3d,
 * maxPool3d), beyond WebNN.  Their input is [N, C, D, H, W], their
 * filters [O, C / groups, kD, kH, kW] (conv3d) and [C, O / groups, kD,
 * kH, kW] (convTranspose3d), their padding the 6 values [beginD, endD,
 * beginH, endH, beginW, endW]: conv2d's and the pools' rules with a
 * third spatial dimension in front, checked in the same order.
 */
#include <stdio.h>
#include <string.h>

#include "shape_rule.h"

enum { NSP = 3 };
#define MAXDIM INT64_C(2147483647)

/* padding, strides and dilations of the three spatial dimensions */
static int
window(struct shapectx *c, uint32_t *pad, uint32_t *st, uint32_t *dl)
{
	if (shape_fixed(c, "padding", pad, 2 * NSP, 0, 0) < 0 ||
	    shape_fixed(c, "strides", st, NSP, 1, 1) < 0 ||
	    shape_fixed(c, "dilations", dl, NSP, 1, 1) < 0)
		return -1;
	return 0;
}

static int
want5(struct shapectx *c, const char *what, const struct tdesc *t)
{
	return shape_want_rank(c, what, t, 5);
}

static int
samedt(struct shapectx *c, const struct tdesc *f, const struct tdesc *x)
{
	if (f->dt == x->dt)
		return 0;
	return shape_err(c, "input \"filter\": data type %s is not that of "
	    "input \"input\" (%s)", dtype_name(f->dt), dtype_name(x->dt));
}

/* groups (positive, dividing the input channels) and the bias, [oc] of
 * the input's type, when given */
static int
groupsbias(struct shapectx *c, const struct tdesc *x, int64_t oc,
    uint32_t *g)
{
	const struct tdesc *b;

	*g = 1;
	if (opt_u32(c, "groups", g) < 0)
		return -1;
	if (*g == 0)
		return shape_err(c, "option \"groups\": 0, it must be "
		    "positive");
	if (x->dims[1] % *g)
		return shape_err(c, "option \"groups\": %u does not divide "
		    "the %lld input channels", *g, (long long)x->dims[1]);
	if (oc % *g)
		return shape_err(c, "option \"groups\": %u does not divide "
		    "the %lld output channels", *g, (long long)oc);
	b = opt_operand(c, "bias");
	if (b && (b->dt != x->dt || b->rank != 1 || b->dims[0] != oc))
		return shape_err(c, "option \"bias\": expected %s[%lld], "
		    "found %s%s", dtype_name(x->dt), (long long)oc,
		    dtype_name(b->dt), shape_str(b));
	return 0;
}

/* (in + pb + pe - ((k - 1) * dil + 1)) / s + 1, rounded down or up */
static int64_t
outsize(int64_t in, int64_t k, uint32_t pb, uint32_t pe, uint32_t s,
    uint32_t dil, int up)
{
	int64_t num = in + pb + pe - (shape_mulsat(k - 1, dil) + 1);

	if (num < 0)
		return 0;
	return (num + (up ? s - 1 : 0)) / s + 1;
}

static int
setout(struct shapectx *c, const struct tdesc *x, int64_t oc,
    const int64_t *sz)
{
	int64_t d[5] = { x->dims[0], oc, sz[0], sz[1], sz[2] };

	for (int i = 0; i < NSP; i++)
		if (sz[i] <= 0 || sz[i] > MAXDIM)
			return shape_err(c, "spatial dimension %d: the output "
			    "size %lld is not a valid dimension (input %lld)",
			    i, (long long)sz[i], (long long)x->dims[2 + i]);
	shape_out(c, 0, x->dt, 5, d);
	return 0;
}

int
shape_conv3d(struct shapectx *c)
{
	const struct tdesc *x = c->in[0], *f = c->in[1];
	uint32_t pad[2 * NSP], st[NSP], dl[NSP], g;
	int64_t sz[NSP];

	if (shape_want_dtype(c, "input \"input\"", x, DTS_FLOAT) ||
	    want5(c, "input \"input\"", x) ||
	    want5(c, "input \"filter\"", f) || samedt(c, f, x) ||
	    window(c, pad, st, dl) || groupsbias(c, x, f->dims[0], &g))
		return -1;
	if (x->dims[1] / g != f->dims[1])
		return shape_err(c, "input \"filter\" has %lld input channels, "
		    "input has %lld in %u group%s", (long long)f->dims[1],
		    (long long)x->dims[1], g, g == 1 ? "" : "s");
	for (int i = 0; i < NSP; i++)
		sz[i] = outsize(x->dims[2 + i], f->dims[2 + i], pad[2 * i],
		    pad[2 * i + 1], st[i], dl[i], 0);
	return setout(c, x, f->dims[0], sz);
}

int
shape_conv_transpose3d(struct shapectx *c)
{
	const struct tdesc *x = c->in[0], *f = c->in[1];
	uint32_t pad[2 * NSP], st[NSP], dl[NSP], op[NSP], g = 1;
	int64_t sz[NSP], oc;

	if (shape_want_dtype(c, "input \"input\"", x, DTS_FLOAT) ||
	    want5(c, "input \"input\"", x) ||
	    want5(c, "input \"filter\"", f) || samedt(c, f, x) ||
	    window(c, pad, st, dl) ||
	    shape_fixed(c, "outputPadding", op, NSP, 0, 0) < 0 ||
	    opt_u32(c, "groups", &g) < 0)
		return -1;
	if (x->dims[1] != f->dims[0])
		return shape_err(c, "input \"filter\" has %lld input channels, "
		    "input has %lld", (long long)f->dims[0],
		    (long long)x->dims[1]);
	oc = shape_mulsat(f->dims[1], g ? g : 1);
	if (oc > MAXDIM)
		return shape_err(c, "option \"groups\": %u groups of %lld "
		    "output channels are not a valid dimension", g,
		    (long long)f->dims[1]);
	if (groupsbias(c, x, oc, &g))
		return -1;
	for (int i = 0; i < NSP; i++) {
		if (op[i] >= st[i])
			return shape_err(c, "option \"outputPadding\": %u must "
			    "be below the stride %u of dimension %d", op[i],
			    st[i], i);
		sz[i] = shape_mulsat(x->dims[2 + i] - 1, st[i]) +
		    shape_mulsat(f->dims[2 + i] - 1, dl[i]) + 1 - pad[2 * i] -
		    pad[2 * i + 1] + op[i];
	}
	return setout(c, x, oc, sz);
}

/*
 * averagePool3d, lpPool3d, maxPool3d.  With outputShapeRounding "ceil"
 * a last window that would start past the input and its beginning
 * padding is dropped, as ONNX and PyTorch do.  The padding is ignored
 * (not counted unless countIncludePad).
 */
int
shape_pool3d(struct shapectx *c)
{
	const struct tdesc *x = c->in[0];
	uint32_t win[NSP], pad[2 * NSP], st[NSP], dl[NSP], p = 2;
	const char *round = "floor";
	int64_t sz[NSP];
	int up, r;

	if (shape_want_dtype(c, "input \"input\"", x, DTS_FLOAT) ||
	    want5(c, "input \"input\"", x) ||
	    (r = shape_fixed(c, "windowDimensions", win, NSP, 0, 1)) < 0 ||
	    window(c, pad, st, dl) ||
	    opt_str(c, "outputShapeRounding", &round) < 0 ||
	    (c->n->op == OP_LP_POOL3D && opt_u32(c, "p", &p) < 0))
		return -1;
	if (p == 0)
		return shape_err(c, "option \"p\": 0, it must be positive");
	for (int i = 0; r == 0 && i < NSP; i++)
		win[i] = (uint32_t)x->dims[2 + i];
	up = strcmp(round, "ceil") == 0;
	for (int i = 0; i < NSP; i++) {
		sz[i] = outsize(x->dims[2 + i], win[i], pad[2 * i],
		    pad[2 * i + 1], st[i], dl[i], up);
		if (up && sz[i] > 1 && (sz[i] - 1) * st[i] >= x->dims[2 + i] +
		    pad[2 * i])
			sz[i]--;
	}
	return setout(c, x, x->dims[1], sz);
}
