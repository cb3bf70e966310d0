/*
 * tensor_par: concat's copy split by bytes over the thread pool
 * (par.c).
 */
#include "rt.h"
#include "par.h"

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
