/* nnl_ast: the syntax tree of an NNL model (nnl_read.c builds it,
 * nnl_lower.c lowers it). */
#ifndef NNL_AST_H
#define NNL_AST_H

#include "nnl.h"

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

void nnl_err(struct nmodel *m, struct pos p, const char *fmt, ...)
    NNL_PRINTF(3, 4);
int nnl_syntax(struct nmodel *m);

#endif
