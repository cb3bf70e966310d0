#!/usr/bin/env bats
# nnl-cpu-partition: nodes placed by a support profile, with the reason;
# partitions counted in rounds of CPU nodes; the shipped profiles are
# what the generator makes from the WebIDL.

bats_require_minimum_version 1.5.0

setup() {
	export LC_ALL=C
	ROOT="$BATS_TEST_DIRNAME/../.."
	BIN="${NNL_BIN:-$ROOT/bin}"
	P="$ROOT/pipelines/profiles"
	cd "$BATS_TEST_TMPDIR"
	cat > i64.json <<'JSON'
{"format": "webnn-graph-json", "version": 1,
 "inputs": {"x": {"dataType": "float32", "shape": [2, 3]},
            "n": {"dataType": "int64", "shape": [2]}},
 "nodes": [
  {"id": "m", "op": "mul", "inputs": ["n", "n"], "options": {}},
  {"id": "s", "op": "cast", "inputs": ["m"], "options": {"dataType": "float32"}},
  {"id": "r", "op": "relu", "inputs": ["x"], "options": {}},
  {"id": "s2", "op": "reshape", "inputs": ["s"], "options": {"newShape": [2, 1]}},
  {"id": "y", "op": "add", "inputs": ["r", "s2"], "options": {}},
  {"id": "z", "op": "sigmoid", "inputs": ["y"], "options": {}}],
 "outputs": {"z": "z"}}
JSON
}

place() {	# node id -> device/partition
	/usr/bin/python3 -c 'import json, sys
g = json.load(open(sys.argv[1]))
for n in g["nodes"]:
    p = n["placement"]
    print(n["id"], p["device"], p["partition"])' "$1"
}

@test "without 64-bit integers the int64 arithmetic runs on the CPU, between two partitions" {
	run --separate-stderr "$BIN/nnl-cpu-partition" -v -p "$P/cpu-no-int64.json" -o p.json i64.json
	[ "$status" -eq 0 ]
	[[ "$stderr" == *'node "m" (mul) runs on the CPU: a "n": data type int64'* ]]
	[[ "$stderr" == *'node "s" (cast) runs on the CPU: input "m": data type int64'* ]]
	run place p.json
	[ "${lines[0]}" = "m cpu 0" ] && [ "${lines[1]}" = "s cpu 0" ]
	[ "${lines[2]}" = "r webnn 0" ]
	[ "${lines[3]}" = "s2 webnn 1" ] && [ "${lines[4]}" = "y webnn 1" ]
	grep -q '"partitions": {"profile": "cpu-no-int64.json", "webnnPartitions": 2, "cpuNodes": 2}' p.json
	/usr/bin/python3 "$BATS_TEST_DIRNAME/../validate-schema.py" \
	    "$ROOT/schema/webnn-graph.schema.json" p.json
}

@test "with every data type everything runs in one WebNN partition" {
	"$BIN/nnl-cpu-partition" -p "$P/cpu.json" -o p.json i64.json
	run place p.json
	[[ "$output" != *cpu* ]]
	grep -q '"webnnPartitions": 1, "cpuNodes": 0' p.json
}

@test "an op the profile lacks runs on the CPU; what reads it waits a round" {
	/usr/bin/python3 - "$P/cpu.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
del p["mul"]
json.dump(p, open("nomul.json", "w"))
PY
	run --separate-stderr "$BIN/nnl-cpu-partition" -v -p nomul.json -o p.json i64.json
	[ "$status" -eq 0 ]
	[[ "$stderr" == *'node "m" (mul) runs on the CPU: the profile has no mul'* ]]
	run place p.json
	[ "${lines[0]}" = "m cpu 0" ] && [ "${lines[1]}" = "s webnn 1" ]
	[ "${lines[2]}" = "r webnn 0" ] && [ "${lines[5]}" = "z webnn 1" ]
}

