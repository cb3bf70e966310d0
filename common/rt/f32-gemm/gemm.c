/*
 * gemm: the SGEMM driver every matrix product of the runtime shares
 * (conv2d, gemm, matmul).  It blocks the product for the caches (NC
 * columns of B, KC steps of K, MC rows of A), packs each block of B
 * and of A into the panel order a microkernel reads (gemm_f32_*.c),
 * zero-padding the ragged edges, and walks the tiles.  Full panels of
 * an operand already stored by k (A transposed and alpha 1, as a filter
 * [Kd, O]; B not transposed, as an image or im2col rows) are read in
 * place, with the matrix's row stride, instead of packed, and so is a
 * ragged panel of such an A (nnl_sgemm_ragged).  An operand stored by
 * rows of K (A not transposed, B transposed) is packed a vector of K
 * steps and of rows at a time, transposed in registers.  The
 * microkernel is chosen by table lookup: the first of nnl_gemm_kernels
 * that the machine runs.  A product of one to three rows or columns
 * skips the packing.
 */
#include "rt.h"
#include "vmath.h"

/* MC is a multiple of every tile's rows, NC of every tile's columns. */
enum { NNL_MC = 168, NNL_KC = 256, NNL_NC = 1024 };

/* The microkernels this build holds, best first (see rt.h). */
NNL_RT const struct nnl_gemm_kernel *
nnl_gemm_kernels(int *n)
{
	static const struct nnl_gemm_kernel k[] = {
#ifdef NNL_RT_AVX512
		{ "f32-14x32-avx512", 14, 32, NNL_ISA_AVX512,
		    nnl_gemm_f32_14x32_avx512, nnl_gemm_f32_8x32_avx512,
		    nnl_gemm_f32_4x32_avx512, nnl_gemm_f32_14x16_avx512 },
#endif
#ifdef NNL_RT_AVX2
		{ "f32-6x16-avx2", 6, 16, NNL_ISA_AVX2,
		    nnl_gemm_f32_6x16_avx2, 0, 0,
		    nnl_gemm_f32_6x8_avx2 },
#endif
#ifdef NNL_RT_NEON
		{ "f32-8x8-neon", 8, 8, NNL_ISA_NONE, nnl_gemm_f32_8x8_neon,
		    0, 0, 0 },
#endif
		{ "f32-4x8-scalar", 4, 8, NNL_ISA_NONE,
		    nnl_gemm_f32_4x8_scalar, 0, 0, 0 },
	};

	*n = (int)(sizeof k / sizeof k[0]);
	return k;
}

/* Whether this machine runs code for isa. */
NNL_RT int
nnl_gemm_runs(int isa)
{
#ifdef NNL_RT_RUNTIME
	if (isa == NNL_ISA_AVX512)
		return __builtin_cpu_supports("avx512f") &&
		    __builtin_cpu_supports("fma");
	if (isa == NNL_ISA_AVX2)
		return __builtin_cpu_supports("avx2") &&
		    __builtin_cpu_supports("fma");
#endif
	(void)isa;
	return 1;
}

/* The best microkernel this machine runs. */
NNL_RT const struct nnl_gemm_kernel *
nnl_gemm_best(void)
{
	int n;
	const struct nnl_gemm_kernel *k = nnl_gemm_kernels(&n);

	while (n > 1 && !nnl_gemm_runs(k->isa)) {
		k++;
		n--;
	}
	return k;
}

/* Floats of packing space for an M x N x K product, for any kernel. */
NNL_RT int64_t
nnl_packsize(int64_t M, int64_t N, int64_t K)
{
	int64_t mc = M < NNL_MC ? M : NNL_MC, kc = K < NNL_KC ? K : NNL_KC;
	int64_t nc = N < NNL_NC ? N : NNL_NC;

	if (M < 4)	/* nnl_sgemm_rows: no packing */
		return 0;
	return (mc + NNL_GEMM_MAXMR) * kc + kc * (nc + NNL_GEMM_MAXNR);
}

