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
	int from64;	/* float64 in the file, cast (npy_allow_f64) */
	uint64_t ninf;	/* of those, beyond float32's range: infinite */
};

/*
 * Where an image's bytes come from: size, the real number of bytes the
 * source holds (checked before any allocation sized from the header),
 * and read, which reads exactly the next n of them (0), or writes a
 * reason to err (-1).
 */
struct npy_src {
	int (*read)(struct npy_src *s, void *buf, size_t n, char *err,
	    size_t errlen);
	uint64_t size;
};
/* Read one image from src: as npy_parse. */
int npy_read(struct npy_src *src, struct npy *out, char *err,
    size_t errlen);
/*
 * Parse a whole .npy image.  Fortran-order arrays are transposed to C
 * order.  On failure returns -1 and writes a one-line reason to err
 * (no program name, no file name: the caller adds those).
 */
int npy_parse(const unsigned char *buf, size_t len, struct npy *out,
    char *err, size_t errlen);
/* Read path, a regular file; errors are reported as "path: reason".
 * 0 or -1. */
int npy_load(const char *path, struct npy *out);
/* Write an .npy image (C order, little endian) to fp. 0 or -1 (errno). */
int npy_write(FILE *fp, enum dtype dt, int rank, const int64_t *shape,
    const void *data, size_t nbytes);
/* Atomically write path. 0 or -1 after reporting. */
int npy_save(const char *path, enum dtype dt, int rank, const int64_t *shape,
    const void *data, size_t nbytes);
void npy_free(struct npy *a);
/*
 * Whether reads accept float64 ('<f8') data, read as float32 with
 * from64 set (upstream nnc's cast of weights; off: refused).
 */
void npy_allow_f64(int on);
/*
 * Whether reads accept NumPy's bool ('|b1'), read as uint8 (0 or 1):
 * the type ONNX's bool tensors have in a graph (off: refused).
 */
void npy_allow_bool(int on);

#endif
