/*
 * uses: a hash table from operand names to reader lists, plus, for
 * every node, the entries it was added to, so that uses_drop can undo
 * uses_add even after the node's reads were changed in place.  Removing
 * a reader swaps the last one into its place: reader order is not kept.
 */
#include "uses.h"

#include <stdlib.h>
#include <string.h>

static struct uses_ent *
entry(struct uses *u, const char *name)
{
	struct uses_ent *e = strtab_get(&u->t, name);

	if (!e) {
		e = xcalloc(1, sizeof *e);
		e->name = xstrdup(name);
		strtab_put(&u->t, e->name, e);
	}
	return e;
}

struct uses_ent *
uses_get(const struct uses *u, const char *name)
{
	return strtab_get(&u->t, name);
}

size_t
uses_count(const struct uses *u, const char *name)
{
	const struct uses_ent *e = uses_get(u, name);

	return e ? e->n + e->nout : 0;
}

void
uses_add(struct uses *u, struct node *n)
{
	const char **r;
	int nr = node_reads(n, &r);

	if (n->index >= u->nnodes)
		BUG("uses_add: a node added after uses_build");
	if (u->reg[n->index])
		uses_drop(u, n);
	u->reg[n->index] = xcalloc((size_t)nr + 1, sizeof **u->reg);
	u->nreg[n->index] = nr;
	for (int k = 0; k < nr; k++) {
		struct uses_ent *e = entry(u, r[k]);

		GROW(e->rd, e->cap, e->n + 1);
		e->rd[e->n++] = n;
		u->reg[n->index][k] = e;
	}
	free(r);
}

void
uses_drop(struct uses *u, struct node *n)
{
	struct uses_ent **v;

	if (n->index >= u->nnodes || !(v = u->reg[n->index]))
		return;
	for (int k = 0; k < u->nreg[n->index]; k++) {
		struct uses_ent *e = v[k];

		for (size_t i = 0; i < e->n; i++)
			if (e->rd[i] == n) {
				e->rd[i] = e->rd[--e->n];
				break;
			}
	}
	free(v);
	u->reg[n->index] = NULL;
	u->nreg[n->index] = 0;
}

void
uses_output(struct uses *u, const char *name, int delta)
{
	struct uses_ent *e = entry(u, name);

	if (delta < 0 && e->nout == 0)
		BUG("uses_output: no output names it");
	e->nout = delta < 0 ? e->nout - 1 : e->nout + 1;
}

void
uses_build(struct uses *u, struct graph *g)
{
	memset(u, 0, sizeof *u);
	u->nnodes = g->nnodes;
	u->reg = xcalloc(g->nnodes + 1, sizeof *u->reg);
	u->nreg = xcalloc(g->nnodes + 1, sizeof *u->nreg);
	for (size_t i = 0; i < g->nnodes; i++) {
		g->nodes[i]->index = i;
		uses_add(u, g->nodes[i]);
	}
	for (size_t i = 0; i < g->noutputs; i++)
		uses_output(u, g->outputs[i].ref, 1);
}

void
uses_free(struct uses *u)
{
	for (size_t i = 0; i < u->t.cap; i++) {
		struct uses_ent *e = u->t.v[i].val;

		if (e) {
			free(e->rd);
			free(e->name);
			free(e);
		}
	}
	strtab_free(&u->t);
	for (size_t i = 0; i < u->nnodes; i++)
		free(u->reg[i]);
	free(u->reg);
	free(u->nreg);
	memset(u, 0, sizeof *u);
}
