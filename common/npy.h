/*
 * npy: NumPy .npy files (format versions 1.0, 2.0 and 3.0), read into
 * C order and written in version 1.0 (2.0 when the header needs it).
 */
#ifndef NNL_NPY_H
#define NNL_NPY_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "dtype.h"

enum { NPY_MAXDIM = 32 };

struct npy {
	enum dtype dt;
	int rank;
	int64_t shape[NPY_MAXDIM];
	unsigned char *data;	/* C-order bytes, malloc'd (owned) */
	size_t nbytes;
};

/*
 * Parse a whole .npy image.  Fortran-order arrays are transposed to C
 * order.  On failure returns -1 and writes a one-line reason to err
 * (no program name, no file name: the caller adds those).
 */
int npy_parse(const unsigned char *buf, size_t len, struct npy *out,
    char *err, size_t errlen);
/* Read path; errors are reported as "path: reason".  0 or -1. */
int npy_load(const char *path, struct npy *out);
/* Write an .npy image (C order, little endian) to fp. 0 or -1 (errno). */
int npy_write(FILE *fp, enum dtype dt, int rank, const int64_t *shape,
    const void *data, size_t nbytes);
/* Atomically write path. 0 or -1 after reporting. */
int npy_save(const char *path, enum dtype dt, int rank, const int64_t *shape,
    const void *data, size_t nbytes);
void npy_free(struct npy *a);

#endif
