/*
 * json: webnn-graph JSON in and out.  Reading goes through cJSON and
 * checks every field, naming the item and field at fault; writing is
 * our own canonical printer (fixed key order, one item per line,
 * numbers in shortest round-trip form) so that load | save reproduces
 * canonical input byte for byte and goldens compare with diff.
 */
#define _POSIX_C_SOURCE 200809L
#include "graph.h"
#include "escape.h"
#include "jsonerr.h"
#include "modelpath.h"
#include "strtab.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- reading ---- */

struct rd {
	const char *src;
	int bad;
	int rule;	/* a model the user named: the files it names lie
			   in its folder (modelpath.h) */
};

static void
rderr(struct rd *r, const char *fmt, ...) NNL_PRINTF(2, 3);

static void
rderr(struct rd *r, const char *fmt, ...)
{
	va_list ap;
	struct srcloc l = { r->src, 0, 0, NULL, 0 };

	va_start(ap, fmt);
	verror_at(&l, fmt, ap);
	va_end(ap);
	r->bad = 1;
}

static int
isuint(const cJSON *v, double max)
{
	return cJSON_IsNumber(v) && v->valuedouble >= 0 &&
	    v->valuedouble <= max && v->valuedouble == floor(v->valuedouble);
}

/* Reject duplicate keys, which cJSON would otherwise keep silently. */
static void
nodupkeys(struct rd *r, const cJSON *obj, const char *what)
{
	struct strtab seen = { 0 };
	const cJSON *a, *first = NULL;

	cJSON_ArrayForEach(a, obj)
		if ((first = strtab_put(&seen, a->string, (void *)a)))
			break;
	strtab_free(&seen);
	if (first)
		rderr(r, "%s: duplicate key \"%s\"", what,
		    escape_tty_name(first->string));
}

/* {"dataType": ..., "shape": [...]}: 0 or -1 after reporting. */
static int
readdesc(struct rd *r, const cJSON *o, const char *what, enum dtype *dt,
    int *rank, int64_t **dims)
{
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(o, "dataType");
	const cJSON *s = cJSON_GetObjectItemCaseSensitive(o, "shape");
	const cJSON *it;
	int k = 0;

	*dims = NULL;
	if (!cJSON_IsString(t)) {
		rderr(r, "%s: field \"dataType\": %s", what,
		    t ? "expected a string" : "missing");
		return -1;
	}
	*dt = dtype_from_name(t->valuestring);
	if (*dt == DT_NONE) {
		rderr(r, "%s: field \"dataType\": unknown data type \"%s\"",
		    what, escape_tty_name(t->valuestring));
		return -1;
	}
	if (!cJSON_IsArray(s)) {
		rderr(r, "%s: field \"shape\": %s", what,
		    s ? "expected an array" : "missing");
		return -1;
	}
	*rank = cJSON_GetArraySize(s);
	if (*rank > 32) {
		rderr(r, "%s: field \"shape\": rank %d exceeds 32", what,
		    *rank);
		return -1;
	}
	*dims = xmalloc(((size_t)*rank + 1) * sizeof **dims);
	cJSON_ArrayForEach(it, s) {
		if (!isuint(it, 4294967295.0)) {
			rderr(r, "%s: field \"shape\": dimension %d is not "
			    "an integer from 0 to 4294967295", what, k);
			free(*dims);
			*dims = NULL;
			return -1;
		}
		(*dims)[k++] = (int64_t)it->valuedouble;
	}
	return 0;
}

/* Keep every member of o not named in known[] (NULL-terminated). */
static cJSON *
extras(const cJSON *o, const char *const *known)
{
	cJSON *x = NULL;
	const cJSON *it;

	cJSON_ArrayForEach(it, o) {
		int k;

		for (k = 0; known[k]; k++)
			if (strcmp(it->string, known[k]) == 0)
				break;
		if (known[k])
			continue;
		if (!x)
			x = cJSON_CreateObject();
		cJSON_AddItemToObject(x, it->string,
		    cJSON_Duplicate(it, 1));
	}
	return x;
}

static const char *const topkeys[] = { "format", "version", "name",
    "quantized", "weights", "inputs", "consts", "nodes", "outputs", NULL };
static const char *const desckeys[] = { "dataType", "shape", NULL };
static const char *const constkeys[] = { "dataType", "shape", "init",
    NULL };
static const char *const nodekeys[] = { "id", "op", "inputs", "options",
    "outputs", "types", NULL };

