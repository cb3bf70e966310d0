/*
 * nnl_lower: one NNL layer as WebNN operations.  Activations are HWC
 * with a leading batch dimension; each layer becomes a few nodes whose
 * last output is named after the layer, its other operands
 * "<layer>__<what>", and every node carries "layer" and "layerType" so
 * tools can group them.  The shapes follow examples/reference.py; the
 * layer's output shape (without the batch) is left in l->shape.
 */
#include <stdlib.h>
#include <string.h>

#include "checked.h"
#include "nnl_ast.h"
#include "escape.h"

static struct node *
addnode(struct nlower *w, struct nlayer *l, const char *id, const char *op,
    const char *a, const char *b)
{
	struct node *n = graph_add_node(w->g, id, op);

	if (a)
		node_add_input(n, a);
	if (b)
		node_add_input(n, b);
	node_add_output(n, id);
	n->pos = l->pos;
	n->extra = cJSON_CreateObject();
	cJSON_AddStringToObject(n->extra, "layer", l->id);
	cJSON_AddStringToObject(n->extra, "layerType", l->type);
	return n;
}

/* The name of an operand internal to layer l. */
static char *
opname(const struct nlayer *l, const char *what)
{
	return xasprintf("%s__%s", l->id, what);
}

static cJSON *
ints(const int64_t *v, int n)
{
	cJSON *a = cJSON_CreateArray();

	for (int i = 0; i < n; i++)
		cJSON_AddItemToArray(a, cJSON_CreateNumber((double)v[i]));
	return a;
}

static char *
scalar(struct nlower *w, struct nlayer *l, const char *what, double v)
{
	char *name = opname(l, what);
	struct operand *c = graph_add_const(w->g, name, DT_FLOAT32, 0, NULL);

	c->init = INIT_SCALAR;
	c->value = v;
	c->pos = l->pos;
	return name;
}

/* A float32 constant held in the graph (inlineBytes). */
static char *
tensor(struct nlower *w, struct nlayer *l, const char *what, const float *v,
    const int64_t *dims, int rank)
{
	char *name = opname(l, what);
	struct operand *c = graph_add_const(w->g, name, DT_FLOAT32, rank, dims);
	int64_t n = 1;

	for (int i = 0; i < rank; i++)
		n *= dims[i];
	c->init = INIT_BYTES;
	c->nbytes = (size_t)n * sizeof *v;
	c->bytes = xmalloc(c->nbytes + 1);
	memcpy(c->bytes, v, c->nbytes);
	c->pos = l->pos;
	return name;
}

/* Reshape x to the per-sample shape s (rank r) under the batch. */
static void
reshape(struct nlower *w, struct nlayer *l, const char *x, const char *id,
    const int64_t *s, int r)
{
	int64_t d[9];
	struct node *n;

	d[0] = w->batch;
	memcpy(d + 1, s, (size_t)r * sizeof *d);
	n = addnode(w, l, id, "reshape", x, NULL);
	cJSON_AddItemToObject(n->options, "newShape", ints(d, r + 1));
}

static int64_t
prod(const int64_t *s, int r)
{
	int64_t p = 1;

	for (int i = 0; i < r; i++)
		p *= s[i];
	return p;
}

static void
keep(struct nlayer *l, const struct nlayer *in)
{
	l->rank = in->rank;
	memcpy(l->shape, in->shape, sizeof l->shape);
}

static int
wantrank(struct nlower *w, struct nlayer *l, const struct nlayer *in, int r)
{
	char *s;

	if (in->rank == r)
		return 0;
	s = nnl_shapestr(in->shape, in->rank);
	nnl_err(w->m, l->typepos, "E002: %s needs an input of rank %d (%s), "
	    "'%s' gives %s", l->type, r, r == 3 ? "height, width, channels" :
	    "length, channels", escape_tty_name(in->id), s);
	free(s);
	return -1;
}

/* Output size of a window along one axis; 0 when it does not fit. */
static int64_t
outlen(int64_t in, int64_t k, int64_t s, int64_t pb, int64_t pe)
{
	return in + pb + pe < k ? 0 : (in + pb + pe - k) / s + 1;
}

