#!/usr/bin/env bats
# Progress lines: nnl-onnx-import, nnc compile and the conformance loop
# draw one on a terminal (script(1) gives them one), and write nothing
# extra when standard error is not a terminal or NNL_PROGRESS=0.

bats_require_minimum_version 1.5.0

setup() {
	export LC_ALL=C
	ROOT="$BATS_TEST_DIRNAME/../.."
	BIN="${NNL_BIN:-$ROOT/bin}"
	T="$BATS_TEST_TMPDIR"
	cd "$T"
}

# chain.onnx: N Adds of 32-float constants (each in the weights file)
chain() {
	/usr/bin/python3 - "$1" <<'PY'
import sys, numpy as np, onnx
from onnx import helper, numpy_helper, TensorProto
n = int(sys.argv[1])
r = np.random.default_rng(1)
nodes, inits, prev = [], [], "x"
for i in range(n):
    inits.append(numpy_helper.from_array(
        r.standard_normal(32).astype(np.float32), "c%d" % i))
    nodes.append(helper.make_node("Add", [prev, "c%d" % i], ["t%d" % i]))
    prev = "t%d" % i
nodes.append(helper.make_node("Relu", [prev], ["y"]))
g = helper.make_graph(nodes, "chain",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 32])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 32])], inits)
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]),
          "chain.onnx")
PY
}

# tty CMD: run CMD with a terminal for its output; the bytes in tty.out
tty() {
	script -qec "$1" /dev/null < /dev/null > tty.out
}

@test "nnl-onnx-import: a progress line on a terminal, erased at the end" {
	chain 400
	tty "'$BIN/nnl-onnx-import' -w t.weights -m t.manifest.json -o t.json chain.onnx"
	grep -q 'nnl-onnx-import: initializers 0/400 (0%)' tty.out
	grep -q 'nnl-onnx-import: nodes 0/401 (0%)' tty.out
	grep -q 'nnl-onnx-import: weights 0/400 (0%)' tty.out
	grep -q 'nnl-onnx-import: writing the graph\.\.\.' tty.out
	# the last bytes erase the line
	[ "$(tail -c 4 tty.out | od -An -c | tr -d ' ')" = '\r033[K' ]
}

@test "nnl-onnx-import: nothing extra without a terminal, the same files" {
	chain 400
	tty "'$BIN/nnl-onnx-import' -w t.weights -m t.manifest.json -o t.json chain.onnx"
	mkdir p
	run --separate-stderr "$BIN/nnl-onnx-import" -w p/t.weights \
	    -m p/t.manifest.json -o p/t.json chain.onnx
	[ "$status" -eq 0 ]
	[ -z "$stderr" ] && [ -z "$output" ]
	cmp t.json p/t.json && cmp t.weights p/t.weights
	NNL_PROGRESS=0 tty "'$BIN/nnl-onnx-import' -o q.json chain.onnx"
	[ ! -s tty.out ]
}

@test "nnl-onnx-import: an error on a terminal starts on a clean line" {
	printf 'not a model' > bad.onnx
	run tty "'$BIN/nnl-onnx-import' -o t.json bad.onnx"
	[ "$status" -ne 0 ]
	# the erase comes right before the message
	grep -q "$(printf '\r\033\\[Knnl-onnx-import: error: bad.onnx: not an ONNX')" tty.out
	[ ! -e t.json ]
}

@test "nnc compile: its three stages on a terminal, nothing without one" {
	tty "'$BIN/nnc' compile -o m '$ROOT/examples/mnist/mnist.nnl'"
	grep -q 'nnc: compile 1/3: front end and passes' tty.out
	grep -q 'nnc: compile 2/3: nnl-emit-c' tty.out
	grep -q 'nnc: compile 3/3: the C compiler' tty.out
	[ -x m ]
	run --separate-stderr "$BIN/nnc" compile -o m2 "$ROOT/examples/mnist/mnist.nnl"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ] && [ -z "$output" ]
	[ -x m2 ]
}

@test "the conformance loop: a progress line on a terminal only" {
	[ -d /usr/share/libonnx-testdata/data/node/test_abs ]
	tty "/usr/bin/python3 '$ROOT/tests/onnx/conformance.py' --only test_abs --jobs 1"
	grep -q 'conformance: 1/1 (100%), 1 passed' tty.out
	grep -q '^PASS test_abs' <(tr '\r' '\n' < tty.out | sed 's/^\x1b\[K//')
	run --separate-stderr /usr/bin/python3 "$ROOT/tests/onnx/conformance.py" \
	    --only test_abs --jobs 1
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[ "${lines[0]}" = "PASS test_abs" ]
}
