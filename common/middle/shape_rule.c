/*
 * shape_rule: the helpers every op's shape rule uses: output types,
 * dtype and rank checks, broadcasting, shapes as text for messages.
 */
#include "shape_rule.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const enum dtype DTS_FLOAT[] = { DT_FLOAT32, DT_FLOAT16, DT_NONE };
/* the float types of the elementwise ops and reductions, nnl's
 * float64 and bfloat16 among them (the generic path computes in
 * double) */
const enum dtype DTS_EWFLOAT[] = { DT_FLOAT32, DT_FLOAT16, DT_FLOAT64,
    DT_BFLOAT16, DT_NONE };
const enum dtype DTS_ALL[] = { DT_FLOAT32, DT_FLOAT16, DT_INT32, DT_UINT32,
    DT_INT64, DT_UINT64, DT_INT8, DT_UINT8, DT_INT4, DT_UINT4, DT_FLOAT64,
    DT_INT16, DT_UINT16, DT_BFLOAT16, DT_NONE };
const enum dtype DTS_SIGNED[] = { DT_FLOAT32, DT_FLOAT16, DT_INT64,
    DT_INT32, DT_INT8, DT_FLOAT64, DT_INT16, DT_BFLOAT16, DT_NONE };

void
shape_out(struct shapectx *c, int k, enum dtype dt, int rank,
    const int64_t *dims)
{
	if (k < 0 || k >= c->n->nout)
		BUG("shape_out: no such output");
	node_set_type(c->n, k, dt, rank, dims);
}

int
shape_nout(struct shapectx *c, int n)
{
	if (c->n->nout != n)
		return shape_err(c, "%s produces %d output%s here, the node "
		    "names %d", c->d->name, n, n == 1 ? "" : "s", c->n->nout);
	return 0;
}

int
shape_want_dtype(struct shapectx *c, const char *what, const struct tdesc *t,
    const enum dtype *allowed)
{
	struct buf b = { 0 };

	for (const enum dtype *p = allowed; *p != DT_NONE; p++)
		if (*p == t->dt)
			return 0;
	for (const enum dtype *p = allowed; *p != DT_NONE; p++)
		buf_printf(&b, "%s%s", p == allowed ? "" : ", ",
		    dtype_name(*p));
	shape_err(c, "%s: data type %s is not allowed (%s)", what,
	    dtype_name(t->dt), b.s);
	free(b.s);
	return -1;
}

int
shape_want_rank(struct shapectx *c, const char *what, const struct tdesc *t,
    int rank)
{
	if (t->rank != rank)
		return shape_err(c, "%s: expected rank %d, found rank %d %s",
		    what, rank, t->rank, shape_str(t));
	return 0;
}

int
shape_broadcast(struct shapectx *c, const struct tdesc *a,
    const struct tdesc *b, int *rank, int64_t *dims)
{
	int r = a->rank > b->rank ? a->rank : b->rank;

	for (int i = 0; i < r; i++) {
		int ia = i - (r - a->rank), ib = i - (r - b->rank);
		int64_t da = ia >= 0 ? a->dims[ia] : 1;
		int64_t db = ib >= 0 ? b->dims[ib] : 1;

		if (da != db && da != 1 && db != 1) {
			char sa[256];

			snprintf(sa, sizeof sa, "%s", shape_str(a));
			return shape_err(c, "shapes %s and %s do not broadcast "
			    "(dimension %d: %lld against %lld)", sa,
			    shape_str(b), i, (long long)da, (long long)db);
		}
		dims[i] = da == 1 ? db : da;
	}
	*rank = r;
	return 0;
}

int
shape_unibroadcastable(const struct tdesc *a, const struct tdesc *b)
{
	if (a->rank > b->rank)
		return 0;
	for (int i = 0; i < a->rank; i++) {
		int64_t da = a->dims[a->rank - 1 - i];
		int64_t db = b->dims[b->rank - 1 - i];

		if (da != db && da != 1)
			return 0;
	}
	return 1;
}

const char *
shape_str(const struct tdesc *t)
{
	static char bufs[4][256];
	static int k;
	char *s = bufs[k++ & 3];
	size_t n = 0;

	n += (size_t)snprintf(s + n, 256 - n, "[");
	for (int i = 0; i < t->rank && n < 200; i++)
		n += (size_t)snprintf(s + n, 256 - n, "%s%lld", i ? ", " : "",
		    (long long)t->dims[i]);
	snprintf(s + n, 256 - n, "]");
	return s;
}

/* a * b, saturating far above any valid dimension: sizes computed from
 * 32-bit dimensions and options never overflow. */
int64_t
shape_mulsat(int64_t a, int64_t b)
{
	if (a > 0 && b > INT64_MAX / 8 / a)
		return INT64_MAX / 8;
	return a * b;
}

/* "[1, 2]" of a list of n values, in one of four rotating buffers. */
const char *
shape_u32str(const uint32_t *v, int n)
{
	static char bufs[4][SHAPE_MAXLIST * 12 + 4];
	static int k;
	char *s = bufs[k++ & 3];
	size_t len = 1;

	strcpy(s, "[");
	for (int i = 0; i < n; i++)
		len += (size_t)snprintf(s + len, sizeof bufs[0] - len, "%s%u",
		    i ? ", " : "", v[i]);
	snprintf(s + len, sizeof bufs[0] - len, "]");
	return s;
}

/*
 * A sequence option that must hold n values ("If its size is not n,
 * then throw").  v gets them, or dflt in every place when the option is
 * absent.  nonzero: the steps also refuse a 0 (strides, dilations,
 * windowDimensions).  Returns 1 when present, 0 when absent, -1 after
 * reporting.
 */
int
shape_fixed(struct shapectx *c, const char *name, uint32_t *v, int n,
    uint32_t dflt, int nonzero)
{
	uint32_t t[SHAPE_MAXLIST];
	int got = 0, r = opt_u32s(c, name, t, SHAPE_MAXLIST, &got);

	if (r < 0)
		return -1;
	if (r == 0) {
		for (int i = 0; i < n; i++)
			v[i] = dflt;
		return 0;
	}
	if (got != n)
		return shape_err(c, "option \"%s\": expected %d values, found "
		    "%d %s", name, n, got, shape_u32str(t, got));
	for (int i = 0; i < n; i++)
		if (nonzero && t[i] == 0)
			return shape_err(c, "option \"%s\": %s: item %d is 0, "
			    "it must be positive", name, shape_u32str(t, n), i);
	memcpy(v, t, (size_t)n * sizeof *v);
	return 1;
}
