/*
 * tensor: kernels that move data (copy, transpose, slice, split,
 * concat, the gather and scatter families) and reductions.  Data
 * movement works on element sizes, not types, so one kernel serves
 * every data type.  Parameters, in ip[] order, are listed above each.
 */
#include "rt.h"

/* Copy element i of size es. */
#define NNL_MOVE(dst, di, src, si, es) \
	memcpy((char *)(dst) + (size_t)(di) * (es), \
	    (const char *)(src) + (size_t)(si) * (es), (size_t)(es))

/* Read index element i of an index tensor of type dt. */
NNL_RT_INLINE int64_t
nnl_index(const void *p, int64_t i, int64_t dt)
{
	if (dt == NNL_I64)
		return ((const int64_t *)p)[i];
	if (dt == NNL_U32)
		return (int64_t)((const uint32_t *)p)[i];
	return ((const int32_t *)p)[i];
}

/* An index into a dimension of size n: negative counts from the end,
 * out-of-range values are clamped (WebNN's gather rule). */
NNL_RT_INLINE int64_t
nnl_fixindex(int64_t v, int64_t n)
{
	if (v < 0)
		v += n;
	if (v < 0)
		v = 0;
	if (v >= n)
		v = n - 1;
	return v;
}

/* copy: nbytes.  Reshape and identity; safe in place. */
NNL_RT void
nnl_k_copy(const int64_t *ip, const double *fp, const void *const *in,
    void *const *out, void *scratch)
{
	(void)fp;
	(void)scratch;
	if (ip[0] && out[0] != in[0])	/* (0: an empty tensor's) */
		memmove(out[0], in[0], (size_t)ip[0]);
}

/* Tiles of the scalar 2-D transpose, elements a side. */
enum { NNL_TR_TILE = 16 };

/* d[u * ld + v] = s[v * ls + u] for u < M, v < N, elements of type T:
 * tiles of NNL_TR_TILE both ways, so that the reads and the writes
 * each stay in a few cache lines. */
#define NNL_TR2D(T, s, d, M, N, ls, ld) \
	do { \
		const T *s_ = (const T *)(s); \
		T *d_ = (T *)(d); \
		for (int64_t u0 = 0; u0 < (M); u0 += NNL_TR_TILE) \
		for (int64_t v0 = 0; v0 < (N); v0 += NNL_TR_TILE) { \
			int64_t u1 = u0 + NNL_TR_TILE < (M) ? \
			    u0 + NNL_TR_TILE : (M); \
			int64_t v1 = v0 + NNL_TR_TILE < (N) ? \
			    v0 + NNL_TR_TILE : (N); \
			for (int64_t u = u0; u < u1; u++) \
				for (int64_t v = v0; v < v1; v++) \
					d_[u * (ld) + v] = s_[v * (ls) + u]; \
		} \
	} while (0)

/*
 * d[u * ld + v] = s[v * ls + u] for u < M, v < N, elements of es
 * bytes (M, N >= 1): four-byte ones at least a vector each way in
 * blocks of NNL_VW x NNL_VW transposed in registers (the last of a row
 * or column moved back to end at the edge, writing some of the block
 * before it again), a band of 64 rows of d at a time; the others in
 * tiles of NNL_TR_TILE, by their size.
 */
NNL_RT_INLINE void
nnl_tr2d(const char *s, char *d, int64_t es, int64_t M, int64_t N,
    int64_t ls, int64_t ld)
{
#if NNL_VW > 1 && defined(NNL_VSHUFFLE)
	if (es == 4 && M >= NNL_VW && N >= NNL_VW) {
		const float *sf = (const float *)s;
		float *df = (float *)d;

		for (int64_t ub = 0; ub < M; ub += 64)
		for (int64_t v0 = 0; v0 < N; v0 += NNL_VW) {
			int64_t vc = N - v0 < NNL_VW ? N - NNL_VW : v0;
			int64_t ue = ub + 64 < M ? ub + 64 : M;

			for (int64_t u0 = ub; u0 < ue; u0 += NNL_VW) {
				int64_t uc = M - u0 < NNL_VW ? M - NNL_VW : u0;
				nnl_vf v[NNL_VW];

#pragma GCC unroll 16
				for (int i = 0; i < NNL_VW; i++)
					v[i] = nnl_vload(sf + (vc + i) * ls +
					    uc);
				nnl_vtranspose(v);
#pragma GCC unroll 16
				for (int i = 0; i < NNL_VW; i++)
					nnl_vstore(df + (uc + i) * ld + vc,
					    v[i]);
			}
		}
		return;
	}
#endif
	switch (es) {
	case 1: NNL_TR2D(uint8_t, s, d, M, N, ls, ld); break;
	case 2: NNL_TR2D(uint16_t, s, d, M, N, ls, ld); break;
	case 4: NNL_TR2D(uint32_t, s, d, M, N, ls, ld); break;
	case 8: NNL_TR2D(uint64_t, s, d, M, N, ls, ld); break;
	default:
		for (int64_t u = 0; u < M; u++)
			for (int64_t v = 0; v < N; v++)
				NNL_MOVE(d, u * ld + v, s, v * ls + u, es);
	}
}

/*
 * transpose: es, r, in dims[r], permutation[r].  Axes of one element
 * are dropped and input axes that stay next to each other, in order,
 * are merged first (NHWC -> NCHW is then one 2-D transpose of HW x C,
 * [B, N, H, D] -> [B, H, N, D] rows of D); then for each index of the
 * output's other axes either a run of the input's last axis, where it
 * stays last, is copied whole, or the plane of the output's last axis
 * and the input's is a 2-D transpose (nnl_tr2d).
 */
