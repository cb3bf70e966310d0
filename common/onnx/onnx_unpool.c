/*
 * onnx_unpool: MaxUnpool, from WebNN's scatterND.  ONNX defines it
 * (its reference implementation, which the node tests follow) as a
 * zero tensor of the pool's input shape, (in - 1) * stride + kernel -
 * pads along each spatial axis, whose elements at the flat indices I
 * (over the whole tensor, batch and channel included) take X's; an
 * output_shape larger than that pads zeros at the end of each axis.
 * Here: X and I flattened, scattered into zeros, reshaped and padded.
 * Where I repeats an index, the last of X's elements is kept, as in
 * the reference's loop.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checked.h"
#include "onnx_imp.h"

enum { MAXR = 32 };	/* ranks handled here */

/* Spatial attribute name of n items (dflt when absent) into v. */
static int
spatial(struct imp *m, const char *name, int n, int64_t lo, int64_t dflt,
    int64_t *v)
{
	for (int i = 0; i < n; i++)
		v[i] = dflt;
	return att_list(m, name, n, lo, v);
}

/* The output: the inferred shape into d, output_shape's into want. */
static int
shapes(struct imp *m, const struct tdesc *xt, int64_t *d, int64_t *want)
{
	int ns = xt->rank - 2, rc;
	int64_t k[MAXR], s[MAXR], p[2 * MAXR], *os;
	const int64_t *ka;
	size_t n;

	if (att_ints(m, "kernel_shape", &ka) == 0)
		return nodeerr(m, "no kernel_shape");
	if (spatial(m, "kernel_shape", ns, 1, 1, k) ||
	    spatial(m, "strides", ns, 1, 1, s) ||
	    spatial(m, "pads", 2 * ns, 0, 0, p))
		return -1;
	d[0] = xt->dims[0];
	d[1] = xt->dims[1];
	for (int i = 0; i < ns; i++) {
		/* dims below 2^32, strides and kernels at most 2^30 */
		d[2 + i] = (xt->dims[2 + i] - 1) * s[i] + k[i] - p[i] -
		    p[ns + i];
		if (d[2 + i] < 1)
			return nodeerr(m, "axis %d: an output of %lld", 2 + i,
			    (long long)d[2 + i]);
	}
	memcpy(want, d, (size_t)xt->rank * sizeof *d);
	if (!in(m, 2))
		return 0;
	if (cints(m, in(m, 2), &os, &n) != 0)
		return refuse(m, REFUSE_CONST,
		    "output_shape (input 2) is computed, not a constant");
	rc = 0;
	if (n != (size_t)xt->rank)
		rc = nodeerr(m, "output_shape has %zu items for rank %d", n,
		    xt->rank);
	for (int i = 0; rc == 0 && i < xt->rank; i++) {
		if (os[i] < d[i] || os[i] > CHECKED_MAXDIM || (i < 2 &&
		    os[i] != d[i]))
			rc = nodeerr(m, "output_shape item %d (%lld) is not "
			    "%s %lld", i, (long long)os[i], i < 2 ? "X's" :
			    "at least the unpooled", (long long)d[i]);
		else
			want[i] = os[i];
	}
	free(os);
	return rc;
}

int
onnx_maxunpool(struct imp *m)
{
	const char *x = in(m, 0), *ix = in(m, 1), *y, *z;
	const struct tdesc *xt, *it;
	int64_t d[MAXR], want[MAXR], b[MAXR], e[MAXR], tot, nx, two[2];
	int r, pad = 0, rc;
	char *why;
	cJSON *o;

	if (!x || !ix)
		return nodeerr(m, "X and I are required");
	xt = ty(m, x);
	it = ty(m, ix);
	r = xt->rank;
	if (r < 3 || r > MAXR)
		return nodeerr(m, "X has rank %d; expected 3 to %d", r, MAXR);
	if (it->rank != r || memcmp(it->dims, xt->dims, (size_t)r *
	    sizeof *it->dims))
		return nodeerr(m, "I's shape differs from X's");
	if (it->dt != DT_INT64)
		return nodeerr(m, "I of %s, not int64", dtype_name(it->dt));
	if ((rc = shapes(m, xt, d, want)) != 0)
		return rc;
	if ((why = checked_tensor(&(struct tdesc){ xt->dt, r, want }))) {
		nodeerr(m, "the output %s", why);
		free(why);
		return -1;
	}
	tot = 1;
	nx = 1;
	for (int i = 0; i < r; i++) {
		tot *= d[i];
		nx *= xt->dims[i];
		b[i] = 0;
		e[i] = want[i] - d[i];
		pad |= e[i] != 0;
	}
	o = cJSON_CreateObject();
	cJSON_AddItemToObject(o, "newShape", jints(&tot, 1));
	z = emit(m, "expand", o, NULL, 1, mkscalar(m, xt->dt, 0));
	two[0] = nx;
	two[1] = 1;
	y = z ? emit(m, "scatterND", NULL, NULL, 3, z, imp_reshape(m, ix, 2,
	    two, NULL), imp_reshape(m, x, 1, &nx, NULL)) : NULL;
	y = y ? imp_reshape(m, y, r, d, pad ? NULL : outname(m, 0)) : NULL;
	if (!y || !pad)
		return imp_done(m, 0, y);
	o = cJSON_CreateObject();
	cJSON_AddItemToObject(o, "beginningPadding", jints(b, (size_t)r));
	cJSON_AddItemToObject(o, "endingPadding", jints(e, (size_t)r));
	return imp_done(m, 0, emit(m, "pad", o, outname(m, 0), 1, y));
}