static int
lower_dense(struct nlower *w, struct nlayer *l, const struct nlayer *in,
    const char *x)
{
	int64_t units = (int64_t)nnl_pnum(l, "units", 0);
	int64_t idim = prod(in->shape, in->rank), want[2], bs[1];
	const char *act = nnl_pstr(l, "activation", "none");
	char *src = in->rank == 1 ? xstrdup(x) : opname(l, "flat");
	char *wn, *bn, *mm;
	struct node *n;

	if (strcmp(act, "none") && strcmp(act, "relu") &&
	    strcmp(act, "sigmoid") && strcmp(act, "softmax")) {
		nnl_err(w->m, nnl_param(l, "activation")->v.pos, "activation "
		    "\"%s\": expected \"none\", \"relu\", \"sigmoid\" or "
		    "\"softmax\"", act);
		free(src);
		return -1;
	}
	if (units <= 0) {
		nnl_err(w->m, nnl_param(l, "units")->v.pos, "Dense: units must "
		    "be positive");
		free(src);
		return -1;
	}
	if (in->rank != 1)	/* HWC order, as the reference flattens */
		reshape(w, l, x, src, &idim, 1);
	want[0] = idim;
	want[1] = units;
	bs[0] = units;
	wn = nnl_weight(w, l, "weight", want, 2, want, 2);
	bn = nnl_weight(w, l, "bias", bs, 1, bs, 1);
	mm = strcmp(act, "none") ? opname(l, "gemm") : xstrdup(l->id);
	n = addnode(w, l, mm, "gemm", src, wn);
	cJSON_AddStringToObject(n->options, "c", bn);
	if (strcmp(act, "none")) {
		n = addnode(w, l, l->id, act, mm, NULL);
		if (!strcmp(act, "softmax"))
			cJSON_AddNumberToObject(n->options, "axis", 1);
	}
	l->rank = 1;
	l->shape[0] = units;
	free(src);
	free(wn);
	free(bn);
	free(mm);
	return 0;
}

/*
 * A convolution's padding [top, bottom, left, right] and its output's
 * height and width (*OH, *OW) for an input of H by W: from a list, or
 * "same" (the smaller half first) or "valid".
 */
static int
convpad(struct nlower *w, struct nlayer *l, int64_t H, int64_t W,
    const int64_t *k, const int64_t *st, int64_t *pad, int64_t *OH,
    int64_t *OW)
{
	const char *padding = nnl_pstr(l, "padding", "valid");

	if (nnl_param(l, "padding") &&
	    nnl_param(l, "padding")->v.k == NV_LIST) {
		/* [top, left, bottom, right], as the pools take it */
		const struct nval *pv = &nnl_param(l, "padding")->v;

		pad[0] = (int64_t)pv->items[0].num;
		pad[2] = (int64_t)pv->items[1].num;
		pad[1] = (int64_t)pv->items[2].num;
		pad[3] = (int64_t)pv->items[3].num;
		*OH = outlen(H, k[0], st[0], pad[0], pad[1]);
		*OW = outlen(W, k[1], st[1], pad[2], pad[3]);
	} else if (!strcmp(padding, "same")) {	/* the smaller half first */
		int64_t th, tw;

		*OH = (H + st[0] - 1) / st[0];
		*OW = (W + st[1] - 1) / st[1];
		th = (*OH - 1) * st[0] + k[0] - H;
		tw = (*OW - 1) * st[1] + k[1] - W;
		th = th < 0 ? 0 : th;
		tw = tw < 0 ? 0 : tw;
		pad[0] = th / 2;
		pad[1] = th - th / 2;
		pad[2] = tw / 2;
		pad[3] = tw - tw / 2;
	} else if (!strcmp(padding, "valid")) {
		memset(pad, 0, 4 * sizeof *pad);
		*OH = outlen(H, k[0], st[0], 0, 0);
		*OW = outlen(W, k[1], st[1], 0, 0);
	} else {
		nnl_err(w->m, nnl_param(l, "padding")->v.pos, "padding \"%s\": "
		    "expected \"valid\" or \"same\"", escape_tty_name(padding));
		return -1;
	}
	return 0;
}

