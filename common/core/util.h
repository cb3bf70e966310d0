/*
 * util: the small helpers every nnl program shares: program name,
 * diagnostics in the house style, checked allocation, whole-file reads
 * and atomic writes (a failed run never leaves a partial output file).
 */
#ifndef NNL_UTIL_H
#define NNL_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#if defined(__GNUC__)
#define NNL_PRINTF(a, b) __attribute__((format(printf, a, b)))
#define NNL_NORETURN __attribute__((noreturn))
#else
#define NNL_PRINTF(a, b)
#define NNL_NORETURN
#endif

/* Program name: every line written to stderr starts with it. */
void setprogname(const char *argv0);
const char *getprogname_nnl(void);

/*
 * Diagnostics.  A "where" is a file name (or "<stdin>") and optional
 * line and column (0 when unknown).  With a source line, a caret line is
 * printed below it, as compilers do.
 *   nnl-parse: model.webnn:12:7: error: expected ';'
 *       x = relu(y)
 *             ^
 */
struct srcloc {
	const char *file;	/* NULL: no file part */
	int line, col;		/* 1-based; 0: unknown */
	const char *text;	/* the source buffer, for the caret line */
	size_t len;
};

void diag(const char *kind, const struct srcloc *loc, const char *fmt, ...)
    NNL_PRINTF(3, 4);
void error_at(const struct srcloc *loc, const char *fmt, ...)
    NNL_PRINTF(2, 3);
void verror_at(const struct srcloc *loc, const char *fmt, va_list ap);
void warn_at(const struct srcloc *loc, const char *fmt, ...) NNL_PRINTF(2, 3);
/* "nnl-x: error: ..." */
void error(const char *fmt, ...) NNL_PRINTF(1, 2);
void warn(const char *fmt, ...) NNL_PRINTF(1, 2);
/* error(), cleanup of registered temporaries, exit(1). */
NNL_NORETURN void die(const char *fmt, ...) NNL_PRINTF(1, 2);
/* Broken internal invariant: file:line, abort. */
#define BUG(msg) bug(__FILE__, __LINE__, (msg))
NNL_NORETURN void bug(const char *file, int line, const char *msg);
/* Number of errors reported so far through error*(). */
int nerrors(void);

/* Allocation that never returns NULL (dies on exhaustion). */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) NNL_PRINTF(1, 2);
char *xvasprintf(const char *fmt, va_list ap);
/* Grow *p (of *cap elements of size sz) to hold at least n elements. */
void growarray(void **p, size_t *cap, size_t n, size_t sz);
#define GROW(arr, cap, n) growarray((void **)&(arr), &(cap), (n), sizeof *(arr))

/*
 * Whole-file read.  path "-" or NULL reads standard input.  Returns a
 * NUL-terminated buffer (len excludes the NUL) or NULL with errno set.
 */
char *readfile(const char *path, size_t *len);
/* Display name of a path for diagnostics: "<stdin>" for "-" or NULL. */
const char *displayname(const char *path);

/*
 * Atomic output (outfile.c).  outfile_open("-", "/dev/stdout" or NULL)
 * is stdout; a FIFO, a device or a name under /dev or /proc is written
 * in place; any other file is written to a temporary beside it (beside
 * the target of a symbolic link), renamed over it by outfile_commit
 * with the replaced file's mode.  A program that dies before commit
 * removes the temporary (atexit and die()).
 */
struct outfile {
	FILE *fp;
	char *path;	/* final path, NULL for stdout */
	char *tmp;	/* temporary path, NULL when written in place */
	int mode;	/* permissions of the file replaced; -1: new file */
	long long uid, gid;	/* its owner */
};
int outfile_open(struct outfile *o, const char *path);
/* Flush, fsync-free close, rename.  Returns 0, or -1 after reporting. */
int outfile_commit(struct outfile *o);
void outfile_abort(struct outfile *o);
/* Write a whole buffer atomically to path. 0 or -1 after reporting. */
int writefile_atomic(const char *path, const void *buf, size_t len);
/* Remove every temporary (at exit, on a signal). */
void outfile_cleanup(void);

/*
 * All-or-nothing output of several files.  After outfile_group_begin,
 * outfile_commit leaves each file complete in its temporary;
 * outfile_group_commit renames them all, restoring the files replaced
 * should one rename fail (0, or -1 after reporting); exiting or
 * outfile_group_abort before that removes them.  outfile_staged maps
 * the path of a file of the group to its temporary (to read it back),
 * any other path to itself.  Groups nest: an inner commit leaves its
 * files to the outermost one; an abort at any depth drops them all.
 */
void outfile_group_begin(void);
int outfile_group_commit(void);
void outfile_group_abort(void);
const char *outfile_staged(const char *path);

/* Close stdout, reporting a failed write; returns the exit status. */
int close_stdout(void);

/* Path helpers. Results are malloc'd. */
char *path_dirname(const char *path);	/* "." for a bare name */
char *path_join(const char *dir, const char *name); /* name if absolute */
char *path_relative(const char *path, const char *dir); /* or NULL */
const char *path_basename(const char *path);
/* 1 if name, from a model, is one file name: not empty, ".", ".." and
 * with no '/' (so DIR/name stays in DIR); else 0. */
int path_isname(const char *name);
/* mkdir -p: dir and each missing directory above it, mode 0777 less
 * the umask; 0, or -1 after an error naming the one not made. */
int path_mkdirs(const char *dir);

/* Little-endian loads and stores. */
uint32_t le32(const unsigned char *p);
uint64_t le64(const unsigned char *p);
void put_le32(unsigned char *p, uint32_t v);

#endif
