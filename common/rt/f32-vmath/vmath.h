/*
 * vmath: exp, log, sigmoid, tanh, erf, GELU, softplus and pow by a
 * constant on float32 vectors, by range reduction and short
 * polynomials (fit.py derives the coefficients), in place of one libm
 * call per element.  Each nnl_mNAME works on an nnl_mf: rt.h's vector
 * of NNL_VW floats, or one float where there are no vector
 * extensions (NNL_VW 1), through the few helpers below, so that one
 * text serves every instruction set; fused multiply-adds where the
 * target has them.  Their errors against double precision are
 * measured by tests/unit/test_vmath.c over the whole float range and
 * documented in nnl-emit-c(1), ACCURACY.  NaN propagates; overflow
 * gives infinity, underflow gradual (subnormal) results, then zero.
 * The activations the other families apply after a product or a
 * convolution (nnl_activate) live here too, over these functions.
 */
#ifndef NNL_VMATH_H
#define NNL_VMATH_H

/* after rt.h, whose vectors these are */
#if defined(__aarch64__) && defined(__ARM_NEON)
#include <arm_neon.h>
#endif

#if NNL_VW > 1
typedef nnl_vf nnl_mf;
typedef uint32_t nnl_mu __attribute__((vector_size(NNL_VW * 4)));
#define nnl_msplat(x) nnl_vsplat(x)
#define nnl_musplat(x) ((nnl_mu){ 0 } + (uint32_t)(x))
/* bits as unsigned lanes and back; comparisons give all-ones lanes */
#define nnl_masu(v) ((nnl_mu)(v))
#define nnl_masf(u) ((nnl_mf)(u))
#define nnl_mlt(a, b) ((nnl_mu)((a) < (b)))
#define nnl_meq(a, b) ((nnl_mu)((a) == (b)))
#else
typedef float nnl_mf;
typedef uint32_t nnl_mu;
#define nnl_msplat(x) ((float)(x))
#define nnl_musplat(x) ((uint32_t)(x))
#define nnl_mlt(a, b) (0u - (uint32_t)((a) < (b)))
#define nnl_meq(a, b) (0u - (uint32_t)((a) == (b)))

NNL_RT_INLINE nnl_mu
nnl_masu(nnl_mf v)
{
	uint32_t u;

	memcpy(&u, &v, 4);
	return u;
}

NNL_RT_INLINE nnl_mf
nnl_masf(nnl_mu u)
{
	float v;

	memcpy(&v, &u, 4);
	return v;
}
#endif

/* m ? a : b, lane by lane, m all ones or zero */
NNL_RT_INLINE nnl_mf
nnl_msel(nnl_mu m, nnl_mf a, nnl_mf b)
{
	return nnl_masf((nnl_masu(a) & m) | (nnl_masu(b) & ~m));
}

/* a * b + c, fused where the target has the instruction */
NNL_RT_INLINE nnl_mf
nnl_mfma(nnl_mf a, nnl_mf b, nnl_mf c)
{
#if NNL_VW == 16 && defined(__AVX512F__)
	return (nnl_mf)_mm512_fmadd_ps((__m512)a, (__m512)b, (__m512)c);
#elif NNL_VW == 8 && defined(__FMA__)
	return (nnl_mf)_mm256_fmadd_ps((__m256)a, (__m256)b, (__m256)c);
#elif NNL_VW == 4 && defined(__FMA__)
	return (nnl_mf)_mm_fmadd_ps((__m128)a, (__m128)b, (__m128)c);
#elif NNL_VW == 4 && defined(__aarch64__) && defined(__ARM_NEON)
	return (nnl_mf)vfmaq_f32((float32x4_t)c, (float32x4_t)a,
	    (float32x4_t)b);
#else
	return a * b + c;
#endif
}

/* |x| */
NNL_RT_INLINE nnl_mf
nnl_mabs(nnl_mf x)
{
	return nnl_masf(nnl_masu(x) & 0x7fffffffu);
}

/* x rounded to its 12 leading bits: x = nnl_mhi(x) + (x - nnl_mhi(x))
 * exactly, and products of two such halves are exact (Dekker) */
NNL_RT_INLINE nnl_mf
nnl_mhi(nnl_mf x)
{
	return nnl_masf(nnl_masu(x) & 0xfffff000u);
}

/* Cody and Waite's ln 2: the high part has 16 bits, so that n times it
 * is exact for the |n| < 256 of float exponents */
