#!/usr/bin/python3
"""fuzz: seeded mutation fuzzing of every nnl program, built with the
sanitizers (make asan), including the C that nnl-emit-c generates,
compiled with them and run on random input, and the modules
nnl-emit-js writes, run in node against tests/js/webnn-stub.mjs.

Usage: fuzz.py [-b bindir] [-f findings] [-m minutes] [-n count]
               [-r share] [-s seed] [-i index] [-t seconds] TARGET
Targets: json webnn nnl onnx npy weights emitc emitjs run nnc.

Input I of seed S is the same on every run: -i I replays it alone.
Two inputs of every three (all but I = 2, 5, 8...) are kept sound: a
model from the goldens, examples or ONNX node tests with new values in
its constants, weights and inputs (fuzzgen's vary_*), so that the stages
after the first parser and the back ends see it; the third is hostile.
Each input runs in a scratch directory under a time limit per command
(-t, 30 s), a memory limit (ASan's hard_rss_limit_mb and
max_allocation_size_mb, node's heap), and a file size limit.  The
programs get the caller's ASAN_OPTIONS and UBSAN_OPTIONS, then
fuzz.py's own (log files in the scratch directory), then exitcode=86
(ASan) and exitcode=87 (UBSan) unless the caller chose exit codes.  A
finding is a sanitizer report (a log file, exit status 86 or 87, or a
report on standard error: GCC's UBSan writes no log file, and exits 1
without exitcode=), a signal, a hang, an exit status other
than 0 or 1 (or what the command allows), an exit 1 without an error
message, an output file left behind by a failed command, a file left
in TMPDIR, or generated C above 8 MB; it is kept
in FINDINGS/TARGET-KIND-N/ with its inputs, the report and repro.sh,
at most two per distinct signature.  Prints one summary line (JSON)
and appends it to FINDINGS/summary.jsonl, then the reach table: for
each step of the target's pipeline (STAGES), how many inputs reached
it (ran it) and how many of those it accepted:
  fuzz: webnn: 6 inputs (4 sound); nnl-parse 6 (4 ok), ...
Exits 1 on a finding, and with -r SHARE when a back end of the target
(STAGES) was reached by fewer than SHARE of the inputs.
"""
import argparse
import json
import os
import random
import re
import resource
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fuzzgen as G  # noqa: E402

ROOT = G.ROOT
MEM_MB = 2048
# The exit status of a program that a sanitizer stopped (env() sets
# it unless the caller's options do), and the text of its reports.
SANEXIT = {86: "asan", 87: "ubsan"}
SANTEXT = re.compile(r"^(SUMMARY: \w+Sanitizer|==\d+==ERROR: \w+Sanitizer)"
                     r"|: runtime error: ", re.M)
SANCC = ["cc", "-O1", "-g", "-fsanitize=address,undefined",
         "-fno-sanitize-recover=undefined", "-fno-omit-frame-pointer"]


# Each target's steps in pipeline order (as stage() names them), and
# its back ends: the steps that -r requires a share of inputs to reach.
STAGES = {
    "json": (["nnl-shape-infer", "nnl-parse -t webnn", "nnl-reorder",
              "nnl-fuse", "nnl-plan-memory", "nnl-cpu-partition",
              "nnl-emit-dot"], ["nnl-cpu-partition", "nnl-emit-dot"]),
    "webnn": (["nnl-parse -t webnn", "nnl-parse", "nnl-shape-infer",
               "nnl-fuse", "nnl-plan-memory", "nnl-emit-c"],
              ["nnl-emit-c"]),
    "nnl": (["nnl-parse", "nnl-shape-infer", "nnl-parse -t nnl"],
            ["nnl-parse -t nnl"]),
    "onnx": (["nnl-onnx-import", "nnl-shape-infer", "nnl-plan-memory",
              "nnl-emit-c"], ["nnl-emit-c"]),
    "npy": (["nnl-pack-weights pack", "nnl-pack-weights list",
             "nnl-pack-weights verify", "nnl-pack-weights unpack"],
            ["nnl-pack-weights unpack"]),
    "weights": (["nnl-pack-weights list", "nnl-pack-weights verify",
                 "nnl-pack-weights unpack", "nnl-shape-infer", "nnl-run",
                 "nnl-plan-memory", "nnl-emit-c", "nnl-emit-js"],
                ["nnl-run", "nnl-emit-c", "nnl-emit-js"]),
    "emitc": (["nnl-shape-infer", "nnl-fuse", "nnl-plan-memory",
               "nnl-emit-c", "cc", "./m"], ["nnl-emit-c", "./m"]),
    "emitjs": (["nnl-shape-infer", "nnl-emit-js", "node"], ["node"]),
    "run": (["nnl-shape-infer", "nnl-run"], ["nnl-run"]),
    "nnc": (["nnl-parse -t webnn", "nnc import", "nnc inspect",
             "nnc compile", "nnc test"], ["nnc compile"]),
}


