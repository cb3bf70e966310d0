// weights: the weights file and manifest of a module that
// nnl-emit-js --weights-at-load wrote, chosen when it loads, not when
// it was written, so that one graph serves several weight files.  The
// module names each constant's manifest tensor with the data type and
// shape the graph gives it; the offsets come from the manifest, and
// every constant is checked before any byte is read: its tensor in the
// manifest, with the graph's data type and shape and the byte length
// they take, inside the weights file after its header.  An error names
// the tensor and the constant.  WeightsFile has the shape of the class
// webnn-graph's emitted code exports: buffer, manifest, getSlice(name),
// getData(name), getTensorNames() and WeightsFile.load(weights,
// manifest).  nnl-emit-js pastes this file into such modules.

const WEIGHTS_BITS = {__proto__: null, float32: 32, float16: 16, int32: 32,
  uint32: 32, int64: 64, uint64: 64, int8: 8, uint8: 8, int4: 4, uint4: 4,
  float64: 64, int16: 16, uint16: 16, bfloat16: 16};

const weightsOwn = (o, k) => Object.prototype.hasOwnProperty.call(o, k);
const weightsIsBytes = (v) => v instanceof ArrayBuffer || ArrayBuffer.isView(v);
const weightsName = (v) => JSON.stringify(String(v));

// The ArrayBuffer of what: an ArrayBuffer, a view of one, or a URL or a
// path.  A browser fetches a URL or a path (relative to the page); node,
// which has no page, reads a path (relative to the working directory) or
// a file: URL from the file system, and fetches other URLs.
async function weightsRead(what, role) {
  if (what instanceof ArrayBuffer) return what;
  if (ArrayBuffer.isView(what))
    return what.buffer.slice(what.byteOffset, what.byteOffset + what.byteLength);
  if (typeof what !== "string" && !(what instanceof URL))
    throw new TypeError(`${role}: expected a URL, a path or an ArrayBuffer, got ${what === null ? "null" : typeof what}`);
  const proc = globalThis.process;
  if (proc && proc.versions && proc.versions.node && !globalThis.document) {
    let url = null;
    try { url = new URL(what); } catch { url = null; }
    if (url === null || url.protocol === "file:") {
      const fs = await import("node:fs/promises");
      let b;
      try { b = await fs.readFile(url || what); } catch (err) {
        throw new Error(`${role}: ${what}: ${err.message}`);
      }
      return b.byteOffset === 0 && b.byteLength === b.buffer.byteLength ?
        b.buffer : b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength);
    }
  }
  let response;
  try { response = await fetch(what); } catch (err) {
    throw new Error(`${role}: ${what}: ${err.message}`);
  }
  if (!response.ok) throw new Error(`${role}: ${what}: HTTP ${response.status}`);
  return await response.arrayBuffer();
}

// Check a manifest object: its format, version and endianness, and that
// it has a tensors object.
function weightsManifestCheck(m) {
  if (m === null || typeof m !== "object" || Array.isArray(m))
    throw new TypeError("manifest: expected a JSON object");
  if (m.format !== "wg-weights-manifest")
    throw new Error(`manifest: format ${JSON.stringify(m.format)}, not "wg-weights-manifest"`);
  if (m.version !== 1)
    throw new Error(`manifest: version ${JSON.stringify(m.version)}, not 1`);
  if (m.endianness !== undefined && m.endianness !== "little")
    throw new Error(`manifest: endianness ${JSON.stringify(m.endianness)}: WebNN reads little-endian bytes`);
  if (m.tensors === null || typeof m.tensors !== "object" || Array.isArray(m.tensors))
    throw new Error("manifest: no \"tensors\" object");
  return m;
}

// A manifest: the object itself, or its JSON (bytes, a URL or a path).
async function weightsManifestRead(what) {
  if (what !== null && typeof what === "object" && !weightsIsBytes(what) &&
      !(what instanceof URL))
    return weightsManifestCheck(what);
  const bytes = await weightsRead(what, "manifest");
  let m;
  try { m = JSON.parse(new TextDecoder().decode(bytes)); } catch (err) {
    throw new Error(`manifest: ${typeof what === "string" || what instanceof URL ? what + ": " : ""}not JSON: ${err.message}`);
  }
  return weightsManifestCheck(m);
}

// Check a weights file's header: "WGWT" and the format version, 1.
function weightsHeaderCheck(bytes) {
  if (bytes.length < 8)
    throw new Error(`weights: ${bytes.length} bytes, shorter than the 8-byte header`);
  const magic = String.fromCharCode(bytes[0], bytes[1], bytes[2], bytes[3]);
  if (magic !== "WGWT")
    throw new Error(`weights: not a WGWT weights file (magic ${JSON.stringify(magic)})`);
  const version = bytes[4] | bytes[5] << 8 | bytes[6] << 16 | bytes[7] << 24;
  if (version !== 1)
    throw new Error(`weights: format version ${version >>> 0}, not 1`);
}

// A weights file and its manifest, as webnn-graph's emitted code has
// them.
export class WeightsFile {
  constructor(buffer, manifest) {
    this.buffer = buffer;
    this.manifest = manifest;
  }

  // The weights file and its manifest (each a URL, a path or bytes; the
  // manifest may be the parsed object), their headers checked.
  static async load(weights, manifest) {
    const [buffer, m] = await Promise.all([weightsRead(weights, "weights"),
      weightsManifestRead(manifest)]);
    weightsHeaderCheck(new Uint8Array(buffer));
    return new WeightsFile(buffer, m);
  }

