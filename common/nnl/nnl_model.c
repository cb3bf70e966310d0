/*
 * nnl_model: checks an NNL model before and around its lowering.  One
 * table lists every layer type with its parameters and weights; this
 * file checks the config and each layer's parameters against it, wires
 * the layers (declaration order or the connections), lowers them in
 * data-flow order (reporting a cycle as the path it takes), loads every
 * weight tensor from the .npy directory or .npz archive, collects the
 * missing ones into one E003 error, and packs the rest.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "nnl_ast.h"
#include "escape.h"
#include "modelpath.h"
#include "npy.h"

/*
 * The layers through NNL 0.9.0.  params: "name:kind" with kinds int,
 * num, str, shape (an int or a pair of ints), list; a trailing '!'
 * marks a required one.  Where nnc requires a parameter that the NumPy
 * reference (examples/reference.py) gives a default, nnl follows the
 * reference: LRN's size, FakeQuant's zero_point, qmin and qmax.
 */
static const struct ltype {
	const char *name, *params;
	int minin, maxin;	/* inputs; 0 for Input */
} ltypes[] = {
	{ "Input", "shape:list!", 0, 0 },
	{ "Dense", "units:int! activation:str", 1, 1 },
	{ "Conv2D", "filters:int! kernel:shape! stride:shape padding:pad "
	    "groups:int", 1, 1 },
	{ "Conv1D", "filters:int! kernel:int! stride:int padding:str", 1, 1 },
	{ "MaxPool2D", "kernel:shape! stride:shape padding:list", 1, 1 },
	{ "AvgPool2D", "kernel:shape! stride:shape padding:list", 1, 1 },
	{ "MaxPool1D", "kernel:int! stride:int", 1, 1 },
	{ "GlobalAvgPool2D", "", 1, 1 },
	{ "Flatten", "", 1, 1 },
	{ "BatchNorm", "epsilon:num", 1, 1 },
	{ "LayerNorm", "epsilon:num", 1, 1 },
	{ "LRN", "size:int alpha:num beta:num bias:num", 1, 1 },
	{ "Dropout", "rate:num", 1, 1 },
	{ "Add", "", 2, 64 },
	{ "Mul", "", 2, 64 },
	{ "Concat", "axis:int", 2, 64 },
	{ "ReLU", "", 1, 1 },
	{ "ReLU6", "", 1, 1 },
	{ "LeakyReLU", "alpha:num", 1, 1 },
	{ "Sigmoid", "", 1, 1 },
	{ "SiLU", "", 1, 1 },
	{ "Hardswish", "", 1, 1 },
	{ "Softmax", "axis:int", 1, 1 },
	{ "Upsample", "scale:shape!", 1, 1 },
	{ "FakeQuant", "scale:num! zero_point:int qmin:int qmax:int", 1, 1 },
};
#define NLTYPES (sizeof ltypes / sizeof *ltypes)

static const char *const configkeys[] = { "precision", "weights", "target",
    "align", "batch", "preprocess", "preprocess_mean", "preprocess_std",
    "io", "memory_limit", "threads" };
#define NCONFIGKEYS (sizeof configkeys / sizeof *configkeys)

static const struct ltype *
ltype(const char *name)
{
	for (size_t i = 0; i < NLTYPES; i++)
		if (!strcmp(ltypes[i].name, name))
			return &ltypes[i];
	return NULL;
}

/* The nearest of a list of names, or NULL when none is near. */
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


/* ---- parameters and config ---- */

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
		return nnl_isint(v);
	if (!strcmp(kind, "num"))
		return v->k == NV_NUM;
	if (!strcmp(kind, "str"))
		return v->k == NV_STR;
	if (!strcmp(kind, "list"))
		return v->k == NV_LIST;
	if (!strcmp(kind, "pad")) {	/* "valid", "same" or per side */
		int ok = v->k == NV_STR || (v->k == NV_LIST && v->n == 4);

		for (int i = 0; v->k == NV_LIST && i < v->n; i++)
			ok = ok && nnl_isint(&v->items[i]) &&
			    v->items[i].num >= 0;
		return ok;
	}
	return nnl_isint(v) || (v->k == NV_LIST && v->n == 2 &&
	    nnl_isint(&v->items[0]) && nnl_isint(&v->items[1]));
}

