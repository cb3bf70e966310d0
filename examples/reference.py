#!/usr/bin/python3
"""reference: NNL semantics in NumPy, from the language reference (not
from nnl's C code), to compute the examples' expected outputs.

Usage: reference.py MODEL.nnl INPUT.npy OUTPUT.npy

Choices where the reference is silent, shared with nnl-parse (and
written down in nnl-graph(5)): activations are HWC with a leading batch
dimension; Dense flattens a multi-dimensional input in HWC order;
"same" padding puts the smaller half on top/left; pool padding is
[top, left, bottom, right] and padded cells take no part (the average
divides by the real cells); LayerNorm normalises the last dimension
with weights gamma and beta, epsilon 1e-5; LRN(size 5, alpha 1e-4,
beta 0.75, bias 1) across channels as ONNX defines it; FakeQuant(scale,
zero_point 0, qmin -128, qmax 127) rounds half to even; LeakyReLU's
alpha is 0.01; Upsample is nearest-neighbour.
"""
import math
import os
import re
import sys

import numpy as np


def tokens(text):
    text = re.sub(r"//[^\n]*|/\*.*?\*/", " ", text, flags=re.S)
    return re.findall(r'"[^"]*"|->|-?[0-9.]+(?:[eE][-+]?[0-9]+)?|\w+|[^\s\w]',
                      text)


def parse(path):
    t = tokens(open(path).read())
    i = 0

    def value():
        nonlocal i
        if t[i] == "[":
            i += 1
            out = []
            while t[i] != "]":
                out.append(value())
                if t[i] == ",":
                    i += 1
            i += 1
            return out
        v = t[i]
        i += 1
        if v.startswith('"'):
            return v[1:-1]
        try:
            return float(v)
        except ValueError:
            return v
    cfg, layers, conns = {}, [], None
    while t[i] != "model":
        i += 1
    i += 3
    while t[i] != "}":
        if t[i] == "config":
            i += 2
            while t[i] != "}":
                k = t[i]
                i += 2
                cfg[k] = value()
                i += 1
            i += 1
        elif t[i] == "layer":
            lid, typ = t[i + 1], t[i + 3]
            i += 5
            p = {}
            while t[i] != ")":
                k = t[i]
                i += 2
                p[k] = value()
                if t[i] == ",":
                    i += 1
            i += 2
            layers.append((lid, typ, p))
        elif t[i] == "connections":
            conns = []
            i += 2
            while t[i] != "}":
                if t[i] == "[":
                    j = t.index("]", i)
                    src = [s for s in t[i + 1:j] if s != ","]
                    i = j + 1
                else:
                    src = [t[i]]
                    i += 1
                conns.append((src, t[i + 1]))
                i += 3
            i += 1
    return cfg, layers, conns


def pair(v, d):
    if v is None:
        return d
    return (int(v[0]), int(v[1])) if isinstance(v, list) else (int(v), int(v))


def conv2d(x, w, b, stride, pads, groups):
    """x [N, H, W, C]; w [F, C/g, kh, kw]; pads (top, bottom, left, right)."""
    N, H, W, C = x.shape
    F, cg, kh, kw = w.shape
    x = np.pad(x, ((0, 0), pads[:2], pads[2:], (0, 0)))
    OH = (x.shape[1] - kh) // stride[0] + 1
    OW = (x.shape[2] - kw) // stride[1] + 1
    y = np.zeros((N, OH, OW, F))
    fg = F // groups
    for g in range(groups):
        xs = x[..., g * cg:(g + 1) * cg]
        for a in range(kh):
            for b2 in range(kw):
                patch = xs[:, a:a + stride[0] * OH:stride[0],
                           b2:b2 + stride[1] * OW:stride[1], :]
                y[..., g * fg:(g + 1) * fg] += np.einsum(
                    "nhwc,fc->nhwf", patch, w[g * fg:(g + 1) * fg, :, a, b2])
    return y + b


def pool(x, k, s, pad, kind):
    """pad (top, left, bottom, right); padded cells take no part."""
    N, H, W, C = x.shape
    t, l, b, r = pad
    OH = (H + t + b - k[0]) // s[0] + 1
    OW = (W + l + r - k[1]) // s[1] + 1
    y = np.zeros((N, OH, OW, C))
    for i in range(OH):
        for j in range(OW):
            y0, x0 = i * s[0] - t, j * s[1] - l
            win = x[:, max(y0, 0):min(y0 + k[0], H),
                    max(x0, 0):min(x0 + k[1], W), :]
            y[:, i, j] = win.max((1, 2)) if kind == "max" else win.mean((1, 2))
    return y


