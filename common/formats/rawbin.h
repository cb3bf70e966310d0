/*
 * rawbin: one tensor as webnn-graph's create-manifest and pack-weights
 * read it: NAME.bin, the raw bytes, beside NAME.meta.json (rawbin.c).
 */
#ifndef NNL_RAWBIN_H
#define NNL_RAWBIN_H

#include "npy.h"

/* Does the file name end in ".bin", with a stem before it? */
int rawbin_is(const char *name);
/*
 * Load bin (PATH/NAME.bin) with the type its PATH/NAME.meta.json gives
 * ({"dataType": "float32", "shape": [...]}, optional "byteLength",
 * "byteOffset" and "layout": "row-major"), little-endian as webnn-graph
 * writes it, into a.  0, or -1 after an error naming the file.
 */
int rawbin_load(const char *bin, struct npy *a);

#endif