/* nr floats from s to d: a copy of constant size for the tile widths
 * there are, which the compiler makes a few vector moves (a call to
 * memcpy for each row costs more than the copy). */
NNL_RT_INLINE void
nnl_copy_nr(float *d, const float *s, int nr)
{
	switch (nr) {
	case 32:
		memcpy(d, s, 32 * sizeof *d);
		break;
	case 16:
		memcpy(d, s, 16 * sizeof *d);
		break;
	case 8:
		memcpy(d, s, 8 * sizeof *d);
		break;
	default:
		memcpy(d, s, (size_t)nr * sizeof *d);
	}
}

/*
 * alpha times h <= w rows of a matrix stored by rows (ld apart) as one
 * panel of w floats a step of K (kb steps), zero past h, where w is at
 * most NNL_VW or a multiple of it: NNL_VW steps of K and NNL_VW rows
 * at a time transposed in registers.  Where w is less than NNL_VW, a
 * step's w floats are stored as a whole vector whose lanes past them
 * the next step's store overwrites; the last one's lie past the panel,
 * on the next panel's start or in the packing space's slack
 * (nnl_packsize: NNL_GEMM_MAXMR rows and NNL_GEMM_MAXNR columns more).
 */
NNL_RT_INLINE void
nnl_pack_rows(int w, int64_t h, int64_t kb, float alpha, const float *A,
    int64_t ld, float *p)
{
	int64_t k = 0;

#if NNL_VW > 1 && defined(NNL_VSHUFFLE)
	for (; k + NNL_VW <= kb; k += NNL_VW)
		for (int g = 0; g < w; g += NNL_VW) {
			nnl_vf v[NNL_VW];

			for (int i = 0; i < NNL_VW; i++)
				v[i] = g + i < h ? nnl_vsplat(alpha) *
				    nnl_vload(A + (g + i) * ld + k) :
				    nnl_vsplat(0);
			nnl_vtranspose(v);
			for (int t = 0; t < NNL_VW; t++)
				nnl_vstore(p + (k + t) * w + g, v[t]);
		}
#endif
	for (; k < kb; k++)
		for (int i = 0; i < w; i++)
			p[k * w + i] = i < h ? alpha * A[i * ld + k] : 0;
}

/* Whether nnl_pack_rows packs panels of w in vectors. */
#if NNL_VW > 1 && defined(NNL_VSHUFFLE)
#define NNL_PACK_ROWS(w) ((w) <= NNL_VW || (w) % NNL_VW == 0)
#else
#define NNL_PACK_ROWS(w) 0
#endif

/* A kb x nb block of op(B) as nr-column panels.  Where B is stored by
 * k and the block is whole panels, a row of B at a time: the reads
 * stream through memory. */
NNL_RT_INLINE void
nnl_pack_b(int nr, int64_t kb, int64_t nb, const float *B, int64_t ldb,
    int tb, float *bp)
{
	if (!tb && nb % nr == 0) {
		for (int64_t k = 0; k < kb; k++)
			for (int64_t j0 = 0; j0 < nb; j0 += nr)
				nnl_copy_nr(bp + j0 * kb + k * nr,
				    B + k * ldb + j0, nr);
		return;
	}
	for (int64_t j0 = 0; j0 < nb; j0 += nr, bp += kb * nr) {
		int64_t w = nb - j0 < nr ? nb - j0 : nr;

		if (tb && NNL_PACK_ROWS(nr)) {
			nnl_pack_rows(nr, w, kb, 1, B + j0 * ldb, ldb, bp);
			continue;
		}
		if (!tb) {
			for (int64_t k = 0; k < kb; k++) {
				const float *s = B + k * ldb + j0;
				float *d = bp + k * nr;
				int64_t j = 0;

				if (w == nr) {
					nnl_copy_nr(d, s, nr);
					continue;
				}
				for (; j < w; j++)
					d[j] = s[j];
				for (; j < nr; j++)
					d[j] = 0;
			}
		} else {
			for (int64_t j = 0; j < nr; j++) {
				const float *s = B + (j0 + j) * ldb;

				for (int64_t k = 0; k < kb; k++)
					bp[k * nr + j] = j < w ? s[k] : 0;
			}
		}
	}
}

