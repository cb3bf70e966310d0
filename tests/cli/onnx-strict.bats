#!/usr/bin/env bats
# nnl-onnx-import's strict import (common/onnx/onnx_attrs.def): every
# operator version and attribute of every ONNX schema is implemented
# or refused with a reason code, never ignored (tests/onnx/schema_walk.py),
# and the attributes no passing node test covers are covered here.

bats_require_minimum_version 1.5.0

setup() {
	export LC_ALL=C
	BIN="${NNL_BIN:-$BATS_TEST_DIRNAME/../../bin}"
	ROOT="$BATS_TEST_DIRNAME/../.."
}

@test "the schema walk: no attribute or op version is silently ignored" {
	run --separate-stderr /usr/bin/python3 \
	    "$ROOT/tests/onnx/schema_walk.py" --bin "$BIN"
	echo "$output"; echo "$stderr"
	[ "$status" -eq 0 ]
	[[ "$output" =~ schema_walk:\ ([0-9]+)\ models.*\ 0\ faults$ ]]
	# every schema version with its attributes: well over a thousand
	[ "${BASH_REMATCH[1]}" -gt 1500 ]
}

@test "the walk fails an importer that ignores what it does not know" {
	mkdir -p "$BATS_TEST_TMPDIR/fake"
	printf '#!/bin/sh\nexit 0\n' > "$BATS_TEST_TMPDIR/fake/nnl-onnx-import"
	chmod +x "$BATS_TEST_TMPDIR/fake/nnl-onnx-import"
	run --separate-stderr /usr/bin/python3 \
	    "$ROOT/tests/onnx/schema_walk.py" --bin "$BATS_TEST_TMPDIR/fake"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *'Relu-14 attribute nnl_not_an_attribute: not in the table, not refused'* ]]
	[[ "$stderr" == *'RandomUniformLike-1: no row, yet not refused as unsupported-op'* ]]
}

@test "the table is the schemas': gen-onnx-attrs.py --check" {
	run /usr/bin/python3 "$ROOT/scripts/gen-onnx-attrs.py" --check
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "the newest opsets: Gelu-20, RMSNormalization, RotaryEmbedding and Attention against NumPy" {
	run /usr/bin/python3 "$ROOT/tests/onnx/newest_ops.py" --bin "$BIN"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"PASS attention-causal-past"* ]]
	[[ "$output" == *"PASS gelu-tanh"* ]]
}

@test "attributes no passing node test uses, against NumPy or refused" {
	run /usr/bin/python3 "$ROOT/tests/onnx/attr_cases.py" --bin "$BIN"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" =~ attr_cases:\ ([0-9]+)\ of\ ([0-9]+)\ pass ]]
	[ "${BASH_REMATCH[2]}" -ge 49 ]
}
