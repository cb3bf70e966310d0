#!/usr/bin/env bats
# nnl-plan-memory on every example: the report line, an independent
# overlap check, the 1.10 bound; W003 and E009.

bats_require_minimum_version 1.5.0

setup() {
	export LC_ALL=C
	BIN="${NNL_BIN:-$BATS_TEST_DIRNAME/../../bin}"
	ROOT="$BATS_TEST_DIRNAME/../.."
	T="$BATS_TEST_TMPDIR"
}

plan() {
	case $1 in
	*.nnl) set -- -w "$T/w.weights" -m "$T/w.manifest.json" "$1" ;;
	esac
	"$BIN/nnl-parse" "$@" | "$BIN/nnl-reorder" | "$BIN/nnl-shape-infer" |
	    "$BIN/nnl-plan-memory" --report > "$T/planned.json"
}

# plan_checked MODEL: plan it into $T/planned.json, which the independent
# check must accept
plan_checked() {
	plan "$1" 2> /dev/null
	/usr/bin/python3 "$ROOT/tests/check-plan.py" "$T/planned.json"
}

@test "every example plans within 1.10 of the lower bound, no overlaps" {
	n=0
	for m in "$ROOT"/examples/*/*.nnl "$ROOT"/examples/*/*.webnn; do
		[ -e "$m" ] || continue
		run --separate-stderr plan "$m"
		echo "$m: $stderr"
		[ "$status" -eq 0 ]
		[[ "$stderr" =~ arena:\ [0-9]+\ bytes,\ lower\ bound:\ [0-9]+\ bytes,\ weights:\ [0-9]+\ bytes ]]
		run /usr/bin/python3 "$ROOT/tests/check-plan.py" "$T/planned.json"
		echo "$output"
		[ "$status" -eq 0 ]
		/usr/bin/python3 -c 'import json, sys
m = json.load(open(sys.argv[1]))["memory"]
assert m["arenaBytes"] <= 1.10 * m["lowerBoundBytes"], m' "$T/planned.json"
		n=$((n + 1))
	done
	[ "$n" -ge 1 ]
}

big_graph() {
	cat > "$T/big.json" <<JSON
{"format": "webnn-graph-json", "version": 1,
 "inputs": {"x": {"dataType": "float32", "shape": [1, 1000]}},
 "consts": {"w": {"dataType": "float32", "shape": [1000, $1],
   "init": {"kind": "weights", "ref": "w"}}},
 "nodes": [{"id": "y", "op": "matmul", "inputs": ["x", "w"], "options": {}}],
 "outputs": {"y": "y"}}
JSON
	"$BIN/nnl-shape-infer" "$T/big.json" > "$T/big.typed.json"
}

@test "W003 warns above 256 MB of static memory" {
	big_graph 70000
	run --separate-stderr "$BIN/nnl-plan-memory" "$T/big.typed.json"
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"warning: W003: static memory 267.30 MB exceeds 256 MB"* ]]
}

@test "E009 when the memory limit is exceeded, and no output file" {
	big_graph 1000
	run --separate-stderr "$BIN/nnl-plan-memory" -l 1MB -o "$T/o.json" \
	    "$T/big.typed.json"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"error: E009: static memory 3.82 MB"*"exceeds memory_limit 1.00 MB"* ]]
	[ ! -e "$T/o.json" ]
}

@test "an unordered graph is refused with advice" {
	cat > "$T/u.json" <<'JSON'
{"format": "webnn-graph-json", "version": 1,
 "inputs": {"x": {"dataType": "float32", "shape": [2]}},
 "nodes": [{"id": "b", "op": "relu", "inputs": ["a"], "options": {},
            "types": [{"dataType": "float32", "shape": [2]}]},
           {"id": "a", "op": "relu", "inputs": ["x"], "options": {},
            "types": [{"dataType": "float32", "shape": [2]}]}],
 "outputs": {"b": "b"}}
JSON
	run --separate-stderr "$BIN/nnl-plan-memory" "$T/u.json"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *'node "b" reads "a" before it is computed: run nnl-reorder first'* ]]
}

