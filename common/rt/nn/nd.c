/*
 * nd: nnl's 3-D convolutions and pools (beyond WebNN), on [N, C, D, H,
 * W] tensors.  conv3d is im2col and the SGEMM of gemm.c, as conv2d,
 * a band of output positions at a time so that the column matrix stays
 * small; convTranspose3d multiplies the filter by a band of the input
 * (SGEMM) and scatters the products into the output (col2im); the
 * pools walk each window over the taps that fall in the input.
 * Float32; float16 through it by the wrappers at the end.
 */
#include "rt.h"
#include "vmath.h"

/* The 3-D geometry the kernels share, read from ip. */
struct nnl_nd {
	int64_t N, C, in[3], O, out[3], k[3], s[3], d[3], pb[3], pe[3];
};

/* ip: N, C, D, H, W, O, OD, OH, OW, kd, kh, kw, strides (3), dilations
 * (3), padding (6: begin and end of D, H and W); the count read. */
NNL_RT_INLINE int
nnl_nd_read(struct nnl_nd *g, const int64_t *ip)
{
	g->N = ip[0];
	g->C = ip[1];
	g->O = ip[5];
	for (int i = 0; i < 3; i++) {
		g->in[i] = ip[2 + i];
		g->out[i] = ip[6 + i];
		g->k[i] = ip[9 + i];
		g->s[i] = ip[12 + i];
		g->d[i] = ip[15 + i];
		g->pb[i] = ip[18 + 2 * i];
		g->pe[i] = ip[19 + 2 * i];
	}
	return 24;
}

/*
 * im2col of one group (icg channels at x) for output positions [p0,
 * p0 + np): row ((c * kd + a) * kh + b) * kw + e of col, np floats,
 * holds the input under tap (a, b, e) of channel c, 0 in the padding.
 */
NNL_RT_INLINE void
nnl_im2col_3d(const struct nnl_nd *g, const float *x, int64_t icg,
    int64_t p0, int64_t np, float *col)
{
	int64_t D = g->in[0], H = g->in[1], W = g->in[2];
	int64_t OH = g->out[1], OW = g->out[2];

	for (int64_t c = 0; c < icg; c++)
	for (int64_t a = 0; a < g->k[0]; a++)
	for (int64_t b = 0; b < g->k[1]; b++)
	for (int64_t e = 0; e < g->k[2]; e++) {
		const float *xc = x + c * D * H * W;
		int64_t od = p0 / (OH * OW), oh = p0 / OW % OH, ow = p0 % OW;

		for (int64_t j = 0; j < np; j++) {
			int64_t id = od * g->s[0] - g->pb[0] + a * g->d[0];
			int64_t ih = oh * g->s[1] - g->pb[1] + b * g->d[1];
			int64_t iw = ow * g->s[2] - g->pb[2] + e * g->d[2];

			*col++ = id >= 0 && id < D && ih >= 0 && ih < H &&
			    iw >= 0 && iw < W ? xc[(id * H + ih) * W + iw] : 0;
			if (++ow == OW) {
				ow = 0;
				if (++oh == OH)
					oh = 0, od++;
			}
		}
	}
}

/*
 * conv3d: the geometry (nnl_nd_read), groups, has bias, band (output
 * positions an im2col holds), activation (nnl-fuse's); fp: its
 * parameters.  in: input, filter [O, C / groups, kd, kh, kw], bias.
 * scratch: SGEMM packing for ocg x band x Kd (for each thread), then
 * the band's im2col.  A 1 x 1 x 1 convolution of stride
 * 1 without padding multiplies the input itself.
 */
