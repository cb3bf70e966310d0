/*
 * memplan: places every node output in one arena.  Buffers are live
 * from the step that produces them to the last step that reads them
 * (graph outputs to the end); an elementwise op, or a depthwise
 * convolution of small planes, may take over the buffer of an input
 * whose life ends at that op (memplan_inplace_node), reshape/identity
 * alias their input, a slice whose bytes are a run of its input's is a
 * view into the input's buffer (memplan_slice_view), and a concat's
 * inputs may be written where they go in its output.  Offsets come
 * from greedy best-fit placement tried in several orders (by size, by
 * start, by conflict), keeping the smallest arena; the lower bound is
 * the most bytes live at once.
 */
#include "memplan.h"
#include "escape.h"

#include <stdlib.h>
#include <string.h>

#include "checked.h"

struct buffer {
	uint64_t size;		/* aligned; 0 inside a concat's (in) */
	size_t first, last;	/* live steps, inclusive */
	uint64_t off;
	int placed;
	int in, whole;		/* inside a concat's buffer; such a one */
	size_t parent;		/* that buffer, where in */
	uint64_t delta;		/* the bytes before it there */
};

uint64_t
memplan_bytes(const struct tdesc *t)
{
	return dtype_bytes(t->dt, tdesc_numel(t));
}

static uint64_t
alignup(uint64_t v, unsigned a)
{
	return (v + a - 1) / a * a;
}

/* Ops whose kernel may write its output over an input of the same size:
 * elementwise, reading each element once before writing it.  With the
 * depthwise convolutions of memplan_inplace_node, the plan check
 * (memplan_verify.c) accepts exactly these. */
int
memplan_inplace_op(enum op op)
{
	switch (op) {
	case OP_ADD: case OP_SUB: case OP_MUL: case OP_DIV: case OP_MAX:
	case OP_MIN: case OP_POW: case OP_ABS: case OP_CEIL: case OP_COS:
	case OP_ERF: case OP_EXP: case OP_FLOOR: case OP_LOG: case OP_NEG:
	case OP_RECIPROCAL: case OP_ROUND_EVEN: case OP_SIN: case OP_SIGN:
	case OP_SQRT: case OP_TAN: case OP_ELU: case OP_GELU:
	case OP_HARD_SIGMOID: case OP_HARD_SWISH: case OP_LEAKY_RELU:
	case OP_LINEAR: case OP_RELU: case OP_SIGMOID: case OP_SOFTPLUS:
	case OP_SOFTSIGN: case OP_TANH: case OP_CLAMP: case OP_PRELU:
		return 1;
	default:
		return 0;
	}
}

/*
 * Whether node n may write its output over its input j (of the same
 * bytes, dead after n): an elementwise op, or a float32 nchw depthwise
 * 3 x 3 conv2d at stride 1 whose output is its input's size, on planes
 * narrower than the widest vector (16) and of at most NNL_DW_BLOCK
 * pixels padded: rt/f32-dwconv/dwconv.c takes such planes in blocks of channels,
 * reading a block whole before it writes its outputs, and threads take
 * whole blocks.  Its output is then written where this core just
 * wrote the input, not over lines the other cores hold (mobilenet_v2's
 * 384 channels at 14 x 14 at two threads: 36 -> 19 us).  Wider planes
 * keep their own output: the kernel that reads their rows straight
 * from the image (the faster one there) cannot write over it.  Not
 * where the node reads the input again (as its residual), after
 * writing over it.
 */
