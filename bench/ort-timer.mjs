// ort-timer: times a model in ONNX Runtime's CPU provider, in process,
// for bench/ort.py; the same protocol as nnl-timer.c:
//   node ort-timer.mjs MODEL.onnx IN.bin OUT.bin THREADS INPUTS
// INPUTS: the model's inputs as JSON, [{"name", "dtype", "shape"}, ...],
// whose data IN.bin holds packed one after another in that order (raw
// little-endian; dtype float32, int64, int32 or bool); the first
// output is written to OUT.bin.  Then commands on standard input:
// "run K" prints K times in milliseconds, "rss" the peak resident set
// size (VmHWM) in kilobytes.
import { createRequire } from 'node:module';
import { readFileSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

const require = createRequire(process.env.NNL_ORT_DIR + '/');
const ort = require('onnxruntime-node');
const [model, inPath, outPath, threads, spec] = process.argv.slice(2);
const n = Number(threads);
const session = await ort.InferenceSession.create(model, {
  executionProviders: ['cpu'],
  intraOpNumThreads: n,
  interOpNumThreads: 1,
  executionMode: 'sequential',
  graphOptimizationLevel: 'all',
});
const types = {
  float32: [Float32Array, 4], int64: [BigInt64Array, 8],
  int32: [Int32Array, 4], bool: [Uint8Array, 1],
};
const buf = readFileSync(inPath);
const feeds = {};
let off = 0;
for (const x of JSON.parse(spec)) {
  const [Ctor, size] = types[x.dtype];
  const count = x.shape.reduce((a, b) => a * b, 1);
  if (off + count * size > buf.length) {
    process.stderr.write(`ort-timer: ${inPath}: too short for ${x.name}\n`);
    process.exit(1);
  }
  // a copy: a typed array's offset must be a multiple of its size
  const bytes = new Uint8Array(buf.subarray(off, off + count * size));
  feeds[x.name] = new ort.Tensor(x.dtype, new Ctor(bytes.buffer), x.shape);
  off += count * size;
}
if (off !== buf.length) {
  const left = buf.length - off;
  process.stderr.write(`ort-timer: ${inPath}: ${left} bytes left over\n`);
  process.exit(1);
}
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