NNL_RT void
nnl_k_transpose(const int64_t *ip, const double *fp, const void *const *in,
    void *const *out, void *scratch)
{
	int64_t es = ip[0], r = ip[1];
	const int64_t *dims = ip + 2, *perm = ip + 2 + r;
	int64_t d[NNL_MAXRANK], ist[NNL_MAXRANK], odims[NNL_MAXRANK];
	int64_t ost[NNL_MAXRANK], os[NNL_MAXRANK], idx[NNL_MAXRANK] = { 0 };
	int64_t p[NNL_MAXRANK], kd[NNL_MAXRANK], grp[NNL_MAXRANK], n, k = 0;
	int64_t q = 0, m = 0, j, last, M, N, ls, ld;

	(void)fp;
	(void)scratch;
	if ((n = nnl_numel((int)r, dims)) == 0)
		return;
	/* the input axes of more than one element, renumbered, in the
	 * output's order */
	for (int64_t i = 0; i < r; i++)
		if (dims[i] > 1) {
			grp[i] = k;
			kd[k++] = dims[i];
		}
	for (int64_t i = 0; i < r; i++)
		if (dims[perm[i]] > 1)
			p[q++] = grp[perm[i]];
	/* one that follows the input axis before it in the output too
	 * goes into that axis (grp[a] -1 first): d and p (by way of kd),
	 * the merged */
	for (int64_t a = 0; a < k; a++)
		grp[a] = 0;
	for (int64_t i = 1; i < k; i++)
		if (p[i] == p[i - 1] + 1)
			grp[p[i]] = -1;
	for (int64_t a = 0; a < k; a++) {
		if (grp[a] < 0) {
			d[m - 1] *= kd[a];
			grp[a] = m - 1;
			continue;
		}
		d[m] = kd[a];
		grp[a] = m++;
	}
	for (int64_t i = 0, o = 0; i < k; i++)
		if (i == 0 || p[i] != p[i - 1] + 1)
			kd[o++] = grp[p[i]];
	k = m;
	memcpy(p, kd, (size_t)k * sizeof *p);
	if (k <= 1) {
		memmove(out[0], in[0], (size_t)(n * es));
		return;
	}
	nnl_strides((int)k, d, ist);
	for (int64_t i = 0; i < k; i++) {
		odims[i] = d[p[i]];
		ost[i] = ist[p[i]];	/* input stride of output axis i */
	}
	nnl_strides((int)k, odims, os);
	for (j = 0; p[j] != k - 1; j++)
		;	/* the output axis of the input's last */
	last = p[k - 1] == k - 1;
	/* the plane: output axes k - 1 and j (j < k - 1 unless last) */
	M = odims[j];
	N = odims[k - 1];
	ls = ost[k - 1];
	ld = os[j];
	for (;;) {
		int64_t src = 0, dst = 0, i;

		for (i = 0; i < k; i++) {
			src += idx[i] * ost[i];
			dst += idx[i] * os[i];
		}
		if (last)
			memcpy((char *)out[0] + dst * es,
			    (const char *)in[0] + src * es, (size_t)(N * es));
		else
			nnl_tr2d((const char *)in[0] + src * es,
			    (char *)out[0] + dst * es, es, M, N, ls, ld);
		/* the next index of the other axes */
		for (i = k - 2; i >= 0; i--) {
			if (i == j && !last)
				continue;
			if (++idx[i] < odims[i])
				break;
			idx[i] = 0;
		}
		if (i < 0)
			return;
	}
}

/* The element of the input where a slice starts. */
NNL_RT_INLINE int64_t
nnl_slice_first(int64_t r, const int64_t *start, const int64_t *ist)
{
	int64_t f = 0;

	for (int64_t i = 0; i < r; i++)
		f += start[i] * ist[i];
	return f;
}

/* Whether a slice's output (odims) is a run of its input's elements:
 * from the last axis, whole axes, then at most one cut at stride 1,
 * then axes of one element. */
NNL_RT_INLINE int
nnl_slice_run(int64_t r, const int64_t *dims, const int64_t *start,
    const int64_t *odims, const int64_t *step)
{
	int64_t i = r - 1;

	for (; i >= 0 && odims[i] == dims[i] && start[i] == 0 &&
	    (step[i] == 1 || dims[i] == 1); i--)
		;
	if (i >= 0 && step[i] != 1 && odims[i] > 1)
		return 0;
	for (i--; i >= 0; i--)
		if (odims[i] != 1)
			return 0;
	return 1;
}

/* slice: es, r, in dims[r], starts[r], sizes[r], strides[r]; nothing to
 * do where the memory plan made the output a view of the input's run
 * (nnl-plan-memory). */
NNL_RT void
nnl_k_slice(const int64_t *ip, const double *fp, const void *const *in,
    void *const *out, void *scratch)
{
	int64_t es = ip[0], r = ip[1];
	const int64_t *dims = ip + 2, *start = dims + r, *size = start + r,
	    *step = size + r;
	int64_t ist[NNL_MAXRANK], odims[NNL_MAXRANK], idx[NNL_MAXRANK] = { 0 };
	int64_t n = 1;

	(void)fp;
	(void)scratch;
	nnl_strides((int)r, dims, ist);
	for (int i = 0; i < r; i++) {
		odims[i] = (size[i] + step[i] - 1) / step[i];
		n *= odims[i];
	}
	if (nnl_slice_run(r, dims, start, odims, step) &&
	    (char *)out[0] == (const char *)in[0] +
	    nnl_slice_first(r, start, ist) * es)
		return;	/* the memory plan's view of the input */
	/* runs of w elements: the last axes whole, then one at stride 1
	 * (a third of a [S, 3E] projection is S runs of E); the outer
	 * axes below q by index */
	int64_t w = 1, q = r - 1;

	for (; q >= 0 && odims[q] == dims[q] && start[q] == 0 &&
	    step[q] == 1; q--)
		w *= dims[q];
	if (q >= 0 && step[q] == 1)
		w *= odims[q--];
	if (w == 0)
		return;
	for (int64_t o = 0; o < n; o += w) {
		int64_t src = 0;

		for (int i = 0; i < r; i++)
			src += (start[i] + idx[i] * step[i]) * ist[i];
		memcpy((char *)out[0] + (size_t)(o * es), (const char *)in[0] +
		    (size_t)(src * es), (size_t)(w * es));
		for (int64_t i = q; i >= 0; i--) {
			if (++idx[i] < odims[i])
				break;
			idx[i] = 0;
		}
	}
}

/* split: es, outer, axis dim, inner, nout, size[nout] (along the axis) */
NNL_RT void
nnl_k_split(const int64_t *ip, const double *fp, const void *const *in,
    void *const *out, void *scratch)
{
	int64_t es = ip[0], outer = ip[1], ax = ip[2], inner = ip[3],
	    nout = ip[4];
	const char *src = in[0];

	(void)fp;
	(void)scratch;
	for (int64_t o = 0; o < outer; o++) {
		int64_t at = 0;

		for (int64_t k = 0; k < nout; k++) {
			size_t chunk = (size_t)(ip[5 + k] * inner * es);

			memcpy((char *)out[k] + (size_t)o * chunk,
			    src + (size_t)((o * ax + at) * inner * es), chunk);
			at += ip[5 + k];
		}
	}
}