/* Conv2D, and Conv1D as a conv2d over a [batch, L, 1, C] view. */
static int
lower_conv(struct nlower *w, struct nlayer *l, const struct nlayer *in,
    const char *x)
{
	int oned = !strcmp(l->type, "Conv1D");
	int64_t F = (int64_t)nnl_pnum(l, "filters", 0), k[2], st[2];
	int64_t g = (int64_t)nnl_pnum(l, "groups", 1), H, W, C, OH, OW, pad[4];
	char *wn, *bn, *src, *cv;
	struct node *n;

	if (wantrank(w, l, in, oned ? 2 : 3))
		return -1;
	H = in->shape[0];
	W = oned ? 1 : in->shape[1];
	C = in->shape[oned ? 1 : 2];
	if (oned) {
		k[0] = (int64_t)nnl_pnum(l, "kernel", 1);
		st[0] = (int64_t)nnl_pnum(l, "stride", 1);
		k[1] = st[1] = 1;
	} else {
		nnl_ppair(l, "kernel", 1, k);
		nnl_ppair(l, "stride", 1, st);
	}
	if (F <= 0 || g <= 0 || C % g || F % g) {
		nnl_err(w->m, l->typepos, "%s: %lld filters and %lld input "
		    "channels do not divide into %lld group%s", l->type,
		    (long long)F, (long long)C, (long long)g, g == 1 ? "" : "s");
		return -1;
	}
	if (k[0] <= 0 || k[1] <= 0 || st[0] <= 0 || st[1] <= 0) {
		nnl_err(w->m, l->typepos, "%s: kernel and stride must be "
		    "positive", l->type);
		return -1;
	}
	if (convpad(w, l, H, W, k, st, pad, &OH, &OW) != 0)
		return -1;
	if (OH <= 0 || OW <= 0) {
		char *s = nnl_shapestr(in->shape, in->rank);
		char *ks = nnl_shapestr(k, oned ? 1 : 2);

		nnl_err(w->m, l->typepos, "%s: the kernel %s is larger than "
		    "its input %s", l->type, ks, s);
		free(s);
		free(ks);
		return -1;
	}
	{
		int64_t want[4] = { F, C / g, k[0], k[1] }, bs[1] = { F };

		/* Conv1D's [F, C, k] is declared [F, C, k, 1]: same bytes */
		wn = nnl_weight(w, l, "weight", want, oned ? 3 : 4, want, 4);
		bn = nnl_weight(w, l, "bias", bs, 1, bs, 1);
	}
	src = xstrdup(x);
	if (oned) {
		int64_t v[3] = { H, 1, C };

		free(src);
		src = opname(l, "rows");
		reshape(w, l, x, src, v, 3);
	}
	cv = oned ? opname(l, "conv") : xstrdup(l->id);
	n = addnode(w, l, cv, "conv2d", src, wn);
	cJSON_AddItemToObject(n->options, "padding", ints(pad, 4));
	cJSON_AddItemToObject(n->options, "strides", ints(st, 2));
	if (g != 1)
		cJSON_AddNumberToObject(n->options, "groups", (double)g);
	cJSON_AddStringToObject(n->options, "inputLayout", "nhwc");
	cJSON_AddStringToObject(n->options, "filterLayout", "oihw");
	cJSON_AddStringToObject(n->options, "bias", bn);
	l->rank = oned ? 2 : 3;
	l->shape[0] = OH;
	l->shape[1] = oned ? F : OW;
	l->shape[2] = F;
	if (oned)
		reshape(w, l, cv, l->id, l->shape, 2);
	free(cv);
	free(wn);
	free(bn);
	free(src);
	return 0;
}

/*
 * The WebNN specification does not say whether averagePool2d's padded
 * cells count in the average (frameworks differ: count_include_pad),
 * and NNL's do not.  So padding is made explicit with pad, the window
 * averaged over all its cells, and each output scaled by the constant
 * window size / real cells: right whichever way a backend reads it.
 */
static void
avgpool_padded(struct nlower *w, struct nlayer *l, const char *x,
    const int64_t k[2], const int64_t st[2], const int64_t p[4],
    const int64_t in[2], const int64_t out[2])
{
	int64_t beg[4] = { 0, p[0], p[2], 0 }, end[4] = { 0, p[1], p[3], 0 };
	int64_t dims[3] = { out[0], out[1], 1 };
	char *pd = opname(l, "pad"), *mean = opname(l, "mean"), *rs;
	float *f = xmalloc((size_t)(out[0] * out[1]) * sizeof *f);
	struct node *n;

	for (int64_t i = 0; i < out[0]; i++)
		for (int64_t j = 0; j < out[1]; j++) {
			int64_t y0 = i * st[0] - p[0], x0 = j * st[1] - p[2];
			int64_t y1 = y0 + k[0], x1 = x0 + k[1];

			y0 = y0 < 0 ? 0 : y0;
			x0 = x0 < 0 ? 0 : x0;
			y1 = y1 > in[0] ? in[0] : y1;
			x1 = x1 > in[1] ? in[1] : x1;
			f[i * out[1] + j] = (float)((double)(k[0] * k[1]) /
			    (double)((y1 - y0) * (x1 - x0)));
		}
	n = addnode(w, l, pd, "pad", x, NULL);
	cJSON_AddItemToObject(n->options, "beginningPadding", ints(beg, 4));
	cJSON_AddItemToObject(n->options, "endingPadding", ints(end, 4));
	n = addnode(w, l, mean, "averagePool2d", pd, NULL);
	cJSON_AddItemToObject(n->options, "windowDimensions", ints(k, 2));
	cJSON_AddItemToObject(n->options, "strides", ints(st, 2));
	cJSON_AddStringToObject(n->options, "layout", "nhwc");
	rs = tensor(w, l, "rescale", f, dims, 3);
	addnode(w, l, l->id, "mul", mean, rs);
	free(f);
	free(pd);
	free(mean);
	free(rs);
}

