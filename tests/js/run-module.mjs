// run-module: import an nnl-emit-js module in node against the WebIDL
// stub, build its graph with buildGraph() and run it with run(); the
// stub's dispatch() executes the graph the module built through the C
// back end (nnl-shape-infer for the output types, nnc compile, the
// program on raw bytes).  Prints one JSON object: the keys of the
// module's inputs and outputs tables, in order, and run()'s result by
// name.  For float32 models.
// Usage: node run-module.mjs BIN MODULE.js VALUES.json [WEIGHTS [MANIFEST]]
// VALUES.json: {"input name": [numbers], ...}
// With a manifest (for a module nnl-emit-js --weights-at-load wrote),
// the weights are the module's loadWeights(WEIGHTS, MANIFEST), the
// paths as given.
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { pathToFileURL } from "node:url";
import { createStub } from "./webnn-stub.mjs";

const [bin, module, valuesFile, weights, manifest] = process.argv.slice(2);
if (!valuesFile) {
  console.error("usage: node run-module.mjs BIN MODULE.js VALUES.json [WEIGHTS [MANIFEST]]");
  process.exit(2);
}
const tmp = mkdtempSync(join(tmpdir(), "nnl-run-module-"));

function sh(cmd, args, input) {
  const p = spawnSync(cmd, args, { input, maxBuffer: 1 << 30 });
  if (p.status !== 0) throw new Error(`${cmd}: ${p.stderr}`);
  return p.stdout;
}

// The graph g (webnn-graph JSON) on the inputs by name, through C.
function run(g, vals) {
  const gj = join(tmp, "g.json"), exe = join(tmp, "g");
  writeFileSync(gj, JSON.stringify(g));
  const typed = JSON.parse(sh(join(bin, "nnl-shape-infer"), [gj]).toString());
  sh(join(bin, "nnc"), ["compile", "-o", exe, gj]);
  const input = Buffer.concat(Object.keys(g.inputs).map((k) =>
    Buffer.from(vals[k].data.buffer, vals[k].data.byteOffset, vals[k].data.byteLength)));
  const out = sh(exe, [], input);
  const types = new Map();
  for (const n of typed.nodes)
    (n.outputs ?? [n.id]).forEach((o, i) => types.set(o, n.types[i]));
  const res = Object.create(null);
  let off = 0;
  for (const [name, ref] of Object.entries(g.outputs)) {
    const t = types.get(ref) ?? g.inputs[ref];
    if (t.dataType !== "float32") throw new Error(`${ref}: not float32`);
    const n = t.shape.reduce((a, b) => a * b, 1);
    res[name] = { data: new Float32Array(out.buffer.slice(out.byteOffset + off,
      out.byteOffset + off + 4 * n)) };
    off += 4 * n;
  }
  if (off !== out.length) throw new Error(`${out.length} bytes of output, expected ${off}`);
  return res;
}

try {
  const stub = createStub({ run });
  globalThis.MLGraphBuilder = stub.MLGraphBuilder;
  const m = await import(pathToFileURL(module).href);
  const given = JSON.parse(readFileSync(valuesFile, "utf8"));
  const values = Object.create(null);
  for (const [k, v] of Object.entries(given)) values[k] = Float32Array.from(v);
  const w = weights ? readFileSync(weights) : Buffer.alloc(0);
  const graph = await m.buildGraph(stub.context, manifest ?
    await m.loadWeights(weights, manifest) :
    w.buffer.slice(w.byteOffset, w.byteOffset + w.byteLength));
  const result = await m.run(stub.context, graph, values);
  const r = {};
  for (const [k, v] of Object.entries(result))
    Object.defineProperty(r, k, { value: Array.from(v), enumerable: true });
  process.stdout.write(JSON.stringify({ inputs: Object.keys(m.inputs),
    outputs: Object.keys(m.outputs), result: r }) + "\n");
} catch (e) {
  console.error(`run-module: ${module}: ${e.stack}`);
  process.exit(1);
}
