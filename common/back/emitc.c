/*
 * emitc: writes the C of a planned graph.  Each node becomes one call
 * of a runtime kernel prepared by kernel_prepare(); its parameters are
 * static const arrays, its operands pointers into the arena, the
 * weights, the caller's inputs or small constant arrays.  Graph outputs
 * are copied from the arena to the caller's buffers at the end.
 */
#define _DEFAULT_SOURCE
#include "emitc.h"

#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "checked.h"
#include "escape.h"
#include "eval.h"
#include "kernel.h"
#include "weights.h"

extern const char nnl_rtsrc[], nnl_parsrc[];

/*
 * The runtime for one thread: without its "#ifdef NNL_RT_THREADS"
 * blocks (to their matching #endif), dead code there, so that code for
 * one thread is the same text with or without thread support.  Such
 * a block has no #else.
 */
static void
putrt1(struct buf *b, const char *s)
{
	int depth = 0;	/* inside a threads block: #if nesting + 1 */

	while (*s) {
		const char *e = strchr(s, '\n'), *p = s;
		size_t n = e ? (size_t)(e - s) + 1 : strlen(s);

		while (*p == ' ' || *p == '\t')
			p++;
		if (!depth && !strncmp(p, "#ifdef NNL_RT_THREADS", 21) &&
		    (p[21] == '\n' || p[21] == ' ' || p[21] == '\t'))
			depth = 1;
		else if (depth && !strncmp(p, "#if", 3))
			depth++;
		else if (depth && !strncmp(p, "#endif", 6) && !--depth) {
			/* and a blank line after it, after one before */
			s += n;
			if (*s == '\n' && b->n >= 2 &&
			    !strcmp(b->s + b->n - 2, "\n\n"))
				s++;
			continue;
		}
		if (!depth && n)
			buf_printf(b, "%.*s", (int)n, s);
		s += n;
	}
}

/* A model name as C identifier: escape.c's one mapping. */
char *
emitc_ident(const char *name)
{
	return escape_c_ident(name);
}

/* A model's string as comment text (malloc'd). */
static char *
cmt(const char *s)
{
	struct buf b = { 0 };

	escape_c_comment(&b, s);
	return b.s ? b.s : xstrdup("");
}

struct em {
	struct graph *g;
	const struct emitc_opts *o;
	const char *pfx;
	struct buf data, body;
	struct weights w;
	int haveweights;
	int64_t *cidx;		/* const index -> inline array number */
	uint64_t arena;
	struct buf fill;	/* loops filling one-value constants */
	uint64_t fillbytes;	/* the bytes they fill */
	unsigned align;		/* of weights, arena, workspace: the plan's
				   memory.align, at least 64 */
};

/* Bytes of a one-value constant still written as a literal; larger
 * ones are filled by a loop. */
enum { LITERALMAX = 64 };

/* A plan number (memplan_verify checked the offsets), -1 when it is
 * not a whole number from 0 to 2^62: never a cast out of range. */
static int64_t
jsonint(const cJSON *v)
{
	int64_t x;

	return cJSON_IsNumber(v) && checked_double_i64(v->valuedouble, 0,
	    (int64_t)CHECKED_MAX_LIMIT, &x) == 0 ? x : -1;
}

static void
putdouble(struct buf *b, double v)
{
	if (isnan(v))
		buf_puts(b, "NAN");
	else if (isinf(v))
		buf_puts(b, v > 0 ? "INFINITY" : "-INFINITY");
	else
		buf_printf(b, "%.17g", v);
}

/*
 * A constant of one value repeated (INIT_SCALAR): a zeroed static array
 * filled by a loop at the first run, so the C text does not grow with
 * the element count.  0, or -1 after an error.
 */
static int
fillconst(struct em *e, size_t ci, uint64_t nb)
{
	struct operand *c = e->g->consts[ci], one = *c;
	uint64_t es, n = nb;
	unsigned char *v;

	one.desc.rank = 0;
	one.desc.dims = NULL;
	if (!(v = const_bytes(e->g, &one, &es)))
		return -1;
	n = nb / es;
	buf_printf(&e->data, "static unsigned char %s_c%zu[%llu] NNL_ALIGNED;"
	    "\n", e->pfx, ci, (unsigned long long)nb);
	buf_printf(&e->fill, "\t{\n\t\tstatic const unsigned char v[%llu] = "
	    "{", (unsigned long long)es);
	for (uint64_t i = 0; i < es; i++)
		buf_printf(&e->fill, " %u,", v[i]);
	buf_printf(&e->fill, " };\n\n\t\tfor (uint64_t i = 0; i < %lluu; i++)"
	    "\n\t\t\tmemcpy(%s_c%zu + i * %llu, v, %llu);\n\t}\n",
	    (unsigned long long)n, e->pfx, ci, (unsigned long long)es,
	    (unsigned long long)es);
	e->fillbytes += nb;
	free(v);
	e->cidx[ci] = (int64_t)ci;
	return 0;
}

/* Constants not in the weights file become static arrays. */
static int
inlineconst(struct em *e, size_t ci)
{
	struct operand *c = e->g->consts[ci];
	uint64_t nb;
	unsigned char *p;

	{
		char *nm = cmt(c->name);

		buf_printf(&e->data, "/* const \"%s\" %s */\n", nm,
		    dtype_name(c->desc.dt));
		free(nm);
	}
	if (c->init == INIT_SCALAR && checked_size(&c->desc,
	    &(uint64_t){ 0 }, &nb) == 0 && nb > LITERALMAX)
		return fillconst(e, ci, nb);
	if (!(p = const_bytes(e->g, c, &nb)))
		return -1;
	buf_printf(&e->data, "static const unsigned char %s_c%zu[%llu] "
	    "NNL_ALIGNED = {", e->pfx, ci, (unsigned long long)(nb ? nb : 1));
	for (uint64_t i = 0; i < nb; i++)
		buf_printf(&e->data, "%s%u,", i % 16 ? "" : "\n\t", p[i]);
	if (!nb)
		buf_puts(&e->data, "0");
	buf_puts(&e->data, "\n};\n\n");
	free(p);
	e->cidx[ci] = (int64_t)ci;
	return 0;
}

