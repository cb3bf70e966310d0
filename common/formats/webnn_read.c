/*
 * webnn_read: the .webnn text form into a graph.  A hand-written lexer
 * and recursive-descent parser for the webnn-graph DSL: the seed's
 * grammar plus the extensions nnl documents (i4/u4, @bytes, `y = x` and
 * `y = 1.5` statements, `name = ref` outputs).  The first syntax error is
 * reported with file:line:col and a caret and parsing stops there;
 * everything semantic (known ops, option types, references) is left to
 * validate.c, so an unknown op or option is kept, not refused.
 *
 * Errors unwind with longjmp to webnn_parse, which frees the graph and
 * the parser's scratch: everything allocated along the way hangs off
 * one of the two, so no path leaks.
 *
 * The file is longer than the thousand lines common/ modules aim for:
 * the lexer (with its escape and UTF-8 checks) and the parser share one
 * state and one error exit, and split in two they would need an
 * interface between them that nothing else would use.
 */
#include "graph.h"
#include "escape.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

enum {
	MAXDEPTH = 64,		/* nesting of array values */
	MAXRANK = 32,		/* as the JSON reader */
	SHOWMAX = 24		/* bytes of a token quoted in a message */
};

enum tkind { T_EOF, T_IDENT, T_NUMBER, T_STRING, T_ANNOT, T_PUNCT, T_ERR };

struct tok {
	enum tkind kind;
	int c;			/* T_PUNCT: the character */
	int line, col;
	/* identifier or annotation name, decoded string, number text, or
	 * for T_ERR the message; always NUL-terminated */
	char *s;
	size_t n, cap;
	int isint;		/* T_NUMBER: digits only */
	double num;
};

struct parser {
	const char *text, *name;
	size_t len, off, linestart;
	int line;
	struct tok tok, ahead;	/* the current token, one of look-ahead */
	int hasahead;
	struct graph *g;
	jmp_buf fail;
	/* scratch, freed on every exit */
	int64_t *dims;
	size_t capdims;
	char **names;		/* output names of a statement */
	size_t nnames, capnames;
	char **slots;		/* operands of a call, by position */
	int nslots;
	size_t capslots;
	char *key;		/* name of a named argument */
};

/* ---- characters and tokens ---- */

static int
isdigitc(int c)
{
	return c >= '0' && c <= '9';
}

