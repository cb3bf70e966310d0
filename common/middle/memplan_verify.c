/*
 * memplan_verify: checks the memory plan a graph carries before code is
 * generated from it.  The plan is JSON anyone may have edited, and the
 * generated program writes where it says, so nothing in it is trusted:
 * every offset is an aligned integer, every operand and workspace lies
 * inside arenaBytes, and no two buffers live at the same step share a
 * byte.  Live ranges are recomputed from the node order as memplan.c
 * computes them, and the sharing it does is accepted exactly: an
 * elementwise op writing its first output over an input of the same
 * size whose buffer dies at that op, and reshape/identity aliasing an
 * input of the same size, both at the very same offset; a slice whose
 * bytes are a run of its input's (memplan_slice_view) exactly where
 * that run lies; and a concat's input that nothing reads after it,
 * exactly where it goes in the output, when the output is its inputs'
 * bytes one after the other.
 * Overlaps are found with a sweep over the steps and a treap of the
 * live buffers ordered by offset: O(n log n).
 */
#include "memplan.h"
#include "checked.h"
#include "escape.h"

#include "kernel.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* JSON numbers are doubles: integers are exact up to 2^53. */
#define MAXPLAN 9007199254740992.0

struct vbuf {
	uint64_t off, size;
	size_t first, last;	/* live steps, inclusive; nnodes: the end */
	const char *name;	/* operand, or NULL for a workspace */
	struct node *node;	/* producer */
	const char *over;	/* the last operand written over it */
};

struct verify {
	struct graph *g;
	struct vbuf *b;
	size_t nb;
	uint64_t arena, align;
	/* treap of live buffers by (offset, index) */
	size_t *l, *r;
	uint32_t *pri;
};

#define NIL SIZE_MAX

/* Byte size of a type, or UINT64_MAX when it does not fit 64 bits. */
static uint64_t
tbytes(const struct tdesc *t)
{
	uint64_t n = tdesc_numel(t);
	int bits = dtype_bits(t->dt);

	if (n == UINT64_MAX || bits == 0)
		return UINT64_MAX;
	if (bits == 4)
		return n / 2 + n % 2;
	return n > (UINT64_MAX - 1) / (uint64_t)(bits / 8) ? UINT64_MAX :
	    n * (uint64_t)(bits / 8);
}

/* A plan number: an integer in [0, 2^53], else -1. */
static int
plannum(const cJSON *v, uint64_t *out)
{
	double d;

	if (!cJSON_IsNumber(v))
		return -1;
	d = v->valuedouble;
	if (!isfinite(d) || d < 0 || d != floor(d) || d > MAXPLAN)
		return -1;
	*out = (uint64_t)d;
	return 0;
}

static const char *
what(const cJSON *v, char *buf, size_t len)
{
	char *s = v ? cJSON_PrintUnformatted(v) : NULL;

	snprintf(buf, len, "%s", s ? s : "nothing");
	free(s);
	return buf;
}

/* "x" (node "n") or the workspace of node "n" */
static void
describe(const struct verify *v, const struct vbuf *b, char *buf,
    size_t len)
{
	const char *end = b->last >= v->g->nnodes ? "the end" :
	    v->g->nodes[b->last]->id;

	if (b->name)
		snprintf(buf, len, "\"%s\" (arena bytes %llu to %llu, live "
		    "from node \"%s\" to %s%s%s%s%s%s)",
		    escape_tty_name(b->name),
		    (unsigned long long)b->off,
		    (unsigned long long)(b->off + b->size),
		    escape_tty_name(b->node->id),
		    b->last >= v->g->nnodes ? "" : "node \"",
		    escape_tty_name(end),
		    b->last >= v->g->nnodes ? "" : "\"",
		    b->over ? ", reused in place by \"" : "",
		    escape_tty_name(b->over ? b->over : ""),
		    b->over ? "\"" : "");
	else
		snprintf(buf, len, "the workspace of node \"%s\" (arena bytes "
		    "%llu to %llu)", escape_tty_name(b->node->id),
		    (unsigned long long)b->off,
		    (unsigned long long)(b->off + b->size));
}

