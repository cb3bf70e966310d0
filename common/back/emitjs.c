/*
 * emitjs: a typed graph as an ES module that builds it with the W3C
 * WebNN API: one MLGraphBuilder call per node, with the specification's
 * signature (operands and positional parameters in the IDL's order,
 * then an options dictionary of the spec's member names), constants
 * from the weights file at the offsets of its manifest, and the helpers
 * a page needs to load the weights and run the graph.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "checked.h"
#include "emitjs.h"
#include "escape.h"
#include "eval.h"
#include "strtab.h"
#include "uses.h"
#include "weights.h"

extern const char nnl_xxh3js[];	/* common/rt/js/xxh3.mjs */

struct ej {
	struct graph *g;
	struct buf *b;
	struct strtab ids;	/* operand name -> JS identifier (ours) */
	struct strtab used;	/* identifiers taken */
	struct strtab nextk;	/* taken identifier -> next suffix to try */
	struct manifest man;
	int haveman;
	unsigned long long wbytes;	/* the weights file's size */
	/* with partitions: readers of every operand, and the positions
	 * (in run order) of each WebNN partition's and CPU round's nodes */
	struct uses u;
	struct bucket {
		size_t *v, n, cap;
	} *web, *cpu;
	size_t nweb, ncpu;
	int polyfill;		/* CPU nodes as builder.cpu_OP calls */
	int atload;		/* offsets from a manifest at load time */
	struct strtab cpureads;	/* --polyfill: names CPU nodes read */
	int cpuready;		/* cpureads is filled */
};

static int placed(const struct node *n, int *part);
static int cpuop(const char *op);

static int
reserved(const char *s)
{
	static const char *const w[] = {
		"await", "break", "case", "catch", "class", "const",
		"continue", "debugger", "default", "delete", "do", "else",
		"enum", "export", "extends", "false", "finally", "for",
		"function", "if", "import", "in", "instanceof", "let", "new",
		"null", "return", "static", "super", "switch", "this", "throw",
		"true", "try", "typeof", "var", "void", "while", "with",
		"yield", "implements", "interface", "package", "private",
		"protected", "public", "undefined", "NaN", "Infinity",
		"arguments", "eval",
		/* what loadModelGraph and loadPartition refer to */
		"builder", "weights_buffer", "operand_input", "w", "bytes",
		"k", "operands", "checkWeights", "filled", "Uint8Array",
		"RangeError", NULL,
	};

	for (int i = 0; w[i]; i++)
		if (strcmp(s, w[i]) == 0)
			return 1;
	return 0;
}

/* The JS identifier of an operand, made on first use. */
static const char *
ident(struct ej *e, const char *name)
{
	const char *v = strtab_get(&e->ids, name);
	struct buf b = { 0 };
	char *s;

	if (v)
		return v;
	/* ASCII letters, digits, _ and $, at most 64: the table below
	 * keeps identifiers distinct */
	for (const char *p = name; *p && b.n < 64; p++)
		buf_putc(&b, (unsigned char)*p < 0x80 &&
		    (isalnum((unsigned char)*p) || *p == '_' || *p == '$') ?
		    *p : '_');
	if (!b.n || isdigit((unsigned char)b.s[0]) || reserved(b.s)) {
		s = xasprintf("_%s", b.s ? b.s : "");
		free(b.s);
	} else {
		s = b.s;
	}
	/* taken: the first free s_2, s_3, ..., searching on from where the
	 * last search for s stopped (those below stay taken) */
	if ((v = strtab_get(&e->used, s))) {
		uintptr_t k = (uintptr_t)strtab_get(&e->nextk, v);
		char *t;

		for (k = k ? k : 2;; k++) {
			t = xasprintf("%s_%zu", s, (size_t)k);
			if (!strtab_get(&e->used, t))
				break;
			free(t);
		}
		strtab_del(&e->nextk, v);
		strtab_put(&e->nextk, v, (void *)(k + 1));
		free(s);
		s = t;
	}
	strtab_put(&e->used, s, s);
	strtab_put(&e->ids, xstrdup(name), s);
	return s;
}

static void
desc(struct buf *b, const struct tdesc *t)
{
	if (t->dt == DT_NONE || t->rank < 0) {
		/* after an op kept by pass-through: the built operand's */
		buf_puts(b, "null");
		return;
	}
	buf_printf(b, "{dataType: \"%s\", shape: [", dtype_name(t->dt));
	for (int i = 0; i < t->rank; i++)
		buf_printf(b, "%s%lld", i ? ", " : "", (long long)t->dims[i]);
	buf_puts(b, "]}");
}

/* A JSON value as a JS literal (JSON is one). */
static void
literal(struct buf *b, const cJSON *v)
{
	escape_js_value(b, v);
}

/* --polyfill: does a node placed on the CPU read operand name?  The
 * names those nodes read are gathered once, so that asking for every
 * constant costs the size of the graph, not its square. */
static int
cpuread(struct ej *e, const char *name)
{
	if (!e->cpuready) {
		for (size_t i = 0; i < e->g->nnodes; i++) {
			struct node *n = e->g->nodes[i];
			int part;

			if (placed(n, &part) != 1)
				continue;
			for (int k = 0; k < n->nin; k++)
				strtab_put(&e->cpureads, n->in[k], n);
		}
		e->cpuready = 1;
	}
	return strtab_get(&e->cpureads, name) != NULL;
}

/* A constant as a CPU value, for the CPU nodes of --polyfill. */
static int
cpuconstant(struct ej *e, struct operand *c)
{
	struct buf *b = e->b;
	uint64_t nb;
	unsigned char *cb;
	struct wtensor *wt;

	buf_printf(b, "  const %s = cpuTensor(\"%s\", [", ident(e, c->name),
	    dtype_name(c->desc.dt));
	for (int q = 0; q < c->desc.rank; q++)
		buf_printf(b, "%s%lld", q ? ", " : "",
		    (long long)c->desc.dims[q]);
	if (c->init == INIT_WEIGHTS && e->atload) {
		buf_printf(b, "], new ARRAYS[\"%s\"](w(",
		    dtype_name(c->desc.dt));
		escape_js_string(b, c->name);
		buf_puts(b, ").slice().buffer));\n");
		return 0;
	}
	if (c->init == INIT_WEIGHTS && e->haveman &&
	    (wt = manifest_find(&e->man, c->ref))) {
		buf_printf(b, "], new ARRAYS[\"%s\"](w(%llu, %llu).slice()."
		    "buffer));\n", dtype_name(c->desc.dt),
		    (unsigned long long)wt->offset,
		    (unsigned long long)wt->length);
		return 0;
	}
	if (!(cb = const_bytes(e->g, c, &nb)))
		return -1;
	buf_printf(b, "], new ARRAYS[\"%s\"](new Uint8Array([",
	    dtype_name(c->desc.dt));
	for (uint64_t q = 0; q < nb; q++)
		buf_printf(b, "%s%u", q ? ", " : "", cb[q]);
	buf_puts(b, "]).buffer));\n");
	free(cb);
	return 0;
}