int
memplan_inplace_node(const struct graph *g, const struct node *n, int j)
{
	const struct tdesc *x, *y;
	const struct operand *f;
	const char **reads;
	int nr, again = 0;

	if (memplan_inplace_op(n->op))
		return 1;
	if (n->op != OP_CONV2D || j != 0 || n->nin < 2 || !n->types ||
	    !(x = operand_type(graph_find(g, n->in[0]))) ||
	    !(f = graph_find(g, n->in[1])))
		return 0;
	y = &n->types[0];
	if (x->dt != DT_FLOAT32 || x->rank != 4 || !tdesc_same(x, y) ||
	    strcmp(node_optstr(n, "inputLayout", "nchw"), "nchw") ||
	    node_optnum(n, "groups", 1) != (double)x->dims[1] ||
	    operand_type(f)->rank != 4 ||
	    tdesc_numel(operand_type(f)) != (uint64_t)(9 * x->dims[1]) ||
	    !node_optall(n, "strides", 1, 1) ||
	    !node_optall(n, "dilations", 1, 1) ||
	    !node_optall(n, "padding", 1, 0) || x->dims[3] > 15 ||
	    (x->dims[2] + 2) * (x->dims[3] + 2) > 1024)
		return 0;
	nr = node_reads(n, &reads);
	for (int k = 1; k < nr; k++)
		again |= strcmp(reads[k], n->in[0]) == 0;
	free(reads);
	return !again;
}

int
memplan_alias_op(enum op op)
{
	return op == OP_RESHAPE || op == OP_IDENTITY;
}

/* Element i of option array name of n, or -1 where it has none. */
static double
optat(const struct node *n, const char *name, int i)
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(n->options, name);
	const cJSON *v = cJSON_IsArray(a) ? cJSON_GetArrayItem(a, i) : NULL;

	return cJSON_IsNumber(v) ? v->valuedouble : -1;
}

int
memplan_slice_view(const struct graph *g, const struct node *n,
    uint64_t *delta)
{
	const struct operand *x;
	const struct tdesc *t, *y;
	uint64_t inner = 1;
	int r, cut = -1;

	if (n->op != OP_SLICE || n->nin < 1 || !n->types ||
	    !(x = graph_find(g, n->in[0])) || !(t = operand_type(x)) ||
	    dtype_bits(t->dt) < 8 || dtype_bits(t->dt) % 8)
		return 0;
	y = &n->types[0];
	r = t->rank;
	if (y->rank != r)
		return 0;
	for (int i = 0; i < r; i++) {
		double st = optat(n, "starts", i), sd = optat(n, "strides", i);

		if (st < 0 || (sd >= 0 && sd != 1 && y->dims[i] > 1))
			return 0;
		if (y->dims[i] == t->dims[i] && st == 0)
			continue;
		if (cut >= 0)
			return 0;	/* a second axis cut */
		cut = i;
	}
	for (int i = 0; i < cut; i++)
		if (t->dims[i] != 1)
			return 0;	/* a whole axis before the cut */
	if (cut < 0) {
		*delta = 0;
		return 1;
	}
	/* rows before the cut 1, so the run starts start[cut] rows in */
	for (int i = cut + 1; i < r; i++)
		inner *= (uint64_t)t->dims[i];
	*delta = (uint64_t)optat(n, "starts", cut) * inner *
	    (uint64_t)(dtype_bits(t->dt) / 8);
	return 1;
}

int
memplan_concat_flat(const struct node *n)
{
	const struct tdesc *t = n->types ? &n->types[0] : NULL;
	const cJSON *ax = cJSON_GetObjectItemCaseSensitive(n->options,
	    "axis");

	if (n->op != OP_CONCAT || !t || !cJSON_IsNumber(ax) ||
	    !(ax->valuedouble >= 0 && ax->valuedouble < t->rank) ||
	    ax->valuedouble != (double)(int)ax->valuedouble)
		return 0;
	for (int d = 0; d < (int)ax->valuedouble; d++)
		if (t->dims[d] != 1)
			return 0;
	return 1;
}

struct plan {
	struct graph *g;
	struct buffer *b;
	size_t nb;
	size_t *bufof;		/* per (node, output) slot: buffer index */
	uint64_t *sdelta;	/* per slot: its bytes' offset in it (a
				 * slice's view of its input's bytes) */
	size_t *slot0;		/* first slot of node i */
	size_t *scratchof;	/* workspace buffer of node i, or SIZE_MAX */
	size_t nsteps;
};

/* Buffer of an operand, or SIZE_MAX for inputs and consts. */
static size_t
bufferof(struct plan *p, const char *name)
{
	struct operand *o = graph_find(p->g, name);

	if (!o || o->kind != OPND_NODE)
		return SIZE_MAX;
	return p->bufof[p->slot0[o->producer->index] + (size_t)o->outidx];
}

