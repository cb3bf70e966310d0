// cpuops: the WebNN operations nnl-cpu-partition may leave to the CPU,
// in plain JavaScript on typed arrays, for the values a WebNN context
// cannot hold (int64 shape arithmetic on a context without 64-bit
// integers, ops a context lacks).  The seed's CpuOps idea, generalised:
// each function takes tensors {dataType, shape, data} and the node's
// options as nnl's graph names them, and returns a tensor, with the
// W3C WebNN semantics of the op (integer div truncates toward zero,
// comparisons give uint8, broadcasting is bidirectional).
// nnl's extended types beyond WebNN (nnl-graph(5)) after WebNN's:
// bfloat16, like float16, held as its bits.
export const ARRAYS = {float32: Float32Array, float16: Uint16Array,
  int32: Int32Array, uint32: Uint32Array, int64: BigInt64Array,
  uint64: BigUint64Array, int8: Int8Array, uint8: Uint8Array,
  float64: Float64Array, int16: Int16Array, uint16: Uint16Array,
  bfloat16: Uint16Array};

const FLOATS = new Set(["float32", "float16", "float64", "bfloat16"]);
const isBig = (t) => t === "int64" || t === "uint64";
const isInt = (t) => !FLOATS.has(t);
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

// bfloat16 is float32's upper half; to it rounds to nearest, ties to
// even, a NaN stays a quiet NaN
function bf16ToF32(h) {
  return new Float32Array(new Uint32Array([h << 16 >>> 0]).buffer)[0];
}
function f32ToBf16(v) {
  const u = new Uint32Array(new Float32Array([v]).buffer)[0];
  if ((u & 0x7fffffff) > 0x7f800000) return (u >>> 16) | 0x40;
  return ((u + 0x7fff + ((u >>> 16) & 1)) >>> 16) & 0xffff;
}

// v as a float rounded to odd (toward zero, the last bit set when
// inexact): rounded on to float16 or bfloat16 it gives one rounding,
// as the C runtime's nnl_f64_to_f32_odd
function f32Odd(v) {
  const f = Math.fround(v);
  if (f !== f || f === v) return f;
  const u = new Uint32Array(new Float32Array([f]).buffer);
  if (Math.abs(f) > Math.abs(v)) u[0]--;
  u[0] |= 1;
  return new Float32Array(u.buffer)[0];
}

