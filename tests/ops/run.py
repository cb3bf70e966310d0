#!/usr/bin/python3
"""run: every WebNN op of the table through nnl, against NumPy/PyTorch.

Usage: run.py [--c] [--write-goldens] [--only NAME[,NAME...]]
For each case: a one-node graph is built; nnl-shape-infer's types must
equal the reference result's shapes and data types; nnl-run's outputs
must have those types and equal the reference values (float32 rtol
1e-5 atol 1e-5, float16 per half precision, float64 rtol 1e-12 atol
1e-12, bfloat16 (held as its bits, uint16 in .npy files) the bits of
the reference rounded to nearest even, integers exactly; NaN only
where the reference has NaN, infinities of the same sign); with --c,
the graph also goes through nnl-plan-memory and nnl-emit-c, the
header must declare the reference's output types, and the compiled
program must write exactly their bytes and the same values (the C of
BATCH cases, 32, compiled as one program: each case's source included
under its own prefix, the runtime once as nnl-emit-c guards it, with a
main that runs the case its argument names; a batch that does not
compile is compiled again case by case, for the case's own message).
Invalid
cases must be refused by nnl-shape-infer with the expected message.
Each case draws its data from a generator seeded by its name, so
--only NAME sees the data the whole run does.  Ends with "ops: N
passed, M failed".
"""
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import tempfile
import zlib

import numpy as np

import refs

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
BIN = os.environ.get("NNL_BIN") or os.path.join(ROOT, "bin")
# Extra flags for the generated C (make check-asan: the sanitizers).
CFLAGS = os.environ.get("NNL_TEST_CFLAGS", "").split()
BATCH = 32     # cases compiled as one program
NP = {"float32": np.float32, "float16": np.float16, "int32": np.int32,
      "uint32": np.uint32, "int64": np.int64, "uint64": np.uint64,
      "int8": np.int8, "uint8": np.uint8, "float64": np.float64,
      "int16": np.int16, "uint16": np.uint16,
      "bfloat16": np.uint16}    # nnl's extended types; bfloat16 its bits


def to_bf16(a):
    """float values as bfloat16 bits, rounded to nearest, ties to even
    (from float32, as a float32 input holds them); NaN stays NaN."""
    u = np.asarray(a, dtype=np.float32).view(np.uint32).astype(np.uint64)
    r = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    nan = np.isnan(np.asarray(a, dtype=np.float32))
    return np.where(nan, (u >> 16).astype(np.uint16) | 0x40, r).astype(
        np.uint16)


def from_bf16(b):
    """bfloat16 bits as float64 values."""
    return (np.asarray(b, dtype=np.uint16).astype(np.uint32) << 16).view(
        np.float32).astype(np.float64)

CASES = []
INVALID = []


def gen(dt, shape, kind, rng):
    """Data of one input.  kind: a list or array of the values
    themselves (row-major, as many as the shape holds), or the name of
    a distribution: "n" standard normal (integers uniform in [-50, 50]
    within the type), "pos" positive, "neg" negative, "unit" in
    (-0.9, 0.9), "bool" 0
    and 1, "full" integers over the type's whole range, "nz" nonzero
    integers in [-9, 9], "idx:N" indices in [-N, N), "uidx:N" in
    [0, N)."""
    if dt == "bfloat16":
        return to_bf16(gen("float32", shape, kind, rng))
    t = NP[dt]
    if not isinstance(kind, str):
        a = np.asarray(kind, dtype=np.float64 if t in (np.float32,
                                                      np.float16,
                                                      np.float64) else t)
        if a.size != int(np.prod(shape)):
            raise ValueError("%d values for shape %s" % (a.size, shape))
        return a.reshape(shape).astype(t)
    if kind == "pos" and np.issubdtype(t, np.integer):
        a = rng.integers(1, 10, shape)
    elif kind == "pos":
        a = rng.uniform(0.5, 2.0, shape)
    elif kind == "neg":
        a = -rng.uniform(0.1, 2.0, shape)
    elif kind == "unit":
        a = rng.uniform(-0.9, 0.9, shape)
    elif kind == "bool":
        a = rng.integers(0, 2, shape)
    elif kind == "full":
        info = np.iinfo(t)
        a = rng.integers(info.min, info.max, shape, dtype=t,
                         endpoint=True)
    elif kind == "nz":
        a = rng.integers(1, 10, shape) * rng.choice([-1, 1], shape)
    elif kind.startswith("idx:"):
        n = int(kind[4:])
        a = rng.integers(-n, n, shape)
    elif kind.startswith("uidx:"):
        a = rng.integers(0, int(kind[5:]), shape)
    elif np.issubdtype(t, np.integer):
        info = np.iinfo(t)
        a = rng.integers(max(info.min, -50), min(info.max, 50) + 1, shape)
    else:
        a = rng.standard_normal(shape)
    return np.asarray(a).astype(t)


