/*
 * ew: elementwise kernels.  One generic loop per kind of op, stamped
 * out per data type by macros; float16 computes in float32.  Binary
 * ops broadcast through strides (0 on broadcast axes) with a
 * contiguous fast path.  Unary, activation and same-shape binary
 * kernels are safe in place (out[0] == in[0]): each element is read
 * before it is written.
 */
#include "rt.h"
#include "vmath.h"

enum {
	NNL_ADD, NNL_SUB, NNL_MUL, NNL_DIV, NNL_MAX, NNL_MIN, NNL_POW,
	NNL_EQ, NNL_NE, NNL_GT, NNL_GE, NNL_LT, NNL_LE,
	NNL_AND, NNL_OR, NNL_XOR,
	NNL_SHL, NNL_SHR	/* nnl's bitShift, on unsigned integers */
};

/* Advance a row-major multi-index over dims. */
NNL_RT_INLINE void
nnl_next(int64_t r, const int64_t *dims, int64_t *idx)
{
	for (int64_t d = r - 1; d >= 0; d--) {
		if (++idx[d] < dims[d])
			return;
		idx[d] = 0;
	}
}

NNL_RT_INLINE int64_t
nnl_off(int64_t r, const int64_t *idx, const int64_t *st)
{
	int64_t o = 0;

	for (int64_t d = 0; d < r; d++)
		o += idx[d] * st[d];
	return o;
}

NNL_RT_INLINE double
nnl_binop(int64_t op, double a, double b)
{
	switch (op) {
	case NNL_ADD: return a + b;
	case NNL_SUB: return a - b;
	case NNL_MUL: return a * b;
	case NNL_DIV: return a / b;
	case NNL_MAX: return a > b ? a : b;
	case NNL_MIN: return a < b ? a : b;
	case NNL_POW: return pow(a, b);
	case NNL_EQ: return a == b;
	case NNL_NE: return a != b;
	case NNL_GT: return a > b;
	case NNL_GE: return a >= b;
	case NNL_LT: return a < b;
	case NNL_LE: return a <= b;
	case NNL_AND: return a != 0 && b != 0;
	case NNL_OR: return a != 0 || b != 0;
	default: return (a != 0) != (b != 0);
	}
}

/* x to the power e on integers: by squaring, in uint64_t, so that it
 * wraps.  A negative power truncates 1 / x^-e toward zero (0 for 0, as
 * integer division by 0 gives). */
NNL_RT_INLINE uint64_t
nnl_powi(uint64_t x, uint64_t e, int neg)
{
	uint64_t y = 1;

	if (neg)
		return x == 1 ? 1 : x == (uint64_t)-1 ? (e & 1 ? x : 1) : 0;
	for (; e; e >>= 1) {
		if (e & 1)
			y *= x;
		x *= x;
	}
	return y;
}

/* A binary op on integers, add to le, exactly: arithmetic wraps (two's
 * complement, done in uint64_t, whose overflow is defined), uns says
 * whether x and z hold uint64 bits. */
NNL_RT_INLINE int64_t
nnl_binopi(int64_t op, int64_t x, int64_t z, int uns)
{
	uint64_t a = (uint64_t)x, b = (uint64_t)z;
	int lt = uns ? a < b : x < z;

	switch (op) {
	case NNL_ADD: return (int64_t)(a + b);
	case NNL_SUB: return (int64_t)(a - b);
	case NNL_MUL: return (int64_t)(a * b);
	case NNL_DIV:	/* truncates; by 0 gives 0; INT64_MIN / -1 wraps */
		if (z == 0)
			return 0;
		if (uns)
			return (int64_t)(a / b);
		return z == -1 ? (int64_t)(0 - a) : x / z;
	case NNL_MAX: return lt ? z : x;
	case NNL_MIN: return lt ? x : z;
	case NNL_POW: return (int64_t)nnl_powi(a, b, !uns && z < 0);
	case NNL_EQ: return x == z;
	case NNL_NE: return x != z;
	case NNL_GT: return !lt && x != z;
	case NNL_GE: return !lt;
	case NNL_LT: return lt;
	case NNL_LE: return lt || x == z;
	case NNL_SHL: return b >= 64 ? 0 : (int64_t)(a << b);
	default: return b >= 64 ? 0 : (int64_t)(a >> b);	/* NNL_SHR */
	}
}

/* add to min on floats, in float: each rounds as it would through
 * double (53 >= 2 * 24 + 2 bits), so no result changes. */
NNL_RT_INLINE float
nnl_binopf(int64_t op, float a, float b)
{
	switch (op) {
	case NNL_ADD: return a + b;
	case NNL_SUB: return a - b;
	case NNL_MUL: return a * b;
	case NNL_DIV: return a / b;
	case NNL_MAX: return a > b ? a : b;
	default: return a < b ? a : b;
	}
}

/*
 * y = a op b over n floats (op one of add to min), whole vectors first
 * where there are vectors; max and min pick as the scalar expressions
 * do (b where the comparison is false: a NaN in a gives b).
 */
