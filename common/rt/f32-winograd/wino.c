/*
 * wino: 3 x 3 convolutions at stride 1 by Winograd's minimal filtering
 * F(2 x 2, 3 x 3) (Lavin and Gray, 2015): each 2 x 2 tile of the output
 * comes from a 4 x 4 tile of the input in 16 products instead of 36.
 * With d an input tile, g a filter and
 *
 *	B^T = [ 1  0 -1  0 ]	G = [  1    0    0  ]	A^T = [ 1 1  1  0 ]
 *	      [ 0  1  1  0 ]	    [ 1/2  1/2  1/2 ]	      [ 0 1 -1 -1 ]
 *	      [ 0 -1  1  0 ]	    [ 1/2 -1/2  1/2 ]
 *	      [ 0  1  0 -1 ]	    [  0    0    1  ]
 *
 * the output tile is A^T [(G g G^T) . (B^T d B)] A.  nnl-fuse computes
 * U = G g G^T at compile time (common/fuse.c), stored [4][4][C][O]; so
 * for each of the 16 points xi of the transformed tile the sums over
 * input channels are one matrix product, M_xi[O][T] = U_xi^T V_xi, on
 * the SGEMM of gemm.c, over a block of T tiles whose transformed input
 * V_xi[C][T] is in the scratch; or, where the tiles would fill the
 * microkernel's columns worse than the output channels do (49 tiles of
 * 13 x 13 outputs: 64 columns computed), M_xi[T][O] = V_xi^T U_xi with
 * the tiles as rows, whose output transform writes the block's output
 * rows channels last, transposed into the planes after
 * (nnl_wino_flip).  Both read their operands where they are, packing
 * only a ragged panel.  The transforms only add and subtract;
 * against direct convolution the result differs by rounding of the
 * order of the filter's and tile's magnitudes times 2^-22 (the halves
 * of G are exact), within the back end's 1e-5.
 *
 * The scratch (nnl_wino_scratch floats): V, then M, then the staging
 * area of the products by tiles, then the SGEMM's packing space, then
 * four padded input rows; with threads (par.c), a packing space and
 * four rows for each.  Threads take whole rows of tiles each, with a
 * scratch of all of these each (nnl_wino_byrows), where the rows share
 * out evenly enough; else they transform the input a channel at a time
 * and the output an output channel at a time, and split each product
 * as par.c does.  Either way the result is the same bits as on one
 * thread: every row of M is the same sums in any block (a ragged panel
 * of the tiles as rows is read in place, with the room past it, in one
 * call of the microkernel).
 */
#include "rt.h"
#include "vmath.h"

/* Floats of V and M of a block: the block's tiles are whole rows of
 * tiles, as many as fit this, and at least one row.  Sizes allow for
 * vectors of NNL_WINO_VW floats, the widest there is, so that libnnl
 * (which plans the scratch) and generated code built for any vector
 * width agree on them. */
enum { NNL_WINO_BLOCK = 1048576, NNL_WINO_VW = 16 };

/* Tile rows of a block of one of T parts of the image by rows
 * (nnl_wino_byrows; T = 1: the image whole): as many as fit a T-th of
 * the budget, at least one, at most the part's. */
NNL_RT_INLINE int64_t
nnl_wino_rows(int64_t C, int64_t O, int64_t OH, int64_t OW, int64_t T)
{
	int64_t th = (OH + 1) / 2, tw = (OW + 1) / 2, per = (th + T - 1) / T;
	int64_t r = NNL_WINO_BLOCK / (T * 16 * (C + O) * (tw > 0 ? tw : 1));

	return r < 1 ? 1 : r > per ? per : r;
}

/* Floats of a padded input row: the tiles' columns and a vector's
 * strided loads past them. */
NNL_RT_INLINE int64_t
nnl_wino_width(int64_t OW)
{
	return 2 * ((OW + 1) / 2) + 2 + 2 * NNL_WINO_VW;
}

/* Floats of a thread's packing space: for the products either way
 * round (nnl_wino_flip), t tiles a block. */
NNL_RT_INLINE int64_t
nnl_wino_ps(int64_t C, int64_t O, int64_t t)
{
	int64_t a = nnl_packsize(O < 4 ? 4 : O, t, C);
	int64_t b = nnl_packsize(t < 4 ? 4 : t, O, C);

	return a > b ? a : b;
}

