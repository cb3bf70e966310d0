/*
 * buf: a growing string (buf.h).  s is always NUL-terminated once
 * anything has been appended; n excludes the NUL.
 */
#include "buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void
buf_putc(struct buf *b, int c)
{
	GROW(b->s, b->cap, b->n + 2);
	b->s[b->n++] = (char)c;
	b->s[b->n] = '\0';
}

void
buf_puts(struct buf *b, const char *s)
{
	size_t len = strlen(s);

	GROW(b->s, b->cap, b->n + len + 1);
	memcpy(b->s + b->n, s, len + 1);
	b->n += len;
}

void
buf_printf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	int len;

	va_start(ap, fmt);
	len = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	GROW(b->s, b->cap, b->n + (size_t)len + 1);
	va_start(ap, fmt);
	vsnprintf(b->s + b->n, (size_t)len + 1, fmt, ap);
	va_end(ap);
	b->n += (size_t)len;
}
