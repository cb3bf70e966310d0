/*
 * jsonerr: finds where JSON text first goes wrong, and says what was
 * expected.  cJSON only tells that a parse failed, and its error
 * pointer is often past the culprit; this small recognizer is run on
 * failure so that diagnostics point at the right line and column.
 */
#include "jsonerr.h"

#include <stdio.h>
#include <string.h>

struct js {
	const char *s, *end, *p;
	const char *msg;
	char buf[96];
	int depth;
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

static int
string(struct js *j)
{
	j->p++;		/* the opening quote */
	while (j->p < j->end && *j->p != '"') {
		unsigned char c = (unsigned char)*j->p;

		if (c < 0x20)
			return fail(j, "control character in a string");
		if (c == '\\') {
			j->p++;
			if (j->p >= j->end)
				break;
			if (*j->p == 'u') {
				for (int i = 1; i <= 4; i++)
					if (j->p + i >= j->end ||
					    !strchr("0123456789abcdefABCDEF",
					    j->p[i]) || !j->p[i]) {
						j->p += i;
						return fail(j, "expected four "
						    "hex digits after \\u");
					}
				j->p += 4;
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

int
json_syntax_error(const char *text, size_t len, size_t *off,
    const char **msg)
{
	static struct js j;

	memset(&j, 0, sizeof j);
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
