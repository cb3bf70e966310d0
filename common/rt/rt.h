/*
 * rt: the runtime of generated code.  Every kernel has one signature,
 *
 *	void nnl_k_NAME(const int64_t *ip, const double *fp,
 *	    const void *const *in, void *const *out, void *scratch);
 *
 * ip and fp are the kernel's integer and floating parameters, laid out
 * as the kernel's comment documents (libnnl's prepare functions fill
 * them: common/kernel.h); in and out point at operand data, out at
 * bytes the kernel may write before it has read all of in only where
 * its comment says so (in-place safe).  scratch is the node's
 * workspace from the memory plan.
 *
 * The files of common/rt/ are compiled into libnnl (for constant
 * folding and tests) and pasted into every generated C file, where
 * NNL_RT makes each kernel static.  They use only C99, <stdint.h>,
 * <string.h> and <math.h>: no heap, no I/O, no globals that change.
 */
#ifndef NNL_RT_H
#define NNL_RT_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#if (defined(__x86_64__) || defined(__i386__)) && defined(__SSE__)
#include <immintrin.h>
#endif

/* Kernels: static in generated code; libnnl builds with -DNNL_RT= */
#ifndef NNL_RT
#if defined(__GNUC__)
#define NNL_RT static __attribute__((unused))
#else
#define NNL_RT static
#endif
#else
/* libnnl: the kernels are extern, and the shared ones declared below
 * (generated code defines each before its first use) */
#define NNL_RT_EXTERN 1
#endif
/* Helpers of this header: private to each file that includes it. */
#define NNL_RT_INLINE static inline

/*
 * The SGEMM microkernels this build holds (gemm_f32_*.c; the driver,
 * gemm.c, picks one by table lookup).  By default those the compiler's
 * flags allow (-march=native, -mavx2 -mfma, ...), told by its
 * predefined macros.  With NNL_RT_DISPATCH (nnc --portable; libnnl) an
 * x86 build under GCC or clang holds the AVX2 and AVX-512 kernels too,
 * each compiled for its instruction set by a target attribute, and
 * chooses among them at run time by __builtin_cpu_supports.  The
 * portable scalar kernel is always there.
 */
#if defined(NNL_RT_DISPATCH) && defined(__GNUC__) && \
    (defined(__x86_64__) || defined(__i386__))
#define NNL_RT_AVX512 1
#define NNL_RT_AVX2 1
#define NNL_RT_RUNTIME 1
#define NNL_RT_TARGET(isa) __attribute__((target(isa)))
#else
#if defined(__AVX512F__) && defined(__FMA__)
#define NNL_RT_AVX512 1
#endif
#if defined(__AVX2__) && defined(__FMA__)
#define NNL_RT_AVX2 1
#endif
#define NNL_RT_TARGET(isa)
#endif
#if defined(__aarch64__) && defined(__ARM_NEON)
#define NNL_RT_NEON 1
#endif

/*
 * How a microkernel starts and ends its tile of C: its product p is
 * added to C itself (load), or else to the bias of the tile's columns
 * (cb[j]) or rows (rb[i]) or to zero; the sum goes through the
 * activation act (relu or clamp, with lo and hi; NNL_ACT_NONE for any
 * other, which the driver applies after) and is stored.  C is so read
 * at most once and written once a tile.
 */
struct nnl_gemm_tile {
	int load;
	const float *rb, *cb;
	int64_t act;
	float lo, hi;
};

/*
 * A microkernel: C[0:m, 0:n] (row stride ldc) becomes tile t's start
 * plus the product of kc steps of a panel of A (column k of MR rows:
 * MR floats at a + k * as) and one of B (row k of NR columns: NR
 * floats at b + k * bs), through t's activation; m <= MR, n <= NR.  A packed panel has as = MR, bs = NR, zero-padded to full
 * tiles; a panel read in place has the matrix's row stride.
 */
typedef void nnl_gemm_fn(int64_t kc, const float *a, int64_t as,
    const float *b, int64_t bs, float *c, int64_t ldc, int64_t m,
    int64_t n, const struct nnl_gemm_tile *t);

/*
 * What the SGEMM driver does around the product, tile by tile while
 * the tile is in cache: init, start C from the bias (rb[i] for row i,
 * or cb[j] for column j, or zero without either) rather than adding to
 * what C holds; then the fused activation (act, lo, hi: nnl_activate's
 * code and parameters).  A null epilogue adds to C and stops there.
 * packb asks for B to be packed even where it could be read in place:
 * a filter [Kd, O] read as B has rows O floats apart, a stride the
 * caches' prefetchers do not follow, and each of its panels serves
 * only the few row tiles of a small image (conv2d's flipped product).
 * bp32 says B is stored in panels of 32 columns, K rows each (element
 * (k, j) at B[j / 32 * K * 32 + k * 32 + j % 32], zero past N): the
 * order nnl-fuse gives such a filter, read in place by microkernels of
 * any width that divides 32.
 */
struct nnl_gemm_epi {
	int init;
	const float *rb, *cb;
	int64_t act;
	float lo, hi;
	int packb;
	int bp32;
	/* op(A) stored by k (ta) may be read NNL_GEMM_MAXMR floats past
	 * its last row: a ragged panel read in place is then one call of
	 * the microkernel, each row of C the same sums as in a whole tile,
	 * wherever a split of the rows puts the edge (wino.c) */
	int aroom;
	/* C's residual (nnl-fuse), if not null: element (i, j) at
	 * res[i * ldc + j], added after the bias, before the activation */
	const float *res;
};

/* Tiles are at most this many rows and columns: packing space. */
enum { NNL_GEMM_MAXMR = 16, NNL_GEMM_MAXNR = 32 };

enum { NNL_ISA_NONE, NNL_ISA_AVX2, NNL_ISA_AVX512 };

/* A row of the driver's table: name, tile, what it needs, function,
 * and, where the kernel has them, variants for tiles of at most 8 and 4
 * rows and for tiles of at most nr / 2 columns (the same panels; fewer
 * rows or columns multiplied). */
struct nnl_gemm_kernel {
	const char *name;
	int mr, nr, isa;
	nnl_gemm_fn *fn, *fn8, *fn4, *fnh;
};

/* What multiplies a tile of m rows and n columns: the variant of the
 * fewest rows that holds the tile, else the kernel or its variant of
 * half the columns; *R is the rows it reads.  (A tile of fewer rows
 * than R read in place splits its last step, nnl_sgemm_ragged: the
 * rows come first, so that a tile's sums are the same with any n.) */