static int
constant(struct ej *e, struct operand *c)
{
	struct buf *b = e->b;
	const char *id;
	const struct tdesc *t = &c->desc;

	if (e->polyfill && cpuread(e, c->name))
		return cpuconstant(e, c);
	id = ident(e, c->name);

	buf_printf(b, "  const %s = builder.constant(", id);
	if (c->init == INIT_SCALAR && t->rank == 0) {
		int big = t->dt == DT_INT64 || t->dt == DT_UINT64;

		buf_printf(b, "\"%s\", ", dtype_name(t->dt));
		if (big)
			buf_printf(b, "%lldn", (long long)c->value);
		else
			json_put_number(b, c->value);
		buf_puts(b, ");\n");
		return 0;
	}
	desc(b, t);
	if (c->init == INIT_SCALAR) {
		buf_printf(b, ", filled(\"%s\", %llu, ", dtype_name(t->dt),
		    (unsigned long long)tdesc_numel(t));
		json_put_number(b, c->value);
		buf_puts(b, "));\n");
	} else if (c->init == INIT_BYTES) {
		buf_puts(b, ", new Uint8Array([");
		for (size_t i = 0; i < c->nbytes; i++)
			buf_printf(b, "%s%u", i ? ", " : "", c->bytes[i]);
		buf_puts(b, "]));\n");
	} else if (e->atload) {
		/* its offset from the manifest given at load time */
		buf_puts(b, ", w(");
		escape_js_string(b, c->name);
		buf_puts(b, "));\n");
	} else {
		struct wtensor *wt = e->haveman ?
		    manifest_find(&e->man, c->ref) : NULL;

		if (!e->haveman) {
			error("%s: constant \"%s\" is in a weights file, but the "
			    "graph names none (nnl-parse attaches the files "
			    "beside a graph; --weights-at-load reads them "
			    "when the module loads)", e->g->src,
			    escape_tty_name(c->name));
			return -1;
		}
		if (!wt) {
			error("%s: constant \"%s\": \"%s\" is not in the weights "
			    "manifest", e->g->src, escape_tty_name(c->name),
			    escape_tty_name(c->ref));
			return -1;
		}
		buf_printf(b, ", w(%llu, %llu));\n",
		    (unsigned long long)wt->offset,
		    (unsigned long long)wt->length);
	}
	return 0;
}

/* The declaration of a node's results: "const y = " where the call
 * returns one operand (one), else "const [a, b] = ". */
static void
bindouts(struct ej *e, const struct node *n, int one)
{
	struct buf *b = e->b;

	if (one) {
		buf_printf(b, "  const %s = ", ident(e, n->out[0]));
		return;
	}
	buf_puts(b, "  const [");
	for (int i = 0; i < n->nout; i++)
		buf_printf(b, "%s%s", i ? ", " : "", ident(e, n->out[i]));
	buf_puts(b, "] = ");
}

/*
 * A node of an op nnl does not know, kept by pass-through: the builder
 * method it names, its inputs, then its options as one dictionary;
 * several outputs are read as an array.  A literal is its value.
 */
static int
unknownnode(struct ej *e, struct node *n)
{
	struct buf *b = e->b;

	if (strcmp(n->opname, LITERAL_OP) == 0 && n->nout == 1) {
		buf_printf(b, "  const %s = ", ident(e, n->out[0]));
		literal(b, cJSON_GetObjectItemCaseSensitive(n->options,
		    "value"));
		buf_puts(b, ";\n");
		return 0;
	}
	/* validate.c has warned of it */
	bindouts(e, n, n->nout == 1);
	buf_puts(b, "builder[");
	escape_js_string(b, n->opname);
	buf_puts(b, "](");
	for (int i = 0; i < n->nin; i++)
		buf_printf(b, "%s%s", i ? ", " : "", ident(e, n->in[i]));
	if (cJSON_GetArraySize(n->options) > 0) {
		buf_puts(b, n->nin ? ", " : "");
		literal(b, n->options);
	}
	buf_puts(b, ");\n");
	return 0;
}

/*
 * --polyfill: a node nnl-cpu-partition placed on the CPU, computed while
 * the graph is built: builder.cpu_OP(values..., {options}).  What it
 * reads must be known then (constants, other CPU nodes' values): a
 * graph input is known only when the graph runs.
 */
static int
cpunode(struct ej *e, struct node *n, const struct opdesc *d)
{
	struct buf *b = e->b;

	if (!cpuop(d->name)) {
		error("%s: node \"%s\" (%s) is placed on the CPU, and CpuOps "
		    "has no %s", e->g->src, escape_tty_name(n->id), d->name,
		    d->name);
		return -1;
	}
	for (int k = 0; k < n->nin; k++) {
		struct operand *o = graph_find(e->g, n->in[k]);
		int part;

		if (o->kind == OPND_CONST || (o->kind == OPND_NODE &&
		    placed(o->producer, &part) == 1))
			continue;
		error("%s: node \"%s\" (%s) is placed on the CPU and reads "
		    "\"%s\", which %s: --polyfill computes CPU nodes while "
		    "the graph is built; use the partitioned run (without "
		    "--polyfill)", e->g->src, escape_tty_name(n->id), d->name,
		    escape_tty_name(n->in[k]), o->kind == OPND_INPUT ?
		    "is a graph input, known only when the graph runs" :
		    "a WebNN node computes when the graph runs");
		return -1;
	}
	bindouts(e, n, n->nout == 1);
	buf_printf(b, "builder.cpu_%s(%s", d->name, d->variadic ? "[" : "");
	for (int k = 0; k < n->nin; k++)
		buf_printf(b, "%s%s", k ? ", " : "", ident(e, n->in[k]));
	buf_puts(b, d->variadic ? "], " : ", ");
	literal(b, n->options);
	buf_puts(b, ");\n");
	return 0;
}

