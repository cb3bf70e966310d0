#!/usr/bin/env bats
# Small versions of torchvision's densenet121, swin_t and maxvit_t
# (their own DenseNet, SwinTransformer and MaxVit classes with fewer
# layers and channels, tests/onnx/export_vision.py): random weights,
# exported by PyTorch at opset 17, imported, compiled to C and checked
# against PyTorch's own output within 1e-4.  Each holds what once kept
# its full-size model from compiling: a Concat of 18 inputs, Dropout
# with a training_mode input, Einsum.

bats_require_minimum_version 1.5.0

setup_file() {
	export MD="$BATS_FILE_TMPDIR/models"
	/usr/bin/python3 "$BATS_TEST_DIRNAME/../onnx/export_vision.py" "$MD" \
	    > "$BATS_FILE_TMPDIR/export.log" 2>&1 ||
	    { cat "$BATS_FILE_TMPDIR/export.log" >&3; return 1; }
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
	[[ "$output" == *PASS:\ 100/100\ elements* ]]
}

@test "a small densenet121 (a Concat of 18) matches PyTorch" {
	matches_pytorch densenet
}

@test "a small swin_t (shifted windows, a training_mode Dropout) matches" {
	matches_pytorch swin
}

@test "a small maxvit_t (block and grid attention, Einsum) matches" {
	matches_pytorch maxvit
}
