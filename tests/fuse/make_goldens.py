#!/usr/bin/python3
"""make_goldens: the inputs of the fuse goldens (typed by nnl-shape-infer),
one per rewrite and a negative twin that must not change.

Usage: make_goldens.py   (writes tests/golden/fuse/*.in.json; the .out.json
files come from tests/run-golden.sh --update and are checked by
tests/cli/fuse.bats for the structure each rewrite must produce).
"""
import json
import os
import struct
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "tests", "golden", "fuse")


def f32(*v):
    return {"kind": "inlineBytes", "bytes": list(struct.pack("<%df" % len(v),
                                                             *v))}


def const(shape, *v):
    return {"dataType": "float32", "shape": shape, "init": f32(*v)}


def g(inputs, consts, nodes, outputs):
    return {"format": "webnn-graph-json", "version": 1, "inputs": inputs,
            "consts": consts, "nodes": nodes, "outputs": outputs}


X = {"x": {"dataType": "float32", "shape": [1, 2, 3, 3]}}
W = {"w": const([2, 2, 1, 1], 1, 2, 3, 4)}
BN = {"mean": const([2], 0.5, -1), "var": const([2], 4, 0.25),
      "gamma": const([2], 2, 3), "beta": const([2], 0.1, 0.2)}
conv = {"id": "c", "op": "conv2d", "inputs": ["x", "w"], "options": {}}
bn = {"id": "bn", "op": "batchNormalization", "inputs": ["c", "mean", "var"],
      "options": {"scale": "gamma", "bias": "beta"}}
