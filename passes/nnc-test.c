/*
 * nnc-test: the arrays of nnc test.  Each --input and --expected is
 * NAME=FILE.npy, an .npz whose members are named after the inputs (or
 * outputs), or one FILE.npy for a model of one input (or output).
 * They are bound to the graph nnl-emit-c compiles, whose types and
 * shapes they must have, before any C is built; the inputs are packed
 * in the graph's order for the program's main, and every output it
 * writes back is compared with its expected array.
 */
#define _DEFAULT_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "nnc-test.h"
#include "npy.h"
#include "npz.h"
#include "rt/rt.h"
#include "util.h"

/* One --input or --expected argument: NAME=FILE, or a FILE alone. */
struct arg {
	int expected;
	char *name;	/* NULL: an .npz, or the one input's .npy */
	char *file;
};

/* An input or output of the graph and the array given for it. */
struct slot {
	char *name;
	struct tdesc t;
	struct npy arr;
	char *file;	/* where arr came from; NULL: not given */
};

struct testio {
	struct arg *args;
	int nargs;
	const char **files;	/* args' files, NULL-terminated */
	struct slot *s[2];	/* the inputs, the outputs */
	size_t n[2];
};

static const char *const what[2] = { "input", "output" };
static const char *const option[2] = { "--input", "--expected" };

struct testio *
testio_new(void)
{
	struct testio *t = xcalloc(1, sizeof *t);

	t->files = xcalloc(1, sizeof *t->files);
	return t;
}

void
testio_free(struct testio *t)
{
	if (!t)
		return;
	for (int i = 0; i < t->nargs; i++) {
		free(t->args[i].name);
		free(t->args[i].file);
	}
	for (int k = 0; k < 2; k++) {
		for (size_t i = 0; i < t->n[k]; i++) {
			free(t->s[k][i].name);
			free(t->s[k][i].t.dims);
			free(t->s[k][i].file);
			npy_free(&t->s[k][i].arr);
		}
		free(t->s[k]);
	}
	free(t->args);
	free(t->files);
	free(t);
}

int
testio_add(struct testio *t, int expected, const char *arg)
{
	const char *eq = strchr(arg, '=');
	struct arg *a;

	if (!*arg || (eq && (eq == arg || !eq[1])))
		return -1;
	t->args = xrealloc(t->args, (size_t)(t->nargs + 1) * sizeof *t->args);
	a = &t->args[t->nargs++];
	a->expected = expected;
	a->name = eq ? xstrndup(arg, (size_t)(eq - arg)) : NULL;
	a->file = xstrdup(eq ? eq + 1 : arg);
	t->files = xrealloc(t->files, (size_t)(t->nargs + 1) *
	    sizeof *t->files);
	for (int i = 0; i < t->nargs; i++)
		t->files[i] = t->args[i].file;
	t->files[t->nargs] = NULL;
	return 0;
}

int
testio_count(const struct testio *t, int expected)
{
	int n = 0;

	for (int i = 0; i < t->nargs; i++)
		n += t->args[i].expected == expected;
	return n;
}

const char *const *
testio_files(const struct testio *t)
{
	return t->files;
}

static int
endswith(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);

	return n >= m && strcmp(s + n - m, suf) == 0;
}

/* Whether nnc test can compare values of type dt: float32, float16,
 * float64, and the 8- to 64-bit integers. */
static int
comparable(enum dtype dt)
{
	int bits = dtype_bits(dt);

	if (dtype_isfloat(dt))
		return bits == 32 || bits == 64 || dt == DT_FLOAT16;
	return bits == 8 || bits == 16 || bits == 32 || bits == 64;
}

/* Element i of p, of a comparable type dt, as a double. */
static double
elem(enum dtype dt, const unsigned char *p, uint64_t i)
{
	int b = dtype_bits(dt) / 8;
	const unsigned char *e = p + i * (uint64_t)b;
	union {
		float f; double d; nnl_f16 h;
		int8_t i8; int16_t i16; int32_t i32; int64_t i64;
		uint8_t u8; uint16_t u16; uint32_t u32; uint64_t u64;
	} u;

	memcpy(&u, e, (size_t)b);
	if (dtype_isfloat(dt))
		return b == 4 ? u.f : b == 8 ? u.d : nnl_f16_to_f32(u.h);
	if (dtype_issigned(dt))
		return b == 1 ? u.i8 : b == 2 ? u.i16 : b == 4 ? u.i32 :
		    (double)u.i64;
	return b == 1 ? u.u8 : b == 2 ? u.u16 : b == 4 ? u.u32 :
	    (double)u.u64;
}

