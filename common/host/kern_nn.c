/*
 * kern_nn: prepares the kernels of rt/nn/nn.c: conv2d, the pools, gemm,
 * matmul, the normalizations, pad and resample2d; of rt/nn/qint.c, the
 * integer products, requantizeLinear and tfIdfVectorizer; of
 * rt/nn/linalg.c, the float64 matmul, det and dft; of rt/nn/nd.c, nnl's
 * 3-D convolutions and pools.  Float16 operands run through the
 * float32 kernels (f16finish); a fused activation (the
 * node's "activation" field, from nnl-fuse) becomes the kernel's
 * epilogue.
 */
#define NNL_RT /* rt/f32-gemm/gemm.c is in libnnl: extern */
#include <stdlib.h>
#include <string.h>

#include "kernel.h"
#include "escape.h"
#include "opts.h"
#include "threads.h"

/* rt/f32-gemm/gemm.c's packing space for an M x N x K product, in floats: one
 * for each part of a product split over threads (rt/par/par.c). */
static uint64_t
pack(int64_t M, int64_t N, int64_t K)
{
	return (uint64_t)nnl_packsize(M, N, K) * (uint64_t)kernel_threads;
}

/* Push the fused activation: its code in ip, two parameters in fp. */
int
kactivation(struct kctx *c)
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(c->n->extra,
	    "activation");
	const cJSON *op = cJSON_GetObjectItemCaseSensitive(a, "op");
	const cJSON *o = cJSON_GetObjectItemCaseSensitive(a, "options");
	const cJSON *v;
	double p0 = 0, p1 = 0;
	int code = NNL_ACT_NONE;

	if (a) {
		const char *s = cJSON_IsString(op) ? op->valuestring : "";

		if (!strcmp(s, "relu"))
			code = NNL_ACT_RELU;
		else if (!strcmp(s, "sigmoid"))
			code = NNL_ACT_SIGMOID;
		else if (!strcmp(s, "hardSwish"))
			code = NNL_ACT_HARDSWISH;
		else if (!strcmp(s, "tanh"))
			code = NNL_ACT_TANH;
		else if (!strcmp(s, "gelu"))
			code = NNL_ACT_GELU;
		else if (!strcmp(s, "swish"))
			code = NNL_ACT_SWISH;
		else if (!strcmp(s, "hardSigmoid")) {
			code = NNL_ACT_HARDSIGMOID;
			v = cJSON_GetObjectItemCaseSensitive(o, "alpha");
			p0 = cJSON_IsNumber(v) ? v->valuedouble : 0.2;
			v = cJSON_GetObjectItemCaseSensitive(o, "beta");
			p1 = cJSON_IsNumber(v) ? v->valuedouble : 0.5;
		}
		else if (!strcmp(s, "clamp")) {
			code = NNL_ACT_CLAMP;
			v = cJSON_GetObjectItemCaseSensitive(o, "minValue");
			p0 = cJSON_IsNumber(v) ? v->valuedouble : -INFINITY;
			v = cJSON_GetObjectItemCaseSensitive(o, "maxValue");
			p1 = cJSON_IsNumber(v) ? v->valuedouble : INFINITY;
		} else if (!strcmp(s, "leakyRelu")) {
			code = NNL_ACT_LEAKYRELU;
			v = cJSON_GetObjectItemCaseSensitive(o, "alpha");
			p0 = cJSON_IsNumber(v) ? v->valuedouble : 0.01;
		} else {
			return shape_err(c->sc, "field \"activation\": cannot "
			    "fuse \"%s\"", escape_tty_name(s));
		}
	}
	kip(c, code);
	kfp(c, p0);
	kfp(c, p1);
	return 0;
}

static int
wantfloat(struct kctx *c, const struct tdesc *t)
{
	if (t->dt != DT_FLOAT32 && t->dt != DT_FLOAT16)
		return shape_err(c->sc, "%s on %s data is not supported",
		    c->d->name, dtype_name(t->dt));
	return 0;
}

/*
 * Choose NAME_f32, or NAME_f16 with its conversion header in front of
 * the parameters built so far: the first nconv inputs are converted.
 */
int
f16finish(struct kctx *c, const char *name, int nconv)
{
	struct kcall *k = c->k;
	int64_t *hdr = xcalloc((size_t)nconv + 3, sizeof *hdr);
	int nh = 0;
	uint64_t floats = 0;
	char kname[64];

	if (c->out[0].dt != DT_FLOAT16) {
		free(hdr);
		snprintf(kname, sizeof kname, "%s_f32", name);
		return kset(c, kname);
	}
	hdr[nh++] = nconv;
	hdr[nh++] = k->nin;
	for (int i = 0; i < nconv; i++) {
		struct operand *o = k->in[i] ? graph_find(c->g, k->in[i]) :
		    NULL;
		uint64_t n = o ? tdesc_numel(operand_type(o)) : 0;

		hdr[nh++] = (int64_t)n;
		floats += n;
	}
	hdr[nh++] = (int64_t)tdesc_numel(&c->out[0]);
	floats += tdesc_numel(&c->out[0]);
	for (int i = 0; i < nh; i++)	/* room for the header */
		kip(c, 0);
	memmove(k->ip + nh, k->ip, (size_t)(k->nip - nh) * sizeof *k->ip);
	memcpy(k->ip, hdr, (size_t)nh * sizeof *hdr);
	free(hdr);
	/* NAME_f32's scratch starts 64-byte aligned (rt.h) */
	k->scratch += 4 * ((floats + 15) / 16 * 16);
	snprintf(kname, sizeof kname, "%s_f16", name);
	return kset(c, kname);
}