class Finding(Exception):
    def __init__(self, kind, step, detail):
        super().__init__(kind)
        self.kind, self.step, self.detail = kind, step, detail


class Case:
    """One input: a scratch directory and the steps run in it."""

    def __init__(self, fz, r):
        self.fz, self.r = fz, r
        self.dir = tempfile.mkdtemp(prefix="nnlfz.")
        self.tmp = os.path.join(self.dir, ".tmp")
        self.san = os.path.join(self.dir, ".san")
        os.mkdir(self.tmp)
        os.mkdir(self.san)
        self.steps = []
        self.reached = {}
        self.snap = None

    def path(self, name):
        return os.path.join(self.dir, name)

    def write(self, name, data):
        """Write an input file (into the kept inputs too, once frozen)."""
        for d in [self.dir] + ([self.snap] if self.snap else []):
            with open(os.path.join(d, name), "wb" if isinstance(
                    data, bytes) else "w") as f:
                f.write(data)
        return name

    def mkdir(self, name):
        for d in [self.dir] + ([self.snap] if self.snap else []):
            os.makedirs(os.path.join(d, name), exist_ok=True)
        return name

    def files(self):
        out = set()
        for dp, dn, fn in os.walk(self.dir):
            dn[:] = [x for x in dn if x not in (".san", ".tmp", ".in")]
            for x in fn:
                out.add(os.path.relpath(os.path.join(dp, x), self.dir))
        return out

    def freeze(self):
        """Keep the inputs as they are before the first command."""
        if self.snap is None:
            self.snap = self.path(".in")
            shutil.copytree(self.dir, self.snap, symlinks=True,
                            ignore=shutil.ignore_patterns(".san", ".tmp",
                                                          ".in"),
                            copy_function=copy)

    def run(self, argv, stdin=None, stdout=None, outs=(), ok=(0, 1),
            timeout=None):
        """Run argv (nnl-* names resolved to the sanitizer build) in the
        scratch directory; return its exit status, or raise Finding."""
        self.freeze()
        argv = [os.path.join(self.fz.bin, a) if a.startswith("nnl-") or
                a == "nnc" else a for a in argv]
        self.steps.append((argv, stdin, stdout, ok))
        before = self.files()
        fin = open(self.path(stdin), "rb") if stdin else subprocess.DEVNULL
        fout = open(self.path(stdout), "wb") if stdout else \
            subprocess.DEVNULL
        t = timeout or self.fz.timeout
        step = stage(argv)
        self.reached.setdefault(step, False)
        try:
            p = subprocess.Popen(argv, cwd=self.dir, stdin=fin, stdout=fout,
                                 stderr=subprocess.PIPE, env=self.fz.env(
                                     self), start_new_session=True,
                                 preexec_fn=limits)
            try:
                _, err = p.communicate(timeout=t)
                rc = p.returncode
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                p.communicate()
                raise Finding("hang", step, "no exit after %d s" % t)
        finally:
            if stdin:
                fin.close()
            if stdout:
                fout.close()
        err = err.decode(errors="replace")
        self.fz.execs += 1
        self.fz.steps[step] = self.fz.steps.get(step, 0) + 1
        self.reached[step] |= rc == 0
        rep = self.reports()
        if rep:
            raise Finding(rep[0], step, rep[1])
        # GCC's UBSan writes to standard error whatever log_path says:
        # its exit status (env()) or its text tells, never a refusal
        if rc in SANEXIT or SANTEXT.search(err):
            kind = SANEXIT.get(rc, "ubsan" if "runtime error" in err
                               else "asan")
            m = re.search(r"ERROR: AddressSanitizer: ([\w-]+)", err)
            raise Finding("asan-" + m.group(1) if m else kind, step,
                          err[-6000:])
        if rc < 0:
            raise Finding("signal%d" % -rc, step, err[-2000:])
        if rc not in ok:
            raise Finding("exit%d" % rc, step, err[-2000:])
        own = step.startswith("nnl-") or step.startswith("nnc")
        if rc == 1 and stdout and b"FAIL" in open(self.path(stdout),
                                                  "rb").read():
            pass    # nnc test: a mismatch, reported on standard output
        elif rc == 1 and ("error" not in err if own else not err.strip()):
            raise Finding("silent-exit1", step, err[-2000:])
        if rc != 0:
            left = sorted(x for x in self.files() - before
                          if x != stdout)
            left += [o for o in outs if o in before and
                     self.fz.changed(self, o)]
            if left:
                raise Finding("partial-output", step,
                              "left behind: %s\n%s" % (left, err[-1000:]))
        stray = os.listdir(self.tmp)
        if stray:
            raise Finding("stray-temp", step, "in TMPDIR: %s" % stray)
        return rc

    def reports(self):
        for f in sorted(os.listdir(self.san)):
            text = open(os.path.join(self.san, f), errors="replace").read()
            if not text.strip():
                continue
            kind = "ubsan" if "runtime error" in text else "asan"
            m = re.search(r"ERROR: AddressSanitizer: ([\w-]+)", text)
            if m:
                kind = "asan-" + m.group(1)
            if "LeakSanitizer" in text:
                kind = "leak"
            return kind, text[:6000]
        return None

    def close(self):
        shutil.rmtree(self.dir, ignore_errors=True)