@test "a node that reads or makes an empty tensor runs on the CPU, whatever the profile" {
	cat > empty.json <<'JSON'
{"format": "webnn-graph-json", "version": 1,
 "inputs": {"x": {"dataType": "float32", "shape": [2, 3]},
            "e": {"dataType": "float32", "shape": [2, 0]}},
 "nodes": [
  {"id": "r", "op": "relu", "inputs": ["x"], "options": {}},
  {"id": "c", "op": "concat", "inputs": ["e", "r"], "options": {"axis": 1}},
  {"id": "t", "op": "transpose", "inputs": ["e"], "options": {}},
  {"id": "z", "op": "sigmoid", "inputs": ["c"], "options": {}}],
 "outputs": {"z": "z", "t": "t"}}
JSON
	"$BIN/nnl-shape-infer" -o s.json empty.json
	run --separate-stderr "$BIN/nnl-cpu-partition" -v -p "$P/cpu.json" -o p.json s.json
	[ "$status" -eq 0 ]
	[[ "$stderr" == *'node "c" (concat) runs on the CPU: "e" is empty, which WebNN refuses'* ]]
	[[ "$stderr" == *'node "t" (transpose) runs on the CPU: "e" is empty, which WebNN refuses'* ]]
	run place p.json
	[ "${lines[0]}" = "r webnn 0" ] && [ "${lines[1]}" = "c cpu 0" ]
	[ "${lines[2]}" = "t cpu 0" ] && [ "${lines[3]}" = "z webnn 1" ]
	# unplaced, nnl-emit-js refuses it
	run --separate-stderr "$BIN/nnl-emit-js" -o m.js s.json
	[ "$status" -eq 1 ]
	[[ "$stderr" == *'node "c" (concat) reads or makes the empty tensor "e", which WebNN refuses; place it on the CPU with nnl-cpu-partition'* ]]
	"$BIN/nnl-emit-js" -o m.js p.json
	# run: CpuOps on the empty tensors, WebNN (the stub) on the rest
	cp "$ROOT/common/rt/js/cpuops.mjs" .
	/usr/bin/python3 -c 'import numpy as np
np.save("x.npy", np.array([[-1, 2, -3], [4, -5, 6]], np.float32))
np.save("e.npy", np.zeros([2, 0], np.float32))'
	mkdir out
	node "$ROOT/tests/js/run-partitioned.mjs" "$BIN" m.js out - - \
	    x=x.npy e=e.npy
	/usr/bin/python3 -c 'import numpy as np
x, e = np.load("x.npy"), np.load("e.npy")
z, t = np.load("out/z.npy"), np.load("out/t.npy")
w = 1 / (1 + np.exp(-np.concatenate([e, np.maximum(x, 0)], 1)))
assert z.shape == w.shape and np.allclose(z, w, 1e-5, 1e-6), (z, w)
assert t.shape == (0, 2), t.shape'
}

@test "the shipped profiles are what gen-profiles.py makes from the IDL" {
	/usr/bin/python3 "$ROOT/scripts/gen-profiles.py" .
	cmp cpu.json "$P/cpu.json"
	cmp cpu-no-int64.json "$P/cpu-no-int64.json"
	[ "$(/usr/bin/python3 -c 'import json; print(len(json.load(open("cpu.json"))) - 5)')" -eq 95 ]
}

@test "bad profiles and usage" {
	echo '[1, 2]' > bad.json
	run "$BIN/nnl-cpu-partition" -p bad.json i64.json
	[ "$status" -eq 1 ] && [[ "$output" == *"bad.json: not a support profile"* ]]
	run "$BIN/nnl-cpu-partition" -p nothere.json i64.json
	[ "$status" -eq 1 ] && [[ "$output" == *"nothere.json: No such file"* ]]
	run "$BIN/nnl-cpu-partition" i64.json
	[ "$status" -eq 2 ]
}

@test "CpuOps, run in node, agree with the C kernels on the same graphs" {
	run node "$ROOT/tests/js/cpuops-check.mjs" "$BIN"
	echo "$output" | grep -v '^ok' || true
	[ "$status" -eq 0 ]
	[[ "$output" == *"cpuops: 35 agree with the C kernels, 0 differ"* ]]
}

