/*
 * pipeline: runs passes as separate processes, each one's standard
 * output feeding the next one's standard input, as a shell pipeline
 * does; or one after another through kept files (--save-temps).
 */
#ifndef NNL_PIPELINE_H
#define NNL_PIPELINE_H

#include <stddef.h>

struct stage {
	char **argv;		/* NULL-terminated; argv[0] a program */
};

/*
 * Run stages[0] | stages[1] | ... with the first reading infile (NULL:
 * no standard input) and the last writing outfile.  With tempstem,
 * every intermediate is kept as TEMPSTEM.N.NAME.json instead of a pipe.
 * verbose prints the command line first.  Returns 0 when every stage
 * exits 0; otherwise reports the first stage that failed and returns -1.
 */
int pipeline_run(struct stage *stages, int n, const char *infile,
    const char *outfile, const char *tempstem, int verbose);

/* The directory the stages run in (NULL: the caller's); the files the
 * pipeline itself opens stay relative to the caller's. */
void pipeline_workdir(const char *dir);

/*
 * A stage's standard input (text, len, read from name) when an earlier
 * stage of a shell pipeline or of pipeline_run failed: no bytes from a
 * pipe, or the line the first such stage passes on.  Then the first
 * stage says once "PROG: no input (an earlier stage failed)" (nothing
 * under pipeline_run, whose caller names the failing stage), passes
 * the line on when its standard output is a pipe, and this returns 1:
 * the caller fails without a message of its own.  Otherwise 0.
 */
int pipeline_no_input(const char *text, size_t len, const char *name);

/*
 * Children run from argument vectors, never through a shell: no name
 * is ever read as shell code.  verbose prints the command line first,
 * quoted as sh would read it.
 */

/* Run one command, waiting for it; 0 when it exits 0. */
int run_command(char **argv, int verbose);

/*
 * Run one command with its standard input read from in and its standard
 * output written to out (NULL: nnc's own), waiting for it.  Returns its
 * exit status (0 to 255), 256 + N when signal N killed it, or -1 when
 * it could not be started (reported; a program not found exits 127).
 */
int run_io(char **argv, const char *in, const char *out, int verbose);

/*
 * Run one command with its standard output read into buf (at most
 * len - 1 bytes, NUL-terminated; the rest read and dropped) and its
 * standard error to /dev/null.  Returns as run_io.
 */
int run_capture(char **argv, char *buf, size_t len);

/* run_io's status as words: "exited with status 3", "was killed by
 * signal 11 (Segmentation fault)", "could not be run". */
const char *run_status(int rc, char *buf, size_t len);

/*
 * A path as an argument for another program (cc, ar, dot, qemu, ...):
 * a relative path starting with '-' or '@' becomes "./-x", "./@x", so
 * that it is never read as an option or a response file.  A copy.
 */
char *argpath(const char *path);

/*
 * A command from the environment ($CC, $AR, NNC_WASM_CC), split at
 * blanks (space, tab, newline) with no shell: "ccache gcc" is two
 * words; no quoting, so a word holds no blank.  NULL-terminated, every
 * word a copy; words_free frees it.
 */
char **words_split(const char *s);
void words_free(char **v);

/*
 * The path of an nnl program: beside the running executable when it is
 * there (a build tree, or an install), else the name for PATH search.
 */
char *find_program(const char *name);

#endif
