"""refs: NumPy and PyTorch references of the WebNN operations, written
from the specification's definitions (not from nnl's kernels), for
tests/ops/run.py."""
import math

import numpy as np

torch = F = None


def _torch():
    """PyTorch, imported where a case first needs it (the convolutions),
    so that a run of other cases does not wait for it."""
    global torch, F
    if torch is None:
        import torch as t
        import torch.nn.functional as f
        torch, F = t, f


def roundeven(x):
    return np.round(x)


def erf(x):
    return np.vectorize(math.erf)(x)


ACT = {
    "relu": lambda x: np.maximum(x, 0),
    "sigmoid": lambda x: 1 / (1 + np.exp(-x)),
    "tanh": np.tanh,
}


def conv2d(x, w, o):
    """WebNN conv2d through torch (NCHW/OIHW), layouts converted."""
    _torch()
    nhwc = o.get("inputLayout") == "nhwc"
    fl = o.get("filterLayout", "oihw")
    X = torch.tensor(x.transpose(0, 3, 1, 2) if nhwc else x, dtype=torch.float64)
    perm = {"oihw": (0, 1, 2, 3), "hwio": (3, 2, 0, 1),
            "ohwi": (0, 3, 1, 2), "ihwo": (3, 0, 1, 2)}[fl]
    W = torch.tensor(w.transpose(perm), dtype=torch.float64)
    p = o.get("padding", [0, 0, 0, 0])
    X = F.pad(X, (p[2], p[3], p[0], p[1]))
    b = o.get("_bias")
    y = F.conv2d(X, W, None if b is None else torch.tensor(b, dtype=torch.float64),
                 stride=o.get("strides", [1, 1]),
                 dilation=o.get("dilations", [1, 1]), groups=o.get("groups", 1))
    y = y.numpy()
    return y.transpose(0, 2, 3, 1) if nhwc else y


def conv_transpose2d(x, w, o):
    _torch()
    nhwc = o.get("inputLayout") == "nhwc"
    fl = o.get("filterLayout", "iohw")
    X = torch.tensor(x.transpose(0, 3, 1, 2) if nhwc else x, dtype=torch.float64)
    perm = {"iohw": (0, 1, 2, 3), "hwoi": (3, 2, 0, 1),
            "ohwi": (3, 0, 1, 2)}[fl]
    W = torch.tensor(w.transpose(perm), dtype=torch.float64)
    p = o.get("padding", [0, 0, 0, 0])
    s = o.get("strides", [1, 1])
    d = o.get("dilations", [1, 1])
    op = o.get("outputPadding", [0, 0])
    full = F.conv_transpose2d(X, W, None, stride=s, dilation=d,
                              groups=o.get("groups", 1), output_padding=op)
    y = full[:, :, p[0]:full.shape[2] - p[1], p[2]:full.shape[3] - p[3]]
    b = o.get("_bias")
    y = y.numpy()
    if b is not None:
        y = y + b.reshape(1, -1, 1, 1)
    return y.transpose(0, 2, 3, 1) if nhwc else y


def pool2d(kind, x, o):
    """Pools by their definition: padded cells take no part."""
    nhwc = o.get("layout") == "nhwc"
    if nhwc:
        x = x.transpose(0, 3, 1, 2)
    N, C, H, W = x.shape
    kh, kw = o.get("windowDimensions", [H, W])
    sh, sw = o.get("strides", [1, 1])
    dh, dw = o.get("dilations", [1, 1])
    pt, pb, pl, pr = o.get("padding", [0, 0, 0, 0])
    rnd = math.ceil if o.get("outputShapeRounding") == "ceil" else math.floor
    OH = int(rnd((H + pt + pb - (kh - 1) * dh - 1) / sh)) + 1
    OW = int(rnd((W + pl + pr - (kw - 1) * dw - 1) / sw)) + 1
    y = np.zeros((N, C, OH, OW))
    for oy in range(OH):
        for ox in range(OW):
            cells = []
            for a in range(kh):
                for b in range(kw):
                    iy, ix = oy * sh - pt + a * dh, ox * sw - pl + b * dw
                    if 0 <= iy < H and 0 <= ix < W:
                        cells.append(x[:, :, iy, ix])
            v = np.stack(cells, -1)
            y[:, :, oy, ox] = {"avg": lambda v: v.mean(-1),
                               "max": lambda v: v.max(-1),
                               "l2": lambda v: np.sqrt((v * v).sum(-1))}[kind](v)
    return y.transpose(0, 2, 3, 1) if nhwc else y