/* Offset and size checked against the alignment and the arena. */
static int
place(struct verify *v, struct node *n, const char *name, const cJSON *j,
    uint64_t size, uint64_t *off)
{
	char w[64], who[1100];

	if (name)
		snprintf(who, sizeof who, "output \"%s\"",
		    escape_tty_name(name));
	else
		snprintf(who, sizeof who, "its workspace");
	if (plannum(j, off) != 0) {
		error("node \"%s\": the arena offset of %s is %s, not an "
		    "integer from 0 to 2^53", escape_tty_name(n->id), who,
		    what(j, w, sizeof w));
		return -1;
	}
	if (*off % v->align) {
		error("node \"%s\": the arena offset %llu of %s is not a "
		    "multiple of the plan's align %llu", escape_tty_name(n->id),
		    (unsigned long long)*off, who,
		    (unsigned long long)v->align);
		return -1;
	}
	if (size == UINT64_MAX) {
		error("node \"%s\": %s has a byte size beyond 2^64",
		    escape_tty_name(n->id),
		    who);
		return -1;
	}
	if (*off > v->arena || size > v->arena - *off) {
		error("node \"%s\": %s, %llu bytes at arena offset %llu, ends "
		    "beyond arenaBytes %llu", escape_tty_name(n->id), who,
		    (unsigned long long)size, (unsigned long long)*off,
		    (unsigned long long)v->arena);
		return -1;
	}
	return 0;
}

static size_t
addbuf(struct verify *v, uint64_t off, uint64_t size, size_t first,
    size_t last, const char *name, struct node *n)
{
	struct vbuf *b = &v->b[v->nb];

	b->off = off;
	b->size = size;
	b->first = first;
	b->last = last;
	b->name = name;
	b->node = n;
	b->over = NULL;
	return v->nb++;
}

/* Last step reading each node output; graph outputs live to the end. */
static size_t *
lastuses(struct graph *g, const size_t *slot0, size_t nslots)
{
	size_t *last = xcalloc(nslots + 1, sizeof *last);

	for (size_t i = 0; i < g->nnodes; i++)
		for (int k = 0; k < g->nodes[i]->nout; k++)
			last[slot0[i] + (size_t)k] = i;
	for (size_t i = 0; i < g->nnodes; i++) {
		const char **reads;
		int nr = node_reads(g->nodes[i], &reads);

		for (int k = 0; k < nr; k++) {
			struct operand *o = graph_find(g, reads[k]);
			size_t s;

			if (!o || o->kind != OPND_NODE)
				continue;
			if (o->producer->index >= i) {
				error("node \"%s\" reads \"%s\" before it is "
				    "computed: run nnl-reorder first",
				    escape_tty_name(g->nodes[i]->id),
				    escape_tty_name(reads[k]));
				free(reads);
				free(last);
				return NULL;
			}
			s = slot0[o->producer->index] + (size_t)o->outidx;
			if (last[s] < i)
				last[s] = i;
		}
		free(reads);
	}
	for (size_t i = 0; i < g->noutputs; i++) {
		struct operand *o = graph_find(g, g->outputs[i].ref);

		if (o && o->kind == OPND_NODE)
			last[slot0[o->producer->index] + (size_t)o->outidx] =
			    g->nnodes;
	}
	return last;
}

/* The buffer an output shares with an input, as memplan.c allows, or
 * NIL. */
