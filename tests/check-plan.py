#!/usr/bin/python3
"""check-plan: independent check of a planned graph (nnl-plan-memory).

Usage: check-plan.py PLANNED.json
Recomputes every node output's live range from the node order and the
operands each node reads, then checks: offsets are aligned; no two
operands live at the same step share bytes, except an elementwise
output written over an input whose life ends at that node (or a
depthwise 3 x 3 convolution's, at stride 1 and padding 1 on planes of
the input's size narrower than 16 and of at most 1024 pixels padded,
that reads the input only once), a
reshape/identity sharing its input's bytes, a slice whose elements are
a run of its input's lying exactly on that run, or a concat's input that
nothing reads after it lying where it goes in the output (its inputs'
bytes one after the other); every operand fits in the arena.  Prints
"arena A lower L ratio R" and exits 1 on any violation.
"""
import json
import sys

import numpy as np

DT = {"float32": 4, "float16": 2, "int32": 4, "uint32": 4, "int64": 8,
      "uint64": 8, "int8": 1, "uint8": 1}
EW = set("add sub mul div max min pow abs ceil cos erf exp floor log neg "
         "reciprocal roundEven sin sign sqrt tan elu gelu hardSigmoid "
         "hardSwish leakyRelu linear relu sigmoid softplus softsign tanh "
         "clamp prelu".split())
OPERAND_OPTS = {"bias", "scale", "c", "recurrentBias", "initialHiddenState",
                "initialCellState", "peepholeWeight"}

g = json.load(open(sys.argv[1]))
mem = g["memory"]
align = mem["align"]
slots = []      # name, size, def, last, off, node index
where = {}
for i, n in enumerate(g["nodes"]):
    outs = n.get("outputs", [n["id"]])
    for k, name in enumerate(outs):
        t = n["types"][k]
        size = DT[t["dataType"]]
        for d in t["shape"]:
            size *= d
        where[name] = len(slots)
        slots.append([name, size, i, i, n["arena"][k], i])
def reads_of(n):
    """The operands node n reads: inputs, operand options, and the
    residual nnl-fuse merges into a conv2d."""
    return (list(n["inputs"]) +
            [v for k, v in n["options"].items()
             if k in OPERAND_OPTS and isinstance(v, str)] +
            ([n["residual"]] if "residual" in n else []))


def dw_inplace(n, a):
    """Whether n is a depthwise convolution allowed to write over its
    input a (a slot)."""
    o = n["options"]
    t = n["types"][0]
    if n["op"] != "conv2d" or n["inputs"][0] != a[0] or \
            reads_of(n).count(a[0]) != 1 or t["dataType"] != "float32":
        return False
    shp = t["shape"]
    src = g["nodes"][a[5]]
    ins = src["types"][src.get("outputs", [src["id"]]).index(a[0])]
    return (len(shp) == 4 and ins["shape"] == shp and
            o.get("inputLayout", "nchw") == "nchw" and
            o.get("groups", 1) == shp[1] and
            o.get("strides", [1, 1]) == [1, 1] and
            o.get("dilations", [1, 1]) == [1, 1] and
            o.get("padding") == [1, 1, 1, 1] and shp[3] < 16 and
            (shp[2] + 2) * (shp[3] + 2) <= 1024 and
            a[1] == 4 * shp[0] * shp[1] * shp[2] * shp[3])


for i, n in enumerate(g["nodes"]):
    reads = reads_of(n)
    for r in reads:
        if r in where:
            s = slots[where[r]]
            s[3] = max(s[3], i)
for ref in g["outputs"].values():
    if ref in where:
        slots[where[ref]][3] = len(g["nodes"])


def view_at(n, src):
    """Where slice n's output lies in its input's bytes (slot src), if
    it is a run of them, else None: the input's element numbers sliced
    with NumPy must count up by one."""
    ins = g["nodes"][src[5]]
    t = ins["types"][ins.get("outputs", [ins["id"]]).index(src[0])]
    o = n["options"]
    st = o.get("strides", [1] * len(t["shape"]))
    idx = np.arange(int(np.prod(t["shape"]))).reshape(t["shape"])[tuple(
        slice(a, a + z, s) for a, z, s in zip(o["starts"], o["sizes"], st))]
    flat = idx.ravel()
    if flat.size and (flat != flat[0] + np.arange(flat.size)).any():
        return None
    return src[4] + (int(flat[0]) if flat.size else 0) * DT[t["dataType"]]


def root(j):
    """The slot whose bytes j shares through reshape/identity chains
    and slices' views of their input."""
    while True:
        n = g["nodes"][slots[j][5]]
        src = slots[where[n["inputs"][0]]] \
            if n["inputs"] and n["inputs"][0] in where else None
        if src and n["op"] in ("reshape", "identity") and \
                src[4] == slots[j][4]:
            j = where[n["inputs"][0]]
        elif src and n["op"] == "slice" and \
                view_at(n, src) == slots[j][4]:
            j = where[n["inputs"][0]]
        else:
            return j


def in_concat(a, n, ni, off):
    """Whether slot a is an input of concat n (output at off) that
    nothing reads after it, exactly where its bytes go in the output,
    which is its inputs' bytes one after the other."""
    if n["op"] != "concat" or a[3] != ni:
        return False
    axis = n["options"].get("axis", 0)
    if any(d != 1 for d in n["types"][0]["shape"][:axis]):
        return False
    at = off
    for r in n["inputs"]:
        if r == a[0]:
            return a[4] == at
        if r not in where:
            return False
        at += slots[where[r]][1]
    return False


bad = 0
for j, (name, size, d, l, off, ni) in enumerate(slots):
    if off % align:
        print("unaligned", name)
        bad = 1
    if off + size > mem["arenaBytes"]:
        print("outside the arena", name)
        bad = 1
    for i in range(j):
        a = slots[i]
        if not (a[2] <= l and d <= a[3]):
            continue
        if not (size and a[1] and a[4] < off + size and off < a[4] + a[1]):
            continue
        n = g["nodes"][ni]
        inplace = ((n["op"] in EW or dw_inplace(n, a)) and
                   a[0] in n["inputs"] and a[3] == ni and a[4] == off)
        if inplace or root(i) == root(j) or in_concat(a, n, ni, off):
            continue
        print("overlap:", a[0], a[2:5], name, (d, l, off))
        bad = 1
lower = mem["lowerBoundBytes"]
ratio = mem["arenaBytes"] / lower if lower else 1.0
print("arena %d lower %d ratio %.4f" % (mem["arenaBytes"], lower, ratio))
sys.exit(bad)