static const char *
kindname(const char *kind)
{
	return !strcmp(kind, "int") ? "an integer" : !strcmp(kind, "num") ?
	    "a number" : !strcmp(kind, "str") ? "a string" :
	    !strcmp(kind, "list") ? "a list" : !strcmp(kind, "pad") ?
	    "\"valid\", \"same\" or [top, left, bottom, right]" :
	    "an integer or [height, width]";
}

/* Check a layer's parameters against the table. */
static void
checkparams(struct nmodel *m, struct nlayer *l, const struct ltype *t)
{
	struct pspec ps[16];
	const char *names[16];
	int n = specs(t, ps);

	for (int k = 0; k < n; k++) {
		const struct nparam *p = nnl_param(l, ps[k].name);

		names[k] = ps[k].name;
		if (!p && ps[k].req)
			nnl_err(m, l->typepos, "%s needs the parameter '%s'",
			    t->name, ps[k].name);
		else if (p && !fits(&p->v, ps[k].kind))
			nnl_err(m, p->v.pos, "parameter '%s' of %s: expected %s",
			    ps[k].name, t->name, kindname(ps[k].kind));
	}
	for (int i = 0; i < l->np; i++) {
		const char *best;
		int k;

		for (int j = 0; j < i; j++)
			if (!strcmp(l->params[j].name, l->params[i].name))
				nnl_err(m, l->params[i].pos, "parameter '%s' "
				    "given twice",
				    escape_tty_name(l->params[i].name));
		for (k = 0; k < n; k++)
			if (!strcmp(ps[k].name, l->params[i].name))
				break;
		if (k < n)
			continue;
		best = nearest(l->params[i].name, names, (size_t)n);
		if (best)
			nnl_err(m, l->params[i].pos, "%s has no parameter '%s' "
			    "(did you mean '%s'?)", t->name,
			    escape_tty_name(l->params[i].name),
			    best);
		else
			nnl_err(m, l->params[i].pos, "%s has no parameter '%s'%s",
			    t->name, escape_tty_name(l->params[i].name),
			    n ? "" :
			    " (it takes none)");
	}
}

/* A string config key, one of a NULL-terminated list. */
static void
strkey(struct nmodel *m, const char *key, const char *const *ok)
{
	const struct nval *v = nnl_cfg(m, key);
	struct buf b = { 0 };
	int k;

	if (!v)
		return;
	for (k = 0; ok[k]; k++)
		if (v->k == NV_STR && !strcmp(ok[k], v->str))
			return;
	for (k = 0; ok[k]; k++)
		buf_printf(&b, "%s\"%s\"", k == 0 ? "" : ok[k + 1] ? ", " :
		    " or ", ok[k]);
	nnl_err(m, v->pos, "%s: expected %s", escape_tty_name(key), b.s);
	free(b.s);
}

/* A list of numbers, for preprocess_mean and preprocess_std. */
static void
numlist(struct nmodel *m, const char *key)
{
	const struct nval *v = nnl_cfg(m, key);
	int ok = v && v->k == NV_LIST;

	for (int i = 0; ok && i < v->n; i++)
		ok = v->items[i].k == NV_NUM;
	if (v && !ok)
		nnl_err(m, v->pos, "%s: expected a list of numbers, one per "
		    "channel", escape_tty_name(key));
}

