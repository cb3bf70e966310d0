/*
 * graph: construction, lookup and destruction of the in-memory graph.
 * Names resolve through one open-addressing hash table over inputs,
 * consts and node outputs.
 */
#include "graph.h"
#include "heap.h"

#include <stdlib.h>
#include <string.h>

struct graph *
graph_new(void)
{
	struct graph *g = xcalloc(1, sizeof *g);

	g->version = 1;
	g->src = "<stdin>";
	return g;
}

static void
operand_free(struct operand *o)
{
	if (!o)
		return;
	free(o->name);
	free(o->desc.dims);
	free(o->ref);
	free(o->bytes);
	cJSON_Delete(o->extra);
	free(o);
}

static void
node_free(struct node *n)
{
	free(n->id);
	free(n->opname);
	for (int i = 0; i < n->nin; i++)
		free(n->in[i]);
	free(n->in);
	cJSON_Delete(n->options);
	for (int i = 0; i < n->nout; i++)
		free(n->out[i]);
	free(n->out);
	cJSON_Delete(n->extra);
	if (n->types)
		for (int i = 0; i < n->nout; i++)
			free(n->types[i].dims);
	free(n->types);
	free(n);
}

void
node_set_type(struct node *n, int k, enum dtype dt, int rank,
    const int64_t *dims)
{
	if (!n->types) {
		n->types = xcalloc((size_t)n->nout, sizeof *n->types);
		for (int i = 0; i < n->nout; i++) {
			n->types[i].dt = DT_NONE;
			n->types[i].rank = -1;
		}
	}
	if (rank < 0) {
		free(n->types[k].dims);
		n->types[k].dims = NULL;
		n->types[k].dt = dt;
		n->types[k].rank = -1;
		return;
	}
	tdesc_set(&n->types[k], dt, rank, dims);
}

const struct tdesc *
operand_type(const struct operand *o)
{
	if (o->kind == OPND_NODE) {
		const struct node *n = o->producer;

		return n->types ? &n->types[o->outidx] : &o->desc;
	}
	return &o->desc;
}

void
graph_drop_node(struct graph *g, struct node *n)
{
	(void)g;
	node_free(n);
}

void
graph_drop_const(struct graph *g, struct operand *c)
{
	(void)g;
	operand_free(c);
}

static void
freetab(struct graph *g)
{
	for (size_t i = 0; i < g->tabcap; i++) {
		struct operand *o = g->tab[i];

		/* node outputs are owned by the table */
		if (o && o->kind == OPND_NODE)
			operand_free(o);
	}
	free(g->tab);
	g->tab = NULL;
	g->tabcap = g->tabn = 0;
}

void
graph_free(struct graph *g)
{
	if (!g)
		return;
	freetab(g);
	for (size_t i = 0; i < g->ninputs; i++)
		operand_free(g->inputs[i]);
	free(g->inputs);
	for (size_t i = 0; i < g->nconsts; i++)
		operand_free(g->consts[i]);
	free(g->consts);
	for (size_t i = 0; i < g->nnodes; i++)
		node_free(g->nodes[i]);
	free(g->nodes);
	for (size_t i = 0; i < g->noutputs; i++) {
		free(g->outputs[i].name);
		free(g->outputs[i].ref);
	}
	free(g->outputs);
	cJSON_Delete(g->extra);
	free(g->name);
	free(g->weights_file);
	free(g->manifest_file);
	free(g->owntext);
	free(g->ownsrc);
	if (g->wcache_free)
		g->wcache_free(g);
	free(g);
}

void
tdesc_set(struct tdesc *t, enum dtype dt, int rank, const int64_t *dims)
{
	free(t->dims);
	t->dt = dt;
	t->rank = rank;
	t->dims = NULL;
	if (rank > 0) {
		t->dims = xmalloc((size_t)rank * sizeof *t->dims);
		memcpy(t->dims, dims, (size_t)rank * sizeof *t->dims);
	}
}

uint64_t
tdesc_numel(const struct tdesc *t)
{
	uint64_t n = 1;

	for (int i = 0; i < t->rank; i++) {
		uint64_t d = (uint64_t)t->dims[i];

		if (t->dims[i] < 0)
			return UINT64_MAX;
		if (d && n > UINT64_MAX / d)
			return UINT64_MAX;
		n *= d;
	}
	return n;
}

