#!/usr/bin/python3
"""newest_ops: the operators of opsets 20 to 23 against NumPy.

Usage: newest_ops.py [--bin DIR] [--only NAME]

Gelu (opset 20, approximate none and tanh), RMSNormalization,
RotaryEmbedding and Attention (opset 23): one-node models built with
onnx.helper (the onnx package here knows opsets to 17, so without its
checker), imported by nnl-onnx-import, run by nnl-run, and compared
with references written from the ONNX operator specification in NumPy.
Then refusals: what the importer does not implement of these operators
is refused with a reason code.  Exit 1 on any failure.
"""
import argparse
import math
import os
import subprocess
import sys
import tempfile

import numpy as np
from onnx import TensorProto, helper

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
RNG = np.random.default_rng(23)
T = {np.float32: TensorProto.FLOAT, np.int64: TensorProto.INT64,
     np.bool_: TensorProto.BOOL}


def rand(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


def model(op, ins, nouts, opset, **attrs):
    """One node of op over the named arrays ins (None: an absent
    optional input), outputs y0..y(nouts - 1)."""
    names = [n if a is not None else "" for n, a in ins]
    x = [helper.make_tensor_value_info(n, T[a.dtype.type], a.shape)
         for n, a in ins if a is not None]
    y = [helper.make_tensor_value_info("y%d" % i, TensorProto.FLOAT, None)
         for i in range(nouts)]
    node = helper.make_node(op, names, [v.name for v in y], name="n",
                            **attrs)
    m = helper.make_model(helper.make_graph([node], "g", x, y),
                          opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 9
    return m


def imported(bin_, tmp, m):
    path = os.path.join(tmp, "m.onnx")
    with open(path, "wb") as f:
        f.write(m.SerializeToString())
    return subprocess.run([os.path.join(bin_, "nnl-onnx-import"), "-o",
                           os.path.join(tmp, "g.json"), path],
                          capture_output=True, text=True)


def run(bin_, tmp, m, ins, nouts):
    p = imported(bin_, tmp, m)
    if p.returncode:
        return "import: " + p.stderr.strip()
    args = []
    for n, a in ins:
        if a is not None:
            f = os.path.join(tmp, n + ".npy")
            np.save(f, a.astype(np.uint8) if a.dtype == bool else a)
            args.append("%s=%s" % (n, f))
    out = os.path.join(tmp, "out")
    os.makedirs(out, exist_ok=True)
    p = subprocess.run([os.path.join(bin_, "nnl-run"), "-d", out,
                        os.path.join(tmp, "g.json")] + args,
                       capture_output=True, text=True)
    if p.returncode:
        return "run: " + p.stderr.strip()
    return [np.load(os.path.join(out, "y%d.npy" % i)) for i in range(nouts)]


# ---- references, from the specification's text ----

def gelu(x, approximate):
    if approximate == "tanh":
        return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) *
                                      (x + 0.044715 * x ** 3)))
    erf = np.vectorize(math.erf)
    return 0.5 * x * (1 + erf(x / math.sqrt(2)))


def rmsnorm(x, scale, axis, eps):
    ax = tuple(range(axis % x.ndim, x.ndim))
    x = x.astype(np.float64)
    return x / np.sqrt(np.mean(x * x, axis=ax, keepdims=True) + eps) * scale