static int
checkconfig(struct nlower *w)
{
	static const char *const prec[] = { "float32", NULL };
	static const char *const target[] = { "generic", "avx2", "avx512",
	    "arm_neon", NULL };
	static const char *const pre[] = { "none", "normalize_0_1",
	    "standardize", NULL };
	static const char *const io[] = { "stdio", "none", NULL };
	struct nmodel *m = w->m;
	const struct nval *v;

	for (int i = 0; i < m->nconfig; i++) {
		struct nparam *c = &m->config[i];
		const char *best;
		size_t k;

		for (k = 0; k < NCONFIGKEYS; k++)
			if (!strcmp(configkeys[k], c->name))
				break;
		for (int j = 0; j < i; j++)
			if (!strcmp(m->config[j].name, c->name))
				nnl_err(m, c->pos, "config key '%s' given twice",
				    escape_tty_name(c->name));
		if (k < NCONFIGKEYS)
			continue;
		best = nearest(c->name, configkeys, NCONFIGKEYS);
		if (best)
			nnl_err(m, c->pos, "unknown config key '%s' (did you "
			    "mean '%s'?)", escape_tty_name(c->name), best);
		else
			nnl_err(m, c->pos, "unknown config key '%s'",
			    escape_tty_name(c->name));
	}
	/* nnc 0.4.0 and later refuse these rather than compute wrongly */
	if ((v = nnl_cfg(m, "precision")) && v->k == NV_STR &&
	    (!strcmp(v->str, "float64") || !strcmp(v->str, "int8")))
		nnl_err(m, v->pos, "E007: precision \"%s\" is not supported: "
		    "nnl computes in float32", escape_tty_name(v->str));
	else
		strkey(m, "precision", prec);
	strkey(m, "target", target);
	strkey(m, "preprocess", pre);
	strkey(m, "io", io);
	numlist(m, "preprocess_mean");
	numlist(m, "preprocess_std");
	if ((v = nnl_cfg(m, "weights")) && v->k != NV_STR)
		nnl_err(m, v->pos, "weights: expected a path string");
	if ((v = nnl_cfg(m, "memory_limit")) && v->k != NV_STR)
		nnl_err(m, v->pos, "memory_limit: expected a size such as "
		    "\"128MB\"");
	if ((v = nnl_cfg(m, "align")) && (!nnl_isint(v) || v->num < 1 ||
	    v->num > 4096 || ((int64_t)v->num & ((int64_t)v->num - 1))))
		nnl_err(m, v->pos, "align: expected a power of two up to "
		    "4096");
	if ((v = nnl_cfg(m, "threads")) && (!nnl_isint(v) || v->num < 1 ||
	    v->num > 64))
		nnl_err(m, v->pos, "threads: expected an integer from 1 to 64");
	w->batch = 1;
	if ((v = nnl_cfg(m, "batch"))) {
		if (!nnl_isint(v) || v->num < 1)
			nnl_err(m, v->pos, "batch: expected a positive integer");
		else
			w->batch = (int64_t)v->num;
	}
	return m->nerr ? -1 : 0;
}

/* ---- wiring ---- */

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
				nnl_err(m, l->pos, "E001: layer '%s' is "
				    "declared twice", escape_tty_name(l->id));
		for (int j = 0; j < m->nlayers; j++) {
			size_t n = strlen(m->layers[j].id);

			if (!strncmp(l->id, m->layers[j].id, n) &&
			    !strncmp(l->id + n, "__", 2))
				nnl_err(m, l->pos, "layer name '%s' may clash "
				    "with the operands of layer '%s', named "
				    "'%s__...'", escape_tty_name(l->id),
				    escape_tty_name(m->layers[j].id),
				    escape_tty_name(m->layers[j].id));
		}
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
			nnl_err(m, cn->topos, "E001: connection to unknown "
			    "layer '%s'",
			    escape_tty_name(cn->to));
			continue;
		}
		for (int k = 0; k < cn->nfrom; k++) {
			int from = findlayer(m, cn->from[k]);
			struct nlayer *l = &m->layers[to];

			if (from < 0) {
				nnl_err(m, cn->frompos[k], "E001: connection "
				    "from unknown layer '%s'",
				    escape_tty_name(cn->from[k]));
				continue;
			}
			l->in = xrealloc(l->in, (size_t)(l->nin + 1) *
			    sizeof *l->in);
			l->in[l->nin++] = from;
		}
	}
	return m->nerr ? -1 : 0;
}

/* Every layer's type, parameters and number of inputs. */
/* Upstream nnc's code for a layer with too few or many inputs: E001
 * for none, E004 for an Add, E005 for a Concat (nnc(1), DIAGNOSTICS). */
static const char *
ecode(const struct nlayer *l)
{
	if (l->nin == 0)
		return "E001: ";
	if (!strcmp(l->type, "Add"))
		return "E004: ";
	if (!strcmp(l->type, "Concat"))
		return "E005: ";
	return "";
}