def run(path, x):
    cfg, layers, conns = parse(path)
    wdir = os.path.join(os.path.dirname(path), cfg.get("weights", "weights"))
    if wdir.endswith(".npz"):
        z = np.load(wdir)
        W = lambda n: z[n].astype(np.float64)
    else:
        W = lambda n: np.load(os.path.join(wdir, n + ".npy")).astype(np.float64)
    x = x.astype(np.float64)
    pre = cfg.get("preprocess", "none")
    if pre == "normalize_0_1":
        x = x / 255.0
    elif pre == "standardize":
        x = (x - np.array(cfg["preprocess_mean"])) / np.array(cfg["preprocess_std"])
    ids = [l[0] for l in layers]
    inputs = {lid: [] for lid in ids}
    if conns is None:
        for a, b in zip(ids, ids[1:]):
            inputs[b].append(a)
    else:
        for src, dst in conns:
            inputs[dst] += src
    out = {}
    todo = list(layers)
    while todo:
        for lid, typ, p in list(todo):
            if not all(s in out for s in inputs[lid]):
                continue
            todo.remove((lid, typ, p))
            ins = [out[s] for s in inputs[lid]]
            v = ins[0] if ins else None
            if typ == "Input":
                y = x
            elif typ == "Dense":
                v = v.reshape(v.shape[0], -1)
                y = v @ W(lid + ".weight") + W(lid + ".bias")
                act = p.get("activation", "none")
                if act == "relu":
                    y = np.maximum(y, 0)
                elif act == "sigmoid":
                    y = 1 / (1 + np.exp(-y))
                elif act == "softmax":
                    e = np.exp(y - y.max(-1, keepdims=True))
                    y = e / e.sum(-1, keepdims=True)
            elif typ in ("Conv2D", "Conv1D"):
                one = typ == "Conv1D"
                if one:
                    v = v[:, :, None, :]
                    k = (int(p["kernel"]), 1)
                    st = (int(p.get("stride", 1)), 1)
                    w = W(lid + ".weight")[..., None]
                else:
                    k = pair(p["kernel"], None)
                    st = pair(p.get("stride"), (1, 1))
                    w = W(lid + ".weight")
                H, Wd = v.shape[1], v.shape[2]
                if p.get("padding", "valid") == "same":
                    oh, ow = math.ceil(H / st[0]), math.ceil(Wd / st[1])
                    th = max((oh - 1) * st[0] + k[0] - H, 0)
                    tw = max((ow - 1) * st[1] + k[1] - Wd, 0)
                    pads = (th // 2, th - th // 2, tw // 2, tw - tw // 2)
                else:
                    pads = (0, 0, 0, 0)
                y = conv2d(v, w, W(lid + ".bias"), st, pads,
                           int(p.get("groups", 1)))
                if one:
                    y = y[:, :, 0, :]
            elif typ in ("MaxPool2D", "AvgPool2D", "MaxPool1D"):
                one = typ == "MaxPool1D"
                if one:
                    v = v[:, :, None, :]
                    k = (int(p["kernel"]), 1)
                    st = (int(p.get("stride", k[0])), 1)
                else:
                    k = pair(p["kernel"], None)
                    st = pair(p.get("stride"), k)
                pad = tuple(int(q) for q in p.get("padding", [0, 0, 0, 0]))
                y = pool(v, k, st, pad, "max" if typ[0] == "M" else "avg")
                if one:
                    y = y[:, :, 0, :]
            elif typ == "GlobalAvgPool2D":
                y = v.mean((1, 2))
            elif typ == "Flatten":
                y = v.reshape(v.shape[0], -1)
            elif typ == "BatchNorm":
                eps = p.get("epsilon", 1e-5)
                y = (v - W(lid + ".running_mean")) / np.sqrt(
                    W(lid + ".running_var") + eps) * W(lid + ".gamma") + \
                    W(lid + ".beta")
            elif typ == "LayerNorm":
                eps = p.get("epsilon", 1e-5)
                m = v.mean(-1, keepdims=True)
                va = ((v - m) ** 2).mean(-1, keepdims=True)
                y = (v - m) / np.sqrt(va + eps) * W(lid + ".gamma") + \
                    W(lid + ".beta")
            elif typ == "LRN":
                n = int(p.get("size", 5))
                al, be, bi = p.get("alpha", 1e-4), p.get("beta", 0.75), \
                    p.get("bias", 1.0)
                C = v.shape[-1]
                sq = v * v
                s = np.zeros_like(v)
                for c in range(C):
                    lo, hi = c - (n - 1) // 2, c + math.ceil((n - 1) / 2)
                    s[..., c] = sq[..., max(lo, 0):min(hi, C - 1) + 1].sum(-1)
                y = v / (bi + al / n * s) ** be
            elif typ == "Dropout":
                y = v
            elif typ == "Add":
                y = sum(ins)
            elif typ == "Mul":
                y = ins[0]
                for o in ins[1:]:
                    y = y * o
            elif typ == "Concat":
                ax = int(p.get("axis", -1))
                y = np.concatenate(ins, ax if ax < 0 else ax + 1)
            elif typ == "ReLU":
                y = np.maximum(v, 0)
            elif typ == "ReLU6":
                y = np.clip(v, 0, 6)
            elif typ == "LeakyReLU":
                y = np.where(v >= 0, v, p.get("alpha", 0.01) * v)
            elif typ == "Sigmoid":
                y = 1 / (1 + np.exp(-v))
            elif typ == "SiLU":
                y = v / (1 + np.exp(-v))
            elif typ == "Hardswish":
                y = v * np.clip(v + 3, 0, 6) / 6
            elif typ == "Softmax":
                ax = int(p.get("axis", -1))
                ax = ax if ax < 0 else ax + 1
                e = np.exp(v - v.max(ax, keepdims=True))
                y = e / e.sum(ax, keepdims=True)
            elif typ == "Upsample":
                sh, sw = pair(p["scale"], None)
                y = v.repeat(sh, 1).repeat(sw, 2)
            elif typ == "FakeQuant":
                s, z = p["scale"], p.get("zero_point", 0)
                q = np.clip(np.round(v / s) + z, p.get("qmin", -128),
                            p.get("qmax", 127))
                y = (q - z) * s
            else:
                raise SystemExit("reference: unknown layer " + typ)
            out[lid] = y
    used = {s for v in inputs.values() for s in v}
    last = ids[-1] if conns is None else [i for i in ids if i not in used][0]
    return out[last]


if __name__ == "__main__":
    y = run(sys.argv[1], np.load(sys.argv[2]))
    np.save(sys.argv[3], y.astype(np.float32))