/* The offset of an operand's bytes in its buffer (nonzero only for a
 * slice's view), 0 for inputs and consts. */
static uint64_t
deltaof(struct plan *p, const char *name)
{
	struct operand *o = graph_find(p->g, name);

	if (!o || o->kind != OPND_NODE)
		return 0;
	return p->sdelta[p->slot0[o->producer->index] + (size_t)o->outidx];
}

/*
 * The placed buffers, by life: a segment tree over the steps holds each
 * at the O(log n) nodes that cover its life, so the ones live at a step
 * lie on one root-to-leaf path; born[s] lists those whose life starts
 * at s.  The buffers live at some step of x's life are those live at
 * its first step and those born later in it: found in O(log n) plus
 * their number, where scanning every buffer made placement quadratic.
 */
struct idlist {
	size_t *v, n, cap;
};

struct live {
	size_t leaves;		/* a power of two above the last step */
	struct idlist *seg;	/* 2 * leaves nodes; 1 is the root */
	struct idlist *born;	/* per step */
	size_t nborn;
};

/* An interval of the arena that a placed buffer occupies. */
struct iv {
	uint64_t lo, hi;
};

static void
idpush(struct idlist *l, size_t id)
{
	GROW(l->v, l->cap, l->n + 1);
	l->v[l->n++] = id;
}

static void
live_init(struct live *L, size_t nsteps)
{
	L->leaves = 1;
	while (L->leaves <= nsteps)
		L->leaves *= 2;
	L->seg = xcalloc(2 * L->leaves, sizeof *L->seg);
	L->nborn = nsteps + 1;
	L->born = xcalloc(L->nborn, sizeof *L->born);
}

static void
live_clear(struct live *L)
{
	for (size_t i = 0; i < 2 * L->leaves; i++)
		L->seg[i].n = 0;
	for (size_t i = 0; i < L->nborn; i++)
		L->born[i].n = 0;
}

static void
live_free(struct live *L)
{
	for (size_t i = 0; i < 2 * L->leaves; i++)
		free(L->seg[i].v);
	for (size_t i = 0; i < L->nborn; i++)
		free(L->born[i].v);
	free(L->seg);
	free(L->born);
}

static void
live_add(struct live *L, const struct buffer *b, size_t id)
{
	size_t l = b->first + L->leaves, r = b->last + L->leaves + 1;

	for (; l < r; l /= 2, r /= 2) {
		if (l & 1)
			idpush(&L->seg[l++], id);
		if (r & 1)
			idpush(&L->seg[--r], id);
	}
	idpush(&L->born[b->first], id);
}

