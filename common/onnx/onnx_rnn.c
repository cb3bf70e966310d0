/*
 * onnx_rnn: the ONNX recurrent operators.  GRU and LSTM become WebNN's
 * gru and lstm, whose gate layouts zrn and iofg are ONNX's zrh and
 * iofc; RNN is spelled out step by step with gemm.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "onnx_imp.h"
#include "escape.h"

static const char *
transpose(struct imp *m, const char *x, int n, const uint32_t *perm,
    const char *out)
{
	cJSON *o;

	if (!x)
		return NULL;
	o = cJSON_CreateObject();
	cJSON_AddItemToObject(o, "permutation", ju32s(perm, (size_t)n));
	return emit(m, "transpose", o, out, 1, x);
}

/* x[start.., size..] of a rank-r operand. */
static const char *
slice(struct imp *m, const char *x, int r, const int64_t *st,
    const int64_t *sz)
{
	uint32_t a[8], b[8];
	cJSON *o;

	if (!x)
		return NULL;
	for (int i = 0; i < r; i++) {
		a[i] = (uint32_t)st[i];
		b[i] = (uint32_t)sz[i];
	}
	o = cJSON_CreateObject();
	cJSON_AddItemToObject(o, "starts", ju32s(a, (size_t)r));
	cJSON_AddItemToObject(o, "sizes", ju32s(b, (size_t)r));
	return emit(m, "slice", o, NULL, 1, x);
}

struct rnnp {
	int gates, nact, nd, layout;
	int64_t steps, batch, isz, h;
	const char *x, *w, *r, *b, *rb, *h0, *c0;
	const char *dir;		/* WebNN's direction */
	const char *acts[3];		/* WebNN's activations */
};

static const char *
webnnact(const char *s)
{
	static const char *const names[] = { "Sigmoid", "sigmoid", "Tanh",
	    "tanh", "Relu", "relu", NULL };

	for (int i = 0; names[i]; i += 2)
		if (strcasecmp(s, names[i]) == 0)
			return names[i + 1];
	return NULL;
}

/* The activations attribute: one list for every direction alike. */
static int
rnnacts(struct imp *m, struct rnnp *p, const char *const *dflt)
{
	const Onnx__AttributeProto *a = att(m, "activations");
	char s[64];

	for (int i = 0; i < p->nact; i++)
		p->acts[i] = dflt[i];
	if (!a || a->n_strings == 0)
		return 0;
	if (a->n_strings != (size_t)(p->nact * p->nd))
		return nodeerr(m, "%zu activations; expected %d", a->n_strings,
		    p->nact * p->nd);
	for (size_t i = 0; i < a->n_strings; i++) {
		size_t n = a->strings[i].len < sizeof s - 1 ?
		    a->strings[i].len : sizeof s - 1;
		const char *w;

		if (n)
			memcpy(s, a->strings[i].data, n);
		s[n] = 0;
		if (!(w = webnnact(s)))
			return refuse(m, REFUSE_ATTR,
			    "activation %s (WebNN has Sigmoid, "
			    "Tanh and Relu)", escape_tty_name(s));
		if (i >= (size_t)p->nact && strcmp(w, p->acts[i - p->nact]))
			return refuse(m, REFUSE_ATTR,
			    "different activations for the two "
			    "directions");
		if (i < (size_t)p->nact)
			p->acts[i] = w;
	}
	return 0;
}

/* sequence_lens: accepted when every sequence is whole. */
static int
seqlens(struct imp *m, const struct rnnp *p)
{
	const char *s = in(m, 4);
	int64_t *v;
	size_t n;

	if (!s)
		return 0;
	if (cints(m, s, &v, &n) != 0)
		return refuse(m, REFUSE_CONST, "sequence_lens not constant");
	for (size_t i = 0; i < n; i++)
		if (v[i] != p->steps) {
			free(v);
			return refuse(m, REFUSE_ATTR,
			    "sequences shorter than the input "
			    "(sequence_lens)");
		}
	free(v);
	return 0;
}

