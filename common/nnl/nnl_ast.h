/* nnl_ast: the syntax tree of an NNL model and what the three parts of
 * the front end share: nnl_read.c builds the tree, nnl_model.c checks
 * it, wires the layers and loads their weights, nnl_lower.c turns each
 * layer into WebNN operations. */
#ifndef NNL_AST_H
#define NNL_AST_H

#include "nnl.h"
#include "npy.h"
#include "npz.h"
#include "weights.h"

enum nvkind { NV_NUM, NV_STR, NV_ID, NV_LIST };

struct nval {
	enum nvkind k;
	double num;
	char *str;
	struct nval *items;
	int n;
	struct pos pos;
};

struct nparam {
	char *name;
	struct nval v;
	struct pos pos;
};

struct nlayer {
	char *id, *type;
	struct pos pos, typepos;
	struct nparam *params;
	int np;
	int *in;		/* input layers */
	int nin;
	int64_t shape[8];	/* per-sample output shape (HWC) */
	int rank;
	char *out;		/* the graph operand of its output */
	int done;
	uint64_t nparams;	/* elements of its weights */
};

struct nconn {
	char **from;
	struct pos *frompos;
	int nfrom;
	char *to;
	struct pos topos;
	struct pos pos;
};

struct nmodel {
	const char *name;	/* file name, for diagnostics */
	const char *text;
	size_t len;
	char *version, *model;
	struct pos modelpos;
	struct nparam *config;
	int nconfig;
	struct nlayer *layers;
	int nlayers;
	struct nconn *conns;
	int nconns, hasconn;
	int nerr;
};

/* A model being lowered into a graph. */
struct nlower {
	struct nmodel *m;
	struct graph *g;
	const struct nnl_opts *o;
	int64_t batch;
	const char *wfile, *mfile;	/* where the weights are packed */
	char *wsrc;		/* the weights source, from the model's
				   folder (for messages) */
	char *wreal;		/* the same, as modelpath resolved it:
				   what is opened */
	char *mdir;		/* the model's folder */
	const char *wname;	/* the source as the model names it */
	int wkind;		/* 0 a directory of .npy files, 1 .npz,
				   2 an ONNX model (nnl_onnx.c) */
	struct nnl_onnx *onnx;
	struct npz_member *npz;
	size_t nnpz;
	struct wwriter ww;
	int wopen;
	struct buf missing;	/* for E003: "\n    key [shape]" each */
	int nmissing;
	cJSON *wlist;		/* summary: [{"key", "shape"}] expected */
};

/* nnl_read.c */
void nnl_err(struct nmodel *m, struct pos p, const char *fmt, ...)
    NNL_PRINTF(3, 4);
int nnl_syntax(struct nmodel *m);

/* nnl_param.c: a layer's parameters (already checked against the
 * layer table); nnl_weight.c: the weights */
const struct nparam *nnl_param(const struct nlayer *l, const char *name);
double nnl_pnum(const struct nlayer *l, const char *name, double dflt);
const char *nnl_pstr(const struct nlayer *l, const char *name,
    const char *dflt);
void nnl_ppair(const struct nlayer *l, const char *name, int64_t dflt,
    int64_t v[2]);
const struct nval *nnl_cfg(struct nmodel *m, const char *key);
int nnl_isint(const struct nval *v);
char *nnl_shapestr(const int64_t *d, int r);
char *nnl_weight(struct nlower *w, struct nlayer *l, const char *pname,
    const int64_t *want, int wr, const int64_t *decl, int dr);
char *nnl_weight_alt(struct nlower *w, struct nlayer *l, const char *pname,
    const char *alt, const int64_t *want, int wr, const int64_t *decl,
    int dr);
/* The model's weights source: open (0 or -1 after reporting), the
 * summary's weight lines, one E003 for every missing tensor. */
int nnl_weights_open(struct nlower *w);
void nnl_weights_summary(struct graph *g, struct nmodel *m,
    struct nlower *w);
void nnl_weights_missing(struct nlower *w);

/* nnl_onnx.c: weights from an ONNX model's initializers.  get: 0 with
 * *a filled (float32, NNL's layout), 1 when there is no such tensor,
 * -1 after an error. */
struct nnl_onnx *nnl_onnx_open(const char *path, int outside);
int nnl_onnx_get(struct nnl_onnx *x, struct nmodel *m, struct nlayer *l,
    const char *key, const char *param, struct npy *a);
void nnl_onnx_close(struct nnl_onnx *x);

/* nnl_lower.c: one layer, after its inputs; sets l->shape and l->out */
int nnl_lower_layer(struct nlower *w, struct nlayer *l);

#endif
