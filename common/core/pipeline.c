/*
 * pipeline: fork and exec of pass chains.  Each stage inherits standard
 * error, so a failing pass's own message (prefixed with its name) is
 * what the user sees.
 */
#define _DEFAULT_SOURCE
#include "pipeline.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util.h"

static const char *workdir;

/* What a stage with no input writes for the next one, so that only the
 * first stage after the failure speaks. */
static const char upstream[] = "nnl: no input (an earlier stage failed)\n";

int
pipeline_no_input(const char *text, size_t len, const char *name)
{
	struct stat st;
	int passed = len == sizeof upstream - 1 &&
	    !memcmp(text, upstream, len);

	if (strcmp(name, "<stdin>") || (len && !passed))
		return 0;
	/* an empty file or /dev/null is bad input, not a failed stage */
	if (!passed && (fstat(0, &st) != 0 || !S_ISFIFO(st.st_mode)))
		return 0;
	if (!passed && !getenv("NNL_PIPELINE_RUN"))
		fprintf(stderr, "%s: no input (an earlier stage failed)\n",
		    getprogname_nnl());
	if (fstat(1, &st) == 0 && S_ISFIFO(st.st_mode)) {
		fputs(upstream, stdout);
		fflush(stdout);
	}
	return 1;
}

void
pipeline_workdir(const char *dir)
{
	workdir = dir;
}

/* A command line as sh would read it back: words in '...' unless
 * plain, a quote as '\''.  Only shown, never run. */
static void
printcmd(char **argv, FILE *fp)
{
	for (int i = 0; argv[i]; i++) {
		const char *a = argv[i];
		int plain = *a != '\0';

		for (const char *p = a; *p; p++)
			if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNO"
			    "PQRSTUVWXYZ0123456789-_./=,:+@%", *p))
				plain = 0;
		if (i)
			fputc(' ', fp);
		if (plain) {
			fputs(a, fp);
			continue;
		}
		fputc('\'', fp);
		for (const char *p = a; *p; p++)
			if (*p == '\'')
				fputs("'\\''", fp);
			else
				fputc(*p, fp);
		fputc('\'', fp);
	}
}

char *
argpath(const char *path)
{
	if (path[0] == '-' || path[0] == '@')
		return xasprintf("./%s", path);
	return xstrdup(path);
}

char **
words_split(const char *s)
{
	char **v = NULL;
	size_t cap = 0, n = 0;

	GROW(v, cap, 1);
	while (s && *s) {
		size_t k;

		s += strspn(s, " \t\n");
		if (!(k = strcspn(s, " \t\n")))
			break;
		GROW(v, cap, n + 2);
		v[n++] = xstrndup(s, k);
		s += k;
	}
	v[n] = NULL;
	return v;
}

void
words_free(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

const char *
run_status(int rc, char *buf, size_t len)
{
	if (rc >= 256) {
		const char *name = strsignal(rc - 256);

		snprintf(buf, len, "was killed by signal %d (%s)", rc - 256,
		    name ? name : "unknown");
	} else if (rc >= 0) {
		snprintf(buf, len, "exited with status %d", rc);
	} else {
		snprintf(buf, len, "could not be run");
	}
	return buf;
}

char *
find_program(const char *name)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);

	if (n > 0) {
		char *dir, *p;
		struct stat st;

		self[n] = '\0';
		dir = path_dirname(self);
		p = path_join(dir, name);
		free(dir);
		if (stat(p, &st) == 0 && (st.st_mode & S_IXUSR))
			return p;
		free(p);
	}
	return xstrdup(name);
}

static int
status_ok(const char *prog, int st)
{
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return 1;
	if (WIFSIGNALED(st))
		error("%s: killed by signal %d", prog, WTERMSIG(st));
	return 0;
}

/* The child's side of run_io and run_capture: descriptors in place,
 * then the program; 127 when it cannot be run. */
