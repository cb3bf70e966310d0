// npy: .npy files in and out for the JavaScript tests, as tensors
// {dataType, shape, data} (typed arrays; float16 as its bits).
import { readFileSync, writeFileSync } from "node:fs";
import { ARRAYS } from "../../common/rt/js/cpuops.mjs";

const DESCR = {float32: "<f4", float16: "<f2", int32: "<i4", uint32: "<u4",
  int64: "<i8", uint64: "<u8", int8: "|i1", uint8: "|u1", float64: "<f8",
  int16: "<i2", uint16: "<u2", bfloat16: "<u2"};  // bfloat16: its bits

export function npyWrite(path, t) {
  const shape = t.shape.length === 1 ? `(${t.shape[0]},)` : `(${t.shape.join(", ")})`;
  let h = `{'descr': '${DESCR[t.dataType]}', 'fortran_order': False, 'shape': ${shape}, }`;
  h += " ".repeat(63 - ((10 + h.length) % 64)) + "\n";
  const head = Buffer.alloc(10);
  head.write("\x93NUMPY", 0, "latin1");
  head[6] = 1; head[7] = 0; head.writeUInt16LE(h.length, 8);
  writeFileSync(path, Buffer.concat([head, Buffer.from(h, "latin1"),
    Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength)]));
}

export function npyRead(path) {
  const b = readFileSync(path), n = b.readUInt16LE(8), h = b.toString("latin1", 10, 10 + n);
  const descr = h.match(/'descr': '([^']+)'/)[1];
  const dataType = Object.keys(DESCR).find((k) => DESCR[k] === descr || DESCR[k].slice(1) === descr.slice(1));
  const shape = h.match(/'shape': \(([^)]*)\)/)[1].split(",").filter((s) => s.trim()).map(Number);
  const raw = b.subarray(10 + n), T = ARRAYS[dataType];
  const data = new T(raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.byteLength));
  return {dataType, shape, data};
}