/* The C expression for an operand's bytes. */
static char *
operandptr(struct em *e, const char *name)
{
	struct operand *o = graph_find(e->g, name);

	/* positions set by graph_number in emitc */
	if (o->kind == OPND_INPUT) {
		if (o->index < e->g->ninputs && e->g->inputs[o->index] == o)
			return xasprintf("in[%zu]", o->index);
	} else if (o->kind == OPND_CONST) {
		if (o->index < e->g->nconsts && e->g->consts[o->index] == o) {
			if (o->init == INIT_WEIGHTS) {
				struct wtensor *t = manifest_find(&e->w.m,
				    o->ref);

				return xasprintf("(%s_weights + %llu)", e->pfx,
				    (unsigned long long)t->offset);
			}
			return xasprintf("%s_c%zu", e->pfx, o->index);
		}
	} else {
		const cJSON *a = cJSON_GetObjectItemCaseSensitive(
		    o->producer->extra, "arena");

		return xasprintf("(A + %lld)", (long long)jsonint(
		    cJSON_GetArrayItem(a, o->outidx)));
	}
	BUG("operand without a place");
}

static int
emitnode(struct em *e, struct node *n, size_t idx)
{
	struct kcall k;
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(n->extra, "arena");
	const cJSON *sc = cJSON_GetObjectItemCaseSensitive(n->extra,
	    "scratch");
	char *id, *op;

	if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) != n->nout) {
		error("node \"%s\" has no arena offsets: run nnl-plan-memory "
		    "first", escape_tty_name(n->id));
		return -1;
	}
	if (kernel_prepare(e->g, n, &k) != 0)
		return -1;
	if (k.scratch && !cJSON_IsNumber(sc)) {
		error("node \"%s\" needs %llu bytes of workspace the plan does "
		    "not give: run nnl-plan-memory again",
		    escape_tty_name(n->id),
		    (unsigned long long)k.scratch);
		kcall_free(&k);
		return -1;
	}
	id = cmt(n->id);
	op = cmt(n->opname);
	buf_printf(&e->data, "/* %s: %s */\nstatic const int64_t %s_i%zu[] = "
	    "{", id, op, e->pfx, idx);
	for (int i = 0; i < k.nip; i++)
		buf_printf(&e->data, "%s%lld,", i % 8 ? " " : "\n\t",
		    (long long)k.ip[i]);
	buf_printf(&e->data, "%s\n};\n", k.nip ? "" : "0");
	if (k.nfp) {
		buf_printf(&e->data, "static const double %s_f%zu[] = {",
		    e->pfx, idx);
		for (int i = 0; i < k.nfp; i++) {
			buf_puts(&e->data, i % 4 ? " " : "\n\t");
			putdouble(&e->data, k.fp[i]);
			buf_putc(&e->data, ',');
		}
		buf_puts(&e->data, "\n};\n");
	}
	buf_printf(&e->body, "\t{\t/* %s = %s(...) */\n\t\tconst void *i[] = "
	    "{", id, op);
	free(id);
	free(op);
	for (int i = 0; i < k.nin; i++) {
		char *p = k.in[i] ? operandptr(e, k.in[i]) : xstrdup("0");

		buf_printf(&e->body, "%s%s", i ? ", " : " ", p);
		free(p);
	}
	buf_printf(&e->body, "%s };\n\t\tvoid *o[] = {", k.nin ? "" : " 0");
	for (int i = 0; i < n->nout; i++)
		buf_printf(&e->body, "%s(A + %lld)", i ? ", " : " ",
		    (long long)jsonint(cJSON_GetArrayItem(a, i)));
	{
		char *fparg = k.nfp ? xasprintf("%s_f%zu", e->pfx, idx) :
		    xstrdup("0");
		char *sarg = k.scratch ? xasprintf("(A + %lld)",
		    (long long)jsonint(sc)) : xstrdup("0");

		buf_puts(&e->body, " };\n");
		if (e->o->threads > 1 && k.scratch)	/* rt/par/par.c */
			buf_printf(&e->body, "\t\tnnl_par_end = %s + %llu;\n",
			    sarg, (unsigned long long)k.scratch);
		else if (e->o->threads > 1)
			buf_puts(&e->body, "\t\tnnl_par_end = 0;\n");
		buf_printf(&e->body, "\t\tnnl_k_%s(%s_i%zu, %s, i, o, %s);"
		    "\n\t}\n", k.name, e->pfx, idx, fparg, sarg);
		if (k.bounded)	/* past its bound: nothing written */
			buf_printf(&e->body, "\tif (*(const int64_t *)(A + "
			    "%lld) < 0)\n\t\treturn 3;\n",
			    (long long)jsonint(cJSON_GetArrayItem(a, 1)));
		free(fparg);
		free(sarg);
	}
	kcall_free(&k);
	return 0;
}

static uint64_t
bytesof(const struct tdesc *t)
{
	return dtype_bytes(t->dt, tdesc_numel(t));
}

/* The weights file through the assembler: no giant C literal for the
 * compiler to parse. */