static int
bylo(const void *a, const void *b)
{
	const struct iv *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* The arena intervals of the placed buffers live with x, sorted by
 * offset (the order among equal offsets does not change a placement). */
static size_t
livewith(const struct live *L, const struct buffer *b,
    const struct buffer *x, struct iv *iv)
{
	size_t n = 0;

	for (size_t i = x->first + L->leaves; i >= 1; i /= 2)
		for (size_t k = 0; k < L->seg[i].n; k++) {
			iv[n].lo = b[L->seg[i].v[k]].off;
			iv[n].hi = iv[n].lo + b[L->seg[i].v[k]].size;
			n++;
		}
	for (size_t s = x->first + 1; s <= x->last; s++)
		for (size_t k = 0; k < L->born[s].n; k++) {
			iv[n].lo = b[L->born[s].v[k]].off;
			iv[n].hi = iv[n].lo + b[L->born[s].v[k]].size;
			n++;
		}
	qsort(iv, n, sizeof *iv, bylo);
	return n;
}

/* Best-fit placement in the given order; returns the arena size. */
static uint64_t
place(struct live *L, struct buffer *b, size_t nb, const size_t *order,
    unsigned align, int firstfit)
{
	uint64_t top = 0;
	struct iv *iv = xmalloc((nb + 1) * sizeof *iv);

	live_clear(L);
	for (size_t i = 0; i < nb; i++)
		b[i].placed = 0;
	for (size_t k = 0; k < nb; k++) {
		struct buffer *x = &b[order[k]];
		size_t n = 0;
		uint64_t best = UINT64_MAX, bestgap = UINT64_MAX, at = 0;

		if (x->size == 0) {
			x->off = 0;
			x->placed = 1;
			continue;
		}
		/* placed buffers live at the same time, sorted by offset */
		n = livewith(L, b, x, iv);
		/* the smallest gap between them that fits, else the end */
		for (size_t i = 0; i < n; i++) {
			uint64_t gap = iv[i].lo >= at ? iv[i].lo - at : 0;

			if (gap >= x->size && gap < bestgap) {
				best = at;
				bestgap = gap;
				if (firstfit)
					break;
			}
			if (iv[i].hi > at)
				at = alignup(iv[i].hi, align);
		}
		if (best == UINT64_MAX)
			best = at;
		x->off = best;
		x->placed = 1;
		live_add(L, x, order[k]);
		if (best + x->size > top)
			top = best + x->size;
	}
	free(iv);
	return top;
}


/*
 * Place every buffer under a target arena size, each either as low or
 * as high as it fits (dir[i]), in the given order.  Returns 0 when all
 * fit, -1 otherwise.
 */
static int
place_under(struct live *L, struct buffer *b, size_t nb, const size_t *order,
    unsigned align, uint64_t target, const char *dir)
{
	struct iv *iv = xmalloc((nb + 1) * sizeof *iv);
	int rc = 0;

	live_clear(L);
	for (size_t i = 0; i < nb; i++)
		b[i].placed = 0;
	for (size_t k = 0; k < nb && rc == 0; k++) {
		struct buffer *x = &b[order[k]];
		size_t n = 0;
		uint64_t at = 0, lo = UINT64_MAX, hi = UINT64_MAX;

		x->placed = 1;
		x->off = 0;
		if (x->size == 0)
			continue;
		n = livewith(L, b, x, iv);
		/* free gaps [at, next.lo), then [at, target) */
		for (size_t i = 0; i <= n; i++) {
			uint64_t end = i < n ? iv[i].lo : target;

			if (end > at && end - at >= x->size) {
				if (lo == UINT64_MAX)
					lo = at;
				/* highest aligned start in this gap */
				hi = (end - x->size) / align * align;
				if (hi < at)
					hi = at;
			}
			if (i < n && iv[i].hi > at)
				at = alignup(iv[i].hi, align);
		}
		if (lo == UINT64_MAX) {
			rc = -1;
		} else {
			x->off = dir[order[k]] ? hi : lo;
			live_add(L, x, order[k]);
		}
	}
	free(iv);
	return rc;
}

static struct buffer *sortbase;

static int
bysize(const void *a, const void *b)
{
	const struct buffer *x = &sortbase[*(const size_t *)a];
	const struct buffer *y = &sortbase[*(const size_t *)b];

	if (x->size != y->size)
		return x->size < y->size ? 1 : -1;
	return x->first < y->first ? -1 : x->first > y->first;
}

static int
bystart(const void *a, const void *b)
{
	const struct buffer *x = &sortbase[*(const size_t *)a];
	const struct buffer *y = &sortbase[*(const size_t *)b];

	if (x->first != y->first)
		return x->first < y->first ? -1 : 1;
	return x->size < y->size ? 1 : x->size > y->size ? -1 : 0;
}

static int
bylength(const void *a, const void *b)
{
	const struct buffer *x = &sortbase[*(const size_t *)a];
	const struct buffer *y = &sortbase[*(const size_t *)b];
	uint64_t lx = (x->last - x->first + 1) * x->size;
	uint64_t ly = (y->last - y->first + 1) * y->size;

	if (lx != ly)
		return lx < ly ? 1 : -1;
	return x->first < y->first ? -1 : x->first > y->first;
}

static uint64_t jitter_state;
static double *jitter;

/* Size scaled by a random factor in [0.5, 1.5): a perturbed order. */
static int
byjittered(const void *a, const void *b)
{
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	double x = (double)sortbase[i].size * jitter[i];
	double y = (double)sortbase[j].size * jitter[j];

	return x < y ? 1 : x > y ? -1 : (i > j) - (i < j);
}

static double
uniform(void)
{
	jitter_state = jitter_state * 6364136223846793005ull +
	    1442695040888963407ull;
	return (double)(jitter_state >> 11) / 9007199254740992.0;
}

/*
 * Try the classic orders with best and first fit, then perturbed
 * size orders while the work stays small (a fixed seed keeps the plan
 * reproducible); leave the smallest layout in p->b.
 */
static uint64_t
layout(struct plan *p, unsigned align, uint64_t lower)
{
	int (*cmps[])(const void *, const void *) = { bysize, bystart,
	    bylength };
	size_t *order = xmalloc((p->nb + 1) * sizeof *order);
	uint64_t *best = xmalloc((p->nb + 1) * sizeof *best), bestsz = 0;
	size_t tries = 2 * sizeof cmps / sizeof *cmps, extra;
	int have = 0;
	struct live L;

	live_init(&L, p->nsteps);
	jitter = xmalloc((p->nb + 1) * sizeof *jitter);
	jitter_state = 0x9e3779b97f4a7c15ull;
	/* perturbed tries: about 2^26 pair checks in all */
	extra = p->nb ? (size_t)(67108864.0 / ((double)p->nb * p->nb)) : 0;
	if (extra > 128)
		extra = 128;
	for (size_t t = 0; t < tries + extra; t++) {
		uint64_t sz;

		for (size_t i = 0; i < p->nb; i++) {
			order[i] = i;
			jitter[i] = 0.5 + uniform();
		}
		sortbase = p->b;
		qsort(order, p->nb, sizeof *order, t < tries ?
		    cmps[t / 2] : byjittered);
		sz = place(&L, p->b, p->nb, order, align, (int)(t & 1));
		if (!have || sz < bestsz) {
			have = 1;
			bestsz = sz;
			for (size_t i = 0; i < p->nb; i++)
				best[i] = p->b[i].off;
		}
	}
	/* Then ever smaller targets below the best layout, each tried
	 * with random orders and sides, while the budget lasts. */
	if (p->nb > 1 && bestsz > lower) {
		char *dir = xmalloc(p->nb + 1);
		double work = (double)p->nb * (double)p->nb;
		size_t budget = (size_t)(536870912.0 / work), r;
		uint64_t step = alignup(lower / 200 + 1, align);

		if (budget > 65536)
			budget = 65536;
		while (budget && bestsz > lower) {
			uint64_t t = bestsz > step ? bestsz - step : 0;

			if (t < lower)
				t = lower;
			for (r = 0; r < 2048 && budget; r++, budget--) {
				for (size_t i = 0; i < p->nb; i++) {
					order[i] = i;
					jitter[i] = 0.25 + 1.5 * uniform();
					dir[i] = uniform() < 0.5;
				}
				sortbase = p->b;
				qsort(order, p->nb, sizeof *order, byjittered);
				if (place_under(&L, p->b, p->nb, order, align,
				    t, dir) == 0)
					break;
			}
			if (r == 2048 || !budget)
				break;
			bestsz = 0;
			for (size_t i = 0; i < p->nb; i++) {
				best[i] = p->b[i].off;
				if (best[i] + p->b[i].size > bestsz)
					bestsz = best[i] + p->b[i].size;
			}
		}
		free(dir);
	}
	for (size_t i = 0; i < p->nb; i++)
		p->b[i].off = best[i];
	live_free(&L);
	free(jitter);
	free(order);
	free(best);
	return bestsz;
}

/*
 * Every buffer is within the tensor limit (checked_graph, shape_node,
 * the workspace check above); their sum, aligned, must stay far from
 * 2^64 too, so that no offset, gap or end computed below wraps.
 */
static int
bounded(struct plan *p, unsigned align)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < p->nb; i++)
		if (checked_add_u64(sum, p->b[i].size + align, &sum) != 0 ||
		    sum > CHECKED_MAX_LIMIT) {
			error("%s: the graph's buffers total more than 2^62 "
			    "bytes", p->g->src);
			return -1;
		}
	return 0;
}