static void
readinputs(struct rd *r, struct graph *g, const cJSON *o)
{
	const cJSON *it;

	if (!cJSON_IsObject(o)) {
		rderr(r, "field \"inputs\": %s",
		    o ? "expected an object" : "missing");
		return;
	}
	nodupkeys(r, o, "field \"inputs\"");
	cJSON_ArrayForEach(it, o) {
		char *what = xasprintf("input \"%s\"",
		    escape_tty_name(it->string));
		enum dtype dt;
		int rank;
		int64_t *dims;

		if (!cJSON_IsObject(it))
			rderr(r, "%s: expected an object", what);
		else if (readdesc(r, it, what, &dt, &rank, &dims) == 0) {
			struct operand *op = graph_add_input(g, it->string,
			    dt, rank, dims);

			op->extra = extras(it, desckeys);
			free(dims);
		}
		free(what);
	}
}

static void
readinit(struct rd *r, struct operand *c, const cJSON *init,
    const char *what)
{
	const cJSON *kind = cJSON_GetObjectItemCaseSensitive(init, "kind");
	const cJSON *v;

	if (!cJSON_IsObject(init)) {
		rderr(r, "%s: field \"init\": %s", what,
		    init ? "expected an object" : "missing");
		return;
	}
	if (!cJSON_IsString(kind)) {
		rderr(r, "%s: field \"init.kind\": %s", what,
		    kind ? "expected a string" : "missing");
		return;
	}
	if (strcmp(kind->valuestring, "weights") == 0) {
		v = cJSON_GetObjectItemCaseSensitive(init, "ref");
		if (!cJSON_IsString(v) || !v->valuestring[0]) {
			rderr(r, "%s: field \"init.ref\": %s", what,
			    v ? "expected a non-empty string" : "missing");
			return;
		}
		c->init = INIT_WEIGHTS;
		c->ref = xstrdup(v->valuestring);
	} else if (strcmp(kind->valuestring, "scalar") == 0) {
		v = cJSON_GetObjectItemCaseSensitive(init, "value");
		if (!cJSON_IsNumber(v)) {
			rderr(r, "%s: field \"init.value\": %s", what,
			    v ? "expected a number" : "missing");
			return;
		}
		c->init = INIT_SCALAR;
		c->value = v->valuedouble;
	} else if (strcmp(kind->valuestring, "inlineBytes") == 0) {
		const cJSON *it;
		size_t k = 0;

		v = cJSON_GetObjectItemCaseSensitive(init, "bytes");
		if (!cJSON_IsArray(v)) {
			rderr(r, "%s: field \"init.bytes\": %s", what,
			    v ? "expected an array" : "missing");
			return;
		}
		c->init = INIT_BYTES;
		c->nbytes = (size_t)cJSON_GetArraySize(v);
		c->bytes = xmalloc(c->nbytes + 1);
		cJSON_ArrayForEach(it, v) {
			if (!isuint(it, 255)) {
				rderr(r, "%s: field \"init.bytes\": element "
				    "%zu is not an integer from 0 to 255",
				    what, k);
				return;
			}
			c->bytes[k++] = (unsigned char)it->valuedouble;
		}
	} else {
		rderr(r, "%s: field \"init.kind\": unknown kind \"%s\" "
		    "(weights, scalar or inlineBytes)", what,
		    escape_tty_name(kind->valuestring));
	}
}

static void
readconsts(struct rd *r, struct graph *g, const cJSON *o)
{
	const cJSON *it;

	if (!o)
		return;
	if (!cJSON_IsObject(o)) {
		rderr(r, "field \"consts\": expected an object");
		return;
	}
	nodupkeys(r, o, "field \"consts\"");
	cJSON_ArrayForEach(it, o) {
		char *what = xasprintf("const \"%s\"",
		    escape_tty_name(it->string));
		enum dtype dt;
		int rank;
		int64_t *dims;

		if (!cJSON_IsObject(it))
			rderr(r, "%s: expected an object", what);
		else if (readdesc(r, it, what, &dt, &rank, &dims) == 0) {
			struct operand *c = graph_add_const(g, it->string,
			    dt, rank, dims);

			free(dims);
			readinit(r, c, cJSON_GetObjectItemCaseSensitive(it,
			    "init"), what);
			c->extra = extras(it, constkeys);
		}
		free(what);
	}
}