NNL_RT_INLINE nnl_gemm_fn *
nnl_gemm_tilefn(const struct nnl_gemm_kernel *u, int64_t m, int64_t n,
    int *R)
{
	if (m <= 4 && u->fn4) {
		*R = 4;
		return u->fn4;
	}
	if (m <= 8 && u->fn8) {
		*R = 8;
		return u->fn8;
	}
	*R = u->mr;
	return n <= u->nr / 2 && u->fnh ? u->fnh : u->fn;
}

#ifdef NNL_RT_EXTERN
NNL_RT const struct nnl_gemm_kernel *nnl_gemm_kernels(int *n);
NNL_RT const struct nnl_gemm_kernel *nnl_gemm_best(void);
NNL_RT int nnl_gemm_runs(int isa);
NNL_RT int64_t nnl_dw_scratch(const int64_t *ip);
NNL_RT int64_t nnl_packsize(int64_t M, int64_t N, int64_t K);
NNL_RT void nnl_sgemm_with(const struct nnl_gemm_kernel *u, int64_t M,
    int64_t N, int64_t K, float alpha, const float *A, int64_t lda, int ta,
    const float *B, int64_t ldb, int tb, float *C, int64_t ldc, float *pack,
    const struct nnl_gemm_epi *e);
NNL_RT void nnl_sgemm(int64_t M, int64_t N, int64_t K, float alpha,
    const float *A, int64_t lda, int ta, const float *B, int64_t ldb,
    int tb, float *C, int64_t ldc, float *pack,
    const struct nnl_gemm_epi *e);

NNL_RT int64_t nnl_wino_scratch(int64_t C, int64_t O, int64_t OH,
    int64_t OW, int64_t threads);
NNL_RT void nnl_conv_wino_nchw(const float *x, const float *U,
    const float *bias, float *y, int64_t C, int64_t H, int64_t W, int64_t O,
    int64_t OH, int64_t OW, int64_t pt, int64_t pl, int64_t act, float lo,
    float hi, float *scratch);
NNL_RT void nnl_conv_dw_nchw(const float *x, const float *w, int64_t wc,
    int64_t wt, const float *bias, float *y, const int64_t *ip,
    int64_t act, float lo, float hi, float *pad);
NNL_RT void nnl_conv_dw_nhwc(const float *x, const float *w, int64_t wc,
    int64_t wt, const float *bias, float *y, const int64_t *ip,
    int64_t act, float lo, float hi);

NNL_RT nnl_gemm_fn nnl_gemm_f32_4x8_scalar;
#ifdef NNL_RT_AVX2
NNL_RT nnl_gemm_fn nnl_gemm_f32_6x16_avx2;
NNL_RT nnl_gemm_fn nnl_gemm_f32_6x8_avx2;
#endif
#ifdef NNL_RT_AVX512
NNL_RT nnl_gemm_fn nnl_gemm_f32_14x32_avx512;
NNL_RT nnl_gemm_fn nnl_gemm_f32_8x32_avx512;
NNL_RT nnl_gemm_fn nnl_gemm_f32_4x32_avx512;
NNL_RT nnl_gemm_fn nnl_gemm_f32_14x16_avx512;
#endif
#ifdef NNL_RT_NEON
NNL_RT nnl_gemm_fn nnl_gemm_f32_8x8_neon;
#endif
#endif

/*
 * Whether an nchw conv2d computes its output transposed, [P, O] by
 * output position (P = OH * OW) into scratch, then transposes it: on
 * small images the P side of the tile is mostly ragged (49, 196) and
 * the O side is not, and both operands are then read in place; the
 * transposition costs what K = Kd steps of the product amortize only
 * when Kd is large (from 128: MobileNet's 160 -> 960 at 7 x 7 takes
 * 0.17 ms flipped against 0.21, its 64 -> 384 at 14 x 14 0.11 against
 * 0.107).  The product reads a constant filter in place in
 * the panels nnl-fuse stores it in, others packed on each call.
 * kern_nn.c sizes the scratch, and nnl-fuse picks the filters it
 * stores in panels, by the same rule.
 */
NNL_RT_INLINE int
nnl_conv_flip(int64_t nhwc, int64_t P, int64_t ocg, int64_t Kd)
{
	return !nhwc && P >= 4 && P < 1024 && ocg >= 32 && Kd >= 128;
}

/* Floats of im2col a band of conv2d's output rows fills at most: the
 * band stays in the L2 cache while the SGEMM reads it. */
enum { NNL_CONV_BAND = 131072 };

/* Output rows of a band of an nchw conv2d's im2col (Kd rows by the
 * band's OW-wide output rows): at least one. */
NNL_RT_INLINE int64_t
nnl_conv_band(int64_t Kd, int64_t OH, int64_t OW)
{
	int64_t n = Kd * OW > 0 ? NNL_CONV_BAND / (Kd * OW) : OH;

	return n < 1 ? 1 : n > OH ? OH : n;
}

/* Output columns [*lo, *hi) whose input column ox*s - pad + off lies in
 * [0, W): the rest read padding. */
NNL_RT_INLINE void
nnl_conv_span(int64_t OW, int64_t W, int64_t s, int64_t pad, int64_t off,
    int64_t *lo, int64_t *hi)
{
	int64_t t = pad - off, u = W - 1 + pad - off;

	*lo = t <= 0 ? 0 : (t + s - 1) / s;
	*hi = u < 0 ? 0 : u / s + 1 < OW ? u / s + 1 : OW;
	if (*lo > *hi)
		*lo = *hi;
}

/*
 * The row of the padded channel copy of a depthwise nchw convolution
 * (rt/f32-dwconv/dwconv.c), in floats, for conv2d's parameters ip: the padded row,
 * or what whole vectors of up to 16 output columns read, if more.  The
 * scratch holds H + 1 such rows.
 */
NNL_RT_INLINE int64_t
nnl_dw_width(const int64_t *ip)
{
	int64_t W = ip[4], OW = ip[7], kw = ip[9], sw = ip[11], dw = ip[13],
	    pl = ip[16];
	int64_t v = ((OW + 15) / 16 * 16 - 1) * sw + (kw - 1) * dw + 2;

	return v > pl + W ? v : pl + W;
}

/* Floats of a row of the phase planes of a 3 x 3 stride-2 depthwise
 * nchw convolution (rt/f32-dwconv/dwconv.c): an output row and one more column;
 * a plane holds one more row than the output, and 32 floats of room. */
NNL_RT_INLINE int64_t
nnl_dw_s2_plane(const int64_t *ip)
{
	return (ip[6] + 1) * (ip[7] + 1) + 32;
}

/* Pixels of the padded plane of dwconv.c's channel blocks, at most. */
enum { NNL_DW_BLOCK = 1024 };