/* The slots' names, quoted, for a message: "a", "b" (malloc'd). */
static char *
names(const struct slot *s, size_t n)
{
	struct buf b = { 0 };

	for (size_t i = 0; i < n; i++)
		buf_printf(&b, "%s\"%s\"", i ? ", " : "",
		    escape_tty_name(s[i].name));
	if (!n)
		buf_puts(&b, "none");
	return b.s;
}

/* The slot of side k named name, or NULL after an error naming it. */
static struct slot *
findslot(struct testio *t, int k, const char *name, const char *file)
{
	char *all;

	for (size_t i = 0; i < t->n[k]; i++)
		if (!strcmp(t->s[k][i].name, name))
			return &t->s[k][i];
	all = names(t->s[k], t->n[k]);
	error("%s: \"%s\" is not an %s of the model (its %ss: %s)",
	    escape_tty_name(file), escape_tty_name(name), what[k], what[k],
	    all);
	free(all);
	return NULL;
}

/* arr from file into slot s (taking its data), unless s has one. */
static int
put(int k, struct slot *s, struct npy *arr, const char *file)
{
	if (s->file) {
		error("%s \"%s\" is given twice: %s and %s", what[k],
		    escape_tty_name(s->name), escape_tty_name(s->file),
		    escape_tty_name(file));
		npy_free(arr);
		return -1;
	}
	s->arr = *arr;
	memset(arr, 0, sizeof *arr);
	s->file = xstrdup(file);
	return 0;
}

/* One argument's arrays into their slots. */
static int
bindarg(struct testio *t, const struct arg *a)
{
	int k = a->expected, rc = 0;
	struct slot *s;
	struct npy arr;

	if (a->name || !endswith(a->file, ".npz")) {
		if (!a->name && t->n[k] != 1) {
			char *all = names(t->s[k], t->n[k]);

			error("%s: the model has %zu %ss (%s): name each, as "
			    "%s NAME=FILE.npy, or give an .npz of them",
			    escape_tty_name(a->file), t->n[k], what[k],
			    all, option[k]);
			free(all);
			return -1;
		}
		s = a->name ? findslot(t, k, a->name, a->file) : &t->s[k][0];
		if (!s || npy_load(a->file, &arr) != 0)
			return -1;
		return put(k, s, &arr, a->file);
	} else {
		struct npz_member *m;
		size_t n;

		if (npz_load(a->file, &m, &n) != 0)
			return -1;
		for (size_t i = 0; i < n; i++)
			if (!(s = findslot(t, k, m[i].name, a->file)) ||
			    put(k, s, &m[i].arr, a->file) != 0)
				rc = -1;
		npz_free(m, n);
	}
	return rc;
}

/* Whether shapes a (rank ra) and b (rank rb) are the same but for
 * leading dimensions of 1: an NNL model's batch of 1, which its arrays
 * may leave out, lays the elements out as without it. */
static int
sameshape(const int64_t *a, int ra, const int64_t *b, int rb)
{
	while (ra > 0 && a[0] == 1) {
		a++;
		ra--;
	}
	while (rb > 0 && b[0] == 1) {
		b++;
		rb--;
	}
	if (ra != rb)
		return 0;
	for (int d = 0; d < ra; d++)
		if (a[d] != b[d])
			return 0;
	return 1;
}

/* Whether slot s of side k holds an array of its type and shape; one
 * not given is named unless an argument's error came first. */
