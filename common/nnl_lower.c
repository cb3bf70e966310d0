/*
 * nnl_lower: checks an NNL model and lowers it to WebNN operations.
 * One table lists every layer type with its parameters and weights;
 * each layer becomes a few nodes whose last output is named after the
 * layer.  Activations are HWC with a leading batch dimension.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "nnl_ast.h"
#include "npy.h"
#include "npz.h"
#include "weights.h"

/*
 * The layers through NNL 0.9.0.  params: "name:kind" with kinds int,
 * num, str, shape (an int or a list of ints), list; a trailing '!'
 * marks a required one.  weights: the tensors it reads.
 */
static const struct ltype {
	const char *name, *params, *weights;
	int minin, maxin;	/* inputs; 0 for Input */
} ltypes[] = {
	{ "Input", "shape:list!", "", 0, 0 },
	{ "Dense", "units:int! activation:str", "weight bias", 1, 1 },
	{ "Conv2D", "filters:int! kernel:shape! stride:shape padding:str "
	    "groups:int", "weight bias", 1, 1 },
	{ "Conv1D", "filters:int! kernel:int! stride:int padding:str",
	    "weight bias", 1, 1 },
	{ "MaxPool2D", "kernel:shape! stride:shape padding:list", "", 1, 1 },
	{ "AvgPool2D", "kernel:shape! stride:shape padding:list", "", 1, 1 },
	{ "MaxPool1D", "kernel:int! stride:int", "", 1, 1 },
	{ "GlobalAvgPool2D", "", "", 1, 1 },
	{ "Flatten", "", "", 1, 1 },
	{ "BatchNorm", "epsilon:num", "gamma beta running_mean running_var",
	    1, 1 },
	{ "LayerNorm", "epsilon:num", "gamma beta", 1, 1 },
	{ "LRN", "size:int alpha:num beta:num bias:num", "", 1, 1 },
	{ "Dropout", "rate:num", "", 1, 1 },
	{ "Add", "", "", 2, 64 },
	{ "Mul", "", "", 2, 64 },
	{ "Concat", "axis:int", "", 2, 64 },
	{ "ReLU", "", "", 1, 1 },
	{ "ReLU6", "", "", 1, 1 },
	{ "LeakyReLU", "alpha:num", "", 1, 1 },
	{ "Sigmoid", "", "", 1, 1 },
	{ "SiLU", "", "", 1, 1 },
	{ "Hardswish", "", "", 1, 1 },
	{ "Softmax", "axis:int", "", 1, 1 },
	{ "Upsample", "scale:shape!", "", 1, 1 },
	{ "FakeQuant", "scale:num! zero_point:num qmin:num qmax:num", "",
	    1, 1 },
};

static const char *const configkeys[] = { "precision", "weights", "target",
    "align", "batch", "preprocess", "preprocess_mean", "preprocess_std",
    "io", "memory_limit", NULL };

struct lw {
	struct nmodel *m;
	struct graph *g;
	const struct nnl_opts *o;
	int64_t batch;
	/* weights */
	char *wsrc;		/* resolved path */
	int wkind;		/* 0 dir, 1 npz */
	struct npz_member *npz;
	size_t nnpz;
	struct wwriter ww;
	int wopen;
	struct buf missing;
	int nmissing;
	int ntmp;
};

static const struct ltype *
ltype(const char *name)
{
	for (size_t i = 0; i < sizeof ltypes / sizeof *ltypes; i++)
		if (!strcmp(ltypes[i].name, name))
			return &ltypes[i];
	return NULL;
}

/* The nearest of a list of names, or NULL. */
static const char *
nearest(const char *s, const char *const *names, size_t n)
{
	const char *best = NULL;
	int bd = 1 << 30;

	for (size_t i = 0; i < n; i++) {
		int d = editdistance(s, names[i]);

		if (d < bd) {
			bd = d;
			best = names[i];
		}
	}
	return bd <= 1 + (int)strlen(s) / 3 ? best : NULL;
}

static const struct nparam *
param(const struct nlayer *l, const char *name)
{
	for (int i = 0; i < l->np; i++)
		if (!strcmp(l->params[i].name, name))
			return &l->params[i];
	return NULL;
}

static const struct nval *
cfg(struct nmodel *m, const char *key)
{
	for (int i = 0; i < m->nconfig; i++)
		if (!strcmp(m->config[i].name, key))
			return &m->config[i].v;
	return NULL;
}

static double
pnum(const struct nlayer *l, const char *name, double dflt)
{
	const struct nparam *p = param(l, name);

	return p && p->v.k == NV_NUM ? p->v.num : dflt;
}

static const char *
pstr(const struct nlayer *l, const char *name, const char *dflt)
{
	const struct nparam *p = param(l, name);

	return p && (p->v.k == NV_STR || p->v.k == NV_ID) ? p->v.str : dflt;
}

/* An int or a pair: v[0], v[1]. */
static void
ppair(const struct nlayer *l, const char *name, int64_t dflt, int64_t v[2])
{
	const struct nparam *p = param(l, name);

	v[0] = v[1] = dflt;
	if (p && p->v.k == NV_NUM)
		v[0] = v[1] = (int64_t)p->v.num;
	else if (p && p->v.k == NV_LIST && p->v.n == 2) {
		v[0] = (int64_t)p->v.items[0].num;
		v[1] = (int64_t)p->v.items[1].num;
	}
}

static int
isint(const struct nval *v)
{
	return v->k == NV_NUM && v->num == floor(v->num) &&
	    fabs(v->num) < 1e9;
}

struct pspec {
	char name[32], kind[8];
	int req;
};

/* The parameters of a layer type, from its table row. */
static int
specs(const struct ltype *t, struct pspec *ps)
{
	const char *p = t->params;
	int n = 0;

	while (*p) {
		size_t len = strcspn(p, " "), c = strcspn(p, ":");

		snprintf(ps[n].name, sizeof ps[n].name, "%.*s", (int)c, p);
		snprintf(ps[n].kind, sizeof ps[n].kind, "%.*s",
		    (int)(len - c - 1), p + c + 1);
		ps[n].req = ps[n].kind[strlen(ps[n].kind) - 1] == '!';
		if (ps[n].req)
			ps[n].kind[strlen(ps[n].kind) - 1] = '\0';
		n++;
		p += len;
		while (*p == ' ')
			p++;
	}
	return n;
}

