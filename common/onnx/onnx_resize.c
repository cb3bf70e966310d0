/*
 * onnx_resize: Resize and Upsample.  Each resized axis is a constant
 * map from output positions to weighted input taps (nearest: one,
 * linear: two, cubic: four), computed here as ONNX defines it.  When
 * at most two axes change and WebNN's resample2d computes the same
 * maps, the node becomes a resample2d; otherwise gathers along the
 * axis and constant weights spell the maps out exactly.
 * tf_crop_and_resize maps each axis from its region of interest (the
 * roi input, a constant); an output position whose coordinate falls
 * outside the input takes extrapolation_value, set by a where once
 * every axis is gathered.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checked.h"
#include "onnx_imp.h"
#include "escape.h"

enum { MAXTAP = 4 };

struct rsz {
	const char *mode, *coord, *nearest;
	double a;		/* cubic_coeff_a */
	double ext;		/* extrapolation_value */
	int exclude, crop;	/* crop: tf_crop_and_resize */
};

/* One axis: out positions, ntap taps each (idx, w). */
struct amap {
	int64_t in, out;
	double scale, r0, r1;	/* r0, r1: the region of interest */
	int ntap, anyout;
	int64_t *idx;
	double *w;
	uint8_t *outside;	/* tf_crop_and_resize: extrapolated */
};

/* The input coordinate of output position o. */
static double
coord(const struct rsz *z, const struct amap *a, int64_t o)
{
	double s = a->scale, len = s * (double)a->in, x = (double)o;
	double n1 = (double)(a->in - 1);

	if (z->crop)
		return a->r0 * n1 + (a->out == 1 ? (a->r1 - a->r0) * n1 / 2 :
		    x * (a->r1 - a->r0) * n1 / (double)(a->out - 1));
	if (strcmp(z->coord, "asymmetric") == 0)
		return x / s;
	if (strcmp(z->coord, "align_corners") == 0)
		return len == 1 ? 0 : x * (double)(a->in - 1) / (len - 1);
	if (strcmp(z->coord, "pytorch_half_pixel") == 0)
		return len > 1 ? (x + 0.5) / s - 0.5 : -0.5;
	if (strcmp(z->coord, "tf_half_pixel_for_nn") == 0)
		return (x + 0.5) / s;
	if (strcmp(z->coord, "half_pixel_symmetric") == 0) {
		double adj = (double)a->out / len, c = (double)a->in / 2;

		return c * (1 - adj) + (x + 0.5) / s - 0.5;
	}
	return (x + 0.5) / s - 0.5;	/* half_pixel */
}

static int64_t
clampi(int64_t i, int64_t n)
{
	return i < 0 ? 0 : i >= n ? n - 1 : i;
}

static void
cubic(double r, double A, double *c)
{
	double t = r + 1, u = 1 - r, v = 2 - r;

	c[0] = ((A * t - 5 * A) * t + 8 * A) * t - 4 * A;
	c[1] = ((A + 2) * r - (A + 3)) * r * r + 1;
	c[2] = ((A + 2) * u - (A + 3)) * u * u + 1;
	c[3] = ((A * v - 5 * A) * v + 8 * A) * v - 4 * A;
}

/* The taps of output position o into idx[0..ntap), w[0..ntap). */
static void
taps(const struct rsz *z, const struct amap *a, int64_t o, int64_t *idx,
    double *w)
{
	double x = coord(z, a, o), f = floor(x), r = x - f;
	/* clampi() pins every tap to [0, in) anyway: clamped before the
	 * cast, an infinite or NaN coordinate (a scale of 1e-300) is an
	 * edge tap, not undefined */
	int64_t fi = checked_clamp_i64(f, -(INT64_C(1) << 62),
	    INT64_C(1) << 62);

	if (z->mode[0] == 'n') {
		const char *nm = z->nearest;
		int up = strcmp(nm, "ceil") == 0 ? r > 0 :
		    strcmp(nm, "floor") == 0 ? 0 :
		    strcmp(nm, "round_prefer_ceil") == 0 ? r >= 0.5 : r > 0.5;

		idx[0] = clampi(fi + up, a->in);
		w[0] = 1;
	} else if (z->mode[0] == 'l') {
		idx[0] = clampi(fi, a->in);
		idx[1] = clampi(fi + 1, a->in);
		w[0] = 1 - r;
		w[1] = r;
	} else {
		double sum = 0;

		if (r == 0)
			fi--, r = 1;
		cubic(r, z->a, w);
		for (int k = 0; k < 4; k++) {
			int64_t i = fi - 1 + k;

			if (z->exclude && (i < 0 || i >= a->in))
				w[k] = 0;
			sum += w[k];
			idx[k] = clampi(i, a->in);
		}
		for (int k = 0; z->exclude && sum != 0 && k < 4; k++)
			w[k] /= sum;
	}
}

