// wasm: run a model's WebAssembly build (nnc compile --emit wasm) from
// JavaScript, in a browser or in node.  The module is a WASI reactor
// with its weights inside; it exports its memory, _initialize and
// nnl_infer, nnl_input_bytes, nnl_output_bytes, nnl_alloc, nnl_free.
// nnl-emit-js --wasm pastes this file into the module it writes.

// The bytes at url (relative to this module): fetch, or in node the
// file system for file: URLs, which node's fetch does not read.
export async function wasmFetchBytes(url) {
  const u = new URL(url, import.meta.url);
  if (u.protocol === "file:" && globalThis.process && globalThis.process.versions &&
      globalThis.process.versions.node) {
    const fs = await import("node:fs/promises");
    const b = await fs.readFile(u);
    return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength);
  }
  const response = await fetch(u);
  if (!response.ok) throw new Error(`${u}: HTTP ${response.status}`);
  return await response.arrayBuffer();
}

// WASI, as little as a reactor that does no I/O needs: each function the
// module imports from wasi_snapshot_preview1 answers ENOSYS (52), and
// proc_exit throws.
function wasmWasiStubs(module) {
  const wasi = Object.create(null);
  for (const imp of WebAssembly.Module.imports(module)) {
    if (imp.module !== "wasi_snapshot_preview1" || imp.kind !== "function") continue;
    wasi[imp.name] = imp.name === "proc_exit" ?
      (code) => { throw new Error(`WebAssembly: the model called proc_exit(${code})`); } :
      () => 52;
  }
  return wasi;
}

// Instantiate a model's module (a URL, its bytes or a WebAssembly.Module),
// run its constructors, and allocate its input and output buffers.
export async function wasmInstantiate(source) {
  let module = source;
  if (!(source instanceof WebAssembly.Module)) {
    const bytes = typeof source === "string" || source instanceof URL ?
      await wasmFetchBytes(source) : source;
    module = await WebAssembly.compile(bytes);
  }
  const instance = await WebAssembly.instantiate(module,
    {wasi_snapshot_preview1: wasmWasiStubs(module)});
  const x = instance.exports;
  for (const name of ["memory", "nnl_infer", "nnl_input_bytes", "nnl_output_bytes", "nnl_alloc"])
    if (!(name in x))
      throw new Error(`WebAssembly: the module exports no ${name} (build it with nnc compile --emit wasm)`);
  if (typeof x._initialize === "function") x._initialize();
  const inBytes = x.nnl_input_bytes() >>> 0, outBytes = x.nnl_output_bytes() >>> 0;
  const inPtr = x.nnl_alloc(Math.max(inBytes, 1)) >>> 0, outPtr = x.nnl_alloc(Math.max(outBytes, 1)) >>> 0;
  if (!inPtr || !outPtr) throw new Error("WebAssembly: out of memory for the input and output buffers");
  return {exports: x, inPtr, outPtr, inBytes, outBytes};
}

const WASM_ARRAYS = {float32: Float32Array, float16: Uint16Array,
  int32: Int32Array, uint32: Uint32Array, int64: BigInt64Array,
  uint64: BigUint64Array, int8: Int8Array, uint8: Uint8Array};

function wasmBytesOf(d) {
  const T = WASM_ARRAYS[d.dataType];
  if (!T) throw new TypeError(`WebAssembly: no typed array for ${d.dataType}`);
  return d.shape.reduce((a, b) => a * b, 1) * T.BYTES_PER_ELEMENT;
}

// The descriptors of table in order, the model's declared order of its
// names: the packing, whatever order JavaScript keeps the keys in
// (integer-like keys such as "7" come first).
function wasmOrdered(what, table, order) {
  const keys = Object.keys(table);
  if (!Array.isArray(order) || order.length !== keys.length ||
      new Set(order).size !== order.length ||
      !order.every((n) => Object.prototype.hasOwnProperty.call(table, n)))
    throw new Error(`WebAssembly: the ${what} order does not name each of the ${what}s once`);
  return order.map((n) => [n, table[n]]);
}

// Run an instantiated model: inputs and outputs are the tables of
// descriptors {dataType, shape} by name, inputOrder and outputOrder
// their names in the order the model packs them; values holds a typed
// array for every input.  Resolves to the outputs by name, each a
// typed array of its own.
export function wasmRun(w, inputs, inputOrder, outputs, outputOrder, values) {
  const ins = wasmOrdered("input", inputs, inputOrder);
  const outs = wasmOrdered("output", outputs, outputOrder);
  let off = 0, need = 0;
  for (const [, d] of ins) need += wasmBytesOf(d);
  if (need !== w.inBytes)
    throw new Error(`WebAssembly: the module takes ${w.inBytes} bytes of input, the inputs ${need}`);
  need = 0;
  for (const [, d] of outs) need += wasmBytesOf(d);
  if (need !== w.outBytes)
    throw new Error(`WebAssembly: the module writes ${w.outBytes} bytes of output, the outputs ${need}`);
  const memory = new Uint8Array(w.exports.memory.buffer);
  for (const [name, d] of ins) {
    if (!Object.prototype.hasOwnProperty.call(values, name))
      throw new TypeError(`run: no value for input ${JSON.stringify(name)}`);
    const v = values[name], n = wasmBytesOf(d);
    if (!ArrayBuffer.isView(v) || v.byteLength !== n)
      throw new RangeError(`run: input ${JSON.stringify(name)} needs a typed array of ${n} bytes (${d.dataType}[${d.shape}])`);
    memory.set(new Uint8Array(v.buffer, v.byteOffset, n), w.inPtr + off);
    off += n;
  }
  const rc = w.exports.nnl_infer(w.inPtr, w.outPtr);
  if (rc !== 0) throw new Error(`WebAssembly: the model returned ${rc}`);
  const after = new Uint8Array(w.exports.memory.buffer), result = Object.create(null);
  off = 0;
  for (const [name, d] of outs) {
    const n = wasmBytesOf(d);
    result[name] = new WASM_ARRAYS[d.dataType](after.slice(w.outPtr + off, w.outPtr + off + n).buffer);
    off += n;
  }
  return result;
}
