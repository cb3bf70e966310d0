#!/usr/bin/env bats
# nnl-emit-c and nnl-run check the memory plan a graph carries: a
# real plan (the inception module through nnl-plan-memory) is accepted;
# each hand edit that would make the generated code write outside the
# arena or over a live buffer is refused with a message naming the node
# and operand, and nothing is written.

bats_require_minimum_version 1.5.0

setup() {
	export LC_ALL=C
	BIN="${NNL_BIN:-$BATS_TEST_DIRNAME/../../bin}"
	EX="$BATS_TEST_DIRNAME/../../examples/inception_module"
	T="$BATS_TEST_TMPDIR"
	"$BIN/nnl-parse" -w "$T/i.weights" -m "$T/i.manifest.json" \
	    "$EX/inception_module.nnl" | "$BIN/nnl-reorder" |
	    "$BIN/nnl-shape-infer" | "$BIN/nnl-plan-memory" > "$T/p.json"
}

# edit 'python statements' over g (the graph) and N (nodes by id)
edit() {
	/usr/bin/python3 -c 'import json, sys
g = json.load(open(sys.argv[1]))
N = {n["id"]: n for n in g["nodes"]}
exec(sys.argv[2])
json.dump(g, open(sys.argv[3], "w"))' "$T/p.json" "$1" "$T/bad.json"
}

# emit-c refuses bad.json with the message $1 and writes nothing
refused() {
	run --separate-stderr "$BIN/nnl-emit-c" -o "$T/m.c" "$T/bad.json"
	echo "$stderr"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"$1"* ]]
	[ ! -e "$T/m.c" ] && [ ! -e "$T/m.h" ]
}

@test "the plan nnl-plan-memory wrote is accepted by emit-c and run" {
	# the layout this test edits below: conv outputs side by side at
	# the top of the arena, concat at 0, relu over bn in place
	/usr/bin/python3 -c 'import json, sys
g = json.load(open(sys.argv[1]))
a = {n["id"]: n["arena"][0] for n in g["nodes"]}
assert a == {"conv1x1": 6807552, "conv3x3": 6938624, "conv5x5": 7069696,
             "concat": 0, "bn": 393216, "relu": 393216}, a
assert g["memory"]["arenaBytes"] == 7200768' "$T/p.json"
	run "$BIN/nnl-emit-c" -o "$T/m.c" "$T/p.json"
	[ "$status" -eq 0 ]
	[ -s "$T/m.c" ] && [ -s "$T/m.h" ]
	run "$BIN/nnl-run" -d "$T" "$T/p.json" input="$EX/test_input.npy"
	[ "$status" -eq 0 ]
}

@test "a negative offset is refused" {
	edit 'N["conv1x1"]["arena"][0] = -64'
	refused 'node "conv1x1": the arena offset of output "conv1x1" is -64, not an integer from 0 to 2^53'
}

@test "an offset at or beyond arenaBytes is refused" {
	edit 'N["relu"]["arena"][0] = 7200768'
	refused 'node "relu": output "relu", 393216 bytes at arena offset 7200768, ends beyond arenaBytes 7200768'
	edit 'N["conv5x5"]["arena"][0] = 7069696 + 64'
	refused 'node "conv5x5": output "conv5x5", 131072 bytes at arena offset 7069760, ends beyond arenaBytes 7200768'
}

@test "an arena smaller than the plan is refused" {
	edit 'g["memory"]["arenaBytes"] = 7200768 - 64'
	refused 'node "conv5x5": output "conv5x5", 131072 bytes at arena offset 7069696, ends beyond arenaBytes 7200704'
}

@test "a misaligned offset and a bad alignment are refused" {
	edit 'N["concat"]["arena"][0] = 32'
	refused 'node "concat": the arena offset 32 of output "concat" is not a multiple of the plan'"'"'s align 64'
	edit 'g["memory"]["align"] = 48'
	refused 'memory plan: align is 48, not a power of two up to 2^30'
}

@test "offsets that wrap 2^64 are refused" {
	# 2^64 - 64: as a 64-bit address offset, 64 bytes before the arena
	edit 'N["relu"]["arena"][0] = 18446744073709551552'
	refused 'node "relu": the arena offset of output "relu" is 1.8446744073709552e+19, not an integer from 0 to 2^53'
	# offset + size wraps 2^64: 2^53 - 64 + 4 * 4095 * 2^50
	edit 'g["memory"]["arenaBytes"] = 2**53
N["relu"]["arena"][0] = 2**53 - 64
N["relu"]["types"][0]["shape"] = [4095, 2**26, 2**24]'
	# (the graph's load refuses the type first: no size can wrap)
	refused 'output "relu": float32[4095, 67108864, 16777216] is 18442240474082181120 bytes, above the limit'
	edit 'g["memory"]["arenaBytes"] = 2**64'
	refused 'memory plan: arenaBytes is 1.8446744073709552e+19, not an integer from 0 to 2^53'
}

