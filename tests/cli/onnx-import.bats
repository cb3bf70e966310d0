#!/usr/bin/env bats
# nnl-onnx-import: every tensor encoding and Constant form read exactly
# (results against NumPy), and every refusal: clear errors that name the
# file and the node, exit 1, and no output left behind.

bats_require_minimum_version 1.5.0

setup_file() {
	export FX="$BATS_FILE_TMPDIR/fx"
	/usr/bin/python3 "$BATS_TEST_DIRNAME/../onnx/make_fixtures.py" "$FX"
}

setup() {
	export LC_ALL=C
	BIN="${NNL_BIN:-$BATS_TEST_DIRNAME/../../bin}"
	cd "$BATS_TEST_TMPDIR"
}

# import fixture $1 (extra arguments after it), run it, compare with
# NumPy's result: exactly for integers, to 1e-6 for floats
runs_as_numpy() {
	local d="$FX/$1"
	shift
	"$BIN/nnl-onnx-import" -o g.json "$@" "$d/model.onnx"
	mkdir -p out
	"$BIN/nnl-run" -d out g.json "x=$d/in.npy" >/dev/null
	/usr/bin/python3 - "$d/want.npy" out/y.npy <<'PY'
import sys, numpy as np
w, g = np.load(sys.argv[1]), np.load(sys.argv[2])
assert g.shape == w.shape, (g.shape, w.shape)
if w.dtype == bool:
    w = w.astype(np.uint8)
if w.dtype.kind == "f":
    assert np.allclose(g.astype(np.float64), w, rtol=1e-6, atol=1e-6), (g, w)
else:
    assert g.dtype == w.dtype and np.array_equal(g, w), (g, w)
PY
}

@test "raw_data, float_data and float16 in int32_data" {
	runs_as_numpy raw-float32
	runs_as_numpy float-data
	runs_as_numpy float16-int32-data
}

@test "int64_data; int32, int8 and uint8 in int32_data; uint64_data" {
	for f in int64-data int32-int32-data int8-int32-data \
	    uint8-int32-data uint32-uint64-data uint64-uint64-data; do
		runs_as_numpy $f
	done
}

@test "bool initializers are 0 and 1 bytes" {
	runs_as_numpy bool-int32-data
}

@test "external data at an offset, relative to the model's folder" {
	runs_as_numpy external
}

@test "an initializer shadowing a graph input is a constant" {
	runs_as_numpy shadowed-input
	! grep -q '"c": {"dataType": "float32", "shape": \[2, 3\]}$' g.json
	[ "$(grep -c '"x": {"dataType"' g.json)" -eq 1 ]
}

@test "Constant in every attribute form" {
	for f in value value-float value-floats value-int value-ints; do
		runs_as_numpy constant-$f
	done
}

@test "large constants go to the weights file, small ones inline" {
	runs_as_numpy raw-large -w w.weights -m w.manifest.json
	"$BIN/nnl-pack-weights" verify -m w.manifest.json w.weights
	grep -q '"c": {"dataType": "float32", "shape": \[4, 8\], "init": {"kind": "weights", "ref": "c"}}' g.json
	rm w.weights w.manifest.json
	runs_as_numpy raw-float32 -w w.weights -m w.manifest.json
	grep -q '"c": {"dataType": "float32", "shape": \[2, 3\], "init": {"kind": "inlineBytes"' g.json
	[ ! -e w.weights ]
}

# refusal $1: fixture, $2: text the error must contain
refused() {
	run --separate-stderr "$BIN/nnl-onnx-import" -o g.json "$FX/$1/model.onnx"
	echo "$stderr"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"$1/model.onnx: "*"$2"* ]]
	[ ! -e g.json ] && [ ! -e g.weights ] && [ ! -e g.manifest.json ]
}

@test "external data outside the model's folder is refused" {
	refused external-absolute 'initializer "c": external data path "/etc/passwd" is absolute'
	refused external-escapes 'initializer "c": external data path "../outside.bin" leads outside the model'"'"'s folder'
	refused external-missing 'initializer "c": external data "nothere.bin": No such file'
	refused external-short 'initializer "c": external data "w.bin" holds 8 bytes'
}

@test "tensors whose bytes disagree with their shape are refused" {
	refused raw-short 'initializer "c": raw_data holds 20 bytes, FLOAT[6 elements] needs 24'
}

