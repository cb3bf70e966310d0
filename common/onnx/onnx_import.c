/*
 * onnx_import: an ONNX model into a webnn-graph.  Reads the protobuf,
 * declares the graph inputs (symbolic dimensions pinned by the caller),
 * turns initializers into constants, converts every node through its
 * handler in onnx_ops.def, folds what is constant, and names every node
 * it cannot express in one error.  Constants above a few bytes go to
 * the weights file.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checked.h"
#include "eval.h"
#include "escape.h"
#include "kernel.h"
#include "npy.h"
#include "onnx.h"
#include "onnx_imp.h"
#include "order.h"
#include "rt/rt.h"
#include "shape.h"
#include "weights.h"
#include "progress.h"


/* ---- the model ---- */

static int
pin(const struct onnx_opts *o, const char *param, int64_t *v)
{
	for (int i = 0; i < o->ndims; i++) {
		const char *eq = strchr(o->dims[i], '=');

		if (eq && (size_t)(eq - o->dims[i]) == strlen(param) &&
		    strncmp(o->dims[i], param, strlen(param)) == 0) {
			*v = strtoll(eq + 1, NULL, 10);
			return 1;
		}
	}
	return 0;
}

/* The file --const gives for input name, or NULL. */
static const char *
constfor(const struct onnx_opts *o, const char *name)
{
	for (int i = 0; i < o->nconsts; i++) {
		const char *eq = strchr(o->consts[i], '=');

		if (eq && (size_t)(eq - o->consts[i]) == strlen(name) &&
		    strncmp(o->consts[i], name, strlen(name)) == 0)
			return eq + 1;
	}
	return NULL;
}

/* Graph input v as a constant read from file, checked against the
 * input's declared type. */
static int
frozen(struct imp *m, const Onnx__ValueInfoProto *v, const char *file)
{
	struct npy a;
	const char *tn;
	enum dtype dt = DT_NONE;
	const Onnx__TypeProto__Tensor *tt = v->type && v->type->value_case ==
	    ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE ? v->type->tensor_type : NULL;
	int rc = -1;
	char *why = NULL;

	if (npy_load(file, &a) != 0)
		return -1;
	if (tt)
		dt = onnx_dtype(tt->elem_type, &tn);
	if (dt == DT_BFLOAT16 && a.dt == DT_UINT16)
		a.dt = DT_BFLOAT16;	/* its bits, as NumPy holds it */
	if (dt != DT_NONE && dt != a.dt)
		error("%s: --const %s=%s: %s data for an input of %s", m->path,
		    escape_tty_name(v->name), escape_tty_name(file),
		    dtype_name(a.dt), dtype_name(dt));
	else if (tt && tt->shape && (int)tt->shape->n_dim != a.rank)
		error("%s: --const %s=%s: rank %d for an input of rank %zu",
		    m->path, escape_tty_name(v->name), escape_tty_name(file),
		    a.rank, tt->shape->n_dim);
	else if (tdesc_numel(&(struct tdesc){ a.dt, a.rank, a.shape }) == 0)
		error("%s: --const %s=%s: an empty array", m->path,
		    escape_tty_name(v->name),
		    escape_tty_name(file));
	else if ((why = checked_tensor(&(struct tdesc){ a.dt, a.rank,
	    a.shape })))
		error("%s: --const %s=%s: %s", m->path,
		    escape_tty_name(v->name), escape_tty_name(file), why);
	else
		rc = 0;
	free(why);
	for (int i = 0; rc == 0 && tt && tt->shape && i < a.rank; i++) {
		const Onnx__TensorShapeProto__Dimension *d = tt->shape->dim[i];

		if (d->value_case ==
		    ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE &&
		    d->dim_value != a.shape[i]) {
			error("%s: --const %s=%s: dimension %d is %lld, the "
			    "input's is %lld", m->path,
			    escape_tty_name(v->name), escape_tty_name(file), i,
			    (long long)a.shape[i], (long long)d->dim_value);
			rc = -1;
		}
	}
	if (rc == 0) {
		imp_addconst(m, v->name, a.dt, a.rank, a.shape, a.data, a.nbytes);
		imp_setval(m, v->name, v->name);
	}
	npy_free(&a);
	return rc;
}

