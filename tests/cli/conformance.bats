#!/usr/bin/env bats
# The conformance guard: tests/onnx/conformance.py fails when a test its
# expected list names as PASS does not pass, and keeps failing (the list
# is only read; the report goes elsewhere); refusals are classified and
# counted by the importer's reason code.  A few node tests copied from
# Debian's libonnx-testdata, one of them with its expected output
# changed, stand in for a regression.

bats_require_minimum_version 1.5.0

NODE=/usr/share/libonnx-testdata/data/node

setup() {
	export LC_ALL=C
	ROOT="$BATS_TEST_DIRNAME/../.."
	BIN="${NNL_BIN:-$ROOT/bin}"
	T="$BATS_TEST_TMPDIR"
	cd "$T"
	[ -d "$NODE/test_abs" ] || skip "no libonnx-testdata"
}

# data/: copies of the named node tests
copy() {
	mkdir -p data
	for t in "$@"; do
		cp -r "$NODE/$t" data/
	done
}

# change test $1's expected output: its data no longer what nnl computes
tamper() {
	/usr/bin/python3 - "data/$1/test_data_set_0/output_0.pb" <<'PY'
import sys, onnx
from onnx import numpy_helper
t = onnx.load_tensor(sys.argv[1])
a = numpy_helper.to_array(t)
onnx.save_tensor(numpy_helper.from_array(a + 1, t.name), sys.argv[1])
PY
}

conf() {
	run --separate-stderr /usr/bin/python3 "$ROOT/tests/onnx/conformance.py" \
	    --jobs 1 --bin "$BIN" --data data "$@"
	echo "$output"
	echo "$stderr"
}

@test "the copies pass as they are: the guard's control" {
	copy test_abs test_add
	printf 'PASS test_abs\nPASS test_add\n' > expect.txt
	conf --expect expect.txt --report report.txt
	[ "$status" -eq 0 ]
	grep -qx 'PASS test_abs' report.txt
	grep -qx '2 passed, 0 failed, 0 skipped' report.txt
}

@test "a test listed as PASS that fails now fails the run, and the next run" {
	copy test_abs test_add
	tamper test_abs
	printf 'PASS test_abs\nPASS test_add\n' > expect.txt
	cp expect.txt before.txt
	conf --expect expect.txt --report report.txt
	[ "$status" -eq 1 ]
	[[ "$output" == *'FAIL test_abs: test_data_set_0: output 0:'* ]]
	[[ "$output" == *'conformance: test_abs passed before and fails now'* ]]
	[[ "$output" != *'test_add passed before'* ]]
	grep -q '^FAIL test_abs' report.txt
	# the expected list is read, never written: the failure stays
	cmp expect.txt before.txt
	conf --expect expect.txt --report report.txt
	[ "$status" -eq 1 ]
	[[ "$output" == *'conformance: test_abs passed before and fails now'* ]]
}

@test "the same guard through nnl-emit-js" {
	command -v node >/dev/null || skip "no node"
	copy test_abs test_add
	printf 'PASS test_abs\nPASS test_add\n' > expect.txt
	conf --js --expect expect.txt --report report.txt
	[ "$status" -eq 0 ]
	tamper test_abs
	conf --js --expect expect.txt --report report.txt
	[ "$status" -eq 1 ]
	[[ "$output" == *'FAIL test_abs: test_data_set_0: output 0:'* ]]
	[[ "$output" == *'conformance: test_abs passed before and fails now'* ]]
	[[ "$output" != *'test_add passed before'* ]]
}

@test "a partitioned JS run refuses input of the wrong size, as C does" {
	command -v node >/dev/null || skip "no node"
	# the data set's inputs (a [3,4] bfloat16 as uint16 bits, 24 bytes,
	# and a float32 [1], 4 bytes) disagree with the model's (a [3,4]
	# bfloat16 and a [3,4] float32: 24 + 48 bytes); the control, a
	# float64 cast, goes the same partitioned way and passes
	copy test_castlike_BFLOAT16_to_FLOAT test_cast_FLOAT_to_DOUBLE
	for p in "" --js; do
		conf $p
		[ "$status" -eq 0 ]
		[[ "$output" == *'FAIL test_castlike_BFLOAT16_to_FLOAT: '*\
'test_data_set_0: run: model: expected 72 bytes of input, got 28'* ]]
		[[ "$output" == *'PASS test_cast_FLOAT_to_DOUBLE'* ]]
		[[ "$output" != *Traceback* ]]
	done
}

@test "one file as both the expected list and the report is refused" {
	copy test_abs
	printf 'PASS test_abs\n' > list.txt
	conf --expect list.txt --report list.txt
	[ "$status" -eq 2 ]
	[[ "$stderr" == *'--expect and --report name the same file'* ]]
	conf --expect missing.txt
	[ "$status" -eq 2 ]
	[[ "$stderr" == *'--expect missing.txt: No such file'* ]]
}

@test "make conformance reads the committed lists and reports into build/" {
	cd "$ROOT"
	run make -n conformance conformance-js
	echo "$output"
	[[ "$output" == *'--expect tests/onnx/conformance.txt --report build/conformance.txt'* ]]
	[[ "$output" == *'--expect tests/onnx/conformance-js.txt'*'--report build/conformance-js.txt'* ]]
	run make -n conformance-accept conformance-js-accept
	[[ "$output" == *'cp build/conformance.txt tests/onnx/conformance.txt'* ]]
	[[ "$output" == *'cp build/conformance-js.txt tests/onnx/conformance-js.txt'* ]]
}

@test "refusals are counted by reason code; an import error is a FAIL" {
	copy test_bernoulli test_cast_FLOAT_to_STRING test_sequence_insert_at_back \
	    test_relu
	# an invalid model (its node reads a value nothing defines) is an
	# error, not a refusal
	/usr/bin/python3 - data/test_relu/model.onnx <<'PY'
import sys, onnx
m = onnx.load(sys.argv[1])
m.graph.node[0].input[0] = "nowhere"
onnx.save(m, sys.argv[1])
PY
	conf
	[ "$status" -eq 0 ]
	[[ "$output" == *'UNSUPPORTED test_bernoulli [unsupported-op]: '* ]]
	[[ "$output" == *'UNSUPPORTED test_cast_FLOAT_to_STRING [unsupported-type]: '* ]]
	[[ "$output" == *'UNSUPPORTED test_sequence_insert_at_back [sequence]: '* ]]
	[[ "$output" == *'FAIL test_relu: import: '*'"nowhere" is not defined'* ]]
	[[ "$output" == *'0 passed, 1 failed, 3 skipped (refused: sequence 1, unsupported-op 1, unsupported-type 1)'* ]]
}