static int
fits(const struct nval *v, const char *kind)
{
	if (!strcmp(kind, "int"))
		return isint(v);
	if (!strcmp(kind, "num"))
		return v->k == NV_NUM;
	if (!strcmp(kind, "str"))
		return v->k == NV_STR;
	if (!strcmp(kind, "list"))
		return v->k == NV_LIST;
	return isint(v) || (v->k == NV_LIST && v->n == 2 &&
	    isint(&v->items[0]) && isint(&v->items[1]));
}

/* Check a layer's parameters against the table. */
static void
checkparams(struct nmodel *m, struct nlayer *l, const struct ltype *t)
{
	struct pspec ps[16];
	const char *names[16];
	int n = specs(t, ps);

	for (int k = 0; k < n; k++) {
		const struct nparam *p = param(l, ps[k].name);

		names[k] = ps[k].name;
		if (!p && ps[k].req)
			nnl_err(m, l->typepos, "%s needs the parameter '%s'",
			    t->name, ps[k].name);
		else if (p && !fits(&p->v, ps[k].kind))
			nnl_err(m, p->v.pos, "parameter '%s' of %s: expected %s",
			    ps[k].name, t->name, !strcmp(ps[k].kind, "int") ?
			    "an integer" : !strcmp(ps[k].kind, "num") ?
			    "a number" : !strcmp(ps[k].kind, "str") ?
			    "a string" : !strcmp(ps[k].kind, "list") ?
			    "a list" : "an integer or [height, width]");
	}
	for (int i = 0; i < l->np; i++) {
		const char *best;
		int k;

		for (int j = 0; j < i; j++)
			if (!strcmp(l->params[j].name, l->params[i].name))
				nnl_err(m, l->params[i].pos, "parameter '%s' "
				    "given twice", l->params[i].name);
		for (k = 0; k < n; k++)
			if (!strcmp(ps[k].name, l->params[i].name))
				break;
		if (k < n)
			continue;
		best = nearest(l->params[i].name, names, (size_t)n);
		if (best)
			nnl_err(m, l->params[i].pos, "%s has no parameter '%s' "
			    "(did you mean '%s'?)", t->name, l->params[i].name,
			    best);
		else
			nnl_err(m, l->params[i].pos, "%s has no parameter '%s'",
			    t->name, l->params[i].name);
	}
}

static int
findlayer(struct nmodel *m, const char *id)
{
	for (int i = 0; i < m->nlayers; i++)
		if (!strcmp(m->layers[i].id, id))
			return i;
	return -1;
}

/* Inputs of every layer: declaration order, or the connections. */
static int
wire(struct nmodel *m)
{
	for (int i = 0; i < m->nlayers; i++) {
		struct nlayer *l = &m->layers[i];

		for (int j = 0; j < i; j++)
			if (!strcmp(m->layers[j].id, l->id))
				nnl_err(m, l->pos, "layer '%s' is declared twice",
				    l->id);
		if (!m->hasconn && i > 0) {
			l->in = xmalloc(sizeof *l->in);
			l->in[0] = i - 1;
			l->nin = 1;
		}
	}
	for (int c = 0; c < m->nconns; c++) {
		struct nconn *cn = &m->conns[c];
		int to = findlayer(m, cn->to);

		if (to < 0) {
			nnl_err(m, cn->topos, "connection to unknown layer '%s'",
			    cn->to);
			continue;
		}
		for (int k = 0; k < cn->nfrom; k++) {
			int from = findlayer(m, cn->from[k]);
			struct nlayer *l = &m->layers[to];

			if (from < 0) {
				nnl_err(m, cn->frompos[k], "connection from "
				    "unknown layer '%s'", cn->from[k]);
				continue;
			}
			l->in = xrealloc(l->in, (size_t)(l->nin + 1) *
			    sizeof *l->in);
			l->in[l->nin++] = from;
		}
	}
	return m->nerr ? -1 : 0;
}

static char *
shapestr(const int64_t *d, int r)
{
	struct buf b = { 0 };

	buf_putc(&b, '[');
	for (int i = 0; i < r; i++)
		buf_printf(&b, "%s%lld", i ? ", " : "", (long long)d[i]);
	buf_putc(&b, ']');
	return b.s;
}

/* ---- weights ---- */

static int
openweights(struct lw *w)
{
	const struct nval *v = cfg(w->m, "weights");
	char *dir = path_dirname(w->o->path ? w->o->path : ".");
	struct stat st;

	if (!v)
		return 0;
	w->wsrc = path_join(dir, v->str);
	free(dir);
	if (stat(w->wsrc, &st) != 0) {
		nnl_err(w->m, v->pos, "weights '%s': %s", w->wsrc,
		    strerror(errno));
		return -1;
	}
	if (S_ISDIR(st.st_mode))
		w->wkind = 0;
	else if (strlen(w->wsrc) > 4 &&
	    !strcmp(w->wsrc + strlen(w->wsrc) - 4, ".npz")) {
		w->wkind = 1;
		if (npz_load(w->wsrc, &w->npz, &w->nnpz) != 0)
			return -1;
	} else {
		nnl_err(w->m, v->pos, "weights '%s': expected a directory of "
		    ".npy files or an .npz archive%s", w->wsrc,
		    strstr(w->wsrc, ".onnx") ? " (convert ONNX models with nnc "
		    "import)" : "");
		return -1;
	}
	return 0;
}

/*
 * Load tensor ID.PARAM of the expected shape and pack it (declared
 * with shape decl, the same bytes); add the const.  Missing tensors
 * are collected for one E003 error.
 */
