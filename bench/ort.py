#!/usr/bin/python3
"""ort: nnl's generated code against ONNX Runtime, side by side.

For each model of bench/models.py: compile it with `nnc compile --emit
lib` (nnc's defaults), link bench/nnl-timer.c against it, start it and
ONNX Runtime's CPU provider (bench/ort-timer.mjs, onnxruntime-node) as
two processes that each keep the model loaded, and alternate rounds of
timed inferences between them (one warm-up round, then ROUNDS rounds;
which goes first alternates).  Reports medians, the median of the
per-round ratios and its range, GFLOP/s, the percent of this core's FMA
peak (bench/peak.c), the largest difference from PyTorch's output, the
peak memory of `nnc compile` and of both running programs.  Then the
same with 2 threads where nnl builds threads: ORT with intraOpNumThreads
2 against the model compiled with nnc --threads 2.

These are measurements on a shared machine, not tests: ratios measured
in the same run are what to compare.

Usage: ort.py [-r ROUNDS] [-t SECONDS] [MODEL...]   (after make)
"""
import argparse
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import time

import numpy as np

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(TOP, "build", "bench")
ORTDIR = os.path.join(OUT, "ort")


def log(msg):
    print("bench: " + msg, file=sys.stderr, flush=True)


def ensure_ort():
    mod = os.path.join(ORTDIR, "node_modules", "onnxruntime-node")
    if not os.path.isdir(mod):
        if not shutil.which("npm"):
            # Debian's nodejs comes without npm; the image's may have it.
            log("installing npm (apt-get)")
            sudo = [] if os.geteuid() == 0 else ["sudo"]
            subprocess.run(sudo + ["apt-get", "install", "-y", "-qq",
                                   "npm"], check=True)
        log("installing onnxruntime-node (npm, --ignore-scripts)")
        os.makedirs(ORTDIR, exist_ok=True)
        subprocess.run(["npm", "install", "--prefix", ORTDIR,
                        "--ignore-scripts", "--no-audit", "--no-fund",
                        "onnxruntime-node"], check=True,
                       stdout=subprocess.DEVNULL)
    with open(os.path.join(mod, "package.json")) as f:
        return json.load(f)["version"]


def cpu_model():
    with open("/proc/cpuinfo") as f:
        text = f.read()
    m = re.search(r"^model name\s*:\s*(.*)$", text, re.M)
    flags = re.search(r"^flags\s*:\s*(.*)$", text, re.M)
    fl = flags.group(1).split() if flags else []
    simd = [x for x in ("avx512f", "avx2", "fma", "asimd") if x in fl]
    return (m.group(1) if m else platform.machine()), simd


def measure_peak():
    exe = os.path.join(OUT, "peak")
    subprocess.run(["cc", "-O2", "-march=native", "-o", exe,
                    os.path.join(TOP, "bench", "peak.c")], check=True)
    return float(subprocess.run([exe], check=True, capture_output=True,
                                text=True).stdout)


class Timer:
    """A process that keeps a model loaded and times rounds."""

    def __init__(self, argv, env=None):
        self.p = subprocess.Popen(argv, stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, text=True,
                                  env=env)
        line = self.p.stdout.readline()
        if line.strip() != "ready":
            raise RuntimeError("%s did not start" % argv[0])

    def run(self, k):
        self.p.stdin.write("run %d\n" % k)
        self.p.stdin.flush()
        return [float(x) for x in self.p.stdout.readline().split()]

    def rss(self):
        self.p.stdin.write("rss\n")
        self.p.stdin.flush()
        return int(self.p.stdout.readline())

    def close(self):
        self.p.stdin.close()
        self.p.wait()


def timed(argv, cwd):
    """Run argv under /usr/bin/time: (seconds, peak KB)."""
    r = subprocess.run(["/usr/bin/time", "-f", "%e %M"] + argv, cwd=cwd,
                       capture_output=True, text=True)
    if r.returncode != 0:
        sys.stderr.write(r.stderr)
        raise RuntimeError("failed: " + " ".join(argv))
    sec, kb = r.stderr.strip().splitlines()[-1].split()
    return float(sec), int(kb)


def build_nnl(m, d, threads=1):
    """The timer linked with the model built for threads threads (nnc
    --threads, with -pthread past one): (program, compile time)."""
    name = m["name"]
    sfx = "" if threads == 1 else "-t%d" % threads
    lib = os.path.join(d, "lib%s%s.a" % (name, sfx))
    thr = [] if threads == 1 else ["--threads", str(threads)]
    ct = timed([os.path.join(TOP, "bin", "nnc"), "compile", "--emit", "lib"]
               + thr + ["-o", lib, name + ".onnx"], d)
    exe = os.path.join(d, "nnl-timer-" + name + sfx)
    subprocess.run(["cc", "-O2", "-DPFX=" + name, "-o", exe,
                    os.path.join(TOP, "bench", "nnl-timer.c"), lib, "-lm"]
                   + ([] if threads == 1 else ["-pthread"]), check=True)
    return exe, ct


def compare(a, b):
    return float(np.max(np.abs(a.astype(np.float64) - b)))


