/*
 * test_gemm: every SGEMM microkernel this machine runs (rt/f32-gemm/gemm.c's
 * table), and the driver around it, against a product computed here in
 * double precision.  Each microkernel is checked tile by tile on every
 * ragged edge (m from 1 to its rows, n from 1 to its columns, through
 * its variants of 8 and 4 rows where it has them); the
 * driver on shapes that are not multiples of any tile or cache block
 * (K = 1, M = 1, N = 1, K past one block, N past one block), with
 * alpha, both transposes, a row stride wider than N and a C that holds
 * values already (the product adds to it, as gemm's beta * C relies
 * on); the epilogue (bias per row or column, activation) on every
 * kernel.  Tolerance: 1e-5 of the sum of |a * b| + |c|.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#define NNL_RT
#include "rt/rt.h"
#include "rt/f32-vmath/vmath.h"

static unsigned long rng = 2024;

static float
rnd(void)
{
	rng = rng * 6364136223846793005ull + 1442695040888963407ull;
	return (float)((double)(rng >> 40) / (double)(1ull << 24) * 2 - 1);
}

static float *
randv(int64_t n)
{
	float *v = malloc((size_t)(n ? n : 1) * sizeof *v);

	for (int64_t i = 0; i < n; i++)
		v[i] = rnd();
	return v;
}

/* Compare C with C0 + alpha * op(A) op(B), computed in double. */
static int
agrees(int64_t M, int64_t N, int64_t K, float alpha, const float *A,
    int64_t lda, int ta, const float *B, int64_t ldb, int tb,
    const float *C0, const float *C, int64_t ldc)
{
	for (int64_t i = 0; i < M; i++)
		for (int64_t j = 0; j < N; j++) {
			double s = 0, mag = fabs(C0[i * ldc + j]);

			for (int64_t k = 0; k < K; k++) {
				double p = (double)(ta ? A[k * lda + i] :
				    A[i * lda + k]) * (tb ? B[j * ldb + k] :
				    B[k * ldb + j]);

				s += p;
				mag += fabs(alpha * p);
			}
			s = C0[i * ldc + j] + alpha * s;
			if (fabs(C[i * ldc + j] - s) > 1e-5 * (mag + 1)) {
				fprintf(stderr, "  C[%lld,%lld] = %.9g, want "
				    "%.9g\n", (long long)i, (long long)j,
				    C[i * ldc + j], s);
				return 0;
			}
		}
	return 1;
}

/* One product through kernel u (NULL: nnl_sgemm's choice). */
static int
product(const struct nnl_gemm_kernel *u, int64_t M, int64_t N, int64_t K,
    float alpha, int ta, int tb)
{
	int64_t lda = (ta ? M : K) + 3, ldb = (tb ? K : N) + 1, ldc = N + 5;
	float *A = randv((ta ? K : M) * lda), *B = randv((tb ? N : K) * ldb);
	float *C0 = randv(M * ldc), *C = malloc((size_t)(M * ldc + 1) * 4);
	/* nnl_sgemm packs nothing below 4 rows; a kernel always packs */
	float *pack = malloc((size_t)(nnl_packsize(u && M < 4 ? 4 : M, N, K)
	    + 1) * 4);
	int ok;

	memcpy(C, C0, (size_t)(M * ldc) * 4);
	if (u)
		nnl_sgemm_with(u, M, N, K, alpha, A, lda, ta, B, ldb, tb, C,
		    ldc, pack, NULL);
	else
		nnl_sgemm(M, N, K, alpha, A, lda, ta, B, ldb, tb, C, ldc,
		    pack, NULL);
	ok = agrees(M, N, K, alpha, A, lda, ta, B, ldb, tb, C0, C, ldc);
	if (!ok)
		fprintf(stderr, "  %s: M %lld N %lld K %lld alpha %g ta %d "
		    "tb %d\n", u ? u->name : "nnl_sgemm", (long long)M,
		    (long long)N, (long long)K, alpha, ta, tb);
	free(A);
	free(B);
	free(C0);
	free(C);
	free(pack);
	return ok;
}

