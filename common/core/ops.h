/*
 * ops: the operation table of ops.def and ops_nnl.def, parsed once into descriptors
 * that every pass consults: operand names, positional parameters and
 * option members with their types and defaults.
 */
#ifndef NNL_OPS_H
#define NNL_OPS_H

enum op {
	OP_NONE = -1,
#define OP(id, name, operands, params, options, nout, rule) OP_##id,
#include "ops.def"
#include "ops_nnl.def"
#undef OP
	OP_COUNT
};

/* The WebNN ops come first (ops.def), then nnl's own (ops_nnl.def). */
enum {
#define OP(id, name, operands, params, options, nout, rule) OPW_##id,
#include "ops.def"
#undef OP
	OP_WEBNN_COUNT
};

enum argtype {
	AT_U32, AT_I32, AT_F64, AT_BOOL, AT_NUMBER, AT_DTYPE, AT_STR,
	AT_OPERAND, AT_ENUM
};

/* One parameter or option member.  A union type (u32|u32[]) is kept as
 * the two alternatives. */
struct argdesc {
	char *name;
	enum argtype type, alt;	/* alt: second union member or -1 */
	int seq, altseq;	/* sequence<...> */
	int hasalt;
	char **enumvals;	/* AT_ENUM: NULL-terminated */
	char *def;		/* default as written in the IDL, or NULL */
};

struct opdesc {
	enum op id;
	const char *name;
	char **operands;	/* NULL-terminated */
	int nOperands;
	int variadic;		/* the one operand is a sequence */
	struct argdesc *params;
	int nparams;
	struct argdesc *options;
	int noptions;
	int nout;		/* 0: depends on the arguments */
	int nnl;		/* beyond WebNN: a row of ops_nnl.def */
};

const struct opdesc *op_get(enum op id);
const struct opdesc *op_lookup(const char *name);	/* NULL if unknown */
/* The nearest op name (edit distance), for "did you mean" hints. */
const char *op_suggest(const char *name);
/* A parameter or option of the op, or NULL. */
const struct argdesc *op_arg(const struct opdesc *d, const char *name);
int op_isoperandarg(const struct opdesc *d, const char *name);
const char *argtype_name(const struct argdesc *a, char *buf, int len);

/* Edit distance, shared by every "did you mean" hint. */
int editdistance(const char *a, const char *b);

#endif