/* WebNN resample2d's taps for o (the specification's algorithm). */
static int
webnntaps(const struct amap *a, int lin, int64_t o, int64_t *idx,
    double *w)
{
	double s = (double)a->out / (double)a->in;
	double c = ((double)o + 0.5) / s - 0.5;

	c = c < 0 ? 0 : c > (double)(a->in - 1) ? (double)(a->in - 1) : c;
	if (!lin) {
		idx[0] = (int64_t)ceil(c - 0.5);
		w[0] = 1;
		return 1;
	}
	idx[0] = (int64_t)floor(c);
	idx[1] = (int64_t)ceil(c);
	w[0] = 1 - (c - floor(c));
	w[1] = c - floor(c);
	return 2;
}

/* The weight n taps give input i. */
static double
weightof(const int64_t *idx, const double *w, int n, int64_t i)
{
	double s = 0;

	for (int k = 0; k < n; k++)
		s += idx[k] == i ? w[k] : 0;
	return s;
}

/* Do two tap lists agree for every output position? lin: WebNN's
 * linear mode, -1 the identity. */
static int
same(const struct amap *a, int lin)
{
	for (int64_t o = 0; o < a->out; o++) {
		int64_t wi[2];
		double ww[2];
		int n = 1;
		const int64_t *ti = a->idx + o * a->ntap;
		const double *tw = a->w + o * a->ntap;

		if (lin < 0) {
			if (a->out != a->in)
				return 0;
			wi[0] = o;
			ww[0] = 1;
		} else {
			n = webnntaps(a, lin, o, wi, ww);
		}
		for (int k = 0; k < a->ntap; k++)
			if (fabs(weightof(ti, tw, a->ntap, ti[k]) -
			    weightof(wi, ww, n, ti[k])) > 1e-6)
				return 0;
		for (int k = 0; k < n; k++)
			if (fabs(weightof(ti, tw, a->ntap, wi[k]) -
			    weightof(wi, ww, n, wi[k])) > 1e-6)
				return 0;
	}
	return 1;
}

static void
mapfill(const struct rsz *z, struct amap *a)
{
	a->ntap = z->mode[0] == 'n' ? 1 : z->mode[0] == 'l' ? 2 : 4;
	a->idx = xcalloc((size_t)(a->out * a->ntap) + 1, sizeof *a->idx);
	a->w = xcalloc((size_t)(a->out * a->ntap) + 1, sizeof *a->w);
	a->outside = xcalloc((size_t)a->out + 1, 1);
	for (int64_t o = 0; o < a->out; o++) {
		double x = coord(z, a, o);

		taps(z, a, o, a->idx + o * a->ntap, a->w + o * a->ntap);
		if (z->crop && !(x >= 0 && x <= (double)(a->in - 1)))
			a->outside[o] = 1, a->anyout = 1;
	}
}

/* y with extrapolation_value where axis ax's coordinate is outside. */
static const char *
extrapolate(struct imp *m, const struct rsz *z, const char *y, int ax,
    const struct amap *a)
{
	const struct tdesc *t = ty(m, y);
	int64_t *d;
	const char *c;

	if (!y || !a->anyout)
		return y;
	d = xcalloc((size_t)t->rank + 1, sizeof *d);
	for (int i = 0; i < t->rank; i++)
		d[i] = i == ax ? a->out : 1;
	c = mkconst(m, NULL, DT_UINT8, t->rank, d, a->outside);
	free(d);
	return emit(m, "where", NULL, NULL, 3, c, mkscalar(m, t->dt, z->ext),
	    y);
}

