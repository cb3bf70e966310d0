#!/usr/bin/python3
"""layers: where a compiled model's time goes, node by node.

For each model of bench/models.py (after `make bench` exported them to
build/bench/models): compile it with `nnc compile --emit c`, wrap every
kernel call of the generated C in a clock, link it with
bench/nnl-timer.c, run it ROUNDS times and keep each node's fastest
time (the minimum filters out what other processes cost it on a shared
machine).  Prints the time by kind of node (convolutions by filter
size, depthwise and 1x1 apart) with GFLOP/s where the node multiplies,
then the slowest nodes.  The sum of the minima is below a whole run's
time: it is the profile's shape that counts, not its total.

With -j N the model is compiled with nnc --threads N: comparing a
run with -j 2 to one without shows which kernels the threads speed up.

Usage: layers.py [-r ROUNDS] [-n TOP] [-j THREADS] [MODEL...]
(after make bench)
"""
import argparse
import json
import os
import re
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODELS = os.path.join(TOP, "build", "bench", "models")
OUT = os.path.join(TOP, "build", "bench", "layers")

CALL = re.compile(r"^(\t+)nnl_k_(\w+)\((\w+), ")
NOTE = re.compile(r"/\* (.*) = (\w+)\(\.\.\.\) \*/")


def instrument(src):
    """The C with each kernel call timed; the calls' (kernel, params,
    label) in order."""
    out, calls, label = [], [], "?"
    for line in src.split("\n"):
        m = NOTE.search(line)
        if m:
            label = m.group(2)
        m = CALL.match(line)
        if not m:
            out.append(line)
            continue
        i = len(calls)
        calls.append((m.group(2), m.group(3), label))
        out.append("%s{ double t_ = lay_now(); %s lay_put(%d, "
                   "lay_now() - t_); }" % (m.group(1), line.strip(), i))
    head = ("#include <stdio.h>\n#include <time.h>\n"
            "static double lay_t[%d];\n"
            "static double lay_now(void) { struct timespec ts; "
            "clock_gettime(CLOCK_MONOTONIC, &ts); "
            "return ts.tv_sec + ts.tv_nsec / 1e9; }\n"
            "static void lay_put(int i, double t) { "
            "if (!lay_t[i] || t < lay_t[i]) lay_t[i] = t; }\n"
            "__attribute__((destructor)) static void lay_dump(void) { "
            "for (int i = 0; i < %d; i++) "
            "fprintf(stderr, \"%%d %%.9f\\n\", i, lay_t[i]); }\n"
            % (max(len(calls), 1), len(calls)))
    return "#define _POSIX_C_SOURCE 200809L\n" + head + "\n".join(out), calls


def params(src, name):
    m = re.search(r"static const int64_t %s\[\] = \{([^}]*)\}" %
                  re.escape(name), src)
    return [int(x) for x in re.findall(r"-?\d+", m.group(1))] if m else []


