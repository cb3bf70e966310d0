#!/usr/bin/python3
"""make_ctl: ONNX control flow (If, Loop, Scan) as node tests.

Usage: make_ctl.py DIR
Writes DIR/test_NAME/model.onnx with test_data_set_*/input_*.pb and
output_*.pb, the layout of ONNX's node tests, for conformance.py
--data DIR.  Each expected output is computed by NumPy here, never by
nnl: the If, Loop and Scan semantics re-implemented as plain loops.
DIR/bad/NAME.onnx are models the importer must refuse or reject.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto as TP, helper as h, numpy_helper as nh

RNG = np.random.default_rng(32)
OUT = sys.argv[1]
F = TP.FLOAT


def vi(name, t, shape):
    return h.make_tensor_value_info(name, t, shape)


def save(name, graph, sets, opset=16):
    d = os.path.join(OUT, "test_" + name)
    os.makedirs(d, exist_ok=True)
    m = h.make_model(graph, opset_imports=[h.make_opsetid("", opset)])
    onnx.checker.check_model(m)
    onnx.save(m, os.path.join(d, "model.onnx"))
    for s, (ins, outs) in enumerate(sets):
        sd = os.path.join(d, "test_data_set_%d" % s)
        os.makedirs(sd, exist_ok=True)
        for kind, vals in (("input", ins), ("output", outs)):
            for k, v in enumerate(vals):
                onnx.save_tensor(nh.from_array(v),
                                 os.path.join(sd, "%s_%d.pb" % (kind, k)))


def f32(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


def if_where():
    # then: x + y (y from outside), else: x * x; cond at run time
    then = h.make_graph([h.make_node("Add", ["x", "y"], ["t"])], "then",
                        [], [vi("t", F, [2, 3])])
    els = h.make_graph([h.make_node("Mul", ["x", "x"], ["e"])], "else",
                       [], [vi("e", F, [2, 3])])
    g = h.make_graph(
        [h.make_node("If", ["c"], ["z"], then_branch=then,
                     else_branch=els)], "if_where",
        [vi("c", TP.BOOL, []), vi("x", F, [2, 3]), vi("y", F, [2, 3])],
        [vi("z", F, [2, 3])])
    sets = []
    for c in (True, False):
        x, y = f32(2, 3), f32(2, 3)
        sets.append(([np.array(c), x, y], [x + y if c else x * x]))
    save("ctl_if_where", g, sets)


def if_const():
    # the condition a constant: only the branch it picks is converted;
    # the other gives another shape and holds a sequence op
    then = h.make_graph([h.make_node("Neg", ["x"], ["t"])], "then", [],
                        [vi("t", F, [3])])
    els = h.make_graph([h.make_node("SequenceEmpty", [], ["s"]),
                        h.make_node("SequenceLength", ["s"], ["e"])],
                       "else", [], [vi("e", TP.INT64, [])])
    g = h.make_graph(
        [h.make_node("If", ["c"], ["z"], then_branch=then,
                     else_branch=els)], "if_const",
        [vi("x", F, [3])], [vi("z", F, [3])],
        [nh.from_array(np.array(True), "c")])
    x = f32(3)
    save("ctl_if_const", g, [([x], [-x])])


def if_shapes():
    # branches of different shapes: refused (no real branches yet)
    then = h.make_graph([h.make_node("Neg", ["x"], ["t"])], "then", [],
                        [vi("t", F, [4])])
    els = h.make_graph([h.make_node("ReduceSum", ["x"], ["e"],
                                    keepdims=1)], "else", [],
                       [vi("e", F, [1])])
    g = h.make_graph(
        [h.make_node("If", ["c"], ["z"], then_branch=then,
                     else_branch=els)], "if_shapes",
        [vi("c", TP.BOOL, []), vi("x", F, [4])], [vi("z", F, [None])])
    x = f32(4)
    save("ctl_if_shapes", g, [([np.array(True), x], [-x])])


def loop_body(cond_node):
    # y_out = y + x[i]; scan = 2 * y_out
    return h.make_graph(
        [cond_node,
         h.make_node("Gather", ["x", "i"], ["xi"], axis=0),
         h.make_node("Add", ["y", "xi"], ["y_out"]),
         h.make_node("Add", ["y_out", "y_out"], ["s"])],
        "body", [vi("i", TP.INT64, []), vi("c", TP.BOOL, []),
                 vi("y", F, [2])],
        [vi("c_out", TP.BOOL, []), vi("y_out", F, [2]), vi("s", F, [2])])


def loop_ref(x, y0, n):
    y, scans = y0.copy(), []
    for i in range(n):
        y = y + x[i]
        scans.append(2 * y)
    return y, np.stack(scans)


def loop_const():
    body = loop_body(h.make_node("Identity", ["c"], ["c_out"]))
    g = h.make_graph(
        [h.make_node("Loop", ["M", "cond", "y0"], ["y", "ys"], body=body)],
        "loop_const", [vi("x", F, [5, 2]), vi("y0", F, [2])],
        [vi("y", F, [2]), vi("ys", F, [4, 2])],
        [nh.from_array(np.array(4, np.int64), "M"),
         nh.from_array(np.array(True), "cond")])
    x, y0 = f32(5, 2), f32(2)
    save("ctl_loop_const", g, [([x, y0], list(loop_ref(x, y0, 4)))])


def loop_until():
    # the condition turns false after iteration 2: 3 iterations of 9
    body = loop_body(h.make_node("Less", ["i", "two"], ["c_out"]))
    body.initializer.append(nh.from_array(np.array(2, np.int64), "two"))
    g = h.make_graph(
        [h.make_node("Loop", ["M", "", "y0"], ["y", "ys"], body=body)],
        "loop_until", [vi("x", F, [9, 2]), vi("y0", F, [2])],
        [vi("y", F, [2]), vi("ys", F, [3, 2])],
        [nh.from_array(np.array(9, np.int64), "M")])
    x, y0 = f32(9, 2), f32(2)
    save("ctl_loop_until", g, [([x, y0], list(loop_ref(x, y0, 3)))])


def loop_runtime():
    # a trip count from run time: refused
    body = loop_body(h.make_node("Identity", ["c"], ["c_out"]))
    g = h.make_graph(
        [h.make_node("Loop", ["M", "", "y0"], ["y", "ys"], body=body)],
        "loop_runtime", [vi("M", TP.INT64, []), vi("x", F, [5, 2]),
                         vi("y0", F, [2])],
        [vi("y", F, [2]), vi("ys", F, [None, 2])])
    x, y0 = f32(5, 2), f32(2)
    save("ctl_loop_runtime", g,
         [([np.array(4, np.int64), x, y0], list(loop_ref(x, y0, 4)))])


def loop_if():
    # an If in a Loop's body on the iteration number: folded in each
    # unrolled iteration (y * 2 in the first, y + x after)
    then = h.make_graph([h.make_node("Add", ["y", "y"], ["t"])], "then",
                        [], [vi("t", F, [2])])
    els = h.make_graph([h.make_node("Add", ["y", "x"], ["e"])], "else",
                       [], [vi("e", F, [2])])
    body = h.make_graph(
        [h.make_node("Identity", ["c"], ["c_out"]),
         h.make_node("Less", ["i", "one"], ["first"]),
         h.make_node("If", ["first"], ["y_out"], then_branch=then,
                     else_branch=els)],
        "body", [vi("i", TP.INT64, []), vi("c", TP.BOOL, []),
                 vi("y", F, [2])],
        [vi("c_out", TP.BOOL, []), vi("y_out", F, [2])],
        [nh.from_array(np.array(1, np.int64), "one")])
    g = h.make_graph(
        [h.make_node("Loop", ["M", "", "y0"], ["y"], body=body)],
        "loop_if", [vi("x", F, [2]), vi("y0", F, [2])], [vi("y", F, [2])],
        [nh.from_array(np.array(3, np.int64), "M")])
    x, y0 = f32(2), f32(2)
    save("ctl_loop_if", g, [([x, y0], [y0 * 2 + x + x])])


def scan_axes():
    # x [2, 3] scanned along axis 1 backwards; two states: a running
    # sum and a running product; the scan output stacked on axis 1,
    # reversed
    body = h.make_graph(
        [h.make_node("Add", ["s", "v"], ["s_out"]),
         h.make_node("Mul", ["p", "v"], ["p_out"]),
         h.make_node("Sub", ["s_out", "p_out"], ["d"])],
        "body", [vi("s", F, [2]), vi("p", F, [2]), vi("v", F, [2])],
        [vi("s_out", F, [2]), vi("p_out", F, [2]), vi("d", F, [2])])
    g = h.make_graph(
        [h.make_node("Scan", ["s0", "p0", "x"], ["s", "p", "ds"],
                     body=body, num_scan_inputs=1, scan_input_axes=[1],
                     scan_input_directions=[1], scan_output_axes=[1],
                     scan_output_directions=[1])],
        "scan_axes", [vi("s0", F, [2]), vi("p0", F, [2]),
                      vi("x", F, [2, 3])],
        [vi("s", F, [2]), vi("p", F, [2]), vi("ds", F, [2, 3])])
    s0, p0, x = f32(2), f32(2), f32(2, 3)
    s, p, ds = s0.copy(), p0.copy(), []
    for t in (2, 1, 0):
        s = s + x[:, t]
        p = p * x[:, t]
        ds.append(s - p)
    ds = np.stack(ds[::-1], axis=1)
    save("ctl_scan_axes", g, [([s0, p0, x], [s, p, ds])])


def bad():
    d = os.path.join(OUT, "bad")
    os.makedirs(d, exist_ok=True)
    body = h.make_graph(
        [h.make_node("Identity", ["c"], ["c_out"]),
         h.make_node("Neg", ["y"], ["z"])], "body",
        [vi("i", TP.INT64, []), vi("c", TP.BOOL, []), vi("y", F, [2])],
        [vi("c_out", TP.BOOL, []), vi("z", F, [2])])
    for name, m in (("loop_big", 100000), ("loop_neg", -3)):
        g = h.make_graph(
            [h.make_node("Loop", ["M", "", "x"], ["o"], body=body)], name,
            [vi("x", F, [2])], [vi("o", F, [2])],
            [nh.from_array(np.array(m, np.int64), "M")])
        onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", 16)]),
                  os.path.join(d, name + ".onnx"))
    # a branch reading a value defined nowhere
    then = h.make_graph([h.make_node("Neg", ["nowhere"], ["t"])], "then",
                        [], [vi("t", F, [2])])
    els = h.make_graph([h.make_node("Neg", ["x"], ["e"])], "else", [],
                       [vi("e", F, [2])])
    g = h.make_graph(
        [h.make_node("If", ["c"], ["z"], name="the_if", then_branch=then,
                     else_branch=els)], "if_undef",
        [vi("c", TP.BOOL, []), vi("x", F, [2])], [vi("z", F, [2])])
    onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", 16)]),
              os.path.join(d, "if_undef.onnx"))


bad()
if_where()
if_const()
if_shapes()
loop_const()
loop_until()
loop_runtime()
loop_if()
scan_axes()
