/*
 * ew_par: elementwise float32 ops split by whole cache lines (flat
 * ones) or whole rows (broadcast ones) over the thread pool (par.c).
 */
#include "rt.h"
#include "vmath.h"
#include "par.h"

/* ---- elementwise float32 ops: whole cache lines ---- */

/* Floats below which an elementwise op runs on one thread.  An add is
 * split not for its few microseconds of arithmetic but so that each
 * thread reads the channels it has just computed (the pool's ends,
 * nnl_par_work), where the one thread would read half of them from the
 * other core. */
enum { NNL_PAR_MINFLAT = 1 << 14 };

/* What nnl_par_flat's op names past nnl_binary_f32's: y = act(y + b),
 * nnl_addact (a conv2d's residual); y = f(a), a vmath function. */
enum { NNL_PAR_ADDACT = -1, NNL_PAR_VMATH = -2 };

struct nnl_par_flat {
	int64_t op;
	const float *a, *b;
	float *y;
	int64_t n, np, act;
	float lo, hi;
	void (*f)(const float *, float *, int64_t);
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
	else if (g->op == NNL_PAR_VMATH)
		g->f(g->a + lo, g->y + lo, hi - lo);
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
	struct nnl_par_flat g = { op, a, b, y, n, 0, 0, 0, 0, 0 };

	return nnl_par_flat_run(&g, nnl_par_parts((n + 15) / 16));
}

/* Whole lines a part, as nnl_par_flat's: each element goes through
 * the same lanes (vmath.h's NNL_VMATH_LOOP), so the output does not
 * change with the number of threads. */
NNL_RT int
nnl_par_vmath(void (*f)(const float *, float *, int64_t), const float *x,
    float *y, int64_t n)
{
	struct nnl_par_flat g = { NNL_PAR_VMATH, x, 0, y, n, 0, 0, 0, 0, f };

	return nnl_par_flat_run(&g, nnl_par_parts((n + 15) / 16));
}

/* A part a thread (nnl_par_each): each thread adds the same lines
 * every run. */
NNL_RT int
nnl_par_addact(float *y, const float *r, int64_t n, int64_t act, float lo,
    float hi)
{
	struct nnl_par_flat g = { NNL_PAR_ADDACT, y, r, y, n, 0, act, lo,
	    hi, 0 };

	return nnl_par_flat_run(&g, nnl_par_each((n + 15) / 16));
}

/* ---- broadcast float32 binary ops: whole rows ---- */

struct nnl_par_brows {
	int64_t op, np;
	const struct nnl_bshape *s;
	const float *a, *b;
	float *y;
};

static void
nnl_par_brows_part(void *arg, int64_t i, int t)
{
	const struct nnl_par_brows *g = arg;
	int64_t lo, hi;

	(void)t;
	nnl_par_range(g->s->outer, g->np, i, &lo, &hi);
	if (lo < hi)
		nnl_binary_rows(g->op, g->s, g->a, g->b, g->y, lo, hi);
}

/* Each element is one operation whichever thread does it: the bits are
 * those of one thread. */
NNL_RT int
nnl_par_brows(int64_t op, const struct nnl_bshape *s, const float *a,
    const float *b, float *y)
{
	struct nnl_par_brows g = { op, 0, s, a, b, y };

	if (nnl_par_inside || s->outer < 2 ||
	    s->outer * s->d[s->q - 1] < NNL_PAR_MINFLAT)
		return 0;
	g.np = nnl_par_parts(s->outer);
	nnl_par_run(nnl_par_brows_part, &g, g.np);
	return 1;
}