/* MaxPool2D, AvgPool2D, and MaxPool1D over a [batch, L, 1, C] view. */
static int
lower_pool(struct nlower *w, struct nlayer *l, const struct nlayer *in,
    const char *x)
{
	int oned = !strcmp(l->type, "MaxPool1D"), avg = l->type[0] == 'A';
	int64_t k[2], st[2], p[4] = { 0, 0, 0, 0 }, H, W, C, OH, OW;
	const struct nparam *pp = nnl_param(l, "padding");
	char *src, *pn;
	struct node *n;

	if (wantrank(w, l, in, oned ? 2 : 3))
		return -1;
	if (oned) {
		k[0] = (int64_t)nnl_pnum(l, "kernel", 1);
		st[0] = (int64_t)nnl_pnum(l, "stride", (double)k[0]);
		k[1] = st[1] = 1;
	} else {
		nnl_ppair(l, "kernel", 1, k);
		nnl_ppair(l, "stride", -1, st);
		if (st[0] < 0) {	/* the stride defaults to the kernel */
			st[0] = k[0];
			st[1] = k[1];
		}
	}
	if (k[0] <= 0 || k[1] <= 0 || st[0] <= 0 || st[1] <= 0) {
		nnl_err(w->m, l->typepos, "%s: kernel and stride must be "
		    "positive", l->type);
		return -1;
	}
	if (pp) {	/* NNL [top, left, bottom, right] */
		int ok = pp->v.n == 4;

		for (int i = 0; ok && i < 4; i++)
			ok = nnl_isint(&pp->v.items[i]) &&
			    pp->v.items[i].num >= 0 &&
			    pp->v.items[i].num < (double)k[i % 2];
		if (!ok) {
			nnl_err(w->m, pp->v.pos, "padding: expected [top, left, "
			    "bottom, right], each at least 0 and less than the "
			    "kernel");
			return -1;
		}
		p[0] = (int64_t)pp->v.items[0].num;	/* WebNN's order */
		p[2] = (int64_t)pp->v.items[1].num;
		p[1] = (int64_t)pp->v.items[2].num;
		p[3] = (int64_t)pp->v.items[3].num;
	}
	H = in->shape[0];
	W = oned ? 1 : in->shape[1];
	C = in->shape[oned ? 1 : 2];
	OH = outlen(H, k[0], st[0], p[0], p[1]);
	OW = outlen(W, k[1], st[1], p[2], p[3]);
	if (OH <= 0 || OW <= 0) {
		char *s = nnl_shapestr(in->shape, in->rank);
		char *ks = nnl_shapestr(k, oned ? 1 : 2);

		nnl_err(w->m, l->typepos, "%s: the window %s is larger than "
		    "its input %s", l->type, ks, s);
		free(s);
		free(ks);
		return -1;
	}
	l->rank = oned ? 2 : 3;
	l->shape[0] = OH;
	l->shape[1] = oned ? C : OW;
	l->shape[2] = C;
	if (avg && (p[0] || p[1] || p[2] || p[3])) {
		int64_t hw[2] = { H, W }, ohw[2] = { OH, OW };

		avgpool_padded(w, l, x, k, st, p, hw, ohw);
		return 0;
	}
	src = xstrdup(x);
	if (oned) {
		int64_t v[3] = { H, 1, C };

		free(src);
		src = opname(l, "rows");
		reshape(w, l, x, src, v, 3);
	}
	pn = oned ? opname(l, "pool") : xstrdup(l->id);
	n = addnode(w, l, pn, avg ? "averagePool2d" : "maxPool2d", src, NULL);
	cJSON_AddItemToObject(n->options, "windowDimensions", ints(k, 2));
	cJSON_AddItemToObject(n->options, "strides", ints(st, 2));
	cJSON_AddItemToObject(n->options, "padding", ints(p, 4));
	cJSON_AddStringToObject(n->options, "layout", "nhwc");
	if (oned)
		reshape(w, l, pn, l->id, l->shape, 2);
	free(src);
	free(pn);
	return 0;
}