def classify(kernel, p):
    """(kind, multiply-adds, shape note) of one node."""
    if kernel.startswith("conv2d") and len(p) >= 19:
        _, n, c, h, w, o, oh, ow, kh, kw, sh, sw = p[:12]
        g = p[18]
        kind = ("depthwise %dx%d" % (kh, kw) if g == c == o else
                "conv %dx%d" % (kh, kw))
        macs = n * o * oh * ow * (c // g) * kh * kw
        return kind, macs, "%d->%d %dx%d /%d" % (c, o, h, w, sh)
    if kernel.startswith("gemm") and len(p) >= 3:
        return "gemm", p[0] * p[1] * p[2], "%dx%dx%d" % tuple(p[:3])
    if kernel.startswith("matmul") and len(p) >= 4 and len(p) >= 4 + p[3]:
        nb = 1
        for d in p[4:4 + p[3]]:
            nb *= d
        return ("matmul", nb * p[0] * p[1] * p[2],
                "%dx%dx%dx%d" % (nb, p[0], p[1], p[2]))
    return kernel, 0, ""


def profile(name, rounds, threads=1):
    os.makedirs(OUT, exist_ok=True)
    onnx = os.path.join(MODELS, name + ".onnx")
    sfx = "" if threads == 1 else "-t%d" % threads
    c = os.path.join(OUT, name + sfx + ".c")
    thr = [] if threads == 1 else ["--threads", str(threads)]
    subprocess.run([os.path.join(TOP, "bin", "nnc"), "compile", "--emit",
                    "c"] + thr + ["-o", c, onnx], check=True)
    src = open(c).read()
    text, calls = instrument(src)
    pfx = re.search(r"^int\s+(\w+)_infer\(", src, re.M)
    if not pfx:
        raise RuntimeError("%s: no _infer in the generated C" % name)
    ic = os.path.join(OUT, name + sfx + "-timed.c")
    with open(ic, "w") as f:
        f.write(text)
    # the generated C includes SOURCE.weights beside it (__FILE__)
    if os.path.exists(c + ".weights"):
        if os.path.lexists(ic + ".weights"):
            os.remove(ic + ".weights")
        os.symlink(os.path.basename(c) + ".weights", ic + ".weights")
    exe = os.path.join(OUT, name + sfx + "-timed")
    subprocess.run(["cc", "-O2", "-march=native", "-w", "-I", OUT,
                    "-DPFX=" + pfx.group(1), "-o", exe,
                    os.path.join(TOP, "bench", "nnl-timer.c"), ic, "-lm"]
                   + ([] if threads == 1 else ["-pthread"]), check=True)
    r = subprocess.run([exe, os.path.join(MODELS, name + ".in.bin"),
                        os.path.join(OUT, name + ".out.bin")],
                       input="run %d\n" % rounds, capture_output=True,
                       text=True, check=True)
    t = {}
    for line in r.stderr.split("\n"):
        f = line.split()
        if len(f) == 2 and f[0].isdigit():
            t[int(f[0])] = float(f[1]) * 1e3
    rows = []
    for i, (kernel, pname, label) in enumerate(calls):
        kind, macs, note = classify(kernel, params(src, pname))
        if kind.startswith("conv 1x1"):
            kind = "conv 1x1"
        rows.append((i, label, kind, note, t.get(i, 0.0), macs))
    return rows


def report(name, rows, top):
    total = sum(r[4] for r in rows) or 1e-9
    print("%s: %.2f ms, the sum of %d nodes' fastest times" %
          (name, total, len(rows)))
    kinds = {}
    for r in rows:
        k = kinds.setdefault(r[2], [0, 0.0, 0])
        k[0] += 1
        k[1] += r[4]
        k[2] += r[5]
    print("  %-16s %5s %9s %6s %8s" % ("kind", "nodes", "ms", "%",
                                       "GFLOP/s"))
    for kind, (n, ms, macs) in sorted(kinds.items(), key=lambda x: -x[1][1]):
        gf = "%8.1f" % (2 * macs / ms / 1e6) if macs and ms else ""
        print("  %-16s %5d %9.3f %6.1f %s" % (kind, n, ms, 100 * ms / total,
                                              gf))
    print("  slowest nodes:")
    for r in sorted(rows, key=lambda x: -x[4])[:top]:
        gf = "%6.1f GFLOP/s" % (2 * r[5] / r[4] / 1e6) if r[5] and r[4] \
            else ""
        print("  %4d %-12s %-16s %-20s %8.3f ms %s" % (r[0], r[1], r[2],
                                                     r[3], r[4], gf))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-r", "--rounds", type=int, default=100)
    ap.add_argument("-n", "--top", type=int, default=8)
    ap.add_argument("-j", "--threads", type=int, default=1)
    ap.add_argument("model", nargs="*")
    a = ap.parse_args()
    try:
        with open(os.path.join(MODELS, "models.json")) as f:
            names = [m["name"] for m in json.load(f)]
    except OSError:
        sys.exit("layers: no models in %s: run make bench first" % MODELS)
    for name in a.model or names:
        report(name, profile(name, a.rounds, a.threads), a.top)


if __name__ == "__main__":
    main()
