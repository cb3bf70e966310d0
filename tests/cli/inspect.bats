#!/usr/bin/env bats
# nnc inspect: the model as written (every layer, weights or none), and
# --fused, the graph nnc compiles.  Parameter counts are worked out by
# hand in each test.

bats_require_minimum_version 1.5.0

setup() {
	export LC_ALL=C
	ROOT="$BATS_TEST_DIRNAME/../.."
	BIN="${NNL_BIN:-$ROOT/bin}"
	T="$BATS_TEST_TMPDIR"
	PY=/usr/bin/python3
	cd "$T"
	cat > tiny.nnl <<'NNL'
version 0.2;
model tiny {
    config { weights: "./weights"; }
    layer input = Input(shape: [8, 8, 16]);
    layer conv1 = Conv2D(filters: 32, kernel: 3, padding: "same");
    layer bn1 = BatchNorm();
    layer relu1 = ReLU();
    layer drop = Dropout(rate: 0.5);
    layer pool = MaxPool2D(kernel: 2);
    layer flat = Flatten();
    layer fc = Dense(units: 10);
}
NNL
}

weights() {
	mkdir -p weights
	$PY -c 'import numpy as np
r = np.random.default_rng(1)
for k, s in [("conv1.weight", (32, 16, 3, 3)), ("conv1.bias", (32,)),
             ("bn1.gamma", (32,)), ("bn1.beta", (32,)),
             ("bn1.running_mean", (32,)), ("bn1.running_var", (32,)),
             ("fc.weight", (512, 10)), ("fc.bias", (10,))]:
    a = r.standard_normal(s).astype(np.float32)
    np.save("weights/" + k + ".npy", abs(a) + 0.5 if "var" in k else a)'
}

@test "every layer as written, with no weights at all" {
	mkdir weights	# empty: compile stops at E003
	run --separate-stderr "$BIN/nnc" compile tiny.nnl
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"E003: 8 missing weights"* ]]
	[[ "$stderr" == *"hint: run 'nnc inspect "*"tiny.nnl'"* ]]
	run --separate-stderr "$BIN/nnc" inspect tiny.nnl
	echo "$output"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[[ "${lines[0]}" == "Model: tiny (version 0.2)" ]]
	[[ "${lines[1]}" == "Precision: float32 | Target: generic | Batch: 1" ]]
	[[ "${lines[2]}" =~ ^Layer\ +Type\ +Output\ Shape\ +Params$ ]]
	# conv 3x3 16->32: 3*3*16*32 + 32 = 4640; BatchNorm: 4 vectors of
	# 32 = 128; Dense 4*4*32=512 -> 10: 512*10 + 10 = 5130
	[[ "${lines[4]}" =~ ^input\ +Input\ +\[8,\ 8,\ 16\]\ +0$ ]]
	[[ "${lines[5]}" =~ ^conv1\ +Conv2D\ +\[8,\ 8,\ 32\]\ +4,640$ ]]
	[[ "${lines[6]}" =~ ^bn1\ +BatchNorm\ +\[8,\ 8,\ 32\]\ +128$ ]]
	[[ "${lines[7]}" =~ ^relu1\ +ReLU\ +\[8,\ 8,\ 32\]\ +0$ ]]
	[[ "${lines[8]}" =~ ^drop\ +Dropout\ +\[8,\ 8,\ 32\]\ +0$ ]]
	[[ "${lines[9]}" =~ ^pool\ +MaxPool2D\ +\[4,\ 4,\ 32\]\ +0$ ]]
	[[ "${lines[10]}" =~ ^flat\ +Flatten\ +\[512\]\ +0$ ]]
	[[ "${lines[11]}" =~ ^fc\ +Dense\ +\[10\]\ +5,130$ ]]
	# 4640 + 128 + 5130 = 9898 float32: 39592 bytes = 38.7 KB
	[[ "$output" == *"Total params:    9,898"* ]]
	[[ "$output" == *"Weight memory:   38.7 KB"* ]]
	[[ "$output" == *"Workspace:       "*" KB (static buffer)"* ]]
	# what E003's hint promises: every tensor with its shape
	[[ "$output" =~ conv1.weight\ +\[32,\ 16,\ 3,\ 3\] ]]
	[[ "$output" =~ bn1.running_var\ +\[32\] ]]
	[[ "$output" =~ fc.weight\ +\[512,\ 10\] ]]
	rmdir weights	# not even the directory
	run --separate-stderr "$BIN/nnc" compile tiny.nnl
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"No such file or directory"*"hint: run 'nnc inspect "*"tiny.nnl'"* ]]
	run "$BIN/nnc" inspect tiny.nnl
	[ "$status" -eq 0 ]
	[[ "$output" == *"Total params:    9,898"* ]]
}

