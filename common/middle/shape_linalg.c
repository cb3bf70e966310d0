/*
 * shape_linalg: the shape rules of nnl's numeric ops beyond WebNN,
 * det and dft (their kernels: rt/nn/linalg.c).
 */
#include <stdlib.h>

#include "escape.h"
#include "shape.h"

/* nnl's det: input [..., M, M] of a float type: [...], a determinant
 * each. */
int
shape_det(struct shapectx *c)
{
	const struct tdesc *x = c->in[0];

	if (shape_want_dtype(c, "input \"input\"", x, DTS_EWFLOAT))
		return -1;
	if (x->rank < 2 || x->dims[x->rank - 1] != x->dims[x->rank - 2])
		return shape_err(c, "input \"input\" %s is not [..., M, M]",
		    shape_str(x));
	shape_out(c, 0, x->dt, x->rank - 2, x->dims);
	return 0;
}

/*
 * nnl's dft: input [..., 1] (real) or [..., 2] (complex, real and
 * imaginary parts) of a float type, transformed along axis (not the
 * last) over dftLength points (default the axis' size; the signal cut
 * or zero-padded to it): [..., 2], the axis dftLength long, or
 * dftLength / 2 + 1 onesided (a real forward transform only).
 */
int
shape_dft(struct shapectx *c)
{
	const struct tdesc *x = c->in[0];
	uint32_t axis = 0, n = 0;
	int inv = 0, one = 0, hasn;
	int64_t *d;

	if (opt_u32(c, "axis", &axis) < 0 || opt_bool(c, "inverse", &inv) < 0 ||
	    opt_bool(c, "onesided", &one) < 0 ||
	    (hasn = opt_u32(c, "dftLength", &n)) < 0 ||
	    shape_want_dtype(c, "input \"input\"", x, DTS_EWFLOAT))
		return -1;
	if (x->rank < 2 || (x->dims[x->rank - 1] != 1 &&
	    x->dims[x->rank - 1] != 2))
		return shape_err(c, "input \"input\" %s is not [..., 1] (real) "
		    "nor [..., 2] (complex)", shape_str(x));
	if ((int64_t)axis >= x->rank - 1)
		return shape_err(c, "option \"axis\": %u is not an axis of the "
		    "signal (input \"input\" %s)", axis, shape_str(x));
	if (hasn && n == 0)
		return shape_err(c, "option \"dftLength\": 0 points");
	if (!hasn)
		n = (uint32_t)x->dims[axis];
	if (n == 0)
		return shape_err(c, "input \"input\" %s: an empty signal",
		    shape_str(x));
	if (one && (inv || x->dims[x->rank - 1] == 2))
		return shape_err(c, "option \"onesided\": only of a real "
		    "forward transform");
	d = xmalloc((size_t)x->rank * sizeof *d);
	for (int i = 0; i < x->rank; i++)
		d[i] = x->dims[i];
	d[axis] = one ? n / 2 + 1 : n;
	d[x->rank - 1] = 2;
	shape_out(c, 0, x->dt, x->rank, d);
	free(d);
	return 0;
}
