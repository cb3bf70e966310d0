/*
 * test_par: the thread pool of generated code (rt/par.c), built as
 * nnl-emit-c builds it for 4 threads: the runtime pasted into one file
 * with NNL_RT_THREADS defined.  Every part runs once, on a thread
 * number below 4; two parts run at the same time (one waits for the
 * other to start); a run from inside a part runs its parts on the
 * calling thread; and the SGEMM split over the pool gives the very
 * bits of the product on one thread, on shapes whose tiles and blocks
 * are ragged, both transposes, with and without the epilogue; and
 * without a packing space for each thread it runs on one; a concat
 * split by bytes copies what one thread does; and an add and a relu
 * split by cache lines compute what loops do; and runs keep coming
 * back whether the workers and the caller spin or sleep between them.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

#define NNL_RT_THREADS 4
#include "rt/rt.h"
#include "rt/f32-vmath/vmath.c"
#include "rt/f32-gemm/gemm_f32_4x8_scalar.c"
#include "rt/f32-gemm/gemm_f32_6x16_avx2.c"
#include "rt/f32-gemm/gemm_f32_14x32_avx512.c"
#include "rt/f32-gemm/gemm_f32_8x8_neon.c"
#include "rt/f32-gemm/gemm.c"
#include "rt/f32-dwconv/dwconv.c"
#include "rt/f32-winograd/wino.c"
#include "rt/elementwise/ew.c"
#include "rt/nn/nn.c"
#include "rt/rnn/rnn.c"
#include "rt/tensor/tensor.c"
#include "rt/par/par.c"
#include "rt/f32-gemm/gemm_par.c"
#include "rt/nn/nn_par.c"
#include "rt/f32-dwconv/dwconv_par.c"
#include "rt/tensor/tensor_par.c"
#include "rt/elementwise/ew_par.c"

enum { NP = 37 };

struct rec {
	int hits[NP];
	int thread[NP];
};

static void
record(void *ctx, int64_t i, int t)
{
	struct rec *r = ctx;

	r->hits[i]++;
	r->thread[i] = t;
}

TEST(every_part_once)
{
	for (int64_t n = 0; n <= NP; n += 3) {
		struct rec r;

		memset(&r, 0, sizeof r);
		nnl_par_run(record, &r, n);
		for (int64_t i = 0; i < NP; i++) {
			CHECK(r.hits[i] == (i < n));
			CHECK(r.thread[i] >= 0 && r.thread[i] < 4);
		}
	}
	CHECK(nnl_par_threads() >= 1 && nnl_par_threads() <= 4);
}

static double
seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* record for runs of up to 70001 parts (hits[70001]: none) */
static void
record_many(void *ctx, int64_t i, int t)
{
	struct { int hits[70002], thread[70001]; } *r = ctx;

	r->hits[i]++;
	r->thread[i] = t;
}

struct meet {
	int started, met;
	int thread[2];
};

/* Each of the two parts waits (up to 10 s) for the other to start:
 * only two threads can run them. */
static void
meet(void *ctx, int64_t i, int t)
{
	struct meet *m = ctx;
	double t0 = seconds();

	m->thread[i] = t;
	__atomic_add_fetch(&m->started, 1, __ATOMIC_SEQ_CST);
	while (__atomic_load_n(&m->started, __ATOMIC_SEQ_CST) < 2)
		if (seconds() - t0 > 10)
			return;
	__atomic_add_fetch(&m->met, 1, __ATOMIC_SEQ_CST);
}

TEST(parts_run_concurrently)
{
	struct meet m = { 0, 0, { -1, -1 } };

	if (nnl_par_threads() < 2) {
		fprintf(stderr, "test_par: the system gave no thread\n");
		CHECK(0);
		return;
	}
	nnl_par_run(meet, &m, 2);
	CHECK(m.met == 2);
	CHECK(m.thread[0] != m.thread[1]);
	/* the caller takes parts from the first, the workers from the
	 * last, so the caller never runs part 1; part 0 is the caller's
	 * unless it was descheduled while a second worker took it (a
	 * loaded machine), which no test can rule out */
	CHECK(m.thread[1] != 0);
}