/* alpha times op(A)'s block as mr-row panels. */
NNL_RT_INLINE void
nnl_pack_a(int mr, int64_t mb, int64_t kb, float alpha, const float *A,
    int64_t lda, int ta, float *ap)
{
	for (int64_t i0 = 0; i0 < mb; i0 += mr, ap += kb * mr) {
		int64_t h = mb - i0 < mr ? mb - i0 : mr;

		if (!ta && NNL_PACK_ROWS(mr)) {
			nnl_pack_rows(mr, h, kb, alpha, A + i0 * lda, lda, ap);
			continue;
		}
		if (ta) {
			for (int64_t k = 0; k < kb; k++) {
				const float *s = A + k * lda + i0;
				float *d = ap + k * mr;
				int64_t i = 0;

				for (; i < h; i++)
					d[i] = alpha * s[i];
				for (; i < mr; i++)
					d[i] = 0;
			}
		} else {
			for (int64_t i = 0; i < h; i++) {
				const float *s = A + (i0 + i) * lda;

				for (int64_t k = 0; k < kb; k++)
					ap[k * mr + i] = alpha * s[k];
			}
			for (int64_t i = h; i < mr; i++)
				for (int64_t k = 0; k < kb; k++)
					ap[k * mr + i] = 0;
		}
	}
}

/* The dot product of K floats at a and b, in NNL_VW lanes of four
 * vectors where there are vectors (rt.h). */
NNL_RT_INLINE float
nnl_sdot(int64_t K, const float *a, const float *b)
{
	float s = 0;
	int64_t k = 0;

#if NNL_VW > 1
	if (K >= 4 * NNL_VW) {
		nnl_vf s0 = nnl_vsplat(0), s1 = s0, s2 = s0, s3 = s0;
		float t[NNL_VW];

		for (; k < K - K % (4 * NNL_VW); k += 4 * NNL_VW) {
			s0 += nnl_vload(a + k) * nnl_vload(b + k);
			s1 += nnl_vload(a + k + NNL_VW) *
			    nnl_vload(b + k + NNL_VW);
			s2 += nnl_vload(a + k + 2 * NNL_VW) *
			    nnl_vload(b + k + 2 * NNL_VW);
			s3 += nnl_vload(a + k + 3 * NNL_VW) *
			    nnl_vload(b + k + 3 * NNL_VW);
		}
		for (; k < K - K % NNL_VW; k += NNL_VW)
			s0 += nnl_vload(a + k) * nnl_vload(b + k);
		nnl_vstore(t, (s0 + s1) + (s2 + s3));
		for (int i = 0; i < NNL_VW; i++)
			s += t[i];
	}
#endif
	for (; k < K; k++)
		s += a[k] * b[k];
	return s;
}

/* c[0:N] += a * b[0:N] */
NNL_RT_INLINE void
nnl_saxpy(int64_t N, float a, const float *b, float *c)
{
	int64_t j = 0;

#if NNL_VW > 1
	for (; j < N - N % NNL_VW; j += NNL_VW)
		nnl_vstore(c + j, nnl_vload(c + j) + nnl_vsplat(a) *
		    nnl_vload(b + j));
#endif
	for (; j < N; j++)
		c[j] += a * b[j];
}