/*
 * One product with an epilogue: from a bias per row (how = 0), per
 * column (1) or zero (2), what C held before ignored, with res a
 * residual R added (element (i, j) at R[i * ldc + j]), then activation
 * act with parameters -0.3 and 0.4 (leakyRelu: alpha 0.1), B packed
 * with a column bias (how = 1) and read in place otherwise, against
 * the same written out here in double.
 */
static int
with_epilogue(const struct nnl_gemm_kernel *u, int64_t M, int64_t N,
    int64_t K, int how, int act, int res)
{
	int64_t ldc = N + 3;
	float *A = randv(M * K), *B = randv(K * N), *rb = randv(M);
	float *R = res ? randv(M * ldc) : NULL;
	float *cb = randv(N), *C = randv(M * ldc + 1);
	float *pack = malloc((size_t)(nnl_packsize(M < 4 ? 4 : M, N, K) + 1)
	    * 4);
	float lo = act == NNL_ACT_LEAKYRELU ? 0.1f : -0.3f, hi = 0.4f;
	/* B packed where it could be read in place: with a column bias,
	 * as conv2d's flipped product asks */
	struct nnl_gemm_epi e = { 1, how == 0 ? rb : NULL,
	    how == 1 ? cb : NULL, act, lo, hi, how == 1, 0, 0, R };
	int ok = 1;

	C[M * ldc] = 7;		/* past the end: untouched */
	if (u)
		nnl_sgemm_with(u, M, N, K, 1, A, K, 0, B, N, 0, C, ldc, pack,
		    &e);
	else
		nnl_sgemm(M, N, K, 1, A, K, 0, B, N, 0, C, ldc, pack, &e);
	for (int64_t i = 0; i < M && ok; i++)
		for (int64_t j = 0; j < N && ok; j++) {
			double s = how == 0 ? rb[i] : how == 1 ? cb[j] : 0;
			double mag = fabs(s);

			for (int64_t k = 0; k < K; k++) {
				s += (double)A[i * K + k] * B[k * N + j];
				mag += fabs((double)A[i * K + k] * B[k * N + j]);
			}
			if (R) {
				s += R[i * ldc + j];
				mag += fabs(R[i * ldc + j]);
			}
			if (act == NNL_ACT_RELU)
				s = s > 0 ? s : 0;
			else if (act == NNL_ACT_CLAMP)
				s = s < lo ? lo : s > hi ? hi : s;
			else if (act == NNL_ACT_LEAKYRELU)
				s = s >= 0 ? s : lo * s;
			else if (act == NNL_ACT_SIGMOID)
				s = 1 / (1 + exp(-s));
			else if (act == NNL_ACT_HARDSWISH)
				s = s * fmin(fmax(s + 3, 0), 6) / 6;
			if (fabs(C[i * ldc + j] - s) > 1e-5 * (mag + 1)) {
				fprintf(stderr, "  %s: M %lld N %lld K %lld "
				    "how %d act %d res %d: C[%lld,%lld] = %.9g, "
				    "want %.9g\n", u ? u->name : "nnl_sgemm",
				    (long long)M, (long long)N, (long long)K,
				    how, act, res, (long long)i, (long long)j,
				    C[i * ldc + j], s);
				ok = 0;
			}
		}
	if (C[M * ldc] != 7)
		ok = 0;
	free(A);
	free(B);
	free(rb);
	free(cb);
	free(C);
	free(R);
	free(pack);
	return ok;
}

/* The microkernels the machine runs, and how many the build holds. */
static int
kernels(const struct nnl_gemm_kernel **run, int max)
{
	int n, got = 0;
	const struct nnl_gemm_kernel *k = nnl_gemm_kernels(&n);

	for (int i = 0; i < n; i++)
		if (nnl_gemm_runs(k[i].isa) && got < max)
			run[got++] = &k[i];
		else
			printf("# %s: not run on this machine\n", k[i].name);
	return got;
}

/* What the driver calls for a tile of m rows and n columns: the
 * kernel, or its variant of 8 or 4 rows or of half the columns. */
static nnl_gemm_fn *
tilefn(const struct nnl_gemm_kernel *u, int m, int n)
{
	int R;

	return nnl_gemm_tilefn(u, m, n, &R);
}