#define NNL_LN2_HI 0.693145751953125f
#define NNL_LN2_LO 1.42860677e-6f
#define NNL_LOG2E 1.44269504f

/*
 * exp(x + c) for a correction c far below x's last bit (exp with c = 0;
 * an x known as the unevaluated sum x + c elsewhere): n = round(x /
 * ln 2) by adding 1.5 * 2^23, r = x - n ln 2 in two parts plus c, |r| <=
 * ln 2 / 2, e^r = 1 + r + r^2 q(r) with q of degree 4, then times 2^n
 * as 2^(n - n/2) 2^(n/2), each a normal float, so that a subnormal
 * result is rounded once.  x is clamped to [-104, 89], beyond which
 * the result is 0 or infinity.
 */
NNL_RT_INLINE nnl_mf
nnl_mexpc(nnl_mf x, nnl_mf c)
{
	nnl_mf xc, t, nf, r, r2, q, p;
	nnl_mu nu, h;

	xc = nnl_msel(nnl_mlt(nnl_msplat(89.0f), x), nnl_msplat(89.0f), x);
	xc = nnl_msel(nnl_mlt(xc, nnl_msplat(-104.0f)), nnl_msplat(-104.0f),
	    xc);
	t = nnl_mfma(xc, nnl_msplat(NNL_LOG2E), nnl_msplat(12582912.0f));
	nf = t - nnl_msplat(12582912.0f);
	nu = nnl_masu(t) - 0x4b400000u;		/* n, two's complement */
	r = (xc - nf * nnl_msplat(NNL_LN2_HI)) - nf * nnl_msplat(NNL_LN2_LO);
	r = r + c;
	q = nnl_mfma(nnl_msplat(1.381460810e-03f), r,
	    nnl_msplat(8.368710056e-03f));
	q = nnl_mfma(q, r, nnl_msplat(4.166838899e-02f));
	q = nnl_mfma(q, r, nnl_msplat(1.666652113e-01f));
	q = nnl_mfma(q, r, nnl_msplat(4.999999404e-01f));
	r2 = r * r;
	p = nnl_mfma(r2, q, r) + nnl_msplat(1.0f);
	/* 2^n = 2^(h - 128) 2^(n - h + 128), h = floor(n / 2) + 128 */
	h = (nu + 256u) >> 1;
	p = p * nnl_masf((h - 1u) << 23);
	p = p * nnl_masf((nu + 255u - h) << 23);
	return nnl_msel(nnl_meq(x, x), p, x + x);	/* NaN stays */
}

NNL_RT_INLINE nnl_mf
nnl_mexp(nnl_mf x)
{
	return nnl_mexpc(x, nnl_msplat(0.0f));
}

/* log(1 + f) - f for f in [sqrt(1/2) - 1, sqrt(2) - 1]:
 * f^2 (f q(f) - 1/2) with q of degree 7 */
NNL_RT_INLINE nnl_mf
nnl_mlog1t(nnl_mf f)
{
	nnl_mf q;

	q = nnl_mfma(nnl_msplat(-7.634343952e-02f), f,
	    nnl_msplat(1.276151538e-01f));
	q = nnl_mfma(q, f, nnl_msplat(-1.316021085e-01f));
	q = nnl_mfma(q, f, nnl_msplat(1.420176774e-01f));
	q = nnl_mfma(q, f, nnl_msplat(-1.662335545e-01f));
	q = nnl_mfma(q, f, nnl_msplat(2.000122666e-01f));
	q = nnl_mfma(q, f, nnl_msplat(-2.500082254e-01f));
	q = nnl_mfma(q, f, nnl_msplat(3.333333135e-01f));
	q = nnl_mfma(q, f, nnl_msplat(-0.5f));
	return (f * f) * q;
}

/* x = 2^e m, m in [sqrt(1/2), sqrt(2)): *e (as a float) and m - 1,
 * exactly, for a positive normal x */
NNL_RT_INLINE nnl_mf
nnl_mlogsplit(nnl_mf x, nnl_mf *e)
{
	nnl_mu b = nnl_masu(x), ix = b - 0x3f3504f3u;

	/* (ix >> 23) as a signed number, plus 256, made a float exactly */
	*e = nnl_masf(0x4b000000u + ((ix + 0x80000000u) >> 23)) -
	    nnl_msplat(8388864.0f);
	return nnl_masf(b - (ix & 0xff800000u)) - nnl_msplat(1.0f);
}

