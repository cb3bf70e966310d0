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

enum {
	INLINEMAX = 64,		/* bytes: larger constants go to weights */
	FOLDMAX = 64 << 20,	/* bytes: larger results stay computed */
};

static const struct {
	const char *name;
	onnx_handler *fn;
} handlers[] = {
#define ONNX(name, handler) { name, handler },
#include "onnx_ops.def"
#undef ONNX
};

static const struct arity {
	const char *op;
	int since, minin, maxin, minout, maxout;
} arities[] = {
#define ARITY(op, v, a, b, c, d) { op, v, a, b, c, d },
#include "onnx_arity.h"
#undef ARITY
};

/* "2", "2 to 3" or "1 or more", in a static buffer. */
static const char *
range(int lo, int hi)
{
	static char s[48];

	if (lo == hi)
		snprintf(s, sizeof s, "%d", lo);
	else if (hi >= 65535)
		snprintf(s, sizeof s, "%d or more", lo);
	else
		snprintf(s, sizeof s, "%d to %d", lo, hi);
	return s;
}

/* The node's operand counts against its operator's schema at the
 * model's opset (the newest version not after it). */
static int
arity(struct imp *m)
{
	const Onnx__NodeProto *n = m->n;
	const struct arity *a = NULL;

	for (size_t i = 0; i < sizeof arities / sizeof *arities; i++)
		if (strcmp(arities[i].op, n->op_type) == 0 &&
		    arities[i].since <= m->opset)
			a = &arities[i];
	if (!a)
		return nodeerr(m, "%s is not an operator of opset %d",
		    escape_tty_name(n->op_type), m->opset);
	if ((int)n->n_input < a->minin || (int)n->n_input > a->maxin)
		return nodeerr(m, "%zu inputs; %s-%d takes %s", n->n_input,
		    escape_tty_name(n->op_type), a->since,
		    range(a->minin, a->maxin));
	if ((int)n->n_output < a->minout || (int)n->n_output > a->maxout)
		return nodeerr(m, "%zu outputs; %s-%d gives %s", n->n_output,
		    escape_tty_name(n->op_type), a->since,
		    range(a->minout, a->maxout));
	for (int i = 0; i < a->minin; i++)
		if (!*n->input[i])
			return nodeerr(m, "input %d is required", i);
	return 0;
}

static onnx_handler *
handler(const char *op)
{
	for (size_t i = 0; i < sizeof handlers / sizeof *handlers; i++)
		if (strcmp(handlers[i].name, op) == 0)
			return handlers[i].fn;
	return NULL;
}

const char *
refusal_code(enum refusal why)
{
	static const char *const code[] = {
		[REFUSE_OP] = "unsupported-op",
		[REFUSE_TYPE] = "unsupported-type",
		[REFUSE_ATTR] = "unsupported-attribute",
		[REFUSE_OUTPUT] = "unsupported-output",
		[REFUSE_RANK] = "unsupported-rank",
		[REFUSE_CONST] = "not-constant",
		[REFUSE_DYNAMIC] = "dynamic-shape",
		[REFUSE_EMPTY] = "empty-tensor",
		[REFUSE_SEQUENCE] = "sequence",
		[REFUSE_SIZE] = "too-large",
	};

	if ((unsigned)why >= sizeof code / sizeof *code || !code[why])
		BUG("a refusal without a code");
	return code[why];
}

int
refuse(struct imp *m, enum refusal why, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	buf_printf(&m->refused, "\n  node \"%s\" (%s) [%s]: %s",
	    escape_tty_name(m->nname), escape_tty_name(m->n->op_type),
	    refusal_code(why), s);
	m->nrefused++;
	free(s);
	return REFUSED;
}

int
nodeerr(struct imp *m, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	error("%s: node \"%s\" (%s): %s", m->path, escape_tty_name(m->nname),
	    escape_tty_name(m->n->op_type),
	    s);
	free(s);
	m->nerr++;
	return -1;
}

/* ---- values ---- */

static const char *
lookup(struct imp *m, const char *onnxname)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(m->vals, onnxname);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static void
setval(struct imp *m, const char *onnxname, const char *opnd)
{
	cJSON_DeleteItemFromObjectCaseSensitive(m->vals, onnxname);
	cJSON_AddStringToObject(m->vals, onnxname, opnd);
}

