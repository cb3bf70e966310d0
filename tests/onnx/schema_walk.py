#!/usr/bin/python3
"""schema_walk: no ONNX attribute or operator version is silently
ignored by nnl-onnx-import.

Usage: schema_walk.py [--bin DIR] [--jobs N] [--keep DIR]

Walks every operator schema of the default domain that the onnx
package knows (onnx.defs.get_all_schemas_with_history()), and the newer
versions of scripts/onnx_newer.py, and those of ai.onnx.preview.training
(its optimizers are the only operators of another domain the importer
converts): each version, and each attribute of it.  For each it builds
a one-node model at that version's opset of the operator's domain, with
graph inputs of a type the schema allows, and imports it:

  - an op the importer has no row for in common/onnx/onnx_attrs.def,
    or a version outside its row, must be refused (unsupported-op,
    sequence, unsupported-version);
  - an attribute the row does not name for that version must be
    refused as unsupported-attribute, naming it;
  - an attribute it names may convert, be refused with any reason
    code, or be an error naming the node (these models' inputs are
    only plausible), never a crash;
  - a made-up attribute is refused on every implemented version.

Then every attribute the table names must be covered by a test: one of
the ONNX node tests (Debian's libonnx-testdata) that
tests/onnx/conformance.txt lists as PASS uses it in a version the row
implements, or tests/onnx/strict_coverage.txt names the test that does:
a file under the root that must exist and mention it.  A "-" there marks one still awaiting its test: the
list may only shrink (an entry a passing node test covers is a fault).
Finally scripts/gen-onnx-attrs.py --check holds the table to the
schemas.  Exit 1 on any fault, listed.
"""
import argparse
import collections
import concurrent.futures
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tempfile

import onnx
from onnx import TensorProto, defs, helper

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
DATA = "/usr/share/libonnx-testdata/data/node"
BOGUS = "nnl_not_an_attribute"
CODE = re.compile(r'node "[^"]*" \([^)]*\) \[([a-z-]+)\]')

spec = importlib.util.spec_from_file_location(
    "gen_onnx_attrs", os.path.join(ROOT, "scripts/gen-onnx-attrs.py"))
gen = importlib.util.module_from_spec(spec)
spec.loader.exec_module(gen)


def table():
    """op -> (first, last, [(attr, lo, hi)]) from onnx_attrs.def."""
    text = open(os.path.join(ROOT, "common/onnx/onnx_attrs.def")).read()
    rows = {}
    for m0 in re.finditer(r"^ATTRS\(.*?\)$", text, re.M | re.S):
        m = gen.ROW.match(m0.group(0))
        op, first, last = m.group(1), int(m.group(2)), int(m.group(3))
        attrs = []
        for w in "".join(re.findall(r'"([^"]*)"', m.group(4))).split():
            name, _, r = w.partition(":")
            lo, _, hi = r.partition("-")
            attrs.append((name, int(lo) if lo else 0,
                          int(hi) if hi else 1 << 30))
        rows[op] = (first, last, attrs)
    return rows


def understood(row, name, since):
    return any(a == name and lo <= since <= hi for a, lo, hi in row[2])


# a type for each input the schema lets it take: float first
PREFER = ["tensor(float)", "tensor(int64)", "tensor(bool)",
          "tensor(int32)", "tensor(uint8)", "tensor(float16)"]
TYPES = {"tensor(float)": TensorProto.FLOAT,
         "tensor(int64)": TensorProto.INT64,
         "tensor(bool)": TensorProto.BOOL,
         "tensor(int32)": TensorProto.INT32,
         "tensor(uint8)": TensorProto.UINT8,
         "tensor(float16)": TensorProto.FLOAT16}


def intype(schema, i):
    if schema is None or not schema.inputs:
        return TensorProto.FLOAT
    formal = schema.inputs[min(i, len(schema.inputs) - 1)]
    allowed = [formal.typeStr]
    for c in schema.type_constraints:
        if c.type_param_str == formal.typeStr:
            allowed = list(c.allowed_type_strs)
    for t in PREFER:
        if t in allowed:
            return TYPES[t]
    return TensorProto.FLOAT