/*
 * log x: subnormals scaled by 2^23 first, x = 2^e m, log x = e ln 2 +
 * log(1 + f) with f = m - 1; 0 gives -infinity, a negative x NaN,
 * infinity itself.
 */
NNL_RT_INLINE nnl_mf
nnl_mlog(nnl_mf x)
{
	nnl_mu sub = nnl_mlt(x, nnl_msplat(1.17549435e-38f));
	nnl_mf e, f, y;

	f = nnl_mlogsplit(nnl_msel(sub, x * nnl_msplat(8388608.0f), x), &e);
	e = e - nnl_msel(sub, nnl_msplat(23.0f), nnl_msplat(0.0f));
	y = e * nnl_msplat(NNL_LN2_HI) + (f + nnl_mfma(e,
	    nnl_msplat(NNL_LN2_LO), nnl_mlog1t(f)));
	y = nnl_msel(nnl_meq(x, nnl_msplat(0.0f)), nnl_msplat(-INFINITY), y);
	y = nnl_msel(nnl_mlt(x, nnl_msplat(0.0f)), nnl_msplat(NAN), y);
	/* +infinity and NaN give themselves */
	return nnl_msel(nnl_mlt(x, nnl_msplat(INFINITY)), y, x + x);
}

/* log(1 + u) for u in [0, 1]: 1 + u = 2^e (1 + f) with f = u (e = 0)
 * or (u - 1) / 2 (e = 1), exactly, so that a small u keeps its
 * relative accuracy */
NNL_RT_INLINE nnl_mf
nnl_mlog1p01(nnl_mf u)
{
	nnl_mu big = ~nnl_mlt(u, nnl_msplat(0.414213562f));
	nnl_mf f = nnl_msel(big, (u - nnl_msplat(1.0f)) * nnl_msplat(0.5f),
	    u);
	nnl_mf e = nnl_msel(big, nnl_msplat(1.0f), nnl_msplat(0.0f));

	return e * nnl_msplat(NNL_LN2_HI) + (f + nnl_mfma(e,
	    nnl_msplat(NNL_LN2_LO), nnl_mlog1t(f)));
}

/* 1 / (1 + exp(-x)), as e / (1 + e) with e = exp(x) for negative x,
 * which so reaches the subnormals rather than overflow */
NNL_RT_INLINE nnl_mf
nnl_msigmoid(nnl_mf x)
{
	nnl_mf e = nnl_mexp(-nnl_mabs(x)), r;

	r = nnl_msplat(1.0f) / (nnl_msplat(1.0f) + e);
	return nnl_msel(nnl_mlt(x, nnl_msplat(0.0f)), e * r, r);
}

/* tanh x: x + x^3 q(x^2) below 0.625 in magnitude (q of degree 5),
 * else 1 - 2 / (exp(2 |x|) + 1) with x's sign */
NNL_RT_INLINE nnl_mf
nnl_mtanh(nnl_mf x)
{
	nnl_mf a = nnl_mabs(x), x2 = x * x, q, s, b;

	q = nnl_mfma(nnl_msplat(2.142185578e-03f), x2,
	    nnl_msplat(-8.176519535e-03f));
	q = nnl_mfma(q, x2, nnl_msplat(2.170033567e-02f));
	q = nnl_mfma(q, x2, nnl_msplat(-5.394669250e-02f));
	q = nnl_mfma(q, x2, nnl_msplat(1.333320588e-01f));
	q = nnl_mfma(q, x2, nnl_msplat(-3.333333135e-01f));
	s = nnl_mfma(a * x2, q, a);
	b = nnl_msplat(1.0f) - nnl_msplat(2.0f) / (nnl_mexp(a + a) +
	    nnl_msplat(1.0f));
	b = nnl_msel(nnl_mlt(a, nnl_msplat(0.625f)), s, b);
	return nnl_masf(nnl_masu(b) | (nnl_masu(x) & 0x80000000u));
}

/* erf x / x for |x| <= 1 as q(x^2), q of degree 6 */
NNL_RT_INLINE nnl_mf
nnl_merfq(nnl_mf x2)
{
	nnl_mf q;

	q = nnl_mfma(nnl_msplat(7.889114931e-05f), x2,
	    nnl_msplat(-8.020839887e-04f));
	q = nnl_mfma(q, x2, nnl_msplat(5.189535208e-03f));
	q = nnl_mfma(q, x2, nnl_msplat(-2.685444430e-02f));
	q = nnl_mfma(q, x2, nnl_msplat(1.128360033e-01f));
	q = nnl_mfma(q, x2, nnl_msplat(-3.761262596e-01f));
	return nnl_mfma(q, x2, nnl_msplat(1.128379107e+00f));
}

