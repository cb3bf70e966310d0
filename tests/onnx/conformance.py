#!/usr/bin/python3
"""conformance: the ONNX backend node tests through nnl's C back end.

Usage: conformance.py [--js] [--only SUBSTRING] [--report FILE]
                      [--jobs N] [--data DIR] [--keep DIR] [--expect REPORT]
                      [--bin DIR]

Each test in DIR (default Debian's libonnx-testdata node tests) goes
through nnl-onnx-import, nnc compile (shape-infer, fuse, plan-memory,
emit-c and the system C compiler) and runs on every test_data_set_*:
an input the importer needs at import time (a shape, axes, pads: nnl
compiles static graphs) is given with --const from the data set, and
the line says so; every other input is read at run time.
its outputs are compared with the test's (rtol 1e-3, atol 1e-5 for
floating point, exact for integers and booleans).  One line per test:
PASS, FAIL with the reason or largest difference, or UNSUPPORTED
[CODE] with the importer's refusal: a test is UNSUPPORTED only when
nnl-onnx-import refused it with a reason code in brackets (see
nnl-onnx-import(1), REFUSALS), any other import error is a FAIL.
Closes with "N passed, M failed, K skipped (refused: CODE N, ...)".
An nnl program that crashes, or runs past its time limit, is a FAIL.
Exit status 1 when a run crashed or hung, or when a test the --expect
report lists as PASS no longer passes (the report, --report, is a
separate file: the expected list changes only when someone copies a
report over it, as make conformance-accept does); 0 otherwise.
The programs are those in --bin DIR, else $NNL_BIN, else bin/.

With --js the imported graph goes through nnl-emit-js instead; the
module's buildGraph() runs in node against a WebIDL-derived stand-in
for MLGraphBuilder (tests/js/webnn-stub.mjs), which refuses any call
that does not match the specification, and the graph it recorded is
what the C back end compiles and runs.
"""
import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import onnx
from onnx import numpy_helper

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
BIN = os.environ.get("NNL_BIN") or os.path.join(ROOT, "bin")
DATA = "/usr/share/libonnx-testdata/data/node"
TIMEOUT = 120
JS = False
# A refusal's reason code, after what it refuses: 'node "N" (Op) [CODE]'
# or 'input "x" [CODE]' (nnl-onnx-import(1), REFUSALS).
CODE = re.compile(r'(?:\)|") \[([a-z]+(?:-[a-z]+)*)\]')


# The reports' first lines.
HEAD = """\
# ONNX backend node tests through nnl-onnx-import, nnc compile and the
# compiled program.  Every PASS here must pass again: make
# conformance checks, make conformance-accept updates.
"""
HEADJS = """\
# ONNX backend node tests through nnl-onnx-import, nnl-emit-js, nnc
# compile and the compiled program.  Every PASS here must pass again:
# make conformance-js checks, make conformance-js-accept updates.
"""


def tensors(d, prefix):
    files = sorted(glob.glob(os.path.join(d, prefix + "_*.pb")),
                   key=lambda f: int(re.findall(r"_(\d+)\.pb$", f)[0]))
    return [numpy_helper.to_array(onnx.load_tensor(f)) for f in files]


def compare(got, want):
    """None when equal within tolerance, else the reason."""
    if want.dtype.kind in "fc":
        w = want.astype(np.float64)
        g = got.astype(np.float64)
        bad = ~np.isclose(g, w, rtol=1e-3, atol=1e-5, equal_nan=True)
        if bad.any():
            d = np.abs(g - w)
            d[np.isnan(d)] = np.inf
            i = int(np.argmax(np.where(bad, d, -1)))
            return "largest difference %.3g at %d (got %r, want %r)" % (
                float(d.flat[i]), i, g.flat[i], w.flat[i])
        return None
    if not np.array_equal(got.astype(want.dtype), want):
        i = int(np.argmax(got.astype(want.dtype) != want))
        return "item %d: got %r, want %r" % (i, got.flat[i], want.flat[i])
    return None


