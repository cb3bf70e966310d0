#!/usr/bin/env bats
# The JSON Schema: fresh from ops.def, satisfied by every JSON file the
# tests produce and keep, violated by hand-written bad graphs.

bats_require_minimum_version 1.5.0

setup() {
	export LC_ALL=C
	ROOT="$BATS_TEST_DIRNAME/../.."
	BIN="$ROOT/bin"
	PY=/usr/bin/python3
	T="$BATS_TEST_TMPDIR"
	S="$ROOT/schema/webnn-graph.schema.json"
}

@test "the committed schema is what gen-schema.py prints" {
	cd "$ROOT"
	$PY scripts/gen-schema.py "$T/s.json"
	cmp "$T/s.json" schema/webnn-graph.schema.json
}

@test "the op table matches the WebNN IDL" {
	cd "$ROOT"
	$PY scripts/idl2ops.py --check tests/data/webnn.idl common/ops.def
}

@test "every golden output and example graph satisfies the schema" {
	files=$(find "$ROOT/tests/golden" "$ROOT/examples" -name '*.json' \
	    ! -name '*.manifest.json' ! -path '*/weights/*' | grep -v '\.in\.json$' || true)
	[ -n "$files" ]
	run $PY "$ROOT/tests/validate-schema.py" "$S" $files
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "what the passes write satisfies the schema, manifests too" {
	"$BIN/nnl-parse" "$ROOT/examples/resnet_head/resnet_head.webnn" > "$T/a.json"
	"$BIN/nnl-reorder" "$T/a.json" > "$T/b.json"
	$PY -c 'import numpy as np; np.save("'"$T"'/k.npy", np.ones((2, 2), np.float32))'
	"$BIN/nnl-pack-weights" pack -o "$T/k.weights" "$T/k.npy"
	run $PY "$ROOT/tests/validate-schema.py" "$S" "$T/a.json" "$T/b.json"
	[ "$status" -eq 0 ]
	run $PY "$ROOT/tests/validate-schema.py" \
	    "$ROOT/schema/weights-manifest.schema.json" "$T/k.manifest.json"
	[ "$status" -eq 0 ]
}

bad() {
	printf '%s\n' "$1" > "$T/bad.json"
	run $PY "$ROOT/tests/validate-schema.py" "$S" "$T/bad.json"
	[ "$status" -eq 1 ]
}

@test "the schema rejects bad graphs" {
	H='"format": "webnn-graph-json", "version": 1, "outputs": {"y": "y"}'
	bad "{$H, \"inputs\": {\"x\": {\"dataType\": \"float64\", \"shape\": [1]}}, \"nodes\": []}"
	bad "{$H, \"inputs\": {\"x\": {\"dataType\": \"float32\", \"shape\": [-1]}}, \"nodes\": []}"
	bad "{$H, \"inputs\": {}, \"nodes\": [{\"id\": \"y\", \"op\": \"Relu\", \"inputs\": [\"x\"]}]}"
	bad "{$H, \"inputs\": {}, \"nodes\": [{\"id\": \"y\", \"op\": \"conv2d\", \"inputs\": [\"x\", \"w\"], \"options\": {\"strides\": \"2\"}}]}"
	bad "{$H, \"inputs\": {}, \"nodes\": [{\"id\": \"y\", \"op\": \"softmax\", \"inputs\": [\"x\"], \"options\": {}}]}"
	bad "{$H, \"inputs\": {}, \"nodes\": [{\"id\": \"y\", \"op\": \"add\", \"inputs\": [\"x\"], \"options\": {}}]}"
	bad "{$H, \"inputs\": {}, \"consts\": {\"c\": {\"dataType\": \"uint8\", \"shape\": [1], \"init\": {\"kind\": \"inlineBytes\", \"bytes\": [256]}}}, \"nodes\": []}"
}

@test "man pages are lint-clean" {
	run mandoc -T lint -W warning "$ROOT"/man/man1/*.1 "$ROOT"/man/man5/*.5 \
	    "$ROOT"/man/man7/*.7
	echo "$output"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
}
