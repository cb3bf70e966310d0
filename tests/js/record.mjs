// record: run an nnl-emit-js module's buildGraph() against the WebIDL
// stub and print the graph it built as webnn-graph JSON.
// Usage: node record.mjs MODULE.js [WEIGHTS-FILE [MANIFEST]]
// With a manifest, a constant whose bytes are exactly one tensor of the
// weights file refers to it (so a wrong offset cannot go unseen), and
// the graph names the pair; other constants are written inline.
// Exit 1 with the stub's TypeError when a call does not match the IDL.
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { createStub } from "./webnn-stub.mjs";

const [module, weights, manifest] = process.argv.slice(2);
if (!module) {
  console.error("usage: node record.mjs MODULE.js [WEIGHTS-FILE [MANIFEST]]");
  process.exit(2);
}
try {
  const buf = weights ? readFileSync(weights) : Buffer.alloc(0);
  const ab = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength);
  const tensors = manifest ? JSON.parse(readFileSync(manifest, "utf8")).tensors : {};
  const byOffset = new Map(Object.entries(tensors).map(([k, t]) =>
    [`${t.byteOffset}:${t.byteLength}`, k]));
  const stub = createStub({ weightsRef: (view) => {
    if (!manifest || view.buffer !== ab) return null;
    const key = byOffset.get(`${view.byteOffset}:${view.byteLength}`);
    if (!key) throw new Error(`a constant at bytes ${view.byteOffset}+${view.byteLength} of the weights file is no tensor of ${manifest}`);
    return key;
  } });
  globalThis.MLGraphBuilder = stub.MLGraphBuilder;
  const m = await import(pathToFileURL(module).href);
  await m.buildGraph(stub.context, ab);
  const g = stub.graph();
  if (manifest) g.weights = { file: resolve(weights), manifest: resolve(manifest) };
  process.stdout.write(JSON.stringify(g) + "\n");
} catch (e) {
  console.error(`record: ${module}: ${e.message}`);
  process.exit(1);
}
