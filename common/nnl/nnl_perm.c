/*
 * nnl_perm: permutations between NNL's HWC order of a flattened
 * value's features and ONNX's CHW order (nnl_perm.h).
 */
#include <string.h>

#include "nnl_perm.h"
#include "util.h"

int64_t *
nnl_perm_flatten(int64_t C, int64_t H, int64_t W)
{
	int64_t *p;

	if (C <= 1 || H * W <= 1)
		return NULL;
	p = xmalloc((size_t)(C * H * W) * sizeof *p);
	/* NNL's position (h * W + w) * C + c is ONNX's (c * H + h) * W + w */
	for (int64_t h = 0; h < H; h++)
		for (int64_t w = 0; w < W; w++)
			for (int64_t c = 0; c < C; c++)
				p[(h * W + w) * C + c] = (c * H + h) * W + w;
	return p;
}

int64_t *
nnl_perm_concat(int n, const int64_t *const *perm, const int64_t *len)
{
	int64_t K = 0, at = 0, *p;
	int any = 0;

	for (int i = 0; i < n; i++) {
		K += len[i];
		any |= perm[i] != NULL;
	}
	if (!any)
		return NULL;
	p = xmalloc((size_t)(K ? K : 1) * sizeof *p);
	for (int i = 0; i < n; i++) {
		for (int64_t r = 0; r < len[i]; r++)
			p[at + r] = at + (perm[i] ? perm[i][r] : r);
		at += len[i];
	}
	return p;
}

int
nnl_perm_same(const int64_t *a, const int64_t *b, int64_t K)
{
	for (int64_t r = 0; r < K; r++)
		if ((a ? a[r] : r) != (b ? b[r] : r))
			return 0;
	return 1;
}

float *
nnl_perm_rows(const int64_t *perm, const float *d, int64_t K, int64_t U)
{
	float *t = xmalloc((size_t)(K * U > 0 ? K * U : 1) * sizeof *t);

	for (int64_t r = 0; r < K; r++)
		memcpy(t + r * U, d + (perm ? perm[r] : r) * U,
		    (size_t)U * sizeof *t);
	return t;
}
