#!/usr/bin/python3
"""gen-schema: the JSON Schemas in schema/, from the tables in common/.

Usage: gen-schema.py [DIR]
Writes DIR/webnn-graph.schema.json and DIR/weights-manifest.schema.json
(DIR: the checkout's schema/ by default).  The data types come from the
DTYPES table of common/core/dtype.h and the per-op part (which operands,
parameters and options each op takes, of which type, which parameters
it requires) from the OP rows of common/core/ops.def and ops_nnl.def
(nnl's ops beyond WebNN), so the schema and the C reader cannot drift
apart.  The output depends on those files only, byte for byte; tests/check-schema-fresh.sh compares it with the
committed schemas.
"""
import json
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
ID = "https://nnl.invalid/schema/"
U32MAX = 4294967295
I32MIN, I32MAX = -2147483648, 2147483647
MAXRANK = 32			# json.c and weights.c refuse longer shapes
MAXINT = 9007199254740992	# 2^53, weights.c's bound on offsets


def fail(msg):
    sys.exit("gen-schema: " + msg)


def source(path):
    """The text of a C file with its comments removed."""
    with open(path) as f:
        return re.sub(r"/\*.*?\*/", "", f.read(), flags=re.S)


def dtypes(path):
    """The JSON names of the DTYPES(X) rows, in the table's order."""
    names = re.findall(r'^\s*X\(\w+,\s*"(\w+)",\s*"\w+",',
                       source(path), re.M)
    if not names:
        fail(path + ": no DTYPES rows")
    return names


def ops(path):
    """(name, operands, params, options, nout) for each OP(...) row."""
    text = source(path)
    rows = []
    row = re.compile(r'OP\((\w+),\s*"(\w+)",\s*"([^"]*)",\s*"([^"]*)",'
                     r'\s*"([^"]*)",\s*(\d+),\s*(\w+)\)')
    starts = [m.start() for m in re.finditer(r"^OP\(", text, re.M)]
    for at in starts:
        m = row.match(text, at)
        if not m:
            line = text.count("\n", 0, at) + 1
            fail("%s: malformed OP row near line %d" % (path, line))
        rows.append((m.group(2), words(m.group(3)), words(m.group(4)),
                     words(m.group(5)), int(m.group(6))))
    if not rows:
        fail(path + ": no OP rows")
    return rows


def words(s):
    """Split on spaces, keeping enum(a|b) together (as ops.c does)."""
    return re.findall(r"(?:[^ (]|\([^)]*\))+", s)


def scalar(t, dts):
    if t == "u32":
        return {"type": "integer", "minimum": 0, "maximum": U32MAX}
    if t == "i32":
        return {"type": "integer", "minimum": I32MIN, "maximum": I32MAX}
    if t in ("f64", "number"):
        return {"type": "number"}
    if t == "bool":
        return {"type": "boolean"}
    if t == "dtype":
        return {"enum": dts}
    if t == "str":
        return {"type": "string"}
    if t == "operand":
        return {"type": "string", "minLength": 1}
    m = re.match(r"enum\((.*)\)$", t)
    if m:
        return {"enum": m.group(1).split("|")}
    fail("ops.def: unknown type " + t)


def onetype(t, dts):
    """T or T[] (a sequence)."""
    if t.endswith("[]"):
        return {"type": "array", "items": scalar(t[:-2], dts)}
    return scalar(t, dts)


def typeschema(t, dts):
    """A|B is a union of two types, unless the type is an enum."""
    if "|" in t and not t.startswith("enum("):
        a, b = t.split("|", 1)
        return {"anyOf": [onetype(a, dts), onetype(b, dts)]}
    return onetype(t, dts)


def default(t, text):
    """The default of ops.def as a JSON value of the argument's type."""
    if t == "bool":
        return text == "true"
    if t in ("u32", "i32"):
        return int(text)
    if t in ("f64", "number"):
        return int(text) if re.fullmatch(r"-?\d+", text) else float(text)
    return text


def argument(a, dts):
    """"name:type[=default]" -> (name, schema)."""
    name, rest = a.split(":", 1)
    t, _, d = rest.partition("=")
    s = typeschema(t, dts)
    if d:
        s["default"] = default(t, d)
    return name, s


def nullable(s):
    """s, or null (validate.c lets an option member be null)."""
    s = dict(s)
    if "anyOf" in s:
        s["anyOf"] = s["anyOf"] + [{"type": "null"}]
    elif "enum" in s:
        s["enum"] = s["enum"] + [None]
    else:
        s["type"] = [s["type"], "null"]
    return s


