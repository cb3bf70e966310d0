/*
 * emitjs_wasm: the part of an emitted ES module that runs the model
 * through its WebAssembly build where WebNN is missing (nnl-emit-js
 * --wasm).
 */
#ifndef NNL_EMITJS_WASM_H
#define NNL_EMITJS_WASM_H

#include "graph.h"

/*
 * Append to b, after emitjs's module: common/rt/js/wasm.mjs, wasmModule
 * (module, a URL relative to the emitted module), wasmInputOrder and
 * wasmOutputOrder (g's input and output names in its order, the order
 * the module packs them), and load(options) -> {backend, reason,
 * run(values)}.
 */
void emitjs_wasm(struct buf *b, struct graph *g, const char *module);

#endif
