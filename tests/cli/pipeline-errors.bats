#!/usr/bin/env bats
# A stage that fails inside a pipeline is the one that speaks: the
# stages after it say once that they had no input, and nnc names only
# the failing stage.

bats_require_minimum_version 1.5.0

setup() {
	export LC_ALL=C
	ROOT="$BATS_TEST_DIRNAME/../.."
	BIN="${NNL_BIN:-$ROOT/bin}"
	T="$BATS_TEST_TMPDIR"
	cd "$T"
	printf 'webnn_graph "g" v1 {\n  inputs { x: f32[1, 2]; }\n  nodes { y = relu(z); }\n  outputs { y; }\n}\n' > bad.webnn
	printf 'webnn_graph "g" v1 {\n  inputs { x: f32[1, 2]; }\n  nodes { y = relu(x); }\n  outputs { y; }\n}\n' > good.webnn
}

@test "a shell pipeline: the parse error, then one line for the rest" {
	run --separate-stderr bash -c "'$BIN/nnl-parse' bad.webnn | '$BIN/nnl-shape-infer' |
	    '$BIN/nnl-fuse' | '$BIN/nnl-plan-memory' | '$BIN/nnl-emit-c' -o out.c"
	echo "$stderr"
	[ "$status" -ne 0 ]
	[[ "$stderr" == *'nnl-parse: bad.webnn:3:11: error: node "y": field "inputs": undefined operand "z"'* ]]
	[ "$(printf '%s\n' "$stderr" | grep -c 'error:')" -eq 1 ]
	[ "$(printf '%s\n' "$stderr" | grep -c 'no input')" -eq 1 ]
	printf '%s\n' "$stderr" | grep -qx 'nnl-shape-infer: no input (an earlier stage failed)'
	[ ! -e out.c ]
}

@test "every stage after the failure fails, each exit status 1" {
	run bash -c "'$BIN/nnl-parse' bad.webnn | '$BIN/nnl-shape-infer' |
	    '$BIN/nnl-fuse' > out.json; echo \"\${PIPESTATUS[*]}\""
	[[ "${lines[-1]}" == "1 1 1" ]]
}

@test "a good pipeline is unchanged" {
	"$BIN/nnl-parse" good.webnn | "$BIN/nnl-shape-infer" | "$BIN/nnl-fuse" > out.json
	grep -q '"op": "relu"' out.json
}

@test "an empty file or /dev/null is still bad input, not a failed stage" {
	: > empty.json
	run --separate-stderr "$BIN/nnl-shape-infer" empty.json
	[ "$status" -eq 1 ]
	[[ "$stderr" == "nnl-shape-infer: empty.json: error: empty input" ]]
	run --separate-stderr "$BIN/nnl-shape-infer" < /dev/null
	[ "$status" -eq 1 ]
	[[ "$stderr" == "nnl-shape-infer: <stdin>: error: empty input" ]]
}

@test "nnc names only the failing stage" {
	run --separate-stderr "$BIN/nnc" compile -o m bad.webnn
	echo "$stderr"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *'nnl-parse: '*'bad.webnn:3:11: error: node "y"'* ]]
	[ "$(printf '%s\n' "$stderr" | grep -c '^nnl-parse')" -eq 1 ]
	[[ "$stderr" != *nnl-reorder* ]]
	[[ "$stderr" != *nnl-shape-infer* ]]
	[[ "$stderr" != *nnl-fuse* ]]
	[[ "$stderr" != *nnl-plan-memory* ]]
	[[ "$stderr" != *"no input"* ]]
	[ ! -e m ]
}
