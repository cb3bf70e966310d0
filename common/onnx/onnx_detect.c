/*
 * onnx_detect: detection post-processing, to nnl's ops beyond WebNN:
 * NonMaxSuppression, whose selection's size is known only at run time
 * (a bound, and a count beside it: nnl-graph(5)).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onnx_imp.h"
#include "escape.h"

/* Scalar input i (or its only element) as a number; 0 and *v untouched
 * when absent, REFUSED when computed at run time. */
static int
cscalar(struct imp *m, int i, double *v, int *present)
{
	const char *x = in(m, i);
	double *f = NULL;
	size_t n = 0;

	*present = 0;
	if (!x)
		return 0;
	if (cfloats(m, x, &f, &n) != 0)
		return refuse(m, REFUSE_CONST, "input %d computed at run "
		    "time", i);
	if (n != 1) {
		free(f);
		return nodeerr(m, "input %d holds %zu values, not one", i, n);
	}
	*v = f[0];
	*present = 1;
	free(f);
	return 0;
}

/* NonMaxSuppression: nnl's nonMaxSuppression, its thresholds and the
 * most boxes per class known at import time. */
int
onnx_nms(struct imp *m)
{
	const char *b = in(m, 0), *s = in(m, 1), *ins[2], *names[2];
	double max = 0, iou = 0, st = 0;
	int64_t cpb = att_i(m, "center_point_box", 0);
	int has, rc;
	cJSON *o;

	if (!b || !s)
		return nodeerr(m, "boxes and scores are required");
	if ((rc = cscalar(m, 2, &max, &has)) != 0 ||
	    (rc = cscalar(m, 3, &iou, &has)) != 0 ||
	    (rc = cscalar(m, 4, &st, &has)) != 0)
		return rc;
	if (cpb != 0 && cpb != 1)
		return refuse(m, REFUSE_ATTR, "center_point_box %lld (0 or 1)",
		    (long long)cpb);
	if (max < 1)
		return refuse(m, REFUSE_EMPTY, "max_output_boxes_per_class "
		    "%g selects nothing", max);
	if (max > ty(m, b)->dims[1])
		max = (double)ty(m, b)->dims[1];
	o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "maxOutputBoxesPerClass", max);
	cJSON_AddNumberToObject(o, "iouThreshold", iou);
	if (has)
		cJSON_AddNumberToObject(o, "scoreThreshold", st);
	cJSON_AddBoolToObject(o, "centerPointBox", cpb != 0);
	ins[0] = b;
	ins[1] = s;
	names[0] = outname(m, 0);
	names[1] = NULL;
	if (emitn(m, "nonMaxSuppression", o, 2, names, 2, ins) != 0)
		return -1;
	bind(m, 0, names[0]);
	cJSON_AddStringToObject(m->bounded, names[0], names[1]);
	return 0;
}

/* GridSample (opsets 16 and 20, 4-D): nnl's gridSample. */
int
onnx_gridsample(struct imp *m)
{
	static const char *const modes[] = { "bilinear", "bilinear",
		"linear", "bilinear", "nearest", "nearest", "bicubic",
		"bicubic", "cubic", "bicubic", NULL };
	const char *x = in(m, 0), *g = in(m, 1), *mode, *pad, *to = NULL;
	char mb[32];
	cJSON *o;

	if (!x || !g)
		return nodeerr(m, "X and Grid are required");
	snprintf(mb, sizeof mb, "%s", att_s(m, "mode", m->opset >= 20 ?
	    "linear" : "bilinear"));
	mode = mb;
	pad = att_s(m, "padding_mode", "zeros");
	for (int i = 0; modes[i]; i += 2)
		if (strcmp(mode, modes[i]) == 0)
			to = modes[i + 1];
	if (!to)
		return refuse(m, REFUSE_ATTR, "mode %s", escape_tty_name(mode));
	if (strcmp(pad, "zeros") && strcmp(pad, "border") &&
	    strcmp(pad, "reflection"))
		return refuse(m, REFUSE_ATTR, "padding_mode %s",
		    escape_tty_name(pad));
	if (ty(m, x)->rank != 4)
		return refuse(m, REFUSE_RANK, "GridSample of rank %d (4 only)",
		    ty(m, x)->rank);
	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "mode", to);
	cJSON_AddStringToObject(o, "paddingMode", pad);
	cJSON_AddBoolToObject(o, "alignCorners", att_i(m, "align_corners",
	    0) != 0);
	return imp_done(m, 0, emit(m, "gridSample", o, outname(m, 0), 2, x,
	    g));
}

