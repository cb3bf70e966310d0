/*
 * validate: the structural checks run on every load: unique names,
 * known ops with the right operands, options that the op table knows
 * with values of the right type, references that resolve, consts whose
 * bytes fit their type, and consts that agree with the weights manifest.
 * Each failure names the item and field, with the position when the
 * graph came from text.
 */
#define _DEFAULT_SOURCE
#include "graph.h"
#include "escape.h"

#include <errno.h>
#include <unistd.h>

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "checked.h"
#include "infile.h"
#include "strtab.h"
#include "weights.h"

int graph_passthrough;

struct vctx {
	struct graph *g;
	int nerr;
	int nwarn;
};

static void verr(struct vctx *v, struct pos p, const char *fmt, ...)
    NNL_PRINTF(3, 4);
static void vwarn(struct vctx *v, struct pos p, const char *fmt, ...)
    NNL_PRINTF(3, 4);

/* A warning where pass-through keeps what strict checking refuses. */
static void
vwarn(struct vctx *v, struct pos p, const char *fmt, ...)
{
	struct srcloc l = graph_loc(v->g, p);
	char msg[1024];
	va_list ap;

	v->nwarn++;
	if (v->g->ptwarned)
		return;		/* a second check of the same graph */
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	warn_at(&l, "%s", msg);
}

static void
verr(struct vctx *v, struct pos p, const char *fmt, ...)
{
	struct srcloc l = graph_loc(v->g, p);
	va_list ap;

	va_start(ap, fmt);
	verror_at(&l, fmt, ap);
	va_end(ap);
	v->nerr++;
}

static const char *
kindname(enum okind k)
{
	return k == OPND_INPUT ? "input" : k == OPND_CONST ? "const" :
	    "node output";
}

static void
checknames(struct vctx *v)
{
	struct graph *g = v->g;
	struct strtab ids = { 0 };

	/* The index keeps the first definition of each name. */
	for (size_t i = 0; i < g->ninputs; i++) {
		struct operand *o = g->inputs[i], *f = graph_find(g, o->name);

		if (f != o)
			verr(v, o->pos, "input \"%s\": duplicate name (an "
			    "earlier %s has it)", escape_tty_name(o->name),
			    kindname(f->kind));
	}
	for (size_t i = 0; i < g->nconsts; i++) {
		struct operand *o = g->consts[i], *f = graph_find(g, o->name);

		if (f != o)
			verr(v, o->pos, "const \"%s\": duplicate name (an "
			    "earlier %s has it)", escape_tty_name(o->name),
			    kindname(f->kind));
	}
	for (size_t i = 0; i < g->nnodes; i++) {
		struct node *n = g->nodes[i];

		for (int k = 0; k < n->nout; k++) {
			struct operand *f = graph_find(g, n->out[k]);

			if (!f || f->kind != OPND_NODE || f->producer != n ||
			    f->outidx != k)
				verr(v, n->pos, "node \"%s\": output \"%s\": "
				    "duplicate name (an earlier %s has it)",
				    escape_tty_name(n->id),
				    escape_tty_name(n->out[k]),
				    f ? kindname(f->kind) : "operand");
		}
		if (strtab_put(&ids, n->id, n))
			verr(v, n->pos, "node \"%s\": duplicate node id",
			    escape_tty_name(n->id));
	}
	strtab_free(&ids);
}

static int
isint(const cJSON *x, double lo, double hi)
{
	return cJSON_IsNumber(x) && x->valuedouble == floor(x->valuedouble) &&
	    x->valuedouble >= lo && x->valuedouble <= hi;
}

/* Does x fit type t (one element, not the sequence)? */
static int
fits1(const cJSON *x, enum argtype t, const struct argdesc *a)
{
	switch (t) {
	case AT_U32:
		return isint(x, 0, 4294967295.0);
	case AT_I32:
		return isint(x, -2147483648.0, 2147483647.0);
	case AT_F64:
	case AT_NUMBER:
		return cJSON_IsNumber(x);
	case AT_BOOL:
		return cJSON_IsBool(x);
	case AT_DTYPE:
		return cJSON_IsString(x) &&
		    dtype_from_name(x->valuestring) != DT_NONE;
	case AT_STR:
	case AT_OPERAND:
		return cJSON_IsString(x);
	case AT_ENUM:
		if (!cJSON_IsString(x))
			return 0;
		for (char **e = a->enumvals; *e; e++)
			if (strcmp(*e, x->valuestring) == 0)
				return 1;
		return 0;
	}
	return 0;
}

static int
fits(const cJSON *x, enum argtype t, int seq, const struct argdesc *a)
{
	const cJSON *it;

	if (!seq)
		return fits1(x, t, a);
	if (!cJSON_IsArray(x))
		return 0;
	cJSON_ArrayForEach(it, x)
		if (!fits1(it, t, a))
			return 0;
	return 1;
}

