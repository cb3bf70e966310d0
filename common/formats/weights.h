/*
 * weights: the binary weights file and its manifest, the pair that
 * graph consts of kind "weights" refer to.
 *
 * .weights file:  "WGWT"  u32le version (1)  tensor bytes...
 *   every tensor little-endian, row-major, at the absolute byteOffset
 *   its manifest entry gives (>= 8); nnl aligns offsets (default 64) so
 *   generated code can use the bytes in place.
 * .manifest.json: {"format": "wg-weights-manifest", "version": 1,
 *   "endianness": "little", "tensors": {NAME: {"dataType", "shape",
 *   "byteOffset", "byteLength", "layout": "row-major",
 *   "checksum": "xxh3-64:<16 hex digits>"}}}
 * The checksum is nnl's extension: XXH3-64 (seed 0) of the tensor bytes.
 */
#ifndef NNL_WEIGHTS_H
#define NNL_WEIGHTS_H

#include <stddef.h>
#include <stdint.h>

#include "dtype.h"
#include "strtab.h"
#include "util.h"

enum { WEIGHTS_HEADER = 8, WEIGHTS_VERSION = 1, WEIGHTS_ALIGN = 64 };
/* The largest manifest read: 64 MiB, some 300,000 tensors. */
#define MANIFEST_MAX ((uint64_t)64 << 20)

struct wtensor {
	char *name;
	enum dtype dt;
	int rank;
	int64_t *shape;
	uint64_t offset, length;	/* absolute byte offset in the file */
	int has_checksum;
	uint64_t checksum;		/* XXH3-64 of the bytes */
};

struct manifest {
	struct wtensor *t;		/* in manifest order */
	size_t n, cap;
	struct strtab idx;		/* name -> index + 1 */
};

/*
 * Load and check a manifest: format, version, endianness, every entry's
 * fields, byteLength == elements * size.  Errors name the file and the
 * tensor.  0 or -1.
 */
int manifest_load(const char *path, struct manifest *m);
/* Canonical JSON, atomically written. 0 or -1. */
int manifest_save(const struct manifest *m, const char *path);
struct wtensor *manifest_find(const struct manifest *m, const char *name);
void manifest_free(struct manifest *m);

struct weights {
	char *path, *manifest_path;
	unsigned char *data;		/* the file up to its last tensor */
	size_t size;			/* bytes in data */
	struct manifest m;
};

/*
 * Open a weights file with its manifest: magic and version checked,
 * every tensor inside the file, no two overlapping.  Errors name the
 * file and tensor.  0 or -1.  Both must be regular files; the manifest
 * is read up to MANIFEST_MAX bytes, and of the weights file only the
 * header and the bytes the manifest's tensors cover, after checking
 * them against the file's real size (so size is at most that size).
 */
int weights_open(struct weights *w, const char *path, const char *manifest);
/* The same checks without reading the tensors' bytes (data is NULL,
 * size the file's size): what validating a graph needs. */
int weights_check(struct weights *w, const char *path,
    const char *manifest);
/* The tensor's bytes (t->length of them). */
const unsigned char *weights_bytes(const struct weights *w,
    const struct wtensor *t);
/*
 * Recompute every checksum; each mismatch is reported naming the tensor.
 * Returns the number of bad tensors (tensors without a checksum count as
 * unchecked, reported with a warning when warn_unchecked).
 */
int weights_verify(const struct weights *w, int warn_unchecked);
void weights_close(struct weights *w);

/* Writing: tensors appended at aligned offsets, manifest at commit. */
struct wwriter {
	struct outfile out;
	struct manifest m;
	uint64_t off;
	unsigned align;
	char *manifest_path;
};

int wwriter_open(struct wwriter *ww, const char *path,
    const char *manifest_path, unsigned align);
/* Append one tensor (checksum computed here).  Duplicate names are an
 * error.  0 or -1. */
int wwriter_add(struct wwriter *ww, const char *name, enum dtype dt,
    int rank, const int64_t *shape, const void *data, uint64_t len);
/* Commit weights then manifest; on failure neither is left. 0 or -1. */
int wwriter_commit(struct wwriter *ww);
void wwriter_abort(struct wwriter *ww);

uint64_t checksum_xxh3(const void *data, size_t len);

#endif