/* A product of few rows: one pass over B, no packing. */
NNL_RT_INLINE void
nnl_sgemm_rows(int64_t M, int64_t N, int64_t K, float alpha,
    const float *A, int64_t lda, int ta, const float *B, int64_t ldb,
    int tb, float *C, int64_t ldc)
{
	for (int64_t i = 0; i < M; i++) {
		float *restrict c = C + i * ldc;

		if (tb && (!ta || K == 1 || lda == 1)) {
			/* row i of op(A) is contiguous */
			const float *a = ta ? A + i : A + i * lda;

			for (int64_t j = 0; j < N; j++)
				c[j] += alpha * nnl_sdot(K, a, B + j * ldb);
		} else if (tb) {
			for (int64_t j = 0; j < N; j++) {
				const float *restrict b = B + j * ldb;
				float s = 0;

				for (int64_t k = 0; k < K; k++)
					s += A[k * lda + i] * b[k];
				c[j] += alpha * s;
			}
		} else {
			for (int64_t k = 0; k < K; k++)
				nnl_saxpy(N, alpha * (ta ? A[k * lda + i] :
				    A[i * lda + k]), B + k * ldb, c);
		}
	}
}

/*
 * R vectors of NNL_VW rows of column j of C, rows i on, += alpha op(A)
 * op(B), for A stored by k (A[k * lda + i]): one pass down A, b's
 * numbers (step bs apart) broadcast.  Past row M (R = 1 and h < NNL_VW
 * rows left) the last step's rows come from a copy, as A may end
 * there; the others are read in place (lda >= NNL_VW) and dropped.
 * Each row's sum runs over k in order whatever R is: the same floats
 * wherever the blocks start.  (Without vectors nnl_sgemm_cols does
 * not call it.)
 */
NNL_RT_INLINE void
nnl_sgemm_colvec(const int R, int64_t K, float alpha, const float *A,
    int64_t lda, const float *b, int64_t bs, float *c, int64_t ldc,
    int64_t h)
{
#if NNL_VW > 1
	nnl_vf acc[4], z = nnl_vsplat(0);
	float t[4 * NNL_VW];
	int64_t k = 0, kl = h < NNL_VW ? K - 1 : K;

	for (int r = 0; r < R; r++)
		acc[r] = z;
	for (; k < kl; k++) {
		nnl_vf x = nnl_vsplat(b[k * bs]);

		for (int r = 0; r < R; r++)
			acc[r] += nnl_vload(A + k * lda + r * NNL_VW) * x;
	}
	if (k < K) {
		float last[NNL_VW] = { 0 };

		memcpy(last, A + k * lda, (size_t)h * sizeof *last);
		acc[0] += nnl_vload(last) * nnl_vsplat(b[k * bs]);
	}
	for (int r = 0; r < R; r++)
		nnl_vstore(t + r * NNL_VW, acc[r] * nnl_vsplat(alpha));
	for (int64_t i = 0; i < h; i++)
		c[i * ldc] += t[i];
#else
	(void)R, (void)K, (void)alpha, (void)A, (void)lda, (void)b, (void)bs,
	    (void)c, (void)ldc, (void)h;
#endif
}

/*
 * A product of few columns (a matrix times a vector or three): one
 * pass over A, no packing.  A stored by k, as a 1x1 convolution's
 * filter [C, O] on a 1x1 image (squeeze-and-excite), goes down its
 * rows in vectors of rows of C; A stored by rows, a dot product a row.
 */
NNL_RT_INLINE void
nnl_sgemm_cols(int64_t M, int64_t N, int64_t K, float alpha,
    const float *A, int64_t lda, int ta, const float *B, int64_t ldb,
    int tb, float *C, int64_t ldc)
{
	for (int64_t j = 0; j < N; j++) {
		const float *b = tb ? B + j * ldb : B + j;
		int64_t bs = tb ? 1 : ldb, i = 0;
		float *c = C + j;

		if (!ta || NNL_VW == 1 || lda < NNL_VW) {
			for (; i < M; i++) {
				float s = 0;

				if (!ta && bs == 1)
					s = nnl_sdot(K, A + i * lda, b);
				else
					for (int64_t k = 0; k < K; k++)
						s += (ta ? A[k * lda + i] :
						    A[i * lda + k]) * b[k * bs];
				c[i * ldc] += alpha * s;
			}
			continue;
		}
		for (; i + 4 * NNL_VW <= M; i += 4 * NNL_VW)
			nnl_sgemm_colvec(4, K, alpha, A + i, lda, b, bs,
			    c + i * ldc, ldc, 4 * NNL_VW);
		for (; i + NNL_VW <= M; i += NNL_VW)
			nnl_sgemm_colvec(1, K, alpha, A + i, lda, b, bs,
			    c + i * ldc, ldc, NNL_VW);
		if (i < M)
			nnl_sgemm_colvec(1, K, alpha, A + i, lda, b, bs,
			    c + i * ldc, ldc, M - i);
	}
}

