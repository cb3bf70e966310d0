#!/usr/bin/python3
"""make_nnl: one golden case per NNL layer type (nnl-<Type>.in.nnl with a
tiny weights directory and the .args naming where the weights are packed),
and a few variants, for tests/run-golden.sh.  Usage: make_nnl.py"""
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = {
    "Input": ("[2, 3]", "", ""),
    "Dense": ("[2, 3]", "Dense(units: 2, activation: \"relu\")",
              {"l.weight": (6, 2), "l.bias": (2,)}),
    "Conv2D": ("[4, 5, 2]", "Conv2D(filters: 2, kernel: [3, 2], stride: 2, "
               "padding: \"same\")", {"l.weight": (2, 2, 3, 2), "l.bias": (2,)}),
    "Conv1D": ("[6, 2]", "Conv1D(filters: 3, kernel: 3, stride: 2)",
               {"l.weight": (3, 2, 3), "l.bias": (3,)}),
    "MaxPool2D": ("[4, 4, 2]", "MaxPool2D(kernel: 2, padding: [0, 0, 1, 1])",
                  ""),
    "AvgPool2D": ("[4, 4, 2]", "AvgPool2D(kernel: [3, 3], stride: 1)", ""),
    "MaxPool1D": ("[6, 2]", "MaxPool1D(kernel: 2)", ""),
    "GlobalAvgPool2D": ("[3, 3, 2]", "GlobalAvgPool2D()", ""),
    "Flatten": ("[2, 2, 3]", "Flatten()", ""),
    "BatchNorm": ("[2, 2, 3]", "BatchNorm(epsilon: 1e-3)",
                  {"l.gamma": (3,), "l.beta": (3,), "l.running_mean": (3,),
                   "l.running_var": (3,)}),
    "LayerNorm": ("[2, 4]", "LayerNorm()", {"l.gamma": (4,), "l.beta": (4,)}),
    "LRN": ("[2, 2, 4]", "LRN(size: 3)", ""),
    "Dropout": ("[3]", "Dropout(rate: 0.5)", ""),
    "ReLU": ("[3]", "ReLU()", ""),
    "ReLU6": ("[3]", "ReLU6()", ""),
    "LeakyReLU": ("[3]", "LeakyReLU(alpha: 0.2)", ""),
    "Sigmoid": ("[3]", "Sigmoid()", ""),
    "SiLU": ("[3]", "SiLU()", ""),
    "Hardswish": ("[3]", "Hardswish()", ""),
    "Softmax": ("[2, 3]", "Softmax(axis: 0)", ""),
    "Upsample": ("[2, 2, 1]", "Upsample(scale: [2, 3])", ""),
    "FakeQuant": ("[3]", "FakeQuant(scale: 0.1, zero_point: 2, qmin: 0, "
                  "qmax: 255)", ""),
}
MULTI = {"Add": "Add()", "Mul": "Mul()", "Concat": "Concat(axis: 0)"}
# variants: (input shape, layer or "", config)
EXTRA = {
    # padded cells do not count: pad, average, rescale by a constant
    "AvgPool2D-padded": ("[4, 4, 2]", "AvgPool2D(kernel: 3, stride: 2, "
                         "padding: [1, 0, 1, 1])", ""),
    "Input-normalize": ("[2, 3]", "", 'preprocess: "normalize_0_1";'),
    # a graph output must be a node's: an identity
    "Input-alone": ("[2, 3]", "", ""),
}


def args(name):
    open(os.path.join(HERE, "nnl-%s.args" % name), "w").write(
        "-w build/golden/nnl-%s.weights -m build/golden/nnl-%s.manifest.json\n"
        % (name, name))


rng = np.random.default_rng(1)
for name, (shape, layer, weights) in CASES.items():
    body = "    layer input = Input(shape: %s);\n" % shape
    if layer:
        body += "    layer l = %s;\n" % layer
    cfg = ""
    if name == "Input":   # a graph output must be a node's: preprocess
        cfg = ('    config { preprocess: "standardize"; '
               'preprocess_mean: [0.5, 0.25, 0]; preprocess_std: [2, 4, 1]; }\n')
    if weights:
        wd = os.path.join(HERE, "weights-" + name)
        os.makedirs(wd, exist_ok=True)
        for k, s in weights.items():
            np.save(os.path.join(wd, k + ".npy"),
                    rng.standard_normal(s).astype(np.float32))
        cfg = '    config { weights: "weights-%s"; }\n' % name
    open(os.path.join(HERE, "nnl-%s.in.nnl" % name), "w").write(
        "version 0.9;\nmodel %s_case {\n%s%s}\n" % (name.lower(), cfg, body))
for name, layer in MULTI.items():
    open(os.path.join(HERE, "nnl-%s.in.nnl" % name), "w").write(
        "version 0.9;\nmodel %s_case {\n"
        "    layer input = Input(shape: [2, 3]);\n"
        "    layer a = ReLU();\n    layer b = Sigmoid();\n"
        "    layer l = %s;\n"
        "    connections { input -> a; input -> b; [a, b, input] -> l; }\n"
        "}\n" % (name.lower(), layer))
for name, (shape, layer, cfg) in EXTRA.items():
    body = "    layer input = Input(shape: %s);\n" % shape
    if layer:
        body += "    layer l = %s;\n" % layer
    if cfg:
        cfg = "    config { %s }\n" % cfg
    open(os.path.join(HERE, "nnl-%s.in.nnl" % name), "w").write(
        "version 0.9;\nmodel %s_case {\n%s%s}\n"
        % (name.lower().replace("-", "_"), cfg, body))
for name in list(CASES) + list(MULTI) + list(EXTRA):
    args(name)