TEST(table_ends_with_portable_kernel)
{
	int n;
	const struct nnl_gemm_kernel *k = nnl_gemm_kernels(&n);

	CHECK(n >= 1);
	CHECK_STR(k[n - 1].name, "f32-4x8-scalar");
	CHECK(k[n - 1].isa == NNL_ISA_NONE);
	for (int i = 0; i < n; i++)
		CHECK(k[i].mr <= NNL_GEMM_MAXMR && k[i].nr <= NNL_GEMM_MAXNR);
}

/* A tile that adds its product to C, and nothing else. */
static const struct nnl_gemm_tile add = { 1, 0, 0, NNL_ACT_NONE, 0, 0 };

/* Each tile size m x n up to the kernel's, on packed panels. */
TEST(microkernels_tile_by_tile)
{
	const struct nnl_gemm_kernel *run[8];
	int nk = kernels(run, 8);

	for (int t = 0; t < nk; t++) {
		const struct nnl_gemm_kernel *u = run[t];
		int mr = u->mr, nr = u->nr;

		for (int64_t kc = 1; kc <= 37; kc += 12)
		for (int m = 1; m <= mr; m++)
		for (int n = 1; n <= nr; n++) {
			float *a = randv(kc * mr), *b = randv(kc * nr);
			int64_t ldc = nr + 2;
			float *C0 = randv(mr * ldc), *C = randv(mr * ldc);
			int ok = 1;

			/* the panels hold zeros past the edge */
			for (int64_t k = 0; k < kc; k++) {
				for (int i = m; i < mr; i++)
					a[k * mr + i] = 0;
				for (int j = n; j < nr; j++)
					b[k * nr + j] = 0;
			}
			memcpy(C, C0, (size_t)(mr * ldc) * 4);
			tilefn(u, m, n)(kc, a, mr, b, nr, C, ldc, m, n, &add);
			/* A is K x mr stored by k (transposed) */
			ok = agrees(m, n, kc, 1, a, mr, 1, b, nr, 0, C0, C,
			    ldc);
			/* the same panels read in place from wider rows */
			if (ok) {
				int64_t as = mr + 5, bs = nr + 3;
				float *wa = randv(kc * as), *wb = randv(kc * bs);

				for (int64_t k = 0; k < kc; k++) {
					memcpy(wa + k * as, a + k * mr,
					    (size_t)mr * 4);
					memcpy(wb + k * bs, b + k * nr,
					    (size_t)nr * 4);
				}
				memcpy(C, C0, (size_t)(mr * ldc) * 4);
				tilefn(u, m, n)(kc, wa, as, wb, bs, C, ldc, m,
				    n, &add);
				ok = agrees(m, n, kc, 1, wa, as, 1, wb, bs, 0,
				    C0, C, ldc);
				free(wa);
				free(wb);
			}
			for (int i = 0; i < mr && ok; i++)
				for (int j = 0; j < ldc; j++)
					if ((i >= m || j >= n) &&
					    C[i * ldc + j] != C0[i * ldc + j])
						ok = 0;
			if (!ok)
				fprintf(stderr, "  %s: kc %lld tile %d x %d\n",
				    u->name, (long long)kc, m, n);
			CHECK(ok);
			free(a);
			free(b);
			free(C0);
			free(C);
		}
	}
}

/*
 * A tile's start and end in the microkernel itself: from C (load),
 * a column bias, a row bias or zero, then no activation, relu,
 * clamp or hardswish, on every ragged size; the rows and columns past
 * the tile keep what C held.  The product's first entry is NaN in one
 * pass: relu makes it 0, clamp and hardswish keep it (nnl_activate's
 * rules).
 */