static int
isinit(const Onnx__GraphProto *gp, const char *name)
{
	for (size_t i = 0; i < gp->n_initializer; i++)
		if (gp->initializer[i]->name &&
		    strcmp(gp->initializer[i]->name, name) == 0)
			return 1;
	return 0;
}

/*
 * The tensor type of input v: a tensor of a WebNN data type (*dt)
 * with a shape of rank (*rank) 32 at most.  NULL, with a message,
 * when it is not.
 */
static const Onnx__TypeProto__Tensor *
inputtensor(struct imp *m, const Onnx__ValueInfoProto *v, enum dtype *dt,
    size_t *rank)
{
	const Onnx__TypeProto__Tensor *tt;
	const char *tn;

	if (!v->type || v->type->value_case !=
	    ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE) {
		m->n = NULL;
		error("%s: input \"%s\" [%s]: a sequence, optional "
		    "or map, not a tensor", m->path,
		    escape_tty_name(v->name),
		    refusal_code(REFUSE_SEQUENCE));
		return NULL;
	}
	tt = v->type->tensor_type;
	if ((*dt = onnx_dtype(tt->elem_type, &tn)) == DT_NONE) {
		error("%s: input \"%s\" [%s]: data type %s has no "
		    "equivalent in nnl's graph", m->path,
		    escape_tty_name(v->name),
		    refusal_code(REFUSE_TYPE), tn);
		return NULL;
	}
	if (!tt->shape) {
		error("%s: input \"%s\" has no shape", m->path,
		    escape_tty_name(v->name));
		return NULL;
	}
	if ((*rank = tt->shape->n_dim) > 32) {
		error("%s: input \"%s\": rank %zu is over 32", m->path,
		    escape_tty_name(v->name), *rank);
		return NULL;
	}
	return tt;
}

/*
 * The dimensions of input v of type tt into dims: a known size, one
 * pinned by --dim, or 1 for an unknown one, which *unknown lists and
 * *nunknown counts.  The first dimension that is 0, or -1.
 */
static int
inputdims(const struct onnx_opts *o, const Onnx__ValueInfoProto *v,
    const Onnx__TypeProto__Tensor *tt, int64_t *dims, struct buf *unknown,
    int *nunknown)
{
	int zero = -1;

	for (size_t k = 0; k < tt->shape->n_dim; k++) {
		const Onnx__TensorShapeProto__Dimension *d =
		    tt->shape->dim[k];

		if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE &&
		    d->dim_value == 0) {
			dims[k] = 0;
			if (zero < 0)
				zero = (int)k;
		} else if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE &&
		    d->dim_value > 0) {
			dims[k] = d->dim_value;
		} else if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM &&
		    pin(o, d->dim_param, &dims[k])) {
			;
		} else {
			dims[k] = 1;
			buf_printf(unknown, "%s\n  input \"%s\" "
			    "dimension %zu%s%s%s", *nunknown ? "" : "",
			    escape_tty_name(v->name), k,
			    d->value_case ==
			    ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM ?
			    " (\"" : "", d->value_case ==
			    ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM ?
			    escape_tty_name(d->dim_param) : "",
			    d->value_case ==
			    ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM ?
			    "\")" : "");
			(*nunknown)++;
		}
	}
	return zero;
}

/* The graph's inputs, initializers aside: each a constant (-c), a graph
 * input, or an empty tensor's constant; the unknown dimensions all named
 * in one message. */