/* More parts than are taken from both ends: all from the first. */
TEST(many_parts_each_once)
{
	enum { MANY = 70001 };
	struct { int hits[MANY + 1], thread[MANY]; } *r = calloc(1,
	    sizeof *r);
	int ok = 1;

	CHECK(r != NULL);
	if (!r)
		return;
	nnl_par_run(record_many, r, MANY);
	for (int64_t i = 0; i < MANY; i++)
		ok &= r->hits[i] == 1 && r->thread[i] >= 0 &&
		    r->thread[i] < 4;
	CHECK(ok);
	CHECK(r->hits[MANY] == 0);
	free(r);
}

/* Part 1 of each run outlasts the caller's spin (the caller sleeps
 * until the worker that runs it wakes it) on odd rounds; part 0 on
 * rounds that are multiples of 3 (a worker finishes first and the
 * caller ends the run). */
static void
slow(void *ctx, int64_t i, int t)
{
	int *r = ctx;
	struct timespec d = { 0, 2000000 };	/* 2 ms */

	(void)t;
	if ((i == 1 && r[0] % 2) || (i == 0 && r[0] % 3 == 0))
		nanosleep(&d, NULL);
	__atomic_add_fetch(&r[1 + i], 1, __ATOMIC_SEQ_CST);
}

/* Runs back to back and runs after a pause longer than the workers'
 * spin, each with a slow part: every run ends with both its parts
 * done (a lost wake-up would hang: main's alarm ends the program). */
TEST(runs_wake_sleepers)
{
	int r[3] = { 0, 0, 0 }, ok = 1;
	struct timespec d = { 0, 3000000 };	/* 3 ms */

	for (r[0] = 0; r[0] < 60; r[0]++) {
		if (r[0] % 4 == 0)
			nanosleep(&d, NULL);
		nnl_par_run(slow, r, 2);
		ok &= r[1] == r[0] + 1 && r[2] == r[0] + 1;
	}
	CHECK(ok);
}

struct nest {
	int outer[8];
	struct rec inner[8];
};

static void
nest(void *ctx, int64_t i, int t)
{
	struct nest *n = ctx;

	n->outer[i] = t;
	nnl_par_run(record, &n->inner[i], 5);
}

TEST(nested_run_stays_on_its_thread)
{
	struct nest n;

	memset(&n, 0, sizeof n);
	nnl_par_run(nest, &n, 8);
	for (int i = 0; i < 8; i++)
		for (int j = 0; j < NP; j++) {
			CHECK(n.inner[i].hits[j] == (j < 5));
			if (j < 5)
				CHECK(n.inner[i].thread[j] == n.outer[i]);
		}
}

static unsigned long rng = 7;

static float
rnd(void)
{
	rng = rng * 6364136223846793005ull + 1442695040888963407ull;
	return (float)((double)(rng >> 40) / (double)(1ull << 24) * 2 - 1);
}

/* One shape: the product through nnl_sgemm (split over the pool when
 * it is large enough) and as nnl_sgemm computes it on one thread. */
