/*
 * fuse: each rewrite looks for its pattern over the nodes, checks that
 * the intermediate it removes has no other reader, and rewires the
 * readers of the removed output.  Rewrites repeat until none applies,
 * each time the first rewrite (in the order of graph_fuse) at the first
 * node (in graph order) where it applies.
 *
 * So that this costs O(n log n) and not a rescan of the graph after
 * every change, each rewrite has a queue of the nodes it has yet to
 * look at, by position; a node it looked at and passed over leaves the
 * queue until a change touches it (its reads, its producers, its
 * readers, or the readers of what it reads), which queues it again for
 * every rewrite.  A reader index (uses.c) answers "who reads x", and the
 * name table is updated item by item.  Dropped nodes leave holes in
 * g->nodes, closed at the end.
 */
#include "checked.h"
#include "fuse.h"
#include "heap.h"
#include "escape.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "constdata.h"
#include "fuse_norm.h"
#include "kernel.h"
#include "uses.h"

enum {
	RW_NOOP, RW_FOLD, RW_NORM, RW_BN, RW_BIAS, RW_RES, RW_GELU, RW_SWISH,
	RW_ACT, RW_TRANS, NRW
};
/* (each node's queued rewrites are bits of a uint32_t) */
_Static_assert(NRW <= 32, "too many rewrites for struct fx's queued");

struct fx {
	struct graph *g;
	const struct fuse_opts *o;
	int changes;
	struct uses u;		/* readers of every operand */
	struct heap todo[NRW];	/* per rewrite: nodes to look at */
	uint32_t *queued;	/* per node: bit r set: in todo[r] */
};

/* Queue node n for every rewrite. */
/* float32 or float16: the types the fused kernels take (not nnl's
 * float64 and bfloat16, which run unfused through the generic path) */
static int
f32or16(enum dtype dt)
{
	return dt == DT_FLOAT32 || dt == DT_FLOAT16;
}

static void
queue(struct fx *f, struct node *n)
{
	for (int r = 0; r < NRW; r++)
		if (!(f->queued[n->index] & (uint32_t)1 << r)) {
			f->queued[n->index] |= (uint32_t)1 << r;
			heap_push(&f->todo[r], n->index);
		}
}

/* The next live node rewrite r has to look at, or NULL. */
static struct node *
next(struct fx *f, int r)
{
	while (f->todo[r].n) {
		size_t i = heap_pop(&f->todo[r]);

		f->queued[i] &= ~((uint32_t)1 << r);
		if (f->g->nodes[i])
			return f->g->nodes[i];
	}
	return NULL;
}

/* Something about operand name changed: queue its producer and its
 * readers. */
static void
touch(struct fx *f, const char *name)
{
	struct operand *o = graph_find(f->g, name);
	struct uses_ent *e = uses_get(&f->u, name);

	if (o && o->kind == OPND_NODE)
		queue(f, o->producer);
	for (size_t i = 0; e && i < e->n; i++)
		queue(f, e->rd[i]);
}

/* Node n changed: queue it and the nodes around it. */
static void
touchnode(struct fx *f, struct node *n)
{
	const char **r;
	int nr = node_reads(n, &r);

	queue(f, n);
	for (int k = 0; k < nr; k++)
		touch(f, r[k]);
	free(r);
	for (int k = 0; k < n->nout; k++)
		touch(f, n->out[k]);
}

static void
note(struct fx *f, const char *fmt, ...) NNL_PRINTF(2, 3);

static void
note(struct fx *f, const char *fmt, ...)
{
	struct buf b = { 0 };
	va_list ap;
	char *msg;

	f->changes++;
	if (!f->o->verbose)
		return;
	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	escape_tty_message(&b, msg);
	fprintf(stderr, "%s: %s\n", getprogname_nnl(), b.s ? b.s : "");
	free(msg);
	free(b.s);
}

/* Readers of an operand: node reads plus graph outputs. */
static int
uses(struct fx *f, const char *name)
{
	return (int)uses_count(&f->u, name);
}

static int
isgraphoutput(struct graph *g, const char *name)
{
	for (size_t i = 0; i < g->noutputs; i++)
		if (strcmp(g->outputs[i].ref, name) == 0)
			return 1;
	return 0;
}

/* Every read of from now reads to (node inputs and operand options). */
static void
rewire(struct fx *fx, const char *from, const char *to)
{
	struct graph *g = fx->g;
	char *f = xstrdup(from);
	struct uses_ent *e = uses_get(&fx->u, f);
	size_t nrd = e ? e->n : 0;
	struct node **rd = xmalloc((nrd + 1) * sizeof *rd);

	touch(fx, f);
	touch(fx, to);
	if (nrd)
		memcpy(rd, e->rd, nrd * sizeof *rd);
	for (size_t i = 0; i < nrd; i++) {
		struct node *n = rd[i];
		const struct opdesc *d = op_get(n->op);
		cJSON *it;

		uses_drop(&fx->u, n);
		for (int k = 0; k < n->nin; k++)
			if (strcmp(n->in[k], f) == 0) {
				free(n->in[k]);
				n->in[k] = xstrdup(to);
			}
		cJSON_ArrayForEach(it, n->options)
			if (cJSON_IsString(it) && d &&
			    op_isoperandarg(d, it->string) &&
			    strcmp(it->valuestring, f) == 0)
				cJSON_SetValuestring(it, to);
		uses_add(&fx->u, n);
	}
	for (size_t i = 0; e && e->nout && i < g->noutputs; i++)
		if (strcmp(g->outputs[i].ref, f) == 0) {
			free(g->outputs[i].ref);
			g->outputs[i].ref = xstrdup(to);
			uses_output(&fx->u, f, -1);
			uses_output(&fx->u, to, 1);
		}
	touch(fx, to);
	free(rd);
	free(f);
}

/* Remove node n from the graph (its output is already unread); its
 * place in g->nodes is a hole until graph_fuse closes it. */
static void
dropnode(struct fx *f, struct node *n)
{
	touchnode(f, n);
	uses_drop(&f->u, n);
	graph_unindex_node(f->g, n);
	f->g->nodes[n->index] = NULL;
	graph_drop_node(f->g, n);
}

/* Rename node p's single output to name (the node it absorbed); p's
 * reads may have changed too. */
static void
renameout(struct fx *f, struct node *p, const char *name)
{
	char *nm = xstrdup(name);

	touchnode(f, p);
	graph_unindex_node(f->g, p);
	free(p->out[0]);
	p->out[0] = xstrdup(nm);
	if (!p->multi) {
		free(p->id);
		p->id = xstrdup(nm);
	}
	free(nm);
	graph_index_node(f->g, p);
	uses_add(&f->u, p);
	touchnode(f, p);
}

static struct node *
producer(struct graph *g, const char *name)
{
	struct operand *o = graph_find(g, name);

	return o && o->kind == OPND_NODE ? o->producer : NULL;
}

