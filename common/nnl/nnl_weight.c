/*
 * nnl_weight: an NNL model's weight tensors, from the .npy directory,
 * the .npz archive or the ONNX model its config names: each looked up,
 * checked against the shape its layer expects and packed, the missing
 * ones collected into one E003 error.  nnl_lower.c asks for them, the
 * model's driver (nnl_model.c) opens and closes the source.
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

/* ---- weights ---- */

int
nnl_weights_open(struct nlower *w)
{
	const struct nval *v = nnl_cfg(w->m, "weights");
	const char *why;
	struct stat st;

	if (!v)
		return 0;
	w->mdir = path_dirname(w->o->path ? w->o->path : ".");
	w->wname = v->str;
	w->wsrc = path_join(w->mdir, v->str);
	/* one rule for every file a model names (modelpath.h) */
	if (!(w->wreal = modelpath(w->mdir, v->str, w->o->outside, &why)) &&
	    errno == 0) {
		nnl_err(w->m, v->pos, "weights path '%s' %s",
		    escape_tty_name(v->str), why);
		return -1;
	}
	if (!w->wreal || stat(w->wreal, &st) != 0) {
		nnl_err(w->m, v->pos, "E003: weights '%s': %s\n  hint: run "
		    "'nnc inspect %s' to see every expected tensor and its "
		    "shape",
		    escape_tty_name(w->wsrc), strerror(errno),
		    escape_tty_name(w->m->name));
		return -1;
	}
	if (S_ISDIR(st.st_mode))
		w->wkind = 0;
	else if (strlen(w->wsrc) > 5 &&
	    !strcmp(w->wsrc + strlen(w->wsrc) - 5, ".onnx")) {
		w->wkind = 2;
		if (!(w->onnx = nnl_onnx_open(w->wreal, w->o->outside))) {
			w->m->nerr++;
			return -1;
		}
	} else if (strlen(w->wsrc) > 4 &&
	    !strcmp(w->wsrc + strlen(w->wsrc) - 4, ".npz")) {
		int rc;

		w->wkind = 1;
		npy_allow_f64(1);	/* float64 weights: cast */
		rc = npz_load(w->wreal, &w->npz, &w->nnpz);
		npy_allow_f64(0);
		if (rc != 0) {
			w->m->nerr++;
			return -1;
		}
	} else {
		nnl_err(w->m, v->pos, "E003: weights '%s': expected a "
		    "directory of .npy files, an .npz archive or an .onnx "
		    "model",
		    escape_tty_name(w->wsrc));
		return -1;
	}
	return 0;
}

/*
 * The .npy file of tensor key in the weights directory, under the
 * rule of modelpath.h: NULL when there is none (missing, as before),
 * or after an error at the layer when it leads outside the model's
 * folder (a symbolic link).
 */
static char *
npyfile(struct nlower *w, struct nlayer *l, const char *key, int *refused)
{
	char *rel = xasprintf("%s/%s.npy", w->wname, key), *f;
	const char *why;

	f = modelpath(w->mdir, rel, w->o->outside, &why);
	if (!f && errno == 0) {
		nnl_err(w->m, l->pos, "weights path '%s' %s",
		    escape_tty_name(rel), why);
		*refused = 1;
	}
	free(rel);
	return f;
}

/* Pack a checked tensor and declare its constant. */
static void
pack(struct nlower *w, struct nlayer *l, const char *key, const char *cname,
    const struct npy *a, const int64_t *decl, int dr)
{
	struct operand *c;

	if (!w->wopen) {
		const struct nval *al = nnl_cfg(w->m, "align");

		/* config align: each tensor's offset, as for the
		 * workspace (checked a power of two) */
		if (wwriter_open(&w->ww, w->wfile, w->mfile,
		    al && al->num > WEIGHTS_ALIGN ? (unsigned)al->num :
		    WEIGHTS_ALIGN) != 0) {
			w->m->nerr++;
			return;
		}
		w->wopen = 1;
	}
	if (wwriter_add(&w->ww, key, DT_FLOAT32, dr, decl, a->data,
	    a->nbytes) != 0) {
		w->m->nerr++;
		return;
	}
	c = graph_add_const(w->g, cname, DT_FLOAT32, dr, decl);
	c->init = INIT_WEIGHTS;
	c->ref = xstrdup(key);
	c->pos = l->pos;
}