char *
tdesc_str(const struct tdesc *t)
{
	struct buf b = { 0 };

	buf_puts(&b, dtype_name(t->dt));
	buf_putc(&b, '[');
	for (int i = 0; i < t->rank; i++)
		buf_printf(&b, "%s%lld", i ? ", " : "", (long long)t->dims[i]);
	buf_putc(&b, ']');
	return b.s;
}

static struct operand *
newoperand(const char *name, enum okind kind, enum dtype dt, int rank,
    const int64_t *dims)
{
	struct operand *o = xcalloc(1, sizeof *o);

	o->name = xstrdup(name);
	o->kind = kind;
	o->desc.rank = -1;
	o->desc.dt = DT_NONE;
	if (rank >= 0)
		tdesc_set(&o->desc, dt, rank, dims);
	return o;
}

struct operand *
graph_add_input(struct graph *g, const char *name, enum dtype dt, int rank,
    const int64_t *dims)
{
	struct operand *o = newoperand(name, OPND_INPUT, dt, rank, dims);

	GROW(g->inputs, g->capinputs, g->ninputs + 1);
	g->inputs[g->ninputs++] = o;
	return o;
}

struct operand *
graph_add_const(struct graph *g, const char *name, enum dtype dt, int rank,
    const int64_t *dims)
{
	struct operand *o = newoperand(name, OPND_CONST, dt, rank, dims);

	o->init = INIT_WEIGHTS;
	GROW(g->consts, g->capconsts, g->nconsts + 1);
	g->consts[g->nconsts++] = o;
	return o;
}

struct node *
graph_add_node(struct graph *g, const char *id, const char *opname)
{
	struct node *n = xcalloc(1, sizeof *n);
	const struct opdesc *d = op_lookup(opname);

	n->id = xstrdup(id);
	n->opname = xstrdup(opname);
	n->op = d ? d->id : OP_NONE;
	n->options = cJSON_CreateObject();
	GROW(g->nodes, g->capnodes, g->nnodes + 1);
	g->nodes[g->nnodes++] = n;
	return n;
}

void
node_add_input(struct node *n, const char *name)
{
	n->in = xrealloc(n->in, (size_t)(n->nin + 1) * sizeof *n->in);
	n->in[n->nin++] = xstrdup(name);
}

void
node_add_output(struct node *n, const char *name)
{
	n->out = xrealloc(n->out, (size_t)(n->nout + 1) * sizeof *n->out);
	n->out[n->nout++] = xstrdup(name);
	if (n->types) {
		n->types = xrealloc(n->types, (size_t)n->nout *
		    sizeof *n->types);
		n->types[n->nout - 1].dt = DT_NONE;
		n->types[n->nout - 1].rank = -1;
		n->types[n->nout - 1].dims = NULL;
	}
}

void
graph_add_output(struct graph *g, const char *name, const char *ref)
{
	struct goutput *o;

	GROW(g->outputs, g->capoutputs, g->noutputs + 1);
	o = &g->outputs[g->noutputs++];
	memset(o, 0, sizeof *o);
	o->name = xstrdup(name);
	o->ref = xstrdup(ref);
}

