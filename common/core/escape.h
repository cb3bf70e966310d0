/*
 * escape: the one way each context of generated C and JavaScript, and
 * the terminal, holds a string from a model (escape.c).  A model's
 * names are untrusted: every emitter writes them through these
 * functions only, so that no name can end a comment, a string or an
 * identifier, or change what the code around it means; every message
 * and listing for people shows them through escape_tty, so that no name
 * can forge a line or command the terminal.
 */
#ifndef NNL_ESCAPE_H
#define NNL_ESCAPE_H

#include <cjson/cJSON.h>

#include "buf.h"

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
 * A readable C identifier for a model name, malloc'd: its letters and
 * digits, each run of other bytes ('_' among them) one '_' between
 * them and none at either end ("efficientnet_b0.op13" gives
 * "efficientnet_b0_op13", "my-net" "my_net"); "m_" in front of one
 * that starts with a digit or with nnl (any case: the runtime's
 * names), "_m" after a C keyword or main, "m" for a name with no letter
 * or digit.  Beyond ESCAPE_IDENT_MAX bytes it is cut and ends in "_h"
 * and the XXH3-64 of the whole name.  Names that differ only in the
 * bytes between words ("a.b", "a-b", "a__b") give one identifier: two
 * such models linked into one program need --prefix (nnl(7), Names).
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

/* A JSON value as a JavaScript literal, keys and strings as above
 * (jsonput.c, beside the JSON printer whose numbers it writes). */
void escape_js_value(struct buf *b, const cJSON *v);

/*
 * The terminal: diagnostics and listings for people.  A name is shown
 * as it is when it is printable UTF-8; a control character (C0, DEL,
 * C1), a character that reorders or breaks lines (U+061C, U+200E,
 * U+200F, U+2028 to U+202E, U+2066 to U+2069, U+FEFF) and a byte of
 * invalid UTF-8 become \n, \r, \t, \xNN (a byte) or \u{N} (a
 * character), so that no name moves the cursor, starts a second line
 * or sends the terminal a command.
 */
/* Names keep this many bytes, then "...[N bytes]". */
#define ESCAPE_TTY_MAX 200
/* A whole message keeps this many bytes, then "...[N bytes]". */
#define ESCAPE_TTY_LINE_MAX 8192

/* A name: as above, a backslash as \\, cut after ESCAPE_TTY_MAX
 * bytes with a marker that gives its length. */
void escape_tty(struct buf *b, const char *s);

/*
 * escape_tty(s) as a string for a printf argument, e.g.
 * error("node \"%s\": ...", escape_tty_name(n->id)).  The string stays
 * valid for the next ESCAPE_TTY_RING - 1 calls.
 */
#define ESCAPE_TTY_RING 16
const char *escape_tty_name(const char *s);

/*
 * n bytes of text composed for the terminal (a file name, a source
 * line): escaped as a name is, but a backslash and a tab are kept (a
 * message's names are escaped already, and a source line's tabs align
 * its caret); at most max bytes, then "...[N bytes]".
 */
void escape_tty_text(struct buf *b, const char *s, size_t n, size_t max);

/*
 * A diagnostic's message: as escape_tty_text, at most
 * ESCAPE_TTY_LINE_MAX bytes, and a line end is kept where two spaces
 * follow it: a message may go on in indented lines (a list of nodes, a
 * hint), but nothing in it starts a line as a diagnostic does.
 */
void escape_tty_message(struct buf *b, const char *s);

/*
 * -e beside: 0 if the assembler reads a source's path, __FILE__, back
 * exactly, else -1 after an error naming the path.
 */
int escape_beside_check(const char *src);

#endif
