/*
 * test_pool: max and average pooling (rt/nn/nn.c's pool2d, whose nchw
 * planes run in vectors) against pooling computed here in double from
 * the definition: the window's real cells only, padding taking no part.
 * Shapes cover ragged vector edges (widths below, at and past the
 * vector width), strides 1 to 3, dilation, asymmetric padding and the
 * extra right padding of ceil rounding, a window with no real cell, a
 * global pool, NaN inputs, a row too wide for the vector path's
 * buffer, 2 x 2 windows at stride 2 and 3 x 3 ones of rows wider and
 * narrower than a vector (their own paths).  Tolerance: 1e-6 relative
 * for the average, exact for max.
 */
#include <math.h>
#include <stdlib.h>

#include "check.h"
#define NNL_RT
#include "rt/rt.h"

NNL_RT void nnl_k_pool2d_f32(const int64_t *ip, const double *fp,
    const void *const *in, void *const *out, void *scratch);

static unsigned long rng = 5;

static float
rnd(void)
{
	rng = rng * 6364136223846793005ull + 1442695040888963407ull;
	return (float)((double)(rng >> 40) / (double)(1ull << 24) * 2 - 1);
}

/* kind 0 average, 2 max; N x C planes of H x W; window kh x kw. */
static int
pool(int kind, int64_t N, int64_t C, int64_t H, int64_t W, int64_t kh,
    int64_t kw, int64_t sh, int64_t sw, int64_t dh, int64_t dw, int64_t pt,
    int64_t pb, int64_t pl, int64_t pr, int nan)
{
	int64_t OH = (H + pt + pb - (kh - 1) * dh - 1) / sh + 1;
	int64_t OW = (W + pl + pr - (kw - 1) * dw - 1) / sw + 1;
	int64_t ip[18] = { kind, 0, N, C, H, W, OH, OW, kh, kw, sh, sw, dh,
	    dw, pt, pb, pl, pr };
	int64_t nx = N * C * H * W, ny = N * C * OH * OW;
	float *x = malloc((size_t)nx * 4), *y = malloc((size_t)(ny + 1) * 4);
	const void *in[1];
	void *out[1];
	double fp[2] = { 0, 0 };
	int ok = 1;

	for (int64_t i = 0; i < nx; i++)
		x[i] = nan && i % 7 == 3 ? NAN : rnd();
	in[0] = x;
	out[0] = y;
	y[ny] = 99;
	nnl_k_pool2d_f32(ip, fp, in, out, NULL);
	for (int64_t p = 0; p < N * C && ok; p++)
	for (int64_t oy = 0; oy < OH && ok; oy++)
	for (int64_t ox = 0; ox < OW && ok; ox++) {
		double s = kind == 2 ? -INFINITY : 0, got;
		int64_t n = 0;

		for (int64_t a = 0; a < kh; a++)
		for (int64_t b = 0; b < kw; b++) {
			int64_t iy = oy * sh - pt + a * dh;
			int64_t ix = ox * sw - pl + b * dw;
			double v;

			if (iy < 0 || iy >= H || ix < 0 || ix >= W)
				continue;
			v = x[(p * H + iy) * W + ix];
			n++;
			if (kind == 2)
				s = v > s ? v : s;	/* NaN never wins */
			else
				s += v;
		}
		if (kind == 0)
			s = n ? s / (double)n : 0;
		got = y[(p * OH + oy) * OW + ox];
		if (kind == 2 ? !(got == s) : isnan(s) ? !isnan(got) :
		    fabs(got - s) > 1e-6 * (fabs(s) + 1)) {
			fprintf(stderr, "  kind %d y[%lld,%lld,%lld] = %.9g, "
			    "want %.9g (H %lld W %lld k %lldx%lld s %lld,%lld"
			    " d %lld,%lld pad %lld,%lld,%lld,%lld)\n", kind,
			    (long long)p, (long long)oy, (long long)ox, got, s,
			    (long long)H, (long long)W, (long long)kh,
			    (long long)kw, (long long)sh, (long long)sw,
			    (long long)dh, (long long)dw, (long long)pt,
			    (long long)pb, (long long)pl, (long long)pr);
			ok = 0;
		}
	}
	if (y[ny] != 99)
		ok = 0;
	free(x);
	free(y);
	return ok;
}

