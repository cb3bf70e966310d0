/*
 * nnl_onnx: an NNL model's weights read from an ONNX model's
 * initializers (config weights: "model.onnx"), the third source beside
 * a directory of .npy files and an .npz archive.  nnl-onnx-import reads
 * the file (into a temporary directory, removed at close); tensor
 * LAYER.PARAM is the initializer of that name or, failing that, the one
 * the node named LAYER (an ONNX node's output) reads in that role:
 * weight the filter of a Conv or B of a Gemm/MatMul, bias its bias or
 * C, gamma beta running_mean running_var the scale, B, mean and var of
 * a BatchNormalization.  Conv weights are OIHW in both; a Gemm's B with
 * transB (PyTorch's [out, in]) is transposed to NNL's [in, out].  A
 * Flatten of [H, W, C] lists its features in HWC order where ONNX's
 * has CHW (nnl_perm.h): the layers that keep that order (activations,
 * Dropout, Softmax, BatchNorm, LayerNorm, FakeQuant, Add and Mul of
 * values in one order, Concat) carry it to the Dense that reads it,
 * whose weight rows, like a BatchNorm's or LayerNorm's vectors on the
 * way, are permuted from ONNX's order to NNL's.  An Add or Mul of
 * values in two orders cannot be given ONNX's weights: an error.
 */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nnl_ast.h"
#include "escape.h"
#include "nnl_perm.h"
#include "eval.h"
#include "modelpath.h"
#include "pipeline.h"

struct nnl_onnx {
	struct graph *g;
	char *dir;
};

struct nnl_onnx *
nnl_onnx_open(const char *path, int outside)
{
	char tmpl[] = "/tmp/nnl-onnxw.XXXXXX";
	struct nnl_onnx *x;
	char *prog, *j, *w, *m;
	int rc;

	if (!mkdtemp(tmpl)) {
		error("mkdtemp: %s", strerror(errno));
		return NULL;
	}
	x = xcalloc(1, sizeof *x);
	x->dir = xstrdup(tmpl);
	prog = find_program("nnl-onnx-import");
	j = xasprintf("%s/m.json", x->dir);
	w = xasprintf("%s/m.weights", x->dir);
	m = xasprintf("%s/m.manifest.json", x->dir);
	{
		char *pa = argpath(path);
		/* the ONNX model's external data: the same rule, from
		 * its own folder */
		char *a[] = { prog, "-o", j, "-w", w, "-m", m, pa, NULL, NULL };

		if (outside) {
			a[8] = pa;
			a[7] = MODELPATH_FLAG;
		}

		rc = run_command(a, 0);
		free(pa);
	}
	if (rc == 0)
		x->g = graph_load(j);
	free(prog);
	free(j);
	free(w);
	free(m);
	if (!x->g) {
		nnl_onnx_close(x);
		return NULL;
	}
	return x;
}

void
nnl_onnx_close(struct nnl_onnx *x)
{
	if (!x)
		return;
	if (x->g)
		graph_free(x->g);
	if (x->dir) {
		char *a[] = { "rm", "-rf", x->dir, NULL };

		run_command(a, 0);
	}
	free(x->dir);
	free(x);
}

static struct node *
findnode(struct graph *g, const char *id)
{
	for (size_t i = 0; i < g->nnodes; i++)
		if (!strcmp(g->nodes[i]->id, id))
			return g->nodes[i];
	return NULL;
}

