/*
 * dimsfile: symbolic-dimension overrides read from a JSON file
 * (dimsfile.c), for nnl-onnx-import --dims.
 */
#ifndef NNL_DIMSFILE_H
#define NNL_DIMSFILE_H

/*
 * Append to *dims (n entries, realloc'd) one malloc'd "NAME=N" string
 * per override in path: ONNX Runtime's session option form
 * {"freeDimensionOverrides": {"batch": 1, ...}}, or a flat object
 * {"batch": 1, ...}.  Each N must be a positive integer.  0, or -1
 * after an error naming the file and the entry.
 */
int dimsfile_read(const char *path, char ***dims, int *n);

#endif
