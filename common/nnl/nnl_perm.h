/*
 * nnl_perm: the order of a [K] value's features in NNL against ONNX's.
 * A Flatten of NNL's [H, W, C] lists the features in HWC order where
 * ONNX's Flatten of [C, H, W] lists them in CHW order; a permutation
 * perm says that NNL's feature r is ONNX's feature perm[r], and NULL
 * that the two orders agree.  The .nnl writer and the ONNX weights of
 * an NNL model carry it from the Flatten to the layers whose
 * parameters depend on it (nnl_write.c, nnl_onnx.c).
 */
#ifndef NNL_NNL_PERM_H
#define NNL_NNL_PERM_H

#include <stdint.h>

/* The order of a Flatten of [H, W, C] (ONNX's [C, H, W]); NULL when it
 * is ONNX's (C or H * W is 1).  Free it with free(). */
int64_t *nnl_perm_flatten(int64_t C, int64_t H, int64_t W);

/* The order of n values of len[i] features in order perm[i] each,
 * concatenated; NULL when every perm[i] is. */
int64_t *nnl_perm_concat(int n, const int64_t *const *perm,
    const int64_t *len);

/* Do orders a and b of K features agree? */
int nnl_perm_same(const int64_t *a, const int64_t *b, int64_t K);

/* K rows of U floats from ONNX's order to NNL's: row r of the result
 * is row perm[r] of d.  perm NULL: a copy. */
float *nnl_perm_rows(const int64_t *perm, const float *d, int64_t K,
    int64_t U);

#endif