int
nins(struct imp *m)
{
	return (int)m->n->n_input;
}

int
nouts(struct imp *m)
{
	return (int)m->n->n_output;
}

const char *
in(struct imp *m, int i)
{
	if (i < 0 || (size_t)i >= m->n->n_input || !*m->n->input[i])
		return NULL;
	return lookup(m, m->n->input[i]);
}

const char *
outname(struct imp *m, int k)
{
	if (k < 0 || (size_t)k >= m->n->n_output || !*m->n->output[k])
		return NULL;
	return m->n->output[k];
}

const struct tdesc *
ty(struct imp *m, const char *opnd)
{
	static const struct tdesc none = { DT_NONE, 0, NULL };
	struct operand *o = opnd ? graph_find(m->g, opnd) : NULL;

	return o ? operand_type(o) : &none;
}

void
bind(struct imp *m, int k, const char *opnd)
{
	const char *o = outname(m, k);

	if (o && opnd)
		setval(m, o, opnd);
}

/* ---- attributes ---- */

const Onnx__AttributeProto *
att(struct imp *m, const char *name)
{
	for (size_t i = 0; i < m->n->n_attribute; i++)
		if (m->n->attribute[i]->name &&
		    strcmp(m->n->attribute[i]->name, name) == 0)
			return m->n->attribute[i];
	return NULL;
}

int64_t
att_i(struct imp *m, const char *name, int64_t dflt)
{
	const Onnx__AttributeProto *a = att(m, name);

	return a && a->has_i ? a->i : dflt;
}

/* The shortest decimal that reads back as the same float, as a double:
 * an attribute of 0.1f is written 0.1, not 0.10000000149011612. */
static double
shortest(float f)
{
	char s[32];

	for (int p = 1; p < 10; p++) {
		snprintf(s, sizeof s, "%.*g", p, f);
		if (strtof(s, NULL) == f)
			return strtod(s, NULL);
	}
	return f;
}

double
att_f(struct imp *m, const char *name, double dflt)
{
	const Onnx__AttributeProto *a = att(m, name);

	return a && a->has_f ? shortest(a->f) : dflt;
}

const char *
att_s(struct imp *m, const char *name, const char *dflt)
{
	static char s[256];
	const Onnx__AttributeProto *a = att(m, name);
	size_t n;

	if (!a || !a->has_s)
		return dflt;
	n = a->s.len < sizeof s - 1 ? a->s.len : sizeof s - 1;
	if (n)
		memcpy(s, a->s.data, n);
	s[n] = 0;
	return s;
}

size_t
att_ints(struct imp *m, const char *name, const int64_t **v)
{
	const Onnx__AttributeProto *a = att(m, name);

	*v = a ? a->ints : NULL;
	return a ? a->n_ints : 0;
}

size_t
att_floats(struct imp *m, const char *name, const float **v)
{
	const Onnx__AttributeProto *a = att(m, name);

	*v = a ? a->floats : NULL;
	return a ? a->n_floats : 0;
}

/* ---- JSON helpers ---- */

cJSON *
jints(const int64_t *v, size_t n)
{
	cJSON *a = cJSON_CreateArray();

	for (size_t i = 0; i < n; i++)
		cJSON_AddItemToArray(a, cJSON_CreateNumber((double)v[i]));
	return a;
}

cJSON *
ju32s(const uint32_t *v, size_t n)
{
	cJSON *a = cJSON_CreateArray();

	for (size_t i = 0; i < n; i++)
		cJSON_AddItemToArray(a, cJSON_CreateNumber(v[i]));
	return a;
}

cJSON *
jfloats(const double *v, size_t n)
{
	cJSON *a = cJSON_CreateArray();

	for (size_t i = 0; i < n; i++)
		cJSON_AddItemToArray(a, cJSON_CreateNumber(v[i]));
	return a;
}

/* ---- constants ---- */

/* A name no operand and no ONNX value has: base, base__2, ... */
static char *
fresh(struct imp *m, const char *base)
{
	char *s = xstrdup(base);

	for (int k = 2; graph_find(m->g, s) ||
	    cJSON_GetObjectItemCaseSensitive(m->names, s); k++) {
		free(s);
		s = xasprintf("%s__%d", base, k);
	}
	return s;
}