@test "--fused shows what is compiled: BatchNorm and ReLU folded" {
	weights
	run "$BIN/nnc" inspect tiny.nnl
	[ "$status" -eq 0 ]
	[[ "$output" =~ bn1\ +BatchNorm ]]
	run --separate-stderr "$BIN/nnc" inspect --fused tiny.nnl
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" != *BatchNorm* ]]
	[[ "$output" != *Dropout* ]]
	[[ "$output" =~ conv1\ +Conv2D ]]
	[[ "$output" == *"Total params:    "* ]]
	run --separate-stderr "$BIN/nnc" inspect --fused nowhere.nnl
	[ "$status" -eq 1 ]
}

@test "a .webnn graph: one row per node, with the batch" {
	cp "$ROOT/examples/resnet_head/resnet_head.webnn" .
	run "$BIN/nnc" inspect resnet_head.webnn
	echo "$output"
	[ "$status" -eq 0 ]
	# matmul 2048x1000 = 2,048,000, then the bias add of 1,000
	[[ "$output" =~ logits0\ +matmul\ +\[1,\ 1000\]\ +2,048,000 ]]
	[[ "$output" =~ logits\ +add\ +\[1,\ 1000\]\ +1,000 ]]
	[[ "$output" =~ probs\ +softmax\ +\[1,\ 1000\]\ +0 ]]
	[[ "$output" == *"Total params:    2,049,000"* ]]
}

@test "an ONNX model before fusion: Conv, BatchNormalization, Relu" {
	$PY -c 'import numpy as np, onnx
from onnx import helper as h, TensorProto as P, numpy_helper as nh
r = np.random.default_rng(2)
def t(n, *s): return nh.from_array(r.standard_normal(s).astype(np.float32), n)
g = h.make_graph([
    h.make_node("Conv", ["x", "w", "b"], ["c"], name="conv", pads=[1, 1, 1, 1]),
    h.make_node("BatchNormalization", ["c", "s", "bb", "m", "v"], ["n"], name="bn"),
    h.make_node("Relu", ["n"], ["r"], name="relu"),
    h.make_node("Flatten", ["r"], ["f"], name="flat"),
    h.make_node("Gemm", ["f", "W", "B"], ["y"], name="fc", transB=1)],
    "g", [h.make_tensor_value_info("x", P.FLOAT, [1, 3, 4, 4])],
    [h.make_tensor_value_info("y", P.FLOAT, [1, 5])],
    [t("w", 8, 3, 3, 3), t("b", 8), t("s", 8), t("bb", 8), t("m", 8),
     nh.from_array(np.ones(8, np.float32), "v"), t("W", 5, 128), t("B", 5)])
onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", 13)]), "m.onnx")'
	run --separate-stderr "$BIN/nnc" inspect m.onnx
	echo "$output"
	[ "$status" -eq 0 ]
	# conv 3x3 3->8: 3*3*3*8 + 8 = 224; BatchNormalization 4*8 = 32;
	# Gemm 128 -> 5: 128*5 + 5 = 645; 224 + 32 + 645 = 901
	[[ "$output" =~ \[1,\ 8,\ 4,\ 4\]\ +224 ]]
	[[ "$output" =~ batchNormalization\ +\[1,\ 8,\ 4,\ 4\]\ +32 ]]
	[[ "$output" =~ relu\ +\[1,\ 8,\ 4,\ 4\]\ +0 ]]
	[[ "$output" =~ \[1,\ 5\]\ +645 ]]
	[[ "$output" == *"Total params:    901"* ]]
}

@test "inspect of a model with an error names file:line:col" {
	sed 's/units: 10/units: 0/' tiny.nnl > bad.nnl
	run --separate-stderr "$BIN/nnc" inspect bad.nnl
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"bad.nnl:"*":"*": error: Dense: units must be positive"* ]]
	[ -z "$output" ]
}