def resample2d(x, o):
    mode = o.get("mode", "nearest-neighbor")
    axes = o.get("axes", [2, 3])
    out = list(x.shape)
    for i, a in enumerate(axes):
        out[a] = o["sizes"][i] if "sizes" in o else \
            int(math.floor(x.shape[a] * o["scales"][i]))
    y = np.zeros(out)
    for idx in np.ndindex(*out):
        c = []
        for a in axes:
            s = out[a] / x.shape[a]
            v = (idx[a] + 0.5) / s - 0.5
            c.append(min(max(v, 0), x.shape[a] - 1))
        if mode == "nearest-neighbor":
            src = list(idx)
            for a, v in zip(axes, c):
                src[a] = math.ceil(v - 0.5)
            y[idx] = x[tuple(src)]
        else:
            acc = 0.0
            for fa in (0, 1):
                for fb in (0, 1):
                    src = list(idx)
                    wgt = 1.0
                    for a, v, f in zip(axes, c, (fa, fb)):
                        lo, hi = math.floor(v), math.ceil(v)
                        t = v - lo
                        src[a] = hi if f else lo
                        wgt *= t if f else 1 - t
                    acc += wgt * x[tuple(src)]
            y[idx] = acc
    return y


def gather_nd(x, idx):
    k = idx.shape[-1]
    flat = idx.reshape(-1, k)
    out = np.stack([x[tuple(t)] for t in flat])
    return out.reshape(idx.shape[:-1] + x.shape[k:])


def scatter_nd(x, idx, upd):
    y = x.copy()
    k = idx.shape[-1]
    flat = idx.reshape(-1, k)
    u = upd.reshape((-1,) + x.shape[k:])
    for t, v in zip(flat, u):
        y[tuple(t)] = v
    return y


def gru(x, W, R, steps, H, o, cell=False, h0=None):
    """The GRU of the specification's emulation."""
    B = x.shape[-2]
    D = 2 if o.get("direction") == "both" else 1
    after = o.get("resetAfter", True)
    f, g = [ACT[a] for a in o.get("activations", ["sigmoid", "tanh"])]
    zi, ri = (1, 0) if o.get("layout") == "rzn" else (0, 1)
    if cell:
        x, W, R = x[None], W[None], R[None]
        h0 = h0[None]
    bias = o.get("_bias")
    rbias = o.get("_recurrentBias")
    if cell:
        bias = None if bias is None else bias[None]
        rbias = None if rbias is None else rbias[None]
    hs, seq = [], np.zeros((steps, D, B, H))
    for d in range(D):
        h = h0[d] if h0 is not None else np.zeros((B, H))
        back = o.get("direction") == "backward" or d == 1
        for s in range(steps):
            t = steps - 1 - s if back else s
            bb = bias[d] if bias is not None else np.zeros(3 * H)
            rb = rbias[d] if rbias is not None else np.zeros(3 * H)
            blk = lambda v, i: v[..., i * H:(i + 1) * H]
            gx = x[t] @ W[d].T
            z = f(blk(gx, zi) + blk(bb, zi) + h @ blk(R[d].T, zi) + blk(rb, zi))
            r = f(blk(gx, ri) + blk(bb, ri) + h @ blk(R[d].T, ri) + blk(rb, ri))
            if after:
                n = g(blk(gx, 2) + blk(bb, 2) + r * (h @ blk(R[d].T, 2) + blk(rb, 2)))
            else:
                n = g(blk(gx, 2) + blk(bb, 2) + (r * h) @ blk(R[d].T, 2) + blk(rb, 2))
            h = (1 - z) * n + z * h
            seq[t, d] = h
        hs.append(h)
    if cell:
        return [hs[0]]
    out = [np.stack(hs)]
    if o.get("returnSequence"):
        out.append(seq)
    return out


