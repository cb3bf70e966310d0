/*
 * dot: a webnn-graph as Graphviz DOT.  Graphviz lays it out (dot
 * -Tsvg); this file only says what is there.  DOT ids are generated
 * (i0, c0, n0, o0: input, constant, node and output by position), so a
 * model's names appear only in labels, escaped by markup.c.
 */
#define _DEFAULT_SOURCE
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "dot.h"
#include "markup.h"
#include "pipeline.h"
#include "strtab.h"

static const char font[] = "Helvetica";

/* The size of file p, 0 when it cannot be told. */
static unsigned long long
filesize(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 ? (unsigned long long)st.st_size : 0;
}

void
dot_bytes(struct buf *b, uint64_t n)
{
	if (n < 1024)
		buf_printf(b, "%llu B", (unsigned long long)n);
	else if (n < 1024 * 1024)
		buf_printf(b, "%.1f KiB", (double)n / 1024);
	else
		buf_printf(b, "%.2f MiB", (double)n / (1024 * 1024));
}

/* The DOT id of the operand's drawing: its input, constant or node. */
static void
srcid(struct buf *b, const struct operand *o)
{
	switch (o->kind) {
	case OPND_INPUT: buf_printf(b, "i%zu", o->index); break;
	case OPND_CONST: buf_printf(b, "c%zu", o->index); break;
	case OPND_NODE: buf_printf(b, "n%zu", o->producer->index); break;
	}
}

/* The type of an operand, when known, as label text. */
static void
typetext(struct buf *b, const struct tdesc *t)
{
	char *s;

	if (t->rank < 0)
		return;
	s = tdesc_str(t);
	markup_dot_html(b, s, 0);
	free(s);
}

static void
constbytes(struct buf *b, const struct operand *c)
{
	if (c->init == INIT_SCALAR) {
		buf_puts(b, "value ");
		json_put_number(b, c->value);
		return;
	}
	dot_bytes(b, dtype_bytes(c->desc.dt, tdesc_numel(&c->desc)));
}

/* A constant's label text: name, type, size. */
static void
constlabel(struct buf *b, const struct operand *c)
{
	markup_dot_html(b, c->name, DOT_NAME_MAX);
	buf_puts(b, "<br/>");
	typetext(b, &c->desc);
	buf_puts(b, "<br/>");
	constbytes(b, c);
}

/* name=value lines for an options object, operands left out. */
static void
optlines(struct buf *b, const struct opdesc *d, const cJSON *opts)
{
	const cJSON *it;

	cJSON_ArrayForEach(it, opts) {
		struct buf v = { 0 };

		if (!strcmp(it->string, "label") || (d && cJSON_IsString(it) &&
		    op_isoperandarg(d, it->string)))
			continue;
		json_put_value(&v, it);
		buf_puts(b, "<br/>");
		markup_dot_html(b, it->string, DOT_NAME_MAX);
		buf_putc(b, '=');
		markup_dot_html(b, v.s, DOT_VALUE_MAX);
		free(v.s);
	}
}

/* The option lines in a smaller font, when there are any. */
static void
small(struct buf *b, const struct opdesc *d, const cJSON *opts)
{
	struct buf t = { 0 };

	optlines(&t, d, opts);
	if (t.n)
		buf_printf(b, "<font point-size=\"9\">%s</font>", t.s);
	free(t.s);
}

