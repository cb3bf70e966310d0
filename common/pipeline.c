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
		fprintf(fp, i ? " %s%s%s" : "%s%s%s", plain ? "" : "'", a,
		    plain ? "" : "'");
	}
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

int
run_command(char **argv, int verbose)
{
	pid_t pid;
	int st;

	if (verbose) {
		printcmd(argv, stderr);
		fputc('\n', stderr);
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		error("fork: %s", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		execvp(argv[0], argv);
		fprintf(stderr, "%s: error: %s: %s\n", getprogname_nnl(),
		    argv[0], strerror(errno));
		_exit(127);
	}
	if (waitpid(pid, &st, 0) < 0)
		return -1;
	return status_ok(argv[0], st) ? 0 : -1;
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
		int out = open(next, O_WRONLY | O_CREAT | O_TRUNC, 0666);
		pid_t pid;
		int st;

		if ((prev && in < 0) || out < 0) {
			error("%s: %s", out < 0 ? next : prev, strerror(errno));
			rc = -1;
		} else {
			if (verbose) {
				printcmd(s[i].argv, stderr);
				fprintf(stderr, "%s%s > %s\n", prev ? " < " : "",
				    prev ? prev : "", next);
			}
			fflush(NULL);
			pid = spawn(s[i].argv, in, out, NULL, 0);
			if (pid < 0 || waitpid(pid, &st, 0) < 0 ||
			    !status_ok(s[i].argv[0], st))
				rc = -1;
		}
		if (in >= 0)
			close(in);
		if (out >= 0)
			close(out);
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
