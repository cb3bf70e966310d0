#!/usr/bin/python3
"""equiv: fused graphs compute what the unfused ones do.

Usage: equiv.py
1. For every tests/golden/fuse case, nnl-run on the .in.json and on the
   .out.json (nnl-fuse's result) with the same random inputs: the
   outputs agree within 1e-5.
2. A conv2d + batchNormalization + relu graph of real size, with its
   weights in a weights file: nnl-fuse makes one conv2d with a fused
   relu, and its output (through nnl-run and through compiled C) equals
   a NumPy/PyTorch computation of the unfused graph within 1e-5.
"""
import glob
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tests", "ops"))
import refs  # noqa: E402

BIN = os.environ.get("NNL_BIN") or os.path.join(ROOT, "bin")
# Extra flags for the generated C (make check-asan: the sanitizers).
CFLAGS = os.environ.get("NNL_TEST_CFLAGS", "").split()
RNG = np.random.default_rng(3)
bad = 0


def run(graph, inputs, tmp, tag):
    d = os.path.join(tmp, tag)
    os.makedirs(d, exist_ok=True)
    args = []
    for n, a in inputs.items():
        p = os.path.join(tmp, n + ".npy")
        np.save(p, a)
        args.append("%s=%s" % (n, p))
    subprocess.run([os.path.join(BIN, "nnl-run"), "-d", d, graph] + args,
                   check=True, capture_output=True)
    g = json.load(open(graph))
    return {o: np.load(os.path.join(d, o + ".npy")) for o in g["outputs"]}


with tempfile.TemporaryDirectory() as tmp:
    for fin in sorted(glob.glob(os.path.join(ROOT, "tests/golden/fuse/*.in.json"))):
        g = json.load(open(fin))
        inputs = {n: RNG.standard_normal(d["shape"]).astype(np.float32)
                  for n, d in g["inputs"].items()}
        a = run(fin, inputs, tmp, "a")
        b = run(fin.replace(".in.", ".out."), inputs, tmp, "b")
        ok = all(np.allclose(a[k], b[k], rtol=1e-5, atol=1e-5) for k in a)
        print(("ok - " if ok else "not ok - ") + os.path.basename(fin))
        bad += not ok

    # conv2d + batchNormalization + relu with packed weights
    w = RNG.standard_normal((16, 8, 3, 3)).astype(np.float32) * 0.2
    mean = RNG.standard_normal(16).astype(np.float32)
    var = RNG.uniform(0.5, 2, 16).astype(np.float32)
    gamma = RNG.standard_normal(16).astype(np.float32)
    beta = RNG.standard_normal(16).astype(np.float32)
    for n, v in dict(w=w, mean=mean, var=var, gamma=gamma, beta=beta).items():
        np.save(os.path.join(tmp, n + ".npy"), v)
    subprocess.run([os.path.join(BIN, "nnl-pack-weights"), "pack", "-o",
                    os.path.join(tmp, "cbr.weights")] +
                   [os.path.join(tmp, n + ".npy") for n in
                    ("w", "mean", "var", "gamma", "beta")], check=True)
    graph = {
        "format": "webnn-graph-json", "version": 1, "name": "cbr",
        "weights": {"file": "cbr.weights", "manifest": "cbr.manifest.json"},
        "inputs": {"x": {"dataType": "float32", "shape": [1, 8, 10, 10]}},
        "consts": {n: {"dataType": "float32", "shape": list(v.shape),
                       "init": {"kind": "weights", "ref": n}}
                   for n, v in dict(w=w, mean=mean, var=var, gamma=gamma,
                                    beta=beta).items()},
        "nodes": [
            {"id": "c", "op": "conv2d", "inputs": ["x", "w"],
             "options": {"padding": [1, 1, 1, 1]}},
            {"id": "bn", "op": "batchNormalization",
             "inputs": ["c", "mean", "var"],
             "options": {"scale": "gamma", "bias": "beta", "epsilon": 1e-5}},
            {"id": "y", "op": "relu", "inputs": ["bn"], "options": {}}],
        "outputs": {"y": "y"}}
    gp = os.path.join(tmp, "cbr.json")
    json.dump(graph, open(gp, "w"))
    fp = os.path.join(tmp, "cbr.fused.json")
    r = subprocess.run("cd %s && %s/nnl-shape-infer cbr.json | %s/nnl-fuse -v "
                       "-o cbr.fused.json" % (tmp, BIN, BIN), shell=True,
                       capture_output=True, text=True)
    print("# " + r.stderr.strip().replace("\n", "\n# "))
    fused = json.load(open(fp))
    ops = [(n["op"], n.get("activation", {}).get("op")) for n in fused["nodes"]]
    one = ops == [("conv2d", "relu")]
    print(("ok - " if one else "not ok - ") +
          "conv2d + batchNormalization + relu fuse into %s" % ops)
    bad += not one
    x = RNG.standard_normal((1, 8, 10, 10)).astype(np.float32)
    ref = refs.conv2d(x.astype(np.float64), w.astype(np.float64),
                      {"padding": [1, 1, 1, 1]})
    k = (gamma / np.sqrt(var.astype(np.float64) + 1e-5))[None, :, None, None]
    ref = np.maximum((ref - mean[None, :, None, None]) * k +
                     beta[None, :, None, None], 0)
    got = run(fp, {"x": x}, tmp, "f")["y"]
    d = np.abs(got - ref).max()
    print(("ok - " if d <= 1e-5 else "not ok - ") +
          "fused nnl-run equals NumPy's unfused result (max diff %.2e)" % d)
    bad += d > 1e-5
    src = os.path.join(tmp, "cbr.c")
    subprocess.run("%s/nnl-plan-memory %s | %s/nnl-emit-c -m -o %s" % (
        BIN, fp, BIN, src), shell=True, check=True)
    subprocess.run(["cc", "-O2"] + CFLAGS + ["-o", src[:-2], src, "-lm"],
                   check=True)
    out = subprocess.run([src[:-2]], input=x.tobytes(), capture_output=True,
                         check=True).stdout
    got = np.frombuffer(out, np.float32).reshape(ref.shape)
    d = np.abs(got - ref).max()
    print(("ok - " if d <= 1e-5 else "not ok - ") +
          "fused compiled C equals NumPy's unfused result (max diff %.2e)" % d)
    bad += d > 1e-5
print("fuse: %d failed" % bad)
sys.exit(1 if bad else 0)
