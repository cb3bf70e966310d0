/*
 * kern_nd: prepares the kernels of rt/nn/nd.c, nnl's 3-D convolutions
 * and pools (beyond WebNN): the geometry every one of them reads, the
 * band of positions a convolution's column matrix holds and the
 * scratch that takes.  Float16 runs through the float32 kernels.
 */
#define NNL_RT /* rt/f32-gemm/gemm.c is in libnnl: extern */
#include <string.h>

#include "kernel.h"
#include "opts.h"
#include "threads.h"

/* A band's column matrix: about a megabyte of floats, 64 columns at
 * least (the SGEMM's tiles), all of them when fewer. */
static int64_t
band(int64_t rows, int64_t cols)
{
	int64_t nb = (INT64_C(1) << 18) / (rows ? rows : 1);

	nb = nb < 64 ? 64 : nb;
	return nb < cols ? nb : cols;
}

static int
list(struct kctx *c, const char *name, uint32_t *v, int n, uint32_t dflt)
{
	int got = 0;

	if (opt_u32s(c->sc, name, v, n, &got) < 0)
		return -1;
	if (!got)
		for (int i = 0; i < n; i++)
			v[i] = dflt;
	return 0;
}

/* nnl_nd_read's parameters: the sizes, the window of k, strides,
 * dilations and padding. */
static int
geometry(struct kctx *c, int64_t oc, const int64_t *k)
{
	const struct tdesc *x = c->in[0], *y = &c->out[0];
	uint32_t pad[6], st[3], dl[3];

	if (list(c, "padding", pad, 6, 0) || list(c, "strides", st, 3, 1) ||
	    list(c, "dilations", dl, 3, 1))
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
bias(struct kctx *c)
{
	const cJSON *b = cJSON_GetObjectItemCaseSensitive(c->n->options,
	    "bias");

	return cJSON_IsString(b) ? b->valuestring : NULL;
}

/* Both convolutions, for each group an M x band x K product into
 * rows x band floats of columns (M, K and rows of all the groups). */
static int
conv(struct kctx *c, const char *name, int64_t M, int64_t K, int64_t rows,
    int64_t cols)
{
	const char *b = bias(c);
	uint32_t groups = 1;
	int64_t nb;

	if (opt_u32(c->sc, "groups", &groups) < 0)
		return -1;
	M /= groups;
	K /= groups;
	rows /= groups;
	nb = band(rows, cols);
	kip(c, groups);
	kip(c, b != NULL);
	kip(c, nb);
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

	if (geometry(c, f->dims[0], k))
		return -1;
	return conv(c, "conv3d", f->dims[0], kd, kd,
	    y->dims[2] * y->dims[3] * y->dims[4]);
}

/* (ocg kd kh kw) x band x icg a band of the input's positions */
int
prepare_conv_transpose3d(struct kctx *c)
{
	const struct tdesc *x = c->in[0], *f = c->in[1], *y = &c->out[0];
	const int64_t *k = f->dims + 2;
	int64_t r = y->dims[1] * k[0] * k[1] * k[2];

	if (geometry(c, y->dims[1], k))
		return -1;
	return conv(c, "conv_transpose3d", r, x->dims[1], r,
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
	if (geometry(c, x->dims[1], k))
		return -1;
	kip(c, incl != 0);
	kip(c, p);
	kin(c, c->n->in[0]);
	return f16finish(c, "pool3d", 1);
}
