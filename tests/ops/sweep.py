#!/usr/bin/python3
"""sweep: random valid configurations of nnl's ops beyond WebNN, against
NumPy and PyTorch, so that shapes the fixed cases of cases.py do not
cover are tried too.

Usage: sweep.py [--c] [--seed S] [--count N] [--only OP[,OP...]]
For each op of OPS, N configurations (default 20) are drawn from a
NumPy generator seeded by S (default 1) and the op's name: shapes,
strides, padding (each side its own), dilations, groups, rounding,
reductions, axes, types and zero points, small enough that a case
costs milliseconds.  Each is a case of run.py (its data drawn from a
generator seeded by the case's name, which holds the configuration)
and goes through run.py's check() and, with --c, its batches of
compiled C (run_batch), so NNL_BIN and NNL_TEST_CFLAGS apply as they
do there.  The references are computed here, independently of
nnl's kernels: PyTorch's conv3d and conv_transpose3d (float64, the
uneven padding with F.pad or cut off), the pools as PyTorch's
max_pool3d and conv3d sums of windows over explicitly padded input,
NumPy's det, fft, matmul and ufunc.at, PyTorch's conv2d over the
operands less their zero points.  Tolerances: 1e-4 for the 3-D
convolutions and the Lp pool in float32, 2e-2 in float16 (as
cases.py's), run.py's own otherwise (float32 1e-5, float64 1e-12, the
dft's 1e-11, float16 2e-3), integers exactly.
Prints "ok - NAME" or "not ok - NAME: why" per case, then "sweep: N
passed, M failed"; exits 1 on a failure.
"""
import math
import os
import sys
import tempfile
import zlib

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run  # noqa: E402
import refs  # noqa: E402

F32, F16, F64 = "float32", "float16", "float64"
torch = F = None


def opt(rng, o, key, v, prob, off):
    """v as option key of o with probability prob, else no option:
    the value in effect, v or the default off."""
    if rng.random() < prob:
        o[key] = v
        return v
    return off


def _torch():
    global torch, F
    if torch is None:
        refs._torch()
        torch, F = refs.torch, refs.F


def T(a):
    _torch()
    return torch.tensor(np.asarray(a, dtype=np.float64))


def sh(d):
    """A shape in a case name: 2x3x4 ([] for a scalar)."""
    return "x".join(map(str, d)) or "[]"


def ls(v):
    return ",".join(map(str, v))


def rint(rng, lo, hi):
    """An integer in [lo, hi]."""
    return int(rng.integers(lo, hi + 1))


def pick(rng, seq):
    return seq[int(rng.integers(len(seq)))]


def pads3(rng, hi=2):
    return [rint(rng, 0, hi) for _ in range(6)]


def fpad(p):
    """WebNN's [beginD, endD, beginH, endH, beginW, endW] as F.pad's
    (last axis first) tuple."""
    return (p[4], p[5], p[2], p[3], p[0], p[1])


# ---- conv3d and convTranspose3d ----

def conv3d_ref(a, o):
    _torch()
    X = F.pad(T(a["x"]), fpad(o.get("padding", [0] * 6)))
    y = F.conv3d(X, T(a["w"]), None if "b" not in a else T(a["b"]),
                 stride=o.get("strides", [1] * 3),
                 dilation=o.get("dilations", [1] * 3),
                 groups=o.get("groups", 1))
    return y.numpy()


def conv_t3d_ref(a, o):
    _torch()
    p = o.get("padding", [0] * 6)
    full = F.conv_transpose3d(
        T(a["x"]), T(a["w"]), None, stride=o.get("strides", [1] * 3),
        output_padding=o.get("outputPadding", [0] * 3),
        groups=o.get("groups", 1), dilation=o.get("dilations", [1] * 3))
    y = full[:, :, p[0]:full.shape[2] - p[1], p[2]:full.shape[3] - p[3],
             p[4]:full.shape[4] - p[5]].numpy()
    if "b" in a:
        y = y + a["b"].reshape(1, -1, 1, 1, 1)
    return y