/* The epilogue's start for rows [i0, i0 + m) and columns [j0, j0 + n)
 * of C, at c. */
NNL_RT_INLINE void
nnl_epi_init(const struct nnl_gemm_epi *e, float *c, int64_t ldc,
    int64_t i0, int64_t j0, int64_t m, int64_t n)
{
	if (!e || !e->init)
		return;
	for (int64_t i = 0; i < m; i++, c += ldc) {
		float v = e->rb ? e->rb[i0 + i] : 0;
		int64_t j = 0;

		if (e->cb) {
			memcpy(c, e->cb + j0, (size_t)n * sizeof *c);
			continue;
		}
#if NNL_VW > 1
		for (; j < n - n % NNL_VW; j += NNL_VW)
			nnl_vstore(c + j, nnl_vsplat(v));
#endif
		for (; j < n; j++)
			c[j] = v;
	}
}

/* The epilogue's end for m x n of C at c, at offset off from C's
 * start: the residual, then the activation. */
NNL_RT_INLINE void
nnl_epi_act(const struct nnl_gemm_epi *e, float *c, int64_t off,
    int64_t ldc, int64_t m, int64_t n)
{
	if (e && e->res)
		for (int64_t i = 0; i < m; i++, c += ldc)
			nnl_addact(c, e->res + off + i * ldc, n, e->act, e->lo,
			    e->hi);
	else if (e && e->act)
		for (int64_t i = 0; i < m; i++, c += ldc)
			nnl_activate(c, n, e->act, e->lo, e->hi);
}

/*
 * The last kb steps of K of a ragged panel of A (m < mr rows) read in
 * place: its rows past m are the next step's numbers, whose products
 * the microkernel computes and drops, but past the last step they are
 * past the end of A, so that step comes from a copy.  The tile t
 * starts the first call and ends the second.
 */
NNL_RT_INLINE void
nnl_sgemm_ragged(const struct nnl_gemm_kernel *u, nnl_gemm_fn *fn,
    int64_t kb, const float *a, int64_t lda, const float *b, int64_t bs,
    float *c, int64_t ldc, int64_t m, int64_t n,
    const struct nnl_gemm_tile *t)
{
	float last[NNL_GEMM_MAXMR] = { 0 };
	struct nnl_gemm_tile t0 = *t, t1 = { 1, 0, 0, t->act, t->lo, t->hi };

	for (int64_t i = 0; i < m; i++)
		last[i] = a[(kb - 1) * lda + i];
	if (kb > 1) {
		t0.act = NNL_ACT_NONE;
		fn(kb - 1, a, lda, b, bs, c, ldc, m, n, &t0);
	} else
		t1 = *t;
	fn(1, last, u->mr, b + (kb - 1) * bs, bs, c, ldc, m, n, &t1);
}

/*
 * Rows of the tile that starts rem rows before a block's end: a whole
 * tile, or the rest; but where the rest would be a tile and one or two
 * rows, and A is read in place (ia: a tile may start at any row), two
 * tiles of the 8-row variant, which multiply 16 rows where a tile and
 * the 4-row variant multiply 18.
 */
NNL_RT_INLINE int64_t
nnl_gemm_rows(const struct nnl_gemm_kernel *u, int64_t rem, int ia)
{
	if (rem <= u->mr)
		return rem;
	if (ia && u->fn8 && rem <= u->mr + 2 && rem <= 16)
		return 8;
	return u->mr;
}