@test "truncated and corrupted files get an error, not a crash" {
	refused truncated 'not an ONNX model (the protobuf is truncated or corrupt)'
	refused corrupt 'not an ONNX model'
	# an error, not a refusal: no reason code
	[[ ! "$stderr" =~ \[[a-z-]+\] ]]
	: > empty.onnx
	run "$BIN/nnl-onnx-import" empty.onnx
	[ "$status" -eq 1 ]
	head -c 5000 /dev/urandom > noise.onnx
	run "$BIN/nnl-onnx-import" -o g.json noise.onnx
	[ "$status" -eq 1 ] && [ ! -e g.json ]
}

@test "every node nnl cannot express is named in one error" {
	refused unknown-ops '3 nodes cannot be imported:'
	[[ "$stderr" == *'node "first" (StringNormalizer) [unsupported-op]'*'node "second" (Bernoulli) [unsupported-op]'*'node "third" (NotAnOp) [unsupported-op]'* ]]
	[[ "$stderr" != *'"ok"'* ]] && [[ "$stderr" != *'"fine"'* ]]
}

@test "an attribute the importer does not implement is refused" {
	refused unknown-attribute '1 node cannot be imported:'
	[[ "$stderr" == *'node "r" (Relu) [unsupported-attribute]: attribute "foo" of Relu-14 is not implemented'* ]]
	refused s2d-mode 'node "s" (SpaceToDepth) [unsupported-attribute]: attribute "mode" of SpaceToDepth-13'
}

@test "an opset newer than the importer knows is refused" {
	refused newer-opset 'node "s" (SpaceToDepth) [unsupported-version]: opset 26 is newer than the newest the importer knows (25)'
	# the newest it knows imports
	run "$BIN/nnl-onnx-import" -o g.json "$FX/newer-version/model.onnx"
	[ "$status" -eq 0 ]
}

@test "every refused node is listed, in order, whatever its reason" {
	refused mixed-refusals '4 nodes cannot be imported:'
	[[ "$stderr" == *'node "n1" (RandomUniformLike) [unsupported-op]'*'node "n2" (Elu) [unsupported-attribute]: attribute "beta"'*'node "n3" (Reshape) [not-constant]'*'node "n4" (Relu) [unsupported-attribute]: attribute "consumed_inputs" of Relu-14'* ]]
	[[ "$stderr" != *'"n5"'* ]]
	refused sixty-refusals '60 nodes cannot be imported:'
	[ "$(grep -c '^  node "a[0-9]*" (RandomUniformLike) \[unsupported-op\]' <<<"$stderr")" -eq 50 ]
	[[ "$stderr" == *'node "a49" (RandomUniformLike)'*'  and 10 more' ]]
}

@test "a type nnl lacks is refused naming the input" {
	refused complex-input 'input "x" [unsupported-type]: data type COMPLEX64 has no equivalent in nnl'"'"'s graph'
}

@test "DOUBLE imports as nnl's float64 and computes in double" {
	runs_as_numpy double-input
	grep -q '"dataType": "float64"' g.json
	# to the last bit: float would lose 1e15 + 1 and 1/3's digits
	/usr/bin/python3 - "$FX/double-input/want.npy" out/y.npy <<'PY'
import sys, numpy as np
w, g = np.load(sys.argv[1]), np.load(sys.argv[2])
assert g.dtype == np.float64 and np.array_equal(g, w), (g, w)
PY
}

@test "symbolic dimensions are listed, and --dim pins them" {
	refused symbolic-dims '2 dimensions are not known; pin them with --dim NAME=N:'
	[[ "$stderr" == *'input "x" dimension 0 ("batch")'*'input "x" dimension 2 ("width")'* ]]
	runs_as_numpy symbolic-dims --dim batch=2 -d width=5
	grep -q '"shape": \[2, 3, 5\]' g.json
}

@test "usage errors exit 2" {
	run "$BIN/nnl-onnx-import"
	[ "$status" -eq 2 ]
	run "$BIN/nnl-onnx-import" --dim batch "$FX/symbolic-dims/model.onnx"
	[ "$status" -eq 2 ]
	run "$BIN/nnl-onnx-import" -w only.weights "$FX/raw-float32/model.onnx"
	[ "$status" -eq 2 ]
}

@test "the imported graph satisfies the schema" {
	"$BIN/nnl-onnx-import" -o g.json "$FX/raw-float32/model.onnx"
	/usr/bin/python3 "$BATS_TEST_DIRNAME/../validate-schema.py" \
	    "$BATS_TEST_DIRNAME/../../schema/webnn-graph.schema.json" g.json
}