def value(schema, name):
    """A plausible value for attribute name: its default, else one of
    its type."""
    a = schema.attributes.get(name) if schema else None
    if a is not None and a.default_value.name:
        return helper.get_attribute_value(a.default_value)
    t = a.type if a is not None else None
    A = defs.OpSchema.AttrType
    if t == A.FLOAT:
        return 1.0
    if t == A.INTS:
        return [1, 1]
    if t == A.FLOATS:
        return [1.0, 1.0]
    if t == A.STRING:
        return "nnl"
    if t == A.STRINGS:
        return ["nnl"]
    if t == A.TENSOR:
        return helper.make_tensor("v", TensorProto.FLOAT, [1], [1.0])
    return 1


def model(op, since, schema, attr, nin, nout):
    x = [helper.make_tensor_value_info("x%d" % i, intype(schema, i),
                                       [2, 3, 4, 4]) for i in range(nin)]
    y = [helper.make_tensor_value_info("y%d" % i, TensorProto.FLOAT, None)
         for i in range(nout)]
    kw = {}
    if attr:
        kw[attr] = value(schema, attr)
    dom = schema.domain if schema is not None and \
        schema.domain == gen.TRAINING else ""
    node = helper.make_node(op, [v.name for v in x], [v.name for v in y],
                            name="n", domain=dom, **kw)
    m = helper.make_model(helper.make_graph([node], "g", x, y),
                          opset_imports=[helper.make_opsetid(dom, since)])
    m.ir_version = 8
    return m


def cases():
    """(op, since, schema or None, attribute or None, nin, nout) for
    every version and attribute, and the made-up one."""
    schemas = {(s.name, s.since_version): s
               for s in defs.get_all_schemas_with_history()
               if s.domain in ("", "ai.onnx", gen.TRAINING)}
    arity = {}
    for line in open(os.path.join(ROOT, "common/onnx/onnx_arity.h")):
        m = re.match(r'ARITY\("(\w+)", (\d+), (\d+), \d+, (\d+),', line)
        if m:
            arity[(m.group(1), int(m.group(2)))] = (int(m.group(3)),
                                                     int(m.group(4)))
    for op, vers in sorted(gen.history().items()):
        for since, attrs in vers:
            s = schemas.get((op, since))
            nin, nout = arity.get((op, since), (1, 1))
            nin, nout = max(nin, 1), max(nout, 1)
            for a in [None, BOGUS] + sorted(attrs):
                yield op, since, s, a, nin, nout


def run(imp, path):
    p = subprocess.run([imp, "-o", path + ".json", path],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                       text=True, errors="replace", timeout=60)
    return p.returncode, p.stderr


def judge(rows, case, rc, err):
    """A fault's description, or None."""
    op, since, _, attr, _, _ = case
    what = "%s-%d%s" % (op, since, " attribute %s" % attr if attr else "")
    codes = CODE.findall(err)
    if rc < 0 or rc >= 2:
        return "%s: exit %d (a crash or sanitizer finding)\n%s" % (
            what, rc, err)
    row = rows.get(op)
    if row is None:
        if rc == 0 or not set(codes) & {"unsupported-op", "sequence"}:
            return "%s: no row, yet not refused as unsupported-op" % what
        return None
    if not row[0] <= since <= row[1]:
        if rc == 0 or "unsupported-version" not in codes:
            return "%s: a version outside %d to %d, not refused as " \
                "unsupported-version: %s" % (what, row[0], row[1],
                                             err.strip() or "imported")
        return None
    if attr and not understood(row, attr, since):
        want = '[unsupported-attribute]: attribute "%s"' % attr
        if rc == 0 or want not in err:
            return "%s: not in the table, not refused: %s" % (
                what, err.strip() or "imported")
        return None
    if rc == 1 and not codes and 'node "n"' not in err:
        return "%s: an error that names no node: %s" % (what, err.strip())
    return None


