#!/usr/bin/python3
"""node_f32: ONNX node tests of float64 run as float32.

Usage: node_f32.py [--bin DIR] [--jobs N] [TEST ...]

Many of ONNX's node tests (Debian's libonnx-testdata) that exercise an
attribute compute in float64, a type nnl refuses, so the conformance
run cannot count them.  This runs each named test (default: the
node:TEST entries of tests/onnx/strict_coverage.txt) with every float64
tensor of the model and of its data, the Cast targets and the
output_datatype and dtype attributes turned to float32, through
tests/onnx/conformance.py's own check (import, nnc compile, run,
compare with ONNX's expected outputs).  Exit 1 unless every one passes.
"""
import argparse
import glob
import os
import shutil
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import onnx
from onnx import TensorProto, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
D, F = TensorProto.DOUBLE, TensorProto.FLOAT


def f32(t):
    """A TensorProto of float64 as float32; others as they are."""
    if t.data_type != D:
        return t
    a = numpy_helper.to_array(t).astype(np.float32)
    return numpy_helper.from_array(a, t.name)


def convert(g):
    for v in list(g.input) + list(g.output) + list(g.value_info):
        if v.type.tensor_type.elem_type == D:
            v.type.tensor_type.elem_type = F
    for i, t in enumerate(g.initializer):
        g.initializer[i].CopyFrom(f32(t))
    for n in g.node:
        for a in n.attribute:
            if a.type == onnx.AttributeProto.TENSOR:
                a.t.CopyFrom(f32(a.t))
            elif a.type == onnx.AttributeProto.GRAPH:
                convert(a.g)
            elif a.name in ("to", "output_datatype", "dtype") and a.i == D:
                a.i = F


def copy(src, dst):
    os.makedirs(dst)
    m = onnx.load(os.path.join(src, "model.onnx"))
    convert(m.graph)
    onnx.save(m, os.path.join(dst, "model.onnx"))
    for s in glob.glob(os.path.join(src, "test_data_set_*")):
        o = os.path.join(dst, os.path.basename(s))
        os.makedirs(o)
        for pb in glob.glob(os.path.join(s, "*.pb")):
            t = onnx.load_tensor(pb)
            with open(os.path.join(o, os.path.basename(pb)), "wb") as f:
                f.write(f32(t).SerializeToString())


def listed():
    tests = []
    for line in open(os.path.join(HERE, "strict_coverage.txt")):
        f = line.split()
        if len(f) > 2 and f[2].startswith("node:"):
            tests.append(f[2][5:])
    return sorted(set(tests))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("tests", nargs="*")
    a = ap.parse_args()
    if a.bin:
        os.environ["NNL_BIN"] = a.bin
    sys.path.insert(0, HERE)
    import conformance
    tests = a.tests or listed()
    tmp = tempfile.mkdtemp(prefix="node-f32.")
    try:
        for t in tests:
            copy(os.path.join(conformance.DATA, t), os.path.join(tmp, t))
        with ThreadPoolExecutor(a.jobs) as ex:
            res = list(ex.map(lambda t: conformance.one(t, tmp, None),
                              tests))
    finally:
        shutil.rmtree(tmp)
    bad = 0
    for t, r in zip(tests, res):
        print("%s %s%s" % (r[0], t, ": " + r[1] if r[1] else ""))
        bad += r[0] != "PASS"
    print("node_f32: %d of %d pass" % (len(tests) - bad, len(tests)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
