/*
 * test_dwconv: the depthwise convolution kernels (rt/f32-dwconv/dwconv.c) against
 * a convolution computed here in double precision, with the padding
 * and activation written out from their definitions.  Shapes cover the
 * vector path and its ragged edges: widths below, at and past the
 * vector width (NNL_VW), strides 1 to 3, dilation, asymmetric and
 * oversized padding, both image layouts, both filter orders, with and
 * without bias, and every fused activation; and, at stride 1 on planes
 * the same size, written over the input (nnl-plan-memory's in-place
 * depthwise convolutions), rows of a vector or more too.  Tolerance:
 * 1e-5 of the sum of |w * x| + |bias|.
 */
#include <math.h>
#include <stdlib.h>

#include "check.h"
#define NNL_RT
#include "rt/rt.h"

static unsigned long rng = 77;

static float
rnd(void)
{
	rng = rng * 6364136223846793005ull + 1442695040888963407ull;
	return (float)((double)(rng >> 40) / (double)(1ull << 24) * 2 - 1);
}

static double
act_ref(double v, int act, double a, double b)
{
	switch (act) {
	case NNL_ACT_RELU: return v > 0 ? v : 0;
	case NNL_ACT_CLAMP: return v < a ? a : v > b ? b : v;
	case NNL_ACT_SIGMOID: return 1 / (1 + exp(-v));
	case NNL_ACT_HARDSWISH: return v * fmin(fmax(v + 3, 0), 6) / 6;
	case NNL_ACT_LEAKYRELU: return v >= 0 ? v : a * v;
	default: return v;
	}
}

/*
 * One convolution: C channels of H x W, filter kh x kw, strides s,
 * dilations d, padding top/left pt, pl (bottom/right make the output
 * OH x OW given).  wko: filter stored [kh, kw, C] rather than [C, kh,
 * kw].  inplace: y is x (an nchw output of the input's size).
 */