NNL_RT_INLINE void
nnl_binary_f32(int64_t op, const float *a, const float *b, float *y,
    int64_t n)
{
	int64_t i = 0;

#if NNL_VW > 1
	for (; i < n - n % NNL_VW; i += NNL_VW) {
		nnl_vf va = nnl_vload(a + i), vb = nnl_vload(b + i), v;

		switch (op) {
		case NNL_ADD: v = va + vb; break;
		case NNL_SUB: v = va - vb; break;
		case NNL_MUL: v = va * vb; break;
		case NNL_DIV: v = va / vb; break;
		case NNL_MAX: v = nnl_vmax(va, vb); break;
		default: v = nnl_vmin(va, vb); break;
		}
		nnl_vstore(y + i, v);
	}
#endif
	switch (op) {
	case NNL_ADD:
		for (; i < n; i++)
			y[i] = a[i] + b[i];
		break;
	case NNL_SUB:
		for (; i < n; i++)
			y[i] = a[i] - b[i];
		break;
	case NNL_MUL:
		for (; i < n; i++)
			y[i] = a[i] * b[i];
		break;
	case NNL_DIV:
		for (; i < n; i++)
			y[i] = a[i] / b[i];
		break;
	case NNL_MAX:
		for (; i < n; i++)
			y[i] = a[i] > b[i] ? a[i] : b[i];
		break;
	default:
		for (; i < n; i++)
			y[i] = a[i] < b[i] ? a[i] : b[i];
		break;
	}
}

/* y[0:n] = relu(x[0:n]) */
NNL_RT_INLINE void
nnl_relu_f32(const float *x, float *y, int64_t n)
{
	int64_t i = 0;

#if NNL_VW > 1
	for (; i < n - n % NNL_VW; i += NNL_VW)
		nnl_vstore(y + i, nnl_vclamp(nnl_vload(x + i), NNL_ACT_RELU, 0,
		    0));
#endif
	for (; i < n; i++)
		y[i] = x[i] > 0 ? x[i] : 0;
}

/*
 * The float32 binary ops broadcast as strided outer loops around a
 * contiguous inner one.  nnl_bcollapse drops the axes of size 1 and
 * merges each axis into the one inside it wherever both operands step
 * over the two as over one (s[k] == s[k + 1] * dims[k + 1], which
 * holds for two broadcast axes too: 0 == 0 * d).  What is left has at
 * most r axes; in the innermost each operand steps 1 or 0 (broadcast):
 * a row of the output is a vector loop over two rows, or over a row and
 * one value ([1, C, H, W] * [1, C, 1, 1] is C rows of H W floats times
 * a value each; [B, N, D] + [D] is B N rows plus one row).  The shape
 * is rt.h's struct nnl_bshape (ew_par.c splits its rows).
 */
NNL_RT_INLINE void
nnl_bcollapse(int64_t r, const int64_t *dims, const int64_t *as,
    const int64_t *bs, struct nnl_bshape *s)
{
	int64_t q = 0;

	for (int64_t k = r - 1; k >= 0; k--) {
		if (dims[k] == 1)
			continue;
		if (q > 0 && as[k] == s->sa[q - 1] * s->d[q - 1] &&
		    bs[k] == s->sb[q - 1] * s->d[q - 1]) {
			s->d[q - 1] *= dims[k];
			continue;
		}
		s->d[q] = dims[k];
		s->sa[q] = as[k];
		s->sb[q] = bs[k];
		q++;
	}
	if (q == 0) {	/* one element */
		s->d[0] = 1;
		s->sa[0] = s->sb[0] = 1;
		q = 1;
	}
	/* built inside out: turn it round, outermost first */
	for (int64_t k = 0; k < q / 2; k++) {
		int64_t t = s->d[k], u = s->sa[k], v = s->sb[k];

		s->d[k] = s->d[q - 1 - k];
		s->sa[k] = s->sa[q - 1 - k];
		s->sb[k] = s->sb[q - 1 - k];
		s->d[q - 1 - k] = t;
		s->sa[q - 1 - k] = u;
		s->sb[q - 1 - k] = v;
	}
	s->q = q;
	s->outer = 1;
	for (int64_t k = 0; k < q - 1; k++)
		s->outer *= s->d[k];
}

#if NNL_VW > 1
/* add to min on vectors, as nnl_binopf on each lane */
NNL_RT_INLINE nnl_vf
nnl_vbinop(int64_t op, nnl_vf a, nnl_vf b)
{
	switch (op) {
	case NNL_ADD: return a + b;
	case NNL_SUB: return a - b;
	case NNL_MUL: return a * b;
	case NNL_DIV: return a / b;
	case NNL_MAX: return nnl_vmax(a, b);
	default: return nnl_vmin(a, b);
	}
}
#endif

/* One row of n floats, y = a op b, where a steps ia (1 or 0) and b ib
 * floats an element; the op a constant where this is inlined. */