static struct operand *
constant(struct graph *g, const char *name)
{
	struct operand *o = name ? graph_find(g, name) : NULL;

	return o && o->kind == OPND_CONST ? o : NULL;
}

/* A fresh operand name based on base. */
static char *
freshname(struct graph *g, const char *base, const char *suffix)
{
	char *s = xasprintf("%s__%s", base, suffix);

	for (int k = 2; graph_find(g, s); k++) {
		free(s);
		s = xasprintf("%s__%s%d", base, suffix, k);
	}
	return s;
}

/* A new inline constant holding data (copied). */
static char *
newconst(struct graph *g, const char *base, const char *suffix,
    enum dtype dt, int rank, const int64_t *dims, const void *data,
    size_t nbytes)
{
	char *name = freshname(g, base, suffix);
	struct operand *c;

	c = graph_add_const(g, name, dt, rank, dims);
	c->init = INIT_BYTES;
	c->bytes = xmalloc(nbytes + 1);
	memcpy(c->bytes, data, nbytes);
	c->nbytes = nbytes;
	graph_index_const(g, c);
	return name;
}

/* float32 data of a constant (malloc'd), n elements, or NULL. */
static float *
floats(struct graph *g, struct operand *c, uint64_t *n)
{
	uint64_t nb;

	if (!c || c->desc.dt != DT_FLOAT32)
		return NULL;
	/* a graph without its weights: nothing to fold, no error */
	if (c->init == INIT_WEIGHTS && !g->weights_file)
		return NULL;
	*n = tdesc_numel(&c->desc);
	return const_bytes(g, c, &nb);
}

static void
setopt(struct node *n, const char *name, cJSON *v)
{
	if (cJSON_GetObjectItemCaseSensitive(n->options, name))
		cJSON_ReplaceItemInObjectCaseSensitive(n->options, name, v);
	else
		cJSON_AddItemToObject(n->options, name, v);
}

/* ---- no-ops ---- */

/* Is node n an identity on its first input? */
static int
isnoop(struct graph *g, struct node *n)
{
	const struct tdesc *in, *out;
	const cJSON *v, *it;
	int k = 0;

	if (n->nin < 1 || n->nout != 1 || !n->types)
		return 0;
	in = operand_type(graph_find(g, n->in[0]));
	out = &n->types[0];
	if (!tdesc_same(in, out))
		return 0;
	switch (n->op) {
	case OP_IDENTITY: case OP_RESHAPE: case OP_CAST: case OP_EXPAND:
		return 1;
	case OP_CONCAT:
		return n->nin == 1;
	case OP_TRANSPOSE:
		v = cJSON_GetObjectItemCaseSensitive(n->options, "permutation");
		if (!v)
			return in->rank <= 1;
		cJSON_ArrayForEach(it, v)
			if (!cJSON_IsNumber(it) || it->valuedouble != k++)
				return 0;
		return 1;
	case OP_SLICE:	/* the same shape: start 0, the whole axis */
	case OP_PAD:	/* the same shape: no padding, whatever the mode */
	case OP_TILE:	/* the same shape: every repetition is 1 */
		return 1;
	case OP_CLAMP:
		return !cJSON_GetObjectItemCaseSensitive(n->options,
		    "minValue") && !cJSON_GetObjectItemCaseSensitive(
		    n->options, "maxValue");
	default:
		return 0;
	}
}

static int
dropnoops(struct fx *f)
{
	struct graph *g = f->g;
	struct node *n;

	while ((n = next(f, RW_NOOP))) {
		struct operand *src;
		char *out, *in;

		if (!isnoop(g, n))
			continue;
		src = graph_find(g, n->in[0]);
		/* a graph output must stay the output of some node */
		if (isgraphoutput(g, n->out[0]) && src->kind != OPND_NODE)
			continue;
		out = xstrdup(n->out[0]);
		in = xstrdup(n->in[0]);
		note(f, "removing no-op %s \"%s\"", n->opname,
		    escape_tty_name(n->id));
		rewire(f, out, in);
		dropnode(f, n);
		free(out);
		free(in);
		return 1;
	}
	return 0;
}

/* ---- constant folding ---- */

enum { FOLDMAX = 64 << 20 };	/* bytes: bigger results stay computed */

static int
foldconsts(struct fx *f)
{
	struct graph *g = f->g;
	struct node *n;

	while ((n = next(f, RW_FOLD))) {
		const char **r;
		int nr = node_reads(n, &r), allconst = nr > 0;
		struct kcall k;
		const void **ins;
		void *outs[1];
		void *scratch = NULL;
		uint64_t nb;
		int ok = 1;

		for (int j = 0; j < nr; j++) {
			struct operand *c = constant(g, r[j]);

			/* without the weights file there is nothing to fold;
			 * an input above FOLDMAX is not expanded to fold */
			allconst &= c != NULL && (c->init != INIT_WEIGHTS ||
			    g->weights_file != NULL) && dtype_bytes(c->desc.dt,
			    tdesc_numel(&c->desc)) <= FOLDMAX;
		}
		free(r);
		if (!allconst || n->nout != 1 || !n->types ||
		    (nb = dtype_bytes(n->types[0].dt,
		    tdesc_numel(&n->types[0]))) > FOLDMAX ||
		    isgraphoutput(g, n->out[0]))
			continue;
		if (kernel_prepare(g, n, &k) != 0)
			return -1;
		if (k.scratch > FOLDMAX) {
			kcall_free(&k);
			continue;
		}
		ins = xcalloc((size_t)k.nin + 1, sizeof *ins);
		for (int j = 0; j < k.nin; j++) {
			uint64_t cb;

			if (k.in[j] && !(ins[j] = const_bytes(g,
			    constant(g, k.in[j]), &cb)))
				ok = 0;
		}
		outs[0] = xcalloc(nb + 1, 1);
		if (ok) {
			char *name = xstrdup(n->out[0]), *c;

			if (k.scratch)
				scratch = xcalloc(k.scratch, 1);
			k.fn(k.ip, k.fp, ins, outs, scratch);
			free(scratch);
			c = newconst(g, n->out[0], "folded", n->types[0].dt,
			    n->types[0].rank, n->types[0].dims, outs[0], nb);
			note(f, "folding %s \"%s\" into constant \"%s\"",
			    n->opname, escape_tty_name(n->id),
			    escape_tty_name(c));
			rewire(f, name, c);
			dropnode(f, n);
			free(name);
			free(c);
		}
		for (int j = 0; j < k.nin; j++)
			free((void *)ins[j]);
		free(ins);
		kcall_free(&k);
		free(outs[0]);
		if (!ok)
			return -1;
		return 1;
	}
	return 0;
}

/* ---- batchNormalization into conv2d, gemm, matmul ---- */

/* Axis of the output channels in a conv2d filter. */
static int
filteroc(const char *layout)
{
	return !strcmp(layout, "hwio") || !strcmp(layout, "ihwo") ? 3 : 0;
}

