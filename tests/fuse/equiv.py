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
3. 3 x 3 convolutions of 64 channels get Winograd's F(2x2, 3x3) filter
   (-e winograd), one of 16 keeps its own; through nnl-run and through
   C compiled plain and for this host's vectors, each equals NumPy's
   direct convolution within 1e-5.
4. Convolutions on small images with long sums get their filters in
   panels of 32 output channels (-e panels), one at 32 x 32 keeps its
   own; through nnl-run and compiled C each equals NumPy within 1e-5.
5. swish (mul(x, sigmoid(x))), gelu's erf pattern, tanh and
   hardSigmoid after a conv2d, matmul or gemm fuse into it; unfused and
   fused through nnl-run, fused through compiled C, each equals NumPy
   within 1e-5.
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


def sanitized(fl):
    """check-asan's flags (NNL_TEST_CFLAGS) for the -march=native build
    of a graph; its portable build, the same C, goes without them."""
    return CFLAGS if fl else []
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

    def conv_case(name, c, o, h, k, st, pad):
        """A conv2d + bias + relu of o outputs from c channels at h x h,
        its weights in a file, through nnl-fuse -e winograd -e panels -e
        ihwo: (the fused graph's path, its conv node, its filter, what
        nnl-fuse said, an input, NumPy's output in double)."""
        wf = (RNG.standard_normal((o, c, k, k)) * 0.05).astype(np.float32)
        b = RNG.standard_normal(o).astype(np.float32)
        np.save(os.path.join(tmp, name + "f.npy"), wf)
        np.save(os.path.join(tmp, name + "b.npy"), b)
        subprocess.run([os.path.join(BIN, "nnl-pack-weights"), "pack", "-o",
                        os.path.join(tmp, name + ".weights"),
                        os.path.join(tmp, name + "f.npy"),
                        os.path.join(tmp, name + "b.npy")], check=True)
        graph = {
            "format": "webnn-graph-json", "version": 1, "name": name,
            "weights": {"file": name + ".weights",
                        "manifest": name + ".manifest.json"},
            "inputs": {"x": {"dataType": "float32", "shape": [1, c, h, h]}},
            "consts": {
                name + "f": {"dataType": "float32", "shape": [o, c, k, k],
                             "init": {"kind": "weights", "ref": name + "f"}},
                name + "b": {"dataType": "float32", "shape": [o],
                             "init": {"kind": "weights", "ref": name + "b"}}},
            "nodes": [
                {"id": "c", "op": "conv2d", "inputs": ["x", name + "f"],
                 "options": {"padding": pad, "strides": [st, st],
                             "bias": name + "b"}},
                {"id": "y", "op": "relu", "inputs": ["c"], "options": {}}],
            "outputs": {"y": "y"}}
        json.dump(graph, open(os.path.join(tmp, name + ".json"), "w"))
        fp = os.path.join(tmp, name + ".fused.json")
        r = subprocess.run("cd %s && %s/nnl-shape-infer %s.json | %s/nnl-fuse "
                           "-v -e winograd -e panels -e ihwo -o %s" % (
                               tmp, BIN, name, BIN, fp),
                           shell=True, capture_output=True, text=True)
        fused = json.load(open(fp))
        conv = fused["nodes"][0]
        x = RNG.standard_normal((1, c, h, h)).astype(np.float32)
        ref = np.maximum(refs.conv2d(x.astype(np.float64),
                                     wf.astype(np.float64),
                                     {"padding": pad, "strides": [st, st]}) +
                         b[None, :, None, None], 0)
        return (fp, conv, fused["consts"][conv["inputs"][1]], r.stderr, x,
                ref)

    def runs_equal(name, fp, x, ref):
        """The fused graph through nnl-run and through C compiled plain
        and for this host's widest vectors (the scratch is planned by
        libnnl, whatever width the code is built for) equals ref within
        1e-5: the number that do not."""
        n = 0
        got = run(fp, {"x": x}, tmp, name + ".run")["y"]
        d = np.abs(got - ref).max()
        print(("ok - " if d <= 1e-5 else "not ok - ") +
              "%s: nnl-run equals NumPy (max diff %.2e)" % (name, d))
        n += d > 1e-5
        src = os.path.join(tmp, name + ".c")
        subprocess.run("%s/nnl-plan-memory %s | %s/nnl-emit-c -m -o %s" % (
            BIN, fp, BIN, src), shell=True, check=True)
        for fl in ([], ["-march=native"]):
            subprocess.run(["cc", "-O2"] + fl + sanitized(fl) +
                           ["-o", src[:-2], src, "-lm"], check=True)
            out = subprocess.run([src[:-2]], input=x.tobytes(),
                                 capture_output=True, check=True).stdout
            got = np.frombuffer(out, np.float32).reshape(ref.shape)
            d = np.abs(got - ref).max()
            print(("ok - " if d <= 1e-5 else "not ok - ") +
                  "%s: compiled C %s equals NumPy (max diff %.2e)" %
                  (name, " ".join(fl) or "-O2", d))
            n += d > 1e-5
        return n

    # Winograd's F(2x2, 3x3): two 3 x 3 convolutions of 64 channels (an
    # even and an odd output, symmetric and asymmetric padding) and a
    # twin of 16 channels, which keeps its filter
    for name, c, h, pad in (("w16", 64, 16, [1, 1, 1, 1]),
                            ("w15", 64, 17, [0, 1, 1, 0]),
                            ("wsmall", 16, 16, [1, 1, 1, 1])):
        fp, conv, f, said, x, ref = conv_case(name, c, c, h, 3, 1, pad)
        want = c >= 24
        got = (conv.get("winograd") == "2x2" and
               f["shape"] == [4, 4, c, c] and
               conv["options"]["filterLayout"] == "hwio" and
               "as Winograd's F(2x2, 3x3)" in said)
        print(("ok - " if got == want else "not ok - ") +
              "%s: %d channels %s Winograd's filter" %
              (name, c, "get" if want else "keep"))
        bad += got != want
        bad += runs_equal(name, fp, x, ref)

    # Filters in panels of 32 output channels (-e panels): convolutions
    # whose product the C kernels compute as [P, O] (small images, sums
    # of 256 and more), with whole and ragged panels, and a twin at
    # 32 x 32 outputs, which keeps its filter
    for name, c, o, h, k, st, pad in (
            ("p96", 64, 96, 14, 3, 2, [1, 1, 1, 1]),
            ("p40", 40, 40, 9, 3, 1, [0, 1, 1, 0]),
            ("p1x1", 320, 70, 7, 1, 1, [0, 0, 0, 0]),
            ("pbig", 64, 64, 32, 1, 1, [0, 0, 0, 0])):
        fp, conv, f, said, x, ref = conv_case(name, c, o, h, k, st, pad)
        want = name != "pbig"
        got = (conv.get("panels") == o and
               f["shape"] == [c, k, k, (o + 31) // 32 * 32] and
               conv["options"]["filterLayout"] == "ihwo" and
               "in panels of 32 output channels" in said)
        print(("ok - " if got == want else "not ok - ") +
              "%s: %s the filter in panels" %
              (name, "stores" if want else "does not store"))
        bad += got != want
        bad += runs_equal(name, fp, x, ref)
    # the activations the epilogue takes besides relu and clamp: a
    # conv2d or a product and the nodes an exporter writes after it,
    # through nnl-fuse (which must leave one node), nnl-run and C
    # compiled plain and for this host: NumPy's unfused result in
    # double, within 1e-5
    import math
    erf = np.vectorize(math.erf)

    def sig(v):
        return 1 / (1 + np.exp(-v))

    def act_case(name, prod, tail, want, fn):
        wsh = (40, 24) if prod != "conv2d" else (24, 8, 3, 3)
        wv = (RNG.standard_normal(wsh) * 0.3).astype(np.float32)
        xsh = (8, 40) if prod != "conv2d" else (1, 8, 10, 10)
        consts = {"w": {"dataType": "float32", "shape": list(wsh),
                        "init": {"kind": "inlineBytes",
                                 "bytes": list(wv.tobytes())}}}
        for k, v in (("r2", 2 ** 0.5), ("one", 1.0), ("half", 0.5)):
            consts[k] = {"dataType": "float32", "shape": [],
                         "init": {"kind": "inlineBytes", "bytes": list(
                             np.float32(v).tobytes())}}
        opts = {"padding": [1, 1, 1, 1]} if prod == "conv2d" else {}
        graph = {"format": "webnn-graph-json", "version": 1,
                 "inputs": {"x": {"dataType": "float32",
                                  "shape": list(xsh)}},
                 "consts": consts,
                 "nodes": [{"id": "p", "op": prod, "inputs": ["x", "w"],
                            "options": opts}] + tail,
                 "outputs": {"y": "y"}}
        gp = os.path.join(tmp, name + ".json")
        fp = os.path.join(tmp, name + ".fused.json")
        json.dump(graph, open(gp, "w"))
        subprocess.run("%s/nnl-shape-infer %s | %s/nnl-fuse -o %s" % (
            BIN, gp, BIN, fp), shell=True, check=True)
        fused = json.load(open(fp))
        got = [n["op"] + "+" + n.get("activation", {}).get("op", "")
               for n in fused["nodes"]]
        n = got != [prod + "+" + want]
        print(("not ok - " if n else "ok - ") + "%s: %s" % (name, got))
        x = RNG.standard_normal(xsh).astype(np.float32) * 3
        if prod == "conv2d":
            p = refs.conv2d(x.astype(np.float64), wv.astype(np.float64),
                            opts)
        else:
            p = x.astype(np.float64) @ wv.astype(np.float64)
        ref = fn(p)
        for tag, g in (("unfused", gp), ("fused", fp)):
            r = run(g, {"x": x}, tmp, name + tag)["y"]
            ok = np.allclose(r, ref, rtol=1e-5, atol=1e-5)
            print(("ok - " if ok else "not ok - ") +
                  "%s: nnl-run %s equals NumPy (max diff %.2e)" %
                  (name, tag, np.abs(r - ref).max()))
            n += not ok
        src = os.path.join(tmp, name + ".c")
        subprocess.run("%s/nnl-plan-memory %s | %s/nnl-emit-c -m -o %s" % (
            BIN, fp, BIN, src), shell=True, check=True)
        for fl in ([], ["-march=native"]):
            subprocess.run(["cc", "-O2"] + fl + sanitized(fl) +
                           ["-o", src[:-2], src, "-lm"], check=True)
            out = subprocess.run([src[:-2]], input=x.tobytes(),
                                 capture_output=True, check=True).stdout
            r = np.frombuffer(out, np.float32).reshape(ref.shape)
            ok = np.allclose(r, ref, rtol=1e-5, atol=1e-5)
            print(("ok - " if ok else "not ok - ") +
                  "%s: compiled C %s equals NumPy (max diff %.2e)" %
                  (name, " ".join(fl) or "-O2", np.abs(r - ref).max()))
            n += not ok
        return n

    def node(i, op, *ins, **o):
        return {"id": i, "op": op, "inputs": list(ins), "options": o}

    bad += act_case("swish-conv", "conv2d",
                    [node("s", "sigmoid", "p"), node("y", "mul", "p", "s")],
                    "swish", lambda v: v * sig(v))
    bad += act_case("gelu-matmul", "matmul",
                    [node("d", "div", "p", "r2"), node("e", "erf", "d"),
                     node("a", "add", "e", "one"),
                     node("m", "mul", "p", "a"),
                     node("y", "mul", "half", "m")], "gelu",
                    lambda v: 0.5 * v * (1 + erf(v / 2 ** 0.5)))
    bad += act_case("tanh-gemm", "gemm", [node("y", "tanh", "p")], "tanh",
                    np.tanh)
    bad += act_case("hardsigmoid-conv", "conv2d",
                    [node("y", "hardSigmoid", "p", alpha=0.2, beta=0.5)],
                    "hardSigmoid", lambda v: np.clip(0.2 * v + 0.5, 0, 1))
print("fuse: %d failed" % bad)
sys.exit(1 if bad else 0)