@test "operand counts are checked against the operator's schema" {
	/usr/bin/python3 - <<'PY'
import onnx
from onnx import helper, TensorProto
x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [3])
y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
for name, node in (("few", helper.make_node("Add", ["x"], ["y"], name="a")),
                   ("empty", helper.make_node("Add", ["x", ""], ["y"], name="a")),
                   ("many", helper.make_node("Relu", ["x", "x"], ["y"], name="a")),
                   ("opset", helper.make_node("HardSwish", ["x"], ["y"], name="a"))):
    m = helper.make_model(helper.make_graph([node], "g", [x], [y]),
        opset_imports=[helper.make_opsetid("", 11 if name == "opset" else 13)])
    open(name + ".onnx", "wb").write(m.SerializeToString())
PY
	run "$BIN/nnl-onnx-import" few.onnx
	[ "$status" -eq 1 ] && [[ "$output" == *'node "a" (Add): 1 inputs; Add-13 takes 2'* ]]
	run "$BIN/nnl-onnx-import" empty.onnx
	[ "$status" -eq 1 ] && [[ "$output" == *'node "a" (Add): input 1 is required'* ]]
	run "$BIN/nnl-onnx-import" many.onnx
	[ "$status" -eq 1 ] && [[ "$output" == *'node "a" (Relu): 2 inputs; Relu-'*' takes 1'* ]]
	run "$BIN/nnl-onnx-import" opset.onnx
	[ "$status" -eq 1 ] && [[ "$output" == *'HardSwish is not an operator of opset 11'* ]]
}

@test "the operand-count table is what ONNX's schemas say" {
	cd "$BATS_TEST_DIRNAME/../.."
	/usr/bin/python3 scripts/gen-onnx-arity.py | diff - common/onnx/onnx_arity.h
}

@test "--const gives an input's value at import time, when a node needs it" {
	/usr/bin/python3 - <<'PY'
import numpy as np
from onnx import helper, TensorProto
x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])
s = helper.make_tensor_value_info("shape", TensorProto.INT64, [2])
y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
m = helper.make_model(helper.make_graph(
    [helper.make_node("Reshape", ["x", "shape"], ["y"], name="r")],
    "g", [x, s], [y]), opset_imports=[helper.make_opsetid("", 13)])
open("m.onnx", "wb").write(m.SerializeToString())
np.save("shape.npy", np.array([3, -1], np.int64))
np.save("bad.npy", np.array([3, -1], np.int32))
xv = np.arange(6, dtype=np.float32).reshape(2, 3)
np.save("x.npy", xv)
np.save("want.npy", xv.reshape(3, 2))
PY
	run --separate-stderr "$BIN/nnl-onnx-import" -o g.json m.onnx
	[ "$status" -eq 1 ]
	[[ "$stderr" == *'node "r" (Reshape) [not-constant]: '*'(its value at import time: --const shape=FILE.npy)'* ]]
	"$BIN/nnl-onnx-import" -o g.json --const shape=shape.npy m.onnx
	! grep -q '"shape": {"dataType"' g.json
	mkdir -p out
	"$BIN/nnl-run" -d out g.json x=x.npy
	/usr/bin/python3 -c 'import numpy as np
assert np.array_equal(np.load("out/y.npy"), np.load("want.npy"))'
	run "$BIN/nnl-onnx-import" -c shape=bad.npy m.onnx
	[ "$status" -eq 1 ] && [[ "$output" == *"--const shape=bad.npy: int32 data for an input of int64"* ]]
	run "$BIN/nnl-onnx-import" -c shape m.onnx
	[ "$status" -eq 2 ]
}

@test "every refusal code is one nnl-onnx-import(1) lists under REFUSALS" {
	cd "$BATS_TEST_DIRNAME/../.."
	src=$(grep -o '\[REFUSE_[A-Z]*\] = "[a-z-]*"' common/onnx/onnx_emit.c |
	    sed 's/.*= "//; s/"$//' | sort)
	man=$(sed -n '/^\.Sh REFUSALS/,/^\.Sh /p' man/man1/nnl-onnx-import.1 |
	    sed -n 's/^\.It Li //p' | sort)
	echo "source: $src"
	echo "man: $man"
	[ -n "$src" ] && [ "$src" = "$man" ]
}

@test "an empty axes input reduces every axis; an empty input computes nothing" {
	/usr/bin/python3 - <<'PY'
import numpy as np
from onnx import helper, TensorProto
x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 4])
a = helper.make_tensor_value_info("axes", TensorProto.INT64, [0])
y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
for name, attrs in (("all", {"keepdims": 0}), ("keep", {"keepdims": 1}),
                    ("noop", {"noop_with_empty_axes": 1})):
    m = helper.make_model(helper.make_graph(
        [helper.make_node("ReduceSum", ["x", "axes"], ["y"], **attrs)],
        "g", [x, a], [y]), opset_imports=[helper.make_opsetid("", 13)])
    open(name + ".onnx", "wb").write(m.SerializeToString())
