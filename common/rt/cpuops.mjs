// cpuops: the WebNN operations nnl-cpu-partition may leave to the CPU,
// in plain JavaScript on typed arrays, for the values a WebNN context
// cannot hold (int64 shape arithmetic on a context without 64-bit
// integers, ops a context lacks).  The seed's CpuOps idea, generalised:
// each function takes tensors {dataType, shape, data} and the node's
// options as nnl's graph names them, and returns a tensor, with the
// W3C WebNN semantics of the op (integer div truncates toward zero,
// comparisons give uint8, broadcasting is bidirectional).
export const ARRAYS = {float32: Float32Array, float16: Uint16Array,
  int32: Int32Array, uint32: Uint32Array, int64: BigInt64Array,
  uint64: BigUint64Array, int8: Int8Array, uint8: Uint8Array};

const isBig = (t) => t === "int64" || t === "uint64";
const isInt = (t) => t !== "float32" && t !== "float16";
const numel = (shape) => shape.reduce((a, b) => a * b, 1);

export function tensor(dataType, shape, data) {
  const T = ARRAYS[dataType];
  if (!T) throw new TypeError(`cpuops: no data type ${dataType}`);
  const d = data instanceof T ? data : T.from(data, (v) => fromNumber(dataType, v));
  if (d.length !== numel(shape))
    throw new RangeError(`cpuops: ${d.length} values for shape [${shape}]`);
  return {dataType, shape: [...shape], data: d};
}

// float16 is held as its bits
function f16ToF32(h) {
  const s = h & 0x8000 ? -1 : 1, e = (h >> 10) & 0x1f, m = h & 0x3ff;
  if (e === 0) return s * m * 2 ** -24;
  if (e === 31) return m ? NaN : s * Infinity;
  return s * (1 + m / 1024) * 2 ** (e - 15);
}
function f32ToF16(v) {
  const f = new Float32Array([v]), u = new Uint32Array(f.buffer)[0];
  const s = (u >> 16) & 0x8000, e = ((u >> 23) & 0xff) - 127 + 15;
  let m = u & 0x7fffff;
  if (((u >> 23) & 0xff) === 0xff) return s | 0x7c00 | (m ? 0x200 : 0);
  if (e >= 31) return s | 0x7c00;
  if (e <= 0) {
    if (e < -10) return s;
    m |= 0x800000;
    const shift = 14 - e, half = 1 << (shift - 1);
    let r = m >> shift;
    const rem = m & ((1 << shift) - 1);
    if (rem > half || (rem === half && (r & 1))) r++;
    return s | r;
  }
  let r = (e << 10) | (m >> 13);
  const rem = m & 0x1fff;
  if (rem > 0x1000 || (rem === 0x1000 && (r & 1))) r++;
  return s | r;
}

// A value as a JS number or BigInt (read), and back (write).
function read(t, v) {
  return t.dataType === "float16" ? f16ToF32(v) : v;
}
function fromNumber(dataType, v) {
  if (isBig(dataType)) {
    if (typeof v === "bigint") return v;
    if (!Number.isFinite(v)) return 0n;
    return BigInt(Math.trunc(v));
  }
  if (typeof v === "bigint") v = Number(v);
  if (dataType === "float16") return f32ToF16(v);
  if (isInt(dataType) && !Number.isFinite(v)) return 0;
  return isInt(dataType) ? Math.trunc(v) : v;
}

function broadcastShape(a, b) {
  const r = Math.max(a.length, b.length), out = [];
  for (let i = 0; i < r; i++) {
    const x = a[a.length - r + i] ?? 1, y = b[b.length - r + i] ?? 1;
    if (x !== y && x !== 1 && y !== 1)
      throw new RangeError(`cpuops: shapes [${a}] and [${b}] do not broadcast`);
    out.push(x === 1 ? y : x);
  }
  return out;
}

// The flat index into a tensor of shape s broadcast to shape out, for
// the flat output index i.
function bindex(s, out, i) {
  let k = 0, stride = 1;
  for (let d = out.length - 1; d >= 0; d--) {
    const n = out[d], c = i % n;
    i = (i - c) / n;
    const sd = d - (out.length - s.length);
    if (sd >= 0) {
      if (s[sd] !== 1) k += c * stride;
      stride *= s[sd];
    }
  }
  return k;
}

function mapBinary(a, b, outType, f) {
  const shape = broadcastShape(a.shape, b.shape), n = numel(shape);
  const out = new ARRAYS[outType](n);
  for (let i = 0; i < n; i++)
    out[i] = fromNumber(outType, f(read(a, a.data[bindex(a.shape, shape, i)]),
      read(b, b.data[bindex(b.shape, shape, i)])));
  return {dataType: outType, shape, data: out};
}

