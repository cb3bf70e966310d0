/*
 * gemm_f32_6x16_avx2: the SGEMM microkernel for AVX2 with FMA3, 6 rows
 * by 16 columns of C: twelve 8-float accumulators, two loads of B and
 * one broadcast of A per step use 15 of the 16 ymm registers.  The
 * tile starts and ends in vectors (rt.h's nnl_gemm_tile), its ragged
 * edge by masked loads and stores.  A variant of 6 rows by 8 columns
 * takes the last columns of a product whose columns are 1 to 8 past a
 * multiple of 16 (196 = 12 * 16 + 4): it multiplies half the tile's
 * columns.
 */
#include "rt.h"

#ifdef NNL_RT_AVX2
#include <immintrin.h>

/* The kernel for V vectors of columns (2, or 1 for the first 8): V is
 * a constant where it is inlined, and the columns past it vanish. */
static inline __attribute__((always_inline)) NNL_RT_TARGET("avx2,fma")
void
nnl_gemm_avx2_cols(const int V, int64_t kc, const float *a, int64_t as,
    const float *b, int64_t bs, float *c, int64_t ldc, int64_t m, int64_t n,
    const struct nnl_gemm_tile *t)
{
	__m256 c00 = _mm256_setzero_ps(), c01 = c00, c10 = c00, c11 = c00,
	    c20 = c00, c21 = c00, c30 = c00, c31 = c00, c40 = c00, c41 = c00,
	    c50 = c00, c51 = c00;
	__m256i idx = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
	/* the columns of the tile: all, or lanes below n */
	__m256i m0 = _mm256_cmpgt_epi32(_mm256_set1_epi32((int)n), idx);
	__m256i m1 = _mm256_cmpgt_epi32(_mm256_set1_epi32((int)n - 8), idx);
	__m256 z = c00, s0 = z, s1 = z;
	__m256 vlo = _mm256_set1_ps(t->lo), vhi = _mm256_set1_ps(t->hi);
	int full = n == 8 * V;

	for (int64_t k = 0; k < kc; k++, a += as, b += bs) {
		__m256 b0 = _mm256_loadu_ps(b);
		__m256 b1 = V > 1 ? _mm256_loadu_ps(b + 8) : z;
		__m256 x;

#define NNL_STEP(i, lo, hi) do { \
	x = _mm256_broadcast_ss(a + (i)); \
	lo = _mm256_fmadd_ps(x, b0, lo); \
	if (V > 1) \
		hi = _mm256_fmadd_ps(x, b1, hi); \
} while (0)
		NNL_STEP(0, c00, c01);
		NNL_STEP(1, c10, c11);
		NNL_STEP(2, c20, c21);
		NNL_STEP(3, c30, c31);
		NNL_STEP(4, c40, c41);
		NNL_STEP(5, c50, c51);
#undef NNL_STEP
	}
	if (!t->load && t->cb) {
		s0 = _mm256_maskload_ps(t->cb, m0);
		if (V > 1)
			s1 = _mm256_maskload_ps(t->cb + 8, m1);
	}
	/* relu, clamp and hardswish as nnl_activate: max and min return
	 * their second operand where either is NaN, so relu gives 0, clamp
	 * keeps it, and hardswish's x t is NaN */
#define NNL_ACT(v) do { \
	if (t->act == NNL_ACT_RELU) \
		v = _mm256_max_ps(v, z); \
	else if (t->act == NNL_ACT_CLAMP) \
		v = _mm256_min_ps(vhi, _mm256_max_ps(vlo, v)); \
	else if (t->act == NNL_ACT_HARDSWISH) \
		v = _mm256_mul_ps(_mm256_mul_ps(v, _mm256_min_ps( \
		    _mm256_set1_ps(6), _mm256_max_ps(_mm256_add_ps(v, \
		    _mm256_set1_ps(3)), z))), _mm256_set1_ps(1.0f / 6)); \
} while (0)
#define NNL_ROW(i, lo, hi) do { \
	float *p = c + (i) * ldc; \
	__m256 u0 = s0, u1 = s1; \
	if ((i) >= m) \
		break; \
	if (t->load) { \
		u0 = full ? _mm256_loadu_ps(p) : _mm256_maskload_ps(p, m0); \
		if (V > 1) \
			u1 = full ? _mm256_loadu_ps(p + 8) : \
			    _mm256_maskload_ps(p + 8, m1); \
	} else if (!t->cb && t->rb) \
		u0 = u1 = _mm256_set1_ps(t->rb[i]); \
	u0 = _mm256_add_ps(u0, lo); \
	u1 = _mm256_add_ps(u1, hi); \
	NNL_ACT(u0); \
	NNL_ACT(u1); \
	if (full) { \
		_mm256_storeu_ps(p, u0); \
		if (V > 1) \
			_mm256_storeu_ps(p + 8, u1); \
	} else { \
		_mm256_maskstore_ps(p, m0, u0); \
		if (V > 1) \
			_mm256_maskstore_ps(p + 8, m1, u1); \
	} \
} while (0)
	NNL_ROW(0, c00, c01);
	NNL_ROW(1, c10, c11);
	NNL_ROW(2, c20, c21);
	NNL_ROW(3, c30, c31);
	NNL_ROW(4, c40, c41);
	NNL_ROW(5, c50, c51);
#undef NNL_ROW
#undef NNL_ACT
}

NNL_RT NNL_RT_TARGET("avx2,fma") void
nnl_gemm_f32_6x16_avx2(int64_t kc, const float *a, int64_t as,
    const float *b, int64_t bs, float *c, int64_t ldc, int64_t m, int64_t n,
    const struct nnl_gemm_tile *t)
{
	nnl_gemm_avx2_cols(2, kc, a, as, b, bs, c, ldc, m, n, t);
}

/* The tile of 6 rows by the first 8 of its panel's 16 columns: the
 * last columns of a product, where they are at most 8. */
NNL_RT NNL_RT_TARGET("avx2,fma") void
nnl_gemm_f32_6x8_avx2(int64_t kc, const float *a, int64_t as,
    const float *b, int64_t bs, float *c, int64_t ldc, int64_t m, int64_t n,
    const struct nnl_gemm_tile *t)
{
	nnl_gemm_avx2_cols(1, kc, a, as, b, bs, c, ldc, m, n, t);
}
#endif
