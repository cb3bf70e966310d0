/*
 * util: program name, diagnostics, checked allocation, whole-file reads
 * and path helpers shared by every nnl program (atomic writes: outfile.c).
 */
#define _POSIX_C_SOURCE 200809L
#define _XOPEN_SOURCE 700
#include "util.h"
#include "escape.h"
#include "progress.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <signal.h>
#include <sys/stat.h>

static const char *progname = "nnl";
static int errcount;

static void
onsignal(int sig)
{
	outfile_cleanup();
	signal(sig, SIG_DFL);
	raise(sig);
}

void
setprogname(const char *argv0)
{
	const char *s = argv0 ? strrchr(argv0, '/') : NULL;

	progname = s ? s + 1 : (argv0 ? argv0 : "nnl");
	atexit(outfile_cleanup);
	signal(SIGINT, onsignal);
	signal(SIGTERM, onsignal);
	signal(SIGHUP, onsignal);
	signal(SIGPIPE, onsignal);
}

const char *
getprogname_nnl(void)
{
	return progname;
}

int
nerrors(void)
{
	return errcount;
}

/* A source line longer than this shows this much around the column. */
enum { CARET_WIDTH = 160 };

/*
 * Print the source line holding loc, terminal-safe (escape_tty_text),
 * and a caret under its column; a long line shows a window around the
 * column, with "..." where it is cut.
 */
static void
caret(const struct srcloc *loc)
{
	const char *p = loc->text, *end = loc->text + loc->len, *q, *a, *z;
	const char *at;
	struct buf b = { 0 };
	size_t pre;
	int line = 1;

	if (!p || loc->line <= 0)
		return;
	while (p < end && line < loc->line) {
		if (*p++ == '\n')
			line++;
	}
	if (line != loc->line)
		return;
	for (q = p; q < end && *q != '\n' && *q != '\r'; q++)
		;
	at = loc->col > 1 && (size_t)(q - p) >= (size_t)loc->col - 1 ?
	    p + loc->col - 1 : loc->col > 1 ? q : p;
	a = p, z = q;
	if (q - p > CARET_WIDTH) {
		a = at - p > CARET_WIDTH / 2 ? at - CARET_WIDTH / 2 : p;
		z = q - a > CARET_WIDTH ? a + CARET_WIDTH : q;
		/* whole characters */
		while (a > p && (*a & 0xc0) == 0x80)
			a--;
		while (z < q && (*z & 0xc0) == 0x80)
			z++;
	}
	buf_puts(&b, a > p ? "    ..." : "    ");
	escape_tty_text(&b, a, (size_t)(at - a), SIZE_MAX);
	pre = b.n;
	escape_tty_text(&b, at, (size_t)(z - at), SIZE_MAX);
	buf_puts(&b, z < q ? "...\n" : "\n");
	/* the caret: a tab under a tab, a space under any other character */
	for (size_t i = 0; i < pre; i++)
		if ((b.s[i] & 0xc0) != 0x80)
			buf_putc(&b, b.s[i] == '\t' ? '\t' : ' ');
	buf_puts(&b, "^\n");
	fwrite(b.s, 1, b.n, stderr);
	free(b.s);
}

static void
vdiag(const char *kind, const struct srcloc *loc, const char *fmt, va_list ap)
{
	static int busy;
	struct buf b = { 0 };
	char *msg;

	if (busy) {	/* out of memory while reporting */
		fprintf(stderr, "%s: error: out of memory\n", progname);
		exit(1);
	}
	busy = 1;
	progress_clear();
	fflush(stdout);
	buf_printf(&b, "%s: ", progname);
	if (loc && loc->file) {
		escape_tty_text(&b, loc->file, strlen(loc->file),
		    ESCAPE_TTY_LINE_MAX);
		if (loc->line > 0) {
			buf_printf(&b, ":%d", loc->line);
			if (loc->col > 0)
				buf_printf(&b, ":%d", loc->col);
		}
		buf_puts(&b, ": ");
	}
	buf_printf(&b, "%s: ", kind);
	/* a name the call site did not escape still cannot move the
	 * cursor or start a line of its own */
	msg = xvasprintf(fmt, ap);
	escape_tty_message(&b, msg);
	buf_putc(&b, '\n');
	fwrite(b.s, 1, b.n, stderr);
	free(msg);
	free(b.s);
	if (loc)
		caret(loc);
	busy = 0;
}

void
diag(const char *kind, const struct srcloc *loc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vdiag(kind, loc, fmt, ap);
	va_end(ap);
}

void
error_at(const struct srcloc *loc, const char *fmt, ...)
{
	va_list ap;

	errcount++;
	va_start(ap, fmt);
	vdiag("error", loc, fmt, ap);
	va_end(ap);
}

void
verror_at(const struct srcloc *loc, const char *fmt, va_list ap)
{
	errcount++;
	vdiag("error", loc, fmt, ap);
}

void
warn_at(const struct srcloc *loc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vdiag("warning", loc, fmt, ap);
	va_end(ap);
}

void
error(const char *fmt, ...)
{
	va_list ap;

	errcount++;
	va_start(ap, fmt);
	vdiag("error", NULL, fmt, ap);
	va_end(ap);
}

void
warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vdiag("warning", NULL, fmt, ap);
	va_end(ap);
}

void
die(const char *fmt, ...)
{
	va_list ap;

	errcount++;
	va_start(ap, fmt);
	vdiag("error", NULL, fmt, ap);
	va_end(ap);
	exit(1);
}