static int
lower_globalpool(struct nlower *w, struct nlayer *l, const struct nlayer *in,
    const char *x)
{
	int64_t ax[2] = { 1, 2 };
	struct node *n;

	if (wantrank(w, l, in, 3))
		return -1;
	n = addnode(w, l, l->id, "reduceMean", x, NULL);
	cJSON_AddItemToObject(n->options, "axes", ints(ax, 2));
	l->rank = 1;
	l->shape[0] = in->shape[2];
	return 0;
}

static int
lower_flatten(struct nlower *w, struct nlayer *l, const struct nlayer *in,
    const char *x)
{
	l->rank = 1;
	l->shape[0] = prod(in->shape, in->rank);
	reshape(w, l, x, l->id, l->shape, 1);
	return 0;
}

/* BatchNorm and LayerNorm, both over the last (channel) axis. */
static int
lower_norm(struct nlower *w, struct nlayer *l, const struct nlayer *in,
    const char *x)
{
	int64_t C = in->shape[in->rank - 1], ax = in->rank;
	int ln = l->type[0] == 'L';	/* upstream nnc's names too */
	char *g = nnl_weight_alt(w, l, "gamma", ln ? "scale" : NULL, &C, 1,
	    &C, 1);
	char *b = nnl_weight_alt(w, l, "beta", ln ? "bias" : NULL, &C, 1,
	    &C, 1);
	struct node *n;

	if (l->type[0] == 'B') {
		char *mu = nnl_weight(w, l, "running_mean", &C, 1, &C, 1);
		char *va = nnl_weight(w, l, "running_var", &C, 1, &C, 1);

		n = addnode(w, l, l->id, "batchNormalization", x, mu);
		node_add_input(n, va);
		cJSON_AddNumberToObject(n->options, "axis", (double)ax);
		free(mu);
		free(va);
	} else {
		n = addnode(w, l, l->id, "layerNormalization", x, NULL);
		cJSON_AddItemToObject(n->options, "axes", ints(&ax, 1));
	}
	cJSON_AddStringToObject(n->options, "scale", g);
	cJSON_AddStringToObject(n->options, "bias", b);
	cJSON_AddNumberToObject(n->options, "epsilon",
	    nnl_pnum(l, "epsilon", 1e-5));
	keep(l, in);
	free(g);
	free(b);
	return 0;
}

/*
 * Across-channel LRN as ONNX defines it, from WebNN operations: the
 * squares, seen as [batch, 1, positions, C], padded with zeros on the
 * channel axis so that a [1, size] average pool without padding
 * averages exactly size values; then x / (bias + alpha * avg)^beta.
 */
static int
lower_lrn(struct nlower *w, struct nlayer *l, const struct nlayer *in,
    const char *x)
{
	int64_t n = (int64_t)nnl_pnum(l, "size", 5), C = in->shape[in->rank - 1];
	int64_t v[3] = { 1, prod(in->shape, in->rank - 1), C };
	int64_t beg[4] = { 0, 0, 0, (n - 1) / 2 }, end[4] = { 0, 0, 0, n / 2 };
	int64_t win[2] = { 1, n };
	const char *names[] = { "sq", "rows", "padded", "avg", "mean", "scaled",
	    "biased", "denom" };
	char *t[8], *ca, *cb, *ce;
	struct node *nd;

	if (n <= 0) {
		nnl_err(w->m, nnl_param(l, "size")->v.pos, "LRN: size must be "
		    "positive");
		return -1;
	}
	for (int i = 0; i < 8; i++)
		t[i] = opname(l, names[i]);
	ca = scalar(w, l, "alpha", nnl_pnum(l, "alpha", 1e-4));
	cb = scalar(w, l, "bias", nnl_pnum(l, "bias", 1.0));
	ce = scalar(w, l, "beta", nnl_pnum(l, "beta", 0.75));
	addnode(w, l, t[0], "mul", x, x);
	reshape(w, l, t[0], t[1], v, 3);
	nd = addnode(w, l, t[2], "pad", t[1], NULL);
	cJSON_AddItemToObject(nd->options, "beginningPadding", ints(beg, 4));
	cJSON_AddItemToObject(nd->options, "endingPadding", ints(end, 4));
	nd = addnode(w, l, t[3], "averagePool2d", t[2], NULL);
	cJSON_AddItemToObject(nd->options, "windowDimensions", ints(win, 2));
	reshape(w, l, t[3], t[4], in->shape, in->rank);
	addnode(w, l, t[5], "mul", t[4], ca);
	addnode(w, l, t[6], "add", t[5], cb);
	addnode(w, l, t[7], "pow", t[6], ce);
	addnode(w, l, l->id, "div", x, t[7]);
	keep(l, in);
	for (int i = 0; i < 8; i++)
		free(t[i]);
	free(ca);
	free(cb);
	free(ce);
	return 0;
}

