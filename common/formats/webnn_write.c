/*
 * webnn_write: a graph as canonical .webnn text, the form webnn_read
 * reads back to the same graph: blocks in the order inputs, consts,
 * nodes, outputs; operands positional and every option named, in the
 * options' order; numbers in the JSON printer's shortest form.
 *
 * .webnn carries structure only.  What it cannot hold is handled in one
 * of two ways: a name that is not a .webnn identifier is an error (we
 * never mangle names, which would break references silently), while
 * fields that only annotate (unknown JSON fields, a node id other than
 * its first output) are dropped with a warning.
 */
#include "graph.h"
#include "escape.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct wr {
	struct buf b;
	int bad;
};

/* (ALPHA | "_") (ALNUM | "_")*: a named argument's name. */
static int
isword(const char *s)
{
	if (!s || !*s)
		return 0;
	for (const char *c = s; *c; c++) {
		int ch = (unsigned char)*c;
		int alpha = (ch >= 'a' && ch <= 'z') ||
		    (ch >= 'A' && ch <= 'Z') || ch == '_';

		if (!alpha && (c == s || ch < '0' || ch > '9'))
			return 0;
	}
	return 1;
}

/*
 * An operand name, as webnn-graph's grammar has it (ALPHA | "_" | "/" |
 * "$") (ALNUM | "_" | "." | "/")*, that is not a literal's keyword and
 * does not start with "//", which nnl reads as a comment.
 */
static int
isident(const char *s)
{
	if (!s || !*s || (s[0] == '/' && s[1] == '/'))
		return 0;
	for (const char *c = s; *c; c++) {
		int ch = (unsigned char)*c;
		int ok = (ch >= 'a' && ch <= 'z') ||
		    (ch >= 'A' && ch <= 'Z') || ch == '_' || ch == '/' ||
		    (c == s ? ch == '$' : (ch >= '0' && ch <= '9') ||
		    ch == '.');

		if (!ok)
			return 0;
	}
	return strcmp(s, "true") != 0 && strcmp(s, "false") != 0 &&
	    strcmp(s, "null") != 0;
}

/* Print an operand name, or fail: .webnn has no quoting for names. */
static void
putname(struct wr *w, const char *s)
{
	if (w->bad)
		return;
	if (!isident(s)) {
		error("operand \"%s\" is not a valid .webnn identifier",
		    escape_tty_name(s ? s : ""));
		w->bad = 1;
		return;
	}
	buf_puts(&w->b, s);
}

/* Unknown fields of an item (name NULL: of the graph) are lost. */
static void
dropextra(const cJSON *x, const char *kind, const char *name)
{
	const cJSON *it;

	cJSON_ArrayForEach(it, x) {
		if (name)
			warn("%s \"%s\": dropping field \"%s\" (.webnn cannot "
			    "hold it)", kind, escape_tty_name(name),
			    escape_tty_name(it->string));
		else
			warn("dropping top-level field \"%s\" (.webnn cannot "
			    "hold it)", escape_tty_name(it->string));
	}
}

static void
puttype(struct wr *w, const char *what, const struct operand *o)
{
	if (w->bad)
		return;
	if (o->desc.dt <= DT_NONE || o->desc.dt >= DT_COUNT ||
	    o->desc.rank < 0) {
		error("%s \"%s\": no data type and shape", what,
		    escape_tty_name(o->name));
		w->bad = 1;
		return;
	}
	buf_printf(&w->b, ": %s[", dtype_short(o->desc.dt));
	for (int i = 0; i < o->desc.rank; i++) {
		if (o->desc.dims[i] < 0 || o->desc.dims[i] > 4294967295) {
			error("%s \"%s\": dimension %lld is out of range", what,
			    escape_tty_name(o->name),
			    (long long)o->desc.dims[i]);
			w->bad = 1;
		}
		buf_printf(&w->b, "%s%lld", i ? ", " : "",
		    (long long)o->desc.dims[i]);
	}
	buf_putc(&w->b, ']');
}

static void
putnumber(struct wr *w, double v, const char *what, const char *name)
{
	if (!isfinite(v)) {
		error("%s \"%s\": %g cannot be written (not a finite number)",
		    what, escape_tty_name(name), v);
		w->bad = 1;
		return;
	}
	json_put_number(&w->b, v);
}