/* Whether a depthwise nchw convolution may take dwconv.c's channel
 * blocks: 3 x 3, stride 1 or 2, pad 1 above and left, reading no more
 * than one row and column of padding below and right, and a padded
 * plane of at most NNL_DW_BLOCK pixels. */
NNL_RT_INLINE int
nnl_dw_blockable(const int64_t *ip)
{
	int64_t H = ip[3], W = ip[4], OH = ip[6], OW = ip[7], s = ip[10];

	return ip[8] == 3 && ip[9] == 3 && (s == 1 || s == 2) &&
	    ip[11] == s && ip[12] == 1 && ip[13] == 1 && ip[14] == 1 &&
	    ip[16] == 1 && (OH - 1) * s <= H - 1 && (OW - 1) * s <= W - 1 &&
	    (H + 2) * (W + 2) <= NNL_DW_BLOCK;
}

/* Rows and columns of the padded plane a depthwise nchw convolution's
 * outputs read (conv2d's parameters ip): from the first padding row
 * (column) to the last one the last output reads. */
NNL_RT_INLINE int64_t
nnl_dw_ph(const int64_t *ip)
{
	return (ip[6] - 1) * ip[10] + (ip[8] - 1) * ip[12] + 1;
}

NNL_RT_INLINE int64_t
nnl_dw_pw(const int64_t *ip)
{
	return (ip[7] - 1) * ip[11] + (ip[9] - 1) * ip[13] + 1;
}

/* Pixels of the padded plane, and of the output, of dwconv.c's general
 * channel blocks, at most (a block of 16 channels: 256 KiB each). */
enum { NNL_DW_BIG = 4096 };

/* Whether a depthwise nchw convolution other than 3 x 3 (any stride,
 * dilation, padding) takes dwconv.c's general channel blocks: a padded
 * plane and an output of at most NNL_DW_BIG pixels. */
NNL_RT_INLINE int
nnl_dw_blockgen(const int64_t *ip)
{
	return !(ip[8] == 3 && ip[9] == 3) && ip[6] * ip[7] <= NNL_DW_BIG &&
	    nnl_dw_ph(ip) * nnl_dw_pw(ip) <= NNL_DW_BIG;
}

/* Whether a depthwise nchw convolution takes dwconv.c's stride-2 path
 * (3 x 3, stride 2, no dilation). */
NNL_RT_INLINE int
nnl_dw_s2(const int64_t *ip)
{
	return ip[8] == 3 && ip[9] == 3 && ip[10] == 2 && ip[11] == 2 &&
	    ip[12] == 1 && ip[13] == 1;
}

/* Fused activations (nnl-fuse): code and two parameters. */
enum {
	NNL_ACT_NONE, NNL_ACT_RELU, NNL_ACT_CLAMP, NNL_ACT_SIGMOID,
	NNL_ACT_HARDSWISH, NNL_ACT_LEAKYRELU, NNL_ACT_TANH, NNL_ACT_GELU,
	NNL_ACT_SWISH, NNL_ACT_HARDSIGMOID
};

/* Whether act is relu or clamp, which the kernels apply as they store
 * (nnl_sclamp, nnl_vclamp); other activations go over the output after
 * (nnl_activate). */
NNL_RT_INLINE int
nnl_act_clamps(int64_t act)
{
	return act == NNL_ACT_RELU || act == NNL_ACT_CLAMP;
}

/* relu and clamp on one float, as nnl_activate does them (NaN: relu
 * gives 0, clamp keeps it); other codes leave v as it is. */
NNL_RT_INLINE float
nnl_sclamp(float v, int64_t act, float lo, float hi)
{
	if (act == NNL_ACT_RELU)
		return v > 0 ? v : 0;
	if (act == NNL_ACT_CLAMP)
		return v < lo ? lo : v > hi ? hi : v;
	return v;
}

/* Whether the SGEMM's microkernels apply act as they store a tile:
 * relu, clamp and hardswish (x min(max(x + 3, 0), 6) / 6, computed as
 * x t times 1/6 there and in nnl_activate alike); the driver runs the
 * others over the tile after (nnl_activate). */
NNL_RT_INLINE int
nnl_act_tiles(int64_t act)
{
	return nnl_act_clamps(act) || act == NNL_ACT_HARDSWISH;
}

/* hardswish on one float, as nnl_activate and the microkernels do it */
NNL_RT_INLINE float
nnl_shardswish(float v)
{
	float t = v + 3;

	t = t < 0 ? 0 : t > 6 ? 6 : t;
	return v * t * (1.0f / 6);
}

/* Element (i, j) of a microkernel's tile t whose product there is p;
 * c is row i of C.  Edges and the kernels without vectors use it. */
NNL_RT_INLINE float
nnl_tile_elem(const struct nnl_gemm_tile *t, const float *c, int64_t i,
    int64_t j, float p)
{
	float v = (t->load ? c[j] : t->cb ? t->cb[j] : t->rb ? t->rb[i] : 0) +
	    p;

	if (t->act == NNL_ACT_HARDSWISH)
		return nnl_shardswish(v);
	return nnl_sclamp(v, t->act, t->lo, t->hi);
}

/*
 * NNL_VW floats as one vector of the GCC and clang vector extensions,
 * as wide as the compiler's flags allow: 16 with AVX-512F, 8 with AVX,
 * 4 otherwise (SSE, NEON, or scalar code the compiler writes).  Without
 * the extensions NNL_VW is 1 and the kernels keep their plain C loops.
 * Run-time dispatch (NNL_RT_DISPATCH) does not widen these: only the
 * SGEMM microkernels are built per instruction set.
 */
/* 32-bit ARM without NEON (a Cortex-M): the compiler would split each
 * vector into scalar operations, slower and larger than the plain loops
 * (MNIST on a Cortex-M4F: 9.2 million instructions against 6.8). */
#if defined(__arm__) && !defined(__ARM_NEON) && !defined(NNL_RT_NOVEC)
#define NNL_RT_NOVEC 1
#endif
#if defined(__GNUC__) && !defined(NNL_RT_NOVEC)
#if defined(__AVX512F__)
#define NNL_VW 16
#elif defined(__AVX__)
#define NNL_VW 8
#else
#define NNL_VW 4
#endif
typedef float nnl_vf __attribute__((vector_size(NNL_VW * 4)));
typedef int32_t nnl_vi __attribute__((vector_size(NNL_VW * 4)));

NNL_RT_INLINE nnl_vf
nnl_vload(const float *p)
{
	nnl_vf v;

	memcpy(&v, p, sizeof v);
	return v;
}

