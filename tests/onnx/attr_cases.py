#!/usr/bin/python3
"""attr_cases: attributes of onnx_attrs.def that no passing ONNX node
test uses, each in a model against NumPy, or refused (and the layouts
of the integer products' zero points and scales that none uses).

Usage: attr_cases.py [--bin DIR] [--only NAME]

Each case is a small model (graph inputs given at run time, constants
as initializers) carrying the attribute, imported by nnl-onnx-import,
run by nnl-run and compared with a NumPy reference; a refusal case
wants exit 1 and the reason code with the text given.
tests/onnx/strict_coverage.txt names this file for the attributes it
covers.  Exit 1 on any failure.
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from newest_ops import ROOT, T, rand, run  # noqa: E402

T = dict(T, **{"uint8": TensorProto.UINT8, "uint32": TensorProto.UINT32,
            "int32": TensorProto.INT32})

RNG = np.random.default_rng(32)


def mk(nodes, ins, inits, nout, opset):
    x = [helper.make_tensor_value_info(
        n, T.get(a.dtype.type) or T[a.dtype.name], a.shape)
        for n, a in ins]
    y = [helper.make_tensor_value_info("y%d" % i, TensorProto.FLOAT, None)
         for i in range(nout)]
    c = [numpy_helper.from_array(a, n) for n, a in inits]
    m = helper.make_model(helper.make_graph(nodes, "g", x, y, c),
                          opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8
    return m


def node(op, ins, nout=1, **kw):
    return helper.make_node(op, ins, ["y%d" % i for i in range(nout)], **kw)


def conv(x, w, group=1, dil=1):
    n, c, h, wd = x.shape
    o, ci, kh, kw = w.shape
    oh, ow = h - dil * (kh - 1), wd - dil * (kw - 1)
    y = np.zeros((n, o, oh, ow))
    og = o // group
    for g in range(group):
        for oc in range(g * og, (g + 1) * og):
            for i in range(kh):
                for j in range(kw):
                    patch = x[:, g * ci:(g + 1) * ci,
                              i * dil:i * dil + oh, j * dil:j * dil + ow]
                    y[:, oc] += np.einsum("nchw,c->nhw", patch,
                                          w[oc, :, i, j])
    return y


def convt(x, w, group):
    n, c, h, wd = x.shape
    ci, og, kh, kw = w.shape
    y = np.zeros((n, og * group, h + kh - 1, wd + kw - 1))
    cg = c // group
    for g in range(group):
        for ic in range(g * cg, (g + 1) * cg):
            for o in range(og):
                for i in range(kh):
                    for j in range(kw):
                        y[:, g * og + o, i:i + h, j:j + wd] += \
                            x[:, ic] * w[ic, o, i, j]
    return y


def lppool2(x, k, s, pads, p=2):
    x = np.pad(x, ((0, 0), (0, 0), (pads[0], pads[2]), (pads[1], pads[3])))
    oh = (x.shape[2] - k) // s + 1
    ow = (x.shape[3] - k) // s + 1
    y = np.zeros(x.shape[:2] + (oh, ow))
    for i in range(oh):
        for j in range(ow):
            y[:, :, i, j] = (np.abs(x[:, :, i * s:i * s + k,
                                      j * s:j * s + k]) ** p).sum(
                (2, 3)) ** (1 / p)
    return y


def window(kind, n, periodic):
    d = n if periodic else n - 1
    k = np.arange(n)
    if kind == "HannWindow":
        return 0.5 - 0.5 * np.cos(2 * np.pi * k / d)
    if kind == "HammingWindow":
        return 25 / 46 - 21 / 46 * np.cos(2 * np.pi * k / d)
    return 0.42 - 0.5 * np.cos(2 * np.pi * k / d) + \
        0.08 * np.cos(4 * np.pi * k / d)


def cases():
    """(name, model, inputs, wanted outputs or a refusal's text)."""
    x = rand(2, 3, 4)
    yield "Clip-6 min max", mk([node("Clip", ["x"], min=-0.5, max=0.3)],
                               [("x", x)], [], 1, 6), [("x", x)], \
        [np.clip(x, -0.5, 0.3)]
    x2 = rand(2, 3)
    yield "Pad-2 pads value", mk([node("Pad", ["x"], pads=[0, 1, 1, 2],
                                       value=1.5)], [("x", x2)], [], 1, 2), \
        [("x", x2)], [np.pad(x2, ((0, 1), (1, 2)), constant_values=1.5)]
    yield "Pad-1 paddings", mk([node("Pad", ["x"], paddings=[1, 0, 0, 1],
                                     mode="edge")], [("x", x2)], [], 1, 1), \
        [("x", x2)], [np.pad(x2, ((1, 0), (0, 1)), mode="edge")]
    yield "Slice-1 starts ends axes", mk(
        [node("Slice", ["x"], starts=[1, 0], ends=[3, 2], axes=[2, 1])],
        [("x", x)], [], 1, 1), [("x", x)], [x[:, 0:2, 1:3]]
    x3 = rand(2, 1, 3)
    yield "Squeeze-11 axes", mk([node("Squeeze", ["x"], axes=[-2])],
                                [("x", x3)], [], 1, 11), [("x", x3)], \
        [x3[:, 0]]
    x6 = rand(6, 2)
    yield "Split-11 split", mk([node("Split", ["x"], 2, axis=0,
                                     split=[2, 4])], [("x", x6)], [], 2,
                               11), [("x", x6)], [x6[:2], x6[2:]]
    yield "Split-18 num_outputs", mk([node("Split", ["x"], 3, axis=0,
                                           num_outputs=3)], [("x", x6)], [],
                                     3, 18), [("x", x6)], \
        [x6[:2], x6[2:4], x6[4:]]
    yield "ReduceSum-11 axes", mk([node("ReduceSum", ["x"], axes=[1],
                                        keepdims=0)], [("x", x)], [], 1,
                                  11), [("x", x)], [x.sum(1)]
    ref = {"ReduceL1": lambda a: np.abs(a).sum(),
           "ReduceL2": lambda a: np.sqrt((a * a).sum()),
           "ReduceLogSum": lambda a: np.log(np.abs(a).sum()),
           "ReduceLogSumExp": lambda a: np.log(np.exp(a).sum()),
           "ReduceMax": np.max, "ReduceMean": np.mean, "ReduceMin": np.min,
           "ReduceProd": np.prod,
           "ReduceSumSquare": lambda a: (a * a).sum()}
    for op, f in ref.items():
        a = np.abs(x) + 0.5 if op == "ReduceLogSum" else x
        yield "%s-18 noop_with_empty_axes" % op, mk(
            [node(op, ["x"], noop_with_empty_axes=0, keepdims=0)],
            [("x", a)], [], 1, 18), [("x", a)], \
            [np.array(f(a.astype(np.float64)))]
    x4 = rand(1, 2, 3, 3)
    yield "Upsample-7 scales", mk([node("Upsample", ["x"],
                                        scales=[1.0, 1.0, 2.0, 2.0])],
                                  [("x", x4)], [], 1, 7), [("x", x4)], \
        [x4.repeat(2, 2).repeat(2, 3)]
    xd = x4.astype(np.float64)
    mu = xd.mean((0, 2, 3), keepdims=True)
    sd = np.sqrt(((xd - mu) ** 2).mean((0, 2, 3), keepdims=True))
    yield "MeanVarianceNormalization axes", mk(
        [node("MeanVarianceNormalization", ["x"], axes=[0, 2, 3])],
        [("x", x4)], [], 1, 13), [("x", x4)], [(xd - mu) / (sd + 1e-9)]
    s, b = rand(4), rand(4)
    mu = x.astype(np.float64).mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    yield "LayerNormalization stash_type", mk(
        [node("LayerNormalization", ["x", "s", "b"], stash_type=1)],
        [("x", x)], [("s", s), ("b", b)], 1, 17), [("x", x)], \
        [(x - mu) / np.sqrt(var + 1e-5) * s + b]
    xc = rand(1, 4, 6, 6)
    w = rand(6, 2, 2, 2)
    yield "Conv group dilations", mk(
        [node("Conv", ["x", "w"], group=2, dilations=[2, 2])],
        [("x", xc)], [("w", w)], 1, 11), [("x", xc)], \
        [conv(xc.astype(np.float64), w, 2, 2)]
    wt = rand(4, 3, 2, 2)
    yield "ConvTranspose group", mk(
        [node("ConvTranspose", ["x", "w"], group=2)],
        [("x", xc)], [("w", wt)], 1, 11), [("x", xc)], \
        [convt(xc.astype(np.float64), wt, 2)]
    yield "GlobalLpPool p", mk([node("GlobalLpPool", ["x"], p=2)],
                               [("x", xc)], [], 1, 2), [("x", xc)], \
        [np.sqrt((xc.astype(np.float64) ** 2).sum((2, 3), keepdims=True))]
    yield "LpPool p kernel_shape strides pads", mk(
        [node("LpPool", ["x"], p=2, kernel_shape=[3, 3], strides=[2, 2],
              pads=[1, 0, 0, 1])], [("x", xc)], [], 1, 11), [("x", xc)], \
        [lppool2(xc.astype(np.float64), 3, 2, [1, 0, 0, 1])]
    yield "LpPool-18 auto_pad ceil_mode", mk(
        [node("LpPool", ["x"], p=2, kernel_shape=[2, 2], strides=[2, 2],
              auto_pad="VALID", ceil_mode=0)], [("x", xc)], [], 1, 18), \
        [("x", xc)], [lppool2(xc.astype(np.float64), 2, 2, [0, 0, 0, 0])]
    # p other than 2: nnl's lpPool3d (beyond WebNN) on [N, C, 1, H, W]
    yield "LpPool p=3", mk(
        [node("LpPool", ["x"], p=3, kernel_shape=[2, 2], strides=[1, 1])],
        [("x", xc)], [], 1, 18), [("x", xc)], \
        [lppool2(xc.astype(np.float64), 2, 1, [0, 0, 0, 0], 3)]
    yield "LpPool p=0 refused", mk(
        [node("LpPool", ["x"], p=0, kernel_shape=[2, 2])], [("x", xc)], [],
        1, 18), [("x", xc)], \
        "[unsupported-attribute]: p other than a whole number from 1"
    yield "Reshape-14 allowzero", mk(
        [node("Reshape", ["x", "s"], allowzero=0)], [("x", x)],
        [("s", np.array([0, 12], np.int64))], 1, 14), [("x", x)], \
        [x.reshape(2, 12)]
    yield "Reshape-1 shape", mk([node("Reshape", ["x"], shape=[4, 6])],
                                [("x", x)], [], 1, 1), [("x", x)], \
        [x.reshape(4, 6)]
    xi = (rand(2, 3) * 4)
    yield "Cast-19 saturate", mk([node("Cast", ["x"], to=TensorProto.INT32,
                                       saturate=1),
                                  helper.make_node("Cast", ["y0"], ["y1"],
                                                   to=TensorProto.FLOAT)],
                                 [("x", xi)], [], 2, 19), [("x", xi)], \
        [np.trunc(xi), np.trunc(xi)]
    yield "CastLike-19 saturate", mk(
        [node("CastLike", ["x", "t"], saturate=1)], [("x", xi)],
        [("t", np.zeros(1, np.float32))], 1, 19), [("x", xi)], [xi]
    sc = np.array([0.5, 0.25, 0.125], np.float32)
    zp = np.array([1, 2, 3], np.uint8)
    q = RNG.integers(0, 255, (2, 3)).astype(np.uint8)
    yield "DequantizeLinear axis", mk(
        [node("DequantizeLinear", ["x", "s", "z"], axis=1)], [("x", q)],
        [("s", sc), ("z", zp)], 1, 13), [("x", q)], \
        [(q.astype(np.float64) - zp) * sc]
    xq = rand(2, 3) * 10
    qw = np.clip(np.round(xq / sc) + zp, 0, 255)
    yield "QuantizeLinear axis saturate", mk(
        [node("QuantizeLinear", ["x", "s", "z"], axis=1, saturate=1),
         helper.make_node("Cast", ["y0"], ["y1"], to=TensorProto.FLOAT)],
        [("x", xq)], [("s", sc), ("z", zp)], 2, 19), [("x", xq)], \
        [qw.astype(np.uint8), qw]
    bn = [("s", rand(3)), ("b", rand(3)), ("m", rand(3)),
          ("v", np.abs(rand(3)) + 0.5)]
    xb = rand(2, 3, 2, 2)
    sh = (1, 3, 1, 1)
    want = (xb - bn[2][1].reshape(sh)) / np.sqrt(
        bn[3][1].reshape(sh) + 1e-5) * bn[0][1].reshape(sh) + \
        bn[1][1].reshape(sh)
    yield "BatchNormalization-15 momentum training_mode", mk(
        [node("BatchNormalization", ["x", "s", "b", "m", "v"],
              momentum=0.8, training_mode=0)], [("x", xb)], bn, 1, 15), \
        [("x", xb)], [want]
    yield "BatchNormalization-7 spatial", mk(
        [node("BatchNormalization", ["x", "s", "b", "m", "v"], spatial=1)],
        [("x", xb)], bn, 1, 7), [("x", xb)], [want]
    # training_mode = 1: the batch's own statistics (population
    # variance) over every axis but 1, the running ones by momentum
    xt = rand(4, 3, 5)
    bm = xt.mean(axis=(0, 2))
    bv = ((xt - bm.reshape(1, 3, 1)) ** 2).mean(axis=(0, 2))
    yt = (xt - bm.reshape(1, 3, 1)) / np.sqrt(bv.reshape(1, 3, 1) + 0.01) \
        * bn[0][1].reshape(1, 3, 1) + bn[1][1].reshape(1, 3, 1)
    yield "BatchNormalization training_mode=1 momentum", mk(
        [node("BatchNormalization", ["x", "s", "b", "m", "v"], 3,
              momentum=0.75, epsilon=0.01, training_mode=1)],
        [("x", xt)], bn, 3, 15), [("x", xt)], \
        [yt, bn[2][1] * 0.75 + bm * 0.25, bn[3][1] * 0.75 + bv * 0.25]
    yield "BatchNormalization training_mode=1 float16 mean refused", mk(
        [node("BatchNormalization", ["x", "s", "b", "m", "v"],
              training_mode=1)], [("x", xb)],
        bn[:2] + [(n, a.astype(np.float16)) for n, a in bn[2:]], 1, 15), \
        [("x", xb)], "[unsupported-type]"
    # MaxPool's Indices: the flat index (batch and channel included) of
    # each window's largest tap inside the input, row- or column-major
    xm = rand(2, 2, 5, 4)
    for so, ceil in ((0, 0), (1, 1)):
        ym, im = [], []
        for b, ch, a, e in np.ndindex(2, 2, 2 + ceil, 2):
            taps = [(r, q) for r in (a * 2 - 1, a * 2 + 1)
                    for q in (e * 2 - 1, e * 2 + 1)
                    if 0 <= r < 5 and 0 <= q < 4]
            r, q = max(taps, key=lambda t: xm[b, ch][t])
            ym.append(xm[b, ch, r, q])
            im.append((b * 2 + ch) * 20 + (q * 5 + r if so else r * 4 + q))
        sh = (2, 2, 2 + ceil, 2)
        yield "MaxPool Indices storage_order=%d ceil_mode=%d" % (so, ceil), \
            mk([node("MaxPool", ["x"], 2, kernel_shape=[2, 2],
                     strides=[2, 2], dilations=[2, 2], pads=[1, 1, 0, 0],
                     ceil_mode=ceil, storage_order=so)],
               [("x", xm)], [], 2, 12), [("x", xm)], \
            [np.array(ym).reshape(sh), np.array(im).reshape(sh)]
    x1 = rand(1, 2, 7)
    i1 = np.array([[[2 * k + int(x1[0, c, 2 * k + 1] > x1[0, c, 2 * k])
                     + c * 7 for k in range(3)] for c in range(2)]])
    yield "MaxPool-1d Indices", mk(
        [node("MaxPool", ["x"], 2, kernel_shape=[2], strides=[2])],
        [("x", x1)], [], 2, 12), [("x", x1)], \
        [np.take_along_axis(x1.reshape(-1), i1.reshape(-1), 0).reshape(
            i1.shape), i1]
    yield "MaxPool storage_order", mk(
        [node("MaxPool", ["x"], kernel_shape=[2, 2], strides=[2, 2],
              storage_order=0)], [("x", xc)], [], 1, 12), [("x", xc)], \
        [xc.reshape(1, 4, 3, 2, 3, 2).max((3, 5))]
    # MaxUnpool: X's elements at the flat indices I of zeros of the
    # unpooled shape, (in - 1) * stride + kernel - pads; output_shape
    # pads zeros at the ends
    xu = rand(2, 2, 3)
    sh = (2, 2, (3 - 1) * 2 + 3 - 1 - 2)
    iu = RNG.permutation(np.prod(sh))[:xu.size].reshape(xu.shape)
    yu = np.zeros(np.prod(sh), np.float32)
    yu[iu.ravel()] = xu.ravel()
    yu = yu.reshape(sh)
    yield "MaxUnpool pads strides kernel_shape", mk(
        [node("MaxUnpool", ["x", "i"], kernel_shape=[3], strides=[2],
              pads=[1, 2])], [("x", xu)], [("i", iu.astype(np.int64))],
        1, 11), [("x", xu)], [yu]
    yield "MaxUnpool output_shape", mk(
        [node("MaxUnpool", ["x", "i", "s"], kernel_shape=[3], strides=[2],
              pads=[1, 2])], [("x", xu)],
        [("i", iu.astype(np.int64)), ("s", np.array([2, 2, 7], np.int64))],
        1, 11), [("x", xu)], [np.pad(yu, ((0, 0), (0, 0), (0, 3)))]
    yield "MaxUnpool output_shape smaller than unpooled", mk(
        [node("MaxUnpool", ["x", "i", "s"], kernel_shape=[3], strides=[2],
              pads=[1, 2])], [("x", xu)],
        [("i", iu.astype(np.int64)), ("s", np.array([2, 2, 3], np.int64))],
        1, 11), [("x", xu)], "at least the unpooled 4"
    yield "Resize-18 axes keep_aspect_ratio_policy antialias " \
        "extrapolation_value", mk(
            [node("Resize", ["x", "", "sc"], mode="nearest", axes=[2, 3],
                  keep_aspect_ratio_policy="stretch", antialias=0,
                  extrapolation_value=0.0)], [("x", x4)],
            [("sc", np.array([2.0, 2.0], np.float32))], 1, 18), \
        [("x", x4)], [x4.repeat(2, 2).repeat(2, 3)]
    # tf_crop_and_resize, linear, of axes 2 and 3 (opset 18's axes):
    # each axis sampled at roi start + o * (end - start) * (in - 1) /
    # (out - 1); a coordinate outside [0, in - 1] gives 7.5
    roi = np.array([0.25, -0.2, 0.75, 1.3], np.float32)
    yc = x4.astype(np.float64)
    out = (3, 4)
    for k, ax in enumerate((2, 3)):
        n = x4.shape[ax]
        c = roi[k] * (n - 1) + np.arange(out[k]) * (roi[k + 2] - roi[k]) \
            * (n - 1) / (out[k] - 1)
        lo = np.clip(np.floor(c).astype(int), 0, n - 1)
        hi = np.clip(lo + 1, 0, n - 1)
        f = (c - np.floor(c)).reshape([-1 if i == ax else 1
                                        for i in range(4)])
        yc = np.take(yc, lo, ax) * (1 - f) + np.take(yc, hi, ax) * f
        bad = ((c < 0) | (c > n - 1)).reshape(f.shape)
        yc = np.where(bad, np.nan, yc)
    yc = np.where(np.isnan(yc), 7.5, yc)
    yield "Resize-18 tf_crop_and_resize axes extrapolation_value", mk(
        [node("Resize", ["x", "roi", "", "sz"], mode="linear", axes=[2, 3],
              coordinate_transformation_mode="tf_crop_and_resize",
              extrapolation_value=7.5)], [("x", x4)],
        [("roi", roi), ("sz", np.array(out, np.int64))], 1, 18), \
        [("x", x4)], [yc]
    yield "Resize tf_crop_and_resize with scales refused", mk(
        [node("Resize", ["x", "roi", "sc"], mode="linear",
              coordinate_transformation_mode="tf_crop_and_resize")],
        [("x", x4)], [("roi", np.array([0, 0, 0, 0, 1, 1, 1, 1],
                                       np.float32)),
                      ("sc", np.array([1, 1, 2, 2], np.float32))], 1, 13), \
        [("x", x4)], "[unsupported-attribute]: tf_crop_and_resize with scales"
    yield "Resize antialias=1 refused", mk(
        [node("Resize", ["x", "", "sc"], mode="linear", antialias=1)],
        [("x", x4)], [("sc", np.array([1, 1, 0.5, 0.5], np.float32))], 1,
        18), [("x", x4)], "[unsupported-attribute]: antialias"
    for op in ("BlackmanWindow", "HannWindow", "HammingWindow"):
        for per in (0, 1):
            yield "%s periodic=%d output_datatype" % (op, per), mk(
                [node(op, ["n"], periodic=per,
                      output_datatype=TensorProto.FLOAT),
                 helper.make_node("Add", ["y0", "x"], ["y1"])],
                [("x", np.zeros(1, np.float32))],
                [("n", np.array(8, np.int64))], 2, 17), \
                [("x", np.zeros(1, np.float32))], \
                [window(op, 8, per), window(op, 8, per)]
    yield "Constant value_string refused", mk(
        [node("Constant", [], value_string="nnl")], [], [], 1, 12), [], \
        "[unsupported-type]: string constants"
    yield "Constant value_strings refused", mk(
        [node("Constant", [], value_strings=["nnl"])], [], [], 1, 12), [], \
        "[unsupported-type]: string constants"
    sp = helper.make_sparse_tensor(
        numpy_helper.from_array(np.array([1.0], np.float32), "v"),
        numpy_helper.from_array(np.array([1], np.int64), "i"), [3])
    yield "Constant sparse_value refused", mk(
        [node("Constant", [], sparse_value=sp)], [], [], 1, 11), [], \
        "[unsupported-attribute]: sparse constants"
    d = rand(4, 3)
    idx = np.array([[1, 0, 2], [0, 2, 1]], np.int64)
    yield "ScatterElements reduction", mk(
        [node("ScatterElements", ["x", "i", "u"], axis=0,
              reduction="none")], [("x", d)],
        [("i", idx), ("u", np.ones((2, 3), np.float32))], 1, 18), \
        [("x", d)], [scatter(d, idx)]
    a = RNG.integers(0, 1 << 20, (2, 5)).astype(np.uint32)
    sh = RNG.integers(0, 12, (2, 5)).astype(np.uint32)
    for dr, want in (("LEFT", a << sh), ("RIGHT", a >> sh)):
        yield "BitShift direction %s" % dr, mk(
            [node("BitShift", ["a", "s"], direction=dr)],
            [("a", a), ("s", sh)], [], 1, 11), [("a", a), ("s", sh)], \
            [want]
    # reductions: repeated indices gather every update (NumPy's at)
    un = rand(3, 3)
    for red, fn in (("max", np.maximum), ("min", np.minimum),
                    ("mul", np.multiply)):
        w = d.copy()
        fn.at(w, ([1, 3, 1],), un)
        yield "ScatterND reduction=%s" % red, mk(
            [node("ScatterND", ["x", "i", "u"], reduction=red)],
            [("x", d)], [("i", np.array([[1], [3], [1]], np.int64)),
                         ("u", un)], 1, 18), [("x", d)], [w]
        w = d.copy()
        fn.at(w, (idx, np.arange(3)[None].repeat(2, 0)), un[:2])
        yield "ScatterElements reduction=%s" % red, mk(
            [node("ScatterElements", ["x", "i", "u"], axis=0,
                  reduction=red)], [("x", d)],
            [("i", idx), ("u", un[:2])], 1, 18), [("x", d)], [w]
    yield "ScatterND reduction=sum refused", mk(
        [node("ScatterND", ["x", "i", "u"], reduction="sum")], [("x", d)],
        [("i", np.array([[1]], np.int64)),
         ("u", np.ones((1, 3), np.float32))], 1, 18), [("x", d)], \
        '[unsupported-attribute]: reduction "sum"'


ACT = {"Sigmoid": lambda v: 1 / (1 + np.exp(-v)), "Tanh": np.tanh,
       "Relu": lambda v: np.maximum(v, 0)}


def recurrent(op, x, w, r, b, acts, clip=None, direction="forward",
              lbr=0, coupled=0):
    """ONNX's RNN, GRU and LSTM (gates z r h; i o f c): Y, Y_h."""
    seq, batch, _ = x.shape
    dirs = 2 if direction == "bidirectional" else 1
    hs = r.shape[-1]
    na = {"RNN": 1, "GRU": 2, "LSTM": 3}[op]
    y = np.zeros((seq, dirs, batch, hs))
    yh = np.zeros((dirs, batch, hs))

    def cl(v):
        return np.clip(v, -clip, clip) if clip else v

    for d in range(dirs):
        f = [ACT[a] for a in acts[d * na:(d + 1) * na]]
        W, R = w[d].astype(np.float64), r[d].astype(np.float64)
        Wb, Rb = np.split(b[d].astype(np.float64), 2)
        h = np.zeros((batch, hs))
        c = np.zeros((batch, hs))
        steps = range(seq) if direction == "forward" or (
            direction == "bidirectional" and d == 0) else \
            range(seq - 1, -1, -1)
        for t in steps:
            xw = x[t] @ W.T + Wb
            if op == "RNN":
                h = f[0](cl(xw + h @ R.T + Rb))
            elif op == "GRU":
                xz, xr, xh = np.split(xw, 3, axis=1)
                Rz, Rr, Rh = np.split(R, 3)
                bz, br, bh = np.split(Rb, 3)
                z = f[0](cl(xz + h @ Rz.T + bz))
                rr = f[0](cl(xr + h @ Rr.T + br))
                if lbr:
                    hh = f[1](cl(xh + rr * (h @ Rh.T + bh)))
                else:
                    hh = f[1](cl(xh + (rr * h) @ Rh.T + bh))
                h = (1 - z) * hh + z * h
            else:
                g = xw + h @ R.T + Rb
                gi, go, gf, gc = np.split(g, 4, axis=1)
                i = f[0](cl(gi))
                ff = 1 - i if coupled else f[0](cl(gf))
                c = ff * c + i * f[1](cl(gc))
                o = f[0](cl(go))
                h = o * f[2](c)
            y[t, d] = h
        yh[d] = h
    return y, yh


def rnncases():
    x = rand(3, 2, 4)
    for op, ng, acts, kw in (
            ("RNN", 1, ["Relu", "Relu"], {}),
            ("GRU", 3, ["Sigmoid", "Relu"] * 2,
             {"linear_before_reset": 1}),
            ("LSTM", 4, ["Sigmoid", "Tanh", "Tanh"] * 2,
             {"input_forget": 0})):
        w, r = rand(2, ng * 5, 4) * 0.5, rand(2, ng * 5, 5) * 0.5
        b = rand(2, 2 * ng * 5) * 0.5
        attrs = dict(kw, hidden_size=5, direction="bidirectional",
                     activations=acts)
        want = recurrent(op, x, w, r, b, acts, None, "bidirectional",
                         kw.get("linear_before_reset", 0),
                         kw.get("input_forget", 0))
        yield "%s activations direction %s" % (op, " ".join(kw)), mk(
            [node(op, ["x", "w", "r", "b"], 2, **attrs)], [("x", x)],
            [("w", w), ("r", r), ("b", b)], 2, 14), [("x", x)], list(want)
        yield "%s clip refused" % op, mk(
            [node(op, ["x", "w", "r", "b"], 2, hidden_size=5,
                  direction="bidirectional", clip=0.8)], [("x", x)],
            [("w", w), ("r", r), ("b", b)], 2, 14), [("x", x)], \
            "[unsupported-attribute]: clip"
    yield "LSTM input_forget=1 refused", mk(
        [node("LSTM", ["x", "w", "r", "b"], 2, hidden_size=5,
              direction="bidirectional", input_forget=1)], [("x", x)],
        [("w", w), ("r", r), ("b", b)], 2, 14), [("x", x)], \
        "[unsupported-attribute]: input_forget"
    w, r, b = rand(1, 5, 4), rand(1, 5, 5), rand(1, 10)
    yield "RNN direction reverse", mk(
        [node("RNN", ["x", "w", "r", "b"], 2, hidden_size=5,
              direction="reverse")], [("x", x)],
        [("w", w), ("r", r), ("b", b)], 2, 14), [("x", x)], \
        list(recurrent("RNN", x, w, r, b, ["Tanh"], None, "reverse"))


# ---- integer products and n-grams (onnx_qint.c) ----

def conv_int(x, w, pads, strides, dil, group):
    """The int64 convolution of x and w, already less their zero
    points, padded with 0 (pads: begin h, begin w, end h, end w)."""
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    xp = np.zeros((n, c, h + pads[0] + pads[2], wd + pads[1] + pads[3]),
                  np.int64)
    xp[:, :, pads[0]:pads[0] + h, pads[1]:pads[1] + wd] = x
    oh = (xp.shape[2] - dil[0] * (kh - 1) - 1) // strides[0] + 1
    ow = (xp.shape[3] - dil[1] * (kw - 1) - 1) // strides[1] + 1
    y = np.zeros((n, o, oh, ow), np.int64)
    og = o // group
    for oc in range(o):
        g = oc // og
        for i in range(kh):
            for j in range(kw):
                patch = xp[:, g * cg:(g + 1) * cg,
                           i * dil[0]:i * dil[0] + strides[0] * oh:
                           strides[0],
                           j * dil[1]:j * dil[1] + strides[1] * ow:
                           strides[1]]
                y[:, oc] += np.einsum("nchw,c->nhw", patch, w[oc, :, i, j])
    return y


def same_pads(size, k, s, d, upper):
    """auto_pad SAME_UPPER or SAME_LOWER: ONNX's formula."""
    begin, end = [], []
    for n, kk, ss, dd in zip(size, k, s, d):
        out = -(-n // ss)
        t = max(0, (out - 1) * ss + (kk - 1) * dd + 1 - n)
        begin.append(t // 2 if upper else t - t // 2)
        end.append(t - begin[-1])
    return begin + end


def qcases():
    x = RNG.integers(0, 256, (1, 4, 5, 6)).astype(np.uint8)
    w = RNG.integers(0, 256, (4, 2, 2, 3)).astype(np.uint8)
    xz, wz = np.array(131, np.uint8), RNG.integers(0, 256, 4).astype(
        np.uint8)
    xs, wsh = x.astype(np.int64) - 131, w.astype(np.int64) - \
        wz.reshape(4, 1, 1, 1)
    pads = same_pads([5, 6], [2, 3], [2, 1], [1, 2], True)
    yield "ConvInteger auto_pad dilations group kernel_shape strides", mk(
        [node("ConvInteger", ["x", "w", "xz", "wz"], auto_pad="SAME_UPPER",
              dilations=[1, 2], group=2, kernel_shape=[2, 3],
              strides=[2, 1])], [("x", x)],
        [("w", w), ("xz", xz), ("wz", wz)], 1, 10), [("x", x)], \
        [conv_int(xs, wsh, pads, [2, 1], [1, 2], 2).astype(np.int32)]
    x1 = x[:, :2].copy()
    yield "ConvInteger pads", mk(
        [node("ConvInteger", ["x", "w", "xz", "wz"], pads=[1, 0, 2, 3])],
        [("x", x1)], [("w", w), ("xz", xz), ("wz", wz)], 1, 10), \
        [("x", x1)], \
        [conv_int(xs[:, :2], wsh, [1, 0, 2, 3], [1, 1], [1, 1],
                  1).astype(np.int32)]
    # QLinearConv: the sum and the int32 bias times x_scale * w_scale /
    # y_scale in float32, then in double plus y_zero_point, rounded
    # half to even and saturated
    xsc, wsc = np.float32(0.02), RNG.uniform(0.001, 0.01, 4).astype(
        np.float32)
    ysc, yz = np.float32(0.3), np.array(7, np.uint8)
    b = RNG.integers(-3000, 3000, 4).astype(np.int32)

    def qconv(acc):
        sc = (xsc * wsc / ysc).astype(np.float32).reshape(1, 4, 1, 1)
        v = (acc + b.reshape(1, 4, 1, 1)) * sc.astype(np.float64) + 7
        return np.clip(np.rint(v), 0, 255).astype(np.uint8)
    ins = [("xs", np.array(xsc)), ("xz", xz), ("w", w), ("ws", wsc),
           ("wz", wz), ("ys", np.array(ysc)), ("yz", yz), ("b", b)]
    pads = same_pads([5, 6], [2, 3], [1, 2], [2, 1], False)
    yield "QLinearConv auto_pad dilations group kernel_shape strides", mk(
        [node("QLinearConv", ["x", "xs", "xz", "w", "ws", "wz", "ys", "yz",
                              "b"], auto_pad="SAME_LOWER", dilations=[2, 1],
              group=2, kernel_shape=[2, 3], strides=[1, 2])],
        [("x", x)], ins, 1, 10), [("x", x)], \
        [qconv(conv_int(xs, wsh, pads, [1, 2], [2, 1], 2))]
    yield "QLinearConv pads", mk(
        [node("QLinearConv", ["x", "xs", "xz", "w", "ws", "wz", "ys", "yz",
                              "b"], auto_pad="NOTSET", group=2,
              pads=[0, 2, 1, 1])], [("x", x)], ins, 1, 10), [("x", x)], \
        [qconv(conv_int(xs, wsh, [0, 2, 1, 1], [1, 1], [1, 1], 2))]
    # MatMulInteger and QLinearMatMul with their zero points and scales
    # per row of a ([M]) and per column of b ([N]), M and N apart so
    # that a vector on the wrong axis cannot broadcast; QLinearMatMul's
    # y_scale and y_zero_point per row too; a vector times a matrix
    a = RNG.integers(0, 256, (2, 4, 5)).astype(np.uint8)
    bm = RNG.integers(-128, 128, (5, 3)).astype(np.int8)
    az = RNG.integers(0, 256, 4).astype(np.uint8)
    bz = RNG.integers(-128, 128, 3).astype(np.int8)
    acc = np.matmul(a.astype(np.int64) - az.reshape(4, 1),
                    bm.astype(np.int64) - bz)
    yield "MatMulInteger zero points per row and column", mk(
        [node("MatMulInteger", ["a", "b", "az", "bz"])], [("a", a)],
        [("b", bm), ("az", az), ("bz", bz)], 1, 10), [("a", a)], \
        [acc.astype(np.int32)]
    v = a[0, 0].copy()
    yield "MatMulInteger of a vector", mk(
        [node("MatMulInteger", ["a", "b", "az", "bz"])], [("a", v)],
        [("b", bm), ("az", az[:1].copy()), ("bz", bz)], 1, 10), \
        [("a", v)], [(v.astype(np.int64) - az[0]) @ (bm.astype(np.int64) -
                                                      bz)]
    asc = RNG.uniform(0.01, 0.1, 4).astype(np.float32)
    bsc = RNG.uniform(0.01, 0.1, 3).astype(np.float32)
    ysc = RNG.uniform(1, 4, 4).astype(np.float32)
    yz = RNG.integers(-20, 20, 4).astype(np.int8)
    sc = (asc.reshape(4, 1) * bsc / ysc.reshape(4, 1)).astype(np.float32)
    want = np.clip(np.rint(acc * sc.astype(np.float64) + yz.reshape(4, 1)),
                   -128, 127).astype(np.int8)
    yield "QLinearMatMul scales and zero points per row and column", mk(
        [node("QLinearMatMul", ["a", "as", "az", "b", "bs", "bz", "ys",
                                "yz"])], [("a", a)],
        [("as", asc), ("az", az), ("b", bm), ("bs", bsc), ("bz", bz),
         ("ys", ysc), ("yz", yz)], 1, 10), [("a", a)], [want]
    # TfIdfVectorizer: weights (one per output, as the n-grams are in
    # output order): TFIDF multiplies the counts, IDF takes the weight
    # where the count is not 0; bigrams with one skip
    xt = np.array([[1, 2, 3, 1, 2, 1, 3, 3], [2, 2, 1, 3, 1, 2, 2, 3]],
                  np.int32)
    pool = [1, 2, 3, 1, 2, 1, 3, 2, 2]
    wt = [0.5, 2.0, 1.5, 3.0, 0.25, 4.0]
    grams = [(1,), (2,), (3,), (1, 2), (1, 3), (2, 2)]
    tf = np.array([[sum(tuple(r[i:i + (len(g) - 1) * k + 1:k]) == g
                        for k in ((1,) if len(g) == 1 else (1, 2))
                        for i in range(len(r) - (len(g) - 1) * k))
                    for g in grams] for r in xt.tolist()], np.float64)
    for mode, want in (("TFIDF", tf * wt), ("IDF", (tf > 0) * wt)):
        yield "TfIdfVectorizer %s weights" % mode, mk(
            [node("TfIdfVectorizer", ["x"], mode=mode, min_gram_length=1,
                  max_gram_length=2, max_skip_count=1, ngram_counts=[0, 3],
                  ngram_indexes=[0, 1, 2, 3, 4, 5], pool_int64s=pool,
                  weights=wt)], [("x", xt)], [], 1, 9), [("x", xt)], \
            [want.astype(np.float32)]
    yield "TfIdfVectorizer weights out of pool order refused", mk(
        [node("TfIdfVectorizer", ["x"], mode="TFIDF", min_gram_length=1,
              max_gram_length=1, ngram_counts=[0], ngram_indexes=[1, 0],
              pool_int64s=[1, 2], weights=[1.0, 2.0])], [("x", xt)], [],
        1, 9), [("x", xt)], \
        "[unsupported-attribute]: weights with ngram_indexes not 0, 1, 2"
    yield "TfIdfVectorizer pool_strings refused", mk(
        [node("TfIdfVectorizer", ["x"], mode="TF", min_gram_length=1,
              max_gram_length=1, ngram_counts=[0], ngram_indexes=[0],
              pool_strings=["a"])], [("x", xt)], [], 1, 9), [("x", xt)], \
        "[unsupported-type]: pool_strings (strings)"


TRAINING = "ai.onnx.preview.training"


def mkt(op, ins, nout, version=1, domain=TRAINING, **kw):
    """One optimizer node of the training domain (imported at version)
    over the named arrays ins, outputs y0..y(nout - 1)."""
    m = mk([node(op, [n for n, _ in ins], nout, domain=domain, **kw)],
           ins, [], nout, 1)
    del m.opset_import[:]
    m.opset_import.extend([helper.make_opsetid(domain, version)])
    return m


def traincases():
    """Adagrad, Adam and Momentum of ai.onnx.preview.training, every
    attribute set, T past 0 (where Adam's bias correction and Momentum's
    beta apply), two tensors updated; references from the operators'
    definitions, in float64."""
    r, t3 = np.array(0.05, np.float32), np.array(3, np.int64)
    x = [rand(3), rand(2, 2)]
    g = [rand(3), rand(2, 2)]
    s1 = [np.abs(rand(3)), np.abs(rand(2, 2))]
    s2 = [np.abs(rand(3)), np.abs(rand(2, 2))]
    ins = lambda *grp: [("R", r), ("T", t3)] + [
        ("%s%d" % ("XGVH"[k], i), a[i]) for k, a in enumerate(grp)
        for i in range(2)]
    # Adagrad: decay_factor, epsilon, norm_coefficient
    dec, eps, nc = 0.25, 0.01, 0.1
    rr = float(r) / (1 + 3 * dec)
    xs, hs = [], []
    for i in range(2):
        gr = nc * x[i].astype(np.float64) + g[i]
        hn = s1[i] + gr * gr
        xs.append(x[i] - rr * gr / (np.sqrt(hn) + eps))
        hs.append(hn)
    yield "Adagrad decay_factor epsilon norm_coefficient, two tensors", \
        mkt("Adagrad", ins(x, g, s1), 4, decay_factor=dec, epsilon=eps,
            norm_coefficient=nc), ins(x, g, s1), xs + hs
    # Adam: alpha, beta, epsilon, norm_coefficient, norm_coefficient_post
    al, be, eps, nc, ncp = 0.8, 0.9, 0.01, 0.1, 0.2
    ra = float(r) * np.sqrt(1 - be ** 3) / (1 - al ** 3)
    xs, vs, hs = [], [], []
    for i in range(2):
        gr = nc * x[i].astype(np.float64) + g[i]
        vn = al * s1[i] + (1 - al) * gr
        hn = be * s2[i] + (1 - be) * gr * gr
        xs.append((1 - ncp) * (x[i] - ra * vn / (np.sqrt(hn) + eps)))
        vs.append(vn)
        hs.append(hn)
    yield "Adam alpha beta epsilon norm_coefficient norm_coefficient_post", \
        mkt("Adam", ins(x, g, s1, s2), 6, alpha=al, beta=be, epsilon=eps,
            norm_coefficient=nc, norm_coefficient_post=ncp), \
        ins(x, g, s1, s2), xs + vs + hs
    # Momentum: alpha, beta, mode, norm_coefficient
    al, be, nc = 0.7, 0.4, 0.1
    for mode in ("standard", "nesterov"):
        xs, vs = [], []
        for i in range(2):
            gr = nc * x[i].astype(np.float64) + g[i]
            vn = al * s1[i] + be * gr
            d = vn if mode == "standard" else gr + al * vn
            xs.append(x[i] - float(r) * d)
            vs.append(vn)
        yield "Momentum alpha beta mode=%s norm_coefficient" % mode, \
            mkt("Momentum", ins(x, g, s1), 4, alpha=al, beta=be,
                mode=mode, norm_coefficient=nc), ins(x, g, s1), xs + vs
    one = [("R", r), ("T", t3), ("X", x[0]), ("G", g[0]), ("V", s1[0])]
    yield "Momentum mode heavy refused", mkt(
        "Momentum", one, 2, alpha=al, beta=be, mode="heavy",
        norm_coefficient=nc), one, \
        '[unsupported-attribute]: mode "heavy"'
    yield "Adagrad of the training domain's version 2 refused", mkt(
        "Adagrad", one, 2, version=2), one, \
        "[unsupported-version]: ai.onnx.preview.training version 2"
    yield "Gradient of the training domain refused", mkt(
        "Gradient", one, 1, xs=["X"], y="R"), one, \
        "(ai.onnx.preview.training.Gradient) [unsupported-op]"
    yield "Adagrad of the default domain refused", mkt(
        "Adagrad", one, 2, domain=""), one, \
        "(Adagrad) [unsupported-op]: no converter"


def scatter(d, idx):
    y = d.copy()
    for i in range(idx.shape[0]):
        for j in range(idx.shape[1]):
            y[idx[i, j], j] = 1
    return y


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", default=os.environ.get("NNL_BIN") or
                    os.path.join(ROOT, "bin"))
    ap.add_argument("--only", default="")
    a = ap.parse_args()
    bad = n = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name, m, ins, want in (list(cases()) + list(rnncases()) +
                                   list(qcases()) + list(traincases())):
            if a.only not in name:
                continue
            n += 1
            if isinstance(want, str):
                path = os.path.join(tmp, "m.onnx")
                with open(path, "wb") as f:
                    f.write(m.SerializeToString())
                p = subprocess.run(
                    [os.path.join(a.bin, "nnl-onnx-import"), "-o",
                     os.path.join(tmp, "g.json"), path],
                    capture_output=True, text=True)
                ok = p.returncode == 1 and want in p.stderr
                print("%s %s%s" % ("PASS" if ok else "FAIL", name,
                                   "" if ok else ": " + p.stderr.strip()))
                bad += not ok
                continue
            got = run(a.bin, tmp, m, ins, len(want))
            if isinstance(got, str):
                print("FAIL %s: %s" % (name, got))
                bad += 1
                continue
            for i, (g, w) in enumerate(zip(got, want)):
                w = np.asarray(w)
                # integers exactly, floats within a tolerance
                if g.shape != w.shape or (w.dtype.kind in "iu" and not
                                          np.array_equal(g, w)) or \
                        not np.allclose(
                        g.astype(np.float64), w, rtol=1e-4, atol=1e-5):
                    print("FAIL %s: output %d: %s, wanted %s: %s vs %s" % (
                        name, i, g.shape, w.shape, g.ravel()[:4],
                        w.ravel()[:4]))
                    bad += 1
                    break
            else:
                print("PASS %s" % name)
    print("attr_cases: %d of %d pass" % (n - bad, n))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