static size_t
shared(struct verify *v, struct node *n, int k, uint64_t off,
    const size_t *bufof, const size_t *slot0, const uint64_t *soff)
{
	int alias = memplan_alias_op(n->op);
	uint64_t d;

	if (k != 0)
		return NIL;
	/* a slice's view: its run of the input's bytes, where it lies */
	if (memplan_slice_view(v->g, n, &d)) {
		struct operand *x = graph_find(v->g, n->in[0]);
		size_t xs = x && x->kind == OPND_NODE &&
		    x->producer->index < n->index ?
		    slot0[x->producer->index] + (size_t)x->outidx : NIL;

		if (xs != NIL && soff[xs] <= UINT64_MAX - d &&
		    soff[xs] + d == off)
			return bufof[xs];
	}
	for (int j = 0; j < n->nin; j++) {
		struct operand *x = graph_find(v->g, n->in[j]);
		size_t bi, xs;

		if (!x || x->kind != OPND_NODE ||
		    x->producer->index >= n->index ||
		    !(alias || memplan_inplace_node(v->g, n, j)))
			continue;
		xs = slot0[x->producer->index] + (size_t)x->outidx;
		bi = bufof[xs];
		if (v->b[bi].off != off || soff[xs] != off ||
		    tdesc_numel(operand_type(x)) != tdesc_numel(&n->types[0]) ||
		    tbytes(operand_type(x)) != tbytes(&n->types[0]))
			continue;
		if (alias || v->b[bi].last <= n->index)
			return bi;
	}
	return NIL;
}

/*
 * The inputs of concat n that memplan.c wrote where they go in its
 * output (buffer y at off, size bytes): every dimension before the
 * axis 1, the input exactly at its place, its buffer read by nothing
 * after n.  Each becomes part of y, which then lives from the first
 * of them (the input's own buffer is left empty).
 */
static void
concat_inputs(struct verify *v, struct node *n, size_t y, uint64_t off,
    uint64_t size, const size_t *bufof, const size_t *slot0)
{
	uint64_t at = 0;

	if (!memplan_concat_flat(n))
		return;
	for (int j = 0; j < n->nin; j++) {
		struct operand *x = graph_find(v->g, n->in[j]);
		uint64_t nb;
		size_t bi;

		if (!x || !operand_type(x) ||
		    (nb = tbytes(operand_type(x))) == UINT64_MAX ||
		    nb > size - at)
			return;
		if (x->kind == OPND_NODE && x->producer->index < n->index &&
		    (bi = bufof[slot0[x->producer->index] +
		    (size_t)x->outidx]) != y && v->b[bi].size == nb &&
		    v->b[bi].off == off + at && v->b[bi].last == n->index) {
			v->b[bi].size = 0;
			if (v->b[y].first > v->b[bi].first)
				v->b[y].first = v->b[bi].first;
		}
		at += nb;
	}
}

/* Buffers of every node output and workspace, with their live steps. */
static int
buffers(struct verify *v, int64_t (*scratch)(struct graph *, struct node *))
{
	struct graph *g = v->g;
	size_t nslots = 0, *slot0, *bufof, *last;
	uint64_t *soff;		/* per slot: its offset */
	int rc = -1;

	slot0 = xmalloc((g->nnodes + 1) * sizeof *slot0);
	for (size_t i = 0; i < g->nnodes; i++) {
		g->nodes[i]->index = i;
		slot0[i] = nslots;
		nslots += (size_t)g->nodes[i]->nout;
		if (!g->nodes[i]->types) {
			error("node \"%s\" has no types: run nnl-shape-infer "
			    "first", escape_tty_name(g->nodes[i]->id));
			free(slot0);
			return -1;
		}
	}
	bufof = xmalloc((nslots + 1) * sizeof *bufof);
	soff = xmalloc((nslots + 1) * sizeof *soff);
	v->b = xcalloc(nslots + g->nnodes + 1, sizeof *v->b);
	if (!(last = lastuses(g, slot0, nslots)))
		goto out;
	for (size_t i = 0; i < g->nnodes; i++) {
		struct node *n = g->nodes[i];
		const cJSON *a = cJSON_GetObjectItemCaseSensitive(n->extra,
		    "arena");
		int64_t need = scratch ? scratch(g, n) : 0;
		uint64_t off;

		if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) != n->nout) {
			error("node \"%s\" has no arena offsets: run "
			    "nnl-plan-memory first", escape_tty_name(n->id));
			goto out;
		}
		for (int k = 0; k < n->nout; k++) {
			size_t s = slot0[i] + (size_t)k, bi;
			uint64_t size = tbytes(&n->types[k]);

			if (place(v, n, n->out[k], cJSON_GetArrayItem(a, k),
			    size, &off) != 0)
				goto out;
			soff[s] = off;
			bi = shared(v, n, k, off, bufof, slot0, soff);
			if (bi == NIL)
				bi = addbuf(v, off, size, i, i, n->out[k], n);
			else
				v->b[bi].over = n->out[k];
			if (v->b[bi].last < last[s])
				v->b[bi].last = last[s];
			bufof[s] = bi;
			if (k == 0 && size != UINT64_MAX)	/* a concat */
				concat_inputs(v, n, bi, off, size, bufof,
				    slot0);
		}
		if (need < 0)
			goto out;
		if (need > 0) {
			const cJSON *sc = cJSON_GetObjectItemCaseSensitive(
			    n->extra, "scratch");

			if (!sc) {
				error("node \"%s\" needs %lld bytes of "
				    "workspace the plan does not give: run "
				    "nnl-plan-memory again",
				    escape_tty_name(n->id),
				    (long long)need);
				goto out;
			}
			if (place(v, n, NULL, sc, (uint64_t)need, &off) != 0)
				goto out;
			addbuf(v, off, (uint64_t)need, i, i, NULL, n);
		}
	}
	rc = 0;