/* Floats of the output rows of a block of r rows of tiles, channels
 * last, that the products by tiles (nnl_wino_flip) are transformed into
 * before they are transposed into the output, and a vector's room. */
NNL_RT_INLINE int64_t
nnl_wino_staged(int64_t r, int64_t O, int64_t OH, int64_t OW)
{
	return (2 * r < OH ? 2 * r : OH) * OW * O + NNL_WINO_VW;
}

/* Blocks of fewer multiply-adds than this run on one thread: waking
 * the pool and moving the block's data between cores cost more. */
enum { NNL_WINO_MINPAR = 1 << 20 };

/*
 * Whether T threads split the image by rows of tiles: part i of T
 * takes tile rows [th i / T, th (i + 1) / T) through all three steps
 * (input transform, products, output transform) in its own V, M,
 * staging area, packing space and input rows, so that what a thread
 * writes only it reads, and a layer is one run of the pool.  Taken
 * where the rows share out within 1/8 of evenly (7 rows of tiles on
 * two threads: 4 and 3); else threads share each block's steps by
 * channels, which moves the transformed input between cores.
 */
NNL_RT_INLINE int
nnl_wino_byrows(int64_t C, int64_t O, int64_t OH, int64_t OW, int64_t T)
{
	int64_t th = (OH + 1) / 2, tw = (OW + 1) / 2, per = (th + T - 1) / T;

	return T >= 2 && th >= T && 8 * th >= 7 * T * per && 16.0 *
	    (double)(th * tw) * (double)C * (double)O >= NNL_WINO_MINPAR;
}

/* Floats of scratch of one of T parts by rows: its V and M, staging
 * area, packing space and four input rows. */
NNL_RT_INLINE int64_t
nnl_wino_part_scratch(int64_t C, int64_t O, int64_t OH, int64_t OW,
    int64_t T)
{
	int64_t r = nnl_wino_rows(C, O, OH, OW, T), t = r * ((OW + 1) / 2);

	return 16 * (C + O) * (t + NNL_WINO_VW) + nnl_wino_staged(r, O, OH,
	    OW) + nnl_wino_ps(C, O, t) + 4 * nnl_wino_width(OW);
}

/* Floats of scratch for threads threads (1 without par.c). */
NNL_RT int64_t
nnl_wino_scratch(int64_t C, int64_t O, int64_t OH, int64_t OW,
    int64_t threads)
{
	int64_t r = nnl_wino_rows(C, O, OH, OW, 1), t = r * ((OW + 1) / 2);

	if (nnl_wino_byrows(C, O, OH, OW, threads))
		return threads * nnl_wino_part_scratch(C, O, OH, OW, threads);
	return 16 * (C + O) * (t + NNL_WINO_VW) + nnl_wino_staged(r, O, OH,
	    OW) + threads * (nnl_wino_ps(C, O, t) + 4 * nnl_wino_width(OW));
}

/*
 * Whether the products of a block of T tiles are better taken with
 * the tiles as rows of M (M[xi][t][o] = V_xi^T U_xi) than as its
 * columns: the microkernel's tiles are nr columns wide, so a product
 * computes as many columns as whole tiles hold, and 49 tiles (13 x 13
 * or 14 x 14 outputs) are 64 columns, but 192 output channels are six
 * tiles exactly.  Rows cost nothing past the last (the microkernel has
 * variants of fewer).  Taken where it computes at least 1/25 fewer
 * columns: the output then goes through a staging area and a
 * transpose.
 */
NNL_RT_INLINE int
nnl_wino_flip(const struct nnl_gemm_kernel *u, int64_t T, int64_t O)
{
	int64_t nr = u->nr, ct = (T + nr - 1) / nr, co = (O + nr - 1) / nr;

	/* O / (co nr) > T / (ct nr) + 1/25 */
	return T >= 4 && 25 * O * ct > 25 * T * co + ct * co * nr;
}

/* Threads of the code (par.c; its blocks have no #else: see emitc.c) */
#ifndef NNL_RT_THREADS
#define NNL_WINO_T 1
#endif
#ifdef NNL_RT_THREADS
#define NNL_WINO_T NNL_RT_THREADS
#endif

/* B^T d B of one tile's rows d0..d3 (four columns each), by lanes:
 * v[4 r + s] for row r, column s of the transformed tile. */