/* y resized along axis ax by the map: gathers and weights. */
static const char *
gatheraxis(struct imp *m, const char *y, int ax, const struct amap *a)
{
	const struct tdesc *t = ty(m, y);
	int r = t->rank;
	int64_t *d = xcalloc((size_t)r + 1, sizeof *d);
	int64_t *ix = xcalloc((size_t)a->out + 1, sizeof *ix);
	float *wf = xcalloc((size_t)a->out + 1, sizeof *wf);
	enum dtype dt = t->dt;
	const char *acc = NULL;

	for (int i = 0; i < r; i++)
		d[i] = i == ax ? a->out : 1;
	for (int k = 0; k < a->ntap; k++) {
		const char *g, *wc;
		cJSON *o;
		int zero = 1;

		for (int64_t p = 0; p < a->out; p++) {
			ix[p] = a->idx[p * a->ntap + k];
			wf[p] = (float)a->w[p * a->ntap + k];
			zero &= wf[p] == 0;
		}
		if (zero && (acc || k < a->ntap - 1))
			continue;
		o = cJSON_CreateObject();
		cJSON_AddNumberToObject(o, "axis", ax);
		g = emit(m, "gather", o, NULL, 2, y, mkconst(m, NULL,
		    DT_INT64, 1, &a->out, ix));
		if (g && a->ntap > 1) {
			wc = mkconst(m, NULL, DT_FLOAT32, r, d, wf);
			if (dt != DT_FLOAT32) {
				cJSON *c = cJSON_CreateObject();

				cJSON_AddStringToObject(c, "dataType",
				    dtype_name(dt));
				wc = emit(m, "cast", c, NULL, 1, wc);
			}
			g = wc ? emit(m, "mul", NULL, NULL, 2, g, wc) : NULL;
		}
		acc = !g ? NULL : acc ? emit(m, "add", NULL, NULL, 2, acc, g) :
		    g;
		if (!acc)
			break;
	}
	free(d);
	free(ix);
	free(wf);
	return acc;
}

/* The rules: mode, coordinate transformation, nearest mode. */
static int
rules(struct imp *m, struct rsz *z, int legacy)
{
	static char mode[16], co[32], nm[32];
	enum dtype dt = ty(m, in(m, 0))->dt;

	snprintf(mode, sizeof mode, "%s", att_s(m, "mode", "nearest"));
	snprintf(co, sizeof co, "%s", legacy ? "asymmetric" :
	    att_s(m, "coordinate_transformation_mode", "half_pixel"));
	snprintf(nm, sizeof nm, "%s", legacy ? "floor" :
	    att_s(m, "nearest_mode", "round_prefer_floor"));
	if (strcmp(mode, "bilinear") == 0)
		snprintf(mode, sizeof mode, "linear");
	z->mode = mode;
	z->coord = co;
	z->nearest = nm;
	z->a = att_f(m, "cubic_coeff_a", -0.75);
	z->exclude = (int)att_i(m, "exclude_outside", 0);
	z->ext = att_f(m, "extrapolation_value", 0);
	z->crop = strcmp(co, "tf_crop_and_resize") == 0;
	if (strcmp(mode, "nearest") && strcmp(mode, "linear") &&
	    strcmp(mode, "cubic") && strcmp(mode, "bilinear"))
		return nodeerr(m, "mode \"%s\"", escape_tty_name(mode));
	if (strcmp(mode, "nearest") && dt != DT_FLOAT32 && dt != DT_FLOAT16)
		return refuse(m, REFUSE_TYPE, "%s interpolation of %s",
		    escape_tty_name(mode),
		    dtype_name(dt));
	if (!z->crop && strcmp(co, "half_pixel") && strcmp(co, "asymmetric") &&
	    strcmp(co, "align_corners") && strcmp(co, "pytorch_half_pixel") &&
	    strcmp(co, "tf_half_pixel_for_nn") &&
	    strcmp(co, "half_pixel_symmetric"))
		return nodeerr(m, "coordinate_transformation_mode \"%s\"",
		    escape_tty_name(co));
	if (strcmp(nm, "round_prefer_floor") && strcmp(nm, "round_prefer_ceil")
	    && strcmp(nm, "floor") && strcmp(nm, "ceil"))
		return nodeerr(m, "nearest_mode \"%s\"", escape_tty_name(nm));
	if (att_i(m, "antialias", 0))
		return refuse(m, REFUSE_ATTR, "antialias");
	if (strcmp(att_s(m, "keep_aspect_ratio_policy", "stretch"),
	    "stretch"))
		return refuse(m, REFUSE_ATTR,
		    "keep_aspect_ratio_policy other than "
		    "stretch");
	return 0;
}