def opschema(row, dts):
    """What a node of this op must look like, beyond any node's shape."""
    name, operands, params, options, nout = row
    props = {}
    for a in params:
        n, s = argument(a, dts)
        props[n] = s
    for a in options:
        n, s = argument(a, dts)
        props[n] = nullable(s)		# null: the member left out
    props["label"] = {"type": "string"}
    opts = {"type": "object", "properties": props,
            "additionalProperties": False}
    req = [argument(p, dts)[0] for p in params]
    if req:
        opts["required"] = req
    if len(operands) == 1 and operands[0].endswith("..."):
        ins = {"minItems": 1}
    else:
        ins = {"minItems": len(operands), "maxItems": len(operands)}
    sig = operands + [p.split(":")[0] for p in params]
    s = {"$comment": "%s(%s)" % (name, ", ".join(sig)),
         "properties": {"inputs": ins, "options": opts}}
    if nout == 1:
        s["properties"]["outputs"] = {"maxItems": 1}
        s["properties"]["types"] = {"minItems": 1, "maxItems": 1}
    if req:
        s["required"] = ["options"]
    return s


def desc(dts):
    return {"type": "object", "required": ["dataType", "shape"],
            "properties": {
                "dataType": {"$comment": "WebNN's types, then nnl's "
                             "extended ones from float64 on "
                             "(nnl-graph(5) Data types beyond WebNN)",
                             "enum": dts},
                "shape": {"type": "array", "maxItems": MAXRANK,
                          "items": {"type": "integer", "minimum": 0,
                                    "maximum": U32MAX}}}}


def nonempty():
    return {"type": "string", "minLength": 1}


