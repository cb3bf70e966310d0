#!/usr/bin/env bats
# webnn-graph's promises, as its users would try them: pass-through of
# ops and options nnl does not know (refused only by the passes that
# need an op's meaning, and by --strict), node literals, the @quantized
# header flag, and nnl-emit-js reading .webnn with its weights beside it.

bats_require_minimum_version 1.5.0

setup() {
	export LC_ALL=C
	ROOT="$BATS_TEST_DIRNAME/../.."
	BIN="${NNL_BIN:-$ROOT/bin}"
	GP="$ROOT/tests/golden/parse"
	T="$BATS_TEST_TMPDIR"
	cd "$T"
}

custom() {
	cat > custom.webnn <<'G'
webnn_graph "custom" v1 {
  inputs {
    x: f32[1, 4];
  }

  nodes {
    y = myCustomOp(h, alpha=0.5, mode="fast");
    h = relu(x, myHint=3);
  }

  outputs { y; }
}
G
}

@test "nnl-parse keeps an unknown op and option, with a warning each" {
	custom
	run --separate-stderr "$BIN/nnl-parse" custom.webnn
	[ "$status" -eq 0 ]
	[[ "$stderr" == *'custom.webnn:7:5: warning: node "y": unknown op "myCustomOp": passed through'* ]]
	[[ "$stderr" == *'custom.webnn:8:5: warning: node "h": relu has no option "myHint": passed through'* ]]
	printf '%s\n' "$output" > c.json
	/usr/bin/python3 -c 'import json, sys
g = json.load(open(sys.argv[1]))
n = {x["id"]: x for x in g["nodes"]}
assert n["y"]["op"] == "myCustomOp" and n["y"]["inputs"] == ["h"], n
assert n["y"]["options"] == {"alpha": 0.5, "mode": "fast"}, n
assert n["h"]["options"] == {"myHint": 3}, n' c.json
	# and back to .webnn as written
	run --separate-stderr "$BIN/nnl-parse" -t webnn c.json
	[ "$status" -eq 0 ]
	[ "$output" = "$(cat custom.webnn)" ]
}

@test "nnl-parse --strict refuses them, naming the node" {
	custom
	run --separate-stderr "$BIN/nnl-parse" --strict -o out.json custom.webnn
	[ "$status" -eq 1 ]
	[[ "$stderr" == *'custom.webnn:7:5: error: node "y": field "op": unknown op "myCustomOp"'* ]]
	[[ "$stderr" == *'custom.webnn:8:5: error: node "h": relu has no option "myHint"'* ]]
	[ ! -e out.json ]
}

@test "nnl-reorder orders an unknown op after its producer; --strict refuses" {
	custom
	run --separate-stderr "$BIN/nnl-reorder" custom.webnn
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"warning: node \"y\": unknown op"* ]]
	printf '%s\n' "$output" > r.json
	/usr/bin/python3 -c 'import json, sys
g = json.load(open(sys.argv[1]))
assert [n["id"] for n in g["nodes"]] == ["h", "y"], g["nodes"]
assert g["nodes"][1]["options"] == {"alpha": 0.5, "mode": "fast"}' r.json
	run --separate-stderr "$BIN/nnl-reorder" --strict custom.webnn
	[ "$status" -eq 1 ]
	[[ "$stderr" == *'error: node "y": field "op": unknown op "myCustomOp"'* ]]
}

@test "nnl-emit-js emits the builder call an unknown op names, and it runs" {
	custom
	run --separate-stderr "$BIN/nnl-emit-js" -o custom.mjs custom.webnn
	[ "$status" -eq 0 ]
	[[ "$stderr" == *'warning: node "y": unknown op "myCustomOp": passed through'* ]]
	grep -qF 'const y = builder["myCustomOp"](h, {alpha: 0.5, mode: "fast"});' custom.mjs
	grep -qF 'const h = builder.relu(x, {myHint: 3});' custom.mjs
	# its output's type comes from the operand the custom op built
	grep -qF '  y: null' custom.mjs
	# a custom pass's op, added to the IDL stub's builder: add(x, x)
	cat > drive.mjs <<JS
import { createStub } from "$ROOT/tests/js/webnn-stub.mjs";
const stub = createStub({ run: () => { throw new Error("no run"); } });
globalThis.MLGraphBuilder = stub.MLGraphBuilder;
const seen = [];
stub.MLGraphBuilder.prototype.myCustomOp = function (a, o) {
  seen.push(o);
  return this.add(a, a);
};
stub.MLGraphBuilder.prototype.relu = function (a) { return a; };
const m = await import("$T/custom.mjs");
const b = new stub.MLGraphBuilder(stub.context);
const x = b.input("x", {dataType: "float32", shape: [1, 4]});
const y = m.loadModelGraph(x, new ArrayBuffer(0), b);
console.log(JSON.stringify(seen), JSON.stringify(y.graph.nodes.map((n) => [n.op, n.inputs])));
JS
	run --separate-stderr node drive.mjs
	echo "$output $stderr"
	[ "$status" -eq 0 ]
	[ "$output" = '[{"alpha":0.5,"mode":"fast"}] [["add",["x","x"]]]' ]
	run --separate-stderr "$BIN/nnl-emit-js" --strict -o s.mjs custom.webnn
	[ "$status" -eq 1 ]
	[[ "$stderr" == *'error: node "y": field "op": unknown op "myCustomOp"'* ]]
	[ ! -e s.mjs ]
}

