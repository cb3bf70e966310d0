/*
 * rnn: convTranspose2d and the recurrent networks (gru, gruCell, lstm,
 * lstmCell), float32.  The cells are the sequence kernels with one step
 * and one direction.  Gate products use the SGEMM of nn.c.
 */
#include "rt.h"
#include "vmath.h"

NNL_RT_INLINE float
nnl_rnnact(int64_t code, float x)
{
	if (code == 0)
		return x > 0 ? x : 0;
	if (code == 1)
		return (float)(1 / (1 + NNL_M(exp)(-(nnl_real)x)));
	return (float)NNL_M(tanh)((nnl_real)x);
}

/* gates[b][j] (row length n) += x[b][:] . W[row0 + j][:] for j < n. */
NNL_RT_INLINE void
nnl_rowdot(float *gates, int64_t ldg, const float *x, int64_t B, int64_t K,
    const float *w, int64_t n)
{
	for (int64_t b = 0; b < B; b++)
		for (int64_t j = 0; j < n; j++) {
			const float *wr = w + j * K, *xr = x + b * K;
			float s = 0;

			for (int64_t k = 0; k < K; k++)
				s += xr[k] * wr[k];
			gates[b * ldg + j] += s;
		}
}

/*
 * gru: steps, D, B, I, H, direction (0 forward, 1 backward, 2 both),
 * reset after, layout (0 zrn, 1 rzn), activations f, g, has bias, has
 * recurrent bias, has initial state, return sequence.
 * in: input, weight, recurrent weight, bias, recurrent bias, initial
 * hidden state.  out: hidden [D, B, H], sequence [steps, D, B, H].
 * scratch: 5 * B * H floats.
 */
NNL_RT void
nnl_k_gru_f32(const int64_t *ip, const double *fp, const void *const *in,
    void *const *out, void *scratch)
{
	int64_t steps = ip[0], D = ip[1], B = ip[2], I = ip[3], H = ip[4],
	    dir = ip[5], after = ip[6], rzn = ip[7], fa = ip[8], ga = ip[9],
	    hb = ip[10], hrb = ip[11], hinit = ip[12], seq = ip[13];
	const float *x = in[0], *W = in[1], *R = in[2];
	const float *bias = hb ? in[3] : 0, *rbias = hrb ? in[4] : 0;
	const float *init = hinit ? in[5] : 0;
	float *hout = out[0], *sout = seq ? out[1] : 0;
	float *h = scratch, *gx = h + B * H, *gh = gx + 3 * B * H;
	int64_t zi = rzn ? 1 : 0, ri = rzn ? 0 : 1;

	(void)fp;
	for (int64_t d = 0; d < D; d++) {
		const float *w = W + d * 3 * H * I, *r = R + d * 3 * H * H;
		const float *bd = bias ? bias + d * 3 * H : 0;
		const float *rbd = rbias ? rbias + d * 3 * H : 0;
		int back = dir == 1 || d == 1;

		for (int64_t i = 0; i < B * H; i++)
			h[i] = init ? init[d * B * H + i] : 0;
		for (int64_t s = 0; s < steps; s++) {
			int64_t t = back ? steps - 1 - s : s;

			memset(gx, 0, (size_t)(3 * B * H) * sizeof *gx);
			memset(gh, 0, (size_t)(B * H) * sizeof *gh);
			nnl_rowdot(gx, 3 * H, x + t * B * I, B, I, w, 3 * H);
			/* z and r take the recurrent product directly; the
			 * new gate's, gh, is kept apart */
			nnl_rowdot(gx, 3 * H, h, B, H, r, 2 * H);
			nnl_rowdot(gh, H, h, B, H, r + 2 * H * H, H);
			for (int64_t b = 0; b < B; b++)
				for (int64_t j = 0; j < H; j++) {
					float *g = gx + b * 3 * H;
					float z = g[zi * H + j], rr = g[ri * H + j];
					float n = g[2 * H + j], hr = gh[b * H + j];

					if (bd) {
						z += bd[zi * H + j];
						rr += bd[ri * H + j];
						n += bd[2 * H + j];
					}
					if (rbd) {
						z += rbd[zi * H + j];
						rr += rbd[ri * H + j];
					}
					z = nnl_rnnact(fa, z);
					rr = nnl_rnnact(fa, rr);
					if (after)
						n += rr * (hr + (rbd ?
						    rbd[2 * H + j] : 0));
					g[2 * H + j] = n;
					g[zi * H + j] = z;
					g[ri * H + j] = rr;
				}
			if (!after) {
				/* n += (r * h) . Rn + rbn, per batch row */
				for (int64_t b = 0; b < B; b++)
					for (int64_t j = 0; j < H; j++) {
						const float *rn = r + (2 * H + j) * H;
						const float *g = gx + b * 3 * H;
						float s2 = rbd ? rbd[2 * H + j] : 0;

						for (int64_t k = 0; k < H; k++)
							s2 += g[ri * H + k] *
							    h[b * H + k] * rn[k];
						gx[b * 3 * H + 2 * H + j] += s2;
					}
			}
			for (int64_t b = 0; b < B; b++)
				for (int64_t j = 0; j < H; j++) {
					const float *g = gx + b * 3 * H;
					float z = g[zi * H + j];
					float n = nnl_rnnact(ga, g[2 * H + j]);

					h[b * H + j] = (1 - z) * n + z *
					    h[b * H + j];
				}
			if (sout)
				memcpy(sout + (t * D + d) * B * H, h,
				    (size_t)(B * H) * sizeof *h);
		}
		memcpy(hout + d * B * H, h, (size_t)(B * H) * sizeof *h);
	}
}

