// ort-timer: times a model in ONNX Runtime's CPU provider, in process,
// for bench/ort.py; the same protocol as nnl-timer.c:
//   node ort-timer.mjs MODEL.onnx IN.bin OUT.bin THREADS SHAPE
// (SHAPE: the input's dimensions joined by commas), then commands on
// standard input: "run K" prints K times in milliseconds, "rss" the
// peak resident set size (VmHWM) in kilobytes.
import { createRequire } from 'node:module';
import { readFileSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

const require = createRequire(process.env.NNL_ORT_DIR + '/');
const ort = require('onnxruntime-node');
const [model, inPath, outPath, threads, shape] = process.argv.slice(2);
const n = Number(threads);
const session = await ort.InferenceSession.create(model, {
  executionProviders: ['cpu'],
  intraOpNumThreads: n,
  interOpNumThreads: 1,
  executionMode: 'sequential',
  graphOptimizationLevel: 'all',
});
const buf = readFileSync(inPath);
const data = new Float32Array(buf.buffer, buf.byteOffset, buf.length / 4);
const dims = shape.split(',').map(Number);
const feeds = { [session.inputNames[0]]: new ort.Tensor('float32', data, dims) };
let r = await session.run(feeds);
const y = r[session.outputNames[0]].data;
writeFileSync(outPath, Buffer.from(y.buffer, y.byteOffset, y.byteLength));
process.stdout.write('ready\n');
const rl = createInterface({ input: process.stdin });
for await (const line of rl) {
  const m = /^run (\d+)/.exec(line);
  if (m) {
    const t = [];
    for (let i = 0; i < Number(m[1]); i++) {
      const t0 = process.hrtime.bigint();
      r = await session.run(feeds);
      t.push((Number(process.hrtime.bigint() - t0) / 1e6).toFixed(4));
    }
    process.stdout.write(t.join(' ') + '\n');
  } else if (line.startsWith('rss')) {
    const hwm = /VmHWM:\s*(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'));
    process.stdout.write((hwm ? hwm[1] : '-1') + '\n');
  } else break;
}
process.exit(0);
