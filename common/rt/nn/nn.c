/*
 * nn: the compute-heavy kernels: conv2d, gemm and matmul on the SGEMM
 * of gemm.c (conv2d through im2col, skipped for 1x1 convolutions), the
 * pools, normalizations, pad and resample2d.
 * Float32 throughout; float16 operands go through the f32 kernels by
 * the wrappers at the end.  A fused activation (the fuse pass) is
 * applied as an epilogue: code and its two parameters.
 */
#include "rt.h"
#include "vmath.h"

/*
 * im2col of one group of an nchw image, for output rows [oy0, oy0 +
 * OH): row kd = (c, a, b) of col holds, for each of those output
 * positions, the input under filter tap (a, b) of channel c, or 0 in
 * the padding; copied a row span at a time.
 */
NNL_RT_INLINE void
nnl_im2col_nchw(const float *x, int64_t icg, int64_t H, int64_t W,
    int64_t oy0, int64_t OH, int64_t OW, int64_t kh, int64_t kw, int64_t sh,
    int64_t sw, int64_t dh, int64_t dw, int64_t pt, int64_t pl, float *col)
{
	for (int64_t c = 0; c < icg; c++)
	for (int64_t a = 0; a < kh; a++)
	for (int64_t b = 0; b < kw; b++) {
		int64_t lo, hi;

		nnl_conv_span(OW, W, sw, pl, b * dw, &lo, &hi);
		for (int64_t oy = oy0; oy < oy0 + OH; oy++, col += OW) {
			int64_t iy = oy * sh - pt + a * dh, r;

			if (iy < 0 || iy >= H) {
				memset(col, 0, (size_t)OW * sizeof *col);
				continue;
			}
			r = (c * H + iy) * W - pl + b * dw;
			for (int64_t ox = 0; ox < lo; ox++)
				col[ox] = 0;
			if (sw == 1 && hi > lo)
				memcpy(col + lo, x + r + lo,
				    (size_t)(hi - lo) * sizeof *col);
			else {
				int64_t ox = lo;
#if NNL_VW > 1 && defined(NNL_VSHUFFLE)
				/* stride 2: the even lanes of two vectors,
				 * while both lie inside the input row */
				for (; sw == 2 && ox + NNL_VW <= hi &&
				    b * dw - pl + 2 * (ox + NNL_VW) <= W;
				    ox += NNL_VW)
					nnl_vstore(col + ox,
					    nnl_vload_s(x + r + 2 * ox, 2));
#endif
				for (; ox < hi; ox++)
					col[ox] = x[r + ox * sw];
			}
			for (int64_t ox = hi; ox < OW; ox++)
				col[ox] = 0;
		}
	}
}

#ifdef NNL_RT_THREADS
/* im2col and depthwise convolutions split by channels over the pool
 * (par.c), called as the functions they split */
#define nnl_im2col_nchw nnl_par_im2col
#define nnl_conv_dw_nchw nnl_par_dw_nchw
#endif

#if NNL_VW > 1 && defined(NNL_VSHUFFLE)
/* Output channels a group of nnl_conv_stem takes at a time, an
 * accumulator each (AVX2's 16 registers hold 8 and what else the loop
 * needs). */
#if NNL_VW == 16
#define NNL_STEM_G 16
#else
#define NNL_STEM_G 8
#endif

/*
 * Whether nnl_conv_stem takes an nchw conv2d (ip as nnl_k_conv2d_f32's):
 * a network's first layer, a 3 x 3 filter at stride 2 over at most 4
 * channels, one group, the filter oihw or ihwo, padding 0 or 1 above
 * and left, rows of at least NNL_VW outputs whose windows' columns lie
 * in the image (the padding past its right edge is not read).  im2col
 * would copy the image 2.25 times for a product of only 27 or so
 * steps.
 */
NNL_RT_INLINE int
nnl_conv_stem_ok(const int64_t *ip)
{
	int64_t W = ip[4], OW = ip[7], pl = ip[16];

	return !ip[0] && ip[2] <= 4 && ip[8] == 3 && ip[9] == 3 &&
	    ip[10] == 2 && ip[11] == 2 && ip[12] == 1 && ip[13] == 1 &&
	    (ip[14] == 0 || ip[14] == 1) && (pl == 0 || pl == 1) &&
	    ip[18] == 1 && (ip[19] == 0 || ip[19] == 3) && OW >= NNL_VW &&
	    2 * OW - pl <= W - 1;
}

/*
 * Output rows [oy0, oy1) of an image's convolution nnl_conv_stem_ok
 * takes, straight from the image: for each vector of NNL_VW output
 * columns (and one more ending at a ragged row's end) and each group of
 * NNL_STEM_G output channels, the 3 x 3 x C input vectors, every other
 * column of an input row (the odd lanes of two vectors from one column
 * before, or at the row's start the even lanes, or past the left edge
 * those shifted one lane up past a zero), each into the group's
 * accumulators by its taps.  Rows of padding add nothing.  The taps
 * are added in the filter's order (c, a, b) as im2col's product adds
 * them.  A last group of fewer channels computes the group's others
 * with the last channel's taps and does not store them.
 */
NNL_RT_INLINE void
nnl_conv_stem(const float *x, const float *w, const float *bias, float *y,
    const int64_t *ip, int64_t oy0, int64_t oy1, int64_t act, float lo,
    float hi)
{
	int64_t C = ip[2], H = ip[3], W = ip[4], O = ip[5], OH = ip[6],
	    OW = ip[7], pt = ip[14], pl = ip[16], wko = ip[19] == 3;
	int64_t Kd = C * 9, P = OH * OW;
	nnl_vf z = nnl_vsplat(0);

	for (int64_t og = 0; og < O; og += NNL_STEM_G) {
		/* the group's taps, tap t of channel o at wk[t][o] */
		float wk[36][NNL_STEM_G], bk[NNL_STEM_G];

		for (int o = 0; o < NNL_STEM_G; o++) {
			int64_t oc = og + o < O ? og + o : O - 1;

			for (int64_t t = 0; t < Kd; t++)
				wk[t][o] = w[wko ? t * O + oc : oc * Kd + t];
			bk[o] = bias ? bias[oc] : 0;
		}
		for (int64_t oy = oy0; oy < oy1; oy++)
		for (int64_t ox = 0; ox < OW; ox += NNL_VW) {
			nnl_vf acc[NNL_STEM_G];

			if (ox + NNL_VW > OW)
				ox = OW - NNL_VW;	/* the ragged end */
#pragma GCC unroll 16
			for (int o = 0; o < NNL_STEM_G; o++)
				acc[o] = nnl_vsplat(bk[o]);
			for (int64_t c = 0; c < C; c++)
			for (int64_t a = 0; a < 3; a++) {
				int64_t iy = 2 * oy - pt + a;
				const float *r, *q = wk[(c * 3 + a) * 3];
				nnl_vf v[3];

				if (iy < 0 || iy >= H)
					continue;
				r = x + (c * H + iy) * W;
#pragma GCC unroll 3
				for (int b = 0; b < 3; b++) {
					int64_t s = 2 * ox + b - pl;

					v[b] = s >= 1 ? __builtin_shufflevector(
					    nnl_vload(r + s - 1),
					    nnl_vload(r + s - 1 + NNL_VW),
					    NNL_VODD) : s == 0 ?
					    nnl_vload_s(r, 2) : z;
				}
				if (2 * ox - pl < 0)	/* column -1 */
					v[0] = __builtin_shufflevector(z, v[2],
					    NNL_VUP);
#pragma GCC unroll 3
				for (int b = 0; b < 3; b++)
#pragma GCC unroll 16
				for (int o = 0; o < NNL_STEM_G; o++)
					acc[o] += nnl_vsplat(q[b * NNL_STEM_G +
					    o]) * v[b];
			}
#pragma GCC unroll 16
			for (int o = 0; o < NNL_STEM_G; o++)
				if (og + o < O)
					nnl_vstore(y + (og + o) * P + oy * OW +
					    ox, nnl_vclamp(acc[o], act, lo,
					    hi));
		}
	}
}
#endif

/* y = act(y + r) over n floats: the residual of a path that has no
 * place for it in its epilogue, which then ran without the activation */
static void
nnl_conv_res(float *y, const float *r, int64_t n, int64_t act, float lo,
    float hi)
{
#ifdef NNL_RT_THREADS
	if (nnl_par_addact(y, r, n, act, lo, hi))
		return;
#endif
	nnl_addact(y, r, n, act, lo, hi);
}

/*
 * conv2d: nhwc, N, C, H, W, O, OH, OW, kh, kw, sh, sw, dh, dw, pt, pb,
 * pl, pr, groups, filter layout (0 oihw, 1 hwio, 2 ohwi, 3 ihwo, 4
 * Winograd's F(2 x 2, 3 x 3) [4, 4, I, O] from nnl-fuse: rt/f32-winograd/wino.c, 5
 * [O / 32][I][kh][kw][32] from nnl-fuse, for the flipped form), has
 * bias, activation; fp: activation parameters.  in: input, filter,
 * bias, residual (nnl-fuse's: added after the bias, before the
 * activation; null for none).  scratch: SGEMM packing, then im2col
 * rows (see prepare); for a depthwise nchw one, nnl_dw_scratch floats;
 * where nnl_conv_flip, then the transposed output.
 * Unit-stride unpadded 1x1 convolutions multiply the image itself;
 * depthwise ones run dwconv.c's kernels, without the SGEMM.
 */
