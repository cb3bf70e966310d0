#!/usr/bin/env bats
# Relocatable graphs: JSON written to a file names its weights relative
# to that file, so the folder can be moved and the next pass still reads
# it; on standard output the paths stay absolute.

bats_require_minimum_version 1.5.0

setup() {
	export LC_ALL=C
	ROOT="$BATS_TEST_DIRNAME/../.."
	BIN="${NNL_BIN:-$ROOT/bin}"
	T="$BATS_TEST_TMPDIR"
	EX="$ROOT/examples"
	cd "$T"
}

# A 16 -> 8 Gemm and Relu whose weights (512 bytes) go to a weights file;
# the expected output from NumPy.
onnx_model() {
	/usr/bin/python3 - "$T" <<'PY'
import sys, numpy as np, onnx
from onnx import helper, numpy_helper, TensorProto
d = sys.argv[1]
r = np.random.default_rng(3)
W = r.standard_normal((16, 8)).astype(np.float32)
b = r.standard_normal(8).astype(np.float32)
x = r.standard_normal((1, 16)).astype(np.float32)
g = helper.make_graph(
    [helper.make_node("Gemm", ["x", "W", "b"], ["h"]),
     helper.make_node("Relu", ["h"], ["y"])], "mlp",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 16])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 8])],
    [numpy_helper.from_array(W, "W"), numpy_helper.from_array(b, "b")])
m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
onnx.save(m, d + "/mlp.onnx")
np.save(d + "/x.npy", x)
y = np.maximum(x.astype(np.float64) @ W + b, 0)
np.save(d + "/y.npy", y.astype(np.float32))
PY
}

weights_field() {
	/usr/bin/python3 -c 'import json, sys
w = json.load(open(sys.argv[1]))["weights"]
print(w["file"], w["manifest"])' "$1"
}

@test "nnl-parse -o: relative weights; the moved folder compiles and matches NumPy" {
	mkdir -p a/model
	"$BIN/nnl-parse" -w a/model/mnist.weights -m a/model/mnist.manifest.json \
	    -o a/model/mnist.json "$EX/mnist/mnist.nnl"
	[ "$(weights_field a/model/mnist.json)" = "mnist.weights mnist.manifest.json" ]
	mv a/model moved
	rm -rf a
	run "$BIN/nnl-shape-infer" -o moved/typed.json moved/mnist.json
	[ "$status" -eq 0 ]
	[ "$(weights_field moved/typed.json)" = "mnist.weights mnist.manifest.json" ]
	run "$BIN/nnc" test --input "$EX/mnist/test_input.npy" \
	    --expected "$EX/mnist/expected_output.npy" moved/typed.json
	[ "$status" -eq 0 ]
}

@test "a graph in a subfolder names weights with ../, and still reads after the move" {
	mkdir -p p/json p/w
	"$BIN/nnl-parse" -w p/w/m.weights -m p/w/m.manifest.json \
	    -o p/json/m.json "$EX/mnist/mnist.nnl"
	[ "$(weights_field p/json/m.json)" = "../w/m.weights ../w/m.manifest.json" ]
	mkdir deep
	mv p deep/q
	run "$BIN/nnl-reorder" deep/q/json/m.json
	[ "$status" -eq 0 ]
	printf '%s\n' "$output" >out.json
	f=$(weights_field out.json)
	[[ "$f" == /* ]]
	[ -f "${f%% *}" ]
}

@test "on standard output the weights paths stay absolute" {
	"$BIN/nnl-parse" -w m.weights -m m.manifest.json "$EX/mnist/mnist.nnl" >out.json
	f=$(weights_field out.json)
	[[ "$f" == /*/m.weights\ /*/m.manifest.json ]]
}

@test "nnl-onnx-import -o: the moved folder runs the next pass and matches" {
	onnx_model
	mkdir imp
	"$BIN/nnl-onnx-import" -w imp/mlp.weights -m imp/mlp.manifest.json \
	    -o imp/mlp.json mlp.onnx
	[ "$(weights_field imp/mlp.json)" = "mlp.weights mlp.manifest.json" ]
	mv imp imp2
	run "$BIN/nnl-shape-infer" -o imp2/typed.json imp2/mlp.json
	[ "$status" -eq 0 ]
	run "$BIN/nnc" test --input x.npy \
	    --expected y.npy imp2/typed.json
	[ "$status" -eq 0 ]
}

@test "nnc import -o model.json: the moved folder compiles and matches" {
	onnx_model
	mkdir ni
	"$BIN/nnc" import -o ni/mlp.json mlp.onnx
	f=$(weights_field ni/mlp.json)
	[[ "$f" != /* ]]
	mv ni ni2
	run "$BIN/nnc" test --input x.npy \
	    --expected y.npy ni2/mlp.json
	[ "$status" -eq 0 ]
}
