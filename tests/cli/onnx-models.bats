#!/usr/bin/env bats
# Real models: torchvision's resnet18, mobilenet_v2 and squeezenet1_1,
# exported by PyTorch at opsets 13 and 17, imported, compiled to C and
# checked against PyTorch's own output within 1e-4; resnet18 also
# imported to .nnl.

bats_require_minimum_version 1.5.0

setup_file() {
	export MD="$BATS_FILE_TMPDIR/models"
	/usr/bin/python3 "$BATS_TEST_DIRNAME/../onnx/export_models.py" "$MD" \
	    >/dev/null 2>&1
}

setup() {
	export LC_ALL=C
	BIN="${NNL_BIN:-$BATS_TEST_DIRNAME/../../bin}"
	cd "$BATS_TEST_TMPDIR"
}

matches_pytorch() {
	local d="$MD/$1"
	"$BIN/nnl-onnx-import" -o m.json "$d/model.onnx"
	run "$BIN/nnc" test --tolerance 1e-4 --input "$d/input.npy" \
	    --expected "$d/expected.npy" m.json
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == PASS:\ 1000/1000\ elements* ]]
}

@test "resnet18 (opset 13) matches PyTorch" { matches_pytorch resnet18-opset13; }
@test "resnet18 (opset 17) matches PyTorch" { matches_pytorch resnet18-opset17; }
@test "mobilenet_v2 (opset 13) matches PyTorch" { matches_pytorch mobilenet_v2-opset13; }
@test "mobilenet_v2 (opset 17) matches PyTorch" { matches_pytorch mobilenet_v2-opset17; }
@test "squeezenet1_1 (opset 13) matches PyTorch" { matches_pytorch squeezenet1_1-opset13; }
@test "squeezenet1_1 (opset 17) matches PyTorch" { matches_pytorch squeezenet1_1-opset17; }

@test "resnet18 imports to .nnl, its head as GlobalAvgPool2D, and matches" {
	local d="$MD/resnet18-opset13"
	run --separate-stderr "$BIN/nnc" import -o r.nnl --weights-dir w \
	    "$d/model.onnx"
	echo "$stderr"
	[ "$status" -eq 0 ]
	grep -q '= GlobalAvgPool2D();' r.nnl
	/usr/bin/python3 -c 'import sys, numpy as np
x = np.load(sys.argv[1])[0].transpose(1, 2, 0)
np.save("hwc.npy", np.ascontiguousarray(x))' "$d/input.npy"
	run "$BIN/nnc" test --tolerance 1e-4 --input hwc.npy \
	    --expected "$d/expected.npy" r.nnl
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == PASS:\ 1000/1000\ elements* ]]
}