/* concat: es, outer, axis dim of the output, inner, nin, size[nin] */
NNL_RT void
nnl_k_concat(const int64_t *ip, const double *fp, const void *const *in,
    void *const *out, void *scratch)
{
	int64_t es = ip[0], outer = ip[1], ax = ip[2], inner = ip[3],
	    nin = ip[4];
	char *dst = out[0];

	(void)fp;
	(void)scratch;
	if (outer == 1) {	/* nothing to do if all are in place */
		int64_t k = 0, at = 0;

		for (; k < nin && (const char *)in[k] == dst + at * inner *
		    es; k++)
			at += ip[5 + k];
		if (k == nin)
			return;
	}
#ifdef NNL_RT_THREADS
	if (nnl_par_concat(ip, in, out))	/* its bytes split (par.c) */
		return;
#endif
	for (int64_t o = 0; o < outer; o++) {
		int64_t at = 0;

		for (int64_t k = 0; k < nin; k++) {
			size_t chunk = (size_t)(ip[5 + k] * inner * es);
			char *d = dst + (size_t)((o * ax + at) * inner * es);
			const char *s = (const char *)in[k] + (size_t)o * chunk;

			/* an input the memory plan put where it goes */
			if (d != s)
				memcpy(d, s, chunk);
			at += ip[5 + k];
		}
	}
}

/* gather: es, index type, outer, axis dim, inner, index count */
NNL_RT void
nnl_k_gather(const int64_t *ip, const double *fp, const void *const *in,
    void *const *out, void *scratch)
{
	int64_t es = ip[0], it = ip[1], outer = ip[2], ax = ip[3],
	    inner = ip[4], ni = ip[5];
	const char *src = in[0];
	char *dst = out[0];

	(void)fp;
	(void)scratch;
	for (int64_t o = 0; o < outer; o++)
		for (int64_t k = 0; k < ni; k++) {
			int64_t j = nnl_fixindex(nnl_index(in[1], k, it), ax);

			memcpy(dst + (size_t)((o * ni + k) * inner * es),
			    src + (size_t)((o * ax + j) * inner * es),
			    (size_t)(inner * es));
		}
}

/* gatherElements: es, index type, r, in dims[r], index dims[r], axis */
NNL_RT void
nnl_k_gather_elements(const int64_t *ip, const double *fp,
    const void *const *in, void *const *out, void *scratch)
{
	int64_t es = ip[0], it = ip[1], r = ip[2];
	const int64_t *dims = ip + 3, *idims = dims + r;
	int64_t axis = idims[r], ist[NNL_MAXRANK], idx[NNL_MAXRANK] = { 0 };
	int64_t n = nnl_numel((int)r, idims);

	(void)fp;
	(void)scratch;
	nnl_strides((int)r, dims, ist);
	for (int64_t o = 0; o < n; o++) {
		int64_t src = 0;

		for (int i = 0; i < r; i++)
			src += (i == axis ? nnl_fixindex(nnl_index(in[1], o,
			    it), dims[i]) : idx[i]) * ist[i];
		NNL_MOVE(out[0], o, in[0], src, es);
		for (int i = (int)r - 1; i >= 0; i--) {
			if (++idx[i] < idims[i])
				break;
			idx[i] = 0;
		}
	}
}

/* gatherND: es, index type, r, in dims[r], k (last index dim), number
 * of index tuples.  Each tuple selects a slice of the trailing r-k
 * dimensions. */
NNL_RT void
nnl_k_gather_nd(const int64_t *ip, const double *fp, const void *const *in,
    void *const *out, void *scratch)
{
	int64_t es = ip[0], it = ip[1], r = ip[2];
	const int64_t *dims = ip + 3;
	int64_t k = dims[r], nt = dims[r + 1], ist[NNL_MAXRANK], slice = 1;

	(void)fp;
	(void)scratch;
	nnl_strides((int)r, dims, ist);
	for (int64_t i = k; i < r; i++)
		slice *= dims[i];
	for (int64_t t = 0; t < nt; t++) {
		int64_t src = 0;

		for (int64_t j = 0; j < k; j++)
			src += nnl_fixindex(nnl_index(in[1], t * k + j, it),
			    dims[j]) * ist[j];
		memcpy((char *)out[0] + (size_t)(t * slice * es),
		    (const char *)in[0] + (size_t)(src * es),
		    (size_t)(slice * es));
	}
}

/*
 * A scatter's reduction (1 add, 2 mul, 3 max, 4 min) of update u into
 * element d of out, of type dt: floats in double, rounded once to dt
 * (add and mul as dt's own arithmetic rounds them; max and min pass a
 * NaN on, as NumPy's maximum does); integers wrap, as in NumPy.
 */
NNL_RT_INLINE void
nnl_scatter_reduce(void *out, int64_t d, const void *upd, int64_t u,
    int64_t dt, int64_t red)
{
	if (nnl_isfloat(dt)) {
		double a = nnl_loadf(out, d, dt), b = nnl_loadf(upd, u, dt);

		if (red == 1)
			a += b;
		else if (red == 2)
			a *= b;
		else if (a == a && (b != b || (red == 3 ? b > a : b < a)))
			a = b;
		nnl_storef(out, d, dt, a);
	} else {
		int64_t a = nnl_loadi(out, d, dt), b = nnl_loadi(upd, u, dt);
		int lt = dt == NNL_U64 ? (uint64_t)b < (uint64_t)a : b < a;

		if (red == 1)
			a = (int64_t)((uint64_t)a + (uint64_t)b);
		else if (red == 2)
			a = (int64_t)((uint64_t)a * (uint64_t)b);
		else if (red == 3 ? !lt && a != b : lt)
			a = b;
		nnl_storei(out, d, dt, a);
	}
}

/* scatterElements: es, index type, r, in dims[r], index dims[r], axis,
 * reduction (0: none, else nnl_scatter_reduce's), element type.
 * in: input, indices, updates. */
