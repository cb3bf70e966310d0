#!/usr/bin/env bats
# ONNX Dropout: the identity at inference, and in training when its
# ratio is a constant 0 (the mask then all ones); a dropout that would
# drop is refused with its reason code.

bats_require_minimum_version 1.5.0

setup() {
	export LC_ALL=C
	BIN="${NNL_BIN:-$BATS_TEST_DIRNAME/../../bin}"
	cd "$BATS_TEST_TMPDIR"
}

# a Dropout (opset 13) of x [2, 3] with ratio $1 and training_mode $2:
# a number or "true"/"false" is a constant (initializer), "input" a
# graph input; outputs y and mask
model() {
	/usr/bin/python3 - "$1" "$2" <<'PY'
import sys
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
ratio, train = sys.argv[1], sys.argv[2]
ins = [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])]
inits = []
if ratio == "input":
    ins.append(helper.make_tensor_value_info("r", TensorProto.FLOAT, []))
else:
    inits.append(numpy_helper.from_array(np.array(float(ratio),
                                                  np.float32), "r"))
if train == "input":
    ins.append(helper.make_tensor_value_info("t", TensorProto.BOOL, []))
else:
    inits.append(numpy_helper.from_array(np.array(train == "true"), "t"))
outs = [helper.make_tensor_value_info("y", TensorProto.FLOAT, None),
        helper.make_tensor_value_info("mask", TensorProto.BOOL, None)]
n = helper.make_node("Dropout", ["x", "r", "t"], ["y", "mask"], name="D")
g = helper.make_graph([n], "g", ins, outs, initializer=inits)
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]),
          "m.onnx")
np.save("x.npy", np.arange(-3, 3, dtype=np.float32).reshape(2, 3))
np.save("t.npy", np.array(1, np.uint8))     # bool, as nnl holds it
PY
}

# imported and run (t, when an input, true): y is x, the mask all ones
identity() {
	"$BIN/nnl-onnx-import" -o g.json m.onnx
	"$BIN/nnl-run" -d out g.json x=x.npy $1 > /dev/null
	/usr/bin/python3 -c 'import numpy as np
assert np.array_equal(np.load("out/y.npy"), np.load("x.npy"))
m = np.load("out/mask.npy")
assert m.shape == (2, 3) and np.all(m == 1), m'
}

@test "dropout: training_mode a constant false is the identity, the mask all ones" {
	model 0.5 false
	identity
}

@test "dropout: a ratio of 0 is the identity even in training, or with training_mode computed" {
	model 0 true
	identity
	model 0 input
	identity t=t.npy
}

@test "dropout: training with a ratio that drops is refused" {
	model 0.5 true
	run --separate-stderr "$BIN/nnl-onnx-import" -o g.json m.onnx
	[ "$status" -eq 1 ]
	[[ "$stderr" == *'node "D" (Dropout) [unsupported-attribute]: training_mode is true and the ratio is not 0'* ]]
	model input true
	run --separate-stderr "$BIN/nnl-onnx-import" -o g.json m.onnx
	[ "$status" -eq 1 ]
	[[ "$stderr" == *'node "D" (Dropout) [unsupported-attribute]: training_mode is true and the ratio is not constant'* ]]
	model 0.5 input
	run --separate-stderr "$BIN/nnl-onnx-import" -o g.json m.onnx
	[ "$status" -eq 1 ]
	[[ "$stderr" == *'node "D" (Dropout) [not-constant]: training_mode must be constant'* ]]
	[ ! -e g.json ]
}
