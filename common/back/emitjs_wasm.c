/*
 * emitjs_wasm: load(), one way to run an emitted module's model: WebNN
 * when navigator.ml gives a context and builds the graph, else the
 * model's WebAssembly build (nnc compile --emit wasm) through
 * common/rt/js/wasm.mjs, pasted in.
 */
#include "emitjs_wasm.h"
#include "escape.h"

extern const char nnl_wasmjs[];	/* common/rt/js/wasm.mjs */

static const char load[] =
"\n"
"// Load the model where it can run, behind one run() call: through\n"
"// WebNN when navigator.ml creates a context and builds the graph, else\n"
"// through its WebAssembly build.  options: {backend: \"webnn\" or \"wasm\"\n"
"// to insist on one, context: createContext's options, weights: the\n"
"// weights file's ArrayBuffer or URL, verify: check every tensor's\n"
"// checksum too, wasm: the module's URL, bytes or WebAssembly.Module}.  Resolves to {backend, reason (why WebNN was not\n"
"// used, or null), run(values) -> outputs by name}.\n"
"export async function load(options = {}) {\n"
"  let reason = null;\n"
"  if (options.backend !== \"wasm\") {\n"
"    try {\n"
"      const context = await createContext(options.context || {});\n"
"      const weights = options.weights instanceof ArrayBuffer || ArrayBuffer.isView(options.weights) ?\n"
"        options.weights : await wasmFetchBytes(options.weights || new URL(encodeURIComponent(weightsFile.name), import.meta.url));\n"
"      if (options.verify) verifyWeights(weights); else checkWeights(weights);\n"
"      if (typeof runPartitioned === \"function\") {\n"
"        const graphs = await buildGraphs(context, weights);\n"
"        return {backend: \"webnn\", reason,\n"
"          run: (values) => runPartitioned(context, graphs, values, weights)};\n"
"      }\n"
"      const graph = await buildGraph(context, weights);\n"
"      return {backend: \"webnn\", reason, run: (values) => run(context, graph, values)};\n"
"    } catch (err) {\n"
"      if (options.backend === \"webnn\") throw err;\n"
"      reason = err.message;\n"
"    }\n"
"  }\n"
"  const w = await wasmInstantiate(options.wasm || new URL(wasmModule, import.meta.url));\n"
"  return {backend: \"wasm\", reason, run: async (values) => wasmRun(w, inputs, wasmInputOrder, outputs, wasmOutputOrder, values)};\n"
"}\n";

/* export const NAME = [the names, in the graph's order]; */
static void
order(struct buf *b, const char *name, struct graph *g, int outputs)
{
	size_t n = outputs ? g->noutputs : g->ninputs;

	buf_printf(b, "export const %s = [", name);
	for (size_t i = 0; i < n; i++) {
		buf_puts(b, i ? ",\n  " : "\n  ");
		escape_js_string(b, outputs ? g->outputs[i].name :
		    g->inputs[i]->name);
	}
	buf_puts(b, n ? "\n];\n" : "];\n");
}

void
emitjs_wasm(struct buf *b, struct graph *g, const char *module)
{
	buf_puts(b, "\n// ---- WebAssembly, where WebNN is missing "
	    "(common/rt/js/wasm.mjs) ----\n");
	buf_puts(b, nnl_wasmjs);
	buf_puts(b, "\n// The model's WebAssembly build (nnc compile --emit "
	    "wasm), relative to this\n// module.\nexport const wasmModule = ");
	escape_js_string(b, module);
	buf_puts(b, ";\n\n// The inputs and outputs in the order the module "
	    "packs them: the graph's,\n// not the tables' key order.\n");
	order(b, "wasmInputOrder", g, 0);
	order(b, "wasmOutputOrder", g, 1);
	buf_puts(b, load);
}