@test "a chain of elementwise ops runs in one buffer" {
	cat > "$T/chain.json" <<'JSON'
{"format": "webnn-graph-json", "version": 1,
 "inputs": {"x": {"dataType": "float32", "shape": [1000]}},
 "nodes": [{"id": "a", "op": "sigmoid", "inputs": ["x"], "options": {}},
           {"id": "b", "op": "relu", "inputs": ["a"], "options": {}},
           {"id": "c", "op": "tanh", "inputs": ["b"], "options": {}}],
 "outputs": {"c": "c"}}
JSON
	"$BIN/nnl-shape-infer" "$T/chain.json" |
	    "$BIN/nnl-plan-memory" -r > "$T/chain.out.json" 2> "$T/err"
	grep -q "arena: 4032 bytes, lower bound: 4032 bytes" "$T/err"
	# without in-place writes, a and c can still share: two buffers
	"$BIN/nnl-plan-memory" -n -r "$T/chain.out.json" 2>&1 >/dev/null |
	    grep -q "arena: 8064 bytes, lower bound: 8064 bytes"
}

@test "an input broadcast into a larger output is never overwritten in place" {
	# Found by the ONNX conformance tests: x - reduceLogSumExp(x) wrote
	# its output over the [1, 1] reduction it was still reading, since
	# both round up to one 64-byte block.
	cd "$BATS_TEST_TMPDIR"
	cat > b.json <<'JSON'
{"format": "webnn-graph-json", "version": 1,
 "inputs": {"x": {"dataType": "float32", "shape": [1, 3]}},
 "nodes": [{"id": "l", "op": "reduceLogSumExp", "inputs": ["x"],
            "options": {"axes": [1], "keepDimensions": true}},
           {"id": "y", "op": "sub", "inputs": ["x", "l"], "options": {}}],
 "outputs": {"y": "y"}}
JSON
	/usr/bin/python3 -c 'import numpy as np
x = np.array([[-1, 0, 1]], np.float32)
np.save("in.npy", x)
np.save("want.npy", (x - np.log(np.exp(x.astype(np.float64)).sum())).astype(np.float32))'
	run "$BIN/nnc" test --input in.npy --expected want.npy b.json
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "an operand above the runtime's rank is an error that says so" {
	cd "$BATS_TEST_TMPDIR"
	cat > r9.json <<'JSON'
{"format": "webnn-graph-json", "version": 1,
 "inputs": {"x": {"dataType": "float32", "shape": [1,1,1,1,1,1,1,2,2]}},
 "nodes": [{"id": "y", "op": "reduceL2", "inputs": ["x"], "options": {"axes": [8]}}],
 "outputs": {"y": "y"}}
JSON
	run --separate-stderr sh -c "'$BIN/nnl-shape-infer' r9.json | '$BIN/nnl-plan-memory'"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *'node "y": input "x" has rank 9; the C runtime handles ranks up to 8'* ]]
}

# found by scripts/fuzz.py: a split whose input was edited to [2]
# after nnl-shape-infer made the kernel read axis 1 of a rank-1 shape
@test "types edited after shape inference are refused, not trusted" {
	cat > "$T/t.json" <<'JSON'
{"format": "webnn-graph-json", "version": 1,
 "inputs": {"x": {"dataType": "float32", "shape": [2]}},
 "nodes": [{"id": "a", "op": "split", "inputs": ["x"],
            "options": {"splits": 2, "axis": 1}, "outputs": ["a", "b"],
            "types": [{"dataType": "float32", "shape": [2, 1]},
                      {"dataType": "float32", "shape": [2, 1]}]},
           {"id": "r", "op": "relu", "inputs": ["a"],
            "types": [{"dataType": "float32", "shape": [2, 1]}]}],
 "outputs": {"y": "r", "b": "b"}}
JSON
	run --separate-stderr "$BIN/nnl-plan-memory" "$T/t.json"
	[ "$status" -eq 1 ] && [ -z "$output" ]
	[[ "$stderr" == *'node "a": option "axis": 1 is out of range for rank 1'* ]]
	# a consistent edit of the same graph plans
	sed 's/"shape": \[2\]}}/"shape": [2, 2]}}/' "$T/t.json" > "$T/ok.json"
	"$BIN/nnl-plan-memory" "$T/ok.json" > /dev/null
}

