/*
 * kernel: from a typed node to one call of a runtime kernel
 * (common/rt/): which kernel, its integer and floating parameters, the
 * operands it reads and writes, and the workspace it needs.  The same
 * preparation serves the C emitter (which prints the call), the memory
 * planner (which reserves the workspace) and constant folding (which
 * makes the call).  Each op's prepare_<rule>() lives beside its
 * kernels' family: kern_ew.c, kern_nn.c, kern_tensor.c.
 */
#ifndef NNL_KERNEL_H
#define NNL_KERNEL_H

#include <stdint.h>

#include "graph.h"
#include "rt/rt.h"

/* The parameter and operand lists grow as a call is built: a node may
 * have any number of inputs (a concat of hundreds), so nothing here
 * has a fixed size.  kcall_free releases them. */
struct kcall {
	const char *name;	/* "add_f32": the kernel nnl_k_add_f32 */
	nnl_kernel_fn *fn;
	int64_t *ip;
	int nip;
	double *fp;
	int nfp;
	const char **in;	/* operands read, in the kernel's order */
	int nin;		/* (an entry may be NULL: absent optional) */
	int nout;		/* the node's outputs, in order */
	uint64_t scratch;	/* workspace bytes */
	int bounded;		/* 1: a size computed at run time that may
				   not fit its bound (range,
				   constantOfShape): after the call, a
				   negative first entry of output 1 (the
				   shape) says it did not, nothing written */
	size_t cip, cfp, cin;	/* capacities */
};

struct kctx {
	struct graph *g;
	struct node *n;
	const struct opdesc *d;
	const struct tdesc **in;	/* types of n->in[] */
	const struct tdesc *out;	/* n->types */
	struct kcall *k;
	struct shapectx *sc;		/* for option getters and errors */
};

#define OP(id, name, operands, params, options, nout, rule) \
	int prepare_##rule(struct kctx *c);
#include "ops.def"
#include "ops_nnl.def"
#undef OP

/*
 * Prepare the call for node n (typed).  An op, data type or option
 * value no kernel handles is reported naming the node; returns 0 or -1
 * (with nothing left to free).  After 0, kcall_free(k) when done.
 */
int kernel_prepare(struct graph *g, struct node *n, struct kcall *k);
void kcall_free(struct kcall *k);

/* The kernel of that name ("add_f32"), or NULL. */
nnl_kernel_fn *kernel_lookup(const char *name);

/* Building a call. */
int kset(struct kctx *c, const char *name);	/* -1 if no such kernel */
void kip(struct kctx *c, int64_t v);
void kfp(struct kctx *c, double v);
void kin(struct kctx *c, const char *operand);	/* NULL: absent */
/* Push a shape: rank, then the dims. */
void kshape(struct kctx *c, const struct tdesc *t);
/* Push t's strides broadcast to the rank-r shape dims (0 where t is 1). */
void kbstrides(struct kctx *c, const struct tdesc *t, int r,
    const int64_t *dims);
/* Choose NAME_f32, or NAME_f16 converting the first nconv inputs. */
int f16finish(struct kctx *c, const char *name, int nconv);
/* Push the node's fused activation (nnl-fuse): code, 2 parameters. */
int kactivation(struct kctx *c);
/* The dtype code of rt.h for a type. */
int kdt(const struct tdesc *t);
/* Kernel suffix of a dtype: "f32", "f16", "i32", ... */
const char *kdtname(enum dtype dt);

#endif