static void
nodestmt(struct buf *b, const struct graph *g, const struct node *n,
    const struct dot_opts *o)
{
	const cJSON *act = cJSON_GetObjectItemCaseSensitive(n->extra,
	    "activation");
	const char **reads;
	int nr;

	/* the whole id on hover, the label cuts it */
	buf_printf(b, "  n%zu [class=\"op\" shape=box style=\"rounded,filled\" "
	    "fillcolor=\"#dae8fc\" tooltip=\"", n->index);
	markup_dot_string(b, n->id, 1000);
	buf_puts(b, "\" label=<<b>");
	markup_dot_html(b, n->opname, DOT_NAME_MAX);
	buf_puts(b, "</b><br/>");
	markup_dot_html(b, n->id, DOT_NAME_MAX);
	small(b, op_get(n->op), n->options);
	/* nnl-fuse's residual: the add it stands for too */
	if (cJSON_IsString(cJSON_GetObjectItemCaseSensitive(n->extra,
	    "residual")))
		buf_puts(b, "<br/><i>+ add</i>");
	if (cJSON_IsObject(act)) {
		const cJSON *aop = cJSON_GetObjectItemCaseSensitive(act, "op");

		buf_puts(b, "<br/><i>+ ");
		markup_dot_html(b, cJSON_IsString(aop) ? aop->valuestring :
		    "activation", DOT_NAME_MAX);
		buf_puts(b, "</i>");
		small(b, cJSON_IsString(aop) ? op_lookup(aop->valuestring) :
		    NULL, cJSON_GetObjectItemCaseSensitive(act, "options"));
	}
	if (o->inline_consts) {
		nr = node_reads(n, &reads);
		for (int i = 0; i < nr; i++) {
			const struct operand *c = graph_find(g, reads[i]);

			if (!c || c->kind != OPND_CONST)
				continue;
			buf_puts(b, "<br/><font point-size=\"9\">");
			markup_dot_html(b, c->name, DOT_NAME_MAX);
			buf_puts(b, " ");
			typetext(b, &c->desc);
			buf_puts(b, " ");
			constbytes(b, c);
			buf_puts(b, "</font>");
		}
		free(reads);
	}
	buf_puts(b, ">];\n");
}

/* The edge drawing operand name into DOT id to. */
static void
edge(struct buf *b, const struct operand *op, const char *to, int dashed)
{
	const struct tdesc *t = operand_type(op);
	struct buf l = { 0 };

	buf_puts(b, "  ");
	srcid(b, op);
	buf_printf(b, " -> %s", to);
	/* a constant's type is in its box */
	if (dashed) {
		buf_puts(b, " [style=dashed];\n");
		return;
	}
	if (op->kind == OPND_NODE && op->producer->nout > 1)
		buf_printf(&l, "#%d", op->outidx);
	if (t->rank >= 0 && l.n)
		buf_putc(&l, ' ');
	typetext(&l, t);
	if (l.n)
		buf_printf(b, " [label=<%s>]", l.s);
	buf_puts(b, ";\n");
	free(l.s);
}

/* The placement of a node as a cluster key, or NULL. */
static const cJSON *
placement(const struct node *n)
{
	const cJSON *p = cJSON_GetObjectItemCaseSensitive(n->extra,
	    "placement");

	return cJSON_IsObject(p) ? p : NULL;
}

/*
 * The cluster key of a node's placement ("device" and "partition"), or
 * NULL when it has none: equal keys, equal placements.
 */
static char *
placekey(const struct node *n, const cJSON **dev, const cJSON **part)
{
	const cJSON *p = placement(n);
	double k;

	if (!p)
		return NULL;
	*dev = cJSON_GetObjectItemCaseSensitive(p, "device");
	*part = cJSON_GetObjectItemCaseSensitive(p, "partition");
	if (!cJSON_IsString(*dev) || !cJSON_IsNumber(*part))
		return NULL;
	k = (*part)->valuedouble;
	/* -0 and 0 are one partition, as == has them */
	return xasprintf("%.17g %s", k == 0 ? 0.0 : k, (*dev)->valuestring);
}

/*
 * One cluster per partition, in the order of their first nodes.  Each
 * node is put on its cluster's list once (a table from placement to
 * cluster), so that many partitions cost no more than one.
 */