/* A non-empty array of strings, appended through add. */
static int
readnames(struct rd *r, const cJSON *a, const char *what, const char *field,
    struct node *n, void (*add)(struct node *, const char *))
{
	const cJSON *it;
	int k = 0;

	if (!cJSON_IsArray(a)) {
		rderr(r, "%s: field \"%s\": %s", what, field,
		    a ? "expected an array of operand names" : "missing");
		return -1;
	}
	cJSON_ArrayForEach(it, a) {
		if (!cJSON_IsString(it) || !it->valuestring[0]) {
			rderr(r, "%s: field \"%s\": element %d is not an "
			    "operand name", what, field, k);
			return -1;
		}
		add(n, it->valuestring);
		k++;
	}
	return 0;
}

/* "types": [{"dataType", "shape"}, ...], one per output. */
static void
readtypes(struct rd *r, struct node *n, const cJSON *a, const char *what)
{
	const cJSON *it;
	int k = 0;

	if (!a)
		return;
	if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) != n->nout) {
		rderr(r, "%s: field \"types\": expected an array of %d type%s, "
		    "one per output", what, n->nout, n->nout == 1 ? "" : "s");
		return;
	}
	cJSON_ArrayForEach(it, a) {
		char *w = xasprintf("%s: field \"types\"[%d]", what, k);
		enum dtype dt;
		int rank;
		int64_t *dims;

		if (!cJSON_IsObject(it))
			rderr(r, "%s: expected an object", w);
		else if (readdesc(r, it, w, &dt, &rank, &dims) == 0) {
			node_set_type(n, k, dt, rank, dims);
			free(dims);
		}
		free(w);
		k++;
	}
}

static void
readnodes(struct rd *r, struct graph *g, const cJSON *a)
{
	const cJSON *it;
	int k = 0;

	if (!cJSON_IsArray(a)) {
		rderr(r, "field \"nodes\": %s",
		    a ? "expected an array" : "missing");
		return;
	}
	cJSON_ArrayForEach(it, a) {
		const cJSON *id = cJSON_GetObjectItemCaseSensitive(it, "id");
		const cJSON *op = cJSON_GetObjectItemCaseSensitive(it, "op");
		const cJSON *opt, *outs;
		struct node *n;
		char *what;

		if (!cJSON_IsObject(it)) {
			rderr(r, "nodes[%d]: expected an object", k++);
			continue;
		}
		nodupkeys(r, it, "node");
		if (!cJSON_IsString(id) || !id->valuestring[0]) {
			rderr(r, "nodes[%d]: field \"id\": %s", k++,
			    id ? "expected a non-empty string" : "missing");
			continue;
		}
		what = xasprintf("node \"%s\"",
		    escape_tty_name(id->valuestring));
		if (!cJSON_IsString(op) || !op->valuestring[0]) {
			rderr(r, "%s: field \"op\": %s", what,
			    op ? "expected a non-empty string" : "missing");
			free(what);
			k++;
			continue;
		}
		n = graph_add_node(g, id->valuestring, op->valuestring);
		readnames(r, cJSON_GetObjectItemCaseSensitive(it, "inputs"),
		    what, "inputs", n, node_add_input);
		opt = cJSON_GetObjectItemCaseSensitive(it, "options");
		if (opt && !cJSON_IsObject(opt))
			rderr(r, "%s: field \"options\": expected an object",
			    what);
		else if (opt) {
			nodupkeys(r, opt, what);
			cJSON_Delete(n->options);
			n->options = cJSON_Duplicate(opt, 1);
		}
		outs = cJSON_GetObjectItemCaseSensitive(it, "outputs");
		/* webnn-graph writes "outputs": null on a one-output node */
		if (outs && !cJSON_IsNull(outs)) {
			n->multi = 1;
			if (readnames(r, outs, what, "outputs", n,
			    node_add_output) == 0 && n->nout == 0)
				rderr(r, "%s: field \"outputs\": empty", what);
		} else {
			node_add_output(n, n->id);
		}
		readtypes(r, n, cJSON_GetObjectItemCaseSensitive(it, "types"),
		    what);
		n->extra = extras(it, nodekeys);
		free(what);
		k++;
	}
}

