/*
 * par: the thread pool of code generated with --threads N (N > 1).
 * nnl-emit-c pastes this file after the other runtime files only then,
 * with NNL_RT_THREADS defined to N before them; code for one thread
 * holds none of it.
 *
 * The pool is static: NNL_RT_THREADS - 1 workers in a fixed array,
 * started at the first nnl_par_run, one mutex and two condition
 * variables; no heap.  nnl_par_run(fn, ctx, n) calls fn(ctx, i, t)
 * once for each part i of [0, n), on thread t of [0, NNL_RT_THREADS)
 * (the caller is 0), and returns when all have returned.  Threads take
 * parts one at a time, so a thread the system is slow to wake takes
 * fewer; the caller from the first part up, the workers from the last
 * down (nnl_par_work).  What a part computes depends only on i, never
 * on t or on which thread runs it, so results do not depend on how
 * many threads there are: with NNL_RT_THREADS=M in the environment
 * (read once, at the first run) at most M threads run, and when the
 * pool is busy (a second caller, a part that runs another product) or
 * cannot start its threads the caller runs every part itself.
 *
 * im2col convolutions give threads whole bands of output rows, each
 * band's im2col in its thread's own col (kern_nn.c plans one a
 * thread), so no thread reads what another copied.  Products,
 * depthwise convolutions and the stem split into a part a thread
 * (nnl_par_each), so each thread computes the same share every run
 * and mostly reads what its own core wrote; the rest split into a few
 * parts a thread (nnl_par_parts).
 *
 * The kernels split only along output dimensions, never a sum, so
 * each output element is computed by the same operations as with one
 * thread: the results are bit-identical.  Thread t of an SGEMM packs
 * its panels at pack + t * nnl_packsize(M, N, K): the memory plan
 * gives the kernels that many packing spaces (kern_nn.c).  Before each
 * kernel the generated code sets nnl_par_end to the end of the node's
 * workspace, and a split that needs space a thread runs on one thread
 * where that many spaces would pass it (a kernel that plans only one).
 */
#include <pthread.h>
#include <stdlib.h>

#include "rt.h"

/* nn.c calls these functions through the ones below */
#undef nnl_im2col_nchw
#undef nnl_conv_dw_nchw
#undef nnl_pool_nchw

enum { NNL_PAR_T = NNL_RT_THREADS };

static struct nnl_pool {
	/* what every run's threads read and write, apart from the lock
	 * and the rest (cache lines of their own) */
	char pad0[64];
	unsigned gen;		/* runs started */
	int pending;		/* parts of this run not yet finished */
	uint64_t take;		/* the run (high half), its parts taken */
	int64_t n;		/* parts of the run */
	nnl_par_fn *fn;
	void *ctx;
	int sleeping;		/* the caller waits on done */
	char pad1[64];
	pthread_mutex_t mu;
	pthread_cond_t go, done;
	pthread_t th[NNL_PAR_T > 1 ? NNL_PAR_T - 1 : 1];
	int nth;		/* workers running */
	int busy;		/* a run is in progress */
} nnl_pool = { { 0 }, 0, 0, 0, 0, 0, 0, 0, { 0 },
	PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER,
	PTHREAD_COND_INITIALIZER, { 0 }, 0, 0 };

static pthread_once_t nnl_pool_once = PTHREAD_ONCE_INIT;

/* The end of the running node's workspace (null: none), set by the
 * generated code on the thread that runs the model. */
#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
static _Thread_local const void *nnl_par_end;
#else
static __thread const void *nnl_par_end;
#endif

/* Whether n floats a thread, from p on, fit the node's workspace. */
static int
nnl_par_room(const float *p, int64_t n)
{
	const char *end = nnl_par_end;

	return end && (const char *)p < end && (double)n * NNL_PAR_T <=
	    (double)(end - (const char *)p) / sizeof *p;
}

/*
 * A thread that has finished its parts waits this many pauses for the
 * next run (a worker) or for the others' parts (the caller) before it
 * sleeps on a condition variable: a network's products follow each
 * other closely, and waking a thread costs tens of microseconds.  gen
 * is written under the lock and read atomically: a worker that sees a
 * new run while it spins starts it without the lock, which only a
 * sleeper takes; pending and take are atomic.  The caller sleeps
 * only after saying so in sleeping, and the worker that finishes a
 * run's last part takes the lock to wake it only then (both in
 * sequential consistency: one of them sees the other's write).
 */
enum { NNL_PAR_SPIN = 4000 };

NNL_RT_INLINE void
nnl_par_pause(void)
{
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
	__builtin_ia32_pause();
#elif defined(__GNUC__) && defined(__aarch64__)
	__asm__ __volatile__("yield");
#endif
}

/* The thread this is: 0 but in the pool's workers.  A run the pool is
 * too busy for runs its parts as this thread, in its packing space. */