static int
same_bits(int64_t M, int64_t N, int64_t K, int ta, int tb, int epi,
    float alpha)
{
	int n;
	const struct nnl_gemm_kernel *u = nnl_gemm_kernels(&n);
	int64_t lda = ta ? M : K, ldb = tb ? K : N, ldc = N + 3;
	float *A = malloc((size_t)(M * K) * sizeof *A);
	float *B = malloc((size_t)(K * N) * sizeof *B);
	float *C1 = malloc((size_t)(M * ldc) * sizeof *C1);
	float *C2 = malloc((size_t)(M * ldc) * sizeof *C2);
	float *rb = malloc((size_t)M * sizeof *rb);
	float *R = malloc((size_t)(M * ldc) * sizeof *R);
	int64_t ps = nnl_packsize(M, N, K);
	float *pack = malloc((size_t)(4 * ps + 1) * sizeof *pack);
	/* with a residual: each part reads its own rows or columns of R */
	struct nnl_gemm_epi e = { 1, rb, 0, NNL_ACT_RELU, 0, 0, 0, 0, 0, R };
	int ok;

	while (n > 1 && !nnl_gemm_runs(u->isa)) {
		u++;
		n--;
	}
	for (int64_t i = 0; i < M * K; i++)
		A[i] = rnd();
	for (int64_t i = 0; i < K * N; i++)
		B[i] = rnd();
	for (int64_t i = 0; i < M; i++)
		rb[i] = rnd();
	for (int64_t i = 0; i < M * ldc; i++) {
		C1[i] = C2[i] = rnd();
		R[i] = rnd();
	}
	if (M < 4) {	/* what nnl_sgemm does on one thread */
		nnl_epi_init(epi ? &e : 0, C1, ldc, 0, 0, M, N);
		nnl_sgemm_rows(M, N, K, alpha, A, lda, ta, B, ldb, tb, C1,
		    ldc);
		nnl_epi_act(epi ? &e : 0, C1, 0, ldc, M, N);
	} else
		nnl_sgemm_with(u, M, N, K, alpha, A, lda, ta, B, ldb, tb, C1,
		    ldc, pack, epi ? &e : 0);
	nnl_par_end = pack + 4 * ps;	/* a packing space a thread */
	nnl_sgemm(M, N, K, alpha, A, lda, ta, B, ldb, tb, C2, ldc, pack,
	    epi ? &e : 0);
	nnl_par_end = 0;
	ok = !memcmp(C1, C2, (size_t)(M * ldc) * sizeof *C1);
	if (!ok)
		fprintf(stderr, "test_par: %lldx%lldx%lld ta %d tb %d epi %d "
		    "differs\n", (long long)M, (long long)N, (long long)K, ta,
		    tb, epi);
	free(A);
	free(B);
	free(C1);
	free(C2);
	free(rb);
	free(R);
	free(pack);
	return ok;
}

TEST(sgemm_split_is_bit_identical)
{
	/* columns split by tiles (N wide), rows split by blocks (N of
	 * one tile, M of several blocks), ragged everywhere, K past a
	 * block */
	static const int64_t shapes[][3] = {
		{ 64, 3136, 147 }, { 49, 512, 2304 }, { 1000, 7, 300 },
		{ 513, 33, 257 }, { 37, 1031, 300 }, { 200, 200, 200 },
		/* fewer than four rows: split by columns */
		{ 1, 1000, 512 }, { 3, 1001, 300 }, { 2, 4099, 64 },
	};

	for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++)
		for (int v = 0; v < 4; v++)
			CHECK(same_bits(shapes[s][0], shapes[s][1],
			    shapes[s][2], v & 1, v >> 1 & 1, v == 1 || v == 2,
			    v == 3 ? 0.5f : 1.0f));
}

/* A workspace with one packing space, as a kernel that plans for one
 * thread gives: the product runs on one thread and writes nothing past
 * it. */
TEST(sgemm_without_room_stays_in_its_space)
{
	int64_t M = 64, N = 3136, K = 147, ps = nnl_packsize(M, N, K);
	float *A = calloc((size_t)(M * K), sizeof *A);
	float *B = calloc((size_t)(K * N), sizeof *B);
	float *C = calloc((size_t)(M * N), sizeof *C);
	float *pack = malloc((size_t)(4 * ps) * sizeof *pack);
	int intact = 1;

	for (int64_t i = 0; i < 4 * ps; i++)
		pack[i] = -7;
	nnl_par_end = pack + ps;
	nnl_sgemm(M, N, K, 1, A, K, 0, B, N, 0, C, N, pack, 0);
	nnl_par_end = 0;
	for (int64_t i = ps; i < 4 * ps; i++)
		intact &= pack[i] == -7;
	CHECK(intact);
	free(A);
	free(B);
	free(C);
	free(pack);
}