def run(cmd, **kw):
    try:
        return subprocess.run(cmd, capture_output=True, timeout=TIMEOUT,
                              **kw)
    except subprocess.TimeoutExpired:
        return None


def crashed(p):
    return p is None or p.returncode not in (0, 1)


def refusal(p):
    """The first reason code in the importer's refusal, or None."""
    m = CODE.search(p.stderr.decode(errors="replace"))
    return m.group(1) if m else None


def why(p):
    if p is None:
        return "timed out after %d s" % TIMEOUT
    lines = [re.sub(r"^nnl-[a-z-]+: error: (\S+/model\.onnx: )?", "",
                    l.strip())
             for l in p.stderr.decode(errors="replace").splitlines()
             if l.strip()]
    return " / ".join(lines[:3])[:400] if lines else \
        "exit status %d" % p.returncode


def one(test, data, keep):
    d = os.path.join(data, test)
    tmp = tempfile.mkdtemp(prefix="nnlconf-")
    try:
        return check(test, d, tmp)
    finally:
        if keep:
            shutil.copytree(tmp, os.path.join(keep, test),
                            dirs_exist_ok=True)
        shutil.rmtree(tmp, ignore_errors=True)


HINT = re.compile(r"(?:--const |, )([^=\s,()]+)=FILE\.npy")


def importer(d, tmp, g, consts, ins):
    """nnl-onnx-import, with the named inputs given as constants."""
    args = [os.path.join(BIN, "nnl-onnx-import"), "-o", g]
    for name in consts:
        f = os.path.join(tmp, "const-%d.npy" % consts.index(name))
        v = ins[name]
        np.save(f, v.astype(np.uint8) if v.dtype == bool else v)
        args += ["--const", "%s=%s" % (name, f)]
    return run(args + [os.path.join(d, "model.onnx")], cwd=tmp)


def build(test, d, tmp, consts, ins):
    """Import and compile; (program, None) or (None, result)."""
    g = os.path.join(tmp, "g.json")
    for _ in range(10):
        p = importer(d, tmp, g, consts, ins)
        if crashed(p):
            return None, ("FAIL", "nnl-onnx-import crashed: " + why(p),
                          True, None)
        if p.returncode == 0:
            break
        msg = why(p)
        more = [n for n in HINT.findall(p.stderr.decode(errors="replace"))
                if n in ins and n not in consts]
        if more and len(consts) + len(more) < len(ins):
            consts += more     # shape inputs: their values at import
            continue
        code = refusal(p)
        if more and code:
            return None, ("UNSUPPORTED", "every input is needed at import "
                          "time: " + msg, False, code)
        if code:
            return None, ("UNSUPPORTED", msg, False, code)
        return None, ("FAIL", "import: " + msg, False, None)
    else:
        return None, ("FAIL", "import: " + why(p), False, None)
    if JS and beyond(g):
        return partitioned(tmp, g)
    if JS:
        # through JavaScript: nnl-emit-js, the module run against the
        # WebIDL stub, the graph it built back through the C back end
        js = os.path.join(tmp, "model.js")
        p = run([os.path.join(BIN, "nnl-emit-js"), "-o", js, g], cwd=tmp)
        if crashed(p):
            return None, ("FAIL", "nnl-emit-js crashed: " + why(p), True,
                          None)
        if p.returncode != 0:
            return None, ("FAIL", "emit-js: " + why(p), False, None)
        w = os.path.join(tmp, "g.weights")
        mf = os.path.join(tmp, "g.manifest.json")
        p = run(["node", os.path.join(ROOT, "tests", "js", "record.mjs"), js] +
                ([w, mf] if os.path.exists(w) else []), cwd=tmp)
        if p is None or p.returncode != 0:
            return None, ("FAIL", "record: " + why(p), False, None)
        g = os.path.join(tmp, "recorded.json")
        with open(g, "wb") as f:
            f.write(p.stdout)
    exe = os.path.join(tmp, "prog")
    # the recorded graph names its weights by absolute path, as a pass
    # writing to a pipe does: nnc reads them only with --allow-outside
    # (nnl(7) Reads)
    p = run([os.path.join(BIN, "nnc"), "compile", "--emit", "exe", "-o",
             exe] + (["--allow-outside"] if JS else []) + [g], cwd=tmp)
    if crashed(p):
        return None, ("FAIL", "nnc compile crashed: " + why(p), True, None)
    if p.returncode != 0:
        return None, ("FAIL", "compile: " + why(p), False, None)
    return exe, None