/* Scale W along axis ax by s[], writing into a new array. */
static float *
scaleaxis(const float *w, const struct tdesc *t, int ax, const float *s)
{
	uint64_t n = tdesc_numel(t), inner = 1;
	float *o = xmalloc((n + 1) * sizeof *o);

	for (int i = ax + 1; i < t->rank; i++)
		inner *= (uint64_t)t->dims[i];
	for (uint64_t i = 0; i < n; i++)
		o[i] = w[i] * s[(i / inner) % (uint64_t)t->dims[ax]];
	return o;
}

/* s = scale / sqrt(var + eps), t = bias - mean * s, from BN node n. */
static int
bnparams(struct graph *g, struct node *n, int64_t ch, float **s, float **t)
{
	uint64_t nm = 0, nv = 0, ns = 0, nbb = 0;
	const char *scn = node_optstr(n, "scale", NULL);
	const char *bn = node_optstr(n, "bias", NULL);
	float *mean = floats(g, constant(g, n->in[1]), &nm);
	float *var = floats(g, constant(g, n->in[2]), &nv);
	float *sc = scn ? floats(g, constant(g, scn), &ns) : NULL;
	float *bb = bn ? floats(g, constant(g, bn), &nbb) : NULL;
	double eps = node_optnum(n, "epsilon", 1e-5);
	int ok = mean && var && nm == (uint64_t)ch && nv == (uint64_t)ch &&
	    (!scn || (sc && ns == (uint64_t)ch)) &&
	    (!bn || (bb && nbb == (uint64_t)ch));

	*s = *t = NULL;
	if (ok) {
		*s = xmalloc((size_t)ch * sizeof **s);
		*t = xmalloc((size_t)ch * sizeof **t);
		for (int64_t c = 0; c < ch; c++) {
			double k = (sc ? sc[c] : 1.0) / sqrt((double)var[c] +
			    eps);

			(*s)[c] = (float)k;
			(*t)[c] = (float)((bb ? bb[c] : 0.0) - mean[c] * k);
		}
	}
	free(mean);
	free(var);
	free(sc);
	free(bb);
	return ok ? 0 : -1;
}

/*
 * The conv2d, gemm or 2-D matmul batchNormalization n can fold into:
 * the producer of its input, read by n alone, with no activation, n's
 * axis its channels.  The channel axis, the filter's output-channel
 * axis and the old bias into *chaxis, *wax and *oldb; NULL when none.
 */
static struct node *
bnproducer(struct fx *f, struct node *n, int *chaxis, int *wax,
    const char **oldb)
{
	struct graph *g = f->g;
	struct node *p;
	int64_t ax;

	if (n->op != OP_BATCH_NORMALIZATION || !n->types ||
	    n->types[0].dt != DT_FLOAT32 ||
	    !(p = producer(g, n->in[0])) || p->multi ||
	    uses(f, n->in[0]) != 1 || cJSON_GetObjectItemCaseSensitive(
	    p->extra, "activation"))
		return NULL;
	/* a whole axis of 0 to 3 (NaN or 1e300 are no axis) */
	if (checked_double_i64(node_optnum(n, "axis", 1), 0, 3,
	    &ax) != 0)
		return NULL;
	*chaxis = (int)ax;
	if (p->op == OP_CONV2D) {
		if (*chaxis != (strcmp(node_optstr(p, "inputLayout",
		    "nchw"), "nhwc") ? 1 : 3))
			return NULL;
		*wax = filteroc(node_optstr(p, "filterLayout", "oihw"));
		*oldb = node_optstr(p, "bias", NULL);
	} else if (p->op == OP_GEMM || (p->op == OP_MATMUL &&
	    p->types[0].rank == 2 &&
	    operand_type(graph_find(g, p->in[1]))->rank == 2)) {
		const cJSON *bt = cJSON_GetObjectItemCaseSensitive(
		    p->options, "bTranspose");

		if (*chaxis != 1)
			return NULL;
		*wax = cJSON_IsTrue(bt) ? 0 : 1;
		*oldb = p->op == OP_GEMM ? node_optstr(p, "c", NULL) :
		    NULL;
		if (p->op == OP_GEMM && (node_optnum(p, "beta", 1) !=
		    1 || node_optnum(p, "alpha", 1) != 1))
			return NULL;
	} else {
		return NULL;
	}
	return p;
}

static int
foldbn(struct fx *f)
{
	struct graph *g = f->g;
	struct node *n;

	while ((n = next(f, RW_BN))) {
		struct node *p;
		const struct tdesc *wt;
		struct operand *wc, *bc = NULL;
		float *s, *t, *w, *nw, *nb;
		uint64_t nwn, nbn = 0;
		int64_t ch;
		int chaxis, wax;
		char *wname, *bname, *out;
		const char *oldb;

		if (!(p = bnproducer(f, n, &chaxis, &wax, &oldb)))
			continue;
		ch = p->types[0].dims[chaxis];
		wc = constant(g, p->in[1]);
		if (!wc || !(w = floats(g, wc, &nwn)))
			continue;
		if (oldb && (!(bc = constant(g, oldb)) ||
		    tdesc_numel(&bc->desc) != (uint64_t)ch ||
		    bc->desc.dt != DT_FLOAT32)) {
			free(w);
			continue;
		}
		if (bnparams(g, n, ch, &s, &t) != 0) {
			free(w);
			continue;
		}
		wt = &wc->desc;
		nw = scaleaxis(w, wt, wax, s);
		nb = xmalloc((size_t)ch * sizeof *nb);
		{
			float *ob = bc ? floats(g, bc, &nbn) : NULL;

			for (int64_t c = 0; c < ch; c++)
				nb[c] = (ob ? ob[c] : 0.0f) * s[c] + t[c];
			free(ob);
		}
		wname = newconst(g, p->id, "w", DT_FLOAT32, wt->rank, wt->dims,
		    nw, nwn * sizeof(float));
		bname = newconst(g, p->id, "b", DT_FLOAT32, 1, &ch, nb,
		    (size_t)ch * sizeof(float));
		note(f, "folding batchNormalization \"%s\" into %s \"%s\"",
		    escape_tty_name(n->id), p->opname, escape_tty_name(p->id));
		free(p->in[1]);
		p->in[1] = wname;
		if (p->op == OP_MATMUL) {
			free(p->opname);
			p->opname = xstrdup("gemm");
			p->op = OP_GEMM;
		}
		setopt(p, p->op == OP_CONV2D ? "bias" : "c",
		    cJSON_CreateString(bname));
		out = xstrdup(n->out[0]);
		dropnode(f, n);
		renameout(f, p, out);
		free(out);
		free(bname);
		free(w);
		free(nw);
		free(nb);
		free(s);
		free(t);
		return 1;
	}
	return 0;
}

/* ---- bias adds into conv2d and gemm ---- */