def graphschema(rows, dts):
    init = {"oneOf": [
        {"type": "object", "required": ["kind", "ref"],
         "properties": {"kind": {"const": "weights"}, "ref": nonempty()}},
        {"type": "object", "required": ["kind", "value"],
         "properties": {"kind": {"const": "scalar"},
                        "value": {"type": "number"}}},
        {"type": "object", "required": ["kind", "bytes"],
         "properties": {"kind": {"const": "inlineBytes"},
                        "bytes": {"type": "array",
                                  "items": {"type": "integer",
                                            "minimum": 0,
                                            "maximum": 255}}}}]}
    node = {"type": "object", "required": ["id", "op", "inputs"],
            "properties": {
                "id": nonempty(),
                "op": {"enum": [r[0] for r in rows]},
                "inputs": {"type": "array", "items": nonempty()},
                "options": {"type": "object"},
                # null: webnn-graph's serializer on a one-output node
                "outputs": {"type": ["array", "null"], "minItems": 1,
                            "items": nonempty()},
                "types": {"$ref": "#/$defs/types"},
                "activation": {"$ref": "#/$defs/activation"},
                "winograd": {"$ref": "#/$defs/winograd"},
                "panels": {"$ref": "#/$defs/panels"},
                "residual": {"$ref": "#/$defs/residual"},
                "bias": {"$ref": "#/$defs/bias"},
                "transposeA": {"$ref": "#/$defs/transpose"},
                "transposeB": {"$ref": "#/$defs/transpose"},
                "arena": {"$ref": "#/$defs/arena"},
                "scratch": {"$ref": "#/$defs/scratch"},
                "layer": {"$ref": "#/$defs/layer"},
                "layerType": {"$ref": "#/$defs/layerType"},
                "placement": {"$ref": "#/$defs/placement"}},
            "allOf": [{"if": {"required": ["op"],
                              "properties": {"op": {"const": r[0]}}},
                       "then": {"$ref": "#/$defs/op." + r[0]}}
                      for r in rows]}
    defs = {
        "desc": desc(dts),
        "const": {"allOf": [{"$ref": "#/$defs/desc"},
                            {"required": ["init"],
                             "properties": {"init": init}}]},
        "node": node,
        "types": {"$comment": "nnl-shape-infer: one type per output",
                  "type": "array", "items": {"$ref": "#/$defs/desc"}},
        "activation": {"$comment": "nnl-fuse: an activation applied to "
                                   "the node's result (swish: x times "
                                   "sigmoid(x), which has no WebNN op)",
                       "type": "object", "required": ["op", "options"],
                       "properties": {
                           "op": {"enum": ["relu", "clamp", "sigmoid",
                                           "hardSwish", "leakyRelu",
                                           "tanh", "gelu", "swish",
                                           "hardSigmoid"]},
                           "options": {"type": "object"}}},
        "winograd": {"$comment": "nnl-fuse -e winograd: the conv2d's "
                                 "[4, 4, I, O] hwio filter is Winograd's "
                                 "F(2x2, 3x3) transform of a 3 x 3 one",
                     "const": "2x2"},
        "panels": {"$comment": "nnl-fuse -e panels: the conv2d's O output "
                               "channels, its ihwo filter stored in "
                               "panels of 32 of them",
                   "type": "integer", "minimum": 1},
        "residual": {"$comment": "nnl-fuse -e residual: an operand of "
                                 "the conv2d's output type added to its "
                                 "result after the bias, before its "
                                 "activation",
                     "type": "string", "minLength": 1},
        "bias": {"$comment": "nnl-fuse -e bias: a float32 [N] operand "
                             "added to each row of the matmul's result, "
                             "before its activation",
                 "type": "string", "minLength": 1},
        "transpose": {"$comment": "nnl-fuse (transposeA, "
                                  "transposeB): the matmul reads its "
                                  "input through this permutation of a "
                                  "transpose folded into it",
                      "type": "array",
                      "items": {"type": "integer", "minimum": 0}},
        "arena": {"$comment": "nnl-plan-memory: each output's byte "
                              "offset in the arena",
                  "type": "array",
                  "items": {"type": "integer", "minimum": 0}},
        "scratch": {"$comment": "nnl-plan-memory: the offset of "
                                "the kernel's workspace",
                    "type": "integer", "minimum": 0},
        "layer": {"$comment": "nnl-parse, NNL models: the layer lowered",
                  "type": "string"},
        "layerType": {"$comment": "nnl-parse, NNL models: its type",
                      "type": "string"},
        "memory": {"$comment": "nnl-plan-memory: the arena's sizes",
                   "type": "object",
                   "required": ["align", "arenaBytes", "lowerBoundBytes",
                                "weightsBytes"],
                   "properties": dict({
                       k: {"type": "integer", "minimum": 0}
                       for k in ["align", "arenaBytes", "lowerBoundBytes",
                                 "weightsBytes"]},
                       threads={"type": "integer", "minimum": 2,
                                "maximum": 64})},
        "placement": {"$comment": "nnl-cpu-partition: where the node "
                                  "runs, its partition, and why on the CPU",
                      "type": "object", "required": ["device", "partition"],
                      "properties": {
                          "device": {"enum": ["webnn", "cpu"]},
                          "partition": {"type": "integer", "minimum": 0},
                          "reason": {"type": "string"}}},
        "partitions": {"$comment": "nnl-cpu-partition: the profile and "
                                   "the counts",
                       "type": "object",
                       "required": ["profile", "webnnPartitions", "cpuNodes"],
                       "properties": {
                           "profile": {"type": "string"},
                           "webnnPartitions": {"type": "integer",
                                               "minimum": 0},
                           "cpuNodes": {"type": "integer", "minimum": 0}}},
        "nnl": {"$comment": "nnl-parse, NNL models: NNL version and "
                            "the config block",
                "type": "object",
                "properties": {"version": {"type": "string"},
                               "config": {"type": "object"}}}}
    for r in rows:
        defs["op." + r[0]] = opschema(r, dts)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": ID + "webnn-graph.schema.json",
        "title": "webnn-graph JSON, version 1, as nnl reads and writes it",
        "$comment": "Generated by scripts/gen-schema.py from "
                    "common/core/ops.def, ops_nnl.def and dtype.h: do not edit.  "
                    "Members not named here are allowed at every level "
                    "(every pass carries them through).  The fields "
                    "nnl's passes add are defined under $defs (types, "
                    "activation, winograd, panels, residual, bias, transpose, "
                    "arena, "
                    "scratch, "
                    "layer, layerType, "
                    "memory, placement, partitions, nnl); those of later "
                    "passes will be added "
                    "there as they land.  What a schema cannot say "
                    "(unique names, references that resolve, types with "
                    "one entry per output, const sizes, duplicate keys) "
                    "is checked by nnl-parse; see nnl-graph(5).  This "
                    "is the strict form (nnl-parse --strict): the nodes "
                    "pass-through keeps (ops and options nnl does not "
                    "know, literal nodes) are outside it.",
        "type": "object",
        "required": ["format", "version", "inputs", "nodes", "outputs"],
        "properties": {
            "format": {"const": "webnn-graph-json"},
            # 2: what webnn-graph's serializer writes, the same format
            "version": {"enum": [1, 2]},
            "name": {"type": "string"},
            "quantized": {"type": "boolean",
                          "description": "webnn-graph's @quantized "
                          "header flag: the graph holds quantized ops"},
            "weights": {"type": "object",
                        "required": ["file", "manifest"],
                        "additionalProperties": False,
                        "properties": {"file": nonempty(),
                                       "manifest": nonempty()}},
            "inputs": {"type": "object",
                       "additionalProperties": {"$ref": "#/$defs/desc"}},
            "consts": {"type": "object",
                       "additionalProperties": {"$ref": "#/$defs/const"}},
            "nodes": {"type": "array", "items": {"$ref": "#/$defs/node"}},
            "outputs": {"type": "object", "minProperties": 1,
                        "additionalProperties": nonempty()},
            "memory": {"$ref": "#/$defs/memory"},
            "partitions": {"$ref": "#/$defs/partitions"},
            "nnl": {"$ref": "#/$defs/nnl"}},
        "$defs": defs}