out:
	free(slot0);
	free(bufof);
	free(soff);
	free(last);
	return rc;
}

static int
less(const struct verify *v, size_t a, size_t b)
{
	return v->b[a].off != v->b[b].off ? v->b[a].off < v->b[b].off : a < b;
}

/* Split t into the keys before x (and x itself when incl) and the
 * others. */
static void
split(struct verify *v, size_t t, size_t x, int incl, size_t *lo,
    size_t *hi)
{
	if (t == NIL) {
		*lo = *hi = NIL;
	} else if (less(v, t, x) || (incl && t == x)) {
		split(v, v->r[t], x, incl, &v->r[t], hi);
		*lo = t;
	} else {
		split(v, v->l[t], x, incl, lo, &v->l[t]);
		*hi = t;
	}
}

static size_t
merge(struct verify *v, size_t a, size_t b)
{
	if (a == NIL)
		return b;
	if (b == NIL)
		return a;
	if (v->pri[a] > v->pri[b]) {
		v->r[a] = merge(v, v->r[a], b);
		return a;
	}
	v->l[b] = merge(v, a, v->l[b]);
	return b;
}

static int
clash(struct verify *v, size_t a, size_t b)
{
	char x[4096], y[4096];	/* three names, each at most ~1 KiB escaped */

	describe(v, &v->b[a], x, sizeof x);
	describe(v, &v->b[b], y, sizeof y);
	error("memory plan: %s overlaps %s", x, y);
	return -1;
}

/* Sweep the steps: a buffer joins the live set at its first step,
 * after those whose last step has passed left it, and must not touch
 * its neighbours by offset. */