/* Spatial geometry of a 4-D tensor in a layout. */
static void
nchw(const struct tdesc *t, int nhwc, int64_t *n, int64_t *ch, int64_t *h,
    int64_t *w)
{
	*n = t->dims[0];
	*ch = t->dims[nhwc ? 3 : 1];
	*h = t->dims[nhwc ? 1 : 2];
	*w = t->dims[nhwc ? 2 : 3];
}

static int
pairs(struct kctx *c, const char *name, uint32_t *v, int n, uint32_t dflt)
{
	int got = 0;

	if (opt_u32s(c->sc, name, v, n, &got) < 0)
		return -1;
	if (!got)
		for (int i = 0; i < n; i++)
			v[i] = dflt;
	return 0;
}

int
prepare_conv2d(struct kctx *c)
{
	const struct tdesc *x = c->in[0], *f = c->in[1], *y = &c->out[0];
	const char *il = "nchw", *fl = "oihw", *bias = NULL;
	uint32_t pad[4], st[2], dl[2], groups = 1;
	int64_t N, C, H, W, O, OH, OW, kh, kw, icg, P, nb;
	int nhwc, flc, direct, flip, wino, pnl;
	const cJSON *b, *r;

	if (wantfloat(c, x) || pairs(c, "padding", pad, 4, 0) ||
	    pairs(c, "strides", st, 2, 1) || pairs(c, "dilations", dl, 2, 1) ||
	    opt_u32(c->sc, "groups", &groups) < 0 ||
	    opt_str(c->sc, "inputLayout", &il) < 0 ||
	    opt_str(c->sc, "filterLayout", &fl) < 0)
		return -1;
	b = cJSON_GetObjectItemCaseSensitive(c->n->options, "bias");
	if (cJSON_IsString(b))
		bias = b->valuestring;
	nhwc = !strcmp(il, "nhwc");
	flc = !strcmp(fl, "oihw") ? 0 : !strcmp(fl, "hwio") ? 1 :
	    !strcmp(fl, "ohwi") ? 2 : 3;
	nchw(x, nhwc, &N, &C, &H, &W);
	nchw(y, nhwc, &N, &O, &OH, &OW);
	kh = f->dims[flc == 0 ? 2 : flc == 3 ? 1 : flc == 1 ? 0 : 1];
	kw = f->dims[flc == 0 ? 3 : flc == 3 ? 2 : flc == 1 ? 1 : 2];
	/* nnl-fuse's Winograd filter [4, 4, I, O] (shape-infer checked
	 * the rest): a 3 x 3 convolution by rt/f32-winograd/wino.c */
	if ((wino = cJSON_GetObjectItemCaseSensitive(c->n->extra,
	    "winograd") != NULL)) {
		flc = 4;
		kh = kw = 3;
	}
	/* nnl-fuse's filter in panels of 32 output channels (shape-infer
	 * checked the rest): the flipped product reads it in place */
	if ((pnl = cJSON_GetObjectItemCaseSensitive(c->n->extra,
	    "panels") != NULL))
		flc = 5;
	kip(c, nhwc);
	kip(c, N); kip(c, C); kip(c, H); kip(c, W);
	kip(c, O); kip(c, OH); kip(c, OW);
	kip(c, kh); kip(c, kw);
	kip(c, st[0]); kip(c, st[1]);
	kip(c, dl[0]); kip(c, dl[1]);
	for (int i = 0; i < 4; i++)
		kip(c, pad[i]);
	kip(c, groups);
	kip(c, flc);
	kip(c, bias != NULL);
	if (kactivation(c))
		return -1;
	kin(c, c->n->in[0]);
	kin(c, c->n->in[1]);
	kin(c, bias);
	/* nnl-fuse's residual (shape-infer checked that it is float32 and
	 * of the output's type) */
	r = cJSON_GetObjectItemCaseSensitive(c->n->extra, "residual");
	kin(c, cJSON_IsString(r) ? r->valuestring : NULL);
	icg = C / groups;
	P = OH * OW;
	direct = kh == 1 && kw == 1 && st[0] == 1 && st[1] == 1 &&
	    !pad[0] && !pad[1] && !pad[2] && !pad[3] && groups == 1;
	flip = nnl_conv_flip(nhwc, P, O / groups, icg * kh * kw);
	if (pnl && (!flip || f->dt != DT_FLOAT32))
		return shape_err(c->sc, "field \"panels\": the C kernels read "
		    "a filter in panels only for a float32 product of output "
		    "[P, O] (nnl-fuse decides which)");
	/* an nchw im2col a band of output rows at a time (rt/nn/nn.c) */
	nb = !nhwc && !flip && !direct ? nnl_conv_band(icg * kh * kw, OH,
	    OW) * OW : P;
	/* the banded form: a band's im2col for each thread (rt/par/par.c
	 * gives threads whole bands) */
	c->k->scratch = 4 * ((nhwc || flip ? pack(P, O / groups,
	    icg * kh * kw) : pack(O / groups, nb, icg * kh * kw)) +
	    (direct ? 0 : (uint64_t)(icg * kh * kw * nb) *
	    (nhwc || flip ? 1 : (uint64_t)kernel_threads)) +
	    (flip ? (uint64_t)(P * (O / groups)) : 0));
	if (wino)
		c->k->scratch = 4 * (uint64_t)nnl_wino_scratch(C, O, OH, OW,
		    kernel_threads);
	else if (icg == 1 && O == groups && !nhwc)	/* rt/f32-dwconv/dwconv.c alone */
		c->k->scratch = 4 * (uint64_t)nnl_dw_scratch(c->k->ip) *
		    (uint64_t)kernel_threads;
	return f16finish(c, "conv2d", 3);
}

