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
#include "par.h"

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