static void
readoutputs(struct rd *r, struct graph *g, const cJSON *o)
{
	const cJSON *it;

	if (!cJSON_IsObject(o)) {
		rderr(r, "field \"outputs\": %s",
		    o ? "expected an object" : "missing");
		return;
	}
	nodupkeys(r, o, "field \"outputs\"");
	cJSON_ArrayForEach(it, o) {
		if (!cJSON_IsString(it) || !it->valuestring[0]) {
			rderr(r, "output \"%s\": expected the name of an "
			    "operand", escape_tty_name(it->string));
			continue;
		}
		graph_add_output(g, it->string, it->valuestring);
	}
}

/*
 * Under r->rule, the weights "what" path name, from the model's folder
 * dir, must not be absolute or lead out of it: 0, or -1 after the
 * error.  A file that cannot be resolved (missing) passes here, and
 * validation says so without reading anything.
 */
static int
inmodel(struct rd *r, const char *dir, const char *what, const char *name)
{
	const char *why;
	char *p;

	if (!r->rule)
		return 0;
	if ((p = modelpath(dir, name, 0, &why)) != NULL || errno != 0) {
		free(p);
		return 0;
	}
	rderr(r, "field \"weights\": %s path '%s' %s", what,
	    escape_tty_name(name), why);
	return -1;
}

static void
readweights(struct rd *r, struct graph *g, const cJSON *w, const char *dir)
{
	const cJSON *f = cJSON_GetObjectItemCaseSensitive(w, "file");
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(w, "manifest");

	if (!w)
		return;
	if (!cJSON_IsObject(w) || !cJSON_IsString(f) || !cJSON_IsString(m) ||
	    !f->valuestring[0] || !m->valuestring[0] ||
	    cJSON_GetArraySize(w) != 2) {
		rderr(r, "field \"weights\": expected {\"file\": PATH, "
		    "\"manifest\": PATH}");
		return;
	}
	if (inmodel(r, dir, "file", f->valuestring) != 0 ||
	    inmodel(r, dir, "manifest", m->valuestring) != 0)
		return;
	g->weights_file = path_join(dir, f->valuestring);
	g->manifest_file = path_join(dir, m->valuestring);
}

/* Line and column of byte offset off in text. */
static void
linecol(const char *text, size_t off, int *line, int *col)
{
	*line = 1;
	*col = 1;
	for (size_t i = 0; i < off; i++) {
		if (text[i] == '\n') {
			(*line)++;
			*col = 1;
		} else {
			(*col)++;
		}
	}
}

static struct graph *
fromjson(const char *text, size_t len, const char *name, const char *dir,
    int rule)
{
	const char *end = NULL;
	cJSON *root;
	const cJSON *f, *v, *nm;
	struct graph *g;
	struct rd r = { name, 0, rule };

	/* syntax, and strings that cannot be names, with the position */
	if (json_check(text, len, name) != 0)
		return NULL;
	root = cJSON_ParseWithLengthOpts(text, len, &end, 0);
	if (root)	/* white space may follow the value */
		while (end < text + len && strchr(" \t\r\n", *end) && *end)
			end++;
	if (!root || (size_t)(end - text) < len) {
		struct srcloc l = { name, 0, 0, text, len };
		size_t off = 0;
		const char *msg = NULL;

		if (json_syntax_error(text, len, &off, &msg) == 0) {
			/* cJSON refused what the grammar allows: a limit */
			off = 0;
			msg = "JSON value too large or too deep to read";
		}
		linecol(text, off, &l.line, &l.col);
		error_at(&l, "invalid JSON: %s", msg);
		cJSON_Delete(root);
		return NULL;
	}
	g = graph_new();
	g->src = name;
	if (!cJSON_IsObject(root)) {
		rderr(&r, "expected a JSON object at the top level");
		goto out;
	}
	nodupkeys(&r, root, "top level");
	f = cJSON_GetObjectItemCaseSensitive(root, "format");
	if (!cJSON_IsString(f) || strcmp(f->valuestring,
	    "webnn-graph-json") != 0) {
		rderr(&r, "field \"format\": %s", f ?
		    "expected \"webnn-graph-json\"" : "missing");
		goto out;
	}
	v = cJSON_GetObjectItemCaseSensitive(root, "version");
	/* 2 is what webnn-graph's serializer writes: the same format */
	if (!cJSON_IsNumber(v) || (v->valuedouble != 1 &&
	    v->valuedouble != 2)) {
		rderr(&r, "field \"version\": %s", v ?
		    "unsupported version (nnl reads versions 1 and 2)" :
		    "missing");
		goto out;
	}
	g->version = (int)v->valuedouble;
	nm = cJSON_GetObjectItemCaseSensitive(root, "name");
	if (nm && !cJSON_IsString(nm))
		rderr(&r, "field \"name\": expected a string");
	else if (nm)
		g->name = xstrdup(nm->valuestring);
	nm = cJSON_GetObjectItemCaseSensitive(root, "quantized");
	if (nm && !cJSON_IsBool(nm))
		rderr(&r, "field \"quantized\": expected true or false");
	else if (nm)
		g->quantized = cJSON_IsTrue(nm);
	readweights(&r, g, cJSON_GetObjectItemCaseSensitive(root, "weights"),
	    dir);
	readinputs(&r, g, cJSON_GetObjectItemCaseSensitive(root, "inputs"));
	readconsts(&r, g, cJSON_GetObjectItemCaseSensitive(root, "consts"));
	readnodes(&r, g, cJSON_GetObjectItemCaseSensitive(root, "nodes"));
	readoutputs(&r, g, cJSON_GetObjectItemCaseSensitive(root, "outputs"));
	g->extra = extras(root, topkeys);
out:
	cJSON_Delete(root);
	if (r.bad) {
		graph_free(g);
		return NULL;
	}
	graph_index(g);
	return g;
}