NNL_RT_INLINE void
nnl_vstore(float *p, nnl_vf v)
{
	memcpy(p, &v, sizeof v);
}

NNL_RT_INLINE nnl_vf
nnl_vsplat(float x)
{
	nnl_vf z = { 0 };

	return x - z;	/* x - 0 is x, -0 too, so no add is left */
}

#ifdef __has_builtin
#if __has_builtin(__builtin_shufflevector)
#define NNL_VSHUFFLE 1
#endif
#endif
/* NNL_VEVEN and NNL_VODD: the even and the odd lanes of two vectors;
 * NNL_VUP: the last lane of the first vector, then the second's lanes
 * but its last (a shift one lane up); NNL_VDOWN: the first's lanes but
 * its first, then the second's first (one lane down); NNL_VZIPLO and
 * NNL_VZIPHI: the lanes of the first half, then of the second, of two
 * vectors interleaved (a0, b0, a1, b1, ...). */
#if NNL_VW == 16
#define NNL_VEVEN 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30
#define NNL_VODD 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31
#define NNL_VUP 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, \
    29, 30
#define NNL_VDOWN 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16
#define NNL_VZIPLO 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23
#define NNL_VZIPHI 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, \
    15, 31
#elif NNL_VW == 8
#define NNL_VEVEN 0, 2, 4, 6, 8, 10, 12, 14
#define NNL_VODD 1, 3, 5, 7, 9, 11, 13, 15
#define NNL_VUP 7, 8, 9, 10, 11, 12, 13, 14
#define NNL_VDOWN 1, 2, 3, 4, 5, 6, 7, 8
#define NNL_VZIPLO 0, 8, 1, 9, 2, 10, 3, 11
#define NNL_VZIPHI 4, 12, 5, 13, 6, 14, 7, 15
#else
#define NNL_VEVEN 0, 2, 4, 6
#define NNL_VODD 1, 3, 5, 7
#define NNL_VUP 3, 4, 5, 6
#define NNL_VDOWN 1, 2, 3, 4
#define NNL_VZIPLO 0, 4, 1, 5
#define NNL_VZIPHI 2, 6, 3, 7
#endif

#ifdef NNL_VSHUFFLE
/* Transposes NNL_VW vectors in place (lane j of vector i to lane i of
 * vector j): log2 NNL_VW rounds, each zipping vector i with vector
 * i + NNL_VW / 2 into vectors 2 i and 2 i + 1. */
NNL_RT_INLINE void
nnl_vtranspose(nnl_vf *v)
{
#pragma GCC unroll 4
	for (int n = 1; n < NNL_VW; n *= 2) {
		nnl_vf t[NNL_VW];

#pragma GCC unroll 8
		for (int i = 0; i < NNL_VW / 2; i++) {
			t[2 * i] = __builtin_shufflevector(v[i],
			    v[i + NNL_VW / 2], NNL_VZIPLO);
			t[2 * i + 1] = __builtin_shufflevector(v[i],
			    v[i + NNL_VW / 2], NNL_VZIPHI);
		}
#pragma GCC unroll 16
		for (int i = 0; i < NNL_VW; i++)
			v[i] = t[i];
	}
}
#endif

/* p[0], p[s], ... p[(NNL_VW - 1) s], with NNL_VW s floats readable
 * from p; stride 2 as two loads and a shuffle. */
NNL_RT_INLINE nnl_vf
nnl_vload_s(const float *p, int64_t s)
{
	nnl_vf v;

	if (s == 1)
		return nnl_vload(p);
#ifdef NNL_VSHUFFLE
	if (s == 2)
		return __builtin_shufflevector(nnl_vload(p),
		    nnl_vload(p + NNL_VW), NNL_VEVEN);
#endif
	for (int i = 0; i < NNL_VW; i++)
		v[i] = p[i * s];
	return v;
}

/* a > b ? a : b and a < b ? a : b, lane by lane (b where either is
 * NaN): what x86's max and min instructions do, which the compilers do
 * not make of the comparisons; elsewhere the comparison's mask picks
 * (the one use of such a mask, so no helper that x86 would not use). */
NNL_RT_INLINE nnl_vf
nnl_vmax(nnl_vf a, nnl_vf b)
{
#if NNL_VW == 16 && defined(__AVX512F__)
	return (nnl_vf)_mm512_max_ps((__m512)a, (__m512)b);
#elif NNL_VW == 8 && defined(__AVX__)
	return (nnl_vf)_mm256_max_ps((__m256)a, (__m256)b);
#elif NNL_VW == 4 && defined(__SSE__)
	return (nnl_vf)_mm_max_ps((__m128)a, (__m128)b);
#else
	nnl_vi m = a > b;

	return (nnl_vf)(((nnl_vi)a & m) | ((nnl_vi)b & ~m));
#endif
}

NNL_RT_INLINE nnl_vf
nnl_vmin(nnl_vf a, nnl_vf b)
{
#if NNL_VW == 16 && defined(__AVX512F__)
	return (nnl_vf)_mm512_min_ps((__m512)a, (__m512)b);
#elif NNL_VW == 8 && defined(__AVX__)
	return (nnl_vf)_mm256_min_ps((__m256)a, (__m256)b);
#elif NNL_VW == 4 && defined(__SSE__)
	return (nnl_vf)_mm_min_ps((__m128)a, (__m128)b);
#else
	nnl_vi m = a < b;

	return (nnl_vf)(((nnl_vi)a & m) | ((nnl_vi)b & ~m));
#endif
}

/* relu and clamp on a vector, as nnl_activate does them (NaN: relu
 * gives 0, clamp keeps it); other codes leave v for nnl_activate. */
NNL_RT_INLINE nnl_vf
nnl_vclamp(nnl_vf v, int64_t act, float lo, float hi)
{
	if (act == NNL_ACT_RELU)
		return nnl_vmax(v, nnl_vsplat(0));
	if (act == NNL_ACT_CLAMP)
		return nnl_vmin(nnl_vsplat(hi), nnl_vmax(nnl_vsplat(lo), v));
	return v;
}
#else
#define NNL_VW 1
#endif

/* y[o * ldy + p] = t[p][o] for positions [p0, p1) and output
 * channels [o0, o1) of the rows of O floats at t (flipped convolutions
 * in nn.c and par.c, Winograd's products by tiles in wino.c): blocks
 * of vectors transposed in registers where the part is a vector wide
 * both ways, else sixteen columns of t at a time, so that each read of
 * t is a whole cache line.  (The scalar form was 77 us of squeezenet's
 * 1.66 ms classifier, the blocks 23.) */