/* FNV-1a */
static size_t
hash(const char *s)
{
	size_t h = 2166136261u;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

/* Insert o unless the name is taken (the first definition wins; the
 * validator reports duplicates). */
static void
tabput(struct graph *g, struct operand *o)
{
	size_t i;

	if ((g->tabn + 1) * 2 > g->tabcap) {
		struct operand **old = g->tab;
		size_t oldcap = g->tabcap;

		g->tabcap = g->tabcap ? g->tabcap * 2 : 64;
		g->tab = xcalloc(g->tabcap, sizeof *g->tab);
		g->tabn = 0;
		for (size_t k = 0; k < oldcap; k++)
			if (old[k])
				tabput(g, old[k]);
		free(old);
	}
	for (i = hash(o->name) & (g->tabcap - 1); g->tab[i];
	    i = (i + 1) & (g->tabcap - 1))
		if (strcmp(g->tab[i]->name, o->name) == 0) {
			if (o->kind == OPND_NODE)
				operand_free(o);
			return;
		}
	g->tab[i] = o;
	g->tabn++;
}

void
graph_number(struct graph *g)
{
	for (size_t i = 0; i < g->nnodes; i++)
		g->nodes[i]->index = i;
	for (size_t i = 0; i < g->ninputs; i++)
		g->inputs[i]->index = i;
	for (size_t i = 0; i < g->nconsts; i++)
		g->consts[i]->index = i;
}

void
graph_unindex(struct graph *g)
{
	freetab(g);
}

void
graph_index_node(struct graph *g, struct node *n)
{
	for (int k = 0; k < n->nout; k++) {
		struct operand *o = newoperand(n->out[k], OPND_NODE, DT_NONE,
		    -1, NULL);

		o->producer = n;
		o->outidx = k;
		o->pos = n->pos;
		tabput(g, o);
	}
}

void
graph_index_const(struct graph *g, struct operand *c)
{
	tabput(g, c);
}

/* Take o out of the table; the entries after it in its cluster move
 * back to where a lookup from their home slot finds them. */
static void
tabdel(struct graph *g, const struct operand *o)
{
	size_t m = g->tabcap - 1, i, j;

	if (!g->tabcap)
		return;
	for (i = hash(o->name) & m; g->tab[i] != o; i = (i + 1) & m)
		if (!g->tab[i])
			return;
	g->tab[i] = NULL;
	g->tabn--;
	for (j = (i + 1) & m; g->tab[j]; j = (j + 1) & m) {
		size_t h = hash(g->tab[j]->name) & m;

		if (i <= j ? (h > i && h <= j) : (h > i || h <= j))
			continue;
		g->tab[i] = g->tab[j];
		g->tab[j] = NULL;
		i = j;
	}
}

void
graph_unindex_node(struct graph *g, struct node *n)
{
	for (int k = 0; k < n->nout; k++) {
		struct operand *o = graph_find(g, n->out[k]);

		if (o && o->kind == OPND_NODE && o->producer == n) {
			tabdel(g, o);
			operand_free(o);
		}
	}
}

void
graph_index(struct graph *g)
{
	freetab(g);
	for (size_t i = 0; i < g->ninputs; i++)
		tabput(g, g->inputs[i]);
	for (size_t i = 0; i < g->nconsts; i++)
		tabput(g, g->consts[i]);
	for (size_t i = 0; i < g->nnodes; i++)
		graph_index_node(g, g->nodes[i]);
}

struct operand *
graph_find(const struct graph *g, const char *name)
{
	if (!g->tabcap)
		return NULL;
	for (size_t i = hash(name) & (g->tabcap - 1); g->tab[i];
	    i = (i + 1) & (g->tabcap - 1))
		if (strcmp(g->tab[i]->name, name) == 0)
			return g->tab[i];
	return NULL;
}

int
tdesc_samedims(const struct tdesc *a, const struct tdesc *b)
{
	if (a->rank != b->rank)
		return 0;
	for (int i = 0; i < a->rank; i++)
		if (a->dims[i] != b->dims[i])
			return 0;
	return 1;
}

int
tdesc_same(const struct tdesc *a, const struct tdesc *b)
{
	return a->dt == b->dt && tdesc_samedims(a, b);
}

const char *
node_optstr(const struct node *n, const char *name, const char *dflt)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(n->options, name);

	return cJSON_IsString(v) ? v->valuestring : dflt;
}

double
node_optnum(const struct node *n, const char *name, double dflt)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(n->options, name);

	return cJSON_IsNumber(v) ? v->valuedouble : dflt;
}

int
node_optall(const struct node *n, const char *name, double v, int absent)
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(n->options, name),
	    *e;

	if (!a)
		return absent;
	if (!cJSON_IsArray(a))
		return 0;
	cJSON_ArrayForEach(e, a)
		if (!cJSON_IsNumber(e) || e->valuedouble != v)
			return 0;
	return 1;
}

