/*
 * onnx_einsum: ONNX Einsum as WebNN operations.  The equation's labels
 * are numbered in ASCII order ('A'..'Z', 'a'..'z', then one label per
 * dimension the ellipsis covers, aligned on the right as broadcasting
 * aligns them).  Each operand first loses its repeated labels (the
 * diagonal, a gather of every (d+1)-th item of the two axes flattened
 * into one: exact, whatever the values) and the labels no one else
 * uses (reduceSum); then the operands are contracted pairwise, left to
 * right: a batched matmul for floating point ([batch, M, K] x
 * [batch, K, N]), a broadcast mul and a reduceSum otherwise.  The
 * result is transposed into the output's order.
 */
#include <stdlib.h>
#include <string.h>

#include "onnx_imp.h"
#include "escape.h"

enum {
	ER = 32,		/* ranks handled here */
	NLET = 52,		/* letter labels; ellipsis ones follow */
	NLAB = NLET + ER,
};

struct term {
	const char *x;		/* operand */
	int r;
	int lab[ER];
	int64_t dim[ER];
};

static int
letter(int c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return 26 + c - 'a';
	return -1;
}

/*
 * The labels of one side term s (spaces already removed) of an operand
 * of rank r: into lab, with *ell the ellipsis' width (-1: none).  The
 * ellipsis labels are numbered later, once the widest is known.
 */
static int
parseterm(struct imp *m, const char *s, size_t len, int r, int *lab,
    int *nlab, int *ell)
{
	int n = 0;

	*ell = -1;
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '.') {
			if (*ell >= 0 || i + 3 > len || strncmp(s + i, "...",
			    3) != 0)
				return nodeerr(m, "a malformed ellipsis in "
				    "the equation");
			*ell = n;	/* position, for now */
			i += 2;
			continue;
		}
		if (letter((unsigned char)s[i]) < 0)
			return nodeerr(m, "'%s' is not a label (letters "
			    "and '...' only)", escape_tty_name((char[]){
			    s[i], 0 }));
		if (n >= ER)
			return nodeerr(m, "more than %d labels in a term",
			    ER);
		lab[n++] = letter((unsigned char)s[i]);
	}
	*nlab = n;
	if (r >= 0 && (*ell < 0 ? n != r : n > r))
		return nodeerr(m, "a term of %d labels for an input of rank "
		    "%d", n, r);
	return 0;
}

/* Place the ellipsis' labels (w wide, of the E widest) at position at
 * of n letter labels. */
static void
placeell(int *lab, int n, int at, int w, int E)
{
	memmove(lab + at + w, lab + at, (size_t)(n - at) * sizeof *lab);
	for (int j = 0; j < w; j++)
		lab[at + j] = NLET + E - w + j;
}

/* A label as the equation writes it ("'i'", "'...'"), static. */
static const char *
labname(int l)
{
	static char s[4];

	if (l >= NLET)
		return "'...'";
	s[0] = '\'';
	s[1] = (char)(l < 26 ? 'A' + l : 'a' + l - 26);
	s[2] = '\'';
	return s;
}

static int64_t
prod(const int64_t *d, int n)
{
	int64_t p = 1;

	for (int i = 0; i < n; i++)
		p *= d[i];
	return p;
}

static int
find(const struct term *t, int l)
{
	for (int i = 0; i < t->r; i++)
		if (t->lab[i] == l)
			return i;
	return -1;
}

/* t's axes in the order p (a transpose unless p is the identity). */
static int
reorder(struct imp *m, struct term *t, const int *p)
{
	int id = 1;
	uint32_t q[ER];
	struct term u = *t;
	cJSON *o;

	for (int i = 0; i < t->r; i++) {
		q[i] = (uint32_t)p[i];
		id &= p[i] == i;
		u.lab[i] = t->lab[p[i]];
		u.dim[i] = t->dim[p[i]];
	}
	if (!id) {
		o = cJSON_CreateObject();
		cJSON_AddItemToObject(o, "permutation", ju32s(q,
		    (size_t)t->r));
		if (!(u.x = emit(m, "transpose", o, NULL, 1, t->x)))
			return -1;
	}
	*t = u;
	return 0;
}