static const char *
basename_for(struct imp *m)
{
	const char *o = outname(m, 0);

	return o ? o : m->nname;
}

static struct operand *
addconst(struct imp *m, const char *name, enum dtype dt, int rank,
    const int64_t *dims, const void *data, size_t nbytes)
{
	struct operand *c;

	graph_unindex(m->g);
	c = graph_add_const(m->g, name, dt, rank, dims);
	c->init = INIT_BYTES;
	c->bytes = xmalloc(nbytes + 1);
	if (nbytes)
		memcpy(c->bytes, data, nbytes);
	c->nbytes = nbytes;
	graph_index(m->g);
	return c;
}

const char *
mkconst(struct imp *m, const char *base, enum dtype dt, int rank,
    const int64_t *dims, const void *data)
{
	struct tdesc t = { dt, rank, (int64_t *)dims };
	char *name = xasprintf("%s__%s", base ? base : basename_for(m),
	    "const");
	char *f = fresh(m, name);
	struct operand *c = addconst(m, f, dt, rank, dims, data,
	    dtype_bytes(dt, tdesc_numel(&t)));

	free(name);
	free(f);
	return c->name;
}

/*
 * A scalar constant of type dt and value v (an attribute's, truncated
 * toward zero for an integer type); NULL after an error when v is NaN
 * or out of the integer type's range, which no cast may meet (uint64
 * up to 2^63 - 1).
 */
const char *
mkscalar(struct imp *m, enum dtype dt, double v)
{
	unsigned char b[8];
	uint16_t h;
	int64_t x = 0;

	if (!dtype_isfloat(dt)) {
		int bits = dtype_bits(dt), sg = dtype_issigned(dt);
		int64_t hi = bits >= 64 ? INT64_MAX : sg ?
		    (INT64_C(1) << (bits - 1)) - 1 : (INT64_C(1) << bits) - 1;

		if (checked_double_i64(trunc(v), sg ? -hi - 1 : 0, hi,
		    &x) != 0) {
			nodeerr(m, "the value %.17g does not fit %s", v,
			    dtype_name(dt));
			return NULL;
		}
	}
	switch (dt) {
	case DT_FLOAT32: { float f = (float)v; memcpy(b, &f, 4); break; }
	case DT_FLOAT16: h = nnl_f32_to_f16((float)v); memcpy(b, &h, 2); break;
	case DT_INT32: { int32_t y = (int32_t)x; memcpy(b, &y, 4); break; }
	case DT_UINT32: { uint32_t y = (uint32_t)x; memcpy(b, &y, 4); break; }
	case DT_INT64: memcpy(b, &x, 8); break;
	case DT_UINT64: { uint64_t y = (uint64_t)x; memcpy(b, &y, 8); break; }
	case DT_INT8: b[0] = (unsigned char)(int8_t)x; break;
	default: b[0] = (unsigned char)x; break;
	}
	return mkconst(m, NULL, dt, 0, NULL, b);
}

int
isconst(struct imp *m, const char *opnd)
{
	struct operand *o = opnd ? graph_find(m->g, opnd) : NULL;

	return o && o->kind == OPND_CONST && o->init == INIT_BYTES;
}

static void wanted(struct imp *m, const char *opnd);

const void *
cbytes(struct imp *m, const char *opnd)
{
	if (!isconst(m, opnd)) {
		wanted(m, opnd);
		return NULL;
	}
	return graph_find(m->g, opnd)->bytes;
}

static double
elem(enum dtype dt, const unsigned char *p, uint64_t i)
{
	switch (dt) {
	case DT_FLOAT32: { float f; memcpy(&f, p + 4 * i, 4); return f; }
	case DT_FLOAT16: { uint16_t h; memcpy(&h, p + 2 * i, 2);
		return nnl_f16_to_f32(h); }
	case DT_INT32: { int32_t x; memcpy(&x, p + 4 * i, 4); return x; }
	case DT_UINT32: { uint32_t x; memcpy(&x, p + 4 * i, 4); return x; }
	case DT_INT64: { int64_t x; memcpy(&x, p + 8 * i, 8);
		return (double)x; }
	case DT_UINT64: { uint64_t x; memcpy(&x, p + 8 * i, 8);
		return (double)x; }
	case DT_INT8: return (int8_t)p[i];
	default: return p[i];
	}
}