int
prepare_pool2d(struct kctx *c)
{
	const struct tdesc *x = c->in[0], *y = &c->out[0];
	const char *layout = "nchw";
	uint32_t win[2], pad[4], st[2], dl[2];
	int64_t N, C, H, W, OH, OW;
	int nhwc, nw = 0;

	if (wantfloat(c, x) || opt_str(c->sc, "layout", &layout) < 0 ||
	    opt_u32s(c->sc, "windowDimensions", win, 2, &nw) < 0 ||
	    pairs(c, "padding", pad, 4, 0) || pairs(c, "strides", st, 2, 1) ||
	    pairs(c, "dilations", dl, 2, 1))
		return -1;
	nhwc = !strcmp(layout, "nhwc");
	nchw(x, nhwc, &N, &C, &H, &W);
	nchw(y, nhwc, &N, &C, &OH, &OW);
	if (!nw) {
		win[0] = (uint32_t)H;
		win[1] = (uint32_t)W;
	}
	/* outputSizes replace the padding (the specification) */
	if (opt_present(c->sc, "outputSizes"))
		memset(pad, 0, sizeof pad);
	kip(c, c->n->op == OP_AVERAGE_POOL2D ? 0 :
	    c->n->op == OP_L2_POOL2D ? 1 : 2);
	kip(c, nhwc);
	kip(c, N); kip(c, C); kip(c, H); kip(c, W);
	kip(c, OH); kip(c, OW);
	kip(c, win[0]); kip(c, win[1]);
	kip(c, st[0]); kip(c, st[1]);
	kip(c, dl[0]); kip(c, dl[1]);
	for (int i = 0; i < 4; i++)
		kip(c, pad[i]);
	kin(c, c->n->in[0]);
	return f16finish(c, "pool2d", 1);
}

int
prepare_gemm(struct kctx *c)
{
	const struct tdesc *a = c->in[0], *y = &c->out[0], *ct;
	int ta = 0, tb = 0;
	double alpha = 1, beta = 1;
	const cJSON *cv = cJSON_GetObjectItemCaseSensitive(c->n->options,
	    "c");
	const char *cn = cJSON_IsString(cv) ? cv->valuestring : NULL;
	int64_t cs0 = 0, cs1 = 0;

	if (wantfloat(c, a) || opt_bool(c->sc, "aTranspose", &ta) < 0 ||
	    opt_bool(c->sc, "bTranspose", &tb) < 0 ||
	    opt_f64(c->sc, "alpha", &alpha) < 0 ||
	    opt_f64(c->sc, "beta", &beta) < 0)
		return -1;
	if (cn) {
		ct = operand_type(graph_find(c->g, cn));
		if (ct->rank == 1)
			cs1 = ct->dims[0] == 1 ? 0 : 1;
		else if (ct->rank == 2) {
			cs0 = ct->dims[0] == 1 ? 0 : ct->dims[1];
			cs1 = ct->dims[1] == 1 ? 0 : 1;
		}
	}
	kip(c, y->dims[0]);
	kip(c, y->dims[1]);
	kip(c, a->dims[ta ? 0 : 1]);
	kip(c, ta);
	kip(c, tb);
	kip(c, cn != NULL);
	kip(c, cs0);
	kip(c, cs1);
	kfp(c, alpha);
	kfp(c, beta);
	if (kactivation(c))
		return -1;
	kin(c, c->n->in[0]);
	kin(c, c->n->in[1]);
	kin(c, cn);
	c->k->scratch = 4 * pack(y->dims[0], y->dims[1], a->dims[ta ? 0 : 1]);
	return f16finish(c, "gemm", 3);
}

enum { MMR = 32 };	/* ranks taken (shape-infer's) */

/*
 * Input i of a matmul as the matmul reads it: with nnl-fuse's field f
 * ("transposeA" or "transposeB", which shape-infer checked), the
 * permutation of a transpose folded into it.  The view's dims in d,
 * the stride of each in s (elements of the stored operand).
 */
static void
mmview(struct kctx *c, int i, const char *f, int64_t *d, int64_t *s)
{
	const struct tdesc *t = c->in[i];
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(c->n->extra, f);
	const cJSON *it;
	int64_t st[MMR];
	int r = t->rank, k = 0;

	st[r - 1] = 1;
	for (int j = r - 2; j >= 0; j--)
		st[j] = st[j + 1] * t->dims[j + 1];
	for (int j = 0; j < r; j++) {
		d[j] = t->dims[j];
		s[j] = st[j];
	}
	cJSON_ArrayForEach(it, a) {
		int p = (int)it->valuedouble;

		d[k] = t->dims[p];
		s[k++] = st[p];
	}
}

/* Push the batch strides of a view of rank r (dims d, strides s) for
 * the R batch dims of the output: 0 where the view broadcasts. */
static void
mmbatch(struct kctx *c, int R, int r, const int64_t *d, const int64_t *s,
    int64_t *bs)
{
	for (int i = 0; i < R; i++) {
		int j = i - (R - (r - 2));

		bs[i] = j >= 0 && d[j] != 1 ? s[j] : 0;
		kip(c, bs[i]);
	}
}

/*
 * The rows of one product for all the batches, where b is one matrix
 * for all and a's rows follow one another at one stride across them
 * (a Linear layer over [S, B, E], or a view of it): *ld that stride;
 * 0 otherwise.
 */
