// cpuops-run: the CpuOps functions on .npy inputs, for tests/ops/cpuops.py.
// Usage: node cpuops-run.mjs JOBS.json
// JOBS.json: [{name, op, ins: [npy...], types, nin, options, out,
// nout}] (types: each input's data type, or none: the .npy's); an
// option {"$operand": k} is the k-th input file.  Writes OUT0.npy, ...
// and prints the name of every job that ran; a job that throws is
// reported on stderr and left out.
import { readFileSync } from "node:fs";
import { CpuOps } from "../../common/rt/js/cpuops.mjs";
import { npyRead, npyWrite } from "./npy.mjs";

const jobs = JSON.parse(readFileSync(process.argv[2], "utf8"));
for (const j of jobs) {
  try {
    // the case's types where given (bfloat16 comes as uint16 bits)
    const ts = j.ins.map((f, k) => {
      const t = npyRead(f);
      return j.types && j.types[k] ? {...t, dataType: j.types[k]} : t;
    });
    const opts = {};
    for (const [k, v] of Object.entries(j.options))
      opts[k] = v !== null && typeof v === "object" && "$operand" in v ? ts[v.$operand] : v;
    const args = ts.slice(0, j.nin);
    const r = j.op === "concat" ? CpuOps.concat(args, opts) : CpuOps[j.op](...args, opts);
    const outs = Array.isArray(r) ? r : [r];
    if (outs.length !== j.nout) throw new Error(`${outs.length} outputs, expected ${j.nout}`);
    outs.forEach((t, k) => npyWrite(`${j.out}${k}.npy`, t));
    console.log(j.name);
  } catch (e) {
    console.error(`cpuops-run: ${j.name}: ${e.stack}`);
  }
}