static int
conv_at(int nhwc, int wko, int hasb, int act, int inplace, int64_t C,
    int64_t H, int64_t W, int64_t kh, int64_t kw, int64_t sh, int64_t sw,
    int64_t dh, int64_t dw, int64_t pt, int64_t pb, int64_t pl, int64_t pr)
{
	int64_t OH = (H + pt + pb - (kh - 1) * dh - 1) / sh + 1;
	int64_t OW = (W + pl + pr - (kw - 1) * dw - 1) / sw + 1;
	int64_t ip[22] = { nhwc, 1, C, H, W, C, OH, OW, kh, kw, sh, sw, dh,
	    dw, pt, pb, pl, pr, C, wko ? 3 : 0, hasb, act };
	int64_t wc = wko ? 1 : kh * kw, wt = wko ? C : 1;
	float *x = malloc((size_t)(C * H * W) * 4);
	float *w = malloc((size_t)(C * kh * kw) * 4);
	float *b = malloc((size_t)C * 4);
	float *y = malloc((size_t)(C * OH * OW + 1) * 4);
	float *xin = x;
	double lo = -0.25, hi = 0.5, fa = act == NNL_ACT_LEAKYRELU ? 0.1 : lo;
	int ok = 1;

	for (int64_t i = 0; i < C * H * W; i++)
		x[i] = rnd();
	if (inplace) {		/* the kernel reads xin, which is y */
		xin = y;
		memcpy(xin, x, (size_t)(C * H * W) * 4);
	}
	for (int64_t i = 0; i < C * kh * kw; i++)
		w[i] = rnd();
	for (int64_t i = 0; i < C; i++)
		b[i] = rnd();
	float *pad = malloc((size_t)nnl_dw_scratch(ip) * 4);

	/* the scratch as a previous node leaves it: nothing is zero */
	for (int64_t i = 0; i < nnl_dw_scratch(ip); i++)
		pad[i] = NAN;

	y[C * OH * OW] = 12345;		/* must stay */
	if (nhwc)
		nnl_conv_dw_nhwc(x, w, wc, wt, hasb ? b : NULL, y, ip, act,
		    (float)fa, (float)hi);
	else
		nnl_conv_dw_nchw(xin, w, wc, wt, hasb ? b : NULL, y, ip, act,
		    (float)fa, (float)hi, pad);
	for (int64_t c = 0; c < C && ok; c++)
	for (int64_t oy = 0; oy < OH && ok; oy++)
	for (int64_t ox = 0; ox < OW && ok; ox++) {
		double s = hasb ? b[c] : 0, mag = fabs(s), want, got;

		for (int64_t a = 0; a < kh; a++)
		for (int64_t e = 0; e < kw; e++) {
			int64_t iy = oy * sh - pt + a * dh;
			int64_t ix = ox * sw - pl + e * dw;
			double p;

			if (iy < 0 || iy >= H || ix < 0 || ix >= W)
				continue;
			p = (double)w[c * wc + (a * kw + e) * wt] *
			    x[nhwc ? (iy * W + ix) * C + c :
			    (c * H + iy) * W + ix];
			s += p;
			mag += fabs(p);
		}
		want = act_ref(s, act, fa, hi);
		got = y[nhwc ? (oy * OW + ox) * C + c :
		    (c * OH + oy) * OW + ox];
		if (fabs(got - want) > 1e-5 * (mag + 1)) {
			fprintf(stderr, "  y[%lld,%lld,%lld] = %.9g, want "
			    "%.9g\n", (long long)c, (long long)oy,
			    (long long)ox, got, want);
			ok = 0;
		}
	}
	if (y[C * OH * OW] != 12345)
		ok = 0;
	if (!ok)
		fprintf(stderr, "  nhwc %d wko %d bias %d act %d in place %d "
		    "C %lld %lldx%lld k %lldx%lld s %lld,%lld d %lld,%lld pad "
		    "%lld,%lld,%lld,%lld (NNL_VW %d)\n", nhwc, wko, hasb, act,
		    inplace,
		    (long long)C, (long long)H, (long long)W, (long long)kh,
		    (long long)kw, (long long)sh, (long long)sw, (long long)dh,
		    (long long)dw, (long long)pt, (long long)pb, (long long)pl,
		    (long long)pr, NNL_VW);
	free(x);
	free(w);
	free(b);
	free(y);
	free(pad);
	return ok;
}

static int
conv(int nhwc, int wko, int hasb, int act, int64_t C, int64_t H,
    int64_t W, int64_t kh, int64_t kw, int64_t sh, int64_t sw, int64_t dh,
    int64_t dw, int64_t pt, int64_t pb, int64_t pl, int64_t pr)
{
	return conv_at(nhwc, wko, hasb, act, 0, C, H, W, kh, kw, sh, sw, dh,
	    dw, pt, pb, pl, pr);
}

