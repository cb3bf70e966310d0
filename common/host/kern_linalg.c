/*
 * kern_linalg: prepares the kernels of rt/nn/linalg.c for nnl's det
 * and dft (the float64 matmul is prepare_matmul's, in kern_nn.c).
 */
#include "kernel.h"
#include "opts.h"

/* nnl's det: dt, the number of matrices, their order; n * n doubles
 * of workspace. */
int
prepare_det(struct kctx *c)
{
	const struct tdesc *x = c->in[0];
	int64_t n = x->dims[x->rank - 1], nb = 1;

	for (int i = 0; i < x->rank - 2; i++)
		nb *= x->dims[i];
	kip(c, kdt(x));
	kip(c, nb);
	kip(c, n);
	kin(c, c->n->in[0]);
	c->k->scratch = 8 * (uint64_t)(n * n > 0 ? n * n : 1);
	return kset(c, "det");
}

/* nnl's dft: dt, the dims before the axis, its size, the dims between
 * it and the last, 1 or 2 (real or complex), the transform's length,
 * the bins written, inverse; 2 n doubles of workspace (twiddles). */
int
prepare_dft(struct kctx *c)
{
	const struct tdesc *x = c->in[0], *y = &c->out[0];
	uint32_t axis = 0, n = 0;
	int inv = 0, hasn;
	int64_t outer = 1, inner = 1;

	if (opt_u32(c->sc, "axis", &axis) < 0 ||
	    opt_bool(c->sc, "inverse", &inv) < 0 ||
	    (hasn = opt_u32(c->sc, "dftLength", &n)) < 0)
		return -1;
	if (!hasn)
		n = (uint32_t)x->dims[axis];
	for (int i = 0; i < (int)axis; i++)
		outer *= x->dims[i];
	for (int i = (int)axis + 1; i < x->rank - 1; i++)
		inner *= x->dims[i];
	kip(c, kdt(x));
	kip(c, outer);
	kip(c, x->dims[axis]);
	kip(c, inner);
	kip(c, x->dims[x->rank - 1]);
	kip(c, n);
	kip(c, y->dims[axis]);
	kip(c, inv != 0);
	kin(c, c->n->in[0]);
	c->k->scratch = 16 * (uint64_t)n;
	return kset(c, "dft");
}