/* The attributes and inputs every recurrent operator shares. */
static int
rnnparse(struct imp *m, struct rnnp *p, int gates, int nact,
    const char *const *dflt)
{
	const char *d = att_s(m, "direction", "forward");
	const struct tdesc *xt = ty(m, in(m, 0));
	static const uint32_t sw[3] = { 1, 0, 2 };
	int r;

	memset(p, 0, sizeof *p);
	p->gates = gates;
	p->nact = nact;
	p->x = in(m, 0);
	p->w = in(m, 1);
	p->r = in(m, 2);
	p->h0 = in(m, 5);
	p->c0 = in(m, 6);
	if (xt->dt != DT_FLOAT32 && xt->dt != DT_FLOAT16)
		return refuse(m, REFUSE_TYPE,
		    "%s on %s", escape_tty_name(m->n->op_type),
		    dtype_name(xt->dt));
	if (xt->rank != 3)
		return nodeerr(m, "X has rank %d; expected 3", xt->rank);
	p->layout = (int)att_i(m, "layout", 0);
	p->nd = strcmp(d, "bidirectional") == 0 ? 2 : 1;
	p->dir = strcmp(d, "forward") == 0 ? "forward" :
	    strcmp(d, "reverse") == 0 ? "backward" : "both";
	if (strcmp(d, "forward") && strcmp(d, "reverse") && p->nd == 1)
		return nodeerr(m, "direction \"%s\"", escape_tty_name(d));
	if (p->layout != 0 && p->layout != 1)
		return nodeerr(m, "layout %d", p->layout);
	p->steps = xt->dims[p->layout];
	p->batch = xt->dims[!p->layout];
	p->isz = xt->dims[2];
	p->h = att_i(m, "hidden_size", 0);
	if (p->h <= 0 && ty(m, p->r)->rank == 3)
		p->h = ty(m, p->r)->dims[2];
	if (p->h <= 0 || p->h > 1 << 24)
		return nodeerr(m, "no valid hidden_size");
	if (att(m, "clip"))
		return refuse(m, REFUSE_ATTR, "clip");
	if (att_i(m, "input_forget", 0))
		return refuse(m, REFUSE_ATTR, "input_forget");
	if ((r = rnnacts(m, p, dflt)) != 0 || (r = seqlens(m, p)) != 0)
		return r;
	if (p->layout) {
		p->x = transpose(m, p->x, 3, sw, NULL);
		p->h0 = p->h0 ? transpose(m, p->h0, 3, sw, NULL) : NULL;
		p->c0 = p->c0 ? transpose(m, p->c0, 3, sw, NULL) : NULL;
		if (!p->x)
			return -1;
	}
	if (in(m, 3)) {
		/* B [nd, 2 * gates * h]: the input's, then the recurrent */
		int64_t st[2] = { 0, 0 }, sz[2] = { p->nd, gates * p->h };
		const struct tdesc *bt = ty(m, in(m, 3));

		if (bt->rank != 2 || bt->dims[0] != p->nd ||
		    bt->dims[1] != 2 * gates * p->h)
			return nodeerr(m, "B is not [%d, %lld]", p->nd,
			    (long long)(2 * gates * p->h));
		p->b = slice(m, in(m, 3), 2, st, sz);
		st[1] = gates * p->h;
		p->rb = slice(m, in(m, 3), 2, st, sz);
		if (!p->b || !p->rb)
			return -1;
	}
	return 0;
}

static cJSON *
rnnopts(const struct rnnp *p, int seq)
{
	cJSON *o = cJSON_CreateObject(), *a = cJSON_CreateArray();

	cJSON_AddNumberToObject(o, "steps", (double)p->steps);
	cJSON_AddNumberToObject(o, "hiddenSize", (double)p->h);
	if (p->b)
		cJSON_AddStringToObject(o, "bias", p->b);
	if (p->rb)
		cJSON_AddStringToObject(o, "recurrentBias", p->rb);
	if (p->h0)
		cJSON_AddStringToObject(o, "initialHiddenState", p->h0);
	if (seq)
		cJSON_AddTrueToObject(o, "returnSequence");
	cJSON_AddStringToObject(o, "direction", p->dir);
	for (int i = 0; i < p->nact; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(p->acts[i]));
	cJSON_AddItemToObject(o, "activations", a);
	return o;
}