/* A matmul of two matrices, which gemm can take over. */
static int
ismatmul2d(struct graph *g, struct node *p)
{
	return p->op == OP_MATMUL && p->types && p->types[0].rank == 2 &&
	    operand_type(graph_find(g, p->in[0]))->rank == 2 &&
	    operand_type(graph_find(g, p->in[1]))->rank == 2;
}

/* A float32 matmul of more dims (a Linear layer over [B, S, E]) with
 * no bias yet: its field "bias" takes one. */
static int
ismatmulnd(struct node *p)
{
	return p->op == OP_MATMUL && p->types && p->types[0].rank > 2 &&
	    p->types[0].dt == DT_FLOAT32 &&
	    !cJSON_GetObjectItemCaseSensitive(p->extra, "bias");
}

/* Does constant b broadcast only along axis ax of the rank-r output,
 * with ch elements? */
static int
perchannel(const struct tdesc *b, int r, int ax, int64_t ch)
{
	if (tdesc_numel(b) != (uint64_t)ch || b->rank > r)
		return 0;
	for (int i = 0; i < b->rank; i++) {
		int oi = r - b->rank + i;	/* aligned to the right */

		if (oi != ax && b->dims[i] != 1)
			return 0;
		if (oi == ax && b->dims[i] != ch)
			return 0;
	}
	return ch == 1 || b->rank >= r - ax;
}

/* The conv2d, gemm or matmul (with no activation) that makes one
 * input of add n, the other a constant: *x its output, *b the
 * constant.  NULL when neither input is such. */
static struct node *
biasproducer(struct graph *g, struct node *n, const char **x,
    struct operand **b)
{
	for (int k = 0; k < 2; k++) {
		struct node *q = producer(g, n->in[k]);

		if (q && (q->op == OP_CONV2D || q->op == OP_GEMM ||
		    ismatmul2d(g, q) || ismatmulnd(q)) &&
		    !q->multi && constant(g, n->in[1 - k]) &&
		    !cJSON_GetObjectItemCaseSensitive(q->extra,
		    "activation")) {
			*x = n->in[k];
			*b = constant(g, n->in[1 - k]);
			return q;
		}
	}
	return NULL;
}

static int
mergebias(struct fx *f)
{
	struct graph *g = f->g;
	struct node *n;

	while ((n = next(f, RW_BIAS))) {
		struct node *p = NULL;
		struct operand *b = NULL, *ob = NULL;
		const char *x = NULL, *oldb;
		float *bv, *obv = NULL, *nv;
		uint64_t nn, on = 0;
		int64_t ch;
		int ax;
		char *name, *out;

		if (n->op != OP_ADD || !n->types ||
		    n->types[0].dt != DT_FLOAT32)
			continue;
		p = biasproducer(g, n, &x, &b);
		if (!p || uses(f, x) != 1 ||
		    !tdesc_same(&p->types[0], &n->types[0]))
			continue;
		if (p->op == OP_CONV2D) {
			ax = strcmp(node_optstr(p, "inputLayout", "nchw"),
			    "nhwc") ? 1 : 3;
			oldb = node_optstr(p, "bias", NULL);
		} else if (p->op == OP_MATMUL) {
			ax = p->types[0].rank - 1;
			oldb = NULL;
		} else {
			ax = 1;
			oldb = node_optstr(p, "c", NULL);
			if (oldb && node_optnum(p, "beta", 1) != 1)
				continue;
		}
		ch = p->types[0].dims[ax];
		if (!perchannel(&b->desc, p->types[0].rank, ax, ch))
			continue;
		if (oldb && (!(ob = constant(g, oldb)) ||
		    tdesc_numel(&ob->desc) != (uint64_t)ch))
			continue;
		if (!(bv = floats(g, b, &nn)))
			continue;
		if (ob && !(obv = floats(g, ob, &on))) {
			free(bv);
			continue;
		}
		nv = xmalloc((size_t)ch * sizeof *nv);
		for (int64_t c = 0; c < ch; c++)
			nv[c] = bv[c] + (obv ? obv[c] : 0.0f);
		name = newconst(g, p->id, "b", DT_FLOAT32, 1, &ch, nv,
		    (size_t)ch * sizeof *nv);
		note(f, "merging add \"%s\" into the bias of %s \"%s\"",
		    escape_tty_name(n->id), p->opname, escape_tty_name(p->id));
		if (p->op == OP_MATMUL && p->types[0].rank > 2) {
			/* the C kernels add it (rt/nn/nn.c) */
			if (!p->extra)
				p->extra = cJSON_CreateObject();
			cJSON_AddStringToObject(p->extra, "bias", name);
		} else if (p->op == OP_MATMUL) {  /* a 2-D matmul is a gemm */
			free(p->opname);
			p->opname = xstrdup("gemm");
			p->op = OP_GEMM;
		}
		if (p->op != OP_MATMUL)
			setopt(p, p->op == OP_CONV2D ? "bias" : "c",
			    cJSON_CreateString(name));
		if (p->op == OP_GEMM)
			cJSON_DeleteItemFromObjectCaseSensitive(p->options,
			    "beta");
		out = xstrdup(n->out[0]);
		dropnode(f, n);
		renameout(f, p, out);
		free(out);
		free(name);
		free(bv);
		free(obv);
		free(nv);
		return 1;
	}
	return 0;
}

/* ---- residual adds into the conv2d before them ---- */

/*
 * add(conv2d(...), r) with r of the very type of the sum (float32, no
 * broadcasting), where nothing else reads the conv2d's result and no
 * activation was fused into it yet: the conv2d gains the field
 * "residual": r, which the C kernel adds to each output in the
 * epilogue, after the bias and before an activation fused later (an
 * add then a relu, as in a residual block).  The sum is the same
 * operations as the add's, so the bits are those of the two nodes.
 */
static int
fuseres(struct fx *f)
{
	struct graph *g = f->g;
	struct node *n;

	while ((n = next(f, RW_RES))) {
		struct node *p = NULL;
		const struct tdesc *rt;
		const char *r = NULL;
		char *out;
		size_t at;

		if (n->op != OP_ADD || n->nin != 2 || !n->types ||
		    n->types[0].dt != DT_FLOAT32)
			continue;
		for (int k = 0; k < 2 && !p; k++) {
			struct node *q = producer(g, n->in[k]);

			if (q && q->op == OP_CONV2D && !q->multi &&
			    q->types && uses(f, n->in[k]) == 1 &&
			    !cJSON_GetObjectItemCaseSensitive(q->extra,
			    "activation") &&
			    !cJSON_GetObjectItemCaseSensitive(q->extra,
			    "residual")) {
				p = q;
				r = n->in[1 - k];
			}
		}
		if (!p || !(rt = operand_type(graph_find(g, r))) ||
		    !tdesc_same(&p->types[0], &n->types[0]) ||
		    !tdesc_same(rt, &n->types[0]))
			continue;
		if (!p->extra)
			p->extra = cJSON_CreateObject();
		cJSON_AddStringToObject(p->extra, "residual", r);
		note(f, "merging add \"%s\" into conv2d \"%s\" as its "
		    "residual \"%s\"", escape_tty_name(n->id),
		    escape_tty_name(p->id), escape_tty_name(r));
		/* the conv2d takes the add's place, where r is computed
		 * (r may come after the conv2d: a shortcut's own conv2d) */
		at = n->index;
		out = xstrdup(n->out[0]);
		uses_drop(&f->u, p);
		dropnode(f, n);
		g->nodes[p->index] = NULL;
		p->index = at;
		g->nodes[at] = p;
		renameout(f, p, out);
		free(out);
		return 1;
	}
	return 0;
}

