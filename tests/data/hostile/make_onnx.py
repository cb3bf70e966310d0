#!/usr/bin/python3
"""make_onnx: an ONNX model whose graph name, inputs, initializers,
node names, intermediate values and outputs have hostile names (those
of make_graph.py), or plain ones (--plain), or one value name holding a
NUL byte (--nul) or invalid UTF-8 (--utf8).  Writes DIR/model.onnx,
DIR/in.bin, DIR/values.json and DIR/expected.json as make_graph.py does.
Usage: make_onnx.py DIR [--plain | --nul | --utf8]"""
import json
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, sys.path[0])
from make_graph import HOSTILE, PLAIN  # noqa: E402


def main():
    d, mode = sys.argv[1], (sys.argv[2:] or ["--hostile"])[0]
    n = dict(PLAIN if mode != "--hostile" else HOSTILE)
    if mode == "--nul":
        n["t"] = "t\0hidden"
    if mode == "--utf8":
        n["t"] = "ZZZZ-not-utf8"
    r = np.random.default_rng(12)
    x = r.standard_normal((4, 8)).astype(np.float32)
    y = r.standard_normal((4, 8)).astype(np.float32)
    c = r.standard_normal((4, 8)).astype(np.float32)   # 128 bytes: weights
    s = np.array(0.25, dtype=np.float32)
    vi = lambda name: helper.make_tensor_value_info(  # noqa: E731
        name, TensorProto.FLOAT, [4, 8])
    nodes = [
        helper.make_node("Add", [n["x"], n["c"]], [n["t"]], name=n["out_t"]),
        helper.make_node("Mul", [n["t"], n["y"]], [n["u"]], name=n["u"]),
        helper.make_node("Relu", [n["u"]], [n["out_v"]], name=n["v"]),
        helper.make_node("Sub", [n["out_v"], n["s"]], [n["out_w"]],
                         name=n["w"]),
    ]
    g = helper.make_graph(
        nodes, n["graph"], [vi(n["x"]), vi(n["y"])],
        [vi(n["out_v"]), vi(n["out_w"])],
        [numpy_helper.from_array(c, n["c"]),
         numpy_helper.from_array(s, n["s"])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    b = m.SerializeToString()
    if mode == "--utf8":
        b = b.replace(b"ZZZZ", b"\xff\xfe\xc0\x80")
    open(d + "/model.onnx", "wb").write(b)
    t = x + c
    v = np.maximum(t * y, np.float32(0))
    w = v - s
    open(d + "/in.bin", "wb").write(x.tobytes() + y.tobytes())
    with open(d + "/values.json", "w") as f:
        json.dump({n["x"]: x.ravel().tolist(), n["y"]: y.ravel().tolist()},
                  f)
    with open(d + "/expected.json", "w") as f:
        json.dump([[n["out_v"], v.ravel().tolist()],
                   [n["out_w"], w.ravel().tolist()]], f)


main()