def stage(argv):
    """The name of a step in the reach table: the program, with its
    subcommand or output format where it has one."""
    name = argv[0] if argv[0].startswith("./") else \
        os.path.basename(argv[0])
    if name in ("nnc", "nnl-pack-weights") and len(argv) > 1:
        name += " " + argv[1]
    elif name == "nnl-parse" and "-t" in argv[:-1]:
        name += " -t " + argv[argv.index("-t") + 1]
    return name


def copy(src, dst):
    """shutil.copy2, but a FIFO is made again, not read."""
    if stat.S_ISFIFO(os.lstat(src).st_mode):
        os.mkfifo(dst)
    else:
        shutil.copy2(src, dst)


def limits():
    resource.setrlimit(resource.RLIMIT_FSIZE, (256 << 20, 256 << 20))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    os.nice(5)


def signature(f):
    """What makes two findings the same: the kind, the step and the
    first source location nnl's own code names in the report."""
    loc = ""
    locs = [x for x in re.findall(
        r"((?:common|passes|build)/[\w/.-]+\.c:\d+)", f.detail)
        if not x.startswith("common/util.c")]
    if locs:
        loc = locs[0]
    elif re.search(r"/m\.c:\d+", f.detail):
        loc = re.search(r"/m\.c:\d+", f.detail).group(0)
    else:
        m = re.search(r"error: ([^\n]{0,60})", f.detail)
        loc = re.sub(r"[0-9]+", "N", m.group(1)) if m else ""
    return "%s %s %s" % (f.kind, f.step, loc)


