// record: run an nnl-emit-js module's buildGraph() against the WebIDL
// stub and print the graph it built as webnn-graph JSON.
// Usage: node record.mjs MODULE.js [WEIGHTS-FILE]
// Exit 1 with the stub's TypeError when a call does not match the IDL.
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { createStub } from "./webnn-stub.mjs";

const [module, weights] = process.argv.slice(2);
if (!module) {
  console.error("usage: node record.mjs MODULE.js [WEIGHTS-FILE]");
  process.exit(2);
}
const stub = createStub();
globalThis.MLGraphBuilder = stub.MLGraphBuilder;
try {
  const m = await import(pathToFileURL(module).href);
  const buf = weights ? readFileSync(weights) : new ArrayBuffer(0);
  const ab = buf.buffer ? buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength) : buf;
  await m.buildGraph(stub.context, ab);
  process.stdout.write(JSON.stringify(stub.graph()) + "\n");
} catch (e) {
  console.error(`record: ${module}: ${e.message}`);
  process.exit(1);
}