/* A constant's bytes, type and element count; NULL (and the wish
 * remembered) when it is not a constant. */
static const unsigned char *
cread(struct imp *m, const char *opnd, const struct tdesc **t,
    uint64_t *k)
{
	const unsigned char *p = cbytes(m, opnd);

	if (!p)
		return NULL;
	*t = ty(m, opnd);
	*k = tdesc_numel(*t);
	return p;
}

int
cints(struct imp *m, const char *opnd, int64_t **v, size_t *n)
{
	const struct tdesc *t;
	uint64_t k;
	const unsigned char *p = cread(m, opnd, &t, &k);

	*v = NULL;
	*n = 0;
	if (!p)
		return -1;
	*v = xcalloc(k + 1, sizeof **v);
	for (uint64_t i = 0; i < k; i++) {
		if (t->dt == DT_INT64) {
			memcpy(&(*v)[i], p + 8 * i, 8);
		} else {
			double d = elem(t->dt, p, i);
			/* saturated as before, NaN as INT64_MIN: defined */
			(*v)[i] = checked_clamp_i64(d, INT64_MIN, INT64_MAX);
		}
	}
	*n = (size_t)k;
	return 0;
}

int
cfloats(struct imp *m, const char *opnd, double **v, size_t *n)
{
	const struct tdesc *t;
	uint64_t k;
	const unsigned char *p = cread(m, opnd, &t, &k);

	*v = NULL;
	*n = 0;
	if (!p)
		return -1;
	*v = xcalloc(k + 1, sizeof **v);
	for (uint64_t i = 0; i < k; i++)
		(*v)[i] = elem(t->dt, p, i);
	*n = (size_t)k;
	return 0;
}

/* ---- emitting nodes ---- */

/* Run node n (the last added, all inputs constant) and replace it by
 * constants of the same names.  0 folded, 1 left alone, -1 error. */
static int
fold(struct imp *m, struct node *n)
{
	struct kcall k;
	const void *ins[KMAXIO];
	void *outs[KMAXIO];
	uint64_t nb[KMAXIO], total = 0;
	void *scratch = NULL;
	const char **r;
	int nr = node_reads(n, &r), all = 1;

	for (int j = 0; j < nr; j++)
		all &= isconst(m, r[j]) && tdesc_numel(ty(m, r[j])) > 0;
	free(r);
	if (!all || nr == 0)
		return 1;	/* (empty constants are never run) */
	for (int j = 0; j < n->nout; j++) {
		nb[j] = dtype_bytes(n->types[j].dt, tdesc_numel(&n->types[j]));
		total += nb[j];
	}
	if (total > FOLDMAX || kernel_prepare(m->g, n, &k) != 0 ||
	    k.scratch > FOLDMAX)
		return 1;
	for (int j = 0; j < k.nin; j++)
		ins[j] = k.in[j] ? cbytes(m, k.in[j]) : NULL;
	for (int j = 0; j < n->nout; j++)
		outs[j] = xcalloc(nb[j] + 1, 1);
	if (k.scratch)
		scratch = xcalloc(k.scratch, 1);
	k.fn(k.ip, k.fp, ins, outs, scratch);
	free(scratch);
	graph_unindex(m->g);
	m->g->nnodes--;
	for (int j = 0; j < n->nout; j++) {
		struct operand *c = graph_add_const(m->g, n->out[j],
		    n->types[j].dt, n->types[j].rank, n->types[j].dims);

		c->init = INIT_BYTES;
		c->bytes = outs[j];
		c->nbytes = nb[j];
	}
	graph_drop_node(m->g, n);
	graph_index(m->g);
	return 0;
}