NNL_RT void
nnl_k_conv2d_f32(const int64_t *ip, const double *fp, const void *const *in,
    void *const *out, void *scratch)
{
	int64_t nhwc = ip[0], N = ip[1], C = ip[2], H = ip[3], W = ip[4],
	    O = ip[5], OH = ip[6], OW = ip[7], kh = ip[8], kw = ip[9],
	    sh = ip[10], sw = ip[11], dh = ip[12], dw = ip[13], pt = ip[14],
	    pl = ip[16], G = ip[18], fl = ip[19], hasb = ip[20],
	    act = ip[21];
	const float *x = in[0], *w = in[1], *bias = hasb ? in[2] : 0;
	const float *res = in[3];
	/* the activation of the paths that add the residual after */
	int64_t pact = res ? NNL_ACT_NONE : act;
	int64_t icg = C / G, ocg = O / G, P = OH * OW, Kd = icg * kh * kw;
	int hwi = fl == 1 || fl == 2;		/* kd order h, w, i */
	/* filter is [Kd, O] (5: in panels of 32 columns, nnl-fuse's) */
	int wko = fl == 1 || fl == 3 || fl == 5;
	float *y = out[0], *pack = scratch;
	int flip = nnl_conv_flip(nhwc, P, ocg, Kd);	/* output [P, O] */
	int direct = kh == 1 && kw == 1 && sh == 1 && sw == 1 &&
	    ip[14] == 0 && ip[15] == 0 && ip[16] == 0 && ip[17] == 0 &&
	    G == 1;
	/* columns of a band (see prepare) */
	int64_t nb = !nhwc && !flip && !direct ? nnl_conv_band(Kd, OH, OW) *
	    OW : P;
	float *col = pack + (nhwc || flip ? nnl_packsize(P, ocg, Kd) :
	    nnl_packsize(ocg, nb, Kd));
	int depthwise = icg == 1 && ocg == 1;

	if (fl == 4) {	/* Winograd's transformed filter: rt/f32-winograd/wino.c */
		for (int64_t n = 0; n < N; n++)
			nnl_conv_wino_nchw(x + n * C * H * W, w, bias,
			    y + n * O * P, C, H, W, O, OH, OW, pt, pl, pact,
			    (float)fp[0], (float)fp[1], scratch);
		if (res)
			nnl_conv_res(y, res, N * O * P, act, (float)fp[0],
			    (float)fp[1]);
		return;
	}
#ifdef NNL_RT_THREADS
	/* a packing space for each thread of a product (par.c) */
	col += (NNL_RT_THREADS - 1) * (col - pack);
#endif
#if NNL_VW > 1 && defined(NNL_VSHUFFLE)
	if (nnl_conv_stem_ok(ip)) {
		for (int64_t n = 0; n < N; n++) {
#ifdef NNL_RT_THREADS
			if (nnl_par_stem(x + n * C * H * W, w, bias,
			    y + n * O * P, ip, pact, (float)fp[0],
			    (float)fp[1]))
				continue;
#endif
			nnl_conv_stem(x + n * C * H * W, w, bias,
			    y + n * O * P, ip, 0, OH, pact, (float)fp[0],
			    (float)fp[1]);
		}
		if (res)
			nnl_conv_res(y, res, N * O * P, act, (float)fp[0],
			    (float)fp[1]);
		else if (!nnl_act_clamps(act))
			nnl_activate(y, N * O * P, act, (float)fp[0],
			    (float)fp[1]);
		return;
	}
#endif
	if (depthwise) {
		for (int64_t n = 0; n < N; n++)
			if (nhwc)
				nnl_conv_dw_nhwc(x + n * C * H * W, w,
				    wko ? 1 : kh * kw, wko ? O : 1, bias,
				    y + n * O * P, ip, pact, (float)fp[0],
				    (float)fp[1]);
			else
				nnl_conv_dw_nchw(x + n * C * H * W, w,
				    wko ? 1 : kh * kw, wko ? O : 1, bias,
				    y + n * O * P, ip, pact, (float)fp[0],
				    (float)fp[1], scratch);
		if (res)
			nnl_conv_res(y, res, N * O * P, act, (float)fp[0],
			    (float)fp[1]);
		return;
	}
	for (int64_t n = 0; n < N; n++) {
		const float *xn = x + n * C * H * W;
		float *yn = y + n * O * P;

		for (int64_t g = 0; g < G; g++) {
			const float *cm = xn, *bg = bias ? bias + g * ocg : 0;
			/* the group's filter, its rows ldw floats apart */
			const float *wg = wko ? w + g * ocg : w + g * ocg * Kd;
			const float *xg = xn + g * icg * H * W;
			float *yg = yn + g * ocg * P;
			int64_t ldw = wko ? O : Kd;
			/* the group's output in y (nhwc: its channels of
			 * each row) and in the residual */
			float *yo = nhwc ? yn + g * ocg : yg;
			const float *rg = res ? res + (yo - y) : 0;
			/* from the bias (or zero), plus the residual,
			 * through the activation */
			struct nnl_gemm_epi e = { 1, nhwc ? 0 : bg,
			    nhwc ? bg : 0, act, (float)fp[0], (float)fp[1],
			    0, 0, 0, rg };

			if (!direct && !nhwc && !flip) {
				/* im2col and product a band of output rows
				 * at a time, the band's col in cache */
				int64_t ny = nnl_conv_band(Kd, OH, OW);

#ifdef NNL_RT_THREADS
				/* whole bands a thread (par.c) */
				struct nnl_conv_bands cb = {
					xg, wg, yg, col, pack, icg, H, W, OH,
					OW, kh, kw, sh, sw, dh, dw, pt, pl,
					ocg, Kd, ldw, wko, P, ny, ny * OW,
					nnl_packsize(ocg, ny * OW, Kd), &e };

				if (nnl_par_bands(&cb))
					continue;
#endif
				for (int64_t oy = 0; oy < OH; oy += ny) {
					int64_t rows = OH - oy < ny ? OH - oy :
					    ny;
					struct nnl_gemm_epi eb = e;

					if (rg)
						eb.res = rg + oy * OW;
					nnl_im2col_nchw(xg, icg, H, W, oy,
					    rows, OW, kh, kw, sh, sw, dh, dw,
					    pt, pl, col);
					nnl_sgemm(ocg, rows * OW, Kd, 1, wg,
					    ldw, wko, col, rows * OW, 0,
					    yg + oy * OW, P, pack, &eb);
				}
				continue;
			}
			if (!direct && !nhwc) {
				nnl_im2col_nchw(xg, icg, H, W, 0, OH, OW, kh,
				    kw, sh, sw, dh, dw, pt, pl, col);
				cm = col;
			} else if (!direct) {
				/* col[p][kd]; kd runs over (i,h,w) or
				 * (h,w,i) */
				for (int64_t c = 0; c < icg; c++)
				for (int64_t a = 0; a < kh; a++)
				for (int64_t b = 0; b < kw; b++) {
					int64_t kd = hwi ? (a * kw + b) * icg + c :
					    (c * kh + a) * kw + b;
					int64_t ch = g * icg + c;

					for (int64_t oy = 0; oy < OH; oy++)
					for (int64_t ox = 0; ox < OW; ox++) {
						int64_t iy = oy * sh - pt + a * dh;
						int64_t ix = ox * sw - pl + b * dw;
						int64_t p = oy * OW + ox;
						float v = 0;

						if (iy >= 0 && iy < H && ix >= 0 &&
						    ix < W)
							v = xn[(iy * W + ix) * C +
							    ch];
						col[p * Kd + kd] = v;
					}
				}
				cm = col;
			}
			if (flip) {
				/* the output transposed, after col */
				float *t = col + (direct ? 0 : Kd * P);

				e.rb = 0;
				e.cb = bg;
				e.packb = fl != 5;
				e.bp32 = fl == 5;
				/* the residual after the transposition */
				e.res = 0;
				e.act = pact;
#ifdef NNL_RT_THREADS
				/* each thread transposes its columns (par.c) */
				if (nnl_par_flip(P, ocg, Kd, cm, P, wg, ldw,
				    !wko, t, pack, &e, yg)) {
					if (rg)
						nnl_conv_res(yg, rg, ocg * P,
						    act, (float)fp[0],
						    (float)fp[1]);
					continue;
				}
#endif
				nnl_sgemm(P, ocg, Kd, 1, cm, P, 1, wg, ldw,
				    !wko, t, ocg, pack, &e);
				nnl_transpose_part(ocg, 0, P, 0, ocg, t, yg, P);
				if (rg)
					nnl_conv_res(yg, rg, ocg * P, act,
					    (float)fp[0], (float)fp[1]);
			} else if (nhwc)
				nnl_sgemm(P, ocg, Kd, 1, cm, direct ? C : Kd,
				    0, wg, ldw, !wko, yn + g * ocg, O, pack,
				    &e);
			else {
				/* the image, packed where enough row tiles
				 * of the filter read each panel */
				e.packb = ocg >= 64;
				nnl_sgemm(ocg, P, Kd, 1, wg, ldw, wko, cm, P,
				    0, yg, P, pack, &e);
			}
		}
	}
}

