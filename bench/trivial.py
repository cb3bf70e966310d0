#!/usr/bin/python3
"""trivial: an ONNX model with a model's inputs and output that computes
almost nothing, for bench/ort.py to time and measure each runtime's
fixed cost on: the call, its checks, the output's allocation or copy,
and the process it runs in.

Of one float32 input, the output is a box of the input's first elements
whose element count is the output's, reshaped to the output's shape:
Slice, then Reshape.  Where no such box fits the input (an output
count that does not factor into the input's dimensions), the input is
flattened first (Reshape, Slice, Reshape), which a runtime may copy
whole.

Of several inputs, or one of another type, each input is flattened and
cast to float32 and they are concatenated, so that the model reads
every input; of that vector v (N elements) the output is its first
elements (Slice) where it has enough, else, where N divides the
output's count M, each element repeated M / N times (Expand of v as a
column), reshaped to the output's shape.

Inputs are (name, dtype, shape).  slice_box(ishape, n) is the box;
expected(xs, inputs, oshape) the output the model gives for inputs xs
(each flat, of its dtype).

Usage: trivial.py OUT.onnx INPUT-SHAPE OUTPUT-SHAPE  (shapes as 1,3,224,224;
       one float32 input)
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

DTYPES = {"float32": TensorProto.FLOAT, "int64": TensorProto.INT64,
          "int32": TensorProto.INT32, "bool": TensorProto.BOOL}


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


def simple(inputs):
    return len(inputs) == 1 and inputs[0][1] == "float32"


def expected(xs, inputs, oshape):
    """The trivial model's output for the inputs xs (each flat)."""
    n = int(np.prod(oshape))
    if simple(inputs):
        x, ishape = xs[0], inputs[0][2]
        box = slice_box(ishape, n)
        if box is None:
            return x[:n]
        return x.reshape(ishape)[tuple(slice(0, k) for k in box)] \
            .reshape(-1)
    v = np.concatenate([x.astype(np.float32) for x in xs])
    if n <= v.size:
        return v[:n]
    return np.repeat(v, n // v.size)


def model(path, inputs, oshape):
    n = int(np.prod(oshape))
    ints = {"oshape": list(oshape)}
    nodes = []
    if simple(inputs):
        ishape = inputs[0][2]
        src = inputs[0][0]
        box = slice_box(ishape, n)
        if box is None:
            ints["flat"] = [-1]
            nodes.append(helper.make_node("Reshape", [src, "flat"],
                                          ["flat_out"]))
            src, box, rank = "flat_out", [n], 1
        else:
            rank = len(ishape)
    else:
        ints["flat"] = [-1]
        parts, total = [], 0
        for name, dtype, shape in inputs:
            nodes.append(helper.make_node("Reshape", [name, "flat"],
                                          [name + "_flat"]))
            src = name + "_flat"
            if dtype != "float32":
                nodes.append(helper.make_node("Cast", [src], [name + "_f"],
                                              to=TensorProto.FLOAT))
                src = name + "_f"
            parts.append(src)
            total += int(np.prod(shape))
        nodes.append(helper.make_node("Concat", parts, ["v"], axis=0))
        src, box, rank = "v", [n], 1
        if n > total:
            if n % total:
                raise ValueError("trivial: %d output elements from %d "
                                 "inputs'" % (n, total))
            ints["column"] = [total, 1]
            ints["wide"] = [total, n // total]
            nodes.append(helper.make_node("Reshape", ["v", "column"],
                                          ["col"]))
            nodes.append(helper.make_node("Expand", ["col", "wide"],
                                          ["box"]))
    if "box" not in [o for nd in nodes for o in nd.output]:
        ints["starts"] = [0] * rank
        ints["ends"] = box
        ints["axes"] = list(range(rank))
        nodes.append(helper.make_node("Slice",
                                      [src, "starts", "ends", "axes"],
                                      ["box"]))
    nodes.append(helper.make_node("Reshape", ["box", "oshape"], ["output"]))
    init = [numpy_helper.from_array(np.array(v, np.int64), k)
            for k, v in ints.items()]
    g = helper.make_graph(
        nodes, "trivial",
        [helper.make_tensor_value_info(name, DTYPES[dtype], list(shape))
         for name, dtype, shape in inputs],
        [helper.make_tensor_value_info("output", TensorProto.FLOAT,
                                       list(oshape))], init)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 7
    onnx.checker.check_model(m)
    onnx.save(m, path)


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: trivial.py OUT.onnx INPUT-SHAPE OUTPUT-SHAPE")
    model(sys.argv[1],
          [("input", "float32", [int(x) for x in sys.argv[2].split(",")])],
          [int(x) for x in sys.argv[3].split(",")])


if __name__ == "__main__":
    main()