/* One node: its outputs = builder.op(operands, params, {options}). */
static int
node(struct ej *e, struct node *n)
{
	const struct opdesc *d = op_get(n->op);
	struct buf *b = e->b;
	const cJSON *opt;
	int first = 1, k = 0, nopt = 0;

	if (!d)
		return unknownnode(e, n);
	if (e->polyfill && placed(n, &k) == 1)
		return cpunode(e, n, d);
	k = 0;
	bindouts(e, n, d->nout != 0);	/* the IDL returns one MLOperand */
	if (d->nnl) {
		/* no MLGraphBuilder method computes it (emitjs() checked
		 * it is placed on the CPU): this whole-graph function
		 * refuses, the partitioned run computes it by CpuOps */
		buf_puts(b, "(() => { throw new TypeError(\"node \" + ");
		escape_js_string(b, n->id);
		buf_printf(b, " + \" (%s) is nnl's, beyond WebNN: run the "
		    "graph partitioned (buildGraphs, runPartitioned)\"); "
		    "})();\n", d->name);
		return 0;
	}
	buf_printf(b, "builder.%s(", d->name);
	if (d->variadic) {
		buf_puts(b, "[");
		for (int i = 0; i < n->nin; i++)
			buf_printf(b, "%s%s", i ? ", " : "",
			    ident(e, n->in[i]));
		buf_puts(b, "]");
		first = 0;
	} else {
		for (k = 0; k < n->nin; k++) {
			buf_printf(b, "%s%s", first ? "" : ", ",
			    ident(e, n->in[k]));
			first = 0;
		}
	}
	for (int i = 0; i < d->nparams; i++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(n->options,
		    d->params[i].name);

		if (!v) {
			error("%s: node \"%s\": %s without its parameter "
			    "\"%s\"", e->g->src, escape_tty_name(n->id),
			    d->name,
			    d->params[i].name);
			return -1;
		}
		buf_puts(b, first ? "" : ", ");
		literal(b, v);
		first = 0;
	}
	cJSON_ArrayForEach(opt, n->options) {
		const struct argdesc *a = op_arg(d, opt->string);
		int isparam = 0;

		for (int i = 0; i < d->nparams; i++)
			isparam |= strcmp(d->params[i].name, opt->string) == 0;
		if (isparam || cJSON_IsNull(opt))
			continue;
		buf_puts(b, nopt ? ", " : first ? "{" : ", {");
		escape_js_key(b, opt->string);
		buf_puts(b, ": ");
		if (a && a->type == AT_OPERAND && cJSON_IsString(opt))
			buf_puts(b, ident(e, opt->valuestring));
		else
			literal(b, opt);
		nopt++;
		first = 0;
	}
	buf_puts(b, nopt ? "});\n" : ");\n");
	return 0;
}

static void
prologue(struct ej *e)
{
	struct graph *g = e->g;
	struct buf *b = e->b;

	buf_puts(b, "// ");
	escape_js_comment(b, g->name ? g->name : "model");
	buf_puts(b, ": the graph as W3C WebNN graph-building code,\n// "
	    "written by nnl-emit-js.  Constants are read from the weights "
	    "file\n// ");
	if (e->atload)
		buf_puts(b, "given when the module loads, at the offsets of the "
		    "manifest given\n// with it.\n\n");
	else {
		escape_js_comment(b, g->weights_file ?
		    path_basename(g->weights_file) : "(none)");
		buf_puts(b, " at the offsets of its manifest.\n\n");
	}
	/* tables by name: no prototype, so that any name is a key */
	buf_puts(b, "export const inputs = {__proto__: null,\n");
	for (size_t i = 0; i < g->ninputs; i++) {
		buf_puts(b, "  ");
		escape_js_key(b, g->inputs[i]->name);
		buf_puts(b, ": ");
		desc(b, &g->inputs[i]->desc);
		buf_puts(b, i + 1 < g->ninputs ? ",\n" : "\n");
	}
	buf_puts(b, "};\n\nexport const outputs = {__proto__: null,\n");
	for (size_t i = 0; i < g->noutputs; i++) {
		struct operand *o = graph_find(g, g->outputs[i].ref);

		buf_puts(b, "  ");
		escape_js_key(b, g->outputs[i].name);
		buf_puts(b, ": ");
		desc(b, operand_type(o));
		buf_puts(b, i + 1 < g->noutputs ? ",\n" : "\n");
	}
	buf_puts(b, "};\n\n");
	if (e->atload) {
		emitjs_load(b, g);
		return;
	}
	buf_printf(b, "// The weights file the constants come from: its "
	    "size and header.\nexport const weightsFile = {name: ");
	escape_js_string(b, g->weights_file ? path_basename(g->weights_file) :
	    "");
	buf_printf(b, ", bytes: %llu};\n\n", e->wbytes);
	buf_puts(b, "// Each tensor of the weights file: offset, length, "
	    "XXH3-64.\nexport const weightsTensors = [\n");
	for (size_t i = 0; e->haveman && i < e->man.n; i++) {
		const struct wtensor *t = &e->man.t[i];

		buf_puts(b, "  [");
		escape_js_string(b, t->name);
		buf_printf(b, ", %llu, %llu, ", (unsigned long long)t->offset,
		    (unsigned long long)t->length);
		if (t->has_checksum)
			buf_printf(b, "\"%016llx\"",
			    (unsigned long long)t->checksum);
		else
			buf_puts(b, "null");
		buf_puts(b, i + 1 < e->man.n ? "],\n" : "]\n");
	}
	buf_puts(b, "];\n\n");
}

/* The runtime half: typed arrays, the weights check, running. */
static const char helpers[] =
"const ARRAYS = {float32: Float32Array, float16: Uint16Array,\n"
"  int32: Int32Array, uint32: Uint32Array, int64: BigInt64Array,\n"
"  uint64: BigUint64Array, int8: Int8Array, uint8: Uint8Array,\n"
"  float64: Float64Array, int16: Int16Array, uint16: Uint16Array,\n"
"  bfloat16: Uint16Array};\n"
"\n"
"function filled(dataType, n, value) {\n"
"  const T = ARRAYS[dataType];\n"
"  const big = dataType === \"int64\" || dataType === \"uint64\";\n"
"  return new T(n).fill(big ? BigInt(value) : value);\n"
"}\n"
"\n";

/* The weights helpers of a module whose offsets are baked in. */
static const char baked[] =
"// Check a weights file (an ArrayBuffer) before reading constants from\n"
"// it: its size, the \"WGWT\" magic and the format version.\n"
"export function checkWeights(buffer) {\n"
"  if (weightsFile.bytes === 0) return;\n"
"  if (!(buffer instanceof ArrayBuffer) && !ArrayBuffer.isView(buffer))\n"
"    throw new TypeError(`weights: expected an ArrayBuffer, got ${typeof buffer}`);\n"
"  const bytes = ArrayBuffer.isView(buffer) ?\n"
"    new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength) :\n"
"    new Uint8Array(buffer);\n"
"  if (bytes.length !== weightsFile.bytes)\n"
"    throw new Error(`weights: ${weightsFile.name} has ${weightsFile.bytes} bytes, this buffer ${bytes.length}`);\n"
"  const magic = String.fromCharCode(bytes[0], bytes[1], bytes[2], bytes[3]);\n"
"  if (magic !== \"WGWT\")\n"
"    throw new Error(`weights: not a WGWT weights file (magic \"${magic}\")`);\n"
"  return bytes;\n"
"}\n"
"\n"
"// Check every tensor of a weights buffer against its checksum; the\n"
"// error names the first that differs.\n"
"export function verifyWeights(buffer) {\n"
"  const bytes = checkWeights(buffer);\n"
"  for (const [name, offset, length, sum] of weightsTensors) {\n"
"    if (sum === null) continue;\n"
"    const got = xxh3(bytes.subarray(offset, offset + length)).toString(16).padStart(16, \"0\");\n"
"    if (got !== sum)\n"
"      throw new Error(`weights: tensor \"${name}\" is corrupt (XXH3-64 ${got}, the manifest says ${sum})`);\n"
"  }\n"
"  return bytes;\n"
"}\n"
"\n"
"// Fetch the weights file (by default beside this module: its name, every\n"
"// character escaped, as a URL relative to it) and check it,\n"
"// every tensor's checksum too unless verify is false.\n"
"export async function loadWeights(url = new URL(encodeURIComponent(weightsFile.name), import.meta.url), verify = true) {\n"
"  const response = await fetch(url);\n"
"  if (!response.ok) throw new Error(`weights: ${url}: HTTP ${response.status}`);\n"
"  const buffer = await response.arrayBuffer();\n"
"  if (verify) verifyWeights(buffer); else checkWeights(buffer);\n"
"  return buffer;\n"
"}\n"
"\n";