/*
 * gemm: M, N, K, aTranspose, bTranspose, has c, c row stride, c column
 * stride (0 where c broadcasts), activation; fp: alpha, beta,
 * activation parameters.  in: a, b, c.  scratch: SGEMM packing.
 */
NNL_RT void
nnl_k_gemm_f32(const int64_t *ip, const double *fp, const void *const *in,
    void *const *out, void *scratch)
{
	int64_t M = ip[0], N = ip[1], K = ip[2], ta = ip[3], tb = ip[4],
	    hasc = ip[5], cs0 = ip[6], cs1 = ip[7], act = ip[8];
	const float *a = in[0], *b = in[1], *c = hasc ? in[2] : 0;
	float *y = out[0];
	struct nnl_gemm_epi e = { 1, 0, 0, act, (float)fp[2], (float)fp[3],
	    0, 0, 0, 0 };
	nnl_real beta = (nnl_real)fp[1];

	/* a bias row or column starts the tiles; any other c, C itself */
	if (c && beta == 1 && cs0 == 0 && (cs1 == 1 || N == 1))
		e.cb = c;
	else if (c && beta == 1 && cs1 == 0 && (cs0 == 1 || M == 1))
		e.rb = c;
	else if (c) {
		e.init = 0;
		for (int64_t i = 0; i < M; i++)
			for (int64_t j = 0; j < N; j++)
				y[i * N + j] = (float)(beta * c[i * cs0 +
				    j * cs1]);
	}
	nnl_sgemm(M, N, K, (float)fp[0], a, ta ? M : K, (int)ta, b,
	    tb ? K : N, (int)tb, y, N, scratch, &e);
}

/*
 * matmul: M, N, K, batch rank R, output batch dims[R], a's batch
 * strides[R], b's batch strides[R] (0 where broadcast), lda, a
 * transposed, ldb, b transposed (a matrix of a view nnl-fuse folded a
 * transpose into is stored by rows or by columns, kern_nn.c), rows of
 * one product for all batches (0: a product a batch) and their stride,
 * activation, has bias; fp: activation parameters.  in: a, b, bias
 * (nnl-fuse's: [N], added to each row in the epilogue).  scratch:
 * SGEMM packing for that many rows.
 *
 * Where b is one matrix for every batch and a's rows follow one another
 * at one stride, the batches are one product (a Linear layer over [S,
 * B, E] is one product of S * B rows, not S products of B rows that each
 * read all of b).  B is packed where enough row tiles read each panel:
 * in place, its rows are N floats apart and every step of K a new line.
 */
NNL_RT void
nnl_k_matmul_f32(const int64_t *ip, const double *fp, const void *const *in,
    void *const *out, void *scratch)
{
	int64_t M = ip[0], N = ip[1], K = ip[2], R = ip[3];
	const int64_t *ob = ip + 4, *as = ob + R, *bs = as + R, *q = bs + R;
	int64_t lda = q[0], ta = q[1], ldb = q[2], tb = q[3], rows = q[4];
	int64_t nb = nnl_numel((int)R, ob);
	const float *a = in[0], *b = in[1];
	float *y = out[0];
	struct nnl_gemm_epi e = { 1, 0, q[7] ? in[2] : 0, q[6],
	    (float)fp[0], (float)fp[1], 0, 0, 0, 0 };

	if (rows) {
		e.packb = rows >= 32;
		nnl_sgemm(rows, N, K, 1, a, q[5], 0, b, ldb, (int)tb, y, N,
		    scratch, &e);
		return;
	}
	e.packb = M >= 32;
	for (int64_t t = 0; t < nb; t++) {
		int64_t ai, bi;

		nnl_batchoff(t, R, ob, as, bs, &ai, &bi);
		nnl_sgemm(M, N, K, 1, a + ai, lda, (int)ta, b + bi, ldb,
		    (int)tb, y + t * M * N, N, scratch, &e);
	}
}

/*
 * Max pooling of nchw planes by 2 x 2 windows at stride 2 without
 * padding (the first OH x OW windows; an odd last row or column is
 * left out by the floor rounding): an output row from two input rows,
 * NNL_VW outputs from 2 NNL_VW columns of each, the even and the odd
 * columns as strided loads.  As the general path, NaN never wins
 * (v > acc) and an all-NaN window gives -inf.
 */
NNL_RT_INLINE void
nnl_maxpool_2x2(int64_t C, int64_t H, int64_t W, int64_t OH, int64_t OW,
    const float *x, float *y)
{
	for (int64_t c = 0; c < C; c++)
	for (int64_t oy = 0; oy < OH; oy++) {
		const float *r0 = x + (c * H + 2 * oy) * W, *r1 = r0 + W;
		float *yr = y + (c * OH + oy) * OW;
		int64_t ox = 0;

#if NNL_VW > 1 && defined(NNL_VSHUFFLE)
		for (; ox + NNL_VW <= OW && 2 * ox + 2 * NNL_VW <= W;
		    ox += NNL_VW) {
			nnl_vf acc = nnl_vsplat(-INFINITY), v;

			v = nnl_vload_s(r0 + 2 * ox, 2);
			acc = nnl_vmax(v, acc);
			v = nnl_vload_s(r0 + 2 * ox + 1, 2);
			acc = nnl_vmax(v, acc);
			v = nnl_vload_s(r1 + 2 * ox, 2);
			acc = nnl_vmax(v, acc);
			v = nnl_vload_s(r1 + 2 * ox + 1, 2);
			acc = nnl_vmax(v, acc);
			nnl_vstore(yr + ox, acc);
		}
#endif
		for (; ox < OW; ox++) {
			float acc = -INFINITY, v;

			v = r0[2 * ox];
			acc = v > acc ? v : acc;
			v = r0[2 * ox + 1];
			acc = v > acc ? v : acc;
			v = r1[2 * ox];
			acc = v > acc ? v : acc;
			v = r1[2 * ox + 1];
			acc = v > acc ? v : acc;
			yr[ox] = acc;
		}
	}
}

#if NNL_VW > 1 && defined(NNL_VSHUFFLE)
/* The maxima of NNL_VW columns from i of three rows r (-inf where all
 * three are NaN). */
NNL_RT_INLINE nnl_vf
nnl_pool_col3(const float *const *r, int64_t i)
{
	nnl_vf m = nnl_vmax(nnl_vload(r[0] + i), nnl_vsplat(-INFINITY));

	m = nnl_vmax(nnl_vload(r[1] + i), m);
	return nnl_vmax(nnl_vload(r[2] + i), m);
}

/* The same for one column. */
NNL_RT_INLINE float
nnl_pool_col3s(const float *const *r, int64_t i)
{
	float m = -INFINITY;

	for (int a = 0; a < 3; a++)
		m = r[a][i] > m ? r[a][i] : m;
	return m;
}

/* The maxima of NNL_VW windows of three columns at stride 2: e and o
 * hold the even and the odd columns of 2 NNL_VW, en's first lane the
 * column after them. */
NNL_RT_INLINE nnl_vf
nnl_pool_win3(nnl_vf e, nnl_vf o, nnl_vf en)
{
	return nnl_vmax(__builtin_shufflevector(e, en, NNL_VDOWN),
	    nnl_vmax(o, e));
}

/*
 * Max pooling of nchw planes by 3 x 3 windows at stride 2 that lie in
 * the image (no padding read; SqueezeNet's, and ResNet's after the pad
 * ONNX import puts before it), rows of at least NNL_VW outputs.  An
 * output row's three input rows are first reduced column by column,
 * then a vector of outputs is the maximum of the even and the odd
 * lanes of two vectors of those columns and of the even lanes shifted
 * one down, whose last lane is the next vector's first (or, at the
 * row's end, one column's maximum).  Each input vector is loaded once;
 * a ragged end is one more vector ending at the row's end.  No NaN
 * gets past the columns' maxima, so their order does not matter.
 */