NNL_RT_INLINE void
nnl_brow_op(int64_t op, const float *a, int64_t ia, const float *b,
    int64_t ib, float *y, int64_t n)
{
	int64_t i = 0;

	if (ia && ib) {
#if NNL_VW > 1
		for (; i < n - n % NNL_VW; i += NNL_VW)
			nnl_vstore(y + i, nnl_vbinop(op, nnl_vload(a + i),
			    nnl_vload(b + i)));
#endif
		for (; i < n; i++)
			y[i] = nnl_binopf(op, a[i], b[i]);
	} else if (ia) {
		float z = b[0];
#if NNL_VW > 1
		nnl_vf vz = nnl_vsplat(z);

		for (; i < n - n % NNL_VW; i += NNL_VW)
			nnl_vstore(y + i, nnl_vbinop(op, nnl_vload(a + i),
			    vz));
#endif
		for (; i < n; i++)
			y[i] = nnl_binopf(op, a[i], z);
	} else if (ib) {
		float x = a[0];
#if NNL_VW > 1
		nnl_vf vx = nnl_vsplat(x);

		for (; i < n - n % NNL_VW; i += NNL_VW)
			nnl_vstore(y + i, nnl_vbinop(op, vx,
			    nnl_vload(b + i)));
#endif
		for (; i < n; i++)
			y[i] = nnl_binopf(op, x, b[i]);
	} else {
		float v = nnl_binopf(op, a[0], b[0]);

		for (; i < n; i++)
			y[i] = v;
	}
}

/* The row, the op chosen once a row so that each loop has its own. */
NNL_RT_INLINE void
nnl_brow(int64_t op, const float *a, int64_t ia, const float *b,
    int64_t ib, float *y, int64_t n)
{
	switch (op) {
	case NNL_ADD: nnl_brow_op(NNL_ADD, a, ia, b, ib, y, n); break;
	case NNL_SUB: nnl_brow_op(NNL_SUB, a, ia, b, ib, y, n); break;
	case NNL_MUL: nnl_brow_op(NNL_MUL, a, ia, b, ib, y, n); break;
	case NNL_DIV: nnl_brow_op(NNL_DIV, a, ia, b, ib, y, n); break;
	case NNL_MAX: nnl_brow_op(NNL_MAX, a, ia, b, ib, y, n); break;
	default: nnl_brow_op(NNL_MIN, a, ia, b, ib, y, n); break;
	}
}

/*
 * Rows [r0, r1) of a broadcast float32 binary op over collapsed shape
 * s: the offsets of row r0 from its multi-index, then each next row's
 * by stepping the odometer, not an index per element.
 */
NNL_RT_INLINE void
nnl_binary_rows(int64_t op, const struct nnl_bshape *s, const float *a,
    const float *b, float *y, int64_t r0, int64_t r1)
{
	int64_t q = s->q, n = s->d[q - 1], idx[NNL_MAXRANK] = { 0 };
	int64_t oa = 0, ob = 0, t = r0;

	for (int64_t k = q - 2; k >= 0; k--) {
		idx[k] = t % s->d[k];
		t /= s->d[k];
		oa += idx[k] * s->sa[k];
		ob += idx[k] * s->sb[k];
	}
	for (int64_t row = r0; row < r1; row++) {
		nnl_brow(op, a + oa, s->sa[q - 1], b + ob, s->sb[q - 1],
		    y + row * n, n);
		for (int64_t k = q - 2; k >= 0; k--) {
			oa += s->sa[k];
			ob += s->sb[k];
			if (++idx[k] < s->d[k])
				break;
			oa -= s->sa[k] * s->d[k];
			ob -= s->sb[k] * s->d[k];
			idx[k] = 0;
		}
	}
}

/*
 * binary: op, dt (input), out dt, r, out dims[r], a strides[r],
 * b strides[r].  Integer ops up to le go exact (nnl_binopi), the
 * logical ones through double.
 */
NNL_RT void
nnl_k_binary(const int64_t *ip, const double *fp, const void *const *in,
    void *const *out, void *scratch)
{
	int64_t op = ip[0], dt = ip[1], odt = ip[2], r = ip[3];
	const int64_t *dims = ip + 4, *as = dims + r, *bs = as + r;
	int64_t n = nnl_numel((int)r, dims), idx[NNL_MAXRANK] = { 0 };
	int isf = nnl_isfloat(dt);
	int exact = !isf && (op <= NNL_LE || op >= NNL_SHL);
	int uns = nnl_isuns(dt);

	(void)fp;
	(void)scratch;
	if (dt == NNL_F32 && odt == NNL_F32 && op == NNL_POW) {
		/* x to one constant power (b broadcast, x contiguous):
		 * rt/f32-vmath, its fast paths chosen once */
		int one = n > 0;

		for (int64_t d = 0; d < r && one; d++)
			one = bs[d] == 0 && (d == r - 1 ? as[d] == 1 :
			    as[d] == as[d + 1] * dims[d + 1]);
		if (one) {
			nnl_vpowc_f32(in[0], out[0], n,
			    ((const float *)in[1])[0]);
			return;
		}
	}
	if (dt == NNL_F32 && odt == NNL_F32 && op <= NNL_MIN) {
		/* the common case, vectorisable when contiguous */
		const float *a = in[0], *b = in[1];
		float *y = out[0];

		struct nnl_bshape s;

		nnl_bcollapse(r, dims, as, bs, &s);
		if (s.q == 1 && s.sa[0] == 1 && s.sb[0] == 1) {
#ifdef NNL_RT_THREADS
			if (nnl_par_flat(op, a, b, y, n))
				return;
#endif
			nnl_binary_f32(op, a, b, y, n);
			return;
		}
#ifdef NNL_RT_THREADS
		if (nnl_par_brows(op, &s, a, b, y))
			return;
#endif
		nnl_binary_rows(op, &s, a, b, y, 0, s.outer);
		return;
	}
	for (int64_t i = 0; i < n; i++) {
		int64_t ia = nnl_off(r, idx, as), ib = nnl_off(r, idx, bs);

		if (exact) {
			nnl_storei(out[0], i, odt, nnl_binopi(op,
			    nnl_loadi(in[0], ia, dt), nnl_loadi(in[1], ib, dt),
			    uns));
		} else {
			double v = nnl_binop(op, nnl_loadf(in[0], ia, dt),
			    nnl_loadf(in[1], ib, dt));

			/* a comparison or logical op gives uint8 0 or 1 */
			if (nnl_isfloat(odt))
				nnl_storef(out[0], i, odt, v);
			else
				nnl_storei(out[0], i, odt, nnl_dtoi_sat(v,
				    odt));
		}
		nnl_next(r, dims, idx);
	}
}

