/*
 * dimsfile: symbolic-dimension overrides read from a JSON file
 * (dimsfile.c), for nnl-onnx-import's and nnc's --dims, and the form
 * of their --dim.
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
/*
 * Whether arg is one override as --dim gives it: NAME=N, a NAME that
 * is not empty and N a positive integer of at most 4294967295, as a
 * file's entries are.  1 or 0; the caller reports.
 */
int dimsfile_arg(const char *arg);

#endif