NNL_RT_INLINE void
nnl_maxpool_3x3s2(int64_t C, int64_t H, int64_t W, int64_t OH, int64_t OW,
    const float *x, float *y)
{
	int64_t nv = OW / NNL_VW;

	for (int64_t c = 0; c < C; c++)
	for (int64_t oy = 0; oy < OH; oy++) {
		const float *r[3];
		float *yr = y + (c * OH + oy) * OW;
		nnl_vf u, v, e, o, en;

		for (int a = 0; a < 3; a++)
			r[a] = x + (c * H + 2 * oy + a) * W;
		u = nnl_pool_col3(r, 0);
		v = nnl_pool_col3(r, NNL_VW);
		e = __builtin_shufflevector(u, v, NNL_VEVEN);
		o = __builtin_shufflevector(u, v, NNL_VODD);
		for (int64_t j = 0; j < nv; j++) {
			int64_t ox = j * NNL_VW;

			if (j + 1 < nv) {
				u = nnl_pool_col3(r, 2 * ox + 2 * NNL_VW);
				v = nnl_pool_col3(r, 2 * ox + 3 * NNL_VW);
				en = __builtin_shufflevector(u, v, NNL_VEVEN);
			} else
				en = nnl_vsplat(nnl_pool_col3s(r, 2 * ox + 2 *
				    NNL_VW));
			nnl_vstore(yr + ox, nnl_pool_win3(e, o, en));
			e = en;
			o = __builtin_shufflevector(u, v, NNL_VODD);
		}
		if (OW % NNL_VW) {
			int64_t ox = OW - NNL_VW;

			u = nnl_pool_col3(r, 2 * ox);
			v = nnl_pool_col3(r, 2 * ox + NNL_VW);
			e = __builtin_shufflevector(u, v, NNL_VEVEN);
			o = __builtin_shufflevector(u, v, NNL_VODD);
			en = nnl_vsplat(nnl_pool_col3s(r, 2 * OW));
			nnl_vstore(yr + ox, nnl_pool_win3(e, o, en));
		}
	}
}

/*
 * The same for rows of fewer than NNL_VW outputs (SqueezeNet's 27 -> 13
 * pool): two vectors of an output row's column maxima hold all its
 * 2 OW + 1 columns, and one vector of outputs comes of their even and
 * odd lanes.  Rows whose two vectors would read past the last plane
 * take the columns one at a time.  A row's vector is stored whole
 * where what it puts past the row lies in its plane, on rows written
 * after it; the plane's last rows go through a copy.
 */
NNL_RT_INLINE void
nnl_maxpool_3x3s2_narrow(int64_t C, int64_t H, int64_t W, int64_t OH,
    int64_t OW, const float *x, float *y)
{
	for (int64_t c = 0; c < C; c++)
	for (int64_t oy = 0; oy < OH; oy++) {
		const float *r[3];
		float *yr = y + (c * OH + oy) * OW, t[2 * NNL_VW];
		nnl_vf u, v, e, m;

		for (int a = 0; a < 3; a++)
			r[a] = x + (c * H + 2 * oy + a) * W;
		if ((c * H + 2 * oy + 2) * W + 2 * NNL_VW <= C * H * W) {
			u = nnl_pool_col3(r, 0);
			v = nnl_pool_col3(r, NNL_VW);
		} else {
			for (int64_t i = 0; i < 2 * NNL_VW; i++)
				t[i] = i <= 2 * OW ? nnl_pool_col3s(r, i) :
				    -INFINITY;
			u = nnl_vload(t);
			v = nnl_vload(t + NNL_VW);
		}
		e = __builtin_shufflevector(u, v, NNL_VEVEN);
		m = nnl_pool_win3(e, __builtin_shufflevector(u, v, NNL_VODD),
		    e);
		if (oy * OW + NNL_VW <= OH * OW) {
			nnl_vstore(yr, m);
			continue;
		}
		nnl_vstore(t, m);
		for (int64_t ox = 0; ox < OW; ox++)
			yr[ox] = t[ox];
	}
}
#endif

/* Floats of the row buffer on the stack of nnl_pool_nchw. */
enum { NNL_POOL_ROW = 1024 };

/*
 * Max (kind 2) or average (kind 0) pooling of nchw planes in vectors,
 * separably: for an output row, each input column's valid cells are
 * combined into a row buffer padded left and right (-inf for max, 0
 * for sums), then each window's columns along that row.  The average
 * divides by the window's real cells.  Returns 0, having done nothing,
 * where the padded row does not fit the buffer (or without vectors).
 */
NNL_RT_INLINE int
nnl_pool_nchw(const int64_t *ip, const float *x, float *y)
{
#if NNL_VW > 1
	int64_t kind = ip[0], C = ip[2] * ip[3], H = ip[4], W = ip[5],
	    OH = ip[6], OW = ip[7], kh = ip[8], kw = ip[9], sh = ip[10],
	    sw = ip[11], dh = ip[12], dw = ip[13], pt = ip[14], pl = ip[16];
	int64_t need = ((OW + NNL_VW - 1) / NNL_VW * NNL_VW - 1) * sw +
	    (kw - 1) * dw + 2;
	float r[NNL_POOL_ROW], fill = kind == 2 ? -INFINITY : 0;
	nnl_vf vfill = nnl_vsplat(fill);

	need = need > pl + W ? need : pl + W;
#ifdef NNL_VSHUFFLE
	if (kind == 2 && kh == 3 && kw == 3 && sh == 2 && sw == 2 &&
	    dh == 1 && dw == 1 && pt == 0 && pl == 0 && 2 * OH + 1 <= H &&
	    2 * OW + 1 <= W) {
		if (OW >= NNL_VW)
			nnl_maxpool_3x3s2(C, H, W, OH, OW, x, y);
		else
			nnl_maxpool_3x3s2_narrow(C, H, W, OH, OW, x, y);
		return 1;
	}
#endif
	if (need > NNL_POOL_ROW || (kind != 0 && kind != 2))
		return 0;
	/* the row's padding, which the rows below leave as it is */
	for (int64_t i = 0; i < pl; i++)
		r[i] = fill;
	for (int64_t i = pl + W; i < need; i++)
		r[i] = fill;
	for (int64_t c = 0; c < C; c++)
	for (int64_t oy = 0; oy < OH; oy++) {
		const float *xc = x + c * H * W;
		float *yr = y + (c * OH + oy) * OW;
		int64_t iy0 = oy * sh - pt, a0 = 0, a1 = kh, ix = 0;

		while (a0 < kh && iy0 + a0 * dh < 0)
			a0++;
		while (a1 > a0 && iy0 + (a1 - 1) * dh >= H)
			a1--;
		/* whole vectors, the last past the row's end where it reads
		 * inside the plane and r has room: what it puts past the row
		 * goes back to the padding after */
		for (; ix < W; ix += NNL_VW) {
			nnl_vf acc = vfill;

			if (ix + NNL_VW > W && (pl + W + NNL_VW > NNL_POOL_ROW ||
			    a0 >= a1 || (iy0 + (a1 - 1) * dh) * W + ix +
			    NNL_VW > H * W))
				break;
			for (int64_t a = a0; a < a1; a++) {
				nnl_vf v = nnl_vload(xc + (iy0 + a * dh) * W +
				    ix);

				acc = kind == 2 ? nnl_vmax(v, acc) :
				    acc + v;
			}
			nnl_vstore(r + pl + ix, acc);
		}
		if (ix > W) {
			nnl_vstore(r + pl + W, vfill);
			ix = W;
		}
		for (; ix < W; ix++) {
			float acc = fill;

			for (int64_t a = a0; a < a1; a++) {
				float v = xc[(iy0 + a * dh) * W + ix];

				acc = kind == 2 ? (v > acc ? v : acc) : acc + v;
			}
			r[pl + ix] = acc;
		}
		for (int64_t ox = 0; ox < OW; ox += NNL_VW) {
			nnl_vf acc = vfill;
			float t[NNL_VW];

			for (int64_t b = 0; b < kw; b++) {
				nnl_vf v = nnl_vload_s(r + ox * sw + b * dw,
				    sw);

				acc = kind == 2 ? nnl_vmax(v, acc) :
				    acc + v;
			}
			if (kind == 2 && ox + NNL_VW <= OW) {
				nnl_vstore(yr + ox, acc);
				continue;
			}
			nnl_vstore(t, acc);
			for (int64_t i = 0; i < NNL_VW && ox + i < OW; i++) {
				int64_t n = 0;

				if (kind == 0) {	/* the real cells */
					for (int64_t b = 0; b < kw; b++) {
						int64_t j = (ox + i) * sw - pl +
						    b * dw;

						n += j >= 0 && j < W;
					}
					n *= a1 - a0;
					t[i] = n ? t[i] / (float)n : 0;
				}
				yr[ox + i] = t[i];
			}
		}
	}
	return 1;
#else
	(void)ip;
	(void)x;
	(void)y;
	return 0;
#endif
}

#ifdef NNL_RT_THREADS
/* its planes split over the pool (par.c) */
#define nnl_pool_nchw nnl_par_pool_nchw
#endif

/*
 * pool2d: kind (0 average, 1 l2, 2 max), nhwc, N, C, H, W, OH, OW, kh,
 * kw, sh, sw, dh, dw, pt, pb, pl, pr.  Padding cells take no part: the
 * average divides by the real cells of the window.
 */