/* ---- layer normalizations spelled out (fuse_norm.c) ---- */

/* Operand p, x's dims on the axes and 1 elsewhere, as the shape
 * layerNormalization wants: p itself, or a constant anew (malloc'd
 * name; NULL after an error). */
static char *
normoperand(struct fx *f, const char *p, const struct tdesc *x,
    int64_t axes)
{
	struct operand *o = graph_find(f->g, p);
	const struct tdesc *t = operand_type(o);
	int64_t *d = xcalloc((size_t)x->rank + 1, sizeof *d);
	uint64_t nb;
	void *bytes;
	char *name = NULL;
	int k = 0;

	for (int i = 0; i < x->rank; i++)
		if (axes >> i & 1)
			d[k++] = x->dims[i];
	if (t->rank == k && !memcmp(t->dims, d, (size_t)k * sizeof *d)) {
		free(d);
		return xstrdup(p);
	}
	if ((bytes = const_bytes(f->g, o, &nb))) {
		name = newconst(f->g, p, "axes", DT_FLOAT32, k, d, bytes,
		    (size_t)nb);
		free(bytes);
	}
	free(d);
	return name;
}

static int
fusenorms(struct fx *f)
{
	struct node *n;

	while ((n = next(f, RW_NORM))) {
		struct fusenorm m;
		struct node *last;
		const struct tdesc *xt;
		char *sc = NULL, *bi = NULL;
		cJSON *o, *ax, *label;

		if (!fusenorm_match(f->g, &f->u, n, &m))
			continue;
		last = m.nodes[m.nn - 1];
		xt = operand_type(graph_find(f->g, m.x));
		if ((m.scale && !(sc = normoperand(f, m.scale, xt, m.axes))) ||
		    (m.bias && !(bi = normoperand(f, m.bias, xt, m.axes)))) {
			free(sc);
			return -1;
		}
		o = cJSON_CreateObject();
		ax = cJSON_AddArrayToObject(o, "axes");
		for (int i = 0; i < xt->rank; i++)
			if (m.axes >> i & 1)
				cJSON_AddItemToArray(ax, cJSON_CreateNumber(i));
		cJSON_AddNumberToObject(o, "epsilon", m.eps);
		if (sc)
			cJSON_AddStringToObject(o, "scale", sc);
		if (bi)
			cJSON_AddStringToObject(o, "bias", bi);
		if ((label = cJSON_DetachItemFromObjectCaseSensitive(
		    last->options, "label")))
			cJSON_AddItemToObject(o, "label", label);
		note(f, "making layerNormalization \"%s\" of %d nodes",
		    escape_tty_name(last->id), m.nn);
		/* the last node becomes the normalization, the others go */
		touchnode(f, last);
		uses_drop(&f->u, last);
		for (int k = 0; k < last->nin; k++)
			free(last->in[k]);
		last->in[0] = xstrdup(m.x);
		last->nin = 1;
		cJSON_Delete(last->options);
		last->options = o;
		last->op = OP_LAYER_NORMALIZATION;
		free(last->opname);
		last->opname = xstrdup("layerNormalization");
		uses_add(&f->u, last);
		touchnode(f, last);
		for (int k = m.nn - 2; k >= 0; k--)
			dropnode(f, m.nodes[k]);
		free(sc);
		free(bi);
		return 1;
	}
	return 0;
}

/* ---- transposes into the matmul they feed ---- */

enum { TMAXR = 32 };	/* ranks taken (shape_nn.c's) */

/*
 * The permutation of transpose node t, of rank r (its "permutation",
 * or the dims reversed), into p; 0 if it is one.
 */
static int
transperm(const struct node *t, int r, int *p)
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(t->options,
	    "permutation"), *it;
	int k = 0, seen[TMAXR] = { 0 };

	if (r < 2 || r > TMAXR)
		return -1;
	if (!a) {
		for (k = 0; k < r; k++)
			p[k] = r - 1 - k;
		return 0;
	}
	if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) != r)
		return -1;
	cJSON_ArrayForEach(it, a) {
		if (!cJSON_IsNumber(it) || it->valuedouble < 0 ||
		    it->valuedouble >= r || it->valuedouble !=
		    (int)it->valuedouble || seen[(int)it->valuedouble]++)
			return -1;
		p[k++] = (int)it->valuedouble;
	}
	return 0;
}

/*
 * matmul(transpose(s), ...) or matmul(..., transpose(s)), where nothing
 * else reads the transpose and s's last axis stays one of the matrix
 * axes: the matmul reads s, the node's field "transposeA" (or "B")
 * giving the permutation.  Each matrix of the view is then s's rows or
 * columns at a stride, which the SGEMM reads (op(A) and op(B) of
 * rt/f32-gemm/gemm.c), the batches at other strides (rt/nn/nn.c): no
 * copy.  The sums are the same, so the result is the same bits.
 */
static int
foldtrans(struct fx *f)
{
	struct graph *g = f->g;
	struct node *n;

	while ((n = next(f, RW_TRANS))) {
		static const char *const field[] = { "transposeA",
		    "transposeB" };

		if (n->op != OP_MATMUL || n->nin != 2)
			continue;
		for (int k = 0; k < 2; k++) {
			struct node *t = producer(g, n->in[k]);
			int p[TMAXR], r;
			cJSON *a;

			if (!t || t->op != OP_TRANSPOSE || t->multi ||
			    !t->types || uses(f, n->in[k]) != 1 ||
			    cJSON_GetObjectItemCaseSensitive(n->extra,
			    field[k]))
				continue;
			r = t->types[0].rank;
			if (transperm(t, r, p) ||
			    (p[r - 1] != r - 1 && p[r - 2] != r - 1))
				continue;
			note(f, "reading transpose \"%s\" in matmul \"%s\"",
			    escape_tty_name(t->id), escape_tty_name(n->id));
			a = cJSON_CreateArray();
			for (int i = 0; i < r; i++)
				cJSON_AddItemToArray(a, cJSON_CreateNumber(p[i]));
			if (!n->extra)
				n->extra = cJSON_CreateObject();
			cJSON_AddItemToObject(n->extra, field[k], a);
			uses_drop(&f->u, n);
			free(n->in[k]);
			n->in[k] = xstrdup(t->in[0]);
			uses_add(&f->u, n);
			dropnode(f, t);
			touchnode(f, n);
			return 1;
		}
	}
	return 0;
}

