/*
 * onnx_ctl: ONNX control flow (If, Loop, Scan) into plain graph nodes.
 * A body (a GraphProto attribute) is inlined: its inputs bound to
 * operands, its nodes converted by their own handlers (imp_node), its
 * outputs read back, the names it defined dropped again so that they
 * shadow nothing outside.
 *
 * If with a constant condition becomes the branch it picks.  Otherwise
 * both branches are inlined and each output is where(cond, then, else):
 * exact, since where selects and mixes nothing, but only when both
 * branches give every output one type and shape.  Loop with a trip
 * count known at import time and a condition that stays constant, and
 * Scan (its trip count is a dimension), are unrolled up to UNROLLMAX
 * iterations; their scan outputs are stacked with concat.  What needs
 * real branches or loops in the generated code is refused.
 */
#include <stdlib.h>
#include <string.h>

#include "onnx_imp.h"

enum {
	MAXR = 32,		/* ranks handled here */
	UNROLLMAX = 256,	/* iterations unrolled at most */
	DEPTHMAX = 32,		/* bodies within bodies */
	INLINEDMAX = 1 << 18,	/* body nodes converted, in all */
	CATMAX = 16		/* inputs of one concat */
};

/* The graph attribute name of the current node, NULL when absent. */
static const Onnx__GraphProto *
subgraph(struct imp *m, const char *name)
{
	const Onnx__AttributeProto *a = att(m, name);

	return a && a->type == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH ?
	    a->g : NULL;
}

/*
 * Inline body gp: its inputs bound to ins[0..nin), its outputs' operands
 * into outs[0..nout) (malloc'd).  0, REFUSED (a node of the body was
 * refused, named in the listing) or -1 (an error reported).
 */
static int
body(struct imp *m, const Onnx__GraphProto *gp, int nin,
    const char *const *ins, int nout, char **outs)
{
	const Onnx__NodeProto *outer = m->n;
	const char *oname = m->nname;
	cJSON *saved;
	int rc = 0;

	if ((int)gp->n_input != nin)
		return nodeerr(m, "its body takes %zu inputs; it has %d to "
		    "give", gp->n_input, nin);
	if ((int)gp->n_output != nout)
		return nodeerr(m, "its body gives %zu outputs; %d are "
		    "needed", gp->n_output, nout);
	if (m->depth >= DEPTHMAX)
		return refuse(m, REFUSE_SIZE, "bodies nested more than %d "
		    "deep", DEPTHMAX);
	if (gp->n_node > INLINEDMAX - m->inlined)
		return refuse(m, REFUSE_SIZE, "more than %d nodes of bodies "
		    "to inline, unrolled", INLINEDMAX);
	m->inlined += gp->n_node;
	m->depth++;
	saved = cJSON_Duplicate(m->vals, 1);
	for (int i = 0; i < nin; i++)
		if (gp->input[i]->name && *gp->input[i]->name)
			imp_setval(m, gp->input[i]->name, ins[i]);
	if (imp_initializers(m, gp) != 0) {
		m->nerr++;
		rc = -1;
	}
	for (size_t i = 0; rc == 0 && i < gp->n_node; i++) {
		const Onnx__NodeProto *n = gp->node[i];
		char *nm = n->name && *n->name ?
		    xasprintf("%s/%s", oname, n->name) :
		    xasprintf("%s/%s_%zu", oname, n->op_type ? n->op_type :
		    "node", i);

		m->n = n;
		m->nname = nm;
		rc = imp_node(m);
		m->n = outer;
		m->nname = oname;
		free(nm);
		if (m->nerr && rc == 0)
			rc = -1;
	}
	for (int k = 0; rc == 0 && k < nout; k++) {
		const char *o = gp->output[k]->name ?
		    imp_lookup(m, gp->output[k]->name) : NULL;

		if (!o)
			rc = nodeerr(m, "its body's output %d is not computed",
			    k);
		else
			outs[k] = xstrdup(o);
	}
	cJSON_Delete(m->vals);
	m->vals = saved;
	m->depth--;
	return rc;
}

/* 0, or REFUSED when one of a body's n outputs has a size known only
 * at run time (onnx_bounded.c): where, concat and the loop-carried
 * values would compute on its bound, not on it. */