/* x reshaped to rank k dims d, unless it already has them. */
static const char *
reshape(struct imp *m, const char *x, int k, const int64_t *d)
{
	const struct tdesc *t = ty(m, x);
	int same = t->rank == k;

	for (int i = 0; i < k && same; i++)
		same = t->dims[i] == d[i];
	return same ? x : imp_reshape(m, x, k, d, NULL);
}

/* Sum t over the axes whose flag in drop is set (by label). */
static int
sumout(struct imp *m, struct term *t, const char *drop)
{
	uint32_t ax[ER];
	int n = 0, k = 0;
	cJSON *o;

	for (int i = 0; i < t->r; i++)
		if (drop[t->lab[i]])
			ax[n++] = (uint32_t)i;
		else {
			t->lab[k] = t->lab[i];
			t->dim[k++] = t->dim[i];
		}
	if (n == 0)
		return 0;
	t->r = k;
	o = cJSON_CreateObject();
	cJSON_AddItemToObject(o, "axes", ju32s(ax, (size_t)n));
	cJSON_AddBoolToObject(o, "keepDimensions", 0);
	return (t->x = emit(m, "reduceSum", o, NULL, 1, t->x)) ? 0 : -1;
}

/* Drop t's axis i, 1 wide. */
static int
squeeze(struct imp *m, struct term *t, int i)
{
	memmove(t->lab + i, t->lab + i + 1, (size_t)(t->r - i - 1) *
	    sizeof *t->lab);
	memmove(t->dim + i, t->dim + i + 1, (size_t)(t->r - i - 1) *
	    sizeof *t->dim);
	t->r--;
	return (t->x = reshape(m, t->x, t->r, t->dim)) ? 0 : -1;
}

/* The diagonal of t's axes i < j (one label): those two last,
 * flattened, every (d+1)-th item gathered; the label once, last. */
static int
diagonal(struct imp *m, struct term *t, int i, int j)
{
	int p[ER], k = 0, l = t->lab[i];
	int64_t d = t->dim[i], dd[ER], *idx;
	const char *ix;
	cJSON *o;

	if (t->dim[j] != d)
		return nodeerr(m, "label %s is %lld and %lld wide in one "
		    "input", labname(l), (long long)d, (long long)t->dim[j]);
	for (int a = 0; a < t->r; a++)
		if (a != i && a != j)
			p[k++] = a;
	p[k++] = i;
	p[k++] = j;
	if (reorder(m, t, p))
		return -1;
	memcpy(dd, t->dim, sizeof dd);
	dd[t->r - 2] = d * d;
	if (!(t->x = reshape(m, t->x, t->r - 1, dd)))
		return -1;
	idx = xcalloc((size_t)d + 1, sizeof *idx);
	for (int64_t a = 0; a < d; a++)
		idx[a] = a * (d + 1);
	ix = mkconst(m, "einsum_diagonal", DT_INT64, 1, &d, idx);
	free(idx);
	o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "axis", t->r - 2);
	if (!(t->x = emit(m, "gather", o, NULL, 2, t->x, ix)))
		return -1;
	t->r--;
	return 0;
}

/*
 * The contraction of a and b into a: labels in both that keep[] marks
 * stay (the batch), those it does not are summed (contracted); the
 * rest stay, a's then b's.
 */