static uint64_t
nnl_numel(const int64_t *d, int r)
{
	uint64_t n = 1;

	for (int i = 0; i < r; i++)
		n *= d[i] > 0 ? (uint64_t)d[i] : 0;
	return n;
}

/*
 * Find tensor KEY (parameter pname of layer l) in the weights source:
 * the array, *owned when the caller frees it; NULL when there is none
 * or, with *unreadable set, after an error.
 */
static struct npy *
lookup(struct nlower *w, struct nlayer *l, const char *key,
    const char *pname, struct npy *a, int *owned, int *unreadable)
{
	struct npy *ap = NULL;

	if (w->wsrc && w->wkind == 0) {
		char *f = npyfile(w, l, key, unreadable);
		struct stat st;

		if (f && stat(f, &st) == 0) {
			int rc;

			npy_allow_f64(1);
			rc = npy_load(f, a);
			npy_allow_f64(0);
			if (rc != 0) {	/* it said why */
				w->m->nerr++;
				*unreadable = 1;
			} else {
				ap = a;
				*owned = 1;
			}
		}
		free(f);
	} else if (w->wsrc && w->wkind == 2) {
		int r = nnl_onnx_get(w->onnx, w->m, l, key, pname, a);

		if (r < 0) {
			w->m->nerr++;
			*unreadable = 1;
		} else if (r == 0) {
			ap = a;
			*owned = 1;
		}
	} else if (w->wsrc) {
		for (size_t i = 0; i < w->nnpz; i++)
			if (!strcmp(w->npz[i].name, key))
				ap = &w->npz[i].arr;
	}
	return ap;
}

/*
 * Upstream nnc's cast of float64 weights for precision float32, done
 * as npy reads them (npy_allow_f64: round to nearest, an infinity
 * beyond float32's range, as Rust's "as f32" gives): a warning naming
 * the tensor's file and counting the infinities.
 */
static void
warn64(struct nlower *w, struct nlayer *l, const char *key,
    const struct npy *a)
{
	struct srcloc at = { w->m->name, l->pos.line, l->pos.col, w->m->text,
	    w->m->len };
	char *file = w->wkind == 0 ? xasprintf("%s/%s.npy", w->wname, key) :
	    xasprintf("%s: %s", w->wname, key);

	if (a->ninf)
		warn_at(&at, "%s: float64 weights cast to float32; %llu "
		    "value%s beyond float32's range became infinite",
		    escape_tty_name(file), (unsigned long long)a->ninf,
		    a->ninf == 1 ? "" : "s");
	else
		warn_at(&at, "%s: float64 weights cast to float32",
		    escape_tty_name(file));
	free(file);
}

/*
 * Load tensor ID.PARAM, or failing that ID.ALT (another name the same
 * tensor goes by, NULL when none: LayerNorm's gamma and beta are
 * upstream nnc's scale and bias), check it has shape want (rank wr),
 * pack it and declare constant ID__PARAM with shape decl (rank dr, the
 * same number of elements).  A file source holding both names is an
 * error (which one is meant?).  A missing tensor is noted for the one
 * E003 error.  Returns the constant's name.
 */
