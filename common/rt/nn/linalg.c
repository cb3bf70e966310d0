/*
 * linalg: the plain kernels of nnl's numeric ops beyond WebNN, all in
 * double: matmul of float64 operands (what Einsum on float64 lowers
 * to), det (LU with partial pivoting, one matrix of a batch at a
 * time) and dft (the direct sum, O(n^2) a line, with one table of
 * twiddles).  Simple loops: correct first, for the sizes these ops
 * meet (a spectrum's few hundred bins, small matrices).
 */
#include "rt.h"

/*
 * matmul of float64 operands, the parameters of matmul_f32 (kern_nn.c,
 * prepare_matmul): M, N, K, R, the output's R batch dims, the batch
 * strides of a and of b, then lda, ta, ldb, tb (a matrix stored by
 * rows, or by columns when ta/tb).  No bias nor activation: nnl-fuse
 * fuses neither into a float64 product.
 */
NNL_RT void
nnl_k_matmul_f64(const int64_t *ip, const double *fp, const void *const *in,
    void *const *out, void *scratch)
{
	int64_t M = ip[0], N = ip[1], K = ip[2], R = ip[3];
	const int64_t *ob = ip + 4, *as = ob + R, *bs = as + R, *q = bs + R;
	int64_t lda = q[0], ta = q[1], ldb = q[2], tb = q[3];
	int64_t nb = nnl_numel((int)R, ob);
	const double *a = in[0], *b = in[1];
	double *y = out[0];

	(void)fp;
	(void)scratch;
	for (int64_t t = 0; t < nb; t++) {
		int64_t ai, bi;

		nnl_batchoff(t, R, ob, as, bs, &ai, &bi);
		for (int64_t i = 0; i < M; i++)
			for (int64_t j = 0; j < N; j++) {
				double s = 0;

				for (int64_t k = 0; k < K; k++)
					s += a[ai + (ta ? k * lda + i :
					    i * lda + k)] * b[bi + (tb ?
					    j * ldb + k : k * ldb + j)];
				y[(t * M + i) * N + j] = s;
			}
	}
}

/*
 * det: ip dt, nb matrices of n x n; each copied into scratch (n * n
 * doubles) and reduced by Gaussian elimination with partial pivoting
 * (the row of the largest magnitude in the column): the determinant is
 * the product of the pivots, its sign flipped by each row swap.  A
 * zero column gives 0; NaN propagates through the products.
 */
NNL_RT void
nnl_k_det(const int64_t *ip, const double *fp, const void *const *in,
    void *const *out, void *scratch)
{
	int64_t dt = ip[0], nb = ip[1], n = ip[2];
	double *m = scratch;

	(void)fp;
	for (int64_t t = 0; t < nb; t++) {
		double d = 1;

		for (int64_t i = 0; i < n * n; i++)
			m[i] = nnl_loadf(in[0], t * n * n + i, dt);
		for (int64_t c = 0; c < n && d != 0; c++) {
			int64_t p = c;

			for (int64_t r = c + 1; r < n; r++)
				if (fabs(m[r * n + c]) > fabs(m[p * n + c]))
					p = r;
			if (m[p * n + c] == 0) {
				d = 0;
				break;
			}
			if (p != c) {
				for (int64_t k = 0; k < n; k++) {
					double v = m[c * n + k];

					m[c * n + k] = m[p * n + k];
					m[p * n + k] = v;
				}
				d = -d;
			}
			d *= m[c * n + c];
			for (int64_t r = c + 1; r < n; r++) {
				double f = m[r * n + c] / m[c * n + c];

				for (int64_t k = c + 1; k < n; k++)
					m[r * n + k] -= f * m[c * n + k];
			}
		}
		nnl_storef(out[0], t, dt, d);
	}
}

/*
 * dft along one axis: ip dt, outer, len (the axis' size in the input),
 * inner, cin (1: real, 2: complex, the last axis), n (the transform's
 * length: the signal zero-padded or cut to it), bins (n, or n / 2 + 1
 * onesided), inverse.  Input [outer, len, inner, cin], output [outer,
 * bins, inner, 2]: y[k] = sum_j x[j] e^(-+2 pi i j k / n), divided by n
 * when inverse.  scratch: the n cosines and n sines of 2 pi m / n,
 * indexed by j k mod n, so that each twiddle is exact to the table's
 * rounding however long the sum.
 */
NNL_RT void
nnl_k_dft(const int64_t *ip, const double *fp, const void *const *in,
    void *const *out, void *scratch)
{
	int64_t dt = ip[0], outer = ip[1], len = ip[2], inner = ip[3];
	int64_t cin = ip[4], n = ip[5], bins = ip[6], inv = ip[7];
	int64_t used = len < n ? len : n;
	double *cs = scratch, *sn = cs + n, sg = inv ? 1 : -1;
	const double pi = 3.14159265358979323846;

	(void)fp;
	for (int64_t m = 0; m < n; m++) {
		cs[m] = cos(2 * pi * (double)m / (double)n);
		sn[m] = sin(2 * pi * (double)m / (double)n);
	}
	for (int64_t l = 0; l < outer * inner; l++) {
		int64_t o = l / inner, i = l % inner;

		for (int64_t k = 0; k < bins; k++) {
			int64_t y = ((o * bins + k) * inner + i) * 2;
			double re = 0, im = 0;

			for (int64_t j = 0; j < used; j++) {
				int64_t at = ((o * len + j) * inner + i) * cin;
				int64_t w = j * k % n;
				double xr = nnl_loadf(in[0], at, dt);
				double xi = cin == 2 ? nnl_loadf(in[0], at + 1,
				    dt) : 0;

				re += xr * cs[w] - sg * xi * sn[w];
				im += sg * xr * sn[w] + xi * cs[w];
			}
			if (inv) {
				re /= (double)n;
				im /= (double)n;
			}
			nnl_storef(out[0], y, dt, re);
			nnl_storef(out[0], y + 1, dt, im);
		}
	}
}