NNL_RT void
nnl_k_pool2d_f32(const int64_t *ip, const double *fp, const void *const *in,
    void *const *out, void *scratch)
{
	int64_t kind = ip[0], nhwc = ip[1], N = ip[2], C = ip[3], H = ip[4],
	    W = ip[5], OH = ip[6], OW = ip[7], kh = ip[8], kw = ip[9],
	    sh = ip[10], sw = ip[11], dh = ip[12], dw = ip[13], pt = ip[14],
	    pl = ip[16];
	const float *x = in[0];
	float *y = out[0];

	(void)fp;
	(void)scratch;
	if (!nhwc && kind == 2 && kh == 2 && kw == 2 && sh == 2 && sw == 2 &&
	    dh == 1 && dw == 1 && pt == 0 && pl == 0 && ip[15] == 0 &&
	    ip[17] == 0 && 2 * OH <= H && 2 * OW <= W) {
		nnl_maxpool_2x2(N * C, H, W, OH, OW, x, y);
		return;
	}
	if (!nhwc && nnl_pool_nchw(ip, x, y))
		return;
	for (int64_t n = 0; n < N; n++)
	for (int64_t c = 0; c < C; c++)
	for (int64_t oy = 0; oy < OH; oy++)
	for (int64_t ox = 0; ox < OW; ox++) {
		nnl_real acc = kind == 2 ? -INFINITY : 0;
		int64_t cnt = 0;

		for (int64_t a = 0; a < kh; a++) {
			int64_t iy = oy * sh - pt + a * dh;

			if (iy < 0 || iy >= H)
				continue;
			for (int64_t b = 0; b < kw; b++) {
				int64_t ix = ox * sw - pl + b * dw;
				nnl_real v;

				if (ix < 0 || ix >= W)
					continue;
				v = x[nhwc ? ((n * H + iy) * W + ix) * C + c :
				    ((n * C + c) * H + iy) * W + ix];
				if (kind == 2)
					acc = v > acc ? v : acc;
				else
					acc += kind == 1 ? v * v : v;
				cnt++;
			}
		}
		if (kind == 0)
			acc = cnt ? acc / (nnl_real)cnt : 0;
		else if (kind == 1)
			acc = NNL_M(sqrt)(acc);
		y[nhwc ? ((n * OH + oy) * OW + ox) * C + c :
		    ((n * C + c) * OH + oy) * OW + ox] = (float)acc;
	}
}

/*
 * batchnorm: outer, channels, inner, has scale, has bias, activation;
 * fp: epsilon, activation parameters.  in: input, mean, variance,
 * scale, bias.  Safe in place.
 */
NNL_RT void
nnl_k_batchnorm_f32(const int64_t *ip, const double *fp,
    const void *const *in, void *const *out, void *scratch)
{
	int64_t outer = ip[0], C = ip[1], inner = ip[2];
	const float *x = in[0], *mean = in[1], *var = in[2];
	const float *sc = ip[3] ? in[3] : 0, *bi = ip[4] ? in[4] : 0;
	float *y = out[0];

	(void)scratch;
	for (int64_t c = 0; c < C; c++) {
		nnl_real k = (sc ? sc[c] : 1) / NNL_M(sqrt)((nnl_real)var[c] +
		    (nnl_real)fp[0]);
		nnl_real t = (bi ? bi[c] : 0) - mean[c] * k;

		for (int64_t o = 0; o < outer; o++) {
			const float *xs = x + (o * C + c) * inner;
			float *ys = y + (o * C + c) * inner;

			for (int64_t i = 0; i < inner; i++)
				ys[i] = (float)(xs[i] * k + t);
		}
	}
	nnl_activate(y, outer * C * inner, ip[5], fp[1], fp[2]);
}

/*
 * The normalization of nnl_k_normalize_f32 where the normalized axes
 * are one block [a, b) of x's axes: outer groups of n rows of inner
 * floats, each group normalized over its n rows column by column (one
 * row of n where inner is 1: layerNormalization over the last axes; n
 * channels of inner pixels: nchw instanceNormalization's planes have
 * n = H W, inner 1; LayerNorm2d's channels, inner H W).  The mean (of
 * the differences from the first value, rt.h's centre) and then the
 * variance about it over the rows while they are in cache (two passes:
 * no E[x^2] - E[x]^2 to cancel), then scale and bias in the pass that
 * writes.  The scale runs along: 'n' the rows (its
 * axes the normalized ones), 'o' the groups (sdiv groups a step, smod
 * steps), 'i' the columns, or 0 for none.
 */
struct nnl_norm_blk {
	int64_t outer, n, inner, sdiv, smod;
	int along;
};

NNL_RT_INLINE void
nnl_norm_blk(const struct nnl_norm_blk *p, const float *x, const float *sc,
    const float *bi, float *y, float eps)
{
	int64_t n = p->n, inner = p->inner;

	for (int64_t o = 0; o < p->outer; o++, x += n * inner, y += n * inner) {
		int64_t so = p->along == 'o' ? o / p->sdiv % p->smod : 0;
		float gs = sc && p->along == 'o' ? sc[so] : 1;
		float gb = bi && p->along == 'o' ? bi[so] : 0;

		if (inner == 1) {
			float mean = (float)(x[0] + nnl_rowsum(x, n, NNL_SUM_X,
			    x[0]) / (nnl_real)n);
			float var = (float)(nnl_rowsum(x, n, NNL_SUM_SQ, mean) /
			    (nnl_real)n);
			float rs = (float)(1 / NNL_M(sqrt)((nnl_real)var +
			    (nnl_real)eps));
			int64_t k = 0;

			if (p->along != 'n') {
				float a = rs * gs, c = gb - mean * a;
#if NNL_VW > 1
				for (; k + NNL_VW <= n; k += NNL_VW)
					nnl_vstore(y + k, nnl_vload(x + k) * a +
					    c);
#endif
				for (; k < n; k++)
					y[k] = x[k] * a + c;
				continue;
			}
#if NNL_VW > 1
			for (; k + NNL_VW <= n; k += NNL_VW) {
				nnl_vf v = (nnl_vload(x + k) - mean) * rs;

				if (sc)
					v *= nnl_vload(sc + k);
				if (bi)
					v += nnl_vload(bi + k);
				nnl_vstore(y + k, v);
			}
#endif
			for (; k < n; k++)
				y[k] = (x[k] - mean) * rs * (sc ? sc[k] : 1) +
				    (bi ? bi[k] : 0);
			continue;
		}
		for (int64_t i = 0; i < inner; i += NNL_VW) {
			int64_t w = inner - i < NNL_VW ? inner - i : NNL_VW;
			float mean[NNL_VW], rs[NNL_VW];
			nnl_real t[NNL_VW];

#if NNL_VW > 1
			if (w == NNL_VW) {
				nnl_vf m;

				nnl_vf x0 = nnl_vload(x + i);

				nnl_colsum(x + i, n, inner, NNL_SUM_X, x0, t);
				for (int l = 0; l < NNL_VW; l++)
					m[l] = mean[l] = (float)(x0[l] + t[l] /
					    (nnl_real)n);
				nnl_colsum(x + i, n, inner, NNL_SUM_SQ, m, t);
			} else
#endif
			for (int64_t l = 0; l < w; l++) {
				mean[l] = (float)(x[i + l] + nnl_strsum(x + i +
				    l, n, inner, NNL_SUM_X, x[i + l]) /
				    (nnl_real)n);
				t[l] = nnl_strsum(x + i + l, n, inner,
				    NNL_SUM_SQ, mean[l]);
			}
			for (int64_t l = 0; l < w; l++)
				rs[l] = (float)(1 / NNL_M(sqrt)((nnl_real)(
				    float)(t[l] / (nnl_real)n) +
				    (nnl_real)eps));
#if NNL_VW > 1
			if (w == NNL_VW) {
				nnl_vf vm = nnl_vload(mean), vr = nnl_vload(rs);
				nnl_vf vs = nnl_vsplat(gs), vb = nnl_vsplat(gb);

				if (p->along == 'i' && sc)
					vs = nnl_vload(sc + i);
				if (p->along == 'i' && bi)
					vb = nnl_vload(bi + i);
				for (int64_t k = 0; k < n; k++) {
					const float *xr = x + k * inner + i;
					nnl_vf v = (nnl_vload(xr) - vm) * vr;

					if (p->along == 'n')
						v = v * (sc ? sc[k] : 1) +
						    (bi ? bi[k] : 0);
					else
						v = v * vs + vb;
					nnl_vstore(y + k * inner + i, v);
				}
				continue;
			}
#endif
			for (int64_t k = 0; k < n; k++)
				for (int64_t l = 0; l < w; l++) {
					float v = (x[k * inner + i + l] -
					    mean[l]) * rs[l];

					if (p->along == 'n')
						v = v * (sc ? sc[k] : 1) +
						    (bi ? bi[k] : 0);
					else if (p->along == 'i')
						v = v * (sc ? sc[i + l] : 1) +
						    (bi ? bi[i + l] : 0);
					else
						v = v * gs + gb;
					y[k * inner + i + l] = v;
				}
		}
	}
}

/* Whether normalize's axes nmask are one block, with its scale (if
 * any, has) along a kind nnl_norm_blk takes: then *p describes it. */
