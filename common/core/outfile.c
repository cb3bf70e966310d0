/*
 * outfile: how every nnl program writes a file.  A regular file (or a
 * new one) is written to a temporary beside it and renamed over it, so
 * a failed run leaves the old file as it was; the replaced file's mode
 * (and, for root, its owner) carries over.  A FIFO, a device, or a name
 * under /dev or /proc is written in place: renaming a file over
 * /dev/null would destroy it.  A symbolic link to a regular file keeps
 * the link and replaces the content of its target, as compilers do.
 *
 * A group makes several files all-or-nothing: between
 * outfile_group_begin and outfile_group_commit each committed file
 * stays in its temporary, and the commit renames them all, restoring
 * every replaced file should one rename fail.  A program that exits
 * before the group commit leaves no new file and changes no old one.
 * Groups nest: only the outermost commit renames.
 */
#define _DEFAULT_SOURCE
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Temporaries to remove if the program dies. */
static char **tmps;
static size_t ntmps, captmps;

/* Files of the open group, in their temporaries. */
struct staged {
	char *path, *tmp;
	char *canon;	/* real directory + base name, for lookups */
};
static struct staged *staged;
static size_t nstaged, capstaged;
static int grouping;

void
outfile_cleanup(void)
{
	for (size_t i = 0; i < ntmps; i++)
		if (tmps[i]) {
			unlink(tmps[i]);
			tmps[i] = NULL;
		}
}

static void
registertmp(char *t)
{
	for (size_t i = 0; i < ntmps; i++)
		if (!tmps[i]) {
			tmps[i] = t;
			return;
		}
	GROW(tmps, captmps, ntmps + 1);
	tmps[ntmps++] = t;
}

static void
unregistertmp(const char *t)
{
	for (size_t i = 0; i < ntmps; i++)
		if (tmps[i] == t)
			tmps[i] = NULL;
}

/* Names that stand for something already open: written in place. */
static int
inplacename(const char *path)
{
	return strncmp(path, "/dev/", 5) == 0 ||
	    strncmp(path, "/proc/", 6) == 0;
}

