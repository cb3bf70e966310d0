// run-partitioned: run an nnl-emit-js module's partitions for real in
// node: each WebNN partition is built against the WebIDL stub and its
// recorded graph executed by nnl-run (nnl's C kernels), the CPU rounds
// between them by CpuOps.  Writes each output as OUT-DIR/NAME.npy.
// Usage: node run-partitioned.mjs BIN MODULE.js OUT-DIR WEIGHTS MANIFEST
//            [NAME=FILE.npy ...]   (WEIGHTS and MANIFEST "-" for none)
// A module nnl-emit-js --weights-at-load wrote (it exports weightsNeeded)
// is given loadWeights(WEIGHTS, MANIFEST), its bytes and the manifest
// object; others the weights file's bytes.
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { spawnSync } from "node:child_process";
import { pathToFileURL } from "node:url";
import { createStub } from "./webnn-stub.mjs";
import { npyRead, npyWrite } from "./npy.mjs";

const [bin, module, outdir, weights, manifest, ...pairs] = process.argv.slice(2);
if (manifest === undefined) {   // (a graph may have no inputs)
  console.error("usage: node run-partitioned.mjs BIN MODULE.js OUT-DIR WEIGHTS MANIFEST [NAME=FILE.npy ...]");
  process.exit(2);
}
const tmp = mkdtempSync(join(tmpdir(), "nnl-parts-"));
let runs = 0;
// "-" for a graph without weights
const buf = weights === "-" ? Buffer.alloc(0) : readFileSync(weights);
const ab = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength);
const tensors = manifest === "-" ? {} : JSON.parse(readFileSync(manifest, "utf8")).tensors;
const byOffset = new Map(Object.entries(tensors).map(([k, t]) => [`${t.byteOffset}:${t.byteLength}`, k]));

// a partition's graph through nnl-run
function run(g, inputs) {
  const d = join(tmp, `p${runs++}`);
  if (weights !== "-")
    g = { ...g, weights: { file: resolve(weights), manifest: resolve(manifest) } };
  spawnSync("mkdir", ["-p", d]);
  writeFileSync(join(d, "g.json"), JSON.stringify(g));
  const args = ["-d", d, join(d, "g.json")];
  for (const [k, t] of Object.entries(inputs)) {
    npyWrite(join(d, `in-${Object.keys(inputs).indexOf(k)}.npy`), t);
    args.push(`${k}=${join(d, `in-${Object.keys(inputs).indexOf(k)}.npy`)}`);
  }
  const p = spawnSync(join(bin, "nnl-run"), args, { encoding: "utf8" });
  if (p.status !== 0) throw new Error(`nnl-run: ${p.stderr}`);
  const out = {};
  for (const line of p.stdout.trim().split("\n")) {
    const parts = line.split(" "), name = parts[0], file = parts[parts.length - 1];
    out[name] = npyRead(file);
  }
  return out;
}

try {
  const stub = createStub({ run, weightsRef: (view) => view.buffer === ab ?
    byOffset.get(`${view.byteOffset}:${view.byteLength}`) ?? null : null });
  globalThis.MLGraphBuilder = stub.MLGraphBuilder;
  const m = await import(pathToFileURL(module).href);
  const values = {};
  for (const p of pairs) {
    const [name, file] = p.split("=");
    values[name] = npyRead(file).data;
  }
  const wts = m.weightsNeeded && manifest !== "-" ?
    await m.loadWeights(ab, JSON.parse(readFileSync(manifest, "utf8"))) : ab;
  const graphs = await m.buildGraphs(stub.context, wts);
  const result = await m.runPartitioned(stub.context, graphs, values, wts);
  for (const [name, data] of Object.entries(result))
    npyWrite(join(outdir, `${name}.npy`), { dataType: m.outputs[name].dataType,
      shape: m.outputs[name].shape, data });
  console.log(`${graphs.filter((g) => g !== null).length} WebNN partitions, ${runs} dispatches`);
} catch (e) {
  console.error(`run-partitioned: ${e.stack}`);
  process.exit(1);
}
