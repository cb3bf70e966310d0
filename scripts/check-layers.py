#!/usr/bin/python3
"""check-layers: the library's dependency graph against its rules.

Builds the graph of common/ from two sources: every #include "..." line
of each source, and every call (or other reference) an object file
makes to a symbol another object file of the library defines (objdump
-dr for the calling function, nm for the rest).  A module is a source
and its header (dir/x.c and dir/x.h); a folder is the directory under
common/ that holds it ("." for common/ itself).

It reports:
  - module circles: strongly connected components of more than one
    module, failing when one holds more than --max-cycle files;
  - folder rules broken: a folder using one that common/LAYERS does not
    allow it, with the offending include (file:line) or call
    (caller function in file -> symbol defined in file);
  - circles among the rules themselves, and folders LAYERS does not name.

common/LAYERS, one folder a line:
    FOLDER: FOLDER...     # the folders FOLDER may use besides itself
A folder name may be a glob (rt/*).  Lines starting with # are comments.

Usage: check-layers.py [--root DIR] [--build DIR] [--rules FILE]
           [--max-cycle N] [--no-calls] [--report]
           [--explain] [--map PLAN]
--report prints the circles and every violation but exits 0.
Exit 0 clean, 1 a rule broken or a circle too large, 2 usage.
"""

import argparse
import fnmatch
import os
import re
import subprocess
import sys
import tempfile

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
SRCEXT = ('.c', '.h', '.def')


def sources(root):
    out = []
    for d, dirs, files in os.walk(root):
        dirs.sort()
        for f in sorted(files):
            if f.endswith(SRCEXT):
                out.append(os.path.relpath(os.path.join(d, f), root))
    return out


def module(path):
    """dir/x.c, dir/x.h -> dir/x; a .def file is its own module."""
    if path.endswith('.def'):
        return path
    return os.path.splitext(path)[0]


def folder(path):
    d = os.path.dirname(path)
    return d if d else '.'