def conv_common(rng, big):
    """Groups, channels, kernel, strides, dilations, padding and the
    options naming those that are not the default; big: channels and
    taps enough that the kernels of rt/nn/nd.c work the positions in
    more than one band (host/kern_nn.c's band3: 2^18 floats of
    columns), the last one ragged."""
    g = pick(rng, [1, 1, 1, 2, 3])
    icg, ocg = rint(rng, 1, 3), rint(rng, 1, 3)
    k = [rint(rng, 1, 3) for _ in range(3)]
    s = [rint(rng, 1, 3) for _ in range(3)]
    if big:
        g, icg, ocg = pick(rng, [1, 2]), rint(rng, 8, 12), rint(rng, 8, 12)
        k, s = [3, 3, 3], [1, 1, 1]
    d = [pick(rng, [1, 1, 2]) for _ in range(3)]
    p = pads3(rng)
    o = {}
    p = opt(rng, o, "padding", p, 0.8, [0] * 6)
    s = opt(rng, o, "strides", s, 0.8, [1] * 3)
    d = opt(rng, o, "dilations", d, 0.7, [1] * 3)
    if g > 1 or rng.random() < 0.2:
        o["groups"] = g
    return g, icg, ocg, k, s, d, p, o


def conv_name(op, i, x, w, o, dt, bias):
    return "%s-%d-x%s-w%s-p%s-s%s-d%s-g%d%s%s" % (
        op, i, sh(x), sh(w), ls(o.get("padding", [0] * 6)),
        ls(o.get("strides", [1] * 3)), ls(o.get("dilations", [1] * 3)),
        o.get("groups", 1), "-op" + ls(o["outputPadding"])
        if "outputPadding" in o else "", ("-bias" if bias else "") +
        ("-" + dt if dt != F32 else ""))


def tol(dt):
    return 2e-2 if dt == F16 else 1e-4


def sweep_conv3d(rng, i):
    big = rng.random() < 0.15
    g, icg, ocg, k, s, d, p, o = conv_common(rng, big)
    dt = F16 if rng.random() < 0.15 else F32
    n = rint(rng, 1, 2)
    # each input size at least what one window spans, padding counted
    sp = [max(1, (k[j] - 1) * d[j] + 1 - p[2 * j] - p[2 * j + 1]) +
          (rint(rng, 8, 12) if big else rint(rng, 0, 4)) for j in range(3)]
    x = [n, g * icg] + sp
    w = [g * ocg, icg] + k
    bias = rng.random() < 0.5
    optins = {"bias": ("b", dt, [g * ocg], "n")} if bias else {}
    run.case(conv_name("conv3d", i, x, w, o, dt, bias), "conv3d",
             [("x", dt, x, "n"), ("w", dt, w, "n")], o, optins=optins,
             ref=lambda a, c: conv3d_ref(a, c["opts"]).astype(
                 np.float16 if dt == F16 else np.float64), tol=tol(dt))


def sweep_conv_transpose3d(rng, i):
    big = rng.random() < 0.15
    g, icg, ocg, k, s, d, p, o = conv_common(rng, big)
    dt = F16 if rng.random() < 0.15 else F32
    n = rint(rng, 1, 2)
    sp = [rint(rng, 10, 14) if big else rint(rng, 1, 4) for _ in range(3)]
    op = [rint(rng, 0, s[j] - 1) for j in range(3)]
    if any(op) and rng.random() < 0.7:
        o["outputPadding"] = op
    else:
        op = [0] * 3
    # padding no more than leaves one output element on each axis
    for j in range(3):
        full = (sp[j] - 1) * s[j] + (k[j] - 1) * d[j] + 1 + op[j]
        while p[2 * j] + p[2 * j + 1] > full - 1:
            p[2 * j + (p[2 * j + 1] > p[2 * j])] -= 1
    x = [n, g * icg] + sp
    w = [g * icg, ocg] + k
    bias = rng.random() < 0.5
    optins = {"bias": ("b", dt, [g * ocg], "n")} if bias else {}
    run.case(conv_name("convTranspose3d", i, x, w, o, dt, bias),
             "convTranspose3d",
             [("x", dt, x, "n"), ("w", dt, w, "n")], o, optins=optins,
             ref=lambda a, c: conv_t3d_ref(a, c["opts"]).astype(
                 np.float16 if dt == F16 else np.float64), tol=tol(dt))


# ---- the 3-D pools ----