static int64_t
mmrows(int R, const int64_t *ob, const int64_t *as, const int64_t *bs,
    int64_t M, int64_t lda, int ta, int64_t *ld)
{
	int64_t rows = M;

	*ld = lda;
	if (ta)
		return 0;
	for (int d = R - 1; d >= 0; d--) {
		if (bs[d])
			return 0;
		if (ob[d] == 1)
			continue;
		if (rows == 1)
			*ld = as[d];
		else if (as[d] != rows * *ld)
			return 0;
		rows *= ob[d];
	}
	return rows == M ? 0 : rows;
}

/* A float64 matmul (its parameters pushed up to ld): no fused bias nor
 * activation, which nnl-fuse gives float products only of float32 and
 * float16. */
static int
mm64(struct kctx *c)
{
	if (cJSON_GetObjectItemCaseSensitive(c->n->extra, "activation") ||
	    cJSON_GetObjectItemCaseSensitive(c->n->extra, "bias"))
		return shape_err(c->sc, "a float64 matmul takes no fused "
		    "activation nor bias");
	kin(c, c->n->in[0]);
	kin(c, c->n->in[1]);
	return kset(c, "matmul_f64");
}

int
prepare_matmul(struct kctx *c)
{
	const struct tdesc *y = &c->out[0];
	int ar = c->in[0]->rank, br = c->in[1]->rank;
	int R = y->rank >= 2 ? y->rank - 2 : 0;
	int64_t ad[MMR], as[MMR], bd[MMR], bs[MMR], ab[MMR], bb[MMR];
	int64_t M, N, K, lda, ldb, rows, ld;
	int ta, tb;
	const cJSON *bn;
	int f64 = c->in[0]->dt == DT_FLOAT64;

	if (!f64 && wantfloat(c, c->in[0]))
		return -1;
	mmview(c, 0, "transposeA", ad, as);
	mmview(c, 1, "transposeB", bd, bs);
	M = ad[ar - 2];
	K = ad[ar - 1];
	N = bd[br - 1];
	/* a matrix of the view is stored by rows or by columns */
	ta = !(as[ar - 1] == 1 || K == 1);
	lda = ta ? as[ar - 1] : as[ar - 2];
	tb = !(bs[br - 1] == 1 || N == 1);
	ldb = tb ? bs[br - 1] : bs[br - 2];
	kip(c, M);
	kip(c, N);
	kip(c, K);
	kip(c, R);
	for (int i = 0; i < R; i++)
		kip(c, y->dims[i]);
	mmbatch(c, R, ar, ad, as, ab);
	mmbatch(c, R, br, bd, bs, bb);
	rows = mmrows(R, y->dims, ab, bb, M, lda, ta, &ld);
	kip(c, lda);
	kip(c, ta);
	kip(c, ldb);
	kip(c, tb);
	kip(c, rows);
	kip(c, ld);
	if (f64)	/* rt/nn/linalg.c: plain loops in double */
		return mm64(c);
	if (kactivation(c))
		return -1;
	/* nnl-fuse's bias (shape-infer checked that it is float32 [N]) */
	bn = cJSON_GetObjectItemCaseSensitive(c->n->extra, "bias");
	kip(c, cJSON_IsString(bn));
	kin(c, c->n->in[0]);
	kin(c, c->n->in[1]);
	kin(c, cJSON_IsString(bn) ? bn->valuestring : NULL);
	c->k->scratch = 4 * pack(rows ? rows : M, N, K);
	return f16finish(c, "matmul", 2);
}

int
prepare_batch_norm(struct kctx *c)
{
	const struct tdesc *x = c->in[0];
	uint32_t axis = 1;
	double eps = 1e-5;
	int64_t outer = 1, inner = 1;
	const cJSON *s = cJSON_GetObjectItemCaseSensitive(c->n->options,
	    "scale");
	const cJSON *b = cJSON_GetObjectItemCaseSensitive(c->n->options,
	    "bias");

	if (wantfloat(c, x) || opt_u32(c->sc, "axis", &axis) < 0 ||
	    opt_f64(c->sc, "epsilon", &eps) < 0)
		return -1;
	for (int i = 0; i < (int)axis; i++)
		outer *= x->dims[i];
	for (int i = (int)axis + 1; i < x->rank; i++)
		inner *= x->dims[i];
	kip(c, outer);
	kip(c, x->dims[axis]);
	kip(c, inner);
	kip(c, cJSON_IsString(s));
	kip(c, cJSON_IsString(b));
	kfp(c, eps);
	if (kactivation(c))
		return -1;
	kin(c, c->n->in[0]);
	kin(c, c->n->in[1]);
	kin(c, c->n->in[2]);
	kin(c, cJSON_IsString(s) ? s->valuestring : NULL);
	kin(c, cJSON_IsString(b) ? b->valuestring : NULL);
	return f16finish(c, "batchnorm", 5);
}

