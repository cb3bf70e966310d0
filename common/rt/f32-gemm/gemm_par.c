/*
 * gemm_par: SGEMM split over the thread pool (par.c): column tiles
 * or row blocks of C, each tile the same sums as on one thread.
 */
#include "rt.h"
#include "par.h"

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

/* Part i of a product of few columns: its rows, whole groups of 64 (a
 * multiple of nnl_sgemm_cols's blocks on every vector width, so that
 * each row is the same sums as on one thread). */
static void
nnl_par_cols_part(void *arg, int64_t i, int t)
{
	const struct nnl_par_gemm *g = arg;
	int64_t lo, hi;

	(void)t;
	nnl_par_range((g->M + 63) / 64, g->np, i, &lo, &hi);
	lo *= 64;
	hi = hi * 64 < g->M ? hi * 64 : g->M;
	if (lo >= hi)
		return;
	nnl_sgemm_cols_epi(g->e, lo, hi - lo, g->N, g->K, g->alpha, g->ta ?
	    g->A + lo : g->A + lo * g->lda, g->lda, g->ta, g->B, g->ldb,
	    g->tb, g->C + lo * g->ldc, g->ldc);
}

/* nnl_sgemm's product of fewer than four columns (squeeze-and-excite's
 * 1x1 convolutions of a 1x1 image) split by rows over the pool; 0 if
 * it is too small to split (the caller runs it), else 1. */
NNL_RT int
nnl_par_sgemm_cols(int64_t M, int64_t N, int64_t K, float alpha,
    const float *A, int64_t lda, int ta, const float *B, int64_t ldb, int tb,
    float *C, int64_t ldc, const struct nnl_gemm_epi *e)
{
	struct nnl_par_gemm g;

	if (nnl_par_inside || M < 128 || (double)M * (double)N * (double)K <
	    NNL_PAR_MINROWS)
		return 0;
	nnl_par_gemm_set(&g, 0, M, N, K, alpha, A, lda, ta, B, ldb, tb, C,
	    ldc, 0, e);
	g.np = nnl_par_parts((M + 63) / 64);
	nnl_par_run(nnl_par_cols_part, &g, g.np);
	return 1;
}
