/*
 * infile: open, fstat, refuse anything but a regular file, then read
 * what was asked, never more than the size fstat gave.  Reasons are
 * returned as text for the caller to put after the name it knows the
 * file by (a graph's "weights" member, a tensor's external data).
 */
#define _DEFAULT_SOURCE
#include "infile.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

static char reason[128];

/* Every file infile_open opened, for infile_which (an input is never
 * an output). */
static struct seen {
	dev_t dev;
	ino_t ino;
	char *path;
} *seen;
static size_t nseen, capseen;

static void
remember(const struct stat *st, const char *path)
{
	for (size_t i = 0; i < nseen; i++)
		if (seen[i].dev == st->st_dev && seen[i].ino == st->st_ino)
			return;
	GROW(seen, capseen, nseen + 1);
	seen[nseen].dev = st->st_dev;
	seen[nseen].ino = st->st_ino;
	seen[nseen++].path = xstrdup(path);
}

const char *
infile_which(const char *path)
{
	struct stat st;

	if (stat(path, &st) != 0)
		return NULL;
	for (size_t i = 0; i < nseen; i++)
		if (seen[i].dev == st.st_dev && seen[i].ino == st.st_ino)
			return seen[i].path;
	return NULL;
}

static const char *
kindof(mode_t m)
{
	return S_ISDIR(m) ? "a directory" : S_ISFIFO(m) ? "a FIFO" :
	    S_ISCHR(m) ? "a character device" : S_ISBLK(m) ?
	    "a block device" : S_ISSOCK(m) ? "a socket" : "not a plain file";
}

int
infile_open(const char *path, uint64_t *size, const char **why)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0) {
		*why = strerror(errno);
		return -1;
	}
	if (fstat(fd, &st) != 0) {
		*why = strerror(errno);
		close(fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(reason, sizeof reason, "not a regular file (%s)",
		    kindof(st.st_mode));
		*why = reason;
		close(fd);
		return -1;
	}
	remember(&st, path);
	*size = (uint64_t)st.st_size;
	return fd;
}

int
infile_pread(int fd, void *buf, size_t n, uint64_t off, const char **why)
{
	unsigned char *p = buf;

	while (n) {
		ssize_t r;

		if (off > (uint64_t)INT64_MAX) {
			*why = "offset out of range";
			return -1;
		}
		r = pread(fd, p, n, (off_t)off);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			*why = strerror(errno);
			return -1;
		}
		if (r == 0) {
			*why = "the file is shorter than it was a moment ago";
			return -1;
		}
		p += r;
		n -= (size_t)r;
		off += (uint64_t)r;
	}
	return 0;
}

char *
infile_read(const char *path, uint64_t max, size_t *len, const char **why)
{
	uint64_t size;
	char *buf;
	int fd = infile_open(path, &size, why);

	if (fd < 0)
		return NULL;
	if (size > max || size >= SIZE_MAX) {
		snprintf(reason, sizeof reason, "%" PRIu64 " bytes, over the "
		    "limit of %" PRIu64, size, max);
		*why = reason;
		close(fd);
		return NULL;
	}
	buf = xmalloc((size_t)size + 1);
	if (infile_pread(fd, buf, (size_t)size, 0, why) != 0) {
		free(buf);
		close(fd);
		return NULL;
	}
	close(fd);
	buf[size] = '\0';
	*len = (size_t)size;
	return buf;
}