def includes(root, files):
    """(file, line, target file) for each include resolved in common/."""
    known = set(files)
    dirs = sorted({folder(f) for f in files})
    edges = []
    for f in files:
        with open(os.path.join(root, f), encoding='utf-8',
                  errors='replace') as fp:
            for n, line in enumerate(fp, 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                name = m.group(1)
                here = os.path.normpath(os.path.join(folder(f), name))
                cands = [here] + [os.path.normpath(os.path.join(d, name))
                                  for d in ['.'] + dirs]
                for c in cands:
                    if c in known:
                        edges.append((f, n, c))
                        break
    return edges


def objects(build, files):
    """Object file -> source file: common/D/x.c is built as
    build/common/D/x.o, or (the ONNX importer's) build/onnx/x.o.
    Objects of no current source (left from an older layout) are not
    read."""
    out = {}
    for f in files:
        if not f.endswith('.c'):
            continue
        for o in (os.path.join(build, 'common', f[:-2] + '.o'),
                  os.path.join(build, 'onnx',
                               os.path.basename(f)[:-2] + '.o')):
            if os.path.exists(o):
                out[o] = f
                break
    return out


def threaded_rt(root, files, tmp):
    """The runtime as generated code with --threads holds it.

    libnnl's runtime objects are built for one thread, so the calls to
    and from the thread pool (rt/par/par.c, only ever pasted into generated
    code) are in no object of build/: compile each runtime file again
    with NNL_RT_THREADS set, rt.h first, into tmp.
    """
    out = {}
    rth = [f for f in files if os.path.basename(f) == 'rt.h']
    # the runtime's headers (rt.h, par/par.h), found as generated code
    # and libnnl's build find them: by file name
    rtdirs = sorted({folder(f) for f in files
                     if f.endswith('.h') and f.split(os.sep)[0] == 'rt'})
    for f in files:
        if not (f.endswith('.c') and f.split(os.sep)[0] == 'rt'):
            continue
        o = os.path.join(tmp, f.replace(os.sep, '_')[:-2] + '.o')
        cmd = ['cc', '-std=c11', '-w', '-O0', '-c', '-DNNL_RT=',
               '-DNNL_RT_DISPATCH', '-DNNL_RT_THREADS=2', '-I' + root]
        cmd += ['-I' + os.path.join(root, d) for d in rtdirs]
        for h in rth[:1]:
            cmd += ['-include', os.path.join(root, h)]
        cmd += ['-o', o, os.path.join(root, f)]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            # a file left out would hide its calls: no check at all
            sys.exit('error: %s: cannot compile it as threaded code:\n%s'
                     % (os.path.join(root, f), r.stderr.strip()))
        out[o] = f
    return out


def calls(build, files, extra=None):
    """(caller file, caller function, symbol, callee file) per reference."""
    objs = objects(build, files)
    if objs and extra:
        objs = {o: f for o, f in objs.items()
                if f.split(os.sep)[0] != 'rt'}
        objs.update(extra)
    if not objs:
        return None
    names = sorted(objs)
    defs = {}
    undef = {}
    nm = subprocess.run(['nm', '-A'] + names, capture_output=True,
                        text=True, check=True).stdout
    for line in nm.splitlines():
        path, _, rest = line.partition(':')
        parts = rest.split()
        if len(parts) == 3 and parts[1] in 'TDBRCVW':
            defs.setdefault(parts[2], objs[path])
        elif len(parts) == 2 and parts[0] == 'U':
            undef.setdefault(path, set()).add(parts[1])
    edges = []
    fn = re.compile(r'^[0-9a-f]+ <([^>]+)>:$')
    rel = re.compile(r'^\s*[0-9a-f]+: R_\S+\s+([^\s+-]+)')
    for o in names:
        if o not in undef:
            continue
        src = objs[o]
        seen = set()
        dump = subprocess.run(['objdump', '-dr', o], capture_output=True,
                              text=True, check=True).stdout
        cur = '?'
        for line in dump.splitlines():
            m = fn.match(line)
            if m:
                cur = m.group(1)
                continue
            m = rel.match(line)
            if m and m.group(1) in undef[o] and m.group(1) in defs:
                key = (cur, m.group(1))
                if key not in seen:
                    seen.add(key)
                    edges.append((src, cur, m.group(1), defs[m.group(1)]))
        done = {s for _, s in seen}
        for s in sorted(undef[o] - done):
            if s in defs:
                edges.append((src, '(data)', s, defs[s]))
    return edges


def sccs(nodes, adj):
    """Tarjan's components, iteratively."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]
    for start in sorted(nodes):
        if start in index:
            continue
        work = [(start, iter(sorted(adj.get(start, ()))))]
        index[start] = low[start] = counter[0]
        counter[0] += 1
        stack.append(start)
        on.add(start)
        while work:
            v, it = work[-1]
            nxt = next(it, None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter[0]
                    counter[0] += 1
                    stack.append(nxt)
                    on.add(nxt)
                    work.append((nxt, iter(sorted(adj.get(nxt, ())))))
                elif nxt in on:
                    low[v] = min(low[v], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                out.append(sorted(comp))
    return out


def rules(path):
    out = []
    with open(path, encoding='utf-8') as fp:
        for n, line in enumerate(fp, 1):
            line = line.split('#', 1)[0].strip()
            if not line:
                continue
            name, sep, uses = line.partition(':')
            if not sep:
                sys.exit('check-layers: %s:%d: expected "FOLDER: USES"'
                         % (path, n))
            out.append((name.strip(), uses.split(), n))
    return out


def allowed(table, a, b):
    if a == b:
        return True
    for name, uses, _ in table:
        if fnmatch.fnmatchcase(a, name):
            return any(fnmatch.fnmatchcase(b, u) for u in uses)
    return None


def main():
    ap = argparse.ArgumentParser(prog='check-layers')
    ap.add_argument('--root', default='common')
    ap.add_argument('--build', default='build')
    ap.add_argument('--rules')
    ap.add_argument('--max-cycle', type=int, default=5)
    ap.add_argument('--no-calls', action='store_true')
    ap.add_argument('--report', action='store_true')
    ap.add_argument('--map', help='plan: lines "FOLDER: MODULE..." '
                    'placing modules of common/ in folders they are not '
                    'in yet, to check a layout before moving files')
    ap.add_argument('--explain', action='store_true',
                    help='print the edges inside each circle')
    a = ap.parse_args()
    root = a.root.rstrip('/')
    rulefile = a.rules or os.path.join(root, 'LAYERS')
    files = sources(root)
    global folder
    if a.map:
        plan = {}
        for name, mods, _ in rules(a.map):
            for m in mods:
                plan[m] = name
        real = folder

        def folder(path):
            return plan.get(module(path), real(path))
    inc = includes(root, files)
    cal = None
    if not a.no_calls:
        with tempfile.TemporaryDirectory() as tmp:
            cal = calls(a.build, files, threaded_rt(root, files, tmp))
    if cal is None and not a.no_calls:
        print('check-layers: no objects under %s/common: run make first'
              % a.build, file=sys.stderr)
        return 1
    bad = 0
    allfiles = {}
    for f in files:
        allfiles.setdefault(module(f), []).append(f)
    adj = {}
    for f, _, t in inc:
        if module(f) != module(t):
            adj.setdefault(module(f), set()).add(module(t))
    for f, _, _, t in cal or ():
        if module(f) != module(t):
            adj.setdefault(module(f), set()).add(module(t))
    comps = [c for c in sccs(set(allfiles), adj) if len(c) > 1]
    comps.sort(key=lambda c: -len(c))
    for c in comps:
        nfiles = sum(len([x for x in allfiles[m] if x.endswith('.c')])
                     for m in c)
        big = nfiles > a.max_cycle
        bad += big
        if not big and not (a.report or a.explain):
            continue
        print('%s: circle of %d modules (%d .c files): %s'
              % ('error' if big else 'note', len(c), nfiles,
                 ' '.join(c)))
        if a.explain:
            mem = set(c)
            for f, n, t in inc:
                if (module(f) in mem and module(t) in mem
                        and module(f) != module(t)):
                    print('  %s:%d: includes %s' % (f, n, t))
            for f, fn, sym, t in cal or ():
                if (module(f) in mem and module(t) in mem
                        and module(f) != module(t)):
                    print('  %s: %s calls %s (%s)' % (f, fn, sym, t))
    if os.path.exists(rulefile):
        table = rules(rulefile)
        radj = {}
        for name, uses, _ in table:
            radj[name] = set(uses)
        for c in sccs(set(radj), radj):
            if len(c) > 1:
                bad += 1
                print('error: %s: the rules go round: %s'
                      % (rulefile, ' '.join(c)))
        folders = sorted({folder(f) for f in files})
        for d in folders:
            if allowed(table, d, '\0') is None:
                bad += 1
                print('error: %s: folder %s is not named' % (rulefile, d))
        for f, n, t in inc:
            ok = allowed(table, folder(f), folder(t))
            if ok is False:
                bad += 1
                print('error: %s/%s:%d: includes %s: %s may not use %s'
                      % (root, f, n, t, folder(f), folder(t)))
        for f, fn, sym, t in cal or ():
            ok = allowed(table, folder(f), folder(t))
            if ok is False:
                bad += 1
                print('error: %s/%s: %s calls %s (%s/%s): %s may not use %s'
                      % (root, f, fn, sym, root, t, folder(f), folder(t)))
    elif not a.report:
        print('check-layers: %s: No such file' % rulefile, file=sys.stderr)
        return 1
    if bad and not a.report:
        print('check-layers: %d problem(s)' % bad, file=sys.stderr)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