def beyond(g):
    """Does graph file g hold an op or a data type of nnl's beyond
    WebNN, or an empty tensor (which WebNN refuses)?"""
    with open(os.path.join(ROOT, "common", "core", "ops_nnl.def")) as f:
        ops = set(re.findall(r'^OP\(\w+, "(\w+)"', f.read(), re.M))
    with open(os.path.join(ROOT, "common", "core", "dtype.h")) as f:
        rows = re.findall(r'^\s*X\((\w+),\s*"(\w+)"', f.read(), re.M)
    ext = {n for e, n in rows[[e for e, _ in rows].index("FLOAT64"):]}
    with open(g) as f:
        gj = json.load(f)

    def types(v, key="dataType"):   # every key's value, at any depth
        if isinstance(v, dict):
            for k, x in v.items():
                if k == key:
                    yield x
                else:
                    yield from types(x, key)
        elif isinstance(v, list):
            for x in v:
                yield from types(x, key)
    return any(n.get("op") in ops for n in gj["nodes"]) or \
        any(t in ext for t in types(gj) if isinstance(t, str)) or \
        any(isinstance(s, list) and 0 in s for s in types(gj, "shape"))


# The program partitioned() writes: the graph's inputs from stdin, as
# the compiled C program reads them, through tests/js/run-partitioned.mjs
# (WebNN partitions recorded by the stub and run by nnl-run, the CPU
# rounds by CpuOps), its outputs to stdout in order.
PROG = """#!/usr/bin/python3
import json, os, subprocess, sys, tempfile
import numpy as np
m = json.loads(%r)
raw, off = sys.stdin.buffer.read(), 0
# as the compiled C program, refuse input of the wrong size
want = sum(int(np.prod(s, dtype=np.int64)) * np.dtype(dt).itemsize
           for _, dt, s in m["ins"])
if len(raw) != want:
    sys.exit("model: expected %%d bytes of input, got %%d" %% (want,
                                                             len(raw)))
with tempfile.TemporaryDirectory() as t:
    args = ["node", m["runner"], m["bin"], m["js"], t, m["w"], m["mf"]]
    for i, (name, dt, shape) in enumerate(m["ins"]):
        n = int(np.prod(shape, dtype=np.int64)) * np.dtype(dt).itemsize
        a = np.frombuffer(raw[off:off + n], dtype=dt).reshape(shape)
        off += n
        f = os.path.join(t, "in%%d.npy" %% i)
        np.save(f, a)
        args.append("%%s=%%s" %% (name, f))
    p = subprocess.run(args, stdout=subprocess.DEVNULL)
    if p.returncode:
        sys.exit(p.returncode)
    outs = m["outs"]
    for i, name in enumerate(outs):
        a = np.load(os.path.join(t, name + ".npy"))
        if name.endswith(".shape") and i and outs[i - 1] + ".shape" == name:
            continue
        if i + 1 < len(outs) and outs[i + 1] == name + ".shape":
            # of data-dependent shape: the tensor of the shape it has,
            # packed at the front
            s = np.load(os.path.join(t, outs[i + 1] + ".npy"))
            a = a.ravel()[:int(np.prod(s))].reshape(s)
        sys.stdout.buffer.write(np.ascontiguousarray(a).tobytes())
"""