/* (clamp(roundEven(x / scale) + zero_point, qmin, qmax) - zero_point)
 * * scale */
static int
lower_fakequant(struct nlower *w, struct nlayer *l, const struct nlayer *in,
    const char *x)
{
	double sc = nnl_pnum(l, "scale", 1), zp = nnl_pnum(l, "zero_point", 0);
	double lo = nnl_pnum(l, "qmin", -128), hi = nnl_pnum(l, "qmax", 127);
	const char *names[] = { "div", "round", "shift", "clamp", "unshift" };
	char *t[5], *s, *z;
	struct node *n;

	if (!(sc > 0)) {
		nnl_err(w->m, nnl_param(l, "scale")->v.pos, "FakeQuant: scale "
		    "must be positive");
		return -1;
	}
	if (lo > hi) {
		nnl_err(w->m, l->typepos, "FakeQuant: qmin %g is above qmax %g",
		    lo, hi);
		return -1;
	}
	for (int i = 0; i < 5; i++)
		t[i] = opname(l, names[i]);
	s = scalar(w, l, "scale", sc);
	z = scalar(w, l, "zero_point", zp);
	addnode(w, l, t[0], "div", x, s);
	addnode(w, l, t[1], "roundEven", t[0], NULL);
	addnode(w, l, t[2], "add", t[1], z);
	n = addnode(w, l, t[3], "clamp", t[2], NULL);
	cJSON_AddNumberToObject(n->options, "minValue", lo);
	cJSON_AddNumberToObject(n->options, "maxValue", hi);
	addnode(w, l, t[4], "sub", t[3], z);
	addnode(w, l, l->id, "mul", t[4], s);
	keep(l, in);
	for (int i = 0; i < 5; i++)
		free(t[i]);
	free(s);
	free(z);
	return 0;
}

/* Add and Mul: a chain over two or more inputs of one shape. */
static int
lower_addmul(struct nlower *w, struct nlayer *l, const struct nlayer *in,
    const char *x)
{
	char *acc = xstrdup(x);

	for (int k = 1; k < l->nin; k++) {
		const struct nlayer *o = &w->m->layers[l->in[k]];
		char *id, what[32];

		if (o->rank != in->rank || memcmp(o->shape, in->shape,
		    (size_t)in->rank * sizeof *in->shape)) {
			char *a = nnl_shapestr(in->shape, in->rank);
			char *b = nnl_shapestr(o->shape, o->rank);

			nnl_err(w->m, l->typepos, "E004: %s: inputs '%s' %s "
			    "and '%s' %s differ in shape", l->type,
			    escape_tty_name(in->id), a, escape_tty_name(o->id),
			    b);
			free(a);
			free(b);
			free(acc);
			return -1;
		}
		snprintf(what, sizeof what, "partial%d", k);
		id = k == l->nin - 1 ? xstrdup(l->id) : opname(l, what);
		addnode(w, l, id, l->type[0] == 'A' ? "add" : "mul", acc,
		    o->out);
		free(acc);
		acc = id;
	}
	free(acc);
	keep(l, in);
	return 0;
}

/* A per-sample axis (negative from the end) as an axis of the batch. */
static int
axis(struct nlower *w, struct nlayer *l, int rank)
{
	int a = (int)nnl_pnum(l, "axis", -1), b = a < 0 ? rank + a : a;

	if (b < 0 || b >= rank) {
		nnl_err(w->m, nnl_param(l, "axis")->v.pos, "%s%s: axis %d is "
		    "out of range for an input of rank %d", l->type[0] == 'C' ?
		    "E005: " : "", l->type, a, rank);
		return -1;
	}
	return b + 1;
}

static int
lower_concat(struct nlower *w, struct nlayer *l, const struct nlayer *in,
    const char *x)
{
	int a = axis(w, l, in->rank);
	struct node *n;

	if (a < 0)
		return -1;
	keep(l, in);
	l->shape[a - 1] = 0;
	for (int k = 0; k < l->nin; k++) {
		const struct nlayer *o = &w->m->layers[l->in[k]];
		int same = o->rank == in->rank;

		for (int i = 0; same && i < in->rank; i++)
			same = i == a - 1 || o->shape[i] == in->shape[i];
		if (!same) {
			char *s = nnl_shapestr(in->shape, in->rank);
			char *t = nnl_shapestr(o->shape, o->rank);

			nnl_err(w->m, l->typepos, "E005: Concat: '%s' %s and "
			    "'%s' %s differ off the axis %d",
			    escape_tty_name(in->id), s, escape_tty_name(o->id),
			    t, a - 1);
			free(s);
			free(t);
			return -1;
		}
		l->shape[a - 1] += o->shape[a - 1];
	}
	n = addnode(w, l, l->id, "concat", NULL, NULL);
	for (int k = 0; k < l->nin; k++)
		node_add_input(n, w->m->layers[l->in[k]].out);
	cJSON_AddNumberToObject(n->options, "axis", a);
	return 0;
}

