#!/usr/bin/python3
"""Graphs of one integer op on extreme values, with numpy's answers.

Integer arithmetic wraps (two's complement) in WebNN, as in numpy's
fixed-width arrays: each case's expected output is numpy's, or, where
numpy's rule differs from WebNN's (division truncates toward zero, a
negative power truncates 1 / x^-e), Python's exact integers reduced to
the type's width.  The kernels must give these bits without undefined
behaviour (a signed overflow in C), which the sanitizer build catches.

Usage: cases.py DIR FAMILY   writes, for each case NAME of FAMILY
(reduce, binary, unary), DIR/NAME.json (input "x", output "y"),
DIR/NAME.x.npy, DIR/NAME.x.bin (its raw bytes, for a compiled program)
and DIR/NAME.want.npy, and prints the names, one a line.
"""
import json
import os
import sys

import numpy as np

I64 = np.iinfo(np.int64)
I32 = np.iinfo(np.int32)
U64 = np.iinfo(np.uint64)
U32 = np.iinfo(np.uint32)
TYPES = {np.int64: "int64", np.int32: "int32", np.uint64: "uint64",
         np.uint32: "uint32", np.uint8: "uint8"}


def wrap(v, dt):
    """Python integer v reduced to dt's width, as numpy stores it."""
    bits = np.dtype(dt).itemsize * 8
    v %= 1 << bits
    if np.issubdtype(dt, np.signedinteger) and v >= 1 << (bits - 1):
        v -= 1 << bits
    return v


def trunc_div(a, b):
    """a / b truncated toward zero, exactly."""
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def int_pow(x, e):
    """x to the power e; a negative e truncates 1 / x^-e toward 0."""
    if e >= 0:
        return x ** e
    return trunc_div(1, x ** -e)


def arr(values, dt):
    return np.array(values, dtype=dt)


def tensor(a):
    return {"dataType": TYPES[a.dtype.type], "shape": list(a.shape)}


def const(a):
    d = tensor(a)
    d["init"] = {"kind": "inlineBytes", "bytes": list(a.tobytes())}
    return d


def graph(name, op, x, opts=None, y=None):
    """Node y = op(x[, the constant b]) as webnn-graph JSON."""
    ins = ["x"] if y is None else ["x", "b"]
    return {
        "format": "webnn-graph-json", "version": 1, "name": name,
        "inputs": {"x": tensor(x)},
        "consts": {} if y is None else {"b": const(y)},
        "nodes": [{"id": "y", "op": op, "inputs": ins,
                   "options": opts or {}}],
        "outputs": {"y": "y"},
    }


def reduce_cases():
    big = arr([[I64.max, 1, 5], [I64.min, -1, -7]], np.int64)
    mins = arr([[I64.min, I64.min, 3], [I64.min, -1, I64.max]], np.int64)
    big32 = arr([[I32.max, 2, 3], [I32.min, -4, I32.min]], np.int32)
    sq32 = arr([[U32.max, 4053076740, 65536, 7],
                [3, 65537, 2 ** 31, U32.max - 1]], np.uint32)
    p64 = arr([[3037000500, 3037000500, -7], [I64.max, 3, I64.min]],
              np.int64)
    pu64 = arr([[U64.max, 2 ** 40, 3], [2 ** 63 + 1, 2 ** 63 - 1, 5]],
               np.uint64)
    # numpy arrays wrap: sum, prod and abs keep the dtype given
    return [
        ("reduceSum-int64", "reduceSum", big, {"axes": [1]},
         big.sum(axis=1, dtype=np.int64)),
        ("reduceSum-int32", "reduceSum", big32, {"axes": [1]},
         big32.sum(axis=1, dtype=np.int32)),
        ("reduceL1-int64", "reduceL1", mins, {"axes": [1]},
         np.abs(mins).sum(axis=1, dtype=np.int64)),
        ("reduceL1-int32", "reduceL1", big32, {"axes": [0]},
         np.abs(big32).sum(axis=0, dtype=np.int32)),
        ("reduceSumSquare-uint32", "reduceSumSquare", sq32, {"axes": [1]},
         (sq32 * sq32).sum(axis=1, dtype=np.uint32)),
        ("reduceSumSquare-int64", "reduceSumSquare", p64, {"axes": [1]},
         (p64 * p64).sum(axis=1, dtype=np.int64)),
        ("reduceProduct-int64", "reduceProduct", p64, {},
         np.prod(p64, dtype=np.int64)),
        ("reduceProduct-uint64-keep", "reduceProduct", pu64,
         {"keepDimensions": True},
         np.prod(pu64, dtype=np.uint64, keepdims=True)),
        ("reduceMax-uint64", "reduceMax", pu64, {"axes": [1]},
         pu64.max(axis=1)),
        ("reduceMin-uint64", "reduceMin", pu64, {"axes": [0]},
         pu64.min(axis=0)),
    ]


def exact(x, b, f, dt):
    """f on each pair of Python integers, reduced to dt."""
    return arr([wrap(f(int(p), int(q)), dt) for p, q in
                zip(x.tolist(), b.tolist())], dt)


