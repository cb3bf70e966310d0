#!/usr/bin/env bats
# nnl-fuse: each rewrite and its negative twin (goldens), the same
# function before and after, weights written to a new file.

bats_require_minimum_version 1.5.0

setup() {
	export LC_ALL=C
	BIN="${NNL_BIN:-$BATS_TEST_DIRNAME/../../bin}"
	G="$BATS_TEST_DIRNAME/../golden/fuse"
	T="$BATS_TEST_TMPDIR"
}

ops() {
	/usr/bin/python3 -c 'import json, sys
g = json.load(open(sys.argv[1]))
print(" ".join(n["op"] + ("+res(%s)" % n["residual"] if "residual" in n
                          else "") +
               ("+" + n["activation"]["op"] if "activation" in n else "")
               for n in g["nodes"]))' "$1"
}

@test "each rewrite gives the expected nodes; each negative twin is kept" {
	[ "$(ops "$G/fold-bn-into-conv.out.json")" = "conv2d" ]
	[ "$(ops "$G/fold-bn-into-conv-shared-negative.out.json")" = "conv2d batchNormalization" ]
	[ "$(ops "$G/merge-bias-into-conv.out.json")" = "conv2d" ]
	[ "$(ops "$G/merge-bias-into-conv-negative.out.json")" = "conv2d add" ]
	[ "$(ops "$G/fuse-relu-into-conv.out.json")" = "conv2d+relu" ]
	[ "$(ops "$G/fuse-relu-into-conv-negative.out.json")" = "conv2d relu sigmoid" ]
	[ "$(ops "$G/fuse-residual-into-conv.out.json")" = "conv2d conv2d+res(d)+relu" ]
	[ "$(ops "$G/fuse-residual-into-conv-negative.out.json")" = "conv2d+relu add conv2d add conv2d add" ]
	[ "$(ops "$G/fuse-clamp-into-gemm.out.json")" = "gemm+clamp" ]
	[ "$(ops "$G/matmul-add-to-gemm.out.json")" = "gemm" ]
	[ "$(ops "$G/merge-bias-into-matmul.out.json")" = "matmul" ]
	[ "$(ops "$G/merge-bias-into-matmul-negative.out.json")" = "matmul add" ]
	[ "$(ops "$G/fold-transpose-into-matmul.out.json")" = "matmul matmul matmul matmul" ]
	[ "$(ops "$G/fold-transpose-into-matmul-negative.out.json")" = "transpose matmul transpose matmul relu" ]
	[ "$(ops "$G/drop-identity.out.json")" = "relu" ]
	[ "$(ops "$G/drop-identity-negative.out.json")" = "identity" ]
	[ "$(ops "$G/fold-constants.out.json")" = "mul" ]
	[ "$(ops "$G/fold-constants-negative.out.json")" = "add" ]
}

@test "fused graphs compute the unfused function (nnl-run, NumPy, C)" {
	run /usr/bin/python3 "$BATS_TEST_DIRNAME/../fuse/equiv.py"
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "-v reports every rewrite" {
	run --separate-stderr "$BIN/nnl-fuse" -v "$G/fold-bn-into-conv.in.json"
	[ "$status" -eq 0 ]
	[[ "$stderr" == *'folding batchNormalization "bn" into conv2d "c"'* ]]
	run --separate-stderr "$BIN/nnl-fuse" -v -d bn "$G/fold-bn-into-conv.in.json"
	[[ "$stderr" != *folding* ]]
}

@test "an untyped graph is refused with advice" {
	run --separate-stderr "$BIN/nnl-fuse" \
	    "$BATS_TEST_DIRNAME/../../examples/resnet_head/resnet_head.webnn"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"run nnl-shape-infer before nnl-fuse"* ]]
}
