#!/usr/bin/env bats
# nnl-reorder: runnable order, dead code, cycles.

bats_require_minimum_version 1.5.0

setup() {
	export LC_ALL=C
	BIN="${NNL_BIN:-$BATS_TEST_DIRNAME/../../bin}"
	G="$BATS_TEST_DIRNAME/../golden/reorder"
	T="$BATS_TEST_TMPDIR"
}

# Independent check: every node reads only inputs, consts and outputs
# of nodes listed before it.
runnable() {
	/usr/bin/python3 -c 'import json, sys
g = json.load(open(sys.argv[1]))
have = set(g["inputs"]) | set(g.get("consts", {}))
for n in g["nodes"]:
    reads = list(n["inputs"]) + [v for k, v in n["options"].items()
                                 if k == "bias"]
    for r in reads:
        assert r in have, (n["id"], r)
    have |= set(n.get("outputs", [n["id"]]))
print(len(g["nodes"]))' "$1"
}

@test "a shuffled node list comes out runnable, dead code dropped" {
	run --separate-stderr "$BIN/nnl-reorder" -v "$G/shuffled.in.json"
	[ "$status" -eq 0 ]
	printf '%s\n' "$output" > "$T/o.json"
	run runnable "$T/o.json"
	[ "$status" -eq 0 ]
	[ "$output" = 3 ]
	/usr/bin/python3 -c 'import json, sys
g = json.load(open(sys.argv[1]))
assert [n["id"] for n in g["nodes"]] == ["h1", "h2", "out"]
assert list(g["consts"]) == ["w", "b"]' "$T/o.json"
}

@test "-v names what it drops" {
	run --separate-stderr "$BIN/nnl-reorder" -v "$G/shuffled.in.json"
	[[ "$stderr" == *'dropping node "dead" (relu): no output depends on it'* ]]
	[[ "$stderr" == *'dropping unused constant "unused"'* ]]
}

@test "a runnable order is kept as it is" {
	"$BIN/nnl-reorder" "$G/already-ordered.in.json" > "$T/a.json"
	/usr/bin/python3 -c 'import json, sys
g = json.load(open(sys.argv[1]))
assert [n["id"] for n in g["nodes"]] == ["b", "a", "s"]' "$T/a.json"
}

@test "operand-valued options count as dependencies" {
	"$BIN/nnl-reorder" "$G/option-operand.in.json" > "$T/b.json"
	run runnable "$T/b.json"
	[ "$status" -eq 0 ]
}

@test "a cycle is rejected naming its nodes along the data flow" {
	cat > "$T/c.json" <<'JSON'
{"format": "webnn-graph-json", "version": 1,
 "inputs": {"x": {"dataType": "float32", "shape": [2]}},
 "nodes": [{"id": "y", "op": "relu", "inputs": ["x"], "options": {}},
           {"id": "a", "op": "add", "inputs": ["y", "c"], "options": {}},
           {"id": "b", "op": "relu", "inputs": ["a"], "options": {}},
           {"id": "c", "op": "sigmoid", "inputs": ["b"], "options": {}}],
 "outputs": {"c": "c"}}
JSON
	run --separate-stderr "$BIN/nnl-reorder" -o "$T/out.json" "$T/c.json"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *'cycle: '* ]]
	[[ "$stderr" == *'"a" -> "b" -> "c" -> "a"'* || \
	   "$stderr" == *'"b" -> "c" -> "a" -> "b"'* || \
	   "$stderr" == *'"c" -> "a" -> "b" -> "c"'* ]]
	[ ! -e "$T/out.json" ]
}

@test "a self-loop is a cycle too" {
	cat > "$T/s.json" <<'JSON'
{"format": "webnn-graph-json", "version": 1,
 "inputs": {"x": {"dataType": "float32", "shape": [2]}},
 "nodes": [{"id": "a", "op": "add", "inputs": ["x", "a"], "options": {}}],
 "outputs": {"a": "a"}}
JSON
	run --separate-stderr "$BIN/nnl-reorder" "$T/s.json"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *'cycle: "a" -> "a"'* ]]
}

@test "usage errors exit 2" {
	run --separate-stderr "$BIN/nnl-reorder" -q
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"usage: nnl-reorder "* ]]
}