@test "a recorded type that the rule does not give is refused" {
	cat > "$T/r.json" <<'JSON'
{"format": "webnn-graph-json", "version": 1,
 "inputs": {"x": {"dataType": "float32", "shape": [4]}},
 "nodes": [{"id": "r", "op": "relu", "inputs": ["x"],
            "types": [{"dataType": "float32", "shape": [2, 3]}]}],
 "outputs": {"y": "r"}}
JSON
	run --separate-stderr "$BIN/nnl-plan-memory" "$T/r.json"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *'output "r": the graph says float32[2, 3], the relu rule gives float32[4]'* ]]
}

@test "a concat's inputs are written where they go in its output" {
	cd "$BATS_TEST_TMPDIR"
	# a and b are read by the concat alone: they are planned inside y,
	# a at its start, b after a's 1024 bytes, and y copies nothing of
	# them; c is also a graph output, so it keeps bytes of its own
	cat > cat.json <<'JSON'
{"format": "webnn-graph-json", "version": 1,
 "inputs": {"x": {"dataType": "float32", "shape": [1, 16, 4, 4]}},
 "nodes": [{"id": "a", "op": "relu", "inputs": ["x"], "options": {}},
           {"id": "b", "op": "sigmoid", "inputs": ["x"], "options": {}},
           {"id": "c", "op": "tanh", "inputs": ["x"], "options": {}},
           {"id": "y", "op": "concat", "inputs": ["a", "b", "c"],
            "options": {"axis": 1}}],
 "outputs": {"y": "y", "c": "c"}}
JSON
	plan_checked cat.json
	/usr/bin/python3 - planned.json <<'PY'
import json, sys
g = json.load(open(sys.argv[1]))
off = {n["id"]: n["arena"][0] for n in g["nodes"]}
y = off["y"]
assert off["a"] == y and off["b"] == y + 1024, off
assert not y <= off["c"] < y + 3072, off
PY
	/usr/bin/python3 -c 'import numpy as np
x = np.random.default_rng(3).standard_normal((1, 16, 4, 4)).astype(np.float32)
d = x.astype(np.float64)
np.save("in.npy", x)
y = np.concatenate([np.maximum(d, 0), 1 / (1 + np.exp(-d)), np.tanh(d)], 1)
# the outputs y and c, by name
np.savez("want.npz", y=y.astype(np.float32),
    c=np.tanh(d).astype(np.float32))'
	run "$BIN/nnc" test --input in.npy --expected want.npz cat.json
	echo "$output"
	[ "$status" -eq 0 ]
	# c moved inside y, where the concat's copy of it would land while
	# it is still an output: refused, naming both
	/usr/bin/python3 - planned.json <<'PY'
import json, sys
g = json.load(open(sys.argv[1]))
y = [n for n in g["nodes"] if n["id"] == "y"][0]["arena"][0]
for n in g["nodes"]:
    if n["id"] == "c":
        n["arena"] = [y + 2048]
json.dump(g, open("bad.json", "w"))
PY
	run --separate-stderr "$BIN/nnl-emit-c" bad.json
	[ "$status" -eq 1 ]
	[[ "$stderr" == *'"c" (arena bytes'*'overlaps "y"'* ||
	   "$stderr" == *'"y" (arena bytes'*'overlaps "c"'* ]]
}

@test "a concat of a batch of two copies its inputs" {
	cd "$BATS_TEST_TMPDIR"
	# along axis 1 of [2, ...] an input's bytes are two pieces of the
	# output: each input keeps bytes of its own
	cat > cat2.json <<'JSON'
{"format": "webnn-graph-json", "version": 1,
 "inputs": {"x": {"dataType": "float32", "shape": [2, 16, 4]}},
 "nodes": [{"id": "a", "op": "relu", "inputs": ["x"], "options": {}},
           {"id": "b", "op": "neg", "inputs": ["x"], "options": {}},
           {"id": "y", "op": "concat", "inputs": ["a", "b"],
            "options": {"axis": 1}}],
 "outputs": {"y": "y"}}
JSON
	plan_checked cat2.json
	/usr/bin/python3 - planned.json <<'PY'
import json, sys
g = json.load(open(sys.argv[1]))
off = {n["id"]: n["arena"][0] for n in g["nodes"]}
for k in "ab":
    assert not off["y"] <= off[k] < off["y"] + 1024, off
PY
	/usr/bin/python3 -c 'import numpy as np
x = np.random.default_rng(4).standard_normal((2, 16, 4)).astype(np.float32)
np.save("in.npy", x)
np.save("want.npy", np.concatenate([np.maximum(x, 0), -x], axis=1))'
	run "$BIN/nnc" test --input in.npy --expected want.npy cat2.json
	echo "$output"
	[ "$status" -eq 0 ]
}

