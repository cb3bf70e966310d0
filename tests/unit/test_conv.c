/*
 * test_conv: conv2d of nchw images through im2col and the SGEMM
 * (rt/nn/nn.c's nnl_k_conv2d_f32) against a convolution computed here in
 * double precision from its definition.  Shapes cover the im2col row
 * copies: strides 1 to 3 (stride 2 takes the vector path of even
 * lanes), widths below, at and past every vector width, padding on
 * either side and wider than the filter, dilation, groups, the banded
 * and the flipped (output [P, O]) forms, first layers straight from
 * the image, both filter orders, 1x1 convolutions multiplying the
 * image itself, depthwise ones; each without and with a residual (an
 * operand added after the bias, before the activation: nnl-fuse's).
 * Tolerance: 1e-5 of the sum of |w * x| + |bias| (+ |residual|).
 */
#include <math.h>
#include <stdlib.h>

#include "check.h"
#define NNL_RT
#include "rt/rt.h"

NNL_RT void nnl_k_conv2d_f32(const int64_t *ip, const double *fp,
    const void *const *in, void *const *out, void *scratch);

static unsigned long rng = 91;

static float
rnd(void)
{
	rng = rng * 6364136223846793005ull + 1442695040888963407ull;
	return (float)((double)(rng >> 40) / (double)(1ull << 24) * 2 - 1);
}

/* C, O, groups, H, W, kh, kw, sh, sw, dh, dw, pt, pb, pl, pr */
static const int64_t shapes[][15] = {
	{ 3, 8, 1, 23, 23, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1 },
	{ 3, 16, 1, 40, 77, 7, 7, 2, 2, 1, 1, 3, 3, 3, 3 },
	{ 3, 5, 1, 16, 33, 3, 3, 2, 2, 1, 1, 0, 0, 0, 0 },
	{ 2, 6, 1, 9, 64, 3, 3, 2, 2, 1, 1, 0, 1, 0, 1 },
	{ 4, 7, 1, 12, 31, 5, 5, 2, 2, 2, 2, 4, 4, 4, 4 },
	{ 2, 4, 1, 11, 70, 3, 3, 2, 2, 1, 1, 6, 6, 7, 7 },
	{ 4, 6, 2, 14, 50, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1 },
	{ 3, 9, 1, 15, 40, 3, 5, 3, 3, 1, 1, 1, 2, 2, 1 },
	{ 5, 4, 1, 13, 19, 3, 3, 1, 1, 1, 2, 1, 1, 2, 2 },
	{ 6, 12, 3, 10, 21, 3, 3, 1, 2, 1, 1, 1, 1, 1, 1 },
	/* 3 x 3 stride 2 over up to 4 channels, rows of a vector or more
	 * (first layers): straight from the image, groups of channels
	 * whole and ragged, padding 0 and 1, a row of padding below */
	{ 3, 32, 1, 21, 224, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1 },
	{ 3, 64, 1, 9, 223, 3, 3, 2, 2, 1, 1, 0, 0, 0, 0 },
	{ 4, 21, 1, 13, 72, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1 },
	{ 1, 17, 1, 6, 40, 3, 3, 2, 2, 1, 1, 0, 1, 0, 0 },
	/* Kd >= 128 and at least 32 outputs at fewer than 1024
	 * positions: the flipped form */
	{ 32, 40, 1, 9, 9, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1 },
	{ 16, 40, 1, 9, 9, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1 },
	{ 160, 64, 1, 7, 7, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0 },
	{ 30, 33, 1, 17, 34, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1 },
	/* im2col in three bands of output rows */
	{ 16, 12, 1, 40, 60, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1 },
	/* 1 x 1 at stride 1, unpadded: the image itself */
	{ 16, 24, 1, 20, 21, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0 },
	/* depthwise (rt/f32-dwconv/dwconv.c) */
	{ 20, 20, 20, 12, 13, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1 },
	{ 8, 8, 8, 15, 18, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1 },
};

