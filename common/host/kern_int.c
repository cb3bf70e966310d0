/*
 * kern_int: prepares the kernels of rt/nn/qint.c: matMulInteger,
 * conv2dInteger, requantizeLinear and tfIdfVectorizer.  Their shape
 * rules (middle/shape_int.c) have checked every option.
 */
#include <stdlib.h>
#include <string.h>

#include "kernel.h"
#include "opts.h"

/* Strides of t, broadcast to the rank-r shape dims (0 where t is 1). */
static void
bstrides(struct kctx *c, const struct tdesc *t, int r, const int64_t *dims)
{
	int64_t st = 1, s[NNL_MAXRANK];

	for (int i = r - 1; i >= 0; i--) {
		int j = i - (r - t->rank);
		int64_t d = j >= 0 ? t->dims[j] : 1;

		s[i] = d == 1 && dims[i] != 1 ? 0 : st;
		st *= d;
	}
	for (int i = 0; i < r; i++)
		kip(c, s[i]);
}

/* Batch strides (in matrices) of t's batch dims broadcast to out's q. */
static void
batchstrides(struct kctx *c, const struct tdesc *t, int q,
    const int64_t *dims)
{
	struct tdesc b = *t;

	b.rank -= 2;
	bstrides(c, &b, q, dims);
}

int
prepare_matmul_integer(struct kctx *c)
{
	const struct tdesc *a = c->in[0], *b = c->in[1], *y = &c->out[0];
	int q = y->rank - 2;

	kip(c, kdt(a));
	kip(c, kdt(b));
	kip(c, kdt(c->in[2]));
	kip(c, kdt(c->in[3]));
	kip(c, a->dims[a->rank - 2]);
	kip(c, a->dims[a->rank - 1]);
	kip(c, b->dims[b->rank - 1]);
	kip(c, q);
	for (int i = 0; i < q; i++)
		kip(c, y->dims[i]);
	batchstrides(c, a, q, y->dims);
	batchstrides(c, b, q, y->dims);
	kshape(c, a);
	bstrides(c, c->in[2], a->rank, a->dims);
	kshape(c, b);
	bstrides(c, c->in[3], b->rank, b->dims);
	for (int k = 0; k < 4; k++)
		kin(c, c->n->in[k]);
	c->k->scratch = 4 * (uint64_t)(tdesc_numel(a) + tdesc_numel(b));
	return kset(c, "matmul_int");
}

int
prepare_conv2d_integer(struct kctx *c)
{
	const struct tdesc *x = c->in[0], *w = c->in[1], *y = &c->out[0];
	uint32_t pad[4] = { 0, 0, 0, 0 }, st[2] = { 1, 1 }, dil[2] = { 1, 1 };
	uint32_t g = 1;
	int n;

	if (opt_u32s(c->sc, "padding", pad, 4, &n) < 0 ||
	    opt_u32s(c->sc, "strides", st, 2, &n) < 0 ||
	    opt_u32s(c->sc, "dilations", dil, 2, &n) < 0 ||
	    opt_u32(c->sc, "groups", &g) < 0)
		return -1;
	for (int k = 0; k < 4; k++)
		kip(c, kdt(c->in[k]));
	for (int i = 0; i < 4; i++)
		kip(c, x->dims[i]);
	for (int i = 0; i < 4; i++)
		kip(c, w->dims[i]);
	kip(c, y->dims[2]);
	kip(c, y->dims[3]);
	kip(c, g);
	kip(c, pad[0]);
	kip(c, pad[2]);
	kip(c, st[0]);
	kip(c, st[1]);
	kip(c, dil[0]);
	kip(c, dil[1]);
	bstrides(c, c->in[2], 4, x->dims);
	bstrides(c, c->in[3], 4, w->dims);
	for (int k = 0; k < 4; k++)
		kin(c, c->n->in[k]);
	c->k->scratch = 4 * (uint64_t)(tdesc_numel(x) + tdesc_numel(w));
	return kset(c, "conv2d_int");
}

int
prepare_requantize(struct kctx *c)
{
	const struct tdesc *x = c->in[0];

	kip(c, kdt(c->in[1]));
	kip(c, kdt(c->in[2]));
	kshape(c, x);
	bstrides(c, c->in[1], x->rank, x->dims);
	bstrides(c, c->in[2], x->rank, x->dims);
	for (int k = 0; k < 3; k++)
		kin(c, c->n->in[k]);
	return kset(c, "requant");
}

/* The items of array option name (numbers), or NULL when absent. */
static const cJSON *
items(struct kctx *c, const char *name)
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(c->n->options,
	    name);

	return cJSON_IsArray(a) ? a : NULL;
}

int
prepare_tfidf(struct kctx *c)
{
	const struct tdesc *x = c->in[0], *y = &c->out[0];
	const char *mode = "tf";
	uint32_t lo = 1, hi = 1, sk = 0;
	int64_t O = y->dims[y->rank - 1];
	const cJSON *cnt = items(c, "ngramCounts"), *w = items(c, "weights");
	const cJSON *pool = items(c, "pool"), *it;

	if (opt_str(c->sc, "mode", &mode) < 0 ||
	    opt_u32(c->sc, "minGramLength", &lo) < 0 ||
	    opt_u32(c->sc, "maxGramLength", &hi) < 0 ||
	    opt_u32(c->sc, "maxSkipCount", &sk) < 0)
		return -1;
	kip(c, kdt(x));
	kip(c, x->rank == 2 ? x->dims[0] : 1);
	kip(c, x->dims[x->rank - 1]);
	kip(c, strcmp(mode, "tf") == 0 ? 0 : strcmp(mode, "idf") == 0 ? 1 :
	    2);
	kip(c, lo);
	kip(c, hi);
	kip(c, sk);
	kip(c, cJSON_GetArraySize(pool));
	kip(c, O);
	kip(c, cJSON_GetArraySize(cnt));
	cJSON_ArrayForEach(it, cnt)
		kip(c, (int64_t)it->valuedouble);
	cJSON_ArrayForEach(it, items(c, "ngramIndexes"))
		kip(c, (int64_t)it->valuedouble);
	cJSON_ArrayForEach(it, pool)
		kip(c, (int64_t)it->valuedouble);
	for (int64_t o = 0; o < O; o++)
		kfp(c, w ? cJSON_GetArrayItem(w, (int)o)->valuedouble : 1);
	kin(c, c->n->in[0]);
	return kset(c, "tfidf");
}
