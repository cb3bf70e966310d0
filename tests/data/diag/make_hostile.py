#!/usr/bin/python3
"""make_hostile: inputs whose names would command a terminal or forge
a diagnostic line if printed raw, for tests/cli/diagnostics.bats.
Writes into DIR:
  unknown-op.json  a node (id FORGE) of an unknown op
  undefined.json   a node reading an undefined operand named OSC
  big.json         a node with a 1 MiB id ("A" * 2**20), unknown op
  inspect.json     a valid relu chain whose node ids are every payload,
                   a 1 MiB one and two plain ones ("ReLU_1", "конв")
  run.json         x -> relu -> output named "o" ESC "[2J"
  enum.webnn       a conv2d whose inputLayout is "\\u001b[2J"
  unsupported.onnx a node named FORGE of an op ONNX has, WebNN not
  badaxis.onnx     a Softmax named OSC with axis 7 on a rank-2 input
  long.nnl         an NNL model of two Dense layers named by 300-byte
                   identifiers equal in their first 299 bytes, and
                   long.npz with their weights
  w.npz            one tensor named "w" ESC "[2J" CR "x"
Usage: make_hostile.py DIR"""
import json
import sys

import numpy as np

OSC = "\x1b]0;pwned\x07"
CLEAR = "\x1b[2J"
FORGE = "n" + CLEAR + "\nnnl-parse: everything ok"
PAYLOADS = [OSC, FORGE, "r\rb\bd\x7f", "c1\u009b31m", "bidi\u202eevil",
            "ls\u2028x"]
BIG = "A" * (1 << 20)


def graph(inputs, nodes, outputs):
    return {"format": "webnn-graph-json", "version": 1,
            "inputs": {k: {"dataType": "float32", "shape": [2]}
                       for k in inputs},
            "consts": {}, "nodes": nodes, "outputs": outputs}


def node(i, op, ins, outs):
    return {"id": i, "op": op, "inputs": ins, "outputs": outs}


def save(path, g):
    with open(path, "w") as f:
        json.dump(g, f)


def onnx_models(d):
    import onnx
    from onnx import TensorProto, helper
    vi = lambda name, shape: helper.make_tensor_value_info(  # noqa: E731
        name, TensorProto.FLOAT, shape)
    g = helper.make_graph(
        [helper.make_node("StringNormalizer", ["x"], ["y"], name=FORGE)], "g",
        [vi("x", [2])], [vi("y", [2])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    open(d + "/unsupported.onnx", "wb").write(m.SerializeToString())
    g = helper.make_graph(
        [helper.make_node("Softmax", ["x"], ["y"], name=OSC, axis=7)],
        "g", [vi("x", [2, 3])], [vi("y", [2, 3])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    open(d + "/badaxis.onnx", "wb").write(m.SerializeToString())


def main():
    d = sys.argv[1]
    save(d + "/unknown-op.json", graph(
        ["x"], [node(FORGE, "frobnicate", ["x"], ["y"])], {"y": "y"}))
    save(d + "/undefined.json", graph(
        ["x"], [node("n", "relu", [OSC], ["y"])], {"y": "y"}))
    save(d + "/big.json", graph(
        ["x"], [node(BIG, "frobnicate", ["x"], ["y"])], {"y": "y"}))
    ids = PAYLOADS + [BIG, "ReLU_1", "конв"]
    nodes, prev = [], "x"
    for k, i in enumerate(ids):
        nodes.append(node(i, "relu", [prev], ["t%d" % k]))
        prev = "t%d" % k
    save(d + "/inspect.json", graph(["x"], nodes, {"y": prev}))
    save(d + "/run.json", graph(
        ["x"], [node("n", "relu", ["x"], ["t"])], {"o" + CLEAR: "t"}))
    with open(d + "/enum.webnn", "w") as f:
        f.write('webnn_graph "g" v1 {\n'
                '  inputs { x: f32[1, 1, 4, 4]; w: f32[1, 1, 3, 3]; }\n'
                '  nodes {\n'
                '    y = conv2d(x, w, inputLayout="\\u001b[2J");\n'
                '  }\n'
                '  outputs { y; }\n}\n')
    a, b = "L" * 299 + "a", "L" * 299 + "b"
    with open(d + "/long.nnl", "w") as f:
        f.write('version 0.9;\nmodel m {\n'
                '    config { weights: "long.npz"; }\n'
                '    layer input = Input(shape: [4]);\n'
                '    layer %s = Dense(units: 3);\n'
                '    layer %s = Dense(units: 2);\n}\n' % (a, b))
    r = np.random.default_rng(5)
    np.savez(d + "/long.npz", **{
        a + ".weight": r.standard_normal((4, 3)).astype(np.float32),
        a + ".bias": r.standard_normal(3).astype(np.float32),
        b + ".weight": r.standard_normal((3, 2)).astype(np.float32),
        b + ".bias": r.standard_normal(2).astype(np.float32)})
    np.savez(d + "/w.npz", **{"w" + CLEAR + "\rx":
                              np.ones(2, np.float32)})
    onnx_models(d)


main()