/* Running: the context, building the graph, dispatching. */
static const char helpers2[] =
"// A WebNN context, or a clear error where the browser has none.\n"
"export async function createContext(options = {}) {\n"
"  const ml = globalThis.navigator && globalThis.navigator.ml;\n"
"  if (!ml || typeof ml.createContext !== \"function\")\n"
"    throw new Error(\"WebNN is not available: this browser has no navigator.ml \" +\n"
"      \"(enable WebNN, or use a browser that ships it)\");\n"
"  try {\n"
"    return await ml.createContext(options);\n"
"  } catch (err) {\n"
"    throw new Error(`WebNN is not available: createContext failed: ${err.message}`);\n"
"  }\n"
"}\n"
"\n"
"// Build the graph: inputs declared with their descriptors, every node\n"
"// added by loadModelGraph, the outputs named.\n"
"export async function buildGraph(context, weights) {\n"
"  const builder = new MLGraphBuilder(context);\n"
"  const operands = Object.create(null);\n"
"  for (const [name, d] of Object.entries(inputs))\n"
"    operands[name] = builder.input(name, {dataType: d.dataType, shape: d.shape});\n"
"  const names = Object.keys(inputs);\n"
"  const result = loadModelGraph(names.length === 1 ? operands[names[0]] : operands,\n"
"    weights, builder);\n"
"  const outs = Object.keys(outputs);\n"
"  // an output after an op kept by pass-through: its built operand's type\n"
"  for (const name of outs)\n"
"    if (outputs[name] === null) {\n"
"      const o = outs.length === 1 ? result : result[name];\n"
"      outputs[name] = {dataType: o.dataType, shape: [...o.shape]};\n"
"    }\n"
"  return await builder.build(outs.length === 1 ? {[outs[0]]: result} : result);\n"
"}\n"
"\n"
"// The input called name, an own property of values (an input named\n"
"// \"constructor\" is not Object.prototype's).\n"
"function value(values, name) {\n"
"  if (!Object.prototype.hasOwnProperty.call(values, name))\n"
"    throw new TypeError(`run: no value for input ${JSON.stringify(name)}`);\n"
"  return values[name];\n"
"}\n"
"\n"
"// Run a built graph: inputs by name (typed arrays), outputs by name.\n"
"export async function run(context, graph, values) {\n"
"  const ins = Object.create(null), outs = Object.create(null),\n"
"    result = Object.create(null);\n"
"  for (const [name, d] of Object.entries(inputs)) {\n"
"    ins[name] = await context.createTensor({dataType: d.dataType, shape: d.shape, writable: true});\n"
"    context.writeTensor(ins[name], value(values, name));\n"
"  }\n"
"  for (const [name, d] of Object.entries(outputs))\n"
"    outs[name] = await context.createTensor({dataType: d.dataType, shape: d.shape, readable: true});\n"
"  context.dispatch(graph, ins, outs);\n"
"  for (const [name, d] of Object.entries(outputs))\n"
"    result[name] = new ARRAYS[d.dataType](await context.readTensor(outs[name]));\n"
"  return result;\n"
"}\n\n";

/*
 * The first lines of loadModelGraph and loadPartition: w, the reader of
 * a constant's bytes, by offset and length in the weights file, or at
 * load time by the constant's name (emitjs_load.c's checkWeights).
 */
static void
weightsreader(struct ej *e)
{
	if (e->atload) {
		buf_puts(e->b, "  const w = checkWeights(weights_buffer);\n");
		return;
	}
	buf_puts(e->b, "  const bytes = checkWeights(weights_buffer);\n"
	    "  const w = (offset, length) => bytes.subarray(offset, offset + "
	    "length);\n");
}

/* ---- partitions (nnl-cpu-partition's placement) ---- */

/* The CpuOps functions (common/rt/js/cpuops.mjs). */
static int
cpuop(const char *op)
{
	static const char *const ops[] = {
		"add", "sub", "mul", "div", "max", "min", "pow", "equal",
		"notEqual", "greater", "greaterOrEqual", "lesser",
		"lesserOrEqual", "logicalAnd", "logicalOr", "logicalXor",
		"logicalNot", "abs", "neg", "sign", "identity", "relu", "cast",
		"reshape", "expand", "where", "transpose", "concat", "slice",
		"gather", "reduceSum", "reduceProduct", "reduceMax",
		"reduceMin", "reduceMean", "argMax", "argMin", "clamp",
		"isNaN", "isInfinite", "cumulativeSum", "quantizeLinear",
		"dequantizeLinear", "pad", "prelu", "reduceL1",
		"reduceSumSquare", "reverse", "tile", "triangular", "split",
		"gatherElements", "gatherND", "scatterElements", "scatterND",
		"maxPool2d", "asin", "acos", "atan", "bitShift", "topK",
		"nonMaxSuppression", "gridSample", "roiAlign", "nonZero",
		"unique", "matMulInteger", "conv2dInteger", "requantizeLinear",
		"tfIdfVectorizer", "scatterElementsReduce", "scatterNDReduce",
		"maxPool2dIndices", "det", "dft", "range", "constantOfShape",
		"melWeightMatrix",
		"conv3d", "convTranspose3d", "averagePool3d", "lpPool3d",
		"maxPool3d",
		/* nnl's float64 product */
		"matmul",
		/* the float math of nnl's float64 and bfloat16 */
		"ceil", "floor", "exp", "log", "sqrt", "sin", "cos", "tan",
		"tanh", "reciprocal", "roundEven", "sigmoid", "reduceL2",
		"reduceLogSum", "reduceLogSumExp", "softmax", NULL,
	};

	for (int i = 0; ops[i]; i++)
		if (strcmp(ops[i], op) == 0)
			return 1;
	return 0;
}

/* A node's placement: 1 CPU, 0 WebNN, -1 none; *part its partition. */
static int
placed(const struct node *n, int *part)
{
	const cJSON *p = cJSON_GetObjectItemCaseSensitive(n->extra,
	    "placement");
	const cJSON *d = cJSON_GetObjectItemCaseSensitive(p, "device");
	const cJSON *k = cJSON_GetObjectItemCaseSensitive(p, "partition");
	int64_t v = 0;


	/* a whole number of an int, else partition 0 as when absent */
	if (cJSON_IsNumber(k))
		checked_double_i64(k->valuedouble, INT_MIN, INT_MAX, &v);
	*part = (int)v;
	if (!cJSON_IsString(d))
		return -1;
	return strcmp(d->valuestring, "cpu") == 0;
}