def rotary(x, cos, sin, pos, interleaved, nh, rd):
    x = x.astype(np.float64)
    if x.ndim == 4:
        xs = x.transpose(0, 2, 1, 3)               # b s h d
    else:
        b, s, hid = x.shape
        xs = x.reshape(b, s, nh, hid // nh)
    d = xs.shape[-1]
    rd = rd or d
    if pos is not None:
        cos, sin = cos[pos], sin[pos]               # b s r/2
    cos, sin = cos[:, :, None, :], sin[:, :, None, :]
    out = xs.copy()
    r = xs[..., :rd]
    if interleaved:
        x1, x2 = r[..., 0::2], r[..., 1::2]
        out[..., 0:rd:2] = cos * x1 - sin * x2
        out[..., 1:rd:2] = sin * x1 + cos * x2
    else:
        x1, x2 = r[..., :rd // 2], r[..., rd // 2:]
        out[..., :rd // 2] = cos * x1 - sin * x2
        out[..., rd // 2:rd] = sin * x1 + cos * x2
    if x.ndim == 4:
        return out.transpose(0, 2, 1, 3)
    return out.reshape(x.shape)


def attention(q, k, v, mask=None, pk=None, pv=None, causal=0, scale=None,
              qh=None, kvh=None):
    three = q.ndim == 3

    def split(t, h):
        b, s, hid = t.shape
        return t.reshape(b, s, h, hid // h).transpose(0, 2, 1, 3)

    if three:
        q, k, v = split(q, qh), split(k, kvh), split(v, kvh)
    q, k, v = (t.astype(np.float64) for t in (q, k, v))
    if pk is not None:
        k = np.concatenate([pk, k], axis=2)
        v = np.concatenate([pv, v], axis=2)
    present = (k.copy(), v.copy())
    g = q.shape[1] // k.shape[1]
    kk, vv = np.repeat(k, g, axis=1), np.repeat(v, g, axis=1)
    if scale is None:
        scale = 1 / math.sqrt(q.shape[-1])
    s = q @ kk.transpose(0, 1, 3, 2) * scale
    if mask is not None:
        s = np.where(mask, s, -np.inf) if mask.dtype == bool else s + mask
    if causal:
        n, m = s.shape[-2:]
        s = np.where(np.tril(np.ones((n, m), bool)), s, -np.inf)
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    y = e / e.sum(axis=-1, keepdims=True) @ vv
    if three:
        b, h, sq, dv = y.shape
        y = y.transpose(0, 2, 1, 3).reshape(b, sq, h * dv)
    return (y,) + present


# ---- the cases ----

def cases():
    x = rand(2, 3, 5)
    for ap in ("none", "tanh"):
        kw = {} if ap == "none" else {"approximate": ap}
        yield "gelu-" + ap, model("Gelu", [("x", x)], 1, 20, **kw), \
            [("x", x)], [gelu(x, ap)]
    x, s = rand(2, 3, 4), rand(4)
    yield "rmsnorm-last", model("RMSNormalization", [("x", x), ("s", s)], 1,
                                23), \
        [("x", x), ("s", s)], [rmsnorm(x, s, -1, 1e-5)]
    s2 = rand(1, 4)
    yield "rmsnorm-axis1", model("RMSNormalization", [("x", x), ("s", s2)],
                                 1, 23, axis=1, epsilon=0.1, stash_type=1), \
        [("x", x), ("s", s2)], [rmsnorm(x, s2, 1, 0.1)]
    # 4-D, halves, caches gathered by position_ids
    x = rand(2, 3, 4, 8)
    cos, sin = rand(10, 4), rand(10, 4)
    pos = RNG.integers(0, 10, (2, 4)).astype(np.int64)
    ins = [("x", x), ("cos", cos), ("sin", sin), ("pos", pos)]
    yield "rotary-4d", model("RotaryEmbedding", ins, 1, 23), ins, \
        [rotary(x, cos, sin, pos, 0, 0, 0)]
    # 3-D with num_heads, interleaved, half the head rotated, caches
    # per batch and position
    x = rand(2, 4, 3 * 8)
    cos, sin = rand(2, 4, 2), rand(2, 4, 2)
    ins = [("x", x), ("cos", cos), ("sin", sin)]
    yield "rotary-3d-interleaved", model(
        "RotaryEmbedding", ins, 1, 23, num_heads=3, interleaved=1,
        rotary_embedding_dim=4), ins, [rotary(x, cos, sin, None, 1, 3, 4)]
    q, k, v = rand(2, 3, 4, 8), rand(2, 3, 5, 8), rand(2, 3, 5, 6)
    ins = [("q", q), ("k", k), ("v", v)]
    yield "attention-4d", model("Attention", ins, 1, 23,
                                softmax_precision=1), ins, \
        [attention(q, k, v)[0]]
    # grouped query heads over 3-D operands, a boolean mask, a scale
    q, k, v = rand(2, 4, 4 * 8), rand(2, 6, 2 * 8), rand(2, 6, 2 * 8)
    mask = RNG.random((4, 6)) > 0.3
    mask[:, 0] = True
    ins = [("q", q), ("k", k), ("v", v), ("mask", mask)]
    yield "attention-3d-gqa-bool-mask", model(
        "Attention", ins, 1, 23, q_num_heads=4, kv_num_heads=2,
        scale=0.25), ins, \
        [attention(q, k, v, mask, scale=0.25, qh=4, kvh=2)[0]]
    # causal, an additive mask, past keys and values: every output but
    # the scores
    q, k, v = rand(1, 2, 3, 4), rand(1, 2, 1, 4), rand(1, 2, 1, 4)
    pk, pv = rand(1, 2, 2, 4), rand(1, 2, 2, 4)
    add = rand(1, 1, 3, 3)
    ins = [("q", q), ("k", k), ("v", v), ("mask", add), ("pk", pk),
           ("pv", pv)]
    yield "attention-causal-past", model("Attention", ins, 3, 23,
                                         is_causal=1), ins, \
        list(attention(q, k, v, add, pk, pv, causal=1))


def refusals():
    q = rand(1, 2, 3, 4)
    qkv = [("q", q), ("k", q), ("v", q)]
    yield model("Attention", qkv, 1, 23, softcap=2.0), \
        "[unsupported-attribute]: softcap"
    yield model("Attention", qkv, 4, 23), \
        '[unsupported-output]: output "y3"'
    yield model("Attention", qkv, 1, 23, qk_matmul_output_mode=1), \
        "[unsupported-attribute]: qk_matmul_output_mode 1"
    yield model("Attention", qkv, 1, 24), "[unsupported-version]"
    yield model("Attention", [("q", rand(1, 2, 3, 4)), ("k", rand(1, 2, 5, 4)),
                              ("v", rand(1, 2, 5, 4))], 1, 23, is_causal=1), \
        "[unsupported-attribute]: is_causal with 3 queries over 5 keys"
    yield model("Gelu", [("x", q)], 1, 20, approximate="tanh", foo=1), \
        '[unsupported-attribute]: attribute "foo" of Gelu-20'


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", default=os.environ.get("NNL_BIN") or
                    os.path.join(ROOT, "bin"))
    ap.add_argument("--only", default="")
    a = ap.parse_args()
    bad = n = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name, m, ins, want in cases():
            if a.only not in name:
                continue
            n += 1
            got = run(a.bin, tmp, m, ins, len(want))
            if isinstance(got, str):
                print("FAIL %s: %s" % (name, got))
                bad += 1
                continue
            for i, (g, w) in enumerate(zip(got, want)):
                if g.shape != w.shape or not np.allclose(
                        g, w, rtol=1e-4, atol=1e-5):
                    print("FAIL %s: output %d: %s, wanted %s; largest "
                          "difference %s" % (name, i, g.shape, w.shape,
                                             np.max(np.abs(g - w)) if
                                             g.shape == w.shape else "-"))
                    bad += 1
                    break
            else:
                print("PASS %s" % name)
        for m, want in refusals() if not a.only else ():
            n += 1
            p = imported(a.bin, tmp, m)
            if p.returncode != 1 or want not in p.stderr:
                print("FAIL refusal %s: exit %d: %s" % (
                    want, p.returncode, p.stderr.strip()))
                bad += 1
            else:
                print("PASS refusal %s" % want)
    print("newest_ops: %d of %d pass" % (n - bad, n))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