struct graph *
graph_from_json(const char *text, size_t len, const char *name,
    const char *dir)
{
	return fromjson(text, len, name, dir, 0);
}

struct graph *
json_read_model(const char *text, size_t len, const char *name,
    const char *dir, int rule)
{
	return fromjson(text, len, name, dir, rule);
}

/* ---- writing ---- */

static void
putdesc(struct buf *b, const struct tdesc *t)
{
	buf_puts(b, "\"dataType\": ");
	json_put_string(b, dtype_name(t->dt));
	buf_puts(b, ", \"shape\": [");
	for (int i = 0; i < t->rank; i++)
		buf_printf(b, "%s%lld", i ? ", " : "", (long long)t->dims[i]);
	buf_putc(b, ']');
}

static int
typesknown(const struct node *n)
{
	for (int k = 0; k < n->nout; k++)
		if (n->types[k].rank < 0 || n->types[k].dt == DT_NONE)
			return 0;
	return 1;
}

/* Members of an extras object, each as ", \"key\": value". */
static void
putextras(struct buf *b, const cJSON *x)
{
	const cJSON *it;

	cJSON_ArrayForEach(it, x) {
		buf_puts(b, ", ");
		json_put_string(b, it->string);
		buf_puts(b, ": ");
		json_put_value(b, it);
	}
}

static void
putinit(struct buf *b, const struct operand *c)
{
	buf_puts(b, "\"init\": {\"kind\": ");
	switch (c->init) {
	case INIT_WEIGHTS:
		buf_puts(b, "\"weights\", \"ref\": ");
		json_put_string(b, c->ref);
		break;
	case INIT_SCALAR:
		buf_puts(b, "\"scalar\", \"value\": ");
		json_put_number(b, c->value);
		break;
	case INIT_BYTES:
		buf_puts(b, "\"inlineBytes\", \"bytes\": [");
		for (size_t i = 0; i < c->nbytes; i++)
			buf_printf(b, "%s%u", i ? ", " : "", c->bytes[i]);
		buf_putc(b, ']');
		break;
	}
	buf_putc(b, '}');
}

/* A path valid from outdir (cwd-relative paths in memory): relative to
 * the folder of the file written, so that a folder of JSON, weights and
 * manifest can be moved together. */
static char *
relpath(const char *path, const char *outdir)
{
	char cwd[4096], *r;

	/* On standard output the reader is unknown: a later stage may
	 * read from a file elsewhere.  Only an absolute path is safe. */
	if (outdir && (r = path_relative(path, outdir)) != NULL)
		return r;
	if (path[0] == '/' || !getcwd(cwd, sizeof cwd))
		return xstrdup(path);
	return path_join(cwd, path);
}

/* The names v[0..n-1] as a JSON array's elements. */
static void
putnames(struct buf *b, char *const *v, int n)
{
	for (int k = 0; k < n; k++) {
		if (k)
			buf_puts(b, ", ");
		json_put_string(b, v[k]);
	}
}

/* Node n as its JSON object: id, op, inputs, options, the outputs of a
 * node of several, the types when known, and the fields it keeps. */