/*
 * The tile of C at rows i, columns j: where it starts (on the first
 * steps of K, pc 0, from e's bias or zero if e inits C; else from C)
 * and the activation it ends with on the last (relu, clamp and
 * hardswish in the microkernel; the others, nnl_epi_act after it).
 */
NNL_RT_INLINE struct nnl_gemm_tile
nnl_tile(const struct nnl_gemm_epi *e, int64_t i, int64_t j, int first,
    int last)
{
	struct nnl_gemm_tile t = { 1, 0, 0, NNL_ACT_NONE, 0, 0 };

	if (!e)
		return t;
	if (first && e->init) {
		t.load = 0;
		t.cb = e->cb ? e->cb + j : 0;
		t.rb = e->rb && !e->cb ? e->rb + i : 0;
	}
	if (last && nnl_act_tiles(e->act) && !e->res) {
		t.act = e->act;
		t.lo = e->lo;
		t.hi = e->hi;
	}
	return t;
}

/*
 * C[M,N] (row stride ldc) += alpha * op(A) * op(B) through the
 * microkernel u; op(A) is M x K, op(B) K x N; element (i,k) of A is
 * A[k*lda+i] when ta, A[i*lda+k] otherwise, and likewise for B.  pack
 * holds nnl_packsize(M, N, K) floats (with M at least 4); e, if not
 * null, the epilogue.
 */
NNL_RT void
nnl_sgemm_with(const struct nnl_gemm_kernel *u, int64_t M, int64_t N,
    int64_t K, float alpha, const float *A, int64_t lda, int ta,
    const float *B, int64_t ldb, int tb, float *C, int64_t ldc, float *pack,
    const struct nnl_gemm_epi *e)
{
	int mr = u->mr, nr = u->nr;
	float *ap = pack;
	float *bp = pack + ((M < NNL_MC ? M : NNL_MC) + NNL_GEMM_MAXMR) *
	    (K < NNL_KC ? K : NNL_KC);
	/* full panels read in place: A's when it is stored by k and not
	 * scaled (a filter [Kd, O]), B's when stored by k; where A's rows
	 * are at least a tile apart, its ragged panel too (see below) */
	int da = ta && alpha == 1, db = !tb && !(e && e->packb);
	int dr = da && lda >= NNL_GEMM_MAXMR;
	int room = dr && e && e->aroom;	/* its last step in place too */
	int bq = e && e->bp32;	/* B in panels of 32 columns: in place */
	/* blocks of at most NNL_MC rows, as even as whole tiles make
	 * them: 169 rows are 98 and 71, not 168 and one row alone */
	int64_t nbk = (M + NNL_MC - 1) / NNL_MC;
	int64_t mc = ((M + nbk - 1) / nbk + mr - 1) / mr * mr;

	if (mc > NNL_MC)
		mc = NNL_MC;

	for (int64_t jc = 0; jc < N; jc += NNL_NC) {
		int64_t nb = N - jc < NNL_NC ? N - jc : NNL_NC;
		int64_t nf = bq ? nb : db ? nb / nr * nr : 0;	/* in place */

		for (int64_t pc = 0; pc < K; pc += NNL_KC) {
			int64_t kb = K - pc < NNL_KC ? K - pc : NNL_KC;
			const float *b0 = tb ? B + jc * ldb + pc :
			    B + pc * ldb + jc;

			nnl_pack_b(nr, kb, nb - nf, tb ? b0 + nf * ldb :
			    b0 + nf, ldb, tb, bp + nf * kb);
			for (int64_t ic = 0; ic < M; ic += mc) {
				int64_t mb = M - ic < mc ? M - ic : mc;
				int64_t mf = dr ? mb : da ? mb / mr * mr : 0;
				const float *a0 = ta ? A + pc * lda + ic :
				    A + ic * lda + pc;

				nnl_pack_a(mr, mb - mf, kb, alpha, ta ?
				    a0 + mf : a0 + mf * lda, lda, ta,
				    ap + mf * kb);
				for (int64_t j0 = 0; j0 < nb; j0 += nr)
				for (int64_t i0 = 0, m; i0 < mb; i0 += m) {
					float *c = C + (ic + i0) * ldc + jc +
					    j0;
					int64_t n = nb - j0 < nr ? nb - j0 : nr;
					int ia = i0 < mf, ib = j0 < nf;

					const float *pb = bq ? B + (jc + j0) /
					    32 * K * 32 + pc * 32 + (jc + j0) %
					    32 : ib ? b0 + j0 : bp + j0 * kb;
					int64_t bs = bq ? 32 : ib ? ldb : nr;

					int last = pc + kb == K;
					struct nnl_gemm_tile t = nnl_tile(e,
					    ic + i0, jc + j0, pc == 0, last);

					nnl_gemm_fn *fn;
					int R;	/* rows fn reads */

					m = nnl_gemm_rows(u, mb - i0, ia);
					fn = nnl_gemm_tilefn(u, m, n, &R);
					if (ia && m < R && last && !room)
						nnl_sgemm_ragged(u, fn, kb,
						    a0 + i0, lda, pb, bs, c,
						    ldc, m, n, &t);
					else
						fn(kb, ia ? a0 + i0 :
						    ap + i0 * kb, ia ? lda : mr,
						    pb, bs, c, ldc, m, n, &t);
					if (last && t.act == NNL_ACT_NONE)
						nnl_epi_act(e, c, c - C, ldc,
						    m, n);
				}
			}
		}
	}
}