int
emitn(struct imp *m, const char *op, cJSON *opts, int nout,
    const char **names, int nin, const char *const *ins)
{
	struct node *n = NULL;

	if (nout < 1)
		BUG("emitn without outputs");
	for (int i = 0; i < nin; i++)
		if (!ins[i]) {
			cJSON_Delete(opts);
			return nodeerr(m, "internal: %s lacks operand %d",
			    escape_tty_name(op),
			    i);
		}
	for (int k = 0; k < nout; k++) {
		char *b = names[k] ? xstrdup(names[k]) : nout > 1 ?
		    xasprintf("%s__%s%d", basename_for(m), op, k) :
		    xasprintf("%s__%s", basename_for(m), op);
		char *f;

		/* the outputs named before this one count too */
		if (k > 0)
			graph_index(m->g);
		f = names[k] && !graph_find(m->g, b) ? xstrdup(b) :
		    fresh(m, b);
		if (k == 0) {
			graph_unindex(m->g);
			n = graph_add_node(m->g, f, op);
			if (m->origins) {
				cJSON_Delete(n->extra);
				n->extra = onnx_origin(m);
			}
			if (opts) {
				cJSON_Delete(n->options);
				n->options = opts;
			}
			for (int i = 0; i < nin; i++)
				node_add_input(n, ins[i]);
		}
		node_add_output(n, f);
		free(b);
		free(f);
	}
	n->multi = nout != 1;
	graph_index(m->g);
	if (n->op == OP_NONE)
		BUG("handler emitted an unknown op");
	if (shape_node(m->g, n) != 0) {
		m->nerr++;
		error("%s: node \"%s\" (%s): the WebNN %s it becomes is "
		    "invalid (above)", m->path, escape_tty_name(m->nname),
		    escape_tty_name(m->n->op_type), escape_tty_name(op));
		return -1;
	}
	{
		/* folding frees the node and its names: keep copies */
		char **keep = xcalloc((size_t)nout, sizeof *keep);

		for (int k = 0; k < nout; k++)
			keep[k] = xstrdup(n->out[k]);
		if (fold(m, n) == 0)
			for (int k = 0; k < nout; k++)
				names[k] = graph_find(m->g, keep[k])->name;
		else
			for (int k = 0; k < nout; k++)
				names[k] = n->out[k];
		for (int k = 0; k < nout; k++)
			free(keep[k]);
		free(keep);
	}
	return 0;
}

const char *
emitv(struct imp *m, const char *op, cJSON *opts, const char *out, int nin,
    const char *const *ins)
{
	const char *name = out;

	if (emitn(m, op, opts, 1, &name, nin, ins) != 0)
		return NULL;
	return name;
}

const char *
emit(struct imp *m, const char *op, cJSON *opts, const char *out, int nin,
    ...)
{
	const char *ins[16];
	va_list ap;

	va_start(ap, nin);
	for (int i = 0; i < nin && i < 16; i++)
		ins[i] = va_arg(ap, const char *);
	va_end(ap);
	return emitv(m, op, opts, out, nin, ins);
}

const char *
imp_reshape(struct imp *m, const char *x, int rank, const int64_t *dims,
    const char *out)
{
	uint32_t d[32];
	cJSON *o;

	if (!x)
		return NULL;
	if (rank > 32) {
		nodeerr(m, "a reshape to rank %d", rank);
		return NULL;
	}
	for (int i = 0; i < rank; i++)
		d[i] = (uint32_t)dims[i];
	o = cJSON_CreateObject();
	cJSON_AddItemToObject(o, "newShape", ju32s(d, (size_t)rank));
	return emit(m, "reshape", o, out, 1, x);
}

const char *
imp_cast(struct imp *m, const char *x, enum dtype dt)
{
	cJSON *o;

	if (!x || ty(m, x)->dt == dt)
		return x;
	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "dataType", dtype_name(dt));
	return emit(m, "cast", o, NULL, 1, x);
}

int
imp_done(struct imp *m, int k, const char *y)
{
	if (!y)
		return -1;
	bind(m, k, y);
	return 0;
}

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
		addconst(m, v->name, a.dt, a.rank, a.shape, a.data, a.nbytes);
		setval(m, v->name, v->name);
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