static int
conv(const int64_t *s, int wko, int act, int res)
{
	int64_t C = s[0], O = s[1], G = s[2], H = s[3], W = s[4], kh = s[5],
	    kw = s[6], sh = s[7], sw = s[8], dh = s[9], dw = s[10],
	    pt = s[11], pb = s[12], pl = s[13], pr = s[14];
	int64_t OH = (H + pt + pb - (kh - 1) * dh - 1) / sh + 1;
	int64_t OW = (W + pl + pr - (kw - 1) * dw - 1) / sw + 1;
	int64_t icg = C / G, ocg = O / G, Kd = icg * kh * kw, P = OH * OW;
	int64_t ip[22] = { 0, 1, C, H, W, O, OH, OW, kh, kw, sh, sw, dh, dw,
	    pt, pb, pl, pr, G, wko ? 3 : 0, 1, act };
	double fp[2] = { -0.5, 0.75 };
	int64_t big = P > ocg ? P : ocg;
	size_t ns = (size_t)(nnl_packsize(big < 4 ? 4 : big, big, Kd) +
	    2 * Kd * P + P * ocg + 4096);
	float *x = malloc((size_t)(C * H * W) * 4);
	float *w = malloc((size_t)(O * Kd) * 4);
	float *b = malloc((size_t)O * 4);
	float *y = malloc((size_t)(O * P + 1) * 4);
	float *r = res ? malloc((size_t)(O * P) * 4) : NULL;
	float *scratch = malloc(ns * 4);
	const void *in[4] = { x, w, b, r };
	void *out[1] = { y };
	int ok = 1;

	for (int64_t i = 0; i < C * H * W; i++)
		x[i] = rnd();
	for (int64_t i = 0; i < O * Kd; i++)
		w[i] = rnd();
	for (int64_t i = 0; i < O; i++)
		b[i] = rnd();
	for (int64_t i = 0; res && i < O * P; i++)
		r[i] = 2 * rnd();
	y[O * P] = 12345;		/* must stay */
	nnl_k_conv2d_f32(ip, fp, in, out, scratch);
	for (int64_t o = 0; o < O && ok; o++)
	for (int64_t oy = 0; oy < OH && ok; oy++)
	for (int64_t ox = 0; ox < OW && ok; ox++) {
		int64_t g = o / ocg, oo = o % ocg;
		double sum = b[o], mag = fabs(sum), got;

		for (int64_t c = 0; c < icg; c++)
		for (int64_t a = 0; a < kh; a++)
		for (int64_t e = 0; e < kw; e++) {
			int64_t iy = oy * sh - pt + a * dh;
			int64_t ix = ox * sw - pl + e * dw;
			/* oihw [O][icg][kh][kw]; ihwo [icg][kh][kw][O] */
			int64_t wi = wko ? ((c * kh + a) * kw + e) * O +
			    g * ocg + oo : ((o * icg + c) * kh + a) * kw + e;
			double p;

			if (iy < 0 || iy >= H || ix < 0 || ix >= W)
				continue;
			p = (double)w[wi] * x[((g * icg + c) * H + iy) * W +
			    ix];
			sum += p;
			mag += fabs(p);
		}
		if (r) {
			sum += r[(o * OH + oy) * OW + ox];
			mag += fabs(r[(o * OH + oy) * OW + ox]);
		}
		if (act == NNL_ACT_RELU && sum < 0)
			sum = 0;
		if (act == NNL_ACT_CLAMP)
			sum = sum < fp[0] ? fp[0] : sum > fp[1] ? fp[1] : sum;
		if (act == NNL_ACT_SIGMOID)
			sum = 1 / (1 + exp(-sum));
		got = y[(o * OH + oy) * OW + ox];
		if (fabs(got - sum) > 1e-5 * (mag + 1)) {
			fprintf(stderr, "  y[%lld,%lld,%lld] = %.9g, want "
			    "%.9g\n", (long long)o, (long long)oy,
			    (long long)ox, got, sum);
			ok = 0;
		}
	}
	if (y[O * P] != 12345)
		ok = 0;
	if (!ok)
		fprintf(stderr, "  shape %lld->%lld g %lld %lldx%lld k "
		    "%lldx%lld s %lld,%lld wko %d act %d res %d (NNL_VW %d)\n",
		    (long long)C, (long long)O, (long long)G, (long long)H,
		    (long long)W, (long long)kh, (long long)kw,
		    (long long)sh, (long long)sw, wko, act, res, NNL_VW);
	free(x);
	free(w);
	free(b);
	free(y);
	free(r);
	free(scratch);
	return ok;
}

TEST(conv_im2col_matches_definition)
{
	for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
		for (int wko = 0; wko < 2; wko++)
			CHECK(conv(shapes[i], wko, wko ? NNL_ACT_RELU :
			    NNL_ACT_NONE, 0));
}

/* The residual comes after the bias and before the activation (relu
 * and clamp, which the microkernels and the direct kernels otherwise
 * apply as they store, and sigmoid, which comes after), on every path:
 * the epilogue of the products, the flipped form's transposition, the
 * first layers' and the depthwise kernels. */
TEST(conv_residual_before_activation)
{
	static const int acts[] = { NNL_ACT_NONE, NNL_ACT_RELU,
	    NNL_ACT_CLAMP, NNL_ACT_SIGMOID };

	for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
		for (int wko = 0; wko < 2; wko++)
			for (int a = 0; a < 4; a++)
				CHECK(conv(shapes[i], wko, acts[a], 1));
}

int
main(void)
{
	RUN(conv_im2col_matches_definition);
	RUN(conv_residual_before_activation);
	return DONE();
}