static void
putconst(struct wr *w, const struct operand *c)
{
	putname(w, c->name);
	puttype(w, "const", c);
	switch (c->init) {
	case INIT_WEIGHTS:
		buf_puts(&w->b, " @weights(");
		json_put_string(&w->b, c->ref ? c->ref : c->name);
		buf_putc(&w->b, ')');
		break;
	case INIT_SCALAR:
		buf_puts(&w->b, " @scalar(");
		putnumber(w, c->value, "const", c->name);
		buf_putc(&w->b, ')');
		break;
	case INIT_BYTES:
		buf_puts(&w->b, " @bytes([");
		for (size_t i = 0; i < c->nbytes; i++)
			buf_printf(&w->b, "%s%u", i ? ", " : "", c->bytes[i]);
		buf_puts(&w->b, "])");
		break;
	}
}

/* An option's value; nested arrays allowed, objects are not .webnn. */
static void
putvalue(struct wr *w, const cJSON *v, const struct node *n,
    const char *key)
{
	const cJSON *it;

	if (cJSON_IsArray(v)) {
		buf_putc(&w->b, '[');
		cJSON_ArrayForEach(it, v) {
			if (it != v->child)
				buf_puts(&w->b, ", ");
			putvalue(w, it, n, key);
		}
		buf_putc(&w->b, ']');
	} else if (cJSON_IsNumber(v)) {
		putnumber(w, v->valuedouble, "node", n->id);
	} else if (cJSON_IsObject(v)) {
		error("node \"%s\": option \"%s\": an object cannot be written "
		    "in .webnn", escape_tty_name(n->id), escape_tty_name(key));
		w->bad = 1;
	} else {
		json_put_value(&w->b, v);	/* string, bool, null */
	}
}

static void
putoption(struct wr *w, const struct node *n, const struct opdesc *d,
    const cJSON *it)
{
	if (w->bad)
		return;
	for (int k = 0; d && k < d->nOperands; k++)
		if (!strcmp(d->operands[k], it->string)) {
			error("node \"%s\": option \"%s\" has the name of an "
			    "operand of %s", escape_tty_name(n->id),
			    escape_tty_name(it->string), d->name);
			w->bad = 1;
			return;
		}
	if (!isword(it->string)) {
		error("node \"%s\": option \"%s\" is not a valid .webnn "
		    "identifier", escape_tty_name(n->id),
		    escape_tty_name(it->string));
		w->bad = 1;
		return;
	}
	buf_printf(&w->b, "%s=", it->string);
	/* operands read best bare: bias=b */
	if (d && cJSON_IsString(it) && op_isoperandarg(d, it->string) &&
	    isident(it->valuestring))
		buf_puts(&w->b, it->valuestring);
	else
		putvalue(w, it, n, it->string);
}