static uint64_t
lowerbound(const struct plan *p)
{
	uint64_t most = 0;
	int64_t *delta = xcalloc(p->nsteps + 2, sizeof *delta);
	int64_t live = 0;

	for (size_t i = 0; i < p->nb; i++) {
		delta[p->b[i].first] += (int64_t)p->b[i].size;
		delta[p->b[i].last + 1] -= (int64_t)p->b[i].size;
	}
	for (size_t s = 0; s <= p->nsteps; s++) {
		live += delta[s];
		if ((uint64_t)live > most)
			most = (uint64_t)live;
	}
	free(delta);
	return most;
}

/* Last step reading each slot; graph outputs live to the end. */
static size_t *
lastuses(struct plan *p, size_t nslots)
{
	struct graph *g = p->g;
	size_t *last = xcalloc(nslots + 1, sizeof *last);

	for (size_t i = 0; i < g->nnodes; i++)
		for (int k = 0; k < g->nodes[i]->nout; k++)
			last[p->slot0[i] + (size_t)k] = i;
	for (size_t i = 0; i < g->nnodes; i++) {
		const char **reads;
		int nr = node_reads(g->nodes[i], &reads);

		for (int k = 0; k < nr; k++) {
			struct operand *o = graph_find(g, reads[k]);
			size_t s;

			if (!o || o->kind != OPND_NODE)
				continue;
			s = p->slot0[o->producer->index] + (size_t)o->outidx;
			if (last[s] < i)
				last[s] = i;
		}
		free(reads);
	}
	for (size_t i = 0; i < g->noutputs; i++) {
		struct operand *o = graph_find(g, g->outputs[i].ref);

		if (o && o->kind == OPND_NODE)
			last[p->slot0[o->producer->index] +
			    (size_t)o->outidx] = g->nnodes;
	}
	return last;
}

