/*
 * qint: integer products of 8-bit operands (nnl's matMulInteger and
 * conv2dInteger, ONNX's MatMulInteger and ConvInteger), exact: each
 * operand less its zero point is an int32 in scratch, products sum in
 * int32 (wrapping, as ONNX's int32 accumulation does, through uint32
 * so that C has it defined); requantizeLinear, their results scaled
 * back to 8 bits; and tfIdfVectorizer, n-gram counts.
 */
#include "rt.h"

/* The next index of a rank-r shape dims, last axis fastest. */
NNL_RT_INLINE void
nnl_qint_next(int64_t r, const int64_t *dims, int64_t *idx)
{
	for (int64_t d = r - 1; d >= 0; d--) {
		if (++idx[d] < dims[d])
			return;
		idx[d] = 0;
	}
}

/* The offset of index idx through strides st. */
NNL_RT_INLINE int64_t
nnl_qint_off(int64_t r, const int64_t *idx, const int64_t *st)
{
	int64_t o = 0;

	for (int64_t d = 0; d < r; d++)
		o += idx[d] * st[d];
	return o;
}

/*
 * The operand at in (type dt, rank r, dims) less its zero point zp
 * (type zdt; strides zs broadcast to dims) into the int32 array o.
 */
NNL_RT_INLINE void
nnl_qint_shift(const void *in, int64_t dt, const void *zp, int64_t zdt,
    int64_t r, const int64_t *dims, const int64_t *zs, int32_t *o)
{
	int64_t n = nnl_numel((int)r, dims), idx[NNL_MAXRANK] = { 0 };

	for (int64_t i = 0; i < n; i++) {
		o[i] = (int32_t)(nnl_loadi(in, i, dt) -
		    nnl_loadi(zp, nnl_qint_off(r, idx, zs), zdt));
		nnl_qint_next(r, dims, idx);
	}
}

/*
 * matmul_int: a, b, their zero points' types (adt, bdt, azdt, bzdt),
 * M, K, N, batch rank q, the output's batch dims[q], a's and b's batch
 * strides[q] (in matrices; 0 where broadcast), then a's rank, dims and
 * zero point strides, and b's.  in: a, b, a's zero point, b's.  out:
 * int32.  scratch: a and b less their zero points, int32.
 */
NNL_RT void
nnl_k_matmul_int(const int64_t *ip, const double *fp, const void *const *in,
    void *const *out, void *scratch)
{
	int64_t adt = ip[0], bdt = ip[1], azdt = ip[2], bzdt = ip[3];
	int64_t M = ip[4], K = ip[5], N = ip[6], q = ip[7];
	const int64_t *bd = ip + 8, *as = bd + q, *bs = as + q;
	const int64_t *ar = bs + q, *ad = ar + 1, *azs = ad + ar[0];
	const int64_t *br = azs + ar[0], *bdm = br + 1, *bzs = bdm + br[0];
	int32_t *A = scratch, *B = A + nnl_numel((int)ar[0], ad);
	int32_t *C = out[0];
	int64_t nb = nnl_numel((int)q, bd), idx[NNL_MAXRANK] = { 0 };

	(void)fp;
	nnl_qint_shift(in[0], adt, in[2], azdt, ar[0], ad, azs, A);
	nnl_qint_shift(in[1], bdt, in[3], bzdt, br[0], bdm, bzs, B);
	for (int64_t t = 0; t < nb; t++, C += M * N) {
		const int32_t *a = A + nnl_qint_off(q, idx, as) * M * K;
		const int32_t *b = B + nnl_qint_off(q, idx, bs) * K * N;

		for (int64_t i = 0; i < M * N; i++)
			C[i] = 0;
		for (int64_t i = 0; i < M; i++)
			for (int64_t k = 0; k < K; k++) {
				uint32_t v = (uint32_t)a[i * K + k];

				for (int64_t j = 0; j < N; j++)
					C[i * N + j] = (int32_t)((uint32_t)
					    C[i * N + j] + v *
					    (uint32_t)b[k * N + j]);
			}
		nnl_qint_next(q, bd, idx);
	}
}

/*
 * conv2d_int: nchw input, oihw filter.  ip = input, filter and zero
 * point types (xdt, wdt, xzdt, wzdt), N, C, H, W, O, C per group, KH,
 * KW, OH, OW, groups, pads top and left, strides, dilations (h, w),
 * then the zero points' strides over the input's dims[4] and the
 * filter's.  The padding holds the zero point (0 once shifted).  in:
 * input, filter, their zero points.  out: int32.  scratch: both less
 * their zero points, int32.
 */