static int
normalize(struct kctx *c, int64_t nmask, int64_t smask)
{
	const struct tdesc *x = c->in[0];
	double eps = 1e-5;
	const cJSON *s = cJSON_GetObjectItemCaseSensitive(c->n->options,
	    "scale");
	const cJSON *b = cJSON_GetObjectItemCaseSensitive(c->n->options,
	    "bias");
	uint64_t groups = 1;

	if (opt_f64(c->sc, "epsilon", &eps) < 0)
		return -1;
	kshape(c, x);
	kip(c, nmask);
	kip(c, smask);
	kip(c, cJSON_IsString(s));
	kip(c, cJSON_IsString(b));
	kfp(c, eps);
	kin(c, c->n->in[0]);
	kin(c, cJSON_IsString(s) ? s->valuestring : NULL);
	kin(c, cJSON_IsString(b) ? b->valuestring : NULL);
	for (int i = 0; i < x->rank; i++)
		if (!(nmask >> i & 1))
			groups *= (uint64_t)x->dims[i];
	c->k->scratch = 16 * (groups + 1);
	return f16finish(c, "normalize", 3);
}

int
prepare_layer_norm(struct kctx *c)
{
	const struct tdesc *x = c->in[0];
	uint32_t axes[NNL_MAXRANK];
	int na = 0;
	int64_t mask = 0;

	if (wantfloat(c, x) || x->rank > NNL_MAXRANK ||
	    opt_u32s(c->sc, "axes", axes, NNL_MAXRANK, &na) < 0)
		return -1;
	if (!opt_present(c->sc, "axes"))
		for (int i = 1; i < x->rank; i++)
			axes[na++] = (uint32_t)i;
	for (int i = 0; i < na; i++) {
		if (i && axes[i] <= axes[i - 1])
			return shape_err(c->sc, "option \"axes\": the C back "
			    "end needs them in increasing order");
		mask |= (int64_t)1 << axes[i];
	}
	return normalize(c, mask, mask);
}

int
prepare_instance_norm(struct kctx *c)
{
	const char *layout = "nchw";

	if (wantfloat(c, c->in[0]) || opt_str(c->sc, "layout", &layout) < 0)
		return -1;
	if (!strcmp(layout, "nhwc"))
		return normalize(c, 1 << 1 | 1 << 2, 1 << 3);
	return normalize(c, 1 << 2 | 1 << 3, 1 << 1);
}

int
prepare_pad(struct kctx *c)
{
	const struct tdesc *x = c->in[0];
	uint32_t beg[NNL_MAXRANK], end[NNL_MAXRANK];
	int nb, ne;
	const char *mode = "constant";
	double value = 0;

	if (x->rank > NNL_MAXRANK || dtype_bits(x->dt) < 8 ||
	    opt_u32s(c->sc, "beginningPadding", beg, NNL_MAXRANK, &nb) < 0 ||
	    opt_u32s(c->sc, "endingPadding", end, NNL_MAXRANK, &ne) < 0 ||
	    opt_str(c->sc, "mode", &mode) < 0 ||
	    opt_f64(c->sc, "value", &value) < 0)
		return -1;
	if (!strcmp(mode, "symmetric"))
		return shape_err(c->sc, "pad mode \"symmetric\" is not "
		    "supported");
	kip(c, dtype_bits(x->dt) / 8);
	kip(c, !strcmp(mode, "constant") ? 0 : !strcmp(mode, "edge") ? 1 : 2);
	kip(c, kdt(x));
	kshape(c, x);
	for (int i = 0; i < x->rank; i++)
		kip(c, beg[i]);
	for (int i = 0; i < x->rank; i++)
		kip(c, end[i]);
	kfp(c, value);
	kin(c, c->n->in[0]);
	return kset(c, "pad");
}

int
prepare_resample2d(struct kctx *c)
{
	const struct tdesc *x = c->in[0], *y = &c->out[0];
	const char *mode = "nearest-neighbor";
	uint32_t axes[2] = { 2, 3 };
	int na = 0;

	if (wantfloat(c, x) || opt_str(c->sc, "mode", &mode) < 0 ||
	    opt_u32s(c->sc, "axes", axes, 2, &na) < 0)
		return -1;
	if (na == 0) {
		axes[0] = 2;
		axes[1] = 3;
	}
	if (axes[0] > axes[1]) {
		uint32_t t = axes[0];

		axes[0] = axes[1];
		axes[1] = t;
	}
	kip(c, !strcmp(mode, "linear"));
	for (int i = 0; i < 4; i++)
		kip(c, x->dims[i]);
	kip(c, axes[0]);
	kip(c, axes[1]);
	kip(c, y->dims[axes[0]]);
	kip(c, y->dims[axes[1]]);
	kin(c, c->n->in[0]);
	return f16finish(c, "resample2d", 1);
}

/* nnl's nonMaxSuppression: per batch and class, a sort of the boxes by
 * score and a greedy pass; workspace of three index arrays the length
 * of the boxes. */
int
prepare_nms(struct kctx *c)
{
	const struct tdesc *b = c->in[0], *s = c->in[1];
	uint32_t max = 0;
	int cpb = 0, hasst;
	double iou = 0, st = 0;

	if (opt_u32(c->sc, "maxOutputBoxesPerClass", &max) < 0 ||
	    opt_f64(c->sc, "iouThreshold", &iou) < 0 ||
	    (hasst = opt_f64(c->sc, "scoreThreshold", &st)) < 0 ||
	    opt_bool(c->sc, "centerPointBox", &cpb) < 0)
		return -1;
	kip(c, kdt(b));
	kip(c, b->dims[0]);
	kip(c, s->dims[1]);
	kip(c, b->dims[1]);
	kip(c, max);
	kip(c, cpb != 0);
	kip(c, hasst);
	kip(c, c->out[0].dims[0]);
	kfp(c, iou);
	kfp(c, st);
	kin(c, c->n->in[0]);
	kin(c, c->n->in[1]);
	c->k->scratch = 3 * 8 * (uint64_t)(b->dims[1] + 1);
	return kset(c, "nms");
}