/*
 * A concat's inputs written in place, where its output is their bytes
 * one after the other (every dimension before the axis is 1): the
 * output's buffer s takes in each input whose bytes nothing reads
 * after the concat, whose buffer is its own (not shared with another
 * input, not already a concat's or holding one) and whose place in
 * the output is aligned.  The output then lives from the first of
 * them; the concat copies only the others (rt/tensor/tensor.c skips an input
 * already where it goes).
 */
static void
concat_inputs(struct plan *p, struct node *n, size_t i, size_t s,
    unsigned align)
{
	uint64_t at = 0;

	if (!memplan_concat_flat(n))
		return;
	for (int j = 0; j < n->nin; j++) {
		size_t bi = bufferof(p, n->in[j]);
		const struct tdesc *it = operand_type(graph_find(p->g,
		    n->in[j]));
		uint64_t nb = it ? memplan_bytes(it) : 0;
		int twice = 0;

		for (int k = 0; k < n->nin; k++)
			if (k != j && bufferof(p, n->in[k]) == bi)
				twice = 1;
		if (it && bi != SIZE_MAX && bi != s && !twice &&
		    deltaof(p, n->in[j]) == 0 &&
		    !p->b[bi].in && !p->b[bi].whole && p->b[bi].last == i &&
		    at % align == 0 && p->b[bi].size == alignup(nb, align)) {
			p->b[bi].in = 1;
			p->b[bi].parent = s;
			p->b[bi].delta = at;
			p->b[bi].size = 0;
			if (p->b[s].first > p->b[bi].first)
				p->b[s].first = p->b[bi].first;
			p->b[s].whole = 1;
		}
		at += nb;
	}
}

/* Whether node n, at i, reads only what is computed before it. */
static int
readsbefore(struct plan *p, struct node *n, size_t i)
{
	struct graph *g = p->g;
	const char **reads;
	int nr = node_reads(n, &reads);

	for (int k = 0; k < nr; k++) {
		struct operand *x = graph_find(g, reads[k]);

		if (x && x->kind == OPND_NODE && x->producer->index >= i) {
			error("node \"%s\" reads \"%s\" before it is "
			    "computed: run nnl-reorder first",
			    escape_tty_name(n->id), escape_tty_name(reads[k]));
			free(reads);
			return -1;
		}
	}
	free(reads);
	return 0;
}

/*
 * Output k of node i: the buffer of an input it aliases or overwrites
 * in place, else a new one; it lives until last, the step of its last
 * reader.
 */
