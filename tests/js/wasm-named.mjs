// wasm-named: run an nnl-emit-js --wasm module's model in node through
// load({backend: "wasm"}).run(), its inputs given by name, never by
// position, and write output K of the list OUTS.json names (the graph's
// declared order, as its author reads it) to DIR/K.npy.  Exit 3 when
// an output named is missing or has the wrong element count, so that a
// glue that packs or unpacks by the wrong order cannot pass unseen.
// Usage: node wasm-named.mjs MODULE.js DIR OUTS.json NAME=FILE.npy...
import { mkdirSync, readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { resolve } from "node:path";
import { npyRead, npyWrite } from "./npy.mjs";

const [module, dir, outs, ...args] = process.argv.slice(2);
if (!outs) {
  console.error("usage: node wasm-named.mjs MODULE.js DIR OUTS.json " +
    "NAME=FILE.npy...");
  process.exit(2);
}
const m = await import(pathToFileURL(resolve(module)).href);
const model = await m.load({backend: "wasm"});
const values = Object.create(null);
for (const a of args) {
  const i = a.lastIndexOf("=");
  values[a.slice(0, i)] = npyRead(a.slice(i + 1)).data;
}
const out = await model.run(values);
mkdirSync(dir, {recursive: true});
JSON.parse(readFileSync(outs, "utf8")).forEach((name, k) => {
  const d = m.outputs[name], o = out[name];
  const n = d && d.shape.reduce((x, y) => x * y, 1);
  if (!o || o.length !== n) {
    console.error(`wasm-named: output ${JSON.stringify(name)}: ` +
      `${o ? o.length : "none"} elements, want ${n}`);
    process.exit(3);
  }
  npyWrite(`${dir}/${k}.npy`, {dataType: d.dataType, shape: d.shape, data: o});
});
