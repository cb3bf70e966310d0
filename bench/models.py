#!/usr/bin/python3
"""models: the benchmark's models exported by PyTorch at opset 13.

For each model it writes NAME.onnx, NAME.in.bin (one random float32
input, raw little-endian), NAME.ref.bin (PyTorch's float32 output for
it) and a line of NAME.json with the input and output shapes and the
multiply-add count of the convolutions and matrix products (the FLOP
count is twice that).  torchvision models are built with weights=None
(no download), their batch-norm statistics randomised so that the
normalisation is not the identity, and put in eval mode.

Usage: models.py OUTDIR [NAME...]
"""
import json
import os
import sys

import numpy as np
import torch
import torch.nn as nn
import torchvision


class MnistCnn(nn.Module):
    """The small CNN of the NNL documentation's MNIST example."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 32, 3, padding=1)
        self.conv2 = nn.Conv2d(32, 64, 3, padding=1)
        self.fc1 = nn.Linear(64 * 7 * 7, 128)
        self.fc2 = nn.Linear(128, 10)

    def forward(self, x):
        x = torch.max_pool2d(torch.relu(self.conv1(x)), 2)
        x = torch.max_pool2d(torch.relu(self.conv2(x)), 2)
        x = torch.flatten(x, 1)
        return self.fc2(torch.relu(self.fc1(x)))


MODELS = {
    "resnet18": (lambda: torchvision.models.resnet18(weights=None),
                 (1, 3, 224, 224)),
    "mobilenet_v2": (lambda: torchvision.models.mobilenet_v2(weights=None),
                     (1, 3, 224, 224)),
    "squeezenet1_1": (lambda: torchvision.models.squeezenet1_1(weights=None),
                      (1, 3, 224, 224)),
    "mnist_cnn": (MnistCnn, (1, 1, 28, 28)),
}


def randomise_bn(model, gen):
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            n = m.num_features
            m.running_mean.copy_(torch.randn(n, generator=gen) * 0.1)
            m.running_var.copy_(torch.rand(n, generator=gen) * 0.5 + 0.75)
            m.weight.data.copy_(torch.rand(n, generator=gen) * 0.5 + 0.75)
            m.bias.data.copy_(torch.randn(n, generator=gen) * 0.1)


def macs(model, shape):
    """Multiply-adds of every Conv2d and Linear, from hooks."""
    total = [0]

    def conv_hook(m, inp, out):
        k = m.kernel_size[0] * m.kernel_size[1]
        total[0] += out.numel() * (m.in_channels // m.groups) * k

    def lin_hook(m, inp, out):
        total[0] += out.numel() * m.in_features

    hooks = []
    for m in model.modules():
        if isinstance(m, nn.Conv2d):
            hooks.append(m.register_forward_hook(conv_hook))
        elif isinstance(m, nn.Linear):
            hooks.append(m.register_forward_hook(lin_hook))
    with torch.no_grad():
        model(torch.zeros(shape))
    for h in hooks:
        h.remove()
    return total[0]


def export(outdir, name):
    make, shape = MODELS[name]
    torch.manual_seed(0)
    gen = torch.Generator().manual_seed(1)
    model = make()
    randomise_bn(model, gen)
    model.eval()
    x = torch.randn(shape, generator=gen)
    with torch.no_grad():
        y = model(x)
    path = os.path.join(outdir, name + ".onnx")
    torch.onnx.export(model, x, path, opset_version=13,
                      input_names=["input"], output_names=["output"])
    x.numpy().astype("<f4").tofile(os.path.join(outdir, name + ".in.bin"))
    y.numpy().astype("<f4").tofile(os.path.join(outdir, name + ".ref.bin"))
    return {"name": name, "input": list(shape), "output": list(y.shape),
            "macs": macs(model, shape)}


def main():
    outdir = sys.argv[1]
    names = sys.argv[2:] or list(MODELS)
    os.makedirs(outdir, exist_ok=True)
    torch.set_num_threads(1)
    info = [export(outdir, n) for n in names]
    with open(os.path.join(outdir, "models.json"), "w") as f:
        json.dump(info, f, indent=1)


if __name__ == "__main__":
    main()