NNL_RT void
nnl_k_conv3d_f32(const int64_t *ip, const double *fp, const void *const *in,
    void *const *out, void *scratch)
{
	struct nnl_nd g;
	int64_t k = nnl_nd_read(&g, ip);
	int64_t G = ip[k], hasb = ip[k + 1], nb = ip[k + 2], act = ip[k + 3];
	int64_t icg = g.C / G, ocg = g.O / G;
	int64_t Pi = g.in[0] * g.in[1] * g.in[2];
	int64_t P = g.out[0] * g.out[1] * g.out[2];
	int64_t Kd = icg * g.k[0] * g.k[1] * g.k[2];
	const float *x = in[0], *w = in[1], *bias = hasb ? in[2] : 0;
	float *y = out[0], *pack = scratch;
	float *col = pack + nnl_packsize(ocg, nb, Kd);
	int direct = Kd == icg;

	for (int i = 0; i < 3; i++)
		direct &= g.s[i] == 1 && g.pb[i] == 0 && g.pe[i] == 0;
#ifdef NNL_RT_THREADS
	col += (NNL_RT_THREADS - 1) * (col - pack);
#endif
	for (int64_t n = 0; n < g.N; n++)
	for (int64_t q = 0; q < G; q++) {
		const float *xg = x + (n * g.C + q * icg) * Pi;
		const float *wg = w + q * ocg * Kd;
		float *yg = y + (n * g.O + q * ocg) * P;
		/* from the bias, through the activation, a tile at a time */
		struct nnl_gemm_epi e = { 1, bias ? bias + q * ocg : 0, 0,
		    act, (float)fp[0], (float)fp[1], 0, 0, 0, 0 };

		if (direct) {
			nnl_sgemm(ocg, P, Kd, 1, wg, Kd, 0, xg, P, 0, yg, P,
			    pack, &e);
			continue;
		}
		for (int64_t p0 = 0; p0 < P; p0 += nb) {
			int64_t np = P - p0 < nb ? P - p0 : nb;

			nnl_im2col_3d(&g, xg, icg, p0, np, col);
			nnl_sgemm(ocg, np, Kd, 1, wg, Kd, 0, col, np, 0,
			    yg + p0, P, pack, &e);
		}
	}
}

/*
 * conv_transpose3d: the geometry, groups, has bias, band (input
 * positions a product holds), activation (nnl-fuse's); fp: its
 * parameters.  in: input, filter [C, O / groups, kd, kh, kw], bias.
 * scratch: SGEMM packing for (ocg * taps) x band x icg (for each
 * thread), then the products.  The output starts from the
 * bias; each product of a tap and an input position is added where
 * that tap puts it.
 */
NNL_RT void
nnl_k_conv_transpose3d_f32(const int64_t *ip, const double *fp,
    const void *const *in, void *const *out, void *scratch)
{
	struct nnl_nd g;
	int64_t k = nnl_nd_read(&g, ip);
	int64_t G = ip[k], hasb = ip[k + 1], nb = ip[k + 2], act = ip[k + 3];
	int64_t icg = g.C / G, ocg = g.O / G;
	int64_t D = g.in[0], H = g.in[1], W = g.in[2], Pi = D * H * W;
	int64_t OD = g.out[0], OH = g.out[1], OW = g.out[2], P = OD * OH * OW;
	int64_t T = g.k[0] * g.k[1] * g.k[2], R = ocg * T;
	const float *x = in[0], *w = in[1], *bias = hasb ? in[2] : 0;
	float *y = out[0], *pack = scratch;
	float *col = pack + nnl_packsize(R, nb, icg);
	struct nnl_gemm_epi e = { 1, 0, 0, NNL_ACT_NONE, 0, 0, 0, 0, 0, 0 };

#ifdef NNL_RT_THREADS
	col += (NNL_RT_THREADS - 1) * (col - pack);
#endif
	for (int64_t n = 0; n < g.N; n++)
		for (int64_t o = 0; o < g.O; o++)
			for (int64_t p = 0; p < P; p++)
				y[(n * g.O + o) * P + p] = bias ? bias[o] : 0;
	for (int64_t n = 0; n < g.N; n++)
	for (int64_t q = 0; q < G; q++)
	for (int64_t q0 = 0; q0 < Pi; q0 += nb) {
		int64_t nq = Pi - q0 < nb ? Pi - q0 : nb;
		const float *xg = x + (n * g.C + q * icg) * Pi + q0;
		float *yg = y + (n * g.O + q * ocg) * P;

		/* col[r][j] = sum over c of w[c][r] x[c][q0 + j] */
		nnl_sgemm(R, nq, icg, 1, w + q * icg * R, R, 1, xg, Pi, 0,
		    col, nq, pack, &e);
		for (int64_t r = 0; r < R; r++) {
			int64_t o = r / T, a = r / (g.k[1] * g.k[2]) % g.k[0];
			int64_t b = r / g.k[2] % g.k[1], c = r % g.k[2];
			const float *cr = col + r * nq;
			float *yo = yg + o * P;
			int64_t id = q0 / (H * W), ih = q0 / W % H, iw = q0 % W;

			for (int64_t j = 0; j < nq; j++) {
				int64_t od = id * g.s[0] - g.pb[0] + a * g.d[0];
				int64_t oh = ih * g.s[1] - g.pb[1] + b * g.d[1];
				int64_t ow = iw * g.s[2] - g.pb[2] + c * g.d[2];

				if (od >= 0 && od < OD && oh >= 0 && oh < OH &&
				    ow >= 0 && ow < OW)
					yo[(od * OH + oh) * OW + ow] += cr[j];
				if (++iw == W) {
					iw = 0;
					if (++ih == H)
						ih = 0, id++;
				}
			}
		}
	}
	nnl_activate(y, g.N * g.O * P, act, fp[0], fp[1]);
}