NNL_NORETURN static void
child(char **argv, int in, int out, int err)
{
	int fd[3] = { in, out, err };

	for (int i = 0; i < 3; i++)
		if (fd[i] >= 0 && fd[i] != i && dup2(fd[i], i) < 0)
			_exit(127);
	for (int i = 0; i < 3; i++)
		if (fd[i] > 2)
			close(fd[i]);
	execvp(argv[0], argv);
	fprintf(stderr, "%s: error: %s: %s\n", getprogname_nnl(), argv[0],
	    strerror(errno));
	_exit(127);
}

/* A child's wait status as run_io returns it. */
static int
waitfor(pid_t pid, const char *prog)
{
	int st;

	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR) {
			error("%s: wait: %s", prog, strerror(errno));
			return -1;
		}
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	if (WIFSIGNALED(st))
		return 256 + WTERMSIG(st);
	return -1;
}

int
run_io(char **argv, const char *in, const char *out, int verbose)
{
	int fi = -1, fo = -1, rc;
	pid_t pid;

	if (verbose) {
		printcmd(argv, stderr);
		if (in) {
			char *v[] = { (char *)in, NULL };

			fputs(" < ", stderr);
			printcmd(v, stderr);
		}
		if (out) {
			char *v[] = { (char *)out, NULL };

			fputs(" > ", stderr);
			printcmd(v, stderr);
		}
		fputc('\n', stderr);
	}
	if (in && (fi = open(in, O_RDONLY)) < 0) {
		error("%s: %s", in, strerror(errno));
		return -1;
	}
	if (out && (fo = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0666)) < 0) {
		error("%s: %s", out, strerror(errno));
		if (fi >= 0)
			close(fi);
		return -1;
	}
	fflush(NULL);
	pid = fork();
	if (pid == 0)
		child(argv, fi, fo, -1);
	if (fi >= 0)
		close(fi);
	if (fo >= 0)
		close(fo);
	if (pid < 0) {
		error("fork: %s", strerror(errno));
		return -1;
	}
	rc = waitfor(pid, argv[0]);
	return rc;
}

int
run_capture(char **argv, char *buf, size_t len)
{
	int fd[2], null = open("/dev/null", O_WRONLY), rc;
	size_t n = 0;
	ssize_t r;
	char sink[512];
	pid_t pid;

	if (null < 0 || pipe(fd) != 0) {
		error("%s: %s", null < 0 ? "/dev/null" : "pipe",
		    strerror(errno));
		if (null >= 0)
			close(null);
		return -1;
	}
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		close(fd[0]);
		child(argv, -1, fd[1], null);
	}
	close(fd[1]);
	close(null);
	if (pid < 0) {
		error("fork: %s", strerror(errno));
		close(fd[0]);
		return -1;
	}
	/* all of it, so that the child never blocks on a full pipe */
	for (;;) {
		char *to = n + 1 < len ? buf + n : sink;
		size_t room = n + 1 < len ? len - 1 - n : sizeof sink;

		r = read(fd[0], to, room);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		if (to != sink)
			n += (size_t)r;
	}
	close(fd[0]);
	if (len)
		buf[n] = '\0';
	rc = waitfor(pid, argv[0]);
	return rc;
}

int
run_command(char **argv, int verbose)
{
	int rc = run_io(argv, NULL, NULL, verbose);

	if (rc >= 256)
		error("%s: killed by signal %d", argv[0], rc - 256);
	return rc == 0 ? 0 : -1;
}

/* One stage with the given descriptors as stdin and stdout. */
static pid_t
spawn(char **argv, int in, int out, int *closeme, int nclose)
{
	pid_t pid = fork();

	if (pid != 0)
		return pid;
	if (in >= 0 && in != 0) {
		dup2(in, 0);
		close(in);
	}
	if (out >= 0 && out != 1) {
		dup2(out, 1);
		close(out);
	}
	for (int i = 0; i < nclose; i++)
		if (closeme[i] > 2)
			close(closeme[i]);
	/* the stages after a failed one stay quiet (pipeline_no_input) */
	setenv("NNL_PIPELINE_RUN", "1", 1);
	if (workdir && chdir(workdir) != 0) {
		fprintf(stderr, "%s: error: %s: %s\n", getprogname_nnl(),
		    workdir, strerror(errno));
		_exit(127);
	}
	execvp(argv[0], argv);
	fprintf(stderr, "%s: error: %s: %s\n", getprogname_nnl(), argv[0],
	    strerror(errno));
	_exit(127);
}

