/*
 * nnl_write: a typed graph back to an NNL model and a directory of .npy
 * weights, when its nodes fit NNL's layers: what `nnc import -o x.nnl`
 * gives an ONNX model.  The graph is in NCHW with a batch of 1, as
 * ONNX models are; NNL is batch-free HWC, so 4-D operands become
 * [H, W, C], 3-D ones [L, C], 2-D ones [K].  A Flatten of [H, W, C]
 * lists its features in HWC order, ONNX's in CHW order: each [K]
 * value carries the order of its features (nnl_perm.h) through the
 * layers that keep it (activations, BatchNorm, LayerNorm, Softmax,
 * FakeQuant, an Add or Mul of two values in one order, Concat), whose
 * per-feature parameters are permuted to it, to the Dense that
 * consumes it by permuting its weight rows; any other layer reading
 * features out of ONNX's order, and such features as the model's
 * output, are refused.  Every node that fits no layer is named in one
 * error.
 */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "checked.h"
#include "escape.h"
#include "eval.h"
#include "graph.h"
#include "nnl.h"
#include "nnl_perm.h"
#include "npy.h"

/* What each operand is in the NNL model. */
struct val {
	char *layer;		/* the layer computing it; NULL: none */
	int rank;		/* its NNL (batch-free) rank */
	const int64_t *perm;	/* rank 1: NNL's feature r is ONNX's
				   perm[r]; NULL: the same (nnl_perm.h) */
};

struct nw {
	struct graph *g;
	struct buf layers, conns;
	struct buf refused;
	int nrefused;
	const char *dir;	/* weights directory */
	char **names;		/* layer names used */
	int nnames;
	int err;
	int comment;		/* refused nodes as // UNSUPPORTED comments */
	int ncomments;
	int64_t **perms;	/* the orders made, freed at the end */
	int nperms;
};

static struct val *
val(struct nw *w, const char *opnd)
{
	struct operand *o = graph_find(w->g, opnd);

	return o ? (struct val *)o->aux : NULL;
}

/* Refuse node n, then go on as if a layer computed its outputs, so
 * that what follows is checked on its own. */
static char *ident(struct nw *w, const char *name);

static int
nofit(struct nw *w, struct node *n, const char *why)
{
	int permuted = 0;

	/* a layer written in place of the comment would read features
	 * in NNL's order, not ONNX's: what follows could not be right */
	for (int i = 0; i < n->nin; i++)
		permuted |= val(w, n->in[i]) && val(w, n->in[i])->perm;
	if (w->comment && !permuted) {
		/* the seed's form; what reads it is named after the node,
		 * so a layer of that name replaces the comment */
		char *id = ident(w, n->nout ? n->out[0] : n->id);

		const char *from[64];
		int nf = 0;

		buf_printf(&w->layers, "    // UNSUPPORTED: %s(%s): %s\n",
		    escape_tty_name(n->opname), id, why);
		w->ncomments++;
		/* its wiring, for the layer that replaces it */
		for (int i = 0; i < n->nin && nf < 64; i++)
			if (val(w, n->in[i]) && val(w, n->in[i])->layer)
				from[nf++] = n->in[i];
		if (nf == 1)
			buf_printf(&w->conns, "        %s -> %s;\n",
			    val(w, from[0])->layer, id);
		for (int i = 0; nf > 1 && i <= nf; i++)
			buf_printf(&w->conns, i == 0 ? "        [%s" : i < nf ?
			    ", %s" : "] -> %s;\n", i < nf ?
			    val(w, from[i])->layer : id);
		for (int k = 0; k < n->nout; k++) {
			struct val *v = val(w, n->out[k]);
			int r = n->types ? n->types[k].rank : 0;

			v->layer = k ? (char *)"?" : id;
			v->rank = r == 4 ? 3 : r == 2 ? 1 : r;
		}
		return 1;
	}
	buf_printf(&w->refused, "\n  node \"%s\" (%s): %s%s",
	    escape_tty_name(n->id),
	    escape_tty_name(n->opname), why, permuted && w->comment ?
	    " (not a comment: its input is a Flatten's features, in HWC "
	    "order where ONNX has CHW)" : "");
	w->nrefused++;
	for (int k = 0; k < n->nout; k++) {
		struct val *v = val(w, n->out[k]);
		int r = n->types ? n->types[k].rank : 0;

		v->layer = (char *)"?";
		v->rank = r == 4 ? 3 : r == 2 ? 1 : r;
	}
	return 1;
}

/* An NNL identifier from an operand name, unique. */
static char *
ident(struct nw *w, const char *name)
{
	struct buf b = { 0 };
	char *s, *base;

	/* at most 64 characters (the reader keeps 255); the table below
	 * keeps layer names distinct */
	for (const char *p = name; *p && b.n < 64; p++) {
		int ok = (*p >= 'a' && *p <= 'z') || (*p >= 'A' &&
		    *p <= 'Z') || (*p >= '0' && *p <= '9');

		if (ok)
			buf_putc(&b, *p);
		else if (b.n && b.s[b.n - 1] != '_')
			buf_putc(&b, '_');
	}
	while (b.n && b.s[b.n - 1] == '_')
		b.s[--b.n] = 0;
	/* what a name already taken is numbered from: a copy, as s may
	 * be b.s and is freed then */
	base = xstrdup(b.n && !(b.s[0] >= '0' && b.s[0] <= '9') ? b.s :
	    "l");
	if (!b.n || (b.s[0] >= '0' && b.s[0] <= '9')) {
		s = xasprintf("l_%s", b.s ? b.s : "");
		free(b.s);
	} else {
		s = b.s;
	}
	for (int k = 2;; k++) {
		int used = 0;

		for (int i = 0; i < w->nnames; i++)
			used |= strcmp(w->names[i], s) == 0;
		if (!used)
			break;
		free(s);
		s = xasprintf("%s_%d", base, k);
	}
	free(base);
	w->names = xrealloc(w->names, (size_t)(w->nnames + 1) *
	    sizeof *w->names);
	w->names[w->nnames++] = s;
	return s;
}

static struct operand *
cst(struct nw *w, const char *name)
{
	struct operand *o = name ? graph_find(w->g, name) : NULL;

	return o && o->kind == OPND_CONST && o->desc.dt == DT_FLOAT32 ? o :
	    NULL;
}

static float *
floats(struct nw *w, struct operand *c)
{
	uint64_t nb;

	return const_bytes(w->g, c, &nb);
}

static int
save(struct nw *w, const char *layer, const char *param, int rank,
    const int64_t *dims, const float *data)
{
	char *p = xasprintf("%s/%s.%s.npy", w->dir, layer, param);
	uint64_t n = 1;
	int rc;

	for (int i = 0; i < rank; i++)
		n *= (uint64_t)dims[i];
	rc = npy_save(p, DT_FLOAT32, rank, dims, data, n * 4);
	if (rc)
		w->err = 1;
	free(p);
	return rc;
}