#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
static _Thread_local int nnl_par_self;
#else
static __thread int nnl_par_self;
#endif

/* Whether this thread is running a part: a run it starts then runs
 * on it alone, and the products it calls are not split. */
#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
static _Thread_local int nnl_par_inside;
#else
static __thread int nnl_par_inside;
#endif

/*
 * Parts of a run are taken from both ends where there are at most
 * this many: the caller (thread 0) counts up from part 0, the workers
 * down from the last, so that with two threads each takes the same
 * end of every split, and the parts of one product that a thread
 * computed are those of the next that read them (a depthwise
 * convolution's channels, after the product that made them), still in
 * its core's caches.  More parts: all counted up.
 */
enum { NNL_PAR_ENDS = 0xffff };

/*
 * Parts left in run gen, taken one at a time on thread t: the low half
 * of take counts the parts taken, from the front in its low 16 bits
 * and from the back in its high 16 (up to NNL_PAR_ENDS parts), or all
 * from the front; a part is counted by compare and swap while take's
 * high half is still gen.  Before a run's n is written, take is marked
 * all taken (its low half all ones), so a worker late for the last run
 * that reads the new n finds no part to take: its compare and swap
 * then fails.  fn and ctx, written before the run's take, stay until
 * its last part is done.  Whoever finishes that part wakes the caller.
 */