class Fuzzer:
    def __init__(self, a):
        self.target, self.seed = a.target, a.seed
        self.bin = os.path.abspath(a.bin)
        self.out = os.path.abspath(a.findings)
        self.timeout = a.timeout
        self.execs = self.inputs = self.valid = 0
        self.sigs = {}
        self.steps = {}
        self.reach = {}
        self.graphs = G.graph_corpus()
        self.onnx_ops = G.onnx_ops()

    def env(self, case):
        e = dict(os.environ)
        e["ASAN_OPTIONS"] = sanopts(e.get("ASAN_OPTIONS"), 86, (
            "halt_on_error=1:detect_leaks=0:abort_on_error=0:"
            "hard_rss_limit_mb=%d:max_allocation_size_mb=%d:"
            "allocator_may_return_null=0:log_path=%s/asan:"
            "log_exe_name=1" % (MEM_MB, MEM_MB, case.san)))
        e["UBSAN_OPTIONS"] = sanopts(e.get("UBSAN_OPTIONS"), 87, (
            "halt_on_error=1:print_stacktrace=1:"
            "log_path=%s/ubsan:log_exe_name=1" % case.san))
        e["TMPDIR"] = case.tmp
        e["LC_ALL"] = "C"
        e["NODE_OPTIONS"] = "--max-old-space-size=1024"
        return e

    def changed(self, case, name):
        a, b = case.path(name), os.path.join(case.snap, name)
        try:
            return open(a, "rb").read() != open(b, "rb").read()
        except OSError:
            return True

    def save(self, case, f, index):
        sig = signature(f)
        n = self.sigs.get(sig, 0) + 1
        self.sigs[sig] = n
        print("finding %s (input %d, #%d): %s" % (sig, index, n,
              f.detail.strip().splitlines()[-1][:200] if f.detail.strip()
              else ""), flush=True)
        if n > 2:
            return
        k = len(os.listdir(self.out)) if os.path.isdir(self.out) else 0
        d = os.path.join(self.out, "%s-%s-%d" % (self.target, f.kind, k))
        shutil.copytree(case.snap or case.dir, d, symlinks=True,
                        ignore=shutil.ignore_patterns(".san", ".tmp",
                                                      ".in"),
                        copy_function=copy)
        with open(os.path.join(d, "report.txt"), "w") as o:
            o.write("fuzz.py %s -s %d -i %d\nsignature: %s\nstep: %s\n\n%s"
                    % (self.target, self.seed, index, sig, f.step,
                       f.detail))
        with open(os.path.join(d, "repro.sh"), "w") as o:
            o.write("#!/bin/sh\n# %s: %s\n# Run in a copy of this "
                    "directory; B is the sanitizer build's bin.\n"
                    "B=${NNL_BIN:-%s}\n" % (self.target, sig, self.bin))
            for argv, si, so, ok in case.steps:
                line = " ".join(shq(a.replace(self.bin + "/", "$B/"))
                                for a in argv)
                if si:
                    line += " < " + shq(si)
                if so:
                    line += " > " + shq(so)
                o.write('%s\ncase $? in %s) ;; *) echo "exit $?: %s" >&2;; '
                        'esac\n' % (line, "|".join(map(str, ok)),
                                     os.path.basename(argv[0])))

    def loop(self, deadline, count, only):
        gen = getattr(self, "t_" + self.target)
        i = only if only is not None else 0
        while True:
            if only is None and (time.time() >= deadline or
                                 (count and self.inputs >= count)):
                break
            r = random.Random("%s/%d/%d" % (self.target, self.seed, i))
            case = Case(self, r)
            case.valid = i % 3 != 2
            self.valid += case.valid
            try:
                gen(case)
            except Finding as f:
                self.save(case, f, i)
            finally:
                case.close()
            for st, ok in case.reached.items():
                n = self.reach.setdefault(st, [0, 0])
                n[0] += 1
                n[1] += ok
            self.inputs += 1
            i += 1
            if only is not None:
                break

    # --- targets ------------------------------------------------------
    #
    # Input I is kept sound (c.valid: fuzzgen's vary_* mutators, new
    # values in a sound model) unless I % 3 == 2 (the hostile mutators).

    def graph(self, case, gentle=False):
        if case.valid:
            g = G.vary_graph(case.r, G.load_graph(case.r, self.graphs))
        else:
            g = G.mutate_graph(case.r, G.load_graph(case.r, self.graphs),
                               gentle)
        case.write("g.json", json.dumps(g))
        return g

    def t_json(self, c):
        self.graph(c)
        dot = ["nnl-emit-dot"] + c.r.choice([[], ["-c"], ["-l"]])
        if c.run(["nnl-shape-infer", "-o", "s.json", "g.json"], outs=[
                "s.json"]):
            c.run(["nnl-parse", "-t", "webnn", "-o", "g.webnn", "g.json"])
            c.run(dot + ["-o", "g.dot", "g.json"], outs=["g.dot"])
            return
        c.run(["nnl-parse", "-t", "webnn", "-o", "s.webnn", "s.json"])
        c.run(["nnl-reorder", "-o", "r.json", "s.json"])
        if c.run(["nnl-fuse", "-o", "f.json", "s.json"]):
            return
        if c.run(["nnl-plan-memory", "-o", "p.json", "f.json"]):
            return
        prof = c.r.choice(sorted(os.listdir(ROOT + "/pipelines/profiles")))
        if c.run(["nnl-cpu-partition", "-p",
                  ROOT + "/pipelines/profiles/" + prof, "-o", "c.json",
                  "s.json"]) == 0:
            c.run(dot + ["-o", "c.dot", "c.json"], outs=["c.dot"])

    def t_webnn(self, c):
        r = c.r
        if c.valid:
            self.graph(c)
            src = to_webnn(c)
            if src is None:
                return
        elif r.random() < 0.5:
            src = open(r.choice(G.webnn_corpus()), "rb").read()
        else:
            self.graph(c)
            src = to_webnn(c)
            if src is None:
                return
        c.write("g.webnn", G.mutate_text(r, src) if not c.valid and
                r.random() < 0.75 else src)
        if c.run(["nnl-parse", "-o", "g.json", "g.webnn"]):
            return
        if c.run(["nnl-shape-infer", "-o", "s.json", "g.json"]):
            return
        c.run(["nnl-parse", "-t", "webnn", "-o", "s.webnn", "s.json"])
        src = "s.json"
        if r.random() < 0.5:
            if c.run(["nnl-fuse", "-o", "f.json", src]):
                return
            src = "f.json"
        if c.run(["nnl-plan-memory", "-o", "p.json", src]) == 0:
            c.run(["nnl-emit-c", "-o", "m.c", "p.json"])

    def t_nnl(self, c):
        r = c.r
        model, wdir = r.choice(G.nnl_corpus())
        text = open(model, "rb").read()
        if wdir:
            m = re.search(rb'weights:\s*"([^"]*)"', text)
            dst = c.path(os.path.normpath(m.group(1).decode()))
            shutil.copytree(wdir, dst)
            for f in sorted(os.listdir(dst)):
                if r.random() < (0.5 if c.valid else 0.15):
                    p = os.path.join(dst, f)
                    with open(p, "rb") as i:
                        b = i.read()
                    with open(p, "wb") as o:
                        o.write(G.vary_npy(r, b) if c.valid else
                                G.hostile_npy(r))
        if not c.valid and r.random() < 0.85:
            text = G.mutate_text(r, text)
        c.write("m.nnl", text)
        args = ["nnl-parse", "-o", "g.json"]
        if c.valid or r.random() < 0.8:
            args += ["-w", "m.weights", "-m", "m.manifest.json"]
        if c.run(args + ["m.nnl"], outs=["g.json"]):
            return
        if c.run(["nnl-shape-infer", "-o", "s.json", "g.json"]) == 0:
            c.run(["nnl-parse", "-t", "nnl", "-o", "s.nnl", "s.json"])

    def onnx_model(self, c, times):
        """A model of the ONNX corpus: a sound one with its values
        varied when c.valid, else one mutated times(c.r) times; None
        when there is none."""
        import onnx
        r = c.r
        if c.valid:
            m, path = G.onnx_sound(r, G.onnx_corpus(), self.onnx_ops)
            if m is not None:
                G.onnx_vary(r, m, path)
            return m
        try:
            m = onnx.load(r.choice(G.onnx_corpus()))
        except Exception:
            return None
        for _ in range(times(r)):
            G.onnx_mutate(r, m, c.dir)
        return m

    def t_onnx(self, c):
        r = c.r
        m = self.onnx_model(c, lambda r: r.choice([1, 1, 2, 3]))
        if m is None:
            return
        b = bytearray(m.SerializeToString())
        if not c.valid and r.random() < 0.1 and b:
            for _ in range(r.randrange(1, 5)):
                b[r.randrange(len(b))] = r.randrange(256)
        c.write("m.onnx", bytes(b))
        if c.run(["nnl-onnx-import", "-o", "o.json", "-w", "o.weights",
                  "-m", "o.manifest.json", "m.onnx"]):
            return
        if c.run(["nnl-shape-infer", "-o", "s.json", "o.json"]):
            return
        if c.run(["nnl-plan-memory", "-o", "p.json", "s.json"]) == 0:
            c.run(["nnl-emit-c", "-o", "m.c", "p.json"])

    def t_npy(self, c):
        r = c.r
        srcs = []
        for i in range(r.randrange(1, 4)):
            if r.random() < 0.3:
                srcs.append(c.write("z%d.npz" % i, G.sound_npz(r)
                                    if c.valid else G.hostile_npz(r)))
            else:
                srcs.append(c.write("t%d.npy" % i, G.sound_npy(r)
                                    if c.valid else G.hostile_npy(r)))
        args = ["nnl-pack-weights", "pack", "-o", "w.weights", "-m",
                "w.manifest.json"]
        ok = (0, 1)
        if c.valid and r.random() < 0.3:
            args += ["-a", str(r.choice([4, 8, 16, 128, 4096]))]
        elif not c.valid and r.random() < 0.2:  # a bad -a: usage error
            args += ["-a", str(r.choice([1, 3, 64, 4096, 0, -1, 2**31,
                                         2**32 + 64, 2**63 - 1]))]
            ok = (0, 1, 2)
        if c.run(args + srcs, ok=ok):
            return
        c.run(["nnl-pack-weights", "list", "-m", "w.manifest.json",
               "w.weights"])
        c.run(["nnl-pack-weights", "verify", "-m", "w.manifest.json",
               "w.weights"])
        c.run(["nnl-pack-weights", "unpack", "-m", "w.manifest.json", "-d",
               "u", "w.weights"])

    def weighted_graph(self, c, gentle=True):
        """A graph whose constants live in a weights file, then (unless
        the input is kept sound) a hostile manifest or weights file,
        often."""
        r = c.r
        if c.valid:
            g = G.vary_graph(r, G.load_graph(r, self.graphs))
        else:
            g = G.mutate_graph(r, G.load_graph(r, self.graphs), gentle)
        ts = {}
        for name, t in list((g.get("inputs") or {}).items()):
            if r.random() < 0.6 and t["dataType"] in G.SIZE and all(
                    isinstance(x, int) and 0 <= x < 64 for x in t["shape"]):
                del g["inputs"][name]
                g.setdefault("consts", {})[name] = {
                    "dataType": t["dataType"], "shape": t["shape"],
                    "init": {"kind": "weights", "ref": name}}
                ts[name] = (t["dataType"], t["shape"])
        w, man = G.weights_pack(r, ts)
        if not c.valid and r.random() < 0.7:
            man = G.mutate_manifest(r, man, len(w))
        if not c.valid and r.random() < 0.3:
            w = G.mutate_weights(r, w)
        c.write("w.weights", w)
        c.write("w.manifest.json", json.dumps(man))
        g["weights"] = {"file": "w.weights", "manifest": "w.manifest.json"}
        k = 1 if c.valid else r.random()
        if k < 0.02:    # files that never end
            g["weights"][r.choice(["file", "manifest"])] = "/dev/zero"
        elif k < 0.03:
            os.mkfifo(c.path("fifo"))
            g["weights"][r.choice(["file", "manifest"])] = "fifo"
        c.write("g.json", json.dumps(g))
        return g

    def input_args(self, c, graph):
        """.npy files for graph's inputs: NAME=FILE arguments."""
        return G.input_files(c.r, json.load(open(c.path(graph))), c.write,
                             bad=0 if c.valid else 0.1)

    def t_weights(self, c):
        self.weighted_graph(c)
        for cmd in ("list", "verify"):
            c.run(["nnl-pack-weights", cmd, "-m", "w.manifest.json",
                   "w.weights"])
        c.run(["nnl-pack-weights", "unpack", "-m", "w.manifest.json", "-d",
               "u", "w.weights"])
        if c.run(["nnl-shape-infer", "-o", "s.json", "g.json"]):
            return
        c.run(["nnl-run", "-d", c.mkdir("o"), "s.json"] +
              self.input_args(c, "s.json"))
        if c.run(["nnl-plan-memory", "-o", "p.json", "s.json"]) == 0:
            c.run(["nnl-emit-c", "-e", c.r.choice(["array", "incbin"]),
                   "-o", "m.c", "p.json"])
            c.run(["nnl-emit-js", "-o", "m.js", "p.json"])

    def t_emitc(self, c):
        r = c.r
        if r.random() < 0.3:
            self.weighted_graph(c)
        else:
            self.graph(c, gentle=r.random() < 0.8)
        if c.run(["nnl-shape-infer", "-o", "s.json", "g.json"]):
            return
        src = "s.json"
        if r.random() < 0.5:
            if c.run(["nnl-fuse", "-o", "f.json", src]):
                return
            src = "f.json"
        if c.run(["nnl-plan-memory", "-o", "p.json", src]):
            return
        if not c.valid and r.random() < 0.1:
            p = json.load(open(c.path("p.json")))
            c.write("pm.json", json.dumps(G.mutate_numbers(r, p, 0.03)))
        plan = "pm.json" if os.path.exists(c.path("pm.json")) else "p.json"
        if c.run(["nnl-emit-c", "-m", "-p", "m", "-o", "m.c", "-H", "m.h",
                  plan], outs=["m.c", "m.h"]):
            return
        if os.path.getsize(c.path("m.c")) > 8 << 20:
            raise Finding("huge-output", "nnl-emit-c", "m.c is %d bytes" %
                          os.path.getsize(c.path("m.c")))
        c.run(SANCC + ["-o", "m", "m.c", "-lm"], ok=(0,), timeout=120)
        c.write("in.bin", G.input_blob(r, json.load(open(c.path(
            "p.json"))), bad=0 if c.valid else 0.1))
        c.run(["./m"], stdin="in.bin", stdout="out.bin")

    def t_emitjs(self, c):
        r = c.r
        if r.random() < 0.3:
            self.weighted_graph(c)
        else:
            self.graph(c, gentle=r.random() < 0.7)
        if c.run(["nnl-shape-infer", "-o", "s.json", "g.json"]):
            return
        if c.run(["nnl-emit-js", "-o", "m.js", "s.json"], outs=["m.js"]):
            return
        args = ["node", ROOT + "/tests/js/record.mjs", "m.js"]
        if os.path.exists(c.path("w.weights")):
            args += ["w.weights"]
        c.run(args, stdout="rec.json")

    def t_run(self, c):
        r = c.r
        if r.random() < 0.3:
            self.weighted_graph(c)
        else:
            self.graph(c, gentle=r.random() < 0.8)
        if c.run(["nnl-shape-infer", "-o", "s.json", "g.json"]):
            return
        c.run(["nnl-run", "-d", c.mkdir("o"), "s.json"] +
              self.input_args(c, "s.json"))

    def t_nnc(self, c):
        r = c.r
        k = r.random()
        if k < 0.3:
            self.graph(c, gentle=r.random() < 0.6)
            model = "g.json"
        elif k < 0.5:
            self.graph(c, gentle=True)
            src = to_webnn(c)
            if src is None:
                return
            model = c.write("g.webnn", G.mutate_text(r, src)
                            if not c.valid and r.random() < 0.5 else src)
        elif k < 0.75:
            nmodel, wdir = r.choice(G.nnl_corpus())
            text = open(nmodel, "rb").read()
            if wdir:
                m = re.search(rb'weights:\s*"([^"]*)"', text)
                shutil.copytree(wdir, c.path(os.path.normpath(
                    m.group(1).decode())))
            model = c.write("m.nnl", G.mutate_text(r, text)
                            if not c.valid and r.random() < 0.5 else text)
        else:
            m = self.onnx_model(c, lambda r: int(r.random() < 0.7))
            if m is None:
                return
            model = c.write("m.onnx", m.SerializeToString())
            # .nnl expresses few graphs: a sound input's goes to .json
            out = "i.json" if c.valid else r.choice(["i.nnl", "i.json"])
            c.run(["nnc", "import", "-o", out,
                   "--weights-dir", "iw", model])
        c.run(["nnc", "inspect", model])
        if c.run(["nnc", "compile", "--emit", "c", "-o", "m.c", model]):
            return
        if r.random() < 0.2:
            if c.run(["nnc", "compile", "-o", "m", model], timeout=120):
                return
        if r.random() < (1 if c.valid else 0.4) and \
                os.path.exists(c.path("g.json")):
            g = json.load(open(c.path("g.json")))
            x = [t for t in (g.get("inputs") or {}).values()
                 if isinstance(t, dict) and t.get("dataType") == "float32"]
            shape = x[0].get("shape") if x else [1]
            if not (isinstance(shape, list) and all(
                    isinstance(d, int) and 0 <= d < 64 for d in shape)):
                shape = [1]
            c.write("in.npy", G.npy_bytes("<f4", shape, G.floats(
                r, "float32", G.numel(shape))))
            c.write("want.npy", G.hostile_npy(r) if r.random() < 0.5 else
                    G.npy_bytes("<f4", [2], G.floats(r, "float32", 2)))
            tol = r.choice(["1e-5", "0", "-1", "nan"])
            c.run(["nnc", "test", "--tolerance", tol, "--input", "in.npy",
                   "--expected", "want.npy", model], stdout="test.out",
                  timeout=120, ok=(0, 1) if tol in ("1e-5", "0") else
                  (0, 1, 2))