/* Rows [i0, i0 + M) of a product of few columns (nnl_sgemm_cols) with
 * its epilogue; A and C start at row i0.  One column of unit stride
 * goes through the activation as one row. */
NNL_RT_INLINE void
nnl_sgemm_cols_epi(const struct nnl_gemm_epi *e, int64_t i0, int64_t M,
    int64_t N, int64_t K, float alpha, const float *A, int64_t lda, int ta,
    const float *B, int64_t ldb, int tb, float *C, int64_t ldc)
{
	nnl_epi_init(e, C, ldc, i0, 0, M, N);
	nnl_sgemm_cols(M, N, K, alpha, A, lda, ta, B, ldb, tb, C, ldc);
	if (N == 1 && ldc == 1)
		nnl_epi_act(e, C, i0, M, 1, M);
	else
		nnl_epi_act(e, C, i0 * ldc, ldc, M, N);
}

/* The same with the best microkernel this machine runs. */
NNL_RT void
nnl_sgemm(int64_t M, int64_t N, int64_t K, float alpha, const float *A,
    int64_t lda, int ta, const float *B, int64_t ldb, int tb, float *C,
    int64_t ldc, float *pack, const struct nnl_gemm_epi *e)
{
	const struct nnl_gemm_kernel *k;

	if (M < 4 || K == 0) {
#ifdef NNL_RT_THREADS
		if (nnl_par_sgemm_rows(M, N, K, alpha, A, lda, ta, B, ldb, tb,
		    C, ldc, e))
			return;
#endif
		nnl_epi_init(e, C, ldc, 0, 0, M, N);
		nnl_sgemm_rows(M, N, K, alpha, A, lda, ta, B, ldb, tb, C, ldc);
		nnl_epi_act(e, C, 0, ldc, M, N);
		return;
	}
	if (N < 4) {
#ifdef NNL_RT_THREADS
		if (nnl_par_sgemm_cols(M, N, K, alpha, A, lda, ta, B, ldb, tb,
		    C, ldc, e))
			return;
#endif
		nnl_sgemm_cols_epi(e, 0, M, N, K, alpha, A, lda, ta, B, ldb,
		    tb, C, ldc);
		return;
	}
	k = nnl_gemm_best();
#ifdef NNL_RT_THREADS
	if (nnl_par_sgemm(k, M, N, K, alpha, A, lda, ta, B, ldb, tb, C, ldc,
	    pack, e))
		return;
#endif
	nnl_sgemm_with(k, M, N, K, alpha, A, lda, ta, B, ldb, tb, C, ldc,
	    pack, e);
}
