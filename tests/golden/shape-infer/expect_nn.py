#!/usr/bin/python3
"""expect_nn: the shape-infer goldens of the common/middle/shape_nn.c ops,
checked against PyTorch and NumPy rather than against our C code.

Usage: expect_nn.py [GOLDEN_DIR]
For every CASE.in.json in the golden directory whose node is one of
conv2d, convTranspose2d, averagePool2d, l2Pool2d, maxPool2d,
resample2d, pad, batchNormalization, instanceNormalization,
layerNormalization, matmul, gemm, gru, gruCell, lstm and lstmCell, the
operation is run on zero tensors of the input shapes (torch.nn
.functional, torch.nn modules, numpy); the shapes and data types it
gives must equal the "types" of CASE.out.json.  One line per case;
exits 1 on any mismatch.

Where PyTorch lacks a feature of WebNN, the case is rewritten into what
PyTorch has, each time said in a comment: asymmetric padding becomes
F.pad before the op and a crop after it, layouts become permutes.
PyTorch on the CPU lacks most float16 and int8 kernels: such a case
runs in float32, and the output's data type is then the input's, the
tensor limits tables' "same as input" rule.
"""
import glob
import json
import os
import sys

import numpy as np
import torch
import torch.nn.functional as F

OPS = {"conv2d", "convTranspose2d", "averagePool2d", "l2Pool2d",
       "maxPool2d", "resample2d", "pad", "batchNormalization",
       "instanceNormalization", "layerNormalization", "matmul", "gemm",
       "gru", "gruCell", "lstm", "lstmCell"}
TORCH = {"float32": torch.float32, "float16": torch.float16,
         "int32": torch.int32, "int64": torch.int64, "int8": torch.int8,
         "uint8": torch.uint8, "float64": torch.float64}
NUMPY = {"float32": np.float32, "float16": np.float16, "int32": np.int32,
         "uint32": np.uint32, "int64": np.int64, "uint64": np.uint64,
         "int8": np.int8, "uint8": np.uint8, "float64": np.float64}
NAMES = {v: k for k, v in TORCH.items()}
NPNAMES = {np.dtype(v): k for k, v in NUMPY.items()}


class Case:
    def __init__(self, g):
        self.g = g
        self.node = g["nodes"][0]
        self.opts = self.node.get("options", {})
        self.types = {}
        for sect in ("inputs", "consts"):
            for n, d in g.get(sect, {}).items():
                self.types[n] = (d["dataType"], list(d["shape"]))

    def opt(self, name, default=None):
        v = self.opts.get(name)
        return default if v is None else v

    def inp(self, i):
        return self.types[self.node["inputs"][i]]

    def optin(self, name):
        n = self.opts.get(name)
        return self.types[n] if n is not None else None


def zeros(t, dt=None):
    """A zero tensor of a (dtype, shape) pair, in dt if given."""
    return torch.zeros(t[1], dtype=dt or TORCH[t[0]])


def run(fn, dt, *ts):
    """fn on zero tensors of the pairs ts (None stays None): in dtype dt
    when PyTorch has the kernel, else in float32 (see the module doc).
    Returns the results as (dtype name, shape) pairs."""
    def call(d):
        out = fn(*[zeros(t, d) if t is not None else None for t in ts])
        return out if isinstance(out, (tuple, list)) else [out]
    try:
        return [(NAMES[o.dtype], list(o.shape)) for o in call(TORCH[dt])]
    except RuntimeError:
        return [(dt, list(o.shape)) for o in call(torch.float32)]


def fourpad(c, x, p):
    """WebNN padding [top, bottom, left, right] as F.pad on NCHW."""
    return F.pad(x, (p[2], p[3], p[0], p[1])) if any(p) else x


def tonchw(c, x, key):
    return x.permute(0, 3, 1, 2) if c.opt(key, "nchw") == "nhwc" else x


def fromnchw(c, y, key):
    return y.permute(0, 2, 3, 1) if c.opt(key, "nchw") == "nhwc" else y


# Filter layouts as permutations to PyTorch's: OIHW for conv2d,
# IOHW for conv_transpose2d (both: [in or out, out/in per group, h, w]).
CONV_FILTER = {"oihw": (0, 1, 2, 3), "hwio": (3, 2, 0, 1),
               "ohwi": (0, 3, 1, 2), "ihwo": (3, 0, 1, 2)}
CONVT_FILTER = {"iohw": (0, 1, 2, 3), "hwoi": (3, 2, 0, 1),
                "ohwi": (3, 0, 1, 2)}