static double
num(struct node *n, const char *name, double dflt)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(n->options, name);

	return cJSON_IsNumber(v) ? v->valuedouble : dflt;
}

static const char *
str(struct node *n, const char *name, const char *dflt)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(n->options, name);

	return cJSON_IsString(v) ? v->valuestring : dflt;
}

static int
truth(struct node *n, const char *name)
{
	return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(n->options,
	    name));
}

/* A u32 list option into v (k items, dflt when absent). */
static int
list(struct node *n, const char *name, int64_t *v, int k, int64_t dflt)
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(n->options, name);

	for (int i = 0; i < k; i++)
		v[i] = dflt;
	if (!a)
		return 0;
	if (cJSON_GetArraySize(a) != k)
		return -1;
	for (int i = 0; i < k; i++)	/* whole, 0 to 2^32 - 1: no cast */
		if (!cJSON_IsNumber(cJSON_GetArrayItem(a, i)) ||
		    checked_double_i64(cJSON_GetArrayItem(a, i)->valuedouble,
		    0, CHECKED_MAXDIM, &v[i]) != 0)
			return -1;
	return 0;
}

/* The number of features of operand name, a [K] value in NNL. */
static int64_t
feats(struct nw *w, const char *name)
{
	return (int64_t)tdesc_numel(operand_type(graph_find(w->g, name)));
}

/* An order made, kept to be freed at the end. */
static const int64_t *
keepperm(struct nw *w, int64_t *p)
{
	if (!p)
		return NULL;
	w->perms = xrealloc(w->perms, (size_t)(w->nperms + 1) *
	    sizeof *w->perms);
	w->perms[w->nperms++] = p;
	return p;
}

/* The layers whose output lists its features in the order of its
 * inputs': elementwise, or per feature with the parameters saved in
 * that order (savefeat). */
static const char *const keeps[] = { "ReLU", "ReLU6", "Sigmoid",
    "Hardswish", "LeakyReLU", "Softmax", "FakeQuant", "BatchNorm",
    "LayerNorm", "Dropout", "Add", "Mul" };

/* The order of the features of the output (of NNL rank rank) that a
 * layer of type type computes from ins, into *p: 0, or 1 with *why set
 * when that layer would not compute ONNX's numbers from inputs in
 * their order. */
static int
order(struct nw *w, const char *type, const char **ins, int nin,
    int rank, const int64_t **p, const char **why)
{
	const struct val *a = val(w, ins[0]);
	int keep = 0;

	*p = NULL;
	if (!strcmp(type, "Dense"))
		return 0;	/* dense() permutes its weight rows */
	if (!strcmp(type, "Flatten")) {
		const struct tdesc *t = operand_type(graph_find(w->g,
		    ins[0]));

		if (a->rank == 3 && t->rank == 4)
			*p = keepperm(w, nnl_perm_flatten(t->dims[1],
			    t->dims[2], t->dims[3]));
		else if (a->rank == 2 && t->rank == 3)	/* [L, C] */
			*p = keepperm(w, nnl_perm_flatten(t->dims[1],
			    t->dims[2], 1));
		else
			*p = a->perm;
		return 0;
	}
	if (!strcmp(type, "Concat") && rank == 1) {
		const int64_t **ps = xcalloc((size_t)nin, sizeof *ps);
		int64_t *len = xcalloc((size_t)nin, sizeof *len);

		for (int i = 0; i < nin; i++) {
			ps[i] = val(w, ins[i])->perm;
			len[i] = feats(w, ins[i]);
		}
		*p = keepperm(w, nnl_perm_concat(nin, ps, len));
		free(ps);
		free(len);
		return 0;
	}
	for (size_t i = 0; i < sizeof keeps / sizeof *keeps; i++)
		keep |= !strcmp(type, keeps[i]);
	for (int i = 0; i < nin; i++) {
		const struct val *b = val(w, ins[i]);

		if (!keep && b->perm) {
			*why = "it reads a Flatten's features, in HWC order "
			    "where ONNX has CHW, and is not elementwise";
			return 1;
		}
		if (keep && (b->rank != a->rank ||
		    !nnl_perm_same(a->perm, b->perm, feats(w, ins[0])))) {
			*why = "its inputs list their features in different "
			    "orders (a Flatten's HWC and ONNX's CHW)";
			return 1;
		}
	}
	if (keep && rank == 1)
		*p = a->perm;
	return 0;
}

/* Declare the layer computing node n's output from its inputs: 0, or
 * 1 when refused (order()). */
static int
layer(struct nw *w, struct node *n, const char **ins, int nin, int rank,
    const char *fmt, ...) NNL_PRINTF(6, 7);

static int
layer(struct nw *w, struct node *n, const char **ins, int nin, int rank,
    const char *fmt, ...)
{
	struct val *v = val(w, n->out[0]);
	const int64_t *perm;
	const char *why = NULL;
	va_list ap;
	char *s, *type;

	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	type = xstrndup(s, strcspn(s, "("));
	if (order(w, type, ins, nin, rank, &perm, &why)) {
		struct node f = *n;

		f.in = (char **)ins;
		f.nin = nin;
		free(type);
		free(s);
		return nofit(w, &f, why);
	}
	free(type);
	v->layer = ident(w, n->out[0]);
	v->rank = rank;
	v->perm = perm;
	buf_printf(&w->layers, "    layer %s = %s;\n", v->layer, s);
	free(s);
	if (nin == 1) {
		buf_printf(&w->conns, "        %s -> %s;\n",
		    val(w, ins[0])->layer, v->layer);
	} else {
		buf_puts(&w->conns, "        [");
		for (int i = 0; i < nin; i++)
			buf_printf(&w->conns, "%s%s", i ? ", " : "",
			    val(w, ins[i])->layer);
		buf_printf(&w->conns, "] -> %s;\n", v->layer);
	}
	return 0;
}

/* Save the per-feature vector d of K floats of the layer computing
 * opnd in the order of its features. */
static void
savefeat(struct nw *w, const char *opnd, const char *param, int64_t K,
    const float *d)
{
	const struct val *v = val(w, opnd);
	float *t = nnl_perm_rows(v->perm, d, K, 1);

	save(w, v->layer, param, 1, &K, t);
	free(t);
}

/* The operand read as a layer's input: computed by a layer, batch 1. */
static struct val *
src(struct nw *w, const char *name)
{
	struct val *v = val(w, name);
	const struct operand *o = graph_find(w->g, name);
	const struct tdesc *t;

	/* a name no operand has (an ONNX operator's optional input that
	 * the graph lost) is no layer's output */
	if (!v || !v->layer || !o)
		return NULL;
	t = operand_type(o);
	return t->rank < 1 || t->dims[0] != 1 ? NULL : v;
}

static void
alias(struct nw *w, struct node *n, const struct val *from)
{
	struct val *v = val(w, n->out[0]);

	*v = *from;
	v->layer = from->layer;
}

