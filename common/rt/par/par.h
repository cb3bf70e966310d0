/*
 * par.h: what the threaded parts of the runtime share (the pool is
 * par.c): the pool's size, when a split pays, how a thread's share of
 * n units is cut, and the thread-local state the generated code and
 * the pool set.  Like par.c, pasted only into code built with
 * --threads N (N > 1), once, before the families' threaded parts
 * (f32-gemm/gemm_par.c, nn/nn_par.c, ...): the runtime is one
 * translation unit there.
 */
#ifndef NNL_PAR_H
#define NNL_PAR_H

#include "rt.h"

/* nn.c calls these functions through the ones below */
#undef nnl_im2col_nchw
#undef nnl_conv_dw_nchw
#undef nnl_pool_nchw

enum { NNL_PAR_T = NNL_RT_THREADS };

/* The end of the running node's workspace (null: none), set by the
 * generated code on the thread that runs the model. */
#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
static _Thread_local const void *nnl_par_end;
#else
static __thread const void *nnl_par_end;
#endif

/* Whether n floats a thread, from p on, fit the node's workspace. */
NNL_RT_INLINE int
nnl_par_room(const float *p, int64_t n)
{
	const char *end = nnl_par_end;

	return end && (const char *)p < end && (double)n * NNL_PAR_T <=
	    (double)(end - (const char *)p) / sizeof *p;
}

/* Whether this thread is running a part: a run it starts then runs
 * on it alone, and the products it calls are not split. */
#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
static _Thread_local int nnl_par_inside;
#else
static __thread int nnl_par_inside;
#endif

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

/* Products smaller than this many multiply-adds run on one thread:
 * waking the pool costs more. */
enum { NNL_PAR_MINWORK = 1 << 20 };

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

#endif
