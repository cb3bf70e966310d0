// wasm-select: which way an nnl-emit-js --wasm module's load() runs its
// model.  With a navigator.ml whose context is the WebIDL stub (its
// dispatch() answers every output with 7s), load() builds the graph
// through WebNN and run() dispatches it; with a createContext that
// throws, load() runs the WebAssembly build and says why.  Prints one
// line per case: the backend, the reason, the first output value and
// the nodes of the graphs dispatched.
// Usage: node wasm-select.mjs MODULE.js INPUT.npy
import { pathToFileURL } from "node:url";
import { resolve } from "node:path";
import { createStub } from "./webnn-stub.mjs";
import { npyRead } from "./npy.mjs";

const [module, npy] = process.argv.slice(2);
let dispatched = 0;
const sevens = (g, vals) => {
  dispatched += g.nodes.length;
  const res = Object.create(null);
  for (const [name, d] of Object.entries(m.outputs))
    res[name] = {data: new Float32Array(d.shape.reduce((a, b) => a * b, 1)).fill(7)};
  return res;
};
const stub = createStub({run: sevens});
globalThis.MLGraphBuilder = stub.MLGraphBuilder;
const m = await import(pathToFileURL(resolve(module)).href);
const values = {[Object.keys(m.inputs)[0]]: npyRead(npy).data};
const cases = [
  ["webnn", {createContext: async () => stub.context}],
  ["no context", {createContext: async () => { throw new Error("no adapter"); }}],
];
for (const [what, ml] of cases) {
  Object.defineProperty(globalThis, "navigator", {value: {ml}, configurable: true, writable: true});
  dispatched = 0;
  const model = await m.load();
  const out = await model.run(values);
  console.log(`${what}: ${model.backend}; ${model.reason}; ${out[Object.keys(m.outputs)[0]][0]}; ${dispatched} nodes dispatched`);
}