/* H, W, kh, kw, sh, sw, dh, dw, pt, pb, pl, pr */
static const int64_t shapes[][12] = {
	{ 7, 7, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1 },
	{ 111, 111, 3, 3, 2, 2, 1, 1, 0, 1, 0, 1 },
	{ 28, 28, 2, 2, 2, 2, 1, 1, 0, 0, 0, 0 },
	{ 13, 13, 13, 13, 1, 1, 1, 1, 0, 0, 0, 0 },
	{ 9, 40, 3, 5, 3, 3, 2, 2, 2, 0, 1, 4 },
	{ 5, 17, 3, 3, 1, 2, 1, 1, 0, 0, 0, 2 },
	{ 6, 33, 2, 3, 2, 3, 1, 1, 1, 1, 2, 2 },
	{ 4, 4, 2, 2, 1, 1, 1, 1, 3, 0, 3, 0 },	/* windows of padding */
	{ 3, 1100, 2, 3, 1, 2, 1, 1, 0, 0, 1, 1 },	/* too wide */
	/* rows whose last vector runs past their end */
	{ 27, 27, 3, 3, 2, 2, 1, 1, 0, 0, 0, 0 },
	{ 55, 55, 3, 3, 2, 2, 1, 1, 0, 0, 0, 0 },
	{ 7, 65, 3, 3, 2, 2, 1, 1, 0, 0, 0, 0 },	/* whole vectors */
	{ 8, 34, 3, 3, 2, 2, 1, 1, 0, 0, 0, 0 },
	{ 20, 21, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2 },
	{ 3, 5, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1 },
	/* rows of fewer outputs than a vector: a row, a column, rows
	 * that end a plane or read past the last, the widest */
	{ 4, 30, 3, 3, 2, 2, 1, 1, 0, 0, 0, 0 },
	{ 15, 7, 3, 3, 2, 2, 1, 1, 0, 0, 0, 0 },
	{ 3, 3, 3, 3, 2, 2, 1, 1, 0, 0, 0, 0 },
	{ 9, 13, 3, 3, 2, 2, 1, 1, 0, 0, 0, 0 },
	{ 31, 31, 3, 3, 2, 2, 1, 1, 0, 0, 0, 0 },
	/* 2 x 2 windows at stride 2: odd sizes, a row of several
	 * vectors and a ragged end, one too wide for the row buffer */
	{ 14, 14, 2, 2, 2, 2, 1, 1, 0, 0, 0, 0 },
	{ 9, 71, 2, 2, 2, 2, 1, 1, 0, 0, 0, 0 },
	{ 2, 3, 2, 2, 2, 2, 1, 1, 0, 0, 0, 0 },
	{ 4, 2500, 2, 2, 2, 2, 1, 1, 0, 0, 0, 0 },
	{ 5, 8, 2, 2, 2, 2, 1, 1, 0, 1, 0, 1 },	/* ceil rounding */
};

TEST(pooling_matches_definition)
{
	for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
	for (int kind = 0; kind <= 2; kind += 2) {
		const int64_t *t = shapes[s];

		CHECK(pool(kind, 2, 3, t[0], t[1], t[2], t[3], t[4], t[5],
		    t[6], t[7], t[8], t[9], t[10], t[11], 0));
	}
}

TEST(pooling_nan)
{
	for (int kind = 0; kind <= 2; kind += 2) {
		CHECK(pool(kind, 1, 2, 9, 21, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1,
		    1));
		CHECK(pool(kind, 1, 2, 9, 21, 3, 3, 1, 1, 1, 1, 0, 0, 0, 0,
		    1));
		CHECK(pool(kind, 1, 2, 10, 67, 2, 2, 2, 2, 1, 1, 0, 0, 0, 0,
		    1));
		CHECK(pool(kind, 1, 2, 9, 67, 3, 3, 2, 2, 1, 1, 0, 0, 0, 0,
		    1));
	}
}

int
main(void)
{
	RUN(pooling_matches_definition);
	RUN(pooling_nan);
	return DONE();
}
