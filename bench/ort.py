#!/usr/bin/python3
"""ort: nnl's generated code against ONNX Runtime, side by side.

For each model of bench/models.py: compile it with `nnc compile --emit
lib` (nnc's defaults), link bench/nnl-timer.c against it, start it and
ONNX Runtime's CPU provider (bench/ort-timer.mjs, onnxruntime-node) as
two processes that each keep the model loaded, and alternate rounds of
timed inferences between them (one warm-up round, then ROUNDS rounds;
the order turns each round).  Then the same with 2 threads where nnl
builds threads: ORT with intraOpNumThreads 2 against the model compiled
with nnc --threads 2.

How the figures are made (the output's header says it again):

Timing regions.  nnl's timed region is a bare C call, NAME_infer(in,
out), into a buffer allocated once; ORT's is session.run() from
Node.js: the N-API call, the wrapping of the input, the output's
allocation and its copy into a JavaScript array.  To compare the same
thing, each runtime also times, in the same rounds and process kind, a
trivial model with the model's input and output (bench/trivial.py: a
Slice of the input reshaped to the output; its output is checked), and
its fixed cost, the trivial model's median, is subtracted round by
round: "nnl ms" and "ORT ms" are the medians over rounds of (the
model's median - the trivial model's median), "nnl/ORT" the median of
their per-round ratios.  "ORT call ms" is the raw session.run() time,
"fixed us" each runtime's subtracted cost.  That cost holds the
trivial model's own work too, a copy of the output's elements, which
is not free in nnl (a generic slice kernel: 1000 elements, about 12 us
on a 2-core Xeon; against the 0.2 us of a 10-element output, the
call itself).

FLOPs.  bench/flops.py reads them from the C that nnc compile --emit c
writes for the same options: "effective" counts 2 flops a multiply-add
of direct convolution and matrix products (the count that GFLOP/s
figures usually divide; bench/models.py's PyTorch count must agree),
"executed" what the kernels compute, the convolutions the runtime runs
by Winograd's F(2x2, 3x3) (filter layout 4 in the C, "winograd" in the
planned graph) counted as their 16 products a 2x2 output tile and the
input and output transforms' additions.  GFLOP/s is either count over
nnl's net time, "% peak" that over the FMA peak of the cores used
(bench/peak.c, one core measured, times the threads).

Memory.  Peak resident set (VmHWM) of each timing process, less that
of the same kind of process running the trivial model: for ORT, Node.js
with onnxruntime-node loaded and a session of the trivial model (about
40 MB that is the host, not the model); for nnl, nnl-timer linked with
the trivial model's code.  The subtracted bases are shown.  "compile"
is `nnc compile --emit lib` of the model: seconds, and the largest
peak of its processes (the passes run as a pipeline).

Inputs.  A model has one or more inputs of any type (bench/models.py:
the BERT-style encoder takes int64 token ids and an int64 mask), packed
one after another in NAME.in.bin, the layout nnc's NAME_infer reads;
ORT is given each as a tensor of its type.

Error.  The largest difference of either output from PyTorch's,
relative to the largest magnitude of PyTorch's output; nnl's is checked
against 1e-4 ("ok", or "FAIL" and an exit status of 1 at the end).

Rounds.  ROUNDS rounds (7), but BIG_ROUNDS (5) for a model of which one
inference takes more than 100 ms in either runtime at warm-up.

These are measurements on a shared machine, not tests: ratios measured
in the same run are what to compare.

Usage: ort.py [-r ROUNDS] [-R BIG_ROUNDS] [-t SECONDS] [--ort node|python]
       [--threads N,N...] [-j JOBS] [MODEL...]
(after make); no MODEL: those BENCH_MODELS names (separated by commas
or spaces), else every model of bench/models.py.  Models not yet
exported to build/bench/models are exported first, by the python that
runs this.  --threads: the thread counts timed (1,2).  --ort python
times ONNX Runtime's Python package (bench/ort-timer.py: session.run()
from Python, the same protocol) instead of onnxruntime-node, for a
machine that has it and no Node.js: with nnl's programs carried there
(bench/carry.sh), the same table on another machine.  -j: builds at
once.
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
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

import flops
import models as models_py
import trivial

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(TOP, "build", "bench")
ORTDIR = os.path.join(OUT, "ort")


def log(msg):
    print("bench: " + msg, file=sys.stderr, flush=True)


def ensure_ort(kind):
    if kind == "python":
        import onnxruntime
        return onnxruntime.__version__
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
    """Run argv under /usr/bin/time: (seconds, peak KB); where there is
    none, the same from wait4's resource use (the child's peak, which
    Linux makes the largest of it and the children it waited for)."""
    if not os.path.exists("/usr/bin/time"):
        t0 = time.monotonic()
        p = subprocess.Popen(argv, cwd=cwd)
        _, status, ru = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
        if p.returncode != 0:
            raise RuntimeError("failed: " + " ".join(argv))
        return time.monotonic() - t0, ru.ru_maxrss
    r = subprocess.run(["/usr/bin/time", "-f", "%e %M"] + argv, cwd=cwd,
                       capture_output=True, text=True)
    if r.returncode != 0:
        sys.stderr.write(r.stderr)
        raise RuntimeError("failed: " + " ".join(argv))
    sec, kb = r.stderr.strip().splitlines()[-1].split()
    return float(sec), int(kb)


def build_nnl(name, d, threads=1):
    """The timer linked with model NAME.onnx of d built for threads
    threads (nnc --threads, with -pthread past one): (program, compile
    time)."""
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


def count_flops(m, d, threads):
    """bench/flops.py's counts of the C nnc writes for model m with
    threads threads."""
    thr = [] if threads == 1 else ["--threads", str(threads)]
    with tempfile.TemporaryDirectory() as t:
        c = os.path.join(t, m["name"] + ".c")
        subprocess.run([os.path.join(TOP, "bin", "nnc"), "compile",
                        "--emit", "c"] + thr +
                       ["-o", c, os.path.join(d, m["name"] + ".onnx")],
                       check=True)
        with open(c) as f:
            r = flops.count(f.read())
    if r["effective"] != 2 * m["macs"]:
        log("%s: the C's direct count, %d flops, is not PyTorch's %d"
            % (m["name"], r["effective"], 2 * m["macs"]))
    return r


def inputs(m):
    """m's inputs as (name, dtype, shape)."""
    return [(x["name"], x["dtype"], x["shape"]) for x in m["inputs"]]


