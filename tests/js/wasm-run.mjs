// wasm-run: load an nnl-emit-js --wasm module in node, run its model on
// .npy inputs through load().run(), and write the outputs as .npy files.
// Prints the backend load() chose and why, and the mean and the best
// time of a run over RUNS runs after one warm-up (for make bench-wasm).
// Usage: node wasm-run.mjs MODULE.js OUTPREFIX [RUNS] INPUT.npy...
// (one .npy per input, in the model's order, wasmInputOrder; each output is
// written to OUTPREFIX.NAME.npy, NAME escaped to [A-Za-z0-9_.-], and
// all of them packed in order to OUTPREFIX.bin, as a native program
// writes them; the inputs packed likewise to OUTPREFIX.in.bin, as a
// native program reads them).
import { writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { resolve } from "node:path";
import { npyRead, npyWrite } from "./npy.mjs";

const [module, prefix, runsArg, ...npys] = process.argv.slice(2);
if (!npys.length) {
  console.error("usage: node wasm-run.mjs MODULE.js OUTPREFIX RUNS INPUT.npy...");
  process.exit(2);
}
const m = await import(pathToFileURL(resolve(module)).href);
const model = await m.load();
console.log(`backend: ${model.backend}${model.reason ? ` (${model.reason})` : ""}`);
const names = m.wasmInputOrder;
if (names.length !== npys.length)
  throw new Error(`the model has ${names.length} inputs, given ${npys.length}`);
const values = Object.create(null);
names.forEach((n, i) => { values[n] = npyRead(npys[i]).data; });
writeFileSync(`${prefix}.in.bin`, Buffer.concat(names.map((n) =>
  Buffer.from(values[n].buffer, values[n].byteOffset, values[n].byteLength))));
let out = await model.run(values);
const runs = Number(runsArg);
if (runs > 0) {
  let sum = 0, best = Infinity;
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    out = await model.run(values);
    const t = performance.now() - t0;
    sum += t;
    best = Math.min(best, t);
  }
  console.log(`time: ${(sum / runs).toFixed(3)} ms per run, best ${best.toFixed(3)} ms`);
}
const packed = [];
for (const name of m.wasmOutputOrder) {
  const d = m.outputs[name];
  packed.push(Buffer.from(out[name].buffer, out[name].byteOffset, out[name].byteLength));
  npyWrite(`${prefix}.${name.replace(/[^A-Za-z0-9_.-]/g, "_")}.npy`,
    {dataType: d.dataType, shape: d.shape, data: out[name]});
}
writeFileSync(`${prefix}.bin`, Buffer.concat(packed));
