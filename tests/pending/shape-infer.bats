#!/usr/bin/env bats
# nnl-shape-infer: goldens checked against numpy/PyTorch shapes, every
# invalid case rejected with a message naming the node and the value,
# and the nnl-infer alias.

bats_require_minimum_version 1.5.0

setup() {
	export LC_ALL=C
	BIN="$BATS_TEST_DIRNAME/../../bin"
	G="$BATS_TEST_DIRNAME/../golden/shape-infer"
	D="$BATS_TEST_DIRNAME/../data/shape-invalid"
}

@test "golden types agree with independently computed shapes" {
	n=0
	for s in "$G"/expect_*.py; do
		run /usr/bin/python3 "$s"
		echo "$output"
		[ "$status" -eq 0 ]
		n=$((n + 1))
	done
	[ "$n" -eq 3 ]
}

@test "every op of the table has a shape-infer golden" {
	missing=""
	for op in $(sed -n 's/^OP([A-Z0-9_]*, "\([A-Za-z0-9]*\)",$/\1/p' \
	    "$BATS_TEST_DIRNAME/../../common/ops.def"); do
		grep -lq "\"op\": \"$op\"" "$G"/*.in.json ||
		    missing="$missing $op"
	done
	echo "missing:$missing"
	[ -z "$missing" ]
}

@test "every invalid case is rejected naming the node" {
	fails=0 n=0
	for tsv in "$D"/*.tsv; do
		while IFS="$(printf '\t')" read -r file expect; do
			n=$((n + 1))
			run --separate-stderr "$BIN/nnl-shape-infer" \
			    -o "$BATS_TEST_TMPDIR/o.json" "$D/$file"
			if [ "$status" -ne 1 ]; then
				echo "$file: exit $status: $stderr"
				fails=$((fails + 1))
			elif [[ "$stderr" != *"$expect"* ]]; then
				echo "$file: missing '$expect' in: $stderr"
				fails=$((fails + 1))
			elif [[ "$stderr" != *"node \""* ]]; then
				echo "$file: does not name the node: $stderr"
				fails=$((fails + 1))
			fi
			[ ! -e "$BATS_TEST_TMPDIR/o.json" ] ||
			    { echo "$file: output left"; fails=$((fails + 1)); }
		done < "$tsv"
	done
	echo "$n cases"
	[ "$n" -ge 95 ]
	[ "$fails" -eq 0 ]
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
