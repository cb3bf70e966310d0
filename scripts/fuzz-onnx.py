#!/usr/bin/python3
"""fuzz-onnx: mutated ONNX models through nnl-onnx-import.

Usage: fuzz-onnx.py PROGRAM SEED COUNT
Loads the ONNX backend node tests' models (libonnx-testdata) and
mutates attributes, inputs, input shapes and types, initializers and
the opset, sometimes flipping bytes of the serialized protobuf, then
imports each with PROGRAM (a sanitizer build: make asan; see fuzz.py).
A run that exits with anything but 0 or 1, prints a sanitizer report
or runs past 30 s is a finding, kept as fuzz-crash-N.onnx in the
current directory.  Prints "done N"; exit 1 if any.
"""
import os
import random
import subprocess
import sys

import onnx
from onnx import helper

D = "/usr/share/libonnx-testdata/data/node"
INTS = [0, 1, -1, 2, 3, -2, 7, 100, 2**31 - 1, -2**31, 2**62, -2**63,
        2**63 - 1, 65536]


def mutnode(g):
    n = random.choice(list(g.node))
    if n.attribute and random.random() < 0.8:
        a = random.choice(n.attribute)
        if a.type == onnx.AttributeProto.INT:
            a.i = random.choice(INTS)
        elif a.type == onnx.AttributeProto.INTS:
            if a.ints and random.random() < 0.7:
                a.ints[random.randrange(len(a.ints))] = random.choice(INTS)
            elif random.random() < .5:
                a.ints.append(random.choice(INTS))
            elif a.ints:
                a.ints.pop()
        elif a.type == onnx.AttributeProto.FLOAT:
            a.f = random.choice([0.0, -1.0, 1e30, float("nan"), float("inf")])
        elif a.type == onnx.AttributeProto.STRING:
            a.s = random.choice([b"", b"xx", b"SAME_UPPER", b"linear",
                                 b"nearest", b"DCR", b"cubic"])
        return
    k = random.random()
    if k < 0.3 and n.input:
        n.input[random.randrange(len(n.input))] = random.choice(
            [""] + [x for m in g.node for x in m.input])
    elif k < 0.5:
        n.input.append(random.choice([x.name for x in g.input] or ["x"]))
    elif k < 0.7 and n.input:
        n.input.pop()
    else:
        n.attribute.append(helper.make_attribute(
            random.choice(["axis", "axes", "perm", "pads", "strides",
                           "group", "keepdims", "to", "split", "mode"]),
            random.choice([random.choice(INTS),
                           [random.choice(INTS) for _ in range(3)]])))


def mutate(m):
    g, r = m.graph, random.random()
    if g.node and r < 0.5:
        mutnode(g)
    elif g.input and r < 0.8:
        tt = random.choice(g.input).type.tensor_type
        if tt.shape.dim and random.random() < 0.6:
            random.choice(tt.shape.dim).dim_value = random.choice(
                [1, 2, 3, 0, 100000, 2**31])
        elif random.random() < 0.5:
            tt.shape.dim.add().dim_value = random.choice([1, 2, 3])
        else:
            tt.elem_type = random.choice([1, 2, 3, 6, 7, 9, 10, 12, 13])
    elif g.initializer:
        t = random.choice(g.initializer)
        if t.dims and random.random() < .5:
            t.dims[random.randrange(len(t.dims))] = random.choice(
                [0, 1, 2, 7, -1])
        else:
            t.data_type = random.choice([1, 2, 3, 6, 7, 9, 10, 11, 12, 13])
    if random.random() < 0.1 and m.opset_import:
        m.opset_import[0].version = random.choice(
            [1, 6, 7, 9, 10, 11, 13, 17, 18, 30])


def main():
    prog, seed, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    random.seed(seed)
    tests = sorted(os.listdir(D))
    # a report exits 86 (ASan) or 87 (UBSan), never 1 as a refusal does
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=0:exitcode=86",
               UBSAN_OPTIONS="halt_on_error=1:exitcode=87")
    bad = 0
    for _ in range(count):
        try:
            m = onnx.load(os.path.join(D, random.choice(tests), "model.onnx"))
        except Exception:
            continue
        for _ in range(random.randrange(1, 4)):
            mutate(m)
        b = bytearray(m.SerializeToString())
        if random.random() < 0.15 and b:
            for _ in range(random.randrange(1, 5)):
                b[random.randrange(len(b))] = random.randrange(256)
        with open("fuzz-current.onnx", "wb") as f:
            f.write(b)
        try:
            p = subprocess.run([prog, "-o", "fuzz-current.json",
                                "fuzz-current.onnx"], capture_output=True,
                               timeout=30, env=env)
            err, rc = p.stderr.decode(errors="replace"), p.returncode
        except subprocess.TimeoutExpired:
            err, rc = "timed out", -1
        if rc not in (0, 1) or "runtime error" in err or "Sanitizer" in err:
            bad += 1
            with open("fuzz-crash-%d.onnx" % bad, "wb") as f:
                f.write(b)
            print("finding", bad, rc, err[-600:], flush=True)
    print("done", bad)
    return 1 if bad else 0


sys.exit(main())