static void
describe(const struct argdesc *a, struct buf *b)
{
	static const char *tn[] = { "an integer from 0 to 4294967295",
	    "a 32-bit integer", "a number", "true or false", "a number",
	    "a data type name", "a string", "an operand name", "one of" };

	if (a->seq)
		buf_puts(b, "an array of ");
	if (a->type == AT_ENUM) {
		buf_puts(b, "one of");
		for (char **e = a->enumvals; *e; e++)
			buf_printf(b, "%s \"%s\"", e == a->enumvals ? "" : ",",
			    *e);
	} else {
		buf_puts(b, tn[a->type]);
	}
	if (a->hasalt)
		buf_puts(b, a->altseq ? " or an array of them" : " or one");
}

static void
checkoptions(struct vctx *v, struct node *n, const struct opdesc *d)
{
	const cJSON *it;

	cJSON_ArrayForEach(it, n->options) {
		const struct argdesc *a = op_arg(d, it->string);

		if (!a && graph_passthrough &&
		    strcmp(it->string, "label") != 0) {
			vwarn(v, n->pos, "node \"%s\": %s has no option \"%s\": "
			    "passed through", escape_tty_name(n->id), d->name,
			    escape_tty_name(it->string));
			continue;
		}
		if (!a) {
			const char *best = NULL;
			int bestd = 1 << 30;

			if (strcmp(it->string, "label") == 0) {
				if (!cJSON_IsString(it))
					verr(v, n->pos, "node \"%s\": option "
					    "\"label\": expected a string",
					    escape_tty_name(n->id));
				continue;
			}
			for (int k = 0; k < d->nparams + d->noptions; k++) {
				const struct argdesc *c = k < d->nparams ?
				    &d->params[k] :
				    &d->options[k - d->nparams];
				int dist = editdistance(it->string, c->name);

				if (dist < bestd) {
					bestd = dist;
					best = c->name;
				}
			}
			if (best && bestd <= 1 + (int)strlen(it->string) / 3)
				verr(v, n->pos, "node \"%s\": %s has no option "
				    "\"%s\" (did you mean \"%s\"?)",
				    escape_tty_name(n->id),
				    d->name, escape_tty_name(it->string), best);
			else
				verr(v, n->pos, "node \"%s\": %s has no option "
				    "\"%s\"", escape_tty_name(n->id), d->name,
				    escape_tty_name(it->string));
			continue;
		}
		if (cJSON_IsNull(it) && a >= d->options &&
		    a < d->options + d->noptions)
			continue;	/* an optional member left out */
		if (!fits(it, a->type, a->seq, a) &&
		    !(a->hasalt && fits(it, a->alt, a->altseq, a))) {
			struct buf b = { 0 };

			describe(a, &b);
			verr(v, n->pos, "node \"%s\": option \"%s\": expected "
			    "%s", escape_tty_name(n->id),
			    escape_tty_name(it->string), b.s);
			free(b.s);
		}
	}
	for (int k = 0; k < d->nparams; k++)
		if (!cJSON_GetObjectItemCaseSensitive(n->options,
		    d->params[k].name))
			verr(v, n->pos, "node \"%s\": %s needs its parameter "
			    "\"%s\"", escape_tty_name(n->id), d->name,
			    d->params[k].name);
}

/* Every operand the node reads is defined. */
static void
checkreads(struct vctx *v, struct node *n)
{
	const char **reads;
	int nr = node_reads(n, &reads);
	const cJSON *res = cJSON_GetObjectItemCaseSensitive(n->extra,
	    "residual");
	const cJSON *bias = cJSON_GetObjectItemCaseSensitive(n->extra,
	    "bias");
	int nb = cJSON_IsString(bias), nres = cJSON_IsString(res);

	/* nnl-fuse's residual: an operand the C kernel of a conv2d adds */
	if (res && (!cJSON_IsString(res) || n->op != OP_CONV2D))
		verr(v, n->pos, "node \"%s\": field \"residual\": %s",
		    escape_tty_name(n->id), n->op != OP_CONV2D ? "only a "
		    "conv2d has one" : "expected the name of an operand");
	/* nnl-fuse's transposes read by a matmul (shape-infer checks
	 * the permutations) */
	if (n->op != OP_MATMUL && (cJSON_GetObjectItemCaseSensitive(n->extra,
	    "transposeA") || cJSON_GetObjectItemCaseSensitive(n->extra,
	    "transposeB")))
		verr(v, n->pos, "node \"%s\": field \"%s\": only a matmul "
		    "has one", escape_tty_name(n->id),
		    cJSON_GetObjectItemCaseSensitive(n->extra, "transposeA") ?
		    "transposeA" : "transposeB");
	/* nnl-fuse's bias of a matmul: a row the C kernel adds */
	if (bias && (!nb || n->op != OP_MATMUL))
		verr(v, n->pos, "node \"%s\": field \"bias\": %s",
		    escape_tty_name(n->id), n->op != OP_MATMUL ? "only a "
		    "matmul has one" : "expected the name of an operand");
	for (int k = 0; k < nr; k++)
		if (!graph_find(v->g, reads[k])) {
			const char *field = k < n->nin ? "inputs" :
			    nb && k == nr - 1 ? "bias" :
			    nres && k == nr - 1 - nb ? "residual" :
			    "options";

			verr(v, n->pos, "node \"%s\": field \"%s\": undefined "
			    "operand \"%s\"", escape_tty_name(n->id), field,
			    escape_tty_name(reads[k]));
		}
	free(reads);
}

