/*
 * gemm_f32_14x32_avx512: the SGEMM microkernel for AVX-512F, 14 rows
 * by 32 columns of C: 28 16-float accumulators, two loads of B and a
 * broadcast of A per step use 31 of the 32 zmm registers, and 14
 * broadcasts feed 28 fused multiply-adds.  The tile starts and ends
 * in vectors (rt.h's nnl_gemm_tile), its ragged edge by masked loads
 * and stores.  Variants of 8 and 4 rows take the last rows of a
 * product whose rows are not a multiple of 14, and one of 14 rows by
 * 16 columns the last columns of a product whose columns are 1 to 16
 * past a multiple of 32 (196 = 6 * 32 + 4): it multiplies half the
 * tile's columns.
 */
#include "rt.h"

#ifdef NNL_RT_AVX512
#include <immintrin.h>

/* The kernel for R rows (14, 8 or 4) and V vectors of columns (2, or
 * 1 for the first 16): R and V are constants where it is inlined, and
 * the rows and columns past them vanish. */
static inline __attribute__((always_inline)) NNL_RT_TARGET("avx512f,fma")
void
nnl_gemm_avx512_rows(const int R, const int V, int64_t kc, const float *a,
    int64_t as, const float *b, int64_t bs, float *c, int64_t ldc, int64_t m,
    int64_t n, const struct nnl_gemm_tile *t)
{
	__m512 z = _mm512_setzero_ps();
	__m512 c00 = z, c01 = z, c10 = z, c11 = z, c20 = z, c21 = z, c30 = z,
	    c31 = z, c40 = z, c41 = z, c50 = z, c51 = z, c60 = z, c61 = z,
	    c70 = z, c71 = z, c80 = z, c81 = z, c90 = z, c91 = z, ca0 = z,
	    ca1 = z, cb0 = z, cb1 = z, cc0 = z, cc1 = z, cd0 = z, cd1 = z;
	/* the columns of the tile: all, or lanes below n */
	__mmask16 k0 = n >= 16 ? 0xffff : (__mmask16)((1u << n) - 1);
	__mmask16 k1 = V < 2 ? 0 : n >= 32 ? 0xffff : n > 16 ?
	    (__mmask16)((1u << (n - 16)) - 1) : 0;
	__m512 s0 = z, s1 = z;
	__m512 vlo = _mm512_set1_ps(t->lo), vhi = _mm512_set1_ps(t->hi);
	__m512 three = _mm512_set1_ps(3), six = _mm512_set1_ps(6);
	__m512 sixth = _mm512_set1_ps(1.0f / 6);

	for (int64_t k = 0; k < kc; k++, a += as, b += bs) {
		__m512 b0 = _mm512_loadu_ps(b);
		__m512 b1 = V > 1 ? _mm512_loadu_ps(b + 16) : z;
		__m512 x;

#define NNL_STEP(i, lo, hi) if ((i) < R) do { \
	x = _mm512_set1_ps(a[i]); \
	lo = _mm512_fmadd_ps(x, b0, lo); \
	if (V > 1) \
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
	if (!t->load && t->cb) {
		s0 = _mm512_maskz_loadu_ps(k0, t->cb);
		if (V > 1)
			s1 = _mm512_maskz_loadu_ps(k1, t->cb + 16);
	}
	/* relu, clamp and hardswish as nnl_activate: max and min return
	 * their second operand where either is NaN, so relu gives 0, clamp
	 * keeps it, and hardswish's x t is NaN */
#define NNL_ACT(v) do { \
	if (t->act == NNL_ACT_RELU) \
		v = _mm512_max_ps(v, z); \
	else if (t->act == NNL_ACT_CLAMP) \
		v = _mm512_min_ps(vhi, _mm512_max_ps(vlo, v)); \
	else if (t->act == NNL_ACT_HARDSWISH) \
		v = _mm512_mul_ps(_mm512_mul_ps(v, _mm512_min_ps(six, \
		    _mm512_max_ps(_mm512_add_ps(v, three), z))), sixth); \
} while (0)
#define NNL_ROW(i, lo, hi) if ((i) < R) do { \
	float *p = c + (i) * ldc; \
	__m512 u0 = s0, u1 = s1; \
	if ((i) >= m) \
		break; \
	if (t->load) { \
		u0 = _mm512_maskz_loadu_ps(k0, p); \
		if (V > 1) \
			u1 = _mm512_maskz_loadu_ps(k1, p + 16); \
	} else if (!t->cb && t->rb) \
		u0 = u1 = _mm512_set1_ps(t->rb[i]); \
	u0 = _mm512_add_ps(u0, lo); \
	u1 = _mm512_add_ps(u1, hi); \
	NNL_ACT(u0); \
	NNL_ACT(u1); \
	_mm512_mask_storeu_ps(p, k0, u0); \
	if (V > 1) \
		_mm512_mask_storeu_ps(p + 16, k1, u1); \
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
#undef NNL_ACT
}

NNL_RT NNL_RT_TARGET("avx512f,fma") void
nnl_gemm_f32_14x32_avx512(int64_t kc, const float *a, int64_t as,
    const float *b, int64_t bs, float *c, int64_t ldc, int64_t m, int64_t n,
    const struct nnl_gemm_tile *t)
{
	nnl_gemm_avx512_rows(14, 2, kc, a, as, b, bs, c, ldc, m, n, t);
}

/* Tiles of at most 8 and 4 rows, the ragged last rows of a product:
 * they multiply only the rows they have. */
NNL_RT NNL_RT_TARGET("avx512f,fma") void
nnl_gemm_f32_8x32_avx512(int64_t kc, const float *a, int64_t as,
    const float *b, int64_t bs, float *c, int64_t ldc, int64_t m, int64_t n,
    const struct nnl_gemm_tile *t)
{
	nnl_gemm_avx512_rows(8, 2, kc, a, as, b, bs, c, ldc, m, n, t);
}

NNL_RT NNL_RT_TARGET("avx512f,fma") void
nnl_gemm_f32_4x32_avx512(int64_t kc, const float *a, int64_t as,
    const float *b, int64_t bs, float *c, int64_t ldc, int64_t m, int64_t n,
    const struct nnl_gemm_tile *t)
{
	nnl_gemm_avx512_rows(4, 2, kc, a, as, b, bs, c, ldc, m, n, t);
}

/* The tile of 14 rows by the first 16 of its panel's 32 columns: the
 * last columns of a product, where they are at most 16. */
NNL_RT NNL_RT_TARGET("avx512f,fma") void
nnl_gemm_f32_14x16_avx512(int64_t kc, const float *a, int64_t as,
    const float *b, int64_t bs, float *c, int64_t ldc, int64_t m, int64_t n,
    const struct nnl_gemm_tile *t)
{
	nnl_gemm_avx512_rows(14, 1, kc, a, as, b, bs, c, ldc, m, n, t);
}
#endif
