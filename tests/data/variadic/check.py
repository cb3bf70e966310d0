#!/usr/bin/python3
"""check.py BIN DIR ops|dense: nodes of many inputs through nnl.

ops: one ONNX model with a Concat of 40 inputs (sizes 1 to 3 along
axis 1), a Sum of 20, a Max of 17, a Min of 18 and a Mean of 19, run
by nnl-run, compiled by nnc compile, and through nnl-emit-js, the
WebIDL stub's recording and nnc compile: every output equal to NumPy's
(within 1e-5 relative for the sums, exact otherwise).
dense: a DenseNet-like block (18 layers, each a BatchNorm, ReLU and a
3x3 Conv of 2 channels over the concat of every earlier output: a final
Concat of 19 inputs), random weights, exported by PyTorch at opset 17
and compiled by nnc: the output within 1e-4 relative of PyTorch's.
Prints what it compared and exits 0, or says what differs and exits 1.
"""
import os
import subprocess
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.dirname(os.path.abspath(__file__)))))


def sh(args, cwd, **kw):
    return subprocess.run(args, cwd=cwd, check=True, **kw)


def compiled(bin_, d, src, feed, shapes, dt=np.float32):
    """Outputs of the program nnc compiles from src, fed feed."""
    sh([os.path.join(bin_, "nnc"), "compile", "--emit", "exe",
        "--allow-outside", "-o", "prog", src], d)
    raw = b"".join(np.ascontiguousarray(v).tobytes() for v in feed)
    buf = sh([os.path.join(d, "prog")], d, input=raw,
             stdout=subprocess.PIPE).stdout
    outs, off = [], 0
    for s in shapes:
        n = int(np.prod(s)) * 4
        outs.append(np.frombuffer(buf[off:off + n], dt).reshape(s))
        off += n
    if off != len(buf):
        raise SystemExit("%d bytes of output, wanted %d" % (len(buf), off))
    return outs


def ops(bin_, d):
    import onnx
    from onnx import TensorProto, helper
    rng = np.random.default_rng(5)
    ins, feed, nodes, want = [], [], [], []
    cat = ["part%d" % i for i in range(40)]
    for i, n in enumerate(cat):
        feed.append(rng.standard_normal((2, i % 3 + 1, 3)).astype(np.float32))
    nodes.append(helper.make_node("Concat", cat, ["cat"], axis=1))
    want.append(np.concatenate(feed, axis=1))
    groups = []
    for op, k, f in (("Sum", 20, np.sum), ("Max", 17, np.max),
                     ("Min", 18, np.min), ("Mean", 19, np.mean)):
        names = ["%s%d" % (op.lower(), i) for i in range(k)]
        vals = [rng.standard_normal((3, 4)).astype(np.float32)
                for _ in names]
        groups += names
        feed += vals
        nodes.append(helper.make_node(op, names, [op.lower()]))
        want.append(f(np.stack(vals).astype(np.float64), axis=0))
    for n, v in zip(cat + groups, feed):
        ins.append(helper.make_tensor_value_info(n, TensorProto.FLOAT,
                                                 v.shape))
    outs = [helper.make_tensor_value_info(n.output[0], TensorProto.FLOAT,
                                          None) for n in nodes]
    g = helper.make_graph(nodes, "variadic", ins, outs)
    onnx.save(helper.make_model(g, opset_imports=[
        helper.make_opsetid("", 13)]), os.path.join(d, "m.onnx"))
    names = [n.output[0] for n in nodes]
    shapes = [w.shape for w in want]
    sh([os.path.join(bin_, "nnl-onnx-import"), "-o", "g.json", "m.onnx"], d)
    for n, v in zip(cat + groups, feed):
        np.save(os.path.join(d, n + ".npy"), v)
    sh([os.path.join(bin_, "nnl-run"), "-d", "run", "g.json"] +
       ["%s=%s.npy" % (n, n) for n in cat + groups], d,
       stdout=subprocess.DEVNULL)
    runs = {"nnl-run": [np.load(os.path.join(d, "run", n + ".npy"))
                        for n in names],
            "nnc compile": compiled(bin_, d, "m.onnx", feed, shapes)}
    sh([os.path.join(bin_, "nnl-emit-js"), "-o", "m.js", "g.json"], d)
    rec = sh(["node", os.path.join(ROOT, "tests", "js", "record.mjs"),
              "m.js"], d, stdout=subprocess.PIPE).stdout
    with open(os.path.join(d, "recorded.json"), "wb") as f:
        f.write(rec)
    runs["emit-js"] = compiled(bin_, d, "recorded.json", feed, shapes)
    for how, got in runs.items():
        for n, g_, w in zip(names, got, want):
            ok = (g_.shape == w.shape and
                  (np.array_equal(g_, w) if n in ("cat", "max", "min") else
                   np.allclose(g_, w, rtol=1e-5, atol=1e-6)))
            if not ok:
                print("%s: %s differs from NumPy" % (how, n))
                return 1
    print("concat of 40, sum of 20, max of 17, min of 18, mean of 19: "
          "%d runs agree" % len(runs))
    return 0


def dense(bin_, d):
    import torch
    torch.manual_seed(3)

    class Block(torch.nn.Module):
        def __init__(self, c, growth, layers):
            super().__init__()
            self.layers = torch.nn.ModuleList()
            for i in range(layers):
                self.layers.append(torch.nn.Sequential(
                    torch.nn.BatchNorm2d(c + i * growth),
                    torch.nn.ReLU(),
                    torch.nn.Conv2d(c + i * growth, growth, 3, padding=1,
                                    bias=False)))

        def forward(self, x):
            feats = [x]
            for layer in self.layers:
                feats.append(layer(torch.cat(feats, 1)))
            return torch.cat(feats, 1)

    m = Block(4, 2, 18).eval()
    for mod in m.modules():
        if isinstance(mod, torch.nn.BatchNorm2d):
            mod.running_mean.uniform_(-0.5, 0.5)
            mod.running_var.uniform_(0.5, 1.5)
            mod.weight.data.uniform_(0.5, 1.5)
    x = torch.randn(1, 4, 6, 6)
    with torch.no_grad():
        want = m(x).numpy()
    torch.onnx.export(m, x, os.path.join(d, "dense.onnx"), opset_version=17,
                      input_names=["x"], output_names=["y"])
    got = compiled(bin_, d, "dense.onnx", [x.numpy()], [want.shape])[0]
    err = np.max(np.abs(got - want) / (np.abs(want) + 1e-3))
    if not np.allclose(got, want, rtol=1e-4, atol=1e-5):
        print("dense block: largest relative difference %g" % err)
        return 1
    print("dense block, concat of 19: agrees with PyTorch")
    return 0


if __name__ == "__main__":
    bin_, d, what = sys.argv[1], sys.argv[2], sys.argv[3]
    sys.exit(ops(bin_, d) if what == "ops" else dense(bin_, d))
