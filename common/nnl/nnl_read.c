/*
 * nnl_read: the NNL lexer and parser.  The syntax tree is small: the
 * version, the model's name, config entries, layers with named
 * parameters, and connections.  Lowering is in nnl_lower.c.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "nnl.h"
#include "nnl_ast.h"
#include "escape.h"
#include "escape.h"

struct lex {
	const char *s, *p, *end;
	int line, col;
	const char *name;
	int bad;
};

void
nnl_err(struct nmodel *m, struct pos p, const char *fmt, ...)
{
	struct srcloc l = { m->name, p.line, p.col, m->text, m->len };
	va_list ap;

	va_start(ap, fmt);
	verror_at(&l, fmt, ap);
	va_end(ap);
	m->nerr++;
}

static void
adv(struct lex *x)
{
	if (*x->p == '\n') {
		x->line++;
		x->col = 1;
	} else {
		x->col++;
	}
	x->p++;
}

static void
skip(struct lex *x)
{
	for (;;) {
		while (x->p < x->end && isspace((unsigned char)*x->p))
			adv(x);
		if (x->p + 1 < x->end && x->p[0] == '/' && x->p[1] == '/') {
			while (x->p < x->end && *x->p != '\n')
				adv(x);
		} else if (x->p + 1 < x->end && x->p[0] == '/' &&
		    x->p[1] == '*') {
			adv(x);
			adv(x);
			while (x->p + 1 < x->end && !(x->p[0] == '*' &&
			    x->p[1] == '/'))
				adv(x);
			if (x->p + 1 >= x->end) {
				x->p = x->end;
				return;
			}
			adv(x);
			adv(x);
		} else {
			return;
		}
	}
}

struct parser {
	struct lex x;
	struct nmodel *m;
	/* the current token */
	enum { T_EOF, T_ID, T_NUM, T_STR, T_PUNCT, T_ARROW, T_BAD } t;
	char *text;		/* its text, whole: tb.s */
	struct buf tb;
	double num;
	struct pos pos;
};

/* The token's text: set, or add one byte. */
static void
tset(struct parser *P, const char *s)
{
	P->tb.n = 0;
	buf_puts(&P->tb, s);
	P->text = P->tb.s;
}

static void
tput(struct parser *P, int c)
{
	buf_putc(&P->tb, c);
	P->text = P->tb.s;
}

/* A string's next character at x->p, added to the token: a byte below
 * 0x80 but a control (other than a tab), or a well-formed UTF-8
 * sequence.  -1 after reporting anything else: a NUL would cut the
 * name short, and the JSON a model becomes holds no invalid UTF-8. */
static int
strchar(struct parser *P)
{
	struct lex *x = &P->x;
	unsigned char c = (unsigned char)*x->p;
	struct pos at = { x->line, x->col };
	unsigned long cp;
	size_t k;

	if (c < 0x20 && c != '\t') {
		nnl_err(P->m, at, "control character 0x%02x in a string", c);
		return -1;
	}
	if ((k = escape_utf8len(x->p, (size_t)(x->end - x->p), &cp)) == 0) {
		nnl_err(P->m, at, "invalid UTF-8 in a string (byte 0x%02x)",
		    c);
		return -1;
	}
	while (k-- > 0) {
		tput(P, *x->p);
		adv(x);
	}
	return 0;
}

static void
next(struct parser *P)
{
	struct lex *x = &P->x;

	skip(x);
	P->pos.line = x->line;
	P->pos.col = x->col;
	tset(P, "");
	if (x->p >= x->end) {
		P->t = T_EOF;
		tset(P, "end of file");
		return;
	}
	if (isalpha((unsigned char)*x->p) || *x->p == '_') {
		while (x->p < x->end && (isalnum((unsigned char)*x->p) ||
		    *x->p == '_')) {
			tput(P, *x->p);
			adv(x);
		}
		P->t = T_ID;
		return;
	}
	if (isdigit((unsigned char)*x->p) || ((*x->p == '-' || *x->p == '.') &&
	    x->p + 1 < x->end && (isdigit((unsigned char)x->p[1]) ||
	    x->p[1] == '.'))) {
		char *e;

		while (x->p < x->end && (isalnum((unsigned char)*x->p) ||
		    strchr(".-+", *x->p))) {
			size_t n = P->tb.n;

			if ((*x->p == '-' || *x->p == '+') && n > 0 &&
			    P->text[n - 1] != 'e' && P->text[n - 1] != 'E')
				break;
			tput(P, *x->p);
			adv(x);
		}
		P->num = strtod(P->text, &e);
		P->t = *e || P->tb.n == 0 ? T_BAD : T_NUM;
		return;
	}
	if (*x->p == '"') {
		adv(x);
		while (x->p < x->end && *x->p != '"' && *x->p != '\n')
			if (strchar(P) != 0) {
				P->t = T_BAD;
				return;
			}
		if (x->p >= x->end || *x->p != '"') {
			nnl_err(P->m, P->pos, "unterminated string");
			P->t = T_BAD;
			return;
		}
		adv(x);
		P->t = T_STR;
		return;
	}
	if (*x->p == '-' && x->p + 1 < x->end && x->p[1] == '>') {
		adv(x);
		adv(x);
		tset(P, "->");
		P->t = T_ARROW;
		return;
	}
	if (strchr("{}()[];:,=", *x->p) && *x->p) {
		tput(P, *x->p);
		adv(x);
		P->t = T_PUNCT;
		return;
	}
	if ((unsigned char)*x->p >= 0x20 && (unsigned char)*x->p < 0x7f)
		buf_printf(&P->tb, "'%c'", *x->p);
	else
		buf_printf(&P->tb, "byte 0x%02x", (unsigned char)*x->p);
	P->text = P->tb.s;
	adv(x);
	P->t = T_BAD;
}