def binary_cases():
    a64 = arr([I64.max, I64.min, 3037000500, -7, 7, I64.min], np.int64)
    b64 = arr([1, -1, 3037000500, 2, -2, I64.min], np.int64)
    d64 = arr([I64.min, -7, 7, I64.max, I64.min, 5], np.int64)
    e64 = arr([-1, 2, -2, -1, 3, -5], np.int64)
    du = arr([U64.max, 2 ** 63 + 5, 2 ** 63, 10], np.uint64)
    eu = arr([3, 2 ** 63, 7, 2 ** 63 + 1], np.uint64)
    d32 = arr([I32.min, -7, I32.max], np.int32)
    e32 = arr([-1, 2, -1], np.int32)
    px = arr([3, -3, 2, 7, 2, -1, -1, 1, 5, -2], np.int64)
    pe = arr([41, 41, 64, 0, -1, -3, -4, -5, 1, 63], np.int64)
    px32 = arr([3, -2, 5, -1], np.int32)
    pe32 = arr([21, 31, 14, 7], np.int32)
    cx = arr([2 ** 53 + 1, 2 ** 62 + 1, -2 ** 53 - 1, 5], np.int64)
    cb = arr([2 ** 53, 2 ** 62, -2 ** 53, 5], np.int64)
    ux = arr([2 ** 63, 1, U64.max, 2 ** 53 + 1], np.uint64)
    ub = arr([1, 2 ** 63, U64.max - 1, 2 ** 53], np.uint64)
    return [
        ("add-int64", "add", a64, b64, a64 + b64),
        ("sub-int64", "sub", a64, b64, a64 - b64),
        ("mul-int64", "mul", a64, b64, a64 * b64),
        ("div-int64", "div", d64, e64, exact(d64, e64, trunc_div,
                                             np.int64)),
        ("div-uint64", "div", du, eu, exact(du, eu, trunc_div, np.uint64)),
        ("div-int32", "div", d32, e32, exact(d32, e32, trunc_div,
                                             np.int32)),
        ("pow-int64", "pow", px, pe, exact(px, pe, int_pow, np.int64)),
        ("pow-int32", "pow", px32, pe32, exact(px32, pe32, int_pow,
                                               np.int32)),
        ("greater-int64", "greater", cx, cb, (cx > cb).astype(np.uint8)),
        ("equal-int64", "equal", cx, cb, (cx == cb).astype(np.uint8)),
        ("lesser-uint64", "lesser", ux, ub, (ux < ub).astype(np.uint8)),
        ("greaterOrEqual-uint64", "greaterOrEqual", ux, ub,
         (ux >= ub).astype(np.uint8)),
        ("max-uint64", "max", ux, ub, np.maximum(ux, ub)),
    ]


def unary_cases():
    m64 = arr([I64.min, -5, 5, I64.max], np.int64)
    m32 = arr([I32.min, -5, I32.max], np.int32)
    cs = arr([I64.max, 1, 1, I64.min, -1], np.int64)
    cs32 = arr([[I32.max, I32.min], [1, -1], [I32.max, I32.min]],
               np.int32)
    px = arr([I32.min, -3, 4, -2 ** 30], np.int32)
    ps = arr([2, -1, 5, 4], np.int32)
    cu = arr([U64.max, 2 ** 63 + 1, 3, 2 ** 62 + 1, 7], np.uint64)
    return [
        ("abs-int64", "abs", m64, None, np.abs(m64)),
        ("abs-int32", "abs", m32, None, np.abs(m32)),
        ("neg-int64", "neg", m64, None, np.negative(m64)),
        ("neg-int32", "neg", m32, None, np.negative(m32)),
        ("cumulativeSum-int64", "cumulativeSum", cs, {"axis": 0},
         np.cumsum(cs, dtype=np.int64)),
        ("cumulativeSum-int32-exclusive", "cumulativeSum", cs32,
         {"axis": 0, "exclusive": True},
         np.concatenate([np.zeros((1, 2), np.int32),
                         np.cumsum(cs32, axis=0, dtype=np.int32)[:-1]])),
        ("prelu-int32", "prelu", px, ps,
         np.where(px >= 0, px, px * ps)),
        # a bound beyond the type saturates at the type's end
        ("clamp-int32-beyond", "clamp", m32,
         {"minValue": 1e30, "maxValue": 2e30},
         np.full(m32.shape, I32.max, np.int32)),
        ("clamp-uint64", "clamp", cu, {"minValue": 5, "maxValue": 2 ** 62},
         np.clip(cu, np.uint64(5), np.uint64(2 ** 62))),
        ("clamp-uint64-no-max", "clamp", cu, {"minValue": 5},
         np.maximum(cu, np.uint64(5))),
    ]


def write(d, name, g, x, want):
    with open(os.path.join(d, name + ".json"), "w") as f:
        json.dump(g, f)
    np.save(os.path.join(d, name + ".x.npy"), x)
    with open(os.path.join(d, name + ".x.bin"), "wb") as f:
        f.write(x.tobytes())
    np.save(os.path.join(d, name + ".want.npy"), np.asarray(want))
    print(name)


def main():
    d, family = sys.argv[1], sys.argv[2]
    with np.errstate(over="ignore"):
        if family == "reduce":
            for name, op, x, opts, want in reduce_cases():
                write(d, name, graph(name, op, x, opts), x, want)
        elif family == "binary":
            for name, op, x, b, want in binary_cases():
                write(d, name, graph(name, op, x, None, b), x, want)
        elif family == "unary":
            for name, op, x, o, want in unary_cases():
                if isinstance(o, np.ndarray):
                    g = graph(name, op, x, None, o)
                else:
                    g = graph(name, op, x, o)
                write(d, name, g, x, want)
        else:
            sys.exit("cases.py: unknown family " + family)


if __name__ == "__main__":
    main()
