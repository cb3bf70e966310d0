#!/usr/bin/python3
"""export_vision: small DenseNet, Swin and MaxViT as ONNX, with PyTorch's
output.

Usage: export_vision.py DIR [MODEL ...]
Builds torchvision's DenseNet, SwinTransformer and MaxVit classes with
the block structure of densenet121, swin_t and maxvit_t but fewer
layers and channels and a small input, so that each runs in seconds:
densenet (a dense block of 17 layers: Concats of up to 18 inputs),
swin (two stages of a regular and a shifted-window block, the shifted
one with its attention mask; Dropout exported with a training_mode
input) and maxvit (two stages of MBConv, block and grid attention:
the relative position bias by Einsum).  Weights are random (seeded)
and scaled so that attention is far from uniform and outputs far from
zero.  For each model writes DIR/MODEL/model.onnx (torch.onnx.export,
opset 17), input.npy and expected.npy (what PyTorch computes for it,
in float32), and checks that the export holds what the model is there
to test (the Concat, the Dropout, the Einsum), exiting 1 if not.
"""
import math
import os
import sys

import numpy as np
import torch
from torchvision.models.densenet import DenseNet
from torchvision.models.maxvit import MaxVit
from torchvision.models.swin_transformer import SwinTransformer


def densenet():
    # densenet121 is DenseNet(32, (6, 12, 24, 16), 64) on 224x224
    return DenseNet(growth_rate=4, block_config=(17, 2),
                    num_init_features=8, bn_size=2, num_classes=100), 32


def swin():
    # swin_t: patch 4, embed 96, depths (2, 2, 6, 2), heads (3, 6, 12,
    # 24), window 7 on 224x224; here 16x16 then 8x8 tokens in windows
    # of 4, so both stages shift
    return SwinTransformer(patch_size=[4, 4], embed_dim=16, depths=[2, 2],
                           num_heads=[2, 4], window_size=[4, 4],
                           stochastic_depth_prob=0.2, num_classes=100), 64


def maxvit():
    # maxvit_t: stem 64, channels (64, 128, 256, 512), layers (2, 2, 5,
    # 2), head_dim 32, partition 7 on 224x224
    return MaxVit(input_size=(32, 32), stem_channels=8, partition_size=2,
                  block_channels=[16, 32], block_layers=[1, 1],
                  head_dim=8, stochastic_depth_prob=0.2,
                  num_classes=100), 32


MODELS = {"densenet": densenet, "swin": swin, "maxvit": maxvit}


def randomise(m, g):
    """Weights of unit gain (torchvision's inits of 0.02 make attention
    nearly uniform), norms and biases away from 1 and 0, BatchNorm
    statistics away from 0 and 1, relative position biases of unit
    size."""
    for name, p in m.named_parameters():
        if "relative_position_bias_table" in name:
            p.copy_(torch.randn(p.shape, generator=g))
        elif p.dim() >= 2:
            fan_in = p.numel() // p.shape[0]
            p.copy_(torch.randn(p.shape, generator=g) / math.sqrt(fan_in))
        elif name.endswith("weight"):
            p.copy_(torch.rand(p.shape, generator=g) + 0.5)
        else:
            p.copy_(torch.rand(p.shape, generator=g) - 0.5)
    for mod in m.modules():
        if isinstance(mod, torch.nn.BatchNorm2d):
            n = mod.num_features
            mod.running_mean.copy_(torch.rand(n, generator=g) - 0.5)
            mod.running_var.copy_(torch.rand(n, generator=g) + 0.5)


def holds(path, name):
    """What the export must hold for the test to mean anything."""
    import onnx
    nodes = onnx.load(path).graph.node
    if name == "densenet":
        n = max(len(x.input) for x in nodes if x.op_type == "Concat")
        return n > 16, "a Concat of %d inputs" % n
    if name == "swin":
        n = sum(x.op_type == "Dropout" and len(x.input) == 3 for x in nodes)
        return n > 0, "%d Dropouts with training_mode" % n
    n = sum(x.op_type == "Einsum" for x in nodes)
    return n > 0, "%d Einsums" % n


def main():
    out = sys.argv[1]
    for name in sys.argv[2:] or list(MODELS):
        torch.manual_seed(0)
        m, size = MODELS[name]()
        randomise(m, torch.Generator().manual_seed(1))
        m.eval()
        x = torch.randn(1, 3, size, size,
                        generator=torch.Generator().manual_seed(2))
        y = m(x).numpy().astype(np.float32)
        d = os.path.join(out, name)
        os.makedirs(d, exist_ok=True)
        path = os.path.join(d, "model.onnx")
        torch.onnx.export(m, x, path, opset_version=17,
                          input_names=["input"], output_names=["output"])
        np.save(os.path.join(d, "input.npy"), x.numpy())
        np.save(os.path.join(d, "expected.npy"), y)
        ok, what = holds(path, name)
        print("%s: %s, max |y| %.3g" % (d, what, float(np.abs(y).max())))
        if not ok:
            print("%s: the export lacks what the test is for" % name)
            return 1
    return 0


if __name__ == "__main__":
    with torch.no_grad():
        sys.exit(main())