@test "emit-js places on the CPU exactly the ops CpuOps implements" {
	# the names in emitjs.c's cpuop() against the keys of CpuOps: an op
	# named in one and not the other is placed where nothing runs it
	node --input-type=module -e "import {CpuOps} from \"$ROOT/common/rt/js/cpuops.mjs\";
	    console.log(Object.keys(CpuOps).sort().join(\"\\n\"))" > js.txt
	sed -n '/^cpuop(const char \*op)/,/NULL,/p' "$ROOT/common/back/emitjs.c" |
	    sed 's,/\*.*\*/,,' | grep -o '"[A-Za-z0-9]*"' | tr -d '"' |
	    sort > c.txt
	[ "$(wc -l < c.txt)" -gt 80 ]
	diff c.txt js.txt
}

@test "without 64-bit integers: two WebNN partitions and CpuOps between them give one graph's outputs" {
	"$BIN/nnl-reorder" i64.json > g.json
	"$BIN/nnl-cpu-partition" -p "$P/cpu-no-int64.json" -o p.json g.json
	"$BIN/nnl-emit-js" -o m.js p.json
	grep -q 'export const partitions = \[' m.js
	grep -q 'v\["m"\] = CpuOps.mul(v\["n"\], v\["n"\], {});' m.js
	cp "$ROOT/common/rt/js/cpuops.mjs" .
	/usr/bin/python3 -c 'import numpy as np
np.save("x.npy", np.random.default_rng(1).standard_normal((2, 3)).astype(np.float32))
np.save("n.npy", np.array([3, -2], np.int64))'
	run node "$ROOT/tests/js/run-partitioned.mjs" "$BIN" m.js . - - x=x.npy n=n.npy
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = "2 WebNN partitions, 2 dispatches" ]
	mkdir one
	"$BIN/nnl-run" -d one g.json x=x.npy n=n.npy > /dev/null
	cmp z.npy one/z.npy
	/usr/bin/python3 -c 'import numpy as np
x, n = np.load("x.npy"), np.load("n.npy")
want = 1 / (1 + np.exp(-(np.maximum(x, 0) + (n * n).astype(np.float32).reshape(2, 1))))
assert np.allclose(np.load("z.npy"), want, atol=1e-6)'
}

@test "an ONNX model's int64 indices: gathered by CpuOps, the rest in WebNN, as ONNX expects" {
	d=/usr/share/libonnx-testdata/data/node/test_gather_negative_indices
	"$BIN/nnl-onnx-import" -o g.json "$d/model.onnx"
	"$BIN/nnl-cpu-partition" -p "$P/cpu-no-int64.json" -o p.json g.json
	grep -q '"device": "cpu"' p.json
	"$BIN/nnl-emit-js" -o m.js p.json
	cp "$ROOT/common/rt/js/cpuops.mjs" .
	/usr/bin/python3 - "$d" <<'PY'
import glob, sys, numpy as np, onnx
from onnx import numpy_helper
d = sys.argv[1] + "/test_data_set_0/"
ins = [numpy_helper.to_array(onnx.load_tensor(f)) for f in sorted(glob.glob(d + "input_*.pb"))]
m = onnx.load(sys.argv[1] + "/model.onnx")
names = [v.name for v in m.graph.input]
with open("args", "w") as f:
    for n, a in zip(names, ins):
        np.save(n + ".npy", a)
        f.write("%s=%s.npy\n" % (n, n))
np.save("want.npy", numpy_helper.to_array(onnx.load_tensor(d + "output_0.pb")))
print(m.graph.output[0].name, file=open("outname", "w"))
PY
	run node "$ROOT/tests/js/run-partitioned.mjs" "$BIN" m.js . - - $(cat args)
	echo "$output"
	[ "$status" -eq 0 ]
	/usr/bin/python3 -c 'import numpy as np
o = open("outname").read().strip()
assert np.array_equal(np.load(o + ".npy"), np.load("want.npy"))'
}

@test "an op beyond WebNN: on the CPU whatever the profile, refused by emit-js unplaced, run by CpuOps" {
	cat > b.json <<'JSON'
{"format": "webnn-graph-json", "version": 1,
 "inputs": {"x": {"dataType": "float32", "shape": [2, 3]}},
 "nodes": [
  {"id": "r", "op": "relu", "inputs": ["x"], "options": {}},
  {"id": "t", "op": "atan", "inputs": ["r"], "options": {}},
  {"id": "z", "op": "sigmoid", "inputs": ["t"], "options": {}}],
 "outputs": {"z": "z"}}
JSON
	run "$BIN/nnl-emit-js" -o m.js b.json
	[ "$status" -eq 1 ]
	[[ "$output" == *'node "t" (atan) is nnl'"'"'s, beyond WebNN'*'nnl-cpu-partition'* ]]
	[ ! -e m.js ]
	for p in cpu cpu-no-int64; do
		"$BIN/nnl-cpu-partition" -p "$P/$p.json" -o p.json b.json
		[ "$(place p.json | tr '\n' ' ')" = "r webnn 0 t cpu 0 z webnn 1 " ]
	done
	grep -q '"atan is nnl'"'"'s, beyond WebNN"' p.json
	"$BIN/nnl-emit-js" -o m.js p.json
	grep -q 'v\["t"\] = CpuOps.atan(v\["r"\], {});' m.js
	cp "$ROOT/common/rt/js/cpuops.mjs" .
	/usr/bin/python3 -c 'import numpy as np
np.save("x.npy", np.random.default_rng(2).standard_normal((2, 3)).astype(np.float32))'
	run node "$ROOT/tests/js/run-partitioned.mjs" "$BIN" m.js . - - x=x.npy
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = "2 WebNN partitions, 2 dispatches" ]
	/usr/bin/python3 -c 'import numpy as np
x = np.load("x.npy").astype(np.float64)
want = 1 / (1 + np.exp(-np.arctan(np.maximum(x, 0))))
assert np.allclose(np.load("z.npy"), want, rtol=1e-6, atol=1e-7)'
}