NNL_RT void
nnl_k_conv2d_int(const int64_t *ip, const double *fp, const void *const *in,
    void *const *out, void *scratch)
{
	int64_t N = ip[4], C = ip[5], H = ip[6], W = ip[7], O = ip[8],
	    cg = ip[9], KH = ip[10], KW = ip[11], OH = ip[12], OW = ip[13],
	    G = ip[14], pt = ip[15], pl = ip[16], sh = ip[17], sw = ip[18],
	    dh = ip[19], dw = ip[20];
	int64_t xd[4] = { N, C, H, W }, wd[4] = { O, cg, KH, KW };
	int32_t *xs = scratch, *ws = xs + N * C * H * W, *ys = out[0];
	int64_t og = O / G;

	(void)fp;
	nnl_qint_shift(in[0], ip[0], in[2], ip[2], 4, xd, ip + 21, xs);
	nnl_qint_shift(in[1], ip[1], in[3], ip[3], 4, wd, ip + 25, ws);
	for (int64_t n = 0; n < N; n++)
	for (int64_t o = 0; o < O; o++)
	for (int64_t oy = 0; oy < OH; oy++)
	for (int64_t ox = 0; ox < OW; ox++) {
		uint32_t acc = 0;

		for (int64_t c = 0; c < cg; c++)
		for (int64_t a = 0; a < KH; a++) {
			int64_t iy = oy * sh - pt + a * dh;
			const int32_t *xr, *wr;

			if (iy < 0 || iy >= H)
				continue;
			xr = xs + ((n * C + o / og * cg + c) * H + iy) * W;
			wr = ws + ((o * cg + c) * KH + a) * KW;
			for (int64_t b = 0; b < KW; b++) {
				int64_t ix = ox * sw - pl + b * dw;

				if (ix >= 0 && ix < W)
					acc += (uint32_t)xr[ix] *
					    (uint32_t)wr[b];
			}
		}
		ys[((n * O + o) * OH + oy) * OW + ox] = (int32_t)acc;
	}
}

/* x rounded to the nearest integer, ties to even. */
NNL_RT_INLINE double
nnl_qint_rint(double x)
{
	double r = floor(x), d = x - r;

	if (d > 0.5 || (d == 0.5 && fmod(r, 2) != 0))
		r += 1;
	return r;
}

/*
 * requant: int32 input times a float scale plus the zero point,
 * rounded to nearest even and saturated to the zero point's type, in
 * double (as ONNX's QLinearMatMul and QLinearConv compute it): ip =
 * scale type, zero point type, rank r, dims[r], the scale's strides[r]
 * and the zero point's (broadcast).  NaN gives the zero point.
 */
NNL_RT void
nnl_k_requant(const int64_t *ip, const double *fp, const void *const *in,
    void *const *out, void *scratch)
{
	int64_t sdt = ip[0], zdt = ip[1], r = ip[2];
	const int64_t *dims = ip + 3, *ss = dims + r, *zs = ss + r;
	int64_t n = nnl_numel((int)r, dims), idx[NNL_MAXRANK] = { 0 };
	double lo = zdt == NNL_I8 ? -128 : 0, hi = zdt == NNL_I8 ? 127 : 255;

	(void)fp;
	(void)scratch;
	for (int64_t i = 0; i < n; i++) {
		double z = (double)nnl_loadi(in[2], nnl_qint_off(r, idx, zs),
		    zdt);
		double v = (double)((const int32_t *)in[0])[i] *
		    nnl_loadf(in[1], nnl_qint_off(r, idx, ss), sdt) + z;

		v = v != v ? z : nnl_qint_rint(v);
		nnl_storei(out[0], i, zdt, (int64_t)(v < lo ? lo : v > hi ?
		    hi : v));
		nnl_qint_next(r, dims, idx);
	}
}

/*
 * tfidf: ONNX's TfIdfVectorizer.  ip = input type, B (rows; 1 for a
 * 1-D input), C (items a row), mode (0 TF, 1 IDF, 2 TFIDF), min and
 * max n, max skip, P (pool items), O (outputs), G (n-gram levels),
 * counts[G] (where each level's n-grams start in the pool), indexes
 * (the output index of each n-gram, in pool order), pool[P].  fp =
 * the weights (one per output index, or none: 1).  An n-gram of n
 * items is items i, i + s + 1, ... of a row, for skips s up to max;
 * with a skip of 0 only, each start counts once for every n.  out:
 * float32 [B, O] (or [O]).
 */
NNL_RT void
nnl_k_tfidf(const int64_t *ip, const double *fp, const void *const *in,
    void *const *out, void *scratch)
{
	int64_t dt = ip[0], B = ip[1], C = ip[2], mode = ip[3], lo = ip[4],
	    hi = ip[5], sk = ip[6], P = ip[7], O = ip[8], G = ip[9];
	const int64_t *cnt = ip + 10, *ix = cnt + G, *pool;
	int64_t ng = 0;
	float *y = out[0];

	(void)scratch;
	for (int64_t g = 0; g < G; g++)
		ng += ((g + 1 < G ? cnt[g + 1] : P) - cnt[g]) / (g + 1);
	pool = ix + ng;
	for (int64_t i = 0; i < B * O; i++)
		y[i] = 0;
	for (int64_t b = 0; b < B; b++) {
		float *yr = y + b * O;

		for (int64_t n = lo; n <= hi && n <= G; n++) {
			int64_t p0 = cnt[n - 1], p1 = n < G ? cnt[n] : P;
			int64_t first = 0;

			for (int64_t g = 0; g < n - 1; g++)
				first += ((g + 1 < G ? cnt[g + 1] : P) -
				    cnt[g]) / (g + 1);
			for (int64_t s = 0; s <= (n == 1 ? 0 : sk); s++)
			for (int64_t i = 0; i + (n - 1) * (s + 1) < C; i++)
			for (int64_t e = p0; e + n <= p1; e += n) {
				int64_t k = 0;

				while (k < n && nnl_loadi(in[0], b * C + i +
				    k * (s + 1), dt) == pool[e + k])
					k++;
				if (k == n)
					yr[ix[first + (e - p0) / n]] += 1;
			}
		}
		for (int64_t o = 0; o < O; o++)
			if (mode == 1 && yr[o] > 0)
				yr[o] = (float)fp[o];
			else if (mode == 2)
				yr[o] = (float)((double)yr[o] * fp[o]);
	}
}