enum {
	NNL_U_ABS, NNL_U_CEIL, NNL_U_COS, NNL_U_ERF, NNL_U_EXP, NNL_U_FLOOR,
	NNL_U_IDENTITY, NNL_U_LOG, NNL_U_NEG, NNL_U_RECIPROCAL,
	NNL_U_ROUNDEVEN, NNL_U_SIN, NNL_U_SIGN, NNL_U_SQRT, NNL_U_TAN,
	NNL_U_ELU, NNL_U_GELU, NNL_U_HARDSIGMOID, NNL_U_HARDSWISH,
	NNL_U_LEAKYRELU, NNL_U_LINEAR, NNL_U_RELU, NNL_U_SIGMOID,
	NNL_U_SOFTPLUS, NNL_U_SOFTSIGN, NNL_U_TANH, NNL_U_CLAMP,
	NNL_U_LOGICALNOT, NNL_U_ISNAN, NNL_U_ISINF,
	NNL_U_ASIN, NNL_U_ACOS, NNL_U_ATAN	/* nnl's, beyond WebNN */
};

/* Round half to even. */
NNL_RT_INLINE nnl_real
nnl_roundeven(nnl_real x)
{
	nnl_real r = NNL_M(floor)(x), d = x - r;

	if (d > (nnl_real)0.5 || (d == (nnl_real)0.5 &&
	    NNL_M(fmod)(r, 2) != 0))
		r += 1;
	return r;
}

/* A float op on a float: in nnl_real (rt.h). */
NNL_RT_INLINE nnl_real
nnl_unop(int64_t op, nnl_real x, nnl_real a, nnl_real b)
{
	switch (op) {
	case NNL_U_ABS: return NNL_M(fabs)(x);
	case NNL_U_CEIL: return NNL_M(ceil)(x);
	case NNL_U_COS: return NNL_M(cos)(x);
	case NNL_U_ERF: return NNL_M(erf)(x);
	case NNL_U_EXP: return NNL_M(exp)(x);
	case NNL_U_FLOOR: return NNL_M(floor)(x);
	case NNL_U_LOG: return NNL_M(log)(x);
	case NNL_U_NEG: return -x;
	case NNL_U_RECIPROCAL: return 1 / x;
	case NNL_U_ROUNDEVEN: return nnl_roundeven(x);
	case NNL_U_SIN: return NNL_M(sin)(x);
	case NNL_U_SIGN: return x > 0 ? 1 : x < 0 ? -1 : x;
	case NNL_U_SQRT: return NNL_M(sqrt)(x);
	case NNL_U_TAN: return NNL_M(tan)(x);
	case NNL_U_ELU: return x >= 0 ? x : a * (NNL_M(exp)(x) - 1);
	case NNL_U_GELU: return (nnl_real)0.5 * x * (1 + NNL_M(erf)(x /
	    NNL_M(sqrt)((nnl_real)2)));
	case NNL_U_HARDSIGMOID: {
		nnl_real v = a * x + b;

		return v < 0 ? 0 : v > 1 ? 1 : v;
	}
	case NNL_U_HARDSWISH: {
		nnl_real v = x + 3;

		return x * (v < 0 ? 0 : v > 6 ? 6 : v) / 6;
	}
	case NNL_U_LEAKYRELU: return x >= 0 ? x : a * x;
	case NNL_U_LINEAR: return a * x + b;
	case NNL_U_RELU: return x > 0 ? x : 0;
	case NNL_U_SIGMOID: return 1 / (1 + NNL_M(exp)(-x));
	case NNL_U_SOFTPLUS: return x > 30 ? x : NNL_M(log1p)(NNL_M(exp)(x));
	case NNL_U_SOFTSIGN: return x / (1 + NNL_M(fabs)(x));
	case NNL_U_TANH: return NNL_M(tanh)(x);
	case NNL_U_CLAMP: return x < a ? a : x > b ? b : x;
	case NNL_U_LOGICALNOT: return x == 0;
	case NNL_U_ISNAN: return isnan(x) != 0;
	case NNL_U_ISINF: return isinf(x) != 0;
	case NNL_U_ASIN: return NNL_M(asin)(x);
	case NNL_U_ACOS: return NNL_M(acos)(x);
	case NNL_U_ATAN: return NNL_M(atan)(x);
	default: return x;
	}
}