static int
unbounded(struct imp *m, char **outs, int n)
{
	for (int k = 0; k < n; k++)
		if (outs[k] && cJSON_GetObjectItemCaseSensitive(m->bounded,
		    outs[k]))
			return refuse(m, REFUSE_DYNAMIC, "its body's output "
			    "%d has a size known only at run time, which "
			    "nnl's inlined control flow does not carry", k);
	return 0;
}

static void
freev(char **v, int n)
{
	for (int i = 0; v && i < n; i++)
		free(v[i]);
	free(v);
}

/* A constant scalar's truth: 0 or 1, -1 when it is not a constant. */
static int
truth(struct imp *m, const char *c)
{
	int64_t *v;
	size_t n;
	int r;

	if (cints(m, c, &v, &n) != 0)
		return -1;
	r = n == 1 ? v[0] != 0 : -1;
	free(v);
	return r;
}

int
onnx_if(struct imp *m)
{
	const Onnx__GraphProto *tg = subgraph(m, "then_branch"),
	    *eg = subgraph(m, "else_branch");
	const char *c0 = in(m, 0);
	int k = nouts(m), rc, pick;
	char **t, **e, *c;

	if (!tg || !eg)
		return nodeerr(m, "then_branch and else_branch must be "
		    "graphs");
	if (tdesc_numel(ty(m, c0)) != 1)
		return nodeerr(m, "its condition has %lld elements, not 1",
		    (long long)tdesc_numel(ty(m, c0)));
	/* body() drops the names m->vals held: keep a copy */
	c = xstrdup(c0);
	t = xcalloc((size_t)k, sizeof *t);
	e = xcalloc((size_t)k, sizeof *e);
	pick = truth(m, c);
	if (pick >= 0) {
		/* folded: the branch it picks, and only that one */
		rc = body(m, pick ? tg : eg, 0, NULL, k, t);
		for (int i = 0; rc == 0 && i < k; i++)
			bind(m, i, t[i]);
		freev(t, k);
		freev(e, k);
		free(c);
		return rc;
	}
	rc = body(m, tg, 0, NULL, k, t);
	if (rc == 0)
		rc = body(m, eg, 0, NULL, k, e);
	if (rc == 0 && (rc = unbounded(m, t, k)) == 0)
		rc = unbounded(m, e, k);
	for (int i = 0; rc == 0 && i < k; i++)
		if (!tdesc_same(ty(m, t[i]), ty(m, e[i])))
			rc = refuse(m, REFUSE_DYNAMIC, "its branches give "
			    "output %d different types or shapes: that needs "
			    "real branches in the generated code, which nnl "
			    "lacks", i);
	/* a scalar, so that where broadcasts nothing into the outputs */
	if (rc == 0 && ty(m, c)->rank) {
		const char *s = imp_reshape(m, c, 0, NULL, NULL);

		free(c);
		c = s ? xstrdup(s) : NULL;
		rc = s ? 0 : -1;
	}
	for (int i = 0; rc == 0 && i < k; i++)
		rc = imp_done(m, i, emit(m, "where", NULL, outname(m, i), 3,
		    c, t[i], e[i]));
	freev(t, k);
	freev(e, k);
	free(c);
	return rc;
}

/* v[0..n) stacked along a new axis: each reshaped, then concatenated
 * (CATMAX at a time); NULL after an error. */
static const char *
stack(struct imp *m, char **v, int n, int axis, const char *out)
{
	const struct tdesc *t = ty(m, v[0]);
	int64_t d[MAXR + 1];
	const char *acc = NULL, *ins[CATMAX];
	char **r;
	int i = 0;

	if (t->rank + 1 > MAXR) {
		nodeerr(m, "a scan output of rank %d", t->rank + 1);
		return NULL;
	}
	for (int j = 0, s = 0; j <= t->rank; j++)
		d[j] = j == axis ? 1 : t->dims[s++];
	r = xcalloc((size_t)n, sizeof *r);
	for (int j = 0; j < n; j++) {
		const char *y = imp_reshape(m, v[j], t->rank + 1, d, NULL);

		if (!y) {
			freev(r, j);
			return NULL;
		}
		r[j] = xstrdup(y);
	}
	if (n == 1)
		acc = imp_reshape(m, v[0], t->rank + 1, d, out);
	while (n > 1 && i < n) {
		int k = 0;
		cJSON *o = cJSON_CreateObject();

		if (acc)
			ins[k++] = acc;
		while (k < CATMAX && i < n)
			ins[k++] = r[i++];
		cJSON_AddNumberToObject(o, "axis", axis);
		acc = emitv(m, "concat", o, i == n ? out : NULL, k, ins);
		if (!acc)
			break;
	}
	freev(r, n);
	return acc;
}