/* A concat split over the pool by bytes puts every byte where the
 * concatenation written out here does: 3 inputs of 5, 1 and 2 rows of
 * a 70000-byte inner block, 3 times over (outer), 5.5 MB. */
TEST(concat_split_matches_copies)
{
	int64_t es = 4, outer = 3, inner = 17500, sz[3] = { 5, 1, 2 };
	int64_t ip[8] = { es, outer, 8, inner, 3, 5, 1, 2 };
	int64_t total = es * outer * 8 * inner;
	unsigned char *in[3], *got = malloc((size_t)total + 1);
	unsigned char *want = malloc((size_t)total);
	const void *cin[3];
	void *cout[1] = { got };
	int64_t at = 0;

	for (int k = 0; k < 3; k++) {
		int64_t n = outer * sz[k] * inner * es;

		in[k] = malloc((size_t)n);
		for (int64_t i = 0; i < n; i++)
			in[k][i] = (unsigned char)(i * 7 + k * 31);
		cin[k] = in[k];
	}
	for (int64_t o = 0; o < outer; o++)
		for (int k = 0; k < 3; k++) {
			int64_t chunk = sz[k] * inner * es;

			memcpy(want + at, in[k] + o * chunk, (size_t)chunk);
			at += chunk;
		}
	got[total] = 0x5a;
	CHECK(at == total);
	nnl_k_concat(ip, 0, cin, cout, 0);
	CHECK(!memcmp(got, want, (size_t)total));
	CHECK(got[total] == 0x5a);
	for (int k = 0; k < 3; k++)
		free(in[k]);
	free(got);
	free(want);
}

/* A same-shape float32 add and a relu split over the pool by whole
 * cache lines compute what the loops here do, over 70001 floats (not
 * a whole number of lines), and write nothing past them. */
TEST(elementwise_split_matches_loops)
{
	enum { N = 70001 };
	float *a = malloc((N + 1) * sizeof *a), *b = malloc(N * sizeof *b);
	float *y = malloc((N + 1) * sizeof *y);
	int64_t ipb[7] = { NNL_ADD, NNL_F32, NNL_F32, 1, N, 1, 1 };
	int64_t ipu[4] = { NNL_U_RELU, NNL_F32, NNL_F32, N };
	double fp[2] = { 0, 0 };
	const void *in[2] = { a, b };
	void *out[1] = { y };
	int ok = 1;

	for (int64_t i = 0; i < N; i++) {
		a[i] = (float)((i * 37) % 101) - 50.25f;
		b[i] = (float)((i * 11) % 7) * 0.5f;
	}
	y[N] = 99;
	nnl_k_binary(ipb, fp, in, out, 0);
	for (int64_t i = 0; i < N; i++)
		ok &= y[i] == a[i] + b[i];
	CHECK(ok);
	CHECK(y[N] == 99);
	nnl_k_unary(ipu, fp, in, out, 0);
	for (int64_t i = 0; i < N; i++)
		ok &= y[i] == (a[i] > 0 ? a[i] : 0);
	CHECK(ok);
	CHECK(y[N] == 99);
	free(a);
	free(b);
	free(y);
}

int
main(void)
{
	alarm(300);	/* a run that never ends fails the test */
	RUN(every_part_once);
	RUN(parts_run_concurrently);
	RUN(many_parts_each_once);
	RUN(nested_run_stays_on_its_thread);
	RUN(runs_wake_sleepers);
	RUN(sgemm_split_is_bit_identical);
	RUN(sgemm_without_room_stays_in_its_space);
	RUN(concat_split_matches_copies);
	RUN(elementwise_split_matches_loops);
	return DONE();
}