function truncDiv(x, y) {
  if (typeof x === "bigint") return y === 0n ? 0n : x / y;
  return y === 0 ? 0 : Math.trunc(x / y);
}

const binary = {
  add: (x, y) => x + y,
  sub: (x, y) => x - y,
  mul: (x, y) => x * y,
  max: (x, y) => (x > y ? x : y),
  min: (x, y) => (x < y ? x : y),
};

export const CpuOps = {
  add: (a, b) => mapBinary(a, b, a.dataType, binary.add),
  sub: (a, b) => mapBinary(a, b, a.dataType, binary.sub),
  mul: (a, b) => mapBinary(a, b, a.dataType, binary.mul),
  max: (a, b) => mapBinary(a, b, a.dataType, binary.max),
  min: (a, b) => mapBinary(a, b, a.dataType, binary.min),
  div: (a, b) => mapBinary(a, b, a.dataType,
    isInt(a.dataType) ? truncDiv : (x, y) => x / y),
  pow: (a, b) => mapBinary(a, b, a.dataType, (x, y) =>
    typeof x === "bigint" ? (y < 0n ? (x === 1n ? 1n : 0n) : x ** y) : x ** y),
  equal: (a, b) => mapBinary(a, b, "uint8", (x, y) => (x === y ? 1 : 0)),
  notEqual: (a, b) => mapBinary(a, b, "uint8", (x, y) => (x !== y ? 1 : 0)),
  greater: (a, b) => mapBinary(a, b, "uint8", (x, y) => (x > y ? 1 : 0)),
  greaterOrEqual: (a, b) => mapBinary(a, b, "uint8", (x, y) => (x >= y ? 1 : 0)),
  lesser: (a, b) => mapBinary(a, b, "uint8", (x, y) => (x < y ? 1 : 0)),
  lesserOrEqual: (a, b) => mapBinary(a, b, "uint8", (x, y) => (x <= y ? 1 : 0)),
  logicalAnd: (a, b) => mapBinary(a, b, "uint8", (x, y) => (x && y ? 1 : 0)),
  logicalOr: (a, b) => mapBinary(a, b, "uint8", (x, y) => (x || y ? 1 : 0)),
  logicalXor: (a, b) => mapBinary(a, b, "uint8", (x, y) => (!x !== !y ? 1 : 0)),
  logicalNot: (a) => unary(a, "uint8", (x) => (x ? 0 : 1)),
  abs: (a) => unary(a, a.dataType, (x) => (x < 0 ? -x : x)),
  neg: (a) => unary(a, a.dataType, (x) => -x),
  sign: (a) => unary(a, a.dataType, (x) => (typeof x === "bigint" ?
    (x > 0n ? 1n : x < 0n ? -1n : 0n) : Math.sign(x))),
  identity: (a) => unary(a, a.dataType, (x) => x),
  relu: (a) => unary(a, a.dataType, (x) => (x > 0 ? x : typeof x === "bigint" ? 0n : 0)),
  cast: (a, {dataType}) => unary(a, dataType, (x) => x),
  reshape: (a, {newShape}) => {
    if (numel(newShape) !== a.data.length)
      throw new RangeError(`cpuops: reshape of [${a.shape}] to [${newShape}]`);
    return {dataType: a.dataType, shape: [...newShape], data: a.data.slice()};
  },
  expand: (a, {newShape}) => {
    const shape = broadcastShape(a.shape, newShape), n = numel(shape);
    const out = new ARRAYS[a.dataType](n);
    for (let i = 0; i < n; i++) out[i] = a.data[bindex(a.shape, shape, i)];
    return {dataType: a.dataType, shape, data: out};
  },
  where: (c, a, b) => {
    const shape = broadcastShape(c.shape, broadcastShape(a.shape, b.shape));
    const n = numel(shape), out = new ARRAYS[a.dataType](n);
    for (let i = 0; i < n; i++)
      out[i] = c.data[bindex(c.shape, shape, i)] ? a.data[bindex(a.shape, shape, i)] :
        b.data[bindex(b.shape, shape, i)];
    return {dataType: a.dataType, shape, data: out};
  },
  transpose: (a, {permutation} = {}) => {
    const r = a.shape.length;
    const perm = permutation ?? [...Array(r).keys()].reverse();
    const shape = perm.map((p) => a.shape[p]), n = numel(shape);
    const st = strides(a.shape), out = new ARRAYS[a.dataType](n);
    for (let i = 0; i < n; i++) {
      let rem = i, k = 0;
      for (let d = r - 1; d >= 0; d--) {
        const c = rem % shape[d];
        rem = (rem - c) / shape[d];
        k += c * st[perm[d]];
      }
      out[i] = a.data[k];
    }
    return {dataType: a.dataType, shape, data: out};
  },
  concat: (xs, {axis}) => {
    const shape = [...xs[0].shape];
    shape[axis] = xs.reduce((s, x) => s + x.shape[axis], 0);
    const outer = numel(shape.slice(0, axis)), out = new ARRAYS[xs[0].dataType](numel(shape));
    let o = 0;
    for (let i = 0; i < outer; i++)
      for (const x of xs) {
        const blk = numel(x.shape.slice(axis));
        out.set(x.data.subarray(i * blk, (i + 1) * blk), o);
        o += blk;
      }
    return {dataType: xs[0].dataType, shape, data: out};
  },
  // sizes is the window of the input; the output takes every
  // strides[d]-th item of it, ceil(sizes / strides) of them
  slice: (a, {starts, sizes, strides: step}) => {
    const r = a.shape.length, st = strides(a.shape);
    const shape = sizes.map((z, d) => Math.ceil(z / (step ? step[d] : 1)));
    const n = numel(shape), out = new ARRAYS[a.dataType](n);
    for (let i = 0; i < n; i++) {
      let rem = i, k = 0;
      for (let d = r - 1; d >= 0; d--) {
        const c = rem % shape[d];
        rem = (rem - c) / shape[d];
        k += (starts[d] + c * (step ? step[d] : 1)) * st[d];
      }
      out[i] = a.data[k];
    }
    return {dataType: a.dataType, shape, data: out};
  },
  gather: (a, idx, {axis = 0} = {}) => {
    const shape = [...a.shape.slice(0, axis), ...idx.shape, ...a.shape.slice(axis + 1)];
    const outer = numel(a.shape.slice(0, axis)), inner = numel(a.shape.slice(axis + 1));
    const dim = a.shape[axis], ni = idx.data.length, out = new ARRAYS[a.dataType](numel(shape));
    for (let o = 0; o < outer; o++)
      for (let j = 0; j < ni; j++) {
        let v = Number(idx.data[j]);
        if (v < 0) v += dim;
        if (v < 0 || v >= dim) throw new RangeError(`cpuops: gather index ${idx.data[j]} out of [0, ${dim})`);
        out.set(a.data.subarray((o * dim + v) * inner, (o * dim + v + 1) * inner), (o * ni + j) * inner);
      }
    return {dataType: a.dataType, shape, data: out};
  },
  reduceSum: (a, o) => reduce(a, o, (x, y) => x + y, null),
  reduceProduct: (a, o) => reduce(a, o, (x, y) => x * y, null, true),
  reduceMax: (a, o) => reduce(a, o, (x, y) => (y > x ? y : x), "first"),
  reduceMin: (a, o) => reduce(a, o, (x, y) => (y < x ? y : x), "first"),
  reduceMean: (a, o) => {
    const s = reduce(a, o, (x, y) => x + y, null), k = a.data.length / (s.data.length || 1);
    return unary(s, s.dataType, (x) => (typeof x === "bigint" ? x / BigInt(k) : x / k));
  },
};

