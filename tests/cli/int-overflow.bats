#!/usr/bin/env bats
# Integer arithmetic on extreme values wraps, as in numpy and WebNN, in
# nnl-run and in the C that nnc compile builds, with no undefined
# behaviour: reductions (sum, L1, sum of squares, product, max and min
# of uint64), add, sub, mul, div, pow and comparisons of 64-bit values,
# abs and neg of the most negative value, cumulativeSum and prelu, and
# clamp of uint64 above 2^63 or with bounds beyond the type.
# tests/data/intwrap/cases.py writes each graph with numpy's answer;
# under make check-asan both programs run sanitized, so a signed
# overflow in a kernel fails the test even where the bits come out
# right.  Also: a float16 layerNormalization whose float32 copies fill
# an odd number of floats (its kernel's scratch of doubles follows
# them), and an ONNX Mean of one constant input.

bats_require_minimum_version 1.5.0

setup() {
	export LC_ALL=C
	ROOT="$BATS_TEST_DIRNAME/../.."
	BIN="${NNL_BIN:-$ROOT/bin}"
	D="$ROOT/tests/data/intwrap"
	PATH="$BIN:$PATH"
	cd "$BATS_TEST_TMPDIR"
}

# Every case of family $1 through nnl-run and through nnc compile (in
# make check-asan nnc adds the sanitizers from NNC_CFLAGS), each output
# compared with numpy's bit for bit; prints how many cases ran.  Any
# failure ends the test (errexit).
family() {
	local n k=0

	/usr/bin/python3 "$D/cases.py" . "$1" > names
	for n in $(cat names); do
		mkdir "run-$n"
		"$BIN/nnl-run" -d "run-$n" "$n.json" "x=$n.x.npy" > /dev/null
		/usr/bin/python3 "$D/check.py" "$n.want.npy" "run-$n/y.npy"
		"$BIN/nnc" compile -o "$n.prog" "$n.json"
		"./$n.prog" < "$n.x.bin" > "$n.out.bin"
		/usr/bin/python3 "$D/check.py" "$n.want.npy" "$n.out.bin"
		k=$((k + 1))
	done
	echo "$k"
}

@test "integer reductions wrap: sum, L1, sum of squares and product of extreme values" {
	family reduce > count
	[ "$(cat count)" -eq 10 ]
}

@test "integer add, sub, mul, div and pow wrap; 64-bit comparisons are exact" {
	family binary > count
	[ "$(cat count)" -eq 13 ]
}

@test "abs and neg of the most negative integer, cumulativeSum and prelu wrap; clamp saturates" {
	family unary > count
	[ "$(cat count)" -eq 10 ]
}

@test "the case generator wraps as numpy does: its answers are not the inputs" {
	# a guard on the fixtures: the extreme values must overflow, or the
	# tests above would pass on kernels that never wrap
	/usr/bin/python3 - "$D" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
import numpy as np
import cases
with np.errstate(over="ignore"):
    r = {c[0]: c for c in cases.reduce_cases()}
    b = {c[0]: c for c in cases.binary_cases()}
    u = {c[0]: c for c in cases.unary_cases()}
# INT64_MAX + 1 wrapped to INT64_MIN; |INT64_MIN| stays negative
assert r["reduceSum-int64"][4][0] == np.iinfo(np.int64).max + 6 - 2**64
assert u["abs-int64"][4][0] == np.iinfo(np.int64).min
assert b["div-int64"][4][0] == np.iinfo(np.int64).min
assert b["pow-int32"][4][0] == 3**21 - 2 * 2**32     # 3^21 wrapped
# 2^53 + 1 and 2^53 are one double apart from nothing: equal as doubles
assert float(b["greater-int64"][2][0]) == float(b["greater-int64"][3][0])
assert b["greater-int64"][4][0] == 1
PY
}

@test "float16 layerNormalization with a bias: nnl-run and the C program agree with numpy" {
	# 15 + 5 + 15 float32 copies: the kernel's doubles come after an
	# odd number of floats
	/usr/bin/python3 - <<'PY'
import json
import numpy as np
x = (np.arange(15).reshape(3, 5) * 0.75 - 4.5).astype(np.float16)
x[1, 2] = 6.0
b = np.array([0.25, -1.0, 0.5, 2.0, 0.0], np.float16)
g = {"format": "webnn-graph-json", "version": 1, "name": "ln16",
     "inputs": {"b": {"dataType": "float16", "shape": [5]}},
     "consts": {"x": {"dataType": "float16", "shape": [3, 5], "init":
                      {"kind": "inlineBytes", "bytes": list(x.tobytes())}}},
     "nodes": [{"id": "y", "op": "layerNormalization", "inputs": ["x"],
                "options": {"bias": "b"}}],
     "outputs": {"y": "y"}}
json.dump(g, open("ln16.json", "w"))
np.save("b.npy", b)
open("b.bin", "wb").write(b.tobytes())
v = x.astype(np.float64)
m = v.mean(axis=1, keepdims=True)
want = (v - m) / np.sqrt(v.var(axis=1, keepdims=True) + 1e-5) + b
np.save("want.npy", want.astype(np.float16))
PY
	mkdir o
	"$BIN/nnl-run" -d o ln16.json b=b.npy > /dev/null
	"$BIN/nnc" compile -o ln16 ln16.json
	./ln16 < b.bin > out.bin
	/usr/bin/python3 - <<'PY'
import numpy as np
want = np.load("want.npy").astype(np.float32)
raw = np.fromfile("out.bin", np.float16)
for got in (np.load("o/y.npy"), raw.reshape(3, 5)):
    assert got.dtype == np.float16 and got.shape == want.shape, got
    # float16 keeps 11 bits: a few units in the last place
    assert np.allclose(got.astype(np.float32), want, rtol=4e-3,
                       atol=4e-3), (got, want)
PY
}

@test "an ONNX Mean of one constant input imports as a graph shape-infer and nnl-run accept" {
	/usr/bin/python3 - <<'PY'
import numpy as np
import onnx
from onnx import helper, numpy_helper, TensorProto
c = np.array([3.0, -0.5, 2.0], np.float32)
n = helper.make_node("Mean", ["data_0"], ["result"])
g = helper.make_graph([n], "mean1", [],
                      [helper.make_tensor_value_info("result",
                                                     TensorProto.FLOAT, [3])],
                      [numpy_helper.from_array(c, "data_0")])
m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
onnx.save(m, "mean1.onnx")
PY
	"$BIN/nnl-onnx-import" -o m.json mean1.onnx
	"$BIN/nnl-shape-infer" -o s.json m.json
	mkdir o
	"$BIN/nnl-run" -d o s.json > /dev/null
	/usr/bin/python3 -c '
import numpy as np
y = np.load("o/result.npy")
assert y.dtype == np.float32 and y.tolist() == [3.0, -0.5, 2.0], y'
}
