/*
 * escape: a model's strings in generated C and JavaScript, one function
 * per context (comment, string literal, identifier, property key), and
 * on the terminal.  A name comes from a file nnl did not write; these
 * are the only ways the emitters put one into code, so that a name
 * holding a comment's end, a quote, a line end or a preprocessor line
 * is text inside its context and nothing more, and the only way a
 * message shows one, so that it cannot hold an escape sequence, a
 * second line or a megabyte.
 */
#include "escape.h"

#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

size_t
escape_utf8len(const char *s, size_t n, unsigned long *cp)
{
	const unsigned char *u = (const unsigned char *)s;
	unsigned long c, min;
	size_t k;

	if (n == 0)
		return 0;
	if (u[0] < 0x80) {
		*cp = u[0];
		return 1;
	}
	if (u[0] >= 0xc2 && u[0] <= 0xdf)
		k = 2, c = u[0] & 0x1f, min = 0x80;
	else if (u[0] >= 0xe0 && u[0] <= 0xef)
		k = 3, c = u[0] & 0x0f, min = 0x800;
	else if (u[0] >= 0xf0 && u[0] <= 0xf4)
		k = 4, c = u[0] & 0x07, min = 0x10000;
	else
		return 0;
	if (k > n)
		return 0;
	for (size_t i = 1; i < k; i++) {
		if ((u[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (u[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return k;
}

/* Comment text; js: also no "</" or "<!". */
static void
comment(struct buf *b, const char *s, int js)
{
	size_t n = strlen(s), i = 0, k;
	unsigned long cp;

	while (i < n) {
		unsigned char c = (unsigned char)s[i];

		if (i >= ESCAPE_COMMENT_MAX) {
			buf_puts(b, "...");
			return;
		}
		if (c >= 0x80) {
			if ((k = escape_utf8len(s + i, n - i, &cp)) == 0)
				buf_printf(b, "\\x%02X", c), k = 1;
			else
				buf_printf(b, "\\u{%lX}", cp);
			i += k;
			continue;
		}
		if (c == '\\')
			buf_puts(b, "\\\\");
		else if (c == '\n')
			buf_puts(b, "\\n");
		else if (c == '\t')
			buf_puts(b, "\\t");
		else if (c < 0x20 || c == 0x7f)
			buf_printf(b, "\\x%02X", c);
		else if ((c == '*' && s[i + 1] == '/') ||
		    (c == '/' && s[i + 1] == '*') ||
		    (c == '?' && s[i + 1] == '?') ||
		    (js && c == '<' && (s[i + 1] == '/' || s[i + 1] == '!'))) {
			/* a backslash between the two: "*\/", "?\?", "<\/" */
			buf_putc(b, c);
			buf_putc(b, '\\');
		} else
			buf_putc(b, c);
		i++;
	}
}

void
escape_c_comment(struct buf *b, const char *s)
{
	comment(b, s, 0);
}

void
escape_js_comment(struct buf *b, const char *s)
{
	comment(b, s, 1);
}

void
escape_c_string(struct buf *b, const char *s)
{
	buf_putc(b, '"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\' || c == '?')
			buf_printf(b, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			buf_printf(b, "\\%03o", c);
		else
			buf_putc(b, c);
	}
	buf_putc(b, '"');
}

static int
isalnumc(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9');
}

/* C11 and C23 keywords, and main: never an identifier of ours. */
static int
ckeyword(const char *s)
{
	static const char *const kw[] = { "alignas", "alignof", "auto",
	    "bool", "break", "case", "char", "const", "constexpr",
	    "continue", "default", "do", "double", "else", "enum", "extern",
	    "false", "float", "for", "goto", "if", "inline", "int", "long",
	    "main", "nullptr", "register", "restrict", "return", "short",
	    "signed", "sizeof", "static", "static_assert", "struct",
	    "switch", "thread_local", "true", "typedef", "typeof",
	    "typeof_unqual", "union", "unsigned", "void", "volatile",
	    "while", NULL };

	for (int i = 0; kw[i]; i++)
		if (strcmp(s, kw[i]) == 0)
			return 1;
	return 0;
}

char *
escape_c_ident(const char *name)
{
	struct buf b = { 0 };
	int gap = 0;

	/* each run of bytes outside [A-Za-z0-9] ('_' among them) is one
	 * '_' between words, none at either end */
	for (const char *p = name; *p; p++) {
		if (!isalnumc((unsigned char)*p)) {
			gap = 1;
			continue;
		}
		if (gap && b.n)
			buf_putc(&b, '_');
		buf_putc(&b, *p);
		gap = 0;
	}
	if (!b.s) {
		buf_putc(&b, 'm');	/* no letter or digit at all */
	} else if ((b.s[0] >= '0' && b.s[0] <= '9') ||
	    ((b.s[0] | 0x20) == 'n' && (b.s[1] | 0x20) == 'n' &&
	    (b.s[2] | 0x20) == 'l')) {
		/* not an identifier; the runtime's nnl_ names */
		char *t = xasprintf("m_%s", b.s);

		free(b.s);
		b.s = t;
		b.n = strlen(t);
	} else if (ckeyword(b.s)) {
		buf_puts(&b, "_m");
	}
	if (b.n > ESCAPE_IDENT_MAX) {
		/* cut: the hash of the whole name keeps long names apart */
		b.s[b.n = ESCAPE_IDENT_MAX - 18] = '\0';
		while (b.s[b.n - 1] == '_')
			b.s[--b.n] = '\0';
		buf_printf(&b, "_h%016llx", (unsigned long long)
		    XXH3_64bits(name, strlen(name)));
	}
	return b.s;
}

/* [A-Za-z_$][A-Za-z0-9_$]*: a name JavaScript takes as it is. */
static int
jsidname(const char *s)
{
	if (!*s || (*s >= '0' && *s <= '9'))
		return 0;
	for (; *s; s++)
		if (!isalnumc((unsigned char)*s) && *s != '_' && *s != '$')
			return 0;
	return 1;
}

void
escape_js_string(struct buf *b, const char *s)
{
	size_t n = strlen(s), i = 0, k;
	unsigned long cp;

	buf_putc(b, '"');
	while (i < n) {
		unsigned char c = (unsigned char)s[i];

		if ((k = escape_utf8len(s + i, n - i, &cp)) == 0)
			cp = 0xfffd, k = 1;	/* an invalid byte */
		i += k;
		if (cp == '"' || cp == '\\')
			buf_printf(b, "\\%c", c);
		else if (cp == '\n')
			buf_puts(b, "\\n");
		else if (cp == '\r')
			buf_puts(b, "\\r");
		else if (cp == '\t')
			buf_puts(b, "\\t");
		else if (cp >= 0x10000)
			buf_printf(b, "\\u%04lX\\u%04lX",
			    0xd800 + ((cp - 0x10000) >> 10),
			    0xdc00 + ((cp - 0x10000) & 0x3ff));
		else if (cp < 0x20 || cp >= 0x7f || cp == '<' || cp == '>')
			buf_printf(b, "\\u%04lX", cp);
		else
			buf_putc(b, c);
	}
	buf_putc(b, '"');
}

void
escape_js_key(struct buf *b, const char *s)
{
	if (strcmp(s, "__proto__") == 0) {
		buf_putc(b, '[');
		escape_js_string(b, s);
		buf_putc(b, ']');
	} else if (jsidname(s))
		buf_puts(b, s);
	else
		escape_js_string(b, s);
}

/* Characters no terminal line may hold raw: controls, and those that
 * reorder text or end a line (bidirectional marks, U+2028, BOM). */
static int
ttyhides(unsigned long cp)
{
	return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) || cp == 0x61c ||
	    cp == 0x200e || cp == 0x200f || (cp >= 0x2028 && cp <= 0x202e) ||
	    (cp >= 0x2066 && cp <= 0x2069) || cp == 0xfeff;
}

enum {
	TTY_NAME = 1,	/* a backslash doubled and a tab escaped */
	TTY_LINES = 2	/* a line end before two spaces kept */
};

/* n bytes of s for the terminal, at most max of them. */
static void
tty(struct buf *b, const char *s, size_t n, size_t max, int how)
{
	size_t i = 0, k;
	unsigned long cp;

	for (; i < n; i += k) {
		unsigned char c = (unsigned char)s[i];

		if ((k = escape_utf8len(s + i, n - i, &cp)) == 0)
			cp = c, k = 1;	/* a byte of invalid UTF-8 */
		if (i + k > max) {
			buf_printf(b, "...[%zu bytes]", n);
			return;
		}
		if (c == '\n' && (how & TTY_LINES) && n - i > 2 &&
		    s[i + 1] == ' ' && s[i + 2] == ' ')
			buf_putc(b, c);
		else if (c == '\n')
			buf_puts(b, "\\n");
		else if (c == '\r')
			buf_puts(b, "\\r");
		else if ((c == '\t' || c == '\\') && !(how & TTY_NAME))
			buf_putc(b, c);
		else if (c == '\t')
			buf_puts(b, "\\t");
		else if (c == '\\')
			buf_puts(b, "\\\\");
		else if (c >= 0x80 && k == 1)
			buf_printf(b, "\\x%02X", c);
		else if (ttyhides(cp))
			buf_printf(b, cp < 0x80 ? "\\x%02lX" : "\\u{%lX}", cp);
		else
			for (size_t j = 0; j < k; j++)
				buf_putc(b, s[i + j]);
	}
}

void
escape_tty(struct buf *b, const char *s)
{
	tty(b, s, strlen(s), ESCAPE_TTY_MAX, TTY_NAME);
}

const char *
escape_tty_name(const char *s)
{
	static char *ring[ESCAPE_TTY_RING];
	static int next;
	struct buf b = { 0 };

	escape_tty(&b, s ? s : "(null)");
	free(ring[next]);
	ring[next] = b.s ? b.s : xstrdup("");
	s = ring[next];
	next = (next + 1) % ESCAPE_TTY_RING;
	return s;
}

void
escape_tty_text(struct buf *b, const char *s, size_t n, size_t max)
{
	tty(b, s, n, max, 0);
}

void
escape_tty_message(struct buf *b, const char *s)
{
	tty(b, s, strlen(s), ESCAPE_TTY_LINE_MAX, TTY_LINES);
}

/*
 * -e beside: the assembler reads the source's path, __FILE__, as its
 * string, where a quote, a backslash or a line end would name another
 * weights file.  0, or -1 after an error naming the path.
 */
int
escape_beside_check(const char *out)
{
	for (const unsigned char *q = (const unsigned char *)out; *q; q++)
		if (*q == '"' || *q == '\\' || *q < 0x20 || *q == 0x7f) {
			error("%s: -e beside: the assembler would read another "
			    "weights file than the one beside a source whose "
			    "path holds '\"', '\\' or a control character: "
			    "rename it, or use -e incbin or array",
			    escape_tty_name(out));
			return -1;
		}
	return 0;
}