/* RoiAlign (opsets 10 and 16): nnl's roiAlign.  Opset 10 knows only
 * the output_half_pixel coordinates, which opset 16 names. */
int
onnx_roialign(struct imp *m)
{
	const char *x = in(m, 0), *r = in(m, 1), *bi = in(m, 2), *mode;
	char ctm[32];
	int64_t oh = att_i(m, "output_height", 1);
	int64_t ow = att_i(m, "output_width", 1);
	int64_t sr = att_i(m, "sampling_ratio", 0);
	cJSON *o;

	if (!x || !r || !bi)
		return nodeerr(m, "X, rois and batch_indices are required");
	snprintf(ctm, sizeof ctm, "%s", att_s(m,
	    "coordinate_transformation_mode", m->opset >= 16 ? "half_pixel" :
	    "output_half_pixel"));
	mode = att_s(m, "mode", "avg");
	if (strcmp(mode, "avg") && strcmp(mode, "max"))
		return refuse(m, REFUSE_ATTR, "mode %s", escape_tty_name(mode));
	if (strcmp(ctm, "half_pixel") && strcmp(ctm, "output_half_pixel"))
		return refuse(m, REFUSE_ATTR, "coordinate_transformation_mode "
		    "%s", escape_tty_name(ctm));
	if (oh < 1 || ow < 1 || sr < 0 || oh > UINT32_MAX ||
	    ow > UINT32_MAX || sr > UINT32_MAX)
		return nodeerr(m, "output %lld x %lld, sampling_ratio %lld",
		    (long long)oh, (long long)ow, (long long)sr);
	o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "outputHeight", (double)oh);
	cJSON_AddNumberToObject(o, "outputWidth", (double)ow);
	cJSON_AddNumberToObject(o, "samplingRatio", (double)sr);
	cJSON_AddNumberToObject(o, "spatialScale", att_f(m, "spatial_scale",
	    1));
	cJSON_AddStringToObject(o, "mode", mode);
	cJSON_AddStringToObject(o, "coordinateTransformationMode",
	    strcmp(ctm, "half_pixel") == 0 ? "halfPixel" : "outputHalfPixel");
	return imp_done(m, 0, emit(m, "roiAlign", o, outname(m, 0), 3, x, r,
	    bi));
}

/* NonZero of a computed input: nnl's nonZero, of data-dependent
 * shape (onnx_nonzero folds a constant one). */
int
onnx_nonzero_bounded(struct imp *m)
{
	const char *x = in(m, 0), *names[2] = { outname(m, 0), NULL };

	if (!x)
		return nodeerr(m, "X is required");
	if (ty(m, x)->rank < 1)
		return refuse(m, REFUSE_RANK, "NonZero of a scalar");
	if (tdesc_numel(ty(m, x)) < 1)
		return refuse(m, REFUSE_EMPTY, "an empty input");
	if (emitn(m, "nonZero", NULL, 2, names, 1, &x) != 0)
		return -1;
	bind(m, 0, names[0]);
	cJSON_AddStringToObject(m->bounded, names[0], names[1]);
	return 0;
}

/* Unique (opset 11): nnl's unique; its outputs Y, indices and counts
 * of data-dependent shape, inverse_indices not. */
int
onnx_unique(struct imp *m)
{
	const char *x = in(m, 0), *names[7] = { NULL };
	const Onnx__AttributeProto *a = att(m, "axis");
	int64_t axis = att_i(m, "axis", 0);
	int r;
	cJSON *o;

	if (!x)
		return nodeerr(m, "X is required");
	r = ty(m, x)->rank;
	if (tdesc_numel(ty(m, x)) < 1)
		return refuse(m, REFUSE_EMPTY, "an empty input");
	if (a && (axis < -r || axis >= r))
		return nodeerr(m, "axis %lld is out of range for rank %d",
		    (long long)axis, r);
	o = cJSON_CreateObject();
	if (a)
		cJSON_AddNumberToObject(o, "axis", (double)(axis < 0 ?
		    axis + r : axis));
	cJSON_AddBoolToObject(o, "sorted", att_i(m, "sorted", 1) != 0);
	for (int k = 0; k < 4; k++)
		names[k] = outname(m, k);
	if (emitn(m, "unique", o, 7, names, 1, &x) != 0)
		return -1;
	for (int k = 0; k < 4 && k < nouts(m); k++) {
		if (!outname(m, k))
			continue;
		bind(m, k, names[k]);
		if (k != 2)
			cJSON_AddStringToObject(m->bounded, names[k],
			    names[k == 3 ? 6 : 4 + k]);
	}
	return 0;
}