/* x exp(x^2) erfc(x) as q(1 / x - 1/2) for x in [1, 14.2], q of
 * degree 11 */
NNL_RT_INLINE nnl_mf
nnl_merfcq(nnl_mf t)
{
	nnl_mf w = t - nnl_msplat(0.5f), q;

	q = nnl_mfma(nnl_msplat(1.537296027e-01f), w,
	    nnl_msplat(-1.363606155e-01f));
	q = nnl_mfma(q, w, nnl_msplat(-6.764869392e-02f));
	q = nnl_mfma(q, w, nnl_msplat(1.500864476e-01f));
	q = nnl_mfma(q, w, nnl_msplat(-1.089587286e-01f));
	q = nnl_mfma(q, w, nnl_msplat(3.784816340e-02f));
	q = nnl_mfma(q, w, nnl_msplat(4.291331023e-02f));
	q = nnl_mfma(q, w, nnl_msplat(-1.086279452e-01f));
	q = nnl_mfma(q, w, nnl_msplat(1.189484075e-01f));
	q = nnl_mfma(q, w, nnl_msplat(-3.663545847e-02f));
	q = nnl_mfma(q, w, nnl_msplat(-1.672108769e-01f));
	return nnl_mfma(q, w, nnl_msplat(5.107913613e-01f));
}

/* 1 + erf(x / sqrt 2) for x in [-sqrt 2, -sqrt(1/2)] as q(x + 1.0607),
 * q of degree 9: GELU's negative side, where 1 + erf would cancel */
NNL_RT_INLINE nnl_mf
nnl_mgelumid(nnl_mf x)
{
	nnl_mf w = x + nnl_msplat(1.0607f), q;

	q = nnl_mfma(nnl_msplat(-1.697427797e-04f), w,
	    nnl_msplat(-1.454287849e-04f));
	q = nnl_mfma(q, w, nnl_msplat(1.628661412e-03f));
	q = nnl_mfma(q, w, nnl_msplat(3.358772490e-03f));
	q = nnl_mfma(q, w, nnl_msplat(-9.412820451e-03f));
	q = nnl_mfma(q, w, nnl_msplat(-3.766987473e-02f));
	q = nnl_mfma(q, w, nnl_msplat(9.477268904e-03f));
	q = nnl_mfma(q, w, nnl_msplat(2.410980165e-01f));
	q = nnl_mfma(q, w, nnl_msplat(4.546017051e-01f));
	return nnl_mfma(q, w, nnl_msplat(2.888262570e-01f));
}

/* exp(-k a^2) for a >= 0, k 1 or 1/2, with a^2 exact: a = h + l
 * (nnl_mhi), a^2 = h^2 + (2 h l + l^2), h^2 exact, the rest carried
 * as exp's correction; a above 20 taken as 20 (the result is 0) */
NNL_RT_INLINE nnl_mf
nnl_mexpsq(nnl_mf a, float k)
{
	nnl_mf h, l, s, c, t;

	a = nnl_msel(nnl_mlt(nnl_msplat(20.0f), a), nnl_msplat(20.0f), a);
	h = nnl_mhi(a);
	l = a - h;
	t = nnl_msplat(-k) * (h * h);
	c = nnl_msplat(-k) * (l * (h + h + l));
	s = t + c;
	return nnl_mexpc(s, (t - s) + c);
}

/* erf x: x q(x^2) below 1 in magnitude, else 1 - erfc |x| with x's
 * sign, erfc a = exp(-a^2) q(1 / a) / a, a taken into [1, 4] (beyond 4
 * erf is 1 in float; a subnormal exp would cost a hundred cycles) */
NNL_RT_INLINE nnl_mf
nnl_merf(nnl_mf x)
{
	nnl_mf a = nnl_mabs(x), s, b, t;

	s = x * nnl_merfq(x * x);
	a = nnl_msel(nnl_mlt(nnl_msplat(4.0f), a), nnl_msplat(4.0f), a);
	a = nnl_msel(nnl_mlt(a, nnl_msplat(1.0f)), nnl_msplat(1.0f), a);
	t = nnl_msplat(1.0f) / a;
	b = nnl_msplat(1.0f) - nnl_mexpsq(a, 1.0f) * (nnl_merfcq(t) * t);
	b = nnl_masf(nnl_masu(b) | (nnl_masu(x) & 0x80000000u));
	b = nnl_msel(nnl_meq(x, x), b, x + x);
	return nnl_msel(nnl_mlt(nnl_mabs(x), nnl_msplat(1.0f)), s, b);
}