def partitioned(tmp, g):
    """A graph with ops beyond WebNN through JavaScript: placed by
    nnl-cpu-partition (the ops beyond WebNN on the CPU), the module
    nnl-emit-js writes run partitioned in node; (program, None)."""
    p = os.path.join(tmp, "p.json")
    for cmd in ([os.path.join(BIN, "nnl-shape-infer"), "-o", p, g],
                [os.path.join(BIN, "nnl-cpu-partition"), "-p",
                 os.path.join(ROOT, "pipelines", "profiles", "cpu.json"),
                 "-o", p, p],
                [os.path.join(BIN, "nnl-emit-js"), "-o",
                 os.path.join(tmp, "model.js"), p]):
        r = run(cmd, cwd=tmp)
        if crashed(r):
            return None, ("FAIL", "%s crashed: %s" % (
                os.path.basename(cmd[0]), why(r)), True, None)
        if r.returncode != 0:
            return None, ("FAIL", "%s: %s" % (os.path.basename(cmd[0]),
                                                why(r)), False, None)
    # the module imports CpuOps from beside it (nnl-emit-js(1))
    shutil.copy(os.path.join(ROOT, "common", "rt", "js", "cpuops.mjs"), tmp)
    with open(p) as f:
        gj = json.load(f)
    w = os.path.join(tmp, "g.weights")
    mf = os.path.join(tmp, "g.manifest.json")
    m = {"runner": os.path.join(ROOT, "tests", "js", "run-partitioned.mjs"),
         "bin": BIN, "js": os.path.join(tmp, "model.js"),
         "w": w if os.path.exists(w) else "-",
         "mf": mf if os.path.exists(w) else "-",
         # NumPy has no bfloat16: its bits as uint16
         "ins": [(k, {"bool": "uint8", "bfloat16": "uint16"}.get(
                  v["dataType"], v["dataType"]),
                  v["shape"]) for k, v in gj["inputs"].items()],
         "outs": list(gj["outputs"])}
    exe = os.path.join(tmp, "prog")
    with open(exe, "w") as f:
        f.write(PROG % json.dumps(m))
    os.chmod(exe, 0o755)
    return exe, None


