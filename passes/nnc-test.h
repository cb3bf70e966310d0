/*
 * nnc-test: nnc test's arrays (nnc-test.c): the inputs the compiled
 * model is run on and the outputs expected of it, each given by name
 * (NAME=FILE.npy), as the members of an .npz, or as the one .npy of a
 * model with one input or output; checked against the graph's types
 * before the C is built, and compared output by output after the run.
 */
#ifndef NNC_TEST_H
#define NNC_TEST_H

#include <stddef.h>

#include "graph.h"

struct testio;

struct testio *testio_new(void);
void testio_free(struct testio *t);
/* One --input (expected 0) or --expected (1) argument, as given: 0,
 * or -1 when it is empty, or NAME= or =FILE. */
int testio_add(struct testio *t, int expected, const char *arg);
/* How many --input (expected 0) or --expected (1) arguments t holds. */
int testio_count(const struct testio *t, int expected);
/* The files the arguments name, NULL-terminated, owned by t: nnc
 * writes over none of them. */
const char *const *testio_files(const struct testio *t);
/*
 * Read every array and bind it to an input or output of g (the graph
 * nnl-emit-c compiles), whose types and shapes it must have.  0, or -1
 * after an error for each array or input that does not fit, naming the
 * input or output and the file.
 */
int testio_bind(struct testio *t, struct graph *g);
/* The inputs packed in the graph's order, as the program's main reads
 * them, into path: 0, or -1 after an error. */
int testio_write(const struct testio *t, const char *path);
/*
 * The program's output (n bytes, every output packed in the graph's
 * order) against the expected arrays within tol, output by output: the
 * report on standard output.  0 when all are within tol, 1 when any is
 * not.
 */
int testio_compare(const struct testio *t, const unsigned char *got,
    size_t n, double tol);

#endif