static void
outbuffer(struct plan *p, const struct memplan_opts *o, size_t i, int k,
    size_t last, int *ninplace)
{
	struct graph *g = p->g;
	struct node *n = g->nodes[i];
	size_t s = p->slot0[i] + (size_t)k, take = SIZE_MAX;
	uint64_t sz = alignup(memplan_bytes(&n->types[k]), o->align);
	int alias = memplan_alias_op(n->op);
	uint64_t d;

	/* a slice whose bytes are a run of its input's: a view into the
	 * input's buffer, where aligned */
	if (k == 0 && memplan_slice_view(g, n, &d) &&
	    (take = bufferof(p, n->in[0])) != SIZE_MAX && !p->b[take].in &&
	    (d += deltaof(p, n->in[0])) % o->align == 0) {
		alias = 1;
		p->sdelta[s] = d;
	} else {
		take = SIZE_MAX;
	}
	for (int j = 0; k == 0 && take == SIZE_MAX && j < n->nin &&
	    (alias || (o->inplace && memplan_inplace_node(g, n, j))); j++) {
		size_t bi = bufferof(p, n->in[j]);
		const struct tdesc *it = operand_type(graph_find(g, n->in[j]));

		/* the same bytes, element for element: an input broadcast
		 * to the output would be overwritten before it is read
		 * through */
		if (bi == SIZE_MAX || p->b[bi].size != sz ||
		    deltaof(p, n->in[j]) != 0 ||
		    tdesc_numel(it) != tdesc_numel(&n->types[k]) ||
		    memplan_bytes(it) != memplan_bytes(&n->types[k]))
			continue;
		/* an alias shares the bytes; an in-place write needs the
		 * input dead after here */
		if (alias || p->b[bi].last <= i) {
			take = bi;
			break;
		}
	}
	if (take == SIZE_MAX) {
		take = p->nb++;
		p->b[take].size = sz;
		p->b[take].first = i;
		p->b[take].last = i;
	} else if (!alias) {
		(*ninplace)++;
	}
	if (p->b[take].last < last)
		p->b[take].last = last;
	p->bufof[s] = take;
	if (k == 0 && o->inplace)	/* a concat */
		concat_inputs(p, n, i, take, o->align);
}

/* The workspace node i's kernel needs, a buffer of its own for the
 * node's step. */
static int
workspace(struct plan *p, const struct memplan_opts *o, size_t i)
{
	struct graph *g = p->g;
	struct node *n = g->nodes[i];
	int64_t need = o->scratch(g, n);
	char *why;

	if (need < 0)
		return -1;
	if ((why = checked_bytes((uint64_t)need, "its kernel needs a "
	    "workspace of"))) {
		error("node \"%s\": %s", n->id, why);
		free(why);
		return -1;
	}
	p->scratchof[i] = SIZE_MAX;
	if (need > 0) {
		size_t b = p->nb++;

		p->b[b].size = alignup((uint64_t)need, o->align);
		p->b[b].first = p->b[b].last = i;
		p->scratchof[i] = b;
	}
	return 0;
}

/* Create buffers, merging in-place outputs and aliases into their
 * input's buffer, and a concat's inputs into its output's where they
 * fit; compute live ranges. */
static int
buffers(struct plan *p, const struct memplan_opts *o, int *ninplace)
{
	struct graph *g = p->g;
	size_t nslots = 0, *last;

	p->slot0 = xmalloc((g->nnodes + 1) * sizeof *p->slot0);
	for (size_t i = 0; i < g->nnodes; i++) {
		struct node *n = g->nodes[i];

		p->slot0[i] = nslots;
		nslots += (size_t)n->nout;
		if (!n->types) {
			error("node \"%s\" has no types: run nnl-shape-infer "
			    "first", escape_tty_name(n->id));
			return -1;
		}
	}
	p->bufof = xmalloc((nslots + 1) * sizeof *p->bufof);
	p->sdelta = xcalloc(nslots + 1, sizeof *p->sdelta);
	for (size_t s = 0; s < nslots; s++)
		p->bufof[s] = SIZE_MAX;
	/* a buffer per output, plus one of workspace per node */
	p->b = xcalloc(nslots + g->nnodes + 1, sizeof *p->b);
	p->scratchof = xmalloc((g->nnodes + 1) * sizeof *p->scratchof);
	for (size_t i = 0; i < g->nnodes; i++)
		p->scratchof[i] = SIZE_MAX;
	p->nsteps = g->nnodes;
	last = lastuses(p, nslots);
	for (size_t i = 0; i < g->nnodes; i++) {
		struct node *n = g->nodes[i];

		if (readsbefore(p, n, i) != 0) {
			free(last);
			return -1;
		}
		for (int k = 0; k < n->nout; k++)
			outbuffer(p, o, i, k, last[p->slot0[i] + (size_t)k],
			    ninplace);
		if (o->scratch && workspace(p, o, i) != 0) {
			free(last);
			return -1;
		}
	}
	free(last);
	return 0;
}

