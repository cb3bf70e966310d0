#!/usr/bin/env bats
# CpuOps and nnl-cpu-partition's runs: every op a support profile can
# leave to the CPU has a CpuOps implementation that agrees with NumPy;
# a model whose CPU nodes come first (an empty first WebNN partition)
# runs; argMax on the CPU runs.

bats_require_minimum_version 1.5.0

setup() {
	export LC_ALL=C
	ROOT="$BATS_TEST_DIRNAME/../.."
	BIN="${NNL_BIN:-$ROOT/bin}"
	P="$ROOT/pipelines/profiles"
	cd "$BATS_TEST_TMPDIR"
	cp "$ROOT/common/rt/js/cpuops.mjs" .
}

@test "every op a profile can leave to the CPU has CpuOps, and they agree with NumPy" {
	run /usr/bin/python3 "$ROOT/tests/ops/cpuops.py" --list
	echo "$output"
	[ "$status" -eq 0 ]
	[[ " ${lines[0]} " == *" argMax "* ]]
	# the count is the walk's finding today: it may only grow
	[[ "$output" =~ cpuops:\ ([0-9]+)\ ops,\ ([0-9]+)\ cases\ agree,\ 0\ differ$ ]]
	[ "${BASH_REMATCH[1]}" -ge 54 ]
	[ "${BASH_REMATCH[2]}" -ge 133 ]
}

@test "a CpuOps gap is reported by name" {
	# without argMax in CpuOps, the walk names it
	mkdir -p fake/common/rt/js fake/tests/ops fake/tests/js
	sed 's/^  argMax: /  argMaxGone: /' "$ROOT/common/rt/js/cpuops.mjs" > fake/common/rt/js/cpuops.mjs
	cp "$ROOT"/tests/ops/*.py fake/tests/ops/
	cp "$ROOT"/tests/js/cpuops-run.mjs "$ROOT"/tests/js/npy.mjs fake/tests/js/
	mkdir -p fake/common/core fake/pipelines
	cp "$ROOT/common/core/ops.def" "$ROOT/common/core/ops_nnl.def" \
	    fake/common/core/
	cp -r "$ROOT/pipelines/profiles" fake/pipelines/
	run env NNL_BIN="$BIN" /usr/bin/python3 fake/tests/ops/cpuops.py --op argMax
	[ "$status" -eq 1 ]
	[[ "$output" == *"not ok - argMax: a profile can place it on the CPU, and CpuOps has no argMax"* ]]
}

# int64 shape arithmetic first: partition 0 has no WebNN node.
cpufirst() {
	cat > e.json <<'JSON'
{"format": "webnn-graph-json", "version": 1,
 "inputs": {"x": {"dataType": "float32", "shape": [2, 3]},
            "n": {"dataType": "int64", "shape": [2]}},
 "nodes": [
  {"id": "m", "op": "mul", "inputs": ["n", "n"], "options": {}},
  {"id": "s", "op": "cast", "inputs": ["m"], "options": {"dataType": "float32"}},
  {"id": "s2", "op": "reshape", "inputs": ["s"], "options": {"newShape": [2, 1]}},
  {"id": "y", "op": "add", "inputs": ["x", "s2"], "options": {}},
  {"id": "z", "op": "sigmoid", "inputs": ["y"], "options": {}}],
 "outputs": {"z": "z"}}
JSON
	/usr/bin/python3 -c 'import numpy as np
np.save("x.npy", np.random.default_rng(1).standard_normal((2, 3)).astype(np.float32))
np.save("n.npy", np.array([3, -2], np.int64))'
}

@test "CPU nodes first: the empty first partition builds no graph, and the run is right" {
	cpufirst
	"$BIN/nnl-cpu-partition" -p "$P/cpu-no-int64.json" -o p.json e.json
	/usr/bin/python3 -c 'import json
g = json.load(open("p.json"))
pl = {n["id"]: (n["placement"]["device"], n["placement"]["partition"]) for n in g["nodes"]}
assert pl["m"] == ("cpu", 0) and pl["s"] == ("cpu", 0), pl
assert all(pl[k] == ("webnn", 1) for k in ("s2", "y", "z")), pl'
	"$BIN/nnl-emit-js" -o m.js p.json
	grep -qF '  {inputs: {__proto__: null}, outputs: {__proto__: null}},' m.js
	run node "$ROOT/tests/js/run-partitioned.mjs" "$BIN" m.js . - - x=x.npy n=n.npy
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = "1 WebNN partitions, 1 dispatches" ]
	/usr/bin/python3 -c 'import numpy as np
x, n = np.load("x.npy"), np.load("n.npy")
want = 1 / (1 + np.exp(-(x + (n * n).astype(np.float32).reshape(2, 1))))
assert np.allclose(np.load("z.npy"), want, atol=1e-6), np.load("z.npy")'
}

@test "argMax on the CPU: emit-js writes CpuOps.argMax and the run matches NumPy" {
	cat > a.json <<'JSON'
{"format": "webnn-graph-json", "version": 1,
 "inputs": {"x": {"dataType": "float32", "shape": [3, 4]},
            "n": {"dataType": "int64", "shape": [3, 4]}},
 "nodes": [
  {"id": "a", "op": "argMax", "inputs": ["n"], "options": {"axis": 1, "outputDataType": "int64"}},
  {"id": "f", "op": "cast", "inputs": ["a"], "options": {"dataType": "float32"}},
  {"id": "f2", "op": "reshape", "inputs": ["f"], "options": {"newShape": [3, 1]}},
  {"id": "z", "op": "mul", "inputs": ["x", "f2"], "options": {}}],
 "outputs": {"z": "z"}}
JSON
	/usr/bin/python3 -c 'import numpy as np
r = np.random.default_rng(3)
np.save("x.npy", r.standard_normal((3, 4)).astype(np.float32))
np.save("n.npy", r.integers(-9, 9, (3, 4)).astype(np.int64))'
	"$BIN/nnl-cpu-partition" -p "$P/cpu-no-int64.json" -o p.json a.json
	"$BIN/nnl-emit-js" -o m.js p.json
	grep -qF 'v["a"] = CpuOps.argMax(v["n"], {axis: 1, outputDataType: "int64"});' m.js
	run node "$ROOT/tests/js/run-partitioned.mjs" "$BIN" m.js . - - x=x.npy n=n.npy
	echo "$output"
	[ "$status" -eq 0 ]
	/usr/bin/python3 -c 'import numpy as np
x, n = np.load("x.npy"), np.load("n.npy")
want = x * np.argmax(n, 1).astype(np.float32).reshape(3, 1)
assert np.allclose(np.load("z.npy"), want, atol=1e-6)'
}
