/*
 * test_wino: rt/f32-winograd/wino.c's Winograd F(2 x 2, 3 x 3) convolution against
 * the definition of a 3 x 3 convolution at stride 1, computed here in
 * double from the untransformed filter.  The transformed filter U =
 * G g G^T is written out here too, from Lavin and Gray's matrices.
 * Shapes cover odd and even outputs (a last tile half outside), widths
 * below, at and past a vector of tiles, padding 0 to 2 on each side
 * (asymmetric), fewer than 4 output channels (the SGEMM's row path),
 * several blocks of tile rows, products by tiles as rows of M as
 * well as by output channels, bias, relu and clamp.  Tolerance:
 * 1e-5 of the sum of the products' magnitudes.
 */
#include <math.h>
#include <stdlib.h>

#include "check.h"
#define NNL_RT
#include "rt/rt.h"

static unsigned long rng = 11;

static float
rnd(void)
{
	rng = rng * 6364136223846793005ull + 1442695040888963407ull;
	return (float)((double)(rng >> 40) / (double)(1ull << 24) * 2 - 1);
}

/* U[xi][c][o] = (G g G^T)[xi] for filter g[o][c][3][3] */
static void
transform(int64_t C, int64_t O, const float *g, float *U)
{
	static const double G[4][3] = { { 1, 0, 0 }, { .5, .5, .5 },
	    { .5, -.5, .5 }, { 0, 0, 1 } };

	for (int64_t o = 0; o < O; o++)
	for (int64_t c = 0; c < C; c++)
	for (int r = 0; r < 4; r++)
	for (int s = 0; s < 4; s++) {
		double u = 0;

		for (int a = 0; a < 3; a++)
			for (int b = 0; b < 3; b++)
				u += G[r][a] * g[((o * C + c) * 3 + a) * 3 +
				    b] * G[s][b];
		U[((r * 4 + s) * C + c) * O + o] = (float)u;
	}
}

static int
wino(int64_t C, int64_t O, int64_t H, int64_t W, int64_t pt, int64_t pb,
    int64_t pl, int64_t pr, int hasb, int64_t act)
{
	int64_t OH = H + pt + pb - 2, OW = W + pl + pr - 2, ny = O * OH * OW;
	float *x = malloc((size_t)(C * H * W) * 4);
	float *g = malloc((size_t)(O * C * 9) * 4);
	float *U = malloc((size_t)(16 * C * O) * 4), *b = malloc((size_t)O * 4);
	float *y = malloc((size_t)(ny + 1) * 4);
	float *sc = malloc((size_t)nnl_wino_scratch(C, O, OH, OW, 1) * 4);
	float lo = -0.25f, hi = 0.5f;
	int ok = 1;

	for (int64_t i = 0; i < C * H * W; i++)
		x[i] = rnd();
	for (int64_t i = 0; i < O * C * 9; i++)
		g[i] = rnd();
	for (int64_t i = 0; i < O; i++)
		b[i] = rnd();
	transform(C, O, g, U);
	y[ny] = 99;
	nnl_conv_wino_nchw(x, U, hasb ? b : NULL, y, C, H, W, O, OH, OW, pt,
	    pl, act, lo, hi, sc);
	for (int64_t o = 0; o < O && ok; o++)
	for (int64_t oy = 0; oy < OH && ok; oy++)
	for (int64_t ox = 0; ox < OW && ok; ox++) {
		double s = hasb ? b[o] : 0, mag = fabs(s), got;

		for (int64_t c = 0; c < C; c++)
		for (int a = 0; a < 3; a++)
		for (int e = 0; e < 3; e++) {
			int64_t iy = oy - pt + a, ix = ox - pl + e;
			double p;

			if (iy < 0 || iy >= H || ix < 0 || ix >= W)
				continue;
			p = (double)x[(c * H + iy) * W + ix] *
			    g[((o * C + c) * 3 + a) * 3 + e];
			s += p;
			mag += fabs(p);
		}
		if (act == NNL_ACT_RELU)
			s = s > 0 ? s : 0;
		else if (act == NNL_ACT_CLAMP)
			s = s < lo ? lo : s > hi ? hi : s;
		got = y[(o * OH + oy) * OW + ox];
		if (fabs(got - s) > 1e-5 * (mag + 1)) {
			fprintf(stderr, "  C %lld O %lld H %lld W %lld pad "
			    "%lld,%lld,%lld,%lld: y[%lld,%lld,%lld] = %.9g, "
			    "want %.9g\n", (long long)C, (long long)O,
			    (long long)H, (long long)W, (long long)pt,
			    (long long)pb, (long long)pl, (long long)pr,
			    (long long)o, (long long)oy, (long long)ox, got,
			    s);
			ok = 0;
		}
	}
	if (y[ny] != 99)
		ok = 0;
	free(x);
	free(g);
	free(U);
	free(b);
	free(y);
	free(sc);
	return ok;
}

/* C, O, H, W, pt, pb, pl, pr */
static const int64_t shapes[][8] = {
	{ 3, 5, 6, 6, 1, 1, 1, 1 },
	{ 4, 8, 7, 7, 1, 1, 1, 1 },		/* odd output */
	{ 16, 32, 14, 14, 1, 1, 1, 1 },
	{ 8, 3, 9, 40, 0, 0, 0, 0 },		/* O < 4, odd rows */
	{ 5, 7, 5, 71, 2, 0, 1, 2 },		/* asymmetric */
	{ 2, 6, 3, 3, 0, 0, 0, 0 },		/* one output */
	{ 64, 64, 56, 56, 1, 1, 1, 1 },		/* several blocks */
	{ 6, 17, 33, 3, 2, 2, 0, 1 },
	/* products by tiles (nnl_wino_flip) at every tile width: 49
	 * tiles, 56 channels; 42 tiles of an odd output, asymmetric */
	{ 12, 56, 13, 13, 1, 1, 1, 1 },
	{ 9, 48, 14, 12, 1, 0, 0, 1 },
	/* two blocks of tile rows, 14 by channels and the last by tiles */
	{ 256, 256, 29, 18, 1, 1, 1, 1 },
};

TEST(winograd_matches_definition)
{
	for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
		const int64_t *t = shapes[s];

		CHECK(wino(t[0], t[1], t[2], t[3], t[4], t[5], t[6], t[7],
		    (int)(s % 2), NNL_ACT_NONE));
	}
}

TEST(winograd_activation)
{
	CHECK(wino(5, 9, 10, 21, 1, 1, 1, 1, 1, NNL_ACT_RELU));
	CHECK(wino(5, 9, 11, 20, 1, 0, 0, 1, 1, NNL_ACT_CLAMP));
	/* rows of whole vectors of tiles, and their odd last column */
	CHECK(wino(7, 5, 35, 67, 1, 1, 1, 1, 1, NNL_ACT_RELU));
	CHECK(wino(7, 5, 34, 66, 1, 1, 1, 0, 0, NNL_ACT_CLAMP));
	/* products by tiles */
	CHECK(wino(12, 56, 13, 13, 1, 1, 1, 1, 1, NNL_ACT_RELU));
	CHECK(wino(9, 48, 14, 12, 1, 0, 0, 1, 1, NNL_ACT_CLAMP));
}

int
main(void)
{
	RUN(winograd_matches_definition);
	RUN(winograd_activation);
	return DONE();
}