cases = {
    "fold-bn-into-conv": g(X, dict(W, **BN), [conv, bn], {"y": "bn"}),
    "fold-bn-into-conv-shared-negative": g(
        X, dict(W, **BN), [conv, bn], {"y": "bn", "c": "c"}),
    "merge-bias-into-conv": g(
        X, dict(W, b=const([2, 1, 1], 0.5, -0.5)),
        [conv, {"id": "y", "op": "add", "inputs": ["c", "b"], "options": {}}],
        {"y": "y"}),
    "merge-bias-into-conv-negative": g(
        X, dict(W, b=const([3], 1, 2, 3)),
        [conv, {"id": "y", "op": "add", "inputs": ["c", "b"], "options": {}}],
        {"y": "y"}),
    "fuse-relu-into-conv": g(
        X, W, [conv, {"id": "r", "op": "relu", "inputs": ["c"],
                      "options": {}}], {"r": "r"}),
    "fuse-relu-into-conv-negative": g(
        X, W, [conv, {"id": "r", "op": "relu", "inputs": ["c"], "options": {}},
               {"id": "s", "op": "sigmoid", "inputs": ["c"], "options": {}}],
        {"r": "r", "s": "s"}),
    "fuse-clamp-into-gemm": g(
        {"a": {"dataType": "float32", "shape": [2, 3]}},
        {"b": const([3, 2], 1, 2, 3, 4, 5, 6)},
        [{"id": "m", "op": "gemm", "inputs": ["a", "b"], "options": {}},
         {"id": "y", "op": "clamp", "inputs": ["m"],
          "options": {"minValue": 0, "maxValue": 6}}], {"y": "y"}),
    "matmul-add-to-gemm": g(
        {"a": {"dataType": "float32", "shape": [2, 3]}},
        {"b": const([3, 2], 1, 2, 3, 4, 5, 6), "k": const([2], 1, -1)},
        [{"id": "m", "op": "matmul", "inputs": ["a", "b"], "options": {}},
         {"id": "y", "op": "add", "inputs": ["m", "k"], "options": {}}],
        {"y": "y"}),
    "drop-identity": g(
        {"a": {"dataType": "float32", "shape": [4]}}, {},
        [{"id": "r", "op": "relu", "inputs": ["a"], "options": {}},
         {"id": "i", "op": "identity", "inputs": ["r"], "options": {}},
         {"id": "y", "op": "reshape", "inputs": ["i"],
          "options": {"newShape": [4]}}], {"y": "y"}),
    "drop-identity-negative": g(
        {"a": {"dataType": "float32", "shape": [4]}}, {},
        [{"id": "y", "op": "identity", "inputs": ["a"], "options": {}}],
        {"y": "y"}),
    # -e residual: the shortcut's own conv2d comes after the conv2d
    # whose result it is added to, which moves to the add's place
    "fuse-residual-into-conv": g(
        X, dict(W, v=const([2, 2, 1, 1], -1, 0.5, 2, -3)),
        [conv, {"id": "d", "op": "conv2d", "inputs": ["x", "v"],
                "options": {}},
         {"id": "s", "op": "add", "inputs": ["c", "d"], "options": {}},
         {"id": "r", "op": "relu", "inputs": ["s"], "options": {}}],
        {"r": "r"}),
    # kept: an activation before the add, a broadcast, a result read
    # twice
    "fuse-residual-into-conv-negative": g(
        dict(X, y={"dataType": "float32", "shape": [1, 1, 3, 3]}), W,
        [dict(conv, id="c1"),
         {"id": "a1", "op": "relu", "inputs": ["c1"], "options": {}},
         {"id": "s1", "op": "add", "inputs": ["a1", "x"], "options": {}},
         dict(conv, id="c2"),
         {"id": "s2", "op": "add", "inputs": ["c2", "y"], "options": {}},
         dict(conv, id="c3"),
         {"id": "s3", "op": "add", "inputs": ["x", "c3"], "options": {}}],
        {"s1": "s1", "s2": "s2", "s3": "s3", "c3": "c3"}),
    # swish: mul(c, sigmoid(c)), the mul's operands the other way
    # round, and hardSigmoid: both into their conv2d
    "fuse-swish-into-conv": g(
        X, W, [conv, {"id": "s", "op": "sigmoid", "inputs": ["c"],
                      "options": {}},
               {"id": "y", "op": "mul", "inputs": ["s", "c"],
                "options": {}}], {"y": "y"}),
    # kept: the sigmoid's result read twice (by the mul and an
    # output); a conv2d's result read by a third node; a mul of the
    # sigmoid of another operand
    "fuse-swish-into-conv-negative": g(
        X, W, [dict(conv, id="c1"),
               {"id": "s1", "op": "sigmoid", "inputs": ["c1"],
                "options": {}},
               {"id": "y1", "op": "mul", "inputs": ["c1", "s1"],
                "options": {}},
               dict(conv, id="c2"),
               {"id": "s2", "op": "sigmoid", "inputs": ["c2"],
                "options": {}},
               {"id": "y2", "op": "mul", "inputs": ["c2", "s2"],
                "options": {}},
               {"id": "r2", "op": "relu", "inputs": ["c2"], "options": {}},
               dict(conv, id="c3"),
               {"id": "s3", "op": "sigmoid", "inputs": ["x"],
                "options": {}},
               {"id": "y3", "op": "mul", "inputs": ["c3", "s3"],
                "options": {}}],
        {"y1": "y1", "s1": "s1", "y2": "y2", "r2": "r2", "y3": "y3"}),
    "fuse-hardsigmoid-into-conv": g(
        X, W, [conv, {"id": "h", "op": "hardSigmoid", "inputs": ["c"],
                      "options": {"alpha": 0.25, "beta": 0.375}}],
        {"h": "h"}),
    # gelu as PyTorch exports it before opset 20, after a matmul: one
    # gelu, then fused into the matmul; and tanh into a gemm
    "fuse-gelu-into-matmul": g(
        {"a": {"dataType": "float32", "shape": [2, 3]}},
        {"b": const([3, 2], 1, 2, 3, 4, 5, 6), "r2": const([], 2 ** 0.5),
         "one": const([], 1), "half": const([], 0.5)},
        [{"id": "m", "op": "matmul", "inputs": ["a", "b"], "options": {}},
         {"id": "d", "op": "div", "inputs": ["m", "r2"], "options": {}},
         {"id": "e", "op": "erf", "inputs": ["d"], "options": {}},
         {"id": "p", "op": "add", "inputs": ["one", "e"], "options": {}},
         {"id": "q", "op": "mul", "inputs": ["m", "p"], "options": {}},
         {"id": "y", "op": "mul", "inputs": ["q", "half"], "options": {}}],
        {"y": "y"}),
    # kept: the erf's result read twice; a constant that is not 1 / 2
    "fuse-gelu-into-matmul-negative": g(
        {"a": {"dataType": "float32", "shape": [2, 3]}},
        {"b": const([3, 2], 1, 2, 3, 4, 5, 6), "r2": const([], 2 ** 0.5),
         "one": const([], 1), "half": const([], 0.5),
         "third": const([], 1 / 3)},
        [{"id": "m", "op": "matmul", "inputs": ["a", "b"], "options": {}},
         {"id": "d", "op": "div", "inputs": ["m", "r2"], "options": {}},
         {"id": "e", "op": "erf", "inputs": ["d"], "options": {}},
         {"id": "p", "op": "add", "inputs": ["e", "one"], "options": {}},
         {"id": "q", "op": "mul", "inputs": ["m", "p"], "options": {}},
         {"id": "y", "op": "mul", "inputs": ["q", "half"], "options": {}},
         {"id": "m2", "op": "matmul", "inputs": ["a", "b"], "options": {}},
         {"id": "d2", "op": "div", "inputs": ["m2", "r2"], "options": {}},
         {"id": "e2", "op": "erf", "inputs": ["d2"], "options": {}},
         {"id": "p2", "op": "add", "inputs": ["e2", "one"], "options": {}},
         {"id": "q2", "op": "mul", "inputs": ["m2", "p2"], "options": {}},
         {"id": "y2", "op": "mul", "inputs": ["q2", "third"],
          "options": {}}],
        {"y": "y", "e": "e", "y2": "y2"}),
    "fuse-tanh-into-gemm": g(
        {"a": {"dataType": "float32", "shape": [2, 3]}},
        {"b": const([3, 2], 1, 2, 3, 4, 5, 6)},
        [{"id": "m", "op": "gemm", "inputs": ["a", "b"], "options": {}},
         {"id": "y", "op": "tanh", "inputs": ["m"], "options": {}}],
        {"y": "y"}),
    "fold-constants": g(
        {"a": {"dataType": "float32", "shape": [2]}},
        {"p": const([2], 1, 2), "q": const([2], 10, 20)},
        [{"id": "s", "op": "add", "inputs": ["p", "q"], "options": {}},
         {"id": "y", "op": "mul", "inputs": ["a", "s"], "options": {}}],
        {"y": "y"}),
    "fold-constants-negative": g(
        {"a": {"dataType": "float32", "shape": [2]}},
        {"p": const([2], 1, 2)},
        [{"id": "y", "op": "add", "inputs": ["a", "p"], "options": {}}],
        {"y": "y"}),
}
os.makedirs(OUT, exist_ok=True)
for name, graph in cases.items():
    p = os.path.join(OUT, name + ".in.json")
    json.dump(graph, open(p, "w"))
    subprocess.run([os.path.join(ROOT, "bin", "nnl-shape-infer"), "-o", p, p],
                   check=True)
