/*
 * escape: the one way each context of generated C and JavaScript holds
 * a string from a model (escape.c).  A model's names are untrusted:
 * every emitter writes them through these functions only, so that no
 * name can end a comment, a string or an identifier, or change what the
 * code around it means.
 */
#ifndef NNL_ESCAPE_H
#define NNL_ESCAPE_H

#include "graph.h"

/* Comments keep this many bytes of a name, then "...". */
#define ESCAPE_COMMENT_MAX 200
/* C identifiers longer than this end in a hash of the name. */
#define ESCAPE_IDENT_MAX 64

/*
 * Length of the well-formed UTF-8 sequence at s (n bytes available;
 * no overlong form, no surrogate, nothing above U+10FFFF), or 0; *cp
 * gets its code point.  An ASCII byte is a sequence of length 1.
 */
size_t escape_utf8len(const char *s, size_t n, unsigned long *cp);

/*
 * The text of a C comment, block or line (no line end is written):
 * printable ASCII as it is but for the two comment delimiters, "??"
 * and backslash; every other byte or character as \n, \t, \xNN or
 * \u{N}; at most ESCAPE_COMMENT_MAX bytes of s, then "...".  The
 * caller puts it between characters other than '*' and '/'.
 */
void escape_c_comment(struct buf *b, const char *s);

/* A C string literal, quotes included: octal escapes for all but
 * printable ASCII, no trigraph. */
void escape_c_string(struct buf *b, const char *s);

/*
 * A valid C identifier for a model name, malloc'd, one to one: a name
 * of letters and digits with single inner underscores, that starts
 * with a letter, is no keyword and does not start with nnl (any case)
 * is kept; any other name becomes "m__" and the name with every byte
 * outside [A-Za-z0-9] as _XX (hex), so it cannot equal a kept name or
 * another one.  Beyond ESCAPE_IDENT_MAX bytes the form is cut and ends
 * in "__h" and the XXH3-64 of the whole name.
 */
char *escape_c_ident(const char *name);

/* A // comment of JavaScript: as escape_c_comment, and no "</" or "<!"
 * for a page that puts the module in a <script> element. */
void escape_js_comment(struct buf *b, const char *s);

/*
 * A JavaScript string literal, quotes included, in ASCII: quote,
 * backslash, control characters, "<" and ">" (no "</script>" or
 * "<!--" for HTML) and every non-ASCII character as \uXXXX (U+2028 and
 * U+2029 included); an invalid UTF-8 byte as U+FFFD.
 */
void escape_js_string(struct buf *b, const char *s);

/*
 * A property name in a JavaScript object literal: an identifier name
 * as it is, "__proto__" computed (["__proto__"], an own property, not
 * the prototype), any other name as a string literal.
 */
void escape_js_key(struct buf *b, const char *s);

/* A JSON value as a JavaScript literal, keys and strings as above. */
void escape_js_value(struct buf *b, const cJSON *v);

#endif