/* Scan outputs (n pieces each, in order) stacked: output k of the node
 * is outk0 + k. */
static int
scanouts(struct imp *m, char ***pieces, int nk, int n, int outk0,
    const int64_t *axes, const int64_t *dirs)
{
	for (int k = 0; k < nk; k++) {
		char **v = pieces[k];
		int ax = axes ? (int)axes[k] : 0, rank;

		for (int t = 1; t < n; t++)
			if (!tdesc_same(ty(m, v[0]), ty(m, v[t])))
				return refuse(m, REFUSE_DYNAMIC, "scan output "
				    "%d changes shape between iterations", k);
		rank = ty(m, v[0])->rank + 1;
		if (ax < 0)
			ax += rank;
		if (ax < 0 || ax >= rank)
			return nodeerr(m, "scan output axis %lld out of "
			    "range", (long long)(axes ? axes[k] : 0));
		if (dirs && dirs[k])
			for (int a = 0, b = n - 1; a < b; a++, b--) {
				char *s = v[a];

				v[a] = v[b];
				v[b] = s;
			}
		if (imp_done(m, outk0 + k, stack(m, v, n, ax,
		    outname(m, outk0 + k))) != 0)
			return -1;
	}
	return 0;
}

static char ***
newpieces(int nk, int n)
{
	char ***p = xcalloc((size_t)nk + 1, sizeof *p);

	for (int k = 0; k < nk; k++)
		p[k] = xcalloc((size_t)n + 1, sizeof **p);
	return p;
}

static void
freepieces(char ***p, int nk, int n)
{
	for (int k = 0; k < nk; k++)
		freev(p[k], n);
	free(p);
}

int
onnx_loop(struct imp *m)
{
	const Onnx__GraphProto *gp = subgraph(m, "body");
	const char *mx = in(m, 0), *cx = nins(m) > 1 ? in(m, 1) : NULL;
	int nst = nins(m) - 2, nk, go = 1, rc = 0, t = 0;
	int64_t *tv, trips;
	size_t n;
	const char **ins;
	char **st, **outs, ***pieces;

	if (!gp)
		return nodeerr(m, "its body must be a graph");
	if (nst < 0)
		nst = 0;
	nk = nouts(m) - nst;
	if (nk < 0)
		return nodeerr(m, "%d outputs for %d loop-carried values",
		    nouts(m), nst);
	if (!mx)
		return refuse(m, REFUSE_CONST, "no trip count: nnl unrolls "
		    "loops of a trip count known at import time, and has no "
		    "real loops in the generated code yet");
	/* both asked for, so that the hint names both */
	if (cx)
		go = truth(m, cx);
	if (cints(m, mx, &tv, &n) != 0)
		return refuse(m, REFUSE_CONST, "the trip count is computed "
		    "at run time: nnl unrolls loops of a trip count known at "
		    "import time, and has no real loops in the generated "
		    "code yet");
	trips = n == 1 ? tv[0] : -1;
	free(tv);
	if (trips < 0)
		return nodeerr(m, "its trip count is not one non-negative "
		    "number");
	if (trips > UNROLLMAX)
		return refuse(m, REFUSE_SIZE, "%lld iterations; nnl unrolls "
		    "at most %d", (long long)trips, UNROLLMAX);
	if (go < 0)
		return refuse(m, REFUSE_CONST, "its condition is computed at "
		    "run time");
	ins = xcalloc((size_t)nst + 2, sizeof *ins);
	st = xcalloc((size_t)nst + 1, sizeof *st);
	outs = xcalloc((size_t)nst + (size_t)nk + 1, sizeof *outs);
	pieces = newpieces(nk, (int)trips);
	for (int i = 0; i < nst; i++)
		st[i] = xstrdup(in(m, 2 + i));
	for (t = 0; rc == 0 && go && t < trips; t++) {
		const char *it = mkscalar(m, DT_INT64, t);
		const char *c = mkscalar(m, DT_UINT8, 1);

		ins[0] = it;
		ins[1] = c;
		for (int i = 0; i < nst; i++)
			ins[2 + i] = st[i];
		rc = body(m, gp, nst + 2, ins, 1 + nst + nk, outs);
		if (rc == 0 && (rc = unbounded(m, outs, 1 + nst + nk)) != 0)
			for (int i = 0; i < 1 + nst + nk; i++)
				free(outs[i]);
		if (rc != 0)
			break;
		go = truth(m, outs[0]);
		free(outs[0]);
		for (int i = 0; i < nst; i++) {
			free(st[i]);
			st[i] = outs[1 + i];
		}
		for (int k = 0; k < nk; k++)
			pieces[k][t] = outs[1 + nst + k];
		if (go < 0)
			rc = refuse(m, REFUSE_CONST, "its condition is "
			    "computed at run time in iteration %d", t);
	}
	for (int i = 0; rc == 0 && i < nst; i++)
		bind(m, i, st[i]);
	if (rc == 0 && nk && t == 0)
		rc = refuse(m, REFUSE_EMPTY, "no iteration runs: its scan "
		    "outputs are empty");
	if (rc == 0)
		rc = scanouts(m, pieces, nk, t, nst, NULL, NULL);
	freepieces(pieces, nk, (int)trips);
	freev(st, nst);
	free(outs);
	free(ins);
	return rc;
}

