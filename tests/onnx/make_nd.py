#!/usr/bin/python3
"""make_nd: ONNX 3-D (and 1-D, 2-D Lp) convolutions and pools as node
tests, for nnl's conv3d, convTranspose3d and 3-D pools.

Usage: make_nd.py DIR
Writes DIR/test_nd_NAME/model.onnx with test_data_set_0/input_*.pb and
output_*.pb, the layout of ONNX's node tests, for conformance.py --data
DIR: the attributes ONNX's own node tests leave out (pads on one side,
auto_pad, groups, a bias, dilations, output_padding and output_shape,
ceil_mode, count_include_pad, LpPool's and GlobalLpPool's p, a uint8
MaxPool).  Each
expected output is computed by PyTorch (torch.nn.functional), or, where
PyTorch has no such pool (padding on one side only, Lp with |x|), by
the NumPy references of tests/ops/refs.py; never by nnl.
DIR/bad/NAME.onnx are models the importer must refuse.
"""
import os
import sys

import numpy as np
import onnx
import torch
import torch.nn.functional as F
from onnx import TensorProto as TP, helper as h, numpy_helper as nh

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "ops"))
import refs  # noqa: E402

RNG = np.random.default_rng(3)
OUT = sys.argv[1]


def save(name, op, ins, outs, attrs, opset=17, out_types=None):
    """One node of op over inputs ins ({name: array}) giving outs."""
    d = os.path.join(OUT, "test_nd_" + name)
    os.makedirs(os.path.join(d, "test_data_set_0"), exist_ok=True)
    vis = [h.make_tensor_value_info(k, nh.from_array(v).data_type, v.shape)
           for k, v in ins.items()]
    ovs = [h.make_tensor_value_info("y%d" % i, nh.from_array(v).data_type,
                                    v.shape) for i, v in enumerate(outs)]
    node = h.make_node(op, list(ins), [o.name for o in ovs], **attrs)
    g = h.make_graph([node], name, vis, ovs)
    m = h.make_model(g, opset_imports=[h.make_opsetid("", opset)])
    onnx.checker.check_model(m)
    onnx.save(m, os.path.join(d, "model.onnx"))
    for kind, vals in (("input", list(ins.values())), ("output", outs)):
        for k, v in enumerate(vals):
            onnx.save_tensor(nh.from_array(v), os.path.join(
                d, "test_data_set_0", "%s_%d.pb" % (kind, k)))