static int
inputs(struct imp *m, const Onnx__GraphProto *gp, const struct onnx_opts *o)
{
	struct buf unknown = { 0 };
	int nunknown = 0;

	for (size_t i = 0; i < gp->n_input; i++) {
		const Onnx__ValueInfoProto *v = gp->input[i];
		const Onnx__TypeProto__Tensor *tt;
		enum dtype dt;
		int64_t dims[32];
		size_t rank;
		const char *c;
		char *why;
		int zero, known = nunknown;

		if (!v->name || !*v->name || isinit(gp, v->name))
			continue;
		if ((c = constfor(o, v->name)) != NULL) {
			int rc = frozen(m, v, c);

			if (rc)
				return -1;
			continue;
		}
		if (!(tt = inputtensor(m, v, &dt, &rank)))
			return -1;
		zero = inputdims(o, v, tt, dims, &unknown, &nunknown);
		if (zero >= 0 && nunknown > known) {
			error("%s: input \"%s\" [%s]: dimension %d is 0; "
			    "an empty input's other dimensions must be known",
			    m->path, escape_tty_name(v->name),
			    refusal_code(REFUSE_EMPTY), zero);
			free(unknown.s);
			return -1;
		}
		if ((why = checked_tensor(&(struct tdesc){ dt, (int)rank,
		    dims }))) {
			error("%s: input \"%s\": %s", m->path, v->name, why);
			free(why);
			free(unknown.s);
			return -1;
		}
		if (zero >= 0) {
			/* an empty tensor has one value, known now: a
			 * constant (an empty axes input means "all axes");
			 * what is computed from it, nnl-graph(5) says */
			struct operand *e = graph_add_const(m->g, v->name,
			    dt, (int)rank, dims);

			e->init = INIT_BYTES;
			e->bytes = xmalloc(1);
			e->nbytes = 0;
		} else
			graph_add_input(m->g, v->name, dt, (int)rank, dims);
		imp_setval(m, v->name, v->name);
	}
	graph_index(m->g);
	if (nunknown) {
		error("%s: %d dimension%s not known; pin them with --dim "
		    "NAME=N:%s", m->path, nunknown, nunknown > 1 ? "s are" :
		    " is", unknown.s);
		free(unknown.s);
		return -1;
	}
	return 0;
}

int
imp_initializers(struct imp *m, const Onnx__GraphProto *gp)
{
	progress_start("initializers", gp->n_initializer);
	for (size_t i = 0; i < gp->n_initializer; i++) {
		const Onnx__TensorProto *t = gp->initializer[i];
		struct tdesc d;
		void *data;
		char *what, *name, *why;

		progress_tick(i);

		if (!t->name || !*t->name) {
			error("%s: initializer %zu has no name", m->path, i);
			return -1;
		}
		what = xasprintf("initializer \"%s\"",
		    escape_tty_name(t->name));
		if (onnx_tensor(m, t, what, &d, &data) != 0) {
			free(what);
			return -1;
		}
		if ((why = checked_tensor(&d))) {
			error("%s: %s: %s", m->path, what, why);
			free(why);
			free(what);
			free(data);
			free(d.dims);
			return -1;
		}
		free(what);
		name = graph_find(m->g, t->name) ? imp_fresh(m, t->name) :
		    xstrdup(t->name);
		imp_addconst(m, name, d.dt, d.rank, d.dims, data,
		    dtype_bytes(d.dt, tdesc_numel(&d)));
		imp_setval(m, t->name, name);
		free(name);
		free(data);
		free(d.dims);
	}
	return 0;
}

/* A name for the node in messages: its own, or OP_INDEX. */
static char *
nodename(const Onnx__NodeProto *n, size_t i)
{
	return n->name && *n->name ? xstrdup(n->name) :
	    xasprintf("%s_%zu", n->op_type, i);
}

/* Every node against what the importer implements (onnx_strict.c),
 * before the inputs are declared: the refusals in m->refused, their
 * number returned.  convert() checks each node again, in order. */