int
node_reads(const struct node *n, const char ***names)
{
	const struct opdesc *d = op_get(n->op);
	const char **v = xmalloc(((size_t)n->nin + 2 +
	    (size_t)cJSON_GetArraySize(n->options)) * sizeof *v);
	int k = 0;
	const cJSON *it;

	for (int i = 0; i < n->nin; i++)
		v[k++] = n->in[i];
	if (d)
		cJSON_ArrayForEach(it, n->options)
			if (cJSON_IsString(it) &&
			    op_isoperandarg(d, it->string))
				v[k++] = it->valuestring;
	/* nnl-fuse's residual operand, added to the result */
	it = cJSON_GetObjectItemCaseSensitive(n->extra, "residual");
	if (cJSON_IsString(it))
		v[k++] = it->valuestring;
	/* nnl-fuse's bias of a matmul, added to each row of the result */
	it = cJSON_GetObjectItemCaseSensitive(n->extra, "bias");
	if (cJSON_IsString(it))
		v[k++] = it->valuestring;
	*names = v;
	return k;
}

struct srcloc
graph_loc(const struct graph *g, struct pos p)
{
	struct srcloc l;

	l.file = g->src;
	l.line = p.line;
	l.col = p.col;
	l.text = p.line ? g->text : NULL;
	l.len = g->textlen;
	return l;
}

size_t
graph_toposort(struct graph *g, size_t *order)
{
	size_t nn = g->nnodes, placed = 0;
	size_t *indeg = xcalloc(nn + 1, sizeof *indeg);
	size_t *start = xcalloc(nn + 2, sizeof *start);	/* CSR of users */
	size_t *users, nedges = 0;
	struct heap h = { NULL, 0, 0 };

	users = NULL;
	for (size_t i = 0; i < nn; i++)
		g->nodes[i]->index = i;
	/* Count edges: for each read of a node output, producer -> i. */
	for (int pass = 0; pass < 2; pass++) {
		size_t *fill = NULL;

		if (pass == 1) {
			for (size_t i = 1; i <= nn + 1; i++)
				start[i] += start[i - 1];
			users = xmalloc((nedges + 1) * sizeof *users);
			fill = xmalloc((nn + 1) * sizeof *fill);
			for (size_t i = 0; i < nn; i++)
				fill[i] = start[i];
		}
		for (size_t i = 0; i < nn; i++) {
			const char **reads;
			int nr = node_reads(g->nodes[i], &reads);

			for (int k = 0; k < nr; k++) {
				struct operand *o = graph_find(g, reads[k]);
				size_t p;

				if (!o || o->kind != OPND_NODE)
					continue;
				p = o->producer->index;
				if (pass == 0) {
					start[p + 1]++;
					indeg[i]++;
					nedges++;
				} else {
					users[fill[p]++] = i;
				}
			}
			free(reads);
		}
		free(fill);
	}
	for (size_t i = 0; i < nn; i++)
		if (indeg[i] == 0)
			heap_push(&h, i);
	while (h.n) {
		size_t i = heap_pop(&h);

		order[placed++] = i;
		for (size_t e = start[i]; e < start[i + 1]; e++)
			if (--indeg[users[e]] == 0)
				heap_push(&h, users[e]);
	}
	free(users);
	free(indeg);
	free(start);
	heap_free(&h);
	return placed;
}

long
graph_shape_output(struct graph *g, size_t i)
{
	const struct tdesc *t;
	const char *a, *b;
	struct operand *o;
	size_t n;

	if (i + 1 >= g->noutputs)
		return -1;
	a = g->outputs[i].name;
	b = g->outputs[i + 1].name;
	n = strlen(a);
	if (strncmp(a, b, n) != 0 || strcmp(b + n, ".shape") != 0 ||
	    !(o = graph_find(g, g->outputs[i + 1].ref)))
		return -1;
	t = operand_type(o);
	if (!t || t->dt != DT_INT64 || t->rank != 1)
		return -1;
	n = (size_t)t->dims[0];
	t = operand_type(graph_find(g, g->outputs[i].ref));
	return t && t->rank >= 1 && (size_t)t->rank == n ? (long)(i + 1) :
	    -1;
}
