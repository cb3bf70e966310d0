/*
 * scaffold: nnc new DIR --project LANG.  A starter project around a
 * sample NNL model: the files of templates/new/common (model.nnl, its
 * weights) and of templates/new/LANG (the host program calling the
 * generated C API, its build file, a README), copied into a new DIR.
 * The directory is filled beside its final name and renamed into
 * place: all of it or nothing.
 */
#define _DEFAULT_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "escape.h"
#include "pipeline.h"
#include "scaffold.h"
#include "util.h"

static const char *const projects[] = { "rust", "go", "cpp", "python" };

/* templates/new beside the programs (a checkout's bin/ or an
 * installation's share/nnl) */
static char *
templates(void)
{
	static const char *const tries[] = {
	    "../templates/new", "../share/nnl/templates/new"
	};
	const char *env = getenv("NNL_TEMPLATES");
	char *self, *dir, *found = NULL;

	if (env && *env)
		return xstrdup(env);
	self = find_program("nnc");
	dir = path_dirname(self);
	for (size_t i = 0; i < 2 && !found; i++) {
		char *p = path_join(dir, tries[i]);
		struct stat st;

		if (stat(p, &st) == 0 && S_ISDIR(st.st_mode))
			found = p;
		else
			free(p);
	}
	free(self);
	free(dir);
	return found;
}

static int
writeall(int fd, const char *b, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, b, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		b += w;
		n -= (size_t)w;
	}
	return 0;
}

/* A file of the template, created 0666 (0777 for a script) less the
 * umask, as cp(1) would: nnc new never widens what the umask allows. */
static int
copyfile(const char *from, const char *to, mode_t mode)
{
	size_t n;
	char *b = readfile(from, &n);
	int fd, rc = 0;

	if (!b) {
		error("%s: %s", from, strerror(errno));
		return -1;
	}
	fd = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW,
	    (mode & 0111) ? 0777 : 0666);
	if (fd < 0 || writeall(fd, b, n) != 0) {
		error("%s: %s", escape_tty_name(to), strerror(errno));
		rc = -1;
	}
	if (fd >= 0 && close(fd) != 0 && rc == 0) {
		error("%s: %s", escape_tty_name(to), strerror(errno));
		rc = -1;
	}
	free(b);
	return rc;
}

/* Copy the tree under from into the existing directory to. */
static int
copytree(const char *from, const char *to)
{
	DIR *d = opendir(from);
	struct dirent *e;
	int rc = 0;

	if (!d) {
		error("%s: %s", from, strerror(errno));
		return -1;
	}
	while (rc == 0 && (e = readdir(d)) != NULL) {
		char *s, *t;
		struct stat st;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		s = path_join(from, e->d_name);
		t = path_join(to, e->d_name);
		if (stat(s, &st) != 0) {
			error("%s: %s", s, strerror(errno));
			rc = -1;
		} else if (S_ISDIR(st.st_mode)) {
			if (mkdir(t, 0777) != 0 && errno != EEXIST) {
				error("%s: %s", escape_tty_name(t),
				    strerror(errno));
				rc = -1;
			} else {
				rc = copytree(s, t);
			}
		} else if (S_ISREG(st.st_mode)) {
			rc = copyfile(s, t, st.st_mode);
		}
		free(s);
		free(t);
	}
	closedir(d);
	return rc;
}

static void
rmtree(const char *dir)
{
	char *da = argpath(dir);
	char *argv[] = { "rm", "-rf", da, NULL };

	run_command(argv, 0);
	free(da);
}

int
scaffold_new(const char *path, const char *project)
{
	char *dir, *tdir, *parent, *tmp, *common, *lang;
	struct stat st;
	size_t i, n = strlen(path);
	int rc = -1;

	/* "demo/" is "demo" */
	while (n > 1 && path[n - 1] == '/')
		n--;
	dir = xstrndup(path, n);

	for (i = 0; i < sizeof projects / sizeof *projects; i++)
		if (project && !strcmp(project, projects[i]))
			break;
	if (i == sizeof projects / sizeof *projects) {
		error("--project %s: expected rust, go, cpp or python",
		    project ? escape_tty_name(project) : "(missing)");
		free(dir);
		return -2;	/* a usage error */
	}
	if (lstat(dir, &st) == 0) {
		error("%s: already exists; nnc new makes a new directory",
		    escape_tty_name(dir));
		free(dir);
		return -1;
	}
	if (!(tdir = templates())) {
		error("no templates/new beside nnc (set NNL_TEMPLATES)");
		free(dir);
		return -1;
	}
	common = path_join(tdir, "common");
	lang = path_join(tdir, project);
	parent = path_dirname(dir);
	tmp = xasprintf("%s/.nnc-new.XXXXXX", parent);
	if (!mkdtemp(tmp)) {
		error("%s: %s", escape_tty_name(parent), strerror(errno));
	} else {
		/* mkdtemp's 0700 becomes what mkdir(DIR, 0777) makes */
		mode_t m = umask(0);

		umask(m);
		if (chmod(tmp, 0777 & ~m) == 0 && copytree(common, tmp) == 0 &&
		    copytree(lang, tmp) == 0) {
			if (rename(tmp, dir) == 0)
				rc = 0;
			else
				error("%s: %s", escape_tty_name(dir),
				    strerror(errno));
		}
		if (rc != 0)
			rmtree(tmp);
	}
	if (rc == 0)
		printf("created %s: a %s project around model.nnl; see "
		    "%s/README.md\n", escape_tty_name(dir), project,
		    escape_tty_name(dir));
	free(tmp);
	free(parent);
	free(common);
	free(lang);
	free(tdir);
	free(dir);
	return rc;
}