#define NNL_WINO_IN(T, d, v) do { \
	T t0[4], t1[4], t2[4], t3[4]; \
	for (int s_ = 0; s_ < 4; s_++) { \
		t0[s_] = d[0][s_] - d[2][s_]; \
		t1[s_] = d[1][s_] + d[2][s_]; \
		t2[s_] = d[2][s_] - d[1][s_]; \
		t3[s_] = d[1][s_] - d[3][s_]; \
	} \
	T *tr_[4] = { t0, t1, t2, t3 }; \
	for (int r_ = 0; r_ < 4; r_++) { \
		T *u_ = tr_[r_]; \
		v[4 * r_ + 0] = u_[0] - u_[2]; \
		v[4 * r_ + 1] = u_[1] + u_[2]; \
		v[4 * r_ + 2] = u_[2] - u_[1]; \
		v[4 * r_ + 3] = u_[1] - u_[3]; \
	} \
} while (0)

/* A^T m A of a transformed output tile m[16]: y[0..3] the output's
 * (0,0), (0,1), (1,0), (1,1), each plus b. */
#define NNL_WINO_OUT(T, m, b, y) do { \
	T u0_[4], u1_[4]; \
	for (int s_ = 0; s_ < 4; s_++) { \
		u0_[s_] = m[s_] + m[4 + s_] + m[8 + s_]; \
		u1_[s_] = m[4 + s_] - m[8 + s_] - m[12 + s_]; \
	} \
	y[0] = b + (u0_[0] + u0_[1] + u0_[2]); \
	y[1] = b + (u0_[1] - u0_[2] - u0_[3]); \
	y[2] = b + (u1_[0] + u1_[1] + u1_[2]); \
	y[3] = b + (u1_[1] - u1_[2] - u1_[3]); \
} while (0)

/* V of the block of tile rows [ty0, ty0 + rows) of channel plane xc:
 * V[xi][c][t] for tile t of the block, ld floats a row. */
NNL_RT_INLINE void
nnl_wino_input(const float *xc, int64_t c, int64_t C, int64_t H, int64_t W,
    int64_t ty0, int64_t rows, int64_t tw, int64_t pt, int64_t pl,
    float *V, int64_t ld, float *rb, int64_t rw)
{
	for (int64_t ty = ty0; ty < ty0 + rows; ty++) {
		float *v0 = V + c * ld + (ty - ty0) * tw;
		int64_t tx = 0;

		/* the tile row's four input rows, zero-padded */
		for (int r = 0; r < 4; r++) {
			int64_t iy = 2 * ty - pt + r;
			float *d = rb + r * rw;

			int64_t n = W < rw - pl ? W : rw - pl;

			if (iy < 0 || iy >= H || n <= 0) {
				memset(d, 0, (size_t)rw * sizeof *d);
				continue;
			}
			memset(d, 0, (size_t)pl * sizeof *d);
			memcpy(d + pl, xc + iy * W, (size_t)n * sizeof *d);
			memset(d + pl + n, 0, (size_t)(rw - pl - n) *
			    sizeof *d);
		}
#if NNL_VW > 1 && defined(NNL_VSHUFFLE)
		for (; tx < tw; tx += NNL_VW) {
			nnl_vf d[4][4], v[16];

			for (int r = 0; r < 4; r++)
				for (int s = 0; s < 4; s++)
					d[r][s] = nnl_vload_s(rb + r * rw +
					    2 * tx + s, 2);
			NNL_WINO_IN(nnl_vf, d, v);
			/* past the row's last tile: the next row's tiles,
			 * written after, or the room past the block */
			for (int xi = 0; xi < 16; xi++)
				nnl_vstore(v0 + xi * C * ld + tx, v[xi]);
		}
#endif
		for (; tx < tw; tx++) {
			float d[4][4], v[16];

			for (int r = 0; r < 4; r++)
				for (int s = 0; s < 4; s++)
					d[r][s] = rb[r * rw + 2 * tx + s];
			NNL_WINO_IN(float, d, v);
			for (int xi = 0; xi < 16; xi++)
				v0[xi * C * ld + tx] = v[xi];
		}
	}
}

/* The output rows of the block's tiles from M (M[xi][o][t]) for output
 * channel plane yo of channel o, through relu or clamp (act; other
 * activations come after). */
