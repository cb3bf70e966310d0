#!/usr/bin/env bats
# 3-D convolutions and pools (nnl's conv3d, convTranspose3d,
# averagePool3d, lpPool3d and maxPool3d, beyond WebNN), and Lp pools of
# any p (LpPool, GlobalLpPool): ONNX node tests built by
# tests/onnx/make_nd.py with the attributes ONNX's own leave out,
# expected outputs from PyTorch or NumPy, through the C path (nnc) and
# the JS path (CpuOps); what nnl lacks is refused with its reason
# code; and a small r3d_18 (its block structure, an eighth of its
# widths) exported by PyTorch at opset 17 matches PyTorch.

bats_require_minimum_version 1.5.0

setup_file() {
	export ND="$BATS_FILE_TMPDIR/nd" VID="$BATS_FILE_TMPDIR/video"
	/usr/bin/python3 "$BATS_TEST_DIRNAME/../onnx/make_nd.py" "$ND"
	/usr/bin/python3 "$BATS_TEST_DIRNAME/../onnx/export_video.py" "$VID" \
	    >/dev/null 2>&1
}

setup() {
	export LC_ALL=C
	ROOT="$BATS_TEST_DIRNAME/../.."
	BIN="${NNL_BIN:-$ROOT/bin}"
	cd "$BATS_TEST_TMPDIR"
}

conf() {
	run --separate-stderr /usr/bin/python3 "$ROOT/tests/onnx/conformance.py" \
	    --jobs 2 --bin "$BIN" --data "$ND" "$@"
	echo "$output"
	echo "$stderr"
}

expected() {
	for t in conv3d_pads_groups_bias conv3d_same_upper \
	    conv3d_1x1x1_stride convtranspose3d_pads_groups \
	    convtranspose3d_output_shape maxpool3d_ceil_pads_dilations \
	    maxpool3d_uint8 averagepool3d_count_include_pad_ceil \
	    averagepool3d_pads lppool3d_p3 lppool2d_p3 lppool1d_p1 \
	    globallppool2d_p3 globallppool3d_p3; do
		grep -qx "PASS test_nd_$t" <<<"$output"
	done
	grep -qx '14 passed, 0 failed, 0 skipped' <<<"$output"
}

@test "3-D convolutions and pools through the C path match PyTorch" {
	conf
	[ "$status" -eq 0 ]
	expected
}

@test "3-D convolutions and pools through nnl-emit-js and CpuOps match" {
	command -v node >/dev/null || skip "no node"
	conf --js
	[ "$status" -eq 0 ]
	expected
}

@test "a 3-D convolution imports as conv3d, a 2-D Lp pool of p 3 as lpPool3d" {
	"$BIN/nnl-onnx-import" -o c.json \
	    "$ND/test_nd_conv3d_pads_groups_bias/model.onnx"
	grep -q '"op": "conv3d"' c.json
	grep -q '"padding": \[0, 1, 1, 1, 1, 0\]' c.json
	"$BIN/nnl-onnx-import" -o l.json "$ND/test_nd_lppool2d_p3/model.onnx"
	grep -q '"op": "lpPool3d"' l.json
	grep -q '"p": 3' l.json
}

@test "a 4-D convolution, MaxPool's Indices and p 0 are refused" {
	run -1 --separate-stderr "$BIN/nnl-onnx-import" -o x.json \
	    "$ND/bad/conv4d.onnx"
	[[ "$stderr" == *'node "Conv_0" (Conv) [unsupported-rank]: 4-D Conv'* ]]
	run -1 --separate-stderr "$BIN/nnl-onnx-import" -o x.json \
	    "$ND/bad/maxpool3d_indices.onnx"
	[[ "$stderr" == *'(MaxPool) [unsupported-output]: the Indices output'* ]]
	run -1 --separate-stderr "$BIN/nnl-onnx-import" -o x.json \
	    "$ND/bad/lppool3d_p0.onnx"
	[[ "$stderr" == *'(LpPool) [unsupported-attribute]: p other than'* ]]
	[ ! -e x.json ]
}

@test "r3d_18 (small, opset 17) matches PyTorch" {
	local d="$VID/r3d-small-opset17"
	"$BIN/nnl-onnx-import" -o m.json "$d/model.onnx"
	grep -q '"op": "conv3d"' m.json
	run "$BIN/nnc" test --tolerance 1e-4 --input "$d/input.npy" \
	    --expected "$d/expected.npy" m.json
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == PASS:\ 10/10\ elements* ]]
	# the products split over two threads, a packing space each
	run "$BIN/nnc" test --threads 2 --tolerance 1e-4 \
	    --input "$d/input.npy" --expected "$d/expected.npy" m.json
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == PASS:\ 10/10\ elements* ]]
}

@test "an activation nnl-fuse puts into conv3d and convTranspose3d matches NumPy" {
	/usr/bin/python3 - "$ROOT/tests/ops" <<'PY'
import json, sys, numpy as np
sys.path.insert(0, sys.argv[1])
import refs
rng = np.random.default_rng(5)
x = rng.standard_normal((1, 4, 3, 4, 5)).astype(np.float32)
w = rng.standard_normal((4, 3, 2, 2, 2)).astype(np.float32)
f = rng.standard_normal((3, 6, 3, 3, 3)).astype(np.float32)
np.save("x.npy", x)
ct = {"strides": [2, 2, 2], "groups": 2}
cv = {"padding": [1, 1, 1, 1, 1, 1]}
t = np.maximum(refs.conv_transpose3d(x, w, ct), 0)
np.save("want.npy", np.clip(refs.conv3d(t, f, cv), -0.5, 1.5)
        .astype(np.float32))
c = lambda a: {"dataType": "float32", "shape": list(a.shape), "init": {
    "kind": "inlineBytes", "bytes": list(a.tobytes())}}
json.dump({"format": "webnn-graph-json", "version": 1,
           "inputs": {"x": {"dataType": "float32", "shape": [1, 4, 3, 4, 5]}},
           "consts": {"w": c(w), "f": c(f)},
           "nodes": [
    {"id": "t", "op": "convTranspose3d", "inputs": ["x", "w"], "options": ct},
    {"id": "r", "op": "relu", "inputs": ["t"], "options": {}},
    {"id": "c", "op": "conv3d", "inputs": ["r", "f"], "options": cv},
    {"id": "y", "op": "clamp", "inputs": ["c"],
     "options": {"minValue": -0.5, "maxValue": 1.5}}],
    "outputs": {"y": "y"}}, open("g.json", "w"))
PY
	"$BIN/nnl-shape-infer" g.json | "$BIN/nnl-fuse" > f.json
	[ "$(grep -c '"activation"' f.json)" -eq 2 ]
	run "$BIN/nnc" test --tolerance 1e-4 --input x.npy \
	    --expected want.npy g.json
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == PASS:\ 1440/1440\ elements* ]]
	"$BIN/nnl-run" -d out f.json x=x.npy
	/usr/bin/python3 -c 'import numpy as np
assert np.allclose(np.load("out/y.npy"), np.load("want.npy"), atol=1e-4)'
}