def manifestschema(dts):
    entry = {"type": "object",
             "required": ["dataType", "shape", "byteOffset", "byteLength"],
             "properties": {
                 "dataType": {"enum": dts},
                 "shape": desc(dts)["properties"]["shape"],
                 "byteOffset": {"type": "integer", "minimum": 8,
                                "maximum": MAXINT},
                 "byteLength": {"type": "integer", "minimum": 0,
                                "maximum": MAXINT},
                 "layout": {"const": "row-major"},
                 "checksum": {"type": "string",
                              "pattern": "^xxh3-64:[0-9a-f]{16}$"}}}
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": ID + "weights-manifest.schema.json",
        "title": "wg-weights-manifest, version 1, with nnl's checksum",
        "$comment": "Generated by scripts/gen-schema.py from "
                    "common/dtype.h: do not edit.  byteOffset is absolute "
                    "in the .weights file, past its 8-byte header; the "
                    "checksum is XXH3-64 (seed 0) of the tensor's bytes. "
                    " Unknown members are read and ignored, and dropped "
                    "when nnl rewrites a manifest.  What a schema cannot "
                    "say (byteLength equal to the elements' size, "
                    "tensors inside the file and not overlapping) is "
                    "checked by nnl-pack-weights verify; see "
                    "nnl-graph(5).",
        "type": "object",
        "required": ["format", "version", "tensors"],
        "properties": {
            "format": {"const": "wg-weights-manifest"},
            "version": {"const": 1},
            "endianness": {"const": "little"},
            "tensors": {"type": "object",
                        "propertyNames": {"minLength": 1},
                        "additionalProperties": entry}}}


def dump(v, ind=0, lead=0):
    """JSON whose containers take one line when they fit in 78 columns,
    a comma included (lead: columns already used on the first line);
    arrays of scalars filled line by line; others one item per line."""
    flat = json.dumps(v, ensure_ascii=True)
    if not isinstance(v, (dict, list)) or not v or \
            ind + lead + len(flat) <= 77:
        return flat
    pad = " " * (ind + 2)
    if isinstance(v, dict):
        items = []
        for k, x in v.items():
            key = json.dumps(k) + ": "
            items.append(pad + key + dump(x, ind + 2, len(key)))
        return "{\n" + ",\n".join(items) + "\n" + " " * ind + "}"
    if not any(isinstance(x, (dict, list)) for x in v):
        lines, line = [], pad
        for x in v:
            word = json.dumps(x) + ","
            if line != pad and len(line) + 1 + len(word) > 78:
                lines.append(line)
                line = pad
            line += ("" if line == pad else " ") + word
        lines.append(line[:-1])
        return "[\n" + "\n".join(lines) + "\n" + " " * ind + "]"
    items = [pad + dump(x, ind + 2) for x in v]
    return "[\n" + ",\n".join(items) + "\n" + " " * ind + "]"


def write(path, schema):
    text = dump(schema) + "\n"
    with open(path, "w") as f:
        f.write(text)


def main():
    if len(sys.argv) > 2 or (len(sys.argv) == 2 and
                             sys.argv[1].startswith("-")):
        print("usage: gen-schema.py [dir]", file=sys.stderr)
        sys.exit(2)
    out = sys.argv[1] if len(sys.argv) == 2 else os.path.join(ROOT,
                                                              "schema")
    dts = dtypes(os.path.join(ROOT, "common", "core", "dtype.h"))
    rows = (ops(os.path.join(ROOT, "common", "core", "ops.def")) +
            ops(os.path.join(ROOT, "common", "core", "ops_nnl.def")))
    write(os.path.join(out, "webnn-graph.schema.json"),
          graphschema(rows, dts))
    write(os.path.join(out, "weights-manifest.schema.json"),
          manifestschema(dts))


main()