static void
clusters(struct buf *b, const struct graph *g, const struct dot_opts *o)
{
	size_t *next = xcalloc(g->nnodes + 1, sizeof *next);
	size_t *tail = xcalloc(g->nnodes + 1, sizeof *tail);
	char **keys = xcalloc(g->nnodes + 1, sizeof *keys);
	int *head = xcalloc(g->nnodes + 1, sizeof *head);
	struct strtab t = { 0 };
	int k = 0;

	/* next[i]: 1 + the next node of i's cluster, 0 at its end; head[i]:
	 * i is the first node of a cluster; tail: by first node, its last */
	for (size_t i = 0; i < g->nnodes; i++) {
		const cJSON *dev, *part;
		uintptr_t f;

		if (!(keys[i] = placekey(g->nodes[i], &dev, &part)))
			continue;
		if ((f = (uintptr_t)strtab_get(&t, keys[i]))) {
			next[tail[f - 1]] = i + 1;
			tail[f - 1] = i;
		} else {
			strtab_put(&t, keys[i], (void *)(i + 1));
			head[i] = 1;
			tail[i] = i;
		}
	}
	for (size_t i = 0; i < g->nnodes; i++) {
		const cJSON *dev, *part;
		int cpu;

		if (!head[i])
			continue;
		free(placekey(g->nodes[i], &dev, &part));
		cpu = !strcmp(dev->valuestring, "cpu");
		/* the number as the graph writes it (1e300 is no int:
		 * a label, never cast; -0 is 0, as in the key) */
		buf_printf(b, "  subgraph cluster_%d {\n    label=<%s ", k++,
		    cpu ? "CPU, round" : "WebNN partition");
		json_put_number(b, part->valuedouble == 0 ? 0.0 :
		    part->valuedouble);
		buf_printf(b, ">;\n    style=\"rounded,filled\" "
		    "fillcolor=\"%s\";\n", cpu ? "#fff2cc" : "#e1d5e7");
		for (size_t j = i + 1; j; j = next[j - 1]) {
			buf_puts(b, "  ");
			nodestmt(b, g, g->nodes[j - 1], o);
		}
		buf_puts(b, "  }\n");
	}
	for (size_t i = 0; i < g->nnodes; i++)
		if (!keys[i])
			nodestmt(b, g, g->nodes[i], o);
	strtab_free(&t);
	for (size_t i = 0; i < g->nnodes; i++)
		free(keys[i]);
	free(keys);
	free(head);
	free(tail);
	free(next);
}

void
dot_graph(struct buf *b, const struct graph *g, const struct dot_opts *o)
{
	/* the indices srcid() reads: positions in each array */
	for (size_t i = 0; i < g->ninputs; i++)
		g->inputs[i]->index = i;
	for (size_t i = 0; i < g->nconsts; i++)
		g->consts[i]->index = i;
	for (size_t i = 0; i < g->nnodes; i++)
		g->nodes[i]->index = i;
	buf_printf(b, "digraph nnl {\n  graph [rankdir=%s fontname=\"%s\"",
	    o->lr ? "LR" : "TB", font);
	if (g->name) {
		buf_puts(b, " labelloc=t label=<");
		markup_dot_html(b, g->name, DOT_NAME_MAX);
		buf_putc(b, '>');
	}
	buf_printf(b, "];\n  node [fontname=\"%s\" fontsize=11];\n"
	    "  edge [fontname=\"%s\" fontsize=9];\n", font, font);
	for (size_t i = 0; i < g->ninputs; i++) {
		const struct operand *in = g->inputs[i];

		buf_printf(b, "  i%zu [class=\"input\" shape=ellipse "
		    "style=filled fillcolor=\"#d5e8d4\" label=<<b>input</b>"
		    "<br/>", i);
		markup_dot_html(b, in->name, DOT_NAME_MAX);
		buf_puts(b, "<br/>");
		typetext(b, &in->desc);
		buf_puts(b, ">];\n");
	}
	if (!o->inline_consts)
		for (size_t i = 0; i < g->nconsts; i++) {
			buf_printf(b, "  c%zu [class=\"const\" shape=note "
			    "style=filled fillcolor=\"#f5f5f5\" fontsize=9 "
			    "label=<<b>const</b> ", i);
			constlabel(b, g->consts[i]);
			buf_puts(b, ">];\n");
		}
	clusters(b, g, o);
	for (size_t i = 0; i < g->noutputs; i++) {
		buf_printf(b, "  o%zu [class=\"output\" shape=ellipse "
		    "peripheries=2 style=filled fillcolor=\"#ffe6cc\" "
		    "label=<<b>output</b><br/>", i);
		markup_dot_html(b, g->outputs[i].name, DOT_NAME_MAX);
		buf_puts(b, ">];\n");
	}
	for (size_t i = 0; i < g->nnodes; i++) {
		const struct node *n = g->nodes[i];
		const char **reads;
		int nr = node_reads(n, &reads);
		char to[32];

		snprintf(to, sizeof to, "n%zu", i);
		for (int k = 0; k < nr; k++) {
			const struct operand *op = graph_find(g, reads[k]);

			if (!op || (op->kind == OPND_CONST &&
			    o->inline_consts))
				continue;
			edge(b, op, to, op->kind == OPND_CONST);
		}
		free(reads);
	}
	for (size_t i = 0; i < g->noutputs; i++) {
		const struct goutput *go = &g->outputs[i];
		const struct operand *op = graph_find(g, go->ref ? go->ref :
		    go->name);
		char to[32];

		if (!op)
			continue;
		snprintf(to, sizeof to, "o%zu", i);
		edge(b, op, to, 0);
	}
	buf_puts(b, "}\n");
}