static char *
weight(struct lw *w, struct nlayer *l, const char *pname, const int64_t *want,
    int wr, const int64_t *decl, int dr)
{
	char *key = xasprintf("%s.%s", l->id, pname);
	char *cname = xasprintf("%s__%s", l->id, pname);
	struct npy a, *ap = NULL;
	int owned = 0;

	memset(&a, 0, sizeof a);
	if (!w->wsrc) {
		char *s = shapestr(want, wr);

		buf_printf(&w->missing, "\n    %s %s", key, s);
		free(s);
		w->nmissing++;
		free(key);
		return cname;
	}
	if (w->wkind == 0) {
		char *f = xasprintf("%s/%s.npy", w->wsrc, key);
		struct stat st;

		if (stat(f, &st) == 0) {
			if (npy_load(f, &a) != 0)
				w->m->nerr++;
			else {
				ap = &a;
				owned = 1;
			}
		}
		free(f);
	} else {
		for (size_t i = 0; i < w->nnpz; i++)
			if (!strcmp(w->npz[i].name, key))
				ap = &w->npz[i].arr;
	}
	if (!ap) {
		char *s = shapestr(want, wr);

		if (w->wkind != 0 || w->m->nerr == 0) {
			buf_printf(&w->missing, "\n    %s %s", key, s);
			w->nmissing++;
		}
		free(s);
	} else if (ap->dt != DT_FLOAT32) {
		nnl_err(w->m, l->pos, "%s: %s data, precision float32 needs "
		    "float32", key, dtype_name(ap->dt));
	} else {
		int same = ap->rank == wr;

		for (int i = 0; same && i < wr; i++)
			same = ap->shape[i] == want[i];
		if (!same) {
			char *e = shapestr(want, wr), *f = shapestr(ap->shape,
			    ap->rank);

			nnl_err(w->m, l->pos, "shape mismatch: %s: expected %s, "
			    "found %s", key, e, f);
			free(e);
			free(f);
		} else if (w->m->nerr == 0 && w->nmissing == 0) {
			struct operand *c;

			if (!w->wopen) {
				if (wwriter_open(&w->ww, w->o->weights,
				    w->o->manifest, WEIGHTS_ALIGN) != 0) {
					w->m->nerr++;
					goto out;
				}
				w->wopen = 1;
			}
			if (wwriter_add(&w->ww, key, DT_FLOAT32, dr, decl,
			    ap->data, ap->nbytes) != 0)
				w->m->nerr++;
			c = graph_add_const(w->g, cname, DT_FLOAT32, dr, decl);
			c->init = INIT_WEIGHTS;
			c->ref = xstrdup(key);
			c->pos = l->pos;
		}
	}
out:
	if (owned)
		npy_free(&a);
	free(key);
	return cname;
}

/* ---- nodes ---- */