NNL_RT void
nnl_k_scatter_elements(const int64_t *ip, const double *fp,
    const void *const *in, void *const *out, void *scratch)
{
	int64_t es = ip[0], it = ip[1], r = ip[2];
	const int64_t *dims = ip + 3, *idims = dims + r;
	int64_t axis = idims[r], ist[NNL_MAXRANK], idx[NNL_MAXRANK] = { 0 };
	int64_t n = nnl_numel((int)r, idims), red = idims[r + 1];
	int64_t dt = idims[r + 2];

	(void)fp;
	(void)scratch;
	if (out[0] != in[0])
		memmove(out[0], in[0], (size_t)(nnl_numel((int)r, dims) * es));
	nnl_strides((int)r, dims, ist);
	for (int64_t u = 0; u < n; u++) {
		int64_t dst = 0;

		for (int i = 0; i < r; i++)
			dst += (i == axis ? nnl_fixindex(nnl_index(in[1], u,
			    it), dims[i]) : idx[i]) * ist[i];
		if (red)
			nnl_scatter_reduce(out[0], dst, in[2], u, dt, red);
		else
			NNL_MOVE(out[0], dst, in[2], u, es);
		for (int i = (int)r - 1; i >= 0; i--) {
			if (++idx[i] < idims[i])
				break;
			idx[i] = 0;
		}
	}
}

/* scatterND: es, index type, r, in dims[r], k, number of tuples,
 * reduction (0: none, else nnl_scatter_reduce's), element type. */
NNL_RT void
nnl_k_scatter_nd(const int64_t *ip, const double *fp, const void *const *in,
    void *const *out, void *scratch)
{
	int64_t es = ip[0], it = ip[1], r = ip[2];
	const int64_t *dims = ip + 3;
	int64_t k = dims[r], nt = dims[r + 1], ist[NNL_MAXRANK], slice = 1;
	int64_t red = dims[r + 2], dt = dims[r + 3];

	(void)fp;
	(void)scratch;
	if (out[0] != in[0])
		memmove(out[0], in[0], (size_t)(nnl_numel((int)r, dims) * es));
	nnl_strides((int)r, dims, ist);
	for (int64_t i = k; i < r; i++)
		slice *= dims[i];
	for (int64_t t = 0; t < nt; t++) {
		int64_t dst = 0;

		for (int64_t j = 0; j < k; j++)
			dst += nnl_fixindex(nnl_index(in[1], t * k + j, it),
			    dims[j]) * ist[j];
		for (int64_t e = 0; red && e < slice; e++)
			nnl_scatter_reduce(out[0], dst + e, in[2],
			    t * slice + e, dt, red);
		if (!red)
			memcpy((char *)out[0] + (size_t)(dst * es),
			    (const char *)in[2] + (size_t)(t * slice * es),
			    (size_t)(slice * es));
	}
}

enum {
	NNL_R_L1, NNL_R_L2, NNL_R_LOGSUM, NNL_R_LOGSUMEXP, NNL_R_MAX,
	NNL_R_MEAN, NNL_R_MIN, NNL_R_PRODUCT, NNL_R_SUM, NNL_R_SUMSQUARE
};

/* Output element of input element i: the reduced axes collapse. */
NNL_RT_INLINE int64_t
nnl_reduced(int64_t i, int r, const int64_t *dims, int64_t mask,
    const int64_t *ost)
{
	int64_t o = 0;

	for (int d = r - 1; d >= 0; d--) {
		int64_t c = i % dims[d];

		i /= dims[d];
		if (!(mask >> d & 1))
			o += c * ost[d];
	}
	return o;
}

/*
 * A float reduction whose reduced axes are one block [a, b) of x's:
 * outer groups of n rows of inner floats, output (o, i) the reduction
 * of column i of group o; sums and extremes of rows (inner 1, a global
 * pool) or of NNL_VW columns at a time in vectors (nnl_rowsum, ...).
 * Into acc, one nnl_k_reduce finishes; 0 where this is not such a
 * reduction.
 */
NNL_RT_INLINE int
nnl_reduce_blk(int64_t op, int r, const int64_t *dims, int64_t mask,
    const float *x, double *acc)
{
	int a = 0, b, kind = op == NNL_R_L1 ? NNL_SUM_ABS : op == NNL_R_L2 ||
	    op == NNL_R_SUMSQUARE ? NNL_SUM_SQ : NNL_SUM_X;
	int ext = op == NNL_R_MAX || op == NNL_R_MIN, mx = op == NNL_R_MAX;
	int64_t outer, n, inner;

	if (!(ext || op == NNL_R_SUM || op == NNL_R_MEAN || op == NNL_R_L1 ||
	    op == NNL_R_L2 || op == NNL_R_SUMSQUARE))
		return 0;
	while (a < r && !(mask >> a & 1))
		a++;
	for (b = a; b < r && mask >> b & 1; b++)
		;
	if (a == r || mask != ((((int64_t)1 << b) - 1) &
	    ~(((int64_t)1 << a) - 1)))
		return 0;
	outer = nnl_numel(a, dims);
	n = nnl_numel(b - a, dims + a);
	inner = nnl_numel(r - b, dims + b);
	for (int64_t o = 0; o < outer; o++, x += n * inner, acc += inner) {
		int64_t i = 0;

		if (inner == 1) {
			acc[0] = ext ? nnl_rowmax(x, n, mx) :
			    nnl_rowsum(x, n, kind, 0);
			continue;
		}
#if NNL_VW > 1
		for (; i + NNL_VW <= inner; i += NNL_VW) {
			nnl_real t[NNL_VW];

			if (ext) {
				nnl_vf m = nnl_colmax(x + i, n, inner, mx);

				for (int l = 0; l < NNL_VW; l++)
					acc[i + l] = m[l];
				continue;
			}
			nnl_colsum(x + i, n, inner, kind, nnl_vsplat(0), t);
			for (int l = 0; l < NNL_VW; l++)
				acc[i + l] = t[l];
		}
#endif
		for (; i < inner; i++) {
			if (!ext) {
				acc[i] = nnl_strsum(x + i, n, inner, kind, 0);
				continue;
			}
			acc[i] = mx ? -INFINITY : INFINITY;
			for (int64_t k = 0; k < n; k++) {
				float v = x[k * inner + i];

				if (mx ? v > acc[i] : v < acc[i])
					acc[i] = v;
			}
		}
	}
	return 1;
}