/*
 * unary: op, dt (input), out dt, n; fp: parameters (alpha, beta, or
 * clamp's bounds).  Integer types go exact where the op allows (abs,
 * neg, sign, relu, clamp, identity, logicalNot).
 */
NNL_RT void
nnl_k_unary(const int64_t *ip, const double *fp, const void *const *in,
    void *const *out, void *scratch)
{
	int64_t op = ip[0], dt = ip[1], odt = ip[2], n = ip[3];
	int isf = nnl_isfloat(dt);
	void (*f)(const float *, float *, int64_t);

	(void)scratch;
	if (dt == NNL_F32 && odt == NNL_F32) {
		const float *x = in[0];
		float *y = out[0];

		switch (op) {
		case NNL_U_RELU:
#ifdef NNL_RT_THREADS
			if (nnl_par_flat(0, x, 0, y, n))
				return;
#endif
			nnl_relu_f32(x, y, n);
			return;
		case NNL_U_IDENTITY:
			if (y != x)
				memmove(y, x, (size_t)n * sizeof *y);
			return;
		/* the transcendentals in vectors (rt/f32-vmath) */
		case NNL_U_EXP: f = nnl_vexp_f32; break;
		case NNL_U_LOG: f = nnl_vlog_f32; break;
		case NNL_U_SIGMOID: f = nnl_vsigmoid_f32; break;
		case NNL_U_TANH: f = nnl_vtanh_f32; break;
		case NNL_U_ERF: f = nnl_verf_f32; break;
		case NNL_U_GELU: f = nnl_vgelu_f32; break;
		case NNL_U_SOFTPLUS: f = nnl_vsoftplus_f32; break;
		default: {
			nnl_real a = (nnl_real)fp[0], b = (nnl_real)fp[1];

			for (int64_t i = 0; i < n; i++)
				y[i] = (float)nnl_unop(op, x[i], a, b);
			return;
		}
		}
#ifdef NNL_RT_THREADS
		if (nnl_par_vmath(f, x, y, n))
			return;
#endif
		f(x, y, n);
		return;
	}
	for (int64_t i = 0; i < n; i++) {
		if (isf) {
			nnl_real v = nnl_unop(op, nnl_loadr(in[0], i, dt),
			    (nnl_real)fp[0], (nnl_real)fp[1]);

			if (nnl_isfloat(odt))
				nnl_storer(out[0], i, odt, v);
			else
				nnl_storei(out[0], i, odt, nnl_dtoi_sat(v,
				    odt));
		} else {
			int64_t x = nnl_loadi(in[0], i, dt), v = x;
			int uns = nnl_isuns(dt);

			switch (op) {
			case NNL_U_ABS:	/* |INT64_MIN| wraps to itself */
				v = !uns && x < 0 ? (int64_t)(0 - (uint64_t)x) :
				    x;
				break;
			case NNL_U_NEG: v = (int64_t)(0 - (uint64_t)x); break;
			case NNL_U_SIGN: v = x > 0 ? 1 : x < 0 && !uns ? -1 : 0;
				break;
			case NNL_U_RELU: v = !uns && x < 0 ? 0 : x; break;
			case NNL_U_CLAMP: {
				/* compared as integers, exactly; a bound
				 * beyond the type saturates */
				int64_t lo = nnl_dtoi_sat(ceil(fp[0]), dt);
				int64_t hi = nnl_dtoi_sat(floor(fp[1]), dt);

				if (uns ? (uint64_t)x < (uint64_t)lo : x < lo)
					v = lo;
				else if (uns ? (uint64_t)x > (uint64_t)hi :
				    x > hi)
					v = hi;
				break;
			}
			case NNL_U_LOGICALNOT: v = x == 0; break;
			default: break;
			}
			nnl_storei(out[0], i, odt, v);
		}
	}
}

/* prelu: dt, r, dims[r], slope strides[r].  Safe in place. */
NNL_RT void
nnl_k_prelu(const int64_t *ip, const double *fp, const void *const *in,
    void *const *out, void *scratch)
{
	int64_t dt = ip[0], r = ip[1];
	const int64_t *dims = ip + 2, *ss = dims + r;
	int64_t n = nnl_numel((int)r, dims), idx[NNL_MAXRANK] = { 0 };

	(void)fp;
	(void)scratch;
	for (int64_t i = 0; i < n; i++) {
		int64_t si = nnl_off(r, idx, ss);

		if (nnl_isfloat(dt)) {
			nnl_real x = nnl_loadr(in[0], i, dt);

			nnl_storer(out[0], i, dt, x >= 0 ? x :
			    x * nnl_loadr(in[1], si, dt));
		} else {
			int64_t x = nnl_loadi(in[0], i, dt);
			uint64_t sl = (uint64_t)nnl_loadi(in[1], si, dt);

			/* the product wraps, as in mul */
			nnl_storei(out[0], i, dt, x >= 0 ? x :
			    (int64_t)((uint64_t)x * sl));
		}
		nnl_next(r, dims, idx);
	}
}

