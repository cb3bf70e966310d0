/*
 * eval: the host interpreter.  Every operand gets its own buffer (no
 * planning: this is the reference, not the fast path); nodes run in
 * dependency order through kernel_prepare and the kernel it chose.
 */
#include "eval.h"
#include "escape.h"

#include <stdlib.h>
#include <string.h>

#include "checked.h"
#include "kernel.h"
#include "weights.h"

struct slot {
	struct operand *o;
	void *data;
};

static void **
slotof(struct graph *g, void **inbuf, void **constbuf, void ***nodebuf,
    const char *name)
{
	struct operand *o = graph_find(g, name);

	if (!o)
		return NULL;
	/* positions set by graph_number in graph_eval */
	if (o->kind == OPND_INPUT) {
		if (o->index < g->ninputs && g->inputs[o->index] == o)
			return &inbuf[o->index];
	} else if (o->kind == OPND_CONST) {
		if (o->index < g->nconsts && g->consts[o->index] == o)
			return &constbuf[o->index];
	} else {
		return &nodebuf[o->producer->index][o->outidx];
	}
	return NULL;
}

/* Each graph input's buffer in inbuf: the data of inputs by its name,
 * of the size its type says. */
static int
bindinputs(struct graph *g, const struct evalbuf *inputs, int ninputs,
    void **inbuf)
{
	for (size_t i = 0; i < g->ninputs; i++) {
		struct operand *o = g->inputs[i];
		uint64_t want = dtype_bytes(o->desc.dt, tdesc_numel(&o->desc));
		int k;

		for (k = 0; k < ninputs; k++)
			if (strcmp(inputs[k].name, o->name) == 0)
				break;
		if (k == ninputs) {
			error("no data for input \"%s\"",
			    escape_tty_name(o->name));
			return -1;
		}
		if (inputs[k].nbytes != want) {
			error("input \"%s\": %llu bytes given, %s needs %llu",
			    escape_tty_name(o->name),
			    (unsigned long long)inputs[k].nbytes,
			    tdesc_str(&o->desc), (unsigned long long)want);
			return -1;
		}
		inbuf[i] = inputs[k].data;
	}
	return 0;
}

/* Node n's kernel on the buffers of what it reads, into new buffers of
 * its outputs (nodebuf[n->index]). */
static int
runnode(struct graph *g, struct node *n, void **inbuf, void **constbuf,
    void ***nodebuf)
{
	struct kcall k;
	const void **ins;
	void **outs, *scratch = NULL;
	char *why;
	int rc;

	if (kernel_prepare(g, n, &k) != 0)
		return -1;
	if ((why = checked_bytes(k.scratch, "its kernel needs a "
	    "workspace of"))) {
		error("node \"%s\": %s", n->id, why);
		free(why);
		kcall_free(&k);
		return -1;
	}
	ins = xcalloc((size_t)k.nin + 1, sizeof *ins);
	outs = xcalloc((size_t)n->nout + 1, sizeof *outs);
	nodebuf[n->index] = xcalloc((size_t)n->nout + 1, sizeof(void *));
	for (int j = 0; j < k.nin; j++) {
		void **p = k.in[j] ? slotof(g, inbuf, constbuf, nodebuf,
		    k.in[j]) : NULL;

		ins[j] = p ? *p : NULL;
	}
	for (int j = 0; j < n->nout; j++) {
		uint64_t nb = dtype_bytes(n->types[j].dt,
		    tdesc_numel(&n->types[j]));

		nodebuf[n->index][j] = xcalloc(nb + 1, 1);
		outs[j] = nodebuf[n->index][j];
	}
	if (k.scratch)
		scratch = xcalloc(k.scratch, 1);
	k.fn(k.ip, k.fp, ins, outs, scratch);
	rc = 0;
	if (k.bounded && ((const int64_t *)outs[1])[0] < 0) {
		error("node \"%s\" (%s): its size, known only at run time, "
		    "is past its bound of %lld elements or invalid",
		    escape_tty_name(n->id), n->opname,
		    (long long)tdesc_numel(&n->types[0]));
		rc = -1;
	}
	free(scratch);
	free(ins);
	free(outs);
	kcall_free(&k);
	return rc;
}

int
graph_eval(struct graph *g, const struct evalbuf *inputs, int ninputs,
    struct evalbuf *outputs)
{
	size_t nn = g->nnodes, placed, i;
	size_t *order = xmalloc((nn + 1) * sizeof *order);
	void **inbuf = xcalloc(g->ninputs + 1, sizeof *inbuf);
	void **constbuf = xcalloc(g->nconsts + 1, sizeof *constbuf);
	void ***nodebuf = xcalloc(nn + 1, sizeof *nodebuf);
	int rc = -1;

	graph_number(g);
	placed = graph_toposort(g, order);
	if (placed < nn) {
		error("the graph has a cycle: run nnl-reorder to see it");
		goto out;
	}
	if (bindinputs(g, inputs, ninputs, inbuf) != 0)
		goto out;
	for (i = 0; i < g->nconsts; i++) {
		uint64_t nb;

		constbuf[i] = const_bytes(g, g->consts[i], &nb);
		if (!constbuf[i])
			goto out;
	}
	for (size_t s = 0; s < placed; s++)
		if (runnode(g, g->nodes[order[s]], inbuf, constbuf,
		    nodebuf) != 0)
			goto out;
	for (i = 0; i < g->noutputs; i++) {
		struct operand *o = graph_find(g, g->outputs[i].ref);
		const struct tdesc *t = operand_type(o);

		outputs[i].name = g->outputs[i].name;
		outputs[i].nbytes = dtype_bytes(t->dt, tdesc_numel(t));
		outputs[i].data = xmalloc(outputs[i].nbytes + 1);
		memcpy(outputs[i].data, *slotof(g, inbuf, constbuf, nodebuf,
		    o->name), outputs[i].nbytes);
	}
	rc = 0;
out:
	for (i = 0; i < nn; i++) {
		if (nodebuf[i])
			for (int j = 0; j < g->nodes[i]->nout; j++)
				free(nodebuf[i][j]);
		free(nodebuf[i]);
	}
	for (i = 0; i < g->nconsts; i++)
		free(constbuf[i]);
	free(nodebuf);
	free(constbuf);
	free(inbuf);
	free(order);
	return rc;
}
