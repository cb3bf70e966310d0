#!/usr/bin/python3
"""gen_mlp: the ONNX import example of the NNL documentation.

Writes model.onnx, a two-layer MLP ([4] -> Gemm(3) -> Relu -> Gemm(2))
with fixed weights built with onnx.helper, input.npy ([1, 2, 3, 4]) and
expected.npy, computed from the same weights with NumPy.  Running it
again reproduces the three files byte for byte.
"""
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

W1 = (np.arange(12, dtype=np.float32).reshape(3, 4) - 5.5) / 10   # [out, in]
b1 = np.array([0.1, -0.2, 0.3], dtype=np.float32)
W2 = (np.arange(6, dtype=np.float32).reshape(2, 3) - 2.5) / 5
b2 = np.array([0.05, -0.05], dtype=np.float32)

nodes = [
    helper.make_node("Gemm", ["x", "W1", "b1"], ["h"], transB=1),
    helper.make_node("Relu", ["h"], ["r"]),
    helper.make_node("Gemm", ["r", "W2", "b2"], ["y"], transB=1),
]
graph = helper.make_graph(
    nodes, "mlp",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 2])],
    [numpy_helper.from_array(a, n) for n, a in
     (("W1", W1), ("b1", b1), ("W2", W2), ("b2", b2))])
model = helper.make_model(graph, producer_name="gen_mlp",
                          opset_imports=[helper.make_opsetid("", 13)])
model.ir_version = 8
onnx.checker.check_model(model)
onnx.save(model, "model.onnx")
x = np.array([[1.0, 2.0, 3.0, 4.0]], dtype=np.float32)
h = np.maximum(x.astype(np.float64) @ W1.T + b1, 0)
np.save("input.npy", x)
np.save("expected.npy", (h @ W2.T + b2).astype(np.float32))