/* reduce: op (NNL_R_*), dt, r, dims[r], axis mask.  scratch: one double
 * per output element (the planner reserves it). */
NNL_RT void
nnl_k_reduce(const int64_t *ip, const double *fp, const void *const *in,
    void *const *out, void *scratch)
{
	int64_t op = ip[0], dt = ip[1], r = ip[2], mask = ip[3 + r];
	const int64_t *dims = ip + 3;
	int64_t ost[NNL_MAXRANK], n = nnl_numel((int)r, dims), no = 1, cnt;
	int isf = nnl_isfloat(dt), suffix = 1;
	double *acc = scratch, *mx = NULL;

	(void)fp;
	for (int d = (int)r - 1; d >= 0; d--) {
		ost[d] = no;
		if (!(mask >> d & 1))
			no *= dims[d];
	}
	cnt = no ? n / no : 0;
	for (int d = 0; d < (int)r; d++)
		if (mask >> d & 1 && !((mask >> d) + 1 == 1ll << (r - d)))
			suffix = 0;
	for (int64_t o = 0; o < no; o++)
		acc[o] = op == NNL_R_PRODUCT ? 1 : op == NNL_R_MAX ? -INFINITY :
		    op == NNL_R_MIN ? INFINITY : 0;
	if (op == NNL_R_LOGSUMEXP) {
		/* the max first, kept in the output, for a stable sum */
		mx = acc + no;
		for (int64_t o = 0; o < no; o++)
			mx[o] = -INFINITY;
		for (int64_t i = 0; i < n; i++) {
			int64_t o = nnl_reduced(i, (int)r, dims, mask, ost);
			double v = nnl_loadf(in[0], i, dt);

			if (v > mx[o])
				mx[o] = v;
		}
	}
	/* by rows or columns of floats where it can (nnl_reduce_blk), else
	 * an element at a time */
	if (!(dt == NNL_F32 && nnl_reduce_blk(op, (int)r, dims, mask, in[0],
	    acc)))
	for (int64_t i = 0; i < n; i++) {
		/* trailing axes reduced (a global pool): blocks of cnt */
		int64_t o = suffix ? i / cnt : nnl_reduced(i, (int)r, dims,
		    mask, ost);
		double v = dt == NNL_F32 ? ((const float *)in[0])[i] :
		    nnl_loadf(in[0], i, dt);

		switch (op) {
		case NNL_R_L1: acc[o] += fabs(v); break;
		case NNL_R_L2: case NNL_R_SUMSQUARE: acc[o] += v * v; break;
		case NNL_R_LOGSUMEXP: acc[o] += exp(v - mx[o]); break;
		case NNL_R_MAX: if (v > acc[o]) acc[o] = v; break;
		case NNL_R_MIN: if (v < acc[o]) acc[o] = v; break;
		case NNL_R_PRODUCT: acc[o] *= v; break;
		default: acc[o] += v; break;
		}
	}
	for (int64_t o = 0; o < no; o++) {
		double v = acc[o];

		if (op == NNL_R_L2)
			v = sqrt(v);
		else if (op == NNL_R_LOGSUM)
			v = log(v);
		else if (op == NNL_R_LOGSUMEXP)
			v = log(v) + mx[o];
		else if (op == NNL_R_MEAN)
			v = cnt ? v / (double)cnt : NAN;
		if (isf)
			nnl_storef(out[0], o, dt, v);
		else	/* a mean of nothing is NaN, a log of 0 -inf */
			nnl_storei(out[0], o, dt, nnl_dtoi_sat(v, dt));
	}
}

/* reduce on integers, exactly: op, dt, r, dims[r], mask.  scratch: one
 * int64 per output element.  Sums and products wrap (two's complement),
 * as integer arithmetic does in WebNN: they are done in uint64_t, whose
 * overflow is defined, and the low bits are the narrower type's. */
NNL_RT void
nnl_k_reduce_int(const int64_t *ip, const double *fp, const void *const *in,
    void *const *out, void *scratch)
{
	int64_t op = ip[0], dt = ip[1], r = ip[2], mask = ip[3 + r];
	const int64_t *dims = ip + 3;
	int64_t ost[NNL_MAXRANK], n = nnl_numel((int)r, dims), no = 1;
	int64_t *acc = scratch;
	uint64_t a;
	int uns = nnl_isuns(dt);

	(void)fp;
	for (int d = (int)r - 1; d >= 0; d--) {
		ost[d] = no;
		if (!(mask >> d & 1))
			no *= dims[d];
	}
	for (int64_t o = 0; o < no; o++)
		acc[o] = op == NNL_R_PRODUCT ? 1 : op == NNL_R_MAX ?
		    (uns ? 0 : INT64_MIN) : op == NNL_R_MIN ?
		    (uns ? -1 : INT64_MAX) : 0;
	for (int64_t i = 0; i < n; i++) {
		int64_t o = nnl_reduced(i, (int)r, dims, mask, ost);
		int64_t v = nnl_loadi(in[0], i, dt);
		uint64_t u = (uint64_t)v;

		switch (op) {
		case NNL_R_L1:
			a = (uint64_t)acc[o] + (v < 0 && !uns ? 0 - u : u);
			acc[o] = (int64_t)a;
			break;
		case NNL_R_SUMSQUARE:
			acc[o] = (int64_t)((uint64_t)acc[o] + u * u);
			break;
		case NNL_R_MAX:
			if (uns ? (uint64_t)v > (uint64_t)acc[o] : v > acc[o])
				acc[o] = v;
			break;
		case NNL_R_MIN:
			if (uns ? (uint64_t)v < (uint64_t)acc[o] : v < acc[o])
				acc[o] = v;
			break;
		case NNL_R_PRODUCT:
			acc[o] = (int64_t)((uint64_t)acc[o] * u);
			break;
		default: acc[o] = (int64_t)((uint64_t)acc[o] + u); break;
		}
	}
	for (int64_t o = 0; o < no; o++)
		nnl_storei(out[0], o, dt, acc[o]);
}

/* argMin/argMax: dt, output type, outer, axis dim, inner, is max.
 * The first index of the extreme value wins. */