/* c = [1, 2]; a value, no operands, one output. */
static void
checkliteral(struct vctx *v, struct node *n)
{
	const cJSON *it;

	if (n->nin != 0)
		verr(v, n->pos, "node \"%s\": field \"inputs\": a literal "
		    "has none, found %d", escape_tty_name(n->id), n->nin);
	if (n->nout != 1)
		verr(v, n->pos, "node \"%s\": field \"outputs\": a literal "
		    "has one output, found %d", escape_tty_name(n->id),
		    n->nout);
	if (!cJSON_GetObjectItemCaseSensitive(n->options, "value"))
		verr(v, n->pos, "node \"%s\": a literal needs its option "
		    "\"value\"", escape_tty_name(n->id));
	cJSON_ArrayForEach(it, n->options)
		if (strcmp(it->string, "value") != 0)
			verr(v, n->pos, "node \"%s\": a literal has no option "
			    "\"%s\"", escape_tty_name(n->id),
			    escape_tty_name(it->string));
}

static void
checknode(struct vctx *v, struct node *n)
{
	const struct opdesc *d = op_get(n->op);

	if (!d && strcmp(n->opname, LITERAL_OP) == 0) {
		checkliteral(v, n);
		return;
	}
	if (!d && graph_passthrough) {
		vwarn(v, n->pos, "node \"%s\": unknown op \"%s\": passed "
		    "through", escape_tty_name(n->id),
		    escape_tty_name(n->opname));
		checkreads(v, n);
		return;
	}
	if (!d) {
		const char *s = op_suggest(n->opname);

		if (s)
			verr(v, n->pos, "node \"%s\": field \"op\": unknown op "
			    "\"%s\" (did you mean \"%s\"?)",
			    escape_tty_name(n->id), escape_tty_name(n->opname),
			    s);
		else
			verr(v, n->pos, "node \"%s\": field \"op\": unknown op "
			    "\"%s\"", escape_tty_name(n->id),
			    escape_tty_name(n->opname));
		return;
	}
	if (d->variadic ? n->nin < 1 : n->nin != d->nOperands) {
		struct buf b = { 0 };

		for (int k = 0; k < d->nOperands; k++)
			buf_printf(&b, "%s%s", k ? ", " : "", d->operands[k]);
		if (d->variadic)
			verr(v, n->pos, "node \"%s\": field \"inputs\": %s "
			    "needs at least one input", escape_tty_name(n->id),
			    d->name);
		else
			verr(v, n->pos, "node \"%s\": field \"inputs\": %s "
			    "takes %d input%s (%s), found %d",
			    escape_tty_name(n->id), d->name,
			    d->nOperands, d->nOperands == 1 ? "" : "s", b.s,
			    n->nin);
		free(b.s);
	}
	if (d->nout == 1 && n->nout != 1)
		verr(v, n->pos, "node \"%s\": field \"outputs\": %s has one "
		    "output, found %d", escape_tty_name(n->id), d->name,
		    n->nout);
	checkoptions(v, n, d);
	checkreads(v, n);
}

static void
checkconst(struct vctx *v, struct operand *c)
{
	uint64_t numel = tdesc_numel(&c->desc);
	enum dtype dt = c->desc.dt;

	if (numel == UINT64_MAX)
		return;		/* checked_graph() has said so */
	if (c->init == INIT_BYTES && c->nbytes != dtype_bytes(dt, numel))
		verr(v, c->pos, "const \"%s\": field \"init.bytes\": %s needs "
		    "%llu bytes, found %zu", escape_tty_name(c->name),
		    dtype_name(dt),
		    (unsigned long long)dtype_bytes(dt, numel), c->nbytes);
	if (c->init == INIT_SCALAR && !dtype_isfloat(dt)) {
		int bits = dtype_bits(dt);
		/* [lo, end): 2^63 - 1 and 2^64 - 1 are no doubles (they
		 * round up to end), and a cast of end is undefined */
		double lo = dtype_issigned(dt) ? -ldexp(1, bits - 1) : 0;
		double end = ldexp(1, dtype_issigned(dt) ? bits - 1 : bits);

		if (c->value != floor(c->value) || !(c->value >= lo) ||
		    !(c->value < end))
			verr(v, c->pos, "const \"%s\": field \"init.value\": "
			    "%.17g is not a %s value", escape_tty_name(c->name),
			    c->value,
			    dtype_name(dt));
	}
}

