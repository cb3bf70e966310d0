/*
 * graph: the in-memory form of a webnn-graph: named operands (graph
 * inputs, constants and node outputs) and the nodes that produce them.
 * Every JSON field a pass does not know is kept (as cJSON) and written
 * back untouched, so custom passes can annotate graphs freely.
 */
#ifndef NNL_GRAPH_H
#define NNL_GRAPH_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "buf.h"
#include "jsonput.h"
#include "dtype.h"
#include "ops.h"
#include "util.h"

/* A tensor type.  rank -1: not known yet. */
struct tdesc {
	enum dtype dt;
	int rank;
	int64_t *dims;
};

enum okind { OPND_INPUT, OPND_CONST, OPND_NODE };
enum initkind { INIT_WEIGHTS, INIT_SCALAR, INIT_BYTES };

/* Where an item was written, when it came from text (line 0: JSON). */
struct pos {
	int line, col;
};

struct operand {
	char *name;
	enum okind kind;
	struct tdesc desc;		/* inputs and consts: declared */
	/* consts */
	enum initkind init;
	char *ref;			/* INIT_WEIGHTS: manifest key */
	double value;			/* INIT_SCALAR */
	unsigned char *bytes;		/* INIT_BYTES */
	size_t nbytes;
	/* node outputs */
	struct node *producer;
	int outidx;
	cJSON *extra;			/* unknown fields, in input order */
	struct pos pos;
	void *aux;			/* scratch for a pass */
	size_t index;			/* in g->inputs or g->consts: see
					 * graph_number */
};

struct node {
	char *id;
	enum op op;			/* OP_NONE when the name is unknown */
	char *opname;
	char **in;			/* input operand names */
	int nin;
	cJSON *options;			/* object, in input order */
	char **out;			/* output operand names */
	int nout;
	int multi;			/* written with an "outputs" array */
	struct tdesc *types;		/* nout output types, or NULL */
	size_t index;			/* position in g->nodes (scratch) */
	cJSON *extra;
	struct pos pos;
};

struct goutput {
	char *name, *ref;
	struct pos pos;
};

struct graph {
	char *name;			/* NULL: none */
	int version;
	int quantized;			/* the @quantized flag */
	int ptwarned;			/* pass-through warned of once */
	char *weights_file;		/* relative to the working directory */
	char *manifest_file;
	struct operand **inputs;
	size_t ninputs, capinputs;
	struct operand **consts;
	size_t nconsts, capconsts;
	struct node **nodes;
	size_t nnodes, capnodes;
	struct goutput *outputs;
	size_t noutputs, capoutputs;
	cJSON *extra;			/* unknown top-level fields */
	/* name -> operand index over inputs, consts and node outputs */
	struct operand **tab;
	size_t tabcap, tabn;
	const char *src;		/* display name, for diagnostics */
	const char *text;		/* source text when parsed from text */
	size_t textlen;
	char *owntext;			/* freed with the graph */
	char *ownsrc;
	struct weights *wcache;		/* const_bytes' open weights */
	/* closes wcache: set by const_bytes (constdata.c), called by
	 * graph_free, which so needs nothing of the weights files */
	void (*wcache_free)(struct graph *g);
};

struct weights;

struct graph *graph_new(void);
void graph_free(struct graph *g);

/* Builders; they copy their strings.  Duplicate names are not refused
 * here (validation reports them with positions). */
struct operand *graph_add_input(struct graph *g, const char *name,
    enum dtype dt, int rank, const int64_t *dims);
struct operand *graph_add_const(struct graph *g, const char *name,
    enum dtype dt, int rank, const int64_t *dims);
struct node *graph_add_node(struct graph *g, const char *id,
    const char *opname);
void node_add_input(struct node *n, const char *name);
void node_add_output(struct node *n, const char *name);
void graph_add_output(struct graph *g, const char *name, const char *ref);

/* Give node n's outputs types (allocating n->types); rank -1 unknown. */
void node_set_type(struct node *n, int k, enum dtype dt, int rank,
    const int64_t *dims);
/* The type of an operand: declared, or its producer's "types" entry. */
const struct tdesc *operand_type(const struct operand *o);
/*
 * A graph output of data-dependent shape (nnl-graph(5), Ops beyond
 * WebNN) is held at its bound and followed by its actual shape: output
 * i + 1, named NAME.shape, int64 [rank]; the tensor of that shape is
 * packed at the front of the bound.  That output's index, or -1 when
 * output i has none.
 */
long graph_shape_output(struct graph *g, size_t i);

/*
 * Removing items: drop the name table first (graph_unindex), free the
 * items with graph_drop_* after taking them out of their arrays, then
 * graph_index again.
 */
void graph_unindex(struct graph *g);
void graph_drop_node(struct graph *g, struct node *n);
void graph_drop_const(struct graph *g, struct operand *c);

/* Set every node's index and every input's and const's index to its
 * position in its array. */
void graph_number(struct graph *g);

