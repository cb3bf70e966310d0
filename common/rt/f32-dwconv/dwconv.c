/*
 * dwconv: the depthwise convolutions of conv2d (one input and one
 * output channel per group, as in MobileNet), without the SGEMM.  Each
 * output element is written once: the bias, then every filter tap in
 * order, then the fused relu or clamp (other activations go over the
 * row while it is in cache).  nchw images run NNL_VW output columns at
 * a time (rt.h's vectors): 3 x 3 filters with pad 1 at stride 1 and 2
 * straight from the image where rows hold a vector of outputs (the
 * padding comes in as lanes shifted past a zero), narrower planes in
 * blocks of NNL_VW channels, a vector of the channels a pixel, and
 * other 3 x 3 filters at stride 2 over four phase planes of the
 * channel; other filters (5 x 5, 7 x 7, any stride, dilation and
 * padding) on planes of at most NNL_DW_BIG pixels in blocks of NNL_VW
 * channels too, tiles of pixels of a row at a time, and on larger
 * planes over a copy of each channel
 * padded left and right in the scratch (nnl_dw_width floats a row, and
 * a row of zeros after the H rows), so no column needs bounds checks;
 * nhwc images run NNL_VW channels at a time, four pixels at once inside
 * the rows.  Without vector extensions (NNL_VW 1) plain loops do the
 * same.
 *
 * Both take conv2d's integer parameters ip (see nnl_k_conv2d_f32) and
 * one image; filter tap (a, b) of channel c is w[c * wc + (a * kw + b)
 * * wt].
 */
#include "rt.h"
#include "vmath.h"

/* Taps [*a0, *a1) of a column of kh (dilation dh) from input row iy0
 * read inside [0, H). */
NNL_RT_INLINE void
nnl_dw_taps(int64_t iy0, int64_t k, int64_t d, int64_t H, int64_t *a0,
    int64_t *a1)
{
	*a0 = 0;
	*a1 = k;
	while (*a0 < k && iy0 + *a0 * d < 0)
		++*a0;
	while (*a1 > *a0 && iy0 + (*a1 - 1) * d >= H)
		--*a1;
}

#if NNL_VW > 1
/* The nine taps of a 3 x 3 filter w (tap t at w[t * wt]), each in
 * every lane of a vector. */
NNL_RT_INLINE void
nnl_dw_taps3x3(const float *w, int64_t wt, nnl_vf *k)
{
	for (int t = 0; t < 9; t++)
		k[t] = nnl_vsplat(w[t * wt]);
}

/* One output row of a 3 x 3 filter k (tap a * 3 + b) from rows r of
 * the padded channel copy, columns ox * sw + b * dw, NNL_VW at a time:
 * no loops over the taps. */
NNL_RT_INLINE void
nnl_dw_row3x3(const float *const *r, const nnl_vf *k, float b0,
    int64_t sw, int64_t dw, float *yr, int64_t OW, int64_t act, float lo,
    float hi)
{
	for (int64_t ox = 0; ox < OW; ox += NNL_VW) {
		const float *p0 = r[0] + ox * sw, *p1 = r[1] + ox * sw,
		    *p2 = r[2] + ox * sw;
		nnl_vf acc = nnl_vsplat(b0);
		float t[NNL_VW];

		acc += k[0] * nnl_vload_s(p0, sw);
		acc += k[1] * nnl_vload_s(p0 + dw, sw);
		acc += k[2] * nnl_vload_s(p0 + 2 * dw, sw);
		acc += k[3] * nnl_vload_s(p1, sw);
		acc += k[4] * nnl_vload_s(p1 + dw, sw);
		acc += k[5] * nnl_vload_s(p1 + 2 * dw, sw);
		acc += k[6] * nnl_vload_s(p2, sw);
		acc += k[7] * nnl_vload_s(p2 + dw, sw);
		acc += k[8] * nnl_vload_s(p2 + 2 * dw, sw);
		acc = nnl_vclamp(acc, act, lo, hi);
		if (ox + NNL_VW <= OW) {
			nnl_vstore(yr + ox, acc);
			continue;
		}
		nnl_vstore(t, acc);
		memcpy(yr + ox, t, (size_t)(OW - ox) * sizeof *t);
	}
}
#endif

#if NNL_VW > 1 && defined(NNL_VSHUFFLE)
/*
 * The NNL_VW outputs ending at a row's end, at column ox > 0, of a
 * 3 x 3, stride-1, pad-1 filter k (bias in acc), from rows r[a] of W
 * floats: tap b = 1 is the vector at ox, tap 0 the one a column
 * before, tap 2 tap 1 shifted one lane down past a zero (the padding).
 * The taps are added in the order of nnl_dw_row3x3.
 */