/* Scales (double) or sizes for the axes; 0, refused or an error. */
static int
amounts(struct imp *m, int legacy, double **sc, int64_t **sz, size_t *n)
{
	const char *s = NULL, *z = NULL;

	*sc = NULL;
	*sz = NULL;
	*n = 0;
	if (legacy && att(m, "scales")) {
		const float *f;
		size_t k = att_floats(m, "scales", &f);

		*sc = xcalloc(k + 1, sizeof **sc);
		for (size_t i = 0; i < k; i++)
			(*sc)[i] = f[i];
		*n = k;
		return 0;
	}
	s = in(m, legacy ? 1 : 2);
	z = legacy ? NULL : in(m, 3);
	if (z && ty(m, z)->rank == 1 && ty(m, z)->dims[0] > 0) {
		if (cints(m, z, sz, n) != 0)
			return refuse(m, REFUSE_CONST,
			    "sizes computed at run time");
		return 0;
	}
	if (!s || (ty(m, s)->rank == 1 && ty(m, s)->dims[0] == 0))
		return nodeerr(m, "neither scales nor sizes");
	if (cfloats(m, s, sc, n) != 0)
		return refuse(m, REFUSE_CONST, "scales computed at run time");
	return 0;
}

/* tf_crop_and_resize's roi (input 1, a constant): the starts, then
 * the ends, of the n axes. */
static int
region(struct imp *m, struct amap *a, const int64_t *axes, size_t n)
{
	double *v;
	size_t k;

	if (!in(m, 1))
		return nodeerr(m, "tf_crop_and_resize without roi");
	if (cfloats(m, in(m, 1), &v, &k) != 0)
		return refuse(m, REFUSE_CONST, "roi computed at run time");
	if (k != 2 * n) {
		free(v);
		return nodeerr(m, "roi has %zu items for %zu axes", k, n);
	}
	for (size_t i = 0; i < n; i++) {
		if (!isfinite(v[i]) || !isfinite(v[n + i])) {
			free(v);
			return nodeerr(m, "roi item %zu is not finite", i);
		}
		a[axes[i]].r0 = v[i];
		a[axes[i]].r1 = v[n + i];
	}
	free(v);
	return 0;
}

/* The maps of every axis; ax[i] tells whether axis i changes. */
static int
maps(struct imp *m, const struct rsz *z, struct amap *a, int r, int legacy)
{
	const int64_t *axv;
	size_t nax = att_ints(m, "axes", &axv), n;
	int64_t *sz, axes[32];
	double *sc;
	int rc;

	if ((rc = amounts(m, legacy, &sc, &sz, &n)) != 0)
		return rc;
	if (z->crop && sc) {
		free(sc);
		/* the output size from scales and a region: ONNX's text
		 * and its reference disagree */
		return refuse(m, REFUSE_ATTR, "tf_crop_and_resize with "
		    "scales (only with sizes)");
	}
	if (!nax)
		for (int i = 0; i < r; i++)
			axes[i] = i;
	for (size_t i = 0; i < nax && i < 32; i++)
		axes[i] = axv[i] < 0 ? axv[i] + r : axv[i];
	if (n != (nax ? nax : (size_t)r))
		rc = nodeerr(m, "%zu scales or sizes for %zu axes", n,
		    nax ? nax : (size_t)r);
	for (size_t i = 0; rc == 0 && i < n; i++) {
		struct amap *p = &a[axes[i] >= 0 && axes[i] < r ? axes[i] : 0];
		double out = sz ? (double)sz[i] : floor(sc[i] *
		    (double)p->in);

		if (axes[i] < 0 || axes[i] >= r || !(out >= 1 && out < 1e9) ||
		    (sc && !(sc[i] > 0)))
			rc = nodeerr(m, "axis %lld: invalid scale or size",
			    (long long)axes[i]);
		p->out = (int64_t)out;
		p->scale = sz ? out / (double)p->in : sc[i];
	}
	free(sc);
	free(sz);
	if (rc == 0 && z->crop)
		rc = region(m, a, axes, n);
	return rc;
}

/* resample2d when at most two axes change, the input is 4-D and
 * WebNN's maps are ONNX's. */