/* nnl's gridSample. */
int
prepare_grid_sample(struct kctx *c)
{
	static const char *const modes[] = { "bilinear", "nearest", "bicubic" };
	static const char *const pads[] = { "zeros", "border", "reflection" };
	const struct tdesc *x = c->in[0], *g = c->in[1];
	const char *mode = "bilinear", *pad = "zeros";
	int ac = 0, m = 0, p = 0;

	if (opt_str(c->sc, "mode", &mode) < 0 ||
	    opt_str(c->sc, "paddingMode", &pad) < 0 ||
	    opt_bool(c->sc, "alignCorners", &ac) < 0)
		return -1;
	while (m < 2 && strcmp(mode, modes[m]))
		m++;
	while (p < 2 && strcmp(pad, pads[p]))
		p++;
	kip(c, kdt(x));
	kshape(c, x);
	kip(c, g->dims[1]);
	kip(c, g->dims[2]);
	kip(c, m);
	kip(c, p);
	kip(c, ac != 0);
	kin(c, c->n->in[0]);
	kin(c, c->n->in[1]);
	return kset(c, "grid_sample");
}

/* nnl's roiAlign. */
int
prepare_roi_align(struct kctx *c)
{
	const struct tdesc *x = c->in[0];
	uint32_t oh = 1, ow = 1, sr = 0;
	double scale = 1;
	const char *mode = "avg", *ctm = "halfPixel";

	if (opt_u32(c->sc, "outputHeight", &oh) < 0 ||
	    opt_u32(c->sc, "outputWidth", &ow) < 0 ||
	    opt_u32(c->sc, "samplingRatio", &sr) < 0 ||
	    opt_f64(c->sc, "spatialScale", &scale) < 0 ||
	    opt_str(c->sc, "mode", &mode) < 0 ||
	    opt_str(c->sc, "coordinateTransformationMode", &ctm) < 0)
		return -1;
	kip(c, kdt(x));
	kshape(c, x);
	kip(c, c->in[1]->dims[0]);
	kip(c, kdt(c->in[2]));
	kip(c, oh);
	kip(c, ow);
	kip(c, sr);
	kip(c, strcmp(mode, "max") == 0);
	kip(c, strcmp(ctm, "halfPixel") == 0);
	kfp(c, scale);
	kin(c, c->n->in[0]);
	kin(c, c->n->in[1]);
	kin(c, c->n->in[2]);
	return kset(c, "roi_align");
}

/* ---- rt/nn/qint.c: matMulInteger, conv2dInteger, requantizeLinear,
 * tfIdfVectorizer; their shape rules (middle/shape_num.c) have checked
 * every option ---- */

/* Batch strides (in matrices) of t's batch dims broadcast to out's q. */
static void
batchstrides(struct kctx *c, const struct tdesc *t, int q,
    const int64_t *dims)
{
	struct tdesc b = *t;

	b.rank -= 2;
	kbstrides(c, &b, q, dims);
}

int
prepare_matmul_integer(struct kctx *c)
{
	const struct tdesc *a = c->in[0], *b = c->in[1], *y = &c->out[0];
	int q = y->rank - 2;

	kip(c, kdt(a));
	kip(c, kdt(b));
	kip(c, kdt(c->in[2]));
	kip(c, kdt(c->in[3]));
	kip(c, a->dims[a->rank - 2]);
	kip(c, a->dims[a->rank - 1]);
	kip(c, b->dims[b->rank - 1]);
	kip(c, q);
	for (int i = 0; i < q; i++)
		kip(c, y->dims[i]);
	batchstrides(c, a, q, y->dims);
	batchstrides(c, b, q, y->dims);
	kshape(c, a);
	kbstrides(c, c->in[2], a->rank, a->dims);
	kshape(c, b);
	kbstrides(c, c->in[3], b->rank, b->dims);
	for (int k = 0; k < 4; k++)
		kin(c, c->n->in[k]);
	c->k->scratch = 4 * (uint64_t)(tdesc_numel(a) + tdesc_numel(b));
	return kset(c, "matmul_int");
}

int
prepare_conv2d_integer(struct kctx *c)
{
	const struct tdesc *x = c->in[0], *w = c->in[1], *y = &c->out[0];
	uint32_t pad[4] = { 0, 0, 0, 0 }, st[2] = { 1, 1 }, dil[2] = { 1, 1 };
	uint32_t g = 1;
	int n;

	if (opt_u32s(c->sc, "padding", pad, 4, &n) < 0 ||
	    opt_u32s(c->sc, "strides", st, 2, &n) < 0 ||
	    opt_u32s(c->sc, "dilations", dil, 2, &n) < 0 ||
	    opt_u32(c->sc, "groups", &g) < 0)
		return -1;
	for (int k = 0; k < 4; k++)
		kip(c, kdt(c->in[k]));
	for (int i = 0; i < 4; i++)
		kip(c, x->dims[i]);
	for (int i = 0; i < 4; i++)
		kip(c, w->dims[i]);
	kip(c, y->dims[2]);
	kip(c, y->dims[3]);
	kip(c, g);
	kip(c, pad[0]);
	kip(c, pad[2]);
	kip(c, st[0]);
	kip(c, st[1]);
	kip(c, dil[0]);
	kip(c, dil[1]);
	kbstrides(c, c->in[2], 4, x->dims);
	kbstrides(c, c->in[3], 4, w->dims);
	for (int k = 0; k < 4; k++)
		kin(c, c->n->in[k]);
	c->k->scratch = 4 * (uint64_t)(tdesc_numel(x) + tdesc_numel(w));
	return kset(c, "conv2d_int");
}