NNL_RT_INLINE int
nnl_norm_block(int64_t r, const int64_t *dims, int64_t nmask, int64_t smask,
    int has, struct nnl_norm_blk *p)
{
	int64_t a = 0, b, all = ((int64_t)1 << r) - 1, c, d;

	while (a < r && !(nmask >> a & 1))
		a++;
	for (b = a; b < r && nmask >> b & 1; b++)
		;
	if (a == r || nmask != (all & ~(((int64_t)1 << a) - 1) &
	    (((int64_t)1 << b) - 1)))
		return 0;
	p->outer = nnl_numel((int)a, dims);
	p->n = nnl_numel((int)(b - a), dims + a);
	p->inner = nnl_numel((int)(r - b), dims + b);
	p->sdiv = p->smod = 1;
	if (!has) {
		p->along = 0;
	} else if (smask == nmask) {
		p->along = 'n';
	} else if (smask && smask == (all & ~(((int64_t)1 << b) - 1))) {
		p->along = 'i';
	} else {
		for (c = 0; c < a && !(smask >> c & 1); c++)
			;
		for (d = c; d < a && smask >> d & 1; d++)
			;
		if (c == a || smask != ((((int64_t)1 << d) - 1) &
		    ~(((int64_t)1 << c) - 1)))
			return 0;
		p->along = 'o';
		p->smod = nnl_numel((int)(d - c), dims + c);
		p->sdiv = nnl_numel((int)(a - d), dims + d);
	}
	return 1;
}

/*
 * normalize (layerNormalization, instanceNormalization): r, dims[r],
 * mask of the normalized axes, mask of the axes scale and bias run
 * over, has scale, has bias; fp: epsilon.  Each group of elements that
 * differ only on normalized axes is brought to mean 0, variance 1.
 * scratch: two doubles per group (nnl_real: rt.h).
 */
NNL_RT void
nnl_k_normalize_f32(const int64_t *ip, const double *fp,
    const void *const *in, void *const *out, void *scratch)
{
	int64_t r = ip[0];
	const int64_t *dims = ip + 1;
	int64_t nmask = dims[r], smask = dims[r + 1], hs = dims[r + 2],
	    hb = dims[r + 3];
	int64_t n = nnl_numel((int)r, dims), ng = 1, per, gst[NNL_MAXRANK],
	    sst[NNL_MAXRANK], ss = 1;
	const float *x = in[0], *sc = hs ? in[1] : 0, *bi = hb ? in[2] : 0;
	float *y = out[0];
	nnl_real *sum = scratch, *sq;
	struct nnl_norm_blk blk;

	for (int64_t d = r - 1; d >= 0; d--) {
		gst[d] = nmask >> d & 1 ? 0 : ng;
		if (!(nmask >> d & 1))
			ng *= dims[d];
		sst[d] = smask >> d & 1 ? ss : 0;
		if (smask >> d & 1)
			ss *= dims[d];
	}
	per = ng ? n / ng : 0;
	if (nnl_norm_block(r, dims, nmask, smask, hs || hb, &blk)) {
		nnl_norm_blk(&blk, x, sc, bi, y, (float)fp[0]);
		return;
	}
	sq = sum + ng;
	for (int64_t g = 0; g < 2 * ng; g++)
		sum[g] = 0;
	for (int pass = 0; pass < 3; pass++)
		for (int64_t i = 0; i < n; i++) {
			int64_t rem = i, gi = 0, si = 0;

			for (int64_t d = r - 1; d >= 0; d--) {
				int64_t c = rem % dims[d];

				rem /= dims[d];
				gi += c * gst[d];
				si += c * sst[d];
			}
			if (pass == 0) {
				sum[gi] += x[i];
			} else if (pass == 1) {
				nnl_real dv = x[i] - sum[gi] / (nnl_real)per;

				sq[gi] += dv * dv;
			} else {
				nnl_real mean = sum[gi] / (nnl_real)per;
				nnl_real v = (x[i] - mean) / NNL_M(sqrt)(
				    sq[gi] / (nnl_real)per + (nnl_real)fp[0]);

				y[i] = (float)(v * (sc ? sc[si] : 1) +
				    (bi ? bi[si] : 0));
			}
		}
}

/*
 * pad: es, mode (0 constant, 1 edge, 2 reflection), dt, r, in dims[r],
 * begin[r], end[r]; fp: the constant value.
 */
NNL_RT void
nnl_k_pad(const int64_t *ip, const double *fp, const void *const *in,
    void *const *out, void *scratch)
{
	int64_t es = ip[0], mode = ip[1], dt = ip[2], r = ip[3];
	const int64_t *dims = ip + 4, *beg = dims + r, *end = beg + r;
	int64_t odims[NNL_MAXRANK], ist[NNL_MAXRANK], idx[NNL_MAXRANK] = { 0 };
	int64_t n = 1;
	int64_t val[1];		/* the constant, aligned for any type */

	(void)scratch;
	for (int i = 0; i < r; i++) {
		odims[i] = beg[i] + dims[i] + end[i];
		n *= odims[i];
	}
	nnl_strides((int)r, dims, ist);
	if (nnl_isfloat(dt))
		nnl_storef(val, 0, dt, fp[0]);
	else
		nnl_storei(val, 0, dt, nnl_dtoi(fp[0]));
	/* constant padding: a row of the last axis at a time */
	for (int64_t o = 0; mode == 0 && r > 0 && o < n; o += odims[r - 1]) {
		int64_t src = 0, inside = 1, L = r - 1;
		char *d = (char *)out[0] + o * es;

		for (int i = 0; i < L; i++) {
			int64_t c = idx[i] - beg[i];

			inside &= c >= 0 && c < dims[i];
			src += c * ist[i];
		}
		for (int64_t j = 0; j < odims[L]; j++) {
			int64_t c = j - beg[L];

			if (inside && c >= 0 && c < dims[L]) {
				int64_t run = dims[L] - c;

				memcpy(d + j * es, (const char *)in[0] +
				    (src + c) * es, (size_t)(run * es));
				j += run - 1;
			} else {
				memcpy(d + j * es, val, (size_t)es);
			}
		}
		for (int i = L - 1; i >= 0; i--) {
			if (++idx[i] < odims[i])
				break;
			idx[i] = 0;
		}
	}
	for (int64_t o = 0; (mode != 0 || r == 0) && o < n; o++) {
		int64_t src = 0, inside = 1;

		for (int i = 0; i < r; i++) {
			int64_t c = idx[i] - beg[i];

			if (c < 0 || c >= dims[i]) {
				if (mode == 0)
					inside = 0;
				else if (mode == 1)
					c = c < 0 ? 0 : dims[i] - 1;
				else if (dims[i] > 1) {	/* mirror, no repeat */
					int64_t period = 2 * (dims[i] - 1);

					c %= period;
					if (c < 0)
						c += period;
					if (c >= dims[i])
						c = period - c;
				} else {
					c = 0;
				}
			}
			src += c * ist[i];
		}
		if (inside)
			memcpy((char *)out[0] + o * es,
			    (const char *)in[0] + src * es, (size_t)es);
		else
			memcpy((char *)out[0] + o * es, val, (size_t)es);
		for (int i = (int)r - 1; i >= 0; i--) {
			if (++idx[i] < odims[i])
				break;
			idx[i] = 0;
		}
	}
}

/*
 * resample2d: linear, d0..d3 (input dims), axis a, axis b (the two
 * spatial axes, a < b), output size on a, on b.  Coordinates follow
 * the specification: half-pixel centres, clamped; nearest takes
 * ceil(c - 0.5).
 */
NNL_RT void
nnl_k_resample2d_f32(const int64_t *ip, const double *fp,
    const void *const *in, void *const *out, void *scratch)
{
	int64_t lin = ip[0], ax = ip[5], bx = ip[6], oa = ip[7], ob = ip[8];
	int64_t idims[4], odims[4], ist[4], idx[4] = { 0, 0, 0, 0 }, n;
	const float *x = in[0];
	float *y = out[0];
	double sa, sb;

	(void)fp;
	(void)scratch;
	for (int i = 0; i < 4; i++)
		idims[i] = odims[i] = ip[1 + i];
	odims[ax] = oa;
	odims[bx] = ob;
	sa = (double)oa / (double)idims[ax];
	sb = (double)ob / (double)idims[bx];
	nnl_strides(4, idims, ist);
	n = nnl_numel(4, odims);
	for (int64_t o = 0; o < n; o++) {
		double ca = (idx[ax] + 0.5) / sa - 0.5;
		double cb = (idx[bx] + 0.5) / sb - 0.5;
		int64_t base = 0;

		ca = ca < 0 ? 0 : ca > idims[ax] - 1 ? (double)(idims[ax] - 1) :
		    ca;
		cb = cb < 0 ? 0 : cb > idims[bx] - 1 ? (double)(idims[bx] - 1) :
		    cb;
		for (int i = 0; i < 4; i++)
			if (i != ax && i != bx)
				base += idx[i] * ist[i];
		if (!lin) {
			int64_t ya = (int64_t)ceil(ca - 0.5);
			int64_t yb = (int64_t)ceil(cb - 0.5);

			y[o] = x[base + ya * ist[ax] + yb * ist[bx]];
		} else {
			int64_t a0 = (int64_t)floor(ca), a1 = (int64_t)ceil(ca);
			int64_t b0 = (int64_t)floor(cb), b1 = (int64_t)ceil(cb);
			double ta = ca - a0, tb = cb - b0;
			double v00 = x[base + a0 * ist[ax] + b0 * ist[bx]];
			double v01 = x[base + a0 * ist[ax] + b1 * ist[bx]];
			double v10 = x[base + a1 * ist[ax] + b0 * ist[bx]];
			double v11 = x[base + a1 * ist[ax] + b1 * ist[bx]];
			double va = v00 * (1 - tb) + v01 * tb;
			double vb = v10 * (1 - tb) + v11 * tb;

			y[o] = (float)(va * (1 - ta) + vb * ta);
		}
		for (int i = 3; i >= 0; i--) {
			if (++idx[i] < odims[i])
				break;
			idx[i] = 0;
		}
	}
}