def conv2d(c):
    p = c.opt("padding", [0, 0, 0, 0])

    def f(x, w, b):
        w = w.permute(*CONV_FILTER[c.opt("filterLayout", "oihw")])
        x = fourpad(c, tonchw(c, x, "inputLayout"), p)
        y = F.conv2d(x, w, b, stride=c.opt("strides", [1, 1]),
                     dilation=c.opt("dilations", [1, 1]),
                     groups=c.opt("groups", 1))
        return fromnchw(c, y, "inputLayout")
    return run(f, c.inp(0)[0], c.inp(0), c.inp(1), c.optin("bias"))


def conv_transpose2d(c):
    """F.conv_transpose2d has only symmetric padding: run it unpadded and
    crop padding[0], [2] from the start and [1], [3] from the end.
    With outputSizes, nn.ConvTranspose2d's forward(output_size=) picks
    the output padding and refuses sizes outside [size, size + stride)."""
    p = c.opt("padding", [0, 0, 0, 0])
    st, dl = c.opt("strides", [1, 1]), c.opt("dilations", [1, 1])
    g = c.opt("groups", 1)
    os_ = c.opt("outputSizes")

    def f(x, w, b):
        w = w.permute(*CONVT_FILTER[c.opt("filterLayout", "iohw")])
        x = tonchw(c, x, "inputLayout")
        if os_ is None:
            y = F.conv_transpose2d(x, w, b, stride=st, dilation=dl,
                                   groups=g,
                                   output_padding=c.opt("outputPadding",
                                                        [0, 0]))
        else:
            m = torch.nn.ConvTranspose2d(
                x.shape[1], w.shape[1] * g, w.shape[2:], stride=st,
                dilation=dl, groups=g, bias=b is not None).to(x.dtype)
            assert m.weight.shape == w.shape, "filter shape"
            y = m(x, output_size=[os_[0] + p[0] + p[1],
                                  os_[1] + p[2] + p[3]])
        y = y[:, :, p[0]:y.shape[2] - p[1], p[2]:y.shape[3] - p[3]]
        return fromnchw(c, y, "inputLayout")
    return run(f, c.inp(0)[0], c.inp(0), c.inp(1), c.optin("bias"))


def pool2d(c):
    """Padding (any size, asymmetric) is an F.pad first.  avg_pool2d and
    lp_pool2d lack dilations: dilated windows go through max_pool2d,
    whose output geometry is the same.  PyTorch's ceil_mode also drops a
    last window that would start in the end padding; WebNN's ceil does
    not, so ceil is had as floor over an input stride - 1 longer:
    ceil(n / s) = floor((n + s - 1) / s).  With outputSizes the
    specification ignores padding and takes outputSizes when it is the
    floor or the ceiling of the output size, both computed so."""
    x = c.inp(0)
    nhwc = c.opt("layout", "nchw") == "nhwc"
    hw = x[1][1:3] if nhwc else x[1][2:4]
    win = c.opt("windowDimensions", hw)
    st, dl = c.opt("strides", [1, 1]), c.opt("dilations", [1, 1])
    os_ = c.opt("outputSizes")
    p = [0, 0, 0, 0] if os_ is not None else c.opt("padding", [0, 0, 0, 0])
    op = c.node["op"]

    def f(t, ceil):
        e = [s - 1 if ceil else 0 for s in st]
        t = fourpad(c, tonchw(c, t, "layout"),
                    [p[0], p[1] + e[0], p[2], p[3] + e[1]])
        if op == "averagePool2d" and dl == [1, 1]:
            y = F.avg_pool2d(t, win, st)
        elif op == "l2Pool2d" and dl == [1, 1]:
            y = F.lp_pool2d(t, 2, win, st)
        else:
            y = F.max_pool2d(t, win, st, dilation=dl)
        return fromnchw(c, y, "layout")
    ceil = c.opt("outputShapeRounding", "floor") == "ceil"
    if os_ is None:
        return run(lambda t: f(t, ceil), x[0], x)
    lo = run(lambda t: f(t, False), x[0], x)[0]
    hi = run(lambda t: f(t, True), x[0], x)[0]
    h, w = (1, 2) if nhwc else (2, 3)
    for r in (lo, hi):
        if [r[1][h], r[1][w]] == os_:
            # outputSizes must also be below the strides (the spec)
            assert all(o < s for o, s in zip(os_, st)), "outputSizes"
            return [r]
    raise AssertionError("outputSizes %s is neither %s nor %s" %
                         (os_, lo, hi))


def resample2d(c):
    """F.interpolate resizes the trailing dimensions: the two axes are
    moved last, in their order, and back.  scales is a sequence<float>
    in WebNN: the values are rounded to float32 before PyTorch
    multiplies (floor(size * scale), as the specification)."""
    x = c.inp(0)
    axes = c.opt("axes", [2, 3])
    rest = [i for i in range(4) if i not in axes]
    perm = rest + axes
    inv = [perm.index(i) for i in range(4)]
    sizes = c.opt("sizes")
    scales = [float(np.float32(s)) for s in c.opt("scales", [1.0, 1.0])]

    def f(t):
        t = t.permute(*perm)
        if sizes is not None:
            y = F.interpolate(t, size=sizes, mode="nearest")
        else:
            y = F.interpolate(t, scale_factor=scales, mode="nearest")
        return y.permute(*inv)
    return run(f, x[0], x)


