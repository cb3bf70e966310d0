#!/usr/bin/python3
"""cpuops: every op a support profile can leave to the CPU has a CpuOps
implementation (common/rt/js/cpuops.mjs), and each agrees with the NumPy
references of tests/ops/cases.py, run for real in node.

Usage: cpuops.py [--list] [--op NAME]
Walks the op table (common/core/ops.def and ops_nnl.def: every op has
a case) and the
profiles (pipelines/profiles/*.json).  An op can be left to the CPU by
a profile when nnl-cpu-partition places one of its cases there, either
as the graph stands or with every graph input held on the CPU (as a
value a CPU node made would be).  For each such op: CpuOps has it, and
nnl-emit-js writes a partitioned module for the case; every CPU-placed
case is then computed by CpuOps in node and compared with the reference
(floats per run.py's tolerances, integers exactly).  Ends with
"cpuops: N ops, M cases agree, K differ".  --list prints the ops found
first; --op walks that op's cases only.
"""
import glob
import json
import os
import re
import subprocess
import sys
import zlib
import tempfile

import numpy as np

import run
from run import BIN, ROOT, CASES, compare, from_bf16, gen, graph


def sh(args, **kw):
    return subprocess.run(args, capture_output=True, text=True, **kw)


EMITJS = []	# nnl-emit-js's refusals


def placed_on_cpu(gp, profile, tmp):
    """Is the case's node placed on the CPU by this profile?"""
    r = sh([os.path.join(BIN, "nnl-shape-infer"), "-o",
            os.path.join(tmp, "t.json"), gp])
    if r.returncode:
        raise SystemExit("cpuops: shape-infer %s: %s" % (gp, r.stderr))
    r = sh([os.path.join(BIN, "nnl-cpu-partition"), "-p", profile, "-o",
            os.path.join(tmp, "p.json"), os.path.join(tmp, "t.json")])
    if r.returncode:
        raise SystemExit("cpuops: cpu-partition %s: %s" % (gp, r.stderr))
    g = json.load(open(os.path.join(tmp, "p.json")))
    if g["nodes"][0]["placement"]["device"] != "cpu":
        return False
    # and nnl-emit-js writes the partitioned module (it refuses a node
    # on the CPU that CpuOps cannot run)
    r = sh([os.path.join(BIN, "nnl-emit-js"), "-o",
            os.path.join(tmp, "m.js"), os.path.join(tmp, "p.json")])
    if r.returncode:
        EMITJS.append("%s: nnl-emit-js: %s" % (os.path.basename(gp),
                                              r.stderr.strip()))
    return True


def variants(tmp):
    """Each case, and its integer twins: the float32 operands as int32
    and as int64, where nnl-shape-infer accepts that (a model's shape
    arithmetic is integer; the table's cases are mostly float)."""
    out = []
    for c in CASES:
        out.append(c)
        if not any(dt == "float32" for _, dt, _, _ in c["ins"]):
            continue
        for it in ("int32", "int64"):
            v = dict(c, name="%s~%s" % (c["name"], it),
                     ins=[(n, it if dt == "float32" else dt, s,
                           # small positive powers stay in range
                           "pos" if c["op"] == "pow" else
                           # the float case's own values (NaN, ties)
                           # are no integers': drawn afresh
                           "n" if dt == "float32" and (
                               not isinstance(k, str) or k == "unit")
                           else k)
                          for n, dt, s, k in c["ins"]])
            gp = os.path.join(tmp, "v.json")
            json.dump(graph(v), open(gp, "w"))
            if sh([os.path.join(BIN, "nnl-shape-infer"), gp]).returncode:
                continue
            out.append(v)
    return out


def twin_ref(c, it, w):
    """The float case's reference as its integer twin computes: a
    float result truncated toward zero (integer division, bounds cast
    to the type), a wider integer one wrapped to the twin's width (a
    product of int32 that numpy takes in int64); an index (argMin,
    argMax) or a comparison's uint8 as it is."""
    w = np.asarray(w)
    t = np.dtype(it)
    if w.dtype.kind == "f":
        return np.trunc(w).astype(np.int64).astype(t)
    if (w.dtype.kind in "iu" and w.dtype.itemsize > t.itemsize and
            c["op"] not in ("argMin", "argMax")):
        return w.astype(t)
    return w