int
prepare_requantize(struct kctx *c)
{
	const struct tdesc *x = c->in[0];

	kip(c, kdt(c->in[1]));
	kip(c, kdt(c->in[2]));
	kshape(c, x);
	kbstrides(c, c->in[1], x->rank, x->dims);
	kbstrides(c, c->in[2], x->rank, x->dims);
	for (int k = 0; k < 3; k++)
		kin(c, c->n->in[k]);
	return kset(c, "requant");
}

/* The items of array option name (numbers), or NULL when absent. */
static const cJSON *
items(struct kctx *c, const char *name)
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(c->n->options,
	    name);

	return cJSON_IsArray(a) ? a : NULL;
}

int
prepare_tfidf(struct kctx *c)
{
	const struct tdesc *x = c->in[0], *y = &c->out[0];
	const char *mode = "tf";
	uint32_t lo = 1, hi = 1, sk = 0;
	int64_t O = y->dims[y->rank - 1];
	const cJSON *cnt = items(c, "ngramCounts"), *w = items(c, "weights");
	const cJSON *pool = items(c, "pool"), *it;

	if (opt_str(c->sc, "mode", &mode) < 0 ||
	    opt_u32(c->sc, "minGramLength", &lo) < 0 ||
	    opt_u32(c->sc, "maxGramLength", &hi) < 0 ||
	    opt_u32(c->sc, "maxSkipCount", &sk) < 0)
		return -1;
	kip(c, kdt(x));
	kip(c, x->rank == 2 ? x->dims[0] : 1);
	kip(c, x->dims[x->rank - 1]);
	kip(c, strcmp(mode, "tf") == 0 ? 0 : strcmp(mode, "idf") == 0 ? 1 :
	    2);
	kip(c, lo);
	kip(c, hi);
	kip(c, sk);
	kip(c, cJSON_GetArraySize(pool));
	kip(c, O);
	kip(c, cJSON_GetArraySize(cnt));
	cJSON_ArrayForEach(it, cnt)
		kip(c, (int64_t)it->valuedouble);
	cJSON_ArrayForEach(it, items(c, "ngramIndexes"))
		kip(c, (int64_t)it->valuedouble);
	cJSON_ArrayForEach(it, pool)
		kip(c, (int64_t)it->valuedouble);
	for (int64_t o = 0; o < O; o++)
		kfp(c, w ? cJSON_GetArrayItem(w, (int)o)->valuedouble : 1);
	kin(c, c->n->in[0]);
	return kset(c, "tfidf");
}

/* nnl's maxPool2dIndices (nchw). */
int
prepare_max_pool2d_indices(struct kctx *c)
{
	const struct tdesc *x = c->in[0], *y = &c->out[0];
	const char *so = "rowMajor";
	uint32_t win[2], pad[4], st[2], dl[2];
	int nw = 0;

	if (opt_str(c->sc, "storageOrder", &so) < 0 ||
	    opt_u32s(c->sc, "windowDimensions", win, 2, &nw) < 0 ||
	    pairs(c, "padding", pad, 4, 0) || pairs(c, "strides", st, 2, 1) ||
	    pairs(c, "dilations", dl, 2, 1))
		return -1;
	if (!nw) {
		win[0] = (uint32_t)x->dims[2];
		win[1] = (uint32_t)x->dims[3];
	}
	if (opt_present(c->sc, "outputSizes"))	/* maxPool2d's rule */
		memset(pad, 0, sizeof pad);
	kip(c, kdt(x));
	for (int i = 0; i < 4; i++)
		kip(c, x->dims[i]);
	kip(c, y->dims[2]);
	kip(c, y->dims[3]);
	kip(c, win[0]); kip(c, win[1]);
	kip(c, st[0]); kip(c, st[1]);
	kip(c, dl[0]); kip(c, dl[1]);
	kip(c, pad[0]); kip(c, pad[2]);
	kip(c, strcmp(so, "columnMajor") == 0);
	kin(c, c->n->in[0]);
	return kset(c, "max_pool2d_indices");
}

/* nnl's det: dt, the number of matrices, their order; n * n doubles
 * of workspace. */
int
prepare_det(struct kctx *c)
{
	const struct tdesc *x = c->in[0];
	int64_t n = x->dims[x->rank - 1], nb = 1;

	for (int i = 0; i < x->rank - 2; i++)
		nb *= x->dims[i];
	kip(c, kdt(x));
	kip(c, nb);
	kip(c, n);
	kin(c, c->n->in[0]);
	c->k->scratch = 8 * (uint64_t)(n * n > 0 ? n * n : 1);
	return kset(c, "det");
}

/* nnl's dft: dt, the dims before the axis, its size, the dims between
 * it and the last, 1 or 2 (real or complex), the transform's length,
 * the bins written, inverse; 2 n doubles of workspace (twiddles). */
int
prepare_dft(struct kctx *c)
{
	const struct tdesc *x = c->in[0], *y = &c->out[0];
	uint32_t axis = 0, n = 0;
	int inv = 0, hasn;
	int64_t outer = 1, inner = 1;

	if (opt_u32(c->sc, "axis", &axis) < 0 ||
	    opt_bool(c->sc, "inverse", &inv) < 0 ||
	    (hasn = opt_u32(c->sc, "dftLength", &n)) < 0)
		return -1;
	if (!hasn)
		n = (uint32_t)x->dims[axis];
	for (int i = 0; i < (int)axis; i++)
		outer *= x->dims[i];
	for (int i = (int)axis + 1; i < x->rank - 1; i++)
		inner *= x->dims[i];
	kip(c, kdt(x));
	kip(c, outer);
	kip(c, x->dims[axis]);
	kip(c, inner);
	kip(c, x->dims[x->rank - 1]);
	kip(c, n);
	kip(c, y->dims[axis]);
	kip(c, inv != 0);
	kin(c, c->n->in[0]);
	c->k->scratch = 16 * (uint64_t)n;
	return kset(c, "dft");
}

