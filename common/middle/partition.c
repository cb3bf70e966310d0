/*
 * partition: which nodes a WebNN context can run, by a support profile
 * in the shape of MLContext.opSupportLimits(), and which must run as
 * JavaScript on the CPU; then the WebNN partitions between them.  A
 * node runs on the CPU when the profile lacks its op, or a data type or
 * rank of one of its operands or outputs, or when it computes a small
 * integer value (a shape, an index) from values already on the CPU, as
 * OnnxConverter keeps shape arithmetic there.  Partition k holds the
 * WebNN nodes that need the results of k rounds of CPU nodes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "partition.h"
#include "escape.h"

enum { SMALL = 64 };	/* elements: the most a shape computation has */

/* Does the limits object (an MLTensorLimits) accept t? */
static int
accepts(const cJSON *lim, const struct tdesc *t, const char **why)
{
	const cJSON *dts = cJSON_GetObjectItemCaseSensitive(lim, "dataTypes");
	const cJSON *rr = cJSON_GetObjectItemCaseSensitive(lim, "rankRange");
	const cJSON *d;
	int ok = !cJSON_IsArray(dts);

	cJSON_ArrayForEach(d, dts)
		if (cJSON_IsString(d) && !strcmp(d->valuestring,
		    dtype_name(t->dt)))
			ok = 1;
	if (!ok) {
		*why = "data type";
		return 0;
	}
	if (cJSON_IsObject(rr)) {
		const cJSON *mn = cJSON_GetObjectItemCaseSensitive(rr, "min");
		const cJSON *mx = cJSON_GetObjectItemCaseSensitive(rr, "max");

		if ((cJSON_IsNumber(mn) && t->rank < mn->valuedouble) ||
		    (cJSON_IsNumber(mx) && t->rank > mx->valuedouble)) {
			*why = "rank";
			return 0;
		}
	}
	return 1;
}

struct px {
	struct graph *g;
	const cJSON *prof;
	char *oncpu;		/* per node */
	int *level;		/* per node */
};

static struct node *
producer(struct px *p, const char *name)
{
	struct operand *o = graph_find(p->g, name);

	return o && o->kind == OPND_NODE ? o->producer : NULL;
}

/* Is the operand a value the JavaScript side holds? */
static int
oncpu(struct px *p, const char *name)
{
	struct operand *o = graph_find(p->g, name);
	const char *why;

	if (!o)
		return 0;
	if (o->kind == OPND_NODE)
		return p->oncpu[o->producer->index];
	if (dtype_extended(o->desc.dt))
		return 1;	/* no WebNN context takes it */
	return !accepts(cJSON_GetObjectItemCaseSensitive(p->prof,
	    o->kind == OPND_INPUT ? "input" : "constant"), &o->desc, &why);
}

/* Why node n runs on the CPU (malloc'd), or NULL. */
static char *
cpureason(struct px *p, struct node *n)
{
	const struct opdesc *d = op_get(n->op);
	const cJSON *lim = cJSON_GetObjectItemCaseSensitive(p->prof, d->name);
	const char **reads;
	int nr = node_reads(n, &reads), allcpu = nr > 0, small = 1;
	const char *why;
	char *r = NULL;

	if (d->nnl) {
		free(reads);
		return xasprintf("%s is nnl's, beyond WebNN", d->name);
	}
	for (int i = 0; i < n->nin + n->nout; i++) {
		const struct tdesc *t = i < n->nin ? operand_type(graph_find(
		    p->g, n->in[i])) : &n->types[i - n->nin];

		if (t && dtype_extended(t->dt)) {
			free(reads);
			return xasprintf("%s is nnl's, beyond WebNN",
			    dtype_name(t->dt));
		}
		if (t && t->rank > 0 && tdesc_numel(t) == 0) {
			free(reads);
			return xasprintf("\"%s\" is empty, which WebNN "
			    "refuses", i < n->nin ? n->in[i] :
			    n->out[i - n->nin]);
		}
	}
	if (!cJSON_IsObject(lim)) {
		free(reads);
		return xasprintf("the profile has no %s", d->name);
	}
	for (int i = 0; i < n->nin && !r; i++) {
		const char *key = d->variadic ? d->operands[0] :
		    i < d->nOperands ? d->operands[i] : NULL;
		const struct tdesc *t = operand_type(graph_find(p->g,
		    n->in[i]));

		if (key && !accepts(cJSON_GetObjectItemCaseSensitive(lim, key),
		    t, &why))
			r = xasprintf("%s \"%s\": %s %s (rank %d)", key,
			    n->in[i], why, dtype_name(t->dt), t->rank);
	}
	for (int i = 0; i < d->noptions && !r; i++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(n->options,
		    d->options[i].name);
		const struct tdesc *t;

		if (d->options[i].type != AT_OPERAND || !cJSON_IsString(v))
			continue;
		t = operand_type(graph_find(p->g, v->valuestring));
		if (!accepts(cJSON_GetObjectItemCaseSensitive(lim,
		    d->options[i].name), t, &why))
			r = xasprintf("%s \"%s\": %s %s", d->options[i].name,
			    v->valuestring, why, dtype_name(t->dt));
	}
	for (int k = 0; k < n->nout && !r; k++) {
		char key[32];
		const cJSON *l;

		snprintf(key, sizeof key, "output%d", k);
		l = cJSON_GetObjectItemCaseSensitive(lim, key);
		if (!l)
			l = cJSON_GetObjectItemCaseSensitive(lim, "output");
		if (!l)
			l = cJSON_GetObjectItemCaseSensitive(lim, "outputs");
		if (!accepts(l, &n->types[k], &why))
			r = xasprintf("output \"%s\": %s %s", n->out[k], why,
			    dtype_name(n->types[k].dt));
	}
	for (int i = 0; i < nr; i++)
		allcpu &= oncpu(p, reads[i]);
	free(reads);
	for (int k = 0; k < n->nout; k++)
		small &= tdesc_numel(&n->types[k]) <= SMALL &&
		    n->types[k].dt != DT_FLOAT32 && n->types[k].dt != DT_FLOAT16;
	if (!r && allcpu && small)
		r = xstrdup("a shape computation on values the CPU holds");
	return r;
}