static int
inputs(struct imp *m, const Onnx__GraphProto *gp, const struct onnx_opts *o)
{
	struct buf unknown = { 0 };
	int nunknown = 0;

	for (size_t i = 0; i < gp->n_input; i++) {
		const Onnx__ValueInfoProto *v = gp->input[i];
		const Onnx__TypeProto__Tensor *tt;
		const char *tn;
		enum dtype dt;
		int64_t dims[32];
		size_t rank;
		const char *c;
		char *why;
		int zero = -1, known = nunknown;

		if (!v->name || !*v->name || isinit(gp, v->name))
			continue;
		if ((c = constfor(o, v->name)) != NULL) {
			int rc = frozen(m, v, c);

			if (rc)
				return -1;
			continue;
		}
		if (!v->type || v->type->value_case !=
		    ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE) {
			m->n = NULL;
			error("%s: input \"%s\" [%s]: a sequence, optional "
			    "or map, not a tensor", m->path,
			    escape_tty_name(v->name),
			    refusal_code(REFUSE_SEQUENCE));
			return -1;
		}
		tt = v->type->tensor_type;
		if ((dt = onnx_dtype(tt->elem_type, &tn)) == DT_NONE) {
			error("%s: input \"%s\" [%s]: data type %s has no "
			    "equivalent in WebNN", m->path,
			    escape_tty_name(v->name),
			    refusal_code(REFUSE_TYPE), tn);
			return -1;
		}
		if (!tt->shape) {
			error("%s: input \"%s\" has no shape", m->path,
			    escape_tty_name(v->name));
			return -1;
		}
		if ((rank = tt->shape->n_dim) > 32) {
			error("%s: input \"%s\": rank %zu is over 32", m->path,
			    escape_tty_name(v->name), rank);
			return -1;
		}
		for (size_t k = 0; k < rank; k++) {
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
				buf_printf(&unknown, "%s\n  input \"%s\" "
				    "dimension %zu%s%s%s", nunknown ? "" : "",
				    escape_tty_name(v->name), k,
				    d->value_case ==
				    ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM ?
				    " (\"" : "", d->value_case ==
				    ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM ?
				    escape_tty_name(d->dim_param) : "",
				    d->value_case ==
				    ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM ?
				    "\")" : "");
				nunknown++;
			}
		}
		if (zero >= 0 && nunknown > known) {
			error("%s: input \"%s\" [%s]: dimension %d is 0; "
			    "an empty tensor cannot be expressed in WebNN",
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
			 * constant, refused only where a node computes on
			 * it (an empty axes input means "all axes") */
			struct operand *e = graph_add_const(m->g, v->name,
			    dt, (int)rank, dims);

			e->init = INIT_BYTES;
			e->bytes = xmalloc(1);
			e->nbytes = 0;
		} else
			graph_add_input(m->g, v->name, dt, (int)rank, dims);
		setval(m, v->name, v->name);
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

static int
initializers(struct imp *m, const Onnx__GraphProto *gp)
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
		name = graph_find(m->g, t->name) ? fresh(m, t->name) :
		    xstrdup(t->name);
		addconst(m, name, d.dt, d.rank, d.dims, data,
		    dtype_bytes(d.dt, tdesc_numel(&d)));
		setval(m, t->name, name);
		free(name);
		free(data);
		free(d.dims);
	}
	return 0;
}

/* An op on sequences or optionals, values WebNN has no type for. */
static int
seqop(const char *op)
{
	static const char *const seq[] = {
		"SequenceAt", "SequenceConstruct", "SequenceEmpty",
		"SequenceErase", "SequenceInsert", "SequenceLength",
		"SequenceMap", "SplitToSequence", "ConcatFromSequence",
		"Optional", "OptionalGetElement", "OptionalHasElement",
	};

	for (size_t i = 0; i < sizeof seq / sizeof *seq; i++)
		if (strcmp(op, seq[i]) == 0)
			return 1;
	return 0;
}

/* Every op the model uses that has no handler, in one error. */
static int
unknownops(struct imp *m, const Onnx__GraphProto *gp)
{
	struct buf b = { 0 };
	int k = 0;

	for (size_t i = 0; i < gp->n_node; i++) {
		const Onnx__NodeProto *n = gp->node[i];
		const char *dom = n->domain && *n->domain ? n->domain : NULL;

		if (!n->op_type) {
			error("%s: node %zu has no op_type", m->path, i);
			return -1;
		}
		if ((dom && strcmp(dom, "ai.onnx") != 0) ||
		    !handler(n->op_type)) {
			buf_printf(&b, "\n  node \"%s\" (%s%s%s) [%s]",
			    escape_tty_name(n->name && *n->name ? n->name :
			    n->op_type), dom ? escape_tty_name(dom) : "",
			    dom ? "." : "", escape_tty_name(n->op_type),
			    refusal_code(!dom && seqop(n->op_type) ?
			    REFUSE_SEQUENCE : REFUSE_OP));
			k++;
		}
	}
	if (k) {
		error("%s: %d node%s no WebNN equivalent:%s", m->path, k,
		    k > 1 ? "s have" : " has", b.s);
		free(b.s);
		return -1;
	}
	return 0;
}

