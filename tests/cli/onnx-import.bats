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
	: > empty.onnx
	run "$BIN/nnl-onnx-import" empty.onnx
	[ "$status" -eq 1 ]
	head -c 5000 /dev/urandom > noise.onnx
	run "$BIN/nnl-onnx-import" -o g.json noise.onnx
	[ "$status" -eq 1 ] && [ ! -e g.json ]
}

@test "every node nnl cannot express is named in one error" {
	refused unknown-ops '3 nodes have no WebNN equivalent:'
	[[ "$stderr" == *'node "first" (Acos)'*'node "second" (Det)'*'node "third" (NotAnOp)'* ]]
	[[ "$stderr" != *'"ok"'* ]] && [[ "$stderr" != *'"fine"'* ]]
}

@test "a type WebNN lacks is refused naming the input" {
	refused double-input 'input "x": data type DOUBLE has no equivalent in WebNN'
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
	/usr/bin/python3 scripts/gen-onnx-arity.py | diff - common/onnx_arity.h
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
	[[ "$stderr" == *'node "r" (Reshape): '*'(its value at import time: --const shape=FILE.npy)'* ]]
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
