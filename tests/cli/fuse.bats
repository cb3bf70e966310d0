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
	[ "$(ops "$G/fuse-layernorm-pow.out.json")" = "layerNormalization" ]
	[ "$(ops "$G/fuse-layernorm-reciprocal.out.json")" = \
	    "layerNormalization" ]
	[ "$(ops "$G/fuse-layernorm-channels.out.json")" = \
	    "layerNormalization" ]
	[ "$(ops "$G/fuse-swish-into-conv.out.json")" = "conv2d+swish" ]
	[ "$(ops "$G/fuse-hardsigmoid-into-conv.out.json")" = "conv2d+hardSigmoid" ]
	[ "$(ops "$G/fuse-gelu-into-matmul.out.json")" = "matmul+gelu" ]
	[ "$(ops "$G/fuse-tanh-into-gemm.out.json")" = "gemm+tanh" ]
}

@test "a layer norm read in part elsewhere or with a variable eps is kept" {
	# the centred x also read by a relu; eps a graph input; the
	# means over different axes; an exponent of 4
	for c in shared eps axes pow4; do
		run --separate-stderr "$BIN/nnl-fuse" -v \
		    "$G/fuse-layernorm-$c-negative.in.json"
		[ "$status" -eq 0 ]
		[[ "$stderr" != *layerNormalization* ]]
		[[ "$output" != *layerNormalization* ]]
		[[ "$output" == *'"op": "reduceMean"'* ]]
		[[ "$output" == *'"op": "sqrt"'* ]]
	done
	run --separate-stderr "$BIN/nnl-fuse" -v "$G/fuse-layernorm-pow.in.json"
	[[ "$stderr" == *'making layerNormalization "y" of 9 nodes'* ]]
	run --separate-stderr "$BIN/nnl-fuse" -d norm \
	    "$G/fuse-layernorm-pow.in.json"
	[[ "$output" != *layerNormalization* ]]
}

@test "a chain whose intermediate has another reader is not fused" {
	# swish: the sigmoid's result is also an output; the conv2d's is
	# read by a relu too; the sigmoid is of another operand
	[ "$(ops "$G/fuse-swish-into-conv-negative.out.json")" = "conv2d sigmoid mul conv2d sigmoid mul relu conv2d sigmoid mul" ]
	# gelu: the erf's result is also an output; a factor of 1/3
	[ "$(ops "$G/fuse-gelu-into-matmul-negative.out.json")" = "matmul div erf add mul mul matmul div erf add mul mul" ]
	# the same from nnl-fuse itself, not the stored output
	run --separate-stderr "$BIN/nnl-fuse" -v \
	    "$G/fuse-swish-into-conv-negative.in.json"
	[ "$status" -eq 0 ]
	[[ "$stderr" != *swish* ]]
	run --separate-stderr "$BIN/nnl-fuse" -v \
	    "$G/fuse-gelu-into-matmul-negative.in.json"
	[ "$status" -eq 0 ]
	[[ "$stderr" != *gelu* ]]
	# and -d gelu leaves the pattern as it is
	run --separate-stderr "$BIN/nnl-fuse" -v -d gelu \
	    "$G/fuse-gelu-into-matmul.in.json"
	[ "$status" -eq 0 ]
	[[ "$stderr" != *gelu* ]]
	[ "$(echo "$output" | grep -c '"op": "erf"')" -eq 1 ]
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