static int
screen(struct imp *m, const Onnx__GraphProto *gp)
{
	for (size_t i = 0; i < gp->n_node; i++) {
		const Onnx__NodeProto *n = gp->node[i];
		char *nm;

		if (!n->op_type) {
			error("%s: node %zu has no op_type", m->path, i);
			return -1;
		}
		nm = nodename(n, i);
		m->n = n;
		m->nname = nm;
		onnx_strict(m);
		free(nm);
	}
	m->n = NULL;
	return m->nrefused;
}

/* The one error naming every refused node, REFUSEDMAX of them at
 * most. */
static void
refusals(struct imp *m)
{
	error("%s: %d node%s cannot be imported:%s%s%.0d%s", m->path,
	    m->nrefused, m->nrefused > 1 ? "s" : "", m->refused.s,
	    m->nrefused > REFUSEDMAX ? "\n  and " : "",
	    m->nrefused > REFUSEDMAX ? m->nrefused - REFUSEDMAX : 0,
	    m->nrefused > REFUSEDMAX ? " more" : "");
}

/* One node of a subgraph (If, Loop, Scan bodies; onnx_ctl.c), m->n and
 * m->nname already set: its op's handler after the checks convert()
 * makes of a top-level node. */
int
imp_node(struct imp *m)
{
	const Onnx__NodeProto *n = m->n;
	const char *bshape, *bvalue;
	int rc;

	if (!n->op_type)
		return nodeerr(m, "a node of its body has no op_type");
	if ((rc = onnx_strict(m)) != 0)
		return rc;
	for (size_t k = 0; k < n->n_input; k++)
		if (*n->input[k] && !imp_lookup(m, n->input[k]))
			return nodeerr(m, "input \"%s\" is not defined "
			    "before it", escape_tty_name(n->input[k]));
	if (onnx_arity(m) != 0)
		return -1;
	if ((rc = onnx_bounded_reads(m, &bshape, &bvalue)) != 0)
		return rc;
	rc = onnx_handler_of(n->op_type)(m);
	if (rc == 0 && bvalue)
		rc = onnx_bounded_mark(m, bshape, bvalue);
	for (size_t k = 0; rc == 0 && k < n->n_output; k++)
		if (*n->output[k] && !imp_lookup(m, n->output[k]))
			rc = refuse(m, REFUSE_OUTPUT, "output \"%s\" is not "
			    "supported", escape_tty_name(n->output[k]));
	return rc;
}

/* A refused node whose handler wanted a graph input's values (a
 * shape, axes, pads, scales: what nnl must know at import time) may be
 * expressible once that input is a constant: say how to make it one. */
static void
hint(struct imp *m)
{
	int k = 0;
	const cJSON *w;

	if (m->nrefused > REFUSEDMAX)
		return;
	cJSON_ArrayForEach(w, m->wanted)
		buf_printf(&m->refused, "%s%s=FILE.npy", k++ ? ", " :
		    " (its value at import time: --const ",
		    escape_tty_name(w->string));
	if (k)
		buf_puts(&m->refused, ")");
}


