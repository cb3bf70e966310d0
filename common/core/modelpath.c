/*
 * modelpath: whether a file a model names may be read.  A model is
 * data from anywhere; the files it names are read with the user's
 * rights, so without the user's --allow-outside it may name only what
 * lies in its own folder: no absolute path, no "..", no symbolic link
 * leading out.  The resolved path is what the caller opens, so the
 * check and the open see the same file.
 */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "modelpath.h"
#include "util.h"

/* Is real (resolved) rdir itself or below it? */
static int
inside(const char *real, const char *rdir)
{
	size_t n = strlen(rdir);

	if (strcmp(rdir, "/") == 0)
		return 1;
	return strncmp(real, rdir, n) == 0 && (real[n] == '/' ||
	    real[n] == '\0');
}

char *
modelpath(const char *dir, const char *name, int allow, const char **why)
{
	char *path, *real = NULL, *rdir = NULL;
	int e;

	if (!name[0]) {
		errno = 0;
		*why = "is empty";
		return NULL;
	}
	path = path_join(dir, name);
	if (allow)
		return path;
	if (name[0] == '/') {
		free(path);
		errno = 0;
		*why = "is absolute; a model may name only files in its "
		    "folder, unless " MODELPATH_FLAG " is given";
		return NULL;
	}
	if (!(real = realpath(path, NULL)) || !(rdir = realpath(dir && *dir ?
	    dir : ".", NULL))) {
		e = errno;
		free(path);
		free(real);
		errno = e;
		*why = strerror(e);
		return NULL;
	}
	free(path);
	if (!inside(real, rdir)) {
		free(real);
		free(rdir);
		errno = 0;
		*why = "leads outside the model's folder; a model may name "
		    "only files in it, unless " MODELPATH_FLAG " is given";
		return NULL;
	}
	free(rdir);
	return real;
}