def lstm(x, W, R, steps, H, o, cell=False, h0=None, c0=None):
    B = x.shape[-2]
    D = 2 if o.get("direction") == "both" else 1
    f, g, hh = [ACT[a] for a in o.get("activations", ["sigmoid", "tanh", "tanh"])]
    order = "ifgo" if o.get("layout") == "ifgo" else "iofg"
    pos = {k: order.index(k) for k in "iofg"}
    if cell:
        x, W, R = x[None], W[None], R[None]
        h0, c0 = h0[None], c0[None]
    bias, rbias, peep = (o.get("_bias"), o.get("_recurrentBias"),
                         o.get("_peepholeWeight"))
    if cell:
        bias = None if bias is None else bias[None]
        rbias = None if rbias is None else rbias[None]
        peep = None if peep is None else peep[None]
    hs, cs, seq = [], [], np.zeros((steps, D, B, H))
    for d in range(D):
        h = h0[d] if h0 is not None else np.zeros((B, H))
        c = c0[d] if c0 is not None else np.zeros((B, H))
        back = o.get("direction") == "backward" or d == 1
        for s in range(steps):
            t = steps - 1 - s if back else s
            gates = x[t] @ W[d].T + h @ R[d].T
            if bias is not None:
                gates = gates + bias[d]
            if rbias is not None:
                gates = gates + rbias[d]
            G = lambda k: gates[:, pos[k] * H:(pos[k] + 1) * H]
            P = (lambda i: peep[d][i * H:(i + 1) * H]) if peep is not None \
                else (lambda i: 0)
            i_ = f(G("i") + P(0) * c)
            f_ = f(G("f") + P(2) * c)
            g_ = g(G("g"))
            c = f_ * c + i_ * g_
            o_ = f(G("o") + P(1) * c)
            h = o_ * hh(c)
            seq[t, d] = h
        hs.append(h)
        cs.append(c)
    if cell:
        return [hs[0], cs[0]]
    out = [np.stack(hs), np.stack(cs)]
    if o.get("returnSequence"):
        out.append(seq)
    return out


# ---- nnl's 3-D convolutions and pools ([N, C, D, H, W]) ----
# Vectorized over the image: one strided slice of the padded input a
# filter tap, where the kernels walk output positions.

def _geom3(o):
    s = o.get("strides", [1, 1, 1])
    d = o.get("dilations", [1, 1, 1])
    p = o.get("padding", [0] * 6)
    return s, d, [(p[2 * i], p[2 * i + 1]) for i in range(3)]


def conv3d(x, w, o):
    """Sum over the taps of the zero-padded input's strided slices
    times the filter tap, a group at a time."""
    s, d, p = _geom3(o)
    g = o.get("groups", 1)
    x = np.pad(x.astype(np.float64), [(0, 0), (0, 0)] + p)
    w = w.astype(np.float64)
    O, icg, K = w.shape[0], w.shape[1], w.shape[2:]
    out = [(x.shape[2 + i] - (K[i] - 1) * d[i] - 1) // s[i] + 1
           for i in range(3)]
    y = np.zeros((x.shape[0], O) + tuple(out))
    ocg = O // g
    for q in range(g):
        xg = x[:, q * icg:(q + 1) * icg]
        wg = w[q * ocg:(q + 1) * ocg]
        for t in np.ndindex(*K):
            sl = tuple(slice(t[i] * d[i], t[i] * d[i] +
                             (out[i] - 1) * s[i] + 1, s[i])
                       for i in range(3))
            y[:, q * ocg:(q + 1) * ocg] += np.einsum(
                "ncdhw,oc->nodhw", xg[(slice(None), slice(None)) + sl],
                wg[(slice(None), slice(None)) + t])
    if "_bias" in o:
        y += o["_bias"].reshape(1, -1, 1, 1, 1)
    return y