def pool_sizes(I, K, s, d, p, ceil):
    """Each output size by nnl-graph(5): rounded down, or up less a last
    window that would start past the input and its beginning padding."""
    out = []
    for j in range(3):
        n = I[j] + p[2 * j] + p[2 * j + 1] - (K[j] - 1) * d[j] - 1
        v = (-(-n // s[j]) if ceil else n // s[j]) + 1
        if ceil and v > 1 and (v - 1) * s[j] >= I[j] + p[2 * j]:
            v -= 1
        out.append(v)
    return out


def pool_ref(kind, a, o):
    """The windows over the input padded explicitly: -inf for a max
    (PyTorch's max_pool3d), else sums of windows by conv3d with a
    filter of ones (the values, |x|^p, the cells counted); the end
    padding grown by what a ceil-rounded last window reaches past it."""
    _torch()
    x = a["x"]
    N, C = x.shape[:2]
    I = list(x.shape[2:])
    K = o.get("windowDimensions", I)
    s = o.get("strides", [1] * 3)
    d = o.get("dilations", [1] * 3)
    p = o.get("padding", [0] * 6)
    out = pool_sizes(I, K, s, d, p, o.get("outputShapeRounding") == "ceil")
    ext = [max(0, (out[j] - 1) * s[j] + (K[j] - 1) * d[j] + 1 - I[j] -
               p[2 * j] - p[2 * j + 1]) for j in range(3)]
    pe = list(p)
    for j in range(3):
        pe[2 * j + 1] += ext[j]
    cut = (slice(None), slice(None)) + tuple(slice(0, v) for v in out)
    X = T(x)
    if kind == "max":
        y = F.max_pool3d(F.pad(X, fpad(pe), value=-math.inf), K, s, 0, d)
        return y[cut].numpy()
    ones = torch.ones([C, 1] + list(K), dtype=torch.float64)

    def wsum(v, ch):
        return F.conv3d(F.pad(v, fpad(pe)), ones[:ch], stride=s,
                        dilation=d, groups=ch)[cut]
    if kind == "lp":
        q = o.get("p", 2)
        return (wsum(X.abs() ** q, C) ** (1.0 / q)).numpy()
    total = wsum(X, C)
    m = torch.ones([1, 1] + I, dtype=torch.float64)
    if o.get("countIncludePad"):
        m = F.pad(m, fpad(p), value=1.0)
        m = F.pad(m, (0, ext[2], 0, ext[1], 0, ext[0]))
        cnt = F.conv3d(m, ones[:1], stride=s, dilation=d)[cut]
    else:
        cnt = wsum(m, 1)
    y = (total / cnt).numpy()
    return np.where(cnt.numpy() == 0, 0.0, y)


def sweep_pool(op, kind):
    def draw(rng, i):
        dt = F16 if rng.random() < 0.15 else F32
        n, c = rint(rng, 1, 2), rint(rng, 1, 3)
        o = {}
        K = [rint(rng, 1, 3) for _ in range(3)]
        s = [rint(rng, 1, 3) for _ in range(3)]
        d = [pick(rng, [1, 1, 2]) for _ in range(3)]
        p = pads3(rng)
        if rng.random() < 0.1:      # the whole input, the default
            sp = [rint(rng, 1, 4) for _ in range(3)]
            K, s, d, p = sp, [1] * 3, [1] * 3, [0] * 6
        else:
            o["windowDimensions"] = K
            p = opt(rng, o, "padding", p, 0.8, [0] * 6)
            if rng.random() < 0.8:
                o["strides"] = s
            d = opt(rng, o, "dilations", d, 0.6, [1] * 3)
            sp = [max(1, (K[j] - 1) * d[j] + 1 - p[2 * j] - p[2 * j + 1]) +
                  rint(rng, 0, 4) for j in range(3)]
        if rng.random() < 0.5:
            o["outputShapeRounding"] = "ceil"
        if kind == "avg" and rng.random() < 0.5:
            o["countIncludePad"] = True
        if kind == "lp":
            o["p"] = rint(rng, 1, 3)
        x = [n, c] + sp
        name = "%s-%d-x%s-k%s-p%s-s%s-d%s%s%s%s%s" % (
            op, i, sh(x), ls(o.get("windowDimensions", sp)),
            ls(o.get("padding", [0] * 6)), ls(o.get("strides", [1] * 3)),
            ls(o.get("dilations", [1] * 3)),
            "-ceil" if "outputShapeRounding" in o else "",
            "-countpad" if o.get("countIncludePad") else "",
            "-p%d" % o["p"] if "p" in o else "",
            "-" + dt if dt != F32 else "")
        # a max over negative data: a padding cell read as 0 shows
        run.case(name, op, [("x", dt, x, "neg" if kind == "max" and
                             rng.random() < 0.5 else "n")], o,
                 ref=lambda a, c: pool_ref(kind, a, c["opts"]).astype(
                     np.float16 if dt == F16 else np.float64),
                 tol=None if kind == "max" else
                 tol(dt) if kind == "lp" else None)
    return draw


# ---- det, dft ----

def sweep_det(rng, i):
    dt = pick(rng, [F32, F32, F32, F64, F16])
    m = rint(rng, 1, 8 if rng.random() < 0.2 else 5) if dt != F16 else \
        rint(rng, 1, 3)
    batch = [rint(rng, 1, 3) for _ in range(rint(rng, 0, 2))]
    x = batch + [m, m]
    kind = "n"
    if rng.random() < 0.25 and m > 1:
        # a singular matrix: a row twice (the determinant 0)
        a = np.random.default_rng(rng.integers(1 << 30)).integers(
            -4, 5, x).astype(np.float64)
        a[..., m - 1, :] = a[..., 0, :]
        kind = a.ravel().tolist()
    run.case("det-%d-x%s-%s%s" % (i, sh(x), dt, "-singular"
                                  if kind != "n" else ""), "det",
             [("x", dt, x, kind)],
             ref=lambda a, c: np.linalg.det(a["x"]))


def sweep_dft(rng, i):
    dt = pick(rng, [F32, F32, F32, F64, F16])
    rank = rint(rng, 1, 3)
    sig = [rint(rng, 1, 3) for _ in range(rank)]
    axis = rint(rng, 0, rank - 1)
    sig[axis] = rint(rng, 1, 16 if rng.random() < 0.2 else 9)
    cplx = rng.random() < 0.5
    x = sig + [2 if cplx else 1]
    o = {"axis": axis}
    n = None
    if rng.random() < 0.5:
        n = o["dftLength"] = rint(rng, 1, 18)
    inv = rng.random() < 0.4
    one = not cplx and not inv and rng.random() < 0.5
    if inv:
        o["inverse"] = True
    if one:
        o["onesided"] = True

    def ref(a, c):
        v = a["x"]
        s = v[..., 0] + 1j * v[..., 1] if cplx else v[..., 0] + 0j
        y = (np.fft.rfft(s.real, n, axis) if one else
             np.fft.ifft(s, n, axis) if inv else np.fft.fft(s, n, axis))
        return np.stack([y.real, y.imag], -1)
    run.case("dft-%d-x%s-axis%d%s%s%s-%s" % (
        i, sh(x), axis, "-n%d" % n if n else "", "-inverse" if inv else "",
        "-onesided" if one else "", dt), "dft", [("x", dt, x, "n")], o,
        ref=ref, tol=1e-11 if dt == F64 else None)


# ---- matMulInteger, conv2dInteger ----

def q8(rng):
    return pick(rng, ["uint8", "int8"])


def zp_shape(rng, x, forms):
    """A zero point's shape: one of forms, each a function of x's
    shape, broadcastable to it."""
    return pick(rng, forms)(x)


def sweep_matmul_integer(rng, i):
    ta, tb = q8(rng), q8(rng)
    m, n = rint(rng, 1, 5), rint(rng, 1, 5)
    k = rint(rng, 1, 12) if rng.random() < 0.8 else rint(rng, 200, 700)
    batch = [rint(rng, 1, 3) for _ in range(rint(rng, 0, 2))]
    ba = [pick(rng, [b, 1]) for b in batch][rint(rng, 0, len(batch)):]
    bb = [pick(rng, [b, 1]) for b in batch][rint(rng, 0, len(batch)):]
    sa, sb = ba + [m, k], bb + [k, n]
    za = zp_shape(rng, sa, [lambda s: [], lambda s: [1],
                            lambda s: [s[-2], 1], lambda s: [s[-1]],
                            lambda s: s])
    zb = zp_shape(rng, sb, [lambda s: [], lambda s: [s[-1]],
                            lambda s: [1, s[-1]], lambda s: [s[-2], 1],
                            lambda s: s])

    def ref(a, c):
        return np.matmul(a["a"].astype(np.int64) - a["az"],
                         a["b"].astype(np.int64) - a["bz"]).astype(np.int32)
    run.case("matMulInteger-%d-a%s-%s-b%s-%s-za%s-zb%s" % (
        i, sh(sa), ta, sh(sb), tb, sh(za), sh(zb)), "matMulInteger",
        [("a", ta, sa, "full"), ("b", tb, sb, "full"),
         ("az", ta, za, "full"), ("bz", tb, zb, "full")], ref=ref)


def sweep_conv2d_integer(rng, i):
    dt = q8(rng)
    g = pick(rng, [1, 1, 2, 3])
    icg, ocg = rint(rng, 1, 4), rint(rng, 1, 3)
    k = [rint(rng, 1, 3) for _ in range(2)]
    s = [rint(rng, 1, 3) for _ in range(2)]
    d = [pick(rng, [1, 1, 2]) for _ in range(2)]
    p = [rint(rng, 0, 2) for _ in range(4)]
    o = {}
    p = opt(rng, o, "padding", p, 0.8, [0] * 4)
    if rng.random() < 0.8:
        o["strides"] = s
    d = opt(rng, o, "dilations", d, 0.6, [1] * 2)
    if g > 1:
        o["groups"] = g
    sp = [max(1, (k[j] - 1) * d[j] + 1 - p[2 * j] - p[2 * j + 1]) +
          rint(rng, 0, 4) for j in range(2)]
    x = [rint(rng, 1, 2), g * icg] + sp
    w = [g * ocg, icg] + k
    # any shape that broadcasts to its operand (nnl-graph(5)): per
    # channel, per position, per element as well as ONNX's scalar
    zx = zp_shape(rng, x, [lambda s: [], lambda s: [1], lambda s: [],
                           lambda s: [s[1], 1, 1], lambda s: s[2:],
                           lambda s: [1] + s[1:], lambda s: s])
    zw = zp_shape(rng, w, [lambda s: [], lambda s: [s[0], 1, 1, 1],
                           lambda s: [1], lambda s: [s[0], 1, 1, 1],
                           lambda s: [s[1], 1, 1], lambda s: s[2:],
                           lambda s: s])

    def ref(a, c):
        _torch()
        X = F.pad(T(a["x"].astype(np.int64) - a["xz"]),
                  (p[2], p[3], p[0], p[1]))
        y = F.conv2d(X, T(a["w"].astype(np.int64) - a["wz"]),
                     stride=o.get("strides", [1, 1]), dilation=d, groups=g)
        return np.rint(y.numpy()).astype(np.int64).astype(np.int32)
    run.case("conv2dInteger-%d-x%s-w%s-%s-p%s-s%s-d%s-g%d-zx%s-zw%s" % (
        i, sh(x), sh(w), dt, ls(p), ls(o.get("strides", [1, 1])), ls(d),
        g, sh(zx), sh(zw)), "conv2dInteger",
        [("x", dt, x, "full"), ("w", dt, w, "full"), ("xz", dt, zx, "full"),
         ("wz", dt, zw, "full")], o, ref=ref)


# ---- scatterElementsReduce, scatterNDReduce ----

RED = {"add": np.add, "mul": np.multiply, "max": np.maximum,
       "min": np.minimum}
SCT = ["float32", "float16", "float64", "int32", "int64", "uint8", "int8",
       "int16", "uint32", "uint64"]


def sct_kind(dt, red):
    """Products that wrap, and unsigned values past the signed range
    (a max that compares them as signed is wrong)."""
    return "full" if (dt in ("int32", "int64") and red == "mul") or \
        dt in ("uint32", "uint64") else "n"


def in_type(a, dt):
    """An operand back in its own type, so that ufunc.at rounds each
    update as the type's arithmetic does (nnl-graph(5))."""
    return np.asarray(a).astype(run.NP[dt])


def sweep_scatter_elements(rng, i):
    red, dt = pick(rng, list(RED)), pick(rng, SCT)
    it = pick(rng, ["int32", "int64"])
    r = rint(rng, 1, 3)
    x = [rint(rng, 1, 4) for _ in range(r)]
    axis = rint(rng, 0, r - 1)
    ix = list(x)
    ix[axis] = rint(rng, 1, 6)      # more updates than places: repeats
    kind = sct_kind(dt, red)

    def ref(a, c):
        y = in_type(a["x"], dt)
        idx = np.where(a["i"] < 0, a["i"] + x[axis], a["i"])
        pos = list(np.indices(ix, sparse=True))
        pos[axis] = idx
        RED[red].at(y, tuple(pos), in_type(a["u"], dt))
        return y
    run.case("scatterElementsReduce-%d-%s-x%s-i%s-%s-axis%d-%s" % (
        i, red, sh(x), sh(ix), it, axis, dt), "scatterElementsReduce",
        [("x", dt, x, kind), ("i", it, ix, "idx:%d" % x[axis]),
         ("u", dt, ix, kind)], {"reduction": red, "axis": axis}, ref=ref)


def sweep_scatter_nd(rng, i):
    red, dt = pick(rng, list(RED)), pick(rng, SCT)
    it = pick(rng, ["int32", "int64"])
    r = rint(rng, 1, 3)
    x = [rint(rng, 1, 4) for _ in range(r)]
    k = rint(rng, 1, r)
    lead = [rint(rng, 1, 4) for _ in range(rint(rng, 1, 2))]
    ix = lead + [k]
    u = lead + x[k:]
    kind = sct_kind(dt, red)
    # each coordinate within its own dimension, negative ones too
    pr = np.random.default_rng(zlib.crc32(repr((i, x, ix)).encode()))
    idx = np.stack([pr.integers(-x[j], x[j], lead) for j in range(k)], -1)

    def ref(a, c):
        y = in_type(a["x"], dt)
        t = a["i"].reshape(-1, k)
        t = np.where(t < 0, t + np.array(x[:k]), t)
        for tup, v in zip(t, in_type(a["u"], dt).reshape(
                (-1,) + tuple(x[k:]))):
            RED[red].at(y, tuple(tup), v)
        return y
    run.case("scatterNDReduce-%d-%s-x%s-i%s-%s-%s" % (
        i, red, sh(x), sh(ix), it, dt), "scatterNDReduce",
        [("x", dt, x, kind), ("i", it, ix, idx.ravel().tolist()),
         ("u", dt, u, kind)], {"reduction": red}, ref=ref)


# ---- range, constantOfShape ----

def between(rng, lo, hi):
    """A Python integer in [lo, hi], however wide (int64's whole
    range)."""
    return min(hi, lo + int(rng.random() * (hi - lo + 1)))


def sweep_range(rng, i):
    dt = pick(rng, ["float32", "float64", "float16", "int8", "int16",
                    "int32", "int64"])
    cnt = rint(rng, 0, 12)
    sign = pick(rng, [1, -1])
    ints = dt.startswith("int")
    if ints:
        info = np.iinfo(run.NP[dt])
        lo, hi = int(info.min), int(info.max)
        # a small delta, or one so large that limit - start overflows
        # the type (int64's too): the count exactly all the same
        mag = rint(rng, 1, 9) if rng.random() < 0.5 else \
            between(rng, 1, min(hi, (hi - lo) // max(cnt, 1)))
        d = sign * mag
        if cnt:
            # a limit past the last item by less than delta: ceil
            ext = cnt * mag - between(rng, 0, mag - 1)
            start = between(rng, lo, hi - ext) if d > 0 else \
                between(rng, lo + ext, hi)
            lim = start + sign * ext
        else:
            # a limit at or behind the start: no item
            start = between(rng, lo, hi)
            lim = start - sign * between(rng, 0, min(
                9, start - lo if d > 0 else hi - start))
        vals = [start, lim, d]
    else:
        # quarters, exact in every float type
        d = rint(rng, 1, 12) / 4 * sign
        start = rint(rng, -40, 40) / 4
        lim = start + (cnt - rng.random() * 0.9) * d if cnt else \
            start - d * rint(rng, 0, 3)
        vals = [start, float(np.dtype(run.NP[dt]).type(lim)), d]
    bound = max(1, cnt + rint(rng, 0, 3))
    t = run.NP[dt]

    def ref(a, c):
        s, li, de = (a[k].reshape(()) for k in ("s", "l", "d"))
        if ints:
            q, r = divmod(int(li) - int(s), int(de))
            n = max(q + (r != 0), 0)
            v = [int(s) + j * int(de) for j in range(n)]
        else:
            # the count from the quotient in float32 for float32,
            # in double for the others (nnl-graph(5))
            qt = np.float32 if dt == "float32" else np.float64
            with np.errstate(all="ignore"):
                q = (qt(li) - qt(s)) / qt(de)
            n = int(max(np.ceil(q), 0))
            v = [float(s) + j * float(de) for j in range(n)]
        out = np.zeros(bound, t)
        out[:n] = np.array(v, object if ints else np.float64)
        return [out, np.array([n], np.int64)]
    run.case("range-%d-%s-%s-bound%d" % (i, dt, ls(vals), bound), "range",
             [("s", dt, [], [vals[0]]), ("l", dt, [], [vals[1]]),
              ("d", dt, [], [vals[2]])], {"bound": bound}, nout=2,
             ref=ref, odt=None)


COS_TYPES = ["float32", "float16", "float64", "int32", "uint32", "int64",
             "uint64", "int8", "uint8", "int16", "uint16"]


def sweep_constant_of_shape(rng, i):
    dt = pick(rng, COS_TYPES)
    r = rint(rng, 1, 4)
    dims = [rint(rng, 0, 3) if rng.random() < 0.15 else rint(rng, 1, 3)
            for _ in range(r)]
    bound = max(1, int(np.prod(dims)) + rint(rng, 0, 3))
    t = run.NP[dt]
    if dt.startswith("float"):
        value = float(rng.standard_normal() * 100)
    else:
        info = np.iinfo(t)
        value = int(rng.integers(max(info.min, -2 ** 40),
                                 min(info.max, 2 ** 40), endpoint=True))
    o = {"bound": bound}
    if dt != "float32" or rng.random() < 0.5:
        o["dataType"] = dt
    if value or rng.random() < 0.8:
        o["value"] = value

    def ref(a, c):
        out = np.zeros([bound] + [1] * (r - 1), t)
        out.flat[:int(np.prod(dims))] = t(o.get("value", 0))
        return [out, np.array(dims, np.int64)]
    run.case("constantOfShape-%d-%s-%s-bound%d-%s" % (
        i, sh(dims), dt, bound, repr(value).replace("-", "m")),
        "constantOfShape", [("s", "int64", [r], dims)], o, nout=2, ref=ref,
        odt=[dt, "int64"])


OPS = {
    "conv3d": sweep_conv3d,
    "convTranspose3d": sweep_conv_transpose3d,
    "averagePool3d": sweep_pool("averagePool3d", "avg"),
    "maxPool3d": sweep_pool("maxPool3d", "max"),
    "lpPool3d": sweep_pool("lpPool3d", "lp"),
    "det": sweep_det,
    "matMulInteger": sweep_matmul_integer,
    "conv2dInteger": sweep_conv2d_integer,
    "scatterElementsReduce": sweep_scatter_elements,
    "scatterNDReduce": sweep_scatter_nd,
    "dft": sweep_dft,
    "range": sweep_range,
    "constantOfShape": sweep_constant_of_shape,
}


def arg(name, default):
    if name not in sys.argv:
        return default
    return sys.argv[sys.argv.index(name) + 1]


def main():
    do_c = "--c" in sys.argv
    seed = int(arg("--seed", 1))
    count = int(arg("--count", 20))
    only = arg("--only", None)
    ops = only.split(",") if only else list(OPS)
    for op in ops:
        if op not in OPS:
            sys.exit("sweep: no op %s" % op)
        rng = np.random.default_rng([seed, zlib.crc32(op.encode())])
        for i in range(count):
            OPS[op](rng, i)
    t = run.Tally()
    with tempfile.TemporaryDirectory() as tmp:
        run.check_all(run.CASES, tmp, do_c, t)
    print("# seed %d, %d configurations of each of %d ops" % (
        seed, count, len(ops)))
    print("sweep: %d passed, %d failed" % (t.passed, t.failed))
    sys.exit(1 if t.failed else 0)


if __name__ == "__main__":
    main()
