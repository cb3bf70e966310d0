/*
 * gemm_f32_8x8_neon: the SGEMM microkernel for AArch64 NEON, 8 rows by
 * 8 columns of C: sixteen 4-float accumulators, two loads of B and two
 * of A per step; each lane of A feeds a fused multiply-add by lane.
 * A full tile starts and ends in vectors (rt.h's nnl_gemm_tile); an
 * edge tile goes through a buffer on the stack.
 */
#include "rt.h"

#ifdef NNL_RT_NEON
#include <arm_neon.h>

NNL_RT void
nnl_gemm_f32_8x8_neon(int64_t kc, const float *a, int64_t as,
    const float *b, int64_t bs, float *c, int64_t ldc, int64_t m, int64_t n,
    const struct nnl_gemm_tile *t)
{
	float32x4_t z = vdupq_n_f32(0);
	float32x4_t c00 = z, c01 = z, c10 = z, c11 = z, c20 = z, c21 = z,
	    c30 = z, c31 = z, c40 = z, c41 = z, c50 = z, c51 = z, c60 = z,
	    c61 = z, c70 = z, c71 = z;
	float p[8][8];

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
	if (m == 8 && n == 8) {
		float32x4_t s0 = z, s1 = z;
		float32x4_t vlo = vdupq_n_f32(t->lo), vhi = vdupq_n_f32(t->hi);

		if (!t->load && t->cb) {
			s0 = vld1q_f32(t->cb);
			s1 = vld1q_f32(t->cb + 4);
		}
		/* relu, clamp and hardswish by comparisons, as
		 * nnl_activate: a NaN becomes 0 under relu and stays
		 * under clamp and hardswish */
#define NNL_ACT(v) do { \
	if (t->act == NNL_ACT_RELU) \
		v = vbslq_f32(vcgtq_f32(v, z), v, z); \
	else if (t->act == NNL_ACT_CLAMP) \
		v = vbslq_f32(vcltq_f32(v, vlo), vlo, \
		    vbslq_f32(vcgtq_f32(v, vhi), vhi, v)); \
	else if (t->act == NNL_ACT_HARDSWISH) { \
		float32x4_t h_ = vaddq_f32(v, vdupq_n_f32(3)); \
		h_ = vbslq_f32(vcltq_f32(h_, z), z, h_); \
		h_ = vbslq_f32(vcgtq_f32(h_, vdupq_n_f32(6)), \
		    vdupq_n_f32(6), h_); \
		v = vmulq_f32(vmulq_f32(v, h_), vdupq_n_f32(1.0f / 6)); \
	} \
} while (0)
#define NNL_ROW(i, lo, hi) do { \
	float *q = c + (i) * ldc; \
	float32x4_t u0 = s0, u1 = s1; \
	if (t->load) { \
		u0 = vld1q_f32(q); \
		u1 = vld1q_f32(q + 4); \
	} else if (!t->cb && t->rb) \
		u0 = u1 = vdupq_n_f32(t->rb[i]); \
	u0 = vaddq_f32(u0, lo); \
	u1 = vaddq_f32(u1, hi); \
	NNL_ACT(u0); \
	NNL_ACT(u1); \
	vst1q_f32(q, u0); \
	vst1q_f32(q + 4, u1); \
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
#undef NNL_ACT
		return;
	}
#define NNL_ROW(i, lo, hi) do { \
	vst1q_f32(p[i], lo); \
	vst1q_f32(p[i] + 4, hi); \
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
	for (int64_t i = 0; i < m; i++)
		for (int64_t j = 0; j < n; j++)
			c[i * ldc + j] = nnl_tile_elem(t, c + i * ldc, i, j,
			    p[i][j]);
}
#endif