def read_inputs(path, m):
    """The inputs packed in path, each flat, of its dtype."""
    data = open(path, "rb").read()
    xs, off = [], 0
    for name, dtype, shape in inputs(m):
        t = np.dtype(dtype).newbyteorder("<")
        n = int(np.prod(shape))
        xs.append(np.frombuffer(data, t, n, off))
        off += n * t.itemsize
    if off != len(data):
        raise RuntimeError("%s: %d bytes, not the inputs' %d"
                           % (path, len(data), off))
    return xs


def base_model(m, d):
    """The trivial model of m's inputs and output (bench/trivial.py):
    its name, NAME_base."""
    name = m["name"] + "_base"
    trivial.model(os.path.join(d, name + ".onnx"), inputs(m), m["output"])
    return name


def compare(a, b):
    """The largest difference of a from b relative to b's largest
    magnitude."""
    b = b.astype(np.float64)
    return float(np.max(np.abs(a.astype(np.float64) - b)) /
                 max(np.max(np.abs(b)), 1e-30))


def ort_timer(kind):
    """The argv that starts ORT's timer before its arguments."""
    if kind == "python":
        return [sys.executable, os.path.join(TOP, "bench", "ort-timer.py")]
    return ["node", os.path.join(TOP, "bench", "ort-timer.mjs")]


