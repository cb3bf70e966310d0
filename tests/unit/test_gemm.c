/*
 * test_gemm: every SGEMM microkernel this machine runs (rt/gemm.c's
 * table), and the driver around it, against a product computed here in
 * double precision.  Each microkernel is checked tile by tile on every
 * ragged edge (m from 1 to its rows, n from 1 to its columns); the
 * driver on shapes that are not multiples of any tile or cache block
 * (K = 1, M = 1, N = 1, K past one block, N past one block), with
 * alpha, both transposes, a row stride wider than N and a C that holds
 * values already (the product adds to it, as conv2d's bias and gemm's
 * beta * C rely on).  Tolerance: 1e-5 of the sum of |a * b| + |c|.
 */
#include <math.h>
#include <stdlib.h>

#include "check.h"
#define NNL_RT
#include "rt/rt.h"

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
		    ldc, pack);
	else
		nnl_sgemm(M, N, K, alpha, A, lda, ta, B, ldb, tb, C, ldc,
		    pack);
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
			u->fn(kc, a, b, C, ldc, m, n);
			/* A is K x mr stored by k (transposed) */
			ok = agrees(m, n, kc, 1, a, mr, 1, b, nr, 0, C0, C,
			    ldc);
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

static const int64_t shapes[][3] = {
	{ 1, 1, 1 }, { 1, 37, 19 }, { 19, 1, 23 }, { 7, 9, 1 },
	{ 14, 32, 8 }, { 15, 33, 9 }, { 13, 31, 300 }, { 29, 47, 257 },
	{ 170, 70, 20 }, { 5, 1030, 3 }, { 40, 17, 600 }, { 4, 8, 512 },
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
	RUN(best_kernel_runs_here);
	return DONE();
}