  // The manifest's entry of tensor name.
  getSlice(name) {
    const t = this.manifest.tensors;
    if (!weightsOwn(t, name) || t[name] === null || typeof t[name] !== "object")
      throw new Error(`weights: the manifest has no tensor ${weightsName(name)}`);
    return t[name];
  }

  // A copy of tensor name's bytes, which must lie inside the file.
  getData(name) {
    const t = this.getSlice(name);
    const end = t.byteOffset + t.byteLength;
    if (!Number.isSafeInteger(t.byteOffset) || !Number.isSafeInteger(t.byteLength) ||
        t.byteOffset < 0 || t.byteLength < 0 || end > this.buffer.byteLength)
      throw new Error(`weights: tensor ${weightsName(name)} is not inside the weights file`);
    return this.buffer.slice(t.byteOffset, end);
  }

  getTensorNames() {
    return Object.keys(this.manifest.tensors);
  }
}

// The bytes and the manifest entries of weights: a WeightsFile or an
// object of its shape, {buffer, manifest} or {buffer, getSlice}.
function weightsParts(weights) {
  if (weights === null || typeof weights !== "object" || weightsIsBytes(weights) ||
      !("buffer" in weights))
    throw new TypeError("weights: expected a WeightsFile (loadWeights(weights, " +
      "manifest) makes one): this module reads each constant's offset from a " +
      "manifest when it loads");
  const b = weights.buffer;
  if (!weightsIsBytes(b))
    throw new TypeError("weights: its buffer is not an ArrayBuffer");
  const bytes = b instanceof ArrayBuffer ? new Uint8Array(b) :
    new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
  let slice;
  if (weights.manifest !== undefined) {
    const t = weightsManifestCheck(weights.manifest).tensors;
    slice = (name) => weightsOwn(t, name) ? t[name] : undefined;
  } else if (typeof weights.getSlice === "function") {
    slice = (name) => {
      try { return weights.getSlice(name); } catch { return undefined; }
    };
  } else {
    throw new TypeError("weights: it has neither a manifest nor getSlice()");
  }
  return {bytes, slice};
}

// Check weights against what the graph needs (needed: constant name ->
// {tensor, dataType, shape}) and return the reader of a constant's
// bytes, a view of the weights file.  Every constant is checked before
// any is read.
function weightsBind(weights, needed) {
  const names = Object.keys(needed);
  const at = Object.create(null);
  const read = (name) => {
    if (!weightsOwn(at, name))
      throw new RangeError(`weights: no constant ${weightsName(name)} is read from them`);
    return at[name];
  };
  if (names.length === 0) return read;
  const {bytes, slice} = weightsParts(weights);
  weightsHeaderCheck(bytes);
  for (const name of names) {
    const want = needed[name];
    const t = slice(want.tensor);
    const what = `weights: tensor ${weightsName(want.tensor)} (constant ${weightsName(name)})`;
    const shape = (s) => Array.isArray(s) ? `[${s.join(", ")}]` : JSON.stringify(s);
    if (t === undefined || t === null || typeof t !== "object")
      throw new Error(`${what}: not in the manifest`);
    if (t.dataType !== want.dataType)
      throw new Error(`${what}: the manifest says dataType ${JSON.stringify(t.dataType)}, the graph "${want.dataType}"`);
    if (!Array.isArray(t.shape) || t.shape.length !== want.shape.length ||
        t.shape.some((d, i) => d !== want.shape[i]))
      throw new Error(`${what}: the manifest says shape ${shape(t.shape)}, the graph ${shape(want.shape)}`);
    const { byteOffset: off, byteLength: len } = t;
    if (!Number.isSafeInteger(off) || off < 0 || !Number.isSafeInteger(len) || len < 0)
      throw new Error(`${what}: byteOffset ${JSON.stringify(off)} and byteLength ${JSON.stringify(len)} are not both integers from 0`);
    const n = want.shape.reduce((a, d) => a * d, 1);
    const need = Math.ceil(n * WEIGHTS_BITS[want.dataType] / 8);
    if (len !== need)
      throw new Error(`${what}: byteLength ${len}, and ${want.dataType} ${shape(want.shape)} takes ${need} bytes`);
    if (off < 8 || off + len > bytes.length)
      throw new Error(`${what}: bytes ${off} to ${off + len} are not inside the weights file (its 8-byte header, then ${bytes.length - 8} bytes)`);
    at[name] = bytes.subarray(off, off + len);
  }
  return read;
}

// weightsBind, then each constant's bytes against its tensor's checksum
// (XXH3-64 by hash) where the manifest gives one.
function weightsVerify(weights, needed, hash) {
  const read = weightsBind(weights, needed);
  const names = Object.keys(needed);
  if (names.length === 0) return read;
  const { slice } = weightsParts(weights);
  for (const name of names) {
    const sum = slice(needed[name].tensor).checksum;
    if (sum === undefined) continue;
    const m = typeof sum === "string" ? /^xxh3-64:([0-9a-f]{16})$/.exec(sum) : null;
    if (!m)
      throw new Error(`weights: tensor ${weightsName(needed[name].tensor)}: checksum ${JSON.stringify(sum)} is not "xxh3-64:" and 16 hexadecimal digits`);
    const got = hash(read(name)).toString(16).padStart(16, "0");
    if (got !== m[1])
      throw new Error(`weights: tensor ${weightsName(needed[name].tensor)} is corrupt (XXH3-64 ${got}, the manifest says ${m[1]})`);
  }
  return read;
}