static int
lower_softmax(struct nlower *w, struct nlayer *l, const struct nlayer *in,
    const char *x)
{
	int a = axis(w, l, in->rank);
	struct node *n;

	if (a < 0)
		return -1;
	n = addnode(w, l, l->id, "softmax", x, NULL);
	cJSON_AddNumberToObject(n->options, "axis", a);
	keep(l, in);
	return 0;
}

/* The one-operation activations, and Dropout. */
static int
lower_unary(struct nlower *w, struct nlayer *l, const struct nlayer *in,
    const char *x)
{
	static const char *const map[][2] = { { "ReLU", "relu" },
	    { "ReLU6", "clamp" }, { "LeakyReLU", "leakyRelu" },
	    { "Sigmoid", "sigmoid" }, { "Hardswish", "hardSwish" },
	    { "Dropout", "identity" } };
	struct node *n = NULL;

	for (size_t i = 0; i < sizeof map / sizeof *map; i++)
		if (!strcmp(l->type, map[i][0]))
			n = addnode(w, l, l->id, map[i][1], x, NULL);
	if (!strcmp(l->type, "ReLU6")) {
		cJSON_AddNumberToObject(n->options, "minValue", 0);
		cJSON_AddNumberToObject(n->options, "maxValue", 6);
	} else if (!strcmp(l->type, "LeakyReLU")) {
		cJSON_AddNumberToObject(n->options, "alpha",
		    nnl_pnum(l, "alpha", 0.01));
	}
	keep(l, in);
	return 0;
}

static int
lower_silu(struct nlower *w, struct nlayer *l, const struct nlayer *in,
    const char *x)
{
	char *s = opname(l, "sigmoid");

	addnode(w, l, s, "sigmoid", x, NULL);
	addnode(w, l, l->id, "mul", x, s);
	free(s);
	keep(l, in);
	return 0;
}

static int
lower_upsample(struct nlower *w, struct nlayer *l, const struct nlayer *in,
    const char *x)
{
	int64_t sc[2], ax[2] = { 1, 2 };
	cJSON *scales;
	struct node *n;

	nnl_ppair(l, "scale", 1, sc);
	if (wantrank(w, l, in, 3))
		return -1;
	if (sc[0] < 1 || sc[1] < 1) {
		nnl_err(w->m, nnl_param(l, "scale")->v.pos, "Upsample: scale "
		    "must be a positive integer");
		return -1;
	}
	n = addnode(w, l, l->id, "resample2d", x, NULL);
	cJSON_AddStringToObject(n->options, "mode", "nearest-neighbor");
	scales = cJSON_CreateArray();
	cJSON_AddItemToArray(scales, cJSON_CreateNumber((double)sc[0]));
	cJSON_AddItemToArray(scales, cJSON_CreateNumber((double)sc[1]));
	cJSON_AddItemToObject(n->options, "scales", scales);
	cJSON_AddItemToObject(n->options, "axes", ints(ax, 2));
	keep(l, in);
	l->shape[0] *= sc[0];
	l->shape[1] *= sc[1];
	return 0;
}