/* x's element idx along axis, the axis dropped. */
static const char *
take(struct imp *m, const char *x, int axis, int64_t idx)
{
	const struct tdesc *t = ty(m, x);
	uint32_t st[MAXR], sz[MAXR];
	int64_t d[MAXR];
	cJSON *o = cJSON_CreateObject();
	const char *y;

	for (int i = 0, j = 0; i < t->rank; i++) {
		st[i] = i == axis ? (uint32_t)idx : 0;
		sz[i] = i == axis ? 1 : (uint32_t)t->dims[i];
		if (i != axis)
			d[j++] = t->dims[i];
	}
	cJSON_AddItemToObject(o, "starts", ju32s(st, (size_t)t->rank));
	cJSON_AddItemToObject(o, "sizes", ju32s(sz, (size_t)t->rank));
	y = emit(m, "slice", o, NULL, 1, x);
	return y ? imp_reshape(m, y, t->rank - 1, d, NULL) : NULL;
}

/* An integer list attribute of exactly n items, or none (v NULL). */
static int
axesatt(struct imp *m, const char *name, int n, const int64_t **v)
{
	size_t k = att_ints(m, name, v);

	if (k == 0)
		*v = NULL;
	else if ((int)k != n)
		return nodeerr(m, "%s has %zu items, not %d", name, k, n);
	return 0;
}