/* ---- nnl's 3-D convolutions and pools (rt/nn/nd.c) ---- */

/* A band's column matrix: about a megabyte of floats, 64 columns at
 * least (the SGEMM's tiles), all of them when fewer. */
static int64_t
band3(int64_t rows, int64_t cols)
{
	int64_t nb = (INT64_C(1) << 18) / (rows ? rows : 1);

	nb = nb < 64 ? 64 : nb;
	return nb < cols ? nb : cols;
}

/* nnl_nd_read's parameters: the sizes, the window of k, strides,
 * dilations and padding. */
static int
geometry3(struct kctx *c, int64_t oc, const int64_t *k)
{
	const struct tdesc *x = c->in[0], *y = &c->out[0];
	uint32_t pad[6], st[3], dl[3];

	if (pairs(c, "padding", pad, 6, 0) || pairs(c, "strides", st, 3, 1) ||
	    pairs(c, "dilations", dl, 3, 1))
		return -1;
	kip(c, x->dims[0]);
	kip(c, x->dims[1]);
	for (int i = 0; i < 3; i++)
		kip(c, x->dims[2 + i]);
	kip(c, oc);
	for (int i = 0; i < 3; i++)
		kip(c, y->dims[2 + i]);
	for (int i = 0; i < 3; i++)
		kip(c, k[i]);
	for (int i = 0; i < 3; i++)
		kip(c, st[i]);
	for (int i = 0; i < 3; i++)
		kip(c, dl[i]);
	for (int i = 0; i < 6; i++)
		kip(c, pad[i]);
	return 0;
}

static const char *
bias3(struct kctx *c)
{
	const cJSON *b = cJSON_GetObjectItemCaseSensitive(c->n->options,
	    "bias");

	return cJSON_IsString(b) ? b->valuestring : NULL;
}

/* Both convolutions, for each group an M x band x K product into
 * rows x band floats of columns (M, K and rows of all the groups). */
static int
conv3(struct kctx *c, const char *name, int64_t M, int64_t K, int64_t rows,
    int64_t cols)
{
	const char *b = bias3(c);
	uint32_t groups = 1;
	int64_t nb;

	if (opt_u32(c->sc, "groups", &groups) < 0)
		return -1;
	M /= groups;
	K /= groups;
	rows /= groups;
	nb = band3(rows, cols);
	kip(c, groups);
	kip(c, b != NULL);
	kip(c, nb);
	if (kactivation(c))	/* nnl-fuse's, as conv2d's */
		return -1;
	kin(c, c->n->in[0]);
	kin(c, c->n->in[1]);
	kin(c, b);
	c->k->scratch = 4 * ((uint64_t)nnl_packsize(M, nb, K) *
	    (uint64_t)kernel_threads + (uint64_t)rows * (uint64_t)nb);
	return f16finish(c, name, 3);
}

/* ocg x band x (icg kd kh kw) a band: columns of every tap */
int
prepare_conv3d(struct kctx *c)
{
	const struct tdesc *x = c->in[0], *f = c->in[1], *y = &c->out[0];
	const int64_t *k = f->dims + 2;
	int64_t kd = x->dims[1] * k[0] * k[1] * k[2];

	if (geometry3(c, f->dims[0], k))
		return -1;
	return conv3(c, "conv3d", f->dims[0], kd, kd,
	    y->dims[2] * y->dims[3] * y->dims[4]);
}

/* (ocg kd kh kw) x band x icg a band of the input's positions */
int
prepare_conv_transpose3d(struct kctx *c)
{
	const struct tdesc *x = c->in[0], *f = c->in[1], *y = &c->out[0];
	const int64_t *k = f->dims + 2;
	int64_t r = y->dims[1] * k[0] * k[1] * k[2];

	if (geometry3(c, y->dims[1], k))
		return -1;
	return conv3(c, "conv_transpose3d", r, x->dims[1], r,
	    x->dims[2] * x->dims[3] * x->dims[4]);
}

int
prepare_pool3d(struct kctx *c)
{
	const struct tdesc *x = c->in[0];
	uint32_t win[3], p = 2;
	int64_t k[3];
	int incl = 0, got = 0;

	if (opt_u32s(c->sc, "windowDimensions", win, 3, &got) < 0 ||
	    (c->n->op == OP_AVERAGE_POOL3D &&
	    opt_bool(c->sc, "countIncludePad", &incl) < 0) ||
	    (c->n->op == OP_LP_POOL3D && opt_u32(c->sc, "p", &p) < 0))
		return -1;
	for (int i = 0; i < 3; i++)
		k[i] = got ? win[i] : x->dims[2 + i];
	kip(c, c->n->op == OP_AVERAGE_POOL3D ? 0 : c->n->op == OP_LP_POOL3D ?
	    1 : 2);
	if (geometry3(c, x->dims[1], k))
		return -1;
	kip(c, incl != 0);
	kip(c, p);
	kin(c, c->n->in[0]);
	return f16finish(c, "pool3d", 1);
}