NNL_RT_INLINE void
nnl_wino_output(const float *M, int64_t o, int64_t O, int64_t ld,
    int64_t ty0, int64_t rows, int64_t tw, int64_t OH, int64_t OW,
    float b, int64_t act, float lo, float hi, float *yo)
{
	for (int64_t ty = ty0; ty < ty0 + rows; ty++) {
		const float *m0 = M + o * ld + (ty - ty0) * tw;
		float *y0 = yo + 2 * ty * OW, *y1 = y0 + OW;
		int two = 2 * ty + 1 < OH;
		int64_t tx = 0;

#if NNL_VW > 1 && defined(NNL_VSHUFFLE)
		for (; tx + NNL_VW <= tw && 2 * (tx + NNL_VW) <= OW;
		    tx += NNL_VW) {
			nnl_vf m[16], y[4], vb = nnl_vsplat(b);

			for (int xi = 0; xi < 16; xi++)
				m[xi] = nnl_vload(m0 + xi * O * ld + tx);
			NNL_WINO_OUT(nnl_vf, m, vb, y);
			for (int k = 0; k < 4; k++)
				y[k] = nnl_vclamp(y[k], act, lo, hi);
			nnl_vstore(y0 + 2 * tx, __builtin_shufflevector(y[0],
			    y[1], NNL_VZIPLO));
			nnl_vstore(y0 + 2 * tx + NNL_VW,
			    __builtin_shufflevector(y[0], y[1], NNL_VZIPHI));
			if (!two)
				continue;
			nnl_vstore(y1 + 2 * tx, __builtin_shufflevector(y[2],
			    y[3], NNL_VZIPLO));
			nnl_vstore(y1 + 2 * tx + NNL_VW,
			    __builtin_shufflevector(y[2], y[3], NNL_VZIPHI));
		}
		/* the row's last tiles: whole vectors (M has room past the
		 * block's tiles), stored a tile at a time */
		for (; tx < tw; tx += NNL_VW) {
			nnl_vf m[16], y[4], vb = nnl_vsplat(b);
			float t[4][NNL_VW];

			for (int xi = 0; xi < 16; xi++)
				m[xi] = nnl_vload(m0 + xi * O * ld + tx);
			NNL_WINO_OUT(nnl_vf, m, vb, y);
			for (int k = 0; k < 4; k++)
				nnl_vstore(t[k], nnl_vclamp(y[k], act, lo,
				    hi));
			for (int i = 0; i < NNL_VW && tx + i < tw; i++) {
				int full = 2 * (tx + i) + 1 < OW;

				y0[2 * (tx + i)] = t[0][i];
				if (full)
					y0[2 * (tx + i) + 1] = t[1][i];
				if (!two)
					continue;
				y1[2 * (tx + i)] = t[2][i];
				if (full)
					y1[2 * (tx + i) + 1] = t[3][i];
			}
		}
#endif
		for (float *p = y0 + 2 * tx, *q = y1 + 2 * tx; tx < tw;
		    tx++, p += 2, q += 2) {
			float m[16], y[4];
			int full = 2 * tx + 1 < OW;

			for (int xi = 0; xi < 16; xi++)
				m[xi] = m0[xi * O * ld + tx];
			NNL_WINO_OUT(float, m, b, y);
			for (int k = 0; k < 4; k++)
				y[k] = nnl_sclamp(y[k], act, lo, hi);
			p[0] = y[0];
			if (full)
				p[1] = y[1];
			if (!two)
				continue;
			q[0] = y[2];
			if (full)
				q[1] = y[3];
		}
	}
}

/* The same from the products by tiles, Mt[xi][t][o] (T tiles, each
 * of O floats), for output channels [o0, o1) with their biases (or
 * none), into S[p][o] for the block's output positions p from its
 * first row (OW of them a row). */