/* Where operand name is made: -1 outside any node (input, constant),
 * else 1000 * part + cpu. */
static int
where(struct ej *e, const char *name)
{
	struct operand *o = graph_find(e->g, name);
	int part, cpu;

	if (!o || o->kind != OPND_NODE)
		return -1;
	cpu = placed(o->producer, &part);
	return 1000 * part + (cpu == 1);
}

static int
isgoutput(struct graph *g, const char *name)
{
	for (size_t i = 0; i < g->noutputs; i++)
		if (strcmp(g->outputs[i].ref, name) == 0)
			return 1;
	return 0;
}

/* Does a node outside WebNN partition k (or a graph output) read it? */
static int
readoutside(struct ej *e, const char *name, int k)
{
	const struct uses_ent *u = uses_get(&e->u, name);

	if (isgoutput(e->g, name))
		return 1;
	for (size_t i = 0; u && i < u->n; i++) {
		int part, cpu = placed(u->rd[i], &part);

		if (cpu != 0 || part != k)
			return 1;
	}
	return 0;
}

static void
descof(struct ej *e, const char *name)
{
	desc(e->b, operand_type(graph_find(e->g, name)));
}

/*
 * Partition k's inputs (outputs == 0: the operands its nodes read that
 * it does not make, constants aside, in the order first read) or its
 * outputs (those it makes that something else reads), as a JSON array
 * of names.
 */
static cJSON *
partio(struct ej *e, const size_t *order, int k, int outputs)
{
	struct graph *g = e->g;
	cJSON *a = cJSON_CreateArray();
	struct strtab seen = { 0 };

	(void)order;
	for (size_t q = 0; q < e->web[k].n; q++) {
		struct node *n = g->nodes[e->web[k].v[q]];
		const char **r;
		int part, nr;

		if (placed(n, &part) != 0 || part != k)
			continue;
		if (outputs) {
			for (int j = 0; j < n->nout; j++)
				if (readoutside(e, n->out[j], k))
					cJSON_AddItemToArray(a,
					    cJSON_CreateString(n->out[j]));
			continue;
		}
		nr = node_reads(n, &r);
		for (int j = 0; j < nr; j++) {
			struct operand *o = graph_find(g, r[j]);

			if (o->kind == OPND_CONST || where(e, r[j]) ==
			    1000 * k || strtab_get(&seen, o->name))
				continue;
			strtab_put(&seen, o->name, o);
			cJSON_AddItemToArray(a, cJSON_CreateString(r[j]));
		}
		free(r);
	}
	strtab_free(&seen);
	return a;
}

/* {"name": descriptor, ...} of the operands named in a. */
static void
descs(struct ej *e, const cJSON *a)
{
	const cJSON *x;

	buf_puts(e->b, "{__proto__: null");
	cJSON_ArrayForEach(x, a) {
		buf_puts(e->b, ", ");
		escape_js_key(e->b, x->valuestring);
		buf_puts(e->b, ": ");
		descof(e, x->valuestring);
	}
	buf_puts(e->b, "}");
}

/*
 * Counts the WebNN partitions (*np) and the rounds (*nr) and checks each
 * node's placement: a CPU node needs its CpuOps function, a partition
 * is from 0 to the number of nodes.
 */
static int
countparts(struct ej *e, int *np, int *nr)
{
	struct graph *g = e->g;

	for (size_t i = 0; i < g->nnodes; i++) {
		int part, cpu = placed(g->nodes[i], &part);

		if (cpu == 0 && part + 1 > *np)
			*np = part + 1;
		if (part + 1 > *nr)
			*nr = part + 1;
		if (cpu == 1 && !cpuop(g->nodes[i]->opname)) {
			error("%s: node \"%s\" (%s) is placed on the CPU, and "
			    "CpuOps has no %s", g->src,
			    escape_tty_name(g->nodes[i]->id),
			    escape_tty_name(g->nodes[i]->opname),
			    escape_tty_name(g->nodes[i]->opname));
			return -1;
		}
		if (cpu >= 0 && (part < 0 || (size_t)part >= g->nnodes)) {
			error("%s: node \"%s\": placement partition %d is not "
			    "from 0 to the number of nodes", g->src,
			    g->nodes[i]->id, part);
			return -1;
		}
	}
	return 0;
}

/* Each partition's and round's nodes, in run order, once. */
static void
bucketparts(struct ej *e, const size_t *order, int np, int nr)
{
	struct graph *g = e->g;

	uses_build(&e->u, g);
	e->web = xcalloc((size_t)np + 1, sizeof *e->web);
	e->cpu = xcalloc((size_t)nr + 1, sizeof *e->cpu);
	e->nweb = (size_t)np;
	e->ncpu = (size_t)nr;
	for (size_t i = 0; i < g->nnodes; i++) {
		int part, cpu = placed(g->nodes[order[i]], &part);
		struct bucket *bk = cpu == 0 ? &e->web[part] : cpu == 1 ?
		    &e->cpu[part] : NULL;

		if (bk) {
			GROW(bk->v, bk->cap, bk->n + 1);
			bk->v[bk->n++] = order[i];
		}
	}
}

/*
 * loadPartition's case k: its inputs from operands, each constant where
 * it is first read, its nodes, and its outputs by name.
 */
static int
loadpart(struct ej *e, int k, const cJSON *ins, const cJSON *outs)
{
	struct graph *g = e->g;
	struct buf *b = e->b;
	struct strtab seen = { 0 };
	const cJSON *x;
	int rc = 0;

	buf_printf(b, "  case %d: {\n", k);
	cJSON_ArrayForEach(x, ins) {
		buf_printf(b, "  const %s = operands[",
		    ident(e, x->valuestring));
		escape_js_string(b, x->valuestring);
		buf_puts(b, "];\n");
	}
	for (size_t q = 0; q < e->web[k].n && rc == 0; q++) {
		struct node *n = g->nodes[e->web[k].v[q]];
		const char **r;
		int part, nr2;

		if (placed(n, &part) != 0 || part != k)
			continue;
		/* each constant where it is first read */
		nr2 = node_reads(n, &r);
		for (int j = 0; j < nr2 && rc == 0; j++) {
			struct operand *o = graph_find(g, r[j]);

			if (o->kind != OPND_CONST ||
			    strtab_put(&seen, o->name, o))
				continue;
			rc = constant(e, o);
		}
		free(r);
		if (rc == 0)
			rc = node(e, n);
	}
	strtab_free(&seen);
	buf_puts(b, "  return {");
	cJSON_ArrayForEach(x, outs) {
		buf_puts(b, x != outs->child ? ", " : "");
		escape_js_key(b, x->valuestring);
		buf_printf(b, ": %s", ident(e, x->valuestring));
	}
	buf_puts(b, "};\n  }\n");
	return rc;
}

/*
 * The partitions table (each WebNN partition's inputs and outputs) and
 * loadPartition, which builds partition k's nodes.
 */
