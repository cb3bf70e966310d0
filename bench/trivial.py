#!/usr/bin/python3
"""trivial: an ONNX model with a model's input and output that computes
almost nothing, for bench/ort.py to time and measure each runtime's
fixed cost on: the call, its checks, the output's allocation or copy,
and the process it runs in.

The output is a box of the input's first elements whose element count
is the output's, reshaped to the output's shape: Slice, then Reshape.
Where no such box fits the input (an output count that does not factor
into the input's dimensions), the input is flattened first (Reshape,
Slice, Reshape), which a runtime may copy whole.

slice_box(ishape, n) is the box; expected(x, ishape, oshape) the
output the model gives for input x (flat).

Usage: trivial.py OUT.onnx INPUT-SHAPE OUTPUT-SHAPE  (shapes as 1,3,224,224)
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def slice_box(ishape, n):
    """Sizes s (s[d] <= ishape[d]) from the last dimension on, each the
    largest divisor of what is left of n that fits, with prod(s) = n;
    None where they do not reach n."""
    s = [1] * len(ishape)
    left = n
    for d in reversed(range(len(ishape))):
        k = min(left, ishape[d])
        while left % k:
            k -= 1
        s[d] = k
        left //= k
    return s if left == 1 else None


def expected(x, ishape, oshape):
    """The trivial model's output for the flat input x."""
    n = int(np.prod(oshape))
    box = slice_box(ishape, n)
    if box is None:
        return x[:n]
    return x.reshape(ishape)[tuple(slice(0, k) for k in box)].reshape(-1)


def model(path, ishape, oshape):
    n = int(np.prod(oshape))
    box = slice_box(ishape, n)
    ints = {"oshape": list(oshape)}
    nodes = []
    src = "input"
    if box is None:
        ints["flat"] = [-1]
        nodes.append(helper.make_node("Reshape", ["input", "flat"],
                                      ["flat_out"]))
        src, box, rank = "flat_out", [n], 1
    else:
        rank = len(ishape)
    ints["starts"] = [0] * rank
    ints["ends"] = box
    ints["axes"] = list(range(rank))
    nodes.append(helper.make_node("Slice", [src, "starts", "ends", "axes"],
                                  ["box"]))
    nodes.append(helper.make_node("Reshape", ["box", "oshape"], ["output"]))
    init = [numpy_helper.from_array(np.array(v, np.int64), k)
            for k, v in ints.items()]
    g = helper.make_graph(
        nodes, "trivial",
        [helper.make_tensor_value_info("input", TensorProto.FLOAT,
                                       list(ishape))],
        [helper.make_tensor_value_info("output", TensorProto.FLOAT,
                                       list(oshape))], init)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 7
    onnx.checker.check_model(m)
    onnx.save(m, path)


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: trivial.py OUT.onnx INPUT-SHAPE OUTPUT-SHAPE")
    model(sys.argv[1], [int(x) for x in sys.argv[2].split(",")],
          [int(x) for x in sys.argv[3].split(",")])


if __name__ == "__main__":
    main()