def race(m, d, nnl_exe, threads, rounds, seconds):
    name = m["name"]
    shape = ",".join(str(x) for x in m["input"])
    env = dict(os.environ, NNL_ORT_DIR=ORTDIR)
    inp = os.path.join(d, name + ".in.bin")
    ref = np.fromfile(os.path.join(d, name + ".ref.bin"), "<f4")
    nnl = Timer([nnl_exe, inp, os.path.join(d, name + ".nnl.bin")])
    ort = Timer(["node", os.path.join(TOP, "bench", "ort-timer.mjs"),
                 os.path.join(d, name + ".onnx"), inp,
                 os.path.join(d, name + ".ort.bin"), str(threads), shape],
                env)
    # Warm-up, and the number of inferences a round takes.
    t1 = statistics.median(nnl.run(3))
    t2 = statistics.median(ort.run(3))
    k = max(3, int(seconds * 1e3 / max(t1, t2, 1e-3)))
    tn, to, ratios = [], [], []
    for r in range(rounds):
        pair = [(nnl, tn), (ort, to)]
        if r % 2:
            pair.reverse()
        med = {}
        for t, acc in pair:
            ts = t.run(k)
            acc.extend(ts)
            med[id(t)] = statistics.median(ts)
        ratios.append(med[id(nnl)] / med[id(ort)])
    res = {
        "nnl": statistics.median(tn), "ort": statistics.median(to),
        "ratio": statistics.median(ratios), "rmin": min(ratios),
        "rmax": max(ratios), "k": k,
        "nnl_rss": nnl.rss(), "ort_rss": ort.rss(),
        "nnl_diff": compare(np.fromfile(os.path.join(
            d, name + ".nnl.bin"), "<f4"), ref),
        "ort_diff": compare(np.fromfile(os.path.join(
            d, name + ".ort.bin"), "<f4"), ref),
    }
    nnl.close()
    ort.close()
    return res


def nnc_threads():
    """Whether nnc builds multi-threaded code (--threads)."""
    r = subprocess.run([os.path.join(TOP, "bin", "nnc"), "compile",
                        "--help"], capture_output=True, text=True)
    return "--threads" in (r.stdout + r.stderr)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-r", "--rounds", type=int, default=7)
    ap.add_argument("-t", "--seconds", type=float, default=0.5,
                    help="length of one timed round of one runtime")
    ap.add_argument("models", nargs="*")
    a = ap.parse_args()
    os.makedirs(OUT, exist_ok=True)
    ver = ensure_ort()
    d = os.path.join(OUT, "models")
    if not os.path.exists(os.path.join(d, "models.json")):
        log("exporting models with PyTorch")
        subprocess.run(["/usr/bin/python3",
                        os.path.join(TOP, "bench", "models.py"), d],
                       check=True)
    with open(os.path.join(d, "models.json")) as f:
        models = [m for m in json.load(f)
                  if not a.models or m["name"] in a.models]
    cpu, simd = cpu_model()
    peak = measure_peak()
    print("machine: %s (%s), %d cores; one-core FMA peak measured: "
          "%.1f GFLOP/s" % (cpu, " ".join(simd), os.cpu_count(), peak))
    print("ONNX Runtime %s (onnxruntime-node, CPU provider); nnl: nnc "
          "compile --emit lib defaults; %d rounds, medians"
          % (ver, a.rounds))
    built = {}
    for m in models:
        log("compiling " + m["name"])
        built[m["name"]] = build_nnl(m, d)
    head = ("%-14s %4s %9s %9s %6s %12s %8s %7s %9s %9s"
            % ("model", "thr", "nnl ms", "ORT ms", "nnl/ORT", "range",
               "GFLOP/s", "%peak", "diff nnl", "diff ORT"))
    thread_counts = [1, 2]
    threads_ok = nnc_threads()
    rows = []
    for threads in thread_counts:
        print()
        print(head)
        for m in models:
            if threads > 1 and not threads_ok:
                break
            exe = built[m["name"]][0]
            if threads > 1:
                log("compiling %s for %d threads" % (m["name"], threads))
                exe = build_nnl(m, d, threads)[0]
            log("timing %s, %d thread(s)" % (m["name"], threads))
            r = race(m, d, exe, threads, a.rounds, a.seconds)
            gf = 2 * m["macs"] / (r["nnl"] * 1e6)
            print("%-14s %4d %9.3f %9.3f %6.2f %5.2f-%-6.2f %8.1f %6.1f%% "
                  "%9.2e %9.2e" % (m["name"], threads, r["nnl"], r["ort"],
                                   r["ratio"], r["rmin"], r["rmax"], gf,
                                   100 * gf / (peak * threads),
                                   r["nnl_diff"], r["ort_diff"]))
            rows.append((m, threads, r))
            sys.stdout.flush()
        if threads > 1 and not threads_ok:
            print("(nnl builds no threads yet: no %d-thread row)" % threads)
    print()
    print("%-14s %10s %10s %12s %12s" % ("model", "compile s",
                                         "compile MB", "nnl RSS MB",
                                         "ORT RSS MB"))
    for m in models:
        ct = built[m["name"]][1]
        r = next(r for mm, t, r in rows if mm is m and t == 1)
        print("%-14s %10.2f %10.1f %12.1f %12.1f"
              % (m["name"], ct[0], ct[1] / 1024, r["nnl_rss"] / 1024,
                 r["ort_rss"] / 1024))


if __name__ == "__main__":
    main()
