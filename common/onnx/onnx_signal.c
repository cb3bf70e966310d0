/*
 * onnx_signal: ONNX's signal and linear-algebra ops to nnl's ops
 * beyond WebNN: Det to det, DFT to dft, STFT to a gather of its
 * frames (an index known at import time), the window's mul and a dft,
 * and MelWeightMatrix, a constant folded here from constant inputs,
 * nnl's melWeightMatrix of a bounded size from inputs computed at run
 * time (its shape is its inputs' values).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onnx_imp.h"
#include "kernel.h"

/* Det (opsets 11 and 22): nnl's det. */
int
onnx_det(struct imp *m)
{
	const char *x = in(m, 0);

	if (!x)
		return nodeerr(m, "X is required");
	if (!dtype_isfloat(ty(m, x)->dt))
		return refuse(m, REFUSE_TYPE, "Det on %s",
		    dtype_name(ty(m, x)->dt));
	return imp_done(m, 0, emit(m, "det", NULL, outname(m, 0), 1, x));
}

/* Scalar integer input i, known at import time: 0 with *v set, 0 and
 * *v untouched when absent, REFUSED when computed at run time. */
static int
cint(struct imp *m, int i, const char *what, int64_t *v)
{
	const char *x = in(m, i);
	int64_t *p = NULL;
	size_t n = 0;

	if (!x)
		return 0;
	if (cints(m, x, &p, &n) != 0)
		return refuse(m, REFUSE_CONST, "%s computed at run time", what);
	if (n != 1) {
		free(p);
		return nodeerr(m, "%s holds %zu values, not one", what, n);
	}
	*v = p[0];
	free(p);
	return 0;
}

/* dft of x along axis (of x, not the last) over n points (0: the
 * axis' size), as output out. */
static const char *
dft(struct imp *m, const char *x, int64_t axis, int64_t n, int inv, int one,
    const char *out)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddNumberToObject(o, "axis", (double)axis);
	if (inv)
		cJSON_AddTrueToObject(o, "inverse");
	if (one)
		cJSON_AddTrueToObject(o, "onesided");
	if (n > 0)
		cJSON_AddNumberToObject(o, "dftLength", (double)n);
	return emit(m, "dft", o, out, 1, x);
}

/* The checks DFT and STFT share: x real or complex of a float type,
 * onesided of a real forward transform only. */
static int
signalok(struct imp *m, const struct tdesc *t, int inv, int one)
{
	if (!dtype_isfloat(t->dt))
		return refuse(m, REFUSE_TYPE, "%s on %s", m->n->op_type,
		    dtype_name(t->dt));
	if (t->rank < 2 || (t->dims[t->rank - 1] != 1 &&
	    t->dims[t->rank - 1] != 2))
		return nodeerr(m, "the signal is not [..., 1] nor [..., 2]");
	if (one && (inv || t->dims[t->rank - 1] == 2))
		return refuse(m, REFUSE_ATTR, "onesided of %s",
		    inv ? "an inverse transform" : "a complex signal");
	return 0;
}

/*
 * DFT (opsets 17 and 20): axis an attribute (default 1) up to 19, an
 * input after that (default -2; negative counts from the back);
 * dft_length an input, known at import time.
 */
int
onnx_dft(struct imp *m)
{
	const char *x = in(m, 0);
	const struct tdesc *t;
	int64_t n = 0, axis = m->opset >= 20 ? -2 : att_i(m, "axis", 1);
	int inv = att_i(m, "inverse", 0) != 0, one = att_i(m, "onesided",
	    0) != 0, rc;

	if (!x)
		return nodeerr(m, "input is required");
	t = ty(m, x);
	if ((rc = signalok(m, t, inv, one)) != 0 ||
	    (rc = cint(m, 1, "dft_length", &n)) != 0 ||
	    (m->opset >= 20 && (rc = cint(m, 2, "axis", &axis)) != 0))
		return rc;
	if (in(m, 1) && n < 1)
		return nodeerr(m, "dft_length %lld", (long long)n);
	if (n > UINT32_MAX)
		return refuse(m, REFUSE_SIZE, "dft_length %lld",
		    (long long)n);
	if (axis < 0)
		axis += t->rank;
	if (axis < 0 || axis >= t->rank - 1)
		return nodeerr(m, "axis %lld is not a signal axis of rank %d",
		    (long long)(axis < 0 ? axis - t->rank : axis), t->rank);
	return imp_done(m, 0, dft(m, x, axis, n, inv, one, outname(m, 0)));
}

/*
 * STFT (opset 17): signal [B, T, 1 or 2]; frame_step and frame_length
 * known at import time (frame_length defaults to the window's size).
 * Frames f = 0 .. (T - L) / step are gathered into [B, F, L, C],
 * multiplied by the window ([L] as [1, 1, L, 1]) and transformed along
 * axis 2, onesided by default: [B, F, L / 2 + 1 or L, 2].
 */
