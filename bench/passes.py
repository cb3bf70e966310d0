#!/usr/bin/python3
"""passes: how each nnl program's time grows with the graph.

Usage: bench/passes.py [-s 1000,10000,100000] [-t timeout]
       (from the top directory, after make)

Generates a chain, a DAG and a wide DAG (bench/gengraph.py) of each
size, runs every program on each once, and prints one table per shape:
CPU seconds (user and system, the program's children included) per
size and the growth exponent log(t_big / t_prev) / log(big / prev)
between the two largest sizes (1: linear, 2: quadratic); each should
stay at or under about 1.2.  A program over the timeout (300 s by
default) shows ">T" and no exponent.  It is a measurement, not a
test: the machine may be shared and noisy (CPU time, not time on the
wall, keeps the exponents from following the load), and times under
0.05 s say little.

Besides the passes it times the back ends that draw or wrap a graph:
nnl-emit-dot of a graph cut into many partitions (a CPU profile
without relu, so every relu is a CPU round between two WebNN
partitions), nnl-emit-js --polyfill, and nnc report.  nnc report runs
with a stand-in for Graphviz's dot first on PATH (it writes a fixed
picture): Graphviz's own layout is not nnl's to time, and it is
bounded by NNL_DOT_TIMEOUT instead.
"""
import argparse
import json
import math
import os
import resource
import shutil
import subprocess
import sys
import tempfile

TOP = os.getcwd()
BIN = os.path.join(TOP, "bin")
PROFILE = os.path.join(TOP, "pipelines", "profiles", "cpu.json")
NORELU = "norelu.json"        # PROFILE without relu, written by main()
STUBDOT = """#!/bin/sh
while [ $# -gt 0 ]; do [ "$1" = -o ] && out=$2; shift; done
printf '<svg xmlns="http://www.w3.org/2000/svg"></svg>\\n' >"$out"
"""

ENV = dict(os.environ)

# name, program and arguments ({g}: the graph's stem), output
STEPS = [
    ("parse .webnn", ["nnl-parse", "-o", "{g}.json", "{g}.webnn"]),
    ("parse json", ["nnl-parse", "-o", "{g}.j2.json", "{g}.json"]),
    ("parse -t webnn", ["nnl-parse", "-t", "webnn", "-o", "{g}.out.webnn",
                        "{g}.json"]),
    ("reorder", ["nnl-reorder", "-o", "{g}.r.json", "{g}.json"]),
    ("shape-infer", ["nnl-shape-infer", "-o", "{g}.s.json", "{g}.r.json"]),
    ("fuse", ["nnl-fuse", "-o", "{g}.f.json", "{g}.s.json"]),
    ("plan-memory", ["nnl-plan-memory", "-o", "{g}.p.json", "{g}.f.json"]),
    ("cpu-partition", ["nnl-cpu-partition", "-p", PROFILE, "-o",
                       "{g}.c.json", "{g}.p.json"]),
    ("emit-c", ["nnl-emit-c", "-o", "{g}.c", "{g}.p.json"]),
    ("emit-js", ["nnl-emit-js", "-o", "{g}.js", "{g}.f.json"]),
    ("run", ["nnl-run", "-d", "{g}.out", "{g}.p.json", "x=x.npy"]),
    ("cpu-part many", ["nnl-cpu-partition", "-p", NORELU, "-o",
                       "{g}.m.json", "{g}.p.json"]),
    ("emit-dot parts", ["nnl-emit-dot", "-o", "{g}.dot", "{g}.m.json"]),
    ("emit-js polyfil", ["nnl-emit-js", "--polyfill", "-o", "{g}.pf.js",
                         "{g}.c.json"]),
    ("nnc report", ["nnc", "report", "-o", "{g}.html", "{g}.webnn"]),
]


def timed(argv, timeout):
    """CPU seconds (user and system) argv and the programs it waits for
    take: unlike the time on the wall, it does not grow when others
    share the machine."""
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    try:
        r = subprocess.run(argv, stdout=subprocess.DEVNULL, env=ENV,
                           stderr=subprocess.PIPE, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, "timeout"
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    dt = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    if r.returncode != 0:
        sys.exit("%s failed: %s" % (" ".join(argv),
                                    r.stderr.decode(errors="replace")))
    return dt, None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-s", default="1000,10000,100000")
    ap.add_argument("-t", type=float, default=300)
    a = ap.parse_args()
    sizes = [int(x) for x in a.s.split(",")]
    d = tempfile.mkdtemp(prefix="nnl-bench-")
    try:
        os.chdir(d)
        subprocess.run([sys.executable, "-c", "import numpy as np; "
                        "np.save('x.npy', np.ones((1, 16), np.float32))"],
                       check=True)
        with open(PROFILE) as f:
            p = json.load(f)
        del p["relu"]
        with open(NORELU, "w") as f:
            json.dump(p, f)
        os.mkdir("stub")
        with open(os.path.join("stub", "dot"), "w") as f:
            f.write(STUBDOT)
        os.chmod(os.path.join("stub", "dot"), 0o755)
        ENV["PATH"] = os.path.join(d, "stub") + os.pathsep + ENV["PATH"]
        for shape in ("chain", "dag", "wide"):
            times = {}
            for n in sizes:
                g = "%s%d" % (shape, n)
                subprocess.run([sys.executable,
                                os.path.join(TOP, "bench", "gengraph.py"),
                                shape, str(n), g + ".webnn"], check=True)
                os.mkdir(g + ".out")
                for name, argv in STEPS:
                    argv = [os.path.join(BIN, argv[0])] + \
                        [x.format(g=g) for x in argv[1:]]
                    times[name, n], _ = timed(argv, a.t)
                    if times[name, n] is None:
                        break
            report(shape, sizes, times, a.t)
    finally:
        os.chdir(TOP)
        shutil.rmtree(d)


def report(shape, sizes, times, timeout):
    print("%s: CPU seconds per program, growth exponent between the two "
          "largest sizes" % shape)
    print("%-16s" % "program" + "".join("%10d" % n for n in sizes) +
          "  exponent")
    for name, _ in STEPS:
        row = "%-16s" % name
        for n in sizes:
            t = times.get((name, n))
            row += "%10s" % ("%.2f" % t if t is not None else
                             ">%g" % timeout if (name, n) in times else "-")
        t1, t2 = (times.get((name, n)) for n in sizes[-2:])
        if len(sizes) > 1 and t1 and t2:
            row += "  %8.2f" % (math.log(t2 / t1) /
                                math.log(sizes[-1] / sizes[-2]))
        print(row)
    print()


main()