@test "non-integer offsets are refused" {
	edit 'N["bn"]["arena"][0] = 64.5'
	refused 'node "bn": the arena offset of output "bn" is 64.5, not an integer from 0 to 2^53'
	edit 'N["bn"]["arena"][0] = "64"'
	refused 'node "bn": the arena offset of output "bn" is "64", not an integer'
	edit 'N["conv1x1"]["scratch"] = 0.5'
	refused 'node "conv1x1": the arena offset of its workspace is 0.5, not an integer'
}

@test "missing annotations are refused" {
	edit 'del N["relu"]["arena"]'
	refused 'node "relu" has no arena offsets: run nnl-plan-memory first'
	edit 'N["relu"]["arena"] = []'
	refused 'node "relu" has no arena offsets: run nnl-plan-memory first'
	edit 'del g["memory"]'
	refused 'the graph has no memory plan: run nnl-plan-memory first'
	edit 'del g["memory"]["arenaBytes"]'
	refused 'memory plan: arenaBytes is nothing, not an integer'
	edit 'del N["conv3x3"]["scratch"]'
	refused 'node "conv3x3" needs'
	refused 'bytes of workspace the plan does not give'
}

@test "two live buffers sharing bytes are refused, naming both" {
	edit 'N["conv3x3"]["arena"][0] = 6807552'
	refused 'memory plan: "conv3x3" (arena bytes 6807552 to 6938624, live from node "conv3x3" to node "concat") overlaps "conv1x1" (arena bytes 6807552 to 6938624, live from node "conv1x1" to node "concat")'
	# a partial overlap
	edit 'N["conv5x5"]["arena"][0] = 6938624 + 64'
	refused 'memory plan: "conv5x5" (arena bytes 6938688 to 7069760, live from node "conv5x5" to node "concat") overlaps "conv3x3"'
	# a dead buffer's bytes are free: relu over concat, which bn read
	edit 'N["relu"]["arena"][0] = 0'
	run "$BIN/nnl-emit-c" -o "$T/m.c" "$T/bad.json"
	[ "$status" -eq 0 ]
}

@test "a workspace over a live buffer is refused" {
	# 2613248 bytes of workspace over conv1x1's output, read later
	edit 'N["conv3x3"]["scratch"] = 7200768 - 2613248'
	refused 'memory plan: the workspace of node "conv3x3" (arena bytes 4587520 to 7200768) overlaps "conv1x1" (arena bytes 6807552 to 6938624'
}

@test "only elementwise ops and aliases may write over their input" {
	# batchNormalization over its input concat: not elementwise
	edit 'N["bn"]["arena"][0] = 0'
	refused 'memory plan: "bn" (arena bytes 0 to 393216, live from node "bn" to node "relu") overlaps "concat" (arena bytes 0 to 393216, live from node "concat" to node "bn")'
}

@test "an elementwise op may not write over an input read later" {
	cat > "$T/g.json" <<'JSON'
{"format": "webnn-graph-json", "version": 1,
 "inputs": {"x": {"dataType": "float32", "shape": [1000]}},
 "nodes": [{"id": "a", "op": "relu", "inputs": ["x"], "options": {}},
           {"id": "b", "op": "sigmoid", "inputs": ["a"], "options": {}},
           {"id": "c", "op": "add", "inputs": ["a", "b"], "options": {}}],
 "outputs": {"c": "c"}}
JSON
	"$BIN/nnl-shape-infer" "$T/g.json" | "$BIN/nnl-plan-memory" > "$T/p.json"
	# the planner's own layout: c over a (or b), a and b apart
	run "$BIN/nnl-emit-c" -o "$T/ok.c" "$T/p.json"
	[ "$status" -eq 0 ]
	edit 'N["b"]["arena"][0] = N["a"]["arena"][0]'
	refused 'memory plan: "b" (arena bytes 0 to 4000, live from node "b" to node "c") overlaps "a" (arena bytes 0 to 4000, live from node "a" to the end, reused in place by "c")'
	# c over either of its dying inputs is fine, elsewhere too
	edit 'N["c"]["arena"][0] = N["b"]["arena"][0]'
	run "$BIN/nnl-emit-c" -o "$T/ok2.c" "$T/bad.json"
	[ "$status" -eq 0 ]
	edit 'N["c"]["arena"][0] = 8192; g["memory"]["arenaBytes"] = 12288'
	run "$BIN/nnl-emit-c" -o "$T/ok3.c" "$T/bad.json"
	[ "$status" -eq 0 ]
	# c 64 bytes past a: in place but not element for element
	edit 'N["c"]["arena"][0] = N["a"]["arena"][0] + 64
g["memory"]["arenaBytes"] = 8192'
	refused 'memory plan: "c" (arena bytes'
}

@test "nnl-run refuses the plan emit-c refuses" {
	edit 'N["conv3x3"]["arena"][0] = 6807552'
	mkdir "$T/out"
	run --separate-stderr "$BIN/nnl-run" -d "$T/out" "$T/bad.json" \
	    input="$EX/test_input.npy"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *'nnl-run: error: memory plan: "conv3x3"'*'overlaps "conv1x1"'* ]]
	[ -z "$(ls -A "$T/out")" ]
}