TEST(microkernel_tile_epilogue)
{
	const struct nnl_gemm_kernel *run[8];
	int nk = kernels(run, 8);

	for (int u = 0; u < nk; u++)
	for (int how = 0; how < 4; how++)
	for (int act = 0; act < 4; act++)
	for (int nan = 0; nan < 2; nan++)
	for (int m = 1; m <= run[u]->mr; m++)
	for (int n = 1; n <= run[u]->nr; n++) {
		int mr = run[u]->mr, nr = run[u]->nr, kc = 5, ok = 1;
		int64_t ldc = nr + 3;
		float *a = randv(kc * mr), *b = randv(kc * nr);
		float *rb = randv(mr), *cb = randv(nr);
		float *C0 = randv(mr * ldc), *C = randv(mr * ldc);
		int64_t acts[] = { NNL_ACT_NONE, NNL_ACT_RELU, NNL_ACT_CLAMP,
		    NNL_ACT_HARDSWISH };
		struct nnl_gemm_tile t = { how == 0, how == 2 ? rb : 0,
		    how == 1 ? cb : 0, acts[act], -0.3f, 0.4f };

		if (nan)
			a[0] = NAN;
		memcpy(C, C0, (size_t)(mr * ldc) * 4);
		tilefn(run[u], m, n)(kc, a, mr, b, nr, C, ldc, m, n, &t);
		for (int i = 0; i < mr && ok; i++)
		for (int j = 0; j < ldc && ok; j++) {
			double s = how == 0 ? C0[i * ldc + j] : how == 1 ?
			    cb[j < nr ? j : 0] : how == 2 ? rb[i] : 0;
			double mag = fabs(s), want;
			float got = C[i * ldc + j];

			if (i >= m || j >= n) {
				ok = got == C0[i * ldc + j] ||
				    (got != got && C0[i * ldc + j] !=
				    C0[i * ldc + j]);
				continue;
			}
			for (int k = 0; k < kc; k++) {
				double p = (double)a[k * mr + i] *
				    b[k * nr + j];

				s += p;
				mag += fabs(p);
			}
			want = acts[act] == NNL_ACT_RELU ?
			    (s > 0 ? s : 0) : acts[act] == NNL_ACT_CLAMP ?
			    (s < -0.3f ? -0.3f : s > 0.4f ? 0.4f : s) :
			    acts[act] == NNL_ACT_HARDSWISH ?
			    s * fmin(fmax(s + 3, 0), 6) / 6 : s;
			if (s != s)
				ok = acts[act] == NNL_ACT_RELU ? got == 0 :
				    got != got;
			else
				ok = fabs(got - want) <= 1e-5 * (mag + 1);
			if (!ok)
				fprintf(stderr, "  %s: how %d act %d nan %d "
				    "tile %d x %d: C[%d,%d] = %.9g, want "
				    "%.9g\n", run[u]->name, how, act, nan, m,
				    n, i, j, got, want);
		}
		CHECK(ok);
		free(a);
		free(b);
		free(rb);
		free(cb);
		free(C0);
		free(C);
	}
}

static const int64_t shapes[][3] = {
	{ 1, 1, 1 }, { 1, 37, 19 }, { 19, 1, 23 }, { 7, 9, 1 },
	{ 14, 32, 8 }, { 15, 33, 9 }, { 13, 31, 300 }, { 29, 47, 257 },
	{ 170, 70, 20 }, { 5, 1030, 3 }, { 40, 17, 600 }, { 4, 8, 512 },
	{ 1, 70, 301 }, { 3, 9, 200 },
	/* a tile and one or two rows: two 8-row tiles where A is read in
	 * place */
	{ 16, 40, 33 }, { 30, 20, 300 },
};

TEST(driver_with_every_kernel)
{
	const struct nnl_gemm_kernel *run[8];
	int nk = kernels(run, 8);
	size_t ns = sizeof shapes / sizeof shapes[0];

	for (int t = 0; t < nk; t++)
		for (size_t s = 0; s < ns; s++)
			for (int tr = 0; tr < 4; tr++)
				CHECK(product(run[t], shapes[s][0],
				    shapes[s][1], shapes[s][2],
				    tr == 3 ? -0.5f : 1, tr & 1, tr >> 1 & 1));
}

/* Bias and activation in the driver's epilogue, on ragged shapes and
 * past one block of K (the bias must start the first block only). */
