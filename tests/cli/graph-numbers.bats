#!/usr/bin/env bats
# Numbers in a graph that no integer type holds (1e300, -1e300, 2^63,
# and NaN where a reader makes one) reach no cast to an integer: each
# program gives a clear error naming the field, exit 1, or writes the
# number as the graph has it; under make check-asan (UBSan with
# float-cast-overflow) any such cast is a report that fails the run.

bats_require_minimum_version 1.5.0

setup() {
	export LC_ALL=C
	# NNL_BIN: run the same tests against a sanitizer build
	BIN=${NNL_BIN:-"$BATS_TEST_DIRNAME/../../bin"}
	cd "$BATS_TEST_TMPDIR"
}

# g.json: y = relu(x) on float32 [2, 3], with extra JSON $1 in the node
# and $2 at the top level
graph() {
	cat > g.json <<J
{"format": "webnn-graph-json", "version": 1,
 "inputs": {"x": {"dataType": "float32", "shape": [2, 3]}},
 "consts": {},
 "nodes": [{"id": "y", "op": "relu", "inputs": ["x"], "options": {},
   "types": [{"dataType": "float32", "shape": [2, 3]}]$1}],
 "outputs": {"y": "y"}$2}
J
}

@test "nnl-emit-dot labels a partition 1e300 or -1e300 as the graph writes it" {
	for p in 1e300 -1e300; do
		graph ", \"placement\": {\"device\": \"webnn\", \"partition\": $p}"
		run --separate-stderr "$BIN/nnl-emit-dot" g.json
		[ "$status" -eq 0 ]
		[[ "$output" == *"label=<WebNN partition $p>;"* ]]
	done
}

@test "nnl-plan-memory refuses a config align of 1e300 or -1e300" {
	for a in 1e300 -1e300 2.5; do
		graph "" ", \"nnl\": {\"config\": {\"align\": $a}}"
		run --separate-stderr "$BIN/nnl-plan-memory" g.json
		[ "$status" -eq 1 ]
		[[ "$stderr" == *"config align"*"is not a power of two"* ]]
	done
}

@test "nnl-shape-infer refuses a conv2d's panels of 1e300" {
	cat > c.json <<'J'
{"format": "webnn-graph-json", "version": 1,
 "inputs": {"x": {"dataType": "float32", "shape": [1, 1, 4, 4]},
  "w": {"dataType": "float32", "shape": [1, 1, 1, 32]}},
 "consts": {},
 "nodes": [{"id": "y", "op": "conv2d", "inputs": ["x", "w"],
   "options": {"filterLayout": "ihwo"}, "panels": 1e300}],
 "outputs": {"y": "y"}}
J
	run --separate-stderr "$BIN/nnl-shape-infer" c.json
	[ "$status" -eq 1 ]
	[[ "$stderr" == *'field "panels": expected the number of output channels'* ]]
}

@test "a one-value int64 constant of 2^63 is refused, 2^63 - 1024 is kept" {
	# 2^63 = 9223372036854775808 is above INT64_MAX; the double below
	# it is 2^63 - 1024 = 9223372036854774784
	for v in 9223372036854775808 1e300 -1e300; do
		cat > k.json <<J
{"format": "webnn-graph-json", "version": 1, "inputs": {},
 "consts": {"c": {"dataType": "int64", "shape": [2],
   "init": {"kind": "scalar", "value": $v}}},
 "nodes": [{"id": "y", "op": "identity", "inputs": ["c"], "options": {}}],
 "outputs": {"y": "y"}}
J
		run --separate-stderr "$BIN/nnl-shape-infer" k.json
		[ "$status" -eq 1 ]
		[[ "$stderr" == *'const "c": field "init.value": '*' is not a int64 value'* ]]
	done
	sed -i 's/-1e300/9223372036854774784/' k.json
	"$BIN/nnl-shape-infer" k.json > s.json
	"$BIN/nnl-plan-memory" s.json > p.json
	"$BIN/nnl-emit-c" -m -o m.c -H model.h p.json
	cc -std=c99 -O1 ${NNL_TEST_CFLAGS:-} -o m m.c -lm
	./m < /dev/null > y.bin
	/usr/bin/python3 -c '
import struct
y = struct.unpack("<2q", open("y.bin", "rb").read())
assert y == (9223372036854774784,) * 2, y'
}

@test "nnc inspect refuses an nnl layer shape or params of 1e300" {
	for l in '"shape": [1e300], "params": 1' \
	    '"shape": [4], "params": -1e300'; do
		graph "" ", \"nnl\": {\"version\": \"1\", \"layers\": [{\"id\": \"d\", \"type\": \"Dense\", $l}]}"
		run --separate-stderr "$BIN/nnc" inspect g.json
		[ "$status" -eq 1 ]
		[[ "$stderr" == *'"nnl": the '*' of layer "d": expected a whole number from 0 to 2^53'* ]]
	done
}
