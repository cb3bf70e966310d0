#!/usr/bin/env bats
# ONNX control flow (If, Loop, Scan), inlined by nnl-onnx-import:
# models built with onnx.helper by tests/onnx/make_ctl.py, each with
# the outputs NumPy computes, run through the C path (nnc), the JS path
# (nnl-emit-js) and the host (nnl-run); what needs real branches or
# loops is refused with its reason code.

bats_require_minimum_version 1.5.0

NODE=/usr/share/libonnx-testdata/data/node

setup() {
	export LC_ALL=C
	ROOT="$BATS_TEST_DIRNAME/../.."
	BIN="${NNL_BIN:-$ROOT/bin}"
	T="$BATS_TEST_TMPDIR"
	cd "$T"
	/usr/bin/python3 "$ROOT/tests/onnx/make_ctl.py" ctl
}

conf() {
	run --separate-stderr /usr/bin/python3 "$ROOT/tests/onnx/conformance.py" \
	    --jobs 1 --bin "$BIN" "$@"
	echo "$output"
	echo "$stderr"
}

# the lines every run of the ctl set must print
expected() {
	for t in if_const if_where loop_const loop_until loop_if \
	    scan_axes; do
		grep -qx "PASS test_ctl_$t" <<<"$output"
	done
	# its condition given as a constant, the branch it picks
	grep -qx 'PASS test_ctl_if_shapes: with --const c' <<<"$output"
	# refused, then compiled with its trip count given as a constant
	grep -qx 'PASS test_ctl_loop_runtime: with --const M' <<<"$output"
	grep -qx '8 passed, 0 failed, 0 skipped' <<<"$output"
}

@test "If, Loop and Scan through the C path match NumPy" {
	conf --data ctl
	[ "$status" -eq 0 ]
	expected
}

@test "If, Loop and Scan through nnl-emit-js match NumPy" {
	command -v node >/dev/null || skip "no node"
	conf --js --data ctl
	[ "$status" -eq 0 ]
	expected
}

@test "a loop whose trip count is given with --const runs on the host" {
	d=ctl/test_ctl_loop_runtime
	/usr/bin/python3 - "$d" <<'PY'
import sys, numpy as np, onnx
from onnx import numpy_helper as nh
d = sys.argv[1] + "/test_data_set_0/"
t = lambda f: nh.to_array(onnx.load_tensor(d + f))
np.save("M.npy", t("input_0.pb"))
np.save("x.npy", t("input_1.pb"))
np.save("y0.npy", t("input_2.pb"))
np.save("want_y.npy", t("output_0.pb"))
np.save("want_ys.npy", t("output_1.pb"))
PY
	run -1 "$BIN/nnl-onnx-import" -o g.json "$d/model.onnx"
	[[ "$output" == *'node "Loop_0" (Loop) [not-constant]: the trip '\
'count is computed at run time'*'(its value at import time: --const '\
'M=FILE.npy)'* ]]
	"$BIN/nnl-onnx-import" --const M=M.npy -o g.json "$d/model.onnx"
	run "$BIN/nnl-run" -d out g.json x=x.npy y0=y0.npy
	echo "$output"
	[ "$status" -eq 0 ]
	/usr/bin/python3 - <<'PY'
import numpy as np
for n in ("y", "ys"):
    got, want = np.load("out/%s.npy" % n), np.load("want_%s.npy" % n)
    assert got.shape == want.shape, (n, got.shape, want.shape)
    assert np.allclose(got, want, rtol=1e-5, atol=1e-6), n
PY
}

@test "ONNX's node tests of If and Scan pass; sequences stay refused" {
	[ -d "$NODE/test_if" ] || skip "no libonnx-testdata"
	mkdir data
	for t in test_if test_if_seq test_scan_sum test_scan9_sum; do
		cp -r "$NODE/$t" data/
	done
	conf --data data
	[ "$status" -eq 0 ]
	grep -qx 'PASS test_if' <<<"$output"
	grep -qx 'PASS test_scan_sum' <<<"$output"
	grep -qx 'PASS test_scan9_sum' <<<"$output"
	grep -q '^UNSUPPORTED test_if_seq \[sequence\]' <<<"$output"
}

@test "If's branches of different shapes, its condition not constant: refused" {
	run -1 "$BIN/nnl-onnx-import" -o g.json ctl/test_ctl_if_shapes/model.onnx
	echo "$output"
	[[ "$output" == *'node "If_0" (If) [dynamic-shape]: its branches '\
'give output 0 different types or shapes'*'--const c=FILE.npy'* ]]
	[ ! -e g.json ]
}

@test "bodies nested past 32 deep are refused, not recursed into" {
	/usr/bin/python3 - <<'PY'
import onnx
from onnx import TensorProto as TP, helper as h, numpy_helper as nh
import numpy as np
g = h.make_graph([h.make_node("Neg", ["x"], ["o0"])], "b0", [],
                 [h.make_tensor_value_info("o0", TP.FLOAT, [1])])
for k in range(1, 40):
    e = h.make_graph([h.make_node("Neg", ["x"], ["e%d" % k])], "e", [],
                     [h.make_tensor_value_info("e%d" % k, TP.FLOAT, [1])])
    g = h.make_graph([h.make_node("If", ["c"], ["o%d" % k], then_branch=g,
                                  else_branch=e)], "b%d" % k, [],
                     [h.make_tensor_value_info("o%d" % k, TP.FLOAT, [1])])
top = h.make_graph(g.node, "deep",
                   [h.make_tensor_value_info("x", TP.FLOAT, [1])],
                   list(g.output), [nh.from_array(np.array(True), "c")])
onnx.save(h.make_model(top, opset_imports=[h.make_opsetid("", 16)]),
          "deep.onnx")
PY
	run -1 "$BIN/nnl-onnx-import" -o g.json deep.onnx
	echo "$output"
	[[ "$output" == *'[too-large]: bodies nested more than 32 deep'* ]]
	[ ! -e g.json ]
}

@test "a loop past 256 iterations, a negative trip count, an undefined name" {
	run -1 "$BIN/nnl-onnx-import" -o g.json ctl/bad/loop_big.onnx
	echo "$output"
	[[ "$output" == *'node "Loop_0" (Loop) [too-large]: 100000 '\
'iterations; nnl unrolls at most 256'* ]]
	run -1 "$BIN/nnl-onnx-import" -o g.json ctl/bad/loop_neg.onnx
	echo "$output"
	[[ "$output" == *'node "Loop_0" (Loop): its trip count is not one '\
'non-negative number'* ]]
	run -1 "$BIN/nnl-onnx-import" -o g.json ctl/bad/if_undef.onnx
	echo "$output"
	[[ "$output" == *'node "the_if/Neg_0" (Neg): input "nowhere" is not '\
'defined before it'* ]]
	[ ! -e g.json ]
}