@test "nnl's extended types: their nodes on the CPU whatever the profile, refused by emit-js unplaced, run by CpuOps" {
	cat > d.json <<'JSON'
{"format": "webnn-graph-json", "version": 1,
 "inputs": {"x": {"dataType": "float32", "shape": [2, 3]}},
 "nodes": [
  {"id": "d", "op": "cast", "inputs": ["x"], "options": {"dataType": "float64"}},
  {"id": "e", "op": "exp", "inputs": ["d"], "options": {}},
  {"id": "f", "op": "cast", "inputs": ["e"], "options": {"dataType": "float32"}},
  {"id": "z", "op": "relu", "inputs": ["f"], "options": {}}],
 "outputs": {"z": "z"}}
JSON
	"$BIN/nnl-shape-infer" -o t.json d.json
	run "$BIN/nnl-emit-js" -o m.js t.json
	[ "$status" -eq 1 ]
	[[ "$output" == *'node "d" (cast) is on float64, nnl'"'"'s type beyond WebNN'*'nnl-cpu-partition'* ]]
	[ ! -e m.js ]
	for p in cpu cpu-no-int64; do
		"$BIN/nnl-cpu-partition" -p "$P/$p.json" -o p.json t.json
		[ "$(place p.json | tr '\n' ' ')" = "d cpu 0 e cpu 0 f cpu 0 z webnn 1 " ]
	done
	grep -q '"float64 is nnl'"'"'s, beyond WebNN"' p.json
	"$BIN/nnl-emit-js" -o m.js p.json
	cp "$ROOT/common/rt/js/cpuops.mjs" .
	/usr/bin/python3 -c 'import numpy as np
np.save("x.npy", np.random.default_rng(3).standard_normal((2, 3)).astype(np.float32))'
	run node "$ROOT/tests/js/run-partitioned.mjs" "$BIN" m.js . - - x=x.npy
	echo "$output"
	[ "$status" -eq 0 ]
	/usr/bin/python3 -c 'import numpy as np
x = np.load("x.npy").astype(np.float64)
assert np.allclose(np.load("z.npy"), np.exp(x).astype(np.float32), rtol=1e-7, atol=0)'
}