def race(m, d, exes, threads, rounds, big_rounds, seconds, kind):
    """Rounds of the model and the trivial model in nnl (exes: their
    timers) and ORT, in turn."""
    name = m["name"]
    spec = json.dumps(m["inputs"])
    env = dict(os.environ, NNL_ORT_DIR=ORTDIR)
    inp = os.path.join(d, name + ".in.bin")
    ref = np.fromfile(os.path.join(d, name + ".ref.bin"), "<f4")
    out = {k: os.path.join(d, "%s.%s.bin" % (name, k))
           for k in ("nnl", "nnl0", "ort", "ort0")}
    t = {"nnl": Timer([exes[0], inp, out["nnl"]]),
         "nnl0": Timer([exes[1], inp, out["nnl0"]])}
    for k, onnx in (("ort", name), ("ort0", name + "_base")):
        t[k] = Timer(ort_timer(kind) + [
                      os.path.join(d, onnx + ".onnx"), inp, out[k],
                      str(threads), spec], env)
    # the trivial model's outputs (bench/trivial.py)
    want = trivial.expected(read_inputs(inp, m), inputs(m), m["output"])
    for k in ("nnl0", "ort0"):
        if not np.array_equal(np.fromfile(out[k], "<f4"), want):
            raise RuntimeError("%s: the trivial model's output is wrong "
                               "(%s)" % (name, k))
    # Warm-up, and the number of inferences a round takes.
    t1 = statistics.median(t["nnl"].run(3))
    t2 = statistics.median(t["ort"].run(3))
    for k in ("nnl0", "ort0"):
        t[k].run(3)
    k = max(3, int(seconds * 1e3 / max(t1, t2, 1e-3)))
    if max(t1, t2) > 100:
        rounds = big_rounds
    order = ["nnl", "nnl0", "ort", "ort0"]
    raw = {x: [] for x in order}
    net = {"nnl": [], "ort": []}
    ratios = []
    for r in range(rounds):
        med = {}
        for x in order[r % 4:] + order[:r % 4]:
            ts = t[x].run(k)
            raw[x].extend(ts)
            med[x] = statistics.median(ts)
        for x in net:
            net[x].append(med[x] - med[x + "0"])
        ratios.append(net["nnl"][-1] / net["ort"][-1])
    res = {x: statistics.median(net[x]) for x in net}
    res.update({x + "_raw": statistics.median(raw[x]) for x in order})
    res.update({
        "ratio": statistics.median(ratios), "rmin": min(ratios),
        "rmax": max(ratios), "k": k, "rounds": rounds,
        "nnl_diff": compare(np.fromfile(out["nnl"], "<f4"), ref),
        "ort_diff": compare(np.fromfile(out["ort"], "<f4"), ref),
    })
    for x in order:
        res[x + "_rss"] = t[x].rss()
        t[x].close()
    return res


def nnc_threads():
    """Whether nnc builds multi-threaded code (--threads)."""
    r = subprocess.run([os.path.join(TOP, "bin", "nnc"), "compile",
                        "--help"], capture_output=True, text=True)
    return "--threads" in (r.stdout + r.stderr)


