#!/usr/bin/env bats
# nnl-shape-infer: every op's rule, against the shapes NumPy and PyTorch
# give (tests/ops), invalid graphs refused naming the node and value,
# the nnl-infer alias, and types given in the input checked.

bats_require_minimum_version 1.5.0

setup() {
	export LC_ALL=C
	BIN="${NNL_BIN:-$BATS_TEST_DIRNAME/../../bin}"
	G="$BATS_TEST_DIRNAME/../golden/shape-infer"
}

@test "every op: types and values agree with NumPy/PyTorch, invalid cases refused" {
	run /usr/bin/python3 "$BATS_TEST_DIRNAME/../ops/run.py"
	echo "$output" | grep -v '^ok'
	[ "$status" -eq 0 ]
	n=$(cat "$BATS_TEST_DIRNAME/../../common/core/ops.def" \
	    "$BATS_TEST_DIRNAME/../../common/core/ops_nnl.def" | grep -c '^OP(')
	[ "$n" -gt 95 ]
	[[ "$output" == *"# $n ops with value cases"* ]]
	[[ "$output" == *"# $n ops with refusal cases"* ]]
}

@test "every op of the table has a shape-infer golden" {
	missing=""
	for op in $(sed -n 's/^OP([A-Z0-9_]*, "\([A-Za-z0-9]*\)",$/\1/p' \
	    "$BATS_TEST_DIRNAME/../../common/core/ops.def" \
	    "$BATS_TEST_DIRNAME/../../common/core/ops_nnl.def"); do
		grep -lq "\"op\": \"$op\"" "$G"/*.in.json ||
		    missing="$missing $op"
	done
	echo "missing:$missing"
	[ -z "$missing" ]
}

@test "nnl-infer is the same pass" {
	f=$(ls "$G"/*.in.json | head -n 1)
	"$BIN/nnl-shape-infer" "$f" > "$BATS_TEST_TMPDIR/a.json"
	"$BIN/nnl-infer" "$f" > "$BATS_TEST_TMPDIR/b.json"
	cmp "$BATS_TEST_TMPDIR/a.json" "$BATS_TEST_TMPDIR/b.json"
	run --separate-stderr "$BIN/nnl-infer" -x
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"usage: nnl-infer "* ]]
}

@test "types given in the input are checked, not trusted" {
	cat > "$BATS_TEST_TMPDIR/g.json" <<'JSON'
{"format": "webnn-graph-json", "version": 1,
 "inputs": {"x": {"dataType": "float32", "shape": [2, 3]}},
 "nodes": [{"id": "y", "op": "relu", "inputs": ["x"], "options": {},
   "types": [{"dataType": "float32", "shape": [3, 2]}]}],
 "outputs": {"y": "y"}}
JSON
	run --separate-stderr "$BIN/nnl-shape-infer" "$BATS_TEST_TMPDIR/g.json"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *'node "y": output "y": the graph says float32[3, 2], the relu rule gives float32[2, 3]'* ]]
}

@test "a cycle is reported naming its nodes" {
	cat > "$BATS_TEST_TMPDIR/c.json" <<'JSON'
{"format": "webnn-graph-json", "version": 1,
 "inputs": {"x": {"dataType": "float32", "shape": [2]}},
 "nodes": [{"id": "a", "op": "add", "inputs": ["x", "b"], "options": {}},
           {"id": "b", "op": "relu", "inputs": ["a"], "options": {}}],
 "outputs": {"b": "b"}}
JSON
	run --separate-stderr "$BIN/nnl-shape-infer" "$BATS_TEST_TMPDIR/c.json"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *'"a", "b"'*cycle* ]]
}

@test "a failed node's dependants are skipped, not reported twice" {
	cat > "$BATS_TEST_TMPDIR/d.json" <<'JSON'
{"format": "webnn-graph-json", "version": 1,
 "inputs": {"x": {"dataType": "float32", "shape": [2, 3]}},
 "nodes": [{"id": "a", "op": "softmax", "inputs": ["x"], "options": {"axis": 5}},
           {"id": "b", "op": "relu", "inputs": ["a"], "options": {}}],
 "outputs": {"b": "b"}}
JSON
	run --separate-stderr "$BIN/nnl-shape-infer" "$BATS_TEST_TMPDIR/d.json"
	[ "$status" -eq 1 ]
	[ "$(printf '%s\n' "$stderr" | grep -c error)" -eq 1 ]
}

@test "the nn and tensor goldens agree with PyTorch and NumPy" {
	/usr/bin/python3 "$G/expect_nn.py" "$G"
	/usr/bin/python3 "$G/expect_tensor.py" "$G"
}

@test "every graph of tests/data/shape-invalid is refused with its message" {
	D="$BATS_TEST_DIRNAME/../data/shape-invalid"
	n=0
	for t in "$D"/*.tsv; do
		while IFS='	' read -r f msg; do
			# the specification's checks, not the tensor limit
			# (tests/cli/sizes.bats): the highest limit there is
			run --separate-stderr env \
			    NNL_MAX_TENSOR_BYTES=4611686018427387904 \
			    "$BIN/nnl-shape-infer" "$D/$f"
			if [ "$status" -ne 1 ] || [[ "$stderr" != *"$msg"* ]]; then
				echo "$f: status $status: $stderr (wanted: $msg)"
				return 1
			fi
			n=$((n + 1))
		done < "$t"
	done
	[ "$n" -eq "$(ls "$D"/*.json | wc -l)" ]
}
