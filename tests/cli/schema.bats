#!/usr/bin/env bats
# The JSON Schemas: fresh from the tables in common/, satisfied by every
# graph and manifest the tests keep and the passes write, violated by
# hand-written bad graphs; and every man page lint-clean.

bats_require_minimum_version 1.5.0

setup() {
	export LC_ALL=C
	ROOT="$BATS_TEST_DIRNAME/../.."
	BIN="${NNL_BIN:-$BATS_TEST_DIRNAME/../../bin}"
	PY=/usr/bin/python3
	V="$ROOT/tests/validate-schema.py"
	S="$ROOT/schema/webnn-graph.schema.json"
	M="$ROOT/schema/weights-manifest.schema.json"
	T="$BATS_TEST_TMPDIR"
}

@test "the committed schemas are what gen-schema.py writes" {
	run sh "$ROOT/tests/check-schema-fresh.sh"
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "gen-schema.py writes the same bytes twice" {
	mkdir "$T/a" "$T/b"
	$PY "$ROOT/scripts/gen-schema.py" "$T/a"
	$PY "$ROOT/scripts/gen-schema.py" "$T/b"
	cmp "$T/a/webnn-graph.schema.json" "$T/b/webnn-graph.schema.json"
	cmp "$T/a/weights-manifest.schema.json" \
	    "$T/b/weights-manifest.schema.json"
}

@test "the schema has a conditional for each op of ops.def and ops_nnl.def" {
	run $PY -c 'import json, re, sys
s = json.load(open(sys.argv[1]))
webnn = re.findall(r"^OP\(\w+, \"(\w+)\"", open(sys.argv[2]).read(), re.M)
names = webnn + re.findall(r"^OP\(\w+, \"(\w+)\"",
                           open(sys.argv[3]).read(), re.M)
ifs = [c["if"]["properties"]["op"]["const"]
       for c in s["$defs"]["node"]["allOf"]]
assert len(webnn) == 95, len(webnn)
assert s["$defs"]["node"]["properties"]["op"]["enum"] == names
assert ifs == names
assert all("op." + n in s["$defs"] for n in names)' "$S" \
	    "$ROOT/common/core/ops.def" "$ROOT/common/core/ops_nnl.def"
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "the op table matches the WebNN IDL" {
	cd "$ROOT"
	$PY scripts/idl2ops.py --check tests/data/webnn.idl common/core/ops.def
}

@test "every graph under tests/golden and examples satisfies the schema" {
	# passthrough-*: what pass-through keeps is outside the strict schema
	find "$ROOT/tests/golden" "$ROOT/examples" -name '*.json' \
	    ! -name '*.manifest.json' ! -name 'passthrough-*' | sort > "$T/files"
	n=$(wc -l < "$T/files")
	echo "$n graphs"
	[ "$n" -gt 0 ]
	mapfile -t files < "$T/files"
	run --separate-stderr $PY "$V" "$S" "${files[@]}"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"$n files checked, 0 invalid" ]]
}

@test "every manifest there, and one packed now, satisfies its schema" {
	$PY "$ROOT/examples/resnet_head/make_weights.py" "$T/w"
	"$BIN/nnl-pack-weights" pack -o "$T/head.weights" "$T/w"
	{ find "$ROOT/tests/golden" "$ROOT/examples" -name '*.manifest.json'
	  echo "$T/head.manifest.json"; } | sort > "$T/files"
	n=$(wc -l < "$T/files")
	echo "$n manifests"
	mapfile -t files < "$T/files"
	run --separate-stderr $PY "$V" "$M" "${files[@]}"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"$n file"*" checked, 0 invalid" ]]
}

@test "what every pass writes satisfies the schema" {
	cd "$T"
	cp "$ROOT/examples/resnet_head/resnet_head.webnn" .
	$PY "$ROOT/examples/resnet_head/make_weights.py" w
	"$BIN/nnl-pack-weights" pack -o resnet_head.weights w
	"$BIN/nnl-parse" resnet_head.webnn > 1.json
	"$BIN/nnl-reorder" 1.json > 2.json
	"$BIN/nnl-shape-infer" 2.json > 3.json
	"$BIN/nnl-fuse" -w f.weights -m f.manifest.json 3.json > 4.json
	"$BIN/nnl-plan-memory" 4.json > 5.json
	"$BIN/nnl-parse" -w m.weights -m m.manifest.json -o 6.json \
	    "$ROOT/examples/model/model.nnl"
	grep -q '"memory"' 5.json
	grep -q '"layerType"' 6.json
	run $PY "$V" "$S" 1.json 2.json 3.json 4.json 5.json 6.json
	echo "$output"
	[ "$status" -eq 0 ]
	run $PY "$V" "$M" resnet_head.manifest.json m.manifest.json
	echo "$output"
	[ "$status" -eq 0 ]
}

# A small valid graph: $1, if given, replaces its node, $2 its inputs.
graph() {
	node='{"id": "y", "op": "relu", "inputs": ["x"], "options": {}}'
	inputs='{"x": {"dataType": "float32", "shape": [1, 4]}}'
	printf '{"format": "webnn-graph-json", "version": 1, "inputs": %s, "nodes": [%s], "outputs": {"y": "y"}}\n' \
	    "${2:-$inputs}" "${1:-$node}"
}

# The graph of graph() "$@" is refused by nnl-parse --strict and the schema,
# whose error names the JSON path in $WHERE.
bad() {
	graph "$@" > "$T/bad.json"
	run -1 "$BIN/nnl-parse" --strict "$T/bad.json"
	run -1 --separate-stderr $PY "$V" "$S" "$T/bad.json"
	echo "$output"
	[[ "$output" == *"bad.json: $WHERE"* ]]
}