static int
is(struct parser *P, const char *punct)
{
	return (P->t == T_PUNCT || P->t == T_ARROW) &&
	    strcmp(P->text, punct) == 0;
}

static int
iskw(struct parser *P, const char *kw)
{
	return P->t == T_ID && strcmp(P->text, kw) == 0;
}

static int
expect(struct parser *P, const char *punct, const char *after)
{
	if (is(P, punct)) {
		next(P);
		return 0;
	}
	nnl_err(P->m, P->pos, "expected '%s' %s, found %s%s%s", punct, after,
	    P->t == T_STR ? "\"" : "", escape_tty_name(P->text),
	    P->t == T_STR ? "\"" : "");
	return -1;
}

static int
ident(struct parser *P, char **out, const char *what)
{
	if (P->t != T_ID) {
		nnl_err(P->m, P->pos, "expected %s, found %s", what,
		    escape_tty_name(P->text));
		return -1;
	}
	*out = xstrdup(P->text);
	next(P);
	return 0;
}

static int value(struct parser *P, struct nval *v, int depth);

static int
value(struct parser *P, struct nval *v, int depth)
{
	memset(v, 0, sizeof *v);
	v->pos = P->pos;
	if (depth > 8) {
		nnl_err(P->m, P->pos, "lists nested too deeply");
		return -1;
	}
	if (P->t == T_NUM) {
		v->k = NV_NUM;
		v->num = P->num;
		v->str = xstrdup(P->text);
		next(P);
		return 0;
	}
	if (P->t == T_STR || P->t == T_ID) {
		v->k = P->t == T_STR ? NV_STR : NV_ID;
		v->str = xstrdup(P->text);
		next(P);
		return 0;
	}
	if (is(P, "[")) {
		v->k = NV_LIST;
		next(P);
		while (!is(P, "]")) {
			v->items = xrealloc(v->items, (size_t)(v->n + 1) *
			    sizeof *v->items);
			if (value(P, &v->items[v->n++], depth + 1))
				return -1;
			if (!is(P, "]") && expect(P, ",", "between values"))
				return -1;
		}
		next(P);
		return 0;
	}
	nnl_err(P->m, P->pos, "expected a value, found %s",
	    escape_tty_name(P->text));
	return -1;
}

static int
config(struct parser *P)
{
	struct nmodel *m = P->m;

	next(P);
	if (expect(P, "{", "after 'config'"))
		return -1;
	while (!is(P, "}")) {
		struct nparam *c;

		if (P->t == T_EOF)
			return expect(P, "}", "to close the config block");
		m->config = xrealloc(m->config, (size_t)(m->nconfig + 1) *
		    sizeof *m->config);
		c = &m->config[m->nconfig++];
		memset(c, 0, sizeof *c);
		c->pos = P->pos;
		if (ident(P, &c->name, "a config key") ||
		    expect(P, ":", "after the config key") ||
		    value(P, &c->v, 0) ||
		    expect(P, ";", "after the config value"))
			return -1;
	}
	next(P);
	return 0;
}

static int
layer(struct parser *P)
{
	struct nmodel *m = P->m;
	struct nlayer *l;

	next(P);
	m->layers = xrealloc(m->layers, (size_t)(m->nlayers + 1) *
	    sizeof *m->layers);
	l = &m->layers[m->nlayers++];
	memset(l, 0, sizeof *l);
	l->pos = P->pos;
	if (ident(P, &l->id, "a layer name"))
		return -1;
	if (expect(P, "=", "after the layer name"))
		return -1;
	l->typepos = P->pos;
	if (ident(P, &l->type, "a layer type") ||
	    expect(P, "(", "after the layer type"))
		return -1;
	while (!is(P, ")")) {
		struct nparam *p;

		l->params = xrealloc(l->params, (size_t)(l->np + 1) *
		    sizeof *l->params);
		p = &l->params[l->np++];
		memset(p, 0, sizeof *p);
		p->pos = P->pos;
		if (ident(P, &p->name, "a parameter name") ||
		    expect(P, ":", "after the parameter name") ||
		    value(P, &p->v, 0))
			return -1;
		if (!is(P, ")") && expect(P, ",", "between parameters"))
			return -1;
	}
	next(P);
	return expect(P, ";", "after the layer declaration");
}