/* e^(x[k] - m) into y[k] for the up to NNL_VW floats of [k, n), their
 * sum: one vector of rt/f32-vmath's exp, the lanes past n e^-inf = 0 */
NNL_RT_INLINE float
nnl_softmax_exps(const float *x, float *y, int64_t k, int64_t n, float m)
{
	float b[NNL_VW], s = 0;
	nnl_mf v;

	for (int64_t l = 0; l < NNL_VW; l++)
		b[l] = k + l < n ? x[k + l] - m : -INFINITY;
	v = nnl_mexp(NNL_MLOAD(b));
	NNL_MSTORE(b, v);
	for (int64_t l = 0; l < NNL_VW && k + l < n; l++)
		s += y[k + l] = b[l];
	return s;
}

/* softmax of a row of n floats at x into y (y may be x): the max in
 * vectors, e^(x - max) (rt/f32-vmath) and its sum in one pass, then y
 * by 1 / sum. */
NNL_RT_INLINE void
nnl_softmax_row(const float *x, float *y, int64_t n)
{
	float m = nnl_rowmax(x, n, 1), s = 0, r;
	int64_t k = 0;

#if NNL_VW > 1
	nnl_vf vm = nnl_vsplat(m), t = nnl_vsplat(0);

	for (; k < n - n % NNL_VW; k += NNL_VW) {
		nnl_vf e = nnl_mexp(nnl_vload(x + k) - vm);

		nnl_vstore(y + k, e);
		t += e;
	}
	for (int l = 0; l < NNL_VW; l++)
		s += t[l];
#endif
	for (; k < n; k += NNL_VW)
		s += nnl_softmax_exps(x, y, k, n, m);
	r = 1 / s;
	k = 0;
#if NNL_VW > 1
	for (; k < n - n % NNL_VW; k += NNL_VW)
		nnl_vstore(y + k, nnl_vload(y + k) * r);
#endif
	for (; k < n; k++)
		y[k] *= r;
}

/* softmax of w <= NNL_VW columns at x, n rows s floats apart, into y
 * (y may be x): each column as nnl_softmax_row does a row, the
 * columns in the lanes of vectors where w is NNL_VW. */
NNL_RT_INLINE void
nnl_softmax_cols(const float *x, float *y, int64_t n, int64_t s, int64_t w)
{
#if NNL_VW > 1
	if (w == NNL_VW) {
		nnl_vf m = nnl_colmax(x, n, s, 1), t = nnl_vsplat(0), r;

		for (int64_t k = 0; k < n; k++) {
			nnl_vf e = nnl_mexp(nnl_vload(x + k * s) - m);

			nnl_vstore(y + k * s, e);
			t += e;
		}
		r = 1 / t;
		for (int64_t k = 0; k < n; k++)
			nnl_vstore(y + k * s, nnl_vload(y + k * s) * r);
		return;
	}
#endif
	for (int64_t l = 0; l < w; l++) {
		float m = -INFINITY, t = 0, r;

		for (int64_t k = 0; k < n; k++)
			if (x[k * s + l] > m)
				m = x[k * s + l];
		for (int64_t k = 0; k < n; k++) {
			float e[NNL_VW] = { 0 };

			e[0] = x[k * s + l] - m;
			NNL_MSTORE(e, nnl_mexp(NNL_MLOAD(e)));
			t += y[k * s + l] = e[0];
		}
		r = 1 / t;
		for (int64_t k = 0; k < n; k++)
			y[k * s + l] *= r;
	}
}

/* softmax: dt, outer, axis dim, inner.  Safe in place.  float32 by
 * rows (inner 1) or by columns NNL_VW wide, in float; float16 one
 * element at a time in nnl_real. */
NNL_RT void
nnl_k_softmax(const int64_t *ip, const double *fp, const void *const *in,
    void *const *out, void *scratch)
{
	int64_t dt = ip[0], outer = ip[1], ax = ip[2], inner = ip[3];

	(void)fp;
	(void)scratch;
	if (dt == NNL_F32) {
		const float *x = in[0];
		float *y = out[0];

		for (int64_t o = 0; o < outer; o++, x += ax * inner,
		    y += ax * inner)
			if (inner == 1)
				nnl_softmax_row(x, y, ax);
			else
				for (int64_t i = 0; i < inner; i += NNL_VW)
					nnl_softmax_cols(x + i, y + i, ax,
					    inner, inner - i < NNL_VW ?
					    inner - i : NNL_VW);
		return;
	}
	for (int64_t o = 0; o < outer; o++)
		for (int64_t i = 0; i < inner; i++) {
			int64_t base = o * ax * inner + i;
			nnl_real m = -INFINITY, s = 0;

			for (int64_t k = 0; k < ax; k++) {
				nnl_real v = nnl_loadr(in[0], base + k * inner,
				    dt);

				m = v > m ? v : m;
			}
			for (int64_t k = 0; k < ax; k++)
				s += NNL_M(exp)(nnl_loadr(in[0], base + k *
				    inner, dt) - m);
			for (int64_t k = 0; k < ax; k++)
				nnl_storer(out[0], base + k * inner, dt,
				    NNL_M(exp)(nnl_loadr(in[0], base + k *
				    inner, dt) - m) / s);
		}
}