NNL_F16_VIA_F32(conv2d)
NNL_F16_VIA_F32(gemm)
NNL_F16_VIA_F32(matmul)
NNL_F16_VIA_F32(pool2d)
NNL_F16_VIA_F32(batchnorm)
NNL_F16_VIA_F32(normalize)
NNL_F16_VIA_F32(resample2d)

/*
 * The detection and data-dependent kernels (nnl's ops beyond WebNN:
 * topK, nonZero, unique; nonMaxSuppression, gridSample, roiAlign) work
 * in double; where nnl_real is float (rt.h: a Cortex-M without a
 * double FPU, where double is software) they are left out, and a graph
 * that uses one fails to compile there rather than run emulated double.
 */
#ifndef NNL_REAL_IS_FLOAT

/* Box j of boxes (at p) as y1, x1, y2, x2, the corners ordered. */
NNL_RT_INLINE void
nnl_nms_box(const void *p, int64_t j, int64_t dt, int64_t center,
    double *r)
{
	double a = nnl_loadf(p, 4 * j, dt), b = nnl_loadf(p, 4 * j + 1, dt);
	double c = nnl_loadf(p, 4 * j + 2, dt), d = nnl_loadf(p, 4 * j + 3,
	    dt);

	if (center) {		/* x centre, y centre, width, height */
		r[0] = b - d / 2;
		r[1] = a - c / 2;
		r[2] = b + d / 2;
		r[3] = a + c / 2;
		return;
	}
	r[0] = a < c ? a : c;
	r[1] = b < d ? b : d;
	r[2] = a < c ? c : a;
	r[3] = b < d ? d : b;
}

/* Does box j overlap box i by more than thr (intersection over union)? */
NNL_RT_INLINE int
nnl_nms_overlap(const void *p, int64_t i, int64_t j, int64_t dt,
    int64_t center, double thr)
{
	double a[4], b[4], h, w, inter, u;

	nnl_nms_box(p, i, dt, center, a);
	nnl_nms_box(p, j, dt, center, b);
	h = (a[2] < b[2] ? a[2] : b[2]) - (a[0] > b[0] ? a[0] : b[0]);
	w = (a[3] < b[3] ? a[3] : b[3]) - (a[1] > b[1] ? a[1] : b[1]);
	if (h <= 0 || w <= 0)
		return 0;
	inter = h * w;
	u = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) -
	    inter;
	return u > 0 && inter / u > thr;
}

/*
 * nonMaxSuppression (nnl's): ip = dt, batches, classes, boxes n, the
 * most per class, centre-point boxes, has a score threshold, the
 * bound; fp = IoU threshold, score threshold.  out[0] [bound, 3]: the
 * selected (batch, class, box) rows, by batch, class and selection
 * order, then rows of -1; out[1] its actual shape (count, 3), int64.
 * scratch: 3 (n + 1) int64.
 */
NNL_RT void
nnl_k_nms(const int64_t *ip, const double *fp, const void *const *in,
    void *const *out, void *scratch)
{
	int64_t dt = ip[0], nb = ip[1], nc = ip[2], n = ip[3], max = ip[4],
	    center = ip[5], hasst = ip[6], bound = ip[7];
	int64_t *cand = scratch, *tmp = cand + n + 1, *sel = tmp + n + 1;
	int64_t *o = out[0], cnt = 0;

	for (int64_t b = 0; b < nb; b++)
		for (int64_t c = 0; c < nc; c++) {
			int64_t m = 0, ns = 0, sb = (b * nc + c) * n;

			for (int64_t j = 0; j < n; j++)
				if (!hasst || nnl_loadf(in[1], sb + j, dt) >
				    fp[1])
					cand[m++] = j;
			/* by score, higher first, equal by index */
			for (int64_t w = 1; w < m; w *= 2) {
				for (int64_t lo = 0; lo < m; lo += 2 * w) {
					int64_t mid = lo + w < m ? lo + w : m;
					int64_t hi = mid + w < m ? mid + w : m;
					int64_t p = lo, q = mid, d = lo;

					while (p < mid && q < hi)
						tmp[d++] = nnl_loadf(in[1], sb +
						    cand[q], dt) > nnl_loadf(
						    in[1], sb + cand[p], dt) ?
						    cand[q++] : cand[p++];
					while (p < mid)
						tmp[d++] = cand[p++];
					while (q < hi)
						tmp[d++] = cand[q++];
				}
				for (int64_t j = 0; j < m; j++)
					cand[j] = tmp[j];
			}
			for (int64_t j = 0; j < m && ns < max; j++) {
				int keep = 1;

				for (int64_t t = 0; t < ns && keep; t++)
					keep = !nnl_nms_overlap(in[0],
					    b * n + sel[t], b * n + cand[j],
					    dt, center, fp[0]);
				if (!keep)
					continue;
				sel[ns++] = cand[j];
				o[3 * cnt] = b;
				o[3 * cnt + 1] = c;
				o[3 * cnt + 2] = cand[j];
				cnt++;
			}
		}
	for (int64_t j = 3 * cnt; j < 3 * bound; j++)
		o[j] = -1;
	((int64_t *)out[1])[0] = cnt;
	((int64_t *)out[1])[1] = 3;
}

/* x reflected into [lo, hi] (gridSample's reflection padding). */
NNL_RT_INLINE double
nnl_gs_reflect(double x, double lo, double hi)
{
	double rng = hi - lo, d, r;
	int64_t n;

	if (rng <= 0)
		return lo;
	if (x < lo) {
		d = lo - x;
		n = (int64_t)(d / rng);
		r = d - (double)n * rng;
		return n % 2 == 0 ? lo + r : hi - r;
	}
	if (x > hi) {
		d = x - hi;
		n = (int64_t)(d / rng);
		r = d - (double)n * rng;
		return n % 2 == 0 ? hi - r : lo + r;
	}
	return x;
}

/* Pixel (i, j) of the plane p (h x w) under padding pad (0 zeros, 1
 * border, 2 reflection within the borders b[4]: y lo, y hi, x lo, x hi). */
NNL_RT_INLINE double
nnl_gs_pixel(const void *p, int64_t off, int64_t dt, int64_t h, int64_t w,
    int64_t i, int64_t j, int64_t pad, const double *b)
{
	if (pad == 0 && (i < 0 || i >= h || j < 0 || j >= w))
		return 0;
	if (pad == 2) {
		i = (int64_t)nnl_gs_reflect((double)i, b[0], b[1]);
		j = (int64_t)nnl_gs_reflect((double)j, b[2], b[3]);
	}
	i = i < 0 ? 0 : i >= h ? h - 1 : i;
	j = j < 0 ? 0 : j >= w ? w - 1 : j;
	return nnl_loadf(p, off + i * w + j, dt);
}

/* The 4 cubic convolution weights (A = -0.75) of a fraction t. */
NNL_RT_INLINE void
nnl_gs_cubic(double t, double *k)
{
	const double a = -0.75;
	double u = t + 1, v = 1 - t, z = 2 - t;

	k[0] = ((a * u - 5 * a) * u + 8 * a) * u - 4 * a;
	k[1] = ((a + 2) * t - (a + 3)) * t * t + 1;
	k[2] = ((a + 2) * v - (a + 3)) * v * v + 1;
	k[3] = ((a * z - 5 * a) * z + 8 * a) * z - 4 * a;
}

/*
 * gridSample (nnl's, ONNX's GridSample on 4-D): ip = dt, rank 4, N, C,
 * H, W, Ho, Wo, mode (0 bilinear, 1 nearest, 2 bicubic), padding (0
 * zeros, 1 border, 2 reflection), align corners.
 */