static int
sameshape(const struct wtensor *t, const struct tdesc *d)
{
	if (t->rank != d->rank)
		return 0;
	for (int i = 0; i < d->rank; i++)
		if (t->shape[i] != d->dims[i])
			return 0;
	return 1;
}

static char *
wshape(const struct wtensor *t)
{
	struct tdesc d = { t->dt, t->rank, t->shape };

	return tdesc_str(&d);
}

/* Consts of kind "weights" against the tensors of manifest m. */
static void
checkentries(struct vctx *v, struct manifest *m)
{
	struct graph *g = v->g;

	for (size_t i = 0; i < g->nconsts; i++) {
		struct operand *c = g->consts[i];
		struct wtensor *t;

		if (c->init != INIT_WEIGHTS)
			continue;
		t = manifest_find(m, c->ref);
		if (!t) {
			verr(v, c->pos, "const \"%s\": weights \"%s\" not in "
			    "manifest %s", escape_tty_name(c->name),
			    escape_tty_name(c->ref), g->manifest_file);
		} else if (t->dt != c->desc.dt || !sameshape(t, &c->desc)) {
			char *a = tdesc_str(&c->desc), *b = wshape(t);

			verr(v, c->pos, "const \"%s\": declared %s, manifest "
			    "%s has %s", escape_tty_name(c->name), a,
			    g->manifest_file, b);
			free(a);
			free(b);
		} else if (t->length != dtype_bytes(t->dt,
		    tdesc_numel(&c->desc))) {
			verr(v, c->pos, "const \"%s\": manifest byteLength %llu "
			    "disagrees with %s", escape_tty_name(c->name),
			    (unsigned long long)t->length,
			    dtype_name(t->dt));
		}
	}
}

/*
 * Consts of kind "weights" against the manifest the graph names: with
 * its weights file, every byte checked too; a manifest alone (nnl-parse
 * -m, as webnn-graph's validate --weights-manifest) is checked for
 * names, types, shapes and byte lengths.
 */
static void
checkweights(struct vctx *v)
{
	struct graph *g = v->g;
	struct weights w;

	if (!g->weights_file && g->manifest_file) {
		struct manifest m;

		if (manifest_load(g->manifest_file, &m) != 0) {
			v->nerr++;
			return;
		}
		checkentries(v, &m);
		manifest_free(&m);
		return;
	}
	if (!g->weights_file)
		return;
	/* files this program wrote may still be in their temporaries; a
	 * file that is not there, or is no regular file, is the graph's
	 * fault: say so where it is named */
	for (int k = 0; k < 2; k++) {
		const char *f = k ? g->manifest_file : g->weights_file, *why;
		uint64_t size;
		int fd = infile_open(outfile_staged(f), &size, &why);

		if (fd < 0) {
			verr(v, (struct pos){ 0, 0 }, "field \"weights\": "
			    "member \"%s\": %s: %s", k ? "manifest" : "file",
			    f, why);
			return;
		}
		close(fd);
	}
	if (weights_check(&w, g->weights_file, g->manifest_file) != 0) {
		v->nerr++;
		return;
	}
	checkentries(v, &w.m);
	weights_close(&w);
}

int
graph_validate(struct graph *g)
{
	struct vctx v = { g, 0, 0 };
	size_t i;

	checknames(&v);
	v.nerr += checked_graph(g);
	for (i = 0; i < g->nconsts; i++)
		checkconst(&v, g->consts[i]);
	for (i = 0; i < g->nnodes; i++)
		checknode(&v, g->nodes[i]);
	for (i = 0; i < g->noutputs; i++) {
		struct goutput *o = &g->outputs[i];

		if (!graph_find(g, o->ref))
			verr(&v, o->pos, "output \"%s\": undefined operand "
			    "\"%s\"", escape_tty_name(o->name),
			    escape_tty_name(o->ref));
		else if (graph_find(g, o->ref)->kind != OPND_NODE)
			/* WebNN's build() takes operands a node produced */
			verr(&v, o->pos, "output \"%s\": \"%s\" is a graph %s, "
			    "not the output of a node",
			    escape_tty_name(o->name), escape_tty_name(o->ref),
			    kindname(graph_find(g, o->ref)->kind));
	}
	if (g->noutputs == 0)
		verr(&v, (struct pos){ 0, 0 }, "the graph has no outputs");
	checkweights(&v);
	if (v.nwarn)
		g->ptwarned = 1;
	return v.nerr;
}