/* Binds the WebNN outputs: states (nst) then the sequence, if any, to
 * Y_h (Y_c) and Y, in the ONNX layout. */
static int
rnnbind(struct imp *m, const struct rnnp *p, const char **outs, int nst,
    int seq)
{
	static const uint32_t st[3] = { 1, 0, 2 }, sq[4] = { 2, 0, 1, 3 };

	if (seq && imp_done(m, 0, p->layout ? transpose(m, outs[nst], 4, sq,
	    outname(m, 0)) : outs[nst]))
		return -1;
	for (int k = 0; k < nst; k++)
		if (outname(m, 1 + k) && imp_done(m, 1 + k, p->layout ?
		    transpose(m, outs[k], 3, st, outname(m, 1 + k)) :
		    outs[k]))
			return -1;
	return 0;
}

/* The names the WebNN outputs take: the ONNX ones in layout 0, else
 * (or when absent) distinct ones of the node's (emitn would give every
 * unnamed output the same base). */
static void
rnnnames(struct imp *m, const struct rnnp *p, const char **outs, int nst,
    int seq, char (*buf)[96])
{
	static const char *const what[] = { "hidden", "cell", "sequence" };

	for (int k = 0; k < nst + seq; k++) {
		const char *o = outname(m, k < nst ? 1 + k : 0);

		snprintf(buf[k], sizeof buf[k], "%s__%s", m->nname,
		    what[k < nst ? k : 2]);
		outs[k] = !p->layout && o ? o : buf[k];
	}
}

int
onnx_gru(struct imp *m)
{
	static const char *const dflt[] = { "sigmoid", "tanh" };
	struct rnnp p;
	const char *outs[2], *ins[3];
	char buf[2][96];
	int seq = outname(m, 0) != NULL, r;
	cJSON *o;

	if ((r = rnnparse(m, &p, 3, 2, dflt)) != 0)
		return r;
	o = rnnopts(&p, seq);
	if (!att_i(m, "linear_before_reset", 0))
		cJSON_AddFalseToObject(o, "resetAfter");
	cJSON_AddStringToObject(o, "layout", "zrn");
	ins[0] = p.x;
	ins[1] = p.w;
	ins[2] = p.r;
	rnnnames(m, &p, outs, 1, seq, buf);
	if (emitn(m, "gru", o, 1 + seq, outs, 3, ins) != 0)
		return -1;
	return rnnbind(m, &p, outs, 1, seq);
}

int
onnx_lstm(struct imp *m)
{
	static const char *const dflt[] = { "sigmoid", "tanh", "tanh" };
	struct rnnp p;
	const char *outs[3], *ins[3];
	char buf[3][96];
	int seq = outname(m, 0) != NULL, r;
	cJSON *o;

	if ((r = rnnparse(m, &p, 4, 3, dflt)) != 0)
		return r;
	o = rnnopts(&p, seq);
	if (p.c0)
		cJSON_AddStringToObject(o, "initialCellState", p.c0);
	if (in(m, 7))
		cJSON_AddStringToObject(o, "peepholeWeight", in(m, 7));
	cJSON_AddStringToObject(o, "layout", "iofg");
	ins[0] = p.x;
	ins[1] = p.w;
	ins[2] = p.r;
	rnnnames(m, &p, outs, 2, seq, buf);
	if (emitn(m, "lstm", o, 2 + seq, outs, 3, ins) != 0)
		return -1;
	return rnnbind(m, &p, outs, 2, seq);
}

/* ---- RNN, step by step ---- */

/* W[d] or R[d] of [nd, h, k] as [h, k]. */
static const char *
dirslice(struct imp *m, const char *w, int d)
{
	const struct tdesc *t = ty(m, w);
	int64_t st[3] = { d, 0, 0 }, sz[3];

	if (t->rank != 3)
		return nodeerr(m, "%s is not 3-D", w), NULL;
	sz[0] = 1;
	sz[1] = t->dims[1];
	sz[2] = t->dims[2];
	return imp_reshape(m, slice(m, w, 3, st, sz), 2, sz + 1, NULL);
}