def op_names():
    """Every op of the table: WebNN's (ops.def), then nnl's own
    (ops_nnl.def)."""
    names = []
    for t in ("ops.def", "ops_nnl.def"):
        with open(os.path.join(ROOT, "common", "core", t)) as f:
            names += re.findall(r'^OP\(\w+, "(\w+)"', f.read(), re.M)
    return names


def case(name, op, ins, opts=None, ref=None, nout=1, optins=None, tol=None,
         odt=None):
    """ins: [(name, dtype, shape, kind)]; optins: {option: same tuple};
    odt: the output data type where the reference's own cannot say it
    (see want_types)."""
    CASES.append(dict(name=name, op=op, ins=ins, opts=opts or {}, ref=ref,
                      nout=nout, optins=optins or {}, tol=tol, odt=odt))


def invalid(name, op, ins, opts, msg, optins=None, nout=1):
    INVALID.append(dict(name=name, op=op, ins=ins, opts=opts, msg=msg,
                        optins=optins or {}, nout=nout))


def graph(c):
    inputs = {}
    for n, dt, shape, _ in c["ins"]:
        inputs[n] = {"dataType": dt, "shape": list(shape)}
    opts = dict(c["opts"])
    for k, (n, dt, shape, _) in c["optins"].items():
        inputs[n] = {"dataType": dt, "shape": list(shape)}
        opts[k] = n
    node = {"id": "y0" if c["nout"] > 1 else "y", "op": c["op"],
            "inputs": [n for n, _, _, _ in c["ins"]], "options": opts}
    outs = ["y%d" % i for i in range(c["nout"])] if c["nout"] > 1 else ["y"]
    if c["nout"] > 1:
        node["outputs"] = outs
    return {"format": "webnn-graph-json", "version": 1, "name": c["name"],
            "inputs": inputs, "consts": {}, "nodes": [node],
            "outputs": {o: o for o in outs}}


def want_types(c, want, data):
    """The data type of each reference output: its own, or for the
    float64 the references compute in, the case's float input type
    (WebNN's float ops keep their input's type); c["odt"] overrides,
    a type for every output or a list of one for each."""
    if isinstance(c["odt"], list):
        return list(c["odt"])
    if c["odt"]:
        return [c["odt"]] * len(want)
    floats = {dt for n, dt, _, _ in c["ins"] + list(c["optins"].values())
              if dt in ("float32", "float16", "float64", "bfloat16")}
    out = []
    for w in want:
        dt = np.asarray(w).dtype.name
        if dt == "float64":
            if len(floats) != 1:
                raise ValueError("case %s: float64 reference and float "
                                 "inputs %s: name odt" % (c["name"], floats))
            dt = next(iter(floats))
        if dt not in NP:
            raise ValueError("case %s: reference type %s" % (c["name"], dt))
        out.append(dt)
    return out