NNL_RT void
nnl_k_argminmax(const int64_t *ip, const double *fp, const void *const *in,
    void *const *out, void *scratch)
{
	int64_t dt = ip[0], ot = ip[1], outer = ip[2], ax = ip[3],
	    inner = ip[4], ismax = ip[5];

	(void)fp;
	(void)scratch;
	for (int64_t o = 0; o < outer; o++)
		for (int64_t i = 0; i < inner; i++) {
			int64_t best = 0;
			double bv = nnl_loadf(in[0], o * ax * inner + i, dt);

			for (int64_t k = 1; k < ax; k++) {
				double v = nnl_loadf(in[0], (o * ax + k) *
				    inner + i, dt);

				if (ismax ? v > bv : v < bv) {
					bv = v;
					best = k;
				}
			}
			nnl_storei(out[0], o * inner + i, ot, best);
		}
}

/*
 * The detection and data-dependent kernels (nnl's ops beyond WebNN:
 * topK, nonZero, unique; nonMaxSuppression, gridSample, roiAlign) work
 * in double; where nnl_real is float (rt.h: a Cortex-M without a
 * double FPU, where double is software) they are left out, and a graph
 * that uses one fails to compile there rather than run emulated double.
 */
#ifndef NNL_REAL_IS_FLOAT

/* Does item a (at a in the row, index ia) come before item b in the
 * order of topK?  Larger first (smaller first when !largest), NaN the
 * largest of all, equal items by their index. */
NNL_RT_INLINE int
nnl_topk_before(const void *x, int64_t dt, int64_t a, int64_t b,
    int64_t largest)
{
	int gt, lt;

	if (dt == NNL_F32 || dt == NNL_F16) {
		double u = nnl_loadf(x, a, dt), v = nnl_loadf(x, b, dt);

		gt = (u != u && v == v) || u > v;
		lt = (v != v && u == u) || u < v;
	} else if (dt == NNL_U64) {
		uint64_t u = ((const uint64_t *)x)[a];
		uint64_t v = ((const uint64_t *)x)[b];

		gt = u > v;
		lt = u < v;
	} else {
		int64_t u = nnl_loadi(x, a, dt), v = nnl_loadi(x, b, dt);

		gt = u > v;
		lt = u < v;
	}
	if (largest ? gt : lt)
		return 1;
	return !(largest ? lt : gt) && a < b;
}

/*
 * topK (nnl's): ip = dt, index type, element size, outer, n (the
 * axis), inner, k, largest.  Each row's indices are merge sorted,
 * bottom up, in scratch (2 (n + 1) int64); the first k are written
 * with their items.
 */
NNL_RT void
nnl_k_topk(const int64_t *ip, const double *fp, const void *const *in,
    void *const *out, void *scratch)
{
	int64_t dt = ip[0], it = ip[1], es = ip[2], outer = ip[3], n = ip[4],
	    inner = ip[5], k = ip[6], largest = ip[7];
	int64_t *a = scratch, *b = a + n + 1;

	(void)fp;
	for (int64_t o = 0; o < outer; o++)
		for (int64_t i = 0; i < inner; i++) {
			int64_t base = o * n * inner + i, *src = a, *dst = b;

			for (int64_t j = 0; j < n; j++)
				a[j] = base + j * inner;
			for (int64_t w = 1; w < n; w *= 2) {
				for (int64_t lo = 0; lo < n; lo += 2 * w) {
					int64_t m = lo + w < n ? lo + w : n;
					int64_t hi = m + w < n ? m + w : n;
					int64_t p = lo, q = m, d = lo;

					while (p < m && q < hi)
						dst[d++] = nnl_topk_before(
						    in[0], dt, src[q], src[p],
						    largest) ? src[q++] :
						    src[p++];
					while (p < m)
						dst[d++] = src[p++];
					while (q < hi)
						dst[d++] = src[q++];
				}
				int64_t *t = src;

				src = dst;
				dst = t;
			}
			for (int64_t j = 0; j < k; j++) {
				int64_t at = (o * k + j) * inner + i;

				NNL_MOVE(out[0], at, in[0], src[j], es);
				nnl_storei(out[1], at, it,
				    (src[j] - base) / inner);
			}
		}
}

/* Is item i of x (type dt) nonzero?  NaN is. */
NNL_RT_INLINE int
nnl_nonzero(const void *x, int64_t i, int64_t dt)
{
	if (dt == NNL_F32 || dt == NNL_F16)
		return nnl_loadf(x, i, dt) != 0;
	return nnl_loadi(x, i, dt) != 0;
}

/*
 * nonZero (nnl's): ip = dt, rank r, dims.  out[0] [r, numel] int64:
 * the indices of the nonzero items in row-major order, as the tensor
 * [r, count] packed at the front, then -1; out[1] that shape (r,
 * count).
 */
NNL_RT void
nnl_k_non_zero(const int64_t *ip, const double *fp, const void *const *in,
    void *const *out, void *scratch)
{
	int64_t dt = ip[0], r = ip[1];
	const int64_t *dims = ip + 2;
	int64_t n = nnl_numel((int)r, dims), cnt = 0, j = 0;
	int64_t *o = out[0];

	(void)fp;
	(void)scratch;
	for (int64_t i = 0; i < n; i++)
		cnt += nnl_nonzero(in[0], i, dt);
	for (int64_t i = 0; i < n; i++) {
		int64_t rem = i;

		if (!nnl_nonzero(in[0], i, dt))
			continue;
		for (int64_t d = r - 1; d >= 0; d--) {
			o[d * cnt + j] = rem % dims[d];
			rem /= dims[d];
		}
		j++;
	}
	for (int64_t i = r * cnt; i < r * n; i++)
		o[i] = -1;
	((int64_t *)out[1])[0] = r;
	((int64_t *)out[1])[1] = cnt;
}

/* Slices a and b of x ([outer, n, inner], type dt) compared: -1, 0, 1
 * (row-major, item by item; integers exactly). */
NNL_RT_INLINE int
nnl_unique_cmp(const void *x, int64_t dt, int64_t outer, int64_t n,
    int64_t inner, int64_t a, int64_t b)
{
	for (int64_t o = 0; o < outer; o++)
		for (int64_t i = 0; i < inner; i++) {
			int64_t p = (o * n + a) * inner + i;
			int64_t q = (o * n + b) * inner + i;

			if (dt == NNL_F32 || dt == NNL_F16) {
				double u = nnl_loadf(x, p, dt);
				double v = nnl_loadf(x, q, dt);

				if (u != v)
					return u < v ? -1 : 1;
			} else if (dt == NNL_U64) {
				uint64_t u = ((const uint64_t *)x)[p];
				uint64_t v = ((const uint64_t *)x)[q];

				if (u != v)
					return u < v ? -1 : 1;
			} else {
				int64_t u = nnl_loadi(x, p, dt);
				int64_t v = nnl_loadi(x, q, dt);

				if (u != v)
					return u < v ? -1 : 1;
			}
		}
	return 0;
}

