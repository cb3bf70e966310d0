/*
 * gemm_f32_4x8_scalar: the portable SGEMM microkernel, 4 rows by 8
 * columns of C in plain C.  It runs wherever C does, and is the
 * reference the vector microkernels are tested against (tests/unit/
 * test_gemm.c); compilers that vectorize turn the inner loop into
 * vector multiplies and adds.
 */
#include "rt.h"

NNL_RT void
nnl_gemm_f32_4x8_scalar(int64_t kc, const float *a, int64_t as,
    const float *b, int64_t bs, float *c, int64_t ldc, int64_t m, int64_t n,
    const struct nnl_gemm_tile *t)
{
	float acc[4][8] = { { 0 } };

	for (int64_t k = 0; k < kc; k++, a += as, b += bs)
		for (int i = 0; i < 4; i++)
			for (int j = 0; j < 8; j++)
				acc[i][j] += a[i] * b[j];
	for (int64_t i = 0; i < m; i++)
		for (int64_t j = 0; j < n; j++)
			c[i * ldc + j] = nnl_tile_elem(t, c + i * ldc, i, j,
			    acc[i][j]);
}