static int
loadparts(struct ej *e, const size_t *order, int np)
{
	struct buf *b = e->b;
	cJSON **ins, **outs;
	int rc = 0;

	ins = xcalloc((size_t)np + 1, sizeof *ins);
	outs = xcalloc((size_t)np + 1, sizeof *outs);
	for (int k = 0; k < np; k++) {
		ins[k] = partio(e, order, k, 0);
		outs[k] = partio(e, order, k, 1);
	}
	buf_puts(b, "\n// ---- partitions: nnl-cpu-partition placed some nodes "
	    "on the CPU ----\nimport { CpuOps, tensor, ARRAYS as CPU_ARRAYS } "
	    "from \"./cpuops.mjs\";\n\n// Each WebNN partition's inputs and "
	    "outputs.\nexport const partitions = [\n");
	for (int k = 0; k < np; k++) {
		buf_puts(b, "  {inputs: ");
		descs(e, ins[k]);
		buf_puts(b, ", outputs: ");
		descs(e, outs[k]);
		buf_puts(b, k + 1 < np ? "},\n" : "}\n");
	}
	buf_puts(b, "];\n\n// Partition k's nodes on builder, from its input "
	    "operands by name.\nexport function loadPartition(k, operands, "
	    "weights_buffer, builder) {\n");
	weightsreader(e);
	buf_puts(b, "  switch (k) {\n");
	for (int k = 0; k < np && rc == 0; k++)
		rc = loadpart(e, k, ins[k], outs[k]);
	for (int k = 0; k < np; k++) {
		cJSON_Delete(ins[k]);
		cJSON_Delete(outs[k]);
	}
	free(ins);
	free(outs);
	if (rc != 0)
		return -1;
	buf_puts(b, "  }\n  throw new RangeError(`no partition ${k}`);\n}\n\n");
	return 0;
}

/* The dimensions of o, comma-separated, for a JS array literal. */
static void
jsdims(struct buf *b, const struct operand *o)
{
	for (int q = 0; q < o->desc.rank; q++)
		buf_printf(b, "%s%lld", q ? ", " : "",
		    (long long)o->desc.dims[q]);
}

/*
 * A CPU node's constant into v: read at load time by name, from the
 * weights bytes at its manifest's offset, or its bytes written out.
 */
static int
cpuconst(struct ej *e, struct operand *o)
{
	struct graph *g = e->g;
	struct buf *b = e->b;
	struct wtensor *wt;

	buf_puts(b, "    v[");
	escape_js_string(b, o->name);
	if (o->init == INIT_WEIGHTS && e->atload) {
		buf_printf(b, "] = c(\"%s\", [", dtype_name(o->desc.dt));
		jsdims(b, o);
		buf_puts(b, "], ");
		escape_js_string(b, o->name);
		buf_puts(b, ");\n");
	} else if (o->init == INIT_WEIGHTS && e->haveman &&
	    (wt = manifest_find(&e->man, o->ref))) {
		buf_printf(b, "] = c(\"%s\", [", dtype_name(o->desc.dt));
		jsdims(b, o);
		buf_printf(b, "], %llu, %llu);\n",
		    (unsigned long long)wt->offset,
		    (unsigned long long)wt->length);
	} else {
		uint64_t nb;
		unsigned char *cb = const_bytes(g, o, &nb);

		if (!cb)
			return -1;
		buf_printf(b, "] = tensor(\"%s\", [", dtype_name(o->desc.dt));
		jsdims(b, o);
		buf_printf(b, "], new CPU_ARRAYS[\"%s\"](new "
		    "Uint8Array([", dtype_name(o->desc.dt));
		for (uint64_t q = 0; q < nb; q++)
			buf_printf(b, "%s%u", q ? ", " : "", cb[q]);
		buf_puts(b, "]).buffer));\n");
		free(cb);
	}
	return 0;
}

/* A CPU node of round k: its constants, then its CpuOps call. */
static int
cpuround1(struct ej *e, struct node *n)
{
	struct graph *g = e->g;
	struct buf *b = e->b;
	const struct opdesc *d = op_get(n->op);
	const char **reads;
	int nr = node_reads(n, &reads), nopt = 0;

	/* the operands, then those operand-valued options name */
	for (int j = 0; j < nr; j++) {
		struct operand *o = graph_find(g, reads[j]);

		if (o && o->kind == OPND_CONST && cpuconst(e, o) != 0) {
			free(reads);
			return -1;
		}
	}
	free(reads);
	buf_puts(b, "    ");
	/* several outputs (split): an array of tensors */
	buf_puts(b, n->nout != 1 ? "[" : "");
	for (int j = 0; j < n->nout; j++) {
		buf_puts(b, j ? ", v[" : "v[");
		escape_js_string(b, n->out[j]);
		buf_puts(b, "]");
	}
	buf_printf(b, "%s = CpuOps.%s(", n->nout != 1 ? "]" : "", d->name);
	if (d->variadic)
		buf_puts(b, "[");
	for (int j = 0; j < n->nin; j++) {
		buf_puts(b, j ? ", " : "");
		buf_puts(b, "v[");
		escape_js_string(b, n->in[j]);
		buf_puts(b, "]");
	}
	buf_puts(b, d->variadic ? "], " : ", ");
	/* an operand-valued option (conv3d's bias) as the value it names */
	for (const cJSON *o = n->options ? n->options->child : NULL; o;
	    o = o->next) {
		const struct argdesc *a = op_arg(d, o->string);

		if (!a || a->type != AT_OPERAND || !cJSON_IsString(o))
			continue;
		buf_puts(b, nopt++ ? ", " : "Object.assign(");
		if (nopt == 1) {
			escape_js_value(b, n->options);
			buf_puts(b, ", {");
		}
		escape_js_key(b, o->string);
		buf_puts(b, ": v[");
		escape_js_string(b, o->valuestring);
		buf_puts(b, "]");
	}
	if (!nopt)
		escape_js_value(b, n->options);
	buf_puts(b, nopt ? "}));\n" : ");\n");
	return 0;
}

/* cpuRound: the CPU nodes of each of the nr rounds. */
static int
cpurounds(struct ej *e, int nr)
{
	struct graph *g = e->g;
	struct buf *b = e->b;

	buf_puts(b, "// The CPU nodes of round k, on the values held in JS.\n");
	if (e->atload)
		buf_puts(b, "function cpuRound(k, v, w) {\n  const c = (dataType, "
		    "shape, name) =>\n    tensor(dataType, shape, new CPU_ARRAYS["
		    "dataType](w(name).slice().buffer));\n");
	else
		buf_puts(b, "function cpuRound(k, v, bytes) {\n  const c = "
		    "(dataType, shape, offset, length) =>\n    tensor(dataType, "
		    "shape, new CPU_ARRAYS[dataType](bytes.slice(offset, offset "
		    "+ length).buffer));\n");
	buf_puts(b, "  switch (k) {\n");
	for (int k = 0; k < nr; k++) {
		buf_printf(b, "  case %d:\n", k);
		for (size_t c = 0; c < e->cpu[k].n; c++) {
			struct node *n = g->nodes[e->cpu[k].v[c]];
			int part;

			if (placed(n, &part) != 1 || part != k)
				continue;
			if (cpuround1(e, n) != 0)
				return -1;
		}
		buf_puts(b, "    break;\n");
	}
	buf_puts(b, "  }\n}\n\n");
	return 0;
}