static int
convert(struct imp *m, const Onnx__GraphProto *gp)
{
	cJSON *dead = cJSON_CreateObject();

	progress_start("nodes", gp->n_node);
	for (size_t i = 0; i < gp->n_node && !m->nerr; i++) {
		const Onnx__NodeProto *n = gp->node[i];
		char *nm = nodename(n, i);
		const char *bshape, *bvalue;
		int skip = 0, rc;

		progress_tick(i);
		m->n = n;
		m->nname = nm;
		cJSON_Delete(m->wanted);
		m->wanted = cJSON_CreateObject();
		/* every node the importer does not implement is named,
		 * even after one it could not convert */
		if (onnx_strict(m) == REFUSED)
			skip = 1;
		for (size_t k = 0; k < n->n_input && !skip; k++) {
			if (!*n->input[k])
				continue;
			if (cJSON_GetObjectItemCaseSensitive(dead,
			    n->input[k]))
				skip = 1;
			else if (!imp_lookup(m, n->input[k]))
				rc = nodeerr(m, "input \"%s\" is not defined "
				    "before it",
				    escape_tty_name(n->input[k])), skip = 1;
		}
		if (!skip && !m->nerr && (onnx_arity(m) != 0 ||
		    onnx_bounded_reads(m, &bshape, &bvalue) != 0))
			skip = 1;
		if (!skip && !m->nerr) {
			rc = onnx_handler_of(n->op_type)(m);
			if (rc == 0 && bvalue)
				rc = onnx_bounded_mark(m, bshape, bvalue);
			if (rc == 0)
				for (size_t k = 0; k < n->n_output; k++)
					if (*n->output[k] && !imp_lookup(m,
					    n->output[k]))
						rc = refuse(m, REFUSE_OUTPUT,
						    "output \"%s\" "
						    "is not supported",
						    escape_tty_name(
						    n->output[k]));
			if (rc == REFUSED) {
				hint(m);
				skip = 1;
			}
		}
		if (skip)
			for (size_t k = 0; k < n->n_output; k++)
				cJSON_AddTrueToObject(dead, n->output[k]);
		free(nm);
	}
	m->n = NULL;
	cJSON_Delete(dead);
	if (m->nrefused) {
		refusals(m);
		return -1;
	}
	return m->nerr ? -1 : 0;
}

static int
outputs(struct imp *m, const Onnx__GraphProto *gp)
{
	for (size_t i = 0; i < gp->n_output; i++) {
		const char *name = gp->output[i]->name, *o;
		struct operand *op;
		const cJSON *cnt;

		if (!name || !(o = imp_lookup(m, name))) {
			error("%s: graph output \"%s\" is not computed",
			    m->path, escape_tty_name(name ? name : ""));
			return -1;
		}
		op = graph_find(m->g, o);
		if (op->kind != OPND_NODE) {
			/* an output must come from a node */
			struct node *n;
			/* the ONNX name, unless an operand has it already
			 * (a constant folded under it, then renamed) */
			char *f = strcmp(o, name) && !graph_find(m->g, name) ?
			    xstrdup(name) : imp_fresh(m, name);

			graph_unindex(m->g);
			n = graph_add_node(m->g, f, "identity");
			node_add_input(n, o);
			node_add_output(n, f);
			graph_index(m->g);
			if (shape_node(m->g, n) != 0)
				return -1;
			free(f);
			o = n->out[0];
		}
		graph_add_output(m->g, name, o);
		cnt = cJSON_GetObjectItemCaseSensitive(m->bounded, o);
		if (cnt) {
			/* its shape, the output after it (nnl-graph(5)) */
			char *cn = xasprintf("%s.shape", name);

			graph_add_output(m->g, cn, cnt->valuestring);
			free(cn);
		}
	}
	return 0;
}

/* Constants above INLINEMAX bytes into the weights file. */
static int
weights(struct imp *m, const struct onnx_opts *o)
{
	struct wwriter ww;
	int open = 0;

	progress_start("weights", m->g->nconsts);
	for (size_t i = 0; i < m->g->nconsts; i++) {
		struct operand *c = m->g->consts[i];

		progress_tick(i);
		if (c->init != INIT_BYTES || c->nbytes <= INLINEMAX)
			continue;
		if (!open) {
			if (wwriter_open(&ww, o->weights, o->manifest, 64) != 0)
				return -1;
			open = 1;
		}
		if (wwriter_add(&ww, c->name, c->desc.dt, c->desc.rank,
		    c->desc.dims, c->bytes, c->nbytes) != 0) {
			wwriter_abort(&ww);
			return -1;
		}
		free(c->bytes);
		c->bytes = NULL;
		c->nbytes = 0;
		c->init = INIT_WEIGHTS;
		c->ref = xstrdup(c->name);
	}
	if (!open)
		return 0;
	if (wwriter_commit(&ww) != 0)
		return -1;
	m->g->weights_file = xstrdup(o->weights);
	m->g->manifest_file = xstrdup(o->manifest);
	return 0;
}