static int
contract(struct imp *m, struct term *a, struct term *b, const char *keep,
    int usemm)
{
	int pa[ER], pb[ER], nb = 0, na = 0, nc = 0, no = 0, k, i, j;
	int64_t bd[ER + 2], d[ER];
	struct term y;
	const char *xa, *xb;

	/* a contracted label 1 wide on one side: summed on the other */
	for (i = 0; i < a->r; i++) {
		char drop[NLAB] = { 0 };
		int l = a->lab[i];

		if (keep[l] || (j = find(b, l)) < 0 ||
		    a->dim[i] == b->dim[j])
			continue;
		drop[l] = 1;
		if (a->dim[i] == 1) {
			if (squeeze(m, a, i) || sumout(m, b, drop))
				return -1;
		} else if (squeeze(m, b, j) || sumout(m, a, drop))
			return -1;
		i = -1;
	}
	/* a: batch, a's own, contracted; b: batch, contracted, b's own */
	for (i = 0; i < a->r; i++)
		if ((j = find(b, a->lab[i])) >= 0 && keep[a->lab[i]]) {
			pa[nb] = i;
			pb[nb++] = j;
		}
	k = nb;
	for (i = 0; i < a->r; i++)
		if (find(b, a->lab[i]) < 0)
			pa[k++] = i, na++;
	for (i = 0; i < a->r; i++)
		if ((j = find(b, a->lab[i])) >= 0 && !keep[a->lab[i]]) {
			pa[k++] = i;
			pb[nb + nc++] = j;
		}
	for (j = 0; j < b->r; j++)
		if (find(a, b->lab[j]) < 0)
			pb[nb + nc + no++] = j;
	if (!usemm) {
		/* b: batch, b's own, contracted */
		int c[ER];

		memcpy(c, pb + nb, (size_t)nc * sizeof *c);
		memmove(pb + nb, pb + nb + nc, (size_t)no * sizeof *pb);
		memcpy(pb + nb + no, c, (size_t)nc * sizeof *pb);
	}
	if (reorder(m, a, pa) || reorder(m, b, pb))
		return -1;
	y.r = nb + na + no;
	for (i = 0; i < nb; i++) {
		y.lab[i] = a->lab[i];
		y.dim[i] = a->dim[i] > b->dim[i] ? a->dim[i] : b->dim[i];
	}
	memcpy(y.lab + nb, a->lab + nb, (size_t)na * sizeof *y.lab);
	memcpy(y.dim + nb, a->dim + nb, (size_t)na * sizeof *y.dim);
	memcpy(y.lab + nb + na, b->lab + nb + (usemm ? nc : 0), (size_t)no *
	    sizeof *y.lab);
	memcpy(y.dim + nb + na, b->dim + nb + (usemm ? nc : 0), (size_t)no *
	    sizeof *y.dim);
	if (usemm) {
		/* [batch, M, K] x [batch, K, N] */
		memcpy(bd, a->dim, (size_t)nb * sizeof *bd);
		bd[nb] = prod(a->dim + nb, na);
		bd[nb + 1] = prod(a->dim + nb + na, nc);
		xa = reshape(m, a->x, nb + 2, bd);
		memcpy(bd, b->dim, (size_t)nb * sizeof *bd);
		bd[nb] = prod(b->dim + nb, nc);
		bd[nb + 1] = prod(b->dim + nb + nc, no);
		xb = reshape(m, b->x, nb + 2, bd);
		if (!xa || !xb || !(y.x = emit(m, "matmul", NULL, NULL, 2,
		    xa, xb)) || !(y.x = reshape(m, y.x, y.r, y.dim)))
			return -1;
	} else {
		/* a as [batch, a's, 1..., contracted], b as [batch, 1...,
		 * b's, contracted]: their product summed */
		char drop[NLAB] = { 0 };
		struct term s;

		memcpy(d, a->dim, (size_t)(nb + na) * sizeof *d);
		for (i = 0; i < no; i++)
			d[nb + na + i] = 1;
		memcpy(d + nb + na + no, a->dim + nb + na, (size_t)nc *
		    sizeof *d);
		xa = reshape(m, a->x, y.r + nc, d);
		memcpy(d, b->dim, (size_t)nb * sizeof *d);
		for (i = 0; i < na; i++)
			d[nb + i] = 1;
		memcpy(d + nb + na, b->dim + nb, (size_t)(no + nc) *
		    sizeof *d);
		xb = reshape(m, b->x, y.r + nc, d);
		if (!xa || !xb || !(s.x = emit(m, "mul", NULL, NULL, 2, xa,
		    xb)))
			return -1;
		s.r = y.r + nc;
		memcpy(s.lab, y.lab, (size_t)y.r * sizeof *s.lab);
		memcpy(s.dim, y.dim, (size_t)y.r * sizeof *s.dim);
		for (i = 0; i < nc; i++) {
			s.lab[y.r + i] = a->lab[nb + na + i];
			s.dim[y.r + i] = a->dim[nb + na + i];
			drop[s.lab[y.r + i]] = 1;
		}
		if (sumout(m, &s, drop))
			return -1;
		y.x = s.x;
	}
	*a = y;
	return 0;
}