/*
 * buildGraphs and runPartitioned, which run the nr rounds: each WebNN
 * partition on the context, then the CPU nodes of its round.
 */
static void
runparts(struct ej *e, int nr)
{
	struct graph *g = e->g;
	struct buf *b = e->b;

	buf_printf(b, "%s", ""
"// Build every partition's graph; a partition with no WebNN node (the\n"
"// CPU nodes come first) has none, as build() needs an output.\n"
"export async function buildGraphs(context, weights) {\n"
"  const graphs = [];\n"
"  for (let k = 0; k < partitions.length; k++) {\n"
"    if (Object.keys(partitions[k].outputs).length === 0) {\n"
"      graphs.push(null);\n"
"      continue;\n"
"    }\n"
"    const builder = new MLGraphBuilder(context);\n"
"    const operands = Object.create(null);\n"
"    for (const [name, d] of Object.entries(partitions[k].inputs))\n"
"      operands[name] = builder.input(name, {dataType: d.dataType, shape: d.shape});\n"
"    graphs.push(await builder.build(loadPartition(k, operands, weights, builder)));\n"
"  }\n"
"  return graphs;\n"
"}\n"
"\n"
"// Run the partitions in turn, the CPU rounds between them, on inputs\n"
"// by name (typed arrays); the outputs by name.\n"
"export async function runPartitioned(context, graphs, values, weights) {\n"
"  const v = Object.create(null), result = Object.create(null);\n");
	/* cpuRound's third argument: the bytes, or the reader at load time */
	buf_puts(b, e->atload ? "  const bytes = checkWeights(weights);\n" :
	    "  const bytes = checkWeights(weights) || new Uint8Array(0);\n");
	buf_printf(b, "%s", ""
"  for (const [name, d] of Object.entries(inputs))\n"
"    v[name] = tensor(d.dataType, d.shape, value(values, name));\n");
	buf_printf(b, "  for (let k = 0; k < %d; k++) {\n", nr);
	buf_printf(b, "%s", ""
"    if (k < graphs.length && graphs[k] !== null) {\n"
"      const ins = Object.create(null), outs = Object.create(null);\n"
"      for (const [name, d] of Object.entries(partitions[k].inputs)) {\n"
"        ins[name] = await context.createTensor({dataType: d.dataType, shape: d.shape, writable: true});\n"
"        context.writeTensor(ins[name], v[name].data);\n"
"      }\n"
"      for (const [name, d] of Object.entries(partitions[k].outputs))\n"
"        outs[name] = await context.createTensor({dataType: d.dataType, shape: d.shape, readable: true});\n"
"      context.dispatch(graphs[k], ins, outs);\n"
"      for (const [name, d] of Object.entries(partitions[k].outputs))\n"
"        v[name] = tensor(d.dataType, d.shape, new CPU_ARRAYS[d.dataType](await context.readTensor(outs[name])));\n"
"    }\n"
"    cpuRound(k, v, bytes);\n"
"  }\n");
	buf_puts(b, "  const refs = {");
	for (size_t i = 0; i < g->noutputs; i++) {
		buf_puts(b, i ? ", " : "");
		escape_js_key(b, g->outputs[i].name);
		buf_puts(b, ": ");
		escape_js_string(b, g->outputs[i].ref);
	}
	buf_puts(b, "};\n  for (const [name, ref] of Object.entries(refs)) "
	    "result[name] = v[ref].data;\n  return result;\n}\n");
}

/* The WebNN partitions and the CPU rounds between them. */
static int
emitparts(struct ej *e, const size_t *order)
{
	int np = 0, nr = 0;

	if (countparts(e, &np, &nr) != 0)
		return -1;
	bucketparts(e, order, np, nr);
	if (loadparts(e, order, np) != 0 || cpurounds(e, nr) != 0)
		return -1;
	runparts(e, nr);
	return 0;
}

/*
 * Whether name, read as a URL as a browser or node reads it (leading
 * spaces and controls dropped, tabs and line ends removed), starts with
 * a scheme: letter, then letters, digits, '+', '-' or '.', then ':'.
 */
static int
hasscheme(const char *name)
{
	const unsigned char *p = (const unsigned char *)name;
	int n = 0;

	while (*p && *p <= 0x20)
		p++;
	for (; *p; p++) {
		if (*p == '\t' || *p == '\n' || *p == '\r')
			continue;
		if (*p == ':')
			return n > 0;
		if (!(isalpha(*p) || (n > 0 && (isdigit(*p) || *p == '+' ||
		    *p == '-' || *p == '.'))))
			return 0;
		n++;
	}
	return 0;
}

/*
 * The weights file's name, which the module fetches beside itself: a
 * file name (graph_load saw a regular file), not one that a URL parser
 * reads as another place, with a scheme (data:, http:, javascript:...).
 */
static int
weightsname(const struct graph *g)
{
	const char *base;

	if (!g->weights_file)
		return 0;
	base = path_basename(g->weights_file);
	if (hasscheme(base)) {
		error("%s: weights file name \"%s\" reads as a URL with a "
		    "scheme: the module fetches its weights beside itself, by "
		    "a plain file name", g->src, escape_tty_name(base));
		return -1;
	}
	return 0;
}

/* The manifest and the weights file's size, for verifyWeights. */
static int
loadmanifest(struct ej *e)
{
	struct graph *g = e->g;
	struct stat st;

	if (manifest_load(g->manifest_file, &e->man) != 0)
		return -1;
	e->haveman = 1;
	if (!g->weights_file || stat(g->weights_file, &st) != 0) {
		error("%s: %s: %s", g->src, g->weights_file ?
		    g->weights_file : "weights file", strerror(errno));
		return -1;
	}
	e->wbytes = (unsigned long long)st.st_size;
	return 0;
}

/* Refuses what nnl-fuse leaves for the C kernels: it has no builder call. */
static int
unfused(struct graph *g)
{
	for (size_t i = 0; i < g->nnodes; i++) {
		static const char *const fused[] = { "winograd", "panels",
		    "activation", "residual", "bias", "transposeA",
		    "transposeB" };
		struct node *n = g->nodes[i];
		const char *f = NULL;

		for (size_t k = 0; k < sizeof fused / sizeof *fused && !f;
		    k++)
			if (cJSON_GetObjectItemCaseSensitive(n->extra,
			    fused[k]))
				f = fused[k];
		if (f) {
			struct srcloc l = graph_loc(g, n->pos);

			error_at(&l, "node \"%s\": field \"%s\" (from "
			    "nnl-fuse, for the C back end) has no WebNN form: "
			    "emit JavaScript from the graph before nnl-fuse",
			    escape_tty_name(n->id), f);
			return -1;
		}
	}
	return 0;
}

