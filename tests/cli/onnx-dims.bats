#!/usr/bin/env bats
# nnl-onnx-import --dims FILE: symbolic dimensions pinned from JSON, in
# ONNX Runtime's {"freeDimensionOverrides": {...}} form or as a flat
# object, beside --dim NAME=N; errors name the file and the entry.

bats_require_minimum_version 1.5.0

setup() {
	export LC_ALL=C
	BIN="${NNL_BIN:-$BATS_TEST_DIRNAME/../../bin}"
	cd "$BATS_TEST_TMPDIR"
	/usr/bin/python3 - <<'PY'
import onnx
from onnx import helper, TensorProto
x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 3, "width"])
y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 3, "width"])
g = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "g", [x], [y])
m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
onnx.save(m, "model.onnx")
PY
}

shape_of_x() {
	/usr/bin/python3 -c 'import json, sys
print(json.load(open(sys.argv[1]))["inputs"]["x"]["shape"])' "$1"
}

@test "ONNX Runtime's freeDimensionOverrides form pins the dimensions" {
	printf '{"freeDimensionOverrides": {"batch": 2, "width": 5}}\n' > dims.json
	"$BIN/nnl-onnx-import" -o g.json --dims dims.json model.onnx
	[ "$(shape_of_x g.json)" = "[2, 3, 5]" ]
}

@test "a flat object pins them too, and --dim takes precedence over the file" {
	printf '{"batch": 4, "width": 7}\n' > flat.json
	"$BIN/nnl-onnx-import" -o g.json --dims flat.json model.onnx
	[ "$(shape_of_x g.json)" = "[4, 3, 7]" ]
	"$BIN/nnl-onnx-import" -o g2.json --dims flat.json --dim batch=1 model.onnx
	[ "$(shape_of_x g2.json)" = "[1, 3, 7]" ]
	# the pinned graph runs: relu of x, as NumPy
	/usr/bin/python3 -c 'import numpy as np
np.save("x.npy", np.random.default_rng(2).standard_normal((1, 3, 7)).astype(np.float32))'
	"$BIN/nnl-run" -d . g2.json x=x.npy > /dev/null
	/usr/bin/python3 -c 'import numpy as np
assert np.array_equal(np.load("y.npy"), np.maximum(np.load("x.npy"), 0))'
}

@test "a dimension the file leaves out is still named" {
	printf '{"freeDimensionOverrides": {"batch": 2}}\n' > part.json
	run --separate-stderr "$BIN/nnl-onnx-import" -o g.json --dims part.json model.onnx
	[ "$status" -eq 1 ]
	[[ "$stderr" == *'input "x" dimension 2 ("width")'* ]]
	[ ! -e g.json ]
}

@test "bad entries are named with the file; nothing is written" {
	printf '{"freeDimensionOverrides": {"batch": 0, "width": "five", "x=y": 2, "h": 2.5}}\n' > bad.json
	run --separate-stderr "$BIN/nnl-onnx-import" -o g.json --dims bad.json model.onnx
	[ "$status" -eq 1 ]
	[[ "$stderr" == *'nnl-onnx-import: bad.json: error: entry "batch": expected a positive integer, found 0'* ]]
	[[ "$stderr" == *'bad.json: error: entry "width": expected a positive integer, found "five"'* ]]
	[[ "$stderr" == *"bad.json: error: entry \"x=y\": not a dimension name (empty, or with '=')"* ]]
	[[ "$stderr" == *'bad.json: error: entry "h": expected a positive integer, found 2.5'* ]]
	[ ! -e g.json ]
}

@test "a file that is not JSON, not an object, or missing, is an error naming it" {
	printf '{"batch": 2,\n "width": }\n' > syntax.json
	run --separate-stderr "$BIN/nnl-onnx-import" -o g.json --dims syntax.json model.onnx
	[ "$status" -eq 1 ]
	[[ "$stderr" == *'syntax.json:2:11: error:'* ]]
	printf '[1, 2]\n' > arr.json
	run --separate-stderr "$BIN/nnl-onnx-import" -o g.json --dims arr.json model.onnx
	[ "$status" -eq 1 ]
	[[ "$stderr" == *'arr.json: error: expected a JSON object of dimension names and sizes'* ]]
	printf '{"freeDimensionOverrides": [1]}\n' > fdo.json
	run --separate-stderr "$BIN/nnl-onnx-import" -o g.json --dims fdo.json model.onnx
	[ "$status" -eq 1 ]
	[[ "$stderr" == *'fdo.json: error: "freeDimensionOverrides": expected an object'* ]]
	run --separate-stderr "$BIN/nnl-onnx-import" -o g.json --dims none.json model.onnx
	[ "$status" -eq 1 ]
	[[ "$stderr" == *'none.json: error: No such file or directory'* ]]
	[ ! -e g.json ]
}
