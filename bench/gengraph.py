#!/usr/bin/env python3
"""gengraph: synthetic webnn graphs of any size, for bench/passes.sh.

  gengraph.py chain|dag|wide N OUT.webnn

writes OUT.webnn, OUT.weights and OUT.manifest.json (the sidecars
nnl-parse finds beside the text).  Every node works on float32[1, 16]:
  chain  each node reads the one before it: relu, add of a weights
         tensor, mul by a scalar constant, identity, in turn;
  dag    as chain, but every third node also reads an earlier node
         up to 64 back (joins), so nodes fan out to several readers
         and values stay live across long stretches;
  wide   layers 100 nodes wide, each node reading two of the layer
         before (the first layer reads x): fan-out, joins, and about
         200 values live at once.
One weights tensor every four nodes, so the weights file and manifest
grow with the graph too.  The generator is seeded: the same arguments
give the same files.
"""
import json
import random
import struct
import sys

W = 16


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in ("chain", "dag", "wide"):
        sys.exit("usage: gengraph.py chain|dag|wide N OUT.webnn")
    kind, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    stem = out[:-6] if out.endswith(".webnn") else out
    rng = random.Random(n)
    nodes, consts, tensors = [], [], []
    prev = "x"
    for i in range(n):
        y = "n%d" % i
        k = i % 4
        if kind == "wide":
            lo = (i // 100 - 1) * 100
            a, b = ("x", "x") if lo < 0 else \
                ("n%d" % rng.randrange(lo, lo + 100),
                 "n%d" % rng.randrange(lo, lo + 100))
            prev = a
            if k == 3:
                nodes.append("%s = add(%s, %s);" % (y, a, b))
                prev = y
                continue
        if kind == "dag" and i % 3 == 2 and i >= 2:
            j = rng.randrange(max(0, i - 64), i - 1)
            nodes.append("%s = add(%s, n%d);" % (y, prev, j))
        elif k == 0:
            nodes.append("%s = relu(%s);" % (y, prev))
        elif k == 1:
            w = "w%d" % i
            consts.append("%s: f32[%d];" % (w, W))
            tensors.append(w)
            nodes.append("%s = add(%s, %s);" % (y, prev, w))
        elif k == 2:
            s = "s%d" % i
            consts.append("%s: f32[] @scalar(%g);" % (s, 1 + i % 7 / 8))
            nodes.append("%s = mul(%s, %s);" % (y, prev, s))
        else:
            nodes.append("%s = identity(%s);" % (y, prev))
        prev = y
    with open(out, "w") as f:
        f.write('webnn_graph "%s%d" v1 {\n' % (kind, n))
        f.write("  inputs { x: f32[1, %d]; }\n" % W)
        f.write("  consts {\n")
        for c in consts:
            f.write("    %s\n" % c)
        f.write("  }\n  nodes {\n")
        for s in nodes:
            f.write("    %s\n" % s)
        last = ["n%d" % i for i in range(max(0, n - 100), n)] \
            if kind == "wide" else [prev]
        f.write("  }\n  outputs { %s; }\n}\n" % "; ".join(last))
    man = {}
    off = 64
    with open(stem + ".weights", "wb") as f:
        f.write(b"WGWT" + struct.pack("<I", 1) + bytes(56))
        for t in tensors:
            data = struct.pack("<%df" % W,
                               *[rng.uniform(-1, 1) for _ in range(W)])
            f.write(data)
            man[t] = {"dataType": "float32", "shape": [W],
                      "byteOffset": off, "byteLength": len(data)}
            off += len(data)
    with open(stem + ".manifest.json", "w") as f:
        json.dump({"format": "wg-weights-manifest", "version": 1,
                   "endianness": "little", "tensors": man}, f)


main()