def compare(got, want, dt, tol):
    if dt == "bfloat16" and not tol:
        w = to_bf16(want)
        if not np.array_equal(np.asarray(got).view(np.uint16), w):
            return "bfloat16 bits differ: %s vs %s" % (
                np.asarray(got).ravel()[:8], w.ravel()[:8])
        return None
    if dt == "bfloat16":
        got = from_bf16(got)
    if dt in ("float32", "float16", "float64", "bfloat16"):
        rt, at = (tol, tol) if tol else ((1e-5, 1e-5) if dt == "float32"
                                         else (1e-12, 1e-12)
                                         if dt == "float64"
                                         else (2e-3, 2e-3))
        w = want.astype(np.float64)
        g = got.astype(np.float64)
        if not np.allclose(g, w, rtol=rt, atol=at, equal_nan=True):
            return "max diff %g" % np.nanmax(np.abs(g - w))
        return None
    if not np.array_equal(got, want):
        return "integers differ: %s vs %s" % (got.ravel()[:8],
                                             want.ravel()[:8])
    return None


def check(c, tmp, do_c, idx):
    """The case's types and nnl-run's values: None where they pass, an
    error, or, with do_c, the case's C to compile and run (c_job)."""
    g = graph(c)
    gp = os.path.join(tmp, c["name"] + ".json")
    json.dump(g, open(gp, "w"))
    data = {}
    args = []
    rng = np.random.default_rng(zlib.crc32(c["name"].encode()))
    for n, dt, shape, kind in c["ins"] + list(c["optins"].values()):
        a = gen(dt, shape, kind, rng)
        data[n] = a
        p = os.path.join(tmp, n + ".npy")
        np.save(p, a)
        args.append("%s=%s" % (n, p))
    bf = {n for n, dt, _, _ in c["ins"] + list(c["optins"].values())
          if dt == "bfloat16"}
    arrays = {n: (from_bf16(a) if n in bf else a.astype(np.float64)
                  if a.dtype.kind == "f" else a)
              for n, a in data.items()}
    with np.errstate(all="ignore"):     # NaN and Inf are meant
        want = c["ref"](arrays, c)
    if not isinstance(want, list):
        want = [want]
    wdt = want_types(c, want, data)
    # types
    r = subprocess.run([os.path.join(BIN, "nnl-shape-infer"), gp],
                       capture_output=True, text=True)
    if r.returncode:
        return "shape-infer failed: " + r.stderr.strip()[:300]
    typed = json.loads(r.stdout)
    types = typed["nodes"][0]["types"]
    if len(types) != len(want):
        return "%d outputs, reference %d" % (len(types), len(want))
    for k, (t, w) in enumerate(zip(types, want)):
        if list(t["shape"]) != list(np.shape(w)):
            return "output %d: shape %s, reference %s" % (
                k, t["shape"], list(np.shape(w)))
        if t["dataType"] != wdt[k]:
            return "output %d: type %s, reference %s" % (
                k, t["dataType"], wdt[k])
    # values
    od = os.path.join(tmp, "out")
    os.makedirs(od, exist_ok=True)
    r = subprocess.run([os.path.join(BIN, "nnl-run"), "-d", od, gp] + args,
                       capture_output=True, text=True)
    if r.returncode:
        return "nnl-run failed: " + r.stderr.strip()[:300]
    outs = list(g["outputs"])
    for k, o in enumerate(outs):
        got = np.load(os.path.join(od, o + ".npy"))
        if got.dtype.name != types[k]["dataType"] and not (
                types[k]["dataType"] == "bfloat16" and got.dtype == np.uint16):
            return "nnl-run wrote %s for %s" % (got.dtype, o)
        err = compare(got, np.asarray(want[k]), types[k]["dataType"], c["tol"])
        if err:
            return "nnl-run: output %s: %s" % (o, err)
    if not do_c:
        return None
    return c_job(c, tmp, idx, gp, g, data, types, wdt, outs, want)