/* log2 of a power of two: the assembler's .p2align */
static int
lg2(unsigned v)
{
	int k = 0;

	while (v > 1) {
		v >>= 1;
		k++;
	}
	return k;
}

/* -e array: the weights as a C array of bytes. */
static void
putarray(struct em *e)
{
	buf_printf(&e->data, "static const unsigned char %s_weights[] "
	    "NNL_ALIGNED = {", e->pfx);
	for (size_t i = 0; i < e->w.size; i++)
		buf_printf(&e->data, "%s%u,", i % 20 ? "" : "\n\t",
		    e->w.data[i]);
	buf_puts(&e->data, "\n};\n\n");
}

/* -e beside: the weights from the file beside the source, its name
 * followed by ".weights", included by the assembler. */
static void
putbeside(struct em *e)
{
	/* __FILE__ names this source as the compiler found it, so
	 * the pair moves together: no path of the machine that
	 * generated it */
	buf_printf(&e->data, "/* the weights, %zu bytes, from the "
	    "file beside this source: its name followed by "
	    "\".weights\" */\n"
	    "/* the assembler reads the path as its string: one with\n"
	    " * a quote, a backslash or a line end would name another\n"
	    " * file, so GCC refuses it (clang cannot check) */\n"
	    "#if defined(__GNUC__) && !defined(__clang__)\n"
	    "typedef char %s_source_path_has_no_quote_backslash_or_"
	    "line_end[\n    __builtin_strpbrk(__FILE__, "
	    "\"\\\"\\\\\\n\\r\") ? -1 : 1];\n"
	    "#endif\n"
	    "#ifdef __wasm__\n"
	    "__asm__(\"\\t.section .rodata.%s_weights,\\\"\\\",@\\n"
	    "\\t.p2align %d\\n\"\n"
	    "    \"%s_weights:\\n\\t.incbin \\\"\" __FILE__ "
	    "\".weights\\\"\"\n"
	    "    \"\\n\\t.size %s_weights, %zu\\n\");\n"
	    "#else\n"
	    "__asm__(\"\\t.section .rodata\\n\\t.balign %u\\n\"\n"
	    "    \"%s_weights:\\n\\t.incbin \\\"\" __FILE__ "
	    "\".weights\\\"\"\n"
	    "    \"\\n\\t.previous\\n\");\n"
	    "#endif\n"
	    "extern const unsigned char %s_weights[];\n\n",
	    e->w.size, e->pfx, e->pfx, lg2(e->align), e->pfx,
	    e->pfx, e->w.size, e->align, e->pfx, e->pfx);
}

/* The weights: -e array, beside, or incbin of the weights file by its
 * path. */