static void
putnode(struct buf *b, const struct node *n)
{
	buf_puts(b, "{\"id\": ");
	json_put_string(b, n->id);
	buf_puts(b, ", \"op\": ");
	json_put_string(b, n->opname);
	buf_puts(b, ", \"inputs\": [");
	putnames(b, n->in, n->nin);
	buf_puts(b, "], \"options\": ");
	json_put_value(b, n->options);
	if (n->multi) {
		buf_puts(b, ", \"outputs\": [");
		putnames(b, n->out, n->nout);
		buf_putc(b, ']');
	}
	if (n->types && typesknown(n)) {
		buf_puts(b, ", \"types\": [");
		for (int k = 0; k < n->nout; k++) {
			buf_puts(b, k ? ", {" : "{");
			putdesc(b, &n->types[k]);
			buf_putc(b, '}');
		}
		buf_putc(b, ']');
	}
	putextras(b, n->extra);
	buf_putc(b, '}');
}

char *
graph_to_json(const struct graph *g, const char *outdir)
{
	struct buf b = { 0 };
	size_t i;

	buf_puts(&b, "{\n  \"format\": \"webnn-graph-json\",\n");
	buf_printf(&b, "  \"version\": %d,\n", g->version);
	if (g->name) {
		buf_puts(&b, "  \"name\": ");
		json_put_string(&b, g->name);
		buf_puts(&b, ",\n");
	}
	if (g->quantized)
		buf_puts(&b, "  \"quantized\": true,\n");
	if (g->weights_file) {
		char *f = relpath(g->weights_file, outdir);
		char *m = relpath(g->manifest_file, outdir);

		buf_puts(&b, "  \"weights\": {\"file\": ");
		json_put_string(&b, f);
		buf_puts(&b, ", \"manifest\": ");
		json_put_string(&b, m);
		buf_puts(&b, "},\n");
		free(f);
		free(m);
	}
	buf_puts(&b, "  \"inputs\": {");
	for (i = 0; i < g->ninputs; i++) {
		const struct operand *o = g->inputs[i];

		buf_puts(&b, i ? ",\n    " : "\n    ");
		json_put_string(&b, o->name);
		buf_puts(&b, ": {");
		putdesc(&b, &o->desc);
		putextras(&b, o->extra);
		buf_putc(&b, '}');
	}
	buf_puts(&b, g->ninputs ? "\n  },\n" : "},\n");
	buf_puts(&b, "  \"consts\": {");
	for (i = 0; i < g->nconsts; i++) {
		const struct operand *o = g->consts[i];

		buf_puts(&b, i ? ",\n    " : "\n    ");
		json_put_string(&b, o->name);
		buf_puts(&b, ": {");
		putdesc(&b, &o->desc);
		buf_puts(&b, ", ");
		putinit(&b, o);
		putextras(&b, o->extra);
		buf_putc(&b, '}');
	}
	buf_puts(&b, g->nconsts ? "\n  },\n" : "},\n");
	buf_puts(&b, "  \"nodes\": [");
	for (i = 0; i < g->nnodes; i++) {
		buf_puts(&b, i ? ",\n    " : "\n    ");
		putnode(&b, g->nodes[i]);
	}
	buf_puts(&b, g->nnodes ? "\n  ],\n" : "],\n");
	buf_puts(&b, "  \"outputs\": {");
	for (i = 0; i < g->noutputs; i++) {
		buf_puts(&b, i ? ",\n    " : "\n    ");
		json_put_string(&b, g->outputs[i].name);
		buf_puts(&b, ": ");
		json_put_string(&b, g->outputs[i].ref);
	}
	buf_puts(&b, g->noutputs ? "\n  }" : "}");
	{
		const cJSON *it;

		cJSON_ArrayForEach(it, g->extra) {
			buf_puts(&b, ",\n  ");
			json_put_string(&b, it->string);
			buf_puts(&b, ": ");
			json_put_value(&b, it);
		}
	}
	buf_puts(&b, "\n}\n");
	return b.s;
}

int
graph_save(const struct graph *g, const char *path)
{
	struct outfile o;
	char *dir = (!path || strcmp(path, "-") == 0) ? NULL :
	    path_dirname(path);
	char *text = graph_to_json(g, dir);
	size_t len = strlen(text);
	int rc = -1;

	free(dir);
	if (outfile_open(&o, path) == 0) {
		if (fwrite(text, 1, len, o.fp) != len) {
			error("%s: write error: %s", displayname(path),
			    strerror(errno));
			outfile_abort(&o);
		} else {
			rc = outfile_commit(&o);
		}
	}
	free(text);
	return rc;
}