NNL_RT_INLINE void
nnl_transpose_part(int64_t O, int64_t p0, int64_t p1, int64_t o0,
    int64_t o1, const float *t, float *y, int64_t ldy)
{
#ifdef NNL_VSHUFFLE
	/* blocks of NNL_VW x NNL_VW transposed in registers, the last of a
	 * row or column moved back to end at the edge (it writes some of
	 * the block before it again) */
	if (p1 - p0 >= NNL_VW && o1 - o0 >= NNL_VW) {
		for (int64_t o = o0; o < o1; o += NNL_VW) {
			int64_t oc = o1 - o < NNL_VW ? o1 - NNL_VW : o;

			for (int64_t p = p0; p < p1; p += NNL_VW) {
				int64_t pc = p1 - p < NNL_VW ? p1 - NNL_VW : p;
				nnl_vf v[NNL_VW];

#pragma GCC unroll 16
				for (int i = 0; i < NNL_VW; i++)
					v[i] = nnl_vload(t + (pc + i) * O + oc);
				nnl_vtranspose(v);
#pragma GCC unroll 16
				for (int i = 0; i < NNL_VW; i++)
					nnl_vstore(y + (oc + i) * ldy + pc,
					    v[i]);
			}
		}
		return;
	}
#endif
	for (; o0 < o1; o0 += 16) {
		int64_t ob = o1 - o0 < 16 ? o1 - o0 : 16;

		for (int64_t p = p0; p < p1; p++)
			for (int64_t o = 0; o < ob; o++)
				y[(o0 + o) * ldy + p] = t[p * O + o0 + o];
	}
}

#define NNL_MAXRANK 8

/* A broadcast binary op's shape with its axes merged (rt/elementwise/
 * ew.c's nnl_bcollapse): q axes, outermost first, each operand's
 * strides (0 where it broadcasts); outer rows of d[q - 1] floats. */
struct nnl_bshape {
	int64_t q, outer;
	int64_t d[NNL_MAXRANK], sa[NNL_MAXRANK], sb[NNL_MAXRANK];
};

/*
 * nnl_real: the type of the sums and of the exp, sqrt, tanh, ... the
 * float kernels compute beyond float (activations, unary ops, float16
 * softmax, pooling, the sums of the blocks of nnl_rowsum below, which
 * the normalizations and reductions take): double on hosts, whose
 * results it keeps; float on 32-bit ARM without a double-precision FPU
 * (a Cortex-M4F's fpv4-sp-d16, or no FPU), where double arithmetic is
 * software emulation, ten to a hundred times slower.  NNL_M(exp) is exp or expf
 * to match.  -DNNL_REAL_DOUBLE or -DNNL_REAL_FLOAT chooses.  The
 * kernels' double parameters (fp) are converted once a call; cast,
 * quantization, cumsum, argminmax, the other reductions, resample2d
 * and most broadcast binary ops keep double there too (nnc(1), BARE
 * METAL).
 */
#if !defined(NNL_REAL_DOUBLE) && (defined(NNL_REAL_FLOAT) || \
    (defined(__arm__) && !(defined(__ARM_FP) && (__ARM_FP & 8))))
typedef float nnl_real;
#define NNL_M(fn) fn##f
#define NNL_REAL_IS_FLOAT 1
#else
typedef double nnl_real;
#define NNL_M(fn) fn
#endif

/*
 * Rows of floats summed for the normalizations, softmax and the
 * reductions: a row contiguous (nnl_rowsum) or NNL_VW columns of rows
 * s floats apart (nnl_colsum), in float vectors over blocks of
 * NNL_SUMBLK elements, each block's sum added in nnl_real, so that the
 * rounding grows with the block and not with the row (a global pool
 * of 50176), and the lanes of each block in nnl_real.  What is
 * summed: NNL_SUM_X x - c, NNL_SUM_SQ (x - c)^2, NNL_SUM_ABS |x|: a
 * centre c near the values (a mean, or a normalization's first value)
 * keeps the float sums small where the values sit far from 0 (1000 +
 * sin i).  The lanes are added in a fixed order, so a sum is the same
 * wherever it runs.
 */
enum { NNL_SUMBLK = 1024 };
enum { NNL_SUM_X, NNL_SUM_SQ, NNL_SUM_ABS };

NNL_RT_INLINE float
nnl_sumterm(float v, int kind, float c)
{
	return kind == NNL_SUM_SQ ? (v - c) * (v - c) :
	    kind == NNL_SUM_ABS ? fabsf(v) : v - c;
}

/* x[0], x[s], ... x[(n - 1) s], one at a time (the edges). */
NNL_RT_INLINE nnl_real
nnl_strsum(const float *x, int64_t n, int64_t s, int kind, float c)
{
	nnl_real t = 0;

	for (int64_t b = 0; b < n; b += NNL_SUMBLK) {
		int64_t e = n - b < NNL_SUMBLK ? n : b + NNL_SUMBLK;
		float a = 0;

		for (int64_t j = b; j < e; j++)
			a += nnl_sumterm(x[j * s], kind, c);
		t += a;
	}
	return t;
}

#if NNL_VW > 1
NNL_RT_INLINE nnl_vf
nnl_vsumterm(nnl_vf v, int kind, nnl_vf c)
{
	if (kind == NNL_SUM_SQ)
		return (v - c) * (v - c);
	if (kind == NNL_SUM_ABS)
		return (nnl_vf)((nnl_vi)v & 0x7fffffff);
	return v - c;
}
#endif

NNL_RT_INLINE nnl_real
nnl_rowsum(const float *x, int64_t n, int kind, float c)
{
#if NNL_VW > 1
	nnl_real t = 0;
	nnl_vf vc = nnl_vsplat(c);

	for (int64_t b = 0; b < n; b += NNL_SUMBLK) {
		int64_t e = n - b < NNL_SUMBLK ? n : b + NNL_SUMBLK, j = b;
		nnl_vf a0 = nnl_vsplat(0), a1 = a0;
		float a = 0;

		for (; j + 2 * NNL_VW <= e; j += 2 * NNL_VW) {
			a0 += nnl_vsumterm(nnl_vload(x + j), kind, vc);
			a1 += nnl_vsumterm(nnl_vload(x + j + NNL_VW), kind,
			    vc);
		}
		a0 += a1;
		for (int l = 0; l < NNL_VW; l++)
			t += a0[l];
		for (; j < e; j++)
			a += nnl_sumterm(x[j], kind, c);
		t += a;
	}
	return t;
#else
	return nnl_strsum(x, n, 1, kind, c);
#endif
}

/* The greatest (ismax) or least of a row, a NaN never winning: what
 * nnl_k_reduce's elementwise loop keeps. */
