#!/usr/bin/env bats
# nnl-emit-js --polyfill: OnnxConverter's mode, InstallCpuOps(builder)
# and the CPU nodes computed while the graph is built, in one WebNN
# graph, run under node against the WebIDL stub of MLGraphBuilder.

bats_require_minimum_version 1.5.0

setup() {
	export LC_ALL=C
	ROOT="$BATS_TEST_DIRNAME/../.."
	BIN="${NNL_BIN:-$ROOT/bin}"
	P="$ROOT/pipelines/profiles"
	cd "$BATS_TEST_TMPDIR"
	cp "$ROOT/common/rt/js/cpuops.mjs" .
	# int64 shape arithmetic on a constant, then float work on x
	/usr/bin/python3 - <<'PY'
import json, numpy as np
c = np.array([3, -2], np.int64).tobytes()
g = {"format": "webnn-graph-json", "version": 1,
 "inputs": {"x": {"dataType": "float32", "shape": [2, 3]}},
 "consts": {"c": {"dataType": "int64", "shape": [2],
                  "init": {"kind": "inlineBytes", "bytes": list(c)}}},
 "nodes": [
  {"id": "m", "op": "mul", "inputs": ["c", "c"], "options": {}},
  {"id": "s", "op": "cast", "inputs": ["m"], "options": {"dataType": "float32"}},
  {"id": "s2", "op": "reshape", "inputs": ["s"], "options": {"newShape": [2, 1]}},
  {"id": "y", "op": "add", "inputs": ["x", "s2"], "options": {}},
  {"id": "z", "op": "sigmoid", "inputs": ["y"], "options": {}}],
 "outputs": {"z": "z"}}
json.dump(g, open("g.json", "w"))
json.dump({"x": [0.5, -1, 2, 0, 1, -3]}, open("vals.json", "w"))
PY
	"$BIN/nnl-cpu-partition" -p "$P/cpu-no-int64.json" -o p.json g.json
}

@test "--polyfill: CPU nodes are builder.cpu_ calls, one graph, and it runs right" {
	"$BIN/nnl-emit-js" --polyfill -o pf.mjs p.json
	grep -qxF '  InstallCpuOps(builder);' pf.mjs
	grep -qxF '  const m = builder.cpu_mul(c, c, {});' pf.mjs
	grep -qxF '  const s = builder.cpu_cast(m, {dataType: "float32"});' pf.mjs
	grep -qxF '  const y = builder.add(x, s2);' pf.mjs
	grep -q '^export function InstallCpuOps(builder)' pf.mjs
	! grep -q 'export const partitions' pf.mjs
	run node "$ROOT/tests/js/run-module.mjs" "$BIN" pf.mjs vals.json
	echo "$output"
	[ "$status" -eq 0 ]
	printf '%s\n' "$output" > out.json
	/usr/bin/python3 -c 'import json, numpy as np
z = np.array(json.load(open("out.json"))["result"]["z"])
x = np.array([0.5, -1, 2, 0, 1, -3]).reshape(2, 3)
c = np.array([3, -2])
want = 1 / (1 + np.exp(-(x + (c * c).reshape(2, 1))))
assert np.allclose(z, want.ravel(), atol=1e-6), (z, want)'
}

@test "InstallCpuOps(builder), as OnnxConverter's users call it" {
	"$BIN/nnl-emit-js" --polyfill -o pf.mjs p.json
	cat > drive.mjs <<JS
import { createStub } from "$ROOT/tests/js/webnn-stub.mjs";
import { tensor } from "./cpuops.mjs";
const stub = createStub({ run: () => { throw new Error("no run"); } });
globalThis.MLGraphBuilder = stub.MLGraphBuilder;
const m = await import("$BATS_TEST_TMPDIR/pf.mjs");
const builder = new MLGraphBuilder(stub.context);
m.InstallCpuOps(builder);
// numbers and CPU values: computed in JS
const a = builder.mul(tensor("int64", [2], [3n, -2n]), 2);
const b = builder.cpu_reduceSum(a, {});
const r = builder.reshape(tensor("float32", [4], [1, 2, 3, 4]), [2, 2]);
// with an MLOperand: the CPU value becomes a constant of the graph
const x = builder.input("x", {dataType: "float32", shape: [2]});
const y = builder.add(x, tensor("float32", [2], [10, 20]));
console.log(JSON.stringify([Array.from(a.data, Number), Number(b.data[0]), r.shape,
  y.graph.nodes.map((n) => n.op), Object.keys(y.graph.consts).length]));
JS
	run node drive.mjs
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = '[[6,-4],2,[2,2],["add"],1]' ]
}

@test "--polyfill refuses a CPU node that reads a graph input, naming it" {
	cat > i.json <<'JSON'
{"format": "webnn-graph-json", "version": 1,
 "inputs": {"n": {"dataType": "int64", "shape": [2]}},
 "nodes": [
  {"id": "m", "op": "mul", "inputs": ["n", "n"], "options": {}},
  {"id": "s", "op": "cast", "inputs": ["m"], "options": {"dataType": "float32"}},
  {"id": "z", "op": "relu", "inputs": ["s"], "options": {}}],
 "outputs": {"z": "z"}}
JSON
	"$BIN/nnl-cpu-partition" -p "$P/cpu-no-int64.json" -o ip.json i.json
	run --separate-stderr "$BIN/nnl-emit-js" --polyfill -o out.mjs ip.json
	[ "$status" -eq 1 ]
	[[ "$stderr" == *'node "m" (mul) is placed on the CPU and reads "n", which is a graph input, known only when the graph runs'* ]]
	[ ! -e out.mjs ]
	# the partitioned run takes it
	"$BIN/nnl-emit-js" -o out.mjs ip.json
	grep -q 'export const partitions' out.mjs
}
