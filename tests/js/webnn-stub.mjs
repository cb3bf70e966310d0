// webnn-stub: an MLContext and MLGraphBuilder that stand in for a WebNN
// implementation, derived from the specification's WebIDL
// (tests/data/webnn.idl).  Every builder call is checked against the
// IDL: the number of arguments, each argument's type, every member of
// every options dictionary (unknown members are refused, as a typo
// would be), enum values and integer ranges.  A call that does not
// match throws a TypeError naming the method and the argument.  The
// calls are recorded, and graph() gives the graph that was built as
// webnn-graph JSON, for nnl's C back end to run.
import { readFileSync } from "node:fs";

// ---- the IDL ----

function parseIdl(text) {
  text = text.replace(/\/\/.*$/gm, "").replace(/\/\*[\s\S]*?\*\//g, "");
  const dicts = {}, enums = {}, typedefs = {}, methods = {};
  for (const m of text.matchAll(/enum\s+(\w+)\s*\{([^}]*)\}/g))
    enums[m[1]] = [...m[2].matchAll(/"([^"]*)"/g)].map((x) => x[1]);
  for (const m of text.matchAll(/typedef\s+([\s\S]+?)\s+(\w+)\s*;/g))
    typedefs[m[2]] = m[1].trim();
  for (const m of text.matchAll(/dictionary\s+(\w+)\s*(?::\s*(\w+))?\s*\{([^}]*)\}/g)) {
    const members = {};
    for (const line of m[3].split(";")) {
      const t = line.replace(/\[[^\]]*\]/g, "").trim();
      if (!t) continue;
      const mm = t.match(/^(required\s+)?([\s\S]+?)\s+(\w+)(\s*=\s*[\s\S]+)?$/);
      if (mm) members[mm[3]] = { type: mm[2].trim(), required: !!mm[1] };
    }
    dicts[m[1]] = { parent: m[2], members };
  }
  for (const m of text.matchAll(/(?:partial\s+)?interface\s+MLGraphBuilder\s*\{([\s\S]*?)\n\};/g)) {
    for (const s of m[1].split(";")) {
      const t = s.replace(/\s+/g, " ").trim();
      const mm = t.match(/^(.+?) (\w+)\((.*)\)$/);
      if (!mm || mm[1].startsWith("constructor")) continue;
      const args = splitTop(mm[3]).map((a) => {
        let x = a.replace(/\[[^\]]*\]/g, "").trim();
        const optional = x.startsWith("optional ");
        if (optional) x = x.slice(9);
        x = x.replace(/\s*=\s*[^=]+$/, "");
        const i = x.lastIndexOf(" ");
        return { type: x.slice(0, i).trim(), name: x.slice(i + 1), optional };
      });
      (methods[mm[2]] ||= []).push({ returns: mm[1].trim(), args });
    }
  }
  return { dicts, enums, typedefs, methods };
}

// Split "a, sequence<b, c>, (d or e) f" at top-level commas.
function splitTop(s) {
  const out = [];
  let depth = 0, cur = "";
  for (const ch of s) {
    if ("<([".includes(ch)) depth++;
    if (">)]".includes(ch)) depth--;
    if (ch === "," && depth === 0) { out.push(cur); cur = ""; } else cur += ch;
  }
  if (cur.trim()) out.push(cur);
  return out;
}

// ---- checking values against IDL types ----

class MLOperand {
  constructor(name, graph) {
    this.name = name;
    Object.defineProperty(this, "graph", { value: graph });
  }
}