static int
checklayers(struct nmodel *m)
{
	const char *names[NLTYPES];
	int ninput = 0;

	for (size_t k = 0; k < NLTYPES; k++)
		names[k] = ltypes[k].name;
	for (int i = 0; i < m->nlayers; i++) {
		struct nlayer *l = &m->layers[i];
		const struct ltype *t = ltype(l->type);
		const char *best;

		if (!t) {
			best = nearest(l->type, names, NLTYPES);
			if (best)
				nnl_err(m, l->typepos, "unknown layer type '%s' "
				    "(did you mean '%s'?)",
				    escape_tty_name(l->type), best);
			else
				nnl_err(m, l->typepos, "unknown layer type '%s'",
				    escape_tty_name(l->type));
			continue;
		}
		checkparams(m, l, t);
		ninput += t->minin == 0;
		if (l->nin < t->minin || l->nin > t->maxin)
			nnl_err(m, l->pos, "%s%s '%s' takes %s%d input%s, it "
			    "has %d%s", ecode(l), escape_tty_name(l->type),
			    escape_tty_name(l->id), t->minin == t->maxin ? "" :
			    "at least ", t->minin, t->minin == 1 ? "" : "s",
			    l->nin, t->minin > 1 && !m->hasconn ?
			    " (multi-input layers need a connections block)" :
			    l->nin == 0 && m->hasconn ? " (no connection leads "
			    "to it)" : "");
	}
	if (!m->nerr && ninput != 1)
		nnl_err(m, m->modelpos, "the model needs exactly one Input "
		    "layer, it has %d", ninput);
	return m->nerr ? -1 : 0;
}

/*
 * Some layers were never ready: every one of them waits for another,
 * so walking back along inputs not lowered must come round to a layer
 * already passed.  Report that cycle in data-flow order, from the
 * layer of it declared first.
 */
static void
cycle(struct nmodel *m)
{
	int *seen = xcalloc((size_t)m->nlayers, sizeof *seen), *path;
	int n = 0, cur = 0, first;
	struct buf b = { 0 };

	path = xmalloc((size_t)m->nlayers * sizeof *path);
	while (m->layers[cur].done)
		cur++;
	while (!seen[cur]) {
		const struct nlayer *l = &m->layers[cur];
		int k = 0;

		seen[cur] = ++n;
		path[n - 1] = cur;
		while (m->layers[l->in[k]].done)
			k++;
		cur = l->in[k];
	}
	/* the cycle is path[seen[cur]-1 .. n-1], against the data flow */
	first = n - 1;
	for (int i = seen[cur] - 1; i < n; i++)
		if (path[i] < path[first])
			first = i;
	for (int i = 0, j = first; i <= n - seen[cur] + 1; i++) {
		buf_printf(&b, "%s'%s'", i ? " -> " : "", m->layers[path[j]].id);
		j = j == seen[cur] - 1 ? n - 1 : j - 1;
	}
	nnl_err(m, m->layers[path[first]].pos, "E006: the connections form "
	    "a cycle: %s", b.s);
	free(b.s);
	free(path);
	free(seen);
}

/* Lower every layer after its inputs. */
static int
lowerall(struct nlower *w)
{
	struct nmodel *m = w->m;
	int done = 0, progress = 1;

	while (done < m->nlayers && progress) {
		progress = 0;
		for (int i = 0; i < m->nlayers; i++) {
			struct nlayer *l = &m->layers[i];
			int ready = !l->done;

			for (int k = 0; k < l->nin && ready; k++)
				ready = m->layers[l->in[k]].done;
			if (!ready)
				continue;
			if (nnl_lower_layer(w, l) != 0)
				return -1;
			l->done = 1;
			done++;
			progress = 1;
		}
	}
	if (done < m->nlayers) {
		cycle(m);
		return -1;
	}
	return m->nerr ? -1 : 0;
}