def sanopts(caller, code, own):
    """A sanitizer's options: the caller's, then fuzz.py's (the later
    wins), then exitcode=CODE unless the caller chose an exit code."""
    opts = [x for x in (caller or "").split(":") if x]
    if not any(x.startswith("exitcode=") for x in opts):
        own += ":exitcode=%d" % code
    return ":".join(opts + [own])


def to_webnn(c):
    """g.json as .webnn text, written by nnl-parse into w.webnn (a step
    like any other, so a report from it is a finding too), or None."""
    if c.run(["nnl-parse", "-t", "webnn", "-o", "w.webnn", "g.json"],
             outs=["w.webnn"]):
        return None
    with open(c.path("w.webnn"), "rb") as f:
        return f.read()


def shq(s):
    if re.fullmatch(r"[\w./=,:+@%$-]+", s) and not s.startswith("$B") or \
            re.fullmatch(r"\$B/[\w.-]+", s):
        return s
    return "'" + s.replace("'", "'\\''") + "'"


def reach_table(fz):
    """The steps of fz's target in pipeline order, each with the number
    of inputs that reached it (and of those it accepted)."""
    order = STAGES[fz.target][0]
    names = order + sorted(set(fz.reach) - set(order))
    return ", ".join("%s %d (%d ok)" % ((k,) + tuple(fz.reach.get(
        k, (0, 0)))) for k in names)