/* Stable bottom-up merge sort of v[0..m) by key: slices of x when key
 * is NULL, else key[v[j]]; tmp as long as v. */
NNL_RT_INLINE void
nnl_unique_sort(int64_t *v, int64_t *tmp, int64_t m, const int64_t *key,
    const void *x, int64_t dt, int64_t outer, int64_t n, int64_t inner)
{
	for (int64_t w = 1; w < m; w *= 2) {
		for (int64_t lo = 0; lo < m; lo += 2 * w) {
			int64_t mid = lo + w < m ? lo + w : m;
			int64_t hi = mid + w < m ? mid + w : m;
			int64_t p = lo, q = mid, d = lo;

			while (p < mid && q < hi) {
				int later = key ? key[v[q]] < key[v[p]] :
				    nnl_unique_cmp(x, dt, outer, n, inner,
				    v[q], v[p]) < 0;

				tmp[d++] = later ? v[q++] : v[p++];
			}
			while (p < mid)
				tmp[d++] = v[p++];
			while (q < hi)
				tmp[d++] = v[q++];
		}
		for (int64_t j = 0; j < m; j++)
			v[j] = tmp[j];
	}
}

/*
 * unique (nnl's): ip = dt, element size, outer, n, inner, sorted,
 * axis, then the rank and dims of out[0] (n along the axis).  out[0]
 * the u distinct slices packed at the front (in sorted order, or of
 * first occurrence), zeros after; out[1] each one's first index, out[3]
 * its count (-1 and 0 after); out[2] each slice's place among them;
 * out[4..6] the actual shapes of out[0], out[1], out[3].  scratch:
 * 4 (n + 1) int64.
 */
NNL_RT void
nnl_k_unique(const int64_t *ip, const double *fp, const void *const *in,
    void *const *out, void *scratch)
{
	int64_t dt = ip[0], es = ip[1], outer = ip[2], n = ip[3],
	    inner = ip[4], sorted = ip[5], axis = ip[6], r = ip[7];
	const int64_t *dims = ip + 8;
	int64_t *ord = scratch, *tmp = ord + n + 1, *first = tmp + n + 1,
	    *grp = first + n + 1, u = 0;
	int64_t *idx = out[1], *inv = out[2], *cnt = out[3];

	(void)fp;
	for (int64_t j = 0; j < n; j++)
		ord[j] = j;
	nnl_unique_sort(ord, tmp, n, NULL, in[0], dt, outer, n, inner);
	for (int64_t j = 0; j < n; j++) {
		if (j == 0 || nnl_unique_cmp(in[0], dt, outer, n, inner,
		    ord[j - 1], ord[j]) != 0)
			first[u++] = ord[j];	/* stable: the lowest index */
		grp[ord[j]] = u - 1;
	}
	/* first[] by value; tmp[] the groups in output order */
	for (int64_t k = 0; k < u; k++)
		tmp[k] = k;
	if (!sorted)
		nnl_unique_sort(tmp, ord, u, first, NULL, dt, 0, 0, 0);
	for (int64_t k = 0; k < u; k++)
		ord[tmp[k]] = k;	/* group -> its place */
	for (int64_t k = 0; k < n; k++) {
		idx[k] = k < u ? first[tmp[k]] : -1;
		cnt[k] = 0;
	}
	for (int64_t j = 0; j < n; j++) {
		inv[j] = ord[grp[j]];
		cnt[inv[j]]++;
	}
	memset(out[0], 0, (size_t)(outer * n * inner * es));
	for (int64_t o = 0; o < outer; o++)
		for (int64_t k = 0; k < u; k++)
			for (int64_t i = 0; i < inner; i++)
				NNL_MOVE(out[0], (o * u + k) * inner + i, in[0],
				    (o * n + idx[k]) * inner + i, es);
	for (int64_t d = 0; d < r; d++)
		((int64_t *)out[4])[d] = d == axis ? u : dims[d];
	((int64_t *)out[5])[0] = u;
	((int64_t *)out[6])[0] = u;
}

#endif	/* NNL_REAL_IS_FLOAT */

/* The count of range's items, max(ceil((l - s) / dl), 0), when it is
 * at most bound; else -1 (and for a delta of 0 or NaN).  Integers
 * exactly, in uint64_t where l - s may not fit in int64_t; float32's
 * quotient in float, as ONNX computes it. */
NNL_RT_INLINE int64_t
nnl_range_count(const void *const *in, int64_t dt, int64_t bound)
{
	double q;

	if (nnl_isfloat(dt)) {
		double s = nnl_loadf(in[0], 0, dt);
		double l = nnl_loadf(in[1], 0, dt);
		double dl = nnl_loadf(in[2], 0, dt);

		q = dt == NNL_F32 ? (double)(((float)l - (float)s) /
		    (float)dl) : (l - s) / dl;
		q = ceil(q);
		if (dl == 0 || !(q == q) || q > (double)bound)
			return -1;
		return q > 0 ? (int64_t)q : 0;
	} else {
		int64_t s = nnl_loadi(in[0], 0, dt);
		int64_t l = nnl_loadi(in[1], 0, dt);
		int64_t dl = nnl_loadi(in[2], 0, dt);
		uint64_t ud, ul;

		if (dl == 0)
			return -1;
		if (dl > 0 ? l <= s : l >= s)
			return 0;
		ud = dl > 0 ? (uint64_t)l - (uint64_t)s : (uint64_t)s -
		    (uint64_t)l;
		ul = dl > 0 ? (uint64_t)dl : -(uint64_t)dl;
		ud = ud / ul + (ud % ul != 0);
		return ud > (uint64_t)bound ? -1 : (int64_t)ud;
	}
}

/*
 * range (nnl's): ip = dt, bound.  in: start, limit, delta (scalars of
 * type dt).  out[0] [bound]: start + i * delta for the count of items
 * (nnl_range_count), zeros after; out[1] int64 [1]: the count, or -1
 * and nothing written when it is past the bound or delta is 0.
 */