@test "shape-infer, fuse and emit-c refuse an unknown op with a clear error" {
	custom
	for p in shape-infer fuse emit-c; do
		run --separate-stderr "$BIN/nnl-$p" custom.webnn
		echo "$p: $stderr"
		[ "$status" -eq 1 ]
		[[ "$stderr" == *"nnl-$p: custom.webnn:7:5: error: node \"y\": field \"op\": unknown op \"myCustomOp\""* ]]
	done
}

@test "node literals of every kind round-trip .webnn -> JSON -> .webnn" {
	"$BIN/nnl-parse" "$GP/passthrough-literals.in.webnn" > l.json
	cmp l.json "$GP/passthrough-literals.out.json"
	"$BIN/nnl-parse" -t webnn l.json > back.webnn
	diff -u "$GP/passthrough-literals.in.webnn" back.webnn
	# JSON -> .webnn -> JSON is the identity too
	"$BIN/nnl-parse" back.webnn > again.json
	cmp l.json again.json
}

@test "a literal is refused by shape inference, naming the node" {
	run --separate-stderr "$BIN/nnl-shape-infer" "$GP/passthrough-literals.in.webnn"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *'passthrough-literals.in.webnn:7:5: error: node "c": a literal, op "literal" has no WebNN semantics'* ]]
}

@test "a literal node in JSON is checked: no inputs, one value" {
	printf '%s' '{"format": "webnn-graph-json", "version": 1, "inputs": {"x": {"dataType": "float32", "shape": [1]}}, "nodes": [{"id": "c", "op": "literal", "inputs": ["x"], "options": {"value": 1, "other": 2}}, {"id": "y", "op": "relu", "inputs": ["x"]}], "outputs": {"y": "y"}}' > bad.json
	run --separate-stderr "$BIN/nnl-parse" bad.json
	[ "$status" -eq 1 ]
	[[ "$stderr" == *'node "c": field "inputs": a literal has none, found 1'* ]]
	[[ "$stderr" == *'node "c": a literal has no option "other"'* ]]
}

@test "@quantized is kept through JSON and back" {
	"$BIN/nnl-parse" "$GP/quantized.in.webnn" > q.json
	cmp q.json "$GP/quantized.out.json"
	"$BIN/nnl-parse" -t webnn q.json > q.webnn
	diff -u "$GP/quantized.in.webnn" q.webnn
	# passes keep it
	"$BIN/nnl-shape-infer" q.json | "$BIN/nnl-reorder" | grep -qxF '  "quantized": true,'
}

@test "a bad header flag, and a quantized field that is no boolean, are refused" {
	sed 's/@quantized/@quantised/' "$GP/quantized.in.webnn" > b.webnn
	run --separate-stderr "$BIN/nnl-parse" b.webnn
	[ "$status" -eq 1 ]
	[[ "$stderr" == *'b.webnn:1:20: error: unknown header flag @quantised (expected @quantized)'* ]]
	sed 's/"quantized": true/"quantized": 1/' "$GP/quantized.out.json" > b.json
	run --separate-stderr "$BIN/nnl-parse" b.json
	[ "$status" -eq 1 ]
	[[ "$stderr" == *'b.json: error: field "quantized": expected true or false'* ]]
}

# A graph whose constant is in model.weights beside model.webnn.
weighted() {
	/usr/bin/python3 -c 'import numpy as np
np.save("W.npy", np.arange(8, dtype=np.float32).reshape(4, 2) / 8)'
	"$BIN/nnl-pack-weights" pack -o model.weights W.npy
	cat > model.webnn <<'G'
webnn_graph "m" v1 {
  inputs { x: f32[1, 4]; }
  consts { W: f32[4, 2] @weights("W"); }
  nodes { y = matmul(x, W); }
  outputs { y; }
}
G
}

@test "nnl-emit-js reads .webnn and finds the weights beside it" {
	weighted
	"$BIN/nnl-emit-js" -o direct.mjs model.webnn
	"$BIN/nnl-parse" -o model.json model.webnn
	"$BIN/nnl-emit-js" -o viajson.mjs model.json
	cmp direct.mjs viajson.mjs
	grep -qF 'export const weightsFile = {name: "model.weights"' direct.mjs
	grep -qF 'const W = builder.constant({dataType: "float32", shape: [4, 2]}, w(' direct.mjs
}

@test "nnl-emit-js on .webnn without its weights says where it looked" {
	weighted
	rm model.weights
	run --separate-stderr "$BIN/nnl-emit-js" -o out.mjs model.webnn
	[ "$status" -eq 1 ]
	[[ "$stderr" == *'constant "W" is in a weights file, but the graph names none'* ]]
	[ ! -e out.mjs ]
}

@test "nnl-emit-js on .webnn checks the weights beside it against the graph" {
	weighted
	sed -i 's/f32\[4, 2\]/f32[2, 4]/' model.webnn
	run --separate-stderr "$BIN/nnl-emit-js" -o out.mjs model.webnn
	[ "$status" -eq 1 ]
	[[ "$stderr" == *'const "W": declared float32[2, 4], manifest'* ]]
}