/* A bound from the environment: name's value, digits only, else def. */
static int
envbound(const char *name, unsigned long long def, unsigned long long *v)
{
	const char *e = getenv(name);
	char *end;

	*v = def;
	if (!e || !*e)
		return 0;
	errno = 0;
	*v = strtoull(e, &end, 10);
	if (*end || !isdigit((unsigned char)*e) || errno || !*v) {
		error("%s=%s: expected a positive whole number", name, e);
		return -1;
	}
	return 0;
}

/*
 * dot -Tsvg -o out in, killed after secs seconds, and kept from
 * writing more than maxb bytes (RLIMIT_FSIZE: a longer write fails or
 * SIGXFSZ ends it).  0: done; -1: failed, said why.
 */
static int
rundot(char *in, char *out, unsigned long long secs,
    unsigned long long maxb)
{
	char *argv[] = { "dot", "-Tsvg", "-o", out, in, NULL };
	struct timespec t0, now, nap = { 0, 10 * 1000 * 1000 };
	pid_t pid, w;
	int st, late = 0;

	fflush(NULL);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if ((pid = fork()) < 0) {
		error("fork: %s", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		struct rlimit r = { maxb, maxb };

		setrlimit(RLIMIT_FSIZE, &r);
		execvp(argv[0], argv);
		fprintf(stderr, "%s: error: dot: %s\n", getprogname_nnl(),
		    strerror(errno));
		_exit(127);
	}
	while ((w = waitpid(pid, &st, WNOHANG)) == 0) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		if ((double)(now.tv_sec - t0.tv_sec) + (double)(now.tv_nsec -
		    t0.tv_nsec) / 1e9 >= (double)secs) {
			kill(pid, SIGKILL);
			late = 1;
			w = waitpid(pid, &st, 0);
			break;
		}
		nanosleep(&nap, NULL);
	}
	if (w < 0) {
		error("waitpid: %s", strerror(errno));
		return -1;
	}
	if (late) {
		error("dot -Tsvg ran over %llu s (NNL_DOT_TIMEOUT), so the "
		    "graph is not drawn: set NNL_DOT_TIMEOUT to wait longer",
		    secs);
		return -1;
	}
	if ((WIFSIGNALED(st) && WTERMSIG(st) == SIGXFSZ) ||
	    (!WIFSIGNALED(st) && WEXITSTATUS(st) != 0 &&
	    access(out, F_OK) == 0 && filesize(out) >= maxb)) {
		error("dot -Tsvg drew over %llu bytes (NNL_DOT_MAX_BYTES), "
		    "so the graph is not drawn: set NNL_DOT_MAX_BYTES to "
		    "allow more", maxb);
		return -1;
	}
	if (WIFSIGNALED(st)) {
		error("dot: killed by signal %d", WTERMSIG(st));
		return -1;
	}
	if (WEXITSTATUS(st) != 0) {
		error("dot -Tsvg failed: Graphviz (Debian's graphviz) "
		    "draws the graph");
		return -1;
	}
	return 0;
}

char *
dot_render(const char *text)
{
	const char *t = getenv("TMPDIR");
	char *dir, *in, *out, *svg = NULL;
	unsigned long long secs, maxb;

	if (envbound("NNL_DOT_TIMEOUT", DOT_TIMEOUT, &secs) != 0 ||
	    envbound("NNL_DOT_MAX_BYTES", DOT_MAX_BYTES, &maxb) != 0)
		return NULL;
	dir = xasprintf("%s/nnl-dot.XXXXXX", t && *t ? t : "/tmp");
	if (!mkdtemp(dir)) {
		error("mkdtemp %s: %s", dir, strerror(errno));
		free(dir);
		return NULL;
	}
	in = xasprintf("%s/graph.dot", dir);
	out = xasprintf("%s/graph.svg", dir);
	if (writefile_atomic(in, text, strlen(text)) == 0) {
		/* paths that no option or response file can be read from */
		char *oa = argpath(out), *ia = argpath(in);

		if (rundot(ia, oa, secs, maxb) == 0 &&
		    !(svg = readfile(out, NULL)))
			error("%s: %s", out, strerror(errno));
		free(oa);
		free(ia);
	}
	unlink(in);
	unlink(out);
	rmdir(dir);
	free(in);
	free(out);
	free(dir);
	return svg;
}