# an empty input: a Relu of it is empty, a sum of none 0, a product of
# none 1 (NumPy's), a maximum of none has no value: refused
e = helper.make_tensor_value_info("x", TensorProto.FLOAT, [0, 3])
for name, node in (("empty", helper.make_node("Relu", ["x"], ["y"])),
                   ("esum", helper.make_node("ReduceSum", ["x"], ["y"],
                                             keepdims=0)),
                   ("eprod", helper.make_node("ReduceProd", ["x"], ["y"],
                                              axes=[0])),
                   ("emax", helper.make_node("ReduceMax", ["x"], ["y"],
                                             axes=[0]))):
    m = helper.make_model(helper.make_graph([node], "g", [e], [y]),
                          opset_imports=[helper.make_opsetid("", 13)])
    open(name + ".onnx", "wb").write(m.SerializeToString())
z = np.zeros([0, 3], np.float32)
np.save("empty.npy", np.maximum(z, 0))
np.save("esum.npy", z.sum())
np.save("eprod.npy", z.prod(0, keepdims=True))
xv = np.random.default_rng(7).standard_normal([2, 3, 4]).astype(np.float32)
np.save("x.npy", xv)
np.save("all.npy", np.array(xv.astype(np.float64).sum(), np.float32))
np.save("keep.npy", xv.astype(np.float64).sum(keepdims=True)
        .astype(np.float32))
np.save("noop.npy", xv)
PY
	for m in all keep noop; do
		"$BIN/nnl-onnx-import" -o $m.json $m.onnx
		! grep -q '"axes": {"dataType"' $m.json
		mkdir -p $m
		"$BIN/nnl-run" -d $m $m.json x=x.npy >/dev/null
		/usr/bin/python3 -c 'import sys, numpy as np
g, w = np.load(sys.argv[1]), np.load(sys.argv[2])
assert g.shape == w.shape, (g.shape, w.shape)
assert np.allclose(g, w, rtol=1e-5, atol=1e-5), (g, w)' $m/y.npy $m.npy
	done
	for m in empty esum eprod; do
		"$BIN/nnl-onnx-import" -o $m.json $m.onnx
		mkdir -p $m
		"$BIN/nnl-run" -d $m $m.json >/dev/null
		/usr/bin/python3 -c 'import sys, numpy as np
g, w = np.load(sys.argv[1]), np.load(sys.argv[2])
assert g.shape == w.shape, (g.shape, w.shape)
assert np.array_equal(g, w), (g, w)' $m/y.npy $m.npy
	done
	run --separate-stderr "$BIN/nnl-onnx-import" -o g.json emax.onnx
	[ "$status" -eq 1 ]
	[[ "$stderr" == *'node "ReduceMax_0" (ReduceMax) [empty-tensor]: reduceMax of an empty tensor has no value'* ]]
	[ ! -e g.json ]
}

@test "a Tile or Expand to an empty result is an empty constant" {
	/usr/bin/python3 - <<'PY'
import numpy as np
from onnx import helper, numpy_helper, TensorProto
y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
for op, shape, arg in (("Tile", [2, 3], [2, 0]), ("Expand", [1, 3], [0, 3])):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)
    a = numpy_helper.from_array(np.array(arg, np.int64), "a")
    m = helper.make_model(helper.make_graph(
        [helper.make_node(op, ["x", "a"], ["y"])], "g", [x], [y], [a]),
        opset_imports=[helper.make_opsetid("", 13)])
    open(op + ".onnx", "wb").write(m.SerializeToString())
    v = np.ones(shape, np.float32)
    np.save(op + "-x.npy", v)
    np.save(op + ".npy", np.tile(v, arg) if op == "Tile" else
            np.broadcast_to(v, arg))
PY
	for m in Tile Expand; do
		"$BIN/nnl-onnx-import" -o $m.json $m.onnx
		mkdir -p $m
		"$BIN/nnl-run" -d $m $m.json x=$m-x.npy >/dev/null
		/usr/bin/python3 -c 'import sys, numpy as np
g, w = np.load(sys.argv[1]), np.load(sys.argv[2])
assert g.shape == w.shape and w.size == 0, (g.shape, w.shape)' $m/y.npy $m.npy
	done
}

