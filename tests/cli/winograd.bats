#!/usr/bin/env bats
# Winograd's F(2x2, 3x3) filters from nnl-fuse -e winograd (the node's
# "winograd" field): nnl-shape-infer reads them as the 3 x 3 filters
# they stand for and refuses a field it cannot honour; nnl-emit-js,
# which has no WebNN form for them (nor for fused activations), says
# so.  That the results equal NumPy's direct convolution is in
# tests/fuse/equiv.py (fuse.bats); the kernel alone, test_wino.

bats_require_minimum_version 1.5.0

setup() {
	export LC_ALL=C
	BIN="${NNL_BIN:-$BATS_TEST_DIRNAME/../../bin}"
	T="$BATS_TEST_TMPDIR"
}

# graph FILE FIELD STRIDES: a conv2d of 64 channels at 16 x 16, padding
# 1, whose [4, 4, 64, 64] hwio filter carries "winograd": FIELD
graph() {
	cat > "$1" <<EOG
{"format": "webnn-graph-json", "version": 1, "name": "w",
 "inputs": {"x": {"dataType": "float32", "shape": [1, 64, 16, 16]}},
 "consts": {"u": {"dataType": "float32", "shape": [4, 4, 64, 64],
                  "init": {"kind": "scalar", "value": 0.5}}},
 "nodes": [{"id": "c", "op": "conv2d", "inputs": ["x", "u"],
            "options": {"padding": [1, 1, 1, 1], "strides": $3,
                        "filterLayout": "hwio"},
            "winograd": $2}],
 "outputs": {"y": "c"}}
EOG
}

@test "shape-infer reads a Winograd filter as the 3 x 3 one it stands for" {
	graph "$T/g.json" '"2x2"' '[1, 1]'
	run --separate-stderr "$BIN/nnl-shape-infer" "$T/g.json"
	[ "$status" -eq 0 ]
	# a 3 x 3 filter, padding 1: 16 x 16 (a 4 x 4 one would give 15)
	[[ "$output" == *'"types": [{"dataType": "float32", "shape": [1, 64, 16, 16]}]'* ]]
}

@test "shape-infer refuses a Winograd field it cannot honour, naming the node" {
	graph "$T/g.json" '"4x4"' '[1, 1]'
	run --separate-stderr "$BIN/nnl-shape-infer" "$T/g.json"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *'node "c": field "winograd": expected "2x2"'* ]]
	graph "$T/g.json" '"2x2"' '[2, 2]'
	run --separate-stderr "$BIN/nnl-shape-infer" "$T/g.json"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *'node "c": field "winograd": needs'*'strides and dilations 1'* ]]
	[ -z "$output" ]
}

@test "emit-js refuses what nnl-fuse leaves for the C kernels" {
	graph "$T/g.json" '"2x2"' '[1, 1]'
	run --separate-stderr "$BIN/nnl-emit-js" -o "$T/g.js" "$T/g.json"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *'node "c": field "winograd" (from nnl-fuse, for the C back end) has no WebNN form'* ]]
	[ ! -e "$T/g.js" ]
	run --separate-stderr "$BIN/nnl-emit-js" \
	    "$BATS_TEST_DIRNAME/../golden/fuse/fuse-relu-into-conv.out.json"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *'field "activation"'* ]]
}