NNL_RT_INLINE float
nnl_rowmax(const float *x, int64_t n, int ismax)
{
	float m = ismax ? -INFINITY : INFINITY;
	int64_t j = 0;

#if NNL_VW > 1
	if (n >= NNL_VW) {
		nnl_vf a = nnl_vsplat(m);

		/* x86's max and min give their second operand where
		 * either is NaN: the accumulator, never NaN */
		for (; j < n - n % NNL_VW; j += NNL_VW)
			a = ismax ? nnl_vmax(nnl_vload(x + j), a) :
			    nnl_vmin(nnl_vload(x + j), a);
		for (int l = 0; l < NNL_VW; l++)
			if (ismax ? a[l] > m : a[l] < m)
				m = a[l];
	}
#endif
	for (; j < n; j++)
		if (ismax ? x[j] > m : x[j] < m)
			m = x[j];
	return m;
}

#if NNL_VW > 1
/* nnl_rowsum for the NNL_VW columns at x of n rows s floats apart,
 * with centres c, into t[0..NNL_VW). */
NNL_RT_INLINE void
nnl_colsum(const float *x, int64_t n, int64_t s, int kind, nnl_vf c,
    nnl_real *t)
{
	for (int l = 0; l < NNL_VW; l++)
		t[l] = 0;
	for (int64_t b = 0; b < n; b += NNL_SUMBLK) {
		int64_t e = n - b < NNL_SUMBLK ? n : b + NNL_SUMBLK, j = b;
		nnl_vf a0 = nnl_vsplat(0), a1 = a0;

		for (; j + 2 <= e; j += 2) {
			a0 += nnl_vsumterm(nnl_vload(x + j * s), kind, c);
			a1 += nnl_vsumterm(nnl_vload(x + (j + 1) * s), kind,
			    c);
		}
		if (j < e)
			a0 += nnl_vsumterm(nnl_vload(x + j * s), kind, c);
		a0 += a1;
		for (int l = 0; l < NNL_VW; l++)
			t[l] += a0[l];
	}
}

/* nnl_rowmax for the NNL_VW columns at x of n rows s floats apart. */
NNL_RT_INLINE nnl_vf
nnl_colmax(const float *x, int64_t n, int64_t s, int ismax)
{
	nnl_vf a = nnl_vsplat(ismax ? -INFINITY : INFINITY);

	for (int64_t j = 0; j < n; j++)
		a = ismax ? nnl_vmax(nnl_vload(x + j * s), a) :
		    nnl_vmin(nnl_vload(x + j * s), a);
	return a;
}
#endif

typedef void nnl_kernel_fn(const int64_t *ip, const double *fp,
    const void *const *in, void *const *out, void *scratch);

/* Data type codes in ip[] (the order of common/dtype.h): WebNN's, then
 * nnl's extended types (float64, int16, uint16, bfloat16). */
enum {
	NNL_F32, NNL_F16, NNL_I32, NNL_U32, NNL_I64, NNL_U64, NNL_I8,
	NNL_U8, NNL_I4, NNL_U4, NNL_F64, NNL_I16, NNL_U16, NNL_BF16
};

/* Is dt a floating type / an unsigned integer type? */
#define nnl_isfloat(dt) ((dt) == NNL_F32 || (dt) == NNL_F16 || \
    (dt) == NNL_F64 || (dt) == NNL_BF16)
#define nnl_isuns(dt) ((dt) == NNL_U8 || (dt) == NNL_U16 || \
    (dt) == NNL_U32 || (dt) == NNL_U64)

/* IEEE 754 binary16, stored as its bits. */
typedef uint16_t nnl_f16;

NNL_RT_INLINE float
nnl_f16_to_f32(nnl_f16 h)
{
	uint32_t s = (uint32_t)(h & 0x8000) << 16, e = h >> 10 & 0x1f,
	    m = h & 0x3ff, bits;
	float f;

	if (e == 0) {
		if (m == 0) {
			bits = s;
		} else {	/* subnormal: normalise */
			e = 113;
			while (!(m & 0x400)) {
				m <<= 1;
				e--;
			}
			bits = s | e << 23 | (m & 0x3ff) << 13;
		}
	} else if (e == 31) {
		bits = s | 0x7f800000 | m << 13;
	} else {
		bits = s | (e + 112) << 23 | m << 13;
	}
	memcpy(&f, &bits, 4);
	return f;
}

/* Round to nearest, ties to even; overflow to infinity; NaN kept. */
NNL_RT_INLINE nnl_f16
nnl_f32_to_f16(float f)
{
	uint32_t x, s, e, m;

	memcpy(&x, &f, 4);
	s = x >> 16 & 0x8000;
	e = x >> 23 & 0xff;
	m = x & 0x7fffff;
	if (e == 0xff)
		return (nnl_f16)(s | 0x7c00 | (m ? 0x200 | m >> 13 : 0));
	if (e > 142)
		return (nnl_f16)(s | 0x7c00);
	if (e < 113) {		/* subnormal half, or zero */
		uint32_t shift;

		if (e < 102)
			return (nnl_f16)s;
		m |= 0x800000;
		shift = 126 - e;
		{
			uint32_t half = m >> shift, rem = m & ((1u << shift) - 1),
			    mid = 1u << (shift - 1);

			if (rem > mid || (rem == mid && (half & 1)))
				half++;
			return (nnl_f16)(s | half);
		}
	}
	{
		uint32_t h = s | (e - 112) << 10 | m >> 13, rem = m & 0x1fff;

		if (rem > 0x1000 || (rem == 0x1000 && (h & 1)))
			h++;	/* may carry into the exponent: correct */
		return (nnl_f16)h;
	}
}

/* bfloat16 (float32's upper half), stored as its bits. */
NNL_RT_INLINE float
nnl_bf16_to_f32(uint16_t h)
{
	uint32_t bits = (uint32_t)h << 16;
	float f;

	memcpy(&f, &bits, 4);
	return f;
}

/* Round to nearest, ties to even (as ONNX's Cast and ml_dtypes do);
 * NaN stays a (quiet) NaN of its sign. */
NNL_RT_INLINE uint16_t
nnl_f32_to_bf16(float f)
{
	uint32_t x;

	memcpy(&x, &f, 4);
	if ((x & 0x7fffffff) > 0x7f800000)
		return (uint16_t)(x >> 16 | 0x40);
	x += 0x7fff + (x >> 16 & 1);	/* may carry to infinity: correct */
	return (uint16_t)(x >> 16);
}

/* Elements of a shape. */
NNL_RT_INLINE int64_t
nnl_numel(int rank, const int64_t *dims)
{
	int64_t n = 1;

	for (int i = 0; i < rank; i++)
		n *= dims[i];
	return n;
}