static int
conv(struct nw *w, struct node *n)
{
	const struct tdesc *x = operand_type(graph_find(w->g, n->in[0]));
	struct operand *f = cst(w, n->in[1]);
	struct operand *b = cst(w, str(n, "bias", NULL));
	int64_t st[2], dl[2], pad[4], same[4];
	int64_t g;
	const char *pd;
	struct val *v = src(w, n->in[0]);
	float *fw, *bw;
	int64_t O, bdim;
	char gs[48], ps[128];

	if (!v || v->rank != 3 || !f || f->desc.rank != 4 ||
	    (str(n, "bias", NULL) && !b) || checked_double_i64(num(n,
	    "groups", 1), 1, CHECKED_MAXDIM, &g) != 0)
		return nofit(w, n, "not a float32 convolution of a layer "
		    "with constant weights");
	if (strcmp(str(n, "inputLayout", "nchw"), "nchw") ||
	    strcmp(str(n, "filterLayout", "oihw"), "oihw") ||
	    list(n, "strides", st, 2, 1) || list(n, "dilations", dl, 2, 1) ||
	    list(n, "padding", pad, 4, 0) || dl[0] != 1 || dl[1] != 1)
		return nofit(w, n, "layouts other than NCHW/OIHW or dilations "
		    "(Conv2D has neither)");
	for (int i = 0; i < 2; i++) {
		int64_t in = x->dims[2 + i], k = f->desc.dims[2 + i];
		int64_t o = (in + st[i] - 1) / st[i];
		int64_t t = (o - 1) * st[i] + k - in;

		t = t < 0 ? 0 : t;
		same[2 * i] = t / 2;
		same[2 * i + 1] = t - t / 2;
	}
	if (!pad[0] && !pad[1] && !pad[2] && !pad[3])
		pd = "valid";
	else if (!memcmp(pad, same, sizeof pad))
		pd = "same";
	else
		pd = NULL;	/* per side: [top, left, bottom, right] */
	O = f->desc.dims[0];
	snprintf(gs, sizeof gs, ", groups: %lld", (long long)g);
	if (pd)
		snprintf(ps, sizeof ps, "\"%s\"", pd);
	else
		snprintf(ps, sizeof ps, "[%lld, %lld, %lld, %lld]",
		    (long long)pad[0], (long long)pad[2], (long long)pad[1],
		    (long long)pad[3]);
	if (layer(w, n, (const char **)n->in, 1, 3, "Conv2D(filters: %lld, "
	    "kernel: [%lld, %lld], stride: [%lld, %lld], padding: %s%s)",
	    (long long)O, (long long)f->desc.dims[2],
	    (long long)f->desc.dims[3], (long long)st[0], (long long)st[1], ps,
	    g > 1 ? gs : ""))
		return 1;
	if (!(fw = floats(w, f)))
		return w->err = 1;
	save(w, val(w, n->out[0])->layer, "weight", 4, f->desc.dims, fw);
	free(fw);
	bw = b ? floats(w, b) : xcalloc((size_t)O, sizeof *bw);
	bdim = O;
	if (bw)
		save(w, val(w, n->out[0])->layer, "bias", 1, &bdim, bw);
	free(bw);
	return 0;
}

static int
pool(struct nw *w, struct node *n, const int64_t *extra)
{
	const struct tdesc *x = operand_type(graph_find(w->g, n->in[0]));
	int64_t win[2], st[2], dl[2], pad[4];
	struct val *v = src(w, n->in[0]);
	int max = n->op == OP_MAX_POOL2D, global = 0;
	char ps[128];

	if (!v || v->rank != 3 || strcmp(str(n, "layout", "nchw"), "nchw") ||
	    list(n, "strides", st, 2, 1) || list(n, "dilations", dl, 2, 1) ||
	    list(n, "padding", pad, 4, 0) || dl[0] != 1 || dl[1] != 1 ||
	    strcmp(str(n, "outputShapeRounding", "floor"), "floor") ||
	    cJSON_GetObjectItemCaseSensitive(n->options, "outputSizes"))
		return nofit(w, n, "a pool NNL's layers cannot express "
		    "(layout, dilations, rounding)");
	if (list(n, "windowDimensions", win, 2, 0) || !win[0]) {
		win[0] = x->dims[2];
		win[1] = x->dims[3];
		global = 1;
	}
	for (int i = 0; extra && i < 4; i++)	/* a pad node's, folded */
		pad[i] += extra[i];
	/* the global form; a window that happens to be the whole input
	 * stays an AvgPool2D, whose [1, 1, C] a Conv2D can still read */
	if (!max && global && !pad[0] && !pad[1] && !pad[2] && !pad[3])
		return layer(w, n, (const char **)n->in, 1, 1,
		    "GlobalAvgPool2D()");
	if (!max && (pad[0] || pad[1] || pad[2] || pad[3]))
		return nofit(w, n, "a padded average pool");
	snprintf(ps, sizeof ps, ", padding: [%lld, %lld, %lld, %lld]",
	    (long long)pad[0], (long long)pad[2], (long long)pad[1],
	    (long long)pad[3]);
	return layer(w, n, (const char **)n->in, 1, 3, "%s(kernel: [%lld, "
	    "%lld], stride: [%lld, %lld]%s)", max ? "MaxPool2D" : "AvgPool2D",
	    (long long)win[0], (long long)win[1], (long long)st[0],
	    (long long)st[1], pad[0] || pad[1] || pad[2] || pad[3] ? ps : "");
}

/* Dense from gemm or matmul: a [1, K] by [K, U] (or [U, K] transposed)
 * plus a bias. */
static int
dense(struct nw *w, struct node *n, const char *bias)
{
	struct val *v = src(w, n->in[0]);
	const struct tdesc *x = operand_type(graph_find(w->g, n->in[0]));
	struct operand *b = cst(w, n->in[1]), *c = cst(w, bias);
	int bt = n->op == OP_GEMM && truth(n, "bTranspose");
	int64_t K, U, dims[2];
	float *bw, *cw, *W;
	const char *name;
	const int64_t *perm;

	if (!v || v->rank != 1 || x->rank != 2 || !b || b->desc.rank != 2 ||
	    b->desc.dims[bt ? 1 : 0] != x->dims[1] ||
	    (bias && !c) || (n->op == OP_GEMM && (truth(n, "aTranspose") ||
	    num(n, "alpha", 1) != 1 || num(n, "beta", 1) != 1)))
		return nofit(w, n, "not a [1, K] layer times constant "
		    "float32 weights plus a constant bias");
	K = b->desc.dims[bt ? 1 : 0];
	U = b->desc.dims[bt ? 0 : 1];
	perm = v->perm;		/* v may be the output's (matmul + add) */
	if (c && tdesc_numel(&c->desc) != (uint64_t)U)
		return nofit(w, n, "a bias that is not one per unit");
	if (layer(w, n, (const char **)n->in, 1, 1, "Dense(units: %lld)",
	    (long long)U))
		return 1;
	name = val(w, n->out[0])->layer;
	if (!(bw = floats(w, b)))
		return w->err = 1;
	W = xcalloc((size_t)(K * U), sizeof *W);
	for (int64_t r = 0; r < K; r++) {
		/* NNL's row r is ONNX's row perm[r] */
		int64_t s = perm ? perm[r] : r;

		for (int64_t u = 0; u < U; u++)
			W[r * U + u] = bt ? bw[u * K + s] : bw[s * U + u];
	}
	dims[0] = K;
	dims[1] = U;
	save(w, name, "weight", 2, dims, W);
	free(W);
	free(bw);
	cw = c ? floats(w, c) : xcalloc((size_t)U, sizeof *cw);
	if (cw)
		save(w, name, "bias", 1, &U, cw);
	free(cw);
	return 0;
}

