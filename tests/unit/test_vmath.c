/*
 * test_vmath: the float32 transcendental functions of rt/f32-vmath
 * against double-precision libm over the whole float range: every
 * STEP-th bit pattern of the 2^32 (STEP 1021 unless the first
 * argument says otherwise: 1 walks all of them), every STEP-th float
 * of [-16, 16] besides, and the special values (zeros, infinities,
 * NaN, subnormals, the thresholds of overflow and underflow).  Per
 * function the largest error in ULPs of the float nearest the exact
 * value (the subnormals' spacing below the normals) and the largest
 * relative error; each must stay within the bound that nnl-emit-c(1)'s
 * ACCURACY table documents, which this test reads from the page, so
 * that the page and the test cannot part.  Where the table gives a
 * bound below x0 in absolute error instead, x below x0 is held to
 * that.  A NaN must come where the reference has one and only there;
 * a zero must have the reference's sign.
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#define NNL_RT
#include "rt/rt.h"
#include "rt/f32-vmath/vmath.h"

/* the page that holds the bounds, found beside this file */
#define MANPAGE "/../../man/man1/nnl-emit-c.1"

static unsigned step = 1021;

/* One function: its name in the table, the kernel, the reference; the
 * bounds read from the page */
struct fn {
	const char *name;
	void (*f)(const float *, float *, int64_t);
	double (*ref)(double);
	double ulp, x0, abs;
	int found;
	/* measured: the largest ULP and relative errors, and where */
	double mulp, mrel, mabs;
	float wulp;
	long bad;
};

static double pc;	/* pow's exponent now */

static double r_exp(double x) { return exp(x); }
static double r_log(double x) { return log(x); }
static double r_sigmoid(double x) { return 1 / (1 + exp(-x)); }
static double r_tanh(double x) { return tanh(x); }
static double r_erf(double x) { return erf(x); }
static double r_pow(double x) { return pow(x, pc); }

/* x (1 + erf(x / sqrt 2)) / 2, the negative side through erfc */
static double
r_gelu(double x)
{
	if (x == -INFINITY)
		return -0.0;
	return x < 0 ? 0.5 * x * erfc(-x / sqrt(2)) : 0.5 * x * (1 +
	    erf(x / sqrt(2)));
}

/* x (1 + tanh(z)) / 2 = x / (1 + exp(-2 z)) */
static double
r_gelu_tanh(double x)
{
	double z = sqrt(2 / 3.14159265358979324) * (x + 0.044715 * x * x * x);

	if (x == -INFINITY)
		return -0.0;
	return x / (1 + exp(-2 * z));
}

static double
r_softplus(double x)
{
	return x > 0 ? x + log1p(exp(-x)) : log1p(exp(x));
}

static void
k_powc(const float *x, float *y, int64_t n)
{
	nnl_vpowc_f32(x, y, n, (float)pc);
}

