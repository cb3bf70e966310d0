#!/usr/bin/python3
"""check-compat: the rows of nnl-compat(7) hold what the page promises.

Usage: check-compat.py PAGE ROOT
Reads every row of the page's column lists (an .It line with its
cells split by Ta, and the lines after it up to the next .It or .El)
and checks: the status is Y, P or D, never N or anything else; a P or
D row explains itself in at least four words besides the tests it
names; every row names at least one file with .Pa, each one present
under ROOT; after a .bats file, each .Dq "NAME" is the name of a test
in that file, and a .bats file is followed by at least one.  Prints one
line per fault and "rows R (Y y, P p, D d)"; exits 1 on a fault.
"""
import os
import re
import sys


def rows(lines):
    """The rows of every .Bl -column list: (line number, lines)."""
    inlist, row = False, None
    for n, line in enumerate(lines, 1):
        if line.startswith(".Bl -column"):
            inlist = True
        elif not inlist:
            continue
        elif line.startswith(".El"):
            if row:
                yield row
            inlist, row = False, None
        elif line.startswith(".It "):
            if row:
                yield row
            row = (n, [line])
        elif row:
            row[1].append(line)


def tests_in(path, cache={}):
    if path not in cache:
        with open(path, encoding="utf-8") as f:
            cache[path] = set(re.findall(r'^@test "(.*)" \{', f.read(),
                                         re.M))
    return cache[path]


def check(n, row, root):
    faults = []
    cells = re.split(r"\s+Ta(?:\s+|$)", row[0][len(".It "):])
    if cells[0].startswith("Sy Feature"):
        return None, []
    if len(cells) != 3:
        return None, ["line %d: %d cells, not 3" % (n, len(cells))]
    status = cells[1].strip().replace("\\&", "")
    if status not in ("Y", "P", "D"):
        faults.append("line %d: status %r (only Y, P or D)" % (n, status))
    words, bats, paths = [cells[2]], None, 0
    for line in row[1:]:
        m = re.match(r"\.Pa (tests/\S+)", line)
        d = re.match(r'\.Dq "([^"]*)"', line)
        if m:
            if bats is not None and not bats[1]:
                faults.append("line %d: no test named in %s" % (n, bats[0]))
            paths += 1
            bats = None
            if not os.path.isfile(os.path.join(root, m.group(1))):
                faults.append("line %d: no file %s" % (n, m.group(1)))
            elif m.group(1).endswith(".bats"):
                bats = [m.group(1), 0]
            words.append(line[m.end():])
        elif d:
            if bats is None:
                faults.append("line %d: %r names no .bats file" %
                              (n, d.group(1)))
                continue
            bats[1] += 1
            if d.group(1) not in tests_in(os.path.join(root, bats[0])):
                faults.append('line %d: no test "%s" in %s' %
                              (n, d.group(1), bats[0]))
            words.append(line[d.end():])
        else:
            words.append(line)
    if bats is not None and not bats[1]:
        faults.append("line %d: no test named in %s" % (n, bats[0]))
    if paths == 0:
        faults.append("line %d: the row names no test" % n)
    text = re.sub(r"\b(Pa|Dq|No|Ns|Xr|Fl|Cm|Ic|Li|Pq|Vt|Fn|Ev)\b|[.,;:()]",
                  " ", " ".join(words))
    if status in ("P", "D") and len(text.split()) < 4:
        faults.append("line %d: a %s row that does not say why" %
                      (n, status))
    return status, faults


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: check-compat.py PAGE ROOT")
    with open(sys.argv[1], encoding="utf-8") as f:
        lines = f.read().split("\n")
    count, faults = {"Y": 0, "P": 0, "D": 0}, []
    for n, row in rows(lines):
        status, f = check(n, row, sys.argv[2])
        faults += f
        if status in count:
            count[status] += 1
    for f in faults:
        print(f)
    print("rows %d (Y %d, P %d, D %d)" % (sum(count.values()), count["Y"],
                                           count["P"], count["D"]))
    sys.exit(1 if faults else 0)


main()