static void
record(struct plan *p, const struct memplan_opts *o,
    const struct memplan_stats *st)
{
	struct graph *g = p->g;
	cJSON *m;

	for (size_t i = 0; i < g->nnodes; i++) {
		struct node *n = g->nodes[i];
		cJSON *a = cJSON_CreateArray();

		for (int k = 0; k < n->nout; k++)
			cJSON_AddItemToArray(a, cJSON_CreateNumber((double)
			    (p->b[p->bufof[p->slot0[i] + (size_t)k]].off +
			    p->sdelta[p->slot0[i] + (size_t)k])));
		if (!n->extra)
			n->extra = cJSON_CreateObject();
		cJSON_DeleteItemFromObjectCaseSensitive(n->extra, "scratch");
		if (cJSON_GetObjectItemCaseSensitive(n->extra, "arena"))
			cJSON_ReplaceItemInObjectCaseSensitive(n->extra,
			    "arena", a);
		else
			cJSON_AddItemToObject(n->extra, "arena", a);
		if (p->scratchof && p->scratchof[i] != SIZE_MAX)
			cJSON_AddNumberToObject(n->extra, "scratch", (double)
			    p->b[p->scratchof[i]].off);
	}
	m = cJSON_CreateObject();
	cJSON_AddNumberToObject(m, "align", o->align);
	cJSON_AddNumberToObject(m, "arenaBytes", (double)st->arena);
	cJSON_AddNumberToObject(m, "lowerBoundBytes", (double)st->lower);
	cJSON_AddNumberToObject(m, "weightsBytes", (double)st->weights);
	if (!g->extra)
		g->extra = cJSON_CreateObject();
	if (cJSON_GetObjectItemCaseSensitive(g->extra, "memory"))
		cJSON_ReplaceItemInObjectCaseSensitive(g->extra, "memory", m);
	else
		cJSON_AddItemToObject(g->extra, "memory", m);
}

int
memplan(struct graph *g, const struct memplan_opts *o,
    struct memplan_stats *st)
{
	struct plan p = { g, NULL, 0, NULL, NULL, NULL, NULL, 0 };
	int rc = -1;
	char *why;

	memset(st, 0, sizeof *st);
	for (size_t i = 0; i < g->nnodes; i++)
		g->nodes[i]->index = i;
	for (size_t i = 0; i < g->nconsts; i++)
		if (checked_add_u64(st->weights,
		    memplan_bytes(&g->consts[i]->desc), &st->weights) != 0)
			st->weights = UINT64_MAX;
	if (buffers(&p, o, &st->inplace) == 0 && bounded(&p, o->align) == 0) {
		st->lower = lowerbound(&p);
		st->arena = layout(&p, o->align, st->lower);
		for (size_t i = 0; i < p.nb; i++)
			if (p.b[i].in)
				p.b[i].off = p.b[p.b[i].parent].off +
				    p.b[i].delta;
		if ((why = checked_bytes(st->arena, "the memory plan needs "
		    "an arena of"))) {
			error("%s: %s", g->src, why);
			free(why);
		} else {
			record(&p, o, st);
			rc = 0;
		}
	}
	free(p.b);
	free(p.bufof);
	free(p.sdelta);
	free(p.slot0);
	free(p.scratchof);
	return rc;
}