NNL_RT void
nnl_k_range(const int64_t *ip, const double *fp, const void *const *in,
    void *const *out, void *scratch)
{
	int64_t dt = ip[0], bound = ip[1];
	int64_t n = nnl_range_count(in, dt, bound);

	(void)fp;
	(void)scratch;
	((int64_t *)out[1])[0] = n;
	if (n < 0)
		return;
	if (nnl_isfloat(dt)) {
		double s = nnl_loadf(in[0], 0, dt), dl = nnl_loadf(in[2], 0,
		    dt);

		for (int64_t i = 0; i < bound; i++)
			nnl_storef(out[0], i, dt, i < n ? s + (double)i * dl :
			    0);
	} else {
		uint64_t s = (uint64_t)nnl_loadi(in[0], 0, dt);
		uint64_t dl = (uint64_t)nnl_loadi(in[2], 0, dt);

		/* wraps in uint64_t; every item lies between start and
		 * limit, so dt holds it */
		for (int64_t i = 0; i < bound; i++)
			nnl_storei(out[0], i, dt, i < n ? (int64_t)(s +
			    (uint64_t)i * dl) : 0);
	}
}

/*
 * constantOfShape (nnl's): ip = dt, rank r, bound; fp = value.  in:
 * the shape, int64 [r].  out[0] [bound, 1, ...]: value in the first
 * numel items, zeros after; out[1] int64 [r]: the shape, or -1 in
 * every entry and nothing written when a dimension is negative or the
 * numel is past the bound.
 */
NNL_RT void
nnl_k_constant_of_shape(const int64_t *ip, const double *fp,
    const void *const *in, void *const *out, void *scratch)
{
	int64_t dt = ip[0], r = ip[1], bound = ip[2], n = 1;
	const int64_t *s = in[0];
	int64_t *sh = out[1];

	(void)scratch;
	/* a dimension of 0 makes no item, whatever the others (a
	 * product of those before it past the bound included) */
	for (int64_t i = 0; i < r && n >= 0; i++)
		if (s[i] <= 0)
			n = s[i] < 0 ? -1 : 0;
	for (int64_t i = 0; i < r && n > 0; i++)
		if (n > bound / s[i])
			n = -1;
		else
			n *= s[i];
	if (n < 0 || n > bound) {
		for (int64_t i = 0; i < r; i++)
			sh[i] = -1;
		return;
	}
	for (int64_t i = 0; i < r; i++)
		sh[i] = s[i];
	for (int64_t i = 0; i < bound; i++)
		if (nnl_isfloat(dt))
			nnl_storef(out[0], i, dt, i < n ? fp[0] : 0);
		else
			nnl_storei(out[0], i, dt, i < n ?
			    nnl_dtoi_sat(fp[0], dt) : 0);
}

/* The spectrum bin of melWeightMatrix's point i of nmel + 2: from mel
 * ml in nmel + 2 steps of (mh - ml) / (nmel + 2), back to hertz, then
 * floor((len + 1) f / rate); a whole number in double, since it may lie
 * far past any bin (an upper edge of 1e30 Hz). */
NNL_RT_INLINE double
nnl_mel_point(int64_t i, int64_t nmel, int64_t len, int64_t rate, double ml,
    double mh)
{
	double f = ml + (mh - ml) * (double)i / (double)(nmel + 2);

	f = 700 * (pow(10, f / 2595) - 1);
	return floor((double)(len + 1) * f / (double)rate);
}

/*
 * melWeightMatrix (nnl's; ONNX's MelWeightMatrix): ip = dt, bound, the
 * integer inputs' type, the float inputs' type.  in: num_mel_bins,
 * dft_length, sample_rate, lower and upper edge in hertz (scalars).
 * out[0] [bound, 1]: the [len / 2 + 1, nmel] matrix in its first
 * items, zeros after: band i of triangles on the mel scale (mel(f) =
 * 2595 log10(1 + f / 700)) rises from 0 at point i (nnl_mel_point) to 1
 * at point i + 1 (1 there when the two meet) and falls to 0 at point
 * i + 2.  out[1] int64 [2]: its shape, or -1 in both and nothing
 * written when it is past the bound, a count is below 1 or the edges
 * are not 0 <= lower < upper.  The ONNX importer folds constant inputs
 * through this kernel.
 */
NNL_RT void
nnl_k_mel_weight_matrix(const int64_t *ip, const double *fp,
    const void *const *in, void *const *out, void *scratch)
{
	int64_t dt = ip[0], bound = ip[1], it = ip[2], ft = ip[3];
	int64_t nmel = nnl_loadi(in[0], 0, it), len = nnl_loadi(in[1], 0, it);
	int64_t rate = nnl_loadi(in[2], 0, it), bins = len / 2 + 1;
	double lo = nnl_loadf(in[3], 0, ft), hi = nnl_loadf(in[4], 0, ft);
	double ml, mh;
	int64_t *sh = out[1];

	(void)fp;
	(void)scratch;
	if (nmel < 1 || len < 1 || rate < 1 || !(lo >= 0) || !(hi > lo) ||
	    !(hi < HUGE_VAL) || nmel > bound / bins) {
		sh[0] = sh[1] = -1;
		return;
	}
	sh[0] = bins;
	sh[1] = nmel;
	ml = 2595 * log10(1 + lo / 700);
	mh = 2595 * log10(1 + hi / 700);
	for (int64_t i = 0; i < bound; i++)
		nnl_storef(out[0], i, dt, 0);
	for (int64_t i = 0; i < nmel; i++) {
		double a = nnl_mel_point(i, nmel, len, rate, ml, mh);
		double c = nnl_mel_point(i + 1, nmel, len, rate, ml, mh);
		double b = nnl_mel_point(i + 2, nmel, len, rate, ml, mh);

		/* the points are whole, 0 or more, a <= c <= b */
		for (int64_t j = a < (double)bins ? (int64_t)a : bins;
		    (double)j <= c && j < bins; j++)
			nnl_storef(out[0], j * nmel + i, dt, c == a ? 1 :
			    ((double)j - a) / (c - a));
		for (int64_t j = c < (double)bins ? (int64_t)c : bins;
		    (double)j < b && j < bins; j++)
			nnl_storef(out[0], j * nmel + i, dt,
			    (b - (double)j) / (b - c));
	}
}