/* ---- activations into the op that produces their input ---- */

static int
fusable(enum op op)
{
	return op == OP_RELU || op == OP_CLAMP || op == OP_SIGMOID ||
	    op == OP_HARD_SWISH || op == OP_LEAKY_RELU || op == OP_TANH ||
	    op == OP_GELU || op == OP_HARD_SIGMOID;
}

/* Whether p is a product whose result an activation may be fused into
 * (its one output float, no activation yet). */
static int
takesact(struct node *p)
{
	return p && !p->multi && p->types &&
	    f32or16(p->types[0].dt) && (p->op == OP_CONV2D ||
	    p->op == OP_CONV_TRANSPOSE2D || p->op == OP_GEMM ||
	    p->op == OP_MATMUL || p->op == OP_CONV3D ||
	    p->op == OP_CONV_TRANSPOSE3D) &&
	    !cJSON_GetObjectItemCaseSensitive(p->extra, "activation");
}

/* Give p the activation named op (options opts, taken), in place of
 * node n, whose output p's now is. */
static void
giveact(struct fx *f, struct node *p, struct node *n, const char *op,
    cJSON *opts)
{
	cJSON *act = cJSON_CreateObject();
	char *out;

	cJSON_AddStringToObject(act, "op", op);
	cJSON_AddItemToObject(act, "options", opts);
	if (!p->extra)
		p->extra = cJSON_CreateObject();
	cJSON_AddItemToObject(p->extra, "activation", act);
	out = xstrdup(n->out[0]);
	dropnode(f, n);
	renameout(f, p, out);
	free(out);
}

/* The value of name if it is a float32 constant of one element whose
 * bytes are at hand. */
static int
scalar(struct fx *f, const char *name, float *v)
{
	uint64_t n;
	float *d = floats(f->g, constant(f->g, name), &n);
	int ok = d && n == 1;

	if (ok)
		*v = d[0];
	free(d);
	return ok;
}

/* The producer of in[k] of n if it is op and n alone reads it. */
static struct node *
sole(struct fx *f, struct node *n, int k, enum op op)
{
	struct node *p = k < n->nin ? producer(f->g, n->in[k]) : NULL;

	return p && p->op == op && !p->multi && uses(f, n->in[k]) == 1 ?
	    p : NULL;
}

/*
 * swish (SiLU): mul(x, sigmoid(x)), either way round, where x is the
 * result of a conv2d, convTranspose2d, gemm or matmul that the sigmoid
 * and the mul alone read, and the sigmoid's result the mul alone: the
 * product gains the activation "swish" (x sigmoid(x), rt.h's
 * nnl_activate), and the two nodes go.
 */
static int
fuseswish(struct fx *f)
{
	struct node *n;

	while ((n = next(f, RW_SWISH))) {
		struct node *s = NULL, *p;
		const char *x = NULL;

		if (n->op != OP_MUL || n->nin != 2 || !n->types ||
		    !f32or16(n->types[0].dt))
			continue;
		for (int k = 0; k < 2 && !s; k++)
			if ((s = sole(f, n, k, OP_SIGMOID)) &&
			    strcmp(s->in[0], n->in[1 - k]) == 0)
				x = n->in[1 - k];
			else
				s = NULL;
		if (!s || !(p = producer(f->g, x)) || !takesact(p) ||
		    uses(f, x) != 2 || isgraphoutput(f->g, x) ||
		    !tdesc_same(&p->types[0], &n->types[0]))
			continue;
		note(f, "fusing sigmoid \"%s\" and mul \"%s\" into %s "
		    "\"%s\" as swish", escape_tty_name(s->id),
		    escape_tty_name(n->id), p->opname, escape_tty_name(p->id));
		dropnode(f, s);
		giveact(f, p, n, "swish", cJSON_CreateObject());
		return 1;
	}
	return 0;
}

/*
 * gelu from the five nodes exporters write for it (PyTorch's GELU at
 * opsets before 20): mul(mul(x, add(erf(div(x, sqrt 2)), 1)), 0.5),
 * the operands of add and the muls either way round, div possibly
 * mul by 1 / sqrt 2, the constants float32 scalars within 1e-6 of
 * those values, each intermediate read by the next alone and of x's
 * type.  The erf node becomes gelu(x), named as the last mul; the
 * others go.  fuseact may then fuse it into the product before.
 */
static int
fusegelu(struct fx *f)
{
	struct node *n;

	while ((n = next(f, RW_GELU))) {
		struct node *m = NULL, *a = NULL, *e = NULL, *d = NULL;
		const char *x = NULL;
		float v;
		char *out;

		if (n->op != OP_MUL || n->nin != 2 || !n->types ||
		    n->types[0].dt != DT_FLOAT32)
			continue;
		/* n = mul(m, 0.5) */
		for (int k = 0; k < 2 && !m; k++)
			if (!scalar(f, n->in[1 - k], &v) ||
			    fabsf(v - 0.5f) > 1e-6f ||
			    !(m = sole(f, n, k, OP_MUL)))
				m = NULL;
		/* m = mul(x, a), a = add(e, 1) */
		for (int k = 0; m && k < 2 && !a; k++) {
			if (!(a = sole(f, m, k, OP_ADD)))
				continue;
			x = m->in[1 - k];
			if (!((scalar(f, a->in[1], &v) &&
			    (e = sole(f, a, 0, OP_ERF))) ||
			    (scalar(f, a->in[0], &v) &&
			    (e = sole(f, a, 1, OP_ERF)))) ||
			    fabsf(v - 1) > 1e-6f)
				a = e = NULL;
		}
		/* e = erf(d), d = div(x, sqrt 2) or mul(x, 1 / sqrt 2) */
		if (!e || !((d = sole(f, e, 0, OP_DIV)) ||
		    (d = sole(f, e, 0, OP_MUL))))
			continue;
		if (!(strcmp(d->in[0], x) == 0 && scalar(f, d->in[1], &v)) &&
		    !(d->op == OP_MUL && strcmp(d->in[1], x) == 0 &&
		    scalar(f, d->in[0], &v)))
			continue;
		if (fabsf(d->op == OP_DIV ? v - 1.41421356f :
		    v - 0.70710678f) > 1e-6f)
			continue;
		if (!tdesc_same(operand_type(graph_find(f->g, x)),
		    &n->types[0]) || !tdesc_same(&e->types[0], &n->types[0]))
			continue;
		note(f, "rewriting the gelu of \"%s\" (erf \"%s\" to mul "
		    "\"%s\") as one gelu", escape_tty_name(x),
		    escape_tty_name(e->id), escape_tty_name(n->id));
		/* x is m's or d's input: taken before they go */
		uses_drop(&f->u, e);
		free(e->in[0]);
		e->in[0] = xstrdup(x);
		out = xstrdup(n->out[0]);
		dropnode(f, n);
		dropnode(f, m);
		dropnode(f, a);
		dropnode(f, d);
		e->op = OP_GELU;
		free(e->opname);
		e->opname = xstrdup("gelu");
		renameout(f, e, out);
		free(out);
		return 1;
	}
	return 0;
}