int
onnx_stft(struct imp *m)
{
	const char *x = in(m, 0), *w = in(m, 2), *y;
	const struct tdesc *t;
	int64_t step = 0, len = 0, nf, idims[2], wdims[4] = { 1, 1, 0, 1 };
	int64_t *idx;
	int one = att_i(m, "onesided", 1) != 0, rc;
	cJSON *o;

	if (!x || !in(m, 1))
		return nodeerr(m, "signal and frame_step are required");
	t = ty(m, x);
	if ((rc = signalok(m, t, 0, one)) != 0 ||
	    (rc = cint(m, 1, "frame_step", &step)) != 0 ||
	    (rc = cint(m, 3, "frame_length", &len)) != 0)
		return rc;
	if (t->rank != 3)
		return nodeerr(m, "the signal is not [batch, length, 1 or 2]");
	if (w && (ty(m, w)->rank != 1 || ty(m, w)->dt != t->dt))
		return nodeerr(m, "the window is not a vector of the "
		    "signal's type");
	if (w && in(m, 3) && ty(m, w)->dims[0] != len)
		return nodeerr(m, "a window of %lld for frames of %lld",
		    (long long)ty(m, w)->dims[0], (long long)len);
	if (w && !in(m, 3))
		len = ty(m, w)->dims[0];
	if (!w && !in(m, 3))
		return nodeerr(m, "neither a window nor frame_length");
	if (step < 1 || len < 1)
		return nodeerr(m, "frame_step %lld, frame_length %lld",
		    (long long)step, (long long)len);
	if (len > t->dims[1])
		return refuse(m, REFUSE_EMPTY, "frames of %lld in a signal "
		    "of %lld: no frame", (long long)len,
		    (long long)t->dims[1]);
	nf = (t->dims[1] - len) / step + 1;
	if (nf > (1 << 20) / len)
		return refuse(m, REFUSE_SIZE, "%lld frames of %lld",
		    (long long)nf, (long long)len);
	idx = xmalloc((size_t)(nf * len) * sizeof *idx);
	for (int64_t f = 0; f < nf; f++)
		for (int64_t j = 0; j < len; j++)
			idx[f * len + j] = f * step + j;
	idims[0] = nf;
	idims[1] = len;
	o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "axis", 1);
	y = emit(m, "gather", o, NULL, 2, x, mkconst(m, "frames", DT_INT64,
	    2, idims, idx));
	free(idx);
	if (y && w) {
		wdims[2] = len;
		y = emit(m, "mul", NULL, NULL, 2, y, imp_reshape(m, w, 4,
		    wdims, NULL));
	}
	if (!y)
		return -1;
	return imp_done(m, 0, dft(m, y, 2, 0, 0, one, outname(m, 0)));
}

/*
 * MelWeightMatrix (opset 17): [dft_length / 2 + 1, num_mel_bins] of
 * triangles on the mel scale, computed by nnl's melWeightMatrix kernel
 * (rt/tensor/tensor.c, the ONNX backend data's spacing).  Its shape is
 * its inputs' values: constant inputs fold to a constant here, through
 * that kernel; inputs computed at run time make nnl's melWeightMatrix,
 * held at --bound (onnx_bounded.c).
 */
int
onnx_melweightmatrix(struct imp *m)
{
	int64_t nmel = 0, len = 0, rate = 0, bins, dims[2], ip[4], sh[2];
	double lo = 0, hi = 0, *v = NULL, *w;
	size_t k = 0;
	int64_t ot = att_i(m, "output_datatype", 1);
	const char *dtn = NULL, *y;
	enum dtype dt = onnx_dtype((int32_t)ot, &dtn);
	const void *ins[5] = { &nmel, &len, &rate, &lo, &hi };
	void *outs[2];
	int rc, late = 0;

	for (int i = 0; i < 5; i++)
		if (!in(m, i))
			return nodeerr(m, "input %d is required", i);
	if (dt == DT_NONE || !dtype_isfloat(dt))
		return refuse(m, REFUSE_TYPE, "output_datatype %lld",
		    (long long)ot);
	for (int i = 0; i < 5; i++)
		late += !cbytes(m, in(m, i));
	if (late)
		return onnx_melweightmatrix_bounded(m, dt);
	if ((rc = cint(m, 0, "num_mel_bins", &nmel)) != 0 ||
	    (rc = cint(m, 1, "dft_length", &len)) != 0 ||
	    (rc = cint(m, 2, "sample_rate", &rate)) != 0)
		return rc;
	for (int i = 3; i < 5; i++) {
		if (cfloats(m, in(m, i), &v, &k) != 0)
			return refuse(m, REFUSE_CONST, "%s computed at run "
			    "time", i == 3 ? "lower_edge_hertz" :
			    "upper_edge_hertz");
		if (k != 1) {
			free(v);
			return nodeerr(m, "input %d holds %zu values, not "
			    "one", i, k);
		}
		*(i == 3 ? &lo : &hi) = v[0];
		free(v);
	}
	if (nmel < 1 || len < 1 || rate < 1 || !(lo >= 0) || !(hi > lo) ||
	    !(hi < HUGE_VAL))
		return nodeerr(m, "num_mel_bins %lld, dft_length %lld, "
		    "sample_rate %lld, edges %g to %g Hz", (long long)nmel,
		    (long long)len, (long long)rate, lo, hi);
	bins = len / 2 + 1;
	if (nmel > (1 << 16) || bins > (1 << 16))
		return refuse(m, REFUSE_SIZE, "%lld x %lld", (long long)bins,
		    (long long)nmel);
	ip[0] = NNL_F64;
	ip[1] = bins * nmel;
	ip[2] = NNL_I64;
	ip[3] = NNL_F64;
	w = xcalloc((size_t)(bins * nmel), sizeof *w);
	outs[0] = w;
	outs[1] = sh;
	kernel_lookup("mel_weight_matrix")(ip, NULL, ins, outs, NULL);
	dims[0] = bins;
	dims[1] = nmel;
	y = sh[0] == bins && sh[1] == nmel ? mkconst(m, "mel", DT_FLOAT64,
	    2, dims, w) : NULL;
	free(w);
	if (!y)
		return nodeerr(m, "the kernel made [%lld, %lld]",
		    (long long)sh[0], (long long)sh[1]);
	return imp_done(m, 0, imp_cast(m, y, dt));
}