static const char *
asresample(struct imp *m, const struct rsz *z, const char *x,
    const struct amap *a, const int *chg, int r)
{
	int lin = z->mode[0] == 'l', ax[2], k = 0;
	uint32_t axes[2], sizes[2];
	enum dtype dt = ty(m, x)->dt;
	cJSON *o;

	if (r != 4 || z->mode[0] == 'c' || z->crop || (dt != DT_FLOAT32 &&
	    dt != DT_FLOAT16))
		return NULL;
	for (int i = 0; i < r; i++)
		if (chg[i] && (k == 2 || !same(&a[i], lin)))
			return NULL;
		else if (chg[i])
			ax[k++] = i;
	if (k == 0)
		return NULL;
	for (int i = r - 1; k == 1 && i >= 0; i--)
		if (i != ax[0])	/* any other axis keeps its size */
			ax[k++] = i;
	if (ax[0] > ax[1]) {
		int t = ax[0];

		ax[0] = ax[1];
		ax[1] = t;
	}
	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "mode", lin ? "linear" :
	    "nearest-neighbor");
	for (int i = 0; i < 2; i++) {
		axes[i] = (uint32_t)ax[i];
		sizes[i] = (uint32_t)a[ax[i]].out;
	}
	cJSON_AddItemToObject(o, "sizes", ju32s(sizes, 2));
	cJSON_AddItemToObject(o, "axes", ju32s(axes, 2));
	return emit(m, "resample2d", o, outname(m, 0), 1, x);
}

/*
 * The output and the tap tables of every axis within the tensor limit,
 * before mapfill allocates anything: scales may ask for any size.
 */
static int
bounded(struct imp *m, const struct rsz *z, const struct tdesc *xt,
    const struct amap *a, int r)
{
	int64_t d[32], taps[2] = { 0, z->mode[0] == 'n' ? 1 :
	    z->mode[0] == 'l' ? 2 : 4 };
	char *why;

	for (int i = 0; i < r; i++)
		d[i] = a[i].out;
	if ((why = checked_tensor(&(struct tdesc){ xt->dt, r, d }))) {
		nodeerr(m, "the output %s", why);
		free(why);
		return -1;
	}
	for (int i = 0; i < r; i++) {
		/* int64 indices and double weights, out x taps of each */
		taps[0] = a[i].out;
		if ((why = checked_tensor(&(struct tdesc){ DT_INT64, 2,
		    taps }))) {
			nodeerr(m, "axis %d: the taps table %s", i, why);
			free(why);
			return -1;
		}
	}
	return 0;
}

/* Resize (and Upsample, legacy: opset 10's Resize too). */
int
onnx_resize(struct imp *m)
{
	const char *x = in(m, 0), *y;
	const struct tdesc *xt = ty(m, x);
	int legacy = strcmp(m->n->op_type, "Upsample") == 0 || m->opset < 11;
	int r = xt->rank, rc, chg[32] = { 0 };
	struct amap a[32];
	struct rsz z;

	if (r < 1 || r > 32)
		return nodeerr(m, "input of rank %d", r);
	if ((rc = rules(m, &z, legacy)) != 0)
		return rc;
	memset(a, 0, sizeof a);
	for (int i = 0; i < r; i++) {
		a[i].in = a[i].out = xt->dims[i];
		a[i].scale = 1;
		a[i].r1 = 1;
	}
	if ((rc = maps(m, &z, a, r, legacy)) != 0 ||
	    (rc = bounded(m, &z, xt, a, r)) != 0)
		return rc;
	for (int i = 0; i < r; i++) {
		mapfill(&z, &a[i]);
		chg[i] = !same(&a[i], -1) || a[i].anyout;
	}
	y = asresample(m, &z, x, a, chg, r);
	for (int i = 0; !y && i < r; i++)
		if (chg[i] && !(x = gatheraxis(m, x, i, &a[i])))
			break;
	for (int i = 0; !y && x && i < r; i++)
		x = extrapolate(m, &z, x, i, &a[i]);
	if (!y && x)
		y = emit(m, "identity", NULL, outname(m, 0), 1, x);
	for (int i = 0; i < r; i++) {
		free(a[i].idx);
		free(a[i].w);
		free(a[i].outside);
	}
	return imp_done(m, 0, y);
}
