/*
 * checked: size arithmetic that cannot wrap, and the one limit on the
 * size of any tensor nnl plans, folds, allocates or emits.  Every
 * element count and byte size computed from a model's numbers goes
 * through these functions, so a hostile shape is an error naming the
 * operand, never a small number that was meant to be a huge one.
 *
 * The limit (--max-tensor-bytes, NNL_MAX_TENSOR_BYTES) bounds each
 * operand, constant, kernel workspace and memory arena.  Its default,
 * 2^31 - 1 bytes, is PTRDIFF_MAX of a 32-bit target (Cortex-M, wasm32):
 * the largest object generated C can declare and index there.
 */
#ifndef NNL_CHECKED_H
#define NNL_CHECKED_H

#include <stdint.h>

#include "graph.h"

/* Default and largest limits, in bytes; dimensions are at most 2^32-1
 * (WebNN's unsigned long), as the readers accept them. */
#define CHECKED_DEFAULT_LIMIT UINT64_C(2147483647)
#define CHECKED_MAX_LIMIT (UINT64_C(1) << 62)
#define CHECKED_MAXDIM INT64_C(4294967295)

/* *r = a op b: 0, or -1 (and *r unspecified) when it does not fit. */
int checked_add_u64(uint64_t a, uint64_t b, uint64_t *r);
int checked_mul_u64(uint64_t a, uint64_t b, uint64_t *r);
int checked_add_i64(int64_t a, int64_t b, int64_t *r);
int checked_sub_i64(int64_t a, int64_t b, int64_t *r);
int checked_mul_i64(int64_t a, int64_t b, int64_t *r);

/*
 * A number read from a model (a JSON number, an NNL or ONNX float, a
 * .npy header) as an integer: *r = v, 0, when v is finite, whole and
 * from lo to hi; else -1 (NaN, an infinity, a fraction, out of range),
 * and the caller names the operand.  No double that does not fit is
 * ever cast, which C leaves undefined (UBSan's float-cast-overflow).
 */
int checked_double_i64(double v, int64_t lo, int64_t hi, int64_t *r);
/*
 * v truncated and clamped to [lo, hi], NaN as lo: only for a number
 * that is cosmetic (a coordinate or a label in a picture), never for
 * one that sizes, indexes or computes anything.
 */
int64_t checked_clamp_i64(double v, int64_t lo, int64_t hi);

/*
 * "4096", "512K", "2G", "1TB" (K, M, G, T: powers of 1024; a trailing
 * B is allowed; case does not matter) into *v.  0, or -1 when s is not
 * such a size or it is 0 or above CHECKED_MAX_LIMIT.
 */
int checked_parse_size(const char *s, uint64_t *v);
/* The getopt_long value of --max-tensor-bytes, in every program. */
enum { CHECKED_OPTION = 0x100 };
/*
 * Set the limit from an option's argument, or (arg NULL) from the
 * environment variable NNL_MAX_TENSOR_BYTES when it is set.  0, or -1
 * after reporting a bad value (the caller exits 2).
 */
int checked_setup(const char *arg);
/* The limit in bytes (the environment's or the default when no
 * checked_setup ran). */
uint64_t checked_limit(void);
void checked_set_limit(uint64_t bytes);

/* Element count and byte size of t (rank known): 0, or -1 when a
 * dimension is negative or either number does not fit 64 bits. */
int checked_size(const struct tdesc *t, uint64_t *numel, uint64_t *bytes);
/*
 * Is t within the limits: every dimension from 0 to CHECKED_MAXDIM,
 * its byte size at most the limit, and for an empty tensor the bytes
 * of its nonzero dimensions at most 2^62 (so that every stride and
 * partial product of its dimensions fits an int64 too)?  NULL if so,
 * else a malloc'd reason naming the type, such as
 * "float32[16, 536903681, 536838145] is more than 2^64 bytes, above
 * the limit of 2147483647 bytes (--max-tensor-bytes)".
 */
char *checked_tensor(const struct tdesc *t);
/* The same for a number of bytes (a workspace, an arena): NULL, or a
 * malloc'd "WHAT N bytes, above the limit of L bytes (...)". */
char *checked_bytes(uint64_t n, const char *what);
/*
 * Every type the graph states (inputs, constants, node "types")
 * against the limits; each one over is reported naming the operand.
 * Returns the number of errors.
 */
int checked_graph(struct graph *g);

#endif