/* Rebuild the name table after nodes were added or changed. */
void graph_index(struct graph *g);
/*
 * Or keep it up to date item by item: add node n's outputs, take them
 * out again (before renaming or dropping n), add a new const.
 */
void graph_index_node(struct graph *g, struct node *n);
void graph_unindex_node(struct graph *g, struct node *n);
void graph_index_const(struct graph *g, struct operand *c);
/* The operand of that name (input, const or node output), or NULL. */
struct operand *graph_find(const struct graph *g, const char *name);

/*
 * A stable topological order of the nodes: order[] receives node
 * indices, each node after the producers of everything it reads and,
 * among ready nodes, the one listed first in g->nodes first.  Returns
 * how many were placed; the rest are in a cycle or depend on one.
 */
size_t graph_toposort(struct graph *g, size_t *order);

/* Operands a node reads: its inputs then operand-valued options. */
int node_reads(const struct node *n, const char ***names);

uint64_t tdesc_numel(const struct tdesc *t);	/* UINT64_MAX on overflow */
void tdesc_set(struct tdesc *t, enum dtype dt, int rank,
    const int64_t *dims);
char *tdesc_str(const struct tdesc *t);	/* "float32[1, 2]", malloc'd */
/* Whether a and b have the same data type and dims. */
int tdesc_same(const struct tdesc *a, const struct tdesc *b);
/* Whether a and b have the same dims, whatever their data types. */
int tdesc_samedims(const struct tdesc *a, const struct tdesc *b);

/* Option name of node n, a string (node_optstr) or a number
 * (node_optnum), or dflt where it is absent or of another type. */
const char *node_optstr(const struct node *n, const char *name,
    const char *dflt);
double node_optnum(const struct node *n, const char *name, double dflt);
/* Whether option name of n is an array of numbers all v (absent:
 * whether absent is set). */
int node_optall(const struct node *n, const char *name, double v,
    int absent);

/*
 * A source location for an item: the graph's file, the item's position,
 * the text for a caret line.
 */
struct srcloc graph_loc(const struct graph *g, struct pos p);

/* json.c: load, save */
/*
 * Load a graph from path ("-": stdin): JSON (first non-blank byte '{')
 * or .webnn text, auto-detected.  Structural validation runs on every
 * load (validate.c).  Errors are reported; returns NULL after them.
 */
struct graph *graph_load(const char *path);
/* The same, from a buffer already read. name is for diagnostics; dir is
 * what relative weights paths in the graph are relative to. */
struct graph *graph_parse(const char *text, size_t len, const char *name,
    const char *dir);
/*
 * The same for a model the user names, a file given by name to a front
 * end (never a graph on a pipe, whose paths the passes wrote): the
 * weights and manifest it names must lie in its folder, checked before
 * either is read, unless allow (--allow-outside; modelpath.h).
 */
struct graph *graph_load_model(const char *path, int allow);
struct graph *graph_parse_model(const char *text, size_t len,
    const char *name, const char *dir, int allow);
/* Canonical JSON to path ("-" or NULL: stdout); atomic. 0 or -1. */
int graph_save(const struct graph *g, const char *path);
/* Canonical JSON text, malloc'd.  outdir: the directory the text will
 * live in (weights paths are rewritten relative to it), NULL: cwd. */
char *graph_to_json(const struct graph *g, const char *outdir);
/* JSON text into a graph, without validation (json.c). */
struct graph *graph_from_json(const char *text, size_t len,
    const char *name, const char *dir);
/* The same, rule: a model the user names, whose weights must lie in
 * its folder (modelpath.h); load.c reads through this. */
struct graph *json_read_model(const char *text, size_t len,
    const char *name, const char *dir, int rule);


/* validate.c */
/*
 * Structural checks: names, references, ops, option names and types,
 * arity, const sizes, and consts against the manifest when the graph
 * names one.  Every failure is reported naming the node and field (and
 * the position when known).  Returns the number of errors.
 */
int graph_validate(struct graph *g);
/*
 * Pass-through (webnn-graph's "anything not explicitly checked is
 * passed through"): when set, an unknown op or an option its op does
 * not know draws a warning instead of an error, and the node is kept.
 * Set by the passes that need no op's semantics (parse, reorder,
 * emit-js) unless --strict; shape_infer then leaves such a node, and
 * what depends on it, untyped.  A literal node (op "literal", the
 * .webnn statement `c = [1, 2];`) is structural and never warned of.
 */
extern int graph_passthrough;
#define LITERAL_OP "literal"

/* webnn_read.c / webnn_write.c: the .webnn text form */
struct graph *webnn_parse(const char *text, size_t len, const char *name);
char *webnn_print(const struct graph *g);	/* malloc'd text */
/* g to out (NULL or "-": standard output) as .webnn text when out ends
 * in .webnn, else as canonical JSON; atomic.  0, or -1 after an error. */
int webnn_save_as(const struct graph *g, const char *out);

#endif