static int
connections(struct parser *P)
{
	struct nmodel *m = P->m;

	m->hasconn = 1;
	next(P);
	if (expect(P, "{", "after 'connections'"))
		return -1;
	while (!is(P, "}")) {
		struct nconn *c;

		if (P->t == T_EOF)
			return expect(P, "}", "to close the connections block");
		m->conns = xrealloc(m->conns, (size_t)(m->nconns + 1) *
		    sizeof *m->conns);
		c = &m->conns[m->nconns++];
		memset(c, 0, sizeof *c);
		c->pos = P->pos;
		if (is(P, "[")) {
			next(P);
			while (!is(P, "]")) {
				c->from = xrealloc(c->from, (size_t)(c->nfrom +
				    1) * sizeof *c->from);
				c->frompos = xrealloc(c->frompos,
				    (size_t)(c->nfrom + 1) * sizeof *c->frompos);
				c->frompos[c->nfrom] = P->pos;
				c->from[c->nfrom] = NULL;
				if (ident(P, &c->from[c->nfrom++],
				    "a layer name"))
					return -1;
				if (!is(P, "]") && expect(P, ",",
				    "between layer names"))
					return -1;
			}
			next(P);
		} else {
			c->from = xcalloc(1, sizeof *c->from);
			c->frompos = xmalloc(sizeof *c->frompos);
			c->frompos[0] = P->pos;
			c->nfrom = 1;
			if (ident(P, &c->from[0], "a layer name"))
				return -1;
		}
		if (expect(P, "->", "in a connection"))
			return -1;
		c->topos = P->pos;
		if (ident(P, &c->to, "a layer name") ||
		    expect(P, ";", "after the connection"))
			return -1;
	}
	next(P);
	return 0;
}

/* "0.2" to NNL_LANG_VERSION ("0.2.0" too): a language this reads */
static int
knownversion(const char *v)
{
	int minor, n = 0;

	if (strncmp(v, "0.", 2) || !isdigit((unsigned char)v[2]) ||
	    sscanf(v + 2, "%d%n", &minor, &n) != 1)
		return 0;
	v += 2 + n;
	if (*v == '.')
		while (isdigit((unsigned char)*++v))
			;
	return !*v && minor >= 2 && minor <= NNL_LANG_MINOR;
}

static int
syntax(struct parser *P)
{
	struct nmodel *m = P->m;

	next(P);
	if (iskw(P, "version")) {
		next(P);
		if (P->t != T_NUM) {
			nnl_err(m, P->pos, "expected a version number, "
			    "found %s", escape_tty_name(P->text));
			return -1;
		}
		m->version = xstrdup(P->text);
		if (!knownversion(P->text)) {
			struct srcloc l = { m->name, P->pos.line, P->pos.col,
			    m->text, m->len };

			warn_at(&l, "version %s: this nnl reads NNL 0.2 to "
			    NNL_LANG_VERSION "; reading it as "
			    NNL_LANG_VERSION, escape_tty_name(P->text));
		}
		next(P);
		if (expect(P, ";", "after the version"))
			return -1;
	} else {
		struct srcloc l = { m->name, P->pos.line, P->pos.col, m->text,
		    m->len };

		warn_at(&l, "W002: no 'version' line: reading as NNL 0.2");
	}
	if (!iskw(P, "model")) {
		nnl_err(m, P->pos, "expected 'model', found %s",
		    escape_tty_name(P->text));
		return -1;
	}
	next(P);
	m->modelpos = P->pos;
	if (ident(P, &m->model, "the model's name") ||
	    expect(P, "{", "after the model's name"))
		return -1;
	while (!is(P, "}")) {
		int rc;

		if (iskw(P, "config"))
			rc = config(P);
		else if (iskw(P, "layer"))
			rc = layer(P);
		else if (iskw(P, "connections"))
			rc = connections(P);
		else {
			nnl_err(m, P->pos, "expected 'config', 'layer', "
			    "'connections' or '}', found %s",
			    escape_tty_name(P->text));
			rc = -1;
		}
		if (rc)
			return -1;
	}
	next(P);
	if (P->t != T_EOF) {
		nnl_err(m, P->pos, "unexpected %s after the model",
		    escape_tty_name(P->text));
		return -1;
	}
	return m->nerr ? -1 : 0;
}

int
nnl_syntax(struct nmodel *m)
{
	struct parser P;
	int rc;

	memset(&P, 0, sizeof P);
	P.m = m;
	P.x.s = P.x.p = m->text;
	P.x.end = m->text + m->len;
	P.x.line = P.x.col = 1;
	rc = syntax(&P);
	free(P.tb.s);
	return rc;
}

/* Does the word kw (not a longer name) start p, before end? */
static int
word(const char *p, const char *end, const char *kw)
{
	size_t n = strlen(kw);

	return (size_t)(end - p) >= n && strncmp(p, kw, n) == 0 &&
	    ((size_t)(end - p) == n || !(isalnum((unsigned char)p[n]) ||
	    p[n] == '_'));
}

int
nnl_detect(const char *text, size_t len)
{
	struct lex x;

	memset(&x, 0, sizeof x);
	x.s = x.p = text;
	x.end = text + len;
	x.line = x.col = 1;
	skip(&x);
	return word(x.p, x.end, "version") || word(x.p, x.end, "model");
}