function strides(shape) {
  const st = new Array(shape.length);
  for (let d = shape.length - 1, s = 1; d >= 0; d--) { st[d] = s; s *= shape[d]; }
  return st;
}

function unary(a, outType, f) {
  const n = a.data.length, out = new ARRAYS[outType](n);
  for (let i = 0; i < n; i++) out[i] = fromNumber(outType, f(read(a, a.data[i])));
  return {dataType: outType, shape: [...a.shape], data: out};
}

function reduce(a, {axes, keepDimensions = false} = {}, f, init, one) {
  const r = a.shape.length, ax = axes ?? [...Array(r).keys()];
  const shape = a.shape.map((n, d) => (ax.includes(d) ? 1 : n));
  const n = numel(shape), big = isBig(a.dataType);
  const acc = new Array(n).fill(init === "first" ? undefined : one ? (big ? 1n : 1) : (big ? 0n : 0));
  for (let i = 0; i < a.data.length; i++) {
    // the reduced shape broadcast to the input's: its index for item i
    const k = bindex(shape, a.shape, i), v = read(a, a.data[i]);
    acc[k] = acc[k] === undefined ? v : f(acc[k], v);
  }
  const out = new ARRAYS[a.dataType](n);
  for (let i = 0; i < n; i++) out[i] = fromNumber(a.dataType, acc[i]);
  return {dataType: a.dataType, shape: keepDimensions ? shape : a.shape.filter((_, d) => !ax.includes(d)), data: out};
}
