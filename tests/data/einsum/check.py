#!/usr/bin/python3
"""check.py BIN DIR [SEED]: ONNX Einsum through nnl against numpy.einsum.

One ONNX model holds an Einsum node per equation (a fixed list, the
ONNX node tests' and maxvit's among them, then random ones drawn with
SEED: 1 to 3 operands, repeated labels, ellipses, broadcast 1s,
implicit outputs), float32 and int32 each.  It is imported, run by
nnl-run and compiled by nnc compile; every output must agree with
numpy.einsum of the same inputs (float32: computed in float64, within
1e-4 relative; int32: exactly).  Prints "N equations" and exits 0, or
names the first equation that disagrees and exits 1.
"""
import os
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper

FIXED = [
    ("...ii ->...i", [(3, 5, 5)]),
    ("bij, bjk -> bik", [(5, 2, 3), (5, 3, 4)]),
    ("i,i", [(5,), (5,)]),
    ("ij->i", [(3, 4)]),
    ("ij->ji", [(3, 4)]),
    ("ij->ij", [(3, 4)]),
    ("ii", [(4, 4)]),
    ("ii->i", [(4, 4)]),
    ("iii->i", [(3, 3, 3)]),
    ("ij", [(2, 3)]),
    ("ji", [(2, 3)]),
    ("bA", [(2, 3)]),
    ("ij->", [(2, 3)]),
    ("bhid,bhjd->bhij", [(2, 3, 5, 4), (2, 3, 6, 4)]),
    ("bhij,bhjd->bhid", [(2, 3, 5, 6), (2, 3, 6, 4)]),
    ("bnhwd,wkd->bnhwk", [(1, 2, 3, 4, 5), (4, 6, 5)]),
    ("i,j->ij", [(3,), (4,)]),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]),
    ("...ij,...jk", [(2, 1, 3, 4), (5, 4, 2)]),
    ("ij,ij->ij", [(1, 3), (2, 3)]),
    ("ij,ij->i", [(1, 3), (2, 3)]),
    ("ij,ij->j", [(1, 3), (2, 3)]),
    ("ab,cd->", [(2, 3), (4, 5)]),
    ("a,a,a->a", [(4,), (4,), (4,)]),
    ("i i , j->i", [(3, 3), (2,)]),
]


def randeq(rng):
    """A random equation numpy takes, and its shapes."""
    letters = "abcdefgH"
    size = {c: int(rng.integers(1, 5)) for c in letters}
    ell = [int(rng.integers(1, 4)) for _ in range(int(rng.integers(0, 3)))]
    terms, shapes, used = [], [], []
    for _ in range(int(rng.integers(1, 4))):
        labs = list(rng.choice(list(letters), int(rng.integers(0, 4))))
        if labs and rng.random() < 0.2:
            labs.append(labs[0])            # a diagonal
        rng.shuffle(labs)
        shape = [size[c] for c in labs]
        t = "".join(labs)
        if ell and rng.random() < 0.4:
            k = int(rng.integers(0, len(ell) + 1))
            at = int(rng.integers(0, len(labs) + 1))
            e = [1 if rng.random() < 0.3 else d for d in ell[len(ell) - k:]]
            t = t[:at] + "..." + t[at:]
            shape = shape[:at] + e + shape[at:]
        terms.append(t)
        shapes.append(tuple(shape))
        used += labs
    eq = ",".join(terms)
    if rng.random() < 0.7:
        out = sorted(set(used), key=lambda c: rng.random())
        out = out[:int(rng.integers(0, len(out) + 1))]
        eq += "->" + ("..." if "..." in eq else "") + "".join(out)
    return eq, shapes


def main():
    bin_, d = sys.argv[1], sys.argv[2]
    rng = np.random.default_rng(int(sys.argv[3]) if len(sys.argv) > 3 else 1)
    cases = list(FIXED)
    while len(cases) < len(FIXED) + 60:
        eq, shapes = randeq(rng)
        try:
            np.einsum(eq, *[np.ones(s) for s in shapes])
        except ValueError:
            continue
        cases.append((eq, shapes))
    total = 0
    for dt, npdt, onnxdt in (("float", np.float32, TensorProto.FLOAT),
                             ("int", np.int32, TensorProto.INT32)):
        nodes, ins, outs, feed, want = [], [], [], {}, {}
        for k, (eq, shapes) in enumerate(cases):
            names = ["e%d_%d" % (k, i) for i in range(len(shapes))]
            for n, s in zip(names, shapes):
                v = (rng.standard_normal(s) if dt == "float" else
                     rng.integers(-5, 6, s)).astype(npdt)
                feed[n] = v
                ins.append(helper.make_tensor_value_info(n, onnxdt, s))
            y = np.einsum(eq, *[feed[n].astype(np.float64 if dt == "float"
                                               else np.int64)
                                for n in names])
            want["y%d" % k] = (y.astype(npdt), eq)
            outs.append(helper.make_tensor_value_info("y%d" % k, onnxdt,
                                                      None))
            nodes.append(helper.make_node("Einsum", names, ["y%d" % k],
                                          equation=eq))
        g = helper.make_graph(nodes, "einsum", ins, outs)
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 12)])
        w = os.path.join(d, dt)
        os.makedirs(w)
        onnx.save(m, os.path.join(w, "model.onnx"))
        for n, v in feed.items():
            np.save(os.path.join(w, n + ".npy"), v)
        subprocess.run([os.path.join(bin_, "nnl-onnx-import"), "-o", "g.json",
                        "model.onnx"], cwd=w, check=True)
        subprocess.run([os.path.join(bin_, "nnl-run"), "-d", "run", "g.json"]
                       + ["%s=%s.npy" % (n, n) for n in feed], cwd=w,
                       check=True, stdout=subprocess.DEVNULL)
        subprocess.run([os.path.join(bin_, "nnc"), "compile", "--emit", "exe",
                        "-o", "prog", "model.onnx"], cwd=w, check=True)
        raw = b"".join(np.ascontiguousarray(feed[i.name]).tobytes()
                       for i in ins)
        buf = subprocess.run([os.path.join(w, "prog")], input=raw,
                             check=True, stdout=subprocess.PIPE).stdout
        off = 0
        for k in range(len(cases)):
            y, eq = want["y%d" % k]
            n = y.size * y.itemsize
            c = np.frombuffer(buf[off:off + n], npdt).reshape(y.shape)
            off += n
            r = np.load(os.path.join(w, "run", "y%d.npy" % k))
            for how, got in (("nnl-run", r), ("nnc compile", c)):
                ok = (got.shape == y.shape and got.dtype == y.dtype and
                      (np.array_equal(got, y) if dt == "int" else
                       np.allclose(got, y, rtol=1e-4, atol=1e-5)))
                if not ok:
                    print("%s %s: %r %s: got %s, want %s" % (
                        how, dt, eq, [feed["e%d_%d" % (k, i)].shape
                                      for i in range(len(cases[k][1]))],
                        got.tolist(), y.tolist()))
                    return 1
        if off != len(buf):
            print("nnc compile %s: %d bytes of output, wanted %d" % (
                dt, len(buf), off))
            return 1
        total += len(cases)
    print("%d equations" % total)
    return 0


if __name__ == "__main__":
    sys.exit(main())