NNL_RT_INLINE void
nnl_wino_output_t(const float *Mt, int64_t T, int64_t O, int64_t o0,
    int64_t o1, int64_t ty0, int64_t rows, int64_t tw, int64_t OH,
    int64_t OW, const float *bias, int64_t act, float lo, float hi,
    float *S)
{
	for (int64_t t = 0; t < rows * tw; t++) {
		int64_t ty = t / tw, tx = t % tw, o = o0;
		float *s0 = S + (2 * ty * OW + 2 * tx) * O, *s1 = s0 + OW * O;
		const float *m0 = Mt + t * O;
		int two = 2 * (ty0 + ty) + 1 < OH, full = 2 * tx + 1 < OW;

#if NNL_VW > 1
		for (; o + NNL_VW <= o1; o += NNL_VW) {
			nnl_vf m[16], y[4];
			nnl_vf vb = bias ? nnl_vload(bias + o) : nnl_vsplat(0);

			for (int xi = 0; xi < 16; xi++)
				m[xi] = nnl_vload(m0 + xi * T * O + o);
			NNL_WINO_OUT(nnl_vf, m, vb, y);
			for (int k = 0; k < 4; k++)
				y[k] = nnl_vclamp(y[k], act, lo, hi);
			nnl_vstore(s0 + o, y[0]);
			if (full)
				nnl_vstore(s0 + O + o, y[1]);
			if (!two)
				continue;
			nnl_vstore(s1 + o, y[2]);
			if (full)
				nnl_vstore(s1 + O + o, y[3]);
		}
#endif
		for (; o < o1; o++) {
			float m[16], y[4], b = bias ? bias[o] : 0;

			for (int xi = 0; xi < 16; xi++)
				m[xi] = m0[xi * T * O + o];
			NNL_WINO_OUT(float, m, b, y);
			for (int k = 0; k < 4; k++)
				y[k] = nnl_sclamp(y[k], act, lo, hi);
			s0[o] = y[0];
			if (full)
				s0[O + o] = y[1];
			if (!two)
				continue;
			s1[o] = y[2];
			if (full)
				s1[O + o] = y[3];
		}
	}
}

/* A block's work in parts, on one thread or as a run of par.c's pool:
 * part i of np of the input transform, its channels, on thread t's
 * rows; part i of the products and output transform, its output
 * channels, whole tiles of the microkernel's rows (each row of M is
 * then what it is in one product of all of them: the same panels, the
 * same steps of K), or of columns where there are more of those, in
 * thread t's packing space. */
struct nnl_wino_part {
	const struct nnl_gemm_kernel *u;
	const float *x, *U;
	float *V, *M, *rb, *y, *pack;
	const float *bias;
	int64_t C, H, W, O, OH, OW, ty0, rows, tw, pt, pl, ld, rw, ps, np;
	int cols;
	float *S;	/* the staging area of the products by tiles */
	int64_t act;	/* relu or clamp by lo, hi: the output's */
	float lo, hi;
};

static void
nnl_wino_in_part(void *arg, int64_t i, int t)
{
	const struct nnl_wino_part *p = arg;
	int64_t c0 = p->C * i / p->np, c1 = p->C * (i + 1) / p->np;

	for (int64_t c = c0; c < c1; c++)
		nnl_wino_input(p->x + c * p->H * p->W, c, p->C, p->H, p->W,
		    p->ty0, p->rows, p->tw, p->pt, p->pl, p->V, p->ld,
		    p->rb + t * 4 * p->rw, p->rw);
}

/* Part i of the products of output channels (np parts): whole tiles
 * of rows of M, or (cols) all rows, whole tiles of columns of M; and
 * of the output transform, its channels, where it is fused (out). */
static void
nnl_wino_mul_part(void *arg, int64_t i, int t)
{
	const struct nnl_wino_part *p = arg;
	struct nnl_gemm_epi e = { 1, 0, 0, NNL_ACT_NONE, 0, 0, 0, 0, 0, 0 };
	int64_t T = p->rows * p->tw, o0 = 0, o1 = p->O, t0 = 0, t1 = T;

	if (p->cols) {
		int64_t nr = p->u->nr, n = (T + nr - 1) / nr;

		t0 = n * i / p->np * nr;
		t1 = n * (i + 1) / p->np * nr;
		t1 = t1 < T ? t1 : T;
	} else {
		int64_t mr = p->u->mr, n = (p->O + mr - 1) / mr;

		o0 = n * i / p->np * mr;
		o1 = n * (i + 1) / p->np * mr;
		o1 = o1 < p->O ? o1 : p->O;
	}
	if (o0 >= o1 || t0 >= t1)
		return;
	for (int xi = 0; xi < 16; xi++)
		nnl_sgemm_with(p->u, o1 - o0, t1 - t0, p->C, 1,
		    p->U + xi * p->C * p->O + o0, p->O, 1,
		    p->V + xi * p->C * p->ld + t0, p->ld, 0,
		    p->M + (xi * p->O + o0) * p->ld + t0, p->ld,
		    p->pack + t * p->ps, &e);
	if (!p->cols)
		for (int64_t o = o0; o < o1; o++)
			nnl_wino_output(p->M, o, p->O, p->ld, p->ty0, p->rows,
			    p->tw, p->OH, p->OW, p->bias ? p->bias[o] : 0,
			    p->act, p->lo, p->hi, p->y + o * p->OH * p->OW);
}