function make(idl) {
  function check(v, type, where) {
    type = type.replace(/\[[^\]]*\]/g, "").trim();
    if (idl.typedefs[type]) return check(v, idl.typedefs[type], where);
    if (type.startsWith("(") && type.endsWith(")")) {
      const alts = type.slice(1, -1).split(/\s+or\s+/);
      const errs = alts.map((a) => check(v, a, where));
      return errs.every((e) => e) ? `${where}: ${describe(v)} is none of ${type}` : null;
    }
    let m = type.match(/^sequence<(.+)>$/) || type.match(/^FrozenArray<(.+)>$/);
    if (m) {
      if (!Array.isArray(v)) return `${where}: expected a sequence, got ${describe(v)}`;
      for (let i = 0; i < v.length; i++) {
        const e = check(v[i], m[1], `${where}[${i}]`);
        if (e) return e;
      }
      return null;
    }
    m = type.match(/^record<\s*\w+\s*,\s*(.+)>$/);
    if (m) {
      if (typeof v !== "object" || v === null) return `${where}: expected a record`;
      for (const [k, x] of Object.entries(v)) {
        const e = check(x, m[1], `${where}.${k}`);
        if (e) return e;
      }
      return null;
    }
    switch (type) {
    case "MLOperand":
      return v instanceof MLOperand ? null : `${where}: expected an MLOperand, got ${describe(v)}`;
    case "unsigned long":
      return Number.isInteger(v) && v >= 0 && v <= 0xffffffff ? null :
        `${where}: expected an unsigned long, got ${describe(v)}`;
    case "long":
      return Number.isInteger(v) && v >= -0x80000000 && v <= 0x7fffffff ? null :
        `${where}: expected a long, got ${describe(v)}`;
    case "double": case "float":
      return typeof v === "number" && Number.isFinite(v) ? null : `${where}: expected a finite ${type}, got ${describe(v)}`;
    case "unrestricted double": case "unrestricted float":
      return typeof v === "number" ? null : `${where}: expected a number, got ${describe(v)}`;
    case "MLNumber":
      return typeof v === "number" || typeof v === "bigint" ? null : `${where}: expected an MLNumber, got ${describe(v)}`;
    case "boolean":
      return typeof v === "boolean" ? null : `${where}: expected a boolean, got ${describe(v)}`;
    case "DOMString": case "USVString":
      return typeof v === "string" ? null : `${where}: expected a string`;
    case "AllowSharedBufferSource":
      return v instanceof ArrayBuffer || ArrayBuffer.isView(v) ? null : `${where}: expected a buffer`;
    }
    if (idl.enums[type])
      return idl.enums[type].includes(v) ? null :
        `${where}: "${v}" is not a value of ${type} (${idl.enums[type].join(", ")})`;
    if (idl.dicts[type]) {
      if (typeof v !== "object" || v === null || Array.isArray(v) || v instanceof MLOperand)
        return `${where}: expected a ${type} dictionary, got ${describe(v)}`;
      const members = {};
      for (let d = type; d; d = idl.dicts[d].parent) Object.assign(members, idl.dicts[d].members);
      for (const k of Object.keys(v))
        if (!(k in members)) return `${where}: ${type} has no member "${k}" (it has ${Object.keys(members).join(", ")})`;
      for (const [k, mem] of Object.entries(members)) {
        if (v[k] === undefined) {
          if (mem.required) return `${where}: ${type} needs its member "${k}"`;
          continue;
        }
        const e = check(v[k], mem.type, `${where}.${k}`);
        if (e) return e;
      }
      return null;
    }
    if (type === "MLTensor") return `${where}: MLTensor constants are not used by nnl`;
    return `${where}: the stub does not know the IDL type ${type}`;
  }
  return check;
}

function describe(v) {
  if (v instanceof MLOperand) return "an MLOperand";
  if (Array.isArray(v)) return "an array";
  if (v === null) return "null";
  return typeof v === "object" ? "an object" : `${typeof v} ${String(v)}`;
}

// How many operands a method returning sequence<MLOperand> gives.
function outputCount(op, args) {
  const opts = args[args.length - 1] || {};
  switch (op) {
  case "split": return Array.isArray(args[1]) ? args[1].length : args[1];
  case "gru": return 1 + (opts.returnSequence ? 1 : 0);
  case "lstm": return 2 + (opts.returnSequence ? 1 : 0);
  case "lstmCell": return 2;
  default: throw new TypeError(`${op}: unknown output count`);
  }
}

// ---- the stand-ins ----

// createStub({idl, weightsRef}): weightsRef(view) may name the tensor of
// a weights file a constant's bytes are (the graph then refers to it).
// run(graphJson, inputs) may execute a built graph for dispatch():
// inputs and the result map names to {dataType, shape, data}.
// A graph being recorded: its tables by name have no prototype, so that
// an operand called "__proto__" or "constructor" is a name like others.
function newGraph() {
  return { inputs: Object.create(null), consts: Object.create(null), nodes: [],
    outputs: Object.create(null) };
}