TEST(epilogue_bias_and_activation)
{
	const struct nnl_gemm_kernel *run[8];
	int nk = kernels(run, 8);
	static const int64_t sh[][3] = {
		{ 4, 1, 1 }, { 15, 33, 9 }, { 29, 47, 300 }, { 170, 20, 7 },
		{ 6, 1030, 5 },
	};

	for (int res = 0; res < 2; res++) {
		for (int t = 0; t < nk; t++)
		for (size_t s = 0; s < sizeof sh / sizeof sh[0]; s++)
			for (int how = 0; how < 3; how++)
				CHECK(with_epilogue(run[t], sh[s][0], sh[s][1],
				    sh[s][2], how, (how + (int)s) % 6, res));
		for (int64_t M = 1; M <= 5; M++)
			for (int act = 0; act < 6; act++)
				CHECK(with_epilogue(NULL, M, 37, 11, act % 3,
				    act, res));
		CHECK(with_epilogue(NULL, 5, 6, 0, 0, NNL_ACT_RELU, res));
		/* few columns: nnl_sgemm's unpacked path */
		for (int act = 0; act < 6; act++)
			CHECK(with_epilogue(NULL, 70, 1 + act % 3, 50, act % 3,
			    act, res));
	}
}

/*
 * B stored in panels of 32 columns (nnl-fuse's flipped conv2d filters,
 * the epilogue's bp32): element (k, j) at Bp[j / 32 * K * 32 + k * 32 +
 * j % 32], zero past N, read in place by every kernel, A (the image)
 * stored by k, from a column bias: against the same product in double
 * from B row-major.  Ragged N inside and past a panel, K past a block.
 */
static int
panels(const struct nnl_gemm_kernel *u, int64_t M, int64_t N, int64_t K)
{
	int64_t np = (N + 31) / 32, ldc = N + 1;
	float *A = randv(K * M), *B = randv(K * N), *cb = randv(N);
	float *Bp = calloc((size_t)(np * 32 * K + 1), sizeof *Bp);
	float *C = randv(M * ldc + 1);
	float *pack = malloc((size_t)(nnl_packsize(M, N, K) + 1) * 4);
	struct nnl_gemm_epi e = { 1, NULL, cb, NNL_ACT_NONE, 0, 0, 0, 1, 0,
	    NULL };
	int ok = 1;

	for (int64_t k = 0; k < K; k++)
		for (int64_t j = 0; j < N; j++)
			Bp[(j / 32 * K + k) * 32 + j % 32] = B[k * N + j];
	C[M * ldc] = 7;		/* past the end: untouched */
	nnl_sgemm_with(u, M, N, K, 1, A, M, 1, Bp, N, 0, C, ldc, pack, &e);
	for (int64_t i = 0; i < M && ok; i++)
		for (int64_t j = 0; j < N && ok; j++) {
			double s = cb[j], mag = fabs(s);

			for (int64_t k = 0; k < K; k++) {
				s += (double)A[k * M + i] * B[k * N + j];
				mag += fabs((double)A[k * M + i] * B[k * N + j]);
			}
			if (fabs(C[i * ldc + j] - s) > 1e-5 * (mag + 1)) {
				fprintf(stderr, "  %s panels: M %lld N %lld K "
				    "%lld: C[%lld,%lld] = %.9g, want %.9g\n",
				    u->name, (long long)M, (long long)N,
				    (long long)K, (long long)i, (long long)j,
				    C[i * ldc + j], s);
				ok = 0;
			}
		}
	if (C[M * ldc] != 7)
		ok = 0;
	free(A);
	free(B);
	free(Bp);
	free(cb);
	free(C);
	free(pack);
	return ok;
}

TEST(filter_in_panels_read_in_place)
{
	const struct nnl_gemm_kernel *run[8];
	int nk = kernels(run, 8);
	static const int64_t sh[][3] = {
		{ 49, 512, 300 }, { 4, 1, 1 }, { 13, 31, 9 }, { 29, 33, 257 },
		{ 196, 96, 576 }, { 7, 1030, 40 }, { 170, 64, 513 },
	};

	for (int t = 0; t < nk; t++)
		for (size_t s = 0; s < sizeof sh / sizeof sh[0]; s++)
			CHECK(panels(run[t], sh[s][0], sh[s][1], sh[s][2]));
}

/*
 * A stored by k with room past its rows (the epilogue's aroom, as
 * Winograd's products by tiles have): the rows of C are the same bits
 * wherever a split of the rows puts the ragged edge, here all M rows at
 * once against rows [0, s) and [s, M) as two products, for every split
 * s; and the product agrees with double.  Without the room the last
 * step of a ragged panel read in place is a second call, which rounds
 * its rows differently.
 */