# a 1 x 1 conv2d of C channels at H x W, then a depthwise 3 x 3 one
# (stride 1, padding 1; $4: its fields, or strides) of the first's
# result, planned (with $5, if any) and checked
dw_graph() {
	/usr/bin/python3 - "$1" "$2" "$3" "$4" > "$T/dw.json" <<'PY'
import json, sys
c, h, w = (int(a) for a in sys.argv[1:4])
extra = sys.argv[4]
def const(shape):
    n = 1
    for d in shape:
        n *= d
    return {"dataType": "float32", "shape": shape,
            "init": {"kind": "inlineBytes", "bytes": [0, 0, 128, 63] * n}}
d = {"id": "d", "op": "conv2d", "inputs": ["p", "k"],
     "options": {"padding": [1, 1, 1, 1], "groups": c}}
for k, v in json.loads("{" + extra + "}").items():
    (d["options"] if k == "strides" else d)[k] = v
print(json.dumps({
    "format": "webnn-graph-json", "version": 1,
    "inputs": {"x": {"dataType": "float32", "shape": [1, c, h, w]}},
    "consts": {"w": const([c, c, 1, 1]), "k": const([c, 1, 3, 3])},
    "nodes": [{"id": "p", "op": "conv2d", "inputs": ["x", "w"],
               "options": {}}, d,
              {"id": "y", "op": "relu", "inputs": ["d"], "options": {}}],
    "outputs": {"y": "y"}}))
PY
	"$BIN/nnl-shape-infer" "$T/dw.json" | "$BIN/nnl-plan-memory" $5 \
	    > "$T/planned.json"
	/usr/bin/python3 "$ROOT/tests/check-plan.py" "$T/planned.json"
	/usr/bin/python3 -c 'import json, sys
n = json.load(open(sys.argv[1]))["nodes"]
print("same" if n[0]["arena"] == n[1]["arena"] else "apart")' \
	    "$T/planned.json"
}

@test "a depthwise conv2d of small planes writes over its input" {
	run dw_graph 40 14 14 ''
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${lines[1]}" = same ]
	run dw_graph 8 7 7 ''
	[ "${lines[1]}" = same ]
	# planes of 16 columns or more, read row by row from the image
	run dw_graph 8 28 28 ''
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${lines[1]}" = apart ]
	# its input read again, as its residual
	run dw_graph 40 14 14 '"residual": "p"'
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${lines[1]}" = apart ]
	# stride 2: the output is smaller
	run dw_graph 40 14 14 '"strides": [2, 2]'
	[ "$status" -eq 0 ]
	[ "${lines[1]}" = apart ]
	# -n
	run dw_graph 40 14 14 '' -n
	[ "$status" -eq 0 ]
	[ "${lines[1]}" = apart ]
}

