#!/usr/bin/python3
"""expect_tensor: an independent check of the shape-infer goldens of the
tensor rules (common/middle/shape_tensor.c).

For every golden case holding one of the ops below, the expected data
type and shape of each of that node's outputs is computed by running the
corresponding NumPy operation on zero tensors of the node's input types
(reshape, transpose, basic slicing, split, concatenate, take,
take_along_axis, advanced indexing, put_along_axis, the reductions with
keepdims, argmax/argmin), and compared with the "types" the .out.json
golden gives.  Where NumPy does not say what WebNN says (the index type
argMin/argMax return, the 4-bit types NumPy lacks), the rule is written
out below with a comment.  Prints one line per case; exits 1 on any
mismatch.

Usage: expect_tensor.py [GOLDEN-DIR]
"""
import glob
import json
import os
import sys
import warnings

import numpy as np

NP = {"float32": np.float32, "float16": np.float16, "int32": np.int32,
      "uint32": np.uint32, "int64": np.int64, "uint64": np.uint64,
      "int8": np.int8, "uint8": np.uint8,
      # NumPy has no 4-bit integers: they ride in the 8-bit type of the
      # same signedness, and map back to the input's own name (below).
      "int4": np.int8, "uint4": np.uint8}


def zeros(t):
    return np.zeros(t["shape"], NP[t["dataType"]])


def idx(t):
    """Zero indices: always in range, whatever the dimension."""
    return np.zeros(t["shape"], np.int64)


def reshape(x, o):
    return [np.reshape(x[0], o["newShape"])]


def transpose(x, o):
    # NumPy's default, like WebNN's, reverses the axes.
    return [np.transpose(x[0], o.get("permutation"))]


def slice_(x, o):
    a = x[0]
    st, sz = o["starts"], o["sizes"]
    sd = o.get("strides", [1] * a.ndim)
    # Python slicing clamps silently; WebNN refuses a slice past the end.
    assert all(s + n <= d for s, n, d in zip(st, sz, a.shape)), "bounds"
    sl = tuple(slice(s, s + n, k) for s, n, k in zip(st, sz, sd))
    return [np.asarray(a[sl])]


def split(x, o):
    a, s, axis = x[0], o["splits"], o.get("axis", 0)
    if isinstance(s, list):
        return np.split(a, np.cumsum(s)[:-1], axis)
    return np.split(a, s, axis)


def concat(x, o):
    return [np.concatenate(x, o["axis"])]


def gather(x, o):
    return [np.take(x[0], x[1], o.get("axis", 0))]


def gather_elements(x, o):
    a, i, axis = x[0], x[1], o.get("axis", 0)
    # take_along_axis broadcasts; WebNN wants the input's shape off the
    # axis exactly.
    assert i.ndim == a.ndim and all(
        d == e for k, (d, e) in enumerate(zip(i.shape, a.shape))
        if k != axis), "indices shape"
    return [np.take_along_axis(a, i, axis)]


def nd_key(i):
    """indices [..., k] as a tuple of k index arrays."""
    return tuple(i[..., j] for j in range(i.shape[-1]))


def gather_nd(x, o):
    return [np.asarray(x[0][nd_key(x[1])])]


def scatter_elements(x, o):
    a, i, u, axis = x[0].copy(), x[1], x[2], o.get("axis", 0)
    assert u.shape == i.shape and i.ndim == a.ndim and all(
        d == e for k, (d, e) in enumerate(zip(i.shape, a.shape))
        if k != axis), "indices/updates shape"
    np.put_along_axis(a, i, u, axis)
    return [a]


def scatter_nd(x, o):
    a, i, u = x[0].copy(), x[1], x[2]
    key = nd_key(i)
    # assignment broadcasts; WebNN wants the selected shape exactly.
    assert np.asarray(a[key]).shape == u.shape, "updates shape"
    a[key] = u
    return [a]


def reduction(fn):
    def f(x, o):
        a = x[0]
        axes = tuple(o["axes"]) if "axes" in o else None
        keep = o.get("keepDimensions", False)
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            return [np.asarray(fn(a, axes, keep))]
    return f


