/*
 * kernel: dispatch from a node to its op's prepare function, and the
 * helpers those functions build calls with.  The kernel table comes
 * from rt/kernels.def.
 */
#include "kernel.h"
#include "escape.h"

#include <stdlib.h>
#include <string.h>

#include "opts.h"

#define K(name) void nnl_k_##name(const int64_t *ip, const double *fp, \
    const void *const *in, void *const *out, void *scratch);
#include "rt/kernels.def"
#undef K

static const struct {
	const char *name;
	nnl_kernel_fn *fn;
} table[] = {
#define K(name) { #name, nnl_k_##name },
#include "rt/kernels.def"
#undef K
	{ NULL, NULL }
};

typedef int preparefn(struct kctx *);

static preparefn *const prepares[] = {
#define OP(id, name, operands, params, options, nout, rule) prepare_##rule,
#include "ops.def"
#include "ops_nnl.def"
#undef OP
};

nnl_kernel_fn *
kernel_lookup(const char *name)
{
	for (int i = 0; table[i].name; i++)
		if (strcmp(table[i].name, name) == 0)
			return table[i].fn;
	return NULL;
}

int
kset(struct kctx *c, const char *name)
{
	for (int i = 0; table[i].name; i++)
		if (strcmp(table[i].name, name) == 0) {
			c->k->name = table[i].name;
			c->k->fn = table[i].fn;
			return 0;
		}
	return shape_err(c->sc, "no %s kernel for these types (wanted "
	    "%s)", c->d->name, name);
}

void
kip(struct kctx *c, int64_t v)
{
	GROW(c->k->ip, c->k->cip, (size_t)c->k->nip + 1);
	c->k->ip[c->k->nip++] = v;
}

void
kfp(struct kctx *c, double v)
{
	GROW(c->k->fp, c->k->cfp, (size_t)c->k->nfp + 1);
	c->k->fp[c->k->nfp++] = v;
}

void
kin(struct kctx *c, const char *operand)
{
	GROW(c->k->in, c->k->cin, (size_t)c->k->nin + 1);
	c->k->in[c->k->nin++] = operand;
}

void
kcall_free(struct kcall *k)
{
	free(k->ip);
	free(k->fp);
	free(k->in);
	memset(k, 0, sizeof *k);
}

void
kshape(struct kctx *c, const struct tdesc *t)
{
	kip(c, t->rank);
	for (int i = 0; i < t->rank; i++)
		kip(c, t->dims[i]);
}

void
kbstrides(struct kctx *c, const struct tdesc *t, int r, const int64_t *dims)
{
	int64_t st = 1, s[NNL_MAXRANK];

	for (int i = r - 1; i >= 0; i--) {
		int j = i - (r - t->rank);
		int64_t d = j >= 0 ? t->dims[j] : 1;

		s[i] = d == 1 && dims[i] != 1 ? 0 : st;
		st *= d;
	}
	for (int i = 0; i < r; i++)
		kip(c, s[i]);
}

int
kdt(const struct tdesc *t)
{
	return (int)t->dt;
}

const char *
kdtname(enum dtype dt)
{
	return dtype_short(dt);
}

int
kernel_prepare(struct graph *g, struct node *n, struct kcall *k)
{
	struct shapectx sc = { g, n, op_get(n->op), n->nin, NULL, 0 };
	struct kctx c = { g, n, sc.d, NULL, n->types, k, &sc };
	int rc, empty = 1;

	memset(k, 0, sizeof *k);
	if (!sc.d || !n->types)
		BUG("kernel_prepare on an untyped or unknown node");
	c.in = xcalloc((size_t)n->nin + 1, sizeof *c.in);
	for (int i = 0; i < n->nin; i++)
		c.in[i] = operand_type(graph_find(g, n->in[i]));
	sc.in = c.in;
	k->nout = n->nout;
	/* the runtime's index arithmetic holds NNL_MAXRANK dimensions */
	for (int i = 0; i < n->nin + n->nout; i++) {
		const struct tdesc *t = i < n->nin ? c.in[i] :
		    &n->types[i - n->nin];

		if (t->rank > NNL_MAXRANK) {
			rc = shape_err(&sc, "%s \"%s\" has rank %d; the C "
			    "runtime handles ranks up to %d",
			    i < n->nin ? "input" : "output",
			    escape_tty_name(i < n->nin ? n->in[i] :
			    n->out[i - n->nin]), t->rank, NNL_MAXRANK);
			free(c.in);
			return rc;
		}
	}
	/* a node whose outputs hold no elements has nothing to compute
	 * (nnl-graph(5), Empty tensors): a copy of no bytes, so that no
	 * kernel meets a dimension of 0 */
	for (int i = 0; i < n->nout && empty; i++)
		empty = tdesc_numel(&n->types[i]) == 0;
	if (empty && n->nout > 0) {
		kip(&c, 0);
		kin(&c, n->nin ? n->in[0] : NULL);
		rc = kset(&c, "copy");
	} else
		rc = prepares[n->op](&c);
	if (rc == 0 && !k->fn)
		rc = shape_err(&sc, "%s: no kernel chosen", sc.d->name);
	free(c.in);
	if (rc != 0)
		kcall_free(k);
	return rc;
}
