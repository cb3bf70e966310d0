#!/usr/bin/python3
"""signal_models: the ONNX models of tests/cli/signal.bats, each with an
input and its NumPy reference (or, for MelWeightMatrix, the ONNX
backend data's output).

Usage: signal_models.py DIR
Writes into DIR, per model NAME: NAME.onnx, NAME-x.npy (its input) and
NAME-want.npy:
  dft-onesided     DFT-17, onesided=1, of a real [2, 7, 1] along axis 1
                   (np.fft.rfft)
  dft-20           DFT-20, axis -2 and dft_length 6 as constant inputs,
                   inverse=1, of a complex [3, 5, 2] (np.fft.ifft, the
                   signal zero-padded)
  stft-twosided    STFT-17, onesided=0, of a real [1, 20, 1], frames of
                   6 every 4 under a Hann window (np.fft.fft a frame)
  mel-double       MelWeightMatrix-17 of the backend test's constant
                   inputs, output_datatype=11 (float64): its output
  mel-runtime      the same of graph inputs (nnl's melWeightMatrix),
                   its inputs in mel-runtime-NAME.npy, NAME each
                   input's ONNX name
  dft-complex-one  DFT-17, onesided=1 of a complex signal (refused)
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

MEL = "/usr/share/libonnx-testdata/data/node/test_melweightmatrix"
rng = np.random.default_rng(32)


def save(d, name, nodes, ins, outs, inits=(), opset=17, x=None,
         want=None):
    g = helper.make_graph(nodes, name, ins, outs, list(inits))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("",
                                                                opset)])
    onnx.save(m, os.path.join(d, name + ".onnx"))
    if x is not None:
        np.save(os.path.join(d, name + "-x.npy"), x)
    if want is not None:
        np.save(os.path.join(d, name + "-want.npy"), want)


def vi(name, t, shape):
    return helper.make_tensor_value_info(name, t, shape)


def ri(y):
    return np.stack([y.real, y.imag], -1)


def main(d):
    os.makedirs(d, exist_ok=True)
    f = TensorProto.FLOAT
    x = rng.standard_normal((2, 7, 1)).astype(np.float32)
    save(d, "dft-onesided",
         [helper.make_node("DFT", ["x"], ["y"], axis=1, onesided=1)],
         [vi("x", f, [2, 7, 1])], [vi("y", f, None)], x=x,
         want=ri(np.fft.rfft(x[..., 0].astype(np.float64), axis=1)))
    x = rng.standard_normal((3, 5, 2)).astype(np.float32)
    c = x[..., 0].astype(np.float64) + 1j * x[..., 1]
    save(d, "dft-20",
         [helper.make_node("DFT", ["x", "n", "axis"], ["y"], inverse=1)],
         [vi("x", f, [3, 5, 2])], [vi("y", f, None)],
         [numpy_helper.from_array(np.array(6, np.int64), "n"),
          numpy_helper.from_array(np.array(-2, np.int64), "axis")],
         opset=20, x=x, want=ri(np.fft.ifft(c, 6, axis=1)))
    x = rng.standard_normal((1, 20, 1)).astype(np.float32)
    w = (0.5 - 0.5 * np.cos(2 * np.pi * np.arange(6) / 6)).astype(
        np.float32)
    fr = np.stack([x[0, 4 * k:4 * k + 6, 0] * w for k in range(4)])
    save(d, "stft-twosided",
         [helper.make_node("STFT", ["x", "step", "w"], ["y"], onesided=0)],
         [vi("x", f, [1, 20, 1])], [vi("y", f, None)],
         [numpy_helper.from_array(np.array(4, np.int64), "step"),
          numpy_helper.from_array(w, "w")], x=x,
         want=ri(np.fft.fft(fr.astype(np.float64), axis=1))[None])
    names = ["num_mel_bins", "dft_length", "sample_rate",
             "lower_edge_hertz", "upper_edge_hertz"]
    vals = []
    for i in range(5):
        t = onnx.TensorProto()
        with open(os.path.join(MEL, "test_data_set_0",
                               "input_%d.pb" % i), "rb") as fp:
            t.ParseFromString(fp.read())
        vals.append(numpy_helper.to_array(t))
    t = onnx.TensorProto()
    with open(os.path.join(MEL, "test_data_set_0", "output_0.pb"),
              "rb") as fp:
        t.ParseFromString(fp.read())
    node = helper.make_node("MelWeightMatrix", names, ["y"],
                            output_datatype=TensorProto.DOUBLE)
    save(d, "mel-double", [node], [], [vi("y", TensorProto.DOUBLE, None)],
         [numpy_helper.from_array(v, n) for v, n in zip(vals, names)],
         want=numpy_helper.to_array(t).astype(np.float64))
    save(d, "mel-runtime", [node],
         [vi(n, TensorProto.INT64 if i < 3 else f, [])
          for i, n in enumerate(names)],
         [vi("y", TensorProto.DOUBLE, None)],
         want=numpy_helper.to_array(t).astype(np.float64))
    for i, (v, n) in enumerate(zip(vals, names)):
        np.save(os.path.join(d, "mel-runtime-%s.npy" % n),
                v.astype(np.int64 if i < 3 else np.float32))
    save(d, "dft-complex-one",
         [helper.make_node("DFT", ["x"], ["y"], axis=1, onesided=1)],
         [vi("x", f, [2, 4, 2])], [vi("y", f, None)])


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: signal_models.py DIR")
    main(sys.argv[1])