def pad(c):
    x = c.inp(0)
    b, e = c.opt("beginningPadding"), c.opt("endingPadding")
    mode = {"constant": "constant", "edge": "edge",
            "reflection": "reflect"}[c.opt("mode", "constant")]
    if not x[1]:
        # np.pad refuses a 0-D array; nothing to pad (hand rule)
        assert b == [] and e == []
        return [x]
    widths = np.array(list(zip(b, e)), dtype=np.int64).reshape(-1, 2)
    y = np.pad(np.zeros(x[1], NUMPY[x[0]]), widths, mode=mode)
    return [(NPNAMES[y.dtype], list(y.shape))]


def batch_norm(c):
    """F.batch_norm normalizes dimension 1: the axis is moved there (a
    1-D input becomes [1, C])."""
    x, axis = c.inp(0), c.opt("axis", 1)

    def f(t, m, v, s, b):
        u = t.unsqueeze(0) if t.dim() == 1 else t.movedim(axis, 1)
        y = F.batch_norm(u, m, v, s, b, training=False)
        return y.squeeze(0) if t.dim() == 1 else y.movedim(1, axis)
    return run(f, x[0], x, c.inp(1), c.inp(2), c.optin("scale"),
               c.optin("bias"))


def instance_norm(c):
    x = c.inp(0)

    def f(t, s, b):
        y = F.instance_norm(tonchw(c, t, "layout"), weight=s, bias=b)
        return fromnchw(c, y, "layout")
    return run(f, x[0], x, c.optin("scale"), c.optin("bias"))


def layer_norm(c):
    """F.layer_norm normalizes the trailing dimensions: the axes are
    moved last, in their order (so scale and bias keep theirs).  With no
    axes, F.layer_norm refuses the empty normalized shape: then nothing
    is normalized, the output is the input's type, and scale and bias
    must have rank 0 (hand rule, the specification's steps)."""
    x = c.inp(0)
    r = len(x[1])
    axes = c.opt("axes", list(range(1, r)) if r > 1 else [])
    if not axes:
        for t in (c.optin("scale"), c.optin("bias")):
            assert t is None or (t[0] == x[0] and t[1] == []), "scale"
        return [x]
    perm = [i for i in range(r) if i not in axes] + axes
    inv = [perm.index(i) for i in range(r)]

    def f(t, s, b):
        t = t.permute(*perm)
        y = F.layer_norm(t, t.shape[r - len(axes):], s, b)
        return y.permute(*inv)
    return run(f, x[0], x, c.optin("scale"), c.optin("bias"))


def matmul(c):
    a, b = c.inp(0), c.inp(1)
    assert a[0] == b[0] and len(a[1]) >= 2 and len(b[1]) >= 2
    y = np.matmul(np.zeros(a[1], NUMPY[a[0]]), np.zeros(b[1], NUMPY[b[0]]))
    return [(NPNAMES[y.dtype], list(y.shape))]


def gemm(c):
    """alpha * A' B' + beta * C, C only unidirectionally broadcast: the
    sum must keep the product's shape."""
    a, b, cc = c.inp(0), c.inp(1), c.optin("c")
    assert a[0] == b[0] and len(a[1]) == 2 and len(b[1]) == 2
    A, B = np.zeros(a[1], NUMPY[a[0]]), np.zeros(b[1], NUMPY[b[0]])
    A = A.T if c.opt("aTranspose", False) else A
    B = B.T if c.opt("bTranspose", False) else B
    y = A @ B
    if cc is not None:
        assert cc[0] == a[0]
        z = y + np.zeros(cc[1], NUMPY[cc[0]])
        assert z.shape == y.shape, "c does not broadcast to the output"
    return [(NPNAMES[y.dtype], list(y.shape))]


