/*
 * markup: a model's names in the markup nnl writes for people to look
 * at (markup.c): Graphviz DOT (quoted strings and HTML-like labels) and
 * the XML of HTML pages and SVG pictures.  Names are untrusted: no name
 * can end the string or element it is in, add an attribute, name an
 * entity, run a Graphviz escape (\N, \G, \l) or start a line.  Control
 * characters, invalid UTF-8, characters that reorder text and the
 * noncharacters (U+FDD0-FDEF, U+FFFE and U+FFFF of every plane, which
 * XML cannot hold) are shown as \n, \r, \t, \xNN and \u{N}, as
 * escape_tty does.
 */
#ifndef NNL_MARKUP_H
#define NNL_MARKUP_H

#include "graph.h"

/* Each function keeps at most max bytes of s (0: all), then "...". */

/* The inside of a DOT quoted string ("..." not written): \" and \\,
 * and &amp;, as Graphviz reads entities in strings. */
void markup_dot_string(struct buf *b, const char *s, size_t max);

/* Text in a DOT HTML-like label <...>: &amp; &lt; &gt; &quot; for the
 * markup, \\ for a backslash, &#N; for every non-ASCII character. */
void markup_dot_html(struct buf *b, const char *s, size_t max);

/* XML (HTML and SVG) text or a double-quoted attribute value: &amp;
 * &lt; &gt; &quot; &#39;, &#N; for every non-ASCII character. */
void markup_xml(struct buf *b, const char *s, size_t max);

#endif