/*
 * cast: from, to, n.  Float to integer truncates toward zero and
 * saturates at the type's limits (NaN gives 0); integer to integer
 * wraps as C conversions to unsigned do.
 */
NNL_RT void
nnl_k_cast(const int64_t *ip, const double *fp, const void *const *in,
    void *const *out, void *scratch)
{
	int64_t from = ip[0], to = ip[1], n = ip[2];
	int ff = nnl_isfloat(from);
	int tf = nnl_isfloat(to);

	(void)fp;
	(void)scratch;
	for (int64_t i = 0; i < n; i++) {
		if (tf) {
			double v = ff ? nnl_loadf(in[0], i, from) :
			    from == NNL_U64 ?
			    (double)((const uint64_t *)in[0])[i] :
			    (double)nnl_loadi(in[0], i, from);

			nnl_storef(out[0], i, to, v);
		} else if (ff) {
			double v = trunc(nnl_loadf(in[0], i, from)), lo, hi;

			switch (to) {
			case NNL_I8: lo = -128; hi = 127; break;
			case NNL_U8: lo = 0; hi = 255; break;
			case NNL_I16: lo = -32768; hi = 32767; break;
			case NNL_U16: lo = 0; hi = 65535; break;
			case NNL_I32: lo = -2147483648.0; hi = 2147483647.0;
				break;
			case NNL_U32: lo = 0; hi = 4294967295.0; break;
			case NNL_I64: lo = -9223372036854775808.0;
				hi = 9223372036854774784.0; break;
			default: lo = 0; hi = 18446744073709549568.0; break;
			}
			v = isnan(v) ? 0 : v < lo ? lo : v > hi ? hi : v;
			if (to == NNL_U64)
				((uint64_t *)out[0])[i] = (uint64_t)v;
			else
				nnl_storei(out[0], i, to, (int64_t)v);
		} else {
			nnl_storei(out[0], i, to, nnl_loadi(in[0], i, from));
		}
	}
}

/* where: es, r, dims[r], condition, true and false strides.  */
NNL_RT void
nnl_k_where(const int64_t *ip, const double *fp, const void *const *in,
    void *const *out, void *scratch)
{
	int64_t es = ip[0], r = ip[1];
	const int64_t *dims = ip + 2, *cs = dims + r, *ts = cs + r,
	    *fs = ts + r;
	int64_t n = nnl_numel((int)r, dims), idx[NNL_MAXRANK] = { 0 };
	const uint8_t *cond = in[0];

	(void)fp;
	(void)scratch;
	for (int64_t i = 0; i < n; i++) {
		int c = cond[nnl_off(r, idx, cs)] != 0;
		const char *src = c ? in[1] : in[2];
		int64_t si = nnl_off(r, idx, c ? ts : fs);

		memcpy((char *)out[0] + i * es, src + si * es, (size_t)es);
		nnl_next(r, dims, idx);
	}
}

/*
 * quantize (0) / dequantize (1): dir, input dt, zero point dt, output
 * dt, r, dims[r], block[r] (input elements per scale element along each
 * axis), scale strides[r].  in: input, scale, zero point.
 */
NNL_RT void
nnl_k_quant(const int64_t *ip, const double *fp, const void *const *in,
    void *const *out, void *scratch)
{
	int64_t dir = ip[0], dt = ip[1], zdt = ip[2], odt = ip[3], r = ip[4];
	const int64_t *dims = ip + 5, *blk = dims + r, *ss = blk + r;
	int64_t n = nnl_numel((int)r, dims), idx[NNL_MAXRANK] = { 0 };
	int64_t sdt = dir ? odt : dt;

	(void)fp;
	(void)scratch;
	for (int64_t i = 0; i < n; i++) {
		int64_t si = 0;
		double s, z, v;

		for (int64_t d = 0; d < r; d++)
			si += idx[d] / blk[d] * ss[d];
		s = nnl_loadf(in[1], si, sdt);
		z = (double)nnl_loadi(in[2], si, zdt);
		if (dir == 0) {
			double lo = zdt == NNL_I8 ? -128 : zdt == NNL_U8 ? 0 :
			    zdt == NNL_I32 ? -2147483648.0 : 0;
			double hi = zdt == NNL_I8 ? 127 : zdt == NNL_U8 ? 255 :
			    zdt == NNL_I32 ? 2147483647.0 : 0;

			/* the division in the input's precision, as ONNX
			 * Runtime and WebNN back ends do it */
			v = dt == NNL_F32 ? (double)((float)nnl_loadf(in[0], i,
			    dt) / (float)s) : nnl_loadf(in[0], i, dt) / s;
			v = nnl_roundeven(v) + z;
			/* clamped before the cast; NaN (x or a scale of 0)
			 * is the zero point, as the cast kernel gives 0 */
			if (v != v)
				v = z;
			v = v < lo ? lo : v > hi ? hi : v;
			nnl_storei(out[0], i, odt, (int64_t)v);
		} else {
			v = ((double)nnl_loadi(in[0], i, dt) - z) * s;
			nnl_storef(out[0], i, odt, v);
		}
		nnl_next(r, dims, idx);
	}
}