/* Part i of the products by tiles (nnl_wino_flip) and their output
 * transform: its output channels, whole tiles of the microkernel's
 * columns, transformed into their columns of the staging area and
 * transposed from there into their planes of the output. */
static void
nnl_wino_tmul_part(void *arg, int64_t i, int t)
{
	const struct nnl_wino_part *p = arg;
	struct nnl_gemm_epi e = { 1, 0, 0, NNL_ACT_NONE, 0, 0, 0, 0, 1, 0 };
	int64_t T = p->rows * p->tw, nr = p->u->nr, n = (p->O + nr - 1) / nr;
	int64_t o0 = n * i / p->np * nr, o1 = n * (i + 1) / p->np * nr;
	int64_t P = 2 * p->rows < p->OH - 2 * p->ty0 ? 2 * p->rows * p->OW :
	    (p->OH - 2 * p->ty0) * p->OW;

	o1 = o1 < p->O ? o1 : p->O;
	if (o0 >= o1)
		return;
	for (int xi = 0; xi < 16; xi++)
		nnl_sgemm_with(p->u, T, o1 - o0, p->C, 1, p->V + xi * p->C *
		    p->ld, p->ld, 1, p->U + xi * p->C * p->O + o0, p->O, 0,
		    p->M + xi * T * p->O + o0, p->O, p->pack + t * p->ps, &e);
	nnl_wino_output_t(p->M, T, p->O, o0, o1, p->ty0, p->rows, p->tw,
	    p->OH, p->OW, p->bias, p->act, p->lo, p->hi, p->S);
	nnl_transpose_part(p->O, 0, P, o0, o1, p->S, p->y + 2 * p->ty0 * p->OW,
	    p->OH * p->OW);
}

/* Part i of the output transform alone (after products by columns):
 * its output channels. */
static void
nnl_wino_out_part(void *arg, int64_t i, int t)
{
	const struct nnl_wino_part *p = arg;
	int64_t o0 = p->O * i / p->np, o1 = p->O * (i + 1) / p->np;

	(void)t;
	for (int64_t o = o0; o < o1; o++)
		nnl_wino_output(p->M, o, p->O, p->ld, p->ty0, p->rows, p->tw,
		    p->OH, p->OW, p->bias ? p->bias[o] : 0, p->act, p->lo,
		    p->hi, p->y + o * p->OH * p->OW);
}

/* p's V, M, staging area, np packing spaces and np threads' input
 * rows, from base, for blocks of nr rows of tiles: the layout
 * nnl_wino_scratch and nnl_wino_part_scratch count. */
NNL_RT_INLINE void
nnl_wino_carve(struct nnl_wino_part *p, float *base, int64_t nr, int64_t np)
{
	int64_t t = nr * p->tw;

	p->ld = t + NNL_WINO_VW;	/* room for stores past the tiles */
	p->V = base;
	p->M = p->V + 16 * p->C * p->ld;
	p->S = p->M + 16 * p->O * p->ld;
	p->pack = p->S + nnl_wino_staged(nr, p->O, p->OH, p->OW);
	p->ps = nnl_wino_ps(p->C, p->O, t);
	p->rb = p->pack + np * p->ps;
}

/* Part i of the image split by rows of tiles (nnl_wino_byrows; g
 * holds the whole image's parameters, V the scratch): its rows a block
 * at a time, each block's three steps in a row on this thread, in the
 * part's own scratch. */
static void
nnl_wino_rows_part(void *arg, int64_t i, int t)
{
	const struct nnl_wino_part *g = arg;
	struct nnl_wino_part p = *g;
	int64_t th = (g->OH + 1) / 2, T = g->np;
	int64_t r0 = th * i / T, r1 = th * (i + 1) / T;
	int64_t nr = nnl_wino_rows(g->C, g->O, g->OH, g->OW, T);

	(void)t;
	nnl_wino_carve(&p, g->V + i * nnl_wino_part_scratch(g->C, g->O,
	    g->OH, g->OW, T), nr, 1);
	p.np = 1;
	p.cols = 0;
	for (p.ty0 = r0; p.ty0 < r1; p.ty0 += nr) {
		p.rows = r1 - p.ty0 < nr ? r1 - p.ty0 : nr;
		nnl_wino_in_part(&p, 0, 0);
		if (nnl_wino_flip(p.u, p.rows * p.tw, p.O))
			nnl_wino_tmul_part(&p, 0, 0);
		else
			nnl_wino_mul_part(&p, 0, 0);
	}
}