/*
 * GELU, x (1 + erf(x / sqrt 2)) / 2: below sqrt 2 in magnitude from
 * erf's polynomial (from sqrt(1/2) to sqrt 2 below zero, 1 + erf as a
 * polynomial of its own); beyond, with g = exp(-x^2 / 2) q(sqrt 2 /
 * |x|) / sqrt 2 = |x| erfc(|x| / sqrt 2) / 2, x - g for positive x and
 * -g for negative, so that the negative tail keeps its relative
 * accuracy down to the subnormals.  |x| is taken into [sqrt 2, 20]
 * for g, and to 8 for positive x, where x - g is x (no subnormal g,
 * which costs a hundred cycles, where the result is not one).
 */
NNL_RT_INLINE nnl_mf
nnl_mgelu(nnl_mf x)
{
	nnl_mf a = nnl_mabs(x), u2 = x * x * nnl_msplat(0.5f), s, g, ac;

	s = x * nnl_msplat(0.5f) * (nnl_msplat(1.0f) + x *
	    nnl_msplat(0.707106781f) * nnl_merfq(u2));
	s = nnl_msel(nnl_mlt(x, nnl_msplat(-0.707106781f)), x *
	    nnl_msplat(0.5f) * nnl_mgelumid(x), s);
	ac = nnl_msel(nnl_mlt(x, nnl_msplat(0.0f)), nnl_msplat(20.0f),
	    nnl_msplat(8.0f));
	ac = nnl_msel(nnl_mlt(ac, a), ac, a);
	ac = nnl_msel(nnl_mlt(ac, nnl_msplat(1.41421356f)),
	    nnl_msplat(1.41421356f), ac);
	g = nnl_mexpsq(ac, 0.5f) * (nnl_merfcq(nnl_msplat(1.41421356f) /
	    ac) * nnl_msplat(0.707106781f));
	g = nnl_msel(nnl_mlt(x, nnl_msplat(0.0f)), -g, x - g);
	g = nnl_msel(nnl_meq(x, x), g, x + x);
	return nnl_msel(nnl_mlt(a, nnl_msplat(1.41421356f)), s, g);
}

/*
 * GELU's tanh form, x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))) / 2,
 * as x sigmoid(2 sqrt(2 / pi) (x + 0.044715 x^3)), the same function
 * without the cancellation of 1 + tanh; -0 below -12 (where the value
 * is below the smallest subnormal and -infinity would give NaN).
 */
NNL_RT_INLINE nnl_mf
nnl_mgelu_tanh(nnl_mf x)
{
	nnl_mf z, y;

	z = x * nnl_mfma(x * x, nnl_msplat(0.0713548162f),
	    nnl_msplat(1.59576912f));
	y = x * nnl_msigmoid(z);
	return nnl_msel(nnl_mlt(x, nnl_msplat(-12.0f)), nnl_msplat(-0.0f), y);
}

/* softplus, log(1 + exp x), as max(x, 0) + log(1 + exp(-|x|)) */
NNL_RT_INLINE nnl_mf
nnl_msoftplus(nnl_mf x)
{
	nnl_mf m = nnl_msel(nnl_mlt(nnl_msplat(0.0f), x), x,
	    nnl_msplat(0.0f));

	return m + nnl_mlog1p01(nnl_mexp(-nnl_mabs(x)));
}

/* sqrt x, the instruction */
NNL_RT_INLINE nnl_mf
nnl_msqrt(nnl_mf x)
{
#if NNL_VW == 16 && defined(__AVX512F__)
	return (nnl_mf)_mm512_sqrt_ps((__m512)x);
#elif NNL_VW == 8 && defined(__AVX__)
	return (nnl_mf)_mm256_sqrt_ps((__m256)x);
#elif NNL_VW == 4 && defined(__SSE__)
	return (nnl_mf)_mm_sqrt_ps((__m128)x);
#elif NNL_VW == 4 && defined(__aarch64__) && defined(__ARM_NEON)
	return (nnl_mf)vsqrtq_f32((float32x4_t)x);
#elif NNL_VW > 1
	for (int i = 0; i < NNL_VW; i++)
		x[i] = sqrtf(x[i]);
	return x;
#else
	return sqrtf(x);
#endif
}

