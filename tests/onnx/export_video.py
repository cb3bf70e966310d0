#!/usr/bin/python3
"""export_video: torchvision's video ResNet r3d_18, small, as ONNX, with
PyTorch's output.

Usage: export_video.py DIR [--full]
Writes DIR/r3d-small-opset17/model.onnx (torch.onnx.export, opset 17),
input.npy (a fixed 1x3x4x32x32 clip) and expected.npy (what PyTorch
computes for it, float32).  The model is r3d_18's very structure, built
from torchvision's own VideoResNet, BasicBlock and Conv3DSimple: the
(3, 7, 7) stem of stride (1, 2, 2), four layers of two basic blocks
of 3x3x3 convolutions, 1x1x1 projections of stride 2 where the width
doubles, the global average pool and the classifier; only the widths
are an eighth of r3d_18's (8, 16, 32, 64), and it has 10 classes, so
that the test takes seconds.  Untrained; BatchNorm statistics and
affine parameters randomised so that outputs are far from zero.  With
--full, torchvision.models.video.r3d_18 itself (DIR/r3d_18-opset17).
"""
import os
import sys

import numpy as np
import torch
import torchvision
from torch import nn
from torchvision.models.video import resnet


class SmallR3D(resnet.VideoResNet):
    """VideoResNet's layers and forward() with widths 8 to 64."""

    def __init__(self, w=8, classes=10):
        nn.Module.__init__(self)
        self.inplanes = w
        self.stem = nn.Sequential(
            nn.Conv3d(3, w, kernel_size=(3, 7, 7), stride=(1, 2, 2),
                      padding=(1, 3, 3), bias=False),
            nn.BatchNorm3d(w), nn.ReLU(inplace=True))
        block, conv = resnet.BasicBlock, resnet.Conv3DSimple
        self.layer1 = self._make_layer(block, conv, w, 2, stride=1)
        self.layer2 = self._make_layer(block, conv, 2 * w, 2, stride=2)
        self.layer3 = self._make_layer(block, conv, 4 * w, 2, stride=2)
        self.layer4 = self._make_layer(block, conv, 8 * w, 2, stride=2)
        self.avgpool = nn.AdaptiveAvgPool3d((1, 1, 1))
        self.fc = nn.Linear(8 * w, classes)


def build(full):
    torch.manual_seed(0)
    m = torchvision.models.video.r3d_18(weights=None) if full else \
        SmallR3D()
    g = torch.Generator().manual_seed(1)
    for mod in m.modules():
        if isinstance(mod, nn.BatchNorm3d):
            n = mod.num_features
            mod.running_mean.copy_(torch.rand(n, generator=g) - 0.5)
            mod.running_var.copy_(torch.rand(n, generator=g) + 0.5)
            mod.weight.data.copy_(torch.rand(n, generator=g) + 0.5)
            mod.bias.data.copy_(torch.rand(n, generator=g) - 0.5)
    return m.eval()


def main():
    full = "--full" in sys.argv
    out = [a for a in sys.argv[1:] if a != "--full"][0]
    m = build(full)
    x = torch.randn(1, 3, 4, 32, 32,
                    generator=torch.Generator().manual_seed(2))
    y = m(x).numpy().astype(np.float32)
    d = os.path.join(out, "r3d_18-opset17" if full else "r3d-small-opset17")
    os.makedirs(d, exist_ok=True)
    torch.onnx.export(m, x, os.path.join(d, "model.onnx"), opset_version=17,
                      input_names=["input"], output_names=["output"])
    np.save(os.path.join(d, "input.npy"), x.numpy())
    np.save(os.path.join(d, "expected.npy"), y)
    print(d, "max |y| %.3g" % float(np.abs(y).max()))


if __name__ == "__main__":
    with torch.no_grad():
        main()