/* Every operand's terms and the output's labels from the equation. */
static int
parse(struct imp *m, const char *eq, struct term *t, int n, int *out,
    int *nout)
{
	char *s = xmalloc(strlen(eq) + 1), *arrow, *p;
	int ell[ER], nl[ER], E = 0, k = 0, count[NLAB] = { 0 }, oe;
	size_t j = 0;

	for (const char *c = eq; *c; c++)
		if (*c != ' ')
			s[j++] = *c;
	s[j] = 0;
	arrow = strstr(s, "->");
	if (arrow)
		*arrow = 0;
	p = s;
	for (int i = 0; i < n; i++) {
		char *e = strchr(p, ',');

		if ((e == NULL) != (i == n - 1)) {
			free(s);
			return nodeerr(m, "the equation has %s terms than "
			    "the %d inputs", e ? "more" : "fewer", n);
		}
		if (parseterm(m, p, e ? (size_t)(e - p) : strlen(p), t[i].r,
		    t[i].lab, &nl[i], &ell[i])) {
			free(s);
			return -1;
		}
		if (ell[i] >= 0 && t[i].r - nl[i] > E)
			E = t[i].r - nl[i];
		p = e + 1;
	}
	for (int i = 0; i < n; i++) {
		if (ell[i] >= 0)
			placeell(t[i].lab, nl[i], ell[i], t[i].r - nl[i], E);
		for (int a = 0; a < t[i].r; a++)
			count[t[i].lab[a]]++;
	}
	if (arrow) {
		p = arrow + 2;
		if (parseterm(m, p, strlen(p), -1, out, &k, &oe)) {
			free(s);
			return -1;
		}
		if (oe >= 0)
			placeell(out, k, oe, E, E);
		else if (E > 0) {
			free(s);
			return nodeerr(m, "the inputs have an ellipsis of %d "
			    "dimensions, the output none", E);
		}
		k += oe >= 0 ? E : 0;
	} else {
		/* implicit: the ellipsis, then labels used once, sorted */
		for (int l = 0; l < E; l++)
			out[k++] = NLET + l;
		for (int l = 0; l < NLET; l++)
			if (count[l] == 1)
				out[k++] = l;
	}
	free(s);
	for (int i = 0; i < k; i++) {
		if (!count[out[i]])
			return nodeerr(m, "output label %s is in no input",
			    labname(out[i]));
		for (int a = 0; a < i; a++)
			if (out[a] == out[i])
				return nodeerr(m, "output label %s appears "
				    "twice", labname(out[i]));
	}
	*nout = k;
	return 0;
}

/* Sizes of the labels agree (or are 1, which broadcasts). */
static int
sizes(struct imp *m, const struct term *t, int n)
{
	int64_t w[NLAB] = { 0 };

	for (int i = 0; i < n; i++)
		for (int a = 0; a < t[i].r; a++) {
			int l = t[i].lab[a];
			int64_t d = t[i].dim[a];

			if (w[l] > 1 && d > 1 && w[l] != d)
				return nodeerr(m, "label %s is %lld wide in "
				    "input %d, %lld before", labname(l),
				    (long long)d, i, (long long)w[l]);
			if (d > w[l])
				w[l] = d;
		}
	return 0;
}