/*
 * What pow(x, c) does for one constant c: NNL_POWC_* its fast path or
 * the general one; sgn (an odd integer c) whether x's sign goes to
 * the result, nan (a c not an integer) whether a finite negative x
 * gives NaN; c split for the exact product c log x (nnl_mhi).
 */
enum {
	NNL_POWC_ONE, NNL_POWC_X, NNL_POWC_X2, NNL_POWC_X3, NNL_POWC_X4,
	NNL_POWC_RCP, NNL_POWC_RCP2, NNL_POWC_SQRT, NNL_POWC_RSQRT,
	NNL_POWC_NAN, NNL_POWC_INF, NNL_POWC_GEN
};

struct nnl_powc {
	int kind, sgn, nan;
	float c, ch, cl, zero, inf;
};

NNL_RT_INLINE struct nnl_powc
nnl_powc_plan(float c)
{
	struct nnl_powc p = { NNL_POWC_GEN, 0, 0, c, 0, 0, 0, 0 };
	float fl = floorf(c);
	uint32_t u;

	p.kind = c == 0 ? NNL_POWC_ONE : c == 1 ? NNL_POWC_X :
	    c == 2 ? NNL_POWC_X2 : c == 3 ? NNL_POWC_X3 : c == 4 ?
	    NNL_POWC_X4 : c == -1 ? NNL_POWC_RCP : c == -2 ? NNL_POWC_RCP2 :
	    c == 0.5f ? NNL_POWC_SQRT : c == -0.5f ? NNL_POWC_RSQRT :
	    c != c ? NNL_POWC_NAN : c - c != 0 ? NNL_POWC_INF : NNL_POWC_GEN;
	p.nan = fl != c && c - c == 0;
	p.sgn = fl == c && fabsf(c) < 16777216.0f && fmodf(c, 2.0f) != 0;
	memcpy(&u, &c, 4);
	u &= 0xfffff000u;
	memcpy(&p.ch, &u, 4);
	p.cl = c - p.ch;
	/* pow(+0, c) (and pow(|x| < 1, c) for an infinite c), and
	 * pow(+infinity, c) (pow(|x| > 1, c)) */
	p.zero = c < 0 ? INFINITY : 0;
	p.inf = c < 0 ? 0 : INFINITY;
	return p;
}

/*
 * pow(x, c) in general: exp(c log |x|) with log |x| as a sum hi + lo
 * (e ln 2 + f and the rest) and c log |x| as the exact c_h hi_h plus
 * what is left, so that the product's rounding does not grow with
 * it; then the sign, NaN for a negative x and a c not an integer, and
 * the values at 0 and infinity.
 */
NNL_RT_INLINE nnl_mf
nnl_mpowc(nnl_mf x, const struct nnl_powc *p)
{
	nnl_mf a = nnl_mabs(x), e, f, hi, lo, s, bb, t, c, y;
	nnl_mu sub = nnl_mlt(a, nnl_msplat(1.17549435e-38f));

	f = nnl_mlogsplit(nnl_msel(sub, a * nnl_msplat(8388608.0f), a), &e);
	e = e - nnl_msel(sub, nnl_msplat(23.0f), nnl_msplat(0.0f));
	/* hi + lo = e ln2_hi + f exactly (two-sum), then the rest */
	hi = e * nnl_msplat(NNL_LN2_HI);
	s = hi + f;
	bb = s - hi;
	lo = ((hi - (s - bb)) + (f - bb)) + nnl_mfma(e,
	    nnl_msplat(NNL_LN2_LO), nnl_mlog1t(f));
	hi = s + lo;
	lo = (s - hi) + lo;
	/* c (hi + lo) = ch hih + the rest */
	s = nnl_mhi(hi);
	bb = hi - s;
	t = nnl_msplat(p->ch) * s;
	c = nnl_msplat(p->ch) * bb + nnl_msplat(p->cl) * hi +
	    nnl_msplat(p->c) * lo;
	s = t + c;
	y = nnl_mexpc(s, (t - s) + c);
	y = nnl_msel(nnl_meq(a, nnl_msplat(0.0f)), nnl_msplat(p->zero), y);
	y = nnl_msel(nnl_meq(a, nnl_msplat(INFINITY)), nnl_msplat(p->inf), y);
	y = nnl_msel(nnl_meq(a, nnl_msplat(1.0f)), nnl_msplat(1.0f), y);
	if (p->sgn)
		y = nnl_masf(nnl_masu(y) | (nnl_masu(x) & 0x80000000u));
	if (p->nan)
		y = nnl_msel(nnl_mlt(x, nnl_msplat(0.0f)) & nnl_mlt(
		    nnl_msplat(-INFINITY), x), nnl_msplat(NAN), y);
	return nnl_msel(nnl_meq(x, x), y, x + x);	/* NaN stays */
}