NNL_RT_INLINE nnl_vf
nnl_dw3x3_s1end(const float *const *r, int64_t ox, const nnl_vf *k,
    nnl_vf acc)
{
	nnl_vf z = nnl_vsplat(0);

#pragma GCC unroll 3
	for (int a = 0; a < 3; a++) {
		const float *p = r[a] + ox;
		nnl_vf m = nnl_vload(p);

		acc += k[3 * a] * nnl_vload(p - 1);
		acc += k[3 * a + 1] * m;
		acc += k[3 * a + 2] * __builtin_shufflevector(m, z, NNL_VDOWN);
	}
	return acc;
}

/*
 * The NNL_VW outputs at column ox > 0 of a row of a 3 x 3, stride-2,
 * pad-1 filter k (bias in acc), from rows r[a], 2 (ox + NNL_VW) <= W
 * floats of each readable: taps 1 and 2 are the even and the odd lanes
 * of the 2 NNL_VW columns from 2 ox, tap 0 the even lanes of those from
 * 2 ox - 1.  The taps are added in the order of nnl_dw_row3x3.
 */
NNL_RT_INLINE nnl_vf
nnl_dw3x3_s2at(const float *const *r, int64_t ox, const nnl_vf *k,
    nnl_vf acc)
{
#pragma GCC unroll 3
	for (int a = 0; a < 3; a++) {
		const float *p = r[a] + 2 * ox;
		nnl_vf u = nnl_vload(p), v = nnl_vload(p + NNL_VW);

		acc += k[3 * a] * nnl_vload_s(p - 1, 2);
		acc += k[3 * a + 1] * __builtin_shufflevector(u, v, NNL_VEVEN);
		acc += k[3 * a + 2] * __builtin_shufflevector(u, v, NNL_VODD);
	}
	return acc;
}

/*
 * Whether nnl_dw3x3_rows takes a depthwise nchw convolution: 3 x 3,
 * pad 1 above and left, no dilation, and at stride 1 the output the
 * input's size and rows of at least NNL_VW; at stride 2 rows of at
 * least NNL_VW outputs whose inputs (and the rows') lie in the image.
 */
NNL_RT_INLINE int
nnl_dw3x3_direct(const int64_t *ip)
{
	int64_t H = ip[3], W = ip[4], OH = ip[6], OW = ip[7], s = ip[10];

	if (ip[8] != 3 || ip[9] != 3 || ip[11] != s || ip[12] != 1 ||
	    ip[13] != 1 || ip[14] != 1 || ip[16] != 1)
		return 0;
	if (s == 1)
		return OH == H && OW == W && W >= NNL_VW;
	return s == 2 && OW >= NNL_VW && 2 * OW <= W && 2 * OH <= H;
}

/*
 * Output rows of channel x (H x W) of a convolution nnl_dw3x3_direct
 * takes, straight from the image: each output row from its three input
 * rows (the rows above and below the image are zr, W zeros).  The
 * whole vectors of a row go in order, each keeping the row's vectors
 * it loaded for the next (at stride 1 the ones before and after it
 * give taps 0 and 2 as one shift, at stride 2 the odd lanes before it
 * tap 0), so each input vector is loaded once.  A ragged end is one
 * more vector ending at the row's end (over outputs the one before it
 * wrote), from its own loads.  The taps are added in the order of
 * nnl_dw_row3x3.
 */
NNL_RT_INLINE void
nnl_dw3x3_rows(const float *x, int64_t H, int64_t W, int64_t OH, int64_t OW,
    int64_t s, const nnl_vf *k, float b0, const float *zr, float *y,
    int64_t act, float lo, float hi)
{
	nnl_vf b = nnl_vsplat(b0), z = nnl_vsplat(0);
	int64_t nv = OW / NNL_VW;

	for (int64_t oy = 0; oy < OH; oy++) {
		int64_t iy = oy * s - 1;
		const float *r[3];
		float *yr = y + oy * OW;
		nnl_vf pv[3], cv[3], xv[3];

#pragma GCC unroll 3
		for (int a = 0; a < 3; a++) {
			r[a] = iy + a >= 0 && iy + a < H ? x + (iy + a) * W :
			    zr;
			pv[a] = z;
			cv[a] = nnl_vload(r[a]);
		}
		for (int64_t j = 0; j < nv; j++) {
			int64_t ox = j * NNL_VW;
			nnl_vf acc = b;

#pragma GCC unroll 3
			for (int a = 0; a < 3; a++) {
				const float *p = r[a] + s * ox;

				if (s == 2) {
					nnl_vf v = nnl_vload(p + NNL_VW);
					nnl_vf o = __builtin_shufflevector(
					    cv[a], v, NNL_VODD);

					acc += k[3 * a] *
					    __builtin_shufflevector(pv[a], o,
					    NNL_VUP);
					acc += k[3 * a + 1] *
					    __builtin_shufflevector(cv[a], v,
					    NNL_VEVEN);
					acc += k[3 * a + 2] * o;
					pv[a] = o;
					if (j + 1 < nv)
						cv[a] = nnl_vload(p + 2 *
						    NNL_VW);
					continue;
				}
				/* the next vector, or past the last whole
				 * one zeros: the padding, or a column the
				 * ragged end's vector computes again */
				xv[a] = j + 1 < nv ? nnl_vload(p + NNL_VW) : z;
				acc += k[3 * a] * __builtin_shufflevector(pv[a],
				    cv[a], NNL_VUP);
				acc += k[3 * a + 1] * cv[a];
				acc += k[3 * a + 2] * __builtin_shufflevector(
				    cv[a], xv[a], NNL_VDOWN);
				pv[a] = cv[a];
				cv[a] = xv[a];
			}
			nnl_vstore(yr + ox, nnl_vclamp(acc, act, lo, hi));
		}
		if (OW % NNL_VW) {
			int64_t ox = OW - NNL_VW;

			nnl_vstore(yr + ox, nnl_vclamp(s == 2 ?
			    nnl_dw3x3_s2at(r, ox, k, b) :
			    nnl_dw3x3_s1end(r, ox, k, b), act, lo, hi));
		}
	}
}

