#!/usr/bin/python3
"""make_examples: deterministic weights, test inputs and expected outputs
for every NNL example.

Usage: make_examples.py [--check] [NAME...]
The tensors each model needs, with their shapes, are what nnl-parse's
E003 error lists for an empty weight source; their values come from
NumPy's PCG64 seeded by the example's name.  expected_output.npy is
computed by examples/reference.py (NumPy, independent of nnl's C).
Weights above 4 MB are not committed: this script makes them (they are
ignored by git).  --check regenerates everything into a temporary
directory and compares it byte for byte with what is here.
"""
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
BIN = os.environ.get("NNL_BIN") or os.path.join(os.path.dirname(HERE),
                                                 "bin")
sys.path.insert(0, HERE)
import reference  # noqa: E402

# Their weights are tens of megabytes: made here, not committed.
BIG = {"vgg_block", "feature_extractor"}
EXAMPLES = ["model", "mnist", "resnet_block", "vgg_block",
            "binary_classifier", "inception_module", "feature_extractor",
            "layer_zoo", "signal_zoo"]


def expected_tensors(nnl, tmp):
    """(name, shape) of every weight, from nnl-parse's E003 listing."""
    src = open(nnl).read()
    m = re.search(r'weights:\s*"([^"]*)"', src)
    empty = os.path.join(tmp, "empty")
    os.makedirs(empty, exist_ok=True)
    if m and m.group(1).endswith(".npz"):
        np.savez(os.path.join(tmp, "empty.npz"))
        empty = os.path.join(tmp, "empty.npz")
    # the probe beside the empty weights: a model names only files in
    # its own folder (nnl(7) Reads)
    probe = os.path.join(tmp, "probe.nnl")
    open(probe, "w").write(re.sub(r'weights:\s*"[^"]*"',
                                  'weights: "%s"' % os.path.basename(empty),
                                  src))
    r = subprocess.run([os.path.join(BIN, "nnl-parse"), "-w",
                        os.path.join(tmp, "p.weights"), "-m",
                        os.path.join(tmp, "p.manifest.json"), probe],
                       capture_output=True, text=True)
    # a LayerNorm tensor is listed with its other name: "(or ln.bias)"
    out = re.findall(r"^    (\S+) \[([0-9, ]*)\](?: \(or \S+\))?$", r.stderr,
                     re.M)
    if r.returncode == 0 or (not out and "E003" in r.stderr):
        raise SystemExit("make_examples: no E003 listing for " + nnl +
                         "\n" + r.stderr)
    return [(n, [int(d) for d in s.split(",")]) for n, s in out]


def values(rng, name, shape):
    p = name.split(".")[-1]
    if p == "weight":
        fan = shape[0] if len(shape) == 2 else int(np.prod(shape[1:]))
        v = rng.standard_normal(shape) * np.sqrt(1.0 / fan)
    elif p in ("gamma", "running_var"):
        v = rng.uniform(0.5, 1.5, shape)
    else:
        v = rng.standard_normal(shape) * 0.1
    return v.astype(np.float32)


def make(name, out):
    d = os.path.join(out, name)
    nnl = os.path.join(HERE, name, name + ".nnl")
    os.makedirs(d, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        tensors = expected_tensors(nnl, tmp)
    rng = np.random.default_rng(int(hashlib.sha256(name.encode())
                                    .hexdigest()[:8], 16))
    arrays = {n: values(rng, n, s) for n, s in tensors}
    if "weights.npz" in open(nnl).read():
        np.savez(os.path.join(d, "weights.npz"), **arrays)
    else:
        wd = os.path.join(d, "weights")
        os.makedirs(wd, exist_ok=True)
        for n, a in arrays.items():
            np.save(os.path.join(wd, n + ".npy"), a)
    shape = [int(v) for v in re.search(r"Input\(shape:\s*\[([^\]]*)\]",
                                       open(nnl).read()).group(1).split(",")]
    batch = re.search(r"batch:\s*(\d+)", open(nnl).read())
    shape = [int(batch.group(1)) if batch else 1] + shape
    if "normalize_0_1" in open(nnl).read():
        x = rng.uniform(0, 255, shape)
    else:
        x = rng.standard_normal(shape)
    np.save(os.path.join(d, "test_input.npy"), x.astype(np.float32))
    if out != HERE:
        shutil.copy(nnl, d)
    y = reference.run(os.path.join(d, name + ".nnl") if out != HERE else nnl,
                      np.load(os.path.join(d, "test_input.npy")))
    np.save(os.path.join(d, "expected_output.npy"), y.astype(np.float32))


def main():
    check = "--check" in sys.argv
    names = [a for a in sys.argv[1:] if not a.startswith("-")] or EXAMPLES
    if not check:
        for n in names:
            make(n, HERE)
            print("made", n)
        return
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        for n in names:
            make(n, tmp)
            for root, _, files in os.walk(os.path.join(tmp, n)):
                for f in files:
                    if f.endswith(".nnl") or (n in BIG and "weights" in root):
                        continue
                    a = os.path.join(root, f)
                    b = os.path.join(HERE, os.path.relpath(a, tmp))
                    same = os.path.exists(b) and \
                        open(a, "rb").read() == open(b, "rb").read()
                    print(("ok - " if same else "not ok - ") +
                          os.path.relpath(b, HERE))
                    bad += not same
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