/* pow(x, c) by p's path: products, quotients, sqrt or nnl_mpowc */
NNL_RT_INLINE nnl_mf
nnl_mpow(nnl_mf x, const struct nnl_powc *p)
{
	nnl_mf y;

	switch (p->kind) {
	case NNL_POWC_ONE: return nnl_msplat(1.0f);
	case NNL_POWC_X: return x;
	case NNL_POWC_X2: return x * x;
	case NNL_POWC_X3: return x * x * x;
	case NNL_POWC_X4: return (x * x) * (x * x);
	case NNL_POWC_RCP: return nnl_msplat(1.0f) / x;
	case NNL_POWC_RCP2:
		y = nnl_msplat(1.0f) / x;
		return y * y;
	case NNL_POWC_SQRT:	/* pow(-0, 0.5) is +0, pow(-inf, 0.5) +inf */
		y = nnl_msqrt(x) + nnl_msplat(0.0f);
		return nnl_msel(nnl_meq(x, nnl_msplat(-INFINITY)),
		    nnl_msplat(INFINITY), y);
	case NNL_POWC_RSQRT:
		y = nnl_msplat(1.0f) / (nnl_msqrt(x) + nnl_msplat(0.0f));
		return nnl_msel(nnl_meq(x, nnl_msplat(-INFINITY)),
		    nnl_msplat(0.0f), y);
	case NNL_POWC_NAN:	/* pow(1, NaN) is 1 */
		return nnl_msel(nnl_meq(x, nnl_msplat(1.0f)),
		    nnl_msplat(1.0f), nnl_msplat(NAN));
	case NNL_POWC_INF:	/* pow(-1, +-infinity) is 1 */
		y = nnl_mabs(x);
		y = nnl_msel(nnl_mlt(y, nnl_msplat(1.0f)),
		    nnl_msplat(p->zero), nnl_msel(nnl_meq(y, nnl_msplat(1.0f)),
		    nnl_msplat(1.0f), nnl_msplat(p->inf)));
		return nnl_msel(nnl_meq(x, x), y, x + x);
	default: return nnl_mpowc(x, p);
	}
}

#if NNL_VW > 1
#define NNL_MLOAD(p) nnl_vload(p)
#define NNL_MSTORE(p, v) nnl_vstore(p, v)
#else
#define NNL_MLOAD(p) (*(p))
#define NNL_MSTORE(p, v) (*(p) = (v))
#endif

/* y[0:n] = F(x[0:n]), F an expression of the vector v: whole vectors,
 * then the ragged end through a vector on the stack, so that every
 * element goes through the same lanes' arithmetic wherever a split of
 * the array puts it (the same results for any number of threads) */
#define NNL_VMATH_LOOP(F) do { \
	int64_t i_ = 0; \
	nnl_mf v; \
	for (; i_ + NNL_VW <= n; i_ += NNL_VW) { \
		v = NNL_MLOAD(x + i_); \
		NNL_MSTORE(y + i_, F); \
	} \
	if (i_ < n) { \
		float b_[NNL_VW] = { 0 }; \
		memcpy(b_, x + i_, (size_t)(n - i_) * sizeof *x); \
		v = NNL_MLOAD(b_); \
		NNL_MSTORE(b_, F); \
		memcpy(y + i_, b_, (size_t)(n - i_) * sizeof *y); \
	} \
} while (0)

/*
 * The array forms (vmath.c): y[i] = f(x[i]) for n floats, safe in
 * place; pow by one constant c.  Generated code defines each before
 * its first use; libnnl declares them here.
 */