@test "a slice of the outermost axis is a view of its input, no copy" {
	cd "$BATS_TEST_TMPDIR"
	# a [4, 8, 16]: s1, rows 1..2 of it, is its bytes 512..1535 and
	# lies there; s2 cuts axes 0 and 1 (not one run) and s3 starts
	# 48 bytes in (not aligned to 64): both copy.  b = sigmoid(a)
	# would write over a, which dies there but for s1, read after:
	# it must not.  t = tanh(s1) would write over s1, which is a's
	# bytes: it must not.
	cat > sl.json <<'JSON'
{"format": "webnn-graph-json", "version": 1,
 "inputs": {"x": {"dataType": "float32", "shape": [4, 8, 16]}},
 "nodes": [{"id": "a", "op": "relu", "inputs": ["x"], "options": {}},
           {"id": "s1", "op": "slice", "inputs": ["a"],
            "options": {"starts": [1, 0, 0], "sizes": [2, 8, 16]}},
           {"id": "s2", "op": "slice", "inputs": ["a"],
            "options": {"starts": [1, 2, 0], "sizes": [2, 3, 16]}},
           {"id": "s3", "op": "slice", "inputs": ["a"],
            "options": {"starts": [0, 0, 12], "sizes": [1, 1, 4]}},
           {"id": "b", "op": "sigmoid", "inputs": ["a"], "options": {}},
           {"id": "t", "op": "tanh", "inputs": ["s1"], "options": {}},
           {"id": "y", "op": "concat", "inputs": ["t", "s2"],
            "options": {"axis": 1}}],
 "outputs": {"y": "y", "b": "b", "s3": "s3"}}
JSON
	plan_checked sl.json
	/usr/bin/python3 - planned.json <<'PY'
import json, sys
g = json.load(open(sys.argv[1]))
off = {n["id"]: n["arena"][0] for n in g["nodes"]}
a = off["a"]
assert off["s1"] == a + 512, off
inside = lambda k: a <= off[k] < a + 2048
assert not inside("s2") and not inside("s3"), off
assert not inside("b") and not inside("t"), off
PY
	/usr/bin/python3 -c 'import numpy as np
x = np.random.default_rng(5).standard_normal((4, 8, 16)).astype(np.float32)
d = x.astype(np.float64)
np.save("in.npy", x)
a = np.maximum(d, 0)
y = np.concatenate([np.tanh(a[1:3]), a[1:3, 2:5]], 1)
b = 1 / (1 + np.exp(-a))
np.savez("want.npz", y=y.astype(np.float32), b=b.astype(np.float32),
    s3=a[0:1, 0:1, 12:16].astype(np.float32))'
	run "$BIN/nnc" test --input in.npy --expected want.npz sl.json
	echo "$output"
	[ "$status" -eq 0 ]
	# s1 moved to the start of a, where its bytes are not: refused
	/usr/bin/python3 - planned.json <<'PY'
import json, sys
g = json.load(open(sys.argv[1]))
a = [n for n in g["nodes"] if n["id"] == "a"][0]["arena"][0]
for n in g["nodes"]:
    if n["id"] == "s1":
        n["arena"] = [a]
json.dump(g, open("bad.json", "w"))
PY
	run --separate-stderr "$BIN/nnl-emit-c" bad.json
	echo "$stderr"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *'"s1"'*'overlaps "a"'* ||
	   "$stderr" == *'"a"'*'overlaps "s1"'* ]]
	run /usr/bin/python3 "$ROOT/tests/check-plan.py" bad.json
	[ "$status" -eq 1 ]
}

@test "a slice of a view is a view; views may be graph outputs" {
	cd "$BATS_TEST_TMPDIR"
	# s1, rows 2..3 of a [4, 8, 16], lies 1024 bytes into a; s4, row 1
	# of s1, 512 bytes into s1; both are outputs, read from a's bytes
	cat > v.json <<'JSON'
{"format": "webnn-graph-json", "version": 1,
 "inputs": {"x": {"dataType": "float32", "shape": [4, 8, 16]}},
 "nodes": [{"id": "a", "op": "relu", "inputs": ["x"], "options": {}},
           {"id": "s1", "op": "slice", "inputs": ["a"],
            "options": {"starts": [2, 0, 0], "sizes": [2, 8, 16]}},
           {"id": "s4", "op": "slice", "inputs": ["s1"],
            "options": {"starts": [1, 0, 0], "sizes": [1, 8, 16],
                        "strides": [1, 1, 1]}},
           {"id": "b", "op": "sigmoid", "inputs": ["a"], "options": {}}],
 "outputs": {"s1": "s1", "b": "b", "s4": "s4"}}
JSON
	plan_checked v.json
	/usr/bin/python3 - planned.json <<'PY'
import json, sys
g = json.load(open(sys.argv[1]))
off = {n["id"]: n["arena"][0] for n in g["nodes"]}
assert off["s1"] == off["a"] + 1024 and off["s4"] == off["a"] + 1536, off
assert not off["a"] <= off["b"] < off["a"] + 2048, off
PY
	/usr/bin/python3 -c 'import numpy as np
x = np.random.default_rng(6).standard_normal((4, 8, 16)).astype(np.float32)
d = x.astype(np.float64)
np.save("in.npy", x)
a = np.maximum(d, 0)
np.savez("want.npz", s1=a[2:4].astype(np.float32),
    b=(1 / (1 + np.exp(-a))).astype(np.float32),
    s4=a[3:4].astype(np.float32))'
	run "$BIN/nnc" test --input in.npy --expected want.npz v.json
	echo "$output"
	[ "$status" -eq 0 ]
}
