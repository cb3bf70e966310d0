/*
 * dtype: the WebNN operand data types, then nnl's extended types beyond
 * WebNN (float64, int16, uint16, bfloat16: nnl-graph(5) "Data types
 * beyond WebNN"), with their JSON names ("float32"), .webnn short names
 * ("f32"), .npy descriptors and sizes.  bfloat16 has no .npy descriptor
 * of its own: .npy files carry its bits as "<u2" (as ONNX does).
 */
#ifndef NNL_DTYPE_H
#define NNL_DTYPE_H

#include <stdint.h>

/* X(ENUM, json name, short name, bits, npy descr, is float, is signed) */
#define DTYPES(X) \
	X(FLOAT32, "float32", "f32", 32, "<f4", 1, 1) \
	X(FLOAT16, "float16", "f16", 16, "<f2", 1, 1) \
	X(INT32,   "int32",   "i32", 32, "<i4", 0, 1) \
	X(UINT32,  "uint32",  "u32", 32, "<u4", 0, 0) \
	X(INT64,   "int64",   "i64", 64, "<i8", 0, 1) \
	X(UINT64,  "uint64",  "u64", 64, "<u8", 0, 0) \
	X(INT8,    "int8",    "i8",   8, "|i1", 0, 1) \
	X(UINT8,   "uint8",   "u8",   8, "|u1", 0, 0) \
	X(INT4,    "int4",    "i4",   4, NULL,  0, 1) \
	X(UINT4,   "uint4",   "u4",   4, NULL,  0, 0) \
	X(FLOAT64, "float64", "f64", 64, "<f8", 1, 1) \
	X(INT16,   "int16",   "i16", 16, "<i2", 0, 1) \
	X(UINT16,  "uint16",  "u16", 16, "<u2", 0, 0) \
	X(BFLOAT16, "bfloat16", "bf16", 16, NULL, 1, 1)

/* The first of nnl's extended types: every type from here on is beyond
 * WebNN (no WebNN partition takes it). */
#define DT_FIRST_EXTENDED DT_FLOAT64

enum dtype {
	DT_NONE = -1,
#define X(e, n, s, b, d, f, sg) DT_##e,
	DTYPES(X)
#undef X
	DT_COUNT
};

const char *dtype_name(enum dtype t);	/* "float32" */
const char *dtype_short(enum dtype t);	/* "f32" */
const char *dtype_npy(enum dtype t);	/* "<f4", NULL for 4-bit types and
					 * bfloat16 */
int dtype_extended(enum dtype t);	/* one of nnl's types beyond WebNN */
int dtype_bits(enum dtype t);
int dtype_isfloat(enum dtype t);
int dtype_issigned(enum dtype t);
enum dtype dtype_from_name(const char *s);	/* DT_NONE if unknown */
enum dtype dtype_from_short(const char *s);
enum dtype dtype_from_npy(const char *descr);	/* accepts <f4, =f4, f4 ... */

/* Bytes for n elements (4-bit types pack two per byte, rounding up);
 * UINT64_MAX when that does not fit. */
uint64_t dtype_bytes(enum dtype t, uint64_t n);

#endif