static int
batchnorm(struct nw *w, struct node *n)
{
	struct val *v = src(w, n->in[0]);
	struct operand *mu = cst(w, n->in[1]), *var = cst(w, n->in[2]);
	struct operand *sc = cst(w, str(n, "scale", NULL));
	struct operand *bi = cst(w, str(n, "bias", NULL));
	const char *p[4] = { "gamma", "beta", "running_mean", "running_var" };
	struct operand *o[4] = { sc, bi, mu, var };
	const struct tdesc *x = operand_type(graph_find(w->g, n->in[0]));
	int64_t C;

	if (!v || !mu || !var || num(n, "axis", 1) != 1 || x->rank < 2 ||
	    (str(n, "scale", NULL) && !sc) || (str(n, "bias", NULL) && !bi))
		return nofit(w, n, "not over the channels with constant "
		    "statistics");
	C = x->dims[1];
	for (int i = 0; i < 4; i++)
		if (o[i] && tdesc_numel(&o[i]->desc) != (uint64_t)C)
			return nofit(w, n, "statistics that are not one per "
			    "channel");
	if (v->rank == 1 && feats(w, n->in[0]) != C)
		return nofit(w, n, "not over the features of a [1, K] layer");
	if (layer(w, n, (const char **)n->in, 1, v->rank,
	    "BatchNorm(epsilon: %.9g)", num(n, "epsilon", 1e-5)))
		return 1;
	for (int i = 0; i < 4; i++) {
		float *d = o[i] ? floats(w, o[i]) : xcalloc((size_t)C, 4);

		if (!o[i] && i == 0)
			for (int64_t k = 0; k < C; k++)
				d[k] = 1;
		if (d)
			savefeat(w, n->out[0], p[i], C, d);
		free(d);
	}
	return 0;
}

/* mkdir -p */
static int
mkdirs(const char *dir)
{
	char *p = xstrdup(dir);
	int rc = 0;

	for (char *s = p + 1; *s && rc == 0; s++)
		if (*s == '/') {
			*s = 0;
			if (mkdir(p, 0777) != 0 && errno != EEXIST)
				rc = -1;
			*s = '/';
		}
	if (rc == 0 && mkdir(p, 0777) != 0 && errno != EEXIST)
		rc = -1;
	free(p);
	return rc;
}

/* dir as the NNL file at path names it: relative to the file's folder
 * (both made absolute first), or absolute when that fails. */
static char *
relpath(const char *path, const char *dir)
{
	char *pd = path_dirname(path);
	char *a = realpath(pd, NULL), *b = realpath(dir, NULL);
	struct buf r = { 0 };
	size_t i = 0, k;

	free(pd);
	if (!a || !b) {
		free(a);
		free(b);
		return xstrdup(dir);
	}
	/* the longest common prefix ending at a '/' */
	for (k = 0; a[k] && a[k] == b[k]; k++)
		if (a[k] == '/')
			i = k;
	if (!a[k] && (b[k] == '/' || !b[k]))
		i = k;
	else if (!b[k] && a[k] == '/')
		i = k;
	for (const char *p = a + i; *p; p++)
		if (*p == '/')
			buf_puts(&r, "../");
	buf_puts(&r, b[i] == '/' ? b + i + 1 : b + i);
	if (!r.n)
		buf_puts(&r, ".");
	free(a);
	free(b);
	return r.s;
}

/* ---- ONNX operators decomposed by the importer (its --origins) ---- */

static const cJSON *
origin(const struct node *n)
{
	return cJSON_GetObjectItemCaseSensitive(n->extra, "onnx");
}

static const char *
ostr(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsString(v) ? v->valuestring : "";
}

static double
attr(const cJSON *o, const char *key, double dflt)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(
	    cJSON_GetObjectItemCaseSensitive(o, "attrs"), key);

	return cJSON_IsNumber(v) ? v->valuedouble : cJSON_IsArray(v) &&
	    cJSON_GetArraySize(v) == 1 ?
	    cJSON_GetArrayItem(v, 0)->valuedouble : dflt;
}

/* attrs[key] into v[k]: 0, or -1 when present with another length
 * or with a value that is not a whole number from 0 to 2^32 - 1 (a
 * pad, kernel or stride: NaN and 1e300 are none, never cast) */
static int
attrs(const cJSON *o, const char *key, int64_t *v, int k, int64_t dflt)
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(
	    cJSON_GetObjectItemCaseSensitive(o, "attrs"), key);

	for (int i = 0; i < k; i++)
		v[i] = dflt;
	if (!a)
		return 0;
	if (cJSON_GetArraySize(a) != k)
		return -1;
	for (int i = 0; i < k; i++)
		if (!cJSON_IsNumber(cJSON_GetArrayItem(a, i)) ||
		    checked_double_i64(cJSON_GetArrayItem(a, i)->valuedouble,
		    0, CHECKED_MAXDIM, &v[i]) != 0)
			return -1;
	return 0;
}

