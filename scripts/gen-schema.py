#!/usr/bin/python3
"""gen-schema: writes schema/webnn-graph.schema.json from common/ops.def.

Usage: gen-schema.py [OUT]   (default: standard output)
The per-op part (which options each op takes, of which type, and which
parameters it requires) comes from the op table, so the schema and the
C validator cannot drift apart; tests/cli/schema.bats checks that the
committed schema is what this script prints.
"""
import json
import re
import sys

DTYPES = ["float32", "float16", "int32", "uint32", "int64", "uint64",
          "int8", "uint8", "int4", "uint4"]


def ops(path):
    rows = []
    for m in re.finditer(r'^OP\((\w+),\s*"(\w+)",\s*"([^"]*)",\s*"([^"]*)",'
                         r'\s*"([^"]*)",\s*(\d+),\s*(\w+)\)',
                         open(path).read(), re.M | re.S):
        rows.append((m.group(2), m.group(3).split(), m.group(4).split(),
                     m.group(5).split(), int(m.group(6))))
    return rows


def words(s):
    """Split 'a:enum(x|y)=x b:u32' keeping enum() together."""
    return s


def typeschema(t):
    alts = t.split("|") if not t.startswith("enum(") else [t]
    if len(alts) > 1 and not t.startswith("enum("):
        return {"anyOf": [typeschema(a) for a in alts]}
    if t.endswith("[]"):
        return {"type": "array", "items": typeschema(t[:-2])}
    if t == "u32":
        return {"type": "integer", "minimum": 0, "maximum": 4294967295}
    if t == "i32":
        return {"type": "integer", "minimum": -2147483648,
                "maximum": 2147483647}
    if t in ("f64", "number"):
        return {"type": "number"}
    if t == "bool":
        return {"type": "boolean"}
    if t == "dtype":
        return {"enum": DTYPES}
    if t in ("str", "operand"):
        return {"type": "string", "minLength": 1}
    m = re.match(r"enum\((.*)\)$", t)
    if m:
        return {"enum": m.group(1).split("|")}
    raise SystemExit("gen-schema: unknown type " + t)


def argspec(a):
    name, rest = a.split(":", 1)
    rest = rest.split("=", 1)[0]
    return name, typeschema(rest)


def main():
    rows = ops("common/ops.def")
    desc = {"type": "object",
            "required": ["dataType", "shape"],
            "properties": {
                "dataType": {"enum": DTYPES},
                "shape": {"type": "array", "maxItems": 32,
                          "items": {"type": "integer", "minimum": 0,
                                    "maximum": 4294967295}}}}
    init = {"oneOf": [
        {"type": "object", "required": ["kind", "ref"],
         "properties": {"kind": {"const": "weights"},
                        "ref": {"type": "string", "minLength": 1}}},
        {"type": "object", "required": ["kind", "value"],
         "properties": {"kind": {"const": "scalar"},
                        "value": {"type": "number"}}},
        {"type": "object", "required": ["kind", "bytes"],
         "properties": {"kind": {"const": "inlineBytes"},
                        "bytes": {"type": "array",
                                  "items": {"type": "integer",
                                            "minimum": 0,
                                            "maximum": 255}}}}]}
    perop = []
    for name, operands, params, options, nout in rows:
        props = {"label": {"type": "string"}}
        for a in params + options:
            n, s = argspec(a)
            props[n] = {"anyOf": [s, {"type": "null"}]} if a in options \
                else s
        then = {"properties": {
            "options": {"type": "object", "properties": props,
                        "additionalProperties": False,
                        "required": [argspec(p)[0] for p in params]}}}
        if operands and operands[0].endswith("..."):
            then["properties"]["inputs"] = {"minItems": 1}
        else:
            then["properties"]["inputs"] = {"minItems": len(operands),
                                            "maxItems": len(operands)}
        if nout == 1:
            then["properties"]["outputs"] = {"maxItems": 1}
        perop.append({"if": {"properties": {"op": {"const": name}}},
                      "then": then})
    node = {"type": "object", "required": ["id", "op", "inputs"],
            "properties": {
                "id": {"type": "string", "minLength": 1},
                "op": {"enum": [r[0] for r in rows]},
                "inputs": {"type": "array",
                           "items": {"type": "string", "minLength": 1}},
                "options": {"type": "object"},
                "outputs": {"type": "array", "minItems": 1,
                            "items": {"type": "string", "minLength": 1}},
                "types": {"type": "array", "items": {"$ref": "#/$defs/desc"}},
                "activation": {"type": "object", "required": ["op"],
                               "properties": {
                                   "op": {"enum": ["relu", "clamp",
                                                   "sigmoid", "hardSwish",
                                                   "leakyRelu"]},
                                   "options": {"type": "object"}}},
                "arena": {"type": "array",
                          "items": {"type": "integer", "minimum": 0}},
                "scratch": {"type": "integer", "minimum": 0},
                "layer": {"type": "string"},
                "layerType": {"type": "string"}},
            "allOf": perop}
    schema = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://nnl.invalid/schema/webnn-graph.schema.json",
        "title": "webnn-graph JSON, version 1, as nnl reads and writes it",
        "$comment": "Generated by scripts/gen-schema.py from "
                    "common/ops.def: do not edit.  Members not named here "
                    "are allowed at every level (passes keep them); the "
                    "fields nnl's passes add are described under $defs "
                    "and in nnl-graph(5).",
        "type": "object",
        "required": ["format", "version", "inputs", "nodes", "outputs"],
        "properties": {
            "format": {"const": "webnn-graph-json"},
            "version": {"const": 1},
            "name": {"type": "string"},
            "weights": {"type": "object",
                        "required": ["file", "manifest"],
                        "additionalProperties": False,
                        "properties": {"file": {"type": "string"},
                                       "manifest": {"type": "string"}}},
            "inputs": {"type": "object",
                       "additionalProperties": {"$ref": "#/$defs/desc"}},
            "consts": {"type": "object",
                       "additionalProperties": {"$ref": "#/$defs/const"}},
            "nodes": {"type": "array", "items": {"$ref": "#/$defs/node"}},
            "outputs": {"type": "object", "minProperties": 1,
                        "additionalProperties": {"type": "string",
                                                 "minLength": 1}},
            "memory": {"$ref": "#/$defs/memory"},
            "nnl": {"type": "object",
                    "properties": {"version": {"type": "string"},
                                   "config": {"type": "object"}}}},
        "$defs": {
            "desc": desc,
            "const": {"allOf": [{"$ref": "#/$defs/desc"},
                                {"type": "object", "required": ["init"],
                                 "properties": {"init": init}}]},
            "node": node,
            "memory": {"type": "object",
                       "required": ["align", "arenaBytes",
                                    "lowerBoundBytes", "weightsBytes"],
                       "properties": {
                           k: {"type": "integer", "minimum": 0}
                           for k in ["align", "arenaBytes",
                                     "lowerBoundBytes", "weightsBytes"]}}}}
    text = json.dumps(schema, indent=1, sort_keys=False) + "\n"
    if len(sys.argv) > 1:
        open(sys.argv[1], "w").write(text)
    else:
        sys.stdout.write(text)


main()
