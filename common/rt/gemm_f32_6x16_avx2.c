/*
 * gemm_f32_6x16_avx2: the SGEMM microkernel for AVX2 with FMA3, 6 rows
 * by 16 columns of C: twelve 8-float accumulators, two loads of B and
 * one broadcast of A per step use 15 of the 16 ymm registers.
 */
#include "rt.h"

#ifdef NNL_RT_AVX2
#include <immintrin.h>

NNL_RT NNL_RT_TARGET("avx2,fma") void
nnl_gemm_f32_6x16_avx2(int64_t kc, const float *a, int64_t as,
    const float *b, int64_t bs, float *c, int64_t ldc, int64_t m, int64_t n)
{
	__m256 c00 = _mm256_setzero_ps(), c01 = c00, c10 = c00, c11 = c00,
	    c20 = c00, c21 = c00, c30 = c00, c31 = c00, c40 = c00, c41 = c00,
	    c50 = c00, c51 = c00;
	float t[6][16];
	float *r = m == 6 && n == 16 ? c : &t[0][0];
	int64_t ld = r == c ? ldc : 16;

	for (int64_t k = 0; k < kc; k++, a += as, b += bs) {
		__m256 b0 = _mm256_loadu_ps(b), b1 = _mm256_loadu_ps(b + 8);
		__m256 x;

		x = _mm256_broadcast_ss(a);
		c00 = _mm256_fmadd_ps(x, b0, c00);
		c01 = _mm256_fmadd_ps(x, b1, c01);
		x = _mm256_broadcast_ss(a + 1);
		c10 = _mm256_fmadd_ps(x, b0, c10);
		c11 = _mm256_fmadd_ps(x, b1, c11);
		x = _mm256_broadcast_ss(a + 2);
		c20 = _mm256_fmadd_ps(x, b0, c20);
		c21 = _mm256_fmadd_ps(x, b1, c21);
		x = _mm256_broadcast_ss(a + 3);
		c30 = _mm256_fmadd_ps(x, b0, c30);
		c31 = _mm256_fmadd_ps(x, b1, c31);
		x = _mm256_broadcast_ss(a + 4);
		c40 = _mm256_fmadd_ps(x, b0, c40);
		c41 = _mm256_fmadd_ps(x, b1, c41);
		x = _mm256_broadcast_ss(a + 5);
		c50 = _mm256_fmadd_ps(x, b0, c50);
		c51 = _mm256_fmadd_ps(x, b1, c51);
	}
	if (r != c)
		memset(t, 0, sizeof t);
#define NNL_ROW(i, lo, hi) do { \
	float *p = r + (i) * ld; \
	_mm256_storeu_ps(p, _mm256_add_ps(_mm256_loadu_ps(p), lo)); \
	_mm256_storeu_ps(p + 8, _mm256_add_ps(_mm256_loadu_ps(p + 8), hi)); \
} while (0)
	NNL_ROW(0, c00, c01);
	NNL_ROW(1, c10, c11);
	NNL_ROW(2, c20, c21);
	NNL_ROW(3, c30, c31);
	NNL_ROW(4, c40, c41);
	NNL_ROW(5, c50, c51);
#undef NNL_ROW
	if (r != c)
		for (int64_t i = 0; i < m; i++)
			for (int64_t j = 0; j < n; j++)
				c[i * ldc + j] += t[i][j];
}
#endif
