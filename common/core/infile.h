/*
 * infile: reading files that an input names (a graph's weights file and
 * manifest, ONNX external data, .npy files).  Only regular files are
 * read, so a name like /dev/zero or a FIFO cannot make a program read
 * forever or hang, and every read is bounded by a size checked against
 * the file's real size first.
 */
#ifndef NNL_INFILE_H
#define NNL_INFILE_H

#include <stddef.h>
#include <stdint.h>

/*
 * Open path for reading if it is a regular file (opened O_NONBLOCK, so
 * that opening a FIFO cannot wait for a writer).  Returns a descriptor
 * and the file's size, or -1 with *why set to the reason ("No such file
 * or directory", "not a regular file (a FIFO)", ...).
 */
int infile_open(const char *path, uint64_t *size, const char **why);
/* Read exactly n bytes at offset off.  0, or -1 with *why set (a read
 * error, or the file shrank under us). */
int infile_pread(int fd, void *buf, size_t n, uint64_t off,
    const char **why);
/*
 * A whole regular file of at most max bytes, NUL-terminated, malloc'd;
 * *len excludes the NUL.  NULL with *why set otherwise.
 */
char *infile_read(const char *path, uint64_t max, size_t *len,
    const char **why);

/*
 * The name under which this program opened, with infile_open, the file
 * that path names now (links followed), or NULL: what a program that
 * must not write over its inputs checks each output against.
 */
const char *infile_which(const char *path);

#endif