int
onnx_einsum(struct imp *m)
{
	int n = nins(m), out[NLAB], nout = 0, usemm;
	struct term *t;
	const char *eq = att_s(m, "equation", NULL), *y;
	char inout[NLAB] = { 0 };
	enum dtype dt;

	if (!eq)
		return nodeerr(m, "no equation");
	if (n < 1 || !in(m, 0))
		return nodeerr(m, "no inputs");
	dt = ty(m, in(m, 0))->dt;
	usemm = dt == DT_FLOAT32 || dt == DT_FLOAT16 || dt == DT_FLOAT64;
	if (!usemm && dt != DT_INT32 && dt != DT_UINT32 && dt != DT_INT64 &&
	    dt != DT_UINT64)	/* reduceSum's types */
		return refuse(m, REFUSE_TYPE, "Einsum on %s", dtype_name(dt));
	t = xcalloc((size_t)n, sizeof *t);
	for (int i = 0; i < n; i++) {
		const struct tdesc *d;

		if (!(t[i].x = in(m, i))) {
			free(t);
			return nodeerr(m, "input %d is missing", i);
		}
		d = ty(m, t[i].x);
		if (d->dt != dt) {
			free(t);
			return nodeerr(m, "input %d is %s, input 0 %s", i,
			    dtype_name(d->dt), dtype_name(dt));
		}
		if (d->rank > ER) {
			free(t);
			return nodeerr(m, "input %d has rank %d (at most %d)",
			    i, d->rank, ER);
		}
		if (tdesc_numel(d) == 0) {
			free(t);
			return refuse(m, REFUSE_EMPTY, "input %d is empty",
			    i);
		}
		t[i].r = d->rank;
		for (int a = 0; a < d->rank; a++)
			t[i].dim[a] = d->dims[a];
	}
	if (parse(m, eq, t, n, out, &nout) || sizes(m, t, n))
		goto fail;
	for (int i = 0; i < nout; i++)
		inout[out[i]] = 1;
	for (int i = 0; i < n; i++) {
		char drop[NLAB] = { 0 };
		int again = 1;

		while (again) {
			again = 0;
			for (int a = 0; a < t[i].r && !again; a++)
				for (int b = a + 1; b < t[i].r; b++)
					if (t[i].lab[a] == t[i].lab[b]) {
						if (diagonal(m, &t[i], a, b))
							goto fail;
						again = 1;
						break;
					}
		}
		/* labels no other input nor the output has */
		for (int a = 0; a < t[i].r; a++) {
			int l = t[i].lab[a], other = inout[l];

			for (int j = 0; j < n && !other; j++)
				other = j != i && find(&t[j], l) >= 0;
			drop[l] = !other;
		}
		if (sumout(m, &t[i], drop))
			goto fail;
	}
	for (int i = 1; i < n; i++) {
		char keep[NLAB];

		memcpy(keep, inout, sizeof keep);
		for (int j = i + 1; j < n; j++)
			for (int a = 0; a < t[j].r; a++)
				keep[t[j].lab[a]] = 1;
		if (contract(m, &t[0], &t[i], keep, usemm))
			goto fail;
	}
	{
		int p[ER];

		for (int i = 0; i < nout; i++)
			p[i] = find(&t[0], out[i]);
		if (t[0].r != nout) {
			nodeerr(m, "%d labels left for an output of %d",
			    t[0].r, nout);
			goto fail;
		}
		if (reorder(m, &t[0], p))
			goto fail;
		y = t[0].x;
	}
	free(t);
	return imp_done(m, 0, y);
fail:
	free(t);
	return -1;
}
