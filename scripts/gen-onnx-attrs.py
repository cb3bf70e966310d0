#!/usr/bin/python3
"""gen-onnx-attrs: draft or check the importer's table of what it
implements of each ONNX operator (common/onnx/onnx_attrs.def).

Usage: gen-onnx-attrs.py            print a draft table
       gen-onnx-attrs.py --check    check the table; exit 1 on a fault

The table is source, reviewed by hand: a row ATTRS(op, first, last,
"attr ...") says the importer implements the versions of op from
since_version first to last and understands the attributes named, each
in every version it exists in, or only from version A ("attr:A") or
from A to B ("attr:A-B"), by since_version.  The draft offers every
attribute the operator's schemas have (Debian's python3-onnx, and the
newer versions of scripts/onnx_newer.py; and ai.onnx.preview.training's,
by the domain's version) that some converter of
common/onnx names; a person keeps only those the converter implements.
The check: one row per op of onnx_ops.def, versions that exist, and
attributes that exist in the versions named.
"""
import collections
import glob
import os
import re
import sys

from onnx import defs

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from onnx_newer import VERSIONS  # noqa: E402

ROOT = os.path.dirname(HERE)
# the one other domain whose operators the importer converts (its
# optimizers; no name is also the default domain's)
TRAINING = "ai.onnx.preview.training"
ROW = re.compile(r'^ATTRS\("(\w+)", (\d+), (\d+),((?:\s*"[^"]*")+)\)$')


def history():
    """op -> [(since_version, set of attribute names)], sorted."""
    h = collections.defaultdict(dict)
    for s in defs.get_all_schemas_with_history():
        if s.domain in ("", "ai.onnx", TRAINING):
            h[s.name][s.since_version] = set(s.attributes)
    for op, v, _, add, drop in sorted(VERSIONS, key=lambda r: r[1]):
        prev = h[op][max(h[op])] if h[op] else set()
        h[op][v] = (prev | set(add)) - set(drop)
    return {op: sorted(vs.items()) for op, vs in h.items()}


def ops():
    path = os.path.join(ROOT, "common/onnx/onnx_ops.def")
    return re.findall(r'^ONNX\("(\w+)", \w+\)', open(path).read(), re.M)


def span(vers, name):
    """'name', 'name:A' or 'name:A-B' over the versions having it."""
    have = [v for v, a in vers if name in a]
    lo, hi = have[0], have[-1]
    if lo == vers[0][0] and hi == vers[-1][0]:
        return name
    if hi == vers[-1][0]:
        return "%s:%d" % (name, lo)
    return "%s:%d-%d" % (name, lo, hi)


def draft():
    h = history()
    lits = set()
    for f in glob.glob(os.path.join(ROOT, "common/onnx/*.c")):
        lits |= set(re.findall(r'"([A-Za-z_]+)"', open(f).read()))
    for op in ops():
        vers = h.get(op)
        if not vers:
            print("/* %s: no schema */" % op)
            continue
        names = sorted({a for _, at in vers for a in at} & lits)
        print('ATTRS("%s", %d, %d, "%s")' % (op, vers[0][0], vers[-1][0],
              " ".join(span(vers, a) for a in names)))


def check():
    h = history()
    path = os.path.join(ROOT, "common/onnx/onnx_attrs.def")
    bad, seen = [], collections.Counter()
    text = open(path).read()
    for m0 in re.finditer(r"^ATTRS\(.*?\)$", text, re.M | re.S):
        n = text.count("\n", 0, m0.start()) + 1
        m = ROW.match(m0.group(0))
        if not m:
            bad.append("%d: not ATTRS(\"op\", first, last, \"...\")" % n)
            continue
        op, first, last, attrs = m.group(1), int(m.group(2)), \
            int(m.group(3)), \
            "".join(re.findall(r'"([^"]*)"', m.group(4))).split()
        seen[op] += 1
        vers = h.get(op, [])
        since = [v for v, _ in vers]
        if first not in since or last not in since or first > last:
            bad.append("%d: %s: versions %d to %d; it has %s"
                       % (n, op, first, last, since))
            continue
        for a in attrs:
            name, _, r = a.partition(":")
            lo, _, hi = r.partition("-")
            lo = int(lo) if lo else first
            hi = int(hi) if hi else last
            have = [v for v, at in vers if name in at and lo <= v <= hi]
            if not have or lo not in since or hi not in since:
                bad.append("%d: %s: no attribute %s in versions %d to %d"
                           % (n, op, name, lo, hi))
    for op in ops():
        if seen[op] != 1:
            bad.append("%s: %d rows" % (op, seen[op]))
    for b in bad:
        print("onnx_attrs.def:" + b, file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    if sys.argv[1:] == ["--check"]:
        sys.exit(check())
    if sys.argv[1:]:
        sys.exit(__doc__.split("\n\n")[1])
    draft()