static void
putweights(struct em *e)
{
	char *path, *nm;
	struct buf q = { 0 };
	const char *p;

	if (e->o->embed == EMBED_ARRAY) {
		putarray(e);
		return;
	}
	if (e->o->embed == EMBED_BESIDE) {
		putbeside(e);
		return;
	}
	path = realpath(e->g->weights_file, NULL);
	/* the path, quoted for the assembler, in a C string */
	buf_putc(&q, '"');
	for (p = path ? path : e->g->weights_file; *p; p++) {
		unsigned char c = (unsigned char)*p;

		if (c == '"' || c == '\\')
			buf_printf(&q, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			buf_printf(&q, "\\%03o", c);
		else
			buf_putc(&q, c);
	}
	buf_putc(&q, '"');
	nm = cmt(e->g->weights_file);
	/* WebAssembly's assembler (nnc --emit wasm) wants a named data
	 * section and the symbol's size */
	buf_printf(&e->data, "/* %s, %zu bytes, included by the assembler */\n"
	    "#ifdef __wasm__\n"
	    "__asm__(\"\\t.section .rodata.%s_weights,\\\"\\\",@\\n"
	    "\\t.p2align %d\\n\"\n"
	    "    \"%s_weights:\\n\\t.incbin \"\n    ", nm, e->w.size, e->pfx,
	    lg2(e->align), e->pfx);
	escape_c_string(&e->data, q.s);
	buf_printf(&e->data, "\n    \"\\n\\t.size %s_weights, %zu\\n\");\n"
	    "#else\n", e->pfx, e->w.size);
	buf_printf(&e->data, "__asm__(\"\\t.section .rodata\\n\\t.balign %u\\n\"\n"
	    "    \"%s_weights:\\n\\t.incbin \"\n    ", e->align, e->pfx);
	escape_c_string(&e->data, q.s);
	buf_printf(&e->data, "\n    \"\\n\\t.previous\\n\");\n#endif\n"
	    "extern const unsigned char %s_weights[];\n\n", e->pfx);
	free(nm);
	free(q.s);
	free(path);
}

/* The header's guard: PREFIX_H when the prefix has no capital, else
 * prefix__H, so two prefixes never share a guard. */
static char *
headerguard(const char *pfx)
{
	char *guard;
	int upper = 1;

	for (const char *q = pfx; *q; q++)
		upper &= !(*q >= 'A' && *q <= 'Z');
	guard = xasprintf("%s%s_H", pfx, upper ? "" : "_");
	for (char *q = guard; upper && *q; q++)
		*q = (char)toupper((unsigned char)*q);
	return guard;
}

/* The header's comment of the inputs and the outputs, with types. */
static void
putio(struct em *e, struct buf *h)
{
	buf_printf(h, "/*\n * Inputs, in this order (the bytes of each, "
	    "packed one after another\n * for %s_infer):\n", e->pfx);
	for (size_t i = 0; i < e->g->ninputs; i++) {
		char *t = tdesc_str(&e->g->inputs[i]->desc);
		char *nm = cmt(e->g->inputs[i]->name);

		buf_printf(h, " *   %s %s\n", nm, t);
		free(nm);
		free(t);
	}
	buf_puts(h, " * Outputs:\n");
	for (size_t i = 0; i < e->g->noutputs; i++) {
		struct operand *o = graph_find(e->g, e->g->outputs[i].ref);
		char *t = tdesc_str(operand_type(o));
		char *nm = cmt(e->g->outputs[i].name);

		buf_printf(h, " *   %s %s\n", nm, t);
		free(nm);
		free(t);
	}
}

/* The header: the API's declarations, with what the model reads and
 * writes, and how it fills constants and uses threads. */
static void
putheader(struct em *e, struct buf *h, uint64_t inbytes, uint64_t outbytes,
    uint64_t inel, uint64_t outel)
{
	char *guard = headerguard(e->pfx);
	char *gn = cmt(e->g->name ? e->g->name : e->pfx);

	buf_printf(h, "/* %s.h: the API of model \"%s\", generated by "
	    "nnl-emit-c. */\n#ifndef %s\n#define %s\n\n#include <stddef.h>\n"
	    "#include <stdint.h>\n\n#ifdef __cplusplus\nextern \"C\" {\n"
	    "#endif\n\n", e->pfx, gn, guard, guard);
	free(gn);
	putio(e, h);
	buf_printf(h, " */\nenum {\n\t%s_NUM_INPUTS = %zu,\n\t"
	    "%s_NUM_OUTPUTS = %zu\n};\n\n", guard, e->g->ninputs, guard,
	    e->g->noutputs);
	if (e->fillbytes)
		buf_printf(h, "/* The first call of %s_infer or %s_run fills "
		    "%llu bytes of constants\n * of one value, once: threads "
		    "that call at once wait for it (C11\n * atomics or the "
		    "__atomic builtins of GCC and clang).  Where int\n * "
		    "atomics are not lock-free (Cortex-M0) or the compiler has "
		    "neither,\n * the first call must return before another "
		    "begins. */\n\n", e->pfx, e->pfx,
		    (unsigned long long)e->fillbytes);
	if (e->o->threads > 1)
		buf_printf(h, "/* Built for %d threads: compile and link with "
		    "-pthread.  The first call\n * of %s_infer or %s_run "
		    "starts %d more thread%s; NNL_RT_THREADS in the\n * "
		    "environment lowers the count.  Of calls from several "
		    "threads at\n * once, one runs on the pool, the others "
		    "each on its own thread. */\n\n", e->o->threads, e->pfx,
		    e->pfx, e->o->threads - 1, e->o->threads > 2 ? "s" : "");
	buf_printf(h,
	    "/* Run the model on the static workspace: input holds every input,\n"
	    " * output receives every output, each packed in order.  Returns 0,\n"
	    " * 1 for a null pointer, 3 as %s_run.  Not reentrant: see\n"
	    " * %s_run. */\n"
	    "int %s_infer(const void *input, void *output);\n"
	    "/* Elements of all inputs (%llu) and of all outputs (%llu). */\n"
	    "int %s_input_size(void);\nint %s_output_size(void);\n"
	    "/* Bytes of all inputs (%llu) and of all outputs (%llu). */\n"
	    "size_t %s_input_bytes(void);\nsize_t %s_output_bytes(void);\n"
	    "/* Bytes of workspace %s_run needs, %u-byte aligned (%llu). */\n"
	    "size_t %s_workspace_size(void);\n"
	    "/* Reentrant: inputs[i] and outputs[i] point at each input and\n"
	    " * output; workspace is the caller's, %s_workspace_size() bytes\n"
	    " * aligned to %u, each input aligned to its element size.\n"
	    " * Returns 0, 1 for a null pointer, 2 for a misaligned workspace\n"
	    " * or input, 3 when a size computed at run time (range,\n"
	    " * constantOfShape, melWeightMatrix) is past the bound it was\n"
	    " * compiled with or invalid (a delta of 0, a negative\n"
	    " * dimension). */\n"
	    "int %s_run(void *workspace, const void *const *inputs,\n"
	    "    void *const *outputs);\n\n"
	    "#ifdef __cplusplus\n}\n#endif\n\n#endif /* %s */\n",
	    e->pfx, e->pfx, e->pfx, (unsigned long long)inel,
	    (unsigned long long)outel, e->pfx, e->pfx,
	    (unsigned long long)inbytes, (unsigned long long)outbytes, e->pfx,
	    e->pfx, e->pfx, e->align, (unsigned long long)e->arena, e->pfx,
	    e->pfx, e->align, e->pfx, guard);
	free(guard);
}

/*
 * The guard of the first-run fill, in the generated source: a state
 * 0 (not begun), 1 (filling), 2 (filled).  The caller that moves it
 * from 0 to 1 fills and stores 2 (release); any other waits until it
 * loads 2 (acquire), so two threads calling _run first at once neither
 * race nor see half the constants.  C11 atomics, else the __atomic
 * builtins of GCC and clang (C99, C++); where neither is lock-free
 * (Cortex-M0, another compiler) a plain int, and the first call must
 * then return before a second begins, as the header says.
 */
static const char ONCE[] =
    "#ifndef NNL_ONCE_T\n"
    "#if defined(__GCC_ATOMIC_INT_LOCK_FREE) && "
    "__GCC_ATOMIC_INT_LOCK_FREE != 2\n"
    "#define NNL_ONCE_PLAIN 1\t/* no lock-free int: no threads */\n"
    "#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L && "
    "\\\n    !defined(__STDC_NO_ATOMICS__)\n"
    "#include <stdatomic.h>\n"
    "#define NNL_ONCE_T atomic_int\n"
    "#define NNL_ONCE_LOAD(p) atomic_load_explicit(p, "
    "memory_order_acquire)\n"
    "#define NNL_ONCE_STORE(p, v) atomic_store_explicit(p, v, "
    "memory_order_release)\n"
    "#define NNL_ONCE_CAS(p, e, v) "
    "atomic_compare_exchange_strong_explicit(p, e, v, \\\n"
    "    memory_order_acquire, memory_order_acquire)\n"
    "#elif defined(__GNUC__)\n"
    "#define NNL_ONCE_T int\n"
    "#define NNL_ONCE_LOAD(p) __atomic_load_n(p, __ATOMIC_ACQUIRE)\n"
    "#define NNL_ONCE_STORE(p, v) __atomic_store_n(p, v, "
    "__ATOMIC_RELEASE)\n"
    "#define NNL_ONCE_CAS(p, e, v) __atomic_compare_exchange_n(p, e, v, "
    "0, \\\n    __ATOMIC_ACQUIRE, __ATOMIC_ACQUIRE)\n"
    "#else\n"
    "#define NNL_ONCE_PLAIN 1\n"
    "#endif\n"
    "#ifdef NNL_ONCE_PLAIN\n"
    "#define NNL_ONCE_T int\n"
    "#define NNL_ONCE_LOAD(p) (*(p))\n"
    "#define NNL_ONCE_STORE(p, v) (*(p) = (v))\n"
    "#define NNL_ONCE_CAS(p, e, v) (*(p) == *(e) ? (*(p) = (v), 1) : 0)\n"
    "#endif\n"
    "#endif\n\n";

/* The packed input of _infer puts each input right after the one
 * before, so an int64 after a float32 can sit at an odd address; such
 * an input is copied to an aligned staging area before the kernels
 * load its elements. */
static void
putstage(struct em *e, struct buf *s)
{
	uint64_t n = 0;

	for (size_t i = 0; i < e->g->ninputs; i++)
		if (dtype_bits(e->g->inputs[i]->desc.dt) > 8)
			n += (bytesof(&e->g->inputs[i]->desc) + 7) / 8 * 8;
	if (n)
		buf_printf(s, "static unsigned char %s_stage[%llu] "
		    "NNL_ALIGNED;\n\n", e->pfx, (unsigned long long)n);
}

/* The constants of one value, filled once at the first run: the
 * guard (ONCE) and NAME_fill. */
static void
putfill(struct em *e, struct buf *s)
{
	buf_puts(s, ONCE);
	buf_printf(s, "/* The constants of one value, filled at the "
	    "first run. */\nstatic void\n%s_fill(void)\n{\n\tstatic "
	    "NNL_ONCE_T state;\n\tint zero = 0;\n\n\tif (NNL_ONCE_LOAD"
	    "(&state) == 2)\n\t\treturn;\n\tif (!NNL_ONCE_CAS(&state, "
	    "&zero, 1)) {\n\t\twhile (NNL_ONCE_LOAD(&state) != 2)\n"
	    "\t\t\t;\t/* another thread fills them */\n\t\treturn;\n"
	    "\t}\n%s\tNNL_ONCE_STORE(&state, 2);\n}\n\n", e->pfx,
	    e->fill.s);
}

/* NAME_run: the checks of its pointers and their alignment, the
 * kernels, and the outputs copied out of the workspace. */
static void
putrun(struct em *e, struct buf *s)
{
	struct graph *g = e->g;

	buf_printf(s, "int\n%s_run(void *workspace, const void *const *in, "
	    "void *const *out)\n{\n\tunsigned char *A = workspace;\n\n"
	    "\tif (!workspace || !in || !out)\n\t\treturn 1;\n"
	    "\tif ((uintptr_t)workspace %% %u)\n\t\treturn 2;\n", e->pfx,
	    e->align);
	for (size_t i = 0; i < g->ninputs; i++)
		buf_printf(s, "\tif (!in[%zu])\n\t\treturn 1;\n", i);
	for (size_t i = 0; i < g->ninputs; i++)	/* (an empty input has
						 * no elements to align) */
		if (dtype_bits(g->inputs[i]->desc.dt) > 8 &&
		    bytesof(&g->inputs[i]->desc))
			buf_printf(s, "\tif ((uintptr_t)in[%zu] %% %d)\n"
			    "\t\treturn 2;\n", i,
			    dtype_bits(g->inputs[i]->desc.dt) / 8);
	for (size_t i = 0; i < g->noutputs; i++)
		buf_printf(s, "\tif (!out[%zu])\n\t\treturn 1;\n", i);
	if (e->fill.s)
		buf_printf(s, "\t%s_fill();\n", e->pfx);
	buf_puts(s, e->body.s ? e->body.s : "");
	for (size_t i = 0; i < g->noutputs; i++) {
		char *p = operandptr(e, g->outputs[i].ref);
		struct operand *o = graph_find(g, g->outputs[i].ref);

		buf_printf(s, "\tmemcpy(out[%zu], %s, %llu);\n", i, p,
		    (unsigned long long)bytesof(operand_type(o)));
		free(p);
	}
	buf_puts(s, "\treturn 0;\n}\n\n");
}

/* NAME_infer: the packed input and output cut into each, an input
 * copied to the staging area when misaligned, then NAME_run. */
static void
putinfer(struct em *e, struct buf *s)
{
	struct graph *g = e->g;
	uint64_t off = 0, st = 0;

	buf_printf(s, "int\n%s_infer(const void *input, void *output)\n{\n"
	    "\tconst unsigned char *ip = input;\n\tunsigned char *op = "
	    "output;\n\tconst void *in[%zu];\n\tvoid *out[%zu];\n\n"
	    "\tif (!input || !output)\n\t\treturn 1;\n", e->pfx,
	    g->ninputs ? g->ninputs : 1, g->noutputs);
	for (size_t i = 0; i < g->ninputs; i++) {
		const struct tdesc *t = &g->inputs[i]->desc;
		int a = dtype_bits(t->dt) / 8;

		buf_printf(s, "\tin[%zu] = ip + %llu;\n", i,
		    (unsigned long long)off);
		if (a > 1 && bytesof(t)) {	/* kernels load whole
						 * elements (an empty input
						 * has none) */
			buf_printf(s, "\tif ((uintptr_t)in[%zu] %% %d) "
			    "{\n\t\tmemcpy(%s_stage + %llu, in[%zu], "
			    "%llu);\n\t\tin[%zu] = %s_stage + %llu;\n"
			    "\t}\n", i, a, e->pfx,
			    (unsigned long long)st, i,
			    (unsigned long long)bytesof(t), i, e->pfx,
			    (unsigned long long)st);
			st += (bytesof(t) + 7) / 8 * 8;
		}
		off += bytesof(t);
	}
	off = 0;
	for (size_t i = 0; i < g->noutputs; i++) {
		struct operand *o = graph_find(g, g->outputs[i].ref);

		buf_printf(s, "\tout[%zu] = op + %llu;\n", i,
		    (unsigned long long)off);
		off += bytesof(operand_type(o));
	}
	buf_printf(s, "\treturn %s_run(%s_arena, in, out);\n}\n\n", e->pfx,
	    e->pfx);
}

/* main's writes: every output's bytes, in order, but an output of
 * data-dependent shape (graph_shape_output) only for the tensor of its
 * actual shape (at the front), and that shape not at all. */
static void
putwrites(struct em *e, struct buf *s, uint64_t outbytes)
{
	struct graph *g = e->g;
	uint64_t off = 0, *offs;
	int shaped = 0;

	offs = xcalloc(g->noutputs + 1, sizeof *offs);
	for (size_t i = 0; i < g->noutputs; i++) {
		offs[i] = off;
		off += bytesof(operand_type(graph_find(g,
		    g->outputs[i].ref)));
		shaped |= graph_shape_output(g, i) >= 0;
	}
	if (!shaped) {
		buf_printf(s, "\tif (fwrite(out, 1, %llu, stdout) != %llu) "
		    "{\n\t\tfprintf(stderr, \"%s: write error\\n\");\n"
		    "\t\treturn 1;\n\t}\n", (unsigned long long)outbytes,
		    (unsigned long long)outbytes, e->pfx);
		free(offs);
		return;
	}
	buf_puts(s, "\t/* outputs of data-dependent shape: the tensor of "
	    "the shape they have */\n\tsize_t w = 0, want = 0, z;\n"
	    "\tint64_t k;\n\n");
	for (size_t i = 0; i < g->noutputs; i++) {
		const struct tdesc *t = operand_type(graph_find(g,
		    g->outputs[i].ref));
		long c = graph_shape_output(g, i);

		if (c < 0) {
			buf_printf(s, "\tw += fwrite(out + %llu, 1, %llu, "
			    "stdout);\n\twant += %llu;\n",
			    (unsigned long long)offs[i],
			    (unsigned long long)bytesof(t),
			    (unsigned long long)bytesof(t));
			continue;
		}
		/* the elements, at most the bound's numel in any shape
		 * (constantOfShape's [bound, 1, ...]) */
		buf_puts(s, "\tz = 1;\n");
		for (int d = 0; d < t->rank; d++)
			buf_printf(s, "\tmemcpy(&k, out + %llu, sizeof k);\n"
			    "\tz = k <= 0 ? 0 : z > (size_t)%lluu / "
			    "(size_t)k ? (size_t)%lluu : z * (size_t)k;\n",
			    (unsigned long long)(offs[c] + 8 * (uint64_t)d),
			    (unsigned long long)tdesc_numel(t),
			    (unsigned long long)tdesc_numel(t));
		buf_printf(s, "\tz *= %d;\n\tw += fwrite(out + %llu, 1, z, "
		    "stdout);\n\twant += z;\n",
		    (int)dtype_bytes(t->dt, 1), (unsigned long long)offs[i]);
		i++;	/* the shape: not written */
	}
	buf_printf(s, "\tif (w != want) {\n\t\tfprintf(stderr, \"%s: "
	    "write error\\n\");\n\t\treturn 1;\n\t}\n", e->pfx);
	free(offs);
}

/* main (-m): the raw input bytes from stdin, the output to stdout. */
static void
putmain(struct em *e, struct buf *s, uint64_t inbytes, uint64_t outbytes)
{
	buf_printf(s, "\n#include <stdio.h>\n\n"
	    "/* io \"stdio\": raw input bytes on standard input, raw "
	    "output bytes\n * on standard output. */\n"
	    "int\nmain(void)\n{\n"
	    "\tstatic unsigned char in[%llu + 1], out[%llu + 1];\n"
	    "\tsize_t n = fread(in, 1, sizeof in, stdin);\n\n"
	    "\tif (n != %llu) {\n\t\tfprintf(stderr, \"%s: expected "
	    "%llu bytes of input, got %%s%%zu\\n\",\n\t\t    n > %llu ? "
	    "\"more than \" : \"\", n > %llu ? (size_t)%llu : n);\n"
	    "\t\treturn 1;\n\t}\n"
	    "\tswitch (%s_infer(in, out)) {\n\tcase 0:\n\t\tbreak;\n"
	    "\tcase 3:\n\t\tfprintf(stderr, \"%s: a size computed at run "
	    "time is past its bound\"\n\t\t    \" (--bound when imported) "
	    "or invalid\\n\");\n\t\treturn 1;\n"
	    "\tdefault:\n\t\treturn 1;\n\t}\n",
	    (unsigned long long)inbytes, (unsigned long long)outbytes,
	    (unsigned long long)inbytes, e->pfx,
	    (unsigned long long)inbytes, (unsigned long long)inbytes,
	    (unsigned long long)inbytes, (unsigned long long)inbytes,
	    e->pfx, e->pfx);
	putwrites(e, s, outbytes);
	buf_printf(s, "\tif (fflush(stdout) != 0) {\n\t\tfprintf(stderr, "
	    "\"%s: write error\\n\");\n\t\treturn 1;\n\t}\n"
	    "\treturn 0;\n}\n", e->pfx);
}

/* The source's API: the arena, NAME_run, NAME_infer, the sizes, and
 * main with -m. */
static void
putapi(struct em *e, struct buf *s, uint64_t inbytes, uint64_t outbytes,
    uint64_t inel, uint64_t outel)
{
	buf_printf(s, "static unsigned char %s_arena[%llu] NNL_ALIGNED;\n\n",
	    e->pfx, (unsigned long long)(e->arena ? e->arena : 1));
	if (e->fill.s)
		putfill(e, s);
	putrun(e, s);
	putstage(e, s);
	putinfer(e, s);
	buf_printf(s, "int %s_input_size(void) { return %llu; }\n"
	    "int %s_output_size(void) { return %llu; }\n"
	    "size_t %s_input_bytes(void) { return %llu; }\n"
	    "size_t %s_output_bytes(void) { return %llu; }\n"
	    "size_t %s_workspace_size(void) { return %llu; }\n", e->pfx,
	    (unsigned long long)inel, e->pfx, (unsigned long long)outel,
	    e->pfx, (unsigned long long)inbytes, e->pfx,
	    (unsigned long long)outbytes, e->pfx,
	    (unsigned long long)(e->arena ? e->arena : 1));
	if (e->o->main)
		putmain(e, s, inbytes, outbytes);
}

/* The header's name for #include "...", which has no escapes: 0, or
 * -1 with a message. */
static int
headername(const char *hdr)
{
	for (const char *q = hdr ? hdr : ""; *q; q++)
		if (*q == '"' || *q == '\\' || (unsigned char)*q < 0x20 ||
		    (unsigned char)*q >= 0x7f) {
			error("header name \"%s\": a name with '\"', '\\', a "
			    "control or a non-ASCII character cannot be "
			    "#included", escape_tty_name(hdr));
			return -1;
		}
	return 0;
}

/* The arena's size and alignment from the graph's memory plan mem. */
static int
arenaplan(struct em *e, const cJSON *mem)
{
	struct graph *g = e->g;
	const cJSON *ab;

	if (!cJSON_IsObject(mem)) {
		error("%s: the graph has no memory plan: run nnl-plan-memory "
		    "first", g->src);
		return -1;
	}
	ab = cJSON_GetObjectItemCaseSensitive(mem, "arenaBytes");
	/* the arena is one static array: it must fit the target */
	if (!cJSON_IsNumber(ab) || !(ab->valuedouble >= 0 &&
	    ab->valuedouble <= (double)checked_limit())) {
		error("%s: memory.arenaBytes is not a size from 0 to "
		    "the limit of %llu bytes (--max-tensor-bytes, "
		    "NNL_MAX_TENSOR_BYTES)", g->src,
		    (unsigned long long)checked_limit());
		return -1;
	}
	e->arena = (uint64_t)jsonint(cJSON_GetObjectItemCaseSensitive(mem,
	    "arenaBytes"));
	e->align = 64;	/* config align, as the planner used it */
	if (jsonint(cJSON_GetObjectItemCaseSensitive(mem, "align")) > 64 &&
	    jsonint(cJSON_GetObjectItemCaseSensitive(mem, "align")) <= 4096)
		e->align = (unsigned)jsonint(
		    cJSON_GetObjectItemCaseSensitive(mem, "align"));
	return 0;
}

/* The weights file, opened when a constant is read from it; -e array
 * takes no more than EMITC_ARRAY_MAX bytes of it. */
static int
openweights(struct em *e)
{
	struct graph *g = e->g;

	for (size_t i = 0; i < g->nconsts; i++)
		if (g->consts[i]->init == INIT_WEIGHTS && !e->haveweights) {
			if (!g->weights_file) {
				error("const \"%s\": the graph names no weights "
				    "file",
				    escape_tty_name(g->consts[i]->name));
				return -1;
			}
			if (weights_open(&e->w, g->weights_file,
			    g->manifest_file) != 0)
				return -1;
			e->haveweights = 1;
			if (e->o->embed == EMBED_ARRAY &&
			    e->w.size > EMITC_ARRAY_MAX) {
				error("%s: the weights are %zu bytes, over the "
				    "%llu that -e array (nnc's --weights "
				    "embed) writes as a C array: about 4 "
				    "bytes of source each, and the C "
				    "compiler's time and memory grow with "
				    "them; use -e incbin or beside (nnc's "
				    "--weights file)", g->weights_file,
				    e->w.size, (unsigned long long)
				    EMITC_ARRAY_MAX);
				return -1;
			}
		}
	return 0;
}

/* The bytes and the elements of all inputs and of all outputs. */
static void
iosizes(struct graph *g, uint64_t *inbytes, uint64_t *outbytes,
    uint64_t *inel, uint64_t *outel)
{
	for (size_t i = 0; i < g->ninputs; i++) {
		*inbytes += bytesof(&g->inputs[i]->desc);
		*inel += tdesc_numel(&g->inputs[i]->desc);
	}
	for (size_t i = 0; i < g->noutputs; i++) {
		const struct tdesc *t = operand_type(graph_find(g,
		    g->outputs[i].ref));

		*outbytes += bytesof(t);
		*outel += tdesc_numel(t);
	}
}

/* The source's opening: its comment, the header (included, or its text
 * hdrtext when none is written), and the runtime kernels. */
static void
putprologue(struct em *e, struct buf *s, const char *hdr,
    const char *hdrtext)
{
	struct graph *g = e->g;
	char *gn, *src;

	gn = cmt(g->name ? g->name : e->pfx);
	/* the file's name, not its directory: no temporary path in the
	 * output, the same source wherever it is made */
	src = cmt(g->src ? path_basename(g->src) : "-");
	buf_printf(s, "/*\n * %s.c: model \"%s\", generated by nnl-emit-c "
	    "from %s.\n * Plain C99: no heap, no I/O%s.  Do not edit.\n */\n"
	    "#include <math.h>\n#include <stdint.h>\n#include <string.h>\n\n",
	    e->pfx, gn, src, e->o->main ? " but main()" : "");
	/* no header written: its text here, so the source compiles alone */
	if (hdr)
		buf_printf(s, "#include \"%s\"\n\n", hdr);
	else
		buf_printf(s, "%s\n", hdrtext);
	/* this model's alignment, whatever a model before it in the same
	 * translation unit had */
	buf_printf(s, "#undef NNL_ALIGNED\n#if defined(__GNUC__)\n"
	    "#define NNL_ALIGNED __attribute__((aligned(%u)))\n#else\n"
	    "#define NNL_ALIGNED\n#endif\n\n", e->align);
	/* the runtime once in a translation unit of several models (a
	 * unity build, each model of its own prefix), which must all be
	 * built for one thread count */
	buf_printf(s, "/* The runtime kernels (common/rt/ of nnl), once in "
	    "a translation unit. */\n#ifndef NNL_RT_SOURCE\n"
	    "#define NNL_RT_SOURCE %d\n", e->o->threads > 1 ?
	    e->o->threads : 1);
	free(gn);
	free(src);
	if (e->o->threads > 1) {
		buf_printf(s, "/* The heavy kernels split over %d threads "
		    "(rt/par/par.c). */\n#define NNL_RT_THREADS %d\n",
		    e->o->threads, e->o->threads);
		buf_puts(s, nnl_rtsrc);
		buf_puts(s, nnl_parsrc);
	} else
		putrt1(s, nnl_rtsrc);
	buf_printf(s, "#elif NNL_RT_SOURCE != %d\n#error \"%s: built for %d "
	    "thread%s, a model before it in this translation unit for "
	    "another count\"\n#endif /* NNL_RT_SOURCE */\n\n",
	    e->o->threads > 1 ? e->o->threads : 1, e->pfx,
	    e->o->threads > 1 ? e->o->threads : 1,
	    e->o->threads > 1 ? "s" : "");
}

int
emitc(struct graph *g, const struct emitc_opts *o, char **source,
    char **header)
{
	struct em e;
	struct buf s = { 0 }, h = { 0 };
	const cJSON *mem = cJSON_GetObjectItemCaseSensitive(g->extra,
	    "memory");
	uint64_t inbytes = 0, outbytes = 0, inel = 0, outel = 0;
	char *pfx = emitc_ident(o->prefix ? o->prefix :
	    g->name ? g->name : "model");
	const char *hdr = o->header;	/* NULL: the header in the source */
	int rc = -1;

	memset(&e, 0, sizeof e);
	e.g = g;
	e.o = o;
	e.pfx = pfx;
	graph_number(g);
	e.cidx = xcalloc(g->nconsts + 1, sizeof *e.cidx);
	if (headername(hdr) != 0 || arenaplan(&e, mem) != 0 ||
	    openweights(&e) != 0)
		goto out;
	iosizes(g, &inbytes, &outbytes, &inel, &outel);
	/* the API returns the element counts as int */
	if (inel > INT_MAX || outel > INT_MAX) {
		error("%s: the %s have %llu elements, more than %s_%s_size() "
		    "can return", g->src, inel > INT_MAX ? "inputs" :
		    "outputs", (unsigned long long)(inel > INT_MAX ? inel :
		    outel), pfx, inel > INT_MAX ? "input" : "output");
		goto out;
	}
	for (size_t i = 0; i < g->nconsts; i++)
		if (g->consts[i]->init != INIT_WEIGHTS &&
		    inlineconst(&e, i) != 0)
			goto out;
	if (e.haveweights)
		putweights(&e);
	for (size_t i = 0; i < g->nnodes; i++)
		if (emitnode(&e, g->nodes[i], i) != 0)
			goto out;
	putheader(&e, &h, inbytes, outbytes, inel, outel);
	putprologue(&e, &s, hdr, h.s);
	buf_puts(&s, "\n/* ---- the model ---- */\n\n");
	buf_puts(&s, e.data.s ? e.data.s : "");
	putapi(&e, &s, inbytes, outbytes, inel, outel);
	*source = s.s;
	*header = h.s;
	s.s = h.s = NULL;
	rc = 0;
out:
	if (e.haveweights)
		weights_close(&e.w);
	free(e.cidx);
	free(e.data.s);
	free(e.body.s);
	free(e.fill.s);
	free(s.s);
	free(h.s);
	free(pfx);
	return rc;
}
