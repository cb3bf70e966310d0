/*
 * buf: a growing string, the one every printer of the library appends
 * to (JSON, C and JS text, messages).  It lives apart from the JSON
 * code so that the escapers, the graph and the diagnostics can use it
 * without reaching the JSON reader.
 */
#ifndef NNL_BUF_H
#define NNL_BUF_H

#include <stddef.h>

#include "util.h"

struct buf {
	char *s;
	size_t n, cap;
};
void buf_puts(struct buf *b, const char *s);
void buf_putc(struct buf *b, int c);
void buf_printf(struct buf *b, const char *fmt, ...) NNL_PRINTF(2, 3);

#endif
