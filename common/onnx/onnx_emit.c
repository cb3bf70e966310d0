/*
 * onnx_emit: what the op converters (onnx_ew.c, onnx_nn.c, ...) share:
 * refusals and errors that name the node, ONNX values and their
 * operands, attributes, constants, and emitting (and folding) nodes.
 * Apart from the model's driver (onnx_import.c), which calls the
 * converters, so that the converters call down only.
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
		[REFUSE_VERSION] = "unsupported-version",
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
	const char *dom = m->n->domain && *m->n->domain ? m->n->domain :
	    NULL;

	if (m->nrefused++ >= REFUSEDMAX)
		return REFUSED;
	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	buf_printf(&m->refused, "\n  node \"%s\" (%s%s%s) [%s]: %s",
	    escape_tty_name(m->nname), dom ? escape_tty_name(dom) : "",
	    dom ? "." : "", escape_tty_name(m->n->op_type),
	    refusal_code(why), s);
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

const char *
imp_lookup(struct imp *m, const char *onnxname)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(m->vals, onnxname);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

void
imp_setval(struct imp *m, const char *onnxname, const char *opnd)
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
	return imp_lookup(m, m->n->input[i]);
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
		imp_setval(m, o, opnd);
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

int
att_list(struct imp *m, const char *name, int n, int64_t lo, int64_t *v)
{
	const int64_t *a;
	size_t k = att_ints(m, name, &a);

	if (k == 0)
		return 0;
	if (k != (size_t)n)
		return nodeerr(m, "attribute %s has %zu items, expected %d",
		    escape_tty_name(name), k, n);
	for (int i = 0; i < n; i++) {
		if (a[i] < lo || a[i] > (int64_t)1 << 30)
			return nodeerr(m, "attribute %s: item %d (%lld) is out "
			    "of range", escape_tty_name(name), i,
			    (long long)a[i]);
		v[i] = a[i];
	}
	return 0;
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
char *
imp_fresh(struct imp *m, const char *base)
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

/* Put const c, just added, in the name table.  Item by item, since a
 * rebuild per node makes a model of many nodes quadratic (swin_t's
 * 6000); a rebuild where its name is taken, where the const comes
 * first as in graph_index. */
static void
index_const(struct graph *g, struct operand *c)
{
	if (graph_find(g, c->name))
		graph_index(g);
	else
		graph_index_const(g, c);
}

struct operand *
imp_addconst(struct imp *m, const char *name, enum dtype dt, int rank,
    const int64_t *dims, const void *data, size_t nbytes)
{
	struct operand *c = graph_add_const(m->g, name, dt, rank, dims);

	c->init = INIT_BYTES;
	c->bytes = xmalloc(nbytes + 1);
	if (nbytes)
		memcpy(c->bytes, data, nbytes);
	c->nbytes = nbytes;
	index_const(m->g, c);
	return c;
}

const char *
mkconst(struct imp *m, const char *base, enum dtype dt, int rank,
    const int64_t *dims, const void *data)
{
	struct tdesc t = { dt, rank, (int64_t *)dims };
	char *name = xasprintf("%s__%s", base ? base : basename_for(m),
	    "const");
	char *f = imp_fresh(m, name);
	struct operand *c = imp_addconst(m, f, dt, rank, dims, data,
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
	case DT_FLOAT64: memcpy(b, &v, 8); break;
	case DT_BFLOAT16: h = nnl_f32_to_bf16((float)v); memcpy(b, &h, 2);
		break;
	case DT_INT16: case DT_UINT16: h = (uint16_t)x; memcpy(b, &h, 2);
		break;
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


/* Remember that the current node wanted opnd's values. */
static void
wanted(struct imp *m, const char *opnd)
{
	struct operand *o = opnd ? graph_find(m->g, opnd) : NULL;

	if (o && o->kind == OPND_INPUT &&
	    !cJSON_GetObjectItemCaseSensitive(m->wanted, o->name))
		cJSON_AddTrueToObject(m->wanted, o->name);
}

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
	case DT_FLOAT64: { double x; memcpy(&x, p + 8 * i, 8); return x; }
	case DT_INT16: { int16_t x; memcpy(&x, p + 2 * i, 2); return x; }
	case DT_UINT16: { uint16_t x; memcpy(&x, p + 2 * i, 2); return x; }
	case DT_BFLOAT16: { uint16_t h; memcpy(&h, p + 2 * i, 2);
		return nnl_bf16_to_f32(h); }
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
	const void **ins;
	void **outs;
	uint64_t *nb, total = 0;
	void *scratch = NULL;
	const char **r;
	int nr = node_reads(n, &r), all = 1, none = 1;

	/* (an empty operand is allowed where shape_node() allows it: a
	 * sum of none, a concat of an empty piece) */
	for (int j = 0; j < nr; j++)
		all &= isconst(m, r[j]);
	free(r);
	for (int j = 0; j < n->nout; j++)
		none &= tdesc_numel(&n->types[j]) == 0;
	if (none)
		all = nr = 1;	/* nothing to compute: empty constants */
	if (!all || nr == 0)
		return 1;
	nb = xcalloc((size_t)n->nout + 1, sizeof *nb);
	for (int j = 0; j < n->nout; j++) {
		nb[j] = dtype_bytes(n->types[j].dt, tdesc_numel(&n->types[j]));
		total += nb[j];
	}
	if (none) {
		outs = xcalloc((size_t)n->nout + 1, sizeof *outs);
		for (int j = 0; j < n->nout; j++)
			outs[j] = xcalloc(1, 1);
		goto consts;
	}
	if (total > FOLDMAX || kernel_prepare(m->g, n, &k) != 0) {
		free(nb);
		return 1;
	}
	if (k.scratch > FOLDMAX) {
		kcall_free(&k);
		free(nb);
		return 1;
	}
	ins = xcalloc((size_t)k.nin + 1, sizeof *ins);
	outs = xcalloc((size_t)n->nout + 1, sizeof *outs);
	for (int j = 0; j < k.nin; j++)
		ins[j] = k.in[j] ? cbytes(m, k.in[j]) : NULL;
	for (int j = 0; j < n->nout; j++)
		outs[j] = xcalloc(nb[j] + 1, 1);
	if (k.scratch)
		scratch = xcalloc(k.scratch, 1);
	k.fn(k.ip, k.fp, ins, outs, scratch);
	kcall_free(&k);
	free(ins);
	free(scratch);
consts:
	graph_unindex_node(m->g, n);
	m->g->nnodes--;
	for (int j = 0; j < n->nout; j++) {
		struct operand *c = graph_add_const(m->g, n->out[j],
		    n->types[j].dt, n->types[j].rank, n->types[j].dims);

		c->init = INIT_BYTES;
		c->bytes = outs[j];
		c->nbytes = nb[j];
		index_const(m->g, c);
	}
	free(outs);
	free(nb);
	graph_drop_node(m->g, n);
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

		/* (the outputs named before this one are in the table) */
		f = names[k] && !graph_find(m->g, b) ? xstrdup(b) :
		    imp_fresh(m, b);
		if (k == 0) {
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
		/* its outputs so far (those in already are kept) */
		graph_index_node(m->g, n);
		free(b);
		free(f);
	}
	n->multi = nout != 1;
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
