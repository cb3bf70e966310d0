/*
 * nn_par: nn.c's convolutions and pools split over the thread pool
 * (par.c): conv2d by bands of output rows, im2col by channels, the
 * first layers by bands of rows, pooling by planes.
 */
#include "rt.h"
#include "par.h"

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