/* Row-major strides of a shape (in elements). */
NNL_RT_INLINE void
nnl_strides(int r, const int64_t *dims, int64_t *st)
{
	int64_t s = 1;

	for (int i = r - 1; i >= 0; i--) {
		st[i] = s;
		s *= dims[i];
	}
}

/* The offsets into A and B of batch t of a broadcast product: t a
 * row-major index into the batch shape ob[0..r), as and bs each
 * operand's batch strides (0 where it broadcasts). */
NNL_RT_INLINE void
nnl_batchoff(int64_t t, int64_t r, const int64_t *ob, const int64_t *as,
    const int64_t *bs, int64_t *ai, int64_t *bi)
{
	*ai = *bi = 0;
	for (int64_t d = r - 1; d >= 0; d--) {
		int64_t c = t % ob[d];

		t /= ob[d];
		*ai += c * as[d];
		*bi += c * bs[d];
	}
}

/* Element i of a numeric tensor of type dt, as double / as int64. */
NNL_RT_INLINE double
nnl_loadf(const void *p, int64_t i, int64_t dt)
{
	switch (dt) {
	case NNL_F32: return ((const float *)p)[i];
	case NNL_F16: return nnl_f16_to_f32(((const nnl_f16 *)p)[i]);
	case NNL_I32: return ((const int32_t *)p)[i];
	case NNL_U32: return ((const uint32_t *)p)[i];
	case NNL_I64: return (double)((const int64_t *)p)[i];
	case NNL_U64: return (double)((const uint64_t *)p)[i];
	case NNL_I8: return ((const int8_t *)p)[i];
	case NNL_F64: return ((const double *)p)[i];
	case NNL_I16: return ((const int16_t *)p)[i];
	case NNL_U16: return ((const uint16_t *)p)[i];
	case NNL_BF16: return nnl_bf16_to_f32(((const uint16_t *)p)[i]);
	default: return ((const uint8_t *)p)[i];
	}
}

/* A double as int64_t, truncated, saturating at the ends of int64_t's
 * range, NaN as 0: a plain conversion out of range is undefined. */
NNL_RT_INLINE int64_t
nnl_dtoi(double v)
{
	if (!(v == v))
		return 0;
	if (v <= -9223372036854775808.0)
		return INT64_MIN;
	if (v >= 9223372036854775808.0)
		return INT64_MAX;
	return (int64_t)v;
}

/* A double as integer type dt (its bits in int64_t, as nnl_storei
 * takes them): truncated, saturating at the ends of dt's range, NaN as
 * 0. */
NNL_RT_INLINE int64_t
nnl_dtoi_sat(double v, int64_t dt)
{
	double lo, hi;

	v = v == v ? trunc(v) : 0;
	switch (dt) {
	case NNL_I8: lo = -128; hi = 127; break;
	case NNL_U8: lo = 0; hi = 255; break;
	case NNL_I16: lo = -32768; hi = 32767; break;
	case NNL_U16: lo = 0; hi = 65535; break;
	case NNL_I32: lo = -2147483648.0; hi = 2147483647.0; break;
	case NNL_U32: lo = 0; hi = 4294967295.0; break;
	case NNL_U64:
		if (v >= 18446744073709551616.0)	/* 2^64 */
			return -1;			/* UINT64_MAX */
		return (int64_t)(uint64_t)(v < 0 ? 0 : v);
	default: return nnl_dtoi(v);
	}
	return (int64_t)(v < lo ? lo : v > hi ? hi : v);
}

NNL_RT_INLINE int64_t
nnl_loadi(const void *p, int64_t i, int64_t dt)
{
	switch (dt) {
	case NNL_I32: return ((const int32_t *)p)[i];
	case NNL_U32: return ((const uint32_t *)p)[i];
	case NNL_I64: return ((const int64_t *)p)[i];
	case NNL_U64: return (int64_t)((const uint64_t *)p)[i];
	case NNL_I8: return ((const int8_t *)p)[i];
	case NNL_U8: return ((const uint8_t *)p)[i];
	case NNL_I16: return ((const int16_t *)p)[i];
	case NNL_U16: return ((const uint16_t *)p)[i];
	default: return nnl_dtoi(nnl_loadf(p, i, dt));
	}
}

/* v as a float rounded to odd (toward zero, the last bit set when
 * inexact): rounded on to float16 or bfloat16, to nearest, it gives
 * what rounding v there directly does, where rounding to nearest twice
 * may not (1 + 2^-11 + 2^-40 is 1 + 2^-11 as a float, a tie that goes
 * down to float16's 1, not up to 1 + 2^-10). */
NNL_RT_INLINE float
nnl_f64_to_f32_odd(double v)
{
	float f = (float)v;
	uint32_t b;

	if (!(f == f) || (double)f == v)
		return f;
	memcpy(&b, &f, 4);
	if (fabs((double)f) > fabs(v))
		b--;		/* the magnitude one step toward zero */
	b |= 1;
	memcpy(&f, &b, 4);
	return f;
}

/* v into element i of a float tensor (float16 and bfloat16 through
 * float rounded to odd: one rounding, as a direct conversion). */
NNL_RT_INLINE void
nnl_storef(void *p, int64_t i, int64_t dt, double v)
{
	switch (dt) {
	case NNL_F32: ((float *)p)[i] = (float)v; break;
	case NNL_F64: ((double *)p)[i] = v; break;
	case NNL_BF16:
		((uint16_t *)p)[i] = nnl_f32_to_bf16(nnl_f64_to_f32_odd(v));
		break;
	default:
		((nnl_f16 *)p)[i] = nnl_f32_to_f16(nnl_f64_to_f32_odd(v));
		break;
	}
}

/* Element i of a float tensor, as nnl_real, and back. */
NNL_RT_INLINE nnl_real
nnl_loadr(const void *p, int64_t i, int64_t dt)
{
	return dt == NNL_F32 ? ((const float *)p)[i] :
	    (nnl_real)nnl_loadf(p, i, dt);
}

NNL_RT_INLINE void
nnl_storer(void *p, int64_t i, int64_t dt, nnl_real v)
{
	if (dt == NNL_F32)
		((float *)p)[i] = (float)v;
	else
		nnl_storef(p, i, dt, v);
}