static const char *
gemmbt(struct imp *m, const char *a, const char *b, const char *c)
{
	cJSON *o = cJSON_CreateObject();

	if (!a || !b) {
		cJSON_Delete(o);
		return NULL;
	}
	cJSON_AddTrueToObject(o, "bTranspose");
	if (c)
		cJSON_AddStringToObject(o, "c", c);
	return emit(m, "gemm", o, NULL, 2, a, b);
}

/* One direction: its sequence [steps, 1, batch, h] into *seq, its last
 * state [1, batch, h] returned. */
static const char *
rnndir(struct imp *m, const struct rnnp *p, int d, const char **seq)
{
	int64_t xs[2] = { p->steps * p->batch, p->isz }, s3[3] = { p->steps,
	    p->batch, p->h }, s4[4] = { 1, 1, p->batch, p->h };
	int64_t st[3] = { 0, 0, 0 }, sz[3] = { 1, p->batch, p->h };
	const char *xw, *rw = dirslice(m, p->r, d), *h = NULL, *bias = NULL;
	const char **hs = xcalloc((size_t)p->steps + 1, sizeof *hs);
	int back = strcmp(p->dir, "backward") == 0 || d == 1;
	cJSON *o;

	if (p->b) {
		int64_t bs[2] = { d, 0 }, bz[2] = { 1, p->h };

		bias = emit(m, "add", NULL, NULL, 2, slice(m, p->b, 2, bs, bz),
		    slice(m, p->rb, 2, bs, bz));
	}
	xw = gemmbt(m, imp_reshape(m, p->x, 2, xs, NULL), dirslice(m, p->w, d),
	    bias);
	xw = imp_reshape(m, xw, 3, s3, NULL);
	if (p->h0) {
		st[0] = d;
		h = imp_reshape(m, slice(m, p->h0, 3, st, sz), 2, sz + 1, NULL);
	}
	for (int64_t s = 0; s < p->steps && xw && rw; s++) {
		int64_t t = back ? p->steps - 1 - s : s;
		const char *xt;

		st[0] = t;
		xt = imp_reshape(m, slice(m, xw, 3, st, sz), 2, sz + 1, NULL);
		xt = h ? gemmbt(m, h, rw, xt) : xt;
		h = xt ? emit(m, p->acts[0], NULL, NULL, 1, xt) : NULL;
		hs[t] = imp_reshape(m, h, 4, s4, NULL);
		if (!hs[t])
			break;
	}
	*seq = NULL;
	if (h && hs[0] && hs[p->steps - 1]) {
		o = cJSON_CreateObject();
		cJSON_AddNumberToObject(o, "axis", 0);
		*seq = emitv(m, "concat", o, NULL, (int)p->steps, hs);
	}
	free(hs);
	return *seq ? imp_reshape(m, h, 3, sz, NULL) : NULL;
}

int
onnx_rnn(struct imp *m)
{
	static const char *const dflt[] = { "tanh" };
	struct rnnp p;
	const char *outs[2], *hd[2], *sd[2];
	int r;
	cJSON *o;

	if ((r = rnnparse(m, &p, 1, 1, dflt)) != 0)
		return r;
	if (p.steps > 4096)
		return refuse(m, REFUSE_SIZE, "%lld steps (RNN unrolls)",
		    (long long)p.steps);
	for (int d = 0; d < p.nd; d++)
		if (!(hd[d] = rnndir(m, &p, d, &sd[d])))
			return -1;
	outs[0] = hd[0];
	outs[1] = sd[0];
	if (p.nd == 2) {
		o = cJSON_CreateObject();
		cJSON_AddNumberToObject(o, "axis", 0);
		outs[0] = emitv(m, "concat", o, NULL, 2, hd);
		o = cJSON_CreateObject();
		cJSON_AddNumberToObject(o, "axis", 1);
		outs[1] = emitv(m, "concat", o, NULL, 2, sd);
		if (!outs[0] || !outs[1])
			return -1;
	}
	if (!p.layout) {
		/* name the results as the ONNX outputs */
		for (int k = 0; k < 2; k++)
			if (outname(m, !k) && !(outs[k] = emit(m, "identity",
			    NULL, outname(m, !k), 1, outs[k])))
				return -1;
	}
	return rnnbind(m, &p, outs, 1, outname(m, 0) != NULL);
}