#ifdef NNL_RT_EXTERN
NNL_RT void nnl_vexp_f32(const float *x, float *y, int64_t n);
NNL_RT void nnl_vlog_f32(const float *x, float *y, int64_t n);
NNL_RT void nnl_vsigmoid_f32(const float *x, float *y, int64_t n);
NNL_RT void nnl_vtanh_f32(const float *x, float *y, int64_t n);
NNL_RT void nnl_verf_f32(const float *x, float *y, int64_t n);
NNL_RT void nnl_vgelu_f32(const float *x, float *y, int64_t n);
NNL_RT void nnl_vgelu_tanh_f32(const float *x, float *y, int64_t n);
NNL_RT void nnl_vsoftplus_f32(const float *x, float *y, int64_t n);
NNL_RT void nnl_vpowc_f32(const float *x, float *y, int64_t n, float c);
#endif

/* y = act(y) for n floats: a fused activation's code (rt.h) with its
 * parameters a and b (clamp's bounds, leakyRelu's slope) */
NNL_RT_INLINE void
nnl_activate(float *y, int64_t n, int64_t act, double a, double b)
{
	int64_t i;

	switch (act) {
	case NNL_ACT_RELU:
	case NNL_ACT_CLAMP: {
		float lo = (float)a, hi = (float)b;

		i = 0;
#if NNL_VW > 1
		/* whole vectors counted first, so that compilers see
		 * where the tail starts */
		for (; i < n - n % NNL_VW; i += NNL_VW)
			nnl_vstore(y + i, nnl_vclamp(nnl_vload(y + i), act, lo,
			    hi));
#endif
		if (act == NNL_ACT_RELU)
			for (; i < n; i++)
				y[i] = y[i] > 0 ? y[i] : 0;
		else
			for (; i < n; i++)
				y[i] = y[i] < lo ? lo : y[i] > hi ? hi : y[i];
		break;
	}
	case NNL_ACT_SIGMOID: {
		const float *x = y;

		NNL_VMATH_LOOP(nnl_msigmoid(v));
		break;
	}
	case NNL_ACT_SWISH: {	/* SiLU: x sigmoid(x) */
		const float *x = y;

		NNL_VMATH_LOOP(v * nnl_msigmoid(v));
		break;
	}
	case NNL_ACT_TANH: {
		const float *x = y;

		NNL_VMATH_LOOP(nnl_mtanh(v));
		break;
	}
	case NNL_ACT_GELU: {	/* the erf form */
		const float *x = y;

		NNL_VMATH_LOOP(nnl_mgelu(v));
		break;
	}
	case NNL_ACT_HARDSIGMOID: {
		/* in nnl_real, as the hardSigmoid node computes it */
		nnl_real al = (nnl_real)a, be = (nnl_real)b;

		for (i = 0; i < n; i++) {
			nnl_real t = al * y[i] + be;

			y[i] = (float)(t < 0 ? 0 : t > 1 ? 1 : t);
		}
		break;
	}
	case NNL_ACT_HARDSWISH:
		i = 0;
#if NNL_VW > 1
		/* max gives 0 where x + 3 is NaN, and x t is NaN there
		 * as in nnl_shardswish */
		for (; i < n - n % NNL_VW; i += NNL_VW) {
			nnl_vf v = nnl_vload(y + i);
			nnl_vf t = nnl_vmin(nnl_vsplat(6), nnl_vmax(v +
			    nnl_vsplat(3), nnl_vsplat(0)));

			nnl_vstore(y + i, v * t * nnl_vsplat(1.0f / 6));
		}
#endif
		for (; i < n; i++)
			y[i] = nnl_shardswish(y[i]);
		break;
	case NNL_ACT_LEAKYRELU:
		for (i = 0; i < n; i++)
			y[i] = y[i] >= 0 ? y[i] : (float)a * y[i];
		break;
	default:
		break;
	}
}

/* y[i] = act(y[i] + r[i]) for n floats: a conv2d's residual (nnl-fuse)
 * added after its bias, then its activation, as the separate add and
 * activation would. */
NNL_RT_INLINE void
nnl_addact(float *y, const float *r, int64_t n, int64_t act, double a,
    double b)
{
	int64_t i = 0;
	int64_t c = nnl_act_clamps(act) ? act : NNL_ACT_NONE;
	float lo = (float)a, hi = (float)b;

#if NNL_VW > 1
	for (; i < n - n % NNL_VW; i += NNL_VW)
		nnl_vstore(y + i, nnl_vclamp(nnl_vload(y + i) +
		    nnl_vload(r + i), c, lo, hi));
#endif
	for (; i < n; i++)
		y[i] = nnl_sclamp(y[i] + r[i], c, lo, hi);
	if (c == NNL_ACT_NONE)
		nnl_activate(y, n, act, a, b);
}


#endif