def c_job(c, tmp, k, gp, g, data, types, wdt, outs, want):
    """The case's C, emitted with prefix cK into tmp/cK.c, its header's
    output declarations checked: a job for run_batch, or an error."""
    pfx = "c%d" % k
    src = os.path.join(tmp, pfx + ".c")
    cmd = "%s/nnl-shape-infer %s | %s/nnl-plan-memory | %s/nnl-emit-c -p %s -o %s" % (
        BIN, gp, BIN, BIN, pfx, src)
    r = subprocess.run(cmd, shell=True, capture_output=True, text=True)
    if r.returncode:
        return "emit-c failed: " + r.stderr.strip()[:300]
    hdr = open(os.path.join(tmp, pfx + ".h")).read()
    decl = hdr[hdr.index(" * Outputs:\n"):].split("\n")[1:1 + len(outs)]
    for i, o in enumerate(outs):
        m = re.match(r" \*   (\S+) (\w+)\[", decl[i])
        if not m or m.group(1) != o or m.group(2) != wdt[i]:
            return "C header declares %r for output %s, reference %s" % (
                decl[i], o, wdt[i])
    return dict(c=c, pfx=pfx, outs=outs, types=types, wdt=wdt, want=want,
                blob=b"".join(data[n].tobytes() for n in g["inputs"]))


# The main of a batch: the case argv[1] names, its raw inputs from
# standard input, its raw outputs to standard output, as nnl-emit-c -m
# writes it for one model.
DRIVER = r"""
#include <stdio.h>
#include <stdlib.h>

static const struct {
	size_t (*ib)(void), (*ob)(void);
	int (*infer)(const void *, void *);
} cases[] = {
%s
};

int
main(int argc, char **argv)
{
	static unsigned char in[1 << 24];
	unsigned char *out;
	size_t n, k;

	if (argc != 2 || (k = (size_t)atoi(argv[1])) >=
	    sizeof cases / sizeof cases[0])
		return 2;
	n = fread(in, 1, sizeof in, stdin);
	if (n != cases[k].ib()) {
		fprintf(stderr, "expected %%zu bytes of input, got %%zu\n",
		    cases[k].ib(), n);
		return 1;
	}
	if (!(out = malloc(cases[k].ob() + 1)))
		return 1;
	switch (cases[k].infer(in, out)) {
	case 0:
		break;
	case 3:
		fprintf(stderr, "a size computed at run time is past its "
		    "bound or invalid\n");
		return 1;
	default:
		return 1;
	}
	if (fwrite(out, 1, cases[k].ob(), stdout) != cases[k].ob() ||
	    fflush(stdout) != 0)
		return 1;
	free(out);
	return 0;
}
"""


def run_batch(jobs, tmp, n):
    """Compiles the jobs as one program and runs each: {name: error or
    None}.  A batch that does not compile: each job again alone."""
    drv = os.path.join(tmp, "batch%s.c" % n)
    with open(drv, "w") as f:
        f.write("".join('#include "%s.c"\n' % j["pfx"] for j in jobs))
        f.write(DRIVER % ",\n".join(
            "\t{ %s_input_bytes, %s_output_bytes, %s_infer }"
            % (j["pfx"], j["pfx"], j["pfx"]) for j in jobs))
    exe = drv[:-2]
    r = subprocess.run(["cc", "-O1"] + CFLAGS + ["-o", exe, drv, "-lm"],
                       capture_output=True, text=True)
    if r.returncode:
        if len(jobs) == 1:
            return {jobs[0]["c"]["name"]: "cc failed: " +
                    r.stderr.strip()[:500]}
        res = {}
        for i, j in enumerate(jobs):
            res.update(run_batch([j], tmp, "%s_%d" % (n, i)))
        return res
    return {j["c"]["name"]: run_c(j, exe, i) for i, j in enumerate(jobs)}


def run_c(j, exe, i):
    """Job j, case i of program exe: None, or what is wrong."""
    c, types, wdt, outs, want = (j[x] for x in
                                 ("c", "types", "wdt", "outs", "want"))
    r = subprocess.run([exe, str(i)], input=j["blob"], capture_output=True)
    if r.returncode:
        return "compiled model failed: %r" % r.stderr[:200]
    size = sum(int(np.prod(t["shape"])) * np.dtype(NP[d]).itemsize
               for t, d in zip(types, wdt))
    if len(r.stdout) != size:
        return "compiled model wrote %d bytes, the reference types %d" % (
            len(r.stdout), size)
    off = 0
    for k, o in enumerate(outs):
        t = types[k]
        n = int(np.prod(t["shape"])) if t["shape"] else 1
        dt = np.dtype(NP[t["dataType"]])
        got = np.frombuffer(r.stdout[off:off + n * dt.itemsize],
                            dt).reshape(t["shape"])
        off += n * dt.itemsize
        err = compare(got, np.asarray(want[k]), t["dataType"], c["tol"])
        if err:
            return "C: output %s: %s" % (o, err)
    return None