/*
 * lstm: steps, D, B, I, H, direction (0 forward, 1 backward, 2 both),
 * layout (0 iofg, 1 ifgo), activations f, g, h, has bias, has recurrent
 * bias, has peephole, has initial hidden, has initial cell, return
 * sequence.  in: input, weight, recurrent weight, bias, recurrent bias,
 * peephole, initial hidden, initial cell.  out: hidden [D, B, H], cell
 * [D, B, H], sequence [steps, D, B, H].  scratch: 6 * B * H floats.
 */
NNL_RT void
nnl_k_lstm_f32(const int64_t *ip, const double *fp, const void *const *in,
    void *const *out, void *scratch)
{
	int64_t steps = ip[0], D = ip[1], B = ip[2], I = ip[3], H = ip[4],
	    dir = ip[5], ifgo = ip[6], fa = ip[7], ga = ip[8], ha = ip[9],
	    hb = ip[10], hrb = ip[11], hp = ip[12], hih = ip[13],
	    hic = ip[14], seq = ip[15];
	const float *x = in[0], *W = in[1], *R = in[2];
	const float *bias = hb ? in[3] : 0, *rbias = hrb ? in[4] : 0;
	const float *peep = hp ? in[5] : 0;
	const float *ih = hih ? in[6] : 0, *ic = hic ? in[7] : 0;
	float *hout = out[0], *cout = out[1], *sout = seq ? out[2] : 0;
	float *h = scratch, *cs = h + B * H, *gx = cs + B * H;
	/* block of each gate in the weights: i, o, f, g */
	int64_t bi = 0, bo = ifgo ? 3 : 1, bf = ifgo ? 1 : 2,
	    bg = ifgo ? 2 : 3;

	(void)fp;
	for (int64_t d = 0; d < D; d++) {
		const float *w = W + d * 4 * H * I, *r = R + d * 4 * H * H;
		const float *bd = bias ? bias + d * 4 * H : 0;
		const float *rbd = rbias ? rbias + d * 4 * H : 0;
		const float *pd = peep ? peep + d * 3 * H : 0;
		int back = dir == 1 || d == 1;

		for (int64_t i = 0; i < B * H; i++) {
			h[i] = ih ? ih[d * B * H + i] : 0;
			cs[i] = ic ? ic[d * B * H + i] : 0;
		}
		for (int64_t s = 0; s < steps; s++) {
			int64_t t = back ? steps - 1 - s : s;

			memset(gx, 0, (size_t)(4 * B * H) * sizeof *gx);
			nnl_rowdot(gx, 4 * H, x + t * B * I, B, I, w, 4 * H);
			nnl_rowdot(gx, 4 * H, h, B, H, r, 4 * H);
			for (int64_t b = 0; b < B; b++)
				for (int64_t j = 0; j < H; j++) {
					float *g = gx + b * 4 * H;
					float gi = g[bi * H + j], go = g[bo * H + j];
					float gf = g[bf * H + j], gg = g[bg * H + j];
					float c = cs[b * H + j];

					if (bd) {
						gi += bd[bi * H + j];
						go += bd[bo * H + j];
						gf += bd[bf * H + j];
						gg += bd[bg * H + j];
					}
					if (rbd) {
						gi += rbd[bi * H + j];
						go += rbd[bo * H + j];
						gf += rbd[bf * H + j];
						gg += rbd[bg * H + j];
					}
					/* peepholes: i, o, f */
					if (pd) {
						gi += pd[j] * c;
						gf += pd[2 * H + j] * c;
					}
					gi = nnl_rnnact(fa, gi);
					gf = nnl_rnnact(fa, gf);
					gg = nnl_rnnact(ga, gg);
					c = gf * c + gi * gg;
					if (pd)
						go += pd[H + j] * c;
					go = nnl_rnnact(fa, go);
					cs[b * H + j] = c;
					h[b * H + j] = go * nnl_rnnact(ha, c);
				}
			if (sout)
				memcpy(sout + (t * D + d) * B * H, h,
				    (size_t)(B * H) * sizeof *h);
		}
		memcpy(hout + d * B * H, h, (size_t)(B * H) * sizeof *h);
		memcpy(cout + d * B * H, cs, (size_t)(B * H) * sizeof *cs);
	}
}