/*
 * Channels [0, nc) (nc <= NNL_VW) of a 3 x 3, stride-s convolution
 * nnl_dw_blockable takes, NNL_VW channels at a time in the lanes: the
 * image goes into P, its pixels (H + 2 rows of W + 2, a border of zeros
 * the caller made) a vector of the channels each, by transposing
 * NNL_VW pixels of NNL_VW channels at a time; each output pixel is
 * then nine loads and multiply-adds by vectors of the channels' taps,
 * into Q (OH x OW pixels, a vector each), transposed back into the
 * channels' planes.  For planes whose rows are narrower than a vector:
 * no lanes are idle but those of channels past nc, and no masks.  The
 * taps are added in the order of nnl_dw_row3x3.
 */
NNL_RT_INLINE void
nnl_dw3x3_block(const float *x, const float *w, int64_t wc, int64_t wt,
    const float *bias, float *y, int64_t nc, int64_t H, int64_t W,
    int64_t OH, int64_t OW, int64_t s, float *P, int64_t act, float lo,
    float hi)
{
	int64_t S = W + 2, HW = H * W, OHW = OH * OW, p, iy = 1, ix = 1;
	float *Q = P + (H + 2) * S * NNL_VW;
	nnl_vf z = nnl_vsplat(0), b = z, k[9], v[NNL_VW];

	for (int64_t l = 0; l < nc; l++) {
		for (int t = 0; t < 9; t++)
			k[t][l] = w[l * wc + t * wt];
		b[l] = bias ? bias[l] : 0;
	}
	for (int64_t l = nc; l < NNL_VW; l++)
		for (int t = 0; t < 9; t++)
			k[t][l] = 0;
	for (p = 0; p + NNL_VW <= HW; p += NNL_VW) {
#pragma GCC unroll 16
		for (int l = 0; l < NNL_VW; l++)
			v[l] = l < nc ? nnl_vload(x + l * HW + p) : z;
		nnl_vtranspose(v);
#pragma GCC unroll 16
		for (int i = 0; i < NNL_VW; i++) {
			nnl_vstore(P + (iy * S + ix) * NNL_VW, v[i]);
			if (++ix > W) {
				ix = 1;
				iy++;
			}
		}
	}
	for (; p < HW; p++) {
		for (int64_t l = 0; l < NNL_VW; l++)
			P[(iy * S + ix) * NNL_VW + l] = l < nc ? x[l * HW + p] :
			    0;
		if (++ix > W) {
			ix = 1;
			iy++;
		}
	}
	for (int64_t oy = 0; oy < OH; oy++)
	for (int64_t ox = 0; ox < OW; ox++) {
		const float *q = P + (oy * s * S + ox * s) * NNL_VW;
		nnl_vf acc = b;

#pragma GCC unroll 3
		for (int a = 0; a < 3; a++) {
			const float *r = q + a * S * NNL_VW;

			acc += k[3 * a] * nnl_vload(r);
			acc += k[3 * a + 1] * nnl_vload(r + NNL_VW);
			acc += k[3 * a + 2] * nnl_vload(r + 2 * NNL_VW);
		}
		nnl_vstore(Q + (oy * OW + ox) * NNL_VW, nnl_vclamp(acc, act,
		    lo, hi));
	}
	for (p = 0; p + NNL_VW <= OHW; p += NNL_VW) {
#pragma GCC unroll 16
		for (int i = 0; i < NNL_VW; i++)
			v[i] = nnl_vload(Q + (p + i) * NNL_VW);
		nnl_vtranspose(v);
#pragma GCC unroll 16
		for (int l = 0; l < NNL_VW; l++)
			if (l < nc)
				nnl_vstore(y + l * OHW + p, v[l]);
	}
	for (; p < OHW; p++)
		for (int64_t l = 0; l < nc; l++)
			y[l * OHW + p] = Q[p * NNL_VW + l];
}

/* Output pixels of a tile of nnl_dw_gen_block's rows, at most. */
enum { NNL_DW_R = 8 };

