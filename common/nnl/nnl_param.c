/*
 * nnl_param: a layer's parameters and the model's config by name,
 * already checked against the layer table (nnl_model.c), for the
 * lowering (nnl_lower.c).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "nnl_ast.h"
#include "escape.h"
#include "modelpath.h"
#include "npy.h"

const struct nparam *
nnl_param(const struct nlayer *l, const char *name)
{
	for (int i = 0; i < l->np; i++)
		if (!strcmp(l->params[i].name, name))
			return &l->params[i];
	return NULL;
}

const struct nval *
nnl_cfg(struct nmodel *m, const char *key)
{
	for (int i = 0; i < m->nconfig; i++)
		if (!strcmp(m->config[i].name, key))
			return &m->config[i].v;
	return NULL;
}

double
nnl_pnum(const struct nlayer *l, const char *name, double dflt)
{
	const struct nparam *p = nnl_param(l, name);

	return p && p->v.k == NV_NUM ? p->v.num : dflt;
}

const char *
nnl_pstr(const struct nlayer *l, const char *name, const char *dflt)
{
	const struct nparam *p = nnl_param(l, name);

	return p && (p->v.k == NV_STR || p->v.k == NV_ID) ? p->v.str : dflt;
}

/* An int or a pair: v[0], v[1]. */
void
nnl_ppair(const struct nlayer *l, const char *name, int64_t dflt,
    int64_t v[2])
{
	const struct nparam *p = nnl_param(l, name);

	v[0] = v[1] = dflt;
	if (p && p->v.k == NV_NUM)
		v[0] = v[1] = (int64_t)p->v.num;
	else if (p && p->v.k == NV_LIST && p->v.n == 2) {
		v[0] = (int64_t)p->v.items[0].num;
		v[1] = (int64_t)p->v.items[1].num;
	}
}

int
nnl_isint(const struct nval *v)
{
	return v->k == NV_NUM && v->num == floor(v->num) &&
	    fabs(v->num) < 1e9;
}

char *
nnl_shapestr(const int64_t *d, int r)
{
	struct buf b = { 0 };

	buf_putc(&b, '[');
	for (int i = 0; i < r; i++)
		buf_printf(&b, "%s%lld", i ? ", " : "", (long long)d[i]);
	buf_putc(&b, ']');
	return b.s;
}