export function createStub({ idl: idlPath = new URL("../data/webnn.idl", import.meta.url),
  weightsRef = () => null, run = null } = {}) {
  const idl = parseIdl(readFileSync(idlPath, "utf8"));
  const check = make(idl);
  let graph = newGraph();
  const built = [];
  let seq = 0;

  function resolve(name, args) {
    const overloads = idl.methods[name];
    if (!overloads) throw new TypeError(`MLGraphBuilder has no method ${name}()`);
    const errors = [];
    for (const o of overloads) {
      const required = o.args.filter((a) => !a.optional).length;
      if (args.length < required || args.length > o.args.length) {
        errors.push(`${name}() takes ${required}${o.args.length > required ? ` to ${o.args.length}` : ""} arguments, got ${args.length}`);
        continue;
      }
      const e = args.map((v, i) => v === undefined && o.args[i].optional ? null :
        check(v, o.args[i].type, `${name}(): argument ${i + 1} (${o.args[i].name})`)).find((x) => x);
      if (!e) return o;
      errors.push(e);
    }
    throw new TypeError(errors.join("; "));
  }

  class MLGraphBuilder {
    constructor(context) {
      if (!(context instanceof MLContext)) throw new TypeError("MLGraphBuilder: expected an MLContext");
      this.built = false;
      this.graph = newGraph();
    }
  }
  for (const name of Object.keys(idl.methods)) {
    MLGraphBuilder.prototype[name] = function (...args) {
      if (this.built) throw new Error(`${name}(): the builder has built its graph already`);
      const o = resolve(name, args);
      if (name === "build") this.built = true;
      graph = this.graph;
      return record(name, o, args);
    };
  }

  function record(name, o, args) {
    if (name === "input") {
      graph.inputs[args[0]] = { dataType: args[1].dataType, shape: args[1].shape };
      return new MLOperand(args[0], graph);
    }
    if (name === "constant") {
      const id = `c${seq++}`;
      if (typeof args[0] === "string")
        graph.consts[id] = { dataType: args[0], shape: [], init: { kind: "scalar", value: Number(args[1]) } };
      else {
        const b = ArrayBuffer.isView(args[1]) ?
          new Uint8Array(args[1].buffer, args[1].byteOffset, args[1].byteLength) : new Uint8Array(args[1]);
        const ref = weightsRef(b);
        graph.consts[id] = { dataType: args[0].dataType, shape: args[0].shape,
          init: ref ? { kind: "weights", ref } : { kind: "inlineBytes", bytes: Array.from(b) } };
      }
      return new MLOperand(id, graph);
    }
    if (name === "build") {
      for (const [k, v] of Object.entries(args[0])) graph.outputs[k] = v.name;
      const g = new MLGraph(toJson(graph));
      built.push(g);
      return Promise.resolve(g);
    }
    // an operation: operands first, then parameters, then options
    const node = { id: `n${seq++}`, op: name, inputs: [], options: {} };
    o.args.forEach((a, i) => {
      const v = args[i];
      if (v === undefined) return;
      if (a.type.replace(/\[[^\]]*\]/g, "").trim() === "MLOperand") node.inputs.push(v.name);
      else if (/^sequence<MLOperand>$/.test(a.type.trim())) node.inputs.push(...v.map((x) => x.name));
      else if (i === o.args.length - 1 && a.optional) {
        for (const [k, x] of Object.entries(v))
          if (k !== "label") node.options[k] = x instanceof MLOperand ? x.name : x;
      } else node.options[a.name] = v;
    });
    graph.nodes.push(node);
    if (o.returns === "MLOperand") {
      node.outputs = [node.id];
      return new MLOperand(node.id, graph);
    }
    const n = outputCount(name, args);
    node.outputs = Array.from({ length: n }, (_, k) => `${node.id}_${k}`);
    return node.outputs.map((x) => new MLOperand(x, graph));
  }

  class MLGraph { constructor(json) { this.json = json; } }
  class MLTensor {
    constructor(d) { Object.assign(this, { dataType: d.dataType, shape: [...d.shape],
      readable: !!d.readable, writable: !!d.writable, data: null }); }
  }
  class MLContext {
    async createTensor(d) {
      const e = check(d, "MLTensorDescriptor", "createTensor(): argument 1 (descriptor)");
      if (e) throw new TypeError(e);
      return new MLTensor(d);
    }
    writeTensor(t, data) {
      if (!(t instanceof MLTensor) || !t.writable) throw new TypeError("writeTensor(): not a writable MLTensor");
      const e = check(data, "AllowSharedBufferSource", "writeTensor(): argument 2");
      if (e) throw new TypeError(e);
      t.data = data.slice();
    }
    dispatch(g, ins, outs) {
      if (!(g instanceof MLGraph)) throw new TypeError("dispatch(): argument 1 is not an MLGraph");
      if (!run) throw new Error("dispatch(): this stub runs no graphs");
      const vals = Object.create(null);
      for (const [k, t] of Object.entries(ins)) vals[k] = { dataType: t.dataType, shape: t.shape, data: t.data };
      const res = run(g.json, vals);
      for (const [k, t] of Object.entries(outs)) {
        if (!t.readable) throw new TypeError(`dispatch(): output ${k} is not readable`);
        t.data = res[k].data;
      }
    }
    async readTensor(t) {
      if (!(t instanceof MLTensor) || !t.readable) throw new TypeError("readTensor(): not a readable MLTensor");
      return t.data.buffer.slice(t.data.byteOffset, t.data.byteOffset + t.data.byteLength);
    }
  }
  const context = new MLContext();

  function toJson(gr) {
    const nodes = gr.nodes.map((n) => {
      const x = { id: n.id, op: n.op, inputs: n.inputs, options: n.options };
      if (n.outputs.length !== 1 || n.outputs[0] !== n.id) x.outputs = n.outputs;
      return x;
    });
    return { format: "webnn-graph-json", version: 1, inputs: gr.inputs,
      consts: gr.consts, nodes, outputs: gr.outputs };
  }

  return {
    MLGraphBuilder, MLContext, context,
    // The graph the last builder built (or is building), as JSON.
    graph() {
      return toJson(graph);
    },
    // Every graph built, in order.
    built,
    // The graph's constant count, for callers' summaries.
    get nconsts() {
      return Object.keys(graph.consts).length;
    },
  };
}