int
graph_partition(struct graph *g, const struct partition_opts *o)
{
	struct px p = { g, o->profile, NULL, NULL };
	size_t nn = g->nnodes, *order = xmalloc((nn + 1) * sizeof *order);
	int ncpu = 0, maxlevel = 0, rc = -1;
	cJSON *sum;

	p.oncpu = xcalloc(nn + 1, 1);
	p.level = xcalloc(nn + 1, sizeof *p.level);
	for (size_t i = 0; i < nn; i++) {
		g->nodes[i]->index = i;
		if (!g->nodes[i]->types) {
			error("%s: node \"%s\" has no types: run "
			    "nnl-shape-infer first", g->src,
			    escape_tty_name(g->nodes[i]->id));
			goto out;
		}
	}
	if (graph_toposort(g, order) != nn) {
		error("%s: the graph has a cycle", g->src);
		goto out;
	}
	for (size_t k = 0; k < nn; k++) {
		struct node *n = g->nodes[order[k]];
		char *why = cpureason(&p, n);
		const char **reads;
		int nr = node_reads(n, &reads), lv = 0;
		cJSON *pl = cJSON_CreateObject();

		p.oncpu[n->index] = why != NULL;
		for (int i = 0; i < nr; i++) {
			struct node *q = producer(&p, reads[i]);
			int l;

			if (!q)
				continue;
			/* a WebNN node after a CPU one waits for a round */
			l = p.level[q->index] + (p.oncpu[q->index] && !why);
			lv = l > lv ? l : lv;
		}
		free(reads);
		p.level[n->index] = lv;
		if (!why && lv > maxlevel)
			maxlevel = lv;
		cJSON_AddStringToObject(pl, "device", why ? "cpu" : "webnn");
		cJSON_AddNumberToObject(pl, "partition", lv);
		if (why) {
			cJSON_AddStringToObject(pl, "reason", why);
			if (o->verbose)
				fprintf(stderr, "%s: node \"%s\" (%s) runs on "
				    "the CPU: %s\n", getprogname_nnl(),
				    escape_tty_name(n->id),
				    escape_tty_name(n->opname), why);
			ncpu++;
		}
		cJSON_DeleteItemFromObjectCaseSensitive(n->extra, "placement");
		if (!n->extra)
			n->extra = cJSON_CreateObject();
		cJSON_AddItemToObject(n->extra, "placement", pl);
		free(why);
	}
	sum = cJSON_CreateObject();
	cJSON_AddStringToObject(sum, "profile", o->profile_name);
	cJSON_AddNumberToObject(sum, "webnnPartitions", ncpu == (int)nn ? 0 :
	    maxlevel + 1);
	cJSON_AddNumberToObject(sum, "cpuNodes", ncpu);
	if (!g->extra)
		g->extra = cJSON_CreateObject();
	cJSON_DeleteItemFromObjectCaseSensitive(g->extra, "partitions");
	cJSON_AddItemToObject(g->extra, "partitions", sum);
	rc = 0;
out:
	free(order);
	free(p.oncpu);
	free(p.level);
	return rc;
}