static int
room(const struct nnl_gemm_kernel *u, int64_t M, int64_t N, int64_t K)
{
	int64_t lda = M + NNL_GEMM_MAXMR;
	float *A = randv(K * lda), *B = randv(K * N), *C0 = calloc(
	    (size_t)(M * N), sizeof *C0);
	float *C = malloc((size_t)(M * N) * sizeof *C);
	float *D = malloc((size_t)(M * N) * sizeof *D);
	float *pack = malloc((size_t)nnl_packsize(M, N, K) * 4);
	struct nnl_gemm_epi e = { 1, NULL, NULL, NNL_ACT_NONE, 0, 0, 0, 0,
	    1, NULL };
	int ok;

	nnl_sgemm_with(u, M, N, K, 1, A, lda, 1, B, N, 0, C, N, pack, &e);
	ok = agrees(M, N, K, 1, A, lda, 1, B, N, 0, C0, C, N);
	for (int64_t s = 1; s < M && ok; s++) {
		nnl_sgemm_with(u, s, N, K, 1, A, lda, 1, B, N, 0, D, N, pack,
		    &e);
		nnl_sgemm_with(u, M - s, N, K, 1, A + s, lda, 1, B, N, 0,
		    D + s * N, N, pack, &e);
		if (memcmp(C, D, (size_t)(M * N) * sizeof *C)) {
			fprintf(stderr, "  %s room: M %lld split at %lld: "
			    "other bits\n", u->name, (long long)M,
			    (long long)s);
			ok = 0;
		}
	}
	free(A);
	free(B);
	free(C0);
	free(C);
	free(D);
	free(pack);
	return ok;
}

TEST(ragged_rows_with_room_split_anywhere)
{
	const struct nnl_gemm_kernel *run[8];
	int nk = kernels(run, 8);

	for (int t = 0; t < nk; t++) {
		CHECK(room(run[t], 49, 64, 48));
		CHECK(room(run[t], 30, 40, 300));
	}
}

/* nnl_sgemm itself, including its unpacked path for 1 to 3 rows. */
TEST(sgemm_chooses_and_computes)
{
	size_t ns = sizeof shapes / sizeof shapes[0];

	for (size_t s = 0; s < ns; s++)
		for (int tr = 0; tr < 4; tr++)
			CHECK(product(NULL, shapes[s][0], shapes[s][1],
			    shapes[s][2], 1.5f, tr & 1, tr >> 1 & 1));
	for (int64_t M = 1; M <= 5; M++)
		CHECK(product(NULL, M, 100, 70, 2, 0, 1));
	/* its unpacked path for 1 to 3 columns (squeeze-and-excite's 1x1
	 * convolutions on a 1x1 image): rows a few vectors and a ragged
	 * rest, and fewer rows than a vector */
	for (int64_t N = 1; N <= 3; N++)
		for (int tr = 0; tr < 4; tr++) {
			CHECK(product(NULL, 240, N, 96, 1, tr & 1,
			    tr >> 1 & 1));
			CHECK(product(NULL, 77, N, 33, -0.5f, tr & 1,
			    tr >> 1 & 1));
			CHECK(product(NULL, 5, N, 1, 1, tr & 1, tr >> 1 & 1));
		}
}

/* A build that chooses at run time puts the machine's best first. */
TEST(best_kernel_runs_here)
{
	const struct nnl_gemm_kernel *run[8];

	CHECK(kernels(run, 8) >= 1);
#ifdef NNL_RT_RUNTIME
	if (__builtin_cpu_supports("avx512f"))
		CHECK_STR(run[0]->name, "f32-14x32-avx512");
	else if (__builtin_cpu_supports("avx2") &&
	    __builtin_cpu_supports("fma"))
		CHECK_STR(run[0]->name, "f32-6x16-avx2");
#endif
}

int
main(void)
{
	RUN(table_ends_with_portable_kernel);
	RUN(microkernels_tile_by_tile);
	RUN(driver_with_every_kernel);
	RUN(sgemm_chooses_and_computes);
	RUN(epilogue_bias_and_activation);
	RUN(microkernel_tile_epilogue);
	RUN(best_kernel_runs_here);
	RUN(filter_in_panels_read_in_place);
	RUN(ragged_rows_with_room_split_anywhere);
	return DONE();
}
