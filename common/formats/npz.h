/*
 * npz: NumPy .npz archives (zip files of .npy members, stored or
 * deflated, zip64 included), read through libzip.
 */
#ifndef NNL_NPZ_H
#define NNL_NPZ_H

#include <stdint.h>

#include "npy.h"

struct npz_member {
	char *name;		/* member name without the ".npy" suffix */
	struct npy arr;
};

/* What the members of an archive may inflate to, all together: 2 GiB
 * unless the caller gives another limit. */
#define NPZ_MAXBYTES ((uint64_t)2 << 30)

/*
 * Read every .npy member of path, in archive order, inflating at most
 * max bytes in all (refused before inflating anything when the members'
 * declared sizes add up to more).  Errors are reported as "path: member:
 * reason"; returns 0 or -1 (nothing to free then).
 */
int npz_read(const char *path, uint64_t max, struct npz_member **members,
    size_t *n);
/* npz_read with max NPZ_MAXBYTES. */
int npz_load(const char *path, struct npz_member **members, size_t *n);
void npz_free(struct npz_member *members, size_t n);

#endif