/* C, H, W, kh, kw, sh, sw, dh, dw, pt, pb, pl, pr */
static const int64_t shapes[][13] = {
	{ 3, 7, 7, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1 },
	{ 5, 20, 37, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1 },
	{ 4, 21, 35, 3, 3, 2, 2, 1, 1, 0, 1, 0, 1 },
	{ 2, 33, 70, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1 },
	{ 3, 16, 64, 5, 5, 1, 1, 1, 1, 2, 2, 2, 2 },
	{ 2, 19, 50, 3, 5, 3, 3, 2, 2, 3, 0, 1, 4 },
	{ 2, 9, 18, 3, 3, 1, 2, 1, 3, 4, 4, 5, 5 },
	{ 17, 6, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0 },
	{ 40, 5, 17, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1 },
	{ 1, 4, 3, 5, 7, 1, 1, 1, 1, 2, 2, 3, 3 },
	{ 3, 20, 45, 3, 3, 3, 3, 2, 2, 2, 1, 0, 3 },
	{ 2, 3, 5, 3, 3, 1, 1, 2, 1, 2, 2, 1, 1 },
	/* 3 x 3 stride 1 pad 1: rows of a vector or more straight from
	 * the image, narrower ones in blocks of channels (a block and a
	 * part, planes of fewer pixels than a vector) */
	{ 37, 7, 7, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1 },
	{ 19, 9, 11, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1 },
	{ 18, 3, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1 },
	{ 6, 14, 14, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1 },
	{ 3, 16, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1 },
	{ 4, 15, 17, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1 },
	{ 3, 16, 17, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1 },
	{ 5, 1, 1, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1 },
	{ 5, 1, 13, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1 },
	{ 5, 9, 1, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1 },
	{ 4, 2, 9, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1 },
	{ 3, 28, 28, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1 },
	{ 2, 20, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1 },
	{ 2, 19, 33, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1 },
	{ 2, 7, 64, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1 },
	/* 3 x 3 stride 2: blocks of channels, the phase planes, rows
	 * below and past a vector, padding 0 to 2 on either side */
	{ 37, 14, 14, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1 },
	{ 17, 15, 13, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1 },
	{ 6, 14, 14, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1 },
	{ 5, 28, 28, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1 },
	{ 2, 56, 56, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1 },
	{ 3, 13, 9, 3, 3, 2, 2, 1, 1, 1, 0, 1, 0 },
	{ 2, 3, 4, 3, 3, 2, 2, 1, 1, 2, 2, 2, 2 },
	{ 3, 1, 1, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1 },
	{ 2, 15, 40, 3, 3, 2, 2, 1, 1, 0, 0, 0, 0 },
	{ 2, 9, 33, 3, 3, 2, 2, 1, 1, 1, 2, 2, 1 },
	{ 4, 7, 70, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1 },
	/* 3 x 3 stride 2 pad 1, rows of a vector or more: straight from
	 * the image, whole rows of vectors and ragged ones */
	{ 3, 40, 64, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1 },
	{ 2, 10, 100, 3, 3, 2, 2, 1, 1, 1, 0, 1, 0 },
	{ 2, 12, 34, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1 },
	{ 3, 9, 112, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1 },
	/* 5 x 5 and 7 x 7 (EfficientNet, ConvNeXt) and other sizes, in
	 * general channel blocks: channels a block, part of one, several
	 * and a ragged last; strides 1 to 3, dilation, padding none,
	 * asymmetric, past the filter; planes narrower than a vector,
	 * outputs narrower than a tile of pixels; and planes past
	 * NNL_DW_BIG pixels padded, which take the rows */
	{ 16, 14, 14, 5, 5, 1, 1, 1, 1, 2, 2, 2, 2 },
	{ 37, 14, 14, 5, 5, 2, 2, 1, 1, 2, 2, 2, 2 },
	{ 33, 7, 7, 5, 5, 1, 1, 1, 1, 2, 2, 2, 2 },
	{ 5, 28, 28, 5, 5, 1, 1, 1, 1, 2, 2, 2, 2 },
	{ 7, 56, 56, 5, 5, 2, 2, 1, 1, 2, 2, 2, 2 },
	{ 3, 57, 55, 5, 5, 2, 2, 1, 1, 1, 2, 2, 1 },
	{ 17, 7, 7, 7, 7, 1, 1, 1, 1, 3, 3, 3, 3 },
	{ 19, 14, 14, 7, 7, 1, 1, 1, 1, 3, 3, 3, 3 },
	{ 3, 56, 56, 7, 7, 1, 1, 1, 1, 3, 3, 3, 3 },
	{ 2, 70, 66, 7, 7, 1, 1, 1, 1, 3, 3, 3, 3 },
	{ 21, 13, 11, 7, 7, 2, 2, 1, 1, 3, 3, 3, 3 },
	{ 9, 20, 23, 7, 7, 2, 1, 1, 1, 0, 0, 3, 3 },
	{ 6, 19, 17, 5, 5, 1, 1, 2, 2, 4, 4, 4, 4 },
	{ 6, 18, 25, 5, 7, 3, 2, 2, 1, 1, 3, 0, 5 },
	{ 4, 5, 6, 7, 7, 1, 1, 1, 1, 6, 6, 7, 7 },
	{ 11, 3, 2, 5, 5, 2, 2, 1, 1, 2, 2, 2, 2 },
	{ 18, 9, 9, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0 },
	{ 5, 12, 12, 2, 2, 2, 2, 1, 1, 0, 0, 0, 0 },
	{ 3, 8, 8, 5, 5, 1, 1, 1, 1, 0, 0, 0, 0 },
};