def conv_transpose3d(x, w, o):
    """Each tap's products added into the full output at stride s, the
    padding then cut from both ends."""
    s, d, p = _geom3(o)
    g = o.get("groups", 1)
    op = o.get("outputPadding", [0, 0, 0])
    x = x.astype(np.float64)
    w = w.astype(np.float64)
    C, ocg, K = w.shape[0], w.shape[1], w.shape[2:]
    icg, I = C // g, x.shape[2:]
    full = [(I[i] - 1) * s[i] + (K[i] - 1) * d[i] + 1 + op[i]
            for i in range(3)]
    y = np.zeros((x.shape[0], ocg * g) + tuple(full))
    for q in range(g):
        for t in np.ndindex(*K):
            sl = tuple(slice(t[i] * d[i], t[i] * d[i] +
                             (I[i] - 1) * s[i] + 1, s[i]) for i in range(3))
            y[(slice(None), slice(q * ocg, (q + 1) * ocg)) + sl] += \
                np.einsum("ncdhw,co->nodhw", x[:, q * icg:(q + 1) * icg],
                          w[(slice(q * icg, (q + 1) * icg), slice(None)) + t])
    y = y[(slice(None), slice(None)) + tuple(
        slice(p[i][0], full[i] - p[i][1]) for i in range(3))]
    if "_bias" in o:
        y = y + o["_bias"].reshape(1, -1, 1, 1, 1)
    return y


def pool3d(kind, x, o):
    """Windows over the input padded with NaN (the padding, and what a
    ceil-rounded last window reaches past it), NaN left out; an average
    with countIncludePad divides by the window's cells inside the
    declared padding."""
    s, d, p = _geom3(o)
    I = x.shape[2:]
    K = o.get("windowDimensions", list(I))
    up = o.get("outputShapeRounding") == "ceil"
    out = []
    for i in range(3):
        n = I[i] + p[i][0] + p[i][1] - (K[i] - 1) * d[i] - 1
        v = (-(-n // s[i]) if up else n // s[i]) + 1
        if up and v > 1 and (v - 1) * s[i] >= I[i] + p[i][0]:
            v -= 1
        out.append(v)
    ext = [max(0, (out[i] - 1) * s[i] + (K[i] - 1) * d[i] + 1 - I[i] -
               p[i][0] - p[i][1]) for i in range(3)]
    pads = [(0, 0), (0, 0)] + [(p[i][0], p[i][1] + ext[i]) for i in range(3)]
    xp = np.pad(x.astype(np.float64), pads, constant_values=np.nan)
    inside = np.pad(np.ones(I), [(p[i][0], p[i][1]) for i in range(3)],
                    constant_values=1)
    inside = np.pad(inside, [(0, ext[i]) for i in range(3)])
    cells, counted = [], []
    for t in np.ndindex(*K):
        sl = tuple(slice(t[i] * d[i], t[i] * d[i] + (out[i] - 1) * s[i] + 1,
                         s[i]) for i in range(3))
        cells.append(xp[(slice(None), slice(None)) + sl])
        counted.append(inside[sl])
    v = np.stack(cells, -1)
    if kind == "max":
        return np.nanmax(v, -1)
    if kind == "lp":
        q = o.get("p", 2)
        return np.nansum(np.abs(v) ** q, -1) ** (1 / q)
    n = (np.stack(counted, -1).sum(-1) if o.get("countIncludePad")
         else (~np.isnan(v)).sum(-1))
    return np.nansum(v, -1) / n