static int
fuseact(struct fx *f)
{
	struct graph *g = f->g;
	struct node *n;

	while ((n = next(f, RW_ACT))) {
		struct node *p;
		cJSON *opts;

		if (!fusable(n->op) || !n->types ||
		    !f32or16(n->types[0].dt) ||
		    !(p = producer(g, n->in[0])) || !takesact(p) ||
		    uses(f, n->in[0]) != 1)
			continue;
		opts = cJSON_Duplicate(n->options, 1);
		cJSON_DeleteItemFromObjectCaseSensitive(opts, "label");
		note(f, "fusing %s \"%s\" into %s \"%s\"", n->opname,
		    escape_tty_name(n->id), p->opname, escape_tty_name(p->id));
		giveact(f, p, n, n->opname, opts);
		return 1;
	}
	return 0;
}

/* ---- Winograd's F(2x2, 3x3) filters for 3 x 3 convolutions ---- */

/* The constant oihw filter of conv2d node n on an nchw input, if n
 * alone reads it and its bytes are at hand, for a rewrite to store
 * anew; else null. */
static struct operand *
ownfilter(struct fx *f, struct node *n)
{
	struct operand *c;

	if (!n || n->op != OP_CONV2D || n->nin < 2 ||
	    strcmp(node_optstr(n, "inputLayout", "nchw"), "nchw") ||
	    strcmp(node_optstr(n, "filterLayout", "oihw"), "oihw") ||
	    !(c = constant(f->g, n->in[1])) || c->desc.rank != 4 ||
	    uses(f, c->name) != 1 ||
	    (c->init == INIT_WEIGHTS && !f->g->weights_file))
		return NULL;
	return c;
}

/* Node n reads the new constant filter name, in layout, instead of
 * its old one; field, if not null, is set in the node to value. */
static void
setfilter(struct fx *f, struct node *n, char *name, const char *layout,
    const char *field, cJSON *value)
{
	uses_drop(&f->u, n);
	free(n->in[1]);
	n->in[1] = name;
	uses_add(&f->u, n);
	setopt(n, "filterLayout", cJSON_CreateString(layout));
	if (!field)
		return;
	if (!n->extra)
		n->extra = cJSON_CreateObject();
	cJSON_AddItemToObject(n->extra, field, value);
}

/*
 * The constant float32 oihw filter [O, I, 3, 3] of an nchw conv2d at
 * stride and dilation 1, in one group, read by that node alone,
 * becomes U = G g G^T of Winograd's F(2x2, 3x3) (rt/f32-winograd/wino.c), stored
 * [4, 4, I, O] as "hwio" says, with the node's field "winograd": "2x2"
 * telling that it stands for the 3 x 3 filter.  Only where it pays on
 * the C kernels: at least 24 input and output channels and 12 x 12
 * outputs (below, the products are too small to gain on direct
 * convolution; 7 x 7 outputs of 512 channels gain a little, not enough
 * for filters 16/9 the size).  U is computed in double and rounded once.  Returns
 * the number of filters, or -1.
 */
static int
winograd(struct fx *f)
{
	static const double G[4][3] = { { 1, 0, 0 }, { .5, .5, .5 },
	    { .5, -.5, .5 }, { 0, 0, 1 } };
	struct graph *g = f->g;
	int done = 0;

	for (size_t i = 0; i < g->nnodes; i++) {
		struct node *n = g->nodes[i];
		struct operand *c;
		const int64_t *d, *od;
		int64_t nd[4], I, O;
		uint64_t nb;
		float *src, *dst;
		char *name;

		if (!(c = ownfilter(f, n)) || !n->types ||
		    n->types[0].rank != 4 || node_optnum(n, "groups", 1) != 1 ||
		    !node_optall(n, "strides", 1, 1) ||
		    !node_optall(n, "dilations", 1, 1) ||
		    cJSON_GetObjectItemCaseSensitive(n->extra, "winograd") ||
		    c->desc.dt != DT_FLOAT32)
			continue;
		d = c->desc.dims;
		od = n->types[0].dims;
		O = d[0];
		I = d[1];
		/* (16 / 9 of the filter's size: kept within the limit) */
		if (d[2] != 3 || d[3] != 3 || I < 24 || O < 24 ||
		    od[2] < 12 || od[3] < 12 ||
		    (uint64_t)(16 * I * O) * 4 > checked_limit())
			continue;
		if (!(src = const_bytes(g, c, &nb)))
			return -1;
		nb = (uint64_t)(16 * I * O) * sizeof *dst;
		dst = xmalloc(nb);
		for (int64_t o = 0; o < O; o++)
		for (int64_t k = 0; k < I; k++) {
			const float *w = src + (o * I + k) * 9;

			for (int r = 0; r < 4; r++)
			for (int t = 0; t < 4; t++) {
				double u = 0;

				for (int a = 0; a < 3; a++)
					for (int b = 0; b < 3; b++)
						u += G[r][a] * w[a * 3 + b] *
						    G[t][b];
				dst[((r * 4 + t) * I + k) * O + o] = (float)u;
			}
		}
		nd[0] = nd[1] = 4;
		nd[2] = I;
		nd[3] = O;
		name = newconst(g, c->name, "winograd", c->desc.dt, 4, nd, dst,
		    nb);
		note(f, "storing the filter of conv2d \"%s\" as Winograd's "
		    "F(2x2, 3x3)", escape_tty_name(n->id));
		setfilter(f, n, name, "hwio", "winograd",
		    cJSON_CreateString("2x2"));
		free(src);
		free(dst);
		done++;
	}
	return done;
}

/* ---- constant conv2d filters into the order the C kernels read ---- */

/*
 * The constant float32 oihw filter of an nchw conv2d in one group,
 * read by that node alone, whose product the C kernels compute with
 * output [P, O] (rt.h's nnl_conv_flip: small images, long sums), is
 * stored in panels of 32 output channels: bytes [O / 32][I][kh][kw][32]
 * (output channels past O zero), dims [I, kh, kw, O rounded up to 32]
 * as "ihwo" says, the node's field "panels" giving O.  The product
 * reads the panels in place at any microkernel width that divides 32,
 * where it would otherwise copy the filter into them on every call.
 * Returns the number of filters, or -1.
 */