void
bug(const char *file, int line, const char *msg)
{
	fprintf(stderr, "%s: %s:%d: internal error: %s\n", progname, file,
	    line, msg);
	outfile_cleanup();
	abort();
}

void *
xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		die("out of memory");
	return p;
}

void *
xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		die("out of memory");
	return p;
}

void *
xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		die("out of memory");
	return p;
}

char *
xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *
xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *
xvasprintf(const char *fmt, va_list ap)
{
	va_list aq;
	int n;
	char *p;

	va_copy(aq, ap);
	n = vsnprintf(NULL, 0, fmt, aq);
	va_end(aq);
	if (n < 0)
		die("formatting failed");
	p = xmalloc((size_t)n + 1);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	return p;
}

char *
xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *p;

	va_start(ap, fmt);
	p = xvasprintf(fmt, ap);
	va_end(ap);
	return p;
}

void
growarray(void **p, size_t *cap, size_t n, size_t sz)
{
	size_t c = *cap ? *cap : 8;

	if (n <= *cap)
		return;
	while (c < n) {
		if (c > SIZE_MAX / 2 / sz)
			die("out of memory");
		c *= 2;
	}
	*p = xrealloc(*p, c * sz);
	*cap = c;
}

const char *
displayname(const char *path)
{
	return (!path || strcmp(path, "-") == 0) ? "<stdin>" : path;
}

char *
readfile(const char *path, size_t *len)
{
	FILE *fp;
	char *buf = NULL;
	size_t n = 0, cap = 0, r;
	int stdin_ = !path || strcmp(path, "-") == 0;

	fp = stdin_ ? stdin : fopen(path, "rb");
	if (!fp)
		return NULL;
	for (;;) {
		GROW(buf, cap, n + 65536 + 1);
		r = fread(buf + n, 1, cap - n - 1, fp);
		n += r;
		if (r == 0)
			break;
	}
	if (ferror(fp)) {
		int e = errno ? errno : EIO;

		if (!stdin_)
			fclose(fp);
		free(buf);
		errno = e;
		return NULL;
	}
	if (!stdin_)
		fclose(fp);
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

int
close_stdout(void)
{
	int bad = ferror(stdout) || fflush(stdout) != 0;

	if (fclose(stdout) != 0)
		bad = 1;
	if (bad) {
		fprintf(stderr, "%s: error: write error on standard output\n",
		    progname);
		return 1;
	}
	return errcount ? 1 : 0;
}

char *
path_dirname(const char *path)
{
	const char *s = strrchr(path, '/');

	if (!s)
		return xstrdup(".");
	if (s == path)
		return xstrdup("/");
	return xstrndup(path, (size_t)(s - path));
}

char *
path_join(const char *dir, const char *name)
{
	if (name[0] == '/' || !dir || strcmp(dir, ".") == 0 || !dir[0])
		return xstrdup(name);
	return xasprintf("%s%s%s", dir,
	    dir[strlen(dir) - 1] == '/' ? "" : "/", name);
}

int
path_mkdirs(const char *dir)
{
	char *p = xstrdup(dir);
	struct stat st;
	int rc = 0;

	for (char *s = p + 1;; s++)
		if (*s == '/' || !*s) {
			char c = *s;

			*s = '\0';
			if (mkdir(p, 0777) != 0 && errno != EEXIST) {
				error("%s: %s", p, strerror(errno));
				rc = -1;
				break;
			}
			*s = c;
			if (!c)
				break;
		}
	/* EEXIST: a directory, or a file in the way */
	if (rc == 0 && stat(p, &st) == 0 && !S_ISDIR(st.st_mode)) {
		error("%s: %s", p, strerror(ENOTDIR));
		rc = -1;
	}
	free(p);
	return rc;
}

const char *
path_basename(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

int
path_isname(const char *name)
{
	return name[0] && strcmp(name, ".") != 0 && strcmp(name, "..") != 0 &&
	    !strchr(name, '/');
}

uint32_t
le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	    (uint32_t)p[3] << 24;
}

uint64_t
le64(const unsigned char *p)
{
	return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

void
put_le32(unsigned char *p, uint32_t v)
{
	p[0] = v & 0xff;
	p[1] = v >> 8 & 0xff;
	p[2] = v >> 16 & 0xff;
	p[3] = v >> 24 & 0xff;
}

/* path as seen from the folder dir: "../w/m.weights".  Both are made
 * absolute through their folders (path need not exist yet); NULL when
 * either folder cannot be resolved. */
char *
path_relative(const char *path, const char *dir)
{
	char *pd = path_dirname(path), *a = realpath(pd, NULL);
	char *b = realpath(dir, NULL), *t;
	const char *base = path_basename(path), *rest;
	size_t i = 0, k, ups = 0;
	char *r;

	free(pd);
	if (!a || !b || !path_isname(base)) {
		free(a);
		free(b);
		return NULL;
	}
	t = xasprintf("%s/%s", strcmp(a, "/") ? a : "", base);
	if (strcmp(b, "/") == 0)
		b[0] = '\0';
	/* the longest common run of whole components */
	for (k = 0; t[k] && t[k] == b[k]; k++)
		if (t[k] == '/')
			i = k;
	if (!b[k] && t[k] == '/')
		i = k;
	for (const char *p = b + i; *p; p++)
		ups += *p == '/';
	rest = t + i + (t[i] == '/');
	r = xmalloc(3 * ups + strlen(rest) + 1);
	for (k = 0; k < ups; k++)
		memcpy(r + 3 * k, "../", 3);
	strcpy(r + 3 * ups, rest);
	free(a);
	free(b);
	free(t);
	return r;
}
