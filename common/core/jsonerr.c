/*
 * jsonerr: finds where JSON text first goes wrong, and says what was
 * expected.  cJSON only tells that a parse failed, and its error
 * pointer is often past the culprit; this small recognizer is run on
 * failure so that diagnostics point at the right line and column.
 */
#include "jsonerr.h"

#include <stdio.h>
#include <string.h>

#include "escape.h"
#include "util.h"

struct js {
	const char *s, *end, *p;
	const char *msg;
	char buf[96];
	int depth;
	int refused;	/* valid JSON, but a string no name can be */
};

static void
ws(struct js *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' ||
	    *j->p == '\n' || *j->p == '\r'))
		j->p++;
}

static int
fail(struct js *j, const char *what)
{
	if (j->p >= j->end)
		snprintf(j->buf, sizeof j->buf, "%s, found the end of input",
		    what);
	else if ((unsigned char)*j->p >= 0x20 && (unsigned char)*j->p < 0x7f)
		snprintf(j->buf, sizeof j->buf, "%s, found '%c'", what, *j->p);
	else
		snprintf(j->buf, sizeof j->buf, "%s, found byte 0x%02x", what,
		    (unsigned char)*j->p);
	j->msg = j->buf;
	return -1;
}

static int value(struct js *j);

/* A string nnl refuses: what a C string cannot hold, or not UTF-8. */
static int
refuse(struct js *j, const char *at, const char *what)
{
	j->p = at;
	j->refused = 1;
	j->msg = what;
	return -1;
}

static long
hex4(const struct js *j, const char *p)
{
	long v = 0;

	for (int i = 0; i < 4; i++) {
		if (p + i >= j->end || !p[i] ||
		    !strchr("0123456789abcdefABCDEF", p[i]))
			return -1;
		v = v * 16 + (p[i] <= '9' ? p[i] - '0' : (p[i] | 0x20) -
		    'a' + 10);
	}
	return v;
}

static int
string(struct js *j)
{
	unsigned long cp;
	size_t n;

	j->p++;		/* the opening quote */
	while (j->p < j->end && *j->p != '"') {
		unsigned char c = (unsigned char)*j->p;
		const char *at = j->p;

		if (c == 0)
			return refuse(j, at, "a NUL byte is not allowed in a "
			    "string");
		if (c < 0x20)
			return fail(j, "control character in a string");
		if (c >= 0x80) {
			n = escape_utf8len(j->p, (size_t)(j->end - j->p), &cp);
			if (n == 0) {
				snprintf(j->buf, sizeof j->buf, "invalid UTF-8 "
				    "in string (byte 0x%02x)", c);
				return refuse(j, at, j->buf);
			}
			j->p += n;
			continue;
		}
		if (c == '\\') {
			long u, lo;

			j->p++;
			if (j->p >= j->end)
				break;
			if (*j->p == 'u') {
				if ((u = hex4(j, j->p + 1)) < 0) {
					int i = 1;

					while (i < 4 && j->p + i < j->end &&
					    j->p[i] && strchr("0123456789"
					    "abcdefABCDEF", j->p[i]))
						i++;
					j->p += i;
					return fail(j, "expected four hex "
					    "digits after \\u");
				}
				j->p += 4;
				if (u == 0)
					return refuse(j, at, "'\\u0000' is not "
					    "allowed in a string");
				if (u >= 0xd800 && u <= 0xdbff) {
					lo = j->p + 2 < j->end && j->p[1] ==
					    '\\' && j->p[2] == 'u' ?
					    hex4(j, j->p + 3) : -1;
					if (lo < 0xdc00 || lo > 0xdfff)
						return refuse(j, at, "unpaired "
						    "surrogate in '\\u' escape");
					j->p += 6;
				} else if (u >= 0xdc00 && u <= 0xdfff) {
					return refuse(j, at, "unpaired "
					    "surrogate in '\\u' escape");
				}
			} else if (!*j->p || !strchr("\"\\/bfnrt", *j->p)) {
				return fail(j, "invalid escape in a string");
			}
		}
		j->p++;
	}
	if (j->p >= j->end)
		return fail(j, "unterminated string");
	j->p++;
	return 0;
}