NNL_RT_INLINE void
nnl_storei(void *p, int64_t i, int64_t dt, int64_t v)
{
	switch (dt) {
	case NNL_I32: ((int32_t *)p)[i] = (int32_t)v; break;
	case NNL_U32: ((uint32_t *)p)[i] = (uint32_t)v; break;
	case NNL_I64: ((int64_t *)p)[i] = v; break;
	case NNL_U64: ((uint64_t *)p)[i] = (uint64_t)v; break;
	case NNL_I8: ((int8_t *)p)[i] = (int8_t)v; break;
	case NNL_I16: ((int16_t *)p)[i] = (int16_t)v; break;
	case NNL_U16: ((uint16_t *)p)[i] = (uint16_t)v; break;
	default: ((uint8_t *)p)[i] = (uint8_t)v; break;
	}
}


/*
 * float16 through float32: NAME_f16 converts its float16 inputs (the
 * first nconv of its nin inputs, with their element counts in ip) into
 * the scratch, runs NAME_f32 there and converts the output back.
 * ip: nconv, nin, counts[nconv], output count, then NAME_f32's
 * parameters; scratch: the float32 copies, then NAME_f32's scratch
 * at the next multiple of 16 floats (64 bytes), as aligned as the
 * scratch itself: NAME_f32 may keep doubles there.
 */
#define NNL_F16_VIA_F32(name) \
NNL_RT void \
nnl_k_##name##_f16(const int64_t *ip, const double *fp, \
    const void *const *in, void *const *out, void *scratch) \
{ \
	int64_t nconv = ip[0], nin = ip[1], on = ip[2 + nconv]; \
	const void *cin[16]; \
	float *s = scratch, *o; \
	void *cout[1]; \
	for (int64_t k = 0; k < nin && k < 16; k++) \
		cin[k] = in[k]; \
	for (int64_t k = 0; k < nconv; k++) { \
		const nnl_f16 *h = in[k]; \
		if (h) \
			for (int64_t i = 0; i < ip[2 + k]; i++) \
				s[i] = nnl_f16_to_f32(h[i]); \
		cin[k] = h ? s : 0; \
		s += ip[2 + k]; \
	} \
	o = s; \
	cout[0] = o; \
	s = (float *)scratch + (o + on - (float *)scratch + 15) / 16 * 16; \
	nnl_k_##name##_f32(ip + 3 + nconv, fp, cin, cout, s); \
	for (int64_t i = 0; i < on; i++) \
		((nnl_f16 *)out[0])[i] = nnl_f32_to_f16(o[i]); \
}

#ifdef NNL_RT_THREADS
/* Code built for NNL_RT_THREADS threads: the pool of par.c, which
 * nnl-emit-c pastes last. */
typedef void nnl_par_fn(void *ctx, int64_t part, int thread);
NNL_RT void nnl_par_run(nnl_par_fn *fn, void *ctx, int64_t nparts);
NNL_RT int nnl_par_threads(void);
NNL_RT int nnl_par_sgemm(const struct nnl_gemm_kernel *u, int64_t M,
    int64_t N, int64_t K, float alpha, const float *A, int64_t lda, int ta,
    const float *B, int64_t ldb, int tb, float *C, int64_t ldc, float *pack,
    const struct nnl_gemm_epi *e);
NNL_RT void nnl_par_im2col(const float *x, int64_t icg, int64_t H,
    int64_t W, int64_t oy0, int64_t OH, int64_t OW, int64_t kh, int64_t kw,
    int64_t sh, int64_t sw, int64_t dh, int64_t dw, int64_t pt, int64_t pl,
    float *col);
NNL_RT void nnl_par_dw_nchw(const float *x, const float *w, int64_t wc,
    int64_t wt, const float *bias, float *y, const int64_t *ip,
    int64_t act, float lo, float hi, float *pad);
NNL_RT int nnl_par_pool_nchw(const int64_t *ip, const float *x, float *y);
/* rt/nn/nn.c's nnl_conv_stem by bands of output rows: 0 where too small
 * to split. */
NNL_RT int nnl_par_stem(const float *x, const float *w, const float *bias,
    float *y, const int64_t *ip, int64_t act, float lo, float hi);
NNL_RT int nnl_par_sgemm_rows(int64_t M, int64_t N, int64_t K, float alpha,
    const float *A, int64_t lda, int ta, const float *B, int64_t ldb,
    int tb, float *C, int64_t ldc, const struct nnl_gemm_epi *e);
NNL_RT int nnl_par_sgemm_cols(int64_t M, int64_t N, int64_t K, float alpha,
    const float *A, int64_t lda, int ta, const float *B, int64_t ldb,
    int tb, float *C, int64_t ldc, const struct nnl_gemm_epi *e);
/* An nchw conv2d's group by bands of output rows (rt/nn/nn.c): the band's
 * im2col into col, then its product with the filter w (lda, ta) into
 * y (rows P floats apart) from e; col and pack hold a band's im2col
 * (Kd x nb floats) and packing space (ps floats) for each thread. */
struct nnl_conv_bands {
	const float *x, *w;
	float *y, *col, *pack;
	int64_t icg, H, W, OH, OW, kh, kw, sh, sw, dh, dw, pt, pl;
	int64_t ocg, Kd, lda, ta, P, ny, nb, ps;
	const struct nnl_gemm_epi *e;
};
NNL_RT int nnl_par_bands(const struct nnl_conv_bands *b);
NNL_RT int nnl_par_concat(const int64_t *ip, const void *const *in,
    void *const *out);
/* rt/elementwise/ew.c's float32 elementwise ops of n contiguous floats, y = a op b
 * (op an nnl_binary_f32 op) or, with b null, relu of a: 0 where too
 * small to split. */
NNL_RT int nnl_par_flat(int64_t op, const float *a, const float *b,
    float *y, int64_t n);
/* rt/elementwise/ew.c's broadcast float32 binary op over the rows of
 * its collapsed shape s: 0 where too small to split. */
NNL_RT int nnl_par_brows(int64_t op, const struct nnl_bshape *s,
    const float *a, const float *b, float *y);
/* nnl_addact split the same way (a conv2d's residual): 0 where too
 * small to split. */
NNL_RT int nnl_par_addact(float *y, const float *r, int64_t n,
    int64_t act, float lo, float hi);
/* y = f(x) for one of rt/f32-vmath's array functions, split the same
 * way: 0 where too small to split. */
NNL_RT int nnl_par_vmath(void (*f)(const float *, float *, int64_t),
    const float *x, float *y, int64_t n);
/* A flipped conv2d's product t[P][O] = op(A) op(B) from e (rt/nn/nn.c),
 * then its transposition into y[O][P], by whole tiles of columns or
 * rows. */
NNL_RT int nnl_par_flip(int64_t P, int64_t O, int64_t K, const float *A,
    int64_t lda, const float *B, int64_t ldb, int tb, float *t,
    float *pack, const struct nnl_gemm_epi *e, float *y);
#endif

#endif