NNL_RT void
nnl_k_grid_sample(const int64_t *ip, const double *fp, const void *const *in,
    void *const *out, void *scratch)
{
	int64_t dt = ip[0], nb = ip[2], nc = ip[3], h = ip[4], w = ip[5],
	    ho = ip[6], wo = ip[7], mode = ip[8], pad = ip[9], ac = ip[10];
	double b[4];

	(void)fp;
	(void)scratch;
	b[0] = ac ? 0 : -0.5;
	b[1] = ac ? (double)h - 1 : (double)h - 0.5;
	b[2] = ac ? 0 : -0.5;
	b[3] = ac ? (double)w - 1 : (double)w - 0.5;
	for (int64_t n = 0; n < nb; n++)
		for (int64_t q = 0; q < ho * wo; q++) {
			int64_t gi = (n * ho * wo + q) * 2;
			double gx = nnl_loadf(in[1], gi, dt);
			double gy = nnl_loadf(in[1], gi + 1, dt);
			double x = ac ? (gx + 1) / 2 * (double)(w - 1) :
			    ((gx + 1) * (double)w - 1) / 2;
			double y = ac ? (gy + 1) / 2 * (double)(h - 1) :
			    ((gy + 1) * (double)h - 1) / 2;

			if (mode == 1) {
				x = nearbyint(x);
				y = nearbyint(y);
			}
			if (x < b[2] || x > b[3] || y < b[0] || y > b[1]) {
				if (pad == 1) {
					x = x < 0 ? 0 : x > (double)(w - 1) ?
					    (double)(w - 1) : x;
					y = y < 0 ? 0 : y > (double)(h - 1) ?
					    (double)(h - 1) : y;
				} else if (pad == 2) {
					x = nnl_gs_reflect(x, b[2], b[3]);
					y = nnl_gs_reflect(y, b[0], b[1]);
				}
			}
			for (int64_t c = 0; c < nc; c++) {
				int64_t off = (n * nc + c) * h * w;
				double v = 0;

				if (mode == 1)
					v = nnl_gs_pixel(in[0], off, dt, h, w,
					    (int64_t)y, (int64_t)x, pad, b);
				else if (mode == 0) {
					double fy = floor(y), fx = floor(x);
					double ty = y - fy, tx = x - fx;
					int64_t i = (int64_t)fy, j = (int64_t)fx;

					v = (1 - ty) * ((1 - tx) * nnl_gs_pixel(
					    in[0], off, dt, h, w, i, j, pad, b) +
					    tx * nnl_gs_pixel(in[0], off, dt, h,
					    w, i, j + 1, pad, b)) + ty * ((1 -
					    tx) * nnl_gs_pixel(in[0], off, dt,
					    h, w, i + 1, j, pad, b) + tx *
					    nnl_gs_pixel(in[0], off, dt, h, w,
					    i + 1, j + 1, pad, b));
				} else {
					double fy = floor(y), fx = floor(x);
					double ky[4], kx[4];

					nnl_gs_cubic(y - fy, ky);
					nnl_gs_cubic(x - fx, kx);
					for (int a = 0; a < 4; a++)
						for (int e = 0; e < 4; e++)
							v += ky[a] * kx[e] *
							    nnl_gs_pixel(in[0],
							    off, dt, h, w,
							    (int64_t)fy - 1 + a,
							    (int64_t)fx - 1 + e,
							    pad, b);
				}
				nnl_storef(out[0], (n * nc + c) * ho * wo + q,
				    dt, v);
			}
		}
}

/* The 4 weighted taps of a bilinear sample at (y, x) of the plane at
 * pl (h x w), as RoiAlign takes them: 0 beyond a pixel outside. */
NNL_RT_INLINE void
nnl_roi_taps(const void *p, int64_t pl, int64_t dt, int64_t h, int64_t w,
    double y, double x, double *t)
{
	int64_t yl, xl, yh, xh;

	t[0] = t[1] = t[2] = t[3] = 0;
	if (y < -1.0 || y > (double)h || x < -1.0 || x > (double)w)
		return;
	y = y <= 0 ? 0 : y;
	x = x <= 0 ? 0 : x;
	yl = (int64_t)y;
	xl = (int64_t)x;
	if (yl >= h - 1) {
		yl = yh = h - 1;
		y = (double)yl;
	} else
		yh = yl + 1;
	if (xl >= w - 1) {
		xl = xh = w - 1;
		x = (double)xl;
	} else
		xh = xl + 1;
	y -= (double)yl;
	x -= (double)xl;
	t[0] = (1 - y) * (1 - x) * nnl_loadf(p, pl + yl * w + xl, dt);
	t[1] = (1 - y) * x * nnl_loadf(p, pl + yl * w + xh, dt);
	t[2] = y * (1 - x) * nnl_loadf(p, pl + yh * w + xl, dt);
	t[3] = y * x * nnl_loadf(p, pl + yh * w + xh, dt);
}

/*
 * roiAlign (nnl's, ONNX's RoiAlign): ip = dt, rank 4, N, C, H, W, R,
 * index type, oh, ow, sampling ratio (0: adaptive), max mode, half
 * pixel; fp = spatial scale.  Each bin averages (or takes the largest
 * weighted tap of) a grid of bilinear samples; a sample beyond a pixel
 * outside the plane counts 0.  A batch index out of range gives 0.
 */
NNL_RT void
nnl_k_roi_align(const int64_t *ip, const double *fp, const void *const *in,
    void *const *out, void *scratch)
{
	int64_t dt = ip[0], nb = ip[2], nc = ip[3], h = ip[4], w = ip[5],
	    nr = ip[6], it = ip[7], oh = ip[8], ow = ip[9], sr = ip[10],
	    ismax = ip[11], half = ip[12];
	double off = half ? 0.5 : 0;

	(void)scratch;
	for (int64_t r = 0; r < nr; r++) {
		int64_t b = nnl_loadi(in[2], r, it);
		double x0 = nnl_loadf(in[1], 4 * r, dt) * fp[0] - off;
		double y0 = nnl_loadf(in[1], 4 * r + 1, dt) * fp[0] - off;
		double rw = nnl_loadf(in[1], 4 * r + 2, dt) * fp[0] - off - x0;
		double rh = nnl_loadf(in[1], 4 * r + 3, dt) * fp[0] - off - y0;
		double bh, bw;
		int64_t gh, gw, cnt;

		if (!half) {
			rw = rw > 1 ? rw : 1;
			rh = rh > 1 ? rh : 1;
		}
		bh = rh / (double)oh;
		bw = rw / (double)ow;
		gh = sr > 0 ? sr : (int64_t)ceil(rh / (double)oh);
		gw = sr > 0 ? sr : (int64_t)ceil(rw / (double)ow);
		cnt = gh * gw > 1 ? gh * gw : 1;
		for (int64_t c = 0; c < nc; c++)
			for (int64_t p = 0; p < oh * ow; p++) {
				int64_t ph = p / ow, pw = p % ow;
				int64_t pl = (b * nc + c) * h * w;
				double v = 0;
				int first = 1;

				for (int64_t iy = 0; iy < gh && b >= 0 &&
				    b < nb; iy++)
					for (int64_t ix = 0; ix < gw; ix++) {
						double y = y0 + (double)ph * bh +
						    ((double)iy + 0.5) * bh /
						    (double)gh;
						double x = x0 + (double)pw * bw +
						    ((double)ix + 0.5) * bw /
						    (double)gw;
						double t[4], s;

						nnl_roi_taps(in[0], pl, dt, h, w,
						    y, x, t);
						if (!ismax) {
							v += t[0] + t[1] + t[2] +
							    t[3];
							continue;
						}
						s = t[0];
						for (int k = 1; k < 4; k++)
							s = t[k] > s ? t[k] : s;
						v = first || s > v ? s : v;
						first = 0;
					}
				nnl_storef(out[0], (r * nc + c) * oh * ow + p,
				    dt, ismax ? v : v / (double)cnt);
			}
	}
}

#endif	/* NNL_REAL_IS_FLOAT */

/*
 * maxPool2dIndices (nnl's; ONNX MaxPool's Indices): ip = dt, N, C, H,
 * W, OH, OW, window h and w, strides, dilations, padding at the top and
 * left, column-major.  Each window's largest element (its taps inside
 * the input in row-major order, the first kept unless a later one is
 * greater: ties go to the first) gives its flat index in the input:
 * ((n * C + c) * H + h) * W + w, or with column-major
 * (n * C + c) * H * W + w * H + h; nnl_maxpool_at gives one window's
 * (h, w) part.
 */
NNL_RT_INLINE int64_t
nnl_maxpool_at(const int64_t *ip, const void *x, int64_t plane, int64_t a,
    int64_t b)
{
	int64_t dt = ip[0], h = ip[3], w = ip[4], kh = ip[7], kw = ip[8],
	    r0 = a * ip[9] - ip[13], q0 = b * ip[10] - ip[14];
	int64_t bi = -1, bh = 0, bw = 0;
	double bv = 0;

	for (int64_t i = 0; i < kh; i++)
		for (int64_t j = 0; j < kw; j++) {
			int64_t r = r0 + i * ip[11], q = q0 + j * ip[12];
			double v;

			if (r < 0 || r >= h || q < 0 || q >= w)
				continue;
			v = nnl_loadf(x, (plane * h + r) * w + q, dt);
			if (bi < 0 || v > bv) {
				bi = 0;
				bv = v;
				bh = r;
				bw = q;
			}
		}
	return ip[15] ? bw * h + bh : bh * w + bw;
}

NNL_RT void
nnl_k_max_pool2d_indices(const int64_t *ip, const double *fp,
    const void *const *in, void *const *out, void *scratch)
{
	int64_t nc = ip[1] * ip[2], hw = ip[3] * ip[4], oh = ip[5],
	    ow = ip[6];
	int64_t *y = out[0];

	(void)fp;
	(void)scratch;
	for (int64_t p = 0; p < nc; p++)
		for (int64_t a = 0; a < oh; a++)
			for (int64_t b = 0; b < ow; b++)
				y[(p * oh + a) * ow + b] = p * hw +
				    nnl_maxpool_at(ip, in[0], p, a, b);
}