def short_reach(fz, share):
    """The back ends of fz's target that fewer than share of its inputs
    reached."""
    return ["%s reached by %d of %d inputs" % (k, fz.reach.get(k, (0,))[0],
                                              fz.inputs)
            for k in STAGES[fz.target][1]
            if fz.reach.get(k, (0,))[0] < share * fz.inputs]


def main():
    ap = argparse.ArgumentParser(usage=__doc__.split("\n\n")[1])
    ap.add_argument("-b", dest="bin", default=ROOT + "/build/asan/bin")
    ap.add_argument("-f", dest="findings", default="fuzz-findings")
    ap.add_argument("-m", dest="minutes", type=float, default=10)
    ap.add_argument("-n", dest="count", type=int, default=0)
    ap.add_argument("-r", dest="reach", type=float)
    ap.add_argument("-s", dest="seed", type=int, default=1)
    ap.add_argument("-i", dest="index", type=int)
    ap.add_argument("-t", dest="timeout", type=int, default=30)
    ap.add_argument("target", choices=list(STAGES))
    a = ap.parse_args()
    if not os.path.exists(os.path.join(a.bin, "nnl-parse")):
        sys.exit("fuzz: %s: no sanitizer build (make asan)" % a.bin)
    os.makedirs(a.findings, exist_ok=True)
    fz = Fuzzer(a)
    t0 = time.time()
    fz.loop(t0 + a.minutes * 60, a.count, a.index)
    s = {"target": a.target, "seed": a.seed,
         "minutes": round((time.time() - t0) / 60, 1), "inputs": fz.inputs,
         "sound": fz.valid, "commands": fz.execs, "steps": fz.steps,
         "reach": fz.reach, "findings": sum(fz.sigs.values()),
         "signatures": fz.sigs}
    print(json.dumps(s))
    print("fuzz: %s: %d inputs (%d sound); %s" % (
        a.target, fz.inputs, fz.valid, reach_table(fz)))
    if a.index is None:
        with open(os.path.join(a.findings, "summary.jsonl"), "a") as f:
            f.write(json.dumps(s) + "\n")
    short = short_reach(fz, a.reach) if a.reach is not None else []
    for x in short:
        print("fuzz: %s: %s, fewer than -r %g" % (a.target, x, a.reach))
    return 1 if fz.sigs or short else 0


sys.exit(main())
