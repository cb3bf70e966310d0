/*
 * emitjs_load: the weights half of a module nnl-emit-js
 * --weights-at-load writes from the graph alone: weightsNeeded (each
 * constant's manifest tensor, data type and shape), the runtime of
 * common/rt/js/weights.mjs pasted in, and checkWeights(), verifyWeights()
 * and loadWeights() on it, so that the weights file and its manifest
 * are chosen when the module loads and one graph serves several.
 */
#include "emitjs.h"
#include "escape.h"

extern const char nnl_weightsjs[];	/* common/rt/js/weights.mjs */

static const char glue[] =
"\n"
"// Check weights (a WeightsFile, or an object of its shape: {buffer,\n"
"// manifest} or {buffer, getSlice}) against weightsNeeded before a\n"
"// constant is read: every tensor in the manifest with the graph's data\n"
"// type and shape, inside the file.  Returns w(name), the bytes of\n"
"// constant name.\n"
"export function checkWeights(weights) {\n"
"  return weightsBind(weights, weightsNeeded);\n"
"}\n"
"\n"
"// checkWeights, and each constant's bytes against the checksum the\n"
"// manifest gives its tensor.\n"
"export function verifyWeights(weights) {\n"
"  return weightsVerify(weights, weightsNeeded, xxh3);\n"
"}\n"
"\n"
"// The weights file and its manifest to read the constants from: each a\n"
"// URL, a path or an ArrayBuffer (the manifest may be its parsed object),\n"
"// or a WeightsFile alone.  Checked against the graph, and every\n"
"// constant's checksum too unless verify is false; resolves to the\n"
"// WeightsFile that buildGraph() takes.\n"
"export async function loadWeights(weights, manifest, verify = true) {\n"
"  const whole = weights !== null && typeof weights === \"object\" &&\n"
"    !(weights instanceof URL) && !ArrayBuffer.isView(weights) &&\n"
"    \"buffer\" in weights;\n"
"  if (weights === undefined)\n"
"    throw new TypeError(\"loadWeights: no weights file given: \" +\n"
"      \"this module (nnl-emit-js --weights-at-load) takes its \" +\n"
"      \"weights file and manifest when it loads\");\n"
"  if (manifest === undefined && !whole)\n"
"    throw new TypeError(\"loadWeights: no manifest given with \" +\n"
"      \"the weights file\");\n"
"  const f = manifest === undefined ? weights :\n"
"    await WeightsFile.load(weights, manifest);\n"
"  if (verify) verifyWeights(f); else checkWeights(f);\n"
"  return f;\n"
"}\n"
"\n";

void
emitjs_load(struct buf *b, struct graph *g)
{
	size_t n = 0;

	buf_puts(b, "// The constants read from the weights file, by name: the "
	    "manifest tensor\n// each is, with the data type and shape the "
	    "graph gives it.\nexport const weightsNeeded = {__proto__: null");
	for (size_t i = 0; i < g->nconsts; i++) {
		struct operand *c = g->consts[i];

		if (c->init != INIT_WEIGHTS)
			continue;
		buf_puts(b, ",\n  ");
		n++;
		escape_js_key(b, c->name);
		buf_puts(b, ": {tensor: ");
		escape_js_string(b, c->ref);
		buf_printf(b, ", dataType: \"%s\", shape: [",
		    dtype_name(c->desc.dt));
		for (int q = 0; q < c->desc.rank; q++)
			buf_printf(b, "%s%lld", q ? ", " : "",
			    (long long)c->desc.dims[q]);
		buf_puts(b, "]}");
	}
	buf_puts(b, n ? "\n};\n\n" : "};\n\n");
	buf_puts(b, "// ---- weights chosen at load time (common/rt/"
	    "js/weights.mjs) ----\n");
	buf_puts(b, nnl_weightsjs);
	buf_puts(b, glue);
}