def r(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


def t(a):
    return torch.from_numpy(a)


def f32(y):
    return y.numpy().astype(np.float32) if hasattr(y, "numpy") else \
        np.asarray(y, np.float32)


def conv():
    # pads on one side of each axis (ONNX: begins, then ends): padded
    # by hand, then a PyTorch convolution without padding
    x, w, b = r(1, 4, 5, 6, 7), r(6, 2, 3, 2, 3), r(6)
    xp = F.pad(t(x), (1, 0, 1, 1, 0, 1))	# last axis first
    y = F.conv3d(xp, t(w), t(b), stride=(1, 2, 2), dilation=(2, 1, 1),
                 groups=2)
    save("conv3d_pads_groups_bias", "Conv", {"x": x, "w": w, "b": b},
         [f32(y)], dict(pads=[0, 1, 1, 1, 1, 0], strides=[1, 2, 2],
                        dilations=[2, 1, 1], group=2))
    # SAME_UPPER, stride 2: the extra pad at the end
    x, w = r(1, 2, 5, 6, 4), r(3, 2, 3, 3, 2)
    pads = []
    for n, k in zip(x.shape[2:], w.shape[2:]):
        tot = max((-(-n // 2) - 1) * 2 + k - n, 0)
        pads.append((tot // 2, tot - tot // 2))
    xp = F.pad(t(x), sum((p for p in reversed(pads)), ()))
    save("conv3d_same_upper", "Conv", {"x": x, "w": w},
         [f32(F.conv3d(xp, t(w), stride=2))],
         dict(auto_pad="SAME_UPPER", strides=[2, 2, 2],
              kernel_shape=[3, 3, 2]))
    # a 1 x 1 x 1 projection of stride 2 (a video ResNet's shortcut)
    x, w = r(1, 5, 4, 6, 6), r(7, 5, 1, 1, 1)
    save("conv3d_1x1x1_stride", "Conv", {"x": x, "w": w},
         [f32(F.conv3d(t(x), t(w), stride=2))], dict(strides=[2, 2, 2]))


def convtranspose():
    # pads [1, 0, 1] at the beginning, [0, 1, 1] at the end: the full
    # output of PyTorch's transposed convolution, cut by hand
    x, w, b = r(1, 4, 3, 3, 2), r(4, 3, 2, 3, 2), r(6)
    full = F.conv_transpose3d(t(x), t(w), t(b), stride=(2, 2, 3),
                              output_padding=(1, 1, 2), groups=2,
                              dilation=(1, 2, 1))
    y = full[:, :, 1:full.shape[2], 0:full.shape[3] - 1, 1:full.shape[4] - 1]
    save("convtranspose3d_pads_groups", "ConvTranspose",
         {"x": x, "w": w, "b": b}, [f32(y)],
         dict(strides=[2, 2, 3], output_padding=[1, 1, 2], group=2,
              dilations=[1, 2, 1], pads=[1, 0, 1, 0, 1, 1]))
    # output_shape: ONNX takes the total padding from it, the larger
    # half at the beginning (auto_pad NOTSET)
    x, w = r(1, 2, 3, 4, 3), r(2, 3, 3, 3, 3)
    full = F.conv_transpose3d(t(x), t(w), stride=2)  # 7, 9, 7
    want = (6, 8, 7)
    sl = [slice(None), slice(None)]
    for n, o in zip(full.shape[2:], want):
        tot = n - o
        sl.append(slice(tot - tot // 2, n - tot // 2))
    save("convtranspose3d_output_shape", "ConvTranspose", {"x": x, "w": w},
         [f32(full[tuple(sl)])],
         dict(strides=[2, 2, 2], output_shape=list(want)))


def pools():
    # all negative: a padding cell read as 0 would show
    x = -np.abs(r(1, 3, 5, 6, 7)) - 0.1
    y = F.max_pool3d(t(x), (2, 3, 2), (2, 2, 2), (1, 1, 0), dilation=(1, 1, 2),
                     ceil_mode=True)
    save("maxpool3d_ceil_pads_dilations", "MaxPool", {"x": x}, [f32(y)],
         dict(kernel_shape=[2, 3, 2], strides=[2, 2, 2],
              pads=[1, 1, 0, 1, 1, 0], dilations=[1, 1, 2], ceil_mode=1))
    xu = RNG.integers(0, 256, (1, 2, 4, 5, 5)).astype(np.uint8)
    y = F.max_pool3d(t(xu.astype(np.float32)), 2, 2, ceil_mode=True)
    save("maxpool3d_uint8", "MaxPool", {"x": xu},
         [f32(y).astype(np.uint8)],
         dict(kernel_shape=[2, 2, 2], strides=[2, 2, 2], ceil_mode=1))
    x = r(2, 2, 5, 5, 6)
    y = F.avg_pool3d(t(x), (2, 3, 3), (2, 2, 2), (1, 1, 1), ceil_mode=True,
                     count_include_pad=True)
    save("averagepool3d_count_include_pad_ceil", "AveragePool", {"x": x},
         [f32(y)], dict(kernel_shape=[2, 3, 3], strides=[2, 2, 2],
                        pads=[1, 1, 1, 1, 1, 1], ceil_mode=1,
                        count_include_pad=1))
    # pads on one side: refs.pool3d, the padding left out
    x = r(1, 2, 4, 5, 6)
    o = dict(windowDimensions=[3, 2, 3], strides=[1, 2, 2],
             padding=[1, 0, 0, 1, 2, 0])
    save("averagepool3d_pads", "AveragePool", {"x": x},
         [f32(refs.pool3d("avg", x, o))],
         dict(kernel_shape=[3, 2, 3], strides=[1, 2, 2],
              pads=[1, 0, 2, 0, 1, 0]))
    # Lp pools of |x|: p 3 in 3-D, and in 2-D and 1-D, which WebNN's
    # l2Pool2d cannot compute
    x = r(1, 2, 4, 5, 5)
    o = dict(windowDimensions=[2, 2, 3], strides=[2, 1, 2],
             padding=[0, 0, 1, 0, 1, 1], p=3)
    save("lppool3d_p3", "LpPool", {"x": x}, [f32(refs.pool3d("lp", x, o))],
         dict(kernel_shape=[2, 2, 3], strides=[2, 1, 2],
              pads=[0, 1, 1, 0, 0, 1], p=3))
    x = r(1, 3, 6, 5)
    o = dict(windowDimensions=[1, 3, 2], strides=[1, 2, 1], p=3)
    save("lppool2d_p3", "LpPool", {"x": x},
         [f32(refs.pool3d("lp", x[:, :, None], o)[:, :, 0])],
         dict(kernel_shape=[3, 2], strides=[2, 1], p=3))
    x = r(2, 3, 9)
    o = dict(windowDimensions=[1, 1, 4], strides=[1, 1, 2], p=1)
    save("lppool1d_p1", "LpPool", {"x": x},
         [f32(refs.pool3d("lp", x[:, :, None, None], o)[:, :, 0, 0])],
         dict(kernel_shape=[4], strides=[2], p=1))
    # GlobalLpPool of p 3 over a 2-D and a 3-D plane
    for name, shape in (("globallppool2d_p3", (1, 3, 4, 5)),
                        ("globallppool3d_p3", (2, 2, 3, 4, 5))):
        x = r(*shape)
        ax = tuple(range(2, len(shape)))
        y = (np.abs(x.astype(np.float64)) ** 3).sum(ax, keepdims=True) ** \
            (1 / 3)
        save(name, "GlobalLpPool", {"x": x}, [f32(y)], dict(p=3))


def bad():
    """Models the importer refuses: a 4-D convolution, MaxPool's
    Indices, an Lp pool of p 0."""
    d = os.path.join(OUT, "bad")
    os.makedirs(d, exist_ok=True)

    def model(name, node, ins, outs):
        g = h.make_graph([node], name,
                         [h.make_tensor_value_info(k, TP.FLOAT, s)
                          for k, s in ins],
                         [h.make_tensor_value_info(k, e, s)
                          for k, e, s in outs])
        m = h.make_model(g, opset_imports=[h.make_opsetid("", 17)])
        onnx.save(m, os.path.join(d, name + ".onnx"))
    model("conv4d", h.make_node("Conv", ["x", "w"], ["y"]),
          [("x", [1, 1, 3, 3, 3, 3]), ("w", [1, 1, 2, 2, 2, 2])],
          [("y", TP.FLOAT, [1, 1, 2, 2, 2, 2])])
    model("maxpool3d_indices",
          h.make_node("MaxPool", ["x"], ["y", "i"], kernel_shape=[2, 2, 2]),
          [("x", [1, 1, 3, 3, 3])],
          [("y", TP.FLOAT, [1, 1, 2, 2, 2]), ("i", TP.INT64, [1, 1, 2, 2, 2])])
    model("lppool3d_p0",
          h.make_node("LpPool", ["x"], ["y"], kernel_shape=[2, 2, 2], p=0),
          [("x", [1, 1, 3, 3, 3])], [("y", TP.FLOAT, [1, 1, 2, 2, 2])])


if __name__ == "__main__":
    with torch.no_grad():
        conv()
        convtranspose()
        pools()
        bad()
