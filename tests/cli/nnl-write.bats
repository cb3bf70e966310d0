#!/usr/bin/env bats
# nnl-parse -t nnl: a typed NCHW graph back to an NNL model with .npy
# weights, checked by compiling the NNL model against PyTorch; graphs
# that fit no NNL layer are refused naming each node.

bats_require_minimum_version 1.5.0

setup() {
	export LC_ALL=C
	BIN="${NNL_BIN:-$BATS_TEST_DIRNAME/../../bin}"
	cd "$BATS_TEST_TMPDIR"
	/usr/bin/python3 "$BATS_TEST_DIRNAME/../data/nnl-write/make_cnn.py" .
}

@test "a CNN becomes NNL layers that compute what PyTorch does, in HWC" {
	"$BIN/nnl-parse" -t nnl -o out/cnn.nnl cnn.json
	grep -q 'layer x = Input(shape: \[8, 8, 3\]);' out/cnn.nnl
	grep -q 'Conv2D(filters: 4, kernel: \[3, 3\], stride: \[1, 1\], padding: "same")' out/cnn.nnl
	grep -q 'weights: "weights";' out/cnn.nnl
	[ -f out/weights/d.weight.npy ] && [ -f out/weights/c.bias.npy ]
	# the Dense rows were permuted from CHW to HWC: PyTorch agrees
	run "$BIN/nnc" test --input in_hwc.npy --expected want.npy out/cnn.nnl
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "nodes that fit no layer are all named, and nothing is written" {
	/usr/bin/python3 - <<'PY'
import json
g = json.load(open("cnn.json"))
g["nodes"][0]["options"]["dilations"] = [2, 2]
g["nodes"][0]["options"]["padding"] = [2, 2, 2, 2]
g["nodes"][1]["op"] = "tanh"
json.dump(g, open("bad.json", "w"))
PY
	run --separate-stderr "$BIN/nnl-parse" -t nnl -o o/bad.nnl bad.json
	echo "$stderr"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"2 nodes fit no NNL layer"* ]]
	[[ "$stderr" == *'node "c" (conv2d): '*dilations* ]]
	[[ "$stderr" == *'node "r" (tanh): no NNL layer computes it'* ]]
	[ ! -e o/bad.nnl ] && [ ! -e o/weights ]
}

@test "-t nnl needs an output file" {
	run "$BIN/nnl-parse" -t nnl cnn.json
	[ "$status" -eq 2 ]
	run "$BIN/nnl-parse" -d w cnn.json
	[ "$status" -eq 2 ]
}

@test "matmul followed by a constant add becomes one Dense with that bias" {
	/usr/bin/python3 - <<'PY'
import json, numpy as np
g = json.load(open("cnn.json"))
np.save("w/fwt.npy", np.load("w/fw.npy").T.copy())
g["consts"]["fwt"] = {"dataType": "float32", "shape": [64, 5],
                      "init": {"kind": "weights", "ref": "fwt"}}
g["consts"]["fb2"] = {"dataType": "float32", "shape": [5],
                      "init": {"kind": "weights", "ref": "fb"}}
nodes = [n for n in g["nodes"] if n["op"] != "gemm"]
nodes.insert(4, {"id": "mm", "op": "matmul", "inputs": ["f", "fwt"], "options": {}})
nodes.insert(5, {"id": "d", "op": "add", "inputs": ["mm", "fb2"], "options": {}})
g["nodes"] = nodes
json.dump(g, open("mm.json", "w"))
PY
	"$BIN/nnl-pack-weights" pack -o mm.weights w
	"$BIN/nnl-parse" -t nnl -o out/mm.nnl mm.json
	[ "$(grep -c 'Dense(units: 5)' out/mm.nnl)" -eq 1 ]
	! grep -q 'Add()' out/mm.nnl
	run "$BIN/nnc" test --input in_hwc.npy --expected want.npy out/mm.nnl
	echo "$output"
	[ "$status" -eq 0 ]
}
