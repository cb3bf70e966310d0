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

/* Run one command, waiting for it; 0 when it exits 0. */
int run_command(char **argv, int verbose);

/*
 * The path of an nnl program: beside the running executable when it is
 * there (a build tree, or an install), else the name for PATH search.
 */
char *find_program(const char *name);

#endif