/* loadModelGraph's input operands: operand_input, or one of it by name. */
static void
graphinputs(struct ej *e)
{
	struct graph *g = e->g;

	for (size_t i = 0; i < g->ninputs; i++) {
		const char *id = ident(e, g->inputs[i]->name);

		if (g->ninputs == 1)
			buf_printf(e->b, "  const %s = operand_input;\n", id);
		else {
			buf_printf(e->b, "  const %s = operand_input[", id);
			escape_js_string(e->b, g->inputs[i]->name);
			buf_puts(e->b, "];\n");
		}
	}
}

/* loadModelGraph's return: the output, or an object of them by name. */
static void
graphoutputs(struct ej *e)
{
	struct graph *g = e->g;

	if (g->noutputs == 1) {
		buf_printf(e->b, "  return %s;\n}\n",
		    ident(e, g->outputs[0].ref));
	} else {
		buf_puts(e->b, "  return {");
		for (size_t i = 0; i < g->noutputs; i++) {
			buf_puts(e->b, i ? ", " : "");
			escape_js_key(e->b, g->outputs[i].name);
			buf_printf(e->b, ": %s", ident(e, g->outputs[i].ref));
		}
		buf_puts(e->b, "};\n}\n");
	}
}

/* Frees what e holds (not its buffer). */
static void
ej_free(struct ej *e)
{
	if (e->haveman)
		manifest_free(&e->man);
	for (size_t i = 0; i < e->ids.cap; i++)
		if (e->ids.v[i].key) {
			free((char *)e->ids.v[i].key);
			free(e->ids.v[i].val);
		}
	strtab_free(&e->ids);
	strtab_free(&e->nextk);
	strtab_free(&e->cpureads);
	for (size_t i = 0; i < e->nweb; i++)
		free(e->web[i].v);
	for (size_t i = 0; i < e->ncpu; i++)
		free(e->cpu[i].v);
	free(e->web);
	free(e->cpu);
	uses_free(&e->u);
	strtab_free(&e->used);
}

/* The first of nnl's extended types (float64, int16, uint16, bfloat16)
 * among n's operands, or DT_NONE: no WebNN context takes them. */
static enum dtype
extended(struct graph *g, const struct node *n)
{
	for (int i = 0; i < n->nin; i++) {
		const struct tdesc *t = operand_type(graph_find(g, n->in[i]));

		if (t && dtype_extended(t->dt))
			return t->dt;
	}
	for (int k = 0; n->types && k < n->nout; k++)
		if (dtype_extended(n->types[k].dt))
			return n->types[k].dt;
	return DT_NONE;
}

/* The first operand of n with no elements, or NULL: WebNN holds no
 * empty tensor (nnl-graph(5), Empty tensors). */
static const char *
emptyopnd(struct graph *g, const struct node *n)
{
	for (int i = 0; i < n->nin; i++) {
		const struct tdesc *t = operand_type(graph_find(g, n->in[i]));

		if (t && t->rank > 0 && tdesc_numel(t) == 0)
			return n->in[i];
	}
	for (int k = 0; n->types && k < n->nout; k++)
		if (n->types[k].rank > 0 && tdesc_numel(&n->types[k]) == 0)
			return n->out[k];
	return NULL;
}

int
emitjs(struct graph *g, int flags, char **out)
{
	struct ej e;
	struct buf b = { 0 };
	size_t *order = xmalloc((g->nnodes + 1) * sizeof *order);
	int rc = -1;

	memset(&e, 0, sizeof e);
	e.g = g;
	e.b = &b;
	e.polyfill = (flags & EMITJS_POLYFILL) != 0;
	e.atload = (flags & EMITJS_ATLOAD) != 0;
	/* at load time: the weights the graph names play no part */
	if (!e.atload && weightsname(g) != 0)
		goto out;
	if (g->manifest_file && !e.atload && loadmanifest(&e) != 0)
		goto out;
	if (graph_toposort(g, order) != g->nnodes) {
		error("%s: the graph has a cycle: run nnl-reorder", g->src);
		goto out;
	}
	for (size_t i = 0; i < g->nnodes; i++) {
		const struct opdesc *d = op_get(g->nodes[i]->op);
		enum dtype x = extended(g, g->nodes[i]);
		const char *z = emptyopnd(g, g->nodes[i]);
		int part;

		if (d && x != DT_NONE && placed(g->nodes[i], &part) != 1) {
			error("%s: node \"%s\" (%s) is on %s, nnl's type "
			    "beyond WebNN: no MLGraphBuilder method takes it; "
			    "place it on the CPU with nnl-cpu-partition",
			    g->src, escape_tty_name(g->nodes[i]->id), d->name,
			    dtype_name(x));
			goto out;
		}
		if (d && z && placed(g->nodes[i], &part) != 1) {
			error("%s: node \"%s\" (%s) reads or makes the empty "
			    "tensor \"%s\", which WebNN refuses; place it on "
			    "the CPU with nnl-cpu-partition", g->src,
			    escape_tty_name(g->nodes[i]->id), d->name,
			    escape_tty_name(z));
			goto out;
		}
		if (!d || !d->nnl)
			continue;
		if (placed(g->nodes[i], &part) != 1) {
			error("%s: node \"%s\" (%s) is nnl's, beyond WebNN: "
			    "no MLGraphBuilder method computes it; place it "
			    "on the CPU with nnl-cpu-partition", g->src,
			    escape_tty_name(g->nodes[i]->id), d->name);
			goto out;
		}
	}
	prologue(&e);
	buf_puts(&b, helpers);
	if (!e.atload)
		buf_puts(&b, baked);
	buf_puts(&b, helpers2);
	if (e.polyfill)
		emitjs_polyfill(&b);
	buf_puts(&b, "// ---- XXH3-64, for verifyWeights ----\n");
	buf_puts(&b, nnl_xxh3js);
	buf_puts(&b, "\n");
	buf_puts(&b, "// The graph, as OnnxConverter's generated code has it: "
	    "operand_input is\n// the input operand (an object of them by "
	    "name when there are several),\n// weights_buffer the weights "
	    "file's ArrayBuffer.\nexport function loadModelGraph(operand_"
	    "input, weights_buffer, builder) {\n");
	if (e.polyfill)
		buf_puts(&b, "  InstallCpuOps(builder);\n");
	weightsreader(&e);
	graphinputs(&e);
	if (unfused(g) != 0)
		goto out;
	for (size_t i = 0; i < g->nconsts; i++)
		if (constant(&e, g->consts[i]) != 0)
			goto out;
	for (size_t i = 0; i < g->nnodes; i++)
		if (node(&e, g->nodes[order[i]]) != 0)
			goto out;
	graphoutputs(&e);
	for (size_t i = 0; i < g->nnodes; i++) {
		int part;

		if (!e.polyfill && placed(g->nodes[i], &part) == 1) {
			if (emitparts(&e, order) != 0)
				goto out;
			break;
		}
	}
	*out = b.s;
	b.s = NULL;
	rc = 0;
out:
	ej_free(&e);
	free(order);
	free(b.s);
	return rc;
}