static struct fn fns[] = {
	{ "exp", nnl_vexp_f32, r_exp, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
	{ "log", nnl_vlog_f32, r_log, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
	{ "sigmoid", nnl_vsigmoid_f32, r_sigmoid, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
	{ "tanh", nnl_vtanh_f32, r_tanh, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
	{ "erf", nnl_verf_f32, r_erf, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
	{ "gelu", nnl_vgelu_f32, r_gelu, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
	{ "gelu-tanh", nnl_vgelu_tanh_f32, r_gelu_tanh, 0, 0, 0, 0, 0, 0, 0,
	    0, 0 },
	{ "softplus", nnl_vsoftplus_f32, r_softplus, 0, 0, 0, 0, 0, 0, 0, 0,
	    0 },
	{ "pow-fast", k_powc, r_pow, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
	{ "pow", k_powc, r_pow, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
};
enum { NFN = sizeof fns / sizeof fns[0] };

/* pow's exponents: the fast paths, then the general one */
static const float fastc[] = { 0, 1, 2, 3, 4, -1, -2, 0.5f, -0.5f };
static const float genc[] = { 1.0f / 3, -1.0f / 3, 2.5f, -1.5f, 0.1f, 7,
    -3, 12.5f, -7, 5, 1.5f, 30, -0.25f, INFINITY, -INFINITY, NAN };

/* The ACCURACY table's rows: ".It Li NAME Ta ULP Ta X0 Ta ABS", X0 and
 * ABS "\(em" where the ULP bound holds everywhere */
static int
readbounds(void)
{
	char path[4096], line[512];
	const char *src = __FILE__, *sl = strrchr(src, '/');
	FILE *fp;
	int n = 0;

	snprintf(path, sizeof path, "%.*s" MANPAGE,
	    sl ? (int)(sl - src) : 1, sl ? src : ".");
	if (!(fp = fopen(path, "r"))) {
		fprintf(stderr, "test_vmath: %s: cannot open\n", path);
		return -1;
	}
	while (fgets(line, sizeof line, fp)) {
		char name[64], f2[64], f3[64];
		double u;

		if (sscanf(line, ".It Li %63s Ta %lf Ta %63s Ta %63s", name, &u,
		    f2, f3) != 4)
			continue;
		for (int i = 0; i < NFN; i++) {
			struct fn *p = &fns[i];

			if (strcmp(p->name, name) != 0)
				continue;
			p->ulp = u;
			/* "\\-5" is -5 in mdoc */
			p->x0 = !strcmp(f2, "\\(em") ? -INFINITY :
			    strtod(f2 + (f2[0] == '\\'), NULL);
			p->abs = strcmp(f3, "\\(em") ? strtod(f3, NULL) : 0;
			p->found = 1;
			n++;
		}
	}
	fclose(fp);
	return n;
}

/* The spacing of floats at |v|: of the float v rounds to */
static double
ulpof(double v)
{
	int e;

	v = fabs(v);
	if (v < FLT_MIN)
		return ldexp(1, -149);
	frexp(v, &e);
	return ldexp(1, e - 24);
}

static float
fbits(uint32_t u)
{
	float f;

	memcpy(&f, &u, 4);
	return f;
}

/* x[0:n] through p, each result against the reference */
static void
measure(struct fn *p, const float *x, float *y, int64_t n)
{
	p->f(x, y, n);
	for (int64_t i = 0; i < n; i++) {
		double r = p->ref(x[i]), e, u;
		float rf = (float)r;

		if (isnan(r) || isnan(y[i])) {
			if (isnan(r) != isnan(y[i])) {
				if (p->bad++ < 3)
					fprintf(stderr, "%s(%.9g) = %.9g, "
					    "want %.9g\n", p->name, x[i], y[i],
					    r);
			}
			continue;
		}
		if (isinf(rf) || isinf(y[i])) {
			if (rf != y[i] && p->bad++ < 3)
				fprintf(stderr, "%s(%.9g) = %.9g, want %.9g\n",
				    p->name, x[i], y[i], r);
			continue;
		}
		if (r == 0 && (y[i] != 0 || !signbit(y[i]) != !signbit(r))) {
			if (p->bad++ < 3)
				fprintf(stderr, "%s(%.9g) = %.9g, want %.9g\n",
				    p->name, x[i], y[i], r);
			continue;
		}
		e = fabs(y[i] - r);
		if (x[i] < p->x0) {
			if (e > p->mabs)
				p->mabs = e;
			continue;
		}
		u = e / ulpof(r);
		if (u > p->mulp) {
			p->mulp = u;
			p->wulp = x[i];
		}
		if (fabs(r) >= FLT_MIN && e / fabs(r) > p->mrel)
			p->mrel = e / fabs(r);
	}
}

enum { CHUNK = 65536 };
static float xs[CHUNK], ys[CHUNK];

/* every step-th float of the 2^32, every step-th of [-16, 16], and the
 * special values, through p */
static void
walk(struct fn *p)
{
	static const float sp[] = { 0.0f, -0.0f, INFINITY, -INFINITY, NAN,
	    -NAN, FLT_MIN, -FLT_MIN, FLT_MAX, -FLT_MAX, 1.4e-45f, -1.4e-45f,
	    1.1754942e-38f, -1.1754942e-38f, 88.7228394f, 88.7228470f,
	    -87.3365448f, -103.278931f, -103.972084f, -104.0f, 89.0f, 1.0f,
	    -1.0f, 0.625f, -0.625f, 1.41421354f, -1.41421354f, 1.41421366f,
	    -1.41421366f, 0.414213538f, 10.1f, -14.2f, -12.0f, -12.0000010f,
	    20.0f, -20.0f, 2.0f, 0.5f, 3.0f, -3.0f, 16777216.0f };
	int64_t n = 0;
	uint64_t u;

	for (u = 0; u < (1ull << 32); u += step) {
		xs[n++] = fbits((uint32_t)u);
		if (n == CHUNK) {
			measure(p, xs, ys, n);
			n = 0;
		}
	}
	for (float x = -16; x <= 16; ) {
		uint32_t b;

		xs[n++] = x;
		if (n == CHUNK) {
			measure(p, xs, ys, n);
			n = 0;
		}
		memcpy(&b, &x, 4);
		b = x < 0 ? (b > 0x80000000u + step ? b - step : 0) :
		    b + step;
		memcpy(&x, &b, 4);
	}
	measure(p, xs, ys, n);
	/* the special values at each lane: alone, and in whole vectors */
	for (size_t i = 0; i < sizeof sp / sizeof sp[0]; i++) {
		for (int k = 0; k < 2 * NNL_VW + 1; k++)
			xs[k] = sp[(i + (size_t)k) % (sizeof sp /
			    sizeof sp[0])];
		for (int k = 1; k <= 2 * NNL_VW + 1; k++)
			measure(p, xs, ys, k);
	}
}

/* Whether p's measurements keep within its bounds; prints them */
static int
within(const struct fn *p)
{
	printf("# %-10s max %.3f ulp (at %.9g), rel %.3g", p->name, p->mulp,
	    p->wulp, p->mrel);
	if (p->x0 > -INFINITY)
		printf(", abs %.3g below %g", p->mabs, p->x0);
	printf("; bound %g ulp\n", p->ulp);
	return p->found && p->bad == 0 && p->mulp <= p->ulp &&
	    p->mabs <= p->abs;
}

static struct fn *
byname(const char *name)
{
	for (int i = 0; i < NFN; i++)
		if (!strcmp(fns[i].name, name))
			return &fns[i];
	return NULL;
}

/* each function of one argument */
TEST(vmath_within_documented_bounds)
{
	for (int i = 0; i < NFN; i++) {
		struct fn *p = &fns[i];

		if (p->f == k_powc)
			continue;
		walk(p);
		CHECK(within(p));
	}
}

/* pow by each constant, the fast paths and the general one apart */
TEST(vmath_pow_within_documented_bounds)
{
	struct fn *f = byname("pow-fast"), *g = byname("pow");

	for (size_t i = 0; i < sizeof fastc / sizeof fastc[0]; i++) {
		pc = fastc[i];
		walk(f);
	}
	CHECK(within(f));
	for (size_t i = 0; i < sizeof genc / sizeof genc[0]; i++) {
		pc = genc[i];
		walk(g);
	}
	CHECK(within(g));
}

/* the activation nnl_activate applies after a product: sigmoid, the
 * same function (and so the same bounds) */
TEST(vmath_activation_is_sigmoid)
{
	float x[37], y[37], z[37];

	for (int i = 0; i < 37; i++)
		x[i] = y[i] = (float)(i - 18) * 0.731f;
	nnl_vsigmoid_f32(x, z, 37);
	nnl_activate(y, 37, NNL_ACT_SIGMOID, 0, 0);
	CHECK(memcmp(y, z, sizeof y) == 0);
	for (int i = 0; i < 37; i++)
		CHECK(fabs(z[i] - r_sigmoid(x[i])) <= 4 * ulpof(z[i]));
}

int
main(int argc, char *argv[])
{
	if (argc > 1)
		step = (unsigned)strtoul(argv[1], NULL, 10);
	if (step < 1)
		step = 1;
	if (readbounds() != NFN) {
		fprintf(stderr, "test_vmath: the ACCURACY table of "
		    "nnl-emit-c(1) lacks a function's row\n");
		return 1;
	}
	RUN(vmath_within_documented_bounds);
	RUN(vmath_pow_within_documented_bounds);
	RUN(vmath_activation_is_sigmoid);
	return DONE();
}