int
onnx_scan(struct imp *m)
{
	const Onnx__GraphProto *gp = subgraph(m, "body");
	int v8 = m->opset < 9, first = v8 ? 1 : 0;
	int nsc = (int)att_i(m, "num_scan_inputs", -1);
	int nst = nins(m) - first - nsc, nk = nouts(m) - nst, rc = 0;
	const int64_t *iax, *idir, *oax, *odir;
	int64_t trips = -1;
	int *axes;
	const char **ins;
	char **xs, **st, **outs, ***pieces;

	if (!gp)
		return nodeerr(m, "its body must be a graph");
	if (nsc < 1 || nst < 0 || nk < 0)
		return nodeerr(m, "num_scan_inputs %d does not fit %d inputs "
		    "and %d outputs", nsc, nins(m), nouts(m));
	if (v8 && in(m, 0))
		return refuse(m, REFUSE_ATTR, "sequence_lens is not "
		    "supported");
	if (axesatt(m, v8 ? "directions" : "scan_input_directions", nsc,
	    &idir) || axesatt(m, "scan_input_axes", nsc, &iax) ||
	    axesatt(m, "scan_output_axes", nk, &oax) ||
	    axesatt(m, "scan_output_directions", nk, &odir))
		return -1;
	xs = xcalloc((size_t)nsc + 1, sizeof *xs);
	st = xcalloc((size_t)nst + 1, sizeof *st);
	axes = xcalloc((size_t)nsc + 1, sizeof *axes);
	/* Scan-8: a batch axis first, of one item only; dropped here and
	 * put back on the outputs */
	for (int i = 0; rc == 0 && i < nst + nsc; i++) {
		const char *x = in(m, first + i);
		const struct tdesc *t = ty(m, x);

		if (v8 && (t->rank < 1 || t->dims[0] != 1))
			rc = refuse(m, REFUSE_ATTR, "a batch of other than "
			    "one item");
		else if (v8)
			x = imp_reshape(m, x, t->rank - 1, t->dims + 1, NULL);
		if (rc == 0 && !x)
			rc = -1;
		if (rc == 0 && i < nst)
			st[i] = xstrdup(x);
		else if (rc == 0)
			xs[i - nst] = xstrdup(x);
	}
	for (int j = 0; rc == 0 && j < nsc; j++) {
		const struct tdesc *t = ty(m, xs[j]);
		int64_t a = iax ? iax[j] : 0;

		if (t->rank > MAXR) {
			rc = nodeerr(m, "scan input %d of rank %d", j,
			    t->rank);
			break;
		}
		if (a < 0)
			a += t->rank;
		if (a < 0 || a >= t->rank) {
			rc = nodeerr(m, "scan input %d: axis %lld out of "
			    "range", j, (long long)(iax ? iax[j] : 0));
			break;
		}
		axes[j] = (int)a;
		if (trips >= 0 && t->dims[a] != trips)
			rc = nodeerr(m, "scan inputs of %lld and %lld "
			    "iterations", (long long)trips,
			    (long long)t->dims[a]);
		trips = t->dims[a];
	}
	if (rc == 0 && trips == 0)
		rc = refuse(m, REFUSE_EMPTY, "no iteration runs");
	if (rc == 0 && trips > UNROLLMAX)
		rc = refuse(m, REFUSE_SIZE, "%lld iterations; nnl unrolls "
		    "at most %d", (long long)trips, UNROLLMAX);
	if (rc != 0) {
		freev(st, nst);
		freev(xs, nsc);
		free(axes);
		return rc;
	}
	ins = xcalloc((size_t)(nst + nsc) + 1, sizeof *ins);
	outs = xcalloc((size_t)(nst + nk) + 1, sizeof *outs);
	pieces = newpieces(nk, (int)trips);
	for (int64_t t = 0; rc == 0 && t < trips; t++) {
		for (int i = 0; i < nst; i++)
			ins[i] = st[i];
		for (int j = 0; rc == 0 && j < nsc; j++)
			if (!(ins[nst + j] = take(m, xs[j], axes[j],
			    idir && idir[j] ? trips - 1 - t : t)))
				rc = -1;
		if (rc == 0)
			rc = body(m, gp, nst + nsc, ins, nst + nk, outs);
		if (rc == 0 && (rc = unbounded(m, outs, nst + nk)) != 0)
			for (int i = 0; i < nst + nk; i++)
				free(outs[i]);
		if (rc != 0)
			break;
		for (int i = 0; i < nst; i++) {
			free(st[i]);
			st[i] = outs[i];
		}
		for (int k = 0; k < nk; k++)
			pieces[k][t] = outs[nst + k];
	}
	for (int i = 0; rc == 0 && i < nst; i++) {
		const struct tdesc *t = ty(m, st[i]);
		int64_t d[MAXR + 1];

		d[0] = 1;
		if (t->rank)
			memcpy(d + 1, t->dims,
			    (size_t)t->rank * sizeof *d);
		rc = imp_done(m, i, v8 ? imp_reshape(m, st[i], t->rank + 1, d,
		    outname(m, i)) : st[i]);
	}
	if (rc == 0 && v8) {
		/* Scan-8 stacks along axis 1, after the batch of one */
		int64_t *one = xcalloc((size_t)nk + 1, sizeof *one);

		for (int k = 0; k < nk; k++)
			one[k] = 0;
		rc = scanouts(m, pieces, nk, (int)trips, nst, one, odir);
		for (int k = 0; rc == 0 && k < nk; k++) {
			const char *o = outname(m, nst + k);
			const char *y = o ? imp_lookup(m, o) : NULL;
			const struct tdesc *t = ty(m, y);
			int64_t d[MAXR + 1];

			if (!y)
				continue;

			d[0] = 1;
			if (t->rank)
				memcpy(d + 1, t->dims,
				    (size_t)t->rank * sizeof *d);
			rc = imp_done(m, nst + k, imp_reshape(m, y,
			    t->rank + 1, d, NULL));
		}
		free(one);
	} else if (rc == 0) {
		rc = scanouts(m, pieces, nk, (int)trips, nst, oax, odir);
	}
	freepieces(pieces, nk, (int)trips);
	freev(st, nst);
	free(outs);
	free(ins);
	freev(xs, nsc);
	free(axes);
	return rc;
}
