#!/usr/bin/python3
"""norms: two builds of nnc side by side on softmax and layer norm.

Usage: norms.py OLD_BIN NEW_BIN OUTDIR [ROUNDS] [NAME...]
Exports with PyTorch (random weights, torchvision's weights=None) the
microbenchmarks softmax over the last axis of [1, 12, 197, 197], and
LayerNorm over the last axis of [1, 197, 768] and [1, 128, 256], at
opsets 13 and 17, and the models vit_b_16 and convnext_tiny at opsets
13 and 17; compiles each with OLD_BIN/nnc and NEW_BIN/nnc (--emit lib,
the defaults) and links bench/nnl-timer.c to each; checks each
program's output against PyTorch's (relative to its largest value,
1e-4); then times them in alternating rounds (old, new, new, old, ...)
in the same session and prints per model the median milliseconds of
each and new / old.  NAME picks some (default: all).
"""
import os
import subprocess
import sys

import numpy as np
import torch
import torchvision

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class Softmax(torch.nn.Module):
    def forward(self, x):
        return torch.softmax(x, -1)


def layernorm(n):
    m = torch.nn.LayerNorm(n)
    with torch.no_grad():
        m.weight.uniform_(0.5, 1.5)
        m.bias.uniform_(-1, 1)
    return m


def vit():
    # torchvision zeroes the head, and the output would not tell a
    # wrong model from a right one
    m = torchvision.models.vit_b_16(weights=None)
    with torch.no_grad():
        m.heads.head.weight.normal_(0, 0.02)
    return m


MODELS = {
    "softmax": (Softmax, (1, 12, 197, 197)),
    "ln768": (lambda: layernorm(768), (1, 197, 768)),
    "ln256": (lambda: layernorm(256), (1, 128, 256)),
    "vit_b_16": (vit, (1, 3, 224, 224)),
    "convnext_tiny": (lambda: torchvision.models.convnext_tiny(weights=None),
                      (1, 3, 224, 224)),
}


def export(name, opset, d):
    stem = "%s_o%d" % (name, opset)
    path = os.path.join(d, stem + ".onnx")
    if not os.path.exists(path):
        torch.manual_seed(0)
        make, shape = MODELS[name]
        m = make().eval()
        x = torch.randn(*shape)
        torch.onnx.export(m, x, path, opset_version=opset)
        with torch.no_grad():
            y = m(x)
        x.numpy().astype("<f4").tofile(os.path.join(d, stem + ".in.bin"))
        y.numpy().astype("<f4").tofile(os.path.join(d, stem + ".ref.bin"))
    return stem


def build(nnc, stem, d, tag):
    lib = os.path.join(d, "lib%s_%s.a" % (stem, tag))
    subprocess.run([nnc, "compile", "--emit", "lib", "-o", lib,
                    stem + ".onnx"], cwd=d, check=True)
    exe = os.path.join(d, "timer-%s-%s" % (stem, tag))
    subprocess.run(["cc", "-O2", "-DPFX=" + stem, "-o", exe,
                    os.path.join(TOP, "bench", "nnl-timer.c"), lib, "-lm"],
                   check=True)
    return exe


def start(exe, stem, d, tag):
    out = os.path.join(d, "%s_%s.out.bin" % (stem, tag))
    p = subprocess.Popen([exe, os.path.join(d, stem + ".in.bin"), out],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         text=True)
    if p.stdout.readline().strip() != "ready":
        raise RuntimeError(exe + ": did not start")
    got = np.fromfile(out, "<f4").astype(np.float64)
    want = np.fromfile(os.path.join(d, stem + ".ref.bin"), "<f4")
    err = np.max(np.abs(got - want)) / max(np.max(np.abs(want)), 1e-30)
    return p, err


def times(p, k):
    p.stdin.write("run %d\n" % k)
    p.stdin.flush()
    return [float(t) for t in p.stdout.readline().split()]


def main():
    old, new, d = sys.argv[1:4]
    rounds = int(sys.argv[4]) if len(sys.argv) > 4 else 7
    names = sys.argv[5:] or list(MODELS)
    os.makedirs(d, exist_ok=True)
    print("%-20s %10s %10s %8s %9s %9s" % ("model", "old ms", "new ms",
                                           "new/old", "old err",
                                           "new err"))
    for name in names:
        for opset in (13, 17):
            stem = export(name, opset, d)
            po, eo = start(build(os.path.join(old, "nnc"), stem, d, "old"),
                           stem, d, "old")
            pn, en = start(build(os.path.join(new, "nnc"), stem, d, "new"),
                           stem, d, "new")
            k = 3 if name in ("vit_b_16", "convnext_tiny") else 20
            to, tn = [], []
            for r in range(rounds):
                pair = [(po, to), (pn, tn)]
                for p, t in (pair if r % 2 == 0 else pair[::-1]):
                    t += times(p, k)
            for p in (po, pn):
                p.stdin.close()
                p.wait()
            mo, mn = np.median(to), np.median(tn)
            print("%-20s %10.3f %10.3f %8.3f %9.1e %9.1e"
                  % (stem, mo, mn, mn / mo, eo, en), flush=True)


if __name__ == "__main__":
    main()