static int
digits(struct js *j)
{
	const char *q = j->p;

	while (j->p < j->end && *j->p >= '0' && *j->p <= '9')
		j->p++;
	return j->p > q ? 0 : fail(j, "expected a digit");
}

static int
number(struct js *j)
{
	if (*j->p == '-')
		j->p++;
	if (j->p < j->end && *j->p == '0')
		j->p++;
	else if (digits(j))
		return -1;
	if (j->p < j->end && *j->p == '.') {
		j->p++;
		if (digits(j))
			return -1;
	}
	if (j->p < j->end && (*j->p == 'e' || *j->p == 'E')) {
		j->p++;
		if (j->p < j->end && (*j->p == '+' || *j->p == '-'))
			j->p++;
		if (digits(j))
			return -1;
	}
	return 0;
}

static int
word(struct js *j, const char *w)
{
	size_t n = strlen(w);

	if ((size_t)(j->end - j->p) < n || memcmp(j->p, w, n) != 0)
		return fail(j, "expected a value");
	j->p += n;
	return 0;
}

static int
members(struct js *j, int object)
{
	char close = object ? '}' : ']';

	if (++j->depth > 1000)
		return fail(j, "nesting too deep");
	j->p++;
	ws(j);
	if (j->p < j->end && *j->p == close) {
		j->p++;
		j->depth--;
		return 0;
	}
	for (;;) {
		if (object) {
			if (j->p >= j->end || *j->p != '"')
				return fail(j, "expected a member name");
			if (string(j))
				return -1;
			ws(j);
			if (j->p >= j->end || *j->p != ':')
				return fail(j, "expected ':'");
			j->p++;
		}
		if (value(j))
			return -1;
		ws(j);
		if (j->p < j->end && *j->p == ',') {
			j->p++;
			ws(j);
			continue;
		}
		if (j->p < j->end && *j->p == close) {
			j->p++;
			j->depth--;
			return 0;
		}
		return fail(j, object ? "expected ',' or '}'" :
		    "expected ',' or ']'");
	}
}

static int
value(struct js *j)
{
	ws(j);
	if (j->p >= j->end)
		return fail(j, "expected a value");
	switch (*j->p) {
	case '{': return members(j, 1);
	case '[': return members(j, 0);
	case '"': return string(j);
	case 't': return word(j, "true");
	case 'f': return word(j, "false");
	case 'n': return word(j, "null");
	default:
		if (*j->p == '-' || (*j->p >= '0' && *j->p <= '9'))
			return number(j);
		return fail(j, "expected a value");
	}
}

static const struct js *last;	/* of the last json_syntax_error */

int
json_syntax_error(const char *text, size_t len, size_t *off,
    const char **msg)
{
	static struct js j;

	memset(&j, 0, sizeof j);
	last = &j;
	j.s = j.p = text;
	j.end = text + len;
	if (value(&j) == 0) {
		ws(&j);
		if (j.p >= j.end)
			return 0;
		snprintf(j.buf, sizeof j.buf, "unexpected data after the "
		    "JSON value");
		j.msg = j.buf;
	}
	*off = (size_t)(j.p - text);
	*msg = j.msg;
	return -1;
}

int
json_check(const char *text, size_t len, const char *name)
{
	struct srcloc l = { name, 1, 1, NULL, 0 };
	size_t off;
	const char *msg;

	if (json_syntax_error(text, len, &off, &msg) == 0)
		return 0;
	for (size_t i = 0; i < off; i++) {
		if (text[i] == '\n')
			l.line++, l.col = 1;
		else
			l.col++;
	}
	if (last->refused)
		error_at(&l, "%s", msg);
	else {
		l.text = text;
		l.len = len;
		error_at(&l, "invalid JSON: %s", msg);
	}
	return -1;
}
