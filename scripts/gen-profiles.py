#!/usr/bin/python3
"""gen-profiles: the support profiles nnl-cpu-partition ships.

Usage: gen-profiles.py [DIR]   (default pipelines/profiles)
A profile has the shape of WebNN's MLContext.opSupportLimits(): for
every operation of the specification's WebIDL (tests/data/webnn.idl),
its operands and outputs with the data types and ranks a context
accepts.  Two are written: cpu.json, a context that takes every data
type the specification allows, and cpu-no-int64.json, one without the
64-bit integers (int64, uint64), as several implementations ship.
"""
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
IDL = os.path.join(ROOT, "tests", "data", "webnn.idl")
TYPES = ["float32", "float16", "int32", "uint32", "int64", "uint64",
         "int8", "uint8"]


def limits(idl):
    idl = re.sub(r"//.*", "", idl)
    dicts = {m[1]: re.findall(r"MLTensorLimits\s+(\w+)\s*;", m[2])
             for m in re.finditer(r"dictionary\s+(\w+)\s*\{([^}]*)\}", idl)}
    # defined in the specification's prose sections, not in its IDL index
    dicts.setdefault("MLSingleInputSupportLimits", ["input", "output"])
    dicts.setdefault("MLBinarySupportLimits", ["a", "b", "output"])
    dicts.setdefault("MLLogicalNotSupportLimits", ["a", "output"])
    ops = {}
    for m in re.finditer(r"partial dictionary MLOpSupportLimits\s*\{([^}]*)\}",
                         idl):
        for t, name in re.findall(r"(\w+)\s+(\w+)\s*;", m[1]):
            ops[name] = dicts[t]
    return ops


def profile(types, ops):
    t = {"dataTypes": types, "rankRange": {"min": 0, "max": 8}}
    p = {"preferredInputLayout": "nchw",
         "maxTensorByteLength": 2 ** 31 - 1,
         "input": {"dataTypes": types},
         "constant": {"dataTypes": types},
         "output": {"dataTypes": types}}
    for op in sorted(ops):
        p[op] = {k: t for k in ops[op]}
    return p


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        ROOT, "pipelines", "profiles")
    with open(IDL) as f:
        ops = limits(f.read())
    for name, types in (("cpu.json", TYPES),
                        ("cpu-no-int64.json",
                         [t for t in TYPES if "64" not in t or t == "float64"])):
        with open(os.path.join(out, name), "w") as f:
            json.dump(profile(types, ops), f, indent=1, sort_keys=False)
            f.write("\n")


main()
