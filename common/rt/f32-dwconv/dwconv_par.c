/*
 * dwconv_par: depthwise convolutions split by channels over the
 * thread pool (par.c).
 */
#include "rt.h"
#include "par.h"

/* Part i of a depthwise nchw convolution: its channels (whole blocks
 * of 16 where dwconv.c takes them in blocks), with thread t's padded
 * copy. */
static void
nnl_par_dw_part(void *arg, int64_t i, int t)
{
	const struct nnl_par_chan *g = arg;
	int64_t c0, c1, ip[22], P = g->ip[6] * g->ip[7];

	if (nnl_dw_blockable(g->ip) || nnl_dw_blockgen(g->ip))
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
	g.np = nnl_par_each(nnl_dw_blockable(ip) || nnl_dw_blockgen(ip) ?
	    (C + 15) / 16 : C);
	nnl_par_run(nnl_par_dw_part, &g, g.np);
}