static int
opendirect(struct outfile *o, const char *path)
{
	int fd = open(path, O_WRONLY | O_NOCTTY);

	if (fd < 0 || !(o->fp = fdopen(fd, "wb"))) {
		error("%s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	o->path = xstrdup(path);
	return 0;
}

int
outfile_open(struct outfile *o, const char *path)
{
	struct stat st, lst;
	int fd;

	memset(o, 0, sizeof *o);
	o->mode = -1;
	if (!path || strcmp(path, "-") == 0 ||
	    strcmp(path, "/dev/stdout") == 0) {
		o->fp = stdout;
		return 0;
	}
	if (stat(path, &st) == 0) {
		if (S_ISDIR(st.st_mode)) {
			error("%s: %s", path, strerror(EISDIR));
			return -1;
		}
		if (!S_ISREG(st.st_mode) || inplacename(path))
			return opendirect(o, path);
		o->mode = (int)(st.st_mode & 07777);
		o->uid = (long long)st.st_uid;
		o->gid = (long long)st.st_gid;
		/* a link to a regular file: replace its target's content */
		if (lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode))
			o->path = realpath(path, NULL);
	}
	if (!o->path)
		o->path = xstrdup(path);
	o->tmp = xasprintf("%s.tmpXXXXXX", o->path);
	fd = mkstemp(o->tmp);
	if (fd < 0) {
		error("%s: %s", path, strerror(errno));
		free(o->tmp);
		free(o->path);
		o->tmp = o->path = NULL;
		return -1;
	}
	registertmp(o->tmp);
	o->fp = fdopen(fd, "wb");
	if (!o->fp) {
		error("%s: %s", path, strerror(errno));
		close(fd);
		outfile_abort(o);
		return -1;
	}
	return 0;
}

/* The old file's owner (when we may) and mode, or the usual mode. */
static void
setmode(struct outfile *o)
{
	int fd = fileno(o->fp);

	if (o->mode < 0) {
		mode_t m = umask(0);

		umask(m);
		fchmod(fd, 0666 & ~m);
		return;
	}
	if (geteuid() == 0 && fchown(fd, (uid_t)o->uid, (gid_t)o->gid) != 0)
		warn("%s: cannot keep the owner: %s", o->path,
		    strerror(errno));
	fchmod(fd, (mode_t)o->mode);
}

/* "real directory/base name" of a path, or a copy of it. */
static char *
canonical(const char *path)
{
	char *d = path_dirname(path), *rd = realpath(d, NULL), *s;

	s = rd ? xasprintf("%s/%s", rd, path_basename(path)) :
	    xstrdup(path);
	free(d);
	free(rd);
	return s;
}

static int
stage(struct outfile *o)
{
	char *c = canonical(o->path);

	for (size_t i = 0; i < nstaged; i++)
		if (strcmp(staged[i].canon, c) == 0) {
			error("%s: written twice", o->path);
			free(c);
			outfile_abort(o);
			return -1;
		}
	GROW(staged, capstaged, nstaged + 1);
	staged[nstaged].path = o->path;
	staged[nstaged].tmp = o->tmp;
	staged[nstaged++].canon = c;
	o->path = o->tmp = NULL;
	return 0;
}

int
outfile_commit(struct outfile *o)
{
	if (o->fp == stdout) {
		if (fflush(stdout) != 0 || ferror(stdout)) {
			error("write error on standard output: %s",
			    strerror(errno));
			return -1;
		}
		return 0;
	}
	if (fflush(o->fp) != 0 || ferror(o->fp)) {
		error("%s: write error: %s", o->path, strerror(errno));
		outfile_abort(o);
		return -1;
	}
	if (o->tmp)
		setmode(o);
	if (fclose(o->fp) != 0) {
		o->fp = NULL;
		error("%s: write error: %s", o->path, strerror(errno));
		outfile_abort(o);
		return -1;
	}
	o->fp = NULL;
	if (!o->tmp) {		/* written in place */
		free(o->path);
		o->path = NULL;
		return 0;
	}
	if (grouping)
		return stage(o);
	if (rename(o->tmp, o->path) != 0) {
		error("%s: %s", o->path, strerror(errno));
		outfile_abort(o);
		return -1;
	}
	unregistertmp(o->tmp);
	free(o->tmp);
	free(o->path);
	o->tmp = o->path = NULL;
	return 0;
}

void
outfile_abort(struct outfile *o)
{
	if (o->fp && o->fp != stdout)
		fclose(o->fp);
	o->fp = NULL;
	if (o->tmp) {
		unlink(o->tmp);
		unregistertmp(o->tmp);
		free(o->tmp);
	}
	free(o->path);
	o->tmp = o->path = NULL;
}

int
writefile_atomic(const char *path, const void *buf, size_t len)
{
	struct outfile o;

	if (outfile_open(&o, path) != 0)
		return -1;
	if (len && fwrite(buf, 1, len, o.fp) != len) {
		error("%s: write error: %s", path, strerror(errno));
		outfile_abort(&o);
		return -1;
	}
	return outfile_commit(&o);
}

void
outfile_group_begin(void)
{
	grouping++;
}

const char *
outfile_staged(const char *path)
{
	char *c;
	const char *t = path;

	if (!path || !nstaged)
		return path;
	c = canonical(path);
	for (size_t i = 0; i < nstaged; i++)
		if (strcmp(staged[i].canon, c) == 0)
			t = staged[i].tmp;
	free(c);
	return t;
}

static void
unstage(void)
{
	for (size_t i = 0; i < nstaged; i++) {
		unregistertmp(staged[i].tmp);
		free(staged[i].path);
		free(staged[i].tmp);
		free(staged[i].canon);
	}
	free(staged);
	staged = NULL;
	nstaged = capstaged = 0;
	grouping = 0;
}

void
outfile_group_abort(void)
{
	for (size_t i = 0; i < nstaged; i++)
		unlink(staged[i].tmp);
	unstage();
}

/* A hard link to the file about to be replaced, or NULL. */
static char *
backup(const char *path)
{
	char *b = xasprintf("%s.oldXXXXXX", path);
	int fd = mkstemp(b);

	if (fd < 0) {
		free(b);
		return NULL;
	}
	close(fd);
	unlink(b);
	if (link(path, b) != 0) {
		free(b);
		return NULL;
	}
	registertmp(b);
	return b;
}

int
outfile_group_commit(void)
{
	char **bak, *old;
	struct stat st;
	size_t i, j;
	int rc = 0;

	if (grouping > 1) {	/* an enclosing group commits it all */
		grouping--;
		return 0;
	}
	bak = xcalloc(nstaged + 1, sizeof *bak);
	old = xcalloc(nstaged + 1, 1);
	for (i = 0; i < nstaged; i++)
		if (lstat(staged[i].path, &st) == 0) {
			old[i] = 1;
			bak[i] = backup(staged[i].path);
		}
	for (i = 0; i < nstaged; i++)
		if (rename(staged[i].tmp, staged[i].path) != 0) {
			error("%s: %s", staged[i].path, strerror(errno));
			rc = -1;
			break;
		}
	if (rc) {
		/* put back what the renames before this one replaced */
		for (j = 0; j < i; j++) {
			if (bak[j])
				rename(bak[j], staged[j].path);
			else if (!old[j])
				unlink(staged[j].path);
		}
		for (j = i; j < nstaged; j++)
			unlink(staged[j].tmp);
	}
	for (i = 0; i < nstaged; i++)
		if (bak[i]) {
			unlink(bak[i]);
			unregistertmp(bak[i]);
			free(bak[i]);
		}
	free(bak);
	free(old);
	unstage();
	return rc;
}