static int
filterpanels(struct fx *f)
{
	struct graph *g = f->g;
	int done = 0;

	for (size_t i = 0; i < g->nnodes; i++) {
		struct node *n = g->nodes[i];
		struct operand *c;
		const int64_t *d, *od;
		int64_t nd[4], O, Kd, np;
		uint64_t nb;
		float *src, *dst;
		char *name;

		if (!(c = ownfilter(f, n)) || !n->types ||
		    n->types[0].rank != 4 || node_optnum(n, "groups", 1) != 1 ||
		    cJSON_GetObjectItemCaseSensitive(n->extra, "winograd") ||
		    cJSON_GetObjectItemCaseSensitive(n->extra, "panels") ||
		    c->desc.dt != DT_FLOAT32)
			continue;
		d = c->desc.dims;
		od = n->types[0].dims;
		O = d[0];
		Kd = d[1] * d[2] * d[3];
		np = (O + 31) / 32;
		if (!nnl_conv_flip(0, od[2] * od[3], O, Kd) ||
		    (uint64_t)(np * 32 * Kd) * 4 > checked_limit())
			continue;
		if (!(src = const_bytes(g, c, &nb)))
			return -1;
		nb = (uint64_t)(np * 32 * Kd) * sizeof *dst;
		dst = xcalloc((size_t)nb / sizeof *dst, sizeof *dst);
		for (int64_t o = 0; o < O; o++)
			for (int64_t k = 0; k < Kd; k++)
				dst[(o / 32 * Kd + k) * 32 + o % 32] =
				    src[o * Kd + k];
		nd[0] = d[1];
		nd[1] = d[2];
		nd[2] = d[3];
		nd[3] = np * 32;
		name = newconst(g, c->name, "panels", c->desc.dt, 4, nd, dst,
		    nb);
		note(f, "storing the filter of conv2d \"%s\" in panels of 32 "
		    "output channels", escape_tty_name(n->id));
		setfilter(f, n, name, "ihwo", "panels",
		    cJSON_CreateNumber((double)O));
		free(src);
		free(dst);
		done++;
	}
	return done;
}

/*
 * The constant oihw filter of an nchw conv2d that is not depthwise,
 * read by that node alone, becomes ihwo ([I, kh, kw, O]): a row of it
 * is one step of the product's K for every output channel, which the
 * SGEMM of the C kernels reads in place, a panel of rows at a time,
 * where it would otherwise pack the filter on every call.  One pass
 * after the other rewrites (which it makes no work for); returns the
 * number of filters, or -1.
 */
static int
filterihwo(struct fx *f)
{
	struct graph *g = f->g;
	int done = 0;

	for (size_t i = 0; i < g->nnodes; i++) {
		struct node *n = g->nodes[i];
		struct operand *c;
		const int64_t *d;
		int64_t nd[4];
		uint64_t nb, eb;
		unsigned char *src, *dst;
		char *name;

		if (!(c = ownfilter(f, n)))
			continue;
		d = c->desc.dims;
		if (d[1] == 1 && node_optnum(n, "groups", 1) == (double)d[0])
			continue;	/* depthwise: rt/f32-dwconv/dwconv.c */
		if (!(src = const_bytes(g, c, &nb)))
			return -1;
		eb = dtype_bytes(c->desc.dt, 1);
		dst = xmalloc(nb + 1);
		for (int64_t o = 0; o < d[0]; o++)
		for (int64_t k = 0; k < d[1] * d[2] * d[3]; k++)
			memcpy(dst + (uint64_t)(k * d[0] + o) * eb,
			    src + (uint64_t)(o * d[1] * d[2] * d[3] + k) * eb,
			    eb);
		nd[0] = d[1];
		nd[1] = d[2];
		nd[2] = d[3];
		nd[3] = d[0];
		name = newconst(g, c->name, "ihwo", c->desc.dt, 4, nd, dst,
		    nb);
		note(f, "storing the filter of conv2d \"%s\" as ihwo",
		    escape_tty_name(n->id));
		setfilter(f, n, name, "ihwo", NULL, NULL);
		free(src);
		free(dst);
		done++;
	}
	return done;
}

/* Constants no node reads any more. */
static void
prune(struct fx *f)
{
	struct graph *g = f->g;
	size_t j = 0;
	struct operand **dead = xcalloc(g->nconsts + 1, sizeof *dead);
	size_t nd = 0;

	for (size_t i = 0; i < g->nconsts; i++) {
		if (uses(f, g->consts[i]->name))
			g->consts[j++] = g->consts[i];
		else
			dead[nd++] = g->consts[i];
	}
	if (nd) {
		graph_unindex(g);
		g->nconsts = j;
		for (size_t i = 0; i < nd; i++)
			graph_drop_const(g, dead[i]);
		graph_index(g);
	}
	free(dead);
}

/* Close the holes dropped nodes left; free the queues. */
static void
finish(struct fx *f)
{
	struct graph *g = f->g;
	size_t j = 0;

	for (size_t i = 0; i < g->nnodes; i++)
		if (g->nodes[i])
			g->nodes[j++] = g->nodes[i];
	g->nnodes = j;
	for (int r = 0; r < NRW; r++)
		heap_free(&f->todo[r]);
	free(f->queued);
	f->queued = NULL;
}

int
graph_fuse(struct graph *g, const struct fuse_opts *o)
{
	struct fx f;
	int rc;

	for (size_t i = 0; i < g->nnodes; i++)
		if (!g->nodes[i]->types) {
			error("node \"%s\" has no types: run nnl-shape-infer "
			    "before nnl-fuse",
			    escape_tty_name(g->nodes[i]->id));
			return -1;
		}
	memset(&f, 0, sizeof f);
	f.g = g;
	f.o = o;
	uses_build(&f.u, g);
	f.queued = xcalloc(g->nnodes + 1, sizeof *f.queued);
	for (size_t i = 0; i < g->nnodes; i++)
		queue(&f, g->nodes[i]);
	for (;;) {
		int r = 0;

		if (o->noop)
			r = dropnoops(&f);
		if (!r && o->fold)
			r = foldconsts(&f);
		if (!r && o->norm)
			r = fusenorms(&f);
		if (!r && o->bn)
			r = foldbn(&f);
		if (!r && o->bias)
			r = mergebias(&f);
		if (!r && o->residual)
			r = fuseres(&f);
		if (!r && o->gelu)
			r = fusegelu(&f);
		if (!r && o->act)
			r = fuseswish(&f);
		if (!r && o->act)
			r = fuseact(&f);
		if (!r && o->trans)
			r = foldtrans(&f);
		if (r < 0) {
			finish(&f);
			uses_free(&f.u);
			return -1;
		}
		if (!r)
			break;
	}
	if ((o->winograd && winograd(&f) < 0) ||
	    (o->panels && filterpanels(&f) < 0) ||
	    (o->ihwo && filterihwo(&f) < 0)) {
		finish(&f);
		uses_free(&f.u);
		return -1;
	}
	rc = f.changes;
	finish(&f);
	prune(&f);
	uses_free(&f.u);
	return rc;
}