/* fn's np parts, as a run of the pool where there are threads */
NNL_RT_INLINE void
nnl_wino_parts(void (*fn)(void *, int64_t, int), struct nnl_wino_part *p,
    int64_t np)
{
	p->np = np;
#ifdef NNL_RT_THREADS
	nnl_par_run(fn, p, np);
	return;
#endif
	for (int64_t i = 0; i < np; i++)
		fn(p, i, 0);
}

/* Parts to split n units into on T threads: per a thread, so that
 * the threads that get to run take more, but no more than there are
 * units. */
NNL_RT_INLINE int64_t
nnl_wino_np(int64_t n, int64_t per)
{
	int64_t np = NNL_WINO_T * per;

	return n < np ? n : np;
}

/*
 * One nchw image x (C planes of H x W) into y (O planes of OH x OW) by
 * the transformed filter U ([16][C][O]) and bias (or null), padding pt
 * above and pl left, then activation act.
 */
NNL_RT void
nnl_conv_wino_nchw(const float *x, const float *U, const float *bias,
    float *y, int64_t C, int64_t H, int64_t W, int64_t O, int64_t OH,
    int64_t OW, int64_t pt, int64_t pl, int64_t act, float lo, float hi,
    float *scratch)
{
	int64_t th = (OH + 1) / 2, tw = (OW + 1) / 2;
	int64_t nr = nnl_wino_rows(C, O, OH, OW, 1);
	const struct nnl_gemm_kernel *u = nnl_gemm_best();
	int64_t uo = (O + u->mr - 1) / u->mr;	/* row tiles of M */
	int64_t co = (O + u->nr - 1) / u->nr;	/* column tiles by tiles */
	/* the image's parameters; by rows, V is the scratch */
	struct nnl_wino_part g = { u, x, U, scratch, 0, 0, y, 0, bias, C, H,
	    W, O, OH, OW, 0, 0, tw, pt, pl, 0, nnl_wino_width(OW), 0, 1, 0, 0,
	    act, lo, hi };

	if (nnl_wino_byrows(C, O, OH, OW, NNL_WINO_T)) {
		nnl_wino_parts(nnl_wino_rows_part, &g, NNL_WINO_T);
		if (!nnl_act_clamps(act))
			nnl_activate(y, O * OH * OW, act, lo, hi);
		return;
	}
	nnl_wino_carve(&g, scratch, nr, NNL_WINO_T);
	for (int64_t ty0 = 0; ty0 < th; ty0 += nr) {
		int64_t rows = th - ty0 < nr ? th - ty0 : nr;
		int64_t ut = (rows * tw + u->nr - 1) / u->nr;
		int one = NNL_WINO_T < 2 || 16.0 * (double)(rows * tw) *
		    (double)C * (double)O < NNL_WINO_MINPAR;
		struct nnl_wino_part p = g;

		p.ty0 = ty0;
		p.rows = rows;

		nnl_wino_parts(nnl_wino_in_part, &p, one ? 1 :
		    nnl_wino_np(C, 4));
		if (nnl_wino_flip(u, rows * tw, O)) {
			nnl_wino_parts(nnl_wino_tmul_part, &p, one ? 1 :
			    nnl_wino_np(co, 1));
			continue;
		}
		/* threads share the products by output channels, fused with
		 * their output transform, unless there are more column tiles
		 * to share (few output channels, many tiles) */
		p.cols = !one && uo < NNL_WINO_T * 4 && ut > uo;
		nnl_wino_parts(nnl_wino_mul_part, &p, one ? 1 : p.cols ?
		    nnl_wino_np(ut, 4) : nnl_wino_np(uo, 1));
		if (p.cols)
			nnl_wino_parts(nnl_wino_out_part, &p,
			    nnl_wino_np(O, 4));
	}
	if (!nnl_act_clamps(act))
		nnl_activate(y, O * OH * OW, act, lo, hi);
}