static int
sweep(struct verify *v)
{
	size_t n = v->g->nnodes + 2, root = NIL;
	size_t *byfirst = xmalloc((v->nb + 1) * sizeof *byfirst);
	size_t *bylast = xmalloc((v->nb + 1) * sizeof *bylast);
	size_t *cf = xcalloc(n + 1, sizeof *cf), *cl = xcalloc(n + 1,
	    sizeof *cl);
	size_t fi = 0, li = 0;
	uint32_t seed = 2463534242u;
	int rc = 0;

	v->l = xmalloc((v->nb + 1) * sizeof *v->l);
	v->r = xmalloc((v->nb + 1) * sizeof *v->r);
	v->pri = xmalloc((v->nb + 1) * sizeof *v->pri);
	/* counting sorts by first and by last step */
	for (size_t i = 0; i < v->nb; i++) {
		cf[v->b[i].first + 1]++;
		cl[v->b[i].last + 1]++;
		v->l[i] = v->r[i] = NIL;
		seed ^= seed << 13;
		seed ^= seed >> 17;
		seed ^= seed << 5;
		v->pri[i] = seed;
	}
	for (size_t s = 1; s <= n; s++) {
		cf[s] += cf[s - 1];
		cl[s] += cl[s - 1];
	}
	for (size_t i = 0; i < v->nb; i++) {
		byfirst[cf[v->b[i].first]++] = i;
		bylast[cl[v->b[i].last]++] = i;
	}
	for (size_t step = 0; step < n - 1 && rc == 0; step++) {
		for (; li < v->nb && v->b[bylast[li]].last < step; li++) {
			size_t x = bylast[li], a, b, m, c;

			if (!v->b[x].size)
				continue;
			split(v, root, x, 0, &a, &b);
			split(v, b, x, 1, &m, &c);
			if (m != x)
				BUG("live buffer not in the set");
			root = merge(v, a, c);
		}
		for (; fi < v->nb && v->b[byfirst[fi]].first <= step &&
		    rc == 0; fi++) {
			size_t x = byfirst[fi], a, b, p, q;

			if (!v->b[x].size)
				continue;
			split(v, root, x, 0, &a, &b);
			for (p = a; p != NIL && v->r[p] != NIL; p = v->r[p])
				;
			for (q = b; q != NIL && v->l[q] != NIL; q = v->l[q])
				;
			if (p != NIL && v->b[p].off + v->b[p].size >
			    v->b[x].off)
				rc = clash(v, x, p);
			else if (q != NIL && v->b[x].off + v->b[x].size >
			    v->b[q].off)
				rc = clash(v, x, q);
			root = merge(v, merge(v, a, x), b);
		}
	}
	free(byfirst);
	free(bylast);
	free(cf);
	free(cl);
	free(v->l);
	free(v->r);
	free(v->pri);
	return rc;
}

int
memplan_verify(struct graph *g, int64_t (*scratch)(struct graph *g,
    struct node *n))
{
	const cJSON *mem = cJSON_GetObjectItemCaseSensitive(g->extra,
	    "memory");
	const cJSON *al = cJSON_GetObjectItemCaseSensitive(mem, "align");
	const cJSON *ab = cJSON_GetObjectItemCaseSensitive(mem,
	    "arenaBytes");
	struct verify v;
	char w[64];
	int rc;

	memset(&v, 0, sizeof v);
	v.g = g;
	if (!cJSON_IsObject(mem)) {
		error("%s: the graph has no memory plan: run nnl-plan-memory "
		    "first", g->src);
		return -1;
	}
	if (plannum(al, &v.align) != 0 || v.align == 0 ||
	    (v.align & (v.align - 1)) || v.align > 1u << 30) {
		error("%s: memory plan: align is %s, not a power of two up "
		    "to 2^30", g->src, what(al, w, sizeof w));
		return -1;
	}
	if (plannum(ab, &v.arena) != 0) {
		error("%s: memory plan: arenaBytes is %s, not an integer from "
		    "0 to 2^53", g->src, what(ab, w, sizeof w));
		return -1;
	}
	/* the arena is one array of the generated program: the limit on
	 * any one tensor holds for it too */
	if (v.arena > checked_limit()) {
		error("%s: memory.arenaBytes is not a size from 0 to the "
		    "limit of %llu bytes (--max-tensor-bytes, "
		    "NNL_MAX_TENSOR_BYTES)", g->src,
		    (unsigned long long)checked_limit());
		return -1;
	}
	rc = buffers(&v, scratch);
	if (rc == 0)
		rc = sweep(&v);
	free(v.b);
	return rc;
}

int64_t
memplan_scratch(struct graph *g, struct node *n)
{
	struct kcall k;
	uint64_t s;

	if (kernel_prepare(g, n, &k) != 0)
		return -1;
	s = k.scratch;
	kcall_free(&k);
	if ((double)s > MAXPLAN) {
		error("node \"%s\": its kernel asks for %llu bytes of "
		    "workspace", escape_tty_name(n->id),
		    (unsigned long long)s);
		return -1;
	}
	return (int64_t)s;
}