/*
 * r (a constant where it is inlined) output pixels, sx floats apart in
 * the padded plane from q, of the kh x kw taps K (a vector of the
 * channels' taps each, in the filter's order; tap rows rs floats apart,
 * taps in a row cs), each tap loaded once for the r multiply-adds, into
 * o (a vector a pixel).  The taps are added in the filter's order after
 * the bias b, as in the other paths.
 */
static inline __attribute__((always_inline)) void
nnl_dw_tile(const float *q, const float *K, nnl_vf b, int64_t kh,
    int64_t kw, int64_t sx, int64_t rs, int64_t cs, float *o, int r,
    int64_t act, float lo, float hi)
{
	nnl_vf acc[NNL_DW_R];

#pragma GCC unroll 8
	for (int i = 0; i < r; i++)
		acc[i] = b;
	for (int64_t a = 0; a < kh; a++) {
		const float *ka = K + a * kw * NNL_VW, *qa = q + a * rs;

		for (int64_t e = 0; e < kw; e++) {
			nnl_vf k = nnl_vload(ka + e * NNL_VW);
			const float *p = qa + e * cs;

#pragma GCC unroll 8
			for (int i = 0; i < r; i++)
				acc[i] += k * nnl_vload(p + i * sx);
		}
	}
#pragma GCC unroll 8
	for (int i = 0; i < r; i++)
		nnl_vstore(o + i * NNL_VW, nnl_vclamp(acc[i], act, lo, hi));
}

/*
 * Channels [0, nc) (nc <= NNL_VW) of a depthwise convolution
 * nnl_dw_blockgen takes, NNL_VW channels at a time in the lanes, as
 * nnl_dw3x3_block does for 3 x 3 filters, at any stride, dilation and
 * padding: the image's pixels its outputs read go into P (nnl_dw_ph x
 * nnl_dw_pw pixels a vector of the channels each, the padding the
 * zeros the caller left) by transposing NNL_VW pixels of NNL_VW
 * channels at a time, the taps into K (a vector each), and each output
 * row goes in tiles of R pixels (the last moved back to end at the
 * row's end, over pixels the one before it wrote: the same values), a
 * vector of taps loaded once for R multiply-adds, into Q, transposed
 * back into the channels' planes.  The block is read whole before its
 * outputs are written.
 */
/*
 * Inlined into a model that has no depthwise convolution, with the
 * scratch an arena too small for it, GCC's constant propagation walks
 * this dead path and warns that its loops overrun (a false positive the
 * user of the generated C could not act on).
 */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Waggressive-loop-optimizations"