@test "integer pow is exact: wrapping products, negative powers truncated" {
	/usr/bin/python3 - <<'PY'
from fractions import Fraction
import numpy as np
from onnx import helper, TensorProto
# the expected values from Python's integers, not numpy
x = [3, -3, 5, -5, 2, 7, 1, -1, -1, 2, -2, 0, 0, 9]
z = [40, 41, 29, 33, 63, 23, -3, -3, -4, -1, -2, 0, 5, 0]
for t, np_t, bits in ((TensorProto.INT64, np.int64, 64),
                      (TensorProto.INT32, np.int32, 32)):
    want = []
    for a, b in zip(x, z):
        v = a ** b if b >= 0 else int(Fraction(1, a ** -b))
        v %= 1 << bits
        want.append(v - (1 << bits) if v >> (bits - 1) else v)
    n = "i%d" % bits
    xi = helper.make_tensor_value_info("x", t, [len(x)])
    zi = helper.make_tensor_value_info("z", t, [len(x)])
    y = helper.make_tensor_value_info("y", t, None)
    m = helper.make_model(helper.make_graph(
        [helper.make_node("Pow", ["x", "z"], ["y"])], "g", [xi, zi], [y]),
        opset_imports=[helper.make_opsetid("", 15)])
    open(n + ".onnx", "wb").write(m.SerializeToString())
    np.save(n + "x.npy", np.array(x, np_t))
    np.save(n + "z.npy", np.array(z, np_t))
    np.save(n + "want.npy", np.array(want, np_t))
    open(n + ".in", "wb").write(np.array(x, np_t).tobytes() +
                                np.array(z, np_t).tobytes())
# an integer to a float power: computed in float, truncated back
xi = helper.make_tensor_value_info("x", TensorProto.INT32, [4])
zi = helper.make_tensor_value_info("z", TensorProto.FLOAT, [4])
y = helper.make_tensor_value_info("y", TensorProto.INT32, None)
m = helper.make_model(helper.make_graph(
    [helper.make_node("Pow", ["x", "z"], ["y"])], "g", [xi, zi], [y]),
    opset_imports=[helper.make_opsetid("", 15)])
open("f.onnx", "wb").write(m.SerializeToString())
np.save("fx.npy", np.array([2, 3, 3, -2], np.int32))
np.save("fz.npy", np.array([0.5, 1.5, 4, 3], np.float32))
np.save("fwant.npy", np.array([1, 5, 81, -8], np.int32))
PY
	for n in i64 i32; do
		"$BIN/nnl-onnx-import" -o $n.json $n.onnx
		mkdir -p $n
		"$BIN/nnl-run" -d $n $n.json x=${n}x.npy z=${n}z.npy >/dev/null
		cmp $n/y.npy ${n}want.npy
		# and the C back end: the compiled program's raw output
		"$BIN/nnc" compile --emit exe -o $n.prog $n.json
		./$n.prog < $n.in > $n.out
		/usr/bin/python3 -c 'import sys, numpy as np
w = np.load(sys.argv[1])
g = np.frombuffer(open(sys.argv[2], "rb").read(), w.dtype)
assert np.array_equal(g, w), (g, w)' ${n}want.npy $n.out
	done
	"$BIN/nnl-onnx-import" -o f.json f.onnx
	mkdir -p f
	"$BIN/nnl-run" -d f f.json x=fx.npy z=fz.npy >/dev/null
	cmp f/y.npy fwant.npy
}

@test "nnc import writes the NNL example as layers that pass its test" {
	cp -r "$BATS_TEST_DIRNAME/../../examples/import_test" .
	"$BIN/nnc" import import_test/model.onnx -o import_test/model.nnl \
	    --weights-dir import_test/weights
	grep -q 'Dense(units: 3)' import_test/model.nnl
	grep -q 'weights: "weights";' import_test/model.nnl
	[ -f import_test/weights/h.weight.npy ]
	run "$BIN/nnc" test import_test/model.nnl --input import_test/input.npy \
	    --expected import_test/expected.npy
	echo "$output"
	[ "$status" -eq 0 ]
	# and to JSON, with its weights beside it
	"$BIN/nnc" import import_test/model.onnx -o j/mlp.json
	[ -f j/mlp.json ]
	run "$BIN/nnc" test j/mlp.json --input import_test/input.npy \
	    --expected import_test/expected.npy
	[ "$status" -eq 0 ]
}

@test "nnc import names the nodes that fit no NNL layer" {
	run "$BIN/nnc" import -o t.nnl "$FX/bool-int32-data/model.onnx"
	[ "$status" -eq 1 ]
	[[ "$output" == *'fit no NNL layer'*'(where): no NNL layer computes it'* ]]
	[ ! -e t.nnl ]
}