def _sum(a, ax, k):
    return np.sum(a, axis=ax, keepdims=k, dtype=a.dtype)


REDUCE = {
    "reduceL1": lambda a, ax, k: _sum(np.abs(a), ax, k),
    "reduceL2": lambda a, ax, k: np.sqrt(_sum(a * a, ax, k)),
    "reduceLogSum": lambda a, ax, k: np.log(_sum(a, ax, k)),
    "reduceLogSumExp": lambda a, ax, k: np.log(_sum(np.exp(a), ax, k)),
    "reduceMax": lambda a, ax, k: np.max(a, axis=ax, keepdims=k),
    "reduceMean": lambda a, ax, k: np.mean(a, axis=ax, keepdims=k,
                                           dtype=a.dtype),
    "reduceMin": lambda a, ax, k: np.min(a, axis=ax, keepdims=k),
    "reduceProduct": lambda a, ax, k: np.prod(a, axis=ax, keepdims=k,
                                              dtype=a.dtype),
    "reduceSum": _sum,
    "reduceSumSquare": lambda a, ax, k: _sum(a * a, ax, k),
}


def arg(fn):
    def f(x, o):
        r = fn(x[0], axis=o["axis"], keepdims=o.get("keepDimensions",
                                                     False))
        # NumPy returns intp; WebNN returns outputDataType (int32 by
        # default), which the caller reads from the options.
        return [np.asarray(r)]
    return f


OPS = {"reshape": reshape, "transpose": transpose, "slice": slice_,
       "split": split, "concat": concat, "gather": gather,
       "gatherElements": gather_elements, "gatherND": gather_nd,
       "scatterElements": scatter_elements, "scatterND": scatter_nd,
       "argMin": arg(np.argmin), "argMax": arg(np.argmax)}
OPS.update({k: reduction(v) for k, v in REDUCE.items()})
INDEXED = {"gather": 1, "gatherElements": 1, "gatherND": 1,
           "scatterElements": 1, "scatterND": 1}


def webnn_dtype(node, r, intypes):
    if node["op"] in ("argMin", "argMax"):
        return node["options"].get("outputDataType", "int32")
    data = intypes[0]["dataType"]
    if r.dtype == NP[data]:
        return data
    return [k for k, v in NP.items() if v == r.dtype][0]


def expected(node, types):
    intypes = [types[n] for n in node["inputs"]]
    x = [idx(t) if INDEXED.get(node["op"]) == k else zeros(t)
         for k, t in enumerate(intypes)]
    res = OPS[node["op"]](x, node.get("options", {}))
    return [{"dataType": webnn_dtype(node, r, intypes),
             "shape": list(r.shape)} for r in res]


def check(inpath):
    outpath = inpath.replace(".in.json", ".out.json")
    case = os.path.basename(inpath)[:-len(".in.json")]
    g = json.load(open(outpath))
    types = dict(g["inputs"])
    types.update(g.get("consts", {}))
    msgs, bad = [], 0
    for n in g["nodes"]:
        outs = n.get("outputs", [n["id"]])
        for o, t in zip(outs, n.get("types", [])):
            types[o] = t
        if n["op"] not in OPS:
            continue
        want = expected(n, types)
        got = [{"dataType": t["dataType"], "shape": t["shape"]}
               for t in n.get("types", [])]
        desc = ", ".join("%s%s" % (w["dataType"], w["shape"]) for w in want)
        if want != got:
            bad += 1
            msgs.append("node %s %s: expected %s, golden has %s" % (
                n["id"], n["op"], desc, got))
        else:
            msgs.append("%s %s" % (n["op"], desc))
    if not msgs:
        return None
    print("%s - %s: %s" % ("not ok" if bad else "ok", case, "; ".join(msgs)))
    return bad == 0


def main():
    d = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(
        os.path.abspath(__file__))
    results = [check(p) for p in sorted(glob.glob(
        os.path.join(d, "*.in.json")))]
    results = [r for r in results if r is not None]
    failed = results.count(False)
    print("expect_tensor: %d cases, %d failed" % (len(results), failed))
    sys.exit(1 if failed or not results else 0)


if __name__ == "__main__":
    main()