#endif
NNL_RT_INLINE void
nnl_dw_gen_block(const float *x, const float *w, int64_t wc, int64_t wt,
    const float *bias, float *y, int64_t nc, const int64_t *ip, float *P,
    int64_t act, float lo, float hi)
{
	int64_t H = ip[3], W = ip[4], OH = ip[6], OW = ip[7], kh = ip[8],
	    kw = ip[9], sh = ip[10], sw = ip[11], dh = ip[12], dw = ip[13],
	    pt = ip[14], pl = ip[16];
	int64_t PH = nnl_dw_ph(ip), PW = nnl_dw_pw(ip), HW = H * W;
	int64_t OHW = OH * OW, hv = PH - pt < H ? PH - pt : H;
	int64_t wv = PW - pl < W ? PW - pl : W, p = 0, iy = 0, ix = 0;
	int64_t n = hv > 0 && wv > 0 ? hv * W : 0;
	int64_t R = OW >= NNL_DW_R ? NNL_DW_R : OW >= 4 ? 4 : 1;
	float *Q = P + PH * PW * NNL_VW, *K = Q + OHW * NNL_VW;
	nnl_vf z = nnl_vsplat(0), b = z, v[NNL_VW];

	for (int64_t t = 0; t < kh * kw; t++)
		for (int64_t l = 0; l < NNL_VW; l++)
			K[t * NNL_VW + l] = l < nc ? w[l * wc + t * wt] : 0;
	for (int64_t l = 0; l < nc; l++)
		b[l] = bias ? bias[l] : 0;
	/* rows [0, hv) of the image, columns [0, wv) of each */
	for (; p + NNL_VW <= n; p += NNL_VW) {
#pragma GCC unroll 16
		for (int l = 0; l < NNL_VW; l++)
			v[l] = l < nc ? nnl_vload(x + l * HW + p) : z;
		nnl_vtranspose(v);
#pragma GCC unroll 16
		for (int i = 0; i < NNL_VW; i++) {
			if (ix < wv)
				nnl_vstore(P + ((iy + pt) * PW + ix + pl) *
				    NNL_VW, v[i]);
			if (++ix == W) {
				ix = 0;
				iy++;
			}
		}
	}
	for (; p < n; p++) {
		if (ix < wv)
			for (int64_t l = 0; l < NNL_VW; l++)
				P[((iy + pt) * PW + ix + pl) * NNL_VW + l] =
				    l < nc ? x[l * HW + p] : 0;
		if (++ix == W) {
			ix = 0;
			iy++;
		}
	}
	for (int64_t oy = 0; oy < OH; oy++)
	for (int64_t ox = 0; ox < OW; ox += R) {
		int64_t o = ox + R <= OW ? ox : OW - R;
		const float *q = P + (oy * sh * PW + o * sw) * NNL_VW;
		float *d = Q + (oy * OW + o) * NNL_VW;

		if (R == NNL_DW_R)
			nnl_dw_tile(q, K, b, kh, kw, sw * NNL_VW,
			    dh * PW * NNL_VW, dw * NNL_VW, d, NNL_DW_R, act,
			    lo, hi);
		else if (R == 4)
			nnl_dw_tile(q, K, b, kh, kw, sw * NNL_VW,
			    dh * PW * NNL_VW, dw * NNL_VW, d, 4, act, lo, hi);
		else
			nnl_dw_tile(q, K, b, kh, kw, sw * NNL_VW,
			    dh * PW * NNL_VW, dw * NNL_VW, d, 1, act, lo, hi);
	}
	for (p = 0; p + NNL_VW <= OHW; p += NNL_VW) {
#pragma GCC unroll 16
		for (int i = 0; i < NNL_VW; i++)
			v[i] = nnl_vload(Q + (p + i) * NNL_VW);
		nnl_vtranspose(v);
#pragma GCC unroll 16
		for (int l = 0; l < NNL_VW; l++)
			if (l < nc)
				nnl_vstore(y + l * OHW + p, v[l]);
	}
	for (; p < OHW; p++)
		for (int64_t l = 0; l < nc; l++)
			y[l * OHW + p] = Q[p * NNL_VW + l];
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

/* The border of nnl_dw_gen_block's padded plane P, which stays zero:
 * the rows above and below the image's, and the columns left and
 * right of them. */
NNL_RT_INLINE void
nnl_dw_gen_border(float *P, const int64_t *ip)
{
	int64_t H = ip[3], W = ip[4], pt = ip[14], pl = ip[16];
	int64_t PH = nnl_dw_ph(ip), PW = nnl_dw_pw(ip);
	int64_t r0 = pt < PH ? pt : PH, r1 = PH - pt < H ? PH : pt + H;
	int64_t c0 = pl < PW ? pl : PW, c1 = PW - pl < W ? PW : pl + W;
	size_t row = (size_t)(PW * NNL_VW) * sizeof *P;

	if (r1 < r0 || c1 <= c0)
		r1 = r0;
	for (int64_t r = 0; r < PH; r++) {
		float *d = P + r * PW * NNL_VW;

		if (r < r0 || r >= r1) {
			memset(d, 0, row);
			continue;
		}
		memset(d, 0, (size_t)(c0 * NNL_VW) * sizeof *P);
		memset(d + c1 * NNL_VW, 0, (size_t)((PW - c1) * NNL_VW) *
		    sizeof *P);
	}
}
#endif

/* Floats of scratch a depthwise nchw convolution takes (a thread; the
 * memory plan gives it that, kern_nn.c): H + 1 rows of nnl_dw_width,
 * or on the stride-2 path the four phase planes and the output rows,
 * or for channel blocks their planes in and out (16 lanes, the widest
 * vectors), if more. */
NNL_RT int64_t
nnl_dw_scratch(const int64_t *ip)
{
	int64_t a = (ip[3] + 1) * nnl_dw_width(ip);
	int64_t b = nnl_dw_s2(ip) ? 5 * nnl_dw_s2_plane(ip) : 0;
	int64_t c = nnl_dw_blockable(ip) ? ((ip[3] + 2) * (ip[4] + 2) +
	    ip[6] * ip[7]) * 16 : 0;
	int64_t d = nnl_dw_blockgen(ip) ? (nnl_dw_ph(ip) * nnl_dw_pw(ip) +
	    ip[6] * ip[7] + ip[8] * ip[9]) * 16 : 0;

	a = a > b ? a : b;
	a = a > c ? a : c;
	return a > d ? a : d;
}

#if NNL_VW > 1
/*
 * A plane of a 3 x 3, stride-2 filter, NNL_VW outputs at a time over
 * the output as one row of its rows, S = OW + 1 floats apart: the
 * input, padded pt above and pl left, is split into four phase planes
 * ph[2 r + c][i][j] = x[2 i + r - pt][2 j + c - pl] (zero outside it),
 * ps floats apart, so that tap (a, b) of output (oy, ox) is phase
 * (a % 2, b % 2) at (oy + a / 2) * S + ox + b / 2: a constant offset
 * from oy * S + ox, with no strided loads and no masks.  The rows go to
 * t, and from there without their last column to y.  The taps are
 * added in the order of nnl_dw_row3x3.
 */
NNL_RT_INLINE void
nnl_dw3x3_s2(const float *x, int64_t H, int64_t W, int64_t OH, int64_t OW,
    int64_t pt, int64_t pl, const nnl_vf *k, float b0, float *ph,
    int64_t ps, float *t, float *y, int64_t act, float lo, float hi)
{
	int64_t S = OW + 1;
	const float *p00 = ph, *p01 = ph + ps, *p10 = ph + 2 * ps;
	const float *p11 = ph + 3 * ps;

	/* rows in order: a vector's lanes past a row's end are the next
	 * row's (or the room past the plane), written after; lanes of
	 * columns past the input's are set to zero after the vector */
	for (int64_t i = 0; i <= OH; i++)
	for (int r = 0; r < 2; r++)
	for (int c = 0; c < 2; c++) {
		int64_t sr = 2 * i + r - pt, j = 0;
		int64_t jmax = (W - c + pl + 1) / 2;	/* columns inside */
		float *d = ph + (2 * r + c) * ps + i * S;
		const float *xr = x + sr * W;

		if (sr < 0 || sr >= H) {
			memset(d, 0, (size_t)S * sizeof *d);
			continue;
		}
		jmax = jmax < S ? jmax : S;
		for (; j < S && 2 * j + c - pl < 0; j++)
			d[j] = 0;
#ifdef NNL_VSHUFFLE
		/* while the two vectors read lie inside the plane */
		for (; j < jmax && sr * W + 2 * (j + NNL_VW) + c - pl <= H * W;
		    j += NNL_VW)
			nnl_vstore(d + j, nnl_vload_s(xr + 2 * j + c - pl, 2));
#endif
		for (; j < jmax; j++)
			d[j] = xr[2 * j + c - pl];
		for (j = jmax; j < S; j++)
			d[j] = 0;
	}
	for (int64_t q = 0; q < OH * S; q += NNL_VW) {
		nnl_vf acc = nnl_vsplat(b0);

		acc += k[0] * nnl_vload(p00 + q);
		acc += k[1] * nnl_vload(p01 + q);
		acc += k[2] * nnl_vload(p00 + q + 1);
		acc += k[3] * nnl_vload(p10 + q);
		acc += k[4] * nnl_vload(p11 + q);
		acc += k[5] * nnl_vload(p10 + q + 1);
		acc += k[6] * nnl_vload(p00 + q + S);
		acc += k[7] * nnl_vload(p01 + q + S);
		acc += k[8] * nnl_vload(p00 + q + S + 1);
		nnl_vstore(t + q, nnl_vclamp(acc, act, lo, hi));
	}
	for (int64_t oy = 0; oy < OH; oy++)
		memcpy(y + oy * OW, t + oy * S, (size_t)OW * sizeof *y);
}
#endif

NNL_RT void
nnl_conv_dw_nchw(const float *x, const float *w, int64_t wc, int64_t wt,
    const float *bias, float *y, const int64_t *ip, int64_t act, float lo,
    float hi, float *pad)
{
	int64_t C = ip[2], H = ip[3], W = ip[4], OH = ip[6], OW = ip[7],
	    kh = ip[8], kw = ip[9], sh = ip[10], sw = ip[11], dh = ip[12],
	    dw = ip[13], pt = ip[14], pl = ip[16];
	int64_t wp = nnl_dw_width(ip);
	int fuse = nnl_act_clamps(act);
#if NNL_VW > 1
	const float *zr = pad + H * wp;		/* a row of zeros */

	memset(pad + H * wp, 0, (size_t)wp * sizeof *pad);
#ifdef NNL_VSHUFFLE
	/* (not in place: it reads rows of x after writing rows of y) */
	if (x != y && nnl_dw3x3_direct(ip)) {
		for (int64_t c = 0; c < C; c++) {
			nnl_vf k[9];

			nnl_dw_taps3x3(w + c * wc, wt, k);
			if (sw == 2)	/* a constant in each */
				nnl_dw3x3_rows(x + c * H * W, H, W, OH, OW, 2,
				    k, bias ? bias[c] : 0, zr, y + c * OH * OW,
				    act, lo, hi);
			else
				nnl_dw3x3_rows(x + c * H * W, H, W, OH, OW, 1,
				    k, bias ? bias[c] : 0, zr, y + c * OH * OW,
				    act, lo, hi);
			if (!fuse)
				nnl_activate(y + c * OH * OW, OH * OW, act, lo,
				    hi);
		}
		return;
	}
	if (nnl_dw_blockable(ip)) {
		/* the border of the padded plane, which stays zero: the
		 * rows above and below, the first and last pixel of each
		 * row between (nnl_dw3x3_block writes the rest) */
		size_t row = (size_t)((W + 2) * NNL_VW) * sizeof *pad;

		memset(pad, 0, row);
		memset(pad + (H + 1) * (W + 2) * NNL_VW, 0, row);
		for (int64_t r = 1; r <= H; r++) {
			float *b = pad + r * (W + 2) * NNL_VW;

			memset(b, 0, NNL_VW * sizeof *pad);
			memset(b + (W + 1) * NNL_VW, 0, NNL_VW * sizeof *pad);
		}
		for (int64_t c = 0; c < C; c += NNL_VW) {
			int64_t nc = C - c < NNL_VW ? C - c : NNL_VW;

			nnl_dw3x3_block(x + c * H * W, w + c * wc, wc, wt,
			    bias ? bias + c : 0, y + c * OH * OW, nc, H, W,
			    OH, OW, sw, pad, act, lo, hi);
			if (!fuse)
				nnl_activate(y + c * OH * OW, nc * OH * OW,
				    act, lo, hi);
		}
		return;
	}
	if (nnl_dw_blockgen(ip)) {
		nnl_dw_gen_border(pad, ip);
		for (int64_t c = 0; c < C; c += NNL_VW) {
			int64_t nc = C - c < NNL_VW ? C - c : NNL_VW;

			nnl_dw_gen_block(x + c * H * W, w + c * wc, wc, wt,
			    bias ? bias + c : 0, y + c * OH * OW, nc, ip, pad,
			    act, lo, hi);
			if (!fuse)
				nnl_activate(y + c * OH * OW, nc * OH * OW,
				    act, lo, hi);
		}
		return;
	}
#endif
	if (nnl_dw_s2(ip)) {
		int64_t ps = nnl_dw_s2_plane(ip), used = (OH + 1) * (OW + 1);

		/* the room past each plane, which its loads may reach */
		for (int q = 0; q < 4; q++)
			memset(pad + q * ps + used, 0, (size_t)(ps - used) *
			    sizeof *pad);
		for (int64_t c = 0; c < C; c++) {
			nnl_vf k[9];

			nnl_dw_taps3x3(w + c * wc, wt, k);
			nnl_dw3x3_s2(x + c * H * W, H, W, OH, OW, pt, pl, k,
			    bias ? bias[c] : 0, pad, ps, pad + 4 * ps,
			    y + c * OH * OW, act, lo, hi);
			if (!fuse)
				nnl_activate(y + c * OH * OW, OH * OW, act, lo,
				    hi);
		}
		return;
	}
#endif
	for (int64_t c = 0; c < C; c++) {
		const float *xc = x + c * H * W, *wp0 = w + c * wc;
		float b0 = bias ? bias[c] : 0;
#if NNL_VW > 1
		nnl_vf k[9];

		if (kh == 3 && kw == 3)
			nnl_dw_taps3x3(wp0, wt, k);
#endif

		/* the channel between its left and right padding, which
		 * stays zero from the first channel on */
		if (c == 0)
			memset(pad, 0, (size_t)(H * wp) * sizeof *pad);
		for (int64_t iy = 0; iy < H; iy++)
			memcpy(pad + iy * wp + pl, xc + iy * W, (size_t)W *
			    sizeof *pad);
		for (int64_t oy = 0; oy < OH; oy++) {
			float *yr = y + (c * OH + oy) * OW;
			int64_t iy0 = oy * sh - pt, a0, a1;

			nnl_dw_taps(iy0, kh, dh, H, &a0, &a1);
#if NNL_VW > 1
			if (kh == 3 && kw == 3) {
				const float *r[3];

				for (int a = 0; a < 3; a++)
					r[a] = a >= a0 && a < a1 ? pad +
					    (iy0 + a * dh) * wp : zr;
				nnl_dw_row3x3(r, k, b0, sw, dw, yr, OW, act,
				    lo, hi);
				if (!fuse)
					nnl_activate(yr, OW, act, lo, hi);
				continue;
			}
			for (int64_t ox = 0; ox < OW; ox += NNL_VW) {
				nnl_vf acc = nnl_vsplat(b0);
				float t[NNL_VW];

				for (int64_t a = a0; a < a1; a++) {
					const float *xr = pad + (iy0 + a * dh) *
					    wp + ox * sw;
					const float *wa = wp0 + a * kw * wt;

					for (int64_t b = 0; b < kw; b++)
						acc += nnl_vsplat(wa[b * wt]) *
						    nnl_vload_s(xr + b * dw, sw);
				}
				acc = nnl_vclamp(acc, act, lo, hi);
				if (ox + NNL_VW <= OW) {
					nnl_vstore(yr + ox, acc);
					continue;
				}
				nnl_vstore(t, acc);
				memcpy(yr + ox, t, (size_t)(OW - ox) *
				    sizeof *t);
			}
#else
			for (int64_t ox = 0; ox < OW; ox++) {
				float s = b0;

				for (int64_t a = a0; a < a1; a++) {
					const float *xr = pad + (iy0 + a * dh) *
					    wp + ox * sw;
					const float *wa = wp0 + a * kw * wt;

					for (int64_t b = 0; b < kw; b++)
						s += wa[b * wt] * xr[b * dw];
				}
				yr[ox] = s;
			}
#endif
			if (!fuse || NNL_VW == 1)
				nnl_activate(yr, OW, act, lo, hi);
		}
	}
}

/* Channels [c, C) of the nhwc output pixel yp, whose taps [a0, a1) x
 * [0, kw) lie inside the image (filter [kh, kw, C], wc 1), one at a
 * time, the fused relu or clamp applied, as nnl_conv_dw_nhwc's scalar
 * loop does. */
NNL_RT_INLINE void
nnl_dw_nhwc_rest(const float *x, const float *w, int64_t wt,
    const float *bias, float *yp, int64_t C, int64_t c, int64_t W,
    int64_t a0, int64_t a1, int64_t kw, int64_t iy0, int64_t dh,
    int64_t ix0, int64_t dw, int64_t act, float lo, float hi)
{
	for (; c < C; c++) {
		float s = bias ? bias[c] : 0;

		for (int64_t a = a0; a < a1; a++)
		for (int64_t b = 0; b < kw; b++)
			s += w[c + (a * kw + b) * wt] *
			    x[((iy0 + a * dh) * W + ix0 + b * dw) * C + c];
		yp[c] = s;
		if (nnl_act_clamps(act))
			nnl_activate(yp + c, 1, act, lo, hi);
	}
}

NNL_RT void
nnl_conv_dw_nhwc(const float *x, const float *w, int64_t wc, int64_t wt,
    const float *bias, float *y, const int64_t *ip, int64_t act, float lo,
    float hi)
{
	int64_t C = ip[2], H = ip[3], W = ip[4], OH = ip[6], OW = ip[7],
	    kh = ip[8], kw = ip[9], sh = ip[10], sw = ip[11], dh = ip[12],
	    dw = ip[13], pt = ip[14], pl = ip[16];
	int fuse = nnl_act_clamps(act);

	for (int64_t oy = 0; oy < OH; oy++)
	for (int64_t ox = 0; ox < OW; ox++) {
		float *yp = y + (oy * OW + ox) * C;
		int64_t iy0 = oy * sh - pt, ix0 = ox * sw - pl, a0, a1, b0, b1;
		int64_t c = 0;

		nnl_dw_taps(iy0, kh, dh, H, &a0, &a1);
		nnl_dw_taps(ix0, kw, dw, W, &b0, &b1);
#if NNL_VW > 1
		/* four pixels whose taps all lie inside the row at once,
		 * each tap's vector loaded once for the four, in the order
		 * of the loop below */
		if (wc == 1 && C >= NNL_VW && ox + 4 <= OW && ix0 >= 0 &&
		    ix0 + 3 * sw + (kw - 1) * dw < W) {
			for (; c < C - C % NNL_VW; c += NNL_VW) {
				nnl_vf acc[4];

				for (int i = 0; i < 4; i++)
					acc[i] = bias ? nnl_vload(bias + c) :
					    nnl_vsplat(0);
				for (int64_t a = a0; a < a1; a++)
				for (int64_t b = 0; b < kw; b++) {
					nnl_vf k = nnl_vload(w + (a * kw + b) *
					    wt + c);
					const float *xp = x + ((iy0 + a * dh) *
					    W + ix0 + b * dw) * C + c;

#pragma GCC unroll 4
					for (int i = 0; i < 4; i++)
						acc[i] += k * nnl_vload(xp +
						    i * sw * C);
				}
				for (int i = 0; i < 4; i++)
					nnl_vstore(yp + i * C + c, nnl_vclamp(
					    acc[i], act, lo, hi));
			}
			for (int i = 0; i < 4; i++) {
				nnl_dw_nhwc_rest(x, w, wt, bias, yp + i * C, C,
				    c, W, a0, a1, kw, iy0, dh, ix0 + i * sw,
				    dw, act, lo, hi);
				if (!fuse)
					nnl_activate(yp + i * C, C, act, lo,
					    hi);
			}
			ox += 3;
			continue;
		}
		for (; wc == 1 && c < C - C % NNL_VW; c += NNL_VW) {
			nnl_vf acc = bias ? nnl_vload(bias + c) :
			    nnl_vsplat(0);

			for (int64_t a = a0; a < a1; a++)
			for (int64_t b = b0; b < b1; b++)
				acc += nnl_vload(w + (a * kw + b) * wt + c) *
				    nnl_vload(x + ((iy0 + a * dh) * W + ix0 +
				    b * dw) * C + c);
			nnl_vstore(yp + c, nnl_vclamp(acc, act, lo, hi));
		}
#endif
		for (; c < C; c++) {
			float s = bias ? bias[c] : 0;

			for (int64_t a = a0; a < a1; a++)
			for (int64_t b = b0; b < b1; b++)
				s += w[c * wc + (a * kw + b) * wt] *
				    x[((iy0 + a * dh) * W + ix0 + b * dw) * C +
				    c];
			yp[c] = s;
			if (fuse)
				nnl_activate(yp + c, 1, act, lo, hi);
		}
		if (!fuse)
			nnl_activate(yp, C, act, lo, hi);
	}
}