/* A refused node whose handler wanted a graph input's values (a
 * shape, axes, pads, scales: what nnl must know at import time) may be
 * expressible once that input is a constant: say how to make it one. */
static void
hint(struct imp *m)
{
	int k = 0;
	const cJSON *w;

	cJSON_ArrayForEach(w, m->wanted)
		buf_printf(&m->refused, "%s%s=FILE.npy", k++ ? ", " :
		    " (its value at import time: --const ",
		    escape_tty_name(w->string));
	if (k)
		buf_puts(&m->refused, ")");
}

/* Remember that the current node wanted opnd's values. */
static void
wanted(struct imp *m, const char *opnd)
{
	struct operand *o = opnd ? graph_find(m->g, opnd) : NULL;

	if (o && o->kind == OPND_INPUT &&
	    !cJSON_GetObjectItemCaseSensitive(m->wanted, o->name))
		cJSON_AddTrueToObject(m->wanted, o->name);
}

static int
convert(struct imp *m, const Onnx__GraphProto *gp)
{
	cJSON *dead = cJSON_CreateObject();

	progress_start("nodes", gp->n_node);
	for (size_t i = 0; i < gp->n_node && !m->nerr; i++) {
		const Onnx__NodeProto *n = gp->node[i];
		char *nm = n->name && *n->name ? xstrdup(n->name) :
		    xasprintf("%s_%zu", n->op_type, i);
		int skip = 0, rc;

		progress_tick(i);
		m->n = n;
		m->nname = nm;
		cJSON_Delete(m->wanted);
		m->wanted = cJSON_CreateObject();
		for (size_t k = 0; k < n->n_input; k++) {
			if (!*n->input[k])
				continue;
			if (cJSON_GetObjectItemCaseSensitive(dead,
			    n->input[k]))
				skip = 1;
			else if (!lookup(m, n->input[k]))
				rc = nodeerr(m, "input \"%s\" is not defined "
				    "before it",
				    escape_tty_name(n->input[k])), skip = 1;
		}
		if (!skip && !m->nerr && arity(m) != 0)
			skip = 1;
		if (!skip && !m->nerr) {
			rc = handler(n->op_type)(m);
			if (rc == 0)
				for (size_t k = 0; k < n->n_output; k++)
					if (*n->output[k] && !lookup(m,
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
		error("%s: %d node%s cannot be expressed in WebNN:%s",
		    m->path, m->nrefused, m->nrefused > 1 ? "s" : "",
		    m->refused.s);
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

		if (!name || !(o = lookup(m, name))) {
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
			    xstrdup(name) : fresh(m, name);

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

/* An empty graph input is a constant (inputs()), which a node may read
 * at import time (empty axes: all of them); one the graph still reads
 * once every node is converted would be an empty tensor in WebNN. */
static int
emptyleft(struct imp *m, const Onnx__GraphProto *gp)
{
	for (size_t i = 0; i < m->g->nconsts; i++) {
		const struct operand *c = m->g->consts[i];
		int z = 0;

		if (tdesc_numel(&c->desc) != 0)
			continue;
		for (size_t k = 0; k < gp->n_input; k++) {
			if (!gp->input[k]->name ||
			    strcmp(gp->input[k]->name, c->name) != 0)
				continue;
			while (z < c->desc.rank - 1 && c->desc.dims[z] != 0)
				z++;
			error("%s: input \"%s\" [%s]: dimension %d is 0; an "
			    "empty tensor cannot be expressed in WebNN",
			    m->path, escape_tty_name(c->name),
			    refusal_code(REFUSE_EMPTY), z);
			return -1;
		}
	}
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
	}
	if (mp->n_opset_import == 0)
		m.opset = 1;
	m.dir = path_dirname(path);
	m.g = g = graph_new();
	m.vals = cJSON_CreateObject();
	m.names = cJSON_CreateObject();
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
	if (unknownops(&m, gp) != 0 || inputs(&m, gp, o) != 0 ||
	    initializers(&m, gp) != 0 || convert(&m, gp) != 0 ||
	    outputs(&m, gp) != 0 || graph_reorder(g, 0) != 0 ||
	    emptyleft(&m, gp) != 0 || weights(&m, o) != 0) {
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
	return g;
}