/* [a, b] = op(inputs..., options...); */
static void
putnode(struct wr *w, const struct node *n)
{
	const struct opdesc *d = op_lookup(n->opname);
	const cJSON *it;
	int first = 1;

	if (n->nout == 0) {
		error("node \"%s\": no outputs", escape_tty_name(n->id));
		w->bad = 1;
		return;
	}
	if (strcmp(n->id, n->out[0]) != 0)
		warn("node \"%s\": dropping its id (.webnn names a node by its "
		    "first output, \"%s\")", escape_tty_name(n->id),
		    escape_tty_name(n->out[0]));
	dropextra(n->extra, "node", n->id);
	if (d && (d->variadic ? 0 : n->nin != d->nOperands)) {
		error("node \"%s\": %s takes %d operand%s, the node has %d",
		    escape_tty_name(n->id), d->name, d->nOperands,
		    d->nOperands == 1 ? "" : "s", n->nin);
		w->bad = 1;
		return;
	}
	buf_puts(&w->b, "    ");
	if (strcmp(n->opname, LITERAL_OP) == 0 && n->nout == 1 &&
	    n->nin == 0) {	/* c = [1, 2]; */
		putname(w, n->out[0]);
		buf_puts(&w->b, " = ");
		putvalue(w, cJSON_GetObjectItemCaseSensitive(n->options,
		    "value"), n, "value");
		buf_puts(&w->b, ";\n");
		return;
	}
	if (n->multi || n->nout != 1) {
		buf_putc(&w->b, '[');
		for (int k = 0; k < n->nout; k++) {
			if (k)
				buf_puts(&w->b, ", ");
			putname(w, n->out[k]);
		}
		buf_putc(&w->b, ']');
	} else {
		putname(w, n->out[0]);
	}
	buf_puts(&w->b, " = ");
	if (!isident(n->opname)) {
		error("node \"%s\": op \"%s\" is not a valid .webnn identifier",
		    escape_tty_name(n->id), escape_tty_name(n->opname));
		w->bad = 1;
		return;
	}
	buf_printf(&w->b, "%s(", n->opname);
	if (d && d->variadic)
		buf_putc(&w->b, '[');
	for (int k = 0; k < n->nin; k++) {
		if (k)
			buf_puts(&w->b, ", ");
		putname(w, n->in[k]);
	}
	if (d && d->variadic)
		buf_putc(&w->b, ']');
	first = n->nin == 0 && !(d && d->variadic);
	cJSON_ArrayForEach(it, n->options) {
		if (!first)
			buf_puts(&w->b, ", ");
		first = 0;
		putoption(w, n, d, it);
	}
	buf_puts(&w->b, ");\n");
}

static void
putoutputs(struct wr *w, const struct graph *g)
{
	buf_puts(&w->b, "  outputs {");
	for (size_t i = 0; i < g->noutputs; i++) {
		const struct goutput *o = &g->outputs[i];

		buf_putc(&w->b, ' ');
		putname(w, o->name);
		if (o->ref && strcmp(o->name, o->ref) != 0) {
			buf_puts(&w->b, " = ");
			putname(w, o->ref);
		}
		buf_putc(&w->b, ';');
	}
	buf_puts(&w->b, g->noutputs ? " }\n" : "}\n");
}

char *
webnn_print(const struct graph *g)
{
	struct wr w = { { 0 }, 0 };
	size_t i;

	dropextra(g->extra, "graph", NULL);
	buf_puts(&w.b, "webnn_graph ");
	json_put_string(&w.b, g->name ? g->name : "");
	buf_printf(&w.b, " v%d%s {\n", g->version,
	    g->quantized ? " @quantized" : "");
	if (g->ninputs) {
		buf_puts(&w.b, "  inputs {\n");
		for (i = 0; i < g->ninputs && !w.bad; i++) {
			dropextra(g->inputs[i]->extra, "input",
			    g->inputs[i]->name);
			buf_puts(&w.b, "    ");
			putname(&w, g->inputs[i]->name);
			puttype(&w, "input", g->inputs[i]);
			buf_puts(&w.b, ";\n");
		}
		buf_puts(&w.b, "  }\n\n");
	}
	if (g->nconsts) {
		buf_puts(&w.b, "  consts {\n");
		for (i = 0; i < g->nconsts && !w.bad; i++) {
			dropextra(g->consts[i]->extra, "const",
			    g->consts[i]->name);
			buf_puts(&w.b, "    ");
			putconst(&w, g->consts[i]);
			buf_puts(&w.b, ";\n");
		}
		buf_puts(&w.b, "  }\n\n");
	}
	buf_puts(&w.b, g->nnodes ? "  nodes {\n" : "  nodes {}\n\n");
	for (i = 0; i < g->nnodes && !w.bad; i++)
		putnode(&w, g->nodes[i]);
	if (g->nnodes)
		buf_puts(&w.b, "  }\n\n");
	putoutputs(&w, g);
	buf_puts(&w.b, "}\n");
	if (w.bad) {
		free(w.b.s);
		return NULL;
	}
	return w.b.s;
}

int
webnn_save_as(const struct graph *g, const char *out)
{
	size_t n = out ? strlen(out) : 0;
	char *t;
	int rc;

	if (n < 6 || strcmp(out + n - 6, ".webnn") != 0)
		return graph_save(g, out);
	if (!(t = webnn_print(g)))
		return -1;
	rc = writefile_atomic(out, t, strlen(t));
	free(t);
	return rc;
}