// A value as a JS number or BigInt (read), and back (write).
function read(t, v) {
  return t.dataType === "float16" ? f16ToF32(v) :
    t.dataType === "bfloat16" ? bf16ToF32(v) : v;
}
function fromNumber(dataType, v) {
  if (isBig(dataType)) {
    if (typeof v === "bigint") return v;
    if (!Number.isFinite(v)) return 0n;
    return BigInt(Math.trunc(v));
  }
  if (typeof v === "bigint") v = Number(v);
  if (dataType === "float16") return f32ToF16(f32Odd(v));
  if (dataType === "bfloat16") return f32ToBf16(f32Odd(v));
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

// x to the power y on integers (bigints), as rt/elementwise/ew.c computes it: the
// low 64 bits of the product by squaring (the typed array keeps its
// own width of them); a negative power truncates 1 / x^-y toward 0.
function ipow(x, y) {
  if (y < 0n) return x === 1n ? 1n : x === -1n ? (y & 1n ? -1n : 1n) : 0n;
  let r = 1n;
  x = BigInt.asUintN(64, x);
  for (; y; y >>= 1n) {
    if (y & 1n) r = BigInt.asUintN(64, r * x);
    x = BigInt.asUintN(64, x * x);
  }
  return r;
}

const binary = {
  add: (x, y) => x + y,
  sub: (x, y) => x - y,
  mul: (x, y) => x * y,
  max: (x, y) => (x > y ? x : y),
  min: (x, y) => (x < y ? x : y),
};

// A scatter's write of update u[i] into out[o]: a plain store, or nnl's
// reduction (add, mul, max, min): floats computed in double and stored
// rounded once, integers wrapping (int32 products by Math.imul, exact),
// max and min passing a NaN on as NumPy's maximum does.
function scatterPut(dataType, reduction) {
  if (!reduction) return (out, o, u, i) => { out[o] = u[i]; };
  const t = {dataType}, i32 = dataType === "int32" || dataType === "uint32";
  const f = {
    add: (a, b) => a + b,
    mul: (a, b) => (i32 ? Math.imul(a, b) : a * b),
    max: (a, b) => (a !== a || b !== b ? NaN : b > a ? b : a),
    min: (a, b) => (a !== a || b !== b ? NaN : b < a ? b : a),
  }[reduction];
  if (!f) throw new TypeError(`cpuops: no scatter reduction ${reduction}`);
  return (out, o, u, i) => {
    out[o] = fromNumber(dataType, f(read(t, out[o]), read(t, u[i])));
  };
}

export const CpuOps = {
  add: (a, b) => mapBinary(a, b, a.dataType, binary.add),
  sub: (a, b) => mapBinary(a, b, a.dataType, binary.sub),
  mul: (a, b) => mapBinary(a, b, a.dataType, binary.mul),
  max: (a, b) => mapBinary(a, b, a.dataType, binary.max),
  min: (a, b) => mapBinary(a, b, a.dataType, binary.min),
  div: (a, b) => mapBinary(a, b, a.dataType,
    isInt(a.dataType) ? truncDiv : (x, y) => x / y),
  pow: (a, b) => mapBinary(a, b, a.dataType, (x, y) =>
    typeof x === "bigint" ? ipow(x, y) : isInt(a.dataType) ?
      Number(BigInt.asUintN(32, ipow(BigInt(x), BigInt(y)))) : x ** y),
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
  cast: (a, {dataType}) => {
    // float to integer saturates at the type's ends, NaN gives 0, as
    // the C runtime's cast does
    const r = CAST_RANGE[dataType];
    return unary(a, dataType, r && !isInt(a.dataType) ?
      (x) => Math.min(Math.max(x, r[0]), r[1]) : (x) => x);
  },
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
  argMax: (a, {axis, keepDimensions = false, outputDataType = "int32"} = {}) =>
    argReduce(a, axis, keepDimensions, outputDataType, (x, y) => x > y),
  argMin: (a, {axis, keepDimensions = false, outputDataType = "int32"} = {}) =>
    argReduce(a, axis, keepDimensions, outputDataType, (x, y) => x < y),
  clamp: (a, {minValue = -Infinity, maxValue = Infinity} = {}) =>
    unary(a, a.dataType, (x) => {
      if (typeof x === "bigint") {
        // the bounds cast to the input's type, as WebNN's MLNumber
        const lo = Number.isFinite(minValue) ? BigInt(Math.trunc(minValue)) : null;
        const hi = Number.isFinite(maxValue) ? BigInt(Math.trunc(maxValue)) : null;
        return lo !== null && x < lo ? lo : hi !== null && x > hi ? hi : x;
      }
      return Math.min(Math.max(x, minValue), maxValue);
    }),
  // nnl's op set beyond WebNN (common/core/ops_nnl.def): always here
  asin: (a) => unary(a, a.dataType, Math.asin),
  acos: (a) => unary(a, a.dataType, Math.acos),
  atan: (a) => unary(a, a.dataType, Math.atan),
  bitShift: (a, b, {direction}) => {
    const bits = BigInt(8 * ARRAYS[a.dataType].BYTES_PER_ELEMENT);
    const mask = (1n << bits) - 1n;
    return mapBinary(a, b, a.dataType, (x, y) => {
      const X = BigInt(x), Y = BigInt(y);
      const r = Y >= bits ? 0n : direction === "right" ? X >> Y :
        (X << Y) & mask;
      return typeof x === "bigint" ? r : Number(r);
    });
  },
  // the k largest (smallest) along axis, sorted, NaN the largest,
  // equal items by index; and their indices
  topK: (a, {k, axis, largest = true, outputDataType = "int64"}) => {
    const dim = a.shape[axis], inner = numel(a.shape.slice(axis + 1));
    const outer = numel(a.shape.slice(0, axis));
    const shape = a.shape.map((d, i) => (i === axis ? k : d));
    const vals = new ARRAYS[a.dataType](numel(shape));
    const idx = new ARRAYS[outputDataType](numel(shape));
    const gt = (u, v) => (u !== u && v === v) || u > v;
    for (let o = 0; o < outer; o++)
      for (let i = 0; i < inner; i++) {
        const at = (t) => (o * dim + t) * inner + i;
        const v = (t) => read(a, a.data[at(t)]);
        const order = [...Array(dim).keys()].sort((p, q) => {
          const f = largest ? gt(v(p), v(q)) : gt(v(q), v(p));
          const g = largest ? gt(v(q), v(p)) : gt(v(p), v(q));
          return f ? -1 : g ? 1 : p - q;
        });
        for (let j = 0; j < k; j++) {
          vals[(o * k + j) * inner + i] = a.data[at(order[j])];
          idx[(o * k + j) * inner + i] = fromNumber(outputDataType, order[j]);
        }
      }
    return [{dataType: a.dataType, shape, data: vals},
      {dataType: outputDataType, shape, data: idx}];
  },
  // ONNX's greedy rule per batch and class; the rows (batch, class,
  // box) padded to the bound with -1, and their shape (nnl-graph(5))
  nonMaxSuppression: (boxes, scores, {maxOutputBoxesPerClass: mx,
    iouThreshold = 0, scoreThreshold, centerPointBox = false}) => {
    const [nb, nc, n] = scores.shape, bound = nb * nc * Math.min(mx, n);
    const out = new BigInt64Array(bound * 3).fill(-1n);
    const sc = (b, c, j) => read(scores, scores.data[(b * nc + c) * n + j]);
    const box = (b, j) => {
      const [p, q, r, s] = [0, 1, 2, 3].map((t) => read(boxes, boxes.data[(b * n + j) * 4 + t]));
      return centerPointBox ? [q - s / 2, p - r / 2, q + s / 2, p + r / 2] :
        [Math.min(p, r), Math.min(q, s), Math.max(p, r), Math.max(q, s)];
    };
    const over = (a, b) => {
      const h = Math.min(a[2], b[2]) - Math.max(a[0], b[0]);
      const w = Math.min(a[3], b[3]) - Math.max(a[1], b[1]);
      if (h <= 0 || w <= 0) return false;
      const i = h * w, u = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - i;
      return u > 0 && i / u > iouThreshold;
    };
    let cnt = 0;
    for (let b = 0; b < nb; b++)
      for (let c = 0; c < nc; c++) {
        const cand = [...Array(n).keys()].filter((j) =>
          scoreThreshold === undefined || sc(b, c, j) > scoreThreshold);
        cand.sort((p, q) => sc(b, c, q) - sc(b, c, p) || p - q);
        const kept = [];
        for (const j of cand)
          if (kept.length < mx && !kept.some((k) => over(box(b, k), box(b, j)))) {
            kept.push(j);
            out.set([BigInt(b), BigInt(c), BigInt(j)], 3 * cnt++);
          }
      }
    return [{dataType: "int64", shape: [bound, 3], data: out},
      {dataType: "int64", shape: [2], data: new BigInt64Array([BigInt(cnt), 3n])}];
  },
  // ONNX's GridSample on 4-D: pixels from [-1, 1], padded per tap
  gridSample: (a, g, {mode = "bilinear", paddingMode: pad = "zeros",
    alignCorners: ac = false} = {}) => {
    const [n, c, h, w] = a.shape, [, ho, wo] = g.shape;
    const out = new ARRAYS[a.dataType](n * c * ho * wo);
    const [ly, hy, lx, hx] = ac ? [0, h - 1, 0, w - 1] : [-0.5, h - 0.5, -0.5, w - 0.5];
    const reflect = (v, lo, hi) => {
      const r = hi - lo;
      if (r <= 0) return lo;
      if (v < lo) {
        const d = lo - v, k = Math.trunc(d / r), m = d - k * r;
        return k % 2 === 0 ? lo + m : hi - m;
      }
      if (v > hi) {
        const d = v - hi, k = Math.trunc(d / r), m = d - k * r;
        return k % 2 === 0 ? hi - m : lo + m;
      }
      return v;
    };
    const cubic = (t) => {
      const A = -0.75, u = t + 1, v = 1 - t, z = 2 - t;
      return [((A * u - 5 * A) * u + 8 * A) * u - 4 * A,
        ((A + 2) * t - (A + 3)) * t * t + 1,
        ((A + 2) * v - (A + 3)) * v * v + 1,
        ((A * z - 5 * A) * z + 8 * A) * z - 4 * A];
    };
    const rint = (v) => {
      const f = Math.floor(v), d = v - f;
      return d > 0.5 || (d === 0.5 && f % 2 !== 0) ? f + 1 : f;
    };
    for (let b = 0; b < n; b++)
      for (let q = 0; q < ho * wo; q++) {
        const gx = read(g, g.data[(b * ho * wo + q) * 2]);
        const gy = read(g, g.data[(b * ho * wo + q) * 2 + 1]);
        let x = ac ? (gx + 1) / 2 * (w - 1) : ((gx + 1) * w - 1) / 2;
        let y = ac ? (gy + 1) / 2 * (h - 1) : ((gy + 1) * h - 1) / 2;
        if (mode === "nearest") { x = rint(x); y = rint(y); }
        if (x < lx || x > hx || y < ly || y > hy) {
          if (pad === "border") {
            x = Math.min(Math.max(x, 0), w - 1);
            y = Math.min(Math.max(y, 0), h - 1);
          } else if (pad === "reflection") {
            x = reflect(x, lx, hx);
            y = reflect(y, ly, hy);
          }
        }
        for (let ch = 0; ch < c; ch++) {
          const off = (b * c + ch) * h * w;
          const tap = (i, j) => {
            if (pad === "zeros" && (i < 0 || i >= h || j < 0 || j >= w)) return 0;
            if (pad === "reflection") {
              i = Math.trunc(reflect(i, ly, hy));
              j = Math.trunc(reflect(j, lx, hx));
            }
            i = Math.min(Math.max(i, 0), h - 1);
            j = Math.min(Math.max(j, 0), w - 1);
            return read(a, a.data[off + i * w + j]);
          };
          let v = 0;
          const fy = Math.floor(y), fx = Math.floor(x);
          if (mode === "nearest") v = tap(Math.trunc(y), Math.trunc(x));
          else if (mode === "bilinear") {
            const ty = y - fy, tx = x - fx;
            v = (1 - ty) * ((1 - tx) * tap(fy, fx) + tx * tap(fy, fx + 1)) +
              ty * ((1 - tx) * tap(fy + 1, fx) + tx * tap(fy + 1, fx + 1));
          } else {
            const ky = cubic(y - fy), kx = cubic(x - fx);
            for (let s = 0; s < 4; s++)
              for (let t = 0; t < 4; t++)
                v += ky[s] * kx[t] * tap(fy - 1 + s, fx - 1 + t);
          }
          out[(b * c + ch) * ho * wo + q] = fromNumber(a.dataType, v);
        }
      }
    return {dataType: a.dataType, shape: [n, c, ho, wo], data: out};
  },
  // ONNX's RoiAlign: per bin a grid of bilinear samples, averaged or
  // the largest weighted tap
  roiAlign: (a, rois, bi, {outputHeight: oh = 1, outputWidth: ow = 1,
    samplingRatio: sr = 0, spatialScale: scale = 1, mode = "avg",
    coordinateTransformationMode: ctm = "halfPixel"} = {}) => {
    const [, c, h, w] = a.shape, nr = rois.shape[0], half = ctm === "halfPixel";
    const out = new ARRAYS[a.dataType](nr * c * oh * ow), off = half ? 0.5 : 0;
    for (let r = 0; r < nr; r++) {
      const [x1, y1, x2, y2] = [0, 1, 2, 3].map((k) => read(rois, rois.data[4 * r + k]) * scale - off);
      let rw = x2 - x1, rh = y2 - y1;
      if (!half) { rw = Math.max(rw, 1); rh = Math.max(rh, 1); }
      const bh = rh / oh, bw = rw / ow, b = Number(bi.data[r]);
      const gh = sr > 0 ? sr : Math.ceil(rh / oh), gw = sr > 0 ? sr : Math.ceil(rw / ow);
      for (let ch = 0; ch < c; ch++) {
        const px = (i, j) => read(a, a.data[((b * c + ch) * h + i) * w + j]);
        for (let p = 0; p < oh * ow; p++) {
          const ph = Math.floor(p / ow), pw = p % ow;
          let v = 0, first = true;
          for (let iy = 0; iy < gh; iy++)
            for (let ix = 0; ix < gw; ix++) {
              let y = y1 + ph * bh + (iy + 0.5) * bh / gh;
              let x = x1 + pw * bw + (ix + 0.5) * bw / gw;
              let t = [0, 0, 0, 0];
              if (!(y < -1 || y > h || x < -1 || x > w)) {
                y = Math.max(y, 0); x = Math.max(x, 0);
                let yl = Math.trunc(y), xl = Math.trunc(x), yh, xh;
                if (yl >= h - 1) { yl = yh = h - 1; y = yl; } else yh = yl + 1;
                if (xl >= w - 1) { xl = xh = w - 1; x = xl; } else xh = xl + 1;
                const ly = y - yl, lx = x - xl;
                t = [(1 - ly) * (1 - lx) * px(yl, xl), (1 - ly) * lx * px(yl, xh),
                  ly * (1 - lx) * px(yh, xl), ly * lx * px(yh, xh)];
              }
              if (mode !== "max") { v += t[0] + t[1] + t[2] + t[3]; continue; }
              const s = Math.max(...t);
              v = first || s > v ? s : v;
              first = false;
            }
          out[(r * c + ch) * oh * ow + p] = fromNumber(a.dataType,
            mode === "max" ? v : v / Math.max(gh * gw, 1));
        }
      }
    }
    return {dataType: a.dataType, shape: [nr, c, oh, ow], data: out};
  },
  // indices of the nonzero items (NaN is one), [rank, count] packed
  // at the front of [rank, numel], -1 after; and that shape
  nonZero: (a) => {
    const r = a.shape.length, n = a.data.length, st = strides(a.shape);
    const nz = [];
    for (let i = 0; i < n; i++) {
      const v = read(a, a.data[i]);
      if (typeof v === "bigint" ? v !== 0n : v !== 0) nz.push(i);
    }
    const out = new BigInt64Array(r * n).fill(-1n);
    nz.forEach((i, j) => {
      for (let d = 0; d < r; d++)
        out[d * nz.length + j] = BigInt(Math.floor(i / st[d]) % a.shape[d]);
    });
    return [{dataType: "int64", shape: [r, n], data: out},
      {dataType: "int64", shape: [2], data: new BigInt64Array([BigInt(r), BigInt(nz.length)])}];
  },
  // distinct slices along axis (items without one), sorted or by first
  // occurrence; Y, first indices, inverse, counts, each bounded output
  // packed at the front (zeros, -1, 0 after), then their shapes
  // 3-D convolutions and pools: the bias, an operand-valued option,
  // is the tensor after the operands when the node has one (or the
  // tensor in the options)
  conv3d: (x, f, ...r) => conv3d(x, f, ...biasOf(r)),
  convTranspose3d: (x, f, ...r) => convTranspose3d(x, f, ...biasOf(r)),
  averagePool3d: (x, o = {}) => pool3d("average", x, o),
  lpPool3d: (x, o = {}) => pool3d("lp", x, o),
  maxPool3d: (x, o = {}) => pool3d("max", x, o),
  unique: (a, {axis, sorted = true} = {}) => {
    const flat = axis === undefined || axis === null;
    const shape = flat ? [a.data.length] : a.shape, ax = flat ? 0 : axis;
    const n = shape[ax], inner = numel(shape.slice(ax + 1));
    const outer = numel(shape.slice(0, ax));
    const item = (o, j, i) => read(a, a.data[(o * n + j) * inner + i]);
    const cmp = (p, q) => {
      for (let o = 0; o < outer; o++)
        for (let i = 0; i < inner; i++) {
          const u = item(o, p, i), v = item(o, q, i);
          if (u !== v) return u < v ? -1 : 1;
        }
      return 0;
    };
    const ord = [...Array(n).keys()].sort((p, q) => cmp(p, q) || p - q);
    const first = [], grp = new Array(n);
    ord.forEach((j, t) => {
      if (t === 0 || cmp(ord[t - 1], j) !== 0) first.push(j);
      grp[j] = first.length - 1;
    });
    const u = first.length, place = [...Array(u).keys()];
    if (!sorted) place.sort((p, q) => first[p] - first[q]);
    const at = new Array(u);
    place.forEach((g, k) => { at[g] = k; });
    const y = new ARRAYS[a.dataType](a.data.length);
    const idx = new BigInt64Array(n).fill(-1n), cnt = new BigInt64Array(n);
    const inv = new BigInt64Array(n);
    for (let k = 0; k < u; k++) idx[k] = BigInt(first[place[k]]);
    for (let j = 0; j < n; j++) { inv[j] = BigInt(at[grp[j]]); cnt[at[grp[j]]]++; }
    for (let o = 0; o < outer; o++)
      for (let k = 0; k < u; k++)
        for (let i = 0; i < inner; i++)
          y[(o * u + k) * inner + i] = a.data[(o * n + first[place[k]]) * inner + i];
    const I = (d, s) => ({dataType: "int64", shape: s, data: d});
    return [{dataType: a.dataType, shape: [...shape], data: y}, I(idx, [n]),
      I(inv, [n]), I(cnt, [n]),
      I(BigInt64Array.from(shape.map((d, i) => BigInt(i === ax ? u : d))), [shape.length]),
      I(new BigInt64Array([BigInt(u)]), [1]), I(new BigInt64Array([BigInt(u)]), [1])];
  },
  // matmul: [..., M, K] x [..., K, N], the batch dims broadcast, each
  // sum in double (nnl's float64 product; rt/nn/linalg.c)
  matmul: (a, b) => {
    const ra = a.shape.length, rb = b.shape.length, K = a.shape[ra - 1];
    const M = a.shape[ra - 2], N = b.shape[rb - 1];
    const batch = broadcastShape(a.shape.slice(0, -2), b.shape.slice(0, -2));
    const shape = [...batch, M, N], out = new ARRAYS[a.dataType](numel(shape));
    // the matrix of t (an index into batch) in a tensor of batch dims s
    const mat = (t, s) => {
      let o = 0, st = 1;
      for (let d = batch.length - 1; d >= 0; d--) {
        const c = t % batch[d], j = d - (batch.length - s.length);
        t = Math.floor(t / batch[d]);
        if (j < 0) continue;
        if (s[j] !== 1) o += c * st;
        st *= s[j];
      }
      return o;
    };
    for (let t = 0; t < numel(batch); t++) {
      const ao = mat(t, a.shape.slice(0, -2)) * M * K;
      const bo = mat(t, b.shape.slice(0, -2)) * K * N;
      for (let i = 0; i < M; i++)
        for (let j = 0; j < N; j++) {
          let s = 0;
          for (let k = 0; k < K; k++)
            s += read(a, a.data[ao + i * K + k]) * read(b, b.data[bo + k * N + j]);
          out[(t * M + i) * N + j] = fromNumber(a.dataType, s);
        }
    }
    return {dataType: a.dataType, shape, data: out};
  },
  // det of each [M, M] matrix: Gaussian elimination with partial
  // pivoting, the product of the pivots, a swap flipping its sign
  det: (a) => {
    const r = a.shape.length, n = a.shape[r - 1], shape = a.shape.slice(0, -2);
    const out = new ARRAYS[a.dataType](numel(shape));
    for (let t = 0; t < out.length; t++) {
      const m = Array.from({length: n * n}, (_, i) => read(a, a.data[t * n * n + i]));
      let d = 1;
      for (let c = 0; c < n && d !== 0; c++) {
        let p = c;
        for (let q = c + 1; q < n; q++)
          if (Math.abs(m[q * n + c]) > Math.abs(m[p * n + c])) p = q;
        if (m[p * n + c] === 0) { d = 0; break; }
        if (p !== c) {
          for (let k = 0; k < n; k++)
            [m[c * n + k], m[p * n + k]] = [m[p * n + k], m[c * n + k]];
          d = -d;
        }
        d *= m[c * n + c];
        for (let q = c + 1; q < n; q++) {
          const f = m[q * n + c] / m[c * n + c];
          for (let k = c + 1; k < n; k++) m[q * n + k] -= f * m[c * n + k];
        }
      }
      out[t] = fromNumber(a.dataType, d);
    }
    return {dataType: a.dataType, shape, data: out};
  },
  // dft along axis of a real [..., 1] or complex [..., 2] signal, cut
  // or zero-padded to dftLength points: y[k] = sum x[j] e^(-+2 pi i jk/n)
  // (over n when inverse), the first n / 2 + 1 bins when onesided
  dft: (a, {axis, inverse = false, onesided = false, dftLength} = {}) => {
    const r = a.shape.length, len = a.shape[axis], cin = a.shape[r - 1];
    const n = dftLength ?? len, bins = onesided ? Math.floor(n / 2) + 1 : n;
    const outer = numel(a.shape.slice(0, axis));
    const inner = numel(a.shape.slice(axis + 1, r - 1));
    const shape = a.shape.map((d, i) => (i === axis ? bins : i === r - 1 ? 2 : d));
    const out = new ARRAYS[a.dataType](numel(shape)), sg = inverse ? 1 : -1;
    const cs = [], sn = [];
    for (let m = 0; m < n; m++) {
      cs.push(Math.cos(2 * Math.PI * m / n));
      sn.push(Math.sin(2 * Math.PI * m / n));
    }
    for (let o = 0; o < outer; o++)
      for (let i = 0; i < inner; i++)
        for (let k = 0; k < bins; k++) {
          let re = 0, im = 0;
          for (let j = 0; j < Math.min(len, n); j++) {
            const at = ((o * len + j) * inner + i) * cin, w = (j * k) % n;
            const xr = read(a, a.data[at]), xi = cin === 2 ? read(a, a.data[at + 1]) : 0;
            re += xr * cs[w] - sg * xi * sn[w];
            im += sg * xr * sn[w] + xi * cs[w];
          }
          const y = ((o * bins + k) * inner + i) * 2;
          out[y] = fromNumber(a.dataType, inverse ? re / n : re);
          out[y + 1] = fromNumber(a.dataType, inverse ? im / n : im);
        }
    return {dataType: a.dataType, shape, data: out};
  },
  // nnl's range: start + i * delta for max(ceil((limit - start) /
  // delta), 0) items at the front of [bound], zeros after, and that
  // count; a count past the bound, or a delta of 0, throws
  range: (s, l, d, {bound}) => {
    const t = s.dataType;
    const a = read(s, s.data[0]), b = read(l, l.data[0]), dl = read(d, d.data[0]);
    let n;
    if (isInt(t)) {
      const A = BigInt(a), B = BigInt(b), D = BigInt(dl);
      if (D === 0n) throw new RangeError("cpuops: range: a delta of 0");
      n = D > 0n ? (B > A ? (B - A + D - 1n) / D : 0n) :
        (A > B ? (A - B - D - 1n) / -D : 0n);
    } else {
      // float32's quotient in float32, as ONNX computes it
      const q = Math.ceil(t === "float32" ? Math.fround(Math.fround(b - a) / dl) : (b - a) / dl);
      if (dl === 0 || Number.isNaN(q)) throw new RangeError(`cpuops: range: a delta of ${dl}`);
      n = q > 0 ? q : 0;
    }
    if (n > bound)
      throw new RangeError(`cpuops: range: ${n} items, past its bound of ${bound}`);
    n = Number(n);
    const out = new ARRAYS[t](bound);
    for (let i = 0; i < n; i++)
      out[i] = fromNumber(t, isInt(t) ? (isBig(t) ? BigInt(a) + BigInt(i) * BigInt(dl) : a + i * dl) : a + i * dl);
    return [{dataType: t, shape: [bound], data: out},
      {dataType: "int64", shape: [1], data: new BigInt64Array([BigInt(n)])}];
  },
  // nnl's constantOfShape: value in the numel of the shape input's
  // items at the front of [bound, 1, ...], zeros after, and that shape;
  // a negative dimension or a numel past the bound throws
  constantOfShape: (s, {bound, value = 0, dataType = "float32"}) => {
    const dims = Array.from(s.data, Number);
    let n = 1;
    for (const d of dims) {
      if (d < 0) throw new RangeError(`cpuops: constantOfShape: a dimension of ${d}`);
      n *= d;
    }
    if (n > bound)
      throw new RangeError(`cpuops: constantOfShape: [${dims}] is past its bound of ${bound} elements`);
    const out = new ARRAYS[dataType](bound);
    out.fill(fromNumber(dataType, value), 0, n);
    return [{dataType, shape: [bound, ...dims.slice(1).map(() => 1)], data: out},
      {dataType: "int64", shape: [dims.length], data: BigInt64Array.from(dims, BigInt)}];
  },
  // nnl's melWeightMatrix: the [dftLength / 2 + 1, numMelBins] mel
  // triangles (as rt/tensor/tensor.c computes them) at the front of
  // [bound, 1], zeros after, and that shape; a count below 1, edges not
  // 0 <= lower < upper, or a size past the bound throws
  melWeightMatrix: (nm, dl, sr, lo, hi, {bound, dataType = "float32"}) => {
    const nmel = Number(nm.data[0]), len = Number(dl.data[0]);
    const rate = Number(sr.data[0]);
    const l = read(lo, lo.data[0]), h = read(hi, hi.data[0]);
    const bins = Math.floor(len / 2) + 1;
    if (!(nmel >= 1 && len >= 1 && rate >= 1 && l >= 0 && h > l && h < Infinity))
      throw new RangeError(`cpuops: melWeightMatrix: ${nmel} mel bins, a dft of ${len}, a rate of ${rate}, edges ${l} to ${h} Hz`);
    if (nmel * bins > bound)
      throw new RangeError(`cpuops: melWeightMatrix: [${bins}, ${nmel}] is past its bound of ${bound} elements`);
    const ml = 2595 * Math.log10(1 + l / 700), mh = 2595 * Math.log10(1 + h / 700);
    const point = (i) => {
      const f = 700 * (10 ** ((ml + (mh - ml) * i / (nmel + 2)) / 2595) - 1);
      return Math.floor((len + 1) * f / rate);
    };
    const w = new Float64Array(bound);
    for (let i = 0; i < nmel; i++) {
      const a = point(i), c = point(i + 1), b = point(i + 2);
      for (let j = a; j <= c && j < bins; j++)
        w[j * nmel + i] = c === a ? 1 : (j - a) / (c - a);
      for (let j = c; j < b && j < bins; j++)
        w[j * nmel + i] = (b - j) / (b - c);
    }
    const out = dataType === "float64" ? w : ARRAYS[dataType].from(w, (v) => fromNumber(dataType, v));
    return [{dataType, shape: [bound, 1], data: out},
      {dataType: "int64", shape: [2], data: new BigInt64Array([BigInt(bins), BigInt(nmel)])}];
  },
  isNaN: (a) => unary(a, "uint8", (x) => (typeof x === "number" && Number.isNaN(x) ? 1 : 0)),
  isInfinite: (a) => unary(a, "uint8", (x) => (x === Infinity || x === -Infinity ? 1 : 0)),
  cumulativeSum: (a, {axis, exclusive = false, reversed = false}) => {
    const n = a.data.length, out = new ARRAYS[a.dataType](n);
    const inner = numel(a.shape.slice(axis + 1)), dim = a.shape[axis];
    const big = isBig(a.dataType);
    for (let o = 0; o < n / (dim * inner || 1); o++)
      for (let i = 0; i < inner; i++) {
        let acc = big ? 0n : 0;
        for (let t = 0; t < dim; t++) {
          const j = reversed ? dim - 1 - t : t, k = (o * dim + j) * inner + i;
          const v = read(a, a.data[k]);
          if (!exclusive) acc += v;
          out[k] = fromNumber(a.dataType, acc);
          if (exclusive) acc += v;
        }
      }
    return {dataType: a.dataType, shape: [...a.shape], data: out};
  },
  // blockwise: scale and zeroPoint of the input's rank, each dimension
  // dividing the input's (a block shares them), or broadcast
  quantizeLinear: (a, scale, zp) => {
    const n = a.data.length, out = new ARRAYS[zp.dataType](n);
    const [lo, hi] = RANGE[zp.dataType];
    for (let i = 0; i < n; i++) {
      const s = read(scale, scale.data[blockIndex(scale.shape, a.shape, i)]);
      const z = Number(zp.data[blockIndex(zp.shape, a.shape, i)]);
      const q = roundEven(read(a, a.data[i]) / s) + z;
      out[i] = fromNumber(zp.dataType, Math.min(Math.max(q, lo), hi));
    }
    return {dataType: zp.dataType, shape: [...a.shape], data: out};
  },
  dequantizeLinear: (a, scale, zp) => {
    const n = a.data.length, out = new ARRAYS[scale.dataType](n);
    for (let i = 0; i < n; i++) {
      const s = read(scale, scale.data[blockIndex(scale.shape, a.shape, i)]);
      const z = Number(zp.data[blockIndex(zp.shape, a.shape, i)]);
      out[i] = fromNumber(scale.dataType, (Number(a.data[i]) - z) * s);
    }
    return {dataType: scale.dataType, shape: [...a.shape], data: out};
  },
  pad: (a, {beginningPadding: b, endingPadding: e, mode = "constant", value = 0}) => {
    const r = a.shape.length, shape = a.shape.map((d, i) => d + b[i] + e[i]);
    const n = numel(shape), out = new ARRAYS[a.dataType](n), st = strides(a.shape);
    const fill = fromNumber(a.dataType, value);
    for (let i = 0; i < n; i++) {
      let rem = i, k = 0, inside = true;
      for (let d = r - 1; d >= 0; d--) {
        const c = rem % shape[d];
        rem = (rem - c) / shape[d];
        let x = c - b[d];
        const len = a.shape[d];
        if (x < 0 || x >= len) {
          if (mode === "constant") { inside = false; break; }
          if (mode === "edge") x = x < 0 ? 0 : len - 1;
          else x = x < 0 ? -x : 2 * (len - 1) - x;	// reflection
        }
        k += x * st[d];
      }
      out[i] = inside ? a.data[k] : fill;
    }
    return {dataType: a.dataType, shape, data: out};
  },
  prelu: (a, slope) => mapBinary(a, slope, a.dataType, (x, y) => (x >= 0 ? x : x * y)),
  reduceL1: (a, o) => reduce(a, o, (x, y) => x + (y < 0 ? -y : y), null),
  reduceSumSquare: (a, o) => reduce(a, o, (x, y) => x + y * y, null),
  reverse: (a, {axes} = {}) => {
    const r = a.shape.length, ax = axes ?? [...Array(r).keys()];
    return remap(a, a.shape, (c) => c.map((v, d) => (ax.includes(d) ? a.shape[d] - 1 - v : v)));
  },
  tile: (a, {repetitions}) =>
    remap(a, a.shape.map((d, i) => d * repetitions[i]), (c) => c.map((v, d) => v % a.shape[d])),
  triangular: (a, {upper = true, diagonal = 0} = {}) => {
    const r = a.shape.length, out = new ARRAYS[a.dataType](a.data.length);
    const h = a.shape[r - 2], w = a.shape[r - 1], zero = fromNumber(a.dataType, 0);
    for (let i = 0; i < a.data.length; i++) {
      const col = i % w, row = Math.floor(i / w) % h;
      const keep = upper ? col - row >= diagonal : col - row <= diagonal;
      out[i] = keep ? a.data[i] : zero;
    }
    return {dataType: a.dataType, shape: [...a.shape], data: out};
  },
  split: (a, {splits, axis = 0}) => {
    const dim = a.shape[axis];
    const sizes = typeof splits === "number" ? Array(splits).fill(dim / splits) : splits;
    let start = 0;
    return sizes.map((z) => {
      const starts = a.shape.map((_, d) => (d === axis ? start : 0));
      const sz = a.shape.map((n, d) => (d === axis ? z : n));
      start += z;
      return CpuOps.slice(a, {starts, sizes: sz});
    });
  },
  gatherElements: (a, idx, {axis = 0} = {}) => {
    const dim = a.shape[axis];
    return remapFrom(a, idx.shape, (c, i) => {
      let v = Number(idx.data[i]);
      if (v < 0) v += dim;
      if (v < 0 || v >= dim) throw new RangeError(`cpuops: gatherElements index ${idx.data[i]} out of [0, ${dim})`);
      return c.map((x, d) => (d === axis ? v : x));
    });
  },
  gatherND: (a, idx) => {
    const k = idx.shape[idx.shape.length - 1], lead = idx.shape.slice(0, -1);
    const rest = a.shape.slice(k), inner = numel(rest), st = strides(a.shape);
    const n = numel(lead), out = new ARRAYS[a.dataType](n * inner);
    for (let i = 0; i < n; i++) {
      let off = 0;
      for (let j = 0; j < k; j++) {
        let v = Number(idx.data[i * k + j]);
        if (v < 0) v += a.shape[j];
        if (v < 0 || v >= a.shape[j]) throw new RangeError(`cpuops: gatherND index ${v} out of [0, ${a.shape[j]})`);
        off += v * st[j];
      }
      out.set(a.data.subarray(off, off + inner), i * inner);
    }
    return {dataType: a.dataType, shape: [...lead, ...rest], data: out};
  },
  scatterElements: (a, idx, upd, {axis = 0, reduction} = {}) => {
    const out = a.data.slice(), st = strides(a.shape), dim = a.shape[axis];
    const put = scatterPut(a.dataType, reduction);
    const us = strides(upd.shape);
    for (let i = 0; i < upd.data.length; i++) {
      let rem = i, off = 0;
      for (let d = 0; d < upd.shape.length; d++) {
        let c = Math.floor(rem / us[d]);
        rem -= c * us[d];
        if (d === axis) {
          c = Number(idx.data[i]);
          if (c < 0) c += dim;
          if (c < 0 || c >= dim) throw new RangeError(`cpuops: scatterElements index out of [0, ${dim})`);
        }
        off += c * st[d];
      }
      put(out, off, upd.data, i);
    }
    return {dataType: a.dataType, shape: [...a.shape], data: out};
  },
  scatterND: (a, idx, upd, {reduction} = {}) => {
    const out = a.data.slice(), k = idx.shape[idx.shape.length - 1];
    const put = scatterPut(a.dataType, reduction);
    const inner = numel(a.shape.slice(k)), st = strides(a.shape);
    const n = numel(idx.shape.slice(0, -1));
    for (let i = 0; i < n; i++) {
      let off = 0;
      for (let j = 0; j < k; j++) {
        let v = Number(idx.data[i * k + j]);
        if (v < 0) v += a.shape[j];
        if (v < 0 || v >= a.shape[j]) throw new RangeError(`cpuops: scatterND index out of [0, ${a.shape[j]})`);
        off += v * st[j];
      }
      if (!reduction) {
        out.set(upd.data.subarray(i * inner, (i + 1) * inner), off);
        continue;
      }
      for (let e = 0; e < inner; e++)
        put(out, off + e, upd.data, i * inner + e);
    }
    return {dataType: a.dataType, shape: [...a.shape], data: out};
  },
  // nnl's, beyond WebNN: the same with a reduction
  scatterElementsReduce: (a, idx, upd, o) =>
    CpuOps.scatterElements(a, idx, upd, o),
  scatterNDReduce: (a, idx, upd, o) => CpuOps.scatterND(a, idx, upd, o),
  maxPool2d: (a, o = {}) => pool2d(a, o),
  maxPool2dIndices: (a, o = {}) => pool2d(a, o, true),
  reduceMean: (a, o) => {
    const s = reduce(a, o, (x, y) => x + y, null), k = a.data.length / (s.data.length || 1);
    return unary(s, s.dataType, (x) => (typeof x === "bigint" ? x / BigInt(k) : x / k));
  },
  // float math, for what runs here because of its type (nnl's float64
  // and bfloat16, beyond WebNN): computed in double, stored rounded
  ceil: (a) => unary(a, a.dataType, Math.ceil),
  floor: (a) => unary(a, a.dataType, Math.floor),
  exp: (a) => unary(a, a.dataType, Math.exp),
  log: (a) => unary(a, a.dataType, Math.log),
  sqrt: (a) => unary(a, a.dataType, Math.sqrt),
  sin: (a) => unary(a, a.dataType, Math.sin),
  cos: (a) => unary(a, a.dataType, Math.cos),
  tan: (a) => unary(a, a.dataType, Math.tan),
  tanh: (a) => unary(a, a.dataType, Math.tanh),
  reciprocal: (a) => unary(a, a.dataType, (x) => 1 / x),
  roundEven: (a) => unary(a, a.dataType, roundEven),
  sigmoid: (a) => unary(a, a.dataType, (x) => 1 / (1 + Math.exp(-x))),
  reduceL2: (a, o) => floatReduce(a, o, (x, y) => x + y * y, Math.sqrt),
  reduceLogSum: (a, o) => floatReduce(a, o, (x, y) => x + y, Math.log),
  softmax: (a, {axis}) => {
    // the maximum taken out of each row first: exp neither overflows
    // nor underflows
    const d = unary(a, "float64", (x) => x), n = a.shape[axis];
    const inner = numel(a.shape.slice(axis + 1)), outer = d.data.length / (n * inner || 1);
    for (let o = 0; o < outer; o++)
      for (let i = 0; i < inner; i++) {
        const at = (k) => (o * n + k) * inner + i;
        let m = -Infinity, sum = 0;
        for (let k = 0; k < n; k++) m = Math.max(m, d.data[at(k)]);
        for (let k = 0; k < n; k++) sum += Math.exp(d.data[at(k)] - m);
        for (let k = 0; k < n; k++) d.data[at(k)] = Math.exp(d.data[at(k)] - m) / sum;
      }
    return unary(d, a.dataType, (x) => x);
  },
  reduceLogSumExp: (a, o) => {
    // exp(x - max) summed, for a sum that neither overflows nor
    // underflows; log(sum) + max
    const d = unary(a, "float64", (x) => x);
    const m = reduce(d, {...o, keepDimensions: true}, (x, y) => (y > x ? y : x), "first");
    const e = mapBinary(d, m, "float64", (x, y) => Math.exp(x - (Number.isFinite(y) ? y : 0)));
    const s = reduce(e, {...o, keepDimensions: true}, (x, y) => x + y, null);
    const r = mapBinary(s, m, a.dataType, (x, y) => Math.log(x) + (Number.isFinite(y) ? y : 0));
    return {...r, shape: reduce(a, o, (x) => x, null).shape};
  },
  // nnl's integer products: 8-bit operands less their zero points
  // (broadcast), summed in int32 with wrapping, as ONNX's
  // MatMulInteger and ConvInteger
  matMulInteger: (a, b, az, bz) => {
    const A = shiftInt(a, az), B = shiftInt(b, bz);
    const ra = a.shape.length, rb = b.shape.length;
    const [M, K] = a.shape.slice(ra - 2), N = b.shape[rb - 1];
    const sa = a.shape.slice(0, ra - 2), sb = b.shape.slice(0, rb - 2);
    const batch = broadcastShape(sa, sb), out = new Int32Array(numel(batch) * M * N);
    for (let t = 0; t < numel(batch); t++) {
      const ao = bindex(sa, batch, t) * M * K, bo = bindex(sb, batch, t) * K * N;
      for (let i = 0; i < M; i++)
        for (let j = 0; j < N; j++) {
          let s = 0;
          for (let k = 0; k < K; k++)
            s = (s + Math.imul(A[ao + i * K + k], B[bo + k * N + j])) | 0;
          out[(t * M + i) * N + j] = s;
        }
    }
    return {dataType: "int32", shape: [...batch, M, N], data: out};
  },
  conv2dInteger: (x, w, xz, wz, {padding = [0, 0, 0, 0],
    strides: [sh, sw] = [1, 1], dilations: [dh, dw] = [1, 1], groups = 1} = {}) => {
    const [pt, pb, pl, pr] = padding;
    const X = shiftInt(x, xz), Wt = shiftInt(w, wz);
    const [N, C, H, W] = x.shape, [O, cg, KH, KW] = w.shape, og = O / groups;
    const OH = Math.floor((H + pt + pb - (KH - 1) * dh - 1) / sh) + 1;
    const OW = Math.floor((W + pl + pr - (KW - 1) * dw - 1) / sw) + 1;
    const out = new Int32Array(N * O * OH * OW);
    for (let n = 0; n < N; n++)
      for (let o = 0; o < O; o++)
        for (let oy = 0; oy < OH; oy++)
          for (let ox = 0; ox < OW; ox++) {
            let s = 0;
            for (let c = 0; c < cg; c++)
              for (let p = 0; p < KH; p++)
                for (let q = 0; q < KW; q++) {
                  const iy = oy * sh - pt + p * dh, ix = ox * sw - pl + q * dw;
                  if (iy < 0 || iy >= H || ix < 0 || ix >= W) continue;
                  s = (s + Math.imul(X[((n * C + Math.floor(o / og) * cg + c) * H + iy) * W + ix],
                    Wt[((o * cg + c) * KH + p) * KW + q])) | 0;
                }
            out[((n * O + o) * OH + oy) * OW + ox] = s;
          }
    return {dataType: "int32", shape: [N, O, OH, OW], data: out};
  },
  // int32 times a float32 scale plus the zero point, in double, rounded
  // to nearest even and saturated to the zero point's 8 bits (NaN: the
  // zero point)
  requantizeLinear: (a, s, z) => {
    const [lo, hi] = z.dataType === "int8" ? [-128, 127] : [0, 255];
    const out = new ARRAYS[z.dataType](a.data.length);
    for (let i = 0; i < a.data.length; i++) {
      const zp = z.data[bindex(z.shape, a.shape, i)];
      const v = a.data[i] * s.data[bindex(s.shape, a.shape, i)] + zp;
      out[i] = Number.isNaN(v) ? zp : Math.min(Math.max(roundEven(v), lo), hi);
    }
    return {dataType: z.dataType, shape: [...a.shape], data: out};
  },
  // ONNX's TfIdfVectorizer: counts of the pool's n-grams (n from
  // minGramLength to maxGramLength, items max skip apart at most; a
  // 1-gram once), weighted per mode
  tfIdfVectorizer: (a, {mode = "tf", minGramLength: lo = 1,
    maxGramLength: hi = 1, maxSkipCount: sk = 0, ngramCounts: cnt = [],
    ngramIndexes: ix = [], pool = [], weights} = {}) => {
    const big = isBig(a.dataType), P = pool.length, G = cnt.length;
    const items = big ? pool.map((v) => BigInt(v)) : pool;
    const O = Math.max(...ix) + 1, C = a.shape[a.shape.length - 1];
    const B = a.shape.length === 2 ? a.shape[0] : 1, out = new Float32Array(B * O);
    const end = (g) => (g + 1 < G ? cnt[g + 1] : P);
    for (let b = 0; b < B; b++) {
      let first = 0;
      for (let n = 1; n <= Math.min(hi, G); n++) {
        const p0 = cnt[n - 1], p1 = end(n - 1);
        for (let s = 0; n >= lo && s <= (n === 1 ? 0 : sk); s++)
          for (let i = 0; i + (n - 1) * (s + 1) < C; i++)
            for (let e = p0; e + n <= p1; e += n) {
              let k = 0;
              while (k < n && a.data[b * C + i + k * (s + 1)] === items[e + k]) k++;
              if (k === n) out[b * O + ix[first + (e - p0) / n]] += 1;
            }
        first += (p1 - p0) / n;
      }
      for (let o = 0; o < O; o++) {
        const w = weights ? weights[o] : 1, k = b * O + o;
        if (mode === "idf") out[k] = out[k] > 0 ? w : 0;
        else if (mode === "tfIdf") out[k] = out[k] * w;
      }
    }
    return {dataType: "float32", shape: a.shape.length === 2 ? [B, O] : [O], data: out};
  },
};

// A reduction of a float tensor computed in double: f folds each item
// into the sum (from 0), fin finishes it.
function floatReduce(a, o, f, fin) {
  const s = reduce(unary(a, "float64", (x) => x), o, f, null);
  return unary(s, a.dataType, fin);
}

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

// The integers a float casts to: the ends of each type (for 64 bits,
// the largest doubles within it)
const CAST_RANGE = {int8: [-128, 127], uint8: [0, 255], int16: [-32768, 32767],
  uint16: [0, 65535], int32: [-(2 ** 31), 2 ** 31 - 1], uint32: [0, 2 ** 32 - 1],
  int64: [-(2 ** 63), 2 ** 63 - 1024], uint64: [0, 2 ** 64 - 2048]};

const RANGE = {int8: [-128, 127], uint8: [0, 255], int32: [-(2 ** 31), 2 ** 31 - 1],
  uint32: [0, 2 ** 32 - 1], int4: [-8, 7], uint4: [0, 15],
  int64: [-(2 ** 63), 2 ** 63], uint64: [0, 2 ** 64]};

// round half to even, as WebNN's quantizeLinear
function roundEven(x) {
  const f = Math.floor(x), d = x - f;
  if (d > 0.5) return f + 1;
  if (d < 0.5) return f;
  return f % 2 === 0 ? f : f + 1;
}

// The flat index into a scale of shape s for the flat index i of a
// tensor of shape out: each dimension of s divides out's (blocks), or
// is 1, or s has fewer dimensions (broadcast from the right).
function blockIndex(s, out, i) {
  let k = 0, stride = 1;
  for (let d = out.length - 1; d >= 0; d--) {
    const n = out[d], c = i % n;
    i = (i - c) / n;
    const sd = d - (out.length - s.length);
    if (sd >= 0) {
      const block = n / s[sd];
      k += Math.floor(c / block) * stride;
      stride *= s[sd];
    }
  }
  return k;
}

// argMax/argMin along axis: the first index of the extreme value
function argReduce(a, axis, keep, outType, better) {
  const dim = a.shape[axis], inner = numel(a.shape.slice(axis + 1));
  const outer = numel(a.shape.slice(0, axis));
  const shape = keep ? a.shape.map((d, i) => (i === axis ? 1 : d)) :
    a.shape.filter((_, i) => i !== axis);
  const out = new ARRAYS[outType](outer * inner);
  for (let o = 0; o < outer; o++)
    for (let i = 0; i < inner; i++) {
      let best = 0, bv = read(a, a.data[o * dim * inner + i]);
      for (let t = 1; t < dim; t++) {
        const v = read(a, a.data[(o * dim + t) * inner + i]);
        if (better(v, bv)) { best = t; bv = v; }
      }
      out[o * inner + i] = fromNumber(outType, best);
    }
  return {dataType: outType, shape, data: out};
}

// A tensor of shape `shape` whose item at coordinates c is a's item at
// coordinates f(c).
function remap(a, shape, f) {
  return remapFrom(a, shape, (c) => f(c));
}
function remapFrom(a, shape, f) {
  const n = numel(shape), out = new ARRAYS[a.dataType](n), st = strides(a.shape);
  const os = strides(shape);
  for (let i = 0; i < n; i++) {
    const c = os.map((s, d) => Math.floor(i / s) % shape[d]);
    const src = f(c, i);
    let k = 0;
    for (let d = 0; d < src.length; d++) k += src[d] * st[d];
    out[i] = a.data[k];
  }
  return {dataType: a.dataType, shape: [...shape], data: out};
}

// t less its zero point z (broadcast to it), as int32
function shiftInt(t, z) {
  return Int32Array.from(t.data, (v, i) => v - z.data[bindex(z.shape, t.shape, i)]);
}

// maxPool2d by its definition: padded cells take no part
// maxPool2d, or with idx (nnl's maxPool2dIndices) the flat input index
// of each window's largest element (ties to the first), row-major or
// with storageOrder "columnMajor" (n * C + c) * H * W + w * H + h.
function pool2d(a, o, idx = false) {
  const nhwc = o.layout === "nhwc";
  const [N, C, H, W] = nhwc ? [a.shape[0], a.shape[3], a.shape[1], a.shape[2]] : a.shape;
  const [kh, kw] = o.windowDimensions ?? [H, W], [sh, sw] = o.strides ?? [1, 1];
  const [dh, dw] = o.dilations ?? [1, 1], [pt, pb, pl, pr] = o.padding ?? [0, 0, 0, 0];
  const rnd = o.outputShapeRounding === "ceil" ? Math.ceil : Math.floor;
  const [OH, OW] = o.outputSizes ?? [rnd((H + pt + pb - (kh - 1) * dh - 1) / sh) + 1,
    rnd((W + pl + pr - (kw - 1) * dw - 1) / sw) + 1];
  const at = (n, c, y, x) => (nhwc ? ((n * H + y) * W + x) * C + c : ((n * C + c) * H + y) * W + x);
  const shape = nhwc ? [N, OH, OW, C] : [N, C, OH, OW];
  const out = new ARRAYS[idx ? "int64" : a.dataType](N * C * OH * OW);
  const cm = o.storageOrder === "columnMajor";
  for (let n = 0; n < N; n++)
    for (let c = 0; c < C; c++)
      for (let oy = 0; oy < OH; oy++)
        for (let ox = 0; ox < OW; ox++) {
          let best, by = 0, bx = 0;
          for (let p = 0; p < kh; p++)
            for (let q = 0; q < kw; q++) {
              const iy = oy * sh - pt + p * dh, ix = ox * sw - pl + q * dw;
              if (iy < 0 || iy >= H || ix < 0 || ix >= W) continue;
              const v = read(a, a.data[at(n, c, iy, ix)]);
              if (best === undefined || v > best) [best, by, bx] = [v, iy, ix];
            }
          const k = nhwc ? ((n * OH + oy) * OW + ox) * C + c : ((n * C + c) * OH + oy) * OW + ox;
          const at0 = (n * C + c) * H * W;
          out[k] = idx ? BigInt(at0 + (cm ? bx * H + by : by * W + bx)) :
            fromNumber(a.dataType, best);
        }
  return {dataType: idx ? "int64" : a.dataType, shape, data: out};
}

// nnl's 3-D convolutions and pools (beyond WebNN) on [N, C, D, H, W],
// padding [beginD, endD, beginH, endH, beginW, endW], as rt/nn/nd.c:
// the sums in double, each output rounded once
function floats(t) {
  return Float64Array.from(t.data, (v) => read(t, v));
}
function biasOf(r) {
  const o = r[r.length - 1] ?? {};
  if (r.length > 1) return [r[0], o];
  return [o.bias !== null && typeof o.bias === "object" ? o.bias : null, o];
}
function geom3(o) {
  return [o.strides ?? [1, 1, 1], o.dilations ?? [1, 1, 1],
    o.padding ?? [0, 0, 0, 0, 0, 0]];
}
function conv3d(x, f, b, o) {
  const [N, C, ...I] = x.shape, [O, icg, ...K] = f.shape;
  const [s, d, p] = geom3(o), G = o.groups ?? 1, ocg = O / G;
  const Y = I.map((n, i) => Math.floor((n + p[2 * i] + p[2 * i + 1] -
    (K[i] - 1) * d[i] - 1) / s[i]) + 1);
  const xs = floats(x), ws = floats(f), bs = b ? floats(b) : null;
  const out = new ARRAYS[x.dataType](N * O * Y[0] * Y[1] * Y[2]);
  let q = 0;
  for (let n = 0; n < N; n++)
    for (let oc = 0; oc < O; oc++) {
      const g = Math.floor(oc / ocg);
      for (let z = 0; z < Y[0]; z++)
        for (let yy = 0; yy < Y[1]; yy++)
          for (let xx = 0; xx < Y[2]; xx++) {
            let acc = bs ? bs[oc] : 0;
            for (let c = 0; c < icg; c++)
              for (let a = 0; a < K[0]; a++) {
                const iz = z * s[0] - p[0] + a * d[0];
                if (iz < 0 || iz >= I[0]) continue;
                for (let e = 0; e < K[1]; e++) {
                  const iy = yy * s[1] - p[2] + e * d[1];
                  if (iy < 0 || iy >= I[1]) continue;
                  for (let h = 0; h < K[2]; h++) {
                    const ix = xx * s[2] - p[4] + h * d[2];
                    if (ix < 0 || ix >= I[2]) continue;
                    const xi = (((n * C + g * icg + c) * I[0] + iz) * I[1] +
                      iy) * I[2] + ix;
                    acc += xs[xi] *
                      ws[(((oc * icg + c) * K[0] + a) * K[1] + e) * K[2] + h];
                  }
                }
              }
            out[q++] = fromNumber(x.dataType, acc);
          }
    }
  return {dataType: x.dataType, shape: [N, O, ...Y], data: out};
}
function convTranspose3d(x, f, b, o) {
  const [N, C, ...I] = x.shape, [, ocg, ...K] = f.shape;
  const [s, d, p] = geom3(o), G = o.groups ?? 1, O = ocg * G, icg = C / G;
  const op = o.outputPadding ?? [0, 0, 0];
  const Y = I.map((n, i) => (n - 1) * s[i] + (K[i] - 1) * d[i] + 1 -
    p[2 * i] - p[2 * i + 1] + op[i]);
  const P = Y[0] * Y[1] * Y[2], xs = floats(x), ws = floats(f);
  const acc = new Float64Array(N * O * P);
  if (b) {
    const bs = floats(b);
    for (let i = 0; i < acc.length; i++) acc[i] = bs[Math.floor(i / P) % O];
  }
  for (let n = 0; n < N; n++)
    for (let c = 0; c < C; c++) {
      const g = Math.floor(c / icg);
      for (let z = 0; z < I[0]; z++)
        for (let yy = 0; yy < I[1]; yy++)
          for (let xx = 0; xx < I[2]; xx++) {
            const v = xs[(((n * C + c) * I[0] + z) * I[1] + yy) * I[2] + xx];
            for (let q = 0; q < ocg; q++)
              for (let a = 0; a < K[0]; a++) {
                const oz = z * s[0] - p[0] + a * d[0];
                if (oz < 0 || oz >= Y[0]) continue;
                for (let e = 0; e < K[1]; e++) {
                  const oy = yy * s[1] - p[2] + e * d[1];
                  if (oy < 0 || oy >= Y[1]) continue;
                  for (let h = 0; h < K[2]; h++) {
                    const ox = xx * s[2] - p[4] + h * d[2];
                    if (ox < 0 || ox >= Y[2]) continue;
                    const yi = (((n * O + g * ocg + q) * Y[0] + oz) * Y[1] +
                      oy) * Y[2] + ox;
                    acc[yi] +=
                      v * ws[(((c * ocg + q) * K[0] + a) * K[1] + e) * K[2] + h];
                  }
                }
              }
          }
    }
  return {dataType: x.dataType, shape: [N, O, ...Y],
    data: ARRAYS[x.dataType].from(acc, (v) => fromNumber(x.dataType, v))};
}
// kind "average", "lp" or "max"; the padding is left out (counted by
// an average with countIncludePad); ceil rounding drops a last window
// that starts past the input and its beginning padding
function pool3d(kind, x, o) {
  const [N, C, ...I] = x.shape, [s, d, p] = geom3(o);
  const K = o.windowDimensions ?? I, P = o.p ?? 2;
  const up = o.outputShapeRounding === "ceil", incl = !!o.countIncludePad;
  const Y = I.map((n, i) => {
    const num = n + p[2 * i] + p[2 * i + 1] - (K[i] - 1) * d[i] - 1;
    let v = (up ? Math.ceil(num / s[i]) : Math.floor(num / s[i])) + 1;
    if (up && v > 1 && (v - 1) * s[i] >= n + p[2 * i]) v--;
    return v;
  });
  const xs = floats(x);
  const out = new ARRAYS[x.dataType](N * C * Y[0] * Y[1] * Y[2]);
  const taps = (st, i, lo, hi) => {
    const r = [];
    for (let j = 0; j < K[i]; j++) {
      const v = st + j * d[i];
      if (v >= lo && v < hi) r.push(v);
    }
    return r;
  };
  let q = 0;
  for (let pl = 0; pl < N * C; pl++)
    for (let z = 0; z < Y[0]; z++)
      for (let yy = 0; yy < Y[1]; yy++)
        for (let xx = 0; xx < Y[2]; xx++) {
          const st = [z, yy, xx].map((v, i) => v * s[i] - p[2 * i]);
          const T = st.map((v, i) => taps(v, i, 0, I[i]));
          const cnt = (incl ? st.map((v, i) =>
            taps(v, i, -p[2 * i], I[i] + p[2 * i + 1])) : T)
            .reduce((u, v) => u * v.length, 1);
          let acc = kind === "max" ? -Infinity : 0;
          for (const a of T[0])
            for (const e of T[1])
              for (const h of T[2]) {
                const v = xs[((pl * I[0] + a) * I[1] + e) * I[2] + h];
                if (kind === "max") acc = v > acc || v !== v ? v : acc;
                else if (kind === "average") acc += v;
                else acc += Math.abs(v) ** P;
              }
          if (kind === "average") acc = cnt ? acc / cnt : 0;
          else if (kind === "lp") acc = acc ** (1 / P);
          out[q++] = fromNumber(x.dataType, acc);
        }
  return {dataType: x.dataType, shape: [N, C, ...Y], data: out};
}