@test "the graph the refusals start from is valid" {
	graph > "$T/good.json"
	"$BIN/nnl-parse" "$T/good.json" > /dev/null
	run $PY "$V" "$S" "$T/good.json"
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "reject-unknown-dtype" {
	WHERE='$.inputs.x.dataType: "complex64" is not one of'
	bad '' '{"x": {"dataType": "complex64", "shape": [1]}}'
}

@test "reject-negative-dimension" {
	WHERE='$.inputs.x.shape[1]: -1 is less than the minimum of 0'
	bad '' '{"x": {"dataType": "float32", "shape": [1, -1]}}'
}

@test "reject-unknown-op" {
	n=$(cat "$ROOT/common/core/ops.def" "$ROOT/common/core/ops_nnl.def" |
	    grep -c '^OP(')
	WHERE='$.nodes[0].op: "Relu" is not one of the '$n' allowed values'
	bad '{"id": "y", "op": "Relu", "inputs": ["x"], "options": {}}'
}

@test "reject-conv2d-strides-of-the-wrong-type" {
	WHERE="\$.nodes[0].options.strides: '2' is not of type 'array', 'null'"
	bad '{"id": "y", "op": "conv2d", "inputs": ["x", "x"], "options": {"strides": "2"}}'
	WHERE='$.nodes[0].options.strides[0]: -2 is less than the minimum'
	bad '{"id": "y", "op": "conv2d", "inputs": ["x", "x"], "options": {"strides": [-2, 1]}}'
}

@test "reject-softmax-without-axis" {
	WHERE="\$.nodes[0].options: 'axis' is a required property"
	bad '{"id": "y", "op": "softmax", "inputs": ["x"], "options": {}}'
	WHERE="\$.nodes[0]: 'options' is a required property"
	bad '{"id": "y", "op": "softmax", "inputs": ["x"]}'
}

@test "reject-option-the-op-does-not-have" {
	WHERE="\$.nodes[0].options: Additional properties are not allowed ('axes'"
	bad '{"id": "y", "op": "softmax", "inputs": ["x"], "options": {"axis": 1, "axes": [1]}}'
}

@test "reject-wrong-operand-count" {
	WHERE="\$.nodes[0].inputs: ['x'] is too short"
	bad '{"id": "y", "op": "add", "inputs": ["x"], "options": {}}'
}

@test "reject-inline-byte-above-255" {
	printf '%s\n' '{"format": "webnn-graph-json", "version": 1, "inputs": {}, "consts": {"c": {"dataType": "uint8", "shape": [1], "init": {"kind": "inlineBytes", "bytes": [256]}}}, "nodes": [{"id": "y", "op": "relu", "inputs": ["c"]}], "outputs": {"y": "y"}}' > "$T/bad.json"
	run -1 "$BIN/nnl-parse" --strict "$T/bad.json"
	run -1 --separate-stderr $PY "$V" "$S" "$T/bad.json"
	echo "$output"
	[[ "$output" == *'$.consts.c.init.bytes[0]: 256 is greater than the maximum of 255'* ]]
}

@test "extension fields are allowed at every level" {
	printf '%s\n' '{"format": "webnn-graph-json", "version": 1, "mine": 1, "inputs": {"x": {"dataType": "float32", "shape": [2], "mine": [1]}}, "consts": {"c": {"dataType": "float32", "shape": [], "init": {"kind": "scalar", "value": 2}, "mine": {}}}, "nodes": [{"id": "y", "op": "mul", "inputs": ["x", "c"], "options": {}, "mine": "a"}], "outputs": {"y": "y"}}' > "$T/ext.json"
	"$BIN/nnl-parse" "$T/ext.json" > /dev/null
	run $PY "$V" "$S" "$T/ext.json"
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "the manifest schema refuses a bad checksum and a header offset" {
	printf '%s\n' '{"format": "wg-weights-manifest", "version": 1, "tensors": {"w": {"dataType": "float32", "shape": [1], "byteOffset": 64, "byteLength": 4, "checksum": "xxh3-64:ABC"}}}' > "$T/a.manifest.json"
	run -1 --separate-stderr $PY "$V" "$M" "$T/a.manifest.json"
	echo "$output"
	[[ "$output" == *'$.tensors.w.checksum: '* ]]
	printf '%s\n' '{"format": "wg-weights-manifest", "version": 1, "tensors": {"w": {"dataType": "float32", "shape": [1], "byteOffset": 4, "byteLength": 4}}}' > "$T/b.manifest.json"
	run -1 --separate-stderr $PY "$V" "$M" "$T/b.manifest.json"
	echo "$output"
	[[ "$output" == *'$.tensors.w.byteOffset: 4 is less than the minimum of 8'* ]]
}

@test "validate-schema.py: usage, and files it cannot read" {
	run -2 --separate-stderr $PY "$V" "$S"
	[[ "$stderr" == "usage: validate-schema.py schema file..." ]]
	printf '{"format": 1, "format": 2}\n' > "$T/dup.json"
	printf '{\n' > "$T/cut.json"
	run -1 --separate-stderr $PY "$V" "$S" "$T/dup.json" "$T/cut.json" \
	    "$T/none.json"
	echo "$output"
	[[ "$output" == *'dup.json: cannot read: duplicate key "format"'* ]]
	[[ "$output" == *"cut.json: cannot read: "*"line 2"* ]]
	[[ "$output" == *"none.json: cannot read: "*"No such file"* ]]
	[[ "$output" == *"3 files checked, 3 invalid" ]]
}

@test "man pages are lint-clean" {
	run mandoc -T lint -W warning "$ROOT"/man/man1/*.1 \
	    "$ROOT"/man/man5/*.5 "$ROOT"/man/man7/*.7
	echo "$output"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
}
