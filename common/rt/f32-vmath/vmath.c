/*
 * vmath: the float32 array forms of vmath.h's functions, y[i] = f(x[i])
 * for n floats (NNL_VMATH_LOOP: the same results wherever a split of
 * the array puts an element).  Safe in place (y == x).
 */
#include "rt.h"
#include "vmath.h"

NNL_RT void
nnl_vexp_f32(const float *x, float *y, int64_t n)
{
	NNL_VMATH_LOOP(nnl_mexp(v));
}

NNL_RT void
nnl_vlog_f32(const float *x, float *y, int64_t n)
{
	NNL_VMATH_LOOP(nnl_mlog(v));
}

NNL_RT void
nnl_vsigmoid_f32(const float *x, float *y, int64_t n)
{
	NNL_VMATH_LOOP(nnl_msigmoid(v));
}

NNL_RT void
nnl_vtanh_f32(const float *x, float *y, int64_t n)
{
	NNL_VMATH_LOOP(nnl_mtanh(v));
}

NNL_RT void
nnl_verf_f32(const float *x, float *y, int64_t n)
{
	NNL_VMATH_LOOP(nnl_merf(v));
}

NNL_RT void
nnl_vgelu_f32(const float *x, float *y, int64_t n)
{
	NNL_VMATH_LOOP(nnl_mgelu(v));
}

NNL_RT void
nnl_vgelu_tanh_f32(const float *x, float *y, int64_t n)
{
	NNL_VMATH_LOOP(nnl_mgelu_tanh(v));
}

NNL_RT void
nnl_vsoftplus_f32(const float *x, float *y, int64_t n)
{
	NNL_VMATH_LOOP(nnl_msoftplus(v));
}

/* y = pow(x, c) for one constant c */
NNL_RT void
nnl_vpowc_f32(const float *x, float *y, int64_t n, float c)
{
	struct nnl_powc p = nnl_powc_plan(c);

	NNL_VMATH_LOOP(nnl_mpow(v, &p));
}
