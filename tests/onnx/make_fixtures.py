#!/usr/bin/python3
"""make_fixtures: small ONNX models for nnl-onnx-import's tests.

Usage: make_fixtures.py DIR
Writes DIR/NAME/model.onnx for every tensor encoding and Constant form
(each with in.npy and want.npy, the result NumPy computes), and the
models the importer must refuse.  Expectations come from NumPy, never
from nnl.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

RNG = np.random.default_rng(7)
OUT = sys.argv[1]


def save(name, model, x=None, want=None, extra=None):
    d = os.path.join(OUT, name)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "model.onnx"), "wb") as f:
        f.write(model.SerializeToString())
    if x is not None:
        np.save(os.path.join(d, "in.npy"), x)
        np.save(os.path.join(d, "want.npy"), want)
    for fname, data in (extra or {}).items():
        with open(os.path.join(d, fname), "wb") as f:
            f.write(data)
    return d


def add_model(c, xtype, shape, op="Add", inputs=None, opset=13):
    """y = op(x, c) with c an initializer (a TensorProto)."""
    x = helper.make_tensor_value_info("x", xtype, shape)
    y = helper.make_tensor_value_info("y", xtype, None)
    node = helper.make_node(op, ["x", c.name], ["y"], name="the_add")
    g = helper.make_graph([node], "g", [x] + (inputs or []), [y], [c])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])


def encodings():
    shape = [2, 3]
    # raw_data, float32
    v = RNG.standard_normal(shape).astype(np.float32)
    x = RNG.standard_normal(shape).astype(np.float32)
    save("raw-float32", add_model(numpy_helper.from_array(v, "c"),
         TensorProto.FLOAT, shape), x, x + v)
    # 128 bytes: beyond what the importer writes inline
    big = RNG.standard_normal([4, 8]).astype(np.float32)
    xb = RNG.standard_normal([4, 8]).astype(np.float32)
    save("raw-large", add_model(numpy_helper.from_array(big, "c"),
         TensorProto.FLOAT, [4, 8]), xb, xb + big)
    # float_data
    c = helper.make_tensor("c", TensorProto.FLOAT, shape, v.flatten().tolist())
    save("float-data", add_model(c, TensorProto.FLOAT, shape), x, x + v)
    # float16 packed in int32_data
    h = v.astype(np.float16)
    xh = x.astype(np.float16)
    c = TensorProto(name="c", data_type=TensorProto.FLOAT16, dims=shape)
    c.int32_data.extend(h.view(np.uint16).flatten().tolist())
    save("float16-int32-data", add_model(c, TensorProto.FLOAT16, shape),
         xh, xh + h)
    # int64_data
    i = RNG.integers(-1000, 1000, shape).astype(np.int64)
    xi = RNG.integers(-1000, 1000, shape).astype(np.int64)
    c = helper.make_tensor("c", TensorProto.INT64, shape, i.flatten().tolist())
    save("int64-data", add_model(c, TensorProto.INT64, shape), xi, xi + i)
    # int32, int8 and uint8 in int32_data
    for t, npt in ((TensorProto.INT32, np.int32), (TensorProto.INT8, np.int8),
                   (TensorProto.UINT8, np.uint8)):
        lo, hi = (0, 100) if npt == np.uint8 else (-50, 50)
        i = RNG.integers(lo, hi, shape).astype(npt)
        xi = RNG.integers(lo, hi, shape).astype(npt)
        c = TensorProto(name="c", data_type=t, dims=shape)
        c.int32_data.extend(i.flatten().tolist())
        save("%s-int32-data" % np.dtype(npt).name,
             add_model(c, t, shape), xi, xi + i)
    # uint32 and uint64 in uint64_data
    for t, npt in ((TensorProto.UINT32, np.uint32),
                   (TensorProto.UINT64, np.uint64)):
        i = RNG.integers(0, 1 << 20, shape).astype(npt)
        xi = RNG.integers(0, 1 << 20, shape).astype(npt)
        c = TensorProto(name="c", data_type=t, dims=shape)
        c.uint64_data.extend(int(a) for a in i.flatten())
        save("%s-uint64-data" % np.dtype(npt).name,
             add_model(c, t, shape), xi, xi + i)
    # bool in int32_data, through Where
    b = RNG.integers(0, 2, shape).astype(bool)
    c = TensorProto(name="c", data_type=TensorProto.BOOL, dims=shape)
    c.int32_data.extend(int(a) for a in b.flatten())
    z = numpy_helper.from_array(np.zeros(shape, np.float32), "z")
    xin = helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    g = helper.make_graph([helper.make_node("Where", ["c", "x", "z"], ["y"])],
                          "g", [xin], [y], [c, z])
    save("bool-int32-data", helper.make_model(g), x, np.where(b, x, 0))
    # external data, with an offset and a length
    blob = b"\0" * 100 + v.tobytes() + b"\0" * 16
    c = TensorProto(name="c", data_type=TensorProto.FLOAT, dims=shape)
    c.data_location = TensorProto.EXTERNAL
    for k, val in (("location", "data/w.bin"), ("offset", "100"),
                   ("length", str(v.nbytes))):
        e = c.external_data.add()
        e.key, e.value = k, val
    m = add_model(c, TensorProto.FLOAT, shape)
    d = save("external", m, x, x + v)
    os.makedirs(os.path.join(d, "data"), exist_ok=True)
    with open(os.path.join(d, "data", "w.bin"), "wb") as f:
        f.write(blob)
    # an initializer that shadows a graph input
    cin = helper.make_tensor_value_info("c", TensorProto.FLOAT, shape)
    save("shadowed-input", add_model(numpy_helper.from_array(v, "c"),
         TensorProto.FLOAT, shape, inputs=[cin]), x, x + v)


def constants():
    """Every attribute form of Constant, each added to x."""
    x = RNG.standard_normal([3]).astype(np.float32)
    xi = RNG.integers(-9, 9, [3]).astype(np.int64)
    forms = [
        ("value", "value", numpy_helper.from_array(
            np.array([1.5, -2, 3], np.float32)), x, TensorProto.FLOAT,
         np.array([1.5, -2, 3], np.float32)),
        ("value-float", "value_float", 2.5, x, TensorProto.FLOAT,
         np.float32(2.5)),
        ("value-floats", "value_floats", [1.0, 2.0, 4.0], x,
         TensorProto.FLOAT, np.array([1, 2, 4], np.float32)),
        ("value-int", "value_int", 7, xi, TensorProto.INT64, np.int64(7)),
        ("value-ints", "value_ints", [1, -2, 3], xi, TensorProto.INT64,
         np.array([1, -2, 3], np.int64)),
    ]
    for name, attr, val, xv, t, c in forms:
        k = helper.make_node("Constant", [], ["k"], **{attr: val})
        a = helper.make_node("Add", ["x", "k"], ["y"])
        g = helper.make_graph([k, a], "g",
                              [helper.make_tensor_value_info("x", t, [3])],
                              [helper.make_tensor_value_info("y", t, None)])
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
        save("constant-" + name, m, xv, xv + c)


def refusals():
    shape = [2, 3]
    v = np.ones(shape, np.float32)
    for name, loc in (("external-absolute", "/etc/passwd"),
                      ("external-escapes", "../outside.bin"),
                      ("external-missing", "nothere.bin")):
        c = TensorProto(name="c", data_type=TensorProto.FLOAT, dims=shape)
        c.data_location = TensorProto.EXTERNAL
        e = c.external_data.add()
        e.key, e.value = "location", loc
        save(name, add_model(c, TensorProto.FLOAT, shape))
    with open(os.path.join(OUT, "outside.bin"), "wb") as f:
        f.write(v.tobytes())
    # external data too short for its tensor
    c = TensorProto(name="c", data_type=TensorProto.FLOAT, dims=shape)
    c.data_location = TensorProto.EXTERNAL
    e = c.external_data.add()
    e.key, e.value = "location", "w.bin"
    save("external-short", add_model(c, TensorProto.FLOAT, shape),
         extra={"w.bin": b"\0" * 8})
    # raw_data of the wrong length
    c = TensorProto(name="c", data_type=TensorProto.FLOAT, dims=shape)
    c.raw_data = b"\0" * 20
    save("raw-short", add_model(c, TensorProto.FLOAT, shape))
    # truncated and corrupted protobufs
    good = add_model(numpy_helper.from_array(v, "c"), TensorProto.FLOAT,
                     shape).SerializeToString()
    d = os.path.join(OUT, "truncated")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "model.onnx"), "wb") as f:
        f.write(good[:len(good) // 2])
    d = os.path.join(OUT, "corrupt")
    os.makedirs(d, exist_ok=True)
    bad = bytearray(good)
    for i in range(0, len(bad), 7):
        bad[i] ^= 0xA5
    with open(os.path.join(d, "model.onnx"), "wb") as f:
        f.write(bytes(bad))
    # three nodes nnl cannot express, all named in one error
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    nodes = [helper.make_node("Relu", ["x"], ["a"], name="ok"),
             helper.make_node("StringNormalizer", ["a"], ["b"], name="first"),
             helper.make_node("Relu", ["b"], ["c"], name="fine"),
             helper.make_node("Bernoulli", ["c"], ["d"], name="second"),
             helper.make_node("NotAnOp", ["d"], ["y"], name="third")]
    save("unknown-ops", helper.make_model(helper.make_graph(
        nodes, "g", [x], [y])))
    strict()
    # a type nnl's graph lacks
    x = helper.make_tensor_value_info("x", TensorProto.COMPLEX64, [4])
    y = helper.make_tensor_value_info("y", TensorProto.COMPLEX64, None)
    save("complex-input", helper.make_model(helper.make_graph(
        [helper.make_node("Identity", ["x"], ["y"])], "g", [x], [y])))
    # DOUBLE, beyond WebNN: nnl's float64, computed in double (1e15 + 1
    # and 1/3's last digits are lost in float)
    x = helper.make_tensor_value_info("x", TensorProto.DOUBLE, [4])
    y = helper.make_tensor_value_info("y", TensorProto.DOUBLE, None)
    xv = np.array([1e15 + 1, -1 / 3, 0.1, -2.5], np.float64)
    one = numpy_helper.from_array(np.array(1 / 3, np.float64), "third")
    save("double-input", helper.make_model(helper.make_graph(
        [helper.make_node("Relu", ["x"], ["r"]),
         helper.make_node("Add", ["r", "third"], ["y"])], "g", [x], [y],
        [one])), xv, np.maximum(xv, 0) + 1 / 3)
    # symbolic dimensions, to be pinned with --dim
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                      ["batch", 3, "width"])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    xv = RNG.standard_normal([2, 3, 5]).astype(np.float32)
    save("symbolic-dims", helper.make_model(helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y"])], "g", [x], [y])),
        xv, np.maximum(xv, 0))


def strict():
    """Nodes asking for what the importer does not implement."""
    def one(name, node, opset, shape=(1, 4, 4, 4)):
        x = helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)
        y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
        save(name, helper.make_model(helper.make_graph(
            [node], "g", [x], [y]),
            opset_imports=[helper.make_opsetid("", opset)]))

    one("unknown-attribute",
        helper.make_node("Relu", ["x"], ["y"], name="r", foo=3), 14)
    one("s2d-mode", helper.make_node("SpaceToDepth", ["x"], ["y"],
                                     name="s", blocksize=2, mode="CRD"), 13)
    one("newer-opset", helper.make_node("SpaceToDepth", ["x"], ["y"],
                                        name="s", blocksize=2), 26)
    one("newer-version", helper.make_node("SpaceToDepth", ["x"], ["y"],
                                          name="s", blocksize=2), 25)
    # a node the importer has no converter for, one with an attribute
    # it does not implement after it, a reshape to a computed shape and
    # an independent one with a foreign attribute: four, in node order
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])
    s = helper.make_tensor_value_info("s", TensorProto.INT64, [1])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    nodes = [helper.make_node("RandomUniformLike", ["x"], ["a"], name="n1"),
             helper.make_node("Elu", ["a"], ["b"], name="n2", beta=1.0),
             helper.make_node("Reshape", ["x", "s"], ["c"], name="n3"),
             helper.make_node("Relu", ["x"], ["d"], name="n4",
                              consumed_inputs=[0]),
             helper.make_node("Sum", ["b", "c", "d"], ["y"], name="n5")]
    save("mixed-refusals", helper.make_model(helper.make_graph(
        nodes, "g", [x, s], [y]),
        opset_imports=[helper.make_opsetid("", 17)]))
    # more refused nodes than one error lists
    nodes = [helper.make_node("RandomUniformLike", ["x"], ["a%d" % i],
                              name="a%d" % i)
             for i in range(60)]
    nodes.append(helper.make_node("Sum", ["a%d" % i for i in range(60)],
                                  ["y"]))
    save("sixty-refusals", helper.make_model(helper.make_graph(
        nodes, "g", [x], [y]),
        opset_imports=[helper.make_opsetid("", 17)]))


encodings()
constants()
refusals()
