/*
 * npz: NumPy .npz archives (zip files of .npy members, stored or
 * deflated, zip64 included), read through libzip.
 */
#ifndef NNL_NPZ_H
#define NNL_NPZ_H

#include "npy.h"

struct npz_member {
	char *name;		/* member name without the ".npy" suffix */
	struct npy arr;
};

/*
 * Read every .npy member of path, in archive order.  Errors are reported
 * as "path: member: reason"; returns 0 or -1 (nothing to free then).
 */
int npz_load(const char *path, struct npz_member **members, size_t *n);
void npz_free(struct npz_member *members, size_t n);

#endif