def rnn(c, lstm):
    """nn.GRU / nn.LSTM (bidirectional for "both"; "backward" has the
    shapes of "forward").  WebNN stacks the directions' weights on a
    new first axis, so weight must be [numDirections] + weight_ih_l0's
    shape, and so on.  Outputs: the last hidden state h_n (and cell
    state c_n) [numDirections, batch, hidden]; with returnSequence the
    sequence output [steps, batch, numDirections * hidden], regrouped as
    [steps, numDirections, batch, hidden].  The peephole weight, which
    PyTorch lacks, is [numDirections, 3 * hidden] (hand rule)."""
    x, w, r = c.inp(0), c.inp(1), c.inp(2)
    steps, h = c.opt("steps"), c.opt("hiddenSize")
    nd = 2 if c.opt("direction", "forward") == "both" else 1
    assert x[1][0] == steps and x[0] == w[0] == r[0]
    cls = torch.nn.LSTM if lstm else torch.nn.GRU
    m = cls(x[1][2], h, bidirectional=nd == 2)
    assert w[1] == [nd] + list(m.weight_ih_l0.shape), "weight"
    assert r[1] == [nd] + list(m.weight_hh_l0.shape), "recurrentWeight"
    for name, ref in (("bias", m.bias_ih_l0), ("recurrentBias",
                                               m.bias_hh_l0)):
        t = c.optin(name)
        assert t is None or t[1] == [nd] + list(ref.shape), name
    p = c.optin("peepholeWeight")
    assert p is None or p[1] == [nd, 3 * h], "peepholeWeight"

    def f(t, h0, c0):
        if lstm:
            hc = None if h0 is None and c0 is None else (
                h0 if h0 is not None else torch.zeros(nd, t.shape[1], h),
                c0 if c0 is not None else torch.zeros(nd, t.shape[1], h))
            out, (hn, cn) = m.to(t.dtype)(t, hc)
            last = [hn, cn]
        else:
            out, hn = m.to(t.dtype)(t, h0)
            last = [hn]
        seq = out.view(steps, t.shape[1], nd, h).permute(0, 2, 1, 3)
        return last + ([seq] if c.opt("returnSequence", False) else [])
    return run(f, x[0], x, c.optin("initialHiddenState"),
               c.optin("initialCellState") if lstm else None)


def cell(c, lstm):
    """nn.GRUCell / nn.LSTMCell: weights [gates * hidden, input], states
    [batch, hidden].  The peephole weight, which PyTorch lacks, is
    [3 * hidden] (hand rule)."""
    x, w, r = c.inp(0), c.inp(1), c.inp(2)
    h = c.opt("hiddenSize")
    m = (torch.nn.LSTMCell if lstm else torch.nn.GRUCell)(x[1][1], h)
    assert w[1] == list(m.weight_ih.shape), "weight"
    assert r[1] == list(m.weight_hh.shape), "recurrentWeight"
    for name, ref in (("bias", m.bias_ih), ("recurrentBias", m.bias_hh)):
        t = c.optin(name)
        assert t is None or t[1] == list(ref.shape), name
    p = c.optin("peepholeWeight")
    assert p is None or p[1] == [3 * h], "peepholeWeight"
    states = [c.inp(3)] + ([c.inp(4)] if lstm else [])
    assert all(s[0] == x[0] for s in [w, r] + states)

    def f(t, *st):
        out = m.to(t.dtype)(t, tuple(st) if lstm else st[0])
        return list(out) if lstm else [out]
    return run(f, x[0], x, *states)


RULES = {
    "conv2d": conv2d, "convTranspose2d": conv_transpose2d,
    "averagePool2d": pool2d, "l2Pool2d": pool2d, "maxPool2d": pool2d,
    "resample2d": resample2d, "pad": pad, "batchNormalization": batch_norm,
    "instanceNormalization": instance_norm,
    "layerNormalization": layer_norm, "matmul": matmul, "gemm": gemm,
    "gru": lambda c: rnn(c, False), "lstm": lambda c: rnn(c, True),
    "gruCell": lambda c: cell(c, False), "lstmCell": lambda c: cell(c, True),
}


def check(inp):
    g = json.load(open(inp))
    if len(g["nodes"]) != 1 or g["nodes"][0]["op"] not in OPS:
        return None
    c = Case(g)
    out = json.load(open(inp.replace(".in.json", ".out.json")))
    got = [(t["dataType"], t["shape"]) for t in out["nodes"][0]["types"]]
    want = [(d, list(s)) for d, s in RULES[c.node["op"]](c)]
    if got != want:
        return "golden says %s, reference gives %s" % (got, want)
    return ""


def main():
    d = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(
        os.path.abspath(__file__))
    ok = bad = 0
    for inp in sorted(glob.glob(os.path.join(d, "*.in.json"))):
        name = os.path.basename(inp)[:-len(".in.json")]
        try:
            err = check(inp)
        except Exception as e:  # a refusal is a mismatch too
            err = "reference refused the case: %s: %s" % (
                type(e).__name__, e)
        if err is None:
            continue
        print(("ok - %s" % name) if not err else
              "not ok - %s: %s" % (name, err))
        ok += not err
        bad += bool(err)
    print("expect_nn: %d cases agree, %d differ" % (ok, bad))
    sys.exit(1 if bad or not ok else 0)


if __name__ == "__main__":
    torch.manual_seed(0)
    main()