static char *
modelname(const char *path)
{
	const char *b = path_basename(path);
	const char *dot = strrchr(b, '.');
	char *s = xstrndup(b, dot && dot != b ? (size_t)(dot - b) :
	    strlen(b));

	return s;
}

struct graph *
onnx_import(const char *path, const struct onnx_opts *o)
{
	struct imp m;
	size_t len;
	unsigned char *text;
	Onnx__ModelProto *mp = NULL;
	const Onnx__GraphProto *gp;
	struct graph *g = NULL;

	memset(&m, 0, sizeof m);
	m.path = displayname(path);
	m.origins = o->origins;
	m.outside = o->outside;
	progress_start("reading the protobuf", 0);
	/* after progress_start, whose isatty() may set errno */
	text = (unsigned char *)readfile(path, &len);
	if (!text) {
		error("%s: %s", m.path, strerror(errno));
		return NULL;
	}
	if (!(mp = onnx__model_proto__unpack(NULL, len, text)) ||
	    !(gp = mp->graph)) {
		error("%s: not an ONNX model (the protobuf is truncated or "
		    "corrupt%s)", m.path, mp ? ", or holds no graph" : "");
		goto out;
	}
	if (onnx_names_check(m.path, text, len, gp) != 0)
		goto out;
	m.opset = 1;
	for (size_t i = 0; i < mp->n_opset_import; i++) {
		const Onnx__OperatorSetIdProto *s = mp->opset_import[i];

		if ((!s->domain || !*s->domain ||
		    strcmp(s->domain, "ai.onnx") == 0) && s->has_version)
			m.opset = (int)s->version;
		else if (s->domain && strcmp(s->domain, TRAINING) == 0 &&
		    s->has_version)
			m.training = (int)s->version;
	}
	if (mp->n_opset_import == 0)
		m.opset = 1;
	m.dir = path_dirname(path);
	m.g = g = graph_new();
	m.vals = cJSON_CreateObject();
	m.names = cJSON_CreateObject();
	m.bounded = cJSON_CreateObject();
	m.bound = o->bound ? o->bound : ONNX_BOUND;
	for (size_t i = 0; i < gp->n_node; i++)
		for (size_t k = 0; k < gp->node[i]->n_output; k++)
			if (*gp->node[i]->output[k] &&
			    !cJSON_GetObjectItemCaseSensitive(m.names,
			    gp->node[i]->output[k]))
				cJSON_AddTrueToObject(m.names,
				    gp->node[i]->output[k]);
	g->name = o->name ? xstrdup(o->name) : modelname(path);
	g->ownsrc = xstrdup(m.path);
	g->src = g->ownsrc;
	if (screen(&m, gp) < 0)
		goto fail;
	if (inputs(&m, gp, o) != 0 || imp_initializers(&m, gp) != 0) {
		/* what the nodes ask for that nnl lacks, still said */
		if (m.nrefused)
			refusals(&m);
		goto fail;
	}
	free(m.refused.s);
	memset(&m.refused, 0, sizeof m.refused);
	m.nrefused = 0;
	if (convert(&m, gp) != 0 ||
	    outputs(&m, gp) != 0 || graph_reorder(g, 0) != 0 ||
	    weights(&m, o) != 0) {
fail:
		graph_free(g);
		g = NULL;
	}
out:
	if (mp)
		onnx__model_proto__free_unpacked(mp, NULL);
	free(text);
	free(m.dir);
	free(m.refused.s);
	cJSON_Delete(m.vals);
	cJSON_Delete(m.names);
	cJSON_Delete(m.wanted);
	cJSON_Delete(m.bounded);
	return g;
}
