#!/usr/bin/env bats
# Filters in panels of 32 output channels from nnl-fuse -e panels (the
# node's "panels" field, the number of output channels):
# nnl-shape-infer reads the padded "ihwo" filter as the filter of that
# many outputs and refuses a field it cannot honour; nnl-emit-c refuses
# one whose product is not the transposed one the panels serve;
# nnl-emit-js has no WebNN form for it.  That the results equal NumPy
# is in tests/fuse/equiv.py (fuse.bats); the SGEMM reading the panels,
# test_gemm.

bats_require_minimum_version 1.5.0

setup() {
	export LC_ALL=C
	BIN="${NNL_BIN:-$BATS_TEST_DIRNAME/../../bin}"
	T="$BATS_TEST_TMPDIR"
}

# graph FILE FIELD SIZE: a 3 x 3 conv2d of 64 channels at stride 2 on
# SIZE x SIZE, padding 1, whose [64, 3, 3, 64] ihwo filter carries
# "panels": FIELD
graph() {
	cat > "$1" <<EOG
{"format": "webnn-graph-json", "version": 1, "name": "p",
 "inputs": {"x": {"dataType": "float32", "shape": [1, 64, $3, $3]}},
 "consts": {"w": {"dataType": "float32", "shape": [64, 3, 3, 64],
                  "init": {"kind": "scalar", "value": 0.5}}},
 "nodes": [{"id": "c", "op": "conv2d", "inputs": ["x", "w"],
            "options": {"padding": [1, 1, 1, 1], "strides": [2, 2],
                        "filterLayout": "ihwo"},
            "panels": $2}],
 "outputs": {"y": "c"}}
EOG
}

@test "shape-infer reads a filter in panels as one of that many outputs" {
	graph "$T/g.json" 40 14
	run --separate-stderr "$BIN/nnl-shape-infer" "$T/g.json"
	[ "$status" -eq 0 ]
	# 40 output channels, not the 64 of the padded filter
	[[ "$output" == *'"types": [{"dataType": "float32", "shape": [1, 40, 7, 7]}]'* ]]
}

@test "shape-infer refuses a panels field it cannot honour, naming the node" {
	graph "$T/g.json" '"40"' 14
	run --separate-stderr "$BIN/nnl-shape-infer" "$T/g.json"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *'node "c": field "panels": expected the number of output channels'* ]]
	[ -z "$output" ]
	# 70 outputs need 96 filter columns, not 64
	graph "$T/g.json" 70 14
	run --separate-stderr "$BIN/nnl-shape-infer" "$T/g.json"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *'node "c": field "panels": needs an nchw input, an "ihwo" filter of 70 output channels rounded up to 32'* ]]
}

@test "emit-c refuses panels where the product is not the transposed one" {
	# 40 x 40 outputs: the product is [O, P], which reads no panels
	graph "$T/g.json" 40 80
	run --separate-stderr sh -c "'$BIN/nnl-shape-infer' '$T/g.json' |
	    '$BIN/nnl-plan-memory' | '$BIN/nnl-emit-c' -o '$T/g.c'"
	[ "$status" -ne 0 ]
	[[ "$stderr" == *'node "c": field "panels": the C kernels read a filter in panels only for'* ]]
	[ ! -e "$T/g.c" ]
}

@test "emit-js refuses a filter in panels" {
	graph "$T/g.json" 40 14
	run --separate-stderr "$BIN/nnl-emit-js" -o "$T/g.js" "$T/g.json"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *'node "c": field "panels" (from nnl-fuse, for the C back end) has no WebNN form'* ]]
	[ ! -e "$T/g.js" ]
}