static int
isidstart(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static int
isidchar(int c)
{
	return isidstart(c) || isdigitc(c);
}

/*
 * An operand name, as webnn-graph's grammar (src/wg.pest) has it:
 * (ALPHA | "_" | "/" | "$") (ALNUM | "_" | "." | "/")*, so the names
 * its convert-onnx copies from ONNX ("/fc/MatMul", "x.1") read as
 * written.  "//" still starts a comment.
 */
static int
isnamestart(int c)
{
	return isidstart(c) || c == '/' || c == '$';
}

static int
isnamechar(int c)
{
	return isidchar(c) || c == '.' || c == '/';
}

static int
iskeyword(const char *s)
{
	return !strcmp(s, "true") || !strcmp(s, "false") || !strcmp(s, "null");
}

static void
tputc(struct tok *t, int c)
{
	GROW(t->s, t->cap, t->n + 2);
	t->s[t->n++] = (char)c;
	t->s[t->n] = '\0';
}

static void
tset(struct tok *t, const char *s, size_t n)
{
	t->n = 0;
	GROW(t->s, t->cap, n + 1);
	memcpy(t->s, s, n);
	t->s[n] = '\0';
	t->n = n;
}

/* Make t an error token at line:col carrying the message. */
static void tokerr(struct tok *t, int line, int col, const char *fmt, ...)
    NNL_PRINTF(4, 5);

static void
tokerr(struct tok *t, int line, int col, const char *fmt, ...)
{
	char msg[160];	/* lexical messages quote at most SHOWMAX bytes */
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	tset(t, msg, strlen(msg));
	t->kind = T_ERR;
	t->line = line;
	t->col = col;
}

/* How a token reads in "found ..." (buf of at least SHOWMAX + 8). */
static const char *
tokdesc(const struct tok *t, char *buf, size_t size)
{
	switch (t->kind) {
	case T_EOF:
		return "end of input";
	case T_STRING:
		return "a string";
	case T_PUNCT:
		snprintf(buf, size, "'%c'", t->c);
		return buf;
	default:
		snprintf(buf, size, "'%s%.*s%s'", t->kind == T_ANNOT ? "@" : "",
		    SHOWMAX, t->s, t->n > SHOWMAX ? "..." : "");
		return buf;
	}
}

/* ---- the lexer: one token from p->off into t, never reading past
 * p->len; errors become T_ERR tokens, raised when they are reached ---- */

static int
col(const struct parser *p, size_t off)
{
	return (int)(off - p->linestart + 1);
}

static void
newline(struct parser *p, size_t off)
{
	if (p->line < 0x7fffffff)
		p->line++;
	p->linestart = off + 1;
}

static void
skipspace(struct parser *p)
{
	const char *s = p->text;

	while (p->off < p->len) {
		char c = s[p->off];

		if (c == '\n') {
			newline(p, p->off);
			p->off++;
		} else if (c == ' ' || c == '\t' || c == '\r') {
			p->off++;
		} else if (c == '#' || (c == '/' && p->off + 1 < p->len &&
		    s[p->off + 1] == '/')) {
			while (p->off < p->len && s[p->off] != '\n')
				p->off++;
		} else {
			break;
		}
	}
}

/* Number ::= "-"? DIGIT+ ("." DIGIT+)? (("e"|"E") ("+"|"-")? DIGIT+)? */
static void
lexnumber(struct parser *p, struct tok *t)
{
	const char *s = p->text;
	size_t start = p->off, i = p->off, e;
	int ok = 1;

	t->isint = s[i] != '-';
	if (s[i] == '-')
		i++;
	if (i >= p->len || !isdigitc(s[i]))
		ok = 0;
	while (i < p->len && isdigitc(s[i]))
		i++;
	if (ok && i < p->len && s[i] == '.') {
		t->isint = 0;
		if (++i >= p->len || !isdigitc(s[i]))
			ok = 0;
		while (i < p->len && isdigitc(s[i]))
			i++;
	}
	if (ok && i < p->len && (s[i] == 'e' || s[i] == 'E')) {
		t->isint = 0;
		if (++i < p->len && (s[i] == '+' || s[i] == '-'))
			i++;
		if (i >= p->len || !isdigitc(s[i]))
			ok = 0;
		while (i < p->len && isdigitc(s[i]))
			i++;
	}
	/* "1e", "1.", "12ab", "1.5.2": show the whole word */
	for (e = i; e < p->len && (isidchar(s[e]) || s[e] == '.' ||
	    ((s[e] == '+' || s[e] == '-') && (s[e - 1] | 32) == 'e')); e++)
		ok = 0;
	p->off = e;
	if (!ok) {
		if (e - start == 1 && s[start] == '-')
			tokerr(t, t->line, t->col, "expected a digit after "
			    "'-'");
		else
			tokerr(t, t->line, t->col, "malformed number '%.*s%s'",
			    (int)(e - start > SHOWMAX ? SHOWMAX : e - start),
			    s + start, e - start > SHOWMAX ? "..." : "");
		return;
	}
	t->kind = T_NUMBER;
	tset(t, s + start, i - start);
	t->num = strtod(t->s, NULL);
	if (isinf(t->num))
		tokerr(t, t->line, t->col, "number '%.*s%s' is out of range",
		    (int)(i - start > SHOWMAX ? SHOWMAX : i - start),
		    s + start, i - start > SHOWMAX ? "..." : "");
}

/* Four hex digits at s[i..i+3], or -1. */
static long
hex4(const struct parser *p, size_t i)
{
	long v = 0;

	if (i + 4 > p->len)
		return -1;
	for (int k = 0; k < 4; k++) {
		int c = p->text[i + k], lc = c | 32;

		if (isdigitc(c))
			v = v * 16 + c - '0';
		else if (lc >= 'a' && lc <= 'f')
			v = v * 16 + lc - 'a' + 10;
		else
			return -1;
	}
	return v;
}

/* The code point cp (1 to 0x10ffff, no surrogate) in UTF-8. */
static void
pututf8(struct tok *t, unsigned long cp)
{
	static const unsigned char lead[] = { 0, 0, 0xc0, 0xe0, 0xf0 };
	int n = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;

	tputc(t, (int)(n == 1 ? cp : lead[n] | cp >> 6 * (n - 1)));
	for (int k = n - 2; k >= 0; k--)
		tputc(t, (int)(0x80 | (cp >> 6 * k & 0x3f)));
}

/* Length of the well-formed UTF-8 sequence at s[i], or 0. */
static size_t
utf8len(const struct parser *p, size_t i)
{
	const unsigned char *s = (const unsigned char *)p->text;
	unsigned long cp, min;
	size_t n;

	if (s[i] >= 0xc2 && s[i] <= 0xdf)
		n = 2, cp = s[i] & 0x1f, min = 0x80;
	else if (s[i] >= 0xe0 && s[i] <= 0xef)
		n = 3, cp = s[i] & 0x0f, min = 0x800;
	else if (s[i] >= 0xf0 && s[i] <= 0xf4)
		n = 4, cp = s[i] & 0x07, min = 0x10000;
	else
		return 0;
	if (i + n > p->len)
		return 0;
	for (size_t k = 1; k < n; k++) {
		if ((s[i + k] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i + k] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

/* One escape sequence at s[*i] (the backslash); 0 or -1 after tokerr. */
static int
lexescape(struct parser *p, struct tok *t, size_t *i)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	const char *s = p->text, *k;
	int c = *i + 1 < p->len ? (unsigned char)s[*i + 1] : 0;
	long cp, lo;

	if (c && c != 'u' && (k = strchr(from, c))) {
		tputc(t, to[k - from]);
		*i += 2;
		return 0;
	}
	if (c != 'u') {
		if (c >= 0x21 && c < 0x7f)
			tokerr(t, p->line, col(p, *i), "invalid escape '\\%c' "
			    "in string", c);
		else
			tokerr(t, p->line, col(p, *i), "invalid escape in "
			    "string");
		return -1;
	}
	if ((cp = hex4(p, *i + 2)) < 0) {
		tokerr(t, p->line, col(p, *i), "'\\u' needs four hex digits");
		return -1;
	}
	*i += 6;
	if (cp >= 0xd800 && cp <= 0xdbff) {
		if (*i + 1 < p->len && s[*i] == '\\' && s[*i + 1] == 'u' &&
		    (lo = hex4(p, *i + 2)) >= 0xdc00 && lo <= 0xdfff) {
			cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
			*i += 6;
		} else {
			cp = -1;
		}
	}
	if (cp < 0 || (cp >= 0xdc00 && cp <= 0xdfff)) {
		tokerr(t, p->line, col(p, *i - 6), "unpaired surrogate in "
		    "'\\u' escape");
		return -1;
	}
	if (cp == 0) {
		tokerr(t, p->line, col(p, *i - 6), "'\\u0000' is not allowed "
		    "in a string");
		return -1;
	}
	pututf8(t, (unsigned long)cp);
	return 0;
}

static void
lexstring(struct parser *p, struct tok *t)
{
	const unsigned char *s = (const unsigned char *)p->text;
	size_t i = p->off + 1, n;

	t->kind = T_STRING;
	tset(t, "", 0);
	for (;;) {
		if (i >= p->len || s[i] == '\n') {
			tokerr(t, t->line, t->col, "unterminated string");
			break;
		}
		if (s[i] == '"') {
			i++;
			break;
		}
		if (s[i] == '\\') {
			if (lexescape(p, t, &i) != 0)
				break;
		} else if (s[i] < 0x20 && s[i] != '\t') {
			tokerr(t, p->line, col(p, i), "control character "
			    "0x%02x in string (write it as an escape)", s[i]);
			break;
		} else if (s[i] < 0x80) {
			tputc(t, s[i++]);
		} else if ((n = utf8len(p, i)) == 0) {
			tokerr(t, p->line, col(p, i), "invalid UTF-8 in string "
			    "(byte 0x%02x)", s[i]);
			break;
		} else {
			while (n--)
				tputc(t, s[i++]);
		}
	}
	p->off = i;
}

static void
lex(struct parser *p, struct tok *t)
{
	const char *s = p->text;
	size_t start;
	unsigned char c;

	skipspace(p);
	t->line = p->line;
	t->col = col(p, p->off);
	t->n = 0;
	tset(t, "", 0);
	if (p->off >= p->len) {
		t->kind = T_EOF;
		return;
	}
	c = (unsigned char)s[p->off];
	if (isnamestart(c)) {
		t->kind = T_IDENT;
		start = p->off++;
		while (p->off < p->len &&
		    isnamechar((unsigned char)s[p->off]))
			p->off++;
		tset(t, s + start, p->off - start);
	} else if (c == '@' && p->off + 1 < p->len &&
	    isidstart((unsigned char)s[p->off + 1])) {
		t->kind = T_ANNOT;
		start = ++p->off;
		while (p->off < p->len && isidchar((unsigned char)s[p->off]))
			p->off++;
		tset(t, s + start, p->off - start);
	} else if (isdigitc(c) || c == '-') {
		lexnumber(p, t);
	} else if (c == '"') {
		lexstring(p, t);
	} else if (c && strchr("{}[](),;:=", c)) {
		t->kind = T_PUNCT;
		t->c = c;
		p->off++;
	} else if (c == '@') {
		tokerr(t, t->line, t->col, "expected an annotation name after "
		    "'@'");
	} else if (c > 0x20 && c < 0x7f) {
		tokerr(t, t->line, t->col, "unexpected character '%c'", c);
	} else {
		tokerr(t, t->line, t->col, "unexpected character 0x%02x", c);
	}
}

/* ---- parser helpers ---- */

static NNL_NORETURN void failat(struct parser *p, int line, int c,
    const char *fmt, ...) NNL_PRINTF(4, 5);

static NNL_NORETURN void
failat(struct parser *p, int line, int c, const char *fmt, ...)
{
	struct srcloc l = { p->name, line, c, p->text, p->len };
	char *msg;
	va_list ap;
	int len;

	va_start(ap, fmt);
	len = vsnprintf(NULL, 0, fmt, ap);	/* names are unbounded */
	va_end(ap);
	msg = xmalloc((size_t)len + 1);
	va_start(ap, fmt);
	vsnprintf(msg, (size_t)len + 1, fmt, ap);
	va_end(ap);
	error_at(&l, "%s", msg);
	free(msg);
	longjmp(p->fail, 1);
}

/* "expected WHAT, found TOKEN" at the current token. */
static NNL_NORETURN void
expected(struct parser *p, const char *what)
{
	char buf[SHOWMAX + 8];

	failat(p, p->tok.line, p->tok.col, "expected %s, found %s", what,
	    tokdesc(&p->tok, buf, sizeof buf));
}

static void
next(struct parser *p)
{
	if (p->hasahead) {
		struct tok t = p->tok;

		p->tok = p->ahead;
		p->ahead = t;
		p->hasahead = 0;
	} else {
		lex(p, &p->tok);
	}
	if (p->tok.kind == T_ERR)
		failat(p, p->tok.line, p->tok.col, "%s", p->tok.s);
}

/* The token after the current one; a lexical error in it is raised
 * only when it becomes current, so earlier errors come first. */
static const struct tok *
peek(struct parser *p)
{
	if (!p->hasahead) {
		lex(p, &p->ahead);
		p->hasahead = 1;
	}
	return &p->ahead;
}

static int
atpunct(const struct parser *p, int c)
{
	return p->tok.kind == T_PUNCT && p->tok.c == c;
}

static int
atword(const struct parser *p, const char *w)
{
	return p->tok.kind == T_IDENT && strcmp(p->tok.s, w) == 0;
}

/* Consume the punctuation c, or fail: "expected 'c' CONTEXT, found". */
static void
expect(struct parser *p, int c, const char *context)
{
	char what[128];

	if (!atpunct(p, c)) {
		snprintf(what, sizeof what, "'%c' %s", c, context);
		expected(p, what);
	}
	next(p);
}

/* An operand name at the current token (not consumed). */
static const char *
name(struct parser *p, const char *what)
{
	if (p->tok.kind != T_IDENT || iskeyword(p->tok.s))
		expected(p, what);
	return p->tok.s;
}

static struct pos
here(const struct parser *p)
{
	struct pos at = { p->tok.line, p->tok.col };

	return at;
}

/* ---- values ---- */

static cJSON *
chk(cJSON *v)
{
	if (!v)
		die("out of memory");
	return v;
}

/* Add v to the array or object parent (under key). */
static void
attach(cJSON *parent, const char *key, cJSON *v)
{
	if (key)
		cJSON_AddItemToObject(parent, key, v);
	else
		cJSON_AddItemToArray(parent, v);
}

/* Value ::= Array | String | Number | true | false | null | Ident.  The
 * item is attached before its elements are read, so the graph owns it
 * when an error unwinds. */
static void
value(struct parser *p, cJSON *parent, const char *key, int depth)
{
	struct tok *t = &p->tok;
	cJSON *v;

	if (atpunct(p, '[')) {
		if (depth >= MAXDEPTH)
			failat(p, t->line, t->col, "arrays nested deeper than "
			    "%d levels", MAXDEPTH);
		attach(parent, key, v = chk(cJSON_CreateArray()));
		next(p);
		for (size_t k = 0; !atpunct(p, ']'); k++) {
			if (k > 0)
				expect(p, ',', "or ']' in the array");
			value(p, v, NULL, depth + 1);
		}
		next(p);
		return;
	}
	if (t->kind == T_NUMBER)
		v = cJSON_CreateNumber(t->num);
	else if (t->kind == T_STRING)
		v = cJSON_CreateString(t->s);
	else if (atword(p, "true") || atword(p, "false"))
		v = cJSON_CreateBool(t->s[0] == 't');
	else if (atword(p, "null"))
		v = cJSON_CreateNull();
	else if (t->kind == T_IDENT)	/* an operand or enum name */
		v = cJSON_CreateString(t->s);
	else
		expected(p, "a value");
	attach(parent, key, chk(v));
	next(p);
}

/* ---- types and declarations ---- */

/* An integer token's value, or -1 when beyond max. */
static int64_t
intval(const struct tok *t, int64_t max)
{
	int64_t v = 0;

	for (const char *s = t->s; *s; s++) {
		v = v * 10 + (*s - '0');
		if (v > max)
			return -1;
	}
	return v;
}

/* Type ::= DType "[" (Int ("," Int)*)? "]" */
static void
type(struct parser *p, struct tdesc *desc)
{
	enum dtype dt;
	size_t rank = 0;

	if (p->tok.kind != T_IDENT)
		expected(p, "a data type");
	dt = dtype_from_short(p->tok.s);
	if (dt == DT_NONE) {
		char list[128], buf[SHOWMAX + 8];
		size_t k = 0;

		for (int i = 0; i < DT_COUNT && k < sizeof list; i++)
			k += (size_t)snprintf(list + k, sizeof list - k, "%s%s",
			    i ? ", " : "", dtype_short((enum dtype)i));
		failat(p, p->tok.line, p->tok.col, "unknown data type %s "
		    "(expected one of %s)", tokdesc(&p->tok, buf, sizeof buf),
		    list);
	}
	next(p);
	expect(p, '[', "after the data type");
	while (!atpunct(p, ']')) {
		int64_t d;

		if (rank > 0)
			expect(p, ',', "or ']' in the shape");
		if (p->tok.kind != T_NUMBER || !p->tok.isint)
			expected(p, "a dimension (an integer from 0 to "
			    "4294967295)");
		if ((d = intval(&p->tok, 4294967295)) < 0)
			failat(p, p->tok.line, p->tok.col, "dimension %.*s%s "
			    "exceeds 4294967295", SHOWMAX, p->tok.s,
			    p->tok.n > SHOWMAX ? "..." : "");
		if (rank >= MAXRANK)
			failat(p, p->tok.line, p->tok.col, "a shape has at "
			    "most %d dimensions", MAXRANK);
		GROW(p->dims, p->capdims, rank + 1);
		p->dims[rank++] = d;
		next(p);
	}
	next(p);
	tdesc_set(desc, dt, (int)rank, p->dims);
}

/* InputDecl ::= Ident ":" Type ";" */
static void
inputs(struct parser *p)
{
	expect(p, '{', "after 'inputs'");
	while (!atpunct(p, '}')) {
		struct pos at = here(p);
		struct operand *o = graph_add_input(p->g,
		    name(p, "an input name or '}'"), DT_NONE, -1, NULL);

		o->pos = at;
		next(p);
		expect(p, ':', "after the input name");
		type(p, &o->desc);
		expect(p, ';', "after input declaration");
	}
	next(p);
}

/* @bytes([Int, ...]): the byte values, each 0 to 255. */
static void
bytes(struct parser *p, struct operand *o)
{
	size_t cap = 0;

	expect(p, '[', "after '@bytes('");
	while (!atpunct(p, ']')) {
		int64_t v;

		if (o->nbytes > 0)
			expect(p, ',', "or ']' in the bytes");
		if (p->tok.kind != T_NUMBER || !p->tok.isint ||
		    (v = intval(&p->tok, 255)) < 0)
			expected(p, "a byte value (an integer from 0 to 255)");
		GROW(o->bytes, cap, o->nbytes + 1);
		o->bytes[o->nbytes++] = (unsigned char)v;
		next(p);
	}
	next(p);
}

/* ConstAnnot ::= @weights(String) | @scalar(Number) | @bytes([Int...]) */
static void
annotation(struct parser *p, struct operand *o)
{
	const char *a = p->tok.s;
	char buf[SHOWMAX + 8];

	if (!strcmp(a, "weights")) {
		next(p);
		expect(p, '(', "after '@weights'");
		if (p->tok.kind != T_STRING || !p->tok.s[0])
			expected(p, "the weights key (a non-empty string)");
		o->init = INIT_WEIGHTS;
		o->ref = xstrdup(p->tok.s);
		next(p);
	} else if (!strcmp(a, "scalar")) {
		next(p);
		expect(p, '(', "after '@scalar'");
		if (p->tok.kind != T_NUMBER)
			expected(p, "a number");
		o->init = INIT_SCALAR;
		o->value = p->tok.num;
		next(p);
	} else if (!strcmp(a, "bytes")) {
		next(p);
		expect(p, '(', "after '@bytes'");
		o->init = INIT_BYTES;
		bytes(p, o);
	} else {
		failat(p, p->tok.line, p->tok.col, "unknown annotation %s "
		    "(expected @weights, @scalar or @bytes)",
		    tokdesc(&p->tok, buf, sizeof buf));
	}
	expect(p, ')', "after the annotation's argument");
}

/* ConstDecl ::= Ident ":" Type ConstAnnot? ";" */
static void
consts(struct parser *p)
{
	expect(p, '{', "after 'consts'");
	while (!atpunct(p, '}')) {
		struct pos at = here(p);
		struct operand *o = graph_add_const(p->g,
		    name(p, "a constant name or '}'"), DT_NONE, -1, NULL);
		int annots = 0;

		o->pos = at;
		next(p);
		expect(p, ':', "after the constant name");
		type(p, &o->desc);
		for (; p->tok.kind == T_ANNOT; annots++) {
			if (annots)
				failat(p, p->tok.line, p->tok.col, "a constant "
				    "takes one annotation, this is a second");
			annotation(p, o);
		}
		if (!annots)	/* the weights of its own name */
			o->ref = xstrdup(o->name);
		expect(p, ';', "after constant declaration");
	}
	next(p);
}

/* ---- calls ---- */

static int
operandindex(const struct opdesc *d, const char *s)
{
	for (int i = 0; d && i < d->nOperands; i++)
		if (!strcmp(d->operands[i], s))
			return i;
	return -1;
}

/* Operand slot k of the call, at the current token: a name, or for a
 * variadic op an array of names. */
static void
operand(struct parser *p, struct node *n, const struct opdesc *d, int k)
{
	char what[128];

	snprintf(what, sizeof what, "an operand name for \"%s\" of %s",
	    d->operands[k], d->name);
	if (!d->variadic) {
		p->slots[k] = xstrdup(name(p, what));
		next(p);
		return;
	}
	snprintf(what, sizeof what, "'[' and the operand names for \"%s\" of "
	    "%s", d->operands[k], d->name);
	if (!atpunct(p, '['))
		expected(p, what);
	p->slots[k] = xstrdup(d->operands[k]);	/* filled */
	next(p);
	while (!atpunct(p, ']')) {
		if (n->nin > 0)
			expect(p, ',', "or ']' in the operand list");
		node_add_input(n, name(p, "an operand name"));
		next(p);
	}
	next(p);
}

/* Positional argument i (0-based). */
static void
positional(struct parser *p, struct node *n, const struct opdesc *d, int i)
{
	if (!d) {
		if (p->tok.kind != T_IDENT || iskeyword(p->tok.s))
			failat(p, p->tok.line, p->tok.col, "unknown op \"%s\": "
			    "positional argument %d needs a name (name=value)",
			    escape_tty_name(n->opname), i + 1);
		node_add_input(n, p->tok.s);
		next(p);
	} else if (i < d->nOperands) {
		operand(p, n, d, i);
	} else if (i < d->nOperands + d->nparams) {
		value(p, n->options, d->params[i - d->nOperands].name, 0);
	} else {
		failat(p, p->tok.line, p->tok.col, "too many positional "
		    "arguments to %s (it takes %d)", d->name,
		    d->nOperands + d->nparams);
	}
}

/* A named argument; the current token is its value. */
static void
named(struct parser *p, struct node *n, const struct opdesc *d,
    struct pos at)
{
	int k = operandindex(d, p->key);

	if (k >= 0) {
		if (p->slots[k])
			failat(p, at.line, at.col, "operand \"%s\" of %s is "
			    "given twice", escape_tty_name(p->key), d->name);
		operand(p, n, d, k);
		return;
	}
	if (cJSON_GetObjectItemCaseSensitive(n->options, p->key))
		failat(p, at.line, at.col, "argument \"%s\" is given twice",
		    escape_tty_name(p->key));
	value(p, n->options, p->key, 0);
}

static void
setkey(struct parser *p, const char *s)
{
	char *k = xstrdup(s);

	free(p->key);
	p->key = k;
}

static void
clearslots(struct parser *p)
{
	for (int i = 0; i < p->nslots; i++) {
		free(p->slots[i]);
		p->slots[i] = NULL;
	}
	p->nslots = 0;
}

/* Call ::= Ident "(" (Arg ("," Arg)*)? ")", the name consumed. */
static void
call(struct parser *p, struct node *n, struct pos opat)
{
	const struct opdesc *d = op_lookup(n->opname);
	int npos = 0, nnamed = 0;

	clearslots(p);
	if (d) {
		GROW(p->slots, p->capslots, (size_t)d->nOperands);
		memset(p->slots, 0, (size_t)d->nOperands * sizeof *p->slots);
		p->nslots = d->nOperands;
	}
	next(p);	/* ( */
	while (!atpunct(p, ')')) {
		if (npos + nnamed > 0) {
			expect(p, ',', "or ')' after an argument");
			if (atpunct(p, ')'))
				expected(p, "an argument after ','");
		}
		if (p->tok.kind == T_IDENT && peek(p)->kind == T_PUNCT &&
		    peek(p)->c == '=') {
			struct pos at = here(p);

			setkey(p, p->tok.s);
			next(p);
			next(p);
			named(p, n, d, at);
			nnamed++;
		} else if (nnamed) {
			failat(p, p->tok.line, p->tok.col, "a positional "
			    "argument cannot follow a named one");
		} else {
			positional(p, n, d, npos++);
		}
	}
	for (int k = 0; k < p->nslots; k++)
		if (!p->slots[k])
			failat(p, opat.line, opat.col, "%s needs its operand "
			    "\"%s\"", d->name, d->operands[k]);
	if (d && !d->variadic)
		for (int k = 0; k < p->nslots; k++)
			node_add_input(n, p->slots[k]);
	clearslots(p);
	next(p);	/* ) */
}

/* ---- statements ---- */

static void
clearnames(struct parser *p)
{
	for (size_t i = 0; i < p->nnames; i++)
		free(p->names[i]);
	p->nnames = 0;
}

static void
addname(struct parser *p, const char *s)
{
	GROW(p->names, p->capnames, p->nnames + 1);
	p->names[p->nnames++] = xstrdup(s);
}

/* Expr ::= Call | Ident | Literal, after the "=". */
static void
expr(struct parser *p, int multi, struct pos at)
{
	struct pos opat = here(p);
	struct node *n;

	if (p->tok.kind == T_NUMBER && !multi) {
		struct operand *c = graph_add_const(p->g, p->names[0],
		    DT_FLOAT32, 0, NULL);

		c->init = INIT_SCALAR;
		c->value = p->tok.num;
		c->pos = at;
		next(p);
		return;
	}
	/* c = [1, 2]; c = "s"; c = true; a literal node (validate.c) */
	if (!multi && (atpunct(p, '[') || p->tok.kind == T_STRING ||
	    (p->tok.kind == T_IDENT && iskeyword(p->tok.s)))) {
		n = graph_add_node(p->g, p->names[0], LITERAL_OP);
		n->pos = at;
		node_add_output(n, p->names[0]);
		value(p, n->options, "value", 0);
		return;
	}
	if (p->tok.kind != T_IDENT || iskeyword(p->tok.s))
		expected(p, multi ? "a call" :
		    "a call, an operand name or a literal after '='");
	if (peek(p)->kind != T_PUNCT || peek(p)->c != '(') {
		if (multi)
			failat(p, p->tok.line, p->tok.col, "only a call can "
			    "have several outputs");
		n = graph_add_node(p->g, p->names[0], "identity");
		n->pos = at;
		node_add_input(n, p->tok.s);
		node_add_output(n, p->names[0]);
		next(p);
		return;
	}
	n = graph_add_node(p->g, p->names[0], p->tok.s);
	n->pos = at;
	n->multi = multi;
	for (size_t i = 0; i < p->nnames; i++)
		node_add_output(n, p->names[i]);
	next(p);
	call(p, n, opat);
}

/* Stmt ::= (Ident | "[" Ident ("," Ident)* "]") "=" Expr ";" */
static void
stmt(struct parser *p)
{
	struct pos at = here(p);
	int multi = atpunct(p, '[');
	char what[SHOWMAX + 32];

	clearnames(p);
	if (multi) {
		next(p);
		do {
			if (p->nnames)
				next(p);	/* , */
			if (!p->nnames)
				at = here(p);	/* the node's name token */
			addname(p, name(p, "an output name"));
			next(p);
		} while (atpunct(p, ','));
		expect(p, ']', "or ',' in the output list");
		expect(p, '=', "after the output list");
	} else {
		at = here(p);
		addname(p, name(p, "a statement (NAME = ...) or '}'"));
		snprintf(what, sizeof what, "after '%.*s%s'", SHOWMAX,
		    p->tok.s, p->tok.n > SHOWMAX ? "..." : "");
		next(p);
		expect(p, '=', what);
	}
	expr(p, multi, at);
	expect(p, ';', "after the statement");
}

static void
nodes(struct parser *p)
{
	expect(p, '{', "after 'nodes'");
	while (!atpunct(p, '}'))
		stmt(p);
	next(p);
}

/* OutputItem ::= Ident ("=" Ident)? ("," OutputItem)* ";"? */
static void
outputs(struct parser *p)
{
	expect(p, '{', "after 'outputs'");
	while (!atpunct(p, '}')) {
		struct pos at = here(p);
		struct goutput *o;

		setkey(p, name(p, "an output name or '}'"));
		next(p);
		if (atpunct(p, '=')) {
			next(p);
			graph_add_output(p->g, p->key,
			    name(p, "an operand name after '='"));
			next(p);
		} else {
			graph_add_output(p->g, p->key, p->key);
		}
		o = &p->g->outputs[p->g->noutputs - 1];
		o->pos = at;
		if (atpunct(p, ',')) {
			next(p);
			name(p, "an output name after ','");
		} else if (atpunct(p, ';')) {
			next(p);
		}
	}
	next(p);
}

/* ---- the file ---- */

/* Header ::= "webnn_graph" String "v" Int "@quantized"? "{" */
static void
header(struct parser *p)
{
	const char *v = NULL;
	long ver = 0;

	if (!atword(p, "webnn_graph"))
		expected(p, "'webnn_graph' at the start of the file");
	next(p);
	if (p->tok.kind != T_STRING)
		expected(p, "the graph name (a string) after 'webnn_graph'");
	if (p->tok.s[0])
		p->g->name = xstrdup(p->tok.s);
	next(p);
	/* "v1" lexes as one identifier; "v 1" is two tokens */
	if (p->tok.kind == T_IDENT && p->tok.s[0] == 'v') {
		v = p->tok.s + 1;
		if (!*v && peek(p)->kind == T_NUMBER && peek(p)->isint) {
			next(p);
			v = p->tok.s;
		}
		if (!*v || strspn(v, "0123456789") != strlen(v))
			v = NULL;
	}
	if (!v)
		expected(p, "the version (v1 or v2) after the graph name");
	for (const char *d = v; *d && ver <= 2; d++)
		ver = ver * 10 + (*d - '0');
	/* v2 is what webnn-graph's convert-onnx writes: the same text */
	if (ver != 1 && ver != 2)
		failat(p, p->tok.line, p->tok.col, "unsupported version v%.*s "
		    "(nnl reads v1 and v2)", SHOWMAX, v);
	p->g->version = (int)ver;
	next(p);
	/* webnn-graph's header flag: the graph holds quantized ops */
	if (p->tok.kind == T_ANNOT && strcmp(p->tok.s, "quantized") == 0) {
		p->g->quantized = 1;
		next(p);
	} else if (p->tok.kind == T_ANNOT) {
		failat(p, p->tok.line, p->tok.col, "unknown header flag "
		    "@%.*s (expected @quantized)", SHOWMAX, p->tok.s);
	}
	expect(p, '{', "after the version");
}

static void
file(struct parser *p)
{
	char buf[SHOWMAX + 8];

	header(p);
	for (;;) {
		if (atpunct(p, '}'))
			break;
		if (atword(p, "inputs") || atword(p, "consts") ||
		    atword(p, "nodes") || atword(p, "outputs")) {
			char c = p->tok.s[0];

			next(p);
			if (c == 'i')
				inputs(p);
			else if (c == 'c')
				consts(p);
			else if (c == 'n')
				nodes(p);
			else
				outputs(p);
		} else if (p->tok.kind == T_IDENT) {
			failat(p, p->tok.line, p->tok.col, "unknown block %s "
			    "(expected inputs, consts, nodes or outputs)",
			    tokdesc(&p->tok, buf, sizeof buf));
		} else {
			expected(p, "a block (inputs, consts, nodes, outputs) "
			    "or '}'");
		}
	}
	next(p);
	if (p->tok.kind != T_EOF)
		failat(p, p->tok.line, p->tok.col, "unexpected %s after the "
		    "end of the graph", tokdesc(&p->tok, buf, sizeof buf));
}

static void
parser_free(struct parser *p)
{
	clearnames(p);
	clearslots(p);
	free(p->names);
	free(p->slots);
	free(p->dims);
	free(p->key);
	free(p->tok.s);
	free(p->ahead.s);
	free(p);
}

struct graph *
webnn_parse(const char *text, size_t len, const char *name)
{
	struct parser *p = xcalloc(1, sizeof *p);
	struct graph *g;

	p->text = text ? text : "";
	p->len = text ? len : 0;
	p->name = name ? name : "<stdin>";
	p->line = 1;
	p->g = graph_new();
	p->g->src = p->name;
	p->g->text = p->text;
	p->g->textlen = p->len;
	if (setjmp(p->fail)) {
		graph_free(p->g);
		parser_free(p);
		return NULL;
	}
	next(p);
	file(p);
	g = p->g;
	parser_free(p);
	graph_index(g);
	return g;
}