def main():
    import cases  # noqa: F401  (fills CASES)
    names = run.op_names()
    have = {c["op"] for c in CASES}
    missing = [n for n in names if n not in have]
    if missing:
        raise SystemExit("cpuops: ops without a case: %s" % missing)
    r = sh(["node", "--input-type=module", "-e",
            'import { CpuOps } from "%s/common/rt/js/cpuops.mjs";'
            'console.log(Object.keys(CpuOps).join(" "));' % ROOT])
    cpuops = set(r.stdout.split())
    profiles = sorted(glob.glob(os.path.join(ROOT, "pipelines/profiles",
                                             "*.json")))
    bad = []
    oncpu = []			# (case, graph path)
    cpuset = set()
    with tempfile.TemporaryDirectory() as tmp:
        allcases = variants(tmp)
        if "--op" in sys.argv:
            only = sys.argv[sys.argv.index("--op") + 1]
            allcases = [c for c in allcases if c["op"] == only]
        for p in profiles:
            prof = json.load(open(p))
            held = dict(prof, input={"dataTypes": []})
            hp = os.path.join(tmp, "held-" + os.path.basename(p))
            json.dump(held, open(hp, "w"))
            for i, c in enumerate(allcases):
                gp = os.path.join(tmp, "c%d.json" % i)
                if not os.path.exists(gp):
                    json.dump(graph(c), open(gp, "w"))
                if placed_on_cpu(gp, p, tmp) or placed_on_cpu(gp, hp, tmp):
                    cpuset.add(c["op"])
                    if (c["name"], gp) not in oncpu:
                        oncpu.append((c["name"], gp))
        if "--list" in sys.argv:
            print(" ".join(n for n in names if n in cpuset))
        for op in (n for n in names if n in cpuset):
            if op not in cpuops:
                bad.append("%s: a profile can place it on the CPU, and "
                           "CpuOps has no %s" % (op, op))
        # the values, in one node run
        byname = {c["name"]: c for c in allcases}
        jobs, want = [], {}
        for name, gp in oncpu:
            c = byname[name]
            if c["op"] not in cpuops:
                continue
            ins, arrays = [], {}
            # the data run.py gives the case: seeded by its name
            rng = np.random.default_rng(zlib.crc32(name.encode()))
            for n, dt, shape, kind in c["ins"] + list(c["optins"].values()):
                a = gen(dt, shape, kind, rng)
                f = os.path.join(tmp, "%s-%s.npy" % (name, n))
                np.save(f, a)
                arrays[n] = from_bf16(a) if dt == "bfloat16" else \
                    a.astype(np.float64) if a.dtype.kind == "f" else a
                ins.append(f)
            try:
                with np.errstate(all="ignore"):     # NaN and Inf are meant
                    w = c["ref"](arrays, c)
            except ValueError:	# e.g. integers to negative powers
                with np.errstate(all="ignore"):
                    w = c["ref"]({k: v.astype(np.float64)
                                  for k, v in arrays.items()}, c)
            w = w if isinstance(w, list) else [w]
            if "~" in name:
                w = [twin_ref(c, name.split("~")[1], o) for o in w]
            want[name] = w
            opts = dict(c["opts"])
            nin = len(c["ins"])
            for k, (n, _, _, _) in c["optins"].items():
                opts[k] = {"$operand": nin + list(c["optins"]).index(k)}
            jobs.append({"name": name, "op": c["op"], "ins": ins,
                         # bfloat16 is uint16 in .npy files: typed here
                         "types": [dt for _, dt, _, _ in c["ins"] +
                                   list(c["optins"].values())],
                         "nin": nin, "options": opts,
                         "out": os.path.join(tmp, name + "-out"),
                         "nout": c["nout"]})
        jf = os.path.join(tmp, "jobs.json")
        json.dump(jobs, open(jf, "w"))
        r = sh(["node", os.path.join(ROOT, "tests/js/cpuops-run.mjs"), jf])
        if r.returncode:
            raise SystemExit("cpuops: node: %s" % r.stderr)
        done = set(r.stdout.split())
        agree = 0
        for j in jobs:
            c = byname[j["name"]]
            if j["name"] not in done:
                bad.append("%s: CpuOps.%s failed" % (j["name"], j["op"]))
                continue
            errs = []
            for k, w in enumerate(want[j["name"]]):
                got = np.load("%s%d.npy" % (j["out"], k))
                w = np.asarray(w)
                if got.shape != w.shape:
                    errs.append("output %d: shape %s, reference %s" %
                                (k, got.shape, w.shape))
                    continue
                # bfloat16 comes back as its bits (uint16)
                bf = c["odt"] == "bfloat16" or (not c["odt"] and any(
                    dt == "bfloat16" for _, dt, _, _ in c["ins"]))
                e = compare(got, w, "bfloat16" if bf and
                            got.dtype == np.uint16 else got.dtype.name,
                            c["tol"])
                if e:
                    errs.append("output %d: %s" % (k, e))
            if errs:
                bad.append("%s: CpuOps.%s: %s" % (j["name"], j["op"],
                                                   "; ".join(errs)))
            else:
                agree += 1
    bad += EMITJS
    for b in bad:
        print("not ok - " + b)
    print("cpuops: %d ops, %d cases agree, %d differ" %
          (len(cpuset), agree, len(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
