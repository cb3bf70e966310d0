#!/usr/bin/python3
"""fuzz: seeded mutation fuzzing of every nnl program, built with the
sanitizers (make asan), including the C that nnl-emit-c generates,
compiled with them and run on random input, and the modules
nnl-emit-js writes, run in node against tests/js/webnn-stub.mjs.

Usage: fuzz.py [-b bindir] [-f findings] [-m minutes] [-n count]
               [-r share] [-s seed] [-i index] [-t seconds] TARGET
Targets: json webnn nnl onnx npy weights emitc emitjs run nnc, and
the surfaces of issue 28:
  names     nnc's commands (every --emit kind, --save-temps, test,
            inspect --svg, report, import, new) on models, outputs and
            options with hostile names (quotes, ; $() `, blanks, line
            ends, a leading - or @ beside the file it would read as
            options, non-UTF-8, 255 bytes), outputs that are links,
            FIFOs or directories; a shell that ran a name (a file
            PWNED), a file made outside the scratch directory, or an
            input changed is a finding
  dot       nnl-emit-dot with every option on partitioned, planned,
            hostile-labelled graphs with wild numbers; the DOT balanced,
            Graphviz's SVG of it well-formed XML (fuzzcheck.py)
  report    nnc report on such graphs and plans; the page's SVGs
            well-formed, nothing loaded
  wasm      nnl-cpu-partition, nnl-emit-js --wasm (node --check) and
            nnc compile --emit wasm on graphs with names that
            JavaScript orders otherwise; run in node by input name
            (tests/js/wasm-named.mjs), its outputs must equal nnl-run's
  scaffold  nnc new with hostile directories and languages, then the
            project's own build and run (make run, build.sh, cargo)
  manifest  nnl-pack-weights manifest (equal to pack's), extract and
            inline on mutated graphs, manifests and weights; a graph
            with its constants moved must give nnl-run's bits

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
import fuzzcheck as K  # noqa: E402
import fuzzgen as G  # noqa: E402

ROOT = G.ROOT
MEM_MB = 2048
# The exit status of a program that a sanitizer stopped (env() sets
# it unless the caller's options do), and the text of its reports.
SANEXIT = {86: "asan", 87: "ubsan"}
SANTEXT = re.compile(r"^(SUMMARY: \w+Sanitizer|==\d+==ERROR: \w+Sanitizer)"
                     r"|: runtime error: ", re.M)
# GCC's "undefined" leaves float-cast-overflow out: named on its own
SANCC = ["cc", "-O1", "-g", "-fsanitize=address,undefined,float-cast-overflow",
         "-fno-sanitize-recover=undefined,float-cast-overflow",
         "-fno-omit-frame-pointer"]
# Where a file made from a hostile name (each holds "fzq") or by a shell
# that ran one (PWNED) would land outside the scratch directory.
GUARDED = ["/tmp", ROOT, os.getcwd(), os.path.expanduser("~")]


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
    "names": (["nnl-parse -t webnn", "nnc inspect", "nnc compile",
               "nnc test", "nnc report", "nnc new", "nnc import"],
              ["nnc compile"]),
    "dot": (["nnl-shape-infer", "nnl-plan-memory", "nnl-cpu-partition",
             "nnl-emit-dot", "dot", "nnc inspect"],
            ["nnl-emit-dot", "dot"]),
    "report": (["nnl-shape-infer", "nnl-plan-memory", "nnc report"],
               ["nnc report"]),
    "wasm": (["nnl-shape-infer", "nnl-cpu-partition", "nnl-emit-js",
              "node", "nnc compile", "nnl-run"], ["nnc compile", "node"]),
    "scaffold": (["nnc new", "env"], ["nnc new"]),
    "manifest": (["nnl-pack-weights manifest", "nnl-pack-weights pack",
                  "nnl-pack-weights extract", "nnl-pack-weights inline",
                  "nnl-shape-infer", "nnl-run"],
                 ["nnl-pack-weights inline"]),
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
        self.guard = False
        self.outs = set()   # the outputs named so far (guard)

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
            timeout=None, keep=False):
        """Run argv (nnl-* names resolved to the sanitizer build) in the
        scratch directory; return its exit status, or raise Finding.
        keep: new files may stay after a failure (nnc --save-temps)."""
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
        if self.guard:
            self.guarded(step, outs, err)
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
                          if x != stdout and not keep)
            left += [o for o in outs if o in before and
                     self.fz.changed(self, o)]
            if left:
                raise Finding("partial-output", step,
                              "left behind: %s\n%s" % (left, err[-1000:]))
        stray = os.listdir(self.tmp)
        if stray:
            raise Finding("stray-temp", step, "in TMPDIR: %s" % stray)
        return rc

    def guarded(self, step, outs, err):
        """With guard set (hostile names): no shell ran a name (no file
        PWNED anywhere), no file was made outside the scratch directory,
        no input changed but the outputs named (outs; a link or FIFO
        among them must stay one, pointing where it did)."""
        for dp, dn, fn in os.walk(self.dir):
            if "PWNED" in fn or "PWNED" in dn:
                raise Finding("shell-ran", step, "%s/PWNED made: a name was"
                              " run as shell code or options\n%s" % (
                                  os.path.relpath(dp, self.dir), err[-1000:]))
        for d in GUARDED:
            try:
                # (not the scratch directories of fuzz.py runs beside
                # this one, whose random names may hold "fzq" too)
                bad = [x for x in os.listdir(d) if ("fzq" in x and
                       not x.startswith("nnlfz.")) or x == "PWNED"]
            except OSError:
                continue
            if bad:
                for x in bad:
                    shutil.rmtree(os.path.join(d, x), ignore_errors=True)
                    if os.path.lexists(os.path.join(d, x)):
                        os.unlink(os.path.join(d, x))
                raise Finding("outside-write", step, "made in %s: %r\n%s" %
                              (d, bad, err[-1000:]))
        self.outs.update(outs)
        for dp, dn, fn in os.walk(self.snap):
            for x in dn + fn:
                a = os.path.join(dp, x)
                rel = os.path.relpath(a, self.snap)
                why = differs(a, self.path(rel), rel in self.outs)
                if why:
                    raise Finding("input-changed", step, "%r %s\n%s" % (
                        rel, why, err[-1000:]))

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


def differs(old, new, out):
    """How the file new differs from old, its copy before the first
    command, or None: its kind, a link's target, a regular file's bytes
    (unless it is an output: out)."""
    try:
        a, b = os.lstat(old), os.lstat(new)
    except OSError:
        return "is gone"
    if stat.S_IFMT(a.st_mode) != stat.S_IFMT(b.st_mode):
        return "is no longer a %s" % ("link" if stat.S_ISLNK(a.st_mode)
                                      else "FIFO" if stat.S_ISFIFO(
                                          a.st_mode) else "directory"
                                      if stat.S_ISDIR(a.st_mode) else
                                      "regular file")
    if stat.S_ISLNK(a.st_mode):
        return None if os.readlink(old) == os.readlink(new) else \
            "points elsewhere"
    if stat.S_ISREG(a.st_mode) and not out:
        with open(old, "rb") as f, open(new, "rb") as g:
            if f.read() != g.read():
                return "has changed"
    return None


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
        if not x.startswith("common/core/util.c")]
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
        """Whether output name differs from its copy before the first
        command (a FIFO, never read, only in kind)."""
        return differs(os.path.join(case.snap, name), case.path(name),
                       False) is not None

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
        with open(os.path.join(d, "report.txt"), "w",
                  errors="surrogateescape") as o:
            o.write("fuzz.py %s -s %d -i %d\nsignature: %s\nstep: %s\n\n%s"
                    % (self.target, self.seed, index, sig, f.step,
                       f.detail))
        with open(os.path.join(d, "repro.sh"), "w",
                  errors="surrogateescape") as o:
            o.write("#!/bin/sh\n# %s: %s\n# Run in a copy of this "
                    "directory; B is the sanitizer build's bin.\n"
                    "B=${NNL_BIN:-%s}\n" % (self.target, sig, self.bin))
            for dp, _, fn in os.walk(d):    # a reader for each FIFO
                for x in fn:
                    if stat.S_ISFIFO(os.lstat(os.path.join(dp, x)).st_mode):
                        o.write("cat -- %s > /dev/null &\n" % shq(
                            os.path.relpath(os.path.join(dp, x), d)))
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
        c.run(["nnl-run", "-d", c.mkdir("o"), "--", "s.json"] +
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
        c.run(["nnl-run", "-d", c.mkdir("o"), "--", "s.json"] +
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

    # --- the surfaces of issue 28: hostile names, pictures, pages,
    # the WebAssembly glue, scaffolds, manifests

    def hostile_model(self, c):
        """A model (sound unless the input is hostile) as .json, .webnn
        or .nnl under a hostile name in a hostile directory, beside the
        files a name with a leading @ would read as options: its path."""
        r = c.r
        kind = r.choice(["json", "json", "webnn", "nnl"])
        d = ""
        for _ in range(r.choice([0, 1, 1, 2])):
            d = os.path.join(d, G.hostile_name(r))
        model = r.choice([G.hostile_name(r, "." + kind)] * 6 + [
            "model." + kind, "@fzq." + kind, "-fzq." + kind])
        stem = model[:-len(kind) - 1]
        model = os.path.join(d, model)
        if kind == "nnl":
            nmodel, wdir = r.choice(G.nnl_corpus())
            text = open(nmodel, "rb").read()
            if wdir:
                m = re.search(rb'weights:\s*"([^"]*)"', text)
                dst = c.path(os.path.join(d, os.path.normpath(
                    m.group(1).decode())))
                os.makedirs(os.path.dirname(dst), exist_ok=True)
                shutil.copytree(wdir, dst)
            if not c.valid and r.random() < 0.3:
                text = G.mutate_text(r, text)
        else:
            g = self.graph(c, gentle=True)
            if not c.valid and r.random() < 0.5:
                g = G.rename_graph(r, g, G.hostile_name)
                c.write("g.json", json.dumps(g))
            text = open(c.path("g.json"), "rb").read()
            if kind == "webnn":
                text = to_webnn(c)
                if text is None:
                    return None
        if d:
            c.mkdir(d)
        c.write(model, text)
        self.response_files(c, d, stem)
        return model if not model.startswith("-") else "./" + model

    def response_files(self, c, d, stem):
        """For a name with a leading @: the files the C compiler would
        read as options if it got the name, each running touch PWNED."""
        if stem.startswith("@"):
            for ext in ["", ".c", ".o", ".h", ".a", ".so", ".wasm", ".s"]:
                if len(os.fsencode(stem + ext)) <= 255:
                    c.write(os.path.join(d, stem[1:] + ext),
                            "-wrapper /usr/bin/touch,PWNED\n")

    def hostile_out(self, c, ext):
        """An output path: a hostile name (perhaps in a hostile directory
        that exists), a link to a file, a FIFO with a reader, or an
        existing directory; with the outputs it may change."""
        r = c.r
        k = r.random()
        while True:     # a name not yet taken
            name = G.hostile_name(r, ext)
            if not os.path.lexists(c.path(name)):
                break
        if k < 0.6:
            d = ""
            if r.random() < 0.3:
                d = c.mkdir(G.hostile_name(r))
            name = G.hostile_name(r, ext)
            self.response_files(c, d, name[:len(name) - len(ext)])
            return os.path.join(d, name), []
        if k < 0.75:
            v = c.write("victim%d%s" % (len(c.steps), ext), "victim\n")
            for dd in [c.dir] + ([c.snap] if c.snap else []):
                os.symlink(v, os.path.join(dd, name))
            return name, [v]
        if k < 0.85:
            for dd in [c.dir] + ([c.snap] if c.snap else []):
                os.mkfifo(os.path.join(dd, name))
            return name, ["fifo"]
        c.mkdir(name)
        c.write(os.path.join(name, "keep"), "keep\n")
        return name, []

    def nnc_out(self, c, argv, out, extra, ok=(0, 1), timeout=None):
        """Run an nnc command writing out (from hostile_out): a FIFO gets
        a reader while it runs; on success a plain output must exist."""
        reader = None
        if "fifo" in extra:
            reader = subprocess.Popen(["cat", c.path(out)], stdout=(
                subprocess.DEVNULL), stderr=subprocess.DEVNULL)
        try:
            rc = c.run(argv, outs=[out] + extra, ok=ok, timeout=timeout,
                       keep="--save-temps" in argv)
        finally:
            if reader:
                reader.kill()
                reader.wait()
        if rc == 0 and out and not os.path.lexists(c.path(out)):
            raise Finding("missing-output", stage(argv), "exit 0 but no "
                          "%r: a name read as something else?" % out)
        return rc

    def t_names(self, c):
        r = c.r
        model = self.hostile_model(c)
        if model is None:
            return
        c.guard = True
        onnx = None
        if r.random() < 0.2:
            m = self.onnx_model(c, lambda r: 0)
            if m is not None:
                onnx = c.write(G.hostile_name(r, ".onnx"),
                               m.SerializeToString())
        passes = None
        if r.random() < 0.2:
            passes = c.write(G.hostile_name(r, ".passes"), open(
                ROOT + "/pipelines/c.passes").read())
        if r.random() < 0.5:
            self.test_arrays(c)
        cmds = ["inspect", "compile", "compile", "compile", "test",
                "report", "new"] + (["import"] if onnx else [])
        for cmd in r.sample(cmds, r.randrange(2, 5)):
            getattr(self, "names_" + cmd)(c, model, onnx, passes)

    def names_inspect(self, c, model, onnx, passes):
        r = c.r
        argv = ["nnc", "inspect"] + (["--fused"] if r.random() < 0.4
                                     else [])
        if r.random() < 0.5:
            out, extra = self.hostile_out(c, ".svg")
            self.nnc_out(c, argv + ["--svg", out, model], out, extra,
                         timeout=60)
        else:
            c.run(argv + [model])

    def names_compile(self, c, model, onnx, passes):
        r = c.r
        kind = r.choice(["c", "lib", "obj", "exe", "shared", "header",
                         "wasm", "c"])
        argv = ["nnc", "compile", "--emit", kind]
        if r.random() < 0.3:
            argv += ["--save-temps"]
        if r.random() < 0.3:
            argv += ["--prefix", G.hostile_name(r)]
        if r.random() < 0.2:
            argv += ["--weights", "embed"]
        if passes and r.random() < 0.5:
            argv += ["--passes", passes]
        ext = {"c": ".c", "lib": ".a", "obj": ".o", "exe": "",
               "shared": ".so", "header": ".h", "wasm": ".wasm"}[kind]
        if r.random() < 0.8:
            out, extra = self.hostile_out(c, ext)
            self.nnc_out(c, argv + ["-o", out, model], out, extra,
                         timeout=120)
        else:
            c.run(argv + [model], timeout=120, keep="--save-temps" in argv)

    def test_arrays(self, c):
        """For g.json of one float32 input: an input array and nnl-run's
        output for it, under hostile names, for nnc test (c.test_io)."""
        if not os.path.exists(c.path("g.json")):
            return
        g = json.load(open(c.path("g.json")))
        ins = g.get("inputs") or {}
        if len(ins) != 1 or len(g.get("outputs") or {}) != 1:
            return
        t = list(ins.values())[0]
        if t.get("dataType") != "float32" or not G.sound(t.get("shape")):
            return
        i = c.write(G.hostile_name(c.r, ".npy"), G.npy_bytes(
            "<f4", t["shape"], G.floats(c.r, "float32", G.numel(
                t["shape"]))))
        if c.run(["nnl-run", "-d", c.mkdir("want"), "--", "g.json",
                  "%s=%s" % (list(ins)[0], i)]) == 0:
            e = G.hostile_name(c.r, ".npy")
            os.rename(c.path("want/%s.npy" % list(g["outputs"])[0]),
                      c.path(e))
            c.test_io = (i, e)

    def names_test(self, c, model, onnx, passes):
        if not getattr(c, "test_io", None):
            return
        i, e = c.test_io
        c.run(["nnc", "test", "--input", i, "--expected", e, model],
              stdout="test.out", timeout=120)

    def names_report(self, c, model, onnx, passes):
        out, extra = self.hostile_out(c, ".html")
        self.nnc_out(c, ["nnc", "report", "-o", out, model], out, extra,
                     timeout=60)

    def names_new(self, c, model, onnx, passes):
        r = c.r
        d = G.hostile_name(r)
        if r.random() < 0.3:
            d = os.path.join(c.mkdir(G.hostile_name(r)), d)
        lang = r.choice(["rust", "go", "cpp", "python"])
        argv = ["nnc", "new", d if not d.startswith("-") else "./" + d,
                "--project", lang]
        if c.run(argv) == 0 and not os.path.isfile(c.path(os.path.join(
                d, "model.nnl"))):
            raise Finding("missing-output", "nnc new", "no %r" % d)

    def names_import(self, c, model, onnx, passes):
        r = c.r
        out, extra = self.hostile_out(c, r.choice([".nnl", ".json"]))
        argv = ["nnc", "import", "-o", out]
        if r.random() < 0.6:
            argv += ["--weights-dir", G.hostile_name(r)]
        self.nnc_out(c, argv + ["--unsupported", "comment", "--", onnx], out,
                     extra, timeout=60)

    def labelled_graph(self, c):
        """g.json: a graph, sound or mutated, whose names are often
        hostile labels, and whose numbers, when hostile, often wild."""
        r = c.r
        g = self.graph(c, gentle=c.valid or r.random() < 0.5)
        if r.random() < 0.6:
            g = G.rename_graph(r, g, G.hostile_label)
        text = json.dumps(g).encode()
        if not c.valid and r.random() < 0.4:
            text = G.wild_numbers(r, text)
        c.write("g.json", text)

    def dot_check(self, c, dot, step):
        """dot must be balanced DOT that Graphviz draws (within bounds)
        as well-formed SVG."""
        with open(c.path(dot), errors="surrogateescape") as f:
            err = K.dot_error(f.read())
        if err:
            raise Finding("bad-dot", step, err)
        if os.path.getsize(c.path(dot)) > 1 << 20:
            return
        c.run(["dot", "-Tsvg", "-o", dot + ".svg", dot], ok=(0,),
              timeout=60)
        with open(c.path(dot + ".svg"), "rb") as f:
            err = K.xml_error(f.read())
        if err:
            raise Finding("bad-svg", "dot", err)

    def t_dot(self, c):
        r = c.r
        self.labelled_graph(c)
        src = "g.json"
        if c.run(["nnl-shape-infer", "-o", "s.json", "g.json"]) == 0:
            src = "s.json"
            if r.random() < 0.4 and c.run(["nnl-plan-memory", "-o",
                                            "p.json", src]) == 0:
                src = "p.json"
            prof = r.choice(sorted(os.listdir(ROOT + "/pipelines/profiles")))
            if r.random() < 0.8 and c.run([
                    "nnl-cpu-partition", "-p", ROOT + "/pipelines/profiles/"
                    + prof, "-o", "c.json", src]) == 0:
                src = "c.json"
        if not c.valid and r.random() < 0.3:
            with open(c.path(src), "rb") as f:
                c.write("m.json", G.wild_numbers(r, f.read(), 0.1))
            src = "m.json"
        argv = ["nnl-emit-dot"] + r.choice([[], ["-c"], ["-l"], ["-cl"]])
        if r.random() < 0.2:
            argv += ["--max-tensor-bytes", r.choice(["1", "1K", "4G"])]
        if c.run(argv + ["-o", "g.dot", src], outs=["g.dot"]) == 0:
            self.dot_check(c, "g.dot", "nnl-emit-dot")
        if r.random() < 0.3:
            if c.run(["nnc", "inspect", "--svg", "i.svg", "g.json"],
                     timeout=60) == 0:
                with open(c.path("i.svg"), "rb") as f:
                    err = K.xml_error(f.read())
                if err:
                    raise Finding("bad-svg", "nnc inspect", err)

    def t_report(self, c):
        r = c.r
        self.labelled_graph(c)
        model = "g.json"
        if not c.valid and r.random() < 0.4 and c.run([
                "nnl-shape-infer", "-o", "s.json", "g.json"]) == 0 and \
                c.run(["nnl-plan-memory", "-o", "p.json", "s.json"]) == 0:
            with open(c.path("p.json"), "rb") as f:
                model = c.write("pm.json", G.wild_numbers(r, f.read(), 0.1))
        argv = ["nnc", "report"] + (["-v"] if r.random() < 0.2 else [])
        if c.run(argv + ["-o", "r.html", model], outs=["r.html"],
                 timeout=60) == 0:
            with open(c.path("r.html"), errors="surrogateescape") as f:
                err = K.page_error(f.read())
            if err:
                raise Finding("bad-page", "nnc report", err)

    def t_wasm(self, c):
        r = c.r
        g = self.graph(c, gentle=c.valid or r.random() < 0.7)
        if r.random() < 0.5:
            g = G.rename_graph(r, g, lambda r: r.choice(
                ["7", "0", "b", "__proto__", "constructor", "10", "a b",
                 "\u2028", "-1", "1e3", "x\"y", "</script>"]))
            c.write("g.json", json.dumps(g))
        if c.run(["nnl-shape-infer", "-o", "s.json", "g.json"]):
            return
        # as the JavaScript pipeline runs: what WebNN lacks (nnl's ops,
        # empty tensors) placed on the CPU first
        if c.run(["nnl-cpu-partition", "-p",
                  ROOT + "/pipelines/profiles/cpu.json", "-o", "c.json",
                  "s.json"]):
            return
        if c.run(["nnl-emit-js", "--wasm", "m.wasm", "-o", "m.js",
                  "c.json"], outs=["m.js"]):
            return
        c.run(["node", "--check", "m.js"], ok=(0,))
        if c.run(["nnc", "compile", "--emit", "wasm", "-o", "m.wasm",
                  "s.json"], outs=["m.wasm"], timeout=120):
            return
        s = json.load(open(c.path("s.json")))
        args = [x for x in G.input_files(r, s, c.write, bad=0)]
        if len(args) != len(s.get("inputs") or {}):
            return
        c.write("outs.json", json.dumps(list(s.get("outputs") or {})))
        rc = c.run(["node", ROOT + "/tests/js/wasm-named.mjs", "m.js",
                    "w", "outs.json"] + args, ok=(0, 1))
        if rc or not c.valid:
            return
        if c.run(["nnl-run", "-d", c.mkdir("o"), "--", "s.json"] + args):
            return
        # values are compared where the inputs are tame: a float sum
        # near FLT_MAX overflows or not by the order of its terms,
        # which IEEE leaves to each implementation
        if not tame(c, args):
            return
        err = same_outputs(c, s, "o", "w")
        if err:
            raise Finding("wrong-answer", "node", err)

    def t_scaffold(self, c):
        r = c.r
        c.guard = True
        d = G.hostile_name(r) if c.valid or r.random() < 0.8 else \
            r.choice(["", ".", "..", "/", "x/y/z", "a\0b"[:1]])
        if r.random() < 0.3:
            d = os.path.join(c.mkdir(G.hostile_name(r)), d)
        if not c.valid and r.random() < 0.2:
            c.mkdir(d)
        lang = r.choice(["cpp", "cpp", "python", "python", "go", "rust"])
        if not c.valid and r.random() < 0.2:
            lang = r.choice(["java", "", "cpp;touch PWNED", "-x"])
        arg = d if not d.startswith("-") else "./" + d
        if c.run(["nnc", "new", arg, "--project", lang], ok=(0, 1, 2)):
            return
        made = [x for x in c.files() if x not in set(
            os.path.relpath(os.path.join(dp, y), c.snap)
            for dp, _, fn in os.walk(c.snap) for y in fn)]
        stray = [x for x in made if not x.startswith(d.rstrip("/") + "/")]
        if stray:
            raise Finding("outside-write", "nnc new", "beside %r: %r" %
                          (d, stray))
        if not c.valid or lang in ("go", "rust") and r.random() < 0.7:
            return
        # the project's own build, run by the sanitizer build's nnc: the
        # C++ program built with the sanitizers too, the others (whose
        # toolchains link no sanitizer runtime) not (NNC_CFLAGS unset)
        nnc = os.path.join(self.bin, "nnc")
        if lang == "go" and not re.fullmatch(r"[\w./-]+", d):
            # cgo refuses a directory its flags could not hold: the
            # project is built where it is moved to
            os.rename(c.path(d), c.path("gofzq"))
            d = "gofzq"
        if lang == "rust" and not is_utf8(c.path(d)):
            # cargo refuses a path that is not UTF-8 (its manifest
            # paths are Rust strings): the project is built where it
            # is moved to, as go's is
            os.rename(c.path(d), c.path("rustfzq"))
            d = "rustfzq"
        if lang == "cpp":
            cmd = ["env", "NNC_CFLAGS=" + " ".join(SANCC[3:]), "make", "-s",
                   "-C", arg, "run", "NNC=" + nnc,
                   "CXXFLAGS=-O1 " + " ".join(SANCC[3:])]
        elif lang == "python":
            cmd = ["sh", "-c", 'NNC="$1" sh ./build.sh && python3 main.py',
                   "sh", nnc]
        elif lang == "go":
            cmd = ["sh", "-c", 'NNC="$1" GOFLAGS=-mod=mod GOCACHE="$2" '
                   'sh ./build.sh && ./app', "sh", nnc, c.path(".gocache")]
        else:
            cmd = ["sh", "-c", 'NNC="$1" CARGO_TARGET_DIR="$2" cargo run '
                   '-q --offline', "sh", nnc, c.path(".cargo")]
        if lang != "cpp":
            cmd = ["env", "-u", "NNC_CFLAGS", "-C", c.path(d)] + cmd
        c.guard = False     # the build writes beside its own files
        c.run(cmd, stdout="run.out", ok=(0,), timeout=300)
        out = open(c.path("run.out"), "rb").read()
        if b"output:" not in out:
            raise Finding("no-output", stage(cmd), out[-500:].decode(
                errors="replace"))

    def t_manifest(self, c):
        r = c.r
        k = r.random()
        if k < 0.3:
            srcs = [c.write("t%d.npy" % i, G.sound_npy(r) if c.valid or
                            r.random() < 0.5 else G.hostile_npy(r))
                    for i in range(r.randrange(1, 4))]
            a = ["-a", r.choice(["8", "64", "4096"])] if r.random() < 0.3 \
                else []
            if c.run(["nnl-pack-weights", "manifest", "-m", "m.json"] + a +
                     srcs, outs=["m.json"]) == 0 and c.run([
                         "nnl-pack-weights", "pack", "-o", "w.weights", "-m",
                         "p.json"] + a + srcs) == 0:
                mm = json.load(open(c.path("m.json")))
                pm = json.load(open(c.path("p.json")))
                if mm != pm:
                    raise Finding("manifest-differs", "nnl-pack-weights "
                                  "manifest", "manifest %s\npack -m %s" % (
                                      json.dumps(mm)[:800],
                                      json.dumps(pm)[:800]))
            return
        if k < 0.6:
            self.weighted_graph(c)
            if c.run(["nnl-pack-weights", "inline", "-o", "i.json",
                      "g.json"], outs=["i.json"]):
                return
            src = "i.json"
        else:
            self.graph(c, gentle=c.valid or r.random() < 0.5)
            src = "g.json"
            if c.run(["nnl-pack-weights", "extract", "-o", "e.json", "-w",
                      "e.weights", "-m", "e.manifest.json", "g.json"],
                     outs=["e.json"]):
                return
            if c.run(["nnl-pack-weights", "inline", "-o", "i.json",
                      "e.json"], outs=["i.json"]):
                return
        # the graph with its constants moved keeps its answers
        if not c.valid or c.run(["nnl-shape-infer", "-o", "s.json",
                                 "g.json"]):
            return
        args = self.input_args(c, "s.json")
        if c.run(["nnl-run", "-d", c.mkdir("o"), "--", "s.json"] + args):
            return
        if c.run(["nnl-run", "-d", c.mkdir("oi"), "--", src] + args):
            raise Finding("refused-after", "nnl-run", "%s refused, g.json "
                          "ran" % src)
        err = same_outputs(c, json.load(open(c.path("s.json"))), "o", "oi",
                           exact=True)
        if err:
            raise Finding("wrong-answer", "nnl-pack-weights", err)


def tame(c, args, bound=1e4):
    """True when every float array of args (NAME=FILE) is finite and
    within +-bound."""
    import numpy as np
    for a in args:
        x = np.load(c.path(a.split("=", 1)[1]))
        if x.dtype.kind == "f" and x.size and not (
                np.all(np.isfinite(x)) and np.abs(x).max() <= bound):
            return False
    return True


def is_utf8(path):
    try:
        os.fsencode(path).decode("utf-8")
        return True
    except UnicodeDecodeError:
        return False


def same_outputs(c, g, a, b, exact=False):
    """None when the outputs of graph g in directory a (NAME.npy, as
    nnl-run writes them) equal those in b (the same, or K.npy by the
    graph's order when b is the WebAssembly run's): bit for bit when
    exact, else within 1e-4 + 1e-4|x|, or both not finite: a sum that
    overflows is +inf, -inf or NaN by the order its terms are added in,
    and IEEE leaves the order to the implementation; else what
    differs."""
    import numpy as np
    for k, name in enumerate(g.get("outputs") or {}):
        x = np.load(os.path.join(c.path(a), name + ".npy"))
        y = np.load(os.path.join(c.path(b), (name if exact else str(k)) +
                                 ".npy"))
        if x.shape != y.shape and x.size != y.size or x.dtype != y.dtype:
            return "output %r: %s %s vs %s %s" % (name, x.dtype, x.shape,
                                                  y.dtype, y.shape)
        x, y = x.ravel(), y.ravel()
        if exact:
            if x.tobytes() != y.tobytes():
                return "output %r differs" % name
            continue
        if x.dtype.kind != "f":
            bad = x != y
        else:
            x64, y64 = x.astype(np.float64), y.astype(np.float64)
            with np.errstate(invalid="ignore"):
                bad = ~((np.abs(x64 - y64) <= 1e-4 + 1e-4 * np.abs(x64)) |
                        (x64 == y64) | (~np.isfinite(x64) &
                                        ~np.isfinite(y64)))
        if bad.any():
            i = int(np.argmax(bad))
            return "output %r element %d: nnl-run %r, other %r" % (
                name, i, x[i], y[i])
    return None


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