/* The taps [*lo, *hi) of a window starting at o in a dimension of n
 * elements (dilation dl) that fall in [from, to). */
NNL_RT_INLINE void
nnl_nd_taps(int64_t o, int64_t k, int64_t dl, int64_t from, int64_t to,
    int64_t *lo, int64_t *hi)
{
	int64_t a = 0, b = k;

	if (o >= from && o + (k - 1) * dl < to) {	/* all of it */
		*lo = 0;
		*hi = k;
		return;
	}
	if (o < from)
		a = (from - o + dl - 1) / dl;
	if (o + (k - 1) * dl >= to)
		b = to - o <= 0 ? 0 : (to - o + dl - 1) / dl;
	*lo = a;
	*hi = b > a ? b : a;
}

/*
 * pool3d: kind (0 average, 1 Lp, 2 max), the geometry (O = C), count
 * the padding (average), p (Lp).  The taps in the padding are left
 * out; an average divides by the taps inside the input, or with the
 * padding counted by those inside the padded input.  A window without
 * a tap in the input gives 0 (max: -infinity).
 */
NNL_RT void
nnl_k_pool3d_f32(const int64_t *ip, const double *fp, const void *const *in,
    void *const *out, void *scratch)
{
	struct nnl_nd g;
	int64_t kind = ip[0], k = 1 + nnl_nd_read(&g, ip + 1);
	int64_t incl = ip[k], p = ip[k + 1];
	int64_t D = g.in[0], H = g.in[1], W = g.in[2];
	int64_t OD = g.out[0], OH = g.out[1], OW = g.out[2];
	const float *x = in[0];
	float *y = out[0];

	(void)fp;
	(void)scratch;
	for (int64_t pl = 0; pl < g.N * g.C; pl++) {
		const float *xp = x + pl * D * H * W;

		for (int64_t od = 0; od < OD; od++)
		for (int64_t oh = 0; oh < OH; oh++)
		for (int64_t ow = 0; ow < OW; ow++) {
			int64_t o[3] = { od, oh, ow }, lo[3], hi[3], cnt = 1;
			double acc = kind == 2 ? -INFINITY : 0;

			for (int i = 0; i < 3; i++) {
				int64_t st = o[i] * g.s[i] - g.pb[i], a, b;

				nnl_nd_taps(st, g.k[i], g.d[i], 0, g.in[i],
				    &lo[i], &hi[i]);
				if (incl)
					nnl_nd_taps(st, g.k[i], g.d[i],
					    -g.pb[i], g.in[i] + g.pe[i], &a,
					    &b);
				else
					a = lo[i], b = hi[i];
				cnt *= b - a;
			}
			for (int64_t a = lo[0]; a < hi[0]; a++)
			for (int64_t b = lo[1]; b < hi[1]; b++) {
				int64_t r = ((od * g.s[0] - g.pb[0] +
				    a * g.d[0]) * H + oh * g.s[1] - g.pb[1] +
				    b * g.d[1]) * W + ow * g.s[2] - g.pb[2];

				for (int64_t c = lo[2]; c < hi[2]; c++) {
					double v = xp[r + c * g.d[2]];

					if (kind == 2)
						acc = v > acc || v != v ? v :
						    acc;
					else if (kind == 0 || p == 1)
						acc += kind ? fabs(v) : v;
					else
						acc += p == 2 ? v * v :
						    pow(fabs(v), (double)p);
				}
			}
			if (kind == 0)
				acc = cnt ? acc / (double)cnt : 0;
			else if (kind == 1)
				acc = p == 1 ? acc : p == 2 ? sqrt(acc) :
				    pow(acc, 1 / (double)p);
			*y++ = (float)acc;
		}
	}
}

NNL_F16_VIA_F32(conv3d)
NNL_F16_VIA_F32(conv_transpose3d)
NNL_F16_VIA_F32(pool3d)