static const char *
oin(const cJSON *o, int i)
{
	const cJSON *v = cJSON_GetArrayItem(
	    cJSON_GetObjectItemCaseSensitive(o, "inputs"), i);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* LRN across the channels of a [C, H, W] layer: NNL's LRN. */
static int
group_lrn(struct nw *w, struct node *last, struct node *fake,
    const cJSON *o)
{
	const char *x = oin(o, 0);
	struct val *v = x ? src(w, x) : NULL;

	if (!v || v->rank != 3 || attr(o, "size", 0) < 1)
		return nofit(w, fake, "an LRN not across the channels "
		    "of a layer");
	return layer(w, last, &x, 1, 3, "LRN(size: %lld, alpha: %.9g, "
	    "beta: %.9g, bias: %.9g)", (long long)attr(o, "size", 0),
	    attr(o, "alpha", 1e-4), attr(o, "beta", 0.75),
	    attr(o, "bias", 1));
}

/* LayerNormalization over the features of a [1, K] layer: LayerNorm,
 * its constant scale and bias as gamma and beta. */
static int
group_layernorm(struct nw *w, struct node *last, struct node *fake,
    const cJSON *o)
{
	const char *x = oin(o, 0);
	struct val *v = x ? src(w, x) : NULL;
	const struct tdesc *t = x && graph_find(w->g, x) ?
	    operand_type(graph_find(w->g, x)) : NULL;
	struct operand *g = cst(w, oin(o, 1)), *b = cst(w, oin(o, 2));
	int64_t K;
	float *d;

	if (!v || v->rank != 1 || !t || t->rank != 2 || !g ||
	    (oin(o, 2) && !b) || (attr(o, "axis", -1) != -1 &&
	    attr(o, "axis", -1) != 1) ||
	    tdesc_numel(&g->desc) != (uint64_t)t->dims[1])
		return nofit(w, fake, "a LayerNormalization not over "
		    "the features of a [1, K] layer with constant "
		    "scale and bias");
	K = t->dims[1];
	if (layer(w, last, &x, 1, 1, "LayerNorm(epsilon: %.9g)",
	    attr(o, "epsilon", 1e-5)))
		return 1;
	if ((d = floats(w, g)))
		savefeat(w, last->out[0], "gamma", K, d);
	free(d);
	d = b ? floats(w, b) : xcalloc((size_t)K, sizeof *d);
	if (d)
		savefeat(w, last->out[0], "beta", K, d);
	free(d);
	return 0;
}

/* A padded AveragePool of a [C, H, W] layer: ONNX's pads [top, left,
 * bottom, right], padded cells left out of the average, are NNL
 * AvgPool2D's; -1 when unpadded (the averagePool2d alone). */
static int
group_avgpool(struct nw *w, struct node *last, struct node *fake,
    const cJSON *o)
{
	const char *x = oin(o, 0);
	struct val *v = x ? src(w, x) : NULL;
	int64_t k[2], st[2], p[4];

	if (attrs(o, "pads", p, 4, 0) || (!p[0] && !p[1] && !p[2] &&
	    !p[3]))
		return -1;	/* unpadded: the averagePool2d alone */
	if (!v || v->rank != 3 || attrs(o, "kernel_shape", k, 2, 0) ||
	    attrs(o, "strides", st, 2, 1) ||
	    attr(o, "count_include_pad", 0) != 0 ||
	    attr(o, "ceil_mode", 0) != 0 || !k[0] || !k[1])
		return nofit(w, fake, "a padded AveragePool that counts "
		    "the padding, or rounds up (AvgPool2D does neither)");
	return layer(w, last, &x, 1, 3, "AvgPool2D(kernel: [%lld, "
	    "%lld], stride: [%lld, %lld], padding: [%lld, %lld, %lld, "
	    "%lld])",
	    (long long)k[0], (long long)k[1], (long long)st[0],
	    (long long)st[1], (long long)p[0], (long long)p[1],
	    (long long)p[2], (long long)p[3]);
}

/*
 * The conv2d the importer made of the 1-D Conv o: its [O, C, 1, k]
 * filter (the reshape of the ONNX weight) and bias; its dimensions
 * [O, C, k] into fd.  NULL when there is none of that form.
 */
static struct operand *
group_filter(struct nw *w, const cJSON *o, struct operand **b,
    int64_t *fd)
{
	struct operand *f = NULL;

	for (size_t i = 0; i < w->g->nnodes; i++) {
		struct node *c = w->g->nodes[i];

		if (c->op == OP_CONV2D && origin(c) && c->nin >= 2 &&
		    !strcmp(ostr(origin(c), "node"), ostr(o, "node"))) {
			f = cst(w, c->in[1]);
			*b = cst(w, str(c, "bias", NULL));
			if (str(c, "bias", NULL) && !*b)
				f = NULL;
		}
	}
	if (f && f->desc.rank == 4 && f->desc.dims[2] == 1) {
		fd[0] = f->desc.dims[0];
		fd[1] = f->desc.dims[1];
		fd[2] = f->desc.dims[3];
		return f;
	}
	return NULL;
}

/* A 1-D Conv or MaxPool of a [1, C, L] input: Conv1D (with its weight
 * and bias) or MaxPool1D, padded "valid" or "same". */
static int
group_1d(struct nw *w, struct node *last, struct node *fake,
    const cJSON *o)
{
	const char *x = oin(o, 0);
	struct val *v = x ? src(w, x) : NULL;
	const struct tdesc *t = operand_type(graph_find(w->g, x));
	int conv = !strcmp(ostr(o, "op"), "Conv");
	struct operand *f = NULL, *b = NULL;
	int64_t fd[3];
	int64_t k, st, dl, pads[2], L = t->dims[2], O, bd;
	const char *pd;
	float *d;

	if (conv)
		f = group_filter(w, o, &b, fd);
	/* kernel and stride whole numbers of 1 to 2^32 - 1 */
	if (!v || v->rank != 2 || attrs(o, "pads", pads, 2, 0) ||
	    attr(o, "dilations", 1) != 1 ||
	    attr(o, "ceil_mode", 0) != 0 ||
	    (conv && (!f || attr(o, "group", 1) != 1)) ||
	    checked_double_i64(attr(o, "kernel_shape", 0), 0,
	    CHECKED_MAXDIM, &k) != 0 || checked_double_i64(attr(o,
	    "strides", 1), 1, CHECKED_MAXDIM, &st) != 0)
		return nofit(w, fake, "a 1-D Conv or MaxPool NNL's "
		    "Conv1D and MaxPool1D cannot express");
	if (conv)
		k = fd[2];
	dl = ((L + st - 1) / st - 1) * st + k - L;
	dl = dl < 0 ? 0 : dl;
	if (!pads[0] && !pads[1])
		pd = "valid";
	else if (conv && pads[0] == dl / 2 && pads[1] == dl - dl / 2)
		pd = "same";
	else
		return nofit(w, fake, "1-D padding that is neither "
		    "\"valid\" nor \"same\"");
	if (!conv) {
		return layer(w, last, &x, 1, 2, "MaxPool1D(kernel: "
		    "%lld, stride: %lld)", (long long)k, (long long)st);
	}
	O = fd[0];
	if (layer(w, last, &x, 1, 2, "Conv1D(filters: %lld, kernel: "
	    "%lld, stride: %lld, padding: \"%s\")", (long long)O,
	    (long long)k, (long long)st, pd))
		return 1;
	if ((d = floats(w, f)))
		save(w, val(w, last->out[0])->layer, "weight", 3,
		    fd, d);
	free(d);
	bd = O;
	d = b ? floats(w, b) : xcalloc((size_t)O, sizeof *d);
	if (d)
		save(w, val(w, last->out[0])->layer, "bias", 1, &bd, d);
	free(d);
	return 0;
}

/* The layer of a group whose ONNX operator NNL has: LRN,
 * LayerNormalization, 1-D Conv and MaxPool, a padded AveragePool.  0 placed, 1 refused, -1
 * not such a group (its nodes go one by one). */
static int
group(struct nw *w, struct node *last, const cJSON *o)
{
	const char *op = ostr(o, "op"), *x = oin(o, 0);
	const struct tdesc *t = x && graph_find(w->g, x) ?
	    operand_type(graph_find(w->g, x)) : NULL;
	struct node fake = *last;

	fake.in = (char **)&x;
	fake.nin = 1;
	/* a refusal names the ONNX node */
	if (*ostr(o, "node") && *op) {
		fake.id = (char *)ostr(o, "node");
		fake.opname = (char *)op;
	}
	if (!strcmp(op, "LRN"))
		return group_lrn(w, last, &fake, o);
	if (!strcmp(op, "LayerNormalization"))
		return group_layernorm(w, last, &fake, o);
	if (!strcmp(op, "AveragePool") && t && t->rank == 4)
		return group_avgpool(w, last, &fake, o);
	if ((!strcmp(op, "Conv") || !strcmp(op, "MaxPool")) && t &&
	    t->rank == 3)
		return group_1d(w, last, &fake, o);
	return -1;
}

/* A scalar constant's value (float32, int8 or uint8) into *v; its
 * data type, or DT_NONE when it is not one. */
static enum dtype
scalarof(struct nw *w, const char *name, double *v)
{
	struct operand *o = name ? graph_find(w->g, name) : NULL;
	unsigned char *d;
	uint64_t nb;
	enum dtype dt;

	if (!o || o->kind != OPND_CONST || tdesc_numel(&o->desc) != 1 ||
	    (o->desc.dt != DT_FLOAT32 && o->desc.dt != DT_INT8 &&
	    o->desc.dt != DT_UINT8) || !(d = const_bytes(w->g, o, &nb)))
		return DT_NONE;
	dt = o->desc.dt;
	if (dt == DT_FLOAT32) {
		float f;

		memcpy(&f, d, 4);
		*v = f;
	} else {
		*v = dt == DT_INT8 ? (double)(int8_t)d[0] : (double)d[0];
	}
	free(d);
	return dt;
}

/* quantizeLinear then dequantizeLinear with one scale and zero point
 * (ONNX's Q/DQ pair): FakeQuant, which rounds half to even and clamps
 * to the zero point's type.  0 placed (the pair), 1 refused. */
static int
fakequant(struct nw *w, struct node *q, struct node *dq)
{
	struct val *v = src(w, q->in[0]);
	double s1, s2, z1 = 0, z2 = 0;
	enum dtype zt = DT_INT8;

	if (!v || q->nin < 2 || dq->nin < 2 ||
	    scalarof(w, q->in[1], &s1) != DT_FLOAT32 ||
	    scalarof(w, dq->in[1], &s2) != DT_FLOAT32 || s1 != s2 ||
	    !(s1 > 0) || (q->nin > 2) != (dq->nin > 2) ||
	    (q->nin > 2 && ((zt = scalarof(w, q->in[2], &z1)) == DT_NONE ||
	    zt == DT_FLOAT32 || scalarof(w, dq->in[2], &z2) != zt ||
	    z1 != z2)))
		return nofit(w, q, "not a quantize and dequantize of a layer "
		    "with one scalar scale and int8 or uint8 zero point");
	return layer(w, dq, (const char **)q->in, 1, v->rank, "FakeQuant("
	    "scale: %.9g, zero_point: %d, qmin: %d, qmax: %d)", s1, (int)z1,
	    zt == DT_UINT8 ? 0 : -128, zt == DT_UINT8 ? 255 : 127);
}

/* A [1, K] layer plus a constant bias where no Dense can take it (a
 * Q/DQ between the product and its bias): BatchNorm of unit scale and
 * variance and epsilon 0, which adds beta exactly. */
static int
biasadd(struct nw *w, struct node *n, struct operand *c, int64_t K)
{
	float *b, *one, *zero;

	if (layer(w, n, (const char **)n->in, 1, 1, "BatchNorm(epsilon: 0)"))
		return 1;
	b = floats(w, c);
	one = xcalloc((size_t)K, sizeof *one);
	zero = xcalloc((size_t)K, sizeof *zero);
	for (int64_t i = 0; i < K; i++)
		one[i] = 1;
	if (b) {
		/* beta in the order of the features; the others are
		 * the same for every feature */
		savefeat(w, n->out[0], "gamma", K, one);
		savefeat(w, n->out[0], "beta", K, b);
		savefeat(w, n->out[0], "running_mean", K, zero);
		savefeat(w, n->out[0], "running_var", K, one);
	} else {
		w->err = 1;
	}
	free(b);
	free(one);
	free(zero);
	return 0;
}

/* Softmax over the channels (NNL's is over the last axis). */
static int
softmax(struct nw *w, struct node *n, struct val *v)
{
	const struct tdesc *y = &n->types[0];
	double a = num(n, "axis", -1);

	if (!v || (a < 0 ? a + y->rank : a) != 1)
		return nofit(w, n, "not over the channels");
	return layer(w, n, (const char **)n->in, 1, v->rank,
	    "Softmax()");
}

/* ONNX MaxPool's asymmetric pads: a pad of the lowest float on H and
 * W, then the pool.  3 placed (the pair), 1 refused. */
static int
padpool(struct nw *w, struct node *n, struct node *next, struct val *v)
{
	if (v && next && next->op == OP_MAX_POOL2D && next->nin == 1 &&
	    !strcmp(next->in[0], n->out[0]) &&
	    !strcmp(str(n, "mode", "constant"), "constant") &&
	    num(n, "value", 0) <= -3.4028234e38) {
		int64_t b[4], e[4], p[4];

		if (!list(n, "beginningPadding", b, 4, 0) &&
		    !list(n, "endingPadding", e, 4, 0) && !b[0] &&
		    !b[1] && !e[0] && !e[1]) {
			p[0] = b[2];
			p[1] = e[2];
			p[2] = b[3];
			p[3] = e[3];
			/* the pool reads the pad's input */
			alias(w, n, v);
			return pool(w, next, p) ? 1 : 3;
		}
	}
	return nofit(w, n, "no NNL layer computes it");
}

/* A nearest-neighbor resize of H and W by whole factors: Upsample. */
static int
upsample(struct nw *w, struct node *n, struct val *v)
{
	const struct tdesc *y = &n->types[0];
	const struct tdesc *x = operand_type(graph_find(w->g, n->in[0]));
	int64_t ax[2];

	if (!v || v->rank != 3 || strcmp(str(n, "mode",
	    "nearest-neighbor"), "nearest-neighbor") ||
	    list(n, "axes", ax, 2, 2) || ax[0] != 2 || ax[1] != 3 ||
	    x->dims[2] <= 0 || x->dims[3] <= 0 ||
	    y->dims[2] % x->dims[2] || y->dims[3] % x->dims[3])
		return nofit(w, n, "not a nearest-neighbor resize of H "
		    "and W by whole factors");
	return layer(w, n, (const char **)n->in, 1, 3, "Upsample("
	    "scale: [%lld, %lld])",
	    (long long)(y->dims[2] / x->dims[2]),
	    (long long)(y->dims[3] / x->dims[3]));
}

/* A mean over H and W: GlobalAvgPool2D, or an alias of one when it
 * follows ONNX's GlobalAveragePool. */
static int
meanhw(struct nw *w, struct node *n, struct val *v)
{
	const struct tdesc *x = operand_type(graph_find(w->g, n->in[0]));
	int64_t ax[2];

	if (v && v->rank == 1 && x->rank == 4 && x->dims[2] == 1 &&
	    x->dims[3] == 1 && !list(n, "axes", ax, 2, -1) &&
	    ax[0] == 2 && ax[1] == 3) {
		alias(w, n, v);	/* of a GlobalAvgPool2D's [C] */
		return 0;
	}
	if (!v || v->rank != 3 || list(n, "axes", ax, 2, -1) ||
	    ax[0] != 2 || ax[1] != 3)
		return nofit(w, n, "not a mean over H and W of a "
		    "[C, H, W] layer");
	return layer(w, n, (const char **)n->in, 1, 1,
	    "GlobalAvgPool2D()");
}

/* add or mul of two layers of one shape: Add or Mul; a constant bias
 * added to a [1, K] layer: biasadd. */
static int
addmul(struct nw *w, struct node *n, struct val *v)
{
	struct val *b = n->nin == 2 ? src(w, n->in[1]) : NULL;
	const struct tdesc *ta = operand_type(graph_find(w->g,
	    n->in[0])), *tb = b ? operand_type(graph_find(w->g,
	    n->in[1])) : NULL;

	if (n->op == OP_ADD && v && !b && n->nin == 2 && v->rank == 1 &&
	    ta->rank == 2 && cst(w, n->in[1]) &&
	    tdesc_numel(&cst(w, n->in[1])->desc) ==
	    (uint64_t)ta->dims[1])
		return biasadd(w, n, cst(w, n->in[1]), ta->dims[1]);
	if (!v || !b || ta->rank != tb->rank || v->rank != b->rank ||
	    memcmp(ta->dims,
	    tb->dims, sizeof *ta->dims * (size_t)ta->rank))
		return nofit(w, n, "not two layers of one shape");
	return layer(w, n, (const char **)n->in, 2, v->rank, "%s()",
	    n->op == OP_ADD ? "Add" : "Mul");
}

/* A concat along the channels of layers of one rank: Concat. */
static int
concat(struct nw *w, struct node *n, struct val *v)
{
	const struct tdesc *y = &n->types[0];

	if (y->rank < 2 || num(n, "axis", 0) != 1)
		return nofit(w, n, "not along the channels");
	for (int i = 0; i < n->nin; i++)
		if (!src(w, n->in[i]) || src(w, n->in[i])->rank !=
		    v->rank)
			return nofit(w, n, "inputs not from layers of "
			    "one rank");
	return layer(w, n, (const char **)n->in, n->nin, v->rank,
	    "Concat()");
}

/* One node: 0 placed (or an alias), 1 refused. */
static int
node1(struct nw *w, struct node *n, struct node *next)
{
	const struct tdesc *y = &n->types[0];
	struct val *v = n->nin ? src(w, n->in[0]) : NULL;
	static const struct { enum op op; const char *layer; } act[] = {
		{ OP_RELU, "ReLU()" }, { OP_SIGMOID, "Sigmoid()" },
		{ OP_HARD_SWISH, "Hardswish()" },
	};

	for (size_t i = 0; i < sizeof act / sizeof *act; i++)
		if (n->op == act[i].op) {
			if (!v)
				return nofit(w, n, "input not from a layer");
			return layer(w, n, (const char **)n->in, 1, v->rank,
			    "%s", act[i].layer);
		}
	switch (n->op) {
	case OP_IDENTITY:
		if (!v)
			return nofit(w, n, "input not from a layer");
		alias(w, n, v);
		return 0;
	case OP_CLAMP:
		if (!v || num(n, "minValue", -1) != 0 ||
		    num(n, "maxValue", -1) != 6)
			return nofit(w, n, "a clamp other than ReLU6's");
		return layer(w, n, (const char **)n->in, 1, v->rank, "ReLU6()");
	case OP_LEAKY_RELU:
		if (!v)
			return nofit(w, n, "input not from a layer");
		return layer(w, n, (const char **)n->in, 1, v->rank,
		    "LeakyReLU(alpha: %.9g)", num(n, "alpha", 0.01));
	case OP_SOFTMAX:
		return softmax(w, n, v);
	case OP_CONV2D:
		return conv(w, n);
	case OP_MAX_POOL2D:
	case OP_AVERAGE_POOL2D:
		return pool(w, n, NULL);
	case OP_PAD:
		return padpool(w, n, next, v);
	case OP_QUANTIZE_LINEAR:
		if (next && next->op == OP_DEQUANTIZE_LINEAR && next->nin >= 1 &&
		    !strcmp(next->in[0], n->out[0]))
			return fakequant(w, n, next) ? 1 : 3;
		return nofit(w, n, "a quantize without its dequantize "
		    "(FakeQuant is the pair)");
	case OP_RESAMPLE2D:
		return upsample(w, n, v);
	case OP_GEMM:
		return dense(w, n, str(n, "c", NULL));
	case OP_MATMUL:
		if (next && next->op == OP_ADD && next->nin == 2 &&
		    !strcmp(next->in[0], n->out[0]) && cst(w, next->in[1]))
			return 2;	/* with the add that follows */
		return dense(w, n, NULL);
	case OP_BATCH_NORMALIZATION:
		return batchnorm(w, n);
	case OP_REDUCE_MEAN:
		return meanhw(w, n, v);
	case OP_RESHAPE:
		if (!v || y->rank != 2 || y->dims[0] != 1)
			return nofit(w, n, "a reshape other than a Flatten");
		if (v->rank == 1) {
			alias(w, n, v);
			return 0;
		}
		/* its features in HWC order (order()) */
		return layer(w, n, (const char **)n->in, 1, 1, "Flatten()");
	case OP_ADD:
	case OP_MUL:
		return addmul(w, n, v);
	case OP_CONCAT:
		return concat(w, n, v);
	default:
		return nofit(w, n, "no NNL layer computes it");
	}
}

/* The graph's inputs as Input layers: [1, K], [1, C, L] (Conv1D's
 * [L, C]) or [1, C, H, W] (NNL's [H, W, C]) float32; others refused. */
static void
writeinputs(struct nw *w)
{
	struct graph *g = w->g;

	for (size_t i = 0; i < g->ninputs; i++) {
		struct operand *x = g->inputs[i];
		struct val *v = val(w, x->name);
		const struct tdesc *t = &x->desc;

		if (x->desc.dt != DT_FLOAT32 || t->rank < 2 ||
		    t->rank > 4 || t->dims[0] != 1) {
			buf_printf(&w->refused, "\n  input \"%s\": NNL reads "
			    "one float32 [1, K], [1, C, L] or [1, C, H, W] "
			    "input",
			    escape_tty_name(x->name));
			w->nrefused++;
			continue;
		}
		v->layer = ident(w, x->name);
		v->rank = t->rank - 1;
		if (t->rank == 3)	/* [1, C, L]: Conv1D's [L, C] */
			buf_printf(&w->layers, "    layer %s = Input(shape: "
			    "[%lld, %lld]);\n", v->layer,
			    (long long)t->dims[2], (long long)t->dims[1]);
		else if (t->rank == 4)
			buf_printf(&w->layers, "    layer %s = Input(shape: "
			    "[%lld, %lld, %lld]);\n", v->layer,
			    (long long)t->dims[2], (long long)t->dims[3],
			    (long long)t->dims[1]);
		else
			buf_printf(&w->layers, "    layer %s = Input(shape: "
			    "[%lld]);\n", v->layer, (long long)t->dims[1]);
	}
}

/* The nodes as layers: an ONNX operator's nodes as one where it has
 * one (group), else each by itself or with the node after it. */
static void
writenodes(struct nw *w)
{
	struct graph *g = w->g;

	for (size_t i = 0; i < g->nnodes; i++) {
		struct node *n = g->nodes[i];
		struct node *next = i + 1 < g->nnodes ? g->nodes[i + 1] : NULL;
		const cJSON *on = origin(n);
		size_t j = i;
		int r;

		/* the nodes an ONNX operator became, as one layer */
		while (on && j + 1 < g->nnodes && origin(g->nodes[j + 1]) &&
		    !strcmp(ostr(on, "node"), ostr(origin(g->nodes[j + 1]),
		    "node")) && *ostr(on, "node"))
			j++;
		if (on && group(w, g->nodes[j], on) >= 0) {
			i = j;
			continue;
		}
		r = node1(w, n, next);

		if (r == 2) {
			/* matmul + add: Dense with the add's bias */
			if (dense(w, n, next->in[1]) == 0)
				*val(w, next->out[0]) = *val(w, n->out[0]);
			i++;
		} else if (r == 3) {
			i++;	/* pad + maxPool2d, Q + DQ: one layer */
		}
	}
}

/* Refuses a graph of several outputs, or whose output is a Flatten's
 * features in NNL's HWC order. */
static void
checkoutput(struct nw *w)
{
	struct graph *g = w->g;

	if (g->noutputs != 1) {
		buf_printf(&w->refused, "\n  the graph has %zu outputs; an NNL "
		    "model has one", g->noutputs);
		w->nrefused++;
	} else if (val(w, g->outputs[0].ref) &&
	    val(w, g->outputs[0].ref)->perm) {
		buf_printf(&w->refused, "\n  output \"%s\": a Flatten's "
		    "features, in HWC order where ONNX has CHW (end the model "
		    "with a Dense, or before the Flatten)",
		    escape_tty_name(g->outputs[0].name));
		w->nrefused++;
	}
}

/* The model's text into path, naming the weights directory wdir
 * relative to it: 0, or -1 with a message. */
static int
writemodel(struct nw *w, const char *path, const char *wdir)
{
	struct graph *g = w->g;
	struct buf out = { 0 };
	char *rel, *mname;
	int rc;

	rel = relpath(path, wdir);
	/* an NNL string has no escapes */
	for (const char *q = rel; *q; q++)
		if (*q == '"' || (unsigned char)*q < 0x20) {
			error("%s: an NNL string cannot hold the weights "
			    "directory's name (it has '\"' or a control "
			    "character)", wdir);
			free(rel);
			return -1;
		}
	if (rel[0] == '/' || strncmp(rel, "../", 3) == 0)
		warn("%s: its weights directory %s is outside its folder: "
		    "read the model with --allow-outside (nnl(7) Reads)",
		    path, escape_tty_name(wdir));
	mname = ident(w, g->name ? g->name : "model");
	buf_puts(&out, "// Written by nnl-parse -t nnl from the graph \"");
	escape_c_comment(&out, g->name ? g->name : "model");
	buf_printf(&out, "\".\nversion 0.9;\n\n"
	    "model %s {\n    config {\n        precision: \"float32\";\n"
	    "        weights: \"%s\";\n        io: \"stdio\";\n    }\n\n%s\n"
	    "    connections {\n%s    }\n}\n", mname, rel, w->layers.s,
	    w->conns.s ? w->conns.s : "");
	free(rel);
	rc = writefile_atomic(path, out.s, out.n);
	free(out.s);
	return rc;
}

/* Frees what w holds. */
static void
nw_free(struct nw *w)
{
	for (int i = 0; i < w->nnames; i++)
		free(w->names[i]);
	for (int i = 0; i < w->nperms; i++)
		free(w->perms[i]);
	free(w->perms);
	free(w->names);
	free(w->layers.s);
	free(w->conns.s);
	free(w->refused.s);
}

int
nnl_write(struct graph *g, const char *path, const char *wdir, int comment)
{
	struct nw w;
	struct val *vals;
	size_t nv = 0;
	struct stat st;
	int rc = -1, made = stat(wdir, &st) != 0;

	memset(&w, 0, sizeof w);
	/* the model and its .npy files are renamed into place together */
	outfile_group_begin();
	w.g = g;
	w.dir = wdir;
	w.comment = comment;
	graph_index(g);
	vals = xcalloc(g->tabn + 1, sizeof *vals);
	for (size_t i = 0; i < g->tabcap; i++)
		if (g->tab[i])
			g->tab[i]->aux = &vals[nv++];
	if (mkdirs(wdir) != 0) {
		error("%s: %s", wdir, strerror(errno));
		goto out;
	}
	writeinputs(&w);
	writenodes(&w);
	checkoutput(&w);
	if (w.nrefused) {
		error("%s: %d node%s fit no NNL layer (import to .json "
		    "instead):%s", g->src ? g->src : "graph", w.nrefused,
		    w.nrefused > 1 ? "s" : "", w.refused.s);
		goto out;
	}
	if (w.err)
		goto out;
	if (w.ncomments)
		warn("%s: %d node%s written as // UNSUPPORTED comments: "
		    "replace each with a layer of the name it gives before "
		    "compiling", path, w.ncomments, w.ncomments > 1 ? "s" : "");
	rc = writemodel(&w, path, wdir);
out:
	/* a refused or failed model leaves no weights behind and changes
	 * no file that was there */
	if (rc == 0)
		rc = outfile_group_commit();
	else
		outfile_group_abort();
	if (rc != 0 && made)
		rmdir(wdir);	/* when it is empty */
	for (size_t i = 0; i < g->tabcap; i++)
		if (g->tab[i])
			g->tab[i]->aux = NULL;
	nw_free(&w);
	free(vals);
	return rc;
}
