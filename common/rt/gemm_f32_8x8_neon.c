/*
 * gemm_f32_8x8_neon: the SGEMM microkernel for AArch64 NEON, 8 rows by
 * 8 columns of C: sixteen 4-float accumulators, two loads of B and two
 * of A per step; each lane of A feeds a fused multiply-add by lane.
 */
#include "rt.h"

#ifdef NNL_RT_NEON
#include <arm_neon.h>

NNL_RT void
nnl_gemm_f32_8x8_neon(int64_t kc, const float *a, int64_t as,
    const float *b, int64_t bs, float *c, int64_t ldc, int64_t m, int64_t n)
{
	float32x4_t z = vdupq_n_f32(0);
	float32x4_t c00 = z, c01 = z, c10 = z, c11 = z, c20 = z, c21 = z,
	    c30 = z, c31 = z, c40 = z, c41 = z, c50 = z, c51 = z, c60 = z,
	    c61 = z, c70 = z, c71 = z;
	float t[8][8];
	float *r = m == 8 && n == 8 ? c : &t[0][0];
	int64_t ld = r == c ? ldc : 8;

	for (int64_t k = 0; k < kc; k++, a += as, b += bs) {
		float32x4_t b0 = vld1q_f32(b), b1 = vld1q_f32(b + 4);
		float32x4_t a0 = vld1q_f32(a), a1 = vld1q_f32(a + 4);

		c00 = vfmaq_laneq_f32(c00, b0, a0, 0);
		c01 = vfmaq_laneq_f32(c01, b1, a0, 0);
		c10 = vfmaq_laneq_f32(c10, b0, a0, 1);
		c11 = vfmaq_laneq_f32(c11, b1, a0, 1);
		c20 = vfmaq_laneq_f32(c20, b0, a0, 2);
		c21 = vfmaq_laneq_f32(c21, b1, a0, 2);
		c30 = vfmaq_laneq_f32(c30, b0, a0, 3);
		c31 = vfmaq_laneq_f32(c31, b1, a0, 3);
		c40 = vfmaq_laneq_f32(c40, b0, a1, 0);
		c41 = vfmaq_laneq_f32(c41, b1, a1, 0);
		c50 = vfmaq_laneq_f32(c50, b0, a1, 1);
		c51 = vfmaq_laneq_f32(c51, b1, a1, 1);
		c60 = vfmaq_laneq_f32(c60, b0, a1, 2);
		c61 = vfmaq_laneq_f32(c61, b1, a1, 2);
		c70 = vfmaq_laneq_f32(c70, b0, a1, 3);
		c71 = vfmaq_laneq_f32(c71, b1, a1, 3);
	}
	if (r != c)
		memset(t, 0, sizeof t);
#define NNL_ROW(i, lo, hi) do { \
	float *p = r + (i) * ld; \
	vst1q_f32(p, vaddq_f32(vld1q_f32(p), lo)); \
	vst1q_f32(p + 4, vaddq_f32(vld1q_f32(p + 4), hi)); \
} while (0)
	NNL_ROW(0, c00, c01);
	NNL_ROW(1, c10, c11);
	NNL_ROW(2, c20, c21);
	NNL_ROW(3, c30, c31);
	NNL_ROW(4, c40, c41);
	NNL_ROW(5, c50, c51);
	NNL_ROW(6, c60, c61);
	NNL_ROW(7, c70, c71);
#undef NNL_ROW
	if (r != c)
		for (int64_t i = 0; i < m; i++)
			for (int64_t j = 0; j < n; j++)
				c[i * ldc + j] += t[i][j];
}
#endif
