/*
 * onnx_imp: what the ONNX importer's op handlers share.  The importer
 * (onnx_import.c) walks the ONNX graph in order; for each node it calls
 * the handler its op_type has in onnx_ops.def.  A handler reads the
 * node's inputs (graph operands, typed as soon as they exist) and
 * attributes, adds WebNN nodes with emit(), and binds each ONNX output
 * to an operand with bind().  A node whose inputs are all constants is
 * folded into a constant as it is added, which is how shape
 * computations (Shape, Gather on shapes, Range, ...) disappear at
 * import time.
 */
#ifndef NNL_ONNX_IMP_H
#define NNL_ONNX_IMP_H

#include <stdint.h>

#include "graph.h"
#include "onnx.pb-c.h"

struct imp {
	struct graph *g;
	const char *path;		/* the model, for messages */
	char *dir;			/* its folder: external data */
	int opset;			/* of the default domain */
	int training;			/* of ai.onnx.preview.training,
					   0 when not imported */
	const Onnx__NodeProto *n;	/* node being converted */
	const char *nname;		/* its name, for messages */
	cJSON *vals;			/* ONNX value -> operand name */
	cJSON *names;			/* every ONNX value name, reserved */
	cJSON *wanted;			/* graph inputs read as constants */
	cJSON *bounded;			/* operand of a size known at run
					   time only -> its count operand */
	uint32_t bound;			/* the most items such a value of
					   range, constantOfShape or a
					   window may hold (--bound) */
	struct buf refused;		/* one line per refused node */
	int nrefused;
	int nerr;
	int origins;			/* record each node's ONNX origin */
	int outside;			/* --allow-outside: external data
					   anywhere (modelpath.h) */
	int depth;			/* bodies being inlined (onnx_ctl) */
	size_t inlined;			/* their nodes converted so far */
};

/* {"onnx": {"op", "node", "inputs", "attrs"}} of m->n (onnx_origin.c) */
cJSON *onnx_origin(struct imp *m);

/* Handler results besides 0 (done) and -1 (error reported). */
enum { REFUSED = 1 };

typedef int onnx_handler(struct imp *m);

/* 0 if every name of the model (bytes, as read) is UTF-8 without NUL;
 * else -1 after naming the node or value (onnx_names.c). */
int onnx_names_check(const char *path, const unsigned char *bytes,
    size_t len, const Onnx__GraphProto *gp);

#define ONNX(name, handler) int handler(struct imp *m);
#include "onnx_ops.def"
#undef ONNX

/* onnx_strict.c */
/* The newest opset whose operator versions the importer knows
 * (scripts/onnx_newer.py); a model importing a newer one is refused. */
enum { ONNX_OPSET = 25 };
/* Refusals one error lists; past them, only a count. */
enum { REFUSEDMAX = 50 };
/* The optimizers' domain (onnx_train.c), the only one besides the
 * default domain whose operators the importer converts. */
#define TRAINING "ai.onnx.preview.training"
/* The converter of a default-domain op_type, NULL if none. */
onnx_handler *onnx_handler_of(const char *op);
/* The current node's operand counts against its operator's schema at
 * the model's opset: 0, or -1 after nodeerr(). */
int onnx_arity(struct imp *m);
/* The current node against what the importer implements (its domain,
 * op, version and attributes, onnx_attrs.def): 0, or REFUSED after
 * refuse(). */
int onnx_strict(struct imp *m);

/* Why nnl cannot express a node or an input: the code a refusal prints
 * in brackets after what it refuses, for scripts that count refusals
 * (nnl-onnx-import(1), REFUSALS). */
enum refusal {
	REFUSE_OP,		/* unsupported-op: no WebNN equivalent */
	REFUSE_TYPE,		/* unsupported-type: a data type */
	REFUSE_ATTR,		/* unsupported-attribute: a mode, a value */
	REFUSE_OUTPUT,		/* unsupported-output: an optional output */
	REFUSE_RANK,		/* unsupported-rank: 3-D pools, scalars */
	REFUSE_CONST,		/* not-constant: needed at import time */
	REFUSE_DYNAMIC,		/* dynamic-shape: a shape from run time */
	REFUSE_EMPTY,		/* empty-tensor: a tensor of no elements */
	REFUSE_SEQUENCE,	/* sequence: sequences, optionals, maps */
	REFUSE_SIZE,		/* too-large: past what nnl unrolls */
	REFUSE_VERSION		/* unsupported-version: an op version
				   the importer does not implement */
};
/* The code's name, as printed: "unsupported-op", ... */
const char *refusal_code(enum refusal why);

/* Refuse the current node with a reason (it joins the one error listing
 * every refused node).  Returns REFUSED. */
int refuse(struct imp *m, enum refusal why, const char *fmt, ...)
    NNL_PRINTF(3, 4);
/* Report an error in the current node ("node NAME (Op): ..."); -1. */
int nodeerr(struct imp *m, const char *fmt, ...) NNL_PRINTF(2, 3);

/* Input i of the current node: operand name, NULL if absent or empty. */
const char *in(struct imp *m, int i);
int nins(struct imp *m);
int nouts(struct imp *m);
/* Output k's ONNX name, NULL if absent or empty. */
const char *outname(struct imp *m, int k);
/* NonZero of a computed input (onnx_detect.c). */
int onnx_nonzero_bounded(struct imp *m);
/* onnx_bounded.c: values of a size known only at run time.  Range,
 * ConstantOfShape (its value v, of type dt) and a window (output type
 * dt) of a size computed at run time, held at m->bound items. */