static void
nnl_par_work(struct nnl_pool *p, int t, unsigned gen)
{
	for (;;) {
		uint64_t v = __atomic_load_n(&p->take, __ATOMIC_ACQUIRE), w;
		int64_t n = __atomic_load_n(&p->n, __ATOMIC_ACQUIRE), i;
		uint32_t lo = (uint32_t)v;

		if ((uint32_t)(v >> 32) != (uint32_t)gen)
			return;
		if (n <= NNL_PAR_ENDS) {
			int64_t f = lo & 0xffff, b = lo >> 16;

			if (f + b >= n)
				return;
			w = t == 0 ? v + 1 : v + 0x10000;
			i = t == 0 ? f : n - 1 - b;
		} else {
			if ((int64_t)lo >= n)
				return;
			w = v + 1;
			i = lo;
		}
		if (!__atomic_compare_exchange_n(&p->take, &v, w, 0,
		    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			continue;
		nnl_par_inside = 1;
		p->fn(p->ctx, i, t);
		nnl_par_inside = 0;
		if (__atomic_sub_fetch(&p->pending, 1, __ATOMIC_SEQ_CST) ==
		    0 && __atomic_load_n(&p->sleeping, __ATOMIC_SEQ_CST)) {
			pthread_mutex_lock(&p->mu);
			pthread_cond_broadcast(&p->done);
			pthread_mutex_unlock(&p->mu);
		}
	}
}

static void *
nnl_par_worker(void *arg)
{
	struct nnl_pool *p = &nnl_pool;
	int t = (int)(intptr_t)arg;
	unsigned seen = 0;	/* started before the first run */

	nnl_par_self = t;
	for (;;) {
		unsigned g = seen;

		for (int k = 0; k < NNL_PAR_SPIN && (g = __atomic_load_n(&p->gen,
		    __ATOMIC_ACQUIRE)) == seen; k++)
			nnl_par_pause();
		if (g == seen) {
			pthread_mutex_lock(&p->mu);
			while (p->gen == seen)
				pthread_cond_wait(&p->go, &p->mu);
			g = p->gen;
			pthread_mutex_unlock(&p->mu);
		}
		seen = g;
		nnl_par_work(p, t, seen);
	}
	return 0;
}

/* The workers, once: as many as NNL_RT_THREADS in the environment
 * allows, fewer if the system refuses one. */
static void
nnl_par_start(void)
{
	struct nnl_pool *p = &nnl_pool;
	const char *e = getenv("NNL_RT_THREADS");
	long want = NNL_PAR_T;

	if (e && *e) {
		char *end;
		long v = strtol(e, &end, 10);

		if (!*end && v >= 1 && v < want)
			want = v;
	}
	while (p->nth < want - 1) {
		pthread_attr_t a;
		int rc;

		if (pthread_attr_init(&a) != 0)
			break;
		pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
		rc = pthread_create(&p->th[p->nth], &a, nnl_par_worker,
		    (void *)(intptr_t)(p->nth + 1));
		pthread_attr_destroy(&a);
		if (rc != 0)
			break;
		p->nth++;
	}
}

/* Threads the pool runs parts on, the caller's included. */
NNL_RT int
nnl_par_threads(void)
{
	pthread_once(&nnl_pool_once, nnl_par_start);
	return nnl_pool.nth + 1;
}

NNL_RT void
nnl_par_run(nnl_par_fn *fn, void *ctx, int64_t n)
{
	struct nnl_pool *p = &nnl_pool;

	pthread_once(&nnl_pool_once, nnl_par_start);
	if (nnl_par_inside) {
		for (int64_t i = 0; i < n; i++)
			fn(ctx, i, nnl_par_self);
		return;
	}
	pthread_mutex_lock(&p->mu);
	if (p->busy || p->nth == 0 || n < 2) {
		pthread_mutex_unlock(&p->mu);
		nnl_par_inside = 1;
		for (int64_t i = 0; i < n; i++)
			fn(ctx, i, nnl_par_self);
		nnl_par_inside = 0;
		return;
	}
	p->busy = 1;
	__atomic_store_n(&p->take, (uint64_t)(uint32_t)(p->gen + 1) << 32 |
	    0xffffffffu, __ATOMIC_RELAXED);
	p->fn = fn;
	p->ctx = ctx;
	__atomic_store_n(&p->n, n, __ATOMIC_RELEASE);
	__atomic_store_n(&p->pending, (int)n, __ATOMIC_RELAXED);
	__atomic_store_n(&p->take, (uint64_t)(uint32_t)(p->gen + 1) << 32,
	    __ATOMIC_RELEASE);
	__atomic_store_n(&p->gen, p->gen + 1, __ATOMIC_RELEASE);
	pthread_cond_broadcast(&p->go);
	pthread_mutex_unlock(&p->mu);
	nnl_par_work(p, 0, p->gen);
	for (int k = 0; k < NNL_PAR_SPIN && __atomic_load_n(&p->pending,
	    __ATOMIC_ACQUIRE); k++)
		nnl_par_pause();
	pthread_mutex_lock(&p->mu);
	if (__atomic_load_n(&p->pending, __ATOMIC_ACQUIRE)) {
		__atomic_store_n(&p->sleeping, 1, __ATOMIC_SEQ_CST);
		while (__atomic_load_n(&p->pending, __ATOMIC_SEQ_CST))
			pthread_cond_wait(&p->done, &p->mu);
		__atomic_store_n(&p->sleeping, 0, __ATOMIC_RELAXED);
	}
	p->busy = 0;
	pthread_mutex_unlock(&p->mu);
}

/* Parts to split n units into: a few a thread, so that the threads
 * that get to run take more, but no more than there are units. */
NNL_RT_INLINE int64_t
nnl_par_parts(int64_t n)
{
	return n < 4 * NNL_PAR_T ? n : 4 * NNL_PAR_T;
}

/* Parts to split n units into, one a thread (no more than there are
 * units): each thread's share of a product or convolution is the same
 * every run, and the same channels or rows as in the node before, so
 * that it reads what its core computed; with a part a thread, the
 * caller (taking from the front, nnl_par_work) always takes part 0. */
NNL_RT_INLINE int64_t
nnl_par_each(int64_t n)
{
	return n < NNL_PAR_T ? n : NNL_PAR_T;
}

/* [*lo, *hi): part i of np of n units, split as evenly as whole units
 * go. */
NNL_RT_INLINE void
nnl_par_range(int64_t n, int64_t np, int64_t i, int64_t *lo, int64_t *hi)
{
	*lo = n * i / np;
	*hi = n * (i + 1) / np;
}

/* [*lo, *hi): part i of np of n items, whole groups of 16 (a cache
 * line of floats, and as many lanes as any vector holds) but the
 * last. */
NNL_RT_INLINE void
nnl_par_range16(int64_t n, int64_t np, int64_t i, int64_t *lo, int64_t *hi)
{
	nnl_par_range((n + 15) / 16, np, i, lo, hi);
	*lo *= 16;
	*hi = *hi * 16 < n ? *hi * 16 : n;
}

/* The share of the busiest thread's time that n items fill, split
 * over the threads by whole units of unit items, the last one ragged
 * (0 where there are fewer than two units): how evenly a split by
 * them shares the work. */
NNL_RT_INLINE double
nnl_par_share(int64_t n, int64_t unit)
{
	int64_t units = (n + unit - 1) / unit;

	if (units < 2)
		return 0;
	return (double)n / (double)(NNL_PAR_T * ((units + NNL_PAR_T - 1) /
	    NNL_PAR_T) * unit);
}

/* ---- SGEMM: column tiles or row blocks of C ---- */

struct nnl_par_gemm {
	const struct nnl_gemm_kernel *u;
	int64_t M, N, K;
	float alpha;
	const float *A;
	int64_t lda;
	int ta;
	const float *B;
	int64_t ldb;
	int tb;
	float *C;
	int64_t ldc;
	float *pack;
	int64_t ps;		/* floats of one part's packing space */
	const struct nnl_gemm_epi *e;
	int64_t unit;		/* columns or rows a unit */
	int64_t np;		/* parts */
	int bycol;
};

/* The product's operands in g, with nothing split yet. */
NNL_RT_INLINE void
nnl_par_gemm_set(struct nnl_par_gemm *g, const struct nnl_gemm_kernel *u,
    int64_t M, int64_t N, int64_t K, float alpha, const float *A,
    int64_t lda, int ta, const float *B, int64_t ldb, int tb, float *C,
    int64_t ldc, float *pack, const struct nnl_gemm_epi *e)
{
	memset(g, 0, sizeof *g);
	g->u = u;
	g->M = M;
	g->N = N;
	g->K = K;
	g->alpha = alpha;
	g->A = A;
	g->lda = lda;
	g->ta = ta;
	g->B = B;
	g->ldb = ldb;
	g->tb = tb;
	g->C = C;
	g->ldc = ldc;
	g->pack = pack;
	g->ps = nnl_packsize(M, N, K);
	g->e = e;
}

/* [*lo, *hi): the columns (or rows) of part i of g, 0 to 0 where it
 * has none. */
NNL_RT_INLINE void
nnl_par_span(const struct nnl_par_gemm *g, int64_t i, int64_t *lo,
    int64_t *hi)
{
	int64_t n = g->bycol ? g->N : g->M;

	nnl_par_range((n + g->unit - 1) / g->unit, g->np, i, lo, hi);
	*lo *= g->unit;
	*hi = *hi * g->unit < n ? *hi * g->unit : n;
	if (*lo >= *hi)
		*lo = *hi = 0;
}

/*
 * Part i: the same product on its columns (whole tiles of nr, so each
 * tile of C is the tile it is with one thread: the same panels, the
 * same steps of K) or its rows (whole tiles of the microkernel's rows:
 * each row of C is the same sums in any block of them), in thread t's
 * packing space.
 */
static void
nnl_par_gemm_part(void *arg, int64_t i, int t)
{
	const struct nnl_par_gemm *g = arg;
	int64_t lo, hi;
	struct nnl_gemm_epi e;

	nnl_par_span(g, i, &lo, &hi);
	if (lo >= hi)
		return;
	memset(&e, 0, sizeof e);
	if (g->e)
		e = *g->e;
	if (g->bycol) {
		if (g->e && e.cb)
			e.cb += lo;
		if (g->e && e.res)
			e.res += lo;
		/* (B in panels: lo is a whole number of them) */
		nnl_sgemm_with(g->u, g->M, hi - lo, g->K, g->alpha, g->A,
		    g->lda, g->ta, e.bp32 ? g->B + lo * g->K : g->tb ?
		    g->B + lo * g->ldb : g->B + lo,
		    g->ldb, g->tb, g->C + lo, g->ldc, g->pack + t * g->ps,
		    g->e ? &e : 0);
	} else {
		if (g->e && e.rb)
			e.rb += lo;
		if (g->e && e.res)
			e.res += lo * g->ldc;
		nnl_sgemm_with(g->u, hi - lo, g->N, g->K, g->alpha,
		    g->ta ? g->A + lo : g->A + lo * g->lda, g->lda, g->ta,
		    g->B, g->ldb, g->tb, g->C + lo * g->ldc, g->ldc,
		    g->pack + t * g->ps, g->e ? &e : 0);
	}
}

/* Products smaller than this many multiply-adds run on one thread:
 * waking the pool costs more. */
enum { NNL_PAR_MINWORK = 1 << 20 };

/*
 * g's split, a part a thread: by whole tiles of columns or of the
 * microkernel's rows, whichever shares it more evenly (196 columns are
 * six tiles and four columns, 576 rows 41 tiles and two rows; columns
 * of B in panels of 32 go by whole panels).  0 where neither gives two
 * parts.
 */
NNL_RT_INLINE int
nnl_par_split(struct nnl_par_gemm *g)
{
	int64_t uc = g->e && g->e->bp32 ? 32 : g->u->nr;
	double ec = nnl_par_share(g->N, uc), er = nnl_par_share(g->M,
	    g->u->mr);

	if (ec == 0 && er == 0)
		return 0;
	g->bycol = ec >= er;
	g->unit = g->bycol ? uc : g->u->mr;
	g->np = nnl_par_each(((g->bycol ? g->N : g->M) + g->unit - 1) /
	    g->unit);
	return 1;
}

/* nnl_sgemm_with's product split over the pool (nnl_par_split); 0 if
 * it is too small to split (the caller runs it), else 1. */
NNL_RT int
nnl_par_sgemm(const struct nnl_gemm_kernel *u, int64_t M, int64_t N,
    int64_t K, float alpha, const float *A, int64_t lda, int ta,
    const float *B, int64_t ldb, int tb, float *C, int64_t ldc, float *pack,
    const struct nnl_gemm_epi *e)
{
	struct nnl_par_gemm g;

	if (nnl_par_inside || (double)M * (double)N * (double)K <
	    NNL_PAR_MINWORK || !nnl_par_room(pack, nnl_packsize(M, N, K)))
		return 0;
	nnl_par_gemm_set(&g, u, M, N, K, alpha, A, lda, ta, B, ldb, tb, C,
	    ldc, pack, e);
	if (!nnl_par_split(&g))
		return 0;
	nnl_par_run(nnl_par_gemm_part, &g, g.np);
	return 1;
}

/* Part i of a flipped convolution: its columns (or rows) of the
 * product, then their transposition. */
struct nnl_par_flip {
	struct nnl_par_gemm g;
	float *y;
};

static void
nnl_par_flip_part(void *arg, int64_t i, int t)
{
	const struct nnl_par_flip *f = arg;
	const struct nnl_par_gemm *g = &f->g;
	int64_t lo, hi;

	nnl_par_gemm_part((void *)g, i, t);
	nnl_par_span(g, i, &lo, &hi);
	if (lo >= hi)
		return;
	if (g->bycol)
		nnl_transpose_part(g->N, 0, g->M, lo, hi, g->C, f->y, g->M);
	else
		nnl_transpose_part(g->N, lo, hi, 0, g->N, g->C, f->y, g->M);
}

/*
 * A flipped conv2d's product t[P][O] (nn.c) split as nnl_par_split
 * does (96 columns are three panels of 32, 196 rows fourteen tiles of
 * 14), each part transposing what it computed into y[O][P] on its
 * thread; 0 if too small to split (the caller runs it), else 1.
 */
NNL_RT int
nnl_par_flip(int64_t P, int64_t O, int64_t K, const float *A, int64_t lda,
    const float *B, int64_t ldb, int tb, float *t, float *pack,
    const struct nnl_gemm_epi *e, float *y)
{
	struct nnl_par_flip f;

	if (nnl_par_inside || P < 4 || (double)P * (double)O * (double)K <
	    NNL_PAR_MINWORK || !nnl_par_room(pack, nnl_packsize(P, O, K)))
		return 0;
	nnl_par_gemm_set(&f.g, nnl_gemm_best(), P, O, K, 1, A, lda, 1, B,
	    ldb, tb, t, O, pack, e);
	if (!nnl_par_split(&f.g))
		return 0;
	f.y = y;
	nnl_par_run(nnl_par_flip_part, &f, f.g.np);
	return 1;
}

/* Part i of a product of few rows: its columns, whole groups of 16
 * (so that every vector loop of the row kernels and of the activation
 * meets the same elements as on one thread). */
static void
nnl_par_rows_part(void *arg, int64_t i, int t)
{
	const struct nnl_par_gemm *g = arg;
	int64_t lo, hi;

	(void)t;
	nnl_par_range16(g->N, g->np, i, &lo, &hi);
	if (lo >= hi)
		return;
	nnl_epi_init(g->e, g->C + lo, g->ldc, 0, lo, g->M, hi - lo);
	nnl_sgemm_rows(g->M, hi - lo, g->K, g->alpha, g->A, g->lda, g->ta,
	    g->tb ? g->B + lo * g->ldb : g->B + lo, g->ldb, g->tb, g->C + lo,
	    g->ldc);
	nnl_epi_act(g->e, g->C + lo, lo, g->ldc, g->M, hi - lo);
}

/* Products smaller than this many multiply-adds on fewer than four
 * rows (matrix-vector products, bound by memory) run on one thread. */
enum { NNL_PAR_MINROWS = 1 << 17 };

/* nnl_sgemm's product of fewer than four rows split by columns over the
 * pool; 0 if it is too small to split (the caller runs it), else 1. */
NNL_RT int
nnl_par_sgemm_rows(int64_t M, int64_t N, int64_t K, float alpha,
    const float *A, int64_t lda, int ta, const float *B, int64_t ldb, int tb,
    float *C, int64_t ldc, const struct nnl_gemm_epi *e)
{
	struct nnl_par_gemm g;

	if (nnl_par_inside || N < 32 || (double)M * (double)N * (double)K <
	    NNL_PAR_MINROWS)
		return 0;
	nnl_par_gemm_set(&g, 0, M, N, K, alpha, A, lda, ta, B, ldb, tb, C,
	    ldc, 0, e);
	g.np = nnl_par_parts((N + 15) / 16);
	nnl_par_run(nnl_par_rows_part, &g, g.np);
	return 1;
}

/* ---- conv2d by bands of output rows ---- */

struct nnl_par_band {
	const struct nnl_conv_bands *b;
	int64_t ny;		/* output rows a band */
};

/* Band i: its im2col in thread t's col, its product in thread t's
 * packing space; the product runs on this thread (nnl_par_inside). */
static void
nnl_par_band_part(void *arg, int64_t i, int t)
{
	const struct nnl_par_band *g = arg;
	const struct nnl_conv_bands *b = g->b;
	int64_t oy = i * g->ny;
	int64_t rows = b->OH - oy < g->ny ? b->OH - oy : g->ny;
	float *col = b->col + t * b->Kd * b->nb;
	struct nnl_gemm_epi e = *b->e;

	if (rows <= 0)
		return;
	if (e.res)
		e.res += oy * b->OW;
	nnl_im2col_nchw(b->x, b->icg, b->H, b->W, oy, rows, b->OW, b->kh,
	    b->kw, b->sh, b->sw, b->dh, b->dw, b->pt, b->pl, col);
	nnl_sgemm(b->ocg, rows * b->OW, b->Kd, 1, b->w, b->lda, (int)b->ta,
	    col, rows * b->OW, 0, b->y + oy * b->OW, b->P, b->pack + t * b->ps,
	    &e);
}

/*
 * The bands of b shared by the threads, each band's im2col and product
 * on one thread (no thread reads another's im2col); bands of fewer
 * rows than b's where that shares them more evenly.  Each output
 * element is the sum it is with one thread: the same K steps.  0 where
 * it is too small to split, or a thread's col would pass the node's
 * workspace (the caller runs it), else 1.
 */
NNL_RT int
nnl_par_bands(const struct nnl_conv_bands *b)
{
	struct nnl_par_band g;
	int64_t nband = (b->OH + b->ny - 1) / b->ny, per;

	if (nnl_par_inside || b->OH < 2 * NNL_PAR_T ||
	    (double)b->ocg * (double)b->P * (double)b->Kd <
	    4.0 * NNL_PAR_MINWORK || !nnl_par_room(b->col, b->Kd * b->nb))
		return 0;
	/* bands a thread, then rows a band */
	per = (nband + NNL_PAR_T - 1) / NNL_PAR_T;
	g.b = b;
	g.ny = (b->OH + per * NNL_PAR_T - 1) / (per * NNL_PAR_T);
	nnl_par_run(nnl_par_band_part, &g, (b->OH + g.ny - 1) / g.ny);
	return 1;
}

/* ---- im2col and depthwise convolutions: channels ---- */

/* Work below which a split by channels runs on one thread: floats
 * copied, multiply-adds. */
enum { NNL_PAR_MINCOPY = 1 << 16, NNL_PAR_MINDW = 1 << 17 };

struct nnl_par_chan {
	const float *x, *w, *bias;
	float *y, *scratch;
	int64_t C, ip[22], a[13];
	int64_t wc, wt, act, scr;	/* scratch floats a thread */
	float lo, hi;
	int64_t np;
};

/* Part i of nnl_im2col_nchw: its channels' rows of col. */
static void
nnl_par_im2col_part(void *arg, int64_t i, int t)
{
	const struct nnl_par_chan *g = arg;
	const int64_t *a = g->a;	/* H, W, oy0, OH, OW, kh, kw, ... */
	int64_t c0, c1;

	(void)t;
	nnl_par_range(g->C, g->np, i, &c0, &c1);
	if (c0 < c1)
		nnl_im2col_nchw(g->x + c0 * a[0] * a[1], c1 - c0, a[0], a[1],
		    a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10],
		    a[11], a[12], g->y + c0 * a[5] * a[6] * a[3] * a[4]);
}

/* nnl_im2col_nchw, its channels split over the pool: each row of col
 * is what it is on one thread. */
NNL_RT void
nnl_par_im2col(const float *x, int64_t icg, int64_t H, int64_t W,
    int64_t oy0, int64_t OH, int64_t OW, int64_t kh, int64_t kw, int64_t sh,
    int64_t sw, int64_t dh, int64_t dw, int64_t pt, int64_t pl, float *col)
{
	struct nnl_par_chan g;

	if (icg < 2 || (double)icg * (double)(kh * kw * OH * OW) <
	    NNL_PAR_MINCOPY) {
		nnl_im2col_nchw(x, icg, H, W, oy0, OH, OW, kh, kw, sh, sw, dh,
		    dw, pt, pl, col);
		return;
	}
	g.x = x;
	g.y = col;
	g.C = icg;
	g.a[0] = H;
	g.a[1] = W;
	g.a[2] = oy0;
	g.a[3] = OH;
	g.a[4] = OW;
	g.a[5] = kh;
	g.a[6] = kw;
	g.a[7] = sh;
	g.a[8] = sw;
	g.a[9] = dh;
	g.a[10] = dw;
	g.a[11] = pt;
	g.a[12] = pl;
	g.np = nnl_par_parts(icg);
	nnl_par_run(nnl_par_im2col_part, &g, g.np);
}

/* Part i of a depthwise nchw convolution: its channels (whole blocks
 * of 16 where dwconv.c takes them in blocks), with thread t's padded
 * copy. */
static void
nnl_par_dw_part(void *arg, int64_t i, int t)
{
	const struct nnl_par_chan *g = arg;
	int64_t c0, c1, ip[22], P = g->ip[6] * g->ip[7];

	if (nnl_dw_blockable(g->ip))
		nnl_par_range16(g->C, g->np, i, &c0, &c1);
	else
		nnl_par_range(g->C, g->np, i, &c0, &c1);
	if (c0 >= c1)
		return;
	memcpy(ip, g->ip, sizeof ip);
	ip[2] = ip[5] = c1 - c0;
	nnl_conv_dw_nchw(g->x + c0 * ip[3] * ip[4], g->w + c0 * g->wc, g->wc,
	    g->wt, g->bias ? g->bias + c0 : 0, g->y + c0 * P, ip, g->act,
	    g->lo, g->hi, g->scratch + t * g->scr);
}

/* nnl_conv_dw_nchw (conv2d's parameters ip, of 22) split by channels
 * over the pool: each output channel is what it is on one thread.
 * pad holds nnl_dw_scratch(ip) floats a thread (kern_nn.c). */
NNL_RT void
nnl_par_dw_nchw(const float *x, const float *w, int64_t wc, int64_t wt,
    const float *bias, float *y, const int64_t *ip, int64_t act, float lo,
    float hi, float *pad)
{
	struct nnl_par_chan g;
	int64_t C = ip[2];

	if (C < 2 || (double)C * (double)(ip[6] * ip[7] * ip[8] * ip[9]) <
	    NNL_PAR_MINDW || !nnl_par_room(pad, nnl_dw_scratch(ip))) {
		nnl_conv_dw_nchw(x, w, wc, wt, bias, y, ip, act, lo, hi, pad);
		return;
	}
	g.x = x;
	g.w = w;
	g.bias = bias;
	g.y = y;
	g.scratch = pad;
	g.C = C;
	memcpy(g.ip, ip, sizeof g.ip);
	g.wc = wc;
	g.wt = wt;
	g.act = act;
	g.lo = lo;
	g.hi = hi;
	g.scr = nnl_dw_scratch(ip);
	/* channel blocks (dwconv.c) whole: a part that ended inside one
	 * would take the whole block's time for its last channels */
	g.np = nnl_par_each(nnl_dw_blockable(ip) ? (C + 15) / 16 : C);
	nnl_par_run(nnl_par_dw_part, &g, g.np);
}

/* ---- concat: bytes ---- */

/* Copies smaller than this many bytes run on one thread. */
enum { NNL_PAR_MINBYTES = 1 << 18 };

struct nnl_par_cat {
	const int64_t *ip;
	const void *const *in;
	char *dst;
	int64_t total, np;
};

/* Part i of a concat (nnl_k_concat's parameters): the bytes of its
 * share of the output, from whichever inputs they come from. */
static void
nnl_par_cat_part(void *arg, int64_t i, int t)
{
	const struct nnl_par_cat *g = arg;
	const int64_t *ip = g->ip;
	int64_t es = ip[0], outer = ip[1], inner = ip[3], nin = ip[4];
	int64_t lo, hi, pos = 0;

	(void)t;
	nnl_par_range(g->total, g->np, i, &lo, &hi);
	for (int64_t o = 0; o < outer && pos < hi; o++)
		for (int64_t k = 0; k < nin && pos < hi; k++) {
			int64_t chunk = ip[5 + k] * inner * es;
			int64_t a = lo > pos ? lo : pos;
			int64_t b = hi < pos + chunk ? hi : pos + chunk;

			/* (not an input the memory plan put where it
			 * goes) */
			if (a < b && g->dst + pos != (const char *)g->in[k] +
			    o * chunk)
				memcpy(g->dst + a, (const char *)g->in[k] +
				    o * chunk + (a - pos), (size_t)(b - a));
			pos += chunk;
		}
}

/* nnl_k_concat with its output's bytes split over the pool: 0 if it is
 * too small to split (the caller copies it), else 1. */
NNL_RT int
nnl_par_concat(const int64_t *ip, const void *const *in, void *const *out)
{
	struct nnl_par_cat g;

	g.total = ip[0] * ip[1] * ip[2] * ip[3];
	if (nnl_par_inside || g.total < NNL_PAR_MINBYTES)
		return 0;
	g.ip = ip;
	g.in = in;
	g.dst = out[0];
	g.np = NNL_PAR_T;
	nnl_par_run(nnl_par_cat_part, &g, g.np);
	return 1;
}

/* ---- first layers (nnl_conv_stem): bands of output rows ---- */

struct nnl_par_stem {
	const float *x, *w, *bias;
	float *y;
	const int64_t *ip;
	int64_t act, np;
	float lo, hi;
};

static void
nnl_par_stem_part(void *arg, int64_t i, int t)
{
	const struct nnl_par_stem *g = arg;
	int64_t oy0, oy1;

	(void)t;
	nnl_par_range(g->ip[6], g->np, i, &oy0, &oy1);
	if (oy0 < oy1)
		nnl_conv_stem(g->x, g->w, g->bias, g->y, g->ip, oy0, oy1,
		    g->act, g->lo, g->hi);
}

NNL_RT int
nnl_par_stem(const float *x, const float *w, const float *bias, float *y,
    const int64_t *ip, int64_t act, float lo, float hi)
{
	struct nnl_par_stem g = { x, w, bias, y, ip, act, 0, lo, hi };

	if (ip[6] < 2 || (double)ip[5] * (double)(ip[6] * ip[7]) *
	    (double)(ip[2] * 9) < NNL_PAR_MINWORK)
		return 0;
	g.np = nnl_par_each(ip[6]);
	nnl_par_run(nnl_par_stem_part, &g, g.np);
	return 1;
}

/* ---- elementwise float32 ops: whole cache lines ---- */

/* Floats below which an elementwise op runs on one thread.  An add is
 * split not for its few microseconds of arithmetic but so that each
 * thread reads the channels it has just computed (the pool's ends,
 * nnl_par_work), where the one thread would read half of them from the
 * other core. */
enum { NNL_PAR_MINFLAT = 1 << 14 };

/* What nnl_par_flat's op names past nnl_binary_f32's: y = act(y + b),
 * nnl_addact (a conv2d's residual). */
enum { NNL_PAR_ADDACT = -1 };

struct nnl_par_flat {
	int64_t op;
	const float *a, *b;
	float *y;
	int64_t n, np, act;
	float lo, hi;
};

static void
nnl_par_flat_part(void *arg, int64_t i, int t)
{
	const struct nnl_par_flat *g = arg;
	int64_t lo, hi;

	(void)t;
	nnl_par_range16(g->n, g->np, i, &lo, &hi);
	if (lo >= hi)
		return;
	if (g->op == NNL_PAR_ADDACT)
		nnl_addact(g->y + lo, g->b + lo, hi - lo, g->act, g->lo,
		    g->hi);
	else if (g->b)
		nnl_binary_f32(g->op, g->a + lo, g->b + lo, g->y + lo, hi - lo);
	else
		nnl_relu_f32(g->a + lo, g->y + lo, hi - lo);
}

/* g over the pool in np parts, or 0 where too small. */
static int
nnl_par_flat_run(struct nnl_par_flat *g, int64_t np)
{
	if (nnl_par_inside || g->n < NNL_PAR_MINFLAT)
		return 0;
	g->np = np;
	nnl_par_run(nnl_par_flat_part, g, np);
	return 1;
}

NNL_RT int
nnl_par_flat(int64_t op, const float *a, const float *b, float *y,
    int64_t n)
{
	struct nnl_par_flat g = { op, a, b, y, n, 0, 0, 0, 0 };

	return nnl_par_flat_run(&g, nnl_par_parts((n + 15) / 16));
}

/* A part a thread (nnl_par_each): each thread adds the same lines
 * every run. */
NNL_RT int
nnl_par_addact(float *y, const float *r, int64_t n, int64_t act, float lo,
    float hi)
{
	struct nnl_par_flat g = { NNL_PAR_ADDACT, y, r, y, n, 0, act, lo,
	    hi };

	return nnl_par_flat_run(&g, nnl_par_each((n + 15) / 16));
}

/* ---- pooling: planes ---- */

struct nnl_par_pool {
	const int64_t *ip;
	const float *x;
	float *y;
	int64_t np;
};

static void
nnl_par_pool_part(void *arg, int64_t i, int t)
{
	const struct nnl_par_pool *g = arg;
	int64_t ip[18], c0, c1;

	(void)t;
	memcpy(ip, g->ip, sizeof ip);
	nnl_par_range(ip[2] * ip[3], g->np, i, &c0, &c1);
	if (c0 >= c1)
		return;
	ip[2] = 1;
	ip[3] = c1 - c0;
	nnl_pool_nchw(ip, g->x + c0 * ip[4] * ip[5],
	    g->y + c0 * ip[6] * ip[7]);
}

/* nnl_pool_nchw (pool2d's parameters ip, of 18) split by planes over
 * the pool: each plane is what it is on one thread.  0 where
 * nnl_pool_nchw does nothing. */
NNL_RT int
nnl_par_pool_nchw(const int64_t *ip, const float *x, float *y)
{
	struct nnl_par_pool g;
	int64_t none[18], planes = ip[2] * ip[3];

	if (planes < 2 || (double)planes * (double)(ip[4] * ip[5] +
	    ip[6] * ip[7] * ip[8] * ip[9]) < NNL_PAR_MINCOPY)
		return nnl_pool_nchw(ip, x, y);
	/* whether it pools these at all: on no plane */
	memcpy(none, ip, sizeof none);
	none[2] = 0;
	if (!nnl_pool_nchw(none, x, y))
		return 0;
	g.ip = ip;
	g.x = x;
	g.y = y;
	g.np = nnl_par_parts(planes);
	nnl_par_run(nnl_par_pool_part, &g, g.np);
	return 1;
}