/* cumsum: dt, outer, axis dim, inner, exclusive, reversed. */
NNL_RT void
nnl_k_cumsum(const int64_t *ip, const double *fp, const void *const *in,
    void *const *out, void *scratch)
{
	int64_t dt = ip[0], outer = ip[1], ax = ip[2], inner = ip[3],
	    excl = ip[4], rev = ip[5];
	int isf = nnl_isfloat(dt);

	(void)fp;
	(void)scratch;
	for (int64_t o = 0; o < outer; o++)
		for (int64_t i = 0; i < inner; i++) {
			double fs = 0;
			uint64_t is = 0;

			for (int64_t k0 = 0; k0 < ax; k0++) {
				int64_t k = rev ? ax - 1 - k0 : k0;
				int64_t at = (o * ax + k) * inner + i;

				if (isf) {
					double v = nnl_loadf(in[0], at, dt);

					if (!excl)
						fs += v;
					nnl_storef(out[0], at, dt, fs);
					if (excl)
						fs += v;
				} else {
					/* wraps, as add does */
					uint64_t v = (uint64_t)nnl_loadi(in[0],
					    at, dt);

					if (!excl)
						is += v;
					nnl_storei(out[0], at, dt, (int64_t)is);
					if (excl)
						is += v;
				}
			}
		}
}

/* triangular: es, outer (matrices), rows, cols, upper, diagonal. */
NNL_RT void
nnl_k_triangular(const int64_t *ip, const double *fp, const void *const *in,
    void *const *out, void *scratch)
{
	int64_t es = ip[0], outer = ip[1], rows = ip[2], cols = ip[3],
	    upper = ip[4], diag = ip[5];

	(void)fp;
	(void)scratch;
	for (int64_t o = 0; o < outer; o++)
		for (int64_t i = 0; i < rows; i++)
			for (int64_t j = 0; j < cols; j++) {
				int64_t at = (o * rows + i) * cols + j;
				int keep = upper ? j - i >= diag : j - i <= diag;

				if (keep)
					memmove((char *)out[0] + at * es,
					    (const char *)in[0] + at * es,
					    (size_t)es);
				else
					memset((char *)out[0] + at * es, 0,
					    (size_t)es);
			}
}

/* expand: es, r, out dims[r], input strides[r] (0 on broadcast axes). */
NNL_RT void
nnl_k_expand(const int64_t *ip, const double *fp, const void *const *in,
    void *const *out, void *scratch)
{
	int64_t es = ip[0], r = ip[1];
	const int64_t *dims = ip + 2, *st = dims + r;
	int64_t n = nnl_numel((int)r, dims), idx[NNL_MAXRANK] = { 0 };

	(void)fp;
	(void)scratch;
	for (int64_t i = 0; i < n; i++) {
		memcpy((char *)out[0] + i * es, (const char *)in[0] +
		    nnl_off(r, idx, st) * es, (size_t)es);
		nnl_next(r, dims, idx);
	}
}

/* tile: es, r, in dims[r], out dims[r]. */
NNL_RT void
nnl_k_tile(const int64_t *ip, const double *fp, const void *const *in,
    void *const *out, void *scratch)
{
	int64_t es = ip[0], r = ip[1];
	const int64_t *idims = ip + 2, *odims = idims + r;
	int64_t n = nnl_numel((int)r, odims), idx[NNL_MAXRANK] = { 0 };
	int64_t st[NNL_MAXRANK];

	(void)fp;
	(void)scratch;
	nnl_strides((int)r, idims, st);
	for (int64_t i = 0; i < n; i++) {
		int64_t src = 0;

		for (int64_t d = 0; d < r; d++)
			src += idx[d] % idims[d] * st[d];
		memcpy((char *)out[0] + i * es, (const char *)in[0] + src * es,
		    (size_t)es);
		nnl_next(r, odims, idx);
	}
}

/* reverse: es, r, dims[r], axis mask. */
NNL_RT void
nnl_k_reverse(const int64_t *ip, const double *fp, const void *const *in,
    void *const *out, void *scratch)
{
	int64_t es = ip[0], r = ip[1], mask = ip[2 + r];
	const int64_t *dims = ip + 2;
	int64_t n = nnl_numel((int)r, dims), idx[NNL_MAXRANK] = { 0 };
	int64_t st[NNL_MAXRANK];

	(void)fp;
	(void)scratch;
	nnl_strides((int)r, dims, st);
	for (int64_t i = 0; i < n; i++) {
		int64_t src = 0;

		for (int64_t d = 0; d < r; d++)
			src += (mask >> d & 1 ? dims[d] - 1 - idx[d] : idx[d]) *
			    st[d];
		memcpy((char *)out[0] + i * es, (const char *)in[0] + src * es,
		    (size_t)es);
		nnl_next(r, dims, idx);
	}
}
