/*
 * kern_rnn: prepares convTranspose2d and the recurrent kernels of
 * rt/rnn/rnn.c.  The cells run as one step of the sequence kernels.
 */
#include <stdlib.h>
#include <string.h>

#include "kernel.h"
#include "opts.h"

static const char *
operandopt(struct kctx *c, const char *name)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(c->n->options,
	    name);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static int
f32only(struct kctx *c)
{
	if (c->in[0]->dt != DT_FLOAT32)
		return shape_err(c->sc, "%s on %s data is not supported by "
		    "the C back end yet", c->d->name,
		    dtype_name(c->in[0]->dt));
	return 0;
}

static int
actcode(const char *s)
{
	return !strcmp(s, "relu") ? 0 : !strcmp(s, "sigmoid") ? 1 : 2;
}

/* The activations option, or the defaults. */
static int
activations(struct kctx *c, int n, const char *const *dflt)
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(c->n->options,
	    "activations");

	if (a && cJSON_GetArraySize(a) != n)
		return shape_err(c->sc, "option \"activations\": expected %d "
		    "values", n);
	for (int i = 0; i < n; i++) {
		const cJSON *v = a ? cJSON_GetArrayItem(a, i) : NULL;

		kip(c, actcode(cJSON_IsString(v) ? v->valuestring : dflt[i]));
	}
	return 0;
}

static int
direction(struct kctx *c)
{
	const char *d = "forward";

	if (opt_str(c->sc, "direction", &d) < 0)
		return -1;
	return !strcmp(d, "forward") ? 0 : !strcmp(d, "backward") ? 1 : 2;
}

/* gru and gruCell */
static int
gru(struct kctx *c, int cell)
{
	static const char *const dflt[] = { "sigmoid", "tanh" };
	const struct tdesc *x = c->in[0];
	uint32_t steps = 1, hidden = 0;
	int after = 1, seq = 0, dir = 0;
	const char *layout = "zrn", *b, *rb, *init;

	if (f32only(c) || opt_u32(c->sc, "hiddenSize", &hidden) < 0 ||
	    (!cell && opt_u32(c->sc, "steps", &steps) < 0) ||
	    opt_bool(c->sc, "resetAfter", &after) < 0 ||
	    opt_str(c->sc, "layout", &layout) < 0 ||
	    (!cell && opt_bool(c->sc, "returnSequence", &seq) < 0) ||
	    (!cell && (dir = direction(c)) < 0))
		return -1;
	b = operandopt(c, "bias");
	rb = operandopt(c, "recurrentBias");
	init = cell ? c->n->in[3] : operandopt(c, "initialHiddenState");
	kip(c, steps);
	kip(c, dir == 2 ? 2 : 1);
	kip(c, x->dims[cell ? 0 : 1]);
	kip(c, x->dims[cell ? 1 : 2]);
	kip(c, hidden);
	kip(c, dir);
	kip(c, after);
	kip(c, strcmp(layout, "zrn") != 0);
	if (activations(c, 2, dflt))
		return -1;
	kip(c, b != NULL);
	kip(c, rb != NULL);
	kip(c, init != NULL);
	kip(c, seq);
	kin(c, c->n->in[0]);
	kin(c, c->n->in[1]);
	kin(c, c->n->in[2]);
	kin(c, b);
	kin(c, rb);
	kin(c, init);
	c->k->scratch = 4 * 5 * (uint64_t)(x->dims[cell ? 0 : 1] * hidden);
	return kset(c, "gru_f32");
}

int
prepare_gru(struct kctx *c)
{
	return gru(c, 0);
}

int
prepare_gru_cell(struct kctx *c)
{
	return gru(c, 1);
}