TEST(depthwise_matches_definition)
{
	size_t ns = sizeof shapes / sizeof shapes[0];

	for (size_t s = 0; s < ns; s++)
	for (int v = 0; v < 4; v++) {
		const int64_t *t = shapes[s];

		CHECK(conv(v & 1, v >> 1, 1, NNL_ACT_NONE, t[0], t[1], t[2],
		    t[3], t[4], t[5], t[6], t[7], t[8], t[9], t[10], t[11],
		    t[12]));
	}
}

TEST(depthwise_epilogue)
{
	for (int act = NNL_ACT_NONE; act <= NNL_ACT_LEAKYRELU; act++)
	for (int v = 0; v < 4; v++) {
		CHECK(conv(v & 1, v >> 1, act & 1, act, 19, 23, 41, 3, 3, 1,
		    1, 1, 1, 1, 1, 1, 1));
		CHECK(conv(v & 1, v >> 1, 1, act, 33, 14, 29, 3, 3, 2, 2, 1,
		    1, 0, 1, 0, 1));
		CHECK(conv(v & 1, v >> 1, act & 1, act, 21, 7, 7, 3, 3, 1, 1,
		    1, 1, 1, 1, 1, 1));
		CHECK(conv(v & 1, v >> 1, act & 1, act, 23, 14, 14, 7, 7, 1,
		    1, 1, 1, 3, 3, 3, 3));
		CHECK(conv(v & 1, v >> 1, 1, act, 18, 15, 15, 5, 5, 2, 2, 1,
		    1, 2, 2, 2, 2));
	}
}

/* Output over the input: 3 x 3, stride 1, pad 1, planes of at most
 * 1024 pixels padded (what nnl-plan-memory gives in place), in blocks
 * of channels, and rows of a vector or more, which the kernel would
 * read from the image after writing it. */
/* Output over the input at 5 x 5 and 7 x 7, stride 1, same size: the
 * general channel blocks read a block whole before writing it. */
TEST(depthwise_in_place_general)
{
	static const int64_t p[][4] = {
		{ 37, 7, 7, 5 }, { 19, 14, 14, 7 }, { 3, 28, 28, 5 },
		{ 20, 9, 11, 7 },
	};

	for (size_t s = 0; s < sizeof p / sizeof p[0]; s++)
	for (int v = 0; v < 4; v++) {
		int64_t k = p[s][3];

		CHECK(conv_at(0, v & 1, 1, v < 2 ? NNL_ACT_CLAMP :
		    NNL_ACT_SIGMOID, 1, p[s][0], p[s][1], p[s][2], k, k, 1,
		    1, 1, 1, k / 2, k / 2, k / 2, k / 2));
	}
}

TEST(depthwise_in_place)
{
	static const int64_t p[][3] = {
		{ 37, 7, 7 }, { 19, 9, 11 }, { 6, 14, 14 }, { 3, 16, 16 },
		{ 4, 15, 17 }, { 5, 1, 13 }, { 3, 28, 28 }, { 2, 20, 16 },
		{ 2, 19, 30 }, { 2, 7, 64 },
	};

	for (size_t s = 0; s < sizeof p / sizeof p[0]; s++)
	for (int v = 0; v < 4; v++)
		CHECK(conv_at(0, v & 1, 1, v < 2 ? NNL_ACT_CLAMP :
		    NNL_ACT_SIGMOID, 1, p[s][0], p[s][1], p[s][2], 3, 3, 1, 1,
		    1, 1, 1, 1, 1, 1));
}

int
main(void)
{
	RUN(depthwise_matches_definition);
	RUN(depthwise_epilogue);
	RUN(depthwise_in_place);
	RUN(depthwise_in_place_general);
	return DONE();
}