static int
checkslot(int k, const struct slot *s, int quiet)
{
	struct tdesc at = { s->arr.dt, s->arr.rank, (int64_t *)s->arr.shape };
	int same = s->arr.dt == s->t.dt && sameshape(s->arr.shape,
	    s->arr.rank, s->t.dims, s->t.rank);
	char *want = tdesc_str(&s->t), *got;

	if (!s->file && quiet) {
		free(want);
		return -1;
	} else if (!s->file) {
		error("%s \"%s\" (%s) is not given: %s %s=FILE.npy, or a "
		    "member of an .npz", what[k], escape_tty_name(s->name),
		    want, option[k], escape_tty_name(s->name));
		free(want);
		return -1;
	}
	if (!same) {
		got = tdesc_str(&at);
		error("%s: %s \"%s\" is %s, the array %s", escape_tty_name(
		    s->file), what[k], escape_tty_name(s->name), want, got);
		free(got);
	}
	free(want);
	return same ? 0 : -1;
}

/* The slots of side k: the graph's inputs (0) or outputs (1). */
static void
slots(struct testio *t, struct graph *g, int k)
{
	t->n[k] = k ? g->noutputs : g->ninputs;
	t->s[k] = xcalloc(t->n[k] + 1, sizeof *t->s[k]);
	for (size_t i = 0; i < t->n[k]; i++) {
		struct slot *s = &t->s[k][i];
		const struct tdesc *d = k ? operand_type(graph_find(g,
		    g->outputs[i].ref)) : &g->inputs[i]->desc;

		s->name = xstrdup(k ? g->outputs[i].name : g->inputs[i]->name);
		s->t.dt = d->dt;
		s->t.rank = d->rank;
		s->t.dims = xcalloc((size_t)d->rank + 1, sizeof *s->t.dims);
		memcpy(s->t.dims, d->dims, (size_t)d->rank * sizeof *d->dims);
	}
}

int
testio_bind(struct testio *t, struct graph *g)
{
	int rc = 0, bad;

	slots(t, g, 0);
	slots(t, g, 1);
	/* an ONNX bool is a uint8 in the graph; NumPy writes it '|b1' */
	npy_allow_bool(1);
	for (int i = 0; i < t->nargs; i++)
		if (bindarg(t, &t->args[i]) != 0)
			rc = -1;
	npy_allow_bool(0);
	bad = rc;
	for (int k = 0; k < 2; k++)
		for (size_t i = 0; i < t->n[k]; i++) {
			const struct slot *s = &t->s[k][i];

			if (checkslot(k, s, bad) != 0) {
				rc = -1;
			} else if (k && !comparable(s->t.dt)) {
				error("output \"%s\" is %s: nnc test compares "
				    "floating-point and 8- to 64-bit integer "
				    "outputs", escape_tty_name(s->name),
				    dtype_name(s->t.dt));
				rc = -1;
			}
		}
	return rc;
}

int
testio_write(const struct testio *t, const char *path)
{
	size_t n = 0, off = 0;
	unsigned char *b;
	int rc;

	for (size_t i = 0; i < t->n[0]; i++)
		n += t->s[0][i].arr.nbytes;
	b = xmalloc(n + 1);
	for (size_t i = 0; i < t->n[0]; i++) {
		if (t->s[0][i].arr.nbytes)	/* an empty one's data: NULL */
			memcpy(b + off, t->s[0][i].arr.data,
			    t->s[0][i].arr.nbytes);
		off += t->s[0][i].arr.nbytes;
	}
	rc = writefile_atomic(path, b, n);
	free(b);
	return rc;
}

/* The index of flat element i in a shape, as "[a, b, c]". */
static void
putindex(const struct npy *a, int64_t i, char *buf, size_t len)
{
	int64_t idx[NPY_MAXDIM];
	size_t n = 0;

	for (int d = a->rank - 1; d >= 0; d--) {
		idx[d] = a->shape[d] ? i % a->shape[d] : 0;
		i = a->shape[d] ? i / a->shape[d] : 0;
	}
	n += (size_t)snprintf(buf, len, "[");
	for (int d = 0; d < a->rank && n < len; d++)
		n += (size_t)snprintf(buf + n, len - n, "%s%lld", d ? ", " : "",
		    (long long)idx[d]);
	if (a->rank == 0)
		n += (size_t)snprintf(buf + n, len - n, "0");
	snprintf(buf + n, len - n, "]");
}