/* lstm and lstmCell */
static int
lstm(struct kctx *c, int cell)
{
	static const char *const dflt[] = { "sigmoid", "tanh", "tanh" };
	const struct tdesc *x = c->in[0];
	uint32_t steps = 1, hidden = 0;
	int seq = 0, dir = 0;
	const char *layout = "iofg", *b, *rb, *peep, *ih, *ic;

	if (f32only(c) || opt_u32(c->sc, "hiddenSize", &hidden) < 0 ||
	    (!cell && opt_u32(c->sc, "steps", &steps) < 0) ||
	    opt_str(c->sc, "layout", &layout) < 0 ||
	    (!cell && opt_bool(c->sc, "returnSequence", &seq) < 0) ||
	    (!cell && (dir = direction(c)) < 0))
		return -1;
	b = operandopt(c, "bias");
	rb = operandopt(c, "recurrentBias");
	peep = operandopt(c, "peepholeWeight");
	ih = cell ? c->n->in[3] : operandopt(c, "initialHiddenState");
	ic = cell ? c->n->in[4] : operandopt(c, "initialCellState");
	kip(c, steps);
	kip(c, dir == 2 ? 2 : 1);
	kip(c, x->dims[cell ? 0 : 1]);
	kip(c, x->dims[cell ? 1 : 2]);
	kip(c, hidden);
	kip(c, dir);
	kip(c, strcmp(layout, "iofg") != 0);
	if (activations(c, 3, dflt))
		return -1;
	kip(c, b != NULL);
	kip(c, rb != NULL);
	kip(c, peep != NULL);
	kip(c, ih != NULL);
	kip(c, ic != NULL);
	kip(c, seq);
	kin(c, c->n->in[0]);
	kin(c, c->n->in[1]);
	kin(c, c->n->in[2]);
	kin(c, b);
	kin(c, rb);
	kin(c, peep);
	kin(c, ih);
	kin(c, ic);
	c->k->scratch = 4 * 6 * (uint64_t)(x->dims[cell ? 0 : 1] * hidden);
	return kset(c, "lstm_f32");
}

int
prepare_lstm(struct kctx *c)
{
	return lstm(c, 0);
}

int
prepare_lstm_cell(struct kctx *c)
{
	return lstm(c, 1);
}

int
prepare_conv_transpose2d(struct kctx *c)
{
	const struct tdesc *x = c->in[0], *f = c->in[1], *y = &c->out[0];
	const char *il = "nchw", *fl = "iohw", *bias = operandopt(c, "bias");
	uint32_t pad[4] = { 0, 0, 0, 0 }, st[2] = { 1, 1 }, dl[2] = { 1, 1 };
	uint32_t groups = 1;
	int n1, n2, n3, nhwc, flc;
	int64_t kh, kw;

	if (opt_u32s(c->sc, "padding", pad, 4, &n1) < 0 ||
	    opt_u32s(c->sc, "strides", st, 2, &n2) < 0 ||
	    opt_u32s(c->sc, "dilations", dl, 2, &n3) < 0 ||
	    opt_u32(c->sc, "groups", &groups) < 0 ||
	    opt_str(c->sc, "inputLayout", &il) < 0 ||
	    opt_str(c->sc, "filterLayout", &fl) < 0)
		return -1;
	if (!n2)
		st[0] = st[1] = 1;
	if (!n3)
		dl[0] = dl[1] = 1;
	nhwc = !strcmp(il, "nhwc");
	flc = !strcmp(fl, "iohw") ? 0 : !strcmp(fl, "hwoi") ? 1 : 2;
	kh = f->dims[flc == 0 ? 2 : flc == 1 ? 0 : 1];
	kw = f->dims[flc == 0 ? 3 : flc == 1 ? 1 : 2];
	kip(c, nhwc);
	kip(c, x->dims[0]);
	kip(c, x->dims[nhwc ? 3 : 1]);
	kip(c, x->dims[nhwc ? 1 : 2]);
	kip(c, x->dims[nhwc ? 2 : 3]);
	kip(c, y->dims[nhwc ? 3 : 1]);
	kip(c, y->dims[nhwc ? 1 : 2]);
	kip(c, y->dims[nhwc ? 2 : 3]);
	kip(c, kh);
	kip(c, kw);
	kip(c, st[0]); kip(c, st[1]);
	kip(c, dl[0]); kip(c, dl[1]);
	for (int i = 0; i < 4; i++)
		kip(c, pad[i]);
	kip(c, groups);
	kip(c, flc);
	kip(c, bias != NULL);
	if (kactivation(c))
		return -1;
	kin(c, c->n->in[0]);
	kin(c, c->n->in[1]);
	kin(c, bias);
	return f16finish(c, "conv_transpose2d", 3);
}