/* With a stem (nnc --save-temps): one stage at a time, each graph kept
 * in a file through outfile (nnl(7) FILES), complete or not at all. */
static int
sequential(struct stage *s, int n, const char *infile, const char *outfile,
    const char *stem, int verbose)
{
	char *prev = infile ? xstrdup(infile) : NULL;
	int rc = 0;

	for (int i = 0; i < n && rc == 0; i++) {
		char *next = i == n - 1 ? xstrdup(outfile) :
		    xasprintf("%s.%d.%s.json", stem, i + 1,
		    path_basename(s[i].argv[0]));
		int in = prev ? open(prev, O_RDONLY) : -1;
		struct outfile of;
		pid_t pid;
		int st;

		if (prev && in < 0) {
			error("%s: %s", prev, strerror(errno));
			rc = -1;
		} else if (outfile_open(&of, next) != 0) {
			rc = -1;
		} else {
			if (verbose) {
				printcmd(s[i].argv, stderr);
				fprintf(stderr, "%s%s > %s\n", prev ? " < " : "",
				    prev ? prev : "", next);
			}
			fflush(NULL);
			pid = spawn(s[i].argv, in, fileno(of.fp), NULL, 0);
			if (pid < 0 || waitpid(pid, &st, 0) < 0 ||
			    !status_ok(s[i].argv[0], st)) {
				outfile_abort(&of);
				rc = -1;
			} else if (outfile_commit(&of) != 0) {
				rc = -1;
			}
		}
		if (in >= 0)
			close(in);
		free(prev);
		prev = next;
	}
	free(prev);
	return rc;
}

int
pipeline_run(struct stage *s, int n, const char *infile, const char *outfile,
    const char *tempstem, int verbose)
{
	int (*fds)[2], *all, nall = 0, in, out, rc = 0;
	pid_t *pids;

	if (tempstem)
		return sequential(s, n, infile, outfile, tempstem, verbose);
	if (verbose) {
		for (int i = 0; i < n; i++) {
			if (i)
				fputs(" | ", stderr);
			printcmd(s[i].argv, stderr);
			if (i == 0 && infile)
				fprintf(stderr, " < %s", infile);
		}
		fprintf(stderr, " > %s\n", outfile);
	}
	in = infile ? open(infile, O_RDONLY) : open("/dev/null", O_RDONLY);
	if (in < 0) {
		error("%s: %s", infile, strerror(errno));
		return -1;
	}
	out = open(outfile, O_WRONLY | O_CREAT | O_TRUNC, 0666);
	if (out < 0) {
		error("%s: %s", outfile, strerror(errno));
		close(in);
		return -1;
	}
	fds = xcalloc((size_t)n + 1, sizeof *fds);
	all = xcalloc(2 * (size_t)n + 4, sizeof *all);
	pids = xcalloc((size_t)n + 1, sizeof *pids);
	all[nall++] = in;
	all[nall++] = out;
	for (int i = 0; i + 1 < n; i++) {
		if (pipe(fds[i]) != 0) {
			error("pipe: %s", strerror(errno));
			rc = -1;
			n = i + 1;
			break;
		}
		all[nall++] = fds[i][0];
		all[nall++] = fds[i][1];
	}
	fflush(NULL);
	for (int i = 0; i < n && rc == 0; i++)
		pids[i] = spawn(s[i].argv, i == 0 ? in : fds[i - 1][0],
		    i == n - 1 ? out : fds[i][1], all, nall);
	for (int i = 0; i < nall; i++)
		close(all[i]);
	/* Report the first stage that failed: later ones usually fail
	 * only because their input was cut short. */
	for (int i = 0; i < n; i++) {
		int st;

		if (pids[i] <= 0 || waitpid(pids[i], &st, 0) < 0) {
			rc = -1;
			continue;
		}
		if (!status_ok(s[i].argv[0], st) && rc == 0)
			rc = -1;
	}
	free(fds);
	free(all);
	free(pids);
	return rc;
}