def coverage(rows):
    """Faults: attributes of the table no test covers."""
    passing = set()
    for line in open(os.path.join(HERE, "conformance.txt")):
        if line.startswith("PASS "):
            passing.add(line.split()[1].rstrip(":"))
    covered = collections.defaultdict(set)
    for t in sorted(passing):
        path = os.path.join(DATA, t, "model.onnx")
        if not os.path.exists(path):
            continue
        m = onnx.load(path)
        opset = max([o.version for o in m.opset_import
                     if o.domain in ("", "ai.onnx")] or [1])
        training = max([o.version for o in m.opset_import
                        if o.domain == gen.TRAINING] or [1])
        for n in m.graph.node:
            if n.domain not in ("", "ai.onnx", gen.TRAINING):
                continue
            try:
                since = defs.get_schema(
                    n.op_type, training, gen.TRAINING).since_version \
                    if n.domain == gen.TRAINING else \
                    defs.get_schema(n.op_type, opset).since_version
            except Exception:
                continue
            for a in n.attribute:
                covered[(n.op_type, a.name)].add((since, t))
    listed = {}
    for line in open(os.path.join(HERE, "strict_coverage.txt")):
        f = line.split()
        if f and not f[0].startswith("#"):
            listed[(f[0], f[1])] = f[2]
    faults, pending = [], 0
    for op, (first, last, attrs) in sorted(rows.items()):
        for a, lo, hi in attrs:
            test = listed.pop((op, a), None)
            if any(max(first, lo) <= v <= min(last, hi)
                   for v, _ in covered[(op, a)]):
                if test:
                    faults.append("%s attribute %s: a passing node test "
                                  "uses it; drop it from "
                                  "strict_coverage.txt" % (op, a))
                continue
            if not test:
                faults.append("%s attribute %s: no passing node test uses "
                              "it, and strict_coverage.txt names none"
                              % (op, a))
            elif test == "-":
                pending += 1
            else:
                path = os.path.join(ROOT, test)
                if not os.path.exists(path) or a not in open(path).read():
                    faults.append("%s attribute %s: %s does not exist or "
                                  "does not mention it" % (op, a, test))
    for op, a in sorted(listed):
        faults.append("strict_coverage.txt: %s attribute %s is not in "
                      "onnx_attrs.def" % (op, a))
    return faults, pending


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", default=os.environ.get("NNL_BIN") or
                    os.path.join(ROOT, "bin"))
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--keep", help="write the models here and keep them")
    a = ap.parse_args()
    imp = os.path.join(a.bin, "nnl-onnx-import")
    rows = table()
    faults = []
    chk = subprocess.run([sys.executable,
                          os.path.join(ROOT, "scripts/gen-onnx-attrs.py"),
                          "--check"], stderr=subprocess.PIPE, text=True)
    if chk.returncode:
        faults.append("gen-onnx-attrs.py --check:\n" + chk.stderr)
    tmp = a.keep or tempfile.mkdtemp(prefix="schema-walk.")
    os.makedirs(tmp, exist_ok=True)
    todo = []
    for i, c in enumerate(cases()):
        path = os.path.join(tmp, "%05d-%s-%d-%s.onnx" % (
            i, c[0], c[1], c[3] or "none"))
        with open(path, "wb") as f:
            f.write(model(*c).SerializeToString())
        todo.append((c, path))
    counts = collections.Counter()
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as ex:
        for (c, _), (rc, err) in zip(todo, ex.map(lambda t: run(imp, t[1]),
                                                  todo)):
            fault = judge(rows, c, rc, err)
            if fault:
                faults.append(fault)
            counts["imported" if rc == 0 else "refused"
                   if CODE.search(err) else "error"] += 1
    if not a.keep:
        shutil.rmtree(tmp)
    more, pending = coverage(rows)
    faults += more
    for f in faults:
        print("schema_walk: " + f, file=sys.stderr)
    print("schema_walk: %d models (%d imported, %d refused, %d errors), "
          "%d attributes awaiting a test, %d faults"
          % (len(todo), counts["imported"], counts["refused"],
             counts["error"], pending, len(faults)))
    return 1 if faults else 0


if __name__ == "__main__":
    sys.exit(main())
