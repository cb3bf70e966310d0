/*
 * markup: a model's names in DOT, HTML and SVG text.  One walk over
 * the name serves the three contexts; they differ in the ASCII they
 * escape and in how a backslash is written (Graphviz reads escapes
 * such as \N in quoted strings and HTML-like labels alike, so a
 * backslash there is doubled).
 */
#include <string.h>

#include "escape.h"
#include "markup.h"

enum mode { MK_DOT_STRING, MK_DOT_HTML, MK_XML };

/* Characters that reorder or break lines (as escape_tty), and the
 * noncharacters, of which XML 1.0 has no U+FFFE or U+FFFF even as a
 * reference (&#65534; is not well-formed). */
static int
reorders(unsigned long cp)
{
	return cp == 0x061c || cp == 0x200e || cp == 0x200f ||
	    (cp >= 0x2028 && cp <= 0x202e) || (cp >= 0x2066 &&
	    cp <= 0x2069) || cp == 0xfeff || (cp >= 0x80 && cp <= 0x9f) ||
	    (cp >= 0xfdd0 && cp <= 0xfdef) || (cp & 0xfffe) == 0xfffe;
}

static void
backslash(struct buf *b, enum mode m)
{
	buf_puts(b, m == MK_XML ? "\\" : "\\\\");
}

static void
ascii(struct buf *b, enum mode m, int c)
{
	switch (c) {
	case '\n': backslash(b, m); buf_putc(b, 'n'); return;
	case '\r': backslash(b, m); buf_putc(b, 'r'); return;
	case '\t': backslash(b, m); buf_putc(b, 't'); return;
	case '\\': backslash(b, m); return;
	}
	if (c < 0x20 || c == 0x7f) {
		backslash(b, m);
		buf_printf(b, "x%02X", c);
		return;
	}
	if (m == MK_DOT_STRING) {
		/* Graphviz reads entities in strings too: "&#1;" would be
		 * U+0001 in the SVG */
		if (c == '"')
			buf_puts(b, "\\\"");
		else if (c == '&')
			buf_puts(b, "&amp;");
		else
			buf_putc(b, c);
		return;
	}
	switch (c) {
	case '&': buf_puts(b, "&amp;"); return;
	case '<': buf_puts(b, "&lt;"); return;
	case '>': buf_puts(b, "&gt;"); return;
	case '"': buf_puts(b, "&quot;"); return;
	case '\'':
		buf_puts(b, m == MK_XML ? "&#39;" : "'");
		return;
	}
	buf_putc(b, c);
}

static void
walk(struct buf *b, const char *s, size_t max, enum mode m)
{
	size_t n = strlen(s), i = 0;

	if (!b->s)
		buf_puts(b, "");	/* "" escapes to "", not NULL */
	while (i < n) {
		unsigned long cp;
		size_t k;

		if (max && i >= max) {
			buf_puts(b, "...");
			return;
		}
		k = escape_utf8len(s + i, n - i, &cp);
		if (k == 0) {		/* a byte of invalid UTF-8 */
			backslash(b, m);
			buf_printf(b, "x%02X", (unsigned char)s[i]);
			i++;
		} else if (k == 1) {
			ascii(b, m, (unsigned char)s[i]);
			i++;
		} else {
			if (reorders(cp)) {
				backslash(b, m);
				buf_printf(b, "u{%lX}", cp);
			} else if (m == MK_DOT_STRING)
				buf_printf(b, "%.*s", (int)k, s + i);
			else
				buf_printf(b, "&#%lu;", cp);
			i += k;
		}
	}
}

void
markup_dot_string(struct buf *b, const char *s, size_t max)
{
	walk(b, s, max, MK_DOT_STRING);
}

void
markup_dot_html(struct buf *b, const char *s, size_t max)
{
	walk(b, s, max, MK_DOT_HTML);
}

void
markup_xml(struct buf *b, const char *s, size_t max)
{
	walk(b, s, max, MK_XML);
}
