#!/usr/bin/python3
"""fuzz-graph: mutated webnn-graph JSON through one nnl pass.

Usage: fuzz-graph.py PROGRAM SEED COUNT [ARG ...]
Takes the shape-infer and fuse goldens, mutates numbers, strings,
lists and placements at random, and feeds each graph on standard input
to PROGRAM (a sanitizer build: make asan) with ARGs.  (See fuzz.py.)  A
run that exits with anything but 0 or 1, prints a sanitizer report or
runs past 20 s is a finding: its graph is kept as fuzz-crash-N.json in
the current directory.  Prints "done N" (N findings); exit 1 if any.
"""
import glob
import json
import os
import random
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NUMS = [0, 1, -1, 2, 3, 7, 8, 9, 31, 32, 33, 63, 64, 255, 256, 65535,
        2**31 - 1, 2**31, 2**32 - 1, 2**32, 2**53, -2**31, 1e30, -1e30,
        0.5, 1e-30]
STRS = ["float16", "int8", "uint8", "int32", "int64", "int4", "uint64",
        "nearest-neighbor", "linear", "ohwi", "nhwc", "nchw", "hwio",
        "cpu", "webnn", "x"]


def mut(v):
    r = random.random()
    if isinstance(v, bool):
        return not v if r < .3 else v
    if isinstance(v, (int, float)):
        return random.choice(NUMS) if r < .2 else v
    if isinstance(v, str):
        return random.choice(STRS) if r < .05 else v
    if isinstance(v, list):
        v = [mut(x) for x in v]
        if r < .08 and v:
            v.pop(random.randrange(len(v)))
        elif r < .14 and v:
            v.insert(random.randrange(len(v) + 1), random.choice(v))
        elif r < .16:
            v = []
        return v
    if isinstance(v, dict):
        d = {k: mut(x) for k, x in v.items()}
        if r < .03:
            d["placement"] = {"device": random.choice(["cpu", "webnn"]),
                              "partition": random.choice([0, 1, 2, 99])}
        return d
    return v


def main():
    prog, seed, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    random.seed(seed)
    files = sorted(glob.glob(ROOT + "/tests/golden/shape-infer/*.in.json") +
                   glob.glob(ROOT + "/tests/golden/fuse/*.in.json"))
    # a report exits 86 (ASan) or 87 (UBSan), never 1 as a refusal does
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=0:exitcode=86",
               UBSAN_OPTIONS="halt_on_error=1:exitcode=87")
    bad = 0
    for _ in range(count):
        s = json.dumps(mut(json.load(open(random.choice(files)))))
        try:
            p = subprocess.run([prog] + sys.argv[4:], input=s.encode(),
                               capture_output=True, timeout=20, env=env)
            err, rc = p.stderr.decode(errors="replace"), p.returncode
        except subprocess.TimeoutExpired:
            err, rc = "timed out", -1
        if rc not in (0, 1) or "runtime error" in err or "Sanitizer" in err:
            bad += 1
            with open("fuzz-crash-%d.json" % bad, "w") as f:
                f.write(s)
            print("finding", bad, rc, err[-600:], flush=True)
    print("done", bad)
    return 1 if bad else 0


sys.exit(main())
