// cpuops-check: the CpuOps functions (common/rt/js/cpuops.mjs) run for real
// in node and compared with nnl's C kernels (nnl-run) on the same
// one-node graphs: integers exactly, floats to 1e-6.
// Usage: node cpuops-check.mjs BIN-DIR   Exit 1 on any mismatch.
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { CpuOps, tensor } from "../../common/rt/js/cpuops.mjs";
import { npyRead, npyWrite } from "./npy.mjs";

const BIN = process.argv[2];
const DIR = mkdtempSync(join(tmpdir(), "cpuops-"));
let seed = 7;
function rnd() { seed = (seed * 1103515245 + 12345) % 2147483648; return seed / 2147483648; }
function gen(dataType, shape, lo = -50, hi = 50) {
  const n = shape.reduce((a, b) => a * b, 1), v = [];
  for (let i = 0; i < n; i++) {
    const x = lo + rnd() * (hi - lo);
    v.push(dataType.startsWith("float") ? x : Math.round(x));
  }
  return tensor(dataType, shape, v);
}

// [name, op, inputs, options]
const T = (dt, shape, lo, hi) => gen(dt, shape, lo, hi);
const cases = [
  ["add-int64-broadcast", "add", [T("int64", [2, 3]), T("int64", [3])]],
  ["sub-int64", "sub", [T("int64", [4]), T("int64", [4])]],
  ["mul-int64-scalar", "mul", [T("int64", [2, 2]), T("int64", [])]],
  ["div-int64-trunc", "div", [T("int64", [6], -100, 100), T("int64", [6], 1, 9)]],
  ["div-int32-negative", "div", [T("int32", [6], -100, -1), T("int32", [6], 2, 7)]],
  ["div-float32", "div", [T("float32", [5]), T("float32", [5], 1, 3)]],
  ["max-int64", "max", [T("int64", [3, 1]), T("int64", [1, 4])]],
  ["min-uint32", "min", [T("uint32", [5], 0, 99), T("uint32", [5], 0, 99)]],
  ["pow-float32", "pow", [T("float32", [4], 0.5, 2), T("float32", [4], -2, 2)]],
  ["pow-int64-wrap", "pow", [T("int64", [12], -9, 9), T("int64", [12], -4, 60)]],
  ["pow-int32-wrap", "pow", [T("int32", [12], -9, 9), T("int32", [12], -4, 40)]],
  ["equal-int64", "equal", [T("int64", [6], 0, 3), T("int64", [6], 0, 3)]],
  ["greater-int64", "greater", [T("int64", [2, 3]), T("int64", [3])]],
  ["lesserOrEqual-float32", "lesserOrEqual", [T("float32", [5]), T("float32", [5])]],
  ["logicalAnd", "logicalAnd", [T("uint8", [6], 0, 1), T("uint8", [6], 0, 1)]],
  ["logicalNot", "logicalNot", [T("uint8", [6], 0, 1)]],
  ["abs-int64", "abs", [T("int64", [5])]],
  ["neg-int32", "neg", [T("int32", [5])]],
  ["sign-float32", "sign", [T("float32", [6])]],
  ["cast-int64-float32", "cast", [T("int64", [5])], {dataType: "float32"}],
  ["cast-float32-int64", "cast", [T("float32", [6])], {dataType: "int64"}],
  ["cast-int64-int32", "cast", [T("int64", [4])], {dataType: "int32"}],
  ["where-int64", "where", [T("uint8", [2, 3], 0, 1), T("int64", [3]), T("int64", [2, 1])]],
  ["reshape-int64", "reshape", [T("int64", [2, 3])], {newShape: [3, 2]}],
  ["expand-int64", "expand", [T("int64", [3, 1])], {newShape: [2, 3, 4]}],
  ["transpose-int64", "transpose", [T("int64", [2, 3, 4])], {permutation: [2, 0, 1]}],
  ["concat-int64", "concat", [[T("int64", [2, 1]), T("int64", [2, 3])]], {axis: 1}],
  ["slice-int64-strided", "slice", [T("int64", [5, 6])], {starts: [1, 0], sizes: [2, 3], strides: [2, 2]}],
  ["gather-int64-negative", "gather", [T("int64", [5]), T("int64", [3], -5, 4)], {axis: 0}],
  ["gather-float32-axis1", "gather", [T("float32", [2, 4, 3]), T("int32", [2, 2], 0, 3)], {axis: 1}],
  ["reduceSum-int64", "reduceSum", [T("int64", [2, 3, 4])], {axes: [1], keepDimensions: true}],
  ["reduceProduct-int64", "reduceProduct", [T("int64", [3, 2], 1, 5)], {axes: [0, 1]}],
  ["reduceMax-int64", "reduceMax", [T("int64", [3, 4])], {axes: [1]}],
  ["reduceMin-float32", "reduceMin", [T("float32", [3, 4])], {axes: [0]}],
  ["reduceMean-float32", "reduceMean", [T("float32", [2, 5])], {axes: [1], keepDimensions: true}],
];

const OPERANDS = {where: ["condition", "trueValue", "falseValue"]};
let bad = 0, n = 0;
for (const [name, op, ins, opts = {}] of cases) {
  const flat = op === "concat" ? ins[0] : ins;
  const names = flat.map((_, i) => `i${i}`);
  const g = {format: "webnn-graph-json", version: 1, inputs: {},
    nodes: [{id: "y", op, inputs: names, options: opts}], outputs: {y: "y"}};
  const args = [];
  flat.forEach((t, i) => {
    g.inputs[names[i]] = {dataType: t.dataType, shape: t.shape};
    npyWrite(join(DIR, `${name}.${names[i]}.npy`), t);
    args.push(`${names[i]}=${join(DIR, `${name}.${names[i]}.npy`)}`);
  });
  writeFileSync(join(DIR, `${name}.json`), JSON.stringify(g));
  const out = join(DIR, name);
  const p = spawnSync(join(BIN, "nnl-run"), ["-d", DIR, join(DIR, `${name}.json`), ...args]);
  const c = p.status === 0 ? npyRead(join(DIR, "y.npy")) : null;
  const js = op === "concat" ? CpuOps.concat(ins[0], opts) :
    ["add", "sub", "mul", "div", "max", "min", "pow", "equal", "greater", "lesserOrEqual",
     "logicalAnd", "where", "gather"].includes(op) ? CpuOps[op](...ins, opts) : CpuOps[op](ins[0], opts);
  n++;
  let why = null;
  if (!c) why = `nnl-run: ${p.stderr}`;
  else if (c.dataType !== js.dataType) why = `type ${js.dataType}, C ${c.dataType}`;
  else if (c.shape.join() !== js.shape.join()) why = `shape [${js.shape}], C [${c.shape}]`;
  else for (let i = 0; i < c.data.length && !why; i++) {
    const a = js.data[i], b = c.data[i];
    const ok = typeof a === "bigint" ? a === b :
      Math.abs(a - b) <= 1e-6 * Math.max(1, Math.abs(b)) || (Number.isNaN(a) && Number.isNaN(b));
    if (!ok) why = `item ${i}: ${a}, C ${b}`;
  }
  console.log(why ? `not ok ${name}: ${why}` : `ok ${name}`);
  bad += !!why;
  void out;
}
console.log(`cpuops: ${n - bad} agree with the C kernels, ${bad} differ`);
process.exit(bad ? 1 : 0);