/* The graph input [batch, ...shape], and the preprocessing on it. */
static int
lower_input(struct nlower *w, struct nlayer *l)
{
	const struct nparam *p = nnl_param(l, "shape");
	const struct nval *pre = nnl_cfg(w->m, "preprocess");
	const char *mode = pre ? pre->str : "none";
	int64_t d[9];
	struct node *n;

	if (p->v.n < 1 || p->v.n > 7) {
		nnl_err(w->m, p->v.pos, "shape: expected 1 to 7 dimensions");
		return -1;
	}
	for (int i = 0; i < p->v.n; i++) {
		if (!nnl_isint(&p->v.items[i]) || p->v.items[i].num < 1) {
			nnl_err(w->m, p->v.items[i].pos, "shape: dimensions are "
			    "positive integers");
			return -1;
		}
		l->shape[i] = (int64_t)p->v.items[i].num;
	}
	l->rank = p->v.n;
	d[0] = w->batch;
	memcpy(d + 1, l->shape, (size_t)l->rank * sizeof *d);
	graph_add_input(w->g, l->id, DT_FLOAT32, l->rank + 1, d)->pos = l->pos;
	if (!strcmp(mode, "normalize_0_1")) {
		char *c = scalar(w, l, "255", 255);

		l->out = opname(l, "normalized");
		n = addnode(w, l, l->out, "div", l->id, c);
		cJSON_ReplaceItemInObject(n->extra, "layerType",
		    cJSON_CreateString("Preprocess"));
		free(c);
	} else if (!strcmp(mode, "standardize")) {
		const struct nval *mv = nnl_cfg(w->m, "preprocess_mean");
		const struct nval *sv = nnl_cfg(w->m, "preprocess_std");
		int64_t C = l->shape[l->rank - 1];
		float *mean, *sd;
		char *mc, *sc, *t;

		if (!mv || !sv || mv->n != C || sv->n != C) {
			nnl_err(w->m, pre->pos, "E007: standardize needs "
			    "preprocess_mean and preprocess_std with one number "
			    "per channel (%lld)", (long long)C);
			return -1;
		}
		for (int64_t i = 0; i < C; i++)
			if (sv->items[i].num == 0) {
				nnl_err(w->m, sv->items[i].pos, "preprocess_std: "
				    "a standard deviation of 0");
				return -1;
			}
		mean = xmalloc((size_t)C * sizeof *mean);
		sd = xmalloc((size_t)C * sizeof *sd);
		for (int64_t i = 0; i < C; i++) {
			mean[i] = (float)mv->items[i].num;
			sd[i] = (float)sv->items[i].num;
		}
		mc = tensor(w, l, "mean", mean, &C, 1);
		sc = tensor(w, l, "std", sd, &C, 1);
		t = opname(l, "centred");
		l->out = opname(l, "standardized");
		n = addnode(w, l, t, "sub", l->id, mc);
		cJSON_ReplaceItemInObject(n->extra, "layerType",
		    cJSON_CreateString("Preprocess"));
		n = addnode(w, l, l->out, "div", t, sc);
		cJSON_ReplaceItemInObject(n->extra, "layerType",
		    cJSON_CreateString("Preprocess"));
		free(mean);
		free(sd);
		free(mc);
		free(sc);
		free(t);
	} else {
		l->out = xstrdup(l->id);
	}
	return 0;
}

static const struct {
	const char *type;
	int (*fn)(struct nlower *, struct nlayer *, const struct nlayer *,
	    const char *);
} lowerings[] = {
	{ "Dense", lower_dense }, { "Conv2D", lower_conv },
	{ "Conv1D", lower_conv }, { "MaxPool2D", lower_pool },
	{ "AvgPool2D", lower_pool }, { "MaxPool1D", lower_pool },
	{ "GlobalAvgPool2D", lower_globalpool }, { "Flatten", lower_flatten },
	{ "BatchNorm", lower_norm }, { "LayerNorm", lower_norm },
	{ "LRN", lower_lrn }, { "FakeQuant", lower_fakequant },
	{ "Add", lower_addmul }, { "Mul", lower_addmul },
	{ "Concat", lower_concat }, { "Softmax", lower_softmax },
	{ "ReLU", lower_unary }, { "ReLU6", lower_unary },
	{ "LeakyReLU", lower_unary }, { "Sigmoid", lower_unary },
	{ "Hardswish", lower_unary }, { "Dropout", lower_unary },
	{ "SiLU", lower_silu }, { "Upsample", lower_upsample },
};

/*
 * The layer's output [batch, ...shape] within the tensor limit: each
 * layer's shape is computed from its input's, so holding every one to
 * the limit keeps the products of the next from overflowing.
 */
static int
bounded(struct nlower *w, struct nlayer *l)
{
	int64_t d[9];
	char *why;

	d[0] = w->batch;
	memcpy(d + 1, l->shape, (size_t)l->rank * sizeof *d);
	if (!(why = checked_tensor(&(struct tdesc){ DT_FLOAT32, l->rank + 1,
	    d })))
		return 0;
	nnl_err(w->m, l->pos, "layer '%s': its output %s", l->id, why);
	free(why);
	return -1;
}

int
nnl_lower_layer(struct nlower *w, struct nlayer *l)
{
	const struct nlayer *in;

	if (!strcmp(l->type, "Input"))
		return lower_input(w, l) ? -1 : bounded(w, l);
	in = &w->m->layers[l->in[0]];
	l->out = xstrdup(l->id);
	for (size_t i = 0; i < sizeof lowerings / sizeof *lowerings; i++)
		if (!strcmp(lowerings[i].type, l->type))
			return lowerings[i].fn(w, l, in, in->out) ? -1 :
			    bounded(w, l);
	abort();	/* nnl_model.c checked the type */
}