int onnx_range_bounded(struct imp *m);
int onnx_constantofshape_bounded(struct imp *m, enum dtype dt, double v);
int onnx_window_bounded(struct imp *m, enum dtype dt, int periodic);
/* MelWeightMatrix of inputs computed at run time: nnl's melWeightMatrix
 * of type dt, held at m->bound items. */
int onnx_melweightmatrix_bounded(struct imp *m, enum dtype dt);
/* Before the current node's handler: 0 when it may run (*value, an
 * input of run-time size it reads, and *shape, its shape operand, or
 * both NULL when it reads none), REFUSED when it reads one and is not
 * elementwise or its other inputs are not of one item. */
int onnx_bounded_reads(struct imp *m, const char **shape,
    const char **value);
/* After it: its outputs of value's size marked as of shape; REFUSED
 * when one is of another size. */
int onnx_bounded_mark(struct imp *m, const char *shape, const char *value);
/* The type of an operand. */
const struct tdesc *ty(struct imp *m, const char *opnd);
/* Bind ONNX output k of the current node to an operand. */
void bind(struct imp *m, int k, const char *opnd);

/* Attributes of the current node. */
const Onnx__AttributeProto *att(struct imp *m, const char *name);
int64_t att_i(struct imp *m, const char *name, int64_t dflt);
double att_f(struct imp *m, const char *name, double dflt);
/* String attribute (copied into a static buffer) or dflt. */
const char *att_s(struct imp *m, const char *name, const char *dflt);
/* Integer list: count (0 when absent), items into *v (not owned). */
size_t att_ints(struct imp *m, const char *name, const int64_t **v);
/* Integer list of exactly n items, each in [lo, 2^30], into v; v is
 * left as it is when absent.  0, or -1 after reporting. */
int att_list(struct imp *m, const char *name, int n, int64_t lo,
    int64_t *v);
size_t att_floats(struct imp *m, const char *name, const float **v);

/*
 * Add a WebNN node: op with nin inputs (NULL ends nothing: every input
 * is named; pass "" for none), options (taken; NULL for none) and one
 * output named out (NULL: a fresh name).  Its type is inferred; with
 * only constant inputs it is folded into a constant.  Returns the
 * output operand's name (owned by the importer) or NULL after an
 * error.
 */
const char *emit(struct imp *m, const char *op, cJSON *opts, const char *out,
    int nin, ...);
const char *emitv(struct imp *m, const char *op, cJSON *opts,
    const char *out, int nin, const char *const *ins);
/* The same for nout outputs; names[k] receive the operands. */
int emitn(struct imp *m, const char *op, cJSON *opts, int nout,
    const char **names, int nin, const char *const *ins);

/* x reshaped to dims (NULL when x is), as output out (NULL: fresh). */
const char *imp_reshape(struct imp *m, const char *x, int rank,
    const int64_t *dims, const char *out);
/* x as type dt: x itself when it is already, NULL when x is. */
const char *imp_cast(struct imp *m, const char *x, enum dtype dt);
/* Bind output k to y: 0, or -1 when y is NULL (an error reported). */
int imp_done(struct imp *m, int k, const char *y);

/* A new constant holding data (copied); returns its name. */
const char *mkconst(struct imp *m, const char *base, enum dtype dt,
    int rank, const int64_t *dims, const void *data);
const char *mkscalar(struct imp *m, enum dtype dt, double v);

/* Is the operand a constant whose bytes the importer holds? */
int isconst(struct imp *m, const char *opnd);
/* Its bytes (not owned), NULL if not constant. */
const void *cbytes(struct imp *m, const char *opnd);
/* A constant's values as int64 or double (malloc'd); -1 when the
 * operand is not a constant.  n receives the element count. */
int cints(struct imp *m, const char *opnd, int64_t **v, size_t *n);
int cfloats(struct imp *m, const char *opnd, double **v, size_t *n);

/* The driver's (onnx_import.c) access to values and constants: the
 * operand an ONNX value names (NULL: none), naming one, a name nothing
 * has yet (malloc'd), and a new constant (data copied). */
const char *imp_lookup(struct imp *m, const char *onnxname);
void imp_setval(struct imp *m, const char *onnxname, const char *opnd);
char *imp_fresh(struct imp *m, const char *base);
struct operand *imp_addconst(struct imp *m, const char *name, enum dtype dt,
    int rank, const int64_t *dims, const void *data, size_t nbytes);

enum {
	INLINEMAX = 64,		/* bytes: larger constants go to weights */
	FOLDMAX = 64 << 20,	/* bytes: larger results stay computed */
};

/* onnx_import.c, for the bodies of If, Loop and Scan (onnx_ctl.c): a
 * graph's initializers as constants, and the current node (m->n) by
 * its handler: 0, REFUSED or -1 (an error reported). */
int imp_initializers(struct imp *m, const Onnx__GraphProto *gp);
int imp_node(struct imp *m);

/* cJSON builders for options. */
cJSON *jints(const int64_t *v, size_t n);
cJSON *ju32s(const uint32_t *v, size_t n);
cJSON *jfloats(const double *v, size_t n);

/* onnx_read.c */
/* ONNX TensorProto data type -> dtype; DT_NONE with *name set when nnl
 * has no such type. */
enum dtype onnx_dtype(int32_t t, const char **name);
/* Decode a tensor (every encoding, external data resolved under dir).
 * what names it in messages.  On success 0 and a malloc'd data buffer
 * of numel * element size bytes (bool as uint8). */
int onnx_tensor(struct imp *m, const Onnx__TensorProto *t, const char *what,
    struct tdesc *desc, void **data);

#endif
