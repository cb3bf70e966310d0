#!/usr/bin/python3
"""export_models: torchvision models as ONNX files, with PyTorch's output.

Usage: export_models.py DIR [MODEL ...]
For resnet18, mobilenet_v2 and squeezenet1_1 (untrained; BatchNorm
statistics and affine parameters randomised so that outputs are far
from zero) and for opsets 13 and 17, writes DIR/MODEL-opsetN/model.onnx
(torch.onnx.export), input.npy (a fixed 1x3x224x224 input) and
expected.npy (what PyTorch computes for it, in float32).
"""
import os
import sys

import numpy as np
import torch
import torchvision

MODELS = ["resnet18", "mobilenet_v2", "squeezenet1_1"]
OPSETS = [13, 17]


def build(name):
    torch.manual_seed(0)
    m = getattr(torchvision.models, name)(weights=None)
    g = torch.Generator().manual_seed(1)
    for mod in m.modules():
        if isinstance(mod, torch.nn.BatchNorm2d):
            n = mod.num_features
            mod.running_mean.copy_(torch.rand(n, generator=g) - 0.5)
            mod.running_var.copy_(torch.rand(n, generator=g) + 0.5)
            mod.weight.data.copy_(torch.rand(n, generator=g) + 0.5)
            mod.bias.data.copy_(torch.rand(n, generator=g) - 0.5)
    return m.eval()


def main():
    out = sys.argv[1]
    names = sys.argv[2:] or MODELS
    x = torch.randn(1, 3, 224, 224, generator=torch.Generator().manual_seed(2))
    for name in names:
        m = build(name)
        with torch.no_grad():
            y = m(x).numpy().astype(np.float32)
        for opset in OPSETS:
            d = os.path.join(out, "%s-opset%d" % (name, opset))
            os.makedirs(d, exist_ok=True)
            torch.onnx.export(m, x, os.path.join(d, "model.onnx"),
                              opset_version=opset, input_names=["input"],
                              output_names=["output"])
            np.save(os.path.join(d, "input.npy"), x.numpy())
            np.save(os.path.join(d, "expected.npy"), y)
            print(d, "max |y| %.3g" % float(np.abs(y).max()))


if __name__ == "__main__":
    with torch.no_grad():
        main()