static struct node *
addnode(struct lw *w, struct nlayer *l, const char *id, const char *opname,
    const char *a, const char *b)
{
	struct node *n = graph_add_node(w->g, id, opname);

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

/* A name for an internal operand of layer l. */
static char *
tmpname(struct lw *w, struct nlayer *l, const char *what)
{
	return xasprintf("%s__%s%d", l->id, what, w->ntmp++);
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
scalar(struct lw *w, struct nlayer *l, const char *what, double v)
{
	char *name = tmpname(w, l, what);
	struct operand *c = graph_add_const(w->g, name, DT_FLOAT32, 0, NULL);

	c->init = INIT_SCALAR;
	c->value = v;
	return name;
}

static char *
vector(struct lw *w, struct nlayer *l, const char *what, const float *v,
    int64_t n)
{
	char *name = tmpname(w, l, what);
	struct operand *c = graph_add_const(w->g, name, DT_FLOAT32, 1, &n);

	c->init = INIT_BYTES;
	c->nbytes = (size_t)n * 4;
	c->bytes = xmalloc(c->nbytes + 1);
	memcpy(c->bytes, v, c->nbytes);
	return name;
}

/* reshape x to the per-sample shape s (rank r) with the batch. */
static char *
reshape(struct lw *w, struct nlayer *l, const char *x, const char *id,
    const int64_t *s, int r)
{
	int64_t d[9];
	char *name = id ? xstrdup(id) : tmpname(w, l, "reshape");
	struct node *n;

	d[0] = w->batch;
	memcpy(d + 1, s, (size_t)r * sizeof *d);
	n = addnode(w, l, name, "reshape", x, NULL);
	cJSON_AddItemToObject(n->options, "newShape", ints(d, r + 1));
	return name;
}

static int64_t
prod(const int64_t *s, int r)
{
	int64_t p = 1;

	for (int i = 0; i < r; i++)
		p *= s[i];
	return p;
}

static int
wantrank(struct lw *w, struct nlayer *l, const struct nlayer *in, int r)
{
	if (in->rank != r) {
		char *s = shapestr(in->shape, in->rank);

		nnl_err(w->m, l->typepos, "%s needs an input of rank %d "
		    "(%s), '%s' gives %s", l->type, r, r == 3 ? "height, "
		    "width, channels" : r == 2 ? "length, channels" : "",
		    in->id, s);
		free(s);
		return -1;
	}
	return 0;
}

/* Output size of a window along one axis. */
static int64_t
outlen(int64_t in, int64_t k, int64_t s, int64_t pb, int64_t pe)
{
	return in + pb + pe < k ? 0 : (in + pb + pe - k) / s + 1;
}

static int
lower_conv(struct lw *w, struct nlayer *l, const struct nlayer *in,
    const char *x, int oned)
{
	int64_t F = (int64_t)pnum(l, "filters", 0), k[2], st[2];
	int64_t g = (int64_t)pnum(l, "groups", 1), H, W, C, OH, OW, pad[4];
	const char *padding = pstr(l, "padding", "valid");
	char *wn, *bn, *src = xstrdup(x), *cv;
	struct node *n;

	if (wantrank(w, l, in, oned ? 2 : 3))
		return -1;
	if (oned) {
		k[0] = (int64_t)pnum(l, "kernel", 1);
		k[1] = 1;
		st[0] = (int64_t)pnum(l, "stride", 1);
		st[1] = 1;
		H = in->shape[0];
		W = 1;
		C = in->shape[1];
	} else {
		ppair(l, "kernel", 1, k);
		ppair(l, "stride", 1, st);
		H = in->shape[0];
		W = in->shape[1];
		C = in->shape[2];
	}
	if (F <= 0 || g <= 0 || C % g || F % g || k[0] <= 0 || k[1] <= 0 ||
	    st[0] <= 0 || st[1] <= 0) {
		nnl_err(w->m, l->typepos, "%s: filters %lld and channels %lld "
		    "must divide into %lld groups; kernel and stride must be "
		    "positive", l->type, (long long)F, (long long)C,
		    (long long)g);
		free(src);
		return -1;
	}
	if (!strcmp(padding, "same")) {
		int64_t th, tw;

		OH = (H + st[0] - 1) / st[0];
		OW = (W + st[1] - 1) / st[1];
		th = (OH - 1) * st[0] + k[0] - H;
		tw = (OW - 1) * st[1] + k[1] - W;
		th = th < 0 ? 0 : th;
		tw = tw < 0 ? 0 : tw;
		pad[0] = th / 2;
		pad[1] = th - th / 2;
		pad[2] = tw / 2;
		pad[3] = tw - tw / 2;
	} else if (!strcmp(padding, "valid")) {
		memset(pad, 0, sizeof pad);
		OH = outlen(H, k[0], st[0], 0, 0);
		OW = outlen(W, k[1], st[1], 0, 0);
	} else {
		nnl_err(w->m, param(l, "padding")->v.pos, "padding \"%s\": "
		    "expected \"valid\" or \"same\"", padding);
		free(src);
		return -1;
	}
	if (OH <= 0 || OW <= 0) {
		char *s = shapestr(in->shape, in->rank);

		nnl_err(w->m, l->typepos, "%s: the kernel does not fit the "
		    "input %s", l->type, s);
		free(s);
		free(src);
		return -1;
	}
	{
		int64_t want[4] = { F, C / g, k[0], k[1] };
		int64_t decl[4] = { F, C / g, k[0], k[1] };
		int64_t bs[1] = { F };

		wn = weight(w, l, "weight", want, oned ? 3 : 4, decl, 4);
		bn = weight(w, l, "bias", bs, 1, bs, 1);
	}
	if (oned) {
		int64_t v[3] = { H, 1, C };

		free(src);
		src = reshape(w, l, x, NULL, v, 3);
	}
	cv = oned ? tmpname(w, l, "conv") : xstrdup(l->id);
	n = addnode(w, l, cv, "conv2d", src, wn);
	cJSON_AddItemToObject(n->options, "padding", ints(pad, 4));
	cJSON_AddItemToObject(n->options, "strides", ints(st, 2));
	if (g != 1)
		cJSON_AddNumberToObject(n->options, "groups", (double)g);
	cJSON_AddStringToObject(n->options, "inputLayout", "nhwc");
	cJSON_AddStringToObject(n->options, "filterLayout", "oihw");
	cJSON_AddStringToObject(n->options, "bias", bn);
	if (oned) {
		int64_t v[2] = { OH, F };

		free(reshape(w, l, cv, l->id, v, 2));
		l->rank = 2;
		l->shape[0] = OH;
		l->shape[1] = F;
	} else {
		l->rank = 3;
		l->shape[0] = OH;
		l->shape[1] = OW;
		l->shape[2] = F;
	}
	free(cv);
	free(wn);
	free(bn);
	free(src);
	return 0;
}

static int
lower_pool(struct lw *w, struct nlayer *l, const struct nlayer *in,
    const char *x, int oned, int avg)
{
	int64_t k[2], st[2], p[4] = { 0, 0, 0, 0 }, H, W, C, OH, OW;
	const struct nparam *pp = param(l, "padding");
	char *src, *pn;
	struct node *n;

	if (wantrank(w, l, in, oned ? 2 : 3))
		return -1;
	if (oned) {
		k[0] = (int64_t)pnum(l, "kernel", 1);
		k[1] = 1;
		st[0] = (int64_t)pnum(l, "stride", (double)k[0]);
		st[1] = 1;
	} else {
		ppair(l, "kernel", 1, k);
		ppair(l, "stride", -1, st);
		if (st[0] < 0) {
			st[0] = k[0];
			st[1] = k[1];
		}
	}
	if (pp) {	/* NNL [top, left, bottom, right] */
		if (pp->v.n != 4) {
			nnl_err(w->m, pp->v.pos, "padding: expected [top, left, "
			    "bottom, right]");
			return -1;
		}
		p[0] = (int64_t)pp->v.items[0].num;
		p[2] = (int64_t)pp->v.items[1].num;
		p[1] = (int64_t)pp->v.items[2].num;
		p[3] = (int64_t)pp->v.items[3].num;
	}
	H = in->shape[0];
	W = oned ? 1 : in->shape[1];
	C = in->shape[oned ? 1 : 2];
	OH = outlen(H, k[0], st[0], p[0], p[1]);
	OW = outlen(W, k[1], st[1], p[2], p[3]);
	if (OH <= 0 || OW <= 0 || k[0] <= 0 || st[0] <= 0 || st[1] <= 0) {
		nnl_err(w->m, l->typepos, "%s: the window does not fit the "
		    "input", l->type);
		return -1;
	}
	if (oned) {
		int64_t v[3] = { H, 1, C };

		src = reshape(w, l, x, NULL, v, 3);
	} else {
		src = xstrdup(x);
	}
	pn = oned ? tmpname(w, l, "pool") : xstrdup(l->id);
	n = addnode(w, l, pn, avg ? "averagePool2d" : "maxPool2d", src, NULL);
	cJSON_AddItemToObject(n->options, "windowDimensions", ints(k, 2));
	cJSON_AddItemToObject(n->options, "strides", ints(st, 2));
	cJSON_AddItemToObject(n->options, "padding", ints(p, 4));
	cJSON_AddStringToObject(n->options, "layout", "nhwc");
	if (oned) {
		int64_t v[2] = { OH, C };

		free(reshape(w, l, pn, l->id, v, 2));
		l->rank = 2;
		l->shape[0] = OH;
		l->shape[1] = C;
	} else {
		l->rank = 3;
		l->shape[0] = OH;
		l->shape[1] = OW;
		l->shape[2] = C;
	}
	free(src);
	free(pn);
	return 0;
}

/* Across-channel LRN from WebNN ops: the squares, averaged over a
 * zero-padded window of size channels, scaled, raised, divided by. */
static int
lower_lrn(struct lw *w, struct nlayer *l, const struct nlayer *in,
    const char *x)
{
	int64_t n = (int64_t)pnum(l, "size", 5), C = in->shape[in->rank - 1];
	int64_t M = prod(in->shape, in->rank - 1), v[3] = { 1, M, C };
	int64_t beg[4] = { 0, 0, 0, (n - 1) / 2 }, end[4] = { 0, 0, 0, n / 2 };
	int64_t win[2] = { 1, n };
	char *sq = tmpname(w, l, "sq"), *r1, *pd = tmpname(w, l, "pad");
	char *av = tmpname(w, l, "avg"), *r2, *t1 = tmpname(w, l, "scaled");
	char *t2 = tmpname(w, l, "biased"), *t3 = tmpname(w, l, "pow");
	char *ca = scalar(w, l, "alpha", pnum(l, "alpha", 1e-4));
	char *cb = scalar(w, l, "bias", pnum(l, "bias", 1.0));
	char *ce = scalar(w, l, "beta", pnum(l, "beta", 0.75));
	struct node *nd;

	if (n <= 0) {
		nnl_err(w->m, l->typepos, "LRN: size must be positive");
		return -1;
	}
	addnode(w, l, sq, "mul", x, x);
	r1 = reshape(w, l, sq, NULL, v, 3);
	nd = addnode(w, l, pd, "pad", r1, NULL);
	cJSON_AddItemToObject(nd->options, "beginningPadding", ints(beg, 4));
	cJSON_AddItemToObject(nd->options, "endingPadding", ints(end, 4));
	nd = addnode(w, l, av, "averagePool2d", pd, NULL);
	cJSON_AddItemToObject(nd->options, "windowDimensions", ints(win, 2));
	r2 = reshape(w, l, av, NULL, in->shape, in->rank);
	addnode(w, l, t1, "mul", r2, ca);
	addnode(w, l, t2, "add", t1, cb);
	addnode(w, l, t3, "pow", t2, ce);
	addnode(w, l, l->id, "div", x, t3);
	l->rank = in->rank;
	memcpy(l->shape, in->shape, sizeof l->shape);
	free(sq);
	free(r1);
	free(pd);
	free(av);
	free(r2);
	free(t1);
	free(t2);
	free(t3);
	free(ca);
	free(cb);
	free(ce);
	return 0;
}

static int
lower_fakequant(struct lw *w, struct nlayer *l, const struct nlayer *in,
    const char *x)
{
	double sc = pnum(l, "scale", 1), zp = pnum(l, "zero_point", 0);
	char *s = scalar(w, l, "scale", sc), *z = scalar(w, l, "zero", zp);
	char *d = tmpname(w, l, "div"), *r = tmpname(w, l, "round");
	char *a = tmpname(w, l, "shift"), *c = tmpname(w, l, "clamp");
	char *u = tmpname(w, l, "unshift");
	struct node *n;

	if (!(sc > 0)) {
		nnl_err(w->m, param(l, "scale")->v.pos, "FakeQuant: scale must "
		    "be positive");
		return -1;
	}
	addnode(w, l, d, "div", x, s);
	addnode(w, l, r, "roundEven", d, NULL);
	addnode(w, l, a, "add", r, z);
	n = addnode(w, l, c, "clamp", a, NULL);
	cJSON_AddNumberToObject(n->options, "minValue", pnum(l, "qmin", -128));
	cJSON_AddNumberToObject(n->options, "maxValue", pnum(l, "qmax", 127));
	addnode(w, l, u, "sub", c, z);
	addnode(w, l, l->id, "mul", u, s);
	l->rank = in->rank;
	memcpy(l->shape, in->shape, sizeof l->shape);
	free(s);
	free(z);
	free(d);
	free(r);
	free(a);
	free(c);
	free(u);
	return 0;
}

/* Same shape as the input. */
static void
keep(struct nlayer *l, const struct nlayer *in)
{
	l->rank = in->rank;
	memcpy(l->shape, in->shape, sizeof l->shape);
}

static int
lower_input(struct lw *w, struct nlayer *l)
{
	const struct nparam *p = param(l, "shape");
	const struct nval *pre = cfg(w->m, "preprocess");
	int64_t d[9];
	char *x;

	if (p->v.n < 1 || p->v.n > 7) {
		nnl_err(w->m, p->v.pos, "shape: expected 1 to 7 dimensions");
		return -1;
	}
	for (int i = 0; i < p->v.n; i++) {
		if (!isint(&p->v.items[i]) || p->v.items[i].num < 1) {
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
	x = xstrdup(l->id);
	if (pre && !strcmp(pre->str, "normalize_0_1")) {
		char *c = scalar(w, l, "255", 255);
		char *y = xasprintf("%s__normalized", l->id);
		struct node *n = addnode(w, l, y, "div", x, c);

		cJSON_ReplaceItemInObject(n->extra, "layerType",
		    cJSON_CreateString("Preprocess"));
		free(x);
		free(c);
		x = y;
	} else if (pre && !strcmp(pre->str, "standardize")) {
		const struct nval *mv = cfg(w->m, "preprocess_mean");
		const struct nval *sv = cfg(w->m, "preprocess_std");
		int64_t C = l->shape[l->rank - 1];
		float mean[4096], sd[4096];
		char *mc, *sc, *t, *y;
		struct node *n;

		if (!mv || !sv || mv->k != NV_LIST || sv->k != NV_LIST ||
		    mv->n != C || sv->n != C || C > 4096) {
			nnl_err(w->m, pre->pos, "standardize needs "
			    "preprocess_mean and preprocess_std with one number "
			    "per channel (%lld)", (long long)C);
			free(x);
			return -1;
		}
		for (int64_t i = 0; i < C; i++) {
			mean[i] = (float)mv->items[i].num;
			sd[i] = (float)sv->items[i].num;
			if (!(sd[i] != 0)) {
				nnl_err(w->m, sv->items[i].pos, "preprocess_std: "
				    "zero");
				free(x);
				return -1;
			}
		}
		mc = vector(w, l, "mean", mean, C);
		sc = vector(w, l, "std", sd, C);
		t = xasprintf("%s__centred", l->id);
		y = xasprintf("%s__standardized", l->id);
		n = addnode(w, l, t, "sub", x, mc);
		cJSON_ReplaceItemInObject(n->extra, "layerType",
		    cJSON_CreateString("Preprocess"));
		n = addnode(w, l, y, "div", t, sc);
		cJSON_ReplaceItemInObject(n->extra, "layerType",
		    cJSON_CreateString("Preprocess"));
		free(mc);
		free(sc);
		free(t);
		free(x);
		x = y;
	}
	l->out = x;
	return 0;
}

static int
lower1(struct lw *w, struct nlayer *l)
{
	const char *t = l->type;
	const struct nlayer *in = l->nin ? &w->m->layers[l->in[0]] : NULL;
	const char *x = in ? in->out : NULL;
	int r = 0;

	if (!strcmp(t, "Input"))
		return lower_input(w, l);
	l->out = xstrdup(l->id);
	if (!strcmp(t, "Dense")) {
		int64_t units = (int64_t)pnum(l, "units", 0), idim;
		const char *act = pstr(l, "activation", "none");
		char *src = xstrdup(x), *wn, *bn, *mm;
		int64_t want[2], bs[1];
		struct node *n;

		if (strcmp(act, "none") && strcmp(act, "relu") &&
		    strcmp(act, "sigmoid") && strcmp(act, "softmax")) {
			nnl_err(w->m, param(l, "activation")->v.pos,
			    "activation \"%s\": expected \"none\", \"relu\", "
			    "\"sigmoid\" or \"softmax\"", act);
			free(src);
			return -1;
		}
		if (units <= 0) {
			nnl_err(w->m, l->typepos, "Dense: units must be "
			    "positive");
			free(src);
			return -1;
		}
		idim = prod(in->shape, in->rank);
		if (in->rank != 1) {
			free(src);
			src = reshape(w, l, x, NULL, &idim, 1);
		}
		want[0] = idim;
		want[1] = units;
		bs[0] = units;
		wn = weight(w, l, "weight", want, 2, want, 2);
		bn = weight(w, l, "bias", bs, 1, bs, 1);
		mm = strcmp(act, "none") ? tmpname(w, l, "gemm") :
		    xstrdup(l->id);
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
	} else if (!strcmp(t, "Conv2D") || !strcmp(t, "Conv1D")) {
		r = lower_conv(w, l, in, x, t[4] == '1');
	} else if (!strcmp(t, "MaxPool2D") || !strcmp(t, "AvgPool2D") ||
	    !strcmp(t, "MaxPool1D")) {
		r = lower_pool(w, l, in, x, t[7] == '1', t[0] == 'A');
	} else if (!strcmp(t, "GlobalAvgPool2D")) {
		int64_t ax[2] = { 1, 2 };
		struct node *n;

		if (wantrank(w, l, in, 3))
			return -1;
		n = addnode(w, l, l->id, "reduceMean", x, NULL);
		cJSON_AddItemToObject(n->options, "axes", ints(ax, 2));
		l->rank = 1;
		l->shape[0] = in->shape[2];
	} else if (!strcmp(t, "Flatten")) {
		l->rank = 1;
		l->shape[0] = prod(in->shape, in->rank);
		free(reshape(w, l, x, l->id, l->shape, 1));
	} else if (!strcmp(t, "BatchNorm") || !strcmp(t, "LayerNorm")) {
		int64_t C = in->shape[in->rank - 1], ax = in->rank;
		int bn = t[0] == 'B';
		char *g = weight(w, l, "gamma", &C, 1, &C, 1);
		char *b = weight(w, l, "beta", &C, 1, &C, 1);
		struct node *n;

		if (bn) {
			char *mu = weight(w, l, "running_mean", &C, 1, &C, 1);
			char *va = weight(w, l, "running_var", &C, 1, &C, 1);

			n = addnode(w, l, l->id, "batchNormalization", x, mu);
			node_add_input(n, va);
			/* the node's inputs are input, mean, variance */
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
		    pnum(l, "epsilon", 1e-5));
		keep(l, in);
		free(g);
		free(b);
	} else if (!strcmp(t, "LRN")) {
		r = lower_lrn(w, l, in, x);
	} else if (!strcmp(t, "FakeQuant")) {
		r = lower_fakequant(w, l, in, x);
	} else if (!strcmp(t, "Dropout")) {
		addnode(w, l, l->id, "identity", x, NULL);
		keep(l, in);
	} else if (!strcmp(t, "Add") || !strcmp(t, "Mul")) {
		char *acc = xstrdup(x);

		for (int k = 1; k < l->nin; k++) {
			const struct nlayer *o = &w->m->layers[l->in[k]];
			char *id;

			if (o->rank != in->rank || memcmp(o->shape, in->shape,
			    (size_t)in->rank * sizeof *in->shape)) {
				char *a = shapestr(in->shape, in->rank);
				char *b = shapestr(o->shape, o->rank);

				nnl_err(w->m, l->typepos, "%s: inputs '%s' %s "
				    "and '%s' %s differ in shape", t, in->id, a,
				    o->id, b);
				free(a);
				free(b);
				free(acc);
				return -1;
			}
			id = k == l->nin - 1 ? xstrdup(l->id) :
			    tmpname(w, l, "partial");
			addnode(w, l, id, t[0] == 'A' ? "add" : "mul", acc,
			    o->out);
			free(acc);
			acc = id;
		}
		free(acc);
		keep(l, in);
	} else if (!strcmp(t, "Concat")) {
		int axis = (int)pnum(l, "axis", -1), a;
		struct node *n = addnode(w, l, l->id, "concat", NULL, NULL);

		a = axis < 0 ? in->rank + axis : axis;
		if (a < 0 || a >= in->rank) {
			nnl_err(w->m, l->typepos, "Concat: axis %d is out of "
			    "range for rank %d", axis, in->rank);
			return -1;
		}
		keep(l, in);
		l->shape[a] = 0;
		for (int k = 0; k < l->nin; k++) {
			const struct nlayer *o = &w->m->layers[l->in[k]];

			for (int i = 0; i < in->rank; i++)
				if (o->rank != in->rank || (i != a &&
				    o->shape[i] != in->shape[i])) {
					nnl_err(w->m, l->typepos, "Concat: '%s' "
					    "does not match '%s' off axis %d",
					    o->id, in->id, axis);
					return -1;
				}
			node_add_input(n, o->out);
			l->shape[a] += o->shape[a];
		}
		cJSON_AddNumberToObject(n->options, "axis", a + 1);
	} else if (!strcmp(t, "ReLU") || !strcmp(t, "Sigmoid") ||
	    !strcmp(t, "Hardswish")) {
		addnode(w, l, l->id, t[0] == 'R' ? "relu" : t[0] == 'S' ?
		    "sigmoid" : "hardSwish", x, NULL);
		keep(l, in);
	} else if (!strcmp(t, "ReLU6")) {
		struct node *n = addnode(w, l, l->id, "clamp", x, NULL);

		cJSON_AddNumberToObject(n->options, "minValue", 0);
		cJSON_AddNumberToObject(n->options, "maxValue", 6);
		keep(l, in);
	} else if (!strcmp(t, "LeakyReLU")) {
		struct node *n = addnode(w, l, l->id, "leakyRelu", x, NULL);

		cJSON_AddNumberToObject(n->options, "alpha",
		    pnum(l, "alpha", 0.01));
		keep(l, in);
	} else if (!strcmp(t, "SiLU")) {
		char *s = tmpname(w, l, "sigmoid");

		addnode(w, l, s, "sigmoid", x, NULL);
		addnode(w, l, l->id, "mul", x, s);
		free(s);
		keep(l, in);
	} else if (!strcmp(t, "Softmax")) {
		int axis = (int)pnum(l, "axis", -1);
		int a = axis < 0 ? in->rank + axis : axis;
		struct node *n;

		if (a < 0 || a >= in->rank) {
			nnl_err(w->m, l->typepos, "Softmax: axis %d is out of "
			    "range for rank %d", axis, in->rank);
			return -1;
		}
		n = addnode(w, l, l->id, "softmax", x, NULL);
		cJSON_AddNumberToObject(n->options, "axis", a + 1);
		keep(l, in);
	} else if (!strcmp(t, "Upsample")) {
		int64_t sc[2], ax[2] = { 1, 2 };
		cJSON *scales = cJSON_CreateArray();
		struct node *n;

		ppair(l, "scale", 1, sc);
		if (wantrank(w, l, in, 3) || sc[0] < 1 || sc[1] < 1) {
			cJSON_Delete(scales);
			if (sc[0] < 1 || sc[1] < 1)
				nnl_err(w->m, l->typepos, "Upsample: scale must "
				    "be a positive integer");
			return -1;
		}
		n = addnode(w, l, l->id, "resample2d", x, NULL);
		cJSON_AddItemToArray(scales, cJSON_CreateNumber((double)sc[0]));
		cJSON_AddItemToArray(scales, cJSON_CreateNumber((double)sc[1]));
		cJSON_AddItemToObject(n->options, "scales", scales);
		cJSON_AddItemToObject(n->options, "axes", ints(ax, 2));
		keep(l, in);
		l->shape[0] *= sc[0];
		l->shape[1] *= sc[1];
	}
	return r;
}

static int
checkconfig(struct lw *w)
{
	struct nmodel *m = w->m;
	const struct nval *v;

	for (int i = 0; i < m->nconfig; i++) {
		struct nparam *c = &m->config[i];
		int k;

		for (k = 0; configkeys[k]; k++)
			if (!strcmp(configkeys[k], c->name))
				break;
		if (!configkeys[k]) {
			const char *best = nearest(c->name, configkeys, 10);

			if (best)
				nnl_err(m, c->pos, "unknown config key '%s' "
				    "(did you mean '%s'?)", c->name, best);
			else
				nnl_err(m, c->pos, "unknown config key '%s'",
				    c->name);
		}
		for (int j = 0; j < i; j++)
			if (!strcmp(m->config[j].name, c->name))
				nnl_err(m, c->pos, "config key '%s' given twice",
				    c->name);
	}
#define STRKEY(key, ...) do { \
	static const char *const ok_[] = { __VA_ARGS__, NULL }; \
	int k_; \
	if (!(v = cfg(m, key))) \
		break; \
	for (k_ = 0; ok_[k_] && (v->k != NV_STR || strcmp(ok_[k_], \
	    v->str)); k_++) \
		; \
	if (!ok_[k_]) \
		nnl_err(m, v->pos, "%s: expected one of " #__VA_ARGS__, key); \
} while (0)
	if ((v = cfg(m, "precision")) && v->k == NV_STR &&
	    strcmp(v->str, "float32") && (!strcmp(v->str, "float64") ||
	    !strcmp(v->str, "int8")))
		nnl_err(m, v->pos, "precision \"%s\" is not supported: nnc "
		    "generates float32 code", v->str);
	else
		STRKEY("precision", "float32");
	STRKEY("target", "generic", "avx2", "avx512", "arm_neon");
	STRKEY("preprocess", "none", "normalize_0_1", "standardize");
	STRKEY("io", "stdio", "none");
#undef STRKEY
	if ((v = cfg(m, "weights")) && v->k != NV_STR)
		nnl_err(m, v->pos, "weights: expected a path string");
	if ((v = cfg(m, "memory_limit")) && v->k != NV_STR)
		nnl_err(m, v->pos, "memory_limit: expected a size such as "
		    "\"128MB\"");
	if ((v = cfg(m, "align")) && (!isint(v) || v->num < 1 ||
	    ((int64_t)v->num & ((int64_t)v->num - 1))))
		nnl_err(m, v->pos, "align: expected a power of two");
	w->batch = 1;
	if ((v = cfg(m, "batch"))) {
		if (!isint(v) || v->num < 1)
			nnl_err(m, v->pos, "batch: expected a positive integer");
		else
			w->batch = (int64_t)v->num;
	}
	return m->nerr ? -1 : 0;
}

static cJSON *
jvalue(const struct nval *v)
{
	cJSON *a;

	switch (v->k) {
	case NV_NUM:
		return cJSON_CreateNumber(v->num);
	case NV_LIST:
		a = cJSON_CreateArray();
		for (int i = 0; i < v->n; i++)
			cJSON_AddItemToArray(a, jvalue(&v->items[i]));
		return a;
	default:
		return cJSON_CreateString(v->str);
	}
}

static void
freeval(struct nval *v)
{
	for (int i = 0; i < v->n; i++)
		freeval(&v->items[i]);
	free(v->items);
	free(v->str);
}

static void
freemodel(struct nmodel *m)
{
	for (int i = 0; i < m->nconfig; i++) {
		free(m->config[i].name);
		freeval(&m->config[i].v);
	}
	free(m->config);
	for (int i = 0; i < m->nlayers; i++) {
		struct nlayer *l = &m->layers[i];

		for (int k = 0; k < l->np; k++) {
			free(l->params[k].name);
			freeval(&l->params[k].v);
		}
		free(l->params);
		free(l->id);
		free(l->type);
		free(l->in);
		free(l->out);
	}
	free(m->layers);
	for (int i = 0; i < m->nconns; i++) {
		for (int k = 0; k < m->conns[i].nfrom; k++)
			free(m->conns[i].from[k]);
		free(m->conns[i].from);
		free(m->conns[i].frompos);
		free(m->conns[i].to);
	}
	free(m->conns);
	free(m->version);
	free(m->model);
}

/* Lower every layer after its inputs; report cycles and orphans. */
static int
lowerall(struct lw *w)
{
	struct nmodel *m = w->m;
	int done = 0, progress = 1, ninput = 0;

	for (int i = 0; i < m->nlayers; i++) {
		struct nlayer *l = &m->layers[i];
		const struct ltype *t = ltype(l->type);

		if (!t) {
			const char *names[32];
			const char *best;
			size_t n = sizeof ltypes / sizeof *ltypes;

			for (size_t k = 0; k < n; k++)
				names[k] = ltypes[k].name;
			best = nearest(l->type, names, n);
			if (best)
				nnl_err(m, l->typepos, "unknown layer type '%s' "
				    "(did you mean '%s'?)", l->type, best);
			else
				nnl_err(m, l->typepos, "unknown layer type '%s'",
				    l->type);
			continue;
		}
		checkparams(m, l, t);
		ninput += t->minin == 0;
		if (l->nin < t->minin || l->nin > t->maxin)
			nnl_err(m, l->pos, "%s '%s' takes %s%d input%s, it has "
			    "%d%s", l->type, l->id, t->minin == t->maxin ? "" :
			    "at least ", t->minin, t->minin == 1 ? "" : "s",
			    l->nin, t->minin > 1 && !m->hasconn ?
			    " (multi-input layers need a connections block)" :
			    "");
	}
	if (!m->nerr && ninput != 1)
		nnl_err(m, m->modelpos, "the model needs exactly one Input "
		    "layer, it has %d", ninput);
	if (m->nerr)
		return -1;
	while (done < m->nlayers && progress) {
		progress = 0;
		for (int i = 0; i < m->nlayers; i++) {
			struct nlayer *l = &m->layers[i];
			int ready = !l->done;

			for (int k = 0; k < l->nin && ready; k++)
				ready = m->layers[l->in[k]].done;
			if (!ready)
				continue;
			if (lower1(w, l) != 0)
				return -1;
			l->done = 1;
			done++;
			progress = 1;
		}
	}
	if (done < m->nlayers) {
		for (int i = 0; i < m->nlayers; i++)
			if (!m->layers[i].done) {
				nnl_err(m, m->layers[i].pos, "layer '%s' is on "
				    "a cycle of connections", m->layers[i].id);
				break;
			}
		return -1;
	}
	return m->nerr ? -1 : 0;
}

/* The model's output: the last layer, or the one layer nothing reads. */
static int
output(struct lw *w)
{
	struct nmodel *m = w->m;
	int out = -1, n = 0;

	for (int i = 0; i < m->nlayers; i++) {
		int used = 0;

		for (int j = 0; j < m->nlayers; j++)
			for (int k = 0; k < m->layers[j].nin; k++)
				used |= m->layers[j].in[k] == i;
		if (!used && strcmp(m->layers[i].type, "Input")) {
			out = i;
			n++;
		}
	}
	if (!m->hasconn)
		out = m->nlayers - 1, n = 1;
	if (n != 1 || out < 0) {
		nnl_err(m, m->modelpos, "the model must end in one layer; %d "
		    "layers feed no other", n);
		return -1;
	}
	graph_add_output(w->g, m->layers[out].id, m->layers[out].out);
	return 0;
}

struct graph *
nnl_parse(const char *text, size_t len, const char *name,
    const struct nnl_opts *o)
{
	struct nmodel m;
	struct lw w;
	struct graph *g = graph_new();
	int rc = -1;

	memset(&m, 0, sizeof m);
	memset(&w, 0, sizeof w);
	m.name = name;
	m.text = text;
	m.len = len;
	w.m = &m;
	w.g = g;
	w.o = o;
	g->src = name;
	g->text = text;
	g->textlen = len;
	if (nnl_syntax(&m) != 0 || checkconfig(&w) != 0 || wire(&m) != 0 ||
	    openweights(&w) != 0)
		goto out;
	g->name = xstrdup(m.model);
	if (lowerall(&w) != 0 || output(&w) != 0)
		goto out;
	if (w.nmissing) {
		const struct nval *v = cfg(&m, "weights");

		nnl_err(&m, v ? v->pos : m.modelpos, "E003: %d missing weight%s "
		    "in %s%s:%s\n  hint: run 'nnc inspect %s' to see every "
		    "expected tensor and its shape", w.nmissing,
		    w.nmissing == 1 ? "" : "s", !w.wsrc ? "the model (no "
		    "'weights' in config)" : w.wkind ? "the .npz archive " :
		    "the directory of .npy files ", w.wsrc ? w.wsrc : "",
		    w.missing.s, name);
		goto out;
	}
	if (w.wopen) {
		if (wwriter_commit(&w.ww) != 0)
			goto out;
		w.wopen = 0;
		g->weights_file = xstrdup(o->weights);
		g->manifest_file = xstrdup(o->manifest);
	}
	{
		cJSON *x = cJSON_CreateObject(), *c = cJSON_CreateObject();

		cJSON_AddStringToObject(x, "version", m.version ? m.version :
		    "0.2");
		for (int i = 0; i < m.nconfig; i++)
			cJSON_AddItemToObject(c, m.config[i].name,
			    jvalue(&m.config[i].v));
		cJSON_AddItemToObject(x, "config", c);
		g->extra = cJSON_CreateObject();
		cJSON_AddItemToObject(g->extra, "nnl", x);
	}
	rc = 0;
out:
	if (w.wopen)
		wwriter_abort(&w.ww);
	if (w.npz)
		npz_free(w.npz, w.nnpz);
	free(w.wsrc);
	free(w.missing.s);
	freemodel(&m);
	if (rc) {
		graph_free(g);
		return NULL;
	}
	return g;
}