/* %.*e as the NNL documentation writes it: 1.0e-5, 3.42e-7, 5.00e-1 */
static const char *
sci(double v, int prec, char *buf)
{
	char *e, *d;

	snprintf(buf, 32, "%.*e", prec, v);
	if ((e = strchr(buf, 'e')) != NULL) {
		d = e + 1;
		if (*d == '+' || *d == '-')
			d++;
		while (d[0] == '0' && d[1])
			memmove(d, d + 1, strlen(d));
		/* no '+' for positive exponents, as 1.0e0 */
		if (e[1] == '+')
			memmove(e + 1, e + 2, strlen(e + 1));
	}
	return buf;
}

/* How far got's element i is from want's: integers differ by at least
 * 1 when their bits do, NaN matches NaN only. */
static double
diff(enum dtype dt, const unsigned char *got, const unsigned char *want,
    uint64_t i, double *g, double *w)
{
	size_t b = (size_t)dtype_bits(dt) / 8;
	double d;

	*g = elem(dt, got, i);
	*w = elem(dt, want, i);
	if (!dtype_isfloat(dt))
		return memcmp(got + i * b, want + i * b, b) == 0 ? 0 :
		    fmax(fabs(*g - *w), 1);
	if (isnan(*g) && isnan(*w))
		return 0;
	d = fabs(*g - *w);
	return isnan(*g) != isnan(*w) || isnan(d) ? INFINITY : d;
}

/* One output's elements (got) against its expected array within tol:
 * its report, named when the model has more than one; 1 when any
 * differs. */
static int
compare(const struct slot *s, const unsigned char *got, double tol,
    int named)
{
	uint64_t count = tdesc_numel(&s->t), bad = 0, shown = 0;
	double maxdiff = 0;
	char tb[32], mb[32], label[256] = "";

	if (named)
		snprintf(label, sizeof label, "\"%s\": ",
		    escape_tty_name(s->name));
	for (uint64_t i = 0; i < count; i++) {
		double g, w, d = diff(s->t.dt, got, s->arr.data, i, &g, &w);

		if (d > maxdiff)
			maxdiff = d;
		if (d > tol && shown++ < 10) {
			char idx[128];

			putindex(&s->arr, (int64_t)i, idx, sizeof idx);
			if (dtype_isfloat(s->t.dt))
				printf("  %smismatch at %s: got %.8f, expected "
				    "%.8f, diff %s\n", label, idx, g, w,
				    sci(d, 2, mb));
			else
				printf("  %smismatch at %s: got %.0f, expected "
				    "%.0f\n", label, idx, g, w);
		}
		bad += d > tol;
	}
	if (bad)
		printf("FAIL: %s%llu/%llu elements exceed tolerance %s (max "
		    "diff: %s)\n", label, (unsigned long long)bad,
		    (unsigned long long)count, sci(tol, 1, tb),
		    sci(maxdiff, 2, mb));
	else
		printf("PASS: %s%llu/%llu elements within tolerance %s (max "
		    "diff: %s)\n", label, (unsigned long long)count,
		    (unsigned long long)count, sci(tol, 1, tb),
		    sci(maxdiff, 2, mb));
	return bad ? 1 : 0;
}

int
testio_compare(const struct testio *t, const unsigned char *got, size_t n,
    double tol)
{
	size_t want = 0, off = 0;
	int bad = 0;

	for (size_t i = 0; i < t->n[1]; i++)
		want += t->s[1][i].arr.nbytes;
	if (n != want) {
		printf("FAIL: the program wrote %zu bytes, its outputs are "
		    "%zu\n", n, want);
		return 1;
	}
	for (size_t i = 0; i < t->n[1]; i++) {
		bad += compare(&t->s[1][i], got + off, tol, t->n[1] > 1);
		off += t->s[1][i].arr.nbytes;
	}
	if (t->n[1] > 1)
		printf("%s: %zu/%zu outputs %s\n", bad ? "FAIL" : "PASS",
		    bad ? (size_t)bad : t->n[1], t->n[1], bad ? "differ" :
		    "within tolerance");
	return bad ? 1 : 0;
}