char *
nnl_weight_alt(struct nlower *w, struct nlayer *l, const char *pname,
    const char *alt, const int64_t *want, int wr, const int64_t *decl,
    int dr)
{
	char *key = xasprintf("%s.%s", l->id, pname), *akey = NULL;
	char *cname = xasprintf("%s__%s", l->id, pname);
	struct npy a, *ap = NULL;
	int owned = 0, unreadable = 0;

	memset(&a, 0, sizeof a);
	l->nparams += nnl_numel(want, wr);
	if (alt)
		akey = xasprintf("%s.%s", l->id, alt);
	if (w->o->summary) {
		/* nnc inspect: the tensor as the layer expects it */
		struct operand *c = graph_add_const(w->g, cname, DT_FLOAT32,
		    dr, decl);
		cJSON *e = cJSON_CreateObject(), *sh = cJSON_CreateArray();

		for (int i = 0; i < wr; i++)
			cJSON_AddItemToArray(sh, cJSON_CreateNumber(
			    (double)want[i]));
		cJSON_AddStringToObject(e, "key", key);
		if (akey)
			cJSON_AddStringToObject(e, "alias", akey);
		cJSON_AddItemToObject(e, "shape", sh);
		if (!w->wlist)
			w->wlist = cJSON_CreateArray();
		cJSON_AddItemToArray(w->wlist, e);

		c->init = INIT_WEIGHTS;
		c->ref = key;
		c->pos = l->pos;
		free(akey);
		return cname;
	}
	ap = lookup(w, l, key, pname, &a, &owned, &unreadable);
	if (akey && !unreadable && (!ap || w->wkind != 2)) {
		struct npy b, *bp;
		int bowned = 0;

		memset(&b, 0, sizeof b);
		bp = lookup(w, l, akey, alt, &b, &bowned, &unreadable);
		if (bp && ap) {
			nnl_err(w->m, l->pos, "%s and %s both given: keep one",
			    escape_tty_name(key), escape_tty_name(akey));
			unreadable = 1;
		} else if (bp) {
			a = b;
			ap = bowned ? &a : bp;
			owned = bowned;
			bowned = 0;
			free(key);
			key = akey;
			akey = NULL;
		}
		if (bowned)
			npy_free(&b);
	}
	if (ap && ap->from64)
		warn64(w, l, key, ap);
	if (!ap && !unreadable) {
		char *s = nnl_shapestr(want, wr);

		buf_printf(&w->missing, "\n    %s %s", escape_tty_name(key), s);
		if (akey)
			buf_printf(&w->missing, " (or %s)",
			    escape_tty_name(akey));
		w->nmissing++;
		free(s);
	} else if (ap && ap->dt != DT_FLOAT32) {
		nnl_err(w->m, l->pos, "E003: %s: %s data, precision float32 "
		    "needs float32", escape_tty_name(key), dtype_name(ap->dt));
	} else if (ap) {
		int same = ap->rank == wr;

		for (int i = 0; same && i < wr; i++)
			same = ap->shape[i] == want[i];
		if (!same) {
			char *e = nnl_shapestr(want, wr);
			char *f = nnl_shapestr(ap->shape, ap->rank);

			nnl_err(w->m, l->pos, "E003: shape mismatch: %s: "
			    "expected %s, found %s", escape_tty_name(key), e,
			    f);
			free(e);
			free(f);
		} else if (w->m->nerr == 0 && w->nmissing == 0) {
			pack(w, l, key, cname, ap, decl, dr);
		}
	}
	if (owned)
		npy_free(&a);
	free(key);
	free(akey);
	return cname;
}

char *
nnl_weight(struct nlower *w, struct nlayer *l, const char *pname,
    const int64_t *want, int wr, const int64_t *decl, int dr)
{
	return nnl_weight_alt(w, l, pname, NULL, want, wr, decl, dr);
}

/* nnc inspect's rows: "layers": [{"id", "type", "shape", "params"}],
 * the per-sample output shape, in declaration order. */
void
nnl_weights_summary(struct graph *g, struct nmodel *m, struct nlower *w)
{
	cJSON *a = cJSON_CreateArray();
	cJSON *x = cJSON_GetObjectItemCaseSensitive(g->extra, "nnl");

	for (int i = 0; i < m->nlayers; i++) {
		struct nlayer *l = &m->layers[i];
		cJSON *o = cJSON_CreateObject(), *s = cJSON_CreateArray();

		cJSON_AddStringToObject(o, "id", l->id);
		cJSON_AddStringToObject(o, "type", l->type);
		for (int k = 0; k < l->rank; k++)
			cJSON_AddItemToArray(s, cJSON_CreateNumber(
			    (double)l->shape[k]));
		cJSON_AddItemToObject(o, "shape", s);
		cJSON_AddNumberToObject(o, "params", (double)l->nparams);
		cJSON_AddItemToArray(a, o);
	}
	cJSON_AddItemToObject(x, "layers", a);
	cJSON_AddItemToObject(x, "weights", w->wlist ? w->wlist :
	    cJSON_CreateArray());
	w->wlist = NULL;
}

/* One error for every missing tensor, with the shapes it expects. */
void
nnl_weights_missing(struct nlower *w)
{
	struct nmodel *m = w->m;
	const struct nval *v = nnl_cfg(m, "weights");

	nnl_err(m, v ? v->pos : m->modelpos, "E003: %d missing weight%s in "
	    "%s%s:%s\n  hint: run 'nnc inspect %s' to see every expected "
	    "tensor and its shape", w->nmissing, w->nmissing == 1 ? "" : "s",
	    !w->wsrc ? "the model (no 'weights' in config)" : w->wkind == 2 ?
	    "the ONNX model " : w->wkind ? "the .npz archive " :
	    "the directory of .npy files ",
	    w->wsrc ? escape_tty_name(w->wsrc) : "", w->missing.s, m->name);
}