static const char *
optname(const struct node *n, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(n->options, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* The operand node n reads as param, or NULL. */
static const char *
role(const struct node *n, const char *param)
{
	int bn = n->op == OP_BATCH_NORMALIZATION;

	if (!strcmp(param, "weight") && !bn && n->nin >= 2)
		return n->in[1];
	if (!strcmp(param, "bias"))
		return optname(n, n->op == OP_GEMM ? "c" : "bias");
	if (bn && !strcmp(param, "gamma"))
		return optname(n, "scale");
	if (bn && !strcmp(param, "beta"))
		return optname(n, "bias");
	if (bn && !strcmp(param, "running_mean") && n->nin >= 2)
		return n->in[1];
	if (bn && !strcmp(param, "running_var") && n->nin >= 3)
		return n->in[2];
	return NULL;
}

/* Does some gemm read c as its B with bTranspose? */
static int
transposed(struct graph *g, const char *c)
{
	for (size_t i = 0; i < g->nnodes; i++) {
		struct node *n = g->nodes[i];

		if (n->op == OP_GEMM && n->nin >= 2 && !strcmp(n->in[1], c) &&
		    cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(n->options,
		    "bTranspose")))
			return 1;
	}
	return 0;
}

static int
is(const struct nlayer *l, const char *const *types)
{
	for (; *types; types++)
		if (!strcmp(l->type, *types))
			return 1;
	return 0;
}

/* The order of the K features of layer p's output (nnl_perm.h), or
 * NULL: ONNX's.  *bad set when an Add or Mul meets two orders. */
static int64_t *
forder(struct nmodel *m, const struct nlayer *p, int *bad)
{
	static const char *const keeps[] = { "ReLU", "ReLU6", "Sigmoid",
	    "Hardswish", "LeakyReLU", "SiLU", "Softmax", "Dropout",
	    "BatchNorm", "LayerNorm", "FakeQuant", "Add", "Mul", NULL };
	const struct nlayer *q = p->nin ? &m->layers[p->in[0]] : NULL;
	int64_t *r;

	if (p->rank != 1 || !q)
		return NULL;
	if (!strcmp(p->type, "Flatten"))
		return q->rank == 3 ? nnl_perm_flatten(q->shape[2],
		    q->shape[0], q->shape[1]) : q->rank == 2 ?
		    nnl_perm_flatten(q->shape[1], q->shape[0], 1) :
		    forder(m, q, bad);
	if (!strcmp(p->type, "Concat")) {
		int64_t **ps = xcalloc((size_t)p->nin, sizeof *ps);
		int64_t *len = xcalloc((size_t)p->nin, sizeof *len);

		for (int i = 0; i < p->nin; i++) {
			ps[i] = forder(m, &m->layers[p->in[i]], bad);
			len[i] = m->layers[p->in[i]].shape[0];
		}
		r = nnl_perm_concat(p->nin, (const int64_t *const *)ps, len);
		for (int i = 0; i < p->nin; i++)
			free(ps[i]);
		free(ps);
		free(len);
		return r;
	}
	if (!is(p, keeps))
		return NULL;	/* Dense, GlobalAvgPool2D: ONNX's order */
	r = forder(m, q, bad);
	for (int i = 1; i < p->nin; i++) {
		int64_t *o = forder(m, &m->layers[p->in[i]], bad);

		if (!nnl_perm_same(r, o, p->shape[0]))
			*bad = 1;
		free(o);
	}
	return r;
}

int
nnl_onnx_get(struct nnl_onnx *x, struct nmodel *m, struct nlayer *l,
    const char *key, const char *param, struct npy *a)
{
	struct operand *c = graph_find(x->g, key);
	struct node *n;
	const char *name;
	uint64_t nb;
	float *d;
	static const char *const perrow[] = { "Dense", "BatchNorm",
	    "LayerNorm", NULL };

	if (!c || c->kind != OPND_CONST) {
		c = NULL;
		if ((n = findnode(x->g, l->id)) && (name = role(n, param)))
			c = graph_find(x->g, name);
		if (c && c->kind != OPND_CONST)
			c = NULL;
	}
	if (!c)
		return 1;
	if (c->desc.dt != DT_FLOAT32) {
		nnl_err(m, l->pos, "%s: ONNX initializer \"%s\" holds %s, "
		    "precision float32 needs float32", escape_tty_name(key),
		    escape_tty_name(c->name), dtype_name(c->desc.dt));
		return -1;
	}
	if (!(d = const_bytes(x->g, c, &nb)))
		return -1;
	memset(a, 0, sizeof *a);
	a->dt = DT_FLOAT32;
	a->rank = c->desc.rank;
	for (int i = 0; i < a->rank && i < NPY_MAXDIM; i++)
		a->shape[i] = c->desc.dims[i];
	a->nbytes = nb;
	a->data = (unsigned char *)d;
	if (a->rank == 2 && !strcmp(param, "weight") &&
	    transposed(x->g, c->name)) {
		int64_t r = a->shape[0], k = a->shape[1];
		float *t = xmalloc(nb ? nb : 1);

		for (int64_t i = 0; i < r; i++)
			for (int64_t j = 0; j < k; j++)
				t[j * r + i] = d[i * k + j];
		free(d);
		a->data = (unsigned char *)t;
		a->shape[0] = k;
		a->shape[1] = r;
	}
	if (is(l, perrow) && l->nin == 1 && a->rank == (l->type[0] == 'D' ?
	    2 : 1) && a->shape[0] == m->layers[l->in[0]].shape[0] &&
	    m->layers[l->in[0]].rank == 1) {
		/* rows (features) of the Dense weight or norm vector in
		 * the order of the features l reads */
		int bad = 0;
		int64_t *p = forder(m, &m->layers[l->in[0]], &bad);

		if (bad) {
			free(p);
			free(a->data);
			a->data = NULL;
			nnl_err(m, l->pos, "%s: ONNX weights for features "
			    "that an Add or Mul before it took in two orders "
			    "(a Flatten's HWC and ONNX's CHW)",
			    escape_tty_name(key));
			return -1;
		}
		if (p) {
			float *t = nnl_perm_rows(p, (float *)a->data,
			    a->shape[0], a->rank == 2 ? a->shape[1] : 1);

			free(a->data);
			a->data = (unsigned char *)t;
			free(p);
		}
	}
	return 0;
}