/*
 * conv_transpose2d: nhwc, N, C, H, W, O, OH, OW, kh, kw, sh, sw, dh,
 * dw, pt, pb, pl, pr, groups, filter layout (0 iohw, 1 hwoi, 2 ohwi),
 * has bias, activation; fp: activation parameters.  Each input element
 * scatters its products into the output.
 */
NNL_RT void
nnl_k_conv_transpose2d_f32(const int64_t *ip, const double *fp,
    const void *const *in, void *const *out, void *scratch)
{
	int64_t nhwc = ip[0], N = ip[1], C = ip[2], H = ip[3], W = ip[4],
	    O = ip[5], OH = ip[6], OW = ip[7], kh = ip[8], kw = ip[9],
	    sh = ip[10], sw = ip[11], dh = ip[12], dw = ip[13], pt = ip[14],
	    pl = ip[16], G = ip[18], fl = ip[19], hasb = ip[20],
	    act = ip[21];
	const float *x = in[0], *w = in[1], *bias = hasb ? in[2] : 0;
	float *y = out[0];
	int64_t icg = C / G, ocg = O / G;

	(void)scratch;
	for (int64_t n = 0; n < N; n++)
		for (int64_t o = 0; o < O; o++)
			for (int64_t p = 0; p < OH * OW; p++)
				y[nhwc ? (n * OH * OW + p) * O + o :
				    (n * O + o) * OH * OW + p] =
				    bias ? bias[o] : 0;
	for (int64_t n = 0; n < N; n++)
	for (int64_t ch = 0; ch < C; ch++) {
		int64_t g = ch / icg;

		for (int64_t iy = 0; iy < H; iy++)
		for (int64_t ix = 0; ix < W; ix++) {
			float v = x[nhwc ? ((n * H + iy) * W + ix) * C + ch :
			    ((n * C + ch) * H + iy) * W + ix];

			for (int64_t a = 0; a < kh; a++) {
				int64_t oy = iy * sh + a * dh - pt;

				if (oy < 0 || oy >= OH)
					continue;
				for (int64_t b = 0; b < kw; b++) {
					int64_t ox = ix * sw + b * dw - pl;

					if (ox < 0 || ox >= OW)
						continue;
					for (int64_t q = 0; q < ocg; q++) {
						int64_t oc = g * ocg + q;
						float wv = w[fl == 0 ?
						    ((ch * ocg + q) * kh + a) * kw + b :
						    fl == 1 ?
						    ((a * kw + b) * ocg + q) * C + ch :
						    ((q * kh + a) * kw + b) * C + ch];

						y[nhwc ? ((n * OH + oy) * OW + ox) *
						    O + oc : ((n * O + oc) * OH +
						    oy) * OW + ox] += v * wv;
					}
				}
			}
		}
	}
	nnl_activate(y, N * O * OH * OW, act, fp[0], fp[1]);
}

NNL_F16_VIA_F32(conv_transpose2d)