HEADER = """\
nnl ms, ORT ms: time an inference takes, less the runtime's fixed cost:
  the median over rounds of (the model's median - the median of a
  trivial model of the same input and output, bench/trivial.py, timed
  by the same process kind in the same round); nnl/ORT: the median of
  the per-round ratios of these, and their range.  nnl is timed around
  a C call of NAME_infer, ORT around Node.js's session.run() (N-API,
  the output's allocation and copy): ORT call ms is that raw time;
  fixed us: each runtime's trivial-model time, the cost subtracted
  (with the trivial model's own work, a copy of the output's elements:
  nnl's is a generic slice kernel, a few ns an element).
GFLOP/s: effective = direct-convolution and product flops (2 a
  multiply-add) / nnl ms; executed = flops the kernels compute
  (Winograd F(2x2, 3x3) convolutions at their 16 products a 2x2 tile
  plus transforms; bench/flops.py) / nnl ms; % peak: of the measured
  one-core FMA peak times the threads.
RSS: peak resident set of the process running the model less that of
  the same program running the trivial model (for ORT: Node.js with
  onnxruntime-node and a trivial session; for nnl: nnl-timer); the
  bases subtracted are shown.
rel err: the largest difference of the output from PyTorch's relative
  to the largest magnitude of PyTorch's; nnl's checked against 1e-4.
check: ok where nnl's rel err is within 1e-4; rd: the rounds run
  (ROUNDS, or BIG_ROUNDS for a model of which one inference takes more
  than 100 ms at warm-up in either runtime)."""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-r", "--rounds", type=int, default=7)
    ap.add_argument("-R", "--big-rounds", type=int, default=5,
                    help="rounds of a model slower than 100 ms")
    ap.add_argument("-t", "--seconds", type=float, default=0.5,
                    help="length of one timed round of one runtime")
    ap.add_argument("--ort", choices=("node", "python"), default="node",
                    help="ONNX Runtime's package to time: onnxruntime-node "
                    "(installed from npm), or the Python package this "
                    "python has (bench/ort-timer.py)")
    ap.add_argument("--threads", default="1,2",
                    help="thread counts to time, separated by commas")
    ap.add_argument("-j", "--jobs", type=int, default=1,
                    help="builds run at once (compile times are then of "
                    "a loaded machine)")
    ap.add_argument("models", nargs="*")
    a = ap.parse_args()
    try:
        counts = sorted({int(x) for x in a.threads.split(",")})
    except ValueError:
        sys.exit("ort.py: --threads %s: not numbers separated by commas"
                 % a.threads)
    if not counts or counts[0] < 1:
        sys.exit("ort.py: --threads %s: a count below 1" % a.threads)
    os.makedirs(OUT, exist_ok=True)
    ver = ensure_ort(a.ort)
    d = os.path.join(OUT, "models")
    want = a.models or os.environ.get("BENCH_MODELS", "").replace(
        ",", " ").split() or list(models_py.MODELS)
    for n in want:
        if n not in models_py.MODELS:
            sys.exit("ort.py: no model %s (%s)"
                     % (n, ", ".join(models_py.MODELS)))
    try:
        with open(os.path.join(d, "models.json")) as f:
            have = {m["name"]: m for m in json.load(f) if "inputs" in m}
    except OSError:
        have = {}
    missing = [n for n in want if n not in have or not
               os.path.exists(os.path.join(d, n + ".onnx"))]
    if missing:
        log("exporting %s with PyTorch" % " ".join(missing))
        subprocess.run([sys.executable,
                        os.path.join(TOP, "bench", "models.py"), d]
                       + missing, check=True)
    with open(os.path.join(d, "models.json")) as f:
        byname = {m["name"]: m for m in json.load(f)}
    models = [byname[n] for n in models_py.MODELS if n in want]
    cpu, simd = cpu_model()
    peak = measure_peak()
    print("machine: %s (%s), %d cores; one-core FMA peak measured: "
          "%.1f GFLOP/s" % (cpu, " ".join(simd), os.cpu_count(), peak))
    print("ONNX Runtime %s (%s, CPU provider); nnl: nnc "
          "compile --emit lib defaults; medians"
          % (ver, "onnxruntime-node" if a.ort == "node" else
             "its Python package, timed around session.run() from "
             "Python"))
    print(HEADER)
    print("ROUNDS %d, BIG_ROUNDS %d" % (a.rounds, a.big_rounds))
    threads_ok = nnc_threads()
    thread_counts = counts if threads_ok else [1]
    built, fl = {}, {}

    def build(job):
        m, th = job
        log("compiling %s, %d thread(s)" % (m["name"], th))
        base = m["name"] + "_base"
        built[m["name"], th] = (build_nnl(m["name"], d, th),
                                build_nnl(base, d, th)[0])
        fl[m["name"], th] = count_flops(m, d, th)

    for m in models:
        base_model(m, d)
    # each build is its own processes: a pool of threads runs them
    # side by side (compile times are of a loaded machine then)
    with ThreadPoolExecutor(max(1, a.jobs)) as ex:
        list(ex.map(build, [(m, th) for m in models
                            for th in thread_counts]))
    print()
    print("%-18s %4s %10s %11s %8s %9s"
          % ("model", "thr", "eff MFLOP", "exec MFLOP", "exec/eff",
             "Winograd"))
    for m in models:
        for th in thread_counts:
            f = fl[m["name"], th]
            print("%-18s %4d %10.1f %11.1f %8.3f %4d of %d"
                  % (m["name"], th, f["effective"] / 1e6,
                     f["executed"] / 1e6, f["executed"] / f["effective"],
                     f["winograd"], f["convs"]))
    head = ("%-18s %4s %8s %8s %7s %11s %8s %7s %7s %7s %6s %7s %6s "
            "%8s %8s %5s %2s"
            % ("model", "thr", "nnl ms", "ORT ms", "nnl/ORT", "range",
               "ORT call", "fixed", "fixed", "eff", "eff", "exec", "exec",
               "rel err", "rel err", "", ""))
    head2 = ("%-18s %4s %8s %8s %7s %11s %8s %7s %7s %7s %6s %7s %6s "
             "%8s %8s %5s %2s"
             % ("", "", "", "", "", "", "ms", "nnl us", "ORT us",
                "GFLOP/s", "%peak", "GFLOP/s", "%peak", "nnl", "ORT",
                "check", "rd"))
    bad = []
    rows = []
    for threads in counts:
        print()
        if threads not in thread_counts:
            print("(nnl builds no threads yet: no %d-thread row)" % threads)
            continue
        print(head)
        print(head2)
        for m in models:
            (exe, _), base = built[m["name"], threads]
            log("timing %s, %d thread(s)" % (m["name"], threads))
            r = race(m, d, (exe, base), threads, a.rounds, a.big_rounds,
                     a.seconds, a.ort)
            ok = r["nnl_diff"] <= 1e-4
            if not ok:
                bad.append("%s (%d threads)" % (m["name"], threads))
            f = fl[m["name"], threads]
            ge = f["effective"] / (r["nnl"] * 1e6)
            gx = f["executed"] / (r["nnl"] * 1e6)
            print("%-18s %4d %8.3f %8.3f %7.2f %5.2f-%-5.2f %8.3f %7.1f "
                  "%7.1f %7.1f %5.1f%% %7.1f %5.1f%% %8.1e %8.1e %5s %2d"
                  % (m["name"], threads, r["nnl"], r["ort"], r["ratio"],
                     r["rmin"], r["rmax"], r["ort_raw"],
                     r["nnl0_raw"] * 1e3, r["ort0_raw"] * 1e3, ge,
                     100 * ge / (peak * threads), gx,
                     100 * gx / (peak * threads), r["nnl_diff"],
                     r["ort_diff"], "ok" if ok else "FAIL", r["rounds"]))
            rows.append((m, threads, r))
            sys.stdout.flush()
    print()
    print("%-18s %9s %10s %8s %8s %9s %9s"
          % ("model", "compile s", "compile MB", "nnl MB", "ORT MB",
             "nnl base", "ORT base"))
    for m in models:
        ct = built[m["name"], 1][0][1]
        r = next(r for mm, t, r in rows if mm is m and t == 1)
        print("%-18s %9.2f %10.1f %8.1f %8.1f %9.1f %9.1f"
              % (m["name"], ct[0], ct[1] / 1024,
                 (r["nnl_rss"] - r["nnl0_rss"]) / 1024,
                 (r["ort_rss"] - r["ort0_rss"]) / 1024,
                 r["nnl0_rss"] / 1024, r["ort0_rss"] / 1024))
    print("(RSS in MB, the peak resident set (VmHWM) less the base's; "
          "compile: nnc compile --emit lib, its largest process's peak)")
    if bad:
        print("FAIL: nnl's output is not within 1e-4 relative of "
              "PyTorch's: " + ", ".join(bad))
        sys.exit(1)
    print("nnl's outputs are within 1e-4 relative of PyTorch's.")


if __name__ == "__main__":
    main()