/* The model's output: the last layer, or the one layer nothing reads. */
static int
output(struct nlower *w)
{
	struct nmodel *m = w->m;
	struct nlayer *l;
	struct buf b = { 0 };
	int out = -1, n = 0, *unused = xmalloc((size_t)m->nlayers *
	    sizeof *unused);

	for (int i = 0; i < m->nlayers; i++) {
		int used = 0;

		for (int j = 0; j < m->nlayers; j++)
			for (int k = 0; k < m->layers[j].nin; k++)
				used |= m->layers[j].in[k] == i;
		if (!used && strcmp(m->layers[i].type, "Input"))
			unused[n++] = out = i;
	}
	for (int i = 0; i < n; i++)
		buf_printf(&b, "%s'%s'", i == 0 ? "" : i == n - 1 ? " and " :
		    ", ", m->layers[unused[i]].id);
	free(unused);
	if (!m->hasconn || m->nlayers == 1)
		out = m->nlayers - 1, n = 1;
	if (n != 1) {
		nnl_err(m, m->modelpos, "the model must end in one layer, "
		    "but %s feed%s no other", n ? b.s : "all layers",
		    n == 1 ? "s" : "");
		free(b.s);
		return -1;
	}
	free(b.s);
	l = &m->layers[out];
	if (!strcmp(l->out, l->id) && !strcmp(l->type, "Input")) {
		/* a graph output must be a node's: the input, unchanged */
		struct node *nd;

		free(l->out);
		l->out = xasprintf("%s__output", l->id);
		nd = graph_add_node(w->g, l->out, "identity");
		node_add_input(nd, l->id);
		node_add_output(nd, l->out);
		nd->pos = l->pos;
		nd->extra = cJSON_CreateObject();
		cJSON_AddStringToObject(nd->extra, "layer", l->id);
		cJSON_AddStringToObject(nd->extra, "layerType", l->type);
	}
	graph_add_output(w->g, l->id, l->out);
	return 0;
}


/* ---- the graph ---- */

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

/* "nnl": {"version": ..., "config": {...}} at the top of the graph. */
static void
annotate(struct graph *g, struct nmodel *m)
{
	cJSON *x = cJSON_CreateObject(), *c = cJSON_CreateObject();

	cJSON_AddStringToObject(x, "version", m->version ? m->version :
	    "0.2");
	for (int i = 0; i < m->nconfig; i++)
		cJSON_AddItemToObject(c, m->config[i].name,
		    jvalue(&m->config[i].v));
	cJSON_AddItemToObject(x, "config", c);
	g->extra = cJSON_CreateObject();
	cJSON_AddItemToObject(g->extra, "nnl", x);
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

struct graph *
nnl_parse(const char *text, size_t len, const char *name,
    const struct nnl_opts *o)
{
	struct nmodel m;
	struct nlower w;
	struct graph *g = graph_new();
	char *wdflt = NULL, *mdflt = NULL;
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
	    checklayers(&m) != 0 || (!o->summary && nnl_weights_open(&w) != 0))
		goto out;
	g->name = xstrdup(m.model);
	w.wfile = o->weights;
	w.mfile = o->manifest;
	if (!o->weights) {
		const char *d = o->dir ? o->dir : ".";

		w.wfile = wdflt = xasprintf("%s/%s.weights", d, m.model);
		w.mfile = mdflt = xasprintf("%s/%s.manifest.json", d, m.model);
	}
	rc = lowerall(&w);
	if (w.nmissing)	/* after the other errors of the layers */
		nnl_weights_missing(&w);
	if (rc != 0 || output(&w) != 0 || m.nerr) {
		rc = -1;
		goto out;
	}
	if (w.wopen) {
		if (wwriter_commit(&w.ww) != 0)
			goto out;
		w.wopen = 0;
		g->weights_file = xstrdup(w.wfile);
		g->manifest_file = xstrdup(w.mfile);
	}
	annotate(g, &m);
	if (o->summary)
		nnl_weights_summary(g, &m, &w);
	rc = 0;
out:
	if (w.wopen)
		wwriter_abort(&w.ww);
	if (w.npz)
		npz_free(w.npz, w.nnpz);
	nnl_onnx_close(w.onnx);
	free(w.wsrc);
	free(w.wreal);
	free(w.mdir);
	free(w.missing.s);
	cJSON_Delete(w.wlist);
	free(wdflt);
	free(mdflt);
	freemodel(&m);
	if (rc) {
		graph_free(g);
		return NULL;
	}
	return g;
}
