/*
 * gemm_f32_14x32_avx512: the SGEMM microkernel for AVX-512F, 14 rows
 * by 32 columns of C: 28 16-float accumulators, two loads of B and a
 * broadcast of A per step use 31 of the 32 zmm registers, and 14
 * broadcasts feed 28 fused multiply-adds.  Edge tiles go through a
 * buffer on the stack.
 */
#include "rt.h"

#ifdef NNL_RT_AVX512
#include <immintrin.h>

NNL_RT NNL_RT_TARGET("avx512f,fma") void
nnl_gemm_f32_14x32_avx512(int64_t kc, const float *a, int64_t as,
    const float *b, int64_t bs, float *c, int64_t ldc, int64_t m, int64_t n)
{
	__m512 z = _mm512_setzero_ps();
	__m512 c00 = z, c01 = z, c10 = z, c11 = z, c20 = z, c21 = z, c30 = z,
	    c31 = z, c40 = z, c41 = z, c50 = z, c51 = z, c60 = z, c61 = z,
	    c70 = z, c71 = z, c80 = z, c81 = z, c90 = z, c91 = z, ca0 = z,
	    ca1 = z, cb0 = z, cb1 = z, cc0 = z, cc1 = z, cd0 = z, cd1 = z;
	float t[14][32];
	float *r = m == 14 && n == 32 ? c : &t[0][0];
	int64_t ld = r == c ? ldc : 32;

	for (int64_t k = 0; k < kc; k++, a += as, b += bs) {
		__m512 b0 = _mm512_loadu_ps(b), b1 = _mm512_loadu_ps(b + 16);
		__m512 x;

#define NNL_STEP(i, lo, hi) do { \
	x = _mm512_set1_ps(a[i]); \
	lo = _mm512_fmadd_ps(x, b0, lo); \
	hi = _mm512_fmadd_ps(x, b1, hi); \
} while (0)
		NNL_STEP(0, c00, c01);
		NNL_STEP(1, c10, c11);
		NNL_STEP(2, c20, c21);
		NNL_STEP(3, c30, c31);
		NNL_STEP(4, c40, c41);
		NNL_STEP(5, c50, c51);
		NNL_STEP(6, c60, c61);
		NNL_STEP(7, c70, c71);
		NNL_STEP(8, c80, c81);
		NNL_STEP(9, c90, c91);
		NNL_STEP(10, ca0, ca1);
		NNL_STEP(11, cb0, cb1);
		NNL_STEP(12, cc0, cc1);
		NNL_STEP(13, cd0, cd1);
#undef NNL_STEP
	}
	if (r != c)
		memset(t, 0, sizeof t);
#define NNL_ROW(i, lo, hi) do { \
	float *p = r + (i) * ld; \
	_mm512_storeu_ps(p, _mm512_add_ps(_mm512_loadu_ps(p), lo)); \
	_mm512_storeu_ps(p + 16, _mm512_add_ps(_mm512_loadu_ps(p + 16), hi)); \
} while (0)
	NNL_ROW(0, c00, c01);
	NNL_ROW(1, c10, c11);
	NNL_ROW(2, c20, c21);
	NNL_ROW(3, c30, c31);
	NNL_ROW(4, c40, c41);
	NNL_ROW(5, c50, c51);
	NNL_ROW(6, c60, c61);
	NNL_ROW(7, c70, c71);
	NNL_ROW(8, c80, c81);
	NNL_ROW(9, c90, c91);
	NNL_ROW(10, ca0, ca1);
	NNL_ROW(11, cb0, cb1);
	NNL_ROW(12, cc0, cc1);
	NNL_ROW(13, cd0, cd1);
#undef NNL_ROW
	if (r != c)
		for (int64_t i = 0; i < m; i++)
			for (int64_t j = 0; j < n; j++)
				c[i * ldc + j] += t[i][j];
}
#endif