def check(test, d, tmp):
    try:
        model = onnx.load(os.path.join(d, "model.onnx"),
                          load_external_data=False)
    except Exception as e:  # what the importer must refuse, not a crash
        return "FAIL", "unreadable model.onnx: %s" % e, False, None
    inits = {t.name for t in model.graph.initializer}
    names = [v.name for v in model.graph.input if v.name not in inits]
    sets = sorted(glob.glob(os.path.join(d, "test_data_set_*")))
    if not sets:
        return "FAIL", "no test data", False, None
    consts, exe = [], None
    for s in sets:
        try:
            ins = dict(zip(names, tensors(s, "input")))
        except Exception:   # sequences and optionals are not tensors
            ins = {}
        if exe is None or consts:
            # inputs given as constants are compiled in, once per set
            exe, bad = build(test, d, tmp, consts, ins)
            if bad:
                return bad
        try:
            outs = tensors(s, "output")
        except Exception as e:
            return "FAIL", "%s: unreadable test data: %s" % (
                os.path.basename(s), e), False, None
        if len(ins) != len(names):
            return "FAIL", "%s: unreadable test inputs" % (
                os.path.basename(s)), False, None
        raw = b"".join(np.ascontiguousarray(ins[n]).tobytes()
                       for n in names if n not in consts)
        p = run([exe], input=raw)
        if p is None or p.returncode != 0:
            return "FAIL", "%s: run: %s" % (os.path.basename(s), why(p)), \
                p is None or p.returncode < 0, None
        buf, off = p.stdout, 0
        for k, want in enumerate(outs):
            n = want.size * want.dtype.itemsize
            if off + n > len(buf):
                return "FAIL", "%s: output %d: %d bytes, wanted %d" % (
                    os.path.basename(s), k, len(buf) - off, n), False, None
            got = np.frombuffer(buf[off:off + n], dtype=want.dtype)
            got = got.reshape(want.shape)
            off += n
            r = compare(got, want)
            if r:
                return "FAIL", "%s: output %d: %s" % (
                    os.path.basename(s), k, r), False, None
        if off != len(buf):
            return "FAIL", "%s: %d bytes of output, wanted %d" % (
                os.path.basename(s), len(buf), off), False, None
    return "PASS", ("with --const " + ", ".join(consts)) if consts else "", \
        False, None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", default="")
    ap.add_argument("--report")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--data", default=DATA)
    ap.add_argument("--keep")
    ap.add_argument("--js", action="store_true", help="through "
                    "nnl-emit-js and the WebIDL stub (tests/js)")
    ap.add_argument("--expect", help="a report: each test it lists as "
                    "PASS must still pass")
    ap.add_argument("--bin", help="the nnl programs' directory")
    a = ap.parse_args()
    global JS, BIN
    JS = a.js
    if a.bin:
        BIN = os.path.abspath(a.bin)
    a.data = os.path.abspath(a.data)   # each test runs in its own folder
    expect = set()
    if a.expect:
        try:
            with open(a.expect) as f:
                expect = {l.split()[1].rstrip(":") for l in f
                          if l.startswith("PASS ")}
        except OSError as e:
            ap.error("--expect %s: %s" % (a.expect, e.strerror))
        if a.report and os.path.exists(a.report) and \
                os.path.samefile(a.expect, a.report):
            ap.error("--expect and --report name the same file: the "
                     "run would accept what it finds")
    tests = sorted(t for t in os.listdir(a.data)
                   if t.startswith("test_") and a.only in t)
    lines, counts, crashes = [], {"PASS": 0, "FAIL": 0, "UNSUPPORTED": 0}, 0
    codes = {}
    tty = sys.stderr.isatty()   # a progress line on a terminal only
    with ThreadPoolExecutor(a.jobs) as ex:
        for test, (st, msg, crash, code) in zip(tests, ex.map(
                lambda t: one(t, a.data, a.keep), tests)):
            line = "%s %s%s%s" % (st, test, " [%s]" % code if code else "",
                                  ": " + msg if msg else "")
            if code:
                codes[code] = codes.get(code, 0) + 1
            if tty:
                sys.stderr.write("\r\033[K")
                sys.stderr.flush()
            print(line, flush=True)
            lines.append(line)
            counts[st] += 1
            crashes += crash
            if tty:
                sys.stderr.write("\rconformance: %d/%d (%d%%), %d passed"
                                 % (len(lines), len(tests),
                                    100 * len(lines) // len(tests),
                                    counts["PASS"]))
                sys.stderr.flush()
    if tty:
        sys.stderr.write("\r\033[K")
    summary = "%d passed, %d failed, %d skipped" % (
        counts["PASS"], counts["FAIL"], counts["UNSUPPORTED"])
    if codes:
        summary += " (refused: %s)" % ", ".join(
            "%s %d" % (c, n) for c, n in sorted(
                codes.items(), key=lambda cn: (-cn[1], cn[0])))
    print(summary)
    if a.report:
        with open(a.report, "w") as f:
            f.write(HEADJS if JS else HEAD)
            f.write("\n".join(lines) + "\n" + summary + "\n")
    passed = {l.split()[1].rstrip(":") for l in lines
              if l.startswith("PASS ")}
    lost = sorted(t for t in expect - passed if a.only in t)
    for t in lost:
        print("conformance: %s passed before and fails now" % t)
    new = sorted(passed - expect) if a.expect else []
    if new:
        print("conformance: %d test(s) pass that %s does not list as "
              "PASS: %s" % (len(new), a.expect, " ".join(new[:5]) +
                            (" ..." if len(new) > 5 else "")))
    if crashes:
        print("conformance: %d run(s) crashed or hung" % crashes)
    return 1 if crashes or lost else 0


if __name__ == "__main__":
    sys.exit(main())