def check_invalid(c, tmp):
    gp = os.path.join(tmp, c["name"] + ".json")
    json.dump(graph(c), open(gp, "w"))
    r = subprocess.run([os.path.join(BIN, "nnl-shape-infer"), gp],
                       capture_output=True, text=True)
    if r.returncode != 1:
        return "exit %d, expected 1" % r.returncode
    if c["msg"] not in r.stderr or 'node "' not in r.stderr:
        return "message %r lacks %r" % (r.stderr.strip(), c["msg"])
    return None


class Tally:
    """A reporter for check_all: prints each case's line, counts them,
    and calls then(case) for each that passed."""

    def __init__(self, then=None):
        self.passed = self.failed = 0
        self.then = then

    def __call__(self, c, err, then=True):
        print(("ok - %s" % c["name"]) if not err else
              "not ok - %s: %s" % (c["name"], err))
        self.passed += err is None
        self.failed += err is not None
        if then and self.then and not err:
            self.then(c)


def check_all(todo, tmp, do_c, report):
    """Checks the cases todo, calling report(case, None or the error)
    for each: with do_c, the C of BATCH cases compiled as one program on
    a second thread while the cases after them are checked (run_batch
    reads only its own files)."""
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        jobs, batches = [], []
        for k, c in enumerate(todo):
            try:
                err = check(c, tmp, do_c, k)
            except Exception as e:      # a reference that cannot say
                err = "raised %r" % e
            if isinstance(err, dict):
                jobs.append(err)        # its C: compiled with the batch
            else:
                report(c, err)
            if jobs and (len(jobs) == BATCH or k == len(todo) - 1):
                batches.append((jobs, pool.submit(run_batch, jobs, tmp,
                                                  k)))
                jobs = []
        for jobs, res in batches:
            for j in jobs:
                report(j["c"], res.result()[j["c"]["name"]])


def golden(c):
    """Case c's graph and types as a pair of shape-infer golden files."""
    d = os.path.join(ROOT, "tests", "golden", "shape-infer")
    os.makedirs(d, exist_ok=True)
    ip = os.path.join(d, c["name"] + ".in.json")
    json.dump(graph(c), open(ip, "w"), indent=1)
    subprocess.run([os.path.join(BIN, "nnl-parse"), "-o", ip, ip],
                   check=True)
    subprocess.run([os.path.join(BIN, "nnl-shape-infer"), "-o",
                    ip.replace(".in.", ".out."), ip], check=True)


def main():
    import cases  # noqa: F401  (fills CASES and INVALID)
    do_c = "--c" in sys.argv
    write = "--write-goldens" in sys.argv
    only = set(sys.argv[sys.argv.index("--only") + 1].split(",")) \
        if "--only" in sys.argv else None
    t = Tally(golden if write else None)
    with tempfile.TemporaryDirectory() as tmp:
        check_all([c for c in CASES if only is None or c["name"] in only],
                  tmp, do_c, t)
        for c in INVALID:
            if only is not None and c["name"] not in only:
                continue
            err = check_invalid(c, tmp)
            t(dict(c, name="invalid " + c["name"]), err, then=False)
    for n in sorted((only or set()) - {c["name"] for c in CASES + INVALID}):
        print("not ok - --only %s: no such case" % n)
        t.failed += 1
    ops_seen = {c["op"] for c in CASES}
    print("# %d ops with value cases" % len(ops_seen))
    print("# %d ops with refusal cases" % len({c["op"] for c in INVALID}))
    print("ops: %d passed, %d failed" % (t.passed, t.failed))
    sys.exit(1 if t.failed else 0)

if __name__ == "__main__":
    sys.modules["run"] = sys.modules[__name__]
    main()
